"""Standard errors of the Bradley-Terry mixture: Louis's observed information over assessors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import logsumexp

from rankclust.inference import mixture_information, mixture_standard_errors, mixture_vcov
from rankclust.pairwise import BradleyTerry, BradleyTerryMixture, Comparisons

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _data(ties: bool, seed: int = 0) -> Comparisons:
    """30 assessors in two groups with opposite worths over 4 items, 10 comparisons each
    (Davidson ties with nu = 0.6 when ``ties``); counts 1 or 2."""
    rng = np.random.default_rng(seed)
    z = np.array([1.0, 0.4, -0.3, -1.1])
    w, lo, a, t, c = [], [], [], [], []
    for who in range(30):
        zz = z if who < 18 else -z
        for _ in range(10):
            i, j = rng.choice(4, size=2, replace=False)
            s = np.array([zz[i], zz[j], np.log(0.6) + 0.5 * (zz[i] + zz[j]) if ties else -np.inf])
            p = np.exp(s - logsumexp(s))
            out = rng.choice(3, p=p)
            w.append(i if out != 1 else j)
            lo.append(j if out != 1 else i)
            t.append(out == 2)
            a.append(who)
            c.append(1 + (rng.random() < 0.2))
    return Comparisons.from_arrays(w, lo, assessor=a, tie=t, count=c)


def _log_posterior(phi: np.ndarray, C: Comparisons, K: int, alpha: float, ties: bool) -> float:
    """The mixture's log-posterior, written out independently of the library."""
    m = C.n_items
    dim = m + (1 if ties else 0)
    a = np.append(phi[: K - 1], 0.0)
    log_pi = a - logsumexp(a)
    blocks = phi[K - 1 :].reshape(K, dim)
    L = np.zeros((C.n_assessors, K))
    prior = 0.0
    for k in range(K):
        z = blocks[k, :m]
        zw, zl = z[C.winner], z[C.loser]
        if ties:
            st = blocks[k, m] + 0.5 * (zw + zl)
            lse = logsumexp(np.stack([zw, zl, st]), axis=0)
            logp = np.where(C.tie, st, zw) - lse
        else:
            logp = zw - np.logaddexp(zw, zl)
        L[:, k] = np.bincount(C.assessor, C.count * logp, minlength=C.n_assessors)
        prior += alpha * np.sum(z - np.exp(z))
    return float(logsumexp(L + log_pi, axis=1).sum() + prior)


def _phi(mix: BradleyTerryMixture, ties: bool) -> np.ndarray:
    """Logits, then per component the uncentred log-worths (sum exp = m) and log nu."""
    w = mix.weights_
    parts = [np.log(w[:-1]) - np.log(w[-1])]
    m = mix.n_items_
    for k, s in enumerate(mix.scores_):
        parts.append(s + np.log(m / np.exp(s).sum()))
        if ties:
            parts.append([np.log(mix.tie_strengths_[k])])
    return np.concatenate(parts)


def _hessian(f, x: np.ndarray, h: float = 1e-3) -> np.ndarray:
    """Central second differences, Richardson-extrapolated from steps h and h/2."""

    def plain(step: float) -> np.ndarray:
        n = x.size
        H = np.empty((n, n))
        E = np.eye(n) * step
        for i in range(n):
            for j in range(i, n):
                H[i, j] = H[j, i] = (
                    f(x + E[i] + E[j]) - f(x + E[i] - E[j]) - f(x - E[i] + E[j])
                    + f(x - E[i] - E[j])
                ) / (4 * step * step)  # fmt: skip
        return H

    return (4 * plain(h / 2) - plain(h)) / 3


@pytest.mark.parametrize("ties", [False, True])
def test_information_is_the_numerical_hessian_of_the_log_posterior(ties):
    C = _data(ties)
    mix = BradleyTerryMixture(2, alpha=0.5, n_init=3, tol=1e-14, max_iter=2000,
                              random_state=0).fit(C)  # fmt: skip
    phi = _phi(mix, ties)

    def f(p):
        return _log_posterior(p, C, 2, 0.5, ties)

    # the fit is the MAP: the gradient of the log-posterior vanishes at phi
    eye = np.eye(phi.size) * 1e-5
    grad = np.array([(f(phi + e) - f(phi - e)) / 2e-5 for e in eye])
    assert np.abs(grad).max() < 1e-4
    info = mixture_information(mix, C)
    H = _hessian(f, phi)
    np.testing.assert_allclose(info, -H, rtol=1e-4, atol=1e-4 * np.abs(H).max())
    np.testing.assert_allclose(
        np.linalg.inv(info), np.linalg.inv(-H), rtol=1e-4,
        atol=1e-4 * np.abs(np.linalg.inv(info)).max(),
    )  # fmt: skip
    se = mixture_standard_errors(mix, C)
    assert se.scores_se.shape == (2, 4) and se.weights_se.shape == (2,)
    # the two weights sum to one: equal standard errors
    assert se.weights_se[0] == pytest.approx(se.weights_se[1], rel=1e-8)
    # the reported scores sum to zero: each component's covariance block sums to zero
    V = mixture_vcov(mix, C)
    dim = 4 + (1 if ties else 0)
    block = V[2 : 2 + 4, 2 : 2 + 4]
    np.testing.assert_allclose(block.sum(axis=0), 0.0, atol=1e-10)
    assert V.shape == (2 + 2 * dim, 2 + 2 * dim)
    if ties:
        assert se.tie_strengths_se.shape == (2,) and np.all(se.tie_strengths_se > 0)
    else:
        assert se.tie_strengths is None


@pytest.mark.parametrize("ties", [False, True])
def test_one_component_equals_bradley_terry_standard_errors(ties):
    C = _data(ties, seed=1)
    mix = BradleyTerryMixture(1, alpha=0.3, random_state=0).fit(C)
    bt = BradleyTerry(alpha=0.3).fit(C)
    np.testing.assert_allclose(mix.scores_[0], bt.scores_, atol=1e-8)
    se = mix.standard_errors(C)
    ref = bt.standard_errors(C)
    np.testing.assert_allclose(se.scores_se[0], ref[:4], rtol=1e-6)
    assert se.weights_se[0] == pytest.approx(0.0, abs=1e-12)
    if ties:  # the delta method: se(nu) = nu se(log nu)
        assert se.tie_strengths_se[0] == pytest.approx(bt.tie_strength_ * ref[4], rel=1e-5)


def test_wald_intervals_cover_the_planted_groups_and_bad_input():
    C = _data(False)
    mix = BradleyTerryMixture(2, n_init=3, random_state=0).fit(C)
    se = mix.standard_errors(C)
    ints = se.intervals(0.95)
    assert ints["scores"].shape == (2, 4, 2) and ints["weights"].shape == (2, 2)
    big = int(np.argmax(mix.weights_))  # the 18 assessors of the first group
    assert ints["weights"][big, 0] < 0.6 < ints["weights"][big, 1]
    assert "| scores[1, 3] |" in se.to_markdown()
    with pytest.raises(ValueError, match="sample_weight"):
        mixture_standard_errors(mix, C, sample_weight=np.ones(C.n_comparisons))
    with pytest.raises(ValueError, match="ties in one"):
        mix.standard_errors(_data(True))
    with pytest.raises(ValueError, match="no assessor column"):
        mix.standard_errors(Comparisons.from_arrays([0, 1], [1, 2], n_items=4))
    with pytest.raises(TypeError, match="Comparisons"):
        mix.standard_errors(np.zeros((3, 2)))
