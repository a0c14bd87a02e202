"""The registry contract: every registered algorithm, on every model it claims, keeps its word.

For each algorithm of :func:`starmin.algorithms.registry.algorithms`, each model of
:data:`MODELS` and each tiny table of :data:`TABLES` that the algorithm ``supports``:

- the plan validates, its star count is what its outputs imply, and the release the engine
  makes from it passes the independent verifier with that many stars;
- the same seed gives the same plan (every array, the lower bound) and the same released rows;
- an ``exact`` (or ``fpt``) method has brute force's optimum, a ``ratio`` method at most
  ``guarantee.ratio_of(model, rt)`` times it (a ratio method without ``ratio_of`` fails);
- the plan's lower bound and every value of :func:`starmin.lower_bounds` are at most the
  optimum;
- on an infeasible instance (brute force raises ``Infeasible``) the method raises
  ``Infeasible`` and so does :func:`starmin.solve` with it.

A case an algorithm does not support is refused with a reason (``supports``) and a starmin
error (:func:`starmin.solve`). An algorithm that supports none of the cases fails
:func:`test_every_algorithm_is_covered`: a newly registered algorithm is held to this contract
at once, or someone adds a case it supports. The optimum is brute force's
(:mod:`starmin.algorithms.exact.brute_force`, itself checked against a naive set-partition
enumeration in tests/oracle), cached per (table, model).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.algorithms import registry
from starmin.algorithms.base import Algorithm
from starmin.algorithms.exact import brute_force
from starmin.data import Schema
from starmin.data.rowtypes import RowTypes
from starmin.engines.local import LocalEncoded, LocalEngine
from starmin.errors import Infeasible, InvalidInput, SolverLimit, StarminError
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
from starmin.transform.plan import STAR, ReleasePlan
from starmin.verifier import verify
from tests.helpers.plans import same_plan

# On the balanced tables with two sensitive values the hierarchical (t = 0.25) and matrix
# (t = 0.3) models hold for every class, one-row classes included: kept on purpose (every
# method must release such an instance without a star), so their NoProtection warning is
# expected here (tests/models/test_protects_nothing.py tests the warning itself)
pytestmark = pytest.mark.filterwarnings("ignore::starmin.errors.NoProtection")

SENSITIVE = ("a", "b", "c", "d")
SEEDS = (0, 7)
"""Each supported case is solved with each of these seeds, twice."""

# ----------------------------------------------------------------------------------------
# tables: tiny (n <= 10), deterministic; the sensitive column "s" holds 2-4 of SENSITIVE


def _random(seed: int, n: int, m: int, values: int, s: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, m))
    sa = rng.integers(0, s, size=n)
    sa[:s] = rng.permutation(s)  # every one of the s values occurs
    return X, sa


def _balanced(seed: int, n: int, m: int, values: int, s: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """Random QIs and each of the ``s`` sensitive values on ``n / s`` rows, so frequency
    l-diversity is feasible up to ``l = s``."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, values, size=(n, m)), rng.permutation(np.arange(n) % s)


def _identical() -> tuple[np.ndarray, np.ndarray]:
    """Six equal QI vectors with balanced sensitive values: every model holds without a star."""
    return np.zeros((6, 3), dtype=np.int64), np.arange(6) % 3


def _distinct() -> tuple[np.ndarray, np.ndarray]:
    """Seven rows, each its own row type (no two QI vectors equal)."""
    X = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1], [0, 1, 1]])
    return X, np.array([0, 1, 2, 0, 1, 2, 3])


def _skewed() -> tuple[np.ndarray, np.ndarray]:
    """Five rows, four with value "a": infeasible for every l >= 2, p >= 2 and k >= 6."""
    X = np.array([[0, 1], [0, 1], [1, 0], [1, 1], [0, 0]])
    return X, np.array([0, 0, 0, 0, 1])


TABLES: dict[str, Callable[[], tuple[np.ndarray, np.ndarray]]] = {
    "rand8-m2-s2": lambda: _random(101, 8, 2, 2, 2),
    "rand9-m3-s3": lambda: _random(202, 9, 3, 2, 3),
    "rand10-m4-s4": lambda: _random(303, 10, 4, 2, 4),
    "rand7-m1-s3": lambda: _random(404, 7, 1, 3, 3),
    "rand10-m2-s3": lambda: _random(505, 10, 2, 3, 3),
    "balanced10-m3-s2": lambda: _balanced(606, 10, 3, 2, 2),
    "balanced9-m2-s3": lambda: _balanced(707, 9, 2, 3, 3),
    "balanced8-m2-s2": lambda: _balanced(808, 8, 2, 3, 2),
    "identical6": _identical,
    "distinct7": _distinct,
    "skewed5": _skewed,
}


