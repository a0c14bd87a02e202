"""An engine by name: ``local`` (polars) or ``spark`` (PySpark, the extra ``starmin[spark]``).

The Spark engine is imported only when asked for, so nothing else loads PySpark.
"""

from __future__ import annotations

from typing import Any

from starmin.engines.base import Engine
from starmin.errors import InvalidInput, param

ENGINES = ("local", "spark")
"""The engines known by name (``engine=`` in Python, ``--engine`` on the command line)."""

SPARK_EXTRA = 'pip install "starmin[spark]"'


def get_engine(engine: str | Engine | Any) -> Engine:
    """``engine`` by name (a fresh engine object), or ``engine`` itself when it is one (it has
    ``read``, ``to_row_types``, ``apply_plan`` and ``write``). Raises
    :class:`~starmin.errors.InvalidInput` for an unknown name, and for ``spark`` when PySpark
    is not installed (naming the install command)."""
    if isinstance(engine, str):
        if engine == "local":
            from starmin.engines.local import LocalEngine

            return LocalEngine()
        if engine == "spark":
            return spark_engine()
        raise InvalidInput(f"{param('engine', engine)} is not an engine: use "
                           + " or ".join(param("engine", e) for e in ENGINES))
    if all(callable(getattr(engine, a, None)) for a in ("read", "to_row_types", "apply_plan",
                                                        "write")):
        return engine
    raise InvalidInput(f"{param('engine')} must be 'local', 'spark' or an engine object "
                       f"(with read, to_row_types, apply_plan and write), not "
                       f"{type(engine).__name__}")


def spark_engine() -> Engine:
    """A :class:`~starmin.engines.spark.SparkEngine` on the active Spark session (or a new
    local one), or the error naming the extra to install."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        raise InvalidInput(f"{param('engine', 'spark')} needs PySpark, which is not "
                           f"installed: {SPARK_EXTRA} (and Java 17 or later)") from None
    from starmin.engines.spark import SparkEngine

    return SparkEngine()
