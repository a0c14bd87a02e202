"""Frequency l-diversity's placement LP of levels 1 and 2 together: PDLP, then a vertex on
its support.

Why. The level start (:mod:`._level_start`) forms the classes of level 1 by the placement LP
of :mod:`._level_lp` (the most rows at one star), then those of level 2 by the same LP over
the rows left. Level 1 takes the partners that would have let more rows form classes at two
stars, and rows that neither level places pay at least three. As for distinct l-diversity
(:func:`._distinct_lp.joint_lp_classes`, stop 37), one LP over the buckets of both levels
maximizes the stars saved instead, ``sum (3 - level(B)) y(B, v, u)``, under the placement
LP's constraints (each cell's free rows; no value above ``1 / l`` of a bucket's class). Its
classes are formed first; the greedy and the later levels go on as before. The level start
runs it for frequency l-diversity and for entropy and recursive l (whose level start uses
frequency's placement LPs before their capped parts), for ``l >= MIN_L`` (adult, level start,
rule ``spread``: entropy l = 3 / 4 21,045 / 27,611 -> 20,501 / 27,433, recursive (4, 3)
19,278 -> 19,043).

Solving. The joint LP is large (ARX adult, 8 QIs, occupation, l = 3: 211,550 variables,
885,000 nonzeros): HiGHS's interior point method took 54-80 CPU s on it. PDLP
(:func:`starmin.algorithms.charge_pdlp.solve_pdlp`, OR-Tools' first-order method; 8 shards,
2 threads, the same answer on any number of threads) reaches a relative accuracy of
:data:`ACCURACY` in a few hundred iterations (adult l = 3 / 4: 384 / 512, about 2.3 s wall).
Its point is not a vertex: its rows are spread thinly over many buckets, and rounding it
down loses most of them (adult l = 3: 14,669 rows in the LP, 7,345 after rounding down,
25,782 stars against 23,722 level by level). So the variables above :data:`SUPPORT` rows
are kept, and the LP over them alone (adult: 16,000-18,000 variables, 77,000-85,000
nonzeros) is solved by HiGHS's interior point method with crossover, a vertex, rounded down
as :mod:`._level_lp` does (each bucket keeps the largest l-eligible part of its rounded
pool, TP's phase one, Xiao, Yi & Tao, Sec. 5.2).

Measured (adult, 8 QIs, occupation; merge-repair from the level start, rule ``spread``; CPU
s of the LPs, PDLP's two threads counted):

| l | level by level | joint: PDLP + support | LPs, CPU s | interior point, whole joint LP |
|---:|---:|---:|---:|---:|
| 3 | 23,722 | 22,557 | 3.0 -> 4.5 | 23,157 (54 s) |
| 4 | 38,342 | 36,449 | 3.3 -> 4.9 | 36,460 (80 s) |
| 5 | 60,598 | 59,041 (support 0.3, accuracy 2e-3) | | |
| 6 | 87,530 | 96,263 (the same) | | |

(Accuracy 1e-2: l = 3 / 4 22,684 / 36,804; 2e-3: 22,892 / 36,557 with support 0.3 and
23,050 / 36,944 with 0.01; the default 5e-3 and 0.3 were best for l = 3 and 4 and cheaper than
2e-3. l = 6 is worse with the joint LP; ``auto`` releases the diverse start there.)

Up to :data:`DIRECT_MAX_NONZEROS` the whole joint LP is solved that way directly.

Limits (work, never a clock): the joint LP is not built past :data:`MAX_NONZEROS` nor when a
level's buckets are too competed (:func:`._level_lp.competed`, as that level's own LP would
be); PDLP stops after :data:`.charge_pdlp.MAX_WORK` / nonzeros iterations (its last point is
used all the same); the support LP gets the placement LPs' :data:`._level_lp.MAX_ITERATIONS`.
When any of them gives nothing the levels get their own LPs, as before.

Guarantee: **heuristic** (a start for merge-repair, which repairs and verifies the release).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from starmin.algorithms import charge_pdlp
from starmin.algorithms.base import Progress, silent
from starmin.algorithms.charge_lp import Program as LinearProgram
from starmin.algorithms.heuristic._distinct_lp import JOINT_LEVELS, joint_buckets
from starmin.algorithms.heuristic._level_lp import (
    MAX_ITERATIONS,
    Group,
    Program,
    _eligible,
    program,
    solve_program,
    take_rounded,
)
from starmin.algorithms.heuristic._level_lp import work as level_lp_work
from starmin.algorithms.heuristic.pattern_keys import IntArray, PatternKeys

MIN_L = 3
"""The joint LP runs for ``l >= MIN_L`` only. For l = 2 it released more stars than level by
level on 3 of the 4 uniform random tables of ``bench/auto_budget.py --shapes`` where it
changed the release (3,000 rows x 12 QIs of 2 values: 1,703 -> 1,831, +7.5 %; 5,000 x 9 x 4
and 8,000 x 10 x 3: +2.0-2.1 %); on adult -0.4 % (13,444 -> 13,396, where ``auto`` releases
lp-rounding's 13,122). For l = 3 and 5 it released fewer on 10 of the 12 that changed (up to
-8.3 %; the other two +0.4 and +0.1 %)."""
MAX_NONZEROS = 1_200_000
"""Largest joint LP built (adult, 8 QIs, occupation, l = 2..6: 838,000-902,000 nonzeros)."""
ACCURACY = 5e-3
"""PDLP's relative and absolute tolerance (module docstring)."""
SUPPORT = 0.3
"""A variable of PDLP's point above this many rows is kept in the support LP."""
DIRECT_MAX_NONZEROS = 50_000
"""Up to this many nonzeros the whole joint LP goes to HiGHS's interior point method with
crossover directly (a vertex, no PDLP): small tables' LPs take milliseconds there, where
PDLP's set-up alone made the test suite's small merge-repair runs several times slower."""
WORK_FACTOR = 1.7
"""The joint LP's estimate over the per-level LPs' (:func:`work`)."""


