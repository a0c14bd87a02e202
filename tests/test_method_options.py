"""Method options from the user: ``anonymize(..., options={...})`` and ``starmin anonymize
--option NAME=VALUE`` reach the named method (or ``auto``'s budget), are checked before any
data is read where they can be, and are recorded in the report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import starmin
from starmin.cli.main import main
from starmin.data import Schema
from starmin.datasets import synthetic_census
from starmin.engines.local import LocalEngine
from starmin.errors import InvalidInput
from starmin.method_options import check_options, options_text, parse_option
from starmin.models import LDiversity
from starmin.report.record import Report

QI = ["age", "sex", "race", "education"]


@pytest.fixture(scope="module")
def census() -> pl.DataFrame:
    return synthetic_census(600, seed=3)


@pytest.mark.parametrize(("text", "want"), [
    ("start=levels", ("start", "levels")),
    ("donors=32", ("donors", 32)),
    ("budget=2.5", ("budget", 2.5)),
    ("full_scan=true", ("full_scan", True)),
    ("full_scan=False", ("full_scan", False)),
    ("x=none", ("x", None)),
    ("rules=spread,fill", ("rules", ("spread", "fill"))),
    ("start=diverse,levels,", ("start", ("diverse", "levels"))),
    (" h = 64 ", ("h", 64)),
    ("name=a=b", ("name", "a=b")),
])
def test_parse_option(text: str, want: tuple[str, Any]) -> None:
    assert parse_option(text) == want


@pytest.mark.parametrize("text", ["start", "=1", "2x=1", "a-b=1", ""])
def test_parse_option_refuses_what_is_not_name_value(text: str) -> None:
    with pytest.raises(InvalidInput, match="NAME=VALUE"):
        parse_option(text)


def test_options_text_is_what_the_command_line_takes() -> None:
    opts = {"start": "levels", "rules": ("spread", "fill"), "full_scan": False, "h": 64}
    text = options_text(opts)
    assert text == "start=levels rules=spread,fill full_scan=false h=64"
    assert dict(parse_option(t) for t in text.split()) == opts


@pytest.mark.parametrize(("options", "method", "attributes", "words"), [
    ([("start", 1)], "merge-repair", False, ("not a mapping",)),
    ({"start x": 1}, "merge-repair", False, ("not a name",)),
    ({3: 1}, "merge-repair", False, ("not a name",)),
    ({"seed": 1}, "merge-repair", False, ("seed=",)),
    ({"progress": print}, "merge-repair", False, ("progress=",)),
    ({"time_limit": 5}, "milp", False, ("time_limit=",)),
    ({"objective": "loss"}, "recode", False, ("objective=",)),
    ({"start": "levels"}, "auto", False, ("['start']", "method='NAME'")),
    ({"budget": 4}, "auto", True, ("attributes=True",)),
])
def test_check_options_refuses(options: Any, method: str, attributes: bool,
                               words: tuple[str, ...]) -> None:
    with pytest.raises(InvalidInput) as err:
        check_options(options, method, attributes)
    for w in words:
        assert w in str(err.value)


def test_auto_under_the_loss_objective_takes_no_budget(census: pl.DataFrame) -> None:
    with pytest.raises(InvalidInput, match="no work budget"):
        starmin.anonymize(census, QI, None, k=3, generalize=True, objective="loss",
                          options={"budget": 4})


def test_a_method_setting_given_as_a_keyword_points_to_options(census: pl.DataFrame) -> None:
    with pytest.raises(TypeError, match=r"'start'.*options=\{\.\.\.\}"):
        starmin.anonymize(census, QI, "occupation", l=3, method="merge-repair",
                          start="levels")


def test_check_options_passes_good_ones() -> None:
    assert check_options(None, "auto", False) == {}
    assert check_options({"budget": 4}, "auto", False) == {"budget": 4}
    assert check_options({"start": "levels"}, "merge-repair", False) == {"start": "levels"}


def test_options_reach_the_named_method_and_the_report(census: pl.DataFrame) -> None:
    """The release under an option is the method's own with that option, and differs from
    the default where the option changes the method (so the option was not dropped)."""
    rt = LocalEngine().to_row_types(census, Schema.of(QI, "occupation")).row_types
    plans = {start: starmin.solve(rt, LDiversity(3), "merge-repair", start=start)
             for start in ("levels", "diverse")}
    assert plans["levels"].stars != plans["diverse"].stars  # the option matters here
    for start, plan in plans.items():
        rel = starmin.anonymize(census, QI, "occupation", l=3, method="merge-repair",
                                options={"start": start})
        assert rel.verification.passed
        assert rel.plan.stars == plan.stars
        assert rel.report["options"] == {"start": start}
        assert Report.from_dict(json.loads(json.dumps(rel.report.as_dict()))) == rel.report
    plain = starmin.anonymize(census, QI, "occupation", l=3, method="merge-repair")
    assert "options" not in plain.report.as_dict() and not plain.report.options


def test_auto_takes_its_budget(census: pl.DataFrame) -> None:
    small = starmin.anonymize(census, QI, "occupation", l=3, options={"budget": 0.01})
    default = starmin.anonymize(census, QI, "occupation", l=3)
    assert small.report["portfolio_budget"]["units"] == 0.01
    assert default.report["portfolio_budget"]["units"] == 8.0
    def ran(rel: starmin.Release) -> list[str]:
        return [t["method"] for t in rel.report["portfolio"]
                if t["status"] in ("released", "tried")]

    assert len(ran(small)) < len(ran(default))  # the first member always runs
    assert any(t["status"] == "skipped" and "budget" in str(t.get("reason"))
               for t in small.report["portfolio"])


@pytest.mark.parametrize("budget", [-1, -0.5, float("inf"), float("nan"), True, "8"])
def test_auto_refuses_a_bad_budget(census: pl.DataFrame, budget: object) -> None:
    with pytest.raises(InvalidInput, match="work budget"):
        starmin.anonymize(census, QI, "occupation", l=3, options={"budget": budget})


def test_a_wrongly_typed_option_is_named(census: pl.DataFrame) -> None:
    with pytest.raises(InvalidInput, match=r"merge-repair: donors must be a whole number, "
                                           r"got 'many': use e\.g\. donors=32"):
        starmin.anonymize(census, QI, "occupation", l=3, method="merge-repair",
                          options={"donors": "many"})
    # an option the method takes as it comes: the solver's TypeError becomes one message
    with pytest.raises(InvalidInput, match=r"lp-rounding.*max_iterations='x'.*docs/options\.md"):
        starmin.anonymize(census, QI, "occupation", l=3, method="lp-rounding",
                          options={"max_iterations": "x"})


@pytest.mark.parametrize(("method", "option", "value"), [
    ("m-approx", "refine", "no"), ("merge-repair", "moves", "off"),
    ("lp-rounding", "complete_only", "yes"), ("pattern-packing", "bounds", 0),
    ("milp", "node_limit", -5), ("pattern-packing", "lp_max_iterations", -1),
    ("merge-repair", "width", 2.5), ("lp-rounding", "max_rounds", 0)])
def test_a_flag_or_count_of_the_wrong_kind_is_refused(census: pl.DataFrame, method: str,
                                                      option: str, value: object) -> None:
    # a text such as "no" read as true, and negative counts were taken as given
    kind = "true or false" if option in ("refine", "moves", "complete_only", "bounds") \
        else "a whole number"
    model = {"k": 2} if method in ("m-approx", "pattern-packing") else {"l": 2}
    with pytest.raises(InvalidInput, match=rf"{method}: {option} must be {kind}"):
        starmin.anonymize(census.head(60), QI, None if "k" in model else "occupation",
                          method=method, options={option: value}, **model)


def test_command_line_options_reach_the_report(census: pl.DataFrame, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "census.csv"
    census.write_csv(src)
    out = tmp_path / "r.csv"
    code = main(["-q", "anonymize", str(src), "--qi", ",".join(QI), "--sensitive",
                 "occupation", "--l", "3", "--method", "merge-repair", "--option",
                 "start=levels", "--option", "rules=spread", "-o", str(out)])
    assert code == 0
    assert "options    start=levels rules=spread" in capsys.readouterr().out
    report = json.loads(Path(f"{out}.report.json").read_text())
    assert report["options"] == {"start": "levels", "rules": "spread"}
    assert "method options" in Path(f"{out}.report.html").read_text()
    rt = LocalEngine().to_row_types(census, Schema.of(QI, "occupation")).row_types
    want = starmin.solve(rt, LDiversity(3), "merge-repair", start="levels", rules=("spread",))
    assert report["stars"] == want.stars


def test_methods_lists_each_methods_options(capsys: pytest.CaptureFixture[str]) -> None:
    from starmin.algorithms.registry import algorithms

    assert main(["methods"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # unwrapped
    assert "--option budget=UNITS" in text
    for a in algorithms().values():
        if a.options:
            assert f"options: {', '.join(a.options)}" in text, a.name
    assert "options: " + ", ".join(algorithms()["merge-repair"].options) in text


def test_the_options_reference_documents_every_option() -> None:
    """docs/options.md has a section per registered method naming each of its options (and
    auto's budget): a new option fails this until it is documented."""
    from starmin.algorithms.registry import algorithms

    text = (Path(__file__).resolve().parents[1] / "docs" / "options.md").read_text()
    sections = {}
    for part in text.split("\n## ")[1:]:
        head, _, body = part.partition("\n")
        sections[head.strip().strip("`")] = body
    assert "`budget`" in sections["auto"]
    for name, a in algorithms().items():
        assert name in sections, f"docs/options.md has no section for {name}"
        for option in a.options:
            assert f"`{option}`" in sections[name], (name, option)
        if not a.options:
            assert "No options." in sections[name], name
