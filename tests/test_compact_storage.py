"""Compact rank storage: the rank matrix in the smallest integer type that holds m.

Every result must be identical whether the same data are stored int64 (the storage of old
versions, forced with the private ``_force_rank_dtype``) or compact (int8 for m <= 127).
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankclust import Rankings
from rankclust.rankings import _force_rank_dtype, rank_dtype

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _random_ranks(seed: int, n: int, m: int, *, ties: bool, missing: bool) -> np.ndarray:
    """Raw 0-based positions (-1 absent) with optional ties and absent items."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, m), dtype=np.int64)
    for i in range(n):
        pos = rng.permutation(m)
        if ties:
            pos = pos // rng.integers(1, 3)
        if missing:
            keep = rng.integers(1 if ties else 2, m + 1)
            order = rng.permutation(m)
            pos[order[keep:]] = -1
        out[i] = pos
    return out


def _same(a, b, path="result"):
    """Exact equality of nested results (arrays, Rankings, numbers, tuples, dicts)."""
    if isinstance(a, Rankings):
        assert isinstance(b, Rankings), path
        assert a.kind == b.kind and a.items == b.items, path
        np.testing.assert_array_equal(a.ranks, b.ranks, err_msg=path)
        np.testing.assert_array_equal(a.weights, b.weights, err_msg=path)
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{k}]")
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=path)


def _both(fn, ranks: np.ndarray, *, kind: str = "subset", weights=None, to_ranks=False):
    """``fn`` on the data stored int64 and stored compact; checks the storage types."""
    out = []
    for forced in (np.int64, None):
        with _force_rank_dtype(forced):
            R = Rankings(ranks, kind=kind, weights=weights)
            expected = np.int64 if forced else rank_dtype(R.n_items)
            assert R.ranks.dtype == expected
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out.append(fn(R.to_ranks() if to_ranks else R))
    return out


# --------------------------------------------------------------------------------------------
# the type
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("m", "dtype"),
    [(1, np.int8), (127, np.int8), (128, np.int16), (32767, np.int16), (32768, np.int32)],
)
def test_rank_dtype_boundaries(m, dtype):
    assert rank_dtype(m) == np.dtype(dtype)


