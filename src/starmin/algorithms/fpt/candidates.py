"""Phase 1 of Bredereck et al.'s Algorithm 1: the output row types worth guessing.

Algorithm 1 (Sec. 4.1) guesses a binary ``t_in x t_out`` matrix ``A``; column ``j`` names the
set ``S_j`` of input row types that send rows to output row type ``R'_j``, and Step 3 sets
``R'_j`` to the *suppressor* of ``S_j``: the common value where all of ``S_j`` agree, ``*``
elsewhere (its cost per row, ``omega_j``, is its number of stars). So every output row type
the algorithm can guess is the suppressor of a non-empty subset of the input row types, and
the guess is a set of at most ``t_out`` of them (``t_out <= t_in`` by Lemma 2, Theorem 3).

This module lists those suppressors once, without repeats: two subsets with the same suppressor
guess the same output row type. For each candidate ``v`` it also records ``G(v)``, the input
row types that ``v`` generalizes (equal to ``v`` wherever ``v`` has no star). ROW ASSIGNMENT
may then send rows of any type in ``G(v)`` to ``v``, a superset of the arcs ``A`` allows
(``S_j subset G(R'_j)``), at the same cost: every flow still describes a release (each row goes
to a vector that generalizes it, at ``omega_j`` stars), and no optimum is lost. A suppressor
``v`` of ``S`` is the suppressor of ``G(v)`` too (the types of ``G(v)`` agree with ``v`` off its
stars and ``S subset G(v)`` differs on its stars), so the candidates are exactly the vectors
``v`` with ``v = suppressor(G(v))``.

Three routes give the same set (a test checks it):

- *subsets* (Algorithm 1's own view): the suppressor of every non-empty subset of the
  ``t_in`` row types, ``2^t_in - 1`` of them, built by doubling (a subset with highest type
  ``b`` is a smaller subset plus ``b``) in ``O(2^t_in * m)``;
- *merging* (output-sensitive): start from the row types themselves and merge every vector
  found with every row type (``suppressor(S + {i})`` is the cell-wise merge of
  ``suppressor(S)`` with row type ``i``) until nothing new appears. Every subset is reached by
  adding its types one at a time, so all suppressors are found, in ``O(C_all * t_in * m)`` for
  ``C_all`` suppressors -- polynomial in the output, where the subsets route is exponential;
- *patterns* (the guess of Proposition 2): for each of the ``2^m`` sets ``P`` of starred
  columns, the row types grouped by their values off ``P``; each group's suppressor, in
  ``O(2^m * t_in * m log t_in)``.

:func:`candidates` takes the subsets route up to ``t_in = 12``, else the patterns route up to
``m = 8`` columns (at most 256 groupings), else merging; it gives up (returns ``None``) when
more than ``max_all`` suppressors exist. A candidate no release can use is dropped: one whose
``G(v)`` holds fewer than ``k`` rows (or, for p-sensitivity, fewer than ``p`` distinct
sensitive values), since every non-empty output class needs that many.

With domain generalization hierarchies (Sec. 4.4, Theorem 5 and Corollary 2) Step 3 sets each
entry to the lowest common ancestor (LCA) of the subset's values (:mod:`.joins`) instead of the
common value or ``*``; ``G(v)`` holds the row types whose every value lies under ``v``'s node,
and the same argument (``S subset G(v)``, ``v`` covers ``G(v)``) gives ``v = LCA(G(v))``. The
subsets and merging routes only need the merge of a vector with one row type, so they serve
both; the patterns route is suppression's own and is not used with hierarchies. Each
candidate's cost per row ``omega_j`` is then the chosen objective
(:mod:`starmin.algorithms.objective`: stars, or Iyengar's loss scaled to integers).

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 4.1 (Algorithm 1, Phase 1,
Steps 2-3; Lemma 2; Theorem 3) and Sec. 4.2 (Proposition 2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.fpt.joins import Joins
from starmin.transform.plan import STAR

SUBSET_ROUTE_MAX_T_IN = 12
"""Largest ``t_in`` for which :func:`candidates` takes the subsets route (4,095 subsets)."""
PATTERN_ROUTE_MAX_M = 8
"""Largest ``m`` for which :func:`candidates` may take the patterns route (256 groupings)."""
MAX_ALL = 20_000
"""Default largest number of suppressors (before dropping unusable ones) listed."""


@dataclass(frozen=True, eq=False)
class Candidates:
    """The output row types a guess may use.

    Attributes
    ----------
    vectors : ``(C, m)`` int32; each a suppressor, cells a code or :data:`STAR`.
    omega : ``(C,)`` int64; cost per row released as the vector (``omega_j``): its stars, or
        with hierarchies the objective's integer cost (:mod:`starmin.algorithms.objective`).
    covers : ``(C, t_in)`` bool; ``covers[j, i]``: vector ``j`` generalizes row type ``i``.
    """

    vectors: NDArray[np.int32]
    omega: NDArray[np.int64]
    covers: NDArray[np.bool_]

    @property
    def count(self) -> int:
        return int(self.vectors.shape[0])

    @property
    def arcs(self) -> int:
        """Pairs (row type, candidate) with ``covers`` true: ROW ASSIGNMENT's arcs."""
        return int(self.covers.sum())


