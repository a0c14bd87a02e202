"""p-ROW ASSIGNMENT (Bredereck et al., Lemma 3) as a minimum-cost flow with lower bounds.

ROW ASSIGNMENT for p-sensitive k-anonymity: rows are told apart by their sensitive value
``sigma`` (``n_{i,sigma}`` rows of row type ``i`` hold ``sigma``), and every guessed output row
type must receive at least ``k`` rows holding at least ``p`` distinct values (constraint (9)).

The network of Lemma 3's proof (Fig. 4): a node ``v_{i,sigma}`` with supply ``n_{i,sigma}``; per
guessed output row type ``j`` a node ``u_j`` with demand ``k``, nodes ``u_{j,sigma}`` and ``u_j^p``,
arcs ``(u_{j,sigma}, u_j^p)`` of capacity 1 and ``(u_j^p, u_j)`` with lower bound = capacity =
``p`` and cost ``omega_j``; arcs ``(v_{i,sigma}, u_{j,sigma})`` (cost 0) and ``(v_{i,sigma}, u_j)``
(cost ``omega_j``) where row type ``i`` may go to ``j``; a sink ``t`` with demand
``n - k * t_out`` and arcs ``(u_j, t)``. Exactly ``p`` units cross ``(u_j^p, u_j)``, one per value
at most, so the class holds ``p`` distinct values; every row entering ``u_j`` pays ``omega_j``
once.

Three equivalent rewrites make it an OR-Tools min-cost flow (which has no lower bounds):

1. *Demand shift* (the standard transformation for lower bounds): the arc ``(u_j^p, u_j)``
   with ``f_min = f_max = p`` carries exactly ``p`` units, so it is removed, ``u_j^p`` gets
   demand ``p`` and ``u_j``'s demand drops to ``k - p``. (OR-Tools is kept, rather than a small
   LP via scipy, because the shift is exact and the flow stays integral by construction.)
2. The arc's cost ``omega_j * p`` is moved onto the arcs ``(v_{i,sigma}, u_{j,sigma})``, which
   together carry exactly those ``p`` units: the flow cost is then the star count itself.
3. The ``|Sigma| * t_in * t_out`` arcs ``(v_{i,sigma}, u_j)`` go through one node ``w_i`` per
   row type (``v_{i,sigma} -> w_i`` at cost 0, ``w_i -> u_j`` at cost ``omega_j``): the same
   paths at the same costs, with ``t_in * t_out`` arcs instead.

Here ``k`` is ``max(k, p)`` (a class with ``p`` distinct values has ``>= p`` rows). Undecided
output row types of the branch and bound (:mod:`.search`) get a node ``u_j`` with demand 0 and
only the ``w_i -> u_j`` arcs: neither ``k`` nor ``p`` is required of them (a relaxation).

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 4.3, p-ROW ASSIGNMENT,
Lemma 3 and its proof (Fig. 4), Theorem 4.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.fpt.candidates import Candidates
from starmin.algorithms.fpt.network import Assignment, IntArray, solve_flow


class PRowAssignment:
    """p-ROW ASSIGNMENT over fixed candidates: ``counts`` ``(t_in, |Sigma|)`` rows per
    (row type, sensitive value), at least ``k`` rows and ``p`` values per guessed class."""

    def __init__(self, counts: NDArray[np.integer], cand: Candidates, k: int, p: int) -> None:
        self.counts = np.asarray(counts, dtype=np.int64)
        self.cand = cand
        self.p = int(p)
        self.k = max(int(k), self.p)
        self.sizes = self.counts.sum(axis=1)
        self.n = int(self.counts.sum())
        self.t_in = self.counts.shape[0]
        self.cell_type, self.cell_key = (np.asarray(a, dtype=np.int64)
                                         for a in np.nonzero(self.counts))  # (Q,) each
        self.arc_out, self.arc_type = (np.asarray(a, dtype=np.int64)
                                       for a in np.nonzero(cand.covers))  # (A,) each
        self._parts: dict[int, tuple[IntArray, IntArray, int]] = {}

    def _p_part(self, j: int) -> tuple[IntArray, IntArray, int]:
        """Candidate ``j``'s cells ``v_{i,sigma}`` (``i`` in ``G(j)``), the index of each one's
        ``u_{j,sigma}`` among ``j``'s value nodes, and the number of values (cached)."""
        if j not in self._parts:
            cells = np.flatnonzero(self.cand.covers[j, self.cell_type]).astype(np.int64)
            keys, node_of = np.unique(self.cell_key[cells], return_inverse=True)
            self._parts[j] = (cells, np.asarray(node_of, dtype=np.int64).reshape(-1), len(keys))
        return self._parts[j]

    def solve(self, guessed: NDArray[np.bool_], usable: NDArray[np.bool_]) -> Assignment | None:
        """The optimal assignment sending rows only to ``usable`` candidates, ``>= k`` rows
        with ``>= p`` values to each ``guessed`` one; ``None`` when none exists."""
        C, n, k, p = self.cand.count, self.n, self.k, self.p
        rest = n - k * int(guessed.sum())
        if rest < 0:
            return None
        Q, t_in = len(self.cell_type), self.t_in
        W, U = Q, Q + t_in  # first w_i and first u_j node
        sel = usable[self.arc_out]
        aj, ai = self.arc_out[sel], self.arc_type[sel]
        uj = np.flatnonzero(usable).astype(np.int64)
        # p-part of each guessed j: nodes u_{j,sigma}, u_j^p after the fixed ones
        nxt = U + C
        p_tail: list[IntArray] = []
        p_head: list[IntArray] = []
        p_cost: list[IntArray] = []
        p_out: list[IntArray] = []
        hub_tail: list[int] = []
        hub_head: list[int] = []
        demand: list[tuple[int, int]] = []
        for j in np.flatnonzero(guessed).tolist():
            cells, node_of, values = self._p_part(j)
            hub = nxt + values  # u_j^p
            p_tail.append(cells)
            p_head.append(nxt + node_of)
            p_cost.append(np.full(len(cells), self.cand.omega[j], dtype=np.int64))
            p_out.append(np.full(len(cells), j, dtype=np.int64))
            hub_tail.extend(range(nxt, hub))
            hub_head.extend([hub] * values)
            demand.append((hub, p))
            nxt = hub + 1
        sink = nxt
        ints = np.int64
        tails = np.concatenate([np.arange(Q, dtype=ints), W + ai, U + uj, *p_tail,
                                np.asarray(hub_tail, dtype=ints)])
        heads = np.concatenate([W + self.cell_type, U + aj, np.full(len(uj), sink, ints), *p_head,
                                np.asarray(hub_head, dtype=ints)])
        cost = np.concatenate([np.zeros(Q, ints), self.cand.omega[aj], np.zeros(len(uj), ints),
                               *p_cost, np.zeros(len(hub_tail), ints)])
        cap = np.full(len(tails), n, dtype=ints)
        cap[len(tails) - len(hub_tail):] = 1  # (u_{j,sigma}, u_j^p): one unit per value
        supply = np.zeros(sink + 1, dtype=ints)
        supply[:Q] = self.counts[self.cell_type, self.cell_key]
        supply[U + np.flatnonzero(guessed)] = -(k - p)  # demand k, p of it through u_j^p
        for node, d in demand:
            supply[node] = -d
        supply[sink] = -rest
        solved = solve_flow(tails, heads, cap, cost, supply)
        if solved is None:
            return None
        total, flows = solved
        a0, a1 = Q, Q + len(aj)  # the w_i -> u_j arcs
        x = flows[a0:a1]
        px = flows[a1 + len(uj):a1 + len(uj) + sum(len(c) for c in p_tail)]
        pc = np.concatenate(p_tail) if p_tail else np.zeros(0, ints)
        po = np.concatenate(p_out) if p_out else np.zeros(0, ints)
        rows = (np.bincount(aj, weights=x, minlength=C)
                + np.bincount(po, weights=px, minlength=C)).astype(np.int64)
        lx, lp = x > 0, px > 0
        return Assignment(
            total, rows,
            np.concatenate([aj[lx], po[lp]]), np.concatenate([ai[lx], self.cell_type[pc[lp]]]),
            np.concatenate([np.full(int(lx.sum()), -1, ints), self.cell_key[pc[lp]]]),
            np.concatenate([x[lx], px[lp]]))
