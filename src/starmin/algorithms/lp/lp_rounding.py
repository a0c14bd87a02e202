"""LP rounding: column generation on the row-type LP core, then fix, re-solve and repair.

Guarantee: **heuristic** release with a **certified bound**: the plan's ``lower_bound`` is the
column-generation bound of :mod:`.colgen` (the LP optimum over every output vector when
pricing completes), so every run reports how far it can be from the optimum. The release is
verified like every release.

Models: k-anonymity, frequency l-diversity, recursive (c, l)-diversity, t-closeness under the
equal, ordered and hierarchical distances, and conjunctions of these, on any number of
sensitive columns (the rounding MILP states every column's rows; column generation prices one
column's relaxation).
The LP prices the model's main constraint (``cap`` for l-diversity, ``t`` for t-closeness,
else ``k``); the rounding MILP holds every linear constraint at once; a class that still fails
(recursive diversity's strict inequality) is merged away (:mod:`.rounding`).

Work limits (the same on every machine): ``max_rounds`` LP rounds (60), ``max_patterns``
suppression patterns priced per round (5,000; beyond, the bound is capped as in
:mod:`.colgen`), ``node_limit`` branch-and-bound nodes of the rounding MILP (2,000), its
relative gap ``rounding_gap`` (:data:`ROUNDING_GAP`), or with ``rounding_solver="cp-sat"``
CP-SAT's deterministic time ``rounding_work`` (:data:`ROUNDING_WORK`), and the instance
limits of :func:`supports` (``t_in`` and ``m``).

References: Liang & Yuan, Sec. 4, Thm 9; Bredereck et al., Sec. 4.3; Xiao et al., Def. 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from starmin.algorithms.base import (
    Algorithm,
    AutoRun,
    Progress,
    admit,
    flag_option,
    silent,
    whole_option,
)
from starmin.algorithms.lp.relaxation import Relaxation, relaxations, with_column
from starmin.algorithms.lp.work import iteration_budget, work_units
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput, SolverLimit
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k, parts
from starmin.transform.plan import Guarantee, ReleasePlan

if TYPE_CHECKING:  # column generation loads when it runs, not with the registry
    from starmin.algorithms.lp.colgen import ColumnGeneration
    from starmin.algorithms.lp.rounding import Group

NAME = "lp-rounding"
MAX_T_IN = 50_000
MAX_M = 16
GUARANTEE = Guarantee(
    "heuristic",
    "no ratio; the plan carries the certified LP bound (column generation over every output "
    "vector), so the reported gap is proven",
    "Liang & Yuan Sec. 4 Thm 9; Bredereck et al. Sec. 4.3",
)
_OPTIONS = {"max_rounds", "max_patterns", "node_limit", "rounding_gap", "max_iterations",
            "complete_only", "rounding_solver", "rounding_work"}
SOLVERS = ("highs", "cp-sat")
"""The rounding MILP's solvers (option ``rounding_solver``): HiGHS branch and bound within
``node_limit`` and ``rounding_gap`` (the default), or CP-SAT within ``rounding_work`` units of
its deterministic time (:mod:`.cpsat_milp`; integer programs only: not t-closeness)."""
ROUNDING_WORK = 2.0
"""CP-SAT's deterministic time for the rounding MILP by default (option ``rounding_work``).
Measured on adult's first rows (8 QIs, occupation; 2026-11-29): on the rounding MILPs of
150-500 rows 2 units took 3.3-5.1 CPU s; lp-rounding with it released 561 / 635 / 732 stars
for frequency l = 4 / 5 / 6 on 200 rows, 759 / 864 / 1,002 on 300 and 1,197 (l = 4) on 500,
where merge-repair released 622 / 741 / 921, 837 / 1,009 / 1,232 and 1,232
(``bench/cpsat_rounding.py``; docs/algorithms/lp-core.md, "CP-SAT rounding")."""
CPSAT_MAX_LP_WORK = 4.0
"""``--method auto`` rounds with CP-SAT only where column generation's estimate
(:func:`.work.work_units`) is at most this many units. Beyond, its LP seldom completed within
the estimate's iteration budget on adult's first rows (frequency l = 4 / 5 / 6: 1,000 rows,
work 5.2 / 8.1 / 11.6, and 2,000 rows, 9.5 / 14.8 / 21.4, all stopped), and each stopped run
(``complete_only``: not rounded, the portfolio goes on) cost 1.4-15 CPU s for nothing. Below
it, with the iteration budget of :data:`CPSAT_LP_ITERATIONS`, every LP on adult's first 100 to
500 rows completed (2026-11-29)."""
CPSAT_MAX_TYPES = 500
"""... and only on tables of at most this many row types: the estimate does not see how
much dearer a simplex iteration is on a larger LP. Uniform random tables of 2,000 rows x 6
QIs x 4 values (1,586 row types, estimate 2.2 units) and 6,000 x 5 x 8 (5,443) with l = 5
spent the 32,000 iterations without completing the LP, 8 and 12 CPU s for nothing
(``bench/auto_budget.py --shapes``, 2026-11-29); adult's first 100-500 rows have 100-463."""
CPSAT_LP_ITERATIONS = 32_000
"""Simplex iterations column generation may take (at least) when CP-SAT rounds in ``--method
auto``. The estimate's budget (:func:`.work.iteration_budget`, 10,000 at these sizes) stopped
frequency l = 5 on adult's first 200 and 300 rows, whose complete LPs took 11,194 and 16,055
iterations in 1.1 and 1.8 CPU s (l = 4 / 6 on 200-500 rows 2,213-8,968; l = 5 on 500 rows,
work 4.5, 43,851 iterations in 5.9 s)."""
CPSAT_UNITS = 2.0
"""Work units (about CPU seconds on the reference machine) ``--method auto`` counts per unit
of CP-SAT's deterministic time: 1.6-2.6 CPU s per unit in the measurements of
:data:`ROUNDING_WORK`, plus building the model."""
ROUNDING_GAP = 0.01
"""The rounding MILP's relative gap by default (option ``rounding_gap``; HiGHS's
``mip_rel_gap``, a work limit): branch and bound stops once its incumbent is within 1 % of
its dual bound. Measured on adult's first 500 / 1,000 / 2,000 rows (``bench/rounding_gap.py``,
stop 37) against rounding to optimality: k = 5's rounding 5.2 / 19.5 / 44.9 -> 1.7 / 2.0 /
3.6 CPU s for 1 / 2 / 7 more stars (at most 0.24 %); frequency l = 3 0.3 / 4.5 / 27.2 ->
0.4 / 3.2 / 9.1 s (1 / 1 / 0 star more); l = 2 the same stars (at 2 % the 2,000 rows lost 30,
1.6 %, which is why 1 % and not 2 %); l = 4 on 1,000 rows 125 -> 46 s (+13 stars, 0.7 %; 14
s at 2 %), on 500 rows no faster (77 -> 83 s, load 2)."""


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    from starmin.models.k_anonymity import KAnonymity
    from starmin.models.l_diversity import LDiversity, RecursiveCLDiversity
    from starmin.models.t_closeness import TCloseness

    for part in parts(model):
        if not isinstance(part, KAnonymity | LDiversity | RecursiveCLDiversity | TCloseness):
            return f"{part.name} is not linear in the LP core yet"
    if rt.t_in > MAX_T_IN:
        return f"t_in = {rt.t_in} row types is over its limit of {MAX_T_IN}"
    if rt.m > MAX_M:
        return f"m = {rt.m} QI columns is over its limit of {MAX_M}"
    return None


