"""t-closeness (Li et al. ICDE 2007; Liang & Yuan Sec. 2.1).

A class has t-closeness when the Earth Mover's Distance between its sensitive distribution and
the *whole table's* is at most ``t``. The verdict never flips through floating point in the
unsafe direction: for the equal, ordered and hierarchical distances the EMD is
``numerator / (n N scale)`` with an integer numerator and is compared with ``t`` as an exact
fraction (Python integers take over where int64 could overflow); for a user matrix the verdict
rests on an exactly computed upper bound (:mod:`starmin.models.matrix_distance`).

Complexity: O(classes x |S|) for equal and ordered distance, O(classes x |S| x nodes) for a
hierarchy, one small LP per distinct class distribution for a matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.errors import InvalidInput
from starmin.models._params import INT64_SAFE, as_counts, exact, fraction_bounds
from starmin.models.base import Evaluation
from starmin.models.distances import EqualDistance, HierarchicalDistance, OrderedDistance
from starmin.models.matrix_distance import MatrixDistance

Distance = EqualDistance | OrderedDistance | HierarchicalDistance | MatrixDistance


def _present(h: NDArray[np.int64], o: NDArray[np.int64], values: Sequence[object]
             ) -> tuple[NDArray[np.int64], NDArray[np.int64], list[object]]:
    """Keep the values that occur in the whole table (the EMD's support)."""
    keep = o > 0
    if keep.all():
        return h, o, list(values)
    if (h[:, ~keep] > 0).any():
        raise InvalidInput("a class holds a sensitive value that the whole table lacks: pass "
                           "the whole table's counts as the overall histogram")
    return h[:, keep], o[keep], [v for v, k in zip(values, keep, strict=True) if k]


def emd_exact(distance: EqualDistance | OrderedDistance | HierarchicalDistance,
              hist: NDArray[np.int64], overall: NDArray[np.int64], values: Sequence[object],
              t: Fraction) -> tuple[NDArray[np.bool_], NDArray[np.float64]]:
    """Exact verdict ``EMD <= t`` and float EMD per class, for the closed-form distances."""
    n = hist.sum(axis=1)
    N = int(overall.sum())
    order = getattr(distance, "order", None) or ()
    scale_max = max(len(values), len(order), getattr(distance, "height", 0), 2)
    bound = int(n.max(initial=0)) * max(N, 1) * scale_max * max(t.numerator, t.denominator)
    dt: Any = np.int64 if bound < INT64_SAFE else object
    D = np.multiply(hist.astype(dt, copy=False), N)  # (g, |S|): c_i N - C_i n
    D -= np.multiply.outer(n.astype(dt, copy=False), overall.astype(dt, copy=False))
    num, scale = distance.numerators(D, values)  # may overwrite D
    denom = n.astype(dt) * (N * scale)
    ok = np.asarray(num * t.denominator <= denom * t.numerator, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        emd = np.where(n > 0, np.asarray(num, dtype=np.float64)
                       / np.maximum(np.asarray(denom, dtype=np.float64), 1.0), 0.0)
    return ok | (n == 0), emd.astype(np.float64)


@dataclass(frozen=True)
class TCloseness:
    """Every class's sensitive distribution is within EMD ``t`` of the whole table's.

    ``t`` in [0, 1] is taken exactly as written (``0.1`` means 1/10, so a class at EMD exactly
    0.1 passes). ``distance`` is the ground distance: :class:`EqualDistance` (default; EMD =
    total variation), :class:`OrderedDistance`, :class:`HierarchicalDistance` or
    :class:`MatrixDistance`. The reference distribution is the whole table's (the ``overall``
    argument). Measure: EMD (lower is better).
    """

    t: float | int | Fraction | str
    distance: Distance = field(default_factory=EqualDistance)
    t_exact: Fraction = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        t = exact("t", self.t, 0.2)
        fraction_bounds("t", self.t, t, Fraction(0), Fraction(1), 0.2)
        object.__setattr__(self, "t_exact", t)
        if not isinstance(self.distance, EqualDistance | OrderedDistance | HierarchicalDistance
                          | MatrixDistance):
            raise InvalidInput(f"unknown ground distance {self.distance!r}: use EqualDistance(), "
                               "OrderedDistance(), HierarchicalDistance(rows) or "
                               "MatrixDistance(matrix)")

    @property
    def name(self) -> str:
        return f"{self.t}-closeness ({self.distance.name})"

    @property
    def uses_sensitive(self) -> bool:
        return True

    @property
    def support_only(self) -> bool:
        """True for the equal distance: ``EMD = sum_v max(0, P_v - Q_v)`` reads only the values
        a class holds (and the table's total); other distances move mass between values."""
        return isinstance(self.distance, EqualDistance)

    def emd(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
            values: Sequence[object]) -> NDArray[np.float64]:
        """``(classes,)`` EMD of each class to the whole table (for reports and tests)."""
        return self.evaluate(hist, overall, values).measure

    def evaluate(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
                 values: Sequence[object]) -> Evaluation:
        h, o = as_counts(hist, overall)
        h, o, vals = _present(h, o, values)
        if isinstance(self.distance, MatrixDistance):
            n = h.sum(axis=1)
            N = int(o.sum())
            D = h.astype(object) * N - n.astype(object)[:, None] * o.astype(object)[None, :]
            ok, emd = self.distance.judge(D, n.astype(object) * N, vals, self.t_exact)
            ok |= n == 0
        else:
            ok, emd = emd_exact(self.distance, h, o, vals, self.t_exact)
        return Evaluation(ok, emd, "EMD", False)

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        """Always feasible (the whole table is at EMD 0 from itself); checks that the ground
        distance covers the sensitive values."""
        _, o = as_counts(np.zeros((0, len(overall)), dtype=np.int64), overall)
        self.evaluate(o[None, :], o, values)
