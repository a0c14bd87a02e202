"""The verifier's three grouping paths (distinct QI + sensitive combinations counted, then
gathered per class; sensitive values hashed inside the group-by and decoded exactly; the
values themselves, used when hashes collide) find the same classes and histograms as a naive
grouping, and the probe picks the path it should."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starmin.models import KAnonymity, LDiversity
from starmin.verifier import _classes, verify
from starmin.verifier._classes import Classes, by_hash, encode, group


def _classes_as_dict(cls: Classes) -> dict[tuple, tuple]:
    out = {}
    for i in range(len(cls.sizes)):
        key = tuple(v for _, v in cls.key(i))
        lo, hi = cls.offsets[i], cls.offsets[i + 1]
        codes = cls.sensitive[0].codes[lo:hi]
        weights = [1] * len(codes) if cls.weights is None else cls.weights[lo:hi].tolist()
        values = cls.sensitive[0].values
        rows = [str(values[c]) for c, w in zip(codes, weights, strict=True) for _ in range(w)]
        assert len(rows) == cls.sizes[i]
        out[key] = (int(cls.sizes[i]), tuple(sorted(rows)))
    return out


def _naive(df: pl.DataFrame, qi: tuple[str, ...]) -> dict[tuple, tuple]:
    out: dict[tuple, list] = {}
    for row in df.iter_rows(named=True):
        out.setdefault(tuple(row[c] for c in qi), []).append(str(row["s"]))
    return {k: (len(v), tuple(sorted(v))) for k, v in out.items()}


def _table(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    return pl.DataFrame({
        "a": rng.integers(0, 3, n),
        "b": rng.choice(["x", "y", "*"], n).tolist(),
        "c": [None if v == 0 else float(v) for v in rng.integers(0, 3, n)],
        "s": [None if v == "-" else v for v in rng.choice(["p", "q", "r", "-"], n).tolist()],
    })


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 60))
def test_every_path_agrees_with_a_naive_grouping(seed: int, n: int) -> None:
    df = _table(seed, n)
    qi = ("a", "b", "c")
    want = _naive(df, qi)
    for path in ("pairs", "rows", "values"):
        cls = group(df, qi, ("s",), path)
        assert cls.path == path
        assert _classes_as_dict(cls) == want, path
        assert np.array_equal(cls.overall(0), group(df, qi, ("s",), "values").overall(0))


def test_the_probe_picks_pairs_for_few_combinations_and_rows_for_many() -> None:
    rng = np.random.default_rng(3)
    n = 40_000
    few = pl.DataFrame({"q": rng.integers(0, 20, n), "s": rng.integers(0, 5, n)})
    many = pl.DataFrame({"q": np.arange(n), "s": rng.integers(0, 5, n)})
    assert group(few, ("q",), ("s",)).path == "pairs"
    assert group(many, ("q",), ("s",)).path == "rows"
    assert group(many, ("q",), ()).path == "pairs"  # k-anonymity only: one group_by


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40))
def test_two_sensitive_columns_on_every_path(seed: int, n: int) -> None:
    df = _table(seed, n).with_columns(pl.col("a").alias("t"))
    qi = ("b", "c")
    got = [group(df, qi, ("s", "t"), path) for path in ("pairs", "rows", "values")]
    for a in (0, 1):
        hists = []
        for cls in got:
            by_key = {tuple(v for _, v in cls.key(i)): i for i in range(cls.g)}
            dense = {i: h for idx, hist in cls.chunks(a) for i, h in zip(idx, hist, strict=True)}
            one, code = cls.singletons(a)
            for i, c in zip(one, code, strict=True):
                dense[int(i)] = np.eye(cls.sensitive[a].s, dtype=np.int64)[c]
            hists.append({k: tuple(dense[i].tolist()) for k, i in by_key.items()})
        assert hists[0] == hists[1] == hists[2]


def test_the_hash_path_is_taken_on_ordinary_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object) -> Classes:
        raise AssertionError("fell back to the value path")
    monkeypatch.setattr(_classes, "group_by_values", fail)
    for s in (["u", None, "v"], [1.5, float("nan"), None], [3, 1, None], [True, False, None]):
        df = pl.DataFrame({"q": ["a", "b", "a"], "s": s}, strict=False)
        assert group(df, ("q",), ("s",), "rows").path == "rows"
    df = pl.DataFrame({"q": ["a", "b", "a"], "s": ["u", "v", "u"]}).with_columns(
        pl.col("s").cast(pl.Categorical))
    assert group(df, ("q",), ("s",), "rows").path == "rows"


def test_a_hash_collision_falls_back_to_the_values(monkeypatch: pytest.MonkeyPatch) -> None:
    df = _table(7, 200)
    qi = ("a", "b", "c")
    monkeypatch.setattr(_classes, "by_hash", lambda col, flat: None)
    cls = group(df, qi, ("s",), "rows")
    assert cls.path == "values"
    assert _classes_as_dict(cls) == _naive(df, qi)
    report = verify(df, qi, "s", [KAnonymity(2), LDiversity(2)])
    assert report.n == 200


def test_by_hash_refuses_a_hash_it_cannot_place() -> None:
    col = pl.Series("s", ["u", "v", "w"])
    flat = col.hash(seed=_classes.SEED).to_numpy()
    assert by_hash(col, flat) is not None
    bad = flat.copy()
    bad[1] ^= np.uint64(1)
    assert by_hash(col, bad) is None


@pytest.mark.parametrize("k", [1, 2, 15, 300, 5000])
def test_hash_codes_equal_exact_codes_for_many_values(k: int) -> None:
    rng = np.random.default_rng(k)
    col = pl.Series("s", rng.integers(0, k, 20_000).astype(str).tolist())
    got = by_hash(col, col.hash(seed=_classes.SEED).to_numpy())
    assert got is not None
    values, codes = got
    want_values, want_codes = encode(col)
    assert values == want_values
    assert np.array_equal(codes, want_codes)


def test_encode_orders_numbers_by_value_and_puts_missing_last() -> None:
    values, codes = encode(pl.Series("s", [10, 2, None, 2]))
    assert values == (2, 10, None)
    assert codes.tolist() == [1, 0, 2, 0]
    values, codes = encode(pl.Series("s", ["b", None, "a"]))
    assert values == ("a", "b", None)
    assert codes.tolist() == [1, 2, 0]


def test_many_wide_classes_still_verify() -> None:
    n = 3000
    rng = np.random.default_rng(1)
    cols = {f"q{j}": rng.permutation(n).astype(str).tolist() for j in range(6)}
    df = pl.DataFrame({**cols, "s": ["u", "v"] * (n // 2)})
    qi = tuple(cols)
    df2 = pl.concat([df, df])  # every class has two rows holding one value twice
    report = verify(df2, qi, "s", [KAnonymity(2), LDiversity(2)])
    assert report.classes == n
    assert report.as_dict()["models"][0]["passed"] is True
    assert report.as_dict()["models"][1]["passed"] is False


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 3000), min_size=1, max_size=40))
def test_size_summary_matches_a_sort_based_reference(sizes: list[int]) -> None:
    from starmin.verifier.verifier import _BUCKETS, _summary
    arr = np.asarray(sizes, dtype=np.int64)
    got = _summary(arr)
    edges = np.asarray(_BUCKETS)
    want = np.bincount(np.searchsorted(edges, arr, side="right") - 1, minlength=len(edges))
    assert (got.min, got.median, got.max) == (min(sizes), float(np.median(arr)), max(sizes))
    assert [c for _, c in got.buckets] == want.tolist()


@pytest.mark.parametrize("path", ["pairs", "rows", "values", None])
def test_column_names_that_clash_with_helper_names(path: str | None) -> None:
    df = pl.DataFrame({"len": [1, 1, 2, 2], "__size": ["a", "a", "b", "b"],
                       "__count": [1, 2, 1, 2], "__h0": ["x", "y", "x", "y"],
                       "__v0": ["p", "q", "p", "q"]})
    for qi, s in ((("len", "__size"), ("__count",)), (("len", "__size"), ("__h0", "__v0"))):
        cls = group(df, qi, s, path)  # type: ignore[arg-type]
        assert cls.g == 2 and sorted(cls.sizes.tolist()) == [2, 2]
        assert all(col.s == 2 for col in cls.sensitive)
    report = verify(df, ["len", "__size"], "__count", [KAnonymity(2), LDiversity(2)])
    assert report.passed


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["pairs", "rows"]))
def test_compact_histograms_agree_with_full_ones(seed: int, path: str) -> None:
    from starmin.models import (
        DistinctLDiversity,
        EntropyLDiversity,
        OrderedDistance,
        PSensitiveKAnonymity,
        RecursiveCLDiversity,
        TCloseness,
    )
    from starmin.verifier import verifier

    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 400))
    df = pl.DataFrame({"q": rng.integers(0, n // 3, n),  # many classes, singletons among them
                       "r": rng.choice(["a", "b"], n).tolist(),
                       "s": rng.integers(0, 150, n)})
    support_only = [LDiversity(2), DistinctLDiversity(2), EntropyLDiversity(2),
                    RecursiveCLDiversity(3, 2), PSensitiveKAnonymity(2, 2), TCloseness(0.6)]
    models = [*support_only, TCloseness(0.9, OrderedDistance())]  # the last: full histograms
    assert all(getattr(m, "support_only", False) for m in support_only)
    assert not getattr(models[-1], "support_only", False)

    def run() -> list[tuple[object, ...]]:
        cls = group(df, ("q", "r"), ("s",), path)  # type: ignore[arg-type]
        out = []
        for ms in (support_only, models[-1:]):
            for c in verifier._check_column(cls, 0, "s", ms):
                out.append((c.name, c.passed, c.violating_classes, c.violating_rows,
                            round(c.worst or 0.0, 12), [e.as_dict() for e in c.examples]))
        return out

    compact = run()
    old = verifier.COMPACT_MIN_VALUES
    verifier.COMPACT_MIN_VALUES = 10**9
    try:
        full = run()
    finally:
        verifier.COMPACT_MIN_VALUES = old
    assert compact == full


def test_many_sensitive_values_use_compact_histograms() -> None:
    rng = np.random.default_rng(5)
    n = 20_000
    df = pl.DataFrame({"q": rng.integers(0, n // 5, n), "s": rng.integers(0, 20_000, n)})
    cls = group(df, ("q",), ("s",))
    chunks = list(cls.compact_chunks(0))
    assert sum(len(idx) for idx, _, _, _ in chunks) == cls.g
    assert max(h.size for _, h, _, _ in chunks) <= _classes.COMPACT_CELLS
    for _, hist, overall, values in chunks:
        assert hist[:, -1].sum() == 0 and values[-1] == _classes.OTHER
        assert overall.sum() == n
    report = verify(df, ["q"], "s", [LDiversity(2)])
    assert report.check("2-diversity", "s").violating_classes > 0


def test_one_row_classes_judged_in_batches_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    from starmin.models import OrderedDistance, TCloseness
    from starmin.verifier import verifier

    rng = np.random.default_rng(8)
    n = 300
    df = pl.DataFrame({"q": rng.integers(0, 200, n), "s": rng.integers(0, 90, n)})
    models = [TCloseness(0.3, OrderedDistance()), TCloseness(0.2)]
    want = verify(df, "q", "s", models).as_dict()
    monkeypatch.setattr(verifier, "CHUNK_CELLS", 64)  # one value's one-hot row per batch
    monkeypatch.setattr(verifier, "COMPACT_MIN_VALUES", 10**9)
    assert verify(df, "q", "s", models).as_dict() == want


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 200), need=st.integers(1, 7))
def test_first_by_key_is_the_head_of_the_full_key_order(seed: int, n: int, need: int) -> None:
    # few values per column: many classes share a prefix of their key
    cls = group(_table(seed, n), ("a", "b", "c"), ("s",))
    rng = np.random.default_rng(seed)
    idx = np.flatnonzero(rng.random(cls.g) < 0.7)
    keys = cls.tie_keys(idx)
    want = idx[np.lexsort(keys.T[::-1])][:need]
    assert cls.first_by_key(idx, need).tolist() == want.tolist()


def _categorical(df: pl.DataFrame) -> pl.DataFrame:
    """``_table`` with its QI columns as the local engine releases them: text categoricals
    (``a`` as an enum whose 0 is missing, so a missing value must not take code 0, the code
    of ``"2"``), missing values kept."""
    return df.with_columns(
        pl.when(pl.col("a") > 0).then(pl.col("a").cast(pl.String)).cast(pl.Enum(["2", "1"])),
        pl.col("b").cast(pl.Categorical),
        pl.col("c").cast(pl.String).cast(pl.Categorical),
        pl.col("c").cast(pl.String).alias("d"))  # a plain text QI column beside them


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 60))
def test_categorical_columns_packed_into_one_key_agree_with_a_naive_grouping(
        seed: int, n: int) -> None:
    """Categorical QI columns are grouped by one key of their physical codes; missing values
    (in ``c``) must stay a value of their own, apart from every code."""
    df = _categorical(_table(seed, n))
    for qi in (("a", "b", "c"), ("a", "b", "c", "d"), ("b", "d")):
        want = _naive(df, qi)
        for path in ("pairs", "rows", "values"):
            assert _classes_as_dict(group(df, qi, ("s",), path)) == want, (qi, path)
        assert sorted(group(df, qi, (), "pairs").sizes) == sorted(v[0] for v in want.values())


def test_the_packed_key_is_used_for_categoricals_and_not_for_text() -> None:
    df = _categorical(_table(1, 50))
    _, packed = _classes._qi_keys(df, ("a", "b", "c", "d"))
    assert packed == ["a", "b", "c"]
    assert _classes._qi_keys(df, ("b", "d"))[1] == []  # one categorical: nothing to pack
    text = _table(1, 50).with_columns(pl.col("c").cast(pl.String))
    assert _classes._qi_keys(text, ("b", "c"))[1] == []


def test_the_probe_sees_repetition_beyond_the_first_rows() -> None:
    """20,000 distinct rows repeated 10 times: the first 65,536 rows hold each combination
    about 3 times, but a probe of the first 8,192 would see only distinct ones; rows spread
    over the table show the repetition, and the pairs path is taken."""
    rng = np.random.default_rng(5)
    base = pl.DataFrame({"q": np.arange(20_000), "s": rng.integers(0, 5, 20_000)})
    assert group(base, ("q",), ("s",)).path == "rows"
    assert group(pl.concat([base] * 10), ("q",), ("s",)).path == "pairs"
