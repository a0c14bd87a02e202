"""The steps of :mod:`.pattern_packing`, each acting on an :class:`.Assignment`.

* :func:`place_big_types` -- level 0: a row type with ``>= k`` rows is its own class.
* :func:`join_level` -- free rows join open classes of the given patterns (same cost as any
  new class of that level, and no minimum size to reach).
* :func:`pack_level` -- packs free rows into new classes of exactly ``k`` rows inside the
  level's buckets, the row type with the fewest open buckets first.
* :func:`borrow_level` -- completes a bucket of fewer than ``k`` free rows with surplus rows
  (beyond ``k``) of classes of this level or below, when the extra stars are few.

The last free rows and the fallback for very wide tables are in :mod:`._leftovers`.
"""

from __future__ import annotations

import heapq

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Progress, silent
from starmin.algorithms.heuristic._assignment import Assignment
from starmin.algorithms.heuristic.pattern_keys import (
    IntArray,
    group_by_key,
    groups,
)

Bucket = tuple[int, int]  # (mask, key)


def free_types(a: Assignment) -> IntArray:
    """Row types with free rows."""
    return np.nonzero(a.free > 0)[0].astype(np.int64)


def place_big_types(a: Assignment) -> None:
    """Level 0: every QI vector with ``>= k`` rows is released as is (no star); row types
    with equal vectors (a non-canonical input) count together."""
    xs = np.arange(a.t, dtype=np.int64)
    uniq, inv, tot = group_by_key(a.keys.keys(0), a.free)
    big = tot[inv] >= a.k
    for x, key in zip(xs[big].tolist(), uniq[inv[big]].tolist(), strict=True):
        a.move(x, None, a.open(0, int(key)), int(a.free[x]))


def join_level(a: Assignment, masks: list[int]) -> None:
    """Free rows join an open class of one of ``masks`` covering them (the first one found)."""
    for mask in masks:
        xs = free_types(a)
        if len(xs) == 0:
            return
        keys, cids = a.live(mask)
        if len(keys) == 0:
            continue
        kx = a.keys.keys(mask, xs)
        pos = np.minimum(np.searchsorted(keys, kx), len(keys) - 1)
        hit = keys[pos] == kx
        for x, cid in zip(xs[hit].tolist(), cids[pos[hit]].tolist(), strict=True):
            a.move(x, None, cid, int(a.free[x]))


class _Packer:
    """One level of :func:`pack_level`: buckets with ``>= k`` free rows and the heap of row
    types keyed by their number of such buckets (the degree)."""

    def __init__(self, a: Assignment, masks: list[int], tie: IntArray) -> None:
        self.a, self.tie = a, tie
        self.placed = 0
        self.members: dict[Bucket, set[int]] = {}
        self.total: dict[Bucket, int] = {}
        self.options: dict[int, set[Bucket]] = {}
        xs = free_types(a)
        for mask in masks:
            uniq, inv, tot = group_by_key(a.keys.keys(mask, xs), a.free[xs])
            ok = tot[inv] >= a.k
            for i, grp in groups(xs[ok], inv[ok]):
                b = (mask, int(uniq[i]))
                self.members[b] = set(grp.tolist())
                self.total[b] = int(tot[i])
        for b, mem in self.members.items():
            for x in mem:
                self.options.setdefault(x, set()).add(b)
        self.degree = {x: len(bs) for x, bs in self.options.items()}
        self.heap = [(d, int(tie[x]), x) for x, d in self.degree.items()]
        heapq.heapify(self.heap)

    def run(self, meter: Meter) -> None:
        a = self.a
        while self.heap:
            meter.tick(self.placed)
            d, _, x = heapq.heappop(self.heap)
            if a.free[x] == 0 or x not in self.options or d != self.degree[x] or d == 0:
                continue
            # the tightest bucket (fewest free rows) of the most constrained row type
            b = min(self.options[x], key=lambda b: (self.total[b], b))
            partners = sorted(self.members[b] - {x},
                              key=lambda y: (self.degree[y], -a.free[y], self.tie[y]))
            cid = a.open(*b)
            need = a.k
            for y in [x, *partners]:
                if need <= 0:
                    break
                rows = int(min(a.free[y], need))
                self._take(y, cid, rows)
                need -= rows

    def _take(self, y: int, cid: int, rows: int) -> None:
        a = self.a
        a.move(y, None, cid, rows)
        self.placed += rows
        gone = a.free[y] == 0
        for b in list(self.options.get(y, ())):
            if b not in self.total:
                continue
            self.total[b] -= rows
            if gone:
                self.members[b].discard(y)
            if self.total[b] < a.k:
                self._kill(b)
        if gone:
            self.options.pop(y, None)

    def _kill(self, b: Bucket) -> None:
        """Bucket ``b`` fell below ``k`` free rows: it no longer counts for its members."""
        for y in self.members.pop(b, ()):
            opts = self.options.get(y)
            if opts is not None and b in opts:
                opts.discard(b)
                self.degree[y] = len(opts)
                heapq.heappush(self.heap, (self.degree[y], int(self.tie[y]), y))
        self.total.pop(b, None)


def pack_level(a: Assignment, masks: list[int], tie: IntArray, progress: Progress = silent,
               what: str = "greedy packing") -> None:
    """Pack free rows into new classes of ``k`` rows within buckets of ``masks``.

    Min-degree greedy for the packing: repeatedly take the row type in the fewest buckets that
    still hold ``>= k`` free rows, open its bucket with the fewest free rows, and fill it with
    ``k`` rows: its own, then those of the bucket's row types with the fewest options.
    ``tie`` (a permutation of row types) breaks ties. Rows left in an opened bucket join it
    afterwards (:func:`join_level`). ``progress`` hears the rows placed of the free rows
    (throttled, :class:`starmin.algorithms._progress.Meter`), headed ``what``.
    """
    meter = Meter(progress, what, "free rows placed", int(a.free.sum()))
    packer = _Packer(a, masks, tie)
    packer.run(meter)
    if meter.lines:
        meter.say(packer.placed)


