"""The plumbing the charge LP bounds share: the LP in triplets, its solve, and the grid the
answers are checked on.

A charge LP (:mod:`.charge_bound` for k-anonymity, :mod:`.l_charge_bound` for frequency
l-diversity, :mod:`.distinct_charge_bound` for the models needing ``q`` distinct values)
maximizes ``sum n_v a_v`` over charges ``a`` and auxiliary variables subject to ``A x <= b``.
Its answer is never trusted: the caller lowers each charge by :data:`SAFETY`, rounds it down
to a multiple of ``1 / GRID`` (:func:`to_ticks`) and checks the bound's condition from
scratch on those charges, where every sum it takes is exact in float64.

Solvers: the k-anonymity and frequency l-diversity charge LPs run HiGHS's dual simplex
(SciPy) within an iteration limit (:func:`solve`); the diversity LPs too large for it run
PDLP in full, then a repair LP by Glop (:mod:`.charge_pdlp`, stop 38). The distinct-value
models' charge LPs run OR-Tools' Glop (dual simplex, one thread) within a limit of Glop's
*deterministic time* (:class:`Work`, :func:`solve_glop`): a count of the work done that is
the same on every machine under any load, and that tracks the time more closely than HiGHS's
iteration count, whose cost per iteration varied 0.03-1.0 ms across the tables measured
(2026-11-27: a 218,000-nonzero LP of a uniform 4,000-row table took 1 ms an iteration and 40
s to stop at 40,000 iterations; ARX adult's LPs of that size 0.05-0.13 ms). Neither solver
is faster on every LP: Glop solved adult's whole-table diversity LPs faster (frequency l =
3's smaller LP 0.95 against 4-5 CPU s, distinct q = 2's full LP 1.7 against 2.6) but
frequency l = 3 on adult's first 8,000 rows slower (7.8 against 6.5), and one deterministic
second cost 0.6-1.7 CPU s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import heartbeat
from starmin.algorithms.base import Progress

IntArray = NDArray[np.int64]

SAFETY = 1e-7
"""Each charge is lowered by this much before the check, against the solver's round-off."""
GRID = 1 << 20
"""Charges are then rounded down to multiples of ``1 / GRID``. A sum of up to ``2^27``
such charges of magnitude below ``64`` is a multiple of ``2^-20`` below ``2^33``, exact in
float64; the bound sums the charges as integers of ``1 / GRID``."""


@dataclass
class Program:
    """An LP in triplets: ``max sum obj x`` with ``A x <= b``, ``lo <= x <= hi``; the
    objective is on the first columns (the charges), set when it is solved."""

    rows: list[IntArray] = field(default_factory=list)
    cols: list[IntArray] = field(default_factory=list)
    vals: list[NDArray[np.float64]] = field(default_factory=list)
    b: list[NDArray[np.float64]] = field(default_factory=list)
    lo: list[NDArray[np.float64]] = field(default_factory=list)
    hi: list[NDArray[np.float64]] = field(default_factory=list)
    n_rows: int = 0
    n_cols: int = 0
    nnz: int = 0

    def columns(self, count: int, lo: NDArray[np.float64] | float,
                hi: NDArray[np.float64] | float) -> IntArray:
        """``count`` new variables in ``[lo, hi]``: their column numbers."""
        out = self.n_cols + np.arange(count, dtype=np.int64)
        self.n_cols += count
        self.lo.append(np.broadcast_to(np.asarray(lo, dtype=np.float64), (count,)))
        self.hi.append(np.broadcast_to(np.asarray(hi, dtype=np.float64), (count,)))
        return out

    def constraints(self, b: NDArray[np.float64]) -> IntArray:
        """New constraints ``... <= b``: their row numbers."""
        out = self.n_rows + np.arange(len(b), dtype=np.int64)
        self.n_rows += len(b)
        self.b.append(np.asarray(b, dtype=np.float64))
        return out

    def entries(self, r: IntArray, c: IntArray, v: NDArray[np.float64] | float) -> None:
        """Coefficients ``v`` at ``(r, c)``."""
        self.rows.append(r)
        self.cols.append(c)
        self.vals.append(np.broadcast_to(np.asarray(v, dtype=np.float64), r.shape))
        self.nnz += len(r)


