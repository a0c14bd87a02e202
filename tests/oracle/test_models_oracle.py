"""Brute force equals the naive set-partition enumeration for every privacy model.

Covers l-diversity (frequency, distinct, entropy, recursive), t-closeness under each ground
distance, p-sensitive k-anonymity, conjunctions, and a table with two sensitive columns.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
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
from tests.helpers.naive import naive_optimum
from tests.helpers.tables import random_table, satisfies, two_sensitive_table

# sensitive codes are 0, 1, 2 (three values)
HIERARCHY = HierarchicalDistance((("0", "a", "*"), ("1", "a", "*"), ("2", "b", "*")))
MATRIX = MatrixDistance([[0, 0.5, 1], [0.5, 0, 0.7], [1, 0.7, 0]])

MODELS: dict[str, Callable[[], PrivacyModel]] = {
    "2-diversity": lambda: LDiversity(2),
    "distinct-2": lambda: DistinctLDiversity(2),
    "entropy-2": lambda: EntropyLDiversity(2),
    "recursive-(2,2)": lambda: RecursiveCLDiversity(2, 2),
    "recursive-(1.5,2)": lambda: RecursiveCLDiversity(1.5, 2),
    "0.3-closeness-equal": lambda: TCloseness(0.3),
    "0.2-closeness-ordered": lambda: TCloseness(0.2, OrderedDistance()),
    "0.25-closeness-hierarchical": lambda: TCloseness(0.25, HIERARCHY),
    "0.3-closeness-matrix": lambda: TCloseness(0.3, MATRIX),
    "2-sensitive-3-anonymity": lambda: PSensitiveKAnonymity(2, 3),
    "3-anonymity+2-diversity": lambda: AllOf(KAnonymity(3), LDiversity(2)),
}


def _table(seed: int) -> RowTypes:
    return random_table(3000 + seed, 5 + seed % 4, m=3, values=[2, 2, 3], s=3)  # 5..8 rows


@functools.cache
def _naive(name: str, seed: int) -> int | None:
    return naive_optimum(_table(seed), MODELS[name]())


def _check(rt: RowTypes, model: PrivacyModel, expected: int | None) -> None:
    """Brute force on ``rt`` gives ``expected`` stars (None: raises Infeasible)."""
    if expected is None:
        with pytest.raises(Infeasible):
            brute_force.solve(rt, model)
        return
    plan = brute_force.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    assert plan.stars == plan.lower_bound == expected


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("seed", range(6))
def test_model_equals_naive(name: str, seed: int) -> None:
    _check(_table(seed), MODELS[name](), _naive(name, seed))


@pytest.mark.parametrize("seed", range(6))
def test_two_sensitive_columns_equal_naive(seed: int) -> None:
    rt = two_sensitive_table(4000 + seed, 5 + seed % 4)
    for model in (AllOf(KAnonymity(2), TCloseness(0.5)), DistinctLDiversity(2)):
        _check(rt, model, naive_optimum(rt, model))


@pytest.mark.parametrize("seed", range(4))
def test_3_diversity_on_balanced_values_equals_naive(seed: int) -> None:
    # random sensitive values are rarely 3-diverse as a whole; cycle them instead
    rng = np.random.default_rng(5000 + seed)
    n = 6 + 3 * (seed % 2)  # 6 or 9 rows
    rt = RowTypes.from_arrays(rng.integers(0, 2, size=(n, 3)), np.arange(n) % 3)
    _check(rt, LDiversity(3), naive_optimum(rt, LDiversity(3)))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_instances_are_not_trivial(name: str) -> None:
    # guard: for every model some instance above is feasible and needs stars
    costs = [_naive(name, seed) for seed in range(6)]
    assert any(c for c in costs), costs
