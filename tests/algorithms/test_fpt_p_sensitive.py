"""fpt-p-sensitive: Algorithm 1 with p-ROW ASSIGNMENT (Bredereck et al., Lemma 3, Theorem 4).

Oracle: the exact brute force (a DP over sub-multisets of (row type, sensitive value) cells);
with p = 1 the k-anonymity flow (Lemma 1)."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.algorithms.exact import brute_force
from starmin.algorithms.fpt import k_anonymity, p_sensitive
from starmin.algorithms.fpt.candidates import candidates
from starmin.algorithms.fpt.p_row_assignment import PRowAssignment
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput, SolverLimit
from starmin.models import AllOf, KAnonymity, LDiversity, PSensitiveKAnonymity
from starmin.models.base import PrivacyModel
from starmin.transform.plan import STAR, ReleasePlan
from tests.helpers.tables import random_table, satisfies, two_sensitive_table


def _table(seed: int, t_in: int, m: int, s: int, top: int) -> RowTypes:
    """``t_in`` QI vectors with 1..top rows each, sensitive values ``0..s-1`` at random."""
    rng = np.random.default_rng(seed)
    X = np.unique(rng.integers(0, 3, size=(4 * t_in, m)), axis=0)
    X = X[rng.permutation(len(X))[:t_in]]
    rows = np.repeat(X, rng.integers(1, top + 1, size=len(X)), axis=0)
    return RowTypes.from_arrays(rows, rng.integers(0, s, size=len(rows)))


def _check(rt: RowTypes, model: PrivacyModel) -> ReleasePlan:
    plan = p_sensitive.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    assert plan.lower_bound == plan.stars
    assert plan.t_out <= rt.t_in  # Lemma 2 holds for p-sensitivity too
    return plan


@pytest.mark.parametrize("seed", range(120))
def test_equals_brute_force_on_random_tables(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 12)), int(rng.integers(1, 4))
    rt = random_table(seed, n, m=m, values=int(rng.integers(2, 4)), s=int(rng.integers(2, 5)))
    model = PSensitiveKAnonymity(int(rng.integers(1, 4)), int(rng.integers(1, 5)))
    if brute_force.supports(model, rt) is not None:
        pytest.skip("beyond brute force")
    try:
        opt = brute_force.solve(rt, model).stars
    except Infeasible:
        with pytest.raises(Infeasible):
            p_sensitive.solve(rt, model)
        return
    assert _check(rt, model).stars == opt


@pytest.mark.parametrize("seed", range(25))
def test_equals_brute_force_with_repeated_rows(seed: int) -> None:
    rng = np.random.default_rng(500 + seed)
    rt = _table(seed, int(rng.integers(2, 5)), int(rng.integers(2, 4)), 3, 4)
    model = PSensitiveKAnonymity(int(rng.integers(2, 4)), int(rng.integers(2, 6)))
    if brute_force.supports(model, rt) is not None:
        pytest.skip("beyond brute force")
    try:
        opt = brute_force.solve(rt, model).stars
    except Infeasible:
        pytest.skip("infeasible")
    assert _check(rt, model).stars == opt


@pytest.mark.parametrize("seed", range(10))
def test_conjunctions_with_k_anonymity(seed: int) -> None:
    rt = random_table(700 + seed, 10, m=2, values=3, s=3)
    model = AllOf(KAnonymity(3), PSensitiveKAnonymity(2, 2))
    try:
        opt = brute_force.solve(rt, model).stars
    except Infeasible:
        pytest.skip("infeasible")
    plan = _check(rt, model)
    assert plan.stars == opt and plan.certificate["k"] == 3 and plan.certificate["p"] == 2


@pytest.mark.parametrize("seed", range(8))
def test_p_equal_1_is_k_anonymity(seed: int) -> None:
    """p = 1 asks nothing of the values: the Lemma 3 network then solves Lemma 1's problem."""
    rt = _table(800 + seed, 9, 4, 3, 12)
    a = _check(rt, PSensitiveKAnonymity(1, 6)).stars
    assert a == k_anonymity.solve(rt, KAnonymity(6)).stars


