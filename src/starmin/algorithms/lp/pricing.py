"""Pricing output vectors against the LP duals (column generation for the LP core).

For duals ``pi(v, s)`` of the coverage constraints and a class shape of the relaxation
(:mod:`.relaxation`), the *gain* ``G(v*)`` of an output vector is the most a class of one row
released as ``v*`` can collect: ``max sum pi x`` over the relaxation's cone at ``v*``
normalized to ``sum x = 1``. The LP dual is feasible for ``v*`` when ``G(v*) <= stars(v*)``,
and ``v*`` prices out (a new column) when ``G(v*) > stars(v*)``. Gains are exact maxima:

* ``k`` and ``cap``: the pairs' capacities ``c(v, s) / k`` and the values' ``cap`` form a
  laminar family, so taking pairs by decreasing ``pi`` is optimal (greedy on a laminar
  matroid-like polytope): first within each value up to ``cap``, then across values up to 1.
* ``t`` (equal distance): from the table's distribution, the mass of values the vector's rows
  lack must move (``m_out <= t``); the rest of the budget moves from the lowest-gain values to
  the highest (total variation is the mass moved, Liang & Yuan Fact 1).
* ``t`` (other tree metrics, and matrix distances: any metric ``d``): by LP duality,
  ``G = min over mu >= 0 of mu t + sum_u p_u max_w (beta_w - mu d(u, w))`` (a transport
  from the table's distribution with its cost priced at ``mu``); every ``mu`` gives an
  upper bound, and a golden-section search over the convex function gets close to the
  minimum (an optimal ``mu`` is at most the gain spread over ``t`` minus the cheapest
  class's EMD). A vector whose cheapest class (each value's mass moved to the nearest value
  it has) is beyond ``t`` has no class: gain ``-inf``. An
  upper bound keeps every certificate valid.

Vectors are enumerated per suppression pattern (:mod:`..heuristic.pattern_keys`): each
pattern groups the row types by their projection outside it, one vector per group.
Complexity per pattern: ``O(P log P)`` for ``P`` pairs (``O(g r^2)`` per golden-section step
for ``g`` groups and ``r`` values under a non-equal distance).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic.pattern_keys import PatternKeys
from starmin.algorithms.lp.pairs import IntArray, Pairs
from starmin.algorithms.lp.relaxation import FloatArray, Relaxation
from starmin.algorithms.ragged import ragged_arange
from starmin.data.rowtypes import RowTypes

_GOLDEN = 30
"""Golden-section steps of the Lagrangian gain (the interval shrinks by 0.618 each)."""


@dataclass(frozen=True, eq=False)
class MaskPrice:
    """The gains of every vector of one pattern.

    ``group``: ``(P,)`` the vector (group) of each pair; ``keys``: ``(g,)`` the projection
    key of each group; ``gain``: ``(g,)`` (``-inf``: no class of that vector satisfies the
    relaxation). :meth:`ray` gives a group's maximizing class."""

    mask: int
    group: IntArray
    keys: IntArray
    gain: FloatArray
    pick: Callable[[int], tuple[IntArray, FloatArray | None]]
    beta: FloatArray | None = None
    """``(g, r)``: each vector's best ``pi`` per value, when gains are a function of it."""
    gain_of: Callable[[FloatArray], FloatArray] | None = None
    """Gains (or upper bounds on them) of rows of ``beta``-like arrays."""
    picks: Callable[[IntArray], list[tuple[IntArray, FloatArray | None]]] | None = None
    """:meth:`ray` of many groups at once, when batched."""

    def ray(self, g: int) -> tuple[IntArray, FloatArray | None]:
        """Group ``g``'s maximizing class of one row: its pairs (ascending) and each pair's
        share (summing to 1), or ``None`` for the shares when only an upper bound on the
        gain is known (t-closeness under a non-equal distance: then the pairs are the best
        pair of each value of the group, and the class is left to the LP's block)."""
        return self.pick(g)

    def rays(self, gs: IntArray) -> list[tuple[IntArray, FloatArray | None]]:
        """:meth:`ray` of each group of ``gs``, in order (the same classes)."""
        if self.picks is not None:
            return self.picks(gs)
        return [self.pick(int(g)) for g in gs]


