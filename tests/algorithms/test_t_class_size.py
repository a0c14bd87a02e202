"""The fewest rows of a t-close class (t_class_size): never above the true smallest size
(every composition enumerated under the model's exact EMD), equal to it under the equal
distance, literal cases, and the t bounds it raises stay below brute force."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starmin.algorithms.exact import brute_force
from starmin.algorithms.t_class_size import largest_close_sizes, min_class_size
from starmin.algorithms.t_closeness_bound import (
    items_of,
    star_free_rows,
    t_closeness_lower_bounds,
)
from starmin.data.rowtypes import RowTypes
from starmin.models import HierarchicalDistance, MatrixDistance, OrderedDistance, TCloseness
from tests.algorithms.test_t_closeness_bound import _largest_t_close_part
from tests.helpers.tables import random_table

VALUES = ["0", "1", "2", "3"]
DISTANCES: dict[str, object] = {
    "equal": TCloseness(0.1).distance,
    "deep": HierarchicalDistance((("0", "a", "x", "*"), ("1", "a", "x", "*"),
                                  ("2", "b", "x", "*"), ("3", "c", "y", "*"))),
    "ordered": OrderedDistance(),
    "ordered-gaps": OrderedDistance(("0", "gap", "1", "2", "gap2", "gap3", "3")),
    "matrix": MatrixDistance([[0, 0.5, 1, 1], [0.5, 0, 0.7, 1], [1, 0.7, 0, 0.4],
                              [1, 1, 0.4, 0]]),
}


def _smallest_close_size(o: np.ndarray, t: float, distance: object) -> int:
    """The fewest rows of any composition whose EMD to ``o``'s distribution is at most ``t``
    (every composition of every size enumerated; the model's exact EMD numerators)."""
    N = int(o.sum())
    for X in range(1, N + 1):
        comps = [x for x in itertools.product(range(X + 1), repeat=len(o)) if sum(x) == X]
        D = np.array([[xv * N - int(ov) * X for xv, ov in zip(x, o, strict=True)]
                      for x in comps])
        if isinstance(distance, MatrixDistance):
            ok, _ = distance.judge(D, np.full(len(D), X * N), VALUES, Fraction(t))
        else:
            num, scale = distance.numerators(D, VALUES)  # type: ignore[attr-defined]
            ok = np.asarray(num, dtype=np.float64) <= t * X * N * scale + 1e-9
        if ok.any():
            return X
    raise AssertionError("the table itself is at distance 0")


def _floor(o: np.ndarray, t: float, distance: object) -> int:
    _, scale = items_of(distance, VALUES)
    return min_class_size(distance, VALUES, o, t * scale)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=4, max_size=4),
       st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.25, 1 / 3, 0.4, 0.5]),
       st.sampled_from(sorted(DISTANCES)))
def test_floor_never_exceeds_the_smallest_close_class(o: list[int], t: float,
                                                      which: str) -> None:
    oa = np.asarray(o, dtype=np.int64)
    distance = DISTANCES[which]
    got = _floor(oa, t, distance)
    assert 1 <= got <= _smallest_close_size(oa, t, distance)
    if which == "equal":  # the greedy is exact for the total variation
        assert got == _smallest_close_size(oa, t, distance)


def test_literal_sizes() -> None:
    eq = DISTANCES["equal"]
    vals = ["a", "b"]
    # Q = (1/3, 2/3): one row is at TV >= 1/3, two rows (1, 1) at 1/6, three (1, 2) at 0
    assert min_class_size(eq, vals, np.array([1, 2]), 0.1) == 3
    assert min_class_size(eq, vals, np.array([1, 2]), 1 / 6) == 2
    assert min_class_size(eq, vals, np.array([1, 2]), 1 / 3) == 1
    # Q = (1/2, 1/2): a pair is exact, a single row is at 1/2
    assert min_class_size(eq, vals, np.array([5, 5]), 0.2) == 2
    assert min_class_size(eq, vals, np.array([5, 5]), 0.5) == 1
    # nothing to bound: one value, or an infinite tau
    assert min_class_size(eq, ["a"], np.array([4]), 0.0) == 1
    assert min_class_size(eq, vals, np.array([1, 2]), float("inf")) == 1
    # t = 0: only the table's own proportions, (1, 2) scaled: 3 rows
    assert min_class_size(eq, vals, np.array([2, 4]), 0.0) == 3


