"""Plackett-Luce with item covariates (rankclust.models.plackett_luce_covariates)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from rankclust import Rankings
from rankclust.inference import plackett_luce_vcov
from rankclust.models import ItemCovariatePlackettLuce, PlackettLuce
from rankclust.models.plackett_luce import choice_stages
from rankclust.models.plackett_luce_covariates import _objective
from tests.conftest import random_rankings


# ------------------------------------------------------------------ references
def pl_prob(ordering, worths) -> float:
    """PL probability of a complete ordering, from the definition."""
    p = 1.0
    remaining = list(ordering)
    for item in ordering:
        p *= worths[item] / sum(worths[c] for c in remaining)
        remaining.remove(item)
    return p


def enumerated_prob(row: np.ndarray, kind: str, worths) -> float:
    """Probability of one rank-matrix row, summing complete orderings consistent with it."""
    m = len(row)
    listed = [int(j) for j in np.argsort(np.where(row >= 0, row, m))[: int((row >= 0).sum())]]
    total = 0.0
    for perm in itertools.permutations(range(m)):
        if kind == "top":
            ok = list(perm[: len(listed)]) == listed
        else:
            ok = [j for j in perm if j in listed] == listed
        if ok:
            total += pl_prob(perm, worths)
    return total


def penalised_loglik(model, R, F, sample_weight=None) -> float:
    """The maximised function at the model's parameters, from the definition."""
    w = R.weights if sample_weight is None else R.weights * sample_weight
    scores = F @ model.coef_ + model.item_effects_
    ll = float(w @ PlackettLuce.from_params(scores=scores).logpdf(R))
    pen = model.coef_penalty * float(model.coef_ @ model.coef_)
    if model.item_effect_penalty is not None:
        pen += model.item_effect_penalty * float(model.item_effects_ @ model.item_effects_)
    return ll - 0.5 * pen


def numerical_hessian(f, x: np.ndarray, h: float) -> np.ndarray:
    n = x.size
    E = np.eye(n) * h
    H = np.empty((n, n))
    for a in range(n):
        for b in range(a, n):
            H[a, b] = H[b, a] = (
                f(x + E[a] + E[b]) - f(x + E[a] - E[b]) - f(x - E[a] + E[b]) + f(x - E[a] - E[b])
            ) / (4 * h * h)
    return H


def sample_rankings(rng, m, n, kind, scores):
    truth = PlackettLuce.from_params(scores=scores)
    if kind == "complete":
        return truth.sample(n, random_state=rng.integers(2**31))
    if kind == "top":
        return truth.sample(n, random_state=rng.integers(2**31), lengths=rng.integers(1, m, n))
    R = truth.sample(n, random_state=rng.integers(2**31))
    ranks = np.where(rng.random((n, m)) < 0.4, -1, R.ranks)
    return Rankings(ranks, kind="subset")


# ------------------------------------------------------------------ identity design
@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
def test_identity_design_equals_plain_plackett_luce(kind, rng):
    m = 5
    R = sample_rankings(rng, m, 300, kind, rng.normal(size=m))
    pl = PlackettLuce(tol=1e-13, max_iter=100_000).fit(R)
    for F in (None, np.eye(m)):
        model = ItemCovariatePlackettLuce().fit(R, item_features=F)
        assert model.converged_ and model.rank_ == m - 1
        np.testing.assert_allclose(model.scores_, pl.scores_, atol=1e-8)
        # the minimum-norm coefficients of the identity design are the sum-zero scores
        np.testing.assert_allclose(model.coef_, pl.scores_, atol=1e-8)
        np.testing.assert_allclose(model.coef_cov_, plackett_luce_vcov(R, pl.scores_), atol=1e-8)
        assert model.loglik_ == pytest.approx(float(R.weights @ pl.logpdf(R)), rel=1e-12)
        # the standard error of a score from features is PlackettLuce's sum-zero one
        _, std = model.scores_for(np.eye(m), return_std=True)
        np.testing.assert_allclose(std, pl.standard_errors(R), rtol=1e-6)


def test_identity_design_refuses_data_without_mle():
    R = Rankings.from_orderings([[0, 1, 2], [0, 2, 1]])  # item 0 never loses
    with pytest.raises(ValueError, match=r"items \[0\] never lose.*coef_penalty > 0"):
        ItemCovariatePlackettLuce().fit(R)
    model = ItemCovariatePlackettLuce(coef_penalty=0.5).fit(R)
    assert model.converged_ and model.ranking_[0] == 0


