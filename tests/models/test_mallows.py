"""Tests of rankclust.models.mallows: brute force over all permutations for small m."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from rankclust import Rankings
from rankclust import _compiled as C
from rankclust.models import Mallows
from rankclust.models import _mallows_kernels as K
from rankclust.models import mallows as M
from rankclust.models.mallows import (
    THETA_MAX,
    estimate_center,
    estimate_theta,
    expected_distance,
    log_normalizer,
    mallows_loglik,
    most_probable_extension,
    sample_mallows,
    theta_mle,
)

THETAS = [0.0, 0.05, 0.7, 2.0, 10.0]


# --------------------------------------------------------------------------------------------
# brute-force references
# --------------------------------------------------------------------------------------------
def all_orderings(m: int) -> np.ndarray:
    """All m! orderings (items best first), shape (m!, m)."""
    return np.array(list(itertools.permutations(range(m))), dtype=np.int64).reshape(-1, m)


def positions(orderings: np.ndarray) -> np.ndarray:
    return np.argsort(orderings, axis=1)


def kendall_brute(pos: np.ndarray, center: np.ndarray) -> np.ndarray:
    """Discordant pairs of each complete position vector with the centre."""
    a = np.sign(pos[:, :, None] - pos[:, None, :])
    b = np.sign(center[:, None] - center[None, :])
    return ((a * b[None]) < 0).sum(axis=(1, 2)) // 2


def brute_logpmf(m: int, center: np.ndarray, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """(orderings, log pmf) of Mallows over all m! rankings, normalised by brute force."""
    orders = all_orderings(m)
    logw = -theta * kendall_brute(positions(orders), center)
    return orders, logw - logsumexp(logw)


def random_center(rng: np.random.Generator, m: int) -> np.ndarray:
    return rng.permutation(m).astype(np.int64)


def ref_sample(order: np.ndarray, theta: float, uniforms: np.ndarray, lengths: np.ndarray):
    """Pure-python stage-wise sampler (reference of the numba kernel)."""
    n, m = len(lengths), len(order)
    out = np.full((n, m), -1, dtype=np.int64)
    for i in range(n):
        rem = list(order)
        for j in range(min(lengths[i], m - 1)):
            k = len(rem)
            weights = np.exp(-theta * np.arange(k))
            cdf = np.cumsum(weights) / weights.sum()
            v = min(int(np.searchsorted(cdf, uniforms[i, j], side="right")), k - 1)
            out[i, rem.pop(v)] = j
        if lengths[i] >= m and m > 0:
            out[i, rem[0]] = m - 1
    return out


# --------------------------------------------------------------------------------------------
# normaliser and expected distance
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m", range(1, 7))
@pytest.mark.parametrize("theta", THETAS)
def test_log_normalizer_matches_brute_force(m, theta):
    center = np.arange(m)
    d = kendall_brute(positions(all_orderings(m)), center)
    assert log_normalizer(theta, m) == pytest.approx(logsumexp(-theta * d), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("m", range(1, 7))
@pytest.mark.parametrize("theta", THETAS)
def test_expected_distance_matches_brute_force(m, theta):
    rng = np.random.default_rng(m)
    center = random_center(rng, m)
    orders, logp = brute_logpmf(m, center, theta)
    d = kendall_brute(positions(orders), center)
    assert expected_distance(theta, m) == pytest.approx(np.exp(logp) @ d, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize(
    ("m", "values"),
    [
        (3, [1.057384, 0.693731, 0.268266, 0.013476, 9.1e-05]),
        (5, [3.067174, 1.749137, 0.579732, 0.027043, 0.000182]),
        (10, [9.924107, 4.633472, 1.362276, 0.060961, 0.000409]),
        (16, [19.052092, 8.125028, 2.301382, 0.101663, 0.000681]),
    ],
)
def test_expected_distance_spec_table(m, values):
    # g_n(theta) at theta = 0.5, 1, 2, 5, 10, computed independently (decisions.md C2)
    got = expected_distance(np.array([0.5, 1.0, 2.0, 5.0, 10.0]), m)
    np.testing.assert_allclose(got, values, rtol=2e-6, atol=1e-6)
    assert expected_distance(0.0, m) == m * (m - 1) / 4


def test_two_items_closed_forms():
    th = np.linspace(0, 5, 11)
    np.testing.assert_allclose(log_normalizer(th, 2), np.log1p(np.exp(-th)), rtol=1e-14)
    np.testing.assert_allclose(expected_distance(th, 2), np.exp(-th) / (1 + np.exp(-th)))


@pytest.mark.parametrize("m", [2, 5, 12])
@pytest.mark.parametrize("theta", [0.01, 0.5, 3.0])
def test_expected_distance_is_minus_derivative_of_log_normalizer(m, theta):
    h = 1e-6
    for t in range(m + 1):
        fd = -(log_normalizer(theta + h, m, t) - log_normalizer(theta - h, m, t)) / (2 * h)
        assert expected_distance(theta, m, t) == pytest.approx(fd, rel=1e-6, abs=1e-9)


def test_small_and_large_theta_are_stable():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for m in (2, 10, 50):
            assert log_normalizer(0.0, m) == pytest.approx(math.lgamma(m + 1), rel=1e-14)
            for tiny in (1e-300, 1e-12, 1e-8, 1e-5):
                # continuous at 0 and free of cancellation
                assert log_normalizer(tiny, m) == pytest.approx(math.lgamma(m + 1), rel=1e-4)
                e = expected_distance(tiny, m)
                assert e == pytest.approx(m * (m - 1) / 4, rel=1e-3)
                assert e <= m * (m - 1) / 4
            for big in (60.0, 1e3, 1e8, np.inf):
                assert log_normalizer(big, m) == pytest.approx((m - 1) * np.exp(-big), rel=1e-9)
                assert 0.0 <= expected_distance(big, m) <= (m - 1) * np.exp(-big) * (1 + 1e-9)
    # across the series switch (k theta = 1e-2) the mean is smooth and decreasing
    th = np.geomspace(1e-6, 1.0, 4000)
    e = expected_distance(th, 40)
    assert np.all(np.diff(e) < 0)
    assert np.max(np.abs(np.diff(e, 2))) < 1e-3


def test_top_normaliser_limits():
    m = 6
    for t in range(m + 1):
        assert log_normalizer(0.0, m, t) == pytest.approx(
            math.log(math.factorial(m) / math.factorial(m - t)), abs=1e-12
        )
    # length m-1 is the complete case; broadcasting over theta and t
    assert log_normalizer(0.3, m, m - 1) == pytest.approx(log_normalizer(0.3, m))
    out = log_normalizer(np.array([[0.1], [1.0]]), m, np.array([0, 2, 6]))
    assert out.shape == (2, 3)
    assert out[1, 2] == pytest.approx(log_normalizer(1.0, m))
    assert expected_distance(0.0, 5, np.arange(6)).tolist() == [0, 2, 3.5, 4.5, 5, 5]


@pytest.mark.parametrize("bad", [-0.1, np.nan])
def test_normaliser_rejects_bad_theta(bad):
    with pytest.raises(ValueError, match="theta"):
        log_normalizer(bad, 4)
    with pytest.raises(ValueError, match="t must"):
        expected_distance(1.0, 4, 5)
    with pytest.raises(ValueError, match="m must"):
        log_normalizer(1.0, -1)


# --------------------------------------------------------------------------------------------
# theta MLE
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m", [2, 3, 7, 20])
@pytest.mark.parametrize("theta", [0.001, 0.3, 1.0, 4.0, 25.0])
def test_theta_mle_inverts_expected_distance(m, theta):
    assert theta_mle(expected_distance(theta, m), m) == pytest.approx(theta, rel=1e-8)


def test_theta_mle_boundaries():
    m = 6
    assert theta_mle(m * (m - 1) / 4, m) == 0.0
    assert theta_mle(100.0, m) == 0.0
    assert theta_mle(0.0, m) == THETA_MAX
    assert theta_mle(1e-30, m) == THETA_MAX  # below E_{theta_max} d
    assert theta_mle(0.0, m, theta_max=np.inf) == np.inf
    th = theta_mle(1e-30, m, theta_max=np.inf)  # unbounded search by doubling
    assert expected_distance(th, m) == pytest.approx(1e-30, rel=1e-6)
    assert theta_mle(0.0, 1) == THETA_MAX  # nothing to rank
    with pytest.raises(ValueError, match="mean_distance"):
        theta_mle(-1.0, m)
    with pytest.raises(ValueError, match="lengths"):
        theta_mle(1.0, m, lengths=[7])


def test_theta_mle_top_lengths_solves_weighted_equation():
    m, theta = 6, 0.9
    lengths = np.array([1, 2, 3, 6])
    weights = np.array([3.0, 1.0, 2.0, 0.5])
    target = weights @ expected_distance(theta, m, lengths) / weights.sum()
    got = theta_mle(target, m, lengths=lengths, length_weights=weights)
    assert got == pytest.approx(theta, rel=1e-9)


def test_complete_theta_mle_maximises_likelihood(rng):
    center = np.array([3, 1, 0, 2, 4])
    R = sample_mallows(center, 0.6, 400, random_state=3)
    th = estimate_theta(R, center)
    res = minimize_scalar(
        lambda t: -mallows_loglik(R, center, t).sum(),
        bounds=(0, 5),
        method="bounded",
        options={"xatol": 1e-10},
    )
    assert th == pytest.approx(res.x, abs=1e-5)


# --------------------------------------------------------------------------------------------
# likelihoods: complete, top-t, subset
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m", range(1, 7))
def test_complete_logpdf_matches_brute_force_and_sums_to_one(m):
    rng = np.random.default_rng(10 + m)
    center = random_center(rng, m)
    for theta in (0.0, 0.4, 3.0):
        orders, logp = brute_logpmf(m, center, theta)
        R = Rankings(positions(orders))
        got = mallows_loglik(R, center, theta)
        np.testing.assert_allclose(got, logp, rtol=1e-12, atol=1e-12)
        assert np.exp(got).sum() == pytest.approx(1.0, rel=1e-12)
        top = mallows_loglik(R.with_kind("top"), center, theta)
        np.testing.assert_allclose(top, logp, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("m", range(2, 7))
def test_top_likelihood_is_sum_over_completions_and_normalised(m):
    rng = np.random.default_rng(20 + m)
    center = random_center(rng, m)
    for theta in (0.0, 0.5, 2.5):
        orders, logp = brute_logpmf(m, center, theta)
        for t in range(m + 1):
            prefixes, inverse = np.unique(orders[:, :t], axis=0, return_inverse=True)
            inverse = inverse.reshape(-1)
            expected = np.array(
                [logsumexp(logp[inverse == g]) for g in range(len(prefixes))]
            )  # sum over the (m-t)! completions of each top-t list
            R = Rankings.from_orderings(prefixes.tolist(), n_items=m, kind="top")
            got = mallows_loglik(R, center, theta)
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10)
            assert np.exp(got).sum() == pytest.approx(1.0, rel=1e-10)  # over all top-t lists
            assert len(prefixes) == math.factorial(m) // math.factorial(m - t)


def subset_brute(orders: np.ndarray, logp: np.ndarray, chain: list[int]) -> float:
    """log of the total mass of the orderings that keep ``chain`` in order."""
    pos = positions(orders)
    ok = np.ones(len(orders), dtype=bool)
    for a, b in itertools.pairwise(chain):
        ok &= pos[:, a] < pos[:, b]
    return float(logsumexp(logp[ok]))


@pytest.mark.parametrize("m", range(2, 7))
def test_subset_likelihood_is_sum_over_consistent_completions(m):
    rng = np.random.default_rng(30 + m)
    center = random_center(rng, m)
    for theta in (0.0, 0.8, 4.0, 40.0):
        orders, logp = brute_logpmf(m, center, theta)
        chains = [list(rng.permutation(m)[: rng.integers(0, m + 1)]) for _ in range(12)]
        R = Rankings.from_orderings(chains, n_items=m)
        got = mallows_loglik(R, center, theta)
        expected = [subset_brute(orders, logp, c) for c in chains]
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("m", range(2, 7))
def test_both_subset_dps_match_brute_force(m):
    rng = np.random.default_rng(40 + m)
    for _ in range(8):
        center = random_center(rng, m)
        theta = float(rng.choice([0.0, 0.3, 1.7, 60.0]))
        orders, logp = brute_logpmf(m, center, theta)
        chain = rng.permutation(m)[: rng.integers(0, m + 1)].astype(np.int64)
        free = np.array(sorted(set(range(m)) - set(chain.tolist()), key=lambda j: center[j]))
        free = free.astype(np.int64)
        logz = M.log_normalizer(theta, m)
        expected = subset_brute(orders, logp, chain.tolist())
        bits = K._nb_subset_logmass_bitmask(chain, free, center, theta) - logz
        assert bits == pytest.approx(expected, rel=1e-10, abs=1e-10)
        # force the compositions DP through the dispatcher by making the bitmask look costly
        binom = np.array(
            [[math.comb(a, j) for j in range(len(chain) + 1)] for a in range(m + 2)],
            dtype=np.int64,
        )
        cc = center[chain]
        inv_pp = int(np.triu(cc[:, None] > cc[None, :], 1).sum())
        comp = K._nb_subset_logmass_compositions(chain, free, center, theta, binom)
        assert comp - theta * inv_pp - logz == pytest.approx(expected, rel=1e-10, abs=1e-10)


@settings(max_examples=50, deadline=None)
@given(
    m=st.integers(2, 10),
    seed=st.integers(0, 2**31 - 1),
    theta=st.sampled_from([0.0, 0.2, 1.0, 5.0]),
)
def test_subset_dps_agree_beyond_brute_force(m, seed, theta):
    rng = np.random.default_rng(seed)
    center = random_center(rng, m)
    k = int(rng.integers(0, m + 1))
    chain = rng.permutation(m)[:k].astype(np.int64)
    free = np.array(sorted(set(range(m)) - set(chain.tolist()), key=lambda j: center[j]))
    free = free.astype(np.int64)
    binom = np.array(
        [[math.comb(a, j) for j in range(k + 1)] for a in range(m + 2)], dtype=np.int64
    )
    cc = center[chain]
    inv_pp = int(np.triu(cc[:, None] > cc[None, :], 1).sum())
    a = K._nb_subset_logmass_bitmask(chain, free, center, theta)
    b = K._nb_subset_logmass_compositions(chain, free, center, theta, binom) - theta * inv_pp
    assert a == pytest.approx(b, rel=1e-10, abs=1e-10)
    # at theta = 0 every order of the k present items is equally likely
    if theta == 0.0:
        assert a - log_normalizer(0.0, m) == pytest.approx(-math.lgamma(k + 1), abs=1e-10)


def test_subset_likelihood_sums_to_one_over_orders_of_an_item_set():
    m, items = 7, [5, 0, 3, 2]
    center = np.array([2, 6, 0, 4, 1, 5, 3])
    R = Rankings.from_orderings(list(itertools.permutations(items)), n_items=m)
    assert np.exp(mallows_loglik(R, center, 0.9)).sum() == pytest.approx(1.0, rel=1e-12)


def test_subset_python_kernels_equal_compiled():
    # the plain functions are the references of the compiled kernels
    center = np.array([3, 0, 4, 1, 2, 5], dtype=np.int64)
    chain = np.array([2, 0, 5], dtype=np.int64)
    free = np.array([1, 3, 4], dtype=np.int64)
    binom = np.array([[math.comb(a, j) for j in range(4)] for a in range(8)], dtype=np.int64)
    assert K._subset_logmass_bitmask(chain, free, center, 0.7) == pytest.approx(
        K._nb_subset_logmass_bitmask(chain, free, center, 0.7)
    )
    assert K._subset_logmass_compositions(chain, free, center, 0.7, binom) == pytest.approx(
        K._nb_subset_logmass_compositions(chain, free, center, 0.7, binom)
    )


def test_subset_likelihood_extreme_theta_and_many_items():
    rng = np.random.default_rng(60)
    m = 7
    orders = all_orderings(m)
    pos = positions(orders)
    for _ in range(10):
        center = random_center(rng, m)
        chain = list(rng.permutation(m)[: rng.integers(2, m)])
        ok = np.ones(len(orders), dtype=bool)
        for a, b in itertools.pairwise(chain):
            ok &= pos[:, a] < pos[:, b]
        d = kendall_brute(pos[ok], center)
        n_best = int((d == d.min()).sum())
        R = Rankings.from_orderings([chain], n_items=m)
        for theta in (1e3, 1e7):  # all mass on the closest extensions, no underflow
            got = mallows_loglik(R, center, theta)[0]
            assert got == pytest.approx(-theta * d.min() + math.log(n_best), rel=1e-12, abs=1e-9)
    # many items, two present: the compositions DP over 298 absent items
    m = 300
    center = random_center(rng, m)
    ranks = np.full((2, m), -1)
    ranks[0, [5, 17]] = [0, 1]
    ranks[1, [5, 17]] = [1, 0]
    R = Rankings(ranks)
    np.testing.assert_allclose(mallows_loglik(R, center, 0.0), [-math.log(2)] * 2, rtol=1e-10)
    p = np.exp(mallows_loglik(R, center, 0.2))
    assert p.sum() == pytest.approx(1.0, rel=1e-10)
    assert (p[0] > 0.5) == (center[5] < center[17])


def test_subset_likelihood_too_large_raises():
    m = 60
    ranks = np.full((2, m), -1)
    ranks[1, :30] = np.arange(30)
    ranks[0, :2] = [0, 1]
    R = Rankings(ranks)
    with pytest.raises(ValueError, match="row 1: the exact subset likelihood"):
        mallows_loglik(R, np.arange(m), 1.0)


def test_loglik_edge_rows_and_duplicates():
    center = np.array([0, 1, 2, 3])
    R = Rankings([[-1, -1, -1, -1], [0, -1, -1, -1], [1, 0, -1, -1], [1, 0, -1, -1], [0, 1, 2, 3]])
    got = mallows_loglik(R, center, 1.0)
    assert got[0] == 0.0 and got[1] == 0.0
    assert got[2] == got[3]
    # P(item 1 above item 0) under Mallows: the closed-form pairwise marginal for adjacent items
    assert np.exp(got[2]) == pytest.approx(
        np.exp(subset_brute(*brute_logpmf(4, center, 1.0), [1, 0]))
    )
    # empty top-t list has probability 1
    assert mallows_loglik(Rankings([[-1, -1, -1, -1]], kind="top"), center, 2.0)[0] == 0.0


def test_loglik_validation():
    # ties are accepted (tests/models/test_mallows_ties.py): the two orders of the bucket
    tied = mallows_loglik(Rankings([[0, 1, 2], [0, 0, 1]]), [0, 1, 2], 1.0)
    both = mallows_loglik(Rankings([[0, 1, 2], [1, 0, 2]]), [0, 1, 2], 1.0)
    assert tied[1] == pytest.approx(np.logaddexp(*both))
    with pytest.raises(ValueError, match="permutation"):
        mallows_loglik(Rankings([[0, 1, 2]]), [0, 0, 1], 1.0)
    with pytest.raises(ValueError, match="expected 3"):
        mallows_loglik(Rankings([[0, 1, 2]]), [0, 1], 1.0)
    with pytest.raises(ValueError, match="theta"):
        mallows_loglik(Rankings([[0, 1, 2]]), [0, 1, 2], np.inf)


# --------------------------------------------------------------------------------------------
# Proposition 1
# --------------------------------------------------------------------------------------------
def test_most_probable_extension_paper_example():
    # Proposition 1 by hand: pi = identity, sigma = y2 > y1 > y5 -> y2 > y1 > y3 > y4 > y5, D = 1
    R = Rankings.from_orderings([[1, 0, 4]], n_items=5)
    ext = most_probable_extension(R, np.arange(5))
    assert ext.to_orderings() == [[1, 0, 2, 3, 4]]
    assert kendall_brute(ext.ranks, np.arange(5)).tolist() == [1]


@pytest.mark.parametrize("m", range(2, 7))
def test_most_probable_extension_is_closest_consistent_extension(m):
    rng = np.random.default_rng(50 + m)
    orders = all_orderings(m)
    pos = positions(orders)
    for _ in range(25):
        center = random_center(rng, m)
        chain = list(rng.permutation(m)[: rng.integers(0, m + 1)])
        R = Rankings.from_orderings([chain], n_items=m)
        ext = most_probable_extension(R, center)
        assert ext.is_complete
        d_all = kendall_brute(pos, center)
        ok = np.ones(len(orders), dtype=bool)
        for a, b in itertools.pairwise(chain):
            ok &= pos[:, a] < pos[:, b]
        got = ext.ranks[0]
        assert all(got[a] < got[b] for a, b in itertools.pairwise(chain))
        assert kendall_brute(ext.ranks, center)[0] == d_all[ok].min()
        # compiled kernel equals its plain-python reference
        out = np.empty((1, m), dtype=np.int64)
        C._closest_extension(np.ascontiguousarray(R.ranks), center, out)
        np.testing.assert_array_equal(out, ext.ranks)


# --------------------------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------------------------
def test_sampler_kernel_equals_reference():
    rng = np.random.default_rng(7)
    for m in (1, 2, 5, 8):
        center = random_center(rng, m)
        order = np.argsort(center).astype(np.int64)
        for theta in (0.0, 0.6, 30.0):
            u = rng.random((50, max(m - 1, 0)))
            lengths = rng.integers(0, m + 1, size=50).astype(np.int64)
            out = np.empty((50, m), dtype=np.int64)
            K._nb_sample_rankings(order, theta, u, lengths, out)
            np.testing.assert_array_equal(out, ref_sample(order, theta, u, lengths))


@pytest.mark.parametrize(("m", "theta"), [(4, 0.0), (4, 0.8), (5, 0.4)])
def test_sampler_matches_exact_pmf(m, theta):
    center = random_center(np.random.default_rng(m), m)
    orders, logp = brute_logpmf(m, center, theta)
    n = 200_000
    R = sample_mallows(center, theta, n, random_state=0)
    assert R.is_complete
    index = {tuple(o): i for i, o in enumerate(orders.tolist())}
    counts = np.bincount(
        [index[tuple(o)] for o in np.argsort(R.ranks, axis=1).tolist()], minlength=len(orders)
    )
    p = np.exp(logp)
    assert np.max(np.abs(counts / n - p)) < 4e-3
    chi2 = stats.chisquare(counts, n * p)
    assert chi2.pvalue > 1e-3


def test_top_sampler_matches_top_likelihood():
    m, theta, t = 5, 0.7, 2
    center = np.array([1, 4, 0, 2, 3])
    n = 100_000
    R = sample_mallows(center, theta, n, random_state=1, lengths=t)
    assert R.kind == "top" and np.all(R.lengths == t)
    uniq, _ = R.unique()
    p = np.exp(mallows_loglik(uniq, center, theta))
    assert len(uniq) == m * (m - 1)  # every top-2 list appears
    np.testing.assert_allclose(uniq.weights / n, p, atol=4e-3)
    assert stats.chisquare(uniq.weights, n * p).pvalue > 1e-3


@pytest.mark.parametrize("distance", ["kendall", "cayley"])
@pytest.mark.parametrize(
    ("lengths", "message"),
    [
        ([1, 4], "lengths must lie"),
        ([1, 2, 3], "shape"),
        (1.5, "integers"),
        (-1, "lengths must lie"),
    ],
)
def test_sample_refuses_bad_lengths_on_every_distance(distance, lengths, message):
    model = Mallows(distance=distance).fit(Rankings.from_orderings([[0, 1, 2], [1, 0, 2]]))
    with pytest.raises(ValueError, match=message):
        model.sample(2, random_state=0, lengths=lengths)
    assert model.sample(2, random_state=0, lengths=[1, 3]).lengths.tolist() == [1, 3]


def test_sample_lengths_and_validation():
    R = sample_mallows([2, 0, 1, 3], 1.0, 6, random_state=0, lengths=[0, 1, 2, 3, 4, 4])
    assert R.lengths.tolist() == [0, 1, 2, 3, 4, 4]
    # same seed, same draws; a Generator works too
    a = sample_mallows([2, 0, 1, 3], 1.0, 20, random_state=5)
    assert a == sample_mallows([2, 0, 1, 3], 1.0, 20, random_state=5)
    assert len(sample_mallows([2, 0, 1, 3], 1.0, 3, random_state=np.random.default_rng(0))) == 3
    assert sample_mallows([0, 1], 1.0, 0).shape == (0, 2)
    with pytest.raises(ValueError, match="lengths must lie"):
        sample_mallows([0, 1, 2], 1.0, 2, lengths=[1, 4])
    with pytest.raises(ValueError, match="shape"):
        sample_mallows([0, 1, 2], 1.0, 2, lengths=[1, 2, 3])
    with pytest.raises(ValueError, match="size"):
        sample_mallows([0, 1, 2], 1.0, -1)


# --------------------------------------------------------------------------------------------
# fitting
# --------------------------------------------------------------------------------------------
def test_fit_recovers_center_and_theta_m10():
    # Issue 2 acceptance: 5,000 samples from theta = 0.7, m = 10
    center = np.array([3, 7, 0, 9, 1, 5, 2, 8, 4, 6])
    R = sample_mallows(center, 0.7, 5000, random_state=2024)
    model = Mallows().fit(R)
    np.testing.assert_array_equal(model.center_, center)
    print(f"theta_hat = {model.theta_:.5f} (true 0.7)")
    assert abs(model.theta_ - 0.7) < 0.05
    assert model.kind_ == "complete" and model.n_iter_ == 0 and model.converged_


@pytest.mark.parametrize("method", ["auto", "kemeny", "exact", "local", "borda"])
def test_center_methods_recover_center(method):
    center = np.array([4, 1, 0, 3, 2, 5])
    R = sample_mallows(center, 1.0, 300, random_state=11)
    model = Mallows(center_method=method).fit(R)
    np.testing.assert_array_equal(model.center_, center)


def test_fit_top_data_exact_mle():
    m, theta = 7, 0.8
    center = np.array([6, 2, 0, 5, 1, 3, 4])
    rng = np.random.default_rng(5)
    lengths = rng.choice([1, 2, 3, 5, 7], size=4000)
    R = sample_mallows(center, theta, 4000, random_state=6, lengths=lengths)
    model = Mallows().fit(R)
    assert model.kind_ == "top"
    np.testing.assert_array_equal(model.center_, center)
    assert abs(model.theta_ - theta) < 0.06
    # theta_ maximises the exact top-t likelihood for the fitted centre
    res = minimize_scalar(
        lambda t: -mallows_loglik(R, model.center_, t).sum(),
        bounds=(0, 5),
        method="bounded",
        options={"xatol": 1e-10},
    )
    assert model.theta_ == pytest.approx(res.x, abs=1e-5)
    # the centre minimises the top-t statistic: no adjacent swap lowers sum_i s^t
    base = -mallows_loglik(R, model.center_, 1.0).sum()
    order = np.argsort(model.center_)
    for p in range(m - 1):
        o2 = order.copy()
        o2[p], o2[p + 1] = o2[p + 1], o2[p]
        assert -mallows_loglik(R, np.argsort(o2), 1.0).sum() >= base - 1e-9


def test_top_fit_of_complete_data_equals_complete_fit():
    R = sample_mallows([1, 0, 3, 2, 4], 0.5, 200, random_state=8)
    a = Mallows().fit(R)
    b = Mallows().fit(R.with_kind("top"))
    np.testing.assert_array_equal(a.center_, b.center_)
    assert a.theta_ == pytest.approx(b.theta_, rel=1e-10)


def delete_labels(R: Rankings, p: float, rng: np.random.Generator) -> Rankings:
    ranks = np.where(rng.random(R.shape) < p, -1, R.ranks)
    return Rankings(ranks, kind="subset")


@pytest.mark.parametrize("method", ["borda", "auto"])
def test_approximate_em_recovers_center_with_30_percent_missing(method):
    center = np.array([2, 5, 0, 7, 1, 4, 6, 3])
    rng = np.random.default_rng(9)
    R = delete_labels(sample_mallows(center, 1.0, 300, random_state=10), 0.3, rng)
    assert not np.all(R.lengths == 8)
    model = Mallows(center_method=method).fit(R)
    np.testing.assert_array_equal(model.center_, center)
    assert model.kind_ == "subset" and model.converged_ and model.n_iter_ >= 1
    # the final centre is a fixed point: consensus of its own Prop. 1 completions
    ext = most_probable_extension(R, model.center_)
    assert np.array_equal(estimate_center(ext, method=method), model.center_)
    # theta is the complete-data MLE of those completions
    assert model.theta_ == pytest.approx(estimate_theta(ext, model.center_), abs=1e-7)


def test_subset_fit_of_complete_rows_is_complete_fit():
    R = sample_mallows([1, 0, 3, 2], 0.5, 100, random_state=8)
    a = Mallows().fit(R)
    assert a.kind_ == "complete" and a.n_iter_ == 0


def test_em_not_converged_warns():
    # found by search: the Borda EM needs 3 iterations from the generalised Borda start
    R = Rankings.from_orderings(
        [[1, 0, 2, 4], [1, 0, 4], [2, 0, 3, 1], [2, 3, 1, 0], [1, 0, 4], [4, 1]], n_items=5
    )
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        model = Mallows(center_method="borda", max_iter=1).fit(R)
    assert model.n_iter_ == 1 and not model.converged_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = Mallows(center_method="borda").fit(R)
    assert model.converged_ and model.n_iter_ == 3


def test_em_cycle_detection_returns_best_center(monkeypatch):
    R = Rankings.from_orderings([[0, 1], [2, 1], [1, 0, 2]], n_items=3)
    c1, c2 = np.array([0, 1, 2]), np.array([1, 0, 2])

    def fake(C, method, init):  # alternate between two centres forever
        return c2.copy() if np.array_equal(init, c1) else c1.copy()

    monkeypatch.setattr(M, "_consensus", fake)
    center, n_iter, converged = M._approximate_em(R, np.ones(3), "borda", c1, 50)
    assert not converged and n_iter == 2
    w = R.weights
    objective = [w @ M.kendall_distances(most_probable_extension(R, c), c) for c in (c1, c2)]
    best = (c1, c2)[int(np.argmin(objective))] if objective[0] != objective[1] else c1
    np.testing.assert_array_equal(center, best)


@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
def test_weighted_fit_equals_expanded(kind):
    rng = np.random.default_rng(12)
    center = np.array([3, 0, 4, 1, 2, 5])
    if kind == "top":
        base = sample_mallows(center, 0.6, 60, random_state=13, lengths=rng.integers(1, 7, 60))
    else:
        base = sample_mallows(center, 0.6, 60, random_state=13)
        if kind == "subset":
            base = delete_labels(base, 0.3, rng)
    counts = rng.integers(0, 5, size=60).astype(float)
    weighted = base.with_weights(counts)
    a = Mallows().fit(weighted)
    b = Mallows().fit(weighted.expand())
    c = Mallows().fit(base, sample_weight=counts)
    for other in (b, c):
        np.testing.assert_array_equal(a.center_, other.center_)
        assert a.theta_ == pytest.approx(other.theta_, rel=1e-10)
        assert a.n_iter_ == other.n_iter_
    assert a.score(weighted) == pytest.approx(b.score(weighted.expand()), rel=1e-12)


# --------------------------------------------------------------------------------------------
# the estimator API
# --------------------------------------------------------------------------------------------
def test_from_params_and_distribution_methods():
    model = Mallows.from_params(center=[2, 0, 1], theta=0.7)
    assert model.n_items_ == 3 and model.kind_ is None and model.theta_ == 0.7
    orders, logp = brute_logpmf(3, np.array([2, 0, 1]), 0.7)
    R = Rankings(positions(orders))
    np.testing.assert_allclose(model.logpdf(R), logp)
    np.testing.assert_allclose(model.pdf(R), np.exp(logp))
    assert model.score(R) == pytest.approx(logp.mean())
    S = model.sample(10, random_state=0, lengths=2)
    assert S.kind == "top" and S.shape == (10, 3)
    assert model.sample(4, random_state=0) == model.sample(4, random_state=0)
    with pytest.raises(ValueError, match="has 4 items, expected 3"):
        model.logpdf(Rankings([[0, 1, 2, 3]]))


@pytest.mark.parametrize(
    ("center", "theta", "match"),
    [
        ([0, 0, 1], 1.0, "permutation"),
        ([0, 1, 3], 1.0, "permutation"),
        ([[0, 1]], 1.0, "1-d"),
        ([0.5, 1], 1.0, "integer"),
        ([0, 1, 2], -1.0, "theta"),
        ([0, 1, 2], np.nan, "theta"),
        ([0, 1, 2], np.inf, "theta"),
        ([0, 1, 2], True, "theta"),
        ([0, 1, 2], "1", "theta"),
        ([0, 1, 2], [1.0], "theta"),
    ],
)
def test_from_params_validation(center, theta, match):
    with pytest.raises(ValueError, match=match):
        Mallows.from_params(center=center, theta=theta)


def test_not_fitted_and_bad_input():
    with pytest.raises(NotFittedError):
        Mallows().logpdf(Rankings([[0, 1]]))
    assert Mallows().fit(Rankings([[0, 1, 2], [1, 0, 2], [0, 1, 1]])).n_items_ == 3  # ties
    with pytest.raises(ValueError, match="no rankings"):
        Mallows().fit(Rankings(np.zeros((0, 3), dtype=int)))
    with pytest.raises(ValueError, match="sum to zero"):
        Mallows().fit(Rankings([[0, 1]]), sample_weight=[0.0])
    with pytest.raises(ValueError, match="sample_weight"):
        Mallows().fit(Rankings([[0, 1]]), sample_weight=[1.0, 2.0])
    with pytest.raises(ValueError, match="center_method"):
        Mallows(center_method="nope").fit(Rankings([[0, 1]]))
    with pytest.raises(ValueError, match="max_iter"):
        Mallows(max_iter=0).fit(Rankings([[0, 1]]))
    with pytest.raises(ValueError, match="tol"):
        Mallows(tol=0.0).fit(Rankings([[0, 1]]))


def test_fit_accepts_one_based_rank_arrays():
    model = Mallows().fit(np.array([[1, 2, 3], [1, 2, 3], [2, 1, 3], [1, 2, 0]]))
    np.testing.assert_array_equal(model.center_, [0, 1, 2])


def test_clone_and_params():
    model = Mallows(center_method="borda", max_iter=7, tol=1e-6)
    params = model.get_params()
    assert params == {
        "center_method": "borda",
        "max_iter": 7,
        "tol": 1e-6,
        "distance": "kendall",
        "random_state": None,
    }
    twin = clone(model)
    assert twin.get_params() == params and twin is not model
    twin.set_params(center_method="exact")
    assert twin.center_method == "exact" and model.center_method == "borda"
    fitted = Mallows.from_params(center=[1, 0], theta=1.0)
    assert not hasattr(clone(fitted), "center_")


@pytest.mark.parametrize("m", range(1, 7))
@pytest.mark.parametrize("theta", THETAS)
def test_distance_variance_matches_brute_force_and_derivative(m, theta):
    # Var of the top-t statistic: brute force over S(m) for t = m, -d mu_t / d theta for all t
    rng = np.random.default_rng(m)
    center = random_center(rng, m)
    orders, logp = brute_logpmf(m, center, theta)
    d = kendall_brute(positions(orders), center)
    p = np.exp(logp)
    var = p @ d**2 - (p @ d) ** 2
    assert M.distance_variance(theta, m) == pytest.approx(var, rel=1e-9, abs=1e-12)
    h = 1e-6
    for t in range(m + 1):
        lo = max(theta - h, 0.0)
        fd = -(expected_distance(theta + h, m, t) - expected_distance(lo, m, t)) / (theta + h - lo)
        assert M.distance_variance(theta, m, t) == pytest.approx(fd, rel=1e-5, abs=1e-8)
    assert M.distance_variance(np.inf, m) == 0.0
