"""Release plans, hierarchies and loss measures.

Each name loads its module on first use: a release plan needs numpy only, a hierarchy also
polars (so listing the methods, whose guarantees live in :mod:`.plan`, loads no polars).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starmin.transform.hierarchy import Hierarchy
    from starmin.transform.plan import STAR, Guarantee, ReleasePlan

_MODULE = {"Hierarchy": "hierarchy", "STAR": "plan", "Guarantee": "plan", "ReleasePlan": "plan"}

__all__ = ["STAR", "Guarantee", "Hierarchy", "ReleasePlan"]


def __getattr__(name: str) -> Any:
    """Load a name's module on first access (PEP 562)."""
    if name in _MODULE:
        value = getattr(importlib.import_module(f"starmin.transform.{_MODULE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'starmin.transform' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
