"""Unit tests of the exact brute force (src/starmin/algorithms/exact/brute_force.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from starmin.algorithms.exact import brute_force
from starmin.errors import Infeasible, SolverLimit, StarminError
from starmin.models import Evaluation, KAnonymity
from starmin.transform.plan import STAR
from tests.helpers.tables import from_rows, random_table, satisfies


def test_registered_entry() -> None:
    a = brute_force.ALGORITHM
    assert a.name == "brute-force"
    assert a.guarantee.kind == "exact"


def test_plan_is_exact_valid_and_optimal_by_hand() -> None:
    # two rows (0,0), one row (0,1), two rows (1,1); 2-anonymity.
    # {(0,0),(0,0)} and {(0,1),(1,1),(1,1)} would cost 3 x 2 = 6; the optimum puts (0,1)
    # with the (0,0) pair or the (1,1) pair: 3 rows x 1 star = 3.
    rt = from_rows([[0, 0], [0, 0], [0, 1], [1, 1], [1, 1]])
    plan = brute_force.solve(rt, KAnonymity(2))
    plan.validate(rt)
    assert satisfies(plan, rt, KAnonymity(2))
    assert plan.stars == 3
    assert plan.lower_bound == 3
    assert plan.guarantee.kind == "exact"
    assert plan.method == "brute-force"
    assert sorted(plan.class_sizes.tolist()) == [2, 3]


def test_k1_needs_no_star() -> None:
    rt = random_table(3, 10, m=3, values=3)
    assert brute_force.solve(rt, KAnonymity(1)).stars == 0


def test_k_equal_n_suppresses_every_differing_column() -> None:
    rt = from_rows([[0, 5, 1], [0, 6, 1], [0, 7, 2]])
    plan = brute_force.solve(rt, KAnonymity(3))
    assert plan.stars == 3 * 2
    assert plan.outputs.tolist() == [[0, STAR, STAR]]


def test_infeasible_when_k_exceeds_n() -> None:
    rt = random_table(1, 4)
    with pytest.raises(Infeasible, match="use at most k=4"):
        brute_force.solve(rt, KAnonymity(5))


def test_size_limit_reason_and_error() -> None:
    rt = from_rows([[i, i % 3] for i in range(17)])  # 17 distinct rows: 2^17 sub-tables
    reason = brute_force.supports(KAnonymity(2), rt)
    assert reason is not None and "brute force is limited" in reason and "17 rows" in reason
    with pytest.raises(SolverLimit):
        brute_force.solve(rt, KAnonymity(2))


def test_sixteen_distinct_rows_supported() -> None:
    rt = from_rows([[i, i % 3] for i in range(16)])
    assert brute_force.supports(KAnonymity(2), rt) is None


def test_repeated_rows_extend_the_limit() -> None:
    # 60 rows but only 3 row types of 20 rows: 21^3 = 9261 sub-tables
    rt = from_rows([[0, 0]] * 20 + [[0, 1]] * 20 + [[1, 1]] * 20)
    assert brute_force.supports(KAnonymity(25), rt) is None
    plan = brute_force.solve(rt, KAnonymity(25))
    plan.validate(rt)
    assert satisfies(plan, rt, KAnonymity(25))
    # No row type has 25 rows, so every row gets >= 1 star (>= 60). Splitting (0,1) achieves
    # 60: 5 of its rows join (0,0) as (0,*), the other 15 join (1,1) as (*,1).
    assert plan.stars == 60
    assert sorted(plan.outputs.tolist()) == [[STAR, 1], [0, STAR]]


def test_sensitive_keys_are_kept_in_the_plan() -> None:
    rt = random_table(7, 9, m=2, values=2, s=3)
    plan = brute_force.solve(rt, KAnonymity(3))
    plan.validate(rt)  # every (row type, key) count is released exactly once
    assert np.array_equal(plan.class_key_counts(rt.s).sum(axis=0), rt.counts.sum(axis=0))


class _PairsOfTwoValues:
    """Exactly 2 rows with 2 distinct sensitive values: not closed under union, so the brute
    force must refuse rather than return a release that fails the model."""

    name = "pairs-of-two-values"
    uses_sensitive = True

    def evaluate(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
                 values: Sequence[object]) -> Evaluation:
        h = np.asarray(hist)
        ok = (h.sum(axis=1) == 2) & ((h > 0).sum(axis=1) == 2)
        return Evaluation(ok, h.sum(axis=1).astype(np.float64), "class size", True)

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        return None


def test_model_not_closed_under_union_is_reported() -> None:
    # the only feasible partition is {(0,0),(0,1)}, {(0,0),(0,2)}: both release (0, *), one
    # class of 4 rows that fails the model
    rt = from_rows([[0, 0], [0, 0], [0, 1], [0, 2]], sa=[0, 0, 1, 1])
    with pytest.raises(StarminError, match="not closed under union"):
        brute_force.solve(rt, _PairsOfTwoValues())
