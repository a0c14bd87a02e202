"""Tests of pattern packing (src/starmin/algorithms/heuristic/pattern_packing.py).

Every output must validate and be k-anonymous; on small random tables it can never beat the
brute-force optimum and its lower bound never exceeds it; on ARX adult it must beat ARX's best
cell-suppression release (22,880 stars for k = 2, 38,219 for k = 5; external targets)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.heuristic import pattern_packing
from starmin.algorithms.heuristic.pattern_packing import pack
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput
from starmin.models import KAnonymity
from starmin.models.apply import holds
from starmin.transform.plan import STAR, ReleasePlan
from tests.helpers.adult import adult_csv
from tests.helpers.tables import expanded, from_rows, random_table


def _check(rt: RowTypes, k: int, **options: object) -> ReleasePlan:
    plan = pattern_packing.solve(rt, KAnonymity(k), **options)
    plan.validate(rt)
    assert holds(KAnonymity(k), rt, plan.class_key_counts(rt.s)).all()
    assert plan.class_sizes.min() >= k
    assert plan.stars <= plan.certificate["pattern_stars"]  # suppressors never add stars
    if plan.lower_bound is not None:
        assert plan.lower_bound <= plan.stars
    return plan


def test_registered_entry() -> None:
    a = pattern_packing.ALGORITHM
    assert a.name == "pattern-packing"
    assert a.guarantee.kind == "heuristic"
    assert a.supports(KAnonymity(2), from_rows([[0]])) is None


@pytest.mark.parametrize("seed", range(40))
def test_never_below_the_optimum_and_bound_below_it(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(4, 11)), int(rng.integers(2, 5))
    rt = random_table(seed, n, m, values=int(rng.integers(2, 4)))
    k = int(rng.integers(2, min(4, n) + 1))
    plan = _check(rt, k)
    opt = brute_force.solve(rt, KAnonymity(k)).stars
    assert plan.lower_bound is not None
    assert plan.lower_bound <= opt <= plan.stars


@pytest.mark.parametrize("seed", range(10))
def test_sensitive_keys_and_duplicate_row_types(seed: int) -> None:
    rt = random_table(100 + seed, 12, 3, values=3, s=3)
    for k in (2, 3, 5):
        plan = _check(rt, k)
        dup = _check(expanded(rt), k)  # equal QI vectors as separate row types
        assert dup.lower_bound is not None and plan.lower_bound is not None
        assert dup.lower_bound == plan.lower_bound  # bounds depend on rows, not on grouping
        opt = brute_force.solve(rt, KAnonymity(k)).stars
        assert plan.lower_bound <= opt <= min(plan.stars, dup.stars)


def test_borrowing_a_surplus_row_is_optimal() -> None:
    # (0,1) is alone; (0,0) x3 can lend one row: class (0,*) of 2 rows, 2 stars (optimal)
    plan = _check(from_rows([[0, 0]] * 3 + [[0, 1]]), 2)
    assert plan.stars == 2 == plan.lower_bound
    assert sorted(plan.outputs.tolist()) == [[0, STAR], [0, 0]]


def test_leftover_widens_the_cheapest_class() -> None:
    # (1,1) is alone and nobody can lend a row: it joins (1,0) x2 as (1,*): 3 stars
    plan = _check(from_rows([[0, 0]] * 2 + [[1, 0]] * 2 + [[1, 1]]), 2)
    assert plan.stars == 3 == brute_force.solve(from_rows(
        [[0, 0]] * 2 + [[1, 0]] * 2 + [[1, 1]]), KAnonymity(2)).stars


def test_packing_takes_the_row_with_fewest_options_first() -> None:
    # a path a - b - c - d of rows at distance 1 (one column each): pairing (b, c) first would
    # strand a and d; min-degree packing starts at an end and pairs (a, b), (c, d): 4 stars
    rt = from_rows([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]])
    plan = _check(rt, 2)
    assert plan.stars == 4 == brute_force.solve(rt, KAnonymity(2)).stars


def test_trivial_and_edge_cases() -> None:
    rt = from_rows([[0, 1], [1, 0], [1, 1]])
    assert _check(rt, 1).stars == 0
    plan = _check(rt, 3)  # k = n: one class, every column starred
    assert plan.stars == 6 and plan.t_out == 1
    with pytest.raises(Infeasible):
        pattern_packing.solve(rt, KAnonymity(4))
    with pytest.raises(InvalidInput, match="unknown option"):
        pattern_packing.solve(rt, KAnonymity(2), speed=3)


def test_other_models_are_refused() -> None:
    class Other:
        name = "other"

    assert pattern_packing.supports(Other(), from_rows([[0]])) is not None  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="k-anonymity only"):
        pattern_packing.solve(from_rows([[0]]), Other())  # type: ignore[arg-type]


def test_deterministic_per_seed_and_valid_for_other_seeds() -> None:
    rt = random_table(7, 60, 5, values=3)
    a = _check(rt, 3, seed=1)
    b = _check(rt, 3, seed=1)
    assert np.array_equal(a.outputs, b.outputs) and np.array_equal(a.count, b.count)
    _check(rt, 3, seed=2)


def test_fallback_past_the_pattern_budget_and_progress() -> None:
    rt = random_table(3, 40, 6, values=4)
    lines: list[str] = []
    plan = pattern_packing.solve(rt, KAnonymity(3), max_patterns=1, progress=lines.append,
                                 bounds=False)
    plan.validate(rt)
    assert plan.class_sizes.min() >= 3
    assert any("max_patterns" in line for line in lines)


def test_assignment_invariants_hold_after_packing() -> None:
    rt = random_table(11, 200, 6, values=3)
    a = pack(rt, 4)
    a.check()
    assert int(a.free.sum()) == 0


def test_no_borrowing_is_still_valid() -> None:
    rt = random_table(12, 80, 5, values=3)
    _check(rt, 4, borrow_slack=-1.0)


def _adult(columns: list[str] | None = None) -> RowTypes:
    df = pl.read_csv(adult_csv(), separator=";", infer_schema_length=0)
    cols = columns or df.columns
    X = np.stack([df[c].rank("dense").to_numpy().astype(np.int64) - 1 for c in cols], axis=1)
    return RowTypes.from_arrays(X, qi=cols)


def test_adult_beats_arx_cell_suppression() -> None:
    rt = _adult()
    assert (rt.n, rt.m) == (30162, 9)
    for k, arx in ((2, 22880), (5, 38219)):
        plan = _check(rt, k)
        assert plan.stars < arx
        assert plan.lower_bound is not None and plan.lower_bound <= plan.stars


def test_adult_without_salary_class() -> None:
    cols = ["sex", "age", "race", "marital-status", "education", "native-country",
            "workclass", "occupation"]
    rt = _adult(cols)
    _check(rt, 3, bounds=False)


def test_bucket_lp_on_off_and_skipped() -> None:
    rt = random_table(13, 120, 5, values=3)
    with_lp = _check(rt, 3, bounds=False)
    without = _check(rt, 3, lp_levels=0, bounds=False)
    lines: list[str] = []
    skipped = pattern_packing.solve(rt, KAnonymity(3), lp_max_vars=1, bounds=False,
                                    progress=lines.append)
    skipped.validate(rt)
    assert any("skipped" in line for line in lines)
    assert skipped.stars == without.stars  # the LP skipped is the greedy alone
    assert with_lp.lower_bound is None


def test_bucket_lp_competition_by_hand() -> None:
    """Rows (0,0), (0,1), (1,1), k = 2, level 1: the buckets "col 0 = 0" and "col 1 = 1"
    hold 2 rows each (fill 1); the row types lie in 1, 2 and 1 of them: competition 4/3."""
    from starmin.algorithms.heuristic._assignment import Assignment
    from starmin.algorithms.heuristic._bucket_lp import _Model
    from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level

    rt = from_rows([[0, 0], [0, 1], [1, 1]])
    a = Assignment(PatternKeys(rt.codes), rt.sizes, 2)
    M = _Model(a, 1, masks_of_level(2, 1), max_extra=1)
    assert len(M.buckets) == 2
    assert M.competition(a) == pytest.approx(4 / 3)


def test_bucket_lp_skipped_when_crowded() -> None:
    """A uniform table's level-2 LP (every row type in many buckets of about k rows; on this
    table it took HiGHS 12 CPU s for 6 whole buckets) is left to the greedy by default; a
    small uniform table's LPs are solved without the limit. Every release verifies."""
    rt = random_table(3, 2000, 6, values=4)
    lines: list[str] = []
    _check(rt, 5, bounds=False, progress=lines.append)
    assert any("level 2: bucket LP" in line and "skipped (crowding" in line for line in lines)
    small = random_table(3, 300, 6, values=4)
    lines.clear()
    _check(small, 5, bounds=False, lp_max_crowding=float("inf"), progress=lines.append)
    assert not any("crowding" in line for line in lines)
    assert any("bucket LP" in line and "opened" in line for line in lines)


