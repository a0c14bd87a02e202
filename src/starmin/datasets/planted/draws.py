"""Seeded random instances of the source problems of the hardness reductions.

Graphs, 3-dimensional matchings, k-uniform hypergraphs and bipartite graphs, each either with a
planted solution (a bisection, a half-size clique, a perfect matching, a balanced biclique) or
drawn without one. Everything is drawn from a :class:`random.Random` with ``randrange`` and
``random`` only (whose outputs Python keeps stable across versions and platforms), so the same
seed gives the same instance everywhere.

Vertices and elements are numbered from 1, as in the papers (``v_1 .. v_n``).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from fractions import Fraction

Edge = tuple[int, ...]


def shuffled(rng: random.Random, items: Sequence[int]) -> list[int]:
    """A uniformly random permutation of ``items`` (Fisher-Yates on ``randrange``)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.randrange(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def coin(rng: random.Random, p: Fraction) -> bool:
    """True with probability ``p`` (``p`` exact: 0 is never, 1 is always)."""
    if p <= 0:
        return False
    if p >= 1:
        return True
    return rng.random() < p


def distinct_sets(rng: random.Random, universe: Sequence[Sequence[int]], count: int,
                  taken: set[Edge]) -> list[Edge]:
    """``count`` random sets, one element drawn from each of the ``universe`` parts (a tuple
    ``(x, y, z)`` for a 3-dimensional matching), distinct from each other and from ``taken``.

    Draws by rejection while fewer than half of all such sets are used, else from the list of
    the sets left (so the draw always ends)."""
    total = math.prod(len(part) for part in universe)
    if len(taken) + count > total:
        raise ValueError("more sets asked for than exist")  # callers check first
    out: list[Edge] = []
    seen = set(taken)
    if 2 * (len(taken) + count) <= total:
        while len(out) < count:
            e = tuple(part[rng.randrange(len(part))] for part in universe)
            if e not in seen:
                seen.add(e)
                out.append(e)
        return out
    left = [e for e in itertools.product(*universe) if e not in seen]
    for i in range(count):  # partial Fisher-Yates
        j = i + rng.randrange(len(left) - i)
        left[i], left[j] = left[j], left[i]
        out.append(left[i])
    return out


def distinct_subsets(rng: random.Random, n: int, k: int, count: int,
                     taken: set[Edge]) -> list[Edge]:
    """``count`` random ``k``-subsets of ``{1..n}`` (sorted tuples), distinct from each other
    and from ``taken``."""
    total = math.comb(n, k)
    if len(taken) + count > total:
        raise ValueError("more subsets asked for than exist")
    out: list[Edge] = []
    seen = set(taken)
    if 2 * (len(taken) + count) <= total:
        while len(out) < count:
            e = tuple(sorted(shuffled(rng, range(1, n + 1))[:k]))
            if e not in seen:
                seen.add(e)
                out.append(e)
        return out
    left = [e for e in itertools.combinations(range(1, n + 1), k) if e not in seen]
    for i in range(count):
        j = i + rng.randrange(len(left) - i)
        left[i], left[j] = left[j], left[i]
        out.append(left[i])
    return out


def gnp(rng: random.Random, n: int, p: Fraction) -> list[Edge]:
    """An Erdos-Renyi graph G(n, p) on ``1..n``: each pair an edge with probability ``p``."""
    return [(u, v) for u in range(1, n + 1) for v in range(u + 1, n + 1) if coin(rng, p)]


def two_cliques(rng: random.Random, n: int, cross: int) -> tuple[list[Edge], list[int]]:
    """Two cliques on random halves ``V_1, V_2`` of ``1..n`` joined by ``cross`` random
    edges; returns the edges and ``V_1``.

    Its minimum bisection is ``{V_1, V_2}`` with width ``cross`` when ``cross <= 2(n/2 - 1)``:
    any other equal split moves ``s`` vertices each way (``1 <= s <= n/2 - 1``) and cuts
    ``s(n/2 - s) >= n/2 - 1`` edges inside each clique, ``2(n/2 - 1) >= cross`` in all."""
    h = n // 2
    order = shuffled(rng, range(1, n + 1))
    v1, v2 = sorted(order[:h]), sorted(order[h:])
    edges: list[Edge] = [e for half in (v1, v2) for e in itertools.combinations(half, 2)]
    edges += [tuple(sorted(e)) for e in distinct_sets(rng, (v1, v2), cross, set())]
    return sorted(edges), v1


def planted_clique(rng: random.Random, n: int, size: int, p: Fraction
                   ) -> tuple[list[Edge], list[int]]:
    """G(n, p) with a clique on ``size`` random vertices; returns the edges and the clique."""
    clique = sorted(shuffled(rng, range(1, n + 1))[:size])
    inside = set(clique)
    edges: list[Edge] = [(u, v) for u in range(1, n + 1) for v in range(u + 1, n + 1)
             if (u in inside and v in inside) or coin(rng, p)]
    return edges, clique


def three_d_matching(rng: random.Random, n: int, count: int, plant: bool
                     ) -> tuple[list[Edge], list[Edge] | None]:
    """``count`` distinct tuples of ``X x Y x Z`` with ``X = 1..n``, ``Y = n+1..2n``,
    ``Z = 2n+1..3n``, in random order; with ``plant``, ``n`` of them form a perfect matching
    (returned second, else None)."""
    xs = list(range(1, n + 1))
    ys = [n + y for y in xs]
    zs = [2 * n + z for z in xs]
    matching: list[Edge] | None = None
    tuples: list[Edge] = []
    if plant:
        py, pz = shuffled(rng, ys), shuffled(rng, zs)
        matching = [(x, py[i], pz[i]) for i, x in enumerate(xs)]
        tuples = list(matching)
    tuples += distinct_sets(rng, (xs, ys, zs), count - len(tuples), set(tuples))
    order = shuffled(rng, range(len(tuples)))
    return [tuples[i] for i in order], matching


def hypergraph_matching(rng: random.Random, n: int, k: int, count: int, plant: bool
                        ) -> tuple[list[Edge], list[Edge] | None]:
    """``count`` distinct ``k``-subsets of ``1..n`` (a simple ``k``-uniform hypergraph) in
    random order; with ``plant`` (``k`` divides ``n``), ``n / k`` of them form a perfect
    matching (returned second, else None)."""
    matching: list[Edge] | None = None
    edges: list[Edge] = []
    if plant:
        order = shuffled(rng, range(1, n + 1))
        matching = [tuple(sorted(order[i:i + k])) for i in range(0, n, k)]
        edges = list(matching)
    edges += distinct_subsets(rng, n, k, count - len(edges), set(edges))
    order = shuffled(rng, range(len(edges)))
    return [edges[i] for i in order], matching


def bipartite_biclique(rng: random.Random, half: int, p: Fraction, plant: bool
                       ) -> tuple[list[Edge], tuple[list[int], list[int]] | None]:
    """A bipartite graph on ``A = B = 1..half`` (edges ``(a, b)``).

    Without ``plant``: each pair an edge with probability ``p``. With ``plant``: a complete
    bipartite ``A' x B'`` on random halves ``|A'| = |B'| = half / 2``, every other pair of
    ``A x B'`` an edge with probability ``p``, and each ``b`` outside ``B'`` joined to
    fewer than ``half / 2`` vertices (each pair with probability ``p``, at most
    ``half / 2 - 1`` of them). Then no ``half / 2`` vertices of ``A`` have a common neighbour
    outside ``B'``, so the largest common neighbourhood of ``half / 2`` vertices of ``A`` is
    ``|B'| = half / 2`` (Bredereck et al., Prop. 1's threshold is met exactly)."""
    q = half // 2
    if not plant:
        return [(a, b) for a in range(1, half + 1) for b in range(1, half + 1)
                if coin(rng, p)], None
    a_sol = sorted(shuffled(rng, range(1, half + 1))[:q])
    b_sol = sorted(shuffled(rng, range(1, half + 1))[:q])
    in_a, in_b = set(a_sol), set(b_sol)
    edges: list[Edge] = []
    for b in range(1, half + 1):
        if b in in_b:
            edges += [(a, b) for a in range(1, half + 1) if a in in_a or coin(rng, p)]
        else:
            near = [a for a in range(1, half + 1) if coin(rng, p)]
            edges += [(a, b) for a in sorted(shuffled(rng, near)[:q - 1])]
    return sorted(edges), (a_sol, b_sol)
