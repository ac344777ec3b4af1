"""Tests of the Mallows distance families (rankclust.models._mallows_distances and members).

Every test that loops over ``MALLOWS_DISTANCES`` picks up a newly registered family
automatically; the references are brute force over all m! permutations.
"""

from __future__ import annotations

import itertools
import json
import math
import zipfile

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from rankclust import Rankings
from rankclust.models import Mallows
from rankclust.models import _mallows_footrule as F
from rankclust.models import _mallows_partial as P
from rankclust.models import _mallows_spearman as S
from rankclust.models import mallows as M
from rankclust.models._mallows_counts import distance_pmf, log_moments
from rankclust.models._mallows_distances import MALLOWS_DISTANCES, theta_mle
from rankclust.persistence import load, save

FAMILIES = sorted(MALLOWS_DISTANCES)
THETAS = [0.0, 0.1, 0.7, 2.5]


def all_positions(m: int) -> np.ndarray:
    """All m! position vectors, shape (m!, m)."""
    return np.array(list(itertools.permutations(range(m))), dtype=np.int64).reshape(-1, m)


def brute_distances(name: str, pos: np.ndarray, center: np.ndarray) -> np.ndarray:
    family = MALLOWS_DISTANCES[name]
    return family.distances(Rankings._from_trusted(pos), center).astype(np.float64)


def brute_log_pmf(name: str, center: np.ndarray, theta: float) -> np.ndarray:
    pos = all_positions(center.shape[0])
    lw = -theta * brute_distances(name, pos, center)
    return lw - logsumexp(lw)


# --------------------------------------------------------------------------------------------
# normaliser and moments, every family, m = 2..7
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("m", range(2, 8))
def test_normaliser_and_moments_match_brute_force(name, m):
    family = MALLOWS_DISTANCES[name]
    pos = all_positions(m)
    rng = np.random.RandomState(m)
    center = rng.permutation(m)
    d = brute_distances(name, pos, center)
    # right invariance: the distribution of d does not depend on the centre
    d_id = brute_distances(name, pos, np.arange(m))
    assert np.array_equal(np.sort(d), np.sort(d_id))
    for theta in THETAS:
        lw = -theta * d
        log_z = logsumexp(lw)
        p = np.exp(lw - log_z)
        mean = p @ d
        var = p @ (d - mean) ** 2
        assert family.log_normalizer(theta, m) == pytest.approx(log_z, rel=1e-10, abs=1e-10)
        assert family.expected_distance(theta, m) == pytest.approx(mean, rel=1e-9, abs=1e-10)
        assert family.distance_variance(theta, m) == pytest.approx(var, rel=1e-8, abs=1e-10)
    assert family.max_distance(m) == d.max()


@pytest.mark.parametrize("name", FAMILIES)
def test_moments_are_derivatives_of_the_log_normaliser(name):
    family = MALLOWS_DISTANCES[name]
    m, theta, h = 9, 0.4, 1e-5
    lz = [family.log_normalizer(theta + k * h, m) for k in (-1, 0, 1)]
    assert -(lz[2] - lz[0]) / (2 * h) == pytest.approx(
        family.expected_distance(theta, m), rel=1e-6
    )
    second = (lz[2] - 2 * lz[1] + lz[0]) / h**2
    assert second == pytest.approx(family.distance_variance(theta, m), rel=1e-3)


@pytest.mark.parametrize("name", FAMILIES)
def test_normaliser_is_stable_up_to_theta_max(name):
    family = MALLOWS_DISTANCES[name]
    for m in (2, 10, 20):
        for theta in (0.0, 1e-12, 30.0, M.THETA_MAX):
            lz = family.log_normalizer(theta, m)
            mean = family.expected_distance(theta, m)
            assert np.isfinite(lz) and lz >= -1e-12
            assert np.isfinite(mean) and mean >= 0
        assert family.log_normalizer(0.0, m) == pytest.approx(math.lgamma(m + 1), rel=1e-12)
        assert family.expected_distance(M.THETA_MAX, m) < 1e-15


