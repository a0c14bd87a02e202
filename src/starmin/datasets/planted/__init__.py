"""Planted instances with a known optimum, from the papers' hardness reductions.

Each family turns a seeded random instance of an NP-hard source problem (minimum bisection,
half clique, 3-dimensional or k-dimensional matching, balanced biclique) into a table through
the paper's reduction. With ``plant=True`` a solution of the source problem is planted, and
the reduction's two directions prove the table's optimum (each family's module says which
directions of which proof); with ``plant=False`` the optimum is unknown and only the bound the
reduction proves for every instance is recorded.

>>> from starmin.datasets.planted import generate
>>> inst = generate("liang-yuan-thm6", 4, seed=1)
>>> inst.optimum.stars, inst.model_params          # doctest: +SKIP
(84, {'t': 0.25})
>>> inst.frame()                                   # polars DataFrame      # doctest: +SKIP

Families (:data:`FAMILIES`): ``liang-yuan-thm3`` .. ``liang-yuan-thm7`` (Liang & Yuan
Theorems 3-7), ``xiao-lemma3`` (Xiao, Yi & Tao Lemma 3), ``meyerson-williams-thm3.1`` and
``-thm3.2`` (Meyerson & Williams Theorems 3.1-3.2), ``bredereck-prop1`` and
``bredereck-thm1`` (Bredereck et al. Proposition 1, Theorem 1). See docs/generate.md.
"""

from __future__ import annotations

from typing import Any

from starmin.datasets.planted.assemble import unused, whole
from starmin.datasets.planted.families import FAMILIES, PARAMETERS, Family, family
from starmin.datasets.planted.instance import Optimum, PlantedInstance
from starmin.datasets.planted.transfer import MODELS, transfer
from starmin.datasets.planted.write import write


def generate(name: str, size: int, *, seed: int = 0, plant: bool = True,
             **params: Any) -> PlantedInstance:
    """The instance of family ``name`` with source size ``size`` (what it means depends on the
    family: vertices, ``|X|``, ...), drawn with ``seed``; ``plant`` plants a solution (then the
    optimum is known). ``params`` are the family's parameters (:data:`PARAMETERS`); one it does
    not take is refused. Same arguments, same instance."""
    fam = family(name)
    seed = whole("seed", seed)
    if seed < 0:
        from starmin.datasets.planted.assemble import refuse

        raise refuse("seed", seed, "the seed is a whole number >= 0", 0)
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise TypeError(f"generate() got an unexpected keyword argument {unknown[0]!r}; the "
                        f"family parameters are {', '.join(PARAMETERS)}")
    unused(fam.name, params, list(fam.takes(plant)), list(fam.takes(not plant)), plant)
    given = {k: v for k, v in params.items() if v is not None}
    model = given.pop("model", "k-anonymity")
    return transfer(fam.build(size, seed, plant, given), str(model))


__all__ = ["FAMILIES", "MODELS", "PARAMETERS", "Family", "Optimum", "PlantedInstance", "generate",
           "write"]
