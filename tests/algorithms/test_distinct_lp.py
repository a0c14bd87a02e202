"""The placement LP of the level start for distinct l-diversity
(:mod:`starmin.algorithms.heuristic._distinct_lp`): every class it forms holds ``l`` values and
sits within its level's stars, it takes no more rows than are free, its optimum is at least
what the level's greedy places, its work limits leave the level to the greedy, and on a
literal table it places the rows a one-value row type needs one partner for, which
frequency's LP cannot."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import numpy as np
import pytest
from scipy.optimize import linprog

from starmin.algorithms.heuristic import _level_start, merge_repair
from starmin.algorithms.heuristic._distinct_lp import (
    distinct_lp_classes,
    joint_buckets,
    joint_lp_classes,
    program,
)
from starmin.algorithms.heuristic._distinct_lp import work as distinct_lp_work
from starmin.algorithms.heuristic._level_lp import Buckets, level_lp_classes
from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LDiversity,
    PSensitiveKAnonymity,
)
from starmin.models.apply import holds
from tests.helpers.joint_runs import joint_and_alone
from tests.helpers.level_classes import check_level_classes
from tests.helpers.tables import from_rows, random_table


def _free(rt: RowTypes, l: int) -> np.ndarray:
    """The rows the level start leaves free at level 0 for distinct l: every row of a row
    type holding fewer than ``l`` values."""
    c = rt.counts.astype(np.int64)
    return np.where(((c > 0).sum(axis=1) < l)[:, None], c, 0)


def _greedy_level(rt: RowTypes, pk: PatternKeys, free: np.ndarray, l: int, j: int) -> None:
    """The level start's greedy at level ``j`` for distinct l (whole pools the model passes)."""
    judge = merge_repair.make_judge(DistinctLDiversity(l), rt)
    part = partial(_level_start._part, judge=judge, l=l)
    _level_start.greedy_level(pk, free, part, masks_of_level(rt.m, j))


def _tables(base: int, count: int) -> Iterator[tuple[int, int, RowTypes]]:
    """``(l, m, table)``: random tables of 50 + 4 i rows and 3-5 QIs, l = 2 and 3 in turn."""
    for i in range(count):
        m = 3 + i % 3
        yield 2 + i % 2, m, random_table(base + i, 50 + 4 * i, m, values=[2, 3, 2, 4, 3][:m],
                                         s=3 + i % 3)


def _optimum(pk: PatternKeys, free: np.ndarray, l: int, j: int, m: int) -> float:
    bk = Buckets(pk, free, l, masks_of_level(m, j))
    if bk.size == 0:
        return 0.0
    c, A, b, upper = program(bk, free, l)
    res = linprog(c, A_ub=A, b_ub=b, bounds=np.column_stack([np.zeros(len(c)), upper]),
                  method="highs")
    assert res.status == 0
    return float(-res.fun)


@pytest.mark.parametrize("joint", [False, True])
@pytest.mark.parametrize("l", [2, 3])
def test_classes_hold_l_values_within_their_level_and_take_only_free_rows(
        l: int, joint: bool) -> None:
    """Each level's LP (levels 1 and 2 in turn), or the joint LP of both (classes of at most
    two stars)."""
    formed = 0
    for seed in range(30):
        m = 3 + seed % 3
        rt = random_table(500 + seed, 60 + 3 * seed, m, values=[2, 3, 2, 4, 3][:m],
                          s=3 + seed % 3)
        judge = merge_repair.make_judge(DistinctLDiversity(l), rt)
        pk = PatternKeys(rt.codes)
        free = _free(rt, l)
        if joint:
            before = free.copy()
            groups = joint_lp_classes(pk, free, l, judge, m)
            formed += check_level_classes(rt, DistinctLDiversity(l), groups, before, free, 2)
            continue
        for j in (1, 2):
            before = free.copy()
            groups = distinct_lp_classes(pk, free, l, judge, j, m)
            formed += check_level_classes(rt, DistinctLDiversity(l), groups, before, free, j)
    assert formed >= 30


