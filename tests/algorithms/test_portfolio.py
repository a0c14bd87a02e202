"""Tests of ``--method auto``, the portfolio (src/starmin/algorithms/portfolio.py).

It releases the fewest stars among the members it ran (here a table where TP+, which auto
used to pick for frequency l-diversity, is beaten); it is deterministic per seed; it reports
every member (run, skipped as unsupported or over budget, failed); the budget counts
estimated work units, never seconds; an exact member that succeeds ends the search; ties go to
the stronger guarantee; a named method runs alone. No assertion here depends on time.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import starmin
from starmin.algorithms import portfolio, registry
from starmin.algorithms.base import Algorithm, AutoRun, fixed_work
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput, SolverLimit
from starmin.models import KAnonymity, LDiversity, PrivacyModel
from starmin.transform.plan import STAR, Guarantee, ReleasePlan
from tests.helpers.plans import same_plan
from tests.helpers.tables import random_table

# frequency 3-diversity on 300 random rows: too big for brute force, l = 3 beyond the
# 2-diversity methods; tp, tp+, hilbert, merge-repair and lp-rounding all run, and lp-rounding
# wins (300 stars against merge-repair's 486; its certified LP bound is 296)
RT = random_table(11, 300, m=4, values=4, s=4)
L3 = LDiversity(3)


def _statuses(plan: ReleasePlan) -> dict[str, str]:
    return {t["method"]: t["status"] for t in plan.certificate["portfolio"]}


def test_auto_releases_the_fewest_stars_of_the_methods_it_ran() -> None:
    plan, trials = portfolio.run(RT, L3)
    ran = {t.method: t.stars for t in trials if t.status in ("released", "tried")}
    assert set(ran) == {"tp+", "tp", "hilbert", "merge-repair", "lp-rounding"}
    assert plan.stars == min(v for v in ran.values() if v is not None)
    # the method auto used to pick first (tp+) is worse here: the release is not tp+'s
    tp_plus = registry.get("tp+").solve(RT, L3)
    assert ran["tp+"] == tp_plus.stars > plan.stars
    assert plan.method == "lp-rounding" and plan.guarantee.kind == "heuristic"
    assert ran["merge-repair"] > plan.stars
    # the LP bound lp-rounding proved is the plan's bound, and the report can reuse it
    assert plan.lower_bound == plan.certificate["lp_bound"] <= plan.stars
    # the release keeps its own guarantee; tp+'s proven ratio bounds it too (fewer stars)
    ratio = plan.certificate["portfolio_ratio"]
    assert ratio["via"] == "tp+" and ratio["ratio"] == tp_plus.guarantee.ratio
    plan.validate(RT)


def test_auto_through_solve_and_anonymize_reports_every_member() -> None:
    plan = starmin.solve(RT, L3)
    status = _statuses(plan)
    assert set(status) == set(portfolio.members())
    assert status["lp-rounding"] == "released"
    assert status["tp+"] == status["tp"] == status["hilbert"] == status["merge-repair"] == "tried"
    for name in ("brute-force", "two-diversity-flow", "two-diversity-milp", "pattern-packing",
                 "m-approx"):
        assert status[name] == "skipped"
    reasons = {t["method"]: t.get("reason", "") for t in plan.certificate["portfolio"]}
    assert reasons["m-approx"].startswith("unsupported: ")
    assert plan.certificate["portfolio_budget"]["units"] == portfolio.BUDGET


def test_report_lists_the_methods_tried(tmp_path: Path) -> None:
    import polars as pl

    qi = [f"q{j}" for j in range(RT.m)]
    codes = np.repeat(RT.codes, RT.sizes, axis=0)
    sa = np.concatenate([np.repeat(np.arange(RT.s), RT.counts[i]) for i in range(RT.t_in)])
    df = pl.DataFrame({**{q: codes[:, j] for j, q in enumerate(qi)}, "s": sa.astype(str)})
    rel = starmin.anonymize(df, qi, "s", l=3)
    r = rel.report
    tried = {t["method"]: t for t in r["portfolio"] if t["status"] in ("released", "tried")}
    assert {"tp+", "merge-repair"} <= set(tried)
    assert r["stars"] == min(t["stars"] for t in tried.values())
    assert tried[r["method"]]["status"] == "released"
    assert all(t["guarantee"] and t["work"] is not None for t in tried.values())
    assert "portfolio" not in r["certificate"]  # reported once, at the top
    from starmin.report.text import summary

    text = summary(r)
    assert "portfolio  auto: " in text and "released" in text
    # a named method: no portfolio
    named = starmin.anonymize(df, qi, "s", l=3, method="tp+").report
    assert named["method"] == "tp+" and named["portfolio"] is None


def test_same_seed_same_release() -> None:
    a, b = starmin.solve(RT, L3, seed=5), starmin.solve(RT, L3, seed=5)
    assert same_plan(a, b)
    assert a.certificate == b.certificate


def test_named_method_runs_alone() -> None:
    plan = starmin.solve(RT, L3, "tp+")
    assert plan.method == "tp+" and "portfolio" not in plan.certificate
    with pytest.raises(InvalidInput, match="named method"):
        starmin.solve(RT, L3, "auto", cut="greedy")
    tiny = starmin.solve(RT, L3, budget=0.0)  # only the cheapest member runs
    ran = [t["method"] for t in tiny.certificate["portfolio"] if t["stars"] is not None]
    assert ran == ["tp"] and tiny.certificate["portfolio_budget"]["units"] == 0.0


def test_exact_member_ends_the_search_on_a_tiny_table() -> None:
    rt = random_table(3, 9, m=3, values=2, s=3)
    plan = starmin.solve(rt, LDiversity(2))
    assert plan.method == "brute-force"
    status = _statuses(plan)
    assert status["brute-force"] == "released"
    reasons = {t["method"]: t.get("reason", "") for t in plan.certificate["portfolio"]}
    assert reasons["merge-repair"].startswith("not needed: the exact method brute-force")
    assert all(s in ("released", "skipped") for s in status.values())


def test_every_member_estimates_finite_nonnegative_work() -> None:
    for name, a in portfolio.members().items():
        assert a.auto is not None
        for model in (KAnonymity(2), L3):
            if a.supports(model, RT) is None:
                r = a.auto(model, RT, portfolio.BUDGET)
                assert math.isfinite(r.work) and r.work >= 0, name


def test_a_big_instance_skips_the_members_over_budget() -> None:
    """40,000 mostly distinct rows: merge-repair's estimate (about 3e-5 x t_in x m x k^0.75
    units) exceeds the default budget, so it is skipped without running, and said so; the
    cheap frequency-l members run and the best of them is released."""
    big = random_table(5, 40_000, m=8, values=8, s=14)
    assert big.t_in > 30_000
    plan = starmin.solve(big, L3)
    trials = {t["method"]: t for t in plan.certificate["portfolio"]}
    mr = trials["merge-repair"]
    assert mr["status"] == "skipped" and mr["reason"].startswith("over budget")
    assert mr["stars"] is None and mr["work"] > portfolio.BUDGET
    ran = {n: t["stars"] for n, t in trials.items() if t["status"] in ("released", "tried")}
    assert set(ran) == {"tp+", "tp", "hilbert"}
    assert plan.stars == min(ran.values())
    budget = plan.certificate["portfolio_budget"]
    assert budget["spent"] == pytest.approx(sum(trials[n]["work"] for n in ran), abs=1e-2)
    assert budget["spent"] <= portfolio.BUDGET


# ----------------------------------------------------------------------------------------
# the budget, ties and failures, on a registry of stand-ins


def _plan(rt: RowTypes, name: str, kind: str, stars_cols: int) -> ReleasePlan:
    """Every row in one class with the first ``stars_cols`` columns starred (k-anonymous
    whenever the other columns are constant, as in :func:`_table`)."""
    ti, ki = np.nonzero(rt.counts)
    out = rt.codes[:1].copy()
    out[0, :stars_cols] = STAR
    return ReleasePlan(out, np.zeros_like(ti), ti, ki, rt.counts[ti, ki], name,
                       Guarantee(kind, "stand-in", ratio=2.0 if kind == "ratio" else None))


def _table() -> RowTypes:
    """Eight rows, three columns; only the first varies (starring it is enough)."""
    X = np.zeros((8, 3), dtype=np.int64)
    X[:, 0] = np.arange(8) % 4
    return RowTypes.from_arrays(X)


def _member(name: str, kind: str, stars_cols: int, work: Any, calls: list[str],
            fail: bool = False) -> Algorithm:
    def solve(rt: RowTypes, model: PrivacyModel, **_: Any) -> ReleasePlan:
        calls.append(name)
        if fail:
            raise SolverLimit(f"{name}: node limit")
        return _plan(rt, name, kind, stars_cols)

    estimate = work if callable(work) else (lambda m, rt: work)
    return Algorithm(name, "stand-in", Guarantee(kind, "stand-in"), solve,
                     lambda m, rt: None, auto=fixed_work(estimate))


@pytest.fixture
def stand_ins(monkeypatch: pytest.MonkeyPatch) -> Any:
    def install(*algs: Algorithm) -> None:
        monkeypatch.setattr(registry, "algorithms", lambda: {a.name: a for a in algs})

    return install


def test_over_budget_members_are_skipped_and_reported(stand_ins: Any) -> None:
    calls: list[str] = []
    rt = _table()
    # work grows with the instance: 1 unit per row type for "big", a constant for the others
    stand_ins(_member("cheap", "ratio", 3, 0.5, calls),
              _member("big", "heuristic", 1, lambda m, rt: float(rt.t_in), calls),
              _member("mid", "heuristic", 2, 2.0, calls))
    plan, trials = portfolio.run(rt, KAnonymity(2), budget=3.0)
    by = {t.method: t for t in trials}
    assert calls == ["cheap", "mid"]                      # cheapest first; 4 units > 0.5 left
    assert by["big"].status == "skipped" and by["big"].reason.startswith("over budget")
    assert by["big"].work == 4.0 and by["big"].stars is None
    assert plan.method == "mid" and plan.certificate["portfolio_budget"]["spent"] == 2.5
    # a larger budget lets it run, and it wins
    calls.clear()
    plan, _ = portfolio.run(rt, KAnonymity(2), budget=10.0)
    assert calls == ["cheap", "mid", "big"] and plan.method == "big"


def test_the_cheapest_member_runs_even_over_budget(stand_ins: Any) -> None:
    calls: list[str] = []
    stand_ins(_member("a", "heuristic", 2, 50.0, calls), _member("b", "heuristic", 1, 60.0,
                                                                  calls))
    plan, trials = portfolio.run(_table(), KAnonymity(2), budget=1.0)
    assert calls == ["a"] and plan.method == "a"
    assert {t.method: t.status for t in trials} == {"a": "released", "b": "skipped"}


def test_members_choose_their_variant_from_the_units_left(stand_ins: Any) -> None:
    calls: list[str] = []
    seen: list[dict[str, Any]] = []
    base = _member("v", "heuristic", 1, 0.0, calls)

    def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0, progress: Any = None,
              **options: Any) -> ReleasePlan:
        seen.append(options)
        return _plan(rt, "v", "heuristic", 1)

    def auto(model: PrivacyModel, rt: RowTypes, left: float) -> AutoRun:
        return AutoRun(5.0) if left >= 5.0 else AutoRun(1.0, {"light": True}, "light")

    stand_ins(replace(base, solve=solve, auto=auto))
    _, trials = portfolio.run(_table(), KAnonymity(2), budget=2.0)
    assert seen == [{"light": True}] and trials[0].note == "light"
    portfolio.run(_table(), KAnonymity(2), budget=8.0)
    assert seen[-1] == {}


def test_ties_go_to_the_stronger_guarantee_then_registry_order(stand_ins: Any) -> None:
    calls: list[str] = []
    stand_ins(_member("h1", "heuristic", 1, 0.1, calls), _member("r", "ratio", 1, 0.2, calls),
              _member("h2", "heuristic", 1, 0.05, calls))
    plan, _ = portfolio.run(_table(), KAnonymity(2))
    assert plan.method == "r"
    stand_ins(_member("h1", "heuristic", 1, 0.1, calls), _member("h2", "heuristic", 1, 0.05,
                                                                  calls))
    plan, _ = portfolio.run(_table(), KAnonymity(2))
    assert plan.method == "h1"  # registry order, although h2 ran first (cheaper)


def test_a_failed_exact_member_is_reported_and_the_others_run(stand_ins: Any) -> None:
    calls: list[str] = []
    stand_ins(_member("x", "exact", 1, 0.1, calls, fail=True),
              _member("h", "heuristic", 2, 0.1, calls))
    plan, trials = portfolio.run(_table(), KAnonymity(2))
    assert calls == ["x", "h"] and plan.method == "h"
    x = next(t for t in trials if t.method == "x")
    assert x.status == "failed" and "node limit" in x.reason


def test_an_exact_member_stopped_short_of_a_proof_does_not_end_the_search(
        stand_ins: Any) -> None:
    """An exact member whose plan is marked ``bound`` (a work limit stopped it before a
    proof) is one release among the others: the members after it run, the fewest stars
    win, and a tie goes to the plan's own guarantee (``bound`` above ``heuristic``), not
    the member's."""
    calls: list[str] = []
    x = _member("x", "exact", 2, 0.1, calls)
    stopped = replace(x, solve=lambda rt, model, **_: (calls.append("x"),
                                                       _plan(rt, "x", "bound", 2))[1])
    stand_ins(stopped, _member("h", "heuristic", 1, 0.1, calls))
    plan, trials = portfolio.run(_table(), KAnonymity(2))
    assert calls == ["x", "h"] and plan.method == "h"
    assert {t.method: (t.status, t.guarantee) for t in trials} == {
        "x": ("tried", "bound"), "h": ("released", "heuristic")}
    calls.clear()
    stand_ins(stopped, _member("h", "heuristic", 2, 0.1, calls),
              _member("r", "ratio", 2, 0.1, calls))
    plan, _ = portfolio.run(_table(), KAnonymity(2))
    assert calls == ["x", "h", "r"] and plan.method == "r"  # ratio > bound > heuristic
    stand_ins(stopped, _member("h", "heuristic", 2, 0.1, calls))
    plan, _ = portfolio.run(_table(), KAnonymity(2))
    assert plan.method == "x" and plan.guarantee.kind == "bound"


