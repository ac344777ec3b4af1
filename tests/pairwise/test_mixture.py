"""Mixture of Bradley-Terry models over assessors: planted clusters, K = 1, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from rankclust.pairwise import BradleyTerry, BradleyTerryMixture, Comparisons


def _planted(n_per=15, m=8, per_assessor=40, seed=0):
    rng = np.random.default_rng(seed)
    z = np.linspace(2, -2, m)
    rows_w, rows_l, rows_a, truth = [], [], [], []
    for a in range(2 * n_per):
        k = a // n_per
        scores = z if k == 0 else -z  # the two groups order the items in reverse
        truth.append(k)
        i = rng.integers(0, m, per_assessor)
        j = (i + rng.integers(1, m, per_assessor)) % m
        i_wins = rng.random(per_assessor) < 1 / (1 + np.exp(scores[j] - scores[i]))
        rows_w += np.where(i_wins, i, j).tolist()
        rows_l += np.where(i_wins, j, i).tolist()
        rows_a += [a] * per_assessor
    return Comparisons.from_arrays(rows_w, rows_l, assessor=rows_a), np.array(truth)


def test_recovers_planted_assessor_clusters_and_bic_prefers_two():
    C, truth = _planted()
    fits = {K: BradleyTerryMixture(K, n_init=3, random_state=0).fit(C) for K in (1, 2, 3)}
    assert adjusted_rand_score(truth, fits[2].labels_) == 1.0
    assert fits[2].bic_ < fits[1].bic_ and fits[2].bic_ < fits[3].bic_
    # each component's consensus puts one of the planted top items first
    assert sorted(int(np.argmax(s)) for s in fits[2].scores_) == [0, 7]
    np.testing.assert_allclose(fits[2].responsibilities_.sum(axis=1), 1.0)


def test_one_component_is_the_bradley_terry_map():
    C, _ = _planted(n_per=5)
    mix = BradleyTerryMixture(1, alpha=0.2, random_state=0).fit(C)
    bt = BradleyTerry(alpha=0.2).fit(C)
    np.testing.assert_allclose(mix.scores_[0], bt.scores_, atol=1e-7)
    assert mix.log_likelihood_ == pytest.approx(bt.log_likelihood_, rel=1e-9)


def test_same_seed_same_fit():
    C, _ = _planted(n_per=6)
    a = BradleyTerryMixture(2, n_init=2, random_state=3).fit(C)
    b = BradleyTerryMixture(2, n_init=2, random_state=3).fit(C)
    np.testing.assert_array_equal(a.scores_, b.scores_)


def test_bad_input():
    with pytest.raises(ValueError, match="no assessor column"):
        BradleyTerryMixture().fit(Comparisons.from_arrays([0, 1], [1, 0]))
    C = Comparisons.from_arrays([0, 1], [1, 0], assessor=[0, 0])
    with pytest.raises(ValueError, match="n_components=2 exceeds the 1 assessors"):
        BradleyTerryMixture(2).fit(C)
    with pytest.raises(ValueError, match="alpha"):
        BradleyTerryMixture(alpha=0.0).fit(C)
