"""Meyerson & Williams on ARX adult: the two approximations and attribute suppression.

Writes ``bench/results/mw_methods.json`` and prints markdown tables (pasted into
``docs/algorithms/mw-balls.md``, ``mw-subsets.md`` and ``attribute-suppression.md``).

Data: ARX ``adult.csv`` (30,162 rows) from ``<repo>/../shared/data/arx``, no sensitive
column. QI sets chosen so that ``mw-balls`` (at most 4,000 distinct QI vectors) applies:

- ``3``: sex, race, marital-status;
- ``5``: sex, race, marital-status, education, workclass;
- ``4+age``: sex, age, race, marital-status.

For each (QI set, k in 2, 5, 10): the row types (``LocalEngine.to_row_types``), then, timed with
``time.perf_counter`` (wall clock, one run, 2-core machine shared with other jobs), each
method's ``solve`` on the row types (the plan, not applied to rows): ``mw-balls`` (default
weight ``2i`` and the paper's diameter), ``mw-subsets`` where its size limit allows, the
m-approximation and pattern packing as baselines; the best lower bound
(:func:`starmin.algorithms.bounds.k_anonymity_lower_bounds`). Attribute suppression
(:func:`starmin.algorithms.attribute_suppression.fewest_columns`) runs on all nine columns
and on the eight without ``salary-class``, for k = 2, 5, 10, 100.

    python bench/mw_methods.py
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import polars as pl

from starmin.algorithms import attribute_suppression
from starmin.algorithms.approx import m_approx, mw_balls, mw_subsets
from starmin.algorithms.bounds import k_anonymity_lower_bounds
from starmin.algorithms.heuristic import pattern_packing
from starmin.data.schema import Schema
from starmin.engines.local import LocalEngine
from starmin.models import KAnonymity

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / ".." / "shared" / "data" / "arx" / "adult.csv"
OUT = ROOT / "bench" / "results" / "mw_methods.json"
QI_SETS = {
    "3": ["sex", "race", "marital-status"],
    "5": ["sex", "race", "marital-status", "education", "workclass"],
    "4+age": ["sex", "age", "race", "marital-status"],
}
ALL9 = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
        "occupation", "salary-class"]


RUNS: dict[str, tuple[Any, dict[str, Any]]] = {
    "mw-balls": (mw_balls, {}),
    "mw-balls/diameter": (mw_balls, {"weight": "diameter"}),
    "mw-subsets": (mw_subsets, {}),
    "m-approx": (m_approx, {}),
    "pattern-packing": (pattern_packing, {"bounds": False}),
}


def timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def approximations(df: pl.DataFrame) -> list[dict[str, Any]]:
    rows = []
    for label, qi in QI_SETS.items():
        rt = LocalEngine().to_row_types(df.select(qi), Schema.of(qi=qi)).row_types
        for k in (2, 5, 10):
            model = KAnonymity(k)
            row: dict[str, Any] = {"qi": label, "t_in": rt.t_in, "k": k,
                                   "lower_bound": k_anonymity_lower_bounds(rt, k)["best"]}
            for name, (mod, options) in RUNS.items():
                reason = mod.supports(model, rt)
                if reason:
                    row[name] = {"refused": reason}
                    continue
                seconds, plan = timed(mod.solve, rt, model, **options)
                row[name] = {"stars": plan.stars, "seconds": round(seconds, 3),
                             "plan_lower_bound": plan.lower_bound}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def attributes(df: pl.DataFrame) -> list[dict[str, Any]]:
    rows = []
    for qi in (ALL9, ALL9[:-1]):
        rt = LocalEngine().to_row_types(df.select(qi), Schema.of(qi=qi)).row_types
        for k in (2, 5, 10, 100):
            seconds, choice = timed(attribute_suppression.fewest_columns, rt, KAnonymity(k))
            row = {"m": rt.m, "t_in": rt.t_in, "k": k,
                   "suppressed": [rt.qi[c] for c in choice.suppressed],
                   "stars": rt.n * len(choice.suppressed), "checks": choice.checks,
                   "nodes": choice.nodes, "seconds": round(seconds, 3)}
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    names = list(RUNS)
    out = ["| QIs | t_in | k | lower bound | " + " | ".join(names) + " |",
           "|---|---|---|---|" + "---|" * len(names)]
    for r in rows:
        cells = []
        for n in names:
            v = r[n]
            cells.append("refused" if "refused" in v else f"{v['stars']} ({v['seconds']:.2f} s)")
        out.append(f"| {r['qi']} | {r['t_in']} | {r['k']} | {r['lower_bound']} | "
                   + " | ".join(cells) + " |")
    return "\n".join(out)


def main() -> None:
    df = pl.read_csv(ADULT, separator=";")
    approx, attrs = approximations(df), attributes(df)
    result = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count()},
              "approximations": approx, "attributes": attrs}
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(table(approx))
    for r in attrs:
        print(f"| {r['m']} | {r['t_in']} | {r['k']} | {', '.join(r['suppressed'])} | "
              f"{r['stars']} | {r['checks']} | {r['seconds']:.2f} s |")


if __name__ == "__main__":
    main()
