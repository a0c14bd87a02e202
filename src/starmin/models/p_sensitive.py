"""p-sensitive k-anonymity (Truta & Vinay 2006; Bredereck et al. Sec. 2, Definition 3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.errors import Infeasible, param
from starmin.models._params import as_counts, whole
from starmin.models.base import Evaluation
from starmin.models.k_anonymity import check_size


@dataclass(frozen=True)
class PSensitiveKAnonymity:
    """Every class has at least ``k`` rows and at least ``p`` distinct sensitive values.

    Bredereck et al. (Sec. 2, Definition 3 and problem p-SENSITIVITY): the output must be
    k-anonymous in the quasi-identifiers and every row type must hold ``p`` different values
    in the private column. The missing value counts as a value. Exact integer test,
    O(classes x |S|). Measure: distinct values per class (the parts hold the class-size and
    the distinct-value evaluations separately).
    """

    p: int
    k: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "p", whole("p", self.p, 1, 2))
        object.__setattr__(self, "k", whole("k", self.k, 1, 5))

    @property
    def name(self) -> str:
        return f"{self.p}-sensitive {self.k}-anonymity"

    @property
    def uses_sensitive(self) -> bool:
        return True

    @property
    def support_only(self) -> bool:
        """The verdict reads only the counts of the values a class holds (see base)."""
        return True

    def evaluate(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
                 values: Sequence[object]) -> Evaluation:
        h, _ = as_counts(hist, overall)
        size = h.sum(axis=1)
        distinct = (h > 0).sum(axis=1)
        by_size = Evaluation(size >= self.k, size.astype(np.float64), "class size", True)
        by_values = Evaluation(distinct >= self.p, distinct.astype(np.float64),
                               "distinct values", True)
        return Evaluation(by_size.ok & by_values.ok, by_values.measure, "distinct values", True,
                          (by_size, by_values))

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        _, o = as_counts(np.zeros((0, len(overall)), dtype=np.int64), overall)
        n, present = int(o.sum()), int((o > 0).sum())
        check_size(self.k, n)
        if self.p > present:
            raise Infeasible(
                f"no {self.p}-sensitive release exists: the sensitive column has only "
                f"{present} distinct value{'s' if present != 1 else ''}; use at most "
                f"{param('p', max(present, 1))}")
