"""Numerical robustness: extreme parameters, degenerate data, huge weights, log space.

* Mallows: theta -> 0 (uniform: every complete ranking has log-probability -log m!) and
  theta -> infinity (all mass on the centre), for complete, top-t and subset rows, and sampling;
* Plackett-Luce: items that never win or never lose (the MLE does not exist: a clean error
  naming the items, and a finite MAP estimate with ``alpha > 0``);
* mixtures and k-means of rankings: empty clusters, EM from degenerate starts (tiny or huge
  initial dispersion, identical initial components), responsibilities in log space;
* weights: multiplying every weight by 1e12 changes no fit (scale invariance) and weighted
  data equal expanded data;
* log space: likelihoods of long rankings stay finite where the probabilities underflow.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from rankclust import Rankings
from rankclust.models.mallows import Mallows, log_normalizer, theta_mle
from rankclust.models.plackett_luce import PlackettLuce
from rankclust.models.plackett_luce_covariates import ItemCovariatePlackettLuce
from tests.reliability._estimators import (
    discover,
    family,
    fit_args,
    make,
    ranking_data,
    ranking_kind,
)

ESTIMATORS = discover()
M = 6


def _perms(n: int, m: int = M, seed: int = 0) -> Rankings:
    rng = np.random.default_rng(seed)
    return Rankings(np.argsort(rng.random((n, m)), axis=1))


def _two_groups(n: int = 40, m: int = M, seed: int = 0) -> tuple[Rankings, np.ndarray]:
    R = ranking_data(n=n, m=m, seed=seed)
    return R, np.arange(n) % 2


# -------------------------------------------------------------------------------- Mallows
@pytest.mark.parametrize("theta", [0.0, 1e-300, 1e-12, 1e-6])
def test_mallows_theta_to_zero_is_uniform(theta):
    R = _perms(30)
    model = Mallows.from_params(center=np.arange(M), theta=theta)
    lp = model.logpdf(R)
    np.testing.assert_allclose(lp, -math.lgamma(M + 1), rtol=0, atol=1e-5)
    # top-3 lists: uniform over the m (m-1) (m-2) ordered triples
    top = Rankings(np.where(R.ranks < 3, R.ranks, -1), kind="top")
    np.testing.assert_allclose(model.logpdf(top), -math.log(M * (M - 1) * (M - 2)), atol=1e-5)
    # subset rows of 3 items: every order of a 3-set equally likely
    sub = Rankings(np.where(R.ranks < 3, R.ranks, -1), kind="subset")
    np.testing.assert_allclose(model.logpdf(sub), -math.log(6), atol=1e-5)
    assert np.isfinite(log_normalizer(theta, 10**5))


@pytest.mark.parametrize("theta", [50.0, 1e3, 1e12, 1e300])
def test_mallows_theta_to_infinity_concentrates(theta):
    R = _perms(30)
    center = np.arange(M)
    model = Mallows.from_params(center=center, theta=theta)
    lp = model.logpdf(R)
    assert not np.isnan(lp).any()
    at_center = model.logpdf(Rankings(center[None, :]))
    np.testing.assert_allclose(at_center, 0.0, atol=1e-12)
    d = (R.ranks != center).any(axis=1)
    assert (lp[d] <= -theta * 0.999).all()  # at least one discordant pair each
    sample = model.sample(20, random_state=0)
    np.testing.assert_array_equal(sample.ranks, np.tile(center, (20, 1)))
    top = Rankings(np.where(R.ranks < 2, R.ranks, -1), kind="top")
    assert not np.isnan(model.logpdf(top)).any()
    sub = Rankings(np.where(R.ranks < 2, R.ranks, -1), kind="subset")
    lsub = model.logpdf(sub)
    assert not np.isnan(lsub).any() and (lsub <= 1e-12).all()


def test_mallows_infinite_theta_is_refused_cleanly():
    with pytest.raises(ValueError, match="theta"):
        Mallows.from_params(center=np.arange(3), theta=np.inf)


@pytest.mark.parametrize("mean", [0.0, 1e-300, 7.499999, 7.5, 1e9])
def test_theta_mle_at_the_ends(mean):
    """theta_mle caps at theta_max for a zero mean and returns 0 at/above the uniform mean."""
    th = theta_mle(mean, 6)  # uniform mean distance of m = 6 is 7.5
    assert np.isfinite(th) and 0.0 <= th <= 50.0
    if mean >= 7.5:
        assert th == 0.0
    if mean == 0.0:
        assert th == 50.0


def test_mallows_fit_on_identical_rankings_hits_the_cap():
    R = Rankings(np.tile(np.arange(M), (10, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Mallows().fit(R)
    np.testing.assert_array_equal(model.center_, np.arange(M))
    assert np.isfinite(model.theta_) and model.theta_ > 10


def test_long_rankings_stay_finite_in_log_space():
    """m = 300: probabilities underflow to 0, log-probabilities must not."""
    R = _perms(5, m=300)
    lp = Mallows.from_params(center=np.arange(300), theta=1.0).logpdf(R)
    assert np.isfinite(lp).all() and (lp < -700).all()  # exp(lp) == 0.0 in float64
    scores = np.linspace(-500, 500, 300)
    lpl = PlackettLuce.from_params(scores=scores).logpdf(R)
    assert np.isfinite(lpl).all()


# -------------------------------------------------------------------------- Plackett-Luce
NEVER_WINS = [[0, 1, 2, 3], [1, 0, 2, 3], [2, 1, 0, 3], [0, 2, 1, 3]]  # item 3 always last
NEVER_LOSES = [[0, 1, 2, 3], [0, 2, 1, 3], [0, 3, 2, 1]]  # item 0 always first


@pytest.mark.parametrize(
    ("orders", "item", "word"), [(NEVER_WINS, 3, "win"), (NEVER_LOSES, 0, "lose")]
)
def test_plackett_luce_without_mle(orders, item, word):
    R = Rankings.from_orderings(orders)
    with pytest.raises(ValueError, match=rf"items \[{item}\] never {word}"):
        PlackettLuce().fit(R)
    model = PlackettLuce(alpha=0.1).fit(R)
    assert np.isfinite(model.scores_).all()
    extreme = model.scores_.argmin() if word == "win" else model.scores_.argmax()
    assert extreme == item
    assert np.isfinite(model.logpdf(R)).all()


def test_plackett_luce_extreme_scores_sample_and_score():
    model = PlackettLuce.from_params(scores=[700.0, 0.0, -700.0])
    assert np.isfinite(model.logpdf(Rankings([[0, 1, 2], [2, 1, 0]]))).all()
    sample = model.sample(50, random_state=0)
    np.testing.assert_array_equal(sample.ranks, np.tile([0, 1, 2], (50, 1)))


# ---------------------------------------------------------------------------- weights
def _scale_invariant_fit(est, R: Rankings):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(R)


@pytest.mark.parametrize("scale", [1e-6, 1e12])
def test_models_are_invariant_to_weight_scale(scale):
    R = _perms(40)
    big = R.with_weights(np.full(R.n_rankings, scale))
    a, b = Mallows().fit(R), Mallows().fit(big)
    np.testing.assert_array_equal(a.center_, b.center_)
    assert a.theta_ == pytest.approx(b.theta_, rel=1e-9)
    p, q = PlackettLuce().fit(R), PlackettLuce().fit(big)  # alpha=0: a pure MLE
    np.testing.assert_allclose(p.scores_, q.scores_, atol=1e-6)
    F = np.arange(R.n_items, dtype=float)[:, None] ** [1, 2]
    c, d = (ItemCovariatePlackettLuce().fit(data, item_features=F) for data in (R, big))
    np.testing.assert_allclose(c.coef_, d.coef_, atol=1e-6)


def test_weighted_equals_expanded():
    R = _perms(12)
    w = np.arange(1, 13, dtype=float)
    weighted = R.with_weights(w)
    expanded = weighted.expand()
    a, b = Mallows().fit(weighted), Mallows().fit(expanded)
    np.testing.assert_array_equal(a.center_, b.center_)
    assert a.theta_ == pytest.approx(b.theta_, rel=1e-10)
    p, q = PlackettLuce().fit(weighted), PlackettLuce().fit(expanded)
    np.testing.assert_allclose(p.scores_, q.scores_, atol=1e-8)
    np.testing.assert_allclose(R.pairwise_counts(w), expanded.pairwise_counts())


_RANKING_ESTIMATORS = [
    n
    for n, c in ESTIMATORS.items()
    if family(c) == "rankings"
    and n not in ("Mallows", "PlackettLuce", "ItemCovariatePlackettLuce")  # (models)
]


@pytest.mark.parametrize("name", _RANKING_ESTIMATORS)
def test_clusterers_with_huge_weights(name):
    """Weights of 1e12 per ranking: same partition as unit weights, nothing non-finite."""
    cls = ESTIMATORS[name]
    (R,) = fit_args(cls)
    unit = _scale_invariant_fit(make(cls, **_seed(cls)), R)
    big = _scale_invariant_fit(make(cls, **_seed(cls)), R.with_weights(np.full(len(R), 1e12)))
    assert adjusted_rand_score(unit.labels_, big.labels_) == pytest.approx(1.0)
    for attr in ("thetas_", "weights_", "scores_"):
        if hasattr(big, attr):
            assert np.isfinite(np.asarray(getattr(big, attr), dtype=float)).all()


def _seed(cls) -> dict:
    return {"random_state": 0} if "random_state" in cls().get_params() else {}


# ----------------------------------------------------------- empty clusters, degenerate EM
@pytest.mark.parametrize("name", _RANKING_ESTIMATORS)
def test_more_clusters_than_distinct_rankings(name):
    """2 distinct rankings, 3 clusters: a clean refusal or a valid partition with a record."""
    cls = ESTIMATORS[name]
    params = cls().get_params()
    if "n_clusters" not in params and "n_components" not in params:
        pytest.skip(f"{name} takes the number of clusters from a wrapped estimator")
    R = Rankings(np.tile(np.array([[0, 1, 2, 3], [3, 2, 1, 0]]), (5, 1)), kind=ranking_kind(cls))
    key = "n_clusters" if "n_clusters" in cls().get_params() else "n_components"
    est = make(cls, **{key: 3}, **_seed(cls))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            est.fit(R)
        except ValueError as exc:
            assert "distinct" in str(exc) or "exceeds" in str(exc) or "larger" in str(exc)
            return
    labels = est.labels_
    assert labels.min() >= 0 and labels.max() < 3
    # identical rankings are interchangeable: the two groups are never mixed in one cluster
    for k in np.unique(labels):
        assert len(np.unique(R.ranks[labels == k], axis=0)) == 1


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("MallowsMixture", {"theta_init": 1e-12}),
        ("MallowsMixture", {"theta_init": 1e6}),
        ("MallowsMixture", {"init": "random"}),
        ("PlackettLuceMixture", {"init_scale": 1e3}),
        ("PlackettLuceMixture", {"init": "random"}),
    ],
)
def test_em_from_degenerate_starts(name, params):
    if name not in ESTIMATORS:
        pytest.skip(f"{name} has not landed")
    R, truth = _two_groups()
    est = make(ESTIMATORS[name], random_state=0, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(R)
    proba = est.predict_proba(R)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert np.isfinite(est.score(R))
    assert adjusted_rand_score(truth, est.labels_) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ["MallowsMixture", "PlackettLuceMixture"])
def test_responsibilities_of_far_rankings_are_finite(name):
    """A ranking far from every centre: log-sum-exp keeps the responsibilities finite."""
    if name not in ESTIMATORS:
        pytest.skip(f"{name} has not landed")
    R, _ = _two_groups(m=12)
    est = make(ESTIMATORS[name], random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(R)
    rng = np.random.default_rng(5)
    far = Rankings(np.argsort(rng.random((20, 12)), axis=1))
    proba = est.predict_proba(far)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)


def test_plackett_luce_mixture_refuses_a_symmetric_start():
    """init_scale=0 starts every component at the uniform model, a fixed point of EM."""
    from rankclust.cluster import PlackettLuceMixture

    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0]] * 5)
    with pytest.raises(ValueError, match="init_scale"):
        PlackettLuceMixture(2, init_scale=0.0).fit(R)
