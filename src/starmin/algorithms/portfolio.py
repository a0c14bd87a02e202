"""``--method auto``: run the applicable methods within a work budget, release the fewest stars.

Members. Every registered algorithm whose registry entry declares ``auto`` (an
:data:`~starmin.algorithms.base.AutoPlan`: the estimated work of its run on an instance, and
the options it runs with) is a member; a new method joins by declaring it, nothing else.

The budget is counted in *work units* (about one CPU second each on the reference machine),
estimated from the instance's size only -- row types ``t_in``, QI columns ``m``, sensitive
values ``s``, the model's parameters -- never measured with a clock. So which methods run,
with which options, and which release wins are the same on every machine under any load, and
the release is byte-identical for the same input and seed. :data:`BUDGET` units are shared by
all runs of one solve.

The runs, for the members that ``support`` the instance:

1. *Exact methods first.* Exact (and FPT) members run in registry order while their
   estimate fits the budget left; the first whose plan is proven (its guarantee exact or
   fpt) released an optimum, so nothing else runs. A failure (e.g. a solver's work limit)
   is recorded and the next one tries; a plan a work limit left marked ``bound`` (e.g.
   class-partition's) is kept as a release like the others', and the search goes on.
2. *The others*, cheapest estimate first (ties: registry order): each runs if its estimate
   fits the budget left, else it is skipped as over budget -- except that the first of them
   always runs when nothing has been released yet, so ``auto`` always releases. A member
   with cheaper variants (its ``auto`` receives the units left) may run capped. A run that
   releases no stars is optimal (no release has fewer), so the members after it are skipped
   as not needed (tables whose row types all satisfy the model on their own); so are they
   once the fewest stars so far are proven within :data:`NEAR` (1 %) of the optimum by the
   largest lower bound a run proved (no member could release more than 1 % fewer).
3. *The release* is the plan with the fewest stars; ties go to the stronger guarantee of
   the plan (exact, fpt, ratio, bound, heuristic, in that order), then to registry order.

The plan keeps its own method name and guarantee. Its certificate gains ``portfolio`` (each
member: its guarantee kind, status ``released`` / ``tried`` / ``failed`` / ``skipped``, its
stars when it ran, the estimated work, and the reason when it was skipped or failed),
``portfolio_budget`` (units, spent), the LP bound a member proved (``lp_bound``,
``lp_relaxation``, ``lp_bound_from``: the report reuses it), and, when a ``ratio`` member
ran, ``portfolio_ratio``:
the release has at most that member's stars, so that member's proven ratio bounds it too.
The plan's ``lower_bound`` is the largest lower bound any run proved (each is a bound on the
instance's optimum, whatever method proved it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from starmin.algorithms.base import Algorithm, AutoRun, Progress, silent
from starmin.data.rowtypes import RowTypes
from starmin.errors import SolverLimit
from starmin.models.base import PrivacyModel
from starmin.transform.plan import ReleasePlan

BUDGET = 8.0
"""Work units one ``auto`` solve may spend on its runs (about 8 CPU seconds on the reference
machine, leaving room for reading, lower bounds, applying and verifying within ~10 s on ARX
adult; see docs/algorithms/portfolio.md)."""

NEAR = 0.01
"""A release proven within this fraction of the optimum (its stars at most ``(1 + NEAR)``
times the largest lower bound a run proved) ends the search: the members after it are
skipped as not needed, since none could release more than ``NEAR`` fewer stars."""

STRENGTH = ("exact", "fpt", "ratio", "bound", "heuristic")
"""Guarantee kinds, strongest first: the tie order among releases with equal stars."""

Status = Literal["released", "tried", "failed", "skipped"]


@dataclass(frozen=True)
class Trial:
    """What the portfolio did with one member on this instance."""

    method: str
    guarantee: str
    status: Status
    work: float | None = None
    """Estimated work units of the run (``None``: not estimated, the method is unsupported)."""
    stars: int | None = None
    reason: str = ""
    note: str = ""
    """The options' effect, when the run was capped (:class:`AutoRun.note`)."""
    seconds: float | None = field(default=None, compare=False)
    """Wall time of the run: reported, never part of the plan's certificate."""

    def as_dict(self, seconds: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {"method": self.method, "guarantee": self.guarantee,
                             "status": self.status, "stars": self.stars,
                             "work": None if self.work is None else round(self.work, 3)}
        if self.note:
            d["note"] = self.note
        if self.reason:
            d["reason"] = self.reason
        if seconds and self.seconds is not None:
            d["seconds"] = round(self.seconds, 3)
        return d


def members() -> dict[str, Algorithm]:
    """The portfolio's members, in registry order: the algorithms that declare ``auto``."""
    from starmin.algorithms.registry import algorithms

    return {n: a for n, a in algorithms().items() if a.auto is not None}


def _plan_of(a: Algorithm, model: PrivacyModel, rt: RowTypes, left: float) -> AutoRun:
    assert a.auto is not None
    return a.auto(model, rt, max(left, 0.0))


def run(rt: RowTypes, model: PrivacyModel, *, seed: int = 0, progress: Progress | None = None,
        budget: float = BUDGET) -> tuple[ReleasePlan, list[Trial]]:
    """The portfolio's release of ``rt`` under ``model`` and what it did with each member
    (see the module docstring). Raises the last failure when no run succeeded, and
    ``InvalidInput`` when no member supports the instance."""
    from starmin.errors import InvalidInput

    say = progress or silent
    table = members()
    order = list(table)
    trials: dict[str, Trial] = {}
    supported: list[Algorithm] = []
    for name, a in table.items():
        reason = a.supports(model, rt)
        if reason is None:
            supported.append(a)
        else:
            trials[name] = Trial(name, a.guarantee.kind, "skipped",
                                 reason=f"unsupported: {reason}")
    if not supported:
        reasons = "; ".join(f"{t.method}: {t.reason}" for t in trials.values())
        raise InvalidInput(f"no algorithm supports {getattr(model, 'name', model)} on this "
                           f"table ({reasons})")
    exact = [a for a in supported if a.guarantee.kind in ("exact", "fpt")]
    others = sorted((a for a in supported if a not in exact),
                    key=lambda a: (_plan_of(a, model, rt, budget).work, order.index(a.name)))
    left = budget
    plans: dict[str, ReleasePlan] = {}
    failure: Exception | None = None

    def attempt(a: Algorithm, r: AutoRun) -> None:
        nonlocal left, failure
        left -= r.work
        kind = a.guarantee.kind
        t0 = time.perf_counter()
        try:
            plan = a.solve(rt, model, seed=seed, progress=say, **dict(r.options))
            plan.validate(rt)
        except SolverLimit as exc:
            failure = exc
            trials[a.name] = Trial(a.name, kind, "failed", r.work, reason=str(exc),
                                   note=r.note, seconds=time.perf_counter() - t0)
            say(f"auto: {a.name} ({kind}) failed: {exc}")
            return
        dt = time.perf_counter() - t0
        plans[a.name] = plan
        kind = plan.guarantee.kind  # 'bound' when a work limit stopped an exact method
        trials[a.name] = Trial(a.name, kind, "tried", r.work, plan.stars, note=r.note,
                               seconds=dt)
        say(f"auto: {a.name} ({kind}{', ' + r.note if r.note else ''}): {plan.stars:,} stars "
            f"({dt:.2f} s)")

    def skip(a: Algorithm, r: AutoRun | None, why: str) -> None:
        trials[a.name] = Trial(a.name, a.guarantee.kind, "skipped",
                               None if r is None else r.work, reason=why,
                               note="" if r is None else r.note)
        say(f"auto: {a.name} skipped: {why}")

    optimal: str | None = None
    starless: str | None = None  # a run that released no stars: nothing can beat it
    near: str | None = None  # why a release proven within NEAR of the optimum ends the search
    for a in exact:
        r = _plan_of(a, model, rt, left)
        if optimal is not None:
            skip(a, r, f"not needed: the exact method {optimal} released an optimum")
        elif r.work > left:
            skip(a, r, _over(r, left, budget))
        else:
            attempt(a, r)
            optimal = a.name if _proven(plans.get(a.name)) else None
    for a in others:
        r = _plan_of(a, model, rt, left)
        if optimal is not None:
            skip(a, r, f"not needed: the exact method {optimal} released an optimum")
        elif starless is not None:
            skip(a, r, f"not needed: {starless} released no stars, the optimum")
        elif near is not None:
            skip(a, r, near)
        elif r.work > left and plans:
            skip(a, r, _over(r, left, budget))
        else:
            attempt(a, r)
            if a.name in plans and plans[a.name].stars == 0:
                starless = a.name
            near = _near_optimal(plans)
    if not plans:
        assert failure is not None
        raise failure
    rank = {k: i for i, k in enumerate(STRENGTH)}
    best = min(plans, key=lambda n: (plans[n].stars, rank[plans[n].guarantee.kind],
                                     order.index(n)))
    trials[best] = replace(trials[best], status="released")
    listed = [trials[n] for n in order if n in trials]
    chosen = plans[best]
    cert: dict[str, Any] = dict(chosen.certificate)
    cert["portfolio"] = [t.as_dict() for t in listed]
    cert["portfolio_budget"] = {"units": budget, "spent": round(budget - left, 3)}
    ratios = [(float(p.guarantee.ratio), p.stars, order.index(n), n) for n, p in plans.items()
              if table[n].guarantee.kind == "ratio" and p.guarantee.ratio is not None]
    if ratios:  # the smallest ratio; then the fewest stars, then registry order
        r_best, _, _, via = min(ratios)
        cert["portfolio_ratio"] = {"ratio": r_best, "via": via, "statement": (
            f"stars <= {via}'s stars <= {r_best:g} x OPT ({via}'s proven ratio)")}
    if "lower_bounds" not in cert:  # k-anonymity bounds another run computed: instance facts
        for n, p in plans.items():
            if "lower_bounds" in p.certificate:
                cert["lower_bounds"], cert["lower_bounds_from"] = p.certificate["lower_bounds"], n
                break
    if "lp_bound" not in cert:  # an LP bound another run proved: the report need not redo it
        for n, p in plans.items():
            if "lp_bound" in p.certificate and "lp_relaxation" in p.certificate:
                for key in ("lp_bound", "lp_relaxation", "lp_complete"):
                    if key in p.certificate:
                        cert[key] = p.certificate[key]
                cert["lp_bound_from"] = n
                break
    bounds = [p.lower_bound for p in plans.values() if p.lower_bound is not None]
    lower = max(bounds) if bounds else None
    say(f"auto: released {best} ({chosen.guarantee.kind}): {chosen.stars:,} stars, the "
        f"fewest of {len(plans)} run{'s' if len(plans) != 1 else ''} "
        f"({budget - left:.2f} of {budget:g} work units)")
    return chosen.with_info(certificate=cert, lower_bound=lower), listed


def _proven(plan: ReleasePlan | None) -> bool:
    """Whether an exact member's run released a proven optimum: its plan's own guarantee is
    exact or fpt (a member stopped by a work limit may release its best plan marked
    ``bound``, which counts as a run like any other)."""
    return plan is not None and plan.guarantee.kind in ("exact", "fpt")


def _near_optimal(plans: dict[str, ReleasePlan]) -> str | None:
    """The reason to skip the members left when the fewest stars so far are proven within
    :data:`NEAR` of the optimum by the largest lower bound a run proved, else ``None``."""
    bounds = [p.lower_bound for p in plans.values() if p.lower_bound]
    if not bounds:
        return None
    lower = max(bounds)
    best = min(plans, key=lambda n: plans[n].stars)
    stars = plans[best].stars
    if stars > lower * (1 + NEAR):
        return None
    if stars <= lower:
        return f"not needed: {best}'s {stars:,} stars equal a proven lower bound: an optimum"
    return (f"not needed: {best}'s {stars:,} stars are proven within {NEAR:.0%} of the "
            f"optimum (lower bound {lower:,}: at most {stars - lower:,} fewer stars possible)")


def _over(r: AutoRun, left: float, budget: float) -> str:
    return (f"over budget: estimated {r.work:.2f} work units, {max(left, 0.0):.2f} of "
            f"{budget:g} left")