@pytest.mark.parametrize("m", [126, 127, 128])
def test_boundary_round_trips(m):
    """At m = 127 / 128 the largest position, the 1-based ranks and the counts survive."""
    rng = np.random.default_rng(m)
    perms = np.array([rng.permutation(m) for _ in range(6)])
    with _force_rank_dtype(np.int64):
        R64 = Rankings.from_orderings(perms, n_items=m)
    R = Rankings.from_orderings(perms, n_items=m)
    assert R.ranks.dtype == rank_dtype(m)
    assert not R.ranks.flags.writeable
    np.testing.assert_array_equal(R.ranks, R64.ranks)
    assert int(R.ranks.max()) == m - 1
    assert int(R.to_ranks().max()) == m  # 127 still fits int8
    np.testing.assert_array_equal(R.to_ranks(), R64.to_ranks())
    assert Rankings.from_ranks(R.to_ranks()) == R
    np.testing.assert_array_equal(R.n_buckets, np.full(6, m))
    assert R.n_buckets.dtype == np.int64
    np.testing.assert_array_equal(R.pairwise_counts(), R64.pairwise_counts())
    assert R.to_orderings() == perms.tolist()
    u, inv = R.unique()
    u64, inv64 = R64.unique()
    np.testing.assert_array_equal(u.ranks, u64.ranks)
    np.testing.assert_array_equal(inv, inv64)
    # a top list whose absent items sit below every position: pairwise counts of kind="top"
    top = np.where(perms < m // 2, perms, -1)
    np.testing.assert_array_equal(
        Rankings(top, kind="top").pairwise_counts(),
        R64.with_kind("top")._replace(ranks=top).pairwise_counts(),
    )


def test_sparse_positions_renumbered_across_blocks(monkeypatch):
    """Validation and re-numbering in row blocks: errors name the global row."""
    import rankclust.rankings as rk

    monkeypatch.setattr(rk, "_BLOCK_ROWS", 3)
    ranks = np.array([[0, 1, 2]] * 7 + [[0, 500, 500]])
    R = Rankings(ranks)
    assert R.ranks.dtype == np.int8
    assert R.ranks[-1].tolist() == [0, 1, 1]
    with pytest.raises(ValueError, match="row 7"):
        Rankings(np.array([[0, 1, 2]] * 7 + [[0, -2, 1]]))
    with pytest.raises(ValueError, match="row 5"):
        Rankings.from_ranks(np.array([[1, 2, 3]] * 5 + [[1, -1, 2]]))


def test_unsigned_and_small_inputs():
    """uint8 1-based ranks with 0 for absent: no wrap-around at 0 - 1."""
    R = Rankings.from_ranks(np.array([[2, 1, 0], [1, 0, 2]], dtype=np.uint8))
    assert R.ranks.tolist() == [[1, 0, -1], [0, -1, 1]]
    R = Rankings(np.array([[0, 200, 200]], dtype=np.uint8))
    assert R.ranks.tolist() == [[0, 1, 1]]
    R = Rankings.from_ranks(np.array([[1.0, np.nan, 2.0]]))
    assert R.ranks.tolist() == [[0, -1, 1]] and R.ranks.dtype == np.int8


@SETTINGS
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 12),
    m=st.integers(2, 7),
    ties=st.booleans(),
    kind=st.sampled_from(["subset", "top"]),
)
def test_type_and_statistics_identical(seed, n, m, ties, kind):
    ranks = _random_ranks(seed, n, m, ties=ties, missing=True)
    w = np.random.default_rng(seed).random(n) + 0.5
    labels = np.random.default_rng(seed).integers(0, 2, n)

    def stats(R):
        return (
            R.ranks,
            R.to_ranks(),
            R.lengths,
            R.n_buckets,
            R.has_ties,
            R.present,
            R.pairwise_counts(),
            R.pairwise_counts(np.c_[w, 1 / w]),
            R.pairwise_counts(labels=labels, n_groups=2),
            R.unique(),
            R.to_orderings(buckets=True),
            R.expand(),
            R[::2],
            Rankings.concatenate([R, R]),
        )

    a, b = _both(stats, ranks, kind=kind, weights=np.round(w * 2))
    _same(a, b)


# --------------------------------------------------------------------------------------------
# distances and consensus
# --------------------------------------------------------------------------------------------
@SETTINGS
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 10),
    m=st.integers(2, 7),
    ties=st.booleans(),
    missing=st.booleans(),
)
def test_distances_identical(seed, n, m, ties, missing):
    from rankclust import distances

    ranks = _random_ranks(seed, n, m, ties=ties, missing=missing)

    def run(R):
        out = {}
        for metric in sorted(distances.DISTANCES):
            try:
                out[metric] = distances.pairwise_distances(R, metric=metric)
            except ValueError as exc:  # a metric that refuses ties / absent items
                out[metric] = str(exc)
        out["kendall_to_center"] = distances.kendall_distances(R, np.arange(m))
        out["kendall_counts"] = distances.kendall_counts(R, R[::-1])
        out["paired"] = distances.paired_distances(R, R[::-1], metric="kendall")
        return out

    a, b = _both(run, ranks)
    _same(a, b)


@SETTINGS
@given(
    seed=st.integers(0, 2**31),
    n=st.integers(1, 10),
    m=st.integers(2, 7),
    ties=st.booleans(),
    kind=st.sampled_from(["subset", "top"]),
)
def test_consensus_identical(seed, n, m, ties, kind):
    from rankclust import consensus

    ranks = _random_ranks(seed, n, m, ties=ties, missing=True)

    def run(R):
        C = R.pairwise_counts()
        return (
            consensus.borda(C),
            consensus.copeland(C),
            consensus.kemeny(C),
            consensus.kemeny_cost(C, np.arange(m, dtype=R.ranks.dtype)),
            consensus.generalized_borda_votes(R),
            consensus.generalized_borda(R),
        )

    a, b = _both(run, ranks, kind=kind)
    _same(a, b)


