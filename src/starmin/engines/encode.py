"""Encode polars columns to small integer codes in natural sort order, missing values last.

:func:`encode_column` codes one whole column; the engine codes only the distinct values
(:func:`code_values`, on the rows of a group-by), which gives the same codes at the cost of
the distinct values rather than of the rows.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from numpy.typing import NDArray


def encode_column(s: pl.Series) -> tuple[NDArray[np.int32], tuple[object, ...]]:
    """``(codes (n,), domain)``: ``domain[codes[i]] == s[i]``; the missing value (null, and NaN
    for floats) is a value of its own, coded last as ``None``."""
    missing = s.is_null()
    if s.dtype.is_float():
        missing = missing | s.is_nan().fill_null(True)
    present = s.filter(~missing)
    u = present.unique().sort()
    if s.dtype == pl.String:
        codes = s.cast(pl.Enum(u.to_list())).to_physical().cast(pl.Int64)
    elif s.dtype == pl.Categorical or isinstance(s.dtype, pl.Enum):
        return encode_column(s.cast(pl.String))
    else:
        codes = u.search_sorted(s.fill_null(u[0] if len(u) else 0)).cast(pl.Int64)
    arr = codes.to_numpy().copy()
    miss = missing.to_numpy()
    domain = domain_values(u)
    if miss.any():
        arr[miss] = len(domain)
        domain.append(None)
    return arr.astype(np.int32), tuple(domain)


def domain_values(u: pl.Series) -> list[object]:
    """The distinct values ``u`` as Python objects. A 32-bit float becomes the 64-bit float of
    its shortest decimal text (``0.1``, not ``0.10000000149011612``, the float32's exact
    value), so that it is released, matched against hierarchy labels and ordered as written;
    distinct float32 values keep distinct texts, in the same order."""
    if u.dtype == pl.Float32:
        return [float(v) for v in u.cast(pl.String).to_list()]
    return list(u.to_list())


def missing_as_null(name: str, dtype: pl.DataType) -> pl.Expr:
    """Column ``name`` with every missing value as null: a float's NaN becomes null (NaN and
    null are the one missing value, as in :func:`encode_column`); other columns as they are."""
    col = pl.col(name)
    if dtype.is_float():
        return pl.when(col.is_nan()).then(None).otherwise(col).alias(name)
    return col


def code_values(s: pl.Series) -> tuple[NDArray[np.int32], tuple[object, ...]]:
    """:func:`encode_column` for a column whose missing values are null (see
    :func:`missing_as_null`); meant for the few distinct values of a group-by, where it gives
    the codes and the domain :func:`encode_column` gives for the whole column."""
    if s.dtype == pl.Categorical or isinstance(s.dtype, pl.Enum):
        s = s.cast(pl.String)
    u = s.drop_nulls().unique().sort()
    codes = s.replace_strict(u, pl.int_range(len(u), dtype=pl.Int32, eager=True),
                             default=len(u), return_dtype=pl.Int32)
    domain = domain_values(u)
    if s.null_count():
        domain.append(None)
    return codes.to_numpy().astype(np.int32, copy=False), tuple(domain)


def combine_codes(cols: list[NDArray[np.int32]], cards: list[int]) -> NDArray[np.int64]:
    """Dense ids ``(n,)`` of the distinct code vectors, in lexicographic order of the vectors."""
    n = len(cols[0]) if cols else 0
    if not cols:
        return np.zeros(n, dtype=np.int64)
    total = 1.0
    for c in cards:
        total *= max(c, 1)
    if total < 2**62:
        key = np.zeros(n, dtype=np.int64)
        for col, card in zip(cols, cards, strict=True):
            key = key * max(card, 1) + col
        _, inv = np.unique(key, return_inverse=True)
        return inv.reshape(-1).astype(np.int64)
    X = np.stack(cols, axis=1)
    _, inv = np.unique(X, axis=0, return_inverse=True)
    return inv.reshape(-1).astype(np.int64)
