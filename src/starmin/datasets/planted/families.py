"""The planted-instance families by name: what ``--size`` means, their parameters, builders.

Importing this module loads no array library; the builders are pure Python.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from starmin.datasets.planted import bredereck, liang_yuan, meyerson_williams, xiao
from starmin.datasets.planted.instance import PlantedInstance
from starmin.errors import InvalidInput

Builder = Callable[[object, int, bool, dict[str, Any]], PlantedInstance]

PARAMETERS: Mapping[str, str] = MappingProxyType({
    "cross": "edges between the two planted cliques (the planted bisection's width)",
    "density": "edge probability of the random graph part",
    "extra": "rows added to the embedded table (n' = n + extra)",
    "edges": "tuples / points / hyperedges of the matching instance",
    "t": "t-closeness threshold (a finite decimal)",
    "values": "number m of distinct sensitive values",
    "k": "k of k-anonymity and of the k-dimensional matching",
    "t_out": "number of output row types",
    "model": "k-anonymity, or the same optimum as l-diversity or t-closeness (one sensitive "
             "value per row: Liang & Yuan Lemma 1, Bredereck et al. Corollary 1)",
})
"""Every family parameter with its meaning (``--NAME`` on the command line)."""


@dataclass(frozen=True)
class Family:
    """A generator: ``build(size, seed, plant, params)``. ``planted`` / ``unplanted`` list
    the parameters it takes with and without a planted solution, with their defaults as
    text."""

    name: str
    title: str
    reference: str
    size: str
    planted: Mapping[str, str]
    unplanted: Mapping[str, str]
    model: str
    optimum: str
    build: Builder

    def takes(self, plant: bool) -> Mapping[str, str]:
        return self.planted if plant else self.unplanted


def _f(name: str, title: str, reference: str, size: str, planted: dict[str, str],
       unplanted: dict[str, str], model: str, optimum: str, build: Builder) -> Family:
    return Family(name, title, reference, size, MappingProxyType(planted),
                  MappingProxyType(unplanted), model, optimum, build)


_GRAPH = "n vertices (even, >= 4)"
_3DM = "n = |X| = |Y| = |Z|"
_K = {"model": "k-anonymity"}
"""Every k-anonymity family also gives the same optimum under l-diversity or t-closeness."""
_LIST = (
    _f("liang-yuan-thm3", "minimum bisection -> (n/2)-anonymity", "Liang & Yuan, Thm 3",
       _GRAPH, {"cross": "min(n/2, n-2)", **_K}, {"density": "0.5", **_K}, "k = n/2",
       "n(|E| + cross)/2", liang_yuan.theorem3),
    _f("liang-yuan-thm4", "(n/2)-anonymity -> (cn)-anonymity, c <= 1/3", "Liang & Yuan, Thm 4",
       _GRAPH, {"extra": "n/2", "cross": "min(n/2, n-2)", **_K},
       {"extra": "n/2", "density": "0.5", **_K}, "k = n/2", "n(|E| + cross)/2 (Thm 3's)",
       liang_yuan.theorem4),
    _f("liang-yuan-thm5", "half clique -> (cn)-anonymity, 1/3 < c < 1/2",
       "Liang & Yuan, Thm 5", "n vertices (even, >= 6)", {"extra": "2", "density": "0.5", **_K},
       {"extra": "2", "density": "0.5", **_K}, "k = n/2", "n'm - (n/2)C(n/2, 2)",
       liang_yuan.theorem5),
    _f("liang-yuan-thm6", "3D matching -> t-closeness, t < 1/3", "Liang & Yuan, Thm 6", _3DM,
       {"edges": "2n", "t": "0.25"}, {"edges": "2n", "t": "0.25"},
       "t-closeness, equal distance", "3n(m - 1)", liang_yuan.theorem6),
    _f("liang-yuan-thm7", "3D matching -> t-closeness, 1/3 <= t < 1/2, four-value metric",
       "Liang & Yuan, Thm 7", _3DM, {"edges": "2n", "t": "0.35"}, {"edges": "2n", "t": "0.35"},
       "t-closeness, matrix distance (Eq. (5))", "3n(m - 1)", liang_yuan.theorem7),
    _f("xiao-lemma3", "3D matching -> 3-diversity", "Xiao, Yi & Tao, Lemma 3", _3DM,
       {"edges": "2n", "values": "3"}, {"edges": "2n", "values": "3"},
       "l-diversity, l = 3", "3n(d - 1), d = edges", xiao.lemma3),
    _f("meyerson-williams-thm3.1", "k-dimensional matching -> k-anonymity",
       "Meyerson & Williams, Thm 3.1", "n vertices (a multiple of k when planted)",
       {"k": "3", "edges": "2n/k", **_K}, {"k": "3", "edges": "2n/k", **_K}, "k-anonymity",
       "n(m - 1)", meyerson_williams.theorem31),
    _f("meyerson-williams-thm3.2", "k-dimensional matching -> k-anonymity on attributes",
       "Meyerson & Williams, Thm 3.2", "n vertices (a multiple of k when planted)",
       {"k": "3", "edges": "2n/k"}, {"k": "3", "edges": "2n/k"},
       "k-anonymity; objective: whole columns", "m - n/k columns (stars: upper bound only)",
       meyerson_williams.theorem32),
    _f("bredereck-prop1", "balanced biclique -> k-anonymity, two output row types",
       "Bredereck et al., Prop. 1", "n = |A| + |B| vertices (a multiple of 4)",
       {"density": "0.5", **_K}, {"density": "0.5", **_K}, "k = n/4 + 1",
       "s = (n/4 + 1) 3n/4", bredereck.proposition1),
    _f("bredereck-thm1", "balanced biclique -> k-anonymity, t_out output row types",
       "Bredereck et al., Thm 1", "n = |A| + |B| vertices (a multiple of 4)",
       {"density": "0.5", "t_out": "3", **_K}, {"density": "0.5", "t_out": "3", **_K},
       "k = n/4 + 1", "s = (n/4 + 1) 3n/4", bredereck.theorem1),
)

FAMILIES: Mapping[str, Family] = MappingProxyType({f.name: f for f in _LIST})
"""Every family, by name."""


def family(name: str) -> Family:
    """The family called ``name``, or an error listing them (with a close match)."""
    key = str(name).strip().lower()
    if key in FAMILIES:
        return FAMILIES[key]
    close = difflib.get_close_matches(key, list(FAMILIES), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise InvalidInput(f"unknown family {name!r}: {hint}use one of {', '.join(FAMILIES)}")
