"""Privacy models: small frozen objects that judge many classes at once.

Each model is validated on construction (a bad parameter raises
:class:`~starmin.errors.InvalidInput` naming the fix), judges a ``(classes, |S|)`` count matrix
in one vectorized call, and raises :class:`~starmin.errors.Infeasible` from
``check_feasible`` when no release can satisfy it. See docs/models.md.

Each name loads its module on first use, so a command that checks 5-anonymity does not load
the matrix distance's code.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starmin.models.base import Evaluation, PrivacyModel
    from starmin.models.combine import AllOf
    from starmin.models.distances import EqualDistance, HierarchicalDistance, OrderedDistance
    from starmin.models.k_anonymity import KAnonymity
    from starmin.models.l_diversity import (
        DistinctLDiversity,
        EntropyLDiversity,
        LDiversity,
        RecursiveCLDiversity,
    )
    from starmin.models.matrix_distance import MatrixDistance
    from starmin.models.p_sensitive import PSensitiveKAnonymity
    from starmin.models.t_closeness import TCloseness

_MODULE = {
    "AllOf": "combine",
    "DistinctLDiversity": "l_diversity",
    "EntropyLDiversity": "l_diversity",
    "EqualDistance": "distances",
    "Evaluation": "base",
    "HierarchicalDistance": "distances",
    "KAnonymity": "k_anonymity",
    "LDiversity": "l_diversity",
    "MatrixDistance": "matrix_distance",
    "OrderedDistance": "distances",
    "PSensitiveKAnonymity": "p_sensitive",
    "PrivacyModel": "base",
    "RecursiveCLDiversity": "l_diversity",
    "TCloseness": "t_closeness",
}

__all__ = [
    "AllOf",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "EqualDistance",
    "Evaluation",
    "HierarchicalDistance",
    "KAnonymity",
    "LDiversity",
    "MatrixDistance",
    "OrderedDistance",
    "PSensitiveKAnonymity",
    "PrivacyModel",
    "RecursiveCLDiversity",
    "TCloseness",
]


def __getattr__(name: str) -> Any:
    """Load a model's module on first access (PEP 562)."""
    if name in _MODULE:
        value = getattr(importlib.import_module(f"starmin.models.{_MODULE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'starmin.models' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
