"""The verifier's own table reader and argument checks (it shares no code with the engines).

CSV files are read with every column as text, so released values are compared exactly as
written (an attacker sees ``"39"`` and ``"39.0"`` as different values); a sensitive column
whose every value reads back exactly as written when taken as a number (``"39"``, ``"-2.5"``;
not ``"03"`` or ``"3.10"``) is then converted to numbers, so ordered distances sort numerically
(the engine's reader follows the same rule). Empty fields are missing values.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from starmin.data.schema import dtype_problem, unknown_column
from starmin.errors import InvalidInput

_SEPARATORS = (";", ",", "\t")


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


def sniff(path: Path) -> str:
    """``;``, ``,`` or tab: whichever the header line contains most (``,`` if none)."""
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        header = fh.readline()
    if not header.strip():
        raise InvalidInput(f"{path} is empty: give a CSV file with a header row and records")
    counts = {sep: header.count(sep) for sep in _SEPARATORS}
    best = max(_SEPARATORS, key=lambda s: counts[s])
    return best if counts[best] else ","


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
    sep = sniff(path)
    header = _unique_header(path, sep)
    width = len(header)
    if qi is not None:
        check_names(header, qi, sensitive)
    try:
        df = pl.read_csv(path, separator=sep, infer_schema=False)
    except pl.exceptions.PolarsError as exc:
        raise InvalidInput(_scan(path, sep, width)[0] or
                           f"cannot read {path} as CSV with separator {sep!r} "
                           f"({_first_line(exc)}): fix the file or give a Parquet file") from None
    # polars refuses a line with too many fields but reads one with too few, or a blank line,
    # with missing values at the end: only then is each line's field count looked at
    last = df.columns[-1] if df.width else None
    problem, blank = _layout(path, sep, width) if last and df[last].null_count() else (None, [])
    if problem is not None:
        raise InvalidInput(problem)
    if blank:  # polars reads a blank line as a record of missing values: drop those
        keep = np.ones(df.height, dtype=bool)
        keep[np.asarray(blank, dtype=np.int64)] = False
        df = df.filter(pl.Series(keep))
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
        raise InvalidInput(f"cannot read {path} as Parquet ({_first_line(exc)}): the file is "
                           "damaged or incomplete; write it again") from None


def _layout(path: Path, sep: str, width: int) -> tuple[str | None, list[int]]:
    """The first line whose field count is not ``width`` (a message, or None) and the record
    numbers of the blank lines. Vectorized: a line's fields are its count of ``sep`` outside
    quoted values, plus one; a file where a quoted value spans lines goes to :func:`_scan`."""
    lines = pl.read_csv(path, has_header=False, separator="\x1f", quote_char=None,
                        infer_schema=False, new_columns=["line"])
    if lines.width != 1:
        return _scan(path, sep, width)
    line = pl.col("line")
    fields = line.str.count_matches(sep, literal=True) + 1
    found = lines.select(quoted=line.str.contains('"', literal=True).any(),
                         ragged=(fields != width).any())
    if found["quoted"][0]:  # count again without the quoted values (which may hold sep)
        outside = line.str.replace_all('"[^"]*"', "")
        found = lines.select(
            quoted=(line.str.count_matches('"', literal=True) % 2 == 1).any(),  # multi-line
            ragged=(outside.str.count_matches(sep, literal=True) + 1 != width).any())
    if found["quoted"][0] or found["ragged"][0]:
        return _scan(path, sep, width)
    blank = lines.with_row_index().filter(line.is_null())["index"]
    return None, [int(i) - 1 for i in blank if i > 0]


def _scan(path: Path, sep: str, width: int) -> tuple[str | None, list[int]]:
    """Line by line (slow, for the files :func:`_layout` cannot judge): the first line that is
    not UTF-8, opens a quote it never closes, or has other than ``width`` fields (a message, or
    None); and the record numbers of the blank lines."""
    with open(path, "rb") as fh:
        for no, raw in enumerate(fh, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return (f"{path} line {no} is not UTF-8 text (byte 0x{raw[exc.start]:02x}): "
                        "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"), []
    blank: list[int] = []
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh, delimiter=sep, strict=True)
        start = 1
        try:
            for record, row in enumerate(reader, -1):
                if not row and record >= 0:
                    blank.append(record)
                if row and len(row) != width:
                    return (f"{path} line {start} has {len(row)} field"
                            f"{'s' if len(row) != 1 else ''} but the header has {width}: give "
                            f"every line {width} fields separated by {sep!r} (quote a value "
                            "that holds the separator)"), blank
                start = reader.line_num + 1
        except csv.Error as exc:
            if reader.line_num > start or "end of data" in str(exc):
                return (f"{path} line {start} opens a quote that is never closed: close it "
                        "(a quote inside a quoted value is written twice: \"\")"), blank
            return f"{path} line {start}: {exc}: fix the quoting of that line", blank
    return None, blank


def _first_line(exc: BaseException) -> str:
    lines = [x.strip() for x in str(exc).splitlines() if x.strip()]
    return lines[0][:200] if lines else type(exc).__name__


def _unique_header(path: Path, sep: str) -> list[str]:
    """The CSV header's names; raise when two columns share a name."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep), [])
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InvalidInput(f"{path} has two columns named {name!r}: rename one so every "
                               "column is unique")
        seen.add(name)
    return header


def _numeric(col: pl.Series) -> pl.Series:
    """``col`` as numbers when every value reads back exactly as written; else unchanged."""
    if _as_number(col.drop_nulls().head(1)) is None:
        return col  # the first value is text: decided without a pass over the column
    num = _as_number(col)
    return col if num is None else num


def _as_number(col: pl.Series) -> pl.Series | None:
    """``col`` as Int64 or else Float64 if every value reads back exactly; else None."""
    for dtype in (pl.Int64, pl.Float64):
        num = col.cast(dtype, strict=False)
        if num.null_count() == col.null_count() and bool(
                (num.cast(pl.String) == col).fill_null(True).all()):
            return num
    return None


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
            raise InvalidInput(f"cannot convert the {kind} table ({_first_line(exc)}): give "
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
