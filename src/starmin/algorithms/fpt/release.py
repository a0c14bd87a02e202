"""What both row-type flow methods share: limits, options, the run, the plan, the estimate.

Parameter and limits. Both methods are fixed-parameter in ``t_in``, the number of input row
types (distinct QI vectors): the work does not grow with the number of rows ``n``. By Lemma 2
some optimal release has ``t_out <= t_in`` output row types, so the search's ``t_out`` is
bounded by the same number. Each method's :class:`Limits` say how large ``t_in`` and the number
of candidate output row types may be (``supports`` refuses beyond, naming the parameter), and
the default work limit ``max_nodes`` (flows) after which the search gives up with
:class:`~starmin.errors.SolverLimit` rather than release an unproven plan.

With the option ``max_t_out = T < t_in`` (Proposition 2) the guesses are the sets of at most
``T`` candidates, enumerated (:mod:`.restricted`); the candidates come from the ``2^m`` patterns,
so ``m <= MAX_M_RESTRICTED``, ``t_in <= MAX_T_IN_RESTRICTED`` and at most
:data:`~.restricted.MAX_GUESSES` guesses.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from starmin.algorithms.base import AutoRun, Progress
from starmin.algorithms.fpt.candidates import MAX_ALL, Candidates, candidates, route
from starmin.algorithms.fpt.joins import Joins
from starmin.algorithms.fpt.network import with_keys
from starmin.algorithms.fpt.restricted import MAX_GUESSES, enumerate_guesses, guesses
from starmin.algorithms.fpt.search import AssignmentProblem, branch_and_bound
from starmin.algorithms.objective import CellCosts, loss_scale_reason, objective_option
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput, StarminError
from starmin.transform.plan import Guarantee, ReleasePlan

MAX_T_IN_RESTRICTED = 300
"""Largest ``t_in`` with ``max_t_out < t_in`` (Proposition 2: parameters ``m`` and ``t_out``)."""
MAX_M_RESTRICTED = 8
"""Largest ``m`` with ``max_t_out < t_in`` (candidates from the ``2^m`` patterns)."""
MAX_ALL_RESTRICTED = 100_000
"""Largest number of suppressors listed with ``max_t_out < t_in`` (``2^m t_in`` at most)."""
AUTO_UNITS = 2.0
"""Work units ``--method auto`` gives a row-type flow method at most (a quarter of the
portfolio's budget): its ``max_nodes`` is cut to fit."""
AUTO_MIN_NODES = 1_000
"""The cheapest variant ``--method auto`` may run: this many flows (fewer rarely prove an
optimum once t_in >= 8; the 7 distinct rows of the contract tables need 274 at k = 2)."""


@dataclass(frozen=True)
class Limits:
    """One method's limits and its measured cost per flow.

    ``flow_seconds = (a, b)``: one flow takes about ``a + b * size`` CPU seconds for a network
    of ``size = arcs + candidates + t_in + cells`` (fitted on random tables, see
    docs/algorithms/fpt-row-types.md); used only for ``--method auto``'s estimate."""

    max_t_in: int
    max_candidates: int
    max_nodes: int
    flow_seconds: tuple[float, float]


_CACHE: weakref.WeakKeyDictionary[RowTypes, dict[tuple[int, int, int, str],
                                                   Candidates | None]] = \
    weakref.WeakKeyDictionary()


def restricting(rt: RowTypes, max_t_out: int | None) -> bool:
    """Does ``max_t_out`` restrict the search (Proposition 2) rather than follow Lemma 2?"""
    return max_t_out is not None and max_t_out < rt.t_in


def candidates_for(rt: RowTypes, k: int, p: int | None = None, restricted: bool = False,
                   objective: str | None = None) -> Candidates | None:
    """:func:`~.candidates.candidates` of ``rt`` for ``k`` (and ``p``), computed once per table
    (``supports``, the ``auto`` estimate and ``solve`` all need them); ``None`` when the table
    has more suppressors than the route may list (:data:`~.candidates.MAX_ALL`, or
    :data:`MAX_ALL_RESTRICTED` for Proposition 2).

    ``objective`` (``"stars"`` or ``"loss"``) asks for the DGH candidates of Sec. 4.4 over
    ``rt.dgh`` (lowest common ancestors, :mod:`.joins`) priced by that objective; with flat
    hierarchies and ``"stars"`` they are the suppressors, built the suppression way."""
    per = _CACHE.setdefault(rt, {})
    cap = MAX_ALL_RESTRICTED if restricted else MAX_ALL
    key = (k, 0 if p is None else p, cap, objective or "")
    if key not in per:
        joins = cost = None
        if objective is not None:
            joins = None if rt.dgh.is_flat else Joins.of(rt.dgh)
            cost = CellCosts.of(rt.dgh, objective, rt.n).of_vectors
        per[key] = (candidates(rt.codes, rt.sizes, k, max_all=cap, joins=joins, cost=cost)
                    if p is None else
                    candidates(rt.codes, rt.sizes, k, rt.counts, p, max_all=cap, joins=joins,
                               cost=cost))
    return per[key]


def size_reason(name: str, limits: Limits, rt: RowTypes, max_t_out: int | None = None
                ) -> str | None:
    """``None`` when ``t_in`` (with a restricting ``max_t_out``: ``m`` and ``t_in``) is within
    the limits, else the reason, naming the parameter and its limit."""
    if restricting(rt, max_t_out):
        if rt.m > MAX_M_RESTRICTED or rt.t_in > MAX_T_IN_RESTRICTED:
            return (f"{name} with max_t_out (Proposition 2, parameters m and t_out) accepts "
                    f"m <= {MAX_M_RESTRICTED} QI columns and t_in <= {MAX_T_IN_RESTRICTED} row "
                    f"types; this table has m = {rt.m}, t_in = {rt.t_in}: use --method auto")
        return None
    if rt.t_in > limits.max_t_in:
        return (f"{name} is fixed-parameter in t_in, the number of row types (distinct QI "
                f"vectors), and accepts t_in <= {limits.max_t_in} (so t_out <= "
                f"{limits.max_t_in}, Lemma 2); this table has t_in = {rt.t_in}: use "
                f"--method auto")
    return None


def candidate_reason(name: str, limits: Limits, cand: Candidates | None, rt: RowTypes,
                     max_t_out: int | None = None) -> str | None:
    """``None`` when the search over ``cand`` is within the limits, else the reason."""
    restricted = restricting(rt, max_t_out)
    if cand is None:
        cap = MAX_ALL_RESTRICTED if restricted else MAX_ALL
        return (f"{name}: the {rt.t_in} row types have more than {cap:,} suppressors (output "
                f"row types a guess could use), beyond what it lists: use --method auto")
    if restricted:
        assert max_t_out is not None
        g = guesses(cand.count, max_t_out)
        if g > MAX_GUESSES:
            return (f"{name} with max_t_out = {max_t_out} would enumerate {g:,} guesses of "
                    f"output row types among {cand.count:,} candidates (Proposition 2), more "
                    f"than its limit {MAX_GUESSES:,}: lower max_t_out or use --method auto")
        return None
    if cand.count > limits.max_candidates:
        return (f"{name} accepts at most {limits.max_candidates:,} candidate output row types "
                f"(suppressors of sets of row types with enough rows); this table has "
                f"{cand.count:,}: use --method auto")
    return None


def options(name: str, limits: Limits, given: dict[str, Any],
            known: tuple[str, ...] = ("max_t_out", "max_nodes")) -> tuple[int | None, int]:
    """``(max_t_out, max_nodes)`` from a solve call's options; options not ``known`` are
    refused (the DGH methods know ``max_nodes`` and ``objective``)."""
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InvalidInput(f"{name} takes the options {' and '.join(known)}, not {unknown}")
    max_t_out = given.get("max_t_out")
    max_nodes = given.get("max_nodes", limits.max_nodes)
    for label, v in (("max_t_out", max_t_out), ("max_nodes", max_nodes)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | np.integer)
                              or v < 1):
            raise InvalidInput(f"{name}: {label} must be a whole number >= 1, got {v!r}")
    return (None if max_t_out is None else int(max_t_out)), int(max_nodes)


