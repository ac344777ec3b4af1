"""Tests for the Plackett-Luce model: likelihoods by brute force, MM fits, sampler, choix."""

from __future__ import annotations

import itertools
import math
import warnings

import choix
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils.estimator_checks import (
    check_get_params_invariance,
    check_no_attributes_set_in_init,
    check_parameters_default_constructible,
    check_set_params,
)

from rankclust import Rankings
from rankclust.models.plackett_luce import (
    ChoiceStages,
    PlackettLuce,
    _mm_step,
    choice_stages,
    fit_scores,
    loglik_rows,
)
from tests.conftest import random_rankings


# ------------------------------------------------------------------ reference implementations
def pl_prob(ordering, worths) -> float:
    """PL probability of a complete ordering, straight from the definition (eq. 11)."""
    p = 1.0
    remaining = list(ordering)
    for item in ordering:
        p *= worths[item] / sum(worths[c] for c in remaining)
        remaining.remove(item)
    return p


def complete_pmf(worths) -> dict[tuple[int, ...], float]:
    m = len(worths)
    return {perm: pl_prob(perm, worths) for perm in itertools.permutations(range(m))}


def ref_stages(R: Rankings):
    """(winner, choice set) of every stage of every row, by the module docstring's rules."""
    out = []
    for ordering in R.to_orderings():
        absent = [j for j in range(R.n_items) if j not in ordering]
        rows = []
        if R.kind == "top":
            n_stages = min(len(ordering), R.n_items - 1)
            for s in range(n_stages):
                rows.append((ordering[s], ordering[s:] + absent))
        else:
            for s in range(len(ordering) - 1):
                rows.append((ordering[s], ordering[s:]))
        out.append(rows)
    return out


def ref_loglik(R: Rankings, scores) -> np.ndarray:
    v = np.exp(scores)
    return np.array(
        [
            sum(math.log(v[w] / sum(v[c] for c in choice)) for w, choice in row)
            for row in ref_stages(R)
        ]
    )


def ref_mm_step(R: Rankings, worths, alpha, sample_weight=None) -> np.ndarray:
    """Hunter's MM / Caron-Doucet MAP update with loops (as in choix._mm_rankings)."""
    m = R.n_items
    w = R.weights if sample_weight is None else R.weights * sample_weight
    wins = np.zeros(m)
    denoms = np.zeros(m)
    for wi, row in zip(w, ref_stages(R), strict=True):
        for winner, choice in row:
            wins[winner] += wi
            total = sum(worths[c] for c in choice)
            for c in choice:
                denoms[c] += wi / total
    new = (wins + alpha) / (denoms + alpha)
    return new / new.mean()


def log_posterior(R: Rankings, scores, alpha) -> float:
    """Log-likelihood plus Gamma(1 + alpha, alpha) log-priors, worths at mean 1."""
    v = np.exp(scores)
    v = v / v.mean()
    z = np.log(v)
    return float(R.weights @ ref_loglik(R, z) + alpha * (z - v).sum())


def top1_decomposition(R: Rankings) -> list[tuple[int, list[int]]]:
    """choix top-1 data: one (winner, losers) per PL stage."""
    return [(w, [c for c in choice if c != w]) for row in ref_stages(R) for w, choice in row]


def random_scores(rng, m, spread=1.0):
    z = rng.normal(scale=spread, size=m)
    return z - z.mean()


# ------------------------------------------------------------------ likelihood
def test_worked_example_grbovic_eq12():
    model = PlackettLuce.from_params(scores=np.log([3.0, 1.0, 5.0]))
    p = model.pdf(Rankings.from_orderings([[2, 0, 1]]))
    assert p[0] == pytest.approx(5 / 9 * 3 / 4, rel=1e-12)


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 6])
def test_complete_pmf_is_brute_force_and_sums_to_one(m, rng):
    z = random_scores(rng, m, spread=1.5)
    pmf = complete_pmf(np.exp(z))
    perms = list(pmf)
    R = Rankings.from_orderings(perms, n_items=m)
    model = PlackettLuce.from_params(scores=z)
    p = model.pdf(R)
    np.testing.assert_allclose(p, [pmf[q] for q in perms], rtol=1e-12)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    # A complete ranking is also a top-m (and top-(m-1)) list and a subset ranking of all items.
    np.testing.assert_allclose(model.pdf(R.with_kind("top")), p, rtol=1e-12)


