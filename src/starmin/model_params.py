"""Build models from flat parameters (the CLI flags and keyword arguments of ``anonymize``).

This sits above :mod:`starmin.models` because it also reads files (hierarchies, matrices)."""

from __future__ import annotations

import difflib
import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from starmin.errors import InvalidInput, on_command_line, param

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

    _check_unused(k, l, l_kind, c, t, distance, sa_hierarchy, distance_matrix, p)
    out: list[PrivacyModel] = []
    if p is not None:
        if k is None:
            raise InvalidInput(f"{param('p', p)} needs {param('k')} too: p-sensitive "
                               f"k-anonymity takes both, e.g. {param('k', 5)} {_and()}"
                               f"{param('p', 2)}")
        out.append(M.PSensitiveKAnonymity(p=p, k=k))
    elif k is not None:
        out.append(M.KAnonymity(k))
    if l is not None:
        if l_kind == "recursive":
            if c is None:
                raise InvalidInput(f"recursive (c,l)-diversity needs {param('c')}, e.g. "
                                   f"{param('c', 3)} {_and()}{param('l', 2)}")
            out.append(M.RecursiveCLDiversity(c=c, l=cast(int, l)))  # validated there
        else:
            kinds: dict[str, Callable[[int], PrivacyModel]] = {
                "frequency": M.LDiversity, "distinct": M.DistinctLDiversity,
                "entropy": M.EntropyLDiversity}
            out.append(kinds[l_kind](cast(int, l)))  # the model refuses a non-whole l
    if t is not None:
        out.append(M.TCloseness(t, distance=_distance(distance, sa_hierarchy, distance_matrix)))
    return out


def _and() -> str:
    return "" if on_command_line() else "and "


def _check_unused(k: object, l: object, l_kind: object, c: object, t: object,
                  distance: object, sa_hierarchy: object, distance_matrix: object,
                  p: object) -> None:
    """Refuse a parameter that would be silently ignored, or an unknown choice."""
    if l_kind not in L_KINDS:
        raise InvalidInput(f"unknown l-diversity kind {param('l_kind', l_kind)}: use one of "
                           f"{', '.join(L_KINDS)}")
    if distance not in DISTANCES:
        raise InvalidInput(f"unknown ground distance {param('distance', distance)}: use one of "
                           f"{', '.join(DISTANCES)}")
    if c is not None and (l is None or l_kind != "recursive"):
        raise InvalidInput(f"{param('c', c)} is only used by recursive (c,l)-diversity: add "
                           f"{param('l', 2)} {_and()}{param('l_kind', 'recursive')}, or drop "
                           f"{param('c')}")
    if l is None and l_kind != "frequency":
        raise InvalidInput(f"{param('l_kind', l_kind)} needs {param('l')}, e.g. "
                           f"{param('l', 2)}")
    if t is None and distance != "equal":
        raise InvalidInput(f"{param('distance', distance)} is a t-closeness ground distance "
                           f"and needs {param('t')}, e.g. {param('t', 0.2)}")
    for name, value, needed in (("sa_hierarchy", sa_hierarchy, "hierarchical"),
                                ("distance_matrix", distance_matrix, "matrix")):
        if value is not None and (t is None or distance != needed):
            raise InvalidInput(f"{param(name, value)} is only used with "
                               f"{param('distance', needed)} (t-closeness): add "
                               f"{param('t', 0.2)} {_and()}{param('distance', needed)}, or "
                               f"drop {param(name)}")


def _distance(name: str, hierarchy: str | Path | None, matrix: str | Path | None) -> Any:
    from starmin import models as M

    if name == "equal":
        return M.EqualDistance()
    if name == "ordered":
        return M.OrderedDistance()
    if name == "hierarchical":
        if hierarchy is None:
            raise InvalidInput(f"{param('distance', 'hierarchical')} needs "
                               f"{param('sa_hierarchy', 'FILE')} (an ARX hierarchy CSV of the "
                               "sensitive values)")
        from starmin.transform.hierarchy import Hierarchy

        return M.HierarchicalDistance(Hierarchy.read(_file("sa_hierarchy", hierarchy)).rows)
    if matrix is None:
        raise InvalidInput(f"{param('distance', 'matrix')} needs "
                           f"{param('distance_matrix', 'FILE')} (a square CSV of numbers)")
    path = _file("distance_matrix", matrix)
    import numpy as np

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy warns on an empty file; we raise below
            D = np.loadtxt(path, delimiter=",", ndmin=2)
    except ValueError as exc:  # also UnicodeDecodeError
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InvalidInput(f"cannot read the distance matrix {path} ({first}): give a square "
                           "CSV of numbers, one row per sensitive value, no header") from None
    return M.MatrixDistance(D)


