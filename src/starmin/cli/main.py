"""``starmin``: anonymize, verify, info, methods."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from starmin.cli.args import add_model_args, add_table_args, model_params
from starmin.errors import InvalidInput, StarminError, VerificationFailed

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def _methods_text() -> str:
    from starmin.algorithms.registry import algorithms

    lines = ["methods (--method NAME; 'auto' picks the best that supports the instance, "
             "'exact' the first exact one):"]
    pad = " " * 22
    for a in algorithms().values():
        text = f"{a.guarantee.kind}: {a.guarantee.statement}"
        if a.guarantee.reference:
            text += f" [{a.guarantee.reference}]"
        wrapped = textwrap.wrap(text, width=96, initial_indent=f"  {a.name:<20}",
                                subsequent_indent=pad)
        lines.extend(wrapped)
    return "\n".join(lines)


_METHODS = "\0methods"
"""Stands for the methods list in an epilog: filled in only when that help is printed, so
parsing loads no algorithm (nor its solver libraries)."""


class _MethodsHelp(argparse.RawDescriptionHelpFormatter):
    def add_text(self, text: str | None) -> None:
        super().add_text(_methods_text() if text == _METHODS else text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="starmin", description="Release microdata under k-anonymity, l-diversity, "
        "t-closeness or p-sensitivity with the fewest suppressed cells, verified "
        "independently.")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("anonymize", help="release a table under a privacy model",
                       epilog=_METHODS, formatter_class=_MethodsHelp)
    add_table_args(a)
    add_model_args(a)
    a.add_argument("--method", default="auto", help="algorithm (see below; default auto)")
    a.add_argument("--seed", type=int, default=0, help="seed for every random choice")
    a.add_argument("-o", "--output", help="release file (.csv or .parquet); the report goes "
                   "to OUTPUT.report.json (default: out/<input>.anon.csv)")

    v = sub.add_parser("verify", help="check a (released) table: exit 0 if every model "
                       "holds, 1 if one fails, 2 on bad input")
    add_table_args(v)
    add_model_args(v)
    v.add_argument("--json", action="store_true", help="print the full verdict as JSON")

    i = sub.add_parser("info", help="n, m, t_in, cardinalities and lower bounds")
    add_table_args(i)
    i.add_argument("--k", type=int, action="append",
                   help="k for the k-anonymity lower bounds (repeatable; default 2, 5, 10)")
    i.add_argument("--t", type=float, action="append",
                   help="t for the t-closeness lower bounds, equal distance "
                        "(repeatable; needs --sensitive; default: none)")

    sub.add_parser("methods", help="list the algorithms and their guarantees")
    return parser


def _progress(quiet: bool) -> Any:
    start = time.perf_counter()

    def say(msg: str) -> None:
        if not quiet:
            print(f"[{time.perf_counter() - start:7.2f}s] {msg}", file=sys.stderr, flush=True)

    return say


def _defaults(ns: argparse.Namespace) -> None:
    """Fill --qi / --sensitive from a bundled sample's defaults."""
    if not str(ns.input).startswith("sample:"):
        if not ns.qi:
            raise StarminError("--qi is required: name the quasi-identifier columns")
        return
    from starmin import datasets

    name = str(ns.input).removeprefix("sample:")
    if not ns.qi:
        ns.qi = ",".join(datasets.default_qi(name))
    if ns.sensitive is None and getattr(ns, "k", None) is not None and ns.l is None \
            and ns.t is None and ns.p is None:
        return
    if ns.sensitive is None:
        ns.sensitive = ",".join(datasets.default_sensitive(name)) or None


def _default_output(source: str) -> Path:
    stem = source.removeprefix("sample:") if source.startswith("sample:") else Path(source).stem
    return Path("out") / f"{stem}.anon.csv"


def cmd_anonymize(ns: argparse.Namespace) -> int:
    from starmin.api import anonymize
    from starmin.io.tables import sniff_separator, write_json, write_table
    from starmin.report.text import summary

    say = _progress(ns.quiet)
    out = Path(ns.output) if ns.output else _default_output(str(ns.input))
    src = str(ns.input)
    _never_overwrite(src, out)  # before any work: the input is never modified
    release = anonymize(src, ns.qi, ns.sensitive, identifiers=ns.identifiers,
                        method=ns.method, seed=ns.seed, progress=say, **model_params(ns))
    release.report["input"]["source"] = src
    sep = sniff_separator(Path(src)) if Path(src).suffix.lower() == ".csv" else ","
    write_table(release.table, out, separator=sep)
    write_json(release.report, f"{out}.report.json")
    print(summary(release.report, written=str(out)))
    return EXIT_OK


