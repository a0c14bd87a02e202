"""The restricted master of the class formulation: set partitioning of the table's rows.

``min sum_C cost(C) lambda_C`` subject to ``sum_C x_C(p) lambda_C = c_p`` for every (row
type, key) pair ``p`` and ``lambda >= 0`` (the LP; its duals ``pi`` price new classes) or
``lambda`` integer (the release). Solved with HiGHS through SciPy (``linprog``, ``milp``;
deterministic, no clock).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.classes.pricing import Pairs
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import suppressor


@dataclass
class Columns:
    """The classes of the restricted master: ``x`` (one ``(P,)`` count vector each) and
    their costs (rows x starred columns); duplicates are dropped."""

    rt: RowTypes
    pairs: Pairs
    x: list[NDArray[np.int64]] = field(default_factory=list)
    cost: list[int] = field(default_factory=list)
    _seen: set[bytes] = field(default_factory=set)

    def cost_of(self, x: NDArray[np.int64]) -> int:
        types = np.unique(self.pairs.type_of[x > 0])
        return int(x.sum()) * int((suppressor(self.rt.codes[types]) < 0).sum())

    def add(self, x: NDArray[np.int64]) -> bool:
        tag = np.asarray(x, dtype=np.int64).tobytes()
        if tag in self._seen or not x.any():
            return False
        self._seen.add(tag)
        self.x.append(np.asarray(x, dtype=np.int64))
        self.cost.append(self.cost_of(x))
        return True

    def matrix(self) -> object:
        from scipy.sparse import csc_matrix

        X = np.array(self.x, dtype=np.float64).T
        return csc_matrix(X)


@dataclass(frozen=True)
class LPResult:
    value: float
    pi: NDArray[np.float64]
    lam: NDArray[np.float64]


def solve_lp(cols: Columns) -> LPResult:
    """The restricted master LP (HiGHS dual simplex) with its equality duals."""
    from scipy.optimize import linprog

    res = linprog(np.array(cols.cost, dtype=np.float64), A_eq=cols.matrix(),
                  b_eq=cols.pairs.count.astype(np.float64), bounds=(0, None), method="highs")
    if res.status != 0:
        raise AssertionError(f"restricted master LP failed: {res.message}")
    return LPResult(float(res.fun), np.asarray(res.eqlin.marginals, dtype=np.float64),
                    np.asarray(res.x, dtype=np.float64))


@dataclass(frozen=True)
class IPResult:
    chosen: list[int]
    value: int | None
    optimal: bool
    message: str


def solve_ip(cols: Columns, node_limit: int) -> IPResult:
    """The restricted master with integer ``lambda`` (binary: each class at most once is
    enough, as equal classes merge)."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    b = cols.pairs.count.astype(np.float64)
    C = len(cols.x)
    ub = np.array([float(np.min(b[x > 0] // x[x > 0])) for x in cols.x])
    res = milp(np.array(cols.cost, dtype=np.float64),
               constraints=LinearConstraint(cols.matrix(), b, b),
               integrality=np.ones(C), bounds=Bounds(np.zeros(C), ub),
               options={"node_limit": int(node_limit), "mip_rel_gap": 0.0,
                        "presolve": True})
    if res.x is None:
        return IPResult([], None, False, str(res.message))
    lam = np.round(res.x).astype(np.int64)
    chosen = [int(c) for c in np.flatnonzero(lam) for _ in range(int(lam[c]))]
    value = int(sum(cols.cost[c] for c in chosen))
    return IPResult(chosen, value, res.status == 0, str(res.message))
