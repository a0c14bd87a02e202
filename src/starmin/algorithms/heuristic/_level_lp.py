"""The placement LP of the level start: which free rows form l-eligible classes at one level.

Why. At level ``j`` every pattern ``S`` of ``j`` stars groups the row types by their values
outside ``S``; each group is a *bucket*, and a class formed of a bucket's rows costs at most
``j`` stars per row. The greedy of :mod:`._level_start` visits the patterns one after another
and gives each bucket the largest l-eligible part of the free rows still in it, so a row goes
to the first bucket that can use it, whether or not another bucket needed it more. This LP
decides the buckets of one level together. On ARX adult (8 QIs, occupation, frequency
l = 3) the greedy places 9,247 of the 15,490 rows that level 0 leaves free at one star; the
LP allows 11,561, and merge-repair's release from the level start falls from 27,220 to
24,329 stars (docs/algorithms/merge-repair.md, "the placement LP").

The LP (frequency l-diversity, one sensitive column; ``f(v, u)`` the free rows of row type
``v`` with sensitive value ``u``; buckets ``B`` of the level's patterns holding at least two
row types with free rows and free rows of at least ``l`` values)::

    maximize    sum y(B, v, u)
    subject to  sum_B y(B, v, u)  <=  f(v, u)                 every cell (v, u)
                sum_v y(B, v, u)  <=  Y(B) / l                 every bucket B, value u in B
                Y(B)              <=  sum_{v, u} y(B, v, u)    every bucket B
                y, Y >= 0

``Y(B)`` is the bucket's class size: a class is l-eligible (frequency l-diversity) exactly
when no value holds more than ``1 / l`` of it. The auxiliary ``Y`` keeps the matrix at
``2 |y| + (values per bucket) + 1`` nonzeros per bucket instead of ``|y| x (values + 1)``.

Rounding. ``y`` is rounded down. Each bucket keeps the largest l-eligible part of its rounded
pool (TP's phase one, Xiao, Yi & Tao, Sec. 5.2: ``min(pool(u), h*)`` of each value), taken
from its row types in the LP's order; that part becomes one class. So every class formed is
l-eligible, no cell gives more rows than it has free, and the greedy then runs on what is
left at the same level.

Tried (stop 32): rounding by :func:`claim_rows` instead (``ceil(y)``, a cell's rows to the
larger buckets first, as the t-closeness LP of :mod:`._close_lp` does): on adult, merge-repair
from the level start moved by -1.2 % (l = 5) to +0.5 % (distinct l = 5), so rounding down stays.

Solver and work limits. HiGHS's interior point method with crossover (through scipy), which
on these LPs is about 10x faster than its dual simplex (adult, l = 3, level 1: 2.0 s against
24.5 s), within ``max_iterations`` iterations; an LP of more than
``max_nonzeros`` nonzeros is not built. Either limit leaves the level to the greedy. Both are
work limits: the result never depends on the clock.

Competition (stop 34, as for pattern-packing's bucket LP, :mod:`._bucket_lp`): the free cells'
mean number of buckets over the buckets' mean fill (free rows / ``l``). Where every cell lies
in many buckets that barely hold a class, the LP is a fractional packing and its solvers slow
down sharply; an LP of at least :data:`MIN_NONZEROS_COMPETED` nonzeros whose competition
exceeds :data:`MAX_COMPETITION` is not solved (the greedy forms the level's classes), here and
in the distinct LP of :mod:`._distinct_lp`. On adult (8 QIs, occupation, l = 2..6) it is
0.6-1.8. On uniform random tables (``bench/auto_budget.py --shapes``) the slow LPs had 5.1-8.2:
5,000 rows x 7 QIs of 5 values, l = 3, level 2, 17 CPU s (interior point) and 12.5 s (the
distinct LP, stopped at its iteration limit); 2,000 x 6 x 4, l = 5, 8 s; 3,000 x 12 x 2,
distinct l = 3, 4.9 s.

Guarantee: **heuristic** (a start for merge-repair, which repairs and verifies the release).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.approx.tp_phases import phase_one_heights
from starmin.algorithms.competition import competition as _competition
from starmin.algorithms.heuristic._merge_state import Judge
from starmin.algorithms.heuristic.pattern_keys import (
    IntArray,
    PatternKeys,
    key_runs,
    masks_of_level,
)

Group = tuple[IntArray, IntArray, IntArray]
FloatArray = NDArray[np.float64]

LP_LEVELS = 2
"""Levels whose classes the placement LP forms first (adult, 8 QIs, occupation, merge-repair's
release from the level start, rule ``spread``, greedy alone -> LP at levels 1 and 2:
l = 2 15,396 -> 13,444 stars; l = 3 27,220 -> 23,722; l = 4 42,827 -> 38,342; with the LP at
level 1 only, l = 3 gave 24,329)."""
MAX_NONZEROS = 400_000
"""Largest LP built (adult, 8 QIs, l = 2..6: 16,000-114,000 nonzeros at levels 1 and 2)."""
MAX_ITERATIONS = 100_000
"""Iterations per LP, HiGHS's interior point and the simplex iterations of its crossover each
(adult, l = 2..6: under 30 interior-point iterations; where HiGHS solves the presolved LP by
simplex, l = 2 at level 1, 12,471 iterations in 0.9 s)."""


MAX_COMPETITION = 4.0
"""A placement LP whose :func:`competition` exceeds this is not solved (module docstring)."""
MIN_NONZEROS_COMPETED = 20_000
"""Smaller placement LPs are solved whatever their competition."""


def competition(bk: Buckets, free: IntArray, l: int) -> float:
    """The free cells' mean number of buckets (among those holding them) over the buckets'
    mean free rows / ``l`` (:mod:`starmin.algorithms.competition`)."""
    _, per_cell = np.unique(bk.v * bk.s + bk.u, return_counts=True)
    return _competition(per_cell, float(free[bk.v, bk.u].sum()), bk.size, l)


def competed(bk: Buckets, free: IntArray, l: int, nonzeros: int) -> bool:
    """Whether the LP over ``bk`` (of ``nonzeros``) is left to the greedy for its
    :func:`competition`."""
    return nonzeros >= MIN_NONZEROS_COMPETED and competition(bk, free, l) > MAX_COMPETITION


def work(counts: IntArray, l: int, m: int, lp_levels: int = LP_LEVELS) -> float:
    """Estimated work units of the placement LPs at levels ``1..lp_levels``: ``2.5e-5 x m x``
    the cells (row type, value) with rows left free by level 0, for levels 1 and 2 (their
    matrices hold about ``1.5 m`` nonzeros per such cell, and HiGHS took 12-20 CPU
    microseconds per nonzero; adult, 8 QIs, l = 2..6: estimates 2.0-3.5 units, measured
    1.3-3.6 CPU s), 0.6 of it for level 1 alone (measured 0.5-0.9), ``lp_levels / 2`` of it
    beyond level 2."""
    if lp_levels <= 0:
        return 0.0
    c = np.asarray(counts, dtype=np.int64)
    free = c - np.minimum(c, phase_one_heights(c, l)[:, None])
    share = 0.6 if lp_levels == 1 else lp_levels / 2
    return 2.5e-5 * m * int(np.count_nonzero(free)) * share


class Buckets:
    """One level's buckets and their variables: variable ``i`` is ``y(bucket[i], v[i], u[i])``;
    ``size`` is the number of buckets (the ``Y`` variables follow the ``y``)."""

    def __init__(self, patterns: PatternKeys, free: IntArray, l: int, masks: list[int],
                 max_nonzeros: int | None = None):
        alive = np.flatnonzero(free.sum(axis=1))
        self.over = False  # the build stopped past ``max_nonzeros``
        nnz = 0
        parts_b: list[IntArray] = []
        parts_v: list[IntArray] = []
        parts_u: list[IntArray] = []
        size = 0
        for mask in masks:
            if len(alive) < 2:
                break
            order, starts, gid = key_runs(patterns.keys(mask)[alive])
            types = alive[order]
            rows, u = np.nonzero(free[types])            # cells, grouped by bucket
            b = gid[rows]
            many = np.bincount(gid, minlength=len(starts)) >= 2
            seen = np.unique(b * free.shape[1] + u)       # (bucket, value) pairs
            values = np.bincount(seen // free.shape[1], minlength=len(starts))
            ok = many & (values >= l)
            keep = ok[b]
            if not keep.any():
                continue
            new_id = np.cumsum(ok) - 1 + size
            size += int(ok.sum())
            nnz += 3 * int(keep.sum()) + 2 * int(ok[seen // free.shape[1]].sum()) + int(ok.sum())
            if max_nonzeros is not None and nnz > max_nonzeros:
                self.over = True
                break
            parts_b.append(new_id[b[keep]])
            parts_v.append(types[rows[keep]].astype(np.int64))
            parts_u.append(u[keep].astype(np.int64))
        empty = np.zeros(0, dtype=np.int64)
        self.bucket = np.concatenate(parts_b) if parts_b else empty
        self.v = np.concatenate(parts_v) if parts_v else empty
        self.u = np.concatenate(parts_u) if parts_u else empty
        self.size = size
        self.s = free.shape[1]
        # the (bucket, value) constraints: one per distinct pair
        pair = self.bucket * self.s + self.u
        self.pairs, self.pair_of = np.unique(pair, return_inverse=True)
        self.pair_of = np.asarray(self.pair_of, dtype=np.int64).reshape(-1)

    @classmethod
    def of_row_types(cls, free: IntArray) -> Buckets:
        """Every row type with rows its own bucket (level 0)."""
        v, u = np.nonzero(free)
        alive = np.unique(v)
        return cls._made(np.searchsorted(alive, v).astype(np.int64), v.astype(np.int64),
                         u.astype(np.int64), len(alive), free.shape[1])

    @classmethod
    def joined(cls, a: Buckets, b: Buckets) -> Buckets:
        """``a``'s buckets, then ``b``'s."""
        return cls._made(np.concatenate([a.bucket, b.bucket + a.size]),
                         np.concatenate([a.v, b.v]), np.concatenate([a.u, b.u]),
                         a.size + b.size, a.s)

    def kept(self, keep: NDArray[np.bool_]) -> Buckets:
        """Only the buckets ``keep`` (``(size,)``), renumbered in order."""
        new_id = np.cumsum(keep) - 1
        live = keep[self.bucket]
        return self._made(new_id[self.bucket[live]].astype(np.int64), self.v[live],
                          self.u[live], int(keep.sum()), self.s)

    def restricted(self, keep: NDArray[np.bool_]) -> Buckets:
        """Only the variables ``keep`` (``(len(bucket),)``) and the buckets holding one of
        them, renumbered in order."""
        held = np.zeros(self.size, dtype=bool)
        held[self.bucket[keep]] = True
        new_id = np.cumsum(held) - 1
        return self._made(new_id[self.bucket[keep]].astype(np.int64), self.v[keep],
                          self.u[keep], int(held.sum()), self.s)

    @classmethod
    def _made(cls, bucket: IntArray, v: IntArray, u: IntArray, size: int, s: int) -> Buckets:
        out = cls.__new__(cls)
        out.over, out.bucket, out.v, out.u, out.size, out.s = False, bucket, v, u, size, s
        out.pairs, pair_of = np.unique(bucket * s + u, return_inverse=True)
        out.pair_of = np.asarray(pair_of, dtype=np.int64).reshape(-1)
        return out

    @property
    def nonzeros(self) -> int:
        """Nonzeros of the LP's matrix (see the module docstring)."""
        return 3 * len(self.bucket) + 2 * len(self.pairs) + self.size


