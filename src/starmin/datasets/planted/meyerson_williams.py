"""Meyerson & Williams' reductions from k-dimensional perfect matching (Sec. 3, Thms 3.1-3.2).

A. Meyerson and R. Williams, "On the Complexity of Optimal K-Anonymity", PODS 2004. The source
instance is a simple ``k``-uniform hypergraph ``H`` on ``n`` vertices with ``m`` edges; the
table has one row ``v_i`` per vertex and one QI column per edge.

* **Theorem 3.1** (cell suppression, alphabet ``{0..n}``): ``v_i[j] = 0`` if ``u_i`` is in
  ``e_j``, else ``i``. How the optimum is known: the converse part of the proof shows that in
  *every* k-anonymous release each row keeps at most one cell (two kept cells would make two
  edges equal, and ``H`` is simple), so every release has ``>= n(m - 1)`` stars; the first
  part turns a perfect matching into a release with exactly ``n(m - 1)``. Planted: optimum
  ``n(m - 1)``; otherwise ``>= n(m - 1)``, equal iff a perfect matching exists. The paper
  proves it for ``k >= 3`` (k = 2 is polynomial); the argument holds for ``k = 2`` too.
* **Theorem 3.2** (attribute suppression, binary alphabet): ``v_i[j] = 1`` if ``u_i`` is in
  ``e_j``, else ``0``; the objective is the number of *whole QI columns* suppressed. The kept
  columns are pairwise disjoint edges, so at least ``m - n/k`` columns go; with a perfect
  matching exactly ``m - n/k`` suffice (keep the matching's columns). Planted: that optimum is
  exact. The optimum in *stars* (cell suppression) of this table is not known from the paper;
  the generator records the stars of the planted matching's partition as an upper bound.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from starmin.datasets.planted import draws
from starmin.datasets.planted.assemble import assemble, refuse, whole
from starmin.datasets.planted.draws import Edge
from starmin.datasets.planted.instance import Optimum, PlantedInstance

PAPER = "Meyerson & Williams, On the Complexity of Optimal K-Anonymity, PODS 2004"


def theorem31_rows(n: int, edges: Sequence[Edge]) -> list[list[int]]:
    """Theorem 3.1's database: ``v_i[j] = 0`` if ``u_i`` is in ``e_j``, else ``i``."""
    return [[0 if i in e else i for e in edges] for i in range(1, n + 1)]


def theorem32_rows(n: int, edges: Sequence[Edge]) -> list[list[int]]:
    """Theorem 3.2's database: ``v_i[j] = b_1 = 1`` if ``u_i`` is in ``e_j``, else
    ``b_0 = 0``."""
    return [[1 if i in e else 0 for e in edges] for i in range(1, n + 1)]


def partition_stars(rows: Sequence[Sequence[object]], m: int,
                    groups: Sequence[Sequence[int]]) -> int:
    """Stars of releasing each group (0-based row indices) as its suppressor: the group's
    size times its QI columns (the first ``m``) that are not constant on it."""
    return sum(len(g) * sum(1 for j in range(m) if len({rows[i][j] for i in g}) > 1)
               for g in groups)


