"""TP: Xiao, Yi & Tao's three-phase algorithm for frequency l-diversity by suppression.

Guarantee: **ratio l*d** in stars (``d`` = number of QI columns). TP is an l-approximation
for the number of suppressed tuples (Thm 3); since a suppressed tuple carries between 1 and
``d`` stars, that is an ``l*d``-approximation for the number of stars (Lemma 2). Sharper per
run, recorded in ``plan.certificate``: the tuple count is optimal when the run ends in phase
one (Cor. 1), at most ``OPT + l - 1`` in phase two (Cor. 3). ``plan.lower_bound`` is the
proven ``max(|R1|, l * h(R1))`` on the optimal number of suppressed tuples, ``R1`` the residue
after phase one (Cor. 1's proof and Cor. 2), which also bounds the optimal number of stars.

QI-groups are the row types and the pillars their counts per sensitive value. Every tuple
TP keeps is released unchanged (its row type's vector: its own class, l-eligible); the
residue set ``R`` is released as one class with every QI cell suppressed, so
``stars = d * |R|``.

Complexity: ``O(t_in * s log s)`` numpy work for phase one (``s`` sensitive values), linear
Python work in the tuples moved in phase two, ``O(t_in * n)`` worst case with phase three
(Thm 4; the paper's ``s`` is our ``t_in``).

References
----------
X. Xiao, K. Yi and Y. Tao, "The Hardness and Approximation Algorithms for L-Diversity",
EDBT 2010: Def. 2 (l-eligible), Lemma 1 (feasibility), Lemma 2 (tuples to stars), Sec. 5
(the algorithm; Cor. 1-3, Thm 3), Sec. 5.5 (implementation, Thm 4).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from starmin.algorithms.approx import tp_phases
from starmin.algorithms.base import Algorithm, Progress, fixed_work, known_options, silent
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, InvalidInput
from starmin.models import LDiversity
from starmin.models.base import PrivacyModel
from starmin.transform.plan import STAR, Guarantee, ReleasePlan

NAME = "tp"
REFERENCE = "Xiao, Yi & Tao, EDBT 2010, Sec. 5, Thm 3 and Lemma 2"
STATEMENT = ("stars <= l*d * OPT (d = QI columns). Thm 3: 'Our algorithm finds an "
             "l-approximate solution to the tuple minimization problem'; Lemma 2: 'A "
             "lambda-approximate solution to Problem 2 is a lambda*d-approximate solution to "
             "Problem 1'. Sharper per run: optimal tuple count if it ends in phase one (Cor. 1), "
             "at most OPT + l - 1 tuples in phase two (Cor. 3)")


def star_ratio(model: PrivacyModel, rt: RowTypes) -> float:
    """``l * d``: the ratio in stars that Thm 3 (l in suppressed tuples) and Lemma 2 (a
    lambda-approximation in tuples is a lambda*d-approximation in stars) prove for TP and TP+
    on a frequency l-diversity instance with ``d`` QI columns."""
    return float((l_parameter(model) or 1) * rt.m)


GUARANTEE = Guarantee(kind="ratio", statement=STATEMENT, reference=REFERENCE,
                      ratio_of=star_ratio)

_TUPLE_BOUND = {
    1: "suppressed tuples = OPT_tuples (optimal, Cor. 1)",
    2: "suppressed tuples <= OPT_tuples + l - 1 (Cor. 3)",
    3: "suppressed tuples < l * OPT_tuples (Thm 3)",
}


def l_parameter(model: PrivacyModel) -> int | None:
    """``l`` of a frequency l-diversity model (:class:`starmin.models.LDiversity`), else None."""
    return int(model.l) if isinstance(model, LDiversity) else None


def support_reason(model: PrivacyModel, rt: RowTypes, method: str) -> str | None:
    """Why ``method`` (tp, tp+, hilbert) cannot solve this instance, or None."""
    l = l_parameter(model)
    if l is None:
        return (f"{method} solves frequency l-diversity only (each sensitive value at most 1/l "
                f"of its class), not {getattr(model, 'name', model)}: choose another method")
    if len(rt.sensitive) != 1:
        return (f"{method} needs exactly one sensitive column (Xiao et al. Sec. 3), the table "
                f"has {len(rt.sensitive)}: name one sensitive column")
    return None


def require_l(model: PrivacyModel, rt: RowTypes, method: str) -> int:
    """The whole-number ``l`` of ``model``; :class:`InvalidInput` when unsupported, and
    :class:`Infeasible` when the table itself is not l-eligible (Lemma 1)."""
    reason = support_reason(model, rt, method)
    if reason is not None:
        raise InvalidInput(reason)
    l = l_parameter(model)
    assert l is not None
    check_l_eligible(rt, l)
    return l


def check_l_eligible(rt: RowTypes, l: int) -> None:
    """Raise :class:`Infeasible` unless at most ``n / l`` rows share a sensitive value: by
    Lemma 1 (monotonicity) an l-diverse release exists exactly then."""
    totals = rt.counts.sum(axis=0)
    n = int(totals.sum())
    if n == 0:
        return
    j = int(np.argmax(totals))
    c = int(totals[j])
    if c * l > n:
        value = rt.sensitive_domains[0][int(rt.keys[j, 0])]
        raise Infeasible(
            f"no {l}-diverse release exists: value {value!r} has frequency {c}/{n} = "
            f"{c / n:.4g} > 1/{l} in the whole table (Xiao et al. Lemma 1); choose l <= {n // c}")


def plan_from_run(rt: RowTypes, l: int, run: tp_phases.TPRun, method: str = NAME
                  ) -> ReleasePlan:
    """Release every kept tuple as its row type and ``R`` as one all-star class."""
    keep_t = np.flatnonzero(run.kept.sum(axis=1) > 0)
    out_of_type = np.full(rt.t_in, -1, dtype=np.int64)
    out_of_type[keep_t] = np.arange(len(keep_t))
    kt, kk = np.nonzero(run.kept)
    rt_, rk = np.nonzero(run.removed)
    outputs = rt.codes[keep_t]
    if len(rt_):
        outputs = np.vstack([outputs, np.full((1, rt.m), STAR, dtype=np.int32)])
    d = rt.m
    tuples = int(run.removed.sum())
    r1 = run.residue_one
    lb = max(int(r1.sum()), l * int(r1.max())) if len(r1) else 0
    stars = d * tuples
    certificate: dict[str, Any] = {
        "phase": run.phase, "l": l, "d": d,
        "suppressed_tuples": tuples,
        "tuple_bound": _TUPLE_BOUND[run.phase] if tuples else "no tuple suppressed (optimal)",
        "tuple_lower_bound": lb,
        "tuple_lower_bound_reason": "OPT_tuples >= max(|R1|, l*h(R1)): Cor. 1 proof, Cor. 2",
        "star_bounds": "OPT_stars >= OPT_tuples; stars = d * suppressed tuples (Lemma 2)",
        "phase_one_residue": int(r1.sum()), "phase_one_pillar_height": int(r1.max(initial=0)),
        "phase_two_iterations": run.iterations, "phase_three_rounds": run.rounds,
        "instance_ratio_bound": (stars / lb) if lb else (1.0 if stars == 0 else None),
    }
    guarantee = Guarantee(kind="ratio", statement=STATEMENT, reference=REFERENCE,
                          ratio=float(l * d), ratio_of=star_ratio)
    return ReleasePlan(
        outputs=outputs,
        out_idx=np.concatenate([out_of_type[kt], np.full(len(rt_), len(keep_t))]),
        type_idx=np.concatenate([kt, rt_]), key_idx=np.concatenate([kk, rk]),
        count=np.concatenate([run.kept[kt, kk], run.removed[rt_, rk]]),
        method=method, guarantee=guarantee, lower_bound=lb, certificate=certificate)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """TP release of ``rt`` under frequency l-diversity (see the module docstring).

    ``seed`` is unused: TP is deterministic (ties broken by smallest code / index).

    Raises
    ------
    InvalidInput
        The model is not frequency l-diversity with a whole-number ``l``, or the table does
        not have exactly one sensitive column.
    Infeasible
        Some sensitive value has frequency above ``1/l`` in the whole table (Lemma 1).
    """
    known_options(NAME, options, set())
    progress = progress or silent
    l = require_l(model, rt, NAME)
    progress(f"tp: {rt.t_in} QI-groups, {rt.s} sensitive values, l = {l}")
    run = tp_phases.run(rt.counts, l, progress=progress)
    progress(f"tp: ended in phase {run.phase}, {int(run.removed.sum())} tuples suppressed")
    return plan_from_run(rt, l, run)


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """None when TP applies: frequency l-diversity, whole l, one sensitive column."""
    return support_reason(model, rt, NAME)


def auto_work(model: PrivacyModel, rt: RowTypes) -> float:
    """Estimated work units for ``--method auto``: ``2e-7 x t_in x s`` (adult, occupation:
    0.03, measured 0.01 CPU s)."""
    return 2e-7 * rt.t_in * max(rt.s, 1)

ALGORITHM = Algorithm(
    name=NAME,
    summary="three-phase l-diversity (Xiao, Yi & Tao): l*d-approximation, near-linear time",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=fixed_work(auto_work),
)
