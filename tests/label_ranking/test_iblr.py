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
from rankclust.label_ranking._base import dudani_weights
from rankclust.label_ranking._iblr_kernels import (
    CenterFits,
    _nb_exact_distances,
    _nb_local_mallows_em,
    _nb_loo_centers,
    _nb_nearest,
    _nb_positions_from_scores,
    _nb_predict_centers,
    _nb_squared_distances,
)
from rankclust.label_ranking.iblr import _tau_per_k
from rankclust.metrics import kendall_tau_rows
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
    # the same neighbours, except which of several points tied at the k-th distance enters
    # (up to the search, as in scikit-learn); inside the neighbourhood ties go by index
    for i in range(len(Xq)):
        inner = dist[i] < dist[i, -1]
        assert set(ind[i, inner]) == set(ref_i[i, ref_d[i] < ref_d[i, -1]])
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
    # scikit-learn's brute force expands |x - y|^2 (error ~1e-8 near 0); ours is exact
    np.testing.assert_allclose(dist, ref_d, atol=1e-7)
    assert (dist[:, 0] == 0).all()
    assert (np.diff(dist, axis=1) >= 0).all()


# ------------------------------------------------------------------ indexed kernels
def _reference_weights(R, ind, dist, uniform):
    """Plain numpy: Dudani (or uniform) weights times completeness, with the fallbacks."""
    wd = np.ones_like(dist) if uniform else dudani_weights(dist)
    wc = R.lengths[ind] / R.n_items
    w = wd * wc
    dead = ~(w.sum(axis=1) > 0)
    w[dead] = wc[dead]
    w[~(w.sum(axis=1) > 0)] = 1.0
    return w


def _reference_centers(R, ind, dist, uniform):
    """Plain reference: estimate_center(method="borda") on each query's neighbours."""
    w = _reference_weights(R, ind, dist, uniform)
    return np.array(
        [estimate_center(R[ind[q]], w[q], method="borda") for q in range(ind.shape[0])]
    ), w


def _neighbour_matrix(rng, n_q, n, k):
    """Random sorted distances (with ties) and distinct neighbour indices per query."""
    ind = np.array([rng.choice(n, size=k, replace=False) for _ in range(n_q)])
    dist = np.sort(rng.integers(0, 4, size=(n_q, k)).astype(float), axis=1)
    return ind.astype(np.intp), dist


@pytest.mark.parametrize("p_missing", [0.0, 0.3, 0.6])
@pytest.mark.parametrize("uniform", [True, False])
def test_predict_centers_matches_reference(rng, p_missing, uniform):
    """The indexed kernel (weights, Prop. 2 start, approximate EM) = estimate_center."""
    n, m, k, n_q = 60, 6, 7, 50
    R = random_rankings(rng, n, m, p_missing=p_missing)
    ind, dist = _neighbour_matrix(rng, n_q, n, k)
    ref, w = _reference_centers(R, ind, dist, uniform)
    centers = np.empty((n_q, m), dtype=np.int64)
    mean, n_iter, conv = np.empty(n_q), np.empty(n_q, dtype=np.int64), np.empty(n_q, bool)
    votes = generalized_borda_votes(R)
    _nb_predict_centers(
        R.ranks, votes, R.lengths / m, ind, dist, uniform, 100, True,
        CenterFits(centers, mean, n_iter, conv),
    )  # fmt: skip
    np.testing.assert_array_equal(centers, ref)
    for q in range(n_q):
        ref_th = estimate_theta(R[ind[q]], ref[q], w[q], theta_max=np.inf)
        assert theta_mle(mean[q], m, theta_max=np.inf) == pytest.approx(ref_th, rel=1e-9)
    # the gathered batch kernel (used by the tree) agrees too
    c2, m2, _, _ = _run_kernel(R.ranks[ind], w)
    np.testing.assert_array_equal(c2, centers)
    np.testing.assert_allclose(m2, mean, rtol=1e-12)


