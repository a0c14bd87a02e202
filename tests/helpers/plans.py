"""Comparing release plans in tests."""

from __future__ import annotations

import numpy as np

from starmin.transform.plan import ReleasePlan


def same_plan(a: ReleasePlan, b: ReleasePlan) -> bool:
    """Every array of the two plans equal, and their lower bound and method."""
    return (all(np.array_equal(getattr(a, f), getattr(b, f))
                for f in ("outputs", "out_idx", "type_idx", "key_idx", "count"))
            and a.lower_bound == b.lower_bound and a.method == b.method)
