"""The bounds computed while the method solves (``starmin.api.diversity_ahead``,
``closeness_ahead`` and ``charges_ahead``).

They depend on the row types and the model only, so the report's bounds must be the same as
when they are computed afterwards; they start for the models needing several sensitive
values per class and not under a time limit; when the LP core proved its optimum (the
charge LPs are then left out), the bounds are those computed without the charge LPs."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import starmin
from starmin import api
from starmin.data.schema import Schema
from starmin.engines.local import LocalEngine
from starmin.models import DistinctLDiversity, KAnonymity, LDiversity, TCloseness


def _table(seed: int, n: int = 400) -> pl.DataFrame:
    import numpy as np

    rng = np.random.default_rng(seed)
    return pl.DataFrame({f"q{i}": rng.integers(0, 3, n).astype(str) for i in range(5)}
                        | {"s": rng.integers(0, 5, n).astype(str)})


def _row_types(df: pl.DataFrame) -> starmin.RowTypes:
    qi = [c for c in df.columns if c != "s"]
    return LocalEngine().to_row_types(df, Schema.of(qi, "s")).row_types


def _spied(monkeypatch: pytest.MonkeyPatch, name: str) -> tuple[list[Any], Any]:
    """``api.<name>`` replaced by a spy: the list of what each call returned (a future or
    ``None``), in order, and the real function."""
    real = getattr(api, name)
    returned: list[Any] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        returned.append(real(*args, **kwargs))
        return returned[-1]

    monkeypatch.setattr(api, name, spy)
    return returned, real


@pytest.mark.parametrize(("params", "model"), [
    ({"l": 3}, LDiversity(3)), ({"l": 3, "l_kind": "distinct"}, DistinctLDiversity(3))])
def test_the_report_s_bounds_are_those_computed_afterwards(
        monkeypatch: pytest.MonkeyPatch, params: dict[str, Any], model: Any) -> None:
    started, _ = _spied(monkeypatch, "diversity_ahead")
    for seed in range(3):
        _check_report_bounds(_table(seed), params, model, "auto", started)


def _check_report_bounds(df: pl.DataFrame, params: dict[str, Any], model: Any, method: str,
                         started: list[Any]) -> dict[str, int]:
    """Anonymize ``df`` under ``params`` with ``method``: the spied ``*_ahead`` call started a
    future, and the report's bounds are those ``lower_bounds`` computes afterwards (with the
    same plan, for its LP core's answer). Returns them."""
    rel = starmin.anonymize(df, [c for c in df.columns if c != "s"], "s", seed=0,
                            method=method, **params)
    assert started and started[-1] is not None
    rt = _row_types(df)
    plan = starmin.solve(rt, model, method=method, seed=0)
    assert plan.stars == rel.report["stars"]
    expected = api.lower_bounds(rt, model, known_lp=api._known_lp(plan),
                                lp_complete=plan.certificate.get("lp_complete") is True)
    got = rel.report["lower_bounds"]
    assert {k: got[k] for k in expected if k != "best"} == \
        {k: v for k, v in expected.items() if k != "best"}
    assert set(got) - set(expected) <= {"algorithm"}
    return expected


def _started_only_for(monkeypatch: pytest.MonkeyPatch, name: str, seed: int,
                      params: dict[str, Any], others: list[Any], own: Any) -> dict[str, int]:
    """``api.<name>`` is not called under a time limit (an exact run on 12 rows with
    ``params``), gives no future for the ``others`` models and one for ``own``: its value."""
    from concurrent.futures import ThreadPoolExecutor

    calls, real = _spied(monkeypatch, name)
    df = _table(seed)
    qi = [c for c in df.columns if c != "s"]
    starmin.anonymize(df.head(12), qi, "s", method="exact", time_limit=30, **params)
    assert calls == []
    rt = _row_types(df)
    with ThreadPoolExecutor(max_workers=1) as pool:
        for other in others:
            assert real(rt, other, pool) is None
        future = real(rt, own, pool)
        assert future is not None
        return dict(future.result())


def test_not_under_a_time_limit_nor_for_models_without_diversity(
        monkeypatch: pytest.MonkeyPatch) -> None:
    got = _started_only_for(monkeypatch, "diversity_ahead", 7, {"l": 2},
                            [KAnonymity(3), TCloseness(0.3)], LDiversity(2))
    assert got["l_charges"] > 0


def test_with_the_lp_core_s_optimum_the_charge_lps_are_left_out() -> None:
    """``lp_complete``: the bounds computed ahead (with the charge LPs) are not used, so the
    report is what ``lower_bounds`` gives without them."""
    from concurrent.futures import ThreadPoolExecutor

    rt = _row_types(_table(3))
    with ThreadPoolExecutor(max_workers=1) as pool:
        ahead = api.diversity_ahead(rt, LDiversity(2), pool)
        assert ahead is not None
        got = api.lower_bounds(rt, LDiversity(2), known_lp={"lp": 1}, lp_complete=True,
                               diversity=ahead)
    assert "l_charges" in ahead.result() and "l_charges" not in got
    assert got == api.lower_bounds(rt, LDiversity(2), known_lp={"lp": 1}, lp_complete=True)


def _k_table(seed: int, n: int = 300) -> pl.DataFrame:
    import numpy as np

    rng = np.random.default_rng(seed)
    return pl.DataFrame({f"q{i}": rng.integers(0, 4, n).astype(str) for i in range(6)})


