"""Mixtures of rankings with ties: tied Mallows components and Davidson-Luce components."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from rankclust import Rankings
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture, select_k
from rankclust.datasets import make_mallows_mixture, make_plackett_luce_mixture
from rankclust.models.mallows import Mallows
from rankclust.models.plackett_luce import PlackettLuce


# ------------------------------------------------------------------ data and brute force
def coarsen(R: Rankings, rng: np.random.Generator, p_merge: float = 0.4) -> np.ndarray:
    """Rank matrix of ``R`` (complete) with neighbouring positions merged at random."""
    ranks = R.ranks.astype(np.int64)
    m = ranks.shape[1]
    out = np.empty_like(ranks)
    for i, r in enumerate(ranks):
        cuts = np.r_[0, np.cumsum(rng.random(m - 1) < 1 - p_merge)]  # bucket of each position
        out[i] = cuts[r]
    return out


def tied_two_clusters(n: int = 300, m: int = 6, seed: int = 0, kind: str = "subset"):
    """Two far-apart Mallows clusters, coarsened into bucket orders (labels returned)."""
    rng = np.random.default_rng(seed)
    centers = [list(range(m)), list(range(m))[::-1]]
    R, y = make_mallows_mixture(n, m, 2, centers=centers, thetas=1.5, random_state=seed)
    ranks = coarsen(R, rng)
    if kind == "top":  # keep the first two buckets
        ranks = np.where(ranks <= 1, ranks, -1)
    if kind == "partial":  # subset rankings: drop up to two items per row, buckets made dense
        for r in ranks:
            r[rng.choice(m, size=rng.integers(0, 3), replace=False)] = -1
            present = r >= 0
            r[present] = np.unique(r[present], return_inverse=True)[1]
        kind = "subset"
    return Rankings(ranks, kind=kind), np.asarray(y)


def weak_orders(m: int) -> np.ndarray:
    """Every weak order (bucket order) of m items as dense rank vectors."""
    out = set()
    for r in itertools.product(range(m), repeat=m):
        if set(r) == set(range(max(r) + 1)):
            out.add(r)
    return np.array(sorted(out))


def perms(m: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(m))))


def mallows_tied_prob(row: np.ndarray, kind: str, center: np.ndarray, theta: float) -> float:
    """Brute force: probability of a tied row as the total over its linear extensions."""
    m = row.size
    present = row >= 0
    if kind == "subset":  # the Mallows model on the present items
        items = np.flatnonzero(present)
        row, center = row[items], np.argsort(np.argsort(center[items]))
        m = items.size
    else:  # absent items of a top list: one bucket below the listed ones
        row = np.where(row >= 0, row, row.max() + 1)
    P = perms(m)  # P[j] = position vector of a complete ranking
    disc = np.zeros(len(P))
    agree = np.ones(len(P), dtype=bool)
    for a, b in itertools.combinations(range(m), 2):
        disc += (P[:, a] < P[:, b]) != (center[a] < center[b])
        if row[a] != row[b]:
            agree &= (P[:, a] < P[:, b]) == (row[a] < row[b])
    p = np.exp(-theta * disc)
    return float(p[agree].sum() / p.sum())


def dl_prob(row: np.ndarray, kind: str, scores: np.ndarray, deltas: np.ndarray) -> float:
    """Brute force Davidson-Luce probability: every stage's normaliser over all subsets."""
    v = np.exp(scores)
    delta = np.r_[1.0, deltas]  # delta_1 = 1
    present = np.flatnonzero(row >= 0)
    left = list(range(row.size)) if kind == "top" else list(present)
    prob = 1.0
    for b in range(row.max() + 1):
        bucket = np.flatnonzero(row == b)
        num = delta[bucket.size - 1] * np.prod(v[bucket]) ** (1.0 / bucket.size)
        den = sum(
            delta[d - 1] * np.prod(v[list(S)]) ** (1.0 / d)
            for d in range(1, min(delta.size, len(left)) + 1)
            for S in itertools.combinations(left, d)
        )
        prob *= num / den
        left = [i for i in left if i not in set(bucket)]
    return prob