def work(counts: IntArray, l: int, m: int) -> float:
    """Estimated work units of the joint LP: :data:`WORK_FACTOR` times the placement LPs' of
    levels 1 and 2 (:func:`._level_lp.work`; adult, l = 3 / 4: estimates 4.5 / 5.2 units,
    measured 4.5 / 4.9 CPU s, PDLP's two threads counted, where the two LPs took 3.0 / 3.3)."""
    return WORK_FACTOR * level_lp_work(counts, l, m, JOINT_LEVELS)


def joint_classes(patterns: PatternKeys, free: IntArray, l: int, m: int, *,
                  max_nonzeros: int = MAX_NONZEROS, max_work: float = charge_pdlp.MAX_WORK,
                  progress: Progress = silent) -> list[Group] | None:
    """The classes of levels 1 and 2 decided by the joint LP (module docstring), their rows
    taken out of ``free`` (``(t_in, s)``); ``None`` when a work limit or its competition
    stops it (``free`` unchanged: the levels then get their own LPs)."""
    joint = joint_buckets(patterns, free, l, m, max_nonzeros,
                          nonzeros=lambda bk: bk.nonzeros, compete=False)
    if joint is None:
        return None
    bk, saved = joint
    if bk.size == 0:
        return []
    sub, sub_saved = bk, saved
    if bk.nonzeros > DIRECT_MAX_NONZEROS:  # PDLP, then the LP over its support
        prog = program(bk, free, l)
        weights = np.concatenate([saved, np.zeros(bk.size)])
        point = charge_pdlp.solve_pdlp(_linear(prog), weights, int(max_work // prog.nonzeros),
                                       progress, "joint placement LP", accuracy=ACCURACY,
                                       heading="merge-repair")
        if point is None:
            return None
        keep = point[:len(bk.bucket)] > SUPPORT
        if not keep.any():
            return []
        sub, sub_saved = bk.restricted(keep), saved[keep]
    res = solve_program(program(sub, free, l)._replace(
        c=np.concatenate([-sub_saved, np.zeros(sub.size)])), MAX_ITERATIONS)
    progress(f"merge-repair: the joint placement LP's support LP: {sub.nonzeros:,} "
             f"nonzeros, {res.nit:,} iterations")
    if res.status != 0 or res.x is None:
        progress("merge-repair: the joint placement LP's support LP stopped: levels 1 and 2 "
                 "get their own LPs")
        return None
    y = np.floor(np.asarray(res.x[:len(sub.bucket)]) + 1e-7).astype(np.int64)
    return take_rounded(sub, free, y, partial(_eligible, l=l))


def _linear(prog: Program) -> LinearProgram:
    """``prog`` (SciPy's form, every lower bound 0) as the :class:`.charge_lp.Program` that
    PDLP's call takes, each variable within its ``upper`` (some optimal solution lies there)."""
    A = prog.A_ub.tocoo()
    lp = LinearProgram()
    lp.columns(A.shape[1], 0.0, np.asarray(prog.upper, dtype=np.float64))
    rows = lp.constraints(np.asarray(prog.b_ub, dtype=np.float64))
    lp.entries(rows[A.row], A.col.astype(np.int64), np.asarray(A.data, dtype=np.float64))
    return lp

