"""starmin: publish microdata safely with the fewest suppressed cells.

Aggregate -> solve -> apply -> verify: see DESIGN.md. The public API:

- :func:`anonymize` releases a table under one or more privacy models;
- :func:`solve` runs one algorithm on :class:`~starmin.data.RowTypes`;
- :func:`aggregate` reads a table with an engine and returns its row types (``starmin info``);
- :func:`verify` checks any (released) table against models given as parameters, with the
  independent verifier (:mod:`starmin.verifier`);
- :mod:`starmin.models`, :mod:`starmin.datasets`.

The names below are loaded on first use (``import starmin`` itself loads neither numpy,
polars nor any solver), so the command line starts quickly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from starmin.errors import Infeasible, InvalidInput, StarminError, VerificationFailed
from starmin.verification import verify

if TYPE_CHECKING:
    from starmin.api import Release, aggregate, anonymize, lower_bounds, solve
    from starmin.data import RowTypes, Schema

_LAZY = {"Release": "starmin.api", "aggregate": "starmin.api", "anonymize": "starmin.api",
         "lower_bounds": "starmin.api",
         "solve": "starmin.api", "RowTypes": "starmin.data", "Schema": "starmin.data"}

__all__ = [
    "Infeasible",
    "InvalidInput",
    "Release",
    "RowTypes",
    "Schema",
    "StarminError",
    "VerificationFailed",
    "aggregate",
    "anonymize",
    "lower_bounds",
    "solve",
    "verify",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """Load a public name's module on first access (PEP 562)."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'starmin' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
