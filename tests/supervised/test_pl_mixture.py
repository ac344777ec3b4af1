"""Tests of PrototypePLMixture (MM-PL; rankclust.supervised.pl_mixture)."""

import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.base import clone

from rankclust import Rankings
from rankclust.exceptions import EmptyClusterWarning
from rankclust.models.plackett_luce import choice_stages, loglik_rows
from rankclust.supervised import PrototypePLMixture, make_circle, pl_mixture
from rankclust.supervised.pl_mixture import (
    SGDData,
    SGDModel,
    SGDSettings,
    _init_prototypes,
    _instance_gradient,
    _mean_nll,
    _nb_mean_nll,
    _nb_sgd_epoch,
    _sq_dists,
)
from tests.supervised._helpers import ORDERS, blobs, recovered

TRUE = {tuple(o) for o in ORDERS}


def _loglik(x, order, protos, cluster, Z, sigma):
    """log sum_k g_k e_k for one instance, computed independently of the module."""
    K, m = Z.shape
    a = -((x - protos) ** 2).sum(axis=1) / (2 * sigma**2)
    logw = a - logsumexp(a)
    logg = np.array([logsumexp(logw[cluster == k]) for k in range(K)])
    pos = np.full(m, -1)
    pos[order] = np.arange(len(order))
    loge = loglik_rows(Rankings([pos]), Z)[0]
    return logsumexp(logg + loge)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_obs", [5, 3, 2])
def test_corrected_gradient_matches_finite_differences(seed, n_obs):
    rng = np.random.default_rng(seed)
    K, P, d, m = 3, 2, 2, 5
    protos = rng.normal(size=(K * P, d))
    cluster = np.repeat(np.arange(K), P)
    Z = rng.normal(size=(K, m))
    x = rng.normal(size=d)
    order = rng.permutation(m)[:n_obs]
    sigma = 0.8
    gp, gz, ll = _instance_gradient(x, order, protos, cluster, Z, sigma)
    assert ll == pytest.approx(_loglik(x, order, protos, cluster, Z, sigma))
    eps = 1e-6
    for idx in np.ndindex(protos.shape):
        up, dn = protos.copy(), protos.copy()
        up[idx] += eps
        dn[idx] -= eps
        fd = _loglik(x, order, up, cluster, Z, sigma) - _loglik(x, order, dn, cluster, Z, sigma)
        assert gp[idx] == pytest.approx(fd / (2 * eps), abs=1e-6)
    for idx in np.ndindex(Z.shape):
        up, dn = Z.copy(), Z.copy()
        up[idx] += eps
        dn[idx] -= eps
        fd = _loglik(x, order, protos, cluster, up, sigma) - _loglik(
            x, order, protos, cluster, dn, sigma
        )
        assert gz[idx] == pytest.approx(fd / (2 * eps), abs=1e-6)
    missing = np.setdiff1d(np.arange(m), order)
    assert (gz[:, missing] == 0).all()


def test_printed_prototype_rule_is_not_the_gradient():
    # the printed factor (1 - h) differs from the corrected (h - g): a regression guard
    rng = np.random.default_rng(0)
    protos = rng.normal(size=(4, 2))
    cluster = np.array([0, 0, 1, 1])
    Z = rng.normal(size=(2, 4))
    x = rng.normal(size=2)
    gp, _, _ = _instance_gradient(x, np.arange(4), protos, cluster, Z, 1.0)
    a = -((x - protos) ** 2).sum(axis=1) / 2
    w = np.exp(a - logsumexp(a))
    g = np.array([w[:2].sum(), w[2:].sum()])
    e = np.exp(loglik_rows(Rankings([np.arange(4)]), Z)[0])
    h = g * e / (g * e).sum()
    printed = -(w * (1 - h[cluster]) / g[cluster])[:, None] * (x - protos)
    assert not np.allclose(printed, gp)


