"""The Spark engine (PySpark; the optional extra ``starmin[spark]``).

Same results as the local engine, on tables larger than one machine: the row types are
identical (codes, counts, sensitive keys; :mod:`.aggregate`), so every algorithm makes the same
plan for the same seed, and the release holds the same rows in the same order as the local
engine's (:mod:`.apply`). Aggregation and application run on the executors; the algorithms run
on the driver on row types; the release is verified by the verifier's own Spark path
(:mod:`starmin.verifier.spark`) before anything is written (:mod:`.write`).

Reads CSV and Parquet paths (:mod:`.read`), a Spark DataFrame, or any table the local engine
reads; returns a Spark DataFrame. Generalization hierarchies as locally (the plan's cells
may be hierarchy nodes; the released cells are checked against the original rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.engines.base import Stages
from starmin.engines.spark.session import session
from starmin.transform.plan import ReleasePlan

if TYPE_CHECKING:
    from starmin.io.output import OutputTarget

__all__ = ["SparkEncoded", "SparkEngine", "session"]


@dataclass(frozen=True, eq=False)
class SparkEncoded:
    """The numbered input table (a persisted Spark DataFrame), its row types, and the class
    id of each distinct combination of QI and sensitive values (an Arrow table)."""

    table: Any
    schema: Schema
    row_types: RowTypes
    classes: Any


class SparkEngine:
    """Aggregation and plan application with PySpark (``engine="spark"``)."""

    name = "spark"

    def __init__(self, spark: Any = None) -> None:
        """``spark``: the SparkSession to use (default: the active one, else a new local
        session, :func:`~starmin.engines.spark.session.session`)."""
        self.spark = spark if spark is not None else session()
        self.stages = Stages()

    def read(self, source: Any, schema: Schema) -> Any:
        """A CSV or Parquet path, a Spark DataFrame, a polars / pandas / pyarrow table or a
        bundled sample as a numbered, persisted Spark DataFrame (:mod:`.read`)."""
        from starmin.engines.spark.read import read

        return read(self.spark, source, schema)

    def to_row_types(self, table: Any, schema: Schema) -> SparkEncoded:
        """Count rows per combination on the executors, encode on the driver
        (:mod:`.aggregate`)."""
        from starmin.engines.spark.aggregate import aggregate
        from starmin.engines.spark.read import numbered

        table = numbered(table, schema)
        agg = aggregate(table, schema)
        return SparkEncoded(table, schema, agg.row_types, agg.classes)

    def apply_plan(self, encoded: SparkEncoded, plan: ReleasePlan, seed: int = 0) -> Any:
        """The release as a Spark DataFrame, computed and persisted here (so this stage's
        time is its cost): the same rows, in the same order, as the local engine's."""
        from pyspark import StorageLevel

        from starmin.engines.spark.apply import apply

        plan.validate(encoded.row_types)
        out = apply(encoded.table, encoded.classes, encoded.row_types, plan, seed,
                    encoded.schema.identifiers)
        out = out.persist(StorageLevel.MEMORY_AND_DISK)
        out.count()
        return out

    def write(self, released: Any, target: OutputTarget, report: Any, separator: str = ",",
              html: str | None = None) -> None:
        """A folder of part files and the report beside it, all or none (:mod:`.write`)."""
        from starmin.engines.spark.write import write

        write(released, target, report, separator, html)
