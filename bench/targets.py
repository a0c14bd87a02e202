"""Issue 8's targets on ARX adult: stars, certified bound, gap and time for every model it names.

Writes ``bench/results/targets.json`` and prints the markdown table of ``docs/benchmarks.md``
("Issue 8 targets").

Each run is :func:`starmin.anonymize` end to end (aggregate, the ``--method auto`` portfolio,
lower bounds, apply, verify) on the in-memory adult table (30,162 rows), seed 0, as in
``bench/portfolio.py`` (whose :func:`run` it calls): k-anonymity with all nine columns as QIs,
every other model with the eight QIs and ``occupation`` sensitive. Hierarchical t-closeness
uses ARX's occupation hierarchy (``adult_hierarchy_occupation.csv``). The bound is the report's
certified lower bound (the best of the combinatorial bounds and the LP core's, independent of
the method); gap = stars / bound. "target" is issue 8's ratio for the row, "met" compares.
Wall (``time.perf_counter``) and CPU (``portfolio.cpu_seconds``: this process and its
children, merge-repair's second start among them) seconds of the call, and CPU milliseconds per
1,000 rows.

    python bench/targets.py                 # every configuration
    python bench/targets.py --only k5 t0.2  # some (the other runs in the file are kept)
    python bench/targets.py --table         # print the table of the last results
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from portfolio import ADULT, QI8, QI9, SA, run
from results_file import merged_runs, write_json

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "targets.json"
OCCUPATION = ADULT.parent / "adult_hierarchy_occupation.csv"

Config = tuple[tuple[str, ...], str | None, dict[str, Any], float | None]


def configs() -> dict[str, Config]:
    """name -> (QIs, sensitive column, model parameters, issue 8's target ratio or None)."""
    out: dict[str, Config] = {}
    for k in (2, 3, 5, 10):
        out[f"k{k}"] = (QI9, None, {"k": k}, 1.01)
    for l in range(2, 7):
        out[f"l{l}"] = (QI8, SA, {"l": l}, 1.10)
    for l in range(2, 7):
        out[f"distinct-l{l}"] = (QI8, SA, {"l": l, "l_kind": "distinct"}, 1.05)
    for l in range(2, 5):
        out[f"entropy-l{l}"] = (QI8, SA, {"l": l, "l_kind": "entropy"}, 1.15)
    out["recursive-c4-l3"] = (QI8, SA, {"l": 3, "c": 4, "l_kind": "recursive"}, 1.15)
    for t in (0.1, 0.15, 0.2, 0.3, 0.5):
        out[f"t{t}"] = (QI8, SA, {"t": t}, 1.15)
    for t in (0.1, 0.15, 0.2, 0.3, 0.5):
        out[f"t{t}-hier"] = (QI8, SA, {"t": t, "distance": "hierarchical",
                                       "sa_hierarchy": str(OCCUPATION)}, 1.15)
    out["k5-p3"] = (QI8, SA, {"k": 5, "p": 3}, None)
    out["k5-t0.2"] = (QI8, SA, {"k": 5, "t": 0.2}, None)
    return out


def table(results: dict[str, Any]) -> str:
    rows = ["| model | auto releases | stars | bound | gap | target | met | wall s | CPU s | "
            "CPU ms / 1,000 rows |",
            "|---|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    n = results["rows"]
    for name, r in results["runs"].items():
        bound, target = r["lower_bound"], r["target"]
        gap = r["stars"] / bound if bound else None
        met = "-" if target is None or gap is None else ("yes" if gap <= target else "no")
        rows.append(f"| {name} | {r['method']} ({r['guarantee']}) | {r['stars']:,} | "
                    f"{bound:,} | {'-' if gap is None else f'{gap:.3f}'} | "
                    f"{'-' if target is None else f'<= {target:.2f}'} | {met} | "
                    f"{r['wall_s']} | {r['cpu_s']} | {1e6 * r['cpu_s'] / n:.0f} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", help="configuration names (default: all)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--table", action="store_true",
                    help="print the table of the results in --out and run nothing")
    ns = ap.parse_args()
    if ns.table:
        print(table(json.loads(ns.out.read_text())))
        return
    df = pl.read_csv(ADULT, separator=";")
    chosen = {n: c for n, c in configs().items() if not ns.only or n in ns.only}
    unknown = set(ns.only or ()) - set(configs())
    if unknown:
        ap.error(f"unknown configuration(s) {sorted(unknown)}: choose from "
                 f"{', '.join(configs())}")
    run(df.head(200), QI8[:3], None, {"k": 2})  # warm-up: imports and first-call costs
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_start": os.getloadavg()[0]},
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "rows": df.height, "runs": {}}
    for name, (qi, sa, params, target) in chosen.items():
        r = run(df, qi, sa, params)
        del r["portfolio"]  # bench/portfolio.py reports the members; here the totals
        r["target"] = target
        results["runs"][name] = r
        print(f"{name}: {r['method']} {r['stars']:,} stars, bound {r['lower_bound']:,}, "
              f"{r['wall_s']} s wall, {r['cpu_s']} s CPU", file=sys.stderr, flush=True)
    results["machine"]["load_end"] = os.getloadavg()[0]
    results["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if ns.only:  # re-measured runs replace theirs; the others are kept
        results = merged_runs(ns.out, results, "machine", "started", "finished")
    write_json(ns.out, results)
    print(table(results))


if __name__ == "__main__":
    main()
