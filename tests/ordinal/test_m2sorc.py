"""Tests for rankclust.ordinal.m2sorc: closed forms, linearisations, CCCP, estimator contract."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from rankclust.ordinal import M2SORC, ranking_pairs_from_labels
from rankclust.ordinal import m2sorc as M

BIG = 1e9  # finite stand-in for b_0 = -inf, b_k = +inf in the paper's literal expressions


def _random_instance(rng, k, n=40):
    b = np.sort(rng.normal(0, 3, k - 1))
    a = rng.normal(0, 4, n)
    return a, b


def _literal_h(a, b):
    """Theorem 2 literally: max_i [(b_i - b_{i-1})/2 - |a - (b_{i-1} + b_i)/2|]."""
    full = np.concatenate([[-BIG], b, [BIG]])
    g = (full[1:] - full[:-1])[None] / 2 - np.abs(a[:, None] - (full[:-1] + full[1:])[None] / 2)
    return g.max(1), g.argmax(1)


def _literal_d(a1, a2, b):
    """Theorem 3 literally: min_i |a1 - b_i| + |a2 - b_i| - (a1 - a2)."""
    s = np.abs(a1[:, None] - b) + np.abs(a2[:, None] - b) - (a1 - a2)[:, None]
    return s.min(1)


def _literal_balance(a, b):
    """Theorem 4 literally, i = 1..k-2 (odd k): sum (a - b_i)/(k-2i) - sum (a - b_{i+1})/(k-2i-2)."""
    k = b.shape[0] + 1
    return np.array(
        [
            np.sum(a - b[i - 1]) / (k - 2 * i) - np.sum(a - b[i]) / (k - 2 * i - 2)
            for i in range(1, k - 1)
        ]
    )


@pytest.mark.parametrize("k", [2, 3, 5, 7])
def test_closed_forms_match_literal_formulation(rng, k):
    for _ in range(20):
        a, b = _random_instance(rng, k)
        h_lit, arg = _literal_h(a, b)
        np.testing.assert_allclose(M._margin_h(a, b), h_lit, atol=1e-6)
        np.testing.assert_array_equal(arg, M._assign(a, b))  # no exact ties in random data
        a1, a2 = rng.normal(0, 4, 30), rng.normal(0, 4, 30)
        np.testing.assert_allclose(M._ranking_d(a1, a2, b), _literal_d(a1, a2, b), atol=1e-9)
        if k % 2 == 1 and k >= 3:
            np.testing.assert_allclose(M._balance_residuals(a, b), _literal_balance(a, b))


def test_ranking_loss_zero_iff_strictly_higher_cluster(rng):
    a, b = _random_instance(rng, 5, n=200)
    pairs = rng.integers(0, 200, (300, 2))
    d = M._ranking_d(a[pairs[:, 0]], a[pairs[:, 1]], b)
    lab = M._assign(a, b)
    np.testing.assert_array_equal(d == 0, lab[pairs[:, 0]] > lab[pairs[:, 1]])


def test_cleared_balance_rows_equal_theorem4_for_odd_k(rng):
    for k in (3, 5, 7, 9):
        a, b = _random_instance(rng, k, n=25)
        c_i, c_i1, scale = M._balance_terms(k)
        cleared = -2 * a.mean() + c_i * b[:-1] + c_i1 * b[1:]  # D_i / n
        signs = np.sign((k - 2.0 * np.arange(1, k - 1)) * (k - 2.0 * np.arange(1, k - 1) - 2))
        np.testing.assert_allclose(
            cleared * a.shape[0] / (scale * signs), M._balance_residuals(a, b), rtol=1e-10
        )


@pytest.mark.parametrize("linearization", ["paper", "majorize"])
def test_linearisations_are_exact_at_the_expansion_point(rng, linearization):
    k, n = 5, 60
    a, b = _random_instance(rng, k, n=n)
    pairs = rng.integers(0, n, (50, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    mrows = M._margin_rows(a, b, linearization)
    loss, _ = M._group_loss(mrows, a, b, n)
    np.testing.assert_allclose(loss, np.maximum(0, 1 - M._margin_h(a, b)), atol=1e-12)
    if linearization == "paper":  # one row per sample whose value is exactly 1 - h
        np.testing.assert_allclose(mrows.values(a, b), 1 - M._margin_h(a, b), atol=1e-12)
    rrows = M._ranking_rows(pairs, a, b, linearization)
    rloss, _ = M._group_loss(rrows, a, b, len(pairs))
    np.testing.assert_allclose(rloss, M._ranking_d(a[pairs[:, 0]], a[pairs[:, 1]], b), atol=1e-12)


def test_majorize_rows_bound_the_true_losses_everywhere(rng):
    """Inner approximation: at any other (a', b'), the rows' hinge >= the true hinge."""
    k, n = 5, 60
    a, b = _random_instance(rng, k, n=n)
    pairs = rng.integers(0, n, (80, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    mrows = M._margin_rows(a, b, "majorize")
    rrows = M._ranking_rows(pairs, a, b, "majorize")
    for _ in range(20):
        a2 = a + rng.normal(0, 3, n)
        b2 = np.sort(b + rng.normal(0, 2, k - 1))
        lm, _ = M._group_loss(mrows, a2, b2, n)
        lr, _ = M._group_loss(rrows, a2, b2, len(pairs))
        assert np.all(lm >= np.maximum(0, 1 - M._margin_h(a2, b2)) - 1e-12)
        assert np.all(lr >= M._ranking_d(a2[pairs[:, 0]], a2[pairs[:, 1]], b2) - 1e-12)


def _ordinal_blobs(rng, k=5, per=20, spread=0.6, gap=4.0, d=2):
    y = np.repeat(np.arange(k), per)
    X = rng.normal(0, spread, (k * per, d))
    X[:, 0] += gap * y
    return X, y


def test_mirror_rule_keeps_the_lexicographically_smaller_numbering():
    assert not M._mirror_is_canonical(np.array([0, 0, 1, 2]), 3)
    assert M._mirror_is_canonical(np.array([2, 0, 1]), 3)
    assert M._mirror_is_canonical(np.array([1, 1, 2, 0]), 3)  # first row in the middle level
    assert not M._mirror_is_canonical(np.array([1, 1, 1]), 3)  # its own mirror image


@pytest.mark.filterwarnings("ignore:every M2SORC start")
@pytest.mark.parametrize("seed", range(4))
def test_unsupervised_fit_numbers_levels_canonically(rng, seed):
    """Without pairs the direction is arbitrary; the numbering follows the stated rule, not the
    sign of the solver's w (which rounding can flip on another processor)."""
    X, _y = _ordinal_blobs(rng, k=3, per=10)
    est = M2SORC(3, kernel="linear", n_init=1, random_state=seed).fit(X)
    assert not M._mirror_is_canonical(est.labels_, 3)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    np.testing.assert_array_equal((est.decision_function(X) >= 0).sum(1), est.labels_)
    assert np.all(np.diff(est.thresholds_) > 0)


def test_qp_with_zero_balance_gives_equally_spaced_centred_thresholds(rng):
    X, y = _ordinal_blobs(rng)
    pairs = ranking_pairs_from_labels(y, 10, random_state=0)
    est = M2SORC(5, kernel="linear", balance=0.0, n_init=1, random_state=0).fit(X, pairs=pairs)
    b = est.thresholds_
    a_mean = (X @ est.coef_).mean()
    np.testing.assert_allclose(np.diff(b), np.diff(b)[0], atol=1e-5 * max(1, abs(b).max()))
    np.testing.assert_allclose((b[0] + b[-1]) / 2, a_mean, atol=1e-5 * max(1, abs(b).max()))


@pytest.mark.filterwarnings("ignore:every M2SORC start")
def test_majorize_cccp_objective_is_monotone(rng):
    for seed in range(3):
        X = rng.normal(size=(50, 3))
        y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=50), [-1, -0.3, 0.3, 1])
        pairs = ranking_pairs_from_labels(y, 15, random_state=seed)
        est = M2SORC(
            5,
            kernel="linear",
            linearization="majorize",
            init="random",
            n_init=1,
            tol=0.0,
            max_iter=15,
            C1=1.0,
            C2=2.0,
            random_state=seed,
        ).fit(X, pairs=pairs)
        path = np.asarray(est.objective_path_)
        assert len(path) >= 2
        assert np.all(np.diff(path) <= 1e-6 * np.abs(path[:-1]) + 1e-7), path
        # each QP value is at most the true objective at its expansion point, and at least
        # the true objective at its solution (inner approximation, tight at the expansion)
        qp = np.asarray(est.qp_objective_path_)
        assert np.all(qp <= path[:-1] * (1 + 1e-6) + 1e-7)
        assert np.all(qp >= path[1:] * (1 - 1e-6) - 1e-7)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_recovers_ordered_blobs_without_matching(rng, kernel):
    X, y = _ordinal_blobs(rng)
    pairs = ranking_pairs_from_labels(y, 10, random_state=1)
    est = M2SORC(5, kernel=kernel, gamma=0.01, C1=1.0, C2=1.0, n_init=2, random_state=0)
    est.fit(X, pairs=pairs)
    assert np.mean(est.labels_ == y) >= 0.95
    assert np.all(np.diff(est.thresholds_) >= -1e-9)
    assert set(np.unique(est.labels_)) <= set(range(5))
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    f = est.decision_function(X)
    assert f.shape == (100, 4)
    np.testing.assert_array_equal((f >= 0).sum(1), est.labels_)
    assert est.n_iter_ >= 1 and est.n_iter_per_init_.shape == (2,)


