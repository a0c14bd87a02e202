"""Liang & Yuan's hardness reductions (Sec. 3, Theorems 3-7) as planted-instance generators.

H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems".
Cost = stars = suppressed QI cells (Sec. 2). Starmin's releases and the paper's partitions
have the same optimum (a release's class costs at least its suppressor; groups with equal
suppressors merge into one class, which every model here allows: see
:mod:`starmin.algorithms.exact.brute_force`), so the papers' optima are starmin's.

How the optimum is known, per theorem (``n`` vertices or ``|X|``, ``m`` edges or tuples):

* **Theorem 3** (MINBISECTION -> (n/2)-anonymity). Equation (2): a partition into halves
  ``V_1, V_2`` costs ``n(|E| + |E_12|)/2``, and the proof shows both ``OPT' <= n(|E| +
  OPT)/2`` (a minimum bisection as a partition) and ``>=`` (every optimal partition is a
  bisection): ``OPT' = n(|E| + OPT)/2`` exactly. So the table's optimum is exact as soon as
  the graph's minimum bisection width is known. The planted graph is two cliques on halves
  joined by ``b <= 2(n/2 - 1)`` edges, whose minimum bisection is ``b`` (any other bisection
  moves ``s`` vertices each way and cuts ``2 s (n/2 - s) >= 2(n/2 - 1)`` clique edges,
  :func:`~starmin.datasets.planted.draws.two_cliques`): optimum ``n(|E| + b)/2``. Without
  planting (G(n, p)) the width is unknown; ``OPT' >= n|E|/2`` remains.
* **Theorem 4** ((n/2)-anonymity -> (cn)-anonymity, ``c <= 1/3``). The proof shows
  ``OPT' <= OPT`` (the two halves plus the group of new rows) and ``OPT <= OPT'`` (a group
  mixing old and new rows costs more than ``nm >= OPT``): ``OPT' = OPT``, the Theorem 3 value
  of the embedded table.
* **Theorem 5** (HALFCLIQUE -> (cn)-anonymity, ``1/3 < c < 1/2``). "Only if" gives
  ``OPT <= n'm - (n/2) C(n/2, 2)`` for a half-size clique; the "if" part shows every
  partition of cost ``<=`` that value comes from such a clique, and its computation --
  ``cost = n'm - |V_1| |E_22|`` with ``|V_1| |E_22| <= f(|V_2|) <= f(n/2)``, ``f`` increasing
  -- bounds *every* partition from below by the same value. So the optimum equals it when a
  clique is planted; without one it is at least it (strictly more iff no half clique).
* **Theorem 6** (3D matching -> t-closeness, ``t < 1/3``, equal distance). Only-if: a perfect
  matching gives ``3n(m - 1)``. If: a group of at most 2 rows is not t-close, a group of 4 or
  more rows keeps no column, a group of 3 keeps at most one (tuples are distinct), so *every*
  t-closeness release costs at least ``(m - 1)`` per row: optimum ``= 3n(m - 1)`` when a
  matching is planted, ``>=`` it always.
* **Theorem 7** (3D matching -> t-closeness, ``1/3 <= t < 1/2``, the four-value metric
  ``d(1,2) = d(1,3) = d(2,3) = 1``, ``d(4, .) = 1/2``, Equation (5)). Same two directions:
  old rows cost at least ``m - 1`` each (in a group with a new row: ``m``; old-only groups
  need 3 rows), new rows at least 0, so optimum ``= 3n(m - 1)`` when a matching is planted
  (the matching's triples at EMD exactly ``t``, new rows alone at ``(1 - 2t)/2 <= t``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from starmin.datasets.planted import draws
from starmin.datasets.planted.assemble import as_float, assemble, decimal, refuse, whole
from starmin.datasets.planted.draws import Edge
from starmin.datasets.planted.instance import Optimum, PlantedInstance

PAPER = "Liang & Yuan, On the Complexity of t-Closeness Anonymization and Related Problems"

FOUR_VALUE_METRIC = ((0.0, 1.0, 1.0, 0.5),
                     (1.0, 0.0, 1.0, 0.5),
                     (1.0, 1.0, 0.0, 0.5),
                     (0.5, 0.5, 0.5, 0.0))
"""Theorem 7's ground distance on the sensitive values 1, 2, 3, 4."""


