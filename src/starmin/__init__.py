"""starmin: publish microdata safely with the fewest suppressed cells.

Aggregate -> solve -> apply -> verify: see DESIGN.md. The public API:

- :func:`anonymize` releases a table under one or more privacy models;
- :func:`solve` runs one algorithm on :class:`~starmin.data.RowTypes`;
- :func:`verify` checks any (released) table against models given as parameters, with the
  independent verifier (:mod:`starmin.verifier`);
- :mod:`starmin.models`, :mod:`starmin.datasets`.
"""

from starmin.api import Release, anonymize, lower_bounds, solve
from starmin.data import RowTypes, Schema
from starmin.errors import Infeasible, InvalidInput, StarminError, VerificationFailed
from starmin.verification import verify

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
    "verify",
]
__version__ = "0.1.0"
