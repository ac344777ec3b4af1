"""Tests of rankclust.cluster.baselines (Busse et al. 2007, Sec. 4)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.cluster.baselines import (
    CompletionMallowsMixture,
    RestrictedLengthMixture,
    complete_rankings,
)
from rankclust.cluster.mixture import MallowsMixture
from rankclust.cluster.mixture_generators import make_heterogeneous_rankings
from rankclust.distances import kendall_distances
from rankclust.models.mallows import mallows_loglik

CENTERS = np.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 4, 0, 1, 3]])


def test_hard_completion_is_the_most_probable_completion():
    rng = np.random.default_rng(0)
    center = rng.permutation(5)
    R = Rankings.from_orderings([[3, 1], [2], [0, 4, 1], list(range(5))], n_items=5, kind="top")
    done = complete_rankings(R, center)
    assert done.is_complete
    for row, order in zip(done.to_orderings(), R.to_orderings(), strict=True):
        assert row[: len(order)] == order
        rest = [j for j in range(5) if j not in order]
        # brute force: the completion closest to the centre
        best = min(
            (order + list(p) for p in itertools.permutations(rest)),
            key=lambda o: kendall_distances(Rankings.from_orderings([o]), center)[0],
        )
        assert row == best


def test_sampled_completions_follow_the_conditional_model():
    center = np.arange(5)
    theta = 0.8
    R = Rankings.from_orderings([[2, 0]] * 20_000, n_items=5, kind="top")
    done = complete_rankings(R, center, theta, random_state=0)
    orders = [tuple(o[2:]) for o in done.to_orderings()]
    counts = {p: 0 for p in itertools.permutations([1, 3, 4])}
    for o in orders:
        counts[o] += 1
    # exact conditional: P(full) / P(top-2 list), by brute force
    full = Rankings.from_orderings([[2, 0, *p] for p in counts], n_items=5)
    p_full = np.exp(mallows_loglik(full, center, theta))
    p_full /= p_full.sum()
    emp = np.array([counts[p] for p in counts]) / 20_000
    np.testing.assert_allclose(emp, p_full, atol=0.01)


def test_restricted_length_mixture_uses_only_long_rankings():
    R, _y = make_heterogeneous_rankings(400, CENTERS, 1.5, lengths=[1, 2, 3, 5], random_state=0)
    est = RestrictedLengthMixture(MallowsMixture(3, n_init=3, random_state=0)).fit(R)
    np.testing.assert_array_equal(est.kept_, R.lengths >= 4)
    ref = MallowsMixture(3, n_init=3, random_state=0).fit(R[np.flatnonzero(R.lengths >= 4)])
    np.testing.assert_allclose(est.thetas_, ref.thetas_)
    np.testing.assert_array_equal(est.labels_, ref.predict(R))
    est2 = RestrictedLengthMixture(MallowsMixture(3, n_init=3), min_length=3).fit(R)
    assert est2.kept_.sum() == (R.lengths >= 3).sum()
    with pytest.raises(ValueError, match="at least"):
        RestrictedLengthMixture(min_length=5).fit(R[np.flatnonzero(R.lengths < 3)])


@pytest.mark.parametrize("completion", ["hard", "sample"])
def test_completion_mixture_finds_clear_clusters(completion):
    R, _y = make_heterogeneous_rankings(450, CENTERS, 1.5, lengths=[1, 2, 3, 5], random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = CompletionMallowsMixture(
            3, completion=completion, n_init=2, max_iter=30, random_state=0
        ).fit(R)
    from rankclust.distances import pairwise_distances

    D = pairwise_distances(Rankings(CENTERS), Rankings(est.center_positions_))
    # every true centre is found up to one or two swaps (the completions bias the centre
    # step: hard ones show the unlisted items in the old centre's order, sampled ones add
    # noise)
    assert np.all(D.min(axis=1) <= 2)
    assert sorted(D.argmin(axis=1)) == [0, 1, 2]
    assert np.all(np.diff(est.weights_) <= 0)
    assert est.labels_.shape == (450,)
    if completion == "hard":
        # hard completions put unlisted items in the best order: dispersion biased upwards
        me = MallowsMixture(3, n_init=2, random_state=0).fit(R)
        assert est.thetas_.mean() > me.thetas_.mean()


def test_completion_mixture_rejects_subset_data():
    R = Rankings.from_orderings([[0, 1], [1, 0, 2]], n_items=3, kind="subset")
    with pytest.raises(ValueError, match="kind"):
        CompletionMallowsMixture(1).fit(R)
