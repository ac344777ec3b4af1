"""The one greedy k-means++ over rankings (rankclust.cluster._seeding)."""

import warnings

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.cluster._seeding import (
    KMEANSPP,
    check_kmeanspp_spelling,
    greedy_kmeanspp,
    kmeanspp_rankings,
    n_local_trials,
    random_completion,
)
from rankclust.cluster.baselines import CompletionMallowsMixture
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture
from rankclust.datasets import make_mallows_mixture
from rankclust.distances import kendall_distances


def ref_mixture_seeds(R, k, rng):
    """Plain-numpy greedy k-means++ of the mixtures, written from its description: distinct
    rankings; first drawn by w_i * (pairs ranking i orders); then the best of 2 + log K
    candidates drawn by w_i * (Kendall statistic to the nearest seed), completed at random."""
    Ru, _ = R.unique()
    w, m = Ru.weights, Ru.n_items
    t = Ru.lengths.astype(float)
    p0 = w * np.maximum(t * (t - 1) / 2 + (t * (m - t) if Ru.kind == "top" else 0.0), 1e-12)
    first = rng.choice(len(w), p=p0 / p0.sum())
    seeds = [random_completion(Ru.ranks[first], rng)]
    nearest = kendall_distances(Ru, seeds[0]).astype(float)
    for _ in range(1, k):
        p = w * nearest
        picks = rng.choice(len(w), n_local_trials(k), p=p / p.sum())
        cands = [random_completion(Ru.ranks[i], rng) for i in picks]
        dists = [np.minimum(nearest, kendall_distances(Ru, c)) for c in cands]
        best = int(np.argmin([w @ d for d in dists]))
        seeds.append(cands[best])
        nearest = dists[best]
    return np.array(seeds)


@pytest.fixture(scope="module")
def data():
    R, _ = make_mallows_mixture(200, 6, 3, lengths=(1, 6), kind="top", random_state=4)
    return R


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("k", [2, 4])
def test_mixture_seeds_match_reference(data, seed, k):
    est = MallowsMixture(k)
    blocks, _, _ = est._memory_blocks(data, None)
    got = est._seeds(blocks, np.random.RandomState(seed))
    np.testing.assert_array_equal(got, ref_mixture_seeds(data, k, np.random.RandomState(seed)))
    assert all(np.array_equal(np.sort(s), np.arange(6)) for s in got)  # complete rankings


@pytest.mark.parametrize("est_cls", [MallowsMixture, PlackettLuceMixture])
def test_one_seeding_for_every_mixture(data, est_cls):
    # the mixtures' seeds and CompletionMallowsMixture's seeds are the same function
    est = est_cls(3)
    blocks, _, _ = est._memory_blocks(data, None)
    a = est._seeds(blocks, np.random.RandomState(7))
    b = kmeanspp_rankings(data, 3, np.random.RandomState(7))
    np.testing.assert_array_equal(a, b)


def test_kmeanspp_rankings_errors():
    R = Rankings.from_orderings([[0, 1, 2]] * 4 + [[2, 1, 0]], n_items=3, kind="top")
    with pytest.raises(
        ValueError, match="larger than the number of distinct rankings of positive weight n=2"
    ):
        kmeanspp_rankings(R, 3, np.random.RandomState(0))
    with pytest.raises(ValueError, match="sum to zero"):
        kmeanspp_rankings(R.with_weights(np.zeros(5)), 1, np.random.RandomState(0))
    # zero-weight rankings are never seeds
    seeds = kmeanspp_rankings(R.with_weights([1, 1, 1, 1, 0]), 1, np.random.RandomState(0))
    np.testing.assert_array_equal(seeds, [[0, 1, 2]])


class _FakeSpace:
    """Rows 0..n-1 on a line; a seed is a row; draws return None when nothing is left."""

    def __init__(self, x):
        self.x = np.asarray(x, float)
        self.fallbacks = 0

    def first_weights(self):
        return np.ones_like(self.x)

    def scores(self, nearest):
        return nearest

    def draw(self, p, size, rng):
        if not p.sum() > 0:
            return None
        return rng.choice(len(p), 1 if size is None else size, p=p / p.sum())

    def candidates(self, picks, rng):
        return np.asarray(picks)

    def distances(self, seed):
        return np.abs(self.x - self.x[seed])

    def with_candidates(self, nearest, cands):
        return np.minimum(nearest[:, None], np.abs(self.x[:, None] - self.x[cands][None]))

    def potentials(self, dists):
        return dists.sum(axis=0)

    def column(self, dists, j):
        return dists[:, j]

    def fallback(self, rng):
        self.fallbacks += 1
        return -1


def test_greedy_loop_on_a_fake_space():
    space = _FakeSpace([0, 0, 0, 10, 10, 10])
    seeds = greedy_kmeanspp(space, 2, np.random.RandomState(0), n_trials=3)
    assert sorted(space.x[s] for s in seeds) == [0, 10]  # one seed per group
    # a third seed finds every row at a seed: the space's fallback is used, once
    space = _FakeSpace([0, 0, 10, 10])
    seeds = greedy_kmeanspp(space, 3, np.random.RandomState(0))
    assert space.fallbacks == 1 and seeds[-1] == -1


def test_n_local_trials():
    assert [n_local_trials(k) for k in (1, 2, 3, 8, 20)] == [2, 2, 3, 4, 4]


def test_old_spelling_warns_and_fits_the_same(data):
    assert KMEANSPP == "k-means++"
    assert MallowsMixture().init == PlackettLuceMixture().init == "k-means++"
    with pytest.warns(FutureWarning, match="init='k-means\\+\\+'"):
        old = MallowsMixture(2, init="kmeans++", n_init=2, random_state=0).fit(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        new = MallowsMixture(2, init="k-means++", n_init=2, random_state=0).fit(data)
    np.testing.assert_array_equal(old.labels_, new.labels_)
    assert old.log_likelihood_ == new.log_likelihood_
    with pytest.warns(FutureWarning):
        PlackettLuceMixture(2, init="kmeans++", n_init=1, random_state=0).fit(data)
    assert check_kmeanspp_spelling("random", "X") == "random"
    with pytest.raises(ValueError, match="init"):
        MallowsMixture(2, init="kmeans").fit(data)


def test_completion_mixture_uses_the_shared_seeding(data, monkeypatch):
    import rankclust.cluster.baselines as baselines

    calls = []

    def spy(R, k, rng):
        calls.append((R.n_rankings, k))
        return kmeanspp_rankings(R, k, rng)

    monkeypatch.setattr(baselines, "kmeanspp_rankings", spy)
    CompletionMallowsMixture(3, n_init=2, max_iter=3, random_state=5).fit(data)
    assert calls == [(200, 3), (200, 3)]  # one seeding per start
