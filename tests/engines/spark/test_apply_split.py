"""The Spark engine's assignment of rows to output vectors, on the driver alone (no Spark):
ranking only the rows of split classes and handing them out by per-class thresholds
(:mod:`starmin.engines.spark.apply`) gives every row the output vector the local engine gives
it (:func:`starmin.engines.local.assign_groups`), on random plans with many split classes."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from starmin.engines.local import assign_groups
from starmin.engines.spark.apply import assign_split, plan_tables, uniforms


def random_plan(rng: np.random.Generator, n: int, classes: int) -> tuple[Any, Any]:
    """Rows' classes and a plan handing each class's rows to 1-4 output vectors."""
    cls = rng.integers(0, classes, n)
    size = np.bincount(cls, minlength=classes)
    out, typ, count = [], [], []
    for c in np.flatnonzero(size):
        parts = int(rng.integers(1, min(4, size[c]) + 1))
        cuts = np.sort(rng.choice(np.arange(1, size[c]), parts - 1, replace=False)) \
            if parts > 1 else np.zeros(0, dtype=np.int64)
        counts = np.diff(np.concatenate([[0], cuts, [size[c]]]))
        outs = rng.choice(50, parts, replace=False)
        out += list(outs)
        typ += [c] * parts
        count += list(counts)
    order = rng.permutation(len(out))  # the plan's entries in no particular order
    plan = SimpleNamespace(out_idx=np.array(out)[order], type_idx=np.array(typ)[order],
                           key_idx=np.zeros(len(out), dtype=np.int64),
                           count=np.array(count)[order])
    return cls, plan


def spark_like(cls: Any, plan: Any, seed: int, batches: int) -> Any:
    """What the executors compute: one output vector per class with a single entry; for
    split classes, thresholds (the first row of each later entry in the class's order), then
    each batch of consecutive rows assigned by :func:`assign_split`."""
    n = len(cls)
    pt = plan_tables(SimpleNamespace(s=1), plan)
    one = pt["one_out"][np.searchsorted(pt["cid"], cls)]
    pos = np.arange(n, dtype=np.int64)
    split = np.flatnonzero(one < 0)
    u = uniforms(pos[split], seed)  # as drawn on the executors, by runs of positions
    order = np.lexsort((split, u, cls[split]))
    c_sorted = cls[split][order]
    rank = np.arange(len(order)) - np.searchsorted(c_sorted, c_sorted, side="left")
    at = {(int(c), int(r)): i for i, (c, r) in enumerate(zip(c_sorted, rank, strict=True))}
    hits = [at[(int(c), int(r))] for c, r in zip(pt["bound_cid"], pt["bound_rank"],
                                                 strict=True)]
    th = {"t_cid": c_sorted[hits], "t_u": u[order][hits], "t_row": split[order][hits],
          "t_out": pt["bound_out"], "split_cid": pt["split_cid"],
          "split_first_out": pt["split_first_out"]}
    key = np.lexsort((th["t_out"], th["t_row"], th["t_u"], th["t_cid"]))
    th = {k: (v[key] if k.startswith("t_") else v) for k, v in th.items()}
    out = one.copy()
    for chunk in np.array_split(pos, batches):
        s = chunk[one[chunk] < 0]
        if len(s):
            out[s] = assign_split(cls[s], uniforms(chunk, seed)[one[chunk] < 0], s, th)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_split_assignment_equals_the_local_engines(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cls, plan = random_plan(rng, 3000, 40 + 60 * seed)
    local = assign_groups(cls, np.arange(int(cls.max()) + 1, dtype=np.int64), 1, plan, seed)
    assert (np.asarray(plan_tables(SimpleNamespace(s=1), plan)["one_out"]) < 0).any()
    np.testing.assert_array_equal(spark_like(cls, plan, seed, batches=7), local)


def test_ties_in_the_uniform_go_by_position() -> None:
    """Rows of a class with the same uniform are ordered by position, as in the local
    engine: a row at or after a threshold takes its entry."""
    th = {"t_cid": np.array([5]), "t_u": np.array([0.5]), "t_row": np.array([10]),
          "t_out": np.array([2]), "split_cid": np.array([5]),
          "split_first_out": np.array([7])}
    got = assign_split(np.array([5, 5, 5, 5]), np.array([0.5, 0.5, 0.5, 0.4]),
                       np.array([9, 10, 11, 12]), th)
    np.testing.assert_array_equal(got, [7, 2, 2, 7])
