"""The last free rows of :mod:`.pattern_packing`, and its fallback for very wide tables.

* :func:`place_leftovers` -- the last ``< k`` free rows, one decision at a time: complete a
  bucket by borrowing surplus rows, or widen an open class, whichever costs fewer stars.
* :func:`chunk_free_rows` -- past the level budget: lexicographic runs of ``>= k`` rows.
"""

from __future__ import annotations

from math import comb

import numpy as np

from starmin.algorithms.heuristic._assignment import Assignment
from starmin.algorithms.heuristic._level_steps import (
    Bucket,
    borrow_plan,
    complete_bucket,
    free_types,
)
from starmin.algorithms.heuristic.pattern_keys import IntArray, mask_vector, masks_of_level


def _widen_option(a: Assignment, x: int) -> tuple[int, int, int]:
    """``(extra stars, class, new mask)``: the cheapest class for free row type ``x`` to join
    by widening, i.e. starring for all of class ``A`` the columns where ``x`` differs from it
    outside its pattern: ``(|A| + f) * |S'| - |A| * |S|``."""
    cids = np.array([c for c in range(len(a.size)) if a.size[c] > 0], dtype=np.int64)
    reps = np.array([next(iter(a.members[c])) for c in cids], dtype=np.int64)
    bits = np.array([mask_vector(a.mask[c], a.m) for c in cids], dtype=bool).reshape(-1, a.m)
    size = np.array([a.size[c] for c in cids], dtype=np.int64)
    new_bits = bits | (a.keys.codes[reps] != a.keys.codes[x])
    delta = (size + a.free[x]) * new_bits.sum(axis=1) - size * bits.sum(axis=1)
    best = int(np.argmin(delta))
    new_mask = sum(1 << c for c in range(a.m) if new_bits[best, c])
    return int(delta[best]), int(cids[best]), new_mask


def _surplus_pieces(a: Assignment) -> tuple[IntArray, IntArray, IntArray]:
    """``(type, rows, class level)`` of the rows classes can lend keeping ``>= k``."""
    out = [(y, min(cnt, a.size[c] - a.k), a.level(c))
           for c in range(len(a.size)) if a.size[c] > a.k for y, cnt in a.members[c].items()]
    arr = np.array(out, dtype=np.int64).reshape(-1, 3)
    return arr[:, 0], arr[:, 1], arr[:, 2]


def _borrow_option(a: Assignment, x: int, widen: IntArray, max_patterns: int
                   ) -> tuple[int, Bucket, IntArray] | None:
    """The bucket of ``x`` whose completion to ``k`` rows by borrowing saves most stars over
    widening (``widen``: the widening cost of each free row type, in ``free_types`` order), as
    ``(saving, bucket, row types of the bucket)``; ``None`` if none saves any. A bucket costs
    its free rows at its level plus the borrowed rows' extra stars, scored from the surplus
    per piece (the caller plans it exactly)."""
    if a.m > 62:  # bit masks below are int64
        return None
    d_type, d_rows, d_level = _surplus_pieces(a)
    xs = free_types(a)
    d_diff, x_diff = _diff_masks(a, x, d_type), _diff_masks(a, x, xs)
    best: tuple[int, int] | None = None
    for j in range(1, a.m + 1):
        if comb(a.m, j) > max_patterns:
            break
        for mask in masks_of_level(a.m, j):
            inside = (x_diff & ~mask) == 0
            b = int(a.free[xs[inside]].sum())  # free rows in x's bucket
            sel = ((d_diff & ~mask) == 0) & (d_level <= j)
            order = np.argsort(-d_level[sel], kind="stable")  # cheapest rows first
            rows = d_rows[sel][order]
            taken = np.clip(a.k - b - (np.cumsum(rows) - rows), 0, rows)
            if taken.sum() < max(a.k - b, 0):
                continue
            cost = j * b + int(((j - d_level[sel][order]) * taken).sum())
            saving = int(widen[inside].sum()) - cost
            if saving > (0 if best is None else best[0]):
                best = (saving, mask)
    if best is None:
        return None
    mask = best[1]
    key = int(a.keys.keys(mask, np.array([x]))[0])
    pool = np.union1d(xs, d_type)
    return best[0], (mask, key), pool[a.keys.keys(mask, pool) == key]


def _diff_masks(a: Assignment, x: int, ys: IntArray) -> IntArray:
    """``(len(ys),)`` bit masks of the columns where each of ``ys`` differs from ``x``: ``y``
    is in ``x``'s bucket under pattern ``S`` iff its mask is a subset of ``S``."""
    differ = a.keys.codes[ys] != a.keys.codes[x]
    return (differ * (1 << np.arange(a.m, dtype=np.int64))).sum(axis=1).astype(np.int64)


def place_leftovers(a: Assignment, max_patterns: int) -> None:
    """Place the last free rows (fewer than ``k`` in all), one decision at a time: complete
    the bucket that saves most over widening (several free rows may share it, see
    :func:`_borrow_option`), else widen for the free row type where that costs least."""
    while (a.free > 0).any():
        xs = free_types(a)
        options = [_widen_option(a, x) for x in xs.tolist()]
        widen = np.array([o[0] for o in options], dtype=np.int64)
        best = None
        for x in xs.tolist():
            opt = _borrow_option(a, x, widen, max_patterns)
            if opt is not None and (best is None or opt[0] > best[0]):
                best = opt
        if best is not None:
            _, b, grp = best
            plan = borrow_plan(a, a.level_of_mask(b[0]), grp)
            if plan is not None:  # None only if pieces of one class shared its surplus
                complete_bucket(a, b, grp, plan[2])
                continue
        i = int(np.argmin(widen))
        _widen(a, int(xs[i]), options[i][1], options[i][2])


def _widen(a: Assignment, x: int, src: int, new_mask: int) -> None:
    """Move class ``src`` to pattern ``new_mask`` (merging with that bucket's class, if
    open) and put the free rows of ``x`` in it."""
    rep = np.array([next(iter(a.members[src]))], dtype=np.int64)
    dst = a.open(new_mask, int(a.keys.keys(new_mask, rep)[0]))
    if dst != src:
        for y, rows in list(a.members[src].items()):
            a.move(y, src, dst, rows)
    a.move(x, None, dst, int(a.free[x]))


def chunk_free_rows(a: Assignment) -> None:
    """Fallback past the level budget: free row types in lexicographic order (columns with
    few values first) cut into runs of ``>= k`` rows, each released as its suppressor."""
    xs = free_types(a)
    if int(a.free[xs].sum()) < a.k:
        return
    cols = np.argsort(a.keys.card, kind="stable")
    order = xs[np.lexsort(a.keys.codes[xs][:, cols[::-1]].T)]
    runs: list[list[int]] = [[]]
    rows = 0
    for x in order.tolist():
        if rows >= a.k:
            runs.append([])
            rows = 0
        runs[-1].append(x)
        rows += int(a.free[x])
    if rows < a.k:
        runs[-2].extend(runs.pop())
    for run in runs:
        codes = a.keys.codes[run]
        differ = ~(codes == codes[0]).all(axis=0)
        mask = sum(1 << c for c in range(a.m) if differ[c])
        cid = a.open(mask, int(a.keys.keys(mask, np.array(run[:1]))[0]))
        for x in run:
            a.move(x, None, cid, int(a.free[x]))
