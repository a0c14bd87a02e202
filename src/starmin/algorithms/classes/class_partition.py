"""Exact set partitioning over classes of row types, by column generation (price and branch
by reduced-cost enumeration).

Guarantee: **exact** -- every plan it returns with guarantee ``exact`` is a proven optimum.
If a work limit stops it first (pricing rounds, CP-SAT's deterministic time per pricing
call, the number of enumerated classes, HiGHS's nodes), the plan is marked ``bound`` and
carries the proven lower bound. No clock is read: results are the same under any load.

Formulation. A *class* is a multiset of rows, given by the rows ``x_p`` it takes of each
(row type, sensitive key) pair ``p`` (Bredereck et al. Sec. 4: the table as row types); it
costs ``N z`` stars, ``N`` its rows and ``z`` the QI columns not constant on it (its
suppressor, Liang & Yuan Sec. 2), and must satisfy the model. A release is a partition of the
rows into such classes: ``min sum_C cost(C) lambda_C``, ``sum_C x_C lambda_C = c``,
``lambda`` integer (:mod:`.master`). Unlike the output-vector LP (:mod:`starmin.algorithms.lp`)
the LP of this master charges each class its whole cost, so it is tight on wide tables where a
star's cost depends on the whole class -- on the planted 3D-matching families it equals the
optimum: every satisfying class costs ``>= (d - 1)`` per row there (Xiao et al. Lemma 3 /
Property 4; Liang & Yuan Thm 6; Meyerson & Williams Thm 3.1), so ``pi = d - 1`` is dual
feasible and the LP is ``3q(d - 1)``.

Steps:

1. Columns: the whole table (a class whenever the model is feasible) and the classes of
   ``merge-repair``'s release.
2. The row levels (:mod:`.row_levels`): for every row type ``v`` the fewest stars ``L(v)``
   a row of it pays in any satisfying class (CP-SAT); every release has at least ``sum_v
   n_v L(v)`` stars, and ``pi = L`` is dual feasible for the master. The classes of reduced
   cost 0 there (every row at its level) join the columns (a CP-SAT enumeration); if the
   restricted master's integer optimum meets the bound, it is proven optimal (the planted
   3D-matching families: every level is ``d - 1``).
   Then column generation (:mod:`.colgen`) with the exact pricing model (:mod:`.pricing`,
   CP-SAT), from the level duals and their bound: its Lagrangian bound ``L`` is proven for every
   release.
3. The restricted master with integer ``lambda`` (HiGHS): release value ``U``. ``U <= L``:
   proven optimal.
4. Otherwise *reduced-cost enumeration*: a release of at most ``U - 1`` stars uses only
   classes with ``rc(C) <= U - 1 - pi . c - (kappa - 1) min(0, rc_lo)`` (the identity of
   :mod:`.colgen`); CP-SAT lists all of them, they join the master, and its integer optimum
   over them is the optimum (or ``U`` is). If the list is over ``max_classes`` (work limit),
   the plan is ``U`` with bound ``L``, marked ``bound``.

Structure used (proven; :data:`.pricing.SPLIT`): for k-anonymity alone, classes of ``k ..
2k - 1`` rows suffice (a larger class splits into two of ``>= k`` rows without new stars).
For the other models class sizes are not bounded beyond the table.

Models, stated exactly (:mod:`.pricing`): k-anonymity, frequency and distinct l-diversity,
p-sensitive k-anonymity, t-closeness under the equal and natural ordered distance, and
conjunctions of these, on any number of sensitive columns (each holds on every column).
Size limit: ``t_in <= MAX_T_IN`` row types (the pricing model grows with row types x
columns).

References: Bredereck, Nichterlein, Niedermeier & Philip, "The effect of homogeneity on the
complexity of k-anonymity" Sec. 4 (row types); Liang & Yuan Sec. 2 (suppressor cost), Thm 6;
Xiao, Yi & Tao EDBT 2010 Lemma 3 (Property 4); Meyerson & Williams PODS 2004 Thm 3.1;
Desrosiers & Luebbecke, "A primer in column generation" (Lagrangian bound, reduced-cost
enumeration).
"""

