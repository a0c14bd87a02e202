"""Exact 2-diversity by the route of Liang & Yuan's Theorem 11: SIMPLEX MATCHING of pairs and
triples.

Guarantee: **exact** -- the release has the minimum number of stars of any frequency
2-diverse release (l = 2: no sensitive value holds more than half of a class), when CP-SAT
proves its matching optimal (checked; otherwise ``SolverLimit``).

The route (Liang & Yuan, Sec. 6):

1. *Lemma 2.* Some optimal 2-diverse partition has only groups of 2 or 3 rows with distinct
   sensitive values (a 2-diverse group of 4 or more rows splits off one row of each of its two
   most frequent values and stays 2-diverse; splitting never adds stars).
2. *The hypergraph.* ``H`` has a vertex per row, a 2-edge per pair and a 3-edge per triple of
   rows with distinct sensitive values, each costing its group's stars (``|g| x`` the columns
   where its rows differ, Sec. 2). Good partitions (groups of Lemma 2) are exactly the perfect
   matchings of ``H``, at the same cost.
3. *The simplex condition.* A column suppressed in a pair is suppressed in every triple
   containing it, so ``c(e) / 3 >= c(pair) / 2`` for each pair of a 3-edge ``e`` and
   ``c(uv) + c(vw) + c(uw) <= 2 c(uvw)``: ``H`` is an instance of SIMPLEX MATCHING. The solver
   checks the inequality on every 3-edge it builds (``certificate["simplex_condition"]``).
4. *Min-cost perfect matching of H.* Liang & Yuan cite Anshelevich & Karagiozova's polynomial
   algorithm for SIMPLEX MATCHING. That algorithm is not restated in the paper nor in
   ``../shared/papers``, and it is **not implemented here**: the matching is found exactly by
   OR-Tools CP-SAT (one worker, fixed seed, a deterministic work limit). So this method follows
   Theorem 11's reduction but is not polynomial-time; docs/algorithms/two-diversity.md says so.

On row slots. Rows of one (row type, value) *slot* are interchangeable, so ``H``'s perfect
matchings are counted per *edge type*: a pair or triple of slots with distinct values, used
``y_g`` times (at most the count of its scarcest slot). The model is::

    min  sum_g cost(g) y_g   s.t.  sum_{g contains slot i} y_g = c_i  (every slot),  y_g >= 0.

Complexity: ``N`` slots give ``e_2 <= N^2 / 2`` pair and ``e_3 <= N^3 / 6`` triple edge types
(:func:`starmin.algorithms.exact.two_diversity_milp.group_type_count`); building and checking
them is ``O((e_2 + e_3) m)`` numpy work; CP-SAT's search is exponential in the worst case and
bounded by :data:`WORK_LIMIT` deterministic units. Size limit: at most :data:`MAX_EDGES` edge
types (``supports`` names it).

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 2 (cost), Sec. 6 Lemma 2 and Theorem 11 (reduction to SIMPLEX MATCHING, the simplex
condition). E. Anshelevich and A. Karagiozova, "Terminal backup, 3D matching, and covering
cubic graphs" (SIMPLEX MATCHING in polynomial time; cited, not implemented).
X. Xiao, K. Yi and Y. Tao, "The Hardness and Approximation Algorithms for l-Diversity", EDBT
2010, Definition 2 and Lemma 1 (union closure: classes with one suppressor stay 2-diverse).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Algorithm, Progress, silent
from starmin.algorithms.exact._two_diversity import model_reason, start, table_reason
from starmin.algorithms.exact.two_diversity_milp import group_type_count
from starmin.data.rowtypes import RowTypes
from starmin.errors import SolverLimit, StarminError
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "two-diversity-simplex"
MAX_EDGES = 50_000
"""Largest number of pair plus triple edge types (slots of distinct values)."""
WORK_LIMIT = 60.0
"""CP-SAT's deterministic time budget (its own work units, the same on every machine)."""

GUARANTEE = Guarantee(
    kind="exact",
    statement=("minimum number of stars of any frequency 2-diverse release (Lemma 2's pairs and "
               "triples as a SIMPLEX MATCHING instance, solved to proven optimality by CP-SAT)"),
    reference="Liang & Yuan Sec. 6 Lemma 2 and Thm 11",
)

IntArray = NDArray[np.int64]


def _size_reason(rt: RowTypes) -> str | None:
    pairs, triples = group_type_count(rt)
    if pairs + triples > MAX_EDGES:
        return (f"{NAME}: {pairs} pair and {triples} triple edge types (from "
                f"{int(np.count_nonzero(rt.counts))} (row type, value) slots) exceed its limit "
                f"of {MAX_EDGES}; use two-diversity-milp or --method auto")
    return None


