"""Hand-made cases: parameter validation, exact threshold boundaries, feasibility messages,
ground-distance validation."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from starmin.errors import Infeasible, InvalidInput
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistance,
    HierarchicalDistance,
    KAnonymity,
    LDiversity,
    MatrixDistance,
    OrderedDistance,
    PrivacyModel,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)


def a(*rows: list[int]) -> np.ndarray:
    return np.array(rows, dtype=np.int64)


@pytest.mark.parametrize("make, fix", [
    (lambda: LDiversity(0), "e.g. l=2"), (lambda: LDiversity(2.5), "e.g. l=2"),
    (lambda: LDiversity(True), "e.g. l=2"), (lambda: DistinctLDiversity("3"), "e.g. l=2"),
    (lambda: EntropyLDiversity(-1), "e.g. l=2"), (lambda: RecursiveCLDiversity(0, 2), "e.g. c=3"),
    (lambda: RecursiveCLDiversity("x", 2), "e.g. c=3"),
    (lambda: RecursiveCLDiversity(2, 0), "e.g. l=2"),
    (lambda: TCloseness(1.5), "e.g. t=0.2"), (lambda: TCloseness(-0.1), "e.g. t=0.2"),
    (lambda: TCloseness(float("nan")), "e.g. t=0.2"), (lambda: TCloseness("abc"), "e.g. t=0.2"),
    (lambda: PSensitiveKAnonymity(0, 3), "e.g. p=2"),
    (lambda: PSensitiveKAnonymity(2, 0), "e.g. k=5"),
    (lambda: TCloseness(0.2, distance="equal"), "EqualDistance()"),  # type: ignore[arg-type]
    (lambda: AllOf(), "AllOf(KAnonymity"), (lambda: AllOf(object()), "KAnonymity(5)"),  # type: ignore[arg-type]
])
def test_bad_parameters_name_the_fix(make: object, fix: str) -> None:
    with pytest.raises(InvalidInput, match=None) as exc:
        make()  # type: ignore[operator]
    assert fix in str(exc.value)


def test_integral_floats_and_exact_reals_are_accepted() -> None:
    assert LDiversity(2.0).l == 2 and isinstance(LDiversity(2.0).l, int)
    assert TCloseness(0.1).t_exact == Fraction(1, 10)
    assert TCloseness("1/3").t_exact == Fraction(1, 3)
    assert RecursiveCLDiversity(0.5, 2).c_exact == Fraction(1, 2)
    for m in (LDiversity(2), DistinctLDiversity(2), EntropyLDiversity(2),
              RecursiveCLDiversity(3, 2), TCloseness(0.2), PSensitiveKAnonymity(2, 3),
              AllOf(KAnonymity(2), LDiversity(2))):
        assert isinstance(m, PrivacyModel)
        assert hash(m) == hash(m) and m.name


def test_t_closeness_boundary_is_exact() -> None:
    """Table of 10 rows A:7 B:3; a class of 10 rows A:8 B:2 is at EMD exactly 1/10, although
    0.8 - 0.7 = 0.10000000000000009 in floating point. One row more is 0.2: fails."""
    overall = np.array([7, 3])
    ev = TCloseness(0.1).evaluate(a([8, 2], [9, 1]), overall, ["A", "B"])
    assert ev.ok.tolist() == [True, False]
    assert ev.measure.tolist() == pytest.approx([0.1, 0.2])
    # ordered distance over three values: EMD = (|0.1| + |0.1 - 0.1|) / 2 = 0.05
    ev = TCloseness(0.05, OrderedDistance()).evaluate(a([4, 2, 4], [5, 1, 4]), np.array([3, 3, 4]),
                                                     [1, 2, 3])
    assert ev.ok.tolist() == [True, False]


def test_t_closeness_never_passes_through_rounding() -> None:
    """EMD = 1/10 + 1e-18 rounds to 0.1 in floats; the exact test fails it."""
    big = 10**18
    overall = np.array([big, big])
    hist = a([6 * 10**17 + 1, 4 * 10**17 - 1])
    assert float(Fraction(6 * 10**17 + 1, big) - Fraction(1, 2)) <= 0.1  # floats would pass
    ev = TCloseness(0.1).evaluate(hist, overall, ["A", "B"])
    assert ev.ok.tolist() == [False]
    assert TCloseness(Fraction(1, 10) + Fraction(1, big)).evaluate(hist, overall, "AB").ok[0]


def test_entropy_boundary_is_exact() -> None:
    model = EntropyLDiversity(2)
    ev = model.evaluate(a([1, 1, 0], [2, 1, 0], [500_000, 500_000, 0], [500_001, 499_999, 0],
                          [3, 3, 3]),
                        np.array([10**6 + 10, 10**6 + 10, 3]), ["a", "b", "c"])
    assert ev.ok.tolist() == [True, False, True, False, True]
    assert ev.measure[0] == pytest.approx(2.0) and ev.measure[4] == pytest.approx(3.0)
    assert EntropyLDiversity(3).evaluate(a([3, 3, 3]), np.array([3, 3, 3]), "abc").ok[0]


def test_recursive_is_strict_and_needs_l_values() -> None:
    model = RecursiveCLDiversity(2, 2)
    # (4, 2): 4 < 2*2 fails (strict); (3, 2): passes; (5,): one value < l fails
    ev = model.evaluate(a([4, 2, 0], [3, 2, 0], [5, 0, 0], [3, 1, 1]), np.array([15, 5, 1]),
                        "xyz")
    assert ev.ok.tolist() == [False, True, False, True]
    assert ev.measure.tolist() == [2.0, 1.5, math.inf, 1.5]
    # c = 0.6 exactly: (3, 2) has 3 < 0.6 * 5 = 3 false, although 0.6 * 5 > 3 in floats
    c06 = RecursiveCLDiversity(0.6, 1)
    assert c06.evaluate(a([2, 2], [3, 2]), np.array([5, 4]), "xy").ok.tolist() == [True, False]


def test_frequency_l_diversity_is_exact() -> None:
    ev = LDiversity(3).evaluate(a([1, 1, 1, 0], [2, 1, 1, 0], [2, 2, 2, 0], [1, 1, 0, 0]),
                                np.array([6, 5, 3, 0]), "abcd")
    assert ev.ok.tolist() == [True, False, True, False]
    assert ev.measure.tolist() == [3.0, 2.0, 3.0, 2.0]


@pytest.mark.parametrize("model, overall, words", [
    (LDiversity(2), [7, 3], ["'A'", "7/10 > 1/2", "use at most l=1"]),
    (LDiversity(4), [3, 3, 4], ["only 3 distinct", "use at most l=3"]),
    (DistinctLDiversity(3), [5, 5], ["only 2 distinct"]),
    (EntropyLDiversity(2), [9, 1], ["entropy", "use at most l=1"]),
    (RecursiveCLDiversity(1, 2), [5, 3], ["r1 / (r_l + ... + r_m)", "c > 1.667"]),
    (PSensitiveKAnonymity(3, 2), [5, 5], ["use at most p=2"]),
    (PSensitiveKAnonymity(2, 20), [5, 5], ["use at most k=10"]),
    (KAnonymity(11), [5, 5], ["use at most k=10"]),
])
def test_infeasible_names_reason_and_fix(model: PrivacyModel, overall: list[int],
                                         words: list[str]) -> None:
    with pytest.raises(Infeasible) as exc:
        model.check_feasible(np.array(overall), ["A", "B", "C"][:len(overall)])
    for w in words:
        assert w in str(exc.value)


def test_feasible_models_do_not_raise() -> None:
    overall, values = np.array([4, 3, 3]), ["A", "B", "C"]
    for m in (LDiversity(2), DistinctLDiversity(3), EntropyLDiversity(2),
              RecursiveCLDiversity(2, 2), TCloseness(0), PSensitiveKAnonymity(3, 10),
              AllOf(KAnonymity(10), LDiversity(2), TCloseness(0.1, OrderedDistance()))):
        m.check_feasible(overall, values)


def test_feasibility_agrees_with_whole_table_as_one_class() -> None:
    """Every model is monotone, so feasibility == the whole table passes as one class."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        overall = rng.integers(0, 6, size=rng.integers(1, 5))
        overall[0] += 1
        values = list(range(len(overall)))
        for m in (LDiversity(2), DistinctLDiversity(3), EntropyLDiversity(2),
                  RecursiveCLDiversity(2, 2), RecursiveCLDiversity(Fraction(3, 2), 3)):
            whole = bool(m.evaluate(overall[None, :], overall, values).ok[0])
            try:
                m.check_feasible(overall, values)
                feasible = True
            except Infeasible:
                feasible = False
            assert feasible == whole, (m, overall)


