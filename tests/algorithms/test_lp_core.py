"""The row-type LP core (starmin.algorithms.lp): pricing equals the master's own block LP,
the certified bound never exceeds brute force's optimum, and lp-rounding releases valid,
verified plans that are never below it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp import lp_rounding
from starmin.algorithms.lp.colgen import column_generation
from starmin.algorithms.lp.master import Blocks, build
from starmin.algorithms.lp.pairs import Pairs
from starmin.algorithms.lp.pricing import Pricer
from starmin.algorithms.lp.relaxation import relaxations
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible
from starmin.models import (
    AllOf,
    HierarchicalDistance,
    KAnonymity,
    LDiversity,
    MatrixDistance,
    OrderedDistance,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.models.apply import holds

HIER = HierarchicalDistance((("0", "low", "*"), ("1", "low", "*"), ("2", "high", "*"),
                             ("3", "high", "*")))
MODELS = {
    "k3": KAnonymity(3),
    "l2": LDiversity(2),
    "l3": LDiversity(3),
    "rec": RecursiveCLDiversity(2, 2),
    "t0": TCloseness(0),
    "t0.25": TCloseness("0.25"),
    "t1": TCloseness(1),
    "t0.2-ordered": TCloseness("0.2", OrderedDistance()),
    "t0.3-hier": TCloseness("0.3", HIER),
    "k3-l2": AllOf(KAnonymity(3), LDiversity(2)),
    "k2-t0.3": AllOf(KAnonymity(2), TCloseness("0.3")),
}
METRIC = MatrixDistance([[0, 0.5, 1, 1], [0.5, 0, 0.5, 1], [1, 0.5, 0, 0.5], [1, 1, 0.5, 0]])
"""Not a tree metric (0 and 3 are 1 apart, 0.5 + 0.5 + 0.5 by the path): Thm 9's transport
constraints in the master, the Lagrangian gain in the pricing."""
MATRIX_MODELS = {
    "t0.15-matrix": TCloseness("0.15", METRIC),
    "t0.3-matrix": TCloseness("0.3", METRIC),
    "k3-t0.25-matrix": AllOf(KAnonymity(3), TCloseness("0.25", METRIC)),
}


def tables(count: int, seed: int) -> list[RowTypes]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n, m = int(rng.integers(5, 11)), int(rng.integers(2, 5))
        X = rng.integers(0, 3, size=(n, m))
        S = rng.integers(0, 4, size=n)
        S[:4] = np.arange(4)  # every value present (the hierarchy lists four)
        out.append(RowTypes.from_arrays(X, S))
    return out


def block_gain(rt: RowTypes, rel, members: np.ndarray, pi: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    """max pi . x over one class of the master's own constraints, normalized to one row."""
    pairs = Pairs.of(rt)
    bl = Blocks(np.zeros((1, rt.m), np.int32), np.array([0]), np.zeros(len(members), np.int64),
                members)
    prog = build(pairs, rel, bl)
    A_eq = prog.A_eq.toarray()[prog.P:]
    norm = np.zeros((1, len(prog.c)))
    norm[0, : prog.X] = 1
    c = np.zeros(len(prog.c))
    c[: prog.X] = -pi[members]
    res = linprog(c, A_ub=prog.A_ub if prog.A_ub.shape[0] else None,
                  b_ub=prog.b_ub if len(prog.b_ub) else None,
                  A_eq=np.vstack([A_eq, norm]), b_eq=np.r_[np.zeros(len(A_eq)), 1.0],
                  bounds=(0, None), method="highs")
    return -float(res.fun) if res.status == 0 else -np.inf


@pytest.mark.parametrize("name", [*MODELS, *MATRIX_MODELS])
def test_pricing_gain_is_the_block_lp(name: str) -> None:
    """For random duals, every vector's gain from the pricing equals the optimum of the master's
    constraints for that one class (an upper bound within 1e-6 for the Lagrangian; under a
    matrix distance the master's class is Thm 9's transport constraints)."""
    rng = np.random.default_rng(7)
    for rt in tables(3, 11):
        for rel in relaxations({**MODELS, **MATRIX_MODELS}[name], rt):
            pricer = Pricer(rt, Pairs.of(rt), rel)
            pi = rng.normal(1.0, 1.0, size=pricer.pairs.P)
            for mask in range(1 << rt.m):
                mp = pricer.price(mask, pi)
                for g in range(len(mp.keys)):
                    members = np.nonzero(mp.group == g)[0]
                    want = block_gain(rt, rel, members, pi)
                    got = float(mp.gain[g])
                    if np.isinf(want):
                        assert np.isinf(got), (rel.name, mask, g, got)
                    else:
                        assert want - 1e-6 <= got <= want + 1e-5 * (1 + abs(want)), (
                            rel.name, mask, g, got, want)


