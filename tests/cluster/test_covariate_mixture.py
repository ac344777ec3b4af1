"""Mixtures of item-covariate Plackett-Luce models (rankclust.cluster._covariate_mixture)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import adjusted_rand_score

from rankclust import Rankings
from rankclust.cluster import ItemCovariatePLMixture, PlackettLuceMixture
from rankclust.datasets import make_plackett_luce_mixture
from rankclust.models import ItemCovariatePlackettLuce, PlackettLuce
from rankclust.persistence import load, save


def _two_segments(n=400, m=8, random_state=0):
    """Rankings of two segments with opposite coefficients on 2 item features."""
    rng = np.random.default_rng(random_state)
    F = rng.normal(size=(m, 2))
    betas = np.array([[1.5, -1.0], [-1.0, 1.5]])
    parts = [
        PlackettLuce.from_params(scores=F @ b).sample(n, random_state=random_state + k)
        for k, b in enumerate(betas)
    ]
    y = np.repeat([0, 1], n)
    return Rankings.concatenate(parts), F, betas, y


def _subset(R, p_missing, rng):
    """Each ranking restricted to a random subset of its items (at least two kept)."""
    ranks = R.ranks.copy()
    for row in ranks:
        drop = rng.random(row.size) < p_missing
        drop[rng.choice(row.size, 2, replace=False)] = False
        row[drop] = -1
        kept = row >= 0
        row[kept] = np.argsort(np.argsort(row[kept]))
    return Rankings(ranks, kind="subset")


def test_identity_design_equals_plackett_luce_mixture():
    # same data, seed and restarts: the same optimum (the iterates differ: exact M-steps here,
    # one MM step there), so equal to the tolerance the two EMs converge to
    R, _ = make_plackett_luce_mixture(600, 6, 2, random_state=3)
    for k in (1, 2, 3):
        a = ItemCovariatePLMixture(k, n_init=3, tol=1e-10, random_state=0).fit(R)
        b = PlackettLuceMixture(k, n_init=3, tol=1e-10, random_state=0).fit(R)
        assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-9, abs=1e-7)
        np.testing.assert_allclose(a.weights_, b.weights_, atol=1e-4)
        np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-3)
        np.testing.assert_array_equal(a.labels_, b.labels_)
        assert a.n_parameters_ == b.n_parameters_ and a.rank_ == 5
        assert a.bic_ == pytest.approx(b.bic_, rel=1e-9)
        np.testing.assert_allclose(a.predict_proba(R), b.predict_proba(R), atol=1e-4)
    # top-3 lists (kind="top")
    top = Rankings(np.where(R.ranks < 3, R.ranks, -1), kind="top")
    a = ItemCovariatePLMixture(2, n_init=3, tol=1e-10, random_state=0).fit(top)
    b = PlackettLuceMixture(2, n_init=3, tol=1e-10, random_state=0).fit(top)
    assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-9)
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-3)


@pytest.mark.parametrize("effects", [None, 2.0])
def test_one_component_equals_item_covariate_plackett_luce(effects):
    R, F, _, _ = _two_segments(150)
    R = _subset(R, 0.3, np.random.default_rng(1))
    kw = {"coef_penalty": 0.5, "item_effect_penalty": effects}
    one = ItemCovariatePlackettLuce(**kw).fit(R, item_features=F)
    mix = ItemCovariatePLMixture(1, random_state=0, **kw).fit(R, item_features=F)
    np.testing.assert_allclose(mix.coef_[0], one.coef_, atol=1e-7)
    np.testing.assert_allclose(mix.scores_[0], one.scores_, atol=1e-7)
    np.testing.assert_allclose(mix.item_effects_[0], one.item_effects_, atol=1e-7)
    assert mix.intercept_[0] == pytest.approx(one.intercept_, abs=1e-7)
    assert mix.log_likelihood_ == pytest.approx(one.loglik_, rel=1e-10)
    np.testing.assert_allclose(mix.score_samples(R), one.logpdf(R), atol=1e-7)


@pytest.mark.parametrize("kw", [{}, {"coef_penalty": 1.0, "item_effect_penalty": 3.0}])
def test_em_trace_never_decreases(kw):
    R, F, _, _ = _two_segments(200, random_state=2)
    R = _subset(R, 0.4, np.random.default_rng(2))
    for k in (2, 3):
        mix = ItemCovariatePLMixture(k, n_init=2, random_state=1, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mix.fit(R, item_features=F)
        if mix.n_reseeded_:
            continue  # a re-seeded component restarts the monotone stretch
        h = mix.log_likelihood_history_
        assert np.all(np.diff(h) >= -1e-9 * np.abs(h[:-1])), np.diff(h).min()
    # plain EM (no SQUAREM) too
    mix = ItemCovariatePLMixture(2, n_init=1, accelerate=False, random_state=0, **kw)
    h = mix.fit(R, item_features=F).log_likelihood_history_
    assert len(h) > 3 and np.all(np.diff(h) >= -1e-9 * np.abs(h[:-1]))


def test_recovers_two_segments_with_different_coefficients():
    R, F, betas, y = _two_segments(500, m=10, random_state=4)
    mix = ItemCovariatePLMixture(2, n_init=3, random_state=0).fit(R, item_features=F)
    assert adjusted_rand_score(y, mix.labels_) > 0.8
    # components matched to the truth by their coefficients
    match = [int(np.argmin(np.abs(mix.coef_ - b).sum(axis=1))) for b in betas]
    assert sorted(match) == [0, 1]
    np.testing.assert_allclose(mix.coef_[match], betas, atol=0.25)
    np.testing.assert_allclose(mix.weights_, [0.5, 0.5], atol=0.06)
    # more likely than the one-component model, and BIC prefers two
    one = ItemCovariatePLMixture(1, random_state=0).fit(R, item_features=F)
    assert mix.bic_ < one.bic_
    assert mix.n_parameters_ == 1 + 2 * 2 and one.n_parameters_ == 2


def test_weighted_equals_expanded():
    R, F, _, _ = _two_segments(60, random_state=5)
    counts = np.random.default_rng(0).integers(1, 4, size=R.n_rankings)
    weighted = Rankings(R.ranks, weights=counts)
    expanded = Rankings(np.repeat(R.ranks, counts, axis=0))
    kw = {"n_init": 2, "random_state": 0, "item_effect_penalty": 1.0}
    a = ItemCovariatePLMixture(2, **kw).fit(weighted, item_features=F)
    b = ItemCovariatePLMixture(2, **kw).fit(expanded, item_features=F)
    assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-10)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)
    np.testing.assert_allclose(a.effective_dof_, b.effective_dof_, rtol=1e-8)
    assert a.bic_ == pytest.approx(b.bic_, rel=1e-10)
    np.testing.assert_array_equal(np.repeat(a.labels_, counts), b.labels_)
    # sample_weight is the same as weights
    c = ItemCovariatePLMixture(2, **kw).fit(
        Rankings(R.ranks), sample_weight=counts, item_features=F
    )
    np.testing.assert_allclose(c.coef_, a.coef_, atol=1e-10)
    assert c.bic_ == pytest.approx(a.bic_, rel=1e-12)


def test_never_ranked_items_get_worths_from_their_features():
    R, F, _, _ = _two_segments(300, m=8, random_state=6)
    ranks = R.ranks.copy()
    ranks[:, 7] = -1  # nobody ranks item 7
    for row in ranks:
        kept = row >= 0
        row[kept] = np.argsort(np.argsort(row[kept]))
    R7 = Rankings(ranks, kind="subset")
    mix = ItemCovariatePLMixture(2, n_init=2, random_state=0).fit(R7, item_features=F)
    np.testing.assert_allclose(mix.scores_for(F), mix.scores_, atol=1e-10)
    assert np.all(np.isfinite(mix.scores_[:, 7]))
    # the unseen item's score follows the component's coefficients
    z = F[7] @ mix.coef_.T + mix.intercept_
    np.testing.assert_allclose(mix.scores_[:, 7], z)
    # a brand-new item
    new = np.array([[0.3, -2.0]])
    np.testing.assert_allclose(mix.scores_for(new)[:, 0], mix.coef_ @ new[0] + mix.intercept_)
    with pytest.raises(ValueError, match=r"shape \(k, 2\)"):
        mix.scores_for(np.ones((1, 3)))


def test_rankings_of_new_items_are_scored_from_their_features():
    R, F, _, _ = _two_segments(200, m=8, random_state=10)
    mix = ItemCovariatePLMixture(2, n_init=2, random_state=0).fit(R, item_features=F)
    # rankings of the fitted items with their own features: the fitted model's numbers
    np.testing.assert_allclose(mix.score_samples(R, item_features=F), mix.score_samples(R))
    np.testing.assert_allclose(mix.predict_proba(R, item_features=F), mix.predict_proba(R))
    # three new items: a mixture over all 3! orderings sums to one, and equals the
    # by-hand mixture of the components' Plackett-Luce models on the implied scores
    G = np.array([[0.5, -1.0], [2.0, 0.1], [-0.3, 0.4]])
    orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
    R3 = Rankings.from_orderings(orders, n_items=3)
    p = np.exp(mix.score_samples(R3, item_features=G))
    assert p.sum() == pytest.approx(1.0)
    z = mix.scores_for(G)
    by_hand = sum(
        w * PlackettLuce.from_params(scores=zk).pdf(R3)
        for w, zk in zip(mix.weights_, z, strict=True)
    )
    np.testing.assert_allclose(p, by_hand)
    post = mix.predict_proba(R3, item_features=G)
    np.testing.assert_allclose(post.sum(axis=1), 1.0)
    np.testing.assert_array_equal(mix.predict(R3, item_features=G), post.argmax(axis=1))
    assert mix.score(R3, item_features=G) == pytest.approx(np.log(p).mean())


def test_effective_degrees_of_freedom():
    R, F, _, _ = _two_segments(150, random_state=7)
    plain = ItemCovariatePLMixture(2, n_init=1, random_state=0).fit(R, item_features=F)
    np.testing.assert_array_equal(plain.effective_dof_, [2.0, 2.0])
    tiny = ItemCovariatePLMixture(2, n_init=1, coef_penalty=1e-9, random_state=0)
    np.testing.assert_allclose(tiny.fit(R, item_features=F).effective_dof_, 2.0, rtol=1e-6)
    eff = ItemCovariatePLMixture(2, n_init=1, item_effect_penalty=1.0, random_state=0)
    eff.fit(R, item_features=F)
    # between the coefficients alone and coefficients plus m - 1 free item effects
    assert np.all((eff.effective_dof_ > 2.0) & (eff.effective_dof_ < 2.0 + 7))
    assert eff.n_parameters_ == pytest.approx(1 + eff.effective_dof_.sum())
    assert eff.bic_ == pytest.approx(
        -2 * eff.log_likelihood_ + eff.n_parameters_ * np.log(R.n_rankings)
    )
    strong = ItemCovariatePLMixture(2, n_init=1, item_effect_penalty=1e6, random_state=0)
    np.testing.assert_allclose(strong.fit(R, item_features=F).effective_dof_, 2.0, atol=1e-3)


def test_persistence_round_trip_and_validated_state(tmp_path):
    R, F, _, _ = _two_segments(100, random_state=8)
    items = tuple("abcdefgh")
    R = Rankings(R.ranks, items=items)
    mix = ItemCovariatePLMixture(2, n_init=1, item_effect_penalty=2.0, random_state=0)
    mix.fit(R, item_features=F)
    save(mix, tmp_path / "m.zip")
    back = load(tmp_path / "m.zip")
    for name in ("coef_", "scores_", "item_effects_", "intercept_", "effective_dof_"):
        np.testing.assert_array_equal(getattr(back, name), getattr(mix, name))
    np.testing.assert_array_equal(back.predict_proba(R), mix.predict_proba(R))
    # items by name
    perm = [3, 0, 7, 2, 1, 6, 5, 4]
    shuffled = Rankings(R.ranks[:, perm], items=[items[p] for p in perm])
    np.testing.assert_allclose(back.score_samples(shuffled), mix.score_samples(R))
    # a tampered state is refused at load
    for bad in (np.ones((2, 5)), np.full((2, 2), np.nan)):
        back.coef_ = bad
        save(back, tmp_path / "bad.zip")
        with pytest.raises(ValueError, match="coef_"):
            load(tmp_path / "bad.zip")


def test_input_errors_and_estimator_contract():
    R, F, _, _ = _two_segments(30, random_state=9)
    est = ItemCovariatePLMixture(2, n_init=1, random_state=0)
    assert clone(est).get_params() == est.get_params()
    with pytest.raises(ValueError, match="respondent covariates X"):
        est.fit(R, item_features=F, X=np.ones((R.n_rankings, 1)))
    with pytest.raises(ValueError, match=r"shape \(8, d\)"):
        est.fit(R, item_features=F[:5])
    with pytest.raises(ValueError, match="constant over the ranked items"):
        est.fit(R, item_features=np.ones((8, 2)))
    tied = Rankings([[0, 0, 1], [0, 1, 2]])
    with pytest.raises(ValueError, match="tie"):
        est.fit(tied, item_features=np.eye(3))
    # identity design without penalty: the Plackett-Luce MLE must exist
    never_loses = Rankings([[0, 1, 2], [0, 2, 1], [0, 1, 2]])
    with pytest.raises(ValueError, match="does not exist"):
        ItemCovariatePLMixture(1).fit(never_loses)
    # a penalty makes it exist
    ok = ItemCovariatePLMixture(1, coef_penalty=0.1).fit(never_loses)
    assert np.isfinite(ok.scores_).all()
    # select_k does not pass item features: refused, not fitted with another design
    from rankclust.cluster import select_k

    with pytest.raises(ValueError, match="item_features"):
        select_k(ItemCovariatePLMixture(n_init=1), R, ks=[1, 2])
