"""Integer class compositions for the t bounds: the fewest rows a t-close class can hold
(:func:`min_class_size`), and the largest close part of given counts (:func:`largest_close_sizes`).

Guarantee: **bound** -- no t-close class (of any table with these value counts) has fewer
rows than :func:`min_class_size` returns, and no t-close sub-multiset of counts ``c`` with at
least ``k`` rows has more rows than :func:`largest_close_sizes` returns (both tested against
enumeration of every composition under each distance's exact EMD).

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
    width = sum(len(p) for p in parts) + (0 if cuts is None else len(cuts[1]))
    last = min(N, MAX_SIZES, max(_BATCH, MAX_WORK // max(width, 1)))
    for start in range(1, last + 1, _BATCH):
        X = np.arange(start, min(start + _BATCH, last + 1), dtype=np.int64)
        d = np.zeros(len(X), dtype=np.int64)
        for counts in parts:  # caps of X rows per node never bind
            d += _capped_deficit(np.repeat(X[:, None], len(counts), axis=1), counts, X, N)
        if cuts is not None:  # nor do X rows below and X above each cut
            below_o, w = cuts
            wide = np.repeat(X[:, None], len(below_o), axis=1)
            d += _cut_distance(wide, 2 * X, below_o, w, X, N)
        ok = np.flatnonzero(d <= tau * X * N * (1 + _SLACK) + _SLACK)
        if len(ok):
            return int(X[ok[0]])
    return last + 1


def levels_of(distance: object, values: Sequence[object]) -> list[IntArray] | None:
    """The partitions of ``values`` coarser than the values themselves whose deficits add up,
    with the values', to ``X * scale * EMD`` (module doc), as ``(s, P)`` 0/1 membership
    matrices: under a hierarchy each level between the values and the root; none for the
    equal distance and a matrix. ``None`` for the ordered distance (cuts, not partitions)."""
    if isinstance(distance, OrderedDistance):
        return None
    levels: list[IntArray] = []
    if isinstance(distance, HierarchicalDistance):
        member, height = distance.ancestors(values)
        for h in range(1, distance.height):
            cols = member[:, height == h]
            if cols.shape[1]:
                levels.append(np.asarray(cols, dtype=np.int64))
    return levels


def _parts(distance: object, values: Sequence[object], o: IntArray
           ) -> tuple[list[IntArray], tuple[IntArray, IntArray] | None]:
    """The table counts per node of each level (the values, then the coarser partitions of
    :func:`levels_of`), or for the ordered distance the cumulative counts and weights of
    the cuts."""
    cuts = cuts_of(distance, values)
    if cuts is None:
        return [o, *(o @ M for M in levels_of(distance, values) or [])], None
    order, w = cuts
    return [], (np.cumsum(o[order])[:-1], w)


STEPS = 32
"""Sizes :func:`largest_close_sizes` tries per row, from the top."""


def cuts_of(distance: object, values: Sequence[object]) -> tuple[IntArray, IntArray] | None:
    """For the ordered distance: the values in their order and the weight of the cut after
    each (the cuts it spans; module doc). ``None`` for the other distances."""
    if not isinstance(distance, OrderedDistance):
        return None
    rank, _ = distance.ranks(values)
    order = np.argsort(rank, kind="stable")
    return order, np.diff(np.asarray(rank, dtype=np.int64)[order])


def largest_close_sizes(c: IntArray, o: IntArray, tau: float, z: IntArray, k: int,
                        levels: list[IntArray] | None = None,
                        steps: int = STEPS,
                        cuts: tuple[IntArray, IntArray] | None = None) -> IntArray:
    """For each row of counts ``c`` ``(T, s)`` whose relaxed largest close size is ``z``
    ``(T,)``: an upper bound on the largest ``X`` in ``[k, z]`` for which a sub-multiset
    ``x <= c`` of ``X`` rows, in integers, has ``sum over the levels of sum_A max(0, Q(A) X -
    x(A)) <= tau X`` (the values' level and the coarser ``levels`` of :func:`levels_of`;
    none: the total variation, for the equal distance and a matrix through ``d_min``); 0
    when there is none.

    For one ``X`` and one level the least deficit is exact by a greedy with caps: a row put
    into node ``A`` lowers its deficit by ``min(1, what is left)`` while ``x(A) < c(A)``, so
    the best ``X`` rows take every whole unit (``y_A = min(c(A), floor(Q(A) X))``), then the
    ``R = X - sum y`` largest fractional parts among the nodes not at their cap; the other
    rows add nothing (they need ``sum c >= X``). The sum over the levels of their least
    deficits is at most the least sum, so the test is necessary; with the values alone it is
    exact. ``cuts`` (:func:`cuts_of`, the ordered distance; ``levels`` is then ignored):
    ``x(<= j)`` is an integer in ``[max(0, X - c(> j)), min(X, c(<= j))]``, so each cut adds
    its weight times the distance from ``Q(<= j) X`` to the nearest such integer. In
    numerators over ``N``, exactly. The ``steps`` sizes from ``z`` down are tried;
    when none passes and smaller sizes are left untried, ``z - steps`` is returned (still an
    upper bound)."""
    c = np.asarray(c, dtype=np.int64)
    o = np.asarray(o, dtype=np.int64)
    z = np.asarray(z, dtype=np.int64)
    N = int(o.sum())
    n = c.sum(axis=1)
    parts = [] if cuts is not None else [(c, o), *((c @ M, o @ M) for M in levels or [])]
    if cuts is not None:
        order, w = cuts
        below_c = np.cumsum(c[:, order], axis=1)[:, :-1]   # c(<= j) per row
        below_o = np.cumsum(o[order])[:-1]
    out = np.where(z - steps >= k, z - steps, 0)
    open_ = np.flatnonzero(z >= k)
    for j in range(steps):
        if len(open_) == 0:
            break
        size = z[open_] - j
        live = size >= k
        open_, size = open_[live], size[live]
        short = np.zeros(len(size), dtype=np.int64)
        for cl, ol in parts:
            short += _capped_deficit(cl[open_], ol, size, N)
        if cuts is not None:
            short += _cut_distance(below_c[open_], n[open_], below_o, w, size, N)
        ok = (short <= tau * size * N * (1 + _SLACK) + _SLACK) & (n[open_] >= size)
        out[open_[ok]] = size[ok]
        open_ = open_[~ok]
    return out


def _capped_deficit(cc: IntArray, o: IntArray, size: IntArray, N: int) -> IntArray:
    """``N`` times the least ``sum_A max(0, Q(A) X - x(A))`` over integers ``x <= cc``
    summing to ``X`` (one level; :func:`largest_close_sizes`), per row of ``cc``."""
    prod = size[:, None] * o[None, :]
    y = np.minimum(cc, prod // N)
    d = prod - y * N                                # deficit numerators
    frac = np.where((y < cc) & (d > 0), d, 0)
    frac = -np.sort(-frac, axis=1)                  # largest first
    cum = np.concatenate([np.zeros((len(size), 1), dtype=np.int64),
                          np.cumsum(frac, axis=1)], axis=1)
    R = np.clip(size - y.sum(axis=1), 0, cc.shape[1])
    return np.asarray(d.sum(axis=1) - cum[np.arange(len(size)), R], dtype=np.int64)


def _cut_distance(below_c: IntArray, n: IntArray, below_o: IntArray, w: IntArray,
                  size: IntArray, N: int) -> IntArray:
    """``N`` times ``sum_j w_j`` times the distance from ``Q(<= j) X`` to the nearest integer
    in ``[max(0, X - c(> j)), min(X, c(<= j))]`` (:func:`largest_close_sizes`)."""
    target = size[:, None] * below_o[None, :]                  # Q(<= j) X, times N
    lo = np.maximum(0, size[:, None] - (n[:, None] - below_c)) * N
    hi = np.minimum(size[:, None], below_c) * N
    r = target % N
    dist = np.maximum(np.maximum(lo - target, target - hi), np.minimum(r, N - r))
    return np.asarray((dist * w[None, :]).sum(axis=1), dtype=np.int64)
