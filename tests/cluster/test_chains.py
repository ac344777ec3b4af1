"""Tests for rankclust.cluster.chains (Ukkonen 2011, Section 2)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics import adjusted_rand_score

from rankclust import Rankings
from rankclust.cluster import (
    ChainKMeans,
    chain_centroid,
    chain_cost,
    chain_distance,
    make_planted_chains,
)
from rankclust.cluster._base import chain_orders, fix_empty_clusters
from rankclust.cluster.chains import (
    _assign_chains,
    _centroids_from_counts,
    _chain_costs,
    _cost_tensor,
    _nb_assign_chains,
    _nb_chain_costs,
)

# ---------------------------------------------------------------------------- references


def ref_distances(R: Rankings, X: np.ndarray) -> np.ndarray:
    """Spec section 2.3: Dist = B vec(Y) with B the sparse pair indicator (pure numpy)."""
    n, m = R.shape
    rows, data_cols = [], []
    for i, order in enumerate(R.to_orderings()):
        for a, b in itertools.combinations(order, 2):
            rows.append(i)
            data_cols.append(a * m + b)
    B = sp.csr_matrix((np.ones(len(rows)), (rows, data_cols)), shape=(n, m * m))
    Y = np.stack([(Xk.T**2).reshape(-1) for Xk in X], axis=1)  # Y[u*m+v] = X(v, u)^2
    return np.asarray(B @ Y)


def random_chains(rng: np.random.Generator, n: int, m: int, lmin: int = 1) -> Rankings:
    orders = []
    for _ in range(n):
        ell = int(rng.integers(lmin, m + 1))
        orders.append(rng.permutation(m)[:ell].tolist())
    return Rankings.from_orderings(orders, n_items=m)


def kendall_restricted(order: list[int], tau_pos: np.ndarray) -> int:
    return sum(tau_pos[u] > tau_pos[v] for u, v in itertools.combinations(order, 2))


# ---------------------------------------------------------------------------- worked example


def test_paper_worked_example_centroid_and_cost():
    # worked by hand: D = {(1,2,3), (2,1,3), (1,3)}, items renamed 0..2; the total cost 0.5
    # equals the closed form 1 * 1 / (1 + 1)
    R = Rankings.from_orderings([[0, 1, 2], [1, 0, 2], [0, 2]], n_items=3)
    C = R.pairwise_counts()
    np.testing.assert_array_equal(C, [[0, 1, 3], [1, 0, 2], [0, 0, 0]])
    X = chain_centroid(R)
    assert X[0, 1] == 0.5 and X[0, 2] == 1.0 and X[1, 2] == 1.0
    np.testing.assert_allclose(X + X.T, np.ones((3, 3)))
    d = chain_distance(R, X)
    np.testing.assert_allclose(d, [0.25, 0.25, 0.0])
    assert chain_cost(C) == pytest.approx(0.5) == pytest.approx(d.sum())


def test_centroid_smoothing_and_unseen_pairs():
    R = Rankings.from_orderings([[0, 1], [0, 1], [2, 3]], n_items=4)
    X = chain_centroid(R)
    assert X[0, 1] == 1.0 and X[0, 2] == 0.5 and X[2, 0] == 0.5  # never seen together
    Xs = chain_centroid(R, alpha=1.0)
    assert Xs[0, 1] == pytest.approx(3 / 4)
    with pytest.raises(ValueError, match="alpha"):
        chain_centroid(R, alpha=-1)


def test_deterministic_centroid_gives_restricted_kendall(rng):
    m = 6
    R = random_chains(rng, 40, m)
    tau = rng.permutation(m)
    pos = np.argsort(tau)
    X = (pos[:, None] < pos[None, :]).astype(float)
    np.fill_diagonal(X, 0.5)
    expect = [kendall_restricted(o, pos) for o in R.to_orderings()]
    np.testing.assert_allclose(chain_distance(R, X), expect)


def test_closed_form_cost_equals_sum_of_distances(rng):
    R = random_chains(rng, 60, 7)
    labels = rng.integers(0, 3, size=60)
    w = rng.random(60)
    C = R.pairwise_counts(w, labels=labels, n_groups=3)
    X = _centroids_from_counts(C)
    d = chain_distance(R, X)[np.arange(60), labels]
    np.testing.assert_allclose(chain_cost(C).sum(), np.sum(w * d))


def test_centroid_is_optimal_for_its_cluster(rng):
    # Eq. 4 minimises Eq. 3: perturbing any entry (keeping X + X.T = 1) cannot lower the cost
    R = random_chains(rng, 30, 5, lmin=2)
    X = chain_centroid(R)
    best = chain_distance(R, X).sum()
    for _ in range(20):
        u, v = rng.choice(5, size=2, replace=False)
        Y = X.copy()
        Y[u, v] = np.clip(Y[u, v] + rng.normal(scale=0.2), 0, 1)
        Y[v, u] = 1 - Y[u, v]
        assert chain_distance(R, Y).sum() >= best - 1e-12


# ---------------------------------------------------------------------------- kernels


def test_cost_kernel_matches_sparse_reference_and_python(rng):
    R = random_chains(rng, 80, 9)
    X = _centroids_from_counts(R.pairwise_counts(labels=rng.integers(0, 4, size=80), n_groups=4))
    X[1, 2, 3] = 0.9  # make centroids irregular
    orders, lengths = chain_orders(R)
    cost = _cost_tensor(X)
    out_nb = np.empty((80, 4))
    _nb_chain_costs(orders, lengths, cost, out_nb)
    out_py = np.empty((80, 4))
    _chain_costs(orders, lengths, cost, out_py)
    np.testing.assert_allclose(out_nb, ref_distances(R, X))
    np.testing.assert_allclose(out_py, out_nb)


def test_assign_kernel_tie_rule(rng):
    R = random_chains(rng, 50, 6)
    orders, lengths = chain_orders(R)
    X = np.full((3, 6, 6), 0.5)  # identical centroids: every chain ties everywhere
    cur = rng.integers(-1, 3, size=50)
    lab = np.empty(50, dtype=np.int64)
    dist = np.empty(50)
    _nb_assign_chains(orders, lengths, _cost_tensor(X), cur, lab, dist)
    np.testing.assert_array_equal(lab, np.where(cur >= 0, cur, 0))
    # distinct centroids: argmin; python reference of the same kernel agrees
    X = _centroids_from_counts(R.pairwise_counts(labels=rng.integers(0, 3, size=50), n_groups=3))
    _nb_assign_chains(orders, lengths, _cost_tensor(X), cur, lab, dist)
    lab_py, dist_py = np.empty(50, dtype=np.int64), np.empty(50)
    _assign_chains(orders, lengths, _cost_tensor(X), cur, lab_py, dist_py)
    D = ref_distances(R, X)
    np.testing.assert_allclose(dist, D.min(axis=1))
    np.testing.assert_array_equal(lab, lab_py)
    np.testing.assert_allclose(D[np.arange(50), lab], D.min(axis=1))


def test_chain_distance_shapes_and_errors(rng):
    R = random_chains(rng, 5, 4)
    assert chain_distance(R, np.full((4, 4), 0.5)).shape == (5,)
    assert chain_distance(R, np.full((2, 4, 4), 0.5)).shape == (5, 2)
    with pytest.raises(ValueError, match="shape"):
        chain_distance(R, np.full((3, 3), 0.5))


# ---------------------------------------------------------------------------- estimator


@pytest.mark.parametrize(
    "init", ["random_partition", "random_orders", "hypersphere", "graph", "k-means++"]
)
def test_recovers_planted_clusters(init):
    R, y = make_planted_chains(400, n_items=10, length=6, n_clusters=3, random_state=1)
    km = ChainKMeans(3, init=init, n_init=3, random_state=0).fit(R)
    assert adjusted_rand_score(y, km.labels_) > 0.9
    assert km.labels_.shape == (400,) and km.centroids_.shape == (3, 10, 10)
    assert km.centers_.shape == (3, 10) and not km.centers_.has_ties.any()
    # the objective is Eq. 1 with the fitted centroids
    d = km.transform(R)[np.arange(400), km.labels_]
    assert km.objective_ == pytest.approx(d.sum()) == pytest.approx(km.inertia_)
    assert km.score(R) <= -km.objective_ + 1e-9


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    m=st.integers(3, 12),
    ell=st.integers(2, 6),
    K=st.integers(1, 5),
    policy=st.sampled_from(["reseed", "drop"]),
)
def test_error_is_non_increasing_over_iterations(seed, m, ell, K, policy):
    rng = np.random.default_rng(seed)
    R, _ = make_planted_chains(
        80, n_items=m, length=min(ell, m), n_clusters=3, n_buckets=3, random_state=seed
    )
    init = rng.integers(0, K, size=80)
    errors = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t in range(1, 7):
            est = ChainKMeans(K, init=init, max_iter=t, tol=0.0, empty_cluster=policy)
            errors.append(est.fit(R).objective_)
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(errors))


def test_converged_labels_are_a_fixed_point():
    R, _ = make_planted_chains(300, n_items=12, length=5, n_clusters=3, random_state=4)
    km = ChainKMeans(3, init="random_partition", n_init=1, tol=0.0, random_state=0).fit(R)
    D = km.transform(R)
    np.testing.assert_allclose(D[np.arange(300), km.labels_], D.min(axis=1))


def test_weighted_equals_expanded(rng):
    R, _ = make_planted_chains(150, n_items=6, length=3, n_clusters=2, n_buckets=2, random_state=5)
    uniq, inverse = R.unique()
    assert uniq.weights.max() > 1
    init_u = rng.integers(0, 2, size=uniq.n_rankings)
    a = ChainKMeans(2, init=init_u, tol=0.0).fit(uniq)
    b = ChainKMeans(2, init=init_u[inverse], tol=0.0).fit(R)
    assert a.objective_ > 0
    assert a.objective_ == pytest.approx(b.objective_)
    np.testing.assert_array_equal(a.labels_[inverse], b.labels_)
    np.testing.assert_allclose(a.pair_counts_, b.pair_counts_)
    np.testing.assert_allclose(a.centroids_, b.centroids_)
    # sample_weight multiplies the rankings' weights
    c = ChainKMeans(2, init=init_u, tol=0.0).fit(
        uniq.with_weights(None), sample_weight=uniq.weights
    )
    assert c.objective_ == pytest.approx(a.objective_)


def test_reproducible_with_random_state():
    R, _ = make_planted_chains(200, n_items=15, length=4, n_clusters=3, random_state=6)
    for init in ("random_partition", "random_orders", "hypersphere", "k-means++"):
        a = ChainKMeans(3, init=init, n_init=2, random_state=7).fit(R)
        b = ChainKMeans(3, init=init, n_init=2, random_state=7).fit(R)
        np.testing.assert_array_equal(a.labels_, b.labels_)
        assert a.objective_ == b.objective_


def test_empty_cluster_policies():
    # two tight groups and a third initial cluster holding one chain that belongs to group 0
    R = Rankings.from_orderings([[0, 1, 2]] * 5 + [[2, 1, 0]] * 5 + [[0, 1]], n_items=3)
    init = np.array([0] * 5 + [1] * 5 + [2])
    # cluster 2's own centroid fits its chain perfectly, so make it a worse fit: put a reversed
    # chain with it
    init[9] = 2
    with pytest.warns(RuntimeWarning, match="dropped"):
        km = ChainKMeans(3, init=init, empty_cluster="drop", tol=0.0).fit(R)
    assert km.n_clusters_ == km.centroids_.shape[0] <= 3
    assert set(np.unique(km.labels_)) == set(range(km.n_clusters_))
    km2 = ChainKMeans(3, init=init, empty_cluster="reseed", tol=0.0).fit(R)
    assert km2.n_clusters_ == 3 and len(np.unique(km2.labels_)) == 3


def test_fix_empty_clusters_helper():
    labels = np.array([0, 0, 0, 2, 2])
    dist = np.array([0.1, 5.0, 0.2, 3.0, 0.0])
    new, K = fix_empty_clusters(labels, 4, dist.copy(), "drop")
    np.testing.assert_array_equal(new, [0, 0, 0, 1, 1])
    assert K == 2
    new, K = fix_empty_clusters(labels, 4, dist.copy(), "reseed")
    # the two farthest rows (5.0 from cluster 0, 3.0 from cluster 2) fill clusters 1 and 3
    np.testing.assert_array_equal(new, [0, 1, 0, 3, 2])
    assert K == 4
    full = np.array([0, 1, 2, 1, 0])
    same, K = fix_empty_clusters(full, 3, dist, "reseed")
    assert same is full and K == 3


def test_reseed_fills_every_empty_cluster():
    R, _ = make_planted_chains(60, n_items=8, length=4, n_clusters=2, random_state=8)
    init = np.zeros(60, dtype=np.int64)  # clusters 1..4 start empty
    km = ChainKMeans(5, init=init, empty_cluster="reseed").fit(R)
    assert km.n_clusters_ == 5 and len(np.unique(km.labels_)) == 5
    with pytest.warns(RuntimeWarning):
        kd = ChainKMeans(5, init=init, empty_cluster="drop").fit(R)
    assert kd.n_clusters_ == 1


def test_convergence_warning():
    R, _ = make_planted_chains(300, n_items=20, length=4, n_clusters=4, random_state=9)
    with pytest.warns(ConvergenceWarning):
        km = ChainKMeans(4, n_init=1, max_iter=1, tol=0.0, random_state=0).fit(R)
    assert km.n_iter_ == 1


def test_sklearn_api():
    est = ChainKMeans(3, init="hypersphere", n_init=2, random_state=0)
    params = est.get_params()
    assert params["n_clusters"] == 3 and params["init"] == "hypersphere"
    c = clone(est)
    assert c.get_params() == params and c is not est
    c.set_params(n_clusters=4)
    assert c.n_clusters == 4
    R, _ = make_planted_chains(50, n_items=6, length=3, n_clusters=2, random_state=0)
    assert est.fit(R) is est
    np.testing.assert_array_equal(clone(est).fit_predict(R), est.labels_)
    assert est.predict(R).shape == (50,)
    with pytest.raises(NotFittedError):
        ChainKMeans().predict(R)


def test_input_validation():
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0]], n_items=3)
    with pytest.raises(ValueError, match="larger than"):
        ChainKMeans(3).fit(R)
    with pytest.raises(ValueError, match="top"):
        ChainKMeans(1).fit(R.with_kind("top"))
    with pytest.raises(ValueError, match="tied"):
        ChainKMeans(1).fit(Rankings([[0, 0, 1]]))
    with pytest.raises(ValueError, match="n_clusters"):
        ChainKMeans(0).fit(R)
    with pytest.raises(ValueError, match="init"):
        ChainKMeans(2, init="nope").fit(R)
    with pytest.raises(ValueError, match="init labels"):
        ChainKMeans(2, init=np.array([0, 5])).fit(R)
    with pytest.raises(ValueError, match="sample_weight"):
        ChainKMeans(1).fit(R, sample_weight=[1.0])
    with pytest.raises(ValueError, match="items"):
        ChainKMeans(1).fit(R).predict(Rankings([[0, 1]]))
    # array input: 1-based ranks with 0 = absent
    km = ChainKMeans(1, n_init=1).fit(np.array([[1, 2, 0], [2, 1, 3]]))
    assert km.n_items_ == 3


def test_short_chains_are_accepted():
    R = Rankings.from_orderings([[0], [1, 2], [2, 1], []], n_items=3)
    km = ChainKMeans(2, init=np.array([0, 0, 1, 1])).fit(R)
    assert km.labels_.shape == (4,)
    assert np.isfinite(km.objective_)


# ------------------------------------------------- scikit-learn transformer / clusterer contract
# These test, on ranking data, the properties of scikit-learn's check_clustering,
# check_transformer_general, check_transformer_data_not_an_array and check_transformer_n_iter,
# which cannot run on their float feature matrices (see tests/reliability/test_estimator_checks).


def _rank_inputs(R: Rankings) -> dict:
    """The same chains as a Rankings, int 1-based ranks, float ranks with NaN, nested lists."""
    ranks = R.to_ranks()
    nan_ranks = np.where(ranks > 0, ranks, np.nan)
    return {
        "rankings": R,
        "int_ranks": ranks,
        "nan_ranks": nan_ranks,
        "list": ranks.tolist(),
        "readonly": ranks.copy(),  # made read-only by the test
    }


def test_transformer_tags_and_mixins():
    from sklearn.base import TransformerMixin
    from sklearn.utils import get_tags

    tags = get_tags(ChainKMeans())
    assert isinstance(ChainKMeans(), TransformerMixin)
    assert tags.estimator_type == "clusterer"
    assert tags.transformer_tags is not None
    assert tags.transformer_tags.preserves_dtype == []  # distances are float64 for int ranks
    assert tags.input_tags.allow_nan and tags.input_tags.positive_only
    with pytest.raises(ValueError, match="negative"):
        ChainKMeans(1).fit(np.array([[1, -2, 3], [1, 2, 3]]))
    with pytest.raises(ValueError, match="infinite"):  # NaN marks absent items, inf is refused
        ChainKMeans(1).fit(np.array([[1, np.inf, 3], [1, 2, 3]]))


@pytest.mark.parametrize("kind", ["rankings", "int_ranks", "nan_ranks", "list", "readonly"])
def test_transformer_contract_on_ranking_inputs(kind):
    R, _ = make_planted_chains(120, n_items=8, length=(2, 6), n_clusters=3, random_state=5)
    data = _rank_inputs(R)[kind]
    if kind == "readonly":
        data.flags.writeable = False
    est = ChainKMeans(3, n_init=2, random_state=0)
    Xt = clone(est).fit_transform(data)
    fitted = clone(est).fit(data)
    assert Xt.shape == (120, 3) and Xt.dtype == np.float64
    np.testing.assert_array_equal(Xt, fitted.transform(data))
    np.testing.assert_array_equal(Xt, clone(est).fit_transform(data))  # deterministic
    # the same chains in every input format give the same fit
    ref = clone(est).fit(R)
    np.testing.assert_array_equal(fitted.labels_, ref.labels_)
    np.testing.assert_array_equal(Xt, ref.transform(R))
    assert fitted.n_iter_ >= 1
    with pytest.raises(ValueError, match="items"):
        fitted.transform(R.to_ranks()[:, :-1])
    names = fitted.get_feature_names_out()
    assert names.tolist() == ["chainkmeans0", "chainkmeans1", "chainkmeans2"]


def test_clusterer_contract_on_rankings():
    R, y = make_planted_chains(150, n_items=10, length=5, n_clusters=3, random_state=2)
    est = ChainKMeans(3, n_init=3, random_state=0)
    labels = est.fit(R).labels_
    assert labels.shape == (150,) and labels.dtype == np.int64
    assert adjusted_rand_score(y, labels) > 0.9
    np.testing.assert_array_equal(clone(est).fit_predict(R), labels)
    np.testing.assert_array_equal(np.unique(labels), np.arange(3))
    # noise chains (uniformly random) still give labels 0..K-1 with every cluster used
    noisy = Rankings(np.vstack([R.ranks, random_chains(np.random.default_rng(7), 15, 10).ranks]))
    assert np.unique(clone(est).fit_predict(noisy)).tolist() == [0, 1, 2]


def test_in_a_pipeline():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    R, _ = make_planted_chains(80, n_items=8, length=4, n_clusters=2, random_state=3)
    pipe = make_pipeline(ChainKMeans(2, n_init=2, random_state=0), StandardScaler())
    Z = pipe.fit_transform(R)
    assert Z.shape == (80, 2)
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(pipe.transform(R), Z)
    with pytest.raises(NotFittedError):
        ChainKMeans(2).get_feature_names_out()
