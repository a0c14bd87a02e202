"""t-closeness under a user matrix distance on ARX adult's first rows: `auto`'s release, the
report's bound and the time, with the EMD judged by min-cost flow (``MatrixDistance``).

The metric is not a tree metric: occupation's values (those present, in natural order) on a
circle, ``d(u, v)`` = the shorter arc between them over the longest such arc (a normalized
metric with ``d_min = 1 / floor(r / 2)``; the combinatorial t bounds relax it to variational
distance ``t / d_min``, vacuous from ``t = d_min`` on, so the report's bound is the LP core's
where its work estimate fits). 8 QIs as ``bench/portfolio.py``, seed 0. Writes
``bench/results/matrix_distance.json`` and prints the table of docs/benchmarks.md.

    python bench/matrix_distance.py                       # 300 and 1,000 rows, t = 0.3
    python bench/matrix_distance.py --rows 300 --t 0.2 0.3
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from portfolio import ADULT, QI8, SA
from results_file import timed, write_json

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "matrix_distance.json"


def circle_metric(r: int) -> np.ndarray:
    """``r`` values on a circle: the shorter arc over the longest shorter arc."""
    pos = np.arange(r)
    gap = np.abs(pos[:, None] - pos[None, :])
    arc = np.minimum(gap, r - gap).astype(np.float64)
    return arc / max(arc.max(), 1.0)


def run(n: int, t: float, folder: Path) -> dict[str, Any]:
    import starmin

    df = pl.read_csv(ADULT, separator=";", infer_schema_length=0).select([*QI8, SA]).head(n)
    r = df[SA].n_unique()
    path = folder / f"circle{r}.csv"
    np.savetxt(path, circle_metric(r), delimiter=",", fmt="%.17g")
    rel, spent = timed(starmin.anonymize, df, list(QI8), SA, method="auto", seed=0, t=t,
                       distance="matrix", distance_matrix=str(path))
    rep = rel.report
    return {"rows": n, "t": t, "values": r, "method": rep["method"], "stars": rep["stars"],
            "lower_bound": rep["lower_bound"], "verified": rep["verified"],
            "timings_s": rep["timings_s"], **spent}


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| rows | t | values | auto releases | stars | bound | solve s | bounds s | CPU s |",
             "|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for x in rows:
        ts = x["timings_s"]
        lines.append(f"| {x['rows']:,} | {x['t']} | {x['values']} | {x['method']} | "
                     f"{x['stars']:,} | {x['lower_bound']:,} | {ts.get('solve', 0):.1f} | "
                     f"{ts.get('lower_bounds', 0):.1f} | {x['cpu_s']} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", nargs="+", type=int, default=[300, 1000])
    ap.add_argument("--t", nargs="+", type=float, default=[0.3])
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    out = []
    with tempfile.TemporaryDirectory() as folder:
        for n in args.rows:
            for t in args.t:
                row = run(n, t, Path(folder))
                print(json.dumps(row), flush=True)
                out.append(row)
    write_json(Path(args.out), {"load_1min": round(os.getloadavg()[0], 2), "runs": out})
    print(table(out))


if __name__ == "__main__":
    main()
