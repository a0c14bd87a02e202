"""Engines: aggregate a table to row types and apply a release plan to its rows.

The :class:`~starmin.engines.base.Engine` protocol is deliberately narrow so that a
distributed engine (Spark) can implement it without touching any algorithm.
"""

from starmin.engines.base import Encoded, Engine
from starmin.engines.local import LocalEngine

__all__ = ["Encoded", "Engine", "LocalEngine"]
