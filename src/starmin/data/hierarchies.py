"""Domain generalization hierarchies over node codes: what plans, algorithms and engines see.

A released QI cell is a *node* of its column's hierarchy (Sweeney's domain generalization
hierarchy, DGH; Bredereck et al., Sec. 4.4): the value itself, one of its ancestors, or the
root. Per QI column ``j`` with ``card`` values (``RowTypes.domains[j]``):

* the leaves are the value codes ``0 .. card - 1`` (as in :class:`~starmin.data.RowTypes`);
* internal nodes have codes ``card .. nodes - 1``;
* the root is :data:`ROOT` ``= -1``, the same code as ``STAR`` of a release plan: suppression
  is the hierarchy with no internal node (:meth:`ColumnHierarchy.flat`), and a star is a cell
  at the root.

Each node has a *level*: leaves 0, the root ``height``; a node's parent has a higher level
(levels may jump to the root: a value that generalizes straight to ``*``). The ancestor of a
leaf "at level h" is its lowest ancestor-or-self whose level is ``>= h``
(:attr:`ColumnHierarchy.up`), so generalizing a column to level ``h`` is well defined.
``leaves[node]`` counts the values of the hierarchy's domain under each node (the hierarchy
file may list values the table lacks; ARX counts them too), the basis of Iyengar's loss.

This module holds only numbers (labels of internal nodes are kept for the engine, which writes
them); reading ARX files and building these from a table's domain is
:mod:`starmin.transform.nodes`. It imports nothing else of starmin.

Complexity: construction ``O(height x card + nodes)``; :meth:`Hierarchies.covers` and
:meth:`Hierarchies.level_of` are ``O(cells)`` array gathers; :meth:`ColumnHierarchy.lca` is
``O(height x g)`` for ``g`` leaves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

ROOT = -1
"""Code of the root of every column's hierarchy (a suppressed cell, ``*``)."""