class Program(NamedTuple):
    """A placement LP in SciPy's form: minimize ``c z`` subject to ``A_ub z <= b_ub``, ``A_eq
    z = 0``, ``0 <= z``, where some optimal solution lies within ``0 <= z <= upper`` (the
    certified bounds of :mod:`starmin.algorithms.lp_dual` use it). ``z``: the ``y``, then
    the bucket sizes ``Y``, then any others."""

    c: FloatArray
    A_ub: Any
    b_ub: FloatArray
    A_eq: Any
    upper: FloatArray
    nonzeros: int


def solve_program(prog: Program, max_iterations: int, crossover: bool = True) -> Any:
    """SciPy's result of HiGHS's interior point method on ``prog``, with its crossover to a
    basic solution or not (``run_crossover``, passed to HiGHS verbatim)."""
    import warnings

    from scipy.optimize import OptimizeWarning, linprog

    options: dict[str, Any] = {"maxiter": int(max_iterations), "disp": False}
    if not crossover:
        options["run_crossover"] = "off"
    with warnings.catch_warnings():  # "passed to HiGHS verbatim": meant
        warnings.simplefilter("ignore", OptimizeWarning)
        return linprog(prog.c, A_ub=prog.A_ub, b_ub=prog.b_ub, A_eq=prog.A_eq,
                       b_eq=None if prog.A_eq is None else np.zeros(prog.A_eq.shape[0]),
                       bounds=(0, None), method="highs-ipm", options=options)


