"""A diversity charge LP in full by a first-order method (PDLP), then the repair: a bound
near the LP's optimum, where the dual simplex takes too long on the full LP.

Guarantee: **bound** -- the value returned is a bound of the charge LP it is run for
(:mod:`.distinct_charge_bound`, :mod:`.l_charge_bound`): PDLP's answer is only a point,
lowered by :data:`MARGIN`, repaired (:func:`.charge_generation.repaired`: an LP that lowers
the charges of the buckets the point breaks, every other charge kept) and checked from
scratch on the grid-rounded charges; a failing check gives no bound.

Why. Bucket generation (:mod:`.charge_generation`) solves the LP over the buckets tight at the
level charges and repairs what its answer breaks; that repair can only lower charges, so it
stays below the full LP's optimum (ARX adult, 8 QIs, occupation, distinct q = 6: 28,407
against the full optimum's 28,460). The full LP itself is slow for the dual simplex (q = 6:
298,000 constraints, 921,000 nonzeros; HiGHS's interior point took 16 CPU s on the LP of the
seeded and broken buckets alone, Glop's dual simplex more than 9). PDLP (primal-dual hybrid
gradient, OR-Tools) reaches a relative accuracy of 2e-3 on it in a few hundred iterations,
each one pass over the matrix. Its answer breaks many buckets by a hair; lowered by
:data:`MARGIN` first, it breaks far fewer, and the repair LP is small.

Work limit: PDLP's iterations, at most :data:`MAX_WORK` divided by the LP's nonzeros (a count
of the work done, never a clock: the same input gives the same bound under any load). At
that limit its last iterate is repaired all the same (any point is repaired into a bound).
The answer depends on :data:`SHARDS`, not on :data:`THREADS` (tested bit for bit), so it does
not depend on the machine's cores or load (as with the other solvers, a different floating-
point instruction set could still move it in the last bits; the check keeps it a bound).

Measured (ARX adult, 8 QIs, occupation; 2026-11-27; two threads, the defaults):
- distinct q = 2 / 3 / 4 / 5 / 6: bounds 11,619 / 17,324 / 21,436 / 25,143 / 28,451 (384
  PDLP iterations and 3.0 s wall for q = 6, the LP's build 0.2 s and the repair 0.6 s of
  it), against bucket generation's 11,619 / 17,300 / 21,421 / 25,114 / 28,407 (1.1-3.3 CPU
  s) and the full LPs' optima 11,626 / 17,332 / 21,453 / 25,153 / 28,460. Margins on q = 6
  (accuracy 1e-3): 0 -> 1,351 buckets broken, repair 1.5 s, 28,458; 3e-4 -> 28,451; 1e-3 ->
  100 broken, 28,439; 1e-2 -> 28,256.
- frequency l = 3 / 4 / 5 / 6: 19,962 / 27,057 / 33,921 / 40,368 in 2.4 / 3.1 / 3.4 / 3.8 s
  wall (512-704 iterations; l = 6 at its work limit), where the smaller LP and generation on
  it gave 18,854 / 24,275 / 29,346 / 33,835 (:mod:`.l_charge_bound`).
- Tried and not taken: PDLP's feasibility polishing (q = 6, accuracy 1e-3: 500 iterations,
  4.1 s, 28,451 at the same margin); warm starting Glop from the seeded LP's basis after
  adding the broken buckets (18,000 iterations, 9 s).

References: D. Applegate et al., "Practical large-scale linear programming using
primal-dual hybrid gradient", NeurIPS 2021 (PDLP); the charge LPs are the duals of Liang &
Yuan Thm 9's relaxations (see the callers)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress
from starmin.algorithms.charge_generation import Chosen, Excess, repaired
from starmin.algorithms.charge_lp import Cells, Program, Solver, charges_of, solve_mathopt

MAX_NONZEROS = 1_000_000
"""The full LP is not built for PDLP beyond this many nonzeros (adult: distinct q = 6 921,000,
frequency l = 5 811,000)."""
MAX_WORK = 600_000_000
"""PDLP's iterations times the LP's nonzeros, at most (adult: distinct q = 6 651 iterations
allowed, 384 used; frequency l = 6 672, all used; one unit cost about 6.5 ns of one core on
this machine). At 8e8 frequency l = 5 / 6 gave 33,940 / 40,393 (986 / 896 iterations) for
0.6-0.7 s more."""
ACCURACY = 2e-3
"""PDLP's relative and absolute optimality tolerance (module docstring). At 1e-3 adult's
bounds rose by 1-34 stars (distinct q = 6 28,452, frequency l = 3 19,996) for 0.4-0.9 s
more; at 3e-3 they fell by 11-45."""
MARGIN = 3e-4
"""PDLP's answer is lowered by this much, per charge, before the repair (module docstring)."""
RETRY_MARGIN = 3e-3
"""When the repair from :data:`MARGIN` gives nothing (its LP over a limit, or the check
failing), it is tried once more from PDLP's answer lowered by this much: fewer buckets break
and its LP is smaller. A uniform random table (5,000 rows, 7 QIs of 5 values, distinct q =
5): from 3e-4 3,238 buckets broke and the repair reached Glop's work limit; from 3e-3 439
broke, 13,275 (1e-3: 13,283; 1e-2: 13,242)."""
SHARDS = 8
"""PDLP splits its vectors and matrix into this many shards; its answer depends on this count,
not on the threads that work them (adult's frequency l = 3 LP: the same objective to the last
bit with one and two threads at 8 shards; 8 and 32 shards differ in the 6th digit)."""
THREADS = 2
"""PDLP's threads (the same answer with any number, :data:`SHARDS`): adult distinct q = 6 at
accuracy 1e-3 3.0 against 4.2 s wall on two cores (frequency l = 5 3.6 against 5.0)."""


