"""Write a planted instance: the table, its JSON, and (Theorem 7) the distance matrix.

``OUT`` (``.csv`` or ``.tsv``) gets the table, ``OUT.optimum.json`` the description and known
optimum, and for a matrix ground distance ``OUT.distance.csv`` the square CSV that
``--distance-matrix`` reads. Every file is written to a temporary name beside its target and
renamed into place only when all are complete: on any failure (Ctrl-C included) none of the
targets exists afterwards, and folders the call created are removed.
"""

from __future__ import annotations

import os
from pathlib import Path

from starmin.datasets.planted.instance import PlantedInstance
from starmin.errors import InvalidInput
from starmin.io.output import check_output, make_folders, temp_beside

JSON_SUFFIX = ".optimum.json"
MATRIX_SUFFIX = ".distance.csv"


def paths(out: str | os.PathLike[str]) -> tuple[Path, Path, Path]:
    """The table, JSON and distance-matrix paths for output ``out``."""
    return Path(out), Path(f"{out}{JSON_SUFFIX}"), Path(f"{out}{MATRIX_SUFFIX}")


def write(instance: PlantedInstance, out: str | os.PathLike[str], *,
          flag: str = "path") -> tuple[Path, ...]:
    """Write ``instance`` to ``out`` and its companions (see the module docstring); returns the
    paths written. ``flag`` names the option in error messages (``-o`` on the command line)."""
    table, meta, matrix = paths(out)
    target = check_output(table, flag=flag)
    if target.format != "csv":
        raise InvalidInput(f"cannot write {table}: a generated table is written as CSV; give "
                           f"{flag} a file name ending in .csv or .tsv")
    for p in (meta, matrix):
        if p.is_dir():
            raise InvalidInput(f"cannot write {p}: it is a folder; move it away or give "
                               f"{flag} another file name")
    separator = "\t" if table.suffix.lower() == ".tsv" else ","
    matrix_text = instance.matrix_text()
    files = [(table, instance.csv_text(separator)),
             (meta, instance.json_text(str(matrix) if matrix_text is not None else None))]
    if matrix_text is not None:
        files.append((matrix, matrix_text))
    _write_all(files)
    return tuple(p for p, _ in files)


def _write_all(files: list[tuple[Path, str]]) -> None:
    created = make_folders(files[0][0].parent)
    temps: list[Path] = []
    placed: list[Path] = []
    try:
        for path, text in files:
            tmp = temp_beside(path)
            temps.append(tmp)
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        for tmp, (path, _) in zip(temps, files, strict=True):
            os.replace(tmp, path)
            placed.append(path)
    except BaseException:
        for p in [*temps, *placed]:
            p.unlink(missing_ok=True)
        for folder in created:
            try:
                folder.rmdir()
            except OSError:
                break
        raise