from __future__ import annotations

import importlib.util
import math
from typing import Any

import numpy as np

from starmin.algorithms.base import Algorithm, AutoRun, Progress, admit, silent
from starmin.algorithms.classes.colgen import ColGen, column_generation
from starmin.algorithms.classes.master import Columns, solve_ip
from starmin.algorithms.classes.pricing import ClassModel, Pairs, supported_part
from starmin.algorithms.classes.row_levels import level_bound, row_levels
from starmin.data.rowtypes import RowTypes
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k, parts
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "class-partition"
MAX_T_IN = 60
"""Most row types (the pricing model has a variable per (row type, key) pair)."""
GUARANTEE = Guarantee(
    "exact",
    "minimum number of stars (set partitioning over classes by column generation with exact "
    "CP-SAT pricing and reduced-cost enumeration; if a work limit stops it first, the plan is "
    "marked 'bound' with the proven lower bound)",
    "Bredereck et al. Sec. 4 (row types); Liang & Yuan Sec. 2; Desrosiers & Luebbecke",
)
DEFAULTS: dict[str, Any] = {"max_rounds": 400, "pricing_work": 5.0, "max_classes": 20_000,
                            "node_limit": 50_000, "level_work": 1.0, "start_units": 1.0}
"""``level_work``: CP-SAT's deterministic time per row-level call (one per row type,
:mod:`.row_levels`); ``start_units``: the work units of merge-repair's run whose classes
start the columns (its ``--method auto`` variant within them,
:func:`.merge_repair.auto_run`)."""
_OPTIONS = set(DEFAULTS)


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    if importlib.util.find_spec("ortools") is None:
        return f"{NAME} needs the ortools package (CP-SAT): pip install ortools"
    for part in parts(model):
        reason = supported_part(part)
        if reason is not None:
            return reason
    if rt.t_in > MAX_T_IN:
        return (f"t_in = {rt.t_in} row types is over its limit of {MAX_T_IN}; use "
                "--method milp or --method auto")
    return None


def _setup(rt: RowTypes, model: PrivacyModel, seed: int, work: float
           ) -> tuple[Pairs, ClassModel, Columns, int]:
    pairs = Pairs.of(rt)
    pricer = ClassModel(rt, model, pairs, seed=seed, work=work)
    cols = Columns(rt, pairs)
    cols.add(pairs.count.copy())
    kappa = rt.n // max(implied_k(model), 1)
    return pairs, pricer, cols, kappa


ROW_LEVELS_MIN_M = 13
"""The reports carry the row-level bound on tables of at least this many QI columns: where
the pattern bounds, which enumerate suppression patterns up to
:data:`starmin.algorithms.bounds.MAX_PATTERNS` (4,096 = ``2^12``), stop before the last
level (84-144 against the planted optima 360-828 at 16-24 QIs). On narrower tables they
enumerate every pattern and give the same levels."""
ROW_LEVELS_WORK = 6.0
"""CP-SAT's deterministic time for all the report's row-level calls, shared equally by the
row types (at most :data:`ROW_LEVEL_CALL_WORK` each)."""
ROW_LEVEL_CALL_WORK = 0.5
"""Most deterministic time of one row-level call in the reports."""


def row_level_bound(rt: RowTypes, model: PrivacyModel, progress: Progress | None = None
                    ) -> int | None:
    """The row-level bound (:mod:`.row_levels`: every row of row type ``v`` pays at least
    ``L(v)`` stars) within the report's work limits, on tables of at least
    :data:`ROW_LEVELS_MIN_M` QI columns the method supports; else ``None``."""
    if rt.m < ROW_LEVELS_MIN_M or supports(model, rt) is not None:
        return None
    work = min(ROW_LEVEL_CALL_WORK, ROW_LEVELS_WORK / max(rt.t_in, 1))
    levels = row_levels(ClassModel(rt, model, Pairs.of(rt)), work, progress or silent)
    return None if levels is None else level_bound(levels, rt.counts)


