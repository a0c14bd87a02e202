"""A start for :mod:`.merge_repair`, made for frequency l-diversity: TP's phase one, level by level.

Why. The diverse start (:mod:`._diverse_start`) grows classes one row at a time and never
looks at how many stars a row needs at least. The lower bound of
:mod:`starmin.algorithms.l_diversity_bound` says where the stars go: every row type keeps its
largest l-eligible part star-free (TP's phase one), and a row that leaves it needs the stars
of the first vector whose group can hold an l-eligible class (:mod:`..diversity_levels`).
On adult the LP-rounded releases of frequency l = 2 (:mod:`..lp.lp_rounding`) put four in
five of their starred rows at one star; merge-repair's diverse start, two in three.
This start puts each leaving row at the fewest stars where an l-eligible class forms.

Greedy (deterministic; ties broken by the row types' and patterns' order).

1. *Level 0.* Every row type keeps ``min(c(v, u), h*(v))`` rows of each value ``u``
   star-free, its phase-one height (Xiao, Yi & Tao, Sec. 5.2): the largest l-eligible part.
   The rest of its rows are *free*.
2. *Level j = 1 .. m.* For frequency l-diversity (and the models it implies, below) and
   ``j <= lp_levels`` (default 2), the
   placement LP of :mod:`._level_lp` first decides the level's groups together and forms
   its classes; for distinct l-diversity (``distinct``, stop 33) the LP of
   :mod:`._distinct_lp` does, whose classes need ``l`` values (merge-repair passes its
   ``distinct_lp_levels`` as ``lp_levels`` there: every level by default, stop 35).
   Then, for every pattern of ``j`` stars (most rows placed first) and every group of row
   types that agree outside it, the free rows of the group are pooled and phase one is
   applied to the pool: its largest l-eligible part becomes one class (released as the
   suppressor of its row types, so with ``j`` stars or fewer), its rows no longer free.
   Within a group each value's rows are taken from the row types in order.
3. What is still free after the all-star level (no l-eligible part is left) goes back to
   its row type's star-free class, which then violates the model; merge-repair's repair
   ejects or merges it. (As one all-star class instead, it cost adult 26-40 % more stars
   after the repair.)

A model that frequency l-diversity implies (distinct l, entropy l, recursive (c, l) with
``c > 1``; :func:`.merge_repair.implied_l`) is given its ``l`` too: a row type or a pool
becomes a class whole when it satisfies the model (the model's judge), else its largest
l-eligible part does, which satisfies the model as well; the placement LPs run as for
frequency l-diversity. For entropy l and recursive (c, l) (``widen``,
:func:`.merge_repair.capped_parts`) a pool failing the model keeps instead its widest
capped part ``min(pool, h)`` that satisfies it (``h`` found by bisection, never below phase
one's height, so never fewer rows; adult recursive (4, 3): 19,496 -> 19,278 stars, entropy
l = 4: 29,015 -> 27,611). The passing caps are ``1 .. h*``:

- *Recursive (c, l)*, ``r_1 < c (r_l + r_(l+1) + ...)``: capping keeps the values' order,
  so with ``n`` sorted the condition reads ``g(h) = c sum_(i >= l) min(n_i, h) - min(n_1,
  h) > 0``; ``g`` is concave on ``[0, n_1]`` (a sum of concave terms less a linear one) with
  ``g(0) = 0``, so where it is positive is an interval ``(0, h*]``.
- *Entropy l*, entropy ``>= log l``: for ``h1 < h2`` the shares of ``min(n, h2)`` majorize
  those of ``min(n, h1)`` (the ``k`` largest shares ``A_k(h) / S(h)`` never fall as ``h``
  grows: with ``b`` values above ``h``, ``d/dh`` is ``(k S - b k h) / S^2 >= 0`` for ``k <=
  b`` and ``b (S - A_k) / S^2 >= 0`` after), and entropy is Schur-concave, so it never rises
  with ``h``.

Any other model (``l`` not given): a row type, or a group's pool, becomes a class when it
satisfies the model as a whole, else nothing of it does; so every class formed at a level
satisfies the model. With ``close`` (t-closeness, alone or in a conjunction; stop 32) a pool
failing whole keeps instead its largest t-close part that :mod:`._close_part` finds (the
judge checks it), t-closeness's analogue of phase one. Merge-repair's ``auto`` uses this
start for frequency l-diversity and the models it implies (:func:`.merge_repair.level_suits`,
:func:`.merge_repair.implied_suits`) and, with ``close``, for t-closeness
(:func:`.merge_repair.close_suits`; under the equal distance the placement LP of
:mod:`._close_lp` first forms level 1's classes; adult, ``auto``, t = 0.1 / 0.2: 120,939 /
94,045 -> 108,864 / 83,854 stars).

Work: ``O(2^m t_in (m + s))`` (every pattern groups the row types once), as the lower
bound's level enumeration; ``m`` is at most 16 here (:func:`level_suits`). The placement LPs
add an interior-point solve of at most :data:`._level_lp.MAX_NONZEROS` nonzeros per LP level
(adult: about 1-3 s in all).

References: Xiao, Yi & Tao, EDBT 2010, Sec. 5.2 (phase one) and Lemma 1 (l-eligibility is
closed under union); Liang & Yuan, Sec. 2 (a class is released as its suppressor).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from starmin.algorithms.approx.tp_phases import phase_one_heights
from starmin.algorithms.heuristic._close_lp import CLOSE_LP_LEVELS, CloseSpec, close_lp_classes
from starmin.algorithms.heuristic._close_part import whole_or_close
from starmin.algorithms.heuristic._distinct_lp import (
    JOINT_LEVELS,
    distinct_lp_classes,
    joint_lp_classes,
)
from starmin.algorithms.heuristic._frequency_joint import MIN_L as FREQUENCY_JOINT_MIN_L
from starmin.algorithms.heuristic._frequency_joint import joint_classes
from starmin.algorithms.heuristic._level_lp import LP_LEVELS, level_lp_classes, whole_passing
from starmin.algorithms.heuristic._merge_state import Judge
from starmin.algorithms.heuristic.pattern_keys import (
    IntArray,
    PatternKeys,
    key_runs,
    masks_of_level,
)
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import Guarantee, ReleasePlan

Group = tuple[IntArray, IntArray, IntArray]

MAX_M = 16
"""Widest table the start takes (``2^m`` patterns are enumerated)."""


def level_plan(rt: RowTypes, judge: Judge, l: int | None, method: str,
               guarantee: Guarantee, lp_levels: int = LP_LEVELS, widen: bool = False,
               close: CloseSpec | None = None, distinct: bool = False,
               joint: bool = False) -> ReleasePlan:
    """The start partition of the module docstring as a plan. ``l``: frequency l-diversity's
    or that of a model it implies (one sensitive column), whose largest l-eligible part phase
    one finds; without it a row type or a pool is taken whole when ``judge`` passes it, else
    not at all. ``lp_levels``: with ``l``, levels ``1..lp_levels`` first form the classes of
    the placement LP (:mod:`._level_lp`), then the greedy takes what is left. ``widen``
    (with ``l``; entropy and recursive l-diversity): a pool failing the model keeps its
    widest capped part the model passes instead of phase one's. ``close`` (without ``l``;
    t-closeness): a pool failing the model keeps the t-close part of :mod:`._close_part`.
    ``distinct`` (with ``l``; distinct l-diversity): the placement LPs are those of
    :mod:`._distinct_lp`, whose classes need ``l`` values, not frequency's; with ``joint``
    (and ``lp_levels >= 2``) its joint LP decides levels 1 and 2 together first
    (:func:`._distinct_lp.joint_lp_classes`; when a work limit stops it, each level gets its
    own LP). Without ``distinct`` (frequency l-diversity, and with ``widen`` entropy and
    recursive l; ``l >= 3``, :data:`._frequency_joint.MIN_L`) ``joint`` does the same with
    frequency's joint LP (:mod:`._frequency_joint`, stop 39), whose classes are l-eligible
    as the per-level LPs' are."""
    counts = rt.counts.astype(np.int64)
    part = partial(_part, judge=judge, l=l, widen=widen, close=close)
    kept = part(counts)
    free = counts - kept
    groups: list[Group] = []
    for t in np.flatnonzero(kept.sum(axis=1)).tolist():
        keys = np.flatnonzero(kept[t])
        groups.append((np.full(len(keys), t, dtype=np.int64), keys, kept[t, keys].copy()))
    patterns = PatternKeys(rt.codes)
    joined = 0  # the levels the joint LP decided
    if l is not None and joint and lp_levels >= JOINT_LEVELS and free.any() and (
            distinct or l >= FREQUENCY_JOINT_MIN_L):
        formed = (joint_lp_classes(patterns, free, l, judge, rt.m) if distinct
                  else joint_classes(patterns, free, l, rt.m))
        if formed is not None:
            groups.extend(formed)
            joined = JOINT_LEVELS
    for j in range(1, rt.m + 1):
        masks = masks_of_level(rt.m, j)
        if not free.any():
            break
        if j <= joined:
            pass  # the joint LP formed this level's classes; the greedy takes the rest
        elif l is not None and j <= lp_levels and distinct:
            groups.extend(distinct_lp_classes(patterns, free, l, judge, j, rt.m) or [])
        elif l is not None and j <= lp_levels:
            groups.extend(level_lp_classes(patterns, free, l, j, rt.m) or [])
        elif close is not None and close.lp and j <= min(lp_levels, CLOSE_LP_LEVELS):
            groups.extend(close_lp_classes(patterns, free, close, judge, j, rt.m) or [])
        groups.extend(greedy_level(patterns, free, part, masks))
    for t in np.flatnonzero(free.sum(axis=1)).tolist():  # step 3: back to their row types
        keys = np.flatnonzero(free[t])
        groups.append((np.full(len(keys), t, dtype=np.int64), keys, free[t, keys].copy()))
    return ReleasePlan.from_groups(rt, groups, method, guarantee)


