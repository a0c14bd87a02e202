"""Fixed-parameter p-sensitive k-anonymity on row types (Bredereck et al., Theorem 4).

Guarantee: **fpt, parameter t_in** -- the release is p-sensitive k-anonymous (every class has
``>= k`` rows and ``>= p`` distinct sensitive values) with the minimum number of stars of any
such release by cell suppression (exact); the work depends on the number ``t_in`` of input row
types and of sensitive values ``|Sigma|``, not on the number of rows ``n``.

Algorithm (Sec. 4.3). Phase 1 of Algorithm 1 is unchanged: the output row types are guessed
among the suppressors of sets of input row types (:mod:`.candidates`), at most ``t_in`` of them
(Lemma 2 holds for p-sensitivity too: removing a redistributable output row type only adds rows
to other classes, which keeps their size and their distinct values). Phase 2 solves p-ROW
ASSIGNMENT, the assignment with constraint (9) (``p`` distinct values per class), as a
min-cost flow with lower bounds (Lemma 3, :mod:`.p_row_assignment`; the lower bounds removed by
the standard demand shift, solved by OR-Tools). The optimization version releases the cheapest
assignment over all guesses, searched by branch and bound (:mod:`.search`), which skips a
subtree only when a relaxed flow for all its guesses costs no less than a release in hand.

One sensitive column, as in the paper (Sec. 2, footnote 3: one private column); conjunctions
with k-anonymity are taken with the largest ``k``. ``max_t_out`` restricts the release to at
most that many classes, as for k-anonymity (Proposition 2's restriction; not a result of the
paper for p-sensitivity, but the same search).

Limits (:data:`LIMITS`): ``t_in <= 16`` (hence ``t_out <= 16``), at most 1,500 candidate
output row types, and a work limit of ``max_nodes`` flows (30,000 by default; ``SolverLimit``
beyond). Complexity:
at most ``sum_{j <= t_in} C(C, j)`` guesses (``2^O(t_in^2)``), each one flow on
``O(t_in |Sigma| + C + t_out |Sigma|)`` nodes. (Theorem 4 as printed reads ``O(nm + 2^{t_in}
(t_in^2 m + (n + |Sigma| t_in)^4 log(n + |Sigma| t_in)))``; with ``t_out <= t_in`` guesses of
Theorem 3 the factor is ``2^{t_in^2}``, as in the paper's Corollary 2.)

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 2 (Definition 3,
p-SENSITIVITY), Sec. 4.1 (Algorithm 1, Lemma 2), Sec. 4.3 (p-ROW ASSIGNMENT, Lemma 3, Theorem 4).
"""

from __future__ import annotations

from typing import Any

from starmin.algorithms.base import Algorithm, AutoRun, Progress, silent
from starmin.algorithms.fpt import release
from starmin.algorithms.fpt.candidates import Candidates
from starmin.algorithms.fpt.models import p_sensitivity
from starmin.algorithms.fpt.p_row_assignment import PRowAssignment
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from starmin.transform.plan import Guarantee, ReleasePlan

NAME = "fpt-p-sensitive"
LIMITS = release.Limits(max_t_in=16, max_candidates=1_500, max_nodes=30_000,
                        flow_seconds=(3.7e-4, 3.0e-7))
"""``t_in <= 16``; 1,500 candidates; 30,000 flows; about ``0.37 ms + 0.3 us x size`` a flow."""
GUARANTEE = Guarantee(
    kind="fpt",
    statement="minimum number of stars over all p-sensitive k-anonymous releases; work "
              "exponential in t_in (row types, at most 16) only, t_out <= t_in by Lemma 2",
    reference="Bredereck et al., Sec. 4.3, Lemma 3, Thm 4 (Algorithm 1, Lemma 2)",
    parameter="t_in",
)


