"""The charge LP bound for models whose classes need ``q`` distinct sensitive values.

Guarantee: **bound** -- the value returned is <= the optimum of every model whose classes
each hold at least ``q`` distinct values of the column: distinct l-diversity (``q = l``),
entropy l-diversity (``q = l``: the entropy is at most ``log`` of the number of values),
recursive (c, l)-diversity (``q = l``: with fewer values the tail ``r_l + ...`` is empty) and
p-sensitivity (``q = p``); proof below, tests compare it with brute force.

Setting as :mod:`.l_charge_bound` (cells ``(v, u)`` with ``c(v, u) > 0`` rows). A row type
holding ``>= q`` values gets charge 0. Every other row type has a level ``L(v) >= 1``
(:func:`.diversity_levels.levels` for ``q``: the fewest stars of a group containing ``v``
that holds ``q`` values); its cells get charges free in ``[-(L + 1), L + 1]`` when ``L <=
last`` (the levels enumerated in full), else fixed at ``L``. The smaller LP fixes the row
types of level 1 at 1 as well (tried when the full LP is over its nonzero limit).

**Claim.** For a star set ``S`` (``s = |S|``) and a bucket ``B`` of it holding ``>= q``
values, let ``e = a - s`` per cell, ``P(B) = sum c(v, u) max(e(v, u), 0)`` over the cells of
``B`` and ``W(B, u)`` the largest ``e`` among the cells of value ``u``. If ``P(B)`` plus the
``q`` largest ``W(B, u)`` is at most 0 in every such bucket, then ``OPT >= sum c a``.

*Proof.* A class ``C`` with star set ``S`` lies in a bucket ``B`` of ``S`` and holds ``>= q``
values, so ``B`` holds ``>= q`` values. Pick one row of ``C`` for each of ``q`` of its values
(the set ``R``). Then ``sum_C e = sum_(C \\ R) e + sum_R e <= sum_(C \\ R) max(e, 0) +
sum_R (max(e, 0) + min(e, 0)) <= P(B) + sum_R min(e, 0)``, and a row of ``R`` with value
``u`` has ``min(e, 0) <= e <= W(B, u)``; ``q`` distinct values' ``W`` sum to at most the
``q`` largest. So ``sum_C a <= |C| s``: the class's stars pay its rows' charges. ∎

Only buckets of level ``s`` holding a free cell of level ``s`` can fail (as in
:mod:`.l_charge_bound`: a bucket of level ``s < L(v)`` holding ``v`` holds fewer than ``q``
values, and elsewhere every charge is at most ``s``, so ``P = 0`` and every ``W <= 0``); at
``s = 0`` a row type alone holds fewer than ``q`` values or is charged 0. Linear form: some
``lambda_B`` (free), ``mu_(B, u) >= 0`` and ``p_(B, v, u) >= 0`` with ``a - lambda_B -
mu_(B, u) <= s`` per free cell, ``a - p <= s`` per free cell whose upper end exceeds ``s``,
and ``sum c p + q lambda_B + sum_u mu_(B, u) <= 0`` (a fixed cell contributes constants).

Solved by Glop's dual simplex (:mod:`.charge_lp`) within work limits (nonzeros, and Glop's
deterministic time per LP, never a clock); the answer is checked from scratch on the lowered,
grid-rounded charges (every constrained bucket's ``P + q`` largest ``W`` summed), and a
failing check gives no bound. Buckets whose condition holds with every charge at its upper
end are left out (the condition only grows with the charges).

Since stop 40 the bound of the stage that gives one is raised by widening the boxes where its
charges reach them (:mod:`.l_charge_widening`, whose claim covers both LPs; adult q = 5 / 6
25,143 / 28,451 -> 25,205 / 28,533).

By default three stages are tried in turn (:data:`STAGES`) until one gives a bound: the full
LP by PDLP, lowered and repaired (:mod:`.charge_pdlp`, stop 38), bucket generation on the
full LP (:mod:`.charge_generation`: the buckets tight at the level charges, then a repair
that only lowers charges), then the smaller LP (level 1 fixed). Once a Glop LP reaches its
work limit no further one is tried. The full LP by the dual simplex (``"full"``) is a stage
to ask for.

Measured with PDLP first (adult as below, 2026-11-27, stop 38): q = 2..6 11,619 / 17,324 /
21,436 / 25,143 / 28,451, PDLP on two threads (q = 6: 3.0 s wall; the full optima 11,626 /
17,332 / 21,453 / 25,153 / 28,460); details in :mod:`.charge_pdlp`.

Measured (ARX adult, 8 QIs, occupation; 2026-11-27, stop 35): bucket generation gives q = 2..6
11,619 / 17,300 / 21,421 / 25,114 / 28,407 in 1.2-3.3 CPU s, within 0.2 % of the full LPs'
11,626 / 17,332 / 21,453 / 25,153 (q = 6's not solved; q = 2's took 1.7 CPU s under Glop,
q = 3 / 4 / 5's 5.4 / 16 / 186 under HiGHS). Until then the full LP (q = 2) or the smaller
LP gave 11,626 / 16,944 / 20,981 / 24,651 / none (the ``distinct_values`` bound 11,318 /
16,524 / 20,349 / 23,824 / 26,954).

References: X. Xiao, K. Yi and Y. Tao, EDBT 2010 (l-diversity); Machanavajjhala et al., TKDD
2007, Sec. 4 (distinct, entropy and recursive l-diversity); the charges generalize the
k-anonymity charge LP of :mod:`.charge_bound` (Liang & Yuan Thm 9's LP, dualized).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.bounds import top_sums
from starmin.algorithms.charge_generation import (
    GENERATED,
    SMALLER,
    Chosen,
    Excess,
    check_stages,
    generated_bound,
)
from starmin.algorithms.charge_lp import (
    MAX_WORK,
    Cells,
    Program,
    Solver,
    Work,
    settle,
    solve_glop,
)
from starmin.algorithms.charge_pdlp import MAX_NONZEROS as PDLP_MAX_NONZEROS
from starmin.algorithms.charge_pdlp import MAX_WORK as PDLP_MAX_WORK
from starmin.algorithms.charge_pdlp import first_order_bound
from starmin.algorithms.heuristic.pattern_keys import IntArray, PatternKeys
from starmin.algorithms.l_charge_bound import (
    _cells,
    _pairs,
    charge_columns,
    level_buckets,
    top_constraints,
)
from starmin.algorithms.l_charge_widening import OVER, recording, widened_bound
from starmin.algorithms.l_charge_widening import ROUNDS as WIDEN_ROUNDS

MAX_NONZEROS = 250_000
"""The smaller LP is not built beyond this many nonzeros (ARX adult, 8 QIs, occupation: the
smaller LPs fit for q = 2..5, q = 5's with 208,000; q = 6's, 253,000, does not)."""
FULL_MAX_NONZEROS = 400_000
"""The full LP for ``q = 2`` is not built beyond this many nonzeros (adult: 363,000 fits);
for ``q >= 3`` the full LP keeps :data:`MAX_NONZEROS` (module docstring)."""


STAGES = ("pdlp", "generated", "smaller")
"""The LPs tried by default, in order, until one gives a bound: the full LP by PDLP, then the
repair (:mod:`.charge_pdlp`, within its :data:`.charge_pdlp.MAX_NONZEROS`), bucket generation
on the full LP (:mod:`.charge_generation`, each of its two LPs within
:data:`FULL_MAX_NONZEROS`), then the smaller LP (level 1 fixed, within
:data:`MAX_NONZEROS`). The full LP by the dual simplex (``"full"``, within
:data:`FULL_MAX_NONZEROS` for ``q = 2`` and :data:`MAX_NONZEROS` otherwise) can be asked
for: its optimum was at most 0.4 % above generation's on the tables measured (adult and its
first 2,000 / 8,000 rows, q = 2..6, and the uniform random tables of ``bench/auto_budget.py
--shapes``, q = 2, 3; adult q = 2: 11,626 against 11,612), but its cost is less predictable
(adult's first 8,000 rows, q = 4: 30,000 Glop iterations, 6.7 CPU s, where generation took
2)."""


def distinct_charge_bound(codes: NDArray[np.integer], histogram: NDArray[np.integer], q: int,
                          lev: NDArray[np.int64], last: int, progress: Progress | None = None,
                          *, max_nonzeros: int | None = None,
                          max_work: float = MAX_WORK,
                          max_pdlp_work: float = PDLP_MAX_WORK,
                          stages: tuple[str, ...] = STAGES,
                          widen: int = WIDEN_ROUNDS) -> int | None:
    """The charge LP bound (module docstring) for the ``(t_in, r)`` ``histogram`` of one
    sensitive column and ``q`` values per class, or ``None`` (nothing to charge, over the
    work limits, or the check failed). ``lev``: the row types' levels for ``q``
    (:func:`.diversity_levels.levels`, every row type holding fewer than ``q`` values);
    ``last``: the highest level enumerated in full. ``stages``: the LPs tried in turn
    (:data:`STAGES`; the first bound is returned); ``max_nonzeros`` replaces every
    nonzero limit; ``max_work``: Glop's deterministic time per LP (:class:`.charge_lp.Work`);
    ``max_pdlp_work``: PDLP's iterations times nonzeros (:data:`.charge_pdlp.MAX_WORK`);
    ``widen``: the widened LPs at most (:mod:`.l_charge_widening`, 0 for none)."""
    report = progress or silent
    c = np.asarray(histogram, dtype=np.int64)
    lev = np.asarray(lev, dtype=np.int64)
    q = int(q)
    t_in, r = c.shape
    check_stages(stages)
    if q < 2 or t_in == 0 or last < 1:
        return None
    many = (c > 0).sum(axis=1) >= q
    if (lev[~many] < 1).any():
        raise ValueError("every row type holding fewer than q values needs its level (>= 1)")
    keys = PatternKeys(np.asarray(codes))
    work = Work(max_work)
    solver = partial(_glop, work)
    for stage in stages:
        if work.stopped:  # an LP reached its work limit: this table's LPs are slow
            report(f"bounds: no further distinct charge LP for q = {q} (one reached its work "
                   "limit)")
            break
        fixed = 1 if stage in SMALLER else 0
        free_t = ~many & (lev <= last) & (lev > fixed)
        if not free_t.any():
            continue
        cells = _cells(c, many, free_t, lev)
        limit = max_nonzeros if max_nonzeros is not None else (
            PDLP_MAX_NONZEROS if stage == "pdlp"
            else MAX_NONZEROS if stage in SMALLER or (stage == "full" and q > 2)
            else FULL_MAX_NONZEROS)
        what = {"full": "distinct charge LP", "generated": "distinct charge LP by generation",
                "smaller": "distinct charge LP (level 1 fixed)",
                "generated-smaller": "distinct charge LP by generation (level 1 fixed)",
                "pdlp": "distinct charge LP by PDLP"}[stage]
        passed: list[NDArray[np.float64]] = []  # the charges each passing check saw
        common = (keys, lev, free_t, last, q, r, solver, max_pdlp_work, report, what)
        checked = partial(satisfied, keys, cells, lev, free_t, last, q, r)
        bound = _stage(stage, *common, limit, cells, None, partial(recording, checked, passed))
        if bound == OVER:
            continue
        if bound is not None:
            if widen > 0 and passed:  # the upper ends widened where the charges reach them
                bound = widened_bound(
                    cells, passed[-1], bound, lev, free_t, keys.m,
                    partial(_build, keys, lev, free_t, last, q, r),
                    partial(_stage, "full", *common), partial(_stage, "pdlp", *common),
                    checked, _glop, report, what,
                    max_nonzeros=max_nonzeros, rounds=widen)
            return bound
    return None


def _stage(stage: str, keys: PatternKeys, lev: IntArray, free_t: NDArray[np.bool_], last: int,
           q: int, r: int, solver: Solver, max_pdlp_work: float, report: Progress, what: str,
           limit: int, cells: Cells, width: IntArray | None,
           check: Callable[[NDArray[np.float64]], bool]) -> int | None:
    """One stage's bound (:data:`STAGES`) over ``cells``, the buckets of ``width`` (as
    :func:`.level_buckets`) and ``check``: the bound, ``None`` or
    :data:`.l_charge_widening.OVER` (the full or smaller LP not built)."""
    build = partial(_build, keys, lev, free_t, last, q, r, limit, width=width)
    excess = partial(excesses, keys, cells, lev, free_t, last, q, r, width=width)
    if stage == "pdlp":
        return first_order_bound(cells, build, excess, check, solver, report, what,
                                 max_pdlp_work)
    if stage in GENERATED:
        return generated_bound(cells, build, excess, check, solver, report, what)
    if (lp := build(cells)) is None:
        report(f"bounds: no {what} (over its limit of {limit:,} nonzeros)")
        return OVER
    return settle(lp, cells, solver, report, what, check)


def _glop(work: Work, lp: Program, weights: NDArray[np.float64], progress: Progress,
          what: str) -> NDArray[np.float64] | None:
    return solve_glop(lp, weights, work, progress, what)


def distinct_excess(cb: IntArray, n: IntArray, e: NDArray[np.float64], pb: IntArray,
            top: NDArray[np.float64], nb: int, q: int) -> NDArray[np.float64]:
    """``(nb,)`` per bucket ``P(B)`` plus its ``q`` largest ``W``; ``-inf`` for the buckets
    holding fewer than ``q`` values (no class lies there)."""
    pos = np.bincount(cb, weights=n * np.maximum(e, 0.0), minlength=nb)
    out = pos + top_sums(pb, top, np.ones(len(pb), dtype=np.int64), q, nb)
    return np.where(np.bincount(pb, minlength=nb) >= q, out, -np.inf)


def _build(keys: PatternKeys, lev: IntArray, free_t: NDArray[np.bool_], last: int, q: int,
           r: int, max_nonzeros: int, cells: Cells, chosen: Chosen | None = None, *,
           width: IntArray | None = None) -> Program | None:
    """The LP over the free charges (columns ``0 .. cells.free.sum() - 1``) and the buckets
    that fail with every charge at its upper end (those ``chosen`` among them, per block of
    :func:`.level_buckets`; ``width`` as there), or ``None`` past ``max_nonzeros``."""
    lp, var = charge_columns(cells)
    for i, (s, cell, cb, nb) in enumerate(level_buckets(keys, cells, lev, free_t, last,
                                                        width)):
        e_hi = cells.hi[cell] - s
        inv, pb, top = _pairs(cb, cells.u[cell], e_hi, r)
        need = distinct_excess(cb, cells.n[cell], e_hi, pb, top, nb, q) > 0
        if chosen is not None:
            need &= chosen[i]
        if not need.any():
            continue
        distinct_constraints(lp, var, cells, s, q, cell, cb, inv, pb, need)
        if lp.nnz > max_nonzeros:
            return None
    return lp


def distinct_constraints(lp: Program, var: IntArray, cells: Cells, s: int, q: int,
                         cell: IntArray, cb: IntArray, inv: IntArray, pb: IntArray,
                         need: NDArray[np.bool_]) -> None:
    """Add to ``lp``: in every ``need``-ed bucket of ``s`` stars, ``P(B)`` plus the ``q``
    largest ``W(B, u)`` at most 0 (the module docstring's linear form; ``cell``, ``cb``,
    ``inv``, ``pb`` as in :func:`.l_charge_bound.top_constraints`)."""
    inside = need[cb]
    # the fixed cells' positive excess: a constant on the right-hand side
    fixed = inside & ~cells.free[cell]
    renum = np.cumsum(need) - 1
    const = np.bincount(renum[cb[fixed]], weights=cells.n[cell[fixed]]
                        * np.maximum(cells.hi[cell[fixed]] - s, 0.0),
                        minlength=int(need.sum()))
    head, renum = top_constraints(lp, var, cells, s, q, cell, cb, inv, pb, need,
                                  -const.astype(np.float64))
    up = inside & cells.free[cell] & (cells.hi[cell] > s)    # a - p <= s, p >= 0
    p = lp.columns(int(up.sum()), 0.0, np.inf)
    row = lp.constraints(np.full(int(up.sum()), float(s), dtype=np.float64))
    lp.entries(row, var[cell[up]], 1.0)
    lp.entries(row, p, -1.0)
    lp.entries(head[renum[cb[up]]], p, cells.n[cell[up]].astype(np.float64))


def excesses(keys: PatternKeys, cells: Cells, lev: IntArray, free_t: NDArray[np.bool_],
             last: int, q: int, r: int, charge: NDArray[np.float64], *,
             width: IntArray | None = None) -> Iterator[Excess]:
    """Every block of buckets that can fail (one per pattern, as in :func:`.level_buckets`,
    ``width`` as there) under ``charge`` (one per cell): its cells, their buckets and each
    bucket's ``P(B)`` plus its ``q`` largest ``W`` (``-inf`` where it holds fewer than ``q``
    values)."""
    for s, cell, cb, nb in level_buckets(keys, cells, lev, free_t, last, width):
        e = charge[cell] - s
        _, pb, top = _pairs(cb, cells.u[cell], e, r)
        yield cell, cb, distinct_excess(cb, cells.n[cell], e, pb, top, nb, q)


def satisfied(keys: PatternKeys, cells: Cells, lev: IntArray, free_t: NDArray[np.bool_],
              last: int, q: int, r: int, charge: NDArray[np.float64], *,
              width: IntArray | None = None) -> bool:
    """Whether every bucket that can fail (with ``width``, those of :func:`.level_buckets`
    for it) has ``P(B)`` plus its ``q`` largest ``W`` at most 0 under ``charge`` (one per
    cell): the claim's condition, checked from scratch."""
    return all(not (x > 0).any() for _, _, x in excesses(keys, cells, lev, free_t, last, q, r,
                                                         charge, width=width))
