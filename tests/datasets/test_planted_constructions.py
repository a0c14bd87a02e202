"""The reductions' constructions and formulas on the papers' small examples
(src/starmin/datasets/planted/): literal tables and values, each citing the paper.

The optimum of each literal example is checked with brute force (the project's oracle,
src/starmin/algorithms/exact/brute_force.py)."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest

from starmin.algorithms.exact import brute_force
from starmin.datasets.planted import bredereck, draws, liang_yuan, meyerson_williams, xiao
from starmin.models import KAnonymity, LDiversity, MatrixDistance, PrivacyModel, TCloseness
from tests.helpers.tables import from_rows


def optimum(rows: list[list[int]] | list[list[str]], model: PrivacyModel,
            sensitive: bool = False) -> int:
    """Brute force's optimum on a literal table (values encoded per column)."""
    width = len(rows[0])
    coded = np.array([[sorted({str(r[j]) for r in rows}).index(str(row[j]))
                       for j in range(width)] for row in rows], dtype=np.int64)
    if sensitive:
        rt = from_rows(coded[:, :-1].tolist(), coded[:, -1].tolist())
    else:
        rt = from_rows(coded.tolist())
    return brute_force.solve(rt, model).stars


def group_stars(rows: list[list[int]] | list[list[str]], groups: list[list[int]],
                m: int) -> int:
    return meyerson_williams.partition_stars(rows, m, groups)


# --- Xiao, Yi & Tao, Sec. 4, Figure 1 -------------------------------------------------------

# Figure 1a: D_1 = {1,2,3,4} -> v_1..v_4, D_2 = {a,b,c,d} -> v_5..v_8,
# D_3 = {alpha,beta,gamma,delta} -> v_9..v_12
XIAO_POINTS = [(1, 5, 12), (1, 6, 11), (2, 7, 9), (2, 6, 9), (3, 6, 11), (4, 8, 10)]
# Figure 1b, "The constructed table T (m = 8)": rows 1,2,3,4,a,b,c,d,alpha,beta,gamma,delta;
# columns A_1..A_6, B
XIAO_FIGURE_1B = [
    [0, 0, 1, 1, 1, 1, 1],
    [2, 2, 0, 0, 2, 2, 2],
    [3, 3, 3, 3, 0, 3, 3],
    [4, 4, 4, 4, 4, 0, 4],
    [0, 5, 5, 5, 5, 5, 5],
    [6, 0, 6, 0, 0, 6, 6],
    [7, 7, 0, 7, 7, 7, 7],
    [7, 7, 7, 7, 7, 0, 7],
    [8, 8, 0, 0, 8, 8, 8],
    [8, 8, 8, 8, 8, 0, 8],
    [8, 0, 8, 8, 0, 8, 8],
    [0, 8, 8, 8, 8, 8, 8],
]


def test_xiao_construction_is_figure_1b() -> None:
    assert xiao.lemma3_rows(4, XIAO_POINTS, 8) == XIAO_FIGURE_1B


def test_xiao_sensitive_values_follow_the_three_cases() -> None:
    # Sec. 4: row j = 7 (value c of D_2), n = 4, m = 8: 2n >= m-1 > n and j in [m-1, 2n]: u = 7
    assert xiao.sensitive_value(7, 4, 8) == 7
    for n in range(1, 7):
        for m in range(3, 3 * n + 1):
            u = [xiao.sensitive_value(j, n, m) for j in range(1, 3 * n + 1)]
            assert sorted(set(u)) == list(range(1, m + 1))  # exactly m values
            for a, b in itertools.combinations(range(3 * n), 2):
                if a // n != b // n:  # rows from different domains differ (Sec. 4)
                    assert u[a] != u[b]
            assert max(u.count(v) for v in set(u)) <= n  # 3-eligible: <= 3n/3 per value


def test_xiao_property_1_three_zeros_per_column() -> None:
    table = np.array(XIAO_FIGURE_1B)
    assert ((table[:, :-1] == 0).sum(axis=0) == 3).all()


def test_xiao_lemma3_optimum_on_figure_1() -> None:
    # S' = {p1, p3, p5, p6} is a 3DM solution (Sec. 4), so Lemma 3 and Property 4 give the
    # optimum 3n(d - 1) = 3 * 4 * 5 = 60 stars
    groups = [[j - 1 for j in XIAO_POINTS[i]] for i in (0, 2, 4, 5)]
    assert sorted(j for g in groups for j in g) == list(range(12))
    assert group_stars(XIAO_FIGURE_1B, groups, 6) == 60
    assert optimum(XIAO_FIGURE_1B, LDiversity(3), sensitive=True) == 60


