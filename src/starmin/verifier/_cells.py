"""Released cells against the original table: the value itself, an ancestor, or the star.

Privacy needs no hierarchy (a label is a value; equal released vectors form one class), but a
release must also be *truthful*: each released QI cell is the original value of its row, one
of that value's ancestors in the column's hierarchy, or the suppression symbol. Given the
original table (same rows, same order: starmin keeps row order) and, per column, an ARX
hierarchy, :func:`check_cells` checks every cell. A column without a hierarchy allows only
the value or the star (suppression).

This module has its own reader of ARX hierarchy CSV files (:func:`read_hierarchy`: no header,
one line per value, the value then its ancestors; separator ``;``, else tab, else ``,``,
whichever the first line holds; ``"`` quotes; an empty first field is the missing value) and
shares no code with :mod:`starmin.transform`.

Values compare by their text, with one allowance, since a table in memory and its CSV file
write some values differently: texts that read as the same number (``39``, ``39.0``) or as the
same truth value (``True``, ``true``) are the same value. A missing value is a value of its
own (kept missing, or generalized along the hierarchy line with an empty first field).

Complexity: per QI column, the distinct texts are canonicalized once and the ``n`` cells are
checked with one vectorized comparison plus an anti-join of the mismatches against the
column's (value, ancestor) pairs.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from starmin.errors import InvalidInput
from starmin.verifier.report import BadCell, CellCheck

EXAMPLES = 5
"""Violating cells listed."""

_MISSING = "\x00missing"
"""Canonical key of the missing value (no text reads as it)."""
_NULL = "\x00"
"""Stands for a missing value while texts are canonicalized."""

HierarchyRows = Sequence[Sequence[object]]


def read_hierarchy(source: str | os.PathLike[str] | HierarchyRows, column: str
                   ) -> list[tuple[str, ...]]:
    """The lines of an ARX hierarchy (a file, or rows already in memory) as tuples of text;
    ``None`` in memory and an empty first field are the missing value (``""``)."""
    if not isinstance(source, str | os.PathLike):
        return [tuple("" if v is None else str(v) for v in row) for row in source]
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InvalidInput(f"hierarchy file {path} for column {column!r} does not exist: check "
                           "the path") from None
    except (UnicodeDecodeError, IsADirectoryError):
        raise InvalidInput(f"hierarchy file {path} for column {column!r} is not UTF-8 text: "
                           "give the ARX hierarchy CSV used for the release") from None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise InvalidInput(f"hierarchy file {path} for column {column!r} is empty: give the "
                           "ARX hierarchy CSV used for the release")
    sep = next((s for s in (";", "\t", ",") if s in lines[0]), ";")
    return [tuple(r) for r in csv.reader(io.StringIO("\n".join(lines)), delimiter=sep,
                                         quotechar='"')]


def check_cells(released: pl.DataFrame, original: pl.DataFrame, qi: tuple[str, ...],
                hierarchies: Mapping[str, str | os.PathLike[str] | HierarchyRows],
                star: str) -> CellCheck:
    """Check every released QI cell against the original row (see the module docstring)."""
    if released.height != original.height:
        raise InvalidInput(f"the release has {released.height} rows but the original table "
                           f"{original.height}: give the table the release was made from "
                           "(starmin keeps every row, in order)")
    for c in qi:
        if c not in original.columns:
            raise InvalidInput(f"the original table has no column {c!r}: give the table the "
                               "release was made from")
    _check_hierarchy_columns(qi, hierarchies)
    pairs = {c: _pairs(read_hierarchy(h, c)) for c, h in hierarchies.items()}
    bad_parts: list[pl.DataFrame] = []
    generalized = violating = 0
    for c in qi:
        o_text, r_text = _text(original[c]), _text(released[c])
        frame = pl.DataFrame({"row": pl.arange(0, released.height, eager=True),
                              "o": _canon(o_text), "r": _canon(r_text),
                              "ot": o_text, "rt": r_text})
        odd = frame.filter((pl.col("o") != pl.col("r")) & (pl.col("rt") != star).fill_null(True))
        if c in pairs and odd.height:
            left = odd.join(pairs[c], on=["o", "r"], how="anti")
            generalized += odd.height - left.height
            odd = left
        violating += odd.height
        if odd.height:
            bad_parts.append(odd.head(EXAMPLES).with_columns(pl.lit(c).alias("column")))
    examples = _examples(bad_parts, qi)
    return CellCheck(passed=violating == 0, cells=released.height * len(qi),
                     generalized=generalized, violating=violating,
                     hierarchies=tuple(c for c in qi if c in hierarchies), examples=examples)


def check_cell_pairs(pairs: Mapping[str, pl.DataFrame], n: int, qi: tuple[str, ...],
                     hierarchies: Mapping[str, str | os.PathLike[str] | HierarchyRows],
                     star: str, first_bad: Any) -> CellCheck:
    """:func:`check_cells` on counted pairs, for tables whose rows stay where they are (the
    Spark path): ``pairs[c]`` holds, per QI column ``c``, every distinct (original value
    ``o``, released value ``r``) with its number of rows ``count``; ``first_bad(bad)`` is given
    the violating pairs per column (``o``, ``r``) and returns the first violating cells in row
    order as ``(row, column, original, released)``. The same rule, decided on the same
    canonical texts, as for a table in memory."""
    _check_hierarchy_columns(qi, hierarchies)
    known = {c: _pairs(read_hierarchy(h, c)) for c, h in hierarchies.items()}
    generalized = violating = 0
    bad: dict[str, pl.DataFrame] = {}
    for c in qi:
        frame = pairs[c]
        o_text, r_text = _text(frame["o"]), _text(frame["r"])
        frame = frame.with_columns(co=_canon(o_text), cr=_canon(r_text), rt=r_text)
        odd = frame.filter((pl.col("co") != pl.col("cr"))
                           & (pl.col("rt") != star).fill_null(True))
        if c in known and odd.height:
            left = odd.join(known[c].rename({"o": "co", "r": "cr"}), on=["co", "cr"],
                            how="anti")
            generalized += int(odd["count"].sum()) - int(left["count"].sum())
            odd = left
        violating += int(odd["count"].sum()) if odd.height else 0
        if odd.height:
            bad[c] = odd.select("o", "r")
    rows = sorted(first_bad(bad), key=lambda r: (r[0], qi.index(r[1]))) if bad else []
    examples = tuple(BadCell(int(r[0]), str(r[1]), _text(pl.Series([r[2]]))[0],
                             _text(pl.Series([r[3]]))[0]) for r in rows[:EXAMPLES])
    return CellCheck(passed=violating == 0, cells=n * len(qi), generalized=generalized,
                     violating=violating, hierarchies=tuple(c for c in qi if c in hierarchies),
                     examples=examples)


def _check_hierarchy_columns(qi: tuple[str, ...], hierarchies: Mapping[str, Any]) -> None:
    """Refuse a hierarchy for a column that is not a QI (one message for both checks)."""
    for c in hierarchies:
        if c not in qi:
            raise InvalidInput(f"a hierarchy is given for column {c!r}, which is not a "
                               f"quasi-identifier ({', '.join(qi)}): name it in the QI columns "
                               "or drop its hierarchy")


def _examples(parts: list[pl.DataFrame], qi: tuple[str, ...]) -> tuple[BadCell, ...]:
    """The first violating cells in row order (then QI column order)."""
    if not parts:
        return ()
    order = {c: i for i, c in enumerate(qi)}
    rows = [r for p in parts for r in p.select("row", "column", "ot", "rt").iter_rows()]
    rows.sort(key=lambda r: (r[0], order[r[1]]))
    return tuple(BadCell(int(r[0]), str(r[1]), r[2], r[3]) for r in rows[:EXAMPLES])


def _pairs(rows: list[tuple[str, ...]]) -> pl.DataFrame:
    """Every (value, ancestor label) of a hierarchy, canonical."""
    values = [r[0] if r and r[0] != "" else None for r in rows for _ in r[1:]]
    labels = [lab for r in rows for lab in r[1:]]
    return pl.DataFrame({"o": _canon(pl.Series(values, dtype=pl.String)),
                         "r": _canon(pl.Series(labels, dtype=pl.String))}).unique()


def _text(s: pl.Series) -> pl.Series:
    """A column as text: strings as they are, a 32-bit float by its shortest decimal text
    (``0.1``; Python would write the float32's exact value ``0.10000000149011612``), other
    values as Python writes them."""
    if s.dtype == pl.String:
        return s
    if s.dtype == pl.Categorical or isinstance(s.dtype, pl.Enum) or s.dtype == pl.Float32:
        return s.cast(pl.String)
    u = s.unique(maintain_order=True).drop_nulls()
    if s.dtype.is_float():
        u = u.filter(u.is_not_nan())
    text = [str(v) for v in u.to_list()]
    out = s.replace_strict(u, pl.Series(text, dtype=pl.String), default=None,
                           return_dtype=pl.String)
    return out


def _canon(s: pl.Series) -> pl.Series:
    """Canonical keys of texts: a number or truth value by what it reads as, other text as
    written, the missing value as its own key. Computed once per distinct text."""
    t = s.fill_null(_NULL)
    u = t.unique(maintain_order=True)
    as_int = u.cast(pl.Int64, strict=False)
    as_float = u.cast(pl.Float64, strict=False)
    frame = pl.DataFrame({"t": u, "i": as_int, "f": as_float})
    f = pl.col("f")
    lower = pl.col("t").str.to_lowercase()
    key = (pl.when(pl.col("t") == _NULL).then(pl.lit(_MISSING))
           .when(pl.col("i").is_not_null()).then("n:" + pl.col("i").cast(pl.String))
           .when(f.is_not_null() & f.is_finite() & (f == f.round()) & (f.abs() < 2.0 ** 53))
           .then("n:" + f.cast(pl.Int64).cast(pl.String))
           .when(f.is_not_null() & f.is_finite()).then("n:" + f.cast(pl.String))
           .when(lower.is_in(["true", "false"])).then("b:" + lower)
           .otherwise("t:" + pl.col("t")))
    keys = frame.select(key.alias("k"))["k"]
    return t.replace_strict(u, keys, return_dtype=pl.String)