@pytest.mark.parametrize("m", [2, 3, 4, 5, 6])
def test_top_k_likelihood_is_sum_over_completions(m, rng):
    z = random_scores(rng, m, spread=1.5)
    pmf = complete_pmf(np.exp(z))
    model = PlackettLuce.from_params(scores=z)
    for k in range(1, m + 1):
        lists = list(itertools.permutations(range(m), k))
        R = Rankings.from_orderings(lists, n_items=m, kind="top")
        p = model.pdf(R)
        expected = [sum(q for perm, q in pmf.items() if perm[:k] == lst) for lst in lists]
        np.testing.assert_allclose(p, expected, rtol=1e-10)
        assert p.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("m", [2, 3, 4, 5, 6])
def test_subset_likelihood_is_marginal_over_completions(m, rng):
    z = random_scores(rng, m, spread=1.5)
    pmf = complete_pmf(np.exp(z))
    model = PlackettLuce.from_params(scores=z)
    for size in range(1, m + 1):
        subset = sorted(rng.choice(m, size=size, replace=False).tolist())
        orderings = list(itertools.permutations(subset))
        R = Rankings.from_orderings(orderings, n_items=m, kind="subset")
        p = model.pdf(R)

        def consistent(perm, ordering):
            pos = {item: i for i, item in enumerate(perm)}
            return all(pos[a] < pos[b] for a, b in itertools.pairwise(ordering))

        expected = [sum(q for perm, q in pmf.items() if consistent(perm, o)) for o in orderings]
        np.testing.assert_allclose(p, expected, rtol=1e-10)
        assert p.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("kind", ["subset", "top"])
def test_loglik_rows_matches_reference(kind, rng):
    R = random_rankings(rng, 80, 6, kind=kind, p_missing=0.4)
    z = random_scores(rng, 6)
    np.testing.assert_allclose(loglik_rows(R, z), ref_loglik(R, z), rtol=1e-12, atol=1e-12)
    stages = choice_stages(R, compress=False)
    np.testing.assert_allclose(loglik_rows(stages, z), ref_loglik(R, z), rtol=1e-12, atol=1e-12)


def test_loglik_rows_many_components(rng):
    R = random_rankings(rng, 50, 5, kind="top", p_missing=0.5)
    Z = np.stack([random_scores(rng, 5) for _ in range(3)])
    out = loglik_rows(R, Z)
    assert out.shape == (50, 3)
    for k in range(3):
        np.testing.assert_allclose(out[:, k], loglik_rows(R, Z[k]), rtol=1e-13)


def test_loglik_is_shift_invariant_and_stable_for_extreme_scores():
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 2]], n_items=3, kind="top")
    z = np.array([800.0, 0.0, -800.0])
    ll = loglik_rows(R, z)
    assert np.isfinite(ll).all()
    assert ll[0] == pytest.approx(0.0, abs=1e-12)
    assert ll[1] == pytest.approx(-2400.0, rel=1e-12)  # (-800 - 800) + (0 - 800)
    np.testing.assert_allclose(loglik_rows(R, z + 1e3), ll, rtol=1e-12)


def test_rows_without_choices_have_probability_one():
    R = Rankings.from_orderings([[], [3], [1, 2]], n_items=4, kind="subset")
    ll = loglik_rows(R, [0.3, -1.0, 0.2, 0.5])
    assert ll[0] == 0.0 and ll[1] == 0.0 and ll[2] < 0.0


# ------------------------------------------------------------------ sampler
def test_sampler_complete_matches_exact_pmf():
    z = np.array([1.0, 0.2, -0.3, -0.9])
    model = PlackettLuce.from_params(scores=z)
    n = 20000
    R = model.sample(n, random_state=0)
    assert R.is_complete and R.n_rankings == n
    pmf = complete_pmf(np.exp(z))
    perms = list(pmf)
    index = {p: i for i, p in enumerate(perms)}
    counts = np.bincount([index[tuple(o)] for o in R.to_orderings()], minlength=len(perms))
    expected = n * np.array([pmf[p] for p in perms])
    _, pvalue = stats.chisquare(counts, expected)
    assert pvalue > 1e-3
    assert np.abs(counts / n - expected / n).max() < 0.01


