"""Flags shared by the subcommands."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from starmin.model_params import DISTANCES, L_KINDS


class Parser(argparse.ArgumentParser):
    """argparse with the CLI's error form: one line ``starmin: <problem>: see ... --help``,
    exit status 2 (no usage block)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"starmin: {message}: see '{self.prog} --help'\n")


LIST_FLAGS = ("--qi", "--sensitive", "--identifiers")
"""The flags that take one comma-separated list of columns."""


def unrecognized(args: list[str], extra: list[str]) -> str:
    """The message for arguments no flag takes (``extra``, in the order of ``args``, the
    command line after ``starmin``). Where they follow the value of a flag that takes a
    comma-separated list (``--qi age zip``), it says how to write the list; else it names
    them, as argparse does."""
    words = ", ".join(extra)
    if extra and extra[0] in args:
        i = args.index(extra[0])
        run = []
        for a in args[i:]:  # the extras in a row from the first, none a flag
            if a not in extra or a.startswith("-"):
                break
            run.append(a)
        flag, value = (args[i - 2], args[i - 1]) if i >= 2 else ("", "")
        if i >= 1 and args[i - 1].startswith("--") and "=" in args[i - 1]:
            flag, value = args[i - 1].split("=", 1)
        if run and flag in LIST_FLAGS and not value.startswith("-"):
            joined = ",".join([value, *run])
            return (f"unrecognized arguments: {words}: {flag} takes one comma-separated list "
                    f"of columns, without spaces: {flag} {joined}")
    return f"unrecognized arguments: {words}"


def add_table_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="CSV (separator sniffed) or Parquet file, or sample:NAME "
                   "for a bundled sample (sample:census, sample:liang-yuan-table1, ...)")
    p.add_argument("--qi", help="quasi-identifier columns, comma-separated "
                   "(default for samples: the sample's QIs)")
    p.add_argument("--sensitive", help="sensitive column(s), comma-separated")
    p.add_argument("--identifiers", help="identifier columns to drop, comma-separated")


def add_engine_arg(p: argparse.ArgumentParser, does: str) -> None:
    """``--engine local|spark`` (docs/engines.md); ``does`` says what the engine does."""
    p.add_argument("--engine", default="local", metavar="{local,spark}",
                   help=f"what {does}: local (polars, the default) or spark (PySpark: "
                   'pip install "starmin[spark]"; Java 17; the active or a new local Spark '
                   "session; the release is a folder of part files)")


def add_model_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("privacy model (combine several; all must hold)")
    g.add_argument("--k", type=whole, help="k-anonymity: every class has >= k rows")
    g.add_argument("--l", type=number, help="l-diversity (see --l-kind)")
    g.add_argument("--l-kind", default="frequency", choices=L_KINDS,
                   help="frequency (default; the papers' form: each sensitive value at most "
                   "1/l of its class), distinct, entropy, or recursive (c,l)")
    g.add_argument("--c", type=number, help="c of recursive (c,l)-diversity")
    g.add_argument("--t", type=number, help="t-closeness: EMD of every class to the table "
                   "<= t (0 <= t <= 1)")
    g.add_argument("--distance", default="equal", choices=DISTANCES,
                   help="t-closeness ground distance (default equal)")
    g.add_argument("--sa-hierarchy", help="hierarchy of the sensitive values (ARX CSV) for "
                   "--distance hierarchical")
    g.add_argument("--distance-matrix", help="square CSV metric for --distance matrix")
    g.add_argument("--p", type=whole, help="p-sensitive k-anonymity (with --k): "
                   ">= p distinct sensitive values per class")


def add_hierarchy_args(p: argparse.ArgumentParser, generalize: bool = True) -> None:
    """``--hierarchy COL=FILE`` (repeatable) and, with ``generalize``, ``--generalize``."""
    g = p.add_argument_group("generalization hierarchies (docs/hierarchies.md)")
    g.add_argument("--hierarchy", type=column_file, action="append", metavar="COL=FILE",
                   help="ARX hierarchy CSV for a QI column (repeatable): a released cell may "
                   "be the value, an ancestor in FILE, or *")
    if generalize:
        g.add_argument("--generalize", action="store_true",
                       help="give every QI column without --hierarchy its built-in hierarchy "
                       "(intervals for numbers, masking for fixed-width codes, value -> * "
                       "otherwise; see 'starmin hierarchy')")


def hierarchy_files(ns: argparse.Namespace) -> dict[str, str] | None:
    """The ``--hierarchy`` flags as a mapping column -> file (``None`` when none)."""
    pairs = getattr(ns, "hierarchy", None) or []
    out: dict[str, str] = {}
    for column, path in pairs:
        if column in out:
            from starmin.errors import InvalidInput

            raise InvalidInput(f"--hierarchy is given twice for column {column!r}: give one "
                               "file per column")
        out[column] = path
    return out or None


def column_file(text: str) -> tuple[str, str]:
    """``COL=FILE`` -> ``(COL, FILE)``."""
    column, eq, path = text.partition("=")
    if not eq or not column.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"expected COL=FILE (e.g. age=age_hierarchy.csv), got "
                                         f"{text!r}")
    return column.strip(), path.strip()


def model_params(ns: argparse.Namespace) -> dict[str, Any]:
    return {"k": ns.k, "l": ns.l, "l_kind": ns.l_kind, "c": ns.c, "t": ns.t,
            "distance": ns.distance, "sa_hierarchy": ns.sa_hierarchy,
            "distance_matrix": ns.distance_matrix, "p": ns.p}


def whole(text: str) -> int:
    """A whole number (its range is the model's to check, so the message is the same as
    through the Python API)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def number(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    return int(v) if v.is_integer() else v