def test_predict_centers_empty_and_dead_weights(rng):
    """All-absent neighbour rankings and Dudani weights of zero fall back as documented."""
    m = 4
    ranks = np.array([[-1, -1, -1, -1], [0, 1, -1, -1], [2, 1, 0, 3], [-1, -1, -1, -1]])
    R = Rankings(ranks)
    # query 0: k = 2, the nearest is empty, the other has Dudani weight 0 -> completeness
    # query 1: every neighbour empty -> uniform weights, generalised Borda = ties -> identity
    ind = np.array([[0, 1], [0, 3]], dtype=np.intp)
    dist = np.array([[0.0, 1.0], [0.0, 1.0]])
    ref, _ = _reference_centers(R, ind, dist, False)
    centers = np.empty((2, m), dtype=np.int64)
    out = np.empty(2), np.empty(2, dtype=np.int64), np.empty(2, bool)
    votes = generalized_borda_votes(R)
    _nb_predict_centers(
        R.ranks, votes, R.lengths / m, ind, dist, False, 100, False, CenterFits(centers, *out)
    )
    np.testing.assert_array_equal(centers, ref)
    np.testing.assert_array_equal(centers[1], [0, 1, 2, 3])
    assert np.isnan(out[0]).all()  # need_dist=False


def test_predict_centers_does_not_depend_on_order_within_the_set(rng):
    """Large-k searches hand the kernel unsorted sets: same centres (uniform: exact sums)."""
    n, m, k = 80, 5, 20
    R = random_rankings(rng, n, m, p_missing=0.3)
    ind, dist = _neighbour_matrix(rng, 30, n, k)
    perm = np.argsort(rng.random((30, k)), axis=1)
    votes = generalized_borda_votes(R)
    outs = []
    for i, d in (
        (ind, dist),
        (np.take_along_axis(ind, perm, 1), np.take_along_axis(dist, perm, 1)),
    ):
        c = np.empty((30, m), dtype=np.int64)
        _nb_predict_centers(
            R.ranks,
            votes,
            R.lengths / m,
            np.ascontiguousarray(i),
            np.ascontiguousarray(d),
            True,
            100,
            False,
            CenterFits(c, np.empty(30), np.empty(30, dtype=np.int64), np.empty(30, bool)),
        )
        outs.append(c)
    np.testing.assert_array_equal(outs[0], outs[1])


@pytest.mark.parametrize("p_missing", [0.0, 0.4])
@pytest.mark.parametrize("uniform", [True, False])
def test_loo_tau_matches_reference(rng, p_missing, uniform):
    """One pass over prefixes = a separate prediction and kendall_tau_rows for each k."""
    n, m, n_e, K = 70, 5, 25, 12
    R = random_rankings(rng, n, m, p_missing=p_missing, min_length=2)
    ind, dist = _neighbour_matrix(rng, n_e, n, K)
    truth_rows = rng.choice(n, size=n_e, replace=False)
    ks = np.array([2, 3, 5, 12])
    centers = np.empty((n_e, ks.size, m), dtype=np.int64)
    n_bad = np.empty(ks.size, dtype=np.int64)
    _nb_loo_centers(
        R.ranks,
        generalized_borda_votes(R),
        R.lengths / m,
        ind,
        dist,
        ks,
        uniform,
        100,
        centers,
        n_bad,
    )
    tau = np.column_stack(
        [kendall_tau_rows(R[truth_rows], c + 1) for c in centers.transpose(1, 0, 2)]
    )
    for g, k in enumerate(ks):
        ref, _ = _reference_centers(R, ind[:, :k], dist[:, :k], uniform)
        np.testing.assert_array_equal(tau[:, g], kendall_tau_rows(R[truth_rows], ref + 1))
    assert (n_bad == 0).all()


def test_distance_kernels_are_bit_identical_to_the_kd_tree(rng):
    from sklearn.neighbors import KDTree

    Z = rng.normal(size=(200, 7))
    Q = rng.normal(size=(30, 7))
    dist, ind = KDTree(Z).query(Q, k=9)
    out = np.empty_like(dist)
    _nb_exact_distances(Z, Q, ind, out)
    np.testing.assert_array_equal(out, dist)
    d2 = np.empty((30, 200))
    _nb_squared_distances(np.ascontiguousarray(Z.T), Q, d2)
    np.testing.assert_array_equal(np.sqrt(np.take_along_axis(d2, ind, 1)), dist)