# ---------------------------------------------------------------------------------------
# the constructions, in the paper's row and column order (vertices / elements from 1)


def bisection_rows(n: int, edges: Sequence[Edge]) -> list[list[int]]:
    """Theorem 3's table: row ``i`` (vertex ``v_i``), column ``j`` (edge ``e_j``) holds ``i``
    if ``v_i`` is an endpoint of ``e_j``, else ``0``."""
    return [[i if i in e else 0 for e in edges] for i in range(1, n + 1)]


def bisection_cost(n: int, edges: Sequence[Edge], v1: Sequence[int]) -> int:
    """Equation (2): the cost ``n(|E| + |E_12|)/2`` of the partition into ``V_1`` and the
    other half."""
    a = set(v1)
    cut = sum(1 for u, v in edges if (u in a) != (v in a))
    return n * (len(edges) + cut) // 2


def cn_rows(n: int, edges: Sequence[Edge], extra: int) -> list[list[int]]:
    """Theorem 4's table ``T'``: the ``n`` rows of Theorem 3's table followed by ``nm``
    columns of ``lambda_1 = n + 1``, then ``extra`` rows of ``lambda_2 = n + 2`` everywhere
    (``m + nm`` columns, ``n' = n + extra`` rows)."""
    m = len(edges)
    width = m + n * m
    old = [r + [n + 1] * (n * m) for r in bisection_rows(n, edges)]
    return old + [[n + 2] * width for _ in range(extra)]


def halfclique_rows(n: int, edges: Sequence[Edge], extra: int) -> list[list[int]]:
    """Theorem 5's table: Theorem 3's rows, then new rows ``i = n+1 .. n+extra`` holding
    ``i`` in every column."""
    m = len(edges)
    return bisection_rows(n, edges) + [[i] * m for i in range(n + 1, n + extra + 1)]


