"""The exact MILP (``milp``): brute force's optimum, the same with and without its
reduced-cost fixing, honest when stopped, and exact tree-metric EMD cuts."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from starmin.algorithms.exact import brute_force
from starmin.algorithms.lp import highs_cutoff, milp_exact
from starmin.algorithms.lp.master import MILPSolution
from starmin.algorithms.lp.relaxation import _tree_cuts, ground_distances
from starmin.data import Schema
from starmin.data.rowtypes import RowTypes
from starmin.engines.local import LocalEngine
from starmin.errors import Infeasible
from starmin.models import (
    AllOf,
    DistinctLDiversity,
    EqualDistance,
    HierarchicalDistance,
    KAnonymity,
    LDiversity,
    OrderedDistance,
    PrivacyModel,
    PSensitiveKAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from starmin.verifier import verify

VALUES = ("a", "b", "c", "d", "e")
# a hierarchy whose nodes have one present child on some tables (e is alone under 'e*')
HIER = HierarchicalDistance((("a", "ab", "*"), ("b", "ab", "*"), ("c", "cd", "*"),
                             ("d", "cd", "*"), ("e", "e*", "*")))

MODELS: dict[str, PrivacyModel] = {
    "k2": KAnonymity(2),
    "k4": KAnonymity(4),
    "l2": LDiversity(2),
    "l3": LDiversity(3),
    "distinct-l3": DistinctLDiversity(3),
    "k4-p2": PSensitiveKAnonymity(4, 2),
    "t0.3-equal": TCloseness(0.3, EqualDistance()),
    "t0.1-equal": TCloseness(0.1, EqualDistance()),
    "t0.2-ordered": TCloseness(0.2, OrderedDistance()),
    "t0.2-hier": TCloseness(0.2, HIER),
    "k3-and-t0.35": AllOf(KAnonymity(3), TCloseness(0.35, EqualDistance())),
    "l2-and-distinct3": AllOf(LDiversity(2), DistinctLDiversity(3)),
}


def table(seed: int, n: int, m: int, values: int, s: int) -> tuple[pl.DataFrame, RowTypes]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, size=(n, m))
    sa = rng.permutation(np.arange(n) % s)
    qi = [f"q{j}" for j in range(m)]
    df = pl.DataFrame({**{q: X[:, j].tolist() for j, q in enumerate(qi)},
                       "s": [VALUES[int(v)] for v in sa]})
    return df, LocalEngine().to_row_types(df, Schema.of(qi, "s")).row_types


TABLES = [(seed, n, m, v, s) for seed, (n, m, v, s) in enumerate(
    [(10, 3, 2, 3), (12, 3, 3, 4), (13, 4, 2, 5), (14, 2, 4, 3), (12, 4, 3, 2), (11, 5, 2, 4)])]


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("spec", TABLES, ids=lambda s: f"seed{s[0]}-n{s[1]}-m{s[2]}")
def test_equals_brute_force(name: str, spec: tuple[int, int, int, int, int]) -> None:
    _, rt = table(*spec)
    model = MODELS[name]
    try:
        opt = brute_force.solve(rt, model).stars
    except Infeasible:
        with pytest.raises(Infeasible):
            milp_exact.solve(rt, model)
        return
    plan = milp_exact.solve(rt, model)
    plan.validate(rt)
    assert plan.guarantee.kind == "exact" and plan.certificate["proven_optimal"]
    assert plan.stars == opt == plan.lower_bound


@pytest.mark.parametrize("name", ["k4", "l2", "t0.2-hier", "k3-and-t0.35"])
def test_fixing_keeps_the_optimum(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reduced-cost fixing drops vectors but never the optimum: the same stars as the MILP
    over every useful vector, on tables past brute force's range."""
    model = MODELS[name]
    for spec in [(11, 24, 3, 3, 3), (12, 30, 4, 2, 4)]:
        _, rt = table(*spec)
        fixed = milp_exact.solve(rt, model)
        with monkeypatch.context() as mp:
            mp.setattr(milp_exact, "_fixing", lambda *a: (None, None))
            mp.setattr(milp_exact, "_incumbent", lambda *a: None)
            full = milp_exact.solve(rt, model)
        assert fixed.stars == full.stars, spec
        assert fixed.certificate["proven_optimal"] and full.certificate["proven_optimal"]
        assert full.certificate["milp_vectors"] >= fixed.certificate.get("milp_vectors", 0)


