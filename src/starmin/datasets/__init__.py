"""Bundled sample tables: paper worked examples and seeded synthetic generators.

Nothing here reads files: every table is literal data or generated, so the library, its tests
and the CLI (``sample:NAME`` inputs) run without any external data.

* :func:`liang_yuan_table1`, :func:`liang_yuan_table1_digits`, :func:`xiao_table1` -- the
  papers' example tables, exactly as printed.
* :func:`synthetic_census` -- adult-like census rows, any size, with
  :func:`synthetic_census_hierarchies`.
* :func:`synthetic_acs` -- SAL/OCC-like rows with Xiao et al.'s Table 6 domain sizes, with
  :func:`synthetic_acs_hierarchies`.
* :data:`SAMPLES`, :func:`load`, :func:`default_qi`, :func:`default_sensitive`,
  :func:`hierarchies` -- the named samples.
"""

from starmin.datasets.acs import synthetic_acs, synthetic_acs_hierarchies
from starmin.datasets.census import synthetic_census, synthetic_census_hierarchies
from starmin.datasets.papers import liang_yuan_table1, liang_yuan_table1_digits, xiao_table1
from starmin.datasets.samples import (
    SAMPLES,
    Sample,
    default_qi,
    default_sensitive,
    hierarchies,
    load,
)

__all__ = [
    "SAMPLES",
    "Sample",
    "default_qi",
    "default_sensitive",
    "hierarchies",
    "liang_yuan_table1",
    "liang_yuan_table1_digits",
    "load",
    "synthetic_acs",
    "synthetic_acs_hierarchies",
    "synthetic_census",
    "synthetic_census_hierarchies",
    "xiao_table1",
]
