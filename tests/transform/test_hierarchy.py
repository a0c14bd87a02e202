"""Generalization hierarchies: ARX files load, cover their data, and bad files fail clearly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starmin.errors import InvalidInput
from starmin.transform.hierarchy import Hierarchy
from tests.helpers.shared import shared_file

ADULT_COLUMNS = ("sex", "age", "race", "marital-status", "education", "native-country",
                 "workclass", "occupation", "salary-class")
# ARX's hierarchy files in ../shared/data/arx, named here so that collection reads no files
ARX_FILES = sorted([f"adult_hierarchy_{c}.csv" for c in ADULT_COLUMNS]
                   + [f"test2_hierarchy_{c}.csv" for c in ("Age", "Disease", "ZIPCode")]
                   + [f"test_hierarchy_{c}.csv" for c in ("age", "gender", "zipcode")])


def arx(name: str) -> Path:
    """``../shared/data/arx/<name>``; the test skips when it is missing (tests.helpers.shared)."""
    __tracebackhide__ = True
    return shared_file(f"data/arx/{name}")


def test_arx_files_are_present() -> None:
    assert len(ARX_FILES) == 15
    assert sorted(p.name for p in shared_file("data/arx").glob("*hierarchy*.csv")) == ARX_FILES


@pytest.mark.parametrize("name", ARX_FILES)
def test_every_arx_hierarchy_loads(name: str) -> None:
    path = arx(name)
    h = Hierarchy.read(path)
    raw = [line for line in path.read_text().splitlines() if line.strip()]
    assert len(h) == len(raw)
    assert h.height == raw[0].count(";") + 1
    assert h.values == tuple(line.split(";")[0] for line in raw)
    assert h.name == path.stem.split("hierarchy_")[1]
    # each level is a function of the previous one (checked again from the codes)
    for level in range(1, h.top):
        lo, hi = h.level_codes(level), h.level_codes(level + 1)
        for c in np.unique(lo):
            assert len(np.unique(hi[lo == c])) == 1


@pytest.mark.parametrize("column", ADULT_COLUMNS)
def test_adult_hierarchies_cover_adult(column: str) -> None:
    h = Hierarchy.read(arx(f"adult_hierarchy_{column}.csv"))
    values = pl.read_csv(arx("adult.csv"), separator=";")[column]
    h.check_covers(values)
    top = h.generalize(values, h.top)
    assert top.to_list() == ["*"] * len(values)


def test_adult_age_ancestors_literal() -> None:
    # adult_hierarchy_age.csv: value; 5-year; 10-year; 20-year; *
    h = Hierarchy.read(arx("adult_hierarchy_age.csv"))
    assert h.height == 5
    assert [h.ancestor(38, lv) for lv in range(5)] == ["38", "35-39", "30-39", "20-39", "*"]
    assert h.ancestor("90", 2) == "80-89"  # the file puts 90 in 85-89 and 80-89
    assert h.generalize([17, 64], 3) == ["0-19", "60-79"]


def test_vectorized_forms_agree_with_ancestor() -> None:
    h = Hierarchy.read(arx("adult_hierarchy_education.csv"))
    values = pl.read_csv(arx("adult.csv"), separator=";")["education"].head(500)
    idx = h.index(values)
    for level in range(h.height):
        expect = [h.ancestor(v, level) for v in values]
        assert h.generalize(values, level).to_list() == expect
        assert h.generalize(values.to_list(), level) == expect
        codes = h.generalize(idx, level)
        assert [h.labels(level)[c] for c in codes] == expect


def test_generalize_domain_for_row_types() -> None:
    h = Hierarchy.parse("a;x;*\nb;x;*\nc;y;*\n;unknown;*\n")
    domain = ("a", "c", None)  # RowTypes domain: sorted, missing last
    codes = h.generalize_domain(domain, 1)
    assert [h.labels(1)[c] for c in codes] == ["x", "y", "unknown"]


def test_missing_value_row() -> None:
    h = Hierarchy.parse("M;*\nF;*\n;*\n", name="sex")
    assert None in h and "" in h
    assert h.ancestor(None, 1) == "*"
    s = pl.Series("sex", ["M", None, "F"])
    assert h.generalize(s, 1).to_list() == ["*", "*", "*"]
    assert h.generalize(s, 0).to_list() == ["M", None, "F"]
    nums = Hierarchy.parse("1.5;low;*\n;none;*\n")  # NaN counts as missing, like null
    assert nums.generalize(pl.Series([1.5, None, float("nan")]), 1).to_list() == [
        "low", "none", "none"]
    no_missing = Hierarchy.parse("M;*\nF;*\n", name="sex")
    with pytest.raises(InvalidInput, match=r"no row for the missing value: add a line ';\.\.\.'"):
        no_missing.check_covers(s)


def test_sniffs_comma_and_quotes_and_bom(tmp_path: Path) -> None:
    p = tmp_path / "h.csv"
    p.write_bytes('\ufeffa,"x,y",*\r\nb,"x,y",*\r\n\r\n'.encode())
    h = Hierarchy.read(p)
    assert h.rows == (("a", "x,y", "*"), ("b", "x,y", "*"))
    # semicolon files may contain commas inside values (as ARX's test2 Age hierarchy does)
    h2 = Hierarchy.parse("29;[20,30[;*\n22;[20,30[;*\n")
    assert h2.ancestor(29, 1) == "[20,30["


def test_roundtrip_csv(tmp_path: Path) -> None:
    h = Hierarchy.from_rows([("a;b", "g", "*"), (None, "g", "*"), ('q"', "h", "*")])
    p = tmp_path / "x.csv"
    h.write(p)
    assert Hierarchy.read(p) == h
    assert Hierarchy.flat(["u", "v", "u"]).rows == (("u", "*"), ("v", "*"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"is empty: write one line per value"),
        ("\n  \n", r"is empty"),
        ("a;x;*\nb;x\n", r"line 2 of the hierarchy .* has 2 fields but line 1 has 3"),
        ("a;x;*\nb;y;*\na;y;*\n", r"value 'a' appears on lines 1 and 3 .*one line per value"),
        ("a;x;*\nb;x;+\n", r"line 1 puts 'x' \(level 1\) under '\*' but line 2 puts it under '\+'"),
        ("a;;*\n", r"line 1 of the hierarchy .* empty label at level 1"),
        ("a\nb\n", r"single field per line: add at least one level, e.g. 'a;\*'"),
        (";x;*\n;y;*\n", r"the missing value appears on lines 1 and 2"),
    ],
)
def test_malformed_hierarchies(text: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        Hierarchy.parse(text, source="bad.csv")


def test_inconsistency_is_found_at_a_high_level(tmp_path: Path) -> None:
    # levels 0->1 fine, 1->2 fine, 2->3 breaks: 'g' under two different tops
    p = tmp_path / "edu_hierarchy_edu.csv"
    p.write_text("a;x;g;*\nb;y;g;*\nc;z;g;ALL\n")
    with pytest.raises(InvalidInput, match=r"column 'edu'.*line 1 puts 'g' \(level 2\)"):
        Hierarchy.read(p)


def test_missing_file_and_bad_level_and_uncovered() -> None:
    with pytest.raises(InvalidInput, match="does not exist"):
        Hierarchy.read("/nonexistent/h.csv")
    h = Hierarchy.parse("a;x;*\nb;x;*\n")
    with pytest.raises(InvalidInput, match=r"level 3 does not exist .*use 0\.\.2"):
        h.ancestor("a", 3)
    with pytest.raises(InvalidInput, match=r"column 'job' has no row for value 'c': add a line"
                                           r" 'c;\.\.\.'"):
        h.check_covers(["a", "c"], column="job")
    with pytest.raises(InvalidInput, match=r"no row for 2 values \('c', 'd'\)"):
        h.index(pl.Series(["a", "c", "d", "c"]))
    with pytest.raises(InvalidInput, match="row index out of range"):
        h.generalize(np.array([0, 2]), 1)


@st.composite
def _hierarchies(draw: st.DrawFn) -> tuple[list[tuple[str, ...]], list[list[int]]]:
    """Random consistent hierarchies: level i+1 = parent map of level i."""
    n = draw(st.integers(1, 30))
    height = draw(st.integers(2, 5))
    groups = [list(range(n))]
    for _ in range(height - 2):
        k = max(groups[-1]) + 1
        parent = draw(st.lists(st.integers(0, 3), min_size=k, max_size=k))
        groups.append([parent[g] for g in groups[-1]])
    rows = [tuple([f"v{i}"] + [f"L{lv}g{groups[lv][i]}" for lv in range(1, height - 1)] + ["*"])
            for i in range(n)]
    return rows, groups


@settings(max_examples=60, deadline=None)
@given(_hierarchies())
def test_random_consistent_hierarchies(case: tuple[list[tuple[str, ...]], list[list[int]]]) -> None:
    rows, _ = case
    h = Hierarchy.from_rows(rows)
    assert Hierarchy.parse(h.to_csv()) == h
    idx = np.arange(len(rows))
    for level in range(h.height):
        got = [h.labels(level)[c] for c in h.generalize(idx, level)]
        assert got == [r[level] for r in rows]