def level_lp_classes(patterns: PatternKeys, free: IntArray, l: int, j: int, m: int, *,
                     max_nonzeros: int = MAX_NONZEROS, max_iterations: int = MAX_ITERATIONS
                     ) -> list[Group] | None:
    """The classes the placement LP forms at level ``j`` (module docstring), their rows taken
    out of ``free`` (``(t_in, s)``); ``None`` when a work limit or its competition stops it
    (``free`` unchanged)."""
    bk = Buckets(patterns, free, l, masks_of_level(m, j), max_nonzeros)
    if bk.over or bk.nonzeros > max_nonzeros:
        return None
    if bk.size == 0:
        return []
    if competed(bk, free, l, bk.nonzeros):
        return None
    y = _solve(bk, free, l, max_iterations)
    if y is None:
        return None
    return take_rounded(bk, free, y, partial(_eligible, l=l))


def _eligible(pool: IntArray, l: int) -> IntArray:
    """The largest l-eligible part of each pool (TP's phase one)."""
    return np.minimum(pool, phase_one_heights(pool, l)[:, None])


def program(bk: Buckets, free: IntArray, l: int) -> Program:
    """The LP of the module docstring over ``bk``'s variables with cell capacities ``free``
    (no equalities; some optimal solution has ``y`` within its cell and ``Y`` within its
    bucket's rows)."""
    import scipy.sparse as sp  # the solver loads when a level start runs

    nv, nb = len(bk.bucket), bk.size
    cells, cell_of = np.unique(bk.v * bk.s + bk.u, return_inverse=True)
    cell_of = np.asarray(cell_of, dtype=np.int64).reshape(-1)
    nc, npair = len(cells), len(bk.pairs)
    y_col = np.arange(nv, dtype=np.int64)
    Y_col = nv + np.arange(nb, dtype=np.int64)
    pair_bucket = bk.pairs // bk.s
    rows = np.concatenate([cell_of,                          # cells: sum_B y <= f
                           nc + bk.pair_of,                   # values: sum_v y - Y / l <= 0
                           nc + np.arange(npair),
                           nc + npair + bk.bucket,            # buckets: Y - sum y <= 0
                           nc + npair + np.arange(nb)])
    cols = np.concatenate([y_col, y_col, Y_col[pair_bucket], y_col, Y_col])
    vals = np.concatenate([np.ones(nv), np.ones(nv), np.full(npair, -1.0 / l),
                           -np.ones(nv), np.ones(nb)])
    A = sp.csr_matrix((vals, (rows, cols)), shape=(nc + npair + nb, nv + nb))
    b = np.zeros(nc + npair + nb)
    cap = free.reshape(-1)
    b[:nc] = cap[cells]
    c = np.concatenate([-np.ones(nv), np.zeros(nb)])
    y_cap = cap[bk.v * bk.s + bk.u].astype(np.float64)
    upper = np.concatenate([y_cap, np.bincount(bk.bucket, weights=y_cap, minlength=nb)])
    return Program(c, A, b, None, upper, 3 * nv + 2 * npair + nb)


