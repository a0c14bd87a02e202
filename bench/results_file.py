"""Writing a bench script's results: whole (a temporary file, then a rename, so a stopped run
never leaves half a file) and, for a run of some configurations only, merged into the file's
earlier runs."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def write_json(path: Path, data: Any, indent: int = 1) -> None:
    """``data`` as JSON at ``path``, written to ``path.json.tmp`` first and renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=indent) + "\n")
    tmp.replace(path)


def write_runs(path: Path, rows: list[dict[str, Any]]) -> None:
    """``rows`` as ``{"date", "load", "runs"}`` JSON at ``path`` (:func:`write_json`): the UTC
    minute and the one-minute load average when written."""
    write_json(path, {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                      "load": os.getloadavg()[0], "runs": rows})


def merged_runs(path: Path, results: dict[str, Any], *keys: str) -> dict[str, Any]:
    """``results`` (with ``"runs"`` by configuration name) over the file at ``path``: its
    re-measured runs replace theirs, the others are kept, and ``"updates"`` records which
    runs this was with its ``keys`` (e.g. ``machine``, ``started``). ``results`` itself when
    there is no file yet."""
    if not path.exists():
        return results
    base: dict[str, Any] = json.loads(path.read_text())
    base["runs"].update(results["runs"])
    base.setdefault("updates", []).append(
        {"runs": list(results["runs"]), **{k: results[k] for k in keys}})
    return base


def shown(bound: int | None) -> str:
    """A bound for a markdown table: ``none`` or the number with thousands separators."""
    return "none" if bound is None else f"{bound:,}"


def change(new: int | None, old: int | None) -> str:
    """``new`` against ``old`` in percent for a markdown table, ``-`` when either is missing."""
    return f"{100 * (new - old) / old:+.1f} %" if new and old else "-"


def timed(call: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, dict[str, float]]:
    """``call(*args, **kwargs)`` and what it took: ``(value, {"cpu_s": ..., "wall_s": ...})``,
    the process's CPU seconds and the wall-clock seconds, rounded to hundredths."""
    c0, w0 = time.process_time(), time.perf_counter()
    value = call(*args, **kwargs)
    return value, {"cpu_s": round(time.process_time() - c0, 2),
                   "wall_s": round(time.perf_counter() - w0, 2)}
