"""Global full-domain recoding: the best single hierarchy level per column (ARX's core).

Full-domain generalization (Samarati 2001; Sweeney 2002) releases every value of column ``j``
as its ancestor at one level ``L_j`` of the column's hierarchy (``RowTypes.dgh``; the value at
level 0, the root ``*`` at the top), the same level for the whole table. The level vectors
``L = (L_1, ..., L_m)`` form a lattice of ``prod_j (H_j + 1)`` nodes. This method releases the
lattice node with the least objective (``objective="stars"``, default: cells at the root;
``"loss"``: Iyengar's loss, :mod:`starmin.algorithms.objective`) whose released table satisfies
the model, with **no row suppression**. It is exact *among full-domain recodings*; it is not
the optimum over local recodings (the DGH methods and the LP core may release each row at its
own node), so its registry guarantee has kind ``heuristic`` with that statement: the contract's
``exact`` means "equals the star optimum of cell suppression".

The search (exhaustive, in the spirit of LeFevre et al.'s Incognito, 2005).

* The objective is separable: node ``L`` costs ``sum_j c_j(L_j)`` with ``c_j(h)`` the cost of
  column ``j`` generalized to level ``h`` (rows times the cell cost of each row's ancestor),
  computed for every ``(j, h)`` up front. So every node's cost is known without generalizing.
* The nodes are visited in increasing cost (ties: fewer levels in total, then the level vector
  in lexicographic order) and each is checked -- row types generalized, grouped into classes,
  the classes judged -- until one satisfies the model. That node is optimal: every node before
  it in the order failed its check (or, pruned, is known to fail), and every node after it
  costs at least as much.
* Monotonicity pruning. Generalizing a column further merges classes (the ancestor at a higher
  level is a function of the ancestor at a lower one), and every model of
  :mod:`starmin.models` except t-closeness with a user matrix is closed under union of classes
  (k-anonymity and p-sensitivity: sizes and distinct values add up; l-diversity: see
  :mod:`starmin.models.l_diversity`; t-closeness with the equal, ordered or hierarchical
  distance: the EMD to the table is convex in the class distribution and decided exactly). So
  if ``L`` fails, every node below it (``L' <= L`` componentwise) fails, and is skipped without
  a check. A matrix distance's verdict rests on an upper bound of the EMD (not shown to be
  convex), and a model from outside starmin is unknown: for them nothing is pruned -- the
  result is the same, only more nodes are checked.

Limits: at most :data:`MAX_LATTICE` lattice nodes (``supports`` refuses beyond, naming the
size), and at most ``max_checks`` (default :data:`MAX_CHECKS`) nodes checked before
:class:`~starmin.errors.SolverLimit`. Complexity: ``O(N log N)`` to order the ``N`` nodes, then
``O(t_in m + t_in log t_in)`` per check (``O(t_in s)`` for models of sensitive values) and
``O(I m)`` per pruning test for ``I`` maximal failed nodes.

References
----------
P. Samarati, "Protecting Respondents' Identities in Microdata Release", TKDE 2001 (full-domain
generalization, the lattice of level vectors). L. Sweeney, "Achieving k-Anonymity Privacy
Protection Using Generalization and Suppression", 2002 (domain generalization hierarchies).
K. LeFevre, D. DeWitt, R. Ramakrishnan, "Incognito: Efficient Full-Domain K-Anonymity", SIGMOD
2005 (monotonicity of full-domain generalization, lattice search). V. Iyengar, "Transforming
Data to Satisfy Privacy Constraints", KDD 2002 (the loss metric).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Algorithm, Progress, flag_option, silent, whole_option
from starmin.algorithms.objective import CellCosts, loss_scale_reason, objective_option
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput, SolverLimit
from starmin.models.apply import check_feasible, holds
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "full-domain"
MAX_LATTICE = 200_000
"""Largest lattice (``prod_j (H_j + 1)`` level vectors) searched."""
MAX_CHECKS = 200_000
"""Default work limit: lattice nodes checked (generalized and judged) before giving up."""

GUARANTEE = Guarantee(
    kind="heuristic",
    statement="least objective (stars, or Iyengar's loss) among full-domain recodings -- one "
              "hierarchy level per column for the whole table, no row suppression -- proven "
              "by exhaustive lattice search; not the optimum over local recodings",
    reference="Samarati 2001; Sweeney 2002; LeFevre et al. 2005 (Incognito)",
)


def lattice_size(rt: RowTypes) -> int:
    """``prod_j (H_j + 1)``: the level vectors of ``rt``'s hierarchies."""
    out = 1
    for h in rt.dgh.heights:
        out *= h + 1
    return out


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` when the lattice has at most :data:`MAX_LATTICE` nodes (every model)."""
    size = lattice_size(rt)
    if size > MAX_LATTICE:
        return (f"{NAME} searches the lattice of level vectors, at most {MAX_LATTICE:,} "
                f"nodes; the hierarchies' heights {list(rt.dgh.heights)} give {size:,}: use "
                f"shallower hierarchies for some columns, or --method auto")
    return None


def monotone(model: PrivacyModel) -> bool:
    """Is every part of ``model`` closed under union of classes, with an exact verdict (see
    the module docstring)? Then a failed level vector fails below it too."""
    from starmin.models.combine import parts
    from starmin.models.distances import EqualDistance, HierarchicalDistance, OrderedDistance
    from starmin.models.k_anonymity import KAnonymity
    from starmin.models.l_diversity import (
        DistinctLDiversity,
        EntropyLDiversity,
        LDiversity,
        RecursiveCLDiversity,
    )
    from starmin.models.p_sensitive import PSensitiveKAnonymity
    from starmin.models.t_closeness import TCloseness

    union_closed = (KAnonymity, PSensitiveKAnonymity, LDiversity, DistinctLDiversity,
                    EntropyLDiversity, RecursiveCLDiversity)
    ps = parts(model)
    return bool(ps) and all(
        isinstance(q, union_closed)
        or (isinstance(q, TCloseness)
            and isinstance(q.distance, EqualDistance | OrderedDistance | HierarchicalDistance))
        for q in ps)


def level_costs(rt: RowTypes, costs: CellCosts) -> list[NDArray[np.int64]]:
    """Per column ``j`` the ``(H_j + 1,)`` cost of the column generalized to each level."""
    out = []
    for j, col in enumerate(rt.dgh.columns):
        anc = col.up[:, rt.codes[:, j]]  # (H + 1, t_in)
        out.append((costs.per_column[j][anc] * rt.sizes[None, :]).sum(axis=1))
    return out


def order(rt: RowTypes, costs: CellCosts) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
    """Every level vector ``(N, m)`` and its cost ``(N,)``, cheapest first (ties: fewer
    levels in total, then lexicographic)."""
    dims = tuple(h + 1 for h in rt.dgh.heights)
    L = np.indices(dims, dtype=np.int32).reshape(len(dims), -1).T  # lexicographic order
    cost = np.zeros(len(L), dtype=np.int64)
    for j, c in enumerate(level_costs(rt, costs)):
        cost += c[L[:, j]]
    idx = np.lexsort((np.arange(len(L)), L.sum(axis=1), cost))  # stable: lexicographic last
    return L[idx], cost[idx]


def generalize(rt: RowTypes, levels: NDArray[np.integer]) -> NDArray[np.int32]:
    """``(t_in, m)``: each row type's ancestors at ``levels`` (node codes, root ``-1``)."""
    out = np.empty(rt.codes.shape, dtype=np.int32)
    for j, col in enumerate(rt.dgh.columns):
        out[:, j] = col.up[int(levels[j]), rt.codes[:, j]]
    return out


class Checker:
    """Judges level vectors of one table: each row type's class key at a level vector is a
    sum of per-(column, level) terms precomputed once (mixed radix over ``nodes_j + 1``
    codes), so a check is ``m`` additions, a sort of ``t_in`` integers and the model's
    verdict. Tables whose radix would overflow int64 group the generalized vectors instead."""

    def __init__(self, model: PrivacyModel, rt: RowTypes) -> None:
        self.model, self.rt = model, rt
        radix = [c.nodes + 1 for c in rt.dgh.columns]
        self.keyed = float(np.prod(np.asarray(radix, dtype=np.float64))) < 2.0**62
        self.terms: list[NDArray[np.int64]] = []
        if self.keyed:
            weight = 1
            for j, col in enumerate(rt.dgh.columns):
                anc = col.up[:, rt.codes[:, j]].astype(np.int64) + 1  # (H + 1, t_in), >= 0
                self.terms.append(anc * weight)
                weight *= radix[j]
        self.sizes_only = not getattr(model, "uses_sensitive", True)
        self.k = _k_of(model) if self.sizes_only else None

    def classes(self, levels: NDArray[np.integer]) -> NDArray[np.int64]:
        """Each row type's class at ``levels`` (``(t_in,)``, classes numbered from 0)."""
        if not self.keyed:
            _, inv = np.unique(generalize(self.rt, levels), axis=0, return_inverse=True)
            return np.asarray(inv, dtype=np.int64).reshape(-1)
        key = self.terms[0][int(levels[0])].copy()
        for j in range(1, len(self.terms)):
            key += self.terms[j][int(levels[j])]
        _, inv = np.unique(key, return_inverse=True)
        return np.asarray(inv, dtype=np.int64).reshape(-1)

    def satisfies(self, levels: NDArray[np.integer]) -> bool:
        """Does the table generalized to ``levels`` satisfy the model (every class)?"""
        inv = self.classes(levels)
        if self.k is not None:  # k-anonymity: class sizes only
            return bool(np.bincount(inv, weights=self.rt.sizes).min() >= self.k)
        counts = np.zeros((int(inv.max()) + 1, self.rt.counts.shape[1]), dtype=np.int64)
        np.add.at(counts, inv, self.rt.counts)
        return bool(holds(self.model, self.rt, counts).all())


def _k_of(model: PrivacyModel) -> int | None:
    """``k`` when ``model`` is k-anonymity (or a conjunction of them), else ``None``."""
    from starmin.models.combine import parts
    from starmin.models.k_anonymity import KAnonymity

    ps = parts(model)
    if ps and all(isinstance(q, KAnonymity) for q in ps):
        return max(int(q.k) for q in ps)  # type: ignore[attr-defined]
    return None


def chain(x: NDArray[np.int32], heights: NDArray[np.int32]) -> NDArray[np.int32]:
    """``(c, m)``: level vectors from ``x`` to the top, raising the columns one level at a
    time in turn (round robin); each is above the one before."""
    out = [x.copy()]
    cur = x.copy()
    while (cur < heights).any():
        for j in range(len(cur)):
            if cur[j] < heights[j]:
                cur = cur.copy()
                cur[j] += 1
                out.append(cur)
    return np.stack(out)


def search(model: PrivacyModel, rt: RowTypes, costs: CellCosts, *, prune: bool,
           max_checks: int, progress: Progress) -> tuple[NDArray[np.int32], int, dict[str, int]]:
    """The cheapest satisfying level vector, its cost, and counts (nodes, checked, pruned).

    The nodes are taken in cost order. Without ``prune`` each is checked until one passes.
    With ``prune`` (only sound for :func:`monotone` models) a node below a failed one is
    skipped, a node above a passed one is the answer, and an undecided node ``x`` is decided
    by a binary search on its :func:`chain` to the top (pass/fail is monotone along it): the
    highest failing node of the chain joins the failed ones (everything below it fails), the
    lowest passing one the passed ones; ``x`` is the answer when it passes itself."""
    L, cost = order(rt, costs)
    check = Checker(model, rt)
    heights = np.asarray(rt.dgh.heights, dtype=np.int32)
    failed = np.zeros((0, rt.m), dtype=np.int32)  # maximal failed level vectors
    passed = np.zeros((0, rt.m), dtype=np.int32)  # minimal passing level vectors
    checked = pruned = 0
    meter = Meter(progress, NAME, "lattice nodes", len(L))

    def judge(y: NDArray[np.int32], i: int) -> bool:
        nonlocal checked
        if checked >= max_checks:
            raise SolverLimit(f"{NAME}: {max_checks:,} lattice nodes checked (max_checks) "
                              f"before the search ended (next cost {int(cost[i])}): raise "
                              f"max_checks or use --method auto")
        checked += 1
        return check.satisfies(y)

    def counts() -> dict[str, int]:
        return {"nodes": len(L), "checked": checked, "pruned": pruned}

    for i in range(len(L)):
        x = L[i]
        meter.tick(i)
        if not prune:
            if judge(x, i):
                return x, int(cost[i]), counts()
            continue
        if len(failed) and (x[None, :] <= failed).all(axis=1).any():
            pruned += 1
            continue
        if len(passed) and (x[None, :] >= passed).all(axis=1).any():
            return x, int(cost[i]), counts()
        path = chain(x, heights)
        lo, hi = 0, len(path)  # path[hi - 1] is the top; hi == len(path): none known to pass
        while lo < hi:  # the first passing node of the path (monotone along it)
            mid = (lo + hi) // 2
            if judge(path[mid], i):
                hi = mid
            else:
                lo = mid + 1
        if lo > 0:
            y = path[lo - 1]
            failed = np.concatenate([failed[~(failed <= y[None, :]).all(axis=1)], y[None, :]])
        if lo == len(path):
            break  # even the top fails: nothing passes
        z = path[lo]
        passed = np.concatenate([passed[~(passed >= z[None, :]).all(axis=1)], z[None, :]])
        if lo == 0:
            return x, int(cost[i]), counts()
    raise Infeasible(f"{NAME}: no level vector of the hierarchies satisfies {model.name}, not "
                     "even every column at the root; the model cannot hold on this table")


def _options(options: dict[str, Any]) -> tuple[str, int, bool]:
    unknown = sorted(set(options) - {"objective", "max_checks", "prune"})
    if unknown:
        raise InvalidInput(f"{NAME} takes the options objective, max_checks and prune, "
                           f"not {unknown}")
    objective = objective_option(NAME, options)
    max_checks = whole_option(NAME, options, "max_checks", MAX_CHECKS, 1)
    return objective, max_checks, flag_option(NAME, options, "prune", True)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """The full-domain recoding with the least objective (see the module docstring).

    Options: ``objective`` (``"stars"``, default, or ``"loss"``), ``max_checks`` (work limit
    in lattice nodes checked, default :data:`MAX_CHECKS`), ``prune`` (default ``True``;
    ``False`` checks every node in cost order, for tests). Deterministic (``seed`` unused).
    Raises ``Infeasible`` when no level vector satisfies the model, ``InvalidInput`` beyond
    :data:`MAX_LATTICE`, ``SolverLimit`` at ``max_checks``."""
    objective, max_checks, prune = _options(options)
    reason = supports(model, rt) or (loss_scale_reason(NAME, rt.dgh, rt.n)
                                     if objective == "loss" else None)
    if reason is not None:
        raise InvalidInput(reason)
    check_feasible(model, rt)
    costs = CellCosts.of(rt.dgh, objective, rt.n)
    pruning = prune and monotone(model)
    levels, total, counts = search(model, rt, costs, prune=pruning, max_checks=max_checks,
                                   progress=progress or silent)
    inv = Checker(model, rt).classes(levels)
    first = np.unique(inv, return_index=True)[1]
    uniq = generalize(rt, levels)[first]
    ti, ki = np.nonzero(rt.counts)
    plan = ReleasePlan(uniq, inv[ti], ti, ki, rt.counts[ti, ki], NAME, stated(objective),
                       certificate={
                           "levels": {c: int(h) for c, h in zip(rt.qi, levels.tolist(),
                                                                 strict=True)},
                           "heights": list(rt.dgh.heights), "lattice": counts["nodes"],
                           "checked": counts["checked"], "pruned": counts["pruned"],
                           "monotone": pruning, "optimum": total,
                           **costs.facts(total, rt.n, rt.m)}).compact()
    if costs.of_plan(plan.outputs, plan.class_sizes) != total:  # pragma: no cover - a bug
        raise AssertionError(f"{NAME}: the plan's cost differs from its lattice node's")
    return plan


def stated(objective: str) -> Guarantee:
    """The guarantee a plan carries, naming the objective it minimized."""
    what = "the fewest stars" if objective == "stars" else "the least Iyengar loss"
    return Guarantee(GUARANTEE.kind, f"{what}; {GUARANTEE.statement}", GUARANTEE.reference)


ALGORITHM = Algorithm(
    name=NAME,
    summary="global full-domain recoding (one hierarchy level per column, ARX's core, no "
            "row suppression): the least stars or Iyengar loss among level vectors, by "
            "exhaustive lattice search with monotonicity pruning (Samarati; LeFevre et al. "
            "Incognito); not optimal among local recodings",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    objectives=("stars", "loss"),
    options=("max_checks", "prune"),  # and objective, the --objective flag
)
