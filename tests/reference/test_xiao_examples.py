"""Xiao, Yi & Tao (EDBT 2010) worked examples as literal tests.

- Sec. 1 / Sec. 5.2: Table 1 with l = 2. Phase one removes QI-groups {1, 2}, {3}, {4}
  entirely; R = {HIV, HIV, pneumonia, bronchitis} is 2-eligible and the run ends (Cor. 1:
  optimal tuple count, 4). Table 3 is that partition's generalization: 8 stars, 4 tuples
  (Sec. 3, after Problem 2).
- Sec. 5.3: phase two on Q1 = (3,1,1,2,3), Q2 = (0,2,2,4,4), Q3 = (4,4,0,0,0), l = 3.
- Sec. 5.4: phase three from Q1 = (3,1,2,3,3), Q2 = (1,3,2,3,3), R = (4,4,4,0,0), l = 4.

SA values are numbered from 1 in the paper and coded from 0 here.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from numpy.typing import NDArray

from starmin.algorithms.approx import tp, tp_phases, tp_plus
from starmin.algorithms.exact import brute_force
from starmin.data.rowtypes import RowTypes
from starmin.data.schema import Schema
from starmin.engines.local import LocalEngine
from starmin.models import LDiversity
from starmin.transform.plan import ReleasePlan
from tests.helpers.tables import satisfies

# Table 1 (Sec. 1): Name, Age, Gender, Education, Disease
TABLE_1 = [
    ("Adam", "< 30", "M", "Master", "HIV"),
    ("Bob", "< 30", "M", "Master", "HIV"),
    ("Calvin", "< 30", "M", "Bachelor", "pneumonia"),
    ("Danny", "[30, 50]", "M", "Bachelor", "bronchitis"),
    ("Eva", "[30, 50]", "F", "Bachelor", "pneumonia"),
    ("Fiona", "[30, 50]", "F", "Bachelor", "bronchitis"),
    ("Ginny", "[30, 50]", "F", "Bachelor", "bronchitis"),
    ("Helen", "[30, 50]", "F", "Bachelor", "pneumonia"),
    ("Ivy", ">= 50", "F", "High Sch.", "dyspepsia"),
    ("Jane", ">= 50", "F", "High Sch.", "pneumonia"),
]
# Table 3 (Sec. 1): the 2-diverse publication, QI columns only
TABLE_3 = [("*", "M", "*")] * 4 + [r[1:4] for r in TABLE_1[4:]]
QI = ("Age", "Gender", "Education")


def _table_1() -> tuple[pl.DataFrame, LocalEngine, object]:
    df = pl.DataFrame(TABLE_1, schema=["Name", *QI, "Disease"], orient="row")
    engine = LocalEngine()
    return df, engine, engine.to_row_types(df, Schema.of(qi=QI, sensitive="Disease"))


def _released(engine: LocalEngine, enc: object, plan: object) -> list[tuple[str, ...]]:
    out = engine.apply_plan(enc, plan)  # type: ignore[arg-type]
    return [tuple(r) for r in out.select(QI).rows()]


def test_table_1_phase_one_ends_the_run_with_tuples_1_to_4_removed() -> None:
    df, engine, enc = _table_1()
    rt: RowTypes = enc.row_types  # type: ignore[attr-defined]
    assert rt.t_in == 5                                        # the five QI-groups
    plan = tp.solve(rt, LDiversity(2))
    plan.validate(rt)
    assert satisfies(plan, rt, LDiversity(2))
    assert plan.certificate["phase"] == 1
    assert plan.certificate["suppressed_tuples"] == 4 == plan.lower_bound
    released = _released(engine, enc, plan)
    # TP releases R fully suppressed; every other tuple unchanged
    assert released[:4] == [("*", "*", "*")] * 4
    assert released[4:] == [r[1:4] for r in TABLE_1[4:]]
    removed = sorted(df["Disease"][:4].to_list())
    assert removed == sorted(["HIV", "HIV", "pneumonia", "bronchitis"])
    assert plan.stars == 4 * 3


def test_table_1_tp_partition_released_by_definition_1_is_table_3() -> None:
    # Table 3 is the generalization (Def. 1: a star where the group's tuples differ) of TP's
    # partition: the residue {1, 2, 3, 4} as one QI-group, the rest unchanged.
    _, engine, enc = _table_1()
    rt: RowTypes = enc.row_types  # type: ignore[attr-defined]
    run = tp_phases.run(rt.counts, 2)
    r_t, r_k = np.nonzero(run.removed)
    groups = [(r_t, r_k, run.removed[r_t, r_k])]
    for t in np.flatnonzero(run.kept.sum(axis=1)):
        k = np.flatnonzero(run.kept[t])
        groups.append((np.full(len(k), t), k, run.kept[t, k]))
    plan = ReleasePlan.from_groups(rt, groups, "paper", tp.GUARANTEE)
    assert _released(engine, enc, plan) == TABLE_3
    assert plan.stars == 8 and plan.suppressed_records == 4    # Sec. 3: 8 stars, 4 tuples


def test_table_1_tp_plus_beats_table_3_and_is_optimal_here() -> None:
    _, engine, enc = _table_1()
    rt: RowTypes = enc.row_types  # type: ignore[attr-defined]
    plan = tp_plus.solve(rt, LDiversity(2))
    plan.validate(rt)
    assert satisfies(plan, rt, LDiversity(2))
    released = _released(engine, enc, plan)
    assert released[4:] == TABLE_3[4:]                         # the kept groups unchanged
    assert all(r[1] == "M" and r[2] == "*" for r in released[:4])
    assert plan.stars < 8                                      # the residue is cut in two
    assert plan.stars == brute_force.solve(rt, LDiversity(2)).stars


def _groups_table(counts: list[list[int]]) -> RowTypes:
    C = np.asarray(counts)
    qi = np.repeat(np.arange(len(C)), C.sum(axis=1))[:, None]
    sa = np.concatenate([np.repeat(np.arange(C.shape[1]), r) for r in C])
    return RowTypes.from_arrays(qi, sa)


def _replay(start: tuple[NDArray[np.int64], NDArray[np.int64]],
            moves: list[tuple[int, int, int]]) -> list[tuple[list[list[int]], list[int]]]:
    """Every status ``(Q, R)`` after each move, from ``start``."""
    Q, R = start[0].copy(), start[1].copy()
    out = []
    for _, i, v in moves:
        Q[i, v] -= 1
        R[v] += 1
        out.append((Q.tolist(), R.tolist()))
    return out


def test_sec_5_3_phase_two_example() -> None:
    counts = [[3, 1, 1, 2, 3], [0, 2, 2, 4, 4], [4, 4, 0, 0, 0]]
    run = tp_phases.run(np.array(counts), 3, trace=True)
    assert run.after_phase_one is not None and run.moves is not None
    Q1, R1 = run.after_phase_one
    # "In phase one, Q1 and Q2 do not change, while all tuples of Q3 are removed."
    assert Q1.tolist()[:2] == counts[:2] and Q1[2].sum() == 0
    assert R1.tolist() == [4, 4, 0, 0, 0]
    steps = _replay(run.after_phase_one, run.moves)
    # 1st iteration: v = 3 from Q1 (both Q1 and Q2 could give it)
    assert run.moves[0] == (2, 0, 2)
    assert steps[0] == ([[3, 1, 0, 2, 3], [0, 2, 2, 4, 4], [0] * 5], [4, 4, 1, 0, 0])
    # "Now Q1 is dead": thin (9 = 3 x 3) and conflicting on value 1
    # 2nd iteration: v = 4; Q2 is thin, not conflicting: a 4 and a 5 leave together
    assert run.moves[1:3] == [(2, 1, 3), (2, 1, 4)]
    assert steps[2] == ([[3, 1, 0, 2, 3], [0, 2, 2, 3, 3], [0] * 5], [4, 4, 1, 1, 1])
    # 3rd iteration: Q2 is fat; a 3 is removed and R becomes 3-eligible
    assert run.moves[3:] == [(2, 1, 2)]
    assert steps[3] == ([[3, 1, 0, 2, 3], [0, 2, 1, 3, 3], [0] * 5], [4, 4, 2, 1, 1])
    assert run.phase == 2 and run.iterations == 3
    # through the public solver: 12 tuples suppressed, Cor. 3 holds (OPT >= 3 * 4 = 12)
    rt = _groups_table(counts)
    plan = tp.solve(rt, LDiversity(3))
    plan.validate(rt)
    assert satisfies(plan, rt, LDiversity(3))
    assert plan.certificate["phase"] == 2
    assert plan.certificate["suppressed_tuples"] == 12 == plan.lower_bound


def test_sec_5_4_phase_three_example() -> None:
    # The paper starts from the status after phase two. This input reaches it: Q3 has only
    # 3 < l values, so phase one removes it whole; Q1 and Q2 are thin (12 = 4 x 3) and
    # conflict with R on 1 and 2, so phase two finds no alive value.
    counts = [[3, 1, 2, 3, 3], [1, 3, 2, 3, 3], [4, 4, 4, 0, 0]]
    run = tp_phases.run(np.array(counts), 4, trace=True)
    assert run.after_phase_two is not None and run.after_phase_one is not None
    Q2, R2 = run.after_phase_two
    assert Q2.tolist()[:2] == counts[:2] and R2.tolist() == [4, 4, 4, 0, 0]
    assert run.iterations == 0
    assert run.moves is not None
    steps = _replay(run.after_phase_one, run.moves)
    # step one: greedy cover picks Q1 and Q2; each pillar gives one tuple
    assert run.moves[:6] == [(3, 0, 0), (3, 0, 3), (3, 0, 4), (3, 1, 1), (3, 1, 3), (3, 1, 4)]
    assert steps[5] == ([[2, 1, 2, 2, 2], [1, 2, 2, 2, 2], [0] * 5], [5, 5, 4, 2, 2])
    # step two: Q1 is fat and gives a 3; Q2 is fat and gives a 4; R is 4-eligible
    assert run.moves[6] == (3, 0, 2)
    assert steps[6] == ([[2, 1, 1, 2, 2], [1, 2, 2, 2, 2], [0] * 5], [5, 5, 5, 2, 2])
    assert run.moves[7:] == [(3, 1, 3)]
    assert steps[7] == ([[2, 1, 1, 2, 2], [1, 2, 2, 1, 2], [0] * 5], [5, 5, 5, 3, 2])
    assert run.phase == 3 and run.rounds == 1
    rt = _groups_table(counts)
    plan = tp.solve(rt, LDiversity(4))
    plan.validate(rt)
    assert satisfies(plan, rt, LDiversity(4))
    assert plan.certificate["phase"] == 3
    assert plan.certificate["suppressed_tuples"] == 20
    assert plan.certificate["tuple_lower_bound"] == 16          # Cor. 2: 4 x h(R) = 4 x 4


@pytest.mark.parametrize("method", [tp, tp_plus])
def test_examples_release_l_diverse_tables(method: object) -> None:
    for counts, l in (([[3, 1, 1, 2, 3], [0, 2, 2, 4, 4], [4, 4, 0, 0, 0]], 3),
                      ([[3, 1, 2, 3, 3], [1, 3, 2, 3, 3], [4, 4, 4, 0, 0]], 4)):
        rt = _groups_table(counts)
        plan = method.solve(rt, LDiversity(l))  # type: ignore[attr-defined]
        plan.validate(rt)
        assert satisfies(plan, rt, LDiversity(l))
