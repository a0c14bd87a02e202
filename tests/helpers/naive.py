"""An independent naive optimum: enumerate every set partition of the rows (n <= 10).

It shares nothing with the brute-force DP but the model's own judgement
(:func:`starmin.models.apply.holds`): rows are expanded one by one, all set partitions are
generated as restricted-growth strings, and each group's cost is computed from its rows'
codes as Liang & Yuan define it (Sec. 2): group size x number of columns where the group's
rows do not all agree.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from starmin.data.rowtypes import RowTypes
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel

MAX_ROWS = 10


def set_partitions(n: int) -> Iterator[list[int]]:
    """Every partition of ``range(n)`` as a restricted-growth string ``a`` (row i in group a[i])."""
    a = [0] * n

    def rec(i: int, top: int) -> Iterator[list[int]]:
        if i == n:
            yield a
            return
        for b in range(top + 2):
            a[i] = b
            yield from rec(i + 1, max(top, b))

    if n == 0:
        yield []
        return
    yield from rec(1, 0)


def naive_optimum(rt: RowTypes, model: PrivacyModel) -> int | None:
    """Minimum cost over all partitions into groups satisfying ``model``; None if none."""
    _, keys, codes = rt.expand()
    n = len(keys)
    if n > MAX_ROWS:
        raise ValueError(f"naive enumeration is for n <= {MAX_ROWS} rows, got {n}")
    memo: dict[tuple[int, ...], int | None] = {}

    def group_cost(rows: tuple[int, ...]) -> int | None:
        if rows not in memo:
            kc = np.bincount(keys[list(rows)], minlength=rt.s)[None, :]
            if not holds(model, rt, kc)[0]:
                memo[rows] = None
            else:
                sub = codes[list(rows)]
                differ = sum(1 for c in range(sub.shape[1]) if len(set(sub[:, c])) > 1)
                memo[rows] = len(rows) * differ
        return memo[rows]

    best: int | None = None
    for a in set_partitions(n):
        total = 0
        for b in range(max(a) + 1 if a else 0):
            cost = group_cost(tuple(i for i in range(n) if a[i] == b))
            if cost is None:
                break
            total += cost
        else:
            if best is None or total < best:
                best = total
    return best
