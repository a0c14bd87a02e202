"""The charge LP bound for frequency l-diversity: the fewest stars, bounded by one LP.

Guarantee: **bound** -- the value returned is <= the optimum (proof below and in
``docs/algorithms/lower-bounds.md``, section "charges for frequency l-diversity"; tests
compare it with brute force).

Setting: one sensitive column's histogram ``c(v, u)`` (rows of row type ``v`` with value
``u``); a *cell* is a pair ``(v, u)`` with ``c(v, u) > 0``. A row type is *l-eligible* when
``l max_u c(v, u) <= sum_u c(v, u)``; its cells get charge 0. Every other row type has a
level ``L(v) >= 1`` (:func:`.diversity_levels.levels` for ``q = l``: the fewest stars of a
group containing ``v`` that holds ``l`` distinct values). Its cells get charges ``a(v, u)``
free in ``[-(L(v) + 1), L(v) + 1]`` when ``L(v) <= last`` (the levels enumerated in full,
:func:`.diversity_levels.last_level`), else fixed at ``L(v)``. A row type holding fewer than
``l`` values may be fixed at ``L(v)`` in any case (its own bucket and every bucket of level
``< L(v)`` holding it hold fewer than ``l`` values, and at ``s >= L(v)`` its cells have ``a -
s <= 0``): when the LP is over its nonzero limit, a smaller one fixes those of level 1 (most
of the rows that must leave) and is tried instead, a restriction, so still a bound.

**Claim.** For a star set ``S`` (``s = |S|``) and a bucket ``B = B(S, .)`` (the rows that
agree outside ``S``) let ``W(B, u)`` be the largest ``a(v, u) - s`` over the cells of value
``u`` in ``B``. If in every bucket holding ``>= l`` distinct values the ``l`` largest
``W(B, u)`` sum to at most 0, then ``OPT >= sum c(v, u) a(v, u)``.

*Proof.* A class ``C`` of a release with star set ``S`` lies in a bucket ``B`` of ``S`` and
holds ``x_u`` rows of value ``u`` with ``l x_u <= |C|`` (frequency l-diversity, Xiao et al.
Definition 2), so ``B`` holds ``>= l`` values. Each row of ``C`` has ``a - s <= W(B, u)`` for
its value ``u``, so ``sum_C (a - s) <= sum_u x_u W(B, u) = |C| sum_u y_u W(B, u)`` with ``y =
x / |C|`` in ``{y >= 0, sum y = 1, y_u <= 1/l}``. A linear function's largest value on that
polytope is at a vertex, ``1/l`` on ``l`` values, which is ``1/l`` times the ``l`` largest
``W(B, u)`` summed: ``<= 0``. So ``sum_C a <= |C| s``: the class's stars pay its rows'
charges. Sum over the classes. ∎ It is the dual of the LP core's frequency relaxation
(Liang & Yuan Thm 9's ``x(v*, v, u)`` with ``l x_u(v*) <= |v*|`` per output vector, every
vector at once) with the charges restricted to these boxes.

Only these buckets can fail, so only they are constrained and checked: at ``s = 0`` the
own bucket of a row type with free charges holding ``>= l`` values; at ``s = 1 .. last``
the buckets holding a free cell of level ``s``. A bucket of level ``s < L(v)`` containing
``v`` holds fewer than ``l`` values (the levels' definition), and in every other bucket each
charge is at most ``s`` (free cells of level ``< s`` at ``L + 1 <= s``, fixed ones at ``L <=
s``). "The ``l`` largest sum to ``<= 0``" is linear by LP duality: some ``lambda_B`` (free)
and ``mu_(B, u) >= max(0, W(B, u) - lambda_B)`` with ``l lambda_B + sum_u mu_(B, u) <= 0``;
each free cell gives ``a - lambda_B - mu_(B, u) <= s``, the fixed cells of one ``(B, u)``
one row with their largest charge.

The LP is solved by HiGHS's dual simplex (:mod:`.charge_lp`) and its answer checked from
scratch: the charges lowered by ``1e-7``, rounded down to multiples of ``2^-20`` and every
constrained bucket's ``l`` largest ``W`` summed exactly; a failing check gives no bound. The
bound is the charges' sum rounded up.

Work limits, never a clock: HiGHS gets the full LP up to :data:`FULL_MAX_NONZEROS`
nonzeros and the smaller one up to :data:`MAX_NONZEROS` (PDLP the full LP up to
:data:`.charge_pdlp.MAX_NONZEROS`, within its own work limit), and stops after
:data:`MAX_ITERATIONS` simplex iterations (then no bound). Glop within a
deterministic-time limit (as :mod:`.distinct_charge_bound`) was tried on 2026-11-27 and not
taken: it solved adult l = 3's smaller LP in 1 CPU s against 4-5, but within 3
deterministic seconds lost the bounds of adult's first 2,000 rows (l = 5) and 8,000 rows
(l = 3), which HiGHS gives in 1.6 and 6.5 s.

Cost (ARX adult, 8 QIs, occupation sensitive; 2026-11-26, one core; ``bench/l_charges.py``):
the first 2,000 rows, l = 3 / 5: 0.4 / 1.6 s, 2,615 / 3,636 against the other diversity
bounds' best 2,330 / 3,069; the first 8,000 rows: l = 3 6.5-8.5 s, 7,604 against 6,867; l =
5 is over the nonzero limit, its smaller LP 2 s, 10,456 against 9,470 (the full LP, 48 s
without the limits, 11,501). The whole table: l = 2 260,000 nonzeros, 12,959 in 2-5 s (the
LP core's column generation, run by ``auto`` there, reaches 13,030); l = 3 513,000
nonzeros, 217 s, 20,042 (against 18,096; the LP core's optimum is 20,682), over the limit,
its smaller LP 241,000 nonzeros, 19,000 iterations, 4-5 s, 18,854; l = 4 and 5's smaller
LPs need 348,000 and 397,000 nonzeros (6 and 15 s, 24,453 and 29,505): over the limit; l =
6's gives 34,031, below ``l_value_flow``. Bucket generation on the smaller LP (the third
default stage, 2026-11-27): l = 4 / 5 24,275 / 29,346 in 1.1-1.3 s, 0.7 / 0.5 % below those
smaller LPs' optima.

References
----------
X. Xiao, K. Yi and Y. Tao, "The Hardness and Approximation Algorithms for L-Diversity",
Definition 2 (l-eligible) and Lemma 1 (closed under union).
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Thm 9 (the variables ``x(v*, v, s)``; this LP is the dual of its frequency form's relaxation).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.bounds import bucket_members, top_sums
from starmin.algorithms.charge_generation import (
    GENERATED,
    SMALLER,
    Chosen,
    Excess,
    check_stages,
    generated_bound,
)
from starmin.algorithms.charge_lp import (
    Cells,
    Program,
    Solver,
    Work,
    settle,
    solve,
    solve_glop,
)
from starmin.algorithms.charge_pdlp import MAX_NONZEROS as PDLP_MAX_NONZEROS
from starmin.algorithms.charge_pdlp import MAX_WORK as PDLP_MAX_WORK
from starmin.algorithms.charge_pdlp import first_order_bound
from starmin.algorithms.heuristic.pattern_keys import IntArray, PatternKeys, masks_of_level
from starmin.algorithms.l_charge_widening import OVER, recording, widened_bound
from starmin.algorithms.l_charge_widening import ROUNDS as WIDEN_ROUNDS

MAX_NONZEROS = 250_000
"""The smaller LP (and generation on it) is not built beyond this many nonzeros (adult's first
8,000 rows: l = 3's full LP needs 181,000, l = 5's 255,000, its smaller LP 119,000; the whole
table: l = 3 513,000, its smaller LP 241,000); the full LP has its own limits,
:data:`FULL_MAX_NONZEROS` and PDLP's. ``max_nonzeros`` replaces all of them."""
FULL_MAX_NONZEROS = 60_000
"""The full LP is solved by HiGHS's dual simplex up to this many nonzeros, by PDLP beyond
(stop 38). On the uniform random tables of ``bench/charge_stages.py`` the dual simplex
stopped at :data:`MAX_ITERATIONS` after 3.5-8.4 CPU s on every full LP of l >= 3 from
85,000 nonzeros up but two (3,000 x 12 x 2 l = 3, 140,000, 0.4 s; adult's first 8,000 rows
l = 3, 181,000, 3.7 s), and finished every one below 60,000 (at most 1.5 s); PDLP gave a
bound on six of those it stopped on, in 0.3-1.2 CPU s, and 1-11 stars (at most 0.2 %) below
the dual simplex's optimum where that finished (adult's first 8,000 rows l = 3 7,593
against 7,604, in 1.0 against 3.4 s)."""
MAX_ITERATIONS = 22_000
"""HiGHS's simplex iteration limit; a stopped LP gives no bound (adult's first 8,000 rows:
l = 3 needs 20,000 (8.5 s); the whole table, l = 3's smaller LP 19,000 (4-5 s)). An
iteration cost 0.1-1.6 ms on the tables measured, so an LP stopped at the limit can cost up
to about 35 s for nothing: the limit bounds the work, not the time."""