def test_kernel_step_is_gamma_times_gradient():
    rng = np.random.default_rng(3)
    K, P, d, m = 2, 3, 2, 4
    protos = rng.normal(size=(K * P, d))
    cluster = np.repeat(np.arange(K), P).astype(np.int64)
    Z = rng.normal(size=(K, m))
    X = rng.normal(size=(1, d))
    order = np.array([[2, 0, 3, 1]], dtype=np.int64)
    gp, gz, _ = _instance_gradient(X[0], order[0], protos, cluster, Z, 0.7)
    p2, Z2 = protos.copy(), Z.copy()
    gamma = 1e-3
    H = np.zeros((1, K))
    big = 1e12  # gamma and sigma stay constant over the step
    t = _nb_sgd_epoch(SGDData(X, order, np.array([4])), np.array([0]),
                      SGDModel(p2, cluster, Z2), 0,
                      SGDSettings(gamma, big, 0.7, big, 1e9, 1.0, False, True, False), H, H)  # fmt: skip
    assert t == 1
    np.testing.assert_allclose(p2 - protos, gamma * gp, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(Z2 - Z, gamma * gz, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(H.sum(), 1.0)
    # the prototype gain (sigma_0^2 for prototype_step="relative") scales the prototype step
    # only; the score step is unchanged
    p3, Z3 = protos.copy(), Z.copy()
    _nb_sgd_epoch(SGDData(X, order, np.array([4])), np.array([0]), SGDModel(p3, cluster, Z3),
                  0, SGDSettings(gamma, big, 0.7, big, 1e9, 2.5, False, True, False), H, H)  # fmt: skip
    np.testing.assert_allclose(p3 - protos, 2.5 * gamma * gp, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(Z3, Z2, rtol=1e-12)


def test_instances_without_pairs_do_not_move_anything():
    protos = np.array([[0.0, 0.0], [1.0, 1.0]])
    Z = np.zeros((2, 3))
    H = np.zeros((1, 2))
    p2, Z2 = protos.copy(), Z.copy()
    _nb_sgd_epoch(SGDData(np.array([[0.5, 0.2]]), np.array([[1, 0, 0]], dtype=np.int64),
                          np.array([1])), np.array([0]), SGDModel(p2, np.array([0, 1]), Z2), 0,
                  SGDSettings(0.1, 10.0, 1.0, 10.0, 1.0, 1.0, False, True, False), H, H)  # fmt: skip
    np.testing.assert_array_equal(p2, protos)
    np.testing.assert_array_equal(Z2, Z)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    ("params", "p_missing"),
    [
        ({}, 0.0),
        ({}, 0.4),
        ({"e_step": "batch"}, 0.0),
        ({"e_step": "batch"}, 0.4),
        ({"m_step": "v2"}, 0.0),
        ({"stop_on": "loss"}, 0.0),
        ({"prototype_budget": 6}, 0.0),
        ({"init": "random"}, 0.0),
        ({"init": "random"}, 0.4),
        ({"prototype_step": "absolute"}, 0.0),
        ({"prototype_step": "absolute"}, 0.4),
    ],
)
def test_recovers_blob_rankings(params, p_missing):
    X, Y, y = blobs(p_missing=p_missing)
    est = PrototypePLMixture(3, n_prototypes_per_cluster=2, random_state=0, **params).fit(X, Y)
    assert recovered(est) == TRUE
    pred = est.predict_ranking(X) - 1
    assert (pred == np.argsort(ORDERS[y], axis=1)).all(axis=1).mean() > 0.97
    assert est.prototypes_.shape == (6, 2)
    np.testing.assert_allclose(est.scores_.mean(axis=1), 0, atol=1e-9)
    np.testing.assert_allclose(est.predict_proba(X).sum(axis=1), 1)
    assert len(est.loss_curve_) == est.n_iter_
    assert est.train_loss_ == pytest.approx(min(est.loss_curve_))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_circle_recovery_smoke():
    # Table 4 (decisions.md G15, G17): MM-PL with K P = 90 recovers the class rankings on circle
    X, Y, _ = make_circle(2000, random_state=0)
    est = PrototypePLMixture(3, n_prototypes_per_cluster=30, random_state=0).fit(X, Y)
    assert recovered(est) == {(0, 1, 2, 3, 4, 5), (5, 4, 3, 2, 1, 0), (2, 0, 5, 1, 4, 3)}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_deterministic_given_seed_and_clone():
    X, Y, _ = blobs(10)
    a = PrototypePLMixture(3, n_prototypes_per_cluster=2, random_state=5).fit(X, Y)
    b = clone(a).fit(X, Y)
    np.testing.assert_array_equal(a.prototypes_, b.prototypes_)
    np.testing.assert_array_equal(a.scores_, b.scores_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_fewer_points_than_prototypes():
    X, Y, _ = blobs(2)
    est = PrototypePLMixture(3, n_prototypes_per_cluster=4, random_state=0).fit(X, Y)
    assert est.prototypes_.shape == (12, 2)


def test_validation():
    with pytest.raises(ValueError, match="e_step"):
        PrototypePLMixture(e_step="x").fit(np.zeros((3, 1)), [[1, 2]] * 3)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_patience_trains_at_least_as_long():
    X, Y, _ = blobs(15, p_missing=0.3)
    a = PrototypePLMixture(3, n_prototypes_per_cluster=2, n_iter_no_change=1, random_state=1)
    a.fit(X, Y)
    b = PrototypePLMixture(3, n_prototypes_per_cluster=2, n_iter_no_change=5, random_state=1)
    b.fit(X, Y)
    assert b.n_iter_ >= a.n_iter_
    # identical runs up to the first stop: the same first epochs
    np.testing.assert_allclose(b.nll_curve_[: a.n_iter_], a.nll_curve_)


@pytest.mark.parametrize("seed", range(3))
def test_kmeans_init_gives_each_cluster_one_cell(seed):
    X, _, y = blobs(20, seed=seed)
    rng = np.random.RandomState(seed)
    protos = _init_prototypes(X, 3, 4, "kmeans", rng)
    assert protos.shape == (12, 2)
    # every prototype is a training point; a cluster's four come from one blob, and the three
    # clusters from three different blobs
    idx = np.array([np.flatnonzero((X == p).all(axis=1))[0] for p in protos])
    blob = y[idx].reshape(3, 4)
    assert (blob == blob[:, :1]).all()
    assert set(blob[:, 0]) == {0, 1, 2}
    assert len(set(idx)) == 12


def test_random_init_draws_distinct_training_points():
    X, _, _ = blobs(20)
    protos = _init_prototypes(X, 3, 4, "random", np.random.RandomState(0))
    assert len({tuple(p) for p in protos}) == 12
    assert all((X == p).all(axis=1).any() for p in protos)


def test_init_with_fewer_points_than_prototypes_jitters_repeats():
    X, _, _ = blobs(2)  # 6 points, 12 prototypes
    for init in ("kmeans", "random"):
        protos = _init_prototypes(X, 3, 4, init, np.random.RandomState(0))
        assert len({tuple(p) for p in protos}) == 12
        assert np.abs(protos[:, None] - X[None]).sum(axis=2).min(axis=1).max() < 0.05


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_annealing_rise_of_the_likelihood_does_not_stop_training():
    # rankings independent of the features: the likelihood at the current (shrinking) width
    # rises after the first epoch, but the updates still improve it at equal width, so the
    # paper's "stop when l stops decreasing" (n_iter_no_change=1) must not fire there
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    Y = Rankings(np.argsort(rng.random((200, 5)), axis=1))
    est = PrototypePLMixture(3, n_prototypes_per_cluster=4, n_iter_no_change=1, random_state=2)
    est.fit(X, Y)
    rises = np.flatnonzero(np.diff(est.nll_curve_) > 0)
    assert rises.size and rises[0] + 2 < est.n_iter_


def _reference_joint(X, stages, protos, cluster, Z, sigma):
    """``log g_nk + log e_nk`` from scratch, numpy only (eqs. 21-23)."""
    a = -((X[:, None, :] - protos[None]) ** 2).sum(axis=2) / (2 * sigma**2)
    logw = a - logsumexp(a, axis=1, keepdims=True)
    K = Z.shape[0]
    logg = np.stack([logsumexp(logw[:, cluster == k], axis=1) for k in range(K)], axis=1)
    return logg + loglik_rows(stages, Z)


def _reference_nll(X, stages, protos, cluster, Z, sigma):
    """Mean negative log-likelihood (eq. 25)."""
    return float(-logsumexp(_reference_joint(X, stages, protos, cluster, Z, sigma), axis=1).mean())


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("scale", [1e-2, 30.0])
def test_relative_prototype_step_is_invariant_to_the_feature_scale(scale):
    # prototype_step="relative": the prototype learning rate is gamma sigma_0^2 and sigma_0
    # scales with the features, so the fraction of the way a prototype moves towards x_n --
    # and with it the whole fit -- does not depend on the units of X; with "absolute" (eq.
    # 30 with a unitless gamma) it does
    X, Y, _ = blobs(15, p_missing=0.3, seed=1)
    kw = dict(n_prototypes_per_cluster=2, standardize=False, max_epochs=15, random_state=3)
    a = PrototypePLMixture(3, **kw).fit(X, Y)
    b = PrototypePLMixture(3, **kw).fit(scale * X, Y)
    np.testing.assert_allclose(b.prototypes_, scale * a.prototypes_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(b.scores_, a.scores_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(b.nll_curve_, a.nll_curve_, rtol=1e-6)
    c = PrototypePLMixture(3, prototype_step="absolute", **kw).fit(X, Y)
    with warnings.catch_warnings():
        # the unscaled steps may leave a cluster without a nearest instance (dropped)
        warnings.simplefilter("ignore", EmptyClusterWarning)
        d = PrototypePLMixture(3, prototype_step="absolute", **kw).fit(scale * X, Y)
    assert d.prototypes_.shape != c.prototypes_.shape or not np.allclose(
        d.prototypes_, scale * c.prototypes_, rtol=1e-3
    )


@pytest.mark.parametrize("sigma", [3.0, 0.3, 0.02])
def test_fused_nll_matches_numpy_reference(sigma):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    R = np.argsort(rng.random((40, 5)), axis=1)
    R[:5][R[:5] >= 3] = -1  # partial rankings: top 3 of 5
    Y = Rankings(R)
    stages = choice_stages(Y)
    protos = rng.normal(size=(6, 3))
    cluster = np.repeat(np.arange(3), 2)
    Z = rng.normal(size=(3, 5))
    want = _reference_nll(X, stages, protos, cluster, Z, sigma)
    D, LZ = _sq_dists(X, protos), loglik_rows(stages, Z)
    assert _nb_mean_nll(D, LZ, cluster, sigma) == pytest.approx(want, rel=1e-12)
    assert _mean_nll(D, LZ, cluster, sigma) == pytest.approx(want, rel=1e-12)


def _reference_fit(X, Y, K, P, seed, e_step, tol, n_iter_no_change, max_epochs):
    """The fitting loop written plainly: every likelihood evaluated from scratch, no caching."""
    rng = np.random.RandomState(seed)
    n, m = X.shape[0], Y.n_items
    cluster = np.repeat(np.arange(K, dtype=np.int64), P)
    protos = _init_prototypes(X, K, P, "kmeans", rng)
    Z = np.log(np.clip(rng.normal(1.0, 0.1, (K, m)), 1e-3, None))
    sigma0 = float(np.sqrt(X.var(axis=0).sum()))
    T = 8.0 * n
    present = Y.ranks >= 0
    lengths = present.sum(axis=1).astype(np.int64)
    orders = np.argsort(np.where(present, Y.ranks, m), axis=1, kind="stable").astype(np.int64)
    stages = choice_stages(Y)
    H, H_given = np.zeros((n, K)), np.zeros((n, K))
    t, stall, curve = 0, 0, []
    for epoch in range(1, max_epochs + 1):
        if e_step == "batch":
            b = _reference_joint(X, stages, protos, cluster, Z, sigma0 * T / (T + t))
            H_given = np.exp(b - logsumexp(b, axis=1, keepdims=True))
        prev_protos, prev_Z = protos.copy(), Z.copy()
        t = _nb_sgd_epoch(
            SGDData(X, orders, lengths), rng.permutation(n).astype(np.int64),
            SGDModel(protos, cluster, Z), t,
            SGDSettings(0.03, T, sigma0, T, 1.0, sigma0**2, e_step == "batch", True, False),
            H_given, H,
        )  # fmt: skip
        Z -= Z.mean(axis=1, keepdims=True)
        sigma = sigma0 * T / (T + t)
        nll = _reference_nll(X, stages, protos, cluster, Z, sigma)
        ref = _reference_nll(X, stages, prev_protos, cluster, prev_Z, sigma)
        curve.append(nll)
        stall = 0 if ref - nll > tol else stall + 1
        if epoch >= 2 and stall >= n_iter_no_change:
            break
    return epoch, curve


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("e_step", ["online", "batch"])
@pytest.mark.parametrize("seed", range(3))
def test_cached_evaluation_matches_plain_reference(e_step, seed):
    # the fit reuses the squared distances and PL terms of the end of an epoch for the next
    # epoch's "before" likelihood and batch E-step, and evaluates the likelihood in a fused
    # kernel; the plain loop must give the same epochs and the same likelihood curve
    X, Y, _ = blobs(15, p_missing=0.3, seed=seed)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    kw = dict(tol=1e-2, n_iter_no_change=2, max_epochs=40)  # stops after ~30 epochs
    est = PrototypePLMixture(
        3, n_prototypes_per_cluster=2, e_step=e_step, standardize=False, random_state=seed, **kw
    ).fit(X, Y)
    Yr = est._check_fit_data(X, Y)[1]
    n_iter, curve = _reference_fit(X, Yr, 3, 2, seed, e_step, **kw)
    assert est.n_iter_ == n_iter < kw["max_epochs"]
    np.testing.assert_allclose(est.nll_curve_, curve, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# validation_fraction: the number of epochs chosen on held-out rows, then a refit on all rows
# --------------------------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_validation_fraction_none_is_the_plain_fit():
    X, Y, _ = blobs(15, p_missing=0.3)
    a = PrototypePLMixture(3, n_prototypes_per_cluster=2, random_state=2).fit(X, Y)
    b = PrototypePLMixture(
        3, n_prototypes_per_cluster=2, validation_fraction=None, random_state=2
    ).fit(X, Y)
    np.testing.assert_array_equal(a.prototypes_, b.prototypes_)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    assert a.nll_curve_ == b.nll_curve_
    assert b.validation_loss_curve_ is None
    # the returned epoch is the first one of the lowest training loss
    assert b.best_epoch_ == int(np.argmin(b.loss_curve_)) + 1
    assert b.train_loss_ == b.loss_curve_[b.best_epoch_ - 1]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_validation_fraction_is_reproducible():
    X, Y, _ = blobs(15, p_missing=0.3)
    a = PrototypePLMixture(
        3, n_prototypes_per_cluster=2, validation_fraction=0.3, random_state=4
    ).fit(X, Y)
    b = clone(a).fit(X, Y)
    np.testing.assert_array_equal(a.prototypes_, b.prototypes_)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    assert a.validation_loss_curve_ == b.validation_loss_curve_
    assert a.best_epoch_ == b.best_epoch_
    # a RandomState instance in the same state gives the same fit
    c = clone(a).set_params(random_state=np.random.RandomState(4)).fit(X, Y)
    np.testing.assert_array_equal(a.prototypes_, c.prototypes_)


def _noise(seed, n=60, m=5):
    """Features that carry no ranking information (as on the yeast sets), 30 % labels missing."""
    rng = np.random.default_rng(seed)
    pos = np.argsort(rng.random((n, m)), axis=1)
    pos = np.where(rng.random((n, m)) < 0.3, -1, pos)
    return rng.normal(size=(n, 3)), Rankings(pos)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("e_step", ["online", "batch"])
@pytest.mark.parametrize("data", ["blobs", "noise"])
@pytest.mark.parametrize("seed", range(2))
def test_refit_is_the_plain_fit_stopped_at_the_chosen_epoch(e_step, data, seed, monkeypatch):
    if data == "blobs":
        X, Y, _ = blobs(12, seed=seed, p_missing=0.4)
    else:
        X, Y = _noise(seed)
    kw = {"n_clusters": 3, "n_prototypes_per_cluster": 2, "e_step": e_step, "random_state": seed}
    est = PrototypePLMixture(validation_fraction=0.25, max_epochs=30, **kw).fit(X, Y)
    E = est.best_epoch_
    # the epoch of the lowest held-out loss (the last of equal ones), among the epochs run
    assert len(est.validation_loss_curve_) == len(est.loss_curve_) == est.n_iter_
    vc = np.asarray(est.validation_loss_curve_)
    assert E == int(np.flatnonzero(vc == vc.min())[-1]) + 1
    assert 1 <= E <= est.n_iter_
    assert est.labels_.shape == (X.shape[0],)
    assert est.responsibilities_.shape == (X.shape[0], 3)
    # the refit is the plain fit on all rows (same initialisation and stream) after E epochs
    plain = PrototypePLMixture(max_epochs=E, min_epochs=E, n_iter_no_change=1000, **kw)
    plain.fit(X, Y)
    assert plain.n_iter_ == E
    assert est.train_loss_ == pytest.approx(plain.loss_curve_[-1], abs=1e-12)
    assert est.sigma_ == pytest.approx(plain.sigma_)
    # ... and its parameters: make the plain fit return its last epoch (a training loss that
    # falls every epoch) and compare
    counter = iter(range(10**6))
    monkeypatch.setattr(pl_mixture, "training_loss", lambda *a: -float(next(counter)))
    last = PrototypePLMixture(max_epochs=E, min_epochs=E, n_iter_no_change=1000, **kw)
    last.fit(X, Y)
    assert last.best_epoch_ == E
    np.testing.assert_allclose(est.prototypes_, last.prototypes_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(est.scores_, last.scores_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(est.responsibilities_, last.responsibilities_, atol=1e-12)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("h", [1, 3])
@pytest.mark.parametrize("seed", range(2))
def test_validation_window_chooses_by_the_window_mean(h, seed):
    X, Y = _noise(seed)
    kw = {"n_clusters": 3, "n_prototypes_per_cluster": 2, "random_state": seed}
    est = PrototypePLMixture(
        validation_fraction=0.25, validation_window=h, max_epochs=30, **kw
    ).fit(X, Y)
    vc = est.validation_loss_curve_
    means = [np.mean(vc[max(0, e - h) : e + h + 1]) for e in range(len(vc))]
    E = max(e for e in range(len(vc)) if means[e] == min(means)) + 1
    assert E - h <= est.best_epoch_ <= E + h
    # the refit is the plain fit on all rows; it returns the epoch of the lowest training
    # loss among E - h .. E + h (the first of equal ones; at most max_epochs)
    last = min(E + h, 30)
    plain = PrototypePLMixture(max_epochs=last, min_epochs=last, n_iter_no_change=1000, **kw)
    window = plain.fit(X, Y).loss_curve_[max(E - h, 1) - 1 : last]
    assert est.train_loss_ == pytest.approx(min(window), abs=1e-12)
    assert est.best_epoch_ == max(E - h, 1) + int(np.argmin(window))
    assert est.sigma_ == pytest.approx(plain.sigma_)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_validation_window_is_ignored_without_validation_fraction():
    X, Y, _ = blobs(10)
    a = PrototypePLMixture(3, n_prototypes_per_cluster=2, random_state=1).fit(X, Y)
    b = PrototypePLMixture(3, n_prototypes_per_cluster=2, validation_window=4, random_state=1)
    b.fit(X, Y)
    np.testing.assert_array_equal(a.prototypes_, b.prototypes_)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    assert a.best_epoch_ == b.best_epoch_


def test_noise_features_choose_an_interior_epoch():
    # a guard that the comparison above is not only ever made at the last epoch
    chosen = []
    for seed in range(2):
        X, Y = _noise(seed)
        est = PrototypePLMixture(
            3, n_prototypes_per_cluster=2, validation_fraction=0.25, max_epochs=30,
            random_state=seed,
        )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, Y)
        chosen.append(est.best_epoch_ < est.n_iter_)
    assert any(chosen)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("p_missing", [0.0, 0.4])
def test_validation_fraction_recovers_blob_rankings(p_missing):
    X, Y, y = blobs(p_missing=p_missing)
    est = PrototypePLMixture(
        3, n_prototypes_per_cluster=2, validation_fraction=0.2, random_state=0
    ).fit(X, Y)
    assert recovered(est) == TRUE
    pred = est.predict_ranking(X) - 1
    assert (pred == np.argsort(ORDERS[y], axis=1)).all(axis=1).mean() > 0.97


def test_validation_fraction_errors():
    X, Y, _ = blobs(2)  # 6 rows
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="validation_fraction"):
            PrototypePLMixture(3, validation_fraction=bad).fit(X, Y)
    with pytest.raises(ValueError, match=r"validation_fraction=0\.1 leaves 0 validation"):
        PrototypePLMixture(3, validation_fraction=0.1).fit(X, Y)
    with pytest.raises(ValueError, match="leaves 4 validation and 2 training"):
        PrototypePLMixture(3, validation_fraction=0.7).fit(X, Y)
