"""Progress of long phases (src/starmin/algorithms/_progress.py; issue 7, part 9).

With the throttle interval at 0 every clock check prints, so a long phase must emit lines
with a count, a total where known, and a rate; with progress silent nothing is printed and
no clock is read. Results never depend on progress."""

from __future__ import annotations

import re
import time
from functools import lru_cache

import pytest

from starmin.algorithms import _progress
from starmin.algorithms._progress import Meter, heartbeat
from starmin.algorithms.base import silent
from starmin.algorithms.bounds import k_anonymity_lower_bounds
from starmin.algorithms.heuristic import pattern_packing
from starmin.algorithms.heuristic.pattern_packing import pack
from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.datasets import synthetic_census
from starmin.engines.local import LocalEngine
from starmin.errors import InvalidInput
from starmin.models import KAnonymity

COUNT_RATE = re.compile(r"^(.+): ([\d,]+)( / [\d,]+)? (.+) \(([\d,]+) \4/s\)")


@lru_cache(maxsize=1)
def _table() -> RowTypes:
    """3,000 synthetic census rows, all 9 columns as QIs (the bucket LP runs at levels 1-3)."""
    df = synthetic_census(3000, seed=7)
    return LocalEngine().to_row_types(df, Schema.of(qi=df.columns)).row_types


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return self.t


def test_meter_prints_count_total_and_rate_at_most_once_per_interval() -> None:
    lines: list[str] = []
    clock = Clock()
    m = Meter(lines.append, "greedy packing", "rows", 1_000_000, interval=2.0, clock=clock)
    for done in range(1, 1001):
        m.tick(done)
    assert lines == []  # no time has passed
    clock.t = 2.5
    for done in range(1001, 3001):
        m.tick(done)
    assert len(lines) == 1
    got = COUNT_RATE.match(lines[0])
    assert got is not None, lines[0]
    assert got.group(1) == "greedy packing" and got.group(3) == " / 1,000,000"
    done = int(got.group(2).replace(",", ""))
    assert 1001 <= done <= 3000
    assert int(got.group(5).replace(",", "")) == round(done / 2.5)  # rows per second
    for done in range(3001, 5001):
        m.tick(done)
    assert len(lines) == 1  # 2 s have not passed since the last line


def test_meter_reads_the_clock_rarely_in_a_hot_loop() -> None:
    clock = Clock()
    m = Meter(lambda _: None, "loop", "steps", interval=2.0, clock=clock)
    for done in range(1, 100_001):
        m.tick(done)  # the clock never moves: checks get sparser and sparser
    assert clock.reads < 40


def test_silent_meter_and_heartbeat_print_nothing_and_read_no_clock() -> None:
    clock = Clock()
    m = Meter(silent, "loop", "steps", 10, interval=0.0, clock=clock)
    for done in range(1, 11):
        m.tick(done)
    m.say(10)
    with heartbeat(silent, "solve", interval=0.0, clock=clock):
        time.sleep(0.05)
    assert clock.reads == 0


def test_heartbeat_speaks_while_the_body_runs_and_stops_after() -> None:
    lines: list[str] = []
    with heartbeat(lines.append, "bucket LP, level 2", interval=0.01):
        time.sleep(0.2)
    n = len(lines)
    assert n >= 2 and all(re.match(r"bucket LP, level 2: running, [\d,]+ s$", x) for x in lines)
    time.sleep(0.05)
    assert len(lines) == n  # the thread is gone


def test_greedy_packing_and_lp_report_counts_and_rates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_progress, "INTERVAL", 0.0)
    rt = _table()
    lines: list[str] = []
    a = pack(rt, 5, progress=lines.append)
    counted = [COUNT_RATE.match(x) for x in lines]
    packing = [g for g in counted if g and g.group(1).startswith("greedy packing, level")]
    assert packing and all(g.group(4) == "free rows placed" and g.group(3) for g in packing)
    lp = [g for g in counted if g and g.group(1).startswith("bucket LP, level")]
    assert lp and all(g.group(4) == "simplex iterations" and g.group(3) == " / 40,000"
                      for g in lp)
    # the same release as without progress
    assert a.stars == pack(rt, 5).stars


def test_bounds_report_pattern_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_progress, "INTERVAL", 0.0)
    lines: list[str] = []
    k_anonymity_lower_bounds(_table(), 5, lines.append)
    assert any((g := COUNT_RATE.match(x)) and g.group(1).startswith("bounds: pattern level")
               and g.group(4) == "patterns" for x in lines)


def test_silent_progress_prints_nothing(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(_progress, "INTERVAL", 0.0)
    plan = pattern_packing.solve(_table(), KAnonymity(5))
    assert plan.stars > 0
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_lp_limits_are_work_not_time() -> None:
    rt = _table()
    lines: list[str] = []
    cut = pack(rt, 5, lp_max_iterations=1, progress=lines.append)
    assert any("bucket LP" in x and "skipped" in x for x in lines)
    assert cut.stars == pack(rt, 5, lp_max_iterations=1).stars  # the same cut every time
    with pytest.raises(InvalidInput, match="lp_max_iterations"):
        pattern_packing.solve(rt, KAnonymity(5), lp_time_limit=10.0)
