"""Tests of the charge LP bound (``starmin.algorithms.charge_bound``).

The bound is only useful if it is never above the optimum: it is checked against brute force
on many small random tables (k = 2..4), and against the partner bound it refines (every
partner charge vector is a feasible point of the LP, so the LP is never lower). A literal
table pins a case where it is strictly higher and equals the optimum; the check that guards
the solver's answer is held to a naive top-k sum and shown to reject raised charges."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from starmin.algorithms.bounds import k_anonymity_lower_bounds, pattern_levels, top_sums
from starmin.algorithms.charge_bound import charge_lower_bound, satisfied
from starmin.algorithms.exact import brute_force
from starmin.algorithms.heuristic.pattern_keys import PatternKeys
from starmin.models import KAnonymity
from tests.helpers.tables import from_rows, random_table


@pytest.mark.parametrize("seed", range(80))
def test_never_above_the_optimum_and_never_below_partner(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(4, 15)), int(rng.integers(2, 5))
    rt = random_table(7100 + seed, n, m, values=int(rng.integers(2, 4)))
    k = int(rng.integers(2, min(4, n) + 1))
    opt = brute_force.solve(rt, KAnonymity(k)).stars
    charges = charge_lower_bound(rt, k)
    b = k_anonymity_lower_bounds(rt, k)
    if charges is None:  # nothing to charge: every row type resolved at level 0 or unresolved
        lv = pattern_levels(rt, k)
        level = lv.L
        assert not ((level >= 1) & (level <= lv.last)).any()
        return
    assert charges <= opt, (charges, opt)
    assert charges >= b["best"], (charges, b)


def test_a_literal_table_where_the_charges_reach_the_optimum() -> None:
    # D = (2,2,2) is one column from each of A, B, C, which are two columns from each other.
    # Every row needs one star (pattern 4), and each level-1 bucket {X, D} holds two rows of
    # level 1, so the partner bound adds nothing (4). But D can pair with only one of them:
    # charges 0 for D and 2 for A, B, C fit every bucket ({X, D}: 2 + 0 <= 2 x 1), so 6,
    # the optimum ({A, D} one star each, {B, C} two each)
    rt = from_rows([[0, 2, 2], [2, 0, 2], [2, 2, 1], [2, 2, 2]])
    b = k_anonymity_lower_bounds(rt, 2)
    assert (b["pattern"], b["partner"]) == (4, 4)
    assert charge_lower_bound(rt, 2) == 6 == brute_force.solve(rt, KAnonymity(2)).stars


def test_top_sums_against_a_naive_sum() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        nb = int(rng.integers(1, 5))
        size = int(rng.integers(1, 12))
        bucket = rng.integers(0, nb, size).astype(np.int64)
        value = rng.integers(-4, 4, size).astype(np.float64) / 2
        count = rng.integers(1, 4, size).astype(np.int64)
        k = int(rng.integers(1, 6))
        got = top_sums(bucket, value, count, k, nb)
        for b in range(nb):
            rows = sorted((v for v, c, bb in zip(value, count, bucket, strict=True)
                           if bb == b for _ in range(c)), reverse=True)
            assert got[b] == pytest.approx(sum(rows[:k]))


def test_the_check_rejects_raised_charges() -> None:
    rt = random_table(77, 12, 3, values=2)
    k = 2
    lv = pattern_levels(rt, k)
    keys = PatternKeys(rt.codes)
    n = rt.sizes.astype(np.int64)
    base = lv.L.astype(np.float64)
    assert satisfied(keys, lv, n, k, base)  # the pattern bound's charges always pass
    level = lv.L
    raised = np.where((level >= 1) & (level <= lv.last), level + 1.0, level)
    assert not satisfied(keys, lv, n, k, raised)


def test_work_limits_give_no_bound() -> None:
    rt = random_table(5, 14, 4, values=3)
    full = charge_lower_bound(rt, 2)
    assert full is not None
    assert charge_lower_bound(rt, 2, max_nonzeros=5, max_pdlp_work=0) is None
    by_pdlp = charge_lower_bound(rt, 2, max_nonzeros=5)  # over it: PDLP, then the repair
    assert by_pdlp is not None and by_pdlp <= full
    assert charge_lower_bound(rt, 2, max_iterations=1) is None


@pytest.mark.parametrize("seed", range(40))
def test_pdlp_over_the_dual_simplex_limit_is_a_bound_near_the_lp(seed: int) -> None:
    """Over ``max_nonzeros`` (here 0: every LP) the full LP is solved by PDLP, lowered and
    repaired (:mod:`starmin.algorithms.charge_pdlp`): never above brute force nor the LP's
    optimum (its repaired answer is a feasible point), within a star of it."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(6, 15)), int(rng.integers(2, 5))
    rt = random_table(8100 + seed, n, m, values=int(rng.integers(2, 4)))
    k = int(rng.integers(2, min(4, n) + 1))
    full = charge_lower_bound(rt, k, widen=0)  # the plain LP (widening: its own tests)
    said: list[str] = []
    got = charge_lower_bound(rt, k, said.append, max_nonzeros=0, widen=0)
    if full is None:
        assert got is None
        return
    assert got is not None and full - 1 <= got <= full <= brute_force.solve(
        rt, KAnonymity(k)).stars, (got, full)
    assert said == [] or any("PDLP" in line for line in said)


