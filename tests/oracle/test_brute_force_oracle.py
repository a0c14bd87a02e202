"""Brute force (exact DP) equals an independent enumeration of all set partitions of the rows."""

from __future__ import annotations

import pytest

from starmin.algorithms.exact import brute_force
from starmin.models import KAnonymity
from tests.helpers.naive import naive_optimum
from tests.helpers.tables import random_table, satisfies


@pytest.mark.parametrize("seed", range(40))
def test_k_anonymity_equals_naive(seed: int) -> None:
    n = 4 + seed % 5  # 4..8 rows
    k = 1 + seed % 4
    rt = random_table(seed, n, m=3, values=[2, 3, 2], s=2 if seed % 2 else None)
    model = KAnonymity(k)
    plan = brute_force.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    assert plan.stars == naive_optimum(rt, model)
    assert plan.lower_bound == plan.stars


@pytest.mark.parametrize("seed", range(40))
def test_k_anonymity_many_repeated_rows(seed: int) -> None:
    # few distinct QI vectors: optimal partitions reuse the same group vector several times
    n = 5 + seed % 4  # 5..8 rows
    k = 2 + seed % 3
    rt = random_table(1000 + seed, n, m=2, values=[2, 3], s=None)
    model = KAnonymity(k)
    plan = brute_force.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    assert plan.stars == naive_optimum(rt, model)
