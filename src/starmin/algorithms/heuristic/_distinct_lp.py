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

The joint LP (stop 37). Level by level, the LP of level 1 places as many rows as it can at
one star, whether or not the partners it uses would have let more rows form classes at two
stars; the rows neither level places pay three stars or more. The joint LP is the same
program over the buckets of levels 1 and 2 together (:data:`JOINT_LEVELS`; a cell's rows
shared by both levels' buckets), maximizing the stars saved instead of the rows placed:
``sum (LEFTOVER_STARS - level(B)) y(B, v, u)`` with :data:`LEFTOVER_STARS` = 3, the fewest
stars a row left by both levels pays. The classes of both levels are rounded as above and
formed first; then the greedy takes what is left at level 1, at level 2, and the later
levels go on as before. Integer classes of the level-by-level start are a feasible point of
it, so its optimum saves at least their stars (tested). On adult (8 QIs, occupation) the
joint LP has 1.05-1.19 million nonzeros and takes HiGHS's dual simplex 42,000-61,000
iterations, 2.9-3.9 CPU s; the level start alone then released (rule ``spread``) distinct l
= 2 / 3 / 4 / 5 / 6 12,070 / 17,944 / 22,354 / 26,162 / 29,849 stars against 12,107 /
18,026 / 22,448 / 26,290 / 30,164 level by level (-0.3 to -1.0 %); counting a leftover row
at 3.5 stars instead gave 12,053 / 17,975 / 22,319 / 26,190 / 29,834, at 2.5 stars l = 6
29,894. On adult it runs for l = 4, 5 and 6 only: for l = 2 and 3 the level-2 buckets over
the rows level 0 leaves free are too competed (:func:`._level_lp.competed`: l = 2 6.4,
against 1.4 at level 1 and 2.3 at level 2 for l = 6), so each level gets its own LP, as
before. Tried and not taken: levels 1..3 together (l = 6: 3.8 million nonzeros, 73 CPU s,
29,954 stars); level 2's buckets only where a row was left by the level-by-level start (l =
6: 364,000 nonzeros, 1.4 s, but 30,501 stars). The same joint objective on frequency l-diversity's
placement LP (:mod:`._level_lp`, interior point, levels 1 and 2, a leftover row at 4 stars)
was tried and not taken: adult l = 3 / 4 23,722 / 38,342 -> 23,149 / 36,460 stars, but its LP
(0.9 million nonzeros) took 73-80 CPU s; adult's first 2,000 rows l = 3 / 4 / 5 +2.6 / -3.7
/ -0.2 %, 5,000 rows l = 3 / 5 +2.0 / -1.9 %.

Solver and work limits. HiGHS's dual simplex (through SciPy) within ``max_iterations``
iterations (:data:`MAX_ITERATIONS`; adult, level 1: 0.6-0.8 CPU s, about 5x faster than its
interior point method here, whose interior solutions also round worse); an LP of more than
``max_nonzeros`` nonzeros is not built. Either limit leaves the level to the greedy (the
joint LP's own limits, :data:`JOINT_MAX_NONZEROS`, :data:`JOINT_MAX_ITERATIONS` and
:data:`JOINT_ITERATIONS_PER_CELL`, leave levels 1 and 2 to their own LPs). Both
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

from collections.abc import Callable
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
    return 7e-6 * m * _free_cells(counts, l)


def _free_cells(counts: IntArray, l: int) -> int:
    """The cells (row type, value) of the row types holding fewer than ``l`` values."""
    c = np.asarray(counts, dtype=np.int64)
    return int(np.count_nonzero(c[(c > 0).sum(axis=1) < l]))


JOINT_LEVELS = 2
"""Levels whose buckets the joint LP (:func:`joint_lp_classes`) decides together."""
LEFTOVER_STARS = JOINT_LEVELS + 1.0
"""What the joint LP counts for a row that neither of its levels places: the fewest stars
it can still pay (level 3). A row placed at level ``j`` saves ``LEFTOVER_STARS - j``."""
JOINT_MAX_NONZEROS = 1_500_000
"""Largest joint LP built (adult, 8 QIs, occupation, distinct l = 2..6: 1.05-1.19 million
nonzeros); past it levels 1 and 2 get their LPs one at a time."""
JOINT_MAX_ITERATIONS = 120_000
"""Dual simplex iterations of the joint LP at most (adult, l = 2..6: 42,000-61,000); past it
levels 1 and 2 get their LPs one at a time."""
JOINT_ITERATIONS_PER_CELL = 5
"""And at most this many per free cell (row type, value) it places: adult took 3.7-4.5 per
cell (l = 6: 61,000 iterations for 16,630 cells). On a uniform random table of 6,000 rows x
5 QIs of 8 values (distinct l = 3, 5,866 cells, 441,000 nonzeros) HiGHS's dual simplex had
not finished after 120,000 iterations: 20,000 took 1 CPU s, 60,000 64 s and 120,000 271 s
(an iteration's cost grows as it goes). With this limit it stops after 29,330 iterations and
1.5 CPU s, and the levels get their own LPs. Never below :data:`JOINT_MIN_ITERATIONS`."""
JOINT_MIN_ITERATIONS = 10_000
"""Small tables' joint LPs may take this many iterations whatever their cells (the random
tables of 60-150 rows in the tests took up to 1,815, 12-15 per cell; 20,000 iterations of
that random table's LP took 1 CPU s)."""


