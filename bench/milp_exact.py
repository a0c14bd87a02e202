"""How far the exact ``milp`` method reaches: the first ``n`` rows of ARX adult (8 QIs, and
``occupation`` as the sensitive column where the model needs one), one model at a time.

For each case: the proven optimum (or, if the node limit stopped HiGHS, the best release and
the proven bound), the incumbent (the better of the LP core's rounding and merge-repair's
release, since stop 43) and its LP bound, the vectors
left after reduced-cost fixing and the MILP's size, and the CPU seconds of ``solve``
(``time.process_time``, all threads) and wall seconds, with the machine's 1-minute load
average at the start of each run (CPU time moves with load too).

Issue 8's target is a proof within 60 s, so the solve gets ``--time-limit`` seconds of
wall clock (default 60; since 2026-11-27 for the whole solve, column generation and rounding
included; before, for HiGHS's branch and bound only): a run it stops is recorded as
``bound`` with the proven lower bound.

Run: ``python bench/milp_exact.py [--rows 100 200 500 1000] [--out bench/results/milp_exact.json]``;
entropy l-diversity's share lines (stop 45): ``--rows 50 80 --models "entropy l=4"`` and
``--rows 100 --models "entropy l=3" --append`` with ``--time-limit 0 --out
bench/results/milp_exact_entropy.json``.
Reads ``../shared/data/arx/adult.csv`` (not bundled).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

import polars as pl

from starmin.algorithms.lp import milp_exact
from starmin.data import Schema
from starmin.engines.local import LocalEngine
from starmin.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    EqualDistance,
    KAnonymity,
    LDiversity,
    PrivacyModel,
    TCloseness,
)

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "arx" / "adult.csv"
QI = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
      "salary-class")
MODELS: dict[str, tuple[PrivacyModel, bool]] = {
    "k=5": (KAnonymity(5), False),
    "frequency l=3": (LDiversity(3), True),
    "t=0.2 (equal)": (TCloseness(0.2, EqualDistance()), True),
    "distinct l=3": (DistinctLDiversity(3), True),
    "entropy l=3": (EntropyLDiversity(3), True),
    "entropy l=4": (EntropyLDiversity(4), True),
}
DEFAULT_MODELS = ["k=5", "frequency l=3", "t=0.2 (equal)"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[100, 200, 500, 1000])
    ap.add_argument("--models", nargs="+", default=DEFAULT_MODELS)
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="HiGHS wall-clock seconds per run (0: none)")
    ap.add_argument("--node-limit", type=int, default=None,
                    help="HiGHS node limit (default: the method's)")
    ap.add_argument("--append", action="store_true", help="add to the results file's runs")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "milp_exact.json"))
    args = ap.parse_args()
    adult = pl.read_csv(ADULT, separator=";", infer_schema=False)
    runs: list[dict[str, object]] = []
    if args.append and Path(args.out).exists():
        runs = json.loads(Path(args.out).read_text())["runs"]
    load0 = os.getloadavg()
    for n in args.rows:
        for name in args.models:
            model, sensitive = MODELS[name]
            schema = Schema(qi=QI, sensitive=("occupation",) if sensitive else ())
            rt = LocalEngine().to_row_types(adult.head(n), schema).row_types
            reason = milp_exact.supports(model, rt)
            row: dict[str, object] = {"rows": n, "model": name, "t_in": rt.t_in}
            if reason is not None:
                row["refused"] = reason
            else:
                load = os.getloadavg()[0]
                t0, w0 = time.process_time(), time.perf_counter()
                opts: dict[str, Any] = {}
                if args.node_limit is not None:
                    opts["node_limit"] = args.node_limit
                if args.time_limit:
                    opts["time_limit"] = args.time_limit
                plan = milp_exact.solve(rt, model, **opts)
                row["node_limit"] = args.node_limit or 20_000
                row["time_limit_s"] = args.time_limit or None
                row.update(cpu_s=round(time.process_time() - t0, 2),
                           wall_s=round(time.perf_counter() - w0, 2), load_1min=round(load, 2),
                           stars=plan.stars,
                           lower_bound=plan.lower_bound, guarantee=plan.guarantee.kind,
                           **{k: plan.certificate.get(k) for k in (
                               "proven_optimal", "proven_by", "lp_bound", "incumbent_stars",
                               "incumbent_by", "cut_rounds",
                               "milp_vectors", "milp_pairs", "milp_variables", "stopped_by")})
            print(json.dumps(row), flush=True)
            runs.append(row)
            Path(args.out).write_text(json.dumps({"runs": runs}, indent=1) + "\n")
    out = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "machine": {"cores": os.cpu_count(), "load_average_at_start": load0,
                       "load_average_at_end": os.getloadavg()},
           "runs": runs}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(table(runs))


def table(runs: list[dict[str, object]]) -> str:
    lines = ["| rows | model | t_in | incumbent | LP bound | vectors left | "
             "MILP variables | stars | bound | proven | CPU (s) | wall (s) | load |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|"]
    for r in runs:
        if "refused" in r:
            lines.append(f"| {r['rows']} | {r['model']} | {r['t_in']} | refused: "
                         f"{r['refused']} |||||||||")
            continue
        proven = ("yes" if r["proven_optimal"] else f"no ({r.get('stopped_by')})")
        lines.append(f"| {r['rows']} | {r['model']} | {r['t_in']} | "
                     f"{r.get('incumbent_stars', '-')} | {r.get('lp_bound', '-')} | "
                     f"{r.get('milp_vectors', '-')} | {r.get('milp_variables', '-')} | "
                     f"{r['stars']} | {r['lower_bound']} | {proven} | {r['cpu_s']} | "
                     f"{r.get('wall_s', '-')} | {r.get('load_1min', '-')} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