STAGES = ("full", "pdlp", "smaller", "generated-smaller")
"""The LPs tried by default, in order (:func:`frequency_charge_bound`): the full LP by HiGHS's
dual simplex when it fits :data:`FULL_MAX_NONZEROS`; else the full LP by PDLP, lowered and repaired
(:mod:`.charge_pdlp`, stop 38, within :data:`.charge_pdlp.MAX_NONZEROS`); then the smaller LP;
then bucket generation (:mod:`.charge_generation`) on the smaller LP. On ARX adult (8 QIs,
occupation; 2026-11-27, two threads) the PDLP stage gives l = 3 / 4 / 5 / 6 19,962 / 27,057 /
33,921 / 40,368 in 2.4 / 3.1 / 3.4 / 3.8 s wall (512-704 PDLP iterations; l = 6 at its work
limit) where the smaller LP and generation on it gave 18,854 / 24,275 / 29,346 / 33,835
(``l_value_flow`` 35,088 for l = 6) in 1.1-1.5 CPU s; generation on the full LP
(``"generated"``, a stage to ask for) gave l = 3 / 4 / 5 19,895 / 26,909 / 33,730 in 11-31
CPU s. When the dual simplex stops on the full LP (at :data:`MAX_ITERATIONS`), the next
stage is tried (stop 39; before, that ended the stages). A repair that reaches Glop's work
limit ends the stages (as in
:mod:`.distinct_charge_bound`): on a uniform random table (5,000 rows, 9 QIs of 4 values, l
= 5) the smaller LPs after it had given nothing in 7 s."""


