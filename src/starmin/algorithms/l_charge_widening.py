"""Widening the charge LPs' boxes where their charges reach them (frequency and distinct).

Guarantee: **bound** -- the value returned is <= the optimum of the model the caller's LP
bounds (the claims of :mod:`.l_charge_bound` and :mod:`.distinct_charge_bound` hold for any
upper ends, below; every answer is checked from scratch).

:mod:`.l_charge_bound` keeps each free charge within ``[-(L(v) + 1), L(v) + 1]``, so only the
buckets of ``s = L(v)`` stars hold a cell that can fail. That box is a restriction of the LP
core's frequency relaxation (Liang & Yuan Thm 9, whose dual has no box), and it is the
restriction that costs: on the first 2,000 rows of ARX adult (8 QIs, occupation, l = 3) the
full charge LP gives 2,615 with upper ends ``L + 1``, 2,666 with ``L + 2`` and 2,672 with
``L + 3`` for every row type, against the LP core's optimum 2,678 (measured 2026-11-27 with
HiGHS's dual simplex; ``L + 2`` for all made the LP 6.5x larger).

**Claim.** With the upper end of row type ``v`` at ``L(v) + w(v)`` (``w >= 1``), the claim
of :mod:`.l_charge_bound` (and of :mod:`.distinct_charge_bound`) holds when every bucket of
``s`` stars holding a cell of a row type with ``L(v) <= s < L(v) + w(v)`` satisfies its
condition. *Proof.* Those claims need the condition in every bucket holding ``>= l`` (``q``)
values. A bucket of ``s < L(v)`` stars holding ``v`` holds fewer (the levels' definition),
and in a bucket of ``s >= L(v) + w(v)`` stars every charge of ``v`` is at most ``s``: a
bucket where no charge exceeds ``s`` has every ``W(B, u) <= 0`` and ``P(B) = 0``, so it
satisfies both conditions. So only the listed buckets can fail. ∎

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
3. *The widened LP*: every free charge again, with the new upper ends, by the caller's
   simplex stage when it fits :data:`SIMPLEX_MAX_NONZEROS`; a larger one by PDLP
   within :data:`WIDENED_MAX_NONZEROS`, but only when the restricted LP raised the bound by
   at least :data:`GAIN` (PDLP's widened LPs cost up to 4 s and, on the uniform random
   tables below, gave 0-0.4 %; adult's frequency l = 3 9 s for +1.5 %). Checked as before;
   then step 1 and this step again, at most :data:`ROUNDS` widened LPs, while each raises
   the bound.

Every LP is within a deterministic work limit (never a clock); an LP that stops, or an answer
that fails the check, ends the steps with the bound before it.

Measured (``bench/charge_widening.py``, 2026-11-27 22:53 UTC; the table in
``docs/algorithms/lower-bounds.md``): the first 2,000 rows of adult, frequency l = 3 / 5,
2,615 / 3,635 -> 2,670 / 4,030 (+2.1 / +10.9 %; the LP core's optima 2,678 / 4,131) for 1.8 /
4.4 CPU s more; the whole of adult, where until stop 52 every widened LP was over its nonzero
limit and the restricted LP gave the gain, frequency l = 3 19,962 -> 20,049 and distinct
q = 5 / 6 25,143 / 28,451 -> 25,205 / 28,533 for 0.8-1.4 CPU s more; since stop 52 (limits
above) frequency l = 3 takes the first widened LP by PDLP: 20,349, 9 s of wall clock more.
On the 14 uniform random tables of ``bench/auto_budget.py --shapes`` (56 runs) at most
+0.08 %, for a median of 0.07 CPU s more (at most 1.9); before the gate of step 3, PDLP's
widened LPs had cost up to 3.9 s there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress
from starmin.algorithms.charge_lp import Cells, Program, Work, settle
from starmin.algorithms.heuristic.pattern_keys import IntArray

ROUNDS = 2
"""Widened LPs at most (step 3 of the module docstring); the callers' ``widen`` default."""
MAX_NONZEROS = 400_000
"""The restricted LP is not built beyond this many nonzeros (ARX adult, l = 4: 1.0 million,
where Glop stopped at its work limit after 12 s with nothing)."""
WIDENED_MAX_NONZEROS = 1_200_000
"""A widened LP is not built beyond this many nonzeros (ARX adult, frequency l = 3: the first
round's LP needs 1.14 million, PDLP 9 s of wall clock for it, 20,049 -> 20,349; 400,000 until
stop 52; the second round's 1.63 million is over it)."""
SIMPLEX_MAX_NONZEROS = 60_000
"""A widened LP up to this many nonzeros goes to the caller's simplex stage whatever the
restricted LP gained (the frequency LP's dual simplex limit, :data:`.l_charge_bound.
FULL_MAX_NONZEROS`); a larger one needs :data:`GAIN`."""
AT_END = 1e-3
"""A free charge within this much of its upper end counts as reaching it."""
GAIN = 0.004
"""The restricted LP's relative gain that starts the widened LPs (module docstring; 0.005
until stop 52: adult's frequency l = 3 gains 0.44 %, the uniform random tables at most
0.08 %)."""
RESTRICTED_WORK = 1.0
"""Glop's deterministic time for the restricted LP."""


