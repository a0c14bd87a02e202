"""PNG figures (matplotlib, Agg) for bench/l_diversity_experiments.py, from the summaries."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, MaxNLocator

STYLE = {"tp": ("TP", "tab:blue", "o"), "tp+": ("TP+", "tab:green", "s"),
         "hilbert": ("Hilbert", "tab:red", "^"),
         "tp+/greedy": ("TP+ (greedy cut)", "tab:olive", "x"),
         "hilbert/greedy": ("Hilbert (greedy cut)", "tab:purple", "v")}
SCALING = ("tp", "tp+", "hilbert")
_PLAIN = FuncFormatter(lambda v, _: f"{v:g}")
_PLAIN_MINOR = FuncFormatter(lambda v, _: f"{v:g}" if f"{v:g}"[0] in "235" else "")
_K = FuncFormatter(lambda v, _: f"{v / 1000:g}k" if abs(v) >= 1000 else f"{v:g}")


def _keys(d: dict[Any, Any]) -> list[int]:
    return sorted(int(k) for k in d)


def _get(d: dict[Any, Any], k: int) -> Any:
    return d[k] if k in d else d[str(k)]


def _line(ax: Axes, series: dict[Any, Any], label: str, color: str, marker: str,
          scale: float = 1.0, dashed: bool = False) -> None:
    xs = [k for k in _keys(series) if _get(series, k) is not None]
    ax.plot(xs, [_get(series, k) * scale for k in xs], label=label, color=color,
            marker=marker, linestyle="--" if dashed else "-", markersize=4)


def _panels(tables: list[dict[str, Any]], title: str, path: Path,
            draw: Callable[[Axes, dict[str, Any]], None], xlabel: str, ylabel: str) -> None:
    fig, axes = plt.subplots(1, len(tables), figsize=(4.4 * len(tables), 4.0), squeeze=False)
    for ax, t in zip(axes[0], tables, strict=True):
        draw(ax, t)
        ax.set_title(t["title"], fontsize=10)
        if xlabel:
            ax.set_xlabel(xlabel)
        if xlabel != "n (rows)":
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(ylabel)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 4), fontsize=8,
               frameon=False)
    fig.suptitle(title, fontsize=11)
    rows = -(-len(labels) // 4)
    fig.tight_layout(rect=(0, 0.01 + 0.05 * rows, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _methods(field: str, scale: float = 1.0, bound: bool = False
             ) -> Callable[[Axes, dict[str, Any]], None]:
    def draw(ax: Axes, t: dict[str, Any]) -> None:
        for m, (label, color, marker) in STYLE.items():
            _line(ax, t[field][m], label, color, marker, scale)
        if bound:
            key = field.replace("stars", "lower_bound")
            _line(ax, t[key], "lower bound (tuples)", "grey", ".", dashed=True)
        ax.yaxis.set_major_formatter(_K)
    return draw


def table_figures(tables: list[dict[str, Any]], out: Path, stem: str) -> list[Path]:
    """Figures 2-5 analogues and the phase/gap figures; returns the files written."""
    for t in tables:
        t["title"] = f"{t['name']} (n={t['n']:,})"
    d4 = tables[0]["fig_d"]
    l6 = tables[0]["fig_l"]
    spec = [
        ("stars_vs_l", f"Average stars vs l (d = {d4} projections)", "stars_vs_l", True, 1.0,
         "l", "stars"),
        ("stars_vs_d", f"Average stars vs d (l = {l6})", "stars_vs_d", True, 1.0, "d",
         "stars"),
        ("time_vs_l", f"Average solve CPU time vs l (d = {d4})", "cpu_seconds_vs_l", False,
         1e3, "l", "milliseconds"),
        ("time_vs_d", f"Average solve CPU time vs d (l = {l6})", "cpu_seconds_vs_d", False,
         1e3, "d", "milliseconds"),
    ]
    paths = []
    for name, title, field, bound, scale, xl, yl in spec:
        p = out / f"{stem}-{name}.png"
        _panels(tables, title, p, _methods(field, scale, bound), xl, yl)
        paths.append(p)
    p = out / f"{stem}-phases.png"
    _panels(tables, "TP: share of runs ending in each phase (all projections)", p, _phase_bars,
            "l", "share of runs")
    paths.append(p)
    p = out / f"{stem}-gap.png"
    _panels(tables, f"Stars / TP's lower bound on OPT (d = {d4}; mean, max dotted)", p,
            _gap_lines, "l", "ratio")
    paths.append(p)
    return paths


def _phase_bars(ax: Axes, t: dict[str, Any]) -> None:
    per_l = t["phases"]["per_l"]
    ls = _keys(per_l)
    bottom = [0.0] * len(ls)
    for ph, color in ((1, "tab:green"), (2, "tab:orange"), (3, "tab:red")):
        share = []
        for k in ls:
            c = _get(per_l, k)
            tot = sum(int(v) for v in c.values())
            share.append(int(_get(c, ph)) / tot if tot else 0.0)
        ax.bar(ls, share, bottom=bottom, color=color, label=f"phase {ph}")
        bottom = [b + s for b, s in zip(bottom, share, strict=True)]
    ax.set_ylim(0, 1)


def _gap_lines(ax: Axes, t: dict[str, Any]) -> None:
    for m, (label, color, marker) in STYLE.items():
        per_l = t["star_gap"][m]["per_l"]
        xs = _keys(per_l)
        ax.plot(xs, [_get(per_l, k)["mean"] for k in xs], color=color, marker=marker,
                label=label, markersize=4)
        ax.plot(xs, [_get(per_l, k)["max"] for k in xs], color=color, linestyle=":")
    per_l = t["tp_tuple_gap"]["per_l"]
    xs = _keys(per_l)
    ax.plot(xs, [_get(per_l, k)["mean"] for k in xs], color="black", linestyle="--",
            label="TP tuples / bound (all d)")
    ax.plot(xs, [k * t["fig_d"] for k in xs], color="grey", linewidth=0.8,
            label="l*d (TP's guarantee)")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(_PLAIN)
    ax.yaxis.set_minor_formatter(_PLAIN_MINOR)


def scaling_figure(scales: list[dict[str, Any]], out: Path, stem: str) -> Path:
    for s in scales:
        k = s["projections"]
        s["title"] = f"{s['name']} (l = {s['l']}, {k} projection{'s' if k > 1 else ''})"

    def draw(ax: Axes, s: dict[str, Any]) -> None:
        for m in SCALING:
            label, color, marker = STYLE[m]
            _line(ax, s[f"{m}_cpu_seconds"], label, color, marker)
        _line(ax, s["aggregate_seconds"], "aggregate (rows to row types)", "grey", ".",
              dashed=True)
        ax.xaxis.set_major_formatter(_K)

    p = out / f"{stem}-time_vs_n.png"
    _panels(scales, "Solve CPU time vs n (aggregation: wall clock)", p, draw, "n (rows)",
            "seconds")
    return p


def exact_figure(exact: list[dict[str, Any]], out: Path, stem: str) -> Path | None:
    """Stars / OPT of each heuristic per ``d`` or ``l``, one panel per exact experiment."""
    panels = [{**e, "title": e["name"]} for e in exact if e.get("instances")]
    if not panels:
        return None

    def draw(ax: Axes, e: dict[str, Any]) -> None:
        key = e["key"]
        for m, (label, color, marker) in STYLE.items():
            per = e[m][f"per_{key}"]
            xs = _keys(per)
            ax.plot(xs, [_get(per, k)["mean"] for k in xs], color=color, marker=marker,
                    label=label, markersize=4)
            ax.plot(xs, [_get(per, k)["max"] for k in xs], color=color, linestyle=":")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel(key)

    p = out / f"{stem}-exact.png"
    _panels(panels, "Stars / exact optimum (mean; max dotted)", p, draw, "", "ratio")
    return p