# --------------------------------------------------------------------------------------------
# models, mixtures, clustering, label ranking
# --------------------------------------------------------------------------------------------
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), m=st.integers(3, 6), kind=st.sampled_from(["subset", "top"]))
def test_models_identical(seed, m, kind):
    from rankclust.models import Mallows, PlackettLuce

    ranks = _random_ranks(seed, 30, m, ties=False, missing=True)

    def run(R):
        mal = Mallows().fit(R)
        pl = PlackettLuce().fit(R)
        return mal.center_, mal.theta_, mal.logpdf(R), pl.scores_, pl.logpdf(R)

    a, b = _both(run, ranks, kind=kind)
    _same(a, b)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), m=st.integers(3, 6))
def test_mixtures_identical(seed, m):
    from rankclust.cluster import MallowsMixture, PlackettLuceMixture

    ranks = _random_ranks(seed, 40, m, ties=False, missing=True)

    def run(R):
        out = []
        for cls in (MallowsMixture, PlackettLuceMixture):
            est = cls(n_components=2, n_init=2, random_state=seed).fit(R)
            out.append((est.labels_, est.weights_, est.predict_proba(R), est.centers_))
        return out

    a, b = _both(run, ranks)
    _same(a, b)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), m=st.integers(3, 8))
def test_chain_kmeans_identical(seed, m):
    from rankclust.cluster import ChainKMeans, KOMeans

    ranks = _random_ranks(seed, 40, m, ties=False, missing=True)

    def run(R):
        ck = ChainKMeans(n_clusters=3, n_init=2, random_state=seed).fit(R)
        ko = KOMeans(2, n_init=2, random_state=seed).fit(R)
        return ck.labels_, ck.objective_, ck.transform(R), ko.labels_, ko.centers_

    a, b = _both(run, ranks)
    _same(a, b)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), m=st.integers(3, 6), missing=st.booleans())
def test_label_rankers_identical(seed, m, missing):
    from rankclust.label_ranking import IBLR, LabelRankingTree
    from rankclust.supervised import RankTree

    ranks = _random_ranks(seed, 40, m, ties=False, missing=missing)
    X = np.random.default_rng(seed).normal(size=(40, 3)) + (ranks[:, :1] >= 0)

    def run(Y):
        out = []
        for est in (
            IBLR(n_neighbors=5),
            LabelRankingTree(random_state=seed),
            RankTree(n_clusters=2, random_state=seed),
        ):
            est.fit(X, Y)
            out.append(est.predict(X))
        return out

    a, b = _both(run, ranks)
    _same(a, b)


# --------------------------------------------------------------------------------------------
# persistence and Dask
# --------------------------------------------------------------------------------------------
def test_persistence_round_trip_and_old_files(tmp_path):
    from rankclust import persistence
    from rankclust.cluster import MallowsMixture

    ranks = _random_ranks(0, 40, 5, ties=False, missing=True)
    R = Rankings(ranks)
    est = MallowsMixture(n_components=2, n_init=2, random_state=0).fit(R)
    persistence.save(est, tmp_path / "new.rkc")
    back = persistence.load(tmp_path / "new.rkc")
    assert back.centers_.ranks.dtype == np.int8
    np.testing.assert_array_equal(back.predict(R), est.predict(R))
    # a file written with int64 storage (as every file before compact storage) still loads,
    # and its rankings come back compact
    with _force_rank_dtype(np.int64):
        old = MallowsMixture(n_components=2, n_init=2, random_state=0).fit(Rankings(ranks))
        assert old.centers_.ranks.dtype == np.int64
        persistence.save(old, tmp_path / "old.rkc")
    loaded = persistence.load(tmp_path / "old.rkc")
    assert loaded.centers_.ranks.dtype == np.int8
    _same(loaded.centers_, est.centers_)
    np.testing.assert_array_equal(loaded.predict(R), est.predict(R))


