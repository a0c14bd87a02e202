"""What the LP core optimizes: linear, homogeneous relaxations of a privacy model per class.

A released class is an output vector ``v*`` and the rows ``x(v*, v, s)`` it receives (Liang &
Yuan Sec. 4, Thm 9). For the LP core a model is replaced by one or more *relaxations*, each a
set of linear constraints on one class that every class satisfying the model satisfies, and
that are homogeneous (scaling a class keeps them), so the classes of one vector form a cone:

* ``k`` (k-anonymity, and the class size ``l``, ``p`` imply): with the open indicator ``y``,
  ``x(v, s) <= c(v, s) y`` and ``sum x >= k y`` (Thm 9's indicator; Bredereck et al. Sec. 4.3).
* ``cap`` (frequency l-diversity: ``1/l``, Xiao et al. Def. 2; recursive (c, l)-diversity:
  ``c / (1 + c)``, since ``r_1 < c (r_l + ... ) <= c (n - r_1)`` for ``l >= 2``, and ``c``
  for ``l = 1``, whose tail is the whole class; none when that is ``>= 1``): every value of
  sensitive column ``column`` holds at most ``cap`` of the class.
* ``t`` (t-closeness, Li et al. Sec. 4; Liang & Yuan Thm 9's transport constraints): the
  class's distribution is within EMD ``t`` of the table's. For the equal, ordered and
  hierarchical distances the EMD is a weighted sum over *cuts* (sets of values) of
  ``|q(cut) - p(cut)|``: a tree metric's EMD is the sum over its edges of the edge length
  times the mass that must cross it (the equal distance is a star with edges 1/2, the ordered
  distance a path with edges ``1/(R-1)``, the hierarchy a tree with edges ``1/(2H)``).
  Under a matrix distance (any normalized metric, not a tree metric) the class's EMD is
  Thm 9's transport LP itself: flows from the class's values to the table's distribution.

Entropy l-diversity is relaxed to its class size ``l`` (``H(q) >= log l`` needs ``l``
values); distinct l-diversity and p-sensitivity to their class size. A combination gives one
relaxation per part (``k``; ``cap``, with ``k`` when the model asks for more rows than the
cap forces; ``t``), and the bound is the best of them. ``cap`` alone is used otherwise: on
adult the class-size rows changed no LP value and tripled the LP time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k, parts

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Cuts:
    """EMD of a class distribution ``q`` to ``p`` as ``sum_i w_i |q(C_i) - p(C_i)|``.

    ``member`` is ``(cuts, r)`` 0/1 over the column's values, ``weight`` ``(cuts,)``.
    ``one_sided``: the equal distance, where ``EMD = sum_u max(0, q_u - p_u)`` (cuts are the
    single values, weight 1, and only excesses count)."""

    member: FloatArray
    weight: FloatArray
    one_sided: bool = False


@dataclass(frozen=True, eq=False)
class Relaxation:
    """One homogeneous relaxation of the model for a class (see the module docstring).

    ``distinct``: every class holds at least this many values of the column (distinct l,
    p-sensitivity); only the exact MILP (:mod:`.milp_exact`) states it, with binary
    indicators, and pricing ignores it (a valid relaxation still).
    ``column``: the sensitive column ``cap``/``distinct``/``t`` read (index into ``rt.sensitive``);
    ``value_of_key``: ``(s,)`` the column's value of each sensitive key; ``p``: the table's
    distribution over the column's values; ``d``: ``(r, r)`` ground distances.
    ``share_lines``: integer triples ``(a, b, c)``, each stating ``a x(b, u) <= b n(b) + c y(b)``
    for every value ``u`` (a share cap that depends on the class size; only the exact MILP
    states them, for entropy l-diversity: :func:`.cuts.entropy_share_lines`)."""

    name: str
    k: int = 1
    column: int | None = None
    cap: float | None = None
    distinct: int = 0
    t: float | None = None
    cuts: Cuts | None = None
    d: FloatArray | None = None
    value_of_key: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    p: FloatArray = field(default_factory=lambda: np.zeros(0))
    share_lines: tuple[tuple[int, int, int], ...] = ()

    @property
    def r(self) -> int:
        """Number of values of the column (1 without a column)."""
        return len(self.p) if self.column is not None else 1


def relaxations(model: PrivacyModel, rt: RowTypes) -> list[Relaxation]:
    """The relaxations of ``model`` the LP core can price (see the module docstring)."""
    from starmin.models.l_diversity import LDiversity, RecursiveCLDiversity
    from starmin.models.t_closeness import TCloseness

    k = implied_k(model)
    out: list[Relaxation] = []
    for part in parts(model):
        for a in range(len(rt.sensitive)):
            if isinstance(part, LDiversity):
                out.append(_capped(rt, a, f"frequency 1/{part.l}", 1.0 / part.l, k))
            elif isinstance(part, RecursiveCLDiversity) and part.largest_share() < 1.0:
                name = "frequency c/(1+c)" if part.l >= 2 else "frequency c"
                out.append(_capped(rt, a, name, part.largest_share(), k))
            elif isinstance(part, TCloseness):
                rel = _t_relaxation(rt, a, part)
                if rel is not None:
                    out.append(rel)
    if k > 1:
        out.append(Relaxation(f"k={k}", k=k))
    return out


def _capped(rt: RowTypes, a: int, name: str, cap: float, k: int) -> Relaxation:
    """A ``cap`` relaxation, with the class size ``k`` only when the model asks for more rows
    than the cap already forces (``k > ceil(1 / cap)``, e.g. k = 5 with l = 2)."""
    if k > math.ceil(1.0 / cap - 1e-9):
        return with_column(rt, a, f"k={k}, {name}", cap=cap, k=k)
    return with_column(rt, a, name, cap=cap)


def with_column(rt: RowTypes, a: int, name: str, **kw: object) -> Relaxation:
    """A relaxation on sensitive column ``a``: its values per key and the table's
    distribution over them, with ``kw`` (the name gets the column's with several)."""
    vk = rt.keys[:, a].astype(np.int64)
    r = len(rt.sensitive_domains[a])
    tot = np.bincount(vk, weights=rt.counts.sum(axis=0), minlength=r)
    return Relaxation(name + (f" on {rt.sensitive[a]}" if len(rt.sensitive) > 1 else ""),
                      column=a, value_of_key=vk, p=tot / tot.sum(), **kw)  # type: ignore[arg-type]


def _t_relaxation(rt: RowTypes, a: int, part: object) -> Relaxation | None:
    """t-closeness on column ``a`` with its ground distances and cuts; under a matrix
    distance (not a tree metric) the ground distances alone, for Thm 9's transport
    constraints (:func:`transport_relaxation`); None for a distance of another kind."""
    from starmin.models.distances import EqualDistance, HierarchicalDistance, OrderedDistance
    from starmin.models.matrix_distance import MatrixDistance

    distance = part.distance  # type: ignore[attr-defined]
    t = float(Fraction(part.t_exact))  # type: ignore[attr-defined]
    values = rt.sensitive_domains[a]
    if isinstance(distance, MatrixDistance):
        return transport_relaxation(rt, a, part)
    if not isinstance(distance, EqualDistance | OrderedDistance | HierarchicalDistance):
        return None
    d = ground_distances(distance, values)
    r = len(values)
    if isinstance(distance, EqualDistance):
        cuts = Cuts(np.eye(r), np.ones(r), one_sided=True)
    elif isinstance(distance, OrderedDistance):
        rank, R = distance.ranks(values)
        member = (rank[None, :] <= np.arange(R - 1)[:, None]).astype(np.float64)
        cuts = Cuts(member, np.full(R - 1, 1.0 / max(R - 1, 1)))
    else:
        cuts = _tree_cuts(d, distance.height)
    return with_column(rt, a, f"{part.t}-closeness ({distance.name})",  # type: ignore[attr-defined]
                        t=t, cuts=cuts, d=d)


def transport_relaxation(rt: RowTypes, a: int, part: object) -> Relaxation:
    """t-closeness under a matrix distance on column ``a``: the ground distances ``d`` and no
    cuts (``cuts=None``), so the program states the EMD by Liang & Yuan Thm 9's transport
    constraints (:func:`.master.build`), and column generation prices it by the Lagrangian
    gain of :mod:`.pricing` (a transport from the table's distribution)."""
    distance = part.distance  # type: ignore[attr-defined]
    values = rt.sensitive_domains[a]
    pos = distance.positions(values)
    d = np.asarray(distance.matrix, dtype=np.float64)[np.ix_(pos, pos)]
    t = float(Fraction(part.t_exact))  # type: ignore[attr-defined]
    return with_column(rt, a, f"{part.t}-closeness ({distance.name})",  # type: ignore[attr-defined]
                        t=t, cuts=None, d=d)


def ground_distances(distance: object, values: tuple[object, ...]) -> FloatArray:
    """``(r, r)`` distance between every two values: the EMD between the point masses, from
    the distance's exact EMD numerators (class ``e_i``, table ``e_j``: ``D = e_i - e_j``)."""
    r = len(values)
    eye = np.eye(r, dtype=np.int64)
    D = (eye[:, None, :] - eye[None, :, :]).reshape(r * r, r)
    num, scale = distance.numerators(D.copy(), values)  # type: ignore[attr-defined]
    return (np.asarray(num, dtype=np.float64) / scale).reshape(r, r)


def _tree_cuts(d: FloatArray, H: int) -> Cuts:
    """The nodes of a hierarchy of height ``H`` (below the root) as cuts of weight
    ``1/(2H)``: the node of level ``h`` holding value ``u`` is ``{w : d(u, w) <= h/H}``.

    A node and its only child holding table values are the same cut (``{c}`` for a node
    ``cd`` when ``d`` is absent from the table) but two edges of the tree, each crossed by the
    same mass: such a cut gets the sum of their weights, so the EMD is exact, not only a
    lower bound."""
    r = d.shape[0]
    sets: dict[bytes, NDArray[np.float64]] = {}
    weight: dict[bytes, float] = {}
    for h in range(H):
        close = d <= h / H + 1e-12
        nodes = {close[u].astype(np.float64).tobytes(): close[u] for u in range(r)}
        for key, row in nodes.items():  # one per node of level h that holds a table value
            sets.setdefault(key, row.astype(np.float64))
            weight[key] = weight.get(key, 0.0) + 1.0 / (2 * H)
    member = np.array(list(sets.values())) if sets else np.zeros((0, r))
    return Cuts(member, np.array([weight[k] for k in sets], dtype=np.float64))
