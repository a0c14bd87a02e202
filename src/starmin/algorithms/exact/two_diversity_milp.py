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
with two triples fewer -- a contradiction. Group types inside one row type cost 0; they are
not presolved away, since a row type whose own rows are 2-diverse may still have to lend rows
to others (rows ``(i, x), (i, y), (j, z), (k, z)``: the optimum pairs ``i_x`` and ``i_y`` with a
``z`` each).

Solving it exactly without building every triple (:func:`_fix_and_solve`):

1. LP bound over pairs only. The LP relaxation never needs triples: for a triple ``g`` of
   slots ``a, b, c`` the three pairs at weight 1/2 cover the same slots and cost
   ``(c_ab + c_bc + c_ac) / 2 <= c_g`` -- the simplex condition of Liang & Yuan's proof of
   Theorem 11 (a pair's star columns are among the triple's). So HiGHS solves the LP over the
   ``e_2`` pairs (a fractional b-matching, feasible iff the table is 2-eligible), giving duals
   ``pi`` per slot.
2. Bound: for *any* ``pi`` and any integer ``y`` feasible for the MILP above,
   ``cost . y = pi . c + rc . y >= pi . c + sum_g min(rc_g, 0) ub_g =: LB`` with
   ``rc = cost - A^T pi`` and ``ub_g`` the most copies of ``g``. So LB does not rest on the
   solver's tolerances (with an optimal ``pi`` the negative ``rc`` are float noise).
   Triples are scanned in numpy, never stored, for their negative ``rc`` and for those with
   ``rc`` in the current window.
3. Reduced-cost fixing: a plan of cost ``<= U`` uses only group types with ``rc_g <= U - LB``.
   Solve the MILP over those for ``U = ceil(LB)``. If it has no solution, no plan costs
   ``<= U``: widen the window (``U - LB`` doubles; triples are rescanned when it outgrows the
   scanned one). If its optimum ``V <= U``, ``V`` is the optimum. Else ``V`` is a true upper
   bound and one more solve with ``U = V`` is exact.

HiGHS runs with ``mip_rel_gap = 0``; its status must be *optimal* and its dual bound must reach
the objective, else ``SolverLimit``. The plan's ``lower_bound`` is the proven optimum.

