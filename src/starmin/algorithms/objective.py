"""What a hierarchy-aware method minimizes, as exact integer costs per released cell.

Two objectives (``--objective``; :attr:`starmin.algorithms.base.Algorithm.objectives`):

* ``"stars"``: cells released at the root (``*``); a cell costs 1 at the root, else 0 --
  with hierarchies, ties between the fewest-star releases broken by the least loss
  (:meth:`CellCosts.of`).
* ``"loss"``: Iyengar's loss metric (LM, 2002, Sec. 3.1; :mod:`starmin.transform.loss`): a cell
  released as node ``x`` of column ``j`` costs ``(leaves(x) - 1) / (D_j - 1)`` (0 for a value,
  1 for the root; 0 in a column whose hierarchy has one value). The report's loss is the
  average of these over the ``n x m`` cells.

The flows and comparisons of the exact methods need integers, so the loss is scaled by
``L = lcm(D_j - 1)`` over the columns with ``D_j > 1``: a cell costs the integer
``(leaves(x) - 1) x L / (D_j - 1)``, exactly ``L`` times its loss. Sums of these are exact, and
``total / (L x n x m)`` is the report's loss. :func:`loss_scale_reason` refuses instances whose
scaled totals could leave int64 headroom for the flow solver.

Costs are looked up by node code: ``cost[j][node]`` with the root (``-1``) as the last entry,
so an output vector's cost is one gather per column. Imports nothing but numpy and the
hierarchy data classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import lcm
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.data.hierarchies import ROOT, Hierarchies
from starmin.errors import InvalidInput

OBJECTIVES = ("stars", "loss")
MAX_SCALED_TOTAL = 2**44
"""Largest ``L x m x n`` (scaled loss of the whole table at the root) accepted for the loss
objective: the flow solver multiplies costs by up to the number of nodes, and int64 must hold
that with room to spare."""


def objective_option(name: str, options: Mapping[str, Any]) -> str:
    """The ``objective`` option of a solve call (default ``"stars"``), checked."""
    objective = options.get("objective", "stars")
    if objective not in OBJECTIVES:
        raise InvalidInput(f"{name}: objective must be 'stars' or 'loss', got {objective!r}")
    return str(objective)


@dataclass(frozen=True, eq=False)
class CellCosts:
    """Integer cost of releasing each node of each column, for one objective.

    Attributes
    ----------
    objective : ``"stars"`` or ``"loss"``.
    per_column : one ``(nodes + 1,)`` int64 array per QI column; entry ``node`` (the root
        ``-1`` is the last entry) is the cost of one cell released as that node.
    scale : what one unit of the objective is worth in these integers (1 for stars; ``L``
        for loss, see the module docstring; ``W`` for stars broken by loss).
    tie_break : for ``"stars"``: ties between releases with the fewest stars are broken by the
        least loss (see :meth:`of`).
    """

    objective: str
    per_column: tuple[NDArray[np.int64], ...]
    scale: int
    tie_break: bool = False

    @classmethod
    def of(cls, dgh: Hierarchies, objective: str, n: int | None = None) -> CellCosts:
        """The costs of ``objective`` over the hierarchies ``dgh`` (``RowTypes.dgh``).

        For ``"stars"`` with ``n`` (the table's rows) and hierarchies that are not all flat,
        a cell costs ``W x [root] + `` its scaled loss, with ``W = L m n + 1`` larger than the
        scaled loss of any release: the fewest stars first, then the least loss among them
        (a group is otherwise free, and an optimum could generalize needlessly). Only when
        the totals fit :data:`MAX_SCALED_TOTAL`; otherwise, and for flat hierarchies (where
        loss follows stars), a star costs 1."""
        if objective == "loss":
            return cls("loss", _loss_columns(dgh), loss_scale(dgh))
        if objective != "stars":
            raise ValueError(f"unknown objective {objective!r}")
        m = len(dgh)
        weight = loss_scale(dgh) * m * max(n or 0, 1) + 1
        tie = (n is not None and not dgh.is_flat
               and (weight + loss_scale(dgh)) * m * max(n, 1) <= MAX_SCALED_TOTAL)
        cols = []
        for j, c in enumerate(dgh.columns):
            cost = _loss_columns(dgh)[j] if tie else np.zeros(c.nodes + 1, dtype=np.int64)
            cost = cost.copy()
            cost[ROOT] += weight if tie else 1
            cols.append(cost)
        return cls("stars", tuple(cols), weight if tie else 1, tie)

    def of_vectors(self, vectors: NDArray[np.integer]) -> NDArray[np.int64]:
        """``(C,)`` cost of one row released as each output vector ``(C, m)``."""
        v = np.asarray(vectors)
        out = np.zeros(v.shape[0], dtype=np.int64)
        for j, cost in enumerate(self.per_column):
            out += cost[v[:, j]]
        return out

    def of_plan(self, outputs: NDArray[np.integer], class_sizes: NDArray[np.integer]) -> int:
        """Total cost of a release: each output vector's cost times its rows."""
        return int((self.of_vectors(outputs) * np.asarray(class_sizes, dtype=np.int64)).sum())

    def value(self, total: int, n: int, m: int) -> float:
        """The objective as the report states it: stars, or Iyengar's average loss."""
        if self.objective == "stars":
            return float(total // self.scale)
        return total / (self.scale * n * m) if n and m else 0.0

    def stars_bound(self, total: int) -> int | None:
        """A plan's ``lower_bound`` (it counts stars) from an optimal ``total``: the stars
        for the stars objective, ``None`` for the loss."""
        return total // self.scale if self.objective == "stars" else None

    def facts(self, total: int, n: int, m: int) -> dict[str, Any]:
        """Certificate entries for an optimum ``total`` (exact: numerator and scale)."""
        out: dict[str, Any] = {"objective": self.objective, "objective_scale": self.scale,
                               "objective_value": self.value(total, n, m)}
        if self.objective == "stars":
            out["ties_broken_by_loss"] = self.tie_break
        return out


def _loss_columns(dgh: Hierarchies) -> tuple[NDArray[np.int64], ...]:
    """Per column the scaled loss ``(leaves(x) - 1) L / (D_j - 1)`` of each node (root last)."""
    scale = loss_scale(dgh)
    cols = []
    for c in dgh.columns:
        nodes = np.append(np.arange(c.nodes, dtype=np.int64), ROOT)
        assert c.domain is not None
        if c.domain > 1:
            cols.append((c.leaves_of(nodes) - 1) * (scale // (c.domain - 1)))
        else:
            cols.append(np.zeros(c.nodes + 1, dtype=np.int64))
    return tuple(cols)


def loss_scale(dgh: Hierarchies) -> int:
    """``L = lcm(D_j - 1)`` over the columns whose hierarchy has more than one value."""
    out = 1
    for c in dgh.columns:
        assert c.domain is not None
        if c.domain > 1:
            out = lcm(out, c.domain - 1)
    return out


def loss_scale_reason(name: str, dgh: Hierarchies, n: int) -> str | None:
    """``None`` when the scaled loss of the whole table fits :data:`MAX_SCALED_TOTAL`."""
    total = loss_scale(dgh) * len(dgh) * max(n, 1)
    if total <= MAX_SCALED_TOTAL:
        return None
    return (f"{name} minimizes the loss exactly in integers scaled by the least common "
            f"multiple of the hierarchies' domain sizes minus one ({loss_scale(dgh):,}); "
            f"with {len(dgh)} columns and {n:,} rows the total {total:,} exceeds "
            f"{MAX_SCALED_TOTAL:,}: use --objective stars or --method auto")