OVER = -1
"""A stage runner's answer when its LP is over its nonzero limit (not built)."""

Check = Callable[[NDArray[np.float64]], bool]
"""``check(charge)``: the claim's condition on every bucket that can fail, from scratch."""
Checked = Callable[..., bool]
"""``checked(charge, width=width)``: the check for the row types' upper ends ``L + width``."""
Build = Callable[..., Program | None]
"""``build(limit, cells, width=width)``: the LP over ``cells``' free charges and the buckets
of ``width`` that can fail with them at their upper ends, ``None`` past ``limit`` nonzeros."""
Stage = Callable[[int, Cells, IntArray, Check], int | None]
"""``stage(limit, cells, width, check)``: the caller's LP stage over ``cells`` and the buckets
of ``width`` within ``limit`` nonzeros, settled with ``check``: the bound, ``None`` or
:data:`OVER`."""


def widened_bound(cells: Cells, charge: NDArray[np.float64], bound: int, lev: IntArray,
                  free_t: NDArray[np.bool_], m: int, build: Build, simplex: Stage,
                  pdlp: Stage, checked: Checked, glop: Callable[..., NDArray[np.float64] | None],
                  report: Progress, what: str, *, max_nonzeros: int | None = None,
                  rounds: int = ROUNDS) -> int:
    """The bound after the steps of the module docstring from ``charge`` (one per cell of
    ``cells``, checked with every upper end at ``L + 1``, giving ``bound``): at least
    ``bound``. ``lev``/``free_t``: the row types' levels and which have free charges; ``m``
    the QI columns (no upper end beyond ``m`` stars). ``simplex`` (within
    :data:`SIMPLEX_MAX_NONZEROS`) and ``pdlp`` (within :data:`WIDENED_MAX_NONZEROS`) solve the
    widened LPs, ``build`` the restricted one (within :data:`MAX_NONZEROS`; the caller's Glop solver
    ``glop(work, lp, weights, progress, what)`` solves it within :data:`RESTRICTED_WORK`);
    ``max_nonzeros`` replaces all three limits."""
    f = cells.free
    width = np.ones(len(lev), dtype=np.int64)
    start = bound

    def grown(charge: NDArray[np.float64]) -> NDArray[np.bool_]:
        at_end = np.zeros(len(lev), dtype=bool)
        np.logical_or.at(at_end, cells.v[f], charge[f] >= (lev + width)[cells.v[f]] - AT_END)
        return at_end & free_t & (lev + width < m)

    def settled(lp: Callable[[Cells, IntArray, Check], int | None], on: Cells, label: str
                ) -> tuple[int, NDArray[np.float64]] | None:
        passed: list[NDArray[np.float64]] = []
        after = lp(on, width.copy(), partial(recording, partial(checked, width=width.copy()),
                                             passed))
        if after is None or after == OVER or not passed:
            report(f"bounds: {what}: {label} gave nothing; {bound:,} stands")
            return None
        report(f"bounds: {what}: {label}: {after:,} (was {bound:,})")
        return after, passed[-1]

    def restricted(on: Cells, width: IntArray, check: Check) -> int | None:
        lp = build(MAX_NONZEROS if max_nonzeros is None else max_nonzeros, on, width=width)
        if lp is None:
            return None
        return settle(lp, on, partial(glop, Work(RESTRICTED_WORK)), report,
                      f"{what} (restricted, widened)", check)

    def widened(on: Cells, width: IntArray, check: Check, large: bool) -> int | None:
        small = simplex(SIMPLEX_MAX_NONZEROS if max_nonzeros is None else max_nonzeros, on,
                        width, check)
        if small != OVER or not large:
            return None if small == OVER else small
        return pdlp(WIDENED_MAX_NONZEROS if max_nonzeros is None else max_nonzeros, on, width,
                    check)

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
        got = settled(lambda on, w, check: widened(on, w, check, large), replace(
            cells, hi=np.where(f, (lev + width)[cells.v].astype(np.float64), cells.hi)),
            f"widened LP {i + 1} ({int((width > 1).sum()):,} row types widened)")
        if got is None or got[0] <= bound:
            break
        bound, charge = got
        grow = grown(charge)
        if not grow.any():
            break
        width += grow
    return bound


def recording(check: Check, passed: list[NDArray[np.float64]], charge: NDArray[np.float64]
              ) -> bool:
    """``check(charge)``, keeping ``charge`` in ``passed`` when it passes: the charges of the
    bound a stage returns (its last passing check), where :func:`widened_bound` starts."""
    ok = check(charge)
    if ok:
        passed.append(charge)
    return ok
