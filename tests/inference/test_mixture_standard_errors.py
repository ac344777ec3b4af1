"""Standard errors of the ranking mixtures (rankclust.cluster._mixture_information)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from rankclust import Rankings
from rankclust.cluster._mixture_information import _sum_zero_basis
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture
from rankclust.datasets import make_mallows_mixture, make_plackett_luce_mixture
from rankclust.inference import (
    MixtureStandardErrors,
    mixture_information,
    mixture_standard_errors,
    mixture_vcov,
    plackett_luce_vcov,
)
from rankclust.models import Mallows, mallows_theta_standard_error

CENTERS3 = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]]


def _phi(est) -> np.ndarray:
    """The free parameters of a fit (logits against the last weight, then eta_k)."""
    a = np.log(est.weights_[:-1]) - np.log(est.weights_[-1])
    if isinstance(est, MallowsMixture):
        return np.concatenate([a, est.thetas_])
    B = _sum_zero_basis(est.scores_.shape[1])
    return np.concatenate([a, (est.scores_ @ B).ravel()])


def _loglik(est, R: Rankings, phi: np.ndarray) -> float:
    """The observed log-likelihood at phi, through the mixture's own score_samples."""
    e = copy.deepcopy(est)
    k = len(est.weights_)
    a = np.append(phi[: k - 1], 0.0)
    e.weights_ = np.exp(a - a.max()) / np.exp(a - a.max()).sum()
    if isinstance(est, MallowsMixture):
        e.thetas_ = phi[k - 1 :].copy()
    else:
        m = est.scores_.shape[1]
        e.scores_ = phi[k - 1 :].reshape(k, m - 1) @ _sum_zero_basis(m).T
        e.worths_ = np.exp(e.scores_)
    return float(R.weights @ e.score_samples(R))


def _numerical_hessian(f, x: np.ndarray, h: float = 1e-2) -> np.ndarray:
    """Central differences, Richardson-extrapolated from steps h and h/2."""

    def plain(step: float) -> np.ndarray:
        n = x.size
        H = np.empty((n, n))
        E = np.eye(n) * step
        for a in range(n):
            for b in range(a, n):
                H[a, b] = H[b, a] = (
                    f(x + E[a] + E[b]) - f(x + E[a] - E[b]) - f(x - E[a] + E[b])
                    + f(x - E[a] - E[b])
                ) / (4 * step * step)  # fmt: skip
        return H

    return (4 * plain(h / 2) - plain(h)) / 3


def _check_against_numerical(est, R: Rankings) -> None:
    info = mixture_information(est, R)
    H = _numerical_hessian(lambda p: _loglik(est, R, p), _phi(est))
    V, Vnum = np.linalg.inv(info), np.linalg.inv(-H)
    np.testing.assert_allclose(np.sqrt(np.diag(V)), np.sqrt(np.diag(Vnum)), rtol=1e-4)
    assert np.abs(V - Vnum).max() <= 1e-4 * np.abs(Vnum).max()


@pytest.fixture(scope="module")
def mallows_top() -> tuple[MallowsMixture, Rankings]:
    R, _ = make_mallows_mixture(
        400, 5, 3, centers=CENTERS3, thetas=1.0, kind="top", lengths=(2, 5), random_state=0
    )
    R = R.with_weights(np.random.default_rng(0).integers(1, 4, R.n_rankings).astype(float))
    return MallowsMixture(n_components=3, n_init=3, random_state=0).fit(R), R


def test_mallows_top_t_weighted_equals_inverse_numerical_hessian(mallows_top) -> None:
    _check_against_numerical(*mallows_top)


def test_mallows_subset_equals_inverse_numerical_hessian() -> None:
    R, _ = make_mallows_mixture(
        300, 5, 2, centers=CENTERS3[:2], thetas=1.0, kind="subset", lengths=(2, 5),
        random_state=1,
    )  # fmt: skip
    _check_against_numerical(MallowsMixture(n_init=3, random_state=0).fit(R), R)


@pytest.mark.parametrize("kind", ["top", "subset"])
def test_plackett_luce_equals_inverse_numerical_hessian(kind) -> None:
    R, _ = make_plackett_luce_mixture(500, 4, 2, kind=kind, lengths=(2, 4), random_state=0)
    _check_against_numerical(PlackettLuceMixture(n_init=3, random_state=0).fit(R), R)


