"""No result may depend on wall-clock time (issue 7, part 3): solver budgets count work.

pattern-packing's bucket LP has ``lp_max_iterations`` (tests/algorithms/test_progress.py and
tests/property/test_determinism_under_load.py); here the MILP's ``node_limit`` reaches HiGHS,
and no algorithm hands HiGHS a time limit unless the user asked for one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from starmin.algorithms.exact import two_diversity_milp as milp_mod
from starmin.data.rowtypes import RowTypes
from starmin.models import LDiversity

ALGORITHMS = Path(milp_mod.__file__).resolve().parents[1]


def test_node_limit_reaches_highs_and_no_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import scipy.optimize

    seen: list[dict[str, Any]] = []
    real = scipy.optimize.milp

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(dict(kwargs["options"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(scipy.optimize, "milp", spy)  # imported where the MILP is solved
    rng = np.random.default_rng(100)
    rt = RowTypes.from_arrays(rng.integers(0, 3, size=(40, 4)), rng.integers(0, 4, size=40))
    model = LDiversity(2)
    plan = milp_mod.solve(rt, model, node_limit=500)
    assert seen and all(o.get("node_limit") == 500 and "time_limit" not in o for o in seen)
    seen.clear()
    assert milp_mod.solve(rt, model).stars == plan.stars
    assert seen and all("node_limit" not in o and "time_limit" not in o for o in seen)


# the user's --time-limit (tests/algorithms/test_time_limit.py) is the one way a clock gets
# in: the option of milp, handed to HiGHS by the MILP's solve and by the restricted LP of
# milp's column generation (its deadline); no other module names it
ASKED = {"lp/milp_exact.py", "lp/master.py", "lp/incremental.py"}


def test_no_algorithm_hands_highs_a_time_limit() -> None:
    for path in sorted(ALGORITHMS.rglob("*.py")):
        if path.relative_to(ALGORITHMS).as_posix() not in ASKED:
            assert not re.search(r"[\"']time_limit[\"']", path.read_text()), path