# --- Liang & Yuan, Sec. 3 -------------------------------------------------------------------

CYCLE = [(1, 2), (2, 3), (3, 4), (1, 4)]  # a 4-cycle, minimum bisection width 2


def test_theorem3_table_and_equation_2() -> None:
    # T[i][j] = i if v_i is an endpoint of e_j, else 0
    rows = liang_yuan.bisection_rows(4, CYCLE)
    assert rows == [[1, 0, 0, 1], [2, 2, 0, 0], [0, 3, 3, 0], [0, 0, 4, 4]]
    # Eq. (2): cost = n(|E| + |E_12|)/2 for each bisection
    for v1, cut in (([1, 2], 2), ([1, 3], 4), ([1, 4], 2)):
        v2 = [v for v in range(1, 5) if v not in v1]
        assert liang_yuan.bisection_cost(4, CYCLE, v1) == 4 * (4 + cut) // 2
        assert group_stars(rows, [[v - 1 for v in v1], [v - 1 for v in v2]], 4) == \
            4 * (4 + cut) // 2
    # OPT' = n(|E| + OPT)/2 = 4 (4 + 2) / 2 = 12
    assert optimum(rows, KAnonymity(2)) == 12


def test_theorem4_adds_columns_and_rows_keeping_the_optimum() -> None:
    # c = 1/3 as in Figure 2: n' = n/(2c) = 6 rows, m' = m + nm = 20 columns, OPT' = OPT = 12
    rows = liang_yuan.cn_rows(4, CYCLE, 2)
    assert len(rows) == 6 and all(len(r) == 20 for r in rows)
    assert rows[0] == [1, 0, 0, 1] + [5] * 16  # lambda_1 = n + 1
    assert rows[4] == rows[5] == [6] * 20  # lambda_2 = n + 2
    assert optimum(rows, KAnonymity(2)) == 12


def test_theorem5_threshold_on_a_small_graph() -> None:
    # n = 6, n' = 8 (c = 3/8 in (1/3, 1/2)); the triangle {1,2,3} is a clique of size n/2
    edges = [(1, 2), (1, 3), (2, 3), (3, 4), (4, 5)]
    rows = liang_yuan.halfclique_rows(6, edges, 2)
    assert rows[6] == [7] * 5 and rows[7] == [8] * 5  # new rows hold i everywhere
    # n'm - (n/2) C(n/2, 2) = 8 * 5 - 3 * 3 = 31
    assert liang_yuan.halfclique_threshold(6, 8, 5) == 31
    # the "only if" partition: T_1 = V_1 = {4, 5, 6}, T_2 = the clique and the new rows
    assert group_stars(rows, [[3, 4, 5], [0, 1, 2, 6, 7]], 5) == 31
    assert optimum(rows, KAnonymity(3)) == 31
    # without a half clique (a path) the optimum is strictly above the threshold
    path = [(1, 2), (2, 3), (3, 4), (4, 5), (5, 6)]
    assert optimum(liang_yuan.halfclique_rows(6, path, 2), KAnonymity(3)) > \
        liang_yuan.halfclique_threshold(6, 8, 5)


