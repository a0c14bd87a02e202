"""``starmin``: anonymize, verify, info, methods, report, generate, ui, hierarchy."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from starmin.cli.args import (
    Parser,
    add_engine_arg,
    add_hierarchy_args,
    add_model_args,
    add_table_args,
    hierarchy_files,
    model_params,
    number,
    unrecognized,
    whole,
)
from starmin.cli.generate import add_parser as add_generate_parser
from starmin.cli.generate import cmd_generate
from starmin.cli.hierarchy import add_parser as add_hierarchy_parser
from starmin.cli.hierarchy import cmd_hierarchy
from starmin.errors import (
    Infeasible,
    InvalidInput,
    NoProtection,
    StarminError,
    VerificationFailed,
    command_line,
)
from starmin.model_params import L_KINDS

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def _methods_text() -> str:
    from starmin.algorithms.portfolio import BUDGET, NEAR
    from starmin.algorithms.registry import algorithms

    table = algorithms()
    members = [n for n, a in table.items() if a.auto is not None]
    auto = (f"auto (the default) is a portfolio: it runs the methods marked [auto] that support "
            f"the instance within a budget of {BUDGET:g} work units, estimated from the "
            "table's size (row types, QI columns, sensitive values) and the model, never "
            "from a clock, so the release is the same under any load. An exact method that "
            "fits the budget runs first and, if it succeeds, alone (its release is optimal); "
            "the others run cheapest first while their estimate fits what is left (the "
            f"first always runs), until a release is proven within {NEAR:.0%} of the "
            "optimum by a run's lower bound. The release with the fewest stars wins; ties "
            "go to the stronger guarantee (exact, fpt, ratio, bound, heuristic), then to "
            "this list's order. The release keeps its method's name and guarantee; the "
            "report's \"portfolio\" lists each method with its stars, or why it was "
            "skipped (unsupported, over budget, not needed). 'exact' takes the first exact "
            "method that supports the instance. A method's options (listed after it) are "
            "given as --option NAME=VALUE; auto takes --option budget=UNITS.")
    lines = ["methods (--method NAME, auto or exact):"]
    lines.extend(textwrap.wrap(auto, width=96, initial_indent="  ", subsequent_indent="  "))
    width = max(20, *(len(n) + 1 for n in table))  # the longest name keeps a space
    pad = " " * (width + 2)
    for a in table.values():
        text = f"{a.guarantee.kind}: {a.guarantee.statement}"
        if a.guarantee.reference:
            text += f" [{a.guarantee.reference}]"
        if a.name in members:
            text += " [auto]"
        if a.options:
            text += f" options: {', '.join(a.options)}"
        wrapped = textwrap.wrap(text, width=96, initial_indent=f"  {a.name:<{width}}",
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
    parser = Parser(
        prog="starmin", description="Release microdata under k-anonymity, l-diversity, "
        "t-closeness or p-sensitivity with the fewest suppressed cells, verified "
        "independently.")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    # -q also after the subcommand (SUPPRESS: an absent flag there keeps the global value)
    quiet = Parser(add_help=False)
    quiet.add_argument("--quiet", "-q", action="store_true", default=argparse.SUPPRESS,
                       help="no progress output on stderr (results still go to stdout)")
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("anonymize", help="release a table under a privacy model",
                       epilog=_METHODS, formatter_class=_MethodsHelp, parents=[quiet])
    add_table_args(a)
    add_model_args(a)
    a.add_argument("--method", default="auto", help="algorithm (see below; default auto: "
                   "the portfolio of the methods marked [auto], fewest stars wins)")
    add_hierarchy_args(a)
    a.add_argument("--objective", default="stars", choices=("stars", "loss"),
                   help="what the method minimizes: stars (the default; with hierarchies each "
                   "star is then released as the most specific node its class shares) or loss "
                   "(Iyengar's loss over the hierarchies; methods that can: recode, "
                   "dgh-k-anonymity, dgh-p-sensitive, full-domain; auto picks among them)")
    a.add_argument("--seed", type=int, default=0, help="seed for every random choice")
    a.add_argument("--time-limit", type=float, metavar="SECONDS", help="wall-clock limit "
                   "for methods that honor one (milp; --method exact when it picks milp), on "
                   "the whole solve (column generation, rounding, branch and bound): stopped "
                   "early, the best release and its proven bound are reported, and the "
                   "report says the release depends on machine speed. Default: none "
                   "(results never depend on the clock)")
    a.add_argument("--option", action="append", metavar="NAME=VALUE", help="an option of "
                   "the named method (repeatable; 'starmin methods' lists each method's "
                   "options, docs/options.md what they do), e.g. --method merge-repair --option "
                   "start=distinct-levels; --method auto takes budget=UNITS only (work units, "
                   "default 8). VALUE is read as a number, true/false, none, a comma-separated "
                   "list, or else text; the report records the options")
    a.add_argument("--attributes", action="store_true", help="suppress whole QI columns "
                   "instead of cells: the fewest columns whose suppression satisfies the "
                   "model, exact (Meyerson & Williams Sec. 3.1); the report names them. "
                   "Takes no --method")
    a.add_argument("-o", "--output", help="release file (.csv, .tsv or .parquet); the report "
                   "goes to OUTPUT.report.json and its HTML page to OUTPUT.report.html; all "
                   "are written together, or none (default: out/<input>.anon.csv)")
    add_engine_arg(a, "reads the table, aggregates it, applies the plan and writes the release")

    v = sub.add_parser("verify", help="check a (released) table: exit 0 if every model "
                       "holds, 1 if one fails, 2 on bad input", parents=[quiet])
    add_table_args(v)
    add_model_args(v)
    v.add_argument("--json", action="store_true", help="print the full verdict as JSON")
    v.add_argument("--original", metavar="FILE", help="the table the release was made from "
                   "(same rows, same order): also check that every released QI cell is its "
                   "row's value, an ancestor in the column's --hierarchy, or *")
    add_hierarchy_args(v, generalize=False)
    add_engine_arg(v, "reads the table and counts its classes (spark also reads a folder of "
                   "part files)")

    i = sub.add_parser("info", help="n, m, t_in, cardinalities and lower bounds",
                       parents=[quiet])
    add_table_args(i)
    i.add_argument("--k", type=whole, action="append",
                   help="k for the k-anonymity lower bounds (repeatable; default 2, 5, 10)")
    i.add_argument("--t", type=number, action="append",
                   help="t for the t-closeness lower bounds, equal distance "
                        "(repeatable; needs --sensitive; default: none). Its charge LP "
                        "runs to 1.6 million nonzeros here, beyond the reports' 400,000: "
                        "a higher bound on large tables, for more time")
    i.add_argument("--l", type=number, action="append",
                   help="l for the l-diversity lower bounds (repeatable; needs --sensitive; "
                        "default: none)")
    i.add_argument("--l-kind", default="frequency", choices=L_KINDS,
                   help="the l-diversity of --l: frequency (default), distinct, entropy or "
                        "recursive (c,l)")
    i.add_argument("--c", type=number, help="c of recursive (c,l)-diversity for --l")
    add_hierarchy_args(i)
    add_engine_arg(i, "reads and aggregates the table")


    sub.add_parser("methods", help="list the algorithms and their guarantees", parents=[quiet])

    r = sub.add_parser("report", help="render a release's report (OUT.report.json) as a "
                       "self-contained HTML page", parents=[quiet])
    r.add_argument("report", help="the OUT.report.json that anonymize wrote beside a release")
    r.add_argument("-o", "--output", help="HTML file to write (default: the report's path "
                   "with .json replaced by .html, i.e. OUT.report.html)")
    add_generate_parser(sub, [quiet])

    u = sub.add_parser("ui", help="the local web interface: open a table, set column roles "
                       "and the model, run with live progress, read the report (served on "
                       "127.0.0.1 only)", parents=[quiet])
    u.add_argument("--port", type=whole, default=8765,
                   help="port to listen on (default 8765; 0: any free port)")
    u.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only); any "
                   "other address is reachable over the network in plain HTTP and prints a "
                   "warning")
    u.add_argument("--max-upload-mb", type=number, default=200,
                   help="largest file the page may upload, in MB (default 200); a larger "
                   "file is opened by its path instead")
    u.add_argument("--workdir", help="folder for uploads and releases, kept afterwards "
                   "(default: a new temporary folder, removed when the server stops)")
    u.add_argument("--open", action="store_true", help="open the page in the default "
                   "browser")
    add_hierarchy_parser(sub, [quiet])
    return parser


def _progress(quiet: bool) -> Any:
    """The progress printer (nothing with ``quiet``); each call also ends the run as
    interrupted when a signal arrived whose ``KeyboardInterrupt`` was swallowed on the way
    (:func:`_raise_if_signalled`)."""
    start = time.perf_counter()

    def say(msg: str) -> None:
        _raise_if_signalled()
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
    uses_sensitive = any(getattr(ns, a, None) is not None for a in ("l", "t", "p"))
    if ns.sensitive is None and getattr(ns, "k", None) is not None and not uses_sensitive:
        return  # k alone: the sample's sensitive column is not needed
    if ns.sensitive is None:
        ns.sensitive = ",".join(datasets.default_sensitive(name)) or None


def _default_output(source: str) -> Path:
    stem = source.removeprefix("sample:") if source.startswith("sample:") else Path(source).stem
    return Path("out") / f"{stem}.anon.csv"


def _one_blas_thread() -> None:
    """Keep OpenBLAS to one thread unless ``OPENBLAS_NUM_THREADS`` says otherwise, in a fresh
    process only (before numpy loads; a caller's numpy is left alone). No command does dense
    linear algebra (the LP solvers are SciPy's HiGHS and OR-Tools, which do not use OpenBLAS):
    the thread pool ``import numpy`` starts would only cost CPU (~0.05 s on 2 cores)."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _method_options(ns: argparse.Namespace) -> dict[str, Any]:
    """The ``--option NAME=VALUE`` pairs as a dict, checked before any work
    (:mod:`starmin.method_options`); a name given twice is refused."""
    from starmin.method_options import check_options, parse_option

    options: dict[str, Any] = {}
    for text in ns.option or ():
        name, value = parse_option(text)
        if name in options:
            raise InvalidInput(f"--option {name} is given twice: keep one")
        options[name] = value
    return check_options(options, ns.method, ns.attributes)


def cmd_anonymize(ns: argparse.Namespace) -> int:
    _one_blas_thread()
    from starmin.api import check_objective
    from starmin.io.output import check_output

    check_objective(ns.objective)  # before any work
    options = _method_options(ns)
    say = _progress(ns.quiet)
    out = Path(ns.output) if ns.output else _default_output(str(ns.input))
    src = str(ns.input)
    # every check on the output comes before any work: the input is never modified, and a
    # release that cannot be written is refused before the table is read
    from starmin.engines.choose import get_engine

    engine = get_engine(ns.engine)  # an unknown engine or a missing PySpark: before any work
    target = check_output(out, replace_folder=engine.name == "spark")
    _never_overwrite(src, out)
    _check_passthrough_format(src, ns, target)
    from starmin.api import anonymize
    from starmin.cli.streams import solver_output_to_stderr
    from starmin.report.html import render
    from starmin.report.text import summary

    with solver_output_to_stderr():  # stdout holds the summary only
        release = anonymize(src, ns.qi, ns.sensitive, identifiers=ns.identifiers,
                            method=ns.method, seed=ns.seed, progress=say,
                            attributes=ns.attributes, hierarchies=hierarchy_files(ns),
                            generalize=ns.generalize, objective=ns.objective, engine=engine,
                            time_limit=ns.time_limit, options=options, **model_params(ns))
    report = release.report.with_source(src)
    say("drawing the report page's plots")
    page = render(report)
    _raise_if_signalled()  # the last moment before anything is written
    with engine.stages("write"):
        engine.write(release.written(target.format), target, report, release.separator,
                     html=page)
    say(f"written in {engine.stages.seconds['write']:.2f} s")
    print(summary(report, written=str(out)))
    return EXIT_OK


def cmd_ui(ns: argparse.Namespace) -> int:
    """Serve the local web interface until Ctrl-C (docs/ui.md)."""
    from starmin.ui.server import serve

    return serve(ns.host, ns.port, workdir=ns.workdir, max_upload_mb=ns.max_upload_mb,
                 open_browser=ns.open)


def cmd_report(ns: argparse.Namespace) -> int:
    """Re-render a report's HTML page from its JSON file (no table needed)."""
    from starmin.io.output import write_text
    from starmin.report.html import render
    from starmin.report.record import Report

    src = Path(ns.report)
    if not src.is_file():
        raise InvalidInput(f"cannot read the report {src}: "
                           + ("it is a folder" if src.is_dir() else "no such file")
                           + "; give the OUT.report.json written beside a release")
    out = Path(ns.output) if ns.output else _html_beside(src)
    if out.suffix.lower() not in (".html", ".htm"):
        raise InvalidInput(f"cannot write {out}: an HTML page needs a name ending in .html; "
                           "give -o a file name such as report.html")
    if out.is_dir():
        raise InvalidInput(f"cannot write the page to {out}: it is a folder; give -o a file "
                           "name in it")
    if out.exists() and os.path.samefile(out, src):
        raise InvalidInput(f"the output {out} is the report itself: choose another -o path")
    try:
        data = json.loads(src.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InvalidInput(f"{src} is not a text file: give the OUT.report.json written "
                           "beside a release") from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{src} is not JSON ({exc.msg} at line {exc.lineno}, column "
                           f"{exc.colno}): give the OUT.report.json written beside a "
                           "release") from None
    page = render(Report.from_dict(data))
    if not out.parent.is_dir():
        raise InvalidInput(f"cannot write {out}: the folder {out.parent} does not exist; "
                           "create it or choose another -o path")
    write_text(out, page)
    print(f"written {out}")
    return EXIT_OK


def _html_beside(report: Path) -> Path:
    """``OUT.report.json`` -> ``OUT.report.html`` (any other name: ``NAME.html``)."""
    name = report.name
    return report.with_name(name[:-5] + ".html" if name.lower().endswith(".json")
                            else name + ".html")


def _check_passthrough_format(src: str, ns: argparse.Namespace, target: Any) -> None:
    """A Parquet input's columns that pass through unchanged (not QI, not identifiers) must
    fit the output format: refuse nested columns to CSV before reading the table."""
    if src.startswith("sample:") or Path(src).suffix.lower() not in (".parquet", ".pq"):
        return  # CSV inputs hold flat values only
    import polars as pl

    from starmin.io.output import check_format

    try:
        schema = pl.read_parquet_schema(src)
    except Exception:  # unreadable: the reader says why, with the file name
        return
    skip = {c.strip() for part in (ns.qi, ns.identifiers) for c in (part or "").split(",")}
    check_format(target, {c: d for c, d in schema.items() if c not in skip})


def _never_overwrite(src: str, out: Path) -> None:
    """Refuse an output (release, report or its HTML page) that is the input file itself."""
    if src.startswith("sample:"):
        return
    inp = Path(src).resolve()
    for target in (out, Path(f"{out}.report.json"), Path(f"{out}.report.html")):
        if target.resolve() == inp or (target.exists() and inp.exists()
                                       and os.path.samefile(target, inp)):
            raise InvalidInput(f"the output {target} is the input file {src}: choose another "
                               "-o path (starmin never modifies its input)")


def cmd_verify(ns: argparse.Namespace) -> int:
    _one_blas_thread()
    from starmin.verification import verify

    # a file goes to the verifier's own reader (CSV as text: "02138" and "2138" differ, as an
    # attacker reads them); only the bundled samples are loaded here
    source = str(ns.input)
    if ns.engine != "local":  # the verifier's own Spark reader (a file or a folder of parts)
        table: Any = _spark_table(ns)
    elif source.startswith("sample:"):
        from starmin.io.tables import read_table

        table = read_table(source)
    else:
        table = source
    original: Any = ns.original
    if original is not None and str(original).startswith("sample:"):
        from starmin.io.tables import read_table

        original = read_table(original)
    verdict = verify(table, ns.qi, ns.sensitive, original=original,
                     hierarchies=hierarchy_files(ns), **model_params(ns))
    d = verdict.as_dict()
    print(json.dumps(d, indent=2, default=str) if ns.json else verdict_text(d))
    return EXIT_OK if verdict.passed else EXIT_FAILED


def _spark_table(ns: argparse.Namespace) -> Any:
    """``starmin verify --engine spark``: the release read by the verifier's Spark reader
    (:func:`starmin.verifier.spark.read`) on the engine's session."""
    from starmin.data.schema import column_names
    from starmin.engines.choose import get_engine

    engine: Any = get_engine(ns.engine)  # the message for an unknown engine or no PySpark
    if str(ns.input).startswith("sample:"):
        return engine.read(str(ns.input), None)
    from starmin.verifier.spark import read

    return read(engine.spark, ns.input, column_names(ns.sensitive, "sensitive"),
                column_names(ns.qi, "qi"))


def verdict_text(d: dict[str, Any]) -> str:
    lines = [f"rows {d.get('n')}, classes {d.get('classes')}, stars {d.get('stars')}, "
             f"suppressed records {d.get('suppressed_records')}"]
    for m in d.get("models", []):
        mark = "PASS" if m.get("passed") else "FAIL"
        lines.append(f"{mark} {m.get('name')}: worst {m.get('measure_name')} = "
                     f"{m.get('worst')}; violating classes: {m.get('violating_classes', 0)}")
    cells = d.get("cells")
    if cells is not None:
        against = ", ".join(cells.get("hierarchies") or []) or "none"
        lines.append(f"{'PASS' if cells.get('passed') else 'FAIL'} cells: each released QI cell "
                     f"is its value, an ancestor or * (hierarchies: {against}); "
                     f"{cells.get('generalized_cells')} generalized, "
                     f"{cells.get('violating_cells')} violating")
        for e in cells.get("examples", []):
            lines.append(f"  row {e.get('row')}, {e.get('column')}: {e.get('original')!r} "
                         f"released as {e.get('released')!r}")
    lines.append("verdict: " + ("every model holds" if d.get("passed") else "FAILED"))
    return "\n".join(lines)


def cmd_info(ns: argparse.Namespace) -> int:
    from starmin import aggregate
    from starmin.algorithms.bounds import k_anonymity_lower_bounds
    from starmin.algorithms.l_diversity_bound import diversity_lower_bounds
    from starmin.algorithms.t_closeness_bound import t_class_floor, t_closeness_lower_bounds
    from starmin.api import charge_bounds
    from starmin.cli.streams import solver_output_to_stderr
    from starmin.data.schema import Schema
    from starmin.model_params import the_model
    from starmin.models import KAnonymity, TCloseness
    from starmin.models.apply import check_feasible, protects_nothing

    say = _progress(ns.quiet)
    nothing = "; every class of this table satisfies it, even one of a single row: it asks nothing"
    t_models = [(t, TCloseness(t)) for t in ns.t or []]  # bad k, t or l: an error before work
    for k in ns.k or []:
        KAnonymity(k)
    if t_models and not ns.sensitive:
        raise InvalidInput("--t needs a sensitive column: add --sensitive COLUMN")
    if ns.l and not ns.sensitive:
        raise InvalidInput("--l needs a sensitive column: add --sensitive COLUMN")
    schema = Schema.of(ns.qi, ns.sensitive)
    l_models = [(l, the_model(None, {"l": l, "l_kind": ns.l_kind, "c": ns.c},
                              schema.sensitive)) for l in ns.l or []]
    rt = aggregate(str(ns.input), schema.qi, schema.sensitive, engine=ns.engine,
                   hierarchies=hierarchy_files(ns), generalize=ns.generalize)
    print(f"n = {rt.n} rows, m = {rt.m} QIs, t_in = {rt.t_in} row types")
    for j, (c, card) in enumerate(zip(rt.qi, rt.cardinalities, strict=True)):
        line = f"  {c:<24} {card} values"
        if rt.hierarchies is not None and not rt.hierarchies[j].is_flat:
            hc = rt.hierarchies[j]
            line += (f"; hierarchy {hc.source}: height {hc.height}, {len(hc.labels)} groups "
                     f"over {hc.domain} values")
        print(line)
    for s, dom in zip(rt.sensitive, rt.sensitive_domains, strict=True):
        print(f"  {s:<24} {len(dom)} sensitive values")
    for k in ns.k or [2, 5, 10]:
        if k > rt.n:
            print(f"k = {k}: infeasible (k > n)")
            continue
        with solver_output_to_stderr():  # stdout holds the results only
            b = k_anonymity_lower_bounds(rt, k, progress=say)
            b.pop("best")
            b.update(charge_bounds(rt, KAnonymity(k), say))  # the report's, within its limits
        parts = ", ".join(f"{name} {v}" for name, v in b.items())
        print(f"k = {k}: optimum >= {max(b.values())} stars ({parts})"
              + (nothing if protects_nothing(KAnonymity(k), rt) else ""))
    for t, model in t_models:
        with solver_output_to_stderr():
            b = t_closeness_lower_bounds(rt, model, large_lp=True, progress=say)
            floor = t_class_floor(rt, model)
        parts = ", ".join(f"{name} {v}" for name, v in b.items())
        print(f"t = {t} (equal distance): optimum >= {max(b.values())} stars ({parts}); "
              f"every t-close class holds >= {floor} row{'' if floor == 1 else 's'}"
              + (nothing if protects_nothing(model, rt) else ""))
    for l, lm in l_models:
        try:
            check_feasible(lm, rt)
        except Infeasible as exc:  # no release exists: no bound to give
            print(f"l = {l} ({lm.name}): infeasible ({exc})")
            continue
        with solver_output_to_stderr():  # as the report's (without the LP core)
            b = diversity_lower_bounds(rt, [lm], say)
        parts = ", ".join(f"{name} {v}" for name, v in b.items())
        print(f"l = {l} ({lm.name}): optimum >= {max(b.values(), default=0)} stars ({parts})"
              + (nothing if protects_nothing(lm, rt) else ""))
    return EXIT_OK


EXIT_INTERNAL, EXIT_INTERRUPTED = 3, 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 verification failed, 2 bad input,
    3 internal error, 130 interrupted). No traceback reaches the user unless
    ``STARMIN_DEBUG=1`` is set."""
    parser = build_parser()
    ns, extra = parser.parse_known_args(argv)
    if extra:  # one line naming them, and how a list of columns is written
        words = list(sys.argv[1:] if argv is None else argv)
        parser.exit(2, f"starmin: {unrecognized(words, extra)}: see 'starmin "
                    f"{ns.command} --help'\n")
    previous = _terminate_as_interrupt()
    try:
        if ns.command == "methods":
            print(_methods_text())
            return EXIT_OK
        with command_line(), warnings.catch_warnings():  # flags (--k 5), not k=5
            warnings.simplefilter("always", NoProtection)
            warnings.showwarning = _show_warning
            if ns.command not in ("report", "generate", "ui", "hierarchy"):  # no QI columns
                _defaults(ns)
            code = {"anonymize": cmd_anonymize, "verify": cmd_verify, "info": cmd_info,
                    "report": cmd_report, "generate": cmd_generate, "ui": cmd_ui,
                    "hierarchy": cmd_hierarchy}[ns.command](ns)
        if argv is None and _ends_at_once(ns):  # the `starmin` program, not a caller
            _exit_now(code)
        return code
    except BrokenPipeError:  # e.g. `starmin methods | head`
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM; temporary files were removed on the way
        return _interrupted(argv)
    except VerificationFailed as exc:
        return _fail(str(exc), EXIT_FAILED)
    except StarminError as exc:
        return _fail(str(exc), EXIT_BAD_INPUT)
    except MemoryError:
        return _fail("out of memory: try a smaller table, fewer QI columns, or a sensitive "
                     "column with fewer values", EXIT_BAD_INPUT)
    except OSError as exc:  # disk full, permissions changed mid-run, ...
        where = f" {exc.filename}" if exc.filename else ""
        return _fail(f"cannot read or write{where}: {exc.strerror or exc}; check the path, "
                     "its permissions and the free space", EXIT_BAD_INPUT)
    except Exception as exc:
        if _SIGNALLED:  # the interrupt surfaced through a library as another exception
            return _interrupted(argv)
        if os.environ.get("STARMIN_DEBUG"):
            raise
        return _fail(f"internal error ({type(exc).__name__}: {_one_line(exc)}); this is a bug: "
                     "please report it with the command line (STARMIN_DEBUG=1 shows the "
                     "traceback)", EXIT_INTERNAL)
    finally:
        _restore(previous)


def _ends_at_once(ns: argparse.Namespace) -> bool:
    """Whether the finished command may end the process without Python's shutdown
    (:func:`_exit_now`): ``verify``, and ``anonymize`` on the local engine, whose release,
    report and page are written, closed and renamed into place before it returns (the Spark
    engine's session is left to its own exit handlers)."""
    return ns.command == "verify" or (ns.command == "anonymize" and ns.engine == "local")


def _exit_now(code: int) -> None:
    """End the process with ``code`` once the output is flushed, skipping Python's shutdown:
    tearing down polars' and numpy's modules and freeing a large table object by object
    costs 0.1-0.2 s of CPU and wall time (as much as the verifier's checks). ``starmin
    verify`` has nothing else to finish: it writes no file, and no exit handler of its own;
    ``starmin anonymize`` (local engine) has written and closed every file it writes."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _interrupted(argv: Sequence[str] | None) -> int:
    """Report the interrupt; the ``starmin`` program then ends at once with exit 130. A
    ``KeyboardInterrupt`` that passed through native code (the solver) can leave CPython
    marked as interrupted, and it would then end the process by SIGINT (status -2) although
    the interrupt was handled here; nothing is left to clean up (temporary files were removed
    on the way)."""
    code = _fail("interrupted", EXIT_INTERRUPTED)
    if argv is None:
        _exit_now(code)
    return code


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
    """starmin's own warnings (:class:`~starmin.errors.NoProtection`) as one line
    ``starmin: warning: ...`` on stderr, also under ``--quiet``; others as Python shows them."""
    if issubclass(category, NoProtection):
        print(f"starmin: warning: {_one_line(message)}", file=sys.stderr, flush=True)
    else:
        _SHOW_WARNING(message, category, filename, lineno, file, line)


_SHOW_WARNING = warnings.showwarning


def _fail(message: str, code: int) -> int:
    print(f"starmin: {_one_line(message)}", file=sys.stderr, flush=True)
    return code


def _one_line(message: object) -> str:
    return " ".join(str(message).split())


_SIGNALLED: list[int] = []
"""The interrupting signal, once one arrived: a ``KeyboardInterrupt`` raised inside a
callback from native code (a solver, the table library) can reach :func:`main` as another
exception; the run still ends as interrupted (exit 130), not as an internal error."""


def _raise_if_signalled() -> None:
    """``KeyboardInterrupt`` when Ctrl-C or SIGTERM arrived: the handler's own
    ``KeyboardInterrupt`` can be swallowed when the signal lands in code that Python runs
    with exceptions ignored (a finalizer or a callback: "Exception ignored in ..."), and the
    run would otherwise go on and write its files."""
    if _SIGNALLED:
        raise KeyboardInterrupt


def _terminate_as_interrupt() -> Any:
    """SIGTERM ends a run like Ctrl-C (files cleaned, exit 130), and both are noted in
    :data:`_SIGNALLED`; returns the old handlers."""
    import signal

    def handler(signum: int, frame: Any) -> None:
        _SIGNALLED.append(signum)
        raise KeyboardInterrupt

    try:
        return [(sig, signal.signal(sig, handler)) for sig in (signal.SIGINT, signal.SIGTERM)]
    except ValueError:  # not the main thread (e.g. called from a worker): leave it alone
        return None


def _restore(previous: Any) -> None:
    import signal

    _SIGNALLED.clear()
    for sig, old in previous or ():
        signal.signal(sig, old)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
