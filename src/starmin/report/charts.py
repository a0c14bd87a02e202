"""The HTML report's plots, drawn with matplotlib and returned as inline SVG text.

Loaded only when a report page is rendered (matplotlib is imported here, never by
``import starmin``, ``starmin --help`` or ``starmin verify``). No display is used: figures
are :class:`matplotlib.figure.Figure` objects saved through matplotlib's SVG backend, without
pyplot and without a GUI backend.

Same data, same bytes: SVG ids come from ``svg.hashsalt`` (a fixed salt per figure, so ids are
also unique within the page), the date and other metadata are left out, text is kept as
``<text>`` (``svg.fonttype = none``: small, searchable, no font embedded or fetched: the
browser draws it with a local sans-serif font) and ``$`` in labels is text, not math
(``text.parse_math = False``). The XML prolog, the DOCTYPE and the namespace declarations are
dropped: an ``<svg>`` inside HTML needs none, and so the page holds no URL at all.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import matplotlib
from matplotlib.figure import Figure

from starmin.report.record import Histogram, MeasureDistribution, ValueCounts

BEFORE, AFTER, STARS, BAD, LINE = "#9aa5b1", "#2b6cb0", "#d69e2e", "#c53030", "#c53030"
WIDTH = 6.4
"""Figure width in inches (the page scales the SVG to its column)."""
LABEL_CHARS = 28
"""Longer labels are cut with an ellipsis (the tables below the plots hold them whole)."""

_RC = {
    "svg.fonttype": "none",
    "text.parse_math": False,
    "text.usetex": False,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": 10.0,
    "axes.titlelocation": "left",
    "svg.image_inline": True,
    "path.simplify": True,
}
_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}


@contextmanager
def _style(salt: str) -> Iterator[None]:
    """The report's rcParams for one figure, restored afterwards (only these keys: a full
    ``rc_context`` copies and re-validates every parameter, a third of a figure's time)."""
    rc: Any = matplotlib.rcParams
    new = {**_RC, "svg.hashsalt": f"starmin-{salt}"}
    old = {k: rc[k] for k in new}
    try:
        rc.update(new)
        yield
    finally:
        rc.update(old)


