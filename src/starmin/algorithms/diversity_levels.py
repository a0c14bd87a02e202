"""How many stars a row needs before its class can hold ``q`` distinct sensitive values.

A released class with ``j`` stars lies inside one *group*: the row types that agree with its
output vector outside the ``j`` starred columns (:mod:`.heuristic.pattern_keys`). Every model
that needs ``q`` distinct sensitive values per class (frequency, distinct, entropy and
recursive (c, l)-diversity need ``l``, p-sensitivity ``p``) can only release a row of row type
``v`` in a class whose group holds ``q`` distinct values. So a row of ``v`` that carries a star
at all carries at least ``level(v)`` stars, the fewest ``j >= 1`` such that some ``j``-star
group containing ``v`` holds ``q`` distinct values of the column. Groups grow as columns are
starred, so levels are found level by level, and a row type keeps the first level that
suffices.

:func:`levels` computes them for the row types that need it; :mod:`.l_diversity_bound` weighs
the rows that must carry a star by them. Patterns are enumerated by increasing stars within a
budget of ``max_patterns``: when the next level does not fit, every row type not resolved yet
gets that level (a valid lower bound: no group at a lower level, all enumerated, holds ``q``
values).

Complexity: ``O(t_in (m + r))`` per pattern for ``r`` values of the column, over at most
``max_patterns`` patterns.

References: Bredereck et al., Sec. 2 (row types and suppression patterns); Xiao, Yi & Tao,
Sec. 5.2 (phase one: the rows that must leave their row type).
"""

from __future__ import annotations

from math import comb

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level

IntArray = NDArray[np.int64]

MAX_PATTERNS = 4096
"""Patterns enumerated at most (all ``2^m`` of up to 12 QI columns)."""


def levels(codes: NDArray[np.integer], histogram: NDArray[np.integer], q: int,
           needed: NDArray[np.bool_], *, max_patterns: int = MAX_PATTERNS) -> IntArray:
    """``(t_in,)``: for each ``needed`` row type the fewest stars ``j >= 1`` of a group
    containing it that holds ``q`` distinct values of the ``(t_in, r)`` ``histogram``'s
    column; 0 for the others. A row type no group resolves (the whole table holds fewer than
    ``q`` values) gets ``m``, the all-star vector's stars."""
    t_in, m = np.asarray(codes).shape
    out = np.zeros(t_in, dtype=np.int64)
    todo = np.asarray(needed, dtype=bool).copy()
    if not todo.any():
        return out
    present = (np.asarray(histogram) > 0).astype(np.int8)
    keys = PatternKeys(codes)
    used = 0
    for j in range(1, m + 1):
        count = comb(m, j)
        if used + count > max_patterns or j == m:
            out[todo] = j  # every lower level was enumerated in full and resolved none of them
            return out
        used += count
        hit = np.zeros(t_in, dtype=bool)
        for mask in masks_of_level(m, j):
            hit |= _groups_with_values(keys.keys(mask), present, q)
        now = todo & hit
        out[now] = j
        todo &= ~hit
        if not todo.any():
            return out
    return out


def _groups_with_values(key: IntArray, present: NDArray[np.int8], q: int) -> NDArray[np.bool_]:
    """``(t_in,)``: whether each row type's group (equal ``key``) holds ``q`` distinct values."""
    uniq, inv = np.unique(key, return_inverse=True)
    inv = np.asarray(inv, dtype=np.int64).reshape(-1)
    order = np.argsort(inv, kind="stable")
    starts = np.searchsorted(inv[order], np.arange(len(uniq)))
    held = np.maximum.reduceat(present[order], starts, axis=0).sum(axis=1)
    return np.asarray(held[inv] >= q)