# --------------------------------------------------------------------------------------------
# the kendall entry is today's code
# --------------------------------------------------------------------------------------------
def test_kendall_entry_wraps_the_existing_functions():
    family = MALLOWS_DISTANCES["kendall"]
    for theta in THETAS:
        assert family.log_normalizer(theta, 6) == M.log_normalizer(theta, 6)
        assert family.expected_distance(theta, 6) == M.expected_distance(theta, 6)
        assert family.distance_variance(theta, 6) == M.distance_variance(theta, 6)
    center = np.array([2, 0, 3, 1])
    got = family.sample(center, 0.8, 50, np.random.RandomState(3))
    want = M.sample_mallows(center, 0.8, 50, np.random.RandomState(3)).ranks
    assert np.array_equal(got, want)


# --------------------------------------------------------------------------------------------
# the generic theta MLE
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FAMILIES)
def test_theta_mle_inverts_the_expected_distance(name):
    family = MALLOWS_DISTANCES[name]
    for m in (3, 8):
        for theta in (0.05, 0.6, 3.0):
            mean = family.expected_distance(theta, m)
            assert theta_mle(family, mean, m) == pytest.approx(theta, rel=1e-7)
        assert theta_mle(family, 0.0, m) == M.THETA_MAX
        assert theta_mle(family, family.expected_distance(0.0, m), m) == 0.0
        assert theta_mle(family, 10.0 * family.max_distance(m), m) == 0.0
    with pytest.raises(ValueError, match="mean_distance"):
        theta_mle(family, -1.0, 5)


def test_theta_mle_matches_the_kendall_solver():
    family = MALLOWS_DISTANCES["kendall"]
    for mean in (0.3, 2.0, 7.5):
        assert theta_mle(family, mean, 7) == pytest.approx(M.theta_mle(mean, 7), rel=1e-9)


# --------------------------------------------------------------------------------------------
# MLE of centre and theta on small weighted data, against brute force
# --------------------------------------------------------------------------------------------
def fit_complete(name: str, ranks: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, float]:
    family = MALLOWS_DISTANCES[name]
    center = family.estimate_center(ranks, w)
    d = family.distances(Rankings._from_trusted(ranks), center)
    return center, theta_mle(family, float(w @ d) / w.sum(), ranks.shape[1])


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("m", range(2, 8))
def test_mle_matches_brute_force_over_centres_and_a_theta_grid(name, m):
    rng = np.random.RandomState(10 * m + 1)
    true = MALLOWS_DISTANCES[name].sample(rng.permutation(m), 0.4, 12, rng)
    w = rng.uniform(0.2, 3.0, size=true.shape[0])
    family = MALLOWS_DISTANCES[name]
    center, theta = fit_complete(name, true, w)
    cands = all_positions(m)
    R = Rankings._from_trusted(true)
    objective = np.array([w @ family.distances(R, c) for c in cands])
    # the centre minimises the weighted distance (ties: any minimiser)
    assert w @ family.distances(R, center) == pytest.approx(objective.min(), rel=1e-12)
    grid = np.linspace(0.0, 8.0, 8001)
    lz = np.array([family.log_normalizer(t, m) for t in grid])
    loglik = -grid * objective.min() - w.sum() * lz
    best = grid[np.argmax(loglik)]
    assert abs(theta - best) <= 1.5e-3 or (best == grid[-1] and theta >= grid[-1])
    ours = -theta * objective.min() - w.sum() * family.log_normalizer(theta, m)
    assert ours >= loglik.max() - 1e-9


@pytest.mark.parametrize("name", FAMILIES)
def test_weighted_equals_expanded(name):
    rng = np.random.RandomState(5)
    family = MALLOWS_DISTANCES[name]
    ranks = family.sample(rng.permutation(6), 0.3, 15, rng)
    counts = rng.randint(1, 4, size=15)
    c1, t1 = fit_complete(name, ranks, counts.astype(float))
    c2, t2 = fit_complete(name, np.repeat(ranks, counts, axis=0), np.ones(counts.sum()))
    R = Rankings._from_trusted(ranks)
    assert counts @ family.distances(R, c1) == counts @ family.distances(R, c2)
    assert t1 == pytest.approx(t2, rel=1e-10)


