"""Frequency l-diversity's joint placement LP of levels 1 and 2
(:mod:`starmin.algorithms.heuristic._frequency_joint`): every class it forms is l-eligible
and has at most two stars, it takes no more rows than are free, its work limits leave the
levels to their own LPs, merge-repair runs it by default for frequency l-diversity and can
leave it out (both releases verify, the same seed gives the same plan), and ``auto``'s
ladder holds the level start without it between the level start with it and the next rung."""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.approx.tp_phases import phase_one_heights
from starmin.algorithms.heuristic import _frequency_joint, merge_repair
from starmin.algorithms.heuristic._frequency_joint import joint_classes
from starmin.algorithms.heuristic.pattern_keys import PatternKeys
from starmin.data.rowtypes import RowTypes
from starmin.models import EntropyLDiversity, LDiversity, RecursiveCLDiversity
from tests.helpers.joint_runs import joint_and_alone
from tests.helpers.level_classes import check_level_classes
from tests.helpers.tables import random_table


def _free(rt: RowTypes, l: int) -> np.ndarray:
    """The rows the level start leaves free at level 0 for frequency l: each row type's rows
    beyond its largest l-eligible part (TP's phase one)."""
    c = rt.counts.astype(np.int64)
    return c - np.minimum(c, phase_one_heights(c, l)[:, None])


def _table(seed: int) -> RowTypes:
    m = 3 + seed % 3
    return random_table(700 + seed, 80 + 5 * seed, m, values=[2, 3, 2, 4, 3][:m],
                        s=3 + seed % 4)


@pytest.mark.parametrize("direct", [True, False])
def test_classes_are_l_eligible_within_two_stars_and_take_only_free_rows(
        direct: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole LP by the interior point method (small LPs), or PDLP and the LP over its
    support (``DIRECT_MAX_NONZEROS`` set to 0: every LP)."""
    if not direct:
        monkeypatch.setattr(_frequency_joint, "DIRECT_MAX_NONZEROS", 0)
    formed = 0
    for seed in range(30):
        rt = _table(seed)
        l = 2 + seed % 2
        free = _free(rt, l)
        before = free.copy()
        groups = joint_classes(PatternKeys(rt.codes), free, l, rt.m)
        formed += check_level_classes(rt, LDiversity(l), groups, before, free, 2)
    assert formed >= 30


def test_work_limits_leave_the_levels_to_their_own_lps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_frequency_joint, "DIRECT_MAX_NONZEROS", 0)  # PDLP on every LP
    tried = 0
    for seed in range(20):
        rt = _table(seed)
        pk = PatternKeys(rt.codes)
        free = _free(rt, 2)
        if not joint_classes(pk, free.copy(), 2, rt.m):
            continue  # no class to form: nothing to limit
        tried += 1
        before = free.copy()
        said: list[str] = []
        assert joint_classes(pk, free, 2, rt.m, max_nonzeros=0) is None
        assert joint_classes(pk, free, 2, rt.m, max_work=0, progress=said.append) is None
        assert any("over PDLP's work limit" in line for line in said)
        assert np.array_equal(free, before)
    assert tried >= 10, tried


def test_merge_repair_runs_it_by_default_and_can_leave_it_out() -> None:
    """``frequency_joint`` (default True) changes the level start on some tables for l = 3
    (for l = 2, below ``MIN_L``, never); both releases verify and the same seed gives the
    same plan."""
    differ = better = 0
    tables = (random_table(80 + seed, 160, 5, values=[3, 4, 3, 4, 3], s=5)
              for seed in range(10))
    for rt, model, joint, alone in joint_and_alone(tables, [LDiversity(2), LDiversity(3)],
                                                   "frequency_joint"):
        again = merge_repair.solve(rt, model, start="levels")
        assert again.stars == joint.stars
        assert np.array_equal(again.class_key_counts(rt.s), joint.class_key_counts(rt.s))
        if model == LDiversity(2):  # below MIN_L: the levels get their own LPs
            assert np.array_equal(joint.class_key_counts(rt.s), alone.class_key_counts(rt.s))
            continue
        differ += joint.stars != alone.stars
        better += joint.stars < alone.stars
    assert differ >= 2 and better >= 1, (differ, better)


def test_auto_ladder_holds_the_level_start_without_it() -> None:
    rt = random_table(81, 160, 5, values=[3, 4, 3, 4, 3], s=5)
    model = LDiversity(3)
    assert merge_repair.level_suits(model, rt)
    top = merge_repair.auto_run(model, rt, 1e9)
    assert "frequency_joint" not in top.options  # the defaults: the joint LP runs
    ladder = [merge_repair.auto_run(model, rt, u / 1000) for u in range(0, 20000, 5)]
    without = [r for r in ladder if r.options.get("frequency_joint") is False]
    assert without and all(r.options["start"] == "levels" for r in without)
    with_joint = max(r.work for r in ladder if r.options.get("start") == "levels"
                     and "frequency_joint" not in r.options
                     and "level_lp_levels" not in r.options)
    assert min(r.work for r in without) < with_joint
    two = [merge_repair.auto_run(LDiversity(2), rt, u / 1000) for u in range(0, 20000, 50)]
    assert not any("frequency_joint" in r.options for r in two)  # below MIN_L: no such rung


def test_entropy_and_recursive_l_use_it_too() -> None:
    """The models whose level start uses frequency's placement LPs (their capped parts;
    ``l >= MIN_L``): both releases verify, the joint LP changes some, and ``auto``'s ladder
    for them holds the level start without it (``frequency_joint`` False) as a rung."""
    tables = (random_table(90 + seed, 160, 5, values=[3, 4, 3, 4, 3], s=6)
              for seed in range(6))
    models = [EntropyLDiversity(3), RecursiveCLDiversity(3, 3)]
    differ = sum(joint.stars != alone.stars
                 for _, _, joint, alone in joint_and_alone(tables, models, "frequency_joint"))
    assert differ >= 1
    rt = random_table(90, 160, 5, values=[3, 4, 3, 4, 3], s=6)
    for model in models:
        ladder = [merge_repair.auto_run(model, rt, u / 1000) for u in range(0, 20000, 5)]
        assert any(r.options.get("frequency_joint") is False for r in ladder)
    two = [merge_repair.auto_run(EntropyLDiversity(2), rt, u / 100) for u in range(0, 2000, 5)]
    assert not any("frequency_joint" in r.options for r in two)
