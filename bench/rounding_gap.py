"""lp-rounding's rounding MILP with HiGHS's relative gap (``rounding_gap``): stars and time.

For each of the first ``n`` rows of ARX adult (8 QIs; ``occupation`` sensitive where the
model needs one) and each model, ``lp_rounding.solve`` with each ``rounding_gap``: the stars
released, the certified LP bound, the column-generation rounds and the CPU seconds of the
whole solve (``time.process_time``) and of the rounding alone (the solve less its column
generation, timed around it). The LP is the same for every gap, so the stars differ only by
the rounding. Every release is checked against the model class by class.

Run: ``python bench/rounding_gap.py [--rows 500 1000 2000] [--gaps 0 0.01 0.02 0.05]
[--models k=5 "l=3" "l=4"] [--append] [--out bench/results/rounding_gap.json]``. Reads
``../shared/data/arx/adult.csv`` (not bundled).
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

from starmin.algorithms.lp import colgen, lp_rounding
from starmin.data import Schema
from starmin.engines.local import LocalEngine
from starmin.models import KAnonymity, LDiversity, PrivacyModel
from starmin.models.apply import holds

sys.path.insert(0, str(Path(__file__).resolve().parent))
from milp_exact import ADULT, QI
from results_file import write_json

MODELS: dict[str, tuple[PrivacyModel, bool]] = {
    "k=5": (KAnonymity(5), False),
    "l=2": (LDiversity(2), True),
    "l=3": (LDiversity(3), True),
    "l=4": (LDiversity(4), True),
}


def timed_colgen() -> list[float]:
    """Wrap :func:`colgen.column_generation` to record its CPU seconds per call."""
    spent: list[float] = []
    inner = colgen.column_generation

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        c0 = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent.append(time.process_time() - c0)

    colgen.column_generation = wrapper
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[500, 1000, 2000])
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--gaps", type=float, nargs="+", default=[0.0, 0.01, 0.02, 0.05])
    ap.add_argument("--append", action="store_true", help="add to the results file's runs")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" /
                                         "rounding_gap.json"))
    args = ap.parse_args()
    adult = pl.read_csv(ADULT, separator=";", infer_schema=False)
    spent = timed_colgen()
    runs: list[dict[str, Any]] = []
    if args.append and Path(args.out).exists():
        runs = json.loads(Path(args.out).read_text())["runs"]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for n in args.rows:
        for name in args.models:
            model, sensitive = MODELS[name]
            schema = Schema(qi=QI, sensitive=("occupation",) if sensitive else ())
            rt = LocalEngine().to_row_types(adult.head(n), schema).row_types
            for gap in args.gaps:
                load = os.getloadavg()[0]
                spent.clear()
                c0 = time.process_time()
                plan = lp_rounding.solve(rt, model, rounding_gap=gap)
                cpu = time.process_time() - c0
                ok = bool(holds(model, rt, plan.class_key_counts(rt.s)).all())
                row = {"rows": n, "model": name, "t_in": rt.t_in, "gap": gap,
                       "stars": plan.stars, "lp_bound": plan.lower_bound,
                       "lp_rounds": plan.certificate.get("lp_rounds"), "holds": ok,
                       "cpu_s": round(cpu, 2), "rounding_cpu_s": round(cpu - sum(spent), 2),
                       "load_1min": round(load, 2)}
                print(json.dumps(row), flush=True)
                runs.append(row)
                write_json(Path(args.out), {"started": started, "runs": runs})
    out = {"started": started, "ended": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "machine": {"cores": os.cpu_count()}, "runs": runs}
    write_json(Path(args.out), out)
    print(table(runs))


def table(runs: list[dict[str, Any]]) -> str:
    lines = ["| rows | model | gap | stars | LP bound | stars / bound | rounding CPU s | "
             "total CPU s |", "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        ratio = r["stars"] / r["lp_bound"] if r["lp_bound"] else float("nan")
        lines.append(f"| {r['rows']:,} | {r['model']} | {r['gap']:g} | {r['stars']:,} | "
                     f"{r['lp_bound']:,} | {ratio:.3f} | {r['rounding_cpu_s']} | "
                     f"{r['cpu_s']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
