"""All algorithms by name, and the default choice (``--method auto``)."""

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
    "starmin.algorithms.heuristic.pattern_packing",
    "starmin.algorithms.approx.m_approx",
    "starmin.algorithms.approx.tp_plus",
    "starmin.algorithms.approx.tp",
    "starmin.algorithms.heuristic.hilbert",
    "starmin.algorithms.heuristic.merge_repair",
    "starmin.algorithms.lp.lp_rounding",
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


def choose(model: PrivacyModel, rt: RowTypes, method: str = "auto") -> Algorithm:
    """The algorithm ``--method`` names for this instance.

    ``auto`` takes the first of :data:`AUTO_ORDER` that supports the instance: an exact
    method while it is cheap, then the best practical method for the model. ``exact`` takes
    the first exact (or FPT) method that supports it, and says why none does otherwise.
    """
    if method not in ("auto", "exact"):
        return get(method)
    table = algorithms()
    if method == "auto":
        names = [n for n in AUTO_ORDER if n in table]
    else:
        names = [n for n, a in table.items() if a.guarantee.kind in ("exact", "fpt")]
    for name in names:
        if table[name].supports(model, rt) is None:
            return table[name]
    reasons = "; ".join(f"{n}: {table[n].supports(model, rt)}" for n in names)
    what = "no exact method" if method == "exact" else "no algorithm"
    raise InvalidInput(f"{what} supports {getattr(model, 'name', model)} on this table "
                       f"({reasons})")


# Preference for --method auto: exact when it is cheap, then the best practical method.
AUTO_ORDER: tuple[str, ...] = (
    "brute-force",          # exact, any model, tiny tables
    "two-diversity-flow",   # exact 2-diversity with two sensitive values, any size it supports
    "two-diversity-milp",   # exact 2-diversity within its documented size limit
    "pattern-packing",      # k-anonymity on real tables
    "tp+",                  # l-diversity (frequency form): l*d-approximation, never worse than TP
    "m-approx",             # k-anonymity fallback with a proven ratio
    "merge-repair",         # every other model and combination (t-closeness, p-sensitive, ...)
)