Complexity: with ``N`` non-empty slots and ``N_s`` slots of value ``s`` there are
``e_2(N_s) <= N^2 / 2`` pair and ``e_3(N_s) <= N^3 / 6`` triple group types (elementary
symmetric polynomials of the ``N_s``; up to ``(t_in |S|)^3 / 6``). The LP has ``e_2`` columns and
``N`` rows; each triple scan is ``O(e_3 * ceil(m / 64))`` numpy work (agreement bit masks) in
``O(N^2)`` memory; the reduced MILPs hold the pairs and triples inside the window -- a few
thousand when the LP bound is tight, far more when the integrality gap is large (the MILP is
NP-hard in general; see docs/algorithms/two-diversity.md for measured cases).
Size limit: at most :data:`MAX_SLOTS` slots (``supports`` names it; ``max_slots`` raises it
per call; ``node_limit`` bounds the branch-and-bound nodes of each HiGHS MILP -- a work limit,
the same on every machine, never a time limit, so success or ``SolverLimit`` does not depend
on the machine's load).

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
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import heartbeat
from starmin.algorithms.base import Algorithm, Progress, fixed_work, silent
from starmin.algorithms.exact._two_diversity import (
    model_reason,
    start,
    table_reason,
)
from starmin.data.rowtypes import RowTypes
from starmin.errors import SolverLimit
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

if TYPE_CHECKING:  # scipy loads only when a MILP is solved: listing the methods stays light
    import scipy.sparse as sp

NAME = "two-diversity-milp"
MAX_SLOTS = 1500
"""Largest number ``N`` of non-empty (row type, value) slots: the LP has up to ``N^2 / 2`` pair
columns and the triple scan visits up to ``N^3 / 6`` triples."""

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


def group_type_count(rt: RowTypes) -> tuple[int, int]:
    """Numbers of pair and triple group types: ``e_2, e_3`` of the slots per value."""
    per_value = np.count_nonzero(rt.counts, axis=0).tolist()
    e1 = e2 = e3 = 0
    for x in per_value:  # elementary symmetric polynomials, exact in Python integers
        e3 += e2 * x
        e2 += e1 * x
        e1 += x
    return e2, e3


def supports(model: PrivacyModel, rt: RowTypes, max_slots: int = MAX_SLOTS) -> str | None:
    """``None`` when this method solves the instance, else the reason (see module doc)."""
    reason = model_reason(model, NAME) or table_reason(rt, NAME)
    if reason is not None:
        return reason
    slots = int(np.count_nonzero(rt.counts))
    if slots > max_slots:
        pairs, triples = group_type_count(rt)
        return (f"{NAME}: {slots} non-empty (row type, value) slots ({pairs} pair and {triples} "
                f"triple group types) exceed its size limit of {max_slots} slots; use "
                "two-diversity-flow (two values), a heuristic, or coarsen the QI columns")
    return None


def _pairs(codes: Ints, sk: IntArray) -> tuple[Int32Array, Int32Array, IntArray]:
    """Every pair of slots ``u < v`` with distinct values: ``(P,)`` ``u``, ``v`` (``u``
    ascending) and cost ``2 x`` the number of columns where their row types differ."""
    iu, iv = np.triu_indices(len(sk), 1)
    ok = sk[iu] != sk[iv]
    iu, iv = iu[ok].astype(np.int32), iv[ok].astype(np.int32)
    return iu, iv, 2 * (codes[iu] != codes[iv]).sum(axis=1).astype(np.int64)


def _popcount(x: NDArray[np.uint64]) -> IntArray:
    """Set bits of each word."""
    if hasattr(np, "bitwise_count"):  # numpy >= 2
        return np.bitwise_count(x).astype(np.int64)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
    return table[x.view(np.uint8).reshape(*x.shape, 8)].sum(axis=-1)


def _scan_triples(codes: Ints, sk: IntArray, iu: Int32Array, iv: Int32Array,
                  pi: FloatArray, tau: float) -> tuple[Int32Array, IntArray, FloatArray, float]:
    """Every triple of slots with three distinct values, without keeping them: returns the
    ``(T, 3)`` triples with reduced cost ``rc = 3 D - pi_u - pi_v - pi_w <= tau``, their
    costs and ``rc``, and the sum of all negative ``rc`` (float noise only, see module doc).

    ``D`` (columns where the three row types are not all equal) comes from bit masks: for a
    fixed ``u``, bit ``c`` of ``eq[v]`` says slot ``v`` agrees with ``u`` in column ``c``."""
    N, m = codes.shape
    words = max(1, -(-m // 64))
    bits = np.uint64(1) << (np.arange(m, dtype=np.uint64) % np.uint64(64))
    pi_pair = pi[iu] + pi[iv]  # (P,)
    first = np.searchsorted(iu, np.arange(N + 1))  # pairs (v, w) with v > u start here
    out_m, out_c, out_r, neg = [], [], [], 0.0
    for u in range(N - 2):
        eq = np.zeros((N, words), dtype=np.uint64)  # (N, words) agreement masks with u
        same = codes == codes[u]  # (N, m)
        for c in range(m):
            eq[same[:, c], c // 64] |= bits[c]
        lo = first[u + 1]
        v, w = iu[lo:], iv[lo:]
        ok = (sk[v] != sk[u]) & (sk[w] != sk[u])  # (T,) three distinct values
        v, w = v[ok], w[ok]
        agree = sum(_popcount(eq[v, k] & eq[w, k]) for k in range(words))
        cost = 3 * (m - agree)
        rc = cost - pi[u] - pi_pair[lo:][ok]
        neg += float(rc[rc < 0].sum())
        sel = rc <= tau
        out_m.append(np.stack([np.full(int(sel.sum()), u), v[sel], w[sel]], axis=1))
        out_c.append(cost[sel])
        out_r.append(rc[sel])
    if not out_m:
        return np.zeros((0, 3), np.int32), np.zeros(0, np.int64), np.zeros(0), 0.0
    return (np.concatenate(out_m).astype(np.int32), np.concatenate(out_c),
            np.concatenate(out_r), neg)


def _triple_rows(st: IntArray, members: Ints) -> sp.csr_array:
    """One row ``sum y_g <= 1`` per row-type set shared by two or more triple types."""
    import scipy.sparse as sp

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
    straight from ``members``)."""
    import scipy.sparse as sp

    used = members >= 0  # (G, 3)
    indptr = np.concatenate([[0], np.cumsum(used.sum(axis=1))])
    indices = members[used].astype(np.int32)  # row-major: the slots of group 0, then 1, ...
    return sp.csc_array((np.ones(len(indices)), indices, indptr), shape=(N, len(members)))


def _upper(members: Ints, sc: IntArray) -> IntArray:
    """``(G,)`` most copies of each group type: its scarcest slot; triples 1 (Lemma A)."""
    ub = np.where(members >= 0, sc[np.maximum(members, 0)], np.iinfo(np.int64).max).min(axis=1)
    return np.where(members[:, 2] >= 0, np.minimum(ub, 1), ub)


def _pair_duals(A: sp.csc_array, cost: IntArray, sc: IntArray) -> FloatArray:
    """Optimal duals ``pi (N,)`` of the LP relaxation over pairs only (feasible for a
    2-eligible table: a fractional perfect b-matching of a complete multipartite graph)."""
    from scipy.optimize import linprog

    res = linprog(cost.astype(float), A_eq=A, b_eq=sc.astype(float), bounds=(0, None),
                  method="highs")
    if res.status != 0:
        raise SolverLimit(f"{NAME}: HiGHS did not solve the LP relaxation ({res.message}); "
                          "report this with the input")
    return np.asarray(res.eqlin.marginals, dtype=float)


def _milp(A: sp.csc_array, members: Ints, cost: Ints, sc: IntArray, st: IntArray,
          node_limit: int | None) -> tuple[IntArray, int] | None:
    """Optimal integer ``y (G,)`` and its cost, ``None`` if infeasible; raises when HiGHS
    stops without proving optimality."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    ub = _upper(members, sc)
    cons = [LinearConstraint(A, sc.astype(float), sc.astype(float))]
    T = _triple_rows(st, members)
    if T.shape[0]:
        cons.append(LinearConstraint(T, -np.inf, 1.0))
    options: dict[str, Any] = {"mip_rel_gap": 0.0, "disp": False}
    if node_limit is not None:
        options["node_limit"] = int(node_limit)
    res = milp(cost.astype(float), integrality=np.ones(len(cost)),
               bounds=Bounds(0, ub.astype(float)), constraints=cons, options=options)
    if res.status == 4:  # HiGHS internal solve error (seen on tiny instances): retry without
        # presolve; the result is checked for optimality below exactly as before
        options["presolve"] = False
        res = milp(cost.astype(float), integrality=np.ones(len(cost)),
                   bounds=Bounds(0, ub.astype(float)), constraints=cons, options=options)
    if res.status == 2:
        return None
    if res.status != 0 or res.x is None:
        raise SolverLimit(f"{NAME}: HiGHS did not prove an optimum ({res.message}); raise "
                          "node_limit or use a heuristic")
    y = np.rint(res.x).astype(np.int64)
    value = int(cost @ y)
    bound = math.ceil(float(res.mip_dual_bound) - 1e-6)
    if value > bound or np.abs(res.x - y).max(initial=0.0) > 1e-6:
        raise SolverLimit(f"{NAME}: HiGHS stopped at cost {value} with lower bound {bound}; "
                          "raise node_limit or use a heuristic")
    return y, value


def _fix_and_solve(codes: Ints, st: IntArray, sk: IntArray, sc: IntArray,
                   node_limit: int | None, progress: Progress
                   ) -> tuple[Int32Array, IntArray, dict[str, Any]]:
    """Optimal group types ``(K, 3)`` with their counts ``(K,)``: LP bound over pairs,
    reduced-cost fixing over pairs and triples, MILP (module doc, steps 1-3)."""
    N = len(sc)
    iu, iv, pcost = _pairs(codes, sk)  # (P,)
    pairs = np.stack([iu, iv, np.full(len(iu), -1, np.int32)], axis=1)
    A = _coverage(pairs, N)
    pi = _pair_duals(A, pcost, sc)  # step 1
    prc = pcost - A.T @ pi  # (P,) pair reduced costs
    neg = prc < 0
    base = float(pi @ sc) + float(prc[neg] @ _upper(pairs[neg], sc))
    tau = math.ceil(base - 1e-6) - base + 2.0  # first triple window
    tri, tcost, trc, tneg = _scan_triples(codes, sk, iu, iv, pi, tau)
    bound = base + tneg  # step 2: no plan costs less
    scans, ub = 1, math.ceil(bound - 1e-6)  # guess OPT <= ub, the least value allowed
    for rounds in range(1, 64):  # step 3
        window = ub - bound + 1e-6
        if window > tau:
            tau = 2 * window
            tri, tcost, trc, tneg = _scan_triples(codes, sk, iu, iv, pi, tau)
            scans += 1
        kp, kt = prc <= window, trc <= window  # all a plan of cost <= ub can use
        members = np.concatenate([pairs[kp], tri[kt]])
        cost = np.concatenate([pcost[kp], tcost[kt]])
        progress(f"{NAME}: LP bound {bound:.2f}, trying cost <= {ub} with {int(kp.sum())} "
                 f"pairs and {int(kt.sum())} triples")
        with heartbeat(progress, f"{NAME}: HiGHS MILP"):
            out = _milp(_coverage(members, N), members, cost, sc, st, node_limit)
        if out is None:  # no plan costs <= ub: widen the window (doubling)
            ub = math.ceil(bound + 2 * (ub - bound) + 1 - 1e-6)
            continue
        y, value = out
        if value <= ub:  # every plan of cost <= ub is inside the window: optimal
            info = {"lp_bound": bound, "fixing_rounds": rounds, "triple_scans": scans,
                    "kept_pairs": int(kp.sum()), "kept_triples": int(kt.sum())}
            return members[y > 0], y[y > 0], info
        ub = value  # a true upper bound: the next window holds an optimal plan
    raise SolverLimit(f"{NAME}: reduced-cost fixing did not settle; report this with the input")


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0, progress: Progress | None = None,
          max_slots: int = MAX_SLOTS, node_limit: int | None = None,
          **options: Any) -> ReleasePlan:
    """Optimal frequency 2-diverse release (any number of sensitive values).

    Guarantee: exact (module doc). ``seed`` is unused (deterministic). ``max_slots`` raises
    the size limit; ``node_limit`` (branch-and-bound nodes; default none) bounds each HiGHS
    MILP, which then raises ``SolverLimit`` rather than return an unproven plan. There is no
    time limit: the outcome is the same on every machine under any load. Raises
    ``InvalidInput`` (wrong model or table), ``Infeasible`` (a value holds more than half of
    the table) or ``SolverLimit``.
    """
    progress = progress or silent
    empty = start(rt, model, NAME, GUARANTEE, options)
    if empty is not None:
        return empty
    reason = supports(model, rt, max_slots)
    if reason is not None:
        raise SolverLimit(reason)
    st, sk, sc = _slots(rt)  # (N,) slots
    progress(f"{NAME}: {len(st)} slots; LP bound over pairs, then fixing and MILP")
    members, y, info = _fix_and_solve(rt.codes[st], st, sk, sc, node_limit, progress)
    groups = []
    for mem, count in zip(members, y, strict=True):
        mem = mem[mem >= 0]
        groups.append((st[mem], sk[mem], np.full(len(mem), count)))
    plan = ReleasePlan.from_groups(rt, groups, NAME, GUARANTEE)
    pairs, triples = group_type_count(rt)
    cert = {"slots": len(st), "pair_types": pairs, "triple_types": triples,
            "groups_used": len(groups), **info}
    return plan.with_info(lower_bound=plan.stars, certificate=cert)


def auto_work(model: PrivacyModel, rt: RowTypes) -> float:
    """Estimated work units for ``--method auto``: ``4e-8`` per pair or triple group type
    (the pair LP and the triple scans) and ``1e-3`` per slot (the MILPs); 755 slots: 2.8
    units, measured 2.1 s; 1543 slots: 20 units, measured 18 s (docs/algorithms/two-diversity).
    A large integrality gap costs more, up to the MILPs' node limit."""
    pairs, triples = group_type_count(rt)
    return 4e-8 * (pairs + triples) + 1e-3 * int(np.count_nonzero(rt.counts))

ALGORITHM = Algorithm(
    name=NAME,
    summary="exact 2-diversity for any number of sensitive values: MILP over pairs/triples",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=fixed_work(auto_work),
)
