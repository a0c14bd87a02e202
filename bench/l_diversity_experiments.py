"""Reproduce and extend Xiao, Yi & Tao's l-diversity experiments (EDBT 2010, Sec. 6.1).

Data (see bench/l_diversity_data.py): ARX adult (SA occupation, 8 QIs, all 255 projections);
synthetic OCC and SAL tables of 600k rows with the domain sizes of Xiao et al.'s Table 6
(:func:`starmin.datasets.synthetic_acs`, 7 QIs: TP on all 127 projections for the phase
count, the other methods on a seeded sample of 3 projections per d); adult replicated with an
age jitter and synthetic OCC up to 1M rows for time vs n; exact optima from the 2-diversity
matching (balanced two-salary-class adult sample), brute force (12-row samples) and the
2-diversity MILP (300-row samples). What runs is in bench/l_diversity_configs.py.

Methods: ``tp``, ``tp+``, ``hilbert``, ``tp+/greedy``, ``hilbert/greedy`` (the greedy Hilbert
cut) and the exact solvers, through ``starmin.api.solve`` on row types
(``LocalEngine.to_row_types``). Time is the solve alone (CPU and wall clock, one run, after a
warm-up); aggregation is timed separately. The projection sweeps run in ``--jobs`` spawned
processes; time vs n and the exact comparisons run alone in the main process. A subset of
releases (all exact comparisons, the first projection(s) of each d, the largest n) is applied
to the rows and checked by the independent verifier; the script fails if any check fails
(bench/l_diversity_report.check_runs). Results and their comparison with the paper:
docs/experiments/l-diversity.md.

    python bench/l_diversity_experiments.py            # full run (15 min on 2 shared cores)
    python bench/l_diversity_experiments.py --quick    # smoke run (about 10 s)
    python bench/l_diversity_experiments.py --tables   # also print the markdown tables

Writes bench/results/l_diversity.json (summaries and checks), bench/results/
l_diversity_runs.json (every run, one row each) and docs/experiments/l-diversity-*.png
(``--quick`` writes l_diversity_quick*.json and no figures unless ``--figures DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import polars as pl

from l_diversity_configs import CONFIGS, Config, full_config, quick_config, tiny_config
from l_diversity_report import check_runs, summarize_exact, summarize_scaling, summarize_table
from l_diversity_runs import warm_up
from l_diversity_sweeps import run_flow, run_samples, run_scaling, run_tables
from l_diversity_tables import markdown

__all__ = ["CONFIGS", "Config", "full_config", "markdown", "quick_config", "run_experiments",
           "tiny_config"]

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
FIGURES = HERE.parent / "docs" / "experiments"


def run_experiments(config: Config, seed: int = 0,
                    say: Callable[[str], None] = lambda s: None, jobs: int = 1
                    ) -> dict[str, Any]:
    """Run every experiment of ``config``; return raw runs, summaries and checks.

    ``jobs > 1`` runs the projection sweeps in that many spawned processes (the config is
    rebuilt there by ``config.name``); time vs n and the exact comparisons always run in this
    process, alone, so their timings are not shared with a sibling."""
    t0 = time.perf_counter()
    warm_up()
    sections: dict[str, float] = {}
    t = time.perf_counter()
    tables = run_tables(config.tables, seed, say, config.name, jobs)
    sections["tables"] = time.perf_counter() - t
    t = time.perf_counter()
    scaling = [run_scaling(spec, say) for spec in config.scaling]
    sections["scaling"] = time.perf_counter() - t
    t = time.perf_counter()
    exact = [run_flow(config.flow, seed, say)] if config.flow else []
    exact += [run_samples(spec, seed, say) for spec in config.samples]
    sections["exact"] = time.perf_counter() - t
    results: dict[str, Any] = {"tables": tables, "scaling": scaling, "exact": exact}
    results["summary"] = {
        "tables": [summarize_table(t) for t in tables],
        "scaling": [summarize_scaling(s) for s in scaling],
        "exact": [summarize_exact(e) for e in exact],
    }
    results["checks"] = check_runs(results)
    results["meta"] = {"config": config.name, "describe": config.describe, "seed": seed,
                       "seconds": time.perf_counter() - t0, "section_seconds": sections,
                       "cpu_seconds_main_process": time.process_time(), "jobs": jobs,
                       "machine": _machine(),
                       "specs": _specs(config)}
    return results


def _specs(config: Config) -> dict[str, Any]:
    def plain(spec: Any) -> dict[str, Any]:
        return {k: v for k, v in asdict(spec).items() if not callable(v)}
    return {"tables": [plain(s) for s in config.tables],
            "scaling": [plain(s) for s in config.scaling],
            "flow": plain(config.flow) if config.flow else None,
            "samples": [plain(s) for s in config.samples]}


def _machine() -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__, "polars": pl.__version__, "platform": platform.platform(),
            "load_average": list(os.getloadavg()), **_git()}


def _git() -> dict[str, Any]:
    """The commit measured and the source files that differed from it (colleagues' work)."""
    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", *a], cwd=HERE.parent, capture_output=True,
                                  text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": git("rev-parse", "HEAD"),
            "modified_src": git("status", "--short", "src").splitlines()}


