"""Merge-repair runs its second start in a second process (``workers``, :mod:`._beside`):
the release and the certificate are those of the starts run one after the other, a child
that fails is run in the parent with the same result, and bad settings are refused."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from starmin.algorithms.heuristic import _beside, merge_repair
from starmin.algorithms.heuristic._start_worker import JOB_KIND, run_job
from starmin.errors import Infeasible, InvalidInput
from starmin.models import AllOf, DistinctLDiversity, KAnonymity, LDiversity, TCloseness
from starmin.models.apply import check_feasible
from starmin.models.base import PrivacyModel
from tests.helpers.plans import same_plan
from tests.helpers.tables import random_table

MODELS: list[PrivacyModel] = [
    TCloseness(0.3), DistinctLDiversity(3), LDiversity(3),
    AllOf(KAnonymity(3), TCloseness(0.4)),
]
STARTS = {"TCloseness": ("levels", "pattern-packing"),
          "DistinctLDiversity": ("levels", "pattern-packing"),
          "LDiversity": ("levels", "diverse"), "AllOf": ("pattern-packing", "levels")}


def _leftovers() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("starmin-beside-*")}


def test_two_processes_give_the_release_and_certificate_of_one() -> None:
    before = _leftovers()
    compared = 0
    for model in MODELS:
        for seed in range(2):
            rt = random_table(900 + seed, 80, 4, values=[2, 3, 4, 5], s=4)
            try:
                check_feasible(model, rt)
            except Infeasible:
                continue
            starts = STARTS[type(model).__name__]
            lines: list[str] = []
            one = merge_repair.solve(rt, model, start=starts, workers=1)
            two = merge_repair.solve(rt, model, start=starts, workers=2, progress=lines.append)
            assert same_plan(one, two), model.name
            assert one.certificate == two.certificate, model.name
            assert any("[second process]" in line for line in lines)
            assert not any("running it here" in line for line in lines), lines
            compared += 1
    assert compared >= 6
    assert _leftovers() <= before  # every temporary folder removed


def test_the_second_start_can_win() -> None:
    """The comparison above would pass if the child's run were dropped whenever the first
    start wins; here a table where the second start is the better one is released from it."""
    wins = 0
    for seed in range(12):
        rt = random_table(950 + seed, 80, 4, values=[2, 3, 4, 5], s=4)
        model = TCloseness(0.3)
        try:
            check_feasible(model, rt)
        except Infeasible:
            continue
        two = merge_repair.solve(rt, model, start=("pattern-packing", "levels"), workers=2)
        (_first, a), (second, b) = two.certificate["starts"].items()
        if b < a:
            wins += 1
            assert two.stars == b
            assert two.certificate["start"] == second == "levels"
    assert wins >= 1


def test_a_failing_child_is_run_here(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = random_table(901, 80, 4, values=[2, 3, 4, 5], s=4)
    model = DistinctLDiversity(3)
    one = merge_repair.solve(rt, model, start=("levels", "pattern-packing"), workers=1)
    monkeypatch.setattr(_beside, "WORKER", "starmin.no_such_module")
    lines: list[str] = []
    two = merge_repair.solve(rt, model, start=("levels", "pattern-packing"), workers=2,
                             progress=lines.append)
    assert same_plan(one, two)
    assert one.certificate == two.certificate
    failed = [line for line in lines if "running it here" in line]
    assert failed and "exited with code" in failed[0] and "no_such_module" in failed[0]


def test_the_child_computes_what_the_parent_would() -> None:
    rt = random_table(902, 60, 3, values=[2, 3, 4], s=3)
    model = TCloseness(0.4)
    st = merge_repair.settings(model, {"start": "pattern-packing"})
    run, lines = run_job((JOB_KIND, rt, model, st, 0, "pattern-packing"))
    here = merge_repair.solve(rt, model, start="pattern-packing", workers=1)
    assert run.plan.stars == here.stars
    assert run.mine["rules"] == here.certificate["rules"]
    assert any(line.startswith("merge-repair: start pattern-packing") for line in lines)
    with pytest.raises(ValueError, match="unknown job"):
        run_job(("something else", rt, model, st, 0, "levels"))


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_bad_workers_are_refused(bad: object) -> None:
    rt = random_table(903, 30, 3, values=[2, 3, 4], s=3)
    with pytest.raises(InvalidInput, match="workers must be a whole number >= 1"):
        merge_repair.solve(rt, KAnonymity(2), workers=bad)


def test_default_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    st = merge_repair.Settings.of({})
    small = random_table(904, 40, 3, values=[2, 3, 4], s=3)
    monkeypatch.delenv("STARMIN_WORKERS", raising=False)
    assert merge_repair.start_workers(st, small, 2) == 1  # below BESIDE_MIN_TYPES
    monkeypatch.setattr(merge_repair, "BESIDE_MIN_TYPES", 1)
    monkeypatch.setattr(merge_repair, "usable_cpus", lambda: 2)
    assert merge_repair.start_workers(st, small, 2) == 2
    assert merge_repair.start_workers(st, small, 1) == 1
    monkeypatch.setattr(merge_repair, "usable_cpus", lambda: 1)
    assert merge_repair.start_workers(st, small, 2) == 1
    monkeypatch.setenv("STARMIN_WORKERS", "1")
    monkeypatch.setattr(merge_repair, "usable_cpus", lambda: 2)
    assert merge_repair.start_workers(st, small, 2) == 1
    monkeypatch.setenv("STARMIN_WORKERS", "two")
    with pytest.raises(InvalidInput, match="STARMIN_WORKERS"):
        merge_repair.start_workers(st, small, 2)
    assert merge_repair.start_workers(merge_repair.Settings.of({"workers": 3}), small, 2) == 2


def test_usable_cpus() -> None:
    assert 1 <= _beside.usable_cpus() <= (os.cpu_count() or 1)
