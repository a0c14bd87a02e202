"""merge-repair's two starts for frequency l-diversity: pattern-packing's and the diverse start.

Writes ``bench/results/diverse_start.json`` and prints the markdown tables of
``docs/algorithms/merge-repair.md`` ("The diverse start").

On ARX adult (30,162 rows, the eight QIs of ``bench/portfolio.py``, ``occupation``
sensitive), for frequency l = 2..6 and ``k = 5`` with ``l = 3``: ``merge_repair.solve`` with
``start="pattern-packing"`` and with ``start="diverse"`` (rule ``spread`` only, as ``auto``
runs it on this table; otherwise defaults, seed 0), stars and CPU seconds of the call. On the
first 150 rows of the same table: both starts and the exact MILP's proven optimum
(``milp``), frequency l = 3 and 5.

    python bench/diverse_start.py
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from portfolio import ADULT, QI8, SA
from starmin.algorithms.heuristic import merge_repair
from starmin.algorithms.registry import algorithms
from starmin.api import aggregate
from starmin.model_params import combine, models_from_params

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "diverse_start.json"
STARTS = ("pattern-packing", "diverse")


def _timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    t0 = time.process_time()
    out = fn(*args, **kwargs)
    return out, round(time.process_time() - t0, 2)


def run_table(df: pl.DataFrame, configs: dict[str, dict[str, Any]], exact: bool
              ) -> dict[str, Any]:
    rt = aggregate(df, list(QI8), SA)
    out: dict[str, Any] = {}
    for name, params in configs.items():
        m = combine(models_from_params(**params))
        row: dict[str, Any] = {}
        for start in STARTS:
            plan, cpu = _timed(merge_repair.solve, rt, m, seed=0, start=start,
                               rules=("spread",))
            row[start] = {"stars": plan.stars, "cpu_s": cpu}
        if exact:
            plan, cpu = _timed(algorithms()["milp"].solve, rt, m, seed=0)
            row["milp"] = {"stars": plan.stars, "cpu_s": cpu, "kind": plan.guarantee.kind}
        out[name] = row
        print(name, row, flush=True)
    return out


def main() -> None:
    df = pl.read_csv(ADULT, separator=";")
    full = {f"l{l}": {"l": l} for l in range(2, 7)}
    full["k5-l3"] = {"k": 5, "l": 3}
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "load_start": os.getloadavg()[0]},
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "adult": run_table(df, full, exact=False),
        "adult_150": run_table(df.head(150), {"l3": {"l": 3}, "l5": {"l": 5}}, exact=True),
    }
    results["machine"]["load_end"] = os.getloadavg()[0]
    results["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    OUT.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
