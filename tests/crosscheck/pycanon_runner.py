"""Run pycanon on jobs read as JSON from stdin; print results as JSON (one per job).

Executed by the interpreter of pycanon's own virtual environment (pycanon pins numpy 2.0.2,
pandas 2.3.3 and scipy 1.15.3, which clash with starmin's), so it imports nothing of starmin.
A job: {"rows": [[...], ...] or "csv": path, "sep": ";", "columns": [...], "index": [...] or
null, "qi": [...], "sa": [...], "metrics": ["k", "l", "entropy_l", "t", "recursive"]}.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pandas as pd
from pycanon import anonymity


def run(job: dict[str, Any]) -> dict[str, Any]:
    if "csv" in job:
        df = pd.read_csv(job["csv"], sep=job.get("sep", ","))
    else:
        df = pd.DataFrame(job["rows"], columns=job["columns"])
    if job.get("index") is not None:
        df.index = job["index"]
    qi, sa = job["qi"], job.get("sa", [])
    calls = {
        "k": lambda: anonymity.k_anonymity(df, qi),
        "l": lambda: anonymity.l_diversity(df, qi, sa),
        "entropy_l": lambda: anonymity.entropy_l_diversity(df, qi, sa),
        "t": lambda: anonymity.t_closeness(df, qi, sa),
        "recursive": lambda: list(anonymity.recursive_c_l_diversity(df, qi, sa)),
    }
    out: dict[str, Any] = {}
    for name in job["metrics"]:
        try:
            value = calls[name]()
            out[name] = json.loads(json.dumps(value, default=float))
        except Exception as exc:  # report pycanon's failure as data
            out[name] = {"error": type(exc).__name__, "message": str(exc)}
    return out


if __name__ == "__main__":
    jobs = json.load(sys.stdin)
    json.dump([run(j) for j in jobs], sys.stdout)
