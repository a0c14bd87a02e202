"""The t-closeness charge LP (``t-charges``) against the other t-closeness bounds.

Tables as ``bench/charge_widening.py`` plus smaller prefixes of ARX adult (8 QIs, occupation
sensitive; ``adult:N``) and the uniform random tables of ``bench/auto_budget.py --shapes``
(``NxMxV``). For each table and ``t`` (equal distance, or with ``--distance hierarchical``
ARX's occupation hierarchy): every bound of
:func:`starmin.algorithms.t_closeness_bound.t_closeness_lower_bounds` with the charge LP and
without it (``charges=False``), and the CPU and wall seconds of both calls (the difference is
the charge LP's cost). Writes ``bench/results/t_charges.json`` and prints the table of
``docs/algorithms/lower-bounds.md``.

    python bench/t_charges.py                              # the default tables, t = 0.1 .. 0.5
    python bench/t_charges.py --tables adult:1000 --t 0.2
    python bench/t_charges.py --distance hierarchical --tables adult:300 adult:1000 \
        adult:2000 adult:4000 --out bench/results/t_charges_hierarchical.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from charge_widening import row_types
from portfolio import ADULT
from results_file import change, shown, timed, write_runs

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "t_charges.json"
TABLES = ("adult:300", "adult:1000", "adult:2000", "adult:4000", "adult:8000", "adult:30162",
          "2000x6x4", "3000x12x2", "5000x7x5")
OCCUPATION = ADULT.parent / "adult_hierarchy_occupation.csv"
OTHERS = ("t-star-free", "t-pattern", "t-level-flow", "t-level-lp")


def run(name: str, ts: list[float], distance: str) -> list[dict[str, Any]]:
    from starmin.algorithms.t_closeness_bound import t_closeness_lower_bounds
    from starmin.model_params import the_model
    from starmin.models import TCloseness

    rt = row_types(name)
    out = []
    for t in ts:
        params: dict[str, Any] = {"t": t, "distance": distance}
        if distance == "hierarchical":
            params["sa_hierarchy"] = str(OCCUPATION)
        model = the_model(None, params, tuple(rt.sensitive))
        assert isinstance(model, TCloseness)
        row: dict[str, Any] = {"table": name, "t": t, "distance": distance, "rows": rt.n,
                               "t_in": rt.t_in}
        for key, charges in (("with", True), ("without", False)):
            b, spent = timed(t_closeness_lower_bounds, rt, model, charges=charges)
            row[key] = {"bounds": b, **spent}
        print(f"{name} t = {t}: {row['with']} (without: {row['without']['cpu_s']} CPU s)",
              flush=True)
        out.append(row)
    return out


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| table | t | row types | t-charges | best other bound | change | CPU s with / "
            "without |\n|---|---:|---:|---:|---:|---:|---:|")
    lines = [head]
    for r in rows:
        b = r["with"]["bounds"]
        charge = b.get("t-charges")
        other = max(b.get(k, 0) for k in OTHERS)
        lines.append(f"| {r['table']} | {r['t']} | {r['t_in']:,} | {shown(charge)} | "
                     f"{other:,} | {change(charge, other)} | {r['with']['cpu_s']} / "
                     f"{r['without']['cpu_s']} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+", default=list(TABLES))
    ap.add_argument("--t", type=float, nargs="+", default=[0.1, 0.2, 0.3, 0.5])
    ap.add_argument("--distance", choices=["equal", "hierarchical"], default="equal",
                    help="hierarchical: ARX's occupation hierarchy (adult tables only)")
    ap.add_argument("--out", type=Path, default=OUT)
    ns = ap.parse_args()
    rows = [r for name in ns.tables for r in run(name, ns.t, ns.distance)]
    write_runs(ns.out, rows)
    print(table(rows))


if __name__ == "__main__":
    main()
