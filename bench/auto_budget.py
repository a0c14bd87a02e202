"""Does ``--method auto`` keep to its work budget? Its CPU time on the first rows of ARX adult.

The portfolio (docs/algorithms/portfolio.md) charges each member its *estimated* work (about a
CPU second per unit on the reference machine, from the instance's size only) against a budget
of 8 units. An estimate far below a member's real cost makes ``auto`` slow on that kind of
table; this script looks for such tables. For every size (the first ``n`` rows of adult, the 8
QIs of ``bench/portfolio.py``, ``occupation`` sensitive where the model needs it) and every
model it runs ``starmin.solve(rt, model)`` (the portfolio alone: no lower bounds, apply or
verify) and records its CPU seconds (``time.process_time``), the units the portfolio charged,
and each member's estimate and wall seconds. Infeasible instances are recorded as such.
Writes ``bench/results/auto_budget.json`` and prints the runs over ``--flag`` CPU seconds
(default 10) and the slowest run per size.

With ``--shapes`` the tables are uniform random instead (``NxMxV``: ``N`` rows, ``M`` QIs of
``V`` values each, a sensitive column of 8 values or ``--sensitive-values``, seed 0 for every
shape): tables without the structure of real data, on which LPs can be far slower per
iteration than on adult's subsets.

    python bench/auto_budget.py                       # every size and model (a few minutes)
    python bench/auto_budget.py --rows 100 --models t0.2
    python bench/auto_budget.py --shapes 2000x6x4 5000x9x4 --models k5 distinct-l3 \\
        --out bench/results/auto_budget_random.json
    python bench/auto_budget.py --shapes 100x5x3 200x5x3 400x5x3 --sensitive-values 5 \\
        --models t0.1 t0.2 t0.5 --out bench/results/auto_budget_t_few_values.json
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import starmin
from starmin.algorithms.portfolio import BUDGET
from starmin.data import Schema
from starmin.engines.local import LocalEngine
from starmin.errors import Infeasible
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    LDiversity,
    OrderedDistance,
    PrivacyModel,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from portfolio import ADULT, QI8, SA
from results_file import write_json

OUT = Path(__file__).resolve().parent / "results" / "auto_budget.json"
MODELS: dict[str, PrivacyModel] = {
    "k2": KAnonymity(2), "k5": KAnonymity(5), "k10": KAnonymity(10),
    "l2": LDiversity(2), "l3": LDiversity(3), "l5": LDiversity(5),
    "distinct-l2": DistinctLDiversity(2), "distinct-l3": DistinctLDiversity(3),
    "entropy-l3": EntropyLDiversity(3), "recursive-c4-l3": RecursiveCLDiversity(4, 3),
    "k5-p3": PSensitiveKAnonymity(3, 5), "t0.1": TCloseness(0.1), "t0.2": TCloseness(0.2),
    "t0.5": TCloseness(0.5), "t0.3-ordered": TCloseness(0.3, OrderedDistance()),
    "k5-t0.3": AllOf(KAnonymity(5), TCloseness(0.3)),
}
ROWS = (20, 50, 100, 150, 300, 1000, 3000)


def random_table(shape: str, r: int = 8) -> pl.DataFrame:
    """``NxMxV``: ``N`` rows of ``M`` uniform QIs ``q1..qM`` with ``V`` values and a sensitive
    column ``s`` of ``r`` uniform values (seed 0)."""
    try:
        n, m, v = (int(x) for x in shape.lower().split("x"))
    except ValueError:
        raise SystemExit(f"--shapes: {shape!r} is not NxMxV, e.g. 5000x9x4") from None
    rng = np.random.default_rng(0)
    cols = {f"q{i + 1}": rng.integers(0, v, size=n).astype(str) for i in range(m)}
    cols["s"] = rng.integers(0, r, size=n).astype(str)
    return pl.DataFrame(cols)


def run(table: pl.DataFrame, n: int, name: str, shape: str | None = None) -> dict[str, Any]:
    """One ``auto`` run: the first ``n`` rows of adult, or the random table of ``shape``."""
    model = MODELS[name]
    qi, sa = (QI8, SA) if shape is None else (tuple(c for c in table.columns if c != "s"), "s")
    schema = Schema(qi=qi, sensitive=(sa,) if model.uses_sensitive else ())
    rt = LocalEngine().to_row_types(table.head(n), schema).row_types
    out: dict[str, Any] = {"rows": n, "model": name, "t_in": rt.t_in}
    if shape is not None:
        out["shape"] = shape
    c0 = time.process_time()
    try:
        plan = starmin.solve(rt, model)
    except Infeasible as exc:
        out.update(infeasible=str(exc)[:120], cpu_s=round(time.process_time() - c0, 3))
        return out
    out.update(method=plan.method, guarantee=plan.guarantee.kind, stars=plan.stars,
               cpu_s=round(time.process_time() - c0, 3),
               spent=plan.certificate["portfolio_budget"]["spent"],
               members=[{k: t[k] for k in ("method", "status", "work", "stars") if k in t}
                        for t in plan.certificate["portfolio"]
                        if t["status"] in ("released", "tried", "failed")])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=list(ROWS))
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    ap.add_argument("--flag", type=float, default=10.0,
                    help="print the runs over this many CPU seconds (default 10)")
    ap.add_argument("--shapes", nargs="+", metavar="NxMxV",
                    help="uniform random tables instead of adult (then --rows is ignored)")
    ap.add_argument("--sensitive-values", type=int, default=8, metavar="R",
                    help="values of the random tables' sensitive column (default 8)")
    ap.add_argument("--out", type=Path, default=OUT)
    ns = ap.parse_args()
    if ns.sensitive_values < 2:
        ap.error("--sensitive-values must be at least 2")
    tables = ([(random_table(sh, ns.sensitive_values), sh) for sh in ns.shapes] if ns.shapes else
              [(pl.read_csv(ADULT, separator=";", infer_schema=False), None)])
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_start": os.getloadavg()[0]},
        "budget_units": BUDGET, "sensitive_values": ns.sensitive_values if ns.shapes else None,
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "runs": []}
    sizes = [(t, sh, t.height) for t, sh in tables] if ns.shapes else \
        [(tables[0][0], None, n) for n in ns.rows]
    for table, shape, n in sizes:
        for name in ns.models:
            r = run(table, n, name, shape)
            results["runs"].append(r)
            print(f"{_label(shape, n)}, {name}: {r.get('method', 'infeasible')} "
                  f"{r.get('stars', '')} ({r['cpu_s']:.2f} CPU s, {r.get('spent', 0)} units)",
                  flush=True)
    results["machine"]["load_end"] = os.getloadavg()[0]
    write_json(ns.out, results)
    over = [r for r in results["runs"] if r["cpu_s"] > ns.flag]
    print(f"\n{len(over)} of {len(results['runs'])} runs over {ns.flag:g} CPU s"
          + "".join(f"\n  {_label(r.get('shape'), r['rows'])}, {r['model']}: {r['cpu_s']} s, "
                    f"{r.get('members')}" for r in over))
    print(f"\n| {'table' if ns.shapes else 'rows'} | slowest model | its CPU s | its method "
          f"| median CPU s |")
    print("|---|---|---:|---|---:|")
    for _, shape, n in sizes:
        rs = sorted((r for r in results["runs"] if r["rows"] == n and r.get("shape") == shape),
                    key=lambda r: r["cpu_s"])
        if rs:
            top = rs[-1]
            print(f"| {shape or f'{n:,}'} | {top['model']} | {top['cpu_s']:.2f} | "
                  f"{top.get('method', 'infeasible')} | {rs[len(rs) // 2]['cpu_s']:.2f} |")


def _label(shape: str | None, n: int) -> str:
    return shape or f"{n} rows"


if __name__ == "__main__":
    main()
