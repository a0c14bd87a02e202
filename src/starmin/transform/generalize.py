"""Release each star as the most specific node its class shares.

Every algorithm in starmin chooses classes (output vectors) to minimize stars. Given
hierarchies, :func:`lowest_nodes` then replaces each star of an output vector by the lowest
common ancestor, in that column, of the row types released as it -- Bredereck et al.'s
modification of the output step for domain generalization hierarchies (Sec. 4.4, before
Theorem 5: "set the value at position i to be the most specific value which generalizes the
values at position i of all the row types which assign at least one row to R'"). When every
row of the class holds the same value there, the value's parent is used, never the value
itself, so a star becomes an internal node or stays the root.

The classes do not change: an output vector's value cells are kept, and its stars become
internal nodes (codes ``>= card``, labels of their own) or stay stars, so two different output
vectors stay different and no two classes merge. Every privacy model judges classes only by
their sizes and sensitive values, so the verdict is the same; every cell moves down its
hierarchy or stays, so each loss measure of :mod:`starmin.transform.loss` is at most what it
was. Nothing here minimizes loss: the classes are the star-minimal ones (issue 9 part 4 is an
algorithm choosing classes for loss).

Complexity: ``O(t_out log t_out + height x nnz)`` per column with a hierarchy, ``nnz`` the
plan's entries.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from starmin.data.rowtypes import RowTypes
from starmin.transform.plan import STAR, ReleasePlan


def lowest_nodes(plan: ReleasePlan, rt: RowTypes) -> ReleasePlan:
    """``plan`` with each star replaced by the most specific internal node covering its class
    (see the module docstring); the plan itself when ``rt`` carries no hierarchy to use.

    Equal output vectors are one class (an attacker sees one), so they are merged first and
    generalized over their joint rows. The certificate records ``generalization``: the stars
    before and after and the cells released as internal nodes."""
    dgh = rt.dgh
    if dgh.is_flat or not (plan.count > 0).any():
        return plan
    uniq, inv = np.unique(plan.outputs, axis=0, return_inverse=True)
    oi = np.asarray(inv).reshape(-1)[plan.out_idx]
    live = plan.count > 0
    order = np.argsort(oi[live], kind="stable")
    out = oi[live][order]                       # (e,) class of each live entry, grouped
    types = plan.type_idx[live][order]          # (e,) its row type
    starts = np.flatnonzero(np.r_[True, out[1:] != out[:-1]])
    cls = out[starts]                           # classes with at least one row
    new = uniq.astype(np.int32).copy()
    for j, col in enumerate(dgh.columns):
        if col.is_flat:
            continue
        node = _lowest(col.up, rt.codes[types, j], starts)   # (len(cls),) per class
        leaf = node < col.card
        node[leaf] = col.parent[node[leaf]]                  # never the value itself
        star = new[cls, j] == STAR
        new[cls[star], j] = node[star]
    stars_before = plan.stars
    refined = ReleasePlan(new, oi, plan.type_idx, plan.key_idx, plan.count, plan.method,
                          plan.guarantee, plan.lower_bound, plan.certificate)
    cert = dict(plan.certificate)
    sizes = refined.class_sizes
    cert["generalization"] = {
        "stars_before": stars_before,
        "stars": refined.stars,
        "generalized_cells": int((sizes[:, None] * dgh.generalized(new)).sum()),
        "rule": "each star -> lowest common ancestor of its class (Bredereck et al. Sec. 4.4)",
    }
    return refined.with_info(certificate=cert)


def _lowest(up: NDArray[np.int32], leaves: NDArray[np.int32], starts: NDArray[np.int64]
            ) -> NDArray[np.int32]:
    """Per group of ``leaves`` (groups begin at ``starts``), the lowest ``up[h]`` on which
    the whole group agrees: its lowest common ancestor (``up[-1]`` is the root)."""
    g = len(starts)
    result = np.full(g, STAR, dtype=np.int32)
    todo = np.ones(g, dtype=bool)
    for h in range(up.shape[0]):
        anc = up[h, leaves]
        same = np.minimum.reduceat(anc, starts) == np.maximum.reduceat(anc, starts)
        hit = todo & same
        result[hit] = anc[starts[hit]]
        todo &= ~same
        if not todo.any():
            break
    return result
