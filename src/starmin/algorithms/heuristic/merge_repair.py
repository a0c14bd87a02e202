"""Merge-repair: any privacy model, by repairing the classes of a good start until all satisfy it.

Guarantee: **heuristic** -- the release satisfies the model; there is no bound on the number of
stars (the report's lower bound gives each run's gap).

Why it always ends in a valid release. Every model of :mod:`starmin.models` is closed under
union of classes (merging two classes that satisfy it gives a class that satisfies it), and
``check_feasible`` guarantees that the whole table, as one class, satisfies it. Each repair
step either merges two classes without adding a violating class, or makes a violating class
satisfy the model without adding classes or violating ones; so the steps are at most ``2 g``
for ``g`` start classes, and when none is left to take the release satisfies the model (in the
worst case one class, the whole table, is left). Every release is judged once more at the end.

Algorithm (each class is released as its suppressor, Liang & Yuan Sec. 2).

1. *Start* (:mod:`._start`). The class size ``k`` the model needs: its implied ``k``
   (:func:`starmin.models.combine.implied_k`: ``k``, ``p``, ``l``, their maximum for a
   conjunction), or more when the smallest class with the whole table's mix of sensitive
   values that satisfies the model is larger (t-closeness; then times the median rows per
   row type, :func:`has_t_closeness`). Pattern-packing's k-anonymous
   classes for that ``k`` (:mod:`.pattern_packing`), the row types for ``k = 1``. A row type
   that several classes share deals its sensitive values evenly among them. For frequency
   l-diversity (:func:`diverse_suits`) the start is instead small classes that already
   satisfy the model, grown greedily (:mod:`._diverse_start`). The level start
   (:mod:`._level_start`, with the placement LP of :mod:`._level_lp`) runs beside it, and
   beside pattern-packing's for the models frequency l-diversity implies (distinct, entropy,
   recursive (c > 1, l), :func:`implied_l`); the better release is kept. For entropy
   l-diversity with ``l >= 4`` that level start is distinct l-diversity's, whose classes hold
   ``l`` values (start ``"distinct-levels"``, :func:`distinct_start_prefers`; stop 50).
2. *Repair.* While some class violates the model (:func:`starmin.models.apply.holds` on the
   classes' ``(g, s)`` key counts), the smallest violating class ``A`` takes the cheapest of
   three steps, priced in added stars per repaired class:

   a. *merge* with another class (:mod:`._merge_state`): the ``width`` cheapest partners
      (ties: the merged sensitive distribution closest to the table's, in total variation
      ``tv``) are judged in one call; a merge that satisfies the model wins (a violating
      partner counts as two repairs); if none does, rule ``cost`` takes the cheapest and rule
      ``spread`` the smallest ``tv`` -- both rules are run and the better release kept
      (a rule that would have taken every partner the first run took is not run again: it
      would repeat that run step for step; the certificate marks it ``same_as``);
   b. *pull* a few rows of the cheapest partners into ``A`` (:mod:`._pull`), each donor still
      satisfying the model;
   c. *eject* the fewest over-represented rows of ``A`` so that it satisfies the model, into
      the partner where that costs least (one that then satisfies it, or was violating).

   Partners are all live classes, or the neighbours of ``A`` in ``m`` sort orders of the
   vectors while more than ``full_scan`` classes are alive.
3. *Polish.* Split refinement (:mod:`._split_refine`: a class is split along a starred column
   when its parts satisfy the model with fewer stars), carving (:mod:`._carve`: part of the
   rows sharing a value of a starred column, in the class's own mix of sensitive values,
   becomes a class when it and the rest satisfy the model), then move refinement
   (:mod:`._moves`: rows move to a covering class with fewer stars when both classes still
   satisfy the model); for frequency l-diversity (with ``k <= l``) on one sensitive column,
   then up to ``flow_rounds`` cycles of the flow polish (:mod:`._flow_polish`: every row
   re-dealt among the classes by one minimum-cost flow) and carving; for t-closeness under
   the equal distance (with k-anonymity or alone) the same when ``t_flow_rounds`` asks.
4. The release is replaced by the single class of the whole table if that has fewer stars.

Complexity: per step ``O(g m)`` for pricing merges against ``g`` live classes (``O(h m^2)`` with
neighbours), ``O(E (m + s))`` for pulls from the donors' ``E`` entries, and model evaluations
of ``width`` + ``O(ROWS)`` classes; at most ``2 g`` steps. Polishing is ``O(m^2 E log E)`` for
splits and ``O(p (E + g) m)`` per round of moves (``p`` star patterns). Memory ``O((g + E)
(m + s))``. Measured on ARX adult and synthetic census: ``docs/algorithms/merge-repair.md``.

References
----------
H. Liang and H. Yuan, "On the Complexity of t-Closeness Anonymization and Related Problems",
Sec. 2 (suppressor and cost of a group; partitions suffice for models closed under union).
R. Bredereck, A. Nichterlein, R. Niedermeier, G. Philip, "The effect of homogeneity on the
computational complexity of combinatorial data anonymization", Sec. 4 (row types and counts).
X. Xiao, K. Yi and Y. Tao, EDBT 2010, Lemma 1 (l-eligibility is closed under union) and Sec. 5.2
(phase one: a group keeps its largest l-eligible part, the rest is moved out -- step 2c).
A. Machanavajjhala et al., TKDD 2007, Sec. 4 (entropy and recursive l-diversity).
N. Li, T. Li and S. Venkatasubramanian, ICDE 2007, Sec. 4 (t-closeness, EMD).
"""

from __future__ import annotations

import heapq
import os
import time
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Algorithm, AutoRun, Progress, silent
from starmin.algorithms.heuristic._beside import Beside, usable_cpus
from starmin.algorithms.heuristic._carve import carve
from starmin.algorithms.heuristic._distinct_lp import LP_LEVELS as DISTINCT_LP_LEVELS
from starmin.algorithms.heuristic._distinct_lp import joint_work
from starmin.algorithms.heuristic._distinct_lp import work as distinct_lp_work
from starmin.algorithms.heuristic._flow_polish import GAIN as FLOW_GAIN
from starmin.algorithms.heuristic._flow_polish import ROUNDS as FLOW_ROUNDS
from starmin.algorithms.heuristic._flow_polish import (
    Limits,
    closeness_limits,
    flow_polish,
    frequency_limits,
)
from starmin.algorithms.heuristic._frequency_joint import MIN_L as FREQUENCY_JOINT_MIN_L
from starmin.algorithms.heuristic._frequency_joint import work as frequency_joint_work
from starmin.algorithms.heuristic._judge import compile_judge
from starmin.algorithms.heuristic._level_lp import LP_LEVELS as LEVEL_LP_LEVELS
from starmin.algorithms.heuristic._level_lp import work as level_lp_work
from starmin.algorithms.heuristic._merge_state import BIG, Classes, IntArray, Judge, Members
from starmin.algorithms.heuristic._moves import improve
from starmin.algorithms.heuristic._pull import best_eject, best_pull, first_stable
from starmin.algorithms.heuristic._split_refine import Entries, refine
from starmin.algorithms.heuristic._start import copies, row_type_plan, spread_keys, start_size
from starmin.algorithms.heuristic._start_worker import JOB_KIND
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput, StarminError
from starmin.models.apply import check_feasible, holds
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k, parts
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "merge-repair"
GUARANTEE = Guarantee(
    kind="heuristic",
    statement="satisfies the model; no bound on stars (report's lower bound gives the gap)",
    reference="Liang & Yuan Sec. 2 (suppressors; models closed under union)",
)
STARTS = ("auto", "rows", "pattern-packing", "diverse", "levels", "distinct-levels", "tree")
"""The start partitions (:func:`initial_plan`)."""
RULES = ("cost", "spread")
"""Partner rules when no judged merge repairs the class (module docstring, step 2)."""


