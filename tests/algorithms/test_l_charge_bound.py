"""Tests of the charge LP bound for frequency l-diversity (``l_charges``,
:mod:`starmin.algorithms.l_charge_bound`).

The bound is only useful if it is never above the optimum: it is checked against brute force
on many small random tables (l = 2, 3), and shown to be above the other diversity bounds on
some of them (a bound that never adds anything would pass the first test too). A literal
table pins one such case at the optimum. The check that guards the solver's answer is shown
to reject raised charges, the work limits to give no bound, and the report to carry it for
frequency l-diversity only."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import starmin
from starmin.algorithms import charge_lp, l_charge_bound
from starmin.algorithms.diversity_levels import last_level, levels
from starmin.algorithms.exact import brute_force
from starmin.algorithms.l_charge_bound import frequency_charge_bound
from starmin.algorithms.l_diversity_bound import diversity_lower_bounds, leaving_rows
from starmin.api import lower_bounds
from starmin.models import AllOf, DistinctLDiversity, KAnonymity, LDiversity
from tests.helpers.solver import shifted
from tests.helpers.tables import frequent_zero_table, from_rows, solved_tables


def _bound(rt: starmin.RowTypes, l: int, **options: Any) -> int | None:
    """The charge LP bound; the tests comparing its stages pass ``widen=0`` (widening,
    :mod:`starmin.algorithms.l_charge_widening`, starts from each stage's own charges)."""
    h = rt.sensitive_histograms(rt.counts)[0]
    needed = ((h > 0).sum(axis=1) < l) | (leaving_rows(h, l).sum(axis=1) > 0)
    lev = levels(rt.codes, h, l, needed)
    return frequency_charge_bound(rt.codes, h, l, lev, last_level(rt.m, rt.t_in), **options)


@functools.cache
def _solved(l: int) -> list[tuple[int, starmin.RowTypes, int]]:
    """The feasible tables of seeds 0..119 with their brute-force optimum."""
    return solved_tables(LDiversity(l), l, 120)


@pytest.mark.parametrize("l", [2, 3])
def test_never_above_the_optimum_and_above_the_other_bounds_somewhere(l: int) -> None:
    charged = above = 0
    cases = _solved(l)
    for seed, rt, opt in cases:
        b = diversity_lower_bounds(rt, [LDiversity(l)])
        c = b.pop("l_charges", None)
        if c is None:
            continue
        charged += 1
        assert c <= opt, (seed, c, opt)
        above += c > max(b.values())
    assert len(cases) >= 20 and charged >= 15
    assert above >= 5, above


@pytest.mark.parametrize("l", [2, 3])
def test_the_smaller_lp_is_a_bound_too_and_the_fallback(l: int) -> None:
    checked = smaller = 0
    for seed, rt, opt in _solved(l):
        full, fixed = (_bound(rt, l, stages=("full",), widen=0),
                       _bound(rt, l, stages=("smaller",), widen=0))
        if fixed is None:
            continue
        checked += 1
        assert fixed <= opt, (seed, fixed, opt)
        assert full is not None and fixed <= full, (seed, fixed, full)  # a restriction
        smaller += fixed < full
        assert _bound(rt, l, widen=0) == full  # the full LP when it fits
    assert checked >= 15 and smaller >= 1


@pytest.mark.parametrize("l", [2, 3])
@pytest.mark.parametrize(("stage", "lp"), [("generated", "full"),
                                           ("generated-smaller", "smaller"), ("pdlp", "full")])
def test_bucket_generation_is_a_bound_near_its_lp(l: int, stage: str, lp: str) -> None:
    """The generation stages (:mod:`starmin.algorithms.charge_generation`): ``"generated"``
    (asked for) never above the full LP, ``"generated-smaller"`` (the default's last) never
    above the smaller LP (so never above brute force), equal to it on most tables; the same
    for the full LP by PDLP, lowered and repaired (``"pdlp"``, :mod:`.charge_pdlp`)."""
    total = reached = 0
    for seed, rt, opt in _solved(l):
        whole, got = _bound(rt, l, stages=(lp,), widen=0), _bound(rt, l, stages=(stage,), widen=0)
        if whole is None:
            continue
        assert got is not None and got <= whole <= opt, (seed, got, whole, opt)
        total += 1
        reached += got == whole
    assert total >= 15 and reached >= total * 0.8, (reached, total)
    with pytest.raises(ValueError, match="unknown charge LP stages"):
        _bound(_solved(l)[0][1], l, stages=("fast",))


def test_over_the_limit_the_smaller_lp_is_tried() -> None:
    # a table where the smaller LP gives less: as the nonzero limit rises, the bound goes
    # from none to the smaller LP's to the full LP's
    rt = next(t for t in (frequent_zero_table(seed, 2) for seed in range(120))
              if (f := _bound(t, 2, stages=("smaller",))) is not None
              and f < (_bound(t, 2, stages=("full",)) or 0))
    full, fixed = _bound(rt, 2, stages=("full",)), _bound(rt, 2, stages=("smaller",))
    seen = []
    for limit in range(0, 3000, 5):
        got = _bound(rt, 2, max_nonzeros=limit)
        if not seen or seen[-1] != got:
            seen.append(got)
    assert seen == [None, fixed, full]
    said: list[str] = []
    _bound(rt, 2, max_nonzeros=0, progress=said.append)
    assert len(said) == 4 and "over its limit" in said[0] and "over its limit" in said[2]
    assert "by PDLP" in said[1] and "over its nonzero limit" in said[1]
    assert "by generation" in said[3] and "over its nonzero limit" in said[3]


def test_a_stopped_full_lp_hands_over_to_pdlp() -> None:
    """When the dual simplex stops on the full LP (here after one iteration), the PDLP stage
    solves the same LP (its repair by Glop, not bound by that limit): a bound never above
    the full LP's, where before the stages ended with none."""
    tried = 0
    for seed, rt, opt in _solved(3)[:30]:
        full = _bound(rt, 3, stages=("full",), widen=0)
        said: list[str] = []
        got = _bound(rt, 3, max_iterations=1, stages=("full", "pdlp"), progress=said.append,
                     widen=0)
        if full is None or not any("stopped" in line for line in said):
            continue
        tried += 1
        assert got is not None and got <= full <= opt, (seed, got, full, opt)
        assert any("by PDLP" in line for line in said)
        assert _bound(rt, 3, max_iterations=1, stages=("full",)) is None
    assert tried >= 10, tried


def test_a_literal_table_where_the_charges_reach_the_optimum() -> None:
    # (0, 0) holds only value 0, so its row carries a star; its one-star buckets (*, 0) and
    # (0, *) put it with rows of (1, 0) only if they carry the same star, so its class costs
    # two stars, not one. (1, 1) = {0, 1, 1} is not 2-eligible: one 1 leaves, and with the
    # same argument costs two. The counting bounds see one star per leaving row (2); the
    # charges see 4, the optimum.
    rt = from_rows([[0, 0], [1, 0], [1, 0], [1, 0], [1, 0], [1, 1], [1, 1], [1, 1]],
                   [0, 0, 0, 1, 2, 0, 1, 1])
    b = diversity_lower_bounds(rt, [LDiversity(2)])
    assert b == {"distinct_values": 1, "l_frequency": 2, "l_value_flow": 2, "l_charges": 4}
    assert brute_force.solve(rt, LDiversity(2)).stars == 4


def test_the_check_rejects_raised_charges(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = from_rows([[0, 0], [1, 0], [1, 0], [1, 0], [1, 0], [1, 1], [1, 1], [1, 1]],
                   [0, 0, 0, 1, 2, 0, 1, 1])
    solve = charge_lp.solve
    monkeypatch.setattr(l_charge_bound, "solve", shifted(solve, 0.3))
    said: list[str] = []
    assert _bound(rt, 2, stages=("full",), progress=said.append) is None
    assert any("failed its check" in line for line in said)
    assert _bound(rt, 2) == 4  # the next stage, PDLP, solves the same LP
    monkeypatch.setattr(l_charge_bound, "solve", shifted(solve, -1.0))
    lowered = _bound(rt, 2, stages=("full",))
    assert lowered is not None and lowered < 4
    monkeypatch.setattr(l_charge_bound, "solve", shifted(solve, 0.0))
    assert _bound(rt, 2) == 4


def test_work_limits_give_no_bound() -> None:
    rt = frequent_zero_table(149, 2)
    assert _bound(rt, 2) is not None
    assert _bound(rt, 2, max_nonzeros=5) is None
    assert _bound(rt, 2, max_iterations=0, stages=("full", "smaller")) is None
    assert _bound(rt, 2, max_iterations=0) is not None  # PDLP after the stopped simplex


def test_level_needed_for_every_row_type_that_must_leave() -> None:
    rt = from_rows([[0, 0], [0, 0], [1, 0]], [0, 0, 1])
    h = rt.sensitive_histograms(rt.counts)[0]
    with pytest.raises(ValueError, match="level"):
        frequency_charge_bound(rt.codes, h, 2, np.zeros(rt.t_in, dtype=np.int64), 1)


def test_last_level_is_where_levels_stops_enumerating() -> None:
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(60, 5))
    rt = starmin.RowTypes.from_arrays(X, rng.integers(0, 4, size=60))
    h = rt.sensitive_histograms(rt.counts)[0]
    needed = np.ones(rt.t_in, dtype=bool)
    full = levels(rt.codes, h, 4, needed)
    for patterns in (1, 5, 6, 15, 16, 30):
        last = last_level(rt.m, rt.t_in, max_patterns=patterns)
        cut = levels(rt.codes, h, 4, needed, max_patterns=patterns)
        assert ((cut == full) | (cut == last + 1)).all(), patterns
        assert (cut <= last + 1).all() and (full[cut == last + 1] >= last + 1).all()
    assert last_level(5, rt.t_in) == 4  # below m: the all-star level is never enumerated


def test_reports_carry_it_for_frequency_l_diversity_only() -> None:
    rt = from_rows([[0, 0], [1, 0], [1, 0], [1, 0], [1, 0], [1, 1], [1, 1], [1, 1]],
                   [0, 0, 0, 1, 2, 0, 1, 1])
    assert lower_bounds(rt, LDiversity(2))["l_charges"] == 4
    assert lower_bounds(rt, AllOf(KAnonymity(2), LDiversity(2)))["l_charges"] == 4
    assert "l_charges" not in lower_bounds(rt, DistinctLDiversity(2))
    # the LP core's optimum over every vector is at least the charges: then they are skipped
    skipped = lower_bounds(rt, LDiversity(2), known_lp={"frequency": 4}, lp_complete=True)
    assert "l_charges" not in skipped
    import polars as pl

    df = pl.DataFrame({"a": ["0", "1", "1", "1", "1", "1", "1", "1"],
                       "b": ["0", "0", "0", "0", "0", "1", "1", "1"],
                       "s": ["x", "x", "x", "y", "z", "x", "y", "y"]})
    for method in ("auto", "merge-repair", "tp"):
        bounds = starmin.anonymize(df, ["a", "b"], "s", l=2, method=method).report[
            "lower_bounds"]
        assert bounds["l_charges"] == 4 == bounds["best"], (method, bounds)
