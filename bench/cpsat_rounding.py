"""Frequency l >= 4 on small tables: ``auto``, merge-repair and lp-rounding's CP-SAT rounding.

For each of the first ``n`` rows of ARX adult (8 QIs, ``occupation`` sensitive) and each
``l``: ``starmin.solve`` with ``auto`` (the method it released and its stars), with
``merge-repair`` (what ``auto`` released there before lp-rounding rounded with CP-SAT), and
with ``lp-rounding`` rounding by CP-SAT (``rounding_solver="cp-sat"``, the default
``rounding_work``; its certified LP bound), and with ``--highs`` also by HiGHS (lp-rounding's
default; up to minutes). CPU seconds of each solve (``time.process_time``); every release
is checked against the model class by class. Tables where no l-diverse release exists are
recorded as infeasible.

Run: ``python bench/cpsat_rounding.py [--rows 100 200 300 500 1000] [--l 4 5 6] [--highs]
[--out bench/results/cpsat_rounding.json]``; ``--table`` prints the table of the results
file. Reads ``../shared/data/arx/adult.csv`` (not bundled).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

import starmin
from starmin.data import Schema
from starmin.engines.local import LocalEngine
from starmin.errors import Infeasible, SolverLimit
from starmin.models import LDiversity
from starmin.models.apply import holds

sys.path.insert(0, str(Path(__file__).resolve().parent))
from milp_exact import ADULT, QI
from results_file import write_json


def run(rt: Any, model: LDiversity, method: str, **options: Any) -> dict[str, Any]:
    """One solve: its stars, method, lower bound and CPU seconds, or why it stopped
    (``SolverLimit``: an LP or a rounding that found nothing within its work limit)."""
    c0 = time.process_time()
    try:
        plan = starmin.solve(rt, model, method, **options)
    except SolverLimit as exc:
        return {"failed": str(exc), "cpu_s": round(time.process_time() - c0, 2)}
    cpu = time.process_time() - c0
    assert holds(model, rt, plan.class_key_counts(rt.s)).all(), (method, options)
    return {"stars": plan.stars, "method": plan.method, "bound": plan.lower_bound,
            "cpu_s": round(cpu, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[100, 200, 300, 500, 1000])
    ap.add_argument("--l", type=int, nargs="+", default=[4, 5, 6])
    ap.add_argument("--highs", action="store_true", help="also lp-rounding with HiGHS")
    ap.add_argument("--table", action="store_true", help="print the table of the results "
                    "file and stop")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" /
                                         "cpsat_rounding.json"))
    args = ap.parse_args()
    if args.table:
        print(table(json.loads(Path(args.out).read_text())["runs"]))
        return
    adult = pl.read_csv(ADULT, separator=";", infer_schema=False)
    schema = Schema(qi=QI, sensitive=("occupation",))
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs: list[dict[str, Any]] = []
    for n in args.rows:
        rt = LocalEngine().to_row_types(adult.head(n), schema).row_types
        for l in args.l:
            model = LDiversity(l)
            row: dict[str, Any] = {"rows": n, "l": l, "t_in": rt.t_in,
                                   "load_1min": round(os.getloadavg()[0], 2)}
            try:
                row["auto"] = run(rt, model, "auto")
            except Infeasible:
                row["infeasible"] = True
            else:
                row["merge_repair"] = run(rt, model, "merge-repair")
                row["cpsat"] = run(rt, model, "lp-rounding", rounding_solver="cp-sat")
                if args.highs:
                    row["highs"] = run(rt, model, "lp-rounding")
            print(row, flush=True)
            runs.append(row)
            write_json(Path(args.out), {"started": started, "runs": runs})
    write_json(Path(args.out), {"started": started,
                                "ended": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                "machine": {"cores": os.cpu_count()}, "runs": runs})
    print(table(runs))


def table(runs: list[dict[str, Any]]) -> str:
    lines = ["| rows | l | auto releases | stars | merge-repair | lp-rounding, CP-SAT | "
             "LP bound | auto / bound | auto CPU s | CP-SAT run CPU s |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        if r.get("infeasible"):
            lines.append(f"| {r['rows']:,} | {r['l']} | infeasible | | | | | | | |")
            continue
        a, mr, cs = r["auto"], r["merge_repair"], r["cpsat"]
        bound = cs.get("bound")  # the certified LP bound; none when the LP stopped
        gap = f"{a['stars'] / bound:.3f}" if bound else "-"
        rounded = "stopped" if "failed" in cs else f"{cs['stars']:,}"
        lines.append(f"| {r['rows']:,} | {r['l']} | {a['method']} | {a['stars']:,} | "
                     f"{mr['stars']:,} | {rounded} | {f'{bound:,}' if bound else '-'} | "
                     f"{gap} | {a['cpu_s']} | "
                     f"{cs['cpu_s']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
