"""The placement LP of the level start (:mod:`starmin.algorithms.heuristic._level_lp`): every
class it forms is l-eligible and sits within its level's stars, it takes no more rows than are
free, its work limits leave the level to the greedy, and on a literal table it places rows
the greedy cannot."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

import numpy as np
import pytest

from starmin.algorithms.approx.tp_phases import phase_one_heights
from starmin.algorithms.heuristic import _level_start, merge_repair
from starmin.algorithms.heuristic._level_lp import level_lp_classes, work
from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level
from starmin.errors import InvalidInput
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LDiversity,
    RecursiveCLDiversity,
)
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel
from tests.helpers.level_classes import check_level_classes
from tests.helpers.tables import from_rows, random_table


def _free(counts: np.ndarray, l: int) -> np.ndarray:
    c = counts.astype(np.int64)
    return c - np.minimum(c, phase_one_heights(c, l)[:, None])


def _never(pool: np.ndarray) -> np.ndarray:
    """A judge that passes no pool: the level start then takes each pool's phase-one part."""
    return np.zeros(len(pool), dtype=bool)


def _greedy_level(pk: PatternKeys, free: np.ndarray, l: int, j: int, m: int) -> None:
    """The level start's greedy at level ``j`` (patterns by rows placed, as level_plan)."""
    part = partial(_level_start._part, judge=_never, l=l)
    _level_start.greedy_level(pk, free, part, masks_of_level(m, j))


@pytest.mark.parametrize("l", [2, 3])
def test_classes_are_eligible_within_their_level_and_take_only_free_rows(l: int) -> None:
    formed = 0
    for seed in range(30):
        m = 3 + seed % 3
        rt = random_table(300 + seed, 60 + 3 * seed, m, values=[2, 3, 2, 4, 3][:m],
                          s=3 + seed % 3)
        pk = PatternKeys(rt.codes)
        free = _free(rt.counts, l)
        for j in (1, 2):
            before = free.copy()
            groups = level_lp_classes(pk, free, l, j, m)
            formed += check_level_classes(rt, LDiversity(l), groups, before, free, j)
    assert formed >= 30


def test_a_literal_table_where_the_lp_places_rows_the_greedy_cannot() -> None:
    """Seven row types over three binary columns, two sensitive values, l = 2: no row type is
    2-eligible alone, so level 0 leaves all 9 rows free. Row types A = 000 (value 1),
    B = 010 (0, 0), C = 011 (0), D = 100 (0), E = 101 (1), F = 110 (0), G = 111 (1, 1).

    Greedy: the patterns place 4 (star the first column: {A, D}, {C, G}), 2 (second: {A, B})
    and 4 (third: {D, E}, {F, G}) rows; it takes the first, after which only {F, G} of the
    third still forms a class: 6 rows. LP: {A, B}, {C, G}, {D, E}, {F, G}, 8 rows, the most
    possible (a 2-eligible class holds no more value-0 rows than value-1 rows, and there are
    four of value 1)."""
    qi = [[0, 0, 0], [0, 1, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1], [1, 1, 0],
          [1, 1, 1], [1, 1, 1]]
    sa = [1, 0, 0, 0, 0, 1, 0, 1, 1]
    rt = from_rows(qi, sa)
    pk = PatternKeys(rt.codes)
    greedy, lp = _free(rt.counts, 2), _free(rt.counts, 2)
    assert greedy.sum() == 9
    _greedy_level(pk, greedy, 2, 1, 3)
    groups = level_lp_classes(pk, lp, 2, 1, 3)
    assert groups is not None
    assert 9 - greedy.sum() == 6
    assert 9 - lp.sum() == 8


def test_work_limits_leave_the_level_to_the_greedy() -> None:
    rt = random_table(7, 80, 4, values=[2, 3, 2, 4], s=3)
    pk = PatternKeys(rt.codes)
    free = _free(rt.counts, 2)
    before = free.copy()
    assert level_lp_classes(pk, free, 2, 1, 4, max_nonzeros=1) is None
    assert level_lp_classes(pk, free, 2, 1, 4, max_iterations=1) is None
    assert np.array_equal(free, before)
    assert level_lp_classes(pk, free, 2, 1, 4)  # without the limits it forms classes
    assert work(rt.counts, 2, 4, 0) == 0.0 < work(rt.counts, 2, 4, 1) < work(rt.counts, 2, 4)


def test_merge_repair_option_and_the_lp_start_release() -> None:
    rt = random_table(11, 120, 4, values=[2, 3, 2, 4], s=4)
    with pytest.raises(InvalidInput, match="level_lp_levels"):
        merge_repair.solve(rt, LDiversity(2), start="levels", level_lp_levels=-1)
    for lp_levels in (0, 1, 2):
        plan = merge_repair.solve(rt, LDiversity(2), start="levels",
                                  level_lp_levels=lp_levels)
        assert holds(LDiversity(2), rt, plan.class_key_counts(rt.s)).all()
        assert plan.certificate["start"] == "levels"


