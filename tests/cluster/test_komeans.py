"""Tests for rankclust.cluster.komeans (k-o'means re-implementation)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import ndtri
from scipy.stats import spearmanr
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import adjusted_rand_score

from rankclust import Rankings
from rankclust.cluster import KOMeans, make_planted_chains
from rankclust.cluster._base import chain_orders
from rankclust.cluster.komeans import (
    _kmeanspp_orders,
    _nb_order_dissimilarities,
    _nearest_seed_labels,
    _order_dissimilarities,
    _OrderData,
    central_order_ebc,
    central_order_tmse,
)
from rankclust.datasets import make_mallows_mixture


def random_chains(rng, n, m, lmin=1):
    return Rankings.from_orderings(
        [rng.permutation(m)[: int(rng.integers(lmin, m + 1))].tolist() for _ in range(n)],
        n_items=m,
    )


def ref_dissimilarity(order, center_pos, kendall):
    common = [u for u in order if center_pos[u] >= 0]
    L = len(common)
    if L < 2:
        return 0.5 if kendall else 1.0
    r1 = np.arange(L)
    r2 = np.array([center_pos[u] for u in common])
    if kendall:
        disc = sum(r2[a] > r2[b] for a, b in itertools.combinations(range(L), 2))
        return disc / (L * (L - 1) / 2)
    return 1.0 - spearmanr(r1, r2).statistic


def test_kamishima_spearman_example():
    # chapter example: common objects x3 > x4 > x6 vs x4 > x3 > x6 -> rho = 0.5
    R = Rankings.from_orderings([[3, 4, 6]], n_items=7)
    center = np.array([[-1, -1, -1, 1, 0, -1, 2]])
    out = np.empty((1, 1))
    orders, lengths = chain_orders(R)
    _nb_order_dissimilarities(orders, lengths, center, False, out)
    assert out[0, 0] == pytest.approx(0.5)


@pytest.mark.parametrize("kendall", [False, True])
def test_dissimilarity_kernel_matches_reference(rng, kendall):
    R = random_chains(rng, 60, 8)
    K = 3
    pos = np.full((K, 8), -1, dtype=np.int64)
    for k in range(K):
        items = rng.permutation(8)[: int(rng.integers(1, 9))]
        pos[k, items] = np.arange(len(items))
    orders, lengths = chain_orders(R)
    out = np.empty((60, K))
    _nb_order_dissimilarities(orders, lengths, pos, kendall, out)
    out_py = np.empty((60, K))
    _order_dissimilarities(orders, lengths, pos, kendall, out_py)
    expect = [[ref_dissimilarity(o, pos[k], kendall) for k in range(K)] for o in R.to_orderings()]
    np.testing.assert_allclose(out, expect, atol=1e-12)
    np.testing.assert_allclose(out_py, out)


def test_tmse_matches_direct_formula(rng):
    R = random_chains(rng, 40, 6, lmin=2)
    C = R.pairwise_counts()[None]
    seen = np.ones((1, 6), dtype=bool)
    seen[0, 5] = False
    pos = central_order_tmse(C, seen)
    mu = []
    for u in range(5):
        vals = [
            ndtri((C[0, u, v] + 0.5) / (C[0, u, v] + C[0, v, u] + 1)) for v in range(5) if v != u
        ]
        mu.append(np.mean(vals))
    expect = np.argsort(-np.array(mu), kind="stable")
    assert pos[0, 5] == -1
    np.testing.assert_array_equal(np.argsort(pos[0, :5]), expect)


def test_ebc_equals_mean_over_all_completions():
    # E[r_u | O_i] is the mean rank of u over the uniformly random completions of O_i
    R = Rankings.from_orderings([[2, 0], [1, 3, 0], [3, 2]], n_items=4)
    data = _OrderData(R)
    Z = data.onehot(np.zeros(3, dtype=np.int64), 1)
    pos = central_order_ebc(data.scaled, data.presence, Z)
    mean_rank = np.zeros(4)
    for order in R.to_orderings():
        exts = [
            t for t in itertools.permutations(range(4)) if [u for u in t if u in order] == order
        ]
        for t in exts:
            mean_rank[list(t)] += np.arange(1, 5) / len(exts)
    np.testing.assert_array_equal(np.argsort(pos[0]), np.argsort(mean_rank, kind="stable"))


@pytest.mark.parametrize("centroid", ["tmse", "ebc"])
def test_identical_chains_give_that_order(centroid):
    R = Rankings.from_orderings([[3, 1, 4, 0, 2]] * 4, n_items=6)
    km = KOMeans(1, centroid=centroid, n_init=1).fit(R)
    assert km.centers_.to_orderings() == [[3, 1, 4, 0, 2]]  # item 5 never seen: absent
    assert km.objective_ == pytest.approx(0.0)


@pytest.mark.parametrize("centroid", ["tmse", "ebc"])
@pytest.mark.parametrize("metric", ["spearman", "kendall"])
def test_recovers_planted_clusters(centroid, metric):
    R, y = make_planted_chains(300, n_items=10, length=6, n_clusters=3, random_state=1)
    km = KOMeans(3, centroid=centroid, metric=metric, n_init=3, random_state=0).fit(R)
    assert adjusted_rand_score(y, km.labels_) > 0.9
    d = km.transform(R)[np.arange(300), km.labels_]
    assert km.objective_ == pytest.approx(d.sum()) == pytest.approx(km.inertia_)


def test_weighted_equals_expanded(rng):
    R, _ = make_planted_chains(120, n_items=6, length=3, n_clusters=2, n_buckets=2, random_state=2)
    uniq, inverse = R.unique()
    init = rng.integers(0, 2, size=uniq.n_rankings)
    for centroid in ("tmse", "ebc"):
        km = KOMeans(2, centroid=centroid)
        a = km._single_run(_OrderData(uniq), init.copy())
        b = km._single_run(_OrderData(R), init[inverse].copy())
        c = km._single_run(_OrderData(uniq.with_weights(None), uniq.weights), init.copy())
        assert a.objective > 0
        np.testing.assert_array_equal(a.params["centers"], c.params["centers"])
        assert a.objective == pytest.approx(c.objective)
        np.testing.assert_array_equal(a.labels[inverse], b.labels)
        np.testing.assert_array_equal(a.params["centers"], b.params["centers"])
        assert a.objective == pytest.approx(b.objective)


def test_reproducible_and_sklearn_api():
    R, _ = make_planted_chains(150, n_items=12, length=4, n_clusters=3, random_state=3)
    a = KOMeans(3, n_init=2, random_state=4).fit(R)
    b = clone(a).fit(R)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.get_params()["centroid"] == "tmse"
    assert a.fit_predict(R).shape == (150,)
    assert a.predict(R).max() < a.n_clusters_
    with pytest.raises(NotFittedError):
        KOMeans().predict(R)


def test_empty_cluster_policies_and_errors():
    # with this seed the random partition of 3 orders into 3 clusters leaves cluster 2 empty
    assert 2 not in np.random.RandomState(0).randint(3, size=3)
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 0, 2]], n_items=3)
    km = KOMeans(3, init="random_partition", n_init=1, empty_cluster="drop", random_state=0).fit(R)
    assert km.n_clusters_ == km.centers_.n_rankings == 2
    km = KOMeans(3, init="random_partition", n_init=1, empty_cluster="reseed", random_state=0).fit(
        R
    )
    assert km.n_clusters_ == 3 and len(np.unique(km.labels_)) == 3
    R = Rankings.from_orderings([[0, 1, 2]] * 6, n_items=3)
    with pytest.raises(ValueError, match="larger than"):
        KOMeans(7).fit(R)
    with pytest.raises(ValueError, match="centroid"):
        KOMeans(2, centroid="median").fit(R)
    with pytest.raises(ValueError, match="sample_weight"):
        KOMeans(2).fit(R, sample_weight=np.ones(2))


# ---------------------------------------------------------------------------- k-means++ seeding
def ref_kmeanspp(R, w, K, kendall, rng, n_local_trials):
    """Pure-python greedy k-means++ on the k-o'means dissimilarity (same draws as the library)."""
    orders = R.to_orderings()
    n = len(orders)

    def d(i, s):
        return ref_dissimilarity(orders[i], R.ranks[s], kendall)

    def draw(mass, size):
        cum = list(itertools.accumulate(mass))
        out = []
        for r in rng.random_sample(size) * cum[-1]:
            i = next((j for j, c in enumerate(cum) if c > r), n - 1)  # first cum > r
            out.append(i)
        return out

    seeds = [draw(w, 1)[0]]
    closest = [d(i, seeds[0]) for i in range(n)]
    for _ in range(1, K):
        mass = [w[i] * closest[i] for i in range(n)]
        cand = draw(mass if sum(mass) > 0 else w, n_local_trials)
        best = None
        for c in cand:
            new = [min(closest[i], d(i, c)) for i in range(n)]
            pot = sum(w[i] * new[i] for i in range(n))
            if best is None or pot < best[0]:
                best = (pot, c, new)
        seeds.append(best[1])
        closest = best[2]
    return seeds


