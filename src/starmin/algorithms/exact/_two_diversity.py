"""Shared checks of the exact 2-diversity algorithms (``two-diversity-flow``, ``-milp``).

Both solve *frequency* l-diversity with ``l = 2`` (Xiao, Yi & Tao, Definition 2: a class is
2-eligible when no sensitive value holds more than half of its rows) for a table with exactly
one sensitive column. Liang & Yuan's Lemma 2 (Sec. 6) lets both search only partitions into
groups of 2 or 3 rows with distinct sensitive values.

This module holds what both need: which models and tables they accept, the 2-eligibility
check (Xiao, Yi & Tao, Lemma 1 and its corollary: a 2-diverse release exists iff the whole
table is 2-eligible), Hamming distances of row types and the empty plan.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput
from starmin.models.base import PrivacyModel
from starmin.models.l_diversity import LDiversity
from starmin.transform.plan import Guarantee, ReleasePlan


def model_reason(model: PrivacyModel, method: str) -> str | None:
    """``None`` when ``model`` is frequency 2-diversity (:class:`LDiversity` with ``l = 2``),
    else why ``method`` cannot solve it. Other forms (distinct, entropy, recursive (c, 2)) and
    conjunctions are refused: Lemma 2's pairs-and-triples argument is for the frequency form
    (a recursive (c, 2) class may hold a value more than half of the time, for instance)."""
    if isinstance(model, LDiversity) and model.l == 2:
        return None
    label = getattr(model, "name", type(model).__name__)
    return (f"{method} solves frequency 2-diversity (LDiversity(2): each sensitive value at "
            f"most half of its class) only, got {label}; use another method for this model")


def table_reason(rt: RowTypes, method: str) -> str | None:
    """``None`` when ``rt`` has exactly one sensitive column, else the reason."""
    if len(rt.sensitive) != 1:
        return (f"{method} needs exactly one sensitive column, the table has "
                f"{len(rt.sensitive)}: declare one sensitive column")
    return None


def value_counts(rt: RowTypes) -> NDArray[np.int64]:
    """``(s,)`` rows per sensitive key (with one sensitive column: per value)."""
    return rt.counts.sum(axis=0)


def value_name(rt: RowTypes, key: int) -> object:
    """The decoded sensitive value of key ``key`` (one sensitive column)."""
    return rt.sensitive_domains[0][int(rt.keys[key, 0])]


def check_two_eligible(rt: RowTypes) -> None:
    """Raise :class:`Infeasible` unless no sensitive value holds more than half of the rows.

    By Xiao, Yi & Tao's Lemma 1 (union of l-eligible sets is l-eligible) a 2-diverse release
    exists iff the whole table is 2-eligible (their corollary to Lemma 1, Sec. 3)."""
    counts = value_counts(rt)
    n = int(counts.sum())
    if n == 0:
        return
    j = int(np.argmax(counts))
    f = int(counts[j])
    if 2 * f > n:
        raise Infeasible(
            f"no l-diverse release exists (l = 2): value {value_name(rt, j)!r} of "
            f"{rt.sensitive[0]!r} has frequency {f}/{n} > 1/2 in the whole table (Xiao et al. "
            f"Lemma 1); drop {2 * f - n} rows of that value or add rows with other values"
        )


def hamming(a: NDArray[np.integer], b: NDArray[np.integer],
            dtype: type[np.signedinteger] = np.int64) -> NDArray[np.signedinteger]:
    """``(p, q)`` number of columns where row ``i`` of ``a (p, m)`` and row ``j`` of
    ``b (q, m)`` differ (one pass per column keeps memory at ``p x q``)."""
    out = np.zeros((a.shape[0], b.shape[0]), dtype=dtype)
    for c in range(a.shape[1]):
        out += a[:, c, None] != b[None, :, c]
    return out


def empty_plan(rt: RowTypes, method: str, guarantee: Guarantee) -> ReleasePlan:
    """The plan of a table without rows: nothing to release, cost 0."""
    return ReleasePlan.from_groups(rt, [], method, guarantee, lower_bound=0)


def start(rt: RowTypes, model: PrivacyModel, method: str, guarantee: Guarantee,
          options: dict[str, object], known: tuple[str, ...] = ()) -> ReleasePlan | None:
    """The checks the exact 2-diversity methods open with: no unknown options (``options``
    holds those left after the method's ``known`` keywords), the right model and table
    (``InvalidInput``), a 2-eligible table (``Infeasible``). Returns the empty plan for an
    empty table, else None."""
    if options:
        takes = f"takes only {', '.join(known)}" if known else "takes no options"
        raise InvalidInput(f"{method} {takes}, not {sorted(options)}; remove them")
    reason = model_reason(model, method) or table_reason(rt, method)
    if reason is not None:
        raise InvalidInput(reason)
    check_two_eligible(rt)
    return empty_plan(rt, method, guarantee) if rt.n == 0 else None