def test_constant_and_collinear_columns_give_the_same_worths(rng):
    m = 5
    F = rng.normal(size=(m, 2))
    R = sample_rankings(rng, m, 200, "complete", F @ [1.0, -0.5])
    base = ItemCovariatePlackettLuce().fit(R, item_features=F)
    # a constant column and a duplicated column carry no new direction
    G = np.c_[F, np.ones(m), F[:, 0]]
    wide = ItemCovariatePlackettLuce().fit(R, item_features=G)
    assert wide.rank_ == 2
    np.testing.assert_allclose(wide.scores_, base.scores_, atol=1e-8)
    # minimum norm: nothing on the constant, the duplicated effect split evenly
    assert abs(wide.coef_[2]) < 1e-8
    np.testing.assert_allclose(wide.coef_[[0, 3]], base.coef_[0] / 2, atol=1e-8)
    np.testing.assert_allclose(wide.coef_[1], base.coef_[1], atol=1e-8)
    # the covariance of an identified contrast (coef_0 + coef_3 is the duplicated effect)
    c = np.array([1.0, 0, 0, 1.0])
    assert c @ wide.coef_cov_ @ c == pytest.approx(base.coef_cov_[0, 0], rel=1e-6)
    # predictions for new items agree, with their standard errors
    new = rng.normal(size=(3, 2))
    got, got_std = wide.scores_for(np.c_[new, np.ones(3), new[:, 0]], return_std=True)
    want, want_std = base.scores_for(new, return_std=True)
    np.testing.assert_allclose(got, want, atol=1e-8)
    np.testing.assert_allclose(got_std, want_std, rtol=1e-6)
    # the mean item is the reference: standard error 0
    assert base.scores_for(base.feature_means_[None, :], return_std=True)[1][0] < 1e-12


# ------------------------------------------------------------------ likelihood and gradient
@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
def test_logpdf_against_enumeration(kind, rng):
    m = 5
    F = rng.normal(size=(m, 2))
    R = sample_rankings(rng, m, 60, kind, F @ [0.8, -0.4])
    model = ItemCovariatePlackettLuce(coef_penalty=0.1, item_effect_penalty=2.0).fit(
        R, item_features=F
    )
    worths = np.exp(model.scores_)
    expected = [enumerated_prob(row, R.kind, worths) for row in R.ranks[:15]]
    np.testing.assert_allclose(model.pdf(R[:15]), expected, rtol=1e-10)
    # new items, scored from their features alone
    G = rng.normal(size=(4, 2))
    R4 = sample_rankings(rng, 4, 10, kind, np.zeros(4))
    worths4 = np.exp(model.scores_for(G))
    expected4 = [enumerated_prob(row, R4.kind, worths4) for row in R4.ranks]
    np.testing.assert_allclose(model.pdf(R4, item_features=G), expected4, rtol=1e-10)
    assert model.score(R4, item_features=G) == pytest.approx(np.mean(np.log(expected4)))


def test_complete_probabilities_sum_to_one(rng):
    m = 4
    F = rng.normal(size=(m, 3))
    R = sample_rankings(rng, m, 100, "complete", F @ [1.0, 0.0, -1.0])
    model = ItemCovariatePlackettLuce().fit(R, item_features=F)
    every = Rankings.from_orderings(list(itertools.permutations(range(m))))
    assert model.pdf(every).sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
