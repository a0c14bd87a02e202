"""Move refinement for :mod:`.merge_repair`: rows move to a class with fewer stars.

A row of row type ``y`` may be released by any class whose vector *covers* ``y`` (equal to
``y`` on every column the class does not star); it then costs that class's stars per row. For
each (row type, sensitive key) entry of a class ``X`` and each class ``Y != X`` that covers its
row type with fewer stars than ``X``, moving the entry's rows to ``Y`` saves
``rows x (|S_X| - |S_Y|)`` stars, and more when ``X``'s suppressor narrows without them. Moves
are applied best saving per row first, each only if both ``X`` without the rows and ``Y`` with
them still satisfy the model (or ``X`` becomes empty); rounds repeat until no move applies.

Covering classes are found per star pattern: the classes with pattern ``S`` have distinct
vectors, so their projections outside ``S`` are distinct and each entry has at most one
covering class per pattern (a sorted-key lookup).

Complexity per round: ``O(p (E + g) m)`` for ``p`` distinct star patterns, ``E`` entries and
``g`` classes (keys and lookups), plus one model evaluation of two classes per tried move.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic._merge_state import IntArray, Judge
from starmin.algorithms.heuristic._split_refine import Entries
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import STAR


def _keys(codes: IntArray, kept: IntArray, card: IntArray) -> IntArray:
    """Projection keys of ``codes`` rows on the ``kept`` columns, equal iff the projections
    are: mixed-radix numbers, or a dense rank when those would overflow int64."""
    if float(np.log2(np.maximum(card[kept], 1).astype(float)).sum()) < 62:
        key = np.zeros(len(codes), dtype=np.int64)
        for c in kept.tolist():
            key = key * int(card[c]) + codes[:, c]
        return key
    _, inv = np.unique(codes[:, kept], axis=0, return_inverse=True)
    return np.asarray(inv, dtype=np.int64).reshape(-1)


def _candidates(rt: RowTypes, et: IntArray, ecls: IntArray, V: IntArray
                ) -> tuple[IntArray, IntArray, IntArray]:
    """``(entry, destination class, stars saved per row)`` of every improving move."""
    P = (V == STAR).sum(axis=1)
    card = np.asarray(rt.cardinalities, dtype=np.int64)
    pats, pat_of = np.unique(V == STAR, axis=0, return_inverse=True)
    pat_of = pat_of.reshape(-1)
    out_e, out_d, out_g = [], [], []
    codes = rt.codes[et].astype(np.int64)
    for p in range(len(pats)):
        dest = np.flatnonzero(pat_of == p)
        stars = int(pats[p].sum())
        mover = np.flatnonzero(P[ecls] > stars)                # entries that would gain
        if len(mover) == 0:
            continue
        kept = np.flatnonzero(~pats[p])
        both = np.concatenate([V[dest].astype(np.int64), codes[mover]])
        key = _keys(both, kept, card)
        kd, ke = key[: len(dest)], key[len(dest):]
        order = np.argsort(kd)
        pos = np.minimum(np.searchsorted(kd[order], ke), len(dest) - 1)
        hit = kd[order][pos] == ke
        e = mover[hit]
        out_e.append(e)
        out_d.append(dest[order][pos[hit]])
        out_g.append(P[ecls[e]] - stars)
    if not out_e:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z
    return (np.concatenate(out_e), np.concatenate(out_d).astype(np.int64),
            np.concatenate(out_g).astype(np.int64))


def _suppressors(rt: RowTypes, et: IntArray, ecls: IntArray, g: int) -> IntArray:
    """``(g, m)`` suppressor of each class from its entries (empty classes: all stars)."""
    order = np.argsort(ecls, kind="stable")
    codes = rt.codes[et[order]].astype(np.int64)
    starts = np.searchsorted(ecls[order], np.arange(g))
    empty = np.bincount(ecls, minlength=g) == 0
    starts = np.minimum(starts, len(order) - 1)
    lo = np.minimum.reduceat(codes, starts, axis=0)
    hi = np.maximum.reduceat(codes, starts, axis=0)
    V = np.where(lo == hi, lo, STAR)
    V[empty] = STAR
    return V


def _apply(rt: RowTypes, judge: Judge, ent: tuple[IntArray, IntArray, IntArray, IntArray],
           C: IntArray, P: IntArray, cand: tuple[IntArray, IntArray, IntArray]) -> int:
    """Apply the candidate moves, best first; returns how many were applied.

    Every candidate is judged once against the state before the round, in one call; a move
    whose classes are untouched since then keeps that verdict, the others are judged again.
    Candidates failing the first verdict wait for the next round."""
    _, ek, ec, ecls = ent
    e, d, gain = cand
    x0, y0 = ecls[e], d
    delta = np.zeros((len(e), rt.s), dtype=np.int64)
    delta[np.arange(len(e)), ek[e]] = ec[e]
    first = judge(np.concatenate([C[x0] - delta, C[y0] + delta]))
    first = first[len(e):] & (first[: len(e)] | ((C[x0] - delta).sum(axis=1) == 0))
    touched = np.zeros(len(C), dtype=bool)
    done = np.zeros(len(ecls), dtype=bool)
    moved = 0
    order = np.lexsort((-ec[e], -gain))
    order = order[(first & (x0 != y0) & (P[y0] < P[x0]))[order]]   # fixed for the round
    ns, ys, xs = e[order], d[order], x0[order]
    ks, cs = ek[ns], ec[ns]
    # Verdicts of touched moves are judged a block ahead against the current counts; a
    # block verdict stands while neither class of its move has changed since (``since``),
    # so every verdict is the one judging the move at its turn would give.
    block = np.zeros(0, dtype=bool)
    start = end = 0
    since: set[int] = set()
    width = 8
    for i, (n, y, x, k, c) in enumerate(zip(ns.tolist(), ys.tolist(), xs.tolist(),
                                            ks.tolist(), cs.tolist(), strict=True)):
        if done[n]:
            continue
        if touched[x] or touched[y]:
            if i >= end or x in since or y in since:
                if i < end:                                    # a conflict: smaller blocks
                    width = max(width // 2, 1)
                start, end = i, min(i + width, len(ns))
                block = _judge_moves(judge, C, xs[start:end], ys[start:end],
                                     ks[start:end], cs[start:end])
                since = set()
                width = min(width * 2, 64)
            if not block[i - start]:
                continue
        since.add(x)
        since.add(y)
        C[x, k] -= c
        C[y, k] += c
        ecls[n] = y
        done[n] = touched[x] = touched[y] = True
        moved += 1
    return moved


def _judge_moves(judge: Judge, C: IntArray, x: IntArray, y: IntArray, k: IntArray,
                 c: IntArray) -> NDArray[np.bool_]:
    """Whether moving ``c`` rows of key ``k`` from class ``x`` to ``y`` leaves ``y`` and
    ``x`` satisfying the model (or ``x`` empty), per move, on the counts ``C`` now (moves
    of entries that have moved already get a verdict that is not used)."""
    r = np.arange(len(x))
    cx, cy = C[x], C[y]
    cx[r, k] -= c
    cy[r, k] += c
    np.maximum(cx, 0, out=cx)   # negative only for entries moved already (verdicts unused)
    verdict = judge(np.concatenate([cx, cy]))
    return verdict[len(x):] & (verdict[: len(x)] | (cx.sum(axis=1) == 0))


def improve(rt: RowTypes, classes: list[Entries], judge: Judge, rounds: int = 5
            ) -> list[Entries]:
    """Apply improving moves (module docstring); returns the non-empty classes."""
    et = np.concatenate([c[0] for c in classes]).astype(np.int64)
    ek = np.concatenate([c[1] for c in classes]).astype(np.int64)
    ec = np.concatenate([c[2] for c in classes]).astype(np.int64)
    g = len(classes)
    ecls = np.repeat(np.arange(g), [len(c[0]) for c in classes])
    C = np.zeros((g, rt.s), dtype=np.int64)
    np.add.at(C, (ecls, ek), ec)
    for _ in range(rounds):
        V = _suppressors(rt, et, ecls, g)
        P = (V == STAR).sum(axis=1)
        e, d, gain = _candidates(rt, et, ecls, V)
        if _apply(rt, judge, (et, ek, ec, ecls), C, P, (e, d, gain)) == 0:
            break
    order = np.argsort(ecls, kind="stable")
    cuts = np.flatnonzero(np.diff(ecls[order])) + 1
    return [(et[p], ek[p], ec[p]) for p in np.split(order, cuts)]
