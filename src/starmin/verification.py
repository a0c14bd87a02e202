"""The public :func:`verify`: check privacy models on any table, given as parameters.

This builds the models from ``k=``, ``l=``, ``t=``, ... (as :func:`starmin.anonymize` does) and
hands them to the independent verifier (:mod:`starmin.verifier`), which shares no code with the
algorithms or engines. It is light: no solver library is imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starmin.models.base import PrivacyModel
    from starmin.verifier.report import VerificationReport


def verify(
    table: Any,
    qi: str | Iterable[str],
    sensitive: str | Iterable[str] | None = None,
    model: PrivacyModel | Sequence[PrivacyModel] | None = None,
    *,
    k: int | None = None,
    l: float | None = None,
    l_kind: str = "frequency",
    c: float | None = None,
    t: float | None = None,
    distance: str = "equal",
    sa_hierarchy: str | Path | None = None,
    distance_matrix: str | Path | None = None,
    p: int | None = None,
    star: str = "*",
    original: Any = None,
    hierarchies: Mapping[str, str | Path | Sequence[Sequence[object]]] | None = None,
) -> VerificationReport:
    """Check a (released) table against privacy models; return the verdict.

    Parameters
    ----------
    table : a path (CSV read as text, as an attacker reads it; or Parquet), or a polars,
        pandas or pyarrow table.
    qi, sensitive : column names, as lists or comma-separated strings.
    model : model objects (:mod:`starmin.models`), combined with those from the parameters.
    k, l, l_kind, c, t, distance, sa_hierarchy, distance_matrix, p : the models, as for
        :func:`starmin.anonymize`; every one given must hold.
    star : the suppression symbol (for the star counts; otherwise an ordinary value).
    original : the table the release was made from (a path or a table; same rows, same
        order). When given, every released QI cell must also be its row's value, one of its
        ancestors, or ``star``; the verdict's ``cells`` says so.
    hierarchies : per QI column, the ARX hierarchy CSV the release used (with ``original``);
        a column without one allows only its value or ``star``.

    Returns
    -------
    VerificationReport : ``.passed``, per-model checks with the worst class and examples of
        violating classes, class sizes and star counts; ``.as_dict()`` for JSON.

    Examples
    --------
    >>> verdict = starmin.verify("out/adult-k5.csv", qi="sex,age,race", k=5)  # doctest: +SKIP
    >>> verdict.passed  # doctest: +SKIP
    True
    """
    from starmin.data.schema import column_names
    from starmin.model_params import the_model
    from starmin.verifier import verify as check

    params = {"k": k, "l": l, "l_kind": l_kind, "c": c, "t": t, "distance": distance,
              "sa_hierarchy": sa_hierarchy, "distance_matrix": distance_matrix, "p": p}
    combined = the_model(model, params, column_names(sensitive, "sensitive"))
    return check(table, qi, sensitive, [combined], star=star, original=original,
                 hierarchies=hierarchies)