def test_spearman_and_footrule_centres_by_hand():
    ranks = np.array([[0, 1, 2, 3], [1, 0, 2, 3], [3, 0, 1, 2]])
    w = np.array([1.0, 1.0, 5.0])
    # weighted mean positions: item0 16/7, item1 1/7 ... -> order 1, 2, 0, 3
    assert S.estimate_center(ranks, w).tolist() == [2, 0, 1, 3]
    assert F.estimate_center(ranks, np.ones(3)).tolist() in ([0, 1, 2, 3], [1, 0, 2, 3])


# --------------------------------------------------------------------------------------------
# samplers: empirical pmf of 40000 draws vs the exact pmf
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("m", [2, 3, 4, 5])
def test_sampler_matches_the_exact_pmf(name, m):
    family = MALLOWS_DISTANCES[name]
    rng = np.random.RandomState(100 + m)
    center = rng.permutation(m)
    theta = 0.6
    n = 40000
    draws = family.sample(center, theta, n, rng)
    assert draws.shape == (n, m) and draws.dtype == np.int64
    pos = all_positions(m)
    index = {tuple(p): i for i, p in enumerate(pos)}
    observed = np.bincount([index[tuple(r)] for r in draws], minlength=len(pos))
    p = np.exp(brute_log_pmf(name, center, theta))
    chi2 = ((observed - n * p) ** 2 / (n * p)).sum()
    assert stats.chi2.sf(chi2, len(pos) - 1) > 1e-4
    assert 0.5 * np.abs(observed / n - p).sum() < 0.03


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("m", [6, 7])
def test_sampler_matches_the_exact_distance_pmf(name, m):
    # m! cells are too many for 40000 draws: compare the pmf of the distance to the centre
    family = MALLOWS_DISTANCES[name]
    rng = np.random.RandomState(200 + m)
    center = rng.permutation(m)
    theta, n = 0.3, 40000
    draws = family.sample(center, theta, n, rng)
    assert np.all(np.sort(draws, axis=1) == np.arange(m))
    d_all = brute_distances(name, all_positions(m), center).astype(int)
    p_all = np.exp(brute_log_pmf(name, center, theta))
    pmf = np.bincount(d_all, weights=p_all)
    observed = np.bincount(brute_distances(name, draws, center).astype(int), minlength=len(pmf))
    cells = pmf > 0
    assert observed[~cells].sum() == 0
    chi2 = ((observed[cells] - n * pmf[cells]) ** 2 / (n * pmf[cells])).sum()
    assert stats.chi2.sf(chi2, cells.sum() - 1) > 1e-4


def test_a_wrong_sampler_fails_the_check():
    # the uniform sampler at the right distance with a wrong theta is rejected
    m, theta, n = 4, 0.6, 40000
    draws = MALLOWS_DISTANCES["footrule"].sample(np.arange(m), 0.5, n, np.random.RandomState(1))
    pos = all_positions(m)
    index = {tuple(p): i for i, p in enumerate(pos)}
    observed = np.bincount([index[tuple(r)] for r in draws], minlength=len(pos))
    p = np.exp(brute_log_pmf("footrule", np.arange(m), theta))
    chi2 = ((observed - n * p) ** 2 / (n * p)).sum()
    assert stats.chi2.sf(chi2, len(pos) - 1) < 1e-4


def test_spearman_exact_sampler_at_15_items_and_mcmc_beyond():
    # empirical distance pmf vs the exact distance pmf (m = 15 exact, m = 17 Metropolis)
    for m, n in ((15, 4000), (17, 4000)):
        support, log_c = S.distance_distribution(m)
        theta = 0.05
        p = distance_pmf(theta, log_c, support)
        draws = S.sample(np.arange(m)[::-1].copy(), theta, n, np.random.RandomState(m))
        d = ((draws - np.arange(m)[::-1]) ** 2).sum(axis=1)
        assert np.all(np.sort(draws, axis=1) == np.arange(m))
        _, mean, var = log_moments(theta, log_c, support)
        assert abs(d.mean() - mean) < 4 * math.sqrt(var / n) * (3 if m > 15 else 1)
        cdf_emp = np.searchsorted(np.sort(d), support, side="right") / n
        assert np.max(np.abs(cdf_emp - np.cumsum(p))) < (0.04 if m > 15 else 0.03)


