"""Markdown tables of the l-diversity experiment summaries (for docs/experiments/l-diversity.md).
"""

from __future__ import annotations

from typing import Any

from l_diversity_runs import HEURISTICS, METHODS

NAMES = {"tp": "TP", "tp+": "TP+", "hilbert": "Hilbert", "tp+/greedy": "TP+ (greedy)",
         "hilbert/greedy": "Hilbert (greedy)"}
COLUMNS = [NAMES[m] for m in METHODS]


def _g(d: dict[Any, Any], k: Any) -> Any:
    return d.get(k, d.get(str(k)))


def _f(v: Any, digits: int = 0) -> str:
    if v is None:
        return "–"
    if isinstance(v, float) and digits:
        return f"{v:,.{digits}f}"
    return f"{round(v):,}"


def _keys(d: dict[Any, Any]) -> list[int]:
    return sorted(int(k) for k in d)


def _table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def stars(t: dict[str, Any], what: str) -> str:
    """Mean stars (and TP's lower bound, in tuples) per l (``what="l"``) or d."""
    key = "l" if what == "l" else "d"
    s = t[f"stars_vs_{what}"]
    xs = _keys(s["tp"])
    rows = []
    for x in xs:
        row = [str(x)] + [_f(_g(s[m], x)) for m in METHODS]
        row.append(_f(_g(t[f"lower_bound_vs_{what}"], x)))
        if what == "d":
            row.append(_f(_g(t["t_in_vs_d"], x)))
        rows.append(row)
    head = [key, *COLUMNS, "lower bound (tuples)"]
    return _table(head + (["t_in (mean)"] if what == "d" else []), rows)


def times(t: dict[str, Any], what: str) -> str:
    """Mean solve time in ms: CPU (wall clock in brackets)."""
    c, w = t[f"cpu_seconds_vs_{what}"], t[f"seconds_vs_{what}"]
    rows = [[str(x)] + [f"{_g(c[m], x) * 1e3:.1f} ({_g(w[m], x) * 1e3:.1f})"
                        if _g(c[m], x) is not None else "–" for m in METHODS]
            for x in _keys(c["tp"])]
    return _table([what, *[f"{c} ms" for c in COLUMNS]], rows)


def phases(t: dict[str, Any]) -> str:
    p = t["phases"]
    rows = []
    for ls in _keys(p["per_l"]):
        c = _g(p["per_l"], ls)
        rows.append([str(ls), str(_g(c, 1)), str(_g(c, 2)), str(_g(c, 3))])
    return _table(["l", "phase 1", "phase 2", "phase 3"], rows)


def gaps(t: dict[str, Any]) -> str:
    g = t["tp_tuple_gap"]["per_l"]
    rows = []
    for ls in _keys(g):
        row = [str(ls), _f(_g(g, ls)["mean"], 3), _f(_g(g, ls)["max"], 3)]
        for m in METHODS:
            sg = _g(t["star_gap"][m]["per_l"], ls)
            row.append(_f(sg["mean"], 2) if sg and sg["mean"] is not None else "–")
        rows.append(row)
    return _table(["l", "TP tuples/LB mean", "TP tuples/LB max",
                   *[f"{c} stars/LB" for c in COLUMNS]], rows)


def wins(t: dict[str, Any]) -> str:
    keys = ("tp_beats_hilbert", "tp_plus_beats_hilbert", "tp_beats_hilbert_greedy",
            "tp_plus_greedy_beats_hilbert_greedy", "tp_plus_le_tp")
    rows = [[str(d), str(w["tables"]), *[_f(w[k], 2) for k in keys]]
            for d, w in sorted((int(k), v) for k, v in t["wins_vs_d"].items())]
    return _table(["d", "tables", "TP < Hilbert", "TP+ < Hilbert", "TP < Hilbert (greedy)",
                   "TP+ (greedy) < Hilbert (greedy)", "TP+ <= TP"], rows)


def scaling(s: dict[str, Any]) -> str:
    rows = []
    for n in _keys(s["t_in"]):
        rows.append([f"{n:,}", _f(_g(s["t_in"], n)), _f(_g(s["aggregate_seconds"], n), 3)]
                    + [f"{_g(s[f'{m}_cpu_seconds'], n):.3f} ({_g(s[f'{m}_seconds'], n):.3f})"
                       for m in HEURISTICS])
    return _table(["n", "t_in", "aggregate s (wall)", "TP s CPU (wall)", "TP+ s CPU (wall)",
                   "Hilbert s CPU (wall)"], rows)


def exact(e: dict[str, Any]) -> str:
    key = e["key"]
    per0 = e["tp"][f"per_{key}"]
    rows = []
    for x in _keys(per0):
        row = [str(x), str(_g(per0, x)["runs"])]
        for m in METHODS:
            st = _g(e[m][f"per_{key}"], x)
            row.append(f"{st['mean']:.2f} / {st['max']:.2f}")
        rows.append(row)
    rows.append(["all", str(e["instances"])]
                + [f"{e[m]['all']['mean']:.2f} / {e[m]['all']['max']:.2f}" for m in METHODS])
    rows.append(["optimal share", ""] + [f"{e[m]['optimal_share']:.2f}" for m in METHODS])
    return _table([key, "instances", *[f"{c} mean/max" for c in COLUMNS]], rows)


def markdown(summary: dict[str, Any]) -> str:
    """Every table, headed by the table / experiment it belongs to."""
    parts = []
    for t in summary["tables"]:
        parts += [f"### {t['name']}: stars vs l (d = {t['fig_d']})", stars(t, "l"),
                  f"### {t['name']}: stars vs d (l = {t['fig_l']})", stars(t, "d"),
                  f"### {t['name']}: who wins per d (l = {t['fig_l']})", wins(t),
                  f"### {t['name']}: time vs l", times(t, "l"),
                  f"### {t['name']}: time vs d", times(t, "d"),
                  f"### {t['name']}: TP phases ({t['phases']['tables']} tables)", phases(t),
                  f"### {t['name']}: gap to the lower bound", gaps(t)]
    for s in summary["scaling"]:
        parts += [f"### time vs n: {s['name']}", scaling(s)]
    for e in summary["exact"]:
        if e["instances"]:
            parts += [f"### exact: {e['name']} ({e['method']}), stars / OPT", exact(e)]
    return "\n\n".join(parts) + "\n"