@pytest.mark.parametrize("kendall", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kmeanspp_matches_reference(rng, kendall, seed):
    R = random_chains(rng, 40, 7)
    w = rng.integers(0, 3, size=40).astype(np.float64)  # some zero weights
    w[0] = 1.0
    data = _OrderData(R, w)
    got = _kmeanspp_orders(data, 4, kendall, np.random.RandomState(seed), n_local_trials=3)
    expect = ref_kmeanspp(R, data.w, 4, kendall, np.random.RandomState(seed), 3)
    assert got.tolist() == expect
    assert (data.w[got] > 0).all()  # an order of zero weight is never a seed


def test_kmeanspp_never_repeats_a_covered_order():
    # three distinct orders, 10 copies each: once an order is a seed its copies have D = 0
    base = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]]
    R = Rankings.from_orderings(base * 10, n_items=5)
    data = _OrderData(R)
    for seed in range(20):
        for kendall in (False, True):
            seeds = _kmeanspp_orders(data, 3, kendall, np.random.RandomState(seed))
            assert sorted(s % 3 for s in seeds) == [0, 1, 2]


def test_kmeanspp_with_fewer_distinct_orders_than_clusters():
    R = Rankings.from_orderings([[2, 0, 1]] * 5, n_items=3)
    seeds = _kmeanspp_orders(_OrderData(R), 3, False, np.random.RandomState(0))
    assert seeds.shape == (3,) and ((seeds >= 0) & (seeds < 5)).all()
    km = KOMeans(3, init="k-means++", n_init=2, random_state=0).fit(R)
    assert km.objective_ == pytest.approx(0.0)
    assert len(np.unique(km.labels_)) == 3  # reseeded, not empty