def halfclique_threshold(n: int, rows: int, m: int) -> int:
    """Theorem 5's threshold ``n'm - (n/2) C(n/2, 2)`` (``n' = rows``)."""
    return rows * m - (n // 2) * math.comb(n // 2, 2)


def three_dm_rows(n: int, tuples: Sequence[Edge]) -> list[list[int]]:
    """Theorem 6's table: row ``i`` (element ``v_i``; ``X = 1..n``, ``Y = n+1..2n``,
    ``Z = 2n+1..3n``), column ``j`` (tuple ``e_j``) holds ``0`` if ``v_i`` is in ``e_j``,
    else ``i``; the sensitive value is 1, 2 or 3 for ``X``, ``Y``, ``Z``."""
    return [[0 if i in e else i for e in tuples] + [(i - 1) // n + 1]
            for i in range(1, 3 * n + 1)]


def four_value_rows(n: int, tuples: Sequence[Edge], rows: int) -> list[list[int]]:
    """Theorem 7's table: Theorem 6's ``3n`` rows, then rows ``i = 3n+1 .. rows`` holding
    ``i`` in every QI column and sensitive value 4."""
    m = len(tuples)
    return three_dm_rows(n, tuples) + [[i] * m + [4] for i in range(3 * n + 1, rows + 1)]


def four_value_rows_for(n: int, t: Fraction) -> Fraction:
    """Theorem 7's number of rows ``n' = 3n / (1 - 2t)``."""
    return Fraction(3 * n) / (1 - 2 * t)


# ---------------------------------------------------------------------------------------
# the generators


def _names(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{j}" for j in range(1, count + 1)]


def _graph_size(size: object) -> int:
    n = whole("size", size)
    if n < 4 or n % 2:
        raise refuse("size", size, "the number of vertices n must be even and >= 4", 8)
    return n


def _bisection_graph(rng: random.Random, n: int, plant: bool, params: dict[str, Any]
                     ) -> tuple[list[Edge], list[int] | None, int | None]:
    """The MINBISECTION instance of Theorems 3-4: two cliques plus ``cross`` edges (planted:
    returns the bisection's half and its width) or G(n, density)."""
    h = n // 2
    if plant:
        most = min(h * h, 2 * (h - 1))
        b = whole("cross", params.get("cross", min(h, most)))
        if not 0 <= b <= most:
            raise refuse("cross", b, f"the planted bisection's width must be between 0 and "
                         f"{most} = min((n/2)^2, 2(n/2 - 1)) for n = {n} (beyond, it is no "
                         "longer provably minimum)", min(h, most))
        edges, v1 = draws.two_cliques(rng, n, b)
        return edges, v1, b
    p = decimal("density", params.get("density", Fraction(1, 2)))
    if not 0 <= p <= 1:
        raise refuse("density", as_float(p), "an edge probability is between 0 and 1", 0.5)
    edges = draws.gnp(rng, n, p)
    if not edges:
        edges = [(1, 2)]  # the table needs a QI column
    return edges, None, None


def theorem3(size: object, seed: int, plant: bool, params: dict[str, Any]) -> PlantedInstance:
    """Minimum bisection -> (n/2)-anonymity (Theorem 3): ``n`` rows, one QI column per edge,
    ``k = n/2``."""
    n = _graph_size(size)
    rng = random.Random(seed)
    edges, v1, b = _bisection_graph(rng, n, plant, params)
    m = len(edges)
    if v1 is not None and b is not None:
        best = n * (m + b) // 2
        opt = Optimum(best, best, best, "Theorem 3: OPT' = n(|E| + OPT)/2 exactly (Eq. (2), "
                      "both directions of the proof); the planted graph (two cliques on the "
                      f"halves plus {b} edges) has minimum bisection width OPT = {b}")
        witness = [[i - 1 for i in v1], [i - 1 for i in range(1, n + 1) if i not in set(v1)]]
    else:
        opt = Optimum(None, n * m // 2, None, "Theorem 3: OPT' = n(|E| + OPT)/2 with OPT the "
                      "unknown minimum bisection width of this G(n, p) graph; OPT >= 0 "
                      "gives the lower bound")
        witness = None
    parameters = {"cross": b} if plant else {"density": as_float(
        decimal("density", params.get("density", Fraction(1, 2))))}
    return assemble(
        rng, family="liang-yuan-thm3", title="minimum bisection -> (n/2)-anonymity",
        reference=f"{PAPER}, Theorem 3 (Sec. 3)", size=n, parameters=parameters, seed=seed,
        planted=plant, qi=_names("e", m), sensitive=(), rows=bisection_rows(n, edges),
        model_params={"k": n // 2}, optimum=opt, witness=witness,
        source={"graph": {"vertices": n, "edges": [list(e) for e in edges]},
                "bisection": None if v1 is None else {"V1": v1, "width": b}})


def theorem4(size: object, seed: int, plant: bool, params: dict[str, Any]) -> PlantedInstance:
    """(n/2)-anonymity -> (cn)-anonymity for ``c = n / (2 n') <= 1/3`` (Theorem 4), on
    Theorem 3's table: ``n' = n + extra`` rows, ``m + nm`` columns, ``k = n/2``."""
    n = _graph_size(size)
    extra = whole("extra", params.get("extra", n // 2))
    if extra < n // 2:
        raise refuse("extra", extra, f"Theorem 4 needs c = n/(2n') <= 1/3, i.e. at least "
                     f"n/2 = {n // 2} added rows", n // 2)
    rng = random.Random(seed)
    edges, v1, b = _bisection_graph(rng, n, plant, params)
    m = len(edges)
    rows = cn_rows(n, edges, extra)
    if v1 is not None and b is not None:
        best = n * (m + b) // 2
        opt = Optimum(best, best, best, "Theorem 4: OPT' = OPT (both directions of the "
                      "proof), and Theorem 3 gives OPT = n(|E| + b)/2 for the embedded "
                      f"two-clique graph with minimum bisection width b = {b}")
        a = set(v1)
        witness = [[i - 1 for i in v1], [i - 1 for i in range(1, n + 1) if i not in a],
                   list(range(n, n + extra))]
    else:
        opt = Optimum(None, n * m // 2, None, "Theorem 4: OPT' = OPT, the (n/2)-anonymity "
                      "optimum of the embedded G(n, p) table, n(|E| + width)/2 with the "
                      "unknown minimum bisection width >= 0")
        witness = None
    parameters: dict[str, Any] = {"extra": extra, "c": str(Fraction(n, 2 * (n + extra)))}
    parameters.update({"cross": b} if plant else {"density": as_float(
        decimal("density", params.get("density", Fraction(1, 2))))})
    return assemble(
        rng, family="liang-yuan-thm4", title="(n/2)-anonymity -> (cn)-anonymity, c <= 1/3",
        reference=f"{PAPER}, Theorem 4 (Sec. 3), on Theorem 3's table", size=n,
        parameters=parameters, seed=seed, planted=plant,
        qi=_names("e", m) + _names("x", n * m), sensitive=(), rows=rows,
        model_params={"k": n // 2}, optimum=opt, witness=witness,
        source={"graph": {"vertices": n, "edges": [list(e) for e in edges]},
                "bisection": None if v1 is None else {"V1": v1, "width": b},
                "old_rows": n, "new_rows": extra})


def theorem5(size: object, seed: int, plant: bool, params: dict[str, Any]) -> PlantedInstance:
    """HALFCLIQUE -> (cn)-anonymity for ``1/3 < c = n/(2n') < 1/2`` (Theorem 5):
    ``n' = n + extra`` rows (``2 <= extra < n/2``), one QI column per edge, ``k = n/2``."""
    n = _graph_size(size)
    if n < 6:
        raise refuse("size", n, "Theorem 5 needs n >= 6 (at least 2 and fewer than n/2 new "
                     "rows)", 8)
    extra = whole("extra", params.get("extra", 2))
    if not 2 <= extra < n // 2:
        raise refuse("extra", extra, f"Theorem 5 needs 1/3 < c = n/(2n') < 1/2 and two new "
                     f"rows at least: 2 <= extra < n/2 = {n // 2}", 2)
    p = decimal("density", params.get("density", Fraction(1, 2)))
    if not 0 <= p <= 1:
        raise refuse("density", as_float(p), "an edge probability is between 0 and 1", 0.5)
    rng = random.Random(seed)
    if plant:
        edges, clique = draws.planted_clique(rng, n, n // 2, p)
    else:
        edges, clique = draws.gnp(rng, n, p), None
        if not edges:
            edges = [(1, 2)]
    m = len(edges)
    rows = n + extra
    threshold = halfclique_threshold(n, rows, m)
    if clique is not None:
        opt = Optimum(threshold, threshold, threshold,
                      "Theorem 5: 'only if' gives OPT <= n'm - (n/2)C(n/2,2) for the planted "
                      "clique; the 'if' computation cost = n'm - |V1||E22| >= n'm - f(n/2) "
                      "(f increasing) bounds every release below by the same value")
        c = set(clique)
        witness = [[i - 1 for i in range(1, n + 1) if i not in c],
                   [i - 1 for i in clique] + list(range(n, rows))]
    else:
        opt = Optimum(None, threshold, None,
                      "Theorem 5: every release costs >= n'm - (n/2)C(n/2,2), with equality "
                      "iff this G(n, p) graph has a clique on n/2 vertices (unknown)")
        witness = None
    return assemble(
        rng, family="liang-yuan-thm5", title="half clique -> (cn)-anonymity, 1/3 < c < 1/2",
        reference=f"{PAPER}, Theorem 5 (Sec. 3)", size=n,
        parameters={"extra": extra, "c": str(Fraction(n, 2 * rows)), "density": as_float(p)},
        seed=seed, planted=plant, qi=_names("e", m), sensitive=(),
        rows=halfclique_rows(n, edges, extra), model_params={"k": n // 2}, optimum=opt,
        witness=witness,
        source={"graph": {"vertices": n, "edges": [list(e) for e in edges]},
                "clique": clique, "old_rows": n, "new_rows": extra})


def _three_dm(rng: random.Random, n: int, plant: bool, params: dict[str, Any]
              ) -> tuple[list[Edge], list[Edge] | None]:
    m = whole("edges", params.get("edges", min(2 * n, n ** 3)))
    least = n if plant else 1
    if not least <= m <= n ** 3:
        raise refuse("edges", m, f"the number of tuples must be between {least} "
                     f"({'the planted matching' if plant else 'one'}) and n^3 = {n ** 3}",
                     min(2 * n, n ** 3))
    return draws.three_d_matching(rng, n, m, plant)


def _three_dm_size(size: object) -> int:
    n = whole("size", size)
    if n < 1:
        raise refuse("size", size, "|X| = |Y| = |Z| = n must be >= 1", 4)
    return n


def theorem6(size: object, seed: int, plant: bool, params: dict[str, Any]) -> PlantedInstance:
    """3D matching -> t-closeness, ``0 <= t < 1/3``, equal distance (Theorem 6): ``3n`` rows,
    one QI column per tuple, sensitive column ``SA`` with values 1, 2, 3."""
    n = _three_dm_size(size)
    t = decimal("t", params.get("t", Fraction(1, 4)))
    if not 0 <= t < Fraction(1, 3):
        raise refuse("t", as_float(t), "Theorem 6 covers 0 <= t < 1/3", 0.25)
    rng = random.Random(seed)
    tuples, matching = _three_dm(rng, n, plant, params)
    m = len(tuples)
    value = 3 * n * (m - 1)
    opt, witness = _matching_optimum(value, matching, "Theorem 6")
    return assemble(
        rng, family="liang-yuan-thm6", title="3D matching -> t-closeness, t < 1/3",
        reference=f"{PAPER}, Theorem 6 (Sec. 3)", size=n,
        parameters={"edges": m, "t": as_float(t)}, seed=seed, planted=plant,
        qi=_names("e", m), sensitive=("SA",), rows=three_dm_rows(n, tuples),
        model_params={"t": as_float(t)}, optimum=opt, witness=witness,
        source={"X": [1, n], "Y": [n + 1, 2 * n], "Z": [2 * n + 1, 3 * n],
                "tuples": [list(e) for e in tuples],
                "matching": None if matching is None else [list(e) for e in matching]})


def _matching_optimum(value: int, matching: list[Edge] | None, theorem: str
                      ) -> tuple[Optimum, list[list[int]] | None]:
    if matching is None:
        return Optimum(None, value, None, f"{theorem}: every release costs >= 3n(m-1) ('if' "
                       "direction: at least m-1 stars per element row), with equality iff "
                       "the tuples hold a perfect matching (unknown)"), None
    return (Optimum(value, value, value, f"{theorem}: the planted perfect matching gives "
                    "3n(m-1) ('only if' direction) and every release costs >= 3n(m-1) ('if' "
                    "direction: at least m-1 stars per element row)"),
            [[i - 1 for i in e] for e in matching])


def theorem7(size: object, seed: int, plant: bool, params: dict[str, Any]) -> PlantedInstance:
    """3D matching -> t-closeness, ``1/3 <= t < 1/2``, four-value metric (Theorem 7):
    ``n' = 3n/(1 - 2t)`` rows (must be whole), one QI column per tuple, ``SA`` in 1..4."""
    n = _three_dm_size(size)
    t = decimal("t", params.get("t", Fraction(7, 20)))
    if not Fraction(1, 3) <= t < Fraction(1, 2):
        raise refuse("t", as_float(t), "Theorem 7 covers 1/3 <= t < 1/2", 0.35)
    total = four_value_rows_for(n, t)
    if total.denominator != 1:
        raise refuse("t", as_float(t), f"n' = 3n/(1 - 2t) = {total} rows must be whole "
                     f"(n = {n})", 0.35)
    rows = int(total)
    rng = random.Random(seed)
    tuples, matching = _three_dm(rng, n, plant, params)
    m = len(tuples)
    value = 3 * n * (m - 1)
    opt, witness = _matching_optimum(value, matching, "Theorem 7")
    if witness is not None:
        witness += [[i] for i in range(3 * n, rows)]
    return assemble(
        rng, family="liang-yuan-thm7",
        title="3D matching -> t-closeness, 1/3 <= t < 1/2, four-value metric",
        reference=f"{PAPER}, Theorem 7 and Eq. (5) (Sec. 3)", size=n,
        parameters={"edges": m, "t": as_float(t)}, seed=seed, planted=plant,
        qi=_names("e", m), sensitive=("SA",), rows=four_value_rows(n, tuples, rows),
        model_params={"t": as_float(t), "distance": "matrix"}, optimum=opt, witness=witness,
        source={"X": [1, n], "Y": [n + 1, 2 * n], "Z": [2 * n + 1, 3 * n],
                "tuples": [list(e) for e in tuples],
                "matching": None if matching is None else [list(e) for e in matching],
                "old_rows": 3 * n, "new_rows": rows - 3 * n},
        distance_matrix=FOUR_VALUE_METRIC)
