"""Tests of instance-based label ranking (IBLR with Mallows and Plackett-Luce)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import NearestNeighbors

from rankclust import Rankings
from rankclust.consensus import _positions_from_scores, generalized_borda_votes
from rankclust.label_ranking import IBLR, IBLRMallows, IBLRPlackettLuce
from rankclust.label_ranking._iblr_kernels import (
    _nb_local_mallows_em,
    _nb_positions_from_scores,
)
from rankclust.models.mallows import estimate_center, estimate_theta, sample_mallows, theta_mle
from rankclust.models.plackett_luce import fit_scores
from tests.conftest import random_rankings


def _run_kernel(ranks_q, w_q, max_iter=100):
    """The batched kernel on a list of neighbour rank matrices (Q, k, m) and weights."""
    nbr = np.ascontiguousarray(ranks_q)
    w = np.ascontiguousarray(w_q)
    q, _, m = nbr.shape
    votes = np.stack([generalized_borda_votes(Rankings(r)) for r in nbr])
    init = np.einsum("qk,qkm->qm", w, votes)
    centers = np.empty((q, m), dtype=np.int64)
    mean = np.empty(q)
    n_iter = np.empty(q, dtype=np.int64)
    conv = np.empty(q, dtype=np.bool_)
    _nb_local_mallows_em(nbr, w, init, max_iter, centers, mean, n_iter, conv)
    return centers, mean, n_iter, conv


@pytest.mark.parametrize("p_missing", [0.0, 0.3, 0.6])
@pytest.mark.parametrize("weighting", ["random", "integer"])
def test_kernel_matches_estimate_center(rng, p_missing, weighting):
    """The batched EM equals the shared estimate_center(method="borda") query by query."""
    Q, k, m = 40, 7, 6
    ranks, weights = [], []
    for _ in range(Q):
        ranks.append(random_rankings(rng, k, m, p_missing=p_missing).ranks)
        if weighting == "random":
            w = rng.random(k)
            w[rng.integers(k)] = 0.0  # a zero-weight row (Dudani's k-th neighbour)
        else:
            w = rng.integers(1, 3, size=k).astype(float)
        weights.append(w)
    centers, mean, n_iter, _ = _run_kernel(np.array(ranks), np.array(weights))
    for q in range(Q):
        R = Rankings(ranks[q])
        ref, ref_iter, _ = estimate_center(R, weights[q], method="borda", return_n_iter=True)
        np.testing.assert_array_equal(centers[q], ref)
        assert n_iter[q] == ref_iter
        th = theta_mle(mean[q], m, theta_max=np.inf)
        ref_th = estimate_theta(R, ref, weights[q], theta_max=np.inf)
        assert th == pytest.approx(ref_th, rel=1e-9, abs=1e-9)


def test_kernel_complete_data_is_weighted_borda_without_iterations(rng):
    R = random_rankings(rng, 9, 5)
    w = rng.random(9)
    centers, _, n_iter, conv = _run_kernel(R.ranks[None], w[None])
    assert n_iter[0] == 0 and conv[0]
    votes = w @ (5 - R.ranks)  # classic Borda votes m - position(0-based) ... same order
    np.testing.assert_array_equal(centers[0], _positions_from_scores(votes, 0.0))


def test_positions_from_scores_matches_consensus(rng):
    for _ in range(50):
        s = rng.integers(0, 4, size=7).astype(float) + rng.random(7) * 1e-15
        out = np.empty(7, dtype=np.int64)
        _nb_positions_from_scores(s, 1e-12 * 7 * 4, out)
        np.testing.assert_array_equal(out, _positions_from_scores(s, 1e-12 * 7 * 4))


def test_paper_worked_example_single_incomplete_neighbour():
    """y2 > y1 > y5 alone: generalised Borda + Prop. 1 give y2 > y1 > y3 > y4 > y5."""
    X = np.array([[0.0], [10.0]])
    Y = np.array([[2, 1, 0, 0, 3], [1, 2, 3, 4, 5]])
    model = IBLRMallows(n_neighbors=1).fit(X, Y)
    np.testing.assert_array_equal(model.predict([[0.1]]), [[2, 1, 3, 4, 5]])
    # one neighbour with 3 labels, completed to the centre itself: theta = inf
    assert model.predict_theta([[0.1]])[0] == np.inf


def test_uniform_k_neighbours_equals_borda_of_neighbours(rng):
    X = rng.random((80, 2))
    R = random_rankings(rng, 80, 5)
    Xq = rng.random((15, 2))
    model = IBLRMallows(n_neighbors=6, weights="uniform").fit(X, R)
    pred = model.predict(Xq)
    scaled = model._scale(X)
    _, ind = NearestNeighbors(n_neighbors=6).fit(scaled).kneighbors(model._scale(Xq))
    for i in range(15):
        center = estimate_center(R[ind[i]], method="borda")
        np.testing.assert_array_equal(pred[i], center + 1)


def test_dudani_weights_use_nearest_only_for_k2(rng):
    X = rng.random((30, 3))
    R = random_rankings(rng, 30, 4)
    model = IBLRMallows(n_neighbors=2).fit(X, R)
    _, ind = NearestNeighbors(n_neighbors=1).fit(model._scale(X)).kneighbors(model._scale(X))
    np.testing.assert_array_equal(model.predict(X), R.ranks[ind[:, 0]] + 1)


def test_auto_k_is_chosen_from_the_grid_and_reproducible(rng):
    X = rng.random((120, 2))
    util = np.column_stack([X[:, 0], X[:, 1], 1 - X[:, 0], 0.5 + 0 * X[:, 0]])
    Y = np.argsort(np.argsort(-util, axis=1), axis=1) + 1
    a = IBLR(random_state=0, cv_max_eval=50).fit(X, Y)
    b = IBLR(random_state=0, cv_max_eval=50).fit(X, Y)
    assert a.n_neighbors_ in (2, 3, 5, 7, 10, 15, 20, 30, 50)
    assert a.cv_scores_ == b.cv_scores_
    assert a.cv_scores_[a.n_neighbors_] == max(a.cv_scores_.values())
    assert a.score(X, Y) > 0.9


def test_incomplete_training_rankings(rng):
    X = rng.random((400, 2))
    util = np.column_stack([X[:, 0], X[:, 1], 1 - X[:, 0], 1 - X[:, 1]])
    Y = (np.argsort(np.argsort(-util, axis=1), axis=1) + 1).astype(float)
    Ym = Y.copy()
    Ym[rng.random(Y.shape) < 0.5] = 0
    train, test = slice(0, 300), slice(300, None)
    model = IBLRMallows(n_neighbors=15).fit(X[train], Ym[train])
    full = IBLRMallows(n_neighbors=15).fit(X[train], Y[train]).score(X[test], Y[test])
    # half the labels gone costs little; ignoring X (one consensus ranking) scores about 0
    assert model.score(X[test], Y[test]) > full - 0.15
    theta = model.predict_theta(X[:5])
    assert theta.shape == (5,) and np.all(theta >= 0)


def test_predict_theta_matches_estimate_theta(rng):
    X = rng.random((50, 2))
    R = random_rankings(rng, 50, 4, p_missing=0.3)
    model = IBLRMallows(n_neighbors=8, weights="uniform").fit(X, R)
    Xq = rng.random((5, 2))
    theta = model.predict_theta(Xq)
    _, ind = (
        NearestNeighbors(n_neighbors=model.n_neighbors_)
        .fit(model._scale(X))
        .kneighbors(model._scale(Xq))
    )
    for i in range(5):
        Rn = R[np.sort(ind[i])]
        w = Rn.lengths / 4
        center = estimate_center(Rn, w, method="borda")
        ref = estimate_theta(Rn, center, w, theta_max=np.inf)
        assert theta[i] == pytest.approx(ref, rel=1e-8)


def test_plackett_luce_predicts_order_of_local_scores(rng):
    X = rng.random((60, 2))
    R = random_rankings(rng, 60, 4, p_missing=0.2)
    model = IBLRPlackettLuce(n_neighbors=5, weights="uniform", alpha=0.1).fit(X, R)
    Xq = rng.random((4, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        pred = model.predict(Xq)
    _, ind = (
        NearestNeighbors(n_neighbors=model.n_neighbors_)
        .fit(model._scale(X))
        .kneighbors(model._scale(Xq))
    )
    for i in range(4):
        scores, _, _ = fit_scores(
            R[ind[i]], np.ones(5), alpha=0.1, max_iter=model.max_iter, tol=model.tol
        )
        order = np.lexsort((np.arange(4), -scores))
        np.testing.assert_array_equal(np.argsort(pred[i]), order)


def test_plackett_luce_learns_a_clear_structure(rng):
    X = np.repeat([[0.0], [1.0]], 30, axis=0) + rng.normal(0, 0.01, (60, 1))
    Y = np.where(X < 0.5, [[1, 2, 3]], [[3, 2, 1]])
    model = IBLRPlackettLuce(n_neighbors=5).fit(X, Y)
    assert model.score(X, Y) == 1.0


def test_bad_parameters():
    with pytest.raises(ValueError, match="n_neighbors"):
        IBLRMallows(n_neighbors=0).fit([[0.0], [1.0]], [[1, 2], [2, 1]])
    with pytest.raises(ValueError, match="weights"):
        IBLRMallows(weights="bogus").fit([[0.0], [1.0]], [[1, 2], [2, 1]])
    with pytest.raises(ValueError, match="alpha"):
        IBLRPlackettLuce(alpha=0.0).fit([[0.0], [1.0]], [[1, 2], [2, 1]])


@pytest.mark.parametrize("algorithm", ["kd_tree", "ball_tree", "brute"])
def test_neighbour_search_backends_agree_with_sklearn(rng, algorithm):
    X = rng.random((70, 4))
    X[5] = X[6]  # a duplicate: tie broken by training index
    R = random_rankings(rng, 70, 3)
    model = IBLRMallows(n_neighbors=7, algorithm=algorithm).fit(X, R)
    Xq = np.vstack([rng.random((9, 4)), X[5:6]])
    dist, ind = model._neighbours(Xq)
    ref_d, ref_i = (
        NearestNeighbors(n_neighbors=7).fit(model._scale(X)).kneighbors(model._scale(Xq))
    )
    np.testing.assert_allclose(dist, ref_d, atol=1e-12)
    np.testing.assert_array_equal(np.sort(ind, axis=1), np.sort(ref_i, axis=1))
    assert ind[-1, 0] == 5 and ind[-1, 1] == 6
    ref = IBLRMallows(n_neighbors=7, algorithm="brute").fit(X, R).predict(Xq)
    np.testing.assert_array_equal(model.predict(Xq), ref)


def test_grid_is_extended_while_the_largest_k_wins(rng):
    # rankings are noisy draws around one centre whatever x: the more neighbours the better
    X = rng.random((400, 2))
    R = sample_mallows([0, 1, 2, 3, 4], 0.3, 400, random_state=1)
    fixed = IBLRMallows(k_grid=(2, 5, 10), extend_grid=False, random_state=0).fit(X, R)
    grown = IBLRMallows(k_grid=(2, 5, 10), random_state=0).fit(X, R)
    assert fixed.n_neighbors_ == 10
    assert grown.n_neighbors_ > 10
    assert set(fixed.cv_scores_) < set(grown.cv_scores_)
    assert grown.cv_scores_[grown.n_neighbors_] == max(grown.cv_scores_.values())


def test_large_k_uses_exact_search(rng):
    X = rng.random((300, 3))
    R = random_rankings(rng, 300, 4)
    model = IBLRMallows(n_neighbors=200, algorithm="kd_tree").fit(X, R)
    dist, _ = model._neighbours(X[:5])
    ref_d, _ = (
        NearestNeighbors(n_neighbors=200).fit(model._scale(X)).kneighbors(model._scale(X[:5]))
    )
    np.testing.assert_allclose(dist, ref_d, atol=1e-9)
    assert (np.diff(dist, axis=1) >= 0).all()