def _file(name: str, value: str | Path) -> Path:
    """``value`` as the path of a readable file, or an error naming the parameter."""
    path = Path(value)
    if not path.exists():
        raise InvalidInput(f"{param(name, value)}: {path} does not exist; check the path")
    if not path.is_file():
        raise InvalidInput(f"{param(name, value)}: {path} is not a file (a directory?); give "
                           "a CSV file")
    if not os.access(path, os.R_OK):
        raise InvalidInput(f"{param(name, value)}: {path} cannot be read (permission denied)")
    return path


def combine(models: Sequence[PrivacyModel]) -> PrivacyModel:
    """One model for several: the model itself, or ``AllOf`` of them."""
    from starmin.models.base import PrivacyModel

    for m in models:
        if not isinstance(m, PrivacyModel):
            raise InvalidInput(f"{param('model', m)} is not a privacy model: pass e.g. "
                               f"model=KAnonymity(5), or a parameter such as {param('k', 5)}")
    if len(models) == 1:
        return models[0]
    from starmin.models import AllOf

    return AllOf(*models)


def the_model(model: PrivacyModel | Sequence[PrivacyModel] | None, params: dict[str, Any],
              sensitive: Sequence[str]) -> PrivacyModel:
    """One model for a public call: the ``model`` objects given plus those built from the
    parameters (``k=``, ``l=``, ...), combined; refused when there is none, or when it judges
    sensitive values and no ``sensitive`` column is named (before any data is read)."""
    from starmin.models.apply import check_sensitive

    models = list(model) if isinstance(model, Sequence) else ([model] if model else [])
    models += models_from_params(**params)
    if not models:
        raise InvalidInput(f"no privacy model given: add e.g. {param('k', 5)} (k-anonymity) "
                           f"or {param('l', 2)} (l-diversity)")
    combined = combine(models)
    check_sensitive(combined, sensitive)
    return combined


PARAMS = ("k", "l", "l_kind", "c", "t", "distance", "sa_hierarchy", "distance_matrix", "p")
"""The keyword arguments :func:`models_from_params` takes (and ``anonymize`` passes on)."""


def check_call(function: str, params: Iterable[str], method: object, seed: object,
               progress: object) -> None:
    """Check the arguments of a public ``function`` that are not models or columns: its extra
    keywords (model parameters), ``method``, ``seed`` (a whole number >= 0) and ``progress``
    (None or a callable taking a message)."""
    check_keywords(function, params)
    check_method(method)
    from starmin.models._params import whole

    whole("seed", seed, 0, 0)
    if progress is not None and not callable(progress):
        raise InvalidInput(f"{param('progress', progress)} is not callable: pass a function "
                           "that takes a message, e.g. progress=print")


def check_keywords(function: str, given: Iterable[str]) -> None:
    """Raise ``TypeError`` naming the public ``function`` for a keyword it does not take
    (the closest accepted one is suggested)."""
    for name in given:
        if name not in PARAMS:
            close = difflib.get_close_matches(name, PARAMS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TypeError(f"{function}() got an unexpected keyword argument {name!r}{hint} "
                            f"(model parameters: {', '.join(PARAMS)}; a method's own "
                            f"settings go in options={{...}})")


def check_method(method: object) -> None:
    """Raise for a ``method`` that names no algorithm (before any data is read)."""
    from starmin.algorithms.registry import algorithms, find

    if method in ("auto", "exact") or find(method) is not None:
        return
    names = ("auto", "exact", *algorithms())
    if method not in names:
        close = difflib.get_close_matches(str(method), names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise InvalidInput(f"{param('method', method)} names no algorithm: {hint}use one of "
                           f"{', '.join(names)}")