def _merge(vectors: NDArray[np.int32], codes: NDArray[np.int32], joins: Joins | None
           ) -> NDArray[np.int32]:
    """Step 3's merge of output vectors with row types (shapes broadcast): the suppressor
    (equal value or star), or with hierarchies the lowest common ancestor (:mod:`.joins`)."""
    if joins is None:
        return np.where(vectors == codes, vectors, STAR).astype(np.int32)
    return joins.merge(vectors, codes)


def by_subsets(codes: NDArray[np.integer], joins: Joins | None = None) -> NDArray[np.int32]:
    """``(C, m)`` distinct suppressors of the non-empty subsets of ``codes`` (``(t_in, m)``),
    by doubling: ``2^t_in - 1`` subsets, ``O(2^t_in * m)``. With ``joins`` the output row
    types of Sec. 4.4 instead: per column the lowest common ancestor of the subset."""
    codes = np.asarray(codes, dtype=np.int32)
    t_in, m = codes.shape
    sup = np.zeros((1 << t_in, m), dtype=np.int32)  # row 0 (empty subset) is never read
    for b in range(t_in):
        lo, hi = 1 << b, 1 << (b + 1)
        sup[lo] = codes[b]
        if b:  # subsets {..} | {b} with a non-empty lower part
            rest = sup[1:lo]
            sup[lo + 1:hi] = _merge(rest, codes[b][None, :], joins)
    return np.unique(sup[1:], axis=0) if t_in else np.zeros((0, m), np.int32)


def by_patterns(codes: NDArray[np.integer]) -> NDArray[np.int32]:
    """``(C, m)`` distinct suppressors of the groups of row types that agree off each set of
    starred columns (``2^m`` patterns, the guess of Proposition 2)."""
    c32: NDArray[np.int32] = np.asarray(codes, dtype=np.int32)
    t_in, m = c32.shape
    if t_in == 0:
        return np.zeros((0, m), np.int32)
    out = []
    for pattern in range(1 << m):
        keep = [c for c in range(m) if not (pattern >> c) & 1]
        group = np.zeros(t_in, dtype=np.int64)
        if keep:
            _, inv = np.unique(c32[:, keep], axis=0, return_inverse=True)
            group = np.asarray(inv, dtype=np.int64).reshape(-1)
        out.append(_group_suppressors(c32, group))
    return np.unique(np.concatenate(out), axis=0)


def _group_suppressors(codes: NDArray[np.int32], group: NDArray[np.int64]) -> NDArray[np.int32]:
    """``(g, m)`` suppressor of each group (``group[i]``: the group of row type ``i``)."""
    g = int(group.max()) + 1
    lo = np.full((g, codes.shape[1]), np.iinfo(np.int32).max, dtype=np.int32)
    hi = np.full((g, codes.shape[1]), -1, dtype=np.int32)
    np.minimum.at(lo, group, codes)
    np.maximum.at(hi, group, codes)
    return np.where(lo == hi, lo, STAR).astype(np.int32)


def covers(vectors: NDArray[np.int32], codes: NDArray[np.integer],
           joins: Joins | None = None) -> NDArray[np.bool_]:
    """``(C, t_in)`` bool: vector ``j`` generalizes row type ``i`` (equal or star per cell;
    with ``joins``, the value or one of its ancestors)."""
    if joins is not None:
        return joins.covers(vectors, codes)
    v = vectors[:, None, :]
    return ((v == STAR) | (v == np.asarray(codes)[None, :, :])).all(axis=2)


