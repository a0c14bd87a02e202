"""Vectorized, block-seeded sampling for the synthetic generators.

Rows are generated in blocks of :data:`BLOCK` rows; block ``b`` draws its uniforms from its
own generator seeded by ``(seed, stream, b)``. Row ``i`` therefore depends only on ``seed`` and
``i``: a table of ``n`` rows is the first ``n`` rows of any larger table with the same seed.

Conditional categorical draws use one ``searchsorted`` over the concatenated, offset CDFs of
all parent values (see :class:`Conditional`), so each column costs ``O(n log(P K))`` with no
Python loop over rows or parent values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import polars as pl
from numpy.typing import ArrayLike, NDArray

from starmin.errors import InvalidInput

BLOCK = 1 << 16
"""Rows per seeded block."""

CHUNK_BLOCKS = 16
"""Blocks processed together (about 1M rows), which bounds temporary memory."""

MAX_ROWS = 100_000_000

FloatArray = NDArray[np.float64]
Codes = NDArray[np.int64]


def normalized(p: ArrayLike) -> FloatArray:
    """Rows of ``p`` (any shape ``(..., K)``) scaled to sum to 1."""
    a = np.asarray(p, dtype=np.float64)
    if (a < 0).any():
        raise ValueError("negative probability")
    return a / a.sum(axis=-1, keepdims=True)


class Conditional:
    """Draw a category ``j`` in ``0..K-1`` with probability ``probs[parent, j]``.

    Inverse-CDF sampling: row ``u`` gets the number of CDF entries ``<= u``. ``probs`` has
    shape ``(P, K)`` (any row scale). A guide table over :data:`GUIDE` equal cells of [0, 1)
    answers every uniform whose cell holds no CDF step by one lookup; the rest (a fraction of
    at most ``K / GUIDE``) use one ``searchsorted`` over all rows' CDFs, each shifted by its
    parent index so that the concatenation is increasing.
    """

    GUIDE = 2048

    def __init__(self, probs: ArrayLike) -> None:
        p = normalized(np.atleast_2d(np.asarray(probs, dtype=np.float64)))
        self.P, self.K = p.shape
        cdf = np.cumsum(p, axis=1)
        cdf[:, -1] = 1.0
        self.flat = (cdf + np.arange(self.P)[:, None]).ravel()  # (P*K,) increasing
        edges = np.arange(self.GUIDE + 1) / self.GUIDE
        left = (cdf[:, None, :] <= edges[None, :-1, None]).sum(axis=2)   # (P, GUIDE)
        right = (cdf[:, None, :] < edges[None, 1:, None]).sum(axis=2)
        self.guide = np.where(left == right, left, -1).astype(np.int16)  # -1: cell has a step

    def sample(self, u: FloatArray, parent: NDArray[np.integer] | None = None) -> Codes:
        """``(n,)`` categories for uniforms ``u`` in [0, 1) and parent codes (default 0)."""
        u = np.minimum(u, 1.0 - 1e-12)
        par = np.zeros(len(u), np.int64) if parent is None else parent.astype(np.int64)
        out = self.guide[par, (u * self.GUIDE).astype(np.int64)].astype(np.int64)
        hard = np.flatnonzero(out < 0)
        if len(hard):
            ph = par[hard]
            idx = np.searchsorted(self.flat, ph + u[hard], side="right") - ph * self.K
            out[hard] = np.minimum(idx, self.K - 1)
        return out


def check_n(n: int, seed: int) -> None:
    """Raise :class:`InvalidInput` for a bad size or seed."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 0 <= n <= MAX_ROWS:
        raise InvalidInput(f"n={n!r} is not a row count: give an integer 0..{MAX_ROWS:_}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidInput(f"seed={seed!r} is not a seed: give a non-negative integer")


def block_uniforms(seed: int, stream: int, k: int, first_block: int, n: int) -> FloatArray:
    """``(k, n)`` uniforms for rows ``first_block * BLOCK ..`` (+ ``n``), block-seeded."""
    out = np.empty((k, n), dtype=np.float64)
    for j, start in enumerate(range(0, n, BLOCK)):
        ss = np.random.SeedSequence([int(seed), int(stream), first_block + j])
        rows = min(BLOCK, n - start)
        out[:, start:start + rows] = np.random.default_rng(ss).random((k, BLOCK))[:, :rows]
    return out


def generate(
    n: int,
    seed: int,
    stream: int,
    k: int,
    columns: Mapping[str, type[np.integer]],
    draw: Callable[[FloatArray], Mapping[str, NDArray[np.integer]]],
) -> dict[str, NDArray[np.integer]]:
    """Run ``draw`` on ``(k, rows)`` uniforms chunk by chunk and collect its code columns.

    ``columns`` gives each output column's integer dtype; ``draw`` returns one ``(rows,)``
    array per column.
    """
    out = {name: np.empty(n, dtype=dt) for name, dt in columns.items()}
    step = BLOCK * CHUNK_BLOCKS
    for start in range(0, n, step):
        rows = min(step, n - start)
        got = draw(block_uniforms(seed, stream, k, start // BLOCK, rows))
        for name in columns:
            out[name][start:start + rows] = got[name]
    return out


def to_frame(
    codes: Mapping[str, NDArray[np.integer]],
    labels: Mapping[str, Sequence[str] | None],
    categorical: bool = False,
) -> pl.DataFrame:
    """A DataFrame from code columns; ``labels[c]`` decodes column ``c`` (``None``: keep ints).

    Decoded columns are String, or ``Enum`` (same values, far less memory) if ``categorical``.
    """
    series = []
    for name, arr in codes.items():
        lab = labels[name]
        if lab is None:
            series.append(pl.Series(name, arr, dtype=pl.Int64))
            continue
        dtype = pl.Enum(list(lab)) if categorical else pl.String
        idx = pl.Series(arr.astype(np.uint32, copy=False))
        series.append(pl.Series(name, list(lab), dtype=dtype).gather(idx))
    return pl.DataFrame(series)
