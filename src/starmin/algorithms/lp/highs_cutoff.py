"""The exact MILP by HiGHS branch and bound with the incumbent's objective as a cutoff.

SciPy's ``milp`` cannot take a starting solution, so without help HiGHS searches for
releases the incumbent already beats and keeps nodes it could prune. Its ``objective_bound``
option is a cutoff: nodes whose LP bound reaches it are pruned, solutions at or above it are
not sought. Stars are integers, so with ``upper`` stars in hand the cutoff is
``upper - 1/2``: a release with at most ``upper - 1`` stars stays inside, and a dual bound
at or above the cutoff proves that none exists, i.e. that the incumbent is optimal.

The option is passed to HiGHS verbatim through SciPy (never ``import highspy``: see
``DESIGN.md``). Work limit: ``node_limit`` nodes; a wall-clock limit only when the user asks.
"""

from __future__ import annotations

import warnings

import numpy as np

from starmin.algorithms.lp.master import MILPSolution, Program, milp_message, milp_setup

TOLERANCE = 1e-6
"""Slack on HiGHS's dual bound against the cutoff (its LP tolerances)."""


def solve(prog: Program, *, upper: int | None, node_limit: int | None = None,
          seconds: float | None = None) -> MILPSolution:
    """``prog`` by HiGHS with the cutoff ``upper - 1/2``. ``infeasible`` in the result means
    proven: no solution with fewer than ``upper`` stars (or none at all without ``upper``)."""
    from scipy.optimize import Bounds, milp

    cons, options = milp_setup(prog, node_limit=node_limit, seconds=seconds)
    cutoff = None if upper is None else float(upper) - 0.5
    if cutoff is not None:
        options["objective_bound"] = cutoff
    with warnings.catch_warnings():  # "passed to HiGHS verbatim": objective_bound is meant
        warnings.simplefilter("ignore", RuntimeWarning)
        res = milp(prog.c, constraints=cons, integrality=prog.integer,
                   bounds=Bounds(np.zeros(len(prog.c)), prog.upper), options=options)
    x = None if res.x is None else np.asarray(res.x)[: prog.X]
    value = None if res.x is None else float(res.fun)
    dual = getattr(res, "mip_dual_bound", None)
    dual = None if dual is None else float(dual)
    below = value is not None and cutoff is not None and value < cutoff
    if cutoff is not None and not below:
        x = value = None  # a solution at or above the cutoff: the incumbent is as good
    none_below = res.status == 2 or (cutoff is not None and dual is not None
                                     and dual >= cutoff - TOLERANCE)
    optimal = res.status == 0 and (below or cutoff is None)
    return MILPSolution(value, x, dual, optimal, milp_message(str(res.message), node_limit),
                        infeasible=bool(none_below and not below))
