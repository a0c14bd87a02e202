"""lp-rounding's rounding MILP by CP-SAT (``rounding_solver="cp-sat"``, :mod:`.cpsat_milp`):
the same MILP as HiGHS's, a deterministic work limit, and ``--method auto``'s use of it for
frequency l >= 4."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp import cpsat_milp, lp_rounding
from starmin.algorithms.lp.colgen import column_generation
from starmin.algorithms.lp.master import build
from starmin.algorithms.lp.relaxation import relaxations
from starmin.algorithms.lp.rounding import round_lp
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput
from starmin.models import (
    AllOf,
    EntropyLDiversity,
    KAnonymity,
    LDiversity,
    PrivacyModel,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.models.apply import holds
from tests.helpers.plans import same_plan

INTEGER_MODELS: dict[str, PrivacyModel] = {
    "k3": KAnonymity(3),
    "l2": LDiversity(2),
    "l3": LDiversity(3),
    "l4": LDiversity(4),
    "recursive-c2-l3": RecursiveCLDiversity(2, 3),
    "k3+l2": AllOf(KAnonymity(3), LDiversity(2)),
}


def table(seed: int, n: int, m: int, values: int) -> RowTypes:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, m))
    S = rng.permutation(np.arange(n) % values)  # balanced: l up to values is feasible
    return RowTypes.from_arrays(X, S)


@pytest.mark.parametrize("name", list(INTEGER_MODELS))
def test_cpsat_releases_verify_and_stay_above_the_optimum(name: str) -> None:
    """On tables brute force solves: the release holds, and bound <= optimum <= stars."""
    model = INTEGER_MODELS[name]
    seen = 0
    for seed in range(10):
        rt = table(seed, 10, 3, 5)
        try:
            opt = brute_force.ALGORITHM.solve(rt, model).stars
        except Infeasible:
            continue
        plan = lp_rounding.solve(rt, model, rounding_solver="cp-sat")
        plan.validate(rt)
        assert holds(model, rt, plan.class_key_counts(rt.s)).all()
        assert plan.lower_bound is not None and plan.lower_bound <= opt <= plan.stars
        seen += 1
    assert seen >= 3


@pytest.mark.parametrize("model", [KAnonymity(4), LDiversity(3), LDiversity(4),
                                   AllOf(KAnonymity(5), LDiversity(2))], ids=str)
def test_cpsat_solves_the_same_milp_as_highs(model: object) -> None:
    """With work to spare CP-SAT proves the rounding MILP's optimum, and it is HiGHS's
    (gap 0): the rows scaled to integers are the same constraints, none loosened or
    tightened. Its proven bound never passes its objective."""
    checked = 0
    for seed in range(4):
        rt = table(seed, 70, 4, 6)
        rel = lp_rounding.primary(relaxations(model, rt))  # type: ignore[arg-type]
        cg = column_generation(rt, rel)
        combined = lp_rounding.combined(model, rt)  # type: ignore[arg-type]
        c = build(cg.pairs, combined, cg.blocks).c[: len(cg.lp.x)]
        highs = float(c @ round_lp(cg.pairs, combined, cg.blocks, cg.lp.x, gap=0.0))
        said: list[str] = []
        x = round_lp(cg.pairs, combined, cg.blocks, cg.lp.x, solver="cp-sat", work=60.0,
                     progress=said.append)
        assert float(c @ x) >= highs - 1e-6  # HiGHS proved its optimum
        if "CP-SAT optimal" in said[-1]:
            assert float(c @ x) == pytest.approx(highs)
            checked += 1
    assert checked >= 3


def test_the_same_seed_gives_the_same_plan_and_a_work_limit_stops_it() -> None:
    rt = table(5, 120, 5, 7)
    model = LDiversity(4)
    a = lp_rounding.solve(rt, model, rounding_solver="cp-sat", rounding_work=0.5, seed=3)
    b = lp_rounding.solve(rt, model, rounding_solver="cp-sat", rounding_work=0.5, seed=3)
    assert same_plan(a, b)
    assert a.stars == b.stars


def test_programs_cpsat_cannot_take_are_refused_with_the_reason() -> None:
    rt = table(2, 40, 3, 5)
    refused: list[tuple[PrivacyModel, str]] = [(TCloseness("0.3"), "continuous variables"),
                                               (EntropyLDiversity(3), "denominator")]
    for model, reason in refused:
        rel = lp_rounding.primary(relaxations(model, rt))
        cg = column_generation(rt, rel)
        prog = build(cg.pairs, lp_rounding.combined(model, rt), cg.blocks)
        why = cpsat_milp.refusal(prog)
        assert why is not None and reason in why
        assert not lp_rounding.cpsat_rounds(model, relaxations(model, rt))
    with pytest.raises(InvalidInput, match="rounding_solver='highs'"):
        lp_rounding.solve(rt, TCloseness("0.3"), rounding_solver="cp-sat")
    for model in INTEGER_MODELS.values():
        rels = relaxations(model, rt)
        assert lp_rounding.cpsat_rounds(model, rels)
        if rels:
            cg = column_generation(rt, lp_rounding.primary(rels))
            assert cpsat_milp.refusal(build(cg.pairs, lp_rounding.combined(model, rt),
                                            cg.blocks)) is None


@pytest.mark.parametrize(("option", "bad", "message"), [
    ("rounding_solver", "scip", "rounding_solver must be one of highs, cp-sat"),
    ("rounding_solver", None, "rounding_solver must be one of"),
    ("rounding_work", 0, "rounding_work must be a positive number"),
    ("rounding_work", -1.0, "rounding_work must be a positive number"),
    ("rounding_work", "2", "rounding_work must be a positive number"),
    ("rounding_work", True, "rounding_work must be a positive number"),
])
def test_the_options_are_checked(option: str, bad: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        lp_rounding.solve(table(1, 30, 3, 4), LDiversity(2), **{option: bad})  # type: ignore[arg-type]


def test_auto_rounds_frequency_l4_by_cpsat_where_highs_is_over_budget() -> None:
    """``--method auto`` runs lp-rounding for frequency l >= 4 with CP-SAT (its rounding
    counted as :data:`CPSAT_UNITS` x :data:`ROUNDING_WORK`, not HiGHS's ``work^2``) when
    HiGHS's estimate is over the units left; without t-closeness only, and never for
    entropy. With units to spare HiGHS rounds, as before."""
    rt = table(8, 150, 6, 8)
    assert "rounding_solver" not in lp_rounding.auto_run(LDiversity(4), rt, 1e9).options
    run = lp_rounding.auto_run(LDiversity(4), rt, 0.0)
    assert run.options["rounding_solver"] == "cp-sat"
    assert run.options["rounding_work"] == lp_rounding.ROUNDING_WORK
    assert run.options["max_iterations"] >= lp_rounding.CPSAT_LP_ITERATIONS
    assert run.work <= (lp_rounding.CPSAT_UNITS * lp_rounding.ROUNDING_WORK
                        + lp_rounding.work_units(rt, lp_rounding.primary(
                            relaxations(LDiversity(4), rt))) + 1e-9)
    assert "CP-SAT" in run.note
    for model in (LDiversity(2), LDiversity(3), EntropyLDiversity(4), TCloseness("0.2"),
                  AllOf(LDiversity(4), TCloseness("0.3"))):
        assert "rounding_solver" not in lp_rounding.auto_run(model, rt, 0.0).options, model
    plan = lp_rounding.solve(rt, LDiversity(4), seed=0, **dict(run.options))
    plan.validate(rt)
    assert holds(LDiversity(4), rt, plan.class_key_counts(rt.s)).all()


def test_the_portfolio_runs_the_cpsat_rounding_and_releases_the_fewer_stars() -> None:
    """On a table where HiGHS's rounding is over ``auto``'s budget but column generation is
    cheap, the portfolio runs lp-rounding with CP-SAT (its trial says so), counts it at
    :data:`CPSAT_UNITS` x :data:`ROUNDING_WORK`, and releases the fewest stars of its runs."""
    from starmin.algorithms import portfolio

    rt = table(8, 300, 6, 8)
    model = LDiversity(5)
    assert lp_rounding.auto_run(model, rt, portfolio.BUDGET).options["rounding_solver"] == "cp-sat"
    plan, trials = portfolio.run(rt, model)
    by = {t.method: t for t in trials}
    lpr = by["lp-rounding"]
    assert lpr.status in ("released", "tried"), lpr
    assert "CP-SAT" in lpr.note
    assert lpr.work == pytest.approx(lp_rounding.CPSAT_UNITS * lp_rounding.ROUNDING_WORK)
    ran = [t.stars for t in trials if t.stars is not None]
    assert lpr.stars is not None and plan.stars == min(ran)
    assert holds(model, rt, plan.class_key_counts(rt.s)).all()
