"""Lower bounds on the stars of any t-close release: the star-free and the pattern bound (and
the bucket enumeration the level flow bound, :mod:`starmin.algorithms.t_level_flow`, shares).

Guarantee: **bound** -- each value is at most the optimum (tested against brute force).

Argument. A class whose rows carry no star holds rows with one and the same QI vector, so it
lies inside one row type (Bredereck et al. Sec. 2; Liang & Yuan Sec. 2: a class costs its size
times the columns where its QI vectors differ). The star-free classes inside row type ``i`` are
each t-close, and so is their union: the EMD to the fixed table distribution ``Q`` is convex in
the class distribution (it is the optimum of a transport LP whose right-hand side is linear in
the class's shares), and the union's distribution is a convex combination of theirs. So at
most ``Z_i`` rows of row type ``i`` go without a star, where ``Z_i`` is the size of the largest
t-close sub-multiset of its sensitive values, and every other row carries at least one star::

    OPT >= sum_i (n_i - Z_i).

Bounding ``Z_i`` from above. A sub-multiset ``x <= c_i`` of ``X`` rows (``x_v`` rows of value
``v``) is t-close when ``X * EMD(x / X, Q) <= t X``. For the three closed-form distances
``X * EMD`` is a weighted sum of absolute differences over *items* (sets of values ``A`` with
weights ``w``), and each term is at least ``w * max(0, Q(A) X - c(A))`` as ``x(A) <= c(A)``:

* equal distance: EMD is the total variation, ``X * TV = sum_v max(0, Q_v X - x_v)``; items
  are the single values, weight 1 (Liang & Yuan Fact 1);
* hierarchical distance of height ``H`` (every value a leaf at depth ``H``): the ground
  distance is the tree metric with every edge ``1 / (2H)``, and the EMD on a tree is the sum
  over edges of weight times the mass imbalance below it (Li et al. Sec. 4's closed form is
  this sum), so ``EMD = (1 / H) sum_{levels l < H} TV_l``, ``TV_l`` the total variation of the
  distributions summed up to the nodes of level ``l`` (level 0: the values). Items: every node
  below the root (values included), weight 1, against ``t H``;
* ordered distance over ``m`` ordered values: ``EMD = sum over the ``m - 1`` cuts j of
  |P(<= j) - Q(<= j)| / (m - 1)``; ``X |x(<= j) / X - Q(<= j)|`` is at least both
  ``Q(<= j) X - c(<= j)`` and ``Q(> j) X - c(> j)`` (as ``x(<= j) + x(> j) = X``), whose sum
  is ``X - n_i <= 0`` for ``X <= n_i``, so at most one is positive and their positive parts add
  up to at most the term. Items: ``<= j`` and ``> j`` for each cut between two present values,
  weighted by the number of cuts between them (absent values do not move the cumulative
  sums), against ``t (m - 1)``;
* a user matrix: ``EMD >= d_min * TV`` (every unit of mass moved travels at least the
  smallest positive distance ``d_min``); items are the values, against ``t / d_min``.

So ``G(X) = sum_items w max(0, Q(A) X - c(A)) <= tau X``. ``G`` is convex and piecewise
linear, the largest of the lines ``S_B X - C_B`` over sets ``B`` of items (``S_B``, ``C_B``:
the sums of ``w Q(A)``, ``w c(A)`` over ``B``), the best ``B`` being the items whose breakpoint
``c(A) / Q(A)`` lies below ``X``. Hence ``X <= X* = min over prefixes B (breakpoints sorted)
with S_B > tau of C_B / (S_B - tau)`` and ``Z_i <= min(n_i, floor(X*))``. (The first version
of this bound used ``EMD >= d_min * TV`` for every distance, i.e. ``TV <= t H`` under a
hierarchy: vacuous from ``t = 1 / H`` on.) With several sensitive columns each gives a bound;
the largest is taken.

With a class size ``k`` implied by the rest of the model (``--k 5 --t 0.2``), star-free classes
hold at least ``k`` rows each, so row type ``i`` has no star-free row when ``Z_i < k``. Every
t-close class of integer counts also holds at least ``X_min`` rows
(:func:`~starmin.algorithms.t_class_size.min_class_size`), so ``k`` is raised to it; and where
the distance is a sum over partitions of the values (equal, matrix, hierarchical) or over
cuts (ordered) ``Z_i`` and the buckets' sizes are lowered to the largest size an integer
sub-multiset of the counts reaches
(:func:`~starmin.algorithms.t_class_size.largest_close_sizes`).

The pattern bound (``t-pattern``) charges the rows that carry a star more than one. A row
``r`` whose class has star set ``S`` lies in the bucket ``B(S, r)`` of rows agreeing with it
outside ``S`` (as in the k-anonymity pattern bound, docs/algorithms/lower-bounds.md), and its
class is a t-close sub-multiset of that bucket with at least ``k`` rows (``k = 1`` for
t-closeness alone), so ``min(|B|, floor X*)`` of the bucket is at least ``k``. With ``L_i``
the fewest columns ``S`` (at least one) for which the bucket of row type ``i`` passes that
test::

    OPT >= sum_i (n_i - Z_i) * L_i      (>= the star-free bound, as L_i >= 1).

Patterns are enumerated level by level (``j = 1, 2, ...`` starred columns) until every row
type with ``n_i > Z_i`` is resolved or ``max_patterns`` is reached; the rest count ``j + 1``.
The bucket of all columns is the whole table, which is t-close, so level ``m`` resolves all.

The level flow bound (``t-level-flow``, :mod:`starmin.algorithms.t_level_flow`) takes the
same buckets with a capacity each (the largest close size where it reaches ``k``, else 0) and
bounds, per level ``j``, the rows with at most ``j`` stars by a maximum flow; it is at least
the pattern bound. One enumeration serves both: it goes on while the pattern bound has open
row types or the last level flow is below ``N`` (up to level ``m - 1`` for the flow), within
the same ``max_patterns``. A bucket is tested only when an open row type or a row type not
yet routed whole at its level lies in it, and where the answer is known it is not computed
again: a bucket of fewer than ``k`` rows has capacity 0 (its close size is at most its rows),
a bucket of one row type has that row type's (the same test on the same counts).

Floating point only loosens the bounds: ``X*`` is a minimum of terms ``C_A / (S_A - tau)``,
each term is used only when its denominator stays positive after lowering it by 1e-9 (and then
with the lowered denominator), and the result is raised by a relative 1e-9 before the floor;
a bucket passes when that value reaches 1.

Complexity: with ``I`` items (``|S|`` for the equal distance and a matrix, at most ``H |S|``
for a hierarchy, ``2 (|S| - 1)`` for the ordered distance), ``O(t_in |S| I + t_in I log I)``
numpy work per sensitive column for the star-free bound; the pattern bound repeats a grouping
of the ``t_in`` row types and a bincount per pattern, ``O(sum_j C(m, j) t_in I log I)``, up to
``max_patterns`` patterns (in practice far less: on adult, 8 QIs, 50k of 596k buckets are
tested at ``t = 0.1``); the level flow adds one maximum flow per level.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import lru_cache, partial
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Progress, silent
from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level
from starmin.algorithms.t_charge_bound import extra_rows, t_charge_bound
from starmin.algorithms.t_class_size import (
    cuts_of,
    largest_close_sizes,
    levels_of,
    min_class_size,
)
from starmin.algorithms.t_level_flow import MAX_FLOW_ARCS, LevelFlow, level_flow_bound
from starmin.algorithms.t_level_lp import one_star_rows
from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.models.combine import parts
from starmin.models.distances import EqualDistance, HierarchicalDistance, OrderedDistance
from starmin.models.matrix_distance import MatrixDistance
from starmin.models.t_closeness import TCloseness

IntArray = NDArray[np.int64]

_SLACK = 1e-9
"""Relative amount by which ``X*`` is raised before the floor (float safety)."""

_MARGIN = 1e-9
"""Amount by which each denominator ``S_A - tau`` is lowered (float safety: ``S_A`` and
``tau`` carry relative errors near 1e-16)."""

MAX_PATTERNS = 4096
"""Default number of patterns the pattern bound enumerates (all ``2^m`` for ``m <= 12``)."""


def t_closeness_lower_bounds(rt: RowTypes, model: TCloseness, *, k: int = 1,
                             max_patterns: int = MAX_PATTERNS,
                             max_arcs: int = MAX_FLOW_ARCS, level_lp: bool = True,
                             charges: bool = True, large_lp: bool = False,
                             progress: Progress | None = None) -> dict[str, int]:
    """``{"t-star-free", "t-pattern", "t-level-flow"}`` lower bounds (module doc;
    :mod:`starmin.algorithms.t_level_flow`), each the largest over the sensitive columns,
    and ``"t-level-lp"`` where the level-1 LP of :mod:`starmin.algorithms.t_level_lp` ran
    (``level_lp``; the equal distance and matrices, within its nonzero limit): the level
    flow bound with its level-1 term tightened, and ``"t-charges"`` where the charge LP of
    :mod:`starmin.algorithms.t_charge_bound` gave a bound (``charges``; every distance,
    through the variational distance it bounds, within its work limits). ``k``: a class size
    every class must reach as well (the model the t-closeness is part of implies it; 1 for
    t-closeness alone). ``large_lp``: under the equal distance the charge LP is built up to
    :data:`.t_charge_bound.LARGE_MAX_NONZEROS` with its larger work limits (``starmin info``;
    on ARX adult 20-26 CPU s more and 2.6-12.5 % higher; reports keep the smaller limit).
    ``max_arcs``: the level flow's arcs per level."""
    say = progress or silent
    out = {"t-star-free": 0, "t-pattern": 0, "t-level-flow": 0}
    keys = PatternKeys(rt.codes)
    columns = list(_columns(rt, model))
    # every class holds at least k rows and at least the fewest rows any t-close class can
    # hold, in every sensitive column (t_class_size)
    k = max([max(1, k), *(col.x_min for col in columns)])
    for col in columns:
        hist, o = col.hist, col.o
        n = hist.sum(axis=1)
        z = _close_rows(hist, o, col.cut, k)
        free = np.where(z >= k, z, 0)
        need = n - free  # rows with >= 1 star
        out["t-star-free"] = max(out["t-star-free"], int(need.sum()))
        if need.any():
            lev, flows, last = _levels(keys, hist, o, free, col.cut, need > 0, k,
                                       max_patterns, max_arcs, say)
            out["t-pattern"] = max(out["t-pattern"], int((need * lev).sum()))
            flow = level_flow_bound(int(n.sum()), [int(free.sum()), *flows])
            out["t-level-flow"] = max(out["t-level-flow"], flow)
            if level_lp and flows and col.cut.items is None:
                u1 = one_star_rows(keys, hist, o, col.cut.tau, k)
                if u1 is not None:
                    say(f"bounds: t-closeness level-1 LP: at most {u1} rows at one star or "
                        f"none (level flow {flows[0]})")
                    lp = level_flow_bound(int(n.sum()),
                                          [int(free.sum()), min(flows[0], u1), *flows[1:]])
                    out["t-level-lp"] = max(out.get("t-level-lp", 0), lp)
            if charges and math.isfinite(col.radius):
                b = t_charge_bound(keys, hist, o, extra_rows(col.radius, int(n.sum())), lev,
                                   last, need, free > 0, partial(_holds, o, col.cut, k), say,
                                   large=large_lp and isinstance(model.distance,
                                                                 EqualDistance))
                if b is not None:
                    say(f"bounds: t charge LP: {b} stars")
                    out["t-charges"] = max(out.get("t-charges", 0), b)
    return out


