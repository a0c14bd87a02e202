"""The exact MILP on row types: Liang & Yuan's Thm 9 over every useful output vector.

Guarantee: **exact** -- the fewest stars of any release satisfying the model, proven by HiGHS
branch and bound (gap 0). If the work limit (``node_limit`` branch-and-bound nodes) stops
HiGHS first, the plan says so: its guarantee becomes ``bound`` and it carries the solver's
proven lower bound, so the report prints the best release found, the bound and the gap.
The same holds for a wall-clock limit, but only when the user asks for one (``time_limit``
seconds, ``--time-limit``): it holds for the whole solve. Column generation starts no round
after :data:`COLGEN_SHARE` of it, and no LP solve, rounding or branch and bound passes it
(stopped early, the LP's last certified bound stands and ``merge-repair``'s release is the
incumbent); a plan it stopped says so in its guarantee, since that plan may differ with
machine speed and load. Building the MILP's vectors is not timed: a table past the limits
below is refused before it starts.

The program (:mod:`.master`) has one block per *useful* output vector (:mod:`.vectors`: an
optimal release needs no other) with every pair of its group, and states each model
exactly, not as a relaxation:

* k-anonymity (and the class size l, p imply): ``x(b, p) <= c(p) y(b)``,
  ``sum_p x(b, p) >= k y(b)`` with ``y`` binary (Thm 9's indicator; Bredereck et al.
  Sec. 4.3). t-closeness gives a class size too: integer class compositions need at least
  ``X_min`` rows (:mod:`starmin.algorithms.t_class_size`), a valid constraint that raises
  the LP relaxation (100 adult rows, t = 0.2: 416.3 -> 434.8) and lets HiGHS prove the
  optimum of 50 adult rows at t = 0.3 (256 stars) that it did not reach in 120 s without it;
* frequency l-diversity: each value at most ``n(b) / l`` (Xiao et al. Def. 2);
* distinct l-diversity and p-sensitivity: binaries ``z(b, u)`` for the values a class holds,
  ``sum_u z(b, u) >= l y(b)`` (or ``p``);
* t-closeness under the equal, ordered and hierarchical distances: the EMD as a weighted sum
  of absolute cut differences (each a tree metric; Li et al. Sec. 4), ``<= t n(b)`` (Thm 9's
  transport constraints in their tree form); under a matrix distance, Thm 9's transport
  constraints themselves (flows from the class's values to the table's, :mod:`.master`);
* entropy and recursive (c, l)-diversity, which are not linear, by their linear
  consequences (``l`` distinct values; a cap on each value's share; for entropy, share
  lines ``a x(b, u) <= b n(b) + c y(b)`` that hold the small classes to what their size
  allows, :func:`.cuts.entropy_share_lines`) and cuts
  (:mod:`.cuts`): a class of the MILP's optimum that fails the model gives a cut that every
  satisfying class meets, and the MILP is solved again (at most ``CUT_ROUNDS`` rounds). An
  optimum whose classes all pass is optimal; if a failing class gives no cut, the release is
  repaired and marked ``bound`` with that relaxation's optimum as its bound;
* conjunctions of these, on every sensitive column: a model holds for each column
  (docs/models.md), so with several the value rows above are stated once per column, each
  counting its own column's values, over the same ``x``, ``y`` and ``n``
  (:func:`exact_constraints`), and entropy and recursive (c, l) get cuts on the column a
  failing class fails.

With ``x`` integer each block's rows are a class satisfying the model, so the MILP optimum is
the optimum (Thm 9). Before HiGHS runs, interchangeable pairs are merged (:mod:`.aggregate`:
same optimum, no symmetry among them) and the incumbent's stars ``U`` become HiGHS's
objective cutoff ``U - 1/2`` (:mod:`.highs_cutoff`: a dual bound at the cutoff proves the
incumbent optimal). A release is checked class by class with the models' own exact
arithmetic; a class the solver's tolerances let through (an EMD equal to ``t`` up to 1e-9)
would be merged away and the result no longer claimed optimal.

Not exact here (refused with the reason): more than one t-closeness model. With several
sensitive columns column generation prices one column's relaxation (a relaxation of the
whole model, so its bound and the reduced-cost fixing stay valid); the rounding states every
column.

Limits (work, never time unless asked): ``m <= 16`` QI columns and at most ``MAX_X`` ``x``
variables after dropping useless vectors; ``node_limit`` nodes (default 20,000); the user's
``time_limit`` (none by default).

References: Liang & Yuan, Sec. 4, Theorem 9 (and Sec. 2 for suppressors); Bredereck et al.,
Sec. 4.3 (the ILP on row types); Li et al., t-closeness, Sec. 4 (EMD for tree metrics).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from starmin.algorithms.base import (
    Algorithm,
    Progress,
    admit,
    check_time_limit,
    deadline_after,
    seconds_until,
    silent,
    whole_option,
)
from starmin.algorithms.lp.cuts import (
    Cut,
    cut_for,
    entropy_cap,
    entropy_share_lines,
    nonlinear,
    value_counts,
)
from starmin.algorithms.lp.pairs import Pairs
from starmin.algorithms.lp.relaxation import Relaxation, relaxations, transport_relaxation
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k, parts
from starmin.transform.plan import Guarantee, ReleasePlan, suppressor

if TYPE_CHECKING:  # the LP machinery loads when the MILP is built, not with the registry
    from starmin.algorithms.lp.colgen import ColumnGeneration
    from starmin.algorithms.lp.master import Blocks, MILPSolution, Program
    from starmin.algorithms.lp.rounding import Group
    from starmin.algorithms.lp.vectors import Keep

NAME = "milp"
MAX_M = 16
MAX_X = 400_000
"""Most ``x`` variables (pairs summed over the useful vectors) the MILP is built with."""
_SCAN = 8_000_000
"""``supports`` counts the useful vectors only when ``2^m x pairs`` is at most this."""
GUARANTEE = Guarantee(
    "exact",
    "minimum number of stars (MILP over every useful output vector, solved to proven "
    "optimality by HiGHS; if its node limit stops it first, the plan is marked 'bound' with "
    "the proven lower bound)",
    "Liang & Yuan Sec. 4 Thm 9; Bredereck et al. Sec. 4.3",
)
_OPTIONS = {"node_limit", "time_limit"}
CUT_ROUNDS = 50
"""Most rounds of cuts for entropy and recursive (c, l)-diversity (a work limit)."""
COLGEN_SHARE = 0.5
"""With the user's time limit, column generation starts no round after this share of it
(a round under way may run to the limit); the rounding and HiGHS's branch and bound get the
rest."""


def _unsupported_part(model: PrivacyModel, rt: RowTypes) -> str | None:
    from starmin.models.k_anonymity import KAnonymity
    from starmin.models.l_diversity import (
        DistinctLDiversity,
        EntropyLDiversity,
        LDiversity,
        RecursiveCLDiversity,
    )
    from starmin.models.p_sensitive import PSensitiveKAnonymity
    from starmin.models.t_closeness import TCloseness

    ts = 0
    for part in parts(model):
        if not isinstance(part, KAnonymity | LDiversity | DistinctLDiversity
                          | PSensitiveKAnonymity | TCloseness | EntropyLDiversity
                          | RecursiveCLDiversity):
            return f"{part.name} is not linear (only heuristics and brute force take it)"
        if isinstance(part, TCloseness):
            ts += 1
    if ts > 1:
        return "one t-closeness model at a time"
    return None


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    from starmin.algorithms.lp.vectors import count_useful

    reason = _unsupported_part(model, rt)
    if reason is not None:
        return reason
    if rt.m > MAX_M:
        return (f"m = {rt.m} QI columns is over its limit of {MAX_M}; use --method auto for "
                f"a release with a certified bound")
    pairs = Pairs.of(rt)
    most = (1 << rt.m) * pairs.P  # every pair under every pattern: the count's upper bound
    if most > _SCAN or (most > MAX_X and count_useful(rt, pairs) > MAX_X):
        return (f"the MILP would have more than {MAX_X:,} variables (t_in = {rt.t_in} row "
                f"types, m = {rt.m}); use --method auto for a release with a certified bound")
    return None


def exact_constraints(model: PrivacyModel, rt: RowTypes) -> list[Relaxation]:
    """Every constraint of the model, stated exactly (see the module docstring): one
    relaxation per sensitive column (a model holds for each), the first carrying the class
    size; entropy and recursive (c, l)-diversity by their linear consequences
    (:mod:`.cuts`), which the cuts complete."""
    from starmin.algorithms.t_closeness_bound import t_class_floor

    k = max(implied_k(model), t_class_floor(rt, model))  # t-close classes hold >= X_min rows
    if not rt.sensitive:
        return [Relaxation("k", k=k)]
    return [_column_constraints(model, rt, a, k if a == 0 else 1, size=k)
            for a in range(len(rt.sensitive))]


def _column_constraints(model: PrivacyModel, rt: RowTypes, a: int, k: int, *,
                        size: int = 1) -> Relaxation:
    """The model's constraints on sensitive column ``a`` (share cap, distinct values,
    t-closeness), with class size ``k``; entropy l-diversity's share lines hold for classes
    of ``size`` rows or more (every class: the class size the first column carries)."""
    from starmin.models.l_diversity import (
        DistinctLDiversity,
        EntropyLDiversity,
        LDiversity,
        RecursiveCLDiversity,
    )
    from starmin.models.p_sensitive import PSensitiveKAnonymity
    from starmin.models.t_closeness import TCloseness

    r = len(rt.sensitive_domains[a])
    cap: float | None = None
    distinct = 0
    lines: tuple[tuple[int, int, int], ...] = ()
    t_rel: Relaxation | None = None
    for part in parts(model):
        share: float | None = None
        if isinstance(part, LDiversity):
            share = 1.0 / float(part.l)
        elif isinstance(part, EntropyLDiversity):
            distinct, share = max(distinct, int(part.l)), entropy_cap(int(part.l), r)
            lines += entropy_share_lines(int(part.l), r, max(size, int(part.l)), rt.n)
        elif isinstance(part, RecursiveCLDiversity):
            distinct, share = max(distinct, int(part.l)), part.largest_share()
        elif isinstance(part, DistinctLDiversity):
            distinct = max(distinct, math.ceil(float(part.l)))
        elif isinstance(part, PSensitiveKAnonymity):
            distinct = max(distinct, int(part.p))
        elif isinstance(part, TCloseness):
            t_rel = next((x for x in relaxations(part, rt) if x.t is not None
                          and x.column == a), None) or transport_relaxation(rt, a, part)
        if share is not None and share < 1.0:
            cap = share if cap is None else min(cap, share)
    vk = rt.keys[:, a].astype(np.int64)
    tot = np.bincount(vk, weights=rt.counts.sum(axis=0), minlength=r)
    return Relaxation("exact" + (f" on {rt.sensitive[a]}" if len(rt.sensitive) > 1 else ""),
                      k=k, column=a, cap=cap, distinct=distinct,
                      t=t_rel.t if t_rel else None, cuts=t_rel.cuts if t_rel else None,
                      d=t_rel.d if t_rel else None, value_of_key=vk, p=tot / max(tot.sum(), 1),
                      share_lines=lines if cap is not None else ())


def merge_key(rels: list[Relaxation], rt: RowTypes) -> np.ndarray | None:
    """What two pairs must share to be merged (:func:`.aggregate.merge`): the sensitive value
    of the one column, the whole sensitive key with several, nothing without one."""
    if len(rels) > 1:
        return np.arange(rt.s, dtype=np.int64)
    return rels[0].value_of_key


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    from starmin.algorithms.lp import aggregate
    from starmin.algorithms.lp.master import build
    from starmin.algorithms.lp.rounding import groups_of, merge_failing
    from starmin.algorithms.lp.vectors import useful_blocks

    admit(NAME, supports, model, rt, options, _OPTIONS)
    say = progress or silent
    node_limit = whole_option(NAME, options, "node_limit", 20_000, 1)
    seconds = options.get("time_limit")
    pairs = Pairs.of(rt)
    cert: dict[str, Any] = {"milp_node_limit": node_limit, "seed": seed}
    if seconds is not None:
        seconds = check_time_limit(seconds)
        cert["time_limit_s"] = seconds
    end = deadline_after(seconds)
    start = _incumbent(rt, model, say, seconds, end)
    best: list[Group] | None = None
    upper: int | None = None
    lp_bound = 0
    keep = max_stars = None
    if start is not None:
        cg, lp_bound, best, by = start
        upper = _stars(rt, best)
        cert.update(lp_bound=lp_bound, lp_complete=cg is not None and cg.complete,
                    incumbent_stars=upper, incumbent_by=by)
        if upper <= lp_bound:
            return _proven(rt, best, upper, {**cert, "proven_by": "lp bound = incumbent"}, say)
        if cg is not None and cg.complete:
            keep, max_stars = _fixing(rt, model, cg, upper)
    blocks = useful_blocks(rt, pairs, keep=keep, max_stars=max_stars)
    cert["milp_vectors"] = blocks.B
    if blocks.B == 0 and best is not None and upper is not None:
        return _proven(rt, best, upper, {**cert, "proven_by": "reduced-cost fixing"}, say)
    rels = exact_constraints(model, rt)
    mpairs, mblocks, merged = pairs, blocks, None
    if np.isin(np.arange(pairs.P), blocks.pair_of).all():
        merged = aggregate.merge(pairs, blocks, merge_key(rels, rt))
        mpairs, mblocks = merged.pairs, merged.blocks
        cert["milp_pairs"] = [pairs.P, mpairs.P]
    prog = build(mpairs, rels, mblocks)
    cert["milp_variables"] = len(prog.c)
    left = seconds_until(end)
    clock = "" if left is None else f", {left:.1f} s left of the time limit {seconds:g} s"
    say(f"{NAME}: {blocks.B:,} output vectors left, {len(prog.c):,} variables; HiGHS "
        f"branch and bound (node limit {node_limit:,}{clock})")
    sol, rounds, separated = _solve_with_cuts(rt, model, rels, mpairs, mblocks, prog, node_limit,
                                              left, say, upper)
    if nonlinear(model):
        cert["cut_rounds"] = rounds
    timed_out = seconds is not None and "time limit" in sol.message.lower()
    cert["milp_message"] = sol.message
    found = None
    if sol.x is not None:
        x = (np.round(sol.x) if merged is None
             else aggregate.split(merged, pairs, blocks, sol.x).astype(np.float64))
        found = groups_of(pairs, blocks, x)
    passing = found is None or _all_hold(rt, model, found)
    if found is not None and passing and (upper is None or _stars(rt, found) < upper):
        best, upper = found, _stars(rt, found)
    if passing and (sol.optimal or sol.infeasible) and best is not None and upper is not None:
        return _proven(rt, best, upper, {**cert, "proven_by": "milp"}, say)
    if best is None and found is not None:  # no incumbent: the MILP's classes, repaired
        best = merge_failing(rt, model, found)
        upper = _stars(rt, best)
    if best is None:
        if timed_out:
            raise InvalidInput(f"{NAME}: HiGHS found no release within the time limit of "
                               f"{seconds:g} s: raise --time-limit or use --method auto")
        raise InvalidInput(f"{NAME}: HiGHS found no release within {node_limit:,} nodes "
                           f"({sol.message}); raise node_limit or use --method auto")
    dual = sol.dual_bound if passing else None
    if not separated and sol.optimal and sol.value is not None:
        dual = sol.value  # the optimum of a relaxation (the cuts are valid): a bound
    lower = lp_bound
    if dual is not None and math.isfinite(dual) and upper is not None:
        lower = max(lower, min(upper, math.ceil(dual - 1e-6)))
    if not separated:
        why = (f"after {rounds} rounds of cuts for "
               f"{', '.join(p.name for p in nonlinear(model))} a class of the MILP's optimum "
               "still fails it and no cut separates it (or the round limit "
               f"{CUT_ROUNDS} was reached); the bound is that MILP's optimum")
        cert["stopped_by"] = "cuts"
    elif timed_out:
        why = (f"the time limit ({seconds:g} s, asked with --time-limit) stopped the run "
               "before HiGHS proved optimality, so this release may differ with machine speed "
               "and load")
        cert["stopped_by"] = "time limit"
    elif not passing and sol.optimal:
        why = "a class failed the exact check after solving (solver tolerance)"
    else:
        why = f"the node limit ({node_limit:,}) stopped HiGHS before it proved optimality"
        cert["stopped_by"] = "node limit"
    stopped = Guarantee("bound", f"not proven optimal: {why}; the plan's lower bound is "
                        "proven (LP and HiGHS)", GUARANTEE.reference)
    plan = ReleasePlan.from_groups(rt, merge_failing(rt, model, best), NAME, stopped,
                                   lower_bound=lower,
                                   certificate={**cert, "proven_optimal": False})
    say(f"{NAME}: {plan.stars} stars, proven lower bound {lower} ({why})")
    return plan


def _solve_with_cuts(rt: RowTypes, model: PrivacyModel, rels: list[Relaxation], pairs: Pairs,
                     blocks: Blocks, prog: Program, node_limit: int, seconds: float | None,
                     say: Progress, upper: int | None) -> tuple[MILPSolution, int, bool]:
    """The MILP, solved again with cuts (:mod:`.cuts`) while a class of its optimum fails a
    nonlinear part of the model: ``(solution, rounds, separated)``. Each sensitive column
    (``rels``, one per column) gives its own cuts on its own values. ``separated`` is false
    when a failing class gives no cut or :data:`CUT_ROUNDS` rounds were made; the last
    solution is then optimal for a relaxation only. With the user's time limit, every round
    gets what is left of it."""
    from starmin.algorithms.lp import highs_cutoff
    from starmin.algorithms.lp.master import with_rows
    from starmin.algorithms.lp.rounding import groups_of

    extra = nonlinear(model)
    deadline = deadline_after(seconds)
    value_of_x = [rel.value_of_key[pairs.key_of[blocks.pair_of]] for rel in rels] \
        if extra else []
    seen: set[bytes] = set()
    rounds = 0
    while True:
        left = seconds if rounds == 0 else seconds_until(deadline)
        sol = highs_cutoff.solve(prog, upper=upper, node_limit=node_limit, seconds=left)
        if not extra or sol.x is None or not sol.optimal:
            return sol, rounds, True
        new: list[tuple[Cut, int]] = []
        failing = False
        for _t, keys, counts in groups_of(pairs, blocks, np.round(sol.x)):
            kc = np.bincount(keys, weights=counts, minlength=rt.s).astype(np.int64)
            for part in extra:
                if holds(part, rt, kc[None, :])[0]:
                    continue
                failing = True
                cuts = [(cut, a) for a, rel in enumerate(rels)
                        if (cut := cut_for(part, value_counts(keys, counts, rel.value_of_key,
                                                              rel.r))) is not None]
                if not cuts:
                    return sol, rounds, False
                for cut, a in cuts:
                    tag = (np.round(cut.coef, 12).tobytes() + bytes([int(cut.y_coef)])
                           + a.to_bytes(4, "little"))
                    if tag not in seen:
                        seen.add(tag)
                        new.append((cut, a))
        if not new:  # every class passes, or fails a cut already added (round-off)
            return sol, rounds, not failing
        if rounds >= CUT_ROUNDS:
            return sol, rounds, False
        rounds += 1
        say(f"{NAME}: {len(new)} cut(s) for {', '.join(p.name for p in extra)} "
            f"(round {rounds})")
        prog = with_rows(prog, *_cut_rows(new, blocks, value_of_x, prog))


def _cut_rows(cuts: list[tuple[Cut, int]], blocks: Blocks, value_of_x: list[np.ndarray],
              prog: Program) -> tuple[object, np.ndarray]:
    """Each cut (on its sensitive column: ``value_of_x[a]`` is the column's value of each
    ``x``) as one row per output vector (see :class:`.cuts.Cut`)."""
    from scipy.sparse import coo_matrix

    B, X = blocks.B, len(blocks.block_of)
    rows, cols, data = [], [], []
    for i, (cut, a) in enumerate(cuts):
        rows.append(i * B + blocks.block_of)
        cols.append(np.arange(X, dtype=np.int64))
        data.append(cut.coef[value_of_x[a]])
        if cut.y_coef:
            if prog.y is None:
                raise AssertionError("a cut needs the class indicators y(b)")
            rows.append(i * B + np.arange(B, dtype=np.int64))
            cols.append(prog.y)
            data.append(np.full(B, cut.y_coef))
    m = coo_matrix((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
                   shape=(len(cuts) * B, len(prog.c))).tocsr()
    rhs = np.repeat(np.array([c.rhs for c, _a in cuts], dtype=np.float64), B)
    return m, rhs


def _incumbent(rt: RowTypes, model: PrivacyModel, say: Progress, seconds: float | None,
               end: float | None
               ) -> tuple[ColumnGeneration | None, int, list[Group], str] | None:
    """The LP core's bound (column generation) and a first release, if the model has a
    relaxation to price: ``(the column generation or None, its bound, the classes, the
    method that made them)``. The release is the one with fewer stars of the LP's rounding
    (:mod:`.lp_rounding`) and ``merge-repair``'s (ties: the rounding's; merge-repair does not
    run when the rounding meets the LP bound), or for t-closeness
    ``merge-repair``'s (the rounding MILP with EMD rows took a minute at 100 rows of adult
    and released twice the LP bound). The rounding states the linear relaxation only, so
    for entropy and recursive (c, l)-diversity its repaired classes can be far worse than
    merge-repair's (adult's first 80 rows, entropy l = 4: 380 against 283 stars); the
    incumbent is what a stopped run releases, and HiGHS's cutoff and the reduced-cost
    fixing start from it. With the user's time limit (``seconds``, ending at ``end``, a
    ``time.monotonic()`` instant) column generation starts no round after
    :data:`COLGEN_SHARE` of it and no solve passes it, nor does the rounding;
    when they stop without an answer, ``merge-repair``'s release is the incumbent, with the
    bound certified before the limit (0 without one)."""
    from starmin.algorithms.heuristic import merge_repair
    from starmin.algorithms.lp.colgen import column_generation
    from starmin.algorithms.lp.incremental import WorkLimit
    from starmin.algorithms.lp.lp_rounding import classes_of_lp, primary

    rels = relaxations(model, rt)
    if not rels:
        return None
    rel = primary(rels)
    cg: ColumnGeneration | None = None
    bound = 0
    rounded: list[Group] | None = None
    try:
        cg = column_generation(rt, rel, progress=say, deadline=end,
                               rounds_until=None if seconds is None or end is None
                               else end - (1 - COLGEN_SHARE) * seconds)
        bound = cg.bound
        if rel.t is None:
            rounded = classes_of_lp(rt, model, cg, seconds=seconds_until(end), progress=say)
    except (WorkLimit, RuntimeError) as exc:
        if seconds is None:
            raise
        if isinstance(exc, WorkLimit) and exc.bound is not None:
            bound = max(bound, exc.bound)
        say(f"{NAME}: {exc} (time limit {seconds:g} s); the first release is merge-repair's")
    if rounded is not None and _stars(rt, rounded) <= bound:
        return cg, bound, rounded, "lp-rounding"  # proven optimal: nothing can have fewer
    plan = merge_repair.solve(rt, model, progress=say)
    repaired = [(plan.type_idx[plan.out_idx == o], plan.key_idx[plan.out_idx == o],
                 plan.count[plan.out_idx == o]) for o in range(plan.t_out)]
    if rounded is None:
        return cg, bound, repaired, "merge-repair"
    a = _stars(rt, rounded)
    say(f"{NAME}: first releases: the LP's rounding {a:,} stars, merge-repair's "
        f"{plan.stars:,}; the incumbent is "
        f"{'merge-repair' if plan.stars < a else 'the rounding'}'s")
    if plan.stars < a:
        return cg, bound, repaired, "merge-repair"
    return cg, bound, rounded, "lp-rounding"


def _fixing(rt: RowTypes, model: PrivacyModel, cg: ColumnGeneration,
            upper: int) -> tuple[Keep, int]:
    """Reduced-cost fixing: which vectors a release with fewer than ``upper`` stars may use.

    With complete pricing the LP duals ``pi`` are feasible for every vector: a class of ``s``
    rows released as ``v*`` has reduced cost ``stars(v*) s - sum pi x >= s (stars(v*) -
    G(v*)) >= 0`` (``G``, the gain of :mod:`.pricing`, bounds ``pi`` per row over the
    relaxation's cone, which holds every valid class). Any release costs ``sum c pi`` plus
    the reduced costs of its classes, so one with at most ``upper - 1`` stars has no class
    with reduced cost above ``upper - 1 - sum c pi``; a class has at least ``k`` rows
    (the size the model implies, or the fewest rows of a t-close class,
    :func:`~starmin.algorithms.t_closeness_bound.t_class_floor`). Vectors with
    ``k (stars - G)`` above that are dropped, and
    every pattern with more than ``G(all stars) + slack / k`` stars (gains grow with stars).
    A tolerance of ``1e-6`` per row covers the duals' round-off."""
    from starmin.algorithms.lp.pricing import Pricer
    from starmin.algorithms.t_closeness_bound import t_class_floor

    pricer = Pricer(rt, cg.pairs, cg.relaxation)
    pi = cg.lp.pi
    k = max(implied_k(model), t_class_floor(rt, model), 1)
    slack = upper - 1 - float(cg.pairs.count @ pi) + 1e-6 * (rt.n + 1)

    def keep(mask: int) -> np.ndarray:
        mp = pricer.price(mask, pi)
        return k * np.maximum(mask.bit_count() - mp.gain, 0.0) <= slack

    g_all = pricer.price((1 << rt.m) - 1, pi).gain
    top = float(g_all.max()) if len(g_all) else float(rt.m)
    return keep, math.floor(top + max(slack, 0.0) / k + 1e-9)


def _stars(rt: RowTypes, groups: list[Group]) -> int:
    return int(sum(int(c.sum()) * int((suppressor(rt.codes[np.unique(t)]) < 0).sum())
                   for t, _k, c in groups))


def _proven(rt: RowTypes, groups: list[Group], stars: int, cert: dict[str, Any],
            say: Progress) -> ReleasePlan:
    plan = ReleasePlan.from_groups(rt, groups, NAME, GUARANTEE, lower_bound=stars,
                                   certificate={**cert, "proven_optimal": True})
    say(f"{NAME}: proven optimum {plan.stars} stars ({cert['proven_by']})")
    return plan


def _all_hold(rt: RowTypes, model: PrivacyModel, groups: list[Group]) -> bool:
    if not groups:
        return True
    hist = np.zeros((len(groups), rt.s), dtype=np.int64)
    for i, (_t, k, c) in enumerate(groups):
        np.add.at(hist[i], k, c)
    return bool(holds(model, rt, hist).all())


ALGORITHM = Algorithm(
    name=NAME,
    summary="exact: minimum stars by the row-type MILP of Liang & Yuan Thm 9 over every "
            "useful output vector, solved to proven optimality by HiGHS (k, frequency and "
            "distinct l, p-sensitivity, t under equal/ordered/hierarchical/matrix distance; "
            "entropy and recursive (c, l) by cuts; on every sensitive column)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    time_limit=True,
    options=tuple(sorted(_OPTIONS - {"time_limit"})),  # the --time-limit flag
)
