"""Tests for rankclust.metrics: hand-computed values, brute force, identities, errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sklearn.metrics
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from rankclust import Rankings
from rankclust.metrics import (
    adjusted_rand_score,
    amae,
    d_feat,
    d_knh,
    delta_rank,
    kendall_tau,
    kendall_tau_rows,
    label_ranking_loss,
    mae,
    mze,
    normalized_mutual_info_score,
)
from tests.conftest import random_rankings


def all_perms(m: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(m))), dtype=np.int64)


def naive_counts(true_pos, pred_pos):
    """(concordant, discordant) over pairs observed and strictly ordered in both, by a loop."""
    conc = disc = 0
    for u, v in itertools.combinations(range(len(true_pos)), 2):
        tu, tv, pu, pv = true_pos[u], true_pos[v], pred_pos[u], pred_pos[v]
        if min(tu, tv) < 0 or tu == tv or pu == pv:
            continue
        if (tu < tv) == (pu < pv):
            conc += 1
        else:
            disc += 1
    return conc, disc


# --------------------------------------------------------------------------------------------
# kendall_tau and label_ranking_loss
# --------------------------------------------------------------------------------------------
def test_tau_brute_force_over_all_pairs_of_permutations_m4():
    P = all_perms(4)
    A = np.repeat(P, len(P), axis=0)
    B = np.tile(P, (len(P), 1))
    tau = kendall_tau_rows(Rankings(A), Rankings(B))
    for t, a, b in zip(tau, A, B, strict=True):
        conc, disc = naive_counts(a, b)
        assert conc + disc == 6
        assert t == pytest.approx((conc - disc) / 6)
        assert t == pytest.approx(1 - 4 * disc / (4 * 3))  # Cheng et al. (2009), sec. 6.1
    # over the whole group the mean tau is 0 (each pair is concordant half the time)
    assert kendall_tau(Rankings(A), Rankings(B)) == pytest.approx(0.0)


@pytest.mark.parametrize("m", [2, 3, 7, 30])
def test_tau_identity_and_reversal(rng, m):
    R = random_rankings(rng, 20, m)
    rev = Rankings(m - 1 - R.ranks)
    assert kendall_tau(R, R) == 1.0
    assert kendall_tau(R, rev) == -1.0
    np.testing.assert_array_equal(kendall_tau_rows(R, rev), -1.0)
    assert label_ranking_loss(R, R) == 0.0
    assert label_ranking_loss(R, rev) == 1.0


def test_tau_hand_computed_partial_rows():
    Y_true = np.array(
        [
            [1, 2, 3, 4],  # complete, pred swaps 3 and 4: tau = (5 - 1) / 6
            [2, 1, 0, 0],  # labels 0, 1 observed, 1 above 0; pred agrees: 1
            [1, 0, 2, 3],  # labels 0, 2, 3; pred reverses all: -1
            [0, 1, 0, 0],  # one label: left out
            [1, 1, 2, 0],  # (0,1) tied: left out; (0,2), (1,2) concordant: 1
        ],
        dtype=float,
    )
    Y_true[3, 0] = np.nan  # NaN also marks a missing label
    Y_pred = np.array([[1, 2, 4, 3], [4, 3, 2, 1], [4, 1, 3, 2], [1, 2, 3, 4], [1, 2, 3, 4]])
    tau = kendall_tau_rows(Y_true, Y_pred)
    np.testing.assert_allclose(tau, [4 / 6, 1.0, -1.0, np.nan, 1.0])
    assert kendall_tau(Y_true, Y_pred) == pytest.approx((4 / 6 + 1 - 1 + 1) / 4)
    loss = label_ranking_loss(Y_true, Y_pred)
    assert loss == pytest.approx((1 / 6 + 0 + 1 + 0) / 4)


@pytest.mark.parametrize("kind", ["subset", "top"])
def test_tau_partial_brute_force_and_eq7(rng, kind):
    Y = random_rankings(rng, 60, 6, kind=kind, p_missing=0.5)
    pred = random_rankings(rng, 60, 6)
    tau = kendall_tau_rows(Y, pred)
    E = Y.ranks.copy()
    if kind == "top":  # absent items tied at the bottom
        E = np.where(E >= 0, E, Y.n_buckets[:, None])
    for i in range(60):
        conc, disc = naive_counts(E[i], pred.ranks[i])
        if conc + disc == 0:
            assert np.isnan(tau[i])
        else:
            assert tau[i] == pytest.approx((conc - disc) / (conc + disc))
    # eq. (7): c_tau = 1 - 2 loss_LR, also with the observed-pair normalisation and weights
    w = rng.random(60)
    assert kendall_tau(Y, pred, w) == pytest.approx(1 - 2 * label_ranking_loss(Y, pred, w))
    assert kendall_tau(Y, pred) == pytest.approx(np.nanmean(tau))


def test_label_ranking_loss_eq6_complete(rng):
    L = 5
    Y = random_rankings(rng, 40, L)
    pred = random_rankings(rng, 40, L)
    d = np.array([naive_counts(a, b)[1] for a, b in zip(Y.ranks, pred.ranks, strict=True)])
    assert label_ranking_loss(Y, pred) == pytest.approx(np.mean(2 * d / (L * (L - 1))))


def test_weights_equal_expanded_data(rng):
    Y = random_rankings(rng, 15, 5, p_missing=0.3)
    pred = random_rankings(rng, 15, 5)
    counts = rng.integers(0, 4, size=15)
    counts[0] = 2
    Yx = Rankings(np.repeat(Y.ranks, counts, axis=0))
    px = Rankings(np.repeat(pred.ranks, counts, axis=0))
    for f in (kendall_tau, label_ranking_loss):
        assert f(Y, pred, counts) == pytest.approx(f(Yx, px))
        assert f(Y.with_weights(counts), pred) == pytest.approx(f(Yx, px))


def test_all_rows_uninformative_warns_and_returns_nan():
    Y = [[1, 0, 0], [0, 0, 0]]
    pred = [[1, 2, 3], [3, 2, 1]]
    with pytest.warns(UndefinedMetricWarning, match="no row has a comparable pair"):
        assert np.isnan(kendall_tau(Y, pred))
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(label_ranking_loss(Y, pred))
    with pytest.warns(UndefinedMetricWarning):  # zero weight on the only informative row
        assert np.isnan(kendall_tau([[1, 2, 3], [1, 0, 0]], pred, sample_weight=[0, 1]))


def test_tau_errors():
    Y = [[1, 2, 3], [3, 2, 1]]
    with pytest.raises(ValueError, match=r"Y_pred: row 1 is not a complete ranking"):
        kendall_tau(Y, [[1, 2, 3], [1, 2, 0]])
    with pytest.raises(ValueError, match=r"Y_pred: row 0 is not a complete ranking"):
        label_ranking_loss(Y, [[1, 1, 2], [1, 2, 3]])
    with pytest.raises(ValueError, match="Y_pred has 1 rankings, Y_true has 2"):
        kendall_tau(Y, [[1, 2, 3]])
    with pytest.raises(ValueError, match="Y_pred has 4 items, expected 3"):
        kendall_tau(Y, [[1, 2, 3, 4]] * 2)
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(2,\)"):
        kendall_tau(Y, Y, sample_weight=[1.0])
    with pytest.raises(ValueError, match="non-negative"):
        kendall_tau(Y, Y, sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="row 0: negative rank"):
        kendall_tau([[1, -1, 2]], [[1, 2, 3]])


# --------------------------------------------------------------------------------------------
# delta_rank
# --------------------------------------------------------------------------------------------
def test_delta_rank_hand_computed_and_scales():
    Y = [[1, 2, 3, 4], [2, 1, 3, 4], [4, 3, 2, 1], [4, 3, 1, 2], [1, 2, 0, 0]]
    labels = [0, 0, 1, 1, 1]
    centers = [[0, 1, 2, 3], [3, 2, 1, 0]]
    # cluster 0: d = 0, 1 (of 6); cluster 1: d = 0, 1 (of 6) and the partial row: labels 0, 1
    # with 0 above 1, the centre puts 1 above 0: d = 1 of 1 comparable pair
    assert delta_rank(Y, labels, centers, normalize="none") == pytest.approx(
        ((0 + 1) / 2 + (0 + 1 + 1) / 3) / 2
    )
    pairs = ((0 + 1 / 6) / 2 + (0 + 1 / 6 + 1) / 3) / 2
    assert delta_rank(Y, labels, centers) == pytest.approx(pairs)
    assert delta_rank(Y, labels, centers, normalize="tau") == pytest.approx(2 * pairs)
    # the same with centres given as a Rankings
    assert delta_rank(Y, labels, Rankings(centers)) == pytest.approx(pairs)


def test_delta_rank_empty_and_uninformative_clusters_are_skipped():
    Y = [[1, 2, 3], [2, 1, 3], [1, 0, 0]]
    centers = [[0, 1, 2], [2, 1, 0], [0, 2, 1]]
    # cluster 2 empty, cluster 1 holds only a one-label row: average over cluster 0 alone
    assert delta_rank(Y, [0, 0, 1], centers) == pytest.approx((0 + 1 / 3) / 2)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(delta_rank([[1, 0, 0]], [0], centers))


def test_delta_rank_single_cluster_is_label_ranking_loss(rng):
    Y = random_rankings(rng, 30, 5, p_missing=0.3)
    center = rng.permutation(5)
    pred = Rankings(np.tile(center, (30, 1)))
    assert delta_rank(Y, np.zeros(30, int), [center]) == pytest.approx(label_ranking_loss(Y, pred))


def test_delta_rank_brute_force_and_weights(rng):
    Y = random_rankings(rng, 40, 5, p_missing=0.3)
    K = 4
    labels = rng.integers(0, K, size=40)
    centers = np.array([rng.permutation(5) for _ in range(K)])
    per_cluster = []
    for k in range(K):
        vals = []
        for i in np.flatnonzero(labels == k):
            conc, disc = naive_counts(Y.ranks[i], centers[k])
            if conc + disc:
                vals.append(disc / (conc + disc))
        if vals:
            per_cluster.append(np.mean(vals))
    assert delta_rank(Y, labels, centers) == pytest.approx(np.mean(per_cluster))
    counts = rng.integers(1, 4, size=40)
    Yw = Y.with_weights(counts)
    assert delta_rank(Yw, labels, centers) == pytest.approx(
        delta_rank(Yw.expand(), np.repeat(labels, counts), centers)
    )


def test_delta_rank_errors():
    Y = [[1, 2, 3]]
    with pytest.raises(ValueError, match="delta_rank: parameter 'normalize' must be a str among"):
        delta_rank(Y, [0], [[0, 1, 2]], normalize="kendall")
    with pytest.raises(ValueError, match=r"labels must lie in 0\.\.0"):
        delta_rank(Y, [1], [[0, 1, 2]])
    with pytest.raises(ValueError, match=r"labels must have shape \(1,\)"):
        delta_rank(Y, [0, 0], [[0, 1, 2]])
    with pytest.raises(ValueError, match="centers have 4 items, Y has 3"):
        delta_rank(Y, [0], [[0, 1, 2, 3]])
    with pytest.raises(ValueError, match="labels must be integers"):
        delta_rank(Y, [0.5], [[0, 1, 2]])


# --------------------------------------------------------------------------------------------
# d_feat and d_knh
# --------------------------------------------------------------------------------------------
def naive_d_knh(X, labels, k):
    per_cluster = []
    for c in np.unique(labels):
        Xc = X[labels == c]
        if len(Xc) < 2:
            continue
        D = ((Xc[:, None, :] - Xc[None, :, :]) ** 2).sum(-1)
        vals = []
        for i in range(len(Xc)):
            others = np.sort(np.delete(D[i], i))
            vals.append(others[: min(k, len(Xc) - 1)].mean())
        per_cluster.append(np.mean(vals))
    return np.mean(per_cluster)


def test_d_feat_hand_and_brute_force(rng):
    X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [5.0, 5.0]])
    # cluster 7: mean (2/3, 2/3); squared distances 8/9, 20/9, 20/9 -> 48/9; cluster 3: 0
    assert d_feat(X, [7, 7, 7, 3]) == pytest.approx(48 / 9 / 2)
    X = rng.normal(size=(50, 3))
    labels = rng.integers(0, 5, size=50)
    wcss = sum(((X[labels == c] - X[labels == c].mean(0)) ** 2).sum() for c in np.unique(labels))
    assert d_feat(X, labels) == pytest.approx(wcss / len(np.unique(labels)))


def test_d_knh_hand_and_brute_force(rng):
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    # cluster 0 with k=3 uses the 2 other members: (1+9)/2, (1+4)/2, (9+4)/2 -> mean 14/3
    assert d_knh(X, [0, 0, 0, 1]) == pytest.approx(14 / 3)
    assert d_knh(X, [0, 0, 0, 1], k=1) == pytest.approx((1 + 1 + 4) / 3)
    X = rng.normal(size=(60, 2))
    labels = rng.integers(0, 4, size=60)
    for k in (1, 3, 100):
        assert d_knh(X, labels, k=k) == pytest.approx(naive_d_knh(X, labels, k))


def test_d_knh_duplicates_and_singletons():
    X = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [4.0, 5.0]])
    assert d_knh(X, [0, 0, 0, 1], k=2) == 0.0  # each point's neighbours are its copies
    assert d_knh(X, [0, 0, 1, 1]) == pytest.approx((0.0 + 25.0) / 2)
    with pytest.warns(UndefinedMetricWarning, match="singleton"):
        assert np.isnan(d_knh(X, [0, 1, 2, 3]))


def test_feature_measure_errors():
    with pytest.raises(
        ValueError, match=r"d_knh: parameter 'k' must be an int in the range \[1, inf\]"
    ):
        d_knh([[0.0], [1.0]], [0, 0], k=0)
    with pytest.raises(ValueError, match=r"labels must have shape \(2,\)"):
        d_feat([[0.0], [1.0]], [0])
    with pytest.raises(ValueError, match="NaN"):
        d_feat([[np.nan], [1.0]], [0, 0])


# --------------------------------------------------------------------------------------------
# ordinal labels
# --------------------------------------------------------------------------------------------
def test_mze_mae_amae_hand_computed():
    y = [0, 0, 0, 0, 1, 2]
    yhat = [0, 0, 0, 1, 1, 0]
    assert mze(y, yhat) == pytest.approx(2 / 6)
    assert mae(y, yhat) == pytest.approx(3 / 6)
    # per class: MAE_0 = 1/4, MAE_1 = 0, MAE_2 = 2
    assert amae(y, yhat) == pytest.approx((1 / 4 + 0 + 2) / 3)
    assert mze(["a", "b"], ["a", "a"]) == 0.5  # MZE needs no order


def test_amae_equals_mae_on_balanced_data(rng):
    y = np.repeat(np.arange(5), 10)
    yhat = rng.integers(0, 5, size=50)
    assert amae(y, yhat) == pytest.approx(mae(y, yhat))


def test_ordinal_weights_equal_repeated_rows(rng):
    y = rng.integers(0, 4, size=30)
    yhat = rng.integers(0, 4, size=30)
    w = rng.integers(0, 4, size=30)
    w[0] = 1
    for f in (mze, mae, amae):
        assert f(y, yhat, sample_weight=w) == pytest.approx(f(np.repeat(y, w), np.repeat(yhat, w)))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=30))
def test_property_ordinal_bounds(pairs):
    y, yhat = (np.array(x) for x in zip(*pairs, strict=True))
    assert 0.0 <= mze(y, yhat) <= 1.0
    assert mze(y, yhat) <= mae(y, yhat) <= 4 * mze(y, yhat)
    assert amae(y, yhat) <= 4.0
    assert (amae(y, yhat) == 0.0) == (mae(y, yhat) == 0.0) == (mze(y, yhat) == 0.0)


def test_ordinal_errors():
    with pytest.raises(ValueError, match="y_true has 2 labels, y_pred has 3"):
        mze([0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="numeric ordinal labels"):
        mae(["a"], ["b"])
    with pytest.raises(ValueError, match="NaN"):
        amae([0.0, np.nan], [0, 1])
    with pytest.raises(ValueError, match="empty"):
        mae([], [])
    with pytest.raises(ValueError, match="sums to zero"):
        mae([0, 1], [1, 1], sample_weight=[0, 0])
    with pytest.raises(ValueError, match="1-d"):
        mze([[0, 1]], [[0, 1]])


# --------------------------------------------------------------------------------------------
# re-exports
# --------------------------------------------------------------------------------------------
def test_sklearn_reexports_are_the_same_objects():
    assert adjusted_rand_score is sklearn.metrics.adjusted_rand_score
    assert normalized_mutual_info_score is sklearn.metrics.normalized_mutual_info_score


def test_nmi_default_is_xiao_eq12(rng):
    """Xiao et al. (2016) eq. (12): geometric normalisation of the mutual information."""
    truth = rng.integers(0, 3, size=200)
    found = np.where(rng.random(200) < 0.7, truth, rng.integers(0, 4, size=200))
    n = len(truth)
    num = 0.0
    for p in np.unique(found):
        for q in np.unique(truth):
            npq = np.sum((found == p) & (truth == q))
            if npq:
                num += npq * np.log(n * npq / (np.sum(found == p) * np.sum(truth == q)))
    hp = sum(np.sum(found == p) * np.log(np.sum(found == p) / n) for p in np.unique(found))
    hq = sum(np.sum(truth == q) * np.log(np.sum(truth == q) / n) for q in np.unique(truth))
    eq12 = num / np.sqrt(hp * hq)
    assert normalized_mutual_info_score(truth, found, average_method="geometric") == (
        pytest.approx(eq12)
    )
    assert adjusted_rand_score(truth, truth) == 1.0