@functools.cache
def encoded(table: str) -> LocalEncoded:
    X, sa = TABLES[table]()
    qi = [f"q{j}" for j in range(X.shape[1])]
    df = pl.DataFrame({**{q: X[:, j].tolist() for j, q in enumerate(qi)},
                       "s": [SENSITIVE[int(v)] for v in sa]})
    return LocalEngine().to_row_types(df, Schema.of(qi, "s"))


def row_types(table: str) -> RowTypes:
    return encoded(table).row_types


# ----------------------------------------------------------------------------------------
# models: every model class in starmin.models, every ground distance, and conjunctions

HIERARCHY = HierarchicalDistance((("a", "ab", "*"), ("b", "ab", "*"), ("c", "cd", "*"),
                                  ("d", "cd", "*")))
MATRIX = MatrixDistance([[0, 0.5, 1, 1], [0.5, 0, 0.7, 0.8], [1, 0.7, 0, 0.4],
                         [1, 0.8, 0.4, 0]], values=SENSITIVE)

MODELS: dict[str, Callable[[], PrivacyModel]] = {
    "k2": lambda: KAnonymity(2),
    "k3": lambda: KAnonymity(3),
    "k6": lambda: KAnonymity(6),
    "l2": lambda: LDiversity(2),
    "l3": lambda: LDiversity(3),
    "distinct-l2": lambda: DistinctLDiversity(2),
    "entropy-l2": lambda: EntropyLDiversity(2),
    "recursive-c2-l2": lambda: RecursiveCLDiversity(2, 2),
    "recursive-c0.5-l1": lambda: RecursiveCLDiversity(0.5, 1),  # l = 1: the share cap is c
    "t0.3-equal": lambda: TCloseness(0.3, EqualDistance()),
    "t0.2-ordered": lambda: TCloseness(0.2, OrderedDistance()),
    "t0.25-hierarchical": lambda: TCloseness(0.25, HIERARCHY),
    "t0.3-matrix": lambda: TCloseness(0.3, MATRIX),
    "p2-k3": lambda: PSensitiveKAnonymity(2, 3),
    "k3+l2": lambda: AllOf(KAnonymity(3), LDiversity(2)),
    "k2+t0.4": lambda: AllOf(KAnonymity(2), TCloseness(0.4)),
    "distinct-l2+t0.3-ordered": lambda: AllOf(DistinctLDiversity(2),
                                              TCloseness(0.3, OrderedDistance())),
}


@functools.cache
def model(name: str) -> PrivacyModel:
    return MODELS[name]()


@functools.cache
def optimum(table: str, model_name: str) -> int | None:
    """Brute force's minimum number of stars; None when the instance is infeasible."""
    try:
        plan = brute_force.solve(row_types(table), model(model_name))
    except Infeasible:
        return None
    return plan.stars


# ----------------------------------------------------------------------------------------
# the cases


@dataclass(frozen=True)
class Case:
    algorithm: str
    table: str
    model: str

    @property
    def id(self) -> str:
        return f"{self.algorithm}|{self.model}|{self.table}"


ALGORITHMS: dict[str, Algorithm] = registry.algorithms()
CASES = [Case(a, t, m) for a, alg in ALGORITHMS.items() for m in MODELS for t in TABLES
         if alg.supports(model(m), row_types(t)) is None]


def test_every_algorithm_is_covered() -> None:
    """Each registered algorithm supports at least one feasible case: no algorithm escapes
    the contract because the cases here do not fit it."""
    uncovered = [a for a in ALGORITHMS
                 if not any(c.algorithm == a and optimum(c.table, c.model) is not None
                            for c in CASES)]
    assert not uncovered, (f"no feasible contract case for {uncovered}: add a table or model "
                           f"they support to tests/contract/test_registry_contract.py")


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_unsupported_cases_are_refused_with_a_reason(name: str) -> None:
    """The cases an algorithm does not support are not skipped silently: ``supports`` names
    the reason, and :func:`starmin.solve` with that method refuses with a starmin error
    (``InvalidInput``, or ``Infeasible`` when the instance has no release at all)."""
    alg = ALGORITHMS[name]
    for t in TABLES:
        for m in MODELS:
            reason = alg.supports(model(m), row_types(t))
            if reason is None:
                continue
            assert isinstance(reason, str) and reason.strip(), (t, m, reason)
            with pytest.raises(StarminError):
                starmin.solve(row_types(t), model(m), name)


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_an_unknown_option_is_refused_by_name(name: str) -> None:
    """Options reach a method from the user (``--option``, ``anonymize(options=)``): each
    method refuses one it does not know with a starmin error naming it, on a feasible case it
    supports, rather than ignoring a misspelt setting."""
    case = next(c for c in CASES if c.algorithm == name
                and optimum(c.table, c.model) is not None)
    with pytest.raises(InvalidInput, match="no_such_option") as err:
        starmin.solve(row_types(case.table), model(case.model), name, no_such_option=1)
    declared = ALGORITHMS[name].options  # what `starmin methods` lists: the refusal names them
    said = str(err.value)
    assert all(o in said for o in declared), (declared, said)
    assert declared or "no options" in said or "takes none" in said, said


