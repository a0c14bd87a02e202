"""The independent verifier: check privacy models on a *released* table.

Guarantee: exact. The verdict depends only on the released table and the models: classes are
the groups of rows with equal released QI vectors (what an attacker sees; ``*`` is an ordinary
value and a missing value is a value of its own), and each model's own exact test decides every
class. Row order and row labels do not matter. Values compare as polars compares them when it
groups: in an in-memory float column ``0.0`` equals ``-0.0`` and every NaN equals every NaN;
a CSV file is read as text, so there values compare as written. The verifier never reads a
release plan and imports no algorithm, transform or engine code (a test enforces this).

Given the original table (and, per QI column, the ARX hierarchy used), it also checks that
every released QI cell is its row's value, an ancestor of it, or the star (``_cells``).

Complexity: one hash group-by over the ``n`` rows on the ``m`` QI columns and the sensitive
columns (or the QI columns alone, hashing the sensitive values; see ``_classes``), plus
O(n + classes x |S|) numpy work per sensitive column and model.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray

from starmin.errors import InvalidInput, on_command_line
from starmin.models.base import Evaluation, PrivacyModel
from starmin.models.combine import AllOf
from starmin.verifier._cells import HierarchyRows, check_cells
from starmin.verifier._classes import CHUNK_CELLS, Classes, group
from starmin.verifier._input import check_columns, names, to_frame
from starmin.verifier.report import ModelCheck, SizeSummary, VerificationReport, ViolatingClass

EXAMPLES = 5
"""Violating classes listed per check."""

COMPACT_MIN_VALUES = 64
"""With more sensitive values than this, models that read only the values a class holds are
judged on compact histograms (:meth:`Classes.compact_chunks`), O(entries) instead of
O(classes x |S|)."""

_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 1000)


def verify(
    table: Any,
    qi: str | Iterable[str],
    sensitive: str | Iterable[str] | None,
    models: PrivacyModel | Sequence[PrivacyModel],
    *,
    star: str = "*",
    original: Any = None,
    hierarchies: Mapping[str, str | os.PathLike[str] | HierarchyRows] | None = None,
) -> VerificationReport:
    """Check every model on a released table.

    Parameters
    ----------
    table : polars / pandas / pyarrow table, the path of a CSV (separator ``;``, ``,`` or
        tab, sniffed) or Parquet file, or a Spark DataFrame (checked where its rows are:
        :mod:`starmin.verifier.spark`).
    qi : the quasi-identifier columns (a list or a comma-separated string).
    sensitive : the sensitive columns (zero or more); every model that uses a sensitive
        attribute is checked on each of them.
    models : one model or several (an ``AllOf`` is checked part by part).
    star : the suppression symbol, for the star counts (it is an ordinary value otherwise).
    original : the table the release was made from (same rows, same order; a path or a
        table as ``table``). When given, every released QI cell must also be its row's value,
        an ancestor of it in the column's hierarchy, or ``star`` (``report.cells``).
    hierarchies : per QI column, the ARX hierarchy CSV (a path, or its rows) the release
        used; needs ``original``. Columns without one allow the value or ``star`` only.

    Raises :class:`~starmin.errors.InvalidInput` for an unknown column, an empty table, a
    column both QI and sensitive, or a model that needs a sensitive column when none is given.
    """
    qi_t = names(qi, "quasi-identifier")
    sa_t = names(sensitive, "sensitive")
    flat = _flatten(models)
    if hierarchies and original is None:
        given = "--original FILE" if on_command_line() else "original=TABLE"
        raise InvalidInput("checking released cells against hierarchies needs the original "
                           f"table: give it with {given}")
    needy = [m.name for m in flat if m.uses_sensitive]
    if type(table).__module__.startswith("pyspark"):  # the Spark path (.spark): rows stay put
        from starmin.verifier.spark import spark_cells, spark_classes

        if needy and not sa_t:
            raise InvalidInput(f"{needy[0]} needs a sensitive column: pass "
                               "sensitive=['COLUMN'] (on the command line: --sensitive COLUMN)")
        classes = spark_classes(table, qi_t, sa_t)
        cells = None if original is None else spark_cells(
            table, original, qi_t, dict(hierarchies or {}), star)
    else:
        df = to_frame(table, sa_t, qi_t)  # a file's column names are checked before the read
        check_columns(df, qi_t, sa_t)
        cells = None if original is None else check_cells(
            df, to_frame(original, ()), qi_t, dict(hierarchies or {}), star)
        if needy and not sa_t:
            raise InvalidInput(f"{needy[0]} needs a sensitive column: pass "
                               "sensitive=['COLUMN'] (on the command line: --sensitive COLUMN)")
        classes = group(df, qi_t, sa_t)
    checks: list[ModelCheck] = []
    size_only = [m for m in flat if not m.uses_sensitive]
    if size_only:
        hist = classes.sizes[:, None]
        overall = np.array([int(classes.sizes.sum())], dtype=np.int64)
        for m in size_only:
            ev = m.evaluate(hist, overall, ("*all*",))
            checks.append(_check(m.name, None, ev.ok, ev.measure, ev, classes))
    for a, col in enumerate(classes.sensitive):
        checks.extend(_check_column(classes, a, col.name, [m for m in flat if m.uses_sensitive]))
    order = {m.name: i for i, m in enumerate(flat)}
    checks.sort(key=lambda c: order[c.name])  # models in the order given
    stars, suppressed, full = _stars(classes, star)
    return VerificationReport(
        passed=all(c.passed for c in checks) and (cells is None or cells.passed),
        n=int(classes.sizes.sum()), classes=classes.g,
        qi=qi_t, sensitive=sa_t, star=star, stars=stars, suppressed_records=suppressed,
        fully_suppressed_records=full, class_sizes=_summary(classes.sizes),
        checks=tuple(checks), cells=cells)


def _flatten(models: PrivacyModel | Sequence[PrivacyModel]) -> list[PrivacyModel]:
    seq = [models] if isinstance(models, PrivacyModel) else list(models)
    if not seq:
        raise InvalidInput("no privacy model given: pass e.g. [KAnonymity(5)]")
    out: list[PrivacyModel] = []
    for m in seq:
        if isinstance(m, AllOf):
            out.extend(m.models)
        elif isinstance(m, PrivacyModel):
            out.append(m)
        else:
            raise InvalidInput(f"{m!r} is not a privacy model: pass models such as "
                               "KAnonymity(5) or LDiversity(2)")
    return out


def _check_column(classes: Classes, a: int, name: str,
                  models: list[PrivacyModel]) -> list[ModelCheck]:
    """Evaluate every sensitive model on column ``a``, chunk by chunk."""
    if not models:
        return []
    g = classes.g
    values = classes.sensitive[a].values
    ok = [np.ones(g, dtype=bool) for _ in models]
    measure = [np.zeros(g, dtype=np.float64) for _ in models]
    first: list[Evaluation | None] = [None] * len(models)

    def judge(idx: NDArray[np.int64], hist: NDArray[np.int64], overall: NDArray[np.int64],
              vals: Sequence[object]) -> None:
        for j, m in enumerate(models):
            ev = m.evaluate(hist, overall, vals)
            ok[j][idx] = ev.ok
            measure[j][idx] = ev.measure
            first[j] = first[j] or ev

    if len(values) > COMPACT_MIN_VALUES and all(
            getattr(m, "support_only", False) for m in models):
        for idx, hist, overall, vals in classes.compact_chunks(a):
            judge(idx, hist, overall, vals)
    else:
        overall = classes.overall(a)
        one, code = classes.singletons(a)
        if len(one):  # classes of one row: judge each held value's one-hot histogram once
            s = len(values)
            held = np.flatnonzero(np.bincount(code, minlength=s))
            step = max(1, CHUNK_CELLS // max(s, 1))
            for lo in range(0, len(held), step):
                part = held[lo:lo + step]
                eye = np.zeros((len(part), s), dtype=np.int64)
                eye[np.arange(len(part)), part] = 1
                row = np.full(s, -1, dtype=np.int64)  # value -> row of ``eye``
                row[part] = np.arange(len(part))
                sel = np.arange(len(one)) if len(part) == len(held) else \
                    np.flatnonzero(row[code] >= 0)
                at = row[code[sel]]
                for j, m in enumerate(models):
                    ev = m.evaluate(eye, overall, values)
                    ok[j][one[sel]] = ev.ok[at]
                    measure[j][one[sel]] = ev.measure[at]
                    first[j] = first[j] or ev
        for idx, hist in classes.chunks(a):
            judge(idx, hist, overall, values)
    out = []
    for j, m in enumerate(models):
        ev0 = first[j]
        assert ev0 is not None
        out.append(_check(m.name, name, ok[j], measure[j], ev0, classes))
    return out


def _check(name: str, sensitive: str | None, ok: NDArray[np.bool_],
           measure: NDArray[np.float64], ev: Evaluation, classes: Classes) -> ModelCheck:
    ok = np.asarray(ok, dtype=bool)
    measure = np.asarray(measure, dtype=np.float64)
    bad = np.flatnonzero(~ok)
    worst = None if len(measure) == 0 else float(
        measure.min() if ev.higher_is_better else measure.max())
    picked = _pick(bad, measure[bad], ev.higher_is_better, classes)
    examples = tuple(
        ViolatingClass(classes.key(int(i)), int(classes.sizes[i]), float(measure[i]))
        for i in picked)
    return ModelCheck(name, sensitive, len(bad) == 0, worst, ev.measure_name,
                      ev.higher_is_better, len(bad), int(classes.sizes[bad].sum()), examples)


def _pick(bad: NDArray[np.int64], measure: NDArray[np.float64], higher_is_better: bool,
          classes: Classes) -> NDArray[np.int64]:
    """The ``EXAMPLES`` worst of the violating classes ``bad`` (``measure`` is theirs), worst
    first; ties broken by the hashes of the released QI values, column by column
    (:meth:`Classes.first_by_key`), so the choice does not depend on row order."""
    if len(bad) == 0:
        return bad
    b = -measure if higher_is_better else measure.copy()  # larger is worse
    b[np.isnan(b)] = np.inf
    picked: list[NDArray[np.int64]] = []
    left = EXAMPLES
    while True:  # the worst measure first, then the next worst, ...
        at = b == b.max()
        picked.append(classes.first_by_key(bad[at], left))
        left -= len(picked[-1])
        if not left or at.all():
            return np.concatenate(picked)
        bad, b = bad[~at], b[~at]


def _stars(classes: Classes, star: str) -> tuple[int, int, int]:
    """Stars, rows with a star, rows with only stars (counted per class, times its size)."""
    frame = classes.frame
    text = [c for c in frame.columns if frame[c].dtype in (pl.String, pl.Categorical)
            or isinstance(frame[c].dtype, pl.Enum)]
    if not text:
        return 0, 0, 0
    per_class = frame.select(pl.sum_horizontal(
        [(pl.col(c).cast(pl.String) == star).fill_null(False) for c in text]))
    per = per_class.to_series().to_numpy().astype(np.int64)
    sizes = classes.sizes
    return (int((per * sizes).sum()), int(sizes[per > 0].sum()),
            int(sizes[per == frame.width].sum()))


def _summary(sizes: NDArray[np.int64]) -> SizeSummary:
    """Min, median, max and bucket counts of the class sizes, from one count per size."""
    per_size = np.bincount(sizes)  # classes of each size (sizes are at most n)
    cum = np.cumsum(per_size)
    g = int(cum[-1])
    lo_mid = int(np.searchsorted(cum, (g - 1) // 2, side="right"))  # sizes in sorted order,
    hi_mid = int(np.searchsorted(cum, g // 2, side="right"))  # at positions (g-1)//2, g//2
    edges = np.minimum(np.asarray(_BUCKETS, dtype=np.int64), len(per_size))
    below = np.r_[0, cum][edges]  # classes smaller than each bucket's lower edge
    counts = np.diff(np.r_[below, g])
    labels = [str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}"
              for lo, hi in pairwise(_BUCKETS)] + [f"{_BUCKETS[-1]}+"]
    return SizeSummary(int(sizes.min()), (lo_mid + hi_mid) / 2, int(sizes.max()),
                       tuple(zip(labels, (int(c) for c in counts), strict=True)))