def test_figure_4_network() -> None:
    """The instance of Fig. 4 (Sec. 4.3): two input row types, each with private values 1, 2
    and 3; two guessed output row types with a(1,1) = a(2,1) = a(2,2) = 1, a(1,2) = 0.

    R1 = (0,0), R2 = (0,1): output 1 is their suppressor (0,*) (omega = 1), output 2 is R2
    itself (omega = 0). With p = k = 3, output 2 takes R2's three rows (three values) and
    output 1 R1's three: 3 stars. With p = k = 4 output 2 cannot have 4 rows: no assignment."""
    rt = RowTypes.from_arrays(np.array([[0, 0]] * 3 + [[0, 1]] * 3), np.array([1, 2, 3] * 2))
    for p, want in ((3, 3), (4, None)):
        cand = candidates(rt.codes, rt.sizes, 1, rt.counts, 1)
        out1 = cand.vectors.tolist().index([0, STAR])
        out2 = cand.vectors.tolist().index([0, 1])
        guess = np.zeros(cand.count, dtype=bool)
        guess[[out1, out2]] = True
        got = PRowAssignment(rt.counts, cand, p, p).solve(guess, guess)
        assert (None if got is None else got.cost) == want
        if got is not None:
            assert got.rows[out1] == got.rows[out2] == 3


def test_a_class_needs_p_values_not_only_k_rows() -> None:
    # (0,*) would do for 2-anonymity alone, but (0,0) and (0,1) each hold only value 0
    rt = RowTypes.from_arrays(np.array([[0, 0], [0, 0], [0, 1], [0, 1], [1, 1]]),
                              np.array([0, 0, 0, 0, 1]))
    plan = _check(rt, PSensitiveKAnonymity(2, 2))
    assert plan.stars == brute_force.solve(rt, PSensitiveKAnonymity(2, 2)).stars
    assert k_anonymity.solve(rt, KAnonymity(2)).stars < plan.stars


def test_restricted_to_t_out_classes() -> None:
    rt = _table(17, 8, 3, 3, 6)
    model = PSensitiveKAnonymity(2, 4)
    opt = _check(rt, model)
    costs = [p_sensitive.solve(rt, model, max_t_out=t).stars for t in range(1, rt.t_in)]
    assert all(a >= b for a, b in pairwise(costs))
    assert costs[opt.t_out - 1] == opt.stars
    one = p_sensitive.solve(rt, model, max_t_out=1)
    assert one.t_out == 1 and one.lower_bound is None and one.certificate["restricted"]


# -- limits and errors ---------------------------------------------------------------------


def test_supports_names_t_in_and_refuses_other_tables_and_models() -> None:
    n = p_sensitive.LIMITS.max_t_in + 1
    wide = RowTypes.from_arrays(np.arange(n)[:, None], np.arange(n) % 3)
    reason = p_sensitive.supports(PSensitiveKAnonymity(2, 2), wide)
    assert reason is not None and "t_in" in reason and "--method auto" in reason
    assert str(p_sensitive.LIMITS.max_t_in) in reason
    two = two_sensitive_table(1, 10)
    reason = p_sensitive.supports(PSensitiveKAnonymity(2, 2), two)
    assert reason is not None and "one sensitive column" in reason
    reason = p_sensitive.supports(LDiversity(2), random_table(1, 8, s=2))
    assert reason is not None and "p-sensitive k-anonymity only" in reason
    with pytest.raises(InvalidInput):
        starmin.solve(two, PSensitiveKAnonymity(2, 2), "fpt-p-sensitive")


def test_infeasible_and_missing_sensitive_column() -> None:
    rt = random_table(3, 8, s=2)
    with pytest.raises(Infeasible, match="distinct"):
        p_sensitive.solve(rt, PSensitiveKAnonymity(3, 3))
    with pytest.raises(InvalidInput, match="sensitive"):
        p_sensitive.solve(random_table(3, 8), PSensitiveKAnonymity(2, 2))


def test_work_limit() -> None:
    rt = _table(5, 12, 6, 3, 3)
    with pytest.raises(SolverLimit, match="max_nodes"):
        p_sensitive.solve(rt, PSensitiveKAnonymity(2, 3), max_nodes=2)


def test_report_records_t_in_and_t_out() -> None:
    rng = np.random.default_rng(4)
    df = pl.DataFrame({"a": rng.integers(0, 3, 300), "b": rng.integers(0, 3, 300),
                       "s": [["x", "y", "z"][i] for i in rng.integers(0, 3, 300)]})
    rel = starmin.anonymize(df, qi="a,b", sensitive="s", k=30, p=3,
                            method="fpt-p-sensitive")
    rep = rel.report
    assert rep["verified"] and rep["method"] == "fpt-p-sensitive"
    assert rep["guarantee"]["parameter"] == "t_in"
    assert rep["certificate"]["t_in"] == rep["input"]["t_in"]
    assert rep["certificate"]["t_out"] == rep["classes"]["count"]
    assert rep["certificate"]["p"] == 3 and rep["certificate"]["k"] == 30
