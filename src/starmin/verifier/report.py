"""The verifier's verdict: frozen records with a JSON-ready ``as_dict``."""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass
from typing import Any


def json_value(v: Any) -> Any:
    """A JSON-ready form of a cell value or measure (non-finite floats become strings)."""
    if v is None or isinstance(v, bool | int | str):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
    if isinstance(v, _dt.date | _dt.datetime | _dt.time):
        return v.isoformat()
    if hasattr(v, "item"):
        return json_value(v.item())
    return str(v)


@dataclass(frozen=True)
class ViolatingClass:
    """One class that breaks a model: its released QI values, size and offending measure."""

    qi: tuple[tuple[str, Any], ...]
    size: int
    measure: float

    def as_dict(self) -> dict[str, Any]:
        return {"qi": {c: json_value(v) for c, v in self.qi}, "size": self.size,
                "measure": json_value(self.measure)}


@dataclass(frozen=True)
class ModelCheck:
    """One model checked on one sensitive column (``sensitive`` is None for models that look
    only at class sizes)."""

    name: str
    sensitive: str | None
    passed: bool
    worst: float | None
    measure_name: str
    higher_is_better: bool
    violating_classes: int
    violating_rows: int
    examples: tuple[ViolatingClass, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "sensitive": self.sensitive, "passed": self.passed,
                "worst": json_value(self.worst), "measure_name": self.measure_name,
                "higher_is_better": self.higher_is_better,
                "violating_classes": self.violating_classes,
                "violating_rows": self.violating_rows,
                "examples": [e.as_dict() for e in self.examples]}


@dataclass(frozen=True)
class SizeSummary:
    """Distribution of class sizes: min, median, max and classes per size bucket."""

    min: int
    median: float
    max: int
    buckets: tuple[tuple[str, int], ...]

    def as_dict(self) -> dict[str, Any]:
        return {"min": self.min, "median": self.median, "max": self.max,
                "buckets": dict(self.buckets)}


@dataclass(frozen=True)
class BadCell:
    """A released QI cell that is neither its row's original value, an ancestor of it, nor
    the star: its row (0-based, in table order), column, original and released text."""

    row: int
    column: str
    original: Any
    released: Any

    def as_dict(self) -> dict[str, Any]:
        return {"row": self.row, "column": self.column, "original": json_value(self.original),
                "released": json_value(self.released)}


@dataclass(frozen=True)
class CellCheck:
    """Every released QI cell against the original table: ``passed`` when each is its row's
    value, an ancestor of it in the column's hierarchy (``hierarchies`` names the columns
    checked against one; the others allow the value or the star), or the star.
    ``generalized`` counts the cells released as an ancestor label."""

    passed: bool
    cells: int
    generalized: int
    violating: int
    hierarchies: tuple[str, ...]
    examples: tuple[BadCell, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "cells": self.cells,
                "generalized_cells": self.generalized, "violating_cells": self.violating,
                "hierarchies": list(self.hierarchies),
                "examples": [e.as_dict() for e in self.examples]}


@dataclass(frozen=True)
class VerificationReport:
    """What the verifier found in a released table.

    ``passed`` is true iff every model holds for every sensitive column (and, when the
    original table was given, every released cell passes :class:`CellCheck`). ``stars``
    counts QI cells equal to the star symbol, ``suppressed_records`` rows with at least one,
    and ``fully_suppressed_records`` rows whose every QI cell is a star.
    """

    passed: bool
    n: int
    classes: int
    qi: tuple[str, ...]
    sensitive: tuple[str, ...]
    star: str
    stars: int
    suppressed_records: int
    fully_suppressed_records: int
    class_sizes: SizeSummary
    checks: tuple[ModelCheck, ...]
    cells: CellCheck | None = None
    """The released cells against the original table (``None``: not checked)."""

    def as_dict(self) -> dict[str, Any]:
        """Everything as plain JSON types (``json.dumps(..., allow_nan=False)`` works); the
        key ``cells`` only when the cells were checked."""
        d = {"passed": self.passed, "n": self.n, "classes": self.classes,
             "qi": list(self.qi), "sensitive": list(self.sensitive), "star": self.star,
             "stars": self.stars, "suppressed_records": self.suppressed_records,
             "fully_suppressed_records": self.fully_suppressed_records,
             "class_sizes": self.class_sizes.as_dict(),
             "models": [c.as_dict() for c in self.checks]}
        if self.cells is not None:
            d["cells"] = self.cells.as_dict()
        return d

    def check(self, name: str, sensitive: str | None = None) -> ModelCheck:
        """The check of the model called ``name`` (on ``sensitive``, if several)."""
        for c in self.checks:
            if c.name == name and (sensitive is None or c.sensitive == sensitive):
                return c
        raise KeyError(f"no check named {name!r}"
                       + (f" on {sensitive!r}" if sensitive is not None else ""))