@pytest.mark.parametrize("k", [1, 5, 29])
def test_nearest_scan_equals_a_brute_force_sort(rng, k):
    # grid features: many exact distance ties, and duplicate rows
    Z = rng.integers(0, 3, size=(60, 3)).astype(float)
    Q = np.vstack([Z[:10], rng.integers(0, 3, size=(5, 3)).astype(float)])
    exclude = np.r_[np.arange(10), np.full(5, -1)].astype(np.intp)
    dist = np.empty((15, k))
    ind = np.empty((15, k), dtype=np.intp)
    _nb_nearest(np.ascontiguousarray(Z.T), Q, exclude, dist, ind)
    for q in range(15):
        d = np.sqrt(((Q[q] - Z) ** 2).sum(axis=1))
        idx = np.arange(60)
        keep = idx != exclude[q]
        order = np.lexsort((idx[keep], d[keep]))[:k]  # by distance, then index
        np.testing.assert_array_equal(ind[q], idx[keep][order])
        np.testing.assert_array_equal(dist[q], d[keep][order])


def test_tau_per_k_equals_kendall_tau_rows(rng):
    R = random_rankings(rng, 40, 5, p_missing=0.3)
    positions = np.stack(
        [rng.permuted(np.tile(np.arange(5), (40, 1)), axis=1) for _ in range(3)], 1
    )
    tau = _tau_per_k(R.ranks, positions)
    for g in range(3):
        np.testing.assert_array_equal(tau[:, g], kendall_tau_rows(R, positions[:, g] + 1))


@pytest.mark.parametrize("name", ["glass", "wine", "stock"])
def test_the_compiled_scan_chooses_k_and_predicts_as_the_index_searches(name):
    # algorithm="auto" scans small training sets; "kd_tree" / "brute" take the index paths
    from rankclust.datasets import load_label_ranking

    X, Y = load_label_ranking(name)
    tr, te = np.arange(len(X)) % 4 != 0, np.arange(len(X)) % 4 == 0
    fits = [
        IBLRMallows(scaling="none", algorithm=a, random_state=0).fit(X[tr], Y[tr])
        for a in ("auto", "kd_tree", "brute")
    ]
    for other in fits[1:]:
        assert other.n_neighbors_ == fits[0].n_neighbors_
        assert other.cv_scores_ == fits[0].cv_scores_
        np.testing.assert_array_equal(other.predict(X[te]), fits[0].predict(X[te]))


@pytest.mark.parametrize("weights", ["uniform", "dudani"])
def test_unsorted_large_k_prediction_equals_sorted(rng, weights):
    X = rng.random((200, 3))
    R = random_rankings(rng, 200, 4, p_missing=0.2)
    model = IBLRMallows(n_neighbors=120, weights=weights).fit(X, R)
    Xq = rng.random((20, 3))
    d_sorted, i_sorted = model._neighbours(Xq)
    d_set, i_set = model._neighbours(Xq, sort=False)
    np.testing.assert_array_equal(np.sort(i_set, axis=1), np.sort(i_sorted, axis=1))
    np.testing.assert_array_equal(
        model._predict_from_neighbours(d_set, i_set),
        model._predict_from_neighbours(d_sorted, i_sorted),
    )


def test_grid_extension_scores_equal_a_fixed_grid_of_the_same_ks(rng):
    """Look-ahead extension: every score as a fixed grid gives it; stops at the first loser."""
    X = rng.random((400, 2))
    R = sample_mallows([0, 1, 2, 3, 4], 0.3, 400, random_state=1)
    grown = IBLRMallows(k_grid=(2, 5, 10), random_state=0).fit(X, R)
    ks = sorted(grown.cv_scores_)
    fixed = IBLRMallows(k_grid=tuple(ks), extend_grid=False, random_state=0).fit(X, R)
    assert fixed.cv_scores_ == grown.cv_scores_
    extension = ks[3:]  # 15, 23, ...: three looked-ahead steps per neighbour search
    assert all(
        b == min(int(np.ceil(1.5 * a)), 399) for a, b in zip(ks[2:-1], extension, strict=True)
    )
    # every extension step but the last was the best so far
    for j, k in enumerate(extension[:-1]):
        tried = {c: grown.cv_scores_[c] for c in ks[: 3 + j + 1]}
        assert max(tried, key=lambda c: (tried[c], -c)) == k


