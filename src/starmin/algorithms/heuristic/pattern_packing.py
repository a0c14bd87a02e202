"""Pattern packing: k-anonymity by cell suppression, level by level over suppression patterns.

Guarantee: **heuristic** -- the release is k-anonymous (and verified), with no proven ratio;
the plan carries the best proven lower bound of :mod:`starmin.algorithms.bounds`, so
``stars / lower_bound - 1`` bounds the gap of every run (ARX adult, 9 QIs: 1.6 % to 4.3 % for
k = 2..10; on small column subsets solved exactly by MILP it was 0 % to 4 % above the
optimum; see ``docs/algorithms/pattern-packing.md``).

The problem seen per row. A release gives every row a star set ``S`` (its class's pattern) and
costs ``sum |S|`` over rows (Liang & Yuan, Sec. 2). The rows with star set ``S`` that agree
outside ``S`` form one class, which needs ``>= k`` rows. So a release is a choice of one
*bucket* ``(S, w)`` per row -- ``w`` the row's values outside ``S`` -- such that every chosen
bucket gets 0 or ``>= k`` rows; a row pays ``|S|``.

Algorithm (levels ``j = 0, 1, ..., m`` = stars per row; rows of a row type may be split
between classes, Bredereck et al. Sec. 4 -- only counts per row type are handled):

0. Every QI vector with ``>= k`` rows is its own class (0 stars).
1. For ``j = 1..m``, over the patterns with ``|S| = j``:
   a. free rows join open classes of level ``j`` that cover them;
   b. for ``j <= lp_levels`` (default 3): the *bucket LP* of the level (free rows and rows
      lent by classes one level lower, see :mod:`._bucket_lp`) is solved with HiGHS and the
      buckets it uses fully are opened (then a. again);
   c. *packing* (min-degree greedy): among buckets holding ``>= k`` free rows, repeatedly take
      the row type that lies in the fewest of them, open its bucket with the fewest free rows
      and fill it with exactly ``k`` rows -- its own, then those of the bucket's row types
      with the fewest options; rows left in opened buckets join them (a.);
   d. *borrowing*: a bucket with fewer than ``k`` free rows is completed with surplus rows of
      classes of level ``<= j`` (each keeping ``>= k``) when the borrowed rows' extra stars
      are at most ``borrow_slack`` (default 0.5) per free row placed.
2. The last ``< k`` free rows: complete a bucket by borrowing or widen an open class,
   whichever costs fewer stars (:mod:`._leftovers`; Liang & Yuan's Thm 10 proof merges
   leftovers into one group, the widening here picks the cheapest class).

Each class is released as its suppressor (never more stars than its pattern); classes with
equal suppressors merge (still k-anonymous).

Complexity: level ``j`` groups the free row types by each of the ``C(m, j)`` patterns, ``O(C(m,
j) f_j log f_j)`` for ``f_j`` free row types, plus ``O(I_j log I_j)`` heap work for the ``I_j
<= C(m, j) f_j`` (row type, bucket) incidences; borrowing adds ``O(C(m, j) (f_j + d_j) log)``
for ``d_j`` lending row types; the bucket LP (at most ``lp_max_vars`` variables,
``lp_max_iterations`` simplex iterations and ``lp_max_crowding``, else skipped) is one HiGHS
simplex solve. Levels stop when no row is free; past ``max_patterns`` patterns per level the
rest falls back to lexicographic runs of ``k`` rows. Memory ``O(t_in + I_j)``. Measured (2
shared cores, load 2-5): adult (30,162 rows, t_in 19,502, m 9) 1.5-8 s for k = 2..5 and 14-31 s
for k = 10 with the LP, about 1-3 s without (``lp_levels=0``); synthetic census 1M rows (t_in
289,675; LPs over the size limit at levels 1-2) 11-27 s at load 2-4, up to 2 minutes at load
5.5.

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 2 (suppressor, cost) and Sec. 5 (Thm 10: small row types each cost >= 1 star).
R. Bredereck, A. Nichterlein, R. Niedermeier, G. Philip, "The effect of homogeneity on the
computational complexity of combinatorial data anonymization", Sec. 2 and 4 (row types).
A. Meyerson and R. Williams, "On the Complexity of Optimal K-Anonymity", Sec. 2 (suppressors).
"""

from __future__ import annotations

from math import comb
from typing import Any

import numpy as np

