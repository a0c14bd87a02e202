"""Privacy models: small frozen objects that judge many classes at once.

Each model is validated on construction (a bad parameter raises
:class:`~starmin.errors.InvalidInput` naming the fix), judges a ``(classes, |S|)`` count matrix
in one vectorized call, and raises :class:`~starmin.errors.Infeasible` from
``check_feasible`` when no release can satisfy it. See docs/models.md.
"""

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
