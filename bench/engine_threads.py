"""Do the local engine's stages use the machine's cores? ``starmin anonymize`` per stage on 1
and on 2 polars threads.

Issue 11, part 2: "the aggregate and apply stages must use the machine's cores". The same
table and commands as ``bench/engine_speed.py`` (ARX adult repeated to ``--rows`` rows;
``--k 5`` and ``--l 3 --method tp``, 8 QIs, occupation sensitive) and its reference process
(read, one group-by, write; the eager form), each run with ``POLARS_MAX_THREADS`` set to
each of ``--threads``, alternating round by round (the order reversed every other round).
Recorded per run: wall and CPU time of the process and the report's stage timings
(``timings_s``, wall). Reported: per command, stage and thread count the median, and the
speed-up of the most threads against one (``1 thread / n threads``, the median of the
per-round ratios). On a machine whose cores are shared with other jobs the speed-up is a
lower bound on what idle cores give.

    PYTHONPATH=src python bench/engine_threads.py --rows 1000000 10000000 --rounds 3

Writes ``bench/results/engine_threads.json`` and prints a markdown table for
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine_speed import COMMANDS, REFERENCES, SA, make_table, run
from verify_process import ENV

REPO = Path(__file__).resolve().parents[1]
STAGES = ("read", "aggregate", "solve", "lower_bounds", "apply", "verify")


def commands(path: Path, qi: list[str], folder: Path) -> dict[str, list[str]]:
    """The reference (eager) and the starmin commands, by name."""
    out = {"reference": [sys.executable, "-c", REFERENCES["eager"], str(path),
                         json.dumps([*qi, SA]), str(folder / "threads_reference.csv")]}
    for name, flags in COMMANDS.items():
        out[name] = [sys.executable, "-m", "starmin.cli.main", "-q", "anonymize", str(path),
                     "--qi", ",".join(qi), "--sensitive", SA, *flags,
                     "-o", str(folder / f"threads_{name}.csv")]
    return out


def measure(path: Path, qi: list[str], folder: Path, rounds: int, threads: list[int],
            src: Path) -> dict[str, Any]:
    cmds = commands(path, qi, folder)
    envs = {t: {**ENV, "PYTHONPATH": str(src), "POLARS_MAX_THREADS": str(t)} for t in threads}
    jobs = [(name, t) for name in cmds for t in threads]
    for name, t in jobs:  # warm the page cache and the bytecode
        run(cmds[name], envs[t])
    runs: dict[str, list[dict[str, Any]]] = {f"{n}@{t}": [] for n, t in jobs}
    for i in range(rounds):
        for name, t in (jobs if i % 2 == 0 else list(reversed(jobs))):
            r: dict[str, Any] = run(cmds[name], envs[t])
            if name != "reference":
                report = json.loads(Path(f"{cmds[name][-1]}.report.json").read_text())
                r["stages"] = {s: report["timings_s"].get(s, 0.0) for s in STAGES}
            runs[f"{name}@{t}"].append(r)
    return {"rounds": rounds, "runs": runs, "summary": summarize(runs, cmds, threads)}


def summarize(runs: dict[str, list[dict[str, Any]]], cmds: dict[str, list[str]],
              threads: list[int]) -> dict[str, Any]:
    """Medians per (command, threads) and the median per-round speed-up of the most threads
    against the fewest, for the whole process (wall) and for each stage."""
    lo, hi = min(threads), max(threads)
    out: dict[str, Any] = {}
    for name in cmds:
        entry: dict[str, Any] = {}
        for t in threads:
            rs = runs[f"{name}@{t}"]
            entry[str(t)] = {"wall": statistics.median(r["wall"] for r in rs),
                             "cpu": statistics.median(r["cpu"] for r in rs)}
            if name != "reference":
                entry[str(t)]["stages"] = {s: statistics.median(r["stages"][s] for r in rs)
                                           for s in STAGES}
        pairs = list(zip(runs[f"{name}@{lo}"], runs[f"{name}@{hi}"], strict=True))
        speed = {"wall": statistics.median(a["wall"] / b["wall"] for a, b in pairs)}
        if name != "reference":
            for s in STAGES:
                ratios = [a["stages"][s] / b["stages"][s] for a, b in pairs if b["stages"][s] > 0]
                speed[s] = statistics.median(ratios) if ratios else float("nan")
        entry["speedup"] = speed
        out[name] = entry
    return out


def markdown(res: dict[str, Any]) -> str:
    threads = res["threads"]
    lo, hi = min(threads), max(threads)
    rows = ["| rows | command | threads | wall (s) | CPU (s) | read | aggregate | solve "
            "| lower bounds | apply | verify |",
            "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n, d in res["sizes"].items():
        for name, entry in d["summary"].items():
            for t in threads:
                e = entry[str(t)]
                st = e.get("stages")
                cells = (" | ".join(f"{st[s]:.2f}" for s in STAGES) if st
                         else " | ".join("-" for _ in STAGES))
                rows.append(f"| {int(n):,} | {name} | {t} | {e['wall']:.2f} | {e['cpu']:.2f} "
                            f"| {cells} |")
            sp = entry["speedup"]
            cells = " | ".join(f"{sp[s]:.2f}x" if sp.get(s, math.nan) == sp.get(s) else "-"
                               for s in STAGES)
            rows.append(f"| {int(n):,} | {name} | speed-up {lo} -> {hi} | {sp['wall']:.2f}x "
                        f"| | {cells} |")
    m = res["machine"]
    rows += ["", f"{res['date']}; {m['cores']} cores, Python {m['python']}, polars "
             f"{m['polars']}; {res['rounds']} alternating rounds; load average at start "
             f"{m['load_average_at_start'][0]:.1f}, at end "
             f"{m.get('load_average_at_end', [0.0])[0]:.1f}."]
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--data", default="/tmp/starmin-bench",
                    help="folder for the generated tables and outputs (not committed)")
    ap.add_argument("--src", default=str(REPO / "src"))
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "engine_threads.json"))
    ns = ap.parse_args()
    if len(ns.threads) < 2:
        ap.error("--threads needs at least two thread counts to compare")
    import polars as pl

    res: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "polars": pl.__version__, "load_average_at_start": os.getloadavg()},
        "threads": ns.threads, "rounds": ns.rounds, "src": ns.src, "sizes": {}}
    folder = Path(ns.data)
    for rows in ns.rows:
        path, qi = make_table(rows, folder)
        res["sizes"][str(rows)] = measure(path, qi, folder, ns.rounds, ns.threads,
                                          Path(ns.src))
        res["machine"]["load_average_at_end"] = os.getloadavg()
        Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
        Path(ns.out).write_text(json.dumps(res, indent=2) + "\n")
    print(markdown(res))


if __name__ == "__main__":
    main()
