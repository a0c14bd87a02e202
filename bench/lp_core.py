"""lp-rounding on ARX adult: stars, certified bound, gap and time per model.

``python bench/lp_core.py [--models l2 l3 t0.5 k5]`` runs ``starmin.algorithms.lp.lp_rounding``
on adult (30,162 rows; 8 QIs and occupation as the sensitive column, or all 9 columns as QIs
for k) and writes ``bench/results/lp_core.json`` plus a markdown table for
docs/algorithms/lp-core.md. Model codes: ``lN`` frequency l-diversity, ``tX`` t-closeness
(equal distance), ``kN`` k-anonymity. Times: wall clock and CPU seconds of the solve on this
machine (load average recorded).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO / ".." / "shared" / "data" / "arx" / "adult.csv"
QI8 = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass",
       "salary-class"]


def run(code: str) -> dict[str, Any]:
    from starmin.algorithms.lp import lp_rounding
    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine
    from starmin.io.tables import read_table
    from starmin.models import KAnonymity, LDiversity, PrivacyModel, TCloseness

    kind, value = code[0], code[1:]
    model: PrivacyModel
    if kind == "l":
        model = LDiversity(int(value))
    elif kind == "t":
        model = TCloseness(value)
    else:
        model = KAnonymity(int(value))
    qi = QI8 + (["occupation"] if kind == "k" else [])
    schema = Schema.of(qi, [] if kind == "k" else ["occupation"], None)
    rt = LocalEngine().to_row_types(read_table(str(ADULT), schema=schema), schema).row_types
    t0, c0 = time.perf_counter(), time.process_time()
    plan = lp_rounding.solve(rt, model)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    lb = plan.lower_bound or 0
    return {"model": model.name, "code": code, "t_in": rt.t_in, "stars": plan.stars,
            "bound": lb, "gap": round(plan.stars / lb, 4) if lb else None,
            "seconds": round(seconds, 1), "cpu_s": round(cpu, 1), "load": os.getloadavg()[0],
            **{k: v for k, v in plan.certificate.items() if k.startswith("lp_")}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=["l2", "l3", "k5", "t0.5"])
    args = ap.parse_args()
    rows = []
    for code in args.models:
        rows.append(run(code))
        print(json.dumps(rows[-1]), flush=True)
    out = REPO / "bench" / "results" / "lp_core.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print("| model | t_in | stars | certified bound | gap | rounds | wall s | CPU s | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['model']} | {r['t_in']:,} | {r['stars']:,} | {r['bound']:,} | {r['gap']} "
              f"| {r['lp_rounds']} | {r['seconds']} | {r['cpu_s']} | {r['load']:.1f} |")


if __name__ == "__main__":
    main()