from starmin.algorithms.base import (
    Algorithm,
    AutoRun,
    Progress,
    flag_option,
    silent,
    whole_option,
)
from starmin.algorithms.heuristic import _level_steps as steps
from starmin.algorithms.heuristic._assignment import Assignment
from starmin.algorithms.heuristic._bucket_lp import MAX_CROWDING, lp_pack_level
from starmin.algorithms.heuristic._leftovers import chunk_free_rows, place_leftovers
from starmin.algorithms.heuristic.pattern_keys import PatternKeys, masks_of_level
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from starmin.models.k_anonymity import KAnonymity
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "pattern-packing"
GUARANTEE = Guarantee(
    kind="heuristic",
    statement="k-anonymous; no proven ratio (the plan's lower bound gives each run's gap)",
    reference="Liang & Yuan Sec. 2, 5; Bredereck et al. Sec. 4",
)
MAX_PATTERNS = 5000
"""Default largest number of patterns ``C(m, j)`` a level may have (levels beyond fall back)."""
LP_LEVELS = 3
"""Default: levels ``1..LP_LEVELS`` start with the rounded bucket LP (:mod:`._bucket_lp`)."""
LP_MAX_VARS = 120_000
"""Default largest bucket LP solved; larger levels use the greedy packing alone."""
LP_MAX_ITERATIONS = 40_000
"""Default simplex iterations one bucket LP may take (HiGHS stops; the level is packed
greedily). A work limit, not a time limit: the same LPs are cut on every machine under any
load. Adult's bucket LPs need at most 36,030 (k = 2..10, 8 or 9 QIs); the census at 1M rows,
k = 3, has a level-3 LP needing 75,632 (four minutes), cut here after about 15 s."""


def greedy_work(rt: RowTypes) -> float:
    """Estimated work units (:class:`~starmin.algorithms.base.AutoRun`) of the levels without
    the bucket LP: ``2e-7 x t_in x`` the patterns of levels 1-4 (adult, 9 QIs: 1.0 units,
    measured 1.0-1.5 CPU s). The lower bounds cost about as much."""
    return 2e-7 * rt.t_in * sum(comb(rt.m, j) for j in range(1, min(rt.m, 4) + 1))


def lp_work(rt: RowTypes, k: int, levels: int = LP_LEVELS) -> float:
    """Estimated work units of the bucket LPs of levels ``1..levels``: the LPs grow with the
    rows a bucket needs, ``k`` (adult, 9 QIs, three levels: 2.8, 6.5 and about 14 CPU s for
    k = 2, 5, 10; the estimate 1.5 k units). Level 1 is counted as a third of the three."""
    return greedy_work(rt) * 1.5 * k * min(levels, LP_LEVELS) / LP_LEVELS


def level_one_work(rt: RowTypes) -> float:
    """Estimated work units of the bucket LP of level 1 alone: :func:`greedy_work`, whatever
    ``k`` (stop 39; adult, 9 QIs: 1.0 units, measured 0.77 / 0.21 / 0.15 CPU s for k = 3 /
    5 / 10 -- its LP shrinks as ``k`` grows: 32,506 simplex iterations for k = 2, 11,150
    for k = 10 -- where :func:`lp_work` counted a third of the three levels, 1.5 / 2.5 /
    5.0 units)."""
    return greedy_work(rt)


