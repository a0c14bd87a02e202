"""LP-guided packing of one level for :mod:`.pattern_packing` (rounding of the bucket LP).

At level ``j`` the free rows are to be packed into buckets ``(S, w)`` with ``|S| = j``, each
new class holding ``>= k`` rows: free rows and rows lent by classes of a lower level (at
``j - level`` extra stars each, the lender keeping ``>= k``). The *bucket LP* relaxes this:

    min  sum_{v,B} (j - penalty) x[v,B] + sum_{p,B} (j - level(p)) z[p,B]
    s.t. sum_B x[v,B] <= free[v]                  (each free row placed at most once)
         sum_{p in class c, B} z[p,B] <= |c| - k  (lenders keep k rows)
         sum_v x[v,B] + sum_p z[p,B] >= k y[B]    (a class has >= k rows ...)
         x[v,B] <= free[v] y[B], z[p,B] <= avail[p] y[B],  0 <= y <= 1  (... or none)

``penalty`` (``j + 1`` by default) is the estimated cost of a row left for later levels. The
LP is solved by HiGHS (``scipy.optimize.linprog``); its solution is nearly integral in
practice (on adult, k = 5, level 1: 73 fractional ``y`` of 1,923 used). Rounding: buckets
with ``y = 1`` in decreasing order are opened with the floors of their ``x`` and ``z`` when
that still gives ``>= k`` rows and keeps every lender at ``>= k``; the greedy packing then
handles what is left.

Work limits (the same on every machine, so the result never depends on the clock or the
load): the LP is not built into HiGHS above ``max_vars`` variables, and HiGHS stops after
``max_iterations`` simplex iterations (its ``simplex_iteration_limit``, scipy's ``maxiter``);
either way the level is left to the greedy packing. HiGHS's dual simplex is serial and
deterministic: the same LP gives the same iterations and the same solution on every run.

Crowding (a structural limit, stop 34). The LP is a fractional packing of buckets, and it is
fractional where every free row type lies in many buckets that each barely hold ``k`` rows:
then ``y = 1 / options`` covers every row and no bucket is used whole, and HiGHS's dual
simplex slows down per iteration as well. *Competition* is the free row types' mean number
of buckets over the buckets' mean fill (rows free or lendable, over ``k``); *crowding* is the
LP's variables times competition to the fourth. An LP whose crowding exceeds
``max_crowding`` (:data:`MAX_CROWDING`, 1.4 million) is not solved; the greedy packs the
level. Fitted on 25 LPs (``docs/algorithms/pattern-packing.md``): adult's (k = 2..10, 8 and
9 QIs, levels 1-3) have competition 0.6-3.3 and crowding up to 0.95 million, are nearly
integral and take 0.01-0.18 ms per simplex iteration, except 9 QIs' level 3 for k = 5 (3.69,
3.2 million) and k = 10 (4.08, 7.1 million), skipped now (direct pattern-packing 34,818 ->
34,838 and 43,974 -> 44,109 stars; ``auto`` runs the level-1 LP alone there anyway). On
uniform random tables (2,000 to 8,000 rows, 6-12 QIs of 2-6 values, k = 3..10) the slow LPs
had competition 3.2-13.4 and crowding 1.7 million and up: their optima used 0-13 % of their
buckets whole (2,000 x 6 QIs of 4 values, k = 5, level 2: ``y = 1`` on 6 buckets, fractional
on 741), at 0.3-0.8 ms per iteration, 12-32 CPU s per level, and most stopped at
``max_iterations`` with nothing. A rule on the LP's shape, measured before it is solved: it
holds on every machine, but it is no proof that a skipped LP would have been slow or useless
(``bench/auto_budget.py --shapes`` looks for tables where ``auto`` is slow).

Complexity: building ``O(C(m, j) (f + d) log)`` for ``f`` free and ``d`` lending row types;
the LP has ``x + z + y`` variables and as many constraints. Iterations were 0.5-1 per variable
on adult and the synthetic census; the time per iteration varies twenty-fold between LPs
(0.04 ms at level 1 on adult, 0.2-0.8 ms at level 3), so a level-3 LP of 73k variables on
the census at 1M rows needs 76k iterations and minutes, while 40k take about 15 s.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter, heartbeat
from starmin.algorithms.base import Progress, silent
from starmin.algorithms.competition import competition
from starmin.algorithms.heuristic._assignment import Assignment
from starmin.algorithms.heuristic.pattern_keys import IntArray

Bucket = tuple[int, int]

MAX_CROWDING = 1_400_000.0
"""Default largest crowding (variables x :meth:`_Model.competition` to the fourth) of a
bucket LP that is solved (module docstring)."""


def _cat(parts: list[IntArray]) -> IntArray:
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)


class _Model:
    """Variables of the bucket LP: ``x`` per (free row type, bucket) and ``z`` per (lending
    class, bucket), the latter summing the class's lendable pieces inside the bucket."""

    def __init__(self, a: Assignment, j: int, masks: list[int], max_extra: int,
                 max_vars: int | None = None) -> None:
        """With ``max_vars``, building stops (``over`` set) as soon as the ``x`` and ``y``
        variables alone exceed it: the LP would be skipped anyway, and ``size`` is then a
        lower bound above ``max_vars``."""
        k = a.k
        self.free = np.nonzero(a.free > 0)[0].astype(np.int64)
        pieces = [(y, c, min(cnt, a.size[c] - k), a.level(c)) for c in range(len(a.size))
                  if a.size[c] > k and 0 < j - a.level(c) <= max_extra
                  for y, cnt in a.members[c].items()]
        self.lend = np.array(pieces, dtype=np.int64).reshape(-1, 4)  # type, class, rows, level
        self.buckets: list[Bucket] = []
        xt, xb, zp, zb = [], [], [], []
        self.over, nx = False, 0
        for mask in masks:
            parts = self._mask(a, mask)
            xt.append(parts[0])
            xb.append(parts[1])
            zp.append(parts[2])
            zb.append(parts[3])
            nx += len(parts[0])
            if max_vars is not None and nx + len(self.buckets) > max_vars:
                self.over = True
                break
        self.xt, self.xb = _cat(xt), _cat(xb)
        if self.over:
            self.zc = np.zeros(0, dtype=np.int64)
            return
        self._group_lenders(a, _cat(zp), _cat(zb))

    def _mask(self, a: Assignment, mask: int) -> tuple[IntArray, IntArray, IntArray, IntArray]:
        """Buckets of one pattern with free rows and ``>= k`` rows free or lendable; returns
        the (free type, bucket) and (lent piece, bucket) incidences."""
        kx = a.keys.keys(mask, self.free)
        uniq, inv = np.unique(kx, return_inverse=True)
        free_rows = np.bincount(inv, weights=a.free[self.free], minlength=len(uniq))
        kd = a.keys.keys(mask, self.lend[:, 0])
        pos = np.minimum(np.searchsorted(uniq, kd), len(uniq) - 1)
        hit = np.nonzero(uniq[pos] == kd)[0].astype(np.int64)
        lent = np.bincount(pos[hit], weights=self.lend[hit, 2], minlength=len(uniq))
        ok = free_rows + lent >= a.k
        ids = np.full(len(uniq), -1, dtype=np.int64)
        ids[ok] = len(self.buckets) + np.arange(int(ok.sum()))
        self.buckets.extend((mask, int(key)) for key in uniq[ok].tolist())
        sel = ok[inv]
        hit = hit[ok[pos[hit]]]
        return self.free[sel], ids[inv[sel]], hit, ids[pos[hit]]

    def _group_lenders(self, a: Assignment, zp: IntArray, piece_bucket: IntArray) -> None:
        """One ``z`` per (lending class, bucket): ``zc`` class, ``zb`` bucket, ``zlevel`` its
        level, ``zcap`` rows it can lend there; ``piece_z`` maps each lent piece ``zp``."""
        self.zp = zp
        pair = self.lend[zp, 1] * max(len(self.buckets), 1) + piece_bucket
        _, first, piece_z = np.unique(pair, return_index=True, return_inverse=True)
        self.piece_z = np.asarray(piece_z, dtype=np.int64).reshape(-1)
        self.zc = self.lend[zp[first], 1]
        self.zb = piece_bucket[first]
        self.zlevel = self.lend[zp[first], 3]
        cap = np.bincount(self.piece_z, weights=self.lend[zp, 2], minlength=len(first))
        surplus = np.array([a.size[c] - a.k for c in self.zc.tolist()], dtype=np.int64)
        self.zcap = np.minimum(cap.astype(np.int64), surplus)

    @property
    def size(self) -> int:
        return len(self.xt) + len(self.zc) + len(self.buckets)

    def competition(self, a: Assignment) -> float:
        """The mean number of buckets of a free row type that has one, over the buckets'
        mean fill ``(free + lendable rows) / k`` (:mod:`starmin.algorithms.competition`)."""
        options = np.bincount(np.searchsorted(self.free, self.xt), minlength=len(self.free))
        rows = float(a.free[self.xt].sum()) + float(self.zcap.sum() if len(self.zc) else 0)
        return competition(options, rows, len(self.buckets), a.k)