def by_merging(codes: NDArray[np.integer], max_all: int | None = None,
               joins: Joins | None = None) -> NDArray[np.int32] | None:
    """``(C, m)`` distinct suppressors of the non-empty subsets of ``codes``, by merging
    each one found with every row type until no new one appears; ``None`` as soon as more
    than ``max_all`` exist. With ``joins``: lowest common ancestors (Sec. 4.4)."""
    c32: NDArray[np.int32] = np.asarray(codes, dtype=np.int32)
    t_in, m = c32.shape
    found = np.unique(c32, axis=0)
    frontier = found
    step = max(1, _MERGE_CELLS // max(t_in * m, 1))
    while len(frontier):
        new: list[NDArray[np.int32]] = []
        for s in range(0, len(frontier), step):  # (f, t_in, m) merges, a chunk at a time
            f = frontier[s:s + step, None, :]
            new.append(_merge(f, c32[None, :, :], joins).reshape(-1, m))
        merged = np.unique(np.concatenate(new), axis=0)
        both = np.concatenate([found, merged])
        uniq, first = np.unique(both, axis=0, return_index=True)
        frontier = uniq[first >= len(found)]  # merges not found before
        found = uniq
        if max_all is not None and len(found) > max_all:
            return None
    return found


_MERGE_CELLS = 1 << 22
"""Cells of merged vectors built at once by :func:`by_merging` (16 MB of int32)."""


def route(t_in: int, m: int, dgh: bool = False) -> str:
    """``"subsets"`` up to :data:`SUBSET_ROUTE_MAX_T_IN` row types, else ``"patterns"`` up to
    :data:`PATTERN_ROUTE_MAX_M` columns, else ``"merging"``. The patterns route (sets of
    starred columns) exists for suppression only: with hierarchies (``dgh``) it is merging."""
    if t_in <= SUBSET_ROUTE_MAX_T_IN:
        return "subsets"
    return "patterns" if m <= PATTERN_ROUTE_MAX_M and not dgh else "merging"


def candidates(codes: NDArray[np.integer], sizes: NDArray[np.integer], k: int,
               distinct: NDArray[np.integer] | None = None, p: int = 1,
               max_all: int = MAX_ALL, joins: Joins | None = None,
               cost: Callable[[NDArray[np.int32]], NDArray[np.int64]] | None = None
               ) -> Candidates | None:
    """The usable candidates, cheapest first (ties: lexicographic vector order), or ``None``
    when the table has more than ``max_all`` suppressors.

    ``sizes`` ``(t_in,)`` rows per row type; ``k`` the least class size. For p-sensitivity
    ``distinct`` is ``(t_in, s)`` rows per (row type, sensitive value) and ``p`` the least
    number of distinct values a class holds; a candidate that cannot reach ``k`` rows or ``p``
    values from the row types it generalizes is dropped.

    With hierarchies (Sec. 4.4) ``joins`` makes each candidate the lowest common ancestors of
    a set of row types, and ``cost`` prices one row released as each vector (``omega_j``: the
    objective of :mod:`starmin.algorithms.objective`); by default ``omega_j`` is the stars.
    """
    c32: NDArray[np.int32] = np.asarray(codes, dtype=np.int32)
    t_in, m = c32.shape
    how = route(t_in, m, dgh=joins is not None)
    vecs = (by_subsets(c32, joins) if how == "subsets" else by_patterns(c32)
            if how == "patterns" else by_merging(c32, max_all, joins))
    if vecs is None or len(vecs) > max_all:
        return None
    cov = covers(vecs, c32, joins)
    ok = cov @ np.asarray(sizes, dtype=np.int64) >= k
    if distinct is not None:
        ok &= ((cov.astype(np.int64) @ np.asarray(distinct, dtype=np.int64)) > 0).sum(axis=1) >= p
    vecs, cov = vecs[ok], cov[ok]
    omega = ((vecs == STAR).sum(axis=1).astype(np.int64) if cost is None
             else np.asarray(cost(vecs), dtype=np.int64))
    order = np.argsort(omega, kind="stable")  # np.unique left them in lexicographic order
    return Candidates(vecs[order], omega[order], cov[order])