@pytest.mark.parametrize("effects", [None, 1.5])
def test_gradient_against_finite_differences(kind, effects, rng):
    m, d = 5, 2
    R = sample_rankings(rng, m, 80, kind, rng.normal(size=m))
    stages = choice_stages(R)
    row_w = stages.row_weights(rng.random(R.n_rankings))
    design = rng.normal(size=(m, d))
    penalty = np.full(d, 0.3)
    if effects is not None:
        design = np.hstack([design, np.eye(m)])
        penalty = np.concatenate([penalty, np.full(m, effects)])
    theta = rng.normal(size=design.shape[1])
    value, grad, z = _objective(theta, stages, row_w, design, penalty)
    np.testing.assert_allclose(z, design @ theta)
    ll = PlackettLuce.from_params(scores=z).logpdf(stages.distinct)
    assert value == pytest.approx(row_w @ ll - 0.5 * theta @ (penalty * theta), rel=1e-12)
    h = 1e-6
    fd = np.array(
        [
            (
                _objective(theta + h * e, stages, row_w, design, penalty)[0]
                - _objective(theta - h * e, stages, row_w, design, penalty)[0]
            )
            / (2 * h)
            for e in np.eye(theta.size)
        ]
    )
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
def test_fit_is_a_stationary_point_of_the_penalised_likelihood(kind, rng):
    m = 5
    F = rng.normal(size=(m, 2))
    R = sample_rankings(rng, m, 150, kind, F @ [1.0, 0.5] + 0.3 * rng.normal(size=m))
    model = ItemCovariatePlackettLuce(coef_penalty=0.2, item_effect_penalty=1.0).fit(
        R, item_features=F
    )
    assert model.converged_
    assert abs(model.item_effects_.sum()) < 1e-10
    assert abs(model.scores_.sum()) < 1e-10
    np.testing.assert_allclose(
        model.scores_, F @ model.coef_ + model.intercept_ + model.item_effects_, atol=1e-12
    )
    best = penalised_loglik(model, R, F)
    for delta in np.eye(2 + m) * 1e-3:
        for sign in (1, -1):
            moved = clone(model)
            moved.coef_ = model.coef_ + sign * delta[:2]
            moved.item_effects_ = model.item_effects_ + sign * delta[2:]
            moved.coef_penalty, moved.item_effect_penalty = 0.2, 1.0
            assert penalised_loglik(moved, R, F) <= best + 1e-12


# ------------------------------------------------------------------ standard errors
@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
@pytest.mark.parametrize("coef_penalty", [0.0, 0.5])
def test_coefficient_covariance_against_numerical_hessian(kind, coef_penalty, rng):
    m, d = 5, 2
    F = rng.normal(size=(m, d))
    R = sample_rankings(rng, m, 300, kind, F @ [1.0, -0.7])
    model = ItemCovariatePlackettLuce(coef_penalty=coef_penalty, tol=1e-12).fit(R, item_features=F)
    w = R.weights

    def f(beta):
        scores = F @ beta
        return float(w @ PlackettLuce.from_params(scores=scores).logpdf(R)) - 0.5 * (
            coef_penalty * beta @ beta
        )

    H = numerical_hessian(f, model.coef_, 1e-3)
    np.testing.assert_allclose(model.coef_cov_, np.linalg.inv(-H), rtol=1e-4)
    np.testing.assert_allclose(
        model.standard_errors(), np.sqrt(np.diag(np.linalg.inv(-H))), rtol=1e-4
    )
    ci = model.confint(level=0.9)
    np.testing.assert_allclose(ci.mean(axis=1), model.coef_)
    np.testing.assert_allclose(ci[:, 1] - ci[:, 0], 2 * 1.6448536 * model.standard_errors())


def test_coefficients_recovered_within_their_intervals():
    rng = np.random.default_rng(3)
    m, d = 8, 3
    F = rng.normal(size=(m, d))
    beta = np.array([1.0, -0.5, 0.25])
    R = PlackettLuce.from_params(scores=F @ beta).sample(3000, random_state=4)
    model = ItemCovariatePlackettLuce().fit(R, item_features=F)
    z = (model.coef_ - beta) / model.standard_errors()
    assert np.abs(z).max() < 3.5


# ------------------------------------------------------------------ weights, unseen items
@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
def test_weighted_equals_expanded(kind, rng):
    m = 5
    F = rng.normal(size=(m, 2))
    R = sample_rankings(rng, m, 40, kind, F @ [1.0, 0.3])
    counts = rng.integers(1, 4, size=R.n_rankings)
    sw = rng.integers(0, 3, size=R.n_rankings).astype(float)
    weighted = ItemCovariatePlackettLuce(item_effect_penalty=1.0).fit(
        R.with_weights(counts), sample_weight=sw, item_features=F
    )
    rep = np.repeat(np.arange(R.n_rankings), counts * sw.astype(int))
    expanded = ItemCovariatePlackettLuce(item_effect_penalty=1.0).fit(R[rep], item_features=F)
    np.testing.assert_allclose(weighted.coef_, expanded.coef_, atol=1e-8)
    np.testing.assert_allclose(weighted.scores_, expanded.scores_, atol=1e-8)
    np.testing.assert_allclose(weighted.coef_cov_, expanded.coef_cov_, rtol=1e-6)
    assert weighted.loglik_ == pytest.approx(expanded.loglik_, rel=1e-10)


