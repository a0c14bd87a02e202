"""The typed report (issue 12, part 1): a frozen record whose JSON form keeps every version-1
key, reads back to an equal record, and renders the same text summary as before."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from starmin.api import Release
from starmin.errors import InvalidInput
from starmin.report.record import REPORT_VERSION, Report
from starmin.report.text import summary

V1_KEYS = ["starmin_version", "created", "input", "model", "method", "guarantee", "portfolio",
           "portfolio_budget", "portfolio_ratio", "stars", "star_fraction",
           "suppressed_records", "fully_suppressed_records", "lower_bound", "lower_bounds",
           "gap", "gap_ratio", "stars_per_column", "classes", "certificate", "verified",
           "verification", "timings_s", "seed"]
"""The keys of the report file before the typed record (version 1), in their order."""


def test_json_keeps_every_version_1_key_in_order(t_release: Release) -> None:
    d = t_release.report.as_dict()
    assert [k for k in d if k in V1_KEYS] == V1_KEYS
    assert set(d) - set(V1_KEYS) == {"report_version", "distributions",  # version 2
                                     "generalized_cells", "measures", "hierarchies"}  # 3
    assert d["report_version"] == REPORT_VERSION == 3
    assert set(d["input"]) == {"source", "n", "m", "t_in", "qi", "sensitive",
                               "identifiers_dropped", "cardinalities"}
    assert set(d["classes"]) == {"count", "min_size", "median_size", "max_size"}
    assert set(d["guarantee"]) == {"kind", "statement", "reference", "ratio", "parameter"}
    stages = {"read", "aggregate", "solve", "lower_bounds", "apply", "verify", "report"}
    assert set(d["timings_s"]) == stages


def test_round_trip_through_json_is_exact(t_release: Release) -> None:
    r = t_release.report
    text = json.dumps(r.as_dict(), indent=2, default=str)
    back = Report.from_dict(json.loads(text))
    assert back == r
    assert back.as_dict() == r.as_dict()
    assert json.dumps(back.as_dict(), indent=2) == text


def test_typed_fields_agree_with_the_json(t_release: Release) -> None:
    r = t_release.report
    d = r.as_dict()
    assert r.loss.stars == r.stars == d["stars"] == t_release.plan.stars
    assert r.bounds.lower_bound == r.lower_bound == d["lower_bound"]
    assert r.bounds.gap == r.stars - r.lower_bound
    assert r.inputs.qi == ("sex", "age", "race", "education")
    assert r.guarantee.kind == d["guarantee"]["kind"]
    assert r.verified is True and r.verification["passed"] is True
    assert r.portfolio is not None and r.portfolio.trials  # auto: the methods it tried
    released = [t for t in r.portfolio.trials if t.status == "released"]
    assert [t.method for t in released] == [r.method]


def test_frozen_and_read_only(t_release: Release) -> None:
    r = t_release.report
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.seed = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        r.certificate["x"] = 1  # type: ignore[index]
    # the mapping view hands out copies: changing one changes nothing in the record
    inp = r["input"]
    inp["source"] = "changed"
    assert r["input"]["source"] != "changed" and r.inputs.source != "changed"
    assert dict(r) == r.as_dict() and len(r) == len(r.as_dict()) and "stars" in r


def test_with_source(t_release: Release) -> None:
    r = t_release.report.with_source("elsewhere.csv")
    assert r.inputs.source == "elsewhere.csv" and r["input"]["source"] == "elsewhere.csv"
    assert r.stars == t_release.report.stars


def test_summary_reads_the_record_or_its_json(t_release: Release) -> None:
    r = t_release.report
    assert summary(r) == summary(r.as_dict())
    text = summary(r, written="out/x.csv")
    assert f"stars      {r.stars} (" in text and "verified   yes" in text
    assert text.endswith("written    out/x.csv, out/x.csv.report.json and "
                         "out/x.csv.report.html")


def test_a_version_1_report_still_reads(t_release: Release) -> None:
    d = t_release.report.as_dict()
    del d["report_version"], d["distributions"]
    del d["generalized_cells"], d["measures"], d["hierarchies"]  # version 3
    old = Report.from_dict(d)
    assert old.version == 1 and old.distributions is None and old.measures is None
    assert old.as_dict() == d  # written back with the version-1 keys only
    # the same summary, less the version-3 lines of loss measures
    assert summary(old) == summary(dataclasses.replace(t_release.report, measures=None))
    assert "measures   loss (Iyengar LM)" in summary(t_release.report)


def test_a_version_2_report_still_reads(t_release: Release) -> None:
    d = t_release.report.as_dict()
    del d["generalized_cells"], d["measures"], d["hierarchies"]
    d["report_version"] = 2
    for col in d["distributions"]["columns"]:
        del col["generalized"]
    old = Report.from_dict(d)
    assert old.version == 2 and old.measures is None and old.loss.generalized_cells == 0
    back = old.as_dict()
    for col in back["distributions"]["columns"]:
        assert col.pop("generalized") == 0
    assert back == d


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d.pop("stars"), "'stars'"),
    (lambda d: d.pop("input"), "'input'"),
    (lambda d: d["input"].pop("n"), "'n'"),
    (lambda d: d.update(report_version=99), "upgrade starmin"),
    (lambda d: d["distributions"].pop("columns"), "distributions are damaged"),
])
def test_damaged_reports_are_one_clear_error(t_release: Release, change: Any,
                                             words: str) -> None:
    d = t_release.report.as_dict()
    change(d)
    with pytest.raises(InvalidInput, match=words):
        Report.from_dict(d)


def test_not_an_object() -> None:
    with pytest.raises(InvalidInput, match="not a JSON object"):
        Report.from_dict([1, 2])  # type: ignore[arg-type]
