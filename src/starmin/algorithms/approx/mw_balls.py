"""Meyerson & Williams' strongly polynomial approximation for k-anonymity (Theorem 4.2).

Guarantee: **ratio 6k(1 + ln m)** in stars for ``m >= 2k - 1`` QI columns, and
``6k(1 + ln(2k - 1))`` below (see "Why the ratio holds"); ``ratio_of`` gives
``6k(1 + ln max(m, 2k - 1))``. Cost and ``V`` as in :mod:`.mw_subsets`: stars on the table's
``n`` rows (a row type with many copies is many vectors).

Algorithm (Sec. 4.3). Phase 1 runs the greedy cover of Sec. 4.2.1 on the balls
``S_{c,i} = {v : d(c, v) <= i}`` around every row ``c`` (``i = 0 .. m``) that hold ``>= k``
rows, instead of on all ``(k, 2k - 1)``-sets: ``d(S_{c,i}) <= 2i`` (Lemma 4.2), and every set
``T`` lies in the ball of radius ``d(T)`` around any of its rows (Lemma 4.3). Then **Reduce**
and step 3 as in Theorem 4.1 (:mod:`._mw_cover`).

Deviations, and why.

- *A ball gives one group of at most ``2k - 1`` rows.* A ball may hold far more rows; Reduce
  only removes overlaps, so such a set would stay large, and Corollary 4.1 -- the step from
  diameter sum to stars -- needs sets of at most ``2k - 1`` rows. Released whole, a ball of
  ``N`` unit vectors around the zero vector (diameter 2, charged 2 by the greedy) costs about
  ``N x m`` stars, near ``m/2 x OPT``, beyond ``6k(1 + ln m)`` for large ``m``. So the greedy
  chooses from ball ``(c, i)`` its uncovered rows nearest ``c`` (at most ``2k - 1``, ties by
  class), padded with covered rows of the ball (nearest first) up to ``k``, and its ratio is
  ``r(c, i) = w(c, i) / min(2k - 1, |S_{c,i} n (V - D)|)``.
- *The weight* ``w(c, i)``. The paper's ``r(S)`` divides the diameter ``d(S_{c,i})``. By
  default (``weight="radius"``) starmin divides Lemma 4.2's bound ``2i`` instead (``i`` taken
  as the largest distance from ``c`` the ball holds), as the paper's closing remark invites
  ("computing the measures r(S) ... might be well-approximated"): computing every ball's
  diameter costs ``O(|ball|^2)`` each, up to ``O(m R^3)``, about 100 x slower on 1,756 row
  types (50 s against 0.5 s) for similar stars (within 10 % either way on the synthetic census
  and on 150 small random tables). ``weight="diameter"`` gives the paper's ``d(S)``, computed
  when a ball first reaches the heap's top. The proof below holds for any weight with
  ``d(S_{c,i}) <= w(c, i) <= 2i``.
- *Radius 0.* The paper's collection starts at ``i = 1``; ``i = 0`` (the copies of one row) is
  needed for Lemma 4.3 when an optimal group has diameter 0, and is included.

Why the ratio holds. Let ``Pi*`` be an optimal release's classes cut into pieces of
``k .. 2k - 1`` rows; ``OPT >= k d(Pi*)`` (Lemma 4.1). For a piece ``T`` and any ``c in T``,
the ball ``S_{c, d(T)}`` contains ``T``, so while ``j`` rows of ``T`` are uncovered it offers
``r <= 2 d(T) / j``; the greedy's choice is no worse, so the cover's weight ``W`` (the sum of
the chosen balls' weights, each at least its group's diameter) is at most
``2 H(2k - 1) d(Pi*)``. This replaces the paper's ``(1 + ln m)``, which it derives from set
sizes "up to ``m``" -- a ball's size is bounded by ``n``, not ``m``. With the corrected
Corollary 4.1 (a set of ``|S| <= 2k - 1`` rows costs at most ``|S|^2 d(S) / 2``, see
:mod:`.mw_subsets`): ``stars <= (2k - 1)^2 / k x H(2k - 1) x OPT < 4k (1 + ln(2k - 1)) x OPT``,
within ``6k(1 + ln m)`` whenever ``m >= 2k - 1``. ``certificate["proven_ratio"]`` holds this
sharper ratio; ``plan.lower_bound`` is the proof's ``OPT >= k W / (2 H(2k - 1))``.

On row types. Identical rows have identical balls, so centers are the ``R`` classes (distinct
QI vectors) and a ball's rows are counted with multiplicity. A class of ``>= k`` rows is
covered whole first (its radius-0 ball, ``r = 0``). ``r`` only grows as rows are covered, so a
lazy heap (keyed by ``2i / new``, or for ``weight="diameter"`` by the lower bound ``i / new``
until the diameter is known) finds the greedy's minimum. Ties go to the lowest
``(center, radius)``.

Complexity: ``O(R^2 m)`` for the distances and the ball sizes, ``O(R m)`` per class whose
uncovered count changes (at most ``n`` times), ``O(log(R m))`` per heap step, Reduce ``O(n^2)``
steps at most -- within the paper's ``O(m |V|^2 + |V|^3)`` with ``|V| = R``; ``weight=
"diameter"`` adds ``O(|ball|^2)`` per ball measured. Memory ``O(R^2)``. Size limit:
``R <= 4,000`` distinct QI vectors (:data:`MAX_CLASSES`); :func:`supports` refuses larger
tables.

References
----------
A. Meyerson and R. Williams, "On the Complexity of Optimal K-Anonymity", PODS 2004: Sec. 4.3
(Lemmas 4.2, 4.3, Theorem 4.2), with Sec. 4.1-4.2 (Lemma 4.1, Corollary 4.1, Cover, Reduce).
"""

