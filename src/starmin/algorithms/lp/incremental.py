"""The restricted LP of column generation, kept alive across rounds (Glop through MathOpt).

Blocks of the LP core (:mod:`.master`) share only the coverage rows: every other row and
every variable of a block (its ``x(b, p)``, ``y(b)``, ``n(b)``, EMD slacks) belongs to that
block alone. So adding blocks adds variables, the blocks' own rows, and coefficients in the
existing coverage rows -- never a change to what is already there. :class:`RestrictedLP`
holds the program in one OR-Tools Glop solver (``ortools.math_opt``'s low-level interface,
built from arrays, no Python loop per coefficient) and sends each round only the new blocks
(:func:`.master.build` on the new blocks alone gives their variables, rows and coverage
coefficients). Glop keeps its basis across the update (the new variables nonbasic at zero,
the new rows' slacks basic: still primal feasible, since every new row holds at zero), so
primal simplex continues from where the last round stopped instead of starting over.
Classes of fixed composition (:meth:`RestrictedLP.add_rays`) are single columns with
coefficients in the coverage rows only.

Glop runs single-threaded with presolve off; its only limit is an iteration count (a work
limit), so the same input gives the same LP solution, duals and bytes on every machine. When
a warm-started solve fails numerically (Glop's ``ABNORMAL``, seen once on a 300-row table),
a new Glop receives the whole program (the start and every update, replayed) and solves it
from scratch; when that fails too, SciPy's HiGHS solves the whole program (rebuilt from the
same updates) from scratch, for that round and every later one (a Glop that failed refuses
every later call): still deterministic.
The duals need not be exact for the certificate: :mod:`.colgen` makes any duals a proven
bound (Farley's scaling), whatever solver produced them.

Block duplicates are allowed: a vector priced again with pairs its block lacks is added as
a new block with the union of the pairs (the older one stays; both are valid classes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from starmin.algorithms.lp.master import Blocks, LPSolution, build
from starmin.algorithms.lp.pairs import IntArray, Pairs
from starmin.algorithms.lp.relaxation import FloatArray, Relaxation

SOLVERS = ("glop", "highs-ipm")
"""Solvers of the restricted LP: Glop warm-started across rounds (the default), or SciPy's
HiGHS interior point on the whole program each round (then crossover to a vertex). On
adult's frequency l = 3 the first 8 rounds took 77 CPU s under Glop and 29 under the
interior point, whose rounds stay at 5-40 s as the LP grows; with l >= 3 Glop's primal
simplex needs 10,000-40,000 iterations a round there."""

_OPTIMAL = 1
"""``TERMINATION_REASON_OPTIMAL``."""
_LIMITS = (6, 9)
"""``TERMINATION_REASON_NO_SOLUTION_FOUND`` and ``_FEASIBLE``: a limit reached."""
STALL_PER_ENTRY = 50
"""Glop's iterations per variable and constraint before an attempt counts as stalled
(:meth:`RestrictedLP._stall`)."""
STALL_MIN = 20_000
"""... plus these."""


class WorkLimit(RuntimeError):
    """A solve of the restricted LP reached its iteration limit (``max_iterations``, counted
    over Glop's attempts and the SciPy fallback together) or the user's time limit
    (``deadline``). ``bound``: the bound column generation certified before it (from the
    last duals), or ``None``."""

    def __init__(self, message: str, bound: int | None = None) -> None:
        super().__init__(message)
        self.bound = bound


@dataclass
class _Parts:
    vectors: list[np.ndarray]
    stars: list[IntArray]
    block_of: list[IntArray]
    pair_of: list[IntArray]
    x_ids: list[IntArray]


class RestrictedLP:
    """The restricted master LP over a growing set of blocks (see the module docstring)."""

    def __init__(self, pairs: Pairs, rel: Relaxation, *, max_iterations: int = 5_000_000,
                 solver: str = "glop") -> None:
        from ortools.math_opt import model_pb2
        from ortools.math_opt.core.python import solver as core

        if solver not in SOLVERS:
            raise ValueError(f"unknown LP solver {solver!r}: choose from {', '.join(SOLVERS)}")
        self.pairs, self.rel = pairs, rel
        self.max_iterations = max_iterations
        self.deadline: float | None = None
        """A ``time.monotonic()`` instant no solve may pass (:class:`WorkLimit` there): only
        for a wall-clock limit the user asked for (``milp``'s ``--time-limit``)."""
        self._method = "highs-ipm" if solver == "highs-ipm" else "highs-ds"
        P = pairs.P
        model = model_pb2.ModelProto()
        cons = model.linear_constraints
        cons.ids.extend(range(P))
        count = pairs.count.astype(np.float64).tolist()
        cons.lower_bounds.extend(count)
        cons.upper_bounds.extend(count)
        self._n_vars, self._n_cons, self._B = 0, P, 0
        self._parts = _Parts([], [], [], [], [])
        self._rays = _Parts([], [], [], [], [])
        self._shares: list[FloatArray] = []
        self._R = 0
        self.iterations = 0
        self._model = model
        self._updates: list[Any] = []
        self._solver: Any = (core.new(3, model, _init_args())  # SOLVER_TYPE_GLOP
                             if solver == "glop" else None)

    @property
    def B(self) -> int:
        """Blocks and rays so far."""
        return self._B + self._R

    def add(self, blocks: Blocks) -> None:
        """Add ``blocks`` (with their pairs) to the program."""
        from ortools.math_opt import model_update_pb2

        if blocks.B == 0:
            return
        prog = build(self.pairs, self.rel, blocks)
        P = self.pairs.P
        nv = len(prog.c)
        var0 = self._n_vars
        A_eq = prog.A_eq.tocoo()  # type: ignore[attr-defined]
        A_ub = prog.A_ub.tocoo()  # type: ignore[attr-defined]
        n_eq_new = A_eq.shape[0] - P
        n_ub = A_ub.shape[0]
        con0 = self._n_cons
        # rows: coverage keeps its id; the blocks' own equality rows, then their <= rows
        eq_row = np.where(A_eq.row < P, A_eq.row, con0 + A_eq.row - P)
        rows = np.concatenate([eq_row, con0 + n_eq_new + A_ub.row]).astype(np.int64)
        cols = np.concatenate([A_eq.col, A_ub.col]).astype(np.int64) + var0
        vals = np.concatenate([A_eq.data, A_ub.data]).astype(np.float64)
        up = model_update_pb2.ModelUpdateProto()
        _new_variables(up, var0, nv, prog.c)
        ncp = up.new_linear_constraints
        ncp.ids.extend(range(con0, con0 + n_eq_new + n_ub))
        ncp.lower_bounds.extend(np.concatenate(
            [prog.b_eq[P:], np.full(n_ub, -np.inf)]).tolist())
        ncp.upper_bounds.extend(np.concatenate([prog.b_eq[P:], prog.b_ub]).tolist())
        _matrix_entries(up, rows, cols, vals)
        self._update(up)
        self._n_vars += nv
        self._n_cons += n_eq_new + n_ub
        parts = self._parts
        parts.vectors.append(blocks.vectors)
        parts.stars.append(blocks.stars)
        parts.block_of.append(blocks.block_of + self._B)
        parts.pair_of.append(blocks.pair_of)
        parts.x_ids.append(np.arange(var0, var0 + prog.X, dtype=np.int64))
        self._B += blocks.B

    def add_rays(self, rays: Blocks, share: FloatArray) -> None:
        """Add classes of fixed composition: ray ``b`` of ``rays`` holds ``share`` of its
        rows in each of its pairs (one entry per ``(block_of, pair_of)``, summing to 1 per
        ray); its one variable is the class size and costs ``stars(b)`` per row."""
        from ortools.math_opt import model_update_pb2

        if rays.B == 0:
            return
        var0, nv = self._n_vars, rays.B
        up = model_update_pb2.ModelUpdateProto()
        _new_variables(up, var0, nv, rays.stars.astype(np.float64))
        _matrix_entries(up, rays.pair_of, rays.block_of + var0, share)
        self._update(up)
        self._n_vars += nv
        r = self._rays
        r.vectors.append(rays.vectors)
        r.stars.append(rays.stars)
        r.block_of.append(rays.block_of + self._R)
        r.pair_of.append(rays.pair_of)
        r.x_ids.append(np.arange(var0, var0 + nv, dtype=np.int64))
        self._shares.append(share)
        self._R += nv

    def _update(self, up: Any) -> None:
        self._updates.append(up)
        if self._solver is None:  # Glop failed for good: SciPy solves the whole program
            return
        try:
            ok = self._solver.update(up)
        except Exception:  # a solver that failed before refuses every later call
            ok = False
        if not ok:
            self._solver = None

    def _fresh(self) -> Any:
        """A new Glop solver holding the whole program (the start and every update)."""
        from ortools.math_opt.core.python import solver as core

        solver = core.new(3, self._model, _init_args())
        for up in self._updates:
            if not solver.update(up):
                raise RuntimeError("Glop refused an update of the restricted LP")
        return solver

    def blocks(self, sol: LPSolution) -> tuple[Blocks, FloatArray]:
        """Every block and ray so far as blocks, one per output vector (the union of their
        pairs), and the solution's ``x(b, p)`` on them (a ray of size ``n`` gives
        ``n * share`` to each of its pairs)."""
        p, r = self._parts, self._rays
        m = (p.vectors or r.vectors)[0].shape[1]
        vec = np.concatenate(p.vectors + r.vectors).reshape(-1, m)
        stars = np.concatenate(p.stars + r.stars)
        nb = self._B
        bo = np.concatenate(p.block_of + [b + nb for b in r.block_of])
        po = np.concatenate(p.pair_of + r.pair_of)
        nx = sum(len(a) for a in p.x_ids)
        xr = (sol.x[nx:][np.concatenate(r.block_of)] * np.concatenate(self._shares)
              if self._R else np.zeros(0))
        x = np.concatenate([sol.x[:nx], xr])
        uvec, first, vec_of = np.unique(vec, axis=0, return_index=True, return_inverse=True)
        vec_of = np.asarray(vec_of).reshape(-1)
        # blocks in order of their vector's first appearance, pairs ascending
        rank = np.empty(len(uvec), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(uvec))
        nb_new = rank[vec_of[bo]]
        key, inv = np.unique(nb_new * self.pairs.P + po, return_inverse=True)
        xs = np.bincount(np.asarray(inv).reshape(-1), weights=x,
                         minlength=len(key)).astype(np.float64)
        order_b = np.argsort(first, kind="stable")
        return (Blocks(uvec[order_b].astype(np.int32), stars[first[order_b]],
                       key // self.pairs.P, key % self.pairs.P), xs)

    def solve(self, primal: bool = True) -> LPSolution:
        """Solve from the last basis: value, the coverage duals and (``primal``) every
        block's ``x(b, p)`` and ray's size (else ``x`` is empty: rounds that only price need
        the duals). ``max_iterations`` holds for the whole call: Glop's attempt, its retry
        from scratch and SciPy's fallback together (``iterations``: what they took). Raises
        :class:`WorkLimit` at that limit or at ``deadline``, ``RuntimeError`` when no solver
        reaches optimality."""
        from ortools.math_opt import callback_pb2, model_parameters_pb2, parameters_pb2

        params = parameters_pb2.SolveParametersProto()
        params.lp_algorithm = parameters_pb2.LP_ALGORITHM_PRIMAL_SIMPLEX
        params.presolve = parameters_pb2.EMPHASIS_OFF
        params.threads = 1
        mp = model_parameters_pb2.ModelSolveParametersProto()
        mp.dual_values_filter.filter_by_ids = True
        mp.dual_values_filter.filtered_ids.extend(range(self.pairs.P))  # the coverage rows
        mp.reduced_costs_filter.filter_by_ids = True
        if not primal:
            mp.variable_values_filter.filter_by_ids = True
        spent = 0
        for attempt in range(2 if self._solver is not None else 0):
            # the second attempt: once more from scratch, a new Glop on the whole program
            params.iteration_limit = max(1, min(self.max_iterations - spent, self._stall()))
            left = self._seconds_left(spent)
            if left is not None:
                params.time_limit.FromNanoseconds(int(left * 1e9))
            try:
                if attempt == 1:
                    self._solver = self._fresh()
                res = self._solver.solve(params, mp, None,
                                         callback_pb2.CallbackRegistrationProto(), None, None)
            except Exception:  # Glop's numerical failure (ABNORMAL) surfaces as a status error
                continue
            spent += int(res.solve_stats.simplex_iterations)
            if res.termination.reason in _LIMITS:
                self._seconds_left(spent)  # the time limit, if that was it
                if spent >= self.max_iterations:
                    self._limit(spent)
                continue  # stalled (:meth:`_stall`): a fresh Glop, then SciPy's HiGHS
            if res.termination.reason == _OPTIMAL and res.solutions:
                sol = res.solutions[0]
                self.iterations = spent
                duals = _dense(sol.dual_solution.dual_values, self.pairs.P)
                x = np.zeros(0)
                if primal:
                    x_ids = np.concatenate(self._parts.x_ids + self._rays.x_ids)
                    x = _dense(sol.primal_solution.variable_values, self._n_vars)[x_ids]
                return LPSolution(float(sol.primal_solution.objective_value), x, duals,
                                  self.iterations)
        # SciPy's HiGHS on the whole program from now on (RuntimeError if it fails too); a
        self._solver = None  # Glop that failed refuses every later call
        return self._scipy(primal, spent)

    def _stall(self) -> int:
        """Glop's iterations per attempt: :data:`STALL_PER_ENTRY` per variable and constraint
        plus :data:`STALL_MIN`. Past them the attempt counts as stalled and the next one
        starts (a fresh Glop, then SciPy's HiGHS); only ``max_iterations`` is a
        :class:`WorkLimit`. A 34-row table with 3 QIs and k = 3 (about 60 variables) spent
        the whole 5,000,000 iterations in one warm-started solve of its third round (22 s,
        then no bound and no ``milp``). On adult's LPs (tens of thousands of variables and
        more: a stall limit of a million iterations and more) a round takes 10,000-40,000."""
        return STALL_PER_ENTRY * (self._n_vars + self._n_cons) + STALL_MIN

    def _seconds_left(self, spent: int) -> float | None:
        """The seconds left before ``deadline`` (``None`` without one); :class:`WorkLimit`
        when it has passed."""
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.iterations = spent
            raise WorkLimit("a restricted LP solve reached the time limit")
        return left

    def _limit(self, spent: int) -> None:
        self.iterations = spent
        raise WorkLimit(f"a restricted LP solve reached its limit of {self.max_iterations:,} "
                        f"simplex iterations ({spent:,} spent)")

    def _scipy(self, primal: bool, spent: int = 0) -> LPSolution:
        """The whole program solved from scratch by SciPy's HiGHS (dual simplex), for a round
        on which Glop failed twice (numerical trouble on some mid-size tables): the same LP,
        so its duals certify the same kind of bound. Deterministic (one thread, no time limit
        unless the user set ``deadline``); within the iterations ``max_iterations`` leaves
        after the ``spent`` ones (:class:`WorkLimit` past them; on a uniform random table of
        6,000 rows and 5 QIs of 8 values, k = 10, its rounds took 7-13 CPU s without this
        limit, stop 35); raises ``RuntimeError`` when HiGHS does not reach optimality
        otherwise."""
        import scipy.sparse as sp
        from scipy.optimize import linprog

        P, n, nc = self.pairs.P, self._n_vars, self._n_cons
        c = np.zeros(n)
        lo = np.zeros(nc)
        hi = np.zeros(nc)
        lo[:P] = hi[:P] = self.pairs.count
        rows, cols, vals = [], [], []
        for up in self._updates:
            oc = up.objective_updates.linear_coefficients
            c[np.asarray(oc.ids, dtype=np.int64)] = np.asarray(oc.values, dtype=np.float64)
            ncp = up.new_linear_constraints
            ids = np.asarray(ncp.ids, dtype=np.int64)
            lo[ids] = np.asarray(ncp.lower_bounds, dtype=np.float64)
            hi[ids] = np.asarray(ncp.upper_bounds, dtype=np.float64)
            mat = up.linear_constraint_matrix_updates
            rows.append(np.asarray(mat.row_ids, dtype=np.int64))
            cols.append(np.asarray(mat.column_ids, dtype=np.int64))
            vals.append(np.asarray(mat.coefficients, dtype=np.float64))
        A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(nc, n))
        eq = lo == hi  # the coverage rows (first) and the blocks' own equalities
        options: dict[str, Any] = {"maxiter": max(1, self.max_iterations - spent)}
        left = self._seconds_left(spent)
        if left is not None:
            options["time_limit"] = left
        res = linprog(c, A_ub=A[~eq] if (~eq).any() else None,
                      b_ub=hi[~eq] if (~eq).any() else None, A_eq=A[eq], b_eq=hi[eq],
                      bounds=(0, None), method=self._method, options=options)
        if res.status == 1:  # the iteration limit (or the time limit)
            self._seconds_left(spent + int(res.nit))
            self._limit(spent + int(res.nit))
        if res.status != 0:
            raise RuntimeError(f"Glop and HiGHS stopped on the restricted LP: {res.message}")
        self.iterations = spent + int(res.nit)
        duals = np.asarray(res.eqlin.marginals, dtype=np.float64)[:P]
        x = np.zeros(0)
        if primal:
            x = np.asarray(res.x, dtype=np.float64)[
                np.concatenate(self._parts.x_ids + self._rays.x_ids)]
        return LPSolution(float(res.fun), x, duals, self.iterations)


def _init_args() -> Any:
    from ortools.math_opt import parameters_pb2

    return parameters_pb2.SolverInitializerProto()


def _dense(vec: Any, n: int) -> FloatArray:
    out = np.zeros(n)
    ids = np.asarray(vec.ids, dtype=np.int64)
    if len(ids):
        out[ids] = np.asarray(vec.values, dtype=np.float64)
    return out


def _new_variables(up: Any, var0: int, nv: int, cost: FloatArray) -> None:
    """Continuous variables ``var0 .. var0 + nv - 1`` in ``[0, inf)`` with objective
    coefficients ``cost`` (the nonzero ones sent) in a MathOpt update."""
    nvp = up.new_variables
    nvp.ids.extend(range(var0, var0 + nv))
    nvp.lower_bounds.extend(np.zeros(nv).tolist())
    nvp.upper_bounds.extend(np.full(nv, np.inf).tolist())
    nvp.integers.extend([False] * nv)
    nz = np.nonzero(cost)[0]
    up.objective_updates.linear_coefficients.ids.extend((nz + var0).tolist())
    up.objective_updates.linear_coefficients.values.extend(cost[nz].tolist())


def _matrix_entries(up: Any, rows: IntArray, cols: IntArray, vals: FloatArray) -> None:
    """Constraint-matrix entries in a MathOpt update, in the row-major order it requires."""
    order = np.lexsort((cols, rows))
    mat = up.linear_constraint_matrix_updates
    mat.row_ids.extend(rows[order].tolist())
    mat.column_ids.extend(cols[order].tolist())
    mat.coefficients.extend(vals[order].tolist())
