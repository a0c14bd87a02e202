"""Min-cost flow through OR-Tools, and what a solved ROW ASSIGNMENT returns.

Both assignment problems of Bredereck et al. (ROW ASSIGNMENT, Lemma 1; p-ROW ASSIGNMENT,
Lemma 3) are solved as minimum-cost flows with OR-Tools' ``SimpleMinCostFlow`` (the network
simplex of a maintained library; integral supplies and capacities give an integral optimal
flow, the integrality property both proofs use). Lower bounds on arcs are removed by the
standard demand shift before the call (see :mod:`.p_row_assignment`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.errors import SolverLimit, StarminError

IntArray = NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class Assignment:
    """An optimal flow of one (relaxed) ROW ASSIGNMENT instance.

    Attributes
    ----------
    cost : stars of the assignment (``sum g(i, j) * omega_j``).
    rows : ``(C,)`` rows sent to each candidate output row type.
    out_idx, type_idx, key_idx, count : ``(nnz,)`` ``count`` rows of (row type, sensitive
        key) go to candidate ``out_idx`` (the ``g(i, sigma, j)`` of p-ROW ASSIGNMENT).
    """

    cost: int
    rows: IntArray
    out_idx: IntArray
    type_idx: IntArray
    key_idx: IntArray
    count: IntArray


def solve_flow(tails: IntArray, heads: IntArray, capacity: IntArray, cost: IntArray,
               supply: IntArray) -> tuple[int, IntArray] | None:
    """Optimal cost and ``(arcs,)`` flows of the min-cost flow with node ``supply``
    (``nodes,``, negative: demand) and arcs ``tails -> heads``; ``None`` when infeasible."""
    from ortools.graph.python import min_cost_flow

    mcf = min_cost_flow.SimpleMinCostFlow()
    if len(tails):
        mcf.add_arcs_with_capacity_and_unit_cost(tails, heads, capacity, cost)
    nodes = np.arange(len(supply), dtype=np.int64)
    mcf.set_nodes_supplies(nodes, supply)
    status = mcf.solve()
    if status == mcf.INFEASIBLE:
        return None
    if status != mcf.OPTIMAL:
        raise SolverLimit(f"OR-Tools min-cost flow ended with status {status} on a ROW "
                          "ASSIGNMENT network; please report this with the input")
    flows = np.asarray(mcf.flows(np.arange(len(tails), dtype=np.int64)), dtype=np.int64)
    return int(mcf.optimal_cost()), flows


def with_keys(counts: IntArray, a: Assignment) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The assignment ``a`` as ``(out, type, key, count)`` arrays over sensitive keys.

    Entries with ``key_idx >= 0`` are kept; an entry with ``key_idx == -1`` sends rows of a
    row type without saying which: they are handed out key by key in key order from the rows
    of that type not yet assigned (``counts`` is ``(t_in, s)``). Rows of one row type are
    interchangeable for cost and class size, so any such split releases the assignment."""
    remaining = np.array(counts, dtype=np.int64, copy=True)
    fixed = a.key_idx >= 0
    np.subtract.at(remaining, (a.type_idx[fixed], a.key_idx[fixed]), a.count[fixed])
    o: list[int] = []
    t: list[int] = []
    key: list[int] = []
    c: list[int] = []
    for j, i, need in zip(a.out_idx[~fixed].tolist(), a.type_idx[~fixed].tolist(),
                          a.count[~fixed].tolist(), strict=True):
        for s in np.flatnonzero(remaining[i]).tolist():
            if need == 0:
                break
            take = min(need, int(remaining[i, s]))
            remaining[i, s] -= take
            need -= take
            o.append(j)
            t.append(i)
            key.append(s)
            c.append(take)
    if (remaining != 0).any():
        raise StarminError("ROW ASSIGNMENT left rows unassigned (flow conservation failed): "
                           "please report this as a bug with the input")

    def cat(kept: IntArray, split: list[int]) -> IntArray:
        return np.concatenate([kept, np.asarray(split, dtype=np.int64)])

    return (cat(a.out_idx[fixed], o), cat(a.type_idx[fixed], t), cat(a.key_idx[fixed], key),
            cat(a.count[fixed], c))