def lower_bound(rt: RowTypes, model: PrivacyModel, max_rounds: int = 200) -> int | None:
    """The class LP's certified bound (:mod:`.colgen`), or ``None`` when unsupported."""
    if supports(model, rt) is not None:
        return None
    _p, pricer, cols, kappa = _setup(rt, model, 0, DEFAULTS["pricing_work"])
    start = _level_start(pricer, cols, DEFAULTS["level_work"], silent)
    return column_generation(cols, pricer, kappa, max_rounds, start=start).lower


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    admit(NAME, supports, model, rt, options, _OPTIONS)
    say = progress or silent
    opt = {**DEFAULTS, **options}
    pairs, pricer, cols, kappa = _setup(rt, model, seed, float(opt["pricing_work"]))
    for x in _start(rt, model, pairs, float(opt["start_units"])):
        cols.add(x)
    start = _level_start(pricer, cols, float(opt["level_work"]), say)
    levels = {"row_level_bound": None if start is None else start.lower}
    if start is not None:
        done = _tight(rt, model, pricer, cols, start, {"seed": seed, **levels, **opt}, say)
        if done is not None:
            return done
    cg = column_generation(cols, pricer, kappa, int(opt["max_rounds"]), say, start=start)
    lp_value = round(cg.lp_value, 6) if math.isfinite(cg.lp_value) else None
    cert: dict[str, Any] = {"seed": seed, **levels, "lp_value": lp_value, "lp_bound": cg.lower,
                            "lp_complete": cg.complete, "colgen_rounds": cg.rounds,
                            "classes": len(cols.x), **opt}
    ip = solve_ip(cols, int(opt["node_limit"]))
    assert ip.value is not None  # the whole table is a column
    say(f"{NAME}: LP bound {cg.lower}, restricted master {ip.value} stars")
    cert["master_stars"] = ip.value
    if ip.value <= cg.lower:
        return _plan(rt, model, cols, ip.chosen, cg.lower, {**cert, "proven_by": "lp bound"})
    return _enumerate(rt, model, pricer, cols, cg, kappa, ip.chosen, ip.value, opt, cert, say)


def _level_start(pricer: ClassModel, cols: Columns, work: float, say: Progress
                 ) -> ColGen | None:
    """Step 2: the row levels (:mod:`.row_levels`) as the class LP's duals, ``pi_p = L(v)``
    for the pairs of row type ``v``: dual feasible (every reduced cost ``>= 0``), with the
    Lagrangian bound ``sum_v n_v L(v)``. ``None`` when some row type is in no satisfying
    class."""
    levels = row_levels(pricer, work, say)
    if levels is None:
        return None
    pi = levels[cols.pairs.type_of].astype(np.float64)
    lower = level_bound(levels, pricer.rt.counts)
    return ColGen(lower, pi, float(lower), 0.0, math.nan, 0, False)


def _tight(rt: RowTypes, model: PrivacyModel, pricer: ClassModel, cols: Columns,
           start: ColGen, cert: dict[str, Any], say: Progress) -> ReleasePlan | None:
    """Step 2a: the classes of reduced cost 0 at the level duals (every row at its level)
    join the master; if its integer optimum meets the level bound, that is the optimum.
    ``None`` otherwise."""
    tight, _ = pricer.enumerate(start.pi, 1e-6, int(cert["max_classes"]))
    for x in tight:
        cols.add(x)
    ip = solve_ip(cols, int(cert["node_limit"]))
    say(f"{NAME}: row-level bound {start.lower}, {len(tight)} classes at it, restricted "
        f"master {ip.value} stars")
    if ip.value is None or not ip.optimal or ip.value > start.lower:
        return None
    return _plan(rt, model, cols, ip.chosen, start.lower,
                 {**cert, "tight_classes": len(tight), "classes": len(cols.x),
                  "proven_by": "row-level bound"})