def test_cases_are_not_trivial() -> None:
    """The tables make work: some feasible case needs stars, and some case is infeasible."""
    opts = {(t, m): optimum(t, m) for t in TABLES for m in MODELS}
    assert any(v for v in opts.values())
    assert any(v is None for v in opts.values())
    for m in MODELS:  # every model needs stars somewhere
        assert any(opts[t, m] for t in TABLES), m


def implied_stars(plan: ReleasePlan) -> tuple[int, int]:
    """Stars and rows with a star, summed entry by entry from the plan's outputs."""
    stars = rows = 0
    for o, c in zip(plan.out_idx.tolist(), plan.count.tolist(), strict=True):
        k = int((plan.outputs[o] == STAR).sum())
        stars += c * k
        rows += c if k else 0
    return stars, rows


def check_release(case: Case, plan: ReleasePlan, seed: int) -> None:
    """The engine's release of ``plan`` passes the independent verifier, star for star."""
    enc = encoded(case.table)
    released = LocalEngine().apply_plan(enc, plan, seed=seed)
    assert released.equals(LocalEngine().apply_plan(enc, plan, seed=seed)), "same seed, new rows"
    verdict = verify(released, enc.schema.qi, enc.schema.sensitive, [model(case.model)])
    assert verdict.passed, verdict.as_dict()
    assert verdict.n == row_types(case.table).n
    assert (verdict.stars, verdict.suppressed_records) == implied_stars(plan)


def check_guarantee(alg: Algorithm, plan: ReleasePlan, rt: RowTypes, m: PrivacyModel,
                    opt: int) -> None:
    g = alg.guarantee
    assert plan.stars >= opt, "fewer stars than brute force's optimum: the oracle is wrong"
    if g.kind in ("exact", "fpt"):
        assert plan.stars == opt
    elif g.kind == "ratio":
        assert g.ratio_of is not None, (
            f"{alg.name} claims a ratio but its Guarantee has no ratio_of(model, rt): state "
            f"the ratio so the contract can check it")
        ratio = g.ratio_of(m, rt)
        assert plan.stars <= ratio * opt, f"{plan.stars} stars > {ratio} x OPT {opt}"
        if plan.guarantee.ratio is not None:  # what the plan claims is what the registry says
            assert plan.guarantee.ratio == ratio
    elif g.kind == "bound":
        pytest.fail(f"{alg.name} has a 'bound' guarantee, which the contract cannot evaluate "
                    f"yet: teach check_guarantee its bound")
    else:
        assert g.kind == "heuristic", g.kind


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_contract(case: Case) -> None:
    alg = ALGORITHMS[case.algorithm]
    rt, m = row_types(case.table), model(case.model)
    opt = optimum(case.table, case.model)
    if opt is None:
        with pytest.raises(Infeasible):
            alg.solve(rt, m, seed=0)
        with pytest.raises(Infeasible):
            starmin.solve(rt, m, alg.name)
        return
    for seed in SEEDS:
        plan = alg.solve(rt, m, seed=seed)
        plan.validate(rt)
        assert plan.method == alg.name
        assert plan.guarantee.kind == alg.guarantee.kind
        assert (plan.stars, plan.suppressed_records) == implied_stars(plan)
        assert same_plan(plan, alg.solve(rt, m, seed=seed)), "same seed, different plan"
        check_release(case, plan, seed)
        check_guarantee(alg, plan, rt, m, opt)
        if plan.lower_bound is not None:
            assert plan.lower_bound <= opt, f"plan's lower bound {plan.lower_bound} > OPT {opt}"


# ----------------------------------------------------------------------------------------
# --method auto: the portfolio of the members that declare ``auto``

CAPPED = [c for c in CASES if ALGORITHMS[c.algorithm].auto is not None
          and optimum(c.table, c.model) is not None]