def dgh_options(name: str, limits: Limits, given: dict[str, Any]) -> tuple[str, int]:
    """``(objective, max_nodes)`` of a DGH method's solve call (Sec. 4.4): ``objective`` is
    ``"stars"`` (default) or ``"loss"``; ``max_t_out`` is not offered (Proposition 2 is a
    result on suppression)."""
    objective = objective_option(name, given)
    _, max_nodes = options(name, limits, given, known=("max_nodes", "objective"))
    return objective, max_nodes


def dgh_reason(name: str, limits: Limits, rt: RowTypes, k: int, p: int | None = None,
               objective: str = "stars") -> str | None:
    """``None`` when a DGH method (Sec. 4.4) can solve ``rt``: ``t_in`` within the limits, the
    candidates (lowest common ancestors of sets of row types) within their number and, for
    the loss objective, its integer scale within int64's headroom."""
    return (size_reason(name, limits, rt)
            or (loss_scale_reason(name, rt.dgh, rt.n) if objective == "loss" else None)
            or candidate_reason(name, limits, candidates_for(rt, k, p, objective=objective),
                                rt))


def run(rt: RowTypes, problem: AssignmentProblem, *, name: str, guarantee: Guarantee,
        restricted_guarantee: Callable[[int], Guarantee], max_t_out: int | None,
        max_nodes: int, progress: Progress, sized_is_release: bool,
        facts: dict[str, Any], costs: CellCosts | None = None) -> ReleasePlan:
    """Search the guesses of ``problem`` and return the best as a plan.

    The certificate records the parameter (``t_in``; ``t_out`` of the release and the bound on
    ``t_out`` searched), the candidates, the flows solved and the optimum. Without a
    restricting ``max_t_out`` the optimum is the instance's and is the plan's
    ``lower_bound``; with ``max_t_out < t_in`` it is the optimum over releases with at most
    that many classes (Proposition 2) and no lower bound is claimed.

    ``costs`` (the DGH methods, Sec. 4.4): the candidates' ``omega`` are that objective's
    integer costs; the optimum is checked against the plan's cost under it, recorded with the
    objective's value, and gives the plan's ``lower_bound`` only for the stars objective (the
    lower bound of a plan counts stars: :meth:`CellCosts.stars_bound`)."""
    cand = problem.cand
    restricted = restricting(rt, max_t_out)
    if restricted:
        assert max_t_out is not None
        bound = max_t_out
        out = enumerate_guesses(problem, t_out=bound, max_nodes=max_nodes, progress=progress,
                                what=name)
    else:
        bound = max(rt.t_in, 1)
        out = branch_and_bound(problem, max_out=bound, restricted=False,
                               sized_is_release=sized_is_release, max_nodes=max_nodes,
                               progress=progress, what=name)
    best = out.best
    o, t, key, c = with_keys(rt.counts, best)
    used = np.unique(o)
    parts = [(t[o == j], key[o == j], c[o == j]) for j in used.tolist()]
    dgh = costs is not None and not rt.dgh.is_flat
    certificate = {
        "parameter": "(m, t_out)" if restricted else "t_in",
        "t_in": rt.t_in, "t_out": len(used), "t_out_searched": bound, "m": rt.m,
        "candidates": cand.count, "candidate_route": route(rt.t_in, rt.m, dgh=dgh),
        "flows": out.flows, "pruned": out.pruned, "max_nodes": max_nodes,
        "optimum": best.cost, "restricted": restricted, **facts,
    }
    if costs is not None:
        certificate.update(costs.facts(best.cost, rt.n, rt.m))
    claims = best.cost if costs is None else costs.stars_bound(best.cost)
    plan = ReleasePlan.from_vectors(
        rt, [cand.vectors[j] for j in used.tolist()], parts, name,
        restricted_guarantee(bound) if restricted else guarantee,
        lower_bound=None if restricted else claims, certificate=certificate)
    cost = plan.stars if costs is None else costs.of_plan(plan.outputs, plan.class_sizes)
    if cost != best.cost or plan.t_out != len(used):
        raise StarminError(f"{name}: the plan (cost {cost}) differs from its flow "
                           f"({best.cost}); please report this as a bug with the input")
    return plan


