"""Tests of the KTree kernel (rankclust.supervised._ktree) against the pure-python reference."""

import numpy as np
import pytest

from rankclust.supervised._ktree import KTree, grow_ktree_reference


def _as_nested(tree: KTree, node: int = 0):
    if tree.feature[node] < 0:
        return ("leaf", int(tree.value[node]))
    return (
        int(tree.feature[node]),
        float(tree.threshold[node]),
        _as_nested(tree, int(tree.left[node])),
        _as_nested(tree, int(tree.right[node])),
    )


@pytest.mark.parametrize("growth", ["literal", "full"])
@pytest.mark.parametrize("seed", range(8))
def test_kernel_matches_reference(growth, seed):
    rng = np.random.default_rng(seed)
    n, d, K, m = 60, 3, 4, 5
    X = rng.integers(0, 6, size=(n, d)).astype(float)  # many ties in the features
    D = rng.integers(0, 7, size=(n, K)).astype(float)  # integer costs: exact comparisons
    V = rng.integers(1, m + 1, size=(n, m)).astype(float)
    tree = KTree(min_node=5, growth=growth).fit(X, D, V)
    assert _as_nested(tree) == grow_ktree_reference(X, D, V, min_node=5, growth=growth)


def test_leaf_carries_argmin_and_apply_is_consistent():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    D = rng.random((200, 3))
    tree = KTree(5, "full").fit(X, D, rng.random((200, 4)))
    leaf = tree.apply(X)
    assert (tree.feature[leaf] == -1).all()
    for t in np.unique(leaf):
        sel = leaf == t
        assert tree.n_node_samples[t] == sel.sum()
        assert tree.value[t] == np.argmin(D[sel].sum(axis=0))


def _middle_band():
    # ranking 1 owns the middle of the line, ranking 0 both ends: no single cut lowers the
    # cost (ranking 0 stays best on both sides), two cuts do
    X = np.repeat(np.arange(10.0), 4)[:, None]
    cls = ((X[:, 0] >= 4) & (X[:, 0] <= 5)).astype(int)
    D = np.stack([cls, 1 - cls], axis=1).astype(float)  # cost 0 for the own ranking
    V = np.stack([cls, 1 - cls], axis=1).astype(float)
    return X, D, V, cls


def test_literal_rule_stops_and_full_growth_finds_the_band():
    X, D, V, cls = _middle_band()
    literal = KTree(5, "literal").fit(X, D, V)
    assert literal.n_leaves == 1
    full = KTree(5, "full").fit(X, D, V)
    np.testing.assert_array_equal(full.predict(X), cls)
    assert full.n_leaves == 3


def test_full_growth_collapses_useless_subtrees():
    # one ranking is best everywhere: every split is collapsed again
    rng = np.random.default_rng(1)
    X = rng.normal(size=(100, 2))
    D = np.c_[np.zeros(100), np.ones(100)]
    tree = KTree(5, "full").fit(X, D, rng.random((100, 3)))
    assert tree.n_leaves == 1 and tree.value[0] == 0


def test_min_node_makes_small_nodes_leaves():
    X = np.arange(5, dtype=float)[:, None]
    D = np.c_[[0, 0, 1, 1, 1], [1, 1, 0, 0, 0]].astype(float)
    assert KTree(5, "literal").fit(X, D).n_leaves == 1
    tree = KTree(2, "literal").fit(X, D)
    np.testing.assert_array_equal(tree.predict(X), [0, 0, 1, 1, 1])
    assert tree.threshold[0] == 1.5


def _prune_reference(tree: KTree, X: np.ndarray, D: np.ndarray, keep_ties: bool):
    """Reduced-error pruning, recursively on the unpruned tree (nested tuples)."""

    def rec(node: int, rows: np.ndarray):
        cost = D[rows, tree.value[node]].sum()
        if tree.feature[node] < 0:
            return ("leaf", int(tree.value[node])), cost
        go = X[rows, tree.feature[node]] <= tree.threshold[node]
        lt, lc = rec(int(tree.left[node]), rows[go])
        rt, rc = rec(int(tree.right[node]), rows[~go])
        s = lc + rc
        if (s > cost + 1e-9) if keep_ties else (s >= cost - 1e-9):
            return ("leaf", int(tree.value[node])), cost
        return (int(tree.feature[node]), float(tree.threshold[node]), lt, rt), s

    return rec(0, np.arange(X.shape[0]))[0]


@pytest.mark.parametrize("keep_ties", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_prune_matches_reference(keep_ties, seed):
    rng = np.random.default_rng(seed)
    n, d, K, m = 120, 2, 3, 4
    X = rng.integers(0, 8, size=(n, d)).astype(float)
    D = rng.integers(0, 5, size=(n, K)).astype(float)
    V = rng.integers(1, m + 1, size=(n, m)).astype(float)
    tree = KTree(min_node=3, growth="full").fit(X[:80], D[:80], V[:80])
    Xv, Dv = X[80:], D[80:]
    expected = _prune_reference(tree, Xv, Dv, keep_ties)
    # path costs: every node charged with the held-out rows that pass through it
    costs = tree.path_costs(Xv, Dv)
    assert costs[0] == pytest.approx(Dv[:, tree.value[0]].sum())
    for t in range(tree.n_nodes):
        if tree.feature[t] >= 0:
            assert costs[int(tree.left[t])] + costs[int(tree.right[t])] >= 0
    assert _as_nested(tree.prune(Xv, Dv, keep_ties=keep_ties)) == expected


def test_prune_removes_a_split_that_hurts_held_out_rows():
    X, D, V, _ = _middle_band()
    tree = KTree(5, "full").fit(X, D, V)
    assert tree.n_leaves == 3
    # held-out rows that say ranking 0 is right everywhere: the band splits only hurt
    Xv = np.arange(10.0)[:, None]
    Dv = np.c_[np.zeros(10), np.ones(10)]
    pruned = tree.prune(Xv, Dv)  # the band's leaf goes; a split of 0 | 0 (gain 0) may stay
    assert (pruned.predict(X) == 0).all() and pruned.n_leaves < 3


def test_prune_keeps_splits_without_held_out_evidence():
    X, D, V, _ = _middle_band()
    Xv = np.array([[0.0]])  # reaches only the left end
    Dv = np.zeros((1, 2))  # and costs nothing either way
    assert KTree(5, "full").fit(X, D, V).prune(Xv, Dv, keep_ties=True).n_leaves == 3
    assert KTree(5, "full").fit(X, D, V).prune(Xv, Dv, keep_ties=False).n_leaves == 1
