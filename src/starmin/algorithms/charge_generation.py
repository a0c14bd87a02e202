"""Bucket generation for the diversity charge LPs: the LP over the buckets tight at the
level charges, then an LP repair of the buckets its answer breaks.

Guarantee: **bound** -- the value returned is a bound of the charge LP it is run for
(:mod:`.distinct_charge_bound` or :mod:`.l_charge_bound`): it is the sum of charges that
pass that LP's check, computed from scratch on every bucket that can fail.

A charge LP has one block of rows and variables per bucket that can fail; on ARX adult (8
QIs, occupation) the full LPs for ``q >= 3`` have 500,000-800,000 nonzeros and took 5-190
CPU s under HiGHS's dual simplex. Most buckets never bind. The *level charges* (every free
charge at its row type's level ``L``, its range's upper end less 1) satisfy every bucket of
the distinct LP: a bucket of ``s`` stars holding a row type of level ``L <= s`` has ``a - s
<= 0`` there, and one of ``s < L`` holds too few values to be constrained (the frequency
LP's own buckets at ``s = 0`` can fail there; nothing below needs the start to be
feasible). So:

1. **Seed.** Keep the buckets whose condition is tight (or failing) at the level charges.
2. **Solve** the LP over those buckets alone (every charge free, as in the full LP). Its
   optimum is at least the full LP's, but may break buckets left out.
3. **Repair.** Lower the answer by the check's safety margin and find the buckets it
   breaks. A second LP keeps every other charge at its value and lets the charges of the
   broken buckets' cells fall (each within ``[its lower end, its value]``), over the broken
   buckets only. Lowering a charge never breaks a bucket (a bucket's condition only grows
   with the charges), so the result satisfies every bucket; the caller's check confirms it
   on the grid-rounded charges, and a failing check gives no bound.

Both LPs keep the caller's work limits (nonzeros, and the solver's: Glop's deterministic
time or HiGHS's iterations per LP; never a clock).

Measured (ARX adult, 8 QIs, occupation; distinct l-diversity's ``q``, 2026-11-27, one
core, Glop): the seed keeps 4,454 / 3,070 / 2,261 / 1,628 of the 11,591 / 10,570 / 9,409 /
8,139 buckets that can fail for q = 3 / 4 / 5 / 6 (207,000-218,000 nonzeros), whose LP
breaks 1,236-1,424 buckets; the repair (71,000-270,000 nonzeros) gives 17,300 / 21,421 /
25,114 / 28,407, within 0.2 % of the full LPs' 17,332 / 21,453 / 25,153 (q = 6's not
solved), in 1.5 / 2.0 / 2.6 / 3.3 CPU s (the full LPs under HiGHS: 5.4 / 16 / 186 s). The
smaller LP (level 1 fixed) gave 16,944 / 20,981 / 24,651 / none. A second round (the seed
plus the broken buckets, solved again from scratch) reaches the full optimum but costs as
much as the first; Glop did not warm-start it (as many iterations as the first round).

References: the classic cutting-plane (row generation) scheme for LPs with many
constraints, e.g. Dantzig, Fulkerson and Johnson (1954); the charge LPs are the duals of
Liang & Yuan Thm 9's relaxations (see the callers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress
from starmin.algorithms.charge_lp import SAFETY, Cells, IntArray, Program, Solver, settle

STAGE_NAMES = ("full", "generated", "smaller", "generated-smaller", "pdlp")
"""The LPs a diversity charge bound can try (its ``stages``): the full LP, bucket generation on
it (:func:`generated_bound`), the smaller LP with the level-1 row types fixed, bucket
generation on the smaller LP, and the full LP by PDLP then the repair
(:mod:`.charge_pdlp`)."""
GENERATED = ("generated", "generated-smaller")
"""The stages solved by bucket generation."""
SMALLER = ("smaller", "generated-smaller")
"""The stages on the smaller LP (the level-1 row types' charges fixed)."""


def check_stages(stages: tuple[str, ...], names: tuple[str, ...] = STAGE_NAMES) -> None:
    """``ValueError`` naming the stages that are not in ``names`` (the caller's, by default
    :data:`STAGE_NAMES`)."""
    if unknown := set(stages) - set(names):
        raise ValueError(f"unknown charge LP stages {sorted(unknown)}: choose from {names}")


Chosen = list[NDArray[np.bool_]]
"""Per block of buckets (in the caller's enumeration order), the buckets kept."""
Excess = tuple[IntArray, IntArray, NDArray[np.float64]]
"""One block of buckets under some charges: its cells, each cell's bucket (``0 .. nb - 1``)
and each bucket's excess (``> 0``: the bucket fails; ``-inf``: it holds too few values)."""


def generated_bound(cells: Cells, build: Callable[[Cells, Chosen | None], Program | None],
                    excesses: Callable[[NDArray[np.float64]], Iterable[Excess]],
                    check: Callable[[NDArray[np.float64]], bool], solver: Solver,
                    report: Progress, what: str) -> int | None:
    """The bound of bucket generation (module docstring) or ``None`` (an LP over its work
    limits, stopped, or an answer failing the check).

    ``cells``: the LP's cells (free charges ``cells.free`` in ``[cells.lo, cells.hi]``, the
    others fixed at ``cells.hi``). ``build(cells, chosen)``: the LP over ``cells``' free
    charges and the buckets ``chosen`` among those that fail with every charge at its upper
    end (``None``: all of them), or ``None`` over the nonzero limit. ``excesses(charge)``:
    every block of buckets that can fail, under ``charge`` (one per cell). ``check``: the
    bound's condition on all the charges (:func:`.charge_lp.settle`); ``solver``: both LPs'
    solver with its work limit."""
    f = cells.free
    start = np.where(f, cells.hi - 1.0, cells.hi)       # the level charges
    chosen = [x >= 0 for _, _, x in excesses(start)]
    lp = build(cells, chosen)
    if lp is None:
        report(f"bounds: no {what} (the seeded LP is over its nonzero limit)")
        return None
    kept = sum(int(c.sum()) for c in chosen)
    a = cells.hi[f] if lp.n_rows == 0 else solver(  # none seeded: every upper end
        lp, cells.n[f].astype(np.float64), report, f"{what}, {kept:,} seeded buckets")
    if a is None:
        return None
    return repaired(cells, np.clip(a - SAFETY, cells.lo[f], cells.hi[f]), build, excesses,
                    check, solver, report, what, "the seeded LP's answer")


def repaired(cells: Cells, a: NDArray[np.float64],
             build: Callable[[Cells, Chosen | None], Program | None],
             excesses: Callable[[NDArray[np.float64]], Iterable[Excess]],
             check: Callable[[NDArray[np.float64]], bool], solver: Solver,
             report: Progress, what: str, source: str) -> int | None:
    """Step 3 of the module docstring for any free charges ``a`` (within their ranges, e.g.
    a relaxation's answer): the buckets they break, an LP that lowers the charges of those
    buckets' cells only (the others kept), then :func:`.charge_lp.settle`'s check; ``None``
    when an LP is over its limits or the answer fails the check. ``source`` names ``a`` in
    progress lines."""
    f = cells.free
    charge = cells.hi.astype(np.float64, copy=True)
    charge[f] = a
    broken = np.zeros(len(charge), dtype=bool)
    count = 0
    for cell, cb, x in excesses(charge):
        bad = x > 0
        count += int(bad.sum())
        broken[cell[bad[cb]]] = True
    report(f"bounds: {what}: {source} breaks {count:,} buckets; repairing")
    fixed = replace(cells, free=f & broken, hi=charge)
    repair = build(fixed, None)
    if repair is None:
        report(f"bounds: no {what} (the repair LP is over its nonzero limit)")
        return None
    return settle(repair, fixed, solver, report, f"{what} (repair)", check)
