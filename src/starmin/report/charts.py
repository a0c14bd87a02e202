"""The HTML report's plots as small hand-written inline SVG.

Each plot is drawn from the report's already aggregated numbers (a few dozen bars at most), so
its cost does not depend on the table's size, and no plotting library is imported: this module
needs only the standard library (it used to draw with matplotlib, whose import and layout cost
about 4 s per page, more than the rest of a 1M-row run's report and solve together).

Same data, same bytes: coordinates are written with fixed formatting (one decimal), ids are
prefixed with the figure's ``salt`` (unique within the page), there is no date or other
metadata, no XML prolog, DOCTYPE or namespace (an ``<svg>`` inside HTML needs none, so the page
holds no URL), and text stays ``<text>`` drawn by the browser with a local sans-serif font.
Every string from the data is escaped. Each bar carries a ``<title>`` with its exact number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from starmin.report.record import Histogram, MeasureDistribution, ValueCounts

BEFORE, AFTER, STARS, BAD, LINE = "#9aa5b1", "#2b6cb0", "#d69e2e", "#c53030", "#c53030"
GRID, AXIS, INK = "#e2e8f0", "#4a5568", "#1a202c"
WIDTH = 640
"""Width of every plot in SVG user units (the page scales the SVG to its column)."""
FONT = 11
CHAR = 6.2
"""Estimated width of one character at ``FONT`` (for margins; the browser draws the text)."""
LABEL_CHARS = 28
"""Longer labels are cut with an ellipsis (the tables below the plots hold them whole)."""


def short(label: str | None, chars: int = LABEL_CHARS) -> str:
    """A label for a plot: control characters as spaces, cut to ``chars`` characters."""
    text = "(missing)" if label is None else "".join(
        " " if ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 else ch for ch in label)
    return text if len(text) <= chars else text[:chars - 1] + "…"


def _e(text: str) -> str:
    return escape(text, quote=True)


def _f(x: float) -> str:
    """A coordinate: one decimal, ``-0.0`` written as ``0.0``."""
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def _num(v: float) -> str:
    """A tick or bar value: thousands separators for whole numbers, 4 significant digits
    otherwise."""
    if float(v).is_integer():
        return f"{int(v):,}"
    return f"{v:,.4g}"


def ticks(lo: float, hi: float, integer: bool, target: int = 5) -> list[float]:
    """Evenly spaced round ticks (steps 1, 2, 2.5 or 5 x 10^j; whole steps when ``integer``)
    from at most ``lo`` to at least ``hi``."""
    if not hi > lo:
        hi = lo + 1.0
    raw = (hi - lo) / target
    mag = 10.0 ** math.floor(math.log10(raw))
    step = mag
    for mult in (1.0, 2.0, 2.5, 5.0, 10.0):
        step = mult * mag
        if step >= raw and not (integer and not float(step).is_integer()):
            break
    if integer:
        step = max(1.0, float(math.ceil(step)))
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [round(i * step, 10) for i in range(first, last + 1)]


class _Svg:
    """One figure: a plot area in fixed margins, drawn element by element."""

    def __init__(self, salt: str, label: str, height: float, left: float, bottom: float,
                 top: float = 26.0, right: float = 30.0) -> None:
        self.salt, self.label, self.height = salt, label, height
        self.x0, self.x1 = left, WIDTH - right
        self.y0, self.y1 = top, height - bottom
        self.parts: list[str] = []

    def text(self, x: float, y: float, s: str, anchor: str = "start", rotate: float = 0,
             size: int = FONT, color: str = INK) -> None:
        rot = f' transform="rotate({_f(rotate)} {_f(x)} {_f(y)})"' if rotate else ""
        self.parts.append(f'<text x="{_f(x)}" y="{_f(y)}" text-anchor="{anchor}" '
                          f'font-size="{size}" fill="{color}"{rot}>{_e(s)}</text>')

    def line(self, x1: float, y1: float, x2: float, y2: float, color: str,
             width: float = 1.0, dash: str = "") -> None:
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<line x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}" '
                          f'stroke="{color}" stroke-width="{width:g}"{d}/>')

    def rect(self, x: float, y: float, w: float, h: float, color: str, title: str) -> None:
        self.parts.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(max(w, 0.0))}" '
                          f'height="{_f(max(h, 0.0))}" fill="{color}"><title>{_e(title)}'
                          "</title></rect>")

    def key(self, entries: Sequence[tuple[str, str, bool]]) -> None:
        """A legend above the plot area's right end: (label, color, dashed line?)."""
        x = self.x1
        items = []
        for label, color, dashed in reversed(entries):
            w = len(label) * CHAR
            items.append((x - w, label, color, dashed))
            x -= w + 34
        for tx, label, color, dashed in items:
            if dashed:
                self.line(tx - 24, 12, tx - 6, 12, color, 1.5, "4 3")
            else:
                self.parts.append(f'<rect x="{_f(tx - 18)}" y="7.0" width="10.0" '
                                  f'height="10.0" fill="{color}"/>')
            self.text(tx, 16, label)

    def value_axis(self, tks: Sequence[float], horizontal: bool, title: str) -> None:
        """Grid lines and tick labels of the value axis (x when ``horizontal``)."""
        lo, hi = tks[0], tks[-1]
        for t in tks:
            if horizontal:
                x = self.x0 + (t - lo) / (hi - lo) * (self.x1 - self.x0)
                self.line(x, self.y0, x, self.y1, GRID, 0.6)
                self.text(x, self.y1 + 14, _num(t), "middle")
            else:
                y = self.y1 - (t - lo) / (hi - lo) * (self.y1 - self.y0)
                self.line(self.x0, y, self.x1, y, GRID, 0.6)
                self.text(self.x0 - 5, y + 4, _num(t), "end")
        if horizontal:
            self.text((self.x0 + self.x1) / 2, self.height - 6, title, "middle")
        else:
            self.text(12, (self.y0 + self.y1) / 2, title, "middle", rotate=-90)

    def frame(self) -> None:
        """The two axis lines (left and bottom)."""
        self.line(self.x0, self.y0, self.x0, self.y1, AXIS)
        self.line(self.x0, self.y1, self.x1, self.y1, AXIS)

    def done(self) -> str:
        head = (f'<svg role="img" aria-label="{_e(self.label)}" viewBox="0 0 {WIDTH} '
                f'{_f(self.height)}" width="{WIDTH}" height="{_f(self.height)}" '
                'font-family="DejaVu Sans, Arial, sans-serif">')
        return "\n".join([head, f'<g id="{_e(self.salt)}-plot">', *self.parts, "</g>",
                          "</svg>"]) + "\n"


