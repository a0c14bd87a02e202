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


def _entries(mod_name: str) -> tuple[Algorithm, ...]:
    mod = importlib.import_module(mod_name)
    return tuple(getattr(mod, "ALGORITHMS", None) or (mod.ALGORITHM,))


def algorithms() -> dict[str, Algorithm]:
    """Every registered algorithm, by name, in registration order."""
    out: dict[str, Algorithm] = {}
    for mod_name in _MODULES:
        for a in _entries(mod_name):
            out[a.name] = a
    return out


def _named_after(name: str) -> str | None:
    """The registered module named after the algorithm ``name`` (``m-approx`` ->
    ``...approx.m_approx``, ``tp+`` -> ``...approx.tp_plus``, ``fpt-k-anonymity`` ->
    ``...fpt.k_anonymity``), if there is one."""
    stem = name.replace("-", "_").replace("+", "_plus")
    for mod_name in _MODULES:
        parts = mod_name.split(".")
        if stem in (parts[-1], f"{parts[-2]}_{parts[-1]}"):
            return mod_name
    return None


def find(name: object) -> Algorithm | None:
    """The algorithm called ``name``, or ``None``. Loads only the module named after it when
    that module registers it (a named method then loads no other algorithm and its solver
    libraries), else every module; the same entry :func:`algorithms` gives."""
    mod_name = _named_after(name) if isinstance(name, str) else None
    if mod_name is not None:
        for a in _entries(mod_name):
            if a.name == name:
                return a
    return algorithms().get(name) if isinstance(name, str) else None


def get(name: str) -> Algorithm:
    """The algorithm called ``name``; a clear error lists the names otherwise."""
    found = find(name)
    if found is None:
        raise InvalidInput(f"unknown method {name!r}: choose one of auto, "
                           f"{', '.join(algorithms())}")
    return found


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
    raise InvalidInput(f"no exact method solves {getattr(model, 'name', model)} on this table "
                       f"({rt.n:,} rows, {rt.t_in:,} row types): use --method auto for a "
                       "release with a certified lower bound and its gap. Why each exact "
                       f"method declines: {reasons}")