def test_the_optimum_is_at_least_what_the_greedy_places() -> None:
    """The greedy's classes at a level are integer points of the LP (module docstring), so the
    LP's optimum is at least the rows they hold; and the rounded LP places rows too."""
    placed = 0
    for l, m, rt in _tables(900, 40):
        pk = PatternKeys(rt.codes)
        free = _free(rt, l)
        greedy = free.copy()
        _greedy_level(rt, pk, greedy, l, 1)
        assert _optimum(pk, free, l, 1, m) >= free.sum() - greedy.sum() - 1e-6
        lp = free.copy()
        distinct_lp_classes(pk, lp, l, merge_repair.make_judge(DistinctLDiversity(l), rt), 1, m)
        placed += int(free.sum() - lp.sum())
    assert placed > 100


def test_a_literal_table_where_one_partner_places_a_whole_row_type() -> None:
    """Row types 00 (value 0, four rows) and 01 (value 1, one row), distinct l = 2: starring
    the second column makes one class of all five rows at one star each. Frequency 2-diversity's
    LP places two rows there (one of each value), this LP all five."""
    rt = from_rows([[0, 0]] * 4 + [[0, 1]], [0, 0, 0, 0, 1])
    pk = PatternKeys(rt.codes)
    judge = merge_repair.make_judge(DistinctLDiversity(2), rt)
    free = _free(rt, 2)
    assert free.sum() == 5
    groups = distinct_lp_classes(pk, free, 2, judge, 1, 2)
    assert groups is not None and len(groups) == 1
    assert int(groups[0][2].sum()) == 5 and free.sum() == 0
    frequency = _free(rt, 2)
    level_lp_classes(pk, frequency, 2, 1, 2)
    assert frequency.sum() == 3


def test_work_limits_leave_the_level_to_the_greedy() -> None:
    rt = random_table(7, 80, 4, values=[2, 3, 2, 4], s=3)
    judge = merge_repair.make_judge(DistinctLDiversity(2), rt)
    pk = PatternKeys(rt.codes)
    free = _free(rt, 2)
    before = free.copy()
    assert distinct_lp_classes(pk, free, 2, judge, 1, 4, max_nonzeros=1) is None
    assert distinct_lp_classes(pk, free, 2, judge, 1, 4, max_iterations=1) is None
    assert np.array_equal(free, before)
    assert distinct_lp_classes(pk, free, 2, judge, 1, 4)  # without the limits it forms classes


def test_merge_repair_takes_it_for_distinct_l_alone_and_releases_verify() -> None:
    assert merge_repair.distinct_only(DistinctLDiversity(3))
    for model in (EntropyLDiversity(2), LDiversity(2), KAnonymity(2),
                  AllOf(DistinctLDiversity(2), KAnonymity(3)), PSensitiveKAnonymity(p=2, k=3)):
        assert not merge_repair.distinct_only(model)
    rt = random_table(40, 150, 4, values=[2, 3, 2, 4], s=4)
    assert distinct_lp_work(rt.counts, 3, 4) > distinct_lp_work(rt.counts, 2, 4) > 0
    for seed in range(6):
        rt = random_table(40 + seed, 120, 4, values=[2, 3, 2, 4], s=4)
        for l in (2, 3):
            model = DistinctLDiversity(l)
            judge = merge_repair.make_judge(model, rt)
            plan = _level_start.level_plan(rt, judge, l, "t", merge_repair.GUARANTEE,
                                           distinct=True)
            plan.validate(rt)
            starred = plan.stars_per_output > 0
            assert holds(model, rt, plan.class_key_counts(rt.s))[starred].all()
            released = merge_repair.solve(rt, model, start="levels")
            assert holds(model, rt, released.class_key_counts(rt.s)).all()
            assert released.certificate["start"] == "levels"


def test_by_default_the_lp_forms_the_classes_of_every_level() -> None:
    """A table of five QIs where levels 3..5 matter: the default equals the LP at every level
    (``distinct_lp_levels=16``) and differs from the LP at levels 1 and 2 (stop 33's
    default); ``level_lp_levels`` (frequency's and t-closeness's LPs) does not change it,
    and a negative ``distinct_lp_levels`` is refused with the fix. Without the joint LP of
    levels 1 and 2 (stop 37), which on this table gives both the same release."""
    rt = random_table(40, 150, 5, values=[3, 4, 3, 4, 3], s=4)
    model = DistinctLDiversity(3)
    alone = {"start": "levels", "distinct_joint": False}
    default = merge_repair.solve(rt, model, **alone)
    every = merge_repair.solve(rt, model, distinct_lp_levels=16, **alone)
    two = merge_repair.solve(rt, model, distinct_lp_levels=2, **alone)
    other = merge_repair.solve(rt, model, level_lp_levels=0, **alone)
    assert np.array_equal(default.class_key_counts(rt.s), every.class_key_counts(rt.s))
    assert np.array_equal(default.class_key_counts(rt.s), other.class_key_counts(rt.s))
    assert default.stars != two.stars
    with pytest.raises(InvalidInput, match="distinct_lp_levels must be >= 0"):
        merge_repair.solve(rt, model, start="levels", distinct_lp_levels=-1)