from __future__ import annotations

import heapq
import math
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
from starmin.algorithms.base import Algorithm, Progress, silent
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from starmin.models.k_anonymity import KAnonymity
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "mw-balls"
REFERENCE = "Meyerson & Williams, Thm 4.2"
STATEMENT = "at most 6k(1 + ln m) x OPT stars (m >= 2k - 1; else m -> 2k - 1)"
MAX_CLASSES = 4_000
"""Largest number of distinct QI vectors (ball centers) the method accepts."""
WEIGHTS = ("radius", "diameter")


def star_ratio(model: PrivacyModel, rt: RowTypes) -> float:
    """``6k(1 + ln max(m, 2k - 1))``: Theorem 4.2's ratio, with ``m`` raised to ``2k - 1``
    where the proof needs it (module docstring)."""
    k = int(getattr(model, "k", 1))
    return 6 * k * (1 + math.log(max(rt.m, 2 * k - 1, 1)))


def proven_ratio(k: int) -> float:
    """``(2k - 1)^2 / k x H(2k - 1)``: the ratio the module's proof gives."""
    return float(harmonic(2 * k - 1) * (2 * k - 1) ** 2 / k)


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` for k-anonymity on at most :data:`MAX_CLASSES` distinct QI vectors."""
    if not isinstance(model, KAnonymity):
        return (f"{NAME} (Meyerson & Williams Thm 4.2) handles k-anonymity only, not "
                f"{model.name}: use --method auto")
    R = len(np.unique(rt.codes, axis=0)) if rt.t_in > MAX_CLASSES else rt.t_in
    if R <= MAX_CLASSES:
        return None
    return (f"{NAME} keeps the distances between all distinct QI vectors (O(t_in^2) memory): "
            f"this table has t_in = {R:,} row types, above the limit of {MAX_CLASSES:,}: use "
            "--method auto")


class _Balls:
    """The candidate balls ``(c, i)``: their rows, uncovered rows and weights."""

    def __init__(self, C: Classes, D: NDArray[np.int16], u: NDArray[np.int64], k: int,
                 weight: str) -> None:
        self.D, self.k, self.exact = D, k, weight == "diameter"
        R = C.R
        m = int(D.max()) if R else 0
        self.radii = np.arange(m + 1)
        # (R, m + 1): classes / rows / uncovered rows within distance i of each center
        present = np.zeros((R, m + 1), dtype=bool)
        self.size = np.zeros((R, m + 1), dtype=np.int64)
        self.uncovered = np.zeros((R, m + 1), dtype=np.int64)
        for c in range(R):
            present[c] = np.bincount(D[c], minlength=m + 1) > 0
            self.size[c] = np.cumsum(np.bincount(D[c], weights=C.size, minlength=m + 1))
            self.uncovered[c] = np.cumsum(np.bincount(D[c], weights=u, minlength=m + 1))
        # a radius that adds no row repeats the smaller ball: keep one
        self.valid = present & (self.size >= k)
        self.diam: dict[tuple[int, int], int] = {}

    def new(self, c: int, i: int) -> int:
        """New rows one group from ball ``(c, i)`` takes: ``min(2k - 1, uncovered)``."""
        return int(min(2 * self.k - 1, int(self.uncovered[c, i])))

    def key(self, c: int, i: int, new: int) -> float:
        """A lower bound on ``r(c, i)``, exact once :meth:`weight` was called."""
        if not self.exact:
            return 2 * i / new
        d = self.diam.get((c, i))
        return (i if d is None else d) / new  # the ball holds a row at distance i from c

    def weight(self, c: int, i: int) -> int:
        """``w(c, i)``: ``2i`` (Lemma 4.2), or the ball's diameter, computed once per ball."""
        if not self.exact:
            return 2 * i
        d = self.diam.get((c, i))
        if d is None:
            members = np.flatnonzero(self.D[c] <= i)
            d = self.diam[c, i] = int(self.D[np.ix_(members, members)].max())
        return d

    def cover(self, v: int, delta: int) -> None:
        """``delta`` more rows of class ``v`` are covered."""
        self.uncovered -= delta * (self.D[:, v][:, None] <= self.radii[None, :])


def _take(C: Classes, D: NDArray[np.int16], u: NDArray[np.int64], c: int, i: int, k: int
          ) -> tuple[Counts, Counts]:
    """Ball ``(c, i)``'s group: its uncovered rows nearest ``c`` (at most ``2k - 1``), then
    covered rows nearest ``c`` up to ``k``. Returns it and its new rows."""
    members = np.flatnonzero(D[c] <= i)
    members = members[np.argsort(D[c][members], kind="stable")]
    S: Counts = {}
    new: Counts = {}
    room = 2 * k - 1
    for v in members.tolist():
        x = min(room, int(u[v]))
        if x > 0:
            S[v] = new[v] = x
            room -= x
        if room == 0:
            break
    short = k - sum(S.values())
    for v in members.tolist():
        if short <= 0:
            break
        x = min(short, int(C.size[v]) - S.get(v, 0))
        if x > 0:
            S[v] = S.get(v, 0) + x
            short -= x
    return S, new


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """A k-anonymous release within ``6k(1 + ln max(m, 2k - 1)) x OPT`` stars (Thm 4.2).

    Options: ``weight`` -- ``"radius"`` (default: Lemma 4.2's ``2i``) or ``"diameter"`` (the
    paper's ``d(S)``, slower); both keep the ratio. Deterministic (``seed`` is unused).
    Raises ``Infeasible`` when ``k > n`` and ``InvalidInput`` for another model, more than
    :data:`MAX_CLASSES` distinct QI vectors or an unknown option.
    """
    reason = supports(model, rt)
    if reason is not None:
        raise InvalidInput(reason)
    assert isinstance(model, KAnonymity)
    weight_kind = options.pop("weight", "radius")
    if weight_kind not in WEIGHTS or options:
        raise InvalidInput(f"{NAME} takes weight='radius' or weight='diameter' only, got "
                           f"{dict(options, weight=weight_kind)}")
    check_feasible(model, rt)
    k = int(model.k)
    C = Classes(rt)
    D = C.distances()
    u = C.size.copy()
    big = np.flatnonzero(C.size >= k)
    cover: list[Counts] = [{int(c): int(C.size[c])} for c in big]  # radius 0, r = 0
    u[big] = 0
    balls = _Balls(C, D, u, k, weight_kind)
    heap = []
    for c, i in zip(*np.nonzero(balls.valid), strict=True):
        new = balls.new(int(c), int(i))
        if new > 0:
            heap.append((balls.key(int(c), int(i), new), int(c), int(i)))
    heapq.heapify(heap)
    weight = 0
    todo = int(u.sum())
    meter = Meter(progress or silent, f"{NAME} greedy cover", "rows covered", todo)
    while u.any():
        key, c, i = heapq.heappop(heap)
        new = balls.new(c, i)
        if new == 0:
            continue  # it never covers a row again
        w = balls.weight(c, i)
        now = w / new
        if now != key:  # stale: r only grows, so its true key is still >= the heap's top
            heapq.heappush(heap, (now, c, i))
            continue
        S, got = _take(C, D, u, c, i, k)
        cover.append(S)
        weight += w
        for v, x in got.items():
            u[v] -= x
            balls.cover(v, x)
        meter.tick(todo - int(u.sum()))
        new = balls.new(c, i)
        if new > 0:
            heapq.heappush(heap, (w / new, c, i))
    partition = reduce_cover(cover, C.size, k)
    lower = math.ceil(k * weight / (2 * harmonic(2 * k - 1)))
    ratio = star_ratio(model, rt)
    guarantee = Guarantee(kind="ratio", statement=STATEMENT, reference=REFERENCE, ratio=ratio,
                          ratio_of=star_ratio)
    certificate = {"k": k, "ratio": ratio, "proven_ratio": proven_ratio(k),
                   "weight": weight_kind, "cover_sets": len(cover), "cover_weight": weight,
                   "partition_sets": len(partition),
                   "partition_diameter_sum": diameter_sum(D, partition), "lower_bound": lower}
    return ReleasePlan.from_groups(rt, release_groups(C, partition), NAME, guarantee,
                                   lower_bound=lower, certificate=certificate)


ALGORITHM = Algorithm(
    name=NAME,
    summary="k-anonymity within 6k(1 + ln m) x OPT stars: greedy cover by Hamming balls plus "
            "Reduce (Meyerson & Williams Thm 4.2; up to 4,000 row types)",
    guarantee=Guarantee(kind="ratio", statement=STATEMENT + "; greedy cover by Hamming balls, "
                        "up to 4,000 distinct QI vectors", reference=REFERENCE,
                        ratio_of=star_ratio),
    solve=solve,
    supports=supports,
    options=("weight",),
)
