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
    "starmin.algorithms.approx.m_approx",
    "starmin.algorithms.approx.tp",
    "starmin.algorithms.approx.tp_plus",
    "starmin.algorithms.heuristic.hilbert",
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


def choose(model: PrivacyModel, rt: RowTypes) -> Algorithm:
    """The default method for this model and instance (``--method auto``)."""
    table = algorithms()
    for name in AUTO_ORDER:
        a = table.get(name)
        if a is not None and a.supports(model, rt) is None:
            return a
    reasons = "; ".join(f"{a.name}: {a.supports(model, rt)}" for a in table.values())
    raise InvalidInput(f"no algorithm supports {getattr(model, 'name', model)}: {reasons}")


# Preference for --method auto: exact when it is cheap, then the best practical method.
AUTO_ORDER: tuple[str, ...] = ("brute-force", "tp+", "m-approx")