# ------------------------------------------------------------------ untied: unchanged
def test_untied_fits_keep_the_values_recorded_before_ties():
    """Same random streams and fits as before mixtures accepted ties (values recorded)."""
    R, _ = make_mallows_mixture(
        300,
        6,
        2,
        centers=[[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0]],
        thetas=1.0,
        lengths=(1, 6),
        kind="top",
        random_state=0,
    )
    mal = MallowsMixture(2, random_state=0).fit(R)
    assert mal.log_likelihood_ == pytest.approx(-1169.9072845349924, rel=1e-12)
    R2, _ = make_plackett_luce_mixture(300, 5, 2, random_state=0)
    pl = PlackettLuceMixture(2, random_state=0).fit(R2)
    assert pl.log_likelihood_ == pytest.approx(-1392.4066369586199, rel=1e-12)
    assert pl.tie_strengths_.shape == (2, 0)
    assert pl.n_parameters_ == 1 + 2 * 4
    res = select_k(PlackettLuceMixture(n_init=3, random_state=0), R2, ks=[1, 2, 3])
    assert res.table[0]["log_likelihood"] == pytest.approx(-1414.2408887691593, rel=1e-12)


# ------------------------------------------------------------------ K = 1: the single model
@pytest.mark.parametrize("kind", ["subset", "top"])
def test_one_component_mallows_mixture_is_the_tied_mallows_fit(kind):
    R, _ = tied_two_clusters(200, 5, seed=1, kind=kind)
    mix = MallowsMixture(1, center_method="exact", tol=1e-10, random_state=0).fit(R)
    single = Mallows(center_method="exact").fit(R)
    np.testing.assert_array_equal(mix.center_positions_[0], single.center_)
    assert mix.thetas_[0] == pytest.approx(single.theta_, rel=1e-8)
    assert mix.log_likelihood_ == pytest.approx(float(single.logpdf(R).sum()), rel=1e-10)


@pytest.mark.parametrize("kind", ["subset", "top"])
def test_one_component_pl_mixture_is_the_davidson_luce_fit(kind):
    R, _ = tied_two_clusters(200, 5, seed=2, kind=kind)
    mix = PlackettLuceMixture(1, tol=1e-10, random_state=0).fit(R)
    single = PlackettLuce().fit(R)
    np.testing.assert_allclose(mix.scores_[0], single.scores_, atol=1e-6)
    np.testing.assert_allclose(mix.tie_strengths_[0], single.tie_strengths_, rtol=1e-6)
    assert mix.log_likelihood_ == pytest.approx(float(single.logpdf(R).sum()), rel=1e-10)
    # p = (m - 1) scores + one strength per observed tie order
    assert mix.n_parameters_ == 4 + np.count_nonzero(single.tie_strengths_ > 0)


# ------------------------------------------------------------------ likelihood by brute force
@pytest.mark.parametrize("kind", ["subset", "top", "partial"])
def test_mallows_mixture_likelihood_is_the_brute_force_sum(kind):
    R, _ = tied_two_clusters(120, 5, seed=3, kind=kind)
    kind = R.kind
    mix = MallowsMixture(2, n_init=2, random_state=0).fit(R)
    Rs = R[np.arange(40)]
    centers = mix.center_positions_
    want = [
        np.log(
            sum(
                c * mallows_tied_prob(row, kind, centers[k], mix.thetas_[k])
                for k, c in enumerate(mix.weights_)
            )
        )
        for row in Rs.ranks.astype(np.int64)
    ]
    np.testing.assert_allclose(mix.score_samples(Rs), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["subset", "top", "partial"])
def test_pl_mixture_likelihood_is_the_brute_force_sum(kind):
    R, _ = tied_two_clusters(120, 5, seed=4, kind=kind)
    kind = R.kind
    mix = PlackettLuceMixture(2, n_init=2, random_state=0).fit(R)
    Rs = R[np.arange(40)]
    want = [
        np.log(
            sum(
                c * dl_prob(row, kind, mix.scores_[k], mix.tie_strengths_[k])
                for k, c in enumerate(mix.weights_)
            )
        )
        for row in Rs.ranks.astype(np.int64)
    ]
    np.testing.assert_allclose(mix.score_samples(Rs), want, rtol=1e-10, atol=1e-12)


def test_pl_mixture_probabilities_of_all_weak_orders_sum_to_one():
    R, _ = tied_two_clusters(150, 4, seed=5)
    mix = PlackettLuceMixture(2, n_init=2, random_state=0).fit(R)
    W = weak_orders(4)  # 75 bucket orders of 4 items
    d = mix.tie_strengths_.shape[1] + 1  # the tie orders the fit has strengths for
    W = W[[np.bincount(w).max() <= d for w in W]]
    total = np.exp(mix.score_samples(Rankings(W, kind="subset"))).sum()
    assert total == pytest.approx(1.0, abs=1e-10)


