"""The level flow bound (t_level_flow): at most the brute-force optimum for every distance and
with a class size, at least the pattern bound, strictly above it on a literal table (worked
out by hand), and still a bound, between the pattern bound and itself, under its work limits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starmin.algorithms import t_level_flow
from starmin.algorithms.exact import brute_force
from starmin.algorithms.t_closeness_bound import t_closeness_lower_bounds
from starmin.algorithms.t_level_flow import LevelFlow, level_flow_bound
from starmin.data.rowtypes import RowTypes
from starmin.models import AllOf, KAnonymity, TCloseness
from tests.algorithms.test_t_closeness_bound import DEEP, HIERARCHY, _below_optimum, _model
from tests.helpers.tables import random_table

DISTANCES = ["equal", "ordered", "hierarchical"]


SHAPES = [(3, 8), (4, 7), (3, 9)]


def _tables(m: int, n: int) -> list[RowTypes]:
    return [random_table(9300 + 10 * m + seed, n, m=m, values=[2] * m, s=3)
            for seed in range(6)]


@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("shape", SHAPES)
def test_below_brute_force_and_above_the_pattern_bound(distance: str,
                                                       shape: tuple[int, int]) -> None:
    for t in (0.05, 0.15, 0.3):
        for rt in _tables(*shape):
            _below_optimum(rt, _model(t, distance))


@pytest.mark.parametrize("distance", DISTANCES)
def test_strictly_above_the_pattern_bound_somewhere(distance: str) -> None:
    above = sum(b["t-level-flow"] > b["t-pattern"]
                for shape in SHAPES for rt in _tables(*shape) for t in (0.05, 0.15, 0.3)
                for b in [t_closeness_lower_bounds(rt, _model(t, distance))])
    assert above >= 1  # not the pattern bound under another name


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("seed", range(6))
def test_with_a_class_size_below_brute_force(k: int, distance: str, seed: int) -> None:
    rt = random_table(9400 + seed, 7 + seed % 3, m=3, values=[2, 2, 3], s=3)
    model = _model(0.2, distance)
    b = _below_optimum(rt, model, k=k)
    assert b["t-level-flow"] <= brute_force.solve(rt, AllOf(KAnonymity(k), model)).stars


@pytest.mark.parametrize("t", [0.3, 0.5, 0.6])
@pytest.mark.parametrize("seed", range(6))
def test_deep_hierarchy_below_brute_force(t: float, seed: int) -> None:
    _below_optimum(random_table(9500 + seed, 6 + seed % 3, m=3, values=[2, 2, 3], s=4),
                   TCloseness(t, DEEP))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(10, 60), st.integers(2, 5),
       st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5]), st.sampled_from(DISTANCES),
       st.sampled_from([1, 3]), st.sampled_from([0, 3, 40, 1000]))
def test_dominates_the_pattern_bound_under_any_limit(seed: int, n: int, m: int, t: float,
                                                     distance: str, k: int,
                                                     max_arcs: int) -> None:
    """Level by level (module doc), also when a level falls back to the cut at the source;
    the limited value never exceeds the unlimited one."""
    rt = random_table(seed, n, m=m, values=3, s=3)
    model = _model(t, distance)
    full = t_closeness_lower_bounds(rt, model, k=k)
    b = t_closeness_lower_bounds(rt, model, k=k, max_arcs=max_arcs)
    assert b["t-pattern"] == full["t-pattern"]
    assert b["t-star-free"] <= b["t-pattern"] <= b["t-level-flow"] <= full["t-level-flow"]


def _shared_buckets() -> RowTypes:
    """Two QI columns, values 0 and 1 half each (``t = 0.05``: a class is exactly half and
    half, so it holds at least 2 rows and an even number). Row types: P = 00 with four 0s,
    Q = 01 with one 1, R = 10 with one 1, T = 11 with two 1s (N = 8)."""
    codes = [[0, 0]] * 4 + [[0, 1], [1, 0], [1, 1], [1, 1]]
    return RowTypes.from_arrays(np.array(codes), np.array([0, 0, 0, 0, 1, 1, 1, 1]))


def test_rows_sharing_a_small_bucket_pay_more_than_the_pattern_bound_says() -> None:
    # No row type is close by itself: 8 rows carry a star (star-free bound 8).
    # Level 1 buckets: a = 0 (P, Q: four 0s, one 1) and b = 0 (P, R: the same) hold at most
    # a close part of 2 rows; a = 1 (R, T) and b = 1 (Q, T) hold only 1s (capacity 0).
    # Pattern bound: P, Q, R reach a bucket of positive capacity at level 1 (L = 1), T only
    # at level 2 (the whole table): 4 + 1 + 1 + 2 * 2 = 10.
    # Level flow: at most 2 + 2 = 4 rows have at most one star (the two buckets' capacities),
    # so 8 + (8 - 4) = 12. The optimum is 12: P with Q starring b, P with R starring a
    # (2 stars each), the two other rows of P with T starring both (8).
    rt = _shared_buckets()
    model = TCloseness(0.05)
    b = t_closeness_lower_bounds(rt, model)
    # the level-1 LP allows the same 4 rows: one 0 and one 1 per bucket; the charge LP
    # (t_charge_bound) reaches the optimum too
    assert b == {"t-star-free": 8, "t-pattern": 10, "t-level-flow": 12, "t-level-lp": 12,
                 "t-charges": 12}
    assert brute_force.solve(rt, model).stars == 12


def test_work_limits_give_smaller_bounds() -> None:
    rt = _shared_buckets()
    model = TCloseness(0.05)
    # over the arc limit, level 1 counts every row of P, Q, R (a bucket of positive
    # capacity): 8 - 6 = 2, the pattern bound's level-1 term
    assert t_closeness_lower_bounds(rt, model, max_arcs=0)["t-level-flow"] == 10
    # no pattern enumerated: level 0 only, the star-free bound
    assert t_closeness_lower_bounds(rt, model, max_patterns=0)["t-level-flow"] == 8
    # level 1 only (2 patterns): its flow is all the bound needs here
    assert t_closeness_lower_bounds(rt, model, max_patterns=2)["t-level-flow"] == 12


def test_a_table_too_large_for_int32_capacities_uses_the_cut(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(t_level_flow, "_INT32_MAX", 7)  # N = 8 does not fit
    assert t_closeness_lower_bounds(_shared_buckets(), TCloseness(0.05))["t-level-flow"] == 10


def test_whole_buckets_take_their_row_types() -> None:
    n = np.array([3, 2, 1, 4])
    # one pattern: bucket 0 = row types 0, 1 (5 rows, capacity 5: whole); bucket 1 = row
    # types 2, 3 (5 rows, capacity 2)
    level = LevelFlow(n)
    level.add(np.array([0, 0, 1, 1]), np.array([5, 2]), np.array([5, 5]))
    assert level.value() == 5 + 2
    # a second pattern puts row type 3 alone in a bucket of capacity 4 = its rows (whole),
    # row type 1 alone in one of capacity 2 (whole again), row type 2 with 0 in one of
    # capacity 0
    level.add(np.array([0, 1, 0, 2]), np.array([0, 2, 4]), np.array([4, 2, 4]))
    # row types 0, 1, 3 whole; row type 2 alone in bucket 1 of the first pattern
    assert level.value() == 3 + 2 + 4 + 1


def test_the_flow_is_shared_between_row_types() -> None:
    # three row types of 2 rows; two patterns: buckets {0, 1} and {2} (capacities 3, 1),
    # then {0} and {1, 2} (capacities 0, 1): at most 3 + 1 + 1 = 5 of the 6 rows, though
    # every row type has a bucket of positive capacity
    level = LevelFlow(np.array([2, 2, 2]))
    level.add(np.array([0, 0, 1]), np.array([3, 1]), np.array([4, 2]))
    level.add(np.array([0, 1, 1]), np.array([0, 1]), np.array([2, 4]))
    assert level.value() == 5
    # the second pattern's bucket {1, 2} of capacity 0 instead: 3 + 1
    level = LevelFlow(np.array([2, 2, 2]))
    level.add(np.array([0, 0, 1]), np.array([3, 1]), np.array([4, 2]))
    level.add(np.array([0, 1, 1]), np.array([0, 0]), np.array([2, 4]))
    assert level.value() == 4


def test_levels_use_the_smallest_later_flow() -> None:
    # A_j <= A_j' <= F_j' for j' >= j: level 1 uses F_2 = 6 < F_1 = 8
    assert level_flow_bound(10, [4, 8, 6]) == (10 - 4) + (10 - 6) + (10 - 6)
    assert level_flow_bound(10, [10]) == 0
    assert level_flow_bound(10, []) == 0


def test_two_sensitive_columns_and_a_hierarchy_below_brute_force() -> None:
    from tests.helpers.tables import two_sensitive_table

    for seed in range(4):
        _below_optimum(two_sensitive_table(9600 + seed, 6 + seed % 3), TCloseness(0.2))
        _below_optimum(random_table(9700 + seed, 8, m=3, values=2, s=3),
                       TCloseness(0.4, HIERARCHY))


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("seed", range(4))
def test_bucket_capacities_skip_no_test_that_matters(k: int, distance: str, seed: int) -> None:
    """Buckets of fewer than ``k`` rows and of one row type are not tested again; their
    capacities are those the test gives every bucket."""
    from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level
    from starmin.algorithms.t_closeness_bound import _bucket_caps, _close_rows, _columns

    rt = random_table(9800 + seed, 40, m=3, values=[3, 3, 4], s=3)
    keys = PatternKeys(rt.codes)
    for col in _columns(rt, _model(0.15, distance)):
        n = col.hist.sum(axis=1)
        z = _close_rows(col.hist, col.o, col.cut, k)
        free = np.where(z >= k, z, 0)
        for j in (1, 2):
            for mask in masks_of_level(3, j):
                _, inv = np.unique(keys.keys(mask), return_inverse=True)
                inv = inv.reshape(-1)
                nb = int(inv.max()) + 1
                counts = np.zeros((nb, col.hist.shape[1]), dtype=np.int64)
                np.add.at(counts, inv, col.hist)
                zb = _close_rows(counts, col.o, col.cut, k)
                cap, size = _bucket_caps(inv, col.hist, n, free, col.o, col.cut, k,
                                         np.arange(nb))
                assert size.tolist() == counts.sum(axis=1).tolist()
                assert cap.tolist() == np.where(zb >= k, zb, 0).tolist()


def test_the_report_takes_the_level_flow_bound() -> None:
    from starmin.api import lower_bounds

    b = lower_bounds(_shared_buckets(), TCloseness(0.05))
    assert b["t-level-flow"] == 12 and b["best"] == 12
    both = lower_bounds(_shared_buckets(), AllOf(KAnonymity(2), TCloseness(0.05)))
    assert both["t-level-flow"] == 12 and both["best"] >= 12
