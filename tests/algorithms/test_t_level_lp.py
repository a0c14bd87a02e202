"""The level-1 LP bound for t-closeness (``t-level-lp``): never above the brute-force optimum
(equal distance and a matrix, with and without a class size), at least the level flow bound,
strictly above it where rows of a rare value are shared between buckets, and its certificate
holds whatever duals the solver returns."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms import t_level_lp
from starmin.algorithms.exact import brute_force
from starmin.algorithms.heuristic.pattern_keys import PatternKeys
from starmin.algorithms.t_closeness_bound import t_closeness_lower_bounds
from starmin.data.rowtypes import RowTypes
from starmin.models import AllOf, KAnonymity, TCloseness
from tests.algorithms.test_t_closeness_bound import _model
from tests.helpers.tables import random_table


def _optimum(rt: RowTypes, model: TCloseness, k: int) -> int:
    return brute_force.solve(rt, model if k == 1 else AllOf(KAnonymity(k), model)).stars


@pytest.mark.parametrize("distance", ["equal", "matrix"])
@pytest.mark.parametrize("k", [1, 3])
def test_below_brute_force_and_above_the_level_flow(distance: str, k: int) -> None:
    ran = above = 0
    for seed in range(10):
        rt = random_table(7700 + seed, 7 + seed % 4, m=3, values=[2, 2, 3], s=3)
        for t in (0.05, 0.15, 0.3):
            model = _model(t, distance)
            b = t_closeness_lower_bounds(rt, model, k=k)
            if "t-level-lp" in b:
                ran += 1
                above += b["t-level-lp"] > b["t-level-flow"]
                assert b["t-level-flow"] <= b["t-level-lp"] <= _optimum(rt, model, k)
    # strictly above somewhere without k -- under the equal distance: under the matrix, since
    # its class-size floor comes from the model's own verdict (matrix_class_floor, stop 44),
    # the level flow reaches the LP on every one of these tables
    assert ran >= 15 and (above >= 1 or k > 1 or distance == "matrix")


def _shared_rare_value() -> RowTypes:
    """Q = 000 holds the only 1 of its neighbourhood; P = 001 and S = 010 hold two 0s each
    and share a level-1 bucket with Q but not with each other; T = 111 holds four 1s, alone
    (N = 9: four 0s, five 1s)."""
    codes = [[0, 0, 0], [0, 0, 1], [0, 0, 1], [0, 1, 0], [0, 1, 0]] + [[1, 1, 1]] * 4
    return RowTypes.from_arrays(np.array(codes), np.array([1, 0, 0, 0, 0, 1, 1, 1, 1]))


def test_a_rare_value_shared_by_two_buckets() -> None:
    # t = 0.06: a close class needs about as many 0s as 1s (one 0 and one 1: distance
    # 5/9 - 1/2 = 0.056), and no row type is close alone. The level flow fills the buckets
    # {Q, P} and {Q, S} with two 0s each (capacity 2, their largest close size): 4 rows at
    # one star. Only Q holds a 1 there, so the LP's classes of those buckets share one 1:
    # each at most 0.5 / (5/9 - 0.06) = 1.009 rows, 2 in all (rounded down).
    rt = _shared_rare_value()
    model = TCloseness(0.06)
    o = rt.counts.sum(axis=0)
    assert t_level_lp.one_star_rows(PatternKeys(rt.codes), rt.counts, o, 0.06) == 2
    b = t_closeness_lower_bounds(rt, model)
    assert b["t-level-lp"] == b["t-level-flow"] + 2
    assert b["t-level-lp"] <= brute_force.solve(rt, model).stars


def test_any_duals_give_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """The certificate is weak duality with the box: duals of zero certify every row of the
    buckets (the cell capacities and bucket sizes), never less than the LP's optimum."""
    from starmin.algorithms.heuristic import _level_lp

    rt = _shared_rare_value()
    o = rt.counts.sum(axis=0)
    solve = _level_lp.solve_program
    seen = []

    def zero_duals(prog: _level_lp.Program, max_iterations: int, crossover: bool = True
                   ) -> object:
        res = solve(prog, max_iterations, crossover)
        res.ineqlin.marginals = np.zeros_like(res.ineqlin.marginals)
        res.eqlin.marginals = np.zeros_like(res.eqlin.marginals)
        seen.append(prog)
        return res

    monkeypatch.setattr(_level_lp, "solve_program", zero_duals)
    u = t_level_lp.one_star_rows(PatternKeys(rt.codes), rt.counts, o, 0.06)
    assert seen and u is not None and u > 2


def test_the_nonzero_limit_skips_the_lp() -> None:
    rt = _shared_rare_value()
    o = rt.counts.sum(axis=0)
    assert t_level_lp.one_star_rows(PatternKeys(rt.codes), rt.counts, o, 0.06,
                                    max_nonzeros=10) is None
    b = t_closeness_lower_bounds(rt, TCloseness(0.06), level_lp=False)
    assert "t-level-lp" not in b
