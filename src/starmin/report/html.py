"""The report as one self-contained HTML page (``OUT.report.html``).

:func:`render` turns a :class:`~starmin.report.record.Report` into a page that opens without
network: the style is inline, there is no script, the plots are inline SVG
(:mod:`starmin.report.charts`, hand-written SVG) and text uses the reader's local fonts; the page
holds no URL. Every string from the data (column names, values, the source path, model and
method names, reasons) is HTML-escaped.

The summary comes first: model, method and guarantee, stars against the proven lower bound as
a gap bar, the verifier's verdict. Then the plots, each with its numbers in a table below it:
class sizes, stars per QI column, rows by number of stars, each sensitive model's per-class
measure against its threshold, and each QI column's values before and after.

Same report, same bytes: the page leaves out the two things that differ between runs of the
same input, options and seed -- the creation time and the per-stage timings (both are in the
JSON report and the printed summary). The page is rendered from the report alone, so
``starmin report OUT.report.json`` gives the same bytes as the page written with the release.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from starmin.method_options import options_text
from starmin.report import charts
from starmin.report.record import Distributions, Report
from starmin.report.text import as_report

_CSS = """
:root{--ink:#1a202c;--mute:#4a5568;--line:#e2e8f0;--ok:#276749;--okbg:#f0fff4;--bad:#9b2c2c;
--badbg:#fff5f5;--lb:#2b6cb0;--gap:#d69e2e}
*{box-sizing:border-box}
body{margin:0 auto;max-width:980px;padding:24px 20px 48px;color:var(--ink);line-height:1.45;
font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif}
h1{font-size:1.5em;margin:0 0 4px}h2{font-size:1.2em;margin:32px 0 8px;
border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:1em;margin:20px 0 4px}
.sub{color:var(--mute);margin:0 0 16px;overflow-wrap:anywhere}
.verdict{border-radius:6px;padding:10px 14px;margin:12px 0;font-weight:600}
.verdict.ok{background:var(--okbg);color:var(--ok);border:1px solid #9ae6b4}
.verdict.bad{background:var(--badbg);color:var(--bad);border:1px solid #feb2b2}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:8px 0}
dl.facts dt{color:var(--mute)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.gapbar{display:flex;height:22px;border-radius:4px;overflow:hidden;background:var(--line);
margin:10px 0 4px}.gapbar .lb{background:var(--lb)}.gapbar .gap{background:var(--gap)}
.legend{display:flex;flex-wrap:wrap;gap:4px 18px;color:var(--mute);font-size:.9em}
.key{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px}
table{border-collapse:collapse;margin:6px 0;font-size:.9em}
th,td{border-bottom:1px solid var(--line);padding:3px 10px 3px 0;text-align:left;
vertical-align:top;overflow-wrap:anywhere}td.n,th.n{text-align:right;
font-variant-numeric:tabular-nums}
figure{margin:8px 0 4px}figure svg{width:100%;max-width:800px;height:auto;display:block}
details{margin:2px 0 12px}summary{cursor:pointer;color:var(--mute);font-size:.9em}
.note{color:var(--mute);font-size:.9em}
footer{margin-top:40px;color:var(--mute);font-size:.85em;border-top:1px solid var(--line);
padding-top:8px}
"""


def render(report: Report | Mapping[str, Any]) -> str:
    """The report as a self-contained HTML page (see the module docstring)."""
    r = as_report(report)
    title = f"starmin report: {r.inputs.source}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
        *_summary(r),
        *_plots(r),
        *_details(r),
        _footer(r),
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def _e(value: object) -> str:
    """Escaped text of any value (``None``: the missing value)."""
    return escape("(missing)" if value is None else str(value), quote=True)


def _n(value: int | float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.4g}"


# ---- summary ----------------------------------------------------------------------------------

def _summary(r: Report) -> list[str]:
    inp, g, loss, b = r.inputs, r.guarantee, r.loss, r.bounds
    changed = loss.stars + loss.generalized_cells
    unit = "cells not released as their value" if loss.generalized_cells else "stars"
    ok = r.verified
    verdict = ("Verified: the independent verifier re-checked every model on the released "
               "table" if ok else "NOT verified: the released table fails a model")
    guarantee = f"{g.kind}: {g.statement}" + (f" [{g.reference}]" if g.reference else "")
    out = [
        "<header>",
        "<h1>Release report</h1>",
        f'<p class="sub">{_e(inp.source)}: {_n(inp.n)} rows, {_n(inp.m)} QI columns, '
        f"{_n(inp.t_in)} row types</p>",
        "</header>",
        '<section id="summary">',
        f'<p class="verdict {"ok" if ok else "bad"}">{_e(verdict)}</p>',
        '<dl class="facts">',
        f"<dt>model</dt><dd>{_e(r.model)}</dd>",
        f"<dt>method</dt><dd>{_e(r.method)}</dd>",
        f"<dt>guarantee</dt><dd>{_e(guarantee)}</dd>",
        f"<dt>stars</dt><dd>{_n(loss.stars)} suppressed cells "
        f"({100 * loss.star_fraction:.2f}% of the QI cells)</dd>",
        *_generalized_fact(r),
        f"<dt>proven lower bound</dt><dd>the optimum has at least {_n(b.lower_bound)} "
        "stars" + (" (it also bounds the cells not released as their value)"
                   if loss.generalized_cells else "") + "</dd>",
        f"<dt>gap</dt><dd>{_gap_text(changed, b.lower_bound, b.gap_ratio, unit)}</dd>",
        f"<dt>records touched</dt><dd>{_n(loss.suppressed_records)} rows with a star, "
        f"{_n(loss.fully_suppressed_records)} fully suppressed, of {_n(inp.n)}</dd>",
        f"<dt>classes</dt><dd>{_n(r.classes.count)} (sizes {_n(r.classes.min_size)} to "
        f"{_n(r.classes.max_size)}, median {r.classes.median_size:g})</dd>",
        "</dl>",
        *_gap_bar(changed, b.lower_bound, unit),
        *_measures(r),
        "</section>",
    ]
    return out


def _generalized_fact(r: Report) -> list[str]:
    if r.hierarchies is None and not r.loss.generalized_cells:
        return []
    per = r.measures.generalized_per_column if r.measures is not None else {}
    cols = ", ".join(f"{c} {v:,}" for c, v in per.items() if v)
    return [f"<dt>generalized</dt><dd>{_n(r.loss.generalized_cells)} cells released as a "
            f"group of their hierarchy{_e(f' ({cols})' if cols else '')}</dd>"]


def _measures(r: Report) -> list[str]:
    """The loss measures as a table (docs/report.md defines each)."""
    ms = r.measures
    if ms is None:
        return []
    norm = ("" if ms.normalized_average_class_size is None else
            f"{ms.normalized_average_class_size:.4g} (n / (classes × k), k = {ms.k})")
    rows: list[tuple[object, ...]] = [
        ("stars (cells at the root)", ms.stars),
        ("generalized cells (at a group)", ms.generalized_cells),
        ("loss (Iyengar's LM; 0 = nothing lost, 1 = all suppressed)", f"{ms.loss:.4g}"),
        ("granularity (1 − loss)", f"{ms.granularity:.4g}"),
        ("precision (Sweeney's Prec; 1 = nothing generalized)", f"{ms.precision:.4g}"),
        ("discernibility (sum of squared class sizes)", ms.discernibility),
        ("average class size (n / classes)", f"{ms.average_class_size:.4g}"),
        *([("normalized average class size", norm)] if norm else []),
        ("KL-divergence (bits)", ms.kl_note or f"{ms.kl_divergence:.4g}"),
    ]
    rows += [(f"loss in {c}", f"{v:.4g}") for c, v in ms.loss_per_column.items()]
    return ["<h3>Information loss</h3>",
            *_table(["measure", "value"], rows, set(), label="the measures", open_=True)]


def _gap_text(stars: int, lb: int, ratio: float | None, unit: str = "stars") -> str:
    if stars == lb:
        return (f"none: the release is optimal (its {unit} equal the proven lower bound)")
    text = f"{_n(stars - lb)} {unit} above the bound"
    if ratio:
        text += f" (the release is within {ratio:.3f} × the optimum)"
    return text


def _gap_bar(stars: int, lb: int, unit: str = "stars") -> list[str]:
    """Stars (or changed cells) against the proven bound: the bound's share in blue, the gap
    in amber."""
    if stars <= 0:
        return ['<p class="note">No star: nothing was suppressed.</p>']
    lb_pct = 100 * min(lb, stars) / stars
    label = (f"proven lower bound {lb:,} of the release's {stars:,} {unit}; "
             f"gap {stars - lb:,}")
    return [
        f'<div class="gapbar" role="img" aria-label="{_e(label)}">'
        f'<span class="lb" style="width:{lb_pct:.2f}%"></span>'
        f'<span class="gap" style="width:{100 - lb_pct:.2f}%"></span></div>',
        '<div class="legend">'
        f'<span><span class="key" style="background:var(--lb)"></span>proven lower bound '
        f"{_n(lb)}</span>"
        f'<span><span class="key" style="background:var(--gap)"></span>gap '
        f"{_n(stars - lb)} ({100 - lb_pct:.2f}% of the {unit})</span>"
        f"<span>release: {_n(stars)} {unit}</span></div>",
    ]


# ---- plots ------------------------------------------------------------------------------------

def _plots(r: Report) -> list[str]:
    d = r.distributions
    out = ['<section id="plots">']
    if d is None:
        out += ["<h2>Distributions</h2>",
                '<p class="note">This report holds no distributions (it was written by a '
                "starmin before report version 2): run starmin anonymize again for the "
                "plots.</p>", "</section>"]
        return out
    out += _class_sizes(d)
    out += _stars_per_column(r)
    out += _records(r, d)
    out += _sensitive(d)
    out += _values(d)
    out.append("</section>")
    return out


def _figure(draw: str, *args: Any) -> list[str]:
    return ["<figure>", getattr(charts, draw)(*args).rstrip(), "</figure>"]


def _table(head: Sequence[str], rows: Sequence[Sequence[object]], numeric: set[int],
           label: str = "the numbers", open_: bool = False) -> list[str]:
    th = "".join(f'<th{" class=n" if i in numeric else ""}>{_e(h)}</th>'
                 for i, h in enumerate(head))
    body = ["<tr>" + "".join(
        f'<td{" class=n" if i in numeric else ""}>'
        f"{_n(c) if isinstance(c, int | float) and not isinstance(c, bool) else _e(c)}</td>"
        for i, c in enumerate(row)) + "</tr>" for row in rows]
    return [f"<details{' open' if open_ else ''}><summary>{_e(label)}</summary>",
            f"<table><thead><tr>{th}</tr></thead><tbody>", *body, "</tbody></table>",
            "</details>"]


def _class_sizes(d: Distributions) -> list[str]:
    h = d.class_sizes
    k = f" The model implies classes of at least k = {d.k} rows." if d.k > 1 else ""
    return ["<h2>Class sizes</h2>",
            f'<p class="note">Released equivalence classes (rows with equal released QI '
            f"values) per size.{k}</p>",
            *_figure("class_sizes", h, d.k),
            *_table(["class size", "classes"], list(zip(h.labels(), h.counts, strict=True)),
                    {1})]


def _stars_per_column(r: Report) -> list[str]:
    stars = list(r.stars_per_column.items())
    n = r.inputs.n
    rows = [(c, v, f"{100 * v / n:.2f}%" if n else "") for c, v in stars]
    return ["<h2>Stars per column</h2>",
            '<p class="note">Suppressed cells in each QI column.</p>',
            *_figure("stars_per_column", stars, n),
            *_table(["column", "stars", "of the rows"], rows, {1, 2})]


def _records(r: Report, d: Distributions) -> list[str]:
    counts = d.stars_per_record
    rows = [(str(i), c) for i, c in enumerate(counts)]
    return ["<h2>Records touched</h2>",
            f'<p class="note">Rows by the number of stars they hold: {_n(counts[0])} '
            f"untouched, {_n(r.loss.suppressed_records)} with a star, "
            f"{_n(r.loss.fully_suppressed_records)} with every QI cell suppressed.</p>",
            *_figure("stars_per_record", counts),
            *_table(["stars in the row", "rows"], rows, {1})]


def _sensitive(d: Distributions) -> list[str]:
    if not d.sensitive:
        return []
    out = ["<h2>Sensitive values per class</h2>",
           '<p class="note">Each model on the sensitive values: its measure for every '
           "released class against its threshold (the dashed line); a verified release has "
           "no class on the wrong side.</p>"]
    for i, s in enumerate(d.sensitive):
        side = "at least" if s.higher_is_better else "at most"
        thr = ("" if s.threshold is None else
               f" must be {side} {s.threshold_name or 'the threshold'} = {s.threshold:g}")
        worst = "" if s.worst is None else f"; worst class: {s.worst:.4g}"
        inf = f"; {_n(s.infinite)} classes at infinity" if s.infinite else ""
        out += [f"<h3>{_e(s.model)} on {_e(s.sensitive)}</h3>",
                f'<p class="note">{_e(s.measure_name)} per class{_e(thr)}{_e(worst)}'
                f"{_e(inf)}.</p>",
                *_figure("measure", s, f"m{i}"),
                *_table([s.measure_name, "classes"],
                        list(zip(s.histogram.labels(), s.histogram.counts, strict=True)),
                        {1})]
    return out


def _values(d: Distributions) -> list[str]:
    out = ["<h2>Values before and after</h2>",
           '<p class="note">Rows per value of each QI column in the input and in the '
           "release; a suppressed cell counts as *. Columns with many values show the most "
           "frequent ones and sum the rest as other.</p>"]
    for i, v in enumerate(d.columns):
        rows: list[tuple[object, ...]] = [
            (x, b, a) for x, b, a in zip(v.values, v.before, v.after, strict=True)]
        if v.other_before or v.other_after:
            rows.append((f"other ({v.distinct - len(v.values)} values)", v.other_before,
                         v.other_after))
        if v.generalized:
            rows.append(("a group (generalized)", 0, v.generalized))
        rows.append(("* (suppressed)", 0, v.stars))
        gen = f"; {_n(v.generalized)} released as a group" if v.generalized else ""
        out += [f"<h3>{_e(v.column)}</h3>",
                f'<p class="note">{_n(v.distinct)} distinct values in the input; '
                f"{_n(v.stars)} cells suppressed{gen}.</p>",
                *_figure("before_after", v, f"v{i}"),
                *_table(["value", "input rows", "released rows"], rows, {1, 2})]
    return out


# ---- the rest ---------------------------------------------------------------------------------

def _details(r: Report) -> list[str]:
    inp = r.inputs
    out = ['<section id="details">', "<h2>Details</h2>", "<h3>Input</h3>",
           '<dl class="facts">',
           f"<dt>source</dt><dd>{_e(inp.source)}</dd>",
           f"<dt>rows</dt><dd>{_n(inp.n)}</dd>",
           f"<dt>row types</dt><dd>{_n(inp.t_in)} distinct QI vectors</dd>",
           f"<dt>sensitive</dt><dd>{_e(', '.join(inp.sensitive) or 'none')}</dd>",
           f"<dt>identifiers dropped</dt>"
           f"<dd>{_e(', '.join(inp.identifiers_dropped) or 'none')}</dd>",
           f"<dt>seed</dt><dd>{r.seed}</dd>",
           *([f"<dt>method options</dt><dd>{_e(options_text(r.options))}</dd>"]
             if r.options else []),
           "</dl>"]
    out += _table(["QI column", "distinct values"], list(inp.cardinalities.items()), {1},
                  label="QI columns", open_=True)
    if r.hierarchies:
        hrows: list[tuple[object, ...]] = [
            (c, h.get("source"), h.get("height"), h.get("groups"), h.get("domain"))
            for c, h in r.hierarchies.items()]
        out += ["<h3>Hierarchies</h3>",
                '<p class="note">A released cell is its value, a group of its column\'s '
                "hierarchy, or * (the root). Other QI columns: suppression only.</p>"]
        out += _table(["QI column", "hierarchy", "height", "groups", "values"], hrows,
                      {2, 3, 4}, label="hierarchies", open_=True)
    out += ["<h3>Lower bounds</h3>",
            '<p class="note">Each a proven lower bound on the optimal stars; the report '
            "uses the largest.</p>"]
    out += _table(["bound", "stars"], list(r.bounds.lower_bounds.items()), {1},
                  label="lower bounds", open_=True)
    if r.portfolio is not None:
        pf = r.portfolio
        trials: list[tuple[object, ...]] = [
            (t.method, t.guarantee, t.status, "" if t.stars is None else t.stars,
             t.reason or t.note or "") for t in pf.trials]
        budget = pf.budget or {}
        spent = (f" It spent {budget['spent']:g} of {budget['units']:g} work units."
                 if "spent" in budget and "units" in budget else "")
        out += ["<h3>Methods tried (auto)</h3>",
                f'<p class="note">The portfolio ran the methods that support this instance '
                f"within its work budget and released the fewest stars.{_e(spent)}</p>"]
        out += _table(["method", "guarantee", "status", "stars", "why"], trials, {3},
                      label="methods", open_=True)
    checks = r.verification.get("models") or ()
    if checks:
        found: list[tuple[object, ...]] = [
            (c.get("name"), c.get("sensitive") or "", "pass" if c.get("passed") else "FAIL",
             c.get("measure_name"), c.get("worst"), c.get("violating_classes", 0))
            for c in checks]
        out += ["<h3>Verification</h3>"]
        out += _table(["model", "sensitive", "verdict", "measure", "worst class",
                       "violating classes"], found, {4, 5}, label="checks", open_=True)
    out.append("</section>")
    return out


def _footer(r: Report) -> str:
    return (f"<footer>Made by starmin {_e(r.starmin_version)} (report version {r.version}). "
            "The creation time and the per-stage timings are in the JSON report.</footer>")
