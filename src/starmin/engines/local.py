"""The embedded engine: polars + numpy on one machine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.engines.base import Stages
from starmin.engines.encode import combine_codes, encode_column
from starmin.errors import InvalidInput
from starmin.transform.plan import STAR, ReleasePlan

if TYPE_CHECKING:
    from starmin.io.output import OutputTarget

STAR_TEXT = "*"

MAX_COUNT_CELLS = 1 << 27
"""Largest row types x sensitive keys count matrix the local engine builds (1 GB of int64)."""


@dataclass(frozen=True, eq=False)
class LocalEncoded:
    """The input table with each row's row type and sensitive key."""

    table: pl.DataFrame
    schema: Schema
    row_types: RowTypes
    type_of_row: NDArray[np.int64]
    key_of_row: NDArray[np.int64]


class LocalEngine:
    """Aggregation and plan application with polars (the default engine)."""

    name = "local"

    def __init__(self) -> None:
        self.stages = Stages()

    def read(self, source: Any, schema: Schema) -> pl.DataFrame:
        """A path (CSV, Parquet, ``sample:NAME``) or a polars / pandas / pyarrow table as a
        polars DataFrame (:func:`starmin.io.tables.read_table`)."""
        from starmin.io.tables import read_table

        return read_table(source, schema=schema)

    def write(self, released: pl.DataFrame, target: OutputTarget, report: Any,
              separator: str = ",", html: str | None = None) -> None:
        """The release and its report (and HTML page), all or none
        (:func:`starmin.io.output.write_table_pair`)."""
        from starmin.errors import on_command_line
        from starmin.io.output import write_table_pair

        flag = "-o" if on_command_line() else "path"
        write_table_pair(released, target, report, separator, flag=flag, html=html)

    def to_row_types(self, table: pl.DataFrame, schema: Schema) -> LocalEncoded:
        """Encode QI and sensitive columns and count rows per (row type, sensitive key).

        Cost: one sort-based pass per column plus one ``np.unique`` over packed codes,
        O(n log n); memory O(n) small integers.
        """
        schema.check_columns(table.columns)
        schema.check_dtypes(table.schema)
        if table.height == 0:
            raise InvalidInput("the table has no rows: give a table with at least one record")
        for c in schema.qi:
            if _has_star(table[c]):
                raise InvalidInput(
                    f"QI column {c!r} already contains the suppression symbol '*': "
                    "rename that value before anonymizing"
                )
        qcodes, domains = zip(*(encode_column(table[c]) for c in schema.qi), strict=True)
        type_of_row = combine_codes(list(qcodes), [len(d) for d in domains])
        t_in = int(type_of_row.max()) + 1
        first = np.full(t_in, -1, dtype=np.int64)
        first[type_of_row[::-1]] = np.arange(len(type_of_row))[::-1]
        codes = np.stack([qc[first] for qc in qcodes], axis=1)
        if schema.sensitive:
            scodes, sdomains = zip(*(encode_column(table[c]) for c in schema.sensitive),
                                   strict=True)
            key_of_row = combine_codes(list(scodes), [len(d) for d in sdomains])
            s = int(key_of_row.max()) + 1
            kfirst = np.full(s, -1, dtype=np.int64)
            kfirst[key_of_row[::-1]] = np.arange(len(key_of_row))[::-1]
            keys = np.stack([sc[kfirst] for sc in scodes], axis=1)
        else:
            key_of_row = np.zeros(table.height, dtype=np.int64)
            s, keys, sdomains = 1, np.zeros((1, 0), dtype=np.int32), ()
        check_count_matrix(t_in, s, schema.sensitive)
        counts = np.bincount(type_of_row * s + key_of_row, minlength=t_in * s)
        rt = RowTypes(schema.qi, codes, counts.reshape(t_in, s).astype(np.int64),
                      tuple(domains), schema.sensitive, keys, tuple(sdomains))
        return LocalEncoded(table, schema, rt, type_of_row, key_of_row)

    def apply_plan(self, encoded: LocalEncoded, plan: ReleasePlan, seed: int = 0
                   ) -> pl.DataFrame:
        """Release the rows of ``encoded`` as ``plan`` says.

        Within each (row type, sensitive key) class the rows are put in a seeded random order
        and handed out to the plan's output vectors by their counts; QI cells become the
        released node's label: the value (text), an internal node's label from the column's
        hierarchy (``RowTypes.hierarchies``), or ``*`` for the root; identifiers are dropped;
        row order is kept.
        """
        rt = encoded.row_types
        plan.validate(rt)
        out_of_row = assign_outputs(encoded.type_of_row, encoded.key_of_row, rt.s, plan, seed)
        cols = []
        for j, c in enumerate(rt.qi):
            # node codes: values 0..card-1, internal nodes card.., the root (STAR) last
            groups = list(rt.hierarchies[j].labels) if rt.hierarchies is not None else []
            lookup = [None if v is None else _text(v) for v in rt.domains[j]] + groups \
                + [STAR_TEXT]
            idx = plan.outputs[out_of_row, j].astype(np.int64)
            idx[idx == STAR] = len(lookup) - 1
            cols.append(pl.Series(c, lookup, dtype=pl.String).gather(idx))
        table = encoded.table.with_columns(cols)
        return table.drop(list(encoded.schema.identifiers))


def check_count_matrix(t_in: int, s: int, sensitive: tuple[str, ...]) -> None:
    """Refuse a ``(t_in, s)`` count matrix larger than :data:`MAX_COUNT_CELLS` with an error
    that names the fix, rather than run out of memory: the algorithms need it dense."""
    if t_in * s <= MAX_COUNT_CELLS:
        return
    gb = t_in * s * 8 / 1e9
    which = ", ".join(sensitive)
    raise InvalidInput(
        f"the sensitive column(s) {which} hold {s:,} distinct values (combinations) over "
        f"{t_in:,} row types: the row-type count matrix would need {gb:,.1f} GB. Coarsen the "
        f"sensitive attribute first (e.g. bucket a salary into ranges), or use fewer QI "
        f"columns; `starmin verify` checks such tables without this matrix")


def assign_outputs(type_of_row: NDArray[np.int64], key_of_row: NDArray[np.int64], s: int,
                   plan: ReleasePlan, seed: int) -> NDArray[np.int64]:
    """``(n,)`` output-vector index of every row (see :meth:`LocalEngine.apply_plan`)."""
    n = len(type_of_row)
    cid = type_of_row * s + key_of_row
    rng = np.random.default_rng(seed)
    order = np.lexsort((rng.random(n), cid))          # rows by class, random within class
    sorted_cid = cid[order]
    class_start = np.searchsorted(sorted_cid, sorted_cid, side="left")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - class_start          # position of each row in its class
    ecid = plan.type_idx * s + plan.key_idx
    eorder = np.lexsort((plan.out_idx, ecid))
    ecid, eout, ecount = ecid[eorder], plan.out_idx[eorder], plan.count[eorder]
    cum = np.cumsum(ecount)
    base = cum - ecount                               # rows handed out before each entry
    first_entry = np.searchsorted(ecid, cid, side="left")
    pos = base[first_entry] + rank                    # global slot of each row
    return eout[np.searchsorted(cum, pos, side="right")]


def _has_star(s: pl.Series) -> bool:
    if s.dtype != pl.String:
        return False
    return bool((s == STAR_TEXT).any())


def _text(v: object) -> str:
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return str(v)
