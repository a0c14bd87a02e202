"""A certified lower bound on the loss of any release under hierarchies: the per-row bound.

The loss of a release is the sum over its QI cells of a per-cell cost that grows up the
hierarchy (:mod:`starmin.algorithms.recode.node_costs`: Iyengar's ``(leaves(x) - 1) /
(D_j - 1)``, or 1 at the root for stars); the report gives its average over the ``n x m``
cells (:mod:`starmin.transform.loss`).

**The bound.** For a row type ``v`` and a *level pattern* ``L`` (one level per column), let
``x = up[L](v)`` be ``v``'s ancestor at level ``L_j`` in every column, ``group_L(v)`` the row
types it covers (those with ``up[L](w) = x``) and ``c_L(v) = sum_j cost(x_j)``. Call a set of
rows *admissible* when it passes these necessary conditions of the model:

* at least ``k`` rows, ``k`` the class size the model implies (:func:`implied_k`);
* at least ``q`` distinct values in every sensitive column, ``q`` the distinct values the
  model needs (l-diversity of every kind: ``l``; p-sensitivity: ``p``);
* for each t-closeness part: ``sum_u p_u min_{w present} d(u, w) <= t``, ``p`` the table's
  distribution -- every unit of the table's mass at ``u`` must be moved to a value the class
  holds, so this is at most the EMD of any class holding only the present values.

Each condition is monotone: a superset of an admissible set is admissible. Then
``b(v) = min { c_L(v) : group_L(v) admissible }`` and **the bound is**
``sum_v count(v) b(v)`` (its average over the ``n x m`` cells for the report).

*Why it is valid.* Take any release satisfying the model and a row of type ``v`` in class
``E`` released as ``y``. Every cell of ``y`` covers the values of ``E`` in its column, so it
is at or above their lowest common ancestor ``x`` (the generalizer of ``E``), and costs
at least what ``x_j`` costs (monotone up the tree). Let ``L_j`` be the level of ``x_j``; since
``x_j`` is an ancestor of ``v_j`` with level exactly ``L_j``, it is ``up[L_j](v_j)`` (the lowest
ancestor of level ``>= L_j``), so ``x = up[L](v)`` and ``E`` lies in ``group_L(v)``. ``E``
satisfies the model, so it is admissible, and so is its superset ``group_L(v)``. Hence the
row costs at least ``c_L(v) >= b(v)``. Summing over the rows gives the bound. (With ``k``
alone: the row's class holds ``k`` rows, all under ``x``.)

**Computing it.** Every level pattern is a product of the columns' levels
(``prod_j (H_j + 1)``: 12,960 for adult's nine ARX hierarchies). Patterns are taken in order of
their *floor* ``f(L) = sum_j min_v cost(up[L_j](v_j))``; a pattern is grouped (one
``np.unique`` over the row types) only if some row type could improve there
(``c_L(v) < b(v)``), and the enumeration stops once the floor reaches every current
``b(v)``. ``max_patterns`` grouped patterns is a work limit; when it stops the enumeration at
a pattern of floor ``F``, every pattern left costs each row type at least ``F``, so
``min(b(v), F)`` is still a valid bound (reported with ``complete = False``).

**The LP bound.** On small tables (level patterns x row types at most :data:`LP_MAX_WORK`)
the LP over node vectors (:mod:`starmin.algorithms.lp.loss_colgen`, column generation with
a certificate) is usually tighter; :func:`certified_loss_bound` returns the better of the two
(``kind`` ``"lp"`` or ``"row"``).

Complexity: ``O(patterns x t_in x m)`` array work, ``O(t_in log t_in)`` per grouped pattern.

References: Iyengar 2002, Sec. 3.1 (LM); Bredereck et al., Sec. 4.4 (releases of a class are
at or above its most specific common node); Li et al. 2007, Sec. 4 (EMD); the size and
distinct-value conditions as in :mod:`starmin.algorithms.l_diversity_bound`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.recode.node_costs import column_trees
from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel

MAX_PATTERNS = 1_000
"""Most level patterns grouped by one bound computation (a work limit)."""
MAX_ENUMERATED = 2_000_000
"""Most level patterns enumerated (sorted by floor); beyond, the bound is 0."""


@dataclass(frozen=True)
class LossBound:
    """A certified lower bound on the objective of every release (see the module docstring).

    ``total``: on the sum over the ``n x m`` QI cells; ``average``: on the average over them
    (the report's ``loss``); ``kind``: how it was obtained (``"row"``: the per-row bound of
    this module; ``"lp"``: the LP over node vectors; ``"zero"``: nothing computed);
    ``complete``: the enumeration finished (else a work limit stopped it and the floor was
    used; for ``"lp"``: pricing found nothing more, the LP optimum); ``patterns``: level
    patterns grouped by the per-row bound."""

    total: float
    average: float
    objective: str
    kind: str
    complete: bool
    patterns: int

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, "average": self.average, "objective": self.objective,
                "kind": self.kind, "complete": self.complete, "patterns": self.patterns}


def loss_lower_bound(rt: RowTypes, model: PrivacyModel, objective: str = "loss", *,
                     max_patterns: int = MAX_PATTERNS, progress: Progress = silent
                     ) -> LossBound:
    """The per-row bound of the module docstring for ``rt`` (hierarchies: ``rt.dgh``)."""
    n, m = rt.n, rt.m
    if n == 0 or m == 0:
        return LossBound(0.0, 0.0, objective, "zero", True, 0)
    heights = [c.height for c in rt.dgh.columns]
    total_patterns = int(np.prod([h + 1 for h in heights], dtype=np.float64))
    if total_patterns > MAX_ENUMERATED:
        return LossBound(0.0, 0.0, objective, "zero", False, 0)
    trees = column_trees(rt.dgh, objective)
    codes = rt.codes.astype(np.int64)
    # per column: (H_j + 1, t_in) ancestors (+1, so the root is 0) and their costs
    anc = [c.up[:, codes[:, j]].astype(np.int64) + 1 for j, c in enumerate(rt.dgh.columns)]
    cost = [trees[j].cost[anc[j] - 1] for j in range(m)]
    radix = [c.nodes + 1 for c in rt.dgh.columns]
    admissible = _Admissible(rt, model)
    sizes = rt.sizes.astype(np.int64)
    floors = [cj.min(axis=1) for cj in cost]
    patterns = np.array(list(itertools.product(*[range(h + 1) for h in heights])),
                        dtype=np.int64).reshape(-1, m)
    floor = np.zeros(len(patterns))
    for j in range(m):
        floor += floors[j][patterns[:, j]]
    order = np.lexsort((np.arange(len(patterns)), floor))
    best = np.full(rt.t_in, np.inf)
    alone = admissible.of_groups(np.arange(rt.t_in))
    best[alone] = 0.0
    grouped = 0
    complete = True
    stop_floor = np.inf
    for i in order:
        f = float(floor[i])
        if f >= best.max() - 1e-12:
            break
        L = patterns[i]
        c_L = np.zeros(rt.t_in)
        for j in range(m):
            c_L += cost[j][L[j]]
        improve = c_L < best - 1e-12
        if not improve.any():
            continue
        if grouped >= max_patterns:
            complete = False
            stop_floor = f
            break
        grouped += 1
        key = np.zeros(rt.t_in, dtype=np.int64)
        packed = True
        span = 1
        for j in range(m):
            span *= radix[j]
            if span >= 2 ** 62:
                packed = False
                break
            key = key * radix[j] + anc[j][L[j]]
        if packed:
            _, inv = np.unique(key, return_inverse=True)
        else:
            _, inv = np.unique(np.stack([anc[j][L[j]] for j in range(m)], axis=1), axis=0,
                               return_inverse=True)
        inv = np.asarray(inv).reshape(-1)
        ok = admissible.of_groups(inv)
        hit = improve & ok[inv]
        best[hit] = c_L[hit]
        if grouped % 500 == 0:
            progress(f"loss bound: {grouped:,} level patterns grouped")
    best = np.minimum(best, stop_floor)
    total = float((sizes * best).sum())
    total = max(0.0, total * (1 - 1e-12) - 1e-9)  # against round-off in the sums
    return LossBound(total, total / (n * m), objective, "row", complete, grouped)


class _Admissible:
    """The necessary conditions of the module docstring, on groups of row types."""

    def __init__(self, rt: RowTypes, model: PrivacyModel) -> None:
        from starmin.algorithms.l_diversity_bound import distinct_values_needed
        from starmin.algorithms.lp.relaxation import ground_distances
        from starmin.models.combine import implied_k, parts
        from starmin.models.t_closeness import TCloseness

        self.rt = rt
        self.k = implied_k(model)
        self.q = max([distinct_values_needed(p) for p in parts(model)] + [1])
        self.hists = rt.sensitive_histograms(rt.counts) if rt.sensitive else []
        self.closeness: list[tuple[int, NDArray[np.float64], NDArray[np.float64], float]] = []
        for part in parts(model):
            if not isinstance(part, TCloseness):
                continue
            for a in range(len(rt.sensitive)):
                values = rt.sensitive_domains[a]
                try:
                    d = ground_distances(part.distance, values)
                except Exception:  # a distance without exact numerators: no condition
                    continue
                tot = self.hists[a].sum(axis=0).astype(np.float64)
                self.closeness.append((a, d, tot / max(tot.sum(), 1.0),
                                       float(Fraction(part.t_exact))))

    def of_groups(self, inv: NDArray[np.int64]) -> NDArray[np.bool_]:
        """``(g,)``: is each group (row types by ``inv``) admissible?"""
        g = int(inv.max()) + 1 if len(inv) else 0
        ok = np.bincount(inv, weights=self.rt.sizes, minlength=g) >= self.k
        if self.q > 1 or self.closeness:
            present = []
            for h in self.hists:
                per = np.zeros((g, h.shape[1]), dtype=np.int64)
                np.add.at(per, inv, h)
                present.append(per > 0)
            if self.q > 1:
                for pr in present:
                    ok &= pr.sum(axis=1) >= self.q
            for a, d, p, t in self.closeness:
                pr = present[a]
                near = np.where(pr[:, None, :], d[None, :, :], np.inf).min(axis=2)  # (g, r)
                cheapest = np.where(np.isfinite(near), near, 1e9) @ p
                ok &= cheapest <= t + 1e-9
        return ok


LP_MAX_WORK = 300_000
"""Most (level pattern x row type) pairs for which :func:`certified_loss_bound` also runs the
LP over node vectors (every pattern is priced every round)."""


def certified_loss_bound(rt: RowTypes, model: PrivacyModel, objective: str = "loss", *,
                         max_patterns: int = MAX_PATTERNS, progress: Progress = silent
                         ) -> LossBound:
    """The best certified bound available: the per-row bound of this module and, on tables
    where level patterns x row types is at most :data:`LP_MAX_WORK`, the LP
    bound over node vectors (:mod:`starmin.algorithms.lp.loss_colgen`), for each relaxation
    of the model (each bounds the optimum; the largest is kept)."""
    row = loss_lower_bound(rt, model, objective, max_patterns=max_patterns, progress=progress)
    from starmin.algorithms.lp.loss_colgen import loss_column_generation, pattern_count

    if rt.n == 0 or rt.m == 0 or pattern_count(rt) * rt.t_in > LP_MAX_WORK:
        return row
    from starmin.algorithms.lp.relaxation import relaxations

    best = row
    for rel in relaxations(model, rt):
        lp = loss_column_generation(rt, rel, objective, progress=progress)
        if lp is None:
            break
        total = lp.bound
        if total > best.total + 1e-9:
            best = LossBound(total, total / (rt.n * rt.m), objective, "lp", lp.complete,
                             row.patterns)
    return best
