"""t-closeness under any user metric: EMD by one exact LP per distinct class distribution.

Guarantee: safe, and exact for matrices of short decimals. The verdict for a class is taken
from an *upper bound* on its EMD that is computed exactly in rational arithmetic: the cost of
an integer flow that meets every supply and demand exactly (with the matrix entries read as
the decimals the user wrote). A class passes only if this bound is ``<= t``. The flow is a
minimum-cost flow in integers (OR-Tools ``SimpleMinCostFlow``) on the class's integer
supplies and demands:

* when every entry is a multiple of ``1 / L`` with ``L <= 10^6`` (e.g. 0.25, 0.3, 0.125) the
  costs ``L d`` are exact integers, so the flow is optimal and the bound **is** the EMD;
* otherwise the costs are the entries rounded to integers at a scale that keeps every
  product in 64 bits (``10^9`` steps per unit distance, fewer for classes of millions of
  rows, at least ``10^6``), so the flow is optimal for costs within half a step of the true
  ones and the bound is within a step of the EMD (never below it);
* when even that would overflow (a class's supplies ``c_i N`` past about ``4 10^9``), HiGHS
  solves the transport LP in floating point, its flow is rounded to integers and repaired.

Complexity: one flow problem on ``|S+| x |S-|`` arcs per distinct class histogram, where
``S+`` / ``S-`` are the values the class has more / less of than the table (the mass in common
stays in place; the problem over the full ``|S| x |S|`` plan has the same optimum by the
triangle inequality, and any flow of the reduced one is a flow of the full one with the same
cost): tens of microseconds, against about 3 ms for one LP through SciPy (on adult's first 300
rows under ``merge-repair`` 8,885 LPs took 26 of its 29 CPU seconds).

References
----------
Liang, Yuan, Sec. 2.1 (normalized metric space; EMD as an LP). Li et al., ICDE 2007, Sec. 4.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.errors import InvalidInput
from starmin.models._params import exact, natural_order, show, text_key

_TOL = 1e-9
"""Tolerance of the metric checks on the user's matrix (sanity only: the verdict stays safe
because it rests on the cost of an exactly feasible flow)."""


@dataclass(frozen=True)
class MatrixDistance:
    """A user metric as a matrix over the sensitive values.

    ``matrix[i][j]`` is the distance between value ``i`` and value ``j``. With ``values``
    given, row ``i`` belongs to ``values[i]`` (matched by string form; ``""`` or None for the
    missing value); without, rows follow the natural sort of the values present in the table
    (numbers numerically, text lexicographically, missing last) and the matrix must have one
    row per present value. The matrix must be a normalized metric (Liang & Yuan Sec. 2.1):
    zero diagonal, symmetric, non-negative, triangle inequality, largest entry 1.
    """

    matrix: Any
    values: tuple[object, ...] | None = None
    _exact: tuple[tuple[Fraction, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            M = np.asarray(self.matrix, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"the distance matrix is not numeric ({exc}): give numbers "
                               "only") from exc
        if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
            raise InvalidInput(f"the distance matrix must be square and non-empty, got shape "
                               f"{M.shape}: give one row and one column per sensitive value")
        _check_metric(M)
        object.__setattr__(self, "matrix", tuple(tuple(float(x) for x in r) for r in M))
        if self.values is not None:
            vals = tuple(self.values)
            if len(vals) != M.shape[0]:
                raise InvalidInput(f"the distance matrix is {M.shape[0]}x{M.shape[0]} but "
                                   f"{len(vals)} values are given: give one value per row")
            if len({text_key(v) for v in vals}) != len(vals):
                raise InvalidInput("the distance matrix lists a value twice: list each once")
            object.__setattr__(self, "values", vals)
        object.__setattr__(self, "_exact", tuple(tuple(exact("distance", x, "0.5") for x in r)
                                                  for r in self.matrix))

    @property
    def name(self) -> str:
        return "matrix distance"

    def positions(self, values: Sequence[object]) -> NDArray[np.int64]:
        """Matrix row of each sensitive value."""
        m = len(self.matrix)
        if self.values is None:
            if len(values) != m:
                raise InvalidInput(
                    f"the distance matrix is {m}x{m} but the sensitive column has "
                    f"{len(values)} distinct values: give one row per value, or pass values=")
            return natural_order(values)
        pos = {text_key(v): i for i, v in enumerate(self.values)}
        missing = [show(v) for v in values if text_key(v) not in pos]
        if missing:
            raise InvalidInput(f"the distance matrix has no row for {', '.join(missing[:5])}: "
                               "add a row and column for every sensitive value")
        return np.array([pos[text_key(v)] for v in values], dtype=np.int64)

    def judge(self, D: NDArray[Any], scale: NDArray[Any], values: Sequence[object],
              t: Fraction) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
        """Verdict and EMD per class. ``D`` are the integer differences ``c_i N - C_i n`` and
        ``scale`` the ``n N`` of each class (EMD = transport cost of D / scale)."""
        pos = self.positions(values)
        Mf = np.asarray(self.matrix, dtype=np.float64)[np.ix_(pos, pos)]
        Mx = [[self._exact[a][b] for b in pos] for a in pos]
        L = math.lcm(*(x.denominator for row in Mx for x in row))
        ML = [[int(x * L) for x in row] for row in Mx]  # exact: the distances times L
        ok = np.ones(D.shape[0], dtype=bool)
        emd = np.zeros(D.shape[0], dtype=np.float64)
        key = np.concatenate([np.asarray(D, dtype=object), np.asarray(scale, object)[:, None]],
                             axis=1)
        seen: dict[tuple[int, ...], tuple[bool, float]] = {}
        for i in range(D.shape[0]):
            k = tuple(int(x) for x in key[i])
            if k not in seen:
                seen[k] = _one_class([int(x) for x in D[i]], int(scale[i]), Mf, ML, L, t)
            ok[i], emd[i] = seen[k]
        return ok, emd


def _check_metric(M: NDArray[np.float64]) -> None:
    if not np.isfinite(M).all() or (M < 0).any():
        raise InvalidInput("the distance matrix has negative or non-finite entries: "
                           "distances must be numbers >= 0")
    if np.abs(np.diag(M)).max() > 0:
        raise InvalidInput("the distance matrix has a non-zero diagonal: "
                           "a value's distance to itself must be 0")
    if np.abs(M - M.T).max() > _TOL:
        i, j = np.unravel_index(int(np.argmax(np.abs(M - M.T))), M.shape)
        raise InvalidInput(f"the distance matrix is not symmetric (d[{i}][{j}] = {M[i, j]} but "
                           f"d[{j}][{i}] = {M[j, i]}): make d[i][j] == d[j][i]")
    if M.shape[0] > 1 and abs(M.max() - 1.0) > _TOL:
        raise InvalidInput(f"the distance matrix is not normalized (largest entry {M.max()}): "
                           "divide it by its largest entry so the maximum distance is 1")
    # triangle inequality: d[i][k] <= d[i][j] + d[j][k] for all i, j, k
    via = M.copy()
    for w in range(M.shape[0]):
        np.minimum(via, M[:, w, None] + M[None, w, :], out=via)
    if (via + _TOL < M).any():
        i, k = np.unravel_index(int(np.argmax(M - via)), M.shape)
        raise InvalidInput(f"the distance matrix breaks the triangle inequality: d[{i}][{k}] = "
                           f"{M[i, k]} exceeds a path through another value ({via[i, k]}); "
                           "use a metric (e.g. shortest-path distances)")


EXACT_SCALE = 10**6
"""Largest common denominator ``L`` of the matrix entries for which the flow's costs are the
exact integers ``L d`` (the EMD is then exact, not an upper bound)."""
_COST_LIMIT = 2**52
"""Flow costs times the total supply stay below this: OR-Tools' costs are 64-bit and its
cost scaling multiplies them by the number of nodes (a flow it cannot solve in range is not
reported optimal, and the LP path takes over)."""
_MIN_SCALE = 10**6
"""Rounded costs need at least this many steps per unit distance, else the LP path is used."""


def _one_class(d: list[int], scale: int, Mf: NDArray[np.float64],
               ML: list[list[int]], L: int, t: Fraction) -> tuple[bool, float]:
    """Verdict and EMD (an exact upper bound, the EMD itself on the exact path) of one class:
    ``d`` the integer differences, ``scale`` ``n N``, ``ML`` the distances times ``L`` (exact
    integers)."""
    src = [i for i, x in enumerate(d) if x > 0]
    dst = [j for j, x in enumerate(d) if x < 0]
    if not src or scale == 0:
        return True, 0.0
    a = [d[i] for i in src]
    b = [-d[j] for j in dst]
    total = sum(a)
    if L <= EXACT_SCALE and L * total < _COST_LIMIT:  # exact integer costs: the EMD itself
        C = np.array([[ML[i][j] for j in dst] for i in src], dtype=np.int64)
        flow = _min_cost_flow(a, b, C)
        if flow is not None:
            cost = int((C * flow).sum(dtype=object))
            return bool(Fraction(cost, L * scale) <= t), cost / (L * scale)
    step = min(10**9, _COST_LIMIT // max(total, 1))
    found = None
    if step >= _MIN_SCALE:  # costs rounded to 1/step: a near-optimal integer flow
        found = _min_cost_flow(a, b, np.rint(Mf[np.ix_(src, dst)] * step).astype(np.int64))
    if found is None:
        pairs = _transport(a, b, Mf[np.ix_(src, dst)], scale)
    else:
        pairs = {(p, q): int(found[p, q]) for p, q in zip(*np.nonzero(found), strict=True)}
    ub = Fraction(sum(ML[src[p]][dst[q]] * f for (p, q), f in pairs.items()), L * scale)
    return bool(ub <= t), float(ub)


def _min_cost_flow(a: list[int], b: list[int], C: NDArray[np.int64]) -> NDArray[np.int64] | None:
    """``(p, q)`` an integer flow of least cost ``C`` from supplies ``a`` to demands ``b``
    (equal totals), by OR-Tools' min-cost flow; ``None`` if it does not report optimal."""
    from ortools.graph.python import min_cost_flow  # imported here: only matrices need it

    p, q = len(a), len(b)
    mcf = min_cost_flow.SimpleMinCostFlow()
    tails = np.repeat(np.arange(p, dtype=np.int64), q)
    heads = np.tile(np.arange(p, p + q, dtype=np.int64), p)
    cap = np.minimum(np.repeat(np.asarray(a, dtype=np.int64), q),
                     np.tile(np.asarray(b, dtype=np.int64), p))
    arcs = mcf.add_arcs_with_capacity_and_unit_cost(tails, heads, cap, C.reshape(-1))
    mcf.set_nodes_supplies(np.arange(p + q, dtype=np.int64),
                           np.asarray(a + [-x for x in b], dtype=np.int64))
    if mcf.solve() != mcf.OPTIMAL:
        return None
    return np.asarray(mcf.flows(arcs), dtype=np.int64).reshape(p, q)


