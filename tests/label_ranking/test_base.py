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
    _is_checked_matrix,
    dudani_weights,
    positions_to_ranks,
    validate_fit_data,
    validate_predict_data,
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


def _inputs(rng):
    """Inputs for the validation fast path: plain float64 matrices and what must miss it."""
    X = rng.normal(size=(6, 3))
    nan, inf, huge = X.copy(), X.copy(), np.full((6, 3), 1e308)
    nan[2, 1], inf[0, 0] = np.nan, np.inf
    return {
        "plain": (X, True),
        "fortran": (np.asfortranarray(X), True),
        "view": (X[::2], True),
        "float32": (X.astype(np.float32), False),
        "int": (np.arange(18).reshape(6, 3), False),
        "list": (X.tolist(), False),
        "nan": (nan, False),
        "inf": (inf, False),
        "overflowing sum": (huge, True),  # finite (no overflow warning from the check)
        "1-d": (X[:, 0].copy(), False),
        "3-d": (X[:, :, None].copy(), False),
        "no rows": (X[:0], False),
        "no columns": (X[:, :0], False),
        "two columns": (X[:, :2].copy(), False),
    }


def _outcome(call):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = call()
        except Exception as exc:  # compared by type and message
            return ("error", type(exc), str(exc)), [str(w.message) for w in caught]
    return ("ok", out[0] if isinstance(out, tuple) else out), [str(w.message) for w in caught]


@pytest.mark.parametrize("fitted_with_names", [False, True])
def test_validation_fast_path_returns_what_sklearn_returns(rng, fitted_with_names, monkeypatch):
    # validate_fit_data / validate_predict_data skip scikit-learn's validate_data for a
    # plain finite float64 matrix: same arrays, errors, warnings and attributes either way
    import rankclust.label_ranking._base as base

    pd = pytest.importorskip("pandas")
    X_fit = rng.normal(size=(6, 3))
    if fitted_with_names:
        X_fit = pd.DataFrame(X_fit, columns=["a", "b", "c"])
    for name, (X, fast) in _inputs(rng).items():
        expect_fast = fast and not fitted_with_names
        assert _is_checked_matrix(IBLRMallows(), X, 3) is fast, name
        outcomes = []
        for use_fast_path in (True, False):
            if not use_fast_path:
                monkeypatch.setattr(base, "_is_checked_matrix", lambda *a, **k: False)
            model = IBLRMallows(n_neighbors=2).fit(X_fit, np.tile([1, 2, 3], (6, 1)))
            predicted = _outcome(lambda m=model, X=X: validate_predict_data(m, X))
            refit = IBLRMallows(n_neighbors=2).fit(X_fit, np.tile([1, 2, 3], (6, 1)))
            Yn = np.tile([1, 2, 3], (len(X), 1))
            fitted = _outcome(lambda m=refit, X=X, Yn=Yn: validate_fit_data(m, X, Yn))
            state = (getattr(refit, "n_features_in_", None), hasattr(refit, "feature_names_in_"))
            outcomes.append((predicted, fitted, state))
            monkeypatch.undo()
        (p_fast, f_fast, s_fast), (p_full, f_full, s_full) = outcomes
        assert s_fast == s_full, name
        for got, want in ((p_fast, p_full), (f_fast, f_full)):
            assert got[1] == want[1], name  # warnings
            assert got[0][0] == want[0][0], name  # "ok" or "error"
            if want[0][0] == "error":
                assert got[0] == want[0], name
            else:
                np.testing.assert_array_equal(got[0][1], want[0][1], err_msg=name)
                assert got[0][1].dtype == want[0][1].dtype, name
        if expect_fast:
            assert p_fast[0][1] is X, name  # the fast path returns the input itself