def auto_run(model: PrivacyModel, rt: RowTypes, units_left: float) -> AutoRun:
    """How ``--method auto`` runs pattern packing: with the bucket LPs of levels 1-3 if their
    estimate fits ``units_left``, else of level 1 only (:func:`level_one_work`), else without
    LP (the greedy levels alone, 0.2-1.6 % more stars on adult); lower bounds included."""
    k = int(getattr(model, "k", 2))
    base = 2 * greedy_work(rt)
    runs = [AutoRun(base + lp_work(rt, k)),
            AutoRun(base + level_one_work(rt), {"lp_levels": 1}, "bucket LP at level 1 only"),
            AutoRun(base, {"lp_levels": 0}, "no bucket LP")]
    return next((r for r in runs if r.work <= units_left), runs[-1])


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` for k-anonymity, else why not."""
    if isinstance(model, KAnonymity):
        return None
    return (f"pattern-packing handles k-anonymity only, not {model.name}: "
            f"choose a method that supports this model")


def pack(rt: RowTypes, k: int, *, seed: int = 0, borrow_slack: float = 0.5,
         max_patterns: int = MAX_PATTERNS, lp_levels: int = LP_LEVELS,
         lp_max_vars: int = LP_MAX_VARS, lp_max_iterations: int = LP_MAX_ITERATIONS,
         lp_max_crowding: float = MAX_CROWDING, progress: Progress = silent
         ) -> Assignment:
    """Run the levels and return the final :class:`Assignment` (every row placed)."""
    a = Assignment(PatternKeys(rt.codes), rt.sizes, k)
    tie = np.random.default_rng(seed).permutation(rt.t_in).astype(np.int64)
    steps.place_big_types(a)
    m = rt.m
    for j in range(1, m + 1):
        if not (a.free > 0).any():
            break
        if comb(m, j) > max_patterns:
            progress(f"{NAME}: level {j} has {comb(m, j)} patterns > max_patterns="
                     f"{max_patterns}; placing the rest in lexicographic runs")
            chunk_free_rows(a)
            break
        masks = masks_of_level(m, j)
        steps.join_level(a, masks)
        if j <= lp_levels:
            size, opened, why = lp_pack_level(
                a, j, masks, penalty=j + 1.0, max_extra=1, max_vars=lp_max_vars,
                max_iterations=lp_max_iterations, max_crowding=lp_max_crowding,
                progress=progress)
            progress(f"{NAME}: level {j}: bucket LP (" + (
                f"more than {lp_max_vars:,}" if size > lp_max_vars else f"{size:,}")
                + " variables) " + (f"opened {opened} classes" if opened is not None else
                                    f"skipped ({why}); greedy packing only"))
            steps.join_level(a, masks)
        steps.pack_level(a, masks, tie, progress, f"greedy packing, level {j}")
        steps.join_level(a, masks)
        if j < m and borrow_slack >= 0:
            steps.borrow_level(a, j, masks, borrow_slack)
        progress(f"{NAME}: level {j}/{m}: {int(a.free.sum())} rows still free, "
                 f"{a.stars} stars so far")
    place_leftovers(a, max_patterns)
    return a


_OPTIONS = {"borrow_slack", "max_patterns", "lp_levels", "lp_max_vars", "lp_max_iterations",
            "lp_max_crowding", "bounds"}
"""The options :func:`solve` takes."""


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """A k-anonymous release with few stars (heuristic; see the module docstring).

    Options: ``borrow_slack`` (float, default 0.5; negative disables borrowing),
    ``max_patterns`` (default 5000), ``lp_levels`` (default 3; 0 disables the bucket LP),
    ``lp_max_vars`` (default 120,000), ``lp_max_iterations`` (simplex iterations per LP,
    default 40,000), ``lp_max_crowding`` (default 1.4 million: a bucket LP whose variables
    times its competition to the fourth exceed this is not solved, :mod:`._bucket_lp`),
    ``bounds`` (default True: compute the lower bounds of
    :func:`starmin.algorithms.bounds.k_anonymity_lower_bounds` and the charge LP of
    :func:`starmin.algorithms.charge_bound.charge_lower_bound` for ``plan.lower_bound``, so
    ``auto`` may stop after this run when it is proven within 1 % of the optimum).
    Deterministic for a given ``seed`` (it only breaks ties) on every machine under any load:
    the LP limits count variables and iterations and measure the LP's shape, never seconds.
    Raises ``Infeasible`` when ``k > n`` and ``InvalidInput`` for a model other than
    :class:`KAnonymity`, for an unknown option, and for the removed ``lp_time_limit``.
    """
    reason = supports(model, rt)
    if reason is not None:
        raise InvalidInput(reason)
    assert isinstance(model, KAnonymity)
    check_feasible(model, rt)
    report = progress or silent
    if "lp_time_limit" in options:
        raise InvalidInput(f"{NAME} no longer takes lp_time_limit (a result must not depend "
                           "on the machine's speed): use lp_max_iterations, a number of "
                           "simplex iterations")
    unknown = set(options) - _OPTIONS
    if unknown:
        raise InvalidInput(f"unknown option(s) {sorted(unknown)} for {NAME}: use "
                           f"{', '.join(sorted(_OPTIONS))}")
    k = int(model.k)
    a = pack(rt, k, seed=seed, borrow_slack=float(options.get("borrow_slack", 0.5)),
             max_patterns=whole_option(NAME, options, "max_patterns", MAX_PATTERNS, 1),
             lp_levels=whole_option(NAME, options, "lp_levels", LP_LEVELS),
             lp_max_vars=whole_option(NAME, options, "lp_max_vars", LP_MAX_VARS),
             lp_max_iterations=whole_option(NAME, options, "lp_max_iterations",
                                            LP_MAX_ITERATIONS),
             lp_max_crowding=float(options.get("lp_max_crowding", MAX_CROWDING)),
             progress=report)
    certificate: dict[str, Any] = {"pattern_stars": a.stars, "seed": seed}
    lower = None
    if flag_option(NAME, options, "bounds", True):
        from starmin.algorithms.bounds import k_anonymity_lower_bounds
        from starmin.algorithms.charge_bound import charge_lower_bound

        bounds = k_anonymity_lower_bounds(rt, k, progress=report)
        charges = charge_lower_bound(rt, k, progress=report)  # the report's too (remembered)
        if charges is not None:
            bounds["charges"] = charges
            bounds["best"] = max(bounds["best"], charges)
        certificate["lower_bounds"] = bounds
        lower = bounds["best"]
    return a.to_plan(rt, NAME, GUARANTEE, lower, certificate)


ALGORITHM = Algorithm(
    name=NAME,
    summary="k-anonymity: rows packed level by level into suppression-pattern classes",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=auto_run,
    options=tuple(sorted(_OPTIONS)),
)