# --------------------------------------------------------------------------------------------
# the exact tables
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m", range(1, 8))
def test_footrule_counts_by_brute_force(m):
    pos = all_positions(m)
    d = np.abs(pos - np.arange(m)).sum(axis=1)
    support, log_c = F.distance_distribution(m)
    want = np.bincount(d)[support.astype(int)]
    assert np.array_equal(np.round(np.exp(log_c)).astype(int), want)
    assert np.bincount(d)[1::2].sum() == 0  # footrule is even


def test_footrule_counts_at_50_items_sum_to_50_factorial():
    support, log_c = F.distance_distribution(50)
    assert logsumexp(log_c) == pytest.approx(math.lgamma(51), rel=1e-13)
    assert support[-1] == 2 * (50 * 50 // 4) == 1250
    # N(2) = m - 1 adjacent transpositions; N(4): 3-cycles of adjacent items and more (brute
    # force for m = 7 gives the polynomial check below through the table itself)
    assert np.exp(log_c[1]) == pytest.approx(49, rel=1e-12)


@pytest.mark.parametrize("m", range(1, 10))
def test_shipped_spearman_table_matches_brute_force(m):
    pos = all_positions(m)
    h = ((pos - np.arange(m)) ** 2).sum(axis=1) // 2
    table = S.exact_half_distance_counts(m)
    want = np.bincount(h, minlength=len(table))
    assert [int(x) for x in table] == want.tolist()


def test_shipped_spearman_table_sums_to_factorials_and_matches_the_programme():
    for m in range(1, 21):
        table = S.exact_half_distance_counts(m)
        assert sum(int(x) for x in table) == math.factorial(m)
        assert len(table) == (m**3 - m) // 6 + 1
        assert [int(x) for x in table] == [int(x) for x in table[::-1]]  # d <-> max - d
    for m in (10, 12):
        assert [int(x) for x in S.half_distance_counts(m)] == [
            int(x) for x in S.exact_half_distance_counts(m)
        ]


# --------------------------------------------------------------------------------------------
# Spearman beyond 20 items and MSmix's documented values
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m", range(15, 21))
def test_spearman_approximation_against_exact_values(m):
    # the method run from the exact sizes 12..14 only, against the exact values (module
    # docstring: measured 0.016, 0.4% and 1.5%)
    for theta in np.geomspace(1e-4, 3.0, 30):
        log_z, mean, var = S._approx(float(theta), m, base=14)
        assert abs(log_z - S.log_normalizer(theta, m)) <= 0.02
        assert abs(mean - S.expected_distance(theta, m)) <= 0.005 * S.expected_distance(theta, m)
        assert abs(var - S.distance_variance(theta, m)) <= 0.02 * S.distance_variance(theta, m)


def test_spearman_beyond_20_items_is_consistent():
    m = 25
    assert S.log_normalizer(0.0, m) == pytest.approx(math.lgamma(m + 1))
    assert S.expected_distance(0.0, m) == (m**3 - m) / 6
    means = [S.expected_distance(t, m) for t in (0.0, 0.01, 0.05, 0.2, 1.0)]
    assert all(a > b for a, b in itertools.pairwise(means))
    family = MALLOWS_DISTANCES["spearman"]
    assert theta_mle(family, S.expected_distance(0.05, m), m) == pytest.approx(0.05, rel=1e-9)
    # derivatives: E = -d log Z / d theta, Var = -dE / d theta
    h = 1e-5
    lz = [S.log_normalizer(0.05 + k * h, m) for k in (-1, 1)]
    assert -(lz[1] - lz[0]) / (2 * h) == pytest.approx(S.expected_distance(0.05, m), rel=1e-6)
    # the approximation from base 20 and from base 19 agree closely at 25 items
    for theta in (1e-3, 0.02, 0.1, 0.5):
        assert abs(S._approx(theta, m)[0] - S._approx(theta, m, base=19)[0]) < 0.02


@pytest.mark.parametrize("m", [5, 10, 20])
def test_msmix_documented_values(m):
    # MSmix (Crispino, Mollica et al., CRAN reference manual: partition_fun_spear,
    # expected_spear_dist, var_spear_dist): Z(0) = n!, E_0 d = (n^3 - n)/6 and
    # Var_0 d = n^2 (n - 1)(n + 1)^2 / 36 under the uniform model; the counts for n <= 20 are
    # the OEIS Spearman distance frequencies, whose rows sum to n! (checked above).
    family = MALLOWS_DISTANCES["spearman"]
    assert family.log_normalizer(0.0, m) == pytest.approx(math.lgamma(m + 1), rel=1e-12)
    assert family.expected_distance(0.0, m) == pytest.approx((m**3 - m) / 6, rel=1e-12)
    assert family.distance_variance(0.0, m) == pytest.approx(
        m * m * (m - 1) * (m + 1) ** 2 / 36, rel=1e-10
    )


# --------------------------------------------------------------------------------------------
# the estimator: Mallows(distance=...) on complete data
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FAMILIES)
def test_estimator_fit_is_the_family_fit(name):
    true = Mallows.from_params(center=[3, 0, 2, 1, 4], theta=0.5, distance=name)
    R = true.sample(400, random_state=0)
    w = np.random.RandomState(1).uniform(0.5, 2.0, size=400)
    model = Mallows(distance=name).fit(R, sample_weight=w)
    center, theta = fit_complete(name, R.ranks.astype(np.int64), w)
    assert np.array_equal(model.center_, center)
    assert model.theta_ == pytest.approx(theta, rel=1e-8)
    assert model.kind_ == "complete" and model.n_iter_ == 0 and model.converged_


