"""Classes of identical QI vectors over row types, as the k-anonymity approximations see them
(Liang & Yuan's m-approximation, Meyerson & Williams' covers): a row type's rows belong to
the class of its QI vector, so a :class:`RowTypes` with repeated vectors is merged first."""

from __future__ import annotations

from functools import cached_property
from itertools import pairwise

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import unique_rows

Group = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


class Classes:
    """Classes of identical QI vectors (robust to a :class:`RowTypes` with repeated vectors).

    ``vec`` ``(R, m)``; ``size`` ``(R,)`` rows per class; ``cells[r]`` the ``(type, key, count)``
    cells of class ``r`` (its rows, by row type and sensitive key). ``entries`` holds the same
    cells as three flat arrays, class after class, and ``of_entry`` each one's class."""

    def __init__(self, rt: RowTypes) -> None:
        if rt.t_in:  # np.unique(rt.codes, axis=0, return_inverse=True), by a lexsort
            self.vec, inv = unique_rows(rt.codes)
        else:
            self.vec, inv = rt.codes, np.zeros(0, dtype=np.int64)
        inv = np.asarray(inv).reshape(-1)  # (t_in,) class of each row type
        self.size = np.bincount(inv, weights=rt.sizes, minlength=len(self.vec)).astype(np.int64)
        t, s = np.nonzero(rt.counts)
        cls = inv[t]
        order = np.argsort(cls, kind="stable")
        t, s, cls = t[order], s[order], cls[order]
        self._bounds = np.searchsorted(cls, np.arange(len(self.vec) + 1))
        self.entries: Group = (t.astype(np.int64), s.astype(np.int64), rt.counts[t, s])
        self.of_entry: NDArray[np.int64] = cls.astype(np.int64, copy=False)

    @cached_property
    def cells(self) -> list[Group]:
        t, s, cnt = self.entries
        return [(t[a:b].copy(), s[a:b].copy(), cnt[a:b]) for a, b in pairwise(self._bounds)]

    @property
    def R(self) -> int:
        return len(self.size)

    def whole(self, r: int) -> Group:
        return self.cells[r]

    def take(self, r: int, rows: int) -> tuple[Group, Group]:
        """Split class ``r`` into ``rows`` rows (cell by cell, in order) and the rest."""
        t, s, cnt = self.cells[r]
        before = np.concatenate([[0], np.cumsum(cnt)[:-1]])
        taken = np.clip(rows - before, 0, cnt)
        return (t, s, taken), (t, s, cnt - taken)
