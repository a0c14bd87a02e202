"""The cells exact subset methods count rows in, and handing rows back out to groups.

Brute force (:mod:`.brute_force`) and the balanced-split recursion (:mod:`.balanced_split`)
both describe a group of rows as a count per *cell*: per row type for models that ignore the
sensitive attribute, per non-empty (row type, sensitive key) pair otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel

IntArray = NDArray[np.int64]
Group = tuple[IntArray, IntArray, IntArray]


def cells(model: PrivacyModel, rt: RowTypes) -> tuple[IntArray, IntArray, IntArray]:
    """``(d,)`` row type, sensitive key (-1: any) and count of each cell."""
    if not model.uses_sensitive:
        t = np.arange(rt.t_in, dtype=np.int64)
        return t, np.full(rt.t_in, -1, dtype=np.int64), rt.sizes.astype(np.int64)
    t, s = np.nonzero(rt.counts)
    return t.astype(np.int64), s.astype(np.int64), rt.counts[t, s].astype(np.int64)


def hand_out(rt: RowTypes, cell_t: IntArray, cell_s: IntArray,
             groups: Iterable[IntArray]) -> list[Group]:
    """Each group's counts per cell as ``(type, key, count)`` arrays: a cell without a key
    (-1) hands out the rows of its row type key by key, from what earlier groups left."""
    remaining = rt.counts.copy()  # (t_in, s): rows not yet handed to a group
    out: list[Group] = []
    for g in groups:
        ti: list[int] = []
        ki: list[int] = []
        cnt: list[int] = []
        for j in np.flatnonzero(g).tolist():
            t, need = int(cell_t[j]), int(g[j])
            keys = [int(cell_s[j])] if cell_s[j] >= 0 else range(rt.s)
            for key in keys:
                take = min(need, int(remaining[t, key]))
                if take:
                    ti.append(t)
                    ki.append(key)
                    cnt.append(take)
                    remaining[t, key] -= take
                    need -= take
        out.append((np.array(ti, np.int64), np.array(ki, np.int64), np.array(cnt, np.int64)))
    return out
