"""Tests of the label ranking tree (LRT)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.consensus import generalized_borda
from rankclust.distances import kendall_distances
from rankclust.label_ranking import LabelRankingTree
from rankclust.label_ranking._tree_kernels import _nb_best_split, _nb_theta_from_mean
from rankclust.label_ranking.tree import theta_table
from rankclust.models.mallows import estimate_center, estimate_theta, theta_mle
from tests.conftest import random_rankings

THETA_MAX = 10.0


def _side_theta_reference(R: Rankings) -> float:
    """A child's spread by refitting from scratch with the shared functions.

    Labels of the side, generalised Borda centre over them, mean distance from the observed
    pairs (each row's share of discordant observed pairs times n_T (n_T - 1)/2), theta MLE.
    """
    labs = np.flatnonzero(R.present.any(axis=0))
    if labs.size < 2:
        return THETA_MAX
    sub = Rankings(R.ranks[:, labs])
    center = generalized_borda(sub)
    pairs = sub.lengths * (sub.lengths - 1) / 2
    ok = pairs > 0
    if not ok.any():
        return THETA_MAX
    disc = kendall_distances(sub[np.flatnonzero(ok)], center)
    k = labs.size
    mean = float(np.mean(disc / pairs[ok])) * k * (k - 1) / 2
    return theta_mle(mean, k, theta_max=THETA_MAX)


def _value(theta: float, criterion: int) -> float:
    if criterion == 0:
        return theta
    return 0.0 if theta >= THETA_MAX else -1.0 / (1.0 + theta)


def _best_split_reference(X, R, rows, min_leaf=1, criterion=0):
    best = (-np.inf, -1, 0.0)
    for f in range(X.shape[1]):
        vals = np.unique(X[rows, f])
        for lo, hi in itertools.pairwise(vals):
            t = 0.5 * (lo + hi)
            left = rows[X[rows, f] <= t]
            right = rows[X[rows, f] > t]
            if left.size < min_leaf or right.size < min_leaf:
                continue
            q = (
                left.size * _value(_side_theta_reference(R[left]), criterion)
                + right.size * _value(_side_theta_reference(R[right]), criterion)
            ) / rows.size
            if q > best[0] + 1e-7:
                best = (q, f, t)
    return best


def _kernel(X, R, rows, min_leaf=1, criterion=0):
    table, grid = theta_table(R.n_items, THETA_MAX)
    f, t, s = np.empty(1, dtype=np.int64), np.empty(1), np.empty(1)
    sorted_rows = np.column_stack(
        [rows[np.argsort(X[rows, c], kind="stable")] for c in range(X.shape[1])]
    )
    sorted_vals = np.take_along_axis(X[rows], np.argsort(X[rows], axis=0, kind="stable"), 0)
    ro = np.argsort(np.where(R.present, R.ranks, R.n_items), axis=1, kind="stable")
    ro, lens = ro.astype(np.int16), R.lengths.astype(np.int16)
    _nb_best_split(sorted_rows, sorted_vals, ro, lens, min_leaf, criterion, table, grid, f, t, s)
    return s[0], int(f[0]), t[0]


@pytest.mark.parametrize("criterion", [0, 1])
@pytest.mark.parametrize("p_missing", [0.0, 0.4])
@pytest.mark.parametrize("seed", range(4))
def test_split_scan_matches_refitting_every_threshold(p_missing, seed, criterion):
    rng = np.random.default_rng(seed)
    n, d, m = 30, 3, 4
    X = np.round(rng.random((n, d)), 1)  # repeated values: thresholds between distinct ones
    util = X @ rng.normal(size=(d, m)) + rng.normal(0, 0.3, (n, m))
    ranks = np.argsort(np.argsort(-util, axis=1), axis=1)
    ranks = np.where(rng.random((n, m)) < p_missing, -1, ranks)
    R = Rankings(ranks)
    rows = np.arange(n, dtype=np.int64)
    score, f, t = _kernel(X, R, rows, min_leaf=2, criterion=criterion)
    ref_score, ref_f, ref_t = _best_split_reference(X, R, rows, min_leaf=2, criterion=criterion)
    assert score == pytest.approx(ref_score, abs=1e-4)
    assert (f, t) == (ref_f, pytest.approx(ref_t))


def test_theta_table_inversion_matches_theta_mle():
    table, grid = theta_table(8, THETA_MAX)
    for n in (2, 5, 8):
        for mean in np.linspace(0.0, n * (n - 1) / 4 + 0.5, 37):
            ref = theta_mle(mean, n, theta_max=THETA_MAX)
            assert _nb_theta_from_mean(table, grid, n, mean) == pytest.approx(ref, abs=2e-5)


def test_one_feature_determines_the_ranking():
    X = np.array([[0.1], [0.2], [0.3], [0.7], [0.8], [0.9]] * 3)
    Y = np.where(X < 0.5, [[1, 2, 3]], [[3, 1, 2]])
    tree = LabelRankingTree(min_node_size_factor=1).fit(X, Y)
    assert tree.n_leaves_ == 2
    assert tree.feature_[0] == 0 and tree.threshold_[0] == pytest.approx(0.5)
    np.testing.assert_array_equal(tree.predict([[0.0], [1.0]]), [[1, 2, 3], [3, 1, 2]])
    assert tree.node_theta_[1] == THETA_MAX  # pure leaves
    np.testing.assert_allclose(tree.reliability([[0.0]]), [THETA_MAX * 9 / 18])


def test_stopping_rules(rng):
    X = rng.random((20, 2))
    same = np.tile([2, 1, 3, 4], (20, 1))
    assert LabelRankingTree().fit(X, same).n_leaves_ == 1  # pure root
    R = random_rankings(rng, 7, 4)
    # 7 examples < 2 * 4 labels: the root is a leaf
    assert LabelRankingTree().fit(X[:7], R).n_leaves_ == 1
    big = random_rankings(rng, 200, 4)
    Xb = rng.random((200, 3))
    deep = LabelRankingTree(max_depth=2).fit(Xb, big)
    assert deep.max_depth_ <= 2 and deep.n_leaves_ <= 4
    # label occurrences: 7 complete rankings of 4 labels = 28 >= 8, so the root may split
    assert LabelRankingTree(min_node_size_mode="label_occurrences").fit(X[:7], R).node_count_ > 1
    leafy = LabelRankingTree(min_samples_leaf=30).fit(Xb, big)
    leaves = leafy.feature_ < 0
    assert leafy.n_node_samples_[leaves].min() >= 30


def test_leaf_completed_from_ancestor():
    """A leaf that never saw label 2 gets it where Prop. 1 puts it against the parent."""
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    # left leaf sees only labels 0 and 1 (0 above 1); the root's centre is 2 > 0 > 1
    Y = np.array([[1, 2, 0], [1, 2, 0], [3, 2, 1], [3, 2, 1]])
    tree = LabelRankingTree(min_node_size_factor=0).fit(X, Y)
    assert tree.n_leaves_ == 2
    left = tree.apply([[0.0]])[0]
    assert tree.node_labels_[left].tolist() == [0, 1]
    pred = tree.predict([[0.0]])[0]
    np.testing.assert_array_equal(tree.node_center_[0], [1, 2, 0])  # root: 2 > 0 > 1
    # the leaf's own order 0 > 1 is kept; label 2 is inserted where the root puts it: on top
    np.testing.assert_array_equal(pred, [2, 3, 1])


def test_unseen_label_goes_to_the_bottom():
    X = np.array([[0.0], [1.0], [2.0]])
    Y = np.array([[1, 2, 0], [2, 1, 0], [1, 2, 0]])
    pred = LabelRankingTree().fit(X, Y).predict([[0.5]])
    assert pred[0, 2] == 3


def test_incomplete_data_learns(rng):
    X = rng.random((400, 2))
    util = np.column_stack([X[:, 0], X[:, 1], 1 - X[:, 0], 1 - X[:, 1]])
    Y = (np.argsort(np.argsort(-util, axis=1), axis=1) + 1).astype(float)
    Ym = Y.copy()
    Ym[rng.random(Y.shape) < 0.4] = np.nan
    tree = LabelRankingTree().fit(X[:300], Ym[:300])
    assert tree.score(X[300:], Y[300:]) > 0.7
    assert np.all(np.isfinite(tree.node_theta_))


def test_incomplete_node_models_match_the_shared_estimators(rng):
    X = rng.random((120, 2))
    R = random_rankings(rng, 120, 5, p_missing=0.4)
    tree = LabelRankingTree(max_depth=3).fit(X, R)
    for node in range(tree.node_count_):
        rows = np.flatnonzero(np.isin(tree.apply(X), _leaves_below(tree, node)))
        labs = tree.node_labels_[node]
        sub = Rankings(R.ranks[rows][:, labs])
        if sub.lengths.min() == labs.size:
            continue  # complete node: Borda path, covered by the split-scan tests
        center = estimate_center(sub, method="borda")
        np.testing.assert_array_equal(tree.node_center_[node], center)
        theta = estimate_theta(sub, center, theta_max=THETA_MAX)
        assert tree.node_theta_[node] == pytest.approx(theta, abs=2e-5)


def _leaves_below(tree, node):
    stack, out = [node], []
    while stack:
        t = stack.pop()
        if tree.feature_[t] < 0:
            out.append(t)
        else:
            stack += [tree.children_left_[t], tree.children_right_[t]]
    return out
