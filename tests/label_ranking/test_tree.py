"""Tests of the label ranking tree (LRT) and its kernels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.consensus import generalized_borda
from rankclust.distances import kendall_distances
from rankclust.label_ranking import ConsensusLabelRanker, LabelRankingTree
from rankclust.label_ranking import tree as tree_module
from rankclust.label_ranking._tree_kernels import (
    ScannedRows,
    ThetaTable,
    _nb_complete_node_model,
    _nb_partition,
    _nb_prune,
    _nb_resort,
    _nb_shuffle,
    _nb_split_complete,
    _nb_split_incomplete,
    _nb_split_score,
    _nb_theta_from_mean,
    _nb_theta_lookup,
    _nb_theta_upper,
)
from rankclust.label_ranking.tree import (
    CCP_ALPHA_GRID,
    _scan_rows,
    feature_order_seed,
    theta_index,
    theta_table,
)
from rankclust.models.mallows import estimate_center, estimate_theta, sample_mallows, theta_mle
from tests.conftest import random_rankings

THETA_MAX = 10.0


def _side_theta_reference(R: Rankings) -> float:
    """A child's spread by refitting from scratch with the shared functions.

    Labels of the side, generalised Borda centre over them, mean distance from the observed
    pairs (each row's share of discordant observed pairs times n_T (n_T - 1)/2), theta MLE;
    ``np.inf`` for a pure side (no discordant pair; fewer than two labels or no pair).
    """
    labs = np.flatnonzero(R.present.any(axis=0))
    if labs.size < 2:
        return np.inf
    sub = Rankings(R.ranks[:, labs])
    center = generalized_borda(sub)
    pairs = sub.lengths * (sub.lengths - 1) / 2
    ok = pairs > 0
    if not ok.any():
        return np.inf
    disc = kendall_distances(sub[np.flatnonzero(ok)], center)
    if not disc.any():
        return np.inf
    k = labs.size
    mean = float(np.mean(disc / pairs[ok])) * k * (k - 1) / 2
    return theta_mle(mean, k, theta_max=THETA_MAX)


def _value(theta: float, criterion: int) -> float:
    """Criterion 0: the capped spread; 1: minus the impurity, 0 only for a pure side."""
    if criterion == 0:
        return min(theta, THETA_MAX)
    return -1.0 / (1.0 + theta)


def _candidates_reference(X, R, rows, min_leaf=1, criterion=0, order=None):
    """``(score, feature, threshold)`` of every valid split, both children refitted, features
    in ``order`` (default: column order), thresholds ascending."""
    out = []
    for f in range(X.shape[1]) if order is None else order:
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
            out.append((q, f, t))
    return out


def _best_split_reference(X, R, rows, min_leaf=1, criterion=0, order=None):
    """The best of :func:`_candidates_reference`; ties keep the first."""
    best = (-np.inf, -1, 0.0)
    for q, f, t in _candidates_reference(X, R, rows, min_leaf, criterion, order):
        if q > best[0] + 1e-7:
            best = (q, f, t)
    return best


def _presort(X, rows):
    """The kernels' layout of a node: row f = the rows sorted by feature f, and the values."""
    order = np.argsort(X[rows], axis=0, kind="stable")
    sidx = np.ascontiguousarray(rows[order].T)
    sval = np.ascontiguousarray(np.take_along_axis(X[rows], order, axis=0).T)
    return sidx, sval


def _kernel(X, R, rows, min_leaf=1, criterion=0, path=None, order=None):
    """The kernels' best split of ``rows``: the integer path when every row is complete (or
    ``path="integer"``), else the float path; features visited in ``order`` (default: column
    order). Returns ``(score, feature, threshold)``."""
    order = np.arange(X.shape[1]) if order is None else np.asarray(order, dtype=np.int64)
    m = R.n_items
    table, grid = theta_table(m, THETA_MAX)
    index, yrange, theta_up = theta_index(m, THETA_MAX)
    rk, bits, n_above, pair_index, ro, lens = _scan_rows(R)
    if ro.shape[0] == 0:
        ro = np.argsort(rk, axis=1, kind="stable").astype(rk.dtype)
    sidx, sval = _presort(X, rows)
    if path is None:
        path = "integer" if np.all(lens[rows] == m) else "float"
    if path == "integer":
        s_tot = np.zeros(m, dtype=np.int64)
        c_tot = np.zeros(bits.shape[1], dtype=np.int64)
        s_tot += rk[rows].sum(axis=0, dtype=np.int64)
        c_tot += bits[rows].sum(axis=0, dtype=np.int64)
        work = np.zeros((7, max(m, bits.shape[1])), dtype=np.int64)
        f, t, s = _nb_split_complete(
            ScannedRows(sidx, sval, rk, bits, n_above, pair_index, ro, lens),
            ThetaTable(table, grid, index, yrange, theta_up),
            0, rows.size, s_tot, c_tot, min_leaf, criterion, work, order,
        )  # fmt: skip
    else:
        f, t, s, _ = _nb_split_incomplete(
            ScannedRows(sidx, sval, rk, bits, n_above, pair_index, ro, lens),
            ThetaTable(table, grid, index, yrange, theta_up),
            0, rows.size, min_leaf, criterion, order,
        )  # fmt: skip
    return s, int(f), t


def _tied_data(rng, n, d, m, p_missing):
    X = np.round(rng.random((n, d)), 1)  # repeated values: thresholds between distinct ones
    util = X @ rng.normal(size=(d, m)) + rng.normal(0, 0.3, (n, m))
    ranks = np.argsort(np.argsort(-util, axis=1), axis=1)
    ranks = np.where(rng.random((n, m)) < p_missing, -1, ranks)
    return X, Rankings(ranks)


@pytest.mark.parametrize("criterion", [0, 1])
@pytest.mark.parametrize("p_missing", [0.0, 0.4])
@pytest.mark.parametrize("seed", range(4))
def test_split_scan_matches_refitting_every_threshold(p_missing, seed, criterion):
    rng = np.random.default_rng(seed)
    X, R = _tied_data(rng, 30, 3, 4 + seed % 2, p_missing)
    rows = np.arange(30, dtype=np.int64)
    score, f, t = _kernel(X, R, rows, min_leaf=2, criterion=criterion)
    ref_score, ref_f, ref_t = _best_split_reference(X, R, rows, min_leaf=2, criterion=criterion)
    assert score == pytest.approx(ref_score, abs=1e-4)
    assert (f, t) == (ref_f, pytest.approx(ref_t))


@pytest.mark.parametrize("criterion", [0, 1])
@pytest.mark.parametrize("seed", range(6))
def test_integer_and_float_scans_agree_on_complete_rows(seed, criterion):
    """The exact integer scan and the float scan (which also handles complete rows) choose
    the same split of a node (a subset of the rows, in the layout of a child node)."""
    rng = np.random.default_rng(seed)
    m = (2, 3, 5, 7, 4, 6)[seed]
    X, R = _tied_data(rng, 60, 3, m, 0.0)
    rows = np.sort(rng.choice(60, 45, replace=False))
    s_int, f_int, t_int = _kernel(X, R, rows, min_leaf=1 + seed % 3, criterion=criterion,
                                  path="integer")  # fmt: skip
    s_flt, f_flt, t_flt = _kernel(X, R, rows, min_leaf=1 + seed % 3, criterion=criterion,
                                  path="float")  # fmt: skip
    assert s_int == pytest.approx(s_flt, abs=1e-9)
    assert (f_int, t_int) == (f_flt, t_flt)


@pytest.mark.parametrize("m", [2, 3, 5, 11])
def test_theta_lookup_is_the_binary_search_and_the_bound_bounds_it(m):
    table, grid = theta_table(m, THETA_MAX)
    index, yrange, theta_up = theta_index(m, THETA_MAX)
    rng = np.random.default_rng(m)
    row = table[m]
    top = m * (m - 1) / 4
    means = np.concatenate(
        [
            rng.random(3000) * (top + 0.5),
            np.exp(rng.uniform(np.log(row[-1]) - 1, np.log(top), 3000)),
            row,  # the grid values themselves (bracket edges)
            0.5 * (row[1:] + row[:-1]),
            np.exp(yrange[m, 0] - np.arange(index.shape[1]) / yrange[m, 1]),  # bucket edges
            [0.0, row[-1], row[0], top + 1.0],
        ]
    )
    for mean in means:
        exact = _nb_theta_from_mean(table, grid, m, mean)
        assert _nb_theta_lookup(table, grid, index, yrange, m, mean) == exact
        assert _nb_theta_upper(table, yrange, theta_up, m, mean) >= exact


def test_resort_tracks_the_flipped_pairs():
    """Insertion sort by key with the lower label first on ties; ``flip`` marks the pairs
    x < y that the order puts y before x, and the returned sums follow it."""
    rng = np.random.default_rng(0)
    m = 6
    pair_index = np.zeros((m, m), dtype=np.int64)
    pair_index[np.triu_indices(m, 1)] = np.arange(m * (m - 1) // 2)
    pair_index = (pair_index + pair_index.T).ravel()
    pairs = list(itertools.combinations(range(m), 2))
    order = np.arange(m)
    flip = np.zeros(len(pairs), dtype=np.int64)
    c = rng.integers(0, 9, len(pairs))
    c2 = rng.integers(0, 9, len(pairs))
    n_flip = dot = dot2 = 0
    key = np.zeros(m, dtype=np.int64)
    for _ in range(200):
        key += rng.integers(0, 3, m)  # drift, with frequent ties
        d_flip, d_c, d_c2 = _nb_resort(key, order, flip, pair_index, c, c2)
        n_flip, dot, dot2 = n_flip + d_flip, dot + d_c, dot2 + d_c2
        expected = sorted(range(m), key=lambda j: (key[j], j))
        np.testing.assert_array_equal(order, expected)
        pos = np.argsort(order)
        want = np.array([pos[y] < pos[x] for x, y in pairs], dtype=np.int64)
        np.testing.assert_array_equal(flip, want)
        assert (n_flip, dot, dot2) == (want.sum(), want @ c, want @ c2)


def test_pair_bits_and_complete_node_model_against_brute_force():
    rng = np.random.default_rng(1)
    m = 5
    R = random_rankings(rng, 40, m)
    rk, bits, n_above, pair_index, _, _ = _scan_rows(R)
    pairs = list(itertools.combinations(range(m), 2))
    want = np.array([[r[x] < r[y] for x, y in pairs] for r in R.ranks], dtype=np.uint8)
    np.testing.assert_array_equal(bits, want)
    np.testing.assert_array_equal(n_above, want.sum(axis=1))
    for rows in (np.arange(40), np.arange(7), np.array([3, 3, 3])):
        table, grid = theta_table(m, THETA_MAX)
        center = np.empty(m, dtype=np.int64)
        theta, pure = _nb_complete_node_model(
            rk[rows].sum(axis=0, dtype=np.int64), bits[rows].sum(axis=0, dtype=np.int64),
            rows.size, table, grid, pair_index, np.empty(m, dtype=np.int64),
            np.zeros(len(pairs), dtype=np.int64), center,
        )  # fmt: skip
        sub = R[rows]
        borda = np.argsort(np.argsort(sub.ranks.sum(axis=0), kind="stable"), kind="stable")
        np.testing.assert_array_equal(center, borda)  # Borda order, ties to the lower label
        mean = float(np.mean(kendall_distances(sub, center)))
        assert theta == pytest.approx(theta_mle(mean, m, theta_max=THETA_MAX), abs=2e-5)
        assert pure == (np.unique(sub.ranks, axis=0).shape[0] == 1)


def test_partition_is_stable_and_keeps_every_feature_sorted():
    rng = np.random.default_rng(2)
    X = np.round(rng.random((50, 3)), 1)
    sidx, sval = _presort(X, np.arange(50, dtype=np.int64))
    start, end = 5, 45  # a node in the middle: the rest must not move
    sidx[:, start:end], sval[:, start:end] = _presort(X, np.unique(sidx[0, start:end]))
    before = sidx.copy()
    n_left = _nb_partition(
        sidx, sval, start, end, 1, 0.45, np.zeros(50, dtype=np.bool_), np.empty(50, np.int64),
        np.empty(50),
    )  # fmt: skip
    rows = before[0, start:end]
    go_left = np.sort(rows[X[rows, 1] <= 0.45])
    assert n_left == go_left.size
    np.testing.assert_array_equal(sidx[:, :start], before[:, :start])
    np.testing.assert_array_equal(sidx[:, end:], before[:, end:])
    for f in range(3):
        for a, b, members in ((start, start + n_left, go_left),
                              (start + n_left, end, np.setdiff1d(rows, go_left))):  # fmt: skip
            seg = sidx[f, a:b]
            np.testing.assert_array_equal(np.sort(seg), members)
            np.testing.assert_array_equal(sval[f, a:b], X[seg, f])
            # sorted by the feature, row order kept among equal values (stable)
            np.testing.assert_array_equal(
                seg, before[f, start:end][np.isin(before[f, start:end], members)]
            )
            assert np.all(np.diff(sval[f, a:b]) >= 0)


def _pure(sub: Rankings) -> bool:
    """No pair of labels ordered both ways by rankings that have both (Sec. 5.1)."""
    pres = sub.present
    both = pres[:, :, None] & pres[:, None, :]
    above = both & (sub.ranks[:, :, None] < sub.ranks[:, None, :])
    return not np.any(above.any(axis=0) & above.any(axis=0).T)


def _feature_orders(random_state, d):
    """The tree's stream of per-node feature orders: one seed from ``random_state``, then a
    Fisher-Yates shuffle of the previous order at every node searched for a split."""
    state = np.array([feature_order_seed(random_state)], dtype=np.uint64)
    order = np.arange(d)
    while True:
        _nb_shuffle(order, state)
        yield order.copy()


def _reference_tree(X, R, min_size, min_leaf=1, criterion=1, random_state=0, min_decrease=0.0):
    """Depth first, left child first, splits by :func:`_best_split_reference` with the
    features in the tree's per-node random order; a node stays a leaf when its best split
    improves the criterion, weighted by the node's share of the rows, by less than
    ``min_decrease`` (``None``: never)."""
    feature, threshold = [], []
    orders = _feature_orders(random_state, X.shape[1])

    def grow(rows):
        node = len(feature)
        feature.append(-1)
        threshold.append(-2.0)
        if _pure(R[rows]) or rows.size < min_size or rows.size < 2:
            return
        q, f, t = _best_split_reference(X, R, rows, min_leaf, criterion, next(orders))
        if f < 0:
            return
        gain = rows.size / X.shape[0] * (q - _value(_side_theta_reference(R[rows]), criterion))
        if min_decrease is not None and gain < min_decrease:
            return
        feature[node], threshold[node] = f, t
        grow(rows[X[rows, f] <= t])
        grow(rows[X[rows, f] > t])

    grow(np.arange(X.shape[0]))
    return np.array(feature), np.array(threshold)


@pytest.mark.parametrize("min_decrease", [0.0, None])
@pytest.mark.parametrize("p_missing", [0.0, 0.3])
@pytest.mark.parametrize("seed", range(3))
def test_tree_matches_a_reference_grower(seed, p_missing, min_decrease):
    rng = np.random.default_rng(10 + seed)
    X, R = _tied_data(rng, 40, 3, 3 + seed, p_missing)
    tree = LabelRankingTree(
        ccp_alpha=0.0,
        min_node_size_factor=6 / R.n_items, min_samples_leaf=2, random_state=seed,
        min_impurity_decrease=min_decrease,
    ).fit(X, R)  # fmt: skip
    feature, threshold = _reference_tree(
        X, R, min_size=6, min_leaf=2, random_state=seed, min_decrease=min_decrease
    )
    np.testing.assert_array_equal(tree.feature_, feature)
    np.testing.assert_allclose(tree.threshold_, threshold)


@pytest.mark.parametrize("p_missing", [0.0, 0.3])
def test_float_path_grows_the_same_tree(monkeypatch, p_missing):
    """Without room for the pair bits every node takes the float path: same tree."""
    rng = np.random.default_rng(3)
    X = rng.random((150, 3))
    R = random_rankings(rng, 150, 4, p_missing=p_missing)
    fast = LabelRankingTree(ccp_alpha=0.0, random_state=0).fit(X, R)
    monkeypatch.setattr(tree_module, "_MAX_PAIR_BITS", 0)
    slow = LabelRankingTree(ccp_alpha=0.0, random_state=0).fit(X, R)
    np.testing.assert_array_equal(fast.feature_, slow.feature_)
    np.testing.assert_array_equal(fast.threshold_, slow.threshold_)
    np.testing.assert_array_equal(fast.leaf_ranking_, slow.leaf_ranking_)
    np.testing.assert_allclose(fast.node_theta_, slow.node_theta_, atol=1e-12)


def test_apply_walks_the_tree(rng):
    X = rng.random((300, 3))
    R = random_rankings(rng, 300, 4)
    tree = LabelRankingTree(ccp_alpha=0.0, min_node_size_factor=0).fit(X, R)
    Xq = np.vstack([rng.random((50, 3)), X[:20]])
    expected = []
    for x in Xq:
        t = 0
        while tree.feature_[t] >= 0:
            go_left = x[tree.feature_[t]] <= tree.threshold_[t]
            t = tree.children_left_[t] if go_left else tree.children_right_[t]
        expected.append(t)
    np.testing.assert_array_equal(tree.apply(Xq), expected)
    # every training row reaches a leaf that counted it
    leaves, counts = np.unique(tree.apply(X), return_counts=True)
    np.testing.assert_array_equal(tree.n_node_samples_[leaves], counts)
    assert counts.sum() == 300 and np.all(tree.feature_[leaves] < 0)


def test_theta_table_inversion_matches_theta_mle():
    table, grid = theta_table(8, THETA_MAX)
    for n in (2, 5, 8):
        for mean in np.linspace(0.0, n * (n - 1) / 4 + 0.5, 37):
            ref = theta_mle(mean, n, theta_max=THETA_MAX)
            assert _nb_theta_from_mean(table, grid, n, mean) == pytest.approx(ref, abs=2e-5)


def test_one_feature_determines_the_ranking():
    X = np.array([[0.1], [0.2], [0.3], [0.7], [0.8], [0.9]] * 3)
    Y = np.where(X < 0.5, [[1, 2, 3]], [[3, 1, 2]])
    tree = LabelRankingTree(ccp_alpha=0.0, min_node_size_factor=1).fit(X, Y)
    assert tree.n_leaves_ == 2
    assert tree.feature_[0] == 0 and tree.threshold_[0] == pytest.approx(0.5)
    np.testing.assert_array_equal(tree.predict([[0.0], [1.0]]), [[1, 2, 3], [3, 1, 2]])
    assert tree.node_theta_[1] == THETA_MAX  # pure leaves
    np.testing.assert_allclose(tree.reliability([[0.0]]), [THETA_MAX * 9 / 18])


def test_stopping_rules(rng):
    X = rng.random((20, 2))
    same = np.tile([2, 1, 3, 4], (20, 1))
    assert LabelRankingTree(ccp_alpha=0.0).fit(X, same).n_leaves_ == 1  # pure root
    R = random_rankings(rng, 7, 4)
    # the paper's rule: 7 examples < 2 * 4 labels, the root is a leaf
    assert LabelRankingTree(ccp_alpha=0.0, min_node_size_factor=2).fit(X[:7], R).n_leaves_ == 1
    assert LabelRankingTree(ccp_alpha=0.0).fit(X[:7], R).n_leaves_ > 1  # default: grown fully
    big = random_rankings(rng, 200, 4)
    Xb = rng.random((200, 3))
    deep = LabelRankingTree(ccp_alpha=0.0, max_depth=2).fit(Xb, big)
    assert deep.max_depth_ <= 2 and deep.n_leaves_ <= 4
    # label occurrences: 7 complete rankings of 4 labels = 28 >= 8, so the root may split
    occ = LabelRankingTree(
        ccp_alpha=0.0, min_node_size_mode="label_occurrences", min_node_size_factor=2
    )
    assert occ.fit(X[:7], R).node_count_ > 1
    leafy = LabelRankingTree(ccp_alpha=0.0, min_samples_leaf=30).fit(Xb, big)
    leaves = leafy.feature_ < 0
    assert leafy.n_node_samples_[leaves].min() >= 30


def test_leaf_completed_from_ancestor():
    """A leaf that never saw label 2 gets it where Prop. 1 puts it against the parent."""
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    # left leaf sees only labels 0 and 1 (0 above 1); the root's centre is 2 > 0 > 1
    Y = np.array([[1, 2, 0], [1, 2, 0], [3, 2, 1], [3, 2, 1]])
    tree = LabelRankingTree(ccp_alpha=0.0, min_node_size_factor=0).fit(X, Y)
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
    pred = LabelRankingTree(ccp_alpha=0.0).fit(X, Y).predict([[0.5]])
    assert pred[0, 2] == 3


def test_incomplete_data_learns(rng):
    X = rng.random((400, 2))
    util = np.column_stack([X[:, 0], X[:, 1], 1 - X[:, 0], 1 - X[:, 1]])
    Y = (np.argsort(np.argsort(-util, axis=1), axis=1) + 1).astype(float)
    Ym = Y.copy()
    Ym[rng.random(Y.shape) < 0.4] = np.nan
    tree = LabelRankingTree(ccp_alpha=0.0).fit(X[:300], Ym[:300])
    assert tree.score(X[300:], Y[300:]) > 0.7
    assert np.all(np.isfinite(tree.node_theta_))


@pytest.mark.parametrize("drop_label", [False, True])
def test_incomplete_node_models_match_the_shared_estimators(rng, drop_label):
    """Nodes seeing every label (fitted in one batch) and nodes missing one (one by one)."""
    X = rng.random((120, 2))
    R = random_rankings(rng, 120, 5, p_missing=0.4)
    if drop_label:  # label 4 never occurs where x0 <= 0.5: nodes there have 4 labels
        low = X[:, 0] <= 0.5
        keep = R.present & ~(low[:, None] & (np.arange(5) == 4))
        key = np.where(keep, R.ranks, 99)
        R = Rankings(np.where(keep, np.argsort(np.argsort(key, axis=1), axis=1), -1))
    tree = LabelRankingTree(ccp_alpha=0.0, max_depth=3).fit(X, R)
    checked = set()
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
        checked.add(labs.size)
    assert 5 in checked  # the batch
    assert not drop_label or 4 in checked  # one by one


def _leaves_below(tree, node):
    stack, out = [node], []
    while stack:
        t = stack.pop()
        if tree.feature_[t] < 0:
            out.append(t)
        else:
            stack += [tree.children_left_[t], tree.children_right_[t]]
    return out


@pytest.mark.parametrize("criterion", [0, 1])
@pytest.mark.parametrize("p_missing", [0.0, 0.4])
def test_feature_order_only_decides_exact_ties(criterion, p_missing):
    """Under every feature order the kernels find a split of the same criterion, and it is the
    first split of that criterion in the order (features in ``order``, thresholds ascending):
    the order changes only which of exactly tied splits wins."""
    rng = np.random.default_rng(5)
    X, R = _tied_data(rng, 24, 2, 3, p_missing)
    X = np.hstack([X, X])  # duplicated features: every split ties with its twin
    rows = np.arange(24, dtype=np.int64)
    cands = _candidates_reference(X, R, rows, criterion=criterion)
    best = max(q for q, _, _ in cands)
    tied = [(f, t) for q, f, t in cands if q > best - 1e-7]
    assert len({f for f, _ in tied}) >= 2  # the data do have ties between features
    scores, winners = [], set()
    for perm in itertools.permutations(range(4)):
        s, f, t = _kernel(X, R, rows, criterion=criterion, order=perm)
        first = next((g, u) for g in perm for (h, u) in tied if h == g)
        assert (f, t) == (first[0], pytest.approx(first[1]))
        scores.append(s)
        winners.add(f)
    assert max(scores) == min(scores)  # bitwise the same criterion
    assert scores[0] == pytest.approx(best, abs=1e-4)
    assert len(winners) >= 2


def test_random_state_reproducible_and_changes_only_ties(rng):
    """Same seed, same tree; other seeds give other trees on tie-heavy data, with the same
    root criterion, the same training fit of every row's leaf (all leaves pure) and the
    trees differing only where splits tie."""
    X = np.round(rng.random((120, 5)), 1)
    X[:, 4] = X[:, 1]  # exact ties between features 1 and 4 at every node
    R = random_rankings(rng, 120, 4)
    trees = [LabelRankingTree(ccp_alpha=0.0, random_state=s).fit(X, R) for s in (0, 0, 1, 2, 3)]
    a, b = trees[0], trees[1]
    for name in ("feature_", "threshold_", "children_left_", "leaf_ranking_", "node_theta_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    rs = np.random.RandomState(7)
    c = LabelRankingTree(ccp_alpha=0.0, random_state=rs).fit(X, R)
    d = LabelRankingTree(ccp_alpha=0.0, random_state=np.random.RandomState(7)).fit(X, R)
    np.testing.assert_array_equal(c.feature_, d.feature_)
    # the feature orders differ: the trees differ, but only through tied choices
    assert any(not np.array_equal(a.feature_, t.feature_) for t in trees[2:])
    feats = np.concatenate([t.feature_ for t in trees])
    assert {1, 4} <= set(feats.tolist())  # the duplicated feature wins some ties
    ref = _best_split_reference(X, R, np.arange(120, dtype=np.int64), criterion=1)[0]
    for t in trees:
        f, thr = t.feature_[0], t.threshold_[0]
        left = X[:, f] <= thr
        q = (
            left.sum() * _value(_side_theta_reference(R[np.flatnonzero(left)]), 1)
            + (~left).sum() * _value(_side_theta_reference(R[np.flatnonzero(~left)]), 1)
        ) / 120
        assert q == pytest.approx(ref, abs=1e-4)  # every root split is an optimal one


def test_impure_side_at_the_cap_is_not_pure():
    """A side whose spread reaches ``theta_max`` is still impure: ``u = 1/(1 + theta_max)``,
    so a split into two pure sides beats one with a nearly pure side, whatever the order."""
    cap = 2.0  # g_2(2) = 1/(1 + e^2) = 0.119: one reversed row in ten is at the cap
    assert _nb_split_score(1, cap, 5, np.inf, 5, np.inf) == 0.0
    assert _nb_split_score(1, cap, 5, np.inf, 5, cap) == pytest.approx(-5 / 3)
    assert _nb_split_score(0, cap, 5, np.inf, 5, 1.0) == pytest.approx(15.0)  # capped
    Y = np.array([[1, 2]] * 10 + [[2, 1]] * 9 + [[1, 2]])
    x0 = np.r_[np.zeros(10), np.ones(10)]  # 10 | 9 reversed + 1: mean 0.1, at the cap
    x1 = np.r_[np.zeros(10), np.ones(9), 0.0]  # 11 | 9: both pure
    X = np.column_stack([x0, x1])
    for seed in range(6):
        tree = LabelRankingTree(ccp_alpha=0.0, theta_max=cap, random_state=seed).fit(X, Y)
        assert tree.feature_[0] == 1 and tree.n_leaves_ == 2


@pytest.mark.parametrize("p_missing", [0.0, 0.3])
def test_min_impurity_decrease_stops_where_no_split_improves(p_missing):
    """Default: every split lowers the size-weighted impurity, and an impure leaf that
    could be split is one whose best split would raise it; ``None`` splits those too."""
    stopped = extra_leaves = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        X = np.round(rng.random((60, 2)), 1)
        R = random_rankings(rng, 60, 4, p_missing=p_missing)
        tree = LabelRankingTree(ccp_alpha=0.0, random_state=0).fit(X, R)
        paper = LabelRankingTree(ccp_alpha=0.0, random_state=0, min_impurity_decrease=None).fit(
            X, R
        )
        extra_leaves += paper.n_leaves_ - tree.n_leaves_
        leaf_of = tree.apply(X)
        for node in range(tree.node_count_):
            rows = np.flatnonzero(np.isin(leaf_of, _leaves_below(tree, node)))
            cands = _candidates_reference(X, R, rows, criterion=1)
            if not cands:
                continue
            gain = max(q for q, _, _ in cands) - _value(_side_theta_reference(R[rows]), 1)
            if tree.feature_[node] >= 0:
                assert gain > -1e-6
            elif not _pure(R[rows]):  # an impure leaf with a valid split
                assert gain < 1e-6
                stopped += 1
    assert stopped > 0 and extra_leaves > 0


# --------------------------------------------------------------------------------------------
# cost-complexity pruning (ccp_alpha)
# --------------------------------------------------------------------------------------------
def _noise_data(seed, n=500, m=6):
    """Rankings from one Mallows model, features unrelated to them (codes of any scale)."""
    rng = np.random.default_rng(seed)
    R = sample_mallows(np.arange(m), 0.3, n, random_state=seed)
    return rng.random((n, 4)) * [1.0, 10.0, 100.0, 1000.0], R


def test_default_tree_does_not_grow_one_leaf_per_row_on_noise():
    X, R = _noise_data(0)
    full = LabelRankingTree(ccp_alpha=0.0, random_state=0).fit(X, R)
    tree = LabelRankingTree(random_state=0).fit(X, R)
    assert full.n_leaves_ > X.shape[0] / 2  # grown fully: about one leaf per row
    assert tree.n_leaves_ <= 3
    best = max(tree.cv_scores_, key=lambda a: (tree.cv_scores_[a], a))
    assert tree.ccp_alpha_ == best > 0
    assert set(tree.cv_scores_) == {0.0, *CCP_ALPHA_GRID}
    Xt, Rt = _noise_data(1)
    consensus = ConsensusLabelRanker().fit(X, R).score(Xt, Rt)
    assert tree.score(Xt, Rt) >= consensus - 0.01
    assert tree.score(Xt, Rt) > full.score(Xt, Rt) + 0.1


def test_default_tree_keeps_a_real_split():
    X = np.repeat(np.linspace(0.0, 1.0, 30)[:, None], 2, axis=0)
    Y = np.where(X < 0.5, [[1, 2, 3]], [[3, 1, 2]])
    tree = LabelRankingTree(random_state=0).fit(X, Y)
    assert tree.n_leaves_ == 2
    assert tree.score(X, Y) == 1.0


def test_auto_pruning_is_reproducible_and_skipped_on_tiny_sets(rng):
    X, R = _noise_data(3, n=120)
    a = LabelRankingTree(random_state=5).fit(X, R)
    b = LabelRankingTree(random_state=5).fit(X, R)
    assert a.ccp_alpha_ == b.ccp_alpha_ and a.cv_scores_ == b.cv_scores_
    np.testing.assert_array_equal(a.feature_, b.feature_)
    tiny = LabelRankingTree(cv=5).fit(X[:9], R[:9])  # fewer than 2 * cv rows
    assert tiny.ccp_alpha_ == 0.0
    full = LabelRankingTree(ccp_alpha=0.0).fit(X[:9], R[:9])
    assert tiny.n_leaves_ == full.n_leaves_


def _subtree_costs(left, right, risk, t):
    """Every pruned subtree rooted at t as (sum of leaf risks, number of leaves) (brute force)."""
    options = [(risk[t], 1)]
    if left[t] >= 0:
        for rl, nl in _subtree_costs(left, right, risk, left[t]):
            for rr, nr in _subtree_costs(left, right, risk, right[t]):
                options.append((rl + rr, nl + nr))
    return options


@pytest.mark.parametrize("p_missing", [0.0, 0.3])
def test_pruning_finds_the_cheapest_subtree(rng, p_missing):
    X = rng.random((40, 2))
    R = random_rankings(rng, 40, 4, p_missing=p_missing)
    full = LabelRankingTree(ccp_alpha=0.0, max_depth=4, random_state=0).fit(X, R)
    risk = full._node_risk(X, R)
    options = _subtree_costs(full.children_left_, full.children_right_, risk, 0)
    assert len(options) > 10
    for alpha in (0.0, 1e-3, 0.01, 0.03, 0.1, 1.0):
        rep = np.empty(full.node_count_, dtype=np.intp)
        n_leaves = _nb_prune(
            full.children_left_, full.children_right_, full.parent_, risk, alpha, rep
        )
        kept = np.flatnonzero(rep == np.arange(full.node_count_))
        leaves = [
            t
            for t in kept
            if full.children_left_[t] < 0 or rep[full.children_left_[t]] != full.children_left_[t]
        ]
        assert len(leaves) == n_leaves
        cost = risk[leaves].sum() + alpha * n_leaves
        assert cost == pytest.approx(min(r + alpha * k for r, k in options), abs=1e-12)
        pruned = LabelRankingTree(ccp_alpha=alpha, max_depth=4, random_state=0).fit(X, R)
        if alpha > 0:
            assert pruned.n_leaves_ == n_leaves
            # the pruned tree predicts what its collapsed ancestor predicted in the full tree
            Xq = rng.random((30, 2))
            np.testing.assert_array_equal(
                pruned.predict(Xq) - 1, full.leaf_ranking_[rep[full.apply(Xq)]]
            )
            assert pruned.node_count_ == 2 * pruned.n_leaves_ - 1
            inner = pruned.feature_ >= 0
            for t in np.flatnonzero(inner):
                assert pruned.parent_[pruned.children_left_[t]] == t
                assert pruned.parent_[pruned.children_right_[t]] == t
            assert (pruned.children_left_[~inner] == -1).all()
            assert (pruned.threshold_[~inner] == -2).all()


def test_node_risk_is_the_share_of_discordant_pairs(rng):
    X = rng.random((60, 2))
    R = random_rankings(rng, 60, 5, p_missing=0.3, min_length=2)
    tree = LabelRankingTree(ccp_alpha=0.0, max_depth=3, random_state=0).fit(X, R)
    risk = tree._node_risk(X, R)
    pairs = R.lengths * (R.lengths - 1) / 2
    root = kendall_distances(R, tree.leaf_ranking_[0]) / pairs
    assert risk[0] == pytest.approx(root.mean())
    leaves = tree.feature_ < 0
    assert risk[leaves].sum() == pytest.approx((1 - tree.score(X, R)) / 2)
