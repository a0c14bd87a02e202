"""Merge-repair with its defaults (both partner rules, every start it takes) on issue 8's adult
configurations: stars, wall and CPU seconds, and which (start, rule) runs were not run again
because they would have repeated the first rule's merges (stop 55). CPU seconds count the
child process that runs the second start (``workers``, stop 56) as well as this one.

Each run is :func:`starmin.algorithms.heuristic.merge_repair.solve` on the configuration's row
types (as ``--method merge-repair`` runs it, without the lower bounds, apply and verify), seed
0. ``auto`` runs merge-repair with one rule on adult (its work budget; docs/algorithms/
portfolio.md), so this measures merge-repair called by name. Run it on two commits to compare:
the stars must be the same.

    python bench/merge_repair_rules.py                        # the default configurations
    python bench/merge_repair_rules.py distinct-l2 entropy-l3 --out /tmp/before.json
    python bench/merge_repair_rules.py --workers 1 --out /tmp/one.json  # starts one by one
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from portfolio import ADULT, cpu_seconds
from results_file import write_runs
from targets import configs

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "merge_repair_rules.json"
DEFAULT = ("distinct-l2", "distinct-l4", "distinct-l6", "entropy-l3", "recursive-c4-l3",
           "l3", "t0.2", "k5-p3")


def main() -> None:
    from starmin import model_params
    from starmin.algorithms.heuristic import merge_repair
    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config", nargs="*", default=list(DEFAULT),
                    help="configurations of bench/targets.py")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--workers", type=int, default=None,
                    help="merge-repair's workers option (default: its automatic choice)")
    ns = ap.parse_args()
    unknown = set(ns.config) - set(configs())
    if unknown:
        ap.error(f"unknown configuration(s) {sorted(unknown)}: choose from "
                 f"{', '.join(configs())}")
    df = pl.read_csv(ADULT, separator=";")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    rows: list[dict[str, Any]] = []
    for name in ns.config:
        qi, sa, params, _target = configs()[name]
        schema = Schema.of(list(qi), sa)
        rt = LocalEngine().to_row_types(df.select([*qi, *([sa] if sa else [])]),
                                        schema).row_types
        model = model_params.the_model(None, params, schema.sensitive)
        lines: list[str] = []
        w0, c0 = time.perf_counter(), cpu_seconds()
        plan = merge_repair.solve(rt, model, seed=0, progress=lines.append,
                                  **({} if ns.workers is None else {"workers": ns.workers}))
        wall, cpu = time.perf_counter() - w0, cpu_seconds() - c0
        cert = plan.certificate
        again = [x.split(": ", 1)[1].split(":")[0] for x in lines if "not run again" in x]
        row = {"config": name, "commit": commit, "stars": plan.stars,
               "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
               "workers": ns.workers, "beside": any("[second process]" in x for x in lines),
               "starts": cert.get("starts"),
               "released_start": cert.get("start"), "rule": cert.get("rule"),
               "not_run_again": again}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    write_runs(ns.out, rows)
    print("| configuration | stars | wall s | CPU s | second process "
          "| not run again (start, rule) |")
    print("|---|---:|---:|---:|---|---|")
    for r in rows:
        print(f"| {r['config']} | {r['stars']:,} | {r['wall_s']} | {r['cpu_s']} | "
              f"{'yes' if r['beside'] else 'no'} | {'; '.join(r['not_run_again']) or '-'} |")


if __name__ == "__main__":
    main()