def frequency_charge_bound(codes: NDArray[np.integer], histogram: NDArray[np.integer], l: int,
                           lev: NDArray[np.int64], last: int, progress: Progress | None = None,
                           *, max_nonzeros: int | None = None,
                           max_iterations: int = MAX_ITERATIONS,
                           stages: tuple[str, ...] = STAGES,
                           widen: int = WIDEN_ROUNDS) -> int | None:
    """The charge LP bound on the fewest stars of a frequency l-diverse release, for the
    ``(t_in, r)`` ``histogram`` of one sensitive column, or ``None`` when no row type needs
    a star, the LP is over its work limits, HiGHS does not finish it or its answer fails the
    check (the module docstring has the proof).

    ``lev`` are the row types' levels for ``q = l`` (:func:`.diversity_levels.levels`, every
    row type that is not l-eligible among those it was asked for) and ``last`` the highest
    level it enumerated in full (:func:`.diversity_levels.last_level`). ``stages``: the LPs
    tried in turn (:data:`STAGES`): the full LP; over its nonzero limit, the full LP by PDLP
    (``"pdlp"``, :mod:`.charge_pdlp`) and, when that gives nothing, the smaller one with the
    row types holding fewer than ``l`` values at level 1 fixed; over its limit too, bucket
    generation on the smaller LP (``"generated-smaller"``); bucket generation on
    the full LP (:mod:`.charge_generation`, ``"generated"``) when asked for (the next stage
    is tried when a generation or PDLP stage or the full LP by the dual simplex gives
    nothing). A smaller LP that is built gives the answer (``None`` when it stops). The
    stage's bound is then raised by widening the boxes where its charges reach them, at most
    ``widen`` widened LPs (:mod:`.l_charge_widening`; 0: none)."""
    report = progress or silent
    c = np.asarray(histogram, dtype=np.int64)
    lev = np.asarray(lev, dtype=np.int64)
    l = int(l)
    t_in, r = c.shape
    check_stages(stages)
    if l < 2 or t_in == 0 or last < 1:
        return None
    eligible = l * c.max(axis=1) <= c.sum(axis=1)
    if (lev[~eligible] < 1).any():
        raise ValueError("every row type that is not l-eligible needs its level (>= 1)")
    few = (c > 0).sum(axis=1) < l
    keys = PatternKeys(np.asarray(codes))
    solver = partial(_highs, max_iterations)
    work = Work()  # the PDLP stage's repair LP: Glop within its deterministic time
    for stage in stages:
        if work.stopped:  # that repair reached its limit: this table's LPs are slow
            report(f"bounds: no further l charge LP for l = {l} (one reached its work limit)")
            break
        fixed = 1 if stage in SMALLER else 0
        free_t = ~eligible & (lev <= last) & ~(few & (lev <= fixed))
        if not free_t.any():
            continue
        cells = _cells(c, eligible, free_t, lev)
        limit = max_nonzeros if max_nonzeros is not None else (
            PDLP_MAX_NONZEROS if stage == "pdlp"
            else FULL_MAX_NONZEROS if stage == "full" else MAX_NONZEROS)
        passed: list[NDArray[np.float64]] = []  # the charges each passing check saw
        what = f"l charge LP{_WHAT[stage]}"
        common = (keys, lev, free_t, last, l, r, solver, partial(_glop, work), report, what)
        checked = partial(satisfied, keys, cells, lev, free_t, last, l, r)
        bound = _stage(stage, *common, limit, cells, None, partial(recording, checked, passed))
        if bound is not None and bound != OVER:
            if widen > 0 and passed:  # the upper ends widened where the charges reach them
                bound = widened_bound(
                    cells, passed[-1], bound, lev, free_t, keys.m,
                    partial(_build, keys, lev, free_t, last, l, r),
                    partial(_stage, "full", *common), partial(_stage, "pdlp", *common),
                    checked, _glop, report, what,
                    max_nonzeros=max_nonzeros, rounds=widen)
            return bound
        if stage == "smaller" and bound is None:  # a smaller LP that is built gives the answer
            return None
        # the dual simplex stopped (or its answer failed the check): the next stage, PDLP
        # when asked for, solves the same LP by another method within its own work limit
    return None


