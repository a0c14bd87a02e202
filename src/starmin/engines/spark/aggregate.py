"""Aggregation to row types on the executors; encoding on the driver, as the local engine.

One Spark ``groupBy`` over the QI and sensitive columns counts the rows of every distinct
(QI vector, sensitive values) combination on the executors; only those combinations (at most
``t_in x s``, the cells of the count matrix every algorithm needs anyway) reach the driver,
through Arrow. There the columns are encoded with the local engine's own
:func:`~starmin.engines.encode.encode_column` and
:func:`~starmin.engines.encode.combine_codes`: a column's codes depend only on its set of
distinct values, which the combinations hold in full, so the codes, row types, counts and
sensitive keys are those of :class:`~starmin.engines.local.LocalEngine` on the same table
(missing values are data: null, and NaN in a float column, are one value, coded last).

Cost: one shuffle of the partial counts (Spark aggregates within each partition first), O(n)
on the executors; O(c log c) on the driver for ``c`` combinations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.engines.encode import combine_codes, encode_column
from starmin.engines.local import STAR_TEXT, check_count_matrix
from starmin.errors import InvalidInput

COUNT = "__starmin_count"
CID = "__starmin_class"
"""The column holding each combination's class id ``type * s + key`` (row type, key)."""


@dataclass(frozen=True)
class Aggregated:
    """The row types and, per distinct combination of QI and sensitive values (an Arrow
    table in Spark's types), its class id :data:`CID`."""

    row_types: RowTypes
    classes: Any


def aggregate(df: Any, schema: Schema) -> Aggregated:
    """Row types of the Spark DataFrame ``df`` (see module docstring)."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    cols = [*schema.qi, *schema.sensitive]
    grouped = df.groupBy(*[F.col(_q(c)) for c in cols]).agg(F.count(F.lit(1)).alias(COUNT))
    arrow = to_arrow(grouped)
    combos = pl.from_arrow(arrow)
    assert isinstance(combos, pl.DataFrame)
    schema.check_dtypes(combos.schema)
    if combos.height == 0:
        raise InvalidInput("the table has no rows: give a table with at least one record")
    for c in schema.qi:
        if combos[c].dtype == pl.String and bool((combos[c] == STAR_TEXT).any()):
            raise InvalidInput(f"QI column {c!r} already contains the suppression symbol '*': "
                               "rename that value before anonymizing")
    weight = combos[COUNT].to_numpy().astype(np.int64)
    qcodes, domains = zip(*(encode_column(combos[c]) for c in schema.qi), strict=True)
    type_of = combine_codes(list(qcodes), [len(d) for d in domains])
    t_in = int(type_of.max()) + 1
    codes = np.stack([qc[_first(type_of, t_in)] for qc in qcodes], axis=1)
    if schema.sensitive:
        scodes, sdomains = zip(*(encode_column(combos[c]) for c in schema.sensitive),
                               strict=True)
        key_of = combine_codes(list(scodes), [len(d) for d in sdomains])
        s = int(key_of.max()) + 1
        keys = np.stack([sc[_first(key_of, s)] for sc in scodes], axis=1)
    else:
        key_of = np.zeros(combos.height, dtype=np.int64)
        s, keys, sdomains = 1, np.zeros((1, 0), dtype=np.int32), ()
    check_count_matrix(t_in, s, schema.sensitive)
    counts = np.zeros(t_in * s, dtype=np.int64)
    np.add.at(counts, type_of * s + key_of, weight)  # null and NaN may share a cell
    rt = RowTypes(schema.qi, codes, counts.reshape(t_in, s), tuple(domains), schema.sensitive,
                  keys, tuple(sdomains))
    classes = arrow.select(cols).append_column(CID, pa.array(type_of * s + key_of, pa.int64()))
    return Aggregated(rt, classes)


def to_arrow(df: Any) -> Any:
    """A (small) Spark DataFrame as a pyarrow Table on the driver."""
    if hasattr(df, "toArrow"):  # PySpark >= 4.0
        return df.toArrow()
    import pyarrow as pa

    return pa.Table.from_batches(df._collect_as_arrow(), schema=None)  # PySpark 3.5


def _first(ids: NDArray[np.int64], count: int) -> NDArray[np.int64]:
    """``(count,)``: the first position holding each id."""
    first = np.full(count, -1, dtype=np.int64)
    first[ids[::-1]] = np.arange(len(ids))[::-1]
    return first


def _q(c: str) -> str:
    return "`" + c.replace("`", "``") + "`"