def test_labels_order_follows_the_pairs(rng):
    X, y = _ordinal_blobs(rng, k=3)
    rev = 2 - y  # the same data ranked the other way round
    for target in (y, rev):
        pairs = ranking_pairs_from_labels(target, 8, random_state=0)
        est = M2SORC(3, kernel="linear", n_init=2, random_state=0).fit(X, pairs=pairs)
        assert np.mean(est.labels_ == target) >= 0.95


def test_even_k_and_k2(rng):
    X, y = _ordinal_blobs(rng, k=4)
    est = M2SORC(4, kernel="linear", n_init=1, random_state=0)
    est.fit(X, pairs=ranking_pairs_from_labels(y, 10, random_state=0))
    assert np.mean(est.labels_ == y) >= 0.9
    # the cleared balance constraint pins the middle threshold to the mean projection
    np.testing.assert_allclose(est.thresholds_[1], (X @ est.coef_).mean(), atol=1e-5)
    X2, y2 = _ordinal_blobs(rng, k=2)
    est2 = M2SORC(2, kernel="linear", n_init=1, random_state=0)
    est2.fit(X2, pairs=ranking_pairs_from_labels(y2, 5, random_state=0))
    assert np.mean(est2.labels_ == y2) >= 0.95


def test_reproducible_and_clonable(rng):
    X, y = _ordinal_blobs(rng, k=3, per=15)
    pairs = ranking_pairs_from_labels(y, 6, random_state=0)
    est = M2SORC(3, kernel="rbf", n_components=20, n_init=2, random_state=7)
    l1 = est.fit(X, pairs=pairs).labels_.copy()
    l2 = clone(est).fit(X, pairs=pairs).labels_
    np.testing.assert_array_equal(l1, l2)
    np.testing.assert_allclose(clone(est).fit(X, pairs=pairs).coef_, est.coef_)
    params = est.get_params()
    assert params["n_clusters"] == 3 and params["random_state"] == 7
    assert clone(est).set_params(C1=2.0).get_params()["C1"] == 2.0