def test_sampler_top_k_matches_exact_pmf():
    z = np.array([0.8, 0.0, -0.5, 0.1, -0.4])
    model = PlackettLuce.from_params(scores=z)
    n = 20000
    R = model.sample(n, random_state=1, lengths=2)
    assert R.kind == "top" and (R.lengths == 2).all()
    lists = list(itertools.permutations(range(5), 2))
    index = {p: i for i, p in enumerate(lists)}
    counts = np.bincount([index[tuple(o)] for o in R.to_orderings()], minlength=len(lists))
    exact = model.pdf(Rankings.from_orderings(lists, n_items=5, kind="top"))
    _, pvalue = stats.chisquare(counts, n * exact)
    assert pvalue > 1e-3


def test_sampler_lengths_array_and_reproducibility():
    model = PlackettLuce.from_params(scores=[0.5, 0.0, -0.5])
    lengths = np.array([1, 2, 3, 1])
    R = model.sample(4, random_state=3, lengths=lengths)
    np.testing.assert_array_equal(R.lengths, lengths)
    assert model.sample(4, random_state=3, lengths=lengths) == R
    assert model.sample(0, random_state=0).n_rankings == 0
    R2 = model.sample(5, random_state=np.random.default_rng(0))
    assert R2.is_complete
    for bad in (0, 4, 1.5):
        with pytest.raises(ValueError, match="lengths"):
            model.sample(3, random_state=0, lengths=bad)
    with pytest.raises(ValueError, match="size"):
        model.sample(-1)


# ------------------------------------------------------------------ MM algorithm
@pytest.mark.parametrize("kind", ["subset", "top"])
@pytest.mark.parametrize("alpha", [0.0, 0.7])
def test_mm_step_matches_loop_reference(kind, alpha, rng):
    R = random_rankings(rng, 60, 6, kind=kind, p_missing=0.4).with_weights(rng.random(60) * 3)
    sw = rng.random(60)
    worths = np.exp(random_scores(rng, 6))
    worths /= worths.mean()
    stages = choice_stages(R)
    row_w = stages.row_weights(sw)
    wins = np.bincount(
        stages.order[stages.active],
        weights=np.broadcast_to(row_w[:, None], stages.order.shape)[stages.active],
        minlength=6,
    )
    got = _mm_step(stages, row_w, wins, worths, alpha)
    np.testing.assert_allclose(got, ref_mm_step(R, worths, alpha, sw), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(2, 6),
    kind=st.sampled_from(["subset", "top"]),
    alpha=st.sampled_from([0.0, 0.05, 2.0]),
)
def test_mm_never_decreases_the_objective(seed, m, kind, alpha):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2 * m, 40))
    R = random_rankings(rng, n, m, kind=kind, p_missing=0.3).with_weights(rng.random(n) + 0.1)
    z = random_scores(rng, m, spread=2.0)
    if alpha == 0.0 and _mle_missing(R):
        with pytest.raises(ValueError, match="does not exist"):
            fit_scores(R, alpha=alpha)
        return
    stages = choice_stages(R)
    previous = log_posterior(R, z, alpha)
    for _ in range(15):
        z, n_iter, _ = fit_scores(stages, alpha=alpha, init=z, max_iter=1, tol=0.0)
        assert n_iter == 1
        current = log_posterior(R, z, alpha)
        assert current >= previous - 1e-9 * (1 + abs(previous))
        previous = current


def _mle_missing(R: Rankings) -> bool:
    from scipy.sparse.csgraph import connected_components

    beats = R.pairwise_counts() > 0
    return connected_components(beats, directed=True, connection="strong")[0] > 1


