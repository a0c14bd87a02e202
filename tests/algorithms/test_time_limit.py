"""``--time-limit`` (issue 8, part 2): a wall-clock limit only when the user asks for one.

It reaches HiGHS only through ``milp`` (the one method whose entry says ``time_limit``), a run
it stops is reported as such (guarantee ``bound``, the limit named, the release verified), and
every other way in is refused with one clear message. Nothing here measures time: the stopped
run is simulated by the solver's answer, so the test is the same on any machine."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import polars as pl
import pytest

import starmin
from starmin.algorithms import registry
from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp import highs_cutoff, milp_exact
from starmin.algorithms.lp.master import MILPSolution
from starmin.api import solve
from starmin.cli.main import main
from starmin.data.rowtypes import RowTypes
from starmin.errors import InvalidInput
from starmin.models import KAnonymity, LDiversity
from starmin.models.apply import holds


def rows(seed: int, n: int = 14, m: int = 3) -> RowTypes:
    rng = np.random.default_rng(seed)
    return RowTypes.from_arrays(rng.integers(0, 3, size=(n, m)), np.arange(n) % 3)


def frame(seed: int, n: int = 14) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 3, n),
                         "s": [("x", "y", "z")[i % 3] for i in range(n)]})


def test_only_milp_honors_a_time_limit() -> None:
    assert [a.name for a in registry.algorithms().values() if a.time_limit] == ["milp"]


def test_the_limit_reaches_highs_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    import scipy.optimize

    seen: list[dict[str, Any]] = []
    real = scipy.optimize.milp

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(dict(kwargs["options"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy.optimize, "milp", spy)
    monkeypatch.setattr(milp_exact, "_incumbent", lambda *a: None)  # go to branch and bound
    rt, model = rows(1, 15), LDiversity(3)
    plan = milp_exact.solve(rt, model, time_limit=120)
    assert seen and all(0 < o.get("time_limit", 0) <= 120.0 for o in seen)  # what is left
    assert plan.certificate["time_limit_s"] == 120.0 and "stopped_by" not in plan.certificate
    assert plan.stars == brute_force.solve(rt, model).stars  # not stopped: still exact
    seen.clear()
    milp_exact.solve(rt, model)
    assert seen and all("time_limit" not in o for o in seen)


def test_a_run_the_limit_stops_says_so_and_verifies(monkeypatch: pytest.MonkeyPatch) -> None:
    rt, model = rows(3, 15), LDiversity(3)
    opt = brute_force.solve(rt, model).stars
    real = highs_cutoff.solve

    def stopped(prog: object, node_limit: int, seconds: float | None = None,
                **_: object) -> MILPSolution:
        assert seconds is not None and 0 < seconds <= 2.5  # what is left of the limit
        sol = real(prog, upper=None, node_limit=node_limit)  # type: ignore[arg-type]
        return MILPSolution(sol.value, sol.x, 1.2, False,
                            "Time limit reached. (HiGHS Status 13: Time limit reached)")

    monkeypatch.setattr(milp_exact, "_incumbent", lambda *a: None)
    monkeypatch.setattr(highs_cutoff, "solve", stopped)
    plan = milp_exact.solve(rt, model, time_limit=2.5)
    assert plan.guarantee.kind == "bound"
    assert "the time limit (2.5 s, asked with --time-limit)" in plan.guarantee.statement
    assert "may differ with machine speed and load" in plan.guarantee.statement
    assert plan.certificate["stopped_by"] == "time limit"
    assert plan.lower_bound is not None and plan.lower_bound <= opt <= plan.stars

    monkeypatch.setattr(highs_cutoff, "solve", lambda prog, node_limit, **_: MILPSolution(
        None, None, 0.5, False, "Time limit reached."))
    with pytest.raises(InvalidInput, match=r"no release within the time limit of 2\.5 s: "
                                           r"raise --time-limit"):
        milp_exact.solve(rt, model, time_limit=2.5)


@pytest.mark.parametrize("bad", [0, -1, "soon", float("nan"), float("inf"), True])
def test_a_time_limit_is_a_positive_number_of_seconds(bad: object) -> None:
    with pytest.raises(InvalidInput, match=r"is not a time limit: give a positive number of "
                                           r"seconds, e.g\. --time-limit 60"):
        starmin.anonymize(frame(0), "a,b", "s", k=2, method="milp", time_limit=bad)


def test_methods_without_a_clock_refuse_it() -> None:
    df = frame(2)
    with pytest.raises(InvalidInput, match=r"^--time-limit needs --method exact or a method "
                                           r"that honors it \(milp\); --method auto runs"):
        starmin.anonymize(df, "a,b", "s", k=2, time_limit=5)
    with pytest.raises(InvalidInput, match=r"^method 'tp' takes no time limit"):
        starmin.anonymize(df, "a,b", "s", l=2, method="tp", time_limit=5)
    with pytest.raises(InvalidInput, match="does not apply to --attributes"):
        starmin.anonymize(df, "a,b", "s", k=2, attributes=True, time_limit=5)


def test_exact_passes_it_on_or_says_it_was_not_used() -> None:
    rt = rows(4, 10)
    plan = solve(rt, KAnonymity(2), "exact", time_limit=30)  # brute force: no clock
    assert plan.method == "brute-force"
    assert plan.certificate["time_limit_used"] is False
    assert plan.stars == brute_force.solve(rt, KAnonymity(2)).stars
    df = frame(5, 14)
    release = starmin.anonymize(df, "a,b", "s", l=2, method="milp", time_limit=60)
    assert release.verification.passed
    assert release.report.certificate["time_limit_s"] == 60.0


def test_cli_flag(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "t.csv"
    frame(6, 12).write_csv(src)
    out = tmp_path / "o.csv"
    assert main(["anonymize", str(src), "--qi", "a,b", "--sensitive", "s", "--k", "2",
                 "--time-limit", "5", "-o", str(out)]) == 2
    assert "--time-limit needs --method exact" in capsys.readouterr().err
    assert not out.exists()
    assert main(["anonymize", str(src), "--qi", "a,b", "--sensitive", "s", "--k", "2",
                 "--method", "milp", "--time-limit", "30", "-q", "-o", str(out)]) == 0
    assert out.exists()


# The limit holds for the whole solve, not only for branch and bound (2,000 adult rows,
# frequency l = 5, --time-limit 60 ran 1,124 s before: column generation had no clock).
# A limit already passed stands for a slow machine, so these tests do not measure time.


def test_column_generation_starts_no_round_after_its_share() -> None:
    from starmin.algorithms.lp.colgen import column_generation
    from starmin.algorithms.lp.lp_rounding import primary
    from starmin.algorithms.lp.relaxation import relaxations

    for seed in range(3):
        rt = rows(seed, 15, 4)
        for model in (LDiversity(2), KAnonymity(3)):
            rel = primary(relaxations(model, rt))
            whole = column_generation(rt, rel)
            cut = column_generation(rt, rel, rounds_until=time.monotonic() - 1)
            assert whole.rounds > 1 and cut.rounds == 1 and not cut.complete
            assert cut.bound <= whole.bound <= brute_force.solve(rt, model).stars


def test_no_restricted_lp_solve_passes_the_deadline() -> None:
    from starmin.algorithms.lp.colgen import column_generation
    from starmin.algorithms.lp.incremental import WorkLimit
    from starmin.algorithms.lp.lp_rounding import primary
    from starmin.algorithms.lp.relaxation import relaxations

    rt = rows(0, 15, 4)
    rel = primary(relaxations(LDiversity(2), rt))
    with pytest.raises(WorkLimit, match="reached the time limit"):
        column_generation(rt, rel, deadline=time.monotonic() - 1)
    assert column_generation(rt, rel, deadline=time.monotonic() + 3600).complete


@pytest.mark.parametrize("stop", ["lp", "rounding"])
def test_an_lp_the_limit_stops_leaves_merge_repairs_release(
        monkeypatch: pytest.MonkeyPatch, stop: str) -> None:
    from starmin.algorithms.lp import colgen, lp_rounding
    from starmin.algorithms.lp.incremental import WorkLimit

    def no_lp(*_a: object, **_k: object) -> None:
        raise WorkLimit("a restricted LP solve reached the time limit", 5)

    def no_rounding(*_a: object, **_k: object) -> None:
        raise RuntimeError("the rounding MILP found no integer solution (Time limit reached.)")

    if stop == "lp":
        monkeypatch.setattr(colgen, "column_generation", no_lp)
    else:
        monkeypatch.setattr(lp_rounding, "classes_of_lp", no_rounding)
    lines: list[str] = []
    rt, model = rows(6, 15, 4), LDiversity(2)
    opt = brute_force.solve(rt, model).stars
    plan = milp_exact.solve(rt, model, time_limit=30, progress=lines.append)
    assert any("the first release is merge-repair's" in line for line in lines)
    assert plan.lower_bound is not None and plan.lower_bound <= opt <= plan.stars
    assert holds(model, rt, plan.class_key_counts(rt.s)).all()
    with pytest.raises((WorkLimit, RuntimeError)):  # without a limit nothing stops early
        milp_exact.solve(rt, model)