def first_order_bound(cells: Cells, build: Callable[[Cells, Chosen | None], Program | None],
                      excesses: Callable[[NDArray[np.float64]], Iterable[Excess]],
                      check: Callable[[NDArray[np.float64]], bool], solver: Solver,
                      report: Progress, what: str, max_work: float = MAX_WORK) -> int | None:
    """The bound of the module docstring, or ``None`` (the full LP or the repair LP over its
    nonzero limit, PDLP without an answer, the repair stopped, or the check failed).
    ``build``, ``excesses``, ``check`` and ``solver`` (the repair LP's) as in
    :func:`.charge_generation.generated_bound`; ``max_work``: :data:`MAX_WORK`."""
    lp = build(cells, None)
    if lp is None:
        report(f"bounds: no {what} (the full LP is over its nonzero limit)")
        return None
    f = cells.free
    if lp.n_rows == 0:  # no bucket can fail
        a: NDArray[np.float64] | None = cells.hi[f]
    else:
        a = solve_pdlp(lp, cells.n[f].astype(np.float64), int(max_work // max(lp.nnz, 1)),
                       report, what)
    if a is None:
        return None
    for margin in (MARGIN, RETRY_MARGIN):  # a failed repair is tried once more, lower
        bound = repaired(cells, np.clip(a - margin, cells.lo[f], cells.hi[f]), build,
                         excesses, check, solver, report, what,
                         f"PDLP's answer lowered by {margin:g}")
        if bound is not None:
            return bound
    return None


def solve_pdlp(lp: Program, weights: NDArray[np.float64], max_iterations: int,
               progress: Progress, what: str, *, accuracy: float = ACCURACY,
               heading: str = "bounds") -> NDArray[np.float64] | None:
    """The first ``len(weights)`` variables (the charges) of PDLP's answer maximizing
    ``weights @ charges`` within ``accuracy`` (:data:`ACCURACY`) or ``max_iterations``
    iterations (:data:`SHARDS` shards, :data:`THREADS` threads), or ``None`` when it gives
    none. Progress lines start with ``heading`` (the caller's name)."""
    from ortools.math_opt import parameters_pb2

    count = len(weights)
    if max_iterations < 1:
        progress(f"{heading}: no {what} (its LP is over PDLP's work limit)")
        return None
    params = parameters_pb2.SolveParametersProto()
    params.threads = THREADS
    params.pdlp.num_shards = SHARDS
    params.iteration_limit = int(max_iterations)
    params.pdlp.termination_criteria.eps_optimal_relative = accuracy
    params.pdlp.termination_criteria.eps_optimal_absolute = accuracy
    try:
        res = solve_mathopt(lp, weights, _PDLP, params, progress, f"{heading}: {what}, PDLP")
    except Exception as exc:  # an invalid model or parameter surfaces as a status error
        progress(f"{heading}: {what} failed in PDLP ({str(exc)[:80]}): nothing from it")
        return None
    if not res.solutions or not res.solutions[0].HasField("primal_solution"):
        progress(f"{heading}: {what}: PDLP gave no answer (termination reason "
                 f"{res.termination.reason}): nothing from it")
        return None
    reason = res.termination.reason
    state = ("within its accuracy" if reason == _OPTIMAL
             else f"at its iteration limit or short of its accuracy (termination reason {reason})")
    progress(f"{heading}: {what}: PDLP stopped after {res.solve_stats.first_order_iterations:,} "
             f"iterations, {state}")
    out = charges_of(res, count)
    if not np.isfinite(out).all():  # a diverged iterate: nothing to repair
        progress(f"{heading}: {what}: PDLP's answer is not finite: nothing from it")
        return None
    return out


_PDLP = 5
"""MathOpt's ``SOLVER_TYPE_PDLP``."""
_OPTIMAL = 1
"""MathOpt's ``TERMINATION_REASON_OPTIMAL``."""
