"""Where a release goes: checked before any work, written as an atomic pair.

:func:`check_output` runs before the table is read: an output path with an unknown suffix, a
path that is a folder, a folder that cannot be written, or a format that cannot hold the data
is refused with one :class:`~starmin.errors.InvalidInput` naming the problem and the fix.

:func:`write_pair` writes the release, its report (``OUT.report.json``) and, when given, the
report's HTML page (``OUT.report.html``) to temporary files beside their targets and renames
them into place only when all are complete. On any failure, ``KeyboardInterrupt`` included,
no target exists afterwards (files already renamed are removed again) and folders the call
created are removed. Files get the permissions the process umask gives (``0o666 & ~umask``),
like any file the user creates.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starmin.errors import InvalidInput

FORMATS = {".csv": "csv", ".tsv": "csv", ".parquet": "parquet", ".pq": "parquet"}
"""Output suffix -> format. ``.tsv`` is CSV with a tab separator."""

REPORT_SUFFIX = ".report.json"
HTML_SUFFIX = ".report.html"


@dataclass(frozen=True)
class OutputTarget:
    """A checked output: the release path, its report path, the file format and the path
    of the report's HTML page."""

    path: Path
    report: Path
    format: str
    html: Path | None = None

    @property
    def paths(self) -> tuple[Path, ...]:
        return (self.path, self.report) + ((self.html,) if self.html is not None else ())


def report_path(out: str | os.PathLike[str]) -> Path:
    """The report written beside a release: ``OUT.report.json``."""
    return Path(f"{out}{REPORT_SUFFIX}")


def html_path(out: str | os.PathLike[str]) -> Path:
    """The report's HTML page written beside a release: ``OUT.report.html``."""
    return Path(f"{out}{HTML_SUFFIX}")


def check_output(out: str | os.PathLike[str], *, flag: str = "-o",
                 replace_folder: bool = False) -> OutputTarget:
    """Check that a release can be written to ``out`` (and its report and HTML page beside it).

    ``flag`` names the option in the fix ("-o" for the CLI, "path" for the API). Nothing is
    created. Raises :class:`InvalidInput` for an unknown suffix, a path (or report path, or
    HTML path) that is a folder, and a folder that does not exist and cannot be created or
    cannot be written. With ``replace_folder`` (the Spark engine, which writes a release as a
    folder of part files) the path may be a previous such release: a folder holding Spark's
    ``_SUCCESS`` marker, replaced whole when the new release is complete.
    """
    path = Path(out)
    if path.is_dir() and replace_folder and not (path / "_SUCCESS").is_file():
        raise InvalidInput(f"cannot write the release to {path}: it is a folder that is not a "
                           f"previous release (no _SUCCESS file); give {flag} a new name")
    if path.is_dir() and not replace_folder:
        raise InvalidInput(f"cannot write the release to {path}: it is a folder; give {flag} a "
                           f"file name in it, e.g. {path / 'release.csv'}")
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        shown = f"suffix {path.suffix!r}" if path.suffix else "no suffix"
        raise InvalidInput(f"cannot write {path}: {shown} is not an output format; give {flag} a "
                           "file name ending in .csv, .tsv or .parquet")
    rep, page = report_path(path), html_path(path)
    for p in (rep, page):
        if p.is_dir():
            raise InvalidInput(f"cannot write the report to {p}: it is a folder; move it away "
                               f"or give {flag} another file name")
    _check_folder(path.parent if str(path.parent) else Path("."), flag)
    return OutputTarget(path, rep, FORMATS[suffix], page)


def _check_folder(folder: Path, flag: str) -> None:
    """The nearest existing ancestor of ``folder`` must be a folder we can create files in."""
    existing = folder
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        raise InvalidInput(f"cannot create the folder {folder}: {existing} is a file; choose "
                           f"another {flag} path")
    probe = existing / f".starmin-probe-{secrets.token_hex(6)}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InvalidInput(f"cannot write to the folder {existing} ({reason}); choose a "
                           f"{flag} path in a folder you can write") from None
    os.close(fd)
    probe.unlink()


def check_format(target: OutputTarget, schema: Mapping[str, Any],
                 flag: str = "-o") -> None:
    """Refuse a CSV target for columns CSV cannot hold (lists, structs, arrays, binary,
    objects). ``schema`` maps column names to polars data types."""
    if target.format != "csv":
        return
    bad = [(name, dtype) for name, dtype in schema.items() if not _flat(dtype)]
    if bad:
        name, dtype = bad[0]
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise InvalidInput(
            f"cannot write column {name!r} ({dtype}){more} to CSV {target.path}: CSV holds only "
            f"flat values; give {flag} a .parquet file name"
            + (f" or drop the column with --identifiers {name}" if flag == "-o" else ""))


def _flat(dtype: Any) -> bool:
    import polars as pl

    base = dtype.base_type() if hasattr(dtype, "base_type") else dtype
    return base not in (pl.List, pl.Array, pl.Struct, pl.Object, pl.Binary)


def write_pair(target: OutputTarget, write_release: Callable[[Path], None],
               report: Mapping[str, Any], html: str | None = None) -> None:
    """Write the release (through ``write_release(tmp_path)``), the report (its ``as_dict()``
    when it has one) and, if ``html`` is given, the HTML page to ``target.html``, all or
    none."""
    plain = report.as_dict() if hasattr(report, "as_dict") else dict(report)
    text = json.dumps(plain, indent=2, default=str) + "\n"
    sidecars = [(target.report, text)]
    if html is not None:
        if target.html is None:
            raise ValueError("an HTML page needs an OutputTarget with an html path")
        sidecars.append((target.html, html))
    created = make_folders(target.path.parent)
    temps: list[Path] = []
    placed: list[Path] = []
    try:
        tmp_release = temp_beside(target.path)
        temps.append(tmp_release)
        write_release(tmp_release)
        moves = [(tmp_release, target.path)]
        for final, content in sidecars:
            tmp = temp_beside(final)
            temps.append(tmp)
            tmp.write_text(content, encoding="utf-8")
            moves.append((tmp, final))
        for tmp, final in moves:
            os.replace(tmp, final)
            placed.append(final)
    except BaseException:
        for p in [*temps, *placed]:
            p.unlink(missing_ok=True)
        _remove_empty(created)
        raise


def write_table_pair(table: Any, target: OutputTarget, report: Mapping[str, Any],
                     separator: str = ",", flag: str = "-o", html: str | None = None) -> None:
    """Write a polars DataFrame and its report (and HTML page, if given) together (CSV or
    Parquet by ``target``)."""
    check_format(target, table.schema, flag)
    sep = "\t" if target.path.suffix.lower() == ".tsv" else separator

    def write(tmp: Path) -> None:
        if target.format == "parquet":
            table.write_parquet(tmp)
        else:
            table.write_csv(tmp, separator=sep)

    write_pair(target, write, report, html)


def write_text(path: Path, content: str) -> None:
    """Write one text file atomically: a temporary file beside it, renamed into place only
    when complete (on any failure nothing is left)."""
    tmp = temp_beside(path)
    try:
        tmp.write_text(content, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def temp_beside(path: Path) -> Path:
    """A new empty file next to ``path``, created with mode 0o666 less the umask."""
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue
        os.close(fd)
        return tmp


def make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those created, deepest first."""
    missing: list[Path] = []
    p = folder
    while str(p) and not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for m in reversed(missing):
        m.mkdir(exist_ok=True)
    return missing


def _remove_empty(folders: Iterable[Path]) -> None:
    for f in folders:
        try:
            f.rmdir()
        except OSError:
            return
