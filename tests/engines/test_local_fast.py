"""The local engine's O(n) aggregation and plan application (issue 11, part 2) against
straightforward reference implementations: the same row types, the same released bytes,
on any number of threads."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from starmin.data import Schema
from starmin.engines import grouping, local
from starmin.engines.encode import combine_codes, encode_column
from starmin.engines.local import LocalEngine, rank_in_class, uniforms_at
from starmin.io.tables import read_table
from starmin.transform.plan import STAR, Guarantee, ReleasePlan

G = Guarantee("heuristic", "test plan")
SRC = Path(__file__).resolve().parents[2] / "src"


# -- reference implementations (the engine before issue 11: per-row codes, a full sort) ------
def reference_row_types(df: pl.DataFrame, schema: Schema):
    """Codes per row with encode_column, row types by np.unique over packed codes."""
    qc, dom = zip(*(encode_column(df[c]) for c in schema.qi), strict=True)
    type_of_row = combine_codes(list(qc), [len(d) for d in dom])
    if schema.sensitive:
        sc, sdom = zip(*(encode_column(df[c]) for c in schema.sensitive), strict=True)
        key_of_row = combine_codes(list(sc), [len(d) for d in sdom])
    else:
        sdom, key_of_row = (), np.zeros(df.height, dtype=np.int64)
    return type_of_row, key_of_row, tuple(dom), tuple(sdom)


def reference_assign(type_of_row, key_of_row, s, plan, seed):
    """Every row sorted by (class, seeded uniform), handed out by the entries' counts."""
    n = len(type_of_row)
    cid = type_of_row * s + key_of_row
    order = np.lexsort((np.random.default_rng(seed).random(n), cid))
    sorted_cid = cid[order]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - np.searchsorted(sorted_cid, sorted_cid, side="left")
    ecid = plan.type_idx * s + plan.key_idx
    eorder = np.lexsort((plan.out_idx, ecid))
    ecid, eout, ecount = ecid[eorder], plan.out_idx[eorder], plan.count[eorder]
    cum = np.cumsum(ecount)
    pos = (cum - ecount)[np.searchsorted(ecid, cid, side="left")] + rank
    return eout[np.searchsorted(cum, pos, side="right")]


def reference_release(df, schema, rt, type_of_row, key_of_row, plan, seed):
    out = reference_assign(type_of_row, key_of_row, rt.s, plan, seed)
    cols = []
    for j, c in enumerate(rt.qi):
        lookup = [None if v is None else local._text(v) for v in rt.domains[j]] + ["*"]
        idx = plan.outputs[out, j].astype(np.int64)
        idx[idx == STAR] = len(lookup) - 1
        cols.append(pl.Series(c, lookup, dtype=pl.String).gather(idx))
    return df.with_columns(cols).drop(list(schema.identifiers))


# -- random tables and plans ----------------------------------------------------------------
def random_table(seed: int, n: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 20 + rng.integers(2, 8), n).astype(float)
    age[rng.random(n) < 0.1] = np.nan
    zips = np.array(["02138", "1", "b", "*x"], dtype=object)[rng.integers(0, 4, n)]
    zips[rng.random(n) < 0.1] = None
    return pl.DataFrame({
        "id": np.arange(n),
        "age": pl.Series(age).fill_nan(None) if seed % 3 == 0 else pl.Series(age),
        "zip": pl.Series(zips.tolist(), dtype=pl.String),
        "sex": pl.Series(rng.choice(["F", "M"], n)).cast(pl.Categorical),
        "dis": pl.Series(np.array(["flu", "hiv", None], dtype=object)[
            rng.integers(0, 3, n)].tolist(), dtype=pl.String),
        "note": rng.integers(0, 1000, n),
    })