def t_class_floor(rt: RowTypes, model: PrivacyModel) -> int:
    """The fewest rows any class of a release satisfying ``model`` can hold by its
    t-closeness parts: the largest ``X_min`` (:mod:`starmin.algorithms.t_class_size`) over
    those parts and their sensitive columns; 1 without one. A valid class size for every
    formulation that states one (the exact MILP's ``sum_p x(b, p) >= k y(b)``)."""
    floor = 1
    for part in parts(model):
        if isinstance(part, TCloseness):
            floor = max([floor, *(col.x_min for col in _columns(rt, part))])
    return floor


def star_free_bound(rt: RowTypes, model: TCloseness) -> int:
    """``sum_i (n_i - Z_i)``, maximized over the sensitive columns (module doc); ``Z_i`` is
    0 where it is below the fewest rows a t-close class can hold."""
    columns = list(_columns(rt, model))
    k = max([1, *(col.x_min for col in columns)])
    out = 0
    for col in columns:
        z = _close_rows(col.hist, col.o, col.cut, k)
        out = max(out, int((col.hist.sum(axis=1) - np.where(z >= k, z, 0)).sum()))
    return out


class _Cut(NamedTuple):
    """What a bucket or row type is tested against: ``tau``, the items of the relaxation
    (:func:`items_of`) and the partitions of the integer test
    (:func:`~starmin.algorithms.t_class_size.levels_of`)."""

    tau: float
    items: IntArray | None
    levels: list[IntArray] | None
    cuts: tuple[IntArray, IntArray] | None = None


