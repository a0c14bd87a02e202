"""Run one picklable job in a second Python process, beside the work of this one.

Why. Merge-repair's starts are independent runs whose best release is kept
(:func:`.merge_repair.solve`); on a machine with two cores the second start can run in a
child process while this process runs the first. Python threads would not help: the starts
are Python loops and hold the GIL.

How. The child is a fresh interpreter, ``python -m starmin.algorithms.heuristic._start_worker
JOB RESULT``, started with :func:`subprocess.Popen` (not :mod:`multiprocessing`, whose
``spawn`` and ``forkserver`` import the caller's ``__main__`` again and would re-run a user's
script that calls starmin without a ``__main__`` guard; ``fork`` is unsafe in a process whose
other threads -- the lower bounds beside the solve, polars' pool -- may hold locks). The job
goes to the child in a pickle file and the result comes back in another, both in a private
temporary folder that is removed afterwards; the child's stderr goes to a third file, quoted
when it fails. The child finds the same ``starmin`` as this process (``PYTHONPATH`` is this
process's ``sys.path``).

Nothing here reads the clock or depends on timing: a job's result is what the same call would
return in this process, so a release is byte-identical whether its starts ran side by side or
one after the other. When the child cannot be started or fails, :meth:`Beside.result` says
so (``None``) and the caller runs the job itself.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

WORKER = "starmin.algorithms.heuristic._start_worker"
"""The module the child runs (``python -m``)."""


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class Beside:
    """One job running in a child process: ``Beside(job)`` starts it, :meth:`result` waits for
    it and returns what :func:`._start_worker.run_job` returned for ``job``, or ``None`` with
    :attr:`failure` set when the child could not run it. :meth:`close` (the caller's
    ``finally``) stops a child still running and removes the files."""

    def __init__(self, job: tuple[Any, ...]) -> None:
        self.failure: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir = Path(tempfile.mkdtemp(prefix="starmin-beside-"))
        self._err = None
        try:
            with open(self._dir / "job.pkl", "wb") as f:
                pickle.dump(job, f, protocol=pickle.HIGHEST_PROTOCOL)
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
            self._err = open(self._dir / "stderr.txt", "wb")  # noqa: SIM115 - closed in close()
            self._proc = subprocess.Popen(
                [sys.executable, "-m", WORKER, str(self._dir / "job.pkl"),
                 str(self._dir / "result.pkl")],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._err, env=env)
        except (OSError, ValueError, pickle.PicklingError, TypeError, AttributeError) as exc:
            self.failure = f"could not start a second process ({exc})"

    def result(self) -> Any | None:
        """The job's result (waits for the child), or ``None`` when it failed."""
        if self._proc is None:
            return None
        code = self._proc.wait()
        out = self._dir / "result.pkl"
        if code != 0 or not out.exists():
            tail = ""
            if self._err is not None:
                self._err.flush()
                tail = (self._dir / "stderr.txt").read_bytes()[-600:].decode(errors="replace")
            self.failure = (f"the second process exited with code {code}"
                            + (f": {tail.strip()}" if tail.strip() else ""))
            return None
        try:
            with open(out, "rb") as f:
                return pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError) as exc:
            self.failure = f"the second process's result could not be read ({exc})"
            return None

    def close(self) -> None:
        """Stop the child if it still runs and remove the files."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        if self._err is not None:
            self._err.close()
        shutil.rmtree(self._dir, ignore_errors=True)
