"""A certified upper bound on a maximizing placement LP from any duals (weak duality with a box).

For ``max c'z`` subject to ``A_ub z <= b_ub``, ``A_eq z = 0``, ``z >= 0``, where some optimal
solution lies in ``0 <= z <= u``: for any ``lambda >= 0`` and any ``mu``,

    c'z  <=  lambda' A_ub z + mu' A_eq z + sum_j max(0, c_j - (A_ub' lambda + A_eq' mu)_j) z_j
         <=  b_ub' lambda + sum_j u_j max(0, c_j - (A_ub' lambda + A_eq' mu)_j)

at that solution. So the right side bounds the optimum whatever the solver's accuracy; a poor
solve only weakens it. The duals are HiGHS's marginals (negated: SciPy minimizes ``-c'z``),
``lambda`` clipped at 0; the bound is computed in floating point and raised by a relative
:data:`MARGIN` before it is rounded down (the quantity bounded is an integer number of rows).

Used by :mod:`starmin.algorithms.t_level_lp`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

MARGIN = 1e-9
"""Relative margin for floating point."""


def certified_max(prog: Any, res: Any) -> int | None:
    """The integer bound of the module docstring for ``prog`` (a
    :class:`starmin.algorithms.heuristic._level_lp.Program`, whose ``c`` is the negated
    objective) from SciPy's result ``res``; ``None`` without marginals."""
    ineq = getattr(res, "ineqlin", None)
    if ineq is None or ineq.marginals is None:
        return None
    lam = np.maximum(0.0, -np.asarray(ineq.marginals, dtype=np.float64))
    reduced = -prog.c - prog.A_ub.T @ lam
    if prog.A_eq is not None:
        eq = getattr(res, "eqlin", None)
        if eq is None or eq.marginals is None:
            return None
        reduced = reduced - prog.A_eq.T @ (-np.asarray(eq.marginals, dtype=np.float64))
    bound = float(prog.b_ub @ lam + prog.upper @ np.maximum(0.0, reduced))
    if not math.isfinite(bound):
        return None
    return math.floor(bound * (1 + MARGIN) + 1e-6)