# -- ground distances ---------------------------------------------------------------------

HIER = [("flu", "respiratory", "*"), ("pneumonia", "respiratory", "*"),
        ("gastritis", "digestive", "*"), ("ulcer", "digestive", "*")]


def test_hierarchical_distance_by_hand() -> None:
    """Class all flu vs a uniform table: move 1/4 to pneumonia (1/2) and 1/2 to the digestive
    side (1): EMD = 1/8 + 1/2 = 5/8 (Li et al. Sec. 4 closed form)."""
    ev = TCloseness(Fraction(5, 8), HierarchicalDistance(HIER)).evaluate(
        a([4, 0, 0, 0]), np.array([1, 1, 1, 1]), ["flu", "pneumonia", "gastritis", "ulcer"])
    assert ev.ok[0] and ev.measure[0] == pytest.approx(5 / 8)
    assert not TCloseness(0.62, HierarchicalDistance(HIER)).evaluate(
        a([4, 0, 0, 0]), np.array([1, 1, 1, 1]), ["flu", "pneumonia", "gastritis", "ulcer"]).ok[0]


@pytest.mark.parametrize("rows, words", [
    ([], "empty"),
    ([("a",)], "two columns"),
    ([("a", "x", "*"), ("b", "*")], "fields"),
    ([("a", "x", "*"), ("a", "y", "*")], "twice"),
    ([("a", "", "*")], "empty label"),
    ([("a", "x", "*"), ("b", "x", "+")], "inconsistent"),
    ([("a", "x", "*"), ("b", "y", "+")], "roots"),
])
def test_hierarchy_validation(rows: list[tuple[str, ...]], words: str) -> None:
    with pytest.raises(InvalidInput, match=words):
        HierarchicalDistance(tuple(rows))


