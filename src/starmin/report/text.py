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
    per_col = {c: v for c, v in report["stars_per_column"].items() if v}
    if per_col:
        lines.append("stars/col  " + ", ".join(f"{c}={v}" for c, v in per_col.items()))
    t = report["timings_s"]
    lines.append("time       " + ", ".join(f"{k} {v:.2f}s" for k, v in t.items()))
    if written:
        lines.append(f"written    {written} and {written}.report.json")
    return "\n".join(lines)
