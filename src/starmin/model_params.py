"""Build models from flat parameters (the CLI flags and keyword arguments of ``anonymize``).

This sits above :mod:`starmin.models` because it also reads files (hierarchies, matrices)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from starmin.errors import InvalidInput

if TYPE_CHECKING:  # the CLI's flags read L_KINDS and DISTANCES: no numpy for --help
    from starmin.models.base import PrivacyModel

L_KINDS = ("frequency", "distinct", "entropy", "recursive")
DISTANCES = ("equal", "ordered", "hierarchical", "matrix")


def models_from_params(
    k: int | None = None,
    l: float | None = None,
    l_kind: str = "frequency",
    c: float | None = None,
    t: float | None = None,
    distance: str = "equal",
    sa_hierarchy: str | Path | None = None,
    distance_matrix: str | Path | None = None,
    p: int | None = None,
) -> list[PrivacyModel]:
    """Models for the given parameters, in the order k, l, t, p.

    ``l_kind`` picks the l-diversity variant (``frequency`` is the papers' form: every
    sensitive value at most 1/l of its class); ``c`` goes with ``recursive``; ``distance`` is
    the t-closeness ground distance, with ``sa_hierarchy`` (ARX CSV) for ``hierarchical`` and
    ``distance_matrix`` (CSV, square, no header) for ``matrix``; ``p`` with ``k`` gives
    p-sensitive k-anonymity.
    """
    from starmin import models as M

    out: list[PrivacyModel] = []
    if p is not None:
        if k is None:
            raise InvalidInput("--p needs --k: p-sensitive k-anonymity takes both, "
                               "e.g. --k 5 --p 2")
        out.append(M.PSensitiveKAnonymity(p=p, k=k))
    elif k is not None:
        out.append(M.KAnonymity(k))
    if l is not None:
        if l_kind not in L_KINDS:
            raise InvalidInput(f"unknown l-diversity kind {l_kind!r}: use one of {L_KINDS}")
        if l_kind == "recursive":
            if c is None:
                raise InvalidInput("recursive (c,l)-diversity needs --c, e.g. --c 3 --l 2")
            out.append(M.RecursiveCLDiversity(c=c, l=cast(int, l)))  # validated there
        else:
            kinds: dict[str, Callable[[int], PrivacyModel]] = {
                "frequency": M.LDiversity, "distinct": M.DistinctLDiversity,
                "entropy": M.EntropyLDiversity}
            out.append(kinds[l_kind](cast(int, l)))  # the model refuses a non-whole l
    elif c is not None:
        raise InvalidInput("--c is only used with --l and --l-kind recursive")
    if t is not None:
        out.append(M.TCloseness(t, distance=_distance(distance, sa_hierarchy, distance_matrix)))
    return out


def _distance(name: str, hierarchy: str | Path | None, matrix: str | Path | None) -> Any:
    from starmin import models as M

    if name == "equal":
        return M.EqualDistance()
    if name == "ordered":
        return M.OrderedDistance()
    if name == "hierarchical":
        if hierarchy is None:
            raise InvalidInput("hierarchical distance needs --sa-hierarchy FILE (ARX CSV)")
        from starmin.transform.hierarchy import Hierarchy

        return M.HierarchicalDistance(Hierarchy.read(hierarchy).rows)
    if name == "matrix":
        if matrix is None:
            raise InvalidInput("matrix distance needs --distance-matrix FILE (square CSV)")
        import numpy as np

        try:
            D = np.loadtxt(matrix, delimiter=",", ndmin=2)
        except ValueError as exc:
            raise InvalidInput(f"cannot read distance matrix {matrix}: {exc}") from exc
        return M.MatrixDistance(D)
    raise InvalidInput(f"unknown distance {name!r}: use one of {', '.join(DISTANCES)}")


def combine(models: Sequence[PrivacyModel]) -> PrivacyModel:
    """One model for several: the model itself, or ``AllOf`` of them."""
    if len(models) == 1:
        return models[0]
    from starmin.models import AllOf

    return AllOf(*models)