def _left(tks: Sequence[float]) -> float:
    return 26 + CHAR * max(len(_num(t)) for t in tks)


def _columns(salt: str, label: str, names: Sequence[str], values: Sequence[int],
             colors: Sequence[str], xlabel: str, ylabel: str, turn: bool = False) -> str:
    """Vertical bars, one per named category."""
    tks = ticks(0, max([*values, 1]), integer=True)
    bottom = 30 + (CHAR * 0.75 * max(map(len, names), default=1) if turn else 16)
    g = _Svg(salt, label, 250 + (bottom - 46), _left(tks), bottom)
    g.value_axis(tks, horizontal=False, title=ylabel)
    slot = (g.x1 - g.x0) / max(len(names), 1)
    scale = (g.y1 - g.y0) / tks[-1]
    for i, (name, v, c) in enumerate(zip(names, values, colors, strict=True)):
        x = g.x0 + i * slot + slot * 0.1
        h = v * scale
        g.rect(x, g.y1 - h, slot * 0.8, h, c, f"{name}: {v:,}")
        cx = g.x0 + (i + 0.5) * slot
        if turn:
            g.text(cx + 3, g.y1 + 12, name, "end", rotate=-45)
        else:
            g.text(cx, g.y1 + 14, name, "middle")
    g.frame()
    g.text((g.x0 + g.x1) / 2, g.height - 6, xlabel, "middle")
    return g.done()


def class_sizes(h: Histogram, k: int, salt: str = "sizes") -> str:
    """Released classes per class-size bin; bins below ``k`` (none in a verified release)
    in red."""
    labels = h.labels()
    colors = [BAD if k > 1 and int(lo) < k else AFTER for lo in h.edges[:-1]]
    return _columns(salt, "bar chart: released classes per class size", labels,
                    list(h.counts), colors,
                    "class size (rows)" + (f"; k = {k}" if k > 1 else ""), "classes",
                    turn=len(labels) > 12)


