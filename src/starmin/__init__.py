"""starmin: publish microdata safely with the fewest suppressed cells.

Aggregate -> solve -> apply -> verify: see DESIGN.md. The public API:

- :func:`anonymize` releases a table under one or more privacy models;
- :func:`solve` runs one algorithm on :class:`~starmin.data.RowTypes`;
- :func:`starmin.verify.verify` checks any released table independently;
- :mod:`starmin.models`, :mod:`starmin.datasets`.
"""

from starmin.api import Release, anonymize, lower_bounds, solve
from starmin.data import RowTypes, Schema
from starmin.errors import Infeasible, InvalidInput, StarminError, VerificationFailed

__all__ = [
    "Infeasible",
    "InvalidInput",
    "Release",
    "RowTypes",
    "Schema",
    "StarminError",
    "VerificationFailed",
    "anonymize",
    "lower_bounds",
    "solve",
]
__version__ = "0.1.0"