def _stage(stage: str, keys: PatternKeys, lev: IntArray, free_t: NDArray[np.bool_], last: int,
           l: int, r: int, solver: Solver, repair: Solver, report: Progress, what: str,
           limit: int, cells: Cells, width: IntArray | None,
           check: Callable[[NDArray[np.float64]], bool]) -> int | None:
    """One stage's bound (:data:`STAGES`) over ``cells``, the buckets of ``width`` (as
    :func:`level_buckets`) and ``check``, ``None`` or :data:`OVER`; ``solver`` the dual
    simplex's, ``repair`` the PDLP stage's repair LP's."""
    build = partial(_build, keys, lev, free_t, last, l, r, limit, width=width)
    if stage in GENERATED or stage == "pdlp":
        excess = partial(excesses, keys, cells, lev, free_t, last, l, r, width=width)
        return (first_order_bound(cells, build, excess, check, repair, report, what)
                if stage == "pdlp" else
                generated_bound(cells, build, excess, check, solver, report, what))
    lp = build(cells)
    if lp is None:
        report(f"bounds: no {what} (over its limit of {limit:,} nonzeros)")
        return OVER
    return settle(lp, cells, solver, report, what, check)



def simplex_or_first_order(cells: Cells, build: Callable[..., Program | None],
                           excesses: Callable[[NDArray[np.float64]], Iterator[Excess]],
                           check: Callable[[NDArray[np.float64]], bool], report: Progress,
                           what: str, simplex_limit: int, limit: int,
                           max_nonzeros: int | None = None,
                           max_pdlp_work: float = PDLP_MAX_WORK,
                           repair_work: float | None = None) -> int | None:
    """A charge LP's bound by one rule (the entropy and t-closeness LPs): ``build(limit,
    cells, chosen=None)`` up to ``simplex_limit`` nonzeros goes to HiGHS's dual simplex
    within :data:`MAX_ITERATIONS`; a larger one, up to ``limit``, to PDLP lowered and
    repaired (:func:`.charge_pdlp.first_order_bound`, the repair by Glop within
    ``repair_work`` deterministic seconds, :class:`.charge_lp.Work`'s default when
    ``None``; PDLP within ``max_pdlp_work``). ``max_nonzeros`` replaces both limits.
    ``excesses`` and ``check`` as there; ``None`` when no bound."""
    lp = build(simplex_limit if max_nonzeros is None else max_nonzeros, cells)
    if lp is not None:
        return settle(lp, cells, partial(_highs, MAX_ITERATIONS), report, what, check)
    return first_order_bound(cells, partial(build, limit if max_nonzeros is None
                                            else max_nonzeros),
                             excesses, check,
                             partial(_glop, Work() if repair_work is None else Work(repair_work)),
                             report,
                             f"{what} by PDLP", max_pdlp_work)