@pytest.mark.parametrize("name", FAMILIES)
def test_estimator_logpdf_is_a_normalised_pmf(name):
    m = 5
    model = Mallows.from_params(center=[1, 4, 0, 2, 3], theta=0.35, distance=name)
    pos = all_positions(m)
    lp = model.logpdf(Rankings._from_trusted(pos))
    assert np.allclose(lp, brute_log_pmf(name, model.center_, 0.35), atol=1e-10)
    assert np.allclose(model.pdf(Rankings._from_trusted(pos)), np.exp(lp))
    assert math.isclose(np.exp(lp).sum(), 1.0, rel_tol=1e-10)


@pytest.mark.parametrize("name", FAMILIES)
def test_estimator_sample_and_top_t_cut(name):
    model = Mallows.from_params(center=[1, 0, 2, 3], theta=0.8, distance=name)
    full = model.sample(30, random_state=4)
    assert isinstance(full, Rankings) and full.shape == (30, 4)
    assert np.all(np.sort(full.ranks, axis=1) == np.arange(4))
    top = model.sample(30, random_state=4, lengths=2)
    assert top.kind == "top" and np.all(top.lengths == 2)
    assert np.array_equal(np.where(full.ranks < 2, full.ranks, -1), top.ranks)


def test_kendall_default_is_unchanged():
    R = Mallows.from_params(center=[2, 0, 1, 3], theta=0.7).sample(500, random_state=2)
    a = Mallows().fit(R)
    b = Mallows(distance="kendall").fit(R)
    assert np.array_equal(a.center_, b.center_) and a.theta_ == b.theta_
    assert np.array_equal(a.logpdf(R), b.logpdf(R))
    assert Mallows().get_params()["distance"] == "kendall"


def test_bad_distance_and_ties_are_refused():
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0]], n_items=3)
    with pytest.raises(ValueError, match="distance"):
        Mallows(distance="euclid").fit(R)
    tied = Rankings.from_ranks([[1, 1, 2], [1, 2, 3]])
    with pytest.raises(ValueError, match="row 0 has ties"):
        Mallows(distance="spearman").fit(tied)