def greedy_level(patterns: PatternKeys, free: IntArray, part: Callable[[IntArray], IntArray],
                 masks: list[int]) -> list[Group]:
    """Step 2's greedy at one level (the patterns ``masks``): the patterns in decreasing
    order of the rows each would place, each forming its groups' classes
    (:func:`_level_classes`); their rows leave ``free``."""
    gain = [0 if (p := _pools(patterns.keys(mask), free, part)) is None
            else int(p[4].sum()) for mask in masks]  # rows each pattern would place
    groups: list[Group] = []
    for i in np.argsort(-np.array(gain), kind="stable").tolist():
        groups.extend(_level_classes(patterns.keys(masks[i]), free, part))
    return groups


def _part(pool: IntArray, judge: Judge, l: int | None, widen: bool = False,
          close: CloseSpec | None = None) -> IntArray:
    """``(g, s)``: what of each pool becomes a class: all of it when it satisfies the model,
    else (``l`` given: frequency l-diversity, or a model it implies) its largest l-eligible
    part, or with ``widen`` its widest capped part the model passes (:func:`_widest_cap`),
    else with ``close`` (t-closeness) the part of :func:`._close_part.close_parts`, else
    nothing. For frequency l-diversity the two agree
    where the model holds."""
    if l is None and close is not None:
        return whole_or_close(pool, close.o, judge, close.tv_tau)
    if l is None:
        return whole_passing(pool, judge)
    h = phase_one_heights(pool, l)
    part = np.minimum(pool, h[:, None])
    trimmed = np.flatnonzero((part != pool).any(axis=1))   # only there can the judge matter
    if len(trimmed):
        ok = judge(pool[trimmed])
        part[trimmed[ok]] = pool[trimmed[ok]]
        if widen and not ok.all():
            rest = trimmed[~ok]
            top = _widest_cap(pool[rest], h[rest], judge)
            part[rest] = np.minimum(pool[rest], top[:, None])
    return part


