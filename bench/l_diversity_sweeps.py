"""The experiments of bench/l_diversity_experiments.py: projection sweeps, scaling in n, and
comparisons with exact optima. Each returns plain JSON-ready dicts of runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

import numpy as np
import polars as pl

from l_diversity_data import (
    ADULT_QI,
    ADULT_SA,
    BALANCED_QI,
    BALANCED_SA,
    Table,
    adult,
    balanced_adult,
    projections,
)
from l_diversity_runs import (
    HEURISTICS,
    METHODS,
    aggregate,
    algorithm,
    describe,
    record,
    warm_up,
)
from starmin.errors import SolverLimit
from starmin.models import LDiversity


@dataclass(frozen=True)
class TableSpec:
    """Projection sweep of one table.

    Every projection of every ``d`` in ``ds`` gets TP at every feasible ``l`` (the phase-three
    count, as Xiao et al. Sec. 6.1) when ``phases_all``; a seeded sample of ``limit``
    projections per ``d`` (all when None) also gets TP+ and Hilbert (both cuts) at every ``l`` for
    ``d == fig_d`` (Figures 2 and 4) and at ``l == fig_l`` for every ``d`` (Figures 3 and 5).
    The first ``verify_first`` sampled projections of each ``d`` are verified at the ``l`` in
    ``verify_ls`` (every ``l`` when None), every method.
    """

    make: Callable[[], Table]
    ls: tuple[int, ...]
    ds: tuple[int, ...]
    fig_d: int = 4
    fig_l: int = 6
    limit: int | None = None
    phases_all: bool = True
    verify_first: int = 1
    verify_ls: tuple[int, ...] | None = None


@dataclass(frozen=True)
class ScalingSpec:
    """Solve time against ``n`` (Figure 6): ``make(n_max)`` once, prefixes for smaller ``n``
    (both generators are prefix-stable); the largest ``n`` (every ``n`` if ``verify_all``)
    is verified on the first projection (every projection if ``verify_all``)."""

    name: str
    make: Callable[[int], pl.DataFrame]
    qi_sets: tuple[tuple[str, ...], ...]
    sensitive: str
    ns: tuple[int, ...]
    l: int = 6
    methods: tuple[str, ...] = HEURISTICS
    verify_all: bool = False


@dataclass(frozen=True)
class FlowSpec:
    """l = 2 on balanced adult (two salary classes) against the exact min-cost matching
    (``two-diversity-flow``): ``limit`` seeded projections per ``d`` (all when None)."""

    n: int
    ds: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)
    limit: int | None = 3


@dataclass(frozen=True)
class SampleSpec:
    """Random adult samples of ``rows`` rows (SA occupation) on random ``d``-projections
    against the exact ``method`` (``brute-force`` or ``two-diversity-milp``); at l = 2 the
    exact methods in ``cross`` also run and must agree."""

    name: str
    method: str
    samples: int
    rows: int
    ds: tuple[int, ...]
    ls: tuple[int, ...]
    cross: tuple[str, ...] = ()


def _tasks(spec: TableSpec, d: int, sampled: bool, ls: list[int]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for l in ls:
        full = sampled and (d == spec.fig_d or l == spec.fig_l)
        if full:
            out += [(l, m) for m in METHODS]
        elif spec.phases_all or sampled:
            out.append((l, "tp"))
    return out


@dataclass(frozen=True)
class Job:
    """One projection of one table (``table`` indexes the config's tables) and its runs."""

    table: int
    d: int
    qi: tuple[str, ...]
    sampled: bool
    pos: int | None
    ls: tuple[int, ...]


def table_jobs(spec: TableSpec, table: Table, index: int, seed: int) -> list[Job]:
    """Every projection the sweep visits, in order (see :class:`TableSpec`)."""
    ls = tuple(l for l in spec.ls if l <= table.max_l)
    jobs = []
    for d in spec.ds:
        sample = projections(table.qi, d, spec.limit, seed)
        every = projections(table.qi, d, None, seed) if spec.phases_all else sample
        jobs += [Job(index, d, qi, qi in sample, sample.index(qi) if qi in sample else None,
                     ls) for qi in every]
    return jobs


def run_job(spec: TableSpec, table: Table, job: Job) -> list[dict[str, Any]]:
    """Aggregate one projection and run its tasks."""
    enc, agg = aggregate(table.df, job.qi, table.sensitive)
    info = {"d": job.d, "qi": list(job.qi), "sampled": job.sampled, "aggregate_seconds": agg,
            **describe(enc)}
    runs = []
    for l, m in _tasks(spec, job.d, job.sampled, list(job.ls)):
        check = job.pos is not None and job.pos < spec.verify_first and (
            spec.verify_ls is None or l in spec.verify_ls)
        runs.append({**info, **record(enc, l, m, check)})
    return runs


_CACHE: dict[tuple[str, int, int], tuple[TableSpec, Table]] = {}


def _worker(args: tuple[str, int, Job]) -> list[dict[str, Any]]:
    """Pool worker: rebuild the config's table once per process, then run the job."""
    from l_diversity_configs import CONFIGS

    name, seed, job = args
    key = (name, seed, job.table)
    if key not in _CACHE:
        spec = CONFIGS[name](seed).tables[job.table]
        _CACHE[key] = (spec, spec.make())
    spec, table = _CACHE[key]
    return run_job(spec, table, job)


def run_tables(specs: list[TableSpec], seed: int, say: Callable[[str], None],
               config: str | None = None, jobs: int = 1) -> list[dict[str, Any]]:
    """The projection sweeps of every table, over ``jobs`` processes (spawned; each rebuilds
    the table of config ``config`` by name). Results are in job order either way."""
    tables = [spec.make() for spec in specs]
    todo = [j for i, (spec, t) in enumerate(zip(specs, tables, strict=True))
            for j in table_jobs(spec, t, i, seed)]
    out = [_table_result(spec, t, seed) for spec, t in zip(specs, tables, strict=True)]
    if jobs > 1 and config is not None:
        with get_context("spawn").Pool(jobs, initializer=warm_up) as pool:
            results = pool.imap(_worker, [(config, seed, j) for j in todo])
            _collect(todo, results, out, say)
    else:
        _collect(todo, (run_job(specs[j.table], tables[j.table], j) for j in todo), out, say)
    return out


def _collect(todo: list[Job], results: Iterable[list[dict[str, Any]]],
             out: list[dict[str, Any]], say: Callable[[str], None]) -> None:
    for k, (job, runs) in enumerate(zip(todo, results, strict=True)):
        out[job.table]["runs"] += runs
        last = k + 1 == len(todo) or (todo[k + 1].table, todo[k + 1].d) != (job.table, job.d)
        if last:
            say(f"{out[job.table]['name']}: d={job.d} done "
                f"({len(out[job.table]['runs'])} runs so far)")


def _table_result(spec: TableSpec, table: Table, seed: int) -> dict[str, Any]:
    max_l = table.max_l
    chosen = {str(d): [list(p) for p in projections(table.qi, d, spec.limit, seed)]
              for d in spec.ds}
    return {"name": table.name, "n": table.df.height, "qi": list(table.qi),
            "sensitive": table.sensitive, "max_l": max_l,
            "ls": [l for l in spec.ls if l <= max_l],
            "infeasible_ls": [l for l in spec.ls if l > max_l], "fig_d": spec.fig_d,
            "fig_l": spec.fig_l, "limit": spec.limit, "sampled_projections": chosen,
            "runs": []}


def run_scaling(spec: ScalingSpec, say: Callable[[str], None]) -> dict[str, Any]:
    """Solve time against ``n`` (see :class:`ScalingSpec`)."""
    big = spec.make(max(spec.ns))
    runs: list[dict[str, Any]] = []
    for n in sorted(spec.ns):
        df = big.head(n)
        for qi in spec.qi_sets:
            enc, agg = aggregate(df, qi, spec.sensitive)
            info = {"d": len(qi), "qi": list(qi), "aggregate_seconds": agg, **describe(enc)}
            for m in spec.methods:
                check = spec.verify_all or (n == max(spec.ns) and qi == spec.qi_sets[0])
                runs.append({**info, **record(enc, spec.l, m, check)})
        say(f"{spec.name}: n={n} done")
    return {"name": spec.name, "sensitive": spec.sensitive, "l": spec.l, "ns": list(spec.ns),
            "qi_sets": [list(q) for q in spec.qi_sets], "runs": runs}


def _exact_runs(enc: Any, l: int, exact: str, info: dict[str, Any],
                limits: list[dict[str, Any]], cross: tuple[str, ...] = ()
                ) -> list[dict[str, Any]]:
    """The exact solver, the cross-checking exact solvers and the heuristics on one
    instance, all verified, each run carrying ``opt`` (the first solver's optimum). An exact
    solver that stops with ``SolverLimit`` is listed in ``limits`` (reported, not hidden)."""
    try:
        best = record(enc, l, exact, check=True)
    except SolverLimit as e:
        limits.append({**info, "method": exact, "l": l, "error": str(e)})
        return []
    out = [{**info, **best, "opt": best["stars"]}]
    for m in (*cross, *METHODS):
        try:
            out.append({**info, **record(enc, l, m, check=True), "opt": best["stars"]})
        except SolverLimit as e:
            limits.append({**info, "method": m, "l": l, "error": str(e)})
    return out


def run_flow(spec: FlowSpec, seed: int, say: Callable[[str], None]) -> dict[str, Any]:
    """TP, TP+ and Hilbert against the exact 2-diversity matching (see :class:`FlowSpec`)."""
    base = {"name": f"2-diversity matching, {spec.n} balanced adult rows",
            "method": "two-diversity-flow", "key": "d", "l": 2}
    if algorithm("two-diversity-flow") is None:
        return {**base, "skipped": "two-diversity-flow is not available", "runs": []}
    df = balanced_adult(spec.n, seed)
    runs: list[dict[str, Any]] = []
    limits: list[dict[str, Any]] = []
    for d in spec.ds:
        for qi in projections(BALANCED_QI, d, spec.limit, seed):
            enc, _ = aggregate(df, qi, BALANCED_SA)
            runs += _exact_runs(enc, 2, "two-diversity-flow", {"qi": list(qi),
                                                                **describe(enc)}, limits)
        say(f"flow: d={d} done")
    return {**base, "n": df.height, "qi": list(BALANCED_QI), "sensitive": BALANCED_SA,
            "limit": spec.limit, "solver_limits": limits, "runs": runs}


def run_samples(spec: SampleSpec, seed: int, say: Callable[[str], None]) -> dict[str, Any]:
    """TP, TP+ and Hilbert against an exact method on small samples (:class:`SampleSpec`)."""
    base = {"name": spec.name, "method": spec.method, "rows": spec.rows,
            "samples": spec.samples, "sensitive": ADULT_SA,
            "key": "l" if len(spec.ls) > 1 else "d"}
    exact = algorithm(spec.method)
    if exact is None:
        return {**base, "skipped": f"{spec.method} is not available", "runs": []}
    cross = tuple(m for m in spec.cross if algorithm(m) is not None)
    data = adult()
    rng = np.random.default_rng([seed, spec.rows])
    runs: list[dict[str, Any]] = []
    limits: list[dict[str, Any]] = []
    skipped = {"infeasible": 0, "too_large": 0}
    for i in range(spec.samples):
        df = data.sample(spec.rows, seed=seed * 100_003 + i)
        d = spec.ds[i % len(spec.ds)]
        qi = tuple(ADULT_QI[j] for j in sorted(rng.choice(len(ADULT_QI), d, replace=False)))
        enc, _ = aggregate(df, qi, ADULT_SA)
        top = int(enc.row_types.counts.sum(axis=0).max())
        for l in spec.ls:
            if l * top > spec.rows:
                skipped["infeasible"] += 1
                continue
            if exact.supports(LDiversity(l), enc.row_types) is not None:
                skipped["too_large"] += 1
                continue
            runs += _exact_runs(enc, l, spec.method, {"sample": i, "qi": list(qi),
                                                      **describe(enc)},
                                limits, cross if l == 2 else ())
    say(f"{spec.name}: {sum(r['method'] == spec.method for r in runs)} instances")
    return {**base, "skipped": skipped, "cross": list(cross), "solver_limits": limits,
            "runs": runs}
