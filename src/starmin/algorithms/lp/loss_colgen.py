"""Column generation over hierarchy node vectors: a certified LP lower bound on the loss.

The LP core's program (:mod:`.master`; Liang & Yuan Sec. 4, Thm 9) with blocks that are
*node vectors* (one hierarchy node per column) instead of suppression patterns, each costing
``c(x) = sum_j cost_j(x_j)`` per row (Iyengar's per-cell loss or stars,
:mod:`starmin.algorithms.recode.node_costs`).

**The pattern space covers every release.** Group the node vectors by their *level pattern*
``L`` (one level per column): the vectors of pattern ``L`` are the distinct ``up[L](v)`` over
the row types, and the vector ``x = up[L](v)`` may receive exactly the pairs of the row types
it covers (its group). Take any release satisfying the model, and a class ``E``: it is
released at or above its generalizer ``g`` (the per-column lowest common ancestor, the
cheapest vector covering it: costs grow up the tree), and ``g = up[L](v)`` for ``L`` its
levels and any ``v`` in ``E`` (a node of level ``h`` over a value is that value's lowest
ancestor of level ``>= h``). So ``E``'s rows form a feasible class of block ``g`` (it satisfies
the relaxation, :mod:`.relaxation`), costing ``|E| c(g)`` at most what the release pays.
Summing, the LP over *all* node vectors is at most the optimum, and pricing enumerates all of
them (every level pattern, every group), so its bound covers every output vector's loss class.

**Certificate** (as in :mod:`.colgen`, with costs for stars). For duals ``pi`` and gains
``G(x)`` (:mod:`.pricing`: the most a one-row class at ``x`` collects within the relaxation),
``delta = max(0, max G over the vectors of cost 0)`` and ``theta = min(1, min over the others
of c(x) / (G(x) - delta))``, the duals ``theta (pi - delta)`` are feasible for every block, so
``theta (sum_p c(p) pi(p) - delta n)`` bounds the LP optimum from below (weak duality); a
relative 1e-6 is taken off against round-off. When no vector prices out it is the LP optimum.

Limits (work, never time): the number of level patterns (``max_patterns``; every one is
priced each round, so beyond it no bound is given), ``max_rounds`` LP rounds (a stopped run
still gives the certificate of its last round).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms.base import Progress, silent
from starmin.algorithms.lp.master import Blocks, build, solve_lp
from starmin.algorithms.lp.pairs import IntArray, Pairs
from starmin.algorithms.lp.pricing import Pricer
from starmin.algorithms.lp.relaxation import FloatArray, Relaxation
from starmin.algorithms.recode.node_costs import column_trees
from starmin.data.rowtypes import RowTypes

_SAFETY = 1e-6
MAX_PATTERNS = 5_000
"""Most level patterns (the product of the columns' heights + 1) priced each round."""


@dataclass(frozen=True)
class LossLP:
    """The certified bound on the total cost (sum over the cells), the last LP value, the
    rounds made and whether pricing found nothing more (the LP optimum)."""

    bound: float
    lp_value: float
    rounds: int
    complete: bool
    vectors: int


class _NodePricer(Pricer):
    """Gains of the node vectors of one level pattern (see the module docstring)."""

    def gains(self, group_of_type: IntArray, g: int, pi: FloatArray
              ) -> tuple[FloatArray, NDArray[np.bool_], IntArray]:
        group = group_of_type[self.pairs.type_of]
        if self.rel.t is None:
            gain, share = self._greedy(group, g, pi)
            support = share > 0
        else:
            gain, support = self._closeness_of(group, g, pi)
        return gain, support, group


def level_patterns(rt: RowTypes) -> NDArray[np.int64]:
    """``(patterns, m)``: every level pattern, in lexicographic order."""
    heights = [c.height for c in rt.dgh.columns]
    return np.array(list(itertools.product(*[range(h + 1) for h in heights])),
                    dtype=np.int64).reshape(-1, rt.m)


def pattern_count(rt: RowTypes) -> int:
    return int(np.prod([c.height + 1 for c in rt.dgh.columns], dtype=np.float64))


def loss_column_generation(rt: RowTypes, rel: Relaxation, objective: str = "loss", *,
                           max_rounds: int = 40, max_patterns: int = MAX_PATTERNS,
                           progress: Progress = silent) -> LossLP | None:
    """Column generation over node vectors for one relaxation; ``None`` when the level
    patterns are more than ``max_patterns``."""
    if rt.m == 0 or pattern_count(rt) > max_patterns:
        return None
    pairs = Pairs.of(rt)
    pricer = _NodePricer(rt, pairs, rel)
    trees = column_trees(rt.dgh, objective)
    cols = rt.dgh.columns
    codes = rt.codes.astype(np.int64)
    anc = [c.up[:, codes[:, j]].astype(np.int64) for j, c in enumerate(cols)]
    patterns = level_patterns(rt)
    groups: list[tuple[IntArray, IntArray, FloatArray, NDArray[np.int32]]] = []
    for L in patterns:  # per pattern: group of each type, representative, cost, vectors
        stack = np.stack([anc[j][L[j]] for j in range(rt.m)], axis=1)
        vecs, rep, inv = np.unique(stack, axis=0, return_index=True, return_inverse=True)
        cost = np.zeros(len(vecs))
        for j, t in enumerate(trees):
            cost += t.cost[vecs[:, j]]
        groups.append((np.asarray(inv).reshape(-1).astype(np.int64), rep.astype(np.int64),
                       cost, vecs.astype(np.int32)))
    pool: dict[tuple[int, int], set[int]] = {}

    def add(pi_: int, g: int, ps: IntArray) -> int:
        slot = pool.setdefault((pi_, g), set())
        before = len(slot)
        slot.update(int(p) for p in ps)
        return len(slot) - before

    zero = np.zeros(pairs.P)
    inv0 = groups[0][0]
    gain0, _, grp0 = pricer.gains(inv0, int(inv0.max()) + 1, zero)
    for g0 in np.flatnonzero(np.isfinite(gain0)):
        add(0, int(g0), np.flatnonzero(grp0 == g0))
    top = len(patterns) - 1  # the all-root pattern: one vector holding every pair
    add(top, 0, np.arange(pairs.P))
    best, rounds, complete = 0.0, 0, False
    n = rt.n
    lp = None
    keep = max(200, rt.t_in // 4)
    while True:
        blocks = _blocks(pool, groups, pairs, rt.m)
        lp = solve_lp(build(pairs, rel, blocks))
        rounds += 1
        pi = lp.pi
        delta = 0.0
        priced = []
        for inv, _rep, cost, _v in groups:
            gain, support, group = pricer.gains(inv, len(cost), pi)
            priced.append((gain, support, group))
            free = (cost <= 1e-15) & np.isfinite(gain)
            if free.any():
                delta = max(delta, float(gain[free].max()))
        theta = 1.0
        violated: list[tuple[float, int, int]] = []
        for p_i, (gain, _s, _g) in enumerate(priced):
            cost = groups[p_i][2]
            over = gain - delta
            pos = (cost > 1e-15) & (over > 1e-12) & np.isfinite(over)
            if pos.any():
                theta = min(theta, float((cost[pos] / over[pos]).min()))
            viol = np.flatnonzero(np.isfinite(gain) & (gain - cost > 1e-7 * (1 + np.abs(gain))))
            violated.extend((float(gain[g] - cost[g]), p_i, int(g)) for g in viol)
        value = float(pairs.count @ pi) - delta * n
        best = max(best, theta * value * (1 - _SAFETY) - _SAFETY)
        progress(f"loss lp: round {rounds}, {blocks.B} vectors, LP {lp.value:.3f}, bound "
                 f"{best:.3f}, {len(violated)} vectors price out")
        if not violated:
            complete = True
            best = max(best, lp.value * (1 - _SAFETY) - _SAFETY)
            break
        if rounds >= max_rounds:
            break
        violated.sort(key=lambda e: (-e[0], e[1], e[2]))
        added = 0
        for _o, p_i, g in violated[:keep]:
            _gain, support, group = priced[p_i]
            members = np.flatnonzero(group == g)
            added += add(int(p_i), int(g), members[support[members]])
        if added == 0:
            break
    return LossLP(max(best, 0.0), float(lp.value), rounds, complete, len(pool))


def _blocks(pool: dict[tuple[int, int], set[int]],
            groups: list[tuple[IntArray, IntArray, FloatArray, NDArray[np.int32]]],
            pairs: Pairs, m: int) -> Blocks:
    vecs, cost, bo, po = [], [], [], []
    for b, ((p_i, g), ps) in enumerate(pool.items()):
        vecs.append(groups[p_i][3][g])
        cost.append(groups[p_i][2][g])
        arr = np.array(sorted(ps), dtype=np.int64)
        po.append(arr)
        bo.append(np.full(len(arr), b, dtype=np.int64))
    # Blocks.stars holds each block's cost per row (a float here; the master only uses it
    # as the objective coefficient)
    return Blocks(np.array(vecs, dtype=np.int32).reshape(-1, m),
                  np.array(cost, dtype=np.float64),
                  np.concatenate(bo), np.concatenate(po))