def test_fit_recovers_scores_from_samples():
    z = np.array([1.2, 0.4, 0.0, -0.6, -1.0])
    truth = PlackettLuce.from_params(scores=z)
    model = PlackettLuce().fit(truth.sample(20000, random_state=0))
    np.testing.assert_allclose(model.scores_, z - z.mean(), atol=0.05)
    np.testing.assert_array_equal(model.ranking_, [0, 1, 2, 3, 4])
    # Top-k lists of random lengths carry the same information, less of it.
    lengths = np.random.default_rng(1).integers(1, 6, size=20000)
    top = truth.sample(20000, random_state=2, lengths=lengths)
    np.testing.assert_allclose(PlackettLuce().fit(top).scores_, z - z.mean(), atol=0.08)


def test_fit_reaches_a_stationary_point(rng):
    R = random_rankings(rng, 200, 5, kind="top", p_missing=0.5)
    model = PlackettLuce().fit(R)
    assert model.converged_
    # Gradient of the log-likelihood in the scores is zero at the MLE: wins = expected wins.
    eps = 1e-6
    base = loglik_rows(R, model.scores_).sum()
    for j in range(5):
        e = np.zeros(5)
        e[j] = eps
        grad = (loglik_rows(R, model.scores_ + e).sum() - base) / eps
        assert abs(grad) < 1e-4


def test_weighted_equals_expanded(rng):
    R = random_rankings(rng, 40, 5, kind="top", p_missing=0.4)
    counts = rng.integers(0, 4, size=40)
    counts[0] = 1
    weighted = PlackettLuce().fit(R.with_weights(counts))
    expanded = PlackettLuce().fit(R.with_weights(counts).expand())
    via_sample_weight = PlackettLuce().fit(R, sample_weight=counts)
    np.testing.assert_allclose(weighted.scores_, expanded.scores_, atol=1e-9)
    np.testing.assert_allclose(via_sample_weight.scores_, expanded.scores_, atol=1e-9)
    # Zero weight is the same as dropping the row.
    dropped = PlackettLuce().fit(R[counts > 0], sample_weight=counts[counts > 0])
    np.testing.assert_allclose(weighted.scores_, dropped.scores_, atol=1e-9)


def test_compiled_stages_reused_with_responsibilities(rng):
    R = random_rankings(rng, 300, 5, kind="top", p_missing=0.5)
    stages = choice_stages(R)
    assert isinstance(stages, ChoiceStages) and stages.n_rankings == 300
    assert stages.order.shape[0] < 300  # duplicates merged
    resp = rng.random(300)
    z, _, _ = fit_scores(stages, resp, alpha=0.1)
    z_direct, _, _ = fit_scores(R, resp, alpha=0.1)
    z_uncompressed, _, _ = fit_scores(choice_stages(R, compress=False), resp, alpha=0.1)
    np.testing.assert_allclose(z, z_direct, atol=1e-12)
    np.testing.assert_allclose(z, z_uncompressed, atol=1e-9)


def test_warm_start_at_the_optimum_stops_at_once(rng):
    R = random_rankings(rng, 100, 4)
    z, _, _ = fit_scores(R, tol=1e-12)
    z2, n_iter, converged = fit_scores(R, init=z + 5.0, tol=1e-9)
    assert converged and n_iter == 1
    np.testing.assert_allclose(z2, z, atol=1e-9)


# ------------------------------------------------------------------ agreement with choix
def _choix_rankings(R: Rankings) -> list[list[int]]:
    return [o for o in R.to_orderings() if len(o) >= 2]


def test_agrees_with_choix_on_complete_rankings():
    truth = PlackettLuce.from_params(scores=[0.9, 0.5, 0.0, -0.2, -0.5, -0.7])
    R = truth.sample(300, random_state=0)
    data = _choix_rankings(R)
    ours = PlackettLuce().fit(R).scores_
    mm = choix.mm_rankings(6, data, tol=1e-12, max_iter=100000)
    ilsr = choix.ilsr_rankings(6, data, tol=1e-12, max_iter=1000)
    np.testing.assert_allclose(ours, mm - mm.mean(), atol=1e-6)
    np.testing.assert_allclose(ours, ilsr - ilsr.mean(), atol=1e-6)


