"""Merge-repair from the level start with a joint placement LP and without it (tests of
:mod:`starmin.algorithms.heuristic._distinct_lp` and :mod:`._frequency_joint`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from starmin.algorithms.heuristic import merge_repair
from starmin.data.rowtypes import RowTypes
from starmin.models.apply import holds
from starmin.models.base import PrivacyModel
from starmin.transform.plan import ReleasePlan


def joint_and_alone(tables: Iterable[RowTypes], models: Iterable[PrivacyModel], option: str
                    ) -> Iterator[tuple[RowTypes, PrivacyModel, ReleasePlan, ReleasePlan]]:
    """For each table and model: the level start's release with the joint LP (the default)
    and with ``option`` set to False, both checked to satisfy the model."""
    kinds = list(models)
    for rt in tables:
        for model in kinds:
            joint = merge_repair.solve(rt, model, start="levels")
            alone = merge_repair.solve(rt, model, start="levels", **{option: False})
            for plan in (joint, alone):
                assert holds(model, rt, plan.class_key_counts(rt.s)).all()
            yield rt, model, joint, alone