@pytest.mark.parametrize("k", [2, 5, 10])
def test_auto_ladder_level_one_costs_the_same_for_every_k(k: int) -> None:
    """``auto``'s rungs: the bucket LPs of levels 1-3 when their estimate fits, else level 1
    alone, whose estimate does not grow with ``k`` (its LP shrinks as ``k`` grows), else
    none; each rung runs with the options it names."""
    rt = random_table(31, 400, 6, values=4)
    base = 2 * pattern_packing.greedy_work(rt)
    one = pattern_packing.level_one_work(rt)
    assert one == pattern_packing.level_one_work(rt) and 0 < one < pattern_packing.lp_work(
        rt, 10)
    full = pattern_packing.auto_run(KAnonymity(k), rt, 1e9)
    assert full.options == {} and full.work == pytest.approx(
        base + pattern_packing.lp_work(rt, k))
    level_one = pattern_packing.auto_run(KAnonymity(k), rt, base + one)
    assert dict(level_one.options) == {"lp_levels": 1}
    assert level_one.work == pytest.approx(base + one)
    if full.work > base + one:  # the k = 2 ladder's first rung may already fit
        assert pattern_packing.auto_run(KAnonymity(k), rt, base + one - 1e-9).options == {
            "lp_levels": 0}
    plan = pattern_packing.solve(rt, KAnonymity(k), bounds=False, **dict(level_one.options))
    assert holds(KAnonymity(k), rt, plan.class_key_counts(rt.s)).all()
