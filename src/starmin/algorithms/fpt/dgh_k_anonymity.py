"""DGH k-anonymity on row types: Bredereck et al.'s Theorem 5 (Sec. 4.4).

Guarantee: **fpt, parameter t_in** -- the release is k-anonymous, every released cell is the
row's value, one of its ancestors in the column's domain generalization hierarchy (DGH,
``RowTypes.dgh``) or the root ``*``, and it has the least objective of any such release
(local recoding: rows of one value may be released as different nodes): ``objective="stars"``
(default) the fewest cells at the root, ``objective="loss"`` the least Iyengar loss
(:mod:`starmin.algorithms.objective`). The work depends on the number ``t_in`` of row types,
not on ``n``.

Algorithm. Theorem 5 changes one step of Algorithm 1 (:mod:`.k_anonymity`): an output row
type's entry in column ``i`` is "the most specific value which generalizes the values at
position i of all the row types which assign at least one row to R'" -- their lowest common
ancestor (:mod:`.joins`). The guesses are the sets of at most ``t_in`` such vectors
(:mod:`.candidates` with the joins; Lemma 2's exchange argument uses only that a row may move to
an output row type that generalizes it at no higher cost, so ``t_out <= t_in`` holds for any
per-row cost), each solved as ROW ASSIGNMENT (Lemma 1, :mod:`.row_assignment`) with
``omega_j`` the objective's integer cost of vector ``j``; the guesses are searched by the same
branch and bound (:mod:`.search`). Exactness: an optimal release's class vectors can each be
replaced by the LCA of the row types in the class, cell by cell no less specific, so no cell
costs more (a node's leaves, and whether it is the root, only grow towards the root); equal
vectors merge into a class that is still k-anonymous. So some optimum uses candidates only, and
the search returns the cheapest guess.

With flat hierarchies (suppression only) and the stars objective the candidates and the search
are exactly those of ``fpt-k-anonymity``: the same plan.

Limits (:data:`LIMITS`, those of ``fpt-k-anonymity``): ``t_in <= 20``, 1,500 candidates, a work
limit of ``max_nodes`` flows; for the loss objective ``L x m x n <= 2^44``
(:data:`starmin.algorithms.objective.MAX_SCALED_TOTAL`). Complexity as Theorem 5:
``O(2^(t_in^2))`` guesses in the worst case, each one flow on ``t_in + C + 1`` nodes; the
candidates in ``O(min(2^t_in, C t_in) m)`` merges, each a table lookup.

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 4.4 (DGH-k-ANONYMITY,
Theorem 5), Sec. 4.1 (Algorithm 1, ROW ASSIGNMENT, Lemmas 1-2, Theorem 3).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from starmin.algorithms.base import Algorithm, Progress, silent
from starmin.algorithms.fpt import release
from starmin.algorithms.fpt.k_anonymity import LIMITS, restricted_guarantee
from starmin.algorithms.fpt.models import k_anonymity
from starmin.algorithms.fpt.row_assignment import RowAssignment
from starmin.algorithms.objective import CellCosts
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "dgh-k-anonymity"
GUARANTEE = Guarantee(
    kind="fpt",
    statement="least objective (stars; or Iyengar's loss with objective loss) over all "
              "k-anonymous releases whose cells are values, their hierarchy ancestors or *; "
              "work exponential in t_in (row types, at most 20) only, t_out <= t_in",
    reference="Bredereck et al., Sec. 4.4, Thm 5 (Algorithm 1, Lemmas 1-2)",
    parameter="t_in",
)


def _reason(model: PrivacyModel, rt: RowTypes, objective: str) -> str | None:
    k = k_anonymity(model)
    if k is None:
        return (f"{NAME} solves k-anonymity only, not {model.name}: use dgh-p-sensitive for "
                "p-sensitive k-anonymity, or --method auto")
    return release.dgh_reason(NAME, LIMITS, rt, k, objective=objective)


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` for k-anonymity on a table with ``t_in <= 20`` and few enough candidates."""
    return _reason(model, rt, "stars")


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """The k-anonymous release over hierarchy nodes with the least objective (Theorem 5).

    Options: ``objective`` (``"stars"``, default, or ``"loss"``), ``max_nodes`` (work limit in
    flows, default 50,000). Deterministic (``seed`` is unused). Raises ``Infeasible`` when
    ``k > n``, ``InvalidInput`` beyond the limits, ``SolverLimit`` at ``max_nodes``."""
    objective, max_nodes = release.dgh_options(NAME, LIMITS, options)
    reason = _reason(model, rt, objective)
    if reason is not None:
        raise InvalidInput(reason)
    check_feasible(model, rt)
    k = k_anonymity(model)
    assert k is not None
    cand = release.candidates_for(rt, k, objective=objective)
    assert cand is not None  # else _reason refused
    problem = RowAssignment(rt.sizes, cand, k)
    costs = CellCosts.of(rt.dgh, objective, rt.n)
    if objective == "loss":
        problem.unit = "loss units"
    return release.run(rt, problem, name=NAME, guarantee=stated(GUARANTEE, objective),
                       restricted_guarantee=restricted_guarantee, max_t_out=None,
                       max_nodes=max_nodes, progress=progress or silent,
                       sized_is_release=True, facts={"k": k}, costs=costs)


def stated(guarantee: Guarantee, objective: str) -> Guarantee:
    """The guarantee a plan carries: the registry's, naming the objective it minimized."""
    what = "the fewest stars" if objective == "stars" else "the least Iyengar loss"
    return replace(guarantee, statement=f"{what}; {guarantee.statement}")


ALGORITHM = Algorithm(
    name=NAME,
    summary="exact k-anonymity over hierarchy nodes (local recoding; stars or Iyengar loss), "
            "fixed-parameter in the number of row types (t_in <= 20): lowest-common-ancestor "
            "output row types + ROW ASSIGNMENT min-cost flow (Bredereck et al. Sec. 4.4 Thm 5)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    objectives=("stars", "loss"),
    options=("max_nodes",),  # and objective, the --objective flag
)
