"""Equivalence classes of a released table and their sensitive histograms.

Every released QI column is coded exactly (a ``*`` is an ordinary value, null a value of its
own), the codes are packed into one integer per row, and sorting the rows by it puts each class
in one run: its size and its rows' sensitive codes follow; numpy then counts codes per class.
Classes are processed in chunks so the dense ``(classes, |S|)`` matrices stay small.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from numpy.typing import NDArray

CHUNK_CELLS = 1 << 18
"""Largest dense histogram built at once (classes x |S| entries; 2 MB keeps every pass of
the models in cache)."""


@dataclass(frozen=True, eq=False)
class Sensitive:
    """One sensitive column, encoded: ``values[code]``; ``flat`` holds every row's code,
    grouped class after class (``offsets[i]:offsets[i + 1]`` for class ``i``)."""

    name: str
    values: tuple[object, ...]
    flat: NDArray[np.int64]

    @property
    def s(self) -> int:
        return len(self.values)


@dataclass(frozen=True, eq=False)
class Classes:
    """The released classes: ``frame`` (the released QI columns, every row) with ``rep``, the
    row of ``frame`` that stands for each class; ``sizes``; ``offsets`` into each sensitive
    column's ``flat`` codes."""

    frame: pl.DataFrame
    rep: NDArray[np.int64]
    sizes: NDArray[np.int64]
    offsets: NDArray[np.int64]
    sensitive: tuple[Sensitive, ...]
    _hashes: list[NDArray[np.uint64]] = field(default_factory=list, repr=False)

    @property
    def g(self) -> int:
        return int(self.sizes.shape[0])

    def hashes(self) -> NDArray[np.uint64]:
        """``(classes,)`` hash of each class's released QI values (computed once): a
        tie-break that does not depend on row order."""
        if not self._hashes:
            self._hashes.append(self.frame.hash_rows(seed=0).to_numpy()[self.rep])
        return self._hashes[0]

    def key(self, i: int) -> tuple[tuple[str, object], ...]:
        """The released QI values of class ``i``, as (column, value) pairs."""
        return tuple(zip(self.frame.columns, self.frame.row(int(self.rep[i])), strict=True))

    def chunks(self, a: int) -> Iterator[tuple[NDArray[np.int64], NDArray[np.int64]]]:
        """``(idx, hist)`` pairs covering every class once: ``hist`` holds the ``(len(idx),
        |S_a|)`` counts of sensitive column ``a`` for the classes ``idx``.

        Only classes of two or more rows: a class of one row has one of just ``|S_a|``
        histograms (a single 1 at its value), see :meth:`singletons`.
        """
        col = self.sensitive[a]
        s = max(col.s, 1)
        rest = np.flatnonzero(self.sizes > 1)
        step = max(1, CHUNK_CELLS // s)
        for lo in range(0, len(rest), step):
            idx = rest[lo:lo + step]
            lengths = self.sizes[idx]
            ends = np.cumsum(lengths)
            # positions of the chunk's rows in ``flat``: each class's range, concatenated
            pos = np.arange(int(ends[-1]), dtype=np.int64) + np.repeat(
                self.offsets[idx] - (ends - lengths), lengths)
            cls = np.repeat(np.arange(len(idx), dtype=np.int64), lengths)
            hist = np.bincount(cls * s + col.flat[pos], minlength=len(idx) * s)
            yield idx, hist.reshape(len(idx), s).astype(np.int64, copy=False)

    def singletons(self, a: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(idx, code)``: the classes of a single row and that row's code in column ``a``
        (their histograms are the one-hot rows of the identity matrix)."""
        idx = np.flatnonzero(self.sizes == 1)
        return idx, self.sensitive[a].flat[self.offsets[idx]]

    def overall(self, a: int) -> NDArray[np.int64]:
        """The whole table's ``(|S_a|,)`` counts."""
        col = self.sensitive[a]
        return np.bincount(col.flat, minlength=col.s).astype(np.int64)


def _natural(values: list[object]) -> list[object]:
    present = [v for v in values if v is not None]
    try:
        present.sort()
    except TypeError:
        present.sort(key=lambda v: (type(v).__name__, str(v)))
    return present + ([None] if len(present) < len(values) else [])


def encode(col: pl.Series) -> tuple[tuple[object, ...], pl.Series]:
    """Dense codes of a column: ``values`` in natural order (missing last) and a UInt32
    series of codes, ``values[code]`` being each row's value."""
    if col.dtype.is_numeric():
        return _encode_numeric(col)
    text = col if col.dtype in (pl.String, pl.Categorical) else col.cast(pl.String)
    phys = text.cast(pl.Categorical).to_physical()
    top = phys.max()
    fill = int(top) + 1 if isinstance(top, int) else 0  # the missing value's id
    ids = phys.fill_null(fill).to_numpy().astype(np.int64, copy=False)
    first = np.full(int(ids.max()) + 1, -1, dtype=np.int64)
    first[ids[::-1]] = np.arange(len(ids) - 1, -1, -1, dtype=np.int64)
    present = np.flatnonzero(first >= 0)
    raw = text.gather(first[present]).to_list()
    order = _natural(list(raw))
    rank = {v: i for i, v in enumerate(order)}
    lut = np.zeros(len(first), dtype=np.uint32)
    lut[present] = [rank[v] for v in raw]
    return tuple(order), pl.Series(col.name, lut[ids])


def _encode_numeric(col: pl.Series) -> tuple[tuple[object, ...], pl.Series]:
    valid = ~col.is_null().to_numpy()
    arr = col.drop_nulls().to_numpy()
    if arr.dtype.kind in "iu" and len(arr) and int(arr.max()) - int(arr.min()) < 4 * len(arr):
        lo = int(arr.min())
        present = np.bincount((arr - lo).astype(np.int64)) > 0
        lut = np.cumsum(present) - 1
        uniq = np.flatnonzero(present) + lo
        inv = lut[(arr - lo).astype(np.int64)]
    else:
        uniq, inv = np.unique(arr, return_inverse=True)
    codes = np.full(len(valid), len(uniq), dtype=np.uint32)
    codes[valid] = np.asarray(inv).reshape(-1)
    values: list[object] = [v.item() for v in uniq]
    if not valid.all():
        values.append(None)
    return tuple(values), pl.Series(col.name, codes)


def group(df: pl.DataFrame, qi: tuple[str, ...], sensitive: tuple[str, ...]) -> Classes:
    """Group ``df`` by its released QI values (see module docstring).

    Each QI column gets exact dense integer codes (equal values, and only equal values, share
    a code; null is a code of its own); the codes are packed into one integer key per row and
    the rows are sorted by it, so each class is one run of the sorted order. Tables whose
    packed key would not fit in 62 bits fall back to one polars ``group_by``.
    """
    encoded = [encode(df[c]) for c in sensitive]
    packed = _packed_key(df, qi)
    if packed is None:
        return _group_polars(df, qi, sensitive, encoded)
    order = np.argsort(packed)  # rows of one class become one run (any order inside it)
    key_sorted = packed[order]
    starts = np.flatnonzero(np.r_[True, key_sorted[1:] != key_sorted[:-1]])
    offsets = np.r_[starts, len(order)].astype(np.int64)
    sizes = np.diff(offsets)
    cols = tuple(
        Sensitive(name, values, codes.to_numpy().astype(np.int64)[order])
        for name, (values, codes) in zip(sensitive, encoded, strict=True))
    return Classes(df.select(qi), order[starts].astype(np.int64), sizes, offsets, cols)


def _dense_codes(col: pl.Series) -> NDArray[np.int64]:
    """Exact dense codes ``0..u-1`` of a column (null, and NaN, a code of their own)."""
    if col.dtype.is_integer() and col.null_count() == 0:
        a = col.to_numpy().astype(np.int64, copy=False)
        lo = int(a.min()) if len(a) else 0
        if len(a) and int(a.max()) - lo < 4 * len(a) + 1024:
            raw = a - lo
        else:
            return np.unique(a, return_inverse=True)[1].reshape(-1).astype(np.int64)
    else:
        text = col if col.dtype in (pl.String, pl.Categorical) else col.cast(pl.String)
        phys = text.cast(pl.Categorical).to_physical()
        top = phys.max()
        fill = int(top) + 1 if isinstance(top, int) else 0
        raw = phys.fill_null(fill).to_numpy().astype(np.int64, copy=False)
    present = np.zeros(int(raw.max()) + 1 if len(raw) else 1, dtype=bool)
    present[raw] = True
    remap = np.cumsum(present, dtype=np.int64) - 1
    return remap[raw]


def _packed_key(df: pl.DataFrame, qi: tuple[str, ...]) -> NDArray[np.int64] | None:
    """One int64 per row, equal exactly when the rows' QI values are equal; None if the
    mixed-radix product of the columns' cardinalities exceeds 2**62."""
    key = np.zeros(df.height, dtype=np.int64)
    total = 1
    for c in qi:
        codes = _dense_codes(df[c])
        card = int(codes.max()) + 1 if len(codes) else 1
        total *= card
        if total >= 2**62:
            return None
        key = key * card + codes
    return key


def _group_polars(df: pl.DataFrame, qi: tuple[str, ...], sensitive: tuple[str, ...],
                  encoded: list[tuple[tuple[object, ...], pl.Series]]) -> Classes:
    """The general path: one polars ``group_by`` collecting each class's sensitive codes."""
    taken = set(df.columns)
    size_col = _fresh("__size", taken)
    row_col = _fresh("__row", taken)
    code_cols = [_fresh(f"__s{i}", taken) for i in range(len(sensitive))]
    frame = df.select(qi).with_columns(
        [codes.alias(name) for (_, codes), name in zip(encoded, code_cols, strict=True)]
    ).with_row_index(row_col)
    grouped = frame.group_by(list(qi)).agg(pl.len().alias(size_col), pl.col(row_col).first(),
                                           *[pl.col(c) for c in code_cols])
    sizes = grouped[size_col].to_numpy().astype(np.int64)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    cols = tuple(
        Sensitive(name, values, grouped[c].explode().to_numpy().astype(np.int64))
        for name, (values, _), c in zip(sensitive, encoded, code_cols, strict=True))
    rep = grouped[row_col].to_numpy().astype(np.int64)
    return Classes(df.select(qi), rep, sizes, offsets, cols)


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name = "_" + name
    taken.add(name)
    return name
