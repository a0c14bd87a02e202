"""Table input and atomic output.

Inputs: CSV (separator sniffed; ARX files use ``;``; read as text, a column becoming numbers
only when every value reads back exactly as written), Parquet, ``sample:NAME`` for the bundled
samples, or an in-memory pandas / polars / pyarrow table. Outputs are written to a temporary
file in the target folder and renamed into place, so a failed run leaves nothing half-written.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


def read_table(source: Any, separator: str | None = None) -> pl.DataFrame:
    """Read ``source`` into a polars DataFrame (see module docstring)."""
    if not isinstance(source, str | os.PathLike):
        return to_polars(source)
    text = str(source)
    if text.startswith("sample:"):
        from starmin.datasets import load

        return load(text.removeprefix("sample:"))
    path = Path(text)
    if not path.exists():
        raise InvalidInput(f"input file {path} does not exist: check the path")
    if path.suffix.lower() in (".parquet", ".pq"):
        return pl.read_parquet(path)
    sep = separator or sniff_separator(path)
    _check_header(path, sep)
    try:
        df = pl.read_csv(path, separator=sep, infer_schema=False, null_values=[""])
    except pl.exceptions.PolarsError as exc:
        raise InvalidInput(f"cannot read {path} as CSV with separator {sep!r}: {exc}") from exc
    return df.with_columns([as_number(df[c]) for c in df.columns])


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


def _check_header(path: Path, sep: str) -> None:
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep), [])
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise InvalidInput(
                f"{path} has two columns named {name!r}: rename one so every column is unique"
            )
        seen.add(name)


def to_polars(table: Any) -> pl.DataFrame:
    """Convert a pandas / pyarrow / polars table at the boundary."""
    if isinstance(table, pl.DataFrame):
        return table
    if isinstance(table, pl.LazyFrame):
        return table.collect()
    mod = type(table).__module__
    if mod.startswith("pandas"):
        return pl.from_pandas(table)
    if mod.startswith("pyarrow"):
        out = pl.from_arrow(table)
        if isinstance(out, pl.DataFrame):
            return out
    raise InvalidInput(
        f"cannot read a {type(table).__name__}: give a path, a polars, pandas or pyarrow table"
    )


def _atomic(path: Path, write: Callable[[Path], None]) -> None:
    from starmin.io.output import temp_beside

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_beside(path)  # mode 0o666 less the umask, like any file the user creates
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_table(table: pl.DataFrame, path: str | os.PathLike[str], separator: str = ",") -> None:
    """Write CSV or Parquet (by suffix) atomically."""
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        _atomic(p, lambda t: table.write_parquet(t))
    else:
        _atomic(p, lambda t: table.write_csv(t, separator=separator))


def write_json(obj: Any, path: str | os.PathLike[str]) -> None:
    """Write JSON atomically."""
    text = json.dumps(obj, indent=2, default=str) + "\n"

    def write(t: Path) -> None:
        t.write_text(text)

    _atomic(Path(path), write)
