"""Exact 2-diversity with two sensitive values: a min-cost matching solved on row types.

Guarantee: **exact** -- the release has the minimum number of stars of any frequency
2-diverse release (l = 2: no sensitive value holds more than half of a class) of a table whose
one sensitive column takes exactly two values ``A`` and ``B``.

Why a matching. By Liang & Yuan's Lemma 2 (Sec. 6) some optimal 2-diverse partition has only
groups of 2 or 3 rows with distinct sensitive values; with two values these are pairs of one
``A`` row and one ``B`` row, so the table is 2-eligible iff ``|A| = |B|`` and the optimum is a
min-cost perfect matching between the ``A`` rows and the ``B`` rows with cost ``2 x`` Hamming
distance of the two QI vectors (Xiao, Yi & Tao, Sec. 4). Pairs with the same suppressor are
released as one class, which is still 2-diverse (their Lemma 1).

On row types (Bredereck et al.). Rows of one (row type, value) cell are interchangeable, so the
matching is the transportation problem: supply ``a_i`` = ``A`` rows of row type ``i``, demand
``b_j`` = ``B`` rows of row type ``j``, unit cost ``2 * ham(i, j)``: a min-cost flow, with integral
optimal flows for integral supplies.

Step 1 (exact sparsification). Pair ``min(a_i, b_i)`` rows inside each row type at cost 0.
Some optimal flow does so: if ``i`` ships to ``j != i`` while ``k != i`` ships to ``i``,
rerouting one unit to ``i -> i`` and ``k -> j`` changes the cost by
``c(k, j) - c(k, i) - c(i, j) <= 0`` (triangle inequality of the Hamming distance). Afterwards
every row type is a pure supply (set ``P``) or a pure demand (set ``Q``).

Step 2 (arc generation with exact pricing). The residual problem over all ``|P| x |Q|`` arcs
may be too large to build, so it is solved over a growing arc set: each round solves a min-cost
flow (OR-Tools) on the arcs so far plus a hub node ``H`` with arcs ``i -> H`` and ``H -> j`` at
cost ``m`` each (an unmatched ``A`` and ``B`` row pair up at cost ``2 ham <= 2m``, so the hub
never beats the full arc set, and it keeps every restricted network feasible). Node potentials
``d`` of the optimal flow come from shortest paths in its residual graph (Bellman-Ford, no
negative cycle at an optimum); with ``u_i = -d_i``, ``v_j = d_j`` every arc of the network has
reduced cost ``c - u - v >= 0``. Then every arc of ``P x Q`` is priced in chunks: reduced cost
``2 ham(i, j) - u_i - v_j``, in integers. Arcs with negative reduced cost are added; when none is
left, ``(u, v)`` is a feasible dual of the full transportation LP whose value
``sum a_i u_i + sum b_j v_j`` equals the flow cost (checked) -- a certificate that no matching
costs less (LP duality). Hub units are paired arbitrarily; each such pair costs at most ``2m``,
so the decoded matching costs at most the flow cost and therefore equals it (checked).

Complexity: step 1 ``O(t_in)``; each round one min-cost flow on ``|P| + |Q| + 1`` nodes and the
arcs so far (at most ``4 |P| + |Q|`` new per round), Bellman-Ford rounds over those arcs, and
pricing in ``O(|P| |Q| m)`` time with ``O(_CHUNK)`` memory. Rounds are few in practice (about
10 on adult; the number is finite because arcs are only added). Independent of ``n``.
Size limit: ``|P| x |Q| <= MAX_RESIDUAL_PAIRS`` (``supports`` names it).

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 6, Lemma 2 (groups of 2 or 3 rows with distinct SA values) and Theorem 11.
X. Xiao, K. Yi and Y. Tao, "The Hardness and Approximation Algorithms for l-Diversity",
EDBT 2010, Sec. 4 (two SA values: bipartite matching), Definition 2 and Lemma 1.
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 2 (row types).
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Algorithm, Progress, fixed_work, silent
from starmin.algorithms.exact._two_diversity import (
    hamming,
    model_reason,
    start,
    table_reason,
    value_counts,
    value_name,
)
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput, SolverLimit
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "two-diversity-flow"
OPTIONS = ("max_rounds",)
"""The options :func:`solve` takes (``max_rounds`` is its keyword)."""
MAX_RESIDUAL_PAIRS = 400_000_000
"""Largest ``|P| x |Q|`` (residual A-types x B-types) priced per round."""
DENSE_PAIRS = 20_000
"""Up to this many residual pairs every arc goes into the first flow (one round)."""
_CHUNK = 2_000_000
"""Reduced costs computed per chunk of the pricing (elements)."""
_K = 4
"""Arcs priced in per supply row and round (and the nearest partners to start from)."""

GUARANTEE = Guarantee(
    kind="exact",
    statement=("minimum number of stars of any frequency 2-diverse release when the one "
               "sensitive column has exactly two values (min-cost perfect matching)"),
    reference="Liang & Yuan Sec. 6 Lemma 2; Xiao, Yi & Tao Sec. 4",
)

IntArray = NDArray[np.int64]
Codes = NDArray[np.integer]


def _residual(rt: RowTypes) -> tuple[IntArray, IntArray, IntArray]:
    """The two present keys ``(2,)``, and ``(t_in,)`` A- and B-rows left after step 1."""
    keys = np.flatnonzero(value_counts(rt) > 0)
    ca, cb = rt.counts[:, keys[0]], rt.counts[:, keys[1]]
    same = np.minimum(ca, cb)
    return keys, ca - same, cb - same


def _values_reason(rt: RowTypes) -> str | None:
    present = int((value_counts(rt) > 0).sum())
    if present > 2:
        return (f"{NAME} needs exactly two sensitive values, {rt.sensitive[0]!r} has "
                f"{present}: use two-diversity-milp")
    return None


def _size_reason(rt: RowTypes) -> str | None:
    if int((value_counts(rt) > 0).sum()) < 2:
        return None  # solve() reports the infeasibility
    _, ra, rb = _residual(rt)
    pairs = int((ra > 0).sum()) * int((rb > 0).sum())
    if pairs > MAX_RESIDUAL_PAIRS:
        return (f"{NAME}: {pairs} residual row-type pairs exceed its size limit "
                f"{MAX_RESIDUAL_PAIRS}; use a heuristic or coarsen the QI columns")
    return None


def _solver_reason() -> str | None:
    if importlib.util.find_spec("ortools") is None:
        return f"{NAME} needs the ortools package (min-cost flow): pip install ortools"
    return None


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` when this method solves the instance, else the reason (see module doc)."""
    return (model_reason(model, NAME) or table_reason(rt, NAME) or _values_reason(rt)
            or _size_reason(rt) or _solver_reason())


