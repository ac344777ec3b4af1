"""Tests of the partial label rankers (rankings with ties in and out)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from rankclust import Rankings
from rankclust.bucket_consensus import bucket_pivot, pair_order_matrix, precedence_counts
from rankclust.label_ranking import DecisionTreePartialLabelRanker, KNeighborsPartialLabelRanker
from rankclust.label_ranking.partial import (
    _best_split,
    _entropy,
    _neighbour_counts,
    _pair_states,
)
from rankclust.metrics import tau_x

ESTIMATORS = [
    KNeighborsPartialLabelRanker(n_neighbors=3),
    KNeighborsPartialLabelRanker(
        n_neighbors=3, weights="distance", pivot="random", random_state=0
    ),
    DecisionTreePartialLabelRanker(),
    DecisionTreePartialLabelRanker(max_depth=2, pivot="random", random_state=0),
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda est: {})
def test_sklearn_compatible(estimator, check):
    check(estimator)


def make_data(n=120, m=4, seed=0):
    """Two clusters in feature space, each with its own bucket order plus noise ties."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    group = X[:, 0] > 0
    Y = np.where(group[:, None], [1, 2, 2, 3], [3, 1, 2, 2])[:, :m].copy()
    flip = rng.random(n) < 0.1
    Y[flip] = rng.integers(1, 3, size=(flip.sum(), m))
    return X, Y


# ----------------------------------------------------------------------------- kNN
def test_knn_equals_consensus_of_neighbours():
    X, Y = make_data()
    est = KNeighborsPartialLabelRanker(n_neighbors=7).fit(X, Y)
    Xq = np.random.default_rng(5).normal(size=(15, 3))
    _, ind = est.nn_.kneighbors(Xq)
    want = np.array([bucket_pivot(pair_order_matrix(Y[i])) + 1 for i in ind])
    np.testing.assert_array_equal(est.predict(Xq), want)


def test_knn_distance_weights_and_exact_match():
    X = np.array([[0.0], [1.0], [3.0]])
    Y = np.array([[1, 2], [2, 1], [2, 1]])
    est = KNeighborsPartialLabelRanker(n_neighbors=3, weights="distance").fit(X, Y)
    # at x = 0 only the training row at distance 0 counts
    np.testing.assert_array_equal(est.predict([[0.0]]), [[1, 2]])
    # at 0.1: weights 10, 1/0.9, 1/2.9 -> P[0,1] = 10 / 11.46 > 0.75: label 0 first
    np.testing.assert_array_equal(est.predict([[0.1]]), [[1, 2]])
    uni = KNeighborsPartialLabelRanker(n_neighbors=3).fit(X, Y)
    np.testing.assert_array_equal(uni.predict([[0.1]]), [[1, 1]])  # 1/3: tie


def test_weighted_equals_expanded():
    X, Y = make_data(n=40)
    w = np.random.default_rng(1).integers(1, 4, size=40)
    R = Rankings.from_ranks(Y).with_weights(w)
    Xe, Ye = np.repeat(X, w, axis=0), np.repeat(Y, w, axis=0)
    Xq = np.random.default_rng(2).normal(size=(10, 3))
    a = DecisionTreePartialLabelRanker(random_state=0).fit(X, R).predict(Xq)
    b = DecisionTreePartialLabelRanker(random_state=0).fit(Xe, Ye).predict(Xq)
    np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------- tree
def test_tree_learns_the_two_groups():
    X, Y = make_data(n=300, seed=3)
    Xt, Yt = make_data(n=200, seed=4)
    tree = DecisionTreePartialLabelRanker(max_depth=3).fit(X, Y)
    pred = tree.predict(np.array([[1.0, 0, 0], [-1.0, 0, 0]]))
    np.testing.assert_array_equal(pred, [[1, 2, 2, 3], [3, 1, 2, 2]])
    assert tree.score(Xt, Yt) > 0.8
    assert tree.score(Xt, Yt) == pytest.approx(tau_x(Yt, tree.predict(Xt)))


def test_full_tree_reproduces_training_rankings():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(30, 2))
    Y = rng.integers(1, 4, size=(30, 4))
    tree = DecisionTreePartialLabelRanker().fit(X, Y)
    dense = np.array([np.unique(y, return_inverse=True)[1] + 1 for y in Y])
    np.testing.assert_array_equal(tree.predict(X), dense)


def test_best_split_matches_brute_force():
    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(25, 2)), 1)
    Y = rng.integers(1, 4, size=(25, 3))
    S = _pair_states(Y - 1)
    w = rng.random(25) + 0.5

    def counts(rows):
        c = np.zeros((S.shape[1], 4))
        for i in rows:
            for p in range(S.shape[1]):
                c[p, S[i, p]] += w[i]
        return c

    best = np.inf
    for f in range(2):
        for t in np.unique(X[:, f])[:-1]:
            lo = np.flatnonzero(X[:, f] <= t)
            hi = np.flatnonzero(X[:, f] > t)
            imp = w[lo].sum() * _entropy(counts(lo)) + w[hi].sum() * _entropy(counts(hi))
            best = min(best, imp / w.sum())
    f, t, imp = _best_split(X, S, w, 1, np.arange(2))
    assert imp == pytest.approx(best)