def test_hierarchy_must_cover_values_and_missing_value_row() -> None:
    model = TCloseness(0.5, HierarchicalDistance(HIER))
    with pytest.raises(InvalidInput, match="no row for 'cold'"):
        model.check_feasible(np.array([1, 1]), ["flu", "cold"])
    with_missing = HierarchicalDistance((*HIER, ("", "respiratory", "*")))
    TCloseness(0.5, with_missing).check_feasible(np.array([1, 1]), ["flu", None])


@pytest.mark.parametrize("matrix, words", [
    ([[0, 1], [1, 0], [1, 1]], "square"),
    ([[0, 1], [0.5, 0]], "symmetric"),
    ([[1, 1], [1, 0]], "diagonal"),
    ([[0, 2], [2, 0]], "normalized"),
    ([[0, -1], [-1, 0]], "negative"),
    ([[0, 1, 0.2], [1, 0, 0.2], [0.2, 0.2, 0]], "triangle"),
    ([["a", "b"], ["c", "d"]], "numeric"),
])
def test_matrix_validation(matrix: list[list[float]], words: str) -> None:
    with pytest.raises(InvalidInput, match=words):
        MatrixDistance(matrix)


def test_matrix_distance_rows_follow_values() -> None:
    D = [[0, 0.5, 1], [0.5, 0, 0.5], [1, 0.5, 0]]
    by_order = TCloseness(0.5, MatrixDistance(D)).evaluate(a([0, 0, 2]), np.array([1, 1, 2]),
                                                           [3, 2, 1])
    # columns are the values 3, 2, 1: the class is all 1, the table (1/2, 1/4, 1/4) over 1,2,3;
    # move 1/4 from 1 to 2 (0.5) and 1/4 from 1 to 3 (1): EMD = 1/8 + 1/4
    assert by_order.measure[0] == pytest.approx(0.375)
    named = MatrixDistance(D, values=("lo", "mid", "hi"))
    ev = TCloseness(0.5, named).evaluate(a([0, 2]), np.array([1, 1]), ["hi", "lo"])
    assert ev.measure[0] == pytest.approx(0.5) and ev.ok[0]
    with pytest.raises(InvalidInput, match="3x3"):
        TCloseness(0.5, MatrixDistance(D)).evaluate(a([1, 1]), np.array([1, 1]), [1, 2])
    with pytest.raises(InvalidInput, match="no row for 'x'"):
        TCloseness(0.5, named).evaluate(a([1, 1]), np.array([1, 1]), ["x", "lo"])


