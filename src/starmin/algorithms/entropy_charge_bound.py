"""The charge LP bound for entropy l-diversity: frequency l's buckets and distinct (l + 1)'s.

Guarantee: **bound** -- the value returned is <= the optimum of an entropy l-diverse release
(proof below; tests compare it with brute force).

Until stop 40 entropy l-diversity's charge bound was the distinct one (:mod:`.
distinct_charge_bound` with ``q = l``: a class with entropy ``>= log l`` holds ``>= l``
values). Entropy asks more. A class holding exactly ``l`` values has entropy at most ``log
l``, with equality only when it holds them equally often: so an entropy l-diverse class
either holds exactly ``l`` values, each on ``|C| / l`` rows -- a frequency l-diverse class
(Xiao et al. Definition 2) -- or holds ``>= l + 1`` values.

Setting as :mod:`.l_charge_bound`: cells ``(v, u)`` with ``c(v, u) > 0`` rows, charges
``a(v, u)``. The row types that are entropy l-diverse on their own (the model's exact
judgment) are charged 0; every other one has the level ``L(v) >= 1`` of
:func:`.diversity_levels.levels` for ``q = l`` (the fewest stars of a group containing ``v``
that holds ``l`` values) and charges free in ``[-(L + 1), L + 1]`` when ``L <= last``,
else fixed at ``L``.

**Claim.** For a bucket ``B`` of a star set of ``s`` columns let ``e = a - s`` per cell,
``W(B, u)`` the largest ``e`` among its cells of value ``u`` and ``P(B) = sum c max(e, 0)``.
If every bucket holding ``>= l`` values has its ``l`` largest ``W`` summing to at most 0, and
every bucket holding ``>= l + 1`` values has ``P(B)`` plus its ``l + 1`` largest ``W`` at
most 0, then ``OPT >= sum c a``.

*Proof.* Take a class ``C`` of an entropy l-diverse release, with star set ``S`` of ``s``
columns, in the bucket ``B`` of ``S``. If ``C`` holds exactly ``l`` values it is frequency
l-diverse (above), and the proof of :mod:`.l_charge_bound` gives ``sum_C (a - s) <= (|C| /
l) x`` (the ``l`` largest ``W``) ``<= 0``. Otherwise it holds ``>= l + 1`` values and the
proof of :mod:`.distinct_charge_bound` for ``q = l + 1`` gives ``sum_C (a - s) <= P(B) +``
(the ``l + 1`` largest ``W``) ``<= 0``. Either way the class's ``|C| s`` stars pay its rows'
charges; sum over the classes. ∎ As in those modules only the buckets of ``s = 0`` (a free
row type alone) and of ``s = L(v)`` for a free cell can fail (below ``L`` a bucket holds
fewer than ``l`` values, above it every charge is at most ``s``, so ``P = 0`` and ``W <= 0``).

Every LP that the distinct LP for ``q = l`` satisfies is satisfied here (its condition
implies both: ``P >= 0``, and when the ``(l + 1)``-th largest ``W`` is positive the ``l``
largest already sum above ``-P``), so this bound is at least that one's LP optimum.

Solved as the other charge LPs (:mod:`.charge_lp`): up to :data:`SIMPLEX_MAX_NONZEROS` by
HiGHS's dual simplex within :data:`.l_charge_bound.MAX_ITERATIONS`, beyond by PDLP, lowered
and repaired (:mod:`.charge_pdlp`, within its work limit and :data:`MAX_NONZEROS`); the
answer is checked from scratch on the grid-rounded charges (every constrained bucket's two
sums) and a failing check gives no bound.

Measured (ARX adult, 8 QIs, occupation; 2026-11-27 23:08 UTC, two threads): l = 2 / 3 / 4 /
5 12,581 / 18,451 / 22,929 / 26,742 against the distinct LP's 11,619 / 17,332 / 21,477 /
25,205 (+8.3 / +6.5 / +6.8 / +6.1 %), in 2.3 / 4.1 / 5.2 / 6.4 CPU s (1.8-4.6 s wall); the
first 2,000 rows, l = 2 / 3: 1,866 / 2,572 against 1,767 / 2,445. On 179 small random tables
(brute force, l = 2 and 3) never above the optimum and above the distinct LP on 147.
``bench/entropy_charges.py`` measures it against the distinct LP (docs/algorithms/lower-bounds.md).

References: Machanavajjhala et al., TKDD 2007, Sec. 4 (entropy l-diversity); X. Xiao, K. Yi
and Y. Tao, EDBT 2010, Definition 2 (frequency l-diversity).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.charge_generation import Chosen, Excess
from starmin.algorithms.charge_lp import Cells, Program
from starmin.algorithms.charge_pdlp import MAX_WORK as PDLP_MAX_WORK
from starmin.algorithms.distinct_charge_bound import distinct_constraints, distinct_excess
from starmin.algorithms.diversity_levels import levels
from starmin.algorithms.heuristic.pattern_keys import IntArray, PatternKeys
from starmin.algorithms.l_charge_bound import (
    _cells,
    _excess,
    _level_buckets,
    _pairs,
    charge_columns,
    simplex_or_first_order,
    top_constraints,
)

SIMPLEX_MAX_NONZEROS = 60_000
"""Up to this many nonzeros the LP goes to HiGHS's dual simplex (as the frequency LP's)."""
MAX_NONZEROS = 1_500_000
"""The LP is not built beyond this many nonzeros (adult, 8 QIs, occupation: 859,000 /
1,147,000 / 1,419,000 for l = 3 / 4 / 5; PDLP within its work limit: at 1.6 million, a
uniform random table of 8,000 rows, 10 QIs of 3 values, l = 4, stopped PDLP after 368
iterations and spent 14 CPU s on it and its two repairs (the second, from a lower point,
often gives the bound when the first stops: 5,000 x 7 x 5 and 6,000 x 5 x 8, l = 4)."""


def entropy_charge_bound(codes: NDArray[np.integer], histogram: NDArray[np.integer], l: int,
                         last: int, progress: Progress | None = None, *,
                         max_nonzeros: int | None = None,
                         max_pdlp_work: float = PDLP_MAX_WORK) -> int | None:
    """The charge LP bound (module docstring) on the fewest stars of an entropy l-diverse
    release for the ``(t_in, r)`` ``histogram`` of one sensitive column, or ``None``
    (nothing to charge, over the work limits, or the check failed). ``last``: the highest
    level :func:`.diversity_levels.levels` enumerates in full
    (:func:`.diversity_levels.last_level`); ``max_nonzeros`` replaces both nonzero
    limits."""
    from starmin.models import EntropyLDiversity

    report = progress or silent
    c = np.asarray(histogram, dtype=np.int64)
    l = int(l)
    t_in, r = c.shape
    if l < 2 or t_in == 0 or last < 1:
        return None
    alone = EntropyLDiversity(l).evaluate(c, c.sum(axis=0), list(range(r))).ok
    lev = levels(codes, c, l, ~alone)
    free_t = ~alone & (lev <= last)
    if not free_t.any():
        return None
    keys = PatternKeys(np.asarray(codes))
    cells = _cells(c, alone, free_t, lev)
    build = partial(_build, keys, lev, free_t, last, l, r)
    check = partial(satisfied, keys, cells, lev, free_t, last, l, r)
    return simplex_or_first_order(cells, build,
                                  partial(excesses, keys, cells, lev, free_t, last, l, r),
                                  check, report, "entropy charge LP", SIMPLEX_MAX_NONZEROS,
                                  MAX_NONZEROS, max_nonzeros, max_pdlp_work)


def _build(keys: PatternKeys, lev: IntArray, free_t: NDArray[np.bool_], last: int, l: int,
           r: int, max_nonzeros: int, cells: Cells, chosen: Chosen | None = None
           ) -> Program | None:
    """The LP over the free charges and, per block of buckets (:func:`.l_charge_bound.
    _level_buckets`), the buckets that fail either condition with every charge at its upper
    end, or ``None`` past ``max_nonzeros`` (``chosen`` is not used: no generation stage)."""
    lp, var = charge_columns(cells)
    for s, cell, cb, nb in _level_buckets(keys, cells, lev, free_t, last):
        e_hi = cells.hi[cell] - s
        inv, pb, top = _pairs(cb, cells.u[cell], e_hi, r)
        need = _excess(pb, top, nb, l) > 0  # frequency l: the l largest W
        if need.any():
            top_constraints(lp, var, cells, s, l, cell, cb, inv, pb, need,
                            np.zeros(int(need.sum())))
        need = distinct_excess(cb, cells.n[cell], e_hi, pb, top, nb, l + 1) > 0
        if need.any():  # l + 1 values: P(B) and the l + 1 largest W
            distinct_constraints(lp, var, cells, s, l + 1, cell, cb, inv, pb, need)
        if lp.nnz > max_nonzeros:
            return None
    return lp


def excesses(keys: PatternKeys, cells: Cells, lev: IntArray, free_t: NDArray[np.bool_],
             last: int, l: int, r: int, charge: NDArray[np.float64]) -> Iterator[Excess]:
    """Every block of buckets that can fail under ``charge`` (one per cell): its cells, their
    buckets and each bucket's larger excess of the two conditions (``> 0``: it fails)."""
    for s, cell, cb, nb in _level_buckets(keys, cells, lev, free_t, last):
        e = charge[cell] - s
        _, pb, top = _pairs(cb, cells.u[cell], e, r)
        yield cell, cb, np.maximum(_excess(pb, top, nb, l),
                                   distinct_excess(cb, cells.n[cell], e, pb, top, nb, l + 1))


def satisfied(keys: PatternKeys, cells: Cells, lev: IntArray, free_t: NDArray[np.bool_],
              last: int, l: int, r: int, charge: NDArray[np.float64]) -> bool:
    """Whether every bucket that can fail satisfies both conditions under ``charge`` -- the
    claim's condition, checked from scratch."""
    return all(not (x > 0).any()
               for _, _, x in excesses(keys, cells, lev, free_t, last, l, r, charge))
