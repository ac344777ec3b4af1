"""Cayley, Hamming and Ulam Mallows models (rankclust.models._mallows_{cayley,hamming,ulam}).

Everything is checked against brute force over all m! permutations for m = 2..7: distance
counts, normalisers, means, variances, the samplers' full pmf (chi-square on every
permutation) and the centre MLE (over every centre); plus closed forms and known sequences at
larger m, stability to m = 200 (Cayley, Hamming) and m = 50 (Ulam).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import chisquare

from rankclust import Rankings
from rankclust.distances import DISTANCES
from rankclust.models import _mallows_cayley, _mallows_hamming, _mallows_ulam

MODELS = {"cayley": _mallows_cayley, "hamming": _mallows_hamming, "ulam": _mallows_ulam}
METRICS = list(MODELS)
THETAS = [0.0, 0.2, 1.0, 3.5, 50.0]


# --------------------------------------------------------------------------------------------
# brute force
# --------------------------------------------------------------------------------------------
def all_perms(m: int) -> np.ndarray:
    """All permutations of 0..m-1, as position vectors, shape (m!, m)."""
    return np.array(list(itertools.permutations(range(m))), dtype=np.int64).reshape(-1, m)


def dist(metric: str, X: np.ndarray, center) -> np.ndarray:
    return DISTANCES[metric](Rankings(np.asarray(X)), np.asarray(center))


def brute(metric: str, m: int, theta: float, center=None):
    """(log psi, mean, variance, counts) by enumeration of S_m."""
    c = np.arange(m) if center is None else center
    d = dist(metric, all_perms(m), c).astype(np.float64)
    w = np.exp(-theta * d)
    psi = w.sum()
    mean = (w * d).sum() / psi
    var = (w * (d - mean) ** 2).sum() / psi
    # the centre is the one permutation at distance 0: log psi = log1p(sum of the others)
    return math.log1p(w[d > 0].sum()), mean, var, np.bincount(d.astype(np.int64))


def counts_of(metric: str, m: int) -> list[int]:
    if metric == "ulam":
        return np.rint(np.exp(_mallows_ulam.log_distance_counts(m))).astype(np.int64).tolist()
    return MODELS[metric].distance_counts(m)


def codes(X: np.ndarray) -> np.ndarray:
    m = X.shape[1]
    return X @ (m ** np.arange(m, dtype=np.int64))


def pmf_pvalue(draws: np.ndarray, probs: np.ndarray, perms: np.ndarray) -> float:
    """Chi-square p-value of draws against a pmf over every permutation (cells in ``perms``)."""
    index = {c: k for k, c in enumerate(codes(perms).tolist())}
    obs = np.bincount([index[c] for c in codes(draws).tolist()], minlength=len(perms))
    return float(chisquare(obs, probs * len(draws)).pvalue)


def model_pmf(metric: str, m: int, theta: float, center: np.ndarray):
    P = all_perms(m)
    d = dist(metric, P, center)
    p = np.exp(-theta * d)
    return P, d, p / p.sum()


# --------------------------------------------------------------------------------------------
# counts, normaliser, moments
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("m", range(1, 8))
def test_distance_counts_match_enumeration(metric, m):
    counts = counts_of(metric, m)
    expected = brute(metric, m, 0.0)[3]
    assert counts[: len(expected)] == expected.tolist()
    assert all(c == 0 for c in counts[len(expected) :])
    assert sum(counts) == math.factorial(m)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("m", range(2, 8))
@pytest.mark.parametrize("theta", THETAS)
def test_normaliser_mean_and_variance_match_enumeration(metric, m, theta):
    mod = MODELS[metric]
    center = np.random.default_rng(m).permutation(m)  # the moments do not depend on it
    log_psi, mean, var, _ = brute(metric, m, theta, center)
    assert mod.log_normalizer(theta, m) == pytest.approx(log_psi, rel=1e-12, abs=1e-300)
    assert mod.expected_distance(theta, m) == pytest.approx(mean, rel=1e-10, abs=1e-300)
    assert mod.distance_variance(theta, m) == pytest.approx(var, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("metric", METRICS)
def test_vectorised_over_theta_and_limits(metric):
    mod = MODELS[metric]
    th = np.array([[0.0, 0.5], [2.0, np.inf]])
    for fn in (mod.log_normalizer, mod.expected_distance, mod.distance_variance):
        out = fn(th, 6)
        assert out.shape == (2, 2)
        np.testing.assert_allclose(out, [[fn(t, 6) for t in row] for row in th.tolist()])
        assert isinstance(fn(0.5, 6), float)
        assert fn(np.inf, 6) == 0.0
    assert mod.log_normalizer(0.0, 6) == pytest.approx(math.log(720), rel=1e-14)
    with pytest.raises(ValueError, match="theta must be non-negative"):
        mod.log_normalizer(-0.1, 4)
    with pytest.raises(ValueError, match="theta must be non-negative"):
        mod.expected_distance(np.nan, 4)
    with pytest.raises(ValueError, match="m must be a non-negative integer"):
        mod.log_normalizer(1.0, 2.5)


@pytest.mark.parametrize(("metric", "m"), [("cayley", 200), ("hamming", 200), ("ulam", 50)])
def test_stable_and_consistent_for_large_m(metric, m):
    mod = MODELS[metric]
    th = np.concatenate([[0.0, 1e-8], np.linspace(1e-3, 50.0, 400)])
    lp = mod.log_normalizer(th, m)
    mu = mod.expected_distance(th, m)
    var = mod.distance_variance(th, m)
    assert np.isfinite(lp).all() and np.isfinite(mu).all() and np.isfinite(var).all()
    assert lp[0] == pytest.approx(math.lgamma(m + 1), rel=1e-13)
    assert (np.diff(lp) < 0).all() and (np.diff(mu) < 0).all() and (lp > 0).all()
    assert (var > 0).all()
    # mean = -d log psi / d theta and variance = -d mean / d theta (central differences)
    h = 1e-5
    for t in [0.05, 0.7, 3.0, 9.0]:
        dlp = (mod.log_normalizer(t + h, m) - mod.log_normalizer(t - h, m)) / (2 * h)
        dmu = (mod.expected_distance(t + h, m) - mod.expected_distance(t - h, m)) / (2 * h)
        assert -dlp == pytest.approx(mod.expected_distance(t, m), rel=1e-6)
        assert -dmu == pytest.approx(mod.distance_variance(t, m), rel=1e-5)
    # large theta: psi - 1 ~ N(d_min) e^{-theta d_min}, with d_min = 1 (2 for Hamming)
    d_min, n_min = {
        "cayley": (1, m * (m - 1) // 2),  # transpositions
        "hamming": (2, m * (m - 1) // 2),  # transpositions again
        "ulam": (1, (m - 1) ** 2),  # one item moved
    }[metric]
    assert mod.log_normalizer(30.0, m) == pytest.approx(n_min * math.exp(-30.0 * d_min), rel=1e-6)


def test_hamming_normaliser_closed_form():
    """psi = m! e^{-m theta} sum_k (e^theta - 1)^k / k! (Irurozki et al. 2019)."""
    for m in [3, 10, 40]:
        for theta in [0.1, 1.0, 4.0]:
            s = sum((math.exp(theta) - 1) ** k / math.factorial(k) for k in range(m + 1))
            log_psi = math.lgamma(m + 1) - m * theta + math.log(s)
            assert _mallows_hamming.log_normalizer(theta, m) == pytest.approx(log_psi, rel=1e-12)
    assert _mallows_hamming.distance_counts(5) == [1, 0, 10, 20, 45, 44]


def test_cayley_counts_are_stirling_numbers_of_the_first_kind():
    assert _mallows_cayley.distance_counts(5) == [1, 10, 35, 50, 24]
    assert _mallows_cayley.distance_counts(1) == [1]


def test_ulam_counts_known_sequences():
    # LIS <= 2: 123-avoiding permutations, the Catalan numbers
    for m in [5, 10, 16]:
        c = np.exp(_mallows_ulam.log_distance_counts(m))
        catalan = math.comb(2 * m, m) // (m + 1)
        assert c[m - 2 :].sum() == pytest.approx(catalan, rel=1e-12)
    # LIS = m - 1: (m - 1)^2 permutations (one item moved)
    c = np.exp(_mallows_ulam.log_distance_counts(40))
    assert c[1] == pytest.approx(39**2, rel=1e-12)
    assert c[-1] == pytest.approx(1.0, rel=1e-12)  # only the reversal has LIS 1
    with pytest.raises(ValueError, match=r"m = 71 > 70 is not supported"):
        _mallows_ulam.log_normalizer(1.0, 71)


# --------------------------------------------------------------------------------------------
# samplers
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("m", range(2, 8))
def test_sampler_pmf_matches_the_model_over_every_permutation(metric, m):
    theta = 0.3 if m == 7 else 0.7
    size = 60000 if m == 7 else 20000
    center = np.random.default_rng(m).permutation(m)
    P, _, probs = model_pmf(metric, m, theta, center)
    draws = MODELS[metric].sample(center, theta, size, np.random.RandomState(m))
    assert draws.shape == (size, m) and draws.dtype == np.int64
    assert (np.sort(draws, axis=1) == np.arange(m)).all()
    assert pmf_pvalue(draws, probs, P) > 1e-4
    # the check has power: the model at another theta fails it
    wrong = MODELS[metric].sample(center, theta + 0.25, size, np.random.RandomState(m))
    assert pmf_pvalue(wrong, probs, P) < 1e-6


@pytest.mark.parametrize("metric", METRICS)
def test_sampler_check_catches_a_wrong_law_within_distances(metric):
    """Right distance law, non-uniform within a distance: the pmf check must fail."""
    m, theta, size = 5, 0.7, 20000
    center = np.arange(m)
    P, d, probs = model_pmf(metric, m, theta, center)
    rng = np.random.default_rng(0)
    good = MODELS[metric].sample(center, theta, size, np.random.RandomState(0))
    drawn_d = dist(metric, good, center)
    bad = np.empty_like(good)
    for k in np.unique(drawn_d):
        members = np.flatnonzero(d == k)
        q = np.arange(1, members.size + 1, dtype=np.float64)
        rows = np.flatnonzero(drawn_d == k)
        bad[rows] = P[rng.choice(members, size=rows.size, p=q / q.sum())]
    assert pmf_pvalue(good, probs, P) > 1e-4
    assert pmf_pvalue(bad, probs, P) < 1e-6


@pytest.mark.parametrize("metric", METRICS)
def test_sampler_reproducible_and_edge_cases(metric):
    mod = MODELS[metric]
    c = np.array([3, 0, 4, 1, 2, 6, 5, 7])
    a = mod.sample(c, 1.0, 50, np.random.RandomState(5))
    np.testing.assert_array_equal(a, mod.sample(c, 1.0, 50, np.random.RandomState(5)))
    assert mod.sample(c, 1.0, 0, np.random.RandomState(5)).shape == (0, 8)
    np.testing.assert_array_equal(mod.sample(c, np.inf, 3, np.random.RandomState(5)), [c] * 3)
    np.testing.assert_array_equal(
        mod.sample(np.array([0]), 1.0, 2, np.random.RandomState(0)), [[0]] * 2
    )
    # mean distance of many draws at m = 30 (beyond enumeration) matches the expectation
    c30 = np.random.default_rng(1).permutation(30)
    draws = mod.sample(c30, 0.4, 4000, np.random.RandomState(2))
    d = dist(metric, draws, c30)
    se = math.sqrt(mod.distance_variance(0.4, 30) / 4000)
    assert abs(d.mean() - mod.expected_distance(0.4, 30)) < 5 * se


# --------------------------------------------------------------------------------------------
# centre
# --------------------------------------------------------------------------------------------
def brute_center_cost(metric: str, R: np.ndarray, w: np.ndarray) -> float:
    P = all_perms(R.shape[1])
    from rankclust.distances import pairwise_distances

    D = pairwise_distances(Rankings(R), Rankings(P), metric=metric)
    return float((w @ D).min())


def cost(metric, R, w, center) -> float:
    return float(w @ dist(metric, R, center))


def small_data(metric, m, seed):
    """Weighted rows: draws from the model around a random centre plus uniform noise."""
    rng = np.random.default_rng(seed)
    c = rng.permutation(m)
    R = np.vstack(
        [
            MODELS[metric].sample(c, 0.6, 12, np.random.RandomState(seed)),
            all_perms(m)[rng.integers(0, math.factorial(m), 6)],
        ]
    )
    return R, rng.uniform(0.1, 2.0, R.shape[0])


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("m", range(2, 8))
def test_center_is_the_brute_force_minimiser(metric, m):
    for seed in range(3):
        R, w = small_data(metric, m, seed)
        best = brute_center_cost(metric, R, w)
        center = MODELS[metric].estimate_center(R, w)
        assert sorted(center.tolist()) == list(range(m))
        assert cost(metric, R, w, center) == pytest.approx(best, rel=1e-12)
        if metric != "hamming":
            forced = MODELS[metric].estimate_center(R, w, exact=True)
            assert cost(metric, R, w, forced) == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("metric", METRICS)
def test_center_weighted_equals_expanded(metric):
    R, _ = small_data(metric, 6, 7)
    counts = np.random.default_rng(3).integers(0, 4, R.shape[0])
    expanded = np.repeat(R, counts, axis=0)
    kw = {} if metric == "hamming" else {"exact": False}
    for extra in ({}, kw):
        a = MODELS[metric].estimate_center(R, counts.astype(float), **extra)
        b = MODELS[metric].estimate_center(expanded, np.ones(expanded.shape[0]), **extra)
        assert cost(metric, R, counts, a) == pytest.approx(cost(metric, R, counts, b))


def cayley_neighbours(center):
    m = center.shape[0]
    for u, v in itertools.combinations(range(m), 2):
        c = center.copy()
        c[[u, v]] = c[[v, u]]
        yield c


def ulam_neighbours(center):
    order = list(np.argsort(center))
    m = len(order)
    for p, q in itertools.permutations(range(m), 2):
        o = order.copy()
        o.insert(q, o.pop(p))
        c = np.empty(m, dtype=np.int64)
        c[o] = np.arange(m)
        yield c


@pytest.mark.parametrize(
    ("metric", "neighbours"), [("cayley", cayley_neighbours), ("ulam", ulam_neighbours)]
)
def test_local_search_returns_a_local_optimum(metric, neighbours):
    rng = np.random.default_rng(11)
    for m in [6, 9, 12]:
        R = np.vstack(
            [
                MODELS[metric].sample(rng.permutation(m), 0.5, 25, np.random.RandomState(m)),
                MODELS[metric].sample(rng.permutation(m), 0.5, 15, np.random.RandomState(m + 1)),
            ]
        )
        w = rng.uniform(0.5, 1.5, R.shape[0])
        center = MODELS[metric].estimate_center(R, w, exact=False)
        here = cost(metric, R, w, center)
        assert all(cost(metric, R, w, c) >= here - 1e-9 for c in neighbours(center))
        if m == 6:  # and on this data the local optimum is the global one
            assert here == pytest.approx(brute_center_cost(metric, R, w))


@pytest.mark.parametrize("metric", METRICS)
def test_center_recovers_the_model_centre_beyond_enumeration(metric):
    m = 15
    c = np.random.default_rng(4).permutation(m)
    R = MODELS[metric].sample(c, 1.0, 300, np.random.RandomState(4))
    np.testing.assert_array_equal(MODELS[metric].estimate_center(R, np.ones(300)), c)


def test_exact_center_refuses_large_m():
    R = np.tile(np.arange(11), (2, 1))
    for mod in (_mallows_cayley, _mallows_ulam):
        with pytest.raises(ValueError, match="m = 11 > 10"):
            mod.estimate_center(R, np.ones(2), exact=True)


@pytest.mark.parametrize(
    ("metric", "neighbours"), [("cayley", cayley_neighbours), ("ulam", ulam_neighbours)]
)
def test_warm_start_descends_from_init_and_exact_ignores_it(metric, neighbours):
    R, w = small_data(metric, 7, 5)
    rng = np.random.default_rng(2)
    for _ in range(3):
        init = rng.permutation(7)
        center = MODELS[metric].estimate_center(R, w, exact=False, init=init)
        here = cost(metric, R, w, center)
        assert here <= cost(metric, R, w, init)
        assert all(cost(metric, R, w, c) >= here - 1e-9 for c in neighbours(center))
        exact = MODELS[metric].estimate_center(R, w, exact=True, init=init)
        assert cost(metric, R, w, exact) == pytest.approx(brute_center_cost(metric, R, w))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("m", [3, 7, 12])
def test_log_distance_counts_agree_with_the_normaliser(metric, m):
    lc = MODELS[metric].log_distance_counts(m)
    assert np.exp(lc - math.lgamma(m + 1)).sum() == pytest.approx(1.0, rel=1e-12)
    for theta in [0.0, 0.8, 5.0]:
        d = np.arange(lc.shape[0])
        expected = np.log(np.exp(lc - theta * d).sum())
        assert MODELS[metric].log_normalizer(theta, m) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("m", [4, 7])
def test_theta_mle_is_the_root_of_expected_distance_and_maximises_the_brute_force_likelihood(
    metric, m
):
    """For a known centre the likelihood's maximiser over theta (normaliser by enumeration)
    solves E_theta d = mean distance, with this module's expected_distance."""
    from scipy.optimize import brentq, minimize_scalar

    center = np.random.default_rng(m).permutation(m)
    draws = MODELS[metric].sample(center, 1.1, 400, np.random.RandomState(m))
    mean_d = dist(metric, draws, center).mean()
    d_all = dist(metric, all_perms(m), center)

    def neg_loglik(theta):
        return theta * mean_d + math.log(np.exp(-theta * d_all).sum())

    best = minimize_scalar(
        neg_loglik, bounds=(0.0, 20.0), method="bounded", options={"xatol": 1e-10}
    )
    root = brentq(
        lambda t: MODELS[metric].expected_distance(t, m) - mean_d, 1e-9, 20.0, xtol=1e-13
    )
    assert root == pytest.approx(best.x, abs=1e-6)
    assert abs(root - 1.1) < 0.25  # and it estimates the theta the data came from


