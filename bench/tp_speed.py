"""Time TP (Xiao, Yi & Tao) on adult replicated to 1M rows; write bench/results/tp_speed.json.

Data: ARX ``adult.csv`` (30,162 rows) from ``<repo>/../shared/data/arx``. QIs: the 8 columns
other than ``occupation`` (sex, age, race, marital-status, education, native-country,
workclass, salary-class); sensitive: ``occupation`` (14 values, the largest 13.4%, so
l <= 7). The table is replicated to ``n`` rows with jitter: copy 0 is the original; in
every further copy ``age`` moves by a uniform integer in [-3, 3] (clipped to the observed
range) and, with probability 0.05, ``education`` is redrawn from its column (seeded), so the
number of row types grows with ``n`` as in real data instead of every count just scaling.

Measured, in one process after a warm-up run, wall clock (``time.perf_counter``) and the
process CPU time of the same call (``time.process_time``; polars may use 2 threads, so CPU
time can exceed wall time in ``aggregate``):

- ``aggregate``: ``LocalEngine.to_row_types`` (encode 9 columns, count per row type and
  sensitive value) -- best of the repeats;
- ``tp``, ``tp+``, ``hilbert``: the algorithm's ``solve`` on the aggregated ``RowTypes``
  (plan built, not applied to rows) -- best of the repeats for ``tp``, one run for the others
  (``tp+`` and ``hilbert`` with each Hilbert cut, ``buckets`` and ``greedy``).

Loading and replicating the CSV is not timed.

    python bench/tp_speed.py                 # n = 1M and the original 30k, l = 2..7
    python bench/tp_speed.py --n 200000 --l 3
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from starmin.algorithms.approx import tp, tp_plus
from starmin.algorithms.heuristic import hilbert
from starmin.data.schema import Schema
from starmin.engines.local import LocalEngine
from starmin.models import LDiversity

ADULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "arx" / "adult.csv"
SENSITIVE = "occupation"


def replicated_adult(n: int, seed: int = 0) -> pl.DataFrame:
    """Adult replicated to ``n`` rows with jitter (see the module docstring)."""
    base = pl.read_csv(ADULT, separator=";")
    rng = np.random.default_rng(seed)
    copies = -(-n // base.height)
    age = base["age"].to_numpy()
    edu = base["education"].to_numpy()
    parts = [base]
    for _ in range(1, copies):
        a = np.clip(age + rng.integers(-3, 4, size=len(age)), age.min(), age.max())
        redraw = rng.random(len(edu)) < 0.05
        e = np.where(redraw, edu[rng.integers(0, len(edu), size=len(edu))], edu)
        parts.append(base.with_columns(pl.Series("age", a), pl.Series("education", e)))
    return pl.concat(parts).head(n)


def best_of(repeats: int, fn: Any) -> tuple[float, Any]:
    """Best wall time of ``repeats`` calls (and the CPU time of that call in ``CPU[0]``)."""
    best, out = float("inf"), None
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall = time.perf_counter() - t
        if wall < best:
            best, CPU[0] = wall, time.process_time() - c
    return best, out


CPU = [0.0]


def run_size(n: int, ls: list[int], repeats: int, others: bool) -> dict[str, Any]:
    df = replicated_adult(n) if n != 30162 else pl.read_csv(ADULT, separator=";")
    schema = Schema.of(qi=[c for c in df.columns if c != SENSITIVE], sensitive=SENSITIVE)
    engine = LocalEngine()
    engine.to_row_types(df.head(1000), schema)                 # warm-up
    agg, enc = best_of(repeats, lambda: engine.to_row_types(df, schema))
    agg_cpu = CPU[0]
    rt = enc.row_types
    print(f"n={rt.n} t_in={rt.t_in} aggregate {agg:.3f}s", flush=True)
    rows = []
    for l in ls:
        model = LDiversity(l)
        tp.solve(rt, model)                                    # warm-up
        secs, plan = best_of(repeats, lambda m=model: tp.solve(rt, m))
        row: dict[str, Any] = {
            "l": l, "tp_seconds": secs, "tp_cpu_seconds": CPU[0],
            "tp_phase": plan.certificate["phase"],
            "tp_stars": plan.stars, "tp_suppressed_tuples": plan.suppressed_records,
            "lower_bound": plan.lower_bound,
            "phase_two_iterations": plan.certificate["phase_two_iterations"],
        }
        if others:
            for mod, cut in itertools.product((tp_plus, hilbert), ("buckets", "greedy")):
                secs, p = best_of(1, lambda mod=mod, m=model, c=cut: mod.solve(rt, m, cut=c))
                p.validate(rt)
                row[f"{mod.NAME}[{cut}]_seconds"] = secs
                row[f"{mod.NAME}[{cut}]_cpu_seconds"] = CPU[0]
                row[f"{mod.NAME}[{cut}]_stars"] = p.stars
        print(json.dumps(row), flush=True)
        rows.append(row)
    return {"n": rt.n, "t_in": rt.t_in, "m": rt.m, "s": rt.s, "aggregate_seconds": agg,
            "aggregate_cpu_seconds": agg_cpu, "load_average_after": os.getloadavg()[0],
            "runs": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, nargs="*", default=[30162, 1_000_000])
    ap.add_argument("--l", type=int, nargs="*", default=[2, 3, 4, 5, 6, 7])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-others", action="store_true", help="time TP only")
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).parent / "results" / "tp_speed.json")
    args = ap.parse_args()
    results = [run_size(n, args.l, args.repeats, not args.no_others) for n in args.n]
    doc = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "numpy": np.__version__, "polars": pl.__version__,
                    "platform": platform.platform()},
        "data": "ARX adult, QIs = 8 columns other than occupation, SA = occupation; "
                "replicated with jitter (age +-3, 5% education redrawn) to n rows",
        "method": "one process, after a warm-up; wall clock (and process CPU time of the "
                  "same call); best of --repeats for aggregate and tp, one run for tp+ and "
                  "hilbert; CSV loading not timed; the machine is shared, see load averages",
        "load_average_before": os.getloadavg()[0],
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
