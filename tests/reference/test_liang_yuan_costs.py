"""Liang & Yuan's worked examples as literal tests (Sec. 1, Tables 1-3; Sec. 2, Tables 4-5).

"We regard each digit of Zip-code and Age as a separate QI" (Sec. 2, p. 3): Table 1 has
m = 8 QIs -- five Zipcode digits, two Age digits and Education -- and Disease as the SA.
"""

from __future__ import annotations

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.data.rowtypes import RowTypes
from starmin.models import KAnonymity, LDiversity, PrivacyModel, TCloseness
from starmin.transform.plan import STAR, Guarantee, ReleasePlan
from tests.helpers.naive import naive_optimum
from tests.helpers.tables import satisfies

EDUCATION = ("Bachelor", "Doctorate", "Master")
DISEASE = ("Viral Infection", "Heart Disease", "Cancer")

# Table 1 (Sec. 1, p. 2): ID, Zipcode, Age, Education, Disease
TABLE_1 = [
    (1, "98765", "38", "Bachelor", "Viral Infection"),
    (2, "98654", "39", "Doctorate", "Heart Disease"),
    (3, "98543", "32", "Master", "Heart Disease"),
    (4, "97654", "65", "Bachelor", "Cancer"),
    (5, "96689", "45", "Bachelor", "Viral Infection"),
    (6, "97427", "33", "Bachelor", "Viral Infection"),
    (7, "96552", "54", "Bachelor", "Heart Disease"),
    (8, "97017", "69", "Doctorate", "Cancer"),
    (9, "97023", "55", "Master", "Cancer"),
    (10, "97009", "62", "Bachelor", "Cancer"),
]
QI = ("Z1", "Z2", "Z3", "Z4", "Z5", "A1", "A2", "Education")
GUARANTEE = Guarantee(kind="heuristic", statement="paper example")


def _table(ids: list[int]) -> tuple[RowTypes, dict[int, int]]:
    """The rows ``ids`` of Table 1 as RowTypes, and the row type of each ID."""
    rows = [r for r in TABLE_1 if r[0] in ids]
    X = np.array([[int(d) for d in z + a] + [EDUCATION.index(e)] for _, z, a, e, _ in rows])
    S = np.array([DISEASE.index(r[4]) for r in rows])
    rt = RowTypes.from_arrays(X, S, qi=QI, sensitive="Disease")
    where = {r[0]: int(np.flatnonzero((rt.codes == x).all(axis=1))[0])
             for r, x in zip(rows, X, strict=True)}
    return rt, where


def _plan(rt: RowTypes, where: dict[int, int], groups: list[list[int]]) -> ReleasePlan:
    parts = []
    for g in groups:
        ti = np.array([where[i] for i in g])
        ki = np.array([DISEASE.index(TABLE_1[i - 1][4]) for i in g])
        parts.append((ti, ki, np.ones(len(g), dtype=np.int64)))
    return ReleasePlan.from_groups(rt, parts, "paper", GUARANTEE)


def _printed(vec: np.ndarray) -> str:
    """A released vector as the paper prints it: ``98***, 3*, *``."""
    cell = ["*" if c == STAR else str(c) for c in vec[:7]]
    edu = "*" if vec[7] == STAR else EDUCATION[vec[7]]
    return f"{''.join(cell[:5])}, {''.join(cell[5:7])}, {edu}"


def test_table2_partition_costs_54() -> None:
    # Table 2 (Sec. 1): groups {1,2,3}, {4,5,6,7}, {8,9,10}; Sec. 2: cost 5*3 + 6*4 + 5*3 = 54
    rt, where = _table(list(range(1, 11)))
    plan = _plan(rt, where, [[1, 2, 3], [4, 5, 6, 7], [8, 9, 10]])
    plan.validate(rt)
    assert satisfies(plan, rt, KAnonymity(3))
    assert plan.stars == 5 * 3 + 6 * 4 + 5 * 3 == 54
    printed = {_printed(plan.outputs[o]): int(plan.class_sizes[o]) for o in range(plan.t_out)}
    assert printed == {"98***, 3*, *": 3, "9****, **, Bachelor": 4, "970**, **, *": 3}


