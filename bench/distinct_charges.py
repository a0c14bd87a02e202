"""The charge LP bound for the models needing ``q`` distinct values (``distinct_charges``)
against the other diversity bounds, on ARX adult (8 QIs, occupation sensitive:
``bench/portfolio.py``), whole or its first rows.

For each row count and ``q`` (distinct l-diversity with ``l = q``): the report's other
diversity bounds (``distinct_values``), the charge LP's bound within its work limits and the
CPU seconds of all the diversity bounds with it. Writes ``bench/results/distinct_charges.json``
and prints the table of ``docs/algorithms/lower-bounds.md``.

    python bench/distinct_charges.py                             # 2,000 / 8,000 rows, whole
    python bench/distinct_charges.py --rows 30162 --q 2 3 4 5 6  # the whole table
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from portfolio import ADULT, QI8, SA
from results_file import write_json

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "distinct_charges.json"


def main() -> None:
    from starmin.algorithms.l_diversity_bound import diversity_lower_bounds
    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine
    from starmin.models import DistinctLDiversity

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="*", default=[2000, 8000, 30162])
    ap.add_argument("--q", type=int, nargs="*", default=[2, 3, 4, 5, 6])
    args = ap.parse_args()
    df = pl.read_csv(ADULT, separator=";")
    runs: list[dict[str, object]] = []
    out: dict[str, object] = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                              "load_average": os.getloadavg(), "runs": runs}
    print("| rows | q | distinct_values | distinct_charges | CPU s (all diversity bounds) |")
    print("|---:|---:|---:|---:|---:|")
    for n in args.rows:
        rt = LocalEngine().to_row_types(df.head(n).select([*QI8, SA]),
                                        Schema.of(list(QI8), [SA])).row_types
        for q in args.q:
            t = time.process_time()
            b = diversity_lower_bounds(rt, [DistinctLDiversity(q)])
            cpu = time.process_time() - t
            got = b.get("distinct_charges")
            runs.append({"rows": rt.n, "q": q, "bounds": b, "cpu_s": round(cpu, 2)})
            gain = "" if got is None else f" ({100 * (got / b['distinct_values'] - 1):+.1f} %)"
            print(f"| {rt.n:,} | {q} | {b['distinct_values']:,} | "
                  f"{'-' if got is None else f'{got:,}'}{gain} | {cpu:.2f} |", flush=True)
    out["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    write_json(OUT, out, indent=2)


if __name__ == "__main__":
    main()
