"""The page's run form as a ``starmin anonymize`` command line.

A run in the interface *is* a run of the command line: :func:`command` turns the form (each
column's role, the model's fields as typed, the method, the seed, the output format) into
the ``starmin anonymize`` arguments, which :mod:`starmin.ui.runs` runs in a child process.
So the page gets the CLI's checks, its one-line messages (``--t 1.5 is out of range: ...``),
its progress lines and its files, byte for byte; and the page shows the command, so any run
can be repeated from a shell.

Fields are passed as typed, as ``--flag=VALUE`` (a value starting with ``-`` stays a value),
and the input comes after ``--``. An empty field is left out; the choices ``l_kind`` and
``distance`` are passed when they differ from the CLI's defaults, and the fields that only
one choice uses (``c``, ``sa_hierarchy``, ``distance_matrix``) only with that choice, as the
page shows them.

Generalization (docs/hierarchies.md): ``hierarchies`` maps quasi-identifier columns to
hierarchy files (ARX CSV), each passed as ``--hierarchy=COLUMN=FILE`` in the table's column
order; ``generalize`` (a ticked box) passes ``--generalize``, which gives every other
quasi-identifier its built-in hierarchy; ``objective`` other than ``stars`` passes
``--objective`` (``loss``: Iyengar's loss, by the methods that minimize it). A file for a
column that is not a quasi-identifier is an error: the page offers a file only for the columns
whose role is QI.

Method options (docs/index.md): the field ``options`` holds ``NAME=VALUE`` pairs separated by
spaces, each passed as ``--option=NAME=VALUE`` in the order typed (the CLI reads and checks
them, and the method names the options it takes).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from starmin.errors import InvalidInput

ROLES = ("qi", "sensitive", "identifier", "ignore")
"""A column's role: quasi-identifier (released, possibly ``*``), sensitive (released
unchanged, judged by the model), identifier (dropped), ignore (not in the model: released
unchanged, as every column the command line does not name)."""

FORMATS = ("csv", "tsv", "parquet")
"""Output formats: the release file's suffix."""

_FIELDS = ("k", "l", "t", "p")
_DEFAULT_CHOICE = {"l_kind": "frequency", "distance": "equal"}


@dataclass(frozen=True)
class Command:
    """A run's ``starmin anonymize`` arguments (``argv``, without the program name) and the
    same command as a person would type it (``text``)."""

    argv: tuple[str, ...]
    text: str


def _text(form: Mapping[str, object], key: str) -> str:
    value = form.get(key)
    if value is None:
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise InvalidInput(f"the form field {key!r} holds {value!r}: give text")
    return str(value).strip()


def roles_of(form: Mapping[str, object], columns: Sequence[str]) -> dict[str, list[str]]:
    """Columns by role, in the table's column order; an unknown role or column is an error."""
    roles = form.get("roles") or {}
    if not isinstance(roles, Mapping):
        raise InvalidInput("the form field 'roles' must map column names to roles")
    out: dict[str, list[str]] = {r: [] for r in ROLES}
    for name, role in roles.items():
        if name not in columns:
            raise InvalidInput(f"unknown column {name!r}: the columns are "
                               f"{', '.join(columns)}")
        if role not in ROLES:
            raise InvalidInput(f"unknown role {role!r} for column {name!r}: use one of "
                               f"{', '.join(ROLES)}")
    for c in columns:
        out[str(roles.get(c, "ignore"))].append(c)
    return out


