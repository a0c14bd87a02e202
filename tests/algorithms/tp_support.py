"""Shared helpers of the TP / TP+ / Hilbert tests.

- :func:`optimum`: an independent oracle for tiny tables (n <= 10 rows): a DP over subsets
  of rows giving both the fewest stars and the fewest suppressed tuples of any l-diverse
  generalization (Xiao et al. Problems 1 and 2).
- :func:`l_eligible_table`: a random l-eligible table.
- :func:`reference_phase_one`: phase one done literally, one tuple at a time (Sec. 5.2).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from tests.helpers.tables import random_table


def l_eligible_table(seed: int, n: int, l: int, m: int = 3, values: int = 2,
                     s: int | None = None) -> RowTypes:
    """A random table (``n`` rows, ``m`` QI columns) that is l-eligible as a whole."""
    for k in range(1000):
        rt = random_table(seed * 1000 + k, n, m=m, values=values, s=s or l + 1)
        tot = rt.counts.sum(axis=0)
        if tot.max() * l <= tot.sum():
            return rt
    raise AssertionError("no l-eligible table found")


def optimum(rt: RowTypes, l: int) -> tuple[int, int]:
    """``(fewest stars, fewest suppressed tuples)`` of any l-diverse generalization.

    Every generalization is a partition of the rows into l-eligible groups, each released
    as its suppressor; a group costs ``|g| x`` (non-constant columns) stars and suppresses
    its ``|g|`` tuples when that number is positive."""
    _, keys, codes = rt.expand()
    n = len(keys)
    assert n <= 10, "the subset DP is for tiny tables"
    full = (1 << n) - 1
    stars = np.zeros(full + 1, dtype=np.int64)
    tuples = np.zeros(full + 1, dtype=np.int64)
    ok = np.zeros(full + 1, dtype=bool)
    for mask in range(1, full + 1):
        rows = [i for i in range(n) if mask >> i & 1]
        hist = np.bincount(keys[rows], minlength=rt.s)
        ok[mask] = hist.max() * l <= len(rows)
        differ = int((codes[rows] != codes[rows[0]]).any(axis=0).sum())
        stars[mask] = len(rows) * differ
        tuples[mask] = len(rows) if differ else 0
    best = []
    for cost in (stars, tuples):
        b = [0] + [1 << 60] * full
        for mask in range(1, full + 1):
            low = mask & -mask
            rest = mask ^ low
            sub = rest
            while True:  # every subset of rest, plus the lowest row
                g = sub | low
                if ok[g] and cost[g] + b[mask ^ g] < b[mask]:
                    b[mask] = int(cost[g]) + b[mask ^ g]
                if sub == 0:
                    break
                sub = (sub - 1) & rest
        best.append(b[full])
    return best[0], best[1]


def reference_phase_one(counts: NDArray[np.int64], l: int) -> NDArray[np.int64]:
    """Phase one literally (Sec. 5.2): remove a tuple from a pillar until l-eligible."""
    kept = np.array(counts, dtype=np.int64, copy=True)
    for q in kept:
        while q.sum() > 0 and q.sum() < l * q.max():
            q[int(np.argmax(q))] -= 1
    return kept

