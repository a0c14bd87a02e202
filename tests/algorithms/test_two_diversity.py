"""Exact 2-diversity: two-diversity-flow (two sensitive values) and two-diversity-milp (any).

Oracles: the exact brute force (a DP over sub-multisets), an independent enumeration of all
set partitions of the rows (tests.helpers.naive), and for larger two-valued tables a row-level
assignment problem (scipy's linear_sum_assignment on the expanded rows).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from starmin.algorithms.exact import brute_force
from starmin.algorithms.exact import two_diversity_flow as flow
from starmin.algorithms.exact import two_diversity_milp as milp
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput, SolverLimit
from starmin.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LDiversity,
    RecursiveCLDiversity,
)
from starmin.models.base import PrivacyModel
from starmin.transform.plan import STAR, ReleasePlan
from tests.helpers.naive import naive_optimum
from tests.helpers.tables import (
    expanded,
    from_rows,
    permuted,
    random_table,
    satisfies,
    two_sensitive_table,
)

L2 = LDiversity(2)


def balanced(seed: int, half: int, m: int = 3, values: int = 2) -> RowTypes:
    """``2 * half`` random rows, exactly ``half`` of each of the sensitive values 0 and 1."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(2 * half, m))
    sa = rng.permutation(np.repeat([0, 1], half))
    return RowTypes.from_arrays(X, sa)


def eligible(seed: int, n: int, m: int, values: int, s: int) -> RowTypes:
    """A random 2-eligible table (no value on more than half of the rows)."""
    for k in range(1000):
        rt = random_table(seed * 1000 + k, n, m=m, values=values, s=s)
        tot = rt.counts.sum(axis=0)
        if 2 * tot.max() <= tot.sum():
            return rt
    raise AssertionError("no 2-eligible table found")


def check(plan: ReleasePlan, rt: RowTypes) -> None:
    """Every output is a valid release, 2-diverse, and proves its own optimality."""
    plan.validate(rt)
    assert satisfies(plan, rt, L2)
    assert plan.lower_bound == plan.stars
    assert plan.guarantee.kind == "exact"


def assignment_optimum(rt: RowTypes) -> int:
    """Min-cost perfect matching of the value-0 rows with the value-1 rows, row by row."""
    _, key, codes = rt.expand()
    a, b = codes[key == 0], codes[key == 1]
    cost = 2 * (a[:, None, :] != b[None, :, :]).sum(axis=2)
    r, c = linear_sum_assignment(cost)
    return int(cost[r, c].sum())


# -- registry entries --------------------------------------------------------------------------
def test_registered_entries() -> None:
    assert flow.ALGORITHM.name == "two-diversity-flow"
    assert milp.ALGORITHM.name == "two-diversity-milp"
    for mod in (flow, milp):
        assert mod.ALGORITHM.guarantee.kind == "exact"
        assert "Lemma 2" in mod.ALGORITHM.guarantee.reference
        assert mod.ALGORITHM.supports(L2, balanced(0, 3)) is None


# -- oracles -----------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(60))
def test_flow_equals_brute_force(seed: int) -> None:
    rt = balanced(seed, 1 + seed % 7, m=1 + seed % 4, values=2 + seed % 3)  # 2..14 rows
    plan = flow.solve(rt, L2)
    check(plan, rt)
    assert plan.stars == brute_force.solve(rt, L2).stars
    assert plan.certificate["dual_objective"] == plan.stars  # the flow's dual certificate


@pytest.mark.parametrize("seed", range(80))
def test_milp_equals_brute_force(seed: int) -> None:
    s = 2 + seed % 4  # 2..5 sensitive values
    n = 3 + seed % 10  # 3..12 rows (even with two values)
    rt = eligible(seed, n + n % 2 if s == 2 else n, m=1 + seed % 3, values=2 + seed % 2, s=s)
    plan = milp.solve(rt, L2)
    check(plan, rt)
    assert plan.stars == brute_force.solve(rt, L2).stars


