"""Application of a release plan on the executors.

Which rows of a class (row type, sensitive key) go to which output vector is decided exactly as
in :func:`starmin.engines.local.assign_outputs`: the rows of a class are ordered by a seeded
uniform number, the ``i``-th of ``numpy.random.default_rng(seed).random(n)`` for the row at
input position ``i`` (ties, which have probability ~0, by position), and handed out to the
plan's output vectors in order of their index, by their counts. Each executor computes the
numbers of its own rows: the generator (PCG64) jumps straight to a partition's first position
(``advance``), so no row and no random stream passes through the driver. The release therefore
holds the same rows, with the same released cells, as the local engine's for the same plan
and seed; it is sorted back into input order.

Spark work: one join to the class ids (the distinct combinations, small), a window over each
class (a shuffle by class), a join with the plan's entries (broadcast when small), a sort by
input position (a range shuffle). Nothing is collected to the driver.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa  # the UDFs' type hints are resolved in this module's namespace
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.engines.local import STAR_TEXT, _text
from starmin.engines.spark.aggregate import CID
from starmin.engines.spark.read import ROW
from starmin.transform.plan import STAR, ReleasePlan

try:
    import pandas as pd
except ImportError:  # pragma: no cover - PySpark >= 4.1 needs no pandas here
    pd = None

U = "__starmin_u"
RANK = "__starmin_rank"
LO, HI = "__starmin_lo", "__starmin_hi"

BROADCAST_ENTRIES = 500_000
"""Plan entries up to which the entries table is broadcast to every executor."""

BROADCAST_CLASSES = 2_000_000
"""Distinct (QI, sensitive) combinations up to which their class ids are broadcast."""


def uniforms(position: NDArray[np.int64], seed: int) -> NDArray[np.float64]:
    """``default_rng(seed).random(n)[position]`` without drawing the numbers before: each run
    of consecutive positions starts a generator advanced to its first position."""
    position = np.asarray(position, dtype=np.int64)
    out = np.empty(len(position), dtype=np.float64)
    if not len(position):
        return out
    breaks = np.flatnonzero(np.diff(position) != 1) + 1
    for run in np.split(np.arange(len(position)), breaks):
        bits = np.random.PCG64(seed)  # default_rng's bit generator
        bits.advance(int(position[run[0]]))
        out[run] = np.random.Generator(bits).random(len(run))
    return out


def _uniform_column(seed: int) -> Any:
    """A Spark expression: :func:`uniforms` of :data:`ROW` (an Arrow UDF where PySpark has
    them, else a pandas UDF)."""
    from pyspark.sql import functions as F

    if hasattr(F, "arrow_udf"):
        make: Any = F.arrow_udf
    else:  # PySpark 3.5
        make = F.pandas_udf
    draw = _arrow_draw(seed) if hasattr(F, "arrow_udf") else _pandas_draw(seed)
    return make(draw, "double")(F.col(ROW))


def _arrow_draw(seed: int) -> Any:
    def draw(pos: pa.Array) -> pa.Array:
        return pa.array(uniforms(pos.to_numpy(zero_copy_only=False), seed))

    return draw


def _pandas_draw(seed: int) -> Any:
    def draw(pos: pd.Series) -> pd.Series:
        return pd.Series(uniforms(pos.to_numpy(), seed))

    return draw


def entries(rt: RowTypes, plan: ReleasePlan) -> Any:
    """The plan's entries as an Arrow table: class id, the class's rows ``[lo, hi)`` (in the
    class's order) they cover, and the released label of every QI column."""
    s = rt.s
    cid = plan.type_idx.astype(np.int64) * s + plan.key_idx
    order = np.lexsort((plan.out_idx, cid))            # by class, outputs in index order
    cid, out, count = cid[order], plan.out_idx[order], plan.count[order].astype(np.int64)
    hi = np.cumsum(count)
    start = np.searchsorted(cid, cid, side="left")    # first entry of the same class
    base = np.where(start > 0, hi[start - 1], 0)
    hi = hi - base
    cols = {CID: pa.array(cid, pa.int64()), LO: pa.array(hi - count, pa.int64()),
            HI: pa.array(hi, pa.int64())}
    for j in range(rt.m):
        groups = list(rt.hierarchies[j].labels) if rt.hierarchies is not None else []
        lookup = np.array([None if v is None else _text(v) for v in rt.domains[j]] + groups
                          + [STAR_TEXT], dtype=object)
        idx = plan.outputs[out, j].astype(np.int64)
        idx[idx == STAR] = len(lookup) - 1
        cols[_label(j)] = pa.array(lookup[idx], pa.string())
    return pa.table(cols)


def apply(table: Any, classes: Any, rt: RowTypes, plan: ReleasePlan, seed: int,
          identifiers: tuple[str, ...]) -> Any:
    """The released Spark DataFrame (QI columns as text labels, identifiers dropped, other
    columns passed through, rows in input order)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    spark = table.sparkSession
    qi = rt.qi
    keys = [*qi, *rt.sensitive]
    ids = spark.createDataFrame(classes).select(
        *[F.col(_q(c)).alias(_key(i)) for i, c in enumerate(keys)], F.col(CID))
    if classes.num_rows <= BROADCAST_CLASSES:  # no shuffle of the rows for this join
        ids = F.broadcast(ids)
    same = [F.col(_q(c)).eqNullSafe(F.col(_key(i))) for i, c in enumerate(keys)]
    cond = same[0]
    for extra in same[1:]:
        cond = cond & extra
    rows = table.join(ids, on=cond, how="inner").drop(*[_key(i) for i in range(len(keys))])
    rows = rows.withColumn(U, _uniform_column(seed))
    in_class = Window.partitionBy(CID).orderBy(U, ROW)
    rows = rows.withColumn(RANK, F.row_number().over(in_class) - 1)
    plan_rows = entries(rt, plan)
    ent = spark.createDataFrame(plan_rows).withColumnRenamed(CID, "__starmin_ecid")
    if plan_rows.num_rows <= BROADCAST_ENTRIES:
        ent = F.broadcast(ent)
    hit = ((F.col(CID) == F.col("__starmin_ecid")) & (F.col(RANK) >= F.col(LO))
           & (F.col(RANK) < F.col(HI)))
    rows = rows.join(ent, on=hit, how="inner")
    label = {c: j for j, c in enumerate(qi)}
    out = [F.col(_label(label[c])).alias(c) if c in label else F.col(_q(c))
           for c in table.columns if c != ROW and c not in identifiers]
    return rows.orderBy(ROW).select(*out)


def _key(i: int) -> str:
    return f"__starmin_k{i}"


def _label(j: int) -> str:
    return f"__starmin_l{j}"


def _q(c: str) -> str:
    return "`" + c.replace("`", "``") + "`"