def auto_run(limits: Limits, rt: RowTypes, cand: Candidates, units_left: float) -> AutoRun:
    """The run ``--method auto`` makes: ``max_nodes`` cut so that the search's worst case fits
    ``min(units_left, AUTO_UNITS)`` work units (at least :data:`AUTO_MIN_NODES` flows).

    The estimate is the worst case, ``max_nodes`` flows at the measured cost of one flow on
    this network (:class:`Limits`), plus listing the candidates (``1e-8`` per merged cell,
    ``C t_in m``). It
    is computed from the instance only -- ``t_in``, ``m``, the candidates and their arcs --
    never from a clock. A run that proves the optimum sooner ends sooner (and as an exact
    method it ends the portfolio); one that reaches the cap fails with ``SolverLimit`` and the
    portfolio goes on with the budget left."""
    a, b = limits.flow_seconds
    size = cand.arcs + cand.count + rt.t_in + int((rt.counts > 0).sum())
    per_flow = a + b * size
    fit = int(min(units_left, AUTO_UNITS) / per_flow)
    nodes = max(min(limits.max_nodes, fit), AUTO_MIN_NODES)
    listing = 1e-8 * cand.count * rt.t_in * max(rt.m, 1)
    note = "" if nodes == limits.max_nodes else f"at most {nodes:,} flows"
    return AutoRun(nodes * per_flow + listing, {"max_nodes": nodes}, note)
