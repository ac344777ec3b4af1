"""Tests of the baseline label rankers: CC, RPC and the consensus (1-rank) baseline."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from rankclust.label_ranking import (
    CC_ALPHA_GRID,
    ConsensusLabelRanker,
    ConstraintClassification,
    PairwiseLabelRanker,
)
from rankclust.label_ranking.baselines import _cc_epoch, _nb_cc_epoch, _order_by_scores
from rankclust.models.mallows import estimate_center, sample_mallows
from tests.conftest import random_rankings


def _linear_data(rng, n=150, d=3, m=4):
    X = rng.random((n, d))
    W = rng.normal(size=(d, m))
    util = X @ W
    return X, np.argsort(np.argsort(-util, axis=1), axis=1) + 1


def test_order_by_scores_ties_to_lower_index():
    pos = _order_by_scores(np.array([[1.0, 3.0, 3.0, 0.0]]))
    np.testing.assert_array_equal(pos, [[2, 0, 1, 3]])


def test_cc_kernel_matches_python_reference(rng):
    X, Y = _linear_data(rng, n=40)
    Z = np.hstack([X, np.ones((40, 1))])
    ranks = (Y - 1).astype(np.int64)
    ranks[rng.random(ranks.shape) < 0.3] = -1
    perm = rng.permutation(40).astype(np.int64)
    out = []
    for fn in (_cc_epoch, _nb_cc_epoch):
        W = np.zeros((4, 4))
        W_sum = np.zeros((4, 4))
        counts = np.zeros((40, 4, 4), dtype=np.int32)
        mistakes = [fn(Z, ranks, perm, 3, W, W_sum, counts) for _ in range(3)]
        out.append((mistakes, W, W_sum, counts))
    assert out[0][0] == out[1][0]
    for a, b in zip(out[0][1:], out[1][1:], strict=True):
        np.testing.assert_array_equal(a, b)
    assert out[1][3].max() <= 3  # the alpha bound


def test_cc_separable_data_is_learned_exactly(rng):
    X, Y = _linear_data(rng)
    cc = ConstraintClassification(random_state=0, max_epochs=1000, alpha=10**6, averaged=False)
    cc.fit(X, Y)
    assert cc.n_iter_ < 1000  # an epoch without mistakes was reached
    assert cc.score(X, Y) == 1.0
    np.testing.assert_array_equal(cc.predict(X), _order_by_scores(cc.decision_function(X)) + 1)


def test_cc_averaged_and_reproducible(rng):
    X, Y = _linear_data(rng)
    a = ConstraintClassification(random_state=3, max_epochs=5).fit(X, Y)
    b = ConstraintClassification(random_state=3, max_epochs=5).fit(X, Y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    avg = ConstraintClassification(random_state=3, max_epochs=5, averaged=True).fit(X, Y)
    assert avg.score(X, Y) > 0.8
    # the average of the iterates, recomputed from the last-vector run's updates
    last = ConstraintClassification(random_state=3, max_epochs=5, averaged=False).fit(X, Y)
    assert not np.array_equal(avg.coef_, last.coef_)


def test_rpc_uses_observed_pairs_and_votes(rng):
    X, Y = _linear_data(rng, m=3)
    Ym = Y.astype(float)
    Ym[:, 2] = np.nan  # label 2 never observed: its pairs get probability 1/2
    with pytest.warns(UserWarning, match="appear in no training ranking"):
        rpc = PairwiseLabelRanker().fit(X, Ym)
    assert rpc.estimators_[0, 2] == 0.5 and rpc.estimators_[1, 2] == 0.5
    P = rpc.predict_pairwise(X)
    np.testing.assert_allclose(P + P.transpose(0, 2, 1), np.broadcast_to(1 - np.eye(3), P.shape))
    lr = LogisticRegression(C=1.0, solver="liblinear").fit(
        rpc.scaler_.transform(X), Y[:, 0] < Y[:, 1]
    )
    np.testing.assert_allclose(P[:, 0, 1], lr.predict_proba(rpc.scaler_.transform(X))[:, 1])
    # the unseen label goes last; the others keep the order of their votes
    votes = P.sum(axis=2)
    votes[:, 2] = -np.inf
    np.testing.assert_array_equal(rpc.predict(X), _order_by_scores(votes) + 1)
    assert (rpc.predict(X)[:, 2] == 3).all()


def test_rpc_constant_pair_and_other_base(rng):
    X = rng.random((30, 2))
    Y = np.where(X[:, :1] < 0.5, [[1, 2, 3]], [[1, 3, 2]])  # label 0 always first
    rpc = PairwiseLabelRanker(estimator=DecisionTreeClassifier(random_state=0)).fit(X, Y)
    assert rpc.estimators_[0, 1] == 1.0 and rpc.estimators_[0, 2] == 1.0
    assert rpc.score(X, Y) == 1.0


def test_consensus_equals_estimate_center(rng):
    R = random_rankings(rng, 50, 5, p_missing=0.3)
    X = rng.random((50, 2))
    model = ConsensusLabelRanker(center_method="borda").fit(X, R)
    np.testing.assert_array_equal(model.center_, estimate_center(R, method="borda"))
    pred = model.predict(rng.random((3, 2)))
    np.testing.assert_array_equal(pred, np.tile(model.center_ + 1, (3, 1)))


@pytest.mark.parametrize("est", [ConstraintClassification(), PairwiseLabelRanker()])
def test_rankings_without_pairs_are_harmless(est, rng):
    X = rng.random((10, 2))
    Y = np.zeros((10, 3))
    Y[:, 0] = 1  # every ranking has one label: no preference at all
    pred = est.fit(X, Y).predict(X)
    np.testing.assert_array_equal(pred, np.tile([1, 2, 3], (10, 1)))


def test_cc_auto_alpha_is_the_best_training_fit(rng):
    X, Y = _linear_data(rng, n=120)
    cc = ConstraintClassification(random_state=0).fit(X, Y)
    assert set(cc.train_scores_) == set(CC_ALPHA_GRID)
    best = max(cc.train_scores_, key=lambda a: (cc.train_scores_[a], a))
    assert cc.alpha_ == best
    assert cc.score(X, Y) == pytest.approx(cc.train_scores_[best])
    fixed = ConstraintClassification(alpha=500, random_state=0).fit(X, Y)
    assert fixed.alpha_ == 500 and fixed.train_scores_ is None


def test_cc_default_tolerates_noise():
    """Features unrelated to noisy rankings: the cap of 500 never binds and loses."""
    rng = np.random.default_rng(0)
    R = sample_mallows(np.arange(6), 0.3, 1000, random_state=0)
    X = rng.random((1000, 4)) * [1.0, 10.0, 100.0, 1000.0]
    train, test = slice(0, 700), slice(700, None)
    default = ConstraintClassification(random_state=0).fit(X[train], R[train])
    paper = ConstraintClassification(alpha=500, random_state=0).fit(X[train], R[train])
    consensus = ConsensusLabelRanker().fit(X[train], R[train]).score(X[test], R[test])
    assert default.alpha_ < 500
    assert default.score(X[test], R[test]) > paper.score(X[test], R[test]) + 0.01
    assert default.score(X[test], R[test]) > consensus - 0.015
