"""Ground distances for t-closeness and exact EMD numerators.

For a class with counts ``c`` (size ``n``) and the whole table's counts ``C`` (size ``N``),
every quantity here is computed from the integer differences ``D_i = c_i N - C_i n``
(``D_i / (nN) = P(class)_i - P(table)_i``). The equal, ordered and hierarchical distances have
closed forms whose value is ``numerator / (n N scale)`` with an integer numerator, so
t-closeness is decided by an exact integer comparison. Arbitrary metrics go through one LP per
distinct class distribution (see :mod:`starmin.models.matrix_distance`).

References
----------
Li, Li, Venkatasubramanian. t-Closeness: Privacy Beyond k-Anonymity and l-Diversity.
ICDE 2007, Sec. 4 (EMD; equal distance; ordered distance; hierarchical distance and its
closed form with extra / pos_extra / neg_extra).
Liang, Yuan. On the Complexity of t-Closeness Anonymization and Related Problems, Sec. 2.1
(EMD as an LP; Fact 1: in the equal-distance space EMD is the total variation distance).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.errors import InvalidInput
from starmin.models._params import natural_order, show, text_key

Numerators = Callable[[NDArray[Any]], tuple[NDArray[Any], int]]
"""``D -> (numerators, scale)`` of one ground distance for fixed values (``prepare``)."""


def _pos(x: NDArray[Any]) -> NDArray[Any]:
    return np.where(x > 0, x, 0)


@dataclass(frozen=True)
class EqualDistance:
    """Every two distinct values are at distance 1; EMD is then the total variation distance
    ``sum_i max(P_i - Q_i, 0)`` (Liang & Yuan Fact 1). Numerator ``sum_i max(D_i, 0)``."""

    @property
    def name(self) -> str:
        return "equal distance"

    def numerators(self, D: NDArray[Any], values: Sequence[object]) -> tuple[NDArray[Any], int]:
        """``(classes,)`` numerators and the scale: EMD = numerator / (n N scale).
        ``D`` is overwritten (it is a temporary of the caller)."""
        return self.prepare(values)(D)

    def prepare(self, values: Sequence[object]) -> Numerators:
        """:meth:`numerators` for these ``values``, with what depends on them computed once
        (nothing, for this distance)."""
        return lambda D: (np.maximum(D, 0, out=D).sum(axis=1), 1)


@dataclass(frozen=True)
class OrderedDistance:
    """Numeric or ordinal values ``v_1 < ... < v_m`` at distance ``|i - j| / (m - 1)``.

    Closed form (Li et al. Sec. 4): ``EMD = sum_{i<m} |D_1 + ... + D_i| / (m - 1)`` over the
    sorted values. By default the order is the natural sort of the values present in the whole
    table (numbers numerically, text lexicographically, the missing value last) and ``m`` is
    their number. ``order`` gives an explicit order (e.g. ``("low", "mid", "high")``); then
    ``m = len(order)`` and every present value must be listed.
    """

    order: tuple[object, ...] | None = None

    def __post_init__(self) -> None:
        if self.order is not None:
            order = tuple(self.order)
            if len({text_key(v) for v in order}) != len(order):
                raise InvalidInput("the order of the ordered distance lists a value twice: "
                                   "list each sensitive value once")
            object.__setattr__(self, "order", order)

    @property
    def name(self) -> str:
        return "ordered distance"

    def ranks(self, values: Sequence[object]) -> tuple[NDArray[np.int64], int]:
        """Position of each value in the order, and ``m``."""
        if self.order is None:
            return natural_order(values), len(values)
        pos = {text_key(v): i for i, v in enumerate(self.order)}
        missing = [show(v) for v in values if text_key(v) not in pos]
        if missing:
            raise InvalidInput(f"the order of the ordered distance lacks {', '.join(missing)}: "
                               "list every sensitive value of the table")
        return np.array([pos[text_key(v)] for v in values], dtype=np.int64), len(self.order)

    def numerators(self, D: NDArray[Any], values: Sequence[object]) -> tuple[NDArray[Any], int]:
        return self.prepare(values)(D)

    def prepare(self, values: Sequence[object]) -> Numerators:
        """:meth:`numerators` for these ``values``, their ranks computed once."""
        rank, m = self.ranks(values)

        def numerators(D: NDArray[Any]) -> tuple[NDArray[Any], int]:
            if m <= 1:
                return np.zeros(D.shape[0], dtype=D.dtype), 1
            full = np.zeros((D.shape[0], m), dtype=D.dtype)
            full[:, rank] = D
            cum = np.cumsum(full, axis=1)[:, :-1]
            return np.abs(cum).sum(axis=1), m - 1

        return numerators


@dataclass(frozen=True)
class HierarchicalDistance:
    """Values are leaves of a hierarchy tree of height ``H``; two values are at distance
    ``level(lowest common ancestor) / H``.

    ``rows`` are ARX-style rows ``(value, level-1 ancestor, ..., root)``, all of one length
    ``H + 1``, with a single root. Values are matched by their string form; the row whose first
    field is empty stands for the missing value. Closed form (Li et al. Sec. 4): with
    ``extra(leaf i) = D_i`` and ``extra(node) = sum of its children's extras``,
    ``EMD = sum over internal nodes N of height(N) / H * min(pos_extra(N), neg_extra(N))``,
    where pos/neg_extra sum the positive / negative extras of N's children.

    Raises :class:`InvalidInput` for ragged rows, fewer than two levels, a value listed twice,
    an empty ancestor, inconsistent levels (one label with two parents) or several roots; and,
    when used, for a sensitive value without a row.
    """

    rows: tuple[tuple[str, ...], ...]
    _leaf: dict[str, int] = field(init=False, repr=False, compare=False)
    _member: NDArray[np.int64] = field(init=False, repr=False, compare=False)
    _heights: NDArray[np.int64] = field(init=False, repr=False, compare=False)
    _child_of: NDArray[np.int64] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        rows = tuple(tuple(text_key(x) for x in r) for r in self.rows)
        object.__setattr__(self, "rows", rows)
        self._build(rows)

    def _build(self, rows: tuple[tuple[str, ...], ...]) -> None:
        if not rows:
            raise InvalidInput("the sensitive-value hierarchy is empty: give one row per value")
        width = len(rows[0])
        if width < 2:
            raise InvalidInput("the sensitive-value hierarchy needs at least two columns "
                               "(value and root), e.g. 'flu;*'")
        leaf: dict[str, int] = {}
        parent: dict[tuple[int, str], str] = {}
        for i, r in enumerate(rows):
            if len(r) != width:
                raise InvalidInput(f"hierarchy row {i + 1} has {len(r)} fields but row 1 has "
                                   f"{width}: give every row all levels up to the root")
            if r[0] in leaf:
                raise InvalidInput(f"hierarchy lists value {r[0]!r} twice (rows "
                                   f"{leaf[r[0]] + 1} and {i + 1}): keep one row per value")
            leaf[r[0]] = i
            for lvl in range(1, width):
                if r[lvl] == "":
                    raise InvalidInput(f"hierarchy row {i + 1} has an empty label at level "
                                       f"{lvl}: name every ancestor")
                if lvl + 1 < width:
                    seen = parent.setdefault((lvl, r[lvl]), r[lvl + 1])
                    if seen != r[lvl + 1]:
                        raise InvalidInput(
                            f"hierarchy levels are inconsistent: {r[lvl]!r} at level {lvl} has "
                            f"parents {seen!r} and {r[lvl + 1]!r}; give each label one parent")
        roots = sorted({r[-1] for r in rows})
        if len(roots) > 1:
            raise InvalidInput(f"hierarchy has {len(roots)} roots ({', '.join(roots[:3])}...): "
                               "the last column must be one value, e.g. '*'")
        self._index(rows, leaf, width)

    def _index(self, rows: tuple[tuple[str, ...], ...], leaf: dict[str, int],
               width: int) -> None:
        # internal nodes: (level, label) for level 1..H; leaves: the rows
        nodes = sorted({(lvl, r[lvl]) for r in rows for lvl in range(1, width)})
        node_id = {nd: j for j, nd in enumerate(nodes)}
        member = np.zeros((len(rows), len(nodes)), dtype=np.int64)
        for i, r in enumerate(rows):
            for lvl in range(1, width):
                member[i, node_id[(lvl, r[lvl])]] = 1
        # child_of[j] = internal parent of internal node j (-1 for the root)
        child_of = np.full(len(nodes), -1, dtype=np.int64)
        for r in rows:
            for lvl in range(1, width - 1):
                child_of[node_id[(lvl, r[lvl])]] = node_id[(lvl + 1, r[lvl + 1])]
        object.__setattr__(self, "_leaf", leaf)
        object.__setattr__(self, "_member", member)
        object.__setattr__(self, "_heights", np.array([lvl for lvl, _ in nodes], np.int64))
        object.__setattr__(self, "_child_of", child_of)

    def ancestors(self, values: Sequence[object]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(len(values), nodes)`` 0/1 matrix: value ``i`` lies under internal node ``j``;
        and each node's level (``1..H``, the root at ``H``). Raises as :meth:`leaves`."""
        return self._member[self.leaves(values)].copy(), self._heights.copy()

    @property
    def height(self) -> int:
        """``H``: the number of levels above the values."""
        return len(self.rows[0]) - 1

    @property
    def name(self) -> str:
        return "hierarchical distance"

    def leaves(self, values: Sequence[object]) -> NDArray[np.int64]:
        """Row of each sensitive value; raises for values the hierarchy lacks."""
        keys = [text_key(v) for v in values]
        missing = [show(v) for v, k in zip(values, keys, strict=True) if k not in self._leaf]
        if missing:
            raise InvalidInput(f"the sensitive-value hierarchy has no row for "
                               f"{', '.join(missing[:5])}: add a row for every value")
        return np.array([self._leaf[k] for k in keys], dtype=np.int64)

    def numerators(self, D: NDArray[Any], values: Sequence[object]) -> tuple[NDArray[Any], int]:
        return self.prepare(values)(D)

    def prepare(self, values: Sequence[object]) -> Numerators:
        """:meth:`numerators` for these ``values``, the node matrices built once: ``member``
        (value under node), ``leaf_parent`` (value's parent node), ``up`` (node's parent)."""
        member = self._member[self.leaves(values)]
        heights, H = self._heights, self.height
        leaf_parent = member * (heights == 1)
        nodes = len(heights)
        up = np.zeros((nodes, nodes), dtype=np.int64)
        has_parent = self._child_of >= 0
        up[np.flatnonzero(has_parent), self._child_of[has_parent]] = 1
        # the float path: with Z = D [member | G], G = leaf_parent + member up (a 0/1 matrix:
        # the parent of the leaf, or the node whose child holds it), Z's first block is every
        # node's extra and its second pos - neg (x = max(x, 0) - max(-x, 0)); pos + neg is
        # |D| leaf_parent + |extra| up, and min(pos, neg) = (pos + neg - |pos - neg|) / 2, so
        # the numerator is (|D| wl + |Z| [wu; -heights]) / 2 with wl, wu the heights of the
        # leaves' and nodes' parents
        fh = heights.astype(np.float64)
        fm = member.astype(np.float64)
        g_mat = leaf_parent + member @ up
        both = np.concatenate([fm, g_mat.astype(np.float64)], axis=1)
        w_leaf = (leaf_parent @ heights).astype(np.float64)
        w_both = np.concatenate([(up @ heights).astype(np.float64), -fh])
        exact_below = 2.0**52 / ((nodes + 2) * (H + 2))

        def numerators(D: NDArray[Any]) -> tuple[NDArray[Any], int]:
            g = D.shape[0]
            if g and D.dtype == np.int64 and float(np.abs(D).sum(axis=1).max()) < exact_below:
                # every sum below is at most sum_i |D_i| times (nodes + 2) (H + 2) in size:
                # under 2^53, float64 products (BLAS) give the exact integers
                Df = D.astype(np.float64)
                twice = np.abs(Df) @ w_leaf + np.abs(Df @ both) @ w_both
                return (np.rint(twice).astype(np.int64) >> 1), H
            m, lp, u = (x.astype(D.dtype) for x in (member, leaf_parent, up))
            extra = D @ m  # (g, nodes): extra of every internal node
            # each node's children: leaves (level 1 nodes) or internal nodes (higher levels)
            pos = _pos(D) @ lp + _pos(extra) @ u
            neg = _pos(-D) @ lp + _pos(-extra) @ u
            num = (np.minimum(pos, neg) * heights.astype(D.dtype)).sum(axis=1)
            return (num if g else np.zeros(0, dtype=D.dtype)), H

        return numerators
