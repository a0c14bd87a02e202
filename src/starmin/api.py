"""The public pipeline: aggregate -> solve -> apply -> verify -> report.

Nothing is written here; :func:`anonymize` returns the release and its report, and the CLI
writes them only when the release verified.
"""

from __future__ import annotations

import numbers
import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import polars as pl

from starmin.algorithms import registry
from starmin.algorithms.base import Progress, silent
from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.engines.base import Engine, Stages
from starmin.engines.choose import get_engine
from starmin.errors import (
    InvalidInput,
    NoProtection,
    StarminError,
    VerificationFailed,
    param,
)
from starmin.models.apply import check_feasible, protects_nothing
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k, parts
from starmin.report.record import Report
from starmin.transform.hierarchy import Hierarchy
from starmin.transform.plan import ReleasePlan


@dataclass(frozen=True, eq=False)
class Release:
    """A verified release: the table, the plan behind it, the verifier's verdict, the report.

    ``table`` comes back in the kind the data came in: a pandas DataFrame for pandas (with its
    index), a pyarrow Table for pyarrow, a polars DataFrame (or LazyFrame) for polars, and a
    polars DataFrame for a file path or a bundled sample; with the Spark engine, a Spark
    DataFrame.
    :meth:`write` writes the release and its report through the engine that made it.
    ``report`` is the typed :class:`~starmin.report.record.Report`, also readable as a mapping
    over its JSON form (``release.report["stars"]``).
    """

    plan: ReleasePlan
    verification: Any
    report: Report
    frame: Any = field(repr=False)
    """The release in the engine's form (a polars DataFrame locally, its QI columns held as
    categoricals; a Spark DataFrame with the Spark engine): what :meth:`write` writes."""
    separator: str = ","
    """The CSV separator :meth:`write` uses: the input file's, else ``,``."""
    engine: Engine | None = field(default=None, repr=False)
    """The engine that made the release (``None``: the local engine)."""
    data: Any = field(default=None, repr=False, compare=False)
    """What the table was made from (its kind is the kind of :attr:`table`)."""
    coded: tuple[str, ...] = ()
    """The columns :attr:`frame` may hold as categoricals (the QI columns; also the sensitive
    ones when the engine read the table from a file): :attr:`table` and Parquet output give
    them as text."""

    @cached_property
    def table(self) -> Any:
        """The release in the kind the data came in, its QI columns as text (made from
        :attr:`frame` when first asked for: the command line, which writes :attr:`frame`,
        never holds the text columns)."""
        return as_kind_of(self.data, self.text_frame)

    @property
    def text_frame(self) -> Any:
        """:attr:`frame` with its QI columns as text (a Spark release as it is)."""
        if not isinstance(self.frame, pl.DataFrame):
            return self.frame
        from starmin.engines.local import as_text

        return as_text(self.frame, self.coded)

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the release to ``path`` (``.csv``, ``.tsv`` or ``.parquet``), its report to
        ``path + ".report.json"`` and the report's HTML page to ``path + ".report.html"``,
        together: all are written to temporary files and renamed into place only when all are
        complete, so on any failure none exists. Returns the release path. Raises
        :class:`~starmin.errors.InvalidInput` for an unknown suffix, a folder, an unwritable
        folder or columns CSV cannot hold, before writing anything. With the Spark engine the
        release is a folder of part files (Spark's layout), renamed into place whole."""
        from starmin.io.output import check_output
        from starmin.report.html import render

        engine = self.engine or get_engine("local")
        target = check_output(path, flag="path", replace_folder=engine.name == "spark")
        engine.write(self.written(target.format), target, self.report, self.separator,
                     html=render(self.report))
        return target.path

    def written(self, format: str) -> Any:
        """What is written in ``format``: :attr:`frame` (CSV holds the labels, not the
        dtype), with the QI columns as text for Parquet (whose schema records the dtype)."""
        return self.frame if format != "parquet" else self.text_frame


def solve(rt: RowTypes, model: PrivacyModel, method: str = "auto", *, seed: int = 0,
          progress: Progress | None = None, objective: str = "stars",
          **options: Any) -> ReleasePlan:
    """Run one algorithm on row types. ``method="auto"`` runs the portfolio
    (:mod:`starmin.algorithms.portfolio`: the applicable methods within a work budget, the
    release with the fewest stars; ``plan.certificate["portfolio"]`` lists what it did),
    ``method="exact"`` the first exact method that can solve it. ``options`` go to the named
    method; ``auto`` takes only ``budget`` (work units, default
    :data:`starmin.algorithms.portfolio.BUDGET`): each member runs with its own settings.

    ``objective``: ``"stars"`` (the default) or ``"loss"`` (Iyengar's loss over the
    hierarchies ``rt`` carries; :func:`loss_methods` lists the methods that minimize it, and
    ``auto`` / ``exact`` choose among them).

    When ``rt`` carries hierarchies (:meth:`RowTypes.with_hierarchies`) and the objective is
    stars, each star of the chosen plan is then released as the most specific node its class
    shares (:func:`starmin.transform.generalize.lowest_nodes`): the same classes, fewer
    stars. Loss-minimizing methods release each class as that node already."""
    return _solve(rt, model, method, seed=seed, progress=progress, objective=objective,
                  **options)[0]


def _solve(rt: RowTypes, model: PrivacyModel, method: str = "auto", *, seed: int = 0,
           progress: Progress | None = None, objective: str = "stars",
           time_limit: float | None = None, **options: Any
           ) -> tuple[ReleasePlan, list[Any] | None]:
    """:func:`solve`, and the portfolio's trials for ``auto`` (``None`` otherwise)."""
    check_objective(objective)
    check_feasible(model, rt)
    _warn_if_unprotected(model, rt, progress or silent)
    if time_limit is not None and objective != "stars":
        raise InvalidInput(f"--time-limit applies to methods that minimize stars (the exact "
                           f"MILP): drop it, or drop {param('objective', objective)}")
    if objective == "loss":
        return _solve_loss(rt, model, method, seed=seed, progress=progress, **options), None
    seconds = None if time_limit is None else _time_limit(time_limit, method)
    if method == "auto":
        from starmin.algorithms import portfolio

        budget = _budget(options.pop("budget", portfolio.BUDGET))
        if options:
            raise InvalidInput(f"options {sorted(options)} need a named method: auto runs "
                               "each method with its own settings (it takes budget= only); "
                               "pass method='NAME'")
        plan, trials = portfolio.run(rt, model, seed=seed, progress=progress or silent,
                                     budget=budget)
        plan.validate(rt)
        return _lowest_nodes(plan, rt), trials
    algo = registry.choose(model, rt, method)
    if seconds is not None and not algo.time_limit and method != "exact":
        raise InvalidInput(f"method {algo.name!r} takes no time limit (it runs under work "
                           f"limits only): use --method exact or {', '.join(_timed())}, or "
                           "drop --time-limit")
    reason = algo.supports(model, rt)
    if reason is not None:
        raise InvalidInput(f"method {algo.name!r} cannot solve this instance: {reason}")
    if seconds is not None and algo.time_limit:
        options["time_limit"] = seconds
    with _options_checked(algo.name, options):
        plan = algo.solve(rt, model, seed=seed, progress=progress or silent, **options)
    if seconds is not None and not algo.time_limit:  # exact chose a method without a clock
        plan = replace(plan, certificate={**plan.certificate, "time_limit_s": seconds,
                                          "time_limit_used": False})
    plan.validate(rt)
    return _lowest_nodes(plan, rt), None


def _warn_if_unprotected(model: PrivacyModel, rt: RowTypes, progress: Progress) -> None:
    """Warn (:class:`~starmin.errors.NoProtection`, and a progress line) when ``model`` holds
    for every class of ``rt``, even of one row: valid parameters, but the release keeps every
    cell (``k=1``, ``l=1``, ``t=1``, ...)."""
    if not protects_nothing(model, rt):
        return
    from starmin.models import KAnonymity, PSensitiveKAnonymity, TCloseness

    more: list[str] = []
    for m in parts(model):
        hint = (f"{param('k', 2)} or more" if isinstance(m, KAnonymity | PSensitiveKAnonymity)
                else f"a smaller {param('t')}" if isinstance(m, TCloseness)
                else f"{param('l', 2)} or more")
        more += [hint] if hint not in more else []
    message = (f"the model ({model.name}) holds for every class of this table, even a class "
               f"of one row, so the release needs no star and protects nothing: ask for more, "
               f"e.g. {', or '.join(more)}")
    progress(f"warning: {message}")
    warnings.warn(message, NoProtection, stacklevel=_outside_starmin())


def _outside_starmin() -> int:
    """The ``stacklevel`` that makes a warning raised by this function's caller name the
    first frame outside the ``starmin`` package (the user's call)."""
    level, frame = 2, sys._getframe(2)
    while frame.f_back is not None and str(frame.f_globals.get("__name__", "")).startswith(
            "starmin"):
        frame, level = frame.f_back, level + 1
    return level


def _budget(budget: object) -> float:
    """``auto``'s work budget: a number >= 0 (``InvalidInput`` otherwise; with 0 only the
    cheapest member runs, as the first always does)."""
    if isinstance(budget, bool) or not isinstance(budget, numbers.Real) \
            or not 0 <= float(budget) < float("inf"):
        raise InvalidInput(f"budget={budget!r} is not a work budget: give a number of work "
                           "units >= 0, e.g. budget=16 (the default is 8; with 0 only the "
                           "cheapest member runs)")
    return float(budget)


@contextmanager
def _options_checked(name: str, options: Mapping[str, Any]) -> Iterator[None]:
    """A method that meets an option value of the wrong type (a ``TypeError`` or
    ``ValueError`` while it runs with user ``options``) raises ``InvalidInput`` naming the
    options; without options nothing is caught."""
    try:
        yield
    except StarminError:
        raise
    except (TypeError, ValueError) as exc:
        if not options:
            raise
        given = ", ".join(f"{k}={v!r}" for k, v in options.items())
        raise InvalidInput(f"method {name!r} cannot use the options {given} "
                           f"({type(exc).__name__}: {exc}): give each option the type its "
                           "method reads (docs/options.md lists them)") from None


def _time_limit(time_limit: object, method: str) -> float:
    """The user's wall-clock limit in seconds. Only methods that honor one take it
    (:attr:`Algorithm.time_limit`); with ``exact``, the exact method chosen for the instance
    gets it if it honors one, and one that does not (brute force, the FPT flows on their
    small instances) runs to completion with ``time_limit_used: false`` in its certificate."""
    from starmin.algorithms.base import check_time_limit

    seconds = check_time_limit(time_limit)
    _check_timed_method(method)
    return seconds


def _timed() -> list[str]:
    return [a.name for a in registry.algorithms().values() if a.time_limit]


def _check_timed_method(method: str) -> None:
    """``--time-limit`` is refused with ``auto``."""
    if method == "auto":
        raise InvalidInput(f"--time-limit needs --method exact or a method that honors it "
                           f"({', '.join(_timed())}); --method auto runs under a work "
                           "budget, never the clock")


def loss_methods() -> list[str]:
    """The registered methods that can minimize Iyengar's loss (``"loss"`` in their
    ``Algorithm.objectives``), in registry order."""
    return [n for n, a in registry.algorithms().items() if "loss" in a.objectives]


def _solve_loss(rt: RowTypes, model: PrivacyModel, method: str, *, seed: int,
                progress: Progress | None, **options: Any) -> ReleasePlan:
    """The loss objective: ``auto`` runs the first exact loss method that supports the
    instance, else every other loss method, and keeps the release of least loss (ties:
    registry order); ``exact`` the first exact one; a named method must list ``"loss"``."""
    from starmin.algorithms.recode.node_costs import column_trees, vector_cost

    table = registry.algorithms()
    able = loss_methods()
    say = progress or silent
    if method not in ("auto", "exact"):
        algo = registry.get(method)
        if "loss" not in algo.objectives:
            raise InvalidInput(f"method {method!r} minimizes stars only, not "
                               f"{param('objective', 'loss')}: use a method that can "
                               f"({', '.join(able)}), or --method auto")
        chosen = [algo]
    else:
        exact = [table[n] for n in able if table[n].guarantee.kind in ("exact", "fpt")
                 and table[n].supports(model, rt) is None]
        if method == "exact" and not exact:
            reasons = "; ".join(f"{n}: {table[n].supports(model, rt)}" for n in able
                                if table[n].guarantee.kind in ("exact", "fpt"))
            raise InvalidInput(f"no exact method minimizes {param('objective', 'loss')} on "
                               f"this table ({reasons or 'none is registered'})")
        if method == "auto" and options:
            raise InvalidInput(f"options {sorted(options)} need a named method: auto with "
                               f"{param('objective', 'loss')} runs the loss methods with "
                               "their own settings and no work budget; pass method='NAME'")
        chosen = exact[:1] or [table[n] for n in able
                               if table[n].guarantee.kind not in ("exact", "fpt")
                               and table[n].supports(model, rt) is None]
        if not chosen:
            raise InvalidInput(f"no method minimizes {param('objective', 'loss')} on this "
                               f"table (methods that can: {', '.join(able)})")
    trees = column_trees(rt.dgh, "loss")
    best: tuple[float, ReleasePlan] | None = None
    for algo in chosen:
        reason = algo.supports(model, rt)
        if reason is not None:
            raise InvalidInput(f"method {algo.name!r} cannot solve this instance: {reason}")
        with _options_checked(algo.name, options):
            plan = algo.solve(rt, model, seed=seed, progress=say, objective="loss",
                              **options)
        plan.validate(rt)
        cost = float((vector_cost(trees, plan.outputs) * plan.class_sizes).sum())
        if best is None or cost < best[0] - 1e-12:
            best = (cost, plan)
    assert best is not None
    return best[1]


def _lowest_nodes(plan: ReleasePlan, rt: RowTypes) -> ReleasePlan:
    """Each star as the lowest common ancestor of its class, when ``rt`` has hierarchies."""
    if rt.hierarchies is None or rt.hierarchies.is_flat:
        return plan
    from starmin.transform.generalize import lowest_nodes

    plan = lowest_nodes(plan, rt)
    plan.validate(rt)
    return plan


OBJECTIVES = ("stars", "loss")


def check_objective(objective: object) -> None:
    """``stars`` (the default) or ``loss`` (Iyengar's loss over the hierarchies; with none,
    every column is suppression only and the loss is the star count with each column weighted
    alike, so it ranks releases as stars do)."""
    if objective in OBJECTIVES:
        return
    raise InvalidInput(f"{param('objective', objective)} is not an objective: use "
                       f"{param('objective', 'stars')} (the default) or "
                       f"{param('objective', 'loss')}")


def lower_bounds(rt: RowTypes, model: PrivacyModel, progress: Progress | None = None,
                 known_lp: Mapping[str, int] | None = None, lp_complete: bool = False,
                 diversity: Future[dict[str, int]] | None = None,
                 closeness: Future[dict[str, int]] | None = None) -> dict[str, int]:
    """Proven lower bounds on the optimal number of stars (see docs/algorithms/lower-bounds):
    the k-anonymity bounds for the class size the model implies, the star-free, pattern and
    level flow bounds of each t-closeness part, and the diversity bounds (Xiao et al.'s
    phase-one bound for frequency l-diversity; row types with too few distinct sensitive
    values); on wide tables (at least 13 QI columns, at most 60 row types) the row-level
    bound of :mod:`starmin.algorithms.classes.row_levels` (every row pays at least the
    fewest stars of a satisfying class holding it). A bound for one part of a combination
    bounds the whole. They depend only on the row types and the model, never on the method
    that makes the release.

    ``lp_complete``: ``known_lp`` is the LP core's optimum over every output vector (its
    column generation ran to the end), so the frequency charge LP, the dual of the same
    relaxation with its charges restricted, cannot exceed it and is not solved.
    ``diversity``: the diversity bounds with their charge LPs, already under way
    (:func:`diversity_ahead`); used unless ``lp_complete`` leaves the charge LPs out (the
    result is then what it would have been without it). ``closeness``: the t-closeness bounds
    (:func:`closeness_bounds`), already under way (:func:`closeness_ahead`)."""
    from starmin.algorithms.bounds import k_anonymity_lower_bounds
    from starmin.algorithms.l_diversity_bound import diversity_lower_bounds

    out: dict[str, int] = {}
    k = implied_k(model)
    if k > 1:
        out.update(k_anonymity_lower_bounds(rt, k, progress=progress))
        out.pop("best", None)
        out.update(charge_bounds(rt, model, progress))
    out.update(closeness.result() if closeness is not None else
               closeness_bounds(rt, model, progress))
    charges = not (lp_complete and known_lp)
    out.update(diversity.result() if diversity is not None and charges else
               diversity_lower_bounds(rt, parts(model), progress, charges=charges))
    from starmin.algorithms.classes.class_partition import row_level_bound

    levels = row_level_bound(rt, model, progress)
    if levels is not None:
        out["row_levels"] = levels
    lp = lp_lower_bound(rt, model, progress=progress, known=known_lp)
    if lp is not None:
        out["lp"] = lp
    out["best"] = max(out.values(), default=0)
    return out


def diversity_ahead(rt: RowTypes, model: PrivacyModel, pool: Executor,
                    progress: Progress | None = None) -> Future[dict[str, int]] | None:
    """The diversity bounds with their charge LPs (:func:`lower_bounds`), started on
    ``pool`` while the method solves, for a model with a part needing more than one
    sensitive value per class; else ``None``. They depend on the row types and the model
    only, so the values are those computed afterwards; their LP solvers (HiGHS, Glop, PDLP)
    release the GIL, and on ARX adult (frequency l = 5: 4 s of bounds beside a 5.5-s solve)
    they overlap the solve instead of following it."""
    from starmin.algorithms.l_diversity_bound import (
        distinct_values_needed,
        diversity_lower_bounds,
    )

    if not rt.sensitive or max(map(distinct_values_needed, parts(model)), default=0) < 2:
        return None
    return pool.submit(diversity_lower_bounds, rt, parts(model), progress)


def closeness_bounds(rt: RowTypes, model: PrivacyModel, progress: Progress | None = None
                     ) -> dict[str, int]:
    """The bounds of :func:`starmin.algorithms.t_closeness_bound.t_closeness_lower_bounds`
    for each t-closeness part of ``model`` (with the class size the whole model implies),
    each name's largest over the parts; ``{}`` for a model without t-closeness."""
    from starmin.algorithms.t_closeness_bound import t_closeness_lower_bounds
    from starmin.models.t_closeness import TCloseness

    out: dict[str, int] = {}
    k = implied_k(model)
    for m in parts(model):
        if isinstance(m, TCloseness):
            for name, v in t_closeness_lower_bounds(rt, m, k=k, progress=progress).items():
                out[name] = max(out.get(name, 0), v)
    return out


def closeness_ahead(rt: RowTypes, model: PrivacyModel, pool: Executor,
                    progress: Progress | None = None) -> Future[dict[str, int]] | None:
    """The t-closeness bounds (:func:`closeness_bounds`), started on ``pool`` while the
    method solves, for a model with a t-closeness part; else ``None``. They depend on the row
    types and the model only, so the values are those computed afterwards. Their LPs (HiGHS's
    interior point method for the level-1 LP, Glop and PDLP for the charge LP) release the
    GIL: on ARX adult (8 QIs, occupation, t = 0.2) they took about 7 s after a 15-s solve;
    beside it they overlap it instead. Not under a time limit or for ``attributes`` (no
    bounds thread there)."""
    from starmin.models.t_closeness import TCloseness

    if not any(isinstance(m, TCloseness) for m in parts(model)):
        return None
    return pool.submit(closeness_bounds, rt, model, progress)


def charges_ahead(rt: RowTypes, model: PrivacyModel, pool: Executor,
                  progress: Progress | None = None) -> Future[dict[str, int]] | None:
    """The k-anonymity charge LP bound (:func:`charge_bounds`), started on ``pool`` while the
    method solves, for a model made of k-anonymity only; else ``None``. It depends on the row
    types and ``k`` only, so its value is the one computed afterwards, and a second call for
    it (``pattern-packing``'s plan bound, the report's) waits for this one instead of solving
    the same LP again (:func:`starmin.algorithms.charge_bound.charge_lower_bound`). Its LP
    solvers (HiGHS, PDLP through MathOpt) release the GIL: on ARX adult (9 QIs, k = 3 / 5 /
    10) the runs took 1.5-3 s less wall clock (stop 47). Not under a time limit or for
    ``attributes`` (no bounds thread there)."""
    if not _k_alone(model):
        return None
    return pool.submit(charge_bounds, rt, model, progress)


def charge_bounds(rt: RowTypes, model: PrivacyModel, progress: Progress | None = None
                  ) -> dict[str, int]:
    """``{"charges": bound}`` for a model made of k-anonymity only
    (:mod:`starmin.algorithms.charge_bound`, within its work limits), else ``{}``. For the
    other models the class size is not what limits the release: their own bounds were larger
    on every table measured (adult, frequency l = 2 on 8 QIs: charges 10,300 against the
    LP's 13,030), so the LP's seconds are not spent there."""
    if not _k_alone(model):
        return {}
    from starmin.algorithms.charge_bound import charge_lower_bound

    value = charge_lower_bound(rt, implied_k(model), progress=progress)
    return {} if value is None else {"charges": value}


def _k_alone(model: PrivacyModel) -> bool:
    """Whether ``model`` is k-anonymity alone (one or more parts, each k-anonymity), k >= 2."""
    from starmin.models.k_anonymity import KAnonymity

    return implied_k(model) >= 2 and all(type(p) is KAnonymity for p in parts(model))


def _known_lp(plan: ReleasePlan) -> dict[str, int] | None:
    """The LP bound the plan's method proved (``lp-rounding``, or a portfolio that ran it),
    by relaxation name."""
    cert = plan.certificate
    if isinstance(cert.get("lp_relaxation"), str) and isinstance(cert.get("lp_bound"), int):
        return {cert["lp_relaxation"]: cert["lp_bound"]}
    return None


def lp_lower_bound(rt: RowTypes, model: PrivacyModel, progress: Progress | None = None,
                   known: Mapping[str, int] | None = None) -> int | None:
    """The best certified LP bound over the model's relaxations whose estimated work fits
    :data:`starmin.algorithms.lp.report_bound.LP_BOUND_MAX_WORK` (in order,
    :func:`starmin.algorithms.lp.report_bound.bounded_relaxations`), or ``None`` when none
    fits or the model has no
    relaxation the LP core prices. ``known``: bounds the release's method already proved,
    by relaxation name -- the same computation, not run again, but counted at its estimate,
    so which relaxations are bounded never depends on the method. A relaxation whose LP the
    solver fails on (Glop's numerical trouble, after its retry from scratch) gives no bound:
    the release does not depend on it."""
    from starmin.algorithms.lp.report_bound import bounded_relaxations

    best: int | None = None
    for rel, work in bounded_relaxations(model, rt):
        if known is not None and rel.name in known:
            bound = int(known[rel.name])
        else:
            from starmin.algorithms.lp.colgen import column_generation, iteration_budget
            from starmin.algorithms.lp.incremental import WorkLimit

            try:
                bound = column_generation(rt, rel, max_iterations=iteration_budget(work),
                                          within_rounds=True,
                                          progress=progress or silent).bound
            except WorkLimit as exc:  # a solve reached its work limit: the bound before it
                (progress or silent)(f"lp {rel.name}: stopped at a work limit ({exc})")
                if exc.bound is None:
                    continue
                bound = exc.bound
            except RuntimeError as exc:  # the LP solver failed: this bound is optional
                (progress or silent)(f"lp {rel.name}: no LP bound ({exc})")
                continue
        best = bound if best is None else max(best, bound)
    return best


def anonymize(
    data: Any,
    qi: str | Iterable[str],
    sensitive: str | Iterable[str] | None = None,
    model: PrivacyModel | Sequence[PrivacyModel] | None = None,
    *,
    identifiers: str | Iterable[str] | None = None,
    method: str = "auto",
    seed: int = 0,
    progress: Progress | None = None,
    attributes: bool = False,
    hierarchies: Mapping[str, str | os.PathLike[str] | Hierarchy] | None = None,
    generalize: bool = False,
    objective: str = "stars",
    time_limit: float | None = None,
    engine: str | Engine | None = None,
    options: Mapping[str, Any] | None = None,
    **params: Any,
) -> Release:
    """Release ``data`` under ``model`` (or models built from ``k=``, ``l=``, ``t=``, ...).

    ``attributes=True`` suppresses whole QI columns instead of cells: the fewest columns whose
    suppression satisfies the model, found exactly
    (:mod:`starmin.algorithms.attribute_suppression`, Meyerson & Williams Sec. 3.1); every
    cell of those columns is ``*``. It takes no ``method``; the report's guarantee and
    certificate name the columns.

    Generalization (docs/hierarchies.md): ``hierarchies`` maps QI columns to ARX hierarchy
    CSV files (or :class:`~starmin.transform.hierarchy.Hierarchy` objects); ``generalize=True``
    gives every other QI column its built-in hierarchy (intervals, masking or flat). Then a
    released cell may be an ancestor of its value. With ``objective="stars"`` (the default)
    the method minimizes stars and each star is released as the most specific node its class
    shares; with ``objective="loss"`` a loss method (:func:`loss_methods`; ``auto`` picks
    among them) minimizes Iyengar's loss. The verifier also checks every released cell
    against the input and the hierarchies. Without either, the release is suppression only
    (a value or ``*``). With hierarchies or the loss objective the report carries a
    certified lower bound on the loss (``report["measures"]["loss_bound"]``).

    ``time_limit`` (seconds; none by default) is a wall-clock limit for the methods that
    honor one (``milp``, and ``method="exact"`` when it picks ``milp``), on the whole solve
    (column generation, rounding, branch and bound; HiGHS may pass it by one of its own
    steps): stopped early, they release their best plan with its proven bound, and the
    guarantee says the release then depends on machine speed and load. Nothing else in
    starmin looks at the clock.

    ``engine`` reads the table, aggregates it to row types, applies the plan and writes the
    release (docs/engines.md): ``"local"`` (polars, the default for anything but a Spark
    DataFrame), ``"spark"`` (PySpark, ``pip install "starmin[spark]"``; the default for a
    Spark DataFrame; takes CSV/Parquet paths or a Spark DataFrame and returns a Spark
    DataFrame; suppression only), or an object following
    :class:`~starmin.engines.base.Engine`. Row types, plan and verdict are the same on every
    engine for the same seed.

    ``options`` go to the named method (``starmin anonymize --option NAME=VALUE``): each
    method's settings, named and checked by it (docs/options.md), e.g.
    ``method="merge-repair", options={"start": "distinct-levels"}``; ``method="auto"`` takes
    ``budget`` only (work units, default 8). The report records them (``"options"``).

    Raises :class:`~starmin.errors.VerificationFailed` if the release does not pass the
    independent verifier (which never happens unless an algorithm is wrong).
    """
    from starmin import model_params as P
    from starmin.method_options import check_options
    from starmin.report.build import build_report
    from starmin.transform.nodes import read_specs, resolve
    from starmin.verifier import verify

    P.check_call("anonymize", params, method, seed, progress)  # all before data is read
    _check_attributes(attributes, method)
    opts = check_options(options, method, attributes)
    check_objective(objective)
    if time_limit is not None:
        from starmin.algorithms.base import check_time_limit

        check_time_limit(time_limit)
        if objective != "stars":
            raise InvalidInput(f"--time-limit applies to methods that minimize stars (the "
                               f"exact MILP): drop it, or drop {param('objective', objective)}")
        if attributes:
            raise InvalidInput("--time-limit does not apply to --attributes (an exact search "
                               "under work limits): drop one of them")
        _check_timed_method(method)
    if attributes and objective != "stars":
        raise InvalidInput(f"attributes=True suppresses whole columns: drop "
                           f"{param('objective', objective)}")
    if not isinstance(generalize, bool):
        raise InvalidInput(f"{param('generalize', generalize)} must be True or False")
    schema = Schema.of(qi, sensitive, identifiers)
    given = read_specs(hierarchies, schema.qi)
    the_model = P.the_model(model, params, schema.sensitive)
    eng = engine_for(data, engine)
    say = progress or silent
    stages = eng.stages = Stages()  # this run's timings, stage by stage
    with stages("read"):
        table = eng.read(data, schema)
    with stages("aggregate"):
        encoded = eng.to_row_types(table, schema)
        rt = encoded.row_types
        resolved = resolve(rt, given, generalize)
        if resolved is not None:  # the row types (and the engine) carry the hierarchies
            rt = rt.with_hierarchies(resolved.hierarchies)
            encoded = replace(encoded, row_types=rt)  # type: ignore[type-var]
    say(f"aggregated n={rt.n} rows, m={rt.m} QIs into t_in={rt.t_in} row types "
        f"({stages.seconds['aggregate']:.2f} s)")
    # the diversity and t-closeness bounds, or k-anonymity's charge LP, overlap the solve
    # (they need only the row types and the model); not under a time limit, where they would
    # take CPU from the method's search
    pool = ThreadPoolExecutor(max_workers=1) if time_limit is None and not attributes else None
    try:
        with stages("solve"):
            ahead = None if pool is None else diversity_ahead(rt, the_model, pool, say)
            close = None if pool is None else closeness_ahead(rt, the_model, pool, say)
            if pool is not None and ahead is None:  # k alone: its charge LP, remembered
                charges_ahead(rt, the_model, pool, say)
            if attributes:
                from starmin.algorithms import attribute_suppression

                plan, trials = attribute_suppression.solve(rt, the_model, progress=say), None
                plan.validate(rt)
            else:
                plan, trials = _solve(rt, the_model, method, seed=seed, progress=say,
                                      objective=objective, time_limit=time_limit, **opts)
        say(f"{plan.method}: {plan.stars} stars ({stages.seconds['solve']:.2f} s)")
        gen = plan.certificate.get("generalization")
        if isinstance(gen, Mapping):
            say(f"each star as its class's lowest common ancestor: {gen['stars_before']} "
                f"stars -> {gen['stars']} stars and {gen['generalized_cells']} generalized "
                "cells")
        with stages("lower_bounds"):
            known = plan.certificate.get("lower_bounds")
            if isinstance(known, dict) and getattr(the_model, "k", None) == \
                    implied_k(the_model) and not getattr(the_model, "uses_sensitive", True):
                bounds = {name: v for name, v in known.items() if name != "best"}
                bounds.update(charge_bounds(rt, the_model, say))  # remembered if asked
                bounds["best"] = max(bounds.values())
            else:
                bounds = lower_bounds(rt, the_model, progress=say, known_lp=_known_lp(plan),
                                      lp_complete=plan.certificate.get("lp_complete") is True,
                                      diversity=ahead, closeness=close)
    finally:
        if pool is not None:  # after an error the bounds thread ends on its own
            pool.shutdown(wait=False, cancel_futures=True)
    with stages("lower_bounds"):
        loss_bound = None
        if resolved is not None or objective == "loss":
            loss_bound = _loss_bound(rt, the_model, plan, say)
    with stages("apply"):  # the local engine's QI columns as categoricals (Release.table)
        from starmin.engines.local import LocalEncoded, LocalEngine

        if isinstance(eng, LocalEngine) and isinstance(encoded, LocalEncoded) \
                and resolved is None:
            released = eng.apply_plan(encoded, plan, seed=seed, categorical=True)
        else:
            released = eng.apply_plan(encoded, plan, seed=seed)
    cells: dict[str, Any] = {} if resolved is None else {
        "original": table, "hierarchies": {c: h.rows for c, h in resolved.files.items()}}
    # the input's QI columns and each row's group are not needed any more: free them before
    # the verifier's working memory is added (the release keeps the columns it shares)
    del table, encoded
    with stages("verify"):  # the independent verifier (its own Spark path for Spark frames)
        verdict = verify(released, schema.qi, schema.sensitive, [the_model], **cells)
    report = build_report(data, rt, schema, the_model, plan, bounds, verdict,
                          dict(stages.seconds), seed, portfolio=trials, objective=objective,
                          loss_bound=loss_bound, options=opts)
    if not verdict.passed:
        raise VerificationFailed(
            f"the release from {plan.method} failed independent verification "
            f"({_failed(verdict)}); nothing was written. Please report this as a bug."
        )
    return Release(plan, verdict, report, frame=released, separator=_separator_of(data),
                   engine=eng, data=data,
                   coded=schema.qi + (schema.sensitive if _is_file(data) else ()))


def engine_for(data: Any, engine: str | Engine | None) -> Engine:
    """The engine that reads ``data``: ``engine`` by name or as an object; ``None`` picks
    ``spark`` for a Spark DataFrame and ``local`` for anything else."""
    if engine is None:
        engine = "spark" if type(data).__module__.startswith("pyspark") else "local"
    return get_engine(engine)


def aggregate(data: Any, qi: str | Iterable[str], sensitive: str | Iterable[str] | None = None,
              *, identifiers: str | Iterable[str] | None = None,
              engine: str | Engine | None = None,
              hierarchies: Mapping[str, str | os.PathLike[str] | Hierarchy] | None = None,
              generalize: bool = False) -> RowTypes:
    """The row types of ``data`` (what every algorithm sees; ``starmin info`` prints them):
    read and aggregated by ``engine`` (``"local"``, ``"spark"`` or an engine object; by
    default ``spark`` for a Spark DataFrame, else ``local``), carrying the QI columns'
    hierarchies when ``hierarchies`` or ``generalize`` give any."""
    from starmin.transform.nodes import read_specs, resolve

    schema = Schema.of(qi, sensitive, identifiers)
    given = read_specs(hierarchies, schema.qi)
    eng = engine_for(data, engine)
    eng.stages = Stages()
    with eng.stages("read"):
        table = eng.read(data, schema)
    with eng.stages("aggregate"):
        rt = eng.to_row_types(table, schema).row_types
    resolved = resolve(rt, given, generalize)
    return rt if resolved is None else rt.with_hierarchies(resolved.hierarchies)


def _loss_bound(rt: RowTypes, model: PrivacyModel, plan: ReleasePlan, say: Progress
                ) -> dict[str, Any]:
    """The certified lower bound on Iyengar's loss (:mod:`starmin.algorithms.loss_bound`):
    the plan's own when its method computed one, else the per-row bound (and the LP over
    node vectors on small tables)."""
    from starmin.algorithms.loss_bound import certified_loss_bound

    own = plan.certificate.get("loss_lower_bound")
    if isinstance(own, Mapping):
        return dict(own)
    say("certified lower bound on the loss (per-row bound; the LP on small tables)")
    return certified_loss_bound(rt, model, progress=say).as_dict()


def _check_attributes(attributes: object, method: object) -> None:
    """``attributes`` is a bool, and with ``True`` no cell-suppression ``method`` is named."""
    from starmin.errors import on_command_line, param

    if not isinstance(attributes, bool):
        raise InvalidInput(f"attributes={attributes!r} must be True or False")
    if attributes and method != "auto":
        flag = "--attributes" if on_command_line() else "attributes=True"
        raise InvalidInput(f"{flag} suppresses whole columns and runs no cell-suppression "
                           f"method: drop {param('method', method)}")


def as_kind_of(data: Any, table: Any) -> Any:
    """``table`` in the kind ``data`` came in (pandas, with ``data``'s index; pyarrow; polars;
    polars for paths); a table that is not a polars DataFrame (a Spark release) as it is."""
    if not isinstance(table, pl.DataFrame):
        return table
    if isinstance(data, pl.LazyFrame):
        return table.lazy()
    mod = type(data).__module__
    if mod.startswith("pandas"):  # the rows keep their order, so they keep their index
        out = table.to_pandas()
        if len(out) == len(data):
            out.index = data.index
        return out
    if mod.startswith("pyarrow"):
        return table.to_arrow()
    return table


def _is_file(data: Any) -> bool:
    """Whether ``data`` names a file or a bundled sample (read by the engine, which chose the
    columns' dtypes) rather than being a table the caller built."""
    return isinstance(data, str | os.PathLike)


def _separator_of(data: Any) -> str:
    if isinstance(data, str | os.PathLike) and not str(data).startswith("sample:") \
            and Path(data).suffix.lower() == ".csv":
        from starmin.data.csv_file import sniff_separator

        return sniff_separator(Path(data))
    return ","


def _failed(verdict: Any) -> str:
    d = verdict.as_dict()
    bad = [m.get("name", "?") for m in d.get("models", []) if not m.get("passed", True)]
    return "fails " + ", ".join(map(str, bad)) if bad else "failed"
