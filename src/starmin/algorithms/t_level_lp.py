"""A certified bound on the rows a t-close release keeps at one star or none (the level-1 LP).

Why. The level flow bound (:mod:`starmin.algorithms.t_level_flow`) lets each bucket hold its
largest t-close size of *any* of its rows, whatever their values; on ARX adult (8 QIs,
occupation, t = 0.2) it allows 18,537 rows at one star or none, where merge-repair's level
start places about 10,000. This LP asks, in addition, that the rows each bucket takes form
a t-close class themselves.

Argument (one sensitive column; ``Q`` the table's distribution, ``tau`` as
:func:`starmin.algorithms.t_closeness_bound.items_of` gives it, the equal distance and a
matrix through its least ground distance). In a release, a class with no star holds rows of
one row type, and a class with one star (column ``c``) rows that agree outside ``c``: rows
of one *bucket* of the pattern ``{c}``. Its value counts ``x`` and size ``X`` satisfy ``sum_v
max(0, Q_v X - x_v) <= tau X`` (its variational distance). The classes are disjoint, and the
sum of two such classes of one bucket satisfies it too (the left side is convex and
positively homogeneous, so subadditive). So the rows of the release's classes with at most
one star, summed per bucket (each row type a bucket of its own, then the buckets of level
1), are a feasible point of the placement LP of :mod:`.heuristic._close_lp` over those
buckets with every row free, and their number is at most the LP's optimum ``U_1``.

Certificate. The LP is solved by HiGHS's interior point method; its duals give the bound of
:mod:`starmin.algorithms.lp_dual` (weak duality with the box ``0 <= z <= upper`` that some
optimal solution lies in: ``y`` within its cell's rows, ``Y`` and ``d`` within the bucket's
rows, since ``d`` can be lowered to the deficit); ``tau`` is raised by the same relative
margin. So the bound holds whatever the solver's accuracy; a poor solve only weakens it.

Use. ``level_flow_bound`` with ``F_1`` replaced by ``min(F_1, U_1)``: every release has at
least ``sum_j (N - F_j)`` stars for any upper bounds ``F_j`` on its rows with at most ``j``
stars (:mod:`starmin.algorithms.t_level_flow`).

Not (yet) under the hierarchical distance: with the hierarchy's nodes as items (exact, as in
:mod:`.heuristic._close_lp`) adult's hierarchical t = 0.1 gave ``U_1`` = 13,587 against
``F_1`` = 17,043 (bound 44,936 -> about 48,400) but took 3.9 CPU s, which with the release's
5.5 s leaves too little of the 10 s budget; t = 0.2 took 27 CPU s for 22,017 against 22,505.

Work limits: an LP of more than :data:`MAX_NONZEROS` nonzeros is not built, and HiGHS stops
after :data:`MAX_ITERATIONS` iterations (SciPy then returns no duals: no bound). Never the
clock.

Guarantee: **bound** (tested against brute force on small tables).

References: Liang & Yuan, Sec. 4, Thm 9 (t-closeness as linear constraints on the value
counts of a class); Li, Li & Venkatasubramanian, ICDE 2007, Sec. 4.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level
from starmin.algorithms.lp_dual import MARGIN

IntArray = NDArray[np.int64]

MAX_NONZEROS = 300_000
"""Largest LP built, a work limit. ARX adult, 8 QIs, occupation, equal distance: t = 0.1 /
0.15 / 0.2 build 150,000-292,000 nonzeros and take 1.1 / 1.6 / 2.5 CPU s, ``U_1`` = 8,101 /
10,883 / 14,598 against the level flow's ``F_1`` = 10,460 / 14,884 / 18,537; t = 0.3 / 0.5
build 315,000 / 381,000 and took 6.1 / 6.9 CPU s for ``U_1`` = 21,078 / 25,050 against 21,489
/ 25,067 (little gain for the time, so they are not built)."""
MAX_ITERATIONS = 200
"""Interior-point iterations at most (adult, t = 0.1-0.5: 22-42). HiGHS runs without its
crossover (``run_crossover`` off: the duals of the interior solution suffice, and t = 0.5's
crossover took 14 of its 21 CPU s)."""


def one_star_rows(keys: PatternKeys, hist: IntArray, o: IntArray, tau: float, x_min: int = 1,
                  *, max_nonzeros: int = MAX_NONZEROS, max_iterations: int = MAX_ITERATIONS
                  ) -> int | None:
    """``U_1`` of the module docstring for the row types' counts ``hist`` ``(t_in, s)`` over
    the values the table holds (table counts ``o``). ``x_min``: every class of the release
    holds at least that many rows, so buckets with fewer are left out. ``None`` when the LP
    is over the nonzero limit or the solver returns no duals (at its iteration limit)."""
    from starmin.algorithms.heuristic._close_lp import program
    from starmin.algorithms.heuristic._level_lp import Buckets, solve_program
    from starmin.algorithms.lp_dual import certified_max

    hist = np.asarray(hist, dtype=np.int64)
    if not math.isfinite(tau) or hist.shape[1] < 2 or keys.m < 1:
        return None
    level = Buckets(keys, hist, 1, masks_of_level(keys.m, 1))
    bk = Buckets.joined(Buckets.of_row_types(hist), level)
    rows = np.bincount(bk.bucket, weights=hist[bk.v, bk.u], minlength=bk.size)
    bk = bk.kept(rows >= x_min)  # a bucket of fewer rows holds no t-close class
    if bk.size == 0:
        return 0
    s = hist.shape[1]
    prog = program(bk, hist, o / o.sum(), np.eye(s, dtype=np.int64), tau * (1 + MARGIN))
    if prog.nonzeros > max_nonzeros:
        return None
    return certified_max(prog, solve_program(prog, max_iterations, crossover=False))
