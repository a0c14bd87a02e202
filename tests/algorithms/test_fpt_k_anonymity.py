"""fpt-k-anonymity: Bredereck et al.'s Algorithm 1 on row types (Sec. 4.1-4.2).

Oracles: the exact brute force (a DP over sub-multisets of rows), Algorithm 1 verbatim with
ROW ASSIGNMENT as an LP (tests/algorithms/fpt_support.py), Proposition 2's literal search, and
the LP core's certified bound (lp-rounding)."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.algorithms.exact import brute_force
from starmin.algorithms.fpt import k_anonymity as fpt
from starmin.algorithms.fpt import release
from starmin.algorithms.fpt.candidates import candidates
from starmin.algorithms.fpt.row_assignment import RowAssignment
from starmin.algorithms.fpt.search import branch_and_bound
from starmin.algorithms.lp import lp_rounding
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput, SolverLimit
from starmin.models import AllOf, KAnonymity, LDiversity
from starmin.transform.plan import STAR, ReleasePlan
from tests.algorithms.fpt_support import algorithm_1, proposition_2
from tests.helpers.tables import expanded, from_rows, permuted, random_table, satisfies


def _weighted(seed: int, t_in: int, m: int, values: int, top: int) -> RowTypes:
    """``t_in`` distinct QI vectors (as far as the domain allows), 1..top rows each."""
    rng = np.random.default_rng(seed)
    X = np.unique(rng.integers(0, values, size=(4 * t_in, m)), axis=0)
    X = X[rng.permutation(len(X))[:t_in]]
    return RowTypes.from_arrays(X, weights=rng.integers(1, top + 1, size=len(X)))


def _check(rt: RowTypes, k: int) -> ReleasePlan:
    plan = fpt.solve(rt, KAnonymity(k))
    plan.validate(rt)
    assert satisfies(plan, rt, KAnonymity(k))
    assert plan.lower_bound == plan.stars == plan.certificate["optimum"]
    assert plan.t_out <= rt.t_in  # Lemma 2
    return plan


# -- exact: brute force ------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(120))
def test_equals_brute_force_on_random_tables(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m, values = int(rng.integers(2, 13)), int(rng.integers(1, 5)), int(rng.integers(2, 4))
    rt = random_table(seed, n, m=m, values=values)
    k = int(rng.integers(2, 5))
    if k > n:
        with pytest.raises(Infeasible):
            fpt.solve(rt, KAnonymity(k))
        return
    assert _check(rt, k).stars == brute_force.solve(rt, KAnonymity(k)).stars


@pytest.mark.parametrize("seed", range(30))
def test_equals_brute_force_with_repeated_rows(seed: int) -> None:
    """Few row types with many rows each: brute force still runs (its limit counts rows per
    type), and so does the flow."""
    rng = np.random.default_rng(1000 + seed)
    rt = _weighted(seed, int(rng.integers(2, 6)), int(rng.integers(2, 5)), 3, 6)
    k = int(rng.integers(2, 8))
    if brute_force.supports(KAnonymity(k), rt) is not None or k > rt.n:
        pytest.skip("beyond brute force")
    assert _check(rt, k).stars == brute_force.solve(rt, KAnonymity(k)).stars


@pytest.mark.parametrize("seed", range(10))
def test_row_order_duplicates_and_codes_do_not_matter(seed: int) -> None:
    rt = random_table(2000 + seed, 9, m=3, values=2)
    opt = _check(rt, 2).stars
    assert _check(permuted(rt, seed), 2).stars == opt
    assert _check(expanded(rt), 2).stars == opt  # every row its own (duplicate) row type


def test_conjunction_of_k_anonymity_models_takes_the_largest_k() -> None:
    rt = random_table(5, 10, m=3, values=2)
    plan = fpt.solve(rt, AllOf(KAnonymity(2), KAnonymity(3)))
    assert plan.stars == brute_force.solve(rt, KAnonymity(3)).stars
    assert plan.certificate["k"] == 3


# -- exact: Algorithm 1 verbatim (Theorem 2), Proposition 2 -----------------------------


@pytest.mark.parametrize("seed", range(8))
def test_equals_algorithm_1_verbatim(seed: int) -> None:
    """Every binary matrix A (t_in x t_out, t_out = t_in) with ROW ASSIGNMENT's arcs exactly
    where A has a 1: the search's optimum (candidates = suppressors, arcs to every row type a
    candidate generalizes, t_out <= t_in) is the same."""
    rng = np.random.default_rng(3000 + seed)
    rt = _weighted(seed, 3, int(rng.integers(2, 5)), 3, 5)
    k = int(rng.integers(2, 6))
    if k > rt.n:
        pytest.skip("infeasible")
    assert _check(rt, k).stars == algorithm_1(rt, k, rt.t_in)


@pytest.mark.parametrize(("seed", "t_out"), [(s, t) for s in range(6) for t in (1, 2)])
def test_restricted_to_t_out_equals_proposition_2(seed: int, t_out: int) -> None:
    rng = np.random.default_rng(4000 + seed)
    rt = _weighted(seed, 4, 2, 3, 6)
    k = int(rng.integers(2, 6))
    if k > rt.n:
        pytest.skip("infeasible")
    plan = fpt.solve(rt, KAnonymity(k), max_t_out=t_out)
    plan.validate(rt)
    assert satisfies(plan, rt, KAnonymity(k))
    assert plan.t_out <= t_out
    assert plan.stars == proposition_2(rt, k, t_out)
    assert plan.lower_bound is None and plan.certificate["restricted"]
    assert plan.guarantee.parameter == "(m, t_out)"
    assert f"at most {t_out} classes" in plan.guarantee.statement


@pytest.mark.parametrize("seed", range(200))
def test_restricted_enumeration_equals_restricted_branch_and_bound(seed: int) -> None:
    """Two routes to Proposition 2's optimum: enumerating the guesses in bound order
    (what max_t_out runs) and the branch and bound restricted to t_out classes."""
    rng = np.random.default_rng(9000 + seed)
    rt = _weighted(seed, int(rng.integers(4, 9)), int(rng.integers(2, 5)), 3, 11)
    k, t_out = int(rng.integers(3, 12)), int(rng.integers(2, 4))
    if k > rt.n or t_out >= rt.t_in:
        pytest.skip("infeasible or not restricted")
    plan = fpt.solve(rt, KAnonymity(k), max_t_out=t_out)
    problem = RowAssignment(rt.sizes, candidates(rt.codes, rt.sizes, k), k)
    other = branch_and_bound(problem, max_out=t_out, restricted=True, sized_is_release=True,
                             max_nodes=10**6, progress=lambda _: None, what="test")
    assert plan.stars == other.best.cost


def test_restricted_optimum_falls_to_the_optimum() -> None:
    rt = _weighted(11, 8, 3, 3, 6)
    opt = _check(rt, 5)
    costs = [fpt.solve(rt, KAnonymity(5), max_t_out=t).stars for t in range(1, rt.t_in)]
    assert all(a >= b for a, b in pairwise(costs))  # more classes allowed
    assert costs[0] == rt.n * int((~(rt.codes == rt.codes[0]).all(axis=0)).sum())
    assert costs[opt.t_out - 1] == opt.stars  # an optimum with t_out classes is allowed


# -- the parameter: t_in, not n -----------------------------------------------------------


def test_work_depends_on_row_types_not_rows() -> None:
    """About a million rows in 10 row types: the same flows as the table with 1/20,000 of the
    rows and k / 20,000, and 20,000 x the stars (supplies and demands scale, so does every
    flow's optimum)."""
    small = _weighted(7, 10, 4, 3, 9)
    big = RowTypes(small.qi, small.codes, small.counts * 20_000, small.domains)
    a, b = _check(small, 6), fpt.solve(big, KAnonymity(6 * 20_000))
    assert big.n >= 10**6 and b.stars == 20_000 * a.stars
    assert b.certificate["flows"] == a.certificate["flows"]
    assert b.certificate["t_in"] == a.certificate["t_in"] == 10


@pytest.mark.parametrize("seed", range(15))
def test_proposition_3_t_in_at_most_t_out_plus_stars(seed: int) -> None:
    """Prop. 3's argument on every release: t_in <= t_out + (rows with a star) <= t_out + s."""
    rng = np.random.default_rng(6000 + seed)
    rt = _weighted(seed, int(rng.integers(3, 13)), int(rng.integers(2, 7)), 3, 5)
    k = int(rng.integers(2, 7))
    if k > rt.n:
        pytest.skip("infeasible")
    plan = _check(rt, k)
    assert rt.t_in <= plan.t_out + plan.suppressed_records <= plan.t_out + plan.stars


# -- the LP core --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_lp_bound_at_most_optimum_and_equal_when_certified(seed: int) -> None:
    """lp-rounding's certified bound (column generation, LY Thm 9) is <= the FPT optimum <=
    its release; where its release meets its bound (a certified optimum) both agree."""
    rng = np.random.default_rng(7000 + seed)
    rt = _weighted(seed, 10, 4, 3, 8)
    k = int(rng.integers(3, 8))
    opt = _check(rt, k).stars
    lp = lp_rounding.solve(rt, KAnonymity(k))
    assert lp.lower_bound is not None
    assert lp.lower_bound <= opt <= lp.stars
    if lp.lower_bound == lp.stars:
        assert opt == lp.stars
    assert all(v <= opt for v in starmin.lower_bounds(rt, KAnonymity(k)).values())


# -- the paper's small cases -------------------------------------------------------------


def test_one_output_row_type_is_the_whole_table() -> None:
    """k = n: one class, the suppressor of the whole table (Sec. 3.2: one output type is easy)."""
    rt = from_rows([[0, 1, 2], [0, 1, 3], [0, 2, 2], [0, 1, 2]])
    plan = _check(rt, 4)
    assert plan.outputs.tolist() == [[0, STAR, STAR]] and plan.stars == 8


def test_big_row_types_stay_small_ones_merge() -> None:
    # (0,0) x3 stays; (0,1) and (1,1) (one row each) merge as (*,1): 2 stars
    rt = from_rows([[0, 0]] * 3 + [[0, 1], [1, 1]])
    plan = _check(rt, 2)
    assert plan.stars == 2 and sorted(plan.outputs.tolist()) == [[STAR, 1], [0, 0]]


def test_donor_rows_from_a_big_row_type() -> None:
    # (0,1) has one row; a row of (0,0) joins it as (0,*) (2 stars) rather than all 4 rows
    rt = from_rows([[0, 0]] * 3 + [[0, 1]])
    plan = _check(rt, 2)
    assert plan.stars == 2 and plan.t_out == 2


# -- limits, options, errors --------------------------------------------------------------


def test_supports_names_t_in_and_its_limit() -> None:
    rt = RowTypes.from_arrays(np.arange(2 * (fpt.LIMITS.max_t_in + 1)).reshape(-1, 2))
    reason = fpt.supports(KAnonymity(2), rt)
    assert reason is not None
    assert "t_in" in reason and str(fpt.LIMITS.max_t_in) in reason
    assert "--method auto" in reason
    with pytest.raises(InvalidInput, match="t_in"):
        fpt.solve(rt, KAnonymity(2))
    with pytest.raises(InvalidInput, match="t_in"):
        starmin.solve(rt, KAnonymity(2), "fpt-k-anonymity")


def test_supports_refuses_other_models() -> None:
    rt = random_table(1, 8, s=2)
    reason = fpt.supports(LDiversity(2), rt)
    assert reason is not None and "k-anonymity only" in reason


def test_candidate_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = random_table(3, 10, m=4, values=3)
    monkeypatch.setattr(fpt, "LIMITS", release.Limits(16, 3, 100, (0.0, 0.0)))
    reason = fpt.supports(KAnonymity(2), rt)
    assert reason is not None and "candidate output row types" in reason


def test_too_many_suppressors_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = _weighted(4, 14, 6, 3, 3)  # t_in > 12: listed by patterns, capped
    monkeypatch.setattr(release, "MAX_ALL", 20)
    reason = fpt.supports(KAnonymity(2), rt)
    assert reason is not None and "more than 20 suppressors" in reason


def test_work_limit_raises_solver_limit_naming_it() -> None:
    rt = _weighted(3, 12, 8, 3, 4)
    with pytest.raises(SolverLimit, match="max_nodes"):
        fpt.solve(rt, KAnonymity(4), max_nodes=3)


@pytest.mark.parametrize("opts", [{"max_nodes": 0}, {"max_t_out": 0}, {"max_t_out": 1.5},
                                  {"max_nodes": True}, {"refine": True}])
def test_bad_options_are_refused(opts: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        fpt.solve(random_table(2, 6), KAnonymity(2), **opts)


def test_too_many_restricted_guesses_are_refused() -> None:
    rt = _weighted(9, 40, 5, 4, 3)
    with pytest.raises(InvalidInput, match="guesses"):
        fpt.solve(rt, KAnonymity(2), max_t_out=6)


def test_infeasible_when_k_exceeds_n() -> None:
    with pytest.raises(Infeasible):
        fpt.solve(random_table(4, 5), KAnonymity(6))


# -- registry, auto, report ----------------------------------------------------------------


def test_registry_entry_and_exact_choice() -> None:
    from starmin.algorithms import registry

    a = registry.get("fpt-k-anonymity")
    assert a.guarantee.kind == "fpt" and a.guarantee.parameter == "t_in"
    assert "Thm 3" in a.guarantee.reference and "Lemma" in a.summary
    names = list(registry.algorithms())
    assert names.index("brute-force") < names.index("fpt-k-anonymity")
    big = _weighted(2, 10, 4, 3, 30)  # beyond brute force, within t_in
    assert brute_force.supports(KAnonymity(5), big) is not None
    assert registry.choose(KAnonymity(5), big, "exact").name == "fpt-k-anonymity"


def test_auto_runs_it_when_brute_force_cannot() -> None:
    big = _weighted(2, 10, 4, 3, 30)
    plan = starmin.solve(big, KAnonymity(5))
    trials = {t["method"]: t for t in plan.certificate["portfolio"]}
    assert trials["fpt-k-anonymity"]["status"] == "released"
    assert plan.method == "fpt-k-anonymity"
    assert plan.stars == fpt.solve(big, KAnonymity(5)).stars


def test_auto_estimate_is_capped_and_deterministic() -> None:
    rt = _weighted(2, 14, 6, 3, 5)
    a = fpt.ALGORITHM.auto
    assert a is not None
    full, tight = a(KAnonymity(3), rt, 100.0), a(KAnonymity(3), rt, 0.5)
    assert full == a(KAnonymity(3), rt, 100.0)
    assert full.work <= release.AUTO_UNITS + 0.1
    assert tight.options["max_nodes"] <= full.options["max_nodes"]
    assert tight.options["max_nodes"] >= release.AUTO_MIN_NODES


def test_report_records_t_in_and_t_out() -> None:
    rng = np.random.default_rng(8)
    df = pl.DataFrame({"a": rng.integers(0, 3, 400), "b": rng.integers(0, 2, 400),
                       "c": rng.integers(0, 2, 400)})
    rel = starmin.anonymize(df, qi="a,b,c", k=40, method="fpt-k-anonymity")
    rep = rel.report
    assert rel.verification.passed and rep["verified"]
    assert rep["guarantee"]["kind"] == "fpt" and rep["guarantee"]["parameter"] == "t_in"
    assert rep["certificate"]["t_in"] == rep["input"]["t_in"] == rel.plan.certificate["t_in"]
    assert rep["certificate"]["t_out"] == rep["classes"]["count"]
    assert rep["lower_bounds"]["algorithm"] == rep["stars"]