@pytest.mark.parametrize("name", list(MODELS))
def test_bound_and_release_against_brute_force(name: str) -> None:
    model = MODELS[name]
    seen = 0
    for rt in tables(14, 3):
        try:
            opt = brute_force.ALGORITHM.solve(rt, model).stars
        except Infeasible:
            with pytest.raises(Infeasible):
                lp_rounding.solve(rt, model)
            continue
        seen += 1
        for rel in relaxations(model, rt):
            cg = column_generation(rt, rel)
            assert cg.bound <= opt, (rel.name, cg.bound, opt)
            if cg.complete:  # the bound is the LP optimum over every vector
                assert cg.bound >= cg.lp_value - 1e-4
        plan = lp_rounding.solve(rt, model)
        plan.validate(rt)
        assert holds(model, rt, plan.class_key_counts(rt.s)).all()
        assert plan.lower_bound is not None and plan.lower_bound <= opt <= plan.stars
    assert seen >= 3


@pytest.mark.parametrize("name", list(MATRIX_MODELS))
def test_matrix_distance_is_priced_and_bounded(name: str) -> None:
    """t-closeness under a matrix distance is in column generation: a relaxation with no
    cuts (transport constraints), a certified bound never above brute force's optimum, and,
    when complete, the LP optimum over every vector; lp-rounding's rounding MILP states the
    transport constraints (stop 45): its classes hold the model and its release lies between
    the bound and the optimum."""
    model = MATRIX_MODELS[name]
    seen = 0
    for rt in tables(14, 3):
        rels = [r for r in relaxations(model, rt) if r.t is not None]
        assert len(rels) == 1 and rels[0].cuts is None and rels[0].d is not None
        try:
            opt = brute_force.ALGORITHM.solve(rt, model).stars
        except Infeasible:
            continue
        seen += 1
        for rel in relaxations(model, rt):
            cg = column_generation(rt, rel)
            assert cg.bound <= opt, (rel.name, cg.bound, opt)
            if cg.complete:
                assert cg.bound >= cg.lp_value - 1e-4
        assert lp_rounding.supports(model, rt) is None
        plan = lp_rounding.solve(rt, model)
        plan.validate(rt)
        assert holds(model, rt, plan.class_key_counts(rt.s)).all()
        assert plan.lower_bound is not None and plan.lower_bound <= opt <= plan.stars
    assert seen >= 3


def test_the_report_carries_the_lp_bound_under_a_matrix_distance() -> None:
    """The combinatorial t bounds relax a matrix distance's EMD to variational distance
    ``t / d_min`` (here 0.4); the LP core's bound states Thm 9's transport constraints and
    is in every report (:func:`starmin.api.lower_bounds`): never above brute force's
    optimum, and above every t bound on some of these tables."""
    from starmin.api import lower_bounds

    r = 4
    pos = np.arange(r)
    D = np.minimum(np.abs(pos[:, None] - pos[None, :]), r - np.abs(pos[:, None] - pos[None, :]))
    model = TCloseness("0.2", MatrixDistance((D / 2).tolist()))  # a 4-cycle: 0.5 / 1
    positive = 0
    for rt in tables(10, 5):
        try:
            opt = brute_force.ALGORITHM.solve(rt, model).stars
        except Infeasible:
            continue
        got = lower_bounds(rt, model)
        assert got["best"] <= opt and got.get("lp", 0) <= opt
        others = [v for name, v in got.items() if name.startswith("t-")]
        positive += int(got.get("lp", 0) > max(others, default=0))
    assert positive >= 3


def test_lp_rounding_is_usually_optimal_on_small_tables() -> None:
    """A quality floor, not a guarantee: on these tables lp-rounding finds brute force's
    optimum for most instances of frequency l-diversity and k-anonymity."""
    hits = total = 0
    for rt in tables(20, 5):
        for model in (KAnonymity(3), LDiversity(2)):
            try:
                opt = brute_force.ALGORITHM.solve(rt, model).stars
            except Infeasible:
                continue
            total += 1
            hits += lp_rounding.solve(rt, model).stars == opt
    assert hits >= 0.75 * total


