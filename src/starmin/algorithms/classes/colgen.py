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
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.classes.master import Columns, solve_lp
from starmin.algorithms.classes.pricing import ClassModel

TOL = 1e-9


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
                      say: Progress = silent) -> ColGen:
    """Price classes into ``cols`` until none has a negative reduced cost or ``max_rounds``
    rounds (a work limit) are made."""
    best = -math.inf
    count = cols.pairs.count.astype(np.float64)
    last: ColGen | None = None
    for r in range(1, max_rounds + 1):
        lp = solve_lp(cols)
        found, rc_lo, proved = pricer.price(lp.pi)
        pi_c = float(lp.pi @ count)
        best = max(best, pi_c + kappa * min(0.0, rc_lo))
        added = 0
        for x in found:
            if cols.cost_of(x) - float(lp.pi @ x) < -TOL:
                added += cols.add(x)
        complete = added == 0 and proved
        last = ColGen(_ceil(best), lp.pi, pi_c, rc_lo, lp.value, r, complete)
        if r % 10 == 0:
            say(f"class colgen: round {r}, LP {lp.value:.3f}, bound {last.lower}, "
                f"{len(cols.x)} classes")
        if added == 0:
            break
    assert last is not None
    return last


def _ceil(v: float) -> int:
    return max(0, math.ceil(v - 1e-6)) if math.isfinite(v) else 0
