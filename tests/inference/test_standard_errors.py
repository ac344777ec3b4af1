"""Standard errors: Plackett-Luce observed information and Mallows theta information."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.inference import (
    change_reference,
    mallows_theta_information,
    mallows_theta_standard_error,
    plackett_luce_information,
    plackett_luce_vcov,
    quasi_variances,
    wald_intervals,
)
from rankclust.models._pl_information import _log_objective
from rankclust.models.mallows import Mallows, mallows_loglik
from rankclust.models.plackett_luce import PlackettLuce, choice_stages

DATA = Path(
    os.environ.get("RANKCLUST_DATA", Path(__file__).resolve().parents[3] / "shared" / "data")
)


def numerical_hessian(f, x: np.ndarray, h: float = 1e-2) -> np.ndarray:
    """Central differences of ``f``, Richardson-extrapolated from steps h and h/2."""

    def plain(step: float) -> np.ndarray:
        n = x.size
        H = np.empty((n, n))
        E = np.eye(n) * step
        for a in range(n):
            for b in range(a, n):
                H[a, b] = H[b, a] = (
                    f(x + E[a] + E[b])
                    - f(x + E[a] - E[b])
                    - f(x - E[a] + E[b])
                    + f(x - E[a] - E[b])
                ) / (4 * step * step)
        return H

    return (4 * plain(h / 2) - plain(h)) / 3


def relabel_subset(ranks: np.ndarray) -> np.ndarray:
    """Re-number the present positions of each row 0..l-1."""
    key = np.where(ranks >= 0, ranks, ranks.shape[1] + 1)
    dense = np.argsort(np.argsort(key, axis=1), axis=1)
    return np.where(ranks >= 0, dense, -1)


def random_data(kind: str, seed: int, n: int = 40, m: int = 5) -> Rankings:
    rng = np.random.default_rng(seed)
    true = PlackettLuce.from_params(scores=rng.normal(size=m))
    if kind == "complete":
        return true.sample(n, random_state=seed)
    if kind == "top":
        return true.sample(n, random_state=seed, lengths=rng.integers(1, m + 1, n))
    ranks = true.sample(n, random_state=seed).ranks.copy()
    ranks[rng.random(ranks.shape) < 0.3] = -1
    return Rankings(relabel_subset(ranks), kind="subset")


def sum_zero_inverse(H: np.ndarray) -> np.ndarray:
    m = H.shape[0]
    B, _ = np.linalg.qr(np.eye(m)[:, :-1] - 1.0 / m)
    return B @ np.linalg.inv(B.T @ -H @ B) @ B.T


# ----------------------------------------------------------------------------- PL information
@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
@pytest.mark.parametrize("alpha", [0.0, 0.7])
def test_information_is_the_negative_numerical_hessian(kind, alpha):
    R = random_data(kind, seed=3)
    rng = np.random.default_rng(1)
    w = rng.random(R.n_rankings) * 2
    z = rng.normal(size=R.n_items)
    z -= np.log(np.mean(np.exp(z)))  # the MAP scale: worths of mean 1
    stages = choice_stages(R)
    row_w = stages.row_weights(w)
    H = numerical_hessian(lambda x: _log_objective(stages, row_w, x, alpha), z)
    info = plackett_luce_information(R, z, w, alpha=alpha)
    np.testing.assert_allclose(info, -H, rtol=1e-6, atol=1e-6 * np.abs(H).max())
    assert np.allclose(info, info.T)
    if alpha == 0:
        np.testing.assert_allclose(info.sum(axis=1), 0, atol=1e-12 * np.abs(info).max())


@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_vcov_at_the_fit_is_the_inverse_numerical_hessian(kind, alpha):
    R = random_data(kind, seed=11, n=60)
    model = PlackettLuce(alpha=alpha, tol=1e-13, max_iter=100_000).fit(R)
    stages = choice_stages(R)
    row_w = stages.row_weights()
    z_hat = model.scores_ - (np.log(np.mean(np.exp(model.scores_))) if alpha else 0.0)
    H = numerical_hessian(lambda x: _log_objective(stages, row_w, x, alpha), z_hat)
    if alpha:
        P = np.eye(R.n_items) - 1.0 / R.n_items
        expected = P @ np.linalg.inv(-H) @ P
    else:
        expected = sum_zero_inverse(H)
    V = model.vcov(R)
    np.testing.assert_allclose(np.sqrt(np.diag(V)), np.sqrt(np.diag(expected)), rtol=1e-6)
    np.testing.assert_allclose(V, expected, atol=1e-6 * np.abs(expected).max())
    np.testing.assert_allclose(V.sum(axis=1), 0, atol=1e-10)


def test_two_items_known_variance():
    """Bradley-Terry with one pair: Var(z_a - z_b) = 1 / (n p (1 - p)), p the win share."""
    R = Rankings.from_orderings([[0, 1]] * 30 + [[1, 0]] * 10)
    model = PlackettLuce().fit(R)
    p = 0.75
    var_diff = 1 / (40 * p * (1 - p))
    np.testing.assert_allclose(model.scores_[0] - model.scores_[1], np.log(3), rtol=1e-8)
    V = model.vcov(R)
    np.testing.assert_allclose(V, var_diff / 4 * np.array([[1, -1], [-1, 1]]), rtol=1e-8)
    np.testing.assert_allclose(model.vcov(R, reference=1)[0, 0], var_diff, rtol=1e-8)
    np.testing.assert_allclose(model.standard_errors(R), np.sqrt(var_diff) / 2, rtol=1e-8)


def test_weights_equal_duplication():
    R = random_data("top", seed=5, n=30)
    counts = np.random.default_rng(0).integers(1, 4, R.n_rankings)
    expanded = R[np.repeat(np.arange(R.n_rankings), counts)]
    m1 = PlackettLuce(tol=1e-13).fit(R, sample_weight=counts)
    m2 = PlackettLuce(tol=1e-13).fit(expanded)
    np.testing.assert_allclose(m1.vcov(R, counts), m2.vcov(expanded), rtol=1e-7)
    weighted = R.with_weights(counts.astype(float))
    np.testing.assert_allclose(
        PlackettLuce(tol=1e-13).fit(weighted).vcov(weighted), m2.vcov(expanded), rtol=1e-7
    )


@pytest.mark.parametrize("kind", ["top", "subset"])
def test_relabelling_items_permutes_the_vcov(kind):
    R = random_data(kind, seed=8, n=80)
    perm = np.random.default_rng(2).permutation(R.n_items)  # new item j is old item perm[j]
    R2 = Rankings(R.ranks[:, perm], kind=R.kind)
    V = PlackettLuce(tol=1e-13).fit(R).vcov(R)
    V2 = PlackettLuce(tol=1e-13).fit(R2).vcov(R2)
    np.testing.assert_allclose(V2, V[np.ix_(perm, perm)], rtol=1e-6, atol=1e-12)


def test_change_reference_keeps_contrasts():
    R = random_data("complete", seed=2, n=50, m=4)
    model = PlackettLuce(tol=1e-13).fit(R)
    V = model.vcov(R)
    V2 = model.vcov(R, reference=2)
    assert np.all(V2[2] == 0) and np.all(V2[:, 2] == 0)
    c = np.array([1.0, -0.5, 0.2, -0.7])
    np.testing.assert_allclose(c @ V @ c, c @ V2 @ c, rtol=1e-10)
    np.testing.assert_allclose(change_reference(V2, None), V, atol=1e-14)
    ci = model.confint(R, reference=2)
    assert np.all(ci[2] == 0)
    with pytest.raises(ValueError, match="reference"):
        change_reference(V, 4)


def test_nonstationary_scores_and_missing_mle_raise():
    R = random_data("complete", seed=4, n=30)
    with pytest.raises(ValueError, match="not the maximiser"):
        plackett_luce_vcov(R, np.zeros(R.n_items) + np.arange(R.n_items))
    never_loses = Rankings.from_orderings([[0, 1, 2], [0, 2, 1]])
    # no finite scores maximise the likelihood: any finite scores fail the stationarity check
    with pytest.raises(ValueError, match="not the maximiser"):
        plackett_luce_vcov(never_loses, [5.0, 0.0, 0.0])
    # two groups never compared: the information is singular beyond the common shift
    split = Rankings.from_orderings([[0, 1], [1, 0], [2, 3], [3, 2]], n_items=4, kind="subset")
    with pytest.raises(ValueError, match="does not exist"):
        plackett_luce_vcov(split, np.zeros(4))
    # with a prior the same data have a finite MAP and finite standard errors
    model = PlackettLuce(alpha=1.0).fit(never_loses)
    assert np.isfinite(model.standard_errors(never_loses)).all()


def test_confint_and_wald_intervals():
    R = random_data("top", seed=6, n=100)
    model = PlackettLuce().fit(R)
    ci = model.confint(R, level=0.9)
    se = model.standard_errors(R)
    np.testing.assert_allclose(ci[:, 1] - ci[:, 0], 2 * 1.6448536269514722 * se, rtol=1e-9)
    np.testing.assert_allclose(ci.mean(axis=1), model.scores_, atol=1e-12)
    np.testing.assert_allclose(wald_intervals([1.0], [0.5]), [[0.020018, 1.979982]], atol=1e-6)
    with pytest.raises(ValueError, match="level"):
        wald_intervals([1.0], [0.5], level=1.0)


# ----------------------------------------------------------------------------- quasi-variances
def test_quasi_variances_exact_when_contrasts_are_additive():
    a = np.array([0.3, 0.1, 0.25, 0.05, 0.2])
    b = np.array([0.4, -0.1, 0.0, 0.3, 0.2])
    V = np.diag(a) + b[:, None] + b[None, :]  # Var(z_j - z_k) = a_j + a_k
    q, err = quasi_variances(V)
    np.testing.assert_allclose(q, a, rtol=1e-8)
    assert np.abs(err).max() < 1e-7


def test_quasi_variances_bound_the_simple_contrasts():
    R = random_data("top", seed=9, n=150, m=6)
    model = PlackettLuce().fit(R)
    V = model.vcov(R)
    q, (lo, hi) = quasi_variances(V)
    j, k = np.triu_indices(6, 1)
    var = np.diag(V)[j] + np.diag(V)[k] - 2 * V[j, k]
    rel = np.sqrt((q[j] + q[k]) / var) - 1
    assert lo - 1e-9 <= rel.min() and rel.max() <= hi + 1e-9
    np.testing.assert_allclose(model.quasi_standard_errors(R), np.sqrt(q))
    # the same in any parametrisation
    np.testing.assert_allclose(quasi_variances(change_reference(V, 0))[0], q, rtol=1e-6)
    with pytest.raises(ValueError, match="at least 3"):
        quasi_variances(np.eye(2))


# ----------------------------------------------------------------------------- real data
@pytest.mark.skipif(not (DATA / "apa_1980").exists(), reason="shared data absent")
def test_apa_standard_errors_match_numerical_hessian():
    from rankclust.io import read_rankings

    R = read_rankings(DATA / "apa_1980" / "d_apa_orderings.csv", format="orderings")
    model = PlackettLuce(tol=1e-13).fit(R)
    stages = choice_stages(R)
    H = numerical_hessian(
        lambda x: _log_objective(stages, stages.row_weights(), x, 0.0), model.scores_
    )
    np.testing.assert_allclose(
        model.standard_errors(R), np.sqrt(np.diag(sum_zero_inverse(H))), rtol=1e-4
    )


# ----------------------------------------------------------------------------- Mallows theta
def mallows_second_derivative(R, center, theta, w=None, h=1e-3):
    def f(t):
        ll = mallows_loglik(R, center, t)
        return float(ll @ (R.weights if w is None else R.weights * w))

    return (
        -f(theta + 2 * h)
        + 16 * f(theta + h)
        - 30 * f(theta)
        + 16 * f(theta - h)
        - f(theta - 2 * h)
    ) / (12 * h * h)


@pytest.mark.parametrize("lengths", [None, "top"])
@pytest.mark.parametrize("theta", [0.05, 0.6, 2.0])
def test_mallows_information_is_minus_the_second_derivative(lengths, theta):
    m = 6
    center = np.array([3, 0, 5, 1, 2, 4])
    rng = np.random.default_rng(0)
    ell = rng.integers(1, m + 1, 70) if lengths else None
    R = Mallows.from_params(center=center, theta=0.8).sample(70, random_state=1, lengths=ell)
    w = rng.random(70) + 0.5
    info = mallows_theta_information(R, theta, w)
    np.testing.assert_allclose(info, -mallows_second_derivative(R, center, theta, w), rtol=1e-6)


def test_mallows_information_known_value_and_se():
    # uniform permutations: Var(inversions) = m (m - 1) (2 m + 5) / 72
    m = 5
    R = Mallows.from_params(center=np.arange(m), theta=1.0).sample(10, random_state=0)
    np.testing.assert_allclose(
        mallows_theta_information(R, 0.0), 10 * m * (m - 1) * (2 * m + 5) / 72, rtol=1e-12
    )
    model = Mallows().fit(R)
    se = model.theta_standard_error(R)
    np.testing.assert_allclose(se, 1 / np.sqrt(mallows_theta_information(R, model.theta_)))
    assert se == mallows_theta_standard_error(R, model.center_, model.theta_)
    lo, hi = model.theta_confint(R)
    assert lo >= 0 and hi > model.theta_


def test_mallows_weights_equal_duplication_and_subset_refused():
    R = Mallows.from_params(center=[2, 0, 1, 3], theta=0.7).sample(25, random_state=3)
    counts = np.arange(25) % 3 + 1
    expanded = R[np.repeat(np.arange(25), counts)]
    np.testing.assert_allclose(
        mallows_theta_information(R, 0.7, counts), mallows_theta_information(expanded, 0.7)
    )
    ranks = R.ranks.copy()
    ranks[0, ranks[0] == 3] = -1
    with pytest.raises(ValueError, match="subset"):
        mallows_theta_information(Rankings(ranks, kind="subset"), 0.7)
    # all rankings at the centre: the MLE is at the cap and has no standard error
    at_centre = Rankings(np.tile([2, 0, 1, 3], (5, 1)))
    model = Mallows().fit(at_centre)
    assert np.isnan(model.theta_standard_error(at_centre))