@pytest.mark.parametrize("effects", [None, 2.0])
def test_items_never_ranked_get_the_worths_their_features_imply(effects, rng):
    m = 7
    F = rng.normal(size=(m, 2))
    R = PlackettLuce.from_params(scores=F[:5] @ [1.0, -1.0]).sample(400, random_state=0)
    R = Rankings(np.c_[R.ranks, -np.ones((400, 2), dtype=int)], kind="subset")  # 5, 6 unseen
    model = ItemCovariatePlackettLuce(item_effect_penalty=effects).fit(R, item_features=F)
    implied = F @ model.coef_ + model.intercept_
    np.testing.assert_allclose(model.scores_[5:], implied[5:], atol=1e-8)
    np.testing.assert_allclose(model.item_effects_[5:], 0.0, atol=1e-8)
    np.testing.assert_allclose(model.scores_for(F[5:]), model.scores_[5:], atol=1e-8)
    # the model on the five seen items gives the same coefficients
    seen = ItemCovariatePlackettLuce(item_effect_penalty=effects).fit(
        Rankings(R.ranks[:, :5], kind="subset"), item_features=F[:5]
    )
    if effects is None:  # (the item effects' penalty counts every item of the fit)
        np.testing.assert_allclose(seen.coef_, model.coef_, atol=1e-8)
    # rankings of the unseen items with another seen one, scored by features
    # (columns: items 5, 6 and 0 of the fit)
    R2 = Rankings.from_orderings([[0, 1, 2], [1, 2, 0]], n_items=3)
    np.testing.assert_allclose(
        model.logpdf(R2, item_features=F[[5, 6, 0]]),
        PlackettLuce.from_params(scores=model.scores_for(F[[5, 6, 0]])).logpdf(R2),
    )


def test_a_feature_only_unranked_items_have_is_not_identified(rng):
    # feature 1 is zero on every ranked item: the likelihood is flat along it
    m = 6
    F = np.c_[rng.normal(size=m), [0, 0, 0, 0, 1.0, 2.0]]
    R = PlackettLuce.from_params(scores=F[:4, 0]).sample(300, random_state=0)
    R = Rankings(np.c_[R.ranks, -np.ones((300, 2), dtype=int)], kind="subset")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ItemCovariatePlackettLuce().fit(R, item_features=F)
    alone = ItemCovariatePlackettLuce().fit(R, item_features=F[:, :1])
    assert model.rank_ == 1 and model.converged_
    np.testing.assert_allclose(model.coef_, [alone.coef_[0], 0.0], atol=1e-10)
    np.testing.assert_allclose(model.coef_cov_[1], 0.0, atol=1e-12)
    np.testing.assert_allclose(model.scores_, alone.scores_, atol=1e-10)


def test_item_effects_shrink_to_the_features_fit(rng):
    m = 6
    F = rng.normal(size=(m, 1))
    R = sample_rankings(rng, m, 500, "complete", F[:, 0] + 0.8 * rng.normal(size=m))
    free = PlackettLuce(tol=1e-12).fit(R)
    covariates = ItemCovariatePlackettLuce().fit(R, item_features=F)
    sizes = []
    for lam in (1e-4, 1.0, 1e7):
        model = ItemCovariatePlackettLuce(item_effect_penalty=lam).fit(R, item_features=F)
        sizes.append(np.abs(model.item_effects_).sum())
        if lam == 1e-4:  # free item effects: plain Plackett-Luce
            np.testing.assert_allclose(model.scores_, free.scores_, atol=1e-3)
        if lam == 1e7:  # item effects pinned at 0: features only
            np.testing.assert_allclose(model.scores_, covariates.scores_, atol=1e-3)
    assert sizes[0] > sizes[1] > sizes[2]