def test_matrix_distance_exact_boundary() -> None:
    """EMD exactly 0.3 with a 0.3 entry: the exact upper bound passes t = 0.3."""
    D = [[0, 0.3, 1], [0.3, 0, 1], [1, 1, 0]]
    named = MatrixDistance(D, values=(1, 2, 3))
    ev = TCloseness(0.15, named).evaluate(a([0, 2]), np.array([1, 1]), [1, 2])
    assert ev.ok[0] and ev.measure[0] == pytest.approx(0.15)
    assert not TCloseness(0.149, named).evaluate(a([0, 2]), np.array([1, 1]), [1, 2]).ok[0]
    # 3 classes of 7 rows against a table 3:4 -> EMD 0.3 * 3/7, compared exactly
    below = TCloseness(Fraction(9, 70) - Fraction(1, 10**9), named)
    assert not below.evaluate(a([0, 7]), np.array([3, 4]), [1, 2]).ok[0]
    ev = TCloseness(Fraction(9, 70), named).evaluate(a([0, 7]), np.array([3, 4]), [1, 2])
    assert ev.ok.tolist() == [True] and ev.measure[0] == pytest.approx(0.3 * 3 / 7)


def test_ordered_distance_explicit_order() -> None:
    d = OrderedDistance(order=("low", "mid", "high"))
    ev = TCloseness(0.25, d).evaluate(a([0, 0, 2]), np.array([1, 0, 1]), ["high", "low", "mid"])
    # the class is all 'mid', the table half 'mid' half 'high': move 1/2 by one step of 1/2
    assert ev.measure[0] == pytest.approx(0.25) and ev.ok[0]
    with pytest.raises(InvalidInput, match="lacks 'top'"):
        TCloseness(0.5, d).evaluate(a([1]), np.array([1]), ["top"])
    with pytest.raises(InvalidInput, match="twice"):
        OrderedDistance(order=("a", "a"))


def test_single_valued_sensitive_column() -> None:
    """One sensitive value: EMD 0 under every distance, l-diversity fails cleanly."""
    hist, overall = a([3], [2]), np.array([5])
    for d in (EqualDistance(), OrderedDistance(), HierarchicalDistance([("7", "*")]),
              MatrixDistance([[0]])):
        ev = TCloseness(0, d).evaluate(hist, overall, [7])
        assert ev.ok.all() and (ev.measure == 0).all()
    for m in (LDiversity(2), DistinctLDiversity(2), EntropyLDiversity(2),
              RecursiveCLDiversity(2, 2)):
        assert not m.evaluate(hist, overall, [7]).ok.any()
        with pytest.raises(Infeasible, match="only 1 distinct value"):
            m.check_feasible(overall, [7])


def test_evaluations_are_json_friendly_names() -> None:
    names = [m.name for m in (LDiversity(2), DistinctLDiversity(2), EntropyLDiversity(2),
                              RecursiveCLDiversity(3, 2), TCloseness(0.2),
                              TCloseness(0.2, OrderedDistance()), PSensitiveKAnonymity(2, 5))]
    assert names == ["2-diversity", "distinct 2-diversity", "entropy 2-diversity",
                     "recursive (3, 2)-diversity", "0.2-closeness (equal distance)",
                     "0.2-closeness (ordered distance)", "2-sensitive 5-anonymity"]
    json.dumps(names)


@pytest.mark.parametrize("k_of", [KAnonymity, lambda k: PSensitiveKAnonymity(1, k)])
def test_the_rows_of_a_small_table_are_counted_in_words(k_of: Any) -> None:
    with pytest.raises(Infeasible, match=r"larger than the table \(1 row\): no 2-anonymous"):
        k_of(2).check_feasible(np.array([1]), ["x"])
    with pytest.raises(Infeasible, match=r"larger than the table \(3 rows\): no 4-anonymous"):
        k_of(4).check_feasible(np.array([3]), ["x"])
