"""Equivalence classes of a released table and their sensitive histograms.

Two exact ways to find every class once (a ``*`` is an ordinary value, null a value of its
own), chosen by a probe of rows spread over the table; both give the same classes and counts:

* **pairs** (few distinct QI + sensitive combinations, as in most releases): one polars
  ``group_by`` over the QI and sensitive columns counts each combination; a second, small
  ``group_by`` over the QI columns gathers them into classes. Sensitive values are encoded
  exactly from the small table of combinations.
* **rows** (many combinations): one polars ``group_by`` over the QI columns yields each class's
  QI values, size and the 64-bit hashes of its rows' sensitive values. The hashes become exact
  dense codes by lookup among the hashes of the column's distinct values; the lookup is checked
  to be one-to-one (distinct values, distinct hashes) and to place every row, and should either
  check fail (a hash collision) the classes are built again from the values themselves.

On both ways, QI columns held as categoricals (or enums) are grouped by one 64-bit key packing
their physical codes (within a column a code stands for exactly one value; a missing value
gets a code of its own), and each class's values are taken from its first row: exact, and at
10M rows a fraction of the memory a ``group_by`` over the categorical columns themselves needs
(:func:`_qi_keys`). Other QI columns are grouped by their values as they are.

A class's sensitive values are held as *entries* (code, count) stored class after class;
numpy then counts codes per class, in chunks of classes so the dense ``(classes, |S|)``
matrices stay small, or, for many sensitive values and models that read only the values a class
holds, over just the values each chunk holds (:meth:`Classes.compact_chunks`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import polars as pl
from numpy.typing import NDArray

CHUNK_CELLS = 1 << 18
"""Largest dense histogram built at once (classes x |S| entries; 2 MB keeps every pass of
the models in cache)."""

COMPACT_CELLS = 1 << 21
"""Largest compact histogram built at once (see :meth:`Classes.compact_chunks`)."""

OTHER = "<other values>"
"""Label of the compact histograms' column that stands for every value a chunk does not hold."""

SEED = 0
"""Seed of the sensitive-value hashes (any fixed value: the codes are exact either way)."""

PROBE_ROWS = 1 << 16
"""Rows probed to choose the grouping path, spread evenly over the table (every
``n // PROBE_ROWS``-th row): a table whose combinations repeat only beyond its first rows
(a register sorted by date, or adult repeated to 10M rows: 19,502 combinations, where the
first 8,192 rows looked nearly all distinct) is still seen to repeat. 10M rows: the pairs
path took 0.4 s there, the rows path 1.4 s; on 10M nearly distinct rows, 6.2 s against 2.4 s."""

PAIRS_SHARE = 0.5
"""The pairs path is taken when at most this share of the probed rows hold a QI + sensitive
combination that occurs once in the probe."""

_DIRECT_BITS = 16
"""Largest lookup table for the sensitive hashes, in bits of the table size."""

GroupPath = Literal["pairs", "rows", "values"]


@dataclass(frozen=True, eq=False)
class Sensitive:
    """One sensitive column, encoded: ``values[code]``; ``codes`` holds the code of every
    entry (see :class:`Classes`)."""

    name: str
    values: tuple[object, ...]
    codes: NDArray[np.int64]

    @property
    def s(self) -> int:
        return len(self.values)


