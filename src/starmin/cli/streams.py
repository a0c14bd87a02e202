"""Keep the command line's standard output for its results.

The solvers are native libraries that may print to the process's C-level standard output:
SciPy's build of HiGHS prints a debug line (``HighsMipSolverData::transformNewInteger
FeasibleSolution tmpSolver.run();``) on a rare branch-and-bound path, seen twice while six
methods ran on each of 2,800 small random tables (2026-11-28). Standard output is the
summary a script or the web interface reads (:mod:`starmin.ui.runs`), so while a command
computes, descriptor 1 points at descriptor 2 (the progress stream) and nothing a solver
prints lands among the results.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout, suppress


def _flush_c_streams() -> None:
    """Flush C's ``stdout`` buffer (``fflush(NULL)``): a native library's ``printf`` is kept
    there (fully buffered on a pipe) and would reach the restored descriptor later."""
    with suppress(OSError, AttributeError, TypeError):  # no C library to ask (platform)
        ctypes.CDLL(None).fflush(None)


@contextmanager
def solver_output_to_stderr() -> Iterator[None]:
    """Within the block, whatever is written to descriptor 1 (by a native library) or to
    ``sys.stdout`` goes to descriptor 2 and ``sys.stderr``; both are restored after it. Where
    the descriptors cannot be duplicated (closed, or not real files), only ``sys.stdout`` is
    redirected."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):
        with redirect_stdout(sys.stderr):
            yield
        return
    try:
        os.dup2(2, 1)
    except OSError:
        os.close(saved)
        with redirect_stdout(sys.stderr):
            yield
        return
    try:
        with redirect_stdout(sys.stderr):
            yield
    finally:
        with suppress(OSError, ValueError):
            sys.stdout.flush()
        _flush_c_streams()
        os.dup2(saved, 1)
        os.close(saved)
