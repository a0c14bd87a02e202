"""Loss-minimizing local recoding on ARX adult with ARX's nine hierarchies (issue 9, part 5).

``python bench/hierarchy_loss.py [--runs k2 k5 k10 l3 t0.2]`` runs ``recode`` with
``objective="loss"`` through :func:`starmin.anonymize` (read, aggregate, solve, verify with
the cell check against the hierarchies, report) on adult (30,162 rows):

* ``kN``: N-anonymity, the nine columns as QIs, each with its ARX hierarchy;
* ``l3``: distinct 3-diversity, eight QIs, ``occupation`` sensitive;
* ``t0.2``: 0.2-closeness under the hierarchical distance given by ARX's occupation
  hierarchy, eight QIs;
* a suffix ``+mr``: ``recode`` refines ``merge-repair``'s classes (option ``start``).

Per run: Iyengar's loss (average over the QI cells), stars, generalized cells, the certified
lower bound on the loss (:mod:`starmin.algorithms.loss_bound`, full enumeration) and the
gap (loss / bound), whether the release verified (privacy and cells), and CPU seconds of
the whole call and of the method alone (``time.process_time``; the bound is computed
separately and timed on its own). Writes ``bench/results/hierarchy_loss.json`` and prints a
markdown table for docs/benchmarks.md. ARX itself is not run (not installable here).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ARX = REPO / ".." / "shared" / "data" / "arx"
QI9 = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass",
       "salary-class", "occupation"]
QI8 = QI9[:-1]


def hierarchy_rows(name: str) -> list[tuple[str, ...]]:
    text = (ARX / f"adult_hierarchy_{name}.csv").read_text()
    return [tuple(line.split(";")) for line in text.splitlines() if line.strip()]


def run(code: str) -> dict[str, Any]:
    import starmin
    from starmin.algorithms.loss_bound import loss_lower_bound
    from starmin.models import DistinctLDiversity, HierarchicalDistance, KAnonymity, TCloseness
    from starmin.models.base import PrivacyModel

    base, _, start = code.partition("+")
    kind, value = base[0], base[1:]
    model: PrivacyModel
    if kind == "k":
        qi, sens, model = QI9, None, KAnonymity(int(value))
    elif kind == "l":
        qi, sens, model = QI8, "occupation", DistinctLDiversity(int(value))
    else:
        qi, sens = QI8, "occupation"
        model = TCloseness(value, HierarchicalDistance(tuple(hierarchy_rows("occupation"))))
    files = {c: str(ARX / f"adult_hierarchy_{c}.csv") for c in qi}
    from dataclasses import replace

    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine
    from starmin.io.tables import read_table
    from starmin.transform.loss import measures
    from starmin.transform.nodes import read_specs, resolve
    from starmin.verifier import verify

    t0 = time.process_time()
    if not start:  # the whole public pipeline: read, solve, verify (cells too), report
        rel = starmin.anonymize(str(ARX / "adult.csv"), qi, sens, model, hierarchies=files,
                                objective="loss", method="recode")
        ms = rel.report.measures
        cells = rel.verification.cells
        verified = bool(rel.verification.passed and cells is not None and cells.passed)
        cpu = time.process_time() - t0
    schema = Schema.of(qi, [sens] if sens else [], None)
    table = read_table(str(ARX / "adult.csv"), schema=schema)
    engine = LocalEngine()
    encoded = engine.to_row_types(table, schema)
    resolved = resolve(encoded.row_types, read_specs(files, schema.qi), False)
    assert resolved is not None
    rt = encoded.row_types.with_hierarchies(resolved.hierarchies)
    if start:  # method options do not go through anonymize: the same steps by hand
        plan = starmin.solve(rt, model, "recode", objective="loss", start="merge-repair")
        released = engine.apply_plan(replace(encoded, row_types=rt), plan)
        verdict = verify(released, schema.qi, schema.sensitive, [model], original=table,
                         hierarchies={c: h.rows for c, h in resolved.files.items()})
        ms = replace(measures(plan, rt), loss_bound=plan.certificate["loss_lower_bound"])
        verified = bool(verdict.passed and verdict.cells is not None and verdict.cells.passed)
        cpu = time.process_time() - t0
    # the full bound (the report's is capped at 1,000 grouped patterns)
    t1 = time.process_time()
    full = loss_lower_bound(rt, model, max_patterns=100_000)
    bound_cpu = time.process_time() - t1
    assert ms is not None and ms.loss_bound is not None
    return {"code": code, "model": model.name + (" (start: merge-repair)" if start else ""),
            "qi": len(qi), "t_in": rt.t_in,
            "loss": round(ms.loss, 5), "stars": ms.stars,
            "generalized_cells": ms.generalized_cells, "classes": ms.classes,
            "report_bound": round(float(ms.loss_bound["average"]), 5),
            "bound": round(full.average, 5), "bound_complete": full.complete,
            "gap": round(ms.loss / full.average, 3) if full.average else None,
            "verified": verified, "cpu_s": round(cpu, 2),
            "full_bound_cpu_s": round(bound_cpu, 2), "load": round(os.getloadavg()[0], 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", nargs="+", default=["k2", "k5", "k10", "l3", "t0.2", "t0.2+mr"])
    args = ap.parse_args()
    rows = []
    for code in args.runs:
        rows.append(run(code))
        print(json.dumps(rows[-1]), flush=True)
    out = REPO / "bench" / "results" / "hierarchy_loss.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print("| model | QIs | loss | stars | generalized cells | bound (loss) | gap | verified "
          "| CPU s (whole call) | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for r in rows:
        print(f"| {r['model']} | {r['qi']} | {r['loss']:.4f} | {r['stars']:,} | "
              f"{r['generalized_cells']:,} | {r['bound']:.4f} | {r['gap']} | "
              f"{'yes' if r['verified'] else 'NO'} | {r['cpu_s']} | {r['load']} |")


if __name__ == "__main__":
    main()