def random_plan(rt, rng: np.random.Generator) -> ReleasePlan:
    """Each row type's classes split at random over: the row type itself, a copy with some
    cells starred, and the all-star vector."""
    t = rt.t_in
    partial = rt.codes.copy()
    partial[rng.random(partial.shape) < 0.5] = STAR
    outputs = np.vstack([rt.codes, partial, np.full((1, rt.m), STAR, dtype=np.int32)])
    out_idx, type_idx, key_idx, count = [], [], [], []
    for i, k in zip(*np.nonzero(rt.counts), strict=True):
        c = int(rt.counts[i, k])
        cuts = np.sort(rng.integers(0, c + 1, 2)) if rng.random() < 0.7 else np.array([c, c])
        for o, share in ((i, cuts[0]), (t + i, cuts[1] - cuts[0]), (2 * t, c - cuts[1])):
            if share:
                out_idx.append(o)
                type_idx.append(i)
                key_idx.append(k)
                count.append(share)
    return ReleasePlan(outputs, np.array(out_idx), np.array(type_idx), np.array(key_idx),
                       np.array(count), "random", G)


SCHEMA = Schema.of("age,zip,sex", "dis", identifiers="id")


@pytest.mark.parametrize("seed", range(12))
def test_row_types_and_release_equal_the_reference(seed: int) -> None:
    df = random_table(seed, int(np.random.default_rng(seed).integers(1, 400)))
    enc = LocalEngine().to_row_types(df, SCHEMA)
    rt = enc.row_types
    type_of_row, key_of_row, dom, sdom = reference_row_types(df, SCHEMA)
    assert rt.domains == dom and rt.sensitive_domains == sdom
    assert np.array_equal(enc.type_of_row, type_of_row)
    assert np.array_equal(enc.key_of_row, key_of_row)
    assert int(rt.counts.sum()) == df.height
    plan = random_plan(rt, np.random.default_rng(seed))
    for s in (0, seed + 1):
        got = LocalEngine().apply_plan(enc, plan, seed=s)
        want = reference_release(df, SCHEMA, rt, type_of_row, key_of_row, plan, s)
        assert got.equals(want)


def test_missing_values_are_one_value_of_their_own() -> None:
    df = pl.DataFrame({"a": [1.0, float("nan"), None, 1.0, float("nan")],
                       "b": ["x", None, None, "x", None], "s": ["p", None, "q", None, "p"]})
    enc = LocalEngine().to_row_types(df, Schema.of("a,b", "s"))
    rt = enc.row_types
    assert rt.domains == ((1.0, None), ("x", None)) and rt.sensitive_domains[0][-1] is None
    assert rt.t_in == 2  # NaN and null are the same missing value
    assert enc.type_of_row.tolist() == [0, 1, 1, 0, 1]
    ti, ki = np.nonzero(rt.counts)
    plan = ReleasePlan(rt.codes, ti, ti, ki, rt.counts[ti, ki], "identity", G)
    out = LocalEngine().apply_plan(enc, plan)
    assert out["a"].to_list() == ["1.0", None, None, "1.0", None]
    assert out["s"].to_list() == df["s"].to_list()


def test_grouping_ways_agree() -> None:
    df = random_table(4, 3000)
    cols = ["age", "zip", "sex", "dis"]
    frame = df.lazy().select(grouping.missing_as_null(c, df.schema[c]) for c in cols)

    def partition(groups: pl.DataFrame, sizes, of_row) -> list[tuple]:
        combos = groups.rows()
        assert np.array_equal(np.bincount(of_row, minlength=len(sizes)), sizes)
        return [combos[i] for i in of_row]

    distinct = frame.select(pl.col(c).unique().implode() for c in cols).collect()
    packed = grouping._by_packed_key(frame, cols, [distinct[c][0] for c in cols])
    hashed = grouping._by_row_hash(frame, cols)
    assert partition(*packed) == partition(*hashed)
    groups, _, of_row = hashed
    ids = pl.Series(np.arange(groups.height, dtype=np.int32))
    joined = grouping.match_by_join(frame, groups.with_columns(
        pl.col("sex").cast(pl.Categorical)), cols, ids).collect().to_series().to_numpy()
    assert np.array_equal(joined, of_row)
    want = [tuple(r) for r in df.select(
        pl.col("age").fill_nan(None), "zip", pl.col("sex").cast(pl.String), "dis").rows()]
    assert partition(*packed) == want


