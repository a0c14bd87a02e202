"""Cut row types, visited in Hilbert order, into l-eligible groups (for hilbert and tp+).

Guarantee: **heuristic** -- every group is l-eligible (Xiao et al. Def. 2); nothing bounds
the stars. Two cuts are offered:

- :func:`bucket_cut` (the default): eligibility-preserving groups. Tuples wait in one
  bucket per SA value, each in Hilbert order. While ``N`` tuples remain, the values ``v``
  with ``l * c_v > N - l`` are *critical* -- unless each gives a tuple now, the rest stops
  being l-eligible -- and a group takes the next tuple of every critical value plus of the
  values whose next tuple comes first in the Hilbert order, ``max(l, #critical)`` distinct
  values in all. Taking one tuple from each of the l largest buckets keeps the rest
  l-eligible (Xiao & Tao's Anatomy, VLDB 2006, group creation); here only the critical
  buckets are forced and the others are chosen for locality. Runs of identical choices are
  taken at once, and identical groups share one suppressor, so they are one class.
- :func:`greedy_cut`: Ghinita et al.'s greedy cut of the 1-d order as the brief describes it
  -- a running group takes tuples in order and is cut once it and the rest are l-eligible;
  a group takes from a row type only the fewest tuples that close it, and when the running
  group is empty a row type's largest l-eligible part (Xiao et al. Lemma 4) is a group of
  its own. On skewed inputs (such as TP's residue set, made of pillar excesses) its groups
  grow long and the bucket cut needs far fewer stars (docs/algorithms/hilbert.md).

A leftover that cannot be made l-eligible is merged backwards into the groups before it
(Lemma 1: a union of l-eligible sets is l-eligible); neither cut normally needs this.

Complexity: bucket cut ``O((b + nnz) log s)`` Python steps for ``b`` batches and ``nnz``
non-zero (row type, value) counts; greedy cut ``O(nnz log s)``.

References
----------
G. Ghinita, P. Karras, P. Kalnis and N. Mamoulis, VLDB 2007 (Hilbert order, 1-d cut).
X. Xiao and Y. Tao, "Anatomy: simple and effective privacy preservation", VLDB 2006
(l largest buckets keep the rest l-eligible). X. Xiao, K. Yi and Y. Tao, EDBT 2010,
Def. 2, Lemma 1, Lemma 4, Sec. 6.1.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.approx.tp_phases import phase_one_heights
from starmin.errors import StarminError

Entries = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]
"""``(group, type_idx, key_idx, count)`` arrays: which group each (type, key) count goes to."""
Group = tuple[dict[int, int], list[tuple[int, int, int]]]
"""A group's counts per SA value and its ``(type, value, count)`` entries."""


def merge_tail(groups: list[Group], c: dict[int, int], entries: list[tuple[int, int, int]],
               l: int) -> None:
    """Append the tail group, merged backwards with ``groups`` until it is l-eligible."""
    while sum(c.values()) < l * max(c.values()):
        if not groups:
            raise StarminError("the rows given to the Hilbert cut are not l-eligible")
        c2, e2 = groups.pop()
        for v, n in c2.items():
            c[v] = c.get(v, 0) + n
        entries = e2 + entries
    groups.append((c, entries))


def _entries(groups: list[Group]) -> Entries:
    sizes = [len(e) for _, e in groups]
    arr = np.asarray([x for _, e in groups for x in e], dtype=np.int64).reshape(-1, 3)
    gid = np.repeat(np.arange(len(groups), dtype=np.int64), sizes)
    return gid, arr[:, 0], arr[:, 1], arr[:, 2]


