"""dgh-k-anonymity: Bredereck et al.'s Theorem 5 (Sec. 4.4) on row types with hierarchies.

Oracles: a literal table worked by hand; the DP over set partitions of the rows of
tests/algorithms/dgh_support.py (each class released as the lowest common ancestors, read from
the ARX rows, not from starmin's node codes); fpt-k-anonymity for flat hierarchies; the
independent verifier with the input and the hierarchy files."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.algorithms import objective as objective_module
from starmin.algorithms import registry
from starmin.algorithms.fpt import dgh_k_anonymity as dgh
from starmin.algorithms.fpt import k_anonymity as fpt
from starmin.algorithms.fpt.candidates import by_merging, by_subsets
from starmin.algorithms.fpt.joins import Joins, join_table
from starmin.data.hierarchies import ROOT, Hierarchies
from starmin.errors import Infeasible, InvalidInput
from starmin.models import KAnonymity, LDiversity
from starmin.transform.hierarchy import Hierarchy
from starmin.transform.nodes import column_hierarchy
from starmin.verifier import verify
from tests.algorithms.dgh_support import (
    AGE,
    HAND,
    dgh_table,
    local_optimum,
    plan_objective,
    random_dgh_table,
    release_and_verify,
)
from tests.helpers.tables import random_table

# -- a table worked by hand ----------------------------------------------------------------
#
# age hierarchy (D = 4 values): 30, 32 -> 30-34 -> 30-39; 35 -> 35-39 -> 30-39; 41 -> 40-44
# -> 40-49; all -> *. Iyengar's loss per age cell: (leaves - 1) / 3: 30-34 1/3, 30-39 2/3,
# 35-39, 40-44 and 40-49 0 (one value each), * 1. sex (0 = M, 1 = F) has no file: a value
# or * (loss 1). Rows (age, sex): (30 M) (32 M) (35 F) (41 F) (30 F) (32 F).
X = HAND


def test_hand_example_loss() -> None:
    # k = 2. 41 shares no group with another age, so its class (>= 2 rows) has age * (loss 1
    # per row); its cheapest partner is 35/F (sex kept): 2 x 1 = 2. The two M rows and the
    # two other F rows pair up as (30-34, M) and (30-34, F): 2 x 1/3 each. Total 2 + 4/3 =
    # 10/3 over 12 cells: loss 10/36. (Any other partition costs more: 41 with 30/F and
    # (32, 35) -> (30-39, F) is 2 + 2/3 + 4/3 = 4; mixing sexes costs 1 per row.)
    t = dgh_table(X, None, {"q0": AGE})
    plan = dgh.solve(t.rt, KAnonymity(2), objective="loss")
    assert plan_objective(t, plan, "loss") == Fraction(10, 3)
    assert plan.certificate["objective_value"] == pytest.approx(10 / 36)
    assert plan.certificate["objective_scale"] == 3  # lcm(4 - 1, 2 - 1)
    assert plan.certificate["optimum"] == 10  # 10/3 x 3
    assert plan.lower_bound is None  # a plan's lower bound counts stars
    released = release_and_verify(t, plan, KAnonymity(2))
    assert released["q0"].to_list() == ["30-34", "30-34", "*", "*", "30-34", "30-34"]
    assert released["q1"].to_list() == ["0", "0", "1", "1", "1", "1"]
    assert local_optimum(t, 2, objective="loss") == Fraction(10, 3)


def test_hand_example_stars() -> None:
    # 41's class has an age star on each of its >= 2 rows, and nothing else needs a star
    # (30/32 -> 30-34 and 35 -> 30-39 are groups): 2 stars. Suppression alone needs 6 (three
    # pairs, each with one differing column; or the four F rows at age * plus M at 32 vs 30).
    t = dgh_table(X, None, {"q0": AGE})
    plan = dgh.solve(t.rt, KAnonymity(2))
    assert plan.stars == plan.lower_bound == 2
    assert plan.certificate["objective"] == "stars"
    release_and_verify(t, plan, KAnonymity(2))
    flat = dgh_table(X, None, {})
    assert dgh.solve(flat.rt, KAnonymity(2)).stars == fpt.solve(flat.rt, KAnonymity(2)).stars == 6


def test_join_table_literal() -> None:
    c = column_hierarchy(Hierarchy.from_rows(AGE), (30, 32, 35, 41))
    # leaves 0..3 = 30, 32, 35, 41; 4 = 30-34, 5 = 35-39, 6 = 40-44, 7 = 30-39, 8 = 40-49
    J = join_table(c)
    assert J.shape == (10, 4)
    assert J[0].tolist() == [0, 4, 7, ROOT]
    assert J[2].tolist() == [7, 7, 2, ROOT]
    assert J[4].tolist() == [4, 4, 7, ROOT]
    assert J[6].tolist() == [ROOT, ROOT, ROOT, 6]
    assert J[8].tolist() == [ROOT, ROOT, ROOT, 8]
    assert J[ROOT].tolist() == [ROOT] * 4


# -- exact: the oracle on random tables with random hierarchies ---------------------------


@pytest.mark.parametrize("seed", range(36))
def test_equals_partition_oracle(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m, values = int(rng.integers(5, 10)), int(rng.integers(1, 4)), int(rng.integers(2, 5))
    t = random_dgh_table(seed, n, m, values)
    k = int(rng.integers(2, 4))
    for objective in ("stars", "loss"):
        plan = dgh.solve(t.rt, KAnonymity(k), objective=objective)
        plan.validate(t.rt)
        assert plan_objective(t, plan, objective) == local_optimum(t, k, objective=objective)
        if objective == "stars":  # the fewest stars, ties broken by the least loss
            assert plan.certificate["ties_broken_by_loss"] == (not t.rt.dgh.is_flat)
            lex = "stars+loss" if not t.rt.dgh.is_flat else "stars"
            assert plan_objective(t, plan, lex) == local_optimum(t, k, objective=lex)
        assert plan.t_out <= t.rt.t_in  # Lemma 2
        release_and_verify(t, plan, KAnonymity(k))


def test_random_hierarchies_are_used() -> None:
    """The oracle cases generalize: some release has internal nodes, and some loss optimum
    is below what the best suppression release costs (the test could fail)."""
    generalized = cheaper = 0
    for seed in range(36):
        rng = np.random.default_rng(seed)
        n, m, values = int(rng.integers(5, 10)), int(rng.integers(1, 4)), int(rng.integers(2, 5))
        t = random_dgh_table(seed, n, m, values)
        k = int(rng.integers(2, 4))
        plan = dgh.solve(t.rt, KAnonymity(k), objective="loss")
        generalized += int(t.rt.dgh.generalized(plan.outputs).any())
        flat = t.rt.with_hierarchies(Hierarchies.flat(t.rt.cardinalities))
        stars = dgh.solve(flat, KAnonymity(k))
        cheaper += int(plan.certificate["objective_value"]
                       < stars.stars / (t.rt.n * t.rt.m) - 1e-12)
    assert generalized >= 10 and cheaper >= 5


def test_candidate_routes_agree_with_hierarchies() -> None:
    for seed in range(10):
        t = random_dgh_table(500 + seed, 9, 3, 4)
        joins = Joins.of(t.rt.dgh)
        a = by_subsets(t.rt.codes, joins)
        b = by_merging(t.rt.codes, None, joins)
        assert b is not None and np.array_equal(a, b)
        for v in a:  # each candidate is the lowest common ancestors of the types it covers
            cov = joins.covers(v[None, :], t.rt.codes)[0]
            assert np.array_equal(t.rt.dgh.generalizer(t.rt.codes[cov]), v)


# -- flat hierarchies: today's fpt-k-anonymity, plan for plan ------------------------------


@pytest.mark.parametrize("seed", range(25))
def test_flat_parity_with_fpt(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m, values = int(rng.integers(3, 21)), int(rng.integers(1, 5)), int(rng.integers(2, 4))
    rt = random_table(seed, n, m=m, values=values)
    k = int(rng.integers(2, 5))
    if k > n:
        with pytest.raises(Infeasible):
            dgh.solve(rt, KAnonymity(k))
        return
    base = fpt.solve(rt, KAnonymity(k))
    for r in (rt, rt.with_hierarchies(Hierarchies.flat(rt.cardinalities))):
        plan = dgh.solve(r, KAnonymity(k))
        assert np.array_equal(plan.outputs, base.outputs)
        assert np.array_equal(plan.count, base.count)
        assert plan.stars == plan.lower_bound == base.stars
    # the loss of a suppression release: L per star (columns with one value cost nothing)
    loss = dgh.solve(rt, KAnonymity(k), objective="loss")
    single = [j for j, c in enumerate(rt.cardinalities) if c <= 1]
    assert not single or loss.certificate["objective_scale"] >= 1
    if not single:
        assert loss.certificate["optimum"] == base.stars * loss.certificate["objective_scale"]


# -- the registry, options, limits, the API ----------------------------------------------


def test_registry_entry() -> None:
    alg = registry.get("dgh-k-anonymity")
    assert alg.objectives == ("stars", "loss")
    assert alg.guarantee.kind == "fpt" and alg.guarantee.parameter == "t_in"
    assert "Thm 5" in alg.guarantee.reference and alg.auto is None


def test_refusals_name_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    t = dgh_table(X, None, {"q0": AGE})
    assert "k-anonymity only" in (dgh.supports(LDiversity(2), t.rt) or "")
    big = random_table(3, 200, m=6, values=4)
    reason = dgh.supports(KAnonymity(2), big)
    assert reason is not None and "t_in <= 20" in reason and "--method auto" in reason
    with pytest.raises(InvalidInput, match="objective must be"):
        dgh.solve(t.rt, KAnonymity(2), objective="precision")
    with pytest.raises(InvalidInput, match="max_t_out"):
        dgh.solve(t.rt, KAnonymity(2), max_t_out=2)
    monkeypatch.setattr(objective_module, "MAX_SCALED_TOTAL", 10)
    with pytest.raises(InvalidInput, match="least common multiple"):
        dgh.solve(t.rt, KAnonymity(2), objective="loss")
    dgh.solve(t.rt, KAnonymity(2), objective="stars")  # stars need no scale


def test_through_the_api_with_hierarchy_files(tmp_path: Path) -> None:
    """The hand table from a CSV and an ARX hierarchy file: anonymize verifies every cell
    against the file; the verifier, given the file, passes the release."""
    (tmp_path / "age.csv").write_text("".join(";".join(r) + "\n" for r in AGE))
    frame = pl.DataFrame({"age": X[:, 0].tolist(), "sex": ["M", "M", "F", "F", "F", "F"]})
    frame.write_csv(tmp_path / "t.csv", separator=";")
    rel = starmin.anonymize(str(tmp_path / "t.csv"), qi="age,sex", k=2,
                            method="dgh-k-anonymity", hierarchies={"age": tmp_path / "age.csv"})
    assert rel.plan.method == "dgh-k-anonymity" and rel.plan.stars == 2
    assert rel.verification.passed
    assert rel.plan.certificate["t_in"] == 6 and rel.plan.certificate["t_out"] == rel.plan.t_out
    verdict = verify(rel.frame, ["age", "sex"], None, [KAnonymity(2)],
                     original=str(tmp_path / "t.csv"), hierarchies={"age": tmp_path / "age.csv"})
    assert verdict.passed
    # a release that claims 41 is in 30-39 is caught by the same check
    bad = rel.frame.with_columns(pl.when(pl.col("age") == "*").then(pl.lit("30-39"))
                                 .otherwise(pl.col("age")).alias("age"))
    assert not verify(bad, ["age", "sex"], None, [KAnonymity(2)],
                      original=str(tmp_path / "t.csv"),
                      hierarchies={"age": tmp_path / "age.csv"}).passed
