"""Tests of the restricted LP's stall handling (``lp.incremental.RestrictedLP.solve``).

On a 34-row table (3 QIs, k = 3) Glop's warm-started primal simplex spent the whole budget
of 5,000,000 iterations in the third round of column generation (22 s), and ``milp`` -- so
``--method exact`` -- stopped with a :class:`WorkLimit` instead of an answer. An attempt now
counts as stalled past ``STALL_PER_ENTRY`` iterations per variable and constraint (plus
``STALL_MIN``): a fresh Glop, then SciPy's HiGHS, take over, and only the whole budget is a
work limit."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp import incremental, lp_rounding, milp_exact
from starmin.algorithms.lp.colgen import column_generation
from starmin.algorithms.lp.incremental import RestrictedLP, WorkLimit
from starmin.data.rowtypes import RowTypes
from starmin.models import KAnonymity
from tests.helpers.tables import random_table


def _stalling_table() -> tuple[RowTypes, int]:
    rng = np.random.default_rng(85)  # seed 85 of the fuzz run that found it
    n, m = int(rng.integers(10, 45)), int(rng.integers(3, 8))
    rt = random_table(50085, n, m, values=int(rng.integers(2, 5)))
    return rt, int(rng.integers(2, 6))


def test_the_stalling_table_is_solved_to_its_optimum() -> None:
    rt, k = _stalling_table()
    assert (rt.n, rt.m, k) == (34, 3, 3)
    plan = milp_exact.solve(rt, KAnonymity(k))
    assert plan.guarantee.kind == "exact" and plan.stars == 34
    # the optimum by another exact method: class-partition's set partitioning
    from starmin.algorithms.classes import class_partition

    other = class_partition.solve(rt, KAnonymity(k))
    assert other.guarantee.kind == "exact" and other.stars == 34


def test_without_the_stall_rule_the_same_budget_is_a_work_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rt, k = _stalling_table()
    rel = lp_rounding.primary(lp_rounding.relaxations(KAnonymity(k), rt))
    budget = 200_000
    got = column_generation(rt, rel, max_iterations=budget, within_rounds=True)
    assert got.complete and got.bound == 34
    monkeypatch.setattr(incremental, "STALL_MIN", 10**9)  # the mutation: no stall rule
    with pytest.raises(WorkLimit):
        column_generation(rt, rel, max_iterations=budget, within_rounds=True)


@pytest.mark.parametrize("seed", range(6))
def test_every_attempt_stalling_falls_back_to_highs_with_the_same_bound(
        monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rt = random_table(61000 + seed, 12, 3, values=3)
    k = 2 + seed % 2
    rel = lp_rounding.primary(lp_rounding.relaxations(KAnonymity(k), rt))
    plain = column_generation(rt, rel)
    monkeypatch.setattr(RestrictedLP, "_stall", lambda self: 1)  # every Glop attempt stalls
    fallback = column_generation(rt, rel)
    assert fallback.complete and plain.complete
    assert fallback.bound == plain.bound <= brute_force.solve(rt, KAnonymity(k)).stars
