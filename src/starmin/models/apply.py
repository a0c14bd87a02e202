"""Judge classes of a :class:`RowTypes` table under a model, over every sensitive column."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput, StarminError, param
from starmin.models.base import PrivacyModel
from starmin.models.combine import parts


def holds(model: PrivacyModel, rt: RowTypes, key_counts: NDArray[np.integer]) -> NDArray[np.bool_]:
    """``(g,)`` bool: does each class, given as ``(g, s)`` counts over ``rt``'s sensitive keys,
    satisfy ``model`` for every sensitive column?  A class with no rows is vacuously fine."""
    key_counts = np.asarray(key_counts, dtype=np.int64)
    if key_counts.ndim == 1:
        key_counts = key_counts[None, :]
    overall = rt.sensitive_histograms(rt.counts.sum(axis=0))
    ok = np.ones(key_counts.shape[0], dtype=bool)
    for hist, tot, vals in zip(rt.sensitive_histograms(key_counts), overall,
                               rt.sensitive_values(), strict=True):
        ok &= model.evaluate(hist, tot[0], vals).ok
    ok |= key_counts.sum(axis=1) == 0
    return ok


PROTECTS_NOTHING_MAX_VALUES = 1_000
"""Sensitive columns with more values than this are not judged by :func:`protects_nothing`
(one one-row class per value; a matrix distance solves an LP for each)."""


def protects_nothing(model: PrivacyModel, rt: RowTypes) -> bool:
    """Whether every class of ``rt``'s rows satisfies ``model``, so that no release needs a
    star and none protects anything (e.g. k = 1, l = 1, t = 1, or t at least the largest
    distance from one value's row to the table).

    Decided on the one-row classes: every model here is closed under union of classes (see
    docs/algorithms/merge-repair.md, "Why the release is always valid"), every class is a
    union of one-row classes, and a one-row class's verdict on a sensitive column depends
    only on its value there. So the answer is True exactly when a one-row class of each
    value of each sensitive column passes. A column of more than
    :data:`PROTECTS_NOTHING_MAX_VALUES` values is not judged: the answer is then False (no
    warning; never a wrong one)."""
    for tot, vals in zip(rt.sensitive_histograms(rt.counts.sum(axis=0)),
                         rt.sensitive_values(), strict=True):
        present = np.flatnonzero(tot[0])
        if present.size > PROTECTS_NOTHING_MAX_VALUES:
            return False
        for start in range(0, present.size, 256):
            idx = present[start:start + 256]
            one_row = np.zeros((idx.size, tot.shape[1]), dtype=np.int64)
            one_row[np.arange(idx.size), idx] = 1
            if not model.evaluate(one_row, tot[0], vals).ok.all():
                return False
    return True


def check_sensitive(model: PrivacyModel, sensitive: Sequence[str]) -> None:
    """Raise when ``model`` judges sensitive values but no sensitive column is named."""
    if sensitive:
        return
    needy = [m.name for m in parts(model) if m.uses_sensitive]
    if needy:
        raise InvalidInput(f"{needy[0]} needs a sensitive column, and none was given: name it "
                           f"with {param('sensitive', 'COLUMN')}")


def check_feasible(model: PrivacyModel, rt: RowTypes) -> None:
    """Raise when no release of ``rt`` can satisfy ``model`` (see ``check_feasible``); with
    several sensitive columns the message names the column."""
    check_sensitive(model, rt.sensitive)
    names = rt.sensitive if len(rt.sensitive) > 1 else (None,)
    for name, tot, vals in zip(names, rt.sensitive_histograms(rt.counts.sum(axis=0)),
                               rt.sensitive_values(), strict=True):
        try:
            model.check_feasible(tot[0], vals)
        except StarminError as exc:
            if name is None:
                raise
            raise type(exc)(f"sensitive column {name!r}: {exc}") from exc
