"""Carving (merge-repair's polish, :mod:`starmin.algorithms.heuristic._carve`): a literal case
split refinement cannot improve, and on random tables and models every part satisfies the
model, every row is kept, and the stars never rise."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.heuristic import _carve, merge_repair
from starmin.algorithms.heuristic._carve import carve
from starmin.algorithms.heuristic._split_refine import Entries, refine
from starmin.data.rowtypes import RowTypes
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    HierarchicalDistance,
    KAnonymity,
    LDiversity,
    OrderedDistance,
    PrivacyModel,
    TCloseness,
)
from starmin.models.apply import holds
from starmin.transform.plan import ReleasePlan
from tests.helpers.polish import checked_step, classes_of
from tests.helpers.tables import from_rows, random_table

HIER = HierarchicalDistance((("0", "a", "*"), ("1", "a", "*"), ("2", "b", "*"),
                             ("3", "b", "*")))
MODELS: list[PrivacyModel] = [
    LDiversity(2), LDiversity(3), DistinctLDiversity(2), TCloseness(Fraction(1, 5)),
    TCloseness(Fraction(1, 3)), TCloseness(Fraction(1, 4), OrderedDistance()),
    TCloseness(Fraction(1, 3), HIER), AllOf(KAnonymity(3), TCloseness(Fraction(2, 5))),
]


def _whole(rt: RowTypes) -> list[Entries]:
    t, k = np.nonzero(rt.counts)
    return [(t, k, rt.counts[t, k])]


def _stars(rt: RowTypes, classes: list[Entries]) -> int:
    return ReleasePlan.from_groups(rt, classes, "x", merge_repair.GUARANTEE).stars


def test_carving_takes_part_of_a_group() -> None:
    # one class of 6 rows, first column 0 (x, x, x, y) or 1 (y, y): 6 stars. No group is
    # 2-diverse alone, so split refinement keeps the class; carving takes (x, y) out of the
    # first group (the class's own mix, half x and half y), leaving (x, x | y, y): 2-diverse.
    # The part keeps the first column: 0 stars; the rest 4 rows with one star each.
    rt = from_rows([[0, 0]] * 4 + [[1, 0]] * 2, sa=[0, 0, 0, 1, 1, 1])
    judge = merge_repair.make_judge(LDiversity(2), rt)
    assert _stars(rt, refine(rt, _whole(rt), judge)) == 6
    parts = carve(rt, _whole(rt), judge)
    assert _stars(rt, parts) == 4 == brute_force.solve(rt, LDiversity(2)).stars
    plan = ReleasePlan.from_groups(rt, parts, "x", merge_repair.GUARANTEE)
    assert holds(LDiversity(2), rt, plan.class_key_counts(rt.s)).all()


def _check(rt: RowTypes, model: PrivacyModel, classes: list[Entries]) -> int:
    return checked_step(carve, rt, model, classes)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_parts_satisfy_the_model_and_keep_every_row(model: PrivacyModel) -> None:
    saved = 0
    for seed in range(25):
        rt = random_table(seed, 30 + seed, m=3, values=3, s=4)
        if not holds(model, rt, rt.counts.sum(axis=0)[None, :])[0]:
            continue
        saved += _check(rt, model, _whole(rt))
        plan = merge_repair.solve(rt, model, seed=seed, carve=False, moves=False)
        classes = classes_of(plan)
        saved += _check(rt, model, [c for c in classes if len(c[0])])
    assert saved > 0                                         # carving does something


def test_the_size_grid_keeps_parts_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    # with at most 3 sizes judged per group, larger groups are sampled: still valid parts
    monkeypatch.setattr(_carve, "X_GRID", 3)
    for seed in range(8):
        rt = random_table(seed, 60, m=3, values=2, s=3)
        model = LDiversity(2)
        if holds(model, rt, rt.counts.sum(axis=0)[None, :])[0]:
            _check(rt, model, _whole(rt))


def test_the_flattest_parts_are_tried() -> None:
    # found by a search over random 5-9-row tables: with the parts that follow the class's mix
    # alone carving stops at 6 stars here (of 12); the flattest parts (at most M rows of each
    # key) reach 4 (the optimum is 2)
    rt = from_rows([[1, 1], [1, 1], [1, 0], [1, 0], [0, 0], [1, 0]], sa=[1, 2, 1, 0, 0, 2])
    judge = merge_repair.make_judge(LDiversity(2), rt)
    parts = carve(rt, _whole(rt), judge, 2)
    assert _stars(rt, parts) == 4
    assert brute_force.solve(rt, LDiversity(2)).stars == 2