@dataclass(frozen=True, eq=False)
class _Groups:
    """One pattern's vectors: ``inv`` ``(t_in,)`` the group of each row type, ``keys``
    ``(g,)``, ``order`` the row types sorted by group and ``starts`` ``(g,)`` where each
    group begins in ``order``."""

    inv: IntArray
    keys: IntArray
    order: IntArray
    starts: IntArray


_CACHE_ENTRIES = 20_000_000
"""Row-type entries of pattern groupings :class:`Pricer` keeps between rounds (memory, not
results: a grouping not kept is computed again)."""


class Pricer:
    """Gains of output vectors for one relaxation (see the module docstring)."""

    def __init__(self, rt: RowTypes, pairs: Pairs, rel: Relaxation) -> None:
        self.rt, self.pairs, self.rel = rt, pairs, rel
        self.patterns = PatternKeys(rt.codes)
        self.u = (rel.value_of_key[pairs.key_of] if rel.column is not None
                  else np.zeros(pairs.P, dtype=np.int64))
        k = rel.k
        self.acap = (np.minimum(pairs.count / k, 1.0) if k > 1
                     else np.ones(pairs.P, dtype=np.float64))
        self.vcap = min(rel.cap, 1.0) if rel.cap is not None else 1.0
        # one pair per value decides a class when no pair's capacity binds before its
        # value's (no k): gains then come from the best pair of each (row type, value)
        self.by_value = rel.column is not None and (rel.t is not None or k <= 1)
        self._groups: dict[int, _Groups] = {}
        self._kept = 0
        self._pi: FloatArray | None = None
        self._best: tuple[FloatArray, IntArray] | None = None
        self._beta_of: dict[int, FloatArray] = {}  # per pattern, under the duals of _beta_pi
        self._beta_pi: FloatArray | None = None
        self._beta_kept = 0
        self._merges: dict[tuple[int, int], tuple[IntArray, IntArray]] = {}

    def price(self, mask: int, pi: FloatArray) -> MaskPrice:
        grp = self._grouping(mask)
        group = grp.inv[self.pairs.type_of]
        g = len(grp.keys)
        if self.by_value:
            best, arg = self._best_pairs(pi)
            beta = self._beta(mask, grp, best)
            rel = self.rel
            gain_of: Callable[[FloatArray], FloatArray]
            if rel.t is None:
                vcap = self.vcap

                def gain_of(b: FloatArray) -> FloatArray:
                    return _capped_gain(b, vcap)
                gain = gain_of(beta)

                def shares(gs: IntArray) -> FloatArray:
                    return _capped_classes(beta[gs], vcap)
            else:
                gain_of = self._closeness
                gain = gain_of(beta)
                equal = rel.cuts is not None and rel.cuts.one_sided

                def share(gi: int) -> FloatArray | None:
                    q = np.where(np.isfinite(beta[gi]), 1.0, 0.0)
                    return _equal_class(beta[gi], rel.p, rel.t) if equal else q  # type: ignore[arg-type]

                def shares(gs: IntArray) -> FloatArray:
                    return np.array([share(int(gi)) for gi in gs]).reshape(len(gs), rel.r)
            exact = rel.t is None or equal

            def picks(gs: IntArray) -> list[tuple[IntArray, FloatArray | None]]:
                return _best_of(grp, gs, shares(gs), beta[gs], best, arg, exact)
            return MaskPrice(mask, group, grp.keys, gain,
                             lambda gi: picks(np.array([gi], dtype=np.int64))[0],
                             beta, gain_of, picks)
        gain, share_of = self._greedy(group, g, pi)

        def support(gi: int) -> tuple[IntArray, FloatArray | None]:
            ps = np.nonzero((group == gi) & (share_of > 0))[0].astype(np.int64)
            return ps, share_of[ps]
        return MaskPrice(mask, group, grp.keys, gain, support)

    def _beta(self, mask: int, grp: _Groups, best: FloatArray) -> FloatArray:
        """``(g, r)``: each vector's best ``pi`` per value, the maximum of ``best`` over its
        row types. A pattern one column coarser than a pattern already reduced under the same
        duals (the levels are priced in order) reduces that pattern's vectors instead of the
        row types: its groups are unions of them, and the maximum is the same."""
        if self._beta_pi is not best:
            self._beta_of.clear()
            self._beta_kept = 0
            self._beta_pi = best
        src, parent = best, None
        for c in range(self.rt.m):
            up = mask & ~(1 << c)
            if up != mask and up in self._beta_of and (
                    parent is None or len(self._beta_of[up]) < len(src)):
                src, parent = self._beta_of[up], up
        g = len(grp.keys)
        if not g:
            beta = np.zeros((0, best.shape[1]))
        elif parent is None:
            beta = np.maximum.reduceat(best[grp.order], grp.starts, axis=0)
        else:
            order, starts = self._merge(parent, mask, grp)
            beta = np.maximum.reduceat(src[order], starts, axis=0)
        if self._beta_kept + beta.size <= _CACHE_ENTRIES:
            self._beta_of[mask] = beta
            self._beta_kept += beta.size
        return beta

    def _merge(self, parent: int, mask: int, grp: _Groups) -> tuple[IntArray, IntArray]:
        """The groups of ``parent`` sorted by the group of ``mask`` that holds them, and
        where each of ``mask``'s groups begins in that order."""
        hit = self._merges.get((parent, mask))
        if hit is not None:
            return hit
        up = self._grouping(parent)
        child = grp.inv[up.order[up.starts]]  # each parent group lies in one child group
        order = np.argsort(child, kind="stable")
        starts = np.searchsorted(child[order], np.arange(len(grp.keys)))
        out = (order.astype(np.int64), starts.astype(np.int64))
        if self._kept + len(order) <= _CACHE_ENTRIES:
            self._merges[(parent, mask)] = out
            self._kept += len(order)
        return out

    def _grouping(self, mask: int) -> _Groups:
        hit = self._groups.get(mask)
        if hit is not None:
            return hit
        keys = self.patterns.keys(mask)
        uniq, inv = np.unique(keys, return_inverse=True)
        inv = np.asarray(inv, dtype=np.int64).reshape(-1)
        order = np.argsort(inv, kind="stable")
        starts = np.searchsorted(inv[order], np.arange(len(uniq)))
        grp = _Groups(inv, uniq.astype(np.int64), order, starts)
        if self._kept + len(inv) <= _CACHE_ENTRIES:
            self._groups[mask] = grp
            self._kept += len(inv)
        return grp

    def _best_pairs(self, pi: FloatArray) -> tuple[FloatArray, IntArray]:
        """``(t_in, r)``: the best ``pi`` of each (row type, value) (``-inf``: none) and
        its pair (the first of the best, by pair index)."""
        if self._best is not None and self._pi is not None and np.array_equal(self._pi, pi):
            return self._best
        r = self.rel.r
        o = np.lexsort((-pi, self.u, self.pairs.type_of))
        head = _starts(self.pairs.type_of[o], self.u[o])
        firsts = o[head]
        best = np.full((self.rt.t_in, r), -np.inf)
        arg = np.full((self.rt.t_in, r), -1, dtype=np.int64)
        best[self.pairs.type_of[firsts], self.u[firsts]] = pi[firsts]
        arg[self.pairs.type_of[firsts], self.u[firsts]] = firsts
        self._pi, self._best = pi.copy(), (best, arg)
        return best, arg

    # -- k and cap: greedy over a laminar family -----------------------------------------
    def _greedy(self, group: IntArray, g: int, pi: FloatArray
                ) -> tuple[FloatArray, FloatArray]:
        """Gains, and each pair's share of its group's maximizing class."""
        o1 = np.lexsort((-pi, self.u, group))
        a = self.acap[o1]
        seg = _starts(group[o1], self.u[o1])
        within = _segment_cumsum(a, seg)
        a1 = np.empty_like(a)
        a1[o1] = np.clip(self.vcap - (within - a), 0.0, a)
        o2 = np.lexsort((-pi, group))
        a2 = a1[o2]
        take = np.clip(1.0 - (_segment_cumsum(a2, _starts(group[o2])) - a2), 0.0, a2)
        gain = np.bincount(group[o2], weights=pi[o2] * take, minlength=g).astype(np.float64)
        total = np.bincount(group, weights=a1, minlength=g)
        gain[total < 1.0 - 1e-9] = -np.inf
        share = np.zeros(len(pi))
        share[o2] = take
        return gain, share

    # -- t-closeness ------------------------------------------------------------------------
    def _closeness_of(self, group: IntArray, g: int, pi: FloatArray
                      ) -> tuple[FloatArray, NDArray[np.bool_]]:
        """Gains of arbitrary groups of pairs, and the best pair of each value of each."""
        beta = np.full((g, self.rel.r), -np.inf)
        np.maximum.at(beta, (group, self.u), pi)
        o1 = np.lexsort((-pi, self.u, group))
        support = np.zeros(len(pi), dtype=bool)
        support[o1[_starts(group[o1], self.u[o1])]] = True
        return self._closeness(beta), support

    def _closeness(self, beta: FloatArray) -> FloatArray:
        rel = self.rel
        assert rel.t is not None and rel.d is not None
        if rel.cuts is not None and rel.cuts.one_sided:
            return _equal_gain(beta, rel.p, rel.t)
        return _lagrangian_gain(beta, rel.p, rel.d, rel.t)  # tree metrics and matrices


