"""Algorithm 1's exhaustive guess of output row types, searched by branch and bound.

Bredereck et al.'s Algorithm 1 (Sec. 4.1) tries every guess of at most ``t_out`` output row
types -- each the suppressor of a subset of the input row types, see :mod:`.candidates` -- and
solves ROW ASSIGNMENT (Lemma 1; p-ROW ASSIGNMENT, Lemma 3, for p-sensitivity) for each; by
Lemma 2 ``t_out <= t_in`` loses no optimum (Theorem 3). For the optimization version (fewest
stars) every guess is solved and the cheapest assignment kept.

This module visits the same guesses as a binary search tree and skips subtrees that cannot
win. A node fixes some candidates as *guessed* (each must receive ``>= k`` rows, and ``p``
values for p-sensitivity), some as *excluded* (no row may go there) and leaves the rest
*undecided*. Its bound is the assignment flow in which undecided candidates may take any
number of rows, ``>= k`` not required: every guess below the node (guessed ones plus some of
the undecided) is a restriction of it, so its cost is a lower bound for all of them.

- Flow infeasible, or not cheaper than the best release so far: the subtree is skipped.
- Every undecided candidate that the flow uses already meets the requirement: the flow is a
  release (its used candidates are a guess), and the cheapest of the subtree; it is kept.
  For p-sensitivity the flow does not say which values go to an undecided candidate, so the
  guess {guessed + used} is solved exactly once more; if that costs the bound, the subtree
  is done, otherwise the search branches.
- Otherwise it branches on one used undecided candidate below the requirement (the one with
  the fewest stars; ties: the most rows, then the first): *guess it* or *exclude it*.

Nodes are expanded best-first (lowest bound; ties: deepest, then oldest), so the search ends
as soon as the best release costs no more than every open bound. A node with ``max_out``
guessed candidates leaves nothing undecided (Lemma 2: ``max_out = t_in``). With
``restricted`` (Proposition 2's question: the fewest stars with at most ``t_out`` output row
types) a flow using more than ``max_out`` candidates is not a release either, and the search
branches on it; the methods answer that question by enumeration (:mod:`.restricted`, much
faster there), and the tests use this restricted search as its cross-check.

Exactness. A subtree is dropped only when its bound is no better than a release in hand, and
the leaves of the tree are all guesses of at most ``max_out`` candidates, so the best release
is as good as the best guess (a release kept without ``restricted`` may use more than
``max_out`` classes; it is still a release, no worse than every guess below its node): the
optimum of Theorem 3 (Theorem 4 for p-sensitivity), or of Proposition 2's restricted problem.
The search stops after ``max_nodes`` flows (a work limit, the same on every machine) and raises
:class:`~starmin.errors.SolverLimit`; it never returns a release it has not proven optimal.

Work: at most ``sum_{j <= max_out} C(C, j)`` guesses for ``C`` candidates in the worst case,
``O(2^(t_in^2))`` as in Theorem 3; each node one flow on ``O(t_in + C)`` nodes.

References
----------
R. Bredereck, A. Nichterlein, R. Niedermeier and G. Philip, "The Effect of Homogeneity on the
Computational Complexity of Combinatorial Data Anonymization", Sec. 4.1 (Algorithm 1,
Theorem 2, Lemma 2, Theorem 3), Sec. 4.2 (Proposition 2), Sec. 4.3 (Theorem 4).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from starmin.algorithms._progress import Meter
from starmin.algorithms.base import Progress
from starmin.algorithms.fpt.candidates import Candidates
from starmin.algorithms.fpt.network import Assignment
from starmin.errors import SolverLimit

Mask = NDArray[np.bool_]


class AssignmentProblem(Protocol):
    """ROW ASSIGNMENT or p-ROW ASSIGNMENT over fixed candidates."""

    k: int
    cand: Candidates
    sizes: NDArray[np.int64]
    """``(t_in,)`` rows per input row type."""

    def solve(self, guessed: Mask, usable: Mask) -> Assignment | None: ...


@dataclass(frozen=True, eq=False)
class Outcome:
    """The optimal release found and what the search did."""

    best: Assignment
    flows: int
    """Flows solved (nodes of the tree, plus p-sensitivity's leaf checks)."""
    pruned: int
    """Subtrees skipped by their bound or infeasibility."""


def branch_and_bound(problem: AssignmentProblem, *, max_out: int, restricted: bool,
                     sized_is_release: bool, max_nodes: int, progress: Progress,
                     what: str) -> Outcome:
    """The cheapest guess of at most ``max_out`` candidates (see the module docstring).

    ``sized_is_release``: a flow whose used candidates all have ``>= k`` rows is a release
    (ROW ASSIGNMENT); otherwise such a flow's guess is solved once more (p-ROW ASSIGNMENT).
    Raises :class:`SolverLimit` after ``max_nodes`` flows, or when no guess is feasible
    (callers check feasibility first, so that is a bug)."""
    search = _Search(problem, max_out, restricted, sized_is_release, max_nodes, what)
    meter = Meter(progress, what, "flows", None, note=search.state)
    C = problem.cand.count
    search.visit(np.zeros(C, dtype=bool), np.ones(C, dtype=bool), 0)
    while search.open:
        bound, depth, _, g, u, b = heapq.heappop(search.open)
        if search.best is not None and bound >= search.best.cost:
            search.pruned += 1 + len(search.open)  # every open node is bounded as high
            break
        meter.tick(search.flows)
        guessed = np.unpackbits(g, count=C).astype(bool)
        usable = np.unpackbits(u, count=C).astype(bool)
        if int(guessed.sum()) < max_out:  # child 1: guess b
            inc = guessed.copy()
            inc[b] = True
            search.visit(inc, inc.copy() if int(inc.sum()) == max_out else usable, -depth + 1)
        excl = usable.copy()  # child 2: exclude b
        excl[b] = False
        search.visit(guessed, excl, -depth + 1)
    if search.best is None:
        raise SolverLimit(f"{what}: no guess of output row types is feasible although the "
                          "table is; please report this as a bug with the input")
    return Outcome(search.best, search.flows, search.pruned)


class _Search:
    """The state of one best-first search: the open nodes, the best release, the counts.

    An open node is ``(bound, -depth, sequence, guessed bits, usable bits, candidate to
    branch on)``: the node whose bound is lowest is expanded first (ties: the deepest, then
    the first made), so a release whose cost is the lowest open bound is proven optimal and
    the search ends."""

    def __init__(self, problem: AssignmentProblem, max_out: int, restricted: bool,
                 sized_is_release: bool, max_nodes: int, what: str) -> None:
        self.problem, self.max_out, self.restricted = problem, max_out, restricted
        self.sized_is_release, self.max_nodes, self.what = sized_is_release, max_nodes, what
        self.open: list[tuple[int, int, int, NDArray[np.uint8], NDArray[np.uint8], int]] = []
        self.best: Assignment | None = whole_table(problem)
        self.flows = 1
        self.pruned = 0
        self.made = 0

    def state(self) -> str:
        low = self.open[0][0] if self.open else "-"
        unit = getattr(self.problem, "unit", "stars")
        return f"best {self.best.cost if self.best else '-'} {unit}, lower bound {low}"

    def solve(self, guessed: Mask, usable: Mask) -> Assignment | None:
        if self.flows >= self.max_nodes:
            raise SolverLimit(
                f"{self.what}: the branch and bound reached its work limit of "
                f"{self.max_nodes:,} flows (max_nodes) before proving an optimum ("
                f"{self.problem.cand.count} candidate output row types; {self.state()}): use "
                f"--method auto, or raise max_nodes")
        self.flows += 1
        return self.problem.solve(guessed, usable)

    def visit(self, guessed: Mask, usable: Mask, depth: int) -> None:
        """Solve a node's flow; keep a release it proves, else open it with its branching
        candidate (module docstring)."""
        a = self.solve(guessed, usable)
        best = self.best
        if a is None or (best is not None and a.cost >= best.cost):
            self.pruned += 1
            return
        k = self.problem.k
        used = (a.rows > 0) & ~guessed
        short = used & (a.rows < k)
        over = self.restricted and int(guessed.sum() + used.sum()) > self.max_out
        if not short.any() and not over:
            if self.sized_is_release:
                self.best = a
                return
            take = guessed | used
            leaf = self.solve(take, take)
            if leaf is not None and (self.best is None or leaf.cost < self.best.cost):
                self.best = leaf
            if (leaf is not None and leaf.cost == a.cost) or not used.any():
                return  # (with nothing undecided in use, a is that guess: leaf == a)
        b = _pick(short if short.any() else used, a, self.problem.cand)
        self.made += 1
        heapq.heappush(self.open, (a.cost, -depth, self.made, np.packbits(guessed),
                                   np.packbits(usable), b))


def _pick(among: Mask, a: Assignment, cand: Candidates) -> int:
    """The candidate to branch on: fewest stars, then most rows, then the first (of the
    orders tried on random tables, the one that solved fewest flows)."""
    idx = np.flatnonzero(among)
    order = np.lexsort((idx, -a.rows[idx], cand.omega[idx]))
    return int(idx[order[0]])


def whole_table(problem: AssignmentProblem) -> Assignment | None:
    """The first release in hand: the whole table as one class (its suppressor is the
    candidate generalizing every row type with the fewest stars)."""
    cand = problem.cand
    every = np.flatnonzero(cand.covers.all(axis=1))
    if len(every) == 0:
        return None
    j = int(every[np.argmin(cand.omega[every])])
    only = np.zeros(cand.count, dtype=bool)
    only[j] = True
    return problem.solve(only, only)
