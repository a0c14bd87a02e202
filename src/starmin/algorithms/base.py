"""What an algorithm module declares: its name, guarantee, supported models and solver."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

Progress = Callable[[str], None]
"""Receives one-line progress messages on long runs (the CLI prints them to stderr)."""


class Solver(Protocol):
    def __call__(
        self, rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
        progress: Progress | None = None, **options: Any,
    ) -> ReleasePlan: ...


@dataclass(frozen=True)
class Algorithm:
    """A registry entry.

    ``supports(model, rt)`` returns ``None`` when the algorithm can solve the instance, or a
    sentence saying why not (wrong model, instance beyond the exact method's size limit).
    """

    name: str
    summary: str
    guarantee: Guarantee
    solve: Solver
    supports: Callable[[PrivacyModel, RowTypes], str | None]


def silent(_: str) -> None:
    """The default progress sink."""
