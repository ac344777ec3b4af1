"""Tests for rankclust.cluster.komeans (k-o'means re-implementation)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import spearmanr
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import adjusted_rand_score

from rankclust import Rankings
from rankclust.cluster import KOMeans, make_planted_chains
from rankclust.cluster._base import chain_orders
from rankclust.cluster.komeans import (
    _nb_order_dissimilarities,
    _order_dissimilarities,
    _OrderData,
    central_order_ebc,
    central_order_tmse,
)


def random_chains(rng, n, m, lmin=1):
    return Rankings.from_orderings(
        [rng.permutation(m)[: int(rng.integers(lmin, m + 1))].tolist() for _ in range(n)],
        n_items=m,
    )


def ref_dissimilarity(order, center_pos, kendall):
    common = [u for u in order if center_pos[u] >= 0]
    L = len(common)
    if L < 2:
        return 0.5 if kendall else 1.0
    r1 = np.arange(L)
    r2 = np.array([center_pos[u] for u in common])
    if kendall:
        disc = sum(r2[a] > r2[b] for a, b in itertools.combinations(range(L), 2))
        return disc / (L * (L - 1) / 2)
    return 1.0 - spearmanr(r1, r2).statistic


def test_kamishima_spearman_example():
    # chapter example: common objects x3 > x4 > x6 vs x4 > x3 > x6 -> rho = 0.5
    R = Rankings.from_orderings([[3, 4, 6]], n_items=7)
    center = np.array([[-1, -1, -1, 1, 0, -1, 2]])
    out = np.empty((1, 1))
    orders, lengths = chain_orders(R)
    _nb_order_dissimilarities(orders, lengths, center, False, out)
    assert out[0, 0] == pytest.approx(0.5)


@pytest.mark.parametrize("kendall", [False, True])
def test_dissimilarity_kernel_matches_reference(rng, kendall):
    R = random_chains(rng, 60, 8)
    K = 3
    pos = np.full((K, 8), -1, dtype=np.int64)
    for k in range(K):
        items = rng.permutation(8)[: int(rng.integers(1, 9))]
        pos[k, items] = np.arange(len(items))
    orders, lengths = chain_orders(R)
    out = np.empty((60, K))
    _nb_order_dissimilarities(orders, lengths, pos, kendall, out)
    out_py = np.empty((60, K))
    _order_dissimilarities(orders, lengths, pos, kendall, out_py)
    expect = [[ref_dissimilarity(o, pos[k], kendall) for k in range(K)] for o in R.to_orderings()]
    np.testing.assert_allclose(out, expect, atol=1e-12)
    np.testing.assert_allclose(out_py, out)


def test_tmse_matches_direct_formula(rng):
    R = random_chains(rng, 40, 6, lmin=2)
    C = R.pairwise_counts()[None]
    seen = np.ones((1, 6), dtype=bool)
    seen[0, 5] = False
    pos = central_order_tmse(C, seen)
    mu = []
    for u in range(5):
        vals = [
            ndtri((C[0, u, v] + 0.5) / (C[0, u, v] + C[0, v, u] + 1)) for v in range(5) if v != u
        ]
        mu.append(np.mean(vals))
    expect = np.argsort(-np.array(mu), kind="stable")
    assert pos[0, 5] == -1
    np.testing.assert_array_equal(np.argsort(pos[0, :5]), expect)


def test_ebc_equals_mean_over_all_completions():
    # E[r_u | O_i] is the mean rank of u over the uniformly random completions of O_i
    R = Rankings.from_orderings([[2, 0], [1, 3, 0], [3, 2]], n_items=4)
    data = _OrderData(R)
    Z = data.onehot(np.zeros(3, dtype=np.int64), 1)
    pos = central_order_ebc(data.scaled, data.presence, Z)
    mean_rank = np.zeros(4)
    for order in R.to_orderings():
        exts = [
            t for t in itertools.permutations(range(4)) if [u for u in t if u in order] == order
        ]
        for t in exts:
            mean_rank[list(t)] += np.arange(1, 5) / len(exts)
    np.testing.assert_array_equal(np.argsort(pos[0]), np.argsort(mean_rank, kind="stable"))


@pytest.mark.parametrize("centroid", ["tmse", "ebc"])
def test_identical_chains_give_that_order(centroid):
    R = Rankings.from_orderings([[3, 1, 4, 0, 2]] * 4, n_items=6)
    km = KOMeans(1, centroid=centroid, n_init=1).fit(R)
    assert km.centers_.to_orderings() == [[3, 1, 4, 0, 2]]  # item 5 never seen: absent
    assert km.objective_ == pytest.approx(0.0)


@pytest.mark.parametrize("centroid", ["tmse", "ebc"])
@pytest.mark.parametrize("metric", ["spearman", "kendall"])
def test_recovers_planted_clusters(centroid, metric):
    R, y = make_planted_chains(300, n_items=10, length=6, n_clusters=3, random_state=1)
    km = KOMeans(3, centroid=centroid, metric=metric, n_init=3, random_state=0).fit(R)
    assert adjusted_rand_score(y, km.labels_) > 0.9
    d = km.transform(R)[np.arange(300), km.labels_]
    assert km.objective_ == pytest.approx(d.sum()) == pytest.approx(km.inertia_)


def test_weighted_equals_expanded(rng):
    R, _ = make_planted_chains(120, n_items=6, length=3, n_clusters=2, n_buckets=2, random_state=2)
    uniq, inverse = R.unique()
    init = rng.integers(0, 2, size=uniq.n_rankings)
    for centroid in ("tmse", "ebc"):
        km = KOMeans(2, centroid=centroid)
        a = km._single_run(_OrderData(uniq), init.copy())
        b = km._single_run(_OrderData(R), init[inverse].copy())
        c = km._single_run(_OrderData(uniq.with_weights(None), uniq.weights), init.copy())
        assert a[2] > 0
        np.testing.assert_array_equal(a[1], c[1])
        assert a[2] == pytest.approx(c[2])
        np.testing.assert_array_equal(a[0][inverse], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        assert a[2] == pytest.approx(b[2])


def test_reproducible_and_sklearn_api():
    R, _ = make_planted_chains(150, n_items=12, length=4, n_clusters=3, random_state=3)
    a = KOMeans(3, n_init=2, random_state=4).fit(R)
    b = clone(a).fit(R)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.get_params()["centroid"] == "tmse"
    assert a.fit_predict(R).shape == (150,)
    assert a.predict(R).max() < a.n_clusters_
    with pytest.raises(NotFittedError):
        KOMeans().predict(R)


def test_empty_cluster_policies_and_errors():
    # with this seed the random partition of 3 orders into 3 clusters leaves cluster 2 empty
    assert 2 not in np.random.RandomState(0).randint(3, size=3)
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 0, 2]], n_items=3)
    km = KOMeans(3, n_init=1, empty_cluster="drop", random_state=0).fit(R)
    assert km.n_clusters_ == km.centers_.n_rankings == 2
    km = KOMeans(3, n_init=1, empty_cluster="reseed", random_state=0).fit(R)
    assert km.n_clusters_ == 3 and len(np.unique(km.labels_)) == 3
    R = Rankings.from_orderings([[0, 1, 2]] * 6, n_items=3)
    with pytest.raises(ValueError, match="larger than"):
        KOMeans(7).fit(R)
    with pytest.raises(ValueError, match="centroid"):
        KOMeans(2, centroid="median").fit(R)
    with pytest.raises(ValueError, match="sample_weight"):
        KOMeans(2).fit(R, sample_weight=np.ones(2))