def _enumerate(rt: RowTypes, model: PrivacyModel, pricer: ClassModel, cols: Columns,
               cg: ColGen, kappa: int, chosen: list[int], upper: int,
               opt: dict[str, Any], cert: dict[str, Any], say: Progress) -> ReleasePlan:
    """Step 4 of the module docstring. When pricing proved no bound on the reduced costs at
    the last duals (``rc_lo = -inf``: CP-SAT stopped by its work limit before finding a
    class), no class can be excluded, so nothing is enumerated: the plan is ``upper`` with
    the bound ``cg.lower``, marked ``bound``."""
    if not math.isfinite(cg.rc_lo):
        cert.update(enumerated=0, enumeration_complete=False)
        return _plan(rt, model, cols, chosen, cg.lower, {
            **cert, "stopped_by": "pricing proved no bound on the reduced costs (CP-SAT's "
            "work limit per call)"})
    limit = upper - 1 - cg.pi_c - (kappa - 1) * min(0.0, cg.rc_lo) + 1e-6
    found, complete = pricer.enumerate(cg.pi, limit, int(opt["max_classes"]))
    for x in found:
        cols.add(x)
    cert.update(enumerated=len(found), enumeration_complete=complete, classes=len(cols.x))
    say(f"{NAME}: {len(found)} classes with reduced cost <= {limit:.3f} "
        f"({'all' if complete else 'stopped at the limit'})")
    ip = solve_ip(cols, int(opt["node_limit"]))
    if ip.value is not None and ip.value < upper:
        chosen, upper = ip.chosen, ip.value
    if complete and ip.optimal:
        return _plan(rt, model, cols, chosen, upper, {**cert, "proven_by": "enumeration"})
    why = ("the reduced-cost enumeration passed max_classes" if not complete
           else f"HiGHS stopped on the restricted master ({ip.message})")
    return _plan(rt, model, cols, chosen, cg.lower, {**cert, "stopped_by": why})


def _start(rt: RowTypes, model: PrivacyModel, pairs: Pairs, units: float
           ) -> list[np.ndarray]:
    """The classes of merge-repair's release, as count vectors over ``pairs``: its ``--method
    auto`` variant within ``units`` work units (its cheapest when none fits; on the planted
    tables of 16 QIs its full run took 6.7 CPU s for 24 rows, the level start's ``2^m``
    patterns)."""
    from starmin.algorithms.heuristic import merge_repair

    plan = merge_repair.solve(rt, model, **dict(merge_repair.auto_run(model, rt, units).options))
    index = {(int(t), int(k)): p for p, (t, k) in
             enumerate(zip(pairs.type_of, pairs.key_of, strict=True))}
    out = []
    for o in range(plan.t_out):
        x = np.zeros(pairs.P, dtype=np.int64)
        sel = plan.out_idx == o
        for t, k, c in zip(plan.type_idx[sel], plan.key_idx[sel], plan.count[sel], strict=True):
            x[index[(int(t), int(k))]] += int(c)
        out.append(x)
    return out


def _plan(rt: RowTypes, model: PrivacyModel, cols: Columns, chosen: list[int], lower: int,
          cert: dict[str, Any]) -> ReleasePlan:
    p = cols.pairs
    groups = []
    for c in chosen:
        nz = cols.x[c] > 0
        groups.append((p.type_of[nz], p.key_of[nz], cols.x[c][nz]))
    hist = np.zeros((len(groups), rt.s), dtype=np.int64)
    for g, (_t, k, n) in enumerate(groups):
        np.add.at(hist[g], k, n)
    if len(groups) and not holds(model, rt, hist).all():
        raise AssertionError(f"{NAME}: a class fails the model (pricing model bug)")
    stars = int(sum(cols.cost[c] for c in chosen))
    proven = ("proven_by" in cert and lower >= stars) or cert.get("proven_by") == "enumeration"
    guarantee = GUARANTEE if proven else Guarantee(
        "bound", f"not proven optimal: {cert.get('stopped_by', 'work limit')}; the plan's "
        "lower bound is proven (class LP)", GUARANTEE.reference)
    return ReleasePlan.from_groups(rt, groups, NAME, guarantee,
                                   lower_bound=stars if proven else min(lower, stars),
                                   certificate={**cert, "proven_optimal": proven})


