"""How well ``auto``'s ladder estimates merge-repair's level start for frequency l-diversity.

``--method auto`` picks merge-repair's variant by estimated work units
(:func:`starmin.algorithms.heuristic.merge_repair.auto_run`, about one CPU second each on the
machine they were fitted on); the rung "level start only, rule spread only" is the level
start (:func:`~starmin.algorithms.heuristic.merge_repair.level_work` plus the joint LP of
levels 1 and 2, :func:`starmin.algorithms.heuristic._frequency_joint.work`, for ``l >= 3``)
and its repair (``LEVEL_REPAIR x DIVERSE_REPAIR x`` one rule's ``repair_work x (k / 2)^1.5``).
This script runs exactly that variant (``start="levels"``, rule ``spread``) and sets the CPU
seconds of the start (up to merge-repair's "start levels" progress line; PDLP's two threads
counted) and of the repair and polish after it beside the two estimates. Tables: ARX adult
(8 QIs, occupation sensitive) and uniform random tables (``NxMxV`` as in
``bench/auto_budget.py``: ``N`` rows, ``M`` QIs of ``V`` values, 8 sensitive values, seed 0).

    python bench/level_start_fit.py                       # adult and the default shapes
    python bench/level_start_fit.py --shapes 4000x8x3 --ls 3 5 --no-adult

Writes ``bench/results/level_start_fit.json``. A measurement, not a test: CPU seconds move
with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path
from typing import Any

from charge_widening import row_types
from results_file import write_json
from starmin.algorithms.heuristic import merge_repair as mr
from starmin.algorithms.heuristic._frequency_joint import work as joint_work
from starmin.algorithms.heuristic._start import start_size
from starmin.data.rowtypes import RowTypes
from starmin.models import LDiversity

OUT = Path(__file__).resolve().parent / "results" / "level_start_fit.json"
SHAPES = ("2000x6x4", "4000x8x3", "5000x7x5", "5000x9x4", "6000x5x8", "8000x10x3")


def measure(rt: RowTypes, l: int) -> dict[str, Any]:
    """The level start with rule ``spread`` on ``rt`` for frequency l-diversity: stars, CPU
    seconds of the start and of the rest, and the ladder's estimates of both."""
    model = LDiversity(l)
    k = start_size(model, rt, mr.make_judge(model, rt))
    levels = mr.level_work(rt) + (joint_work(rt.counts, l, rt.m)
                                  if l >= mr.FREQUENCY_JOINT_MIN_L else 0.0)
    after = mr.LEVEL_REPAIR * mr.DIVERSE_REPAIR * mr.repair_work(model, rt, k) * (k / 2) ** 1.5
    marks: list[tuple[float, str]] = []
    c0 = time.process_time()
    plan = mr.solve(rt, model, progress=lambda msg: marks.append(
        (time.process_time() - c0, msg)), start="levels", rules=("spread",))
    cpu = time.process_time() - c0
    start = next(t for t, msg in marks if "start levels:" in msg)
    return {"l": l, "t_in": rt.t_in, "m": rt.m, "k": k, "stars": plan.stars,
            "start_cpu_s": round(start, 2), "start_units": round(levels, 2),
            "repair_cpu_s": round(cpu - start, 2), "repair_units": round(after, 2),
            "cpu_s": round(cpu, 2), "units": round(levels + after, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="*", default=list(SHAPES), metavar="NxMxV")
    ap.add_argument("--ls", nargs="+", type=int, default=[3, 4, 5, 6], metavar="L")
    ap.add_argument("--no-adult", action="store_true", help="random tables only")
    ns = ap.parse_args()
    runs: list[dict[str, Any]] = []
    print("| table | l | start CPU s | its units | repair CPU s | its units | stars |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in ([] if ns.no_adult else ["adult:30162"]) + ns.shapes:
        rt = row_types(name)
        for l in ns.ls:
            row = {"table": name, **measure(rt, l)}
            runs.append(row)
            print(f"| {name} | {l} | {row['start_cpu_s']} | {row['start_units']} | "
                  f"{row['repair_cpu_s']} | {row['repair_units']} | {row['stars']:,} |",
                  flush=True)
    write_json(OUT, {"machine": platform.machine(), "cpus": os.cpu_count(),
                     "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                     "load": os.getloadavg()[0], "runs": runs})


if __name__ == "__main__":
    main()
