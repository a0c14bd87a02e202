"""The level flow bound for frequency l-diversity weighed by one value (``l_value_flow``,
:mod:`starmin.algorithms.l_frequency_flow`): never above the optimum (brute force), at least
``l`` times the levels-weighted stars of the same value's leaving rows when every level is
enumerated, and above the other bounds on some tables."""

from __future__ import annotations

import numpy as np
import pytest

import starmin
from starmin.algorithms.diversity_levels import levels
from starmin.algorithms.exact import brute_force
from starmin.algorithms.l_diversity_bound import diversity_lower_bounds, leaving_rows
from starmin.algorithms.l_frequency_flow import heaviest_value, value_flow_bound
from starmin.errors import Infeasible
from starmin.models import LDiversity
from tests.helpers.tables import from_rows


def _table(seed: int, l: int = 2) -> starmin.RowTypes:
    """7-12 rows, 2-3 QIs of 2-3 values, 3-4 sensitive values; for l = 2 one value frequent,
    else the values as even as possible (so that l = 3 is often feasible)."""
    rng = np.random.default_rng(seed)
    n, m, s = 7 + seed % 6, 2 + seed % 2, 3 + seed % 2
    X = rng.integers(0, 2 + seed % 2, size=(n, m))
    if l > 2:
        return starmin.RowTypes.from_arrays(X, rng.permutation(np.arange(n) % s))
    sa = np.where(rng.random(n) < 0.4, 0, rng.integers(0, s, size=n))
    sa[:s] = np.arange(s)
    return starmin.RowTypes.from_arrays(X, sa)


def _levels(rt: starmin.RowTypes, l: int) -> np.ndarray:
    h = rt.sensitive_histograms(rt.counts)[0]
    needed = ((h > 0).sum(axis=1) < l) | (leaving_rows(h, l).sum(axis=1) > 0)
    return levels(rt.codes, h, l, needed)


@pytest.mark.parametrize("l", [2, 3])
def test_never_above_the_optimum_and_above_the_other_bounds_somewhere(l: int) -> None:
    feasible = above = 0
    for seed in range(80):
        rt = _table(seed, l)
        try:
            opt = int(brute_force.solve(rt, LDiversity(l)).stars)
        except Infeasible:
            continue
        feasible += 1
        b = diversity_lower_bounds(rt, [LDiversity(l)])
        assert b["l_value_flow"] <= opt, (seed, b, opt)
        above += b["l_value_flow"] > max(b["l_frequency"], b["distinct_values"])
    assert feasible >= 20
    assert above >= 1


@pytest.mark.parametrize("l", [2, 3, 4])
def test_at_least_the_levels_weighted_value_term(l: int) -> None:
    for seed in range(60):
        rt = _table(seed, min(l, 3))
        h = rt.sensitive_histograms(rt.counts)[0]
        w = _levels(rt, l) @ leaving_rows(h, l)
        for u in range(h.shape[1]):
            assert value_flow_bound(rt.codes, h, l, u) >= l * int(w[u]), (seed, u)


def test_the_capacity_is_the_phase_one_height() -> None:
    # row types (0, 1): values 2 1 (2-diverse, star-free); (1, 0): 0 0; (1, 1): 1. l = 2.
    # Both 0-rows must leave (1, 0). At one star, bucket (1, *) holds 0 0 1, whose largest
    # 2-eligible part holds one 0 (phase-one height 1); bucket (*, 0) holds only 0 0 (height
    # 0). So at most one 0-row carries one star, the other two: W_0 = 2 + 1 = 3 and the bound
    # is 2 * 3 = 6. Xiao et al.'s terms weighed by levels give max(2 + 1, 2 * 2) = 4; the
    # optimum is 8.
    rt = from_rows([[0, 1], [1, 0], [0, 1], [1, 1], [1, 0]], sa=[2, 0, 1, 1, 0])
    h = rt.sensitive_histograms(rt.counts)[0]
    assert heaviest_value(leaving_rows(h, 2), _levels(rt, 2)) == 0
    b = diversity_lower_bounds(rt, [LDiversity(2)])
    assert b == {"distinct_values": 3, "l_frequency": 4, "l_value_flow": 6, "l_charges": 4}
    assert brute_force.solve(rt, LDiversity(2)).stars == 8
    assert value_flow_bound(rt.codes, h, 2, 0, max_patterns=1) == 4  # level 0 only: 2 x 2
    assert value_flow_bound(rt.codes, h, 2, 1) == 2  # the 1-row of (1, 1): one star
