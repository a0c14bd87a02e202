"""Engines: read a table, aggregate it to row types, apply a release plan, write the release.

The :class:`~starmin.engines.base.Engine` protocol is deliberately narrow so that a
distributed engine (Spark, :mod:`starmin.engines.spark`) implements it without touching any
algorithm. :func:`~starmin.engines.choose.get_engine` gives an engine by name.
"""

from starmin.engines.base import Encoded, Engine, Stages
from starmin.engines.choose import ENGINES, get_engine
from starmin.engines.local import LocalEngine

__all__ = ["ENGINES", "Encoded", "Engine", "LocalEngine", "Stages", "get_engine"]
