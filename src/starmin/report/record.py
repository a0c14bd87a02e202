"""The report of a release as a frozen, typed record.

:class:`Report` holds everything a reader needs to trust and judge a release (DESIGN.md,
Report): the input, the model, the method and its guarantee, the methods ``auto`` tried, the
stars and the proven lower bound with the gap, the loss measures (stars, generalized cells,
Iyengar's loss, precision, discernibility, class sizes, KL-divergence:
:class:`~starmin.transform.loss.LossMeasures`), the hierarchies used, the verifier's verdict,
the per-stage timings, the seed, and the compact distributions the HTML report plots
(:class:`Distributions`). It is built by :func:`starmin.report.build.build_report` and rendered
by :mod:`starmin.report.text` (the CLI's summary), :meth:`Report.as_dict` (the JSON file,
``OUT.report.json``) and :mod:`starmin.report.html` (``OUT.report.html``).

:meth:`Report.as_dict` and :meth:`Report.from_dict` are inverse on JSON data, so a report read
back from its file is equal to the one written and renders to the same bytes. The JSON keys
are the version-1 keys plus ``report_version`` and ``distributions`` (version 2) and
``generalized_cells``, ``measures`` and ``hierarchies`` (version 3; docs/report.md);
:meth:`Report.from_dict` reads version-1 and -2 files too (without the newer parts).

A report is also a read-only mapping over its JSON form: ``report["stars"]`` gives what the
JSON file holds under ``"stars"`` (a fresh copy: changing it changes nothing in the record).
Free-form parts (the certificate, the verifier's verdict, the portfolio's budget) are kept as
read-only JSON (:func:`freeze`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any

from starmin.errors import InvalidInput
from starmin.transform.loss import LossMeasures
from starmin.transform.plan import Guarantee

REPORT_VERSION = 3
"""Version of the JSON layout: 2 adds ``report_version`` and ``distributions`` to the
version-1 keys (which files without ``report_version`` have); 3 adds ``generalized_cells``,
``measures`` and ``hierarchies``."""


def freeze(obj: Any) -> Any:
    """JSON data made read-only: dicts become mapping proxies, lists tuples."""
    if isinstance(obj, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in obj.items()})
    if isinstance(obj, list | tuple):
        return tuple(freeze(v) for v in obj)
    return obj


def thaw(obj: Any) -> Any:
    """The plain JSON form of :func:`freeze`'s output (dicts and lists)."""
    if isinstance(obj, Mapping):
        return {k: thaw(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [thaw(v) for v in obj]
    return obj


def _need(d: Mapping[str, Any], key: str, where: str = "report") -> Any:
    try:
        return d[key]
    except (KeyError, TypeError):
        raise InvalidInput(f"the {where} has no {key!r}: this is not a report that starmin "
                           "anonymize wrote; give the OUT.report.json written beside a "
                           "release") from None


# ---- parts ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Inputs:
    """The input table: where it came from, its size and its column roles."""

    source: str
    n: int
    m: int
    t_in: int
    qi: tuple[str, ...]
    sensitive: tuple[str, ...]
    identifiers_dropped: tuple[str, ...]
    cardinalities: Mapping[str, int]
    """Distinct values per QI column."""

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "n": self.n, "m": self.m, "t_in": self.t_in,
                "qi": list(self.qi), "sensitive": list(self.sensitive),
                "identifiers_dropped": list(self.identifiers_dropped),
                "cardinalities": dict(self.cardinalities)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Inputs:
        w = "report's input"
        return cls(str(_need(d, "source", w)), int(_need(d, "n", w)), int(_need(d, "m", w)),
                   int(_need(d, "t_in", w)), tuple(_need(d, "qi", w)),
                   tuple(d.get("sensitive") or ()), tuple(d.get("identifiers_dropped") or ()),
                   MappingProxyType({str(k): int(v)
                                     for k, v in (d.get("cardinalities") or {}).items()}))


@dataclass(frozen=True)
class Loss:
    """What the release gave up: stars (suppressed QI cells, Liang & Yuan Sec. 2), their share
    of the ``n x m`` QI cells, rows with at least one star (Xiao et al.'s tuple count, Sec. 3),
    and rows whose every QI cell is a star."""

    stars: int
    star_fraction: float
    suppressed_records: int
    fully_suppressed_records: int
    generalized_cells: int = 0
    """QI cells released as an internal node of their hierarchy (0 for suppression only)."""


@dataclass(frozen=True)
class Bounds:
    """The proven lower bound on the optimal stars, each bound by name, and the gap."""

    lower_bound: int
    lower_bounds: Mapping[str, int]
    gap: int
    """``stars + generalized cells - lower_bound``: the cells not released as their value
    (only stars, with suppression only) above the bound, which bounds them too."""
    gap_ratio: float | None
    """``(stars + generalized cells) / lower_bound`` (1.0 when both are zero; None for a
    zero bound)."""


@dataclass(frozen=True)
class ClassSummary:
    """The released equivalence classes: how many and their sizes."""

    count: int
    min_size: int
    median_size: float
    max_size: int

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "min_size": self.min_size,
                "median_size": self.median_size, "max_size": self.max_size}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClassSummary:
        w = "report's classes"
        return cls(int(_need(d, "count", w)), int(_need(d, "min_size", w)),
                   float(_need(d, "median_size", w)), int(_need(d, "max_size", w)))


@dataclass(frozen=True)
class MethodTrial:
    """One method of the ``auto`` portfolio: its guarantee kind, what happened to it
    (``released``, ``tried``, ``failed``, ``skipped``), its stars when it ran, its estimated
    work units, and the note or reason (why it was skipped or failed)."""

    method: str
    guarantee: str
    status: str
    stars: int | None = None
    work: float | None = None
    note: str | None = None
    reason: str | None = None
    seconds: float | None = None

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"method": self.method, "guarantee": self.guarantee,
                             "status": self.status, "stars": self.stars, "work": self.work}
        for k in ("note", "reason", "seconds"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> MethodTrial:
        w = "report's portfolio entry"
        return cls(str(_need(d, "method", w)), str(d.get("guarantee", "")),
                   str(_need(d, "status", w)), d.get("stars"), d.get("work"), d.get("note"),
                   d.get("reason"), d.get("seconds"))


@dataclass(frozen=True)
class Portfolio:
    """What ``--method auto`` did: each method tried or skipped, the work budget (units,
    spent) and, when a ratio method ran, the ratio that bounds the release."""

    trials: tuple[MethodTrial, ...]
    budget: Mapping[str, Any] | None = None
    ratio: Mapping[str, Any] | None = None


# ---- distributions ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Histogram:
    """Counts per bin: bin ``i`` holds the values in ``[edges[i], edges[i + 1])`` (the last
    bin is closed)."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"edges": list(self.edges), "counts": list(self.counts)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Histogram:
        return cls(tuple(d["edges"]), tuple(int(c) for c in d["counts"]))

    def labels(self) -> list[str]:
        """A label per bin: ``5`` for one whole number, ``6–9`` for whole-number bins,
        ``0.1–0.15`` otherwise."""
        out = []
        whole = all(float(x).is_integer() for x in self.edges)
        for lo, hi in zip(self.edges[:-1], self.edges[1:], strict=True):
            if whole:
                a, b = int(lo), int(hi) - 1
                out.append(f"{a}" if a == b else f"{a}–{b}")
            else:
                out.append(f"{lo:.4g}–{hi:.4g}")
        return out


@dataclass(frozen=True)
class MeasureDistribution:
    """One model's per-class measure on one sensitive column (the EMD of each class for
    t-closeness, its effective l for l-diversity, ...) against the model's threshold."""

    model: str
    sensitive: str
    measure_name: str
    higher_is_better: bool
    threshold: float | None
    """``t`` (t-closeness), ``l`` (l-diversity), ``c`` (recursive), ``p`` (p-sensitivity)."""
    threshold_name: str | None
    worst: float | None
    histogram: Histogram
    """Classes per measure bin (finite measures)."""
    infinite: int = 0
    """Classes whose measure is infinite (e.g. one sensitive value only)."""

    def as_dict(self) -> dict[str, Any]:
        return {"model": self.model, "sensitive": self.sensitive,
                "measure_name": self.measure_name, "higher_is_better": self.higher_is_better,
                "threshold": self.threshold, "threshold_name": self.threshold_name,
                "worst": self.worst, "histogram": self.histogram.as_dict(),
                "infinite": self.infinite}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> MeasureDistribution:
        return cls(str(d["model"]), str(d["sensitive"]), str(d["measure_name"]),
                   bool(d["higher_is_better"]), d.get("threshold"), d.get("threshold_name"),
                   d.get("worst"), Histogram.from_dict(d["histogram"]),
                   int(d.get("infinite", 0)))