@pytest.mark.parametrize("name", FAMILIES)
def test_persistence_round_trips_the_distance(name, tmp_path):
    R = Mallows.from_params(center=[1, 0, 2, 3], theta=0.6, distance=name).sample(
        200, random_state=0
    )
    model = Mallows(distance=name).fit(R)
    save(model, tmp_path / "model")
    back = load(tmp_path / "model")
    assert back.distance == name
    assert np.array_equal(back.center_, model.center_) and back.theta_ == model.theta_
    assert np.array_equal(back.logpdf(R), model.logpdf(R))


@pytest.mark.parametrize("name", [f for f in FAMILIES if f != "kendall"])
def test_theta_standard_error_from_the_fisher_information(name):
    R = Mallows.from_params(center=[1, 0, 2, 3, 4], theta=0.6, distance=name).sample(
        300, random_state=0
    )
    model = Mallows(distance=name).fit(R)
    family = MALLOWS_DISTANCES[name]
    want = 1.0 / math.sqrt(300 * family.distance_variance(model.theta_, 5))
    assert model.theta_standard_error(R) == pytest.approx(want, rel=1e-12)
    # the observed information: minus the second derivative of the log-likelihood
    h = 1e-4
    ll = [
        Mallows.from_params(center=model.center_, theta=model.theta_ + k * h, distance=name)
        .logpdf(R)
        .sum()
        for k in (-1, 0, 1)
    ]
    assert -(ll[2] - 2 * ll[1] + ll[0]) / h**2 == pytest.approx(1.0 / want**2, rel=1e-4)
    with pytest.raises(ValueError, match="complete rankings"):
        model.theta_standard_error(model.sample(10, random_state=0, lengths=2))


# --------------------------------------------------------------------------------------------
# partial data: top-t and subset rankings, every distance, against enumeration (m <= 6)
# --------------------------------------------------------------------------------------------
def consistent(pos: np.ndarray, row: np.ndarray, kind: str) -> np.ndarray:
    """Mask of the complete position vectors consistent with a partial row (brute force)."""
    present = np.flatnonzero(row >= 0)
    if kind == "top":
        return np.all(pos[:, present] == row[present], axis=1)
    chain = present[np.argsort(row[present])]
    return np.all(np.diff(pos[:, chain], axis=1) > 0, axis=1)


def random_partial(rng: np.random.RandomState, m: int, kind: str, k: int) -> np.ndarray:
    row = -np.ones(m, dtype=np.int64)
    items = rng.choice(m, size=k, replace=False)
    row[items] = np.arange(k)
    return row


@pytest.mark.parametrize("kind", ["top", "subset"])
@pytest.mark.parametrize("m", [3, 4, 5, 6])
def test_completions_by_brute_force(kind, m):
    rng = np.random.RandomState(m)
    pos = all_positions(m)
    for k in range(0, m + 1):
        row = random_partial(rng, m, kind, k)
        got = P.completions(row, kind)
        assert len(got) == P.n_completions(row, kind)
        want = pos[consistent(pos, row, kind)]
        assert {tuple(r) for r in got} == {tuple(r) for r in want}


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("kind", ["top", "subset"])
@pytest.mark.parametrize("m", [4, 6])
def test_partial_logpdf_against_enumeration(name, kind, m):
    # (Kendall runs its own exact partial likelihoods, checked against the same enumeration)
    rng = np.random.RandomState(7 * m)
    center = rng.permutation(m)
    theta = 0.45
    model = Mallows.from_params(center=center, theta=theta, distance=name)
    pos = all_positions(m)
    log_p = brute_log_pmf(name, center, theta)
    rows = np.array([random_partial(rng, m, kind, k) for k in (0, 1, 2, m - 2, m - 1, m)])
    got = model.logpdf(Rankings._from_trusted(rows, kind=kind))
    want = [logsumexp(log_p[consistent(pos, row, kind)]) for row in rows]
    assert np.allclose(got, want, atol=1e-10)