def _solver_reason() -> str | None:
    if importlib.util.find_spec("ortools") is None:
        return f"{NAME} needs the ortools package (CP-SAT): pip install ortools"
    return None


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` when this method solves the instance, else the reason (see module doc)."""
    return (model_reason(model, NAME) or table_reason(rt, NAME) or _size_reason(rt)
            or _solver_reason())


def hypergraph(rt: RowTypes) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
    """The SIMPLEX MATCHING instance on slots.

    Returns the slots' row type, value and count ``(N,)`` each, the edge types ``(E, 3)``
    (slot indices, ``-1`` in the third place for a pair) and their costs ``(E,)``: pairs then
    triples, each set in lexicographic order of its slots."""
    st, sk = np.nonzero(rt.counts)
    st, sk = st.astype(np.int64), sk.astype(np.int64)
    sc = rt.counts[st, sk].astype(np.int64)
    N = len(st)
    codes = rt.codes[st]
    iu, iv = np.triu_indices(N, 1)
    keep = sk[iu] != sk[iv]
    iu, iv = iu[keep], iv[keep]
    pair_cost = 2 * (codes[iu] != codes[iv]).sum(axis=1).astype(np.int64)
    tri: list[IntArray] = []
    for u in range(N):
        later = (iu > u) & (sk[iu] != sk[u]) & (sk[iv] != sk[u])
        v, w = iu[later], iv[later]
        tri.append(np.stack([np.full(len(v), u), v, w], axis=1))
    T = np.concatenate(tri).astype(np.int64) if tri else np.zeros((0, 3), np.int64)
    same = (codes[T[:, 0]] == codes[T[:, 1]]) & (codes[T[:, 1]] == codes[T[:, 2]])
    tri_cost = 3 * (~same).sum(axis=1).astype(np.int64)
    P = np.stack([iu, iv, np.full(len(iu), -1)], axis=1).astype(np.int64)
    return st, sk, sc, np.concatenate([P, T]), np.concatenate([pair_cost, tri_cost])


def simplex_condition(rt: RowTypes, edges: IntArray, cost: IntArray, st: IntArray) -> int:
    """Check ``c(uv) + c(vw) + c(uw) <= 2 c(uvw)`` on every 3-edge (Sec. 6); return how many
    3-edges were checked. Raises ``StarminError`` on a violation (it would be a bug: the
    inequality is a theorem for suppression costs)."""
    tri = edges[:, 2] >= 0
    T, c3 = edges[tri], cost[tri]
    codes = rt.codes[st]

    def pair(a: IntArray, b: IntArray) -> IntArray:
        return 2 * (codes[a] != codes[b]).sum(axis=1).astype(np.int64)

    lhs = pair(T[:, 0], T[:, 1]) + pair(T[:, 1], T[:, 2]) + pair(T[:, 0], T[:, 2])
    bad = np.flatnonzero(lhs > 2 * c3)
    if len(bad):
        raise StarminError(f"{NAME}: the simplex condition fails on a triple "
                           f"({lhs[bad[0]]} > 2 x {c3[bad[0]]}); report this as a bug")
    return int(tri.sum())


def _match(edges: IntArray, cost: IntArray, sc: IntArray, work_limit: float
           ) -> tuple[IntArray, int]:
    """Min-cost perfect matching of ``H`` with multiplicities: ``y (E,)`` and its cost.
    Raises ``SolverLimit`` unless CP-SAT proves optimality."""
    from ortools.sat.python import cp_model

    N = len(sc)
    ub = np.where(edges >= 0, sc[np.maximum(edges, 0)], np.iinfo(np.int64).max).min(axis=1)
    model = cp_model.CpModel()
    y = [model.new_int_var(0, int(u), f"y{g}") for g, u in enumerate(ub.tolist())]
    at: list[list[int]] = [[] for _ in range(N)]
    for g, row in enumerate(edges.tolist()):
        for i in row:
            if i >= 0:
                at[i].append(g)
    for i in range(N):
        model.add(sum(y[g] for g in at[i]) == int(sc[i]))
    model.minimize(sum(int(c) * y[g] for g, c in enumerate(cost.tolist()) if c))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_deterministic_time = float(work_limit)
    status = solver.solve(model)
    if status != cp_model.OPTIMAL:
        raise SolverLimit(f"{NAME}: CP-SAT did not prove an optimum within {work_limit} "
                          f"deterministic units (status {solver.status_name(status)}); raise "
                          "work_limit or use two-diversity-milp")
    x = np.array([solver.value(v) for v in y], dtype=np.int64)
    return x, int(cost @ x)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0, progress: Progress | None = None,
          work_limit: float = WORK_LIMIT, **options: Any) -> ReleasePlan:
    """Optimal frequency 2-diverse release (any number of sensitive values), by Theorem 11's
    reduction to SIMPLEX MATCHING (module doc).

    ``seed`` is unused (deterministic). ``work_limit`` is CP-SAT's deterministic time budget;
    there is no wall-clock limit. Raises ``InvalidInput`` (wrong model or table),
    ``Infeasible`` (a value holds more than half of the table) or ``SolverLimit``.
    """
    progress = progress or silent
    empty = start(rt, model, NAME, GUARANTEE, options)
    if empty is not None:
        return empty
    reason = _size_reason(rt) or _solver_reason()
    if reason is not None:
        raise SolverLimit(reason)
    st, sk, sc, edges, cost = hypergraph(rt)
    checked = simplex_condition(rt, edges, cost, st)
    progress(f"{NAME}: {len(sc)} slots, {len(edges)} edge types ({checked} triples); CP-SAT")
    y, value = _match(edges, cost, sc, work_limit)
    groups = []
    for g in np.flatnonzero(y).tolist():
        mem = edges[g][edges[g] >= 0]
        groups.append((st[mem], sk[mem], np.full(len(mem), y[g])))
    plan = ReleasePlan.from_groups(rt, groups, NAME, GUARANTEE)
    if plan.stars != value:
        raise StarminError(f"{NAME}: the release costs {plan.stars} stars but the matching "
                           f"{value}; report this as a bug")
    cert = {"slots": len(sc), "edge_types": len(edges), "simplex_condition": checked,
            "edges_used": len(groups)}
    return plan.with_info(lower_bound=plan.stars, certificate=cert)


ALGORITHM = Algorithm(
    name=NAME,
    summary=("exact 2-diversity by Thm 11's route: Lemma 2's pairs and triples as SIMPLEX "
             "MATCHING (solved by CP-SAT, not the polynomial algorithm the paper cites)"),
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
)