def solve(lp: Program, weights: NDArray[np.float64], max_iterations: int,
          progress: Progress, what: str) -> NDArray[np.float64] | None:
    """The first ``len(weights)`` variables (the charges) of a solution maximizing
    ``weights @ charges``, by HiGHS's dual simplex within ``max_iterations`` iterations, or
    ``None`` when it stops otherwise. ``what`` names the LP in progress lines."""
    import scipy.sparse as sp  # solver libraries load when a bound is computed
    from scipy.optimize import linprog

    count = len(weights)
    A = sp.csr_matrix((np.concatenate(lp.vals), (np.concatenate(lp.rows),
                                                  np.concatenate(lp.cols))),
                      shape=(lp.n_rows, lp.n_cols))
    c = np.zeros(lp.n_cols)
    c[:count] = -np.asarray(weights, dtype=np.float64)
    bounds = np.column_stack([np.concatenate(lp.lo), np.concatenate(lp.hi)])
    with heartbeat(progress, f"bounds: {what}, HiGHS ({count:,} charges, {lp.n_cols:,} "
                   f"variables, {lp.n_rows:,} constraints, {lp.nnz:,} nonzeros)"):
        res = linprog(c, A_ub=A, b_ub=np.concatenate(lp.b), bounds=bounds,
                      method="highs-ds", options={"maxiter": int(max_iterations)})
    if res.status != 0 or res.x is None:
        progress(f"bounds: {what} stopped ({res.message}): no bound from it")
        return None
    progress(f"bounds: {what} solved in {res.nit:,} simplex iterations")
    return np.asarray(res.x[:count], dtype=np.float64)


MAX_WORK = 3.0
"""Glop's deterministic time per distinct charge LP (:class:`Work`). ARX adult's (8 QIs,
occupation; q = 2..6, whole table and its first 2,000 and 8,000 rows) all finish within 1.5
and some need more than 1 (q = 5 and 6's seeded LPs on the whole table); one unit cost
0.6-1.7 CPU s on this machine (2026-11-27)."""


@dataclass
class Work:
    """The work limit of one distinct charge bound's LPs: Glop's deterministic time per LP
    (``per_lp``). ``stopped`` is set when an LP reaches it; its caller then tries no further
    LP (the table's LPs are slow for their size)."""

    per_lp: float = MAX_WORK
    stopped: bool = False


def solve_glop(lp: Program, weights: NDArray[np.float64], work: Work, progress: Progress,
               what: str) -> NDArray[np.float64] | None:
    """The first ``len(weights)`` variables (the charges) of a solution maximizing
    ``weights @ charges``, by Glop's dual simplex (one thread) within ``work.per_lp``
    deterministic seconds, or ``None`` when it stops otherwise (``work.stopped`` set when at
    the limit). ``what`` names the LP in progress lines."""
    from ortools.math_opt import parameters_pb2

    count = len(weights)
    params = parameters_pb2.SolveParametersProto()
    params.lp_algorithm = parameters_pb2.LP_ALGORITHM_DUAL_SIMPLEX
    params.threads = 1
    params.glop.max_deterministic_time = float(work.per_lp)
    try:
        res = solve_mathopt(lp, weights, _GLOP, params, progress, f"bounds: {what}, Glop")
    except Exception as exc:  # Glop's numerical failure surfaces as a status error
        progress(f"bounds: {what} failed in Glop ({str(exc)[:80]}): no bound from it")
        return None
    reason = res.termination.reason
    if reason != _OPTIMAL or not res.solutions:
        if reason in _LIMITS:  # here, the deterministic time
            work.stopped = True
            progress(f"bounds: {what} stopped at its work limit ({work.per_lp:g} "
                     "deterministic s): no bound from it")
        else:
            why = res.termination.detail[:80] or f"termination reason {reason}"
            progress(f"bounds: {what} not solved by Glop ({why}): no bound from it")
        return None
    progress(f"bounds: {what} solved in {res.solve_stats.simplex_iterations:,} simplex "
             "iterations (Glop)")
    return charges_of(res, count)


def solve_mathopt(lp: Program, weights: NDArray[np.float64], solver: int, params: Any,
                  progress: Progress, heading: str) -> Any:
    """OR-Tools MathOpt's result for ``lp`` maximizing ``weights @ charges`` with ``solver``
    (a ``SolverTypeProto`` number) and ``params``, only the charges' values returned, under a
    heartbeat of ``progress`` lines starting ``heading``. Raises as MathOpt does."""
    from ortools.math_opt import callback_pb2, model_parameters_pb2, parameters_pb2
    from ortools.math_opt.core.python import solver as core

    shown = model_parameters_pb2.ModelSolveParametersProto()
    shown.variable_values_filter.filter_by_ids = True
    shown.variable_values_filter.filtered_ids.extend(range(len(weights)))
    with heartbeat(progress, f"{heading} ({len(weights):,} charges, {lp.n_cols:,} variables, "
                   f"{lp.n_rows:,} constraints, {lp.nnz:,} nonzeros)"):
        return core.solve(model_proto(lp, weights), solver,
                          parameters_pb2.SolverInitializerProto(), params, shown, None,
                          callback_pb2.CallbackRegistrationProto(), None, None)


def charges_of(res: Any, count: int) -> NDArray[np.float64]:
    """The ``count`` charges of a MathOpt result's first solution (0 where not given)."""
    values = res.solutions[0].primal_solution.variable_values
    out = np.zeros(count)
    out[np.asarray(values.ids, dtype=np.int64)] = np.asarray(values.values, dtype=np.float64)
    return out


