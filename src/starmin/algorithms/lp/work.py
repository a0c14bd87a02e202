"""The estimated work of column generation (:mod:`.colgen`) from the instance's size, and
the simplex iterations that work buys: a module of its own so that the report's LP budget
(:mod:`.report_bound`) and ``--method auto`` can weigh a relaxation without loading the LP
machinery (Glop, the pricing); :mod:`.colgen` re-exports both functions."""

from __future__ import annotations

import math

import numpy as np

from starmin.algorithms.lp.relaxation import Relaxation
from starmin.data.rowtypes import RowTypes

WORK_PER_ENTRY = 4e-7
"""Work units per (row type, value) entry of one pattern priced, over a whole run (about 25
LP rounds with their pricing and the restricted LP; calibrated on ARX adult, frequency
l = 2: 12,458 row types x 14 values, 256 patterns, about 20 units and 21 CPU seconds)."""


def work_units(rt: RowTypes, rel: Relaxation, max_patterns: int = 5000) -> float:
    """Estimated work of :func:`.colgen.column_generation` in work units (about CPU seconds on the
    reference machine), from the instance's size only: row types ``t_in``, values ``r`` of
    the relaxation's column, pairs ``P`` and patterns ``min(2^m, max_patterns)``, times
    ``(spread / 2)^2`` for the values a class spans (``ceil(1 / cap)``; ``r`` under
    t-closeness): on adult the restricted LP's simplex iterations grow fast with it (l = 3:
    rounds of 15-25 CPU seconds from round 6 on, against under 1 s for l = 2). A relaxation
    with ``k`` (greedy pricing that sorts every pair per pattern, and a harder LP: k = 2 took
    over 20 CPU seconds for its first 4 rounds) counts ten times more."""
    entries = rt.t_in * rel.r + int(np.count_nonzero(rt.counts))
    patterns = min(2 ** rt.m, max_patterns)
    by_value = rel.column is not None and (rel.t is not None or rel.k <= 1)
    if rel.cap is not None:
        spread = math.ceil(1.0 / rel.cap - 1e-9)
    else:
        spread = rel.r if rel.t is not None else 2
    per = (max(spread, 2) / 2.0) ** 2 * (1.0 if by_value else 10.0)
    return WORK_PER_ENTRY * per * entries * patterns


ITERATIONS_PER_UNIT = 2_000
"""Simplex iterations (summed over the rounds) one work unit buys: the work limit that holds
column generation to its estimate when the estimate is off (on adult's first 4,000 rows, 4 QIs,
k = 5, the estimate was 6 units but the rounds grew to 10,000-28,000 iterations each, 50 CPU s
after 17 rounds). A run stopped by it returns the best bound certified so far."""


def iteration_budget(units: float) -> int:
    """The simplex iterations a run estimated at ``units`` work units may take."""
    return max(10_000, int(ITERATIONS_PER_UNIT * units))
