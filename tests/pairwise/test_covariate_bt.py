"""Bradley-Terry with item covariates on sparse comparisons (rankclust.pairwise._covariate_bt)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.base import clone

from rankclust import Rankings
from rankclust.models import ItemCovariatePlackettLuce
from rankclust.pairwise import BradleyTerry, Comparisons, ItemCovariateBradleyTerry
from rankclust.pairwise._bradley_terry import _Pairs
from rankclust.pairwise._covariate_bt import (
    _Design,
    _gradient,
    _info_dense,
    _objective,
)
from rankclust.persistence import load, save


def _comparisons(m=8, n=400, d=3, ties=0.0, random_state=0):
    """Comparisons drawn from worths linear in d random features (Davidson ties optional)."""
    rng = np.random.default_rng(random_state)
    F = rng.normal(size=(m, d))
    beta = rng.normal(size=d)
    z = F @ beta
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    s = np.stack([z[a], z[b], np.log(ties) + 0.5 * (z[a] + z[b])] if ties else [z[a], z[b]])
    p = np.exp(s - logsumexp(s, axis=0))
    u = rng.random(n)
    first = u < p[0]
    tie = ~first & (u >= p[0] + p[1]) if ties else np.zeros(n, dtype=bool)
    winner = np.where(first | tie, a, b)
    loser = np.where(first | tie, b, a)
    return Comparisons.from_arrays(winner, loser, n_items=m, tie=tie), F, beta


def _brute_loglik(z, C, nu=0.0):
    """Log-likelihood summed row by row (no aggregation, no sparse algebra)."""
    zw, zl = z[C.winner], z[C.loser]
    s = [zw, zl] + ([np.log(nu) + 0.5 * (zw + zl)] if nu > 0 else [])
    lse = logsumexp(np.stack(s), axis=0)
    own = np.where(C.tie, s[2], zw) if nu > 0 else zw
    return float(C.count @ (own - lse))


@pytest.mark.parametrize("ties", [0.0, 0.6])
def test_identity_design_equals_bradley_terry(ties):
    C, _, _ = _comparisons(ties=ties, random_state=1)
    a = ItemCovariateBradleyTerry().fit(C)
    b = BradleyTerry().fit(C)
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-8)
    assert a.tie_strength_ == pytest.approx(b.tie_strength_, rel=1e-8)
    assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-12)
    assert a.rank_ == C.n_items - 1
    np.testing.assert_allclose(
        a.predict_proba([[0, 1], [3, 2]]), b.predict_proba([[0, 1], [3, 2]])
    )


@pytest.mark.parametrize("effects", [False, True])
@pytest.mark.parametrize("ties", [0.0, 0.5])
def test_gradient_and_information_match_finite_differences(effects, ties):
    C, F, _ = _comparisons(m=6, n=150, ties=ties, random_state=2)
    P = _Pairs(C, None, ties > 0)
    B = (F - F.mean(axis=0)) @ np.linalg.svd(F - F.mean(axis=0))[2].T
    D = _Design(B, effects, ties > 0, np.full(B.shape[1], 0.3), 0.7)
    theta = np.random.default_rng(0).normal(scale=0.3, size=D.dim)
    g, H = _gradient(P, D, theta)
    A = _info_dense(P, D, H)
    h = 1e-5
    eye = np.eye(D.dim)
    num_g = np.array(
        [
            (_objective(P, D, theta + h * e) - _objective(P, D, theta - h * e)) / (2 * h)
            for e in eye
        ]
    )
    np.testing.assert_allclose(g, num_g, rtol=1e-6, atol=1e-6)
    num_H = np.array(
        [
            (_gradient(P, D, theta + h * e)[0] - _gradient(P, D, theta - h * e)[0]) / (2 * h)
            for e in eye
        ]
    )
    np.testing.assert_allclose(-A, 0.5 * (num_H + num_H.T), rtol=1e-5, atol=1e-5)
    # the objective is the brute-force row-by-row log-likelihood minus the penalty
    x = D.to_x(theta)
    nu = float(np.exp(x[-1])) if ties else 0.0
    pen = 0.5 * theta @ (D.penalty * theta)
    assert _objective(P, D, theta) == pytest.approx(_brute_loglik(x[: D.m], C, nu) - pen)


def test_equals_item_covariate_plackett_luce_on_two_item_rankings():
    C, F, _ = _comparisons(m=9, n=500, random_state=3)
    R = Rankings.from_orderings(
        [[w, lo] for w, lo in zip(C.winner, C.loser, strict=True)], n_items=9, kind="subset"
    )
    for kw in ({}, {"coef_penalty": 0.5, "item_effect_penalty": 2.0}):
        a = ItemCovariateBradleyTerry(**kw).fit(C, item_features=F)
        b = ItemCovariatePlackettLuce(**kw).fit(R, item_features=F)
        np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)
        np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-8)
        np.testing.assert_allclose(a.item_effects_, b.item_effects_, atol=1e-8)
        np.testing.assert_allclose(a.coef_cov_, b.coef_cov_, rtol=1e-6, atol=1e-12)
        assert a.log_likelihood_ == pytest.approx(b.loglik_, rel=1e-10)


def test_never_compared_items_get_feature_implied_worths():
    C, F, beta = _comparisons(m=10, n=2000, random_state=4)
    keep = (C.winner < 8) & (C.loser < 8)  # items 8 and 9 never compared
    C8 = C.subset(keep)
    bt = ItemCovariateBradleyTerry().fit(C8, item_features=F)
    np.testing.assert_allclose(bt.scores_, F @ bt.coef_ + bt.intercept_, atol=1e-10)
    np.testing.assert_allclose(bt.scores_for(F[8:]), bt.scores_[8:])
    # near the truth (up to the shift), unseen items included
    z = F @ beta
    np.testing.assert_allclose(bt.scores_ - bt.scores_.mean(), z - z.mean(), atol=0.3)
    assert np.all(np.abs(bt.coef_ - beta) < 4 * bt.standard_errors())
    # with item effects the unseen items keep a zero effect
    eff = ItemCovariateBradleyTerry(item_effect_penalty=1.0).fit(C8, item_features=F)
    assert np.all(np.abs(eff.item_effects_[8:] - eff.item_effects_[8:].mean()) < 1e-12)


def test_counts_and_sample_weight_equal_repetition():
    C, F, _ = _comparisons(m=6, n=120, ties=0.4, random_state=5)
    counts = np.random.default_rng(1).integers(1, 4, size=C.n_comparisons)
    rep = np.repeat(np.arange(C.n_comparisons), counts)
    expanded = Comparisons.from_arrays(C.winner[rep], C.loser[rep], n_items=6, tie=C.tie[rep])
    kw = {"item_effect_penalty": 1.5}
    a = ItemCovariateBradleyTerry(**kw).fit(C, sample_weight=counts, item_features=F)
    b = ItemCovariateBradleyTerry(**kw).fit(expanded, item_features=F)
    c = ItemCovariateBradleyTerry(**kw).fit(C.with_count(counts), item_features=F)
    for other in (b, c):
        np.testing.assert_allclose(a.coef_, other.coef_, atol=1e-9)
        np.testing.assert_allclose(a.coef_cov_, other.coef_cov_, rtol=1e-6)
        assert a.tie_strength_ == pytest.approx(other.tie_strength_, rel=1e-9)


def test_standard_errors_match_the_numerical_hessian():
    C, F, _ = _comparisons(m=7, n=300, random_state=6)
    bt = ItemCovariateBradleyTerry().fit(C, item_features=F)

    def f(beta):
        return _brute_loglik(F @ beta, C)

    h, d = 1e-4, F.shape[1]
    E = np.eye(d) * h
    H = np.array(
        [
            [
                (
                    f(bt.coef_ + E[a] + E[b])
                    - f(bt.coef_ + E[a] - E[b])
                    - f(bt.coef_ - E[a] + E[b])
                    + f(bt.coef_ - E[a] - E[b])
                )
                / (4 * h * h)
                for b in range(d)
            ]
            for a in range(d)
        ]
    )
    np.testing.assert_allclose(
        bt.standard_errors(), np.sqrt(np.diag(np.linalg.inv(-H))), rtol=1e-4
    )
    lo, hi = bt.confint().T
    assert np.all((lo < bt.coef_) & (bt.coef_ < hi))


def test_persistence_errors_and_contract(tmp_path):
    C, F, _ = _comparisons(m=6, n=100, ties=0.5, random_state=7)
    bt = ItemCovariateBradleyTerry(item_effect_penalty=1.0).fit(C, item_features=F)
    assert clone(bt).get_params() == bt.get_params()
    save(bt, tmp_path / "m.zip")
    back = load(tmp_path / "m.zip")
    np.testing.assert_array_equal(back.coef_, bt.coef_)
    np.testing.assert_array_equal(back.logpdf(C), bt.logpdf(C))
    back.coef_ = np.ones(5)
    save(back, tmp_path / "bad.zip")
    with pytest.raises(ValueError, match="coef_"):
        load(tmp_path / "bad.zip")
    with pytest.raises(ValueError, match=r"shape \(6, d\)"):
        ItemCovariateBradleyTerry().fit(C, item_features=F[:4])
    with pytest.raises(ValueError, match="constant over the compared items"):
        ItemCovariateBradleyTerry().fit(C, item_features=np.ones((6, 2)))
    with pytest.raises(ValueError, match="ties='none'"):
        ItemCovariateBradleyTerry(ties="none").fit(C, item_features=F)
    never_loses = Comparisons.from_arrays([0, 0, 1], [1, 2, 2], n_items=3)
    with pytest.raises(ValueError, match="does not exist"):
        ItemCovariateBradleyTerry().fit(never_loses)
    ok = ItemCovariateBradleyTerry(coef_penalty=0.1).fit(never_loses)
    assert np.isfinite(ok.scores_).all()
