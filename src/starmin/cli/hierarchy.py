"""``starmin hierarchy COL --from DATA``: write a column's built-in generalization hierarchy
as an ARX CSV for the user to edit (:mod:`starmin.transform.builtin`; docs/hierarchies.md).

The file covers exactly the column's values in the table, so it is the hierarchy
``anonymize --generalize`` builds for that column; edited, it goes back in with
``--hierarchy COL=FILE``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

EXIT_OK = 0


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    h = sub.add_parser("hierarchy", help="write a QI column's built-in hierarchy as an ARX "
                       "CSV to edit (then pass it with --hierarchy COL=FILE)", parents=parents)
    h.add_argument("column", help="the column")
    h.add_argument("--from", dest="input", required=True, metavar="DATA",
                   help="the table (CSV, Parquet or sample:NAME) whose values it covers")
    h.add_argument("--kind", default="auto", choices=("auto", "intervals", "mask", "flat"),
                   help="auto (the default: intervals for numbers, mask for fixed-width codes "
                   "such as zips or dates as text, flat otherwise), or one of them")
    h.add_argument("-o", "--output", help="file to write (default: standard output)")


def cmd_hierarchy(ns: argparse.Namespace) -> int:
    """Write the built-in hierarchy of ``ns.column`` over the values of ``ns.input``."""
    from starmin.data.schema import unknown_column
    from starmin.engines.encode import encode_column
    from starmin.errors import InvalidInput
    from starmin.io.output import write_text
    from starmin.io.tables import read_table
    from starmin.transform.builtin import builtin

    table = read_table(str(ns.input))
    if ns.column not in table.columns:
        raise unknown_column(ns.column, table.columns, ns.input)
    _, domain = encode_column(table[ns.column])  # the values, as the engine encodes them
    h = builtin(domain, ns.column, ns.kind)
    text = h.to_csv()
    if ns.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    out = Path(ns.output)
    if out.is_dir() or not out.parent.is_dir():
        raise InvalidInput(f"cannot write {out}: " + ("it is a folder" if out.is_dir() else
                           f"the folder {out.parent} does not exist") + "; give -o a file name")
    if not str(ns.input).startswith("sample:") and out.exists() \
            and os.path.samefile(out, ns.input):
        raise InvalidInput(f"the output {out} is the input table: choose another -o path")
    write_text(out, text)
    print(f"written {out} ({h.source}: {len(h)} values, {h.height - 1} levels above them); "
          f"edit it and pass --hierarchy {ns.column}={out}")
    return EXIT_OK
