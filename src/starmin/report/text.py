"""Plain-text summary of a report, as the CLI prints it."""

from __future__ import annotations

import textwrap
from typing import Any


def summary(report: dict[str, Any], written: str | None = None) -> str:
    """A short human summary: model, method and guarantee, cost vs lower bound, verdict."""
    inp = report["input"]
    g = report["guarantee"]
    lb = report["lower_bound"]
    gap = report.get("gap_ratio")
    lines = [
        f"input      n={inp['n']} rows, m={inp['m']} QIs, t_in={inp['t_in']} row types",
        f"model      {report['model']}",
        textwrap.fill(f"{report['method']} — {g['kind']}: {g['statement']}"
                      + (f" [{g['reference']}]" if g.get("reference") else ""), width=100,
                      initial_indent="method     ", subsequent_indent=" " * 11),
        f"stars      {report['stars']} ({100 * report['star_fraction']:.2f}% of QI cells); "
        f"{report['suppressed_records']} records with a star, "
        f"{report['fully_suppressed_records']} fully suppressed",
        f"bound      optimum >= {lb} stars"
        + (f" (release is within {gap:.3f} x the bound)" if gap else ""),
        f"classes    {report['classes']['count']} (sizes {report['classes']['min_size']}"
        f"..{report['classes']['max_size']})",
        f"verified   {'yes' if report['verified'] else 'NO'} (independent verifier)",
    ]
    lines.extend(_portfolio(report))
    per_col = {c: v for c, v in report["stars_per_column"].items() if v}
    if per_col:
        lines.append("stars/col  " + ", ".join(f"{c}={v}" for c, v in per_col.items()))
    t = report["timings_s"]
    lines.append("time       " + ", ".join(f"{k} {v:.2f}s" for k, v in t.items()))
    if written:
        lines.append(f"written    {written} and {written}.report.json")
    return "\n".join(lines)


def _portfolio(report: dict[str, Any]) -> list[str]:
    """``auto``: the methods run with their stars, then the skipped ones with the reason."""
    trials = report.get("portfolio")
    if not trials:
        return []
    ran = [t for t in trials if t["status"] in ("released", "tried")]
    text = "; ".join(f"{t['method']} {t['stars']} ({t['guarantee']}"
                     + (", released" if t["status"] == "released" else "") + ")" for t in ran)
    budget = report.get("portfolio_budget") or {}
    if budget:
        text += f" [{budget['spent']:g} of {budget['units']:g} work units]"
    out = textwrap.wrap("auto: " + text, width=100, initial_indent="portfolio  ",
                        subsequent_indent=" " * 11)
    unsupported = [t["method"] for t in trials
                   if t["status"] == "skipped" and t.get("reason", "").startswith("unsupported")]
    if unsupported:
        out.extend(textwrap.wrap("unsupported here: " + ", ".join(unsupported), width=100,
                                 initial_indent=" " * 11, subsequent_indent=" " * 11))
    for t in trials:
        if t["status"] == "failed" or (t["status"] == "skipped"
                                       and t["method"] not in unsupported):
            why = t.get("reason", "")
            short = why if len(why) <= 70 else why[:67] + "..."
            out.append(f"{'':11}{t['method']} {t['status']}: {short}")
    ratio = report.get("portfolio_ratio")
    if ratio and report["guarantee"]["kind"] != "ratio":
        out.extend(textwrap.wrap(f"ratio: {ratio['statement']}", width=100,
                                 initial_indent=" " * 11, subsequent_indent=" " * 11))
    return out
