"""Tests of RankTree (RT_iter and RT_prun; rankclust.supervised.rank_tree)."""

import numpy as np
import pytest
from sklearn.base import clone

from rankclust import Rankings
from rankclust.supervised import RankTree, make_circle
from rankclust.supervised.rank_tree import _prune_to_k, _random_distinct_permutations
from tests.supervised._helpers import ORDERS, blobs, recovered

TRUE = {tuple(o) for o in ORDERS}


@pytest.mark.parametrize("p_missing", [0.0, 0.3])
def test_iterate_recovers_blob_rankings(p_missing):
    X, Y, _y = blobs(p_missing=p_missing)
    est = RankTree(3, n_init=3, random_state=0).fit(X, Y)
    assert recovered(est) == TRUE
    assert est.train_loss_ == pytest.approx(0.0)
    assert est.loss_curve_[-1] <= est.loss_curve_[0]
    np.testing.assert_array_equal(est.labels_, est.predict(X))


def test_iterate_best_loss_is_min_of_curve():
    X, Y, _ = make_circle(600, random_state=0)
    est = RankTree(3, random_state=1).fit(X, Y)
    assert est.train_loss_ == pytest.approx(min(est.loss_curve_))


def test_random_distinct_permutations():
    rng = np.random.RandomState(0)
    P = _random_distinct_permutations(10, 3, rng)
    assert P.shape == (6, 3)  # only 3! = 6 distinct rankings exist
    assert len({tuple(p) for p in P}) == 6
    assert _random_distinct_permutations(4, 6, rng).shape == (4, 6)


def _hand_tree():
    """A depth-2 tree (feature, left, right, parent, node rankings, node losses).

    ::

            0
         1     2
        3 4   5 6

    Gains: node 1 -> 5 - (1 + 1) = 3; node 2 -> 4 - (1 + 2) = 1 (cheapest).
    """
    feat = np.array([0, 0, 0, -1, -1, -1, -1])
    left = np.array([1, 3, 5, -1, -1, -1, -1])
    right = np.array([2, 4, 6, -1, -1, -1, -1])
    parent = np.array([-1, 0, 0, 1, 1, 2, 2])
    ranks = np.array([[0, 1], [0, 1], [1, 0], [0, 1], [1, 0], [1, 0], [0, 1]])
    loss = np.array([10.0, 5.0, 4.0, 1.0, 1.0, 1.0, 2.0])
    return feat, left, right, parent, ranks, loss


def test_prune_to_k_hand_tree():
    feat, left, right, parent, ranks, loss = _hand_tree()
    out = _prune_to_k(feat, left, right, parent, ranks, loss, 2)
    # 2 distinct rankings are already there: nothing to prune
    np.testing.assert_array_equal(out, feat)
    out = _prune_to_k(feat, left, right, parent, ranks, loss, 1)
    # collapse node 2 first (gain 1), then node 1, then the root
    np.testing.assert_array_equal(out, [-1, -1, -1, -1, -1, -1, -1])
    ranks2 = np.array([[0, 1], [0, 1], [1, 0], [0, 1], [0, 1], [1, 0], [0, 1]])
    out = _prune_to_k(feat, left, right, parent, ranks2, loss, 1)
    # node 2 collapses (cheapest); the leaves 3, 4 and node 2 then all carry 0 1... except 2
    assert out[2] == -1


def test_prune_to_k_max_leaves_hand_tree():
    # K = 2 alone prunes nothing in this tree (test_prune_to_k_hand_tree)
    feat, left, right, parent, ranks, loss = _hand_tree()
    np.testing.assert_array_equal(_prune_to_k(feat, left, right, parent, ranks, loss, 2, 4), feat)
    # 3 leaves: the cheapest split (node 2, gain 1) goes; 2 leaves: node 1 (gain 3) too
    np.testing.assert_array_equal(
        _prune_to_k(feat, left, right, parent, ranks, loss, 2, 3), [0, 0, -1, -1, -1, -1, -1]
    )
    np.testing.assert_array_equal(
        _prune_to_k(feat, left, right, parent, ranks, loss, 2, 2), [0, -1, -1, -1, -1, -1, -1]
    )
    assert (_prune_to_k(feat, left, right, parent, ranks, loss, 2, 1) == -1).all()


