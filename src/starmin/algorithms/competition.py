"""Competition: a measure of an LP's shape, read before it is solved (stop 34).

Packing LPs over buckets (pattern-packing's bucket LP, the level start's placement LPs, the
k-anonymity charge LP) turn fractional and slow per simplex iteration when every free row
type (or cell) lies in many buckets that each barely hold a class: on uniform random tables
such LPs took 10-50 times longer per iteration than adult's of the same size. *Competition*
is the mean number of buckets of the items that lie in one, over the buckets' mean fill
(rows per bucket over the class size). Each LP's module states its limit and the
measurements behind it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def competition(options: NDArray[np.integer], rows: float, buckets: int, size: int) -> float:
    """``options``: buckets per item (items with none are left out of the mean); ``rows``:
    the rows summed over the buckets (an item counted once per bucket); ``buckets``: how
    many; ``size``: a class's rows (``k``, or ``l``). 0 without buckets or items in one."""
    used = options[options > 0]
    if not buckets or not len(used) or rows <= 0:
        return 0.0
    return float(used.mean()) / (rows / buckets / size)
