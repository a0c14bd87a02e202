"""Plain-text summary of a report, as the CLI prints it."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from starmin.method_options import options_text
from starmin.report.record import Portfolio, Report


def as_report(report: Report | Mapping[str, Any]) -> Report:
    """``report`` as a typed record (a JSON-form mapping is read with ``Report.from_dict``)."""
    return report if isinstance(report, Report) else Report.from_dict(report)


def summary(report: Report | Mapping[str, Any], written: str | None = None) -> str:
    """A short human summary: model, method and guarantee, cost vs lower bound, verdict.
    ``written``: the release path, for a last line naming the files written."""
    r = as_report(report)
    inp, g, loss, c = r.inputs, r.guarantee, r.loss, r.classes
    gap = r.bounds.gap_ratio
    lines = [
        f"input      n={inp.n} rows, m={inp.m} QIs, t_in={inp.t_in} row types",
        f"model      {r.model}",
        textwrap.fill(f"{r.method} — {g.kind}: {g.statement}"
                      + (f" [{g.reference}]" if g.reference else ""), width=100,
                      initial_indent="method     ", subsequent_indent=" " * 11),
        *([f"options    {options_text(r.options)}"] if r.options else []),
        f"stars      {loss.stars} ({100 * loss.star_fraction:.2f}% of QI cells); "
        f"{loss.suppressed_records} records with a star, "
        f"{loss.fully_suppressed_records} fully suppressed",
        *_generalized(r),
        _bound(r, gap),
        f"classes    {c.count} (sizes {c.min_size}..{c.max_size})",
        *_measures(r),
        f"verified   {'yes' if r.verified else 'NO'} (independent verifier)",
    ]
    if r.portfolio is not None:
        lines.extend(_portfolio(r.portfolio, g.kind))
    per_col = {col: v for col, v in r.stars_per_column.items() if v}
    if per_col:
        lines.append("stars/col  " + ", ".join(f"{col}={v}" for col, v in per_col.items()))
    lines.append("time       " + ", ".join(f"{k} {v:.2f}s" for k, v in r.timings.items()))
    if written:
        lines.append(f"written    {written}, {written}.report.json and "
                     f"{written}.report.html")
    return "\n".join(lines)


def _generalized(r: Report) -> list[str]:
    """With hierarchies: the cells released as a group, per column."""
    if r.hierarchies is None and not r.loss.generalized_cells:
        return []
    per = (r.measures.generalized_per_column if r.measures is not None else {})
    cols = ", ".join(f"{c}={v}" for c, v in per.items() if v)
    return [f"generalized {r.loss.generalized_cells} cells released as a group of their "
            f"hierarchy" + (f" ({cols})" if cols else "")]


def _bound(r: Report, gap: float | None) -> str:
    """The proven bound; with generalized cells it bounds the cells not released as their
    value (stars + generalized)."""
    text = f"bound      optimum >= {r.bounds.lower_bound} stars"
    g = r.loss.generalized_cells
    if not g:
        return text + (f" (release is within {gap:.3f} x the bound)" if gap else "")
    changed = r.loss.stars + g
    return textwrap.fill(text + f", which also bounds the cells not released as their value: "
                         f"{changed} here" + (f", within {gap:.3f} x the bound" if gap else ""),
                         width=100, subsequent_indent=" " * 11)


def _measures(r: Report) -> list[str]:
    """The loss measures on one line (docs/report.md)."""
    ms = r.measures
    if ms is None:
        return []
    norm = (f" (normalized {ms.normalized_average_class_size:.3g} for k={ms.k})"
            if ms.normalized_average_class_size is not None else "")
    kl = "not computed" if ms.kl_divergence is None else f"{ms.kl_divergence:.4g} bits"
    lb = ms.loss_bound
    bound = ""
    if lb is not None:
        bound = (f"; objective {ms.objective}, certified loss >= {float(lb['average']):.4g}"
                 + (f" (loss within {ms.loss / float(lb['average']):.3f} x the bound)"
                    if float(lb["average"]) > 0 else ""))
    elif ms.objective != "stars":
        bound = f"; objective {ms.objective}"
    return textwrap.wrap(
        f"loss (Iyengar LM) {ms.loss:.4g}, granularity {ms.granularity:.4g}, precision "
        f"{ms.precision:.4g}, discernibility {ms.discernibility:,}, average class size "
        f"{ms.average_class_size:.4g}{norm}, KL-divergence {kl}{bound}", width=100,
        initial_indent="measures   ", subsequent_indent=" " * 11)


def _portfolio(pf: Portfolio, kind: str) -> list[str]:
    """``auto``: the methods run with their stars, then the skipped ones with the reason."""
    trials = pf.trials
    if not trials:
        return []
    ran = [t for t in trials if t.status in ("released", "tried")]
    text = "; ".join(f"{t.method} {t.stars} ({t.guarantee}"
                     + (", released" if t.status == "released" else "") + ")" for t in ran)
    budget = pf.budget or {}
    if budget:
        text += f" [{budget['spent']:g} of {budget['units']:g} work units]"
    out = textwrap.wrap("auto: " + text, width=100, initial_indent="portfolio  ",
                        subsequent_indent=" " * 11)
    unsupported = [t.method for t in trials
                   if t.status == "skipped" and (t.reason or "").startswith("unsupported")]
    if unsupported:
        out.extend(textwrap.wrap("unsupported here: " + ", ".join(unsupported), width=100,
                                 initial_indent=" " * 11, subsequent_indent=" " * 11))
    for t in trials:
        if t.status == "failed" or (t.status == "skipped" and t.method not in unsupported):
            why = t.reason or ""
            short = why if len(why) <= 70 else why[:67] + "..."
            out.append(f"{'':11}{t.method} {t.status}: {short}")
    ratio = pf.ratio
    if ratio and kind != "ratio":
        out.extend(textwrap.wrap(f"ratio: {ratio['statement']}", width=100,
                                 initial_indent=" " * 11, subsequent_indent=" " * 11))
    return out
