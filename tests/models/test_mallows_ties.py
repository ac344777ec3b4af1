"""Tests for the Kendall-Mallows model on rankings with ties (a bucket = an unknown order)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.distances import kendall_distances
from rankclust.models import _mallows_ties as ties
from rankclust.models.mallows import (
    SUBSET_DP_MAX_WORK,
    Mallows,
    estimate_center,
    estimate_theta,
    log_normalizer,
    mallows_loglik,
    most_probable_extension,
)


# ------------------------------------------------------------------ brute force
def all_perms(m: int) -> np.ndarray:
    """Every complete ranking of m items as a position vector."""
    return np.array(list(itertools.permutations(range(m))))


def perm_probs(center, theta) -> tuple[np.ndarray, np.ndarray]:
    m = len(center)
    perms = all_perms(m)
    d = kendall_distances(Rankings(perms), center)
    return perms, np.exp(-theta * d - log_normalizer(theta, m))


def consistent(perms: np.ndarray, row: np.ndarray, kind: str) -> np.ndarray:
    """Mask of the complete rankings consistent with a tied (partial) row."""
    pres = row >= 0
    ok = np.ones(len(perms), dtype=bool)
    for a, b in itertools.permutations(range(len(row)), 2):
        if pres[a] and pres[b] and row[a] < row[b]:
            ok &= perms[:, a] < perms[:, b]
        elif kind == "top" and pres[a] and not pres[b]:
            ok &= perms[:, a] < perms[:, b]
    return ok


def weak_orders(m: int) -> np.ndarray:
    out = [r for r in itertools.product(range(m), repeat=m) if set(r) == set(range(max(r) + 1))]
    return np.array(out)


def random_tied_rows(rng, n, m, kind, p_missing=0.3):
    rows = []
    while len(rows) < n:
        r = rng.integers(0, max(2, m - 2), size=m)  # few positions: ties
        if kind != "complete":
            drop = rng.random(m) < p_missing
            if kind == "top":  # absent items rank below: keep a top set of buckets
                cut = rng.integers(1, r.max() + 2)
                drop = r >= cut
            r = np.where(drop, -1, r)
        if (r >= 0).sum() >= 1:
            rows.append(r)
    return Rankings(rows, kind="top" if kind == "top" else "subset")


CENTER = np.array([2, 0, 1, 5, 3, 4])


# ------------------------------------------------------------------ likelihood
@pytest.mark.parametrize("m", [3, 4, 5, 6])
@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
def test_likelihood_is_the_total_probability_of_consistent_rankings(rng, m, kind):
    center = np.argsort(np.argsort(CENTER[:m]))
    theta = 0.6
    R = random_tied_rows(rng, 25, m, kind)
    perms, p = perm_probs(center, theta)
    want = [p[consistent(perms, r, R.kind)].sum() for r in R.ranks]
    got = np.exp(mallows_loglik(R, center, theta))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-15)


def test_closed_form_of_a_bucket_sum_by_enumeration():
    # sum over the b! orders of a bucket of q^inversions is [b]_q! = psi_b
    for b in range(1, 7):
        theta = 0.37
        d = kendall_distances(Rankings(all_perms(b)), np.arange(b))
        assert np.exp(-theta * d).sum() == pytest.approx(np.exp(log_normalizer(theta, b)))


@pytest.mark.parametrize("m", [3, 4, 5])
def test_weak_orders_of_one_tie_pattern_sum_to_one(m):
    # a tie pattern (bucket sizes in order) partitions the complete rankings: the tied
    # likelihoods of all weak orders with that pattern sum to 1, and over all weak orders
    # to 2^(m-1) (each complete ranking is consistent with 2^(m-1) weak orders)
    W = weak_orders(m)
    center = np.argsort(np.argsort(CENTER[:m]))
    p = np.exp(mallows_loglik(Rankings(W), center, 0.8))
    patterns = [tuple(np.bincount(r)) for r in W]
    for pat in set(patterns):
        assert p[[q == pat for q in patterns]].sum() == pytest.approx(1.0, abs=1e-12)
    assert p.sum() == pytest.approx(2 ** (m - 1), abs=1e-10)


def test_untied_rows_keep_their_values_and_untied_top_matches_busse(rng):
    model = Mallows.from_params(center=CENTER, theta=0.9)
    untied = model.sample(30, random_state=0, lengths=3)
    tied = random_tied_rows(rng, 10, 6, "top")
    both = Rankings.concatenate([untied, tied])
    np.testing.assert_array_equal(model.logpdf(both)[:30], model.logpdf(untied))
    # the closed form with the absent items as a bottom bucket is Busse et al.'s top-t
    np.testing.assert_allclose(
        ties.tied_loglik(untied, CENTER, 0.9), model.logpdf(untied), rtol=1e-12
    )


def test_subset_guard_counts_the_bucket_orders():
    m = 27
    row = np.full(m, -1)
    row[:9] = 0  # one bucket of 9 items, 18 absent: 9! chains
    row[9] = 1
    with pytest.raises(ValueError, match="bucket orders"):
        mallows_loglik(Rankings([row]), np.arange(m), 0.5)
    assert SUBSET_DP_MAX_WORK > 0


# ------------------------------------------------------------------ estimation
def tied_complete_sample(n=400, seed=0, kind="complete"):
    """Mallows draws coarsened into buckets (merge neighbours at random)."""
    rng = np.random.default_rng(seed)
    model = Mallows.from_params(center=[2, 0, 1, 4, 3], theta=0.7)
    R = model.sample(n, random_state=seed)
    ranks = R.ranks.astype(np.int64)
    merged = np.empty_like(ranks)
    for i, r in enumerate(ranks):
        cuts = np.r_[0, np.cumsum(rng.random(4) < 0.6)]  # bucket id of each position
        merged[i] = cuts[r]
    if kind == "top":
        merged = np.where(merged <= 1, merged, -1)
    return model, Rankings(merged, kind="top" if kind == "top" else "subset")


def total_loglik(R, center, theta):
    return float(R.weights @ mallows_loglik(R, center, theta))


@pytest.mark.parametrize("kind", ["complete", "top"])
def test_theta_is_the_grid_maximum_and_the_center_the_brute_force_one(kind):
    _, R = tied_complete_sample(kind=kind)
    model = Mallows().fit(R)
    grid = np.linspace(0.05, 3.0, 400)
    ll = [total_loglik(R, model.center_, t) for t in grid]
    best = grid[int(np.argmax(ll))]
    assert abs(best - model.theta_) <= grid[1] - grid[0]
    assert total_loglik(R, model.center_, model.theta_) >= max(ll) - 1e-9
    # the centre maximises the likelihood over all 120 centres at the fitted theta
    scores = [total_loglik(R, c, model.theta_) for c in all_perms(5)]
    assert total_loglik(R, model.center_, model.theta_) == pytest.approx(max(scores))


def test_theta_score_and_information_match_finite_differences():
    _, R = tied_complete_sample(300, seed=4)
    center = estimate_center(R)
    theta = estimate_theta(R, center)
    h = 1e-4
    f = [total_loglik(R, center, theta + k * h) for k in (-1, 0, 1)]
    assert (f[2] - f[0]) / (2 * h) == pytest.approx(0.0, abs=1e-5)
    info = ties.tied_theta_information(R, theta, R.weights)
    assert -(f[2] - 2 * f[1] + f[0]) / h**2 == pytest.approx(info, rel=1e-4)
    model = Mallows().fit(R)
    assert model.theta_standard_error(R) == pytest.approx(1 / np.sqrt(info), rel=1e-6)


def test_fit_recovers_theta_from_coarsened_draws():
    true, R = tied_complete_sample(3000, seed=1)
    model = Mallows().fit(R)
    np.testing.assert_array_equal(model.center_, true.center_)
    assert abs(model.theta_ - true.theta_) < 4 * model.theta_standard_error(R)


def test_weights_equal_repeats():
    _, R = tied_complete_sample(60, seed=2)
    counts = np.arange(60) % 3 + 1
    a = Mallows().fit(R.with_weights(counts.astype(float)))
    b = Mallows().fit(Rankings(np.repeat(R.ranks, counts, axis=0)))
    np.testing.assert_array_equal(a.center_, b.center_)
    assert a.theta_ == pytest.approx(b.theta_, rel=1e-10)


def test_most_probable_extension_of_a_tied_subset_row(rng):
    perms, p = perm_probs(np.array([2, 0, 1, 4, 3]), 1.0)
    R = random_tied_rows(rng, 20, 5, "subset")
    done = most_probable_extension(R, [2, 0, 1, 4, 3])
    for r, full in zip(R.ranks, done.ranks, strict=True):
        ok = consistent(perms, r, "subset")
        assert consistent(full[None, :], r, "subset")[0]
        assert p[ok].max() == pytest.approx(p[(perms == full).all(axis=1)][0])


def test_subset_fit_with_ties_and_its_standard_error_refusal(rng):
    R = random_tied_rows(rng, 80, 6, "subset")
    model = Mallows().fit(R)
    assert model.kind_ == "subset" and 0 <= model.theta_
    assert np.isfinite(model.logpdf(R)).all()
    with pytest.raises(ValueError, match="approximate EM"):
        model.theta_standard_error(R)