def combined(model: PrivacyModel, rt: RowTypes) -> list[Relaxation]:
    """Every linear constraint of the model, for the rounding MILP: one relaxation per
    sensitive column (its share cap and t-closeness rows; a model holds for each column),
    the first also carrying the class size ``k`` (:func:`.master.build` states them over the
    same ``x``, ``y`` and ``n``)."""
    from starmin.algorithms.lp.cuts import entropy_cap, entropy_share_lines
    from starmin.models.l_diversity import EntropyLDiversity

    rels = relaxations(model, rt)
    k = implied_k(model)
    entropy = [int(p.l) for p in parts(model) if isinstance(p, EntropyLDiversity)]
    out: list[Relaxation] = []
    for a in range(max(len(rt.sensitive), 1)):
        mine = [r for r in rels if r.column == a]
        caps = [r for r in mine if r.cap is not None]
        ts = [r for r in mine if r.t is not None]
        if len(ts) > 1:
            raise InvalidInput("lp-rounding takes one t-closeness model at a time")
        base = ts[0] if ts else (caps[0] if caps else Relaxation("k"))
        cap = min((r.cap for r in caps if r.cap is not None), default=None)
        lines: tuple[tuple[int, int, int], ...] = ()
        if entropy and rt.sensitive:  # entropy's linear consequences (``milp``'s): p*, lines
            r_a = len(rt.sensitive_domains[a])
            cap = min([c for c in (cap, *(entropy_cap(l, r_a) for l in entropy))
                       if c is not None and c < 1.0], default=None)
            lines = tuple(line for l in entropy
                          for line in entropy_share_lines(l, r_a, max(k, l), rt.n))
            if cap is None:
                lines = ()
            elif base.column is None:  # the cap is entropy's alone: state it on column a
                base = with_column(rt, a, "k")
        out.append(Relaxation("all constraints", k=k if a == 0 else 1, column=base.column,
                              cap=cap, t=base.t, cuts=base.cuts, d=base.d,
                              value_of_key=base.value_of_key, p=base.p, share_lines=lines))
    return out


