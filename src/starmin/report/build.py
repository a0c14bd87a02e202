"""Build the :class:`~starmin.report.record.Report` of a release from the pipeline's parts."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.models.base import PrivacyModel
from starmin.models.combine import implied_k
from starmin.report.record import REPORT_VERSION, Report
from starmin.transform.plan import STAR, ReleasePlan


def _version() -> str:
    try:
        return version("starmin")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def build_report(source: Any, rt: RowTypes, schema: Schema, model: PrivacyModel,
                 plan: ReleasePlan, bounds: dict[str, int], verdict: Any,
                 timings: dict[str, float], seed: int, portfolio: Sequence[Any] | None = None,
                 objective: str = "stars", loss_bound: Mapping[str, Any] | None = None,
                 options: Mapping[str, Any] | None = None) -> Report:
    """Everything a reader needs to trust and judge the release (see DESIGN.md, Report).

    ``portfolio``: the trials of ``--method auto`` (:class:`starmin.algorithms.portfolio.Trial`),
    reported as ``"portfolio"`` (each member: method, guarantee kind, status, stars, estimated
    work, reason, seconds) with ``"portfolio_budget"`` and ``"portfolio_ratio"`` from the
    plan's certificate; ``None`` (a named method): those fields are ``null``.

    ``options``: the method options the user passed (``"options"``, only when there are any).

    ``objective`` (what the method minimized) and ``loss_bound`` (a certified lower bound on
    the loss, :class:`starmin.algorithms.loss_bound.LossBound` as a dict) go into the
    measures.

    The distributions the HTML report plots (:mod:`starmin.report.distributions`) and the loss
    measures (:mod:`starmin.transform.loss`, under the hierarchies ``rt`` carries) are computed
    here, timed as the ``report`` stage. The record is made from the report's JSON form, so
    the report in memory is exactly the one its file holds.

    The lower bound bounds the optimal stars of a suppression-only release; it also bounds the
    cells any release under hierarchies does not release as their value (stars plus
    generalized cells): a class whose rows differ in a column must release a group there, and
    releasing each class's suppressor instead (classes whose suppressors coincide merge, which
    keeps every supported model) is a suppression-only release with no more stars. So
    ``gap = stars + generalized_cells - lower_bound``; with suppression only, ``stars -
    lower_bound`` as before."""
    from starmin.report.distributions import distributions
    from starmin.transform.loss import measures

    t0 = time.perf_counter()
    dist = distributions(rt, plan, model)
    ms = replace(measures(plan, rt, k=implied_k(model)), objective=objective,
                 loss_bound=None if loss_bound is None else dict(loss_bound))
    timings = {**timings, "report": time.perf_counter() - t0}
    sizes = plan.class_sizes
    per_col = {c: int((sizes * (plan.outputs[:, j] == STAR)).sum()) for j, c in enumerate(rt.qi)}
    lb = max([int(v) for v in bounds.values()] + [int(plan.lower_bound or 0)])
    stars = plan.stars
    changed = stars + ms.generalized_cells
    cells = rt.n * rt.m
    cert = dict(plan.certificate)
    auto = {k: cert.pop(k, None) for k in ("portfolio", "portfolio_budget", "portfolio_ratio")}
    d = {
        "starmin_version": _version(),
        "report_version": REPORT_VERSION,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "input": {
            "source": str(source) if isinstance(source, str | os.PathLike)
            else type(source).__name__,
            "n": rt.n, "m": rt.m, "t_in": rt.t_in,
            "qi": list(schema.qi), "sensitive": list(schema.sensitive),
            "identifiers_dropped": list(schema.identifiers),
            "cardinalities": dict(zip(rt.qi, rt.cardinalities, strict=True)),
        },
        "model": getattr(model, "name", repr(model)),
        "method": plan.method,
        "guarantee": plan.guarantee.as_dict(),
        "portfolio": None if portfolio is None else [t.as_dict(seconds=True) for t in portfolio],
        "portfolio_budget": auto["portfolio_budget"],
        "portfolio_ratio": auto["portfolio_ratio"],
        "stars": stars,
        "star_fraction": stars / cells if cells else 0.0,
        "suppressed_records": plan.suppressed_records,
        "fully_suppressed_records": plan.fully_suppressed_records,
        "lower_bound": lb,
        "lower_bounds": {**{k: int(v) for k, v in bounds.items()},
                         **({"algorithm": int(plan.lower_bound)}
                            if plan.lower_bound is not None else {})},
        "gap": changed - lb,
        "gap_ratio": (changed / lb) if lb else (1.0 if changed == 0 else None),
        "stars_per_column": per_col,
        "classes": {
            "count": plan.t_out,
            "min_size": int(sizes.min()) if len(sizes) else 0,
            "median_size": float(np.median(sizes)) if len(sizes) else 0.0,
            "max_size": int(sizes.max()) if len(sizes) else 0,
        },
        "certificate": cert,
        "verified": bool(verdict.passed),
        "verification": verdict.as_dict(),
        "timings_s": {k: round(v, 4) for k, v in timings.items()},
        "seed": seed,
        "distributions": dist.as_dict(),
        "generalized_cells": ms.generalized_cells,
        "measures": ms.as_dict(),
        "hierarchies": hierarchy_summary(rt),
    }
    if options:
        d["options"] = dict(options)
    return Report.from_dict(json.loads(json.dumps(_jsonable(d), default=str)))


def hierarchy_summary(rt: RowTypes) -> dict[str, Any] | None:
    """Per QI column with a hierarchy (not suppression only): where it came from, its height,
    its groups (internal nodes holding a value of the table) and its domain; ``None`` when
    every column is suppression only."""
    if rt.hierarchies is None or rt.hierarchies.is_flat:
        return None
    return {c: {"source": h.source, "height": h.height, "groups": len(h.labels),
                "domain": h.domain}
            for c, h in zip(rt.qi, rt.hierarchies.columns, strict=True) if not h.is_flat}


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return obj
