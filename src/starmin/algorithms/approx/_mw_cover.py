"""What Meyerson & Williams' two approximations share (Sec. 4): rows as classes, distances,
the cover, **Reduce** (Sec. 4.2.2) and the release of the final partition (Sec. 4.2.4, step 3).

Rows, not row types. The paper's ``V`` is the table's ``n`` rows (its Def. 2.2 indexes them, and
``t(V)`` is a multiset); its cost, "the number of vector coordinates suppressed", is starmin's
star count (Liang & Yuan Sec. 2). Rows with the same QI vector are interchangeable, so a set of
rows is stored as a *count per class* (class: one distinct QI vector, :class:`Classes`; a
non-canonical :class:`RowTypes` with repeated vectors is merged first). Every step below is the
paper's step on *some* choice of which rows of a class a set holds; the guarantees depend on the
counts only.

Reduce on counts. A cover holds ``x[S][c]`` rows of class ``c`` in set ``S`` (``<= |c|``), and
``sum_S x[S][c] >= |c|``; its *excess* on ``c`` is the difference. Two sets can be made to share
a row of ``c`` exactly when the excess is positive, so the paper's step "``v in S_i n S_j``"
becomes "``c`` has excess, ``S_i`` and ``S_j`` both hold rows of ``c``". Then, as in the paper:
if a set is larger than ``k`` the row leaves the larger set (its diameter cannot grow); else both
have ``k`` rows and are replaced by their union (at most ``2k - 1`` rows, sharing a row, so its
diameter is at most the sum of theirs, Fig. 1). Each step lowers the total count by at least
one; at excess zero everywhere the sets are a partition with sizes in ``[k, 2k - 1]`` (or one
whole class of zero diameter, see the algorithms), and the diameter sum did not grow.

Free choices the paper leaves open (which overlap first, which set loses the row) are fixed so
as to save stars: classes in index order; the row leaves the largest holder, preferring one
that holds a single row of the class (the class then leaves that set, which may drop a starred
column); unions join the two lowest-numbered holders.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.approx._classes import Classes as _Classes
from starmin.algorithms.approx._classes import Group

Counts = dict[int, int]
"""A set of rows: class -> number of rows of that class."""


class Classes(_Classes):
    """:class:`~._classes.Classes` with the Hamming distances of the covers."""

    def distances(self) -> NDArray[np.int16]:
        """``(R, R)`` Hamming distances ``d(u, v)`` (Def. 4.1: columns where u and v differ)."""
        R, m = self.vec.shape
        D = np.zeros((R, R), dtype=np.int16)
        for j in range(m):
            col = self.vec[:, j]
            D += col[:, None] != col[None, :]
        return D


def harmonic(n: int) -> Fraction:
    """``H(n) = 1 + 1/2 + ... + 1/n`` (the greedy set cover's ratio for sets of ``<= n``)."""
    return sum((Fraction(1, i) for i in range(1, n + 1)), Fraction(0))


def excess(cover: list[Counts], size: NDArray[np.int64]) -> NDArray[np.int64]:
    """``(R,)`` rows of each class held by the cover beyond the class's size."""
    held = np.zeros(len(size), dtype=np.int64)
    for S in cover:
        for c, x in S.items():
            held[c] += x
    return held - size


def reduce_cover(cover: list[Counts], size: NDArray[np.int64], k: int) -> list[Counts]:
    """Repeat the paper's **Reduce** (Sec. 4.2.2) until no two sets overlap; return the
    partition. ``cover`` holds every row (``excess >= 0``), each set ``>= k`` rows."""
    sets: dict[int, Counts] = {i: dict(S) for i, S in enumerate(cover)}
    total = {i: sum(S.values()) for i, S in sets.items()}
    holders: list[set[int]] = [set() for _ in range(len(size))]
    for i, S in sets.items():
        for c in S:
            holders[c].add(i)
    ex = excess(cover, size)
    if (ex < 0).any():
        raise AssertionError("not a cover: some row is in no set")
    for c in np.flatnonzero(ex > 0).tolist():  # a step never raises any class's excess
        while ex[c] > 0:
            a = min(holders[c], key=lambda i: (-total[i], sets[i][c], i))
            if total[a] > k:  # the row leaves the larger set
                _take(sets, holders, a, c, 1)
                total[a] -= 1
                ex[c] -= 1
                continue
            # every holder has exactly k rows: join the two lowest-numbered ones
            a, b = sorted(holders[c])[:2]
            for d, xb in sets[b].items():
                xa = sets[a].get(d, 0)
                shared = max(0, xa + xb - int(size[d]))  # rows of d they must share
                if d == c:
                    shared = max(1, shared)  # and the row of c the step is about
                sets[a][d] = xa + xb - shared
                ex[d] -= shared
                holders[d].discard(b)
                holders[d].add(a)
            total[a] = sum(sets[a].values())
            del sets[b], total[b]
    return [sets[i] for i in sorted(sets)]


def _take(sets: dict[int, Counts], holders: list[set[int]], i: int, c: int, x: int) -> None:
    sets[i][c] -= x
    if sets[i][c] == 0:
        del sets[i][c]
        holders[c].discard(i)


def release_groups(C: Classes, partition: list[Counts]) -> list[Group]:
    """Step 3 (Sec. 4.2.4): each set of the partition is released as its suppressor (the
    fewest stars making its rows identical); here as ``(type, key, count)`` groups for
    :meth:`ReleasePlan.from_groups`, handing each class's rows out cell by cell."""
    left = [cnt.copy() for _, _, cnt in C.cells]
    groups: list[Group] = []
    for S in partition:
        ti: list[int] = []
        ki: list[int] = []
        cnt: list[int] = []
        for c in sorted(S):
            need = S[c]
            t, s, _ = C.cells[c]
            for j in range(len(t)):
                take = min(need, int(left[c][j]))
                if take:
                    ti.append(int(t[j]))
                    ki.append(int(s[j]))
                    cnt.append(take)
                    left[c][j] -= take
                    need -= take
            if need:
                raise AssertionError("the partition holds more rows of a class than it has")
        groups.append((np.array(ti, np.int64), np.array(ki, np.int64), np.array(cnt, np.int64)))
    if any(x.any() for x in left):
        raise AssertionError("the partition misses rows")
    return groups


def diameter_sum(D: NDArray[np.integer], partition: list[Counts]) -> int:
    """``d(Pi)``: the sum of the sets' diameters (Sec. 4)."""
    total = 0
    for S in partition:
        members = np.fromiter(S, dtype=np.int64)
        total += int(D[np.ix_(members, members)].max()) if len(members) > 1 else 0
    return total
