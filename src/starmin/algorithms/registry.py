"""All algorithms by name, and the choice ``--method exact`` makes.

``--method auto`` is the portfolio of :mod:`starmin.algorithms.portfolio`: every algorithm
whose entry declares ``auto`` (its work estimate) is a member; there is no list to edit here.
"""

from __future__ import annotations

import importlib

from starmin.algorithms.base import Algorithm
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.base import PrivacyModel

# Each module defines a module-level ``ALGORITHM`` (or ``ALGORITHMS``) entry.
_MODULES = (
    "starmin.algorithms.exact.brute_force",
    "starmin.algorithms.exact.two_diversity_flow",
    "starmin.algorithms.exact.two_diversity_milp",
    "starmin.algorithms.exact.two_diversity_simplex",
    "starmin.algorithms.fpt.k_anonymity",
    "starmin.algorithms.fpt.p_sensitive",
    "starmin.algorithms.fpt.dgh_k_anonymity",
    "starmin.algorithms.fpt.dgh_p_sensitive",
    "starmin.algorithms.exact.balanced_split",
    "starmin.algorithms.lp.milp_exact",
    "starmin.algorithms.classes.class_partition",
    "starmin.algorithms.heuristic.pattern_packing",
    "starmin.algorithms.approx.m_approx",
    "starmin.algorithms.approx.mw_subsets",
    "starmin.algorithms.approx.mw_balls",
    "starmin.algorithms.approx.tp_plus",
    "starmin.algorithms.approx.tp",
    "starmin.algorithms.heuristic.hilbert",
    "starmin.algorithms.heuristic.merge_repair",
    "starmin.algorithms.lp.lp_rounding",
    "starmin.algorithms.full_domain",
    "starmin.algorithms.recode.top_down",
)


def algorithms() -> dict[str, Algorithm]:
    """Every registered algorithm, by name, in registration order."""
    out: dict[str, Algorithm] = {}
    for mod_name in _MODULES:
        mod = importlib.import_module(mod_name)
        entries = getattr(mod, "ALGORITHMS", None) or (mod.ALGORITHM,)
        for a in entries:
            out[a.name] = a
    return out


def get(name: str) -> Algorithm:
    """The algorithm called ``name``; a clear error lists the names otherwise."""
    table = algorithms()
    if name not in table:
        raise InvalidInput(f"unknown method {name!r}: choose one of auto, {', '.join(table)}")
    return table[name]


def choose(model: PrivacyModel, rt: RowTypes, method: str) -> Algorithm:
    """The algorithm ``--method`` names for this instance.

    A name gives that algorithm; ``exact`` the first exact (or FPT) method that supports the
    instance, and says why none does otherwise. ``auto`` is not a single algorithm: see
    :func:`starmin.algorithms.portfolio.run`.
    """
    if method == "auto":
        raise ValueError("method 'auto' runs the portfolio (starmin.algorithms.portfolio.run), "
                         "not one algorithm")
    if method != "exact":
        return get(method)
    table = algorithms()
    names = [n for n, a in table.items() if a.guarantee.kind in ("exact", "fpt")]
    for name in names:
        if table[name].supports(model, rt) is None:
            return table[name]
    reasons = "; ".join(f"{n}: {table[n].supports(model, rt)}" for n in names)
    raise InvalidInput(f"no exact method supports {getattr(model, 'name', model)} on this "
                       f"table ({reasons})")
