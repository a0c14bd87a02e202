"""The engine protocol."""

from __future__ import annotations

from typing import Any, Protocol

from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.transform.plan import ReleasePlan


class Encoded(Protocol):
    """An engine's handle on an aggregated table: the row types plus whatever the engine
    needs to map rows back to them when it applies a plan."""

    @property
    def row_types(self) -> RowTypes: ...

    @property
    def schema(self) -> Schema: ...


class Engine(Protocol):
    """Aggregate -> (algorithm) -> apply. Algorithms never see an engine."""

    name: str

    def to_row_types(self, table: Any, schema: Schema) -> Encoded:
        """Encode QI columns to integer codes and count rows per (QI vector, sensitive key)."""
        ...

    def apply_plan(self, encoded: Encoded, plan: ReleasePlan, seed: int = 0) -> Any:
        """Release the rows: QI cells replaced per the plan, identifiers dropped, other columns
        passed through, row order kept. Deterministic for a given ``seed``."""
        ...
