"""Tests of rankclust.inference.bootstrap: resampling, parametric draws, matching, results."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from rankclust import Rankings
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture
from rankclust.datasets import make_mallows_mixture
from rankclust.inference import bootstrap, match_components, sample_like
from rankclust.inference.bootstrap import _resample_weights, spawn_seeds
from rankclust.models import Mallows
from rankclust.models.plackett_luce import PlackettLuce

CENTERS = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]


@pytest.fixture(scope="module")
def two_blocs() -> Rankings:
    R, _ = make_mallows_mixture(
        300, 5, 2, centers=CENTERS, thetas=1.2, kind="top", lengths=(2, 5), random_state=3
    )
    return R


@pytest.fixture(scope="module")
def mallows_mix(two_blocs: Rankings) -> MallowsMixture:
    return MallowsMixture(2, n_init=3, random_state=0).fit(two_blocs)


@pytest.fixture(scope="module")
def pl_mix(two_blocs: Rankings) -> PlackettLuceMixture:
    return PlackettLuceMixture(2, n_init=3, random_state=0).fit(two_blocs)


def _same(a, b) -> None:
    assert a.replicates.keys() == b.replicates.keys()
    for name in a.replicates:
        np.testing.assert_array_equal(a.replicates[name], b.replicates[name])
    np.testing.assert_array_equal(a.center_replicates, b.center_replicates)
    if a.membership_stability is not None:
        np.testing.assert_array_equal(a.membership_stability, b.membership_stability)


@pytest.mark.parametrize("method", ["nonparametric", "parametric"])
def test_same_seed_same_result_for_one_and_two_jobs(mallows_mix, two_blocs, method) -> None:
    a = bootstrap(mallows_mix, two_blocs, 6, method=method, random_state=5, n_jobs=1)
    b = bootstrap(mallows_mix, two_blocs, 6, method=method, random_state=5, n_jobs=2)
    _same(a, b)
    c = bootstrap(mallows_mix, two_blocs, 6, method=method, random_state=6, n_jobs=1)
    assert not np.array_equal(a.replicates["weights"], c.replicates["weights"])


def test_seeds_do_not_depend_on_how_many_are_spawned() -> None:
    a = [s.generate_state(1)[0] for s in spawn_seeds(3, 4)]
    b = [s.generate_state(1)[0] for s in spawn_seeds(3, 8)]
    assert a == b[:4]


def test_weights_resampling_equals_explicit_row_resampling() -> None:
    """A replicate drawn as counts of the distinct rankings is the same data as the ballots
    drawn one by one (row indices), and gives the same fit."""
    rows = [[0, 1, 2], [0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1], [0, 1, 2], [2, 0, 1]]
    R = Rankings.from_orderings(rows, n_items=3)
    Ru, inverse = R.unique()
    counts = _resample_weights(Ru.weights, np.random.default_rng(0))
    assert counts.sum() == len(rows)
    # the explicit draw with these counts: ballot indices, each distinct ranking as often
    ballots = np.concatenate(
        [np.flatnonzero(inverse == u)[:1].repeat(int(c)) for u, c in enumerate(counts)]
    )
    explicit = R[ballots]
    keep = counts > 0
    weighted = Ru[np.flatnonzero(keep)].with_weights(counts[keep])
    for est in (Mallows(), PlackettLuce(alpha=0.1)):
        a, b = clone(est).fit(weighted), clone(est).fit(explicit)
        for attr in ("theta_", "scores_", "center_"):
            if hasattr(a, attr):
                np.testing.assert_allclose(getattr(a, attr), getattr(b, attr), atol=1e-8)
    mix = MallowsMixture(2, n_init=2, random_state=0)
    a, b = clone(mix).fit(weighted), clone(mix).fit(explicit)
    np.testing.assert_allclose(a.log_likelihood_, b.log_likelihood_)
    np.testing.assert_allclose(a.weights_, b.weights_)


def test_count_resampling_is_multinomial_over_ballots() -> None:
    w = np.array([5.0, 1.0, 3.0, 11.0])
    rng = np.random.default_rng(1)
    draws = np.stack([_resample_weights(w, rng) for _ in range(4000)])
    assert (draws.sum(axis=1) == w.sum()).all()
    np.testing.assert_allclose(draws.mean(axis=0), w, rtol=0.03)
    # non-integer weights: the rows are the units, each carrying its weight
    v = np.array([0.5, 2.5])
    d = np.stack([_resample_weights(v, rng) for _ in range(200)])
    assert set(np.unique(d[:, 0])) <= {0.0, 0.5, 1.0}


def test_matching_recovers_a_known_permutation(mallows_mix, pl_mix, two_blocs) -> None:
    for est in (mallows_mix, pl_mix):
        for perm in ([1, 0], [0, 1]):
            other = clone(est)
            other.__dict__.update({k: v for k, v in est.__dict__.items() if k.endswith("_")})
            other.weights_ = est.weights_[perm]
            for attr in ("thetas_", "center_positions_", "scores_", "worths_"):
                if hasattr(est, attr):
                    setattr(other, attr, getattr(est, attr)[perm])
            other.centers_ = est.centers_[perm]
            inv = np.argsort(perm)
            for how in ("posterior", "parameters"):
                got = match_components(est, other, method=how, R=two_blocs)
                np.testing.assert_array_equal(got, inv)


def test_matching_three_components() -> None:
    R, _ = make_mallows_mixture(
        450, 6, 3, centers=[[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [2, 5, 0, 4, 1, 3]],
        thetas=1.5, kind="top", lengths=(3, 6), random_state=0,
    )  # fmt: skip
    est = MallowsMixture(3, n_init=3, random_state=0).fit(R)
    perm = np.array([2, 0, 1])
    other = clone(est)
    other.__dict__.update({k: v for k, v in est.__dict__.items() if k.endswith("_")})
    other.weights_, other.thetas_ = est.weights_[perm], est.thetas_[perm]
    other.center_positions_ = est.center_positions_[perm]
    other.centers_ = Rankings._from_trusted(other.center_positions_)
    for how in ("posterior", "parameters"):
        got = match_components(est, other, method=how, R=R)
        np.testing.assert_array_equal(other.weights_[got], est.weights_)


def test_intervals_contain_the_estimate_and_replicates_align(mallows_mix, two_blocs) -> None:
    res = bootstrap(mallows_mix, two_blocs, 40, random_state=0)
    for name, (low, high) in res.intervals(0.95).items():
        est = res.estimates[name]
        assert np.all(low <= est + 1e-12) and np.all(est <= high + 1e-12), name
        assert np.all(low <= high)
    assert res.replicates["weights"].shape == (40, 2)
    np.testing.assert_allclose(res.replicates["weights"].sum(axis=1), 1.0)
    # two well separated blocs: the centres are certain, the memberships stable
    np.testing.assert_array_equal(res.center_probability, [1.0, 1.0])
    pos = res.position_probabilities
    assert pos.shape == (2, 5, 5)
    np.testing.assert_allclose(pos.sum(axis=2), 1.0)
    pairs = res.pair_probabilities
    np.testing.assert_allclose(pairs + pairs.transpose(0, 2, 1) + np.eye(5), 1.0)
    assert res.membership_stability.shape == (two_blocs.n_rankings,)
    assert np.median(res.membership_stability) == 1.0
    assert res.matchings.shape == (40, 2)
    assert "weights[0]" in res.to_markdown()


def test_wider_interval_at_higher_level(pl_mix, two_blocs) -> None:
    res = bootstrap(pl_mix, two_blocs, 30, method="parametric", random_state=1)
    lo90, hi90 = res.interval("worths", 0.8)
    lo99, hi99 = res.interval("worths", 0.99)
    assert np.all(lo99 <= lo90) and np.all(hi90 <= hi99)
    assert res.replicates["scores"].shape == (30, 2, 5)


def test_single_models_centre_uncertainty() -> None:
    true = Mallows.from_params(center=[0, 1, 2, 3], theta=1.0)
    R = true.sample(400, random_state=0)
    res = bootstrap(Mallows().fit(R), R, 30, random_state=0)
    low, high = res.interval("theta")
    assert low <= 1.0 <= high
    assert res.center_probability == 1.0
    assert res.position_probabilities.shape == (4, 4)
    np.testing.assert_array_equal(res.position_probabilities, np.eye(4))
    assert res.membership_stability is None
    # near-uniform rankings: the centre is uncertain
    flat = Mallows.from_params(center=[0, 1, 2, 3], theta=0.05).sample(60, random_state=1)
    res = bootstrap(Mallows(), flat, 30, random_state=0)
    assert res.center_probability < 0.9
    pl = bootstrap(PlackettLuce(), R, 10, method="parametric", random_state=0)
    assert pl.replicates["worths"].shape == (10, 4)


def test_warm_start_off_refits_with_restarts(mallows_mix, two_blocs) -> None:
    res = bootstrap(mallows_mix, two_blocs, 3, warm_start=False, random_state=0)
    assert not res.warm_start and res.replicates["thetas"].shape == (3, 2)


def test_sample_like_keeps_lengths_and_item_sets(mallows_mix, pl_mix, two_blocs) -> None:
    Ru = two_blocs.unique()[0]
    for est in (mallows_mix, pl_mix):
        S = sample_like(est, Ru, random_state=0)
        assert S.n_rankings == two_blocs.n_rankings and S.kind == "top"
        np.testing.assert_array_equal(np.sort(S.lengths), np.sort(two_blocs.lengths))
    rows = [[0, 2], [1, 3, 4], [4, 0], [0, 1, 2, 3, 4]] * 30
    sub = Rankings.from_orderings(rows, n_items=5, kind="subset")
    mix = MallowsMixture(2, n_init=2, random_state=0).fit(sub)
    for est in (mix, PlackettLuce().fit(sub), Mallows().fit(sub)):
        S = sample_like(est, sub, random_state=1)
        np.testing.assert_array_equal(S.ranks >= 0, sub.ranks >= 0)
        Rankings(S.ranks, kind="subset")  # valid dense positions


def test_restricted_mallows_draws_match_the_observed_pairs_model() -> None:
    """MallowsMixture's subset likelihood is Mallows on the ranked items with the centre
    restricted to them: the draws of a two-item set follow exp(-theta d) / (1 + e^-theta)."""
    est = MallowsMixture(1)
    est.weights_ = np.array([1.0])
    est.thetas_ = np.array([0.7])
    est.center_positions_ = np.array([[3, 0, 4, 1, 2]])
    est.centers_ = Rankings._from_trusted(est.center_positions_)
    design = Rankings.from_orderings([[0, 1]], n_items=5, kind="subset").with_weights([20000])
    S = sample_like(est, design, random_state=0)
    p_centre_order = np.mean(S.ranks[:, 1] < S.ranks[:, 0])  # centre puts item 1 above 0
    assert abs(p_centre_order - 1 / (1 + np.exp(-0.7))) < 0.015


def test_bad_input() -> None:
    R = Rankings.from_orderings([[0, 1, 2]] * 5)
    with pytest.raises(TypeError, match="estimator"):
        bootstrap(object(), R)
    with pytest.raises(ValueError, match="method"):
        bootstrap(Mallows(), R, method="jackknife")
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap(Mallows(), R, 0)
    with pytest.raises(ValueError, match="integer weights"):
        bootstrap(Mallows(), R.with_weights([0.5] * 5), 2, method="parametric")
    res = bootstrap(Mallows(), R, 2, random_state=0)
    with pytest.raises(ValueError, match="no parameter"):
        res.interval("thetas")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bootstrap(Mallows(), R, 2, random_state=0)


def test_subset_mixture_bootstrap_both_methods() -> None:
    rows = [[0, 2, 1], [1, 3, 4], [4, 0], [0, 1, 2, 3, 4], [3, 1], [4, 3, 2, 1, 0]] * 25
    R = Rankings.from_orderings(rows, n_items=5, kind="subset")
    mix = PlackettLuceMixture(2, n_init=2, alpha=0.1, random_state=0).fit(R)
    for method in ("nonparametric", "parametric"):
        res = bootstrap(mix, R, 5, method=method, random_state=0)
        assert res.replicates["worths"].shape == (5, 2, 5)
        assert res.membership_stability.shape == (R.n_rankings,)


def _bootstrap_sd_over_wald_se(estimator, R: Rankings, n_boot: int = 150) -> np.ndarray:
    from rankclust.inference import mixture_standard_errors

    wald = mixture_standard_errors(estimator, R)
    result = bootstrap(estimator, R, n_boot=n_boot, random_state=0)
    sd = np.std(result.replicates["weights"], axis=0, ddof=1)
    return sd / wald.weights_se


def test_warm_replicates_converge_so_the_spread_matches_the_wald_errors(monkeypatch) -> None:
    """Replicates start at the fitted optimum, where EM is slow: stopped at the fit's own
    tolerance they stay near the start and the bootstrap spread is far below the Wald
    standard error (about half, seen on APA 1980). Converged, the two agree."""
    import importlib

    # the package exports a function of the same name: take the module itself
    bootstrap_module = importlib.import_module("rankclust.inference.bootstrap")

    R, _ = make_mallows_mixture(
        800, 5, 2, centers=[[0, 1, 2, 3, 4], [1, 0, 3, 2, 4]], thetas=0.5, random_state=1
    )
    est = MallowsMixture(2, n_init=3, random_state=0).fit(R)
    ratio = _bootstrap_sd_over_wald_se(est, R)
    assert np.all((ratio > 0.8) & (ratio < 1.25)), ratio
    monkeypatch.setattr(bootstrap_module, "WARM_TOL_FACTOR", 1.0)
    loose = _bootstrap_sd_over_wald_se(est, R)
    assert np.all(loose < ratio), (loose, ratio)
