"""LP rounding: column generation on the row-type LP core, then fix, re-solve and repair.

Guarantee: **heuristic** release with a **certified bound**: the plan's ``lower_bound`` is the
column-generation bound of :mod:`.colgen` (the LP optimum over every output vector when
pricing completes), so every run reports how far it can be from the optimum. The release is
verified like every release.

Models: k-anonymity, frequency l-diversity, recursive (c, l)-diversity, t-closeness under the
equal, ordered and hierarchical distances, and conjunctions of these on one sensitive column.
The LP prices the model's main constraint (``cap`` for l-diversity, ``t`` for t-closeness,
else ``k``); the rounding MILP holds every linear constraint at once; a class that still fails
(recursive diversity's strict inequality) is merged away (:mod:`.rounding`).

Work limits (the same on every machine): ``max_rounds`` LP rounds (60), ``max_patterns``
suppression patterns priced per round (5,000; beyond, the bound is capped as in
:mod:`.colgen`), ``node_limit`` branch-and-bound nodes of the rounding MILP (2,000), and the
instance limits of :func:`supports` (``t_in`` and ``m``).

References: Liang & Yuan, Sec. 4, Thm 9; Bredereck et al., Sec. 4.3; Xiao et al., Def. 2.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from starmin.algorithms.base import Algorithm, Progress, silent
from starmin.algorithms.lp.colgen import column_generation
from starmin.algorithms.lp.relaxation import Relaxation, relaxations
from starmin.algorithms.lp.rounding import round_lp
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import check_feasible, holds
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k, parts
from starmin.transform.plan import Guarantee, ReleasePlan, suppressor

NAME = "lp-rounding"
MAX_T_IN = 50_000
MAX_M = 16
GUARANTEE = Guarantee(
    "heuristic",
    "no ratio; the plan carries the certified LP bound (column generation over every output "
    "vector), so the reported gap is proven",
    "Liang & Yuan Sec. 4 Thm 9; Bredereck et al. Sec. 4.3",
)
_OPTIONS = {"max_rounds", "max_patterns", "node_limit", "bounds"}


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    from starmin.models.k_anonymity import KAnonymity
    from starmin.models.l_diversity import LDiversity, RecursiveCLDiversity
    from starmin.models.t_closeness import TCloseness

    for part in parts(model):
        if not isinstance(part, KAnonymity | LDiversity | RecursiveCLDiversity | TCloseness):
            return f"{part.name} is not linear in the LP core yet"
        if isinstance(part, TCloseness) and not any(
                r.t is not None for r in relaxations(part, rt)):
            return "t-closeness under a matrix distance is not in the LP core yet"
    if len(rt.sensitive) > 1:
        return "one sensitive column at most"
    if rt.t_in > MAX_T_IN:
        return f"t_in = {rt.t_in} row types is over its limit of {MAX_T_IN}"
    if rt.m > MAX_M:
        return f"m = {rt.m} QI columns is over its limit of {MAX_M}"
    return None


def combined(model: PrivacyModel, rt: RowTypes) -> Relaxation:
    """Every linear constraint of the model on its one sensitive column, for the MILP."""
    rels = relaxations(model, rt)
    caps = [r for r in rels if r.cap is not None]
    ts = [r for r in rels if r.t is not None]
    base = ts[0] if ts else (caps[0] if caps else Relaxation("k"))
    cap = min((r.cap for r in caps if r.cap is not None), default=None)
    if len(ts) > 1:
        raise InvalidInput("lp-rounding takes one t-closeness model at a time")
    return Relaxation("all constraints", k=implied_k(model), column=base.column, cap=cap,
                      t=base.t, cuts=base.cuts, d=base.d, value_of_key=base.value_of_key,
                      p=base.p)


def primary(rels: list[Relaxation]) -> Relaxation:
    """The relaxation the LP prices: ``cap``, else ``t``, else ``k``."""
    for pick in (lambda r: r.cap is not None, lambda r: r.t is not None, lambda r: True):
        for r in rels:
            if pick(r):
                return r
    raise InvalidInput("the model constrains nothing the LP core can price (k = 1)")


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    unknown = set(options) - _OPTIONS
    if unknown:
        raise InvalidInput(f"unknown option(s) for {NAME}: {', '.join(sorted(unknown))}; "
                           f"choose from {', '.join(sorted(_OPTIONS))}")
    say = progress or silent
    reason = supports(model, rt)
    if reason is not None:
        raise InvalidInput(f"{NAME} cannot solve this instance: {reason}")
    check_feasible(model, rt)
    rels = relaxations(model, rt)
    if not rels:
        return _one_class_per_type(rt)
    rel = primary(rels)
    cg = column_generation(rt, rel, max_rounds=int(options.get("max_rounds", 60)),
                           max_patterns=int(options.get("max_patterns", 5000)), progress=say)
    full = combined(model, rt)
    x = round_lp(cg.pairs, full, cg.blocks, cg.lp.x,
                 node_limit=int(options.get("node_limit", 2000)))
    groups = _groups(cg, x)
    groups = _repair(rt, model, groups)
    plan = ReleasePlan.from_groups(
        rt, groups, NAME, GUARANTEE, lower_bound=cg.bound,
        certificate={"lp_value": round(cg.lp_value, 6), "lp_bound": cg.bound,
                     "lp_relaxation": rel.name, "lp_rounds": cg.rounds,
                     "lp_complete": cg.complete, "lp_vectors": cg.blocks.B, "seed": seed})
    say(f"{NAME}: {plan.stars} stars, certified bound {cg.bound}")
    return plan


Group = tuple[np.ndarray, np.ndarray, np.ndarray]


def _groups(cg: Any, x: np.ndarray) -> list[Group]:
    live = x > 0.5
    bo = cg.blocks.block_of[live]
    po = cg.blocks.pair_of[live]
    cnt = x[live].astype(np.int64)
    out: list[Group] = []
    order = np.argsort(bo, kind="stable")
    bo, po, cnt = bo[order], po[order], cnt[order]
    cuts = np.nonzero(np.diff(bo))[0] + 1
    for ps, cs in zip(np.split(po, cuts), np.split(cnt, cuts), strict=True):
        if len(ps):
            out.append((cg.pairs.type_of[ps], cg.pairs.key_of[ps], cs))
    return out


def _repair(rt: RowTypes, model: PrivacyModel, groups: list[Group]) -> list[Group]:
    """Merge failing classes away (step 4 of :mod:`.rounding`)."""
    def counts(gr: Group) -> np.ndarray:
        kc = np.zeros(rt.s, dtype=np.int64)
        np.add.at(kc, gr[1], gr[2])
        return kc

    def cost(gr: Group) -> int:
        sup = suppressor(rt.codes[np.unique(gr[0])])
        return int(gr[2].sum()) * int((sup < 0).sum())

    while groups:
        ok = holds(model, rt, np.array([counts(g) for g in groups]))
        if ok.all():
            return groups
        a = int(np.nonzero(~ok)[0][0])
        best: tuple[int, int, int] | None = None
        for b in range(len(groups)):
            if b == a:
                continue
            u = _union(groups[a], groups[b])
            passes = bool(holds(model, rt, counts(u)[None, :])[0])
            extra = cost(u) - cost(groups[a]) - cost(groups[b])
            key = (0 if passes else 1, extra, b)
            if best is None or key < best:
                best = key
        if best is None:
            return groups  # the whole table is one class and fails: infeasible, caught earlier
        b = best[2]
        merged = _union(groups[a], groups[b])
        groups = [g for i, g in enumerate(groups) if i not in (a, b)] + [merged]
    return groups


def _union(a: Group, b: Group) -> Group:
    return (np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]]),
            np.concatenate([a[2], b[2]]))


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
)