# ------------------------------------------------------------------ input checks
def test_bad_input_is_refused(rng):
    R = random_rankings(rng, 20, 4)
    model = ItemCovariatePlackettLuce()
    with pytest.raises(ValueError, match=r"shape \(4, d\)"):
        model.fit(R, item_features=np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"shape \(4, d\)"):
        model.fit(R, item_features=np.ones(4))
    F = rng.normal(size=(4, 2))
    F[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"row 2 .*NaN"):
        model.fit(R, item_features=F)
    with pytest.raises(ValueError, match="constant over the ranked items"):
        model.fit(R, item_features=np.ones((4, 2)))
    with pytest.raises(ValueError, match="row 0 has tied items"):
        model.fit(Rankings(np.array([[0, 0, 1, 2]] + [[0, 1, 2, 3]] * 3)))
    with pytest.raises(ValueError, match="sample_weight"):
        model.fit(R, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="item_effect_penalty"):
        ItemCovariatePlackettLuce(item_effect_penalty=0.0).fit(R)
    with pytest.raises(ValueError, match="coef_penalty"):
        ItemCovariatePlackettLuce(coef_penalty=-1.0).fit(R)
    fitted = model.fit(R, item_features=rng.normal(size=(4, 2)))
    with pytest.raises(ValueError, match=r"shape \(k, 2\)"):
        fitted.scores_for(np.ones((3, 3)))
    with pytest.raises(ValueError, match="expected 4"):
        fitted.logpdf(random_rankings(rng, 5, 3))
    with pytest.raises(ValueError, match=r"shape \(3, d\)"):
        fitted.logpdf(random_rankings(rng, 5, 3), item_features=np.ones((4, 2)))


def test_separable_features_warn_without_penalty():
    # a feature that orders every ranking perfectly: the MLE of its coefficient is infinite
    F = np.array([[3.0], [2.0], [1.0], [0.0]])
    R = Rankings.from_orderings([[0, 1, 2, 3], [0, 2, 3], [1, 3]], n_items=4)
    with pytest.warns(ConvergenceWarning, match="coef_penalty > 0"):
        ItemCovariatePlackettLuce(max_iter=50).fit(R, item_features=F)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ItemCovariatePlackettLuce(coef_penalty=0.1).fit(R, item_features=F)
    assert model.converged_ and model.coef_[0] > 0


def test_dataframe_features_keep_their_names(rng):
    pd = pytest.importorskip("pandas")
    R = random_rankings(rng, 30, 4)
    F = pd.DataFrame(rng.normal(size=(4, 2)), columns=["price", "oiliness"])
    model = ItemCovariatePlackettLuce().fit(R, item_features=F)
    assert model.feature_names_in_ == ("price", "oiliness")
    assert model.n_features_in_ == 2


def test_sample_draws_from_the_fitted_scores(rng):
    F = rng.normal(size=(4, 1))
    R = sample_rankings(rng, 4, 100, "complete", 2 * F[:, 0])
    model = ItemCovariatePlackettLuce().fit(R, item_features=F)
    S = model.sample(20000, random_state=0)
    first = np.bincount(np.argmin(S.ranks, axis=1), minlength=4) / 20000
    np.testing.assert_allclose(first, model.worths_, atol=0.015)


# ------------------------------------------------------------------ Bradley-Terry
def pairs_as_rankings(C) -> Rankings:
    """Untied comparisons as weighted two-item subset rankings (the recipe of the docs)."""
    i, j, wins_i, wins_j, _ = C.aggregate()
    winner = np.r_[i[wins_i > 0], j[wins_j > 0]]
    loser = np.r_[j[wins_i > 0], i[wins_j > 0]]
    return Rankings.from_orderings(
        np.c_[winner, loser],
        n_items=C.n_items,
        weights=np.r_[wins_i[wins_i > 0], wins_j[wins_j > 0]],
    )