def joint_work(counts: IntArray, l: int, m: int) -> float:
    """Estimated work units of the joint LP: ``3.3e-5 x m x`` the cells :func:`work` counts
    (adult, 8 QIs, occupation, l = 2 / 6: 9,391 / 16,630 cells, estimates 2.5 / 4.4 units,
    measured 2.9 / 3.6 CPU s)."""
    return 3.3e-5 * m * _free_cells(counts, l)


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


def joint_lp_classes(patterns: PatternKeys, free: IntArray, l: int, judge: Judge, m: int, *,
                     max_nonzeros: int = JOINT_MAX_NONZEROS,
                     max_iterations: int = JOINT_MAX_ITERATIONS) -> list[Group] | None:
    """The classes of levels ``1..JOINT_LEVELS`` decided by one LP (module docstring, "the
    joint LP"), their rows taken out of ``free``; ``None`` when a work limit or its
    competition stops it (``free`` unchanged: the levels then get their own LPs)."""
    joint = joint_buckets(patterns, free, l, m, max_nonzeros)
    if joint is None:
        return None
    bk, saved = joint
    if bk.size == 0:
        return []
    cap = min(max_iterations, max(JOINT_MIN_ITERATIONS,
                                  JOINT_ITERATIONS_PER_CELL * int(np.count_nonzero(free))))
    y = _solve(bk, free, l, cap, saved)
    if y is None:
        return None
    return take_rounded(bk, free, y, partial(whole_passing, judge=judge))


def joint_buckets(patterns: PatternKeys, free: IntArray, l: int, m: int,
                  max_nonzeros: int = JOINT_MAX_NONZEROS,
                  nonzeros: Callable[[Buckets], int] = nonzeros, compete: bool = True
                  ) -> tuple[Buckets, FloatArray] | None:
    """The joint LP's buckets (levels ``1..JOINT_LEVELS``, in that order) and each
    variable's weight, the stars a row placed there saves (``LEFTOVER_STARS - level``);
    ``None`` past ``max_nonzeros`` or when a level's buckets are too competed
    (:func:`._level_lp.competed`, as that level's own LP would be; not with ``compete``
    false). ``nonzeros`` counts an LP's nonzeros (this module's LP by default; frequency's
    joint LP, :mod:`._frequency_joint`, passes its own)."""
    parts: list[Buckets] = []
    level: list[IntArray] = []
    for j in range(1, min(JOINT_LEVELS, m) + 1):
        bk = Buckets(patterns, free, l, masks_of_level(m, j), max_nonzeros)
        if bk.over or (compete and competed(bk, free, l, nonzeros(bk))):
            return None
        parts.append(bk)
        level.append(np.full(bk.size, j, dtype=np.int64))
    bk = parts[0]
    for more in parts[1:]:
        bk = Buckets.joined(bk, more)
    if nonzeros(bk) > max_nonzeros:
        return None
    return bk, LEFTOVER_STARS - np.concatenate(level)[bk.bucket].astype(np.float64)


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


def _solve(bk: Buckets, free: IntArray, l: int, max_iterations: int,
           saved: FloatArray | None = None) -> IntArray | None:
    """``y`` rounded down, by HiGHS's dual simplex, or ``None`` at the limit. ``saved``: the
    objective's weight of each ``y`` (1 for every one by default: the rows placed)."""
    from scipy.optimize import linprog

    c, A, b, upper = program(bk, free, l)
    if saved is not None:
        c[: len(bk.bucket)] = -saved
    res = linprog(c, A_ub=A, b_ub=b, bounds=np.column_stack([np.zeros(len(c)), upper]),
                  method="highs-ds", options={"maxiter": int(max_iterations), "disp": False})
    if res.status != 0 or res.x is None:
        return None
    return np.floor(np.asarray(res.x[:len(bk.bucket)]) + 1e-7).astype(np.int64)
