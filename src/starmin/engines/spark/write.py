"""Writing a Spark release: a folder of part files and its report, all or none.

Spark writes a table as a folder of part files (``OUT.csv/part-00000-....csv``, in row order
by part number), here into a temporary folder beside the target. The report
(``OUT.csv.report.json``) and its HTML page go to temporary files beside theirs. Only when all
are complete are they renamed into place; a previous release folder at the target is moved
aside first and removed after. On any failure nothing new remains. Paths are on the local
file system (or a shared one mounted on every executor).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path
from typing import Any

from starmin.io.output import OutputTarget, make_folders, temp_beside


def write(released: Any, target: OutputTarget, report: Any, separator: str = ",",
          html: str | None = None) -> None:
    """Write ``released`` (a Spark DataFrame) to ``target`` as CSV (``.csv``/``.tsv``) or
    Parquet part files, with the report and its HTML page (see module docstring)."""
    plain = report.as_dict() if hasattr(report, "as_dict") else dict(report)
    sidecars = [(target.report, json.dumps(plain, indent=2, default=str) + "\n")]
    if html is not None and target.html is not None:
        sidecars.append((target.html, html))
    created = make_folders(target.path.parent)
    tmp_dir = _beside(target.path)
    temps: list[Path] = []
    old: Path | None = None
    try:
        out = released.write.mode("errorifexists")
        if target.format == "parquet":
            out.parquet(str(tmp_dir))
        else:
            sep = "\t" if target.path.suffix.lower() == ".tsv" else separator
            out.options(header=True, sep=sep, quote='"', escape='"', nullValue="",
                        ignoreLeadingWhiteSpace=False, ignoreTrailingWhiteSpace=False
                        ).csv(str(tmp_dir))
        moves = []
        for final, content in sidecars:
            tmp = temp_beside(final)
            temps.append(tmp)
            tmp.write_text(content, encoding="utf-8")
            moves.append((tmp, final))
        if target.path.exists() or target.path.is_symlink():
            old = _beside(target.path)
            os.replace(target.path, old)
        os.replace(tmp_dir, target.path)
        for tmp, final in moves:
            os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        for p in temps:
            p.unlink(missing_ok=True)
        if old is not None:  # put the previous release back
            if target.path.is_dir():
                shutil.rmtree(target.path, ignore_errors=True)
            os.replace(old, target.path)
            old = None
        for f in created:
            try:
                f.rmdir()
            except OSError:
                break
        raise
    finally:
        if old is not None:
            _remove(old)


def _beside(path: Path) -> Path:
    """A fresh name next to ``path`` (nothing is created)."""
    while True:
        p = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        if not p.exists():
            return p


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
