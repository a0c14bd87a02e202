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

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.fpt.candidates import Candidates
from starmin.algorithms.fpt.network import Assignment, IntArray, solve_flow


class PRowAssignment:
    """p-ROW ASSIGNMENT over fixed candidates: ``counts`` ``(t_in, |Sigma|)`` rows per
    (row type, sensitive value), at least ``k`` rows and ``p`` values per guessed class."""

    unit = "stars"
    """What the costs count, for messages (a DGH method sets ``"loss units"``)."""

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

    def _p_arcs(self, guessed: NDArray[np.bool_], first: int) -> _PArcs:
        """The p-part of every guessed candidate ``j``: nodes ``u_{j,sigma}`` and ``u_j^p``
        numbered from ``first``, arcs ``v_{i,sigma} -> u_{j,sigma}`` (cost ``omega_j``) and
        ``u_{j,sigma} -> u_j^p`` (capacity 1), and each ``u_j^p``'s demand ``p``."""
        out = _PArcs([], [], [], [], [], [], [], first)
        for j in np.flatnonzero(guessed).tolist():
            cells, node_of, values = self._p_part(j)
            hub = out.next + values  # u_j^p
            out.tail.append(cells)
            out.head.append(out.next + node_of)
            out.cost.append(np.full(len(cells), self.cand.omega[j], dtype=np.int64))
            out.out.append(np.full(len(cells), j, dtype=np.int64))
            out.hub_tail.extend(range(out.next, hub))
            out.hub_head.extend([hub] * values)
            out.hubs.append(hub)
            out.next = hub + 1
        return out

    def solve(self, guessed: NDArray[np.bool_], usable: NDArray[np.bool_]) -> Assignment | None:
        """The optimal assignment sending rows only to ``usable`` candidates, ``>= k`` rows
        with ``>= p`` values to each ``guessed`` one; ``None`` when none exists."""
        C, n, k, p, ints = self.cand.count, self.n, self.k, self.p, np.int64
        rest = n - k * int(guessed.sum())
        if rest < 0:
            return None
        Q = len(self.cell_type)
        W, U = Q, Q + self.t_in  # first w_i and first u_j node; cells v_{i,sigma} are 0..Q-1
        sel = usable[self.arc_out]
        aj, ai = self.arc_out[sel], self.arc_type[sel]
        uj = np.flatnonzero(usable).astype(ints)
        pa = self._p_arcs(guessed, U + C)
        sink = pa.next
        tails = np.concatenate([np.arange(Q, dtype=ints), W + ai, U + uj, *pa.tail,
                                np.asarray(pa.hub_tail, dtype=ints)])
        heads = np.concatenate([W + self.cell_type, U + aj, np.full(len(uj), sink, ints),
                                *pa.head, np.asarray(pa.hub_head, dtype=ints)])
        cost = np.concatenate([np.zeros(Q, ints), self.cand.omega[aj], np.zeros(len(uj), ints),
                               *pa.cost, np.zeros(len(pa.hub_tail), ints)])
        cap = np.full(len(tails), n, dtype=ints)
        cap[len(tails) - len(pa.hub_tail):] = 1  # (u_{j,sigma}, u_j^p): one unit per value
        supply = np.zeros(sink + 1, dtype=ints)
        supply[:Q] = self.counts[self.cell_type, self.cell_key]
        supply[U + np.flatnonzero(guessed)] = -(k - p)  # demand k, p of it through u_j^p
        supply[np.asarray(pa.hubs, dtype=ints)] = -p
        supply[sink] = -rest
        solved = solve_flow(tails, heads, cap, cost, supply)
        if solved is None:
            return None
        total, flows = solved
        x = flows[Q:Q + len(aj)]  # the w_i -> u_j arcs
        start = Q + len(aj) + len(uj)  # then the v_{i,sigma} -> u_{j,sigma} arcs
        pc = np.concatenate(pa.tail) if pa.tail else np.zeros(0, ints)
        po = np.concatenate(pa.out) if pa.out else np.zeros(0, ints)
        px = flows[start:start + len(pc)]
        rows = (np.bincount(aj, weights=x, minlength=C)
                + np.bincount(po, weights=px, minlength=C)).astype(np.int64)
        lx, lp = x > 0, px > 0
        return Assignment(
            total, rows,
            np.concatenate([aj[lx], po[lp]]), np.concatenate([ai[lx], self.cell_type[pc[lp]]]),
            np.concatenate([np.full(int(lx.sum()), -1, ints), self.cell_key[pc[lp]]]),
            np.concatenate([x[lx], px[lp]]))


@dataclass
class _PArcs:
    """The p-part of a p-ROW ASSIGNMENT network (see :meth:`PRowAssignment._p_arcs`)."""

    tail: list[IntArray]
    head: list[IntArray]
    cost: list[IntArray]
    out: list[IntArray]
    hub_tail: list[int]
    hub_head: list[int]
    hubs: list[int]
    next: int
