"""The placement LP of the level start for distinct l-diversity: which free rows form classes
of at least ``l`` distinct values at one level.

Why. For distinct l-diversity the level start (:mod:`._level_start`) ran the placement LP of
frequency l-diversity (:mod:`._level_lp`), whose classes hold no value above ``1 / l`` of
their rows. A distinct class only needs ``l`` values: once a bucket's class has them, any
number of further rows of any value may join it. So the frequency LP left out most rows of
the row types holding one value (they need a partner of another value, not ``l - 1``
partners per row).

The LP (one sensitive column; ``f(v, u)`` the free rows of row type ``v`` with value ``u``;
buckets ``B`` of the level's patterns holding at least two row types with free rows and free
rows of at least ``l`` values, as for :mod:`._level_lp`)::

    maximize    sum y(B, v, u)
    subject to  sum_B y(B, v, u)      <=  f(v, u)              every cell (v, u)
                y(B, v, u)            <=  f(v, u) w(B)         every variable
                z(B, u)               <=  sum_v y(B, v, u)     every bucket B, value u in B
                z(B, u)               <=  w(B)
                l w(B)                <=  sum_u z(B, u)        every bucket B
                0 <= w, z <= 1,  y >= 0

``w(B)`` says whether the bucket forms a class, ``z(B, u)`` whether that class holds value
``u``; a class of integers (``w = 1``, ``z`` its values) is a feasible point, so the LP's
optimum bounds the rows one level's distinct classes of these buckets can place. Its
fractional points let a partner row count for ``w`` of a class that takes ``w`` of each
cell.

Rounding. ``y`` is rounded down; each bucket's rounded pool becomes one class when the
model's judge passes it, else nothing of it does (:func:`._level_lp.take_rounded`, in the
LP's order), so every class formed satisfies the model. HiGHS's dual simplex returns a
vertex, which on adult is nearly integral (distinct l = 2, level 1: 8,509 of the optimum's
8,512 rows kept).

Where it runs. The level start forms its classes at levels ``1 .. lp_levels`` with it for
distinct l-diversity alone (:func:`.merge_repair.distinct_only`), by default at every level
(merge-repair's ``distinct_lp_levels``, :data:`LP_LEVELS`); entropy l and recursive (c, l),
whose classes need more than ``l`` values, keep the frequency LP (adult, rule ``spread``,
the level start alone, frequency LP -> this LP: entropy l = 2 / 3 / 4 13,081 / 21,045 /
27,611 -> 13,719 / 21,303 / 27,825; recursive (4, 3) 19,278 -> 19,349). Distinct l = 2 / 3 /
4 / 5 / 6 under ``auto`` on adult (8 QIs, occupation): 12,289 / 18,611 / 23,121 / 27,154 /
31,013 stars before the LP; 12,167 / 18,153 / 22,653 / 26,499 / 30,357 with it at levels 1
and 2 (stop 33, in 1.2-1.5 CPU s of the level start instead of 2.9-3.3); 12,107 / 18,026 /
22,448 / 26,290 / 30,164 at every level (stop 35; levels 3..8 add 0.1-0.2 CPU s). Stop 33
kept levels 1 and 2 because on a random table of 5,000 rows and 9 QIs of 4 values (l = 3, 8
sensitive values) the level-3 LP (210,000 nonzeros) took HiGHS's dual simplex 87,560
iterations and 142 CPU s (its interior point method 44 s). Since stop 34 that LP is not
solved (its competition, :func:`._level_lp.competed`, is over the limit); on the uniform
random tables of ``bench/auto_budget.py --shapes`` (l = 2 and 3) every level released the
same or fewer stars than levels 1 and 2 (-0.0 to -0.8 %) in the same time within 0.3 CPU s.
Glop's dual simplex (within a deterministic-time limit, as the distinct charge LP) was
tried in its place and not taken: its vertices round worse (adult l = 4 / 5 22,491 / 26,383
against 22,448 / 26,290).

Solver and work limits. HiGHS's dual simplex (through SciPy) within ``max_iterations``
iterations (:data:`MAX_ITERATIONS`; adult, level 1: 0.6-0.8 CPU s, about 5x faster than its
interior point method here, whose interior solutions also round worse); an LP of more than
``max_nonzeros`` nonzeros is not built. Either limit leaves the level to the greedy. Both
are work limits: the result never depends on the clock. An iteration's cost varies with the
LP (0.02 ms on adult, 1.7 ms on that level-3 LP), so the limit bounds the work, not the
time.

Guarantee: **heuristic** (a start for merge-repair, which repairs and verifies the release).

Tried and not kept (stop 33): the same LP for p-sensitive k-anonymity (and distinct
l-diversity with k-anonymity), ``l = p`` and one more row per bucket, ``k w(B) <= sum y``.
Adult, k = 5 with p = 3, level start: 21,908 stars without an LP -> 21,068 with it at every
level (``auto`` released 21,424), but on a random table of 2,000 rows and 12 binary QIs
(p = 2, k = 3) its level-2 LP (249,000 nonzeros) stopped at HiGHS's dual simplex limit of
100,000 iterations after 134 CPU s, where the same LP without the ``k`` row took 0.1 s;
HiGHS's interior point method took 9.6 s there and made adult worse (21,374 in 11 s).

References: Machanavajjhala et al., TKDD 2007, Sec. 4 (distinct l-diversity); Bredereck et
al., Sec. 4 (row types); Liang & Yuan, Sec. 2 (a class is released as its suppressor).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from starmin.algorithms.heuristic._level_lp import (
    MAX_NONZEROS,
    Buckets,
    FloatArray,
    Group,
    competed,
    take_rounded,
    whole_passing,
)
from starmin.algorithms.heuristic._merge_state import IntArray, Judge
from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level

MAX_ITERATIONS = 40_000
"""Dual simplex iterations per LP (adult, levels 1 and 2, l = 2..6: at most 21,002); past it
the level is left to the greedy."""
LP_LEVELS = 16
"""The levels whose classes the LP forms first, by default (merge-repair's
``distinct_lp_levels``): every level (the level start takes at most 16 QIs). Until stop 35
levels 1 and 2 (module docstring)."""


def work(counts: IntArray, l: int, m: int) -> float:
    """Estimated work units of the LPs: ``7e-6 x m x`` the cells (row type, value) of the
    row types holding fewer than ``l`` values (the rows level 0 leaves free). Adult, 8 QIs,
    occupation: l = 2 / 6 9,391 / 16,630 cells, estimates 0.5 / 0.9, measured 0.5 / 0.5 CPU
    s at levels 1 and 2 (stop 33), 0.8 / 0.6 at every level (stop 35: the later levels hold
    few free rows)."""
    c = np.asarray(counts, dtype=np.int64)
    return 7e-6 * m * int(np.count_nonzero(c[(c > 0).sum(axis=1) < l]))


def nonzeros(bk: Buckets) -> int:
    """Nonzeros of the LP's matrix over ``bk``: four per variable, four per (bucket, value)
    pair, one per bucket."""
    return 4 * len(bk.bucket) + 4 * len(bk.pairs) + bk.size


def distinct_lp_classes(patterns: PatternKeys, free: IntArray, l: int, judge: Judge, j: int,
                        m: int, *, max_nonzeros: int = MAX_NONZEROS,
                        max_iterations: int = MAX_ITERATIONS) -> list[Group] | None:
    """The classes the placement LP forms at level ``j`` (module docstring), their rows taken
    out of ``free`` (``(t_in, s)``), each passing ``judge``; ``None`` when a work limit or
    its competition (:func:`._level_lp.competition`) stops it (``free`` unchanged)."""
    bk = Buckets(patterns, free, l, masks_of_level(m, j), max_nonzeros)
    if bk.over or nonzeros(bk) > max_nonzeros:
        return None
    if bk.size == 0:
        return []
    if competed(bk, free, l, nonzeros(bk)):
        return None
    y = _solve(bk, free, l, max_iterations)
    if y is None:
        return None
    return take_rounded(bk, free, y, partial(whole_passing, judge=judge))


def program(bk: Buckets, free: IntArray, l: int
            ) -> tuple[FloatArray, object, FloatArray, FloatArray]:
    """The LP of the module docstring in SciPy's form: ``c``, ``A_ub``, ``b_ub`` and the
    upper bounds (``y``, then ``w``, then ``z``; every lower bound 0)."""
    import scipy.sparse as sp  # the solver loads when a level start runs

    nv, nb, npair, s = len(bk.bucket), bk.size, len(bk.pairs), bk.s
    cells, cell_of = np.unique(bk.v * s + bk.u, return_inverse=True)
    cell_of = np.asarray(cell_of, dtype=np.int64).reshape(-1)
    nc = len(cells)
    cap = free.reshape(-1)
    f = cap[bk.v * s + bk.u].astype(np.float64)
    y_col = np.arange(nv, dtype=np.int64)
    w_col = nv + np.arange(nb, dtype=np.int64)
    z_col = nv + nb + np.arange(npair, dtype=np.int64)
    pair_bucket = bk.pairs // s
    r_y, r_z, r_zw, r_b = nc, nc + nv, nc + nv + npair, nc + nv + 2 * npair
    rows = np.concatenate([cell_of,                                  # sum_B y <= f
                           r_y + y_col, r_y + y_col,                 # y - f w <= 0
                           r_z + np.arange(npair), r_z + bk.pair_of,  # z - sum_v y <= 0
                           r_zw + np.arange(npair), r_zw + np.arange(npair),  # z - w <= 0
                           r_b + np.arange(nb), r_b + pair_bucket])  # l w - sum z <= 0
    cols = np.concatenate([y_col, y_col, w_col[bk.bucket], z_col, y_col, z_col,
                           w_col[pair_bucket], w_col, z_col])
    vals = np.concatenate([np.ones(nv), np.ones(nv), -f, np.ones(npair), -np.ones(nv),
                           np.ones(npair), -np.ones(npair), np.full(nb, float(l)),
                           -np.ones(npair)])
    A = sp.csr_matrix((vals, (rows, cols)), shape=(r_b + nb, nv + nb + npair))
    b = np.zeros(r_b + nb)
    b[:nc] = cap[cells]
    c = np.concatenate([-np.ones(nv), np.zeros(nb + npair)])
    upper = np.concatenate([f, np.ones(nb + npair)])
    return c, A, b, upper


def _solve(bk: Buckets, free: IntArray, l: int, max_iterations: int) -> IntArray | None:
    """``y`` rounded down, by HiGHS's dual simplex, or ``None`` at the limit."""
    from scipy.optimize import linprog

    c, A, b, upper = program(bk, free, l)
    res = linprog(c, A_ub=A, b_ub=b, bounds=np.column_stack([np.zeros(len(c)), upper]),
                  method="highs-ds", options={"maxiter": int(max_iterations), "disp": False})
    if res.status != 0 or res.x is None:
        return None
    return np.floor(np.asarray(res.x[:len(bk.bucket)]) + 1e-7).astype(np.int64)
