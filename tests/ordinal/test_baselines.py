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
