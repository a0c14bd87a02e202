"""From the LP core's fractional optimum to a release: fix, re-solve, repair.

1. *Fix.* Every block whose ``x(b, p)`` are all integral in the LP optimum keeps them.
2. *Re-solve.* The MILP (:mod:`.master`, every linear constraint of the model at once: ``k``,
   ``cap``, ``t``) over the same blocks with those values fixed decides the rest: the blocks
   with a fractional ``x``, and the all-star block, which can take any rows, so it is always
   feasible. HiGHS runs to optimality within ``node_limit`` nodes (a work limit); if it finds
   nothing there, the MILP over the whole pool is tried with the same limit.
3. *Release.* Each block with rows is released as the suppressor of the row types it holds
   (never more stars than the block's vector); equal suppressors merge (every model here is
   closed under union of classes).
4. *Repair.* Classes that still fail the model (its non-linear parts: entropy, the strict
   inequality of recursive (c, l)-diversity) are merged, cheapest first, with the class that
   the fewest added stars make valid; the whole table as one class always is.

Guarantee: **heuristic** for the release (verified like every release); the gap is measured
against the certified LP bound of :mod:`.colgen`.
"""

from __future__ import annotations

import numpy as np

from starmin.algorithms.lp.master import Blocks, MILPSolution, build, solve_milp
from starmin.algorithms.lp.pairs import Pairs
from starmin.algorithms.lp.relaxation import FloatArray, Relaxation


def round_lp(pairs: Pairs, rel: Relaxation, blocks: Blocks, x: FloatArray, *,
             node_limit: int = 2000) -> FloatArray:
    """Integral ``x(b, p)`` for the blocks (steps 1-2 of the module docstring)."""
    prog = build(pairs, rel, blocks)
    frac = np.abs(x - np.round(x)) > 1e-6
    bad_block = np.zeros(blocks.B, dtype=bool)
    bad_block[blocks.block_of[frac]] = True
    bad_block[int(np.argmax(blocks.stars))] = True  # the all-star block stays free
    free = bad_block[blocks.block_of]
    fixed = np.where(free, np.nan, np.round(x))
    sol: MILPSolution = solve_milp(prog, node_limit=node_limit, fixed=fixed)
    if sol.x is None:
        sol = solve_milp(prog, node_limit=node_limit)
    if sol.x is None:
        raise RuntimeError(f"the rounding MILP found no integer solution ({sol.message})")
    return np.round(sol.x)
