"""The HTML page (issue 12, part 2): self-contained, summary first with the numbers, every
user string escaped, the same bytes for the same report, plots as inline SVG."""

from __future__ import annotations

import re
import sys

import pytest

import starmin
from starmin.api import Release
from starmin.report.html import render
from starmin.report.record import Report
from tests.report.conftest import HOSTILE, hostile_table


def assert_self_contained(page: str) -> None:
    """Nothing the browser would fetch: no URL, no script, no external style or font."""
    low = page.lower()
    for bad in ("http://", "https://", "<script", "<link", "<iframe", "<img", "<object",
                "@import", "@font-face", "javascript:"):
        assert bad not in low, bad
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*//""", low)
    # the only references are to ids inside the page
    for ref in re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", low):
        assert ref.startswith("#"), ref
    for ref in re.findall(r"url\(([^)]*)\)", low):
        assert ref.startswith("#"), ref
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "duplicate ids"
    refs = set(re.findall(r'href="#([^"]+)"', page)) | set(re.findall(r"url\(#([^)]+)\)", page))
    assert refs <= set(ids)


def test_page_is_self_contained_with_plots(t_release: Release) -> None:
    page = render(t_release.report)
    assert page.startswith("<!DOCTYPE html>\n<html") and page.endswith("</html>\n")
    assert_self_contained(page)
    # class sizes, stars per column, records touched, one sensitive model, one per QI
    assert page.count("<svg") == 3 + 1 + len(t_release.report.inputs.qi)
    assert "<?xml" not in page and "<!DOCTYPE svg" not in page
    assert len(page) < 400_000


def test_summary_comes_first_with_the_numbers(t_release: Release) -> None:
    r = t_release.report
    page = render(r)
    summary = page[page.index('<section id="summary">'):page.index('<section id="plots">')]
    assert "Verified" in summary
    assert f"{r.stars:,} suppressed cells" in summary
    assert f"at least {r.lower_bound:,} stars" in summary
    assert f"{r.stars - r.lower_bound:,} stars above the bound" in summary or \
        "release is optimal" in summary
    assert r.model in summary and f"<dd>{r.method}</dd>" in summary
    assert f"{r.guarantee.kind}: " in summary
    assert 'class="gapbar"' in summary
    assert page.index('<section id="summary">') < page.index("<svg")


def test_gap_bar_widths() -> None:
    from starmin.report.html import _gap_bar

    bar = "".join(_gap_bar(200, 150))
    assert 'class="lb" style="width:75.00%"' in bar and 'style="width:25.00%"' in bar
    assert "No star" in "".join(_gap_bar(0, 0))


def test_same_report_same_bytes(t_release: Release) -> None:
    r = t_release.report
    # rendered again, from a report whose creation time and timings differ (the page leaves
    # them out): the same bytes
    later = Report.from_dict({**r.as_dict(), "created": "2099-01-01T00:00:00+00:00",
                              "timings_s": {"solve": 123.0}})
    assert later != r
    assert render(later) == render(r)


def test_same_run_twice_same_bytes() -> None:
    df = hostile_table()
    pages = [render(starmin.anonymize(df, qi=[HOSTILE, "age"], sensitive="dis", k=3,
                                      l=2).report) for _ in range(2)]
    assert pages[0] == pages[1]


def test_hostile_names_and_values_are_escaped() -> None:
    release = starmin.anonymize(hostile_table(), qi=[HOSTILE, "age"], sensitive="dis", k=3,
                                l=2)
    page = render(release.report)
    assert_self_contained(page)  # no <script, however the column is named
    assert "<b>" not in page and "&amp;amp;" in page  # the value "<b>0</b>&amp;" as text
    assert "&lt;script&gt;alert(" in page
    assert HOSTILE not in page
    assert "(missing)" in page  # the missing value has a name


def test_plots_need_no_plotting_library(t_release: Release,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The plots are hand-written SVG: the page is whole with matplotlib unimportable."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    page = render(t_release.report)
    assert page.count("<svg") == 3 + 1 + len(t_release.report.inputs.qi)
    assert_self_contained(page)


def test_a_version_1_report_renders_without_plots(t_release: Release) -> None:
    d = t_release.report.as_dict()
    del d["report_version"], d["distributions"]
    page = render(Report.from_dict(d))
    assert "holds no distributions" in page and "<svg" not in page
    assert f"{t_release.report.stars:,} suppressed cells" in page


def test_svg_is_deterministic_and_has_no_metadata(t_release: Release) -> None:
    from starmin.report import charts

    d = t_release.report.distributions
    assert d is not None
    a = charts.class_sizes(d.class_sizes, d.k)
    assert a == charts.class_sizes(d.class_sizes, d.k)
    assert "<metadata" not in a and "xmlns" not in a and "<dc:date" not in a
    assert 'id="sizes-' in a  # ids carry the figure's prefix


def test_every_bar_carries_its_number(t_release: Release) -> None:
    from starmin.report import charts

    d = t_release.report.distributions
    assert d is not None
    v = d.columns[0]
    svg = charts.before_after(v, "v0")
    for value, before, after in zip(v.values, v.before, v.after, strict=True):
        name = charts.short(value)
        assert f"<title>{name} (input): {before:,}</title>" in svg.replace("&#x27;", "'")
        assert f"<title>{name} (release): {after:,}</title>" in svg.replace("&#x27;", "'")
    assert f"<title>* (suppressed) (release): {v.stars:,}</title>" in svg
    sizes = charts.class_sizes(d.class_sizes, d.k)
    for label, count in zip(d.class_sizes.labels(), d.class_sizes.counts, strict=True):
        assert f"<title>{label}: {count:,}</title>" in sizes


def test_ticks_are_round_and_cover_the_range() -> None:
    from starmin.report.charts import ticks

    assert ticks(0, 7, integer=True) == [0, 2, 4, 6, 8]
    assert ticks(0, 1_000_000, integer=True) == [0, 200_000, 400_000, 600_000, 800_000,
                                                  1_000_000]
    assert ticks(0, 3, integer=True) == [0, 1, 2, 3]
    assert ticks(0.1, 0.37, integer=False) == [0.1, 0.2, 0.3, 0.4]
    assert ticks(0, 0.9, integer=False) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert ticks(0, 0, integer=True) == [0, 1]
