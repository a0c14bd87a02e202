"""The level start of merge-repair (frequency l-diversity): every class it forms at a level is
l-eligible, no row is lost, its rows sit at no more stars than their level, and the release
built on it satisfies the model and is never below the optimum (brute force)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from starmin.algorithms.approx.tp_phases import phase_one_heights
from starmin.algorithms.diversity_levels import levels
from starmin.algorithms.exact import brute_force
from starmin.algorithms.heuristic import _level_start, merge_repair
from starmin.algorithms.heuristic._level_start import level_plan
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LDiversity,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel
from tests.helpers.tables import feasible, from_rows, random_table, tiny_tables


@pytest.mark.parametrize("l", [2, 3])
def test_the_start_keeps_every_row_and_its_level_classes_are_eligible(l: int) -> None:
    checked = 0
    for seed in range(40):
        m = 3 + seed % 3
        rt = random_table(900 + seed, 40 + seed, m, values=[2, 3, 2, 4, 3][:m], s=3 + seed % 2)
        if not feasible(LDiversity(l), rt):
            continue
        checked += 1
        judge = merge_repair.make_judge(LDiversity(l), rt)
        plan = level_plan(rt, judge, l, "t", merge_repair.GUARANTEE)
        plan.validate(rt)
        assert np.array_equal(plan.class_key_counts(rt.s).sum(axis=0), rt.counts.sum(axis=0))
        got = np.zeros_like(rt.counts)
        np.add.at(got, (plan.type_idx, plan.key_idx), plan.count)
        assert np.array_equal(got, rt.counts)  # every row once
        ok = holds(LDiversity(l), rt, plan.class_key_counts(rt.s))
        spo = plan.stars_per_output
        starred = spo > 0
        assert ok[starred].all()  # every class formed at a level is l-eligible
        # the star-free classes are the row types' kept parts, plus their rows left over
        # when nothing took them: a row type's star-free class holds all of its kept rows
        counts = rt.counts.astype(np.int64)
        kept = np.minimum(counts, phase_one_heights(counts, l)[:, None]).sum(axis=1)
        free_rows = np.bincount(plan.type_idx, weights=plan.count * (~starred[plan.out_idx]),
                                minlength=rt.t_in)
        assert (free_rows >= kept).all()
        # a starred row of v sits at least at v's level (the bound's argument, on the start)
        lev = levels(rt.codes, rt.counts, l, np.ones(rt.t_in, dtype=bool))
        at = spo[plan.out_idx]
        assert (at[at > 0] >= lev[plan.type_idx[at > 0]]).all()
    assert checked >= 12


@pytest.mark.parametrize("model", [LDiversity(2), LDiversity(3),
                                   AllOf(KAnonymity(2), LDiversity(3))], ids=lambda m: m.name)
def test_releases_from_the_level_start_satisfy_the_model_and_stay_above_the_optimum(
        model: LDiversity | AllOf) -> None:
    checked = 0
    for _, rt in tiny_tables(700):
        if not feasible(model, rt):
            continue
        checked += 1
        plan = merge_repair.solve(rt, model, start="levels")
        assert holds(model, rt, plan.class_key_counts(rt.s)).all()
        assert plan.stars >= brute_force.solve(rt, model).stars
        assert plan.certificate["start"] == "levels"
    assert checked >= 10


def test_a_literal_table() -> None:
    # A = (0, 0) holds a, a, b; B = (0, 1) holds a, b, b; l = 2 keeps a, b of each star-free
    # and the left-over a (of A) and b (of B) meet at one star in (0, *): 2 stars in all
    rt = from_rows([[0, 0]] * 3 + [[0, 1]] * 3, [0, 0, 1, 0, 1, 1])
    judge = merge_repair.make_judge(LDiversity(2), rt)
    plan = level_plan(rt, judge, 2, "t", merge_repair.GUARANTEE)
    assert plan.stars == 2 == brute_force.solve(rt, LDiversity(2)).stars
    assert holds(LDiversity(2), rt, plan.class_key_counts(rt.s)).all()


CAPPED = [EntropyLDiversity(2), EntropyLDiversity(3), RecursiveCLDiversity(2, 2),
          RecursiveCLDiversity(4, 3), RecursiveCLDiversity(Fraction(11, 10), 3),
          RecursiveCLDiversity(3, 4)]


@pytest.mark.parametrize("model", CAPPED, ids=lambda m: m.name)
def test_the_passing_caps_are_an_interval_and_the_widest_is_kept(model: PrivacyModel) -> None:
    """``_level_start._widest_cap``'s premise, by brute force over every cap of random pools:
    the caps ``h`` whose part ``min(pool, h)`` the model passes are ``1 .. h*`` (or none), and
    ``_part`` keeps ``min(pool, h*)`` of a pool failing whole: never less than phase one."""
    assert merge_repair.capped_parts(model)
    rng = np.random.default_rng(11)
    rt = random_table(4, 30, 2, values=[2, 2], s=5)
    pools = rng.integers(0, 40, size=(4000, 5)) * (rng.random((4000, 5)) < 0.7)
    pools[:, 0] += rng.integers(0, 120, size=4000)       # one value often dominates
    pools = pools[pools.sum(axis=1) > 0]
    judge = merge_repair.make_judge(model, rt)
    got = _level_start._part(pools, judge, model.l, widen=True)
    phase_one = np.minimum(pools, phase_one_heights(pools, model.l)[:, None])
    assert (got >= phase_one).all()
    failing = ~holds(model, rt, pools)
    widened = 0
    for pool, part in zip(pools[failing], got[failing], strict=True):
        ok = holds(model, rt, np.minimum(pool[None, :], np.arange(1, pool.max() + 1)[:, None]))
        h_star = int(ok.sum())
        assert ok[:h_star].all()                          # an interval from 1
        assert np.array_equal(part, np.minimum(pool, h_star))
        widened += int(part.sum() > np.minimum(pool, phase_one_heights(
            pool[None, :], model.l)[0]).sum())
    assert failing.sum() > 500 and widened > 200
    assert np.array_equal(got[~failing], pools[~failing])


def test_a_literal_capped_part() -> None:
    # recursive (4, 3) on a pool of 10 a, 1 b, 1 c: the tail is c's one row, so a keeps at
    # most 3 rows (3 < 4 x 1); phase one (l = 3) keeps one of each value
    rt = random_table(4, 30, 2, values=[2, 2], s=3)
    model = RecursiveCLDiversity(4, 3)
    judge = merge_repair.make_judge(model, rt)
    pool = np.array([[10, 1, 1]])
    assert _level_start._part(pool, judge, 3).tolist() == [[1, 1, 1]]
    assert _level_start._part(pool, judge, 3, widen=True).tolist() == [[3, 1, 1]]


@pytest.mark.parametrize("model", [DistinctLDiversity(2), EntropyLDiversity(2),
                                   TCloseness("0.4"), KAnonymity(2)], ids=lambda m: m.name)
def test_other_models_take_whole_pools_the_model_passes(model: PrivacyModel) -> None:
    checked = 0
    for seed in range(30):
        rng = np.random.default_rng(300 + seed)
        n, m = int(rng.integers(6, 11)), int(rng.integers(2, 4))
        rt = RowTypes.from_arrays(rng.integers(0, 2, size=(n, m)),
                                  rng.permutation(np.arange(n) % 3))
        if not feasible(model, rt):
            continue
        checked += 1
        judge = merge_repair.make_judge(model, rt)
        start = level_plan(rt, judge, None, "t", merge_repair.GUARANTEE)
        start.validate(rt)
        ok = holds(model, rt, start.class_key_counts(rt.s))
        assert ok[start.stars_per_output > 0].all()  # every class formed at a level passes
        plan = merge_repair.solve(rt, model, start="levels")
        assert holds(model, rt, plan.class_key_counts(rt.s)).all()
        assert plan.stars >= brute_force.solve(rt, model).stars
    assert checked >= 10


def test_wide_tables_are_refused_with_the_fix() -> None:
    rt = random_table(5, 30, 17, values=2, s=3)
    with pytest.raises(InvalidInput, match="start='auto'"):
        merge_repair.solve(rt, LDiversity(2), start="levels")