@pytest.mark.parametrize("cls", [IBLRMallows, IBLRPlackettLuce])
def test_default_standardises_features(rng, cls):
    """Codes of wildly different scales (seconds, prefecture numbers) are z-scored."""
    assert cls().scaling == "zscore"
    assert 'scaling : {"none", "minmax", "zscore"}, default="zscore"' in (IBLRMallows.__doc__)
    X = rng.normal(size=(50, 3)) * [1.0, 100.0, 0.01] + [0.0, 500.0, 3.0]
    R = random_rankings(rng, 50, 3)
    model = cls(n_neighbors=5).fit(X, R)
    Z = model._scale(X)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z.std(axis=0), 1.0)
    # the units of a feature do not matter any more
    rescaled = cls(n_neighbors=5).fit(X * [1000.0, 1.0, 1.0], R)
    np.testing.assert_allclose(rescaled._scale(X * [1000.0, 1.0, 1.0]), Z)
    raw = cls(n_neighbors=5, scaling="none").fit(X, R)
    np.testing.assert_array_equal(raw._scale(X), X)
    scaled = cls(n_neighbors=5, scaling="minmax").fit(X, R)
    assert scaled._scale(X).min() == 0.0 and scaled._scale(X).max() == 1.0


@pytest.mark.parametrize("n_features", [2, 12])
def test_leave_one_out_is_the_same_with_every_neighbour_search(rng, monkeypatch, n_features):
    """Full distance matrix (small sets), KD-tree / BLAS brute force: the same scores."""
    import rankclust.label_ranking.iblr as iblr_module

    X = rng.random((150, n_features))
    R = random_rankings(rng, 150, 4, p_missing=0.2)
    full = IBLRMallows(random_state=0).fit(X, R)
    monkeypatch.setattr(iblr_module, "_FULL_MATRIX_N", 0)
    searched = IBLRMallows(random_state=0).fit(X, R)
    assert searched.cv_scores_ == full.cv_scores_
    np.testing.assert_array_equal(searched.predict(X[:20]), full.predict(X[:20]))


# --------------------------------------------------------------------------------------------
# local Plackett-Luce fits (Newton kernel)
# --------------------------------------------------------------------------------------------
def _pl_kernel(R, ind, dist, uniform=False, alpha=0.1, max_iter=100, tol=1e-10):
    model = IBLRPlackettLuce(n_neighbors=ind.shape[1], weights="uniform" if uniform else "dudani")
    model.set_params(alpha=alpha, max_iter=max_iter, tol=tol)
    model.n_items_ = R.n_items
    model._prepare(R)
    return model._fit_scores(dist, ind)


@pytest.mark.parametrize("p_missing", [0.0, 0.4])
@pytest.mark.parametrize("uniform", [True, False])
def test_pl_kernel_matches_the_mm_reference(rng, p_missing, uniform):
    """Newton's optimum is the fixed point of Hunter's MM with the Gamma prior (fit_scores)."""
    R = random_rankings(rng, 30, 5, p_missing=p_missing)
    R = Rankings(R.ranks, weights=rng.integers(1, 4, 30).astype(float))
    ind = np.stack([rng.choice(30, 7, replace=False) for _ in range(6)])
    dist = rng.random((6, 7))
    scores, positions, converged = _pl_kernel(R, ind, dist, uniform=uniform)
    assert converged.all()
    w = np.ones((6, 7)) if uniform else dudani_weights(np.sort(dist, axis=1))
    for q in range(6):
        wq = w[q][np.argsort(np.argsort(dist[q]))]  # back to the order of ind[q]
        ref, _, ok = fit_scores(R[ind[q]], wq, alpha=0.1, max_iter=100000, tol=1e-13)
        assert ok
        np.testing.assert_allclose(scores[q], ref, atol=1e-8)
        gaps = np.diff(np.sort(ref))
        if gaps.min() > 1e-6:  # no near-tie: the order of the reference scores
            np.testing.assert_array_equal(np.argsort(positions[q]), np.argsort(-ref))


