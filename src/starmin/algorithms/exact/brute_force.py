"""Exact brute force for every privacy model: a dynamic program over sub-multisets of rows.

Guarantee: **exact** -- the returned release has the minimum number of stars of any release of
the table by cell suppression that satisfies the model. It is the test oracle of the project.

Why partitions suffice. A release maps every row to an output vector; a released class is the
set of rows sharing one output vector. The output vector must have a star wherever two of the
class's rows differ, so the class costs at least ``|class| x cost(suppressor)`` (Liang & Yuan,
Sec. 2). Hence the optimum over releases is at least the optimum over *partitions* of the rows
into groups that satisfy the model, each released as its suppressor. Conversely, releasing a
feasible partition by suppressors may give two groups the same suppressor; they then form one
class. Every model here (k-anonymity, the l-diversity variants, t-closeness, p-sensitive
k-anonymity and their conjunction) is closed under union of classes -- class size and the number
of distinct values only grow, the largest share and the EMD to the table are convex in the
mixture, entropy is concave -- so the merged class is still feasible and the cost is unchanged.
Both optima are therefore equal, and it suffices to search partitions. A model that is not closed
under union is outside the solver's scope: it re-checks the merged classes and raises
``StarminError`` when it notices (it may also report such an instance infeasible).

The search. Rows of the same (row type, sensitive key) are interchangeable, so a sub-table is a
count vector ``c' <= c`` over the ``d`` non-empty (row type, key) cells (over row types only for
models that ignore the sensitive attribute). With ``S = prod_j (c_j + 1)`` such vectors,

    best[0] = 0;  best[c'] = min over feasible groups g <= c', g != 0, of cost(g) + best[c' - g]

is computed by a 0/1 knapsack over groups: for each feasible group vector ``g`` (outer loop)
every state ``c' >= g`` is relaxed once, from the values before ``g`` was considered. Using each
group vector at most once loses nothing: two copies of ``g`` can be replaced by the group ``2g``,
which has the same row types, hence twice the cost, and is feasible by closure under union.
Feasibility (:func:`starmin.models.apply.holds`) and cost (``|g| x`` number of non-constant QI
columns among ``g``'s row types) of all ``S`` vectors are precomputed at once in numpy.

Complexity: ``O(W)`` array updates with ``W = prod_j (c_j + 1)(c_j + 2) / 2`` (pairs
``g <= c' <= c``), plus ``O(S * (d + m))`` precomputation. With all rows distinct this is
``3^n``, the bound of Liang & Yuan's Theorem 8 (``2^O(n) * O(m)``); repeated rows make it far
smaller. Size limit: ``S <= 2^16`` and ``W <= 2 * 10^8`` (so every table with ``n <= 16`` rows is
supported, and larger ones with repeated rows, e.g. 40 rows of 4 row types); :func:`supports`
names the limit otherwise. Measured (CPU): 16 distinct rows 1.1-1.6 s, 24 rows of 8 types 1.3 s,
40 rows of 4 types 0.2 s; the time grows with ``S``, the number of numpy relaxations.

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 2 (suppressor, cost, partitions) and Sec. 4, Theorem 8 (``2^O(n) * O(m)`` exact algorithm).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Algorithm, Progress, fixed_work, known_options, silent
from starmin.algorithms.exact._cells import cells, hand_out
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, SolverLimit, StarminError
from starmin.models.apply import check_feasible, holds
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "brute-force"
MAX_STATES = 2**16
"""Largest number ``S = prod_j (c_j + 1)`` of sub-multisets the solver enumerates."""
MAX_WORK = 2 * 10**8
"""Largest number ``W = prod_j (c_j + 1)(c_j + 2) / 2`` of (group, state) pairs."""
_INF = np.iinfo(np.int64).max // 4

GUARANTEE = Guarantee(
    kind="exact",
    statement="minimum number of stars over all releases satisfying the model",
    reference="Liang & Yuan, Sec. 2 and Thm 8",
)


def size_of(model: PrivacyModel, rt: RowTypes) -> tuple[int, int]:
    """``(S, W)``: number of states and of (group, state) pairs the DP would visit."""
    S = W = 1
    for x in cells(model, rt)[2].tolist():
        S *= x + 1
        W *= (x + 1) * (x + 2) // 2
        if S > MAX_STATES and W > MAX_WORK:  # far beyond the limit: stop counting
            break
    return S, W


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` when the instance is within the size limit, else the reason."""
    S, W = size_of(model, rt)
    if S <= MAX_STATES and W <= MAX_WORK:
        return None
    return (f"brute force is limited to {MAX_STATES} sub-tables and {MAX_WORK:.0e} group-state "
            f"pairs (n <= 16 rows, more when rows repeat); this table ({rt.n} rows, {rt.t_in} "
            f"row types) needs at least {_mag(S)} and {_mag(W)}: use an FPT, MILP or approximation "
            "method instead")


def _mag(x: int) -> str:
    """A readable order of magnitude of a possibly huge integer."""
    return f"{x:.1e}" if x < 10**300 else "more than 1e300"


