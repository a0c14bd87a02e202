"""Ragged ranges: positions within consecutive runs of given widths, in one array."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]


def ragged_arange(width: NDArray[np.integer]) -> IntArray:
    """``0, 1, ..., width[g] - 1`` for each ``g`` in turn (``width.sum()`` entries)."""
    w = np.asarray(width, dtype=np.int64)
    return np.arange(int(w.sum()), dtype=np.int64) - np.repeat(np.cumsum(w) - w, w)
