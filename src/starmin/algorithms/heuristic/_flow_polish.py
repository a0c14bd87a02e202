"""Flow polish for :mod:`.merge_repair`: a release's rows re-dealt among its classes by one
minimum-cost flow (frequency l-diversity; t-closeness under the equal distance).

Why. Move refinement (:mod:`._moves`) moves one (row type, value) entry at a time, and only
where both classes still satisfy the model after the move. A class that holds its most
frequent value's full share can take another row of that value only if some other row leaves
for it at the same time; such exchanges, and longer cycles of them over many classes, are
what a flow finds at once.

The network. Fix the classes' output vectors (their suppressors). A row of row type ``v``
with sensitive value ``u`` may go to any class ``b`` whose vector covers ``v`` (equals ``v``
outside ``b``'s stars) and then costs ``|S_b|`` stars. Give class ``b`` the *cap* ``h_b =
max_u x_b(u)``, the rows of its most frequent value now, and the *floor* ``l h_b``, which a
frequency l-diverse class holds (``l max_u x_b(u) <= |b|``). Then every flow with at most
``h_b`` rows of each value in ``b`` and at least ``l h_b`` rows in all makes ``b`` frequency
l-diverse again (``l x_b(u) <= l h_b <= |b|``, Xiao, Yi & Tao, Definition 2), and the
current release is such a flow. Nodes: one per (row type, value) *cell* (supply its rows),
one per (class, value) pair reachable (capacity ``h_b`` to its class), one per class (demand
its floor ``l h_b``) and a sink (the other rows). Arc costs are the classes' stars, so the
minimum-cost flow (OR-Tools' ``SimpleMinCostFlow``; integral, as every network flow with
integral data) releases at most the stars of the current release; a class emptied of the
row types that forced one of its stars then loses that star too (its suppressor is taken
anew). Classes with equal vectors are one class first (frequency l-diversity is closed under
union, Xiao, Yi & Tao, Lemma 1). Rounds repeat, with the new classes' caps and floors, while
the stars fall, at most ``rounds`` times.

*t-closeness under the equal distance* (alone or with k-anonymity; :func:`closeness_limits`,
stop 53). The same network with other *limits*: class ``b`` gets a floor ``F_b`` and a cap
``H_b(u)`` per value such that every class of at least ``F_b`` rows and at most ``H_b(u)``
rows of each value ``u`` is t-close. With ``Q`` the table's distribution, the equal
distance's EMD of a class of ``N`` rows is ``(1 / N) sum_u (x_u - Q_u N)^+`` (Liang & Yuan,
Fact 1). ``F_b`` is the fewest rows ``F`` with ``sum_u (x_b(u) - Q_u F)^+ <= t F`` (at most
``|b|``, since ``b`` is t-close now), ``H_b(u) = max(x_b(u), floor(Q_u F_b))`` plus a share
``floor(Q_u sigma_b)`` of the slack ``sigma_b = t F_b - sum_u (x_b(u) - Q_u F_b)^+``. Then
``sum_u (H_b(u) - Q_u F_b)^+ <= t F_b``, and a class with ``x <= H_b`` and ``N >= F_b`` rows
has ``sum_u (x_u - Q_u N)^+ <= sum_u (H_b(u) - Q_u F_b)^+ <= t F_b <= t N``: t-close. Unions
of t-close classes are t-close (the EMD is convex), so classes with equal vectors are one
class first here too. The floor also keeps the model's class size. On ARX adult (8 QIs,
occupation, ``auto``, stop 53) it took t = 0.2's 83,854 stars to 82,970 (-1.1 %) and t = 0.5's
31,665 to 31,555 (-0.3 %); with fixed class sizes instead (``F_b = |b|``) no round moved a
row.

Guarantee: **heuristic** (never more stars than its input; every class it returns satisfies
the model, which the caller's judge checks; the last classes that passed are returned when a
check fails).

Merge-repair (:func:`.merge_repair.polish`) alternates one flow round with carving
(:mod:`._carve`), which splits the classes the flow left thinner: on ARX adult (8 QIs,
occupation, frequency l = 4, 2026-11-29) three flow rounds alone took ``auto``'s release from
38,342 to 37,730 stars, four cycles of a round and carving to 36,747 (a round and move
refinement, or split refinement, instead of carving: 37,573 / 37,465 after five cycles). On
k = 5 (cap unlimited, floor ``k``) pattern-packing's 35,024 stars fell to 35,004 only, so
the step is frequency l-diversity's alone. Measurements: docs/algorithms/merge-repair.md
("the flow polish").

Work per round: ``O(p C)`` key lookups for ``p`` star patterns and ``C`` cells, and one
min-cost flow over at most ``p C`` arcs (adult, l = 4: about 570,000).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic._merge_state import IntArray, Judge
from starmin.algorithms.heuristic._moves import _keys, _suppressors
from starmin.algorithms.heuristic._split_refine import Entries
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import STAR

ROUNDS = 4
"""Merge-repair's cycles of one flow round and carving, at most (its ``flow_rounds``
option; :func:`.merge_repair.polish`)."""
GAIN = 0.001
"""A cycle saving less than this share of the stars is the last (adult, frequency l = 4: the
cycles saved 2.2, 0.9, 0.5, 0.5 and 0.5 % of the stars)."""
MAX_LOOKUPS = 40_000_000
"""A round is not run when star patterns x cells exceeds this (adult, l = 4: 152 x 19,502,
about 3 million): a work limit, never a clock."""


Limits = Callable[[IntArray], tuple[IntArray, IntArray]]
"""``limits(X)``, for the ``(g, s)`` value counts ``X`` of the classes: ``(H, F)``, a cap
``H[b, u]`` on each value's rows and a floor ``F[b]`` on the rows of each class, such that
every class within them satisfies the model and ``X`` is within them (module docstring)."""


def frequency_limits(l: int) -> Limits:
    """Frequency l-diversity's limits: the cap ``h_b = max_u x_b(u)`` on every value and the
    floor ``l h_b``."""
    def limits(X: IntArray) -> tuple[IntArray, IntArray]:
        cap = X.max(axis=1)
        return np.repeat(cap[:, None], X.shape[1], axis=1), l * cap

    return limits


SLACK = 1e-9
"""The margin (per row of a class) by which the floating-point test of t-closeness's limits
must hold; the judge checks every class exactly afterwards."""


def closeness_limits(o: IntArray, t: Fraction, k: int = 1) -> Limits:
    """t-closeness's limits under the equal distance (module docstring) for the table's value
    counts ``o``, with every floor at least ``k``. A class on the boundary (no floor passes
    the margin) keeps its value counts: cap ``x_b`` and floor ``|b|``."""
    Q = np.asarray(o, dtype=np.float64) / max(int(np.sum(o)), 1)
    tf = float(t)

    def excess(X: IntArray, F: IntArray) -> NDArray[np.float64]:
        return np.clip(X - Q[None, :] * F[:, None], 0, None).sum(axis=1)

    def limits(X: IntArray) -> tuple[IntArray, IntArray]:
        N = X.sum(axis=1)
        lo, hi = np.minimum(np.maximum(k, 1), N), N.copy()
        for _ in range(int(N.max(initial=1)).bit_length() + 1):  # smallest F passing
            mid = (lo + hi) // 2
            ok = excess(X, mid) <= tf * mid - SLACK * mid
            hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid + 1)
            lo = np.minimum(lo, hi)
        F = hi
        at_floor = excess(X, F)
        fits = at_floor <= tf * F - SLACK * F
        base = np.maximum(X, np.floor(Q[None, :] * F[:, None]).astype(np.int64))
        slack = np.clip(tf * F - at_floor - SLACK * F, 0, None)
        H = base + np.floor(slack[:, None] * Q[None, :]).astype(np.int64)
        return np.where(fits[:, None], H, X), np.where(fits, F, N)

    return limits


def _flat(classes: list[Entries]) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """``(type, key, count, class)`` of every entry."""
    et = np.concatenate([c[0] for c in classes]).astype(np.int64)
    ek = np.concatenate([c[1] for c in classes]).astype(np.int64)
    ec = np.concatenate([c[2] for c in classes]).astype(np.int64)
    ecls = np.repeat(np.arange(len(classes)), [len(c[0]) for c in classes]).astype(np.int64)
    return et, ek, ec, ecls


def _stars(rt: RowTypes, et: IntArray, ec: IntArray, ecls: IntArray, g: int) -> int:
    """Stars of the release whose entries are given (each class released as its suppressor)."""
    V = _suppressors(rt, et, ecls, g)
    rows = np.bincount(ecls, weights=ec, minlength=g).astype(np.int64)
    return int(((V == STAR).sum(axis=1) * rows).sum())


def _arcs(rt: RowTypes, ct: IntArray, V: IntArray) -> tuple[IntArray, IntArray] | None:
    """``(cell, class)`` of every class whose vector ``V`` covers the cell's row type ``ct``:
    per star pattern the classes' projections outside it are distinct (one vector per class),
    so each cell has at most one covering class per pattern. ``None`` past
    :data:`MAX_LOOKUPS`."""
    card = np.asarray(rt.cardinalities, dtype=np.int64)
    pats, pat_of = np.unique(V == STAR, axis=0, return_inverse=True)
    if len(pats) * len(ct) > MAX_LOOKUPS:
        return None
    pat_of = pat_of.reshape(-1)
    codes = rt.codes[ct].astype(np.int64)
    cells, dests = [], []
    for p in range(len(pats)):
        dest = np.flatnonzero(pat_of == p)
        kept = np.flatnonzero(~pats[p])
        key = _keys(np.concatenate([V[dest].astype(np.int64), codes]), kept, card)
        kd, kc = key[: len(dest)], key[len(dest):]
        order = np.argsort(kd, kind="stable")
        pos = np.minimum(np.searchsorted(kd[order], kc), len(dest) - 1)
        hit = np.flatnonzero(kd[order][pos] == kc)
        cells.append(hit)
        dests.append(dest[order][pos[hit]])
    return np.concatenate(cells).astype(np.int64), np.concatenate(dests).astype(np.int64)


def _round(rt: RowTypes, classes: list[Entries], limits: Limits
           ) -> tuple[IntArray, IntArray, IntArray, IntArray] | None:
    """One flow over ``classes`` (module docstring): the new entries, or ``None`` past
    :data:`MAX_LOOKUPS` or when the solver gives no optimum. A cell's arcs go to the classes
    of at most one star more than its rows pay now (adult, l = 4: 37,730 stars against
    37,729 with every arc, in 1.1 instead of 1.7 CPU s a round)."""
    from ortools.graph.python import min_cost_flow  # imported here: only this step needs it

    et, ek, ec, ecls = _flat(classes)
    V, same = np.unique(_suppressors(rt, et, ecls, len(classes)), axis=0, return_inverse=True)
    ecls = same.reshape(-1).astype(np.int64)[ecls]
    g, s = len(V), rt.s
    X = np.zeros((g, s), dtype=np.int64)
    np.add.at(X, (ecls, ek), ec)
    H, floor = limits(X)
    cell_id, cell_of = np.unique(et * s + ek, return_inverse=True)
    supply = np.bincount(cell_of.reshape(-1), weights=ec).astype(np.int64)
    ct, cu = cell_id // s, cell_id % s
    arcs = _arcs(rt, ct, V)
    if arcs is None:
        return None
    cell, dest = arcs
    stars = (V == STAR).sum(axis=1).astype(np.int64)
    now = np.zeros(len(cell_id), dtype=np.int64)  # the most stars a cell's rows pay now
    np.maximum.at(now, cell_of.reshape(-1), stars[ecls])
    keep = (stars[dest] <= now[cell] + 1) & (H[dest, cu[cell]] > 0)
    cell, dest = cell[keep], dest[keep]
    pair_id, pair_of = np.unique(dest * s + cu[cell], return_inverse=True)
    pair_of = pair_of.reshape(-1)
    nc, npair = len(cell_id), len(pair_id)
    sink = nc + npair + g
    tails = np.concatenate([cell, nc + np.arange(npair), nc + npair + np.arange(g)])
    heads = np.concatenate([nc + pair_of, nc + npair + pair_id // s, np.full(g, sink)])
    caps = np.concatenate([supply[cell], H[pair_id // s, pair_id % s],
                           np.full(g, int(ec.sum()))])
    costs = np.concatenate([stars[dest], np.zeros(npair + g, dtype=np.int64)])
    mcf = min_cost_flow.SimpleMinCostFlow()
    mcf.add_arcs_with_capacity_and_unit_cost(tails.astype(np.int32), heads.astype(np.int32),
                                            caps.astype(np.int64), costs.astype(np.int64))
    supplies = np.concatenate([supply, np.zeros(npair, dtype=np.int64), -floor,
                               [int(floor.sum()) - int(ec.sum())]])
    mcf.set_nodes_supplies(np.arange(sink + 1, dtype=np.int32), supplies.astype(np.int64))
    if mcf.solve() != mcf.OPTIMAL:
        return None
    flow = mcf.flows(np.arange(len(cell), dtype=np.int64))
    used = np.flatnonzero(flow > 0)
    return ct[cell[used]], cu[cell[used]], flow[used].astype(np.int64), dest[used]


def flow_polish(rt: RowTypes, classes: list[Entries], judge: Judge, limits: Limits,
                rounds: int = ROUNDS) -> list[Entries]:
    """``classes`` re-dealt by up to ``rounds`` flows within ``limits``
    (:func:`frequency_limits`, :func:`closeness_limits`) while the stars fall (module
    docstring); the non-empty classes."""
    if not classes or rounds < 1:
        return classes
    et, _, ec, ecls = _flat(classes)
    best = _stars(rt, et, ec, ecls, len(classes))
    for _ in range(rounds):
        got = _round(rt, classes, limits)
        if got is None:
            break
        nt, nk, nc, ncls = got
        cls_id, ncls = np.unique(ncls, return_inverse=True)
        ncls = ncls.reshape(-1)
        g = len(cls_id)
        X = np.zeros((g, rt.s), dtype=np.int64)
        np.add.at(X, (ncls, nk), nc)
        stars = _stars(rt, nt, nc, ncls, g)
        if stars >= best or not bool(judge(X).all()):
            break
        best = stars
        order = np.argsort(ncls, kind="stable")
        cuts = np.flatnonzero(np.diff(ncls[order])) + 1
        classes = [(nt[p], nk[p], nc[p]) for p in np.split(order, cuts)]
    return classes