def _solve(a: Assignment, M: _Model, j: int, penalty: float, max_iterations: int
           ) -> tuple[NDArray[np.float64] | None, int]:
    """The LP optimum ``(x, z, y)`` concatenated, or ``None`` if HiGHS fails or reaches
    ``max_iterations`` simplex iterations; and the iterations HiGHS made."""
    import scipy.sparse as sp  # solver libraries load when an LP is solved
    from scipy.optimize import linprog

    k = a.k
    nx, nz, nb = len(M.xt), len(M.zc), len(M.buckets)
    n = nx + nz + nb
    cost = np.concatenate([np.full(nx, j - penalty), (j - M.zlevel).astype(np.float64),
                           np.zeros(nb)])
    ub = np.concatenate([a.free[M.xt], M.zcap]).astype(np.float64)
    once = sp.csr_matrix((np.ones(nx), (np.searchsorted(M.free, M.xt), np.arange(nx))),
                         shape=(len(M.free), n))
    lenders, cls = np.unique(M.zc, return_inverse=True)
    keep = sp.csr_matrix((np.ones(nz), (np.asarray(cls).reshape(-1), nx + np.arange(nz))),
                         shape=(len(lenders), n))
    fill = sp.csr_matrix((np.concatenate([-np.ones(nx + nz), np.full(nb, float(k))]),
                          (np.concatenate([M.xb, M.zb, np.arange(nb)]),
                           np.concatenate([np.arange(nx + nz), nx + nz + np.arange(nb)]))),
                         shape=(nb, n))
    link = sp.csr_matrix((np.concatenate([np.ones(nx + nz), -ub]),
                          (np.tile(np.arange(nx + nz), 2),
                           np.concatenate([np.arange(nx + nz), nx + nz + np.concatenate(
                               [M.xb, M.zb])]))), shape=(nx + nz, n))
    A = sp.vstack([once, keep, fill, link]).tocsr()
    b = np.concatenate([a.free[M.free].astype(np.float64),
                        np.array([a.size[c] - k for c in lenders.tolist()], dtype=np.float64),
                        np.zeros(nb), np.zeros(nx + nz)])
    res = linprog(cost, A_ub=A, b_ub=b, bounds=np.column_stack(
        [np.zeros(n), np.concatenate([ub, np.ones(nb)])]), method="highs",
        options={"maxiter": int(max_iterations)})
    nit = int(getattr(res, "nit", 0) or 0)
    return (None if res.status != 0 or res.x is None else np.asarray(res.x)), nit


