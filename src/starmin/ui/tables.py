"""Tables the page opens: a path on this machine, an uploaded file or a bundled sample.

:func:`preview` reads the table with the reader every run uses
(:func:`starmin.io.tables.read_table`), so a file the page cannot open gets the message the
command line gives for it, and describes it for the page: its rows, each column's type,
distinct and missing values, the first rows, and the roles to start from (a sample's default
QI and sensitive columns; for a file every column starts as ``ignore``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PREVIEW_ROWS = 12
"""Rows the page shows of an opened table."""


@dataclass(frozen=True)
class Table:
    """An opened table: ``source`` is what the run reads (a path or ``sample:NAME``),
    ``label`` what the page shows, ``columns`` its column names, ``info`` the preview."""

    id: str
    source: str
    label: str
    columns: tuple[str, ...]
    info: dict[str, Any] = field(repr=False)
    uploaded: bool = False


def _cell(value: object) -> object:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    return str(value)


def preview(source: str) -> dict[str, Any]:
    """The page's description of the table at ``source`` (raises the reader's
    :class:`~starmin.errors.InvalidInput` for a table that cannot be read)."""
    from starmin.io.tables import read_table

    df = read_table(source)
    columns = []
    for name, dtype in df.schema.items():
        col = df[name]
        columns.append({"name": name, "dtype": str(dtype), "distinct": col.n_unique(),
                        "missing": col.null_count()})
    rows = [[_cell(v) for v in row] for row in df.head(PREVIEW_ROWS).iter_rows()]
    roles = {c: "ignore" for c in df.columns}
    fmt = "csv"
    if source.startswith("sample:"):
        from starmin import datasets

        name = source.removeprefix("sample:")
        roles.update({c: "qi" for c in datasets.default_qi(name)})
        roles.update({c: "sensitive" for c in datasets.default_sensitive(name)})
    elif Path(source).suffix.lower() in (".parquet", ".pq"):
        fmt = "parquet"
    elif Path(source).suffix.lower() == ".tsv":
        fmt = "tsv"
    return {"n": df.height, "columns": columns, "rows": rows, "roles": roles, "format": fmt}


def open_source(table_id: str, text: str, *, label: str | None = None,
                uploaded: bool = False) -> Table:
    """Open the path or ``sample:NAME`` the page gave (relative paths from the folder
    ``starmin ui`` started in, as on the command line)."""
    from starmin.errors import InvalidInput

    source = text.strip()
    if not source:
        raise InvalidInput("no file given: type the path of a CSV or Parquet file on this "
                           "machine, choose a sample, or upload a file")
    if source.startswith("sample:"):
        source = "sample:" + source.removeprefix("sample:").strip().lower()
    else:
        source = os.path.expanduser(source)
    info = preview(source)
    names = tuple(c["name"] for c in info["columns"])
    return Table(table_id, source, label or source, names, info, uploaded)


def samples() -> list[dict[str, str]]:
    """The bundled samples the page offers: name and description."""
    from starmin.datasets import SAMPLES

    return [{"name": s.name, "description": s.description} for s in SAMPLES.values()]
