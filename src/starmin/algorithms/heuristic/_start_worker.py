"""The child process of :mod:`._beside`: one of merge-repair's starts, run beside the others.

``python -m starmin.algorithms.heuristic._start_worker JOB RESULT`` reads the pickled job
``("merge-repair start", rt, model, settings, seed, start)`` from ``JOB``, runs that start as
:func:`.merge_repair.run_start` runs it in the parent (its own judge, class floor and flow
limits, computed from the same arguments), and writes ``(StartRun, progress lines)`` to
``RESULT`` (a temporary name, then renamed, so the parent never reads half a file).
"""

from __future__ import annotations

import os
import pickle
import sys
from typing import Any

JOB_KIND = "merge-repair start"


def run_job(job: tuple[Any, ...]) -> tuple[Any, list[str]]:
    """What the child computes for ``job``: the start's run and its progress lines."""
    from starmin.algorithms.heuristic.merge_repair import run_start_alone

    kind, rt, model, st, seed, name = job
    if kind != JOB_KIND:
        raise ValueError(f"unknown job {kind!r}")
    lines: list[str] = []
    return run_start_alone(rt, model, st, seed, name, lines.append), lines


def main(argv: list[str]) -> int:
    job_path, result_path = argv
    with open(job_path, "rb") as f:
        job = pickle.load(f)
    out = run_job(job)
    tmp = result_path + ".tmp"
    with open(tmp, "wb") as f:
        pickle.dump(out, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, result_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