def _ticked(form: Mapping[str, object], key: str) -> bool:
    value = form.get(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    return _text(form, key).lower() in ("1", "true", "on", "yes")


def hierarchy_flags(form: Mapping[str, object], roles: Mapping[str, Sequence[str]],
                    columns: Sequence[str]) -> list[str]:
    """``--hierarchy=COLUMN=FILE`` per quasi-identifier with a file (table order), then
    ``--generalize`` when ticked and ``--objective`` when not ``stars``."""
    given = form.get("hierarchies") or {}
    if not isinstance(given, Mapping):
        raise InvalidInput("the form field 'hierarchies' must map column names to files")
    files = {str(c): _text(given, c) for c in given}
    for c, path in files.items():
        if c not in columns:
            raise InvalidInput(f"unknown column {c!r} for a hierarchy: the columns are "
                               f"{', '.join(columns)}")
        if path and c not in roles["qi"]:
            raise InvalidInput(f"a hierarchy is given for {c!r}, which is not a "
                               "quasi-identifier: set its role to QI, or clear its file")
    flags = [f"--hierarchy={c}={files[c]}" for c in roles["qi"] if files.get(c)]
    if _ticked(form, "generalize"):
        flags.append("--generalize")
    objective = _text(form, "objective")
    if objective and objective != "stars":  # the CLI checks the choice
        flags.append(f"--objective={objective}")
    return flags


def release_name(label: str, fmt: str) -> str:
    """The release file's name: ``<input stem>.anon.<fmt>`` (``sample:census`` ->
    ``census.anon.csv``), with characters other than letters, digits, ``.``, ``_`` and ``-``
    replaced."""
    stem = label.removeprefix("sample:").replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".csv", ".tsv", ".txt", ".parquet", ".pq"):
        if stem.lower().endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._") or "release"
    return f"{stem}.anon.{fmt}"


def command(form: Mapping[str, object], source: str, columns: Sequence[str],
            output: str) -> Command:
    """The ``starmin anonymize`` arguments for ``form`` on the input ``source`` (a path or
    ``sample:NAME``) whose columns are ``columns``, writing the release to ``output``.

    The only check made here is the one the command line cannot make from these arguments:
    no quasi-identifier (the CLI would take a sample's default QIs silently) gets the CLI's
    message for a file without ``--qi``. Everything else is the CLI's to check."""
    roles = roles_of(form, columns)
    if not roles["qi"]:
        raise InvalidInput("--qi is required: name the quasi-identifier columns")
    args: list[str] = [f"--qi={','.join(roles['qi'])}"]
    if roles["sensitive"] or source.startswith("sample:"):
        # for a sample an explicit (maybe empty) --sensitive stops the CLI from filling in
        # the sample's default sensitive column: the page's roles are what is run
        args.append(f"--sensitive={','.join(roles['sensitive'])}")
    if roles["identifier"]:
        args.append(f"--identifiers={','.join(roles['identifier'])}")
    l_kind = _text(form, "l_kind") or _DEFAULT_CHOICE["l_kind"]
    distance = _text(form, "distance") or _DEFAULT_CHOICE["distance"]
    for name in _FIELDS:
        value = _text(form, name)
        if value:
            args.append(f"--{name}={value}")
        if name == "l":
            if l_kind != _DEFAULT_CHOICE["l_kind"]:
                args.append(f"--l-kind={l_kind}")
            if l_kind == "recursive" and _text(form, "c"):
                args.append(f"--c={_text(form, 'c')}")
        if name == "t":
            if distance != _DEFAULT_CHOICE["distance"]:
                args.append(f"--distance={distance}")
            if distance == "hierarchical" and _text(form, "sa_hierarchy"):
                args.append(f"--sa-hierarchy={_text(form, 'sa_hierarchy')}")
            if distance == "matrix" and _text(form, "distance_matrix"):
                args.append(f"--distance-matrix={_text(form, 'distance_matrix')}")
    args += hierarchy_flags(form, roles, columns)
    args.append(f"--method={_text(form, 'method') or 'auto'}")
    args += [f"--option={pair}" for pair in _text(form, "options").split()]
    args.append(f"--seed={_text(form, 'seed') or '0'}")
    argv = ("anonymize", *args, "-o", output, "--", source)
    shown = ["starmin", "anonymize", source]
    for a in args:
        flag, sep, value = a.partition("=")
        shown += [flag, value] if sep else [flag]
    shown += ["-o", output]
    return Command(argv, " ".join(shlex.quote(a) for a in shown))
