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
budget of ``max_patterns`` patterns and ``max_entries`` (patterns times row types, a work
limit): when the next level does not fit, every row type not resolved yet gets that level (a
valid lower bound: no group at a lower level, all enumerated, holds ``q`` values).

Complexity: one sort of the ``t_in`` keys per pattern (the values a group holds are OR-ed
bit sets when the column has at most 64 values; ``O(t_in r)`` otherwise), over at most
``min(max_patterns, max_entries / t_in)`` patterns: on ARX adult (12,458 row types, 8 QIs)
162 patterns, 0.16 CPU s for l = 3; on the synthetic census at 1M rows (143,809 row types) 36
patterns (levels 1 and 2; the rest get level 3), 0.7 s.

References: Bredereck et al., Sec. 2 (row types and suppression patterns); Xiao, Yi & Tao,
Sec. 5.2 (phase one: the rows that must leave their row type).
"""

from __future__ import annotations

from math import comb

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic.pattern_keys import PatternKeys, key_runs, masks_of_level

IntArray = NDArray[np.int64]

MAX_PATTERNS = 4096
"""Patterns enumerated at most (all ``2^m`` of up to 12 QI columns)."""

MAX_ENTRIES = 10_000_000
"""Patterns times row types enumerated at most (a work limit: every pattern of 8 QI columns up
to 39,000 row types; level 1 only from 280,000 on). On the census at 1M rows, 4x as many
patterns raised the bounds by 1-200 stars of 170,000-670,000 and cost 3x the time."""


def levels(codes: NDArray[np.integer], histogram: NDArray[np.integer], q: int,
           needed: NDArray[np.bool_], *, max_patterns: int = MAX_PATTERNS,
           max_entries: int = MAX_ENTRIES) -> IntArray:
    """``(t_in,)``: for each ``needed`` row type the fewest stars ``j >= 1`` of a group
    containing it that holds ``q`` distinct values of the ``(t_in, r)`` ``histogram``'s
    column; 0 for the others. A row type no group resolves (the whole table holds fewer than
    ``q`` values) gets ``m``, the all-star vector's stars."""
    t_in, m = np.asarray(codes).shape
    out = np.zeros(t_in, dtype=np.int64)
    todo = np.asarray(needed, dtype=bool).copy()
    if not todo.any():
        return out
    held = _Held(np.asarray(histogram) > 0)
    keys = PatternKeys(codes)
    used = 0
    for j in range(1, m + 1):
        count = comb(m, j)
        if used + count > max_patterns or (used + count) * t_in > max_entries or j == m:
            out[todo] = j  # every lower level was enumerated in full and resolved none of them
            return out
        used += count
        hit = np.zeros(t_in, dtype=bool)
        for mask in masks_of_level(m, j):
            hit |= held.at_least(keys.keys(mask), q)
        now = todo & hit
        out[now] = j
        todo &= ~hit
        if not todo.any():
            return out
    return out


class _Held:
    """How many distinct values the groups of a pattern hold: the values of each row type as
    a 64-bit set, OR-ed per group (a ``(t_in, r)`` 0/1 matrix, max-reduced, beyond 64)."""

    _POP = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)

    def __init__(self, present: NDArray[np.bool_]) -> None:
        self.r = present.shape[1]
        if self.r <= 64:
            weights = np.left_shift(np.uint64(1), np.arange(self.r, dtype=np.uint64))
            self.sets = np.bitwise_or.reduce(np.where(present, weights, np.uint64(0)), axis=1,
                                             initial=np.uint64(0))
        else:
            self.present = present.astype(np.int8)

    def at_least(self, key: IntArray, q: int) -> NDArray[np.bool_]:
        """``(t_in,)``: whether each row type's group (equal ``key``) holds ``q`` values."""
        order, starts, gid = key_runs(key)
        if self.r <= 64:
            sets = np.bitwise_or.reduceat(self.sets[order], starts)
            count = self._POP[sets.view(np.uint8).reshape(-1, 8)].sum(axis=1)
        else:
            count = np.maximum.reduceat(self.present[order], starts, axis=0).sum(axis=1)
        out = np.empty(len(key), dtype=bool)
        out[order] = count[gid] >= q
        return out
