"""The charge LP bound for frequency l-diversity (``l_charges``) against the other diversity
bounds, on the first rows of ARX adult (8 QIs, occupation sensitive: ``bench/portfolio.py``).

For each row count and ``l``: the combinatorial diversity bounds of the report
(``distinct_values``, ``l_frequency``, ``l_value_flow``), the charge LP's bound with and
without its work limits, and its CPU seconds without them. The report's LP core bound is
not run here (its column generation is another benchmark, ``bench/lp_core.py``). Writes
``bench/results/l_charges.json`` and prints a table for ``docs/algorithms/lower-bounds.md``.

    python bench/l_charges.py                          # 2,000 and 8,000 rows, l = 3 and 5
    python bench/l_charges.py --rows 30162 --l 2       # the whole table
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
OUT = ROOT / "bench" / "results" / "l_charges.json"


def main() -> None:
    from starmin.algorithms.diversity_levels import last_level, levels
    from starmin.algorithms.l_charge_bound import frequency_charge_bound
    from starmin.algorithms.l_diversity_bound import diversity_lower_bounds, leaving_rows
    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine
    from starmin.models import LDiversity

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="*", default=[2000, 8000])
    ap.add_argument("--l", type=int, nargs="*", default=[3, 5])
    args = ap.parse_args()
    df = pl.read_csv(ADULT, separator=";")
    runs: list[dict[str, object]] = []
    out: dict[str, object] = {"started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                              "load_average": os.getloadavg(), "runs": runs}
    print("| rows | l | other bounds (best) | l_charges, limits | l_charges, no limits "
          "| CPU s, no limits |")
    print("|---:|---:|---:|---:|---:|---:|")
    for n in args.rows:
        rt = LocalEngine().to_row_types(df.head(n).select([*QI8, SA]),
                                        Schema.of(list(QI8), [SA])).row_types
        h = rt.sensitive_histograms(rt.counts)[0]
        for l in args.l:
            other = diversity_lower_bounds(rt, [LDiversity(l)], charges=False)
            needed = ((h > 0).sum(axis=1) < l) | (leaving_rows(h, l).sum(axis=1) > 0)
            lev = levels(rt.codes, h, l, needed)
            last = last_level(rt.m, rt.t_in)
            limited = frequency_charge_bound(rt.codes, h, l, lev, last)
            t = time.process_time()
            free = frequency_charge_bound(rt.codes, h, l, lev, last, max_nonzeros=10**9,
                                          max_iterations=10**9)
            cpu = time.process_time() - t
            run = {"rows": n, "l": l, "other": other, "l_charges": limited,
                   "l_charges_no_limits": free, "cpu_s": round(cpu, 2)}
            runs.append(run)
            print(f"| {n:,} | {l} | {max(other.values()):,} | "
                  f"{'-' if limited is None else f'{limited:,}'} | "
                  f"{'-' if free is None else f'{free:,}'} | {cpu:.2f} |", flush=True)
    out["finished"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    write_json(OUT, out, indent=2)


if __name__ == "__main__":
    main()
