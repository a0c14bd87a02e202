"""A start for :mod:`.merge_repair` made of small classes that already satisfy the model.

Why. Pattern-packing's start (:mod:`.pattern_packing`) forms k-anonymous classes with the
fewest stars, blind to the sensitive values; merge-repair then has to merge them until they are
diverse or close, and the merged classes are large and starred in many columns. The optimal
releases of l-diversity and t-closeness instances that the exact MILP solves
(:mod:`starmin.algorithms.lp.milp_exact`) look different: many classes of about the smallest
size the model allows (``l`` rows with distinct values for frequency ``l``), each of rows that
agree on most columns. This start builds classes of that shape greedily, one at a time.

Greedy (deterministic; ``seed`` is not used: every choice is broken by the row types' order).

1. A row type whose rows satisfy the model on their own is a class (no stars).
2. The other row types, in lexicographic order of their QI vectors, seed classes in turn. A
   class grows row by row until it satisfies the model: among the row types with rows left
   that add the fewest new stars (columns where their value differs from the class's kept
   value), a row of the sensitive key the class lacks most is taken. A key's *need* is
   ``q_s (size + 1) - h_s`` (``q`` the table's distribution over sensitive keys, ``h`` the
   class's counts): keys under their share of the table are wanted, the most common first,
   which keeps the rows left over as mixed as the table. Ties go to the row type first in
   order.
3. A finished class is taken again as many times as its row types' rows left allow (the
   copies have its vectors, so they are one class with it; the same histogram scaled
   satisfies every model here): with many rows per row type (a table repeated, 1M rows of
   adult) the work then grows with the row types, not the rows.
4. When no rows are left for a class that does not satisfy the model yet, its rows stay one
   (violating) class; merge-repair's repair merges it (every model is closed under union).

Work: each class scans the row types with rows left once per change of its kept columns
(``O(t_in m)``), and each added row looks at the candidate row types of the fewest new stars;
in total ``O(g t_in m)`` for ``g`` classes in the worst case.

References: Liang & Yuan, Sec. 2 (a class is released as its suppressor; models closed under
union); Xiao, Yi & Tao, EDBT 2010, Lemma 1 (l-eligibility is closed under union); the shape of
the optima follows from the MILP of Liang & Yuan Thm 9.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic._merge_state import IntArray, Judge
from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import Guarantee, ReleasePlan

Group = tuple[IntArray, IntArray, IntArray]


def diverse_plan(rt: RowTypes, judge: Judge, k: int, method: str,
                 guarantee: Guarantee) -> ReleasePlan:
    """The start partition of the module docstring as a plan; ``k`` is the smallest class
    size worth judging (the model's implied ``k``, :func:`._start.start_size`)."""
    rem: IntArray = rt.counts.astype(np.int64).copy()
    q = rem.sum(axis=0) / max(rt.n, 1)
    groups: list[Group] = []
    whole = judge(rem) & (rem.sum(axis=1) > 0)
    for t in np.flatnonzero(whole).tolist():
        keys = np.flatnonzero(rem[t])
        groups.append((np.full(len(keys), t, dtype=np.int64), keys, rem[t, keys].copy()))
    rem[whole] = 0
    order = (np.lexsort(rt.codes.T[::-1]).astype(np.int64) if rt.m
             else np.arange(rt.t_in, dtype=np.int64))
    pool = _Pool(rt.codes, order, rem.sum(axis=1))
    for t0 in order.tolist():
        while pool.left[t0] > 0:
            ti, ki, cnt = _grow(rt, rem, pool, q, t0, judge, k)
            # step 3: the same class again. Rows left for it mean _grow stopped because the
            # class satisfies the model (it stops early only when no rows are left at all)
            copies = int((rem[ti, ki] // cnt).min())
            if copies:
                rem[ti, ki] -= copies * cnt
                for t, c in zip(ti.tolist(), (copies * cnt).tolist(), strict=True):
                    pool.used(t, c)
                cnt = cnt * (copies + 1)
            groups.append((ti, ki, cnt))
    return ReleasePlan.from_groups(rt, groups, method, guarantee)


class _Pool:
    """The row types with rows left, in order, and their codes; compacted when a quarter of
    them has run out (so a class's scan costs ``O(t_in m)`` at most)."""

    def __init__(self, codes: NDArray[np.integer], order: IntArray, left: IntArray) -> None:
        self.left = left
        self.types = order[left[order] > 0]
        self.codes = np.ascontiguousarray(codes[self.types].T)   # (m, alive): column-major
        self.dead = 0

    def used(self, t: int, c: int = 1) -> None:
        """Note that row type ``t`` lost ``c`` rows (compact when many ran out)."""
        self.left[t] -= c
        if self.left[t] == 0:
            self.dead += 1
            if 4 * self.dead > len(self.types):
                keep = self.left[self.types] > 0
                self.types, self.codes, self.dead = self.types[keep], self.codes[:, keep], 0

    def new_stars(self, vals: IntArray, kept: np.ndarray) -> NDArray[np.uint8]:
        """Per row type left: the kept columns where its value differs from ``vals``."""
        out = np.zeros(self.codes.shape[1], dtype=np.uint8)
        for j in np.flatnonzero(kept).tolist():
            out += self.codes[j] != vals[j]
        return out


def _grow(rt: RowTypes, rem: IntArray, pool: _Pool, q: np.ndarray, t0: int, judge: Judge,
          k: int) -> Group:
    """One class seeded by row type ``t0`` (step 2 of the module docstring); takes its rows
    out of ``rem`` and ``pool``."""
    vals = rt.codes[t0]
    kept = np.ones(rt.m, dtype=bool)
    h = np.zeros(rt.s, dtype=np.int64)
    taken: dict[tuple[int, int], int] = {}
    alive = pool.types
    extra = pool.new_stars(vals, kept)                  # new stars each would add
    size = 0
    while True:
        need = q * (size + 1) - h
        pick = _pick(rem, alive, extra, need)
        if pick is None:
            break
        t, s, new_stars = pick
        rem[t, s] -= 1
        pool.used(t)
        h[s] += 1
        size += 1
        taken[(t, s)] = taken.get((t, s), 0) + 1
        if new_stars:
            kept &= rt.codes[t] == vals
            alive = pool.types
            extra = pool.new_stars(vals, kept)
        if size >= k and bool(judge(h[None, :])[0]):
            break
    items = sorted(taken.items())
    return (np.array([ts[0] for ts, _ in items], dtype=np.int64),
            np.array([ts[1] for ts, _ in items], dtype=np.int64),
            np.array([c for _, c in items], dtype=np.int64))


def _pick(rem: IntArray, alive: IntArray, extra: NDArray[np.uint8], need: np.ndarray
          ) -> tuple[int, int, int] | None:
    """The next row: at the fewest new stars with a wanted key (need > 0) left, the row type
    first in order holding the most wanted key; with no wanted key left anywhere, the most
    needed key at the fewest new stars. ``None`` when no rows are left. ``alive`` is in the
    row types' order, ``extra`` their new stars."""
    wanted = np.flatnonzero(need > 0)
    wanted = wanted[np.argsort(-need[wanted], kind="stable")]
    fallback: tuple[int, int, int] | None = None
    for stars in range(int(extra.max()) + 1 if len(extra) else 0):
        types = alive[extra == stars]
        if not len(types):
            continue
        if len(wanted):
            sub = rem[np.ix_(types, wanted)] > 0
            hit = sub.any(axis=0)
            if hit.any():
                j = int(np.argmax(hit))                   # the most wanted key present
                i = int(np.argmax(sub[:, j]))             # the first row type holding it
                return int(types[i]), int(wanted[j]), int(stars)
        if fallback is None:
            block = rem[types]
            has = block.sum(axis=0) > 0
            if has.any():
                s = int(np.flatnonzero(has)[np.argmax(need[has])])
                i = int(np.argmax(block[:, s] > 0))
                fallback = (int(types[i]), s, int(stars))
    return fallback