def test_pl_converges_on_a_hard_neighbourhood():
    """A label that always wins and a weak prior: MM needs thousands of updates."""
    Y = np.array([[0, 1, 2, 3], [0, 2, 1, 3], [0, 1, 2, 3], [0, 2, 1, 3], [0, 1, 2, 3]])
    R = Rankings(Y)
    _, _, mm_ok = fit_scores(R, np.ones(5), alpha=0.01, max_iter=100, tol=1e-4)
    assert not mm_ok  # the old per-query fit gave up here
    ref, _, _ = fit_scores(R, np.ones(5), alpha=0.01, max_iter=100000, tol=1e-13)
    ind = np.arange(5)[None, :]
    scores, positions, converged = _pl_kernel(
        R, ind, np.zeros((1, 5)), alpha=0.01, max_iter=100, tol=1e-4
    )
    assert converged.all()
    np.testing.assert_allclose(scores[0], ref, atol=1e-6)
    np.testing.assert_array_equal(positions[0], [0, 1, 2, 3])


def test_pl_equal_labels_tie_to_the_lower_index():
    R = Rankings(np.array([[0, 1, 2], [0, 2, 1]]))  # labels 1 and 2 symmetric
    _, positions, _ = _pl_kernel(R, np.array([[0, 1]]), np.zeros((1, 2)))
    np.testing.assert_array_equal(positions[0], [0, 1, 2])


def test_pl_leave_one_out_warm_starts_reach_the_same_fits(rng):
    X = rng.random((80, 3))
    R = random_rankings(rng, 80, 5, p_missing=0.3)
    model = IBLRPlackettLuce(n_neighbors=3, tol=1e-10).fit(X, R)
    evaluate = np.arange(0, 80, 4)
    dist, ind = model._kneighbors(model._scale(X[evaluate]), 21)
    is_self = ind == evaluate[:, None]
    order = np.argsort(is_self, axis=1, kind="stable")[:, :20]
    dist = np.ascontiguousarray(np.take_along_axis(dist, order, axis=1))
    ind = np.ascontiguousarray(np.take_along_axis(ind, order, axis=1))
    ks = [2, 5, 10, 20]
    tau, n_bad = model._loo_scores(dist, ind, model.rankings_.ranks[evaluate], ks)
    assert n_bad == 0
    truth = model.rankings_[evaluate]
    for g, k in enumerate(ks):
        pos = model._predict_from_neighbours(dist[:, :k], ind[:, :k])
        np.testing.assert_allclose(tau[:, g], kendall_tau_rows(truth, pos + 1))


def test_pl_non_convergence_is_one_warning_naming_max_iter(rng):
    X = rng.random((120, 2))
    R = random_rankings(rng, 120, 6, p_missing=0.3)
    model = IBLRPlackettLuce(max_iter=1, random_state=0)
    for call in (lambda: model.fit(X, R), lambda: model.predict(X[:50])):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        conv = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
        assert len(conv) == 1
        assert "max_iter=1" in str(conv[0].message) and "Increase max_iter" in str(conv[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        IBLRPlackettLuce(random_state=0).fit(X, R).predict(X[:50])  # default: converges


def test_pl_predict_scores_order_the_prediction(rng):
    X = rng.random((60, 2))
    R = random_rankings(rng, 60, 4, p_missing=0.2)
    model = IBLRPlackettLuce(n_neighbors=7).fit(X, R)
    scores = model.predict_scores(X[:10])
    np.testing.assert_allclose(scores.mean(axis=1), 0.0, atol=1e-12)
    pred = model.predict(X[:10])
    for q in range(10):
        assert np.all(np.diff(scores[q][np.argsort(pred[q])]) <= 1e-9)
