"""The verifier's Spark path: classes counted on the executors, judged on the driver.

A released Spark DataFrame is never collected: one ``groupBy`` over its released QI values and
sensitive values counts every distinct combination where the rows are, and only those
combinations (with their counts) come to the driver, through Arrow. The classes are then
gathered from them exactly as the verifier's own ``pairs`` path does
(:func:`starmin.verifier._classes.group_counted`), so every model is decided by the same code
on the same histograms as for an in-memory table. Values compare as Spark groups them (null is
a value of its own; ``*`` is an ordinary value).

Like the rest of the verifier, this module imports no engine, algorithm or transform code (a
test enforces it); PySpark is imported only here, and only when a Spark table is verified.
:func:`read` is the verifier's own Spark reader of a released file or folder (CSV as text,
sensitive columns as numbers when every value reads back exactly; Parquet as written).

Cost: O(n) on the executors (one shuffle of partial counts); on the driver O(c) for the ``c``
distinct (class, sensitive values) combinations, which the driver holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from starmin.data.csv_file import first_line, sniff_separator, unique_header
from starmin.errors import InvalidInput
from starmin.verifier._classes import Classes, group_counted
from starmin.verifier._input import check_names

COUNT = "__starmin_count"


def is_spark_frame(table: Any) -> bool:
    """True for a PySpark DataFrame, without importing PySpark."""
    return type(table).__module__.startswith("pyspark")


def spark_classes(table: Any, qi: tuple[str, ...], sensitive: tuple[str, ...]) -> Classes:
    """The released classes of the Spark DataFrame ``table`` (see module docstring)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    check_names(list(table.columns), qi, sensitive)
    kinds = {f.name: f.dataType for f in table.schema.fields}
    for group, what in ((qi, "quasi-identifier"), (sensitive, "sensitive")):
        for c in group:
            if isinstance(kinds[c], T.ArrayType | T.MapType | T.StructType | T.BinaryType):
                raise InvalidInput(f"{what} column {c!r} holds {kinds[c].simpleString()} "
                                   "values, which cannot be compared")
    cols = [F.col(_q(c)) for c in (*qi, *sensitive)]
    grouped = table.groupBy(*cols).agg(F.count(F.lit(1)).alias(COUNT))
    arrow = grouped.toArrow() if hasattr(grouped, "toArrow") else \
        _arrow_35(grouped)
    combos = pl.from_arrow(arrow)
    assert isinstance(combos, pl.DataFrame)
    if combos.height == 0:
        raise InvalidInput("the table has no rows: verify a release with at least one record")
    return group_counted(combos, qi, sensitive, COUNT)


def read(spark: Any, path: str | Path, sensitive: tuple[str, ...],
         qi: tuple[str, ...] | None = None) -> Any:
    """A released CSV or Parquet file, or a folder of part files as Spark writes them, as a
    Spark DataFrame: CSV as text (every column; a sensitive column as numbers when every value
    reads back exactly as written), Parquet as written. Column names are checked first when
    ``qi`` is given."""
    from pyspark.sql import functions as F

    p = Path(path)
    if not p.exists():
        raise InvalidInput(f"table file {p} does not exist: check the path")
    parts = sorted(p.glob("part-*")) if p.is_dir() else [p]
    if not parts:
        raise InvalidInput(f"{p} is a folder without part files: give a CSV or Parquet file, "
                           "or a folder Spark wrote")
    parquet = parts[0].suffix.lower() in (".parquet", ".pq") or \
        parts[0].name.endswith(".snappy.parquet")
    try:
        if parquet:
            df = spark.read.parquet(str(p))
            if qi is not None:
                check_names(list(df.columns), qi, sensitive)
            return df
        sep = sniff_separator(parts[0])
        header = unique_header(parts[0], sep)
        if qi is not None:
            check_names(header, qi, sensitive)
        df = spark.read.options(header=True, sep=sep, quote='"', escape='"',
                                inferSchema=False, mode="FAILFAST").csv(str(p)).toDF(*header)
        df = df.select([F.when(F.col(_q(c)) != "", F.col(_q(c))).alias(c) for c in header])
        return _numbers(df, sensitive)
    except InvalidInput:
        raise
    except Exception as exc:
        raise InvalidInput(f"cannot read {p} ({first_line(exc)}): fix the file or write it "
                           "again") from None


def _numbers(df: Any, sensitive: tuple[str, ...]) -> Any:
    """Sensitive text columns as Int64, else Float64, when every value reads back exactly."""
    from pyspark.sql import functions as F

    if not sensitive:
        return df
    checks = []
    for i, c in enumerate(sensitive):
        for kind, sql in (("i", "BIGINT"), ("f", "DOUBLE")):
            num = F.expr(f"try_cast({_q(c)} AS {sql})")
            exact = F.col(_q(c)).isNull() | (num.isNotNull()
                                             & (num.cast("string") == F.col(_q(c))))
            checks.append(F.min(exact.cast("int")).alias(f"{kind}{i}"))
    rule = df.agg(*checks).first()
    out = []
    for c in df.columns:
        i = sensitive.index(c) if c in sensitive else -1
        if i >= 0 and rule[f"i{i}"] == 1:
            out.append(F.expr(f"try_cast({_q(c)} AS BIGINT)").alias(c))
        elif i >= 0 and rule[f"f{i}"] == 1:
            out.append(F.expr(f"try_cast({_q(c)} AS DOUBLE)").alias(c))
        else:
            out.append(F.col(_q(c)))
    return df.select(out)