def write(results: dict[str, Any], stem: str) -> tuple[Path, Path]:
    """Summaries + checks (indented), and the raw runs as a table: ``columns`` and one
    ``rows`` entry per run (``qi`` joined by commas; absent fields are null)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    main = RESULTS / f"{stem}.json"
    main.write_text(json.dumps({k: results[k] for k in ("meta", "checks", "summary")},
                               indent=1, allow_nan=False) + "\n")
    runs = RESULTS / f"{stem}_runs.json"
    flat = [{"experiment": part["name"], **_round(r)}
            for group in ("tables", "scaling", "exact") for part in results[group]
            for r in part["runs"]]
    columns = list(dict.fromkeys(k for r in flat for k in r))
    lines = [json.dumps([",".join(r[c]) if c == "qi" else r.get(c) for c in columns])
             for r in flat]
    runs.write_text('{"columns": ' + json.dumps(columns) + ',\n"rows": [\n'
                    + ",\n".join(lines) + "\n]}\n")
    return main, runs


def _round(r: dict[str, Any]) -> dict[str, Any]:
    return {k: (float(f"{v:.4g}") if isinstance(v, float) else v) for k, v in r.items()}


def figures(results: dict[str, Any], out: Path, stem: str) -> list[Path]:
    """Write the PNG figures (needs matplotlib: the ``bench`` extra)."""
    from l_diversity_figures import exact_figure, scaling_figure, table_figures

    out.mkdir(parents=True, exist_ok=True)
    s = results["summary"]
    paths = table_figures(s["tables"], out, stem)
    if s["scaling"]:
        paths.append(scaling_figure(s["scaling"], out, stem))
    p = exact_figure(s["exact"], out, stem)
    return paths + ([p] if p else [])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smoke run, under a minute")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2,
                    help="processes for the projection sweeps (default 2)")
    ap.add_argument("--figures", type=Path, default=None, help="PNG directory")
    ap.add_argument("--tables", action="store_true", help="print markdown tables")
    args = ap.parse_args()
    config = quick_config(args.seed) if args.quick else full_config(args.seed)
    stem = "l_diversity_quick" if args.quick else "l_diversity"
    results = run_experiments(config, args.seed, lambda s: print(s, flush=True), args.jobs)
    for p in write(results, stem):
        print(f"wrote {p}")
    fig_dir = args.figures or (None if args.quick else FIGURES)
    if fig_dir is not None:
        for p in figures(results, fig_dir, stem.replace("_", "-")):
            print(f"wrote {p}")
    if args.tables:
        print(markdown(results["summary"]))
    checks = results["checks"]
    print(f"{checks['runs']} runs, {checks['verified']} verified, "
          f"{len(checks['failures'])} failures, {results['meta']['seconds']:.0f} s")
    if checks["failures"]:
        print("\n".join(checks["failures"][:50]), file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
