"""Exact 2-diversity for any number of sensitive values: a MILP over pairs and triples.

Guarantee: **exact** -- the release has the minimum number of stars of any frequency
2-diverse release (l = 2: no sensitive value holds more than half of a class), provided HiGHS
proves the MILP optimal (its status and dual bound are checked; otherwise ``SolverLimit``).

Why pairs and triples. By Liang & Yuan's Lemma 2 (Sec. 6) some optimal 2-diverse partition
consists of groups of 2 or 3 rows with distinct sensitive values. Rows of one (row type,
value) *slot* are interchangeable, so such a partition is a multiset of *group types*: a pair
or triple of slots with distinct values (a row type may repeat with different values). A group
type ``g`` over row types ``R(g)`` costs ``|g| x`` the number of columns where ``R(g)``'s QI
vectors are not all equal (Sec. 2). Groups with the same suppressor are released as one class,
still 2-diverse (Xiao, Yi & Tao, Lemma 1), with the same number of stars.

The MILP::

    min  sum_g cost(g) y_g
    s.t. sum_{g contains slot (i, s)} y_g = c(i, s)      for every slot (row type i, value s)
         y_g <= 1,  sum_{triples g with R(g) = R} y_g <= 1   for triples g, row-type sets R
         y_g >= 0 integer.

The triple constraints lose nothing (Lemma A): take an optimal good partition with the fewest
triples. Two triples with the same row-type set ``R`` together are a 2-diverse set of 6 rows,
which Lemma 2's induction splits into three pairs of distinct values; each pair's row types lie
in ``R``, so it costs at most ``2 D(R)`` and the three cost at most the two triples' ``6 D(R)``,
with two triples fewer -- a contradiction. Group types inside one row type cost 0 and are all
included (they are not presolved away: a row type whose own rows are 2-diverse may still have
to lend rows to others, e.g. rows ``(i, x), (i, y), (j, z), (k, z)``).

Solving it exactly, in three steps (:func:`_fix_and_solve`):

1. LP relaxation by column generation: start from every pair and every zero-cost group type,
   with an artificial variable per slot (keeps each restricted LP feasible); price all group
   types with the duals ``pi`` (``rc = cost - A^T pi``, one sparse product); add the most
   negative; stop when none is negative and no artificial is used.
2. Bound: for *any* ``pi`` and any feasible integer ``y``, ``cost . y = pi . c + rc . y >=
   pi . c + sum_g min(rc_g, 0) ub_g =: LB`` (``ub_g`` the most copies ``g`` can have), so
   the bound does not rest on the LP solver's tolerances.
3. Reduced-cost fixing: a plan of cost ``<= U`` uses only group types with ``rc_g <= U - LB``.
   Solve the MILP over those for ``U = ceil(LB)``. If it has no solution, no plan costs
   ``<= U``: widen the window (``U - LB`` doubles). If its optimum ``V <= U``, ``V`` is the
   optimum. Else ``V`` is a true upper bound and one more solve with ``U = V`` is exact.

HiGHS runs with ``mip_rel_gap = 0``; its status must be *optimal* and its dual bound must reach
the objective, else ``SolverLimit``. The plan's ``lower_bound`` is the proven optimum.

Complexity: with ``N`` non-empty slots and ``N_s`` slots of value ``s``, there are
``e_2(N_s) + e_3(N_s) <= N^2 / 2 + N^3 / 6`` group types (elementary symmetric polynomials of
the ``N_s``), i.e. up to ``(t_in |S|)^3 / 6``; enumeration is ``O(N^3 m)`` in numpy and
``O(G)`` memory (about 100-230 bytes per group type at the peak); each LP round is one sparse
product over all ``G``. The reduced MILPs are usually a few hundred to a few ten thousand
columns (NP-hard in general; fast in practice, see docs/algorithms/two-diversity.md).
Size limit: at most :data:`MAX_GROUP_TYPES` group types (``supports`` names it;
``max_group_types`` raises it per call).

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 2 (suppressor, cost) and Sec. 6, Lemma 2 and Theorem 11 (polynomial via simplex matching;
this module solves the same pairs-and-triples problem as a MILP instead).
X. Xiao, K. Yi and Y. Tao, "The Hardness and Approximation Algorithms for l-Diversity",
EDBT 2010, Definition 2 (l-eligible) and Lemma 1 (union closure).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from starmin.algorithms.base import Algorithm, Progress, silent
from starmin.algorithms.exact._two_diversity import (
    check_two_eligible,
    empty_plan,
    model_reason,
    table_reason,
)
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput, SolverLimit
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "two-diversity-milp"
MAX_GROUP_TYPES = 5_000_000
"""Largest number of pair and triple group types (MILP variables) built by default."""
_MAX_LP_ROUNDS = 200
"""Column-generation rounds of the LP bound (any duals give a valid bound; this caps time)."""

GUARANTEE = Guarantee(
    kind="exact",
    statement=("minimum number of stars of any frequency 2-diverse release (pairs and triples "
               "of distinct values, Lemma 2; MILP solved to proven optimality by HiGHS)"),
    reference="Liang & Yuan Sec. 6 Lemma 2",
)

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]
Int32Array = NDArray[np.int32]
Ints = NDArray[np.integer]


def _slots(rt: RowTypes) -> tuple[IntArray, IntArray, IntArray]:
    """``(N,)`` row type, sensitive key and count of every non-empty slot."""
    st, sk = np.nonzero(rt.counts)
    return st.astype(np.int64), sk.astype(np.int64), rt.counts[st, sk]


def group_type_count(rt: RowTypes) -> int:
    """Number of pair and triple group types: ``e_2 + e_3`` of the slots per value."""
    per_value = np.count_nonzero(rt.counts, axis=0).tolist()
    e1 = e2 = e3 = 0
    for x in per_value:  # elementary symmetric polynomials, exact in Python integers
        e3 += e2 * x
        e2 += e1 * x
        e1 += x
    return e2 + e3


def supports(model: PrivacyModel, rt: RowTypes, max_group_types: int = MAX_GROUP_TYPES
             ) -> str | None:
    """``None`` when this method solves the instance, else the reason (see module doc)."""
    reason = model_reason(model, NAME) or table_reason(rt, NAME)
    if reason is not None:
        return reason
    g = group_type_count(rt)
    if g > max_group_types:
        return (f"{NAME}: {g} pair and triple group types exceed its size limit "
                f"{max_group_types}; use two-diversity-flow (two values), a heuristic, or "
                "coarsen the QI columns")
    return None


def _enumerate(rt: RowTypes, st: IntArray, sk: IntArray) -> tuple[Int32Array, Int32Array]:
    """Group types as ``(G, 3)`` slot indices (``-1`` pads pairs) and ``(G,)`` costs, filled
    into preallocated int32 arrays (memory is the limit here)."""
    N = len(st)
    iu, iv = np.triu_indices(N, 1)
    ok = sk[iu] != sk[iv]
    iu, iv = iu[ok].astype(np.int32), iv[ok].astype(np.int32)  # (P,) pairs, iu ascending
    G = group_type_count(rt)
    members = np.full((G, 3), -1, dtype=np.int32)
    cost = np.empty(G, dtype=np.int32)
    codes = rt.codes[st]  # (N, m)
    P = len(iu)
    members[:P, 0], members[:P, 1] = iu, iv
    cost[:P] = 2 * (codes[iu] != codes[iv]).sum(axis=1)
    first = np.searchsorted(iu, np.arange(N + 1))  # pairs (v, w) with v > u start here
    at = P
    for u in range(N - 2):
        v, w = iu[first[u + 1]:], iv[first[u + 1]:]
        keep = (sk[v] != sk[u]) & (sk[w] != sk[u])
        v, w = v[keep], w[keep]  # (T,) triples (u, v, w) with three distinct values
        differ = (codes[v] != codes[u]) | (codes[w] != codes[u])  # (T, m)
        members[at:at + len(v)] = np.stack([np.full(len(v), u), v, w], axis=1)
        cost[at:at + len(v)] = 3 * differ.sum(axis=1)
        at += len(v)
    if at != G:
        raise SolverLimit(f"{NAME}: enumerated {at} group types, expected {G}; report this")
    return members, cost


def _triple_rows(st: IntArray, members: Ints) -> sp.csr_array:
    """One row ``sum y_g <= 1`` per row-type set shared by two or more triple types."""
    tri = np.flatnonzero(members[:, 2] >= 0)
    R = np.sort(st[members[tri]], axis=1)  # (T, 3) row types of each triple, sorted
    _, inv, cnt = np.unique(R, axis=0, return_inverse=True, return_counts=True)
    inv = inv.reshape(-1)
    shared = cnt[inv] > 1
    _, row = np.unique(inv[shared], return_inverse=True)
    rows = row.reshape(-1)
    return sp.csr_array((np.ones(len(rows)), (rows, tri[shared])),
                        shape=(int(rows.max()) + 1 if len(rows) else 0, len(members)))


def _coverage(members: Ints, N: int) -> sp.csc_array:
    """``(N, G)`` 0/1 matrix, column ``g`` marks the slots of group type ``g`` (built as CSC
    straight from ``members``: memory is the limit here)."""
    used = members >= 0  # (G, 3)
    indptr = np.concatenate([[0], np.cumsum(used.sum(axis=1))])
    indices = members[used].astype(np.int32)  # row-major: the slots of group 0, then 1, ...
    return sp.csc_array((np.ones(len(indices)), indices, indptr), shape=(N, len(members)))


def _upper(members: Ints, sc: IntArray) -> IntArray:
    """``(G,)`` most copies of each group type: its scarcest slot; triples 1 (Lemma A)."""
    ub = np.where(members >= 0, sc[np.maximum(members, 0)], np.iinfo(np.int64).max).min(axis=1)
    return np.where(members[:, 2] >= 0, np.minimum(ub, 1), ub)


def _lp_bound(A: sp.csc_array, members: Ints, cost: Ints, sc: IntArray,
              progress: Progress) -> tuple[float, FloatArray, int]:
    """Duals ``pi (N,)`` of the LP relaxation by column generation; returns the lower bound
    ``pi . sc + sum_g min(rc_g, 0) ub_g``, the ``(G,)`` reduced costs ``rc = cost - A^T pi``
    and the number of rounds. Both are valid for *any* ``pi`` (see :func:`_fix_and_solve`);
    an optimal ``pi`` makes them tight."""
    N = len(sc)
    in_lp = (members[:, 2] < 0) | (cost == 0)  # (G,) start: every pair, free triples
    big = float(cost.max(initial=0)) + 1.0  # artificial slot units keep each LP feasible
    batch = max(1000, 4 * N)
    for rounds in range(1, _MAX_LP_ROUNDS + 1):
        idx = np.flatnonzero(in_lp)
        Ar = sp.hstack([A[:, idx], sp.identity(N, format="csr")], format="csr")
        res = linprog(np.concatenate([cost[idx], np.full(N, big)]), A_eq=Ar,
                      b_eq=sc.astype(float), bounds=(0, None), method="highs")
        if res.status != 0:
            raise SolverLimit(f"{NAME}: HiGHS did not solve the LP relaxation "
                              f"({res.message}); report this with the input")
        pi = np.asarray(res.eqlin.marginals, dtype=float)
        rc = cost - A.T @ pi
        cand = np.flatnonzero((rc < -1e-9) & ~in_lp)
        progress(f"{NAME}: LP round {rounds}, {len(idx)} columns, value {res.fun:.2f}")
        if len(cand) == 0:
            if res.x[len(idx):].max(initial=0.0) <= 1e-9:
                break
            big *= 4  # artificials still used: make them dearer
            continue
        if len(cand) > batch:
            cand = cand[np.argpartition(rc[cand], batch)[:batch]]
        in_lp[cand] = True
    neg = np.flatnonzero(rc < 0)  # tiny negatives left by solver tolerances
    bound = float(pi @ sc) + float(rc[neg] @ _upper(members[neg], sc))
    return bound, rc, rounds


def _milp(A: sp.csc_array, members: Ints, cost: Ints, sc: IntArray, st: IntArray,
          time_limit: float | None) -> tuple[IntArray, int] | None:
    """Optimal integer ``y (G,)`` and its cost, ``None`` if infeasible; raises when HiGHS
    stops without proving optimality."""
    ub = _upper(members, sc)
    cons = [LinearConstraint(A, sc.astype(float), sc.astype(float))]
    T = _triple_rows(st, members)
    if T.shape[0]:
        cons.append(LinearConstraint(T, -np.inf, 1.0))
    options: dict[str, Any] = {"mip_rel_gap": 0.0, "disp": False}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    res = milp(cost.astype(float), integrality=np.ones(len(cost)),
               bounds=Bounds(0, ub.astype(float)), constraints=cons, options=options)
    if res.status == 2:
        return None
    if res.status != 0 or res.x is None:
        raise SolverLimit(f"{NAME}: HiGHS did not prove an optimum ({res.message}); raise "
                          "time_limit or use a heuristic")
    y = np.rint(res.x).astype(np.int64)
    value = int(cost @ y)
    bound = math.ceil(float(res.mip_dual_bound) - 1e-6)
    if value > bound or np.abs(res.x - y).max(initial=0.0) > 1e-6:
        raise SolverLimit(f"{NAME}: HiGHS stopped at cost {value} with lower bound {bound}; "
                          "raise time_limit or use a heuristic")
    return y, value


def _fix_and_solve(members: Ints, cost: Ints, sc: IntArray, st: IntArray,
                   time_limit: float | None, progress: Progress
                   ) -> tuple[IntArray, int, dict[str, Any]]:
    """Optimal ``y (G,)`` and its cost by LP bound, reduced-cost fixing and MILP.

    For any duals ``pi`` and any feasible ``y``: ``cost . y = pi . sc + rc . y`` (as
    ``A y = sc``), and ``rc . y >= rc_h + sum_g min(rc_g, 0) ub_g`` when ``y_h >= 1``. So a
    plan of cost ``<= ub`` uses only group types with ``rc_h <= ub - bound``: the MILP over
    those finds the best such plan, or proves there is none (then ``ub`` grows)."""
    A = _coverage(members, len(sc))
    bound, rc, lp_rounds = _lp_bound(A, members, cost, sc, progress)
    ub = math.ceil(bound - 1e-6)  # guess OPT <= ub, the least value the bound allows
    for rounds in range(1, 64):
        keep = np.flatnonzero(rc <= ub - bound + 1e-6)  # (K,) all a cost-<=ub plan can use
        progress(f"{NAME}: LP bound {bound:.2f}, trying cost <= {ub} with {len(keep)} of "
                 f"{len(cost)} group types")
        out = _milp(A[:, keep], members[keep], cost[keep], sc, st, time_limit)
        if out is None:  # no plan costs <= ub: widen the window (doubling)
            ub = math.ceil(bound + 2 * (ub - bound) + 1 - 1e-6)
            continue
        y_keep, value = out
        if value <= ub:  # every plan of cost <= ub is inside the window: optimal
            y = np.zeros(len(cost), dtype=np.int64)
            y[keep] = y_keep
            info = {"lp_bound": bound, "lp_rounds": lp_rounds, "fixing_rounds": rounds,
                    "kept_group_types": len(keep)}
            return y, value, info
        ub = value  # a true upper bound: the next window holds an optimal plan
    raise SolverLimit(f"{NAME}: reduced-cost fixing did not settle; report this with the input")


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0, progress: Progress | None = None,
          max_group_types: int = MAX_GROUP_TYPES, time_limit: float | None = None,
          **options: Any) -> ReleasePlan:
    """Optimal frequency 2-diverse release (any number of sensitive values).

    Guarantee: exact (module doc). ``seed`` is unused (deterministic). ``max_group_types``
    raises the size limit; ``time_limit`` (seconds) bounds HiGHS, which then raises
    ``SolverLimit`` rather than return an unproven plan. Raises ``InvalidInput`` (wrong model
    or table), ``Infeasible`` (a value holds more than half of the table) or ``SolverLimit``.
    """
    if options:
        raise InvalidInput(f"{NAME} takes no options {sorted(options)}; remove them")
    progress = progress or silent
    reason = model_reason(model, NAME) or table_reason(rt, NAME)
    if reason is not None:
        raise InvalidInput(reason)
    check_two_eligible(rt)
    if rt.n == 0:
        return empty_plan(rt, NAME, GUARANTEE)
    reason = supports(model, rt, max_group_types)
    if reason is not None:
        raise SolverLimit(reason)
    st, sk, sc = _slots(rt)  # (N,) slots
    members, cost = _enumerate(rt, st, sk)  # (G, 3), (G,)
    progress(f"{NAME}: {len(st)} slots, {len(cost)} group types; solving the MILP")
    y, value, info = _fix_and_solve(members, cost, sc, st, time_limit, progress)
    groups = []
    for g in np.flatnonzero(y):
        mem = members[g][members[g] >= 0]
        groups.append((st[mem], sk[mem], np.full(len(mem), y[g])))
    plan = ReleasePlan.from_groups(rt, groups, NAME, GUARANTEE)
    if plan.stars != value:
        raise SolverLimit(f"{NAME}: decoded plan costs {plan.stars}, MILP {value}; report "
                          "this with the input")
    cert = {"slots": len(st), "group_types": len(cost), "milp_objective": value,
            "groups_used": len(groups), **info}
    return plan.with_info(lower_bound=value, certificate=cert)


ALGORITHM = Algorithm(
    name=NAME,
    summary="exact 2-diversity for any number of sensitive values: MILP over pairs/triples",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
)
