"""The row-type flow methods (Bredereck et al. Sec. 4): flows, time and limits.

Writes ``bench/results/fpt_row_types.json`` and prints markdown tables (pasted into
``docs/algorithms/fpt-row-types.md``).

1. *Random tables* (``--reps`` per cell): ``t_in`` distinct QI vectors over ``m`` columns
   (3 values each, 4 for ``m = 3``), each with 1 .. 2k - 1 rows (so many row types are below
   ``k``), sensitive values 0..2 at random. For each ``t_in``: the flows the search needed
   (median, 90th percentile, largest), the CPU seconds, and how many runs reached the work
   limit (``max_nodes`` = 50,000 flows; ``SolverLimit``). These fixed the methods' limits.
2. *ARX adult* (30,162 rows) with a few QI columns (``t_in`` 10 to 32) at ``k = 10 .. 1000``:
   the optimum, flows and time, against ``pattern-packing`` and the best lower bound of
   :func:`starmin.lower_bounds`; limits lifted for the runs above ``t_in = 20``. And
   p-sensitive k-anonymity (sensitive ``salary-class`` or ``education``).
3. *Proposition 2*: ``max_t_out`` = 1, 2, 3 on adult with 3 QIs (the fewest stars with at most
   that many classes), guesses enumerated and flows solved.

Times are CPU seconds (``time.process_time``) of ``solve`` on row types already built, one run,
on the shared 2-core machine; flows are exact counts (the same on every machine).

    python bench/fpt_row_types.py            # reps = 2 (about 5 minutes)
    python bench/fpt_row_types.py --reps 12  # the docs' random-table rows
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

import starmin
from starmin.algorithms.fpt import k_anonymity as fpt_k
from starmin.algorithms.fpt import p_sensitive as fpt_p
from starmin.algorithms.heuristic import pattern_packing
from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.engines.local import LocalEngine
from starmin.errors import SolverLimit
from starmin.io.tables import read_table
from starmin.models import KAnonymity, PSensitiveKAnonymity

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / ".." / "shared" / "data" / "arx" / "adult.csv"
OUT = ROOT / "bench" / "results" / "fpt_row_types.json"
NODES = 50_000


def random_table(t_in: int, m: int, k: int, rep: int) -> RowTypes:
    rng = np.random.default_rng([t_in, m, k, rep])
    X = np.unique(rng.integers(0, 3 if m > 3 else 4, size=(t_in * 4, m)), axis=0)
    X = X[rng.permutation(len(X))[:t_in]]
    rows = np.repeat(X, rng.integers(1, 2 * k, size=len(X)), axis=0)
    return RowTypes.from_arrays(rows, rng.integers(0, 3, size=len(rows)))


def timed(method: Any, rt: RowTypes, model: Any, **options: Any) -> dict[str, Any]:
    t0 = time.process_time()
    try:
        plan = method.solve(rt, model, max_nodes=NODES, **options)
        out = {"status": "optimal", "stars": plan.stars, "flows": plan.certificate["flows"],
               "t_out": plan.t_out, "candidates": plan.certificate["candidates"]}
    except SolverLimit:
        out = {"status": "limit", "stars": None, "flows": NODES}
    out["cpu_s"] = round(time.process_time() - t0, 3)
    return out


def random_tables(reps: int) -> list[dict[str, Any]]:
    rows = []
    for which, method, sizes in (("k", fpt_k, (8, 12, 16, 20, 24)), ("p", fpt_p, (8, 12, 16))):
        for t_in in sizes:
            runs = []
            for rep in range(reps):
                for m in (3, 6, 10):
                    for k in (3, 5, 10):
                        rt = random_table(t_in, m, k, rep)
                        model = KAnonymity(k) if which == "k" else PSensitiveKAnonymity(2, k)
                        runs.append(timed(_unlimited(method), rt, model))
            flows = np.array([r["flows"] for r in runs])
            cpu = np.array([r["cpu_s"] for r in runs])
            row = {"model": which, "t_in": t_in, "runs": len(runs),
                   "flows_median": float(np.median(flows)),
                   "flows_p90": float(np.percentile(flows, 90)), "flows_max": int(flows.max()),
                   "cpu_median_s": float(np.median(cpu)), "cpu_max_s": float(cpu.max()),
                   "at_limit": sum(r["status"] == "limit" for r in runs)}
            print(row, flush=True)
            rows.append(row)
    return rows


def _unlimited(method: Any) -> Any:
    """The method with its t_in and candidate limits lifted (the work limit stays)."""
    class Lifted:
        @staticmethod
        def solve(rt: RowTypes, model: Any, **options: Any) -> Any:
            saved = method.LIMITS
            method.LIMITS = replace(saved, max_t_in=10**6, max_candidates=10**6)
            try:
                return method.solve(rt, model, **options)
            finally:
                method.LIMITS = saved
    return Lifted


def adult(qi: list[str], sensitive: str | None = None) -> RowTypes:
    schema = Schema.of(qi, sensitive)
    return LocalEngine().to_row_types(read_table(str(ADULT), schema=schema), schema).row_types


def adult_runs() -> list[dict[str, Any]]:
    rows = []
    for qi in (["sex", "race"], ["sex", "race", "salary-class"],
               ["sex", "marital-status", "salary-class"], ["race", "marital-status"]):
        rt = adult(qi)
        for k in (10, 100, 1000):
            model = KAnonymity(k)
            r = timed(_unlimited(fpt_k), rt, model)
            pp = pattern_packing.solve(rt, model, bounds=False).stars
            lb = starmin.lower_bounds(rt, model)["best"]
            row = {"qi": ",".join(qi), "t_in": rt.t_in, "model": model.name, **r,
                   "pattern_packing": pp, "lower_bound": lb}
            print(row, flush=True)
            rows.append(row)
    for qi, sa in ((["sex", "race"], "salary-class"), (["sex", "race"], "education"),
                   (["race", "marital-status"], "salary-class")):
        rt = adult(qi, sa)
        for p, k in ((2, 10), (2, 100), (3, 100)):
            if p > rt.s:
                continue
            pmodel = PSensitiveKAnonymity(p, k)
            r = timed(_unlimited(fpt_p), rt, pmodel)
            lb = starmin.lower_bounds(rt, pmodel)["best"]
            row = {"qi": ",".join(qi), "sensitive": sa, "t_in": rt.t_in, "model": pmodel.name,
                   **r, "lower_bound": lb}
            print(row, flush=True)
            rows.append(row)
    return rows


def restricted_runs() -> list[dict[str, Any]]:
    rows = []
    rt = adult(["sex", "race", "salary-class"])
    for k in (100, 1000):
        for t_out in (1, 2, 3):
            r = timed(fpt_k, rt, KAnonymity(k), max_t_out=t_out)
            row = {"qi": "sex,race,salary-class", "t_in": rt.t_in, "k": k, "max_t_out": t_out,
                   **r}
            print(row, flush=True)
            rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=2, help="random tables per (t_in, m, k)")
    args = ap.parse_args()
    result: dict[str, Any] = {"machine": platform.platform(), "python": platform.python_version(),
                              "max_nodes": NODES, "random": random_tables(args.reps)}
    if ADULT.exists():
        result["adult"] = adult_runs()
        result["restricted"] = restricted_runs()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