def _price(A: Codes, B: Codes, u: IntArray, v: IntArray, k: int
           ) -> tuple[IntArray, IntArray, IntArray]:
    """Arcs ``(i, j, rc)`` of least reduced cost ``rc = 2 ham(i, j) - u_i - v_j``: the ``k``
    best per supply row ``i`` and the best per demand column ``j`` (integers, exact)."""
    p, q = len(u), len(v)
    k = min(k, q)
    out_i, out_j, out_r = [], [], []
    col_arg = np.zeros(q, np.int64)
    col_min = np.full(q, np.iinfo(np.int64).max)
    step = max(1, _CHUNK // max(q, 1))
    small = 2 * A.shape[1] + np.abs(u).max(initial=0) + np.abs(v).max(initial=0) < 2**30
    # int32 halves the memory traffic, and is exact when |rc| < 2^31
    dt: type[np.signedinteger] = np.int32 if small else np.int64
    ud, vd = u.astype(dt), v.astype(dt)
    for s in range(0, p, step):
        rc = 2 * hamming(A[s:s + step], B, dt) - ud[s:s + step, None] - vd[None, :]  # (c, q)
        idx = np.argpartition(rc, k - 1, axis=1)[:, :k]  # (c, k)
        out_i.append(np.repeat(np.arange(s, s + rc.shape[0]), k))
        out_j.append(idx.reshape(-1))
        out_r.append(np.take_along_axis(rc, idx, axis=1).reshape(-1).astype(np.int64))
        ci = rc.argmin(axis=0)  # (q,)
        cm = rc[ci, np.arange(q)]
        better = cm < col_min
        col_arg[better] = ci[better] + s
        col_min[better] = cm[better]
    return (np.concatenate([*out_i, col_arg]), np.concatenate([*out_j, np.arange(q)]),
            np.concatenate([*out_r, col_min]))


def _flow(A: Codes, sa: IntArray, B: Codes, sb: IntArray, ai: IntArray, bj: IntArray,
          m: int) -> tuple[IntArray, int, IntArray, IntArray]:
    """Min-cost flow over arcs ``(ai, bj)`` plus a hub ``H`` (arcs ``i -> H -> j`` at cost
    ``m`` each) with OR-Tools; returns arc flows ``(E,)``, the optimum and integer duals
    ``u (p,)``, ``v (q,)`` with ``c - u - v >= 0`` on every arc of the network."""
    from ortools.graph.python import min_cost_flow

    p, q, E = len(sa), len(sb), len(ai)
    hub = p + q
    tails = np.concatenate([ai, np.arange(p), np.full(q, hub)])
    heads = np.concatenate([p + bj, np.full(p, hub), p + np.arange(q)])
    costs = np.concatenate([2 * (A[ai] != B[bj]).sum(axis=1), np.full(p + q, m)])
    costs = costs.astype(np.int64)
    mcf = min_cost_flow.SimpleMinCostFlow()
    mcf.add_arcs_with_capacity_and_unit_cost(tails, heads, np.full(len(tails), sa.sum()), costs)
    mcf.set_nodes_supplies(np.arange(hub + 1), np.concatenate([sa, -sb, [0]]))
    status = mcf.solve()
    if status != mcf.OPTIMAL:
        raise SolverLimit(f"{NAME}: OR-Tools min-cost flow ended with status {status}; "
                          "report this with the input")
    x = np.asarray(mcf.flows(np.arange(len(tails))), dtype=np.int64)
    d = _potentials(tails, heads, costs, x, hub + 1)
    d -= d[hub]
    return x[:E], int(mcf.optimal_cost()), -d[:p], d[p:hub]


def _potentials(tails: IntArray, heads: IntArray, costs: IntArray, x: IntArray,
                nodes: int) -> IntArray:
    """Shortest-path distances ``(nodes,)`` in the residual graph of an optimal flow (from a
    virtual root joined to every node at cost 0), by Bellman-Ford rounds over all arcs at
    once. Every residual arc then has reduced cost ``c + d_t - d_h >= 0``."""
    pos = x > 0  # arcs are uncapacitated in effect: forward always, backward where used
    rt = np.concatenate([tails, heads[pos]])
    rh = np.concatenate([heads, tails[pos]])
    rc = np.concatenate([costs, -costs[pos]])
    d = np.zeros(nodes, dtype=np.int64)
    for _ in range(nodes + 1):
        new = d.copy()
        np.minimum.at(new, rh, d[rt] + rc)
        if np.array_equal(new, d):
            return d
        d = new
    raise SolverLimit(f"{NAME}: the flow is not optimal (negative residual cycle); "
                      "report this with the input")


def _transport(A: Codes, sa: IntArray, B: Codes, sb: IntArray, m: int,
               progress: Progress, max_rounds: int) -> tuple[IntArray, IntArray, IntArray,
                                                             dict[str, Any]]:
    """Step 2: optimal integral flow ``x`` on arcs ``(ai, bj)`` covering supplies and demands
    exactly (hub units already paired). Indices are into ``A``/``B``."""
    p, q = len(sa), len(sb)
    zero_p, zero_q = np.zeros(p, np.int64), np.zeros(q, np.int64)
    if p * q <= DENSE_PAIRS:
        ai, bj = (g.reshape(-1) for g in np.meshgrid(np.arange(p), np.arange(q), indexing="ij"))
    else:  # start from each node's nearest partners
        ai, bj, _ = _price(A, B, zero_p, zero_q, _K)
    for rounds in range(1, max_rounds + 1):
        ai, bj = _dedup(ai, bj, q)
        x, z, u, v = _flow(A, sa, B, sb, ai, bj, m)
        progress(f"{NAME}: round {rounds}, {len(ai)} arcs, flow cost {z}")
        ni, nj, nr = _price(A, B, u, v, _K)
        if not (nr < 0).any():
            break
        ai, bj = np.concatenate([ai, ni[nr < 0]]), np.concatenate([bj, nj[nr < 0]])
    else:
        raise SolverLimit(f"{NAME}: pricing did not converge in {max_rounds} rounds; "
                          "raise max_rounds")
    arcs = len(ai)
    dual = int(sa @ u + sb @ v)
    if dual != z:
        raise SolverLimit(f"{NAME}: dual value {dual} differs from the flow cost {z}; "
                          "report this with the input")
    keep = x > 0
    ai, bj, x = ai[keep], bj[keep], x[keep]
    li, lj, lx = _pair_leftovers(sa - np.bincount(ai, x, p).astype(np.int64),
                                 sb - np.bincount(bj, x, q).astype(np.int64))
    info = {"flow_cost": z, "dual_objective": dual, "pricing_rounds": rounds,
            "arcs_in_network": arcs}
    return (np.concatenate([ai, li]), np.concatenate([bj, lj]), np.concatenate([x, lx]), info)


def _dedup(ai: IntArray, bj: IntArray, q: int) -> tuple[IntArray, IntArray]:
    """Distinct arcs, sorted."""
    code = np.unique(ai * q + bj)
    return code // q, code % q


def _pair_leftovers(la: IntArray, lb: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    """Pair unmatched supply units ``la (p,)`` with demand units ``lb (q,)`` in index order:
    arcs ``(i, j, count)`` (equal totals; slack pairs cost at most ``2m``, see step 2)."""
    if (la < 0).any() or (lb < 0).any() or la.sum() != lb.sum():
        raise SolverLimit(f"{NAME}: inconsistent flow; report this with the input")
    ca, cb = np.cumsum(la), np.cumsum(lb)
    cuts = np.union1d(ca, cb)
    cuts = cuts[cuts > 0]
    lo = np.concatenate([[0], cuts])[:-1]
    i = np.searchsorted(ca, lo, side="right")
    j = np.searchsorted(cb, lo, side="right")
    return i.astype(np.int64), j.astype(np.int64), (cuts - lo).astype(np.int64)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0, progress: Progress | None = None,
          max_rounds: int = 1000, **options: Any) -> ReleasePlan:
    """Optimal frequency 2-diverse release of a table with two sensitive values.

    Guarantee: exact (module doc). ``seed`` is unused (deterministic). ``max_rounds`` caps
    the pricing rounds (convergence is guaranteed; the cap only guards run time).
    Raises ``InvalidInput`` (wrong model or table), ``Infeasible`` (the two values have
    unequal counts) or ``SolverLimit`` (beyond :data:`MAX_RESIDUAL_PAIRS`).
    """
    progress = progress or silent
    empty = start(rt, model, NAME, GUARANTEE, options, OPTIONS)
    if empty is not None:
        return empty
    reason = _values_reason(rt)
    if reason is not None:
        raise InvalidInput(reason)
    reason = _size_reason(rt) or _solver_reason()
    if reason is not None:
        raise SolverLimit(reason)
    keys, ra, rb = _residual(rt)
    same = rt.counts[:, keys[0]] - ra
    P, Q = np.flatnonzero(ra), np.flatnonzero(rb)
    # step 1: (t_in,) zero-cost pairs inside each row type
    groups = [(np.array([i, i]), keys, np.array([c, c])) for i, c in enumerate(same) if c > 0]
    info: dict[str, Any] = {"flow_cost": 0, "dual_objective": 0, "pricing_rounds": 0,
                            "arcs_in_network": 0}
    if len(P):
        # step 2: arcs (E,) between residual A-types P and B-types Q with counts x
        ai, bj, x, info = _transport(rt.codes[P], ra[P], rt.codes[Q], rb[Q], rt.m, progress,
                                     max_rounds)
        groups += [(np.array([P[i], Q[j]]), keys, np.array([c, c]))
                   for i, j, c in zip(ai, bj, x, strict=True)]
    plan = ReleasePlan.from_groups(rt, groups, NAME, GUARANTEE)
    if plan.stars != info["flow_cost"]:
        raise SolverLimit(f"{NAME}: decoded matching costs {plan.stars}, flow optimum "
                          f"{info['flow_cost']}; report this with the input")
    cert = {**info, "values": [str(value_name(rt, k)) for k in keys],
            "same_type_pairs": int(same.sum()), "residual_types": [len(P), len(Q)]}
    return plan.with_info(lower_bound=plan.stars, certificate=cert)


def auto_work(model: PrivacyModel, rt: RowTypes) -> float:
    """Estimated work units for ``--method auto``: the pricing rounds, ``2.5e-8`` per residual
    pair and column (adult salary, 5294 x 4455 pairs, 8 QIs: 4.7 units, measured 5.3 CPU s),
    plus ``1e-5`` per row type."""
    if int((value_counts(rt) > 0).sum()) < 2:
        return 1e-5 * rt.t_in
    _, ra, rb = _residual(rt)
    pairs = int((ra > 0).sum()) * int((rb > 0).sum())
    return 2.5e-8 * pairs * rt.m + 1e-5 * rt.t_in

ALGORITHM = Algorithm(
    name=NAME,
    summary="exact 2-diversity for two sensitive values: min-cost matching on row types",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=fixed_work(auto_work),
    options=OPTIONS,
)