def _donor_pieces(a: Assignment, j: int) -> tuple[IntArray, IntArray, IntArray]:
    """``(type, rows, extra stars per row)`` of the rows that classes of level ``<= j`` can
    give away while keeping ``>= k`` (per piece, capped by its class's surplus)."""
    out: list[tuple[int, int, int]] = []
    for c in range(len(a.size)):
        lvl = a.level(c)
        if a.size[c] > a.k and lvl <= j:
            surplus = a.size[c] - a.k
            out.extend((y, min(cnt, surplus), j - lvl) for y, cnt in a.members[c].items())
    arr = np.array(out, dtype=np.int64).reshape(-1, 3)
    return arr[:, 0], arr[:, 1], arr[:, 2]


def borrow_plan(a: Assignment, j: int, grp: IntArray
                 ) -> tuple[int, int, list[tuple[int, int, int]]] | None:
    """Extra stars, free rows placed, and the ``(type, class, rows)`` to borrow, for completing
    the bucket whose row types are ``grp`` (free ones and donors) to ``k`` rows at level ``j``.
    Donor classes keep ``>= k`` rows; cheapest rows (highest class level) first."""
    b = int(a.free[grp].sum())
    if b == 0:
        return None
    need = a.k - b
    offers = sorted((j - a.level(cid), cid, y, cnt)
                    for y in grp.tolist() for cid, cnt in a.pieces.get(y, {}).items()
                    if a.size[cid] > a.k and a.level(cid) <= j)
    given: dict[int, int] = {}
    moves: list[tuple[int, int, int]] = []
    extra = 0
    for cost, cid, y, cnt in offers:
        if need <= 0:
            break
        rows = min(cnt, a.size[cid] - a.k - given.get(cid, 0), need)
        if rows > 0:
            given[cid] = given.get(cid, 0) + rows
            moves.append((y, cid, rows))
            extra += cost * rows
            need -= rows
    if need > 0:
        return None
    return extra, b, moves


def _cheapest_completion(need: IntArray, supply: IntArray) -> NDArray[np.float64]:
    """``(B,)`` least extra stars to take ``need`` rows from ``supply[B, e]`` rows costing
    ``e`` each (inf when short)."""
    cost = np.zeros(len(need))
    left = need.copy()
    for e in range(supply.shape[1]):
        take = np.minimum(left, supply[:, e])
        cost += e * take
        left -= take
    cost[left > 0] = np.inf
    return cost


def _borrow_candidates(a: Assignment, j: int, masks: list[int], slack: float,
                       gain: NDArray[np.float64]) -> list[tuple[float, Bucket, IntArray]]:
    """Buckets of ``masks`` holding free rows whose completion looks cheap enough, scored in
    bulk from the surplus per (bucket, extra cost) -- each is re-checked before use."""
    xs = free_types(a)
    d_type, d_rows, d_extra = _donor_pieces(a, j)
    keep = d_extra <= slack * (a.k - 1) * float(gain[xs].max())  # dearer rows never pay
    d_type, d_rows, d_extra = d_type[keep], d_rows[keep], d_extra[keep]
    pool = np.union1d(xs, d_type)
    d_pos = np.searchsorted(pool, d_type)
    value = a.free[pool] * gain[pool]  # stars saved per free row if placed now, estimated
    out: list[tuple[float, Bucket, IntArray]] = []
    for mask in masks:
        uniq, inv, free_rows = group_by_key(a.keys.keys(mask, pool), a.free[pool])
        supply = np.zeros((len(uniq), j + 1), dtype=np.int64)
        np.add.at(supply, (inv[d_pos], d_extra), d_rows)
        cost = _cheapest_completion(np.maximum(a.k - free_rows, 0), supply)
        worth = np.bincount(inv, weights=value, minlength=len(uniq))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = cost / worth
        good = (free_rows > 0) & (ratio <= slack)
        if not good.any():
            continue
        sel = good[inv]
        for i, grp in groups(pool[sel], inv[sel]):
            out.append((float(ratio[i]), (mask, int(uniq[i])), grp))
    out.sort(key=lambda c: (c[0], c[1]))
    return out


def borrow_level(a: Assignment, j: int, masks: list[int], slack: float,
                 gain: NDArray[np.float64] | None = None) -> None:
    """Complete level-``j`` buckets of fewer than ``k`` free rows with borrowed rows.

    A bucket is completed when the borrowed rows' extra stars (``j`` minus their class level,
    each) are at most ``slack`` times the stars its free rows save by being placed now
    (``gain`` per row, default 1: their alternative is a later level); cheapest first.
    """
    if not (a.free > 0).any():
        return
    g = np.ones(a.t) if gain is None else np.asarray(gain, dtype=np.float64)
    for _, b, grp in _borrow_candidates(a, j, masks, slack, g):
        plan = borrow_plan(a, j, grp)
        if plan is not None and plan[0] <= slack * float((a.free[grp] * g[grp]).sum()):
            complete_bucket(a, b, grp, plan[2])


def complete_bucket(a: Assignment, b: Bucket, grp: IntArray, moves: list[tuple[int, int, int]]
              ) -> None:
    """Open bucket ``b`` with the free rows of ``grp`` and the borrowed ``moves``."""
    cid = a.open(*b)
    for x in grp.tolist():
        a.move(x, None, cid, int(a.free[x]))
    for y, src, rows in moves:
        a.move(y, src, cid, rows)