def _arrow_35(df: Any) -> Any:  # PySpark 3.5: no DataFrame.toArrow
    import pyarrow as pa

    return pa.Table.from_batches(df._collect_as_arrow())


def _q(c: str) -> str:
    return "`" + c.replace("`", "``") + "`"


_MID = "__starmin_v_mid"
_POS = "__starmin_v_pos"
_PART_BITS = 33  # monotonically_increasing_id: partition index << 33 | record number


def spark_cells(table: Any, original: Any, qi: tuple[str, ...],
                hierarchies: dict[str, Any], star: str) -> Any:
    """Every released QI cell of the Spark DataFrame ``table`` against its row of
    ``original`` (a Spark DataFrame, a path read by :func:`read`, or a table in memory):
    the rows of both are numbered in partition order and joined by position on the
    executors; per QI column only the distinct (original, released) pairs and their counts
    come to the driver, where :func:`starmin.verifier._cells.check_cell_pairs` judges them
    by the rule used in memory. Cost: one shuffle join of the QI columns of both tables."""
    from pyspark.sql import functions as F

    from starmin.verifier._cells import check_cell_pairs

    spark = table.sparkSession
    if is_spark_frame(original):
        orig = original
    elif isinstance(original, str | Path):
        orig = read(spark, original, ())
    else:
        import polars as pl_

        from starmin.verifier._input import to_frame

        frame = to_frame(original, ())
        orig = spark.createDataFrame(frame.to_arrow(compat_level=pl_.CompatLevel.oldest()))
    for c in qi:
        if c not in orig.columns:
            raise InvalidInput(f"the original table has no column {c!r}: give the table the "
                               "release was made from")
    rel, n = _positioned(table.select(*[F.col(_q(c)).alias(f"r{j}") for j, c in enumerate(qi)]))
    org, n_orig = _positioned(orig.select(*[F.col(_q(c)).alias(f"o{j}")
                                            for j, c in enumerate(qi)]))
    if n != n_orig:
        raise InvalidInput(f"the release has {n} rows but the original table {n_orig}: give "
                           "the table the release was made from (starmin keeps every row, "
                           "in order)")
    from pyspark import StorageLevel

    both = rel.join(org, on=_POS, how="inner").persist(StorageLevel.MEMORY_AND_DISK)
    try:
        pairs: dict[str, pl.DataFrame] = {}
        for j, c in enumerate(qi):
            counted = both.groupBy(f"o{j}", f"r{j}").agg(F.count(F.lit(1)).alias("count"))
            got = pl.from_arrow(_to_arrow(counted))
            assert isinstance(got, pl.DataFrame)
            pairs[c] = got.rename({f"o{j}": "o", f"r{j}": "r"})

        def first_bad(bad: dict[str, pl.DataFrame]) -> list[tuple[int, str, Any, Any]]:
            found: list[tuple[int, str, Any, Any]] = []
            for c, odd in bad.items():
                j = qi.index(c)
                keys = spark.createDataFrame(odd.to_arrow(
                    compat_level=pl.CompatLevel.oldest())).toDF("__bo", "__br")
                hit = F.col(f"o{j}").eqNullSafe(F.col("__bo")) & \
                    F.col(f"r{j}").eqNullSafe(F.col("__br"))
                rows = (both.join(F.broadcast(keys), on=hit, how="inner")
                        .select(_POS, f"o{j}", f"r{j}").orderBy(_POS).limit(5).collect())
                found += [(int(r[0]), c, r[1], r[2]) for r in rows]
            return found

        return check_cell_pairs(pairs, n, qi, hierarchies, star, first_bad)
    finally:
        both.unpersist()


def _positioned(df: Any) -> tuple[Any, int]:
    """``df`` with each row's position (from 0, in partition order) in a column, and its
    number of rows (one small job counts the rows of each partition)."""
    from pyspark.sql import functions as F

    base = df.withColumn(_MID, F.monotonically_increasing_id())
    part = F.shiftright(F.col(_MID), _PART_BITS)
    counts = sorted((int(r["p"]), int(r["count"]))
                    for r in base.groupBy(part.alias("p")).count().collect())
    offsets: list[Any] = []
    total = 0
    for p, cnt in counts:
        offsets += [F.lit(p), F.lit(total)]
        total += cnt
    if not counts:
        return base.withColumn(_POS, F.lit(0).cast("long")).drop(_MID), 0
    start = F.create_map(*offsets)[part]
    local = F.col(_MID).bitwiseAND(F.lit((1 << _PART_BITS) - 1))
    return base.withColumn(_POS, start + local).drop(_MID), total


def _to_arrow(df: Any) -> Any:
    return df.toArrow() if hasattr(df, "toArrow") else _arrow_35(df)