def _round(a: Assignment, M: _Model, sol: NDArray[np.float64]) -> int:
    """Open the buckets the LP uses fully (``y = 1``) with the floors of their rows, when
    that still gives ``>= k`` rows and keeps every lender at ``>= k``. Returns the count."""
    nx, nz = len(M.xt), len(M.zc)
    y = sol[nx + nz:]
    xf = np.floor(sol[:nx] + 1e-6).astype(np.int64)
    zf = np.floor(sol[nx:nx + nz] + 1e-6).astype(np.int64)
    rows_of: dict[int, list[tuple[int, int | None, int]]] = {}
    for i in np.nonzero(xf > 0)[0].tolist():
        rows_of.setdefault(int(M.xb[i]), []).append((int(M.xt[i]), None, int(xf[i])))
    pieces_of: dict[int, list[int]] = {}
    for q, z in enumerate(M.piece_z.tolist()):
        if zf[z] > 0:
            pieces_of.setdefault(z, []).append(int(M.zp[q]))
    for z, ps in pieces_of.items():  # floor(z) rows from the class's pieces, in order
        left = int(zf[z])
        for p in ps:
            rows = min(left, int(M.lend[p, 2]))
            if rows > 0:
                rows_of.setdefault(int(M.zb[z]), []).append(
                    (int(M.lend[p, 0]), int(M.lend[p, 1]), rows))
                left -= rows
    opened = 0
    for bi in np.argsort(-y, kind="stable").tolist():
        if y[bi] < 1 - 1e-6:
            break
        plan = _feasible(a, rows_of.get(bi, []))
        if plan:
            cid = a.open(*M.buckets[bi])
            for x, src, rows in plan:
                a.move(x, src, cid, rows)
            opened += 1
    return opened