@dataclass(frozen=True)
class Settings:
    """The options of :func:`solve` (see there)."""

    start: str | tuple[str, ...] = "auto"
    start_k: int | None = None
    start_lp_levels: int = 3
    level_lp_levels: int = LEVEL_LP_LEVELS
    distinct_lp_levels: int = DISTINCT_LP_LEVELS
    distinct_joint: bool = True
    frequency_joint: bool = True
    width: int = 256
    rules: tuple[str, ...] = RULES
    h: int = 64
    full_scan: int = 20_000
    donors: int = 32
    eject: bool = True
    refine: bool = True
    carve: bool = True
    moves: bool = True
    flow_rounds: int = FLOW_ROUNDS
    t_flow_rounds: int = 0
    workers: int | None = None

    @classmethod
    def of(cls, options: dict[str, Any]) -> Settings:
        """Checked settings; ``InvalidInput`` names a bad option and the fix."""
        names = set(cls.__dataclass_fields__)
        unknown = set(options) - names
        if unknown:
            raise InvalidInput(f"unknown option(s) {sorted(unknown)} for {NAME}: use "
                               f"{', '.join(sorted(names))}")
        rules = options.get("rules", RULES)
        start = options.get("start", "auto")
        opts = dict(options, rules=(rules,) if isinstance(rules, str) else tuple(rules),
                    start=start if isinstance(start, str) else tuple(start))
        for name, value in opts.items():  # a flag true or false, a count a whole number
            default = cls.__dataclass_fields__[name].default
            if isinstance(default, bool) and not isinstance(value, bool | np.bool_):
                raise InvalidInput(f"{NAME}: {name} must be true or false, got {value!r}")
            if (isinstance(default, int) and not isinstance(default, bool)
                    and (isinstance(value, bool | np.bool_)
                         or not isinstance(value, int | np.integer))):
                raise InvalidInput(f"{NAME}: {name} must be a whole number, got {value!r}: "
                                   f"use e.g. {name}={default}")
        st = cls(**opts)
        if not st.starts or any(x not in STARTS for x in st.starts):
            raise InvalidInput(f"unknown start {st.start!r} for {NAME}: use "
                               f"{', '.join(STARTS)} (or several of them)")
        for name, default in (("level_lp_levels", LEVEL_LP_LEVELS),
                              ("distinct_lp_levels", DISTINCT_LP_LEVELS)):
            if getattr(st, name) < 0:
                raise InvalidInput(f"{name} must be >= 0, got {getattr(st, name)}: use e.g. "
                                   f"{name}={default} (0: the greedy alone)")
        for name in ("flow_rounds", "t_flow_rounds"):
            if int(getattr(st, name)) < 0:
                raise InvalidInput(f"{name} must be >= 0, got {getattr(st, name)}: use e.g. "
                                   f"{name}={FLOW_ROUNDS} (0: no flow polish)")
        if st.donors < 0:
            raise InvalidInput(f"donors must be >= 0, got {st.donors}: use e.g. donors=32")
        for name in ("width", "h"):
            if int(getattr(st, name)) < 1:
                raise InvalidInput(f"{name} must be >= 1, got {getattr(st, name)}: use e.g. "
                                   f"{name}=64")
        if not st.rules or any(r not in RULES for r in st.rules):
            raise InvalidInput(f"rules must name some of {', '.join(RULES)}, got "
                               f"{st.rules!r}: use e.g. rules=('cost',)")
        w = st.workers
        if w is not None and (isinstance(w, bool | np.bool_) or not isinstance(w, int | np.integer)
                              or w < 1):
            raise InvalidInput(f"{NAME}: workers must be a whole number >= 1, got {w!r}: use "
                               "e.g. workers=1 (the starts one after the other)")
        return st

    @property
    def starts(self) -> tuple[str, ...]:
        """The start partitions to run, each with every rule (the best release is kept)."""
        return (self.start,) if isinstance(self.start, str) else self.start


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None``: every model of :mod:`starmin.models` is closed under union of classes."""
    return None


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """A release satisfying ``model`` (heuristic; see the module docstring).

    Options: ``start`` (``"auto"`` default: ``"diverse"`` for frequency l-diversity, else
    ``"pattern-packing"``; ``"rows"``: the row types; ``"pattern-packing"``; ``"diverse"``;
    ``"levels"`` (:mod:`._level_start`); ``"distinct-levels"``: distinct l-diversity's level
    start for the model's ``l``, for the models frequency l-diversity implies on one
    sensitive column (:func:`implied_suits`); ``"tree"`` (:mod:`._tree_start`, stop 59): a
    split tree and one LP placing every row on it, for frequency l-diversity and the models it
    implies on one sensitive column; several names: each runs, the best release is kept;
    ``"auto"`` for frequency l-diversity on one sensitive column runs ``"levels"``,
    ``"diverse"`` and ``"tree"``, for entropy l-diversity with ``l >= ENTROPY_DISTINCT_MIN_L``
    ``"distinct-levels"`` and ``"pattern-packing"``, for distinct, entropy and recursive
    (c > 1) l-diversity otherwise ``"levels"`` and
    ``"pattern-packing"``),
    ``start_k`` (the class size pattern-packing starts from; default
    :func:`._start.start_size`), ``start_lp_levels`` (the levels with a bucket LP in that start,
    default 3; 0: the greedy levels only), ``level_lp_levels`` (the levels of the level start
    whose classes the placement LP of :mod:`._level_lp` forms first, for frequency l-diversity
    and the models it implies, and of :mod:`._close_lp` for t-closeness under the equal
    distance or a matrix, at level 1 only; default 2; 0: the greedy alone),
    ``distinct_lp_levels`` (the same for the LP of :mod:`._distinct_lp`, distinct
    l-diversity alone; default every level; 0: the greedy alone), ``distinct_joint`` (default
    True: that module's joint LP decides levels 1 and 2 together first, when
    ``distinct_lp_levels >= 2``), ``frequency_joint`` (default True: for frequency,
    entropy and recursive l-diversity with ``l >= 3`` the level start's levels 1 and 2 are
    decided together first by the joint LP of :mod:`._frequency_joint`, when
    ``level_lp_levels >= 2``), ``width``
    (partners judged per
    merge, default 256), ``rules`` (partner rules, each a full repair, the best release kept;
    default ``("cost", "spread")``), ``donors`` (partners a class may pull rows from, default
    32; 0: no pulls), ``eject`` (default True), ``h`` and ``full_scan`` (partners are sought
    among ``h`` neighbours per sort order while more than ``full_scan`` classes are alive, among
    all classes after; defaults 64 and 20,000), ``refine``, ``carve`` and ``moves`` (the three
    polishing steps, default True), ``flow_rounds`` (default 4; 0: none; after them, for
    frequency l-diversity alone or with ``k <= l`` on one sensitive column, at most that many
    cycles of a flow round of :mod:`._flow_polish` and carving), ``t_flow_rounds`` (the same
    for t-closeness under the equal distance, alone or with k-anonymity; default 0, off: on
    ARX adult it saves 0.3-1.3 % of the stars for 2-4 s more, on adult repeated to 1M rows
    1.2 % for 13 CPU s more, twice the solve), ``workers`` (starts run at once, the second
    in a child process, :func:`start_workers`; default ``None``: two on tables of at least
    :data:`BESIDE_MIN_TYPES` row types when two CPUs are usable; the release is the same for
    any number). Deterministic for a given ``seed`` (it only breaks ties).
    Raises ``Infeasible`` when no release satisfies the model and ``InvalidInput`` for a bad
    option.
    """
    say = progress or silent
    st = settings(model, options)
    check_feasible(model, rt)
    t0 = time.perf_counter()
    judge = make_judge(model, rt)
    names: list[str] = []
    for name in st.starts:
        names += [x for x in expand_start(name, model, rt) if x not in names]
    cert: dict[str, Any] = {"seed": seed, "starts": {}}
    best: ReleasePlan | None = None
    floor = class_floor(model, rt)
    flow = flow_limits(model, rt, floor)
    for run in _start_runs(rt, model, st, seed, names, judge, floor, flow, say, t0):
        if best is None or run.plan.stars < best.stars:
            best = run.plan
            cert.update(run.mine, rule=run.rule)
        cert["starts"][run.start] = min(r["stars"] for r in run.mine["rules"].values())
    assert best is not None
    best.validate(rt)
    if not holds(model, rt, best.class_key_counts(rt.s)).all():
        raise StarminError(f"internal error: {NAME} produced a class that fails "
                           f"{model.name}; please report this as a bug")
    whole = whole_table_plan(rt)
    if whole.stars < best.stars:
        best, cert["rule"] = whole, "whole table"
    return best.with_info(method=NAME, guarantee=GUARANTEE, certificate=cert)


def settings(model: PrivacyModel, options: dict[str, Any]) -> Settings:
    """The checked settings of a run on ``model`` (:meth:`Settings.of`), as every start
    takes them: ``flow_rounds`` is frequency l-diversity's; for the other models the flow
    polish (t-closeness's) runs only when ``t_flow_rounds`` asks."""
    st = Settings.of(options)
    return st if diverse_suits(model) else replace(st, flow_rounds=st.t_flow_rounds)


@dataclass(frozen=True)
class StartRun:
    """One start's repairs: its certificate entry ``mine`` (start, its size, and each rule's
    merges, pulls and stars), its best release over the rules (ties: the earlier rule) and
    that rule."""

    start: str
    mine: dict[str, Any]
    plan: ReleasePlan
    rule: str


def run_start(rt: RowTypes, model: PrivacyModel, st: Settings, seed: int, name: str,
              judge: Judge, floor: int, flow: Limits | None, say: Progress,
              t0: float) -> StartRun:
    """Start ``name``, then each partner rule's repair and polish (module docstring, steps
    1-3); a rule that would repeat an earlier rule's merges is not run again."""
    start, start_plan = initial_plan(rt, model, st, seed, judge, say, name)
    say(f"{NAME}: start {start}: {start_plan.t_out} classes, {start_plan.stars} stars "
        f"({time.perf_counter() - t0:.2f} s)")
    mine: dict[str, Any] = {"start": start, "start_classes": start_plan.t_out,
                            "start_stars": start_plan.stars, "rules": {}}
    same: dict[str, str] = {}  # a rule -> an earlier rule whose merges it would repeat
    best: tuple[ReleasePlan, str] | None = None
    for rule in st.rules:
        if rule in same:
            mine["rules"][rule] = dict(mine["rules"][same[rule]], same_as=same[rule])
            say(f"{NAME}: start {start}, rule {rule}: the same merges as rule "
                f"{same[rule]}, so the same release (not run again)")
            continue
        t1 = time.perf_counter()
        members = Members(rt.codes, start_plan.out_idx, start_plan.type_idx,
                          start_plan.key_idx, start_plan.count, start_plan.t_out)
        cls = Classes(start_plan.outputs, start_plan.class_key_counts(rt.s), members, judge)
        tie = np.random.default_rng(seed).permutation(cls.G).astype(np.int64)
        later = tuple(r for r in st.rules if r not in mine["rules"] and r != rule)
        for r in repair(cls, rt, st, tie, rule, say, later):
            same[r] = rule
        repaired = cls.stars
        plan = polish(rt, cls.groups(), judge, st, floor, flow)
        mine["rules"][rule] = {"merges": cls.merges, "pulls": cls.pulls,
                               "repaired_stars": repaired, "stars": plan.stars}
        say(f"{NAME}: start {start}, rule {rule}: {cls.merges} merges, {repaired} stars, "
            f"polished {plan.stars} ({time.perf_counter() - t1:.2f} s)")
        if best is None or plan.stars < best[0].stars:
            best = (plan, rule)
    assert best is not None
    return StartRun(start, mine, best[0], best[1])


def run_start_alone(rt: RowTypes, model: PrivacyModel, st: Settings, seed: int, name: str,
                    say: Progress) -> StartRun:
    """:func:`run_start` with its own judge, class floor and flow limits (what a second
    process runs, :mod:`._start_worker`); ``st`` from :func:`settings`, as :func:`solve`
    passes it on."""
    floor = class_floor(model, rt)
    return run_start(rt, model, st, seed, name, make_judge(model, rt), floor,
                     flow_limits(model, rt, floor), say, time.perf_counter())


BESIDE_MIN_TYPES = 2_000
"""Fewest row types at which a start runs in a second process by default (``workers``): the
child's start-up (a fresh interpreter importing starmin, numpy and SciPy) is about 1 s, more
than a start costs on smaller tables."""


def start_workers(st: Settings, rt: RowTypes, starts: int) -> int:
    """How many of ``starts`` run at once: the ``workers`` option, else (``None``) two when
    the table has at least :data:`BESIDE_MIN_TYPES` row types, this process may use two CPUs
    and the environment variable ``STARMIN_WORKERS`` does not say ``1``; never more than the
    starts."""
    if st.workers is not None:
        return max(1, min(int(st.workers), starts))
    env = os.environ.get("STARMIN_WORKERS", "").strip()
    if env:
        if not env.isdigit() or int(env) < 1:
            raise InvalidInput(f"STARMIN_WORKERS must be a whole number >= 1, got {env!r}: "
                               "use e.g. STARMIN_WORKERS=1 (one process) or unset it")
        return max(1, min(int(env), starts))
    if rt.t_in < BESIDE_MIN_TYPES:
        return 1
    return max(1, min(2, usable_cpus(), starts))


def _start_runs(rt: RowTypes, model: PrivacyModel, st: Settings, seed: int,
                names: list[str], judge: Judge, floor: int, flow: Limits | None,
                say: Progress, t0: float) -> list[StartRun]:
    """Each start's run, in the order of ``names``. With ``w`` workers
    (:func:`start_workers`) the 2nd to ``w``-th start run in child processes
    (:mod:`._beside`) while this process runs the first; a child that fails is run here.
    The runs are the same either way (nothing depends on timing), so the release is."""
    w = start_workers(st, rt, len(names))
    beside: dict[str, Beside] = {}
    try:
        for name in names[1:w]:
            beside[name] = Beside((JOB_KIND, rt, model, st, seed, name))
        if beside:
            say(f"{NAME}: start(s) {', '.join(beside)} in a second process beside "
                f"start {names[0]}")
        runs: list[StartRun] = []
        for name in names:
            child = beside.get(name)
            got = None if child is None else child.result()
            if got is None:
                if child is not None:
                    say(f"{NAME}: start {name}: {child.failure}; running it here")
                runs.append(run_start(rt, model, st, seed, name, judge, floor, flow, say, t0))
                continue
            run, lines = got
            for line in lines:
                say(f"{line} [second process]")
            runs.append(run)
        return runs
    finally:
        for child in beside.values():
            child.close()


def make_judge(model: PrivacyModel, rt: RowTypes) -> Judge:
    """:func:`starmin.models.apply.holds`, compiled once for the table
    (:func:`._judge.compile_judge`; the same verdicts as :func:`generic_judge`)."""
    return compile_judge(model, rt)


def generic_judge(model: PrivacyModel, rt: RowTypes) -> Judge:
    """:func:`starmin.models.apply.holds` with the whole table's histograms computed once (the
    definition :func:`make_judge` is tested against)."""
    overall = [tot[0] for tot in rt.sensitive_histograms(rt.counts.sum(axis=0))]
    values = rt.sensitive_values()

    def judge(key_counts: IntArray) -> NDArray[np.bool_]:
        ok = np.ones(key_counts.shape[0], dtype=bool)
        for hist, tot, vals in zip(rt.sensitive_histograms(key_counts), overall, values,
                                   strict=True):
            ok &= model.evaluate(hist, tot, vals).ok
        return ok | (key_counts.sum(axis=1) == 0)

    return judge


def expand_start(name: str, model: PrivacyModel, rt: RowTypes) -> tuple[str, ...]:
    """The starts option ``name`` stands for: ``"auto"`` is ``"levels"``, ``"diverse"`` and
    (since stop 59) ``"tree"`` (each runs, the best release kept) where :func:`level_suits`,
    else one start chosen in
    :func:`initial_plan`. ``InvalidInput`` when ``"levels"`` is asked for a table wider than
    :data:`LEVEL_MAX_M` columns (or with none)."""
    if name == "auto" and level_suits(model, rt):
        return ("levels", "diverse", "tree")
    if name == "auto" and implied_suits(model, rt) and distinct_start_prefers(model):
        return ("distinct-levels", "pattern-packing")
    if name == "auto" and (implied_suits(model, rt) or close_suits(model, rt)):
        return ("levels", "pattern-packing")
    if name == "distinct-levels" and not implied_suits(model, rt):
        raise InvalidInput(f"start 'distinct-levels' of {NAME} is distinct l-diversity's "
                           f"level start: it takes distinct, entropy or recursive (c > 1) "
                           f"l-diversity alone on one sensitive column and 1 to "
                           f"{LEVEL_MAX_M} QI columns, not {model.name} on "
                           f"{len(rt.sensitive)} sensitive and {rt.m} QI column(s): use "
                           f"start='auto'")
    if name == "tree" and level_l(model, rt) is None:
        raise InvalidInput(f"start 'tree' of {NAME} places rows by an LP of frequency "
                           f"l-diversity: it takes frequency l-diversity or a model it implies "
                           f"(distinct, entropy, recursive (c > 1) l-diversity) on one "
                           f"sensitive column, not {model.name} on {len(rt.sensitive)} "
                           f"sensitive column(s): use start='auto'")
    if name in ("levels", "tree") and not 0 < rt.m <= LEVEL_MAX_M:
        raise InvalidInput(f"start '{name}' of {NAME} takes 1 to {LEVEL_MAX_M} QI columns, "
                           f"not {rt.m}: use start='auto'")
    return (name,)


def level_suits(model: PrivacyModel, rt: RowTypes) -> bool:
    """Whether ``start="auto"`` runs the level start (:mod:`._level_start`) beside the diverse
    start: the diverse start's models (:func:`diverse_suits`), one sensitive column, ``m <=
    16``. On ARX adult (8 QIs, occupation) it released 3.5 / 11.5 / 11 % fewer stars than the
    diverse start for frequency l = 2 / 3 / 4, and 4-7 % more for l = 5 and 6 (before its
    placement LP). The models frequency l-diversity implies run it beside pattern-packing's
    start (:func:`implied_suits`); ``start="levels"`` takes any model, taking whole pools the
    model's judge passes for the others (on adult, k = 5 with p = 3, rule ``spread``: 21,908
    stars against ``auto``'s 21,424)."""
    return diverse_suits(model) and len(rt.sensitive) == 1 and 0 < rt.m <= LEVEL_MAX_M


def implied_suits(model: PrivacyModel, rt: RowTypes) -> bool:
    """Whether ``start="auto"`` runs the level start beside pattern-packing's: the model is
    implied by frequency l-diversity (:func:`implied_l`), one sensitive column, ``m <= 16``.
    On ARX adult (8 QIs, occupation, rule ``spread``; stop 29) the level start with phase one
    and the placement LP released 4.1 / 2.9 / 3.8 / 4.6 % fewer stars than ``auto``'s
    pattern-packing start for distinct l = 2 / 3 / 4 / 6, 10.0 / 6.8 % fewer for entropy
    l = 2 / 3 (0.2 % more for l = 4) and 5.7 % fewer for recursive (4, 3), in 1.6-4.1 CPU s."""
    return implied_l(model) is not None and len(rt.sensitive) == 1 and 0 < rt.m <= LEVEL_MAX_M


ENTROPY_DISTINCT_MIN_L = 4
"""From this ``l`` on, entropy l-diversity's level start is distinct l-diversity's
(:func:`distinct_start_prefers`)."""


def distinct_start_prefers(model: PrivacyModel) -> bool:
    """Whether ``start="auto"`` (and ``auto``'s ladder, :func:`auto_run`) starts from distinct
    l-diversity's level start (``"distinct-levels"``) instead of frequency's: entropy
    l-diversity with ``l >= ENTROPY_DISTINCT_MIN_L``. Its classes hold ``l`` values, not
    always entropy ``log l``; the repair merges those that fall short. Measured (stop 50; the
    level start with the joint LP against distinct's, rule ``spread``, repaired and polished):
    entropy l = 4 on ARX adult (8 QIs, occupation) 27,344 -> 26,976 stars, on its first 2,000 /
    5,000 / 10,000 rows 3,590 / 7,326 / 12,204 -> 3,388 / 7,153 / 11,965, on uniform random
    tables of 3,000 x 6 QIs x 4 values and 5,000 x 8 x 3 (a Zipf-like sensitive column of 12 and
    10 values) 9,409 / 21,491 -> 8,328 / 18,584; l = 5 on adult's first 2,000 rows 4,149 ->
    3,915. For l = 3 it was mixed (adult 20,501 -> 20,948, its first 2,000 and 5,000 rows +0.9
    and +2.4 %; the two random tables -12 and -13 %) and for l = 2 worse (+4 and +10 %)."""
    from starmin.models.l_diversity import EntropyLDiversity

    return isinstance(model, EntropyLDiversity) and int(model.l) >= ENTROPY_DISTINCT_MIN_L


def close_suits(model: PrivacyModel, rt: RowTypes) -> bool:
    """Whether ``start="auto"`` runs the level start, with the largest t-close part of each
    pool (:mod:`._close_part`; the model's judge checks every part), beside
    pattern-packing's: the model is t-closeness or a conjunction with it, one sensitive
    column, ``m <= 16``. On ARX adult (8 QIs, occupation, rule ``spread``; stop 32) the level start
    released 7.5-10.5 % fewer stars than ``auto``'s pattern-packing start for t = 0.1, 0.15
    and 0.2 under the equal and hierarchical distances (3.9 % for hierarchical t = 0.2),
    0.5 % fewer for t = 0.5 and 3.6-5.0 % more for t = 0.3, so both starts run. Not under a
    matrix distance, whose verdict is one LP per class (:mod:`._judge`) and the close parts'
    search judges every pool several times per pattern: Liang & Yuan Thm 7's planted table of
    40 rows took 4.6 CPU s instead of 1.4, for the same stars."""
    from starmin.models.matrix_distance import MatrixDistance
    from starmin.models.t_closeness import TCloseness

    if any(isinstance(p, TCloseness) and isinstance(p.distance, MatrixDistance)
           for p in parts(model)):
        return False
    return has_t_closeness(model) and len(rt.sensitive) == 1 and 0 < rt.m <= LEVEL_MAX_M


def implied_l(model: PrivacyModel) -> int | None:
    """``l`` when every class satisfying frequency l-diversity satisfies ``model``: distinct
    l-diversity (no value above ``1 / l`` needs ``l`` values), entropy l-diversity (the
    entropy is at least ``-log`` of the largest share, so ``>= log l``) and recursive
    (c, l)-diversity with ``c > 1`` (the values after the ``l - 1`` largest hold ``>= n / l``
    rows, at least the largest ``r_1``, so ``c`` times them exceeds ``r_1``), each alone;
    else ``None``."""
    from starmin.models.l_diversity import (
        DistinctLDiversity,
        EntropyLDiversity,
        RecursiveCLDiversity,
    )

    if isinstance(model, DistinctLDiversity | EntropyLDiversity):
        return int(model.l)
    if isinstance(model, RecursiveCLDiversity) and model.c > 1:
        return int(model.l)
    return None


def distinct_only(model: PrivacyModel) -> bool:
    """Whether the level start's placement LPs are those of distinct l-diversity
    (:mod:`._distinct_lp`): the model is distinct l-diversity alone. On ARX adult (8 QIs,
    occupation, rule ``spread``) distinct l = 2..6 released 1.0-2.4 % fewer stars with them
    than with frequency l-diversity's LPs, in half the CPU time."""
    from starmin.models.l_diversity import DistinctLDiversity

    return isinstance(model, DistinctLDiversity)


def capped_parts(model: PrivacyModel) -> bool:
    """Whether the level start keeps, of a pool failing ``model``, its widest capped part
    ``min(pool, h)`` the model passes (:func:`._level_start._widest_cap`) instead of the
    largest l-eligible part: entropy l-diversity and recursive (c, l)-diversity, whose
    passing caps are ``1 .. h*`` (proofs there). On ARX adult (8 QIs, occupation, rule
    ``spread``) recursive (4, 3): 19,496 -> 19,278 stars."""
    from starmin.models.l_diversity import EntropyLDiversity, RecursiveCLDiversity

    return isinstance(model, EntropyLDiversity | RecursiveCLDiversity)


LEVEL_MAX_M = 16
"""Widest table the level start takes (it enumerates every pattern of ``m`` columns)."""


def level_l(model: PrivacyModel, rt: RowTypes) -> int | None:
    """The ``l`` whose largest l-eligible parts (TP's phase one) and placement LPs the level
    start may use, on one sensitive column: frequency l-diversity's when the model is the
    diverse start's (:func:`diverse_suits`), or the ``l`` of a model frequency l-diversity
    implies (:func:`implied_l`); else ``None`` (the start then takes whole pools the model's
    judge passes)."""
    from starmin.models.l_diversity import LDiversity

    if len(rt.sensitive) != 1:
        return None
    if not diverse_suits(model):
        return implied_l(model)
    return max(int(p.l) for p in parts(model) if isinstance(p, LDiversity))


def initial_plan(rt: RowTypes, model: PrivacyModel, st: Settings, seed: int, judge: Judge,
                 say: Progress, start: str = "auto") -> tuple[str, ReleasePlan]:
    """The start partition as a plan: the row types; the level start (:mod:`._level_start`);
    the diverse start (:mod:`._diverse_start`), which ``auto`` takes for frequency l-diversity
    (:func:`diverse_suits`); or pattern-packing's classes for the start size
    (:func:`._start.start_size` unless ``start_k`` is given), with the sensitive keys of split
    row types spread over their classes (:func:`._start.spread_keys`)."""
    k = start_size(model, rt, judge) if st.start_k is None else int(st.start_k)
    if st.start_k is None and k >= 2 and has_t_closeness(model):
        k *= copies(rt)
    if start == "rows" or (start == "auto" and k <= 1):
        return "rows", row_type_plan(rt, NAME, GUARANTEE)
    if start == "distinct-levels":  # distinct l-diversity's level start, then this repair
        from starmin.models.l_diversity import DistinctLDiversity

        l = implied_l(model)
        assert l is not None  # expand_start refused the others
        distinct_model = DistinctLDiversity(l)
        return start, initial_plan(rt, distinct_model, st, seed,
                                   make_judge(distinct_model, rt), say, "levels")[1]
    if start == "tree":  # expand_start admits it only with level_l
        from starmin.algorithms.heuristic._level_start import _part
        from starmin.algorithms.heuristic._tree_start import tree_plan

        l = level_l(model, rt)
        assert l is not None
        plan = tree_plan(rt, partial(_part, judge=judge, l=l, widen=capped_parts(model)), l,
                         class_floor(model, rt), NAME, GUARANTEE)
        if plan is not None:
            return "tree", plan
        say(f"{NAME}: start tree: its LP is over its work limits or has no optimum; the "
            f"level start instead")
        start = "levels"
    if start == "levels":
        from starmin.algorithms.heuristic._close_lp import close_spec
        from starmin.algorithms.heuristic._level_start import level_plan

        l = level_l(model, rt)
        distinct = distinct_only(model) and len(rt.sensitive) == 1
        lp_levels = st.distinct_lp_levels if distinct else st.level_lp_levels
        return "levels", level_plan(rt, judge, l, NAME, GUARANTEE, lp_levels,
                                    widen=capped_parts(model),
                                    close=close_spec(model, rt) if l is None else None,
                                    distinct=distinct,
                                    joint=st.distinct_joint if distinct else st.frequency_joint)
    if start == "diverse" or (start == "auto" and diverse_suits(model)):
        from starmin.algorithms.heuristic._diverse_start import diverse_plan

        return "diverse", diverse_plan(rt, judge, k, NAME, GUARANTEE)
    from starmin.algorithms.heuristic.pattern_packing import pack

    k = min(max(k, 2), rt.n)
    plan = pack(rt, k, seed=seed, lp_levels=st.start_lp_levels, progress=say).to_plan(
        rt, NAME, GUARANTEE, None, {})
    return f"pattern-packing k={k}", spread_keys(rt, plan)


def has_t_closeness(model: PrivacyModel) -> bool:
    """Whether ``model`` is t-closeness or a conjunction with it. Its start size (the
    smallest table-shaped class that satisfies it) counts rows; on a table whose row types
    hold ``c`` rows each (:func:`._start.copies`) the start then aims at that many row types
    of ``c`` rows, ``k c`` rows, instead of classes of one row type each that all violate the
    model. Adult repeated to 1M rows (``c = 33``), ``--t 0.2``: 3,153,899 stars in 6 CPU s
    against 3,272,666 in 23-30 with ``k = 7``; on ARX adult ``c = 1`` (unchanged)."""
    from starmin.models.t_closeness import TCloseness

    return any(isinstance(p, TCloseness) for p in parts(model))


def diverse_suits(model: PrivacyModel) -> bool:
    """Whether ``start="auto"`` takes the diverse start: the model is frequency l-diversity,
    alone or with k-anonymity for a ``k`` no larger than ``l``. Measured on ARX adult (8 QIs,
    occupation; docs/algorithms/merge-repair.md), that start gave 3-21 % fewer stars than
    pattern-packing's for frequency l = 2..6, but 43 % more for ``k = 5`` with ``l = 3``
    (it grows classes of ``k`` distinct values where 3 values twice would do), and more for
    distinct, entropy and recursive l-diversity and t-closeness, which keep pattern-packing's."""
    from starmin.models.k_anonymity import KAnonymity
    from starmin.models.l_diversity import LDiversity

    each = parts(model)
    ls = [p.l for p in each if isinstance(p, LDiversity)]
    ks = [p.k for p in each if isinstance(p, KAnonymity)]
    return (bool(ls) and len(ls) + len(ks) == len(each)
            and max(ks, default=1) <= min(ls))


def whole_table_plan(rt: RowTypes) -> ReleasePlan:
    """The whole table as one class, released as its suppressor."""
    t_idx, k_idx = np.nonzero(rt.counts)
    return ReleasePlan.from_groups(rt, [(t_idx, k_idx, rt.counts[t_idx, k_idx])], NAME,
                                   GUARANTEE)


def repair(cls: Classes, rt: RowTypes, st: Settings, tie: IntArray, rule: str,
           say: Progress, others: tuple[str, ...] = ()) -> set[str]:
    """Merge violating classes, smallest first, until none is left (module docstring, 2).

    Returns the rules of ``others`` that would have taken every merge partner this run took.
    The rules differ only there (:func:`choose_partner`), and everything else is
    deterministic, so the same repair under such a rule would make the same steps from the
    same start and end in the same classes."""
    agree = set(others)
    q = rt.counts.sum(axis=0) / max(rt.n, 1)                   # (s,) the table's distribution
    heap = [(int(cls.n[a]), int(tie[a]), a) for a in cls.violating.tolist()]
    heapq.heapify(heap)
    say(f"{NAME}: {len(heap)} of {cls.live_count} classes violate the model")
    meter = Meter(say, f"{NAME}: repair", "steps", note=lambda: (
        f"{cls.merges:,} merges, {cls.live_count:,} classes, {len(cls.violating):,} violating, "
        f"{cls.stars:,} stars"))
    steps = 0
    while heap:
        steps += 1
        meter.tick(steps)
        size, _, a = heapq.heappop(heap)
        if not cls.alive[a] or cls.ok[a] or size != cls.n[a]:
            continue
        b, window, eff, differ = choose_partner(cls, a, st, tie, q, rule,
                                                tuple(r for r in others if r in agree))
        pull = best_pull(cls, a, window[: st.donors], q) if st.donors else None
        eject = best_eject(cls, a, window, q) if st.eject else None
        if eject is not None and eject[0] < min(eff, pull[0] if pull else np.inf):
            touched = [a]
            for home, moves in eject[1]:
                if cls.alive[a] and cls.alive[home]:  # a pull may absorb a class of
                    touched.append(cls.pull(home, moves))   # equal vector
        elif pull is not None and pull[0] < eff:
            touched = [cls.pull(a, pull[1])]
        else:
            touched = [cls.merge(a, b)]
            agree -= differ
        for c in touched:
            if cls.alive[c] and not cls.ok[c]:
                heapq.heappush(heap, (int(cls.n[c]), int(tie[c]), c))
    return agree


def choose_partner(cls: Classes, a: int, st: Settings, tie: IntArray,
                   q: NDArray[np.float64], rule: str, others: tuple[str, ...] = ()
                   ) -> tuple[int, IntArray, float, frozenset[str]]:
    """The class ``a`` merges with (module docstring, step 2), the window and the price of
    the merge, and the rules of ``others`` that would take another partner.

    The window: the ``width`` cheapest partners by added stars, then by the total variation
    distance ``tv`` of the merged sensitive distribution from the table's ``q``. Among them,
    merges that satisfy the model win (fewest added stars per repaired class, a violating
    partner counting twice); if none does, rule ``cost`` takes the fewest added stars per
    violating class removed and rule ``spread`` the smallest ``tv``. Only that last choice
    depends on the rule: the window and the price (infinite then) do not.
    """
    ids = cls.neighbours(a, st.h) if cls.live_count > st.full_scan else np.zeros(0, np.int64)
    if len(ids):
        cost = cls.costs_to(a, ids)
    else:
        ids, cost = cls.merge_costs(a)
        live = cost < BIG
        ids, cost = ids[live], cost[live]
    width = st.width
    if len(ids) > width:                                   # the window: cheapest, with ties
        cut = np.partition(cost, width - 1)[width - 1]
        sel = np.flatnonzero(cost <= cut)
        if len(sel) > 8 * width:
            sel = sel[first_stable(tie[ids[sel]], 8 * width)]
        ids, cost = ids[sel], cost[sel]
    merged = cls.merged_counts(a, ids)                                   # (w, s)
    size = (cls.n[ids] + cls.n[a]).astype(np.float64)[:, None]          # = merged row sums
    tv = np.abs(merged / size - q).sum(axis=1) / 2
    order = np.lexsort((tie[ids], tv, cost))[:width]
    ids, cost, tv = ids[order], cost[order], tv[order]
    ok = cls.judge(merged[order])
    eff = cost / (1.0 + ~cls.ok[ids])                     # a violating partner: two repaired
    differ: frozenset[str] = frozenset()
    if ok.any():
        pool = np.flatnonzero(ok)
        best = pool[np.lexsort((tie[ids[pool]], tv[pool], eff[pool]))[0]]
    else:
        tid = tie[ids]
        pick = {r: int(np.lexsort((tid, tv, eff) if r == "cost" else (tid, eff, tv))[0])
                for r in (rule, *others)}
        best = pick[rule]
        differ = frozenset(r for r in others if pick[r] != best)
    return int(ids[best]), ids, float(eff[best]) if ok[best] else float("inf"), differ


def polish(rt: RowTypes, classes: list[Entries], judge: Judge, st: Settings,
           k: int = 1, limits: Limits | None = None) -> ReleasePlan:
    """Split refinement (:mod:`._split_refine`), carving (:mod:`._carve`), then move
    refinement (:mod:`._moves`), then, given the flow polish's ``limits``
    (:func:`flow_limits`), up to ``st.flow_rounds`` cycles of one flow round of
    :mod:`._flow_polish` and carving, while a cycle saves at least
    :data:`._flow_polish.GAIN` of the stars. ``k``: the fewest rows of a class satisfying
    the model (:func:`class_floor`), which carving uses to skip classes and parts.

    A partition with no star is returned as it is: every step only lowers the stars, and a
    release without stars is one plan whatever the partition (every class's suppressor is its
    row type, and equal output vectors are one class), so polishing could not change it."""
    flow = st.flow_rounds > 0 and limits is not None
    plan = ReleasePlan.from_groups(rt, classes, NAME, GUARANTEE)
    if plan.stars == 0 or not (st.refine or st.carve or st.moves or flow):
        return plan
    if st.refine:
        classes = refine(rt, classes, judge)
    if st.carve:
        classes = carve(rt, classes, judge, k)
    if st.moves:
        classes = improve(rt, classes, judge)
        if st.carve:  # moves leave classes that carve anew (adult, t = 0.1: -1.7 %)
            classes = carve(rt, classes, judge, k)
    if flow:
        assert limits is not None
        stars = ReleasePlan.from_groups(rt, classes, NAME, GUARANTEE).stars
        for _ in range(st.flow_rounds):  # a flow round, then carving the classes it left
            classes = flow_polish(rt, classes, judge, limits, 1)
            if st.carve:
                classes = carve(rt, classes, judge, k)
            now = ReleasePlan.from_groups(rt, classes, NAME, GUARANTEE).stars
            if now > stars * (1 - FLOW_GAIN):  # this cycle gained too little: the last
                break
            stars = now
    return ReleasePlan.from_groups(rt, classes, NAME, GUARANTEE)


def flow_limits(model: PrivacyModel, rt: RowTypes, k: int = 1) -> Limits | None:
    """The flow polish's limits (:mod:`._flow_polish`) on one sensitive column: frequency
    l-diversity's when the model is the diverse start's (:func:`diverse_suits`); t-closeness's
    under the equal distance, alone or with k-anonymity, every floor at least ``k``
    (:func:`class_floor`); else ``None`` (no flow polish)."""
    from starmin.models.distances import EqualDistance
    from starmin.models.k_anonymity import KAnonymity
    from starmin.models.t_closeness import TCloseness

    if len(rt.sensitive) != 1 or not np.array_equal(rt.keys[:, 0],
                                                    np.arange(rt.s, dtype=rt.keys.dtype)):
        return None
    if diverse_suits(model):
        l = level_l(model, rt)
        return None if l is None else frequency_limits(l)
    held = parts(model)
    t = [p for p in held if isinstance(p, TCloseness)]
    if (len(t) == 1 and isinstance(t[0].distance, EqualDistance)
            and all(isinstance(p, TCloseness | KAnonymity) for p in held)):
        return closeness_limits(rt.counts.sum(axis=0), t[0].t_exact, k)
    return None


def class_floor(model: PrivacyModel, rt: RowTypes) -> int:
    """The fewest rows any class satisfying ``model`` holds: the implied ``k``
    (:func:`starmin.models.combine.implied_k`) or the fewest rows of a t-close class
    (:func:`starmin.algorithms.t_closeness_bound.t_class_floor`), the larger."""
    from starmin.algorithms.t_closeness_bound import t_class_floor

    return max(implied_k(model), t_class_floor(rt, model))


REPAIR_FACTOR = {"DistinctLDiversity": 0.35, "PSensitiveKAnonymity": 0.1, "TCloseness": 0.7}
"""Repair work of a model family relative to frequency l-diversity's, measured on adult (8 QIs,
occupation): distinct l-diversity about 3 x less, p-sensitive k-anonymity 10 x less,
t-closeness about 1.4 x less at ``k = 2``; entropy and recursive l-diversity alike."""
REPAIR_K_POWER = {"TCloseness": 0.0}
"""The power of the start size ``k`` in :func:`repair_work` (0.75 unless named). t-closeness's
repair does not grow with ``k``: on adult (8 QIs, occupation, rule ``spread``, stop 32) it
took 1.5-1.9 CPU s for start sizes 4 to 15 (t = 0.5 to 0.1, equal and hierarchical
distance), where ``k^0.75`` had estimated 5.9-15.9 units."""


def repair_work(model: PrivacyModel, rt: RowTypes, k: int) -> float:
    """Estimated work units of one rule's repair and polish: ``3e-5 x t_in x m x k^0.75`` times
    the model's :data:`REPAIR_FACTOR` (adult, frequency l = 2 and 4: 5.0 and 8.5 units,
    measured 5 and 9-11 CPU s per rule); k-anonymity alone needs no repair, only the polish
    (``5e-6 x t_in x m``). A conjunction takes its costliest part's factor; k-anonymity
    beside t-closeness counts none (:data:`REPAIR_K_POWER`)."""
    if not model.uses_sensitive:
        return 5e-6 * rt.t_in * rt.m
    each = parts(model)
    if has_t_closeness(model):
        # k beside t costs t's repair: adult, k = 5 / 10 with t = 0.2 / 0.3, 1.9 / 1.3 CPU s
        # per rule, where k's 1.0 x k^0.75 had estimated 10.0 / 16.8 units
        each = [p for p in each if type(p).__name__ != "KAnonymity"]
    factor = max(REPAIR_FACTOR.get(type(p).__name__, 1.0)
                 * max(k, 1) ** REPAIR_K_POWER.get(type(p).__name__, 0.75) for p in each)
    return 3e-5 * rt.t_in * rt.m * factor


def auto_run(model: PrivacyModel, rt: RowTypes, units_left: float) -> AutoRun:
    """How ``--method auto`` runs merge-repair: with its defaults (both partner rules) if the
    estimate fits ``units_left``; else one rule (``spread``; on adult it was the better
    rule, or within 0.3 %, for frequency l-diversity) with the pattern-packing start's bucket
    LPs; else that rule with a greedy start (no bucket LP). The start's estimate is pattern
    packing's (:func:`.pattern_packing.greedy_work`, :func:`.pattern_packing.lp_work`) for
    the start size. With the diverse start (:func:`diverse_suits`) the variants are both rules,
    rule ``spread``, and rule ``spread`` without polishing (:func:`diverse_work`); where the
    level start suits too (:func:`level_suits`), first both starts with both rules and with
    rule ``spread`` (:func:`level_work`, with the placement LPs of :mod:`._level_lp`; since
    stop 39 with the joint LP of :mod:`._frequency_joint` in place of those of levels 1 and 2,
    estimated by its :func:`._frequency_joint.work`), then the level start with rule
    ``spread``, then the same without the joint LP, then with the placement LP at level 1
    only, then the diverse start's variants. The repair after the level start is estimated as
    :data:`LEVEL_REPAIR` times the diverse start's repair times ``(k / 2)^1.5``. On adult (8 QIs,
    occupation; 7.4 of the 8 units left when merge-repair's turn comes) the ladder takes the
    level start with rule ``spread`` for l = 2 and 3 (l = 3 with the joint LP), the same without
    the joint LP for l = 4, the level-1 LP variant for l = 5 and the diverse variant without
    polishing for l = 6 (docs/benchmarks.md). For the models
    frequency l-diversity implies (:func:`implied_suits`) the ladder is both starts (level
    and pattern-packing's) with both rules, both with rule ``spread``, the level start with
    rule ``spread``, then pattern-packing's start as before, distinct l-diversity counting
    the level start's LPs by :func:`._distinct_lp.work`, and since stop 37 its joint LP by
    :func:`._distinct_lp.joint_work` in place of the LPs of levels 1 and 2, with one more
    rung before pattern-packing's start: the level start without the joint LP, rule
    ``spread``. Since stop 39 entropy and recursive l with ``l >= 3`` count frequency's joint
    LP (:func:`._frequency_joint.work`) in place of the LPs of levels 1 and 2 the same way,
    with the same extra rung (option ``frequency_joint``). On adult (stop 37) distinct l = 2
    takes the second rung (the first before), distinct l = 3..6, entropy l = 2..4 and
    recursive (4, 3) the third; since stop 39 entropy l = 3 and recursive (4, 3) take the
    third with the joint LP and entropy l = 4 the level start without it (its rung with it
    is over the budget)."""
    from starmin.algorithms.heuristic.pattern_packing import greedy_work, lp_work

    k = start_size(model, rt, make_judge(model, rt))
    rule = repair_work(model, rt, k)
    if k > 1 and diverse_suits(model):
        start, after = diverse_work(rt), DIVERSE_REPAIR * rule
        runs = [AutoRun(start + 2 * after),
                AutoRun(start + after, {"rules": ("spread",)}, "rule spread only"),
                AutoRun(start + DIVERSE_REPAIR_ONLY * rule,
                        {"rules": ("spread",), "refine": False, "moves": False},
                        "rule spread only, carving and the flow its only polish")]
        if level_suits(model, rt):  # both starts where the budget allows; else as before
            l = level_l(model, rt)
            assert l is not None  # one sensitive column: frequency l-diversity's l
            per_level = level_work(rt, l, LEVEL_LP_LEVELS)
            # the joint LP of levels 1 and 2 (stop 39) in place of their own LPs, which are
            # all the placement LPs there are (LEVEL_LP_LEVELS = 2); not for l = 2
            joint = l >= FREQUENCY_JOINT_MIN_L
            levels = (level_work(rt) + frequency_joint_work(rt.counts, l, rt.m) if joint
                      else per_level)
            both = start + levels
            level_repair = LEVEL_REPAIR * after * (k / 2) ** 1.5
            tree = tree_work(rt) + TREE_REPAIR * rule  # the tree start with one rule
            tree_only = AutoRun(tree, {"start": "tree", "rules": ("spread",)},
                                "tree start only, rule spread only")
            tree_first = tree_prefers(l, rt)
            # the first two rungs run every start (start "auto": levels, diverse and tree)
            runs = [AutoRun(both + 4 * after + tree + TREE_REPAIR * rule),
                    AutoRun(both + 2 * after + tree, {"rules": ("spread",)},
                            "rule spread only"),
                    AutoRun(levels + level_repair + tree,
                            {"start": ("levels", "tree"), "rules": ("spread",)},
                            "level and tree starts, rule spread only"),
                    *([tree_only] if tree_first else []),
                    AutoRun(levels + level_repair, {"start": "levels", "rules": ("spread",)},
                            "level start only, rule spread only"),
                    *([AutoRun(per_level + level_repair,
                               {"start": "levels", "rules": ("spread",),
                                "frequency_joint": False},
                               "level start without the joint LP only, rule spread only")]
                      if joint else []),
                    AutoRun(level_work(rt, l, 1) + level_repair,
                            {"start": "levels", "rules": ("spread",), "level_lp_levels": 1},
                            "level start only (placement LP at level 1), rule spread only"),
                    *([] if tree_first else [tree_only]),
                    replace(runs[1], options={"start": "diverse", "rules": ("spread",)},
                            note="diverse start only, rule spread only"),
                    replace(runs[2], options={"start": "diverse", **runs[2].options},
                            note="diverse start only, " + runs[2].note)]
        return next((r for r in runs if r.work <= units_left), runs[-1])
    greedy, lp = (greedy_work(rt), lp_work(rt, k)) if k > 1 else (0.0, 0.0)
    runs = [AutoRun(greedy + lp + 2 * rule),
            AutoRun(greedy + lp + rule, {"rules": ("spread",)}, "rule spread only"),
            AutoRun(greedy + rule, {"rules": ("spread",), "start_lp_levels": 0},
                    "rule spread only, start without bucket LP")]
    if implied_suits(model, rt):  # the level start first where the budget allows it
        no_joint: float | None = None  # the level start without the joint LP
        joint_option = "distinct_joint"
        il = implied_l(model) or 1
        level_start = "distinct-levels" if distinct_start_prefers(model) else "levels"
        start_note = ("distinct l-diversity's level start" if level_start == "distinct-levels"
                      else "level start")
        if distinct_only(model) or level_start == "distinct-levels":  # ._distinct_lp's LPs
            # the joint LP takes levels 1 and 2 from the per-level LPs (the later levels'
            # LPs took 0.1-0.2 CPU s on adult, within the joint estimate's margin)
            no_joint = level_work(rt) + distinct_lp_work(rt.counts, il, rt.m)
            levels = level_work(rt) + joint_work(rt.counts, il, rt.m)
        elif il >= FREQUENCY_JOINT_MIN_L:  # frequency's joint LP (stop 39) for its levels
            joint_option = "frequency_joint"
            no_joint = level_work(rt, il, LEVEL_LP_LEVELS)
            levels = level_work(rt) + frequency_joint_work(rt.counts, il, rt.m)
        else:
            levels = level_work(rt, il, LEVEL_LP_LEVELS)
        after = LEVEL_REPAIR * DIVERSE_REPAIR * rule * (k / 2) ** 1.5
        runs = [AutoRun(runs[0].work + levels + 2 * after),
                AutoRun(runs[1].work + levels + after, {"rules": ("spread",)},
                        "rule spread only"),
                AutoRun(levels + after, {"start": level_start, "rules": ("spread",)},
                        f"{start_note} only, rule spread only"),
                replace(runs[2], options={"start": "pattern-packing", **runs[2].options},
                        note="pattern-packing start only, " + runs[2].note)]
        if no_joint is not None:  # the level start without the joint LP before the last
            runs.insert(3, AutoRun(no_joint + after, {"start": level_start,
                                                   "rules": ("spread",), joint_option: False},
                                   f"{start_note} without the joint LP only, rule spread "
                                   f"only"))
    if close_suits(model, rt):  # the level start with close parts (:mod:`._close_part`)
        from starmin.algorithms.heuristic._close_lp import close_spec
        from starmin.algorithms.heuristic._close_lp import work as close_lp_work

        levels = CLOSE_LEVELS * level_work(rt)
        after = CLOSE_REPAIR * rule
        greedy_only = runs[2]
        no_lp = {"level_lp_levels": 0}
        lp = close_lp_work(rt, close_spec(model, rt))
        fallback = replace(greedy_only, options={"start": "pattern-packing",
                                                 **greedy_only.options},
                           note="pattern-packing start only, " + greedy_only.note)
        if copies(rt) > CLOSE_COPIES:  # many copies of each row: one start, no LP
            runs = [AutoRun(levels + after, {"start": "levels", "rules": ("spread",), **no_lp},
                            "level start without its LP only, rule spread only"), fallback]
            return next((r for r in runs if r.work <= units_left), runs[-1])
        runs = [AutoRun(runs[0].work + levels + lp + 2 * after),
                AutoRun(runs[1].work + levels + lp + after, {"rules": ("spread",)},
                        "rule spread only"),
                AutoRun(greedy_only.work + levels + lp + after,
                        {"rules": ("spread",), "start_lp_levels": 0},
                        "rule spread only, pattern-packing start without bucket LP"),
                AutoRun(levels + lp + after, {"start": "levels", "rules": ("spread",)},
                        "level start only, rule spread only"),
                AutoRun(greedy_only.work + levels + after,
                        {"rules": ("spread",), "start_lp_levels": 0, **no_lp},
                        "rule spread only, both starts without LPs"),
                AutoRun(levels + after, {"start": "levels", "rules": ("spread",), **no_lp},
                        "level start without its LP only, rule spread only"),
                fallback]
    return next((r for r in runs if r.work <= units_left), runs[-1])


CLOSE_LEVELS = 1.7
"""The level start with close parts (:mod:`._close_part`) relative to :func:`level_work`:
its searches build and judge each failing pool's part up to ``O(log n)`` times. Fitted on
adult (8 QIs, occupation, t = 0.2 and hierarchical t = 0.1: 2.0-2.3 CPU s, where
:func:`level_work` gives 1.43) before the variational cap was tried first; since then about
0.9 CPU s there. Kept: at 1.7 the ladder on adult runs one start with the LP (t = 0.2, 7.2 s
wall with the report's bounds); a fitted 0.7 would fit both starts, about 9 s by the sum
of the two starts' measured runs."""
CLOSE_COPIES = 8
"""Where the row types hold more rows than this (median, :func:`._start.copies`), ``auto``'s
t-closeness ladder is the level start without its placement LP (:mod:`._close_lp`), else
pattern-packing's greedy start: one start, about 4 units. Issue 8 measures t = 0.2 on adult
repeated to a million rows (33 copies) against a process that reads the CSV and does one
group-by (0.5 s on 2026-11-27): at most 10x. There (rule ``spread``) the level start gave
2,791,923 stars in 3.6 CPU s, with its LP 2,651,657 in 5.4 s (12.4x the reading), both starts
6.9 s, pattern-packing's greedy start 3,132,416 in 3.1 s. The 8-unit budget fits the richer
variants, but the reading they are measured against is short; ``merge-repair``'s own defaults
keep both starts and the LP."""
CLOSE_REPAIR = 0.7
"""The repair after that start relative to one rule's :func:`repair_work` (adult, the same
runs: 0.44-1.30 CPU s against 2.1 units)."""


LEVEL_REPAIR = 0.2
"""The repair after the level start with its placement LPs, relative to the diverse start's
repair times ``(k / 2)^1.5`` (adult, frequency l = 2..6: 0.55, 0.7, 1.2, 2.7 and 4.7 CPU s
against estimates 0.4, 1.0, 1.9, 3.2 and 4.8)."""
DIVERSE_REPAIR = 0.4
"""Repair and polish after the diverse start, relative to :func:`repair_work` (adult,
frequency l = 2, 4, 6: 2.2, 2.9 and 5.4 CPU s against estimates 5.0, 8.5 and 11.5)."""
DIVERSE_REPAIR_ONLY = 0.15
"""The repair after the diverse start with carving as its only polish (adult, frequency l = 4
and 6: the whole run without any polishing took 6.2 and 8.9 CPU s at load 9, against
estimates 6.3 and 6.7; carving added 0.5-2 CPU s on 2026-11-26: l = 5 and 6 took 10.2 and
12.4 s at load 1-2, docs/benchmarks.md)."""


def level_work(rt: RowTypes, l: int | None = None, lp_levels: int = 0) -> float:
    """Estimated work units of the level start (:mod:`._level_start`): ``2e-8 x 2^m x t_in
    x (m + s)`` (adult, 8 QIs, occupation: 1.4 units; measured 1.1-1.8 CPU s for l = 2..6)
    plus ``1e-4 x 2^m`` for the Python work per pattern, whatever its rows (the planted
    tables of 16-24 row types x 16 QIs: 6.6-6.8 CPU s, 100 us per pattern, where the first
    term gives 0.6), plus, with placement LPs (``l`` given, ``lp_levels >= 1``),
    :func:`._level_lp.work`."""
    greedy = 2e-8 * 2 ** rt.m * rt.t_in * (rt.m + rt.s) + 1e-4 * 2 ** rt.m
    return greedy + (level_lp_work(rt.counts, l, rt.m, lp_levels) if l is not None else 0.0)


TREE_SHARE = 0.77
"""``auto`` prefers the tree start (:mod:`._tree_start`) to the level start when ``l`` times
the most frequent value's share of the rows TP's phase one leaves free is at least this
(:func:`tree_prefers`), and runs both where the budget allows. Fitted on 13 cases
(docs/algorithms/merge-repair.md, "The tree start"): the tree start gave fewer stars at
0.79-1.24 (adult occupation l = 5, 6 and its first 10,000 rows at l = 6, education l = 3,
marital status l = 2: -2.6 to -9.6 %), more at 0.56-0.74 (+2.1 to +13.4 %) and at 0.81 on
adult's first 5,000 rows at l = 6 (+0.4 %)."""
TREE_REPAIR = 0.25
"""The repair and polish after the tree start relative to :func:`repair_work` (adult,
frequency l = 3..6, rule ``spread``: 1.8-2.6 CPU s against estimates 7-11.5 units)."""


def tree_prefers(l: int, rt: RowTypes) -> bool:
    """Whether ``auto`` tries the tree start before the level start (:data:`TREE_SHARE`): the
    rows phase one leaves free (every row type keeps its largest l-eligible part star-free,
    as the level start's level 0 does) are near to not being l-eligible as a whole, so the
    level start's greedy levels spend the rare values and leave rows of the frequent ones that
    nothing dilutes (stop 58's diagnosis of adult, l = 5); the tree start's LP places all rows
    at once."""
    from starmin.algorithms.approx.tp_phases import phase_one_heights

    counts = rt.counts.astype(np.int64)
    free = (counts - np.minimum(counts, phase_one_heights(counts, l)[:, None])).sum(axis=0)
    total = int(free.sum())
    return total > 0 and l * int(free.max()) >= TREE_SHARE * total


def tree_work(rt: RowTypes) -> float:
    """Estimated work units of the tree start (:mod:`._tree_start`): ``1.4e-8 x t_in^1.5 x m
    x s``, the LP's interior point growing faster than its size (adult, 8 QIs, occupation:
    2.2 units, measured 2.1-2.6 CPU s for l = 3..6 on 2026-11-30; the synthetic census of
    100,000 rows, 33,064 row types: 9.4 units, measured 10.4 / 14.2 CPU s for l = 3 / 5, where
    ``t_in`` to the first power gave 5.9; 0.4-1.4 s on tables of 3,225-6,452 row types)."""
    return 1.4e-8 * rt.t_in ** 1.5 * rt.m * max(rt.s, 1)


def diverse_work(rt: RowTypes) -> float:
    """Estimated work units of the diverse start (:mod:`._diverse_start`): ``5e-5 x t_in x m``
    (adult, 8 QIs, frequency l = 2, 4, 6: 5.0 units; measured 4.1-6.7 CPU s at load 9-10)."""
    return 5e-5 * rt.t_in * rt.m


ALGORITHM = Algorithm(
    name=NAME,
    summary="any model: repair the violating classes of a good start (merge, pull or eject rows)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=auto_run,
    options=tuple(Settings.__dataclass_fields__),
)