_WHAT = {"pdlp": " by PDLP", "full": "", "generated": " by generation",
         "smaller": " (level-1 row types of too few values fixed)",
         "generated-smaller": " by generation (level-1 row types of too few values fixed)"}


def _glop(work: Work, lp: Program, weights: NDArray[np.float64], progress: Progress,
          what: str) -> NDArray[np.float64] | None:
    return solve_glop(lp, weights, work, progress, what)


def _highs(max_iterations: int, lp: Program, weights: NDArray[np.float64],
           progress: Progress, what: str) -> NDArray[np.float64] | None:
    return solve(lp, weights, max_iterations, progress, what)


def _cells(c: IntArray, eligible: NDArray[np.bool_], free_t: NDArray[np.bool_],
           lev: IntArray) -> Cells:
    v, u = np.nonzero(c > 0)
    v, u = v.astype(np.int64), u.astype(np.int64)
    start = np.searchsorted(v, np.arange(len(c) + 1)).astype(np.int64)
    top = np.where(eligible, 0.0, np.where(free_t, lev + 1.0, lev.astype(np.float64)))
    free = free_t[v]
    return Cells(v, u, c[v, u], start, free, np.where(free, -top[v], top[v]), top[v])


def _level_buckets(keys: PatternKeys, cells: Cells, lev: IntArray, free_t: NDArray[np.bool_],
                   last: int, width: IntArray | None = None
                   ) -> Iterator[tuple[int, IntArray, IntArray, int]]:
    """For ``s = 0`` (each row type with free charges alone) and each pattern of ``s = 1 ..
    last`` columns, the buckets holding a free cell of level ``s``: ``s``, their cells, each
    cell's bucket (``0 .. nb - 1``) and ``nb`` (``width``: as :func:`level_buckets`)."""
    own = np.nonzero(free_t)[0].astype(np.int64)
    yield (0, *cells.of(own, np.arange(len(own), dtype=np.int64)), len(own))
    yield from level_buckets(keys, cells, lev, free_t, last, width)


def level_buckets(keys: PatternKeys, cells: Cells, lev: IntArray, free_t: NDArray[np.bool_],
                  last: int, width: IntArray | None = None
                  ) -> Iterator[tuple[int, IntArray, IntArray, int]]:
    """For each pattern of ``s = 1 .. last`` columns, the buckets holding a free cell of level
    ``s``: ``s``, their cells, each cell's bucket (``0 .. nb - 1``) and ``nb``. With
    ``width`` (per row type, :mod:`.l_charge_widening`: the charges of row type ``v`` reach
    ``L(v) + width(v)``) the buckets of ``s`` columns hold a cell of a free row type with
    ``L(v) <= s < L(v) + width(v)``, for ``s`` up to ``m``."""
    top = last if width is None else int(min(keys.m, (lev + width - 1)[free_t].max(initial=0)))
    for s in range(1, top + 1):
        at_s = np.nonzero(free_t & ((lev == s) if width is None else
                                    ((lev <= s) & (lev + width > s))))[0].astype(np.int64)
        if len(at_s) == 0:
            continue
        for mask in masks_of_level(keys.m, s):
            member, bucket, nb = bucket_members(keys, mask, at_s)
            yield (s, *cells.of(member, bucket), nb)