@pytest.mark.parametrize("name", [f for f in FAMILIES if f != "kendall"])
def test_top_t_lists_of_one_length_sum_to_one(name):
    m, t = 5, 2
    model = Mallows.from_params(center=[4, 0, 2, 1, 3], theta=0.3, distance=name)
    tops = [list(p) for p in itertools.permutations(range(m), t)]
    R = Rankings.from_orderings(tops, n_items=m, kind="top")
    assert math.isclose(np.exp(model.logpdf(R)).sum(), 1.0, rel_tol=1e-10)


def brute_partial_mle(name, R, w):
    """Maximise the exact partial log-likelihood over all centres and a theta grid."""
    m = R.n_items
    pos = all_positions(m)
    family = MALLOWS_DISTANCES[name]
    masks = np.array([consistent(pos, row, R.kind) for row in R.ranks.astype(np.int64)])
    grid = np.linspace(0.0, 4.0, 401)
    best = (-np.inf, None, None)
    for c in pos:
        d = brute_distances(name, pos, c)
        for t in grid:
            lw = -t * d
            ll = np.where(masks, lw[None, :], -np.inf)
            val = w @ (logsumexp(ll, axis=1) - family.log_normalizer(t, m))
            if val > best[0]:
                best = (val, c, t)
    return best


@pytest.mark.parametrize("name", [f for f in FAMILIES if f != "kendall"])
@pytest.mark.parametrize("kind", ["top", "subset"])
def test_partial_em_reaches_the_brute_force_mle(name, kind):
    m = 4
    true = Mallows.from_params(center=[2, 0, 3, 1], theta=0.9, distance=name)
    rng = np.random.RandomState(3)
    full = true.sample(60, random_state=rng).ranks.astype(np.int64)
    rows = full.copy()
    for i in range(len(rows)):
        k = rng.randint(2, m + 1)
        if kind == "top":
            rows[i][rows[i] >= k] = -1
        else:
            keep = rng.choice(m, size=k, replace=False)
            drop = np.setdiff1d(np.arange(m), keep)
            rows[i][drop] = -1
            rows[i][keep] = np.argsort(np.argsort(rows[i][keep]))
    R = Rankings._from_trusted(rows, kind=kind)
    w = rng.uniform(0.5, 2.0, size=len(rows))
    model = Mallows(distance=name, random_state=0).fit(R, sample_weight=w)
    assert model.converged_ and model.n_iter_ >= 1
    val, c, t = brute_partial_mle(name, R, w)
    ours = float(w @ model.logpdf(R))
    assert ours >= val - 1e-9  # at least as good as the best grid point
    assert np.array_equal(model.center_, c)
    assert abs(model.theta_ - t) <= 0.011


@pytest.mark.parametrize("name", [f for f in FAMILIES if f != "kendall"])
def test_partial_weighted_equals_expanded(name):
    rows = np.array([[0, 1, -1, -1, 2], [1, 0, 2, -1, -1], [2, -1, 0, 1, -1], [0, 1, 2, 3, 4]])
    counts = np.array([3, 1, 2, 2])
    R = Rankings._from_trusted(rows, kind="subset")
    Rx = Rankings._from_trusted(np.repeat(rows, counts, axis=0), kind="subset")
    a = Mallows(distance=name).fit(R, sample_weight=counts.astype(float))
    b = Mallows(distance=name).fit(Rx)
    assert np.array_equal(a.center_, b.center_)
    assert a.theta_ == pytest.approx(b.theta_, rel=1e-9)


@pytest.mark.parametrize("name", [f for f in FAMILIES if f != "kendall"])
def test_monte_carlo_em_above_the_cap(name, monkeypatch):
    true = Mallows.from_params(center=[3, 1, 0, 2, 4], theta=0.7, distance=name)
    R = true.sample(300, random_state=5, lengths=3)
    exact = Mallows(distance=name).fit(R)
    monkeypatch.setattr(P, "COMPLETION_CAP", 1)  # every partial row goes Monte Carlo
    mc = Mallows(distance=name, random_state=0, max_iter=30).fit(R)
    again = Mallows(distance=name, random_state=0, max_iter=30).fit(R)
    assert mc.converged_
    assert np.array_equal(mc.center_, exact.center_)
    assert abs(mc.theta_ - exact.theta_) <= 0.1 * exact.theta_
    assert np.array_equal(mc.center_, again.center_) and mc.theta_ == again.theta_
    with pytest.raises(ValueError, match="COMPLETION_CAP"):
        mc.logpdf(R)