def test_a_method_without_auto_stays_out(stand_ins: Any) -> None:
    calls: list[str] = []
    out = replace(_member("manual", "heuristic", 1, 0.0, calls), auto=None)
    stand_ins(out, _member("h", "heuristic", 1, 0.1, calls))
    _, trials = portfolio.run(_table(), KAnonymity(2))
    assert [t.method for t in trials] == ["h"] and calls == ["h"]
    assert starmin.solve(_table(), KAnonymity(2), "manual").method == "manual"


def test_a_release_without_stars_ends_the_search() -> None:
    """Every row type of 200 rows (40 types, 5 rows each, sensitive values 0..4 in each) is
    5-anonymous and 3-diverse on its own: the first member to run releases 0 stars, which no
    release beats, and every later member is skipped as not needed. A table where one row
    type is short still runs more than one member."""
    X = np.repeat(np.array([[a, b] for a in range(8) for b in range(5)]), 5, axis=0)
    sa = np.tile(np.arange(5), 40)
    rt = RowTypes.from_arrays(X, sa)
    for model in (KAnonymity(5), L3):
        plan = starmin.solve(rt, model)
        assert plan.stars == 0
        status = _statuses(plan)
        ran = [m for m, s in status.items() if s in ("released", "tried")]
        assert len(ran) == 1 and status[ran[0]] == "released"
        reasons = {t["method"]: t.get("reason", "") for t in plan.certificate["portfolio"]}
        later = [m for m, r in reasons.items() if r.startswith("not needed")]
        # an exact member (class-partition, up to 60 row types) proves the 0 an optimum
        assert later and all(f"{ran[0]} released no stars" in reasons[m]
                             or f"exact method {ran[0]} released an optimum" in reasons[m]
                             for m in later)
    short = RowTypes.from_arrays(X[:-1], sa[:-1])  # one row type of 4 rows
    plan = starmin.solve(short, KAnonymity(5))
    assert plan.stars > 0
    reasons = {t["method"]: t.get("reason", "") for t in plan.certificate["portfolio"]}
    assert not any("released no stars" in r for r in reasons.values())