def test_unknown_option_and_unsupported_model() -> None:
    from starmin.errors import InvalidInput
    from starmin.models import DistinctLDiversity

    rt = tables(1, 1)[0]
    with pytest.raises(InvalidInput, match="unknown option"):
        lp_rounding.solve(rt, LDiversity(2), time_limit=3)
    assert lp_rounding.supports(DistinctLDiversity(2), rt) is not None


def test_complete_only_refuses_to_round_an_unfinished_lp() -> None:
    """``complete_only`` (the portfolio's run): when the column generation stops at its work
    limit before the LP optimum, lp-rounding fails with SolverLimit instead of rounding (the
    rounding MILP over the unfinished LP is the costly step the estimate does not count);
    without it the same run rounds and releases a valid plan, and a finished LP is rounded
    either way."""
    from starmin.errors import SolverLimit

    rng = np.random.default_rng(7)
    rt = RowTypes.from_arrays(rng.integers(0, 4, size=(80, 5)))
    model = KAnonymity(3)
    with pytest.raises(SolverLimit, match="before the LP optimum"):
        lp_rounding.solve(rt, model, max_iterations=5, complete_only=True)
    plan = lp_rounding.solve(rt, model, max_iterations=5)
    plan.validate(rt)
    assert plan.certificate["lp_complete"] is False
    done = lp_rounding.solve(rt, model, complete_only=True)
    assert done.certificate["lp_complete"] is True
    assert done.stars == lp_rounding.solve(rt, model).stars


@pytest.mark.parametrize("solver", ["glop", "highs-ipm"])
def test_a_budget_within_rounds_stops_a_solve_and_keeps_the_bound(solver: str) -> None:
    """``within_rounds`` (the portfolio's and the report's runs): the iteration budget holds
    inside a round's solve, Glop's and SciPy's alike (``highs-ipm`` solves through SciPy
    only); the solve that reaches it raises WorkLimit carrying the bound certified before it
    (``None`` in the first round), never above the complete LP's bound. Without it the same
    budget lets each round finish (the run stops after the round that reaches it)."""
    from starmin.algorithms.lp.incremental import WorkLimit

    rng = np.random.default_rng(7)
    rt = RowTypes.from_arrays(rng.integers(0, 4, size=(80, 5)))
    rel = relaxations(KAnonymity(3), rt)[0]
    full = column_generation(rt, rel, lp_solver=solver)
    assert full.complete
    stopped = 0
    for budget in (1, 5, 20, 60):
        try:
            cg = column_generation(rt, rel, max_iterations=budget, within_rounds=True,
                                   lp_solver=solver)
        except WorkLimit as exc:
            stopped += 1
            assert exc.bound is None or 0 <= exc.bound <= full.bound
            continue
        assert cg.bound <= full.bound
    assert stopped >= 2
    loose = column_generation(rt, rel, max_iterations=5, lp_solver=solver)
    assert not loose.complete and loose.bound <= full.bound


