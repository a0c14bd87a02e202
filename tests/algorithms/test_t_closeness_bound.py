"""The t-closeness lower bounds (star-free, pattern, level flow) never exceed the optimum
(brute force), are ordered (the level flow dominates the pattern bound),
the star-free rows are bounded from above (enumeration), and the bounds are not vacuous."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starmin.algorithms.exact import brute_force
from starmin.algorithms.t_closeness_bound import (
    items_of,
    min_distance,
    star_free_bound,
    star_free_rows,
    t_closeness_lower_bounds,
)
from starmin.api import lower_bounds
from starmin.data.rowtypes import RowTypes
from starmin.models import (
    AllOf,
    HierarchicalDistance,
    KAnonymity,
    MatrixDistance,
    OrderedDistance,
    TCloseness,
)
from tests.helpers.tables import random_table, two_sensitive_table

HIERARCHY = HierarchicalDistance((("0", "a", "*"), ("1", "a", "*"), ("2", "b", "*")))
MATRIX = MatrixDistance([[0, 0.5, 1], [0.5, 0, 0.7], [1, 0.7, 0]])
DISTANCES = {"equal": None, "ordered": OrderedDistance(), "hierarchical": HIERARCHY,
             "matrix": MATRIX}


def _model(t: float, distance: str) -> TCloseness:
    d = DISTANCES[distance]
    return TCloseness(t) if d is None else TCloseness(t, d)


def _below_optimum(rt: RowTypes, model: TCloseness, k: int = 1) -> dict[str, int]:
    """The three bounds, checked to be ordered and at most the brute-force optimum (t-closeness,
    alone or with k <= n, is always feasible: the whole table is one t-close class)."""
    optimum = brute_force.solve(rt, model if k == 1 else AllOf(KAnonymity(k), model)).stars
    b = t_closeness_lower_bounds(rt, model, k=k)
    assert b["t-star-free"] <= b["t-pattern"] <= b["t-level-flow"] <= optimum
    return b


@pytest.mark.parametrize("distance", sorted(DISTANCES))
@pytest.mark.parametrize("t", [0.0, 0.15, 0.3, 0.5])
@pytest.mark.parametrize("seed", range(8))
def test_bound_never_exceeds_the_brute_force_optimum(distance: str, t: float, seed: int) -> None:
    rt = random_table(7000 + seed, 5 + seed % 4, m=3, values=[2, 2, 3], s=3)
    model = _model(t, distance)
    assert _below_optimum(rt, model)["t-star-free"] == star_free_bound(rt, model)


def test_bounds_are_not_vacuous_on_small_tables() -> None:
    free = pattern = 0
    for seed in range(8):
        rt = random_table(7000 + seed, 5 + seed % 4, m=3, values=[2, 2, 3], s=3)
        b = t_closeness_lower_bounds(rt, TCloseness(0.15))
        free += b["t-star-free"] > 0
        pattern += b["t-pattern"] > b["t-star-free"]
        assert b["t-pattern"] <= brute_force.solve(rt, TCloseness(0.15)).stars
    assert free >= 4 and pattern >= 1


def test_capped_patterns_still_bound() -> None:
    rt = random_table(99, 9, m=3, values=[2, 2, 3], s=3)
    optimum = brute_force.solve(rt, TCloseness(0.1)).stars
    for cap in (0, 1, 3, 7):
        b = t_closeness_lower_bounds(rt, TCloseness(0.1), max_patterns=cap)
        assert b["t-star-free"] <= b["t-pattern"] <= b["t-level-flow"] <= optimum


def _largest_close_part(c: list[int], o: np.ndarray, tau: float) -> int:
    """The largest sub-multiset of ``c`` within total variation ``tau`` of ``o`` (enumerated,
    under the equal distance's exact EMD)."""
    return _largest_t_close_part(c, o, tau, TCloseness(0.1).distance,
                                 [str(v) for v in range(len(c))])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(0, 4), min_size=3, max_size=3), min_size=1, max_size=4),
       st.lists(st.integers(1, 9), min_size=3, max_size=3),
       st.sampled_from([0.0, 0.1, 0.2, 0.34, 0.5, 0.9]))
