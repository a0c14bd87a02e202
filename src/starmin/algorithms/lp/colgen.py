"""Column generation on the LP core, and the certified lower bound it yields.

Start from the blocks no one can do without (every row type alone where that satisfies the
relaxation, and the all-star vector with every pair, which keeps the LP feasible: the whole
table is one class that satisfies the model). Each round solves the restricted LP (kept alive
in Glop, :mod:`.incremental`), prices output vectors against its duals (:mod:`.pricing`) and
adds the most violated ones: each as the class that attains its gain, one column (a *ray*),
or, where only an upper bound on the gain is known (t-closeness under a non-equal distance),
as a block with the best pair of each of its values. Pricing is *partial* while it finds
enough: patterns by increasing stars, stopping after the first level at which ``keep``
vectors price out; a pass over every pattern gives the certified bound. It stops when a full
pass finds no vector that prices out (the LP optimum over *all* output vectors is reached) or
after ``max_rounds``.

**Certificate.** Whatever the round, the duals give a proven bound (weak LP duality). With
``G(v*)`` the gains, ``delta = max(0, max G over the star-free vectors)`` and
``theta = min(1, min over the other vectors of stars(v*) / (G(v*) - delta))``, the duals
``theta (pi - delta)`` are feasible for the LP over every output vector (gains are positively
homogeneous in ``pi`` and fall by exactly ``delta`` when every ``pi`` does, since a class is
normalized to one row), so ``theta (sum_p c(p) pi(p) - delta n)`` is a lower bound on the LP
optimum and thus on the fewest stars of any release satisfying the relaxation (and the model).
When pricing is complete ``theta = 1``, ``delta = 0`` up to round-off and the bound is the LP
optimum. Patterns of ``j`` stars need pricing only while ``j < G(all-star vector)``: gains
grow as vectors get coarser, so no vector with more stars can price out; when the
``max_patterns`` budget stops the enumeration at level ``J``, ``theta`` is further capped by
``J / (G(all stars) - delta)``, which keeps the bound valid.

**Dual repair.** A complete pass also certifies ``sum_p c(p) min(pi(p), cap(p))``: each
vector that prices out caps the ``pi`` of its pairs at a level ``tau`` at which it no longer
does (``tau = stars`` always works, since a class is one row's worth of its pairs; a
bisection on the gain finds a larger one), and lowering duals only lowers gains, so the
capped duals are feasible for every vector. Scaling pays for the worst ratio over all
vectors; the repair pays only on the pairs of the few vectors that still price out, which in
the last rounds brings the certificate within a fraction of a percent of the restricted LP
(ARX adult, frequency l = 2, round 13 of 21: 12,828 against the scaling's 6,553; LP
optimum 13,030). The bound is the larger of the two. A run stopped by ``max_rounds`` or the
iteration budget prices every pattern once more, with the repair, to certify its last duals
(the rounds before it use the scaling alone: the repair's bisections cost about a third of
a pass, and a run that reaches the LP optimum certifies the optimum itself).

References: Liang & Yuan, Sec. 4, Thm 9 (the MILP on ``x(v*, v, s)``); Bredereck et al.,
Sec. 4.3 (the ILP on row types). Column generation and the Lagrangian (Farley-type) bound of
a restricted master are textbook LP duality.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.heuristic.pattern_keys import masks_of_level
from starmin.algorithms.lp.incremental import RestrictedLP, WorkLimit
from starmin.algorithms.lp.master import Blocks, LPSolution
from starmin.algorithms.lp.pairs import IntArray, Pairs
from starmin.algorithms.lp.pricing import MaskPrice, Pricer
from starmin.algorithms.lp.relaxation import FloatArray, Relaxation
from starmin.algorithms.lp.work import iteration_budget as iteration_budget
from starmin.algorithms.lp.work import work_units as work_units  # its estimate
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import STAR

_SAFETY = 1e-6
"""Relative slack taken off every certified bound against floating-point round-off."""

_REPAIR_SEARCH = 512
"""Vectors per pattern whose repair level a bisection raises above their stars."""

_REPAIR_STEPS = 24
"""Bisection steps of a repair level."""


@dataclass
class Pool:
    """The blocks of the restricted LP by vector ``(mask, key)``: the pairs of its latest
    block. A vector priced again with pairs its block lacks gets a new block holding the
    union (:mod:`.incremental`); :meth:`take` hands out the blocks made since its last call."""

    rt: RowTypes
    entries: dict[tuple[int, int], frozenset[int]] = field(default_factory=dict)
    rep: dict[tuple[int, int], int] = field(default_factory=dict)
    pending: list[tuple[int, int]] = field(default_factory=list)

    def add(self, mask: int, key: int, pairs: IntArray, type_of: IntArray) -> int:
        """Offer a block's pairs; returns how many pairs were new to the vector (then a
        block with the union is pending)."""
        old = self.entries.get((mask, key), frozenset())
        union = old | {int(p) for p in pairs}
        if len(union) == len(old):
            return 0
        if (mask, key) not in self.rep:
            self.rep[(mask, key)] = int(type_of[pairs[0]])
        self.entries[(mask, key)] = union
        self.pending.append((mask, key))
        return len(union) - len(old)

    def take(self) -> Blocks:
        """The pending blocks (each vector's latest pairs), in the order they were offered."""
        m = self.rt.m
        vecs, stars, bo, po = [], [], [], []
        todo = list(dict.fromkeys(self.pending))
        self.pending.clear()
        for b, (mask, key) in enumerate(todo):
            v = self.rt.codes[self.rep[(mask, key)]].astype(np.int32).copy()
            starred = np.array([(mask >> c) & 1 for c in range(m)], dtype=bool)
            v[starred] = STAR
            vecs.append(v)
            stars.append(int(starred.sum()))
            arr = np.array(sorted(self.entries[(mask, key)]), dtype=np.int64)
            po.append(arr)
            bo.append(np.full(len(arr), b, dtype=np.int64))
        empty = np.zeros(0, dtype=np.int64)
        return Blocks(np.array(vecs, dtype=np.int32).reshape(-1, m),
                      np.array(stars, dtype=np.int64),
                      np.concatenate(bo) if bo else empty, np.concatenate(po) if po else empty)


@dataclass
class Rays:
    """Classes of fixed composition for the restricted LP (:meth:`.RestrictedLP.add_rays`):
    each new ``(vector, pairs, shares)`` once; :meth:`take` hands out those made since its
    last call."""

    rt: RowTypes
    seen: set[tuple[int, int, bytes, bytes]] = field(default_factory=set)
    pending: list[tuple[int, int, IntArray, FloatArray]] = field(default_factory=list)

    def add(self, mask: int, key: int, pairs: IntArray, share: FloatArray,
            type_of: IntArray) -> int:
        """Offer a class; returns 1 if it is new."""
        ident = (mask, key, pairs.tobytes(), np.round(share, 12).tobytes())
        if ident in self.seen:
            return 0
        self.seen.add(ident)
        self.pending.append((mask, int(type_of[pairs[0]]), pairs, share))
        return 1

    def take(self) -> tuple[Blocks, FloatArray]:
        m = self.rt.m
        todo, self.pending = self.pending, []
        vecs = np.empty((len(todo), m), dtype=np.int32)
        stars = np.empty(len(todo), dtype=np.int64)
        for b, (mask, rep, _pairs, _share) in enumerate(todo):
            starred = np.array([(mask >> c) & 1 for c in range(m)], dtype=bool)
            vecs[b] = self.rt.codes[rep]
            vecs[b, starred] = STAR
            stars[b] = int(starred.sum())
        lens = np.array([len(t[2]) for t in todo], dtype=np.int64)
        empty = np.zeros(0, dtype=np.int64)
        bo = np.repeat(np.arange(len(todo), dtype=np.int64), lens)
        po = np.concatenate([t[2] for t in todo]) if todo else empty
        share = np.concatenate([t[3] for t in todo]) if todo else np.zeros(0)
        return Blocks(vecs, stars, bo, po.astype(np.int64)), share


@dataclass(frozen=True, eq=False)
class Priced:
    """One pricing pass: the certified bound and the violated vectors found."""

    bound: float
    complete: bool
    violated: list[tuple[float, MaskPrice, int]]  # (G - stars, prices of the mask, group)
    patterns: int


@dataclass(frozen=True, eq=False)
class ColumnGeneration:
    """The result: the final restricted LP, its blocks, the best certified bound (stars,
    rounded up), the LP value, rounds, and whether pricing was complete (LP optimum)."""

    relaxation: Relaxation
    pairs: Pairs
    blocks: Blocks
    lp: LPSolution
    bound: int
    lp_value: float
    rounds: int
    complete: bool


def price_all(pricer: Pricer, pi: FloatArray, n: int, *, max_patterns: int,
              keep: int, enough: int | None = None, repair: bool = False) -> Priced:
    """Price every output vector (see the module docstring); keep the ``keep`` most violated.
    With ``enough``, stop after the first level of patterns (by stars) at which ``enough``
    vectors price out: *partial pricing*, whose bound is 0 (not every vector was priced).
    With ``repair`` (and no ``enough``), the bound is the better of the scaled and the
    repaired duals' (the repair's bisections cost about a third of a pass)."""
    m = pricer.rt.m
    full = (1 << m) - 1
    top = pricer.price(full, pi)
    g_all = float(top.gain.max()) if len(top.gain) else -math.inf
    zero = pricer.price(0, pi)
    delta = max(0.0, float(zero.gain.max()) if len(zero.gain) else 0.0)
    theta = 1.0
    violated: list[tuple[float, MaskPrice, int]] = []
    used = 2
    complete = True
    # the dual repair's caps, on a pass over every pattern only
    cap = np.full(pricer.pairs.P, np.inf) if repair and enough is None else None
    for mp in (zero,):
        _collect(mp, 0, violated, keep)
        _repair(mp, 0, cap)
    for j in range(1, m + 1):
        if j >= g_all - 1e-12:  # no vector with j or more stars can gain more than j
            break
        masks = masks_of_level(m, j) if j < m else []
        if used + len(masks) > max_patterns:
            theta = min(theta, j / max(g_all - delta, 1e-12))
            complete = False
            break
        for mask in masks:
            mp = pricer.price(mask, pi)
            used += 1
            over = mp.gain - delta
            pos = over > 1e-12
            if pos.any():
                theta = min(theta, float((j / over[pos]).min()))
            _collect(mp, j, violated, keep)
            _repair(mp, j, cap)
        if enough is not None and len(violated) >= enough and j + 1 < g_all - 1e-12:
            violated.sort(key=lambda e: (-e[0], e[1].mask, e[2]))
            return Priced(0.0, False, violated[:keep], used)
    if g_all - delta > 1e-12:
        theta = min(theta, m / (g_all - delta))
    _collect(top, m, violated, keep)
    _repair(top, m, cap)
    value = float(pricer.pairs.count @ pi) - delta * n
    bound = theta * value * (1 - _SAFETY) - _SAFETY
    if complete and cap is not None:  # every vector that could price out was capped
        repaired = float(pricer.pairs.count @ np.minimum(pi, cap))
        bound = max(bound, repaired * (1 - _SAFETY) - _SAFETY)
    violated.sort(key=lambda e: (-e[0], e[1].mask, e[2]))
    return Priced(max(bound, 0.0), complete and not violated, violated[:keep], used)


def _repair(mp: MaskPrice, stars: int, cap: FloatArray | None) -> None:
    """The dual repair of one pattern: lower ``cap`` on the pairs of each of its vectors
    that prices out to a level ``tau`` at which it no longer does. Every class of a vector
    is one row's worth of its pairs (``sum x = 1``), so with every ``pi`` at most ``tau`` its
    gain is at most ``tau`` (``tau = stars`` always works); gains only fall as ``pi`` does,
    so once every vector that prices out is capped, ``min(pi, cap)`` is feasible for every
    vector and ``count . min(pi, cap)`` is a bound. Where gains are a function of ``beta``
    (the best ``pi`` per value), a bisection finds a larger ``tau`` with
    ``gain(min(beta, tau)) <= stars`` for up to :data:`_REPAIR_SEARCH` vectors of the
    pattern (an upper bound on the gain serves as well: only the true gain must fall)."""
    if cap is None:
        return
    bad = np.nonzero(mp.gain - stars > 0)[0]
    if not len(bad):
        return
    tau = np.full(len(mp.gain), np.inf)
    tau[bad] = float(stars)
    if mp.beta is not None and mp.gain_of is not None and len(bad) <= _REPAIR_SEARCH:
        beta = mp.beta[bad]
        lo = np.full(len(bad), float(stars))
        hi = np.max(np.where(np.isfinite(beta), beta, -np.inf), axis=1)
        for _ in range(_REPAIR_STEPS):
            mid = (lo + hi) / 2
            ok = mp.gain_of(np.minimum(beta, mid[:, None])) <= stars
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid)
        tau[bad] = lo
    np.minimum(cap, tau[mp.group], out=cap)


