"""The independent verifier: checks privacy models on a released table.

It imports only :mod:`starmin.data`, :mod:`starmin.models` and :mod:`starmin.errors` (plus
polars and numpy) and never reads a release plan, so it is a second opinion on every algorithm.
"""

from starmin.verifier.report import (
    BadCell,
    CellCheck,
    ModelCheck,
    SizeSummary,
    VerificationReport,
    ViolatingClass,
)
from starmin.verifier.verifier import verify

__all__ = ["BadCell", "CellCheck", "ModelCheck", "SizeSummary", "VerificationReport",
           "ViolatingClass", "verify"]