AUTO_VARIANTS: tuple[tuple[float, float, float, int], ...] = (
    (2.0, 0.25, 1.0, 2), (1.0, 0.1, 1.0, 0), (0.5, 0.05, 0.25, 0))
"""``--method auto``'s variants, richest first: (CP-SAT's deterministic time for all the
row-level calls, shared by the row types; at most per call; per pricing or enumeration
call; most column-generation rounds). The planted 3D-matching tables of up to 48 rows x 32
QIs are proven by the row levels and one enumeration of the classes at them (about 0.01
deterministic s per row-level call and under 1 s for the enumeration there); column
generation proves small narrow tables."""
CALL_UNITS = 2e-5
"""Work units per (row type x QI column) of building one CP-SAT model (a call's overhead
beside CP-SAT's deterministic time, counted at one unit per deterministic second)."""
AUTO_LIMITS: dict[str, Any] = {"max_classes": 1_000, "node_limit": 100, "start_units": 1.0}
"""The other limits of ``--method auto``'s variants: at most 1,000 classes per enumeration
and 100 HiGHS nodes per restricted-master MILP (adult's first 50 rows, k = 10: with the
defaults' 20,000 and 50,000 the master MILP over 6,000 enumerated classes took 13 CPU s)."""
IP_UNITS = 0.5
"""Work units counted per restricted-master MILP of an ``auto`` run (three at most: after the
row levels, after column generation, after the enumeration)."""


def auto_run(model: PrivacyModel, rt: RowTypes, units_left: float) -> AutoRun:
    """How ``--method auto`` runs class-partition: the richest of :data:`AUTO_VARIANTS` whose
    worst case fits ``units_left`` (else the cheapest), with :data:`AUTO_LIMITS` (its
    merge-repair start within ``start_units``). Worst case: the start's estimate plus, per
    CP-SAT call (one row level per row type; two pricing calls per round of column
    generation and two enumerations), its deterministic time and :data:`CALL_UNITS` per row
    type and column, plus :data:`IP_UNITS` per restricted-master MILP. A
    run that proves nothing returns its best release marked ``bound`` (never more stars
    than its merge-repair start), and the portfolio goes on with the other members."""
    from starmin.algorithms.heuristic import merge_repair

    start = merge_repair.auto_run(model, rt, AUTO_LIMITS["start_units"]).work
    build = CALL_UNITS * rt.t_in * rt.m
    runs = []
    for total, cap, work, rounds in AUTO_VARIANTS:
        level = min(cap, total / max(rt.t_in, 1))
        calls = 2 * rounds + 2
        runs.append(AutoRun(
            start + rt.t_in * (level + build) + calls * (work + build) + 3 * IP_UNITS,
            {"level_work": level, "pricing_work": work, "max_rounds": rounds, **AUTO_LIMITS},
            f"{rounds} rounds, {level:.3g} / {work:g} deterministic s per row-level / pricing "
            f"call, {AUTO_LIMITS['node_limit']} nodes"))
    return next((r for r in runs if r.work <= units_left), runs[-1])


ALGORITHM = Algorithm(
    name=NAME,
    summary="exact: minimum stars by set partitioning over classes of row types (column "
            "generation, exact CP-SAT pricing, reduced-cost enumeration); tight on wide "
            "tables (k, frequency and distinct l, p-sensitivity, t under equal/ordered "
            "distance; up to 60 row types)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=auto_run,
    options=tuple(sorted(_OPTIONS)),
)
