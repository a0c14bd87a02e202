"""Exact 2-diversity on ARX adult, released through the engine and checked by the independent
verifier (which never sees the plan).

Adult's salary-class and sex are far from balanced (22654 vs 7508, 20380 vs 9782 rows), so for
two-diversity-flow the table is restricted to every row of the rarer value plus the first rows
of the other one, in file order: then the two counts are equal and the table is 2-eligible.
"""

from __future__ import annotations

from types import ModuleType

import polars as pl
import pytest

from starmin.algorithms.exact import two_diversity_flow as flow
from starmin.algorithms.exact import two_diversity_milp as milp
from starmin.data.schema import Schema
from starmin.engines.local import LocalEngine
from starmin.errors import Infeasible
from starmin.models import LDiversity
from starmin.transform.plan import ReleasePlan
from starmin.verifier import verify
from tests.helpers.adult import adult_csv

L2 = LDiversity(2)


@pytest.fixture(scope="module")
def adult() -> pl.DataFrame:
    return pl.read_csv(adult_csv(), separator=";")


def balanced(df: pl.DataFrame, sa: str) -> pl.DataFrame:
    """Every row of ``sa``'s rarer value, and as many of the other value, in file order."""
    counts = df[sa].value_counts().sort("count")
    rare, common = counts[sa].to_list()
    k = int(counts["count"][0])
    return pl.concat([df.filter(pl.col(sa) == rare), df.filter(pl.col(sa) == common).head(k)])


def release_and_verify(df: pl.DataFrame, qi: list[str], sa: str, mod: ModuleType
                       ) -> ReleasePlan:
    engine = LocalEngine()
    enc = engine.to_row_types(df, Schema.of(qi=qi, sensitive=sa))
    plan: ReleasePlan = mod.solve(enc.row_types, L2)
    released = engine.apply_plan(enc, plan)
    report = verify(released, qi, sa, L2)
    assert report.passed
    assert report.stars == plan.stars
    assert plan.lower_bound == plan.stars
    return plan


@pytest.mark.slow
@pytest.mark.parametrize("sa", ["salary-class", "sex"])
def test_flow_on_balanced_adult(adult: pl.DataFrame, sa: str) -> None:
    df = balanced(adult, sa)
    qi = [c for c in adult.columns if c not in (sa, "salary-class")] if sa == "sex" else \
        [c for c in adult.columns if c != sa]
    plan = release_and_verify(df, qi, sa, flow)
    cert = plan.certificate
    # the flow's duals certify the optimum: dual value = cost (LP duality)
    assert cert["dual_objective"] == cert["flow_cost"] == plan.stars
    p, q = cert["residual_types"]
    assert p * q > flow.DENSE_PAIRS  # the arc-generation path, not the dense one
    assert cert["arcs_in_network"] < p * q


def test_flow_and_milp_agree_on_an_adult_slice(adult: pl.DataFrame) -> None:
    df = balanced(adult.head(3000), "sex")
    qi = ["race", "workclass", "marital-status"]
    a = release_and_verify(df, qi, "sex", flow)
    b = release_and_verify(df, qi, "sex", milp)
    assert a.stars == b.stars


@pytest.mark.parametrize(("rows", "qi"), [(None, ["sex", "race"]),
                                          (400, ["sex", "age", "race"])])
def test_milp_with_many_sensitive_values(adult: pl.DataFrame, rows: int | None,
                                         qi: list[str]) -> None:
    # occupation: 14 values, the largest on 4038 of 30162 rows (2-eligible); 400 rows with
    # age as a QI give 333 slots, about 4.5 million pair and triple group types
    df = adult if rows is None else adult.head(rows)
    plan = release_and_verify(df, qi, "occupation", milp)
    cert = plan.certificate
    assert cert["kept_pairs"] + cert["kept_triples"] < cert["pair_types"] + cert["triple_types"]


def test_unbalanced_adult_is_refused(adult: pl.DataFrame) -> None:
    enc = LocalEngine().to_row_types(adult, Schema.of(qi=["sex", "race"],
                                                      sensitive="salary-class"))
    with pytest.raises(Infeasible, match=r"value '<=50K' of 'salary-class' has frequency "
                                         r"22654/30162 > 1/2"):
        flow.solve(enc.row_types, L2)
