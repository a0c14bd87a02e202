"""Start-up cost of the command line: CPU time of short processes, median of ``--repeat``.

Measured (each a fresh process, run one after another round by round so load from other
users of the machine hits them alike): ``python -c "import polars"`` (the reference),
``python -c "import numpy"``, ``python -c "import starmin"``, ``starmin --help``,
``starmin verify --help`` and ``starmin methods``. CPU time is the child's user + system time
(``os.wait4``), which moves less than wall time on a shared machine. Target (issue 7):
``starmin --help`` at most 1.5x ``import polars``.

Writes ``bench/results/startup.json`` and prints a markdown table for docs/benchmarks.md.
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
TARGET = 1.5


def commands() -> dict[str, list[str]]:
    py = sys.executable
    starmin = str(Path(py).with_name("starmin"))
    return {"python -c 'import polars'": [py, "-c", "import polars"],
            "python -c 'import numpy'": [py, "-c", "import numpy"],
            "python -c 'import starmin'": [py, "-c", "import starmin"],
            "starmin --help": [starmin, "--help"],
            "starmin verify --help": [starmin, "verify", "--help"],
            "starmin methods": [starmin, "methods"]}


def run(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU time (user + system) of one child process, which must exit 0."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {code}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "startup.json"))
    ns = ap.parse_args()
    cmds = commands()
    for cmd in cmds.values():  # warm the page cache and write the bytecode caches
        run(cmd)
    times: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": []} for k in cmds}
    load0 = os.getloadavg()
    for _ in range(ns.repeat):
        for name, cmd in cmds.items():
            wall, cpu = run(cmd)
            times[name]["wall"].append(wall)
            times[name]["cpu"].append(cpu)
    ref = statistics.median(times["python -c 'import polars'"]["cpu"])
    res: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "load_average_at_start": load0, "load_average_at_end": os.getloadavg()},
        "repeat": ns.repeat, "target_help_over_polars": TARGET,
        "commands": {name: {"cpu_median": statistics.median(t["cpu"]),
                            "wall_median": statistics.median(t["wall"]),
                            "cpu_over_import_polars": statistics.median(t["cpu"]) / ref,
                            **t}
                     for name, t in times.items()}}
    Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
    Path(ns.out).write_text(json.dumps(res, indent=2) + "\n")
    print(markdown(res))


def markdown(res: dict[str, Any]) -> str:
    rows = ["| command | CPU time, median (s) | wall, median (s) | CPU / import polars |",
            "|---|---:|---:|---:|"]
    for name, d in res["commands"].items():
        rows.append(f"| `{name}` | {d['cpu_median']:.3f} | {d['wall_median']:.3f} "
                    f"| {d['cpu_over_import_polars']:.2f} |")
    m = res["machine"]
    rows += ["", f"{res['date']}; median of {res['repeat']} rounds; {m['cores']} cores, "
             f"Python {m['python']}; load average at start {m['load_average_at_start'][0]:.1f}, "
             f"at end {m['load_average_at_end'][0]:.1f}."]
    return "\n".join(rows)


if __name__ == "__main__":
    main()