def _transport(a: list[int], b: list[int], C: NDArray[np.float64],
               scale: int) -> dict[tuple[int, int], int]:
    """An integer flow with row sums ``a`` and column sums ``b``, (near-)optimal for cost C."""
    from scipy.optimize import linprog  # imported here: scipy.optimize is slow to load
    from scipy.sparse import coo_matrix

    p, q = len(a), len(b)
    rows = np.repeat(np.arange(p), q)
    cols = np.tile(np.arange(q), p)
    A = coo_matrix((np.ones(2 * p * q), (np.concatenate([rows, p + cols]),
                                         np.concatenate([np.arange(p * q)] * 2))),
                   shape=(p + q, p * q))
    rhs = np.array(a + b, dtype=np.float64) / scale
    res = linprog(C.reshape(-1), A_eq=A, b_eq=rhs, bounds=(0, None), method="highs")
    F = (np.zeros((p, q)) if res.x is None
         else np.rint(np.clip(res.x.reshape(p, q), 0, None) * scale))
    flow = [[int(F[i, j]) for j in range(q)] for i in range(p)]
    return _repair(flow, a, b)


def _repair(flow: list[list[int]], a: list[int], b: list[int]) -> dict[tuple[int, int], int]:
    """Make an integer flow meet the supplies ``a`` and demands ``b`` exactly."""
    p, q = len(a), len(b)
    for i in range(p):  # trim rows that ship too much
        extra = sum(flow[i]) - a[i]
        for j in sorted(range(q), key=lambda j: -flow[i][j]):
            if extra <= 0:
                break
            cut = min(extra, flow[i][j])
            flow[i][j] -= cut
            extra -= cut
    for j in range(q):  # trim columns that receive too much
        extra = sum(flow[i][j] for i in range(p)) - b[j]
        for i in sorted(range(p), key=lambda i: -flow[i][j]):
            if extra <= 0:
                break
            cut = min(extra, flow[i][j])
            flow[i][j] -= cut
            extra -= cut
    ra = [a[i] - sum(flow[i]) for i in range(p)]
    rb = [b[j] - sum(flow[i][j] for i in range(p)) for j in range(q)]
    i = j = 0
    while i < p and j < q:  # north-west corner on what is left
        x = min(ra[i], rb[j])
        flow[i][j] += x
        ra[i] -= x
        rb[j] -= x
        if ra[i] == 0:
            i += 1
        else:
            j += 1
    return {(i, j): flow[i][j] for i in range(p) for j in range(q) if flow[i][j]}
