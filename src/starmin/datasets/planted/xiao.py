"""Xiao, Yi & Tao's reduction from 3-dimensional matching to 3-diversity (Sec. 4, Lemma 3).

X. Xiao, K. Yi and Y. Tao, "The Hardness and Approximation Algorithms for L-Diversity", EDBT
2010. From ``d >= n`` distinct points of ``D_1 x D_2 x D_3`` (``|D_i| = n``) the table has
``3n`` rows (one per coordinate value ``v_j``), ``d`` QI attributes ``A_1..A_d`` (one per point)
and a sensitive attribute ``B`` with ``m`` distinct values (``3 <= m <= 3n``; the paper's
``m`` is the number of sensitive values, its ``d`` the number of QI attributes). Row ``j`` has
``B = u`` (chosen by the paper's case analysis so that rows from different domains differ and
exactly ``m`` values occur) and ``A_i = 0`` if ``v_j`` is a coordinate of ``p_i``, else ``u``.

How the optimum is known: Property 4 (from Properties 1-3, which need the points distinct)
says *every* 3-diverse generalization has at least ``3n(d - 1)`` stars; Lemma 3's only-if
direction turns a perfect matching into a 3-diverse generalization with exactly
``3n(d - 1)`` stars. So with a planted matching the optimum is ``3n(d - 1)``; without, it is
at least that (more iff no matching exists, Lemma 3's if direction).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from starmin.datasets.planted import draws
from starmin.datasets.planted.assemble import assemble, refuse, whole
from starmin.datasets.planted.draws import Edge
from starmin.datasets.planted.instance import Optimum, PlantedInstance

PAPER = "Xiao, Yi & Tao, The Hardness and Approximation Algorithms for L-Diversity, EDBT 2010"


def sensitive_value(j: int, n: int, m: int) -> int:
    """The sensitive value ``u`` of row ``j`` (1-based; ``D_1 = 1..n``, ``D_2 = n+1..2n``,
    ``D_3 = 2n+1..3n``) for ``m`` distinct values: Sec. 4's three cases."""
    if j <= m - 2:
        return j
    if m - 1 > 2 * n:
        return m - 1 if j <= 3 * n - 1 else m
    if m - 1 > n:
        return m - 1 if j <= 2 * n else m
    if j <= n:
        return m - 2
    return m - 1 if j <= 2 * n else m


def lemma3_rows(n: int, points: Sequence[Edge], m: int) -> list[list[int]]:
    """The table of Sec. 4 in the paper's order: rows ``v_1..v_3n``, columns ``A_1..A_d``
    then ``B`` (Figure 1b for Figure 1a's points and ``m = 8``)."""
    out = []
    for j in range(1, 3 * n + 1):
        u = sensitive_value(j, n, m)
        out.append([0 if j in p else u for p in points] + [u])
    return out


def lemma3(size: object, seed: int, plant: bool, params: dict[str, Any]) -> PlantedInstance:
    """3D matching -> 3-diversity (Lemma 3): ``3n`` rows, ``d`` QI attributes, ``m``
    sensitive values; optimum ``3n(d - 1)`` when a matching is planted."""
    n = whole("size", size)
    if n < 1:
        raise refuse("size", size, "|D_1| = |D_2| = |D_3| = n must be >= 1", 4)
    d = whole("edges", params.get("edges", min(2 * n, n ** 3)))
    least = n if plant else 1
    if not least <= d <= n ** 3:
        raise refuse("edges", d, f"the number d of points must be between {least} and "
                     f"n^3 = {n ** 3}", min(2 * n, n ** 3))
    m = whole("values", params.get("values", 3))
    if not 3 <= m <= 3 * n:
        raise refuse("values", m, f"the number m of sensitive values must be between l = 3 "
                     f"and 3n = {3 * n}", 3)
    rng = random.Random(seed)
    points, matching = draws.three_d_matching(rng, n, d, plant)
    value = 3 * n * (d - 1)
    if matching is not None:
        opt = Optimum(value, value, value, "Lemma 3 'only if': the planted matching gives a "
                      "3-diverse release with 3n(d-1) stars; Property 4: every 3-diverse "
                      "release has >= 3n(d-1)")
        witness: list[list[int]] | None = [[j - 1 for j in p] for p in matching]
    else:
        opt = Optimum(None, value, None, "Property 4: every 3-diverse release has >= "
                      "3n(d-1) stars, with equality iff the points hold a 3D matching "
                      "(Lemma 3; unknown here)")
        witness = None
    return assemble(
        rng, family="xiao-lemma3", title="3D matching -> 3-diversity",
        reference=f"{PAPER}, Sec. 4, Lemma 3 (Properties 1-4, Figure 1)", size=n,
        parameters={"edges": d, "values": m}, seed=seed, planted=plant,
        qi=[f"A{i}" for i in range(1, d + 1)], sensitive=("B",),
        rows=lemma3_rows(n, points, m), model_params={"l": 3}, optimum=opt, witness=witness,
        source={"D1": [1, n], "D2": [n + 1, 2 * n], "D3": [2 * n + 1, 3 * n],
                "points": [list(p) for p in points],
                "matching": None if matching is None else [list(p) for p in matching]})

