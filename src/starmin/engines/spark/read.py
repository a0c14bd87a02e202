"""Reading a table into Spark, with the local engine's rules, and numbering its rows.

CSV files are read as text; a column becomes numbers only when every value reads back exactly
as written (``"39"``, ``"-2.5"``; not ``"02138"``, ``"3.10"``), as in
:mod:`starmin.io.tables`, decided on the executors by one aggregation; empty fields are
missing values. Parquet keeps its types. In-memory polars / pandas / pyarrow tables and the
bundled samples are handed to Spark through Arrow; a Spark DataFrame is taken as it is.

Every row gets its position in the input, :data:`ROW` (0-based, in file order): the engine
orders a class's rows by it and releases the rows in that order. The table is persisted
(memory, spilling to disk) so the numbering, the aggregation and the application of the plan
all see the same rows in the same partitions.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from starmin.data.csv_file import first_line, sniff_separator, unique_header
from starmin.data.schema import Schema
from starmin.errors import InvalidInput

ROW = "__starmin_row"
"""The column holding each row's position in the input (dropped from the release)."""

PARQUET_SUFFIXES = (".parquet", ".pq")

_MID = "__starmin_mid"
_PARTITION_BITS = 33  # monotonically_increasing_id: partition index << 33 | record number


def is_spark_frame(table: Any) -> bool:
    """True for a PySpark DataFrame (classic or Connect), without importing PySpark."""
    return type(table).__module__.startswith("pyspark")


def read(spark: Any, source: Any, schema: Schema | None) -> Any:
    """``source`` as a Spark DataFrame numbered by :data:`ROW` and persisted (see module
    docstring); its columns are checked against ``schema`` first."""
    if is_spark_frame(source):
        df = source
    elif isinstance(source, str | os.PathLike) and not str(source).startswith("sample:"):
        path = Path(source)
        if not path.exists():
            raise InvalidInput(f"input file {path} does not exist: check the path")
        if path.suffix.lower() in PARQUET_SUFFIXES:
            df = _spark_read(lambda: spark.read.parquet(str(path)), path, "Parquet")
        else:
            return numbered(_read_csv(spark, path, schema), schema)
    else:
        df = from_arrow(spark, source)
    return numbered(df, schema)


_EMPTY = "\x00starmin:empty\x00"
"""What Spark's reader gives a quoted empty field (no text file holds NUL characters)."""


def _read_csv(spark: Any, path: Path, schema: Schema | None) -> Any:
    from pyspark.sql import functions as F

    if path.is_dir():
        raise InvalidInput(f"input {path} is a directory: give a CSV or Parquet file in it")
    sep = sniff_separator(path)
    header = unique_header(path, sep)
    if schema is not None:
        schema.check_columns(header, source=path)
    from pyspark.sql import types as T

    text_schema = T.StructType([T.StructField(c, T.StringType()) for c in header])
    # an empty field is null (the missing value) and a quoted "" the empty string, as the
    # local reader reads them (and as the writers write them); Spark reads both as null
    # unless the quoted one is given a text of its own, put back to "" here
    reader = spark.read.options(header=True, sep=sep, quote='"', escape='"', mode="FAILFAST",
                                encoding="UTF-8", emptyValue=_EMPTY).schema(text_schema)
    text = _spark_read(lambda: reader.csv(str(path)), path, "CSV")
    text = text.select([F.when(F.col(_q(c)) == _EMPTY, F.lit("")).otherwise(F.col(_q(c)))
                        .alias(c) for c in header])
    text = text.persist(_storage())
    try:
        int_ok, float_ok = number_rule(text, header)
    except Exception as exc:  # a malformed line (FAILFAST), an unreadable file
        raise InvalidInput(f"cannot read {path} as CSV with separator {sep!r} "
                           f"({first_line(exc)}): fix the file or give a Parquet file") from None
    cols = []
    for c in header:
        if int_ok[c]:
            cols.append(F.expr(f"try_cast({_q(c)} AS BIGINT)").alias(c))
        elif float_ok[c]:
            cols.append(F.expr(f"try_cast({_q(c)} AS DOUBLE)").alias(c))
        else:
            cols.append(F.col(_q(c)))
    return text.select(cols)