# --------------------------------------------------------------------------------------------
# kernels against pure-Python references
# --------------------------------------------------------------------------------------------
def rsk(word):
    """Robinson-Schensted row insertion: (P, Q) as lists of rows."""
    P, Q = [], []
    for k, x in enumerate(word):
        r = 0
        while True:
            if r == len(P):
                P.append([x])
                Q.append([k])
                break
            row = P[r]
            bigger = [i for i, y in enumerate(row) if y > x]
            if not bigger:
                row.append(x)
                Q[r].append(k)
                break
            i = bigger[0]
            row[i], x = x, row[i]
            r += 1
    return P, Q


def as_array(T, m):
    out = np.zeros((m, m), dtype=np.int64)
    for i, row in enumerate(T):
        out[i, : len(row)] = row
    return out


def test_inverse_rsk_inverts_python_rsk_and_shape_gives_the_lis():
    rng = np.random.default_rng(0)
    for m in [1, 2, 5, 9, 30]:
        for _ in range(20):
            word = rng.permutation(m)
            P, Q = rsk(word.tolist())
            shape = np.zeros(m, dtype=np.int64)
            shape[: len(P)] = [len(r) for r in P]
            out = np.empty(m, dtype=np.int64)
            bufs = [np.zeros(m, dtype=np.int64) for _ in range(3)]
            _mallows_ulam._nb_inverse_rsk(shape, as_array(P, m), as_array(Q, m), *bufs, out)
            np.testing.assert_array_equal(out, word)
            # Schensted: the first row is the longest increasing subsequence
            lis = m - DISTANCES["ulam"](Rankings(word[None, :]), np.arange(m))[0]
            assert len(P[0]) == lis


