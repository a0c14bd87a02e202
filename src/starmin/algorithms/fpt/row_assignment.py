"""ROW ASSIGNMENT (Bredereck et al., Lemma 1) as an uncapacitated minimum-cost flow.

Given the output row types (candidates with costs ``omega_j``), assign every row to one of them
so that each guessed output row type receives at least ``k`` rows, at the fewest stars.

The network of Lemma 1's proof: a node ``v_i`` per input row type with supply ``n_i``, a node
``u_j`` per output row type with demand ``k``, a sink ``t`` with demand ``n - k * t_out``; arcs
``(v_i, u_j)`` of cost ``omega_j`` where row type ``i`` may go to ``j`` and ``(u_j, t)`` of cost 0.
Arcs are uncapacitated (capacity ``n`` here: no arc can carry more). An optimal integral flow
is an optimal assignment ``g(i, j) = f(v_i, u_j)``: the demands give constraints (2) and (3),
the missing arcs (1), the cost (4).

For the branch and bound of :mod:`.search` the network also takes *undecided* output row
types: nodes ``u_j`` with demand 0 (rows may go there or not, in any number). Dropping the
``>= k`` requirement of a row type can only lower the optimum, so this flow is a lower bound on
every guess that may still use them (a relaxation; each guessed type keeps demand ``k``).

Size: ``t_in + C + 1`` nodes and ``sum_j |G(j)| + C`` arcs for ``C`` candidates; OR-Tools'
network simplex.

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 4.1, ROW ASSIGNMENT,
Lemma 1 and its proof (Fig. 3).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.fpt.candidates import Candidates
from starmin.algorithms.fpt.network import Assignment, IntArray, solve_flow


class RowAssignment:
    """ROW ASSIGNMENT over fixed candidates: rows per row type ``sizes`` ``(t_in,)``, least
    class size ``k``. :meth:`solve` answers one guess (or relaxation of one)."""

    unit = "stars"
    """What the costs count, for messages (a DGH method sets ``"loss units"``)."""

    def __init__(self, sizes: NDArray[np.integer], cand: Candidates, k: int) -> None:
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.cand = cand
        self.k = int(k)
        self.n = int(self.sizes.sum())
        self.arc_out, self.arc_type = (np.asarray(a, dtype=np.int64)
                                       for a in np.nonzero(cand.covers))  # (A,) each

    def solve(self, guessed: NDArray[np.bool_], usable: NDArray[np.bool_]) -> Assignment | None:
        """The optimal assignment sending rows only to ``usable`` candidates, at least ``k``
        rows to each ``guessed`` one (``guessed`` implies ``usable``); ``None``: none exists."""
        t_in, C, n = len(self.sizes), self.cand.count, self.n
        rest = n - self.k * int(guessed.sum())
        if rest < 0:
            return None
        sel = usable[self.arc_out]
        aj, ai = self.arc_out[sel], self.arc_type[sel]
        uj = np.flatnonzero(usable).astype(np.int64)
        sink = t_in + C
        # nodes: v_i = i (t_in), u_j = t_in + j (C), t = sink
        tails = np.concatenate([ai, t_in + uj])
        heads = np.concatenate([t_in + aj, np.full(len(uj), sink, dtype=np.int64)])
        cost = np.concatenate([self.cand.omega[aj], np.zeros(len(uj), dtype=np.int64)])
        supply = np.zeros(sink + 1, dtype=np.int64)
        supply[:t_in] = self.sizes
        supply[t_in + np.flatnonzero(guessed)] = -self.k
        supply[sink] = -rest
        solved = solve_flow(tails, heads, np.full(len(tails), n, dtype=np.int64), cost, supply)
        if solved is None:
            return None
        total, flows = solved
        x: IntArray = flows[:len(aj)]
        live = x > 0
        rows = np.bincount(aj, weights=x, minlength=C).astype(np.int64)
        return Assignment(total, rows, aj[live], ai[live], np.full(int(live.sum()), -1, np.int64),
                          x[live])