def _group_tables(model: PrivacyModel, rt: RowTypes, cell_t: NDArray[np.int64],
                  cell_s: NDArray[np.int64], G: NDArray[np.int64]
                  ) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    """Feasibility and cost of every group vector: ``(S,)`` bool and ``(S,)`` int64.

    ``G`` is ``(S, d)``: row ``i`` counts the rows taken from each cell."""
    S, d = G.shape
    size = G.sum(axis=1)
    # (S, s) key counts of each group
    if model.uses_sensitive:
        onehot = np.zeros((d, rt.s), dtype=np.int64)
        onehot[np.arange(d), cell_s] = 1
        key_counts = G @ onehot
    else:  # only the size matters: put it on key 0
        key_counts = np.zeros((S, rt.s), dtype=np.int64)
        key_counts[:, 0] = size
    # judge each distinct key-count vector once (many groups share one; an LP-based model
    # then solves a few hundred problems instead of S)
    uniq, inv = np.unique(key_counts, axis=0, return_inverse=True)
    feasible = holds(model, rt, uniq)[np.asarray(inv).reshape(-1)] & (size > 0)
    # number of non-constant QI columns among the row types present in each group
    present = (G > 0).astype(np.int64)
    nonconst = np.zeros(S, dtype=np.int64)
    for col in range(rt.m):
        _, val = np.unique(rt.codes[cell_t, col], return_inverse=True)
        onehot_v = np.zeros((d, int(val.max()) + 1 if d else 0), dtype=np.int64)
        onehot_v[np.arange(d), val.reshape(-1)] = 1
        nonconst += ((present @ onehot_v) > 0).sum(axis=1) > 1
    return feasible, size * nonconst


def _knapsack(c: NDArray[np.int64], G: NDArray[np.int64], feasible: NDArray[np.bool_],
              cost: NDArray[np.int64], progress: Progress
              ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``best`` and ``choice`` arrays of shape ``c + 1``: the optimum of every sub-multiset and
    the index (into ``G``) of the last group an optimal partition of it uses (-1: none)."""
    shape = tuple(int(x) + 1 for x in c)
    best = np.full(shape, _INF, dtype=np.int64)
    choice = np.full(shape, -1, dtype=np.int64)
    best[(0,) * len(shape)] = 0
    gids = np.flatnonzero(feasible)
    meter = Meter(progress, "brute force", "feasible groups", len(gids))
    for i, gid in enumerate(gids):
        meter.tick(i)
        g = G[gid]
        to = tuple(slice(int(x), None) for x in g)
        fr = tuple(slice(0, n - int(x)) for n, x in zip(shape, g, strict=True))
        dst, src, ch = best[to], best[fr], choice[to]
        cand = src + cost[gid]  # a new array: g is used at most once per state (see above)
        better = cand < dst
        dst[better] = cand[better]
        ch[better] = gid
    return best, choice


def _groups(rt: RowTypes, cell_t: NDArray[np.int64], cell_s: NDArray[np.int64],
            G: NDArray[np.int64], choice: NDArray[np.int64], c: NDArray[np.int64]
            ) -> list[tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]]:
    """Walk ``choice`` back from the full table; return the groups as (type, key, count)."""
    chosen = []
    state = c.copy()
    while state.any():
        g = G[int(choice[tuple(int(x) for x in state)])]
        state = state - g
        chosen.append(g)
    return hand_out(rt, cell_t, cell_s, chosen)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """Minimum-star release of ``rt`` under ``model`` (exact; see the module docstring).

    Raises
    ------
    Infeasible
        No release satisfies the model.
    SolverLimit
        The instance is beyond the size limit (see :func:`supports`).
    """
    known_options(NAME, options, set())
    progress = progress or silent
    check_feasible(model, rt)
    reason = supports(model, rt)
    if reason is not None:
        raise SolverLimit(reason)
    cell_t, cell_s, c = cells(model, rt)
    if len(c) == 0:  # an empty table: the empty release
        return ReleasePlan.from_groups(rt, [], NAME, GUARANTEE, lower_bound=0,
                                       certificate={"optimum": 0})
    shape = tuple(int(x) + 1 for x in c)
    G = np.indices(shape).reshape(len(shape), -1).T.astype(np.int64)  # (S, d), C order
    feasible, cost = _group_tables(model, rt, cell_t, cell_s, G)
    best, choice = _knapsack(c, G, feasible, cost, progress)
    opt = int(best[tuple(int(x) for x in c)])
    if opt >= _INF:
        raise Infeasible(f"no partition of the table satisfies {model.name}: relax the model's "
                         f"parameters")
    groups = _groups(rt, cell_t, cell_s, G, choice, c)
    plan = ReleasePlan.from_groups(
        rt, groups, NAME, GUARANTEE, lower_bound=opt,
        certificate={"optimum": opt, "states": int(G.shape[0]),
                     "feasible_groups": int(feasible.sum()), "groups": len(groups)})
    if plan.stars != opt or not holds(model, rt, plan.class_key_counts(rt.s)).all():
        raise StarminError(f"{model.name} is not closed under union of classes, which the exact "
                           f"brute force assumes: report this model as a bug")
    return plan


def auto_work(model: PrivacyModel, rt: RowTypes) -> float:
    """Estimated work units for ``--method auto``: ``1e-8`` per group-state pair and ``2e-5``
    per state (16 distinct rows: 1.7 units, measured 1.1-1.6 s; at most about 3.3 within the
    size limit)."""
    S, W = size_of(model, rt)
    return 1e-8 * W + 2e-5 * S

ALGORITHM = Algorithm(
    name=NAME,
    summary="exact minimum-star release for any model by a DP over sub-multisets (n <= 16)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=fixed_work(auto_work),
)
