"""Each row's combination of values in some columns, in O(n) multi-threaded polars passes.

:func:`group_rows` gives the distinct combinations of ``cols`` (missing values as null: NaN
is null, see :func:`~starmin.engines.encode.missing_as_null`), the rows of each, and the
number of every row's combination; the order of the combinations is arbitrary (the engine
orders what it derives from them by value, so nothing downstream depends on it).

Two ways, the same answer:

* **packed key** (:func:`_by_packed_key`, the usual one): each column's distinct values are
  found (one ``unique`` per column, the columns in parallel) and every row's value is given a
  dense code -- a table look-up by the physical code for a categorical column (the reader
  gives QI columns read from CSV as categoricals), a hash look-up otherwise; the codes are
  packed into one 64-bit integer per row (mixed radix, exact), grouped (``group_by`` on one
  integer column) and looked up again to number the rows' groups.
* **row hash** (:func:`_by_row_hash`) when the packed key would not fit in 63 bits: one
  ``group_by(cols).len()``, then each row's hash (``pl.struct(cols).hash()``) is looked up
  among the combinations' hashes; exact when those are distinct, and when two collide (about
  ``g**2 / 2**65``) the rows are matched by a join on ``cols`` instead.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from numpy.typing import NDArray

from starmin.engines.encode import missing_as_null

HASH_SEED = 0x5EED
"""Seed of the row hash of :func:`_by_row_hash` (any fixed value)."""

Grouped = tuple[pl.DataFrame, NDArray[np.int64], NDArray[np.integer]]


def group_rows(table: pl.DataFrame, cols: list[str]) -> Grouped:
    """``(combinations, sizes, group_of_row)``: a frame of the distinct combinations of
    ``cols`` (the columns' own dtypes, a categorical's values as text), the number of rows
    of each, and ``(n,)`` the index of every row's combination (see the module docstring)."""
    frame = table.lazy().select(missing_as_null(c, table.schema[c]) for c in cols)
    distinct = frame.select(pl.col(c).unique().implode() for c in cols).collect()
    values = [distinct[c][0] for c in cols]
    radix = [len(v) for v in values]
    if sum(math.log2(max(r, 1)) for r in radix) < 63:
        return _by_packed_key(frame, cols, values)
    return _by_row_hash(frame, cols)


def _by_packed_key(frame: pl.LazyFrame, cols: list[str], values: list[pl.Series]) -> Grouped:
    key: pl.Expr | None = None
    for c, u in zip(cols, values, strict=True):
        dense = _dense_code(c, u)
        key = dense if key is None else key * len(u) + dense
    assert key is not None
    packed = frame.select(key.alias("k")).collect().to_series()
    counts = packed.to_frame().group_by("k").len()
    keys, sizes = counts["k"], counts["len"].to_numpy().astype(np.int64)
    g = len(keys)
    ids = pl.Series(np.arange(g, dtype=np.int32 if g < 2**31 else np.int64))
    group_of_row = packed.replace_strict(keys, ids).to_numpy()
    rest: NDArray[np.uint64] = keys.to_numpy().astype(np.uint64)
    combos: dict[str, pl.Series] = {}
    for c, u in reversed(list(zip(cols, values, strict=True))):
        r = np.uint64(len(u))
        code: NDArray[np.uint64] = rest % r
        rest = rest // r
        text = u.cast(pl.String) if _is_categorical(u.dtype) else u
        combos[c] = text.gather(code.astype(np.int64)).alias(c)
    return pl.DataFrame([combos[c] for c in cols]), sizes, group_of_row


def _dense_code(c: str, u: pl.Series) -> pl.Expr:
    """Expression: the position in ``u`` (the column's distinct values, null included) of
    each row's value of column ``c``, as UInt64."""
    if _is_categorical(u.dtype):
        phys = u.to_physical()
        slot = np.zeros(int(phys.fill_null(0).to_numpy().max(initial=0)) + 1, dtype=np.uint64)
        present = phys.is_not_null().to_numpy()
        slot[phys.drop_nulls().to_numpy()] = np.flatnonzero(present).astype(np.uint64)
        null_at = int(np.flatnonzero(~present)[0]) if not present.all() else 0
        return (pl.lit(pl.Series(slot)).gather(pl.col(c).to_physical())
                .fill_null(null_at).cast(pl.UInt64))
    values = u.drop_nulls()
    where = pl.Series(np.flatnonzero(u.is_not_null().to_numpy()).astype(np.uint64))
    null_at = int(np.flatnonzero(u.is_null().to_numpy())[0]) if u.null_count() else 0
    return pl.col(c).replace_strict(values, where, default=null_at, return_dtype=pl.UInt64)


def _is_categorical(dtype: pl.DataType) -> bool:
    return dtype == pl.Categorical or isinstance(dtype, pl.Categorical | pl.Enum)


def _by_row_hash(frame: pl.LazyFrame, cols: list[str]) -> Grouped:
    name = _free_name(cols)
    groups = frame.group_by(cols).len(name=name).collect()
    sizes = groups[name].to_numpy().astype(np.int64)
    groups = groups.drop(name)
    g = groups.height
    dtype = pl.Int32 if g < 2**31 else pl.Int64
    ids = pl.Series(np.arange(g, dtype=np.int32 if g < 2**31 else np.int64))
    hashes = groups.select(pl.struct(cols).hash(seed=HASH_SEED)).to_series()
    if hashes.n_unique() == g:
        mapped = frame.select(pl.struct(cols).hash(seed=HASH_SEED).replace_strict(
            hashes, ids, return_dtype=dtype))
    else:
        mapped = match_by_join(frame, groups, cols, ids)
    group_of_row = mapped.collect().to_series().to_numpy()
    return _as_text(groups), sizes, group_of_row


def match_by_join(frame: pl.LazyFrame, groups: pl.DataFrame, cols: list[str],
                  ids: pl.Series) -> pl.LazyFrame:
    """Each row's index in ``groups`` by a join on ``cols`` (nulls match nulls)."""
    name = _free_name(cols)
    return frame.join(groups.with_columns(ids.alias(name)).lazy(), on=cols, how="left",
                      nulls_equal=True, maintain_order="left").select(name)


def _as_text(groups: pl.DataFrame) -> pl.DataFrame:
    return groups.with_columns(pl.col(c).cast(pl.String) for c in groups.columns
                               if _is_categorical(groups.schema[c]))


def _free_name(cols: list[str]) -> str:
    name = "__group"
    while name in cols:
        name += "_"
    return name