def _collect(mp: MaskPrice, stars: int, out: list[tuple[float, MaskPrice, int]],
             keep: int) -> None:
    over = mp.gain - stars
    idx = np.nonzero(over > 1e-7 * (1 + np.abs(mp.gain)))[0]
    if len(idx) > keep:
        idx = idx[np.argsort(-over[idx], kind="stable")[:keep]]
    out.extend((float(over[g]), mp, int(g)) for g in idx)


def column_generation(rt: RowTypes, rel: Relaxation, *, max_rounds: int = 60,
                      keep: int | None = None, max_patterns: int = 5000,
                      partial: bool = True, max_iterations: int | None = None,
                      within_rounds: bool = False, lp_solver: str = "glop",
                      rounds_until: float | None = None, deadline: float | None = None,
                      progress: Progress = silent) -> ColumnGeneration:
    """Run column generation for one relaxation (see the module docstring). ``max_iterations``:
    a work limit on the simplex iterations of all rounds together (:func:`iteration_budget`);
    the run then stops after the round that reaches it, with the best bound certified so
    far. ``within_rounds``: the limit holds within a round's solve too (Glop's attempts and
    SciPy's fallback together), and a solve that reaches it raises
    :class:`.incremental.WorkLimit` carrying the bound certified before it (the portfolio's
    and the report's runs, which never round an unfinished LP: on a uniform random table of
    6,000 rows and 5 QIs of 8 values, k = 10, Glop failed numerically and SciPy's fallback
    took 7-13 CPU s a round, 34 s in all, where the budget was 10,000 iterations).
    ``lp_solver``: the restricted LP's solver (:data:`.incremental.SOLVERS`).
    ``rounds_until`` and ``deadline`` (``time.monotonic()`` instants, only for a wall-clock
    limit the user asked for): no round starts after ``rounds_until`` (the run then stops
    as at its iteration budget), and no solve passes ``deadline`` (:class:`WorkLimit`)."""
    pairs = Pairs.of(rt)
    pricer = Pricer(rt, pairs, rel)
    keep = keep or max(200, rt.t_in // 4)
    pool = Pool(rt)
    zero = pricer.price(0, np.zeros(pairs.P))
    for g0 in np.nonzero(np.isfinite(zero.gain))[0]:
        pool.add(0, int(zero.keys[g0]), np.nonzero(zero.group == g0)[0], pairs.type_of)
    pool.add((1 << rt.m) - 1, 0, np.arange(pairs.P), pairs.type_of)
    master = RestrictedLP(pairs, rel, solver=lp_solver)
    master.deadline = deadline
    best, rounds, complete, iterations = 0.0, 0, False, 0
    n = rt.n
    master.add(pool.take())
    rays = Rays(rt)
    while True:
        if max_iterations is not None and within_rounds:  # within a round's solve too
            master.max_iterations = max(1, max_iterations - iterations)
        try:
            lp = master.solve(primal=False)
        except WorkLimit as exc:  # a solve too costly for its size: stop, keep the bound
            if rounds > 0:
                best = max(best, price_all(pricer, lp.pi, n, max_patterns=max_patterns,
                                           keep=keep, repair=True).bound)
            raise WorkLimit(f"lp {rel.name}: {exc}; bound {best:.1f} certified before it",
                            math.ceil(best - 1e-9) if rounds > 0 else None) from exc
        rounds += 1
        iterations += master.iterations
        priced = price_all(pricer, lp.pi, n, max_patterns=max_patterns, keep=keep,
                           enough=keep if partial else None)
        best = max(best, priced.bound)
        progress(f"lp {rel.name}: round {rounds}, {master.B} blocks, LP {lp.value:.1f}, "
                 f"bound {best:.1f}, {len(priced.violated)} vectors price out "
                 f"({priced.patterns} patterns priced), {master.iterations} simplex iterations")
        if priced.complete:
            complete = True
            best = max(best, lp.value * (1 - _SAFETY) - _SAFETY)
            break
        if rounds >= max_rounds or not priced.violated:
            break
        if max_iterations is not None and iterations >= max_iterations:
            progress(f"lp {rel.name}: stopping at the iteration budget ({max_iterations}); "
                     f"bound {best:.1f} certified")
            break
        if rounds_until is not None and time.monotonic() >= rounds_until:
            progress(f"lp {rel.name}: stopping at the time limit's share for column "
                     f"generation; bound {best:.1f} certified")
            break
        added = 0
        wanted: dict[int, tuple[MaskPrice, list[int]]] = {}
        for _over, mp, g in priced.violated:
            wanted.setdefault(id(mp), (mp, []))[1].append(g)
        made = {(key, g): ray for key, (mp, gs) in wanted.items()
                for g, ray in zip(gs, mp.rays(np.array(gs, dtype=np.int64)), strict=True)}
        for _over, mp, g in priced.violated:
            chosen, share = made[(id(mp), g)]
            if share is None:
                added += int(pool.add(mp.mask, int(mp.keys[g]), chosen, pairs.type_of))
            else:
                added += int(rays.add(mp.mask, int(mp.keys[g]), chosen, share, pairs.type_of))
        if added == 0:
            break
        master.add(pool.take())
        master.add_rays(*rays.take())
    if not complete:  # stopped before the LP optimum: certify the last duals, repaired
        best = max(best, price_all(pricer, lp.pi, n, max_patterns=max_patterns, keep=keep,
                                   repair=True).bound)
        progress(f"lp {rel.name}: stopped before the LP optimum (LP {lp.value:.1f}); its last "
                 f"duals repaired certify {best:.1f}")
    if max_iterations is not None and within_rounds:  # the same LP again: Glop from its
        # basis, else SciPy from scratch (as many iterations as its last solve took)
        master.max_iterations = max(1, max_iterations - iterations) + lp.iterations
    try:
        lp = master.solve()  # nothing changed since the last solve: its primal solution
    except WorkLimit as exc:
        raise WorkLimit(str(exc), math.ceil(best - 1e-9)) from exc
    blocks, x = master.blocks(lp)
    lp = LPSolution(lp.value, x, lp.pi, lp.iterations)
    return ColumnGeneration(rel, pairs, blocks, lp, math.ceil(best - 1e-9), lp.value,
                            rounds, complete)
