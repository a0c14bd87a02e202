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

Complexity: the groups of a pattern are unions of the groups of a pattern with one star
fewer (the one with the fewest groups is taken), so each pattern sorts only those ``G``
groups by a key derived from theirs with one column gather (mixed radix of all columns; a
dense rank over the row types when that overflows int64), OR-s their values (64-bit sets when
the column has at most 64 values; ``O(G r)`` otherwise) and maps the ``t_in`` row types to
their group: ``O(G log G + t_in)`` per pattern, over at most ``min(max_patterns, max_entries /
t_in)`` patterns. On ARX adult (12,458 row types, 8 QIs) 162 patterns, 0.04-0.06 CPU s for
l = 3 (0.12-0.16 s when every pattern sorted all row types); on the synthetic census at 1M rows
(143,809 row types) 36 patterns (levels 1 and 2; the rest get level 3), 0.18-0.23 s (0.47-0.49
s before).

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
    keys = _Keys(np.asarray(codes))
    # Level 0: every row type is its own group (and its representative).
    types = np.arange(t_in, dtype=np.int64)
    groups: dict[int, _Groups] = {0: (types, types, held.of_types(), keys.full)}
    last = last_level(m, t_in, max_patterns=max_patterns, max_entries=max_entries)
    for j in range(1, m + 1):
        if j > last:
            out[todo] = j  # every lower level was enumerated in full and resolved none of them
            return out
        hit = np.zeros(t_in, dtype=bool)
        level: dict[int, _Groups] = {}
        for mask in masks_of_level(m, j):
            # the parent with the fewest groups: one star fewer
            c = min((c for c in range(m) if (mask >> c) & 1),
                    key=lambda c: len(groups[mask & ~(1 << c)][1]))
            parent = groups[mask & ~(1 << c)]
            level[mask] = child = _coarsen(parent, keys.of(mask, c, parent), held)
            hit |= (held.count(child[2]) >= q)[child[0]]
        groups = level
        now = todo & hit
        out[now] = j
        todo &= ~hit
        if not todo.any():
            return out
    return out


def last_level(m: int, t_in: int, *, max_patterns: int = MAX_PATTERNS,
               max_entries: int = MAX_ENTRIES) -> int:
    """The highest level :func:`levels` enumerates in full for ``m`` columns and ``t_in`` row
    types (below ``m``): a row type :func:`levels` gives a higher level was not resolved by
    the enumeration, only shown to need more."""
    used = last = 0
    for j in range(1, m):
        used += comb(m, j)
        if used > max_patterns or used * t_in > max_entries:
            break
        last = j
    return last


_Groups = tuple[IntArray, IntArray, NDArray[np.generic], IntArray | None]
"""The groups of one pattern: ``(group of each row type (t_in,), a representative row type
of each group (G,), the values each group holds ((G,) bit sets or (G, r) 0/1), each group's
projection key on the columns outside the pattern (G,) or None on the overflow path)``."""


def _coarsen(parent: _Groups, key: IntArray, held: _Held) -> _Groups:
    """The groups of a pattern from those of a pattern with one star fewer (``parent``) and
    the keys of the parent's representatives under the new pattern: a group of the new
    pattern is a union of parent groups (starring one more column only merges groups), so
    only the parent's ``G`` groups are sorted, not the ``t_in`` row types."""
    gid, rep, values, _ = parent
    order, starts, run = key_runs(key)
    merged = np.empty(len(key), dtype=np.int64)
    merged[order] = run
    first = order[starts]
    return merged[gid], rep[first], held.union(values[order], starts), key[first]


class _Keys:
    """Projection keys of groups' representatives outside a pattern.

    When the mixed radix of all ``m`` columns fits in int64, a row type's key for a pattern
    is its full key minus ``code(c) x weight(c)`` for each starred column ``c``, so a child
    pattern's keys come from the parent's with one column gather. Otherwise
    :class:`.PatternKeys` computes them (a dense rank, cached per pattern)."""

    def __init__(self, codes: NDArray[np.integer]) -> None:
        self.columns = np.ascontiguousarray(np.asarray(codes, dtype=np.int64).T)
        m, t = self.columns.shape
        card = self.columns.max(axis=1) + 1 if t else np.ones(m, dtype=np.int64)
        self.weights: list[int] | None = None
        self.full: IntArray | None = None
        prod = 1
        weights = [0] * m
        for c in reversed(range(m)):
            weights[c] = prod
            prod *= int(card[c])
        if prod < _FULL_LIMIT:
            self.weights = weights
            self.full = np.zeros(t, dtype=np.int64)
            for c in range(m):
                self.full += self.columns[c] * weights[c]
        else:
            self.patterns = PatternKeys(np.asarray(codes))

    def of(self, mask: int, c: int, parent: _Groups) -> IntArray:
        """Keys under ``mask`` of the representatives of ``parent``, the groups of
        ``mask`` without column ``c``."""
        _, rep, _, key = parent
        if self.weights is None or key is None:
            return self.patterns.keys(mask, rep)
        return key - self.columns[c][rep] * self.weights[c]


_FULL_LIMIT = 1 << 62


_BITWISE_COUNT = getattr(np, "bitwise_count", None)


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

    def of_types(self) -> NDArray[np.generic]:
        """The values of each row type (its own group)."""
        return self.sets if self.r <= 64 else self.present

    def union(self, values: NDArray[np.generic], starts: IntArray) -> NDArray[np.generic]:
        """The values of runs of groups (``values`` sorted into runs beginning at ``starts``)."""
        if self.r <= 64:
            return np.bitwise_or.reduceat(values, starts)
        return np.maximum.reduceat(values, starts, axis=0)

    def count(self, values: NDArray[np.generic]) -> IntArray:
        """How many distinct values each group holds."""
        if self.r <= 64:
            if _BITWISE_COUNT is not None:                      # numpy >= 2.0
                return np.asarray(_BITWISE_COUNT(values))
            return self._POP[values.view(np.uint8).reshape(-1, 8)].sum(axis=1)
        return values.sum(axis=1).astype(np.int64)