def test_star_free_rows_bound_each_row_type_from_above(rows: list[list[int]], o: list[int],
                                                        tau: float) -> None:
    c = np.asarray(rows, dtype=np.int64)
    oa = np.asarray(o, dtype=np.int64)
    got = star_free_rows(c, oa, tau)
    for i, row in enumerate(rows):
        assert _largest_close_part(row, oa, tau) <= got[i] <= sum(row)


def test_star_free_rows_literal_cases() -> None:
    o = np.array([1, 1])  # the table is half a, half b
    c = np.array([[1, 0], [1, 1], [3, 1], [0, 0]])
    # one row alone is at TV 1/2; a pair (1, 1) is at 0; (3, 1) holds at most (1, 1) at
    # TV 0 and (2, 1) at TV 1/6
    assert star_free_rows(c, o, 0.0).tolist() == [0, 2, 2, 0]
    assert star_free_rows(c, o, 0.2).tolist() == [0, 2, 3, 0]
    assert star_free_rows(c, o, 0.5).tolist() == [1, 2, 4, 0]


def test_every_row_needs_a_star_when_no_row_type_can_be_close() -> None:
    # four rows, four distinct QI vectors, two values: any single row is at TV 1/2 > 0.2
    rt = RowTypes.from_arrays(np.array([[0, 0], [0, 1], [1, 0], [1, 1]]), np.array([0, 1, 0, 1]))
    assert star_free_bound(rt, TCloseness(0.2)) == 4
    # one star leaves pairs agreeing on the other column, e.g. {00, 01}: values 0, 1 (TV 0)
    assert t_closeness_lower_bounds(rt, TCloseness(0.2))["t-pattern"] == 4
    assert brute_force.solve(rt, TCloseness(0.2)).stars == 4
    assert star_free_bound(rt, TCloseness(0.5)) == 0  # TV 1/2 <= 0.5: rows may stand alone


def test_min_distance_per_ground_distance() -> None:
    vals = [0, 1, 2]
    assert min_distance(TCloseness(0.1).distance, vals) == 1.0
    assert min_distance(OrderedDistance(), vals) == 0.5
    assert min_distance(HIERARCHY, ["0", "1", "2"]) == 0.5
    assert min_distance(MATRIX, vals) == 0.5
    assert min_distance(OrderedDistance(), [7]) == float("inf")


def test_lower_bounds_combine_k_and_t_parts() -> None:
    rt = random_table(11, 40, m=3, values=[3, 3, 3], s=3)
    both = lower_bounds(rt, AllOf(KAnonymity(3), TCloseness(0.1)))
    k_only = lower_bounds(rt, KAnonymity(3))
    t_only = lower_bounds(rt, TCloseness(0.1))
    assert both["t-pattern"] == t_only["t-pattern"]
    assert t_only["best"] == max(v for name, v in t_only.items() if name != "best")
    assert both["best"] == max(k_only["best"], t_only["best"])
    assert "t-star-free" not in k_only


@pytest.mark.parametrize("seed", range(6))
def test_two_sensitive_columns_bound_below_brute_force(seed: int) -> None:
    _below_optimum(two_sensitive_table(4000 + seed, 5 + seed % 4), TCloseness(0.2))


def test_a_class_exactly_at_t_counts_as_close() -> None:
    # one row of value 1 against the table (1, 2, 2): TV = 0.2 + 0.4 = 0.6 exactly, and the
    # float sum 0.2 + 0.4 exceeds 0.6; the row must still count as star-free
    assert star_free_rows(np.array([[0, 1, 0]]), np.array([1, 2, 2]), 0.6).tolist() == [1]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 7),
       st.sampled_from(["0", "1/6", "0.2", "0.25", "1/3", "0.4", "0.5", "2/3"]),
       st.sampled_from(["equal", "ordered"]))
