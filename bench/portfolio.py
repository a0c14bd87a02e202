"""``--method auto`` (the portfolio) on ARX adult: stars per method, the release, time per run.

Writes ``bench/results/portfolio.json`` and prints a markdown table (pasted into
``docs/benchmarks.md``).

Data: ARX ``adult.csv`` (30,162 rows) from ``<repo>/../shared/data/arx``. k-anonymity uses all
nine columns as QIs (as ``bench/k_anonymity.py``); every other model the eight QIs of
``bench/l_diversity_data.py`` with ``occupation`` (14 values) sensitive.

Each run is :func:`starmin.anonymize` end to end (read, aggregate, the portfolio's solve,
lower bounds, apply, verify) on the in-memory table, ``method="auto"``, seed 0, timed with
``time.perf_counter`` (wall) and :func:`cpu_seconds` (CPU of this process and of the child
processes it waited for: merge-repair's second start, ``_beside``). The report's
``portfolio`` gives each member's status, stars, estimated work units and seconds.

``--members`` also runs every member that supports the instance alone, with its defaults
(``solve`` only, CPU time), for comparison with what the budget let auto run; a member
whose estimate exceeds :data:`ALONE_UNITS` even so is left out (lp-rounding on 9 QIs).

    python bench/portfolio.py                 # every configuration
    python bench/portfolio.py --only k5 l2    # some (the other runs in the file are kept)
    python bench/portfolio.py --members       # and each member alone, defaults
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import polars as pl

import starmin
from starmin import model_params
from starmin.algorithms import portfolio
from starmin.data.schema import Schema
from starmin.engines.local import LocalEngine

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / ".." / "shared" / "data" / "arx" / "adult.csv"
OUT = ROOT / "bench" / "results" / "portfolio.json"
SA = "occupation"
QI8 = ("sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "salary-class")
QI9 = (*QI8[:6], "workclass", "occupation", "salary-class")


def configs() -> dict[str, tuple[tuple[str, ...], str | None, dict[str, Any]]]:
    """name -> (QIs, sensitive column or None, model parameters as for ``anonymize``)."""
    out: dict[str, tuple[tuple[str, ...], str | None, dict[str, Any]]] = {}
    for k in (2, 5, 10):
        out[f"k{k}"] = (QI9, None, {"k": k})
    for l in range(2, 7):
        out[f"l{l}"] = (QI8, SA, {"l": l})
    for l in range(2, 7):
        out[f"distinct-l{l}"] = (QI8, SA, {"l": l, "l_kind": "distinct"})
    out["entropy-l3"] = (QI8, SA, {"l": 3, "l_kind": "entropy"})
    out["recursive-c4-l3"] = (QI8, SA, {"l": 3, "c": 4, "l_kind": "recursive"})
    out["t0.2"] = (QI8, SA, {"t": 0.2})
    out["t0.5"] = (QI8, SA, {"t": 0.5})
    out["k5-p3"] = (QI8, SA, {"k": 5, "p": 3})
    return out


def cpu_seconds() -> float:
    """User and system CPU seconds of this process and of its children that have ended."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def run(df: pl.DataFrame, qi: tuple[str, ...], sa: str | None,
        params: dict[str, Any]) -> dict[str, Any]:
    cols = [*qi, *([sa] if sa else [])]
    lines: list[str] = []
    t0, c0 = time.perf_counter(), cpu_seconds()
    rel = starmin.anonymize(df.select(cols), list(qi), sa, method="auto", seed=0,
                            progress=lines.append, **params)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    r = rel.report
    return {"stars": r["stars"], "method": r["method"], "guarantee": r["guarantee"]["kind"],
            "lower_bound": r["lower_bound"], "verified": r["verified"],
            "portfolio": r["portfolio"], "portfolio_budget": r["portfolio_budget"],
            "portfolio_ratio": r["portfolio_ratio"], "timings_s": r["timings_s"],
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "second_process": any("[second process]" in x for x in lines)}


ALONE_UNITS = 100.0
"""``--members`` skips a member whose estimate with defaults exceeds this many work units."""