def primary(rels: list[Relaxation]) -> Relaxation:
    """The relaxation the LP prices: ``cap``, else ``t``, else ``k``."""
    for pick in (lambda r: r.cap is not None, lambda r: r.t is not None, lambda r: True):
        for r in rels:
            if pick(r):
                return r
    raise InvalidInput("the model constrains nothing the LP core can price (k = 1)")


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    admit(NAME, supports, model, rt, options, _OPTIONS)
    say = progress or silent
    solver, work = rounding_solver(options.get("rounding_solver", "highs"),
                                   options.get("rounding_work", ROUNDING_WORK))
    rels = relaxations(model, rt)
    if not rels:
        return _one_class_per_type(rt)
    rel = primary(rels)
    from starmin.algorithms.lp.incremental import WorkLimit

    if solver == "cp-sat" and not cpsat_rounds(model, rels):
        raise InvalidInput(f"{NAME}: rounding_solver='cp-sat' solves integer programs only "
                           "(k-anonymity, frequency and recursive l-diversity), "
                           f"not {model.name}'s (t-closeness's EMD slacks are continuous): "
                           "use rounding_solver='highs'")
    sizes = {o: whole_option(NAME, options, o, d, 1)
             for o, d in (("max_rounds", 60), ("max_patterns", 5000), ("node_limit", 2000))}
    try:
        cg, groups = rounded(rt, model, rel, **sizes,
                             gap=rounding_gap(options.get("rounding_gap", ROUNDING_GAP)),
                             max_iterations=options.get("max_iterations"), progress=say,
                             complete_only=flag_option(NAME, options, "complete_only", False),
                             solver=solver, work=work, seed=seed)
    except WorkLimit as exc:  # complete_only: a round's solve reached the budget
        raise SolverLimit(f"{NAME}: column generation stopped at its work limit before the LP "
                          f"optimum ({exc}); not rounded") from exc
    except RuntimeError as exc:  # an LP/MILP solver stopped without a usable answer
        raise SolverLimit(f"{NAME}: the solver stopped without a usable answer ({exc}); "
                          "use --method merge-repair (or auto)") from exc
    plan = ReleasePlan.from_groups(
        rt, groups, NAME, GUARANTEE, lower_bound=cg.bound,
        certificate={"lp_value": round(cg.lp_value, 6), "lp_bound": cg.bound,
                     "lp_relaxation": rel.name, "lp_rounds": cg.rounds,
                     "lp_complete": cg.complete, "lp_vectors": cg.blocks.B, "seed": seed})
    say(f"{NAME}: {plan.stars} stars, certified bound {cg.bound}")
    return plan


