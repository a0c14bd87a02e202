"""Carving for :mod:`.merge_repair`: cut parts that are constant in one more column out of a class.

Split refinement (:mod:`._split_refine`) splits a class along a starred column ``c`` only into
*whole* groups of rows sharing a value of ``c``. Under t-closeness or a large ``l`` a group
rarely satisfies the model by itself (its sensitive values follow ``c``), and when one does,
the rest of the class often no longer does. Carving takes *part* of a group instead.

A class ``C`` with key counts ``K`` (``N`` rows) satisfies the model. For a starred column
``c`` and each group ``g`` of ``C``'s rows with one value of ``c`` (largest first), carving
tries the sub-multisets ``A(X)`` of ``g`` that follow ``C``'s own mix of keys, ``A(X)_v =
min(g_v, round(X K_v / N))``: such a part leaves the rest with about ``C``'s mix too, so both
sides tend to keep satisfying the model when ``C`` does. It also tries the flattest parts,
``A'(M)_v = min(g_v, M)`` for ``M = 1, 2, ...`` (the largest part of ``g`` with at most ``M``
rows of each key: the largest l-eligible ones, Xiao et al. Sec. 5.2's phase one, for
frequency l-diversity). The largest candidate part for which the
model holds on ``A(X)`` and on what is left of ``C`` becomes a class of its own; it is
constant in ``c``, so each of its rows carries at least one star fewer. The rest stays one
class. The column that saves the most stars is taken, and every part is carved again (a work
stack) until no column saves stars.

Every part satisfies the model, as judged; the parts' star sets are subsets of ``C``'s, so
stars only go down. Guarantee: none beyond that (a **heuristic** polish); deterministic.

Complexity: per class of ``e`` entries, ``|S|`` starred columns and ``N`` rows, at most
``|S| N`` candidate parts (:data:`X_GRID` sizes per group at most) are judged, in one model
call per column plus one per group with a passing part, and ``O(|S| (e log e + N s))`` other
work per carve; each carve adds a class.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic._merge_state import IntArray, Judge
from starmin.algorithms.heuristic._split_refine import Entries
from starmin.algorithms.heuristic._split_refine import _stars as _pattern_stars
from starmin.algorithms.ragged import ragged_arange
from starmin.data.rowtypes import RowTypes

X_GRID = 64
"""At most this many part sizes ``X`` are judged per group (evenly spread when a group holds
more rows): a work limit, not a time limit."""


def carve(rt: RowTypes, classes: list[Entries], judge: Judge, k: int = 1) -> list[Entries]:
    """Carve every class while a carve saves stars (module doc); returns the final classes.
    ``k``: the fewest rows any class satisfying the model holds (a part and the rest each
    need ``k``: classes of fewer than ``2 k`` rows and parts of fewer than ``k`` are not
    tried)."""
    out: list[Entries] = []
    stack = list(classes)
    while stack:
        ent = stack.pop()
        found = (_best_carve(rt, ent, judge, k)
                 if len(ent[0]) > 1 and int(ent[2].sum()) >= 2 * k else None)
        if found is None:
            out.append(ent)
        else:
            stack.extend(found)
    return out


def _stars(codes: NDArray[np.integer], rows: int) -> int:
    """Stars of a class of ``rows`` rows over the QI vectors ``codes``."""
    return int(_pattern_stars(codes.min(axis=0), codes.max(axis=0))) * rows


def _best_carve(rt: RowTypes, ent: Entries, judge: Judge, k: int) -> list[Entries] | None:
    """The parts of the carve that saves the most stars, or ``None`` when none saves any."""
    codes = rt.codes[ent[0]]
    best: tuple[int, list[Entries]] | None = None
    now = _stars(codes, int(ent[2].sum()))
    for c in np.flatnonzero(codes.min(axis=0) != codes.max(axis=0)).tolist():
        parts = _carve_column(rt, ent, c, judge, k)
        if parts is None:
            continue
        cost = sum(_stars(rt.codes[p[0]], int(p[2].sum())) for p in parts)
        if cost < now and (best is None or cost < best[0]):
            best = (cost, parts)
    return None if best is None else best[1]


def _carve_column(rt: RowTypes, ent: Entries, c: int, judge: Judge, k: int
                  ) -> list[Entries] | None:
    """The carved parts along column ``c`` and the rest (module doc), ``None`` if no group
    gives a part."""
    ti, ki, cnt = ent
    s = rt.counts.shape[1]
    K = np.bincount(ki, weights=cnt, minlength=s).astype(np.int64)
    _, grp = np.unique(rt.codes[ti, c], return_inverse=True)
    grp = grp.reshape(-1)
    G = int(grp.max()) + 1
    h = np.zeros((G, s), dtype=np.int64)
    np.add.at(h, (grp, ki), cnt)
    gid, a = _parts(h, K / K.sum(), k)
    ok = judge(a) if len(a) else np.zeros(0, dtype=bool)  # the parts alone: one call
    gid, a = gid[ok], a[ok]
    if len(a) == 0:
        return None
    rest, left = K.copy(), cnt.copy()
    taken: list[IntArray] = []
    for g in np.argsort(-h.sum(axis=1), kind="stable").tolist():
        cand = a[gid == g]
        if len(cand) == 0:
            continue
        cand = cand[np.argsort(-cand.sum(axis=1), kind="stable")]
        after = rest[None, :] - cand
        fine = after.sum(axis=1) == 0
        live = np.flatnonzero(~fine)
        if len(live):
            fine[live] = judge(after[live])
        if not fine.any():
            continue
        take = cand[int(np.argmax(fine))]                   # the largest that passes
        sel = np.flatnonzero(grp == g)
        part = np.zeros_like(cnt)
        for v in np.flatnonzero(take).tolist():
            need = int(take[v])
            for e in sel[ki[sel] == v].tolist():
                q = min(need, int(left[e]))
                part[e] += q
                left[e] -= q
                need -= q
                if need == 0:
                    break
        rest -= take
        taken.append(part)
    if not taken:
        return None
    out: list[Entries] = []
    for part in [*taken, left]:
        nz = np.flatnonzero(part)
        if len(nz):
            out.append((ti[nz], ki[nz], part[nz]))
    return out


def _parts(h: IntArray, share: NDArray[np.float64], k: int = 1
           ) -> tuple[IntArray, IntArray]:
    """``(group, key counts)`` of the candidate parts of every group ``g`` (rows of ``h``) of
    at least ``k`` rows (module doc): ``A(X) <= h_g`` following ``share`` for ``X`` up to the
    group's rows (:data:`X_GRID` of them at most, evenly spread), and the flattest parts
    ``min(h_g, M)`` for ``M`` up to the group's largest count (:data:`X_GRID` at most); parts
    of fewer than ``k`` rows are left out."""
    H = h.sum(axis=1)
    width = np.where(k <= H, np.minimum(H, X_GRID), 0)
    gid = np.repeat(np.arange(len(h)), width)
    i = ragged_arange(width)
    Hg = H[gid]
    X = np.where(Hg <= X_GRID, i + 1,
                 np.round(1 + i * (Hg - 1) / max(X_GRID - 1, 1)).astype(np.int64))
    a = np.minimum(h[gid], np.floor(X[:, None] * share[None, :] + 0.5).astype(np.int64))
    # the flattest parts: at most M rows of each key, M = 1 .. the group's largest count
    top = np.minimum(h.max(axis=1), X_GRID)
    gid2 = np.repeat(np.arange(len(h)), top)
    M = ragged_arange(top) + 1
    a2 = np.minimum(h[gid2], M[:, None])
    gid, a = np.concatenate([gid, gid2]), np.concatenate([a, a2])
    keep = a.sum(axis=1) >= max(k, 1)
    return gid[keep], a[keep]