def test_lp_rounding_is_charged_its_rounding_when_the_report_bounds_its_relaxation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """lp-rounding's column generation is the report's LP bound when the report bounds the
    same relaxation: auto charges it a tenth (the rounding), and the report takes its bound
    instead of running the same column generation again; otherwise the full estimate."""
    from starmin.algorithms.lp import colgen, lp_rounding, report_bound
    from starmin.algorithms.lp.relaxation import relaxations

    rt = random_table(7, 300, 5, values=3, s=6)
    model = LDiversity(3)
    rel = lp_rounding.primary(relaxations(model, rt))
    work = colgen.work_units(rt, rel)
    assert work <= report_bound.LP_BOUND_MAX_WORK
    assert lp_rounding.auto_run(model, rt, 8.0).work == pytest.approx(0.1 * work)
    plan, _ = portfolio.run(rt, model)
    assert plan.certificate["lp_relaxation"] == rel.name  # lp-rounding ran (and was released)
    calls: list[str] = []
    real = colgen.column_generation
    monkeypatch.setattr(colgen, "column_generation",
                        lambda rt_, rel_, **k: calls.append(rel_.name) or real(rt_, rel_, **k))
    from starmin.api import _known_lp, lower_bounds

    bounds = lower_bounds(rt, model, known_lp=_known_lp(plan))
    assert bounds["lp"] >= plan.certificate["lp_bound"]
    assert rel.name not in calls  # the report took lp-rounding's bound for that relaxation
    monkeypatch.setattr(report_bound, "LP_BOUND_MAX_WORK", 0.0)
    assert lp_rounding.auto_run(model, rt, 8.0).work == pytest.approx(1.1 * work)