class _Column(NamedTuple):
    """One sensitive column: the row types' counts and the table's counts over the values
    the table holds, the cut, and the fewest rows a t-close class can hold
    (:func:`~starmin.algorithms.t_class_size.min_class_size`)."""

    hist: IntArray
    o: IntArray
    cut: _Cut
    x_min: int
    radius: Fraction | float = math.inf
    """The largest variational distance of a t-close class from the table: ``t`` times the
    items' scale (the equal distance: 1; a hierarchy of height ``H``: ``H``; ``m`` ordered
    values: ``m - 1``; a matrix: ``1 / d_min``), as every unit of mass moved travels at
    least ``1 / scale``; exact (a fraction) where the scale is a whole number by
    construction."""


def _columns(rt: RowTypes, model: TCloseness) -> Iterator[_Column]:
    """:class:`_Column` per sensitive column."""
    if rt.n == 0 or not rt.sensitive:
        return
    overall = rt.sensitive_histograms(rt.counts.sum(axis=0))
    for hist, tot, values in zip(rt.sensitive_histograms(rt.counts), overall,
                                 rt.sensitive_values(), strict=True):
        o = tot[0]
        present = o > 0
        held = [v for v, k in zip(values, present, strict=True) if k]
        items, scale = items_of(model.distance, held)
        tau = float(model.t_exact) * scale if math.isfinite(scale) else float("inf")
        levels = levels_of(model.distance, held) if len(held) > 1 else None
        cuts = cuts_of(model.distance, held) if len(held) > 1 else None
        exact = isinstance(model.distance, EqualDistance | HierarchicalDistance
                           | OrderedDistance) and math.isfinite(scale)
        radius = model.t_exact * int(scale) if exact else tau
        x_min = min_class_size(model.distance, held, o[present], tau)
        if isinstance(model.distance, MatrixDistance):
            x_min = matrix_class_floor(model, values, o, x_min)
        yield _Column(hist[:, present], o[present], _Cut(tau, items, levels, cuts), x_min,
                      radius)


