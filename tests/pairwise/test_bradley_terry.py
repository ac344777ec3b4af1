"""Bradley-Terry and Davidson fits on sparse comparisons: known optima, peers, invariants."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from scipy.special import logsumexp
from sklearn.base import clone

from rankclust import Rankings
from rankclust.datasets import make_bradley_terry_comparisons
from rankclust.models.plackett_luce import PlackettLuce
from rankclust.pairwise import BradleyTerry, Comparisons


@pytest.fixture(scope="module")
def data():
    C, z = make_bradley_terry_comparisons(25, 600, random_state=1)
    return C, z


def _brute_loglik(z, C, nu=0.0):
    """Log-likelihood summed row by row (no aggregation of pairs, no sparse algebra)."""
    zw, zl = z[C.winner], z[C.loser]
    s = [zw, zl] + ([np.log(nu) + 0.5 * (zw + zl)] if nu > 0 else [])
    lse = logsumexp(np.stack(s), axis=0)
    own = np.where(C.tie, s[2], zw) if nu > 0 else zw
    return float(C.count @ (own - lse))


def _brute_fit(C, alpha=0.0, prior="gamma", ties=False):
    m = C.n_items

    def f(x):
        z = x[:m]
        val = _brute_loglik(z, C, np.exp(x[m]) if ties else 0.0)
        if prior == "gamma":
            val += alpha * np.sum(z - np.exp(z))
        else:
            val -= alpha * z @ z
        return -val

    x0 = np.zeros(m + (1 if ties else 0))
    res = optimize.minimize(f, x0, method="BFGS", options={"gtol": 1e-9, "maxiter": 5000})
    z = res.x[:m]
    return z - z.mean(), (np.exp(res.x[m]) if ties else 0.0)


@pytest.mark.parametrize(("alpha", "prior"), [(0.0, "gamma"), (0.5, "gamma"), (0.3, "gaussian")])
def test_fit_equals_a_brute_force_optimisation(data, alpha, prior):
    C, _ = data
    C = C.subset(np.arange(150))  # a small problem for the brute force
    small = C.subset(np.isin(C.winner, range(8)) & np.isin(C.loser, range(8)))
    small = Comparisons(small.winner, small.loser, n_items=8)
    if alpha == 0.0:
        small = Comparisons(
            np.r_[small.winner, np.arange(8)], np.r_[small.loser, (np.arange(8) + 1) % 8]
        )  # a cycle through all items makes the MLE exist
    bt = BradleyTerry(alpha=alpha, prior=prior).fit(small)
    z, _ = _brute_fit(small, alpha, prior)
    np.testing.assert_allclose(bt.scores_, z, atol=2e-5)
    assert bt.converged_
    np.testing.assert_allclose(bt.log_likelihood_, _brute_loglik(bt.scores_, small), rtol=1e-12)


def test_equals_plackett_luce_on_two_item_rankings(data):
    C, _ = data
    pairs = np.column_stack([C.winner, C.loser])
    for alpha in (0.0, 0.2):
        bt = BradleyTerry(alpha=alpha).fit(C)
        pl = PlackettLuce(alpha=alpha, tol=1e-13, max_iter=100000).fit(
            Rankings.from_pairs(pairs, n_items=C.n_items)
        )
        np.testing.assert_allclose(bt.scores_, pl.scores_, atol=1e-8)


def test_mm_solver_reaches_the_same_fit(data):
    C, _ = data
    a = BradleyTerry(alpha=0.1).fit(C)
    b = BradleyTerry(alpha=0.1, solver="mm", tol=1e-14, max_iter=1000).fit(C)
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-5)  # MM: linear convergence


def test_counts_and_sample_weight_equal_repetition(data):
    C, _ = data
    sub = C.subset(np.arange(300))
    twice = Comparisons(
        np.r_[sub.winner, sub.winner[:100]], np.r_[sub.loser, sub.loser[:100]], n_items=sub.n_items
    )
    w = np.ones(300)
    w[:100] = 2
    a = BradleyTerry(alpha=0.1).fit(twice)
    b = BradleyTerry(alpha=0.1).fit(sub, sample_weight=w)
    c = BradleyTerry(alpha=0.1).fit(sub.with_count(w))
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-10)
    np.testing.assert_allclose(a.scores_, c.scores_, atol=1e-10)


def test_recovers_true_scores(data):
    C, z = make_bradley_terry_comparisons(20, 20000, random_state=5)
    bt = BradleyTerry().fit(C)
    assert np.corrcoef(bt.scores_, z)[0, 1] > 0.99


def test_davidson_ties_equal_brute_force_and_reduce_to_bt_without_ties():
    rng = np.random.default_rng(0)
    C, _ = make_bradley_terry_comparisons(6, 120, random_state=2)
    tie = rng.random(120) < 0.25
    Ct = Comparisons(C.winner, C.loser, n_items=6, tie=tie)
    bt = BradleyTerry(alpha=0.05).fit(Ct)
    z, nu = _brute_fit(Ct, alpha=0.05, ties=True)
    np.testing.assert_allclose(bt.scores_, z, atol=2e-5)
    assert bt.tie_strength_ == pytest.approx(nu, rel=1e-4)
    # the tie probabilities sum with the win probabilities to 1
    p = bt.predict_proba([[0, 1], [2, 3]])
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert (p[:, 2] > 0).all()
    # without ties: plain Bradley-Terry, nu = 0, and the Davidson likelihood at nu -> 0 is BT's
    plain = BradleyTerry(alpha=0.05).fit(C)
    assert plain.tie_strength_ == 0.0
    np.testing.assert_allclose(
        _brute_loglik(plain.scores_, C, nu=1e-12), _brute_loglik(plain.scores_, C), rtol=1e-9
    )
    with pytest.raises(ValueError, match="is a tie and ties='none'"):
        BradleyTerry(ties="none").fit(Ct)


def test_mle_that_does_not_exist_is_refused():
    C = Comparisons.from_arrays([0, 0, 1], [1, 2, 2])  # item 0 never loses
    with pytest.raises(ValueError, match=r"does not exist.*use alpha > 0"):
        BradleyTerry().fit(C)
    assert np.isfinite(BradleyTerry(alpha=0.1).fit(C).scores_).all()


def test_logpdf_score_and_predict_proba(data):
    C, _ = data
    bt = BradleyTerry(alpha=0.1).fit(C)
    lp = bt.logpdf(C)
    assert lp.shape == (C.n_comparisons,)
    assert C.count @ lp == pytest.approx(bt.log_likelihood_, rel=1e-12)
    assert bt.score(C) == pytest.approx(lp.mean())
    p = bt.predict_proba([[0, 1], [1, 0]])
    np.testing.assert_allclose(p[0, :2], p[1, 1::-1])
    with pytest.raises(ValueError, match="outside"):
        bt.predict_proba([[0, 99]])
    assert clone(bt).get_params() == bt.get_params()


@pytest.mark.parametrize("alpha", [0.0, 0.3])
def test_standard_errors_match_the_numerical_hessian(data, alpha):
    C, _ = data
    bt = BradleyTerry(alpha=alpha).fit(C)
    m = C.n_items

    def negpost(z):  # in the sum-zero parametrisation z_m = -sum(z_1..m-1)
        full = np.r_[z, -z.sum()]
        if alpha:  # the gamma posterior is evaluated at its own scale (mean worth 1)
            full = full - np.log(np.mean(np.exp(full)))
            return -(_brute_loglik(full, C) + alpha * np.sum(full - np.exp(full)))
        return -_brute_loglik(full, C)

    se = bt.standard_errors(C)
    assert se.shape == (m,)
    np.testing.assert_allclose(bt.standard_errors(C, items=[0, 3]), se[[0, 3]], rtol=1e-6)
    if alpha == 0:  # the sum-zero covariance is the pseudo-inverse of the information
        x = bt.scores_[:-1]
        h = 1e-4
        H = np.empty((m - 1, m - 1))
        for a in range(m - 1):
            e = np.zeros(m - 1)
            e[a] = h
            H[a] = (_grad(negpost, x + e) - _grad(negpost, x - e)) / (2 * h)
        V = np.linalg.inv((H + H.T) / 2)
        A = np.vstack([np.eye(m - 1), -np.ones(m - 1)])
        np.testing.assert_allclose(se, np.sqrt(np.diag(A @ V @ A.T)), rtol=1e-3)


def _grad(f, x, h=1e-5):
    g = np.empty_like(x)
    for a in range(x.size):
        e = np.zeros_like(x)
        e[a] = h
        g[a] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def test_standard_errors_refuse_a_huge_dense_inverse(monkeypatch, data):
    from rankclust.pairwise import _bradley_terry

    C, _ = data
    bt = BradleyTerry(alpha=0.1).fit(C)
    monkeypatch.setattr(_bradley_terry, "MAX_DENSE_VCOV_BYTES", 100)
    with pytest.raises(ValueError, match="dense information would need"):
        bt.standard_errors(C)
    assert bt.standard_errors(C, items=[1]).shape == (1,)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        (np.ones(5), "sample_weight"),
        (np.r_[-1.0, np.ones(299)], "sample_weight"),
        (np.r_[np.nan, np.ones(299)], "sample_weight"),
    ],
)
def test_bad_sample_weight_is_refused_in_one_line(data, weights, message):
    C, _ = data
    sub = C.subset(np.arange(300))
    with pytest.raises(ValueError, match=message) as info:
        BradleyTerry(alpha=0.1).fit(sub, sample_weight=weights)
    assert "\n" not in str(info.value)