def _hypergraph(size: object, plant: bool, params: dict[str, Any]
                ) -> tuple[int, int, int]:
    n = whole("size", size)
    k = whole("k", params.get("k", 3))
    if k < 2:
        raise refuse("k", k, "k-dimensional matching needs k >= 2 (the paper's hardness: "
                     "k >= 3)", 3)
    if n < k or (plant and n % k):
        raise refuse("size", size, f"the number of vertices n must be >= k = {k}"
                     + (" and a multiple of k (a perfect matching is planted)" if plant
                        else ""), 3 * k)
    total = math.comb(n, k)
    least = n // k if plant else 1
    m = whole("edges", params.get("edges", min(max(2 * n // k, least), total)))
    if not least <= m <= total:
        raise refuse("edges", m, f"the number of hyperedges must be between {least} and "
                     f"C(n, k) = {total}", min(max(2 * n // k, least), total))
    return n, k, m


def theorem31(size: object, seed: int, plant: bool, params: dict[str, Any]
              ) -> PlantedInstance:
    """k-dimensional perfect matching -> k-anonymity by cell suppression (Theorem 3.1)."""
    n, k, m = _hypergraph(size, plant, params)
    rng = random.Random(seed)
    edges, matching = draws.hypergraph_matching(rng, n, k, m, plant)
    value = n * (m - 1)
    if matching is not None:
        opt = Optimum(value, value, value, "Theorem 3.1: the planted perfect matching gives "
                      "n(m-1) stars (first part); every k-anonymous release keeps at most one "
                      "cell per row (converse part, H simple), so >= n(m-1)")
        witness: list[list[int]] | None = [[i - 1 for i in e] for e in matching]
    else:
        opt = Optimum(None, value, None, "Theorem 3.1: every k-anonymous release has >= "
                      "n(m-1) stars, with equality iff H has a perfect matching (unknown)")
        witness = None
    return assemble(
        rng, family="meyerson-williams-thm3.1",
        title="k-dimensional matching -> k-anonymity", reference=f"{PAPER}, Theorem 3.1",
        size=n, parameters={"k": k, "edges": m}, seed=seed, planted=plant,
        qi=[f"e{j}" for j in range(1, m + 1)], sensitive=(), rows=theorem31_rows(n, edges),
        model_params={"k": k}, optimum=opt, witness=witness,
        source={"hypergraph": {"vertices": n, "k": k, "edges": [list(e) for e in edges]},
                "matching": None if matching is None else [list(e) for e in matching]})


def theorem32(size: object, seed: int, plant: bool, params: dict[str, Any]
              ) -> PlantedInstance:
    """k-dimensional perfect matching -> k-anonymity on attributes (Theorem 3.2)."""
    n, k, m = _hypergraph(size, plant, params)
    rng = random.Random(seed)
    edges, matching = draws.hypergraph_matching(rng, n, k, m, plant)
    rows = theorem32_rows(n, edges)
    names = [f"e{j}" for j in range(1, m + 1)]
    attributes = m - n // k
    if matching is not None:
        witness: list[list[int]] | None = [[i - 1 for i in e] for e in matching]
        assert witness is not None
        upper = partition_stars(rows, m, witness)
        kept: list[str] | None = [names[edges.index(e)] for e in matching]
        opt = Optimum(None, None, upper, "Theorem 3.2: suppressing the m - n/k columns "
                      "outside the planted perfect matching k-anonymizes the table, and the "
                      "kept columns of any k-anonymization are disjoint edges, so m - n/k "
                      "columns is optimal; the optimum in stars is not known, the upper bound "
                      "is the planted matching's partition released cell by cell",
                      attributes=attributes, attributes_lower_bound=attributes)
    else:
        witness, kept = None, None
        opt = Optimum(None, None, None, "Theorem 3.2: every k-anonymization by attributes "
                      "suppresses >= m - n/k columns, with equality iff H has a perfect "
                      "matching (unknown); nothing is known of the optimum in stars",
                      attributes=None, attributes_lower_bound=attributes)
    return assemble(
        rng, family="meyerson-williams-thm3.2",
        title="k-dimensional matching -> k-anonymity on attributes",
        reference=f"{PAPER}, Theorem 3.2 (Sec. 3.1)", size=n,
        parameters={"k": k, "edges": m}, seed=seed, planted=plant, qi=names, sensitive=(),
        rows=rows, model_params={"k": k}, optimum=opt, witness=witness,
        source={"hypergraph": {"vertices": n, "k": k, "edges": [list(e) for e in edges]},
                "matching": None if matching is None else [list(e) for e in matching]},
        kept_attributes=kept, objective="attributes")