@pytest.mark.parametrize("n", range(6, 62, 2))
def test_theorem5_f_is_increasing(n: int) -> None:
    # the proof's f(x) = (n - x) C(x, 2) is strictly increasing on [1, n/2]: f(|V_2|) <
    # f(n/2) for every |V_2| < n/2, so a release at the threshold needs |V_2| = n/2
    def f(x: int) -> int:
        return (n - x) * math.comb(x, 2)

    assert all(f(x) < f(n // 2) for x in range(n // 2))


LIANG_TUPLES = XIAO_POINTS  # Figure 1a's points as a 3DM instance (X = 1..4, Y = 5..8, ...)


def test_theorem6_table_and_optimum() -> None:
    rows = liang_yuan.three_dm_rows(4, LIANG_TUPLES)
    # T[i][j] = 0 if v_i in e_j else i; SA 1, 2, 3 for X, Y, Z
    assert rows[0] == [0, 0, 1, 1, 1, 1, 1]
    assert rows[5] == [6, 0, 6, 0, 0, 6, 2]
    assert rows[11] == [0, 12, 12, 12, 12, 12, 3]
    # a matching (p1, p3, p5, p6): 3n(m - 1) = 3 * 4 * 5 = 60 stars; equal distance, t < 1/3
    assert optimum(rows, TCloseness(0.25), sensitive=True) == 60


def test_theorem6_small_groups_are_not_t_close() -> None:
    # "EMD(P(T_p), P(T)) >= 1/3" for groups of 1 or 2 rows (Fact 1, equal distance)
    overall = np.array([4, 4, 4])
    hist = np.array([[1, 1, 0], [0, 0, 1], [0, 0, 2], [1, 1, 1]])
    emd = TCloseness(0.25).emd(hist, overall, [1, 2, 3])
    assert emd.tolist() == pytest.approx([1 / 3, 2 / 3, 2 / 3, 0.0])


def test_theorem7_equation_5() -> None:
    # t = 0.35: n' = 3n/(1 - 2t) = 10n; P(T) = ((1-2t)/3, (1-2t)/3, (1-2t)/3, 2t)
    t = Fraction(7, 20)
    assert liang_yuan.four_value_rows_for(1, t) == 10
    model = TCloseness(0.35, distance=MatrixDistance(liang_yuan.FOUR_VALUE_METRIC))
    overall = np.array([1, 1, 1, 7])
    hist = np.array([[1, 1, 1, 0],   # a matching triple: EMD = (1/2) 2t = t
                     [0, 0, 0, 1],   # a new row alone: EMD = (1 - 2t)/2 = 0.15
                     [1, 0, 0, 0],   # (1,0,0,0): 0.35 + 0.1 + 0.1 = 0.55 > t
                     [1, 1, 0, 0]])  # (1/2,1/2,0,0): 0.35 + 0.1 = 0.45 > t
    ev = model.evaluate(hist, overall, [1, 2, 3, 4])
    assert ev.measure.tolist() == pytest.approx([0.35, 0.15, 0.55, 0.45])
    assert ev.ok.tolist() == [True, True, False, False]


def test_theorem7_table_and_optimum() -> None:
    rows = liang_yuan.four_value_rows(1, [(1, 2, 3)], 10)
    assert rows[:3] == [[0, 1], [0, 2], [0, 3]]
    assert rows[3:] == [[i, 4] for i in range(4, 11)]
    model = TCloseness(0.35, distance=MatrixDistance(liang_yuan.FOUR_VALUE_METRIC))
    assert optimum(rows, model, sensitive=True) == 0  # 3n(m - 1) = 0


# --- Meyerson & Williams, Sec. 3 -------------------------------------------------------------

MW_EDGES = [(1, 2, 3), (1, 4, 5), (4, 5, 6), (2, 3, 6)]


def test_theorem31_table_and_optimum() -> None:
    rows = meyerson_williams.theorem31_rows(6, MW_EDGES)
    assert rows[0] == [0, 0, 1, 1] and rows[5] == [6, 6, 0, 0]
    # {1,2,3}, {4,5,6} is a perfect matching: n(m - 1) = 6 * 3 = 18
    assert optimum(rows, KAnonymity(3)) == 18
    # no perfect matching (every edge but {1,2,3} meets it): strictly more than n(m - 1)
    no = meyerson_williams.theorem31_rows(6, [(1, 2, 3), (1, 4, 5), (3, 5, 6)])
    assert optimum(no, KAnonymity(3)) > 6 * 2


def test_theorem32_attribute_optimum() -> None:
    rows = meyerson_williams.theorem32_rows(6, MW_EDGES)
    assert rows[0] == [1, 1, 0, 0] and rows[5] == [0, 0, 1, 1]
    # the fewest whole columns to suppress: m - n/k = 4 - 2 = 2 (keep {1,2,3} and {4,5,6})
    assert fewest_columns(rows, 3) == 2


def fewest_columns(rows: list[list[int]], k: int) -> int:
    """Fewest whole columns whose suppression leaves a k-anonymous table (enumeration)."""
    m = len(rows[0])
    for drop in range(m + 1):
        for gone in itertools.combinations(range(m), drop):
            kept = [j for j in range(m) if j not in gone]
            counts: dict[tuple[int, ...], int] = {}
            for r in rows:
                key = tuple(r[j] for j in kept)
                counts[key] = counts.get(key, 0) + 1
            if min(counts.values()) >= k:
                return drop
    raise AssertionError("unreachable: suppressing every column is k-anonymous")


# --- Bredereck et al., Sec. 3.2 --------------------------------------------------------------

def test_proposition1_matrix_is_figure_1() -> None:
    # n = 8: A = a_1..a_4, B = b_1..b_4, n/4 = 2; a_1 ~ b_1, b_2; a_2 ~ b_2; a_3 ~ b_1, b_2
    rows = bredereck.matrix_rows(8, [(1, 1), (1, 2), (2, 2), (3, 1), (3, 2)])
    assert rows == [["1", "1", "0_1", "0_1"],
                    ["0_1", "1", "0_1", "0_1"],
                    ["1", "1", "0_2", "0_2"],
                    ["0_2", "0_2", "0_2", "0_2"],
                    ["□"] * 4,
                    ["1"] * 4]
    # s = (n/4 + 1) n/2 + (n/4 + 1) n/4 = 12 + 6 = 18; {a_1, a_3} x {b_1, b_2} is a balanced
    # biclique and no b has n/4 = 2 neighbours outside B', so OPT = s
    assert bredereck.allowed(8) == 18
    assert optimum(rows, KAnonymity(3)) == 18


def test_theorem1_adds_dummy_columns_and_rows() -> None:
    rows = bredereck.matrix_rows(8, [(1, 1), (1, 2), (3, 1), (3, 2)], t_out=4)
    assert len(rows) == 6 + 2 * 3 and all(len(r) == 8 for r in rows)
    assert rows[4] == ["□"] * 4 + ["1"] * 4  # Figure 2: the box row has 1 in d_1..d_{n/2}
    assert rows[6:9] == [["3"] * 8] * 3 and rows[9:] == [["4"] * 8] * 3
    assert optimum(rows, KAnonymity(3)) == 18


def test_proposition1_optimum_counts_the_common_neighbourhood() -> None:
    # OPT = k n/2 + k (n/2 - C), C the largest common neighbourhood of n/4 vertices of A; a
    # yes-instance can beat s: the complete bipartite graph has C = n/2 and OPT = k n/2 = 12
    full = [(a, b) for a in range(1, 5) for b in range(1, 5)]
    assert optimum(bredereck.matrix_rows(8, full), KAnonymity(3)) == 12 < bredereck.allowed(8)
    rng = random.Random(5)
    for _ in range(6):
        edges = [(a, b) for a in range(1, 5) for b in range(1, 5) if rng.random() < 0.5]
        c = max(len(set.intersection(*({b for a2, b in edges if a2 == a} for a in pair)))
                for pair in itertools.combinations(range(1, 5), 2))
        assert optimum(bredereck.matrix_rows(8, edges), KAnonymity(3)) == 3 * (8 - c)


# --- the planted source instances ------------------------------------------------------------

@pytest.mark.parametrize(("n", "cross"), [(4, 0), (4, 2), (6, 4), (8, 1), (8, 6), (10, 8)])
def test_two_cliques_minimum_bisection_is_planted(n: int, cross: int) -> None:
    rng = random.Random(n * 100 + cross)
    edges, v1 = draws.two_cliques(rng, n, cross)
    width = min(sum(1 for u, v in edges if (u in half) != (v in half))
                for half in map(set, itertools.combinations(range(1, n + 1), n // 2)))
    assert width == cross
    assert sum(1 for u, v in edges if (u in v1) != (v in v1)) == cross


@pytest.mark.parametrize("half", [2, 4, 6, 8])
def test_planted_biclique_has_common_neighbourhood_n_over_4(half: int) -> None:
    for seed in range(4):
        edges, sol = draws.bipartite_biclique(random.Random(seed), half,
                                              Fraction(3, 4), True)
        assert sol is not None
        q = half // 2
        nbrs = {a: {b for a2, b in edges if a2 == a} for a in range(1, half + 1)}
        best = max(len(set.intersection(*(nbrs[a] for a in group)))
                   for group in itertools.combinations(range(1, half + 1), q))
        assert best == q
        assert set(sol[1]) <= set.intersection(*(nbrs[a] for a in sol[0]))