MATRIX_FLOOR_WORK = 20_000
"""Most class compositions :func:`matrix_class_floor` judges (a work limit)."""


def matrix_class_floor(model: TCloseness, values: Sequence[object], o: IntArray,
                       start: int) -> int:
    """The fewest rows of any t-close class under a matrix distance, at least ``start`` (a
    floor already proven, :func:`~starmin.algorithms.t_class_size.min_class_size`, whose
    variational relaxation ``EMD >= d_min TV`` says nothing once ``t >= d_min``).

    Every composition of ``X = start, start + 1, ...`` rows over the values the table holds
    (at most ``o_v`` of value ``v``) is judged by the model itself (its EMD by min-cost flow);
    the first ``X`` with a passing composition is returned, or, when the next size has more
    compositions than are left of :data:`MATRIX_FLOOR_WORK`, that size: every smaller size was
    judged whole and failed, so no t-close class has fewer rows (a class of the release is
    t-close by the same judge). Remembered per (model, values, counts, start): a run asks
    for it from several bounds (:func:`t_class_floor`, :func:`t_closeness_lower_bounds`)."""
    o = np.asarray(o, dtype=np.int64)
    return _matrix_floor(model, tuple(values), o.tobytes(), len(o), start)


@lru_cache(maxsize=16)
def _matrix_floor(model: TCloseness, values: tuple[object, ...], o_bytes: bytes, r: int,
                  start: int) -> int:
    from itertools import combinations_with_replacement

    o = np.frombuffer(o_bytes, dtype=np.int64, count=r)
    held = np.flatnonzero(o > 0)
    N = int(o.sum())
    left = MATRIX_FLOOR_WORK
    X = max(start, 1)
    while X < N:
        count = math.comb(len(held) + X - 1, X)
        if count > left:
            return X
        left -= count
        combos = np.array(list(combinations_with_replacement(held.tolist(), X)),
                          dtype=np.int64).reshape(count, X)
        hist = np.zeros((count, len(o)), dtype=np.int64)
        np.add.at(hist, (np.repeat(np.arange(count), X), combos.reshape(-1)), 1)
        hist = hist[(hist <= o[None, :]).all(axis=1)]
        if len(hist) and model.evaluate(hist, o, values).ok.any():
            return X
        X += 1
    return X


