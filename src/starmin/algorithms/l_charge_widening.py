"""Widening the frequency charge LP's boxes where its charges reach them.

Guarantee: **bound** -- the value returned is <= the optimum of the frequency l-diverse
release (the claim of :mod:`.l_charge_bound` holds for any upper ends, checked from scratch).

:mod:`.l_charge_bound` keeps each free charge within ``[-(L(v) + 1), L(v) + 1]``, so only the
buckets of ``s = L(v)`` stars hold a cell that can fail. That box is a restriction of the LP
core's frequency relaxation (Liang & Yuan Thm 9, whose dual has no box), and it is the
restriction that costs: on the first 2,000 rows of ARX adult (8 QIs, occupation, l = 3) the
full charge LP gives 2,615 with upper ends ``L + 1``, 2,666 with ``L + 2`` and 2,672 with
``L + 3`` for every row type, against the LP core's optimum 2,678 (measured 2026-11-27 with
HiGHS's dual simplex; ``L + 2`` for all made the LP 6.5x larger).

**Claim.** With the upper end of row type ``v`` at ``L(v) + w(v)`` (``w >= 1``), the claim
of :mod:`.l_charge_bound` holds when every bucket of ``s`` stars holding a cell of a row type
with ``L(v) <= s < L(v) + w(v)`` satisfies it. *Proof.* That claim needs the condition in
every bucket holding ``>= l`` values. A bucket of ``s < L(v)`` stars holding ``v`` holds
fewer than ``l`` values (the levels' definition), and in a bucket of ``s >= L(v) + w(v)``
stars every charge of ``v`` is at most ``s``: a bucket where no charge exceeds ``s`` has every
``W(B, u) <= 0``. So only the listed buckets can fail. ∎

**Steps.** Widening every row type multiplies the LP (and PDLP's time with it); only the
row types whose charges reach their upper end gain from it, and on many tables nothing does.
So, from charges that passed the check (a stage of :mod:`.l_charge_bound`):

1. The row types with a free charge within :data:`AT_END` of its upper end get ``w + 1``.
2. *The restricted LP* frees their charges only, the others fixed at their values (which keep
   the condition, as in the repair of :mod:`.charge_generation`), over the buckets that can
   fail with the freed charges at their new upper ends -- a small LP, solved by Glop within
   :data:`RESTRICTED_WORK` deterministic seconds. Its answer is lowered onto the grid and
   checked from scratch on all charges; the previous charges are feasible for it, so it never
   lowers the bound.
3. *The widened LP*: every free charge again, with the new upper ends, by the dual simplex
   when it fits :data:`.l_charge_bound.FULL_MAX_NONZEROS` nonzeros; a larger one by PDLP
   within :data:`MAX_NONZEROS`, but only when the restricted LP raised the bound by at least
   :data:`GAIN` (PDLP's widened LPs cost up to 4 s and, on the uniform random tables below,
   gave 0-0.4 %). Checked as before; then step 1 and this step again, at most :data:`ROUNDS`
   widened LPs, while each raises the bound.

Every LP is within a deterministic work limit (never a clock); an LP that stops, or an answer
that fails the check, ends the steps with the bound before it.

Measured (``bench/charge_widening.py``, 2026-11-27; the whole table in
``docs/algorithms/lower-bounds.md``): on the first 2,000 rows of adult, l = 3 / 5, 2,615 /
3,635 -> 2,670 / 4,030 (+2.1 / +10.9 %, MEASURED); on the uniform random tables of
``bench/auto_budget.py --shapes`` the widened LPs had raised the bound by 0-0.4 % for up to
3.9 s more, which the restricted LP's gain (at most 0.05 % there) now declines. On the whole
of adult the first widened LP is over its nonzero limit (1.14 million for l = 3; PDLP
without that limit gave 20,349 in 11 s wall).

"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress
from starmin.algorithms.charge_lp import Cells
from starmin.algorithms.heuristic.pattern_keys import IntArray

ROUNDS = 2
"""Widening rounds at most (module docstring)."""
MAX_NONZEROS = 400_000
"""A widened LP is not built beyond this many nonzeros (ARX adult, l = 3: the first round's
LP needs 1.14 million, and PDLP took 11 s of wall clock for it)."""
AT_END = 1e-3
"""A free charge within this much of its upper end counts as reaching it."""
GAIN = 0.005
"""The restricted LP's relative gain that starts the widened LPs (module docstring)."""
RESTRICTED_WORK = 1.0
"""Glop's deterministic time for the restricted LP."""


