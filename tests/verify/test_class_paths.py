"""The verifier's two grouping paths (packed integer key; polars group_by for tables whose
packed key would overflow) find the same classes as a plain polars group_by."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from starmin.models import KAnonymity, LDiversity
from starmin.verify import verify
from starmin.verify._classes import Classes, _group_polars, _packed_key, encode, group


def _classes_as_set(df: pl.DataFrame, qi: tuple[str, ...], cls: Classes) -> dict[tuple, tuple]:
    out = {}
    for i in range(len(cls.sizes)):
        key = tuple(v for _, v in cls.key(i))
        codes = cls.sensitive[0].flat[cls.offsets[i]:cls.offsets[i + 1]]
        out[key] = (int(cls.sizes[i]), tuple(sorted(codes.tolist())))
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 60))
def test_packed_and_polars_paths_agree(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    df = pl.DataFrame({
        "a": rng.integers(0, 3, n),
        "b": rng.choice(["x", "y", "*"], n).tolist(),
        "c": [None if v == 0 else float(v) for v in rng.integers(0, 3, n)],
        "s": rng.choice(["p", "q", "r"], n).tolist(),
    })
    qi = ("a", "b", "c")
    fast = _classes_as_set(df, qi, group(df, qi, ("s",)))
    slow = _classes_as_set(df, qi, _group_polars(df, qi, ("s",), [encode(df["s"])]))
    assert fast == slow
    want = df.group_by(list(qi)).len()
    assert sorted(v[0] for v in fast.values()) == sorted(want["len"].to_list())


def test_overflowing_key_falls_back_and_still_verifies() -> None:
    n = 3000
    rng = np.random.default_rng(1)
    cols = {f"q{j}": rng.permutation(n).astype(str).tolist() for j in range(6)}
    df = pl.DataFrame({**cols, "s": ["u", "v"] * (n // 2)})
    qi = tuple(cols)
    assert _packed_key(df, qi) is None  # 3000**6 > 2**62
    df2 = pl.concat([df, df])  # every class has two rows, one "u" and one "v" ... or equal
    report = verify(df2, qi, "s", [KAnonymity(2), LDiversity(2)])
    assert report.classes == n
    assert report.as_dict()["models"][0]["passed"] is True
    assert report.as_dict()["models"][1]["passed"] is False  # each class holds one value twice
