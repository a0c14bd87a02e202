"""The rounding MILP of :mod:`.rounding` by CP-SAT, within a deterministic work limit.

HiGHS's branch and bound (the rounding's default solver) has no limit on the work of its
root: a node limit stops the tree, not the cut rounds and the sub-MIP heuristic before it.
On adult's first rows with frequency ``l >= 4`` (8 QIs, occupation) HiGHS's root alone took
2.7 to 16 CPU s and the whole rounding up to 131 s, varying by table rather than by size, so
``--method auto`` could not count on it (docs/algorithms/lp-core.md, "CP-SAT rounding").
CP-SAT's ``max_deterministic_time`` is a work limit in its own units; with one worker and a
fixed seed the search, and so the answer, is the same on every machine under any load.

CP-SAT takes integer variables and coefficients only (and must never see continuous
variables, ``DESIGN.md``), so it solves a :class:`~.master.Program` only when every variable
is integer and every row becomes integral when scaled by a small whole number: k-anonymity,
frequency ``l`` (the cap ``1/l``: ``l x(b, u) <= n(b)``), distinct ``l`` and p-sensitivity.
t-closeness (continuous EMD slacks) and caps that are not ``1/q`` for a small ``q`` (entropy)
are refused with the reason (:func:`refusal`). Rows are scaled exactly (rational
coefficients from :class:`fractions.Fraction`), never rounded.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from starmin.algorithms.lp.master import MILPSolution, Program
from starmin.algorithms.lp.relaxation import FloatArray

MAX_DENOMINATOR = 1000
"""The largest denominator of a fractional coefficient (a cap ``1/l`` with ``l`` up to 1,000)."""

_TOLERANCE = 1e-12


Scaled = tuple[np.ndarray, np.ndarray]
"""A matrix's rows made integral: each row's multiplier, and the scaled coefficients (CSR
order)."""


def small_fraction(value: float) -> Fraction | None:
    """``value`` as a fraction with a denominator up to :data:`MAX_DENOMINATOR` (``None``
    when it is none: e.g. an entropy cap)."""
    f = Fraction(float(value)).limit_denominator(MAX_DENOMINATOR)
    if abs(float(f) - float(value)) > _TOLERANCE * max(1.0, abs(float(value))):
        return None
    return f


def refusal(prog: Program) -> str | None:
    """Why CP-SAT cannot take ``prog`` (``None``: it can)."""
    return _integral(prog)[0]


def _integral(prog: Program) -> tuple[str | None, tuple[Scaled, Scaled] | None]:
    """Why CP-SAT cannot take ``prog``, or the scaled rows of ``A_eq`` and ``A_ub``."""
    if not bool(np.all(prog.integer == 1)):
        return "the program has continuous variables (t-closeness's EMD slacks)", None
    eq, ub = _scale(prog.A_eq), _scale(prog.A_ub)
    if eq is None or ub is None:
        return (f"a coefficient is not a fraction with a denominator up to {MAX_DENOMINATOR} "
                "(an entropy cap)"), None
    rhs = np.asarray(prog.b_eq, dtype=np.float64) * eq[0]
    if np.any(np.abs(rhs - np.round(rhs)) > 1e-9):
        return "an equation's right-hand side is not integral once its row is", None
    if not bool(np.all(prog.c == np.round(prog.c))):
        return "the objective is not integral", None
    return None, (eq, ub)


def solve(prog: Program, *, fixed: FloatArray, hint: FloatArray, work: float,
          seed: int = 0) -> MILPSolution:
    """``prog`` (which :func:`refusal` accepts) by CP-SAT: one worker, random seed ``seed``,
    at most ``work`` units of its deterministic time. ``fixed``: ``(X,)`` values for the
    ``x(b, p)`` (NaN: free); ``hint``: ``(X,)`` values CP-SAT's search starts from (the
    LP's, rounded). The solution's ``value`` is ``None`` when none was found."""
    from ortools.sat.python import cp_model

    reason, scaled = _integral(prog)
    if scaled is None:
        raise ValueError(f"CP-SAT cannot solve this rounding MILP: {reason}")
    nvar = len(prog.c)
    total = round(float(prog.b_eq[: prog.P].sum()))  # every row of the table
    lower = np.zeros(nvar, dtype=np.int64)
    upper = np.minimum(np.where(np.isfinite(prog.upper), prog.upper, total), total)
    upper = np.round(upper).astype(np.int64)
    pin = ~np.isnan(fixed)
    lower[: prog.X][pin] = np.round(fixed[pin]).astype(np.int64)
    upper[: prog.X][pin] = lower[: prog.X][pin]
    model = cp_model.CpModel()
    proto = model.proto
    for lo, hi in zip(lower.tolist(), upper.tolist(), strict=True):
        proto.variables.add().domain.extend([lo, hi])
    big = 2 ** 62
    _rows(proto, prog.A_eq, scaled[0], prog.b_eq, equal=True, big=big)
    _rows(proto, prog.A_ub, scaled[1], prog.b_ub, equal=False, big=big)
    costly = np.flatnonzero(prog.c)
    proto.objective.vars.extend(costly.tolist())
    proto.objective.coeffs.extend(np.round(prog.c[costly]).astype(np.int64).tolist())
    free = np.flatnonzero(~pin)
    proto.solution_hint.vars.extend(free.tolist())
    proto.solution_hint.values.extend(
        np.clip(np.round(hint[free]), lower[free], upper[free]).astype(np.int64).tolist())
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = int(seed)
    solver.parameters.max_deterministic_time = float(work)
    status = solver.solve(model)
    name = solver.status_name(status)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        infeasible = status == cp_model.INFEASIBLE
        what = ("infeasible" if infeasible else
                f"no solution within its work limit ({work:g} units of deterministic time)")
        return MILPSolution(None, None, None, False, f"CP-SAT: {what} ({name})", infeasible)
    x = np.asarray(solver.response_proto.solution, dtype=np.float64)
    bound = float(solver.best_objective_bound)
    return MILPSolution(float(solver.objective_value), x[: prog.X], bound,
                        status == cp_model.OPTIMAL,
                        f"CP-SAT {name.lower()}, proven bound {bound:,.0f}")


def _scale(A: object) -> Scaled | None:
    """Each row's smallest whole multiplier making it integral, and the scaled coefficients
    (CSR order); ``None`` when a coefficient is not a fraction with a denominator up to
    :data:`MAX_DENOMINATOR`."""
    from scipy.sparse import csr_matrix

    M = csr_matrix(A)
    data = np.asarray(M.data, dtype=np.float64)
    den = np.ones(len(data), dtype=np.int64)
    odd = np.abs(data - np.round(data)) > _TOLERANCE
    for value in np.unique(data[odd]):
        f = small_fraction(float(value))
        if f is None:
            return None
        den[data == value] = f.denominator
    sizes = np.diff(M.indptr)
    rows = np.repeat(np.arange(M.shape[0]), sizes)
    mult = np.ones(M.shape[0], dtype=np.int64)
    filled = sizes > 0  # reduceat over the starts of non-empty rows: each runs to the next
    if filled.any():
        mult[filled] = np.lcm.reduceat(den, M.indptr[:-1][filled])
    scaled = data * mult[rows]
    if np.any(np.abs(scaled - np.round(scaled)) > 1e-6):
        return None
    return mult, np.round(scaled).astype(np.int64)


def _rows(proto: object, A: object, scaled: Scaled, rhs: FloatArray, *, equal: bool,
          big: int) -> None:
    """``A v = rhs`` (or ``<= rhs``) with its rows ``scaled`` to integers (:func:`_scale`), as
    CP-SAT linear constraints."""
    from scipy.sparse import csr_matrix

    M = csr_matrix(A)
    mult, coef = scaled
    bound = np.asarray(rhs, dtype=np.float64) * mult
    indptr, idx = M.indptr, M.indices.tolist()
    coefs = coef.tolist()
    for r in range(M.shape[0]):
        s, e = int(indptr[r]), int(indptr[r + 1])
        if s == e:
            continue
        lin = proto.constraints.add().linear  # type: ignore[attr-defined]
        lin.vars.extend(idx[s:e])
        lin.coeffs.extend(coefs[s:e])
        b = math.floor(bound[r] + 1e-9)
        if equal:
            lin.domain.extend([b, b])
        else:
            lin.domain.extend([-big, b])
