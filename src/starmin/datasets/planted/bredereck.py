"""Bredereck et al.'s reductions from balanced complete bipartite subgraph (Sec. 3.2, Proposition
1 and Theorem 1): k-anonymity whose solutions have exactly two (``t_out``) output row types.

R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization". The source is a balanced
bipartite graph ``G = (A + B, E)`` with ``n = |V|`` vertices (``|A| = |B| = n/2``, ``n``
divisible by 4) and the BCBS question for ``n/4``. The matrix ``D`` (Figure 1) has a row per
``a_j`` and a column per ``b_i``: ``1`` if adjacent, else ``0_1`` (``j <= n/4``) or ``0_2``
(``j > n/4``); then an all-``□`` row and an all-``1`` row; ``k = n/4 + 1``, and ``s = (n/4 +
1) n/2 + (n/4 + 1) n/4`` suppressions are allowed. Theorem 1 (Figure 2) adds ``n/2`` columns
of ``1`` and, for each ``2 < i <= t_out``, ``n/4 + 1`` rows of the symbol ``i``.

How the optimum is known. The proposition proves "cost ``<= s`` iff a balanced biclique
exists"; for the *optimum* more is needed, because a yes-instance may beat ``s``. Counting
as in the proof's "<=" direction: ``D`` has ``2k`` rows (plus the dummy rows of Theorem 1,
which must stay alone: a dummy row in another class suppresses all ``n`` columns of at least
``k`` rows, ``kn > s``), so a release has two classes of ``k`` rows (one class costs
``2k n/2 > s``); the class with the ``□`` row is fully suppressed on ``B`` (``k n/2``), and
the other keeps exactly the columns where all its rows hold ``1`` (no ``0_x`` occurs in
``k`` rows). Hence ``OPT = k n/2 + k (n/2 - C)``, ``C`` the largest common neighbourhood of
``n/4`` vertices of ``A`` (the all-1 row takes the last place). The planted graph has a
complete ``A' x B'`` with ``|A'| = |B'| = n/4`` and every vertex outside ``B'`` adjacent to
fewer than ``n/4`` vertices of ``A`` (:func:`~starmin.datasets.planted.draws.bipartite_biclique`),
so ``C = n/4`` exactly and ``OPT = s``. Without planting (a random bipartite graph) ``C`` is
unknown; ``OPT >= k n/2`` remains.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from starmin.datasets.planted import draws
from starmin.datasets.planted.assemble import as_float, assemble, decimal, refuse, whole
from starmin.datasets.planted.draws import Edge
from starmin.datasets.planted.instance import Optimum, PlantedInstance

PAPER = ("Bredereck, Nichterlein, Niedermeier & Philip, The Effect of Homogeneity on the "
         "Computational Complexity of Combinatorial Data Anonymization")
BOX = "□"
"""The symbol of the all-box row (Figure 1)."""


def matrix_rows(n: int, edges: Sequence[Edge], t_out: int | None = None) -> list[list[str]]:
    """Figure 1's matrix ``D`` (``t_out`` None: Proposition 1) or Figure 2's (Theorem 1):
    rows ``a_1..a_{n/2}``, the all-``□`` row, the all-``1`` row, then the dummy rows."""
    half = n // 2
    adjacent = set(edges)
    zero = ["0_1" if j <= n // 4 else "0_2" for j in range(1, half + 1)]
    rows = [["1" if (j, i) in adjacent else zero[j - 1] for i in range(1, half + 1)]
            for j in range(1, half + 1)]
    rows += [[BOX] * half, ["1"] * half]
    if t_out is None:
        return rows
    rows = [r + ["1"] * half for r in rows]
    for symbol in range(3, t_out + 1):
        rows += [[str(symbol)] * n for _ in range(n // 4 + 1)]
    return rows


def allowed(n: int) -> int:
    """Proposition 1's ``s = (n/4 + 1) n/2 + (n/4 + 1) n/4``."""
    k = n // 4 + 1
    return k * (n // 2) + k * (n // 4)


def _build(size: object, seed: int, plant: bool, params: dict[str, Any],
           t_out: int | None) -> PlantedInstance:
    n = whole("size", size)
    if n < 4 or n % 4:
        raise refuse("size", size, "the number of vertices n = |A| + |B| must be a multiple "
                     "of 4 and >= 4", 16)
    p = decimal("density", params.get("density", Fraction(1, 2)))
    if not 0 <= p <= 1:
        raise refuse("density", as_float(p), "an edge probability is between 0 and 1", 0.5)
    rng = random.Random(seed)
    edges, solution = draws.bipartite_biclique(rng, n // 2, p, plant)
    half, k = n // 2, n // 4 + 1
    s = allowed(n)
    rows = matrix_rows(n, edges, t_out)
    dummies = [] if t_out is None else [
        list(range(half + 2 + b * k, half + 2 + (b + 1) * k)) for b in range(t_out - 2)]
    if solution is not None:
        a_sol, _ = solution
        inside = set(a_sol)
        witness: list[list[int]] | None = [
            [half] + [a - 1 for a in range(1, half + 1) if a not in inside],
            [half + 1] + [a - 1 for a in a_sol], *dummies]
        opt = Optimum(s, s, s, "Proposition 1: OPT = k n/2 + k(n/2 - C) with C the largest "
                      "common neighbourhood of n/4 vertices of A (counting of the '<=' "
                      "direction; Theorem 1's dummy rows stay alone); the planted biclique and "
                      "the degree cap outside B' give C = n/4, so OPT = s")
    else:
        witness = None
        opt = Optimum(None, k * half, None, "Proposition 1: OPT = k n/2 + k(n/2 - C) with C "
                      "the (unknown) largest common neighbourhood of n/4 vertices of A; OPT "
                      "<= s iff G has a balanced biclique with n/4 + n/4 vertices")
    qi = [f"b{i}" for i in range(1, half + 1)]
    parameters: dict[str, Any] = {"density": as_float(p)}
    if t_out is not None:
        qi += [f"d{i}" for i in range(1, half + 1)]
        parameters["t_out"] = t_out
    family = "bredereck-prop1" if t_out is None else "bredereck-thm1"
    title = ("balanced biclique -> k-anonymity with two output row types" if t_out is None
             else "balanced biclique -> k-anonymity with t_out output row types")
    where = "Proposition 1 and Figure 1" if t_out is None else "Theorem 1 and Figure 2"
    return assemble(
        rng, family=family, title=title, reference=f"{PAPER}, Sec. 3.2, {where}", size=n,
        parameters=parameters, seed=seed, planted=plant, qi=qi, sensitive=(), rows=rows,
        model_params={"k": k}, optimum=opt, witness=witness,
        source={"bipartite_graph": {"A": half, "B": half, "edges": [list(e) for e in edges]},
                "biclique": None if solution is None else {"A": solution[0],
                                                           "B": solution[1]},
                "allowed_suppressions": s,
                "t_out": 2 if t_out is None else t_out})


def proposition1(size: object, seed: int, plant: bool, params: dict[str, Any]
                 ) -> PlantedInstance:
    """Balanced biclique -> (n/4 + 1)-anonymity with two output row types (Proposition 1)."""
    return _build(size, seed, plant, params, None)


def theorem1(size: object, seed: int, plant: bool, params: dict[str, Any]) -> PlantedInstance:
    """Balanced biclique -> (n/4 + 1)-anonymity with ``t_out`` output row types (Theorem 1)."""
    t_out = whole("t_out", params.get("t_out", 3))
    if t_out < 2:
        raise refuse("t_out", t_out, "Theorem 1 takes t_out >= 2 output row types", 3)
    return _build(size, seed, plant, params, t_out)
