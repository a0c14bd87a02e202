"""Liang & Yuan's Theorem 8 recursion (src/starmin/algorithms/exact/balanced_split.py).

Exact: equal to brute force on seeded random tables for every model it takes (k-anonymity
through Lemma 1, the l-diversity forms, t-closeness under each ground distance, p-sensitive
k-anonymity, conjunctions); its plans verify; its work stays within the bound ``supports``
checks; it refuses what it cannot do with a reason naming ``n``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from starmin.algorithms.exact import balanced_split, brute_force
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput, SolverLimit
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
from tests.helpers.tables import expanded, from_rows, random_table, satisfies, two_sensitive_table

HIERARCHY = HierarchicalDistance((("0", "01", "*"), ("1", "01", "*"), ("2", "23", "*"),
                                  ("3", "23", "*")))
MATRIX = MatrixDistance([[0, 0.5, 1, 1], [0.5, 0, 0.7, 0.8], [1, 0.7, 0, 0.4],
                         [1, 0.8, 0.4, 0]], values=(0, 1, 2, 3))

MODELS: dict[str, Callable[[], PrivacyModel]] = {
    "k2": lambda: KAnonymity(2),
    "k3": lambda: KAnonymity(3),
    "k5": lambda: KAnonymity(5),
    "l2": lambda: LDiversity(2),
    "l3": lambda: LDiversity(3),
    "distinct-l2": lambda: DistinctLDiversity(2),
    "entropy-l2": lambda: EntropyLDiversity(2),
    "recursive-c2-l2": lambda: RecursiveCLDiversity(2, 2),
    "t0.3-equal": lambda: TCloseness(0.3, EqualDistance()),
    "t0.15-equal": lambda: TCloseness(0.15, EqualDistance()),
    "t0.2-ordered": lambda: TCloseness(0.2, OrderedDistance()),
    "t0.25-hierarchical": lambda: TCloseness(0.25, HIERARCHY),
    "t0.3-matrix": lambda: TCloseness(0.3, MATRIX),
    "p2-k3": lambda: PSensitiveKAnonymity(2, 3),
    "k3+l2": lambda: AllOf(KAnonymity(3), LDiversity(2)),
    "k2+t0.4": lambda: AllOf(KAnonymity(2), TCloseness(0.4)),
    "distinct-l2+t0.3-matrix": lambda: AllOf(DistinctLDiversity(2), TCloseness(0.3, MATRIX)),
}

SEEDS = range(12)


def _table(seed: int) -> RowTypes:
    """3 to 10 rows, 1-3 QI columns of 2-3 values, 2-4 sensitive values (all present); on
    even seeds the values are balanced (so l-diversity up to their number is feasible)."""
    n = 3 + seed % 8
    m, values, s = 1 + seed % 3, 2 + seed % 2, min(n, 2 + seed % 3)
    if seed % 2:
        return random_table(1000 + seed, n, m=m, values=values, s=s)
    rng = np.random.default_rng(1000 + seed)
    return RowTypes.from_arrays(rng.integers(0, values, size=(n, m)),
                                rng.permutation(np.arange(n) % s))


def _same_as_brute_force(rt: RowTypes, model: PrivacyModel) -> int | None:
    """Solve with both; assert equal optima (or both infeasible); return the optimum."""
    try:
        want = brute_force.solve(rt, model).stars
    except Infeasible:
        with pytest.raises(Infeasible):
            balanced_split.solve(rt, model)
        return None
    assert balanced_split.supports(model, rt) is None
    plan = balanced_split.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    assert plan.stars == want == plan.lower_bound
    size = balanced_split.work_bound(model, rt)
    assert plan.certificate["states_solved"] <= size.good
    assert plan.certificate["candidate_parts"] <= size.work
    return want


@pytest.mark.parametrize("name", sorted(MODELS))
def test_equals_brute_force_on_random_tables(name: str) -> None:
    model = MODELS[name]()
    solved = sum(_same_as_brute_force(_table(seed), model) is not None for seed in SEEDS)
    assert solved >= 2  # the cases are not all infeasible


@pytest.mark.parametrize("seed", range(6))
def test_equals_brute_force_with_repeated_rows_and_row_per_row(seed: int) -> None:
    """Multiset cells (repeated rows) and the same table with one row type per row."""
    rt = random_table(50 + seed, 9, m=2, values=2, s=3)
    for model in (KAnonymity(3), LDiversity(2), TCloseness(0.2, OrderedDistance())):
        a = _same_as_brute_force(rt, model)
        b = _same_as_brute_force(expanded(rt), model)
        assert a == b


def test_two_sensitive_columns() -> None:
    for seed in range(4):
        rt = two_sensitive_table(seed, 7)
        for model in (LDiversity(2), DistinctLDiversity(2), TCloseness(0.4)):
            _same_as_brute_force(rt, model)


def test_k_anonymity_without_sensitive_column() -> None:
    for seed in range(6):
        rt = random_table(seed, 4 + seed, m=3, values=3)
        for k in (1, 2, 3, 4):
            _same_as_brute_force(rt, KAnonymity(k))


@pytest.mark.parametrize("n", [1, 2, 5, 12, 63])
def test_lemma1_sizes_are_k_anonymity(n: int) -> None:
    """Lemma 1: a group of r of n rows with distinct sensitive values has EMD 1 - r/n to the
    table under the equal distance, so it is (1 - k/n)-close iff r >= k."""
    r = np.arange(n + 1)
    for k in range(1, n + 1):
        want = (r >= k) | (r == 0)
        assert np.array_equal(balanced_split.lemma1_feasible_sizes(k, n), want)


def test_hand_example() -> None:
    # (0,0) x2, (0,1), (1,1) x2 under 2-anonymity: optimum 3 stars (brute-force test too)
    rt = from_rows([[0, 0], [0, 0], [0, 1], [1, 1], [1, 1]])
    plan = balanced_split.solve(rt, KAnonymity(2))
    assert plan.stars == 3
    assert sorted(plan.class_sizes.tolist()) == [2, 3]
    assert plan.method == "balanced-split" and plan.guarantee.kind == "exact"


def test_beyond_brute_force_on_a_tight_model() -> None:
    """18 distinct rows, three sensitive values six times each, 3-diversity: brute force
    refuses (2^18 sub-tables); only sub-tables holding the three values equally often are
    feasible, so the recursion is small. Any release keeps every class at 1/3 of each value,
    so classes are of 3, 6, ... rows; the plan verifies and its stars are at least the
    lower bound of a class of 3 (each row has a star unless its class is one row type)."""
    rng = np.random.default_rng(18)
    X = rng.permutation(np.array([[a, b, c, e] for a in range(3) for b in range(3)
                                  for c in range(2) for e in range(1)]))[:18]
    rt = RowTypes.from_arrays(X, np.arange(18) % 3)
    model = LDiversity(3)
    assert brute_force.supports(model, rt) is not None
    assert balanced_split.supports(model, rt) is None
    plan = balanced_split.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    assert (plan.class_sizes % 3 == 0).all()
    assert plan.stars >= 18  # every row differs from the others of its class somewhere


def test_refusals_name_the_limit() -> None:
    rt = from_rows([[i, i % 3] for i in range(64)])
    reason = balanced_split.supports(KAnonymity(2), rt)
    assert reason is not None and "n = 64" in reason and "--method auto" in reason
    with pytest.raises(SolverLimit, match="n <= 63"):
        balanced_split.solve(rt, KAnonymity(2))
    rt20 = from_rows([[i, i % 3] for i in range(20)])
    reason = balanced_split.supports(KAnonymity(2), rt20)
    assert reason is not None and "n = 20 rows" in reason


def test_rejects_foreign_model_and_options() -> None:
    class Odd:
        name = "odd"
        uses_sensitive = False

    rt = random_table(0, 4)
    reason = balanced_split.supports(Odd(), rt)  # type: ignore[arg-type]
    assert reason is not None and "odd" in reason
    with pytest.raises(InvalidInput, match="no options"):
        balanced_split.solve(rt, KAnonymity(2), fast=True)


def test_infeasible() -> None:
    with pytest.raises(Infeasible):
        balanced_split.solve(random_table(1, 4), KAnonymity(5))


def test_deterministic() -> None:
    rt = random_table(7, 9, m=3, values=2, s=3)
    a = balanced_split.solve(rt, TCloseness(0.3))
    b = balanced_split.solve(rt, TCloseness(0.3))
    assert a.outputs.tolist() == b.outputs.tolist() and a.count.tolist() == b.count.tolist()