Check = Callable[[NDArray[np.float64]], bool]
"""``check(charge)``: the claim's condition on every bucket that can fail, from scratch."""
Resolve = Callable[[Cells, IntArray, Check], int | None]
"""``resolve(cells, width, check)``: an LP over ``cells``' free charges (their upper ends
``L + width``) and the buckets of ``width`` that can fail, settled with ``check``; ``None``
when it stops, is over its limit or its answer fails."""
Widen = Callable[[Cells, IntArray, Check, bool], int | None]
"""``widened(cells, width, check, large)``: as :data:`Resolve`, PDLP's large LPs allowed or
not (step 3)."""
Checker = Callable[[IntArray], Check]
"""``checker(width)``: the check for the row types' upper ends ``L + width``."""


def widened_bound(cells: Cells, charge: NDArray[np.float64], bound: int, lev: IntArray,
                  free_t: NDArray[np.bool_], m: int, restricted: Resolve, widened: Widen,
                  checker: Checker, report: Progress, what: str, *,
                  rounds: int = ROUNDS) -> int:
    """The bound after the steps of the module docstring from ``charge`` (one per cell of
    ``cells``, checked with every upper end at ``L + 1``, giving ``bound``): at least
    ``bound``. ``lev``/``free_t``: the row types' levels and which have free charges; ``m``
    the QI columns (no upper end beyond ``m`` stars); ``restricted`` and ``widened`` solve
    the LPs of steps 2 and 3."""
    f = cells.free
    width = np.ones(len(lev), dtype=np.int64)
    start = bound

    def grown(charge: NDArray[np.float64]) -> NDArray[np.bool_]:
        at_end = np.zeros(len(lev), dtype=bool)
        np.logical_or.at(at_end, cells.v[f], charge[f] >= (lev + width)[cells.v[f]] - AT_END)
        return at_end & free_t & (lev + width < m)

    def settled(lp: Resolve, on: Cells, label: str) -> tuple[int, NDArray[np.float64]] | None:
        passed: list[NDArray[np.float64]] = []
        check = checker(width.copy())

        def recorded(a: NDArray[np.float64]) -> bool:
            ok = check(a)
            if ok:
                passed.append(a)
            return ok

        after = lp(on, width.copy(), recorded)
        if after is None or not passed:
            report(f"bounds: {what}: {label} gave nothing; {bound:,} stands")
            return None
        report(f"bounds: {what}: {label}: {after:,} (was {bound:,})")
        return after, passed[-1]

    grow = grown(charge)
    if not grow.any():
        return bound
    width += grow
    freed = f & grow[cells.v]
    got = settled(restricted, replace(
        cells, free=freed, hi=np.where(freed, (lev + width)[cells.v].astype(np.float64), charge)),
        f"the restricted LP of {int(grow.sum()):,} widened row types")
    if got is None:
        return bound
    if got[0] > bound:
        bound, charge = got
    large = bound >= start * (1 + GAIN)
    for i in range(rounds):
        got = settled(lambda on, w, check: widened(on, w, check, large), replace(cells, hi=np.where(
            f, (lev + width)[cells.v].astype(np.float64), cells.hi)),
            f"widened LP {i + 1} ({int((width > 1).sum()):,} row types widened)")
        if got is None or got[0] <= bound:
            break
        bound, charge = got
        grow = grown(charge)
        if not grow.any():
            break
        width += grow
    return bound
