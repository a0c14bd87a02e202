"""``starmin generate``: a planted instance with a known optimum (:mod:`starmin.datasets.planted`).

Parsing loads nothing but argparse: the family list in ``starmin generate --help`` is filled in
only when that help is printed.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from starmin.cli.args import whole

_FAMILIES = "\0families"


def _families_text() -> str:
    from starmin.datasets.planted import FAMILIES, PARAMETERS

    lines = ["families (--size is the source instance's n; defaults in parentheses):"]
    for f in FAMILIES.values():
        lines.append(f"  {f.name}: {f.title} [{f.reference}]")
        params = dict(f.planted)
        params.update({k: v for k, v in f.unplanted.items() if k not in params})
        plain = [k for k in f.unplanted if k not in f.planted]
        extra = ", ".join(f"--{k.replace('_', '-')} ({v})" + (" with --no-plant"
                                                              if k in plain else "")
                          for k, v in params.items())
        text = (f"size: {f.size}; model: {f.model}; optimum when planted: {f.optimum}"
                + (f"; parameters: {extra}" if extra else ""))
        lines.extend(textwrap.wrap(text, width=96, initial_indent="      ",
                                   subsequent_indent="      "))
    lines.append("parameters:")
    for name, meaning in PARAMETERS.items():
        lines.append(f"  --{name.replace('_', '-'):<10} {meaning}")
    return "\n".join(lines)


class _FamiliesHelp(argparse.RawDescriptionHelpFormatter):
    def add_text(self, text: str | None) -> None:
        super().add_text(_families_text() if text == _FAMILIES else text)


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the ``generate`` subcommand to ``sub`` (the subparsers of the main parser)."""
    g = sub.add_parser(
        "generate", help="write a planted instance with a known optimum (the papers' "
        "hardness reductions) and its optimum as JSON", epilog=_FAMILIES,
        formatter_class=_FamiliesHelp, parents=parents,
        description=textwrap.fill(
            "Write the table of a hardness reduction (CSV), OUT.optimum.json (family, "
            "parameters, seed, privacy model, QI and sensitive columns, the optimum in stars "
            "or 'unknown', the proof it rests on, the planted release) and, for a matrix "
            "ground distance, OUT.distance.csv; all files are written or none.", width=79))
    g.add_argument("family", help="the reduction (listed below)")
    g.add_argument("--size", type=whole, required=True,
                   help="size n of the source instance (vertices, |X|, ...; see below)")
    g.add_argument("--seed", type=whole, default=0, help="seed of the random instance "
                   "(default 0; same arguments, same bytes)")
    g.add_argument("--no-plant", dest="plant", action="store_false",
                   help="plant no solution: the optimum is then unknown (its proven bound is "
                   "recorded)")
    g.add_argument("-o", "--output", required=True,
                   help="table file (.csv or .tsv); OUT.optimum.json is written beside it")
    p = g.add_argument_group("family parameters (each family takes some; see below)")
    p.add_argument("--cross", type=whole)
    p.add_argument("--density", help="a decimal in [0, 1]")
    p.add_argument("--extra", type=whole)
    p.add_argument("--edges", type=whole)
    p.add_argument("--t", help="a finite decimal, e.g. 0.35")
    p.add_argument("--values", type=whole)
    p.add_argument("--k", type=whole)
    p.add_argument("--t-out", type=whole)
    p.add_argument("--model", help="k-anonymity (default), l-diversity or t-closeness")


def cmd_generate(ns: argparse.Namespace) -> int:
    from starmin.datasets.planted import PARAMETERS, generate, write

    params = {name: getattr(ns, name) for name in PARAMETERS}
    inst = generate(ns.family, ns.size, seed=ns.seed, plant=ns.plant, **params)
    written = write(inst, ns.output, flag="-o")
    opt = inst.optimum
    if opt.stars is not None:
        known = f"optimum {opt.stars} stars (exact)"
    elif opt.attributes is not None:
        known = (f"optimum {opt.attributes} whole QI columns (exact); stars unknown, "
                 f"<= {opt.upper_bound}")
    else:
        bound = (f" (>= {opt.lower_bound} stars)" if opt.lower_bound is not None
                 else (f" (>= {opt.attributes_lower_bound} whole QI columns)"
                       if opt.attributes_lower_bound is not None else ""))
        known = f"optimum unknown{bound}"
    print(f"wrote {', '.join(map(str, written))}: {inst.family}, {inst.n} rows, "
          f"{len(inst.qi)} QI columns; {known}")
    print("release it with: starmin anonymize " + " ".join(
        [str(written[0]), *_quoted(inst.cli_flags(str(written[2]) if len(written) > 2
                                                  else None))]))
    return 0


def _quoted(flags: list[str]) -> list[str]:
    import shlex

    return [shlex.quote(f) for f in flags]