@pytest.mark.parametrize("k", [2, 3, 5])
def test_k_s_charge_lp_starts_ahead_and_is_solved_once(monkeypatch: pytest.MonkeyPatch,
                                                       k: int) -> None:
    """For k-anonymity alone the charge LP starts beside the solve (``charges_ahead``), the
    report's ``charges`` is what the LP gives computed afterwards, and the LP is solved once
    per run although ``pattern-packing`` and the report both ask for it."""
    from starmin.algorithms import charge_bound

    started, _ = _spied(monkeypatch, "charges_ahead")
    solved: list[int] = []
    real_solve = charge_bound._charge_bound

    def counted(rt: Any, k: int, *args: Any, **kwargs: Any) -> Any:
        solved.append(k)
        return real_solve(rt, k, *args, **kwargs)

    monkeypatch.setattr(charge_bound, "_charge_bound", counted)
    for seed in range(2):
        df = _k_table(100 + seed)
        charge_bound._ANSWERS.clear()
        solved.clear()
        rel = starmin.anonymize(df, list(df.columns), None, k=k, seed=0)
        assert started and started[-1] is not None
        assert solved == [k], solved  # once, by whichever thread came first
        got = rel.report["lower_bounds"].get("charges")
        charge_bound._ANSWERS.clear()
        expected = charge_bound.charge_lower_bound(
            LocalEngine().to_row_types(df, Schema.of(list(df.columns), None)).row_types, k)
        assert got == expected


def test_no_charge_lp_ahead_for_other_models_nor_under_a_time_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from concurrent.futures import ThreadPoolExecutor

    calls, real = _spied(monkeypatch, "charges_ahead")
    df = _k_table(5)
    starmin.anonymize(df.head(14), list(df.columns), None, k=2, method="exact",
                      time_limit=30)
    assert calls == []
    rt = _row_types(_table(7))
    with ThreadPoolExecutor(max_workers=1) as pool:
        assert real(rt, LDiversity(2), pool) is None
        assert real(rt, TCloseness(0.3), pool) is None
        future = real(rt, KAnonymity(3), pool)
        assert future is not None and future.result()["charges"] > 0


def test_a_second_caller_waits_for_the_first_and_computes_it_when_that_one_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads asking for the same charge LP at once: one solves it, the other waits and
    gets the same answer; when the solving thread fails, the waiting one solves it itself
    (never a stale or missing answer)."""
    import threading

    from starmin.algorithms import charge_bound

    rt = _row_types(_table(11))
    charge_bound._ANSWERS.clear()
    expected = charge_bound.charge_lower_bound(rt, 3)
    assert expected is not None
    real = charge_bound._charge_bound
    inside, release = threading.Event(), threading.Event()
    calls: list[str] = []
    out: dict[str, Any] = {}
    said: list[str] = []

    def slow(*args: Any, **kwargs: Any) -> Any:
        calls.append(threading.current_thread().name)
        if len(calls) == 1:
            inside.set()
            assert release.wait(30)
            if out["fail"]:
                raise RuntimeError("the first thread fails")
        return real(*args, **kwargs)

    def first() -> None:
        try:
            out["first"] = charge_bound.charge_lower_bound(rt, 3)
        except RuntimeError as exc:
            out["first"] = exc

    def second() -> None:
        out["second"] = charge_bound.charge_lower_bound(rt, 3, said.append)

    monkeypatch.setattr(charge_bound, "_charge_bound", slow)
    for fail in (False, True):
        charge_bound._ANSWERS.clear()
        for state in (calls, out, said):
            state.clear()
        inside.clear()
        release.clear()
        out["fail"] = fail
        t = threading.Thread(target=first, name="first")
        t.start()
        assert inside.wait(30)
        waiter = threading.Thread(target=second, name="second")
        waiter.start()
        while not said:  # the second caller says it waits, then waits
            threading.Event().wait(0.01)
        assert calls == ["first"] and "waiting" in said[0]
        release.set()
        t.join(30)
        waiter.join(30)
        assert out["second"] == expected
        if fail:
            assert isinstance(out["first"], RuntimeError) and calls == ["first", "second"]
        else:
            assert out["first"] == expected and calls == ["first"]
    assert charge_bound._RUNNING == {}


@pytest.mark.parametrize(("params", "model"), [
    ({"t": 0.3}, TCloseness(0.3)), ({"t": 0.2, "k": 3}, None),
    ({"t": 0.4, "l": 2}, None)])
def test_t_closeness_bounds_start_ahead_and_equal_those_computed_afterwards(
        monkeypatch: pytest.MonkeyPatch, params: dict[str, Any], model: Any) -> None:
    """With merge-repair, which keeps the test fast: the bounds do not depend on the method
    (before stop 54's ``T_MIN_SPREAD`` auto's lp-rounding spent minutes on these tables)."""
    from starmin import model_params

    started, _ = _spied(monkeypatch, "closeness_ahead")
    the_model = model or model_params.the_model(None, params, ("s",))
    for seed in range(2):
        expected = _check_report_bounds(_table(20 + seed), params, the_model, "merge-repair",
                                        started)
        assert any(name.startswith("t-") for name in expected)


def test_no_t_bounds_ahead_for_other_models_nor_under_a_time_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    got = _started_only_for(monkeypatch, "closeness_ahead", 9, {"t": 0.5},
                            [KAnonymity(3), LDiversity(2)], TCloseness(0.3))
    assert got == api.closeness_bounds(_row_types(_table(9)), TCloseness(0.3))
    assert got["t-star-free"] > 0
