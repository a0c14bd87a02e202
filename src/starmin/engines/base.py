"""The engine protocol: the only code that touches rows.

An engine reads a table, aggregates it to :class:`~starmin.data.rowtypes.RowTypes`, applies a
:class:`~starmin.transform.plan.ReleasePlan` to its rows and writes the release; algorithms see
only row types (DESIGN.md, "Data flow"). Each stage is timed by the engine's :class:`Stages`
(PipelineDP labels its stages the same way), and the report's timings are that record.

Engines: ``local`` (:mod:`starmin.engines.local`, polars, the default) and ``spark``
(:mod:`starmin.engines.spark`, PySpark, the optional extra ``starmin[spark]``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.transform.plan import ReleasePlan

if TYPE_CHECKING:
    from starmin.io.output import OutputTarget


class Stages:
    """Wall time per named stage, in the order the stages first ran (seconds).

    ``with stages("aggregate"): ...`` adds the block's time to ``seconds["aggregate"]``.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0


class Encoded(Protocol):
    """An engine's handle on an aggregated table: the row types plus whatever the engine
    needs to map rows back to them when it applies a plan."""

    @property
    def row_types(self) -> RowTypes: ...

    @property
    def schema(self) -> Schema: ...


class Engine(Protocol):
    """read -> aggregate -> (algorithm on row types) -> apply -> write. Algorithms never see
    an engine; the verifier never imports one.

    ``stages`` records the time of every stage the engine runs (``read``, ``aggregate``,
    ``apply``, ``write``); the pipeline adds its driver-side stages (``solve``,
    ``lower_bounds``, ``verify``) to the same record, which the report shows.
    """

    name: str
    stages: Stages

    def read(self, source: Any, schema: Schema) -> Any:
        """The table ``source`` (a path, or a table of the engine's kind) in the engine's
        own form, its columns checked against ``schema``."""
        ...

    def to_row_types(self, table: Any, schema: Schema) -> Encoded:
        """Encode QI columns to integer codes and count rows per (QI vector, sensitive key);
        the result (an :class:`Encoded` of the engine's own kind) goes to
        :meth:`apply_plan`."""
        ...

    def apply_plan(self, encoded: Any, plan: ReleasePlan, seed: int = 0) -> Any:
        """Release the rows: QI cells replaced per the plan, identifiers dropped, other columns
        passed through, row order kept. Deterministic for a given ``seed``."""
        ...

    def write(self, released: Any, target: OutputTarget, report: Any, separator: str = ",",
              html: str | None = None) -> None:
        """Write the release with its report (and HTML page) to ``target``, all or none."""
        ...