def test_k_anonymity_alone_charges_lp_rounding_in_full() -> None:
    """For k-anonymity alone the report runs no LP bound (it takes the k-anonymity bounds the
    release's method computed), so lp-rounding's column generation is not shared."""
    from starmin.algorithms.lp import colgen, lp_rounding
    from starmin.algorithms.lp.relaxation import relaxations

    rt = random_table(8, 200, 4, values=3)
    model = KAnonymity(3)
    work = colgen.work_units(rt, lp_rounding.primary(relaxations(model, rt)))
    assert lp_rounding.auto_run(model, rt, 8.0).work == pytest.approx(1.1 * work)


def test_the_rounding_estimate_does_not_fall_with_fewer_qi_columns() -> None:
    """Under t-closeness and frequency l >= 4 lp-rounding's rounding MILP is counted as
    ``T_ROUNDING x work^2``; its cost follows the rows, not the patterns the LP priced (adult's
    first 40 rows at t = 0.2 rounded in 19 / 12 CPU s with 8 / 6 QIs, l = 5 on 150 rows in
    11.9 / 8.6 s), so the same rows with fewer QI columns keep most of the estimate (without
    the floor of :func:`lp_rounding.rounding_work`: a sixteenth of it with 6 columns)."""
    from starmin.algorithms.lp import lp_rounding
    from starmin.models import EqualDistance, TCloseness

    rng = np.random.default_rng(9)
    X = rng.integers(0, 3, size=(60, 8))
    sa = rng.integers(0, 6, size=60)
    for model in (TCloseness(0.3, EqualDistance()), LDiversity(5)):
        est = {m: lp_rounding.auto_run(model, RowTypes.from_arrays(X[:, :m], sa), 8.0).work
               for m in (8, 6, 4)}
        assert est[6] >= 0.5 * est[8] and est[4] >= 0.3 * est[8], (model.name, est)


