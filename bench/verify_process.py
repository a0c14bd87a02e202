"""Whole-process benchmark of ``starmin verify`` (start-up included) against a polars process.

The table is bench/verify.py's: ARX adult replicated to ``--rows`` rows, the age of replica
``r`` made ``100 * age + r`` so copies never merge (414,150 classes at 1M rows). It is written
as CSV to ``--data`` (default: a folder under /tmp; never committed). Two processes alternate,
round by round, so load from other users of the machine hits both alike:

* **starmin**: ``starmin verify TABLE --qi <8 QIs> --sensitive occupation --k 2 --l 2 --t 0.9``
* **reference**: ``python -c`` that imports polars, reads the same CSV (``pl.read_csv``) and
  does one ``group_by(<8 QIs + occupation>).len()``, run two ways (eager, and lazy:
  ``df.lazy().group_by(...).len().collect()``); each round's faster one is the reference.

Measured per run: wall time and CPU time (user + system of the child, from ``os.wait4``).
Reported: the median over ``--rounds`` rounds of the per-round ratio starmin / reference, its
range, and the medians of the times. Writes ``bench/results/verify_process.json`` and prints a
markdown table for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The children's environment: bytecode caches on, as after ``pip install`` (the warm-up run
writes starmin's; without them every run compiles starmin's modules again)."""
ADULT = REPO / ".." / "shared" / "data" / "arx" / "adult.csv"
SA = "occupation"
TARGETS = {1_000_000: 1.3, 100_000: 1.6}

REFERENCES = {
    "eager": ("import sys, json\n"
              "import polars as pl\n"
              "df = pl.read_csv(sys.argv[1])\n"
              "print(df.group_by(json.loads(sys.argv[2])).len().height)\n"),
    "lazy": ("import sys, json\n"
             "import polars as pl\n"
             "df = pl.read_csv(sys.argv[1])\n"
             "print(df.lazy().group_by(json.loads(sys.argv[2])).len().collect().height)\n"),
}
"""The reference process, two ways: polars' eager group-by on the freshly read (multi-chunk)
frame is about twice as slow as the lazy one, so each round's faster of the two is the
reference."""


def make_table(rows: int, folder: Path) -> tuple[Path, list[str]]:
    """The jittered adult table with ``rows`` rows as CSV (made once, reused), and its QIs."""
    import polars as pl

    adult = pl.read_csv(ADULT, separator=";")
    qi = [c for c in adult.columns if c != SA]
    path = folder / f"adult_jittered_{rows}.csv"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        reps = -(-rows // adult.height)
        big = pl.concat([adult.with_columns(pl.col("age") * 100 + r) for r in range(reps)]
                        ).head(rows)
        tmp = path.with_suffix(".tmp")
        big.write_csv(tmp)
        tmp.replace(path)
    return path, qi


def run(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU time (user + system) of one child process; it must exit 0 or 1 (the
    jittered table fails 2-anonymity: ``starmin verify`` exits 1 after a full check)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:3])} ... exited {proc.returncode}: {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def starmin_cmd(path: Path, qi: list[str]) -> list[str]:
    exe = Path(sys.executable).with_name("starmin")
    return [str(exe), "verify", str(path), "--qi", ",".join(qi), "--sensitive", SA,
            "--k", "2", "--l", "2", "--t", "0.9"]


def measure(path: Path, qi: list[str], rounds: int) -> dict[str, Any]:
    cols = json.dumps([*qi, SA])
    cmds = {"starmin": starmin_cmd(path, qi),
            **{f"reference_{k}": [sys.executable, "-c", code, str(path), cols]
               for k, code in REFERENCES.items()}}
    for cmd in cmds.values():  # warm the page cache and the interpreters' bytecode
        run(cmd)
    times: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": []} for k in cmds}
    for i in range(rounds):
        order = list(cmds) if i % 2 == 0 else list(reversed(cmds))  # alternate who goes first
        for k in order:
            wall, cpu = run(cmds[k])
            times[k]["wall"].append(wall)
            times[k]["cpu"].append(cpu)
    out: dict[str, Any] = {"rounds": rounds, "times": times}
    for kind in ("wall", "cpu"):
        ref = [min(e, z) for e, z in zip(times["reference_eager"][kind],
                                         times["reference_lazy"][kind], strict=True)]
        ratios = [s / r for s, r in zip(times["starmin"][kind], ref, strict=True)]
        out[kind] = {"starmin_median": statistics.median(times["starmin"][kind]),
                     "reference_median": statistics.median(ref),
                     **{f"reference_{k}_median": statistics.median(times[f"reference_{k}"][kind])
                        for k in REFERENCES},
                     "ratio_median": statistics.median(ratios),
                     "ratio_min": min(ratios), "ratio_max": max(ratios), "ratios": ratios}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 100_000])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--data", default="/tmp/starmin-bench",
                    help="folder for the generated tables (not committed)")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "verify_process.json"))
    ns = ap.parse_args()
    import polars as pl

    res: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "polars": pl.__version__, "load_average_at_start": os.getloadavg()},
        "starmin_command": "starmin verify TABLE --qi QIS --sensitive occupation "
                           "--k 2 --l 2 --t 0.9",
        "reference_command": "python -c 'import polars; pl.read_csv(TABLE)"
                             "[.lazy()].group_by(QIS + occupation).len()[.collect()]', "
                             "the faster of eager and lazy in each round",
        "sizes": {}}
    for rows in ns.rows:
        path, qi = make_table(rows, Path(ns.data))
        res["sizes"][str(rows)] = {"target": TARGETS.get(rows), **measure(path, qi, ns.rounds)}
    res["machine"]["load_average_at_end"] = os.getloadavg()
    Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
    Path(ns.out).write_text(json.dumps(res, indent=2) + "\n")
    print(markdown(res))


def markdown(res: dict[str, Any]) -> str:
    rows = ["| rows | reference wall (s) | starmin verify wall (s) | ratio wall, median "
            "[range] | reference CPU (s) | starmin verify CPU (s) | ratio CPU, median [range] "
            "| target |",
            "|---:|---:|---:|---|---:|---:|---|---:|"]
    for n, d in res["sizes"].items():
        w, c = d["wall"], d["cpu"]
        target = f"<= {d['target']}" if d["target"] else "-"
        rows.append(
            f"| {int(n):,} | {w['reference_median']:.3f} | {w['starmin_median']:.3f} "
            f"| {w['ratio_median']:.2f} [{w['ratio_min']:.2f}-{w['ratio_max']:.2f}] "
            f"| {c['reference_median']:.3f} | {c['starmin_median']:.3f} "
            f"| {c['ratio_median']:.2f} [{c['ratio_min']:.2f}-{c['ratio_max']:.2f}] "
            f"| {target} |")
    m = res["machine"]
    rows += ["", f"{res['date']}; {m['cores']} cores, Python {m['python']}, polars "
             f"{m['polars']}; {d['rounds']} alternating rounds; load average at start "
             f"{m['load_average_at_start'][0]:.1f}, at end {m['load_average_at_end'][0]:.1f}."]
    return "\n".join(rows)


if __name__ == "__main__":
    main()
