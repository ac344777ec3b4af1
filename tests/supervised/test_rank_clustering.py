"""Tests of RankClusteringTree (naive_RT, ebms_RT, Ko'm_RT; rankclust.supervised.rank_clustering)."""

import itertools

import numpy as np
import pytest
from sklearn.base import clone

from rankclust import Rankings
from rankclust.supervised import RankClusteringTree
from rankclust.supervised.rank_clustering import (
    _complete_by_neighbours,
    _complete_centers,
    naive_rank_clusters,
)
from tests.supervised._helpers import ORDERS, blobs, recovered

TRUE = {tuple(o) for o in ORDERS}


@pytest.mark.parametrize("clusterer", ["naive", "komeans", "mallows_mixture"])
@pytest.mark.parametrize("p_missing", [0.0, 0.4])
def test_recovers_blob_rankings(clusterer, p_missing):
    X, Y, y = blobs(p_missing=p_missing)
    est = RankClusteringTree(3, clusterer=clusterer, n_init=3, random_state=0).fit(X, Y)
    assert recovered(est) == TRUE
    pred = est.predict_ranking(X) - 1
    np.testing.assert_array_equal(pred, np.argsort(ORDERS[y], axis=1))
    assert est.fit_labels_.shape == (len(y),)
    assert (est.central_rankings_.ranks >= 0).all()


def test_naive_top_k_by_frequency_and_first_occurrence():
    X = np.arange(7.0)[:, None]
    a, b, c = [0, 1, 2], [2, 1, 0], [1, 0, 2]
    Y = Rankings([b, a, a, c, b, c, [0, 2, 1]])
    centers, labels = naive_rank_clusters(X, Y, 2)
    # b, a and c occur twice each; b occurs first, then a
    np.testing.assert_array_equal(centers, [b, a])
    assert labels[3] == 1  # c = 1 0 2 ... is at distance 1 from a and 2 from b
    centers, _ = naive_rank_clusters(X, Y, 10)
    assert len(centers) == 4  # K_eff = number of distinct rankings


def _brute_extension(row, center):
    present = np.flatnonzero(row >= 0)
    best = None
    m = len(row)
    for perm in itertools.permutations(range(m)):
        pos = np.argsort(perm)
        if any((pos[u] < pos[v]) != (row[u] < row[v]) for u in present for v in present if u != v):
            continue
        d = sum((pos[u] < pos[v]) != (center[u] < center[v]) for u in range(m) for v in range(u))
        if best is None or d < best:
            best = d
    return best


def test_completion_by_neighbours_is_the_closest_extension(rng):
    X = rng.normal(size=(30, 2))
    pos = np.array([rng.permutation(5) for _ in range(30)])
    pos[::2, rng.integers(0, 5)] = -1
    Y = Rankings(pos)
    full = _complete_by_neighbours(X, Y, 4)
    from sklearn.neighbors import NearestNeighbors

    from rankclust.consensus import generalized_borda

    nbrs = NearestNeighbors(n_neighbors=4).fit(X).kneighbors(return_distance=False)
    for i in range(0, 30, 2):
        center = generalized_borda(Y[nbrs[i]])
        comp = Rankings(full[i : i + 1])
        assert comp.is_complete
        # consistent with the observed order, and as close to the centre as any extension
        obs = np.flatnonzero(Y.ranks[i] >= 0)
        assert (np.argsort(np.argsort(full[i][obs])) == Y.ranks[i][obs]).all()
        d = sum(
            (full[i][u] < full[i][v]) != (center[u] < center[v])
            for u in range(5)
            for v in range(u)
        )
        assert d == _brute_extension(Y.ranks[i], center)
    np.testing.assert_array_equal(full[1::2], Y.ranks[1::2])


def test_complete_centers_extends_partial_ones():
    Y = Rankings(np.tile([0, 1, 2, 3], (5, 1)))
    out = _complete_centers(Y, np.array([[1, 0, -1, -1], [0, 1, 2, 3]]))
    np.testing.assert_array_equal(out, [[1, 0, 2, 3], [0, 1, 2, 3]])


def test_literal_growth_is_a_stump_on_nested_regions():
    X = np.repeat(np.arange(10.0), 6)[:, None]
    mid = (X[:, 0] >= 4) & (X[:, 0] <= 5)
    Y = Rankings(np.where(mid[:, None], [2, 1, 0], [0, 1, 2]))
    lit = RankClusteringTree(2, clusterer="naive", growth="literal").fit(X, Y)
    assert lit.tree_.n_leaves == 1
    full = RankClusteringTree(2, clusterer="naive").fit(X, Y)
    assert full.score(X, Y) == pytest.approx(1.0)


def test_clone_and_validation():
    clone(RankClusteringTree(3))
    with pytest.raises(ValueError, match="clusterer"):
        RankClusteringTree(clusterer="ebms").fit(np.zeros((3, 1)), [[1, 2]] * 3)
    with pytest.raises(ValueError, match="tied"):
        RankClusteringTree(1).fit(np.zeros((2, 1)), [[1, 1], [1, 2]])


def test_a_stage1_ranking_no_leaf_carries_is_dropped_and_renumbered():
    # vehicle, K=2, seed 1: k-o'means returns two clusters with the same central order, so
    # the tree can carry only one of them (issue #17: an empty cluster was returned)
    from rankclust.datasets import load_label_ranking
    from rankclust.exceptions import EmptyClusterWarning

    X, Y = load_label_ranking("vehicle")
    with pytest.warns(EmptyClusterWarning, match="n_clusters_=1"):
        est = RankClusteringTree(2, clusterer="komeans", random_state=1).fit(X, Y)
    assert est.n_clusters_ == 1 and len(est.central_rankings_) == 1
    assert np.all(est.labels_ == 0) and np.all(est.fit_labels_ == 0)
    assert np.all(est.tree_.value == 0)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