def _feasible(a: Assignment, wanted: list[tuple[int, int | None, int]]
              ) -> list[tuple[int, int | None, int]]:
    """``wanted`` cut to what is still available; empty unless it makes ``>= k`` rows."""
    plan: list[tuple[int, int | None, int]] = []
    lent: dict[int, int] = {}
    for x, src, rows in wanted:
        if src is None:
            rows = min(rows, int(a.free[x]))
        else:
            rows = min(rows, a.members[src].get(x, 0), a.size[src] - a.k - lent.get(src, 0))
            lent[src] = lent.get(src, 0) + max(rows, 0)
        if rows > 0:
            plan.append((x, src, rows))
    return plan if sum(r for _, _, r in plan) >= a.k else []


def lp_pack_level(a: Assignment, j: int, masks: list[int], *, penalty: float, max_extra: int,
                  max_vars: int, max_iterations: int,
                  max_crowding: float = MAX_CROWDING, progress: Progress = silent
                  ) -> tuple[int, int | None, str]:
    """Round the level-``j`` bucket LP into new classes. Returns ``(LP variables, classes
    opened, "")``; ``(variables, None, why)`` when skipped: over ``max_vars`` (then the
    variables counted before building stopped, ``> max_vars``), its crowding over
    ``max_crowding`` (module docstring), or HiGHS failed or reached ``max_iterations``
    simplex iterations. While HiGHS runs, ``progress`` hears how long
    (:func:`starmin.algorithms._progress.heartbeat`)."""
    if not (a.free > 0).any():
        return 0, 0, ""
    M = _Model(a, j, masks, max_extra, max_vars)
    if M.over or M.size > max_vars:
        return M.size, None, f"over lp_max_vars={max_vars:,}"
    if not M.buckets:
        return 0, 0, ""
    c = M.competition(a)
    if (crowding := M.size * c ** 4) > max_crowding:
        return M.size, None, (f"crowding {crowding:,.0f} > lp_max_crowding="
                              f"{max_crowding:,.0f}, competition {c:.2f}")
    progress(f"bucket LP, level {j}: {M.size:,} variables, at most {max_iterations:,} "
             f"simplex iterations")
    meter = Meter(progress, f"bucket LP, level {j}", "simplex iterations", max_iterations)
    with heartbeat(progress, f"bucket LP, level {j}"):
        sol, nit = _solve(a, M, j, penalty, max_iterations)
    meter.say(nit)
    if sol is None:
        return M.size, None, f"stopped at lp_max_iterations={max_iterations:,}"
    return M.size, _round(a, M, sol), ""