def test_hierarchy_levels_add_up() -> None:
    # values 0, 1 under a, 2, 3 under b; table (1, 1, 1, 1), H = 2. Two rows (0, 2) are at
    # TV 1/2 over the values and 0 over {a, b}: EMD 1/4. One row: (3/4 + 1/2) / 2 = 5/8
    h = HierarchicalDistance((("0", "a", "*"), ("1", "a", "*"), ("2", "b", "*"),
                              ("3", "b", "*")))
    o = np.ones(4, dtype=np.int64)
    assert min_class_size(h, VALUES, o, 0.25 * 2) == 2
    assert min_class_size(h, VALUES, o, 0.6 * 2) == 2
    assert min_class_size(h, VALUES, o, 0.625 * 2) == 1
    assert min_class_size(h, VALUES, o, 0.2 * 2) == 4


def test_ordered_cuts() -> None:
    # values 0 < 1 < 2, table (1, 1, 1): one row of value 1 has cumulative sums (0, 1)
    # against (1/3, 2/3): EMD (1/3 + 1/3) / 2 = 1/3
    o = np.ones(3, dtype=np.int64)
    vals = ["0", "1", "2"]
    assert min_class_size(OrderedDistance(), vals, o, (1 / 3) * 2) == 1
    # two rows: (1, 0, 1) has sums (1/2, 1/2): EMD (1/6 + 1/6) / 2 = 1/6
    assert min_class_size(OrderedDistance(), vals, o, 0.3 * 2) == 2
    assert min_class_size(OrderedDistance(), vals, o, 0.1 * 2) == 3


@pytest.mark.parametrize("t", [0.05, 0.1, "1/9", 0.15])
@pytest.mark.parametrize("seed", range(8))
def test_raised_bounds_stay_below_brute_force(t: float | str, seed: int) -> None:
    rt = random_table(9100 + seed, 6 + seed % 3, m=2, values=[2, 3], s=3)
    model = TCloseness(Fraction(t) if isinstance(t, str) else t)
    b = t_closeness_lower_bounds(rt, model)
    assert (b["t-star-free"] <= b["t-pattern"] <= b["t-level-flow"]
            <= brute_force.solve(rt, model).stars)


def test_the_floor_raises_the_bound() -> None:
    # row type A (QI 00) holds values a, b; row type B (QI 11) a, b, b, b: the table is
    # 1/3 a, 2/3 b. At t = 0.1 a class needs 3 rows ((1, 1) is at TV 1/6). The relaxation
    # alone lets one row of A stand without a star (X* = 1.76); the floor of 3 rows does not,
    # so both rows of A carry both stars: bound 4. The optimum joins A with one b of B (6)
    codes = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [1, 1], [1, 1]])
    sa = np.array([0, 1, 0, 1, 1, 1])
    rt = RowTypes.from_arrays(codes, sa)
    model = TCloseness(0.1)
    assert star_free_rows(np.array([[1, 1]]), np.array([2, 4]), 0.1).tolist() == [1]
    assert min_class_size(model.distance, ["a", "b"], np.array([2, 4]), 0.1) == 3
    b = t_closeness_lower_bounds(rt, model)
    assert b["t-star-free"] == 2 and b["t-pattern"] == 4
    assert brute_force.solve(rt, model).stars == 6


def test_work_limits_stop_at_a_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    from starmin.algorithms import t_class_size

    eq = DISTANCES["equal"]
    o = np.array([1000, 999])  # coprime: at t = 0 only the whole table's proportions
    assert min_class_size(eq, ["a", "b"], o, 0.0) == 1999
    monkeypatch.setattr(t_class_size, "MAX_WORK", 1)  # one batch of sizes
    assert min_class_size(eq, ["a", "b"], o, 0.0) == t_class_size._BATCH + 1
    monkeypatch.setattr(t_class_size, "MAX_SIZES", 10)
    assert min_class_size(eq, ["a", "b"], o, 0.0) == 11
    # many values: the limit keeps the work bounded, and the answer is still a floor
    many = np.arange(1, 5001, dtype=np.int64)
    got = min_class_size(eq, [str(v) for v in range(5000)], many, 0.0)
    assert 1 <= got <= int(many.sum())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=4, max_size=4), min_size=1, max_size=4),
       st.lists(st.integers(1, 9), min_size=4, max_size=4),
       st.sampled_from([0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5]), st.integers(1, 6),
       st.sampled_from([1, 3, 32]))
