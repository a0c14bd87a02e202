"""k-anonymity by cell suppression on ARX adult: pattern packing against its lower bounds.

Writes ``bench/results/k_anonymity.json`` and prints a markdown table (pasted into
``docs/algorithms/pattern-packing.md``).

Data: ARX ``adult.csv`` (30,162 rows) from ``<repo>/../shared/data/arx``, all nine columns as
QIs (and the eight without ``salary-class``), no sensitive column; optionally the synthetic
census (:func:`starmin.datasets.synthetic_census`, ``--census N`` rows) for scale.

For each (QI set, k): the row types are built by ``LocalEngine.to_row_types``; then, timed
separately with ``time.perf_counter`` (wall clock, one run, 2-core machine):

- ``pattern-packing`` (``solve`` with ``bounds=False``; the plan, not applied to rows),
- the lower bounds (:func:`starmin.algorithms.bounds.k_anonymity_lower_bounds`),
- the m-approximation (Liang & Yuan Thm 10) as a baseline;

and the pattern-packing release is applied by the engine and checked by the independent
verifier (stars and k-anonymity recounted on the released table). ``arx`` is the stars of
ARX's best cell-suppression release, as given in the project brief (9 QIs, k = 2 and 5).

    python bench/k_anonymity.py                    # adult, k = 2, 3, 5, 10, 9 and 8 QIs
    python bench/k_anonymity.py --census 1000000   # also the synthetic census at 1M rows
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import polars as pl

from starmin.algorithms.approx import m_approx
from starmin.algorithms.bounds import k_anonymity_lower_bounds
from starmin.algorithms.heuristic import pattern_packing
from starmin.data.schema import Schema
from starmin.datasets import synthetic_census
from starmin.engines.local import LocalEngine
from starmin.models import KAnonymity
from starmin.verifier import verify

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / ".." / "shared" / "data" / "arx" / "adult.csv"
OUT = ROOT / "bench" / "results" / "k_anonymity.json"
ARX = {(9, 2): 22880, (9, 5): 38219}


def run(name: str, df: pl.DataFrame, qi: list[str], k: int) -> dict[str, Any]:
    """One (table, QI set, k) measurement."""
    engine = LocalEngine()
    enc = engine.to_row_types(df.select(qi), Schema.of(qi=qi))
    rt = enc.row_types
    t0 = time.perf_counter()
    plan = pattern_packing.solve(rt, KAnonymity(k), bounds=False)
    t_solve = time.perf_counter() - t0
    t0 = time.perf_counter()
    bounds = k_anonymity_lower_bounds(rt, k)
    t_bounds = time.perf_counter() - t0
    t0 = time.perf_counter()
    base = m_approx.solve(rt, KAnonymity(k))
    t_base = time.perf_counter() - t0
    report = verify(engine.apply_plan(enc, plan), qi, None, KAnonymity(k))
    assert report.passed and report.stars == plan.stars
    best = bounds["best"]
    return {
        "table": name, "n": rt.n, "t_in": rt.t_in, "m": rt.m, "k": k,
        "stars": plan.stars, "suppressed_records": plan.suppressed_records,
        "classes": plan.t_out, "lower_bounds": bounds,
        "gap": round(plan.stars / best - 1, 4) if best else None,
        "seconds": round(t_solve, 2), "bound_seconds": round(t_bounds, 2),
        "m_approx_stars": base.stars, "m_approx_seconds": round(t_base, 2),
        "arx_stars": ARX.get((rt.m, k)) if name == "adult" else None,
        "verified": bool(report.passed),
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The markdown table of the results."""
    head = ("| table | m | k | t_in | stars | suppressed records | lower bound (pattern / "
            "partner) | gap | time (s) | bound time (s) | m-approx stars | ARX stars |\n"
            "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    lines = [head]
    for r in rows:
        b = r["lower_bounds"]
        lines.append(
            f"| {r['table']} | {r['m']} | {r['k']} | {r['t_in']:,} | {r['stars']:,} | "
            f"{r['suppressed_records']:,} | {b['best']:,} ({b['pattern']:,} / "
            f"{b.get('partner', 0):,}) | {100 * (r['gap'] or 0):.1f} % | {r['seconds']} | "
            f"{r['bound_seconds']} | {r['m_approx_stars']:,} | "
            f"{'' if r['arx_stars'] is None else format(r['arx_stars'], ',')} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="*", default=[2, 3, 5, 10])
    ap.add_argument("--census", type=int, default=0, help="also the synthetic census, n rows")
    args = ap.parse_args()
    adult = pl.read_csv(ADULT, separator=";")
    rows = []
    for qi in (list(adult.columns), [c for c in adult.columns if c != "salary-class"]):
        for k in args.k:
            rows.append(run("adult", adult, qi, k))
            print(json.dumps(rows[-1]), flush=True)
    if args.census:
        census = synthetic_census(args.census, seed=0)
        for k in args.k:
            rows.append(run(f"census-{args.census}", census, list(census.columns), k))
            print(json.dumps(rows[-1]), flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    meta = {"machine": platform.machine(), "python": platform.python_version(),
            "cpus": os.cpu_count(), "load_average": os.getloadavg()}
    OUT.write_text(json.dumps({"meta": meta, "results": rows}, indent=1) + "\n")
    print(table(rows))


if __name__ == "__main__":
    main()
