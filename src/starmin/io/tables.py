"""Table input.

CSV (separator sniffed; ARX files use ``;``; read as text, a column becoming numbers only when
every value reads back exactly as written; when a schema is given, its QI and sensitive columns
are read as categoricals -- one code per row, the text once per distinct value -- for the
engine, which codes them anyway; the release gives them back as text, see
:attr:`starmin.api.Release.table`), Parquet, ``sample:NAME`` for the bundled samples,
or an in-memory pandas / polars / pyarrow table. Writing (the release and its report as an
atomic pair) is :mod:`starmin.io.output`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import polars as pl

from starmin.data.csv_file import (
    checked_lines,
    exact_number,
    first_line,
    no_records,
    scan,
    sniff_separator,
    unique_header,
)
from starmin.data.schema import Schema
from starmin.errors import InvalidInput

PARQUET_SUFFIXES = (".parquet", ".pq")
QUICK_LOOK = 1000
"""Leading values searched for a first non-missing value to reject a text column at once."""

# the opening bytes of files that are not CSV text, and what to do about them
_NOT_TEXT = ((b"PAR1", "is a Parquet file: rename it to end in .parquet"),
             (b"\x1f\x8b", "is gzip-compressed: decompress it first (gunzip)"),
             (b"PK\x03\x04", "is a zip archive (an Excel workbook?): export the sheet as CSV"),
             (b"\xff\xfe", "is UTF-16 text: save it as UTF-8"),
             (b"\xfe\xff", "is UTF-16 text: save it as UTF-8"))


def read_table(source: Any, separator: str | None = None,
               schema: Schema | None = None) -> pl.DataFrame:
    """Read ``source`` into a polars DataFrame (see module docstring).

    With ``schema``, its columns are checked against the file's header (or Parquet schema)
    before the records are read, and the QI and sensitive columns must hold plain values.
    Every problem is an :class:`InvalidInput` naming the file, the line where known, and the fix.
    """
    if not isinstance(source, str | os.PathLike):
        df = to_polars(source)
    elif str(source).startswith("sample:"):
        from starmin.datasets import load

        df = load(str(source).removeprefix("sample:"))
    else:
        path = input_file(Path(source))
        if path.suffix.lower() in PARQUET_SUFFIXES:
            return _read_parquet(path, schema)
        return _read_csv(path, separator, schema)
    if schema is not None:
        schema.check_columns(df.columns)
        schema.check_dtypes(df.schema)
    return df


def input_file(path: Path) -> Path:
    """``path`` if it is a readable file, else an error naming what it is."""
    if not path.exists():
        raise InvalidInput(f"input file {path} does not exist: check the path")
    if path.is_dir():
        raise InvalidInput(f"input {path} is a directory: give a CSV or Parquet file in it")
    if not os.access(path, os.R_OK):
        raise InvalidInput(f"input file {path} cannot be read (permission denied): check its "
                           "permissions")
    return path


def _read_parquet(path: Path, schema: Schema | None) -> pl.DataFrame:
    with open(path, "rb") as fh:
        head = fh.read(64)
    if not head.startswith(b"PAR1"):
        text = head and all(b in b"\t\r\n" or 32 <= b < 127 or b >= 128 for b in head)
        hint = ("it holds text (a CSV file?): rename it to end in .csv" if text else
                "give a Parquet file, or a CSV file named *.csv")
        raise InvalidInput(f"{path} is not a Parquet file: {hint}")
    try:
        dtypes = pl.read_parquet_schema(path)
        if schema is not None:
            schema.check_columns(list(dtypes), source=path)
            schema.check_dtypes(dtypes, source=path)
        return pl.read_parquet(path)
    except (pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError) as exc:
        raise InvalidInput(f"cannot read {path} as Parquet ({first_line(exc)}): the file is "
                           "damaged or incomplete; write it again") from None


def _read_csv(path: Path, separator: str | None, schema: Schema | None) -> pl.DataFrame:
    with open(path, "rb") as fh:
        head = fh.read(8192)
    for magic, what in _NOT_TEXT:
        if head.startswith(magic):
            raise InvalidInput(f"{path} {what}")
    if b"\0" in head:
        raise InvalidInput(f"{path} is not a CSV text file (it holds binary data): give a CSV "
                           "or Parquet file")
    sep = separator or sniff_separator(path)
    header = unique_header(path, sep)
    if schema is not None:
        schema.check_columns(header, source=path)
    coded = set(schema.qi) | set(schema.sensitive) if schema is not None else set()
    try:
        df = pl.read_csv(path, separator=sep, infer_schema=False,
                         schema_overrides={c: pl.Categorical for c in coded})
    except pl.exceptions.PolarsError as exc:
        raise InvalidInput(scan(path, sep, len(header))[0] or
                           f"cannot read {path} as CSV with separator {sep!r} "
                           f"({first_line(exc)}): fix the file or give a Parquet file") from None
    df = checked_lines(df, path, sep, len(header))
    if df.height == 0:
        raise no_records(path, head)
    # each column under a plain name while it is converted: polars runs some Series methods
    # as a select on the Series' name, which a name such as "^b$" turns into a pattern
    return df.with_columns([(coded_as_number if c in coded else as_number)(
        df.get_column(c).alias("value")).alias(c) for c in df.columns])


def as_number(col: pl.Series) -> pl.Series:
    """A text column as integers or floats when every value reads back exactly as written
    (``"39"``, ``"-2.5"``); otherwise the text itself, so ``"02138"``, ``"3.10"`` or a ``"?"``
    anywhere in the file keep their exact values. A column whose first value is not a number
    is decided from that value alone, without a pass over the column."""
    head = col.head(QUICK_LOOK).drop_nulls().head(1)
    if len(head) and exact_number(head) is None:
        return col
    num = exact_number(col)
    return col if num is None else num


def coded_as_number(col: pl.Series) -> pl.Series:
    """:func:`as_number` for a text column read as a categorical: the test runs on its
    distinct values only; a column of numbers is converted, text stays categorical."""
    u = col.unique()
    num = exact_number(u.cast(pl.String))
    if num is None:
        return col
    phys = u.to_physical()  # each row's number: looked up by its category's code
    size = int(phys.fill_null(0).to_numpy().max(initial=0)) + 1
    table = pl.Series(col.name, [None] * size, dtype=num.dtype)
    table = table.scatter(phys.drop_nulls(), num.filter(phys.is_not_null()))
    return table.gather(col.to_physical())


def to_polars(table: Any) -> pl.DataFrame:
    """Convert a pandas / pyarrow / polars table at the boundary."""
    if isinstance(table, pl.DataFrame):
        return table
    if isinstance(table, pl.LazyFrame):
        try:
            return table.collect()
        except pl.exceptions.PolarsError as exc:
            raise InvalidInput(f"cannot compute the LazyFrame ({first_line(exc)}): fix the "
                               "query, or pass a DataFrame") from None
    mod = type(table).__module__
    kind = mod.split(".")[0]
    if kind in ("pandas", "pyarrow"):
        try:
            out = pl.from_pandas(table) if kind == "pandas" else pl.from_arrow(table)
        except (pl.exceptions.PolarsError, ValueError, TypeError) as exc:
            raise InvalidInput(_unconvertible(table, kind, exc)) from None
        if isinstance(out, pl.DataFrame):
            return out
    raise InvalidInput(
        f"cannot read a {type(table).__name__}: give a path, a polars, pandas or pyarrow table"
    )


def _unconvertible(table: Any, kind: str, exc: Exception) -> str:
    """Which column of a pandas / pyarrow table polars cannot take, as a message."""
    for name in getattr(table, "columns", getattr(table, "column_names", [])):
        try:
            if kind == "pandas":
                pl.from_pandas(table[[name]])
            else:
                pl.from_arrow(table.select([name]))
        except (pl.exceptions.PolarsError, ValueError, TypeError) as col_exc:
            return (f"column {name!r} of the {kind} table cannot be converted "
                    f"({first_line(col_exc)}): give it one type of plain values, e.g. "
                    "convert it to text")
    return (f"cannot convert the {kind} table ({first_line(exc)}): give columns of plain "
            "values (text, numbers, dates)")