def _capped_gain(beta: FloatArray, vcap: float) -> FloatArray:
    """Gains under ``cap`` alone (every pair may fill its value's share): the best
    ``ceil(1 / vcap)`` values, each ``vcap`` of the class but the last, which takes the
    rest (``-inf``: fewer values)."""
    g, r = beta.shape
    need = math.ceil(1.0 / vcap - 1e-9)
    if need > r:
        return np.full(g, -np.inf)
    top = -np.partition(-beta, need - 1, axis=1)[:, :need]  # the best `need`, last the least
    last = top[:, need - 1]
    rest = 1.0 - vcap * (need - 1)
    with np.errstate(invalid="ignore"):
        gain = vcap * top[:, : need - 1].sum(axis=1) + rest * last
    gain[~np.isfinite(last)] = -np.inf
    return gain


def _capped_classes(beta: FloatArray, vcap: float) -> FloatArray:
    """The shares over values of :func:`_capped_gain`'s maximum, for every row of ``beta``:
    ``vcap`` to each of the best values (ties: the first), the last of them the rest."""
    g, r = beta.shape
    order = np.argsort(-beta, axis=1, kind="stable")
    amount = np.clip(1.0 - vcap * np.arange(r), 0.0, vcap)
    share = np.zeros((g, r))
    np.put_along_axis(share, order, np.broadcast_to(amount, (g, r)), axis=1)
    return share


