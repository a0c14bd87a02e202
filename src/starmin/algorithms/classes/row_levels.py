"""Row levels: the fewest stars a row of each row type pays in any release, found by CP-SAT.

Guarantee: **bound** (a proven lower bound on the optimum, never above it).

A release is a partition of the rows into classes that satisfy the model; each row of a class
``C`` pays ``Z(C)`` stars, the QI columns not constant on ``C`` (its suppressor, Liang & Yuan
Sec. 2). So a row of row type ``v`` pays at least

    ``L(v) = min { Z(C) : C satisfies the model and holds a row of v }``,

its *level*, and every release has at least ``sum_v n_v L(v)`` stars. This is the pattern
bound's level (Bredereck et al. Sec. 4 on row types; :mod:`starmin.algorithms.bounds`,
:mod:`..diversity_levels`), which enumerates suppression patterns and so stops at 4,096 of
them (12 QIs); here CP-SAT finds ``L(v)`` on the class model of :mod:`.pricing`
(:meth:`.pricing.ClassModel.fewest_columns`) with any number of QIs. A call stopped by its
work limit gives CP-SAT's proven objective bound, still a lower bound on ``L(v)``, so the
bound holds whatever stopped it.

The levels are also dual-feasible for the class LP of :mod:`.master`: with ``pi_p = L(v)``
for every pair ``p`` of row type ``v``, a class's reduced cost ``N Z - sum_rows L(v) =
sum_rows (Z - L(v))`` is never negative. So ``pi = L`` starts its column generation with the
Lagrangian bound ``sum_v n_v L(v)`` and ``rc_lo = 0`` (:mod:`.class_partition`), and the
classes of reduced cost 0 there -- every row at its level -- are those an optimum meeting
the bound is made of. On the planted 3D-matching tables (Liang & Yuan Thm 6, Xiao et al.
Lemma 3, Meyerson & Williams Thm 3.1) every row's level is ``d - 1`` and the bound is the
optimum ``3q(d - 1)``.

Work: one CP-SAT call per row type, each within a deterministic time (a work limit, never a
clock), a single worker with a fixed seed: the same levels on every machine.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.classes.pricing import ClassModel


def row_levels(pricer: ClassModel, work: float, say: Progress = silent
               ) -> NDArray[np.int64] | None:
    """``L(v)`` for every row type (module docstring), each CP-SAT call within ``work``
    deterministic seconds; ``None`` when some row type is in no satisfying class (no
    release exists)."""
    t_in = pricer.rt.t_in
    out = np.zeros(t_in, dtype=np.int64)
    for v in range(t_in):
        level = pricer.fewest_columns(v, work)
        if math.isinf(level):
            return None
        out[v] = int(level)
    say(f"row levels: {t_in} row types, levels {int(out.min()) if t_in else 0}.."
        f"{int(out.max()) if t_in else 0}, bound {level_bound(out, pricer.rt.counts)}")
    return out


def level_bound(levels: NDArray[np.int64], counts: NDArray[np.int64]) -> int:
    """``sum_v n_v L(v)``: every release has at least this many stars."""
    return int(levels @ counts.sum(axis=1).astype(np.int64))
