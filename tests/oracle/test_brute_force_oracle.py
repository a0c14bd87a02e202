"""Brute force (exact DP) equals an independent enumeration of all set partitions of the rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytest
from numpy.typing import NDArray

from starmin.algorithms.exact import brute_force
from starmin.errors import Infeasible
from starmin.models import Evaluation, KAnonymity
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


@dataclass(frozen=True)
class AtLeastLValues:
    """Test-only sensitive model (distinct l-diversity): >= l distinct sensitive values per
    class. It exercises the DP over (row type, sensitive key) cells independently of the
    project's model implementations."""

    l: int

    @property
    def name(self) -> str:
        return f"at-least-{self.l}-values"

    @property
    def uses_sensitive(self) -> bool:
        return True

    def evaluate(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
                 values: Sequence[object]) -> Evaluation:
        distinct = (np.asarray(hist) > 0).sum(axis=1)
        return Evaluation(distinct >= self.l, distinct.astype(np.float64), "distinct", True)

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        if (np.asarray(overall) > 0).sum() < self.l:
            raise Infeasible(f"fewer than {self.l} sensitive values: lower l")


@pytest.mark.parametrize("seed", range(40))
def test_sensitive_model_equals_naive(seed: int) -> None:
    n = 4 + seed % 5  # 4..8 rows
    rt = random_table(2000 + seed, n, m=3, values=[2, 2, 3], s=3)
    model = AtLeastLValues(2 + seed % 2)
    plan = brute_force.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    assert plan.stars == naive_optimum(rt, model)


def test_infeasible_sensitive_model() -> None:
    rt = random_table(5, 6, m=2, values=2, s=2)
    with pytest.raises(Infeasible):
        brute_force.solve(rt, AtLeastLValues(3))