def _never_overwrite(src: str, out: Path) -> None:
    """Refuse an output (release or report) that is the input file itself."""
    if src.startswith("sample:"):
        return
    inp = Path(src).resolve()
    for target in (out, Path(f"{out}.report.json")):
        if target.resolve() == inp or (target.exists() and inp.exists()
                                       and os.path.samefile(target, inp)):
            raise InvalidInput(f"the output {target} is the input file {src}: choose another "
                               "-o path (starmin never modifies its input)")


def cmd_verify(ns: argparse.Namespace) -> int:
    if "numpy" not in sys.modules:  # a fresh process (a caller's environment is left alone)
        # the verifier does no dense linear algebra: OpenBLAS's threads would only add start-up
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from starmin.model_params import combine, models_from_params
    from starmin.verify import verify

    models = models_from_params(**model_params(ns))
    if not models:
        raise StarminError("no privacy model given: add e.g. --k 5, --l 3 or --t 0.2")

    sens = [c for c in (ns.sensitive or "").split(",") if c]
    # a file goes to the verifier's own reader (CSV as text: "02138" and "2138" differ, as an
    # attacker reads them); only the bundled samples are loaded here
    source = str(ns.input)
    table: Any = source
    if source.startswith("sample:"):
        from starmin.io.tables import read_table

        table = read_table(source)
    verdict = verify(table, ns.qi.split(","), sens, [combine(models)])
    d = verdict.as_dict()
    print(json.dumps(d, indent=2, default=str) if ns.json else verdict_text(d))
    return EXIT_OK if verdict.passed else EXIT_FAILED


def verdict_text(d: dict[str, Any]) -> str:
    lines = [f"rows {d.get('n')}, classes {d.get('classes')}, stars {d.get('stars')}, "
             f"suppressed records {d.get('suppressed_records')}"]
    for m in d.get("models", []):
        mark = "PASS" if m.get("passed") else "FAIL"
        lines.append(f"{mark} {m.get('name')}: worst {m.get('measure_name')} = "
                     f"{m.get('worst')}; violating classes: {m.get('violating_classes', 0)}")
    lines.append("verdict: " + ("every model holds" if d.get("passed") else "FAILED"))
    return "\n".join(lines)


def cmd_info(ns: argparse.Namespace) -> int:
    from starmin.algorithms.bounds import k_anonymity_lower_bounds
    from starmin.algorithms.t_closeness_bound import t_closeness_lower_bounds
    from starmin.data.schema import Schema
    from starmin.engines.local import LocalEngine
    from starmin.io.tables import read_table
    from starmin.models.t_closeness import TCloseness

    say = _progress(ns.quiet)
    t_models = [(t, TCloseness(t)) for t in ns.t or []]  # bad t: an error before any work
    if t_models and not ns.sensitive:
        raise InvalidInput("--t needs a sensitive column: add --sensitive COLUMN")
    rt = LocalEngine().to_row_types(read_table(str(ns.input)),
                                    Schema.of(ns.qi, ns.sensitive)).row_types
    print(f"n = {rt.n} rows, m = {rt.m} QIs, t_in = {rt.t_in} row types")
    for c, card in zip(rt.qi, rt.cardinalities, strict=True):
        print(f"  {c:<24} {card} values")
    for s, dom in zip(rt.sensitive, rt.sensitive_domains, strict=True):
        print(f"  {s:<24} {len(dom)} sensitive values")
    for k in ns.k or [2, 5, 10]:
        if k > rt.n:
            print(f"k = {k}: infeasible (k > n)")
            continue
        b = k_anonymity_lower_bounds(rt, k, progress=say)
        parts = ", ".join(f"{name} {v}" for name, v in b.items() if name != "best")
        print(f"k = {k}: optimum >= {b['best']} stars ({parts})")
    for t, model in t_models:
        b = t_closeness_lower_bounds(rt, model, progress=say)
        parts = ", ".join(f"{name} {v}" for name, v in b.items())
        print(f"t = {t} (equal distance): optimum >= {max(b.values())} stars ({parts})")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    try:
        if ns.command == "methods":
            print(_methods_text())
            return EXIT_OK
        _defaults(ns)
        return {"anonymize": cmd_anonymize, "verify": cmd_verify, "info": cmd_info}[
            ns.command](ns)
    except BrokenPipeError:  # e.g. `starmin methods | head`
        sys.stderr.close()
        return EXIT_OK
    except VerificationFailed as exc:
        print(f"starmin: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except StarminError as exc:
        print(f"starmin: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
