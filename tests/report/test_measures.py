"""Loss measures and hierarchies in the report (version 3): JSON, text summary and HTML page."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.api import Release
from starmin.report.html import render
from starmin.report.record import Report
from starmin.report.text import summary


def table(n: int = 200, seed: int = 2) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 4, n)
    return pl.DataFrame({  # ages go with zips: classes by zip share an age interval
        "age": 20 + 10 * z + rng.integers(0, 10, n),
        "zip": [("02138", "02139", "02141", "10001")[i] for i in z],
        "sex": [("M", "F")[i] for i in rng.integers(0, 2, n)],
    })


@pytest.fixture(scope="module")
def generalized() -> Release:
    return starmin.anonymize(table(), "age,zip,sex", k=4, method="m-approx", generalize=True)


def test_report_gives_every_measure(generalized: Release) -> None:
    r = generalized.report
    d = r.as_dict()
    ms = d["measures"]
    assert set(ms) == {"stars", "generalized_cells", "loss", "granularity", "precision",
                       "discernibility", "classes", "average_class_size", "k",
                       "normalized_average_class_size", "kl_divergence", "kl_note",
                       "loss_per_column", "generalized_per_column", "objective", "loss_bound"}
    assert ms["objective"] == "stars"  # the default
    # every report with hierarchies: a certified lower bound on the loss
    assert ms["loss_bound"]["kind"] in ("row", "lp")
    assert 0 <= ms["loss_bound"]["average"] <= ms["loss"]
    plan = generalized.plan
    assert ms["stars"] == d["stars"] == plan.stars
    assert ms["generalized_cells"] == d["generalized_cells"] > 0
    assert d["generalized_cells"] == plan.certificate["generalization"]["generalized_cells"]
    assert d["generalized_cells"] == d["verification"]["cells"]["generalized_cells"]
    assert ms["discernibility"] == int((plan.class_sizes ** 2).sum())
    assert ms["classes"] == d["classes"]["count"] and ms["k"] == 4
    assert ms["normalized_average_class_size"] == pytest.approx(200 / (ms["classes"] * 4))
    assert 0 < ms["loss"] < 1 and ms["granularity"] == pytest.approx(1 - ms["loss"])
    # the bound also bounds the cells not released as their value: the gap counts them
    assert d["gap"] == d["stars"] + d["generalized_cells"] - d["lower_bound"] >= 0
    assert set(d["hierarchies"]) == {"age", "zip"}  # sex: two values, flat
    assert d["hierarchies"]["zip"]["source"] == "built-in mask"
    assert Report.from_dict(json.loads(json.dumps(d))) == r


def test_suppression_only_still_has_measures() -> None:
    rel = starmin.anonymize(table(), "age,zip,sex", k=4, method="m-approx")
    d = rel.report.as_dict()
    n_cells = 200 * 3
    assert d["generalized_cells"] == 0 and d["hierarchies"] is None
    assert d["measures"]["loss"] == pytest.approx(d["stars"] / n_cells)  # a star loses 1
    assert d["measures"]["precision"] == pytest.approx(1 - d["stars"] / n_cells)
    assert d["gap"] == d["stars"] - d["lower_bound"]
    assert "generalized" not in summary(rel.report)


def test_text_and_html_show_the_measures(generalized: Release) -> None:
    r = generalized.report
    text = summary(r)
    assert f"generalized {r.loss.generalized_cells} cells released as a group" in text
    assert "which also bounds the cells not released as their value" in text
    assert "measures   loss (Iyengar LM)" in text and "KL-divergence" in text
    page = render(r)
    for words in ("<h3>Information loss</h3>", "loss (Iyengar&#x27;s LM", "KL-divergence (bits)",
                  "<h3>Hierarchies</h3>", "built-in intervals", "a group (generalized)",
                  "cells not released as their value"):
        assert words in page, words
    assert render(Report.from_dict(r.as_dict())) == page