@pytest.mark.parametrize("case", CAPPED, ids=[c.id for c in CAPPED])
def test_portfolio_member_estimates_and_cheapest_variant(case: Case) -> None:
    """A member's work estimate is a finite number >= 0, and the run it makes with no budget
    left (its cheapest variant's options) keeps the contract: valid, verified, its guarantee,
    or it stops with SolverLimit at a work limit of that variant, which the portfolio records
    as a failed run (lp-rounding's ``complete_only`` on an LP its iteration budget stopped)."""
    alg = ALGORITHMS[case.algorithm]
    rt, m = row_types(case.table), model(case.model)
    assert alg.auto is not None
    for left in (0.0, 1e9):
        run = alg.auto(m, rt, left)
        assert np.isfinite(run.work) and run.work >= 0
    run = alg.auto(m, rt, 0.0)
    if not run.options:
        return  # its defaults: test_contract covers them
    try:
        plan = alg.solve(rt, m, seed=0, **dict(run.options))
    except SolverLimit as exc:
        assert "work limit" in str(exc)
        return
    plan.validate(rt)
    assert plan.method == alg.name
    check_release(case, plan, 0)
    check_guarantee(alg, plan, rt, m, optimum(case.table, case.model) or 0)


@pytest.mark.parametrize("model_name", list(MODELS))
@pytest.mark.parametrize("table", list(TABLES))
def test_auto_is_optimal_on_the_tiny_tables(table: str, model_name: str) -> None:
    """Brute force supports every tiny table, so auto releases an optimum, by brute force,
    and says that the other members were not needed; infeasible stays infeasible."""
    rt, m = row_types(table), model(model_name)
    opt = optimum(table, model_name)
    if opt is None:
        with pytest.raises(Infeasible):
            starmin.solve(rt, m)
        return
    plan = starmin.solve(rt, m)
    assert plan.stars == opt and plan.method == "brute-force"
    trials = {t["method"]: t for t in plan.certificate["portfolio"]}
    assert set(trials) == {a for a, alg in ALGORITHMS.items() if alg.auto is not None}
    assert trials["brute-force"]["status"] == "released"
    check_release(Case("auto", table, model_name), plan, 0)


@pytest.mark.parametrize("model_name", list(MODELS))
@pytest.mark.parametrize("table", list(TABLES))
def test_lower_bounds_below_optimum(table: str, model_name: str) -> None:
    opt = optimum(table, model_name)
    if opt is None:  # every release is infeasible; lower bounds are moot but must not crash
        with pytest.raises(Infeasible):
            starmin.solve(row_types(table), model(model_name), "brute-force")
        return
    bounds = starmin.lower_bounds(row_types(table), model(model_name))
    assert bounds, "lower_bounds returned nothing"
    assert all(v <= opt for v in bounds.values()), (bounds, opt)


# ----------------------------------------------------------------------------------------
# TP's own theorem, in tuples: the star ratio above is derived from it (Lemma 2), so the
# sharper statement is checked too, against an independent tuple optimum.

TUPLE_RATIO_METHODS = ("tp", "tp+")
"""Methods whose plans suppress at most ``l x OPT_tuples`` tuples (Xiao et al. Thm 3; TP+
keeps TP's kept tuples unstarred, so its starred rows are a subset of TP's residue)."""


def l_eligible(counts: np.ndarray, l: int) -> np.ndarray:
    """Rows of a ``(..., s)`` count array that are l-eligible or empty (Xiao et al. Def. 2)."""
    return counts.max(axis=-1) * l <= counts.sum(axis=-1)


def optimum_tuples(rt: RowTypes, l: int) -> int | None:
    """Xiao et al.'s Problem 2 by enumeration: the fewest rows with a star in any frequency
    l-diverse release. Rows without a star keep their row type's vector, so each row type's
    unstarred rows form one class and must be l-eligible; the starred rows ``R`` together are
    l-eligible as one all-star class (Lemma 1: a union of l-eligible classes is l-eligible),
    and conversely. So OPT is the smallest ``|R|`` over sub-multisets ``R`` of the
    (row type, value) counts with ``R`` and every row type minus ``R`` l-eligible."""
    t, k = np.nonzero(rt.counts)
    c = rt.counts[t, k]
    R = np.indices(tuple(int(x) + 1 for x in c)).reshape(len(c), -1).T  # (S, cells)
    removed = np.zeros((len(R), rt.t_in, rt.s), dtype=np.int64)
    removed[:, t, k] = R
    ok = l_eligible(removed.sum(axis=1), l) & l_eligible(rt.counts - removed, l).all(axis=1)
    return int(R[ok].sum(axis=1).min()) if ok.any() else None


TUPLE_CASES = [c for c in CASES if c.algorithm in TUPLE_RATIO_METHODS
               and optimum(c.table, c.model) is not None]


