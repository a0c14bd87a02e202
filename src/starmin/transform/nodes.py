"""From hierarchy files to the node codes a release plan uses.

:func:`column_hierarchy` turns a validated ARX hierarchy (:class:`Hierarchy`, labels) into the
:class:`~starmin.data.hierarchies.ColumnHierarchy` of one QI column of a table (node codes over
the column's values, ``RowTypes.domains[j]``): the values are the leaves ``0 .. card - 1``; the
groups that hold at least one value of the table become internal nodes ``card, card + 1, ...``
(level by level, each level in order of its first value's code); the file's single top is the
root (``-1``). Leaves under a node are counted over every line of the file (the hierarchy's
domain, as ARX counts it), so a file listing values the table lacks gives the loss measures
ARX gives.

:func:`resolve` builds the hierarchies of a whole table: a file (or
:class:`Hierarchy`) for the columns given one, a built-in hierarchy
(:mod:`starmin.transform.builtin`) for the others when ``generalize`` is set, suppression
only otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from starmin.data.hierarchies import ROOT, ColumnHierarchy, Hierarchies
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput, param
from starmin.transform.builtin import builtin
from starmin.transform.hierarchy import Hierarchy

HierarchySpec = str | os.PathLike[str] | Hierarchy
"""A hierarchy as the API takes it: an ARX CSV file, or a :class:`Hierarchy`."""


def column_hierarchy(h: Hierarchy, domain: Sequence[object], column: str = "") -> ColumnHierarchy:
    """The node-code hierarchy of a column with values ``domain`` (see the module docstring).

    Raises :class:`InvalidInput` when ``h`` is not a tree (:meth:`Hierarchy.check_tree`) or
    lacks a line for a value of ``domain`` (naming the value and the line to add)."""
    h.check_tree(column)
    rows = h.index(domain, column)  # (card,) file line of each value
    card = len(domain)
    top = h.rows[0][-1]
    parent: list[int] = [ROOT] * card
    level: list[int] = [0] * card
    labels: list[str] = []
    leaves: list[int] = [1] * card
    below = np.arange(card, dtype=np.int64)  # node of each value at the previous level
    for lv in range(1, h.top):
        names = h.labels(lv)
        lab = h.level_codes(lv)[rows]  # (card,) label code of each value at level lv
        count = np.bincount(h.level_codes(lv), minlength=len(names))  # lines per label
        node = np.full(card, ROOT, dtype=np.int64)
        _, first = np.unique(lab, return_index=True)
        for code in lab[np.sort(first)]:  # labels in order of their first value's code
            if names[code] == top:
                continue
            node[lab == code] = card + len(labels)
            labels.append(names[code])
            level.append(lv)
            leaves.append(int(count[code]))
            parent.append(ROOT)
        moved = node != below  # values whose node at this level is new (or the root)
        for child, up in {int(c): int(u) for c, u in zip(below[moved], node[moved], strict=True)
                          }.items():
            if child == ROOT:
                continue
            parent[child] = up
        below = np.where(moved, node, below)
    return ColumnHierarchy(card, np.array(parent), np.array(level), h.top, tuple(labels),
                           np.array(leaves), len(h), h.source or "given")


@dataclass(frozen=True)
class Resolved:
    """The hierarchies of a table: node codes for the row types, and the files behind them."""

    hierarchies: Hierarchies
    files: Mapping[str, Hierarchy]
    """The ARX hierarchy of every column that is not suppression-only (given or built-in)."""


def read_specs(specs: Mapping[str, HierarchySpec] | None, qi: Sequence[str]
               ) -> dict[str, Hierarchy]:
    """Read the hierarchies given per column (files or :class:`Hierarchy` objects) before the
    table is read; every column must be a quasi-identifier."""
    if specs is None:
        return {}
    if not isinstance(specs, Mapping):
        raise InvalidInput(f"{param('hierarchies')} must map QI columns to hierarchy files, "
                           f"e.g. {param('hierarchies', {'age': 'age.csv'})}")
    out: dict[str, Hierarchy] = {}
    for column, spec in specs.items():
        if column not in qi:
            raise InvalidInput(f"a hierarchy is given for column {column!r}, which is not a "
                               f"quasi-identifier ({', '.join(qi)}): add it to "
                               f"{param('qi')} or drop its hierarchy")
        if isinstance(spec, Hierarchy):
            out[column] = spec
        elif isinstance(spec, str | os.PathLike):
            out[column] = Hierarchy.read(Path(spec), name=column)
        else:
            raise InvalidInput(f"the hierarchy for column {column!r} is a "
                               f"{type(spec).__name__}: give an ARX hierarchy CSV file or a "
                               "starmin.transform.Hierarchy")
    return out


def resolve(rt: RowTypes, given: Mapping[str, Hierarchy], generalize: bool) -> Resolved | None:
    """The hierarchies of ``rt``'s QI columns: ``given`` ones, built-in ones for the other
    columns when ``generalize``, flat (suppression only) otherwise; ``None`` when there is
    nothing to generalize (no hierarchy given and ``generalize`` off)."""
    if not given and not generalize:
        return None
    cols: list[ColumnHierarchy] = []
    files: dict[str, Hierarchy] = {}
    for j, c in enumerate(rt.qi):
        h = given.get(c)
        if h is None and generalize:
            h = builtin(rt.domains[j], c)
        if h is None:
            cols.append(ColumnHierarchy.flat(len(rt.domains[j])))
            continue
        col = column_hierarchy(h, rt.domains[j], c)
        cols.append(col)
        if not col.is_flat or c in given:
            files[c] = h
    return Resolved(Hierarchies(tuple(cols)), files)