def _levels(keys: PatternKeys, hist: IntArray, o: IntArray, free: IntArray,
            cut: _Cut, open_mask: NDArray[np.bool_], k: int,
            max_patterns: int, max_arcs: int, say: Progress
            ) -> tuple[IntArray, list[int], int]:
    """``(t_in,)`` levels ``L_i`` (module doc) of the row types ``open_mask`` (1 elsewhere),
    and the level flows ``F_1, F_2, ...`` (:mod:`starmin.algorithms.t_level_flow`), from one
    enumeration of the patterns: a bucket's capacity is its largest close size when that
    reaches ``k`` (it may then hold a t-close class of at least ``k`` rows), else 0.

    A level is enumerated while the pattern bound has open row types or the last level flow
    is below ``N`` (the flow stops at level ``m - 1``), and while its patterns fit in
    ``max_patterns``. Only the buckets of open row types are tested, and while the flow runs
    those of the row types not yet routed whole in the level (:class:`LevelFlow`); the others
    keep capacity 0, which changes neither result. ``free``: each row type's own capacity
    (its largest close size where that reaches ``k``, else 0). The third value is the last
    level enumerated (the open row types past it have level ``last + 1``)."""
    t_in = len(hist)
    m = keys.m
    n = hist.sum(axis=1)
    N = int(n.sum())
    lev = np.ones(t_in, dtype=np.int64)
    open_ = np.flatnonzero(open_mask)
    flows: list[int] = []
    used, last = 0, 0
    for j in range(1, m + 1):
        flowing = j < m and (not flows or flows[-1] < N)
        if len(open_) == 0 and not flowing:
            break
        if used + math.comb(m, j) > max_patterns:
            say(f"bounds: stopping the t-closeness pattern and level flow bounds after "
                f"level {last} (max_patterns)")
            break
        meter = Meter(say, f"bounds: t-closeness pattern level {j}", "patterns",
                      math.comb(m, j))
        level = LevelFlow(n, max_arcs) if flowing else None
        for i, mask in enumerate(masks_of_level(m, j)):
            meter.tick(i)
            _, inv = np.unique(keys.keys(mask), return_inverse=True)
            inv = np.asarray(inv).reshape(-1)
            ob = inv[open_]
            # the buckets of open row types, and for the flow those of row types not yet
            # routed whole (a bucket of whole row types only would change nothing)
            wanted = np.zeros(int(inv.max()) + 1, dtype=bool)
            wanted[ob] = True
            if level is not None:
                wanted[inv[~level.whole]] = True
            cap, size = _bucket_caps(inv, hist, n, free, o, cut, k, np.flatnonzero(wanted))
            if level is not None:
                level.add(inv, cap, size)
            hit = cap[ob] > 0
            lev[open_[hit]] = j
            open_ = open_[~hit]
        used += math.comb(m, j)
        last = j
        say(f"bounds: t-closeness pattern level {j}: {int(hist[open_].sum())} rows need "
            "more stars")
        if level is not None:
            flows.append(level.value())
            note = " (over max_arcs: the cut at the source)" if level.over else ""
            say(f"bounds: t-closeness level flow {j}: at most {flows[-1]} of {N} rows with "
                f"<= {j} stars{note}")
    lev[open_] = last + 1
    return lev, flows, last


