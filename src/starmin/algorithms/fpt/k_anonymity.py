"""Fixed-parameter k-anonymity on row types: Bredereck et al.'s Algorithm 1 (Theorem 3).

Guarantee: **fpt, parameter t_in** -- the release is k-anonymous with the minimum number of
stars of any k-anonymous release by cell suppression (exact), and the work depends on the
number ``t_in`` of input row types (distinct QI vectors), not on the number of rows ``n``.

Algorithm (Sec. 4.1). Phase 1 guesses the output row types: each is the suppressor of a set of
input row types (:mod:`.candidates`), and by Lemma 2 some optimal release uses at most
``t_out <= t_in`` of them. Phase 2 solves ROW ASSIGNMENT for the guess -- every row to a guessed
output row type that generalizes it, ``>= k`` rows each, fewest stars -- as an uncapacitated
min-cost flow (Lemma 1, :mod:`.row_assignment`, OR-Tools). This is the optimization version:
instead of a yes/no answer for a budget ``s``, the cheapest assignment over all guesses is
released. The guesses are searched best-first by branch and bound (:mod:`.search`): a subtree
is dropped only when a flow that relaxes all its guesses costs no less than a release in hand,
so the result is the minimum over every guess, as in Theorem 3.

Proposition 2 (parameters ``m`` and ``t_out``). With the option ``max_t_out=T < t_in`` the
guesses are the sets of at most ``T`` output row types, whose candidates come from the ``2^m``
sets of starred columns (one prototype per output row type, as in the proposition's proof),
enumerated in order of a flow-free bound (:mod:`.restricted`): the release has the fewest
stars among releases with at most ``T`` classes. That is the unrestricted optimum only when
some optimum has ``<= T`` classes; the plan then claims no lower bound and its guarantee says
so.

Proposition 3 (parameters ``t_out`` and ``s``) is no separate method: its proof shows
``t_in <= t_out + s`` for every release with ``t_out`` classes and ``s`` stars (a test checks it
on this method's releases), so an instance with small ``t_out`` and ``s`` has small ``t_in`` and
is solved here as it is.

Limits (:data:`LIMITS`): ``t_in <= 20`` (hence ``t_out <= 20``), at most 1,500 candidate output
row types, and a work limit of ``max_nodes`` flows (50,000 by default; ``SolverLimit`` beyond).
Complexity: candidates in ``O(min(2^t_in, C t_in) m)``; at most ``sum_{j <= t_in} C(C, j)`` guesses
(``2^O(t_in^2)``, Theorem 3), each one flow on ``t_in + C + 1`` nodes and ``sum_j |G(j)| + C``
arcs; in practice a few hundred to a few thousand flows at ``t_in = 16`` (see
docs/algorithms/fpt-row-types.md). The engine builds the row types in ``O(n m)``.

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 4.1 (Algorithm 1, ROW
ASSIGNMENT, Lemma 1, Theorem 2, Lemma 2, Theorem 3) and Sec. 4.2 (Propositions 2 and 3).
"""

from __future__ import annotations

from typing import Any

from starmin.algorithms.base import Algorithm, AutoRun, Progress, silent
from starmin.algorithms.fpt import release
from starmin.algorithms.fpt.candidates import Candidates
from starmin.algorithms.fpt.models import k_anonymity
from starmin.algorithms.fpt.row_assignment import RowAssignment
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "fpt-k-anonymity"
LIMITS = release.Limits(max_t_in=20, max_candidates=1_500, max_nodes=50_000,
                        flow_seconds=(1.2e-4, 4.3e-7))
"""``t_in <= 20``; 1,500 candidates; 50,000 flows; about ``0.12 ms + 0.43 us x size`` a flow."""
GUARANTEE = Guarantee(
    kind="fpt",
    statement="minimum number of stars over all k-anonymous releases; work exponential in "
              "t_in (row types, at most 20) only, t_out <= t_in by Lemma 2",
    reference="Bredereck et al., Sec. 4.1, Algorithm 1, Lemmas 1-2, Thm 3",
    parameter="t_in",
)


def restricted_guarantee(t_out: int) -> Guarantee:
    """What a run with ``max_t_out = t_out < t_in`` proves (Proposition 2)."""
    return Guarantee(
        kind="fpt",
        statement=f"minimum number of stars over k-anonymous releases with at most {t_out} "
                  f"classes (Proposition 2); the unrestricted optimum may be lower",
        reference="Bredereck et al., Sec. 4.2, Prop. 2", parameter="(m, t_out)")


def _candidates(k: int, rt: RowTypes, max_t_out: int | None) -> Candidates | None:
    return release.candidates_for(rt, k, restricted=release.restricting(rt, max_t_out))


def _reason(model: PrivacyModel, rt: RowTypes, max_t_out: int | None) -> str | None:
    k = k_anonymity(model)
    if k is None:
        return (f"{NAME} solves k-anonymity only, not {model.name}: use fpt-p-sensitive for "
                "p-sensitive k-anonymity, or --method auto")
    return (release.size_reason(NAME, LIMITS, rt, max_t_out)
            or release.candidate_reason(NAME, LIMITS, _candidates(k, rt, max_t_out), rt,
                                        max_t_out))


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` for k-anonymity on a table within :data:`LIMITS`, else the reason."""
    return _reason(model, rt, None)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """The minimum-star k-anonymous release (Theorem 3; see the module docstring).

    Options: ``max_t_out`` (Proposition 2: at most that many classes), ``max_nodes`` (work
    limit in flows, default 50,000). Deterministic (``seed`` is unused). Raises
    ``Infeasible`` when ``k > n``, ``InvalidInput`` beyond the limits, ``SolverLimit`` at
    ``max_nodes``.
    """
    max_t_out, max_nodes = release.options(NAME, LIMITS, options)
    reason = _reason(model, rt, max_t_out)
    if reason is not None:
        raise InvalidInput(reason)
    check_feasible(model, rt)
    k = k_anonymity(model)
    assert k is not None
    cand = _candidates(k, rt, max_t_out)
    assert cand is not None  # else _reason refused
    problem = RowAssignment(rt.sizes, cand, k)
    return release.run(rt, problem, name=NAME, guarantee=GUARANTEE,
                       restricted_guarantee=restricted_guarantee, max_t_out=max_t_out,
                       max_nodes=max_nodes, progress=progress or silent,
                       sized_is_release=True, facts={"k": k})


def auto_plan(model: PrivacyModel, rt: RowTypes, units_left: float) -> AutoRun:
    """``--method auto``'s run: see :func:`starmin.algorithms.fpt.release.auto_run`."""
    k = k_anonymity(model)
    assert k is not None
    cand = _candidates(k, rt, None)
    assert cand is not None  # auto plans only what supports accepted
    return release.auto_run(LIMITS, rt, cand, units_left)


ALGORITHM = Algorithm(
    name=NAME,
    summary="exact k-anonymity, fixed-parameter in the number of row types (t_in <= 20): "
            "guessed output row types + ROW ASSIGNMENT min-cost flow (Bredereck et al. Alg. 1, "
            "Lemmas 1-2, Thm 3)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=auto_plan,
    options=("max_t_out", "max_nodes"),
)
