"""Checks of the classes a level start's placement LP forms at one level (tests of
:mod:`starmin.algorithms.heuristic._level_lp` and :mod:`._distinct_lp`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from starmin.data.rowtypes import RowTypes
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel
from starmin.transform.plan import suppressor

Group = tuple[np.ndarray, np.ndarray, np.ndarray]


def check_level_classes(rt: RowTypes, model: PrivacyModel, groups: Sequence[Group] | None,
                        before: np.ndarray, after: np.ndarray, j: int) -> int:
    """Every class satisfies ``model`` and has at most ``j`` stars, and exactly its rows
    left the free rows (``before`` -> ``after``, never negative); the number of classes."""
    assert groups is not None
    taken = np.zeros_like(before)
    for types, keys, count in groups:
        assert (count > 0).all()
        np.add.at(taken, (types, keys), count)
        hist = np.bincount(keys, weights=count, minlength=rt.s)[None, :]
        assert holds(model, rt, hist.astype(np.int64)).all()
        assert (suppressor(rt.codes[np.unique(types)]) < 0).sum() <= j
    assert np.array_equal(before - taken, after)  # the rows taken left the free rows
    assert (after >= 0).all()
    return len(groups)