def _widest_cap(pool: IntArray, lo: IntArray, judge: Judge) -> IntArray:
    """``(g,)`` per pool (each failing the model whole) the largest cap ``h`` in ``[lo,
    max)`` whose part ``min(pool, h)`` the judge passes, by bisection from ``lo`` (passing,
    or 0: nothing), ``O(log max)`` judge calls. Exact when the passing caps are ``1 .. h*``
    (module docstring: entropy and recursive (c, l)); for any model the cap returned passes
    or is ``lo``."""
    lo = lo.astype(np.int64).copy()
    hi = pool.max(axis=1) - 1                              # the whole pool fails
    while (act := np.flatnonzero(lo < hi)).size:
        mid = (lo[act] + hi[act] + 1) // 2
        ok = judge(np.minimum(pool[act], mid[:, None]))
        lo[act[ok]] = mid[ok]
        hi[act[~ok]] = mid[~ok] - 1
    return lo


def _pools(key: IntArray, free: IntArray, part: Callable[[IntArray], IntArray]
           ) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray] | None:
    """One pattern's pools (step 2): the row types with free rows sorted by ``key``, the run
    (group) of each and where the runs start, their free rows, and what of each group's
    pool becomes a class (``(g, s)``); ``None`` when nothing would."""
    alive = np.flatnonzero(free.sum(axis=1))
    if len(alive) < 2:
        return None
    order, starts, gid = key_runs(key[alive])
    types = alive[order]
    block = free[types]
    take = part(np.add.reduceat(block, starts, axis=0))   # (g, s)
    if not take.any():
        return None
    return types, gid, starts, block, take


def _level_classes(key: IntArray, free: IntArray, part: Callable[[IntArray], IntArray]
                   ) -> list[Group]:
    """The classes one pattern forms (step 2): per group of equal ``key`` among the row
    types with free rows, the largest l-eligible part of the pooled free rows. Takes the
    rows out of ``free``."""
    pools = _pools(key, free, part)
    if pools is None:
        return []
    types, gid, starts, block, take = pools
    cum = np.cumsum(block, axis=0)
    before = cum - block - (cum - block)[starts][gid]  # free rows of earlier types in the group
    got = np.clip(take[gid] - before, 0, block)
    free[types] -= got
    out: list[Group] = []
    rows, cols = np.nonzero(got)
    if not len(rows):
        return out
    cuts = np.flatnonzero(np.diff(gid[rows])) + 1
    for r, c in zip(np.split(rows, cuts), np.split(cols, cuts), strict=True):
        out.append((types[r].astype(np.int64), c.astype(np.int64), got[r, c].copy()))
    return out
