"""Independent oracles for the row-type flow tests (Bredereck et al., Sec. 4).

Nothing here uses :mod:`starmin.algorithms.fpt`: ROW ASSIGNMENT is solved as a linear program
with scipy's HiGHS (the constraint matrix of a transportation problem is totally unimodular, so
the LP optimum is the integer optimum), and the guesses are enumerated literally.

- :func:`row_assignment_lp`: the optimum of ROW ASSIGNMENT (constraints (1)-(3), objective
  (4)) for one guess, or ``None``.
- :func:`algorithm_1`: Algorithm 1 verbatim -- every binary ``t_in x t_out`` matrix ``A``, empty
  columns deleted, output row types from Step 3 -- the cheapest guess (Theorem 2).
- :func:`proposition_2`: every guess of at most ``t_out`` (starred columns, prototype) pairs,
  the cheapest (Proposition 2).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes


def row_assignment_lp(sizes: NDArray[np.int64], a: NDArray[np.bool_],
                      omega: list[int], k: int) -> int | None:
    """ROW ASSIGNMENT's optimum: ``g(i, j) >= 0`` only where ``a[i, j]``, ``sum_j g = n_i``,
    ``sum_i g >= k``, minimizing ``sum g(i, j) omega_j``; ``None`` when infeasible."""
    from scipy.optimize import linprog

    ii, jj = np.nonzero(a)
    t_in, t_out = a.shape
    if len(ii) == 0:
        return None
    A_eq = np.zeros((t_in, len(ii)))
    A_eq[ii, np.arange(len(ii))] = 1
    A_ub = np.zeros((t_out, len(ii)))
    A_ub[jj, np.arange(len(ii))] = -1
    res = linprog(np.asarray(omega, dtype=float)[jj], A_ub=A_ub, b_ub=np.full(t_out, -k),
                  A_eq=A_eq, b_eq=sizes.astype(float), method="highs")
    return round(res.fun) if res.status == 0 else None


def _star_count(codes: NDArray[np.int32]) -> int:
    """Stars of the suppressor of ``codes`` (non-constant columns)."""
    return int((~(codes == codes[0]).all(axis=0)).sum())


def algorithm_1(rt: RowTypes, k: int, t_out: int) -> int | None:
    """Algorithm 1 (Sec. 4.1) for the optimization version: the least cost over every guess
    ``A`` in ``{0, 1}^(t_in x t_out)``; ``2^(t_in t_out)`` ROW ASSIGNMENT LPs."""
    t_in = rt.t_in
    best: int | None = None
    for bits in range(1, 1 << (t_in * t_out)):
        A = np.array([(bits >> b) & 1 for b in range(t_in * t_out)], dtype=bool)
        A = A.reshape(t_in, t_out)
        A = A[:, A.any(axis=0)]  # lines 5-7: delete empty output row types
        omega = [_star_count(rt.codes[A[:, j]]) for j in range(A.shape[1])]  # line 9
        cost = row_assignment_lp(rt.sizes, A, omega, k)
        if cost is not None and (best is None or cost < best):
            best = cost
    return best


def proposition_2(rt: RowTypes, k: int, t_out: int) -> int | None:
    """Proposition 2's search: every multiset of at most ``t_out`` output rows, each given by
    its starred columns and a prototype row type; a row type may go to an output row that
    generalizes it (ROW ASSIGNMENT)."""
    m = rt.m
    outputs = []
    for pattern in range(1 << m):
        starred = np.array([(pattern >> c) & 1 for c in range(m)], dtype=bool)
        for proto in range(rt.t_in):
            outputs.append((starred, proto))
    best: int | None = None
    for size in range(1, t_out + 1):
        for guess in combinations_with_replacement(range(len(outputs)), size):
            cols = []
            omega = []
            for g in guess:
                starred, proto = outputs[g]
                ok = (rt.codes[:, ~starred] == rt.codes[proto, ~starred]).all(axis=1)
                cols.append(ok)
                omega.append(int(starred.sum()))
            cost = row_assignment_lp(rt.sizes, np.stack(cols, axis=1), omega, k)
            if cost is not None and (best is None or cost < best):
                best = cost
    return best
