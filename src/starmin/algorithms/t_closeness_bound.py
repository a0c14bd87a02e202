"""Lower bounds on the stars of any t-close release: the star-free and the pattern bound.

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

Bounding ``Z_i`` from above. For any ground distance whose distinct values lie at least
``d_min`` apart, ``EMD >= d_min * TV`` (every unit of mass moved travels at least ``d_min``),
so a t-close class has total variation ``TV = sum_v max(0, q_v - p_v) <= tau = t / d_min``. A
sub-multiset ``x <= c_i`` of ``X`` rows has ``X * TV = sum_v max(0, q_v X - x_v) >= g(X) =
sum_v max(0, q_v X - c_v)``; ``g`` is convex and piecewise linear, the largest of the lines
``S_A X - C_A`` (``S_A``, ``C_A``: sums of ``q_v``, ``c_v`` over a set ``A`` of values, the
best ``A`` being the values whose breakpoint ``c_v / q_v`` lies below ``X``). Hence ``X <=
X* = min over prefixes A (breakpoints sorted) with S_A > tau of C_A / (S_A - tau)`` and
``Z_i <= min(n_i, floor(X*))``. ``d_min``: 1 for the equal distance, ``1 / (m - 1)`` for the
ordered distance over ``m`` values, ``1 / H`` for a hierarchy of height ``H``, the smallest
positive off-diagonal entry for a user matrix. With several sensitive columns each gives a
bound; the largest is taken.

With a class size ``k`` implied by the rest of the model (``--k 5 --t 0.2``), star-free classes
hold at least ``k`` rows each, so row type ``i`` has no star-free row when ``Z_i < k``.

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

Floating point only loosens the bounds: ``X*`` is a minimum of terms ``C_A / (S_A - tau)``,
each term is used only when its denominator stays positive after lowering it by 1e-9 (and then
with the lowered denominator), and the result is raised by a relative 1e-9 before the floor;
a bucket passes when that value reaches 1.

Complexity: ``O(t_in |S| log |S|)`` numpy work per sensitive column for the star-free bound;
the pattern bound repeats a grouping of the ``t_in`` row types and a bincount per pattern,
``O(sum_j C(m, j) t_in |S| log)``, up to ``max_patterns`` patterns.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Progress, silent
from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level
from starmin.data.rowtypes import RowTypes
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
                             progress: Progress | None = None) -> dict[str, int]:
    """``{"t-star-free", "t-pattern"}`` lower bounds (module doc), each the largest over the
    sensitive columns. ``k``: a class size every class must reach as well (the model the
    t-closeness is part of implies it; 1 for t-closeness alone)."""
    say = progress or silent
    out = {"t-star-free": 0, "t-pattern": 0}
    keys = PatternKeys(rt.codes)
    for hist, o, tau in _columns(rt, model):
        z = star_free_rows(hist, o, tau)
        need = hist.sum(axis=1) - np.where(z >= k, z, 0)  # rows with >= 1 star
        out["t-star-free"] = max(out["t-star-free"], int(need.sum()))
        if need.any():
            lev = _levels(keys, hist, o, tau, need > 0, max(1, k), max_patterns, say)
            out["t-pattern"] = max(out["t-pattern"], int((need * lev).sum()))
    return out


def star_free_bound(rt: RowTypes, model: TCloseness) -> int:
    """``sum_i (n_i - Z_i)``, maximized over the sensitive columns (module doc)."""
    return max((int((h.sum(axis=1) - star_free_rows(h, o, tau)).sum())
                for h, o, tau in _columns(rt, model)), default=0)


def _columns(rt: RowTypes, model: TCloseness) -> Iterator[tuple[IntArray, IntArray, float]]:
    """Per sensitive column: the row types' counts and the table's counts over the values the
    table holds, and ``tau = t / d_min``."""
    if rt.n == 0 or not rt.sensitive:
        return
    overall = rt.sensitive_histograms(rt.counts.sum(axis=0))
    for hist, tot, values in zip(rt.sensitive_histograms(rt.counts), overall,
                                 rt.sensitive_values(), strict=True):
        o = tot[0]
        present = o > 0
        d_min = min_distance(model.distance,
                             [v for v, k in zip(values, present, strict=True) if k])
        tau = float(model.t_exact) / d_min if d_min > 0 else float("inf")
        yield hist[:, present], o[present], tau


def _levels(keys: PatternKeys, hist: IntArray, o: IntArray, tau: float,
            open_mask: NDArray[np.bool_], k: int, max_patterns: int, say: Progress
            ) -> IntArray:
    """``(t_in,)`` levels ``L_i`` (module doc) of the row types ``open_mask`` (1 elsewhere): a
    bucket passes when it may hold a t-close class of at least ``k`` rows."""
    t_in, s = hist.shape
    m = keys.m
    lev = np.ones(t_in, dtype=np.int64)
    open_ = np.flatnonzero(open_mask)
    used, last = 0, 0
    for j in range(1, m + 1):
        if len(open_) == 0:
            break
        if used + math.comb(m, j) > max_patterns:
            say(f"bounds: stopping the t-closeness pattern bound after level {last} "
                "(max_patterns)")
            break
        meter = Meter(say, f"bounds: t-closeness pattern level {j}", "patterns",
                      math.comb(m, j))
        for i, mask in enumerate(masks_of_level(m, j)):
            meter.tick(i)
            _, inv = np.unique(keys.keys(mask), return_inverse=True)
            inv = np.asarray(inv).reshape(-1)
            nb = int(inv.max()) + 1
            flat = (inv[:, None] * s + np.arange(s)).reshape(-1)
            bucket = np.bincount(flat, weights=hist.reshape(-1), minlength=nb * s)
            bucket = bucket.reshape(nb, s).astype(np.int64)
            ob = inv[open_]
            cand = np.unique(ob)
            fits = np.zeros(nb, dtype=bool)
            fits[cand] = star_free_rows(bucket[cand], o, tau) >= k
            hit = fits[ob]
            lev[open_[hit]] = j
            open_ = open_[~hit]
        used += math.comb(m, j)
        last = j
        say(f"bounds: t-closeness pattern level {j}: {int(hist[open_].sum())} rows need "
            "more stars")
    lev[open_] = last + 1
    return lev


def star_free_rows(c: IntArray, o: IntArray, tau: float) -> IntArray:
    """``(T,)`` upper bounds on the rows of each row type (counts ``c`` ``(T, s)`` over the
    values of the table histogram ``o`` ``(s,)``, all positive) that fit in a sub-multiset of
    total variation at most ``tau`` from ``o``'s distribution.

    ``X*`` is a minimum of terms ``C_A / (S_A - tau)``; any subset of the terms bounds it from
    above, so a term is used only when its denominator, lowered by :data:`_MARGIN`, is still
    positive, and then with that lowered denominator: float error can only raise ``X*``."""
    c = np.asarray(c, dtype=np.int64)
    n = c.sum(axis=1)
    if tau >= 1 or c.shape[1] <= 1:
        return n
    o = np.asarray(o, dtype=np.int64)
    N = float(o.sum())
    order = np.argsort(c * N / o, axis=1, kind="stable")  # breakpoints c_v / q_v, ascending
    S = np.cumsum(o[order], axis=1) / N  # integer sums, one rounding
    C = np.cumsum(np.take_along_axis(c, order, axis=1), axis=1).astype(np.float64)
    den = S - tau - _MARGIN
    with np.errstate(divide="ignore"):
        ratio = np.where(den > 0, C / np.where(den > 0, den, 1.0), np.inf)
    x_star = ratio.min(axis=1)
    z = np.floor(x_star * (1 + _SLACK) + _SLACK)
    return np.minimum(n, np.where(np.isfinite(z), z, n).astype(np.int64))


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
