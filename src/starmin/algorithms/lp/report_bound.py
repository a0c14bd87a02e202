"""Which of a model's LP relaxations every report bounds: the work budget of the report's LP
bound (``starmin.api.lp_lower_bound``), in one place, so that ``--method auto`` knows when
``lp-rounding``'s column generation is work the report does anyway (it then takes
lp-rounding's bound instead of running the same column generation again)."""

from __future__ import annotations

from starmin.algorithms.lp.relaxation import Relaxation, relaxations
from starmin.algorithms.lp.work import work_units
from starmin.data.rowtypes import RowTypes
from starmin.models.base import PrivacyModel

LP_BOUND_MAX_WORK = 20.0
"""Work units (:func:`starmin.algorithms.lp.work.work_units`, estimated from the
instance's size, never a clock) the LP core's certified bounds in every report may take
together (column generation, :mod:`starmin.algorithms.lp.colgen`): the model's relaxations
run in order while their estimates fit (ARX adult, 8 QIs and 14 sensitive values: about 20
units for frequency l-diversity or t-closeness). Beyond, ``--method lp-rounding`` gives it."""


def bounded_relaxations(model: PrivacyModel, rt: RowTypes) -> list[tuple[Relaxation, float]]:
    """The relaxations every report bounds, in order, with their estimated work: each whose
    estimate still fits :data:`LP_BOUND_MAX_WORK` after the ones before it."""
    out: list[tuple[Relaxation, float]] = []
    spent = 0.0
    for rel in relaxations(model, rt):
        work = work_units(rt, rel)
        if spent + work > LP_BOUND_MAX_WORK:
            continue
        spent += work
        out.append((rel, work))
    return out
