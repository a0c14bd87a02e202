"""The working state of :mod:`.merge_repair`: released classes that are merged in place.

Each class is one output vector (its suppressor: a star exactly where its rows differ) with its
``(s,)`` counts per sensitive key. Classes start as the output vectors of an initial plan and
are identified by their index in it; merging ``b`` into ``a`` keeps ``a``'s index and records
``parent[b] = a`` (a union-find over the initial classes, resolved once at the end).

Invariant: the live classes have pairwise different vectors (a merge that produces the vector
of a third class absorbs it too: equal released vectors are one class to an attacker).

Merge cost (Liang & Yuan, Sec. 2): classes ``A``, ``B`` with ``|A|``, ``|B|`` rows and star
sets ``S_A``, ``S_B`` merge into the suppressor with star set
``S = S_A | S_B | {c : A[c] != B[c]}``; the release gains
``(|A| + |B|) |S| - |A| |S_A| - |B| |S_B|`` stars.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from starmin.transform.plan import STAR

IntArray = NDArray[np.int64]
Judge = Callable[[IntArray], NDArray[np.bool_]]
"""``(g, s)`` key counts -> ``(g,)`` bool: does each class satisfy the model."""

BIG = np.iinfo(np.int64).max // 4


class Members:
    """The rows of each class as entries ``(row type t, sensitive key k, count c)``.

    Entries live in growing arrays; ``of[a]`` lists class ``a``'s entry ids. Joining two
    classes appends the shorter list to the longer (``O(E log E)`` over all joins)."""

    def __init__(self, codes: NDArray[np.integer], out_idx: IntArray, t: IntArray,
                 k: IntArray, c: IntArray, G: int) -> None:
        self.codes = codes                                   # (t_in, m) QI codes of row types
        self.t, self.k, self.c = (np.array(x, dtype=np.int64) for x in (t, k, c))
        self.size = len(self.c)
        self.of: list[list[int]] = [[] for _ in range(G)]
        for e, o in enumerate(np.asarray(out_idx).tolist()):
            self.of[o].append(e)
        self._arrays: dict[int, IntArray] = {}    # of[a] as an array, until a changes

    def entries(self, a: int) -> IntArray:
        """Class ``a``'s entry ids as an array (cached until :meth:`changed`)."""
        arr = self._arrays.get(a)
        if arr is None:
            arr = self._arrays[a] = np.asarray(self.of[a], dtype=np.int64)
        return arr

    def changed(self, *classes: int) -> None:
        """The entry lists of ``classes`` changed: drop their cached arrays."""
        for a in classes:
            self._arrays.pop(a, None)

    def add(self, t: int, k: int, c: int) -> int:
        """A new entry; returns its id."""
        if self.size == len(self.c):
            grow = max(len(self.c), 16)
            self.t, self.k, self.c = (np.concatenate([x, np.zeros(grow, np.int64)])
                                      for x in (self.t, self.k, self.c))
        self.t[self.size], self.k[self.size], self.c[self.size] = t, k, c
        self.size += 1
        return self.size - 1

    def join(self, a: int, b: int) -> None:
        """Class ``b``'s entries now belong to ``a``."""
        if len(self.of[b]) > len(self.of[a]):
            self.of[a], self.of[b] = self.of[b], self.of[a]
        self.of[a].extend(self.of[b])
        self.of[b] = []
        self.changed(a, b)

    def group(self, a: int) -> tuple[IntArray, IntArray, IntArray]:
        """``(type, key, count)`` arrays of class ``a``'s non-empty entries."""
        e = np.asarray(self.of[a], dtype=np.int64)
        e = e[self.c[e] > 0]
        return self.t[e], self.k[e], self.c[e]