@pytest.mark.parametrize("max_leaves", [1, 3, 6])
def test_prune_max_leaves_bounds_the_leaves(max_leaves):
    X, Y, _ = make_circle(800, random_state=0)
    full = RankTree(3, mode="prune", random_state=0).fit(X, Y)
    est = RankTree(3, mode="prune", max_leaves=max_leaves, random_state=0).fit(X, Y)
    assert full.tree_.n_leaves > 6  # the bound binds
    # a collapsed node may bring a new ranking, so the K-rankings rule can prune further
    assert 1 <= est.tree_.n_leaves <= max_leaves
    assert 1 <= est.n_clusters_ <= min(3, max_leaves)
    assert len(np.unique(est.tree_.apply(X))) <= max_leaves
    np.testing.assert_array_equal(est.labels_, est.predict(X))
    # a bound above the leaf count of the pruned tree changes nothing
    loose = RankTree(3, mode="prune", max_leaves=full.tree_.n_leaves, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(loose.tree_.feature, full.tree_.feature)
    np.testing.assert_array_equal(loose.labels_, full.labels_)


@pytest.mark.parametrize("K", [2, 3])
def test_prune_gives_at_most_k_rankings(K):
    X, Y, _ = make_circle(800, random_state=0)
    est = RankTree(K, mode="prune").fit(X, Y)
    assert 1 <= est.n_clusters_ <= K
    assert len({tuple(r) for r in est.central_rankings_.ranks}) == est.n_clusters_
    leaves = est.tree_.apply(X)
    assert set(np.unique(est.tree_.value[leaves])) <= set(range(est.n_clusters_))
    assert est.score(X, Y) > 0.2


def test_prune_recovers_blobs():
    X, Y, _y = blobs()
    est = RankTree(3, mode="prune").fit(X, Y)
    assert recovered(est) == TRUE


def test_clone_and_validation():
    clone(RankTree(3, mode="prune"))
    with pytest.raises(ValueError, match="mode"):
        RankTree(mode="grow").fit(np.zeros((3, 1)), [[1, 2]] * 3)
    with pytest.raises(ValueError, match="two labels"):
        RankTree(1).fit(np.zeros((2, 1)), Rankings([[0, -1], [-1, 0]]))


def test_node_losses_kernel_matches_brute_force(rng):
    from rankclust.supervised._base import distances_to_centers
    from rankclust.supervised.rank_tree import _node_losses
    from tests.conftest import random_rankings

    Y = random_rankings(rng, 30, 4, p_missing=0.3)
    parent = np.array([-1, 0, 0, 1, 1])
    node_rank = np.array([rng.permutation(4) for _ in range(5)])
    leaf = rng.choice([2, 3, 4], size=30)
    D = distances_to_centers(Y, node_rank)
    expect = np.zeros(5)
    for i, t in enumerate(leaf):
        while t >= 0:
            expect[t] += D[i, t]
            t = parent[t]
    np.testing.assert_allclose(_node_losses(leaf, parent, node_rank, Y), expect)


def test_validation_pruning_cuts_the_noise_splits():
    # rankings independent of the features: every split the full growth keeps fits noise,
    # and the held-out rows (Algorithm 1, step 5) remove most of them
    rng = np.random.default_rng(0)
    X = rng.random((400, 2))
    pos = np.argsort(rng.random((400, 4)), axis=1)
    Y = Rankings(np.where(rng.random((400, 4)) < 0.5, -1, pos))
    Y = Rankings(np.where((Y.lengths >= 1)[:, None], Y.ranks, pos))  # no empty rows
    plain = RankTree(3, validation_fraction=None, random_state=0).fit(X, Y)
    pruned = RankTree(3, validation_fraction=0.3, random_state=0).fit(X, Y)
    assert pruned.tree_.n_leaves < plain.tree_.n_leaves
    np.testing.assert_array_equal(pruned.labels_, pruned.predict(X))


def test_validation_fraction_too_small_for_the_data_grows_on_all_rows():
    X, Y, _ = blobs(2)  # 6 rows: 0.01 of them rounds to no held-out row
    a = RankTree(3, validation_fraction=0.01, random_state=0).fit(X, Y)
    b = RankTree(3, validation_fraction=None, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(a.central_rankings_.ranks, b.central_rankings_.ranks)


def test_prune_is_reproducible_and_the_seed_reaches_tie_breaking():
    X, Y, _ = make_circle(600, random_state=3)
    # a duplicated column makes every split on it an exact tie with its copy
    X = np.column_stack([X, X[:, 0]])
    a = RankTree(3, mode="prune", random_state=0).fit(X, Y)
    b = RankTree(3, mode="prune", random_state=0).fit(X, Y)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.predict_ranking(X), b.predict_ranking(X))
    np.testing.assert_array_equal(a.label_ranking_tree_.feature_, b.label_ranking_tree_.feature_)
    # the seed reaches the label ranking tree: some seed picks the copy where another the original
    roots = {RankTree(3, mode="prune", random_state=s).fit(X, Y).label_ranking_tree_.feature_[0]
             for s in range(8)}  # fmt: skip
    assert roots == {0, 2}


# ---------------------------------------------------------------- no silent empty cluster
def test_iterate_reseeds_a_ranking_no_leaf_carries():
    # glass, K=3, seed 0 left cluster 0 empty before re-seeding (issue #17)
    import warnings

    from rankclust.datasets import load_label_ranking
    from rankclust.exceptions import EmptyClusterWarning

    X, Y = load_label_ranking("glass")
    with warnings.catch_warnings():
        warnings.simplefilter("error", EmptyClusterWarning)
        est = RankTree(3, random_state=0).fit(X, Y)
    assert est.n_clusters_ == 3 and len(est.central_rankings_) == 3
    assert np.all(np.bincount(est.labels_, minlength=3) > 0)
    np.testing.assert_array_equal(est.predict(X), est.labels_)


def test_fewer_rankings_than_clusters_is_warned_and_renumbered():
    from rankclust.exceptions import EmptyClusterWarning

    X = np.r_[np.zeros((10, 1)), np.ones((10, 1))]
    Y = [[1, 2]] * 10 + [[2, 1]] * 10  # two labels: only 2! = 2 rankings for K = 3
    with pytest.warns(EmptyClusterWarning, match="n_clusters_=2"):
        est = RankTree(3, random_state=0, validation_fraction=None).fit(X, Y)
    assert est.n_clusters_ == 2
    assert set(np.unique(est.labels_)) == {0, 1}
    assert est.tree_.value.max() < 2 and est.tree_.value.min() >= 0


def test_remap_tree_values_gives_dropped_internal_nodes_their_leftmost_leaf():
    from rankclust.supervised._base import remap_tree_values
    from rankclust.supervised._ktree import KTree

    tree = KTree()
    # node 0 splits into leaf 1 and node 2, which splits into leaves 3 and 4
    feat = np.array([0, -1, 0, -1, -1])
    left, right = np.array([1, -1, 3, -1, -1]), np.array([2, -1, 4, -1, -1])
    value = np.array([1, 2, 1, 0, 2])  # ranking 1 is carried by no leaf
    tree._store(feat, np.zeros(5), left, right, value, np.zeros(5), np.ones(5, dtype=np.int64))
    remap = np.array([0, -1, 1])
    remap_tree_values(tree, remap)
    np.testing.assert_array_equal(tree.value, [1, 1, 0, 0, 1])


def test_n_init_agreeing_counts_starts_with_the_best_partition():
    X, Y, _ = blobs(20, p_missing=0.0, seed=2)
    est = RankTree(3, n_init=4, random_state=0).fit(X, Y)
    assert 1 <= est.n_init_agreeing_ <= 4
    assert RankTree(3, mode="prune").fit(X, Y).n_init_agreeing_ == 1