def test_the_t_rounding_estimate_does_not_fall_with_fewer_sensitive_values() -> None:
    """Under t-closeness the rounding MILP's estimate takes at least ``T_MIN_SPREAD`` values
    (:func:`lp_rounding.t_spread_floor`): with 5 sensitive values instead of 10 it keeps about
    a fifth of it (the LP's entries ``t_in r`` still halve); without the floor about a
    fiftieth (``(r / 2)^4`` as well)."""
    from starmin.algorithms.lp import lp_rounding
    from starmin.models import EqualDistance, TCloseness

    rng = np.random.default_rng(21)
    X = rng.integers(0, 3, size=(200, 5))
    sa10 = rng.integers(0, 10, size=200)
    est = {r: lp_rounding.auto_run(TCloseness(0.3, EqualDistance()),
                                   RowTypes.from_arrays(X, sa10 % r), 8.0).work
           for r in (5, 10)}
    assert est[5] >= 0.15 * est[10], est


def test_auto_releases_merge_repair_where_the_t_rounding_would_take_minutes() -> None:
    """200 random rows, 5 QIs of 3 values, 5 sensitive values, t = 0.3: lp-rounding's
    rounding MILP took 11-25 CPU s there (k = 3 with t = 0.2: 65-236 s) against an estimate
    of 2.2 units before :data:`lp_rounding.T_MIN_SPREAD`; now it is over the default budget."""
    rng = np.random.default_rng(22)
    X = rng.integers(0, 3, size=(200, 5))
    rt = RowTypes.from_arrays(X, rng.integers(0, 5, size=200))
    from starmin.models import EqualDistance, TCloseness

    plan, trials = portfolio.run(rt, TCloseness(0.3, EqualDistance()))
    by = {t.method: t for t in trials}
    assert plan.method == "merge-repair"
    assert by["lp-rounding"].status == "skipped" and "over budget" in by["lp-rounding"].reason


