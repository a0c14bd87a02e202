"""Checks shared by the tests of merge-repair's polishing steps (carving, the flow polish)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from starmin.algorithms.heuristic import merge_repair
from starmin.algorithms.heuristic._merge_state import Judge
from starmin.algorithms.heuristic._split_refine import Entries
from starmin.data.rowtypes import RowTypes
from starmin.models import PrivacyModel
from starmin.models.apply import holds
from starmin.transform.plan import ReleasePlan

Step = Callable[[RowTypes, list[Entries], Judge], list[Entries]]


def stars(rt: RowTypes, classes: list[Entries]) -> int:
    return ReleasePlan.from_groups(rt, classes, "x", merge_repair.GUARANTEE).stars


def checked_step(step: Step, rt: RowTypes, model: PrivacyModel, classes: list[Entries]) -> int:
    """Run ``step`` twice on ``classes``: the same parts both times, every row kept once,
    every part satisfying ``model``, never more stars. Returns the stars saved."""
    judge = merge_repair.make_judge(model, rt)
    parts = step(rt, classes, judge)
    again = step(rt, classes, judge)                        # deterministic
    assert len(again) == len(parts)
    assert all(np.array_equal(a, b) for p, q in zip(parts, again, strict=True)
               for a, b in zip(p, q, strict=True))
    kept = np.zeros_like(rt.counts)
    for t, k, c in parts:
        assert (c > 0).all()
        np.add.at(kept, (t, k), c)
    assert np.array_equal(kept, rt.counts)                  # every row, once
    plan = ReleasePlan.from_groups(rt, parts, "x", merge_repair.GUARANTEE)
    assert holds(model, rt, plan.class_key_counts(rt.s)).all()
    before = stars(rt, classes)
    assert plan.stars <= before
    return before - plan.stars


def classes_of(plan: ReleasePlan) -> list[Entries]:
    """A plan's classes as ``(type, key, count)`` entries, one per output vector."""
    return [(plan.type_idx[plan.out_idx == o], plan.key_idx[plan.out_idx == o],
             plan.count[plan.out_idx == o]) for o in range(plan.t_out)]