def test_agrees_with_choix_on_subset_rankings(rng):
    R = random_rankings(rng, 300, 6, kind="subset", p_missing=0.4, min_length=2)
    ours = PlackettLuce().fit(R).scores_
    ilsr = choix.ilsr_rankings(6, _choix_rankings(R), tol=1e-12, max_iter=1000)
    np.testing.assert_allclose(ours, ilsr - ilsr.mean(), atol=1e-6)


def test_agrees_with_choix_on_top_k_lists():
    truth = PlackettLuce.from_params(scores=[0.6, 0.3, 0.0, -0.4, -0.5])
    lengths = np.random.default_rng(0).integers(1, 6, size=400)
    R = truth.sample(400, random_state=4, lengths=lengths)
    ours = PlackettLuce().fit(R).scores_
    # A top-k list is k top-1 choices, each among all items not yet placed.
    ref = choix.ilsr_top1(5, top1_decomposition(R), tol=1e-12, max_iter=1000)
    np.testing.assert_allclose(ours, ref - ref.mean(), atol=1e-6)


@pytest.mark.parametrize("alpha", [0.5, 3.0])
def test_map_agrees_with_choix_alpha(alpha):
    # Item 0 always wins: only the prior keeps its score finite.
    R = Rankings.from_orderings([[0, 1, 2, 3], [0, 2, 1, 3], [0, 3, 2, 1], [0, 1, 3]], n_items=4)
    ours = PlackettLuce(alpha=alpha).fit(R).scores_
    ref = choix.mm_rankings(4, _choix_rankings(R), alpha=alpha, tol=1e-13, max_iter=100000)
    np.testing.assert_allclose(ours, ref - ref.mean(), atol=1e-8)


# ------------------------------------------------------------------ existence of the MLE
def test_regulariser_keeps_scores_finite_when_an_item_always_wins():
    R = Rankings.from_orderings([[2, 0, 1], [2, 1, 0], [2, 0]], n_items=3, kind="top")
    with pytest.raises(ValueError, match=r"items \[2\] never lose.*alpha > 0"):
        PlackettLuce().fit(R)
    model = PlackettLuce(alpha=0.1).fit(R)
    assert model.converged_ and np.isfinite(model.scores_).all()
    assert model.ranking_[2] == 0
    assert model.scores_[2] > model.scores_.max(initial=-np.inf, where=np.arange(3) != 2) + 1


def test_mle_missing_messages():
    never_win = Rankings.from_orderings([[0, 1, 2], [1, 0, 2]], n_items=3)
    with pytest.raises(ValueError, match=r"items \[2\] never win"):
        fit_scores(never_win)
    unseen = Rankings.from_orderings([[0, 1], [1, 0]], n_items=3, kind="subset")
    with pytest.raises(ValueError, match=r"items \[2\] are never compared"):
        fit_scores(unseen)
    # Two groups that never meet.
    split = Rankings.from_orderings([[0, 1], [1, 0], [2, 3], [3, 2]], n_items=4)
    with pytest.raises(ValueError, match="2 groups"):
        fit_scores(split)
    # Zero-weight rows do not count as comparisons.
    R = Rankings.from_orderings([[0, 1, 2], [2, 0, 1], [1, 2, 0]])
    fit_scores(R)
    with pytest.raises(ValueError, match="does not exist"):
        fit_scores(R, sample_weight=[1.0, 0.0, 0.0])
    # With a prior an item that is never seen keeps the prior mode: the mean worth.
    z, _, converged = fit_scores(unseen, alpha=1.0)
    assert converged and np.isfinite(z).all()


# ------------------------------------------------------------------ estimator contract
def test_fitted_attributes(rng):
    R = random_rankings(rng, 100, 5, kind="top", p_missing=0.3)
    model = PlackettLuce(alpha=0.01).fit(R)
    assert model.scores_.mean() == pytest.approx(0.0, abs=1e-12)
    assert model.worths_.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(model.worths_, np.exp(model.scores_) / np.exp(model.scores_).sum())
    np.testing.assert_array_equal(np.sort(model.ranking_), np.arange(5))
    np.testing.assert_array_equal(np.argsort(model.ranking_), np.argsort(-model.scores_))
    assert model.n_items_ == 5 and model.converged_ and 1 <= model.n_iter_ < model.max_iter
    assert model.score(R) == pytest.approx(model.logpdf(R).mean())
    Rw = R.with_weights(rng.random(100))
    assert model.score(Rw) == pytest.approx(np.average(model.logpdf(Rw), weights=Rw.weights))


