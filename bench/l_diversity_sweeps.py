"""The experiments of bench/l_diversity_experiments.py: projection sweeps, scaling in n, and
comparisons with exact optima. Each returns plain JSON-ready dicts of runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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
from l_diversity_runs import HEURISTICS, METHODS, aggregate, algorithm, describe, record
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


def run_table(spec: TableSpec, seed: int, say: Callable[[str], None]) -> dict[str, Any]:
    """The projection sweep of one table (see :class:`TableSpec`)."""
    table = spec.make()
    max_l = table.max_l
    ls = [l for l in spec.ls if l <= max_l]
    runs: list[dict[str, Any]] = []
    chosen: dict[str, list[list[str]]] = {}
    for d in spec.ds:
        sample = projections(table.qi, d, spec.limit, seed)
        chosen[str(d)] = [list(p) for p in sample]
        every = projections(table.qi, d, None, seed) if spec.phases_all else sample
        for qi in every:
            sampled = qi in sample
            pos = sample.index(qi) if sampled else None
            enc, agg = aggregate(table.df, qi, table.sensitive)
            info = {"d": d, "qi": list(qi), "sampled": sampled, "aggregate_seconds": agg,
                    **describe(enc)}
            for l, m in _tasks(spec, d, sampled, ls):
                check = pos is not None and pos < spec.verify_first and (
                    spec.verify_ls is None or l in spec.verify_ls)
                runs.append({**info, **record(enc, l, m, check)})
        say(f"{table.name}: d={d} done ({len(every)} projections, {len(runs)} runs so far)")
    return {"name": table.name, "n": table.df.height, "qi": list(table.qi),
            "sensitive": table.sensitive, "max_l": max_l, "ls": ls,
            "infeasible_ls": [l for l in spec.ls if l > max_l], "fig_d": spec.fig_d,
            "fig_l": spec.fig_l, "limit": spec.limit, "sampled_projections": chosen,
            "runs": runs}


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
                cross: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The exact solver, the cross-checking exact solvers and the three heuristics on one
    instance, all verified, each run carrying ``opt`` (the first solver's optimum)."""
    best = record(enc, l, exact, check=True)
    out = [{**info, **best, "opt": best["stars"]}]
    for m in (*cross, *METHODS):
        out.append({**info, **record(enc, l, m, check=True), "opt": best["stars"]})
    return out


def run_flow(spec: FlowSpec, seed: int, say: Callable[[str], None]) -> dict[str, Any]:
    """TP, TP+ and Hilbert against the exact 2-diversity matching (see :class:`FlowSpec`)."""
    base = {"name": f"2-diversity matching, {spec.n} balanced adult rows",
            "method": "two-diversity-flow", "key": "d", "l": 2}
    if algorithm("two-diversity-flow") is None:
        return {**base, "skipped": "two-diversity-flow is not available", "runs": []}
    df = balanced_adult(spec.n, seed)
    runs: list[dict[str, Any]] = []
    for d in spec.ds:
        for qi in projections(BALANCED_QI, d, spec.limit, seed):
            enc, _ = aggregate(df, qi, BALANCED_SA)
            runs += _exact_runs(enc, 2, "two-diversity-flow", {"qi": list(qi),
                                                                **describe(enc)})
        say(f"flow: d={d} done")
    return {**base, "n": df.height, "qi": list(BALANCED_QI), "sensitive": BALANCED_SA,
            "limit": spec.limit, "runs": runs}


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
                                cross if l == 2 else ())
    say(f"{spec.name}: {sum(r['method'] == spec.method for r in runs)} instances")
    return {**base, "skipped": skipped, "cross": list(cross), "runs": runs}