@dataclass(frozen=True, eq=False)
class ColumnHierarchy:
    """One QI column's hierarchy over node codes (see the module docstring).

    Attributes
    ----------
    card : number of values of the column in the table (leaf codes ``0 .. card - 1``).
    parent : ``(nodes,)`` parent of each leaf and internal node; :data:`ROOT` for children of
        the root.
    level : ``(nodes,)`` level of each node (leaves 0, internal nodes ``1 .. height - 1``).
    height : the root's level (``>= 1``; 1 for suppression only).
    labels : the label of each internal node (code ``card + i`` has ``labels[i]``).
    leaves : ``(nodes,)`` values of the hierarchy's domain under each node (>= 1).
    domain : values of the hierarchy's domain (leaves under the root, ``>= card``).
    source : where the hierarchy came from (a file, ``built-in intervals``, ``flat``).
    """

    card: int
    parent: NDArray[np.int32]
    level: NDArray[np.int32]
    height: int
    labels: tuple[str, ...] = ()
    leaves: NDArray[np.int64] | None = None
    domain: int | None = None
    source: str = ""
    observed: NDArray[np.int64] = field(init=False, repr=False)
    """``(nodes,)``: the table's values under each node (1 for a value; ``card`` under the
    root), unlike :attr:`leaves`, which counts the hierarchy's whole domain."""
    up: NDArray[np.int32] = field(init=False, repr=False)
    """``(height + 1, card)``: ``up[h, v]`` is the ancestor-or-self of leaf ``v`` at level
    ``h`` (its lowest ancestor of level ``>= h``); ``up[0]`` the leaves, ``up[height]``
    all :data:`ROOT`."""

    def __post_init__(self) -> None:
        parent = np.ascontiguousarray(self.parent, dtype=np.int32)
        level = np.ascontiguousarray(self.level, dtype=np.int32)
        nodes = self.card + len(self.labels)
        leaves = (np.ones(nodes, dtype=np.int64) if self.leaves is None
                  else np.ascontiguousarray(self.leaves, dtype=np.int64))
        if parent.shape != (nodes,) or level.shape != (nodes,) or leaves.shape != (nodes,):
            raise ValueError(f"parent, level and leaves must have card + len(labels) = {nodes} "
                             "entries")
        if self.height < 1 or (level[:self.card] != 0).any() \
                or (level[self.card:] < 1).any() or (level[self.card:] >= self.height).any():
            raise ValueError("leaves have level 0 and internal nodes 1 .. height - 1")
        if ((parent < ROOT) | (parent >= nodes)
                | ((parent < self.card) & (parent != ROOT))).any():
            raise ValueError("a parent must be an internal node or ROOT")
        inner = parent != ROOT
        if (level[parent[inner]] <= level[inner]).any():
            raise ValueError("a parent must have a higher level than its child")
        domain = int(self.domain) if self.domain is not None else self.card
        if domain < self.card or (leaves < 1).any() or (leaves > domain).any():
            raise ValueError("leaves under a node must lie in 1 .. domain (>= card)")
        object.__setattr__(self, "parent", parent)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "leaves", leaves)
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "up", self._ancestors())
        observed = np.zeros(nodes, dtype=np.int64)
        cur = np.arange(self.card, dtype=np.int64)
        while len(cur):  # add each value to every node on its path to the root
            np.add.at(observed, cur, 1)
            cur = parent[cur].astype(np.int64)
            cur = cur[cur != ROOT]
        object.__setattr__(self, "observed", observed)

    def _ancestors(self) -> NDArray[np.int32]:
        up = np.empty((self.height + 1, self.card), dtype=np.int32)
        cur = np.arange(self.card, dtype=np.int32)
        lvl_ext = np.append(self.level, self.height)  # level of ROOT at index -1
        par_ext = np.append(self.parent, ROOT)
        for h in range(self.height + 1):
            while True:  # climb while the current node sits below level h
                low = lvl_ext[cur] < h
                if not low.any():
                    break
                cur = np.where(low, par_ext[cur], cur).astype(np.int32)
            up[h] = cur
        return up

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def flat(cls, card: int, source: str = "flat") -> ColumnHierarchy:
        """Suppression only: every value's parent is the root (height 1)."""
        return cls(card, np.full(card, ROOT, dtype=np.int32), np.zeros(card, dtype=np.int32),
                   1, (), None, None, source)

    # -- sizes ---------------------------------------------------------------------------------
    @property
    def nodes(self) -> int:
        """Leaves plus internal nodes (the root not counted)."""
        return self.card + len(self.labels)

    @property
    def is_flat(self) -> bool:
        """True for suppression only (no internal node)."""
        return not self.labels

    # -- per-node facts (ROOT allowed) ---------------------------------------------------------
    def level_of(self, node: NDArray[np.integer]) -> NDArray[np.int32]:
        """Level of each node code (``height`` for :data:`ROOT`), same shape."""
        return np.append(self.level, np.int32(self.height))[np.asarray(node)]

    def leaves_of(self, node: NDArray[np.integer]) -> NDArray[np.int64]:
        """Domain values under each node code (``domain`` for :data:`ROOT`), same shape."""
        assert self.leaves is not None and self.domain is not None
        return np.append(self.leaves, np.int64(self.domain))[np.asarray(node)]

    def observed_of(self, node: NDArray[np.integer]) -> NDArray[np.int64]:
        """The table's values under each node code (``card`` for :data:`ROOT`), same shape."""
        return np.append(self.observed, np.int64(self.card))[np.asarray(node)]

    def covers(self, node: NDArray[np.integer], leaf: NDArray[np.integer]) -> NDArray[np.bool_]:
        """Elementwise: is ``node`` the leaf itself, one of its ancestors, or the root?"""
        node = np.asarray(node, dtype=np.int64)
        leaf = np.asarray(leaf, dtype=np.int64)
        valid = (node >= ROOT) & (node < self.nodes) & (leaf >= 0) & (leaf < self.card)
        nd = np.where(valid, node, ROOT)
        lf = np.where(valid, leaf, 0)
        return valid & ((nd == ROOT) | (self.up[self.level_of(nd), lf] == nd))

    def lca(self, leaves: NDArray[np.integer]) -> int:
        """The most specific node covering every given leaf (their lowest common ancestor;
        the leaf itself when all are equal); :data:`ROOT` for none."""
        v = np.asarray(leaves, dtype=np.int64)
        if len(v) == 0:
            return ROOT
        for h in range(self.height + 1):
            anc = self.up[h, v]
            if (anc == anc[0]).all():
                return int(anc[0])
        return ROOT  # pragma: no cover - up[height] is all ROOT

    def label(self, node: int) -> str:
        """The label of an internal node (leaves are labeled by the table's values)."""
        if not self.card <= node < self.nodes:
            raise ValueError(f"{node} is not an internal node code")
        return self.labels[node - self.card]


