"""``protects_nothing``: a model that every class satisfies (k = 1, l = 1, t = 1, ...) is
found, against an oracle that judges every class of small tables; ``anonymize`` warns with
:class:`NoProtection` there (a progress line too), the CLI prints one ``starmin: warning:``
line even under ``--quiet``, and nothing warns for a model that asks something."""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.cli.main import main
from starmin.data.rowtypes import RowTypes
from starmin.errors import NoProtection
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    HierarchicalDistance,
    KAnonymity,
    LDiversity,
    OrderedDistance,
    PrivacyModel,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.models.apply import holds, protects_nothing


def every_class_holds(model: PrivacyModel, rt: RowTypes) -> bool:
    """The oracle: every non-empty set of the table's rows, as one class, satisfies it."""
    rows = [(v, key) for v in range(rt.t_in) for key in range(rt.s)
            for _ in range(int(rt.counts[v, key]))]
    for size in range(1, len(rows) + 1):
        for chosen in itertools.combinations(rows, size):
            counts = np.zeros((1, rt.s), dtype=np.int64)
            for _, key in chosen:
                counts[0, key] += 1
            if not holds(model, rt, counts)[0]:
                return False
    return True


def table(sa: list[int]) -> RowTypes:
    qi = np.arange(len(sa), dtype=np.int64)[:, None] % 3
    return RowTypes.from_arrays(qi, np.array(sa, dtype=np.int64))


SKEWED = [0, 0, 0, 0, 0, 1, 1, 2]  # value 2 is 1/8 of the table


def models() -> list[PrivacyModel]:
    levels = [("0", "A", "*"), ("1", "A", "*"), ("2", "B", "*")]  # 0 and 1 under one parent
    out: list[PrivacyModel] = [KAnonymity(1), KAnonymity(2), LDiversity(1), LDiversity(2),
                               DistinctLDiversity(1), DistinctLDiversity(2),
                               EntropyLDiversity(1), EntropyLDiversity(2),
                               RecursiveCLDiversity(2, 1), RecursiveCLDiversity(Fraction(1, 2), 1),
                               RecursiveCLDiversity(3, 2), PSensitiveKAnonymity(1, 1),
                               PSensitiveKAnonymity(1, 2),
                               AllOf(KAnonymity(1), LDiversity(1)),
                               AllOf(KAnonymity(1), LDiversity(2))]
    for t in (Fraction(1), Fraction(7, 8), Fraction(6, 8), Fraction(1, 2)):
        out += [TCloseness(t), TCloseness(t, distance=OrderedDistance()),
                TCloseness(t, distance=HierarchicalDistance(levels))]
    return out


@pytest.mark.parametrize("model", models(), ids=lambda m: m.name)
def test_matches_the_oracle(model: PrivacyModel) -> None:
    rt = table(SKEWED)
    assert protects_nothing(model, rt) == every_class_holds(model, rt)


def test_t_at_the_largest_one_row_distance() -> None:
    """Equal distance: a one-row class of value u is 1 - Q(u) from the table, at most 7/8
    here (value 2), so t = 7/8 asks nothing and any t below it does."""
    rt = table(SKEWED)
    assert protects_nothing(TCloseness(Fraction(7, 8)), rt)
    assert not protects_nothing(TCloseness(Fraction(7, 8) - Fraction(1, 10**6)), rt)


def test_every_model_on_random_tables() -> None:
    rng = np.random.default_rng(7)
    found = {True: 0, False: 0}
    for _ in range(12):
        rt = table(list(rng.integers(0, 3, size=int(rng.integers(2, 8)))))
        for model in models():
            got = protects_nothing(model, rt)
            assert got == every_class_holds(model, rt), model.name
            found[got] += 1
    assert found[True] and found[False]


def test_a_column_with_too_many_values_is_not_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    from starmin.models import apply

    monkeypatch.setattr(apply, "PROTECTS_NOTHING_MAX_VALUES", 2)
    assert not protects_nothing(KAnonymity(1), table(SKEWED))  # no warning, never a wrong one
    assert protects_nothing(KAnonymity(1), table([0, 1, 1, 0]))


FRAME = pl.DataFrame({"a": [1, 2, 3, 1, 2, 3], "b": ["x", "y", "x", "y", "x", "y"],
                      "s": ["p", "q", "r", "p", "q", "r"]})


@pytest.mark.parametrize("params, hint", [({"k": 1}, "k=2 or more"), ({"l": 1}, "l=2 or more"),
                                          ({"t": 1}, "a smaller t"),
                                          ({"k": 1, "t": 1}, "k=2 or more, or a smaller t")])
def test_anonymize_warns(params: dict[str, int], hint: str) -> None:
    lines: list[str] = []
    with pytest.warns(NoProtection) as caught:
        release = starmin.anonymize(FRAME, qi="a,b", sensitive="s", progress=lines.append,
                                    **params)
    assert release.report.loss.stars == 0
    (warning,) = caught
    assert warning.filename == __file__  # the user's call, not starmin's code
    assert "protects nothing" in str(warning.message) and hint in str(warning.message)
    assert any(line.startswith("warning: ") and "protects nothing" in line for line in lines)


def test_no_warning_when_the_model_asks_something() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoProtection)
        starmin.anonymize(FRAME, qi="a,b", sensitive="s", k=2)
        starmin.anonymize(FRAME, qi="a,b", sensitive="s", l=2)


def test_cli_prints_one_warning_line_when_quiet(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "t.csv"
    FRAME.write_csv(src)
    out = tmp_path / "out.csv"
    assert main(["-q", "anonymize", str(src), "--qi", "a,b", "--sensitive", "s", "--l", "1",
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("starmin: warning: the model (1-diversity) holds for every class")
    assert err.count("\n") == 1 and "--l 2 or more" in err
    assert out.exists()
    assert main(["-q", "anonymize", str(src), "--qi", "a,b", "--sensitive", "s", "--l", "2",
                 "-o", str(tmp_path / "two.csv")]) == 0
    assert capsys.readouterr().err == ""


def test_info_says_which_parameters_ask_nothing(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "t.csv"
    FRAME.write_csv(src)
    assert main(["-q", "info", str(src), "--qi", "a,b", "--sensitive", "s", "--k", "1", "--k",
                 "2", "--l", "1", "--l", "2", "--t", "1", "--t", "0.5"]) == 0
    lines = {line.split(":")[0]: line for line in capsys.readouterr().out.splitlines()
             if " = " in line.split(":")[0]}
    for asks_nothing in ("k = 1", "l = 1 (1-diversity)", "t = 1 (equal distance)"):
        assert lines[asks_nothing].endswith("it asks nothing"), lines[asks_nothing]
    for asks in ("k = 2", "l = 2 (2-diversity)", "t = 0.5 (equal distance)"):
        assert "asks nothing" not in lines[asks], lines[asks]
    assert "holds >= 1 row;" in lines["t = 1 (equal distance)"]
