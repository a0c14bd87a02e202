"""The privacy models the row-type flows solve, read as Bredereck et al.'s parameters.

k-ANONYMITY takes ``k``; p-SENSITIVITY takes ``p`` and ``k`` (Sec. 2, Definition 3). A
conjunction of such models (``AllOf``) is one of them with the largest parameters: every class
must have ``>= k`` rows for each ``k`` and ``>= p`` distinct values for each ``p``, and a class
with ``p`` distinct values has ``>= p`` rows, so p-sensitive k-anonymity is taken with
``k := max(k, p)``.
"""

from __future__ import annotations

from starmin.models.base import PrivacyModel
from starmin.models.combine import parts
from starmin.models.k_anonymity import KAnonymity
from starmin.models.p_sensitive import PSensitiveKAnonymity


def k_anonymity(model: PrivacyModel) -> int | None:
    """``k`` when ``model`` is k-anonymity (or a conjunction of k-anonymity models), else
    ``None``."""
    ps = parts(model)
    if ps and all(isinstance(q, KAnonymity) for q in ps):
        return max(int(q.k) for q in ps)  # type: ignore[attr-defined]
    return None


def p_sensitivity(model: PrivacyModel) -> tuple[int, int] | None:
    """``(p, k)`` with ``k >= p`` when ``model`` is p-sensitive k-anonymity, possibly in a
    conjunction with k-anonymity or other p-sensitive models, else ``None``."""
    ps = parts(model)
    sens = [q for q in ps if isinstance(q, PSensitiveKAnonymity)]
    if not sens or not all(isinstance(q, KAnonymity | PSensitiveKAnonymity) for q in ps):
        return None
    p = max(int(q.p) for q in sens)
    k = max(int(q.k) for q in ps)  # type: ignore[attr-defined]
    return p, max(k, p)