def number_rule(text: Any, header: list[str]) -> tuple[dict[str, bool], dict[str, bool]]:
    """Which text columns read back exactly as integers, and which as floats, by the local
    reader's own rule (:func:`starmin.data.csv_file.exact_number`) applied to every Arrow
    batch on the executors; a column is integer (float) when every batch is."""
    flags = ", ".join(f"i{j} boolean, f{j} boolean" for j in range(len(header)))
    found = text.mapInArrow(_batch_rule, flags).collect()
    int_ok = {c: all(r[f"i{j}"] for r in found) for j, c in enumerate(header)}
    float_ok = {c: all(r[f"f{j}"] for r in found) for j, c in enumerate(header)}
    return int_ok, float_ok


def _batch_rule(batches: Any) -> Any:
    """Per Arrow batch of text columns: one row of (integer ok, float ok) flags per column.
    A batch whose values all read back as integers is not float-exact (``"39"`` reads back
    as ``"39.0"``) unless it holds only missing values."""
    import polars as pl
    import pyarrow as pa

    from starmin.data.csv_file import exact_number

    for batch in batches:
        frame = pl.from_arrow(pa.Table.from_batches([batch]))
        assert isinstance(frame, pl.DataFrame)
        row: dict[str, list[bool]] = {}
        for j, c in enumerate(frame.columns):
            col = frame[c].cast(pl.String)
            num = exact_number(col)
            row[f"i{j}"] = [num is not None and num.dtype == pl.Int64]
            row[f"f{j}"] = [(num is not None and num.dtype == pl.Float64)
                            or col.null_count() == len(col)]
        yield pa.RecordBatch.from_pydict(row)


def _spark_read(make: Any, path: Path, what: str) -> Any:
    try:
        return make()
    except Exception as exc:
        raise InvalidInput(f"cannot read {path} as {what} ({first_line(exc)}): fix the file, "
                           "or write it again") from None


def from_arrow(spark: Any, table: Any) -> Any:
    """A polars / pandas / pyarrow table or a bundled sample (``sample:NAME``) as a Spark
    DataFrame, through Arrow (categorical columns as text)."""
    import polars as pl

    from starmin.io.tables import read_table

    df = read_table(table)  # the local reader's conversions and messages
    df = df.with_columns([pl.col(c).cast(pl.String) for c, t in df.schema.items()
                          if t == pl.Categorical or isinstance(t, pl.Enum)])
    return spark.createDataFrame(df.to_arrow(compat_level=pl.CompatLevel.oldest()))


def numbered(df: Any, schema: Schema | None) -> Any:
    """``df`` persisted, with each row's position in :data:`ROW` (contiguous from 0 in
    partition order: one small job counts the rows of each partition)."""
    from pyspark.sql import functions as F

    if ROW in df.columns:
        return df
    if schema is not None:
        schema.check_columns(df.columns)
        check_types(df, schema)
    base = df.withColumn(_MID, F.monotonically_increasing_id()).persist(_storage())
    part = F.shiftright(F.col(_MID), _PARTITION_BITS).alias("p")
    counts = sorted((int(r["p"]), int(r["count"])) for r in base.groupBy(part).count().collect())
    if not counts:
        raise InvalidInput("the table has no rows: give a table with at least one record")
    offsets, total = [], 0
    for p, cnt in counts:
        offsets += [F.lit(p), F.lit(total)]
        total += cnt
    start = F.create_map(*offsets)[F.shiftright(F.col(_MID), _PARTITION_BITS)]
    local = F.col(_MID).bitwiseAND(F.lit((1 << _PARTITION_BITS) - 1))
    return base.withColumn(ROW, start + local).drop(_MID)


def check_types(df: Any, schema: Schema) -> None:
    """QI and sensitive columns must hold plain values (no arrays, maps, structs, bytes)."""
    from pyspark.sql import types as T

    kinds = {f.name: f.dataType for f in df.schema.fields}
    for role, cols in (("quasi-identifier", schema.qi), ("sensitive", schema.sensitive)):
        for c in cols:
            t = kinds[c]
            if isinstance(t, T.ArrayType | T.MapType | T.StructType | T.BinaryType):
                raise InvalidInput(f"{role} column {c!r} holds {t.simpleString()} values; "
                                   "flatten or decode it into plain values first")


def _storage() -> Any:
    from pyspark import StorageLevel

    return StorageLevel.MEMORY_AND_DISK


def _q(c: str) -> str:
    """A column name quoted for Spark SQL expressions."""
    return "`" + c.replace("`", "``") + "`"