IMPLIED = [DistinctLDiversity(2), DistinctLDiversity(3), EntropyLDiversity(2),
           EntropyLDiversity(3), RecursiveCLDiversity(2, 2), RecursiveCLDiversity(4, 3),
           RecursiveCLDiversity(Fraction(11, 10), 3)]


def test_implied_l_names_the_models_every_l_eligible_class_satisfies() -> None:
    """The claim of ``merge_repair.implied_l``, checked on every histogram of up to 9 rows
    over 4 values: a class with no value above ``1 / l`` of it satisfies each model named,
    and recursive (1, l)-diversity (not named) fails on some of them."""
    rt = random_table(3, 30, 2, values=[2, 2], s=4)
    grid = np.array(np.meshgrid(*[np.arange(5)] * 4)).reshape(4, -1).T
    grid = grid[(grid.sum(axis=1) > 0) & (grid.sum(axis=1) <= 9)]
    for model in IMPLIED:
        l = merge_repair.implied_l(model)
        assert l == model.l
        eligible = grid[grid.max(axis=1) * l <= grid.sum(axis=1)]
        assert len(eligible) > 20
        assert holds(model, rt, eligible).all(), model.name
    for model in (RecursiveCLDiversity(1, 3), LDiversity(2), KAnonymity(3),
                  AllOf(DistinctLDiversity(2), KAnonymity(2))):
        assert merge_repair.implied_l(model) is None
    eligible = grid[grid.max(axis=1) * 3 <= grid.sum(axis=1)]
    assert not holds(RecursiveCLDiversity(1, 3), rt, eligible).all()


@pytest.mark.parametrize("model", IMPLIED, ids=lambda m: m.name)
def test_the_level_start_of_an_implied_model_forms_classes_that_satisfy_it(
        model: PrivacyModel) -> None:
    checked = 0
    for seed in range(12):
        rt = random_table(700 + seed, 80 + 5 * seed, 4, values=[2, 3, 2, 4], s=4)
        judge = merge_repair.make_judge(model, rt)
        assert merge_repair.level_l(model, rt) == model.l
        plan = _level_start.level_plan(rt, judge, model.l, "t", merge_repair.GUARANTEE,
                                       widen=merge_repair.capped_parts(model))
        plan.validate(rt)
        got = np.zeros_like(rt.counts)
        np.add.at(got, (plan.type_idx, plan.key_idx), plan.count)
        assert np.array_equal(got, rt.counts)  # every row once
        starred = plan.stars_per_output > 0
        assert holds(model, rt, plan.class_key_counts(rt.s))[starred].all()
        checked += int(starred.sum())
    assert checked >= 20


def test_competition_by_hand() -> None:
    """Rows (0,0) u0, (0,1) u1, (1,1) u0, l = 2, level 1: the buckets "col 0 = 0" and "col 1
    = 1" each hold 2 free rows of 2 values (fill 2 / l = 1); the cells lie in 1, 2 and 1 of
    them: competition 4/3."""
    from starmin.algorithms.heuristic._level_lp import Buckets, competition

    rt = from_rows([[0, 0], [0, 1], [1, 1]], sa=[0, 1, 0])
    free = rt.counts.astype(np.int64)
    bk = Buckets(PatternKeys(rt.codes), free, 2, masks_of_level(2, 1))
    assert bk.size == 2
    assert competition(bk, free, 2) == pytest.approx(4 / 3)


def test_a_competed_lp_is_left_to_the_greedy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the competition limit the placement LP and the distinct LP form no classes and
    leave ``free`` as it was; without the limit they form classes."""
    from starmin.algorithms.heuristic import _level_lp
    from starmin.algorithms.heuristic._distinct_lp import distinct_lp_classes
    from starmin.models import DistinctLDiversity

    rt = random_table(7, 80, 4, values=[2, 3, 2, 4], s=3)
    pk = PatternKeys(rt.codes)
    free = _free(rt.counts, 2)
    before = free.copy()
    judge = merge_repair.make_judge(DistinctLDiversity(2), rt)
    monkeypatch.setattr(_level_lp, "MIN_NONZEROS_COMPETED", 0)
    monkeypatch.setattr(_level_lp, "MAX_COMPETITION", 0.5)
    assert level_lp_classes(pk, free, 2, 1, 4) is None
    assert distinct_lp_classes(pk, free, 2, judge, 1, 4) is None
    assert np.array_equal(free, before)
    monkeypatch.setattr(_level_lp, "MAX_COMPETITION", float("inf"))
    assert level_lp_classes(pk, free.copy(), 2, 1, 4)
    assert distinct_lp_classes(pk, free, 2, judge, 1, 4)
