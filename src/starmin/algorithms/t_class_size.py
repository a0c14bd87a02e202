"""The fewest rows a t-close class can hold: a floor on every class's size for the t bounds.

Guarantee: **bound** -- no t-close class (of any table with these value counts) has fewer
rows than :func:`min_class_size` returns (tested against enumeration of every composition).

Argument. A class of ``X`` rows holds ``x_v`` rows of value ``v``, non-negative *integers*
with ``sum_v x_v = X``. Its distance to the table distribution ``Q = o / N`` has the closed
forms of docs/algorithms/lower-bounds.md (Li et al. Sec. 4; Liang & Yuan Fact 1):

* equal distance (and a user matrix, through ``EMD >= d_min * TV``): ``X * TV =
  sum_v max(0, Q_v X - x_v)``;
* hierarchical distance of height ``H``: ``X * H * EMD = sum over the levels l < H of
  sum over the nodes A of level l of max(0, Q(A) X - x(A))`` (level 0: the values);
* ordered distance over ``m`` ordered values: ``X * (m - 1) * EMD = sum over the cuts j of
  |x(<= j) - Q(<= j) X|``, a cut between two present values weighted by the cuts it spans.

The class is t-close only if that sum is at most ``tau X`` (``tau = t``, ``t H``,
``t (m - 1)`` or ``t / d_min``). The least value of the sum over integer compositions of
``X`` is at least the sum, over the parts (levels or cuts), of each part's own least value:

* one level (a partition of the values into nodes): the deficit of node ``A`` falls by
  ``min(1, what is left of it)`` per row put into ``A``, so putting rows greedily is optimal:
  ``floor(Q(A) X)`` rows into each node, then one row into each of the ``R = X - sum floor``
  nodes of largest fractional part; what is left is the sum of the other fractional parts;
* one cut: ``x(<= j)`` is an integer, so the term is at least the distance from
  ``Q(<= j) X`` to the nearest integer.

So ``D(X) = sum of those least values <= tau X`` is necessary, and the smallest ``X >= 1``
that passes is a floor on the size of every t-close class. The whole table (``X = N``,
``x = o``) has ``D = 0``, so the floor is at most ``N``. ``D(X) * N`` is an integer
(fractional parts of ``o X / N`` as numerators over ``N``); a size fails only when it exceeds
``tau X N`` by more than a relative :data:`_SLACK`, so float error can only lower the floor.

With ``X* `` of :func:`starmin.algorithms.t_closeness_bound.star_free_rows` (the largest
relaxed sub-multiset of a row type or bucket), a bucket can hold a t-close class only if
``floor(X*) >= min_class_size``: the class size ``k`` of the bound is raised to it.

Complexity: ``O(X_min * P * s log s)`` for ``P`` parts over ``s`` values, in batches of
:data:`_BATCH` sizes; at most :data:`MAX_SIZES` sizes, and at most :data:`MAX_WORK` entries,
are tried (the floor is then the first size not tried, still a floor).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from starmin.models.distances import HierarchicalDistance, OrderedDistance

IntArray = NDArray[np.int64]

_SLACK = 1e-9
"""Relative tolerance before a size fails (float safety: ``tau`` is a float)."""

_BATCH = 512
"""Sizes tried per numpy batch."""

MAX_SIZES = 1 << 20
"""Sizes tried at most; beyond them the floor is the first size not tried."""

MAX_WORK = 1 << 27
"""Entries (sizes x values, summed over the parts) computed at most: with many values
fewer sizes are tried (at least one batch), and the floor is again the first size not
tried."""


def min_class_size(distance: object, values: Sequence[object], o: IntArray,
                   tau: float) -> int:
    """The fewest rows of any class at distance at most ``tau / scale`` (module doc) from the
    table distribution ``o`` (counts of ``values``, the values the table holds, all
    positive); ``tau`` as :func:`starmin.algorithms.t_closeness_bound.items_of` scales it.
    1 when nothing can be bounded."""
    o = np.asarray(o, dtype=np.int64)
    N = int(o.sum())
    if len(o) < 2 or not np.isfinite(tau) or N < 2:
        return 1
    parts, cuts = _parts(distance, values, o)
    width = sum(len(p) for p in parts) + (0 if cuts is None else len(cuts[0]))
    last = min(N, MAX_SIZES, max(_BATCH, MAX_WORK // max(width, 1)))
    for start in range(1, last + 1, _BATCH):
        X = np.arange(start, min(start + _BATCH, last + 1), dtype=np.int64)
        d = np.zeros(len(X), dtype=np.float64)
        for counts in parts:
            d += _level_deficit(counts, X, N)
        if cuts is not None:
            d += _cut_deficit(*cuts, X, N)
        ok = np.flatnonzero(d <= tau * X * N * (1 + _SLACK) + _SLACK)
        if len(ok):
            return int(X[ok[0]])
    return last + 1


def _parts(distance: object, values: Sequence[object], o: IntArray
           ) -> tuple[list[IntArray], tuple[IntArray, IntArray] | None]:
    """The table counts per node of each level (partitions of the values), and for the
    ordered distance the cumulative counts and weights of the cuts."""
    if isinstance(distance, HierarchicalDistance):
        member, height = distance.ancestors(values)
        levels = [o]
        for h in range(1, distance.height):
            cols = member[:, height == h]
            if cols.shape[1]:
                levels.append(o @ cols)
        return levels, None
    if isinstance(distance, OrderedDistance):
        rank, _ = distance.ranks(values)
        order = np.argsort(rank, kind="stable")
        cum = np.cumsum(o[order])[:-1]
        w = np.diff(np.asarray(rank, dtype=np.int64)[order])
        return [], (cum, w)
    return [o], None


def _level_deficit(counts: IntArray, X: IntArray, N: int) -> NDArray[np.float64]:
    """``N`` times the least ``sum_A max(0, Q(A) X - x(A))`` over integer ``x`` (module
    doc), per size in ``X``: the sum of all but the ``R`` largest fractional parts."""
    prod = X[:, None] * counts[None, :]
    frac = np.sort(prod % N, axis=1)  # numerators over N, ascending
    R = X - (prod // N).sum(axis=1)  # rows left after the floors (values outside every
    # node of a level, in an uneven hierarchy, leave more)
    cum = np.concatenate([np.zeros((len(X), 1), dtype=np.int64), np.cumsum(frac, axis=1)],
                         axis=1)
    keep = np.maximum(counts.size - R, 0)  # the smallest fractional parts stay as deficit
    return cum[np.arange(len(X)), keep].astype(np.float64)


def _cut_deficit(cum: IntArray, w: IntArray, X: IntArray, N: int) -> NDArray[np.float64]:
    """``N`` times the least ``sum_j w_j |x(<= j) - Q(<= j) X|`` over integers: each cut's
    distance to the nearest integer."""
    r = (X[:, None] * cum[None, :]) % N
    return (np.minimum(r, N - r) * w[None, :]).sum(axis=1).astype(np.float64)


STEPS = 32
"""Sizes :func:`largest_close_sizes` tries per row, from the top."""


def largest_close_sizes(c: IntArray, o: IntArray, tau: float, z: IntArray, k: int,
                        steps: int = STEPS) -> IntArray:
    """Under the total variation (``X * TV <= tau X``: the equal distance, and a matrix
    through ``d_min``): for each row of counts ``c`` ``(T, s)`` whose relaxed largest close
    size is ``z`` ``(T,)``, an upper bound on the largest ``X`` in ``[k, z]`` for which a
    sub-multiset ``x <= c`` of ``X`` rows, in integers, has ``sum_v max(0, Q_v X - x_v) <=
    tau X``; 0 when there is none.

    For one ``X`` the least deficit is exact by a greedy with caps: a row put into value
    ``v`` lowers its deficit by ``min(1, what is left)`` while ``x_v < c_v``, so the best
    ``X`` rows take every whole unit (``y_v = min(c_v, floor(Q_v X))``), then the ``R = X -
    sum y`` largest fractional parts among the values not at their cap; the other rows add
    nothing (they need ``sum c >= X``). In numerators over ``N``, exactly. The ``steps``
    sizes from ``z`` down are tried; when none passes and smaller sizes are left untried,
    ``z - steps`` is returned (still an upper bound)."""
    c = np.asarray(c, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    z = np.asarray(z, dtype=np.int64)
    N = int(o.sum())
    out = np.where(z - steps >= k, z - steps, 0)
    open_ = np.flatnonzero(z >= k)
    for j in range(steps):
        if len(open_) == 0:
            break
        size = z[open_] - j
        live = size >= k
        open_, size = open_[live], size[live]
        cc = c[open_]
        prod = size[:, None] * o[None, :]
        y = np.minimum(cc, prod // N)
        d = prod - y * N                                # deficit numerators
        frac = np.where((y < cc) & (d > 0), d, 0)
        frac = -np.sort(-frac, axis=1)                  # largest first
        cum = np.concatenate([np.zeros((len(size), 1), dtype=np.int64),
                              np.cumsum(frac, axis=1)], axis=1)
        R = np.clip(size - y.sum(axis=1), 0, c.shape[1])
        short = d.sum(axis=1) - cum[np.arange(len(size)), R]  # least deficit, times N
        ok = (short <= tau * size * N * (1 + _SLACK) + _SLACK) & (cc.sum(axis=1) >= size)
        out[open_[ok]] = size[ok]
        open_ = open_[~ok]
    return out