def test_stopped_run_says_bound_and_verifies(monkeypatch: pytest.MonkeyPatch) -> None:
    """When HiGHS stops at its node limit without a proof, the plan is not called exact:
    guarantee 'bound', a proven lower bound at most the optimum, a release that verifies."""
    df, rt = table(3, 15, 3, 3, 3)
    model = LDiversity(3)
    opt = brute_force.solve(rt, model).stars
    monkeypatch.setattr(milp_exact, "_incumbent", lambda *a: None)
    monkeypatch.setattr(highs_cutoff, "solve", lambda prog, node_limit, **_: MILPSolution(
        None, None, 0.5, False, "node limit reached"))
    with pytest.raises(Exception, match="found no release"):
        milp_exact.solve(rt, model)
    monkeypatch.undo()

    real = highs_cutoff.solve

    def stopped(prog: object, node_limit: int, **_: object) -> MILPSolution:
        sol = real(prog, upper=None, node_limit=node_limit)  # type: ignore[arg-type]
        return MILPSolution(sol.value, sol.x, 1.2, False, "node limit reached")

    monkeypatch.setattr(milp_exact, "_incumbent", lambda *a: None)
    monkeypatch.setattr(highs_cutoff, "solve", stopped)
    plan = milp_exact.solve(rt, model)
    assert plan.guarantee.kind == "bound" and not plan.certificate["proven_optimal"]
    assert plan.lower_bound is not None and plan.lower_bound <= opt <= plan.stars
    qi = [c for c in df.columns if c != "s"]
    released = LocalEngine().apply_plan(LocalEngine().to_row_types(df, Schema.of(qi, "s")),
                                        plan, seed=0)
    verdict = verify(released, qi, ["s"], [model])
    assert verdict.passed and verdict.stars == plan.stars


def test_refuses_models_it_cannot_state_with_a_reason() -> None:
    """Every model of starmin.models is in the MILP (entropy and recursive by cuts:
    test_milp_cuts.py); a model of the user's own is refused, naming it."""

    class Custom:
        name = "my own model"
        uses_sensitive = True

    _, rt = table(0, 10, 3, 2, 3)
    assert milp_exact.supports(RecursiveCLDiversity(2, 2), rt) is None
    reason = milp_exact.supports(Custom(), rt)  # type: ignore[arg-type]
    assert reason and reason.startswith("my own model is not linear")


def test_tree_cuts_give_the_exact_emd() -> None:
    """The cut form of a hierarchy's EMD equals the transport optimum with its ground
    distances, also when a node holds a single table value (weights add up)."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(5)
    values = ("a", "b", "c", "e")  # 'd' absent: 'cd' holds only c; 'e*' holds only e
    d = ground_distances(HIER, values)
    cuts = _tree_cuts(d, HIER.height)
    r = len(values)
    for _ in range(25):
        p, q = rng.dirichlet(np.ones(r)), rng.dirichlet(np.ones(r))
        emd_cut = float((cuts.weight * np.abs(cuts.member @ (q - p))).sum())
        A = np.zeros((2 * r, r * r))
        for i in range(r):
            A[i, i * r:(i + 1) * r] = 1
            A[r + i, i::r] = 1
        res = linprog(d.reshape(-1), A_eq=A, b_eq=np.concatenate([q, p]), bounds=(0, None),
                      method="highs")
        assert emd_cut == pytest.approx(res.fun, abs=1e-9)


def test_matrix_distance_by_transport_constraints() -> None:
    """t-closeness under a user metric (not a tree metric) is stated by Thm 9's transport
    flows: brute force's optimum, alone and with k."""
    from starmin.models.matrix_distance import MatrixDistance

    metric = MatrixDistance([[0, 0.5, 1, 1], [0.5, 0, 0.5, 1], [1, 0.5, 0, 0.5],
                             [1, 1, 0.5, 0]])
    solved = 0
    for seed in range(6):
        _, rt = table(seed, 12, 3, 3, 4)
        for t in (0.15, 0.25, 0.4):
            for model in (TCloseness(t, metric), AllOf(KAnonymity(3), TCloseness(t, metric))):
                try:
                    opt = brute_force.solve(rt, model).stars
                except Infeasible:
                    continue
                plan = milp_exact.solve(rt, model)
                assert plan.guarantee.kind == "exact" and plan.stars == opt, (seed, t)
                solved += 1
    assert solved >= 20


def test_t_closeness_states_the_fewest_rows_of_a_close_class() -> None:
    """The MILP's class size for t-closeness is t_class_floor (> 1 here), so the brute-force
    equalities above (t0.1-equal, t0.2-ordered, ...) run with the floor's constraint."""
    from starmin.algorithms.t_closeness_bound import t_class_floor

    _, rt = table(*TABLES[1])
    for t, distance in ((0.1, EqualDistance()), (0.2, OrderedDistance()), (0.2, HIER)):
        model = TCloseness(t, distance)
        floor = t_class_floor(rt, model)
        assert floor > 1, (t, distance)
        assert milp_exact.exact_constraints(model, rt)[0].k == floor
    assert milp_exact.exact_constraints(AllOf(KAnonymity(9), TCloseness(0.3)), rt)[0].k == 9