def model_proto(lp: Program, weights: NDArray[np.float64]) -> Any:
    """``lp`` as an OR-Tools MathOpt model maximizing ``weights @ charges`` (the first
    ``len(weights)`` variables)."""
    from ortools.math_opt import model_pb2

    count = len(weights)
    rows, cols = np.concatenate(lp.rows), np.concatenate(lp.cols)
    order = np.lexsort((cols, rows))
    model = model_pb2.ModelProto()
    model.objective.maximize = True
    var = model.variables
    var.ids.extend(range(lp.n_cols))
    var.lower_bounds.extend(np.concatenate(lp.lo).tolist())
    var.upper_bounds.extend(np.concatenate(lp.hi).tolist())
    var.integers.extend([False] * lp.n_cols)
    model.objective.linear_coefficients.ids.extend(range(count))
    model.objective.linear_coefficients.values.extend(
        np.asarray(weights, dtype=np.float64).tolist())
    con = model.linear_constraints
    con.ids.extend(range(lp.n_rows))
    con.lower_bounds.extend([-np.inf] * lp.n_rows)
    con.upper_bounds.extend(np.concatenate(lp.b).tolist())
    mat = model.linear_constraint_matrix
    mat.row_ids.extend(rows[order].tolist())
    mat.column_ids.extend(cols[order].tolist())
    mat.coefficients.extend(np.concatenate(lp.vals)[order].tolist())
    return model


_GLOP = 3
"""MathOpt's ``SOLVER_TYPE_GLOP``."""
_OPTIMAL = 1
"""MathOpt's ``TERMINATION_REASON_OPTIMAL``."""
_LIMITS = (6, 9)
"""``TERMINATION_REASON_NO_SOLUTION_FOUND`` and ``_FEASIBLE``: a limit reached."""


def to_ticks(a: NDArray[np.float64], lo: NDArray[np.float64] | float,
             hi: NDArray[np.float64] | float) -> IntArray:
    """Charges ``a`` lowered by :data:`SAFETY`, kept in ``[lo, hi]`` and rounded down, in
    units of ``1 / GRID``."""
    return np.floor(np.clip(a - SAFETY, lo, hi) * GRID).astype(np.int64)


def ceil_ticks(total: int) -> int:
    """A sum of charges in units of ``1 / GRID`` rounded up to a whole number of stars."""
    return -(-int(total) // GRID)


@dataclass(frozen=True)
class Cells:
    """The cells ``(v, u)`` of a histogram (``c(v, u) > 0`` rows of row type ``v`` with
    sensitive value ``u``), row type by row type, with their charges' range: the diversity
    charge LPs' (:mod:`.l_charge_bound`, :mod:`.distinct_charge_bound`) variables."""

    v: IntArray            # row type of each cell (sorted)
    u: IntArray            # value of each cell
    n: IntArray            # rows of each cell
    start: IntArray        # (t_in + 1,) first cell of each row type
    free: NDArray[np.bool_]
    lo: NDArray[np.float64]
    hi: NDArray[np.float64]  # the upper end; the fixed charge for fixed cells

    def of(self, member: IntArray, bucket: IntArray) -> tuple[IntArray, IntArray]:
        """The cells of the ``member`` row types and each one's bucket."""
        count = self.start[member + 1] - self.start[member]
        first = np.repeat(self.start[member], count)
        offset = np.arange(int(count.sum()), dtype=np.int64) - np.repeat(np.cumsum(count) - count,
                                                                          count)
        return first + offset, np.repeat(bucket, count)


Solver = Callable[[Program, NDArray[np.float64], Progress, str], NDArray[np.float64] | None]
"""``solver(lp, weights, progress, what)``: the charges of an optimal solution, or ``None``
(:func:`solve` or :func:`solve_glop` with their work limit)."""


def settle(lp: Program, cells: Cells, solver: Solver, report: Progress, what: str,
           check: Callable[[NDArray[np.float64]], bool]) -> int | None:
    """The bound of a diversity charge LP over ``cells``' free charges: ``solver``'s answer
    (every free charge at its upper end when no bucket can fail), lowered onto the ``1 /
    GRID`` grid, ``check``-ed from scratch on all the charges, the cells' charges summed and
    rounded up; ``None`` when the solver stops or the check fails."""
    f = cells.free
    if lp.n_rows == 0:  # no bucket can fail: every free charge at its upper end
        a: NDArray[np.float64] | None = cells.hi[f]
    else:
        a = solver(lp, cells.n[f].astype(np.float64), report, what)
    if a is None:
        return None
    ticks = np.floor(cells.hi * GRID).astype(np.int64)  # charges in units of 1 / GRID
    ticks[f] = to_ticks(a, cells.lo[f], cells.hi[f])
    if not check(ticks / GRID):
        report(f"bounds: {what} answer failed its check: no bound from it")
        return None
    return max(0, ceil_ticks(int((cells.n * ticks).sum())))