def test_nearest_seed_ties_are_broken_at_random():
    # orders on items 6, 7 share no item with either seed: dissimilarity 1 to both
    R = Rankings.from_orderings([[0, 1, 2, 3], [3, 2, 1, 0]] + [[6, 7]] * 40, n_items=8)
    data = _OrderData(R)
    labels = _nearest_seed_labels(data, np.array([0, 1]), False, np.random.RandomState(0))
    assert labels[:2].tolist() == [0, 1]
    assert 0 < labels[2:].sum() < 40  # spread over both clusters, not all sent to seed 0


@pytest.mark.parametrize("metric", ["spearman", "kendall"])
def test_kmeanspp_reproducible_with_random_state(metric):
    R, _ = make_mallows_mixture(200, 9, 3, thetas=1.0, lengths=(3, 7), random_state=4)
    est = KOMeans(3, init="k-means++", metric=metric, n_init=3, random_state=11)
    a, b = clone(est).fit(R), clone(est).fit(R)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.centers_ == b.centers_ and a.objective_ == b.objective_
    rs = np.random.RandomState(5)
    c = clone(est).set_params(random_state=rs).fit(R)  # a RandomState instance works too
    d = clone(est).set_params(random_state=np.random.RandomState(5)).fit(R)
    np.testing.assert_array_equal(c.labels_, d.labels_)
    for seed in (0, 1, 2):  # other seeds: valid results
        e = clone(est).set_params(random_state=seed).fit(R)
        assert set(np.unique(e.labels_)) <= set(range(3)) and np.isfinite(e.objective_)
        d_own = e.transform(R)[np.arange(200), e.labels_]
        assert e.objective_ == pytest.approx(d_own.sum())


def test_random_partition_init_unchanged():
    # the published random partition (no longer the default) draws exactly as before
    R, _ = make_planted_chains(100, n_items=8, length=4, n_clusters=2, random_state=0)
    assert KOMeans().init == "k-means++"
    km = KOMeans(2, init="random_partition", n_init=1, random_state=3).fit(R)
    ref = KOMeans(2)._single_run(
        _OrderData(R), np.random.RandomState(3).randint(2, size=100).astype(np.int64)
    )
    np.testing.assert_array_equal(km.labels_, ref.labels)