def members_alone(df: pl.DataFrame, qi: tuple[str, ...], sa: str | None,
                  params: dict[str, Any]) -> dict[str, Any]:
    schema = Schema.of(list(qi), sa)
    rt = LocalEngine().to_row_types(df.select([*qi, *([sa] if sa else [])]), schema).row_types
    model = model_params.the_model(None, params, schema.sensitive)
    out: dict[str, Any] = {}
    for name, a in portfolio.members().items():
        if a.supports(model, rt) is not None:
            continue
        if a.auto is not None and a.auto(model, rt, ALONE_UNITS).work > ALONE_UNITS:
            continue  # e.g. lp-rounding's column generation on 9 QIs: many minutes
        c0 = time.process_time()
        plan = a.solve(rt, model, seed=0)
        out[name] = {"stars": plan.stars, "cpu_s": round(time.process_time() - c0, 2)}
    return out


def table(results: dict[str, Any]) -> str:
    """The markdown table of docs/benchmarks.md: per run, the release, each member auto ran
    (stars, estimated work units, seconds, the variant when capped), the members skipped
    over budget, and, with ``--members``, each member alone with its defaults."""
    alone = any("members_alone_defaults" in r for r in results["runs"].values())
    head = ("| model | auto releases | stars | run by auto: stars (work units, s) [variant] | "
            "skipped | units spent | wall s | CPU s |"
            + (" alone, defaults: stars (CPU s) |" if alone else ""))
    rows = [head, "|---|---|---:|---|---|---:|---:|---:|" + ("---|" if alone else "")]
    for name, r in results["runs"].items():
        tried = "; ".join(f"{t['method']} {t['stars']:,} ({t['work']:g}, {t['seconds']:.1f})"
                          + (f" [{t['note']}]" if t.get("note") else "")
                          for t in r["portfolio"] if t["status"] in ("released", "tried"))
        skipped = ", ".join(f"{t['method']} ({_why(t)})" for t in r["portfolio"]
                            if t["status"] in ("skipped", "failed")
                            and not t["reason"].startswith("unsupported"))
        row = (f"| {name} | {r['method']} ({r['guarantee']}) | {r['stars']:,} | {tried} | "
               f"{skipped or '-'} | {r['portfolio_budget']['spent']:g} | {r['wall_s']} | "
               f"{r['cpu_s']} |")
        if alone:
            row += " " + "; ".join(f"{n} {v['stars']:,} ({v['cpu_s']})" for n, v in
                                   r.get("members_alone_defaults", {}).items()) + " |"
        rows.append(row)
    return "\n".join(rows)


def _why(trial: dict[str, Any]) -> str:
    """A skipped or failed member's reason in short: over budget, not needed or failed."""
    if trial["status"] == "failed":
        return "failed"
    return "not needed" if trial["reason"].startswith("not needed") else "over budget"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", help="configuration names (default: all)")
    ap.add_argument("--members", action="store_true",
                    help="also run each supported member alone with its defaults")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--table", action="store_true",
                    help="print the table of the results in --out and run nothing")
    ns = ap.parse_args()
    if ns.table:
        print(table(json.loads(ns.out.read_text())))
        return
    df = pl.read_csv(ADULT, separator=";")
    chosen = {n: c for n, c in configs().items() if not ns.only or n in ns.only}
    unknown = set(ns.only or ()) - set(configs())
    if unknown:
        ap.error(f"unknown configuration(s) {sorted(unknown)}: choose from "
                 f"{', '.join(configs())}")
    # warm-up: imports and first-call costs stay out of the first timed run
    starmin.anonymize(df.head(200).select(QI8[:3]), list(QI8[:3]), k=2)
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_start": os.getloadavg()[0]},
        "budget_units": portfolio.BUDGET,
        "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "runs": {}}
    for name, (qi, sa, params) in chosen.items():
        r = run(df, qi, sa, params)
        if ns.members:
            r["members_alone_defaults"] = members_alone(df, qi, sa, params)
        results["runs"][name] = r
        print(f"{name}: {r['method']} {r['stars']} stars, wall {r['wall_s']} s, "
              f"CPU {r['cpu_s']} s", flush=True)
    results["machine"]["load_end"] = os.getloadavg()[0]
    from results_file import merged_runs, write_json  # beside this file

    if ns.only:  # re-measured runs replace theirs; the others are kept
        results = merged_runs(ns.out, results, "machine", "started")
    write_json(ns.out, results)
    print(table(results))


if __name__ == "__main__":
    main()
