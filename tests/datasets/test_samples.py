"""Named samples: every one loads, has its default columns and hierarchies, reads no files."""

from __future__ import annotations

from pathlib import Path

import pytest

import starmin.datasets as ds
from starmin.errors import InvalidInput

REQUIRED = ("census", "census-100k", "liang-yuan-table1", "liang-yuan-table1-digits",
            "xiao-table1")


def test_required_samples_exist() -> None:
    assert set(REQUIRED) <= set(ds.SAMPLES)


@pytest.mark.parametrize("name", list(ds.SAMPLES))
def test_sample_loads_with_defaults(name: str) -> None:
    df = ds.load(name)
    qi, sa = ds.default_qi(name), ds.default_sensitive(name)
    assert qi and set(qi) <= set(df.columns) and set(sa) <= set(df.columns)
    assert not set(qi) & set(sa)
    for col, h in ds.hierarchies(name).items():
        assert col in df.columns
        h.check_covers(df[col], column=col)
    assert ds.load(name).equals(df)  # deterministic


def test_sample_contents() -> None:
    assert ds.load("census").equals(ds.synthetic_census(10_000, seed=0))
    assert ds.load("census-100k").height == 100_000
    assert ds.load("liang-yuan-table1").equals(ds.liang_yuan_table1())
    assert ds.load("xiao-table1").equals(ds.xiao_table1())
    assert ds.default_qi("xiao-table1") == ("Age", "Gender", "Education")
    assert ds.default_sensitive("liang-yuan-table1-digits") == ("Disease",)
    assert ds.load(" Census ").height == 10_000


def test_paper_sample_hierarchies_reproduce_printed_forms() -> None:
    hs = ds.hierarchies("liang-yuan-table1")
    assert hs["Zipcode"].ancestor("98765", 3) == "98***"  # Table 2, first group
    assert hs["Zipcode"].ancestor("97017", 2) == "970**"  # Table 2, third group
    assert hs["Age"].ancestor(38, 1) == "3*"
    xh = ds.hierarchies("xiao-table1")  # Table 4: single-dimensional generalization
    assert xh["Age"].generalize(["< 30", "[30, 50]", "≥ 50"], 1) == ["<50", "<50", "≥ 50"]
    assert xh["Education"].ancestor("Master", 1) == "Bachelor or above"


def test_unknown_sample() -> None:
    with pytest.raises(InvalidInput, match=r"unknown sample 'adult': use one of census"):
        ds.load("adult")
    with pytest.raises(InvalidInput, match="unknown sample"):
        ds.default_qi("nope")


def test_datasets_package_reads_no_files() -> None:
    src = Path(ds.__file__).parent
    for path in src.glob("*.py"):
        text = path.read_text()
        for word in ("shared", "open(", "read_csv", "read_text", "Path("):
            assert word not in text, f"{path.name} mentions {word!r}"
