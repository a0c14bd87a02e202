"""Hierarchy-aware methods on adult with ARX's hierarchies: full-domain and the DGH FPT methods.

* ``full-domain`` on the whole of adult (30,162 rows), the nine QIs of ARX's example with
  ARX's nine hierarchy files, k = 2, 5, 10, minimizing Iyengar's loss (and, for comparison,
  stars): the level vector, the loss, the stars, the lattice nodes checked and pruned.
* ``dgh-k-anonymity`` and ``dgh-p-sensitive`` (Bredereck et al. Thm 5 / Cor. 2, t_in <= 20
  and 16) on the largest adult slices they accept: (a) all 30,162 rows over the QIs sex and
  marital-status (t_in = 14), (b) the longest prefix of adult's rows whose nine QIs (for
  p-sensitivity: eight, occupation being the sensitive column) have at most 20 (16) row
  types. Each against today's suppression-only fpt method on the same slice
  (the loss of its star-minimal release with each star refined to its class's lowest common
  ancestor, as ``starmin.solve`` releases it) and against full-domain.

Every plan is validated; times are CPU seconds (``time.process_time``) on a shared 2-core
machine (they move by up to 2x between runs; the counts do not). Writes
``bench/results/dgh_methods.json`` and prints the markdown tables of docs/benchmarks.md.
"""

from __future__ import annotations

import json
import platform
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starmin.algorithms import full_domain
from starmin.algorithms.fpt import dgh_k_anonymity, dgh_p_sensitive, k_anonymity, p_sensitive
from starmin.data import Schema
from starmin.data.rowtypes import RowTypes
from starmin.engines.local import LocalEngine
from starmin.io.tables import read_table
from starmin.models import KAnonymity, PrivacyModel, PSensitiveKAnonymity
from starmin.transform.generalize import lowest_nodes
from starmin.transform.loss import measures
from starmin.transform.nodes import read_specs, resolve
from starmin.transform.plan import ReleasePlan

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "arx"
OUT = Path(__file__).resolve().parent / "results" / "dgh_methods.json"
QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
      "occupation", "salary-class"]


def row_types(qi: list[str], sensitive: str | None = None, rows: int | None = None
              ) -> RowTypes:
    """Adult (its first ``rows`` rows) over ``qi`` with ARX's hierarchy for each QI."""
    schema = Schema.of(qi, sensitive)
    table = read_table(str(DATA / "adult.csv"), schema=schema)
    if rows is not None:
        table = table.head(rows)
    rt = LocalEngine().to_row_types(table, schema).row_types
    given = read_specs({c: str(DATA / f"adult_hierarchy_{c}.csv") for c in qi}, qi)
    resolved = resolve(rt, given, False)
    assert resolved is not None
    return rt.with_hierarchies(resolved.hierarchies)


def longest_prefix(qi: list[str], limit: int) -> int:
    """The most leading rows of adult whose ``qi`` have at most ``limit`` distinct vectors."""
    table = read_table(str(DATA / "adult.csv"), schema=Schema.of(qi, None))
    seen: set[tuple[Any, ...]] = set()
    for i, row in enumerate(table.select(qi).iter_rows()):
        seen.add(row)
        if len(seen) > limit:
            return i
    return table.height


def summary(plan: ReleasePlan, rt: RowTypes, cpu: float) -> dict[str, Any]:
    plan.validate(rt)
    m = measures(plan, rt)
    out = {"stars": m.stars, "generalized_cells": m.generalized_cells,
           "loss": round(m.loss, 6), "classes": m.classes, "cpu_s": round(cpu, 3)}
    for key in ("levels", "checked", "pruned", "lattice", "t_in", "t_out", "flows",
                "candidates"):
        if key in plan.certificate:
            out[key] = plan.certificate[key]
    return out


def timed(solve: Any, rt: RowTypes, model: PrivacyModel, **options: Any) -> dict[str, Any]:
    t0 = time.process_time()
    plan = solve(rt, model, **options)
    return summary(plan, rt, time.process_time() - t0)


