"""The verifier's cell check: each released QI cell is its value, an ancestor, or the star."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from starmin.errors import InvalidInput
from starmin.models import KAnonymity
from starmin.verifier import verify

AGE = ("30;30-34;30-39;*\n32;30-34;30-39;*\n35;35-39;30-39;*\n41;40-44;40-49;*\n"
       ";unknown;unknown2;*\n")


def original() -> pl.DataFrame:
    return pl.DataFrame({"age": [30, 32, 35, 41, None, 30], "sex": ["M", "M", "F", "F", "F", "M"],
                         "s": list("abcdef")})


def release(ages: list[str | None], sexes: list[str | None] | None = None) -> pl.DataFrame:
    return pl.DataFrame({"age": ages, "sex": sexes or ["M", "M", "F", "F", "F", "M"],
                         "s": list("abcdef")})


@pytest.fixture
def age_file(tmp_path: Path) -> Path:
    p = tmp_path / "age.csv"
    p.write_text(AGE)
    return p


def test_ancestors_values_and_stars_pass(age_file: Path) -> None:
    rel = release(["30-34", "30-39", "35", "*", "unknown", "30"])
    v = verify(rel, ["age", "sex"], None, [KAnonymity(1)], original=original(),
               hierarchies={"age": age_file})
    assert v.passed and v.cells is not None
    assert v.cells.cells == 12 and v.cells.generalized == 3 and v.cells.violating == 0
    assert v.cells.hierarchies == ("age",)
    assert v.as_dict()["cells"]["generalized_cells"] == 3


def test_a_non_ancestor_fails_with_examples(age_file: Path) -> None:
    # 41 is not in 30-39; 'F' for an 'M' row; the missing value may not become '30-34'
    rel = release(["30", "32", "35", "30-39", "30-34", "30"], ["M", "M", "F", "F", "F", "F"])
    v = verify(rel, ["age", "sex"], None, [KAnonymity(1)], original=original(),
               hierarchies={"age": age_file})
    assert not v.passed and v.cells is not None and v.cells.violating == 3
    assert [(e.row, e.column, e.original, e.released) for e in v.cells.examples] == [
        (3, "age", "41", "30-39"), (4, "age", None, "30-34"), (5, "sex", "M", "F")]
    # without a hierarchy a generalized label is a violation too
    v = verify(release(["30-34", "32", "35", "41", None, "30"]), ["age", "sex"], None,
               [KAnonymity(1)], original=original())
    assert not v.passed and v.cells is not None and v.cells.violating == 1


def test_numbers_and_truth_values_compare_by_what_they_read_as() -> None:
    orig = pl.DataFrame({"x": [39.0, 2.5, None], "b": [True, False, True]})
    rel = pl.DataFrame({"x": ["39", "2.50", None], "b": ["true", "False", "*"]})
    v = verify(rel, ["x", "b"], None, [KAnonymity(1)], original=orig)
    assert v.passed and v.cells is not None and v.cells.violating == 0


def test_without_the_original_nothing_changes(age_file: Path) -> None:
    rel = release(["30-34", "30-34", "*", "*", "*", "30-34"])
    v = verify(rel, ["age", "sex"], None, [KAnonymity(2)])
    assert v.cells is None and "cells" not in v.as_dict()
    with pytest.raises(InvalidInput, match="needs the original table: give it with original=TABLE"):
        verify(rel, ["age"], None, [KAnonymity(2)], hierarchies={"age": age_file})


def test_bad_inputs(age_file: Path) -> None:
    rel = release(["30", "32", "35", "41", None, "30"])
    with pytest.raises(InvalidInput, match="release has 6 rows but the original table 5"):
        verify(rel, ["age"], None, [KAnonymity(1)], original=original().head(5))
    with pytest.raises(InvalidInput, match="column 'sex', which is not a quasi-identifier"):
        verify(rel, ["age"], None, [KAnonymity(1)], original=original(),
               hierarchies={"sex": age_file})
    with pytest.raises(InvalidInput, match=r"hierarchy file .*nope.csv for column 'age' "
                                           r"does not exist"):
        verify(rel, ["age"], None, [KAnonymity(1)], original=original(),
               hierarchies={"age": "/nonexistent/nope.csv"})
    with pytest.raises(InvalidInput, match="original table has no column 'sex'"):
        verify(rel, ["age", "sex"], None, [KAnonymity(1)], original=original().drop("sex"))


def test_cli_verify_with_original_and_hierarchy(tmp_path: Path, age_file: Path) -> None:
    orig = tmp_path / "in.csv"
    original().write_csv(orig, separator=";")
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    release(["30-34", "30-34", "*", "*", "*", "30-34"],
            ["M", "M", "*", "*", "*", "M"]).write_csv(good)
    release(["30-34", "30-34", "40-49", "*", "unknown", "30-34"],
            ["M", "M", "*", "*", "*", "M"]).write_csv(bad)

    def run(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "starmin.cli.main", "verify", str(path),
                               "--qi", "age,sex", "--k", "3", *extra], capture_output=True,
                              text=True, timeout=120)

    ok = run(good, "--original", str(orig), "--hierarchy", f"age={age_file}")
    assert ok.returncode == 0, ok.stderr
    assert "PASS cells: each released QI cell is its value, an ancestor or * (hierarchies: " \
           "age); 3 generalized, 0 violating" in ok.stdout
    no = run(bad, "--original", str(orig), "--hierarchy", f"age={age_file}", "--json")
    assert no.returncode == 1
    cells = json.loads(no.stdout)["cells"]
    assert cells["violating_cells"] == 1 and cells["examples"] == [
        {"row": 2, "column": "age", "original": "35", "released": "40-49"}]
    usage = run(good, "--hierarchy", f"age={age_file}")
    assert usage.returncode == 2 and "give it with --original FILE" in usage.stderr
    usage = run(good, "--hierarchy", "age")
    assert usage.returncode == 2 and "expected COL=FILE" in usage.stderr
