"""The planted-instance generators (src/starmin/datasets/planted/): every family, planted and
not; the planted release verifies with the recorded stars; determinism; parameter errors;
the files written."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import starmin
from starmin.datasets.planted import FAMILIES, generate, write
from starmin.datasets.planted.instance import PlantedInstance
from starmin.datasets.planted.transfer import threshold
from starmin.errors import InvalidInput

# (family, size, params): small and mid-size instances of every family
CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("liang-yuan-thm3", 10, {}),
    ("liang-yuan-thm3", 12, {"cross": 0}),
    ("liang-yuan-thm4", 8, {"extra": 6}),
    ("liang-yuan-thm5", 10, {"extra": 4, "density": 0.3}),
    ("liang-yuan-thm6", 6, {"edges": 15, "t": 0}),
    ("liang-yuan-thm7", 3, {"edges": 7}),
    ("liang-yuan-thm7", 2, {"t": 0.4}),
    ("xiao-lemma3", 5, {"values": 7}),
    ("xiao-lemma3", 4, {"values": 12, "edges": 30}),
    ("meyerson-williams-thm3.1", 12, {"k": 4, "edges": 9}),
    ("meyerson-williams-thm3.2", 12, {}),
    ("bredereck-prop1", 20, {"density": 0.7}),
    ("bredereck-thm1", 16, {"t_out": 5}),
]


def release_stars(inst: PlantedInstance) -> tuple[bool, int]:
    """The planted release checked by the independent verifier: (passed, stars)."""
    rows = inst.planted_release()
    assert rows is not None
    verdict = starmin.verify(inst.frame(rows), list(inst.qi), list(inst.sensitive) or None,
                             model=inst.model())
    stars = sum(1 for r in rows for v in r[:len(inst.qi)] if v == "*")
    return verdict.passed, stars


@pytest.mark.parametrize(("name", "size", "params"), CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_planted_release_verifies_at_the_recorded_stars(name: str, size: int,
                                                        params: dict[str, Any]) -> None:
    inst = generate(name, size, seed=3, **params)
    opt = inst.optimum
    passed, stars = release_stars(inst)
    assert passed
    assert stars == opt.upper_bound
    if name == "meyerson-williams-thm3.2":
        assert opt.stars is None and opt.status == "unknown"
        k = int(inst.parameters["k"])
        assert opt.attributes == opt.attributes_lower_bound == len(inst.qi) - inst.n // k
        assert inst.kept_attributes is not None
        assert len(inst.kept_attributes) == inst.n // k
    else:
        assert opt.stars == opt.lower_bound == opt.upper_bound == stars
        assert opt.status == "exact"
    # the witness is a partition of the rows
    assert inst.witness is not None
    assert sorted(i for g in inst.witness for i in g) == list(range(inst.n))


@pytest.mark.parametrize("name", list(FAMILIES))
def test_unplanted_optimum_is_unknown(name: str) -> None:
    size = {"liang-yuan-thm5": 8, "bredereck-prop1": 8, "bredereck-thm1": 8}.get(name, 6)
    inst = generate(name, size, seed=1, plant=False)
    assert not inst.planted and inst.witness is None
    assert inst.optimum.stars is None
    d = inst.as_dict()
    assert d["optimum"]["stars"] == "unknown" and d["optimum"]["status"] == "unknown"
    assert d["witness"] is None and d["planted"] is False


@pytest.mark.parametrize("name", list(FAMILIES))
def test_same_arguments_same_instance(name: str) -> None:
    size = {"liang-yuan-thm5": 8, "bredereck-prop1": 8, "bredereck-thm1": 8}.get(name, 6)
    a, b = generate(name, size, seed=11), generate(name, size, seed=11)
    assert a.csv_text() == b.csv_text() and a.json_text() == b.json_text()
    c = generate(name, size, seed=12)
    assert (c.csv_text(), c.json_text()) != (a.csv_text(), a.json_text())


def test_rows_are_shuffled_and_witness_follows() -> None:
    inst = generate("liang-yuan-thm6", 5, seed=0)
    sa = [r[-1] for r in inst.rows]
    assert sa != sorted(sa)  # not in the paper's X, Y, Z order
    for g in inst.witness or ():  # each planted group: one element of X, Y and Z
        assert sorted(inst.rows[i][-1] for i in g) == [1, 2, 3]


def test_recorded_parameters_and_model() -> None:
    inst = generate("liang-yuan-thm7", 2, seed=0, t="0.4", edges=5)
    assert inst.parameters == {"edges": 5, "t": 0.4}
    assert inst.n == 30  # 3n / (1 - 2t)
    assert inst.model_params == {"t": 0.4, "distance": "matrix"}
    assert inst.cli_flags("m.csv")[-6:] == ["--t", "0.4", "--distance", "matrix",
                                            "--distance-matrix", "m.csv"]
    inst = generate("liang-yuan-thm4", 6, seed=0, extra=5)
    assert inst.n == 11 and inst.model_params == {"k": 3}
    assert inst.parameters["c"] == "3/11"  # c = n / (2n')
    assert generate("xiao-lemma3", 3).model_params == {"l": 3}


@pytest.mark.parametrize(("name", "size", "params", "message"), [
    ("liang-yuan-thm3", 5, {}, "size=5 is out of range: the number of vertices n must be "
     "even"),
    ("liang-yuan-thm3", 8, {"cross": 7}, "cross=7 is out of range"),
    ("liang-yuan-thm3", 8, {"density": 0.3}, "density=0.3: liang-yuan-thm3 uses it only "
     "with plant=False"),
    ("liang-yuan-thm4", 8, {"extra": 3}, "at least n/2 = 4 added rows"),
    ("liang-yuan-thm5", 8, {"extra": 4}, "2 <= extra < n/2 = 4"),
    ("liang-yuan-thm6", 3, {"t": 0.34}, "Theorem 6 covers 0 <= t < 1/3"),
    ("liang-yuan-thm6", 3, {"edges": 2}, "between 3 (the planted matching) and n^3 = 27"),
    ("liang-yuan-thm7", 3, {"t": 0.36}, "n' = 3n/(1 - 2t) = 225/7 rows must be whole"),
    ("liang-yuan-thm7", 3, {"t": "1/3"}, "no finite decimal expansion"),
    ("xiao-lemma3", 3, {"values": 10}, "between l = 3 and 3n = 9"),
    ("meyerson-williams-thm3.1", 10, {}, "a multiple of k"),
    ("meyerson-williams-thm3.1", 6, {"k": 3, "t": 0.2}, "t=0.2: not a parameter of "
     "meyerson-williams-thm3.1 (it takes k, edges, model)"),
    ("bredereck-prop1", 10, {}, "a multiple of 4"),
    ("bredereck-thm1", 8, {"t_out": 1}, "t_out >= 2"),
    ("liang-yuan-thm33", 8, {}, "unknown family 'liang-yuan-thm33': did you mean "
     "'liang-yuan-thm3'?"),
])
def test_bad_parameters_are_refused(name: str, size: int, params: dict[str, Any],
                                    message: str) -> None:
    with pytest.raises(InvalidInput) as err:
        generate(name, size, **params)
    assert message in str(err.value)


def test_unknown_keyword_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'tt'"):
        generate("liang-yuan-thm6", 3, tt=0.2)  # type: ignore[arg-type]


def test_write_files_and_bytes(tmp_path: Path) -> None:
    inst = generate("liang-yuan-thm7", 1, seed=2)
    out = tmp_path / "sub" / "t7.csv"
    written = write(inst, out)
    assert [p.name for p in written] == ["t7.csv", "t7.csv.optimum.json",
                                         "t7.csv.distance.csv"]
    meta = json.loads(written[1].read_text(encoding="utf-8"))
    assert meta["family"] == "liang-yuan-thm7" and meta["seed"] == 2
    assert meta["optimum"]["stars"] == 0 and meta["model"]["t"] == 0.35
    assert meta["distance_matrix_file"] == str(written[2])
    assert written[2].read_text() == "0,1,1,0.5\n1,0,1,0.5\n1,1,0,0.5\n0.5,0.5,0.5,0\n"
    # the release through the public API reaches the recorded optimum
    release = starmin.anonymize(str(out), qi=meta["qi"], sensitive=meta["sensitive"],
                                method="brute-force", **{**meta["model"],
                                                         "distance_matrix": written[2]})
    assert release.report["stars"] == meta["optimum"]["stars"]
    first = [p.read_bytes() for p in written]
    write(generate("liang-yuan-thm7", 1, seed=2), out)
    assert [p.read_bytes() for p in written] == first


def test_write_is_all_or_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inst = generate("liang-yuan-thm7", 1)
    calls = {"n": 0}
    real = os.replace

    def failing(src: Any, dst: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:  # the table is in place, the JSON fails
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError):
        write(inst, tmp_path / "new" / "x.csv")
    assert not (tmp_path / "new").exists()


def test_write_refuses_parquet(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="written as CSV"):
        write(generate("liang-yuan-thm3", 4), tmp_path / "x.parquet")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("k", "n", "t"), [(2, 4, "1/2"), (3, 6, "1/2"), (3, 9, "7/10"),
                                           (4, 11, "7/10"), (5, 17, "71/100"),
                                           (8, 12, "4/10")])
def test_transfer_threshold_is_the_smallest_decimal_in_range(k: int, n: int, t: str) -> None:
    # Liang & Yuan Lemma 1: a class of r rows is at EMD 1 - r/n; t-close iff r >= k needs
    # 1 - k/n <= t < 1 - (k-1)/n
    value = threshold(k, n)
    assert value == Fraction(t)
    assert Fraction(n - k, n) <= value < Fraction(n - k + 1, n)


@pytest.mark.parametrize("model", ["l-diversity", "t-closeness"])
def test_transfer_keeps_the_optimum_and_the_witness(model: str) -> None:
    base = generate("bredereck-thm1", 12, seed=2)
    inst = generate("bredereck-thm1", 12, seed=2, model=model)
    assert inst.rows == tuple((*r, i + 1) for i, r in enumerate(base.rows))
    assert inst.sensitive == ("SA",) and inst.qi == base.qi
    assert inst.optimum.stars == base.optimum.stars and inst.witness == base.witness
    assert inst.model_params == ({"l": 4} if model == "l-diversity" else {"t": 0.7})
    passed, stars = release_stars(inst)
    assert passed and stars == inst.optimum.stars


def test_transfer_is_refused_where_it_does_not_apply() -> None:
    with pytest.raises(InvalidInput, match="model='l-diversity': not a parameter of "
                       "liang-yuan-thm6"):
        generate("liang-yuan-thm6", 3, model="l-diversity")
    with pytest.raises(InvalidInput, match="model='x' is out of range"):
        generate("liang-yuan-thm3", 6, model="x")