def rounding_gap(value: object) -> float:
    """The ``rounding_gap`` option checked: a number in ``[0, 1)``; ``InvalidInput`` names
    the fix."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1:
        raise InvalidInput(f"{NAME}: rounding_gap must be a number in [0, 1), got {value!r}: "
                           f"use e.g. rounding_gap={ROUNDING_GAP} (0: round to optimality)")
    return float(value)


def rounding_solver(solver: object, work: object) -> tuple[str, float]:
    """The ``rounding_solver`` and ``rounding_work`` options checked; ``InvalidInput`` names
    the fix."""
    if solver not in SOLVERS:
        raise InvalidInput(f"{NAME}: rounding_solver must be one of {', '.join(SOLVERS)}, got "
                           f"{solver!r}")
    if isinstance(work, bool) or not isinstance(work, int | float) or not 0 < work < 1e6:
        raise InvalidInput(f"{NAME}: rounding_work must be a positive number (CP-SAT's "
                           f"deterministic time), got {work!r}: use e.g. "
                           f"rounding_work={ROUNDING_WORK:g}")
    return str(solver), float(work)


def rounded(rt: RowTypes, model: PrivacyModel, rel: Relaxation, *, max_rounds: int = 60,
            max_patterns: int = 5000, node_limit: int = 2000, gap: float = ROUNDING_GAP,
            max_iterations: int | None = None, progress: Progress = silent,
            complete_only: bool = False, solver: str = "highs", work: float = ROUNDING_WORK,
            seed: int = 0) -> tuple[ColumnGeneration, list[Group]]:
    """Column generation on ``rel``, then rounding and repair: the LP and the classes.
    ``complete_only``: raise :class:`SolverLimit` instead of rounding when the column
    generation stopped before the LP optimum (``--method auto``'s run: the rounding MILP
    over an unfinished LP holds every vector priced so far and its cost is not what the
    estimate counts; on adult's first 500 rows with k = 5 its root alone took 6.7 CPU s and
    the whole MILP 16 s, for 1,132 stars against pattern-packing's 1,038)."""
    from starmin.algorithms.lp.colgen import column_generation

    cg = column_generation(rt, rel, max_rounds=max_rounds, max_patterns=max_patterns,
                           max_iterations=None if max_iterations is None
                           else int(max_iterations), within_rounds=complete_only,
                           progress=progress)
    if complete_only and not cg.complete:
        raise SolverLimit(f"{NAME}: column generation stopped at its work limit before the LP "
                          f"optimum (LP {cg.lp_value:.1f}, bound {cg.bound}); not rounded")
    return cg, classes_of_lp(rt, model, cg, node_limit=node_limit, gap=gap, progress=progress,
                             solver=solver, work=work, seed=seed)


def classes_of_lp(rt: RowTypes, model: PrivacyModel, cg: ColumnGeneration, *,
                  node_limit: int = 2000, gap: float = ROUNDING_GAP,
                  seconds: float | None = None, progress: Progress = silent,
                  solver: str = "highs", work: float = ROUNDING_WORK,
                  seed: int = 0) -> list[Group]:
    """The classes of column generation's LP, rounded and repaired (:mod:`.rounding`).
    ``gap``: the rounding MILP's relative gap; ``solver``, ``work``, ``seed``: its solver,
    CP-SAT's work limit and seed (:func:`.rounding.round_lp`). ``seconds``: a
    wall-clock limit the user asked for (``milp``'s ``--time-limit``) on the
    rounding MILP (``RuntimeError`` when it found nothing within it)."""
    from starmin.algorithms.lp.rounding import groups_of, merge_failing, round_lp

    x = round_lp(cg.pairs, combined(model, rt), cg.blocks, cg.lp.x, node_limit=node_limit,
                 gap=gap, seconds=seconds, progress=progress, solver=solver, work=work,
                 seed=seed)
    return merge_failing(rt, model, groups_of(cg.pairs, cg.blocks, x))


def auto_run(model: PrivacyModel, rt: RowTypes, units_left: float) -> AutoRun:
    """How ``--method auto`` runs lp-rounding: with its defaults; the work is column
    generation's estimate (:func:`.colgen.work_units`) and a tenth of it for the rounding
    MILP and repair. When every report bounds the same relaxation
    (:func:`.report_bound.bounded_relaxations`; models with a sensitive column: for
    k-anonymity alone the report takes the k-anonymity bounds the release's method computed
    and runs no LP), the column generation is work the report does anyway with the same
    limits (it takes this run's bound instead of running it
    again), so only the tenth counts against the portfolio's budget (ARX adult, frequency
    l = 2: 2.2 units instead of 24; lp-rounding's 13,131 stars are released instead of
    merge-repair's 15,507 in about the same time, since the report's LP bound took 15 of the
    run's 21 CPU seconds before). It rounds only an LP its column generation completed
    (``complete_only``): else it fails, and the portfolio goes on. With t-closeness or
    frequency l >= 4 the rounding is counted as :data:`T_ROUNDING` ``x work^2``, its measured
    cost, with ``work`` taken at 256 patterns or more (:func:`rounding_work`). Where that is
    over ``units_left``, column generation's estimate at most :data:`CPSAT_MAX_LP_WORK`, the
    row types at most :data:`CPSAT_MAX_TYPES`, and CP-SAT can solve the rounding MILP
    (:func:`cpsat_rounds`: frequency l >= 4 without t-closeness), CP-SAT rounds instead,
    within :data:`ROUNDING_WORK` units of its deterministic time, counted as :data:`CPSAT_UNITS`
    work units each (HiGHS is kept where it fits: on adult's first 100 rows with l = 4 it
    rounded to 315 stars, CP-SAT to 328)."""
    from starmin.algorithms.lp.report_bound import bounded_relaxations

    rels = relaxations(model, rt)
    if not rels:
        return AutoRun(0.01)
    rel = primary(rels)
    work = work_units(rt, rel)
    heavy = any(r.t is not None or (r.cap is not None and r.cap <= HEAVY_CAP + 1e-9)
                for r in rels)
    rounding = (T_ROUNDING * (rounding_work(rt, work) * t_spread_floor(rels)) ** 2 if heavy
                else 0.1 * work)
    options: dict[str, object] = {"max_iterations": iteration_budget(work),
                                  "complete_only": True}
    charged = model.uses_sensitive and any(r.name == rel.name
                                           for r, _ in bounded_relaxations(model, rt))
    lp = 0.0 if charged else work
    by = ""
    if (heavy and lp + rounding > units_left and work <= CPSAT_MAX_LP_WORK
            and rt.t_in <= CPSAT_MAX_TYPES and cpsat_rounds(model, rels)):
        rounding = CPSAT_UNITS * ROUNDING_WORK
        options |= {"rounding_solver": "cp-sat", "rounding_work": ROUNDING_WORK,
                    "max_iterations": max(iteration_budget(work), CPSAT_LP_ITERATIONS)}
        by = f"; rounding by CP-SAT within {ROUNDING_WORK:g} units of its deterministic time"
    if charged:
        return AutoRun(rounding, options, "simplex iterations capped by the estimate; its "
                       f"column generation is the report's LP bound, charged there{by}")
    return AutoRun(work + rounding, options, f"simplex iterations capped by the estimate{by}")


def cpsat_rounds(model: PrivacyModel, rels: list[Relaxation]) -> bool:
    """Whether CP-SAT can solve the rounding MILP of ``model`` (:mod:`.cpsat_milp`): no
    t-closeness (continuous EMD slacks) and no entropy l-diversity (its cap is irrational),
    every share cap a fraction with a small denominator (frequency ``1/l``)."""
    from starmin.algorithms.lp.cpsat_milp import small_fraction
    from starmin.models.l_diversity import EntropyLDiversity
    from starmin.models.t_closeness import TCloseness

    if any(isinstance(p, TCloseness | EntropyLDiversity) for p in parts(model)):
        return False
    for r in rels:
        if r.t is not None:
            return False
        if r.cap is not None and small_fraction(r.cap) is None:
            return False
    return True


def rounding_work(rt: RowTypes, work: float) -> float:
    """The column generation's estimate ``work`` taken at :data:`ROUNDING_PATTERNS` patterns
    or more: the rounding MILP's cost follows the rows and their values, not the patterns
    the LP priced (with fewer QI columns the classes compete for the same rows). Measured on
    adult's first rows, occupation, t = 0.2 / 0.4 (2026-11-28, stop 45): 40 rows with 8 / 7
    / 6 QIs (work 1.92 / 0.96 / 0.48) rounded in 19 / 30 / 12 and 16 / 17 / 5 CPU s, 60 rows
    (work 2.88 / 1.42 / 0.71) in 28 / 73 / 32 and 19 / 43 / 10 s; frequency l = 5 on 150
    rows with 8 / 6 QIs (work 1.23 / 0.30) in 11.9 / 8.6 s. ``T_ROUNDING x work^2`` gave
    26 / 6.4 / 1.6 units at 40 rows and 10.6 / 0.6 for l = 5: up to 14 times low with 6 QIs;
    with the patterns floored it gives 26 / 26 / 26 and 10.6 / 10.1."""
    patterns = min(2 ** rt.m, 5000)
    return work * max(1.0, ROUNDING_PATTERNS / patterns)


def t_spread_floor(rels: list[Relaxation]) -> float:
    """The factor that takes the rounding's estimate under t-closeness at
    :data:`T_MIN_SPREAD` values a class spans or more: ``(T_MIN_SPREAD / r)^2`` for the
    t-closeness relaxation's ``r`` values when there are fewer (column generation's estimate
    counts ``(r / 2)^2``, :func:`.work.work_units`), else 1."""
    spreads = [r.r for r in rels if r.t is not None]
    if not spreads:
        return 1.0
    return max(1.0, T_MIN_SPREAD / max(2, min(spreads))) ** 2


T_MIN_SPREAD = 9
"""Under t-closeness the rounding MILP is counted as if the sensitive column held at least this
many values (:func:`t_spread_floor`): its cost does not fall with fewer values as column
generation's does. Measured 2026-11-29 (stop 54; this machine, about three times slower per
core than the one :data:`T_ROUNDING` was measured on) on random tables of 5 QIs with 3 values
and 5 sensitive values (``tests/test_bounds_ahead.py``'s): 100 rows (estimate 0.6-0.7
units), t = 0.3 / 0.15 and k = 3 with t = 0.2, ``auto`` with lp-rounding took 2-35 CPU s; 200
rows (2.2 units) 11-236 s (k = 3 with t = 0.2: 65 and 236 s); 400 rows (5.0 units) 12-80 s.
With the floor they are (9/5)^4, about 10.5 times, higher: 6.4-7.7 units at 100 rows, where
``auto`` still rounds within the default budget, and 23 / 53 units at 200 / 400 rows, where it
releases merge-repair's plan (about 1 CPU s; lp-rounding's releases were 3-16 % smaller there:
``budget=`` lets it run). Adult's occupation (14 values) is above the floor: unchanged."""

ROUNDING_PATTERNS = 256
"""The patterns (``2^8``) below which :func:`rounding_work` no longer lowers the rounding's
estimate."""

T_ROUNDING = 7.0
"""With t-closeness, or frequency l-diversity with ``l >= 4`` (a cap of at most
:data:`HEAVY_CAP`), the rounding MILP, not the LP, is the cost: ``T_ROUNDING x work^2``
units (``work`` the column generation's estimate at 256 patterns or more,
:func:`rounding_work`). Measured on adult's first rows (8 QIs,
occupation; 2026-11-27): t = 0.2, 50 rows, work 2.4, rounding 16 CPU s; 100 rows, work 4.8,
157 CPU s, and HiGHS stopped at its 2,000 nodes without an integer solution; l = 4 / 5 on
150 rows (work 0.79 / 1.23): 4.1 / 11.9 CPU s, l = 4 on 400 rows (work 2.0): 33 CPU s
(formula: 4.4 / 10.6 / 29). The tenth of the LP's work counted before made these 0.1-0.5
units, so ``auto`` spent 158 s on the 100 rows at t = 0.2. For l = 2, 3 the rounding took
0.03-0.5 CPU s on 150-2,000 rows: a tenth of the LP's work is kept there. Not for every
table: re-measured on 2026-11-27 (stop 36), adult's first 2,000 rows at l = 3 took 27 CPU s
to round the complete LP (9.1 s with :data:`ROUNDING_GAP` since stop 37, the same 2,698
stars; 150 rows 0.4 s). ``auto`` never rounds it there: its column generation stops at the
estimate's iteration budget first (``complete_only``), and merge-repair's 2,905 stars are
released. These measurements were made rounding to optimality; with the gap the rounding is
cheaper (k = 5, l = 3) or no dearer (l = 4 on 500 rows), and the estimates are kept."""
HEAVY_CAP = 0.25
"""The largest share cap (frequency ``l >= 4``) whose rounding is counted as t-closeness's."""


def _one_class_per_type(rt: RowTypes) -> ReleasePlan:
    t, s = np.nonzero(rt.counts)
    groups = [(np.array([ti]), np.array([si]), np.array([rt.counts[ti, si]]))
              for ti, si in zip(t, s, strict=True)]
    return ReleasePlan.from_groups(rt, groups, NAME, GUARANTEE, lower_bound=0)


ALGORITHM = Algorithm(
    name=NAME,
    summary="column generation on the row-type LP (Liang & Yuan Thm 9), then fix, re-solve "
            "and repair; releases near a certified LP bound (k, frequency/recursive l, t)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=auto_run,
    options=tuple(sorted(_OPTIONS)),
)
