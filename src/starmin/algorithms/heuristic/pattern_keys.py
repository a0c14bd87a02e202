"""Suppression patterns and the keys of row types projected outside them.

A *suppression pattern* is a set ``S`` of QI columns, stored as a bit mask (bit ``c`` set:
column ``c`` is starred). A released class with star set ``S`` holds rows that agree on every
column outside ``S``; its *bucket* ``(S, w)`` is the set of all row types whose projection onto
the columns outside ``S`` equals ``w``. Every row of the class pays ``|S|`` stars (Liang &
Yuan, Sec. 2), so both the k-anonymity heuristic (:mod:`.pattern_packing`) and the lower bounds
(:mod:`starmin.algorithms.bounds`) work bucket by bucket.

:class:`PatternKeys` gives each row type one integer key per pattern: equal keys <=> equal
projections. Keys are mixed-radix numbers over the kept columns, so they are consistent across
any subset of row types; when the radix product would overflow int64, the key falls back to a
dense rank computed over *all* row types (still consistent) and is cached.

Complexity: ``O(t_in * m)`` per pattern (``O(t_in * m log t_in)`` on the overflow path).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]
_LIMIT = 1 << 62


def popcount(mask: int) -> int:
    """Number of starred columns in a pattern."""
    return int(mask).bit_count()


def masks_of_level(m: int, j: int) -> list[int]:
    """All patterns with exactly ``j`` of ``m`` columns starred, in lexicographic order."""
    return [sum(1 << c for c in cols) for cols in combinations(range(m), j)]


def kept_columns(mask: int, m: int) -> list[int]:
    """Columns outside the pattern (not starred)."""
    return [c for c in range(m) if not (mask >> c) & 1]


def mask_vector(mask: int, m: int) -> NDArray[np.bool_]:
    """``(m,)`` bool: starred columns of the pattern."""
    return np.array([(mask >> c) & 1 for c in range(m)], dtype=bool)


class PatternKeys:
    """Projection keys of the ``(t_in, m)`` code matrix for any pattern.

    ``keys(mask)`` is ``(t_in,)``; ``keys(mask, rows)`` the keys of a subset of row types,
    equal to ``keys(mask)[rows]``.
    """

    def __init__(self, codes: NDArray[np.integer]) -> None:
        self.codes = np.ascontiguousarray(codes, dtype=np.int64)
        self.t, self.m = self.codes.shape
        self.card = (self.codes.max(axis=0) + 1 if self.t else np.ones(self.m, np.int64))
        self._ranked: dict[int, IntArray] = {}

    def fits_radix(self, mask: int) -> bool:
        """Whether the mixed-radix key of this pattern fits in int64."""
        prod = 1
        for c in kept_columns(mask, self.m):
            prod *= int(self.card[c])
            if prod >= _LIMIT:
                return False
        return True

    def keys(self, mask: int, rows: IntArray | None = None) -> IntArray:
        """Projection keys of row types ``rows`` (all when ``None``) outside ``mask``."""
        if not self.fits_radix(mask):
            full = self._ranked.get(mask)
            if full is None:
                full = self._rank(mask)
                self._ranked[mask] = full
            return full if rows is None else full[rows]
        sub = self.codes if rows is None else self.codes[rows]
        key = np.zeros(sub.shape[0], dtype=np.int64)
        for c in kept_columns(mask, self.m):
            key *= int(self.card[c])
            key += sub[:, c]
        return key

    def _rank(self, mask: int) -> IntArray:
        """Dense rank of the projection over all row types (the overflow path)."""
        cols = kept_columns(mask, self.m)
        if not cols:
            return np.zeros(self.t, dtype=np.int64)
        _, inv = np.unique(self.codes[:, cols], axis=0, return_inverse=True)
        return np.asarray(inv, dtype=np.int64).reshape(-1)


def key_runs(key: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Items sorted by ``key`` (stable) as runs of equal keys: ``(order, starts, gid)`` --
    the sorting permutation, where each run starts in it, and the run of each sorted item
    (for ``ufunc.reduceat`` over the runs and back)."""
    order = np.argsort(key, kind="stable")
    ks = key[order]
    head = np.ones(len(ks), dtype=bool)
    head[1:] = ks[1:] != ks[:-1]
    return order, np.flatnonzero(head), np.cumsum(head) - 1


def group_by_key(key: IntArray, weights: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Buckets of equal keys: ``(unique keys (b,), bucket of each item (t,), weight sums (b,))``."""
    uniq, inv = np.unique(key, return_inverse=True)
    inv = np.asarray(inv, dtype=np.int64).reshape(-1)
    tot = np.bincount(inv, weights=weights, minlength=len(uniq)).astype(np.int64)
    return uniq.astype(np.int64), inv, tot


def groups(items: IntArray, bucket: IntArray) -> list[tuple[int, IntArray]]:
    """``(bucket, items in it)`` for each distinct value of ``bucket`` (ascending)."""
    if len(items) == 0:
        return []
    order = np.argsort(bucket, kind="stable")
    items, bucket = items[order], bucket[order]
    cuts = np.nonzero(np.diff(bucket))[0] + 1
    heads = bucket[np.concatenate([[0], cuts])].tolist()
    return list(zip(heads, np.split(items, cuts), strict=True))