@pytest.mark.parametrize("pattern", [(2, 1, 1), (1, 3), (2, 2)])
def test_mallows_mixture_probabilities_of_one_tie_pattern_sum_to_one(pattern):
    """A bucket order is a coarsened observation: the weak orders of one pattern of bucket
    sizes partition the complete rankings, so their probabilities sum to 1."""
    R, _ = tied_two_clusters(150, 4, seed=5)
    mix = MallowsMixture(2, n_init=2, random_state=0).fit(R)
    W = weak_orders(4)
    W = W[[tuple(np.bincount(w)) == pattern for w in W]]
    total = np.exp(mix.score_samples(Rankings(W, kind="subset"))).sum()
    assert total == pytest.approx(1.0, abs=1e-10)


# ------------------------------------------------------------------ EM
@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
@pytest.mark.parametrize("accelerate", [False, True])
def test_em_is_monotone_on_tied_data(cls, accelerate):
    R, _ = tied_two_clusters(200, 6, seed=6, kind="top")
    mix = cls(3, n_init=1, init_iter=None, accelerate=accelerate, random_state=1).fit(R)
    hist = mix.log_likelihood_history_
    assert len(hist) > 2
    assert np.all(np.diff(hist) >= -1e-8 * np.abs(hist[1:]))


@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
def test_two_tied_clusters_are_recovered(cls):
    R, y = tied_two_clusters(300, 7, seed=7)
    assert R.has_ties.mean() > 0.5
    mix = cls(2, random_state=0).fit(R)
    assert adjusted_rand_score(y, mix.labels_) > 0.9
    modal = sorted(mix.centers_.to_orderings())
    assert modal == [list(range(7)), list(range(7))[::-1]]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_select_k_on_tied_data_counts_the_tie_strengths():
    R, _ = tied_two_clusters(200, 5, seed=8)
    res = select_k(PlackettLuceMixture(n_init=2, random_state=0), R, ks=[1, 2, 3])
    n_ties = res.estimators[1].tie_strengths_.shape[1]
    assert n_ties >= 1
    for row in res.table:
        k = row["k"]
        assert row["n_parameters"] == (k - 1) + k * (4 + n_ties)
        assert row["bic"] == pytest.approx(
            -2 * row["log_likelihood"] + row["n_parameters"] * np.log(200)
        )
    res = select_k(MallowsMixture(n_init=2, random_state=0), R, ks=[1, 2, 3])
    assert res.best_k == 2


def test_pl_mixture_fitted_without_ties_refuses_tied_rankings():
    R2, _ = make_plackett_luce_mixture(100, 4, 2, random_state=0)
    mix = PlackettLuceMixture(2, n_init=1, random_state=0).fit(R2)
    with pytest.raises(ValueError, match=r"row 0 of R has tied items.*without ties"):
        mix.predict(Rankings([[0, 0, 1, 2]], kind="subset"))


def test_pl_mixture_fitted_with_ties_scores_untied_rankings_by_davidson_luce():
    R, _ = tied_two_clusters(100, 4, seed=9)
    mix = PlackettLuceMixture(2, n_init=1, random_state=0).fit(R)
    row = np.array([2, 0, 3, 1])
    want = np.log(
        sum(
            c * dl_prob(row, "subset", mix.scores_[k], mix.tie_strengths_[k])
            for k, c in enumerate(mix.weights_)
        )
    )
    assert mix.score_samples(Rankings([row], kind="subset"))[0] == pytest.approx(want)


def test_dask_backend_refuses_ties_saying_they_fit_in_memory():
    pytest.importorskip("dask")
    R, _ = tied_two_clusters(40, 4, seed=10)
    with pytest.raises(ValueError, match=r"has tied items.*in memory only"):
        MallowsMixture(2, backend="dask", random_state=0).fit(R)


@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
def test_a_saved_mixture_fitted_with_ties_predicts_the_same(tmp_path, cls):
    from rankclust.persistence import load, save

    R, _ = tied_two_clusters(100, 4, seed=11)
    mix = cls(2, n_init=1, random_state=0).fit(R)
    save(mix, tmp_path / "mix.zip")
    back = load(tmp_path / "mix.zip")
    np.testing.assert_array_equal(back.score_samples(R), mix.score_samples(R))
