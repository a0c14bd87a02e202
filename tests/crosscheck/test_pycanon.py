"""Cross-check with pycanon 1.3.6 (PyPI) on ARX's adult table, and where pycanon is wrong.

Where pycanon is correct (adult: no missing values, default index, several values per
sensitive column) its k, distinct l, entropy l and t must equal ours:

* ``k_anonymity`` = our smallest class size;
* ``l_diversity`` = our fewest distinct sensitive values in a class (min over SA columns);
* ``entropy_l_diversity`` = ``int(min exp(entropy))``: our smallest exp(entropy), truncated
  (within 1e-9, since pycanon's float may land just below an integer);
* ``t_closeness`` = our largest EMD (max over SA columns), with the equal distance for text
  columns and the ordered distance over the sorted present values for numeric ones.

Where pycanon is wrong we document it and assert our behaviour instead:

1. missing QI values: pandas ``groupby`` drops rows with a missing key, so pycanon ignores them
   (a lone record with a missing ZIP is not counted; k comes out too large);
2. the index: pycanon takes index *labels* from ``groupby().groups`` and looks them up as
   *positions* with ``iloc``, so any non-default index mixes up classes;
3. a single-valued numeric sensitive column: the ordered-distance EMD divides by ``m - 1 = 0``
   and pycanon raises ZeroDivisionError; the EMD is 0;
4. recursive (c, l): pycanon sorts counts ascending, so its ``r_1`` is the *smallest* count, and
   it uses the table's distinct l instead of a given l; its "c" does not certify the
   definition ``r_1 < c (r_l + ... + r_m)`` with counts sorted descending.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from starmin.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    OrderedDistance,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.verifier import verify
from tests.helpers.adult import adult_csv
from tests.models import naive

Runner = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]

CASES = [
    (["sex"], ["occupation"]),
    (["race"], ["occupation"]),
    (["marital-status"], ["occupation", "salary-class"]),
    (["sex", "race"], ["salary-class", "occupation"]),
    (["workclass", "sex"], ["occupation"]),
    (["sex", "race", "marital-status"], ["age"]),  # numeric SA: ordered distance
]
RELEASED_QI = ["sex", "race", "marital-status", "workclass"]


def released_adult(df: pl.DataFrame) -> pl.DataFrame:
    """A release with stars: rows of classes smaller than 25 (on RELEASED_QI) get their race,
    marital-status and workclass suppressed to '*'."""
    small = pl.len().over(RELEASED_QI) < 25
    return df.with_columns([pl.when(small).then(pl.lit("*")).otherwise(pl.col(c)).alias(c)
                            for c in RELEASED_QI[1:]])


def ours(df: pl.DataFrame, qi: list[str], sa: list[str]) -> dict[str, float]:
    numeric = df[sa[0]].dtype.is_numeric()
    t_model = TCloseness(1, OrderedDistance()) if numeric else TCloseness(1)
    r = verify(df, qi, sa, [KAnonymity(1), DistinctLDiversity(1), EntropyLDiversity(1), t_model])
    per = lambda name: [c.worst for c in r.checks if c.name == name]  # noqa: E731
    return {"k": r.check("1-anonymity").worst or 0, "l": min(per("distinct 1-diversity")),
            "entropy_l": min(per("entropy 1-diversity")), "t": max(per(t_model.name))}


def test_adult_agrees_with_pycanon(pycanon: Runner, tmp_path: Path) -> None:
    adult = adult_csv()
    df = pl.read_csv(adult, separator=";")
    rel = released_adult(df)
    rel_csv = tmp_path / "released.csv"
    rel.write_csv(rel_csv, separator=";")
    cases = [(adult, df, qi, sa) for qi, sa in CASES] + [
        (rel_csv, rel, RELEASED_QI, ["occupation", "salary-class"])]
    jobs = [{"csv": str(path), "sep": ";", "qi": qi, "sa": sa,
             "metrics": ["k", "l", "entropy_l", "t"]} for path, _, qi, sa in cases]
    theirs = pycanon(jobs)
    assert verify(rel, RELEASED_QI, None, KAnonymity(25)).stars > 0
    for (_, table, qi, sa), got in zip(cases, theirs, strict=True):
        want = ours(table, qi, sa)
        assert got["k"] == want["k"], (qi, sa)
        assert got["l"] == want["l"], (qi, sa)
        assert got["entropy_l"] in {math.floor(want["entropy_l"] - 1e-9),
                                    math.floor(want["entropy_l"] + 1e-9)}, (qi, sa)
        assert got["t"] == pytest.approx(want["t"], abs=1e-12), (qi, sa)


def test_where_pycanon_is_wrong(pycanon: Runner) -> None:
    missing = {"columns": ["zip", "s"], "rows": [["980", "x"], ["980", "y"], ["980", "x"],
                                                 [None, "y"]], "qi": ["zip"], "sa": ["s"],
               "metrics": ["k"]}
    index = {"columns": ["q", "s"], "rows": [["a", "x"], ["a", "y"], ["b", "x"], ["b", "y"]],
             "index": [0, 2, 1, 3], "qi": ["q"], "sa": ["s"], "metrics": ["l"]}
    single = {"columns": ["q", "s"], "rows": [["a", 5], ["a", 5], ["b", 5], ["b", 5]],
              "qi": ["q"], "sa": ["s"], "metrics": ["t"]}
    recursive = {"columns": ["q", "s"], "rows": [["a", "x"]] * 3 + [["a", "y"], ["a", "z"]],
                 "qi": ["q"], "sa": ["s"], "metrics": ["recursive"]}
    got = pycanon([missing, index, single, recursive])

    # 1. the record with a missing ZIP is a class of one: k = 1, pycanon says 3
    assert got[0]["k"] == 3
    df = pl.DataFrame(missing["rows"], schema=["zip", "s"], orient="row")
    assert verify(df, "zip", "s", KAnonymity(2)).check("2-anonymity").worst == 1

    # 2. both classes hold x and y: l = 2; pycanon, with index labels 0, 2, 1, 3, says 1
    assert got[1]["l"] == 1
    pdf = pl.DataFrame(index["rows"], schema=["q", "s"], orient="row").to_pandas()
    pdf.index = index["index"]
    assert verify(pdf, "q", "s", DistinctLDiversity(2)).check("distinct 2-diversity").worst == 2

    # 3. one sensitive value: EMD 0 everywhere; pycanon divides by zero
    assert got[2]["t"]["error"] == "ZeroDivisionError"
    df = pl.DataFrame(single["rows"], schema=["q", "s"], orient="row")
    t0 = verify(df, "q", "s", TCloseness(0, OrderedDistance()))
    assert t0.passed and t0.checks[0].worst == 0

    # 4. counts (3, 1, 1): pycanon claims recursive (1, 3)-diversity; by the definition
    #    r1 = 3 < 1 * r3 = 1 is false, and even (c=1, l=2) fails (3 < 1 * 2 is false)
    assert got[3]["recursive"] == [1, 3]
    df = pl.DataFrame(recursive["rows"], schema=["q", "s"], orient="row")
    for c, l in ((1, 3), (1, 2)):
        assert not naive.l_recursive([3, 1, 1], c, l)
        assert not verify(df, "q", "s", RecursiveCLDiversity(c, l)).passed
    assert verify(df, "q", "s", RecursiveCLDiversity(1.6, 2)).passed  # 3 < 1.6 * 2