def suppression(solve: Any, rt: RowTypes, model: PrivacyModel) -> dict[str, Any]:
    """Today's release: the star-minimal classes, each star refined to the LCA."""
    t0 = time.process_time()
    plan = lowest_nodes(solve(rt, model), rt)
    return summary(plan, rt, time.process_time() - t0)


def main() -> None:
    results: dict[str, Any] = {"machine": platform.platform(),
                               "date": datetime.now(UTC).isoformat(timespec="seconds")}
    adult = row_types(QI)
    fd = []
    for k in (2, 5, 10):
        for objective in ("loss", "stars"):
            fd.append({"k": k, "objective": objective, "t_in": adult.t_in,
                       **timed(full_domain.solve, adult, KAnonymity(k), objective=objective)})
            print("full-domain", fd[-1])
    results["full_domain"] = fd

    slices = []
    cases: list[tuple[str, RowTypes, PrivacyModel, Any, Any]] = []
    two = row_types(["sex", "marital-status"], "occupation")
    for k in (2, 5, 10):
        cases.append((f"sex, marital-status; all {two.n:,} rows", two, KAnonymity(k),
                      dgh_k_anonymity.solve, k_anonymity.solve))
    cases.append((f"sex, marital-status; all {two.n:,} rows (occupation sensitive)", two,
                  PSensitiveKAnonymity(2, 5), dgh_p_sensitive.solve, p_sensitive.solve))
    eight = [c for c in QI if c != "occupation"]
    for qi, sa, limit, k_model, dgh_solve, fpt_solve in (
            (QI, None, 20, KAnonymity(2), dgh_k_anonymity.solve, k_anonymity.solve),
            (eight, "occupation", 16, PSensitiveKAnonymity(2, 2), dgh_p_sensitive.solve,
             p_sensitive.solve)):
        rows = longest_prefix(qi, limit)
        rt = row_types(qi, sa, rows)
        what = "" if sa is None else f" ({sa} sensitive)"
        cases.append((f"first {rows} rows, {rt.m} QIs{what}", rt, k_model, dgh_solve, fpt_solve))
    for label, rt, model, dgh_solve, fpt_solve in cases:
        entry: dict[str, Any] = {"slice": label, "model": model.name, "n": rt.n, "m": rt.m,
                                 "t_in": rt.t_in}
        entry["dgh_loss"] = timed(dgh_solve, rt, model, objective="loss")
        entry["dgh_stars"] = timed(dgh_solve, rt, model, objective="stars")
        entry["suppression_then_lca"] = suppression(fpt_solve, rt, model)
        if isinstance(model, KAnonymity):
            entry["full_domain_loss"] = timed(full_domain.solve, rt, model, objective="loss")
        slices.append(entry)
        print(label, model.name, entry)
    results["dgh"] = slices
    OUT.write_text(json.dumps(results, indent=2) + "\n")
    print_tables(results)


def print_tables(results: dict[str, Any]) -> None:
    print("\n| k | objective | levels (9 QIs) | Iyengar loss | stars | checked / pruned "
          "(of 12,960) | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for r in results["full_domain"]:
        levels = ",".join(str(v) for v in r["levels"].values())
        print(f"| {r['k']} | {r['objective']} | {levels} | {r['loss']:.4f} | {r['stars']:,} | "
              f"{r['checked']:,} / {r['pruned']:,} | {r['cpu_s']:.2f} |")
    print("\n| slice | model | t_in | dgh, objective loss | dgh, objective stars | "
          "suppression + LCA | full-domain |")
    print("|---|---|---|---|---|---|---|")
    for e in results["dgh"]:
        a, b, c = e["dgh_loss"], e["dgh_stars"], e["suppression_then_lca"]
        f = e.get("full_domain_loss")
        fd = "-" if f is None else f"{f['loss']:.5f}"
        print(f"| {e['slice']} | {e['model']} | {e['t_in']} | {a['loss']:.5f} / {a['stars']:,} "
              f"/ {a['t_out']} / {a['flows']:,} / {a['cpu_s']:.2f} | {b['loss']:.5f} / "
              f"{b['stars']:,} / {b['flows']:,} | {c['loss']:.5f} / {c['stars']:,} | {fd} |")


if __name__ == "__main__":
    main()