def test_the_report_keeps_the_bound_certified_before_a_work_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's LP bound (:func:`starmin.api.lp_lower_bound`) runs column generation
    with its budget held within rounds; a solve that reaches it gives the bound certified
    before it (here: a budget of 12 iterations), never above the complete bound, and says
    so in its progress lines."""
    from starmin.algorithms.lp import colgen
    from starmin.api import lp_lower_bound

    rng = np.random.default_rng(7)
    rt = RowTypes.from_arrays(rng.integers(0, 4, size=(80, 5)))
    model = KAnonymity(3)
    full = lp_lower_bound(rt, model)
    assert full is not None and full > 0
    monkeypatch.setattr(colgen, "iteration_budget", lambda units: 12)
    said: list[str] = []
    limited = lp_lower_bound(rt, model, progress=said.append)
    assert any("stopped at a work limit" in line for line in said)
    assert limited is not None and 0 < limited <= full  # the bound before the limit, kept


@pytest.mark.parametrize("bad", [-0.1, 1, 1.5, "0.02", True, None])
def test_rounding_gap_is_checked(bad: object) -> None:
    from starmin.errors import InvalidInput

    rt = tables(1, 1)[0]
    with pytest.raises(InvalidInput, match="rounding_gap must be a number in"):
        lp_rounding.solve(rt, LDiversity(2), rounding_gap=bad)


def test_rounding_gap_reaches_the_rounding_milp(monkeypatch: pytest.MonkeyPatch) -> None:
    """The option is HiGHS's ``mip_rel_gap`` of every rounding MILP solved, the default
    :data:`lp_rounding.ROUNDING_GAP` when it is not given."""
    from starmin.algorithms.lp import rounding

    seen: list[float] = []
    inner = rounding.solve_milp

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(kwargs["gap"])
        return inner(*args, **kwargs)

    monkeypatch.setattr(rounding, "solve_milp", spy)
    rng = np.random.default_rng(11)
    rt = RowTypes.from_arrays(rng.integers(0, 3, size=(60, 4)))
    lp_rounding.solve(rt, KAnonymity(3), rounding_gap=0.25)
    assert seen and set(seen) == {0.25}
    seen.clear()
    lp_rounding.solve(rt, KAnonymity(3))
    assert seen and set(seen) == {lp_rounding.ROUNDING_GAP}


def test_a_rounding_gap_bounds_the_rounding_milps_objective() -> None:
    """With relative gap ``g`` the rounding MILP's objective is at most its optimum (gap 0)
    over ``1 - g``: HiGHS stops only once its incumbent is that close to its dual bound."""
    from starmin.algorithms.lp.master import build
    from starmin.algorithms.lp.rounding import round_lp

    checked = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        rt = RowTypes.from_arrays(rng.integers(0, 3, size=(90, 5)), rng.integers(0, 4, size=90))
        for model in (KAnonymity(4), LDiversity(3)):
            rel = lp_rounding.primary(relaxations(model, rt))
            cg = column_generation(rt, rel)
            combined = lp_rounding.combined(model, rt)
            c = build(cg.pairs, combined, cg.blocks).c[: len(cg.lp.x)]
            best = float(c @ round_lp(cg.pairs, combined, cg.blocks, cg.lp.x))
            for g in (0.05, 0.3):
                x = round_lp(cg.pairs, combined, cg.blocks, cg.lp.x, gap=g)
                assert float(c @ x) <= best / (1 - g) + 1e-6
            checked += 1
    assert checked == 12


def test_the_rounding_milps_are_announced_in_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rounding MILP is named in the progress lines before it starts (its free vectors
    and limits) and its result after; when the first finds no integer solution, the second
    (over every vector) is announced with the reason."""
    from starmin.algorithms.lp import rounding
    from starmin.algorithms.lp.master import MILPSolution

    rng = np.random.default_rng(11)
    rt = RowTypes.from_arrays(rng.integers(0, 3, size=(60, 4)), rng.integers(0, 4, size=60))
    said: list[str] = []
    plan = lp_rounding.solve(rt, LDiversity(2), progress=said.append)
    milp = [s for s in said if s.startswith("rounding MILP")]
    assert len(milp) == 2, said
    assert "vectors free" in milp[0] and "at most 2,000 branch-and-bound nodes" in milp[0]
    assert "stars" in milp[1]
    assert plan.stars >= 0

    inner = rounding.solve_milp
    calls: list[bool] = []

    def first_finds_nothing(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs.get("fixed") is not None)
        if kwargs.get("fixed") is not None:
            return MILPSolution(None, None, None, False, "node limit reached")
        return inner(*args, **kwargs)

    monkeypatch.setattr(rounding, "solve_milp", first_finds_nothing)
    said.clear()
    lp_rounding.solve(rt, LDiversity(2), progress=said.append)
    assert calls == [True, False]
    milp = [s for s in said if s.startswith("rounding MILP")]
    assert len(milp) == 3 and "no integer solution with the rest fixed (node limit reached)" \
        in milp[1] and "over all" in milp[1], said


def test_a_node_limit_without_a_solution_is_said_in_words() -> None:
    """HiGHS reports its node limit as a "solution limit" that SciPy prints as an unknown
    status code; the MILP's message names the node limit instead, other messages pass."""
    from starmin.algorithms.lp.master import build, milp_message, solve_milp

    rng = np.random.default_rng(0)
    rt = RowTypes.from_arrays(rng.integers(0, 3, size=(40, 4)), rng.integers(0, 4, size=40))
    model = TCloseness("0.15")
    cg = column_generation(rt, lp_rounding.primary(relaxations(model, rt)))
    prog = build(cg.pairs, lp_rounding.combined(model, rt), cg.blocks)
    stopped = solve_milp(prog, node_limit=0)
    assert stopped.x is None and stopped.message == "HiGHS stopped at its node limit (0 nodes)"
    assert solve_milp(prog).optimal
    assert milp_message("Optimization terminated successfully.", 5) == \
        "Optimization terminated successfully."
    assert milp_message("(HiGHS Status 16: model_status is Solution limit reached)", None) == \
        "HiGHS stopped at its node limit"
