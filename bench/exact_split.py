"""Liang & Yuan's exact algorithms next to today's: Theorem 8 (``balanced-split``) against the
``3^n`` brute force, and Theorem 11's route (``two-diversity-simplex``) against the flow and
the MILP.

Theorem 8 cases: ``n`` distinct rows (4 QI columns of 4 values, seeded), three sensitive
values in equal numbers, and the models k = 2, k = n / 3, 3-diversity, 0.1-closeness (equal
distance), 0.05-closeness (ordered distance), 0.2-closeness (a matrix distance). For each
method that supports the case: CPU seconds (``time.process_time`` around ``solve``), stars and
counted work -- brute force's group-state pairs ``W`` (:func:`brute_force.size_of`), the
recursion's candidate parts and states. 2-diversity cases: ``n`` random rows (4 QI columns of
3 values) with 2 or 4 balanced sensitive values.

The machine is shared (2 cores, several agents): CPU seconds move by up to 2x between runs;
the counted work does not. Writes ``bench/results/exact_split.json`` and prints markdown tables
for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from starmin.algorithms.exact import (
    balanced_split,
    brute_force,
    two_diversity_flow,
    two_diversity_milp,
    two_diversity_simplex,
)
from starmin.data.rowtypes import RowTypes
from starmin.errors import Infeasible, SolverLimit
from starmin.models import (
    KAnonymity,
    LDiversity,
    MatrixDistance,
    OrderedDistance,
    PrivacyModel,
    TCloseness,
)

OUT = Path(__file__).resolve().parent / "results" / "exact_split.json"
MATRIX = MatrixDistance([[0, 0.5, 1], [0.5, 0, 0.6], [1, 0.6, 0]], values=(0, 1, 2))


def distinct_table(n: int, seed: int) -> RowTypes:
    rng = np.random.default_rng(seed)
    while True:
        X = rng.integers(0, 4, size=(n, 4))
        if len(np.unique(X, axis=0)) == n:
            return RowTypes.from_arrays(X, rng.permutation(np.arange(n) % 3))


def models(n: int) -> dict[str, PrivacyModel]:
    return {"k=2": KAnonymity(2), f"k=n/3={n // 3}": KAnonymity(n // 3),
            "l=3": LDiversity(3), "t=0.1 equal": TCloseness(0.1),
            "t=0.05 ordered": TCloseness(0.05, OrderedDistance()),
            "t=0.2 matrix": TCloseness(0.2, MATRIX)}


def run(method: Any, rt: RowTypes, model: PrivacyModel) -> dict[str, Any]:
    reason = method.supports(model, rt)
    if reason is not None:
        return {"refused": reason}
    t0 = time.process_time()
    try:
        plan = method.solve(rt, model)
    except (Infeasible, SolverLimit) as exc:
        return {"error": type(exc).__name__, "cpu_s": round(time.process_time() - t0, 3)}
    out: dict[str, Any] = {"stars": plan.stars, "cpu_s": round(time.process_time() - t0, 3)}
    cert = plan.certificate
    for key in ("states_solved", "candidate_parts", "good_sub_tables"):
        if key in cert:
            out[key] = cert[key]
    return out


def theorem8(sizes: list[int]) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        rt = distinct_table(n, n)
        for name, model in models(n).items():
            _, W = brute_force.size_of(model, rt)
            z = balanced_split.work_bound(model, rt)
            row = {"n": n, "model": name, "brute_force_W": W, "split_good": z.good,
                   "split_work_bound": z.work,
                   "brute-force": run(brute_force, rt, model),
                   "balanced-split": run(balanced_split, rt, model)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def theorem11(sizes: list[tuple[int, int]]) -> list[dict[str, Any]]:
    rows = []
    for n, s in sizes:
        rng = np.random.default_rng(1000 + n)
        rt = RowTypes.from_arrays(rng.integers(0, 3, size=(n, 4)),
                                  rng.permutation(np.arange(n) % s))
        row: dict[str, Any] = {"n": n, "values": s, "slots": int(np.count_nonzero(rt.counts))}
        for mod in (two_diversity_flow, two_diversity_milp, two_diversity_simplex,
                    brute_force):
            row[mod.NAME] = run(mod, rt, LDiversity(2))
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10,12,14,16,17,18,20")
    ap.add_argument("--two-div", default="12:2,12:4,24:2,24:4,40:2,40:4,60:4")
    args = ap.parse_args()
    t8 = theorem8([int(x) for x in args.sizes.split(",")])
    t11 = theorem11([(int(a), int(b)) for a, b in
                     (x.split(":") for x in args.two_div.split(","))])
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps({"when": datetime.now(UTC).isoformat(timespec="seconds"),
                               "python": platform.python_version(),
                               "theorem8": t8, "theorem11": t11}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
