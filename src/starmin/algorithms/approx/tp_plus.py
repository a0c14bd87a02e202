"""TP+: TP, then the Hilbert heuristic on TP's residue set (Xiao, Yi & Tao, Sec. 5.6, 6.1).

Guarantee: **ratio l*d** in stars, as TP (Thm 3 + Lemma 2): TP+ never has more stars than
TP. TP keeps an l-eligible part of every QI-group and releases the residue set ``R`` with
``d`` stars per tuple. TP+ instead cuts ``R`` into l-eligible groups along the Hilbert order;
a column constant on ``R`` is constant on each of its groups, so each group costs at most
``d`` stars per tuple and the total never exceeds TP's (Sec. 5.6: "such a hybrid approach
always outperforms our algorithm"). The stars are compared anyway and TP's release is
returned if TP+ were ever worse (``certificate["fallback"]``). A group of ``R`` whose
suppressor equals a kept row type's vector joins that class (l-eligible by Lemma 1).
``plan.lower_bound`` is TP's ``max(|R1|, l * h(R1))`` (Cor. 1's proof, Cor. 2).

Complexity: TP's, plus the Hilbert cut of ``R``'s row types (``O(t_R log t_R)`` and a pass
over their non-zero counts).

References
----------
X. Xiao, K. Yi and Y. Tao, "The Hardness and Approximation Algorithms for L-Diversity",
EDBT 2010: Sec. 5.6 (third point: TP combined with a heuristic on R), Sec. 6.1 (TP+ = TP
then Hilbert on R), Thm 3, Lemma 1, Lemma 2. G. Ghinita et al., VLDB 2007 (Hilbert).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from starmin.algorithms.approx import tp_phases
from starmin.algorithms.approx.tp import plan_from_run, require_l, star_ratio, support_reason
from starmin.algorithms.base import Algorithm, Progress, fixed_work, known_options, silent
from starmin.algorithms.heuristic.hilbert import hilbert_groups, plan_from_entries
from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "tp+"
OPTIONS = ("cut",)
"""The options :func:`solve` takes."""
REFERENCE = "Xiao, Yi & Tao, EDBT 2010, Sec. 5.6 and 6.1; Thm 3 and Lemma 2"
STATEMENT = ("stars <= TP's stars <= l*d * OPT (d = QI columns): TP is an l-approximation in "
             "suppressed tuples (Thm 3), each with 1 to d stars (Lemma 2); Hilbert on TP's "
             "residue never adds stars (Sec. 5.6)")
GUARANTEE = Guarantee(kind="ratio", statement=STATEMENT, reference=REFERENCE,
                      ratio_of=star_ratio)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """TP+ release of ``rt`` under frequency l-diversity (see the module docstring).

    Options: ``cut`` for the Hilbert cut of ``R``, ``"buckets"`` (default) or ``"greedy"``
    (:mod:`starmin.algorithms.heuristic.hilbert_cut`). ``seed`` is unused: TP and the cut
    are deterministic.

    Raises
    ------
    InvalidInput
        Not frequency l-diversity with a whole ``l``, or not exactly one sensitive column.
    Infeasible
        Some sensitive value has frequency above ``1/l`` in the whole table (Lemma 1).
    """
    known_options(NAME, options, set(OPTIONS))
    progress = progress or silent
    l = require_l(model, rt, NAME)
    run = tp_phases.run(rt.counts, l, progress=progress)
    tp_plan = plan_from_run(rt, l, run, method=NAME)
    guarantee = Guarantee(kind="ratio", statement=STATEMENT, reference=REFERENCE,
                          ratio=float(l * rt.m), ratio_of=star_ratio)
    cert = dict(tp_plan.certificate)
    cert.update(tp_stars=tp_plan.stars, fallback=False, residue_groups=0)
    if run.removed.sum() == 0:
        return tp_plan.with_info(guarantee=guarantee, certificate=cert)
    progress(f"tp+: TP ended in phase {run.phase}; Hilbert on {int(run.removed.sum())} "
             f"residue tuples")
    # Hilbert on R's row types (Sec. 6.1).  types: (t_R,) indices into rt
    types = np.flatnonzero(run.removed.sum(axis=1) > 0)
    cut = str(options.get("cut", "buckets"))
    gid, ti, ki, cnt = hilbert_groups(rt.codes[types], run.removed[types], rt.cardinalities, l,
                                      cut)
    n_groups = int(gid.max()) + 1
    # Every kept part is a group of its own (one row type: no star).
    kt, kk = np.nonzero(run.kept)
    _, kgid = np.unique(kt, return_inverse=True)
    entries = (np.concatenate([gid, n_groups + kgid.reshape(-1)]),
               np.concatenate([types[ti], kt]), np.concatenate([ki, kk]),
               np.concatenate([cnt, run.kept[kt, kk]]))
    cert.update(residue_groups=n_groups, cut=cut)
    plan = plan_from_entries(rt, entries, NAME, guarantee, tp_plan.lower_bound, cert)
    if plan.stars > tp_plan.stars:                             # never worse than TP
        cert.update(fallback=True)
        return tp_plan.with_info(guarantee=guarantee, certificate=cert)
    cert.update(instance_ratio_bound=(plan.stars / plan.lower_bound if plan.lower_bound
                                      else 1.0))
    return plan.with_info(certificate=cert)


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """None for frequency l-diversity with a whole ``l`` and one sensitive column."""
    return support_reason(model, rt, NAME)


def auto_work(model: PrivacyModel, rt: RowTypes) -> float:
    """Estimated work units for ``--method auto``: TP's and the Hilbert cut of its residue,
    ``1e-6 x t_in x (m + s)`` (adult, 8 QIs, occupation: 0.27, measured 0.2-0.3 CPU s)."""
    return 1e-6 * rt.t_in * (rt.m + max(rt.s, 1))

ALGORITHM = Algorithm(
    name=NAME,
    summary="TP, then Hilbert on its residue (Xiao, Yi & Tao Sec. 6.1): l*d-approximation",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=fixed_work(auto_work),
    options=OPTIONS,
)
