"""Proven lower bounds on the fewest stars of any k-anonymous release by cell suppression.

Guarantee: **bound** -- every value returned is <= the optimum (proofs in
``docs/algorithms/lower-bounds.md``). They hold for any model that implies k-anonymity.

* ``small-class`` -- rows of row types with fewer than ``k`` rows each need >= 1 star
  (Liang & Yuan, Thm 10 proof).
* ``pattern`` -- row ``v`` needs at least ``L(v)`` stars: the fewest columns ``S`` such that
  ``>= k`` rows agree with ``v`` outside ``S`` (its class is such a set). Sum over rows.
* ``partner`` -- adds what the row types' partners cost. A row whose every cheapest bucket
  (level ``L(v)``, ``>= k`` rows) holds fewer than ``k`` rows of level ``L(v)`` must share its
  class with rows of lower levels, which then pay ``L(v)`` too. One linear program per level
  (bottom-up) raises such rows' charge ``alpha_v = L(v) + delta_v``, ``0 <= delta_v <= 1``,
  as far as every class can still pay for its members' charges; the charges sum to a bound.
* ``best`` -- the largest.

Complexity: the pattern bound groups the ``t_in`` row types by each pattern of
``j = 1, 2, ...`` starred columns until every row is resolved, ``O(sum_j C(m, j) t_in log)``,
stopping after ``max_patterns`` patterns (rows unresolved after level ``j`` then count
``j + 1``, still a bound). The partner bound repeats the grouping once per level for the rows
concerned and solves one sparse LP per level with HiGHS (``scipy.optimize.linprog``, to
optimality: no time or iteration limit, so the bound is the same on every machine).
Progress: a line per level, and throttled counts of patterns (and a heartbeat while HiGHS
runs) within long levels (:mod:`starmin.algorithms._progress`).

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 2 (cost) and Sec. 5, Thm 10 (proof: each small-class row costs >= 1).
A. Meyerson and R. Williams, "On the Complexity of Optimal K-Anonymity", Lemma 4.1 (a class
costs ``|S| x d(S)`` at least; here with ``d`` replaced by the per-row level ``L``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter, heartbeat
from starmin.algorithms.base import Progress, silent
from starmin.algorithms.heuristic.pattern_keys import IntArray, PatternKeys, masks_of_level
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput

MAX_PATTERNS = 4096
"""Default number of patterns the pattern bound enumerates (all ``2^m`` for ``m <= 12``)."""
_SAFETY = 1e-7
"""Each LP charge is lowered by this much, so float round-off cannot break a constraint."""


def k_anonymity_lower_bounds(rt: RowTypes, k: int, progress: Progress | None = None, *,
                             max_patterns: int = MAX_PATTERNS, partner: bool = True
                             ) -> dict[str, int]:
    """Lower bounds on the minimum number of stars of a k-anonymous release of ``rt``.

    Returns ``{"small-class", "pattern", "partner" (if computed), "best"}``; all are proven
    (see the module docstring). ``max_patterns`` caps the patterns enumerated; ``partner``
    switches the LP-based bound off. Raises ``InvalidInput`` for ``k < 1``.
    """
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise InvalidInput(f"k must be a whole number >= 1, got {k!r}: use e.g. k=5")
    report = progress or silent
    keys = PatternKeys(rt.codes)
    n = rt.sizes
    alone = bucket_rows(keys, 0, np.arange(rt.t_in, dtype=np.int64), n)  # equal QI vectors
    out = {"small-class": int(n[alone < k].sum())}
    levels = pattern_levels(rt, int(k), max_patterns, report)
    out["pattern"] = int((levels.L * n).sum())
    if partner and k > 1 and out["pattern"] > 0:
        out["partner"] = partner_bound(rt, int(k), levels, report)
    out["best"] = max(out.values())
    return out


@dataclass(frozen=True)
class Levels:
    """``L`` ``(t_in,)``: stars each row of a row type needs at least; ``last``: the highest
    level enumerated (rows with ``L = last + 1`` may need more)."""

    L: IntArray
    last: int


def pattern_levels(rt: RowTypes, k: int, max_patterns: int = MAX_PATTERNS,
                   progress: Progress = silent) -> Levels:
    """Per row type, the fewest starred columns leaving ``>= k`` rows that agree with it on the
    other columns (``0`` for row types with ``>= k`` rows)."""
    keys = PatternKeys(rt.codes)
    n = rt.sizes
    lev = np.full(rt.t_in, -1, dtype=np.int64)
    used, last = 0, -1
    for j in range(rt.m + 1):
        open_ = np.nonzero(lev < 0)[0]
        if len(open_) == 0:
            break
        if used + math.comb(rt.m, j) > max_patterns:
            progress(f"bounds: stopping the pattern bound after level {last} (max_patterns)")
            break
        meter = Meter(progress, f"bounds: pattern level {j}", "patterns", math.comb(rt.m, j))
        for i, mask in enumerate(masks_of_level(rt.m, j)):
            cov = bucket_rows(keys, mask, open_, n)
            lev[open_[cov >= k]] = j
            open_ = open_[cov < k]
            meter.tick(i + 1)
        used += math.comb(rt.m, j)
        last = j
        progress(f"bounds: pattern level {j}: {int(n[lev < 0].sum())} rows need more stars")
    lev[lev < 0] = last + 1
    return Levels(lev, last)


def bucket_rows(keys: PatternKeys, mask: int, rows: IntArray, n: IntArray) -> IntArray:
    """``(len(rows),)`` rows of the whole table in the bucket of each of ``rows`` under
    ``mask`` (agreeing with it outside ``mask``)."""
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64)
    kq = keys.keys(mask, rows)
    uq, inv = np.unique(kq, return_inverse=True)
    ka = keys.keys(mask)
    pos = np.minimum(np.searchsorted(uq, ka), len(uq) - 1)
    hit = uq[pos] == ka
    tot = np.bincount(pos[hit], weights=n[hit], minlength=len(uq)).astype(np.int64)
    return tot[np.asarray(inv).reshape(-1)]


def partner_bound(rt: RowTypes, k: int, levels: Levels, progress: Progress = silent) -> int:
    """The partner bound: ``sum_v n_v alpha_v`` for charges ``alpha`` that every class can pay.

    ``alpha_v = L(v) + delta_v``; ``delta_v`` may be positive only for a row type with
    ``1 <= L(v) <= last`` (so fewer than ``k`` rows share its QI vector), none of whose
    level-``L(v)`` buckets with ``>= k`` rows holds ``>= k`` rows of level ``L(v)``
    ("deficient"). For each such bucket ``B`` at level ``s`` with ``N_s`` rows of level
    ``s``, the LP requires ``sum_{v in B, L(v) = s} n_v delta_v <= slack(B)``, where
    ``slack(B)`` is the sum of ``s - alpha_u`` over the ``k - N_s`` rows ``u`` of ``B`` of
    lower level with the largest charges (fixed already: levels are solved bottom-up).
    """
    keys = PatternKeys(rt.codes)
    n, lev = rt.sizes, levels.L
    alpha = lev.astype(np.float64)
    extra = 0.0
    for s in range(1, levels.last + 1):
        cand = np.nonzero(lev == s)[0].astype(np.int64)
        if len(cand) == 0:
            continue
        deficient = _deficient(keys, s, cand, n, lev, k, progress)
        if len(deficient) == 0:
            continue
        delta = _level_lp(keys, s, deficient, n, lev, alpha, k, progress)
        alpha[deficient] += delta
        extra += float((n[deficient] * delta).sum())
        progress(f"bounds: partner level {s}: {len(deficient)} deficient row types, "
                 f"+{float((n[deficient] * delta).sum()):.1f}")
    return int((lev * n).sum()) + math.ceil(extra - 1e-6)


def _deficient(keys: PatternKeys, s: int, cand: IntArray, n: IntArray, lev: IntArray,
               k: int, progress: Progress = silent) -> IntArray:
    """Candidates (level ``s``) with no level-``s`` bucket of ``>= k`` rows of level ``s``."""
    full = np.zeros(len(cand), dtype=bool)
    ns = np.where(lev == s, n, 0)
    meter = Meter(progress, f"bounds: partner level {s}, deficient rows", "patterns",
                  math.comb(keys.m, s))
    for i, mask in enumerate(masks_of_level(keys.m, s)):
        cov = bucket_rows(keys, mask, cand, n)
        same = bucket_rows(keys, mask, cand, ns)
        full |= (cov >= k) & (same >= k)
        meter.tick(i + 1)
    return cand[~full]


def _level_lp(keys: PatternKeys, s: int, deficient: IntArray, n: IntArray, lev: IntArray,
              alpha: NDArray[np.float64], k: int, progress: Progress = silent
              ) -> NDArray[np.float64]:
    """``delta`` of the deficient row types of level ``s`` (an exactly feasible LP point)."""
    import scipy.sparse as sp  # solver libraries load when a bound is computed
    from scipy.optimize import linprog

    col = np.full(keys.t, -1, dtype=np.int64)
    col[deficient] = np.arange(len(deficient))
    rows: list[IntArray] = []
    cols: list[IntArray] = []
    rhs: list[NDArray[np.float64]] = []
    meter = Meter(progress, f"bounds: partner level {s}, LP rows", "patterns",
                  math.comb(keys.m, s))
    for i, mask in enumerate(masks_of_level(keys.m, s)):
        meter.tick(i)
        slack, member, bucket = _bucket_slacks(keys, mask, deficient, n, lev, alpha, k, s)
        mine = col[member] >= 0
        ok = np.isfinite(slack)
        keep = mine & ok[bucket]
        renum = np.cumsum(ok) - 1 + sum(len(r) for r in rhs)
        rows.append(renum[bucket[keep]])
        cols.append(col[member[keep]])
        rhs.append(slack[ok])
    r, c, b = np.concatenate(rows), np.concatenate(cols), np.concatenate(rhs)
    A = sp.csr_matrix((n[deficient][c].astype(np.float64), (r, c)),
                      shape=(len(b), len(deficient)))
    with heartbeat(progress, f"bounds: partner level {s}, HiGHS LP ({len(deficient):,} "
                   f"variables, {len(b):,} constraints)"):
        res = linprog(-n[deficient].astype(np.float64), A_ub=A, b_ub=b, bounds=(0, 1),
                      method="highs")
    if res.status != 0 or res.x is None:
        return np.zeros(len(deficient))
    delta = np.clip(np.asarray(res.x) - _SAFETY, 0.0, 1.0)
    if (A @ delta > b).any():  # round-off beyond the safety margin: give the level up
        return np.zeros(len(deficient))
    return delta


def _bucket_slacks(keys: PatternKeys, mask: int, rows: IntArray, n: IntArray, lev: IntArray,
                   alpha: NDArray[np.float64], k: int, s: int
                   ) -> tuple[NDArray[np.float64], IntArray, IntArray]:
    """For the buckets under ``mask`` containing one of ``rows``: ``slack`` per bucket (inf
    when the bucket has fewer than ``k`` rows, so no class fits in it), and every member row
    type with its bucket. ``slack`` is ``sum (s - alpha_u)`` over the ``k - N_s`` lower-level
    rows with the largest charges (row types counted with multiplicity)."""
    member, bucket, nb = bucket_members(keys, mask, rows)
    cov = np.bincount(bucket, weights=n[member], minlength=nb)
    same = np.bincount(bucket, weights=np.where(lev[member] == s, n[member], 0), minlength=nb)
    need = (k - same).astype(np.int64)
    low = lev[member] < s
    o_type, o_bucket = member[low], bucket[low]
    # the k - N_s largest charges, i.e. the smallest s - alpha: minus the largest alpha - s
    slack = 0.0 - top_sums(o_bucket, -(s - alpha[o_type]), n[o_type], need, nb)
    slack[cov < k] = np.inf
    return slack, member, bucket


def bucket_members(keys: PatternKeys, mask: int, rows: IntArray) -> tuple[IntArray, IntArray, int]:
    """The buckets under ``mask`` holding one of ``rows`` (non-empty): every member row type
    of the whole table, its bucket (numbered ``0 .. nb - 1``) and ``nb``."""
    uq = np.unique(keys.keys(mask, rows))
    ka = keys.keys(mask)
    pos = np.minimum(np.searchsorted(uq, ka), len(uq) - 1)
    member = np.nonzero(uq[pos] == ka)[0].astype(np.int64)
    return member, pos[member].astype(np.int64), len(uq)


def top_sums(bucket: IntArray, value: NDArray[np.float64], count: IntArray,
             k: int | IntArray, nb: int) -> NDArray[np.float64]:
    """``(nb,)`` the sum of the ``k`` largest values in each bucket (``k`` one number, or one
    per bucket), item ``i`` repeated ``count[i]`` times; a bucket of fewer items sums them
    all, and ``k <= 0`` sums nothing."""
    if len(bucket) == 0:
        return np.zeros(nb)
    order = np.lexsort((-value, bucket))                 # by bucket, largest value first
    b, v, c = bucket[order], value[order], count[order]
    before = np.cumsum(c) - c                            # items ahead of it (all buckets)
    first = np.searchsorted(b, np.arange(nb))            # start of each bucket's run
    ahead = before - before[np.minimum(first, len(b) - 1)][b]
    want = k if isinstance(k, int) else np.asarray(k)[b]
    taken = np.clip(want - ahead, 0, c)
    return np.bincount(b, weights=v * taken, minlength=nb).astype(np.float64)