def _best_of(grp: _Groups, gs: IntArray, shares: FloatArray, top: FloatArray,
             best: FloatArray, arg: IntArray, exact: bool
             ) -> list[tuple[IntArray, FloatArray | None]]:
    """The maximizing class of each group of ``gs``: the best pair of each value with a
    positive share (row of ``shares``), ascending, with the shares (``None`` unless
    ``exact``). A value's best pair is that of the first row type of the group (in
    ``grp.order``) whose best ``pi`` for it is the group's (``top``, the rows of ``beta``)."""
    gs = np.asarray(gs, dtype=np.int64)
    if not len(gs):
        return []
    ends = np.append(grp.starts[1:], len(grp.order))
    width = ends[gs] - grp.starts[gs]
    first_of = np.cumsum(width) - width
    seg = np.repeat(np.arange(len(gs)), width)
    rows = grp.order[grp.starts[gs][seg] + ragged_arange(width)]
    vals = best[rows]
    pos = np.where(vals == top[seg], np.arange(len(rows))[:, None], len(rows))
    first = np.minimum.reduceat(pos, first_of, axis=0)
    out: list[tuple[IntArray, FloatArray | None]] = []
    for i in range(len(gs)):
        cols = np.nonzero(shares[i] > 0)[0]
        pick = arg[rows[first[i, cols]], cols]
        o = np.argsort(pick, kind="stable")
        out.append((pick[o], shares[i][cols][o] if exact else None))
    return out


def _equal_class(beta: FloatArray, p: FloatArray, t: float) -> FloatArray:
    """The distribution ``q`` over values of :func:`_equal_gain`'s maximum for one vector:
    the mass of the values it lacks and ``t`` of the rest, taken from the lowest ``beta``
    first, move to the best value (total variation at most ``t``)."""
    avail = np.isfinite(beta)
    q = np.where(avail, p, 0.0)
    top = int(np.argmax(np.where(avail, beta, -np.inf)))
    budget = t - float(p[~avail].sum())
    for u in np.argsort(np.where(avail, beta, np.inf), kind="stable"):
        if not avail[u] or u == top or budget <= 0:
            continue
        moved = min(budget, q[u])
        q[u] -= moved
        budget -= moved
    q[top] = 0.0
    q[top] = 1.0 - q.sum()
    return q


