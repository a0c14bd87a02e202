"""Proposition 2: the fewest stars with at most ``t_out`` output row types, by enumeration.

Bredereck et al. (Sec. 4.2) solve k-ANONYMITY with a constant number ``t_out`` of output row
types in FPT time for the parameter ``m``: guess the starred columns of each output row type
(``2^(m t_out)``) and one prototype row for each (``n^O(t_out)``), then solve ROW ASSIGNMENT
(Lemma 1). A (starred columns, prototype) pair is an output vector; replacing it by the
suppressor of the row types it generalizes removes stars and loses nothing, so the guesses are
the sets of at most ``t_out`` candidates of :mod:`.candidates` (``C <= 2^m t_in`` of them, from
the ``2^m`` patterns), each a flow.

Every guess is listed, in batches (numpy), and given a bound without a flow: each row type's
rows at the cheapest guessed vector that generalizes it (``sum_i n_i min_j omega_j``; a guess
that leaves a row type uncovered, or has fewer than ``k`` rows per vector, is dropped). The
flows are then solved in increasing order of that bound, and the enumeration stops at the first
bound that is no lower than the best release found: every guess after it costs at least its
bound. The release is the cheapest guess, exactly as Proposition 2's exhaustive search.

Work (known before the search, so the method can refuse up front): ``sum_{j <= t_out} C(C, j)``
guesses bounded in ``O(t_out t_in)`` each, at most ``MAX_GUESSES`` (1,000,000); flows only for
guesses whose bound beats the best release, at most ``max_nodes``.

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 4.2, Proposition 2; Sec. 4.1,
ROW ASSIGNMENT and Lemma 1 (Sec. 4.3, Lemma 3, for p-sensitivity).
"""

from __future__ import annotations

from itertools import combinations, islice
from math import comb

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Progress
from starmin.algorithms.fpt.search import AssignmentProblem, Outcome, whole_table
from starmin.errors import SolverLimit

MAX_GUESSES = 1_000_000
"""Largest number of guesses (sets of at most ``t_out`` candidates) enumerated."""
_BATCH = 8_192


def guesses(C: int, t_out: int) -> int:
    """``sum_{j=1}^{t_out} C(C, j)``: the guesses of at most ``t_out`` of ``C`` candidates."""
    return sum(comb(C, j) for j in range(1, t_out + 1))


def _bounded(problem: AssignmentProblem, t_out: int, ceiling: int
             ) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """Every guess that covers every row type, has ``k`` rows per vector and a bound below
    ``ceiling``, cheapest bound first (ties: fewer vectors, then candidate order): ``(N,)``
    bounds and ``(N, t_out)`` guesses (candidate indices, padded with -1)."""
    cand, sizes, k = problem.cand, problem.sizes, problem.k
    n = int(sizes.sum())
    big = np.iinfo(np.int64).max // (4 * max(n, 1))
    cost_if = np.where(cand.covers, cand.omega[:, None], big)  # (C, t_in)
    bounds: list[NDArray[np.int64]] = []
    picks: list[NDArray[np.int32]] = []
    for j in range(1, t_out + 1):
        if k * j > n:
            break
        it = combinations(range(cand.count), j)
        while chunk := list(islice(it, _BATCH)):
            combo = np.asarray(chunk, dtype=np.int32)  # (B, j)
            per_type = cost_if[combo].min(axis=1)  # (B, t_in)
            bound = per_type @ sizes  # (B,)
            ok = (per_type < big).all(axis=1) & (bound < ceiling)
            padded = np.full((int(ok.sum()), t_out), -1, dtype=np.int32)
            padded[:, :j] = combo[ok]
            bounds.append(bound[ok])
            picks.append(padded)
    if not bounds:
        return np.zeros(0, np.int64), np.zeros((0, t_out), np.int32)
    b, g = np.concatenate(bounds), np.concatenate(picks)
    # lexsort: last key first; -1 pads sort a smaller guess first among equal bounds
    order = np.lexsort((*(g[:, c] for c in range(t_out - 1, -1, -1)), (g >= 0).sum(axis=1), b))
    return b[order], g[order]


def enumerate_guesses(problem: AssignmentProblem, *, t_out: int, max_nodes: int,
                      progress: Progress, what: str) -> Outcome:
    """The cheapest guess of at most ``t_out`` candidates (module docstring). Raises
    :class:`SolverLimit` after ``max_nodes`` flows."""
    best = whole_table(problem)
    flows = 1
    ceiling = best.cost if best is not None else np.iinfo(np.int64).max
    bounds, picks = _bounded(problem, t_out, ceiling)
    meter = Meter(progress, what, "guesses", len(bounds))
    pruned = 0
    for done in range(len(bounds)):
        bound = int(bounds[done])
        if best is not None and bound >= best.cost:
            pruned = len(bounds) - done
            break
        if flows >= max_nodes:
            raise SolverLimit(
                f"{what}: {max_nodes:,} flows (max_nodes) solved before the enumeration of "
                f"guesses ended (best {best.cost if best else '-'} stars, next bound "
                f"{bound}); use --method auto, or raise max_nodes")
        meter.tick(done)
        mask = np.zeros(problem.cand.count, dtype=bool)
        guess = picks[done]
        mask[guess[guess >= 0]] = True
        a = problem.solve(mask, mask)
        flows += 1
        if a is not None and (best is None or a.cost < best.cost):
            best = a
    if best is None:
        raise SolverLimit(f"{what}: no guess of output row types is feasible although the "
                          "table is; please report this as a bug with the input")
    return Outcome(best, flows, pruned)
