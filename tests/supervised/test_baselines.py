"""Tests of OneRank, FeatureKMeansRanking and NaiveKMeans (rankclust.supervised.baselines)."""

import numpy as np
import pytest
from sklearn.base import clone

from rankclust import Rankings
from rankclust.supervised import FeatureKMeansRanking, NaiveKMeans, OneRank
from rankclust.supervised.baselines import rank_position_features
from tests.supervised._helpers import ORDERS, blobs, recovered

TRUE = {tuple(o) for o in ORDERS}


def test_one_rank_is_borda_of_all():
    X = np.zeros((3, 1))
    est = OneRank().fit(X, [[1, 2, 3], [1, 3, 2], [2, 1, 3]])
    np.testing.assert_array_equal(est.central_rankings_.ranks, [[0, 1, 2]])
    np.testing.assert_array_equal(est.predict([[5.0], [7.0]]), [0, 0])
    np.testing.assert_array_equal(est.predict_ranking([[1.0]]), [[1, 2, 3]])
    assert est.n_clusters_ == 1 and est.n_items_ == 3


@pytest.mark.parametrize("model", ["mallows", "plackett_luce"])
@pytest.mark.parametrize("p_missing", [0.0, 0.5])
def test_feature_kmeans_recovers_blob_rankings(model, p_missing):
    X, Y, y = blobs(p_missing=p_missing)
    est = FeatureKMeansRanking(3, ranking_model=model, random_state=0).fit(X, Y)
    assert recovered(est) == TRUE
    # predictions: every training point gets its blob's ranking
    pred = est.predict_ranking(X) - 1
    np.testing.assert_array_equal(pred, np.argsort(ORDERS[y], axis=1))
    np.testing.assert_array_equal(est.labels_, est.predict(X))


def test_feature_kmeans_empty_of_information_falls_back():
    X = np.array([[0.0], [0.1], [9.0], [9.1]])
    Y = Rankings([[0, 1, 2], [0, 1, 2], [0, -1, -1], [-1, 0, -1]])
    est = FeatureKMeansRanking(2, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(est.central_rankings_.ranks, [[0, 1, 2], [0, 1, 2]])


def test_rank_position_features():
    ranks = np.array([[1, 0, 2, 3], [-1, 0, 1, -1]])
    np.testing.assert_array_equal(rank_position_features(ranks), [[2, 1, 3, 4], [2, 1, 2, 2]])
    resc = rank_position_features(ranks, "rescaled")
    np.testing.assert_allclose(resc[1], [2, 1, 4, 2])


def test_naive_kmeans_recovers_and_uses_feature_part_for_prediction():
    X, Y, _y = blobs()
    est = NaiveKMeans(3, random_state=0).fit(X, Y)
    assert recovered(est) == TRUE
    assert est.cluster_centers_.shape == (3, 2 + 5)
    # the feature rule: nearest centroid in the first d coordinates
    c = est.cluster_centers_[:, :2]
    Xt = est.scaler_.transform(X)
    expect = np.argmin(((Xt[:, None, :] - c[None]) ** 2).sum(-1), axis=1)
    np.testing.assert_array_equal(est.labels_, expect)


def test_naive_kmeans_central_ranking_sorts_mean_positions():
    X = np.zeros((4, 1))
    Y = [[1, 2, 3], [2, 1, 3], [1, 3, 2], [1, 2, 3]]
    est = NaiveKMeans(1, random_state=0).fit(X, Y)
    # mean positions 1.25, 2, 2.75
    np.testing.assert_array_equal(est.central_rankings_.ranks, [[0, 1, 2]])


@pytest.mark.parametrize("Est", [OneRank, FeatureKMeansRanking, NaiveKMeans])
def test_input_validation_and_clone(Est):
    est = Est() if Est is OneRank else Est(n_clusters=2, random_state=0)
    clone(est)
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="rows"):
        est.fit(X, [[1, 2], [2, 1]])
    with pytest.raises(ValueError):
        est.fit(np.full((2, 2), np.nan), [[1, 2], [2, 1]])
    est.fit(np.arange(6.0).reshape(3, 2), [[1, 2], [2, 1], [1, 2]])
    with pytest.raises(ValueError, match="features"):
        est.predict(np.zeros((1, 3)))


def test_too_many_clusters():
    with pytest.raises(ValueError, match="n_clusters"):
        FeatureKMeansRanking(5).fit(np.zeros((3, 1)), [[1, 2]] * 3)


def test_bad_parameter():
    with pytest.raises(ValueError, match="ranking_model"):
        FeatureKMeansRanking(ranking_model="x").fit(np.zeros((3, 1)), [[1, 2]] * 3)


def test_score_is_kendall_tau():
    X, Y, _ = blobs()
    est = FeatureKMeansRanking(3, random_state=0).fit(X, Y)
    assert est.score(X, Y) == pytest.approx(1.0)