def test_a_release_proven_near_optimal_ends_the_search(stand_ins: Any) -> None:
    """A run whose stars are at most (1 + NEAR) times the largest proven lower bound ends the
    search: the later members are skipped as not needed, with the bound in the reason. A
    bound further below the stars lets them run."""
    X = np.zeros((200, 3), dtype=np.int64)
    X[:, 0] = np.arange(200) % 4
    rt = RowTypes.from_arrays(X)  # one class, first column starred: 200 stars
    for lower, skipped in ((200, True), (199, True), (197, False)):  # 1.01 x 198 = 199.98
        calls: list[str] = []
        first = _member("bounded", "heuristic", 1, 0.5, calls)
        solve = first.solve
        bounded = replace(first, solve=lambda rt, model, _s=solve, _l=lower, **kw:
                          _s(rt, model, **kw).with_info(lower_bound=_l))
        stand_ins(bounded, _member("later", "heuristic", 1, 1.0, calls))
        plan, trials = portfolio.run(rt, KAnonymity(2))
        by = {t.method: t for t in trials}
        assert plan.method == "bounded" and plan.stars == 200 and plan.lower_bound == lower
        if skipped:
            assert calls == ["bounded"] and by["later"].status == "skipped"
            assert by["later"].reason == (
                "not needed: bounded's 200 stars equal a proven lower bound: an optimum"
                if lower == 200 else "not needed: bounded's 200 stars are proven within 1% of "
                "the optimum (lower bound 199: at most 1 fewer stars possible)")
        else:
            assert calls == ["bounded", "later"] and by["later"].status == "tried"