@pytest.mark.parametrize(("metric", "centroid"), [("spearman", "tmse"), ("kendall", "ebc")])
def test_kmeanspp_recovers_planted_clusters_more_often_than_random_partition(metric, centroid):
    """Single runs (n_init=1) on 12 fixed seeds of a well separated 8-component Mallows mixture.

    Measured (this data, 12 seeds, runs with ARI >= 0.9): random partition 5 / 4, k-means++
    10 / 8 for (spearman, tmse) / (kendall, ebc); the margins below leave room for platform
    rounding.
    """
    hits = {"random_partition": 0, "k-means++": 0}
    for seed in range(12):
        R, y = make_mallows_mixture(480, 12, 8, thetas=1.0, random_state=seed)
        for init in hits:
            km = KOMeans(
                8, init=init, metric=metric, centroid=centroid, n_init=1, random_state=seed
            ).fit(R)
            hits[init] += adjusted_rand_score(y, km.labels_) >= 0.9
    assert hits["k-means++"] >= hits["random_partition"] + 3, hits
    assert hits["k-means++"] >= 7, hits


# ------------------------------------------------- scikit-learn transformer / clusterer contract
# These test, on ranking data, the properties of scikit-learn's check_clustering,
# check_transformer_general, check_transformer_data_not_an_array and check_transformer_n_iter,
# which cannot run on their float feature matrices (see tests/reliability/test_estimator_checks).


def test_transformer_tags_and_mixins():
    from sklearn.base import TransformerMixin
    from sklearn.utils import get_tags

    tags = get_tags(KOMeans())
    assert isinstance(KOMeans(), TransformerMixin)
    assert tags.estimator_type == "clusterer"
    assert tags.transformer_tags is not None
    assert tags.transformer_tags.preserves_dtype == []  # dissimilarities are float64
    assert tags.input_tags.allow_nan and tags.input_tags.positive_only
    with pytest.raises(ValueError, match="negative"):
        KOMeans(1).fit(np.array([[1, -2, 3], [1, 2, 3]]))
    with pytest.raises(ValueError, match="infinite"):  # NaN marks absent items, inf is refused
        KOMeans(1).fit(np.array([[1, np.inf, 3], [1, 2, 3]]))


@pytest.mark.parametrize("kind", ["rankings", "int_ranks", "nan_ranks", "list", "readonly"])
@pytest.mark.parametrize("init", ["random_partition", "k-means++"])
def test_transformer_contract_on_ranking_inputs(kind, init):
    R, _ = make_planted_chains(120, n_items=8, length=(2, 6), n_clusters=3, random_state=5)
    ranks = R.to_ranks()
    data = {
        "rankings": R,
        "int_ranks": ranks,
        "nan_ranks": np.where(ranks > 0, ranks, np.nan),
        "list": ranks.tolist(),
        "readonly": ranks.copy(),
    }[kind]
    if kind == "readonly":
        data.flags.writeable = False
    est = KOMeans(3, init=init, n_init=2, random_state=0)
    Xt = clone(est).fit_transform(data)
    fitted = clone(est).fit(data)
    assert Xt.shape == (120, 3) and Xt.dtype == np.float64
    np.testing.assert_array_equal(Xt, fitted.transform(data))
    np.testing.assert_array_equal(Xt, clone(est).fit_transform(data))  # deterministic
    ref = clone(est).fit(R)  # the same orders in every input format give the same fit
    np.testing.assert_array_equal(fitted.labels_, ref.labels_)
    np.testing.assert_array_equal(Xt, ref.transform(R))
    assert fitted.n_iter_ >= 1
    with pytest.raises(ValueError, match="items"):
        fitted.transform(ranks[:, :-1])
    assert fitted.get_feature_names_out().tolist() == ["komeans0", "komeans1", "komeans2"]


def test_clusterer_contract_on_rankings(rng):
    R, y = make_planted_chains(150, n_items=10, length=5, n_clusters=3, random_state=2)
    est = KOMeans(3, n_init=3, random_state=0)
    labels = est.fit(R).labels_
    assert labels.shape == (150,) and labels.dtype == np.int64
    assert adjusted_rand_score(y, labels) > 0.9
    np.testing.assert_array_equal(clone(est).fit_predict(R), labels)
    np.testing.assert_array_equal(np.unique(labels), np.arange(3))
    noisy = Rankings(np.vstack([R.ranks, random_chains(rng, 15, 10).ranks]))
    assert np.unique(clone(est).fit_predict(noisy)).tolist() == [0, 1, 2]


def test_in_a_pipeline():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    R, _ = make_planted_chains(80, n_items=8, length=4, n_clusters=2, random_state=3)
    pipe = make_pipeline(KOMeans(2, n_init=2, random_state=0), StandardScaler())
    Z = pipe.fit_transform(R)
    assert Z.shape == (80, 2)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(pipe.transform(R), Z)
    with pytest.raises(NotFittedError):
        KOMeans(2).get_feature_names_out()