def _bucket_caps(inv: IntArray, hist: IntArray, n: IntArray, free: IntArray, o: IntArray,
                 cut: _Cut, k: int, wanted: IntArray) -> tuple[IntArray, IntArray]:
    """``(nb,)`` capacities and rows of one pattern's buckets (``inv``: the bucket of each
    row type, ``n`` its rows): for the buckets ``wanted``, the largest close size where it
    reaches ``k``, else 0 (0 for the other buckets). Without a test: a bucket of fewer than
    ``k`` rows has capacity 0, and a bucket of one row type has that row type's ``free`` (the
    same test on the same counts)."""
    t_in, s = hist.shape
    nb = int(inv.max()) + 1
    size = np.bincount(inv, weights=n, minlength=nb).astype(np.int64)
    members = np.bincount(inv, minlength=nb)
    cap = np.zeros(nb, dtype=np.int64)
    single = wanted[members[wanted] == 1]
    rep = np.zeros(nb, dtype=np.int64)
    rep[inv] = np.arange(t_in)
    cap[single] = free[rep[single]]
    test = wanted[(members[wanted] > 1) & (size[wanted] >= k)]
    if len(test):
        local = np.full(nb, -1, dtype=np.int64)
        local[test] = np.arange(len(test))
        rows = np.flatnonzero(local[inv] >= 0)
        flat = (local[inv[rows]][:, None] * s + np.arange(s)).reshape(-1)
        counts = np.bincount(flat, weights=hist[rows].reshape(-1), minlength=len(test) * s)
        z = _close_rows(counts.reshape(len(test), s).astype(np.int64), o, cut, k)
        cap[test] = np.where(z >= k, z, 0)
    return cap, size


def _holds(o: IntArray, cut: _Cut, k: int, counts: IntArray) -> NDArray[np.bool_]:
    """Whether buckets of these value ``counts`` can hold a t-close class of at least ``k``
    rows (the test of the pattern bound's levels)."""
    return _close_rows(counts, o, cut, k) >= k


def _close_rows(c: IntArray, o: IntArray, cut: _Cut, k: int) -> IntArray:
    """:func:`star_free_rows`, lowered to the largest size an integer sub-multiset of at
    least ``k`` rows reaches where the distance is a sum over partitions (equal, matrix,
    hierarchical; :func:`~starmin.algorithms.t_class_size.largest_close_sizes`; 0 when none
    does)."""
    z = star_free_rows(c, o, cut.tau, cut.items)
    if (cut.levels is None and cut.cuts is None) or not np.isfinite(cut.tau) \
            or c.shape[1] <= 1:
        return z
    return largest_close_sizes(c, o, cut.tau, z, k, cut.levels, cuts=cut.cuts)