def restricted_guarantee(t_out: int) -> Guarantee:
    """What a run with ``max_t_out = t_out < t_in`` proves."""
    return Guarantee(
        kind="fpt",
        statement=f"minimum number of stars over p-sensitive k-anonymous releases with at "
                  f"most {t_out} classes; the unrestricted optimum may be lower",
        reference="Bredereck et al., Sec. 4.2-4.3 (Prop. 2's restriction, Lemma 3)",
        parameter="(m, t_out)")


def _candidates(p: int, k: int, rt: RowTypes, max_t_out: int | None) -> Candidates | None:
    return release.candidates_for(rt, k, p, restricted=release.restricting(rt, max_t_out))


def _reason(model: PrivacyModel, rt: RowTypes, max_t_out: int | None) -> str | None:
    pk = p_sensitivity(model)
    if pk is None:
        return (f"{NAME} solves p-sensitive k-anonymity only, not {model.name}: use "
                "fpt-k-anonymity for k-anonymity, or --method auto")
    if len(rt.sensitive) != 1:
        return (f"{NAME} needs exactly one sensitive column (the paper's private column), the "
                f"table has {len(rt.sensitive)}: declare one, or use --method auto")
    return (release.size_reason(NAME, LIMITS, rt, max_t_out)
            or release.candidate_reason(NAME, LIMITS, _candidates(*pk, rt, max_t_out), rt,
                                        max_t_out))


def supports(model: PrivacyModel, rt: RowTypes) -> str | None:
    """``None`` for p-sensitive k-anonymity with one sensitive column on a table within
    :data:`LIMITS`, else the reason."""
    return _reason(model, rt, None)


def solve(rt: RowTypes, model: PrivacyModel, *, seed: int = 0,
          progress: Progress | None = None, **options: Any) -> ReleasePlan:
    """The minimum-star p-sensitive k-anonymous release (Theorem 4; see the module docstring).

    Options: ``max_t_out`` (at most that many classes), ``max_nodes`` (work limit in flows,
    default 30,000). Deterministic (``seed`` is unused). Raises ``Infeasible`` when no release
    exists, ``InvalidInput`` beyond the limits, ``SolverLimit`` at ``max_nodes``.
    """
    max_t_out, max_nodes = release.options(NAME, LIMITS, options)
    if p_sensitivity(model) is not None:
        check_feasible(model, rt)  # a missing sensitive column is named before the limits
    reason = _reason(model, rt, max_t_out)
    if reason is not None:
        raise InvalidInput(reason)
    pk = p_sensitivity(model)
    assert pk is not None
    p, k = pk
    cand = _candidates(p, k, rt, max_t_out)
    assert cand is not None  # else _reason refused
    problem = PRowAssignment(rt.counts, cand, k, p)
    return release.run(rt, problem, name=NAME,
                       guarantee=GUARANTEE, restricted_guarantee=restricted_guarantee,
                       max_t_out=max_t_out, max_nodes=max_nodes, progress=progress or silent,
                       sized_is_release=False, facts={"k": k, "p": p, "sensitive_values": rt.s})


def auto_plan(model: PrivacyModel, rt: RowTypes, units_left: float) -> AutoRun:
    """``--method auto``'s run: see :func:`starmin.algorithms.fpt.release.auto_run`."""
    pk = p_sensitivity(model)
    assert pk is not None
    p, k = pk
    cand = _candidates(p, k, rt, None)
    assert cand is not None  # auto plans only what supports accepted
    return release.auto_run(LIMITS, rt, cand, units_left)


ALGORITHM = Algorithm(
    name=NAME,
    summary="exact p-sensitive k-anonymity, fixed-parameter in the number of row types "
            "(t_in <= 16): guessed output row types + p-ROW ASSIGNMENT min-cost flow with lower "
            "bounds (Bredereck et al. Lemma 3, Thm 4)",
    guarantee=GUARANTEE,
    solve=solve,
    supports=supports,
    auto=auto_plan,
    options=("max_t_out", "max_nodes"),
)