def test_hook_walk_draws_uniform_standard_young_tableaux():
    from rankclust._kernel_random import xoshiro_state

    shape = np.array([3, 2, 1, 0, 0, 0], dtype=np.int64)  # f = 6! / (5*3*1*3*1*1) = 16
    m = 6
    state = xoshiro_state(7)
    cur, conj = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    seen = {}
    n = 16000
    for _ in range(n):
        T = np.zeros((m, m), dtype=np.int64)
        _mallows_ulam._nb_hook_walk(shape, state, cur, conj, T)
        rows = [T[i, : shape[i]].tolist() for i in range(3)]
        assert sorted(itertools.chain(*rows)) == list(range(6))
        assert all(r == sorted(r) for r in rows)  # rows increase
        assert all(T[i, j] < T[i + 1, j] for i in range(2) for j in range(shape[i + 1]))
        key = tuple(map(tuple, rows))
        seen[key] = seen.get(key, 0) + 1
    assert len(seen) == 16
    assert chisquare(list(seen.values())).pvalue > 1e-4


def test_cayley_same_cycle_kernel_matches_python():
    rng = np.random.default_rng(3)
    m, n = 7, 40
    A = np.array([rng.permutation(m) for _ in range(n)])
    w = rng.uniform(size=n)
    center = rng.permutation(m)
    S = np.zeros((m, m))
    _mallows_cayley._nb_same_cycle_weights(A, np.argsort(center), w, S)
    ref = np.zeros((m, m))
    order = np.argsort(center)
    for a, wi in zip(A, w, strict=True):
        cycle_of = {}
        for j in range(m):
            x, members = j, []
            while x not in members:
                members.append(x)
                x = int(order[a[x]])
            cycle_of[j] = frozenset(members)
        for u, v in itertools.combinations(range(m), 2):
            ref[u, v] += wi * (cycle_of[u] == cycle_of[v])
    np.testing.assert_allclose(S, ref)
    # and the cost change of swapping u, v is W - 2 S[u, v]
    base = cost("cayley", A, w, center)
    for u, v in [(0, 1), (2, 6), (3, 5)]:
        c = center.copy()
        c[[u, v]] = c[[v, u]]
        assert cost("cayley", A, w, c) - base == pytest.approx(w.sum() - 2 * S[u, v])