def test_entropy_of_known_counts():
    c = np.array([[1.0, 1.0, 0.0, 5.0], [2.0, 0.0, 0.0, 0.0]])  # 1 bit, 0 bits; col 3 ignored
    assert _entropy(c) == pytest.approx(0.5)


def test_max_depth_and_leaves():
    X, Y = make_data()
    tree = DecisionTreePartialLabelRanker(max_depth=1).fit(X, Y)
    assert tree.depth_ == 1 and tree.n_leaves_ == 2
    leaves = tree.apply(X)
    assert set(leaves) <= set(np.flatnonzero(tree.tree_feature_ < 0))


# ----------------------------------------------------------------------------- both
@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_predictions_are_dense_bucket_orders_and_reproducible(est):
    X, Y = make_data()
    a = clone(est).fit(X, Y).predict(X[:20])
    b = clone(est).fit(X, Y).predict(X[:20])
    np.testing.assert_array_equal(a, b)
    for row in a:
        assert sorted(set(row)) == list(range(1, row.max() + 1))


@pytest.mark.parametrize("cls", [KNeighborsPartialLabelRanker, DecisionTreePartialLabelRanker])
def test_unseen_label_last_and_names(cls):
    X, Y = make_data(n=30)
    Y[:, 3] = 0
    with pytest.warns(UserWarning, match="appear in no training ranking"):
        est = cls().fit(X, Rankings.from_ranks(Y, items=["a", "b", "c", "d"]))
    pred = est.predict(X[:5])
    assert (pred[:, 3] == pred.max(axis=1)).all()
    assert (pred[:, 3] > pred[:, :3].max(axis=1)).all()
    R = est.predict_rankings(X[:5])
    assert R.items == ("a", "b", "c", "d") and (R.ranks[:, 3] == -1).all()


@pytest.mark.parametrize("cls", [KNeighborsPartialLabelRanker, DecisionTreePartialLabelRanker])
def test_bad_parameters(cls):
    X, Y = make_data(n=10)
    with pytest.raises(ValueError, match="beta"):
        cls(beta=0.9).fit(X, Y)
    with pytest.raises(ValueError, match="pivot"):
        cls(pivot="median").fit(X, Y)


def test_knn_too_many_neighbours():
    X, Y = make_data(n=4)
    with pytest.raises(ValueError, match="larger than the number of training samples"):
        KNeighborsPartialLabelRanker(n_neighbors=5).fit(X, Y)


def test_tied_splits_go_to_the_first_feature_of_the_order():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(20, 1))
    X = np.hstack([x, x])  # two copies: every split ties exactly between the features
    Y = rng.integers(1, 4, size=(20, 3))
    S = _pair_states(Y - 1)
    w = np.ones(20)
    f0, t0, i0 = _best_split(X, S, w, 1, np.array([0, 1]))
    f1, t1, i1 = _best_split(X, S, w, 1, np.array([1, 0]))
    assert (f0, f1) == (0, 1) and t0 == t1 and i0 == i1


def test_random_state_orders_the_features_per_node():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(40, 1))
    X = np.hstack([x, x])
    Y = rng.integers(1, 4, size=(40, 3))
    roots = set()
    for seed in range(8):
        tree = DecisionTreePartialLabelRanker(random_state=seed).fit(X, Y)
        again = DecisionTreePartialLabelRanker(random_state=seed).fit(X, Y)
        np.testing.assert_array_equal(tree.tree_feature_, again.tree_feature_)
        roots.add(int(tree.tree_feature_[0]))
        # the copies are interchangeable: the same partition of the rows whatever the order
        np.testing.assert_array_equal(tree.predict(X), again.predict(X))
    assert roots == {0, 1}


def test_neighbour_counts_equal_precedence_counts():
    rng = np.random.default_rng(11)
    ranks = rng.integers(-1, 3, size=(12, 5))  # ties and missing labels (-1)
    ind = rng.integers(0, 12, size=(4, 3))
    w = rng.random((4, 3))
    prec = np.zeros((4, 5, 5))
    ties = np.zeros((4, 5, 5))
    _neighbour_counts(ranks, ind, w, prec, ties)
    for i in range(4):
        p, t = precedence_counts(Rankings.from_ranks(ranks[ind[i]] + 1), sample_weight=w[i])
        np.testing.assert_allclose(prec[i], p, atol=1e-12)
        np.testing.assert_allclose(ties[i], t, atol=1e-12)