def test_table4_generalization_costs_15() -> None:
    # Table 4 (Sec. 2): the first three records; every suppressor has cost 5, total 5 * 3 = 15
    rt, where = _table([1, 2, 3])
    plan = _plan(rt, where, [[1, 2, 3]])
    assert plan.stars_per_output.tolist() == [5]
    assert plan.stars == 15
    assert _printed(plan.outputs[0]) == "98***, 3*, *"


def test_brute_force_on_table1_with_k3_beats_table2() -> None:
    # The optimum found is 54: Table 2's partition is an optimal 3-anonymous partition
    # (confirmed here by enumerating all 115975 set partitions of the 10 rows).
    rt, _ = _table(list(range(1, 11)))
    plan = brute_force.solve(rt, KAnonymity(3))
    plan.validate(rt)
    assert satisfies(plan, rt, KAnonymity(3))
    assert plan.stars <= 54
    assert plan.stars == plan.lower_bound == naive_optimum(rt, KAnonymity(3))


def test_table3_is_2_diverse_but_not_03_close() -> None:
    # Table 3 (Sec. 1): groups {1,2}, {3,5,8,9}, {4,6}, {7,10}; cost by Sec. 2's definition
    # 5*2 + 7*4 + 5*2 + 6*2 = 60. Sec. 2.1: its first group has distribution (0.5, 0.5, 0),
    # at EMD 0.4 from the table's (0.3, 0.3, 0.4) in the equal-distance space, so it is not a
    # 0.3-closeness partition.
    rt, where = _table(list(range(1, 11)))
    plan = _plan(rt, where, [[1, 2], [3, 5, 8, 9], [4, 6], [7, 10]])
    plan.validate(rt)
    assert plan.stars == 5 * 2 + 7 * 4 + 5 * 2 + 6 * 2 == 60
    printed = {_printed(plan.outputs[o]): int(plan.class_sizes[o]) for o in range(plan.t_out)}
    assert printed == {"98***, 3*, *": 2, "9****, **, *": 4, "97***, **, Bachelor": 2,
                       "9****, **, Bachelor": 2}
    assert satisfies(plan, rt, LDiversity(2))
    assert not satisfies(plan, rt, TCloseness(0.3))
    first = next(o for o in range(plan.t_out) if _printed(plan.outputs[o]) == "98***, 3*, *")
    emd = TCloseness(0.3).emd(plan.class_key_counts(rt.s)[[first]],
                              rt.counts.sum(axis=0), DISEASE)
    assert emd[0] == pytest.approx(0.4)


def test_table5_is_01_close() -> None:
    # Table 5 (Sec. 2.1): groups {1,2,4,3,5,8,9} and {6,7,10}, "even a 0.1-closeness
    # partition"; cost 7*7 + 6*3 = 67.
    rt, where = _table(list(range(1, 11)))
    plan = _plan(rt, where, [[1, 2, 4, 3, 5, 8, 9], [6, 7, 10]])
    plan.validate(rt)
    assert plan.stars == 7 * 7 + 6 * 3 == 67
    printed = {_printed(plan.outputs[o]): int(plan.class_sizes[o]) for o in range(plan.t_out)}
    assert printed == {"9****, **, *": 7, "9****, **, Bachelor": 3}
    assert satisfies(plan, rt, TCloseness(0.1))
    assert satisfies(plan, rt, TCloseness(0.3))


@pytest.mark.parametrize(("model", "paper_cost"), [
    (LDiversity(2), 60),       # Table 3
    (TCloseness(0.3), 67),     # Table 5
    (TCloseness(0.1), 67),     # Table 5
])
def test_brute_force_on_table1_beats_the_papers_partitions(model: PrivacyModel,
                                                           paper_cost: int) -> None:
    # optima found (equal to enumerating all 115975 partitions): 2-diversity 50,
    # 0.3-closeness 52, 0.1-closeness 64 -- the paper's partitions are examples, not optima
    rt, _ = _table(list(range(1, 11)))
    plan = brute_force.solve(rt, model)
    plan.validate(rt)
    assert satisfies(plan, rt, model)
    assert plan.stars <= paper_cost
    assert plan.stars == naive_optimum(rt, model)