def test_bad_input(rng):
    X, _ = _ordinal_blobs(rng, k=3, per=5)
    est = M2SORC(3, kernel="linear", n_init=1)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit(Xn, pairs=[[0, 1]])
    with pytest.raises(ValueError, match="outside"):
        est.fit(X, pairs=[[0, 15]])
    with pytest.raises(ValueError, match="itself"):
        est.fit(X, pairs=[[2, 2]])
    with pytest.raises(ValueError, match="shape"):
        est.fit(X, pairs=[0, 1])
    with pytest.raises(ValueError, match="n_clusters"):
        M2SORC(20, kernel="linear").fit(X, pairs=[[0, 1]])
    with pytest.raises(ValueError, match="C1"):
        M2SORC(3, C1=-1.0).fit(X)
    with pytest.raises(ValueError, match="linearization"):
        M2SORC(3, linearization="nope").fit(X)
    fitted = est.fit(X, pairs=[[10, 0]])
    with pytest.raises(ValueError):
        fitted.predict(X[:, :1])


def test_huge_features_fit_exactly_like_unit_features(rng):
    """Regression (reliability 'huge-X'): X * 1e300 died in numpy's SVD. With gamma="scale"
    the RBF model is scale invariant, and the features are rescaled internally by a power of
    two; where it is not (linear kernel, numeric gamma) a clear ValueError is raised."""
    X, y = _ordinal_blobs(rng, k=3, per=8)
    pairs = ranking_pairs_from_labels(y, 5, random_state=0)
    est = M2SORC(3, n_components=20, n_init=1, random_state=0)
    a = clone(est).fit(X, pairs=pairs)
    b = clone(est).fit(X * 1e300, pairs=pairs)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(b.predict(X * 1e300), b.labels_)
    assert np.all(np.isfinite(b.decision_function(X * 1e300)))
    with pytest.raises(ValueError, match="overflow"):
        M2SORC(3, kernel="linear", n_init=1).fit(X * 1e300, pairs=pairs)
    with pytest.raises(ValueError, match="overflow"):
        M2SORC(3, gamma=0.5, n_init=1).fit(X * 1e300, pairs=pairs)