class Classes:
    """Live classes: vectors ``V (G, m)``, key counts ``C (G, s)``, sizes, stars per row,
    verdicts, and their rows (:class:`Members`)."""

    def __init__(self, vectors: NDArray[np.integer], key_counts: NDArray[np.integer],
                 members: Members, judge: Judge) -> None:
        self.V = np.array(vectors, dtype=np.int32, copy=True)         # (G, m)
        self.C = np.array(key_counts, dtype=np.int64, copy=True)      # (G, s)
        self.members = members
        self.judge = judge
        self.n = self.C.sum(axis=1)                                      # (G,) rows
        self.P = (self.V == STAR).sum(axis=1).astype(np.int64)           # (G,) stars per row
        self.G = int(self.V.shape[0])
        self.alive = self.n > 0
        self._dead = int((~self.alive).sum())
        self.ok = np.ones(self.G, dtype=bool)
        self.by_vec: dict[bytes, int] = {}
        for i in np.flatnonzero(self.alive).tolist():
            other = self.by_vec.get(self.V[i].tobytes())
            if other is None:
                self.by_vec[self.V[i].tobytes()] = i
            else:                      # equal vectors in the initial plan: one class
                self._absorb(other, i)
        live = np.flatnonzero(self.alive)
        self.ok[live] = judge(self.C[live])
        self.m = int(self.V.shape[1])
        self._ids = np.zeros(0, dtype=np.int64)    # scan arrays over the live classes
        self._slot = np.zeros(0, dtype=np.int64)
        self._VT = np.zeros((self.m, 0), dtype=np.int32)
        self._n = self._P = np.zeros(0, dtype=np.int64)
        self._stale = 0
        self._dirty: set[int] = set()
        self._orders: list[tuple[IntArray, IntArray]] | None = None
        self._since = 0
        self.merges = 0
        self.pulls = 0

    # -- queries ---------------------------------------------------------------------------
    @property
    def stars(self) -> int:
        """Stars of the current release."""
        return int((self.n[self.alive] * self.P[self.alive]).sum())

    @property
    def live_count(self) -> int:
        """Number of live classes."""
        return self.G - self._dead

    @property
    def violating(self) -> IntArray:
        """Indices of the live classes that fail the model."""
        return np.flatnonzero(self.alive & ~self.ok)

    def merge_costs(self, a: int) -> tuple[IntArray, IntArray]:
        """``(ids, added stars)`` of merging ``a`` with each live class other than ``a``.
        ``O(G m)``, vectorized over a column-major copy of the live vectors."""
        self._refresh()
        va = self.V[a]
        same = np.zeros(len(self._ids), dtype=np.int16)   # columns kept by the merge
        for c in np.flatnonzero(va != STAR).tolist():
            same += self._VT[c] == va[c]
        cnt = self.m - same.astype(np.int64)
        na, nl = self.n[a], self._n
        cost = (na + nl) * cnt - na * self.P[a] - nl * self._P
        cost[(self._ids == a) | ~self.alive[self._ids]] = BIG
        return self._ids, cost

    def costs_to(self, a: int, ids: IntArray) -> IntArray:
        """Added stars of merging ``a`` with each of ``ids`` (few, all live, not ``a``)."""
        Vl, va = self.V[ids], self.V[a]
        cnt = ((Vl != va) | (Vl == STAR) | (va == STAR)).sum(axis=1).astype(np.int64)
        na, nl = self.n[a], self.n[ids]
        return (na + nl) * cnt - na * self.P[a] - nl * self.P[ids]

    def neighbours(self, a: int, h: int) -> IntArray:
        """Live classes within ``h`` live places of ``a`` in one of ``m`` sort orders of the
        vectors (order ``c``: by every other column, then ``c``; a star sorts first), so
        classes differing from ``a`` in one column are next to it. The orders are rebuilt
        once the classes merged since the last build exceed a quarter of those alive; until
        then a merged class keeps the places of the class it was merged into."""
        if self._orders is None or self._since * 4 > self.live_count:
            self._orders = self._build_orders()
            self._since = 0
        out = []
        for perm, pos in self._orders:
            p = int(pos[a])
            lo, hi = max(p - 2 * h, 0), min(p + 2 * h + 1, len(perm))
            win = perm[lo:hi]
            win = win[self.alive[win]]
            j = int(np.searchsorted(pos[win], p))
            out.append(win[max(j - h, 0): j + h + 1])
        ids = np.unique(np.concatenate(out))
        return ids[ids != a]

    def _build_orders(self) -> list[tuple[IntArray, IntArray]]:
        live = np.flatnonzero(self.alive)
        orders = []
        for c in range(self.m):
            cols = [j for j in range(self.m) if j != c] + [c]
            perm = live[np.lexsort([self.V[live, j] for j in reversed(cols)])]
            pos = np.full(self.G, -1, dtype=np.int64)
            pos[perm] = np.arange(len(perm))
            orders.append((perm, pos))
        return orders

    def _refresh(self) -> None:
        """Rebuild the scan arrays when a quarter of their entries is dead; else patch the
        entries of classes changed since the last scan."""
        if self._stale * 4 > len(self._ids) or not len(self._ids):
            self._ids = np.flatnonzero(self.alive)
            self._slot = np.full(self.G, -1, dtype=np.int64)
            self._slot[self._ids] = np.arange(len(self._ids))
            self._VT = np.ascontiguousarray(self.V[self._ids].T)
            self._n = self.n[self._ids].copy()
            self._P = self.P[self._ids].copy()
            self._stale = 0
            self._dirty.clear()
            return
        for a in self._dirty:
            j = self._slot[a]
            if j >= 0:
                self._VT[:, j] = self.V[a]
                self._n[j] = self.n[a]
                self._P[j] = self.P[a]
        self._dirty.clear()

    def merged_counts(self, a: int, ids: IntArray) -> IntArray:
        """``(len(ids), s)`` key counts of ``a`` merged with each of ``ids``."""
        return self.C[ids] + self.C[a]

    # -- updates ---------------------------------------------------------------------------
    def merge(self, a: int, b: int) -> int:
        """Merge ``b`` into ``a`` (and any class that then has ``a``'s new vector); judge the
        result. Returns ``a``."""
        assert self.alive[a] and self.alive[b] and a != b, "internal error: merge of dead class"
        self.by_vec.pop(self.V[a].tobytes(), None)
        self.by_vec.pop(self.V[b].tobytes(), None)
        w = np.where(self.V[a] == self.V[b], self.V[a], STAR).astype(np.int32)
        self._absorb(a, b)
        self._settle(a, w)
        return a

    def _absorb(self, a: int, b: int) -> None:
        """Move ``b``'s rows into ``a`` (their vectors must already agree or be reset)."""
        self.C[a] += self.C[b]
        self.n[a] += self.n[b]
        self.C[b] = 0
        self.n[b] = 0
        self.alive[b] = False
        self.ok[b] = True
        self.members.join(a, b)
        self._stale += 1
        self._dead += 1
        self._since += 1
        self.merges += 1

    def groups(self) -> list[tuple[IntArray, IntArray, IntArray]]:
        """The rows of every live class, as :meth:`Members.group`."""
        return [self.members.group(a) for a in np.flatnonzero(self.alive).tolist()]

    def pull(self, a: int, moves: list[tuple[int, int, int]]) -> int:
        """Move ``rows`` rows of entry ``e`` from class ``d`` into ``a`` for each
        ``(e, d, rows)``; ``a`` takes the suppressor of its new rows (a donor keeps its
        vector, which still covers its rows). Returns ``a``."""
        mem = self.members
        assert self.alive[a], "internal error: pull into a merged class"
        self.by_vec.pop(self.V[a].tobytes(), None)
        w = self.V[a].copy()
        for e, d, rows in moves:
            k = int(mem.k[e])
            if rows == mem.c[e]:
                mem.of[d].remove(e)
                mem.of[a].append(e)
            else:
                mem.c[e] -= rows
                mem.of[a].append(mem.add(int(mem.t[e]), k, rows))
            mem.changed(a, d)
            self.C[d, k] -= rows
            self.C[a, k] += rows
            self.n[d] -= rows
            self.n[a] += rows
            w[w != mem.codes[mem.t[e]]] = STAR
            self._dirty.add(d)
            self.ok[d] = bool(self.judge(self.C[d][None, :])[0])
            if self.n[d] == 0:
                self.by_vec.pop(self.V[d].tobytes(), None)
                self.alive[d] = False
                self._stale += 1
                self._dead += 1
                self._since += 1
        self._settle(a, w)
        self.pulls += 1
        return a

    def _settle(self, a: int, w: NDArray[np.int32]) -> None:
        """Give class ``a`` the vector ``w``, take in any live class already released as
        ``w`` (one vector, one class), and judge ``a`` again."""
        self.V[a] = w
        self.P[a] = int((w == STAR).sum())
        key = w.tobytes()
        other = self.by_vec.get(key)
        if other is not None and other != a:
            self._absorb(a, other)
        self.by_vec[key] = a
        self.ok[a] = bool(self.judge(self.C[a][None, :])[0])
        self._dirty.add(a)
