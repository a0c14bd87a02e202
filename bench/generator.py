"""Time the synthetic generators from 1k to 10M rows; write bench/results/generator.json.

Each measurement runs in a fresh Python process so its peak resident memory (``ru_maxrss``)
is its own; the import baseline of that process is reported separately. Time is the best of
``repeats`` runs (wall clock, generation only, imports excluded).

    python bench/generator.py            # all sizes (about a minute on 2 cores)
    python bench/generator.py --max 1e6  # stop at 1M rows
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

SIZES = (1_000, 10_000, 100_000, 1_000_000, 10_000_000)
CASES = (
    ("synthetic_census", "String columns", "synthetic_census(n, seed=0)"),
    ("synthetic_census", "Enum columns", "synthetic_census(n, seed=0, categorical=True)"),
    ("synthetic_acs", "sensitive=income", "synthetic_acs(n, seed=0, sensitive='income')"),
)

CHILD = """
import json, resource, sys, time
from starmin.datasets import synthetic_census, synthetic_acs
n, repeats = int(sys.argv[1]), int(sys.argv[2])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
best = float("inf")
for _ in range(repeats):
    t = time.perf_counter()
    df = {expr}
    best = min(best, time.perf_counter() - t)
    size = df.estimated_size()
    del df
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": best, "peak_rss_mb": peak / 1024, "import_rss_mb": base / 1024,
                  "frame_mb": size / 2**20}}))
"""


def measure(expr: str, n: int) -> dict[str, float]:
    repeats = 5 if n <= 100_000 else (3 if n <= 1_000_000 else 1)
    out = subprocess.run([sys.executable, "-c", CHILD.format(expr=expr), str(n), str(repeats)],
                         check=True, capture_output=True, text=True)
    return dict(json.loads(out.stdout))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--max", type=float, default=max(SIZES), help="largest n to run")
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).parent / "results" / "generator.json")
    args = ap.parse_args()
    rows = []
    for func, variant, expr in CASES:
        for n in SIZES:
            if n > args.max:
                continue
            r = measure(expr, n)
            rows.append({"generator": func, "variant": variant, "n": n, **r,
                         "rows_per_second": n / r["seconds"]})
            print(f"{func:17s} {variant:17s} n={n:>10,}  {r['seconds']:7.3f} s  "
                  f"peak {r['peak_rss_mb']:7.0f} MB  frame {r['frame_mb']:7.1f} MB", flush=True)
    import numpy
    import polars

    record = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "numpy": numpy.__version__, "polars": polars.__version__,
                    "platform": platform.platform(),
                    "load_average_after": os.getloadavg()},
        "method": "fresh process per row; best of 5 (n<=100k), 3 (1M) or 1 (10M) runs; "
                  "peak_rss_mb includes the import baseline import_rss_mb",
        "results": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
