"""The placement LP of the level start for t-closeness: which free rows form t-close classes
at one level.

Why. As for frequency l-diversity (:mod:`._level_lp`), the greedy of :mod:`._level_start`
visits one level's patterns one after another and gives each bucket the largest t-close
part (:mod:`._close_part`) of the free rows still in it, so a row goes to the first bucket
that can use it. This LP decides the buckets of one level together.

The LP (one sensitive column; ``f(v, u)`` the free rows of row type ``v`` with value ``u``;
buckets ``B`` of the level's patterns holding at least two row types with free rows; the
distance's *items* ``i`` with weights ``W(u, i)`` and table shares ``Q(i)``, and ``tau`` as
:func:`starmin.algorithms.t_closeness_bound.items_of` gives them)::

    maximize    sum y(B, v, u)
    subject to  sum_B y(B, v, u)                       <=  f(v, u)    every cell (v, u)
                Q(i) Y(B) - sum_(v, u) W(u, i) y(B, v, u) <= d(B, i)   every bucket, item in B
                sum_i d(B, i) + Q(absent from B) Y(B)   <=  tau Y(B)   every bucket
                Y(B)                                     =  sum_(v, u) y(B, v, u)
                y, Y, d >= 0

A class of ``Y`` rows with ``x(i)`` rows in item ``i`` is t-close exactly when ``sum_i
max(0, Q(i) Y - x(i)) <= tau Y`` under the equal, ordered and hierarchical distances (Li et
al. Sec. 4; the identity items for the equal distance, the cuts' two sides for the ordered,
every node below the root for the hierarchical); under a matrix distance it is the necessary
condition through the least ground distance. Items none of whose values the bucket holds
have ``d = Q(i) Y``, folded into the bucket's row.

Rounding. Each variable claims ``ceil(y)`` rows, a cell's free rows going to its buckets in
decreasing order of their LP size ``Y`` (rounding down kept 4,325 of the LP's 11,592 rows on
adult at t = 0.2, claiming 7,573). Each bucket's claimed pool becomes a class whole if the
model's judge passes it, else its t-close part of :func:`._close_part.close_parts` does
(taken from its row types in the LP's order, :func:`._level_lp.take_rounded`); so every class
formed passes the model, and the greedy then runs on what is left at the same level.

Where it runs. The level start forms its level-1 classes with it under the equal distance
(and a matrix, through the least ground distance), where the items are the values
(:attr:`CloseSpec.lp`); adult, 8 QIs, occupation, merge-repair's release from the level
start (before the variational cap of :mod:`._close_part`): t = 0.1 / 0.2 / 0.3 109,914 /
86,975 / 66,839 -> 108,589 / 84,401 / 61,785 stars, for 1.7 CPU s more. The LP's optimum at
level 1 (t = 0.2: 11,592 rows) is well above what its rounding keeps (7,573): its fractional
classes may be smaller than any t-close class of integers
(:func:`starmin.algorithms.t_class_size.min_class_size`).

Solver and work limits. HiGHS's interior point method with crossover (through scipy) within
``max_iterations`` iterations; an LP of more than ``max_nonzeros`` nonzeros is not built.
Either limit leaves the level to the greedy; both are work limits, never the clock.

Guarantee: **heuristic** (a start for merge-repair, which repairs and verifies the release).

References: Li, Li & Venkatasubramanian, ICDE 2007, Sec. 4; Liang & Yuan, Sec. 4, Thm 9 (the
transport constraints of t-closeness are linear in the rows of each value a class takes).
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import numpy as np

from starmin.algorithms.heuristic._close_part import FloatArray, whole_or_close
from starmin.algorithms.heuristic._level_lp import (
    MAX_ITERATIONS,
    MAX_NONZEROS,
    Buckets,
    Group,
    Program,
    claim_rows,
    solve_program,
    take_rounded,
)
from starmin.algorithms.heuristic._merge_state import IntArray, Judge
from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level
from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.models.combine import parts

CLOSE_MAX_NONZEROS = 2 * MAX_NONZEROS
"""Largest LP built (adult, 8 QIs, occupation, t = 0.2: about 450,000 nonzeros at level 1,
1.7 CPU s; 1.6 million at level 2, 35 CPU s)."""
CLOSE_LP_LEVELS = 1
"""Levels whose classes this LP forms at most (level 2 is about 20x level 1's work on adult)."""


def work(rt: RowTypes, spec: CloseSpec | None) -> float:
    """Estimated work units of the LP at level 1: ``1.1e-5 x m x`` the nonzero cells (row
    type, value) ``x`` the items per value (adult, 8 QIs, occupation: t = 0.2 1.7 CPU s,
    estimate 1.7; with the hierarchy's nodes as items, before :attr:`CloseSpec.lp` kept the
    hierarchical distance out, t = 0.1 3.5 CPU s, estimate 3.4); 0 where it does not run."""
    if spec is None or not spec.lp:
        return 0.0
    per_value = float(np.count_nonzero(spec.W)) / max(len(spec.W), 1)
    return 1.1e-5 * rt.m * int(np.count_nonzero(rt.counts)) * per_value


class CloseSpec(NamedTuple):
    """What the level start needs of a t-closeness model on one sensitive column: the
    table's count of each key ``o`` ``(s,)``, the items ``W`` ``(s, I)`` and ``tau``
    (module docstring)."""

    o: IntArray
    W: IntArray
    tau: float
    tv_tau: float
    """Every t-close class has variational distance at most this (``t / d_min``)."""
    lp: bool = True
    """Whether the LP runs: the items are the values (equal distance, or a matrix through
    its least ground distance). Under the hierarchical distance on adult's occupation
    hierarchy (t = 0.3) HiGHS's interior point took 24 CPU s at level 1 (4,618 crossover
    iterations), and its other solvers disagreed on the optimum (15,979 by dual simplex in
    278 s, 4,432 by its default): the ordered and hierarchical distances keep the greedy."""

    @property
    def q(self) -> FloatArray:
        """The table's share of each key."""
        return self.o / self.o.sum()


def close_spec(model: PrivacyModel, rt: RowTypes) -> CloseSpec | None:
    """The :class:`CloseSpec` of ``model``'s first t-closeness part on ``rt`` (one sensitive
    column, whose values are the keys); ``None`` without one or when its distance bounds
    nothing (fewer than two values)."""
    from starmin.algorithms.t_closeness_bound import items_of, min_distance
    from starmin.models.t_closeness import TCloseness

    t_part = next((p for p in parts(model) if isinstance(p, TCloseness)), None)
    if t_part is None or len(rt.sensitive) != 1 or rt.n == 0:
        return None
    o = rt.counts.sum(axis=0).astype(np.int64)
    present = np.flatnonzero(o > 0)
    values = rt.sensitive_values()[0]
    held = [values[i] for i in present.tolist()]
    items, scale = items_of(t_part.distance, held)
    if not math.isfinite(scale):
        return None
    W = np.zeros((rt.s, len(held) if items is None else items.shape[1]), dtype=np.int64)
    W[present] = np.eye(len(held), dtype=np.int64) if items is None else items
    d_min = min_distance(t_part.distance, held)
    tv_tau = float(t_part.t_exact) / d_min if d_min > 0 else 1.0
    return CloseSpec(o, W, float(t_part.t_exact) * scale, tv_tau, items is None)


def close_lp_classes(patterns: PatternKeys, free: IntArray, spec: CloseSpec, judge: Judge,
                     j: int, m: int, *, max_nonzeros: int = CLOSE_MAX_NONZEROS,
                     max_iterations: int = MAX_ITERATIONS) -> list[Group] | None:
    """The classes the placement LP forms at level ``j`` (module docstring), their rows taken
    out of ``free`` (``(t_in, s)``), for the model of ``spec``. ``None`` when a work limit
    stops it (``free`` unchanged)."""
    bk = Buckets(patterns, free, 1, masks_of_level(m, j), max_nonzeros)
    if bk.over:
        return None
    if bk.size == 0:
        return []
    y = _solve(bk, free, spec.q, spec.W, spec.tau, max_nonzeros, max_iterations)
    if y is None:
        return None
    return take_rounded(bk, free, y, partial(whole_or_close, o=spec.o, judge=judge,
                                             tv_tau=spec.tv_tau))


def program(bk: Buckets, free: IntArray, q: FloatArray, W: IntArray, tau: float) -> Program:
    """The LP over ``bk``'s variables with cell capacities ``free``."""
    import scipy.sparse as sp  # the solver loads when a level start runs

    nv, nb, s = len(bk.bucket), bk.size, bk.s
    Qi = q @ W                                                # (I,) item shares
    n_items = W.shape[1]
    # the items each variable's value belongs to
    vu, vi = np.nonzero(W[bk.u])                              # variable index, item
    wv = W[bk.u][vu, vi].astype(np.float64)
    # (bucket, item) pairs the bucket holds
    pair, pair_of = np.unique(bk.bucket[vu] * n_items + vi, return_inverse=True)
    pair_of = np.asarray(pair_of, dtype=np.int64).reshape(-1)
    npair = len(pair)
    pb, pi = pair // n_items, pair % n_items
    held = np.bincount(pb, weights=Qi[pi], minlength=nb)      # Q of the items each holds
    absent = Qi.sum() - held
    cells, cell_of = np.unique(bk.v * s + bk.u, return_inverse=True)
    cell_of = np.asarray(cell_of, dtype=np.int64).reshape(-1)
    nc = len(cells)
    y_col = np.arange(nv)
    Y_col = nv + np.arange(nb)
    d_col = nv + nb + np.arange(npair)
    # rows: cells, (bucket, item) deficits, buckets
    rows = np.concatenate([cell_of, nc + pair_of, nc + np.arange(npair), nc + np.arange(npair),
                           nc + npair + pb, nc + npair + np.arange(nb)])
    cols = np.concatenate([y_col, y_col[vu], Y_col[pb], d_col, d_col, Y_col])
    vals = np.concatenate([np.ones(nv), -wv, Qi[pi], -np.ones(npair), np.ones(npair),
                           absent - tau])
    A = sp.csr_matrix((vals, (rows, cols)), shape=(nc + npair + nb, nv + nb + npair))
    b = np.zeros(nc + npair + nb)
    cap = free.reshape(-1)
    b[:nc] = cap[cells]
    eq = sp.csr_matrix((np.concatenate([-np.ones(nv), np.ones(nb)]),
                        (np.concatenate([bk.bucket, np.arange(nb)]),
                         np.concatenate([y_col, Y_col]))), shape=(nb, nv + nb + npair))
    rows_of = np.bincount(bk.bucket, weights=cap[bk.v * s + bk.u], minlength=nb)
    upper = np.concatenate([cap[bk.v * s + bk.u], rows_of, rows_of[pb]]).astype(np.float64)
    c = np.concatenate([-np.ones(nv), np.zeros(nb + npair)])
    return Program(c, A, b, eq, upper, 2 * nv + len(vu) + 3 * npair + 2 * nb)


def _solve(bk: Buckets, free: IntArray, q: FloatArray, W: IntArray, tau: float,
           max_nonzeros: int, max_iterations: int) -> IntArray | None:
    """The rows each variable claims (:func:`._level_lp.claim_rows`) from the LP's optimum,
    by HiGHS's interior point method; ``None`` past a limit."""
    prog = program(bk, free, q, W, tau)
    if prog.nonzeros > max_nonzeros:
        return None
    res = solve_program(prog, max_iterations)
    if res.status != 0 or res.x is None:
        return None
    nv, nb = len(bk.bucket), bk.size
    return claim_rows(bk, free, np.asarray(res.x[:nv]), np.asarray(res.x[nv:nv + nb]))