def _pairs(cell_bucket: IntArray, value: IntArray, w: NDArray[np.float64], r: int
           ) -> tuple[IntArray, IntArray, NDArray[np.float64]]:
    """The ``(bucket, value)`` pairs of some cells: each cell's pair, each pair's bucket and
    its largest ``w`` (``W(B, u)`` when ``w`` is the charge less the level)."""
    pair, inv = np.unique(cell_bucket * r + value, return_inverse=True)
    top = np.full(len(pair), -np.inf)
    np.maximum.at(top, inv, w)
    return inv.reshape(-1).astype(np.int64), (pair // r).astype(np.int64), top


def _excess(pb: IntArray, top: NDArray[np.float64], nb: int, l: int) -> NDArray[np.float64]:
    """``(nb,)`` each bucket's ``l`` largest ``W`` summed (``> 0``: it fails); ``-inf`` for
    the buckets holding fewer than ``l`` values (no class lies there)."""
    many = np.bincount(pb, minlength=nb) >= l
    return np.where(many, top_sums(pb, top, np.ones(len(pb), dtype=np.int64), l, nb), -np.inf)


def charge_columns(cells: Cells) -> tuple[Program, IntArray]:
    """A charge LP's start: one column per free charge, within its range (columns ``0 ..
    cells.free.sum() - 1``), and each cell's column (``-1`` for the fixed cells)."""
    lp = Program()
    var = np.full(len(cells.v), -1, dtype=np.int64)
    f = cells.free
    var[f] = lp.columns(int(f.sum()), cells.lo[f], cells.hi[f])
    return lp, var


def _build(keys: PatternKeys, lev: IntArray, free_t: NDArray[np.bool_], last: int, l: int,
           r: int, max_nonzeros: int, cells: Cells, chosen: Chosen | None = None, *,
           width: IntArray | None = None) -> Program | None:
    """The LP over the free charges (columns ``0 .. cells.free.sum() - 1``) and the buckets
    that fail with every charge at its upper end (those ``chosen`` among them, per block of
    :func:`_level_buckets`; ``width`` as there), or ``None`` past ``max_nonzeros``."""
    lp, var = charge_columns(cells)
    for i, (s, cell, cb, nb) in enumerate(_level_buckets(keys, cells, lev, free_t, last,
                                                         width)):
        inv, pb, top = _pairs(cb, cells.u[cell], cells.hi[cell] - s, r)
        need = _excess(pb, top, nb, l) > 0  # the others hold at the charges' upper ends
        if chosen is not None:
            need &= chosen[i]
        if not need.any():
            continue
        top_constraints(lp, var, cells, s, l, cell, cb, inv, pb, need,
                        np.zeros(int(need.sum())))
        if lp.nnz > max_nonzeros:
            return None
    return lp


def top_constraints(lp: Program, var: IntArray, cells: Cells, s: int, l: int, cell: IntArray,
                    cb: IntArray, inv: IntArray, pb: IntArray, need: NDArray[np.bool_],
                    rhs: NDArray[np.float64]) -> tuple[IntArray, IntArray]:
    """Add to ``lp``: in every ``need``-ed bucket of ``s`` stars, the ``l`` largest ``W(B, u)``
    sum to at most ``rhs`` (one per needed bucket), by LP duality: ``l lambda_B + sum_u
    mu_(B, u) <= rhs`` and ``a - lambda_B - mu_(B, u) <= s`` for each free cell (``var`` its
    column), ``fixed - s - lambda_B - mu_(B, u) <= 0`` with each ``(B, u)``'s largest fixed
    charge. ``cell``/``cb``: the cells and their buckets, ``inv``/``pb``: each cell's
    ``(bucket, value)`` pair and each pair's bucket (:func:`_pairs`). Returns the rows of
    the ``<= rhs`` constraints and the needed buckets' numbers among them (``-1`` for the
    others), for callers that add terms there."""
    renum = np.cumsum(need) - 1
    lam = lp.columns(int(need.sum()), -np.inf, np.inf)
    head = lp.constraints(rhs)                                  # l lambda + sum mu <= rhs
    lp.entries(head, lam, float(l))
    kept = need[pb]
    mu = np.full(len(pb), -1, dtype=np.int64)
    mu[kept] = lp.columns(int(kept.sum()), 0.0, np.inf)
    lp.entries(head[renum[pb[kept]]], mu[kept], 1.0)
    cell_rows(lp, var, cells, s, cell, cb, inv, pb, need, lam, mu)
    return head, np.where(need, renum, -1)


def cell_rows(lp: Program, var: IntArray, cells: Cells, s: int, cell: IntArray, cb: IntArray,
              inv: IntArray, pb: IntArray, need: NDArray[np.bool_], lam: IntArray,
              mu: IntArray) -> None:
    """Add to ``lp`` the rows that make ``lambda_B + mu_(B, u)`` at least every ``a - s`` of
    the ``need``-ed buckets' cells: ``a - lambda_B - mu_(B, u) <= s`` for each free cell
    (``var`` its column), ``fixed - s - lambda_B - mu_(B, u) <= 0`` with each ``(B, u)``'s
    largest fixed charge. ``lam``: the needed buckets' ``lambda`` columns (in their order),
    ``mu``: each ``(bucket, value)`` pair's column; the rest as :func:`top_constraints`."""
    renum = np.cumsum(need) - 1
    inside = need[cb]
    own = inside & cells.free[cell]
    row = lp.constraints(np.full(int(own.sum()), float(s)))    # a - lambda - mu <= s
    lp.entries(row, var[cell[own]], 1.0)
    lp.entries(row, lam[renum[cb[own]]], -1.0)
    lp.entries(row, mu[inv[own]], -1.0)
    fixed = inside & ~cells.free[cell]
    most = np.full(len(pb), -np.inf)
    np.maximum.at(most, inv[fixed], cells.hi[cell[fixed]])
    pg = np.nonzero(np.isfinite(most))[0]
    row = lp.constraints(s - most[pg])                         # fixed - s - lambda - mu <= 0
    lp.entries(row, lam[renum[pb[pg]]], -1.0)
    lp.entries(row, mu[pg], -1.0)


def excesses(keys: PatternKeys, cells: Cells, lev: IntArray, free_t: NDArray[np.bool_],
             last: int, l: int, r: int, charge: NDArray[np.float64], *,
             width: IntArray | None = None) -> Iterator[Excess]:
    """Every block of buckets that can fail (the module docstring; one per pattern, as in
    :func:`_level_buckets`, ``width`` as there) under ``charge`` (one per cell): its cells,
    their buckets and each bucket's ``l`` largest ``W(B, u)`` summed."""
    for s, cell, cb, nb in _level_buckets(keys, cells, lev, free_t, last, width):
        _, pb, top = _pairs(cb, cells.u[cell], charge[cell] - s, r)
        yield cell, cb, _excess(pb, top, nb, l)


def satisfied(keys: PatternKeys, cells: Cells, lev: IntArray, free_t: NDArray[np.bool_],
              last: int, l: int, r: int, charge: NDArray[np.float64], *,
              width: IntArray | None = None) -> bool:
    """Whether every bucket that can fail (the module docstring; with ``width``, those of
    :func:`level_buckets` for it) has its ``l`` largest ``W(B, u)`` summing to at most 0 under
    ``charge`` (one per cell) -- the claim's condition, checked from scratch."""
    return all(not (x > 0).any() for _, _, x in excesses(keys, cells, lev, free_t, last, l, r,
                                                         charge, width=width))