def test_bradley_terry_with_item_covariates_via_two_item_rankings(rng):
    from rankclust.pairwise import BradleyTerry, Comparisons

    m = 6
    winner, loser = rng.integers(0, m, 400), rng.integers(0, m, 400)
    keep = winner != loser
    z = np.linspace(-1, 1, m)
    flip = rng.random(keep.sum()) > 1 / (1 + np.exp(z[loser[keep]] - z[winner[keep]]))
    w, lo = winner[keep], loser[keep]
    C = Comparisons.from_arrays(np.where(flip, lo, w), np.where(flip, w, lo), n_items=m)
    R = pairs_as_rankings(C)
    # the identity design is the Bradley-Terry fit
    bt = BradleyTerry(ties="none").fit(C)
    model = ItemCovariatePlackettLuce().fit(R)
    np.testing.assert_allclose(model.scores_, bt.scores_ - bt.scores_.mean(), atol=1e-6)
    # with a feature: the Bradley-Terry likelihood is maximised along it
    F = z[:, None] + 0.1 * rng.normal(size=(m, 1))
    fitted = ItemCovariatePlackettLuce().fit(R, item_features=F)
    i, j, wi, wj, _ = C.aggregate()

    def bt_loglik(beta):
        d = (F[i, 0] - F[j, 0]) * beta
        return float(wi @ -np.log1p(np.exp(-d)) + wj @ -np.log1p(np.exp(d)))

    assert fitted.loglik_ == pytest.approx(bt_loglik(fitted.coef_[0]), rel=1e-12)
    b = fitted.coef_[0]
    assert bt_loglik(b) >= max(bt_loglik(b - 1e-4), bt_loglik(b + 1e-4))


# ------------------------------------------------------------------ the function-level fit
def test_fit_covariate_scores_reuses_stages_with_responsibilities(rng):
    from rankclust.models.plackett_luce_covariates import fit_covariate_scores

    m = 6
    F = rng.normal(size=(m, 2))
    R = sample_rankings(rng, m, 120, "subset", F @ [1.0, -1.0])
    stages = choice_stages(R)
    resp = rng.random(R.n_rankings)  # a mixture's responsibilities of one component
    got = fit_covariate_scores(stages, F, resp, item_effect_penalty=3.0)
    model = ItemCovariatePlackettLuce(item_effect_penalty=3.0).fit(
        R, sample_weight=resp, item_features=F
    )
    np.testing.assert_allclose(got.coef, model.coef_, atol=1e-10)
    np.testing.assert_allclose(got.scores, model.scores_, atol=1e-10)
    np.testing.assert_allclose(got.coef_cov, model.coef_cov_, rtol=1e-8)
    assert got.loglik == pytest.approx(model.loglik_, rel=1e-12)
    # a warm start at the optimum: no L-BFGS iteration needed, the same estimate
    again = fit_covariate_scores(stages, F, resp, item_effect_penalty=3.0, init=got, max_iter=0)
    assert again.converged and again.n_iter <= 2
    np.testing.assert_allclose(again.coef, got.coef, atol=1e-9)
    np.testing.assert_allclose(again.item_effects, got.item_effects, atol=1e-9)
    with pytest.raises(ValueError, match="init must be a CovariateScores with 3"):
        fit_covariate_scores(stages, np.c_[F, F[:, 0] ** 2], resp, init=got)


def test_dataframe_features_are_matched_to_item_names(rng):
    pd = pytest.importorskip("pandas")
    names = ("ebi", "anago", "maguro", "ika", "uni")
    F = rng.normal(size=(5, 2))
    R0 = sample_rankings(rng, 5, 200, "complete", F @ [1.0, -1.0])
    R = Rankings(R0.ranks, items=names)
    by_position = ItemCovariatePlackettLuce().fit(R0, item_features=F)
    shuffled = pd.DataFrame(F, index=list(names), columns=["a", "b"]).iloc[[3, 0, 4, 2, 1]]
    model = ItemCovariatePlackettLuce().fit(R, item_features=shuffled)
    np.testing.assert_allclose(model.coef_, by_position.coef_, atol=1e-10)
    np.testing.assert_allclose(model.scores_, by_position.scores_, atol=1e-10)
    # new rankings with names: their features are matched by name too
    R2 = Rankings(R0.ranks[:10][:, [0, 2]], items=("ebi", "maguro"), kind="subset")
    np.testing.assert_allclose(
        model.logpdf(R2, item_features=shuffled.loc[["maguro", "ebi"]]),
        model.logpdf(R2, item_features=F[[0, 2]]),
    )
    bad = shuffled.rename(index={"uni": "toro"})
    with pytest.raises(
        ValueError, match=r"unknown item\(s\) \['toro'\]; missing item\(s\) \['uni'\]"
    ):
        ItemCovariatePlackettLuce().fit(R, item_features=bad)