@pytest.mark.parametrize("seed", range(25))
def test_both_equal_an_independent_partition_enumeration(seed: int) -> None:
    rt = eligible(500 + seed, 4 + 2 * (seed % 3), m=2, values=3, s=2 + seed % 3)  # 4..8 rows
    best = naive_optimum(rt, L2)
    assert milp.solve(rt, L2).stars == best
    if (rt.counts.sum(axis=0) > 0).sum() == 2:
        assert flow.solve(rt, L2).stars == best


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("dense", [True, False])
def test_flow_equals_row_assignment(seed: int, dense: bool, monkeypatch: pytest.MonkeyPatch
                                    ) -> None:
    if not dense:  # force arc generation with pricing even on small residuals
        monkeypatch.setattr(flow, "DENSE_PAIRS", 0)
    rt = balanced(100 + seed, 20 + 25 * seed, m=2 + seed % 5, values=2 + seed % 4)
    plan = flow.solve(rt, L2)
    check(plan, rt)
    assert plan.stars == assignment_optimum(rt)
    assert plan.certificate["dual_objective"] == plan.stars


def test_pricing_adds_arcs(monkeypatch: pytest.MonkeyPatch) -> None:
    # with arc generation forced, a table with many residual row types needs several rounds:
    # the optimum is still the row-level assignment's
    monkeypatch.setattr(flow, "DENSE_PAIRS", 0)
    rt = balanced(7, 300, m=6, values=3)
    plan = flow.solve(rt, L2)
    assert plan.certificate["pricing_rounds"] >= 2
    assert plan.stars == assignment_optimum(rt)


@pytest.mark.parametrize("seed", range(8))
def test_flow_equals_milp_on_two_values(seed: int) -> None:
    rt = balanced(200 + seed, 15 + 5 * seed, m=3, values=3)
    a, b = flow.solve(rt, L2), milp.solve(rt, L2)
    check(a, rt)
    check(b, rt)
    assert a.stars == b.stars


def test_milp_widens_its_window_when_the_lp_bound_is_not_reached() -> None:
    # the LP bound is 83 but the optimum 84: the first reduced MILP has no plan of cost <= 83
    rng = np.random.default_rng(100)
    rt = RowTypes.from_arrays(rng.integers(0, 3, size=(100, 5)), rng.integers(0, 5, size=100))
    plan = milp.solve(rt, L2)
    check(plan, rt)
    assert plan.certificate["lp_bound"] < plan.stars
    assert plan.certificate["fixing_rounds"] >= 2
    cert = plan.certificate
    assert cert["kept_pairs"] + cert["kept_triples"] < cert["pair_types"] + cert["triple_types"]


# -- by hand -----------------------------------------------------------------------------------
def test_pairs_inside_a_row_type_cost_nothing() -> None:
    rt = from_rows([[0, 0], [0, 0], [1, 1], [1, 1]], sa=[0, 1, 0, 1])
    for mod in (flow, milp):
        plan = mod.solve(rt, L2)
        check(plan, rt)
        assert plan.stars == 0
        assert sorted(plan.class_sizes.tolist()) == [2, 2]
        assert (plan.outputs != STAR).all()
    cert = flow.solve(rt, L2).certificate
    assert cert["same_type_pairs"] == 2 and cert["residual_types"] == [0, 0]


def test_flow_by_hand() -> None:
    # A rows (0,0,0), (1,1,0); B rows (0,0,1), (1,1,1): pair by the first two columns,
    # one star each in column 3 -> 2 pairs x 2 rows x 1 star = 4 (crossing pairs cost 12)
    rt = from_rows([[0, 0, 0], [1, 1, 0], [0, 0, 1], [1, 1, 1]], sa=[0, 0, 1, 1])
    plan = flow.solve(rt, L2)
    check(plan, rt)
    assert plan.stars == 4
    assert plan.certificate["same_type_pairs"] == 0
    assert plan.certificate["residual_types"] == [2, 2]


def test_milp_needs_a_triple() -> None:
    # values x, y, z once each: only the triple is 2-diverse; two of its rows share
    # row type (0, 0), the third differs in column 2 -> 3 rows x 1 star
    rt = from_rows([[0, 0], [0, 0], [0, 1]], sa=[0, 1, 2])
    plan = milp.solve(rt, L2)
    check(plan, rt)
    assert plan.stars == 3
    assert plan.class_sizes.tolist() == [3]


