"""A start for :mod:`.merge_repair`, made for frequency l-diversity with large ``l``: a split
tree, an LP that places every row on it at once, and its rounding.

Why. The level start (:mod:`._level_start`) places rows level by level, each level's LP or
greedy taking the rows it can place best. At large ``l`` that spends the rare values where
they are first useful, and the rows of the most frequent values are left with nothing to
dilute them (adult, 8 QIs, occupation, ``l = 5``: 1,836 such rows; docs/algorithms/
merge-repair.md). This start decides every row's place in one LP, on a restricted family of
output vectors: the nodes of one tree.

1. **The split tree** (top-down, greedy, deterministic). The root is the all-star vector
   holding every row type. A node with star set ``S`` holding the row types that agree
   outside ``S`` is split on the column ``c`` of ``S`` whose children (the node's row types
   grouped by their value in ``c``) would keep the most rows in their own largest parts the
   model passes (``part``: TP's phase one for frequency l-diversity; ties: the first
   column); a child is a node when it holds at least ``floor`` rows (the fewest a class can
   have), else its row types stay at the node (their *home*). A node none of whose
   splits keeps a row is a leaf.
2. **The placement LP.** ``x(N, u)`` rows of value ``u`` released at node ``N`` (``m -
   depth(N)`` stars each), ``y(N, u)`` rows of ``u`` passed from ``N`` to its parent, ``n(N)``
   the rows at ``N``:

   ```
   min  sum_N (m - depth(N)) n(N)
   s.t. x(N, u) + y(N, u) - sum_(children C) y(C, u) = rows of u whose home is N
        n(N) = sum_u x(N, u);   l x(N, u) <= n(N)          (every class l-eligible)
        x, y >= 0;  y(root, u) = 0
   ```

   A row can go only to a node on its home's path to the root: the nodes of a tree are a
   laminar family, so the flow ``y`` up the tree is exactly what a placement needs. The
   optimum is a bound for this family of vectors only, not for the table. The root's
   ``l x <= n`` rows are left out when the whole table is not l-eligible (a model that
   frequency l-diversity implies, e.g. distinct l-diversity, may still hold there), so the
   LP always has a solution.
3. **Rounding**, bottom-up: a node takes of each value the LP's ``x`` rounded half up
   (:data:`HALF`), within
   what reaches it (its home rows and its children's leftovers), trimmed to its largest part
   the model passes when that fails; what it does not take goes to its parent; the root
   takes everything that reaches it (a class merge-repair's repair mends when it fails).
   Each class is released as the suppressor of its rows' row types (at most the node's
   stars).

Measured (ARX adult, 8 QIs, occupation, merge-repair's repair and polish with rule
``spread`` after it; 2026-11-30): see docs/algorithms/merge-repair.md ("The tree start").

Work: the tree ``O(m^2 t_in s)`` (each level of the tree groups its row types once per
candidate column); the LP has ``O(nodes x s)`` variables and about ten nonzeros per
variable, solved by HiGHS's interior point within :data:`MAX_ITERATIONS` iterations and
built only up to :data:`MAX_NONZEROS` (work limits, never a clock: the same plan under any
load).

References: Xiao, Yi & Tao, EDBT 2010, Sec. 5.2 (phase one) and Lemma 1 (l-eligibility is
closed under union); Liang & Yuan, Sec. 2 (suppressors) and Thm 9 (a class's model as linear
constraints on its value counts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from starmin.algorithms.heuristic.pattern_keys import IntArray, key_runs
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import Guarantee, ReleasePlan

Group = tuple[IntArray, IntArray, IntArray]
Part = Callable[[IntArray], IntArray]

MAX_NONZEROS = 2_000_000
"""Largest placement LP built (adult, 8 QIs, occupation, l = 3..6: 104,000-130,000)."""
MAX_ITERATIONS = 10_000
"""Interior-point iterations, and simplex iterations of its crossover, per LP."""
HALF = 0.5 + 1e-6
"""Rounding half up: a node takes ``floor(x + HALF)`` rows. The LP's vertex values are often
exactly ``1/2`` (computed as ``0.5`` give or take the last bits); the margin puts them on the
same side on every machine, and no small-denominator fraction lies at the new boundary."""


@dataclass(frozen=True)
class Tree:
    """The split tree: per node its parent (``-1`` for the root), depth (columns kept) and
    the column its parent split on (``-1`` for the root), nodes in the order they were made (a
    parent before its children); per row type its home node."""

    parent: IntArray
    depth: IntArray
    column: IntArray
    home: IntArray


def split_tree(rt: RowTypes, part: Part, floor: int) -> Tree:
    """Step 1 of the module docstring."""
    counts = rt.counts.astype(np.int64)
    parent: list[int] = []
    depth: list[int] = []
    column: list[int] = []
    home = np.zeros(rt.t_in, dtype=np.int64)
    stack: list[tuple[IntArray, tuple[int, ...], int]] = [
        (np.arange(rt.t_in, dtype=np.int64), (), -1)]
    while stack:
        types, kept, up = stack.pop()
        me = len(parent)
        parent.append(up)
        depth.append(len(kept))
        column.append(kept[-1] if kept else -1)
        home[types] = me
        best: tuple[int, int, IntArray, IntArray] | None = None
        for c in range(rt.m):
            if c in kept:
                continue
            order, starts, _ = key_runs(rt.codes[types, c].astype(np.int64))
            pools = np.add.reduceat(counts[types[order]], starts, axis=0)
            gain = int(part(pools).sum())
            if gain > 0 and (best is None or gain > best[0]):
                best = (gain, c, order, starts)
        if best is None:
            continue
        _, c, order, starts = best
        ends = np.append(starts[1:], len(order))
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
            child = types[order[a:b]]
            if counts[child].sum() >= floor:
                stack.append((child, (*kept, c), me))
    return Tree(np.asarray(parent, dtype=np.int64), np.asarray(depth, dtype=np.int64),
                np.asarray(column, dtype=np.int64), home)


def placement(rt: RowTypes, tree: Tree, l: int, max_nonzeros: int = MAX_NONZEROS,
              max_iterations: int = MAX_ITERATIONS) -> np.ndarray | None:
    """Step 2: the LP's ``x`` as a ``(nodes, s)`` array, or ``None`` when the LP is over
    ``max_nonzeros`` or HiGHS stops without an optimum."""
    import scipy.sparse as sp  # the solver loads when this start runs

    N, s = len(tree.parent), rt.s
    own = np.zeros((N, s), dtype=np.float64)
    np.add.at(own, tree.home, rt.counts)
    below = own.copy()                                      # each node's subtree's rows
    for v in np.argsort(-tree.depth, kind="stable").tolist():
        if tree.parent[v] >= 0:
            below[tree.parent[v]] += below[v]
    ni, ui = np.nonzero(below)                             # x, y only where rows can be
    nx = len(ni)
    up = np.flatnonzero(tree.parent[ni] >= 0)
    ny = len(up)
    if 10 * nx > max_nonzeros:
        return None
    cell = -np.ones((N, s), dtype=np.int64)
    cell[ni, ui] = np.arange(nx)
    y_col = nx + np.arange(ny)
    n_col = nx + ny + np.arange(N)
    # equalities: one per cell (flow), one per node (n = sum x)
    eq_r = np.concatenate([np.arange(nx), up, cell[tree.parent[ni[up]], ui[up]],
                           nx + np.arange(N), nx + ni])
    eq_c = np.concatenate([np.arange(nx), y_col, y_col, n_col, np.arange(nx)])
    eq_v = np.concatenate([np.ones(nx + ny), -np.ones(ny), np.ones(N), -np.ones(nx)])
    nv = nx + ny + N
    A_eq = sp.csr_matrix((eq_v, (eq_r, eq_c)), shape=(nx + N, nv))
    b_eq = np.concatenate([own[ni, ui], np.zeros(N)])
    # every node l-eligible; the root too when the whole table is (for a model frequency
    # l-diversity only implies it may not be: the root then takes what is left unchecked)
    total = below[0]
    bind = np.flatnonzero((ni > 0) | (l * total.max() <= total.sum()))
    A_ub = sp.csr_matrix((np.concatenate([np.full(len(bind), float(l)), -np.ones(len(bind))]),
                          (np.tile(np.arange(len(bind)), 2),
                           np.concatenate([bind, n_col[ni[bind]]]))),
                         shape=(len(bind), nv))
    c = np.zeros(nv)
    c[nx + ny:] = rt.m - tree.depth
    res = _solve(c, A_ub, A_eq, b_eq, max_iterations)
    if res is None or res.status != 0 or res.x is None:
        return None
    x = np.zeros((N, s))
    x[ni, ui] = np.maximum(res.x[:nx], 0.0)
    return x


def _solve(c: np.ndarray, A_ub: Any, A_eq: Any, b_eq: np.ndarray, max_iterations: int) -> Any:
    import warnings

    from scipy.optimize import OptimizeWarning, linprog

    with warnings.catch_warnings():  # "passed to HiGHS verbatim": meant
        warnings.simplefilter("ignore", OptimizeWarning)
        return linprog(c, A_ub=A_ub, b_ub=np.zeros(A_ub.shape[0]), A_eq=A_eq, b_eq=b_eq,
                       bounds=(0, None), method="highs-ipm",
                       options={"maxiter": int(max_iterations), "disp": False})


def rounded_groups(rt: RowTypes, tree: Tree, x: np.ndarray, part: Part) -> list[Group]:
    """Step 3: the classes, deepest nodes first (ties: the order the nodes were made)."""
    N, s = len(tree.parent), rt.s
    waiting: list[list[tuple[int, int, int]]] = [[] for _ in range(N)]  # (type, value, rows)
    t_idx, u_idx = np.nonzero(rt.counts)
    for t, u in zip(t_idx.tolist(), u_idx.tolist(), strict=True):
        waiting[int(tree.home[t])].append((t, u, int(rt.counts[t, u])))
    groups: list[Group] = []
    for node in np.argsort(-tree.depth, kind="stable").tolist():
        entries = waiting[node]
        if not entries:
            continue
        have = np.zeros(s, dtype=np.int64)
        for _, u, r in entries:
            have[u] += r
        up = int(tree.parent[node])
        if up < 0:
            take = have
        else:
            take = np.minimum(np.floor(x[node] + HALF).astype(np.int64), have)
            if take.any():  # rounding may break l-eligibility: the largest part that holds
                take = part(take[None, :])[0]
        left = take.copy()
        ti: list[int] = []
        ui: list[int] = []
        ri: list[int] = []
        for t, u, r in entries:
            g = min(int(left[u]), r)
            if g:
                ti.append(t)
                ui.append(u)
                ri.append(g)
                left[u] -= g
            if r > g:
                waiting[up].append((t, u, r - g))
        waiting[node] = []
        if ti:
            groups.append((np.asarray(ti, dtype=np.int64), np.asarray(ui, dtype=np.int64),
                           np.asarray(ri, dtype=np.int64)))
    return groups


def tree_plan(rt: RowTypes, part: Part, l: int, floor: int, method: str,
              guarantee: Guarantee) -> ReleasePlan | None:
    """The start of the module docstring as a plan (classes that fail the model are left to
    the repair); ``None`` when the LP is over its work limits."""
    tree = split_tree(rt, part, floor)
    x = placement(rt, tree, l)
    if x is None:
        return None
    return ReleasePlan.from_groups(rt, rounded_groups(rt, tree, x, part), method, guarantee)