def test_largest_close_sizes_bound_the_integer_optimum(rows: list[list[int]], o: list[int],
                                                       tau: float, k: int,
                                                       steps: int) -> None:
    c = np.asarray(rows, dtype=np.int64)
    oa = np.asarray(o, dtype=np.int64)
    z = star_free_rows(c, oa, tau)
    got = largest_close_sizes(c, oa, tau, z, k, steps=steps)
    for i, row in enumerate(rows):
        want = _largest_t_close_part(row, oa, tau, DISTANCES["equal"], VALUES, k)
        assert want <= got[i] <= max(z[i], 0), (row, want, got[i])
        if z[i] - k < steps:  # every size of [k, z] tried: exact
            assert got[i] == want, (row, got[i], want)


def test_largest_close_sizes_literal() -> None:
    # table 1/3 a, 2/3 b, t = 0.2. (2, 1): all three rows are at TV 1/3, two rows (1, 1) at
    # 1/6: 2, but none of at least k = 3 rows. (1, 2): exact, 3. (3, 3): TV 1/6, 6
    o = np.array([1, 2])
    c = np.array([[2, 1], [1, 2], [3, 3]])
    z = star_free_rows(c, o, 0.2)
    assert largest_close_sizes(c, o, 0.2, z, 1).tolist() == [2, 3, 6]
    assert largest_close_sizes(c, o, 0.2, z, 3).tolist() == [0, 3, 6]
    # at t = 0.1: (1, 1) fails (1/6); (3, 3) holds (2, 3) at 1/15, not all six
    assert largest_close_sizes(c, o, 0.1, star_free_rows(c, o, 0.1), 1).tolist() == [0, 3, 5]
    # a capped value keeps its fractional deficit: table (2, 5, 4), counts (3, 4, 2), t = 0.1.
    # 7 rows: (1, 3, 2) whole units, one more row covers 3/11 of value 0, and value 2 (at
    # its cap) keeps 6/11: deficit (2 + 6) / 11 over 7 rows = 0.104 > 0.1. 6 rows: 3/11 / 6
    o, c = np.array([2, 5, 4]), np.array([[3, 4, 2]])
    z = star_free_rows(c, o, 0.1)
    assert z.tolist() == [7] and largest_close_sizes(c, o, 0.1, z, 1).tolist() == [6]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=4, max_size=4), min_size=1, max_size=3),
       st.lists(st.integers(1, 9), min_size=4, max_size=4),
       st.sampled_from([0.0, 0.1, 0.2, 1 / 3, 0.4, 0.5, 0.6]), st.integers(1, 5),
       st.sampled_from([2, 32]), st.sampled_from(["deep", "ordered", "ordered-gaps"]))
def test_largest_close_sizes_under_hierarchies_and_orders(
        rows: list[list[int]], o: list[int], t: float, k: int, steps: int,
        which: str) -> None:
    from starmin.algorithms.t_class_size import cuts_of, levels_of

    distance = DISTANCES[which]
    items, scale = items_of(distance, VALUES)
    c = np.asarray(rows, dtype=np.int64)
    oa = np.asarray(o, dtype=np.int64)
    z = star_free_rows(c, oa, t * scale, items)
    got = largest_close_sizes(c, oa, t * scale, z, k, levels_of(distance, VALUES),
                              steps=steps, cuts=cuts_of(distance, VALUES))
    for i, row in enumerate(rows):
        assert _largest_t_close_part(row, oa, t, distance, VALUES, k) <= got[i] <= max(z[i], 0)


def test_ordered_cuts_lower_sizes() -> None:
    # values 0 < 1 < 2, table (1, 1, 1), t = 0.2. (2, 0, 1): EMD (1/3 + 0) / 2 = 1/6, all 3
    # rows. (1, 1, 0): the relaxation allows one row, but (1, 0, 0) is at EMD 1/2 and
    # (0, 1, 0) at 1/3, and two rows (1, 1, 0) at (1/6 + 1/3) / 2 = 1/4: none
    from starmin.algorithms.t_class_size import cuts_of, levels_of

    vals = ["0", "1", "2"]
    o = np.ones(3, dtype=np.int64)
    items, scale = items_of(OrderedDistance(), vals)
    c = np.array([[2, 0, 1], [3, 0, 0], [1, 1, 0]])
    z = star_free_rows(c, o, 0.2 * scale, items)
    assert z.tolist() == [3, 0, 1]
    got = largest_close_sizes(c, o, 0.2 * scale, z, 1, levels_of(OrderedDistance(), vals),
                              cuts=cuts_of(OrderedDistance(), vals))
    assert got.tolist() == [3, 0, 0]