def test_pdlp_s_answer_is_repaired_where_it_breaks_buckets() -> None:
    """Tables whose PDLP answer breaks buckets: the repair LP runs and the checked bound is
    still at most the LP's optimum."""
    repaired = 0
    for seed in range(60):
        rt = random_table(9100 + seed, 40, 4, values=3)
        said: list[str] = []
        got = charge_lower_bound(rt, 3, said.append, max_nonzeros=0, widen=0)
        if any("breaks" in line and "breaks 0 " not in line for line in said):
            full = charge_lower_bound(rt, 3, widen=0)
            assert got is not None and full is not None and got <= full
            repaired += 1
    assert repaired >= 3, repaired


def test_a_failed_pdlp_repair_is_tried_once_more_from_a_lower_point(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """When the repair from PDLP's answer lowered by ``MARGIN`` gives nothing (here made to),
    the repair from the answer lowered by ``RETRY_MARGIN`` gives the bound: never above the
    LP's optimum nor brute force, and the progress lines name both points; when both fail
    there is no bound."""
    from starmin.algorithms import charge_bound, charge_pdlp

    real = charge_bound._repair
    calls: list[float] = []

    def fails_once(keys: Any, lv: Any, n: Any, k: int, free: Any, charge: Any,
                   *rest: Any) -> Any:
        calls.append(float(charge[free].sum()))
        return None if len(calls) == 1 else real(keys, lv, n, k, free, charge, *rest)

    monkeypatch.setattr(charge_bound, "_repair", fails_once)
    tried = 0
    for seed in range(30):
        rt = random_table(9300 + seed, 12, 3, values=3)
        full = charge_lower_bound(rt, 2, widen=0)
        calls.clear()
        said: list[str] = []
        got = charge_lower_bound(rt, 2, said.append, max_nonzeros=0, widen=0)
        if full is None or not calls:
            continue
        tried += 1
        assert len(calls) == 2 and calls[1] <= calls[0]  # the second point is lower
        assert got is not None and got <= full <= brute_force.solve(rt, KAnonymity(2)).stars
        assert any(f"lowered by {charge_pdlp.MARGIN:g}" in line for line in said)
        assert any(f"lowered by {charge_pdlp.RETRY_MARGIN:g}" in line for line in said)
    assert tried >= 10, tried
    monkeypatch.setattr(charge_bound, "_repair", lambda *args: None)
    rt = random_table(9300, 12, 3, values=3)
    assert charge_lower_bound(rt, 2, max_nonzeros=0, max_iterations=39_999) is None


def test_nothing_to_charge() -> None:
    assert charge_lower_bound(from_rows([[0, 0]] * 4), 2) is None  # every row at level 0
    assert charge_lower_bound(from_rows([[0, 0]] * 4), 1) is None


def test_reports_carry_the_charges_for_k_anonymity_only() -> None:
    import polars as pl

    import starmin

    df = pl.DataFrame({"a": ["0", "2", "2", "2"], "b": ["2", "0", "2", "2"],
                       "c": ["2", "2", "1", "2"], "s": ["x", "y", "x", "y"]})
    for method in ("auto", "merge-repair", "pattern-packing"):
        bounds = starmin.anonymize(df, ["a", "b", "c"], k=2, method=method).report[
            "lower_bounds"]
        assert bounds["charges"] == 6 == bounds["best"], (method, bounds)
    bounds = starmin.anonymize(df, ["a", "b", "c"], "s", l=2).report["lower_bounds"]
    assert "charges" not in bounds


def test_pattern_packing_states_it_as_its_bound() -> None:
    from starmin.algorithms.heuristic import pattern_packing

    rt = from_rows([[0, 2, 2], [2, 0, 2], [2, 2, 1], [2, 2, 2]])
    plan = pattern_packing.solve(rt, KAnonymity(2))
    assert plan.certificate["lower_bounds"]["charges"] == 6 == plan.lower_bound
    assert "charges" not in pattern_packing.solve(rt, KAnonymity(2), bounds=False).certificate


def test_answers_are_remembered_by_the_row_types() -> None:
    rows = [[0, 3, 3], [3, 0, 3], [3, 3, 1], [3, 3, 3]]  # the literal table, relabelled:
    first: list[str] = []                                # not asked before in this process
    assert charge_lower_bound(from_rows(rows), 2, progress=first.append) == 6
    assert any("solved in" in line for line in first)
    again: list[str] = []  # the same row types, built afresh: remembered, no LP
    assert charge_lower_bound(from_rows(rows), 2, progress=again.append) == 6 and again == []
    other: list[str] = []  # one more row: another table, solved
    more = from_rows([*rows, [1, 1, 1]])
    value = charge_lower_bound(more, 2, progress=other.append)
    assert any("solved in" in line for line in other)
    assert value is not None and value <= brute_force.solve(more, KAnonymity(2)).stars


def test_not_solved_above_its_competition(monkeypatch: pytest.MonkeyPatch) -> None:
    """A uniform table whose row types lie in several buckets of about k rows: its charge LP
    is skipped above ``max_competition`` (no bound, a progress line saying why) and solved
    without the limit (then never below the partner bound; the cache keeps the two apart)."""
    from starmin.algorithms import charge_bound

    monkeypatch.setattr(charge_bound, "MIN_NONZEROS_COMPETED", 0)
    rt = random_table(5, 300, 6, values=4)
    lines: list[str] = []
    assert charge_lower_bound(rt, 5, lines.append, max_competition=2.0) is None
    assert any("competition" in line for line in lines)
    solved = charge_lower_bound(rt, 5, max_competition=float("inf"))
    assert solved is not None
    assert solved >= k_anonymity_lower_bounds(rt, 5)["best"]


def test_a_crowded_lp_gets_fewer_iterations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above ``CROWDED`` competition HiGHS gets ``CROWDED_ITERATIONS``: with one iteration
    the LP stops and gives no bound; below it the same LP is solved."""
    from starmin.algorithms import charge_bound
    from starmin.algorithms.charge_bound import MAX_ITERATIONS, MAX_NONZEROS, _charge_bound

    rt = random_table(5, 300, 6, values=4)
    monkeypatch.setattr(charge_bound, "CROWDED_ITERATIONS", 1)
    monkeypatch.setattr(charge_bound, "CROWDED", 0.0)
    assert _charge_bound(rt, 3, print, MAX_NONZEROS, MAX_ITERATIONS) is None
    monkeypatch.setattr(charge_bound, "CROWDED", float("inf"))
    assert _charge_bound(rt, 3, print, MAX_NONZEROS, MAX_ITERATIONS) is not None