def test_bounds_below_brute_force_at_boundary_values_of_t(seed: int, n: int, t: str,
                                                           distance: str) -> None:
    from fractions import Fraction
    _below_optimum(random_table(seed, n, m=2, values=[2, 3], s=3),
                   _model(Fraction(t), distance))  # type: ignore[arg-type]


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("t", [0.1, 0.3])
@pytest.mark.parametrize("seed", range(8))
def test_bounds_with_a_class_size_below_brute_force(k: int, t: float, seed: int) -> None:
    rt = random_table(8000 + seed, 6 + seed % 3, m=3, values=[2, 2, 3], s=3)
    alone = _below_optimum(rt, TCloseness(t))
    b = _below_optimum(rt, TCloseness(t), k=k)
    assert alone["t-pattern"] <= b["t-pattern"]
    assert alone["t-star-free"] <= b["t-star-free"]
    both = AllOf(KAnonymity(k), TCloseness(t))
    assert lower_bounds(rt, both)["best"] <= brute_force.solve(rt, both).stars


def test_a_class_size_tightens_the_bounds_somewhere() -> None:
    gains = 0
    for seed in range(8):
        rt = random_table(8000 + seed, 6 + seed % 3, m=3, values=[2, 2, 3], s=3)
        gains += (t_closeness_lower_bounds(rt, TCloseness(0.3), k=3)["t-pattern"]
                  > t_closeness_lower_bounds(rt, TCloseness(0.3))["t-pattern"])
    assert gains >= 2


DEEP = HierarchicalDistance((("0", "a", "x", "*"), ("1", "a", "x", "*"), ("2", "b", "x", "*"),
                             ("3", "c", "y", "*")))
ORDERED_GAPS = OrderedDistance(("0", "gap", "1", "2", "gap2", "gap3", "3"))


def _largest_t_close_part(c: list[int], o: np.ndarray, t: float, distance: object,
                          values: list[str], k: int = 1) -> int:
    """The largest sub-multiset of ``c`` with at least ``k`` rows whose EMD to ``o``'s
    distribution is at most ``t`` under ``distance`` (enumerated; the model's exact EMD
    numerators); 0 if none."""
    N = int(o.sum())
    best = 0
    for x in itertools.product(*(range(v + 1) for v in c)):
        X = sum(x)
        if max(k, 1) > X:
            continue
        D = np.array([[xv * N - int(ov) * X for xv, ov in zip(x, o, strict=True)]])
        num, scale = distance.numerators(D, values)  # type: ignore[attr-defined]
        if float(num[0]) <= t * X * N * scale + 1e-9:
            best = max(best, X)
    return best


@settings(max_examples=120, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=1, max_size=3),
       st.lists(st.integers(1, 9), min_size=4, max_size=4),
       st.sampled_from([0.0, 0.1, 0.2, 1 / 3, 0.4, 0.5, 0.6, 0.75]),
       st.sampled_from(["deep", "ordered-gaps", "ordered"]))
def test_items_bound_each_row_type_under_hierarchies_and_orders(
        rows: list[list[int]], o: list[int], t: float, which: str) -> None:
    distance = {"deep": DEEP, "ordered-gaps": ORDERED_GAPS, "ordered": OrderedDistance()}[which]
    values = ["0", "1", "2", "3"]
    items, scale = items_of(distance, values)
    c = np.asarray(rows, dtype=np.int64)
    oa = np.asarray(o, dtype=np.int64)
    got = star_free_rows(c, oa, t * scale, items)
    for i, row in enumerate(rows):
        assert _largest_t_close_part(row, oa, t, distance, values) <= got[i] <= sum(row)


def test_hierarchy_levels_bound_where_the_smallest_distance_cannot() -> None:
    # table: values 0, 1 under a, 2 under b, one row each of 0 and 1, two of 2 (H = 2). A class
    # of value 0 alone: TV at the values 3/4, at the level {a, b} 1/2: EMD = (3/4 + 1/2) / 2
    # = 5/8 > 0.5, while d_min * TV = 3/8 <= 0.5 says nothing
    o = np.array([1, 1, 2])
    items, scale = items_of(HIERARCHY, ["0", "1", "2"])
    assert scale == 2.0
    assert star_free_rows(np.array([[3, 0, 0]]), o, 0.5 * scale, items).tolist() == [0]
    assert star_free_rows(np.array([[3, 0, 0]]), o, 0.5 / 0.5).tolist() == [3]
    # value 0 with 2: (1, 0, 1) is at TV 1/4 (values) and 0 (level): EMD 1/8
    assert star_free_rows(np.array([[1, 0, 1]]), o, 0.25 * scale, items).tolist() == [2]


