"""Table input.

CSV (separator sniffed; ARX files use ``;``; read as text, a column becoming numbers only when
every value reads back exactly as written), Parquet, ``sample:NAME`` for the bundled samples,
or an in-memory pandas / polars / pyarrow table. Writing (the release and its report as an
atomic pair) is :mod:`starmin.io.output`.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from starmin.data.schema import Schema
from starmin.errors import InvalidInput

SEPARATORS = (";", ",", "\t", "|")
PARQUET_SUFFIXES = (".parquet", ".pq")

# the opening bytes of files that are not CSV text, and what to do about them
_NOT_TEXT = ((b"PAR1", "is a Parquet file: rename it to end in .parquet"),
             (b"\x1f\x8b", "is gzip-compressed: decompress it first (gunzip)"),
             (b"PK\x03\x04", "is a zip archive (an Excel workbook?): export the sheet as CSV"),
             (b"\xff\xfe", "is UTF-16 text: save it as UTF-8"),
             (b"\xfe\xff", "is UTF-16 text: save it as UTF-8"))


def sniff_separator(path: Path) -> str:
    """The separator of a CSV file: the candidate that splits the first lines most evenly."""
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        lines = [line for _, line in zip(range(20), fh, strict=False) if line.strip()]
    if not lines:
        raise InvalidInput(f"{path} is empty: give a CSV file with a header row and records")
    best, best_score = ",", -1
    for sep in SEPARATORS:
        counts = [line.count(sep) for line in lines]
        if counts[0] == 0:
            continue
        score = counts[0] * 1000 + sum(c == counts[0] for c in counts)
        if score > best_score:
            best, best_score = sep, score
    return best


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
        raise InvalidInput(f"cannot read {path} as Parquet ({_first_line(exc)}): the file is "
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
    header = _header(path, sep)
    if schema is not None:
        schema.check_columns(header, source=path)
    try:
        df = pl.read_csv(path, separator=sep, infer_schema=False, null_values=[""])
    except pl.exceptions.PolarsError as exc:
        raise InvalidInput(scan(path, sep, len(header))[0] or
                           f"cannot read {path} as CSV with separator {sep!r} "
                           f"({_first_line(exc)}): fix the file or give a Parquet file") from None
    # polars refuses a line with too many fields but reads one with too few, or a blank line,
    # with missing values at the end: only then is each line's field count looked at
    last = df.columns[-1] if df.width else None
    width = len(header)
    problem, blank = _layout(path, sep, width) if last and df[last].null_count() else (None, [])
    if problem is not None:
        raise InvalidInput(problem)
    if blank:  # polars reads a blank line as a record of missing values: drop those
        keep = np.ones(df.height, dtype=bool)
        keep[np.asarray(blank, dtype=np.int64)] = False
        df = df.filter(pl.Series(keep))
    if df.height == 0:
        raise InvalidInput(f"{path} has a header but no records: give at least one record")
    return df.with_columns([as_number(df[c]) for c in df.columns])


def _layout(path: Path, sep: str, width: int) -> tuple[str | None, list[int]]:
    """The first line whose field count is not the header's ``width`` (as a message, or None),
    and the record numbers (0 = the first after the header) of the blank lines. Vectorized: the
    fields of a line are its count of ``sep`` outside quoted values, plus one; a file where a
    quoted value spans lines (or a line needs a closer look) is read by :func:`scan`."""
    lines = pl.read_csv(path, has_header=False, separator="\x1f", quote_char=None,
                        infer_schema=False, new_columns=["line"])
    if lines.width != 1:
        return scan(path, sep, width)
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
        return scan(path, sep, width)
    blank = lines.with_row_index().filter(line.is_null())["index"]
    return None, [int(i) - 1 for i in blank if i > 0]


def scan(path: Path, sep: str, width: int) -> tuple[str | None, list[int]]:
    """Read a CSV file line by line (slow; only for files :func:`_layout` cannot judge): the
    first line that is not UTF-8, opens a quote it never closes, or has a field count other
    than ``width``, as a message (None if every line is fine); and the blank lines' record
    numbers."""
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


def as_number(col: pl.Series) -> pl.Series:
    """A text column as integers or floats when every value reads back exactly as written
    (``"39"``, ``"-2.5"``); otherwise the text itself, so ``"02138"``, ``"3.10"`` or a ``"?"``
    anywhere in the file keep their exact values."""
    for dtype in (pl.Int64, pl.Float64):
        num = col.cast(dtype, strict=False)
        if num.null_count() == col.null_count() and bool(
                (num.cast(pl.String) == col).fill_null(True).all()):
            return num
    return col


def _header(path: Path, sep: str) -> list[str]:
    """The header's column names; two columns may not share a name."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep), [])
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InvalidInput(
                f"{path} has two columns named {name!r}: rename one so every column is unique"
            )
        seen.add(name)
    return header


def to_polars(table: Any) -> pl.DataFrame:
    """Convert a pandas / pyarrow / polars table at the boundary."""
    if isinstance(table, pl.DataFrame):
        return table
    if isinstance(table, pl.LazyFrame):
        try:
            return table.collect()
        except pl.exceptions.PolarsError as exc:
            raise InvalidInput(f"cannot compute the LazyFrame ({_first_line(exc)}): fix the "
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
                    f"({_first_line(col_exc)}): give it one type of plain values, e.g. "
                    "convert it to text")
    return (f"cannot convert the {kind} table ({_first_line(exc)}): give columns of plain "
            "values (text, numbers, dates)")
