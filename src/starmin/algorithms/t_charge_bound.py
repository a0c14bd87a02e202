"""The charge LP bound for t-closeness (every distance, through the variational distance a
t-close class is within): the fewest stars, bounded by one LP over the cells' charges.

Guarantee: **bound** -- the value returned is <= the optimum of a t-close release (proof
below; tests compare it with brute force).

Setting as the diversity charge LPs (:mod:`.l_charge_bound`): one sensitive column's
histogram ``c(v, u)``, a *cell* ``(v, u)`` with ``c(v, u) > 0`` rows, a charge ``a(v, u)``
per cell. ``Q`` is the table's distribution of the sensitive values and ``tau`` the largest
variational distance a class may have from it: ``t`` under the equal distance (Liang & Yuan
Fact 1: the EMD is then the variational distance), ``t / d_min`` under any other ground
distance (every unit of mass moved travels at least the least positive distance ``d_min``,
so a t-close class is within ``t / d_min``: ``t H`` for a hierarchy of height ``H``, ``t (m
- 1)`` for ``m`` ordered values; the caller's ``extra``). The row types of the pattern
bound's ``need = 0`` (every row can stay without a star, :mod:`.t_closeness_bound`) are
charged 0; every other row type has the pattern bound's level ``L(v) >= 1``: the fewest
starred columns whose bucket around ``v`` can hold a t-close class (of at least the class
size the model implies, ``k``, and the fewest rows any t-close class of integer counts
holds). Its charges are free in ``[-(L + 1), L + 1]`` when the enumeration reached ``L``
(``L <= last``), else fixed at ``L``.

**Claim.** For a bucket ``B`` of a star set of ``s`` columns that can hold such a class let
``W(B, u)`` be the largest ``a - s`` over its cells of value ``u``, and ``T(B)`` the largest
``sum_u y_u W(B, u)`` over the distributions ``y`` on the values ``B`` holds with
variational distance at most ``tau`` from ``Q``. If ``T(B) <= 0`` in every such bucket, then
``OPT >= sum c(v, u) a(v, u)``.

*Proof.* A class ``C`` of a t-close release with star set ``S`` (``s`` columns) lies in a
bucket ``B`` of ``S`` that can hold it. With ``x_u`` its rows of value ``u``, ``sum_C (a - s)
<= sum_u x_u W(B, u) = |C| sum_u y_u W(B, u)`` with ``y = x / |C|``, a distribution on ``B``'s
values within ``tau`` of ``Q`` (the class is t-close), so ``<= |C| T(B) <= 0``: the class's
``|C| s`` stars pay its rows' charges. Sum over the classes. ∎ It is the dual of the LP core's
relaxation for the same distance (Liang & Yuan Thm 9, the class's value counts within
``tau`` of ``Q``) with the charges in these boxes.

Only these buckets can fail (as in :mod:`.l_charge_bound`): at ``s = 0`` a row type's own
bucket where it can hold a class, and at ``s = 1 .. last`` the buckets holding a free cell of
level ``s`` that can hold a class (a bucket of ``s < L(v)`` stars around ``v`` cannot, and in
every other bucket each charge is at most ``s``, so ``T(B) <= 0``).

``T(B)`` in closed form: the mass above ``Q`` is at most ``tau`` in all, and it is best spent
on the value ``u*`` of the largest ``W``: ``y(u*) = min(1, Q(u*) + tau)``, the rest filled
from the other values, largest ``W`` first, each up to its ``Q(u)`` (a distribution exists
iff the values ``B`` lacks weigh at most ``tau``). The check computes this from scratch.

**Linear by LP duality.** ``T(B) = max sum_u W_u y_u`` subject to ``sum_u y_u = 1``
(multiplier ``lambda_B``, free), ``y_u - z_u <= Q(u)`` (``sigma_(B, u) >= 0``), ``sum_u z_u
<= tau`` (``theta_B >= 0``), ``y, z >= 0``. Its dual: ``T(B) <= 0`` iff some ``lambda_B +
sum_u Q(u) sigma_(B, u) + tau theta_B <= 0`` with ``sigma_(B, u) <= theta_B`` and ``a(v, u)
- s - lambda_B - sigma_(B, u) <= 0`` for every cell of ``B`` (the fixed cells of one ``(B, u)``
one row with their largest charge).

Solved as the diversity charge LPs (:mod:`.charge_lp`): up to :data:`SIMPLEX_MAX_NONZEROS`
by HiGHS's dual simplex within :data:`.l_charge_bound.MAX_ITERATIONS`, beyond by PDLP, lowered
and repaired (:mod:`.charge_pdlp`, within its work limit), up to :data:`MAX_NONZEROS`
(:data:`LARGE_MAX_NONZEROS` with ``large``, for ``starmin info``); the
answer is checked from scratch on the grid-rounded charges (every bucket's ``T(B) <= 0``,
exactly: the masses in whole rows of the table, ``tau N`` rounded up, which only loosens the
claim) and a failing check gives no bound. Work limits only, never a clock.

Measured (ARX adult, 8 QIs, occupation, t = 0.2; 2026-11-28): the first 300 / 1,000 / 2,000
rows 998 / 2,728 / 4,906 against the best other t bound's 931 / 2,435 / 4,362 (+7 / +12 /
+12 %; the LP core's optimum on the 300 rows is 1,008), in 0.2 / 1.4 / 2.4 CPU s. The whole
table's LP has 1.5 million nonzeros: its optimum is 50,864 against 46,423 (HiGHS's interior
point, 141 s). With ``large`` (``starmin info --t``, stop 53) the equal distance's LP is
built up to :data:`LARGE_MAX_NONZEROS`, PDLP runs about 1,050 iterations there, and the repair
gives 50,235 (20-26 CPU s more on this machine). Reports keep :data:`MAX_NONZEROS`: at the
larger limit adult's t runs took 22-41 s wall instead of 10-20, and t = 0.2 on adult
repeated to 1M rows 50 s instead of 14 (issue 8's time targets).

References: H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related
Problems", Fact 1 (the equal distance's EMD is the variational distance) and Thm 9 (t-closeness
as linear constraints on a class's value counts); N. Li, T. Li and S. Venkatasubramanian,
ICDE 2007 (t-closeness).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import partial

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.bounds import top_sums
from starmin.algorithms.charge_generation import Chosen, Excess
from starmin.algorithms.charge_lp import Cells, Program
from starmin.algorithms.heuristic.pattern_keys import IntArray, PatternKeys
from starmin.algorithms.l_charge_bound import (
    _cells,
    cell_rows,
    charge_columns,
    level_buckets,
    simplex_or_first_order,
)
from starmin.algorithms.l_charge_bound import _pairs as l_pairs

SIMPLEX_MAX_NONZEROS = 60_000
"""Up to this many nonzeros the LP goes to HiGHS's dual simplex (as the frequency LP's)."""
MAX_NONZEROS = 400_000
"""The LP is not built beyond this many nonzeros (PDLP beyond :data:`SIMPLEX_MAX_NONZEROS`):
ARX adult's first 2,000 rows at t = 0.2 need about 130,000 (2.4 CPU s in all); the whole
table 1.0-1.6 million (the reports' bound leaves it out: time)."""
LARGE_MAX_NONZEROS = 1_600_000
"""The limit with ``large`` (``starmin info --t``), under the equal distance only, where the LP
is exact (the dual of Thm 9's relaxation with the charges in boxes): adult's whole table (t
= 0.5 / 0.3 / 0.2 / 0.1: 1.01 / 1.44 / 1.52 / 1.57 million nonzeros) gives 26,088 / 38,888 /
50,235 / 63,229 against the other bounds' 25,428 / 36,089 / 46,423 / 56,213 (+2.6 to +12.5
%), for 20-26 CPU s more on this machine (stop 53). Under ARX's occupation hierarchy, a
relaxation there, the whole table's LP gave t = 0.15 40,419 against 38,610 for 21 s more,
and nothing at t = 0.2 and 0.3."""
PDLP_WORK = 1.6e9
"""PDLP's work limit with ``large`` (iterations x nonzeros,
:func:`.charge_pdlp.first_order_bound`): about 1,050 iterations on adult's 1.5 million
nonzeros, after which the repair gives a bound (t = 0.2: 50,235, the LP's optimum 50,864),
where 6e8 (the diversity LPs' limit, 395 iterations) gave none. Smaller LPs mostly stop
earlier, within PDLP's accuracy."""
REPAIR_WORK = 8.0
"""Glop's deterministic seconds for the repair of PDLP's answer with ``large``
(:class:`.charge_lp.Work`; the diversity LPs' 3): adult's t = 0.1 repair (342,000 nonzeros,
36,000 iterations) needs about 7, and at 3 stopped with no bound."""

Holds = Callable[[IntArray], NDArray[np.bool_]]
"""``holds(counts)``: for ``(nb, r)`` value counts of buckets, whether each can hold a class
(a t-close sub-multiset of at least the class size)."""


def t_charge_bound(keys: PatternKeys, histogram: IntArray, o: IntArray, extra: int,
                   lev: IntArray, last: int, need: IntArray, own: NDArray[np.bool_],
                   holds: Holds, progress: Progress | None = None, *,
                   max_nonzeros: int | None = None, large: bool = False) -> int | None:
    """The charge LP bound (module docstring) for one sensitive column, or ``None`` (nothing
    to charge, over the work limits, or the check failed). ``histogram``/``o``: the row
    types' and the table's counts over the values the table holds; ``extra``: ``tau`` in
    rows of the table, rounded up (``ceil(tau N)``, :func:`extra_rows`); ``lev``: the
    pattern bound's levels (of the row types with ``need > 0`` rows that must carry a
    star), ``last`` the highest level it enumerated in full; ``own``: whether a row type's
    own rows can hold a class; ``holds``: :data:`Holds`. ``large`` (the caller passes it
    under the equal distance only, where the LP is exact): built up to
    :data:`LARGE_MAX_NONZEROS`, PDLP and its repair within :data:`PDLP_WORK` and
    :data:`REPAIR_WORK`. ``max_nonzeros`` replaces both nonzero limits."""
    report = progress or silent
    c = np.asarray(histogram, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    if c.shape[1] < 2 or extra >= int(o.sum()) or last < 1:
        return None
    alone = np.asarray(need) == 0
    free_t = ~alone & (lev <= last)
    if not free_t.any():
        return None
    cells = _cells(c, alone, free_t, np.asarray(lev, dtype=np.int64))
    blocks = partial(_blocks, keys, cells, lev, free_t, last, own, holds, c.shape[1])
    build = partial(_build, blocks, o, extra)
    check = partial(satisfied, blocks, cells, o, extra)
    return simplex_or_first_order(cells, build, partial(excesses, blocks, cells, o, extra),
                                  check, report, "t charge LP", SIMPLEX_MAX_NONZEROS,
                                  LARGE_MAX_NONZEROS if large else MAX_NONZEROS, max_nonzeros,
                                  *((PDLP_WORK, REPAIR_WORK) if large else ()))


Block = tuple[int, IntArray, IntArray, int]
"""``(s, cells, each cell's bucket 0 .. nb - 1, nb)``: buckets of ``s`` stars that can hold
a class."""


def _blocks(keys: PatternKeys, cells: Cells, lev: IntArray, free_t: NDArray[np.bool_],
            last: int, own: NDArray[np.bool_], holds: Holds, r: int) -> Iterator[Block]:
    """The buckets that can fail (module docstring), block by block: the own buckets of the
    free row types that can hold a class alone, then per pattern of ``s = 1 .. last``
    columns those holding a free cell of level ``s`` that can hold a class."""
    alone = np.nonzero(free_t & own)[0].astype(np.int64)
    if len(alone):
        yield (0, *cells.of(alone, np.arange(len(alone), dtype=np.int64)), len(alone))
    for s, cell, cb, nb in level_buckets(keys, cells, lev, free_t, last):
        counts = np.bincount(cb * r + cells.u[cell], weights=cells.n[cell],
                             minlength=nb * r).reshape(nb, r).astype(np.int64)
        ok = holds(counts)
        if not ok.any():
            continue
        keep = ok[cb]
        renum = np.cumsum(ok) - 1
        yield s, cell[keep], renum[cb[keep]].astype(np.int64), int(ok.sum())


def _pairs(cb: IntArray, value: IntArray, e: NDArray[np.float64], r: int
           ) -> tuple[IntArray, IntArray, IntArray, NDArray[np.float64]]:
    """:func:`.l_charge_bound._pairs` (each cell's ``(bucket, value)`` pair, each pair's
    bucket and its largest ``e``, ``W(B, u)``) with each pair's value."""
    inv, pb, top = l_pairs(cb, value, e, r)
    pu = np.empty(len(pb), dtype=np.int64)
    pu[inv] = value
    return inv, pb, pu, top


def largest_value(pb: IntArray, pu: IntArray, w: NDArray[np.float64], nb: int, o: IntArray,
                  extra: int) -> NDArray[np.float64]:
    """``(nb,)`` ``N T(B)``: ``N`` times the largest ``sum_u y_u W(B, u)`` over the
    distributions ``y`` on each bucket's values within variational distance ``extra / N`` of
    the table's ``o / N`` (module docstring: the largest ``W`` gets ``min(N, o + extra)``
    rows, the others up to ``o`` each, largest first, ``N`` rows in all); ``-inf`` where no
    such distribution exists. ``pb``/``pu``/``w``: each ``(bucket, value)`` pair's bucket,
    value and ``W``. Exact in float64 for charges on the check's grid: the masses are whole
    rows (integers), each product ``W x rows`` and each bucket's sum stay below ``2^53``
    units of ``2^-20``."""
    N = int(o.sum())
    order = np.lexsort((-w, pb))
    first = np.ones(len(order), dtype=bool)
    first[1:] = pb[order][1:] != pb[order][:-1]
    mass = o[pu].astype(np.int64)
    best = order[first]
    mass[best] = np.minimum(N, mass[best] + extra)
    total = np.bincount(pb, weights=mass, minlength=nb)
    filled = top_sums(pb, w, mass, N, nb)  # the first N rows of mass, largest W first
    return np.where(total >= N, filled, -np.inf)


def _build(blocks: Callable[[], Iterator[Block]], o: IntArray, extra: int,
           max_nonzeros: int, cells: Cells, chosen: Chosen | None = None) -> Program | None:
    """The LP over the free charges and the buckets that fail with every charge at its upper
    end (those ``chosen`` among them, per block), or ``None`` past ``max_nonzeros``."""
    lp, var = charge_columns(cells)
    q = o / float(o.sum())
    tau = extra / float(o.sum())
    for i, (s, cell, cb, nb) in enumerate(blocks()):
        inv, pb, pu, w = _pairs(cb, cells.u[cell], cells.hi[cell] - s, len(o))
        need = largest_value(pb, pu, w, nb, o, extra) > 0
        if chosen is not None:
            need &= chosen[i]
        if not need.any():
            continue
        renum = np.cumsum(need) - 1
        count = int(need.sum())
        lam = lp.columns(count, -np.inf, np.inf)
        theta = lp.columns(count, 0.0, np.inf)
        head = lp.constraints(np.zeros(count))      # lambda + sum Q sigma + tau theta <= 0
        lp.entries(head, lam, 1.0)
        lp.entries(head, theta, float(tau))
        kept = need[pb]
        sigma = np.full(len(pb), -1, dtype=np.int64)
        sigma[kept] = lp.columns(int(kept.sum()), 0.0, np.inf)
        lp.entries(head[renum[pb[kept]]], sigma[kept], q[pu[kept]])
        row = lp.constraints(np.zeros(int(kept.sum())))  # sigma - theta <= 0
        lp.entries(row, sigma[kept], 1.0)
        lp.entries(row, theta[renum[pb[kept]]], -1.0)
        cell_rows(lp, var, cells, s, cell, cb, inv, pb, need, lam, sigma)  # a - s <= l + sigma
        if lp.nnz > max_nonzeros:
            return None
    return lp


def excesses(blocks: Callable[[], Iterator[Block]], cells: Cells, o: IntArray, extra: int,
              charge: NDArray[np.float64]) -> Iterator[Excess]:
    """Every block of buckets that can fail under ``charge`` (one per cell): its cells, their
    buckets and each bucket's ``N T(B)`` (``> 0``: it fails)."""
    for s, cell, cb, nb in blocks():
        _, pb, pu, w = _pairs(cb, cells.u[cell], charge[cell] - s, len(o))
        yield cell, cb, largest_value(pb, pu, w, nb, o, extra)


def satisfied(blocks: Callable[[], Iterator[Block]], cells: Cells, o: IntArray, extra: int,
              charge: NDArray[np.float64]) -> bool:
    """Whether every bucket that can fail has ``T(B) <= 0`` under ``charge`` -- the claim's
    condition, checked from scratch (exactly, :func:`largest_value`)."""
    return all(not (x > 0).any() for _, _, x in excesses(blocks, cells, o, extra, charge))


def extra_rows(tau: Fraction | float, n: int) -> int:
    """``ceil(tau n)``: the mass a class may move, in rows of the table, rounded up (a
    larger ``tau`` only loosens the claim). Exact for a :class:`~fractions.Fraction` (the
    equal distance's ``t``); a float (``t / d_min`` under a matrix) is first raised by a
    relative ``1e-12`` against its round-off."""
    if isinstance(tau, Fraction):
        return math.ceil(tau * n)
    return math.ceil(tau * n * (1 + 1e-12))
