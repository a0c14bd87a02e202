"""Column generation for the class master (:mod:`.master`) with the exact pricing of
:mod:`.pricing`, and the certified lower bound it gives.

Bound (Lagrangian, valid for any duals ``pi``): a partition into classes ``C`` costs
``sum_C cost(C) = pi . c + sum_C rc(C)``, and it has at most ``kappa = floor(n / k)`` classes
(``k`` the size the model implies), each with ``rc(C) >= rc_lo`` (CP-SAT's proven bound on the
pricing problem, :class:`.pricing.ClassModel`). So every release has at least
``pi . c + kappa min(0, rc_lo)`` stars; once pricing finds no negative class this is the
LP optimum. The bound is rounded up with a tolerance of ``1e-6`` for HiGHS's round-off.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.classes.master import Columns, solve_lp
from starmin.algorithms.classes.pricing import ClassModel

TOL = 1e-9
ALPHA = 0.7
"""Wentges' smoothing weight of the best duals."""


@dataclass(frozen=True)
class ColGen:
    """The outcome: the best certified bound ``lower`` (stars), the last duals ``pi`` with
    ``pi_c = pi . c`` and their pricing bound ``rc_lo``, the LP value, rounds made and whether
    pricing proved the LP optimal (``complete``)."""

    lower: int
    pi: NDArray[np.float64]
    pi_c: float
    rc_lo: float
    lp_value: float
    rounds: int
    complete: bool


def column_generation(cols: Columns, pricer: ClassModel, kappa: int, max_rounds: int,
                      say: Progress = silent, alpha: float = ALPHA,
                      start: ColGen | None = None) -> ColGen:
    """Price classes into ``cols`` until none has a negative reduced cost, the bound meets the
    LP's ceiling, or ``max_rounds`` rounds (a work limit) are made.

    Stabilized by Wentges' dual smoothing: classes are priced at ``alpha pi_best + (1 - alpha)
    pi_lp`` (``pi_best``: the duals of the best bound so far); a round whose classes do not
    price out at ``pi_lp`` (a mis-pricing) is priced again at ``pi_lp``. The bound is
    evaluated at every priced point (it is valid for any duals). ``start`` (e.g. the row
    levels', :mod:`.row_levels`): a bound and its duals to begin from, the first stability
    center."""
    best = -math.inf if start is None else float(start.lower)
    count = cols.pairs.count.astype(np.float64)
    pi_best: NDArray[np.float64] | None = None if start is None else start.pi
    last: ColGen | None = start
    for r in range(1, max_rounds + 1):
        lp = solve_lp(cols)
        added, complete = 0, False
        points = [lp.pi] if pi_best is None else [alpha * pi_best + (1 - alpha) * lp.pi,
                                                  lp.pi]
        for pi in points:
            found, rc_lo, proved = pricer.price(pi)
            pi_c = float(pi @ count)
            here = pi_c + kappa * min(0.0, rc_lo)
            if here > best:
                best, pi_best = here, pi
                last = ColGen(_ceil(best), pi, pi_c, rc_lo, lp.value, r, False)
            for x in found:
                if cols.cost_of(x) - float(lp.pi @ x) < -TOL:
                    added += cols.add(x)
            if added:
                break
            complete = proved and pi is lp.pi
        if last is None:
            last = ColGen(0, lp.pi, float(lp.pi @ count), -math.inf, lp.value, r, False)
        last = replace(last, lp_value=lp.value, rounds=r, complete=complete)
        if r % 10 == 0:
            say(f"class colgen: round {r}, LP {lp.value:.3f}, bound {last.lower}, "
                f"{len(cols.x)} classes")
        if added == 0 or last.lower >= _ceil(lp.value):
            break
    if last is None:  # max_rounds = 0 and no start: no bound
        return ColGen(0, np.zeros(len(count)), 0.0, -math.inf, math.nan, 0, False)
    return last


def _ceil(v: float) -> int:
    return max(0, math.ceil(v - 1e-6)) if math.isfinite(v) else 0
