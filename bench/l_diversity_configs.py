"""What bench/l_diversity_experiments.py runs: the full, quick and tiny (smoke test) configs.

Spawned pool workers rebuild a config by name (:data:`CONFIGS`), so every table factory here
must be deterministic in ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from l_diversity_data import (
    ADULT_QI,
    ADULT_SA,
    acs,
    acs_table,
    adult,
    adult_table,
    projections,
    replicated_adult,
)
from l_diversity_sweeps import FlowSpec, SampleSpec, ScalingSpec, TableSpec
from starmin.datasets.acs import QI as ACS_QI

LS = tuple(range(2, 11))


@dataclass
class Config:
    """What to run; ``describe`` is stored in the results."""

    name: str
    tables: list[TableSpec] = field(default_factory=list)
    scaling: list[ScalingSpec] = field(default_factory=list)
    flow: FlowSpec | None = None
    samples: list[SampleSpec] = field(default_factory=list)
    describe: dict[str, Any] = field(default_factory=dict)


def _acs_spec(n: int, sensitive: str, limit: int, verify_ls: tuple[int, ...]) -> TableSpec:
    return TableSpec(make=lambda: acs_table(n, sensitive), ls=LS, ds=tuple(range(1, 8)),
                     limit=limit, verify_first=1, verify_ls=verify_ls)


def _occ_scaling(ns: tuple[int, ...], k: int, seed: int) -> ScalingSpec:
    return ScalingSpec("synthetic OCC, d = 4",
                       lambda n: acs(n, "occupation"), tuple(projections(ACS_QI, 4, k, seed)),
                       "occupation", ns)


def _adult_scaling(ns: tuple[int, ...]) -> ScalingSpec:
    return ScalingSpec("adult replicated, d = 8", replicated_adult, (ADULT_QI,),
                       ADULT_SA, ns)


def full_config(seed: int = 0) -> Config:
    """Measured: 925 s wall with 2 worker processes on a shared 2-core machine (load ~3)."""
    return Config(
        "full",
        tables=[TableSpec(make=adult_table, ls=LS, ds=tuple(range(1, 9)), verify_first=2),
                _acs_spec(600_000, "occupation", 3, (6,)),
                _acs_spec(600_000, "income", 3, (6,))],
        scaling=[_occ_scaling((100_000, 200_000, 400_000, 600_000, 800_000, 1_000_000), 3,
                              seed),
                 _adult_scaling((30_162, 100_000, 300_000, 600_000, 1_000_000))],
        flow=FlowSpec(n=6000, limit=4),
        samples=[SampleSpec("brute force, 12 rows", "brute-force", 100, 12, (2, 3, 4), (2, 3),
                            cross=("two-diversity-milp",)),
                 SampleSpec("MILP, 300 rows, l = 2", "two-diversity-milp", 32, 300,
                            tuple(range(1, 9)), (2,))],
        describe={"adult": "all projections, d = 1..8, l = 2..10 (l > 7 infeasible)",
                  "synthetic": "600k rows; TP on all 127 projections; TP+/Hilbert on 3 "
                               "sampled projections per d (seeded)"})


def quick_config(seed: int = 0) -> Config:
    """Under a minute."""
    return Config(
        "quick",
        tables=[TableSpec(make=adult_table, ls=(2, 4, 6), ds=(1, 2, 4), limit=3,
                          phases_all=False, verify_first=1),
                TableSpec(make=lambda: acs_table(20_000, "occupation"), ls=(2, 6, 10),
                          ds=(1, 4, 7), limit=2, phases_all=False, verify_first=1)],
        scaling=[_occ_scaling((10_000, 40_000), 1, seed), _adult_scaling((30_162, 60_000))],
        flow=FlowSpec(n=400, ds=(1, 2, 3), limit=1),
        samples=[SampleSpec("brute force, 10 rows", "brute-force", 6, 10, (2, 3), (2, 3),
                            cross=("two-diversity-milp",)),
                 SampleSpec("MILP, 100 rows, l = 2", "two-diversity-milp", 4, 100, (2, 4),
                            (2,))])


def tiny_config(seed: int = 0) -> Config:
    """Seconds: for the smoke test; every release is verified."""
    small = adult().sample(1500, seed=seed)
    return Config(
        "tiny",
        tables=[TableSpec(make=lambda: adult_table(small, "adult-1500"), ls=(2, 3, 6),
                          ds=(1, 4), limit=1, phases_all=False, verify_first=99),
                TableSpec(make=lambda: acs_table(3_000, "occupation"), ls=(2, 6), ds=(1, 4),
                          limit=1, phases_all=False, verify_first=99)],
        scaling=[replace(_occ_scaling((1_000, 2_000), 1, seed), verify_all=True)],
        flow=FlowSpec(n=200, ds=(1, 2), limit=1),
        samples=[SampleSpec("brute force, 8 rows", "brute-force", 3, 8, (2, 3), (2, 3),
                            cross=("two-diversity-milp",)),
                 SampleSpec("MILP, 60 rows, l = 2", "two-diversity-milp", 2, 60, (2, 3),
                            (2,))])



CONFIGS = {"full": full_config, "quick": quick_config, "tiny": tiny_config}
