"""Build the JSON-ready report of a release."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.models.base import PrivacyModel
from starmin.transform.plan import STAR, ReleasePlan


def _version() -> str:
    try:
        return version("starmin")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def build_report(source: Any, rt: RowTypes, schema: Schema, model: PrivacyModel,
                 plan: ReleasePlan, bounds: dict[str, int], verdict: Any,
                 timings: dict[str, float], seed: int, portfolio: Sequence[Any] | None = None
                 ) -> dict[str, Any]:
    """Everything a reader needs to trust and judge the release (see DESIGN.md, Report).

    ``portfolio``: the trials of ``--method auto`` (:class:`starmin.algorithms.portfolio.Trial`),
    reported as ``"portfolio"`` (each member: method, guarantee kind, status, stars, estimated
    work, reason, seconds) with ``"portfolio_budget"`` and ``"portfolio_ratio"`` from the
    plan's certificate; ``None`` (a named method): those fields are ``null``."""
    sizes = plan.class_sizes
    per_col = {c: int((sizes * (plan.outputs[:, j] == STAR)).sum()) for j, c in enumerate(rt.qi)}
    lb = max([int(v) for v in bounds.values()] + [int(plan.lower_bound or 0)])
    stars = plan.stars
    cells = rt.n * rt.m
    cert = dict(plan.certificate)
    auto = {k: cert.pop(k, None) for k in ("portfolio", "portfolio_budget", "portfolio_ratio")}
    return {
        "starmin_version": _version(),
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
        "portfolio_budget": _jsonable(auto["portfolio_budget"]),
        "portfolio_ratio": _jsonable(auto["portfolio_ratio"]),
        "stars": stars,
        "star_fraction": stars / cells if cells else 0.0,
        "suppressed_records": plan.suppressed_records,
        "fully_suppressed_records": plan.fully_suppressed_records,
        "lower_bound": lb,
        "lower_bounds": {**{k: int(v) for k, v in bounds.items()},
                         **({"algorithm": int(plan.lower_bound)}
                            if plan.lower_bound is not None else {})},
        "gap": stars - lb,
        "gap_ratio": (stars / lb) if lb else (1.0 if stars == 0 else None),
        "stars_per_column": per_col,
        "classes": {
            "count": plan.t_out,
            "min_size": int(sizes.min()) if len(sizes) else 0,
            "median_size": float(np.median(sizes)) if len(sizes) else 0.0,
            "max_size": int(sizes.max()) if len(sizes) else 0,
        },
        "certificate": _jsonable(cert),
        "verified": bool(verdict.passed),
        "verification": verdict.as_dict(),
        "timings_s": {k: round(v, 4) for k, v in timings.items()},
        "seed": seed,
    }


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
