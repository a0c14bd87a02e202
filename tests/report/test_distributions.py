"""The plot data (issue 12, part 2) is what the released table and the input hold: computed
from the plan and the row types, checked here against the tables themselves."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.api import Release
from starmin.data.rowtypes import RowTypes
from starmin.models import KAnonymity, LDiversity
from starmin.report.distributions import (
    MAX_BINS,
    MAX_VALUES,
    distributions,
    integer_histogram,
    measure_histogram,
    threshold_of,
)
from starmin.transform.plan import STAR, Guarantee, ReleasePlan
from tests.report.conftest import census


def _released_classes(release: Release) -> pl.DataFrame:
    qi = list(release.report.inputs.qi)
    return release.frame.group_by(qi).len()


@pytest.mark.parametrize("which", ["t_release", "l_release"])
def test_class_sizes_and_stars_per_row_match_the_released_table(
        which: str, request: pytest.FixtureRequest) -> None:
    release: Release = request.getfixturevalue(which)
    d = release.report.distributions
    assert d is not None
    sizes = _released_classes(release)["len"].to_numpy()
    assert d.class_sizes == integer_histogram(sizes)
    assert sum(d.class_sizes.counts) == len(sizes) == release.verification.classes
    qi = list(release.report.inputs.qi)
    per_row = release.frame.select(
        pl.sum_horizontal([(pl.col(c) == "*").cast(pl.Int64) for c in qi])).to_series()
    expect = np.bincount(per_row.to_numpy(), minlength=len(qi) + 1)
    assert list(d.stars_per_record) == expect.tolist()
    assert sum(d.stars_per_record[1:]) == release.report.loss.suppressed_records
    assert d.stars_per_record[-1] == release.report.loss.fully_suppressed_records


def test_values_before_and_after_match_the_tables(t_release: Release) -> None:
    d = t_release.report.distributions
    assert d is not None
    source = census()
    for v in d.columns:
        before = source[v.column].cast(pl.String).value_counts()
        after = t_release.frame[v.column].value_counts()
        b = dict(zip(before[v.column].to_list(), before["count"].to_list(), strict=True))
        a = dict(zip(after[v.column].to_list(), after["count"].to_list(), strict=True))
        assert v.distinct == len(b)
        for x, nb, na in zip(v.values, v.before, v.after, strict=True):
            assert (nb, na) == (b.get(x, 0), a.get(x, 0)), (v.column, x)
        assert v.stars == a.get("*", 0) == t_release.report.stars_per_column[v.column]
        assert v.other_before == sum(b.values()) - sum(v.before)
        assert v.other_after == sum(a.values()) - sum(v.after) - v.stars


def test_sensitive_measures_agree_with_the_verifier(t_release: Release,
                                                   l_release: Release) -> None:
    for release, name in ((t_release, "EMD"), (l_release, "size / max count")):
        d = release.report.distributions
        assert d is not None and len(d.sensitive) == 1
        s = d.sensitive[0]
        check = next(c for c in release.verification.checks if c.sensitive == "occupation")
        assert s.measure_name == check.measure_name == name
        assert s.worst == pytest.approx(check.worst)
        assert sum(s.histogram.counts) + s.infinite == release.verification.classes
        assert len(s.histogram.counts) <= MAX_BINS
        lo, hi = s.histogram.edges[0], s.histogram.edges[-1]
        assert s.threshold is not None and lo <= s.threshold <= hi  # the line is in range
    t = t_release.report.distributions
    assert t is not None and (t.sensitive[0].threshold_name, t.sensitive[0].threshold) == \
        ("t", 0.4)
    assert t.k == 3


def test_a_k_anonymous_release_has_no_sensitive_plot() -> None:
    release = starmin.anonymize(census(200), qi="sex,age", k=4)
    d = release.report.distributions
    assert d is not None and d.sensitive == () and d.k == 4


def test_many_values_are_bounded() -> None:
    """A column with 120 values shows the MAX_VALUES most frequent; the rest is "other"."""
    rows = 2400
    df = pl.DataFrame({"q": [i % 120 for i in range(rows)],
                       "r": [(i * 7) % 5 for i in range(rows)]})
    release = starmin.anonymize(df, qi="q,r", k=3, method="pattern-packing")
    d = release.report.distributions
    assert d is not None
    q = d.columns[0]
    assert q.distinct == 120 and len(q.values) == MAX_VALUES
    assert sum(q.before) + q.other_before == rows
    assert sum(q.after) + q.other_after + q.stars == rows
    assert q.values == tuple(sorted(q.values, key=int))  # shown in the column's order
    assert len(d.class_sizes.counts) <= MAX_BINS + 1


def test_equal_output_vectors_are_one_class() -> None:
    """A plan that lists one vector twice releases one class (as the verifier sees it)."""
    rt = RowTypes.from_arrays(np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 2))
    plan = ReleasePlan(np.array([[0, STAR], [0, STAR], [1, STAR]], dtype=np.int32),
                       out_idx=np.array([0, 1, 2, 2]), type_idx=np.array([0, 1, 2, 3]),
                       key_idx=np.zeros(4, dtype=np.int64), count=np.array([2, 2, 2, 2]),
                       method="hand", guarantee=Guarantee("heuristic", "by hand"))
    plan.validate(rt)
    d = distributions(rt, plan, KAnonymity(2))
    assert d.class_sizes.counts == (2,) and d.class_sizes.edges == (4, 5)  # two classes of 4
    assert d.stars_per_record == (0, 8, 0)


def test_histograms() -> None:
    h = integer_histogram(np.array([5, 5, 6, 9]))
    assert h.edges == (5, 6, 7, 8, 9, 10) and h.counts == (2, 1, 0, 0, 1)
    assert h.labels() == ["5", "6", "7", "8", "9"]
    wide = integer_histogram(np.array([2, 3, 40, 1000, 5000]))
    assert len(wide.counts) <= MAX_BINS + 1 and sum(wide.counts) == 5
    assert wide.edges[0] == 2 and wide.edges[-1] == 5001
    assert all(b > a for a, b in zip(wide.edges[:-1], wide.edges[1:], strict=True))
    m = measure_histogram(np.array([0.05, 0.1, 0.12]), 0.2)
    assert m.edges[0] == 0.05 and m.edges[-1] == pytest.approx(0.2) and sum(m.counts) == 3
    assert measure_histogram(np.array([2.0, 3.0]), 2.0).counts == (1, 1)


def test_thresholds() -> None:
    from starmin.models import RecursiveCLDiversity, TCloseness

    assert threshold_of(TCloseness("0.15")) == (0.15, "t")
    assert threshold_of(LDiversity(3)) == (3.0, "l")
    assert threshold_of(RecursiveCLDiversity(2, 3)) == (2.0, "c")
    assert threshold_of(KAnonymity(3)) == (None, None)
