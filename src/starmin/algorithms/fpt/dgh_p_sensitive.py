"""DGH p-sensitive k-anonymity on row types: Bredereck et al.'s Corollary 2 (Sec. 4.4).

Guarantee: **fpt, parameter t_in** -- the release is p-sensitive k-anonymous (every class has
``>= k`` rows and ``>= p`` distinct sensitive values), every released cell is the row's value,
one of its hierarchy ancestors (``RowTypes.dgh``) or ``*``, and it has the least objective of
any such release (local recoding): ``objective="stars"`` (default) or ``"loss"`` (Iyengar's
loss, :mod:`starmin.algorithms.objective`).

Algorithm. Corollary 2 makes Theorem 5's change (:mod:`.dgh_k_anonymity`: each output row
type's entries are the lowest common ancestors of the row types assigned to it, :mod:`.joins`)
to the p-sensitivity algorithm of Theorem 4 (:mod:`.p_sensitive`): the guesses are sets of at
most ``t_in`` such vectors, each solved as p-ROW ASSIGNMENT (Lemma 3, :mod:`.p_row_assignment`)
with ``omega_j`` the objective's integer cost, searched by branch and bound (:mod:`.search`).
Exactness as for Theorem 5: replacing a class's vector by the LCA of its row types costs no
more and keeps its rows and values, and merged equal vectors keep ``>= k`` rows and ``>= p``
values; Lemma 2 holds since moving rows only adds rows and values to other classes.

With flat hierarchies and the stars objective it is ``fpt-p-sensitive``: the same plan.

One sensitive column (the paper's private column). Limits (those of ``fpt-p-sensitive``):
``t_in <= 16``, 1,500 candidates, ``max_nodes`` flows (30,000); for the loss objective
``L x m x n <= 2^44``. Complexity: Corollary 2's ``O(nm + 2^(t_in^2) (t_in^2 nm + (n + |Sigma|
t_in)^4 log(n + |Sigma| t_in)))`` in the worst case.

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 4.4 (DGH-p-SENSITIVITY,
Corollary 2), Sec. 4.3 (p-ROW ASSIGNMENT, Lemma 3, Theorem 4), Sec. 4.1 (Algorithm 1, Lemma 2).
"""

from __future__ import annotations

from typing import Any

from starmin.algorithms.base import Algorithm, Progress, silent
from starmin.algorithms.fpt import release
from starmin.algorithms.fpt.dgh_k_anonymity import stated
from starmin.algorithms.fpt.models import p_sensitivity
from starmin.algorithms.fpt.p_row_assignment import PRowAssignment
from starmin.algorithms.fpt.p_sensitive import LIMITS, restricted_guarantee
from starmin.algorithms.objective import CellCosts
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "dgh-p-sensitive"
GUARANTEE = Guarantee(
    kind="fpt",
    statement="least objective (stars; or Iyengar's loss with objective loss) over all "
              "p-sensitive k-anonymous releases whose cells are values, their hierarchy "
              "ancestors or *; work exponential in t_in (row types, at most 16) only",
    reference="Bredereck et al., Sec. 4.4, Cor. 2 (Lemma 3, Thm 4, Lemma 2)",
    parameter="t_in",
)


def _reason(model: PrivacyModel, rt: RowTypes, objective: str) -> str | None:
    pk = p_sensitivity(model)
    if pk is None:
        return (f"{NAME} solves p-sensitive k-anonymity only, not {model.name}: use "
                "dgh-k-anonymity for k-anonymity, or --method auto")
    if len(rt.sensitive) != 1:
        return (f"{NAME} needs exactly one sensitive column (the paper's private column), the "
                f"table has {len(rt.sensitive)}: declare one, or use --method auto")
    p, k = pk
    return release.dgh_reason(NAME, LIMITS, rt, k, p, objective=objective)


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` for p-sensitive k-anonymity with one sensitive column, ``t_in <= 16``."""
    return _reason(model, rt, "stars")


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """The p-sensitive k-anonymous release over hierarchy nodes with the least objective
    (Corollary 2).

    Options: ``objective`` (``"stars"``, default, or ``"loss"``), ``max_nodes`` (flows,
    default 30,000). Deterministic. Raises ``Infeasible`` when no release exists,
    ``InvalidInput`` beyond the limits, ``SolverLimit`` at ``max_nodes``."""
    objective, max_nodes = release.dgh_options(NAME, LIMITS, options)
    if p_sensitivity(model) is not None:
        check_feasible(model, rt)  # a missing sensitive column is named before the limits
    reason = _reason(model, rt, objective)
    if reason is not None:
        raise InvalidInput(reason)
    pk = p_sensitivity(model)
    assert pk is not None
    p, k = pk
    cand = release.candidates_for(rt, k, p, objective=objective)
    assert cand is not None  # else _reason refused
    problem = PRowAssignment(rt.counts, cand, k, p)
    if objective == "loss":
        problem.unit = "loss units"
    return release.run(rt, problem, name=NAME, guarantee=stated(GUARANTEE, objective),
                       restricted_guarantee=restricted_guarantee, max_t_out=None,
                       max_nodes=max_nodes, progress=progress or silent,
                       sized_is_release=False,
                       facts={"k": k, "p": p, "sensitive_values": rt.s},
                       costs=CellCosts.of(rt.dgh, objective, rt.n))


ALGORITHM = Algorithm(
    name=NAME,
    summary="exact p-sensitive k-anonymity over hierarchy nodes (local recoding; stars or "
            "Iyengar loss), fixed-parameter in the number of row types (t_in <= 16): "
            "lowest-common-ancestor output row types + p-ROW ASSIGNMENT min-cost flow "
            "(Bredereck et al. Sec. 4.4 Cor. 2)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    objectives=("stars", "loss"),
    options=("max_nodes",),  # and objective, the --objective flag
)