def test_a_self_diverse_row_type_may_have_to_lend_its_rows() -> None:
    # i = (0,0) holds x and y (2-diverse on its own), j = (1,1) and k = (1,0) hold z each.
    # Keeping i alone leaves {z, z}: infeasible. Optimum: {i_x, j_z} (2 x 2) + {i_y, k_z}
    # (2 x 1) = 6, or the mirror image; the whole table as one class costs 8.
    rt = from_rows([[0, 0], [0, 0], [1, 1], [1, 0]], sa=[0, 1, 2, 2])
    plan = milp.solve(rt, L2)
    check(plan, rt)
    assert plan.stars == 6 == brute_force.solve(rt, L2).stars


def test_three_values_in_one_row_type_cost_nothing() -> None:
    rt = from_rows([[1, 2]] * 3 + [[0, 0]] * 2, sa=[0, 1, 2, 0, 1])
    plan = milp.solve(rt, L2)
    check(plan, rt)
    assert plan.stars == 0


# -- invariances -------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_row_order_codes_and_weights_do_not_matter(seed: int) -> None:
    two = balanced(300 + seed, 12, m=3, values=3)
    many = eligible(300 + seed, 14, m=3, values=2, s=4)
    for mod, rt in ((flow, two), (milp, two), (milp, many)):
        stars = mod.solve(rt, L2).stars
        for other in (permuted(rt, seed), expanded(rt)):
            plan = mod.solve(other, L2)
            check(plan, other)
            assert plan.stars == stars


# -- refusals and limits -----------------------------------------------------------------------
@pytest.mark.parametrize("model", [KAnonymity(2), LDiversity(3), DistinctLDiversity(2),
                                   EntropyLDiversity(2), RecursiveCLDiversity(3, 2)])
def test_other_models_are_refused(model: PrivacyModel) -> None:
    rt = balanced(1, 4)
    for mod in (flow, milp):
        reason = mod.supports(model, rt)
        assert reason is not None and "frequency 2-diversity" in reason
        with pytest.raises(InvalidInput, match="frequency 2-diversity"):
            mod.solve(rt, model)


def test_one_sensitive_column_is_required() -> None:
    none = random_table(1, 6, m=2)
    two = two_sensitive_table(1, 8)
    for mod in (flow, milp):
        for rt in (none, two):
            reason = mod.supports(L2, rt)
            assert reason is not None and "exactly one sensitive column" in reason
            with pytest.raises(InvalidInput, match="exactly one sensitive column"):
                mod.solve(rt, L2)


def test_flow_refuses_more_than_two_values() -> None:
    rt = eligible(3, 9, m=2, values=2, s=3)
    reason = flow.supports(L2, rt)
    assert reason is not None and "use two-diversity-milp" in reason
    with pytest.raises(InvalidInput, match="exactly two sensitive values"):
        flow.solve(rt, L2)


