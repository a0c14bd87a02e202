"""The privacy-model protocol.

A model is a small frozen object, validated on construction. It judges many equivalence
classes at once from a ``(classes, |S|)`` count matrix over one sensitive column's values.
With several sensitive columns a model must hold for each of them; with none, the matrix is
the ``(classes, 1)`` class sizes and only size-based models apply.

A model may also declare ``support_only = True``: its verdict and measure for a class stay the
same when the columns of values the class does not hold are merged into one column (whose
``overall`` count is their sum). Frequency-based models (their zero counts do not matter) and
t-closeness under the equal distance qualify; the verifier then judges tables with many
sensitive values on compact histograms. Without the attribute a model is judged on full ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The verdict of one model on many classes.

    Attributes
    ----------
    ok : ``(classes,)`` bool; the class satisfies the model.
    measure : ``(classes,)`` float; the model's per-class quantity (class size, l, EMD, ...).
    measure_name : what ``measure`` is, e.g. ``"class size"`` or ``"EMD"``.
    higher_is_better : whether a larger ``measure`` is safer.
    """

    ok: NDArray[np.bool_]
    measure: NDArray[np.float64]
    measure_name: str
    higher_is_better: bool
    parts: tuple[Evaluation, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return bool(self.ok.all())

    @property
    def worst(self) -> float | None:
        """The worst per-class measure (None when there are no classes)."""
        if len(self.measure) == 0:
            return None
        return float(self.measure.min() if self.higher_is_better else self.measure.max())


@runtime_checkable
class PrivacyModel(Protocol):
    """What every model provides."""

    @property
    def name(self) -> str:
        """Short label, e.g. ``"5-anonymity"``."""
        ...

    @property
    def uses_sensitive(self) -> bool:
        """False for models that look only at class sizes (k-anonymity)."""
        ...

    def evaluate(
        self, hist: NDArray[np.int64], overall: NDArray[np.int64], values: Sequence[object]
    ) -> Evaluation:
        """Judge classes. ``hist`` is ``(classes, |S|)``; ``overall`` the whole table's
        ``(|S|,)`` counts; ``values`` the sensitive value of each column of ``hist``."""
        ...

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        """Raise :class:`~starmin.errors.Infeasible` (or ``InvalidInput``) when no release of a
        table with these sensitive counts can satisfy the model; the message names the fix."""
        ...