def test_uniforms_in_blocks_equal_one_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "UNIFORM_CHUNK", 7)
    rows = np.array([0, 3, 6, 7, 8, 20, 49])
    assert np.array_equal(uniforms_at(5, 50, rows), np.random.default_rng(5).random(50)[rows])
    assert len(uniforms_at(5, 50, rows[:0])) == 0


def test_rank_in_class_breaks_ties_by_position() -> None:
    rng = np.random.default_rng(1)
    cls = rng.integers(0, 5, 2000)
    key = rng.integers(0, 10, 2000).astype(float)  # many ties
    order = np.lexsort((np.arange(2000), key, cls))
    want = np.empty(2000, dtype=np.int64)
    sorted_cls = cls[order]
    want[order] = np.arange(2000) - np.searchsorted(sorted_cls, sorted_cls, side="left")
    assert np.array_equal(rank_in_class(cls, key), want)


def test_csv_qi_columns_read_as_codes_keep_their_values(tmp_path: Path) -> None:
    rows = ["zip;age;score;big;s"] + [f"0{2100 + i % 7};{20 + i % 40};{i % 5}.5;{i};x"
                                      for i in range(3000)]
    rows += ["02138;?;3.10;;y", "02139;41;2.5;-7;"]
    p = tmp_path / "t.csv"
    p.write_text("\n".join(rows) + "\n")
    plain = read_table(p)
    coded = read_table(p, schema=Schema.of("zip,age,score,big", "s"))
    assert coded["big"].dtype == pl.Int64 and coded["big"].to_list() == plain["big"].to_list()
    for c in ("zip", "age", "score"):  # text stays text, with the values as written
        assert coded[c].cast(pl.String).to_list() == plain[c].to_list()
    assert coded["s"].to_list() == plain["s"].to_list()
    num = tmp_path / "n.csv"
    num.write_text("a,b,s\n1,2.5,x\n-3,-0.25,y\n,1e3,z\n")
    coded = read_table(num, schema=Schema.of("a,b", "s"))
    assert coded["a"].to_list() == [1, -3, None] and coded["a"].dtype == pl.Int64
    assert coded["b"].dtype == pl.String or coded["b"].dtype == pl.Categorical  # "1e3"


def test_star_in_a_csv_qi_column_is_refused(tmp_path: Path) -> None:
    from starmin.errors import InvalidInput

    p = tmp_path / "t.csv"
    p.write_text("q,s\na,x\n*,y\n")
    df = read_table(p, schema=Schema.of("q", "s"))
    with pytest.raises(InvalidInput, match="suppression symbol"):
        LocalEngine().to_row_types(df, Schema.of("q", "s"))


RUN = """
import hashlib, sys
import numpy as np, polars as pl
sys.path.insert(0, sys.argv[1])
from test_local_fast import SCHEMA, random_plan, random_table
from starmin.engines.local import LocalEngine
df = pl.concat([random_table(7, 20_000)] * 10)
enc = LocalEngine().to_row_types(df, SCHEMA)
out = LocalEngine().apply_plan(enc, random_plan(enc.row_types, np.random.default_rng(0)), 3)
print(pl.thread_pool_size(), hashlib.sha256(out.write_csv().encode()).hexdigest())
"""


def test_release_bytes_do_not_depend_on_threads() -> None:
    digests = {}
    for threads in ("1", "2", "4"):
        env = {**os.environ, "POLARS_MAX_THREADS": threads, "PYTHONPATH": str(SRC)}
        res = subprocess.run([sys.executable, "-c", RUN, str(Path(__file__).parent)],
                             env=env, capture_output=True, text=True, check=True)
        pool, digest = res.stdout.split()
        assert pool == threads
        digests[threads] = digest
    df = pl.concat([random_table(7, 20_000)] * 10)
    enc = LocalEngine().to_row_types(df, SCHEMA)
    rt = enc.row_types
    t, k, _, _ = reference_row_types(df, SCHEMA)
    want = reference_release(df, SCHEMA, rt, t, k, random_plan(rt, np.random.default_rng(0)), 3)
    assert set(digests.values()) == {hashlib.sha256(want.write_csv().encode()).hexdigest()}
