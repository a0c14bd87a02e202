"""The embedded engine: polars on one machine.

Every pass over the rows is a polars operation (multi-threaded) or one vectorized numpy pass;
everything else works on the distinct values:

* aggregation numbers each row's combination of QI and sensitive values
  (:func:`~starmin.engines.grouping.group_rows`: dense codes packed into one 64-bit key per
  row, one integer ``group_by``); the values are coded (natural sort order, missing last) on
  the combinations' distinct values (:func:`~starmin.engines.encode.code_values`), and each
  row keeps the number of its combination (4 bytes);
* applying a plan hands each (row type, sensitive key) class that the plan releases as one
  output vector to that vector directly; only the rows of classes the plan splits over several
  output vectors are put in a seeded random order (a rank within their class, polars
  ``rank().over()``), as before: the same release, byte for byte, as a full sort of the rows
  by (class, seeded uniform) would give; the released QI columns are gathered from a small
  table of the output vectors' labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.engines.base import Stages
from starmin.engines.encode import code_values, combine_codes
from starmin.engines.grouping import group_rows
from starmin.errors import InvalidInput
from starmin.transform.plan import STAR, ReleasePlan

if TYPE_CHECKING:
    from starmin.io.output import OutputTarget

STAR_TEXT = "*"

MAX_COUNT_CELLS = 1 << 27
"""Largest row types x sensitive keys count matrix the local engine builds (1 GB of int64)."""

UNIFORM_CHUNK = 1 << 22
"""Rows per block of seeded uniforms drawn when a plan splits classes (bounds the memory)."""


@dataclass(frozen=True, eq=False)
class LocalEncoded:
    """The input table, its row types, and each row's group: the rows of group ``g`` share
    their QI and sensitive values; the group lies in row type ``group_type[g]`` and has
    sensitive key ``group_key[g]``."""

    table: pl.DataFrame
    schema: Schema
    row_types: RowTypes
    group_of_row: NDArray[np.integer]
    group_type: NDArray[np.int64]
    group_key: NDArray[np.int64]

    @property
    def type_of_row(self) -> NDArray[np.int64]:
        """``(n,)`` row type of every row."""
        return self.group_type[self.group_of_row]

    @property
    def key_of_row(self) -> NDArray[np.int64]:
        """``(n,)`` sensitive key of every row."""
        return self.group_key[self.group_of_row]


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
        """Code QI and sensitive columns and count rows per (row type, sensitive key).

        Cost: a few multi-threaded polars passes over the rows, O(n)
        (:func:`~starmin.engines.grouping.group_rows`); the coding, the row types and the
        counts cost O(g log g) in the ``g`` distinct (QI, sensitive) combinations. Memory:
        12 bytes per row while grouping, 4 kept (each row's combination).
        """
        schema.check_columns(table.columns)
        schema.check_dtypes(table.schema)
        if table.height == 0:
            raise InvalidInput("the table has no rows: give a table with at least one record")
        cols = [*schema.qi, *schema.sensitive]
        groups, sizes, group_of_row = group_rows(table, cols)
        for c in schema.qi:
            if groups[c].dtype == pl.String and bool((groups[c] == STAR_TEXT).any()):
                raise InvalidInput(
                    f"QI column {c!r} already contains the suppression symbol '*': "
                    "rename that value before anonymizing"
                )
        qcodes, domains = zip(*(code_values(groups[c]) for c in schema.qi), strict=True)
        group_type = combine_codes(list(qcodes), [len(d) for d in domains])
        t_in = int(group_type.max()) + 1
        codes = np.empty((t_in, len(schema.qi)), dtype=np.int32)
        codes[group_type] = np.stack(qcodes, axis=1)
        if schema.sensitive:
            scodes, sdomains = zip(*(code_values(groups[c]) for c in schema.sensitive),
                                   strict=True)
            group_key = combine_codes(list(scodes), [len(d) for d in sdomains])
            s = int(group_key.max()) + 1
            keys = np.empty((s, len(schema.sensitive)), dtype=np.int32)
            keys[group_key] = np.stack(scodes, axis=1)
        else:
            group_key = np.zeros(groups.height, dtype=np.int64)
            s, keys, sdomains = 1, np.zeros((1, 0), dtype=np.int32), ()
        check_count_matrix(t_in, s, schema.sensitive)
        counts = np.zeros(t_in * s, dtype=np.int64)
        np.add.at(counts, group_type * s + group_key, sizes)
        rt = RowTypes(schema.qi, codes, counts.reshape(t_in, s),
                      tuple(domains), schema.sensitive, keys, tuple(sdomains))
        return LocalEncoded(table, schema, rt, group_of_row, group_type, group_key)

    def apply_plan(self, encoded: LocalEncoded, plan: ReleasePlan, seed: int = 0,
                   categorical: bool = False) -> pl.DataFrame:
        """Release the rows of ``encoded`` as ``plan`` says.

        Within each (row type, sensitive key) class the rows are put in a seeded random order
        and handed out to the plan's output vectors by their counts; QI cells become the
        released node's label: the value (text), an internal node's label from the column's
        hierarchy (``RowTypes.hierarchies``), or ``*`` for the root; identifiers are dropped;
        row order is kept.

        ``categorical=True`` releases the QI columns as polars categoricals (4 bytes a cell
        instead of a text cell's 16 and more; the same labels, so the same CSV bytes); the
        default releases them as text (``pl.String``). :func:`as_text` turns the one into the
        other.
        """
        rt = encoded.row_types
        plan.validate(rt)
        out_of_row = assign_groups(encoded.group_of_row, encoded.group_type * rt.s
                                   + encoded.group_key, rt.s, plan, seed)
        labels = {}
        for j, c in enumerate(rt.qi):
            # node codes: values 0..card-1, internal nodes card.., the root (STAR) last
            groups = list(rt.hierarchies[j].labels) if rt.hierarchies is not None else []
            lookup = [None if v is None else _text(v) for v in rt.domains[j]] + groups \
                + [STAR_TEXT]
            idx = plan.outputs[:, j].astype(np.int64)
            idx[idx == STAR] = len(lookup) - 1
            labels[c] = pl.Series(c, lookup, dtype=pl.String).gather(idx)
            if categorical:
                labels[c] = labels[c].cast(pl.Categorical)
        released = pl.DataFrame(labels).select(pl.all().gather(pl.Series(out_of_row)))
        table = encoded.table.with_columns(released.get_columns())
        return table.drop(list(encoded.schema.identifiers))


def as_text(released: pl.DataFrame, cols: tuple[str, ...]) -> pl.DataFrame:
    """``released`` with those of ``cols`` that are categoricals as text: the QI columns of
    ``apply_plan(..., categorical=True)``, as :meth:`LocalEngine.apply_plan` releases them by
    default, and the sensitive columns the reader gave as categoricals."""
    cast = [c for c in cols if released.schema[c] == pl.Categorical]
    return released.with_columns(pl.col(cast).cast(pl.String)) if cast else released


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
    """``(n,)`` output-vector index of every row (see :meth:`LocalEngine.apply_plan`), given
    each row's row type and sensitive key."""
    t_in = int(type_of_row.max()) + 1 if len(type_of_row) else 0
    classes = np.arange(t_in * s, dtype=np.int64)  # here each class is its own group
    return assign_groups(type_of_row * s + key_of_row, classes, s, plan, seed).astype(np.int64)


def assign_groups(group_of_row: NDArray[np.integer], group_class: NDArray[np.int64], s: int,
                  plan: ReleasePlan, seed: int) -> NDArray[np.int32]:
    """``(n,)`` output-vector index of every row, given each row's group and each group's
    class ``type * s + key``.

    The rows of a class are ranked by a seeded uniform (``np.random.default_rng(seed)
    .random(n)[row]``, ties by row number) and handed out in that order to the class's plan
    entries in order of output vector, each taking its count. A class with one entry (the
    common case) needs no ranking: all its rows go to that entry's output vector; only the
    rows of split classes are ranked, within their class (polars ``rank().over()``).
    """
    n = len(group_of_row)
    ecid = plan.type_idx.astype(np.int64) * s + plan.key_idx
    eorder = np.lexsort((plan.out_idx, ecid))
    ecid, eout, ecount = ecid[eorder], plan.out_idx[eorder], plan.count[eorder]
    cum = np.cumsum(ecount)
    base = cum - ecount                               # rows handed out before each entry
    first = np.searchsorted(ecid, group_class, side="left")
    entries = np.searchsorted(ecid, group_class, side="right") - first
    one = entries == 1
    group_out = np.where(one, eout[np.minimum(first, len(eout) - 1)], -1).astype(np.int32)
    out_of_row = group_out[group_of_row]
    if one.all():
        return out_of_row
    rows = np.flatnonzero(~one[group_of_row])         # rows of split classes, in row order
    cls = group_class[group_of_row[rows]]
    rank = rank_in_class(cls, uniforms_at(seed, n, rows))
    pos = base[np.searchsorted(ecid, cls, side="left")] + rank   # global slot of each row
    out_of_row[rows] = eout[np.searchsorted(cum, pos, side="right")]
    return out_of_row


def uniforms_at(seed: int, n: int, rows: NDArray[np.int64]) -> NDArray[np.float64]:
    """``np.random.default_rng(seed).random(n)[rows]`` for ascending ``rows``, drawn in blocks
    of :data:`UNIFORM_CHUNK` so that the ``n`` uniforms are never all held at once."""
    rng = np.random.default_rng(seed)
    out = np.empty(len(rows), dtype=np.float64)
    for start in range(0, n, UNIFORM_CHUNK):
        u = rng.random(min(UNIFORM_CHUNK, n - start))
        lo, hi = np.searchsorted(rows, [start, start + len(u)])
        out[lo:hi] = u[rows[lo:hi] - start]
    return out


def rank_in_class(cls: NDArray[np.int64], key: NDArray[np.float64]) -> NDArray[np.int64]:
    """Each element's position ``0..`` within its class ``cls`` when the class is ordered by
    ``key``, ties in the order given (polars' ordinal rank, per class, multi-threaded)."""
    frame = pl.DataFrame({"c": cls, "k": key})
    rank = frame.select(pl.col("k").rank("ordinal").over("c")).to_series()
    return rank.to_numpy().astype(np.int64) - 1


def _has_star(s: pl.Series) -> bool:
    if s.dtype != pl.String:
        return False
    return bool((s == STAR_TEXT).any())


def _text(v: object) -> str:
    """A domain value's released text: a truth value as the CSV writer writes it (``true``),
    a whole float with its ``.0``, anything else as Python writes it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return str(v)
