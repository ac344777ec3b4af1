"""Tests for rankclust.ordinal.baselines (MPCKMeans, CPMMC, CPCMMC)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from rankclust.ordinal.baselines import (
    CPCMMC,
    CPMMC,
    MPCKMeans,
    _adjacency,
    _icm_constrained,
    _nb_icm_constrained,
)
from tests.conftest import assert_same_partition


def _blobs(rng, k=3, per=20, gap=6.0):
    y = np.repeat(np.arange(k), per)
    X = rng.normal(0, 1, (k * per, 2))
    X[:, 0] += gap * y
    return X, y


def _agree(a, b):
    """Same partition up to relabelling."""
    return (
        np.all([np.unique(a[b == c]).size == 1 for c in np.unique(b)])
        and np.unique(a).size == np.unique(b).size
    )


def test_icm_kernel_matches_python_reference(rng):
    n, k = 40, 3
    ml = rng.integers(0, n, (15, 2))
    cl = rng.integers(0, n, (15, 2))
    ml, cl = ml[ml[:, 0] != ml[:, 1]], cl[cl[:, 0] != cl[:, 1]]
    indptr, nbr, is_ml, cons, pairs, _ = _adjacency(n, ml, cl)
    for _ in range(5):
        base = rng.random((n, k))
        dist = rng.random((len(pairs), k))
        maxd = dist.max(0) + 1
        labels = rng.integers(0, k, n)
        order = rng.permutation(np.flatnonzero(np.diff(indptr) > 0))
        l1, l2 = labels.copy(), labels.copy()
        c1 = _icm_constrained(order, base, indptr, nbr, is_ml, cons, dist, maxd, l1)
        c2 = _nb_icm_constrained(order, base, indptr, nbr, is_ml, cons, dist, maxd, l2)
        np.testing.assert_array_equal(l1, l2)
        assert c1 == c2


def test_mpckmeans_recovers_blobs_and_honours_constraints(rng):
    X, y = _blobs(rng)
    est = MPCKMeans(3, random_state=0).fit(X)
    assert _agree(est.labels_, y)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    # a heavily weighted cannot-link inside one blob splits it
    est2 = MPCKMeans(2, w_cannot=100.0, random_state=0).fit(
        X[:20], cannot_link=[[0, 1]], must_link=[[0, 2]]
    )
    assert est2.labels_[0] != est2.labels_[1] and est2.labels_[0] == est2.labels_[2]


@pytest.mark.parametrize("cls", [CPMMC, CPCMMC])
def test_mmc_separates_blobs(rng, cls):
    X, y = _blobs(rng, k=2, gap=10.0)
    est = cls(2, kernel="linear", n_init=5, random_state=0).fit(X)
    assert _agree(est.labels_, y)
    np.testing.assert_array_equal(est.predict(X), est.labels_)


def test_cpmmc_balance_l0_holds(rng):
    X, _ = _blobs(rng, k=3)
    est = CPMMC(3, kernel="rbf", gamma=0.1, n_components=30, random_state=0).fit(X)
    Phi = est.feature_map_.transform(X) - est.feature_mean_
    sums = est.coef_ @ Phi.sum(0)  # sum_i <w_p, phi_i> for each p: equal across p (l = 0)
    np.testing.assert_allclose(sums - sums.mean(), 0, atol=1e-8)


def test_cpcmmc_uses_pairs(rng):
    X, _ = _blobs(rng, k=2, gap=10.0)
    est = CPCMMC(2, kernel="linear", random_state=0).fit(
        X, must_link=[[0, 1]], cannot_link=[[0, 30]]
    )
    assert est.labels_[0] == est.labels_[1] != est.labels_[30]


@pytest.mark.parametrize("cls", [MPCKMeans, CPMMC, CPCMMC])
def test_contract_and_errors(rng, cls):
    X, _ = _blobs(rng, k=2, per=6)
    est = cls(2, random_state=3)
    assert clone(est).get_params() == est.get_params()
    a = clone(est).fit(X).labels_
    np.testing.assert_array_equal(a, clone(est).fit(X).labels_)
    assert set(np.unique(a)) <= {0, 1}
    Xn = X.copy()
    Xn[1, 1] = np.inf
    with pytest.raises(ValueError):
        est.fit(Xn)
    with pytest.raises(ValueError, match="n_clusters"):
        cls(50).fit(X)
    with pytest.raises(ValueError, match="must_link"):
        est.fit(X, must_link=[[0, 99]])


# ---------------------------------------------------------------------------- WSVORC, SMMCPC
from sklearn.metrics import adjusted_rand_score  # noqa: E402

from rankclust.ordinal.baselines import (  # noqa: E402
    SMMCPC,
    WSVORC,
    _best_off_diagonal,
    _robust_weights,
    _smmcpc_losses,
    _weighted_ridge,
)


def _line_blobs(rng, k=3, per=30, gap=6.0):
    y = np.repeat(np.arange(k), per)
    return np.c_[gap * y + rng.normal(size=k * per), rng.normal(size=k * per)], y


def test_wsvorc_recovers_ordered_blobs_and_orders_thresholds(rng):
    X, y = _line_blobs(rng)
    est = WSVORC(3, kernel="linear", C=10.0, random_state=0).fit(X)
    assert adjusted_rand_score(y, est.labels_) == 1.0
    assert np.all(np.diff(est.thresholds_) > 0)
    # the learned order is monotone in the true order (up to the unidentifiable direction)
    means = [est.labels_[y == c].mean() for c in range(3)]
    assert np.all(np.diff(means) > 0) or np.all(np.diff(means) < 0)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    scores = est.decision_function(X)
    np.testing.assert_array_equal((scores >= 0).sum(1), est.labels_)


@pytest.mark.parametrize("seed", range(6))
def test_wsvorc_numbers_levels_canonically_whatever_the_start(rng, seed):
    """Without side information the direction is not identified; the numbering must not follow
    the sign the start (or the rounding of a processor) gave: the first row is in level 0."""
    X, y = _line_blobs(rng)
    est = WSVORC(3, kernel="linear", C=10.0, random_state=seed).fit(X)
    np.testing.assert_array_equal(est.labels_, y)
    np.testing.assert_array_equal(est.predict(X), y)
    np.testing.assert_array_equal((est.decision_function(X) >= 0).sum(1), y)
    mirrored = WSVORC(3, kernel="linear", C=10.0, random_state=seed).fit(X[::-1])
    np.testing.assert_array_equal(mirrored.labels_, 2 - y[::-1])  # first row (y = 2) in level 0


def test_wsvorc_weighted_ridge_matches_lstsq(rng):
    Phi = rng.normal(size=(30, 4))
    t = rng.normal(size=30)
    v = rng.random(30) + 0.1
    C = 3.0
    w, c = _weighted_ridge(Phi, t, v, C)
    # brute force: the augmented normal equations with an unpenalised intercept
    A = np.c_[Phi, -np.ones(30)]
    H = C * (A.T * v) @ A + np.diag([1.0] * 4 + [0.0])
    sol = np.linalg.solve(H, C * A.T @ (v * t))
    np.testing.assert_allclose(np.r_[w, c], sol, atol=1e-10)


def test_wsvorc_robust_weights():
    e = np.r_[np.linspace(-1, 1, 10), 100.0]
    v = _robust_weights(e)
    assert v[-1] == pytest.approx(1e-4) and np.all(v[:-1] == 1.0)
    np.testing.assert_array_equal(_robust_weights(np.zeros(5)), np.ones(5))


def test_smmcpc_separates_blobs_and_honours_pairs(rng):
    X, y = _line_blobs(rng)
    ml = np.array([[0, 1], [40, 50], [70, 80]])
    cl = np.array([[0, 40], [40, 80], [0, 80]])
    est = SMMCPC(3, kernel="rbf", C=1.0, random_state=0).fit(X, must_link=ml, cannot_link=cl)
    assert adjusted_rand_score(y, est.labels_) == 1.0
    lab = est.labels_
    assert np.all(lab[ml[:, 0]] == lab[ml[:, 1]]) and np.all(lab[cl[:, 0]] != lab[cl[:, 1]])
    np.testing.assert_array_equal(est.predict(X), lab)


def test_smmcpc_strong_cannot_link_splits_a_blob(rng):
    X, _ = _blobs(rng, k=2, gap=10.0)
    # 0 and 1 sit in the same blob; a heavy cannot-link must separate them
    est = SMMCPC(2, kernel="rbf", gamma=0.5, C=100.0, n_init=5, random_state=0).fit(
        X, cannot_link=[[0, 1]]
    )
    assert est.labels_[0] != est.labels_[1]


def test_smmcpc_pair_losses_against_brute_force(rng):
    n, k = 12, 3
    S = rng.normal(size=(n, k))
    ml = np.array([[0, 1], [2, 3]])
    cl = np.array([[4, 5], [6, 7]])
    y = S.argmax(1)
    p_ml = (S[ml[:, 0]] + S[ml[:, 1]]).argmax(1)
    _, p_cl, q_cl = _best_off_diagonal(S[cl[:, 0]], S[cl[:, 1]])
    (ls, lp), M_s, M_p = _smmcpc_losses(S, ml, cl, (y, p_ml, p_cl, q_cl))

    def pair(i, j, same):
        both = [(p, q) for p in range(k) for q in range(k)]
        best_same = max(S[i, p] + S[j, p] for p in range(k))
        best_diff = max(S[i, p] + S[j, q] for p, q in both if p != q)
        m = best_same - best_diff if same else best_diff - best_same
        return max(0.0, 1 - m)

    want_p = sum(pair(i, j, True) for i, j in ml) + sum(pair(i, j, False) for i, j in cl)
    want_s = sum(max(0.0, 1 - (np.sort(s)[-1] - np.sort(s)[-2])) for s in S)
    assert lp == pytest.approx(want_p) and ls == pytest.approx(want_s)
    # the coefficient matrices are finite differences of the losses (a.e. differentiable)
    Phi = rng.normal(size=(n, 4))
    W = rng.normal(size=(k, 4))
    lin = (y, p_ml, p_cl, q_cl)
    (_, _), M_s, M_p = _smmcpc_losses(Phi @ W.T, ml, cl, lin)
    G = (M_s + M_p).T @ Phi
    E = np.zeros_like(W)
    E[1, 2] = 1e-7
    (a1, b1), _, _ = _smmcpc_losses(Phi @ (W + E).T, ml, cl, lin)
    (a0, b0), _, _ = _smmcpc_losses(Phi @ W.T, ml, cl, lin)
    assert (a1 + b1 - a0 - b0) / 1e-7 == pytest.approx(G[1, 2], abs=1e-4)


@pytest.mark.parametrize("cls", [WSVORC, SMMCPC])
def test_new_baselines_contract_and_errors(rng, cls):
    X, _ = _blobs(rng, k=2, per=6)
    est = cls(2, random_state=3)
    assert clone(est).get_params() == est.get_params()
    a = clone(est).fit(X)
    b = clone(est).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert set(np.unique(a.labels_)) <= {0, 1}
    Xn = X.copy()
    Xn[1, 1] = np.nan
    with pytest.raises(ValueError):
        est.fit(Xn)
    with pytest.raises(ValueError, match="n_clusters"):
        cls(50).fit(X)
    with pytest.raises(ValueError, match="n_clusters"):
        cls(1).fit(X)
    with pytest.raises(ValueError, match="C"):
        cls(2, C=-1.0).fit(X)
    with pytest.raises(ValueError, match="kernel"):
        cls(2, kernel="poly").fit(X)
    with pytest.raises(ValueError, match="cannot_link"):
        est.fit(X, cannot_link=[[0, 0]])


def test_smmcpc_param_validation():
    X = np.arange(20.0).reshape(10, 2)
    for bad in (dict(lam=0.0), dict(delta0=-1.0), dict(inner_iter=0), dict(tol=-1.0)):
        with pytest.raises(ValueError, match=next(iter(bad))):
            SMMCPC(2, **bad).fit(X)
    with pytest.raises(ValueError, match="weighted"):
        WSVORC(2, weighted="yes").fit(X)


@pytest.mark.parametrize("cls", [MPCKMeans, CPMMC, CPCMMC, WSVORC, SMMCPC])
def test_huge_features_fit_like_unit_features(cls):
    """gamma="scale" RBF is scale invariant: X * 1e300 fits exactly as X does."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(10, 2)), rng.normal(size=(10, 2)) + 4.0])
    kw = {} if cls is MPCKMeans else dict(n_components=20)
    a = cls(2, random_state=0, **kw).fit(X)
    if cls is MPCKMeans:
        return  # no feature map; covered by its own checks
    b = cls(2, random_state=0, **kw).fit(X * 1e300)
    if cls is WSVORC:  # ordered levels in the canonical direction: the numbering is the contract
        np.testing.assert_array_equal(a.labels_, b.labels_)
    else:  # unordered clusters: which number a cluster gets may follow rounding
        assert_same_partition(a.labels_, b.labels_)
    np.testing.assert_array_equal(b.predict(X * 1e300), b.labels_)


@pytest.mark.parametrize("cls", [CPMMC, WSVORC, SMMCPC])
def test_huge_features_refused_where_not_scale_invariant(cls):
    X = np.vstack([np.zeros((5, 2)), np.ones((5, 2))]) * 1e300
    with pytest.raises(ValueError, match="overflow"):
        cls(2, kernel="linear", random_state=0).fit(X)
    with pytest.raises(ValueError, match="overflow"):
        cls(2, kernel="rbf", gamma=0.1, random_state=0).fit(X)