@pytest.mark.parametrize("t", [0.3, 0.5, 0.6, 0.7])
@pytest.mark.parametrize("seed", range(10))
def test_deep_hierarchy_bounds_below_brute_force(t: float, seed: int) -> None:
    _below_optimum(random_table(7300 + seed, 5 + seed % 4, m=3, values=[2, 2, 3], s=4),
                   TCloseness(t, DEEP))


@pytest.mark.parametrize("t", [0.2, 0.4, 0.6])
@pytest.mark.parametrize("seed", range(6))
def test_ordered_with_absent_values_bounds_below_brute_force(t: float, seed: int) -> None:
    _below_optimum(random_table(7400 + seed, 5 + seed % 4, m=3, values=[2, 2, 3], s=4),
                   TCloseness(t, OrderedDistance((0, "gap", 1, 2, "gap2", "gap3", 3))))


def test_hierarchy_bound_is_not_vacuous_at_t_one_over_height() -> None:
    # under a hierarchy of height 2, t = 0.5 made the first version's bound 0 (TV <= 1)
    hit = 0
    for seed in range(8):
        rt = random_table(7500 + seed, 6 + seed % 3, m=3, values=[2, 2, 3], s=3)
        hit += _below_optimum(rt, TCloseness(0.5, HIERARCHY))["t-star-free"] > 0
    assert hit >= 3


CYCLE6 = MatrixDistance([[min(abs(i - j), 6 - abs(i - j)) / 3 for j in range(6)]
                         for i in range(6)])
"""Six values on a circle, ``d`` = arc / 3: ``d_min = 1/3``, so at ``t >= 1/3`` the
variational relaxation (``TV <= t / d_min >= 1``) is vacuous, while one value alone is about
1/2 from the table."""


@pytest.mark.parametrize("t", [0.34, 0.4])
@pytest.mark.parametrize("seed", range(6))
def test_matrix_class_floor_is_sound_and_bites(t: float, seed: int) -> None:
    """Under a matrix distance the fewest rows of a t-close class come from the model's own
    verdict on every composition (``matrix_class_floor``): no class of brute force's optimal
    release is smaller, and every bound stays at most the optimum."""
    from starmin.algorithms.t_closeness_bound import t_class_floor

    rt = random_table(9100 + seed, 10 + seed % 3, m=3, values=[2, 2, 3], s=6)
    model = TCloseness(t, CYCLE6)
    floor = t_class_floor(rt, model)
    plan = brute_force.solve(rt, model)
    assert plan.class_sizes.min() >= floor
    b = t_closeness_lower_bounds(rt, model)
    assert max(b.values()) <= plan.stars
    if floor >= 2:  # no single row is t-close: every row type of one row needs a star
        single = int((rt.counts.sum(axis=1) == 1).sum())
        assert b["t-star-free"] >= single


def test_matrix_class_floor_raises_the_bounds_somewhere(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The floor is above the relaxation's (1) on these tables, and the bounds with it are
    positive where they were 0: a test that fails if the model's verdict is not consulted."""
    from starmin.algorithms import t_closeness_bound as tb

    raised = 0
    for seed in range(6):
        rt = random_table(9100 + seed, 10 + seed % 3, m=3, values=[2, 2, 3], s=6)
        model = TCloseness(0.34, CYCLE6)
        with_floor = max(tb.t_closeness_lower_bounds(rt, model).values())
        with monkeypatch.context() as mp:
            mp.setattr(tb, "matrix_class_floor", lambda model, values, o, start: start)
            without = max(tb.t_closeness_lower_bounds(rt, model).values())
        raised += int(with_floor > without == 0)
    assert raised >= 3
