"""Entropy l-diversity's charge LP (``entropy_charges``) against the distinct LP it replaces.

Tables as ``bench/charge_widening.py``: the first rows of ARX adult (8 QIs, occupation
sensitive; ``adult:N``) and the uniform random tables of ``bench/auto_budget.py --shapes``
(``NxMxV``). For each table and ``l``: :func:`starmin.algorithms.entropy_charge_bound.
entropy_charge_bound` and :func:`starmin.algorithms.distinct_charge_bound.
distinct_charge_bound` for ``q = l`` (the bound entropy l-diversity had before stop 40), with
CPU and wall seconds. Writes ``bench/results/entropy_charges.json`` and prints the table of
``docs/algorithms/lower-bounds.md``.

    python bench/entropy_charges.py                     # adult 2,000 / 8,000 / all, shapes
    python bench/entropy_charges.py --tables adult:30162 --l 3 4
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from charge_widening import TABLES, row_types
from results_file import change, shown, timed, write_runs

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "entropy_charges.json"


def run(name: str, ls: list[int]) -> list[dict[str, Any]]:
    import numpy as np

    from starmin.algorithms.diversity_levels import last_level
    from starmin.algorithms.entropy_charge_bound import entropy_charge_bound
    from starmin.errors import Infeasible
    from starmin.models import EntropyLDiversity

    rt = row_types(name)
    h = np.asarray(rt.sensitive_histograms(rt.counts)[0], dtype=np.int64)
    last = last_level(rt.m, rt.t_in)
    out = []
    for l in ls:
        try:
            EntropyLDiversity(l).check_feasible(h.sum(axis=0), list(range(h.shape[1])))
        except Infeasible:
            print(f"{name} l = {l}: not entropy l-diverse as a whole, skipped", flush=True)
            continue
        row: dict[str, Any] = {"table": name, "l": l, "rows": rt.n, "t_in": rt.t_in}
        for key in ("entropy", "distinct"):
            b, spent = timed(entropy_charge_bound if key == "entropy" else distinct_bound,
                             rt.codes, h, l, last)
            row[key] = {"bound": b, **spent}
        print(f"{name} l = {l}: {row['entropy']} (distinct: {row['distinct']})", flush=True)
        out.append(row)
    return out


def distinct_bound(codes: Any, h: Any, l: int, last: int) -> int | None:
    """The distinct charge LP for ``q = l`` from the row types' levels (timed with it)."""
    from starmin.algorithms.distinct_charge_bound import distinct_charge_bound
    from starmin.algorithms.diversity_levels import levels

    return distinct_charge_bound(codes, h, l, levels(codes, h, l, (h > 0).sum(axis=1) < l), last)


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| table | l | row types | entropy_charges | CPU s | wall s | distinct LP (q = l) | "
            "CPU s | change |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    lines = [head]
    for r in rows:
        e, d = r["entropy"]["bound"], r["distinct"]["bound"]
        lines.append(f"| {r['table']} | {r['l']} | {r['t_in']:,} | {shown(e)} | "
                     f"{r['entropy']['cpu_s']} | {r['entropy']['wall_s']} | {shown(d)} | "
                     f"{r['distinct']['cpu_s']} | {change(e, d)} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+", default=list(TABLES))
    ap.add_argument("--l", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--out", type=Path, default=OUT)
    ns = ap.parse_args()
    rows = [r for name in ns.tables for r in run(name, ns.l)]
    write_runs(ns.out, rows)
    print(table(rows))


if __name__ == "__main__":
    main()
