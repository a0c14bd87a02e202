"""Split refinement for :mod:`.merge_repair`: cut satisfying classes into satisfying parts.

A class with star set ``S`` is split along one starred column ``c``: its rows are grouped by
their value in ``c``. Groups that satisfy the model become classes of their own (each released
as its suppressor, which keeps ``c``); the others are pooled into one class that keeps ``c``
starred. When the pool violates the model, satisfying groups are added back to it (one order
of groups is tried per rule below, prefixes judged in one call) until it satisfies -- adding all
of them gives back the class, which satisfies. The column whose split saves the most stars is
taken and the parts are refined in turn (a work stack); a class no column improves is final.

Every part satisfies the model, so the release does too; stars only go down.

Complexity: per class with ``e`` (row type, key) entries and ``|S|`` starred columns,
``O(|S| (e log e + e m + g s))`` for ``g`` groups; each accepted split is at most ``m`` levels
deep, so ``O(m^2 t log t)`` in all for ``t`` entries (plus the model evaluations).
"""

from __future__ import annotations

import numpy as np

from starmin.algorithms.heuristic._merge_state import IntArray, Judge
from starmin.data.rowtypes import RowTypes

Entries = tuple[IntArray, IntArray, IntArray]  # (type, key, count) of one class's rows


def _group_stars(codes: IntArray, grp: IntArray, g: int) -> tuple[IntArray, IntArray]:
    """``(g, m)`` per-group column minimum and maximum of ``codes`` (rows labelled ``grp``)."""
    order = np.argsort(grp, kind="stable")
    starts = np.searchsorted(grp[order], np.arange(g))
    c = codes[order]
    return np.minimum.reduceat(c, starts, axis=0), np.maximum.reduceat(c, starts, axis=0)


def _stars(lo: IntArray, hi: IntArray) -> IntArray:
    return (lo != hi).sum(axis=-1).astype(np.int64)


def best_split(rt: RowTypes, ent: Entries, judge: Judge) -> tuple[int, list[IntArray]] | None:
    """``(stars saved, parts as entry index arrays)`` of the best split of one satisfying
    class, or ``None`` when no split saves stars."""
    ti, ki, cnt = ent
    codes = rt.codes[ti].astype(np.int64)                      # (e, m)
    rows = int(cnt.sum())
    cur = int(_stars(codes.min(axis=0), codes.max(axis=0))) * rows
    best: tuple[int, list[IntArray]] | None = None
    for c in np.flatnonzero(codes.min(axis=0) != codes.max(axis=0)).tolist():
        _, grp = np.unique(codes[:, c], return_inverse=True)
        grp = grp.reshape(-1)
        g = int(grp.max()) + 1
        kc = np.zeros((g, rt.s), dtype=np.int64)
        np.add.at(kc, (grp, ki), cnt)
        found = _split_on(codes, grp, g, kc, judge)
        if found is None:
            continue
        stars, part_of = found
        if cur - stars > (0 if best is None else best[0]):
            parts = [np.flatnonzero(part_of == p) for p in np.unique(part_of).tolist()]
            best = (cur - stars, parts)
    return best


def _split_on(codes: IntArray, grp: IntArray, g: int, kc: IntArray, judge: Judge
              ) -> tuple[int, IntArray] | None:
    """Stars and the part of each entry (``-1``: the pool, else its group) of the best split
    by the groups ``grp``; ``None`` if every group must go back to the pool."""
    good = judge(kc)
    lo, hi = _group_stars(codes, grp, g)                       # (g, m)
    size = kc.sum(axis=1)
    own = _stars(lo, hi) * size                                # (g,) stars as own class
    bad = np.flatnonzero(~good)
    cand = np.flatnonzero(good)
    if len(cand) == 0:
        return None
    best: tuple[int, IntArray] | None = None
    # groups added back to the pool: smallest first, most stars per row first, largest first
    for key in (size[cand], -own[cand] / size[cand], -size[cand]):
        seq = np.concatenate([bad, cand[np.argsort(key, kind="stable")]])
        L = np.arange(max(len(bad), 1), len(seq))              # pool = seq[:L], L < g
        last = L - 1
        ok = judge(np.cumsum(kc[seq], axis=0)[last])
        pool = _stars(np.minimum.accumulate(lo[seq], axis=0)[last],
                      np.maximum.accumulate(hi[seq], axis=0)[last]) * np.cumsum(size[seq])[last]
        total = pool + int(own.sum()) - np.cumsum(own[seq])[last]
        if not len(bad):                                       # no pool at all
            L, total, ok = np.r_[0, L], np.r_[own.sum(), total], np.r_[True, ok]
        if not ok.any():
            continue
        j = int(np.flatnonzero(ok)[np.argmin(total[ok])])
        if best is None or total[j] < best[0]:
            best = (int(total[j]), seq[: L[j]])
    if best is None:
        return None
    part = grp.copy()
    part[np.isin(grp, best[1])] = -1
    return best[0], part


def refine(rt: RowTypes, classes: list[Entries], judge: Judge) -> list[Entries]:
    """Split every class while a split saves stars; returns the final classes."""
    out: list[Entries] = []
    stack = list(classes)
    while stack:
        ent = stack.pop()
        found = best_split(rt, ent, judge) if len(ent[0]) > 1 else None
        if found is None:
            out.append(ent)
            continue
        for p in found[1]:
            stack.append((ent[0][p], ent[1][p], ent[2][p]))
    return out