def test_tuple_ratio_methods_are_registered_and_covered() -> None:
    assert {c.algorithm for c in TUPLE_CASES} == set(TUPLE_RATIO_METHODS)


@pytest.mark.parametrize("case", TUPLE_CASES, ids=[c.id for c in TUPLE_CASES])
def test_tp_suppresses_at_most_l_times_the_fewest_tuples(case: Case) -> None:
    rt, m = row_types(case.table), model(case.model)
    assert isinstance(m, LDiversity)
    l = int(m.l)
    opt_tuples = optimum_tuples(rt, l)
    assert opt_tuples is not None  # feasible in stars, so in tuples
    plan = ALGORITHMS[case.algorithm].solve(rt, m)
    assert opt_tuples <= plan.suppressed_records <= l * opt_tuples
    if plan.lower_bound is not None:  # TP's bound is on OPT_tuples (Cor. 1 proof, Cor. 2)
        assert plan.lower_bound <= opt_tuples
    stars_opt = optimum(case.table, case.model)
    assert stars_opt is not None and opt_tuples <= stars_opt  # each starred row has a star


# ----------------------------------------------------------------------------------------
# the contract can fail: each check rejects a plan that breaks it


def _all_stars(rt: RowTypes, method: str, guarantee: object) -> ReleasePlan:
    """Every row in one class with every QI cell a star (valid, never cheaper than OPT)."""
    ti, ki = np.nonzero(rt.counts)
    return ReleasePlan(np.full((1, rt.m), STAR, dtype=np.int32), np.zeros_like(ti), ti, ki,
                       rt.counts[ti, ki], method, guarantee)  # type: ignore[arg-type]


def test_contract_rejects_a_claim_it_cannot_check_or_a_broken_promise() -> None:
    from dataclasses import replace

    rt, m = row_types("rand9-m3-s3"), model("k2")
    opt = optimum("rand9-m3-s3", "k2")
    assert opt is not None and 0 < opt < rt.n * rt.m
    base = ALGORITHMS["m-approx"]
    plan = _all_stars(rt, base.name, base.guarantee)
    # a ratio without ratio_of
    no_ratio = replace(base, guarantee=replace(base.guarantee, ratio_of=None))
    with pytest.raises(AssertionError, match="no ratio_of"):
        check_guarantee(no_ratio, plan, rt, m, opt)
    # a ratio the plan exceeds
    tight = replace(base, guarantee=replace(base.guarantee, ratio_of=lambda _m, _rt: 1.0))
    with pytest.raises(AssertionError):
        check_guarantee(tight, plan, rt, m, opt)
    # an exact claim above the optimum
    exact = replace(base, guarantee=brute_force.GUARANTEE)
    with pytest.raises(AssertionError):
        check_guarantee(exact, plan, rt, m, opt)
    # a guarantee kind the contract does not know how to check
    bound = replace(base, guarantee=replace(base.guarantee, kind="bound"))
    with pytest.raises(pytest.fail.Exception):
        check_guarantee(bound, plan, rt, m, opt)


def test_contract_rejects_an_unsafe_release_and_a_changed_plan() -> None:
    case = Case("brute-force", "rand9-m3-s3", "k2")
    rt = row_types(case.table)
    ti, ki = np.nonzero(rt.counts)
    unchanged = ReleasePlan(rt.codes, ti, ti, ki, rt.counts[ti, ki], "identity",
                            brute_force.GUARANTEE)
    unchanged.validate(rt)
    assert (rt.sizes < 2).any()  # some row type alone is not 2-anonymous
    with pytest.raises(AssertionError):
        check_release(case, unchanged, seed=0)
    stars = _all_stars(rt, "identity", brute_force.GUARANTEE)
    check_release(case, stars, seed=0)  # all stars is 2-anonymous
    assert same_plan(stars, stars) and not same_plan(stars, unchanged)


def test_optimum_tuples_on_hand_examples() -> None:
    def rt_of(types: list[list[int]]) -> RowTypes:
        X = np.array([[i] for i, vals in enumerate(types) for _ in vals])
        return RowTypes.from_arrays(X, np.array([v for vals in types for v in vals]))

    assert optimum_tuples(rt_of([[0, 1], [0, 0, 1, 1]]), 2) == 0   # already 2-diverse
    assert optimum_tuples(rt_of([[0, 0, 1], [1]]), 2) == 2         # move one 0 and the 1
    assert optimum_tuples(rt_of([[0, 0], [1, 1]]), 2) == 4         # no row type keeps a row
    assert optimum_tuples(rt_of([[0, 0], [0, 1]]), 2) is None      # 0 on 3 of 4 rows