@pytest.mark.filterwarnings("ignore:every M2SORC start")  # agreement is what is tested
@pytest.mark.parametrize("linearization", ["paper", "majorize"])
def test_ipm_and_clarabel_fits_agree(rng, linearization):
    """The default structured QP solver and Clarabel end CCCP at the same fixed point."""
    X, y = _ordinal_blobs(rng, k=4, per=15, spread=1.0, gap=3.0)
    pairs = ranking_pairs_from_labels(y, 12, random_state=0)
    fits = {
        solver: M2SORC(
            4,
            kernel="rbf",
            gamma=0.1,
            n_components=30,
            linearization=linearization,
            n_init=2,
            solver=solver,
            random_state=0,
        ).fit(X, pairs=pairs)
        for solver in ("ipm", "qdldl")
    }
    a, b = fits["ipm"], fits["qdldl"]
    np.testing.assert_array_equal(a.labels_, b.labels_)
    # Clarabel's default tolerances (1e-8 on the gap) fix w only to ~1e-5 (error ~ sqrt(gap));
    # the QP-level agreement at tight tolerances is tested in tests/ordinal/test__qp.py
    scale = np.abs(b.coef_).max()
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-3 * scale)
    np.testing.assert_allclose(a.thresholds_, b.thresholds_, rtol=0, atol=1e-3 * scale)
    # the first QP is the same problem; later ones may differ where a sample sits within
    # solver noise of a threshold (its linearisation flips), but the fixed point is the same
    assert a.qp_objective_path_[0] == pytest.approx(b.qp_objective_path_[0], rel=1e-6)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-4)
