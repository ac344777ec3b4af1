"""Tests of the shared label-ranking boundary and the scikit-learn API contract."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from rankclust import Rankings
from rankclust.label_ranking import (
    ConsensusLabelRanker,
    ConstraintClassification,
    IBLRMallows,
    IBLRPlackettLuce,
    LabelRankingTree,
    PairwiseLabelRanker,
)
from rankclust.label_ranking._base import (
    dudani_weights,
    positions_to_ranks,
    validate_fit_data,
)
from rankclust.metrics import kendall_tau

ESTIMATORS = [
    IBLRMallows(n_neighbors=3),
    IBLRMallows(),
    IBLRPlackettLuce(n_neighbors=3),
    LabelRankingTree(),
    ConstraintClassification(max_epochs=5, random_state=0),
    PairwiseLabelRanker(),
    ConsensusLabelRanker(),
]


# Every check of scikit-learn's suite applies and passes; nothing is skipped. (The generic
# checks pass a one-column 2-d y of small integers, which reads as rankings of one label with
# 0 = missing; the label-ranking behaviour itself is tested in the module tests.)
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda est: {})
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_validate_fit_data_errors():
    est = ConsensusLabelRanker()
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="2-d array of 1-based ranks"):
        validate_fit_data(est, X, [1, 2, 3])
    with pytest.raises(ValueError, match="3 rows but Y has 2"):
        validate_fit_data(est, X, [[1, 2], [2, 1]])
    with pytest.raises(ValueError, match="row 1 has tied items"):
        validate_fit_data(est, X, [[1, 2], [1, 1], [2, 1]])
    top = Rankings([[0, 1], [1, 0], [0, -1]], kind="top")
    with pytest.raises(ValueError, match="kind='top'"):
        validate_fit_data(est, X, top)
    with pytest.raises(ValueError, match="Unknown label type"):
        validate_fit_data(est, X, np.array([["a", "b"]] * 3, dtype=object))
    with pytest.raises(ValueError, match="target y is None"):
        validate_fit_data(est, X, None)
    _, R = validate_fit_data(est, X, [[1, 2], [0, 1], [np.nan, 1]])
    assert R.lengths.tolist() == [2, 1, 1]
    assert est.n_features_in_ == 2


def test_positions_to_ranks_and_dudani():
    assert positions_to_ranks(np.array([[2, 0, 1]])).tolist() == [[3, 1, 2]]
    w = dudani_weights(np.array([[0.0, 1.0, 3.0], [2.0, 2.0, 2.0]]))
    np.testing.assert_allclose(w, [[1.0, 2 / 3, 0.0], [1.0, 1.0, 1.0]])


def test_score_is_mean_kendall_tau(rng):
    X = rng.random((40, 3))
    Y = np.argsort(np.argsort(rng.random((40, 4)), axis=1), axis=1) + 1
    model = LabelRankingTree().fit(X, Y)
    Xt = rng.random((10, 3))
    Yt = np.argsort(np.argsort(rng.random((10, 4)), axis=1), axis=1) + 1
    assert model.score(Xt, Yt) == pytest.approx(kendall_tau(Yt, model.predict(Xt)))


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_missing_labels_give_complete_rankings(est, rng):
    X = rng.random((60, 3))
    ranks = np.argsort(np.argsort(X @ rng.normal(size=(3, 5)), axis=1), axis=1) + 1.0
    ranks[rng.random(ranks.shape) < 0.4] = np.nan
    pred = est.fit(X, ranks).predict(rng.random((7, 3)))
    assert pred.dtype == np.int64
    assert pred.shape == (7, 5)
    assert (np.sort(pred, axis=1) == np.arange(1, 6)).all()
    assert est.n_items_ == 5
