"""Reading a CSV file as written: its separator, header, line layout and the number rule.

Shared by the engine's reader (:mod:`starmin.io.tables`) and the verifier's own reader
(:mod:`starmin.verifier._input`), so that ``starmin verify`` reads every file ``anonymize``
reads -- and writes -- the same way. Nothing here judges privacy: these are the file's
integrity checks (one message naming the file, the line and the fix) and the rule that a
column is numeric only when every value reads back exactly as written.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import polars as pl

from starmin.errors import InvalidInput

SEPARATORS = (";", ",", "\t", "|")


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


def no_records(path: Path, head: bytes) -> InvalidInput:
    """The error for a CSV file that read as a header without records (``head``: its first
    bytes): old Mac line endings (a carriage return alone) make the whole file one line."""
    if b"\r" in head and b"\n" not in head:
        return InvalidInput(f"{path} ends its lines with a carriage return alone (old Mac "
                            "line endings), so it reads as one line: save it with LF or CRLF "
                            "line endings")
    return InvalidInput(f"{path} has a header but no records: give at least one record")


def unique_header(path: Path, sep: str) -> list[str]:
    """The header's column names; two columns may not share a name, and the header must be
    UTF-8 text (a bad byte there was replaced by U+FFFD and written into the release)."""
    with open(path, "rb") as raw:
        first = raw.readline()
    try:
        first.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} line 1 (the header) is not UTF-8 text (byte "
                           f"0x{first[exc.start]:02x}): save the file as UTF-8 (e.g. iconv -f "
                           "latin1 -t utf-8)") from None
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


def layout(path: Path, sep: str, width: int) -> tuple[str | None, list[int]]:
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
    """Read a CSV file line by line (slow; only for files :func:`layout` cannot judge): the
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


def checked_lines(df: pl.DataFrame, path: Path, sep: str, width: int) -> pl.DataFrame:
    """``df`` as polars read it from ``path``, checked line by line where that is needed:
    polars refuses a line with too many fields but reads one with too few, or a blank line,
    with missing values at the end, so only when the last column has missing values is each
    line's field count looked at (a ragged line raises; blank lines are dropped)."""
    last = df.columns[-1] if df.width else None
    problem, blank = layout(path, sep, width) if last and df[last].null_count() else (None, [])
    if problem is not None:
        raise InvalidInput(problem)
    if blank:  # polars reads a blank line as a record of missing values: drop those
        keep = np.ones(df.height, dtype=bool)
        keep[np.asarray(blank, dtype=np.int64)] = False
        df = df.filter(pl.Series(keep))
    return df


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (at most 200 characters)."""
    lines = [x.strip() for x in str(exc).splitlines() if x.strip()]
    return lines[0][:200] if lines else type(exc).__name__


def exact_number(col: pl.Series) -> pl.Series | None:
    """A text column as Int64, else Float64, when every value reads back exactly as written
    (``"39"``, ``"-2.5"``; not ``"02138"`` or ``"3.10"``) and none is ``"NaN"`` (as a float
    it would be the engine's missing value, which only the empty field is); else None. The
    read-back test runs on the distinct values (every value reads back iff every distinct one
    does), so a column costs one cast per row and, when that cast succeeds, one ``unique``."""
    distinct: pl.Series | None = None
    for dtype in (pl.Int64, pl.Float64):
        num = col.cast(dtype, strict=False)
        if num.null_count() != col.null_count():
            continue
        if dtype == pl.Float64 and bool(num.is_nan().any()):
            return None  # "NaN" stays text: a value of its own, never the missing value
        if distinct is None:
            distinct = col.unique()
        back = distinct.cast(dtype, strict=False).cast(pl.String)
        if bool((back == distinct).fill_null(True).all()):
            return num
    return None