def _svg(fig: Figure, salt: str, label: str) -> str:
    """The figure as SVG text for inline use in HTML (see the module docstring)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata=_METADATA)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    head, _, body = text.partition(">")
    head = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", head)
    head = head.replace("<svg", f'<svg role="img" aria-label="{_attr(label)}"', 1)
    # ids are per page: prefix every id and every reference to one (in tags, never in text)
    body = re.sub(r"<[^>]+>", lambda m: _prefix_ids(m.group(0), salt), body)
    return head + ">" + body.rstrip() + "\n"


def _prefix_ids(tag: str, salt: str) -> str:
    tag = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{salt}-{m.group(1)}"', tag)
    tag = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{salt}-{m.group(1)}"', tag)
    return re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{salt}-{m.group(1)})", tag)


def _attr(text: str) -> str:
    return (text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def short(label: str | None, chars: int = LABEL_CHARS) -> str:
    """A label for a plot: control characters as spaces, cut to ``chars`` characters."""
    text = "(missing)" if label is None else "".join(
        " " if ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 else ch for ch in label)
    return text if len(text) <= chars else text[:chars - 1] + "…"


def _figure(height: float, left_chars: int = 6, bottom: float = 0.5) -> tuple[Figure, Any]:
    """A figure ``WIDTH`` x ``height`` inches with one axes in fixed margins: room for tick
    labels of ``left_chars`` characters on the left and ``bottom`` inches below. (Fixed
    margins, not a layout engine: the engine measures every label twice and doubles the
    time a figure takes.)"""
    fig = Figure(figsize=(WIDTH, height))
    left = min(0.45, (0.45 + 0.068 * left_chars) / WIDTH)
    fig.subplots_adjust(left=left, right=0.97, bottom=bottom / height,
                        top=1 - 0.35 / height)
    return fig, fig.add_subplot()


def _counts_axis(ax: Any, horizontal: bool = False) -> None:
    axis = ax.xaxis if horizontal else ax.yaxis
    axis.get_major_locator().set_params(integer=True)
    ax.grid(axis="x" if horizontal else "y", color="#e2e8f0", linewidth=0.6)
    ax.set_axisbelow(True)


def class_sizes(h: Histogram, k: int, salt: str = "sizes") -> str:
    """Released classes per class-size bin; bins below ``k`` (none in a verified release)
    in red."""
    with _style(salt):
        labels = h.labels()
        turn = len(labels) > 12
        fig, ax = _figure(2.9 if turn else 2.6, bottom=0.85 if turn else 0.55)
        colors = [BAD if k > 1 and int(lo) < k else AFTER for lo in h.edges[:-1]]
        ax.bar(range(len(labels)), h.counts, color=colors, width=0.8)
        ax.set_xticks(range(len(labels)), labels, rotation=45 if turn else 0,
                      ha="right" if turn else "center", rotation_mode="anchor")
        ax.set_xlabel("class size (rows)" + (f"; k = {k}" if k > 1 else ""))
        ax.set_ylabel("classes")
        _counts_axis(ax)
        return _svg(fig, salt, "bar chart: released classes per class size")


def stars_per_column(stars: Sequence[tuple[str, int]], n: int, salt: str = "cols") -> str:
    """Stars in each QI column, as rows out of ``n``."""
    with _style(salt):
        names = [short(c) for c, _ in stars][::-1]
        values = [v for _, v in stars][::-1]
        fig, ax = _figure(0.85 + 0.24 * max(len(names), 1),
                          left_chars=max(map(len, names), default=4))
        ax.barh(range(len(names)), values, color=STARS, height=0.7)
        ax.set_yticks(range(len(names)), names)
        ax.set_xlim(0, max(n, 1))
        ax.set_xlabel(f"stars (suppressed cells) out of {n:,} rows")
        _counts_axis(ax, horizontal=True)
        return _svg(fig, salt, "bar chart: stars per QI column")


def stars_per_record(counts: Sequence[int], salt: str = "rows") -> str:
    """Rows with 0, 1, ..., m stars."""
    with _style(salt):
        fig, ax = _figure(2.4)
        colors = [BEFORE] + [STARS] * (len(counts) - 1)
        ax.bar(range(len(counts)), counts, color=colors, width=0.8)
        ax.set_xticks(range(len(counts)), [str(i) for i in range(len(counts))])
        ax.set_xlabel("stars in the row (0: untouched; m: fully suppressed)")
        ax.set_ylabel("rows")
        _counts_axis(ax)
        return _svg(fig, salt, "bar chart: rows by number of stars")


def measure(d: MeasureDistribution, salt: str) -> str:
    """Classes per bin of a per-class measure, with the model's threshold as a line."""
    with _style(salt):
        fig, ax = _figure(2.6)
        h = d.histogram
        lefts = list(h.edges[:-1])
        widths = [b - a for a, b in zip(h.edges[:-1], h.edges[1:], strict=True)]
        thr = d.threshold
        colors = []
        for a, b in zip(h.edges[:-1], h.edges[1:], strict=True):
            bad = thr is not None and ((d.higher_is_better and b <= thr and a < thr)
                                       or (not d.higher_is_better and a > thr))
            colors.append(BAD if bad else AFTER)
        ax.bar(lefts, h.counts, width=[w * 0.9 for w in widths], align="edge", color=colors)
        if thr is not None:
            ax.axvline(thr, color=LINE, linestyle="--", linewidth=1.2,
                       label=f"{d.threshold_name or 'threshold'} = {thr:g}")
            ax.legend(loc="lower right", bbox_to_anchor=(1, 1), frameon=False,
                      borderaxespad=0.1)
        ax.set_xlabel(short(f"{d.measure_name} per class", 60))
        ax.set_ylabel("classes")
        _counts_axis(ax)
        return _svg(fig, salt, f"histogram: {d.measure_name} per class against the threshold")


def before_after(v: ValueCounts, salt: str) -> str:
    """Rows per value of one QI column in the input and in the release (with stars)."""
    with _style(salt):
        labels = [short(x) for x in v.values]
        before, after = list(v.before), list(v.after)
        if v.other_before or v.other_after:
            labels.append(f"other ({v.distinct - len(v.values)} values)")
            before.append(v.other_before)
            after.append(v.other_after)
        kept = len(labels)
        if v.generalized:
            labels.append("a group (generalized)")
            before.append(0)
            after.append(v.generalized)
        labels.append("* (suppressed)")
        before.append(0)
        after.append(v.stars)
        fig, ax = _figure(0.9 + 0.26 * len(labels), left_chars=max(map(len, labels)))
        y = list(range(len(labels)))[::-1]
        ax.barh([p + 0.2 for p in y], before, height=0.38, color=BEFORE, label="input")
        ax.barh([p - 0.2 for p in y], after, height=0.38,
                color=[AFTER] * kept + [STARS] * (len(labels) - kept), label="release")
        ax.set_yticks(y, labels)
        ax.set_ylim(-0.6, len(labels) - 0.4)
        ax.set_xlabel("rows")
        ax.legend(loc="lower right", bbox_to_anchor=(1, 1), ncols=2, frameon=False,
                  borderaxespad=0.1)
        _counts_axis(ax, horizontal=True)
        return _svg(fig, salt, "bar chart: rows per value before and after the release")
