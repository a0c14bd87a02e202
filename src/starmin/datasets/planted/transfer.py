"""A k-anonymity instance as an l-diversity or t-closeness instance with the same optimum.

Give every row its own sensitive value (a column ``SA`` holding ``1..n``). Then a class is
frequency l-diverse iff it has at least ``l`` rows (Bredereck et al., Corollary 1(2): ``l :=
k``), and its EMD to the table under the equal distance is ``1 - r/n`` for ``r`` rows, so it
is t-close iff it has at least ``k`` rows when ``1 - k/n <= t < 1 - (k-1)/n`` (Liang & Yuan,
Lemma 1, which takes ``t = 1 - k/n``; Corollary 1 applies it to Theorems 3-5). The feasible
partitions, hence the optimum, are those of k-anonymity.

``t`` is the smallest finite decimal in that interval (``1 - k/n`` itself when it has one), so
that ``--t`` passes it back exactly.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from starmin.datasets.planted.assemble import as_float, refuse
from starmin.datasets.planted.instance import PlantedInstance

MODELS = ("k-anonymity", "l-diversity", "t-closeness")


def threshold(k: int, n: int) -> Fraction:
    """The smallest finite decimal ``t`` with ``1 - k/n <= t < 1 - (k-1)/n``."""
    low, high = Fraction(n - k, n), Fraction(n - k + 1, n)
    scale = 1
    while True:
        t = Fraction(math.ceil(low * scale), scale)
        if t < high:
            return t
        scale *= 10


def transfer(inst: PlantedInstance, model: str) -> PlantedInstance:
    """``inst`` (a k-anonymity instance) under ``model`` (one of :data:`MODELS`)."""
    if model not in MODELS:
        raise refuse("model", model, f"the model is one of {', '.join(MODELS)}",
                     "l-diversity")
    if model == "k-anonymity":
        return inst
    k, n = int(inst.model_params["k"]), inst.n
    rows = tuple((*row, i + 1) for i, row in enumerate(inst.rows))
    if model == "l-diversity":
        params: dict[str, object] = {"l": k}
        how = (f"Bredereck et al., Corollary 1(2): every row its own sensitive value and "
               f"l = k = {k}, so l-diverse classes are the k-anonymous ones")
    else:
        t = threshold(k, n)
        params = {"t": as_float(t)}
        how = (f"Liang & Yuan, Lemma 1: every row its own sensitive value, equal distance "
               f"and t = {as_float(t)} in [1 - k/n, 1 - (k-1)/n) (k = {k}, n = {n}), so "
               "t-close classes are the k-anonymous ones")
    optimum = dataclasses.replace(inst.optimum,
                                  argument=f"{inst.optimum.argument}; the same optimum "
                                  f"under {model} ({how})")
    return dataclasses.replace(
        inst, title=f"{inst.title}, as {model}", reference=f"{inst.reference}; {how}",
        parameters={**inst.parameters, "model": model}, columns=(*inst.columns, "SA"),
        rows=rows, sensitive=("SA",), model_params=params, optimum=optimum)