def _solve(bk: Buckets, free: IntArray, l: int, max_iterations: int) -> IntArray | None:
    """``y`` rounded down, by HiGHS's interior point method, or ``None`` at the limit."""
    res = solve_program(program(bk, free, l), max_iterations)
    if res.status != 0 or res.x is None:
        return None
    return np.floor(np.asarray(res.x[:len(bk.bucket)]) + 1e-7).astype(np.int64)


def whole_passing(pool: IntArray, judge: Judge) -> IntArray:
    """``(g, s)``: each pool whole where ``judge`` passes it (and it has rows), else nothing
    of it."""
    ok = judge(pool) & (pool.sum(axis=1) > 0)
    return np.where(ok[:, None], pool, 0)


def take_rounded(bk: Buckets, free: IntArray, y: IntArray,
                 part: Callable[[IntArray], IntArray]) -> list[Group]:
    """Each bucket's ``part`` of its rounded pool (``(g, s)`` pools -> what of each becomes
    a class; here the largest l-eligible part), as one class (module docstring, rounding),
    taken from the bucket's row types in the LP's order; its rows leave ``free``."""
    y = np.minimum(y, free[bk.v, bk.u])
    live = np.flatnonzero(y > 0)
    if not len(live):
        return []
    b, v, u, y = bk.bucket[live], bk.v[live], bk.u[live], y[live]
    order, starts, gid = key_runs(b)                      # stable: the LP's order within
    b, v, u, y = b[order], v[order], u[order], y[order]
    pool = np.zeros((len(starts), bk.s), dtype=np.int64)
    np.add.at(pool, (gid, u), y)
    want = part(pool)                                      # (g, s)
    # the rows of each (bucket, value) taken in order until its want is met
    key = gid * bk.s + u
    o2, s2, g2 = key_runs(key)
    cum = np.cumsum(y[o2])
    before = cum - y[o2] - (cum - y[o2])[s2][g2]
    got = np.zeros_like(y)
    got[o2] = np.clip(want[gid[o2], u[o2]] - before, 0, y[o2])
    out: list[Group] = []
    for lo, hi in zip(starts.tolist(), [*starts[1:].tolist(), len(b)], strict=True):
        sel = np.flatnonzero(got[lo:hi]) + lo
        if not len(sel):
            continue
        np.subtract.at(free, (v[sel], u[sel]), got[sel])
        out.append((v[sel].copy(), u[sel].copy(), got[sel].copy()))
    return out


def claim_rows(bk: Buckets, free: IntArray, y: FloatArray, Y: FloatArray) -> IntArray:
    """Integer rows per variable: each variable's ``ceil(y)``, a cell's free rows going to
    its buckets in decreasing order of their LP size ``Y`` (so no cell gives more than it
    has)."""
    want = np.ceil(y - 1e-7).clip(min=0).astype(np.int64)
    cell = bk.v * bk.s + bk.u
    order = np.lexsort((-Y[bk.bucket], cell))             # by cell, larger buckets first
    ws, cs = want[order], cell[order]
    _, start, run = key_runs(cs)                          # sorted already: runs of a cell
    cum = np.cumsum(ws)
    before = cum - ws - (cum - ws)[start][run]            # rows claimed before, in the cell
    got = np.zeros_like(want)
    got[order] = np.clip(free.reshape(-1)[cs] - before, 0, ws)
    return got
