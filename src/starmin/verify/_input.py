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

import polars as pl

from starmin.errors import InvalidInput

_SEPARATORS = (";", ",", "\t")


def names(value: str | Iterable[str] | None, what: str) -> tuple[str, ...]:
    """Column names from a list or a comma-separated string."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(c.strip() for c in value.split(",") if c.strip())
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


def read(path: Path, sensitive: tuple[str, ...]) -> pl.DataFrame:
    """Read a CSV (separator sniffed) or Parquet file."""
    if not path.exists():
        raise InvalidInput(f"table file {path} does not exist: check the path")
    if path.suffix.lower() in (".parquet", ".pq"):
        return pl.read_parquet(path)
    sep = sniff(path)
    _unique_header(path, sep)
    try:
        df = pl.read_csv(path, separator=sep, infer_schema=False)
    except pl.exceptions.PolarsError as exc:
        raise InvalidInput(f"cannot read {path} as CSV with separator {sep!r}: {exc}; "
                           "fix the file or give a Parquet file") from exc
    return df.with_columns([_numeric(df[c]) for c in sensitive if c in df.columns])


def _unique_header(path: Path, sep: str) -> None:
    """Raise when two columns of the CSV header share a name."""
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep), [])
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InvalidInput(f"{path} has two columns named {name!r}: rename one so every "
                               "column is unique")
        seen.add(name)


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


def to_frame(table: Any, sensitive: tuple[str, ...]) -> pl.DataFrame:
    """A polars DataFrame from a path or an in-memory polars / pandas / pyarrow table."""
    if isinstance(table, str | os.PathLike):
        return read(Path(table), sensitive)
    if isinstance(table, pl.DataFrame):
        return table
    if isinstance(table, pl.LazyFrame):
        return table.collect()
    mod = type(table).__module__
    if mod.startswith("pandas"):
        return pl.from_pandas(table)  # the index is not a column: row labels do not matter
    if mod.startswith("pyarrow"):
        out = pl.from_arrow(table)
        if isinstance(out, pl.DataFrame):
            return out
    raise InvalidInput(f"cannot verify a {type(table).__name__}: give a polars, pandas or "
                       "pyarrow table, or the path of a CSV or Parquet file")


def check_columns(df: pl.DataFrame, qi: tuple[str, ...], sensitive: tuple[str, ...]) -> None:
    """Raise for no QI, unknown, repeated or doubly-assigned columns, or an empty table."""
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
        if c not in df.columns:
            raise InvalidInput(f"unknown column {c!r}: the table has columns "
                               f"{', '.join(df.columns)}")
    if df.height == 0:
        raise InvalidInput("the table has no rows: verify a release with at least one record")
