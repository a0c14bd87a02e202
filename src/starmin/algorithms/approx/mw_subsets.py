"""Meyerson & Williams' ``3k(1 + ln 2k)``-approximation for k-anonymity (Theorem 4.1).

Guarantee: **ratio 3k(1 + ln 2k)** in stars -- the release is k-anonymous and has at most
``3k(1 + ln 2k) x OPT`` stars. The paper's cost ("the number of vector coordinates
suppressed", Sec. 3) is starmin's star count, and its ``V`` is the table's ``n`` rows (a row
type with many copies is many vectors): the ratio is on the star count of the table.

Algorithm (Sec. 4.2.4).

1. **Cover** (Sec. 4.2.1): the greedy set cover over ``C``, every set of ``k .. 2k - 1`` rows,
   weighing a set by its diameter ``d(S)`` (Def. 4.1): repeatedly choose the set with the
   smallest ``r(S) = d(S) / |S n (V - D)|`` (``D``: rows covered so far).
2. **Reduce** (Sec. 4.2.2) until the cover is a ``(k, 2k - 1)``-partition
   (:func:`~starmin.algorithms.approx._mw_cover.reduce_cover`).
3. Release each set as its suppressor.

On row types. Rows of one class (distinct QI vector) are interchangeable and ``d(S)`` depends
only on the classes ``S`` touches, its *support* ``T``. The best set of support ``T`` takes as
many uncovered rows as it can: ``new(T) = min(2k - 1 - z, U)``, ``U`` the uncovered rows of
``T``'s classes and ``z`` the classes of ``T`` with none (each still gives one covered row),
provided ``|T| <= 2k - 1`` and ``T``'s classes hold ``>= k`` rows (covered rows pad it to ``k``).
So ``min_S r(S) = min_T d(T) / new(T)`` and the greedy runs over supports, not over the
``O(n^(2k-1))`` row subsets. A support with two classes of ``>= k`` rows is never better than
the same support with one of them (same or smaller ``d``, larger ``new``), so supports hold
at most one such class. A class of ``>= k`` rows is covered whole first, as one set of
diameter 0 (the greedy's first choices, ``r = 0``, taken at once); Reduce only ever removes
rows from it. Ties in ``r`` go to the first support in enumeration order; ``r`` only grows as
rows are covered, so a lazy heap finds the same minimum as a full scan.

Why the ratio holds. Let ``Pi*`` be an optimal release's classes cut into pieces of
``k .. 2k - 1`` rows. ``OPT >= sum |S| d(S) >= k d(Pi*)`` (a class's rows all carry a star in
each column where two of them differ; Lemma 4.1, left side). The greedy cover weighs at most
``H(2k - 1) d(Pi*)`` (sets of at most ``2k - 1`` elements; ``H(2k - 1) <= 1 + ln 2k``), and
Reduce does not increase the diameter sum. A final set ``S`` of ``|S| <= 2k - 1`` rows costs
``|S| x`` (its non-constant columns), and each such column separates at least ``|S| - 1`` of
its ``binom(|S|, 2)`` pairs, so it costs at most ``|S|^2 d(S) / 2``. Hence
``stars <= (2k - 1)^2 / (2k) x H(2k - 1) x OPT``, which is below ``3k(1 + ln 2k) x OPT``.
(The paper's Lemma 4.1 bounds ``ANON(S)`` by ``binom(|S|, 2) d(S)``, which fails for two rows
differing everywhere: ``2m`` stars against ``m``; the corrected bound above still gives the
theorem's ratio.) The plan's ``lower_bound`` is the proof's ``OPT >= k W / H(2k - 1)``, ``W``
the weight of the greedy cover; ``certificate["proven_ratio"]`` the sharper ratio above.

Complexity: ``N`` candidate supports, ``N <= sum_{j <= 2k-1} binom(t_small, j) +
t_big x sum_{j <= 2k-2} binom(t_small, j)`` with ``t_small`` classes of fewer than ``k`` rows
and ``t_big`` others (the paper's ``O(|V|^2k)`` in row types), each evaluated once and then
again each time it reaches the heap's top; Reduce ``O(n^2)`` steps at most, each ``O(k)``.
Size limit: ``N <= 300,000`` (:data:`MAX_SUPPORTS`); :func:`supports` refuses larger tables.

References
----------
A. Meyerson and R. Williams, "On the Complexity of Optimal K-Anonymity", PODS 2004: Sec. 4.1
(Lemma 4.1, Corollary 4.1), Sec. 4.2 (Cover, Reduce), Theorem 4.1.
"""