@dataclass(frozen=True)
class ValueCounts:
    """One QI column's value distribution before and after the release: rows per shown value
    (at most :data:`starmin.report.build.MAX_VALUES`, the most frequent in the input, in the
    column's sort order; ``None`` is the missing value), the rows of the other values, and the
    released stars."""

    column: str
    distinct: int
    values: tuple[str | None, ...]
    before: tuple[int, ...]
    after: tuple[int, ...]
    other_before: int
    other_after: int
    stars: int
    generalized: int = 0
    """Released cells at an internal node of the column's hierarchy (a group label)."""

    def as_dict(self) -> dict[str, Any]:
        return {"column": self.column, "distinct": self.distinct, "values": list(self.values),
                "before": list(self.before), "after": list(self.after),
                "other_before": self.other_before, "other_after": self.other_after,
                "stars": self.stars, "generalized": self.generalized}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ValueCounts:
        return cls(str(d["column"]), int(d["distinct"]),
                   tuple(None if v is None else str(v) for v in d["values"]),
                   tuple(int(v) for v in d["before"]), tuple(int(v) for v in d["after"]),
                   int(d["other_before"]), int(d["other_after"]), int(d["stars"]),
                   int(d.get("generalized", 0)))


@dataclass(frozen=True)
class Distributions:
    """The compact data behind the HTML report's plots, computed once from the release plan
    and the row types (the released table and the input, aggregated) so that a report can be
    re-rendered from its JSON alone. Sizes are bounded: bins, not rows."""

    class_sizes: Histogram
    """Released classes per class-size bin (integer edges)."""
    k: int
    """The smallest class size the model implies (1: none)."""
    stars_per_record: tuple[int, ...]
    """Rows with 0, 1, ..., m stars."""
    sensitive: tuple[MeasureDistribution, ...]
    columns: tuple[ValueCounts, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"class_sizes": self.class_sizes.as_dict(), "k": self.k,
                "stars_per_record": list(self.stars_per_record),
                "sensitive": [s.as_dict() for s in self.sensitive],
                "columns": [c.as_dict() for c in self.columns]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Distributions:
        try:
            return cls(Histogram.from_dict(d["class_sizes"]), int(d["k"]),
                       tuple(int(v) for v in d["stars_per_record"]),
                       tuple(MeasureDistribution.from_dict(s) for s in d["sensitive"]),
                       tuple(ValueCounts.from_dict(c) for c in d["columns"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInput(f"the report's distributions are damaged ({type(exc).__name__}: "
                               f"{exc}); re-run starmin anonymize to write them again") from None


# ---- the report -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Report(Mapping[str, Any]):
    """The report of one release (see the module docstring)."""

    starmin_version: str
    created: str
    """When the report was made (UTC, ISO 8601)."""
    inputs: Inputs
    model: str
    method: str
    guarantee: Guarantee
    portfolio: Portfolio | None
    """``None`` for a named method."""
    loss: Loss
    bounds: Bounds
    stars_per_column: Mapping[str, int]
    classes: ClassSummary
    certificate: Mapping[str, Any]
    """The algorithm's own facts behind its guarantee (read-only JSON)."""
    verified: bool
    verification: Mapping[str, Any]
    """The independent verifier's verdict (read-only JSON of its ``as_dict``)."""
    timings: Mapping[str, float]
    """Seconds per pipeline stage (read, aggregate, solve, lower_bounds, apply, verify,
    report)."""
    seed: int
    distributions: Distributions | None = None
    """``None`` in version-1 reports."""
    measures: LossMeasures | None = None
    """The loss measures (``None`` before version 3)."""
    hierarchies: Mapping[str, Any] | None = None
    """Per QI column with a hierarchy: its source, height, groups and domain (read-only
    JSON); ``None`` for suppression only (and before version 3)."""
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The method options the user passed (``anonymize(..., options=)``, ``--option``;
    read-only JSON); empty when none (the JSON key ``"options"`` is then left out)."""
    version: int = REPORT_VERSION

    # -- convenience ---------------------------------------------------------------------------
    @property
    def stars(self) -> int:
        return self.loss.stars

    @property
    def lower_bound(self) -> int:
        return self.bounds.lower_bound

    def with_source(self, source: str) -> Report:
        """A copy whose input source reads ``source``."""
        return replace(self, inputs=replace(self.inputs, source=source))

    # -- JSON ----------------------------------------------------------------------------------
    @cached_property
    def _json(self) -> dict[str, Any]:
        return self._build_dict()

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (``OUT.report.json``): plain dicts, lists and numbers."""
        return copy.deepcopy(self._json)

    def _build_dict(self) -> dict[str, Any]:
        pf = self.portfolio
        b = self.bounds
        d: dict[str, Any] = {
            "starmin_version": self.starmin_version,
            "report_version": self.version,
            "created": self.created,
            "input": self.inputs.as_dict(),
            "model": self.model,
            "method": self.method,
            "guarantee": self.guarantee.as_dict(),
            "portfolio": None if pf is None else [t.as_dict() for t in pf.trials],
            "portfolio_budget": None if pf is None else thaw(pf.budget),
            "portfolio_ratio": None if pf is None else thaw(pf.ratio),
            "stars": self.loss.stars,
            "star_fraction": self.loss.star_fraction,
            "suppressed_records": self.loss.suppressed_records,
            "fully_suppressed_records": self.loss.fully_suppressed_records,
            "lower_bound": b.lower_bound,
            "lower_bounds": dict(b.lower_bounds),
            "gap": b.gap,
            "gap_ratio": b.gap_ratio,
            "stars_per_column": dict(self.stars_per_column),
            "classes": self.classes.as_dict(),
            "certificate": thaw(self.certificate),
            "verified": self.verified,
            "verification": thaw(self.verification),
            "timings_s": dict(self.timings),
            "seed": self.seed,
        }
        if self.version < 2:
            del d["report_version"]
        else:
            d["distributions"] = (None if self.distributions is None
                                  else self.distributions.as_dict())
        if self.version >= 3:
            d["generalized_cells"] = self.loss.generalized_cells
            d["measures"] = None if self.measures is None else self.measures.as_dict()
            d["hierarchies"] = thaw(self.hierarchies)
        if self.options:
            d["options"] = thaw(self.options)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Report:
        """Read a report's JSON form (version 1, 2 or 3). Raises
        :class:`~starmin.errors.InvalidInput` naming the first missing key."""
        if not isinstance(d, Mapping):
            raise InvalidInput("the report is not a JSON object: give the OUT.report.json "
                               "written beside a release")
        version = int(d.get("report_version", 1))
        if version > REPORT_VERSION:
            raise InvalidInput(f"the report has version {version}, newer than this starmin "
                               f"reads ({REPORT_VERSION}): upgrade starmin")
        inputs = Inputs.from_dict(_need(d, "input"))
        model, method = str(_need(d, "model")), str(_need(d, "method"))
        g = _need(d, "guarantee")
        trials = d.get("portfolio")
        pf = None if trials is None else Portfolio(
            tuple(MethodTrial.from_dict(t) for t in trials),
            freeze(d.get("portfolio_budget")), freeze(d.get("portfolio_ratio")))
        dist = d.get("distributions")
        ms = d.get("measures")
        try:
            measures = None if ms is None else LossMeasures.from_dict(ms)
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInput(f"the report's measures are damaged ({type(exc).__name__}: "
                               f"{exc}); re-run starmin anonymize to write them again") from None
        return cls(
            starmin_version=str(d.get("starmin_version", "unknown")),
            created=str(d.get("created", "")),
            inputs=inputs,
            model=model,
            method=method,
            guarantee=Guarantee(_need(g, "kind", "report's guarantee"),
                                str(g.get("statement", "")), str(g.get("reference") or ""),
                                g.get("ratio"), g.get("parameter")),
            portfolio=pf,
            loss=Loss(int(_need(d, "stars")), float(d.get("star_fraction", 0.0)),
                      int(d.get("suppressed_records", 0)),
                      int(d.get("fully_suppressed_records", 0)),
                      int(d.get("generalized_cells", 0))),
            bounds=Bounds(int(_need(d, "lower_bound")),
                          MappingProxyType({str(k): int(v)
                                            for k, v in (d.get("lower_bounds") or {}).items()}),
                          int(d.get("gap", int(d["stars"]) - int(d["lower_bound"]))),
                          d.get("gap_ratio")),
            stars_per_column=MappingProxyType(
                {str(k): int(v) for k, v in (d.get("stars_per_column") or {}).items()}),
            classes=ClassSummary.from_dict(_need(d, "classes")),
            certificate=freeze(d.get("certificate") or {}),
            verified=bool(_need(d, "verified")),
            verification=freeze(d.get("verification") or {}),
            timings=MappingProxyType({str(k): float(v)
                                      for k, v in (d.get("timings_s") or {}).items()}),
            seed=int(d.get("seed", 0)),
            distributions=None if dist is None else Distributions.from_dict(dist),
            measures=measures,
            hierarchies=freeze(d.get("hierarchies")),
            options=freeze(d.get("options") or {}),
            version=version,
        )

    # -- read-only mapping over the JSON form ----------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return copy.deepcopy(self._json[key])

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._json))

    def __len__(self) -> int:
        return len(self._json)

    def __contains__(self, key: object) -> bool:
        return key in self._json
