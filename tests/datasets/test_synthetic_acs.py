"""Synthetic SAL / OCC: Xiao, Yi & Tao's Table 6 domain sizes, shared QIs, dependencies."""

from __future__ import annotations

import polars as pl
import pytest

from starmin.datasets import synthetic_acs, synthetic_acs_hierarchies
from starmin.datasets.acs import QI
from starmin.errors import InvalidInput

# Xiao, Yi & Tao, Sec. 6.1, Table 6 "Attribute domain sizes"
TABLE6 = {"age": 79, "gender": 2, "race": 9, "marital-status": 6, "birth-place": 56,
          "education": 17, "work-class": 9, "income": 50, "occupation": 50}


@pytest.fixture(scope="module")
def sal() -> pl.DataFrame:
    return synthetic_acs(300_000, seed=4, sensitive="income")


def test_table6_domain_sizes(sal: pl.DataFrame) -> None:
    occ = synthetic_acs(300_000, seed=4, sensitive="occupation")
    assert len(QI) == 7  # "SAL has 7 quasi-identifiers"
    assert sal.columns == [*QI, "income"] and occ.columns == [*QI, "occupation"]
    sizes = {c: sal[c].n_unique() for c in sal.columns} | {"occupation":
                                                            occ["occupation"].n_unique()}
    assert sizes == TABLE6
    # SAL and OCC with one seed describe the same people
    assert sal.select(QI).equals(occ.select(QI))


def test_deterministic_and_prefix_stable() -> None:
    a = synthetic_acs(70_000, seed=1)
    assert a.equals(synthetic_acs(70_000, seed=1))
    assert a.head(1234).equals(synthetic_acs(1234, seed=1))
    assert not a.equals(synthetic_acs(70_000, seed=2))


def test_types_and_income_brackets(sal: pl.DataFrame) -> None:
    assert sal.schema["age"] == pl.Int64 and sal.schema["income"] == pl.Int64
    assert sal["age"].min() == 17 and sal["age"].max() == 95
    inc = sal["income"]
    assert (inc % 5000 == 0).all() and inc.min() == 0 and inc.max() == 245_000


def test_dependencies(sal: pl.DataFrame) -> None:
    mean = dict(sal.group_by("education").agg(pl.col("income").mean()).rows())
    assert mean["Doctorate"] > mean["Bachelors"] > mean["HS-grad"] > mean["9th"]
    by_work = dict(sal.group_by("work-class").agg(pl.col("income").mean()).rows())
    assert by_work["Not-working"] < 0.5 * by_work["Private-for-profit"]
    occ = synthetic_acs(100_000, seed=4)
    skill = occ.with_columns(pl.col("occupation").str.slice(4).cast(pl.Int64).alias("rank"))
    rank = dict(skill.group_by("education").agg(pl.col("rank").mean()).rows())
    assert rank["Doctorate"] > rank["Bachelors"] + 3 > rank["HS-grad"] + 10 > rank["9th"] + 15
    asia = sal.filter(pl.col("birth-place") == "Asia")["race"].eq("Asian").mean()
    assert asia > 0.8  # type: ignore[operator]


def test_hierarchies_cover(sal: pl.DataFrame) -> None:
    hs = synthetic_acs_hierarchies()
    assert list(hs) == list(QI)
    for c, h in hs.items():
        h.check_covers(sal[c])
        assert len(h) == TABLE6[c]
    assert hs["birth-place"].ancestor("TX", 1) == "South"
    assert hs["birth-place"].ancestor("Asia", 2) == "Abroad"


def test_bad_sensitive() -> None:
    with pytest.raises(InvalidInput, match="use 'occupation' or 'income'"):
        synthetic_acs(10, sensitive="salary")  # type: ignore[arg-type]
