"""What a released node costs, and the tree operations recoding needs, per QI column.

A released cell is a node of its column's hierarchy (:mod:`starmin.data.hierarchies`; the
root :data:`~starmin.data.hierarchies.ROOT` ``= -1`` is a star). Its *cost* depends on the
objective:

* ``"loss"``: Iyengar's per-cell loss (LM, 2002, Sec. 3.1; :mod:`starmin.transform.loss`),
  ``(leaves(x) - 1) / (D_j - 1)`` with ``leaves(x)`` the values of the hierarchy's domain
  under ``x`` and ``D_j`` the domain's size (0 for a column with a single value);
* ``"stars"``: 1 at the root, else 0 (Liang & Yuan's cost, Sec. 2).

Both are *monotone up the tree*: an ancestor costs at least what its descendants cost (an
ancestor holds every leaf of its descendants). So the cheapest node that covers a set of
values is their lowest common ancestor (LCA; Bredereck et al. Sec. 4.4, the output step
before Theorem 5), and the cheapest release of a class is its LCA in every column: the
*generalizer* (:meth:`~starmin.data.hierarchies.Hierarchies.generalizer`).

LCA of many leaves at once: the leaves are ranked in a depth-first order (sorted by their
ancestors from the top down), in which every node's leaves are contiguous; the LCA of a set
is then the LCA of its lowest- and highest-ranked leaves, found by climbing ``up`` (at most
``height + 1`` array gathers).

Complexity: ``O(height x card)`` to build a column; ``O(height x g)`` for ``g`` LCAs or
children.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.data.hierarchies import ROOT, ColumnHierarchy, Hierarchies

OBJECTIVES = ("stars", "loss")
"""What a recoding method can minimize (``Algorithm.objectives``)."""

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


def node_cost(col: ColumnHierarchy, objective: str) -> FloatArray:
    """``(nodes + 1,)`` cost of each node code, the root last (index ``-1`` = :data:`ROOT`)."""
    if objective == "stars":
        out = np.zeros(col.nodes + 1)
        out[-1] = 1.0
        return out
    if objective != "loss":
        raise ValueError(f"unknown objective {objective!r}")
    assert col.leaves is not None and col.domain is not None
    leaves = np.append(col.leaves, col.domain).astype(np.float64)
    if col.domain <= 1:
        return np.zeros(col.nodes + 1)
    return (leaves - 1.0) / (col.domain - 1.0)


@dataclass(frozen=True, eq=False)
class ColumnTree:
    """One column's hierarchy as recoding uses it (see the module docstring)."""

    col: ColumnHierarchy
    cost: FloatArray
    """``(nodes + 1,)`` cost per node code (root last)."""
    rank: IntArray
    """``(card,)`` depth-first rank of each leaf."""
    leaf_at: IntArray
    """``(card,)`` the leaf of each rank."""
    parent: NDArray[np.int32]
    """``(nodes + 1,)`` parent per node code; the root's entry (last) is ``-2`` (none)."""

    @classmethod
    def of(cls, col: ColumnHierarchy, objective: str) -> ColumnTree:
        up = col.up
        order = np.lexsort(tuple(up[h] for h in range(up.shape[0])))  # top level primary
        rank = np.empty(col.card, dtype=np.int64)
        rank[order] = np.arange(col.card)
        parent = np.append(col.parent, np.int32(-2)).astype(np.int32)
        return cls(col, node_cost(col, objective), rank, order.astype(np.int64), parent)

    def lca(self, a: NDArray[np.integer], b: NDArray[np.integer]) -> NDArray[np.int32]:
        """Elementwise LCA of leaves ``a`` and ``b`` (node codes; :data:`ROOT` if only the
        root covers both)."""
        up = self.col.up
        out = np.full(len(a), ROOT, dtype=np.int32)
        todo = np.ones(len(a), dtype=bool)
        for h in range(up.shape[0]):
            x, y = up[h, a], up[h, b]
            hit = todo & (x == y)
            out[hit] = x[hit]
            todo &= ~hit
            if not todo.any():
                break
        return out

    def lca_of_ranks(self, lo: NDArray[np.integer], hi: NDArray[np.integer]
                     ) -> NDArray[np.int32]:
        """LCA of each set of leaves given by its lowest and highest depth-first rank."""
        return self.lca(self.leaf_at[lo], self.leaf_at[hi])

    def child_toward(self, x: NDArray[np.integer], leaf: NDArray[np.integer]
                     ) -> NDArray[np.int32]:
        """Elementwise: the child of node ``x`` on the path to ``leaf`` (``x`` must cover the
        leaf); ``x`` itself when ``x`` is the leaf."""
        up = self.col.up
        out: NDArray[np.int32] = np.array(x, dtype=np.int32)
        x = out.copy()
        for h in range(up.shape[0]):
            a = up[h, leaf]
            hit = self.parent[a] == x
            out[hit] = a[hit]
        return out


def column_trees(dgh: Hierarchies, objective: str) -> tuple[ColumnTree, ...]:
    """A :class:`ColumnTree` per QI column."""
    return tuple(ColumnTree.of(c, objective) for c in dgh.columns)


def vector_cost(trees: tuple[ColumnTree, ...], outputs: NDArray[np.integer]) -> FloatArray:
    """``(g,)`` cost of one row released as each output vector ``(g, m)``."""
    outputs = np.asarray(outputs)
    total = np.zeros(outputs.shape[0])
    for j, t in enumerate(trees):
        total += t.cost[outputs[:, j]]
    return total