@pytest.mark.parametrize("seed", range(10))
def test_tables_that_are_not_2_eligible_are_infeasible(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 3 + seed
    big = n // 2 + 1  # value 0 on more than half of the rows
    sa = rng.permutation(np.concatenate([np.zeros(big, int), rng.integers(1, 3, n - big)]))
    rt = RowTypes.from_arrays(rng.integers(0, 2, size=(n, 2)), sa)
    with pytest.raises(Infeasible):
        brute_force.solve(rt, L2)
    mods = (flow, milp) if len(np.unique(sa)) <= 2 else (milp,)
    for mod in mods:
        with pytest.raises(Infeasible, match=rf"no l-diverse release exists \(l = 2\): value 0 "
                                             rf"of 'S' has frequency {big}/{n} > 1/2"):
            mod.solve(rt, L2)


def test_unequal_counts_of_two_values_are_infeasible() -> None:
    # Xiao et al. Sec. 4: with two values a 2-diverse release needs |S1| = |S2|
    rt = from_rows([[0], [1], [0], [1], [0]], sa=[0, 1, 0, 1, 1])
    with pytest.raises(Infeasible, match="value 1 of 'S' has frequency 3/5 > 1/2"):
        flow.solve(rt, L2)


def test_flow_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = balanced(5, 30, m=4, values=3)
    monkeypatch.setattr(flow, "MAX_RESIDUAL_PAIRS", 3)
    reason = flow.supports(L2, rt)
    assert reason is not None and "size limit 3" in reason
    with pytest.raises(SolverLimit, match="residual row-type pairs exceed its size limit"):
        flow.solve(rt, L2)


def test_milp_size_limit_and_group_type_count() -> None:
    rt = eligible(9, 12, m=2, values=3, s=4)
    st, sk, _ = milp._slots(rt)
    pairs = sum(1 for a, b in itertools.combinations(sk, 2) if a != b)
    triples = sum(1 for t in itertools.combinations(sk, 3) if len(set(t)) == 3)
    assert milp.group_type_count(rt) == (pairs, triples)
    assert milp.supports(L2, rt) is None
    reason = milp.supports(L2, rt, max_slots=len(st) - 1)
    assert reason is not None and f"{len(st)} non-empty (row type, value) slots" in reason
    assert f"{pairs} pair and {triples} triple group types" in reason
    with pytest.raises(SolverLimit, match="exceed its size limit"):
        milp.solve(rt, L2, max_slots=len(st) - 1)
    cert = milp.solve(rt, L2).certificate
    assert (cert["pair_types"], cert["triple_types"]) == (pairs, triples)


@pytest.mark.parametrize(("seed", "m"), [(1, 3), (2, 64), (3, 70), (4, 130)])
def test_triple_scan_costs_every_triple(seed: int, m: int) -> None:
    # bit masks of 64-bit words: m = 64, 70 and 130 columns need one, two and three words
    rt = eligible(seed, 14, m=m, values=2, s=4)
    st, sk, _ = milp._slots(rt)
    codes = rt.codes[st]
    iu, iv, pcost = milp._pairs(codes, sk)
    assert pcost.tolist() == [2 * int((codes[a] != codes[b]).sum())
                              for a, b in zip(iu, iv, strict=True)]
    pi = np.random.default_rng(seed).normal(size=len(sk))
    tri, cost, rc, neg = milp._scan_triples(codes, sk, iu, iv, pi, np.inf)
    want = {(a, b, c): 3 * int((~((codes[a] == codes[b]) & (codes[a] == codes[c]))).sum())
            for a, b, c in itertools.combinations(range(len(sk)), 3)
            if len({sk[a], sk[b], sk[c]}) == 3}
    assert {tuple(t): int(x) for t, x in zip(tri.tolist(), cost, strict=True)} == want
    assert np.allclose(rc, cost - pi[tri].sum(axis=1))
    assert neg == pytest.approx(float(np.minimum(rc, 0).sum()))
    plan = milp.solve(rt, L2)
    check(plan, rt)
    assert plan.stars == brute_force.solve(rt, L2).stars


def test_milp_raises_when_highs_does_not_prove_optimality(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    import scipy.optimize

    real = scipy.optimize.milp  # the solver module imports it when it solves

    def stopped(*args: object, **kwargs: object) -> object:
        res = real(*args, **kwargs)
        res.status, res.message = 1, "Time limit reached"
        return res

    monkeypatch.setattr(scipy.optimize, "milp", stopped)
    with pytest.raises(SolverLimit, match="did not prove an optimum"):
        milp.solve(eligible(2, 8, m=2, values=2, s=3), L2)


def test_unknown_options_are_refused() -> None:
    with pytest.raises(InvalidInput, match="takes no options"):
        milp.solve(balanced(0, 3), L2, colour="blue")
    with pytest.raises(InvalidInput, match="takes only max_rounds, not \\['colour'\\]"):
        flow.solve(balanced(0, 3), L2, colour="blue")


def test_a_table_without_rows_needs_no_stars() -> None:
    rt = RowTypes.from_arrays(np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64))
    for mod in (flow, milp):
        plan = mod.solve(rt, L2)
        assert plan.stars == 0 and plan.t_out == 0