def star_free_rows(c: IntArray, o: IntArray, tau: float,
                   items: IntArray | None = None) -> IntArray:
    """``(T,)`` upper bounds on the rows of each row type (counts ``c`` ``(T, s)`` over the
    values of the table histogram ``o`` ``(s,)``, all positive) that fit in a sub-multiset
    ``x`` with ``sum_items w max(0, Q(A) X - x(A)) <= tau X`` (module doc). ``items``: ``(s,
    I)`` weights ``w`` of the values in each item (:func:`items_of`); ``None``: the values
    themselves, i.e. total variation at most ``tau``.

    ``X*`` is a minimum of terms ``C_B / (S_B - tau)``; any subset of the terms bounds it from
    above, so a term is used only when its denominator, lowered by :data:`_MARGIN`, is still
    positive, and then with that lowered denominator: float error can only raise ``X*``."""
    c = np.asarray(c, dtype=np.int64)
    n = c.sum(axis=1)
    o = np.asarray(o, dtype=np.int64)
    N = float(o.sum())
    if items is not None:
        c, o = c @ items, o @ items
        keep = o > 0  # an item of no value the table holds costs nothing
        c, o = c[:, keep], o[keep]
    elif c.shape[1] <= 1:
        return n
    if c.shape[1] == 0 or tau * N >= float(o.sum()):  # no line can exceed tau X
        return n
    order = np.argsort(c * N / o, axis=1, kind="stable")  # breakpoints c_v / q_v, ascending
    S = np.cumsum(o[order], axis=1) / N  # integer sums, one rounding
    C = np.cumsum(np.take_along_axis(c, order, axis=1), axis=1).astype(np.float64)
    den = S - tau - _MARGIN
    with np.errstate(divide="ignore"):
        ratio = np.where(den > 0, C / np.where(den > 0, den, 1.0), np.inf)
    x_star = ratio.min(axis=1)
    z = np.floor(x_star * (1 + _SLACK) + _SLACK)
    return np.minimum(n, np.where(np.isfinite(z), z, n).astype(np.int64))


def items_of(distance: object, values: Sequence[object]) -> tuple[IntArray | None, float]:
    """The items of ``distance`` over ``values`` (the values the table holds) as ``(s, I)``
    integer weights (``None``: the values themselves) and the factor ``tau / t`` (module
    doc). ``(None, inf)`` when nothing can be bounded (fewer than two values, an unknown or
    degenerate distance): ``tau`` is then infinite and every row may stand alone."""
    s = len(values)
    if s < 2:
        return None, float("inf")
    if isinstance(distance, HierarchicalDistance):
        member, height = distance.ancestors(values)
        below_root = member[:, height < distance.height]
        return (np.hstack([np.eye(s, dtype=np.int64), below_root]),
                float(distance.height))
    if isinstance(distance, OrderedDistance):
        rank, m = distance.ranks(values)
        order = np.argsort(rank, kind="stable")
        cols = []
        for a in range(1, s):  # the cuts between the a-th and the (a + 1)-th present value
            w = int(rank[order[a]] - rank[order[a - 1]])
            low = np.zeros(s, dtype=np.int64)
            low[order[:a]] = w
            high = np.zeros(s, dtype=np.int64)
            high[order[a:]] = w
            cols += [low, high]
        return np.stack(cols, axis=1), float(m - 1)
    d_min = min_distance(distance, values)
    return None, (1.0 / d_min if d_min > 0 else float("inf"))


def min_distance(distance: object, values: Sequence[object]) -> float:
    """A lower bound on the ground distance between two distinct values (``inf`` when the
    values are fewer than two: nothing can move)."""
    if len(values) < 2:
        return float("inf")
    if isinstance(distance, EqualDistance):
        return 1.0
    if isinstance(distance, OrderedDistance):
        _, m = distance.ranks(values)
        return 1.0 / (m - 1)
    if isinstance(distance, HierarchicalDistance):
        return 1.0 / distance.height
    if isinstance(distance, MatrixDistance):
        M = np.asarray(distance.matrix, dtype=np.float64)
        off = M[~np.eye(len(M), dtype=bool)]
        pos = off[off > 0]
        return float(pos.min()) if len(pos) else 0.0
    return 0.0  # an unknown distance: no bound