def stars_per_record(counts: Sequence[int], salt: str = "rows") -> str:
    """Rows with 0, 1, ..., m stars."""
    return _columns(salt, "bar chart: rows by number of stars",
                    [str(i) for i in range(len(counts))], list(counts),
                    [BEFORE] + [STARS] * (len(counts) - 1),
                    "stars in the row (0: untouched; m: fully suppressed)", "rows")


def _rows(salt: str, label: str, names: Sequence[str],
          series: Sequence[tuple[str, Sequence[int], Sequence[str]]], xlabel: str,
          hi: int, legend: bool) -> str:
    """Horizontal bars, one row per name, one bar per series in each row (top to bottom)."""
    tks = ticks(0, max(hi, 1), integer=True)
    band = 12.0 * len(series) + 8
    top = 26.0
    g = _Svg(salt, label, top + band * max(len(names), 1) + 44,
             min(288.0, 16 + CHAR * max(map(len, names), default=4)), 44, top=top)
    g.value_axis(tks, horizontal=True, title=xlabel)
    scale = (g.x1 - g.x0) / tks[-1]
    bar = (band - 8) / len(series)
    for i, name in enumerate(names):
        y = g.y0 + i * band + 4
        for name_s, values, colors in series:
            v = values[i]
            who = f" ({name_s})" if legend else ""
            g.rect(g.x0, y, v * scale, bar - 1, colors[i], f"{name}{who}: {v:,}")
            y += bar
        g.text(g.x0 - 5, g.y0 + i * band + band / 2 + 4, name, "end")
    g.frame()
    if legend:
        g.key([(s[0], s[2][0], False) for s in series])
    return g.done()


def stars_per_column(stars: Sequence[tuple[str, int]], n: int, salt: str = "cols") -> str:
    """Stars in each QI column, as rows out of ``n``."""
    names = [short(c) for c, _ in stars]
    values = [v for _, v in stars]
    return _rows(salt, "bar chart: stars per QI column", names,
                 [("stars", values, [STARS] * len(values))],
                 f"stars (suppressed cells) out of {n:,} rows", max(n, 1), legend=False)


def measure(d: MeasureDistribution, salt: str) -> str:
    """Classes per bin of a per-class measure, with the model's threshold as a line."""
    h = d.histogram
    thr = d.threshold
    edges = list(h.edges)
    lo, hi = (min(edges), max(edges)) if edges else (0.0, 1.0)
    if thr is not None:
        lo, hi = min(lo, thr), max(hi, thr)
    xt = ticks(lo, hi, integer=False)
    yt = ticks(0, max([*h.counts, 1]), integer=True)
    g = _Svg(salt, f"histogram: {d.measure_name} per class against the threshold", 250,
             _left(yt), 46)
    g.value_axis(yt, horizontal=False, title="classes")

    def x_of(x: float) -> float:
        return g.x0 + (x - xt[0]) / (xt[-1] - xt[0]) * (g.x1 - g.x0)

    for t in xt:
        g.text(x_of(t), g.y1 + 14, _num(t), "middle")
        g.line(x_of(t), g.y1, x_of(t), g.y1 + 3, AXIS)
    scale = (g.y1 - g.y0) / yt[-1]
    labels = h.labels()
    for a, b, c, name in zip(edges[:-1], edges[1:], h.counts, labels, strict=True):
        bad = thr is not None and ((d.higher_is_better and b <= thr and a < thr)
                                   or (not d.higher_is_better and a > thr))
        x, w = x_of(a), (x_of(b) - x_of(a)) * 0.9
        g.rect(x, g.y1 - c * scale, w, c * scale, BAD if bad else AFTER, f"{name}: {c:,}")
    if thr is not None:
        g.line(x_of(thr), g.y0, x_of(thr), g.y1, LINE, 1.5, "5 3")
        g.key([(f"{d.threshold_name or 'threshold'} = {thr:g}", LINE, True)])
    g.frame()
    g.text((g.x0 + g.x1) / 2, g.height - 6, short(f"{d.measure_name} per class", 60),
           "middle")
    return g.done()


def before_after(v: ValueCounts, salt: str) -> str:
    """Rows per value of one QI column in the input and in the release (with stars)."""
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
    return _rows(salt, "bar chart: rows per value before and after the release", labels,
                 [("input", before, [BEFORE] * len(labels)),
                  ("release", after, [AFTER] * kept + [STARS] * (len(labels) - kept))],
                 "rows", max([*before, *after, 1]), legend=True)
