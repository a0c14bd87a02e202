"""Application of a release plan on the executors.

Which rows of a class (row type, sensitive key) go to which output vector is decided exactly as
in :func:`starmin.engines.local.assign_groups`: the rows of a class are ordered by a seeded
uniform number, the ``i``-th of ``numpy.random.default_rng(seed).random(n)`` for the row at
input position ``i`` (ties, which have probability ~0, by position), and handed out to the
plan's output vectors in order of their index, by their counts; a class with one plan entry
needs no order (all its rows go to that entry's output vector). Each executor computes the
numbers of its own rows: the generator (PCG64) jumps straight to a run of positions' first
(``advance``), so no row and no random stream passes through the driver. The release holds the
same rows, with the same released cells, in the same order, as the local engine's for the same
plan and seed.

Spark work:

1. a join of the rows with the distinct (QI, sensitive) combinations, giving each row its
   class and, when the plan does not split the class, its output vector: on one long per
   combination (:func:`radix_key`: each column coded by a literal map on the executors,
   mixed radix; broadcast up to :data:`BROADCAST_KEYS` combinations), or, for columns that
   cannot be coded so, on the columns themselves (broadcast up to
   :data:`BROADCAST_CLASSES`);
2. only when the plan splits classes: the split classes' rows as (class, uniform, position),
   a narrow projection, ranked within their class (one shuffle of these three numbers), and
   the rows at the ranks where a later entry starts (the *thresholds*, one per plan entry
   after its class's first) collected to the driver;
3. each row's output vector where the row is (an Arrow UDF: a row of a split class takes the
   entry of the last threshold of its class not after it in (uniform, position), else the
   class's first entry), and a broadcast join with the labels of each output vector.

With the class join broadcast no row leaves its partition, so the release keeps the input's
order with no sort; otherwise it is sorted back by position (a range shuffle).
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
OUT = "__starmin_out"

BROADCAST_KEYS = 30_000_000
"""Distinct combinations up to which their keys (three longs each) are broadcast."""

MAX_CODES = 2000
"""Distinct values of a column up to which it is coded on the executors by a literal map."""

RADIX = "__starmin_radix"

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


def plan_tables(rt: RowTypes, plan: ReleasePlan) -> dict[str, Any]:
    """The plan on the driver, in the form the executors use it.

    ``cid`` (sorted) / ``one_out``: every class (``type * s + key``) the plan covers and its
    output vector when the plan gives it one entry, else ``-1``.
    ``split_cid`` (sorted): the classes the plan splits over several output vectors;
    ``bound_cid`` / ``bound_rank`` / ``bound_out``: for each entry of a split class but its
    first, the rank (in the class's order) of the first row it takes and its output vector.
    """
    s = rt.s
    ecid = plan.type_idx.astype(np.int64) * s + plan.key_idx
    order = np.lexsort((plan.out_idx, ecid))            # by class, outputs in index order
    ecid, eout = ecid[order], plan.out_idx[order].astype(np.int64)
    count = plan.count[order].astype(np.int64)
    cid, first, entries_of = np.unique(ecid, return_index=True, return_counts=True)
    split = entries_of > 1
    one_out = np.where(split, -1, eout[first])
    hi = np.cumsum(count)
    start = np.searchsorted(ecid, ecid, side="left")    # first entry of the same class
    lo = hi - count - np.where(start > 0, hi[np.maximum(start - 1, 0)], 0)  # rank in class
    later = np.arange(len(ecid)) != start               # an entry after its class's first
    return {"cid": cid, "one_out": one_out, "split_cid": cid[split],
            "split_first_out": eout[first][split], "bound_cid": ecid[later],
            "bound_rank": lo[later], "bound_out": eout[later]}


def labels(rt: RowTypes, plan: ReleasePlan) -> Any:
    """The released label of every QI column for every output vector (an Arrow table keyed by
    :data:`OUT`): the value's text, a hierarchy node's label, or ``*``."""
    cols = {OUT: pa.array(np.arange(len(plan.outputs), dtype=np.int64), pa.int64())}
    for j in range(rt.m):
        groups = list(rt.hierarchies[j].labels) if rt.hierarchies is not None else []
        lookup = np.array([None if v is None else _text(v) for v in rt.domains[j]] + groups
                          + [STAR_TEXT], dtype=object)
        idx = plan.outputs[:, j].astype(np.int64)
        idx[idx == STAR] = len(lookup) - 1
        cols[_label(j)] = pa.array(lookup[idx], pa.string())
    return pa.table(cols)


def assign_split(cid: NDArray[np.int64], u: NDArray[np.float64], row: NDArray[np.int64],
                 th: dict[str, NDArray[Any]]) -> NDArray[np.int64]:
    """The output vector of rows of split classes: the rows of class ``c`` ranked by ``(u,
    row)``, the row goes to the entry whose first row (a *threshold*, ``th``: class, uniform,
    position, sorted) is the last one not after it, else to the class's first entry.
    Vectorized binary search over each class's thresholds."""
    t_cid, t_u, t_row = th["t_cid"], th["t_u"], th["t_row"]
    a = np.searchsorted(t_cid, cid, side="left")
    lo, hi = a.copy(), np.searchsorted(t_cid, cid, side="right")
    while True:
        active = lo < hi
        if not active.any():
            break
        mid = (lo + hi) // 2
        m = np.minimum(mid, len(t_cid) - 1)
        not_after = (t_u[m] < u) | ((t_u[m] == u) & (t_row[m] <= row))
        lo = np.where(active & not_after, mid + 1, lo)
        hi = np.where(active & ~not_after, mid, hi)
    k = lo - a                                          # thresholds at or before the row
    first = th["split_first_out"][np.searchsorted(th["split_cid"], cid)]
    return np.where(k > 0, th["t_out"][np.maximum(lo - 1, 0)], first)


def _split_uniforms(seed: int) -> Any:
    """``mapInArrow``: the rows of split classes (``OUT == -1``) as (class, uniform, position);
    the uniforms are drawn for whole batches of consecutive positions."""
    def run(batches: Any) -> Any:
        for batch in batches:
            pos = batch.column(ROW).to_numpy(zero_copy_only=False)
            keep = batch.column(OUT).to_numpy(zero_copy_only=False) < 0
            if not keep.any():
                continue
            u = uniforms(pos, seed)[keep]
            yield pa.RecordBatch.from_pydict({
                CID: pa.array(batch.column(CID).to_numpy(zero_copy_only=False)[keep]),
                U: pa.array(u), ROW: pa.array(pos[keep])})
    return run


def _out_column(seed: int, th: Any) -> Any:
    """A Spark expression: each row's output vector (an Arrow UDF of position, class and the
    class's single output vector or ``-1``)."""
    from pyspark.sql import functions as F

    def outs(pos: NDArray[np.int64], cid: NDArray[np.int64],
             one: NDArray[np.int64]) -> NDArray[np.int64]:
        out = one.astype(np.int64, copy=True)
        split = out < 0
        if split.any():
            u = uniforms(pos, seed)[split]
            out[split] = assign_split(cid[split], u, pos[split], th.value)
        return out

    if hasattr(F, "arrow_udf"):
        def draw(pos: pa.Array, cid: pa.Array, one: pa.Array) -> pa.Array:
            return pa.array(outs(pos.to_numpy(zero_copy_only=False),
                                 cid.to_numpy(zero_copy_only=False),
                                 one.to_numpy(zero_copy_only=False)))
        make: Any = F.arrow_udf
        return make(draw, "long")(F.col(ROW), F.col(CID), F.col(OUT))

    def draw_pd(pos: pd.Series, cid: pd.Series, one: pd.Series) -> pd.Series:  # PySpark 3.5
        return pd.Series(outs(pos.to_numpy(), cid.to_numpy(), one.to_numpy()))
    make_pd: Any = F.pandas_udf
    return make_pd(draw_pd, "long")(F.col(ROW), F.col(CID), F.col(OUT))


def apply(table: Any, classes: Any, rt: RowTypes, plan: ReleasePlan, seed: int,
          identifiers: tuple[str, ...]) -> Any:
    """The released Spark DataFrame (QI columns as text labels, identifiers dropped, other
    columns passed through, rows in input order)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from starmin.engines.spark.aggregate import to_arrow

    spark = table.sparkSession
    qi = rt.qi
    keys = [*qi, *rt.sensitive]
    pt = plan_tables(rt, plan)
    ccid = classes.column(CID).to_numpy()
    one = pt["one_out"][np.searchsorted(pt["cid"], ccid)]
    keyed = radix_key(table, classes, keys)
    if keyed is not None:  # one long per row and combination: a small broadcast join
        key_expr, radix = keyed
        ids = spark.createDataFrame(pa.table({
            RADIX: pa.array(radix, pa.int64()), CID: pa.array(ccid, pa.int64()),
            OUT: pa.array(one, pa.int64())}))
        narrow = classes.num_rows <= BROADCAST_KEYS
        rows = table.withColumn(RADIX, key_expr).join(
            F.broadcast(ids) if narrow else ids, on=RADIX, how="inner").drop(RADIX)
    else:  # a join on every QI and sensitive column (null-safe)
        ids = spark.createDataFrame(classes.append_column(OUT, pa.array(one, pa.int64()))
                                    ).select(*[F.col(_q(c)).alias(_key(i))
                                               for i, c in enumerate(keys)],
                                             F.col(CID), F.col(OUT))
        narrow = classes.num_rows <= BROADCAST_CLASSES  # no shuffle of the rows
        if narrow:
            ids = F.broadcast(ids)
        same = [F.col(_q(c)).eqNullSafe(F.col(_key(i))) for i, c in enumerate(keys)]
        cond = same[0]
        for extra in same[1:]:
            cond = cond & extra
        rows = table.join(ids, on=cond, how="inner").drop(*[_key(i) for i in range(len(keys))])
    th = {"t_cid": np.zeros(0, np.int64), "t_u": np.zeros(0), "t_row": np.zeros(0, np.int64),
          "t_out": np.zeros(0, np.int64), "split_cid": pt["split_cid"],
          "split_first_out": pt["split_first_out"]}
    if len(pt["split_cid"]):
        split = rows.select(ROW, CID, OUT).mapInArrow(
            _split_uniforms(seed), f"{CID} long, {U} double, {ROW} long")
        ranked = split.withColumn(
            RANK, F.row_number().over(Window.partitionBy(CID).orderBy(U, ROW)) - 1)
        bounds = spark.createDataFrame(pa.table({
            "__starmin_bcid": pa.array(pt["bound_cid"], pa.int64()),
            "__starmin_brank": pa.array(pt["bound_rank"], pa.int64()),
            "__starmin_bout": pa.array(pt["bound_out"], pa.int64())}))
        hit = (F.col(CID) == F.col("__starmin_bcid")) & (F.col(RANK) == F.col("__starmin_brank"))
        found = to_arrow(ranked.join(F.broadcast(bounds), on=hit, how="inner")
                         .select(CID, U, ROW, "__starmin_bout"))
        t_cid = found.column(CID).to_numpy()
        t_u, t_row = found.column(U).to_numpy(), found.column(ROW).to_numpy()
        t_out = found.column("__starmin_bout").to_numpy()
        order = np.lexsort((t_out, t_row, t_u, t_cid))
        th.update(t_cid=t_cid[order], t_u=t_u[order], t_row=t_row[order],
                  t_out=t_out[order])
    shared = spark.sparkContext.broadcast(th)
    rows = rows.withColumn(OUT, _out_column(seed, shared))
    lab = spark.createDataFrame(labels(rt, plan)).withColumnRenamed(OUT, "__starmin_lout")
    rows = rows.join(F.broadcast(lab), on=F.col(OUT) == F.col("__starmin_lout"), how="inner")
    label = {c: j for j, c in enumerate(qi)}
    out = [F.col(_label(label[c])).alias(c) if c in label else F.col(_q(c))
           for c in table.columns if c != ROW and c not in identifiers]
    if not narrow:  # the class join shuffled the rows: sort them back into input order
        rows = rows.orderBy(ROW)
    return rows.select(*out)


def radix_key(table: Any, classes: Any, keys: list[str]) -> tuple[Any, Any] | None:
    """A Spark expression giving each row one long that identifies its combination of
    ``keys`` values, and the same number for every combination in ``classes`` (computed on
    the driver): each column's distinct values coded by their position (missing last, one
    literal map per column), combined in mixed radix. ``None`` when a column is not text,
    integer or boolean, has more than :data:`MAX_CODES` values, or the radix would not fit in
    a long: then the rows are joined on the columns themselves."""
    import pyarrow.compute as pc
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    kinds = {f.name: f.dataType for f in table.schema.fields}
    plain = (T.StringType, T.LongType, T.IntegerType, T.ShortType, T.ByteType, T.BooleanType)
    mult = 1
    expr = F.lit(0).cast("long")
    radix = np.zeros(classes.num_rows, dtype=np.int64)
    for c in keys:
        kind = kinds[c]
        if not isinstance(kind, plain):
            return None
        column = classes.column(c)
        values = pc.unique(column).drop_null()
        size = len(values) + 1  # the missing value's code: len(values)
        if len(values) > MAX_CODES or mult * size >= 2 ** 62:
            return None
        code = pc.index_in(column, value_set=values).to_numpy(zero_copy_only=False)
        code = np.where(np.isnan(code.astype(np.float64)), len(values), code).astype(np.int64)
        radix += code * mult
        pairs: list[Any] = []
        for i, v in enumerate(values.to_pylist()):
            pairs += [F.lit(v).cast(kind), F.lit(i)]
        lookup = F.create_map(*pairs)[F.col(_q(c))] if pairs else F.lit(None)
        col_code = F.when(F.col(_q(c)).isNull(), F.lit(len(values))).otherwise(lookup)
        expr = expr + col_code.cast("long") * F.lit(mult).cast("long")
        mult *= size
    return expr, radix


def _key(i: int) -> str:
    return f"__starmin_k{i}"


def _label(j: int) -> str:
    return f"__starmin_l{j}"


def _q(c: str) -> str:
    return "`" + c.replace("`", "``") + "`"