# -- greedy cut ---------------------------------------------------------------------------------
def _fill(c: Mapping[int, int], S: int, M: int, vals: list[int], cnts: list[int], l: int
          ) -> list[int] | None:
    """Fewest tuples of one row type (``cnts`` of SA values ``vals``) that make an open group
    (counts ``c``, size ``S``, largest count ``M``, not l-eligible) l-eligible: how many of
    each value, or None when the whole row type is not enough."""
    D = l * M - S                                              # deficit, > 0
    take = [0] * len(vals)
    for k, v in enumerate(vals):                               # below M: -1 per tuple
        room = M - c.get(v, 0)
        if room > 0:
            take[k] = min(cnts[k], room, D)
            D -= take[k]
            if D == 0:
                return take
    left = sorted(((cnts[k] - take[k], k) for k in range(len(vals)) if cnts[k] > take[k]),
                  key=lambda x: (-x[0], x[1]))                 # values at level M, most first
    level = 0
    K = len(left)
    while l < K:                                               # a layer of K: deficit -(K-l)
        run = left[K - 1][0] - level
        u = -(-D // (K - l)) - 1                               # full layers before closing
        if u < run:
            j = D - u * (K - l) + l                            # tuples of the closing layer
            for r, (n, k) in enumerate(left):
                take[k] += level + u + (r < j) if r < K else n  # run-out values: all
            return take
        D -= run * (K - l)
        level += run
        while K > 0 and left[K - 1][0] <= level:
            K -= 1
    return None


def _cap(cnts: list[int], l: int) -> int:
    """The phase-one height of one row type (as :func:`phase_one_heights`)."""
    top = sorted((n for n in cnts if n), reverse=True)
    if len(top) < l:
        return 0
    tail = sum(top)
    h = top[0]
    for j in range(l):
        h = min(h, tail // (l - j))
        tail -= top[j]
    return h


class _Cutter:
    """Greedy cut of row types, visited in Hilbert order, into l-eligible groups.

    A group is closed only when it is l-eligible *and* the tuples not yet handed out are
    l-eligible too (or none are left), so the cut can always be finished (Lemma 1)."""

    def __init__(self, l: int, free: list[int]) -> None:
        self.l = l
        self.groups: list[Group] = []
        self.c: dict[int, int] = {}
        self.entries: list[tuple[int, int, int]] = []
        self.S = 0
        self.M = 0
        self.free = free                                       # tuples not in any group
        self.free_total = sum(free)
        self.heap = [(-n, v) for v, n in enumerate(free) if n]  # lazy max-heap of free
        heapq.heapify(self.heap)

    def _add(self, t: int, v: int, n: int) -> None:
        if n:
            self.entries.append((t, v, n))
            cv = self.c.get(v, 0) + n
            self.c[v] = cv
            self.S += n
            self.M = max(self.M, cv)
            self.free[v] -= n
            self.free_total -= n
            if self.free[v]:
                heapq.heappush(self.heap, (-self.free[v], v))

    def _add_all(self, t: int, vals: list[int], cnts: list[int]) -> None:
        for v, n in zip(vals, cnts, strict=True):
            self._add(t, v, n)

    def _rest_ok(self) -> bool:
        """Are the tuples not yet handed out l-eligible (or none)?"""
        heap, free = self.heap, self.free
        while heap and -heap[0][0] != free[heap[0][1]]:        # drop stale entries
            heapq.heappop(heap)
        return self.free_total >= self.l * (-heap[0][0] if heap else 0)

    def _close(self) -> None:
        self.groups.append((self.c, self.entries))
        self.c, self.entries, self.S, self.M = {}, [], 0, 0

    def visit(self, t: int, vals: list[int], cnts: list[int], cap: int) -> None:
        """Hand the tuples of row type ``t`` (``cnts`` per SA value ``vals``) to groups."""
        while True:
            if self.S == 0:
                if cap == 0:                                   # no l-eligible part
                    self._add_all(t, vals, cnts)
                    return
                pure = [min(n, cap) for n in cnts]             # (ii) pure part, no star
                self._add_all(t, vals, pure)
                cnts = [n - k for n, k in zip(cnts, pure, strict=True)]
                cap = 0
                if self._rest_ok():
                    self._close()
                if not any(cnts):
                    return
                continue
            if self.l * self.M <= self.S:                      # eligible, rest is not yet
                if self._rest_ok():
                    self._close()
                    continue
                self._add_all(t, vals, cnts)
                return
            take = _fill(self.c, self.S, self.M, vals, cnts, self.l)
            if take is None:
                self._add_all(t, vals, cnts)
                return
            self._add_all(t, vals, take)
            cnts = [n - k for n, k in zip(cnts, take, strict=True)]
            if not self._rest_ok():
                self._add_all(t, vals, cnts)
                return
            self._close()
            if not any(cnts):
                return
            cap = _cap(cnts, self.l)                           # the rest's eligible part

    def finish(self) -> list[Group]:
        """The groups; a leftover tail is merged backwards until it is l-eligible."""
        if self.S:
            merge_tail(self.groups, self.c, self.entries, self.l)
        return self.groups


def greedy_cut(order: NDArray[np.int64], counts: NDArray[np.int64], l: int) -> Entries:
    """Greedy cut of the row types ``order`` (Hilbert order) of ``(T, s)`` ``counts``."""
    caps = phase_one_heights(counts, l).tolist()               # Lemma 4 cap per row type
    cut = _Cutter(l, counts.sum(axis=0).tolist())
    sub = counts[order]
    tt, vv = np.nonzero(sub)                                   # row-major: types in order
    nn = sub[tt, vv]
    bounds = np.searchsorted(tt, np.arange(len(order) + 1)).tolist()
    vv_l, nn_l, order_l = vv.tolist(), nn.tolist(), order.tolist()
    for p in range(len(order_l)):
        a, b = bounds[p], bounds[p + 1]
        if a < b:
            t = order_l[p]
            cut.visit(t, vv_l[a:b], nn_l[a:b], caps[t])
    return _entries(cut.finish())


# -- bucket cut ---------------------------------------------------------------------------------
class _Buckets:
    """Per SA value, runs ``[position in the order, count]`` of its tuples not yet taken."""

    def __init__(self, sub: NDArray[np.int64], l: int) -> None:
        self.l = l
        s = sub.shape[1]
        vv, pp = np.nonzero(sub.T)                             # value-major, positions sorted
        self.runs: list[list[list[int]]] = [[] for _ in range(s)]
        for v, p, n in zip(vv.tolist(), pp.tolist(), sub[pp, vv].tolist(), strict=True):
            self.runs[v].append([p, n])
        self.ptr = [0] * s
        self.cnt = sub.sum(axis=0)                             # (s,) c_v
        self.N = int(self.cnt.sum())
        self.by_pos = [(r[0][0], v) for v, r in enumerate(self.runs) if r]
        heapq.heapify(self.by_pos)                             # lazy: next position per value

    def choose(self) -> list[int] | None:
        """The values of the next group: the critical ones, then the nearest in order.
        ``self.popped`` keeps the values whose heap entry was taken out."""
        chosen = np.flatnonzero(self.l * self.cnt > self.N - self.l).tolist()
        taken = set(chosen)
        cnt, runs, ptr, heap = self.cnt, self.runs, self.ptr, self.by_pos
        keep = []
        self.popped: set[int] = set()
        while len(chosen) < self.l and heap:
            p, v = heapq.heappop(heap)
            if not cnt[v] or runs[v][ptr[v]][0] != p:
                continue                                       # stale
            if v in taken:
                keep.append((p, v))                            # a critical value's entry
                continue
            chosen.append(v)
            taken.add(v)
            self.popped.add(v)
        for e in keep:
            heapq.heappush(heap, e)
        return chosen if len(chosen) >= self.l else None       # else: fewer than l values

    def take(self, chosen: list[int]) -> list[tuple[int, int, int]]:
        """Take as many identical groups of ``chosen`` as keep the choice valid; return the
        ``(position, value, count)`` entries."""
        l, g, runs, ptr = self.l, len(chosen), self.runs, self.ptr
        k = min(runs[v][ptr[v]][1] for v in chosen)
        rest = self.cnt.copy()
        rest[chosen] = 0
        top = int(rest.max())
        if top:                                                # no other value turns critical
            k = min(k, (self.N - l - l * top) // g + 1)
        out = []
        for v in chosen:
            run = runs[v][ptr[v]]
            out.append((run[0], v, k))
            run[1] -= k
            moved = run[1] == 0
            if moved:
                ptr[v] += 1
            self.cnt[v] -= k
            if (moved or v in self.popped) and ptr[v] < len(runs[v]):
                heapq.heappush(self.by_pos, (runs[v][ptr[v]][0], v))
        self.N -= k * g
        return out


def bucket_cut(order: NDArray[np.int64], counts: NDArray[np.int64], l: int) -> Entries:
    """Eligibility-preserving bucket cut of the row types ``order`` of ``(T, s)`` ``counts``."""
    b = _Buckets(counts[order], l)
    groups: list[Group] = []
    while b.N > 0:
        chosen = b.choose()
        if chosen is None:                                     # a tail that is not eligible
            c: dict[int, int] = {}
            entries = []
            for v in range(len(b.runs)):
                for p, n in b.runs[v][b.ptr[v]:]:
                    if n:
                        entries.append((int(order[p]), v, n))
                        c[v] = c.get(v, 0) + n
            merge_tail(groups, c, entries, l)
            break
        got = b.take(chosen)
        groups.append(({v: k for _, v, k in got}, [(int(order[p]), v, k) for p, v, k in got]))
    return _entries(groups)
