"""The diversity charge LP bounds with and without their PDLP stage, on uniform random tables.

For each table (``NxMxV`` as in ``bench/auto_budget.py --shapes``: ``N`` rows, ``M`` uniform
QIs of ``V`` values, 8 uniform sensitive values, seed 0) and each ``q`` (distinct charges,
:mod:`starmin.algorithms.distinct_charge_bound`) or ``l`` (frequency charges,
:mod:`starmin.algorithms.l_charge_bound`): the bound and CPU / wall seconds of the default
stages, and of the stages before stop 38 (the same without ``"pdlp"``). Writes
``bench/results/charge_stages.json`` and prints the table of
``docs/algorithms/lower-bounds.md``.

    python bench/charge_stages.py                                   # both kinds, 7 shapes
    python bench/charge_stages.py --kinds distinct --shapes 5000x9x4 --q 3
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from auto_budget import random_table
from results_file import timed, write_json

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "charge_stages.json"
SHAPES = ("2000x6x4", "3000x12x2", "5000x7x5", "5000x9x4", "8000x10x3", "4000x8x3", "6000x5x8")


def bounds(shape: str, kind: str, qs: list[int]) -> list[dict[str, Any]]:
    """Per ``q``: the default stages' bound and seconds, and the stages without PDLP's."""
    from starmin.algorithms import distinct_charge_bound as dcb
    from starmin.algorithms import l_charge_bound as lcb
    from starmin.algorithms.diversity_levels import last_level, levels
    from starmin.algorithms.l_diversity_bound import leaving_rows
    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine

    table = random_table(shape)
    qi = tuple(c for c in table.columns if c != "s")
    rt = LocalEngine().to_row_types(table, Schema(qi=qi, sensitive=("s",))).row_types
    h = rt.sensitive_histograms(rt.counts)[0]
    last = last_level(rt.m, rt.t_in)
    out = []
    for q in qs:
        needed = (h > 0).sum(axis=1) < q
        if kind == "frequency":
            needed |= leaving_rows(h, q).sum(axis=1) > 0
        lev = levels(rt.codes, h, q, needed)
        row: dict[str, Any] = {"shape": shape, "kind": kind, "q": q, "t_in": rt.t_in}
        for name in ("default", "without_pdlp"):
            stages: tuple[str, ...] = dcb.STAGES if kind == "distinct" else lcb.STAGES
            if name == "without_pdlp":
                stages = tuple(s for s in stages if s != "pdlp")
            said: list[str] = []
            charge_bound = (dcb.distinct_charge_bound if kind == "distinct"
                            else lcb.frequency_charge_bound)
            b, spent = timed(charge_bound, rt.codes, h, q, lev, last, said.append,
                             stages=stages)
            row[name] = {"bound": b, **spent}
            if name == "default":
                row["progress"] = [line for line in said if "PDLP" in line][:4]
        print(f"{shape} {kind} q = {q}: {row['default']} (without PDLP: "
              f"{row['without_pdlp']})", flush=True)
        out.append(row)
    return out


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| table | kind | q / l | bound | CPU s | wall s | without PDLP: bound | CPU s |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|")

    def shown(b: int | None) -> str:
        return "none" if b is None else f"{b:,}"

    return "\n".join([head] + [
        f"| {r['shape']} | {r['kind']} | {r['q']} | {shown(r['default']['bound'])} | "
        f"{r['default']['cpu_s']} | {r['default']['wall_s']} | "
        f"{shown(r['without_pdlp']['bound'])} | {r['without_pdlp']['cpu_s']} |" for r in rows])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES), metavar="NxMxV")
    ap.add_argument("--kinds", nargs="+", default=["distinct", "frequency"],
                    choices=["distinct", "frequency"])
    ap.add_argument("--q", type=int, nargs="+", default=[2, 3, 5])
    ns = ap.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows = [r for kind in ns.kinds for shape in ns.shapes for r in bounds(shape, kind, ns.q)]
    write_json(OUT, {"machine": {"cpus": os.cpu_count()}, "started": started,
                     "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                     "runs": rows})
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