def test_fit_accepts_one_based_rank_arrays():
    ranks = np.array([[1, 2, 3], [2, 1, 3], [1, 3, 2], [3, 1, 2], [0, 1, 2]])
    model = PlackettLuce().fit(ranks)
    R = Rankings.from_ranks(ranks)
    np.testing.assert_allclose(model.scores_, PlackettLuce().fit(R).scores_)
    np.testing.assert_allclose(model.logpdf(ranks), model.logpdf(R))


def test_one_item():
    model = PlackettLuce().fit(Rankings.from_orderings([[0], [0]], n_items=1))
    np.testing.assert_array_equal(model.scores_, [0.0])
    assert model.converged_ and model.n_iter_ == 0


def test_ties_go_to_davidson_luce_and_the_stage_functions_refuse_them():
    # The estimator fits ties (tests/models/test_davidson_luce.py); the untied PL functions
    # still refuse them, naming the row, and an untied model gives a tie probability 0.
    R = Rankings.from_orderings([[0, 1, 2], [(0, 1), 2]], n_items=3)
    with pytest.raises(ValueError, match="row 1"):
        choice_stages(R)
    model = PlackettLuce.from_params(scores=[0.0, 1.0, 2.0])
    assert model.logpdf(R)[1] == -np.inf
    assert np.isfinite(model.logpdf(R)[0])


def test_bad_input_errors():
    model = PlackettLuce.from_params(scores=[0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="expected 3"):
        model.logpdf(Rankings.from_orderings([[0, 1]], n_items=2))
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 0, 2]])
    with pytest.raises(ValueError, match="sample_weight"):
        PlackettLuce().fit(R, sample_weight=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="sample_weight"):
        PlackettLuce().fit(R, sample_weight=[1.0, 1.0])
    with pytest.raises(ValueError, match="the weights of the rankings sum to zero"):
        PlackettLuce().fit(R, sample_weight=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="init"):
        fit_scores(R, init=[0.0, np.nan, 0.0])
    with pytest.raises(ValueError, match="scores"):
        loglik_rows(R, [0.0, 1.0])
    with pytest.raises(ValueError, match="scores"):
        PlackettLuce.from_params(scores=[np.inf, 0.0])
    with pytest.raises(NotFittedError):
        PlackettLuce().logpdf(R)
    with pytest.raises(TypeError):
        loglik_rows(np.zeros((2, 3)), [0.0, 0.0, 0.0])


@pytest.mark.parametrize(
    "params", [{"alpha": -1.0}, {"max_iter": 0}, {"tol": -1e-3}, {"max_iter": 2.5}]
)
def test_invalid_hyper_parameters(params):
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 0, 2]])
    with pytest.raises(ValueError, match=next(iter(params))):
        PlackettLuce(**params).fit(R)


def test_convergence_warning():
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1]])
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        model = PlackettLuce(max_iter=2, tol=0.0).fit(R)
    assert model.n_iter_ == 2 and not model.converged_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PlackettLuce().fit(R)


def test_clone_get_params_and_sklearn_checks():
    model = PlackettLuce(alpha=0.5, max_iter=50, tol=1e-6)
    assert model.get_params() == {"alpha": 0.5, "max_iter": 50, "tol": 1e-6}
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy is not model
    model.set_params(alpha=2.0)
    assert model.alpha == 2.0
    fitted = PlackettLuce().fit(Rankings.from_orderings([[0, 1], [1, 0]]))
    assert not hasattr(clone(fitted), "scores_")
    from_params = PlackettLuce.from_params(scores=[0.0, 1.0], alpha=0.3)
    assert from_params.alpha == 0.3 and from_params.n_items_ == 2
    check_no_attributes_set_in_init("PlackettLuce", PlackettLuce())
    check_parameters_default_constructible("PlackettLuce", PlackettLuce())
    check_get_params_invariance("PlackettLuce", PlackettLuce())
    check_set_params("PlackettLuce", PlackettLuce())
