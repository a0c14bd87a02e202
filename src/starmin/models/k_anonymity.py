"""k-anonymity (Samarati; Sweeney): every released class has at least ``k`` rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.errors import Infeasible, param
from starmin.models._params import whole
from starmin.models.base import Evaluation


@dataclass(frozen=True)
class KAnonymity:
    """Every equivalence class has at least ``k`` rows (Liang & Yuan, Sec. 2, Problem 2)."""

    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", whole("k", self.k, 1, 5))

    @property
    def name(self) -> str:
        return f"{self.k}-anonymity"

    @property
    def uses_sensitive(self) -> bool:
        return False

    def evaluate(
        self, hist: NDArray[np.int64], overall: NDArray[np.int64], values: Sequence[object]
    ) -> Evaluation:
        size = np.asarray(hist).sum(axis=1)
        return Evaluation(size >= self.k, size.astype(np.float64), "class size", True)

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        check_size(self.k, int(np.asarray(overall).sum()))


def check_size(k: int, n: int) -> None:
    """Raise ``Infeasible`` when no class of ``k`` rows fits a table of ``n`` rows (the
    k-anonymity part of a model: k-anonymity, p-sensitive k-anonymity)."""
    if k > n:
        rows = "1 row" if n == 1 else f"{n} rows"
        raise Infeasible(f"{param('k', k)} is larger than the table ({rows}): no "
                         f"{k}-anonymous release exists; use at most {param('k', n)}")
