"""The charge LP bounds with and without widened boxes (``l_charge_widening``).

Tables: the first rows of ARX adult (8 QIs, occupation sensitive, as ``bench/portfolio.py``;
``adult:N``) and the uniform random tables of ``bench/auto_budget.py --shapes`` (``NxMxV``).
For each table, kind and ``l``: the bound of :func:`starmin.algorithms.l_charge_bound.
frequency_charge_bound` (``frequency``) or :func:`starmin.algorithms.distinct_charge_bound.
distinct_charge_bound` (``distinct``, ``q = l``) with ``widen=0`` (the boxes ``L + 1`` only)
and with its defaults, CPU and wall seconds of each, and with ``--optimum`` the LP core's
frequency optimum (column generation to the end; slow beyond a few thousand rows), which no
frequency charge LP exceeds. Writes
``bench/results/charge_widening.json`` and prints the table of
``docs/algorithms/lower-bounds.md``.

    python bench/charge_widening.py                        # adult 2,000 / 8,000 / all, shapes
    python bench/charge_widening.py --tables adult:2000 --l 3 5 --optimum
    python bench/charge_widening.py --kinds distinct --tables adult:30162 --l 3 6
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from auto_budget import random_table
from portfolio import ADULT, QI8, SA
from results_file import change, shown, timed, write_runs

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "charge_widening.json"
TABLES = ("adult:2000", "adult:8000", "adult:30162", "2000x6x4", "3000x12x2", "5000x7x5",
          "5000x9x4", "8000x10x3", "4000x8x3", "6000x5x8")


def row_types(name: str) -> Any:
    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine

    if name.startswith("adult:"):
        df = pl.read_csv(ADULT, separator=";").head(int(name.split(":")[1]))
        return LocalEngine().to_row_types(df.select([*QI8, SA]),
                                          Schema.of(list(QI8), SA)).row_types
    table = random_table(name)
    qi = tuple(c for c in table.columns if c != "s")
    return LocalEngine().to_row_types(table, Schema(qi=qi, sensitive=("s",))).row_types


def run(name: str, kinds: list[str], ls: list[int], optimum: bool) -> list[dict[str, Any]]:
    from starmin.algorithms.distinct_charge_bound import distinct_charge_bound
    from starmin.algorithms.diversity_levels import last_level, levels
    from starmin.algorithms.l_charge_bound import frequency_charge_bound
    from starmin.algorithms.l_diversity_bound import leaving_rows
    from starmin.algorithms.lp import lp_rounding
    from starmin.algorithms.lp.colgen import column_generation
    from starmin.models import LDiversity

    rt = row_types(name)
    h = rt.sensitive_histograms(rt.counts)[0]
    last = last_level(rt.m, rt.t_in)
    out = []
    for kind in kinds:
        for l in ls:
            total = h.sum(axis=0)
            if kind == "frequency" and l * total.max() > total.sum():
                print(f"{name} l = {l}: not l-diverse as a whole, skipped", flush=True)
                continue
            needed = (h > 0).sum(axis=1) < l
            if kind == "frequency":
                needed |= leaving_rows(h, l).sum(axis=1) > 0
            lev = levels(rt.codes, h, l, needed)
            bound = frequency_charge_bound if kind == "frequency" else distinct_charge_bound
            row: dict[str, Any] = {"table": name, "kind": kind, "l": l, "rows": rt.n,
                                   "t_in": rt.t_in}
            for key, widen in (("plain", 0), ("widened", None)):
                said: list[str] = []
                b, spent = timed(bound, rt.codes, h, l, lev, last, said.append,
                                 **({} if widen is None else {"widen": widen}))
                row[key] = {"bound": b, **spent}
                if widen is None:
                    row["steps"] = [line.split(": ", 2)[-1] for line in said
                                    if "widened" in line and "simplex iterations" not in line]
            if optimum and kind == "frequency":
                c0 = time.process_time()
                cg = column_generation(rt, lp_rounding.primary(
                    lp_rounding.relaxations(LDiversity(l), rt)), max_rounds=400,
                    lp_solver="highs-ipm")
                row["lp_optimum"] = {"bound": cg.bound, "complete": cg.complete,
                                     "cpu_s": round(time.process_time() - c0, 2)}
            print(f"{name} {kind} {l}: {row['plain']} -> {row['widened']}"
                  + (f", LP optimum {row['lp_optimum']}" if "lp_optimum" in row else ""),
                  flush=True)
            out.append(row)
    return out


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| table | kind | l / q | row types | bound, boxes L + 1 | CPU s | widened | CPU s "
            "| wall s | change | LP core optimum |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    lines = [head]
    for r in rows:
        p, w = r["plain"]["bound"], r["widened"]["bound"]
        opt = r.get("lp_optimum")
        lines.append(
            f"| {r['table']} | {r['kind']} | {r['l']} | {r['t_in']:,} | {shown(p)} | "
            f"{r['plain']['cpu_s']} "
            f"| {shown(w)} | {r['widened']['cpu_s']} | {r['widened']['wall_s']} | {change(w, p)} | "
            f"{shown(opt['bound']) if opt and opt['complete'] else '-'} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+", default=list(TABLES))
    ap.add_argument("--kinds", nargs="+", default=["frequency", "distinct"],
                    choices=["frequency", "distinct"])
    ap.add_argument("--l", type=int, nargs="+", default=[2, 3, 5])
    ap.add_argument("--optimum", action="store_true",
                    help="also the LP core's optimum (column generation to the end)")
    ap.add_argument("--out", type=Path, default=OUT)
    ns = ap.parse_args()
    rows = [r for name in ns.tables for r in run(name, ns.kinds, ns.l, ns.optimum)]
    write_runs(ns.out, rows)
    print(table(rows))


if __name__ == "__main__":
    main()