@dataclass(frozen=True, eq=False)
class Classes:
    """The released classes. ``frame`` holds the released QI values of class ``i`` in its row
    ``i``; ``sizes[i]`` its rows. Class ``i`` owns the entries ``offsets[i]:offsets[i + 1]``:
    entry ``e`` stands for ``weights[e]`` rows (1 when ``weights`` is None) whose sensitive
    values are ``sensitive[a].codes[e]``."""

    frame: pl.DataFrame
    sizes: NDArray[np.int64]
    offsets: NDArray[np.int64]
    weights: NDArray[np.int64] | None
    sensitive: tuple[Sensitive, ...]
    path: GroupPath
    _column_hashes: dict[str, NDArray[np.uint64]] = field(default_factory=dict, repr=False)

    @property
    def g(self) -> int:
        return int(self.sizes.shape[0])

    def tie_keys(self, idx: NDArray[np.int64]) -> NDArray[np.uint64]:
        """``(len(idx), m)``: the hash of each released QI value of the classes ``idx``, one
        column per QI: the tie-break key, compared column by column, so the order of classes
        does not depend on row order."""
        out = np.empty((len(idx), self.frame.width), dtype=np.uint64)
        for j, c in enumerate(self.frame.columns):
            out[:, j] = self.frame[c].gather(idx).hash(seed=SEED).to_numpy()
        return out

    def first_by_key(self, idx: NDArray[np.int64], need: int) -> NDArray[np.int64]:
        """The ``need`` classes of ``idx`` (all if fewer) with the smallest tie-break keys
        (:meth:`tie_keys`), in key order. Columns are hashed only for the classes still in the
        running: those whose keys so far are all equal to the ``need``-th smallest."""
        sure: list[NDArray[np.int64]] = []  # in, whatever their later columns hold
        tied = np.asarray(idx, dtype=np.int64)  # equal keys so far; ``left`` of them are in
        left = need
        for c in self.frame.columns:
            if len(tied) <= left:
                break
            h = self._hash(c, tied)
            cut = np.partition(h, left - 1)[left - 1]
            below = h < cut
            sure.append(tied[below])
            left -= int(below.sum())
            tied = tied[h == cut]
        chosen = np.concatenate([*sure, tied[:left]])  # tied[:left]: equal keys in every column
        keys = self.tie_keys(chosen)
        return chosen[np.lexsort(keys.T[::-1])]

    def _hash(self, c: str, idx: NDArray[np.int64]) -> NDArray[np.uint64]:
        """Hashes of column ``c``'s values in the classes ``idx``: from the whole column's
        (hashed once, for every check) when ``idx`` is a large part of it."""
        if c not in self._column_hashes and 4 * len(idx) < self.g:
            return self.frame[c].gather(idx).hash(seed=SEED).to_numpy()
        if c not in self._column_hashes:
            self._column_hashes[c] = self.frame[c].hash(seed=SEED).to_numpy()
        return self._column_hashes[c][idx]

    def key(self, i: int) -> tuple[tuple[str, object], ...]:
        """The released QI values of class ``i``, as (column, value) pairs."""
        return tuple(zip(self.frame.columns, self.frame.row(i), strict=True))

    def chunks(self, a: int) -> Iterator[tuple[NDArray[np.int64], NDArray[np.int64]]]:
        """``(idx, hist)`` pairs covering every class of two or more rows once: ``hist``
        holds the ``(len(idx), |S_a|)`` counts of sensitive column ``a`` for the classes
        ``idx``. (A class of one row has one of just ``|S_a|`` histograms, a single 1 at its
        value: see :meth:`singletons`.)"""
        col = self.sensitive[a]
        s = max(col.s, 1)
        many = self.sizes > 1
        idx_all = np.flatnonzero(many)
        if len(idx_all) == 0:
            return
        entries = np.diff(self.offsets)
        codes, weights = col.codes, self.weights
        if len(idx_all) < self.g:  # keep the entries of those classes, in class order
            keep = np.repeat(many, entries)
            codes = codes[keep]
            weights = None if weights is None else weights[keep]
        starts = np.zeros(len(idx_all) + 1, dtype=np.int64)
        np.cumsum(entries[idx_all], out=starts[1:])
        step = max(1, CHUNK_CELLS // s)
        for lo in range(0, len(idx_all), step):
            hi = min(lo + step, len(idx_all))
            a0, a1 = int(starts[lo]), int(starts[hi])
            cls = np.repeat(np.arange(hi - lo, dtype=np.int64) * s, entries[idx_all[lo:hi]])
            w = None if weights is None else weights[a0:a1]
            hist = np.bincount(cls + codes[a0:a1], weights=w, minlength=(hi - lo) * s)
            yield idx_all[lo:hi], hist.astype(np.int64, copy=False).reshape(hi - lo, s)

    def compact_chunks(self, a: int) -> Iterator[tuple[NDArray[np.int64], NDArray[np.int64],
                                                       NDArray[np.int64], list[object]]]:
        """``(idx, hist, overall, values)`` covering every class once, each ``hist`` over only
        the values its classes hold plus one last column for all other values (count 0 in
        every class; its ``overall`` is their total): for models that read only the values a
        class holds (``support_only``), with many sensitive values."""
        col = self.sensitive[a]
        full = self.overall(a)
        total = int(full.sum())
        entries = np.diff(self.offsets)
        for lo, hi in _compact_bounds(self.offsets, COMPACT_CELLS):
            a0, a1 = int(self.offsets[lo]), int(self.offsets[hi])
            held, local = np.unique(col.codes[a0:a1], return_inverse=True)
            width = len(held) + 1
            cls = np.repeat(np.arange(hi - lo, dtype=np.int64) * width, entries[lo:hi])
            w = None if self.weights is None else self.weights[a0:a1]
            hist = np.bincount(cls + local.reshape(-1), weights=w, minlength=(hi - lo) * width)
            overall = np.r_[full[held], total - int(full[held].sum())].astype(np.int64)
            values = [col.values[int(v)] for v in held] + [OTHER]
            yield (np.arange(lo, hi, dtype=np.int64),
                   hist.astype(np.int64, copy=False).reshape(hi - lo, width), overall, values)

    def singletons(self, a: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(idx, code)``: the classes of a single row and that row's code in column ``a``
        (their histograms are the one-hot rows of the identity matrix)."""
        idx = np.flatnonzero(self.sizes == 1)
        return idx, self.sensitive[a].codes[self.offsets[idx]]

    def overall(self, a: int) -> NDArray[np.int64]:
        """The whole table's ``(|S_a|,)`` counts."""
        col = self.sensitive[a]
        counts = np.bincount(col.codes, weights=self.weights, minlength=col.s)
        return counts.astype(np.int64)


def _compact_bounds(offsets: NDArray[np.int64], cells: int) -> Iterator[tuple[int, int]]:
    """Runs ``[lo, hi)`` of classes, each as long as ``classes x (entries + 1) <= cells``
    allows (at least one class): a bound on the size of its compact histogram."""
    g = len(offsets) - 1
    lo = 0
    while lo < g:
        step, hi = 1, lo + 1
        while True:  # grow by doubling, then halve back: O(log) tests per run
            nxt = min(g, lo + 2 * step)
            if nxt == hi or (nxt - lo) * (int(offsets[nxt] - offsets[lo]) + 1) > cells:
                break
            hi, step = nxt, 2 * step
        while step > 1:
            step //= 2
            nxt = min(g, hi + step)
            if nxt > hi and (nxt - lo) * (int(offsets[nxt] - offsets[lo]) + 1) <= cells:
                hi = nxt
        yield lo, hi
        lo = hi


def group(df: pl.DataFrame, qi: tuple[str, ...], sensitive: tuple[str, ...],
          path: GroupPath | None = None) -> Classes:
    """Group ``df`` by its released QI values (see the module docstring); ``path`` forces
    one way (for tests), else a probe of rows spread over the table chooses."""
    # only the columns read, one chunk each: a CSV is read in parallel pieces, and grouping a
    # frame of many pieces costs several times the copy that joins them
    df = df.select(*qi, *sensitive).rechunk()
    path = path or _choose(df, qi, sensitive)
    if path == "pairs":
        return group_pairs(df, qi, sensitive)
    if path == "values":
        return group_by_values(df, qi, sensitive)
    return group_rows(df, qi, sensitive)


def _choose(df: pl.DataFrame, qi: tuple[str, ...], sensitive: tuple[str, ...]) -> GroupPath:
    """``pairs`` when the probed rows (:data:`PROBE_ROWS`) suggest few distinct QI +
    sensitive combinations: the share of probed rows whose combination occurs once in the
    probe (Good-Turing's estimate of the chance that a further row brings a new combination)
    is at most :data:`PAIRS_SHARE`. A wrong guess costs time, never exactness."""
    if not sensitive:
        return "pairs"  # one group_by over the QI columns either way
    probe = df.gather_every(max(1, df.height // PROBE_ROWS)).head(PROBE_ROWS)
    count_col = _fresh("__count", set(df.columns))
    counts = probe.group_by([*qi, *sensitive]).agg(pl.len().alias(count_col))[count_col]
    once = int((counts == 1).sum())
    return "pairs" if once <= PAIRS_SHARE * probe.height else "rows"


def group_pairs(df: pl.DataFrame, qi: tuple[str, ...],
                sensitive: tuple[str, ...]) -> Classes:
    """The pairs path: count each distinct QI + sensitive combination, then gather the
    combinations of each class (exact: polars compares the values themselves)."""
    taken = set(df.columns)
    count_col, size_col = _fresh("__count", taken), _fresh("__size", taken)
    if not sensitive:
        return _classes(_group_by_qi(df, qi, [], pl.len().alias(size_col)), qi, size_col, [],
                        None, "pairs")
    combos = _group_by_qi(df, qi, list(sensitive), pl.len().alias(count_col))
    return group_counted(combos, qi, sensitive, count_col)


def group_counted(combos: pl.DataFrame, qi: tuple[str, ...], sensitive: tuple[str, ...],
                  count_col: str) -> Classes:
    """The classes from the distinct QI + sensitive combinations and their row counts
    (``count_col``), e.g. counted where the rows are (the Spark path, :mod:`.spark`)."""
    taken = set(combos.columns)
    size_col = _fresh("__size", taken)
    if not sensitive:
        return _classes(combos.group_by(list(qi)).agg(pl.col(count_col).sum().alias(size_col)),
                        qi, size_col, [], None, "pairs")
    grouped = combos.group_by(list(qi)).agg(
        pl.col(count_col).sum().alias(size_col), pl.col(count_col), *map(pl.col, sensitive))
    cols = [Sensitive(c, *_encode_small(grouped[c].explode())) for c in sensitive]
    weights = grouped[count_col].explode().to_numpy().astype(np.int64)
    entries = grouped[count_col].list.len().to_numpy().astype(np.int64)
    return _classes(grouped, qi, size_col, cols, weights, "pairs", entries)


def group_rows(df: pl.DataFrame, qi: tuple[str, ...], sensitive: tuple[str, ...]) -> Classes:
    """The rows path: hashes of the sensitive values gathered per class, decoded exactly."""
    taken = set(df.columns)
    size_col = _fresh("__size", taken)
    hash_cols = [_fresh(f"__h{i}", taken) for i in range(len(sensitive))]
    grouped = _group_by_qi(
        df, qi, [], pl.len().alias(size_col),
        *[pl.col(c).hash(seed=SEED).alias(h) for c, h in zip(sensitive, hash_cols, strict=True)])
    cols = []
    for c, h in zip(sensitive, hash_cols, strict=True):
        coded = by_hash(df[c], grouped[h].explode().to_numpy())
        if coded is None:
            return group_by_values(df, qi, sensitive)
        cols.append(Sensitive(c, *coded))
    return _classes(grouped, qi, size_col, cols, None, "rows")


def group_by_values(df: pl.DataFrame, qi: tuple[str, ...],
                    sensitive: tuple[str, ...]) -> Classes:
    """The rows path without hashing: each class collects its rows' sensitive values, which
    are encoded exactly (slower; used on a hash collision)."""
    taken = set(df.columns)
    size_col = _fresh("__size", taken)
    value_cols = [_fresh(f"__v{i}", taken) for i in range(len(sensitive))]
    grouped = _group_by_qi(
        df, qi, [], pl.len().alias(size_col),
        *[pl.col(c).alias(v) for c, v in zip(sensitive, value_cols, strict=True)])
    cols = [Sensitive(c, *encode(grouped[v].explode().rename(c)))
            for c, v in zip(sensitive, value_cols, strict=True)]
    return _classes(grouped, qi, size_col, cols, None, "values")


def _group_by_qi(df: pl.DataFrame, qi: tuple[str, ...], more: list[str],
                 *aggs: pl.Expr) -> pl.DataFrame:
    """``df.group_by([*qi, *more]).agg(*aggs)``, with the categorical QI columns grouped by
    one packed key (:func:`_qi_keys`) and their values taken from each group's first row."""
    keys, packed = _qi_keys(df, qi)
    if not packed:
        return df.group_by([*qi, *more]).agg(*aggs)
    key = _fresh("__key", set(df.columns))
    return (df.lazy().group_by(keys.alias(key), *[c for c in qi if c not in packed], *more)
            .agg(*aggs, *[pl.col(c).first() for c in packed]).drop(key).collect())


def _qi_keys(df: pl.DataFrame, qi: tuple[str, ...]) -> tuple[pl.Expr, list[str]]:
    """One UInt64 expression packing the physical codes of the categorical (and enum) QI
    columns, and those columns; no columns when fewer than two are categorical or the codes
    would not fit in 63 bits. Each column's codes ``0..M`` (its largest code ``M``) and a
    missing value, coded ``M + 1``, take radix ``M + 2``: the key is a mixed-radix number,
    equal for two rows exactly when every packed column's code is, that is when their values
    are (a categorical's code stands for one value)."""
    cats = [c for c in qi if isinstance(df.schema[c], (pl.Categorical, pl.Enum))]
    if len(cats) < 2:
        return pl.lit(0), []
    top = df.select(pl.col(c).to_physical().max() for c in cats).row(0)
    radix = [(-1 if m is None else int(m)) + 2 for m in top]
    if sum(np.log2(radix)) >= 63:
        return pl.lit(0), []
    key: pl.Expr | None = None
    for c, r in zip(cats, radix, strict=True):
        code = pl.col(c).to_physical().cast(pl.UInt64).fill_null(r - 1)
        key = code if key is None else key * r + code
    assert key is not None
    return key, cats


def _classes(grouped: pl.DataFrame, qi: tuple[str, ...], size_col: str,
             cols: list[Sensitive], weights: NDArray[np.int64] | None, path: GroupPath,
             entries: NDArray[np.int64] | None = None) -> Classes:
    """``entries``: each class's number of entries (its size when each row is one)."""
    sizes = grouped[size_col].to_numpy().astype(np.int64)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes if entries is None else entries, out=offsets[1:])
    return Classes(grouped.select(qi), sizes, offsets, weights, tuple(cols), path)


def _ordered(col: pl.Series) -> tuple[pl.Series, tuple[object, ...]]:
    """The distinct values of ``col`` in natural order (numbers by value, anything else by
    its text; missing last) and those values as Python objects."""
    u = col.unique()
    text = u if u.dtype.is_numeric() else u.cast(pl.String)
    order = text.arg_sort(nulls_last=True)
    return u.gather(order), tuple(text.gather(order).to_list())


def by_hash(col: pl.Series, flat: NDArray[np.uint64]
            ) -> tuple[tuple[object, ...], NDArray[np.int64]] | None:
    """``(values, codes)`` for the hashes ``flat`` of ``col``'s rows (any order), or None if
    the hashes do not identify the values one-to-one."""
    u, values = _ordered(col)
    hu = u.hash(seed=SEED).to_numpy()
    ordered = np.sort(hu)  # (np.unique here would load numpy.ma: 50 ms of start-up)
    if (ordered[1:] == ordered[:-1]).any():
        return None  # two distinct values share a hash
    codes = _lookup(hu, flat)
    if codes is None or not np.array_equal(hu[codes], flat):
        return None  # a row's hash is not among its column's distinct values' hashes
    return values, codes


def _lookup(hu: NDArray[np.uint64], flat: NDArray[np.uint64]) -> NDArray[np.int64] | None:
    """Index into the distinct hashes ``hu`` of each hash in ``flat`` (unchecked: the caller
    compares ``hu[codes]`` with ``flat``): a direct table on some bit field of the hash in
    which the distinct hashes do not collide, else a binary search."""
    k = len(hu)
    if k == 1:
        return np.zeros(len(flat), dtype=np.int64)
    for bits in range(max(8, 2 * k.bit_length()), _DIRECT_BITS + 1):
        mask = np.uint64((1 << bits) - 1)
        for shift in range(0, 64 - bits + 1, 4):
            slots = (hu >> np.uint64(shift)) & mask
            if np.bincount(slots.astype(np.int64), minlength=1 << bits).max() == 1:
                table = np.zeros(1 << bits, dtype=np.int64)
                table[slots.astype(np.int64)] = np.arange(k, dtype=np.int64)
                return table[((flat >> np.uint64(shift)) & mask).astype(np.int64)]
    order = np.argsort(hu)
    pos = np.minimum(np.searchsorted(hu[order], flat), k - 1)
    return order[pos].astype(np.int64)


def _encode_small(col: pl.Series) -> tuple[tuple[object, ...], NDArray[np.int64]]:
    """:func:`encode` by way of :func:`by_hash` (faster), falling back to :func:`encode`."""
    return by_hash(col, col.hash(seed=SEED).to_numpy()) or encode(col)


def encode(col: pl.Series) -> tuple[tuple[object, ...], NDArray[np.int64]]:
    """Exact dense codes of a column: ``values`` in natural order (missing last) and each
    row's code, ``values[code]`` being its value (the reference encoding: no hashing)."""
    _, values = _ordered(col)
    text = col if col.dtype.is_numeric() else col.cast(pl.String)
    codes = text.rank("dense").fill_null(len(values)).to_numpy().astype(np.int64) - 1
    if len(codes) and int(codes.max()) + 1 != len(values):
        raise AssertionError(f"column {col.name!r}: ranks and distinct values disagree")
    return values, codes


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name = "_" + name
    taken.add(name)
    return name
