"""Conjunction of models: a class must satisfy every one."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.errors import InvalidInput
from starmin.models.base import Evaluation, PrivacyModel


@dataclass(frozen=True, init=False)
class AllOf:
    """All of ``models`` must hold (nested ``AllOf`` are flattened).

    ``Evaluation.parts`` holds each model's evaluation in order; ``ok`` is their conjunction and
    the measure the number of models a class satisfies. A release exists iff each model's
    whole-table check passes, because every model here is monotone and the whole table as one
    class satisfies all of them at once.
    """

    models: tuple[PrivacyModel, ...]

    def __init__(self, *models: PrivacyModel) -> None:
        flat: list[PrivacyModel] = []
        for m in models:
            if isinstance(m, AllOf):
                flat.extend(m.models)
            elif isinstance(m, PrivacyModel):
                flat.append(m)
            else:
                raise InvalidInput(f"{m!r} is not a privacy model: combine models such as "
                                   "KAnonymity(5) and LDiversity(2)")
        if not flat:
            raise InvalidInput("AllOf needs at least one model, e.g. AllOf(KAnonymity(5))")
        object.__setattr__(self, "models", tuple(flat))

    @property
    def name(self) -> str:
        return " and ".join(m.name for m in self.models)

    @property
    def uses_sensitive(self) -> bool:
        return any(m.uses_sensitive for m in self.models)

    def evaluate(self, hist: NDArray[np.int64], overall: NDArray[np.int64],
                 values: Sequence[object]) -> Evaluation:
        parts = tuple(m.evaluate(hist, overall, values) for m in self.models)
        ok = np.logical_and.reduce([e.ok for e in parts])
        satisfied = np.sum([e.ok for e in parts], axis=0).astype(np.float64)
        return Evaluation(ok, satisfied, "models satisfied", True, parts)

    def check_feasible(self, overall: NDArray[np.int64], values: Sequence[object]) -> None:
        for m in self.models:
            m.check_feasible(overall, values)


def parts(model: PrivacyModel) -> list[PrivacyModel]:
    """The models a conjunction holds, flattened (``[model]`` for a single model)."""
    inner = getattr(model, "models", None) or getattr(model, "parts", None)
    return [q for p in inner for q in parts(p)] if inner else [model]


def implied_k(model: PrivacyModel) -> int:
    """The smallest class size any release satisfying ``model`` must have.

    k-anonymity gives ``k``, p-sensitive k-anonymity ``max(k, p)``; every l-diversity
    variant needs at least ``l`` rows per class; t-closeness alone gives 1. So k-anonymity
    lower bounds with this ``k`` are lower bounds for ``model`` too.
    """
    inner = getattr(model, "models", None) or getattr(model, "parts", None)
    if inner:
        return max(implied_k(p) for p in inner)
    k = getattr(model, "k", None) or 1
    l = getattr(model, "l", None) or 1
    p = getattr(model, "p", None) or 1  # p distinct sensitive values need >= p rows
    return max(int(k), int(p), math.ceil(float(l)))