@dataclass(frozen=True, eq=False)
class Hierarchies:
    """One :class:`ColumnHierarchy` per QI column, in the order of ``RowTypes.qi``."""

    columns: tuple[ColumnHierarchy, ...]

    @classmethod
    def flat(cls, cards: Sequence[int]) -> Hierarchies:
        """Suppression only for every column."""
        return cls(tuple(ColumnHierarchy.flat(int(c)) for c in cards))

    def __len__(self) -> int:
        return len(self.columns)

    def __getitem__(self, j: int) -> ColumnHierarchy:
        return self.columns[j]

    @property
    def is_flat(self) -> bool:
        """True when every column is suppression only."""
        return all(c.is_flat for c in self.columns)

    @property
    def heights(self) -> tuple[int, ...]:
        return tuple(c.height for c in self.columns)

    def covers(self, outputs: NDArray[np.integer], codes: NDArray[np.integer]
               ) -> NDArray[np.bool_]:
        """``(r, m)``: is each output cell the row's value, an ancestor of it, or the root?"""
        outputs = np.asarray(outputs)
        codes = np.asarray(codes)
        out = np.empty(outputs.shape, dtype=bool)
        for j, c in enumerate(self.columns):
            out[:, j] = c.covers(outputs[:, j], codes[:, j])
        return out

    def level_of(self, outputs: NDArray[np.integer]) -> NDArray[np.int32]:
        """``(r, m)`` level of each output cell (the root: its column's height)."""
        outputs = np.asarray(outputs)
        out = np.empty(outputs.shape, dtype=np.int32)
        for j, c in enumerate(self.columns):
            out[:, j] = c.level_of(outputs[:, j])
        return out

    def leaves_of(self, outputs: NDArray[np.integer]) -> NDArray[np.int64]:
        """``(r, m)`` domain values under each output cell's node."""
        outputs = np.asarray(outputs)
        out = np.empty(outputs.shape, dtype=np.int64)
        for j, c in enumerate(self.columns):
            out[:, j] = c.leaves_of(outputs[:, j])
        return out

    def observed_of(self, outputs: NDArray[np.integer]) -> NDArray[np.int64]:
        """``(r, m)`` the table's values under each output cell's node."""
        outputs = np.asarray(outputs)
        out = np.empty(outputs.shape, dtype=np.int64)
        for j, c in enumerate(self.columns):
            out[:, j] = c.observed_of(outputs[:, j])
        return out

    def generalized(self, outputs: NDArray[np.integer]) -> NDArray[np.bool_]:
        """``(r, m)``: is each cell an internal node (neither a value nor the root)?"""
        outputs = np.asarray(outputs)
        cards = np.array([c.card for c in self.columns], dtype=np.int64)
        return outputs >= cards[None, :]

    def generalizer(self, codes: NDArray[np.integer]) -> NDArray[np.int32]:
        """The most specific output vector covering QI vectors ``(g, m)``: per column the
        lowest common ancestor (Bredereck et al., Sec. 4.4, the step before Theorem 5); the
        DGH form of the suppressor, equal to it for flat hierarchies."""
        codes = np.asarray(codes)
        return np.array([c.lca(codes[:, j]) for j, c in enumerate(self.columns)],
                        dtype=np.int32)
