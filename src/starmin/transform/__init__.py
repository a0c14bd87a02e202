"""Release plans, hierarchies and loss measures."""

from starmin.transform.hierarchy import Hierarchy
from starmin.transform.plan import STAR, Guarantee, ReleasePlan

__all__ = ["STAR", "Guarantee", "Hierarchy", "ReleasePlan"]
