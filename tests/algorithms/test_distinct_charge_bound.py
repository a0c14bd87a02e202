"""Tests of the charge LP bound for models needing ``q`` distinct values per class
(``distinct_charges``, :mod:`starmin.algorithms.distinct_charge_bound`).

Never above the optimum: brute force on small random tables for distinct l = 2 and 3,
entropy l = 2, recursive (2, 2) and p-sensitive 2-anonymity, and above the other diversity
bounds on many of them (the positive-excess term ``P(B)`` matters: a mutation that drops it
from the LP and the check went above the optimum on 31 of 199 such tables, stop 29). A
literal table pins a case at the optimum; the check rejects raised charges; the work limits
give no bound; reports carry it for these models and not for frequency l-diversity."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import starmin
from starmin.algorithms import charge_generation, charge_lp
from starmin.algorithms.distinct_charge_bound import distinct_charge_bound as bound_of
from starmin.algorithms.diversity_levels import last_level, levels
from starmin.algorithms.exact import brute_force
from starmin.algorithms.l_diversity_bound import diversity_lower_bounds
from starmin.api import lower_bounds
from starmin.errors import Infeasible
from starmin.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    LDiversity,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
)
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from tests.helpers.solver import shifted
from tests.helpers.tables import from_rows, random_table

MODELS = [DistinctLDiversity(2), DistinctLDiversity(3), EntropyLDiversity(2),
          RecursiveCLDiversity(2, 2), PSensitiveKAnonymity(p=2, k=2)]


def _bound(rt: starmin.RowTypes, q: int, **options: Any) -> int | None:
    h = rt.sensitive_histograms(rt.counts)[0]
    lev = levels(rt.codes, h, q, (h > 0).sum(axis=1) < q)
    return bound_of(rt.codes, h, q, lev, last_level(rt.m, rt.t_in), **options)


@functools.cache
def _solved() -> list[tuple[PrivacyModel, starmin.RowTypes, int]]:
    out = []
    for seed in range(60):
        m = 2 + seed % 3
        rt = random_table(9000 + seed, 9 + seed % 4, m, values=[2, 3, 2, 3][:m],
                          s=3 + seed % 2)
        for model in MODELS:
            try:
                check_feasible(model, rt)
            except Infeasible:
                continue
            out.append((model, rt, int(brute_force.solve(rt, model).stars)))
    return out


def test_never_above_the_optimum_and_above_the_other_bounds_often() -> None:
    above_others = 0
    for model, rt, opt in _solved():
        b = diversity_lower_bounds(rt, [model])
        got = b.get("distinct_charges")
        if got is None:
            continue
        assert got <= opt, (model.name, b, opt)
        above_others += got > max(v for k, v in b.items() if k != "distinct_charges")
    assert len(_solved()) > 250 and above_others >= 100


def test_the_smaller_lp_is_a_bound_too() -> None:
    for model, rt, opt in _solved()[:150]:
        q = 3 if model == DistinctLDiversity(3) else 2
        small = _bound(rt, q, stages=("smaller",))
        full = _bound(rt, q, stages=("full",))
        if small is not None:
            assert small <= opt and (full is None or small <= full)


def test_bucket_generation_on_the_smaller_lp_is_a_bound_near_it() -> None:
    total = reached = 0
    for model, rt, opt in _solved()[:150]:
        q = 3 if model == DistinctLDiversity(3) else 2
        small = _bound(rt, q, stages=("smaller",))
        got = _bound(rt, q, stages=("generated-smaller",))
        if small is None:
            continue
        assert got is not None and got <= small <= opt, (model.name, got, small, opt)
        total += 1
        reached += got == small
    assert total >= 50 and reached >= total * 0.8, (reached, total)


def test_a_literal_table_where_the_charges_reach_the_optimum() -> None:
    """Row types 00 (value 0), 01 (values 0 and 1) and 11 (value 2, three rows); distinct
    l = 2. The four rows of 00 and 11 each need a star (level 1): 4. The optimum is 6: the
    three rows of 11 need a class with another value, which only 01 can give, at one star
    each with it (4), and 00's row then needs 01's other row (2)."""
    rt = from_rows([[0, 0], [0, 1], [0, 1], [1, 1], [1, 1], [1, 1]], [0, 0, 1, 2, 2, 2])
    b = diversity_lower_bounds(rt, [DistinctLDiversity(2)])
    assert b == {"distinct_values": 4, "distinct_charges": 6}
    assert brute_force.solve(rt, DistinctLDiversity(2)).stars == 6


def test_the_check_rejects_raised_charges(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = from_rows([[0, 0], [0, 1], [0, 1], [1, 1], [1, 1], [1, 1]], [0, 0, 1, 2, 2, 2])
    from starmin.algorithms import charge_pdlp
    from starmin.algorithms import distinct_charge_bound as dcb

    solve, pdlp = charge_lp.solve_glop, charge_pdlp.solve_pdlp
    # every LP is solved through dcb's Glop call or PDLP's and settled (gridded, checked) in
    # charge_lp.settle; bucket generation's first LP too
    for by in (0.3, -1.0, 0.0):
        monkeypatch.setattr(dcb, "solve_glop", shifted(solve, by))
        monkeypatch.setattr(charge_pdlp, "solve_pdlp", shifted(pdlp, by))
        got = _bound(rt, 2)
        if by > 0:
            assert got is None
        elif by < 0:
            assert got is not None and got < 6
        else:
            assert got == 6


def test_work_limits_and_levels() -> None:
    rt = from_rows([[0, 0], [0, 1], [0, 1], [1, 1], [1, 1], [1, 1]], [0, 0, 1, 2, 2, 2])
    assert _bound(rt, 2, max_nonzeros=5) is None
    assert _bound(rt, 2, max_work=0.0, max_pdlp_work=0) is None
    said: list[str] = []  # PDLP's limit leaves the bound to generation
    assert _bound(rt, 2, max_pdlp_work=0, progress=said.append) == 6
    assert "over PDLP's work limit" in said[0] and "generation" in said[-1]
    said.clear()  # the first Glop LP reaches the limit: no further LP is tried
    assert _bound(rt, 2, max_work=0.0, max_pdlp_work=0, progress=said.append) is None
    assert sum("stopped at its work limit" in line for line in said) == 1
    assert "no further distinct charge LP" in said[-1]
    h = rt.sensitive_histograms(rt.counts)[0]
    with pytest.raises(ValueError, match="level"):
        bound_of(rt.codes, h, 2, np.zeros(rt.t_in, dtype=np.int64), 1)


def test_reports_carry_it_for_the_distinct_value_models_only() -> None:
    rt = from_rows([[0, 0], [0, 1], [0, 1], [1, 1], [1, 1], [1, 1]], [0, 0, 1, 2, 2, 2])
    for model in (DistinctLDiversity(2), RecursiveCLDiversity(2, 2)):
        assert lower_bounds(rt, model)["distinct_charges"] == 6, model.name
    assert "distinct_charges" not in lower_bounds(rt, LDiversity(2))
    # entropy l's own LP (at least the distinct LP's optimum) stands in for it
    entropy = lower_bounds(rt, EntropyLDiversity(2))
    assert "distinct_charges" not in entropy and entropy["entropy_charges"] >= 6
    import polars as pl

    df = pl.DataFrame({"a": ["0", "0", "0", "1", "1", "1"], "b": ["0", "1", "1", "1", "1", "1"],
                       "s": ["x", "x", "y", "z", "z", "z"]})
    rel = starmin.anonymize(df, ["a", "b"], "s", l=2, l_kind="distinct")
    assert rel.report["lower_bounds"]["distinct_charges"] == 6 == rel.report["stars"]


def test_a_stage_that_gives_nothing_leaves_the_bound_to_the_next_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """By default the full LP by PDLP is tried first, bucket generation next and the
    smaller LP last; when a stage gives nothing (here: its repair made to return nothing),
    the next one gives the bound. The full LP by the dual simplex is a stage to ask for,
    tried in the order given. (Widening, :mod:`starmin.algorithms.l_charge_widening`, is
    left out: it settles LPs of its own after the stage.)"""
    from starmin.algorithms import distinct_charge_bound as dcb

    cases = [(rt, 3 if model == DistinctLDiversity(3) else 2) for model, rt, _ in _solved()]
    both = [(rt, q) for rt, q in cases[:120]
            if _bound(rt, q, stages=("generated",), widen=0) is not None
            and _bound(rt, q, stages=("smaller",), widen=0) is not None]
    assert len(both) >= 10
    assert dcb.STAGES == ("pdlp", "generated", "smaller")
    real = charge_lp.settle
    calls: list[str] = []
    failing: set[str] = set()

    def stops(lp: Any, cells: Any, work: Any, report: Any, what: str,
              check: Any) -> int | None:
        calls.append(what)
        return None if what in failing else real(lp, cells, work, report, what, check)

    monkeypatch.setattr(dcb, "settle", stops)
    monkeypatch.setattr(charge_generation, "settle", stops)
    for rt, q in both:
        alone = _bound(rt, q, stages=("pdlp",), widen=0)
        calls.clear()
        assert _bound(rt, q, widen=0) == alone
        assert calls == ["distinct charge LP by PDLP (repair)"]
    failing.add("distinct charge LP by PDLP (repair)")
    for rt, q in both:
        alone = _bound(rt, q, stages=("generated",), widen=0)
        calls.clear()
        assert _bound(rt, q, widen=0) == alone
        pdlp = [what for what in calls if "PDLP" in what]
        assert calls[:2] == pdlp  # the repair and its retry from a lower point, then generation
        assert all("generation" in what for what in calls[2:])
    failing.add("distinct charge LP by generation (repair)")
    for rt, q in both:
        calls.clear()
        assert _bound(rt, q, widen=0) == _bound(rt, q, stages=("smaller",), widen=0)
        assert "PDLP" in calls[0] and "generation" in calls[2] and "fixed" in calls[-1]
    failing.clear()
    for rt, q in both[:5]:
        full = _bound(rt, q, stages=("full",), widen=0)
        calls.clear()
        assert full is not None and _bound(rt, q, stages=("full", "smaller"), widen=0) == full
        assert calls == ["distinct charge LP"]


@pytest.mark.parametrize(("stage", "share"), [("generated", 0.8), ("pdlp", 0.9)])
def test_a_stage_is_a_bound_near_the_full_lp(stage: str, share: float) -> None:
    """Bucket generation (:mod:`starmin.algorithms.charge_generation`) and the full LP by
    PDLP, lowered and repaired (:mod:`starmin.algorithms.charge_pdlp`), are never above brute
    force, never above the full LP (whose optimum they can only approach: each repairs a
    point into a feasible one), and reach it on most tables (``share``); on some the point
    breaks buckets, so the repair runs."""
    reached = total = broke = 0
    for model, rt, opt in _solved():
        q = 3 if model == DistinctLDiversity(3) else 2
        said: list[str] = []
        got = _bound(rt, q, progress=said.append, stages=(stage,), widen=0)
        full = _bound(rt, q, stages=("full",), widen=0)
        if got is None or full is None:
            continue
        assert got <= full <= opt, (model.name, got, full, opt)
        total += 1
        reached += got == full
        broke += any(" breaks " in line and "breaks 0 " not in line for line in said)
    assert total >= 200 and reached >= total * share and broke >= 1, (reached, broke, total)


def test_bucket_generation_repairs_what_its_seeded_lp_breaks() -> None:
    """A table whose seeded LP (the buckets tight at the level charges) breaks buckets it
    left out, so the repair LP runs and the checked answer is still at most brute force."""
    reports: list[str] = []
    for model, rt, opt in _solved():
        q = 3 if model == DistinctLDiversity(3) else 2
        reports.clear()
        got = _bound(rt, q, progress=reports.append, stages=("generated",))
        if any("breaks" in line and "breaks 0 " not in line for line in reports):
            assert got is not None and got <= opt
            return
    raise AssertionError("no table's seeded LP broke a bucket")


def test_pdlp_gives_the_same_answer_on_any_number_of_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """PDLP's answer depends on its shard count (:data:`.charge_pdlp.SHARDS`), not on the
    threads working them: the same charges to the last bit with 1, 2 and 3 threads, so the
    bound is the same on any machine."""
    from starmin.algorithms import charge_pdlp

    seen: list[bytes] = []
    real = charge_pdlp.solve_pdlp

    def keep(*args: Any) -> Any:
        a = real(*args)
        seen.append(a.tobytes())
        return a

    monkeypatch.setattr(charge_pdlp, "solve_pdlp", keep)
    rt = random_table(4242, 400, 4, values=[3, 3, 4, 3], s=4)
    answers = []
    for threads in (1, 2, 3):
        monkeypatch.setattr(charge_pdlp, "THREADS", threads)
        seen.clear()
        answers.append((_bound(rt, 3, stages=("pdlp",)), tuple(seen)))
    assert answers[0][0] is not None and answers[0][1]
    assert answers[0] == answers[1] == answers[2]


def test_a_pdlp_answer_that_is_not_finite_gives_no_bound(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A diverged PDLP iterate (here: NaN charges from a stand-in solver) is refused with a
    progress line: no bound from that stage (the real solver gives 6 on the same table)."""
    from types import SimpleNamespace

    from ortools.math_opt.core.python import solver as core

    def diverged(model: Any, *args: Any) -> Any:
        ids = list(model.objective.linear_coefficients.ids)
        values = SimpleNamespace(ids=ids, values=[float("nan")] * len(ids))
        solution = SimpleNamespace(primal_solution=SimpleNamespace(variable_values=values),
                                   HasField=lambda name: True)
        return SimpleNamespace(solutions=[solution], termination=SimpleNamespace(reason=1),
                               solve_stats=SimpleNamespace(first_order_iterations=1))

    rt = from_rows([[0, 0], [0, 1], [0, 1], [1, 1], [1, 1], [1, 1]], [0, 0, 1, 2, 2, 2])
    monkeypatch.setattr(core, "solve", diverged)
    said: list[str] = []
    assert _bound(rt, 2, progress=said.append, stages=("pdlp",)) is None
    assert any("not finite" in line for line in said)
    monkeypatch.undo()
    assert _bound(rt, 2, stages=("pdlp",)) == 6


def test_a_failed_pdlp_repair_is_tried_once_more_from_a_lower_point(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """When the repair from PDLP's answer lowered by ``MARGIN`` gives nothing (here made to),
    the repair from the answer lowered by ``RETRY_MARGIN`` gives the bound: never above the
    full LP, and the progress lines name both points."""
    from starmin.algorithms import charge_pdlp

    real = charge_generation.settle
    first: list[bool] = []

    def fails_once(lp: Any, cells: Any, work: Any, report: Any, what: str,
                   check: Any) -> int | None:
        if "PDLP" in what and not first:
            first.append(True)
            return None
        return real(lp, cells, work, report, what, check)

    monkeypatch.setattr(charge_generation, "settle", fails_once)
    tried = 0
    for model, rt, _ in _solved()[:40]:
        q = 3 if model == DistinctLDiversity(3) else 2
        first.clear()
        said: list[str] = []
        got = _bound(rt, q, progress=said.append, stages=("pdlp",))
        full = _bound(rt, q, stages=("full",))
        if full is None or not first:
            continue
        tried += 1
        assert got is not None and got <= full
        assert any(f"lowered by {charge_pdlp.RETRY_MARGIN:g}" in line for line in said)
    assert tried >= 20
