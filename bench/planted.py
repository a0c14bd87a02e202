"""Every registered method on the planted instances (starmin.datasets.planted) at growing sizes.

For each family and size the generator plants a solution (seed 0), so the optimum is known
(Meyerson & Williams' attribute family: an upper bound on the stars only). Every method of the
registry (iterated, so methods registered later are included) that ``supports`` the instance
runs once with seed 0 (solve only, on row types); the script records its stars, its plan's
lower bound, its CPU and wall seconds and whether it reached the optimum, plus
:func:`starmin.lower_bounds` (the bounds every report carries) and their time. Writes
``bench/results/planted.json`` and prints the markdown table of docs/benchmarks.md.

Work limits, never a clock: a method with a work estimate (``Algorithm.auto``; about a CPU
second per unit on the reference machine, conservative on these wide tables) runs with the
options of the portfolio's richest variant for it (``auto(model, rt, inf)``: its defaults,
except class-partition, whose defaults have no bounded worst case; the variant is recorded)
when that estimate is at most ``--work-limit`` units (default 10,000), and a method without an
estimate only when ``t_in x m`` is at most 1,000 (its LP's size). ``--method auto`` (or no
``--method``) also records the portfolio's release (``"auto"``: the method it released, its
stars and CPU seconds). The default run takes about 2 CPU minutes (5 minutes of wall time on
a 2-core machine at load 7).

    python bench/planted.py                 # every family at every size
    python bench/planted.py --quick         # the smallest size of each family (seconds)
    python bench/planted.py --table         # print the table of bench/results/planted.json
    python bench/planted.py --family xiao-lemma3 --sizes 8 10 --method class-partition \
        --defaults --out bench/results/planted_classes.json   # one family, one method
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from pathlib import Path
from typing import Any

import starmin
from starmin.algorithms import registry
from starmin.algorithms.base import AutoRun
from starmin.data import Schema
from starmin.data.rowtypes import RowTypes
from starmin.datasets.planted import generate
from starmin.datasets.planted.instance import PlantedInstance
from starmin.engines.local import LocalEngine

OUT = Path(__file__).parent / "results" / "planted.json"
WORK_LIMIT = 10_000.0
NO_ESTIMATE_LIMIT = 1_000
"""Largest ``t_in x m`` on which a method without a work estimate runs."""

# (label, family, sizes, parameters)
RUNS: tuple[tuple[str, str, tuple[int, ...], dict[str, Any]], ...] = (
    ("liang-yuan-thm3", "liang-yuan-thm3", (8, 16, 32), {}),
    ("liang-yuan-thm4", "liang-yuan-thm4", (4, 8, 12), {}),
    ("liang-yuan-thm5", "liang-yuan-thm5", (8, 16, 32), {}),
    ("liang-yuan-thm6", "liang-yuan-thm6", (4, 8, 16), {}),
    ("liang-yuan-thm7", "liang-yuan-thm7", (1, 2, 4), {}),
    ("xiao-lemma3", "xiao-lemma3", (4, 8, 16), {}),
    ("meyerson-williams-thm3.1", "meyerson-williams-thm3.1", (9, 18, 36), {}),
    ("meyerson-williams-thm3.1, k=2, as 2-diversity", "meyerson-williams-thm3.1", (8, 16, 32),
     {"k": 2, "model": "l-diversity"}),
    ("meyerson-williams-thm3.2", "meyerson-williams-thm3.2", (9, 18, 36), {}),
    ("bredereck-prop1", "bredereck-prop1", (8, 16, 32), {}),
    ("bredereck-thm1", "bredereck-thm1", (8, 16, 32), {}),
)


def row_types(inst: PlantedInstance) -> RowTypes:
    schema = Schema.of(list(inst.qi), list(inst.sensitive) or None)
    return LocalEngine().to_row_types(inst.frame(), schema).row_types


def richest(algo: Any, model: Any, rt: RowTypes) -> AutoRun | None:
    """The portfolio's richest variant of ``algo`` here (its ``auto`` with no budget limit:
    its defaults for every member but class-partition, whose defaults have no bounded worst
    case), or None for a method without a work estimate."""
    return None if algo.auto is None else algo.auto(model, rt, math.inf)


def skip_reason(algo: Any, model: Any, rt: RowTypes, work_limit: float) -> str | None:
    """Why ``algo`` does not run here (unsupported or over the work limit), or None."""
    reason = algo.supports(model, rt)
    if reason is not None:
        return f"unsupported: {reason}"
    run = richest(algo, model, rt)
    if run is not None:
        work = run.work
        if work > work_limit:
            return f"over the work limit: estimate {work:,.0f} units > {work_limit:,.0f}"
    elif rt.t_in * rt.m > NO_ESTIMATE_LIMIT:
        return f"over the work limit: t_in x m = {rt.t_in * rt.m:,} > {NO_ESTIMATE_LIMIT:,}"
    return None


def run_one(family: str, size: int, params: dict[str, Any], work_limit: float,
            methods: tuple[str, ...] = (), defaults: bool = False) -> dict[str, Any]:
    inst = generate(family, size, seed=0, **params)
    rt = row_types(inst)
    model = inst.model()
    opt = inst.optimum
    c0 = time.process_time()
    bounds = starmin.lower_bounds(rt, model)
    record: dict[str, Any] = {
        "family": family, "size": size, "parameters": inst.parameters, "rows": rt.n,
        "qi": rt.m, "t_in": rt.t_in, "model": inst.model_params,
        "optimum": opt.stars, "upper_bound": opt.upper_bound,
        "lower_bounds": bounds, "lower_bounds_cpu_s": round(time.process_time() - c0, 3),
        "methods": {}}
    for name, algo in registry.algorithms().items():
        if methods and name not in methods:
            continue
        skip = skip_reason(algo, model, rt, work_limit)
        if skip is not None:
            record["methods"][name] = {"status": "skipped", "reason": skip}
            continue
        c0, w0 = time.process_time(), time.perf_counter()
        run = None if defaults else richest(algo, model, rt)
        try:
            plan = starmin.solve(rt, model, method=name, seed=0,
                                 **(dict(run.options) if run else {}))
        except Exception as exc:  # a method's bug is a result here, not the end of the run
            record["methods"][name] = {"status": "failed",
                                       "error": f"{type(exc).__name__}: {exc}"[:300],
                                       "cpu_s": round(time.process_time() - c0, 3)}
            continue
        record["methods"][name] = {
            "status": "ok", "kind": plan.guarantee.kind, "stars": plan.stars,
            **({"variant": run.note} if run and run.note else {}),
            "lower_bound": plan.lower_bound,
            "at_optimum": None if opt.stars is None else plan.stars == opt.stars,
            "cpu_s": round(time.process_time() - c0, 3),
            "wall_s": round(time.perf_counter() - w0, 3)}
    if not methods or "auto" in methods:
        c0 = time.process_time()
        plan = starmin.solve(rt, model, method="auto", seed=0)
        record["auto"] = {"method": plan.method, "kind": plan.guarantee.kind,
                          "stars": plan.stars, "lower_bound": plan.lower_bound,
                          "at_optimum": None if opt.stars is None else plan.stars == opt.stars,
                          "cpu_s": round(time.process_time() - c0, 3)}
    return record


def table(results: dict[str, Any]) -> str:
    """The markdown table: one line per instance, each method that ran with its stars (bold
    at the optimum) and CPU seconds; failures and skips over the work limit named."""
    head = ("| family | size | rows x QIs (t_in) | optimum | best lower bound | auto: method "
            "stars (CPU s) | methods: stars (CPU s) | over the work limit / failed |")
    lines = [head, "|---|---:|---|---:|---:|---|---|---|"]
    for r in results["runs"]:
        opt = r["optimum"]
        shown = (f"{opt:,}" if opt is not None
                 else f"<= {r['upper_bound']:,}" if r["upper_bound"] is not None else "?")
        ran = []
        other = []
        for name, m in r["methods"].items():
            if m["status"] == "ok":
                stars = f"{m['stars']:,}"
                ran.append(f"{name} {'**' + stars + '**' if m['at_optimum'] else stars} "
                           f"({m['cpu_s']:.2f})")
            elif m["status"] == "failed":
                other.append(f"{name} failed ({m['error'].split(':')[0]})")
            elif m["reason"].startswith("over"):
                other.append(f"{name} over")
        label = r.get("label", r["family"])
        a = r.get("auto")
        auto = "-"
        if a is not None:
            stars = f"{a['stars']:,}"
            auto = f"{a['method']} {'**' + stars + '**' if a['at_optimum'] else stars} " \
                   f"({a['cpu_s']:.2f})"
        lines.append(f"| {label} | {r['size']} | {r['rows']} x {r['qi']} ({r['t_in']}) | "
                     f"{shown} | {r['lower_bounds']['best']:,} | {auto} | "
                     f"{'; '.join(ran) or '-'} | "
                     f"{', '.join(other) or '-'} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="the smallest size of each family")
    ap.add_argument("--work-limit", type=float, default=WORK_LIMIT,
                    help=f"largest work estimate (units) a method runs at (default "
                         f"{WORK_LIMIT:g})")
    ap.add_argument("--family", action="append", default=[],
                    help="run only this family label (repeatable; default: every one)")
    ap.add_argument("--sizes", type=int, nargs="+", default=None,
                    help="these sizes instead of the family's own")
    ap.add_argument("--method", action="append", default=[],
                    help="run only this method (repeatable; default: every registered one)")
    ap.add_argument("--defaults", action="store_true",
                    help="run each method with its own defaults, not the portfolio's richest "
                         "variant (the work limit still uses that variant's estimate)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--table", action="store_true",
                    help="print the table of the results in --out and run nothing")
    ns = ap.parse_args()
    if ns.table:
        print(table(json.loads(ns.out.read_text())))
        return
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_start": os.getloadavg()[0]},
        "work_limit_units": ns.work_limit, "defaults": ns.defaults,
        "no_estimate_limit_t_in_x_m": NO_ESTIMATE_LIMIT,
        "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "runs": []}
    w0 = time.perf_counter()
    for label, family, sizes, params in RUNS:
        if ns.family and label not in ns.family:
            continue
        sizes = tuple(ns.sizes) if ns.sizes else sizes
        for size in sizes[:1] if ns.quick else sizes:
            r = {"label": label, **run_one(family, size, params, ns.work_limit,
                                           tuple(ns.method), ns.defaults)}
            results["runs"].append(r)
            best = min((m["stars"] for m in r["methods"].values() if m["status"] == "ok"),
                       default=None)
            print(f"{label} n={size}: {r['rows']} x {r['qi']}, optimum {r['optimum']}, "
                  f"best {best}, bound {r['lower_bounds']['best']}", flush=True)
    results["machine"]["load_end"] = os.getloadavg()[0]
    results["wall_s"] = round(time.perf_counter() - w0, 1)
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    ns.out.write_text(json.dumps(results, indent=1) + "\n")
    print(table(results))


if __name__ == "__main__":
    main()