def test_the_joint_optimum_saves_at_least_the_level_by_level_classes() -> None:
    """The classes levels 1 and 2 form one at a time (their LPs, then the greedy) are an
    integer point of the joint LP, so its optimum saves at least ``3 - level`` stars per row
    they place; and it weighs level 1 twice level 2."""
    compared = 0
    for l, m, rt in _tables(300, 30):
        judge = merge_repair.make_judge(DistinctLDiversity(l), rt)
        pk = PatternKeys(rt.codes)
        free = _free(rt, l)
        joint = joint_buckets(pk, free, l, m)
        assert joint is not None
        bk, saved = joint
        if bk.size == 0:
            continue
        assert set(np.unique(saved).tolist()) <= {1.0, 2.0}
        level_by_level = free.copy()
        stars_saved = 0
        for j in (1, 2):
            rows = level_by_level.sum()
            distinct_lp_classes(pk, level_by_level, l, judge, j, m)
            _greedy_level(rt, pk, level_by_level, l, j)
            stars_saved += (3 - j) * int(rows - level_by_level.sum())
        c, A, b, upper = program(bk, free, l)
        c[: len(bk.bucket)] = -saved
        res = linprog(c, A_ub=A, b_ub=b, bounds=np.column_stack([np.zeros(len(c)), upper]),
                      method="highs")
        assert res.status == 0
        assert -res.fun >= stars_saved - 1e-6
        compared += stars_saved > 0
    assert compared >= 15


def test_the_joint_lp_work_limits_leave_both_levels_to_their_own_lps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from starmin.algorithms.heuristic import _distinct_lp

    rt = random_table(7, 80, 4, values=[2, 3, 2, 4], s=3)
    judge = merge_repair.make_judge(DistinctLDiversity(2), rt)
    pk = PatternKeys(rt.codes)
    free = _free(rt, 2)
    before = free.copy()
    assert joint_lp_classes(pk, free, 2, judge, 4, max_nonzeros=1) is None
    assert joint_lp_classes(pk, free, 2, judge, 4, max_iterations=1) is None
    with monkeypatch.context() as patch:  # the limit per free cell
        patch.setattr(_distinct_lp, "JOINT_ITERATIONS_PER_CELL", 0)
        patch.setattr(_distinct_lp, "JOINT_MIN_ITERATIONS", 1)
        assert joint_lp_classes(pk, free, 2, judge, 4) is None
    assert np.array_equal(free, before)
    assert joint_lp_classes(pk, free, 2, judge, 4)  # without the limits it forms classes


def test_merge_repair_runs_the_joint_lp_by_default_and_can_leave_it_out() -> None:
    """``distinct_joint`` (default True) changes the level start on some tables, and both
    releases verify; ``auto``'s ladder holds the level start without the joint LP between
    the level start with it and pattern-packing's start."""
    tables = (random_table(60 + seed, 150, 5, values=[3, 4, 3, 4, 3], s=5)
              for seed in range(8))
    differ = sum(joint.stars != alone.stars for _, _, joint, alone in joint_and_alone(
        tables, [DistinctLDiversity(2), DistinctLDiversity(3)], "distinct_joint"))
    assert differ >= 2
    rt = random_table(60, 150, 5, values=[3, 4, 3, 4, 3], s=5)
    model = DistinctLDiversity(3)
    runs = [merge_repair.auto_run(model, rt, units) for units in (1e9, 0.0)]
    assert "distinct_joint" not in runs[0].options
    ladder = [merge_repair.auto_run(model, rt, u / 1000) for u in range(0, 20000, 5)]
    without = [r for r in ladder if r.options.get("distinct_joint") is False]
    assert without and all(r.options["start"] == "levels" for r in without)
    with_joint = max(r.work for r in ladder if r.options.get("start") == "levels"
                     and "distinct_joint" not in r.options)
    assert min(r.work for r in without) < with_joint
