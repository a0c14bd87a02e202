"""The level flow bound on the stars of any t-close release (``t-level-flow``).

Guarantee: **bound** -- the value is at most the optimum (tested against brute force), and
at least the pattern bound of :mod:`starmin.algorithms.t_closeness_bound` (level by level).

Setting. Rows of row type ``i`` (``n_i`` rows, ``N`` in all) are released in classes; all rows
of a class share one star set ``S'`` (the QI columns starred in its released vector) and agree
outside it, and each row of the class costs ``|S'|`` stars (Liang & Yuan Sec. 2). For a star
set ``S`` and a row ``r`` the bucket ``B(S, r)`` is the set of rows agreeing with ``r`` outside
``S``. For a bucket ``B`` let ``Z(B)`` be an upper bound on the size of the largest t-close
sub-multiset of its sensitive values that holds at least ``k`` rows (the pattern bound's
bucket test, with the integer sizes, :mod:`starmin.algorithms.t_closeness_bound`; ``k`` the
class size every class reaches: the model's, raised to the fewest rows of a t-close class),
and ``cap(B) = Z(B)`` when ``Z(B) >= k``, else 0.

Lemma (bucket capacity). For a star set ``S`` and a bucket ``B`` of ``S``, the rows lying in
classes whose star set ``S'`` is a subset of ``S`` and which meet ``B`` number at most
``cap(B)``. Proof: such a class agrees outside ``S'``, so outside ``S``, and one of its rows
agrees with ``B``'s rows outside ``S``: all its rows lie in ``B``. Each class is t-close, and so
is their union: the EMD to the fixed table distribution is convex in the class distribution
(the optimum of a transport LP whose right-hand side is linear in it) and the union's
distribution is a convex combination of theirs. So the union is a t-close sub-multiset of ``B``
and, when not empty, holds at least ``k`` rows (each class does): its size is at most ``Z(B)``,
and it is empty when ``Z(B) < k``.

Level flow. Let ``A_j`` be the number of rows with at most ``j`` stars. A row with star set
``S'``, ``|S'| <= j``, is given one witness ``S ⊇ S'`` with ``|S| = j`` (``j <= m``) and
counted in ``B(S, r)``; its class has star set ``S' ⊆ S`` and meets ``B(S, r)``. Counting each
such row once, in its witness bucket, is a flow in the bipartite network

    source -> row type i (capacity n_i) -> every bucket B(S, i), |S| = j (no capacity)
    -> sink (capacity cap(B)),

feasible by the lemma, so ``A_j <= F_j``, the maximum flow. Rows with at most ``j`` stars
also have at most ``j + 1``, so ``A_j <= A_j' <= F_j'`` for every ``j' >= j``: ``A_j`` is at
most the smallest ``F_j'`` over the computed levels ``j' >= j``. Every row with ``|S'|``
stars has more than ``j`` stars for exactly ``|S'|`` values ``j = 0, ..., m - 1``, so::

    OPT = sum_{j=0}^{m-1} (N - A_j) >= sum_j (N - min_{j' >= j} F_j').

Levels not computed contribute 0 (``A_j <= N``). Level 0: the buckets are the row types, so
``F_0 = sum_i min(n_i, cap_i)`` and its term is the star-free bound. For ``j >= 1`` a row type
all of whose level-``j`` buckets have capacity 0 sends no flow, while the pattern bound
``sum_i (n_i - Z_i) L_i`` (:mod:`starmin.algorithms.t_closeness_bound`) is the same sum with
``F_j`` replaced by ``sum_{L_i <= j} n_i + sum_{L_i > j} min(n_i, cap_i)``: as every row type
with a positive-capacity bucket at level ``j`` has ``L_i <= j``, ``F_j`` is at most that, and
the level flow bound is at least the pattern bound (computed from the same buckets).

Reduction. A bucket with ``cap(B) >= |B|`` takes every row of its row types, so a row type
with such a bucket at level ``j`` (a *whole* row type) is routed there entirely: given any
flow, the whole row types send at most ``n_i`` each and the other row types' flow is a flow
of the network without the whole row types, and conversely the whole row types' ``n_i`` can be
added to any flow of that network (a whole bucket holds only whole row types, and
``cap(B) >= |B|`` covers them). So ``F_j = sum_{whole} n_i + F_j(rest)``, and buckets of
capacity 0 are dropped from the rest. (Removing any row types and counting their ``n_i`` in
full is still an upper bound on ``F_j``: only the bound's strength rests on the choice.)

Work limits. Levels are computed while they fit in ``max_patterns`` patterns, the budget of
the pattern bound (the same enumeration; the caller stops at the level whose patterns would
exceed it), and until ``F_j = N``. The reduced network of a level keeps at most
``max_arcs`` row-type-to-bucket arcs (:data:`MAX_FLOW_ARCS`); over it, or when ``N`` does not
fit in int32 (SciPy's flow capacities), ``F_j`` is replaced by the cut at the source of the
reduced network, ``sum_{whole} n_i +`` the ``n_i`` of the other row types with a
positive-capacity bucket (an upper bound on ``F_j``, so the bound stays valid and at least
the pattern bound). No clock is read: the value depends only on the input and the limits.

Complexity: per level ``j``, ``O(C(m, j) t_in)`` to collect the arcs, and one maximum flow
(Dinic's algorithm, ``scipy.sparse.csgraph.maximum_flow``, ``O(V^2 E)`` worst case) over the
reduced network of ``V <= t_in + E + 2`` nodes and ``E <= max_arcs`` arcs. Adult (30,162 rows,
8 QIs, ``t = 0.1``): five levels, their flows about 0.2 CPU s in all
(docs/algorithms/lower-bounds.md).

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 2 (a class costs its size times its starred columns).
N. Li, T. Li and S. Venkatasubramanian, "t-Closeness: Privacy Beyond k-Anonymity and
l-Diversity", Sec. 4 (EMD; its convexity in the class distribution).
E. A. Dinitz, "Algorithm for solution of a problem of maximum flow in networks with power
estimation" (1970).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]

MAX_FLOW_ARCS = 5_000_000
"""Row-type-to-bucket arcs the reduced network of one level keeps at most (module doc)."""

_INT32_MAX = int(np.iinfo(np.int32).max)


class LevelFlow:
    """``F_j`` of one level (module doc), fed one pattern at a time: :meth:`add` each pattern
    of the level, then :meth:`value`. ``n``: ``(t_in,)`` rows per row type."""

    def __init__(self, n: IntArray, max_arcs: int = MAX_FLOW_ARCS) -> None:
        self.n = np.asarray(n, dtype=np.int64)
        self.max_arcs = max_arcs
        self.N = int(self.n.sum())
        self.whole = np.zeros(len(self.n), dtype=bool)
        """The row types routed entirely (a bucket of capacity at least its rows)."""
        self.hit = np.zeros(len(self.n), dtype=bool)     # some bucket of positive capacity
        self.over = self.N > _INT32_MAX                  # no network: the cut at the source
        self._types: list[IntArray] = []
        self._buckets: list[IntArray] = []
        self._caps: list[IntArray] = []
        self._kept = 0
        self._nb = 0

    def add(self, inv: IntArray, cap: IntArray, size: IntArray) -> None:
        """One pattern: ``inv`` ``(t_in,)`` the bucket of each row type, ``cap`` and
        ``size`` ``(nb,)`` each bucket's capacity and rows. A bucket whose row types are all
        :attr:`whole` already may be given capacity 0: it changes nothing."""
        inv = np.asarray(inv, dtype=np.int64)
        cap = np.asarray(cap, dtype=np.int64)
        whole = cap >= np.asarray(size, dtype=np.int64)
        pos = (cap > 0) & ~whole
        self.whole |= whole[inv]
        self.hit |= pos[inv]
        if self.over:
            return
        t = np.flatnonzero(pos[inv] & ~self.whole)
        if len(t) == 0:
            return
        local = np.cumsum(pos) - 1                      # ids of the positive buckets
        self._types.append(t)
        self._buckets.append(self._nb + local[inv[t]])
        self._caps.append(cap[pos])
        self._nb += int(pos.sum())
        self._kept += len(t)
        if self._kept > self.max_arcs:
            self._compact()
            if self._kept > self.max_arcs:
                self.over = True
                self._types, self._buckets, self._caps = [], [], []

    def _compact(self) -> None:
        """Drop the arcs of row types found whole since they were added."""
        types = np.concatenate(self._types)
        keep = ~self.whole[types]
        self._types = [types[keep]]
        self._buckets = [np.concatenate(self._buckets)[keep]]
        self._kept = int(keep.sum())

    def value(self) -> int:
        """``F_j``: the whole row types' rows plus the maximum flow of the rest (module
        doc), or the cut at the source when the network is over the limits."""
        whole = int(self.n[self.whole].sum())
        rest = self.hit & ~self.whole
        if self.over:
            return whole + int(self.n[rest].sum())
        if not self._types:
            return whole
        self._compact()
        types, buckets = self._types[0], self._buckets[0]
        if len(types) == 0:
            return whole
        return whole + _max_flow(self.n, types, buckets, np.concatenate(self._caps), self.N)


def _max_flow(n: IntArray, types: IntArray, buckets: IntArray, caps: IntArray,
              N: int) -> int:
    """The maximum flow source -> row type (``n``) -> bucket (arcs ``types[a] ->
    buckets[a]``, capacity ``N``, i.e. none) -> sink (``caps``), over the row types and
    buckets that have an arc."""
    import scipy.sparse as sp  # solver libraries load when a bound is computed
    from scipy.sparse.csgraph import maximum_flow

    ut, ti = np.unique(types, return_inverse=True)
    ub, bi = np.unique(buckets, return_inverse=True)
    nt, nb = len(ut), len(ub)
    source, sink = 0, nt + nb + 1
    tails = np.concatenate([np.zeros(nt, dtype=np.int64), 1 + ti.reshape(-1),
                            1 + nt + np.arange(nb)])
    heads = np.concatenate([1 + np.arange(nt), 1 + nt + bi.reshape(-1),
                            np.full(nb, sink)])
    capacity = np.concatenate([n[ut], np.full(len(types), N), np.minimum(caps[ub], N)])
    graph = sp.csr_array((capacity.astype(np.int32), (tails, heads)),
                         shape=(sink + 1, sink + 1))
    return int(maximum_flow(graph, source, sink, method="dinic").flow_value)


def level_flow_bound(N: int, flows: Sequence[int]) -> int:
    """``sum_j (N - min_{j' >= j} F_j')`` over the computed levels ``flows`` = ``F_0,
    F_1, ...`` (module doc); the levels after them contribute 0."""
    out, low = 0, N
    for f in reversed(flows):
        low = min(low, int(f))
        out += N - low
    return out
