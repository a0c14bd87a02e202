"""Independent, per-class, pure-Python definitions of every model (exact rationals).

Nothing here shares code with starmin.models: each function states the paper's definition
for one class literally, with Fractions and Python integers, and the EMD by a general LP.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import pairwise

import numpy as np
from scipy.optimize import linprog


def l_frequency(c: list[int], l: int) -> bool:
    """Xiao et al. Def. 2: at most |G|/l rows share a value."""
    n = sum(c)
    return all(Fraction(x) <= Fraction(n, l) for x in c)


def l_distinct(c: list[int], l: int) -> bool:
    return len([x for x in c if x > 0]) >= l


def l_entropy(c: list[int], l: int) -> bool:
    """-sum p log p >= log l  <=>  n^n >= l^n * prod c^c (all integers)."""
    n = sum(c)
    rhs = l ** n
    for x in c:
        if x:
            rhs *= x ** x
    return n ** n >= rhs


def l_recursive(c: list[int], cc: Fraction, l: int) -> bool:
    r = sorted((x for x in c if x > 0), reverse=True)
    if len(r) < l:
        return False
    return r[0] < cc * sum(r[l - 1:])


def p_sensitive(c: list[int], p: int, k: int) -> bool:
    return sum(c) >= k and len([x for x in c if x > 0]) >= p


def distributions(c: list[int], o: list[int]) -> tuple[list[Fraction], list[Fraction]]:
    n, N = sum(c), sum(o)
    return [Fraction(x, n) for x in c], [Fraction(x, N) for x in o]


def emd_equal(c: list[int], o: list[int]) -> Fraction:
    P, Q = distributions(c, o)
    return sum((abs(p - q) for p, q in zip(P, Q, strict=True)), Fraction(0)) / 2


def emd_ordered(c: list[int], o: list[int]) -> Fraction:
    """Li et al.: values in the given order, distance |i-j|/(m-1)."""
    P, Q = distributions(c, o)
    m = len(P)
    if m == 1:
        return Fraction(0)
    total, run = Fraction(0), Fraction(0)
    for p, q in zip(P[:-1], Q[:-1], strict=True):
        run += p - q
        total += abs(run)
    return total / (m - 1)


def hierarchy_matrix(rows: list[tuple[str, ...]]) -> np.ndarray:
    """Ground distance of a hierarchy: level of the lowest common ancestor / height."""
    H = len(rows[0]) - 1
    S = len(rows)
    D = np.zeros((S, S))
    for i in range(S):
        for j in range(S):
            lvl = next(k for k in range(H + 1) if rows[i][k] == rows[j][k]) if i != j else 0
            D[i, j] = lvl / H
    return D


def emd_lp(c: list[int], o: list[int], D: np.ndarray) -> float:
    """Liang & Yuan Sec. 2.1: the full |S| x |S| transport LP, in floating point."""
    P, Q = distributions(c, o)
    S = len(P)
    A = np.zeros((2 * S, S * S))
    for i in range(S):
        A[i, i * S:(i + 1) * S] = 1
        A[S + i, i::S] = 1
    b = np.array([float(x) for x in P] + [float(x) for x in Q])
    # tight tolerances: at HiGHS's defaults (1e-7) the reported optimum can sit a few 1e-9
    # above the true one, more than the safety checks that compare against it allow
    res = linprog(np.asarray(D, float).reshape(-1), A_eq=A, b_eq=b, bounds=(0, None),
                  method="highs", options={"primal_feasibility_tolerance": 1e-10,
                                           "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0
    return float(res.fun)


def is_sorted(xs: list[object]) -> bool:
    return all(a <= b for a, b in pairwise(xs))  # type: ignore[operator]
