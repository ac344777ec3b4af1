"""Tests of rankclust._dask and of the Dask back-end of the estimators (DESIGN.md section 6).

The estimators' Dask runs must give the in-memory fit for the same seed: the same labels,
parameters equal up to the order of floating-point sums. A ``LocalCluster`` with two
in-process workers is started once for the module.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from sklearn.base import clone

pytest.importorskip("dask.distributed")

import itertools

import dask.array as da
import dask.bag as db
from dask.distributed import Client, LocalCluster

from rankclust import Rankings
from rankclust import _dask as D
from rankclust.cluster import ChainKMeans, make_planted_chains
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture, select_k
from rankclust.datasets import make_mallows_mixture, make_plackett_luce_mixture
from tests.conftest import random_rankings


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


def quiet_fit(est, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(*args, **kwargs)


def with_duplicates(rng, n, m, kind="top"):
    """Rankings with many repeated rows and integer weights (some zero)."""
    base = random_rankings(rng, n // 3, m, kind=kind, p_missing=0.3)
    R = Rankings.concatenate([base, base[: n // 3], base[::2]])
    return R.with_weights(rng.integers(0, 4, size=R.n_rankings).astype(float))


# --------------------------------------------------------------------------------------------
# machinery
# --------------------------------------------------------------------------------------------
def test_reduce_sum_is_a_tree_sum_of_nested_results():
    parts = [(np.full(3, i, dtype=float), {"a": float(i)}) for i in range(7)]
    arr, d = D.reduce_sum(parts)
    np.testing.assert_array_equal(arr, np.full(3, 21.0))
    assert d == {"a": 21.0}
    one = np.arange(3.0)
    assert D.reduce_sum([one]) is one  # one block: its own result, no arithmetic
    with pytest.raises(ValueError, match="nothing"):
        D.reduce_sum([])


@pytest.mark.parametrize("size", [None, 3])
def test_weighted_choice_on_one_block_is_randomstate_choice(size):
    ex = D.EagerExecutor()
    for seed in range(40):
        p = np.random.RandomState(seed + 100).random_sample(1 + seed % 17)
        p[seed % len(p)] = 0.0 if len(p) > 1 else p[0]
        a, b = np.random.RandomState(seed), np.random.RandomState(seed)
        got, total = D.weighted_choice(ex, [p], np.array([0, len(p)]), a, size)
        want = b.choice(len(p), size=size, p=p / p.sum())
        np.testing.assert_array_equal(got, want)
        assert total == p.sum()
        assert a.random_sample() == b.random_sample()  # the same numbers were consumed


def test_weighted_choice_on_several_blocks_draws_the_same_rows():
    ex = D.EagerExecutor()
    for seed in range(40):
        p = np.random.RandomState(seed).random_sample(50) ** 3
        cuts = np.sort(np.random.RandomState(seed + 1).choice(np.arange(1, 50), 4, replace=False))
        offsets = np.concatenate([[0], cuts, [50]])
        blocks = [p[a:b] for a, b in itertools.pairwise(offsets)]
        got, _ = D.weighted_choice(ex, blocks, offsets, np.random.RandomState(seed), 5)
        want = np.random.RandomState(seed).choice(50, size=5, p=p / p.sum())
        np.testing.assert_array_equal(got, want)


def test_weighted_choice_of_zero_weights_draws_nothing():
    rng = np.random.RandomState(0)
    got, total = D.weighted_choice(D.EagerExecutor(), [np.zeros(4)], np.array([0, 4]), rng)
    assert got is None and total == 0.0
    assert rng.random_sample() == np.random.RandomState(0).random_sample()


def test_smallest_rows_is_a_stable_argsort_over_blocks():
    v = np.array([3.0, 1.0, 1.0, -np.inf, 2.0, 1.0, 0.5, 1.0])
    offsets = np.array([0, 3, 5, 8])
    blocks = [v[a:b] for a, b in itertools.pairwise(offsets)]
    for count in range(1, 9):
        got = D.smallest_rows(D.EagerExecutor(), blocks, offsets, count)
        np.testing.assert_array_equal(got, np.argsort(v, kind="stable")[:count])


def test_take_rows_across_blocks():
    R = Rankings(np.argsort(np.random.RandomState(0).random_sample((9, 4)), axis=1))
    parts = [R[0:4], R[4:5], R[5:9]]
    got = D.take_rows(D.EagerExecutor(), parts, np.array([0, 4, 5, 9]), [8, 0, 4, 5])
    np.testing.assert_array_equal(got, R.ranks[[8, 0, 4, 5]])


def test_chunked_rankings_from_a_dask_array_round_trip(client, rng):
    R = random_rankings(rng, 23, 5, kind="top", p_missing=0.5)
    w = rng.random(23)
    X = da.from_array(R.to_ranks(), chunks=(7, 2))  # column chunks are merged
    CR = D.ChunkedRankings.from_dask_array(X, kind="top", weights=w, items=list("abcde"))
    assert (CR.n_rankings, CR.n_items, CR.n_chunks) == (23, 5, 4)
    back = CR.to_rankings()
    np.testing.assert_array_equal(back.ranks, R.ranks)
    np.testing.assert_allclose(back.weights, w)
    assert back.kind == "top" and back.items == tuple("abcde")


def test_chunked_rankings_from_a_bag_infers_the_items(client):
    orders = [[2, 0], [1, 2, 0], [3], [0, 1]]
    CR = D.ChunkedRankings.from_bag(db.from_sequence(orders, npartitions=2))
    assert CR.n_items == 4 and CR.chunk_sizes == [2, 2]
    assert CR.to_rankings().to_orderings() == orders


def test_a_bad_row_names_its_chunk(client):
    X = da.from_array(np.array([[1, 2], [2, 1], [1, -3], [1, 2]]), chunks=2)
    with pytest.raises(ValueError, match=r"starting at row 2.*row 0.*negative"):
        D.ChunkedRankings.from_dask_array(X).to_rankings()


@pytest.mark.parametrize("n_blocks", [1, 3, 8])
@pytest.mark.parametrize("kind", ["top", "subset"])
def test_distinct_blocks_are_the_in_memory_unique(client, rng, n_blocks, kind):
    R = with_duplicates(rng, 90, 5, kind=kind)
    blocks, offsets, total = D.distinct_blocks(
        D.ChunkedRankings.from_rankings(R, chunk_size=17), n_blocks, samples_per_chunk=4
    )
    got = Rankings.concatenate(D.DaskExecutor().gather(blocks))
    want, _ = R[np.flatnonzero(R.weights > 0)].unique()
    np.testing.assert_array_equal(got.ranks, want.ranks)
    np.testing.assert_allclose(got.weights, want.weights)
    assert offsets[-1] == want.n_rankings and total == pytest.approx(R.weights.sum())
    assert len(blocks) <= n_blocks


def test_map_chunks_pairwise_counts_equals_in_memory(client, rng):
    R = random_rankings(rng, 50, 6, kind="top", p_missing=0.4)
    CR = D.ChunkedRankings.from_rankings(R, chunk_size=12)
    np.testing.assert_allclose(D.map_chunks_pairwise_counts(CR), R.pairwise_counts())

    def resp_fn(chunk):  # any per-row function of the chunk
        return np.stack([chunk.lengths, 1.0 / (1 + chunk.lengths)], axis=1)

    want = R.pairwise_counts(weights=resp_fn(R))
    np.testing.assert_allclose(D.map_chunks_pairwise_counts(CR, resp_fn), want)


def test_is_dask_collection_and_the_install_hint(monkeypatch):
    assert D.is_dask_collection(da.zeros(3)) and not D.is_dask_collection(np.zeros(3))
    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(ImportError, match=r"pip install rankclust\[dask\]"):
        D.import_dask()


# --------------------------------------------------------------------------------------------
# mixtures: the same fit on Dask as in memory
# --------------------------------------------------------------------------------------------
def assert_same_mixture(mem, dsk):
    np.testing.assert_array_equal(np.asarray(dsk.labels_.compute()), mem.labels_)
    assert dsk.n_iter_ == mem.n_iter_ and dsk.n_reseeded_ == mem.n_reseeded_
    np.testing.assert_allclose(dsk.weights_, mem.weights_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dsk.log_likelihood_history_, mem.log_likelihood_history_)
    assert dsk.log_likelihood_ == pytest.approx(mem.log_likelihood_, rel=1e-12)
    assert dsk.entropy_ == pytest.approx(mem.entropy_, rel=1e-9, abs=1e-9)
    assert dsk.n_rankings_ == pytest.approx(mem.n_rankings_)
    if hasattr(mem, "thetas_"):
        np.testing.assert_array_equal(dsk.center_positions_, mem.center_positions_)
        np.testing.assert_allclose(dsk.thetas_, mem.thetas_, rtol=1e-9)
    else:
        np.testing.assert_allclose(dsk.scores_, mem.scores_, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    ("kind", "lengths", "init"), [("top", (1, 6), "kmeans++"), ("subset", (2, 6), "random")]
)
def test_mallows_mixture_on_dask_equals_in_memory(client, kind, lengths, init):
    R, _ = make_mallows_mixture(400, 6, 3, thetas=1.0, lengths=lengths, kind=kind, random_state=0)
    sw = np.random.RandomState(1).randint(0, 3, size=R.n_rankings).astype(float)
    est = MallowsMixture(3, init=init, n_init=2, init_iter=None, max_iter=12, random_state=0)
    mem = quiet_fit(clone(est), R, sample_weight=sw)
    X = da.from_array(R.to_ranks(), chunks=(90, 6))
    dsk = quiet_fit(clone(est), D.ChunkedRankings.from_dask_array(X, kind=kind), sample_weight=sw)
    assert_same_mixture(mem, dsk)
    assert dsk.kind_ == kind


def test_plackett_luce_mixture_on_dask_equals_in_memory(client):
    R, _ = make_plackett_luce_mixture(500, 5, 2, random_state=0)
    est = PlackettLuceMixture(2, n_init=2, init_iter=5, max_iter=25, mm_steps=2, random_state=0)
    mem = quiet_fit(clone(est), R)
    dsk = quiet_fit(clone(est).set_params(backend="dask"), R)  # in-memory input, on Dask
    assert_same_mixture(mem, dsk)


class FarStart(MallowsMixture):
    # one component starts at the reverse ranking with a huge dispersion: no ranking near the
    # identity gives it any responsibility, so it is empty after one E-step and re-seeded
    def _init_params(self, data, seeds, rng):
        return {
            "centers": np.array([np.arange(5), np.arange(5)[::-1]]),
            "thetas": np.array([1.0, 50.0]),
        }


def test_a_reseeded_component_is_reseeded_alike_on_dask(client):
    R, _ = make_mallows_mixture(200, 5, 1, thetas=2.0, kind="top", random_state=2)
    est = FarStart(2, n_init=1, init_iter=None, max_iter=15, random_state=0)
    mem = quiet_fit(clone(est), R)
    assert mem.n_reseeded_ > 0
    dsk = quiet_fit(clone(est), D.ChunkedRankings.from_rankings(R, chunk_size=70))
    assert_same_mixture(mem, dsk)


def test_mixture_prediction_on_dask_input(client):
    R, _ = make_mallows_mixture(200, 5, 2, thetas=1.5, lengths=(2, 5), kind="top", random_state=3)
    mix = quiet_fit(MallowsMixture(2, n_init=1, init_iter=None, max_iter=20, random_state=0), R)
    CR = D.ChunkedRankings.from_rankings(R, chunk_size=60)
    np.testing.assert_array_equal(mix.predict(CR).compute(), mix.predict(R))
    np.testing.assert_allclose(mix.predict_proba(CR).compute(), mix.predict_proba(R))
    np.testing.assert_allclose(mix.score_samples(CR).compute(), mix.score_samples(R))
    assert mix.score(CR) == pytest.approx(mix.score(R))


def test_mixture_errors_on_dask(client):
    never_loses = Rankings.from_orderings([[0, 1, 2], [0, 2, 1]] * 5, n_items=3, kind="top")
    CR = D.ChunkedRankings.from_rankings(never_loses, chunk_size=4)
    with pytest.raises(ValueError, match=r"items \[0\] never lose"):
        PlackettLuceMixture(2, random_state=0).fit(CR)
    with pytest.raises(
        ValueError, match="larger than the number of distinct rankings of positive weight n=2"
    ):
        MallowsMixture(3, random_state=0).fit(CR)
    tied = da.from_array(np.array([[1, 1, 2], [1, 2, 3]]), chunks=1)
    with pytest.raises(ValueError, match="tied"):
        MallowsMixture(1).fit(tied)
    with pytest.raises(ValueError, match="backend"):
        MallowsMixture(backend="spark").fit(never_loses)


# --------------------------------------------------------------------------------------------
# ChainKMeans: the same clustering on Dask as in memory
# --------------------------------------------------------------------------------------------
def assert_same_kmeans(mem, dsk):
    np.testing.assert_array_equal(np.asarray(dsk.labels_.compute()), mem.labels_)
    assert (dsk.n_iter_, dsk.n_clusters_) == (mem.n_iter_, mem.n_clusters_)
    np.testing.assert_allclose(dsk.pair_counts_, mem.pair_counts_)
    np.testing.assert_allclose(dsk.centroids_, mem.centroids_)
    assert dsk.objective_ == pytest.approx(mem.objective_, rel=1e-12)
    assert dsk.centers_ == mem.centers_


@pytest.fixture(scope="module")
def chains():
    R, _ = make_planted_chains(1500, n_items=12, length=(3, 7), n_clusters=3, random_state=0)
    return R


@pytest.mark.parametrize("init", ["random_partition", "random_orders"])
def test_chain_kmeans_on_dask_equals_in_memory(client, chains, init):
    sw = np.linspace(0.5, 2.0, chains.n_rankings)
    est = ChainKMeans(4, init=init, n_init=2, random_state=1)
    mem = quiet_fit(clone(est), chains, sample_weight=sw)
    X = da.from_array(chains.to_ranks(), chunks=(400, 12))
    dsk = quiet_fit(clone(est), X, sample_weight=da.from_array(sw, chunks=700))
    assert_same_kmeans(mem, dsk)


@pytest.mark.parametrize("policy", ["reseed", "drop"])
def test_chain_kmeans_empty_clusters_on_dask(client, chains, policy):
    # start with cluster 3 empty: the policy acts before the first centroid step
    init = np.random.RandomState(0).randint(3, size=chains.n_rankings)
    est = ChainKMeans(4, init=init, empty_cluster=policy)
    mem = quiet_fit(clone(est), chains)
    dsk = quiet_fit(clone(est).set_params(backend="dask"), chains)
    assert_same_kmeans(mem, dsk)
    assert dsk.n_clusters_ == (4 if policy == "reseed" else 3)


def test_chain_kmeans_on_a_bag_of_orderings(client, chains):
    orders = chains.to_orderings()
    bag = db.from_sequence(orders, npartitions=3)
    est = ChainKMeans(3, n_init=1, random_state=2)
    mem = quiet_fit(clone(est), chains)
    dsk = quiet_fit(clone(est), D.ChunkedRankings.from_bag(bag, n_items=12))
    assert_same_kmeans(mem, dsk)
    np.testing.assert_array_equal(dsk.predict(bag).compute(), mem.predict(chains))


def test_chain_kmeans_dask_refuses_global_initialisations(client, chains):
    with pytest.raises(ValueError, match="needs the whole data in memory"):
        ChainKMeans(3, init="hypersphere", backend="dask").fit(chains)
    with pytest.raises(ValueError, match="not chains"):
        ChainKMeans(2, backend="dask").fit(chains.with_kind("top")).labels_.compute()


@pytest.mark.parametrize("mixture", ["mallows", "plackett_luce"])
def test_select_k_with_warm_starts_on_dask_equals_in_memory(client, mixture):
    # the warm starts (split components, a k-means++ seed) must draw the same rows on Dask
    if mixture == "mallows":
        R, _ = make_mallows_mixture(300, 5, 2, thetas=1.0, kind="top", random_state=3)
        est = MallowsMixture(n_init=2, init_iter=3, max_iter=15, random_state=0)
    else:
        R, _ = make_plackett_luce_mixture(300, 5, 2, random_state=3)
        est = PlackettLuceMixture(n_init=2, init_iter=3, max_iter=15, mm_steps=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = select_k(clone(est), R, ks=range(1, 4))
        dsk = select_k(clone(est).set_params(backend="dask"), R, ks=range(1, 4))
    assert mem.best_k == dsk.best_k
    np.testing.assert_allclose(
        [row["log_likelihood"] for row in dsk.table],
        [row["log_likelihood"] for row in mem.table],
        rtol=1e-9,
    )
    for k in mem.ks:
        assert_same_mixture(mem.estimators[k], dsk.estimators[k])
