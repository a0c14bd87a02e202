"""The verifier's own table reader and argument checks (it shares no code with the engines or
algorithms; the CSV file's separator, header and line checks and the number rule come from
:mod:`starmin.data.csv_file`, shared with the engine's reader so that ``starmin verify`` reads
every file ``anonymize`` reads and writes).

CSV files are read with every column as text, so released values are compared exactly as
written (an attacker sees ``"39"`` and ``"39.0"`` as different values); a sensitive column
whose every value reads back exactly as written when taken as a number (``"39"``, ``"-2.5"``;
not ``"03"`` or ``"3.10"``) is then converted to numbers, so ordered distances sort numerically
(the engine's reader follows the same rule). Empty fields are missing values.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
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
from starmin.data.schema import dtype_problem, read_as_pattern, unknown_column
from starmin.errors import InvalidInput


def names(value: str | Iterable[str] | None, what: str) -> tuple[str, ...]:
    """Column names from a list or a comma-separated string."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(c.strip() for c in value.split(",") if c.strip())
    if not isinstance(value, Iterable):
        raise InvalidInput(f"{what} columns must be a list of names, got {value!r}: pass e.g. "
                           "['age', 'zip']")
    out = tuple(value)
    for c in out:
        if not isinstance(c, str):
            raise InvalidInput(f"{what} column names must be strings, got {c!r}: "
                               "pass e.g. ['age', 'zip']")
    return out


def read(path: Path, sensitive: tuple[str, ...],
         qi: tuple[str, ...] | None = None) -> pl.DataFrame:
    """Read a CSV (separator sniffed) or Parquet file; every problem is one
    :class:`InvalidInput` naming the file, the line where known, and the fix. With ``qi``,
    the column names (``qi`` and ``sensitive``) are checked against the header, or the
    Parquet schema, before the table is read (:func:`check_names`)."""
    if not path.exists():
        raise InvalidInput(f"table file {path} does not exist: check the path")
    if path.is_dir():
        raise InvalidInput(f"table {path} is a directory: give a CSV or Parquet file in it")
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192)
    except OSError as exc:
        raise InvalidInput(f"cannot read {path} ({exc.strerror}): check its permissions"
                           ) from None
    if path.suffix.lower() in (".parquet", ".pq"):
        return _parquet(path, head, sensitive, qi)
    if head.startswith(b"PAR1"):
        raise InvalidInput(f"{path} is a Parquet file: rename it to end in .parquet")
    if b"\0" in head or head.startswith((b"\x1f\x8b", b"PK\x03\x04")):
        raise InvalidInput(f"{path} is not a CSV text file (it holds binary, compressed or "
                           "UTF-16 data): give a UTF-8 CSV file or a Parquet file")
    sep = sniff_separator(path)
    header = unique_header(path, sep)
    width = len(header)
    if qi is not None:
        check_names(header, qi, sensitive)
    try:
        df = pl.read_csv(path, separator=sep, infer_schema=False)
    except pl.exceptions.PolarsError as exc:
        raise InvalidInput(scan(path, sep, width)[0] or
                           f"cannot read {path} as CSV with separator {sep!r} "
                           f"({first_line(exc)}): fix the file or give a Parquet file") from None
    df = checked_lines(df, path, sep, width)
    if df.height == 0 and b"\r" in head and b"\n" not in head:
        raise no_records(path, head)
    return df.with_columns([_numeric(df[c]) for c in sensitive if c in df.columns])


def _parquet(path: Path, head: bytes, sensitive: tuple[str, ...],
             qi: tuple[str, ...] | None) -> pl.DataFrame:
    if not head.startswith(b"PAR1"):
        raise InvalidInput(f"{path} is not a Parquet file: give a Parquet file, or rename a "
                           "CSV file to end in .csv")
    try:
        if qi is not None:
            check_names(list(pl.read_parquet_schema(path)), qi, sensitive)
        return pl.read_parquet(path)
    except (pl.exceptions.PolarsError, pl.exceptions.PanicException, OSError) as exc:
        raise InvalidInput(f"cannot read {path} as Parquet ({first_line(exc)}): the file is "
                           "damaged or incomplete; write it again") from None


def _numeric(col: pl.Series) -> pl.Series:
    """``col`` as numbers when every value reads back exactly as written; else unchanged."""
    if exact_number(col.drop_nulls().head(1)) is None:
        return col  # the first value is text: decided without a pass over the column
    num = exact_number(col)
    return col if num is None else num


def to_frame(table: Any, sensitive: tuple[str, ...],
             qi: tuple[str, ...] | None = None) -> pl.DataFrame:
    """A polars DataFrame from a path or an in-memory polars / pandas / pyarrow table (a
    file's column names are checked before it is read when ``qi`` is given; see
    :func:`read`)."""
    if isinstance(table, str | os.PathLike):
        return read(Path(table), sensitive, qi)
    if isinstance(table, pl.DataFrame):
        return table
    if isinstance(table, pl.LazyFrame):
        return table.collect()
    kind = type(table).__module__.split(".")[0]
    if kind in ("pandas", "pyarrow"):
        try:  # a pandas index is not a column: row labels do not matter
            out = pl.from_pandas(table) if kind == "pandas" else pl.from_arrow(table)
        except (pl.exceptions.PolarsError, ValueError, TypeError) as exc:
            raise InvalidInput(f"cannot convert the {kind} table ({first_line(exc)}): give "
                               "columns of one type of plain values (text, numbers, dates)"
                               ) from None
        if isinstance(out, pl.DataFrame):
            return out
    raise InvalidInput(f"cannot verify a {type(table).__name__}: give a polars, pandas or "
                       "pyarrow table, or the path of a CSV or Parquet file")


def check_columns(df: pl.DataFrame, qi: tuple[str, ...], sensitive: tuple[str, ...]) -> None:
    """Raise for no QI, unknown, repeated or doubly-assigned columns, columns of values that
    cannot be compared, or an empty table."""
    check_names(df.columns, qi, sensitive)
    for group, what in ((qi, "quasi-identifier"), (sensitive, "sensitive")):
        for c in group:
            problem = dtype_problem(df.schema[c])
            if problem is not None:
                raise InvalidInput(f"{what} column {c!r} holds {problem}")
    if df.height == 0:
        raise InvalidInput("the table has no rows: verify a release with at least one record")


def check_names(columns: list[str], qi: tuple[str, ...], sensitive: tuple[str, ...]) -> None:
    """Raise for no QI, or a repeated, doubly-assigned or unknown column name (``columns``:
    the table's, e.g. from a file's header before the table is read)."""
    if not qi:
        raise InvalidInput("no quasi-identifier columns given: name them, e.g. qi=['age', 'zip']")
    for group, what in ((qi, "quasi-identifier"), (sensitive, "sensitive")):
        if len(set(group)) != len(group):
            dup = next(c for c in group if group.count(c) > 1)
            raise InvalidInput(f"{what} column {dup!r} is named twice: name each column once")
    both = [c for c in qi if c in sensitive]
    if both:
        raise InvalidInput(f"column {both[0]!r} is named both as quasi-identifier and as "
                           "sensitive: give each column one role")
    for c in (*qi, *sensitive):
        if c not in columns:
            raise unknown_column(c, columns)
        if read_as_pattern(c):
            raise InvalidInput(f"column {c!r} cannot be checked: the table library reads the "
                               "name '*' as every column and a name from ^ to $ as a "
                               "pattern; rename the column (in the file's header or the table)")