def test_plackett_luce_complete_equals_inverse_numerical_hessian() -> None:
    R, _ = make_plackett_luce_mixture(500, 4, 2, random_state=2)
    _check_against_numerical(PlackettLuceMixture(n_init=3, random_state=0).fit(R), R)


def test_one_component_is_the_single_mallows_model(mallows_top) -> None:
    _, R = mallows_top
    one = MallowsMixture(n_components=1, random_state=0).fit(R)
    se = mixture_standard_errors(one, R)
    expected = mallows_theta_standard_error(R, one.center_positions_[0], one.thetas_[0])
    assert se.thetas_se[0] == pytest.approx(expected, rel=1e-10)
    assert se.weights_se[0] == 0.0


def test_one_component_is_the_single_plackett_luce_model() -> None:
    R, _ = make_plackett_luce_mixture(300, 5, 1, kind="top", lengths=(1, 5), random_state=0)
    one = PlackettLuceMixture(n_components=1, random_state=0).fit(R)
    V = mixture_vcov(one, R)
    expected = plackett_luce_vcov(R, one.scores_[0], check_stationary=False)
    np.testing.assert_allclose(V[1:, 1:], expected, rtol=1e-10, atol=1e-14)
    se = mixture_standard_errors(one, R)
    np.testing.assert_allclose(se.scores_se[0], np.sqrt(np.diag(expected)), rtol=1e-10)


def test_weights_are_counts_of_identical_ballots(mallows_top) -> None:
    est, R = mallows_top
    expanded = R[np.repeat(np.arange(R.n_rankings), R.weights.astype(int))].with_weights(None)
    np.testing.assert_allclose(
        mixture_information(est, expanded), mixture_information(est, R), rtol=1e-10
    )
    # sample_weight multiplies R.weights
    half = R.with_weights(R.weights / 2)
    np.testing.assert_allclose(
        mixture_information(est, half, sample_weight=np.full(R.n_rankings, 2.0)),
        mixture_information(est, R),
        rtol=1e-12,
    )


def test_result_intervals_and_vcov(mallows_top) -> None:
    est, R = mallows_top
    se = mixture_standard_errors(est, R)
    assert isinstance(se, MixtureStandardErrors)
    assert se.scores is None and se.thetas_se.shape == (3,)
    V = mixture_vcov(est, R)
    np.testing.assert_allclose(se.vcov, V)
    np.testing.assert_allclose(se.weights_se, np.sqrt(np.diag(V)[:3]))
    # the weights sum to one: their covariance rows sum to zero
    np.testing.assert_allclose(V[:3, :3].sum(axis=1), 0.0, atol=1e-12)
    ints = se.intervals(0.95)
    np.testing.assert_allclose(ints["thetas"][:, 1] - est.thetas_, 1.959964 * se.thetas_se, 1e-6)
    assert ints["weights"].shape == (3, 2)
    text = se.to_markdown()
    assert "thetas[2]" in text and "95% interval" in text
    with pytest.raises(ValueError, match="level"):
        se.intervals(1.0)


def test_theta_at_the_cap_has_no_standard_error(mallows_top) -> None:
    est, R = mallows_top
    capped = copy.deepcopy(est)
    capped.thetas_ = est.thetas_.copy()
    capped.thetas_[2] = est.theta_max
    se = mixture_standard_errors(capped, R)
    assert np.isnan(se.thetas_se[2]) and np.isfinite(se.thetas_se[:2]).all()
    assert mixture_information(capped, R).shape == (4, 4)


def test_identical_components_are_refused(mallows_top) -> None:
    est, R = mallows_top
    twin = copy.deepcopy(est)
    twin.center_positions_ = np.repeat(est.center_positions_[:1], 3, axis=0)
    twin.thetas_ = np.repeat(est.thetas_[:1], 3)
    with pytest.raises(ValueError, match="singular"):
        mixture_standard_errors(twin, R)


def test_bad_input(mallows_top) -> None:
    est, R = mallows_top
    with pytest.raises(TypeError, match="MallowsMixture"):
        mixture_standard_errors(Mallows().fit(R), R)
    with pytest.raises(NotFittedError):
        mixture_standard_errors(MallowsMixture(), R)
    with pytest.raises(ValueError, match="alpha"):
        Rp, _ = make_plackett_luce_mixture(100, 4, 2, random_state=0)
        mixture_standard_errors(PlackettLuceMixture(n_init=2, alpha=0.5).fit(Rp), Rp)
    with pytest.raises(ValueError):
        mixture_standard_errors(est, Rankings.from_orderings([[0, 1, 2]], kind="top"))
