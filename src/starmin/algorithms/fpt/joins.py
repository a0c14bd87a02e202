"""The DGH form of Algorithm 1's Step 3: output entries as lowest common ancestors.

Bredereck et al. (Sec. 4.4, before Theorem 5) modify Step 3 of Algorithm 1 for domain
generalization hierarchies: "for each output row type R', set the value at position i to be the
most specific value which generalizes the values at position i of all the row types which
assign at least one row to R'". Per column that is the lowest common ancestor (LCA) of the
values, in the column's hierarchy (:mod:`starmin.data.hierarchies`). With the flat hierarchy
(suppression only) the LCA of equal values is the value and of different values the root
(``*``): the suppressor of Step 3 as printed.

:class:`Joins` holds, per column, the table ``join[x, v]``: the LCA of a node ``x`` (a value,
an internal node or the root) and a value ``v``. Building a candidate output row type by adding
one row type at a time (:mod:`.candidates`: the subsets and merging routes) needs exactly this
merge, and ``v`` generalizes row type ``i`` iff merging ``i`` into ``v`` leaves ``v`` unchanged.

The LCA is read from the hierarchy's ``up`` table (``up[h, v]``: the ancestor of value ``v``
at level ``h``, the lowest of level ``>= h``). Levels rise strictly along every path, so for a
node ``x`` at level ``l`` and any value ``r`` under it, ``up[h, r]`` for ``h >= l`` walks from
``x`` to the root; the LCA of ``x`` and ``v`` is ``up[h, v]`` at the first ``h >= l`` where
``up[h, r] == up[h, v]``.

Size and work: ``(nodes + 1) x card`` int32 entries per column, built in
``O(height x (nodes + 1) x card)``. The fixed-parameter methods build it only for tables within
their ``t_in`` limit (``card <= t_in`` values per column).

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 4.4 (DGH-k-ANONYMITY,
Theorem 5; DGH-p-SENSITIVITY, Corollary 2) and Sec. 4.1 (Algorithm 1, Step 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.data.hierarchies import ROOT, ColumnHierarchy, Hierarchies


def join_table(col: ColumnHierarchy) -> NDArray[np.int32]:
    """``(nodes + 1, card)``: ``join[x, v]`` the LCA of node ``x`` and value ``v``; row
    ``-1`` (the last) is the root, whose join with anything is the root."""
    N, card, up = col.nodes, col.card, col.up
    rep = np.zeros(N + 1, dtype=np.int64)  # a value under each node (0 for the root)
    for h in range(col.height - 1, -1, -1):  # ends with the values themselves at h = 0
        rep[up[h]] = np.arange(card)
    rep[N] = 0
    lvl = np.append(col.level, col.height).astype(np.int64)  # (N + 1,)
    out = np.full((N + 1, card), ROOT, dtype=np.int32)
    todo = np.ones((N + 1, card), dtype=bool)
    todo[N] = False
    for h in range(col.height + 1):
        same = (lvl[:, None] <= h) & (up[h][rep][:, None] == up[h][None, :])
        hit = todo & same
        out[hit] = np.broadcast_to(up[h][None, :], out.shape)[hit]
        todo &= ~same
        if not todo.any():
            break
    return out


@dataclass(frozen=True, eq=False)
class Joins:
    """Per QI column the :func:`join_table` of its hierarchy."""

    tables: tuple[NDArray[np.int32], ...]

    @classmethod
    def of(cls, dgh: Hierarchies) -> Joins:
        return cls(tuple(join_table(c) for c in dgh.columns))

    def merge(self, vectors: NDArray[np.integer], codes: NDArray[np.integer]
              ) -> NDArray[np.int32]:
        """Per cell the LCA of an output vector's node and a row type's value; the shapes of
        ``vectors`` (``(..., m)`` nodes) and ``codes`` (``(..., m)`` values) broadcast."""
        v, c = np.broadcast_arrays(np.asarray(vectors), np.asarray(codes))
        out = np.empty(v.shape, dtype=np.int32)
        for j, t in enumerate(self.tables):
            out[..., j] = t[v[..., j], c[..., j]]
        return out

    def covers(self, vectors: NDArray[np.integer], codes: NDArray[np.integer]
               ) -> NDArray[np.bool_]:
        """``(C, t_in)``: output vector ``j`` generalizes row type ``i`` (per cell the value
        itself or one of its ancestors)."""
        v = np.asarray(vectors)[:, None, :]
        return (self.merge(v, np.asarray(codes)[None, :, :]) == v).all(axis=2)
