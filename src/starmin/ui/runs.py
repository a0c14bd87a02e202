"""A run: ``starmin anonymize`` in a child process, its progress lines kept for the page.

The child is the command line itself (``python -m starmin.cli.main anonymize ...``, the
interpreter serving the page): the release, its report and its HTML page are the files the
CLI writes, its progress callback's lines (stderr, one per line) are the live progress, its
one-line error (``starmin: ...``) is the page's message, its summary (stdout) is kept. The
server stays free while a run works (the child has its own interpreter; two threads here
only read its pipes), and a run can be cancelled: SIGTERM, which the CLI handles like
Ctrl-C (temporary files removed, nothing written, exit 130).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

PREFIX = "starmin: "
"""How the CLI starts its one-line error message."""

STATES = ("running", "done", "failed", "cancelled")


class Run:
    """One run of ``starmin anonymize`` with ``argv`` (without the program name), in the
    folder ``folder`` (its files go there), started at once."""

    def __init__(self, run_id: str, argv: tuple[str, ...], command: str, folder: Path,
                 release: Path, cwd: str | None = None) -> None:
        self.id, self.argv, self.command = run_id, argv, command
        self.folder, self.release = folder, release
        self.lines: list[str] = []
        self.errors: list[str] = []
        self.summary = ""
        self.returncode: int | None = None
        self.cancelled = False
        self._lock = threading.Lock()
        self._done = threading.Event()
        env = dict(os.environ)
        env.pop("STARMIN_DEBUG", None)  # a bug is one line in the page, not a traceback
        env["PYTHONUNBUFFERED"] = "1"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "starmin.cli.main", *argv], cwd=cwd, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="replace")
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._out = threading.Thread(target=self._read_summary, args=(self.proc.stdout,),
                                     name=f"starmin-ui-run-{run_id}-out", daemon=True)
        self._err = threading.Thread(target=self._read_progress, args=(self.proc.stderr,),
                                     name=f"starmin-ui-run-{run_id}-err", daemon=True)
        self._out.start()
        self._err.start()
        threading.Thread(target=self._wait, name=f"starmin-ui-run-{run_id}",
                         daemon=True).start()

    def _read_summary(self, stream: IO[str]) -> None:
        text = stream.read()
        with self._lock:
            self.summary = text

    def _read_progress(self, stream: IO[str]) -> None:
        for raw in stream:
            line = raw.rstrip("\n")
            if not line:
                continue
            with self._lock:
                if line.startswith(PREFIX):
                    self.errors.append(line[len(PREFIX):])
                else:
                    self.lines.append(line)

    def _wait(self) -> None:
        code = self.proc.wait()
        self._out.join()
        self._err.join()
        with self._lock:
            self.returncode = code
        self._done.set()

    @property
    def state(self) -> str:
        """``running``, ``done`` (the release was written), ``failed`` or ``cancelled``."""
        if not self._done.is_set():
            return "running"
        if self.returncode == 0:
            return "done"
        return "cancelled" if self.cancelled else "failed"

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the run to end; True if it has."""
        return self._done.wait(timeout)

    def cancel(self) -> bool:
        """Stop the run (SIGTERM: the CLI removes its temporary files); False if it had
        already ended."""
        if self._done.is_set() or self.proc.poll() is not None:
            return False
        self.cancelled = True
        try:
            self.proc.send_signal(signal.SIGTERM)
        except ProcessLookupError:
            return False
        return True

    def files(self) -> list[dict[str, Any]]:
        """The files the run wrote: the release, its JSON report and its HTML page."""
        if self.state != "done":
            return []
        out = []
        for kind, path in (("release", self.release),
                           ("report.json", Path(f"{self.release}.report.json")),
                           ("report.html", Path(f"{self.release}.report.html"))):
            if path.is_file():
                out.append({"kind": kind, "name": path.name, "bytes": path.stat().st_size})
        return out

    def result(self) -> dict[str, Any] | None:
        """The report's headline numbers for the page (``None`` until the run is done)."""
        if self.state != "done":
            return None
        try:
            r = json.loads(Path(f"{self.release}.report.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        keys = ("model", "method", "stars", "star_fraction", "lower_bound", "gap",
                "gap_ratio", "suppressed_records", "verified", "seed")
        out = {k: r.get(k) for k in keys}
        out["guarantee"] = (r.get("guarantee") or {}).get("kind")
        out["n"] = (r.get("input") or {}).get("n")
        out["classes"] = (r.get("classes") or {}).get("count")
        return out

    def status(self, start: int = 0) -> dict[str, Any]:
        """What the page shows: the state, the progress lines from ``start`` on, the error
        message, the summary and the files when done."""
        with self._lock:
            lines = self.lines[start:]
            nxt = len(self.lines)
            errors = list(self.errors)
            summary = self.summary
        state = self.state
        error = None
        if state == "failed":
            error = errors[-1] if errors else (f"the run ended with exit status "
                                               f"{self.returncode} and no message")
        elif state == "cancelled":
            error = "cancelled: nothing was written"
        return {"id": self.id, "state": state, "lines": lines, "next": nxt, "error": error,
                "command": self.command, "summary": summary if state == "done" else "",
                "exit": self.returncode if state != "running" else None,
                "result": self.result(), "files": self.files()}