def test_readers_give_compact_storage():
    from rankclust.io import read_preflib

    text = "# NUMBER ALTERNATIVES: 3\n# NUMBER VOTERS: 5\n3: 2,1\n2: 3,{1,2}\n"
    R = read_preflib(io.StringIO(text))
    assert R.ranks.dtype == np.int8
    assert R.ranks.tolist() == [[1, 0, -1], [1, 1, 0]]


def test_dask_chunks_are_compact():
    pytest.importorskip("dask")
    import dask
    import dask.array as da

    from rankclust.dask import ChunkedRankings

    ranks = _random_ranks(1, 30, 6, ties=False, missing=True)
    R = Rankings(ranks)
    X = da.from_array(R.to_ranks(), chunks=7)
    assert X.dtype == np.int8
    CR = ChunkedRankings.from_dask_array(X)
    chunks = dask.compute(*CR.chunks, scheduler="sync")
    assert all(c.ranks.dtype == np.int8 for c in chunks)
    assert CR.to_rankings() == R
    CR2 = ChunkedRankings.from_rankings(R, chunk_size=8)
    assert all(c.ranks.dtype == np.int8 for c in dask.compute(*CR2.chunks, scheduler="sync"))
    # the sample sort of distinct rankings compares compact rows as records
    from rankclust._dask import distinct_blocks

    with dask.config.set(scheduler="sync"):
        blocks, offsets, total = distinct_blocks(CR2, n_blocks=3, samples_per_chunk=4)
        parts = dask.compute(*blocks)
    assert all(p.ranks.dtype == np.int8 for p in parts)
    got = Rankings.concatenate(list(parts))
    u = R.unique()[0]
    np.testing.assert_array_equal(got.ranks, u.ranks)
    np.testing.assert_array_equal(got.weights, u.weights)
    assert offsets[-1] == u.n_rankings and total == 30.0


@pytest.mark.parametrize("m", [127, 128])
def test_boundary_results_identical(m):
    """At the int8 / int16 boundary, with position differences and squares near their
    largest (reversed permutations), every result equals the int64 one."""
    from rankclust import consensus, distances
    from rankclust.cluster import ChainKMeans
    from rankclust.models import Mallows, PlackettLuce

    rng = np.random.default_rng(m)
    perms = np.array([rng.permutation(m) for _ in range(10)])
    ranks = np.vstack([perms, perms[:, ::-1], np.where(perms < m // 3, perms, -1)])

    def run(R):
        full = R[:20]
        out = {
            metric: distances.pairwise_distances(full, metric=metric)
            for metric in sorted(distances.DISTANCES)
        }
        out["paired"] = {
            metric: distances.paired_distances(full, full[::-1], metric=metric)
            for metric in sorted(distances.DISTANCES)
        }
        out["to_center"] = distances.kendall_distances(R, np.arange(m)[::-1])
        out["votes"] = consensus.generalized_borda_votes(R)
        out["top_counts"] = R.with_kind("top").pairwise_counts()
        out["mallows"] = Mallows().fit(full).theta_
        out["pl"] = PlackettLuce().fit(R).scores_
        out["chains"] = ChainKMeans(n_clusters=2, n_init=2, random_state=0).fit(R).labels_
        return out

    a, b = _both(run, ranks)
    _same(a, b)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), kind=st.sampled_from(["subset", "top"]))
def test_inference_identical(seed, kind):
    """Simulation from a fitted mixture and the goodness-of-fit tables (with a small
    parametric bootstrap) do not depend on the storage type."""
    from rankclust.cluster import MallowsMixture
    from rankclust.inference import goodness_of_fit
    from rankclust.inference.bootstrap import sample_like

    ranks = _random_ranks(seed, 40, 5, ties=False, missing=True)

    def run(R):
        est = MallowsMixture(n_components=2, n_init=2, random_state=0).fit(R)
        gof = goodness_of_fit(est, R, n_bootstrap=3, refit=False, random_state=0)
        tables = [(c.observed, c.expected) for c in [gof.overall, *gof.clusters]]
        return sample_like(est, R, random_state=0), tables, gof.p_values

    a, b = _both(run, ranks, kind=kind)
    _same(a, b)