def test_rows_beyond_the_cap_are_refused_by_logpdf():
    model = Mallows.from_params(center=np.arange(10), theta=0.2, distance="spearman")
    R = Rankings.from_orderings([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 1]], n_items=10)
    with pytest.raises(ValueError, match=r"row 1: .* 1814400 completions"):
        model.logpdf(R)


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("kind", ["top", "subset"])
def test_monte_carlo_e_step_draws_the_conditional_distribution(name, kind, monkeypatch):
    # the Metropolis chain on the completions of one row against the exact conditional pmf
    monkeypatch.setattr(P, "MC_DRAWS", 400)
    family = MALLOWS_DISTANCES[name]
    theta = 0.5
    center = np.array([3, 1, 0, 4, 2])
    row = np.array([1, -1, 0, -1, -1]) if kind == "subset" else np.array([-1, 1, 0, -1, -1])
    rows = np.repeat(row[None], 25, axis=0)
    state = np.repeat(P._first_completion(row, kind)[None], 25, axis=0)
    draws, _ = P._mc_completions(
        family, rows, kind, state, center, theta, np.random.RandomState(0)
    )
    comp = P.completions(row, kind)
    index = {tuple(c): a for a, c in enumerate(comp)}
    observed = np.bincount([index[tuple(d)] for d in draws], minlength=len(comp))
    lw = -theta * brute_distances(name, comp, center)
    p = np.exp(lw - logsumexp(lw))
    n = len(draws)
    assert 0.5 * np.abs(observed / n - p).sum() < 0.05


@pytest.mark.parametrize("name", [f for f in FAMILIES if f != "kendall"])
def test_uninformative_rows_have_likelihood_one_and_do_not_move_the_fit(name):
    m = 9  # 9! completions: above the cap, but the sum is 1 without enumerating
    model = Mallows.from_params(center=np.arange(m)[::-1].copy(), theta=0.4, distance=name)
    R = Rankings.from_orderings([[3], [], [2, 0]], n_items=m)
    lp = model.logpdf(R[:2])
    assert np.array_equal(lp, [0.0, 0.0])
    rows = np.array([[0, 1, -1, -1, 2], [1, 0, 2, -1, -1], [2, -1, 0, 1, -1], [-1, -1, 0, -1, -1]])
    a = Mallows(distance=name).fit(Rankings._from_trusted(rows, kind="subset"))
    b = Mallows(distance=name).fit(Rankings._from_trusted(rows[:3], kind="subset"))
    assert np.array_equal(a.center_, b.center_) and a.theta_ == b.theta_


def test_a_model_file_with_an_unknown_distance_is_refused(tmp_path):
    path = tmp_path / "model"
    save(Mallows.from_params(center=[1, 0, 2], theta=0.5, distance="footrule"), path)
    with zipfile.ZipFile(path) as zf:
        files = {name: zf.read(name) for name in zf.namelist()}
    doc = json.loads(files["model.json"])
    doc["model"]["params"]["distance"] = "euclid"
    files["model.json"] = json.dumps(doc).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    with pytest.raises(ValueError, match="distance"):
        load(path)


def test_the_exact_e_step_memory_cap_moves_the_largest_rows_to_monte_carlo(monkeypatch):
    true = Mallows.from_params(center=[3, 1, 0, 2, 4], theta=0.7, distance="footrule")
    R = true.sample(300, random_state=5, lengths=np.repeat([1, 3], 150))
    exact = Mallows(distance="footrule").fit(R)
    monkeypatch.setattr(P, "EM_TOTAL_CAP", 10)  # the top-1 rows (24 completions) go MC
    capped = Mallows(distance="footrule", random_state=0, max_iter=30).fit(R)
    assert np.array_equal(capped.center_, exact.center_)
    assert abs(capped.theta_ - exact.theta_) <= 0.1 * exact.theta_
