"""The LP core's unit of data: a *pair* ``(row type v, sensitive key s)`` with ``c(v, s) > 0``
rows (the coverage constraints of Liang & Yuan Thm 9 are one per pair)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes

IntArray = NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class Pairs:
    """``type_of``, ``key_of``, ``count``: ``(P,)`` arrays over the nonzero cells of
    ``rt.counts``, in row-major order (by row type, then key)."""

    type_of: IntArray
    key_of: IntArray
    count: IntArray

    @classmethod
    def of(cls, rt: RowTypes) -> Pairs:
        t, s = np.nonzero(rt.counts)
        return cls(t.astype(np.int64), s.astype(np.int64), rt.counts[t, s].astype(np.int64))

    @property
    def P(self) -> int:
        return len(self.count)