def _equal_gain(beta: FloatArray, p: FloatArray, t: float) -> FloatArray:
    """Most ``beta . q`` over distributions ``q`` on the available values (``beta > -inf``)
    within total variation ``t`` of ``p``."""
    avail = np.isfinite(beta)
    b = np.where(avail, beta, 0.0)
    m_out = ((~avail) * p).sum(axis=1)
    top = np.where(avail, beta, -np.inf).max(axis=1)
    budget = t - m_out
    base = (b * p * avail).sum(axis=1) + m_out * np.where(np.isfinite(top), top, 0.0)
    order = np.argsort(np.where(avail, beta, np.inf), axis=1, kind="stable")
    bs = np.take_along_axis(b, order, axis=1)
    ps = np.take_along_axis(p[None, :] * avail, order, axis=1)
    before = np.cumsum(ps, axis=1) - ps
    moved = np.clip(budget[:, None] - before, 0.0, ps)
    gain = base + (moved * (np.where(np.isfinite(top), top, 0.0)[:, None] - bs)).sum(axis=1)
    gain[(budget < -1e-12) | ~np.isfinite(top)] = -np.inf
    return gain


def _lagrangian_gain(beta: FloatArray, p: FloatArray, d: FloatArray, t: float) -> FloatArray:
    """An upper bound (tight up to the search) on ``max beta . q`` over ``q`` within EMD ``t``
    of ``p`` under ground distance ``d``: ``min_mu mu t + sum_u p_u max_w (beta_w - mu
    d(u, w))``, by golden-section search per row."""
    g = beta.shape[0]
    if g == 0:
        return np.zeros(0)
    finite = np.isfinite(beta)
    lo_b = np.where(finite, beta, np.inf).min(axis=1)
    hi_b = np.where(finite, beta, -np.inf).max(axis=1)
    none = ~finite.any(axis=1)
    span = np.where(none, 0.0, hi_b - lo_b)
    # the cheapest class: every value's mass moves to the nearest value the vector has; a
    # vector whose cheapest class is farther than t has no t-close class at all
    nearest = np.where(finite[:, None, :], d[None, :, :], np.inf).min(axis=2)
    cheapest = nearest @ p
    slack = t - cheapest

    def U(mu: FloatArray) -> FloatArray:
        val = (beta[:, None, :] - mu[:, None, None] * d[None, :, :]).max(axis=2)
        return mu * t + val @ p

    lo = np.zeros(g)
    hi = span / np.maximum(slack, 1e-9) + 1.0  # an optimal mu lies below (Slater)
    phi = (np.sqrt(5.0) - 1.0) / 2.0
    a = hi - phi * (hi - lo)
    b = lo + phi * (hi - lo)
    fa, fb = U(a), U(b)
    best = np.minimum(np.minimum(U(lo), U(hi)), np.minimum(fa, fb))
    for _ in range(_GOLDEN):
        left = fa <= fb
        hi = np.where(left, b, hi)
        lo = np.where(left, lo, a)
        a = hi - phi * (hi - lo)
        b = lo + phi * (hi - lo)
        fa, fb = U(a), U(b)
        best = np.minimum(best, np.minimum(fa, fb))
    best[none | (slack < -1e-12)] = -np.inf
    return best


def _starts(*cols: IntArray) -> NDArray[np.bool_]:
    """True where a sorted run of equal ``cols`` tuples starts."""
    n = len(cols[0])
    if n == 0:
        return np.zeros(0, dtype=bool)
    diff = np.zeros(n, dtype=bool)
    diff[0] = True
    for c in cols:
        diff[1:] |= c[1:] != c[:-1]
    return diff


def _segment_cumsum(a: FloatArray, starts: NDArray[np.bool_]) -> FloatArray:
    """Cumulative sums of ``a`` restarting at every start."""
    cum = np.cumsum(a)
    head = np.maximum.accumulate(np.where(starts, np.arange(len(a)), 0))
    return cum - (cum - a)[head]
