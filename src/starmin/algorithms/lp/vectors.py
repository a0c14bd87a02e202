"""Every output vector an optimal release may use, each with every pair it may receive.

An output vector ``v*`` with star set ``S`` (a suppression pattern) and projection ``w``
outside ``S`` can receive the pairs of the row types whose projection is ``w`` (its *group*,
:mod:`..heuristic.pattern_keys`).

**Only suppressors are needed.** Every model the exact MILP takes (k-anonymity, frequency and
distinct l-diversity, p-sensitivity, t-closeness) is closed under the union of classes (a
union's distribution is a mixture of theirs; EMD is convex in it). So any release can be
changed, without more stars, into one where every class is released as its *suppressor*
(Liang & Yuan Sec. 2: a star exactly where its rows differ): releasing a class as its
suppressor never adds stars, and classes whose suppressors coincide merge into one valid
class. A suppressor's star columns all take two or more values among its rows, so ``v*`` is
needed only if its group takes two or more values in every column of ``S`` (*useful*); the
others are dropped without losing an optimum. On sparse tables this drops most vectors with
few stars (their groups are single row types).

Complexity: ``O(2^m t_in m)`` for ``m`` QI columns and ``t_in`` row types.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic.pattern_keys import PatternKeys, popcount
from starmin.algorithms.lp.master import Blocks
from starmin.algorithms.lp.pairs import IntArray, Pairs
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import STAR


def useful_groups(patterns: PatternKeys, mask: int) -> tuple[IntArray, IntArray]:
    """``(group of each row type (t_in,), useful (g,) bool)`` for one pattern."""
    keys = patterns.keys(mask)
    _, inv = np.unique(keys, return_inverse=True)
    group = np.asarray(inv, dtype=np.int64).reshape(-1)
    g = int(group.max()) + 1 if len(group) else 0
    useful = np.ones(g, dtype=bool)
    for c in range(patterns.m):
        if (mask >> c) & 1:
            col = patterns.codes[:, c]
            lo = np.full(g, np.iinfo(np.int64).max)
            hi = np.full(g, np.iinfo(np.int64).min)
            np.minimum.at(lo, group, col)
            np.maximum.at(hi, group, col)
            useful &= lo < hi
    return group, useful


def count_useful(rt: RowTypes, pairs: Pairs) -> int:
    """Number of ``x`` variables :func:`useful_blocks` would make (same enumeration)."""
    patterns = PatternKeys(rt.codes)
    per_type = np.bincount(pairs.type_of, minlength=rt.t_in)
    total = 0
    for mask in range(1 << rt.m):
        group, useful = useful_groups(patterns, mask)
        total += int(per_type[useful[group]].sum())
    return total


Keep = Callable[[int], NDArray[np.bool_]]
"""``keep(mask)``: ``(g,)`` which vectors (groups, in projection-key order) of a pattern
may stay (e.g. reduced-cost fixing, :mod:`.milp_exact`)."""


def useful_blocks(rt: RowTypes, pairs: Pairs, *, keep: Keep | None = None,
                  max_stars: int | None = None) -> Blocks:
    """Every useful output vector (see the module docstring) with every pair of its group,
    patterns by increasing star count, groups by projection key; only those ``keep``
    accepts, with at most ``max_stars`` stars."""
    patterns = PatternKeys(rt.codes)
    m = rt.m
    vecs: list[np.ndarray] = []
    stars: list[int] = []
    bo: list[IntArray] = []
    po: list[IntArray] = []
    b = 0
    for mask in sorted(range(1 << m), key=lambda s: (popcount(s), s)):
        if max_stars is not None and popcount(mask) > max_stars:
            break
        group, useful = useful_groups(patterns, mask)
        if keep is not None and useful.any():
            useful &= keep(mask)
        pg = group[pairs.type_of]
        live = useful[pg]
        if not live.any():
            continue
        idx = np.nonzero(live)[0]
        order = idx[np.argsort(pg[idx], kind="stable")]
        gs = pg[order]
        heads = np.concatenate([[0], np.nonzero(np.diff(gs))[0] + 1])
        starred = np.array([(mask >> c) & 1 for c in range(m)], dtype=bool)
        for h, ps in zip(heads, np.split(order, heads[1:]), strict=True):
            v = rt.codes[pairs.type_of[order[h]]].astype(np.int32).copy()
            v[starred] = STAR
            vecs.append(v)
            stars.append(int(starred.sum()))
            po.append(ps.astype(np.int64))
            bo.append(np.full(len(ps), b, dtype=np.int64))
            b += 1
    empty = np.zeros(0, dtype=np.int64)
    return Blocks(np.array(vecs, dtype=np.int32).reshape(-1, m),
                  np.array(stars, dtype=np.int64),
                  np.concatenate(bo) if bo else empty, np.concatenate(po) if po else empty)
