"""Reproduce and extend Xiao, Yi & Tao's l-diversity experiments (EDBT 2010, Sec. 6.1).

Data (see bench/l_diversity_data.py): ARX adult (SA occupation, 8 QIs, all 255 projections);
synthetic OCC and SAL tables of 600k rows with the domain sizes of Xiao et al.'s Table 6
(:func:`starmin.datasets.synthetic_acs`, 7 QIs: a seeded sample of 8 projections per d for
the three-method runs, all 127 projections for TP's phase count); adult replicated with an
age jitter and synthetic OCC up to 1M rows for time vs n; a balanced two-salary-class adult
sample against the exact 2-diversity matching; tiny adult samples against brute force.

Methods: ``tp``, ``tp+``, ``hilbert`` (and the exact solvers) through ``starmin.api.solve`` on
row types (``LocalEngine.to_row_types``). Time is the solve alone (wall clock, one run, after
a warm-up); aggregation is timed separately. A subset of releases (all exact comparisons,
the first projection(s) of each d) is applied to the rows and checked by the independent
verifier; the script fails if any check fails (bench/l_diversity_report.check_runs).

    python bench/l_diversity_experiments.py            # full run (~10 min on 2 cores)
    python bench/l_diversity_experiments.py --quick    # smoke run (< 1 min)
    python bench/l_diversity_experiments.py --tables   # also print the markdown tables

Writes bench/results/l_diversity.json (summaries and checks), bench/results/
l_diversity_runs.json (every run, one per line) and docs/experiments/l-diversity-*.png
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
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import polars as pl

from l_diversity_data import (
    ADULT_QI,
    ADULT_SA,
    acs,
    acs_table,
    adult,
    adult_table,
    projections,
    replicated_adult,
)
from l_diversity_report import (
    check_runs,
    summarize_exact,
    summarize_scaling,
    summarize_table,
)
from l_diversity_runs import warm_up
from l_diversity_sweeps import (
    FlowSpec,
    SampleSpec,
    ScalingSpec,
    TableSpec,
    run_flow,
    run_samples,
    run_scaling,
    run_table,
)
from l_diversity_tables import markdown
from starmin.datasets.acs import QI as ACS_QI

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
FIGURES = HERE.parent / "docs" / "experiments"
LS = tuple(range(2, 11))


@dataclass
class Config:
    """What to run; ``describe`` is stored in the results."""

    name: str
    tables: list[TableSpec] = field(default_factory=list)
    scaling: list[ScalingSpec] = field(default_factory=list)
    flow: FlowSpec | None = None
    samples: list[SampleSpec] = field(default_factory=list)
    describe: dict[str, Any] = field(default_factory=dict)


def _acs_spec(n: int, sensitive: str, limit: int, verify_ls: tuple[int, ...]) -> TableSpec:
    return TableSpec(make=lambda: acs_table(n, sensitive), ls=LS, ds=tuple(range(1, 8)),
                     limit=limit, verify_first=1, verify_ls=verify_ls)


def _occ_scaling(ns: tuple[int, ...], k: int, seed: int) -> ScalingSpec:
    return ScalingSpec(f"synthetic OCC, d = 4 ({k} projections)",
                       lambda n: acs(n, "occupation"), tuple(projections(ACS_QI, 4, k, seed)),
                       "occupation", ns)


def _adult_scaling(ns: tuple[int, ...]) -> ScalingSpec:
    return ScalingSpec("adult replicated (age jitter), d = 8", replicated_adult, (ADULT_QI,),
                       ADULT_SA, ns)


def full_config(seed: int = 0) -> Config:
    return Config(
        "full",
        tables=[TableSpec(make=adult_table, ls=LS, ds=tuple(range(1, 9)), verify_first=2),
                _acs_spec(600_000, "occupation", 4, (6,)),
                _acs_spec(600_000, "income", 4, (6,))],
        scaling=[_occ_scaling((100_000, 200_000, 400_000, 600_000, 800_000, 1_000_000), 3,
                              seed),
                 _adult_scaling((30_162, 100_000, 300_000, 600_000, 1_000_000))],
        flow=FlowSpec(n=6000, limit=4),
        samples=[SampleSpec("brute force, 12 rows", "brute-force", 100, 12, (2, 3, 4), (2, 3),
                            cross=("two-diversity-milp",)),
                 SampleSpec("MILP, 300 rows, l = 2", "two-diversity-milp", 40, 300,
                            tuple(range(1, 9)), (2,))],
        describe={"adult": "all projections, d = 1..8, l = 2..10 (l > 7 infeasible)",
                  "synthetic": "600k rows; TP on all 127 projections; TP+/Hilbert on 4 "
                               "sampled projections per d (seeded)"})


def quick_config(seed: int = 0) -> Config:
    return Config(
        "quick",
        tables=[TableSpec(make=adult_table, ls=(2, 4, 6), ds=(1, 2, 4), limit=3,
                          phases_all=False, verify_first=1),
                TableSpec(make=lambda: acs_table(20_000, "occupation"), ls=(2, 6, 10),
                          ds=(1, 4, 7), limit=2, phases_all=False, verify_first=1)],
        scaling=[_occ_scaling((10_000, 40_000), 1, seed), _adult_scaling((30_162, 60_000))],
        flow=FlowSpec(n=400, ds=(1, 2, 3), limit=1),
        samples=[SampleSpec("brute force, 10 rows", "brute-force", 6, 10, (2, 3), (2, 3),
                            cross=("two-diversity-milp",)),
                 SampleSpec("MILP, 100 rows, l = 2", "two-diversity-milp", 4, 100, (2, 4),
                            (2,))])


def tiny_config(seed: int = 0) -> Config:
    """Seconds: for the smoke test; every release is verified."""
    small = adult().sample(1500, seed=seed)
    return Config(
        "tiny",
        tables=[TableSpec(make=lambda: adult_table(small, "adult-1500"), ls=(2, 3, 6),
                          ds=(1, 4), limit=1, phases_all=False, verify_first=99),
                TableSpec(make=lambda: acs_table(3_000, "occupation"), ls=(2, 6), ds=(1, 4),
                          limit=1, phases_all=False, verify_first=99)],
        scaling=[replace(_occ_scaling((1_000, 2_000), 1, seed), verify_all=True)],
        flow=FlowSpec(n=200, ds=(1, 2), limit=1),
        samples=[SampleSpec("brute force, 8 rows", "brute-force", 3, 8, (2, 3), (2, 3),
                            cross=("two-diversity-milp",)),
                 SampleSpec("MILP, 60 rows, l = 2", "two-diversity-milp", 2, 60, (2, 3),
                            (2,))])


def run_experiments(config: Config, seed: int = 0,
                    say: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Run every experiment of ``config``; return raw runs, summaries and checks."""
    t0 = time.perf_counter()
    warm_up()
    tables = [run_table(spec, seed, say) for spec in config.tables]
    scaling = [run_scaling(spec, say) for spec in config.scaling]
    exact = [run_flow(config.flow, seed, say)] if config.flow else []
    exact += [run_samples(spec, seed, say) for spec in config.samples]
    results: dict[str, Any] = {"tables": tables, "scaling": scaling, "exact": exact}
    results["summary"] = {
        "tables": [summarize_table(t) for t in tables],
        "scaling": [summarize_scaling(s) for s in scaling],
        "exact": [summarize_exact(e) for e in exact],
    }
    results["checks"] = check_runs(results)
    results["meta"] = {"config": config.name, "describe": config.describe, "seed": seed,
                       "seconds": time.perf_counter() - t0, "machine": _machine(),
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
    """Summaries + checks (indented) and the raw runs (one per line)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    main = RESULTS / f"{stem}.json"
    main.write_text(json.dumps({k: results[k] for k in ("meta", "checks", "summary")},
                               indent=1, allow_nan=False) + "\n")
    runs = RESULTS / f"{stem}_runs.json"
    lines = []
    for group in ("tables", "scaling", "exact"):
        for part in results[group]:
            lines += [json.dumps({"experiment": part["name"], **_round(r)})
                      for r in part["runs"]]
    runs.write_text("[\n" + ",\n".join(lines) + "\n]\n")
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
    ap.add_argument("--figures", type=Path, default=None, help="PNG directory")
    ap.add_argument("--tables", action="store_true", help="print markdown tables")
    args = ap.parse_args()
    config = quick_config(args.seed) if args.quick else full_config(args.seed)
    stem = "l_diversity_quick" if args.quick else "l_diversity"
    results = run_experiments(config, args.seed, lambda s: print(s, flush=True))
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