from __future__ import annotations

import heapq
import math
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.approx._mw_cover import (
    Classes,
    Counts,
    diameter_sum,
    harmonic,
    reduce_cover,
    release_groups,
)
from starmin.algorithms.base import Algorithm, Progress, known_options, silent
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from starmin.models.k_anonymity import KAnonymity
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "mw-subsets"
REFERENCE = "Meyerson & Williams, Thm 4.1"
STATEMENT = "at most 3k(1 + ln 2k) x OPT stars"
MAX_SUPPORTS = 300_000
"""Largest number of candidate supports (sets of row types) the greedy cover enumerates."""


def star_ratio(model: PrivacyModel, rt: RowTypes) -> float:
    """``3k(1 + ln 2k)``: the ratio in stars of Theorem 4.1."""
    k = int(getattr(model, "k", 1))
    return 3 * k * (1 + math.log(2 * k))


def proven_ratio(k: int) -> float:
    """``(2k - 1)^2 / (2k) x H(2k - 1)``: the ratio the module's proof gives (``<=``
    :func:`star_ratio`)."""
    return float(harmonic(2 * k - 1) * (2 * k - 1) ** 2 / (2 * k))


def _split(sizes: NDArray[np.int64], k: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Classes with fewer than ``k`` rows, and the others."""
    return np.flatnonzero(sizes < k), np.flatnonzero(sizes >= k)


def support_count(k: int, small: int, big: int) -> int:
    """Number of candidate supports: sets of ``<= 2k - 1`` small classes, or ``<= 2k - 2``
    small classes and one big class (before dropping those with fewer than ``k`` rows)."""
    alone = sum(math.comb(small, j) for j in range(1, min(2 * k - 1, small) + 1))
    with_big = sum(math.comb(small, j) for j in range(1, min(2 * k - 2, small) + 1))
    return alone + big * with_big


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` for k-anonymity on a table within :data:`MAX_SUPPORTS`, else why not."""
    if not isinstance(model, KAnonymity):
        return (f"{NAME} (Meyerson & Williams Thm 4.1) handles k-anonymity only, not "
                f"{model.name}: use --method auto")
    k = int(model.k)
    small, big = _split(Classes(rt).size, k)
    need = support_count(k, len(small), len(big))
    if need <= MAX_SUPPORTS:
        return None
    return (f"{NAME} enumerates groups of up to 2k - 1 = {2 * k - 1} row types: this table "
            f"({len(small)} row types with fewer than k = {k} rows, {len(big)} others) has "
            f"{need:.2e} candidate groups, above the limit of {MAX_SUPPORTS:,}: use --method "
            "auto, or mw-balls (Meyerson & Williams Thm 4.2, polynomial in the table)")


def _supports(size: NDArray[np.int64], D: NDArray[np.int16], k: int
              ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(N, 2k - 1)`` member classes of each candidate support (``-1`` pads) and ``(N,)``
    diameters; only supports holding ``>= k`` rows and a class of fewer than ``k``."""
    small, big = _split(size, k)
    width = 2 * k - 1
    blocks: list[NDArray[np.int64]] = []
    for j in range(1, min(width, len(small)) + 1):
        combos = np.array(list(combinations(small.tolist(), j)), dtype=np.int64).reshape(-1, j)
        blocks.append(np.pad(combos, ((0, 0), (0, width - j)), constant_values=-1))
        if j <= width - 1 and len(big):
            rep = np.repeat(combos, len(big), axis=0)
            tail = np.tile(big, len(combos))[:, None]
            blocks.append(np.pad(np.hstack([rep, tail]), ((0, 0), (0, width - j - 1)),
                                 constant_values=-1))
    M = np.vstack(blocks) if blocks else np.zeros((0, width), dtype=np.int64)
    sz = np.where(M >= 0, size[M], 0).sum(axis=1)
    M = M[sz >= k]
    diam = np.zeros(len(M), dtype=np.int64)
    for p in range(width):
        for q in range(p + 1, width):
            ok = (M[:, p] >= 0) & (M[:, q] >= 0)
            diam[ok] = np.maximum(diam[ok], D[M[ok, p], M[ok, q]])
    return M, diam


def _new(members: NDArray[np.int64], u: NDArray[np.int64], k: int) -> int:
    """``new(T) = min(2k - 1 - z, U)``: the most uncovered rows one set of support ``T``
    takes."""
    uu = u[members]
    return int(min(2 * k - 1 - int((uu == 0).sum()), int(uu.sum())))


def _take(members: NDArray[np.int64], u: NDArray[np.int64], size: NDArray[np.int64], k: int
          ) -> Counts:
    """The set of support ``members`` with the most uncovered rows: one row of each class
    (uncovered if it has one), more uncovered rows in class order up to ``2k - 1``, then
    covered rows (largest classes first) up to ``k``. Marks its new rows covered in ``u``."""
    limit = 2 * k - 1
    S: Counts = {int(c): 1 for c in members}
    new = {int(c): int(u[c] > 0) for c in members}
    room = limit - len(S)
    for c in members.tolist():
        extra = min(room, int(u[c]) - new[c])
        if extra > 0:
            S[c] += extra
            new[c] += extra
            room -= extra
    short = k - sum(S.values())
    for c in sorted(members.tolist(), key=lambda c: (-int(size[c]), c)):
        if short <= 0:
            break
        extra = min(short, int(size[c]) - S[c])
        if extra > 0:
            S[c] += extra
            short -= extra
    for c, x in new.items():
        u[c] -= x
    return S


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """A k-anonymous release with at most ``3k(1 + ln 2k) x OPT`` stars (Thm 4.1).

    Deterministic (``seed`` is unused). Raises ``Infeasible`` when ``k > n`` and
    ``InvalidInput`` for another model or a table beyond :data:`MAX_SUPPORTS`.
    """
    known_options(NAME, options, set())
    reason = supports(model, rt)
    if reason is not None:
        raise InvalidInput(reason)
    assert isinstance(model, KAnonymity)
    check_feasible(model, rt)
    k = int(model.k)
    C = Classes(rt)
    D = C.distances()
    u = C.size.copy()  # uncovered rows per class
    big = _split(C.size, k)[1]
    cover: list[Counts] = [{int(c): int(C.size[c])} for c in big]  # diameter 0, r = 0
    u[big] = 0
    M, diam = _supports(C.size, D, k)
    heap = []
    for i in range(len(M)):
        new = _new(M[i][M[i] >= 0], u, k)
        if new > 0:
            heap.append((int(diam[i]) / new, i))
    heapq.heapify(heap)
    weight = 0
    todo = int(u.sum())
    meter = Meter(progress or silent, f"{NAME} greedy cover", "rows covered", todo)
    while u.any():
        key, i = heapq.heappop(heap)
        members = M[i][M[i] >= 0]
        new = _new(members, u, k)
        if new == 0:
            continue  # it never covers a row again
        now = int(diam[i]) / new
        if now != key:  # stale: r only grows, so its true key is still >= the heap's top
            heapq.heappush(heap, (now, i))
            continue
        cover.append(_take(members, u, C.size, k))
        weight += int(diam[i])
        meter.tick(todo - int(u.sum()))
        new = _new(members, u, k)
        if new > 0:
            heapq.heappush(heap, (int(diam[i]) / new, i))
    partition = reduce_cover(cover, C.size, k)
    H = harmonic(2 * k - 1)
    lower = math.ceil(k * weight / H)
    ratio = star_ratio(model, rt)
    guarantee = Guarantee(kind="ratio", statement=STATEMENT, reference=REFERENCE, ratio=ratio,
                          ratio_of=star_ratio)
    certificate = {"k": k, "ratio": ratio, "proven_ratio": proven_ratio(k),
                   "cover_sets": len(cover), "cover_weight": weight,
                   "partition_sets": len(partition),
                   "partition_diameter_sum": diameter_sum(D, partition),
                   "candidate_supports": len(M), "lower_bound": lower}
    return ReleasePlan.from_groups(rt, release_groups(C, partition), NAME, guarantee,
                                   lower_bound=lower, certificate=certificate)


ALGORITHM = Algorithm(
    name=NAME,
    summary="k-anonymity within 3k(1 + ln 2k) x OPT stars: greedy cover by (k, 2k-1)-sets "
            "plus Reduce (Meyerson & Williams Thm 4.1; small tables)",
    guarantee=Guarantee(kind="ratio", statement=STATEMENT + " (greedy cover by groups of k to "
                        "2k - 1 rows; tables up to 300,000 candidate groups)",
                        reference=REFERENCE, ratio_of=star_ratio),
    solve=solve,
    supports=supports,
)
