"""The base of the feature-map ordinal clusterers (rankclust.ordinal._base)."""

import numpy as np
import pytest

from rankclust.ordinal import CPCMMC, CPMMC, M2SORC, SMMCPC, WSVORC
from rankclust.ordinal._base import FeatureMapClusterer, assign_levels

FAST = {
    CPMMC: dict(n_init=1, max_iter=3),
    CPCMMC: dict(n_init=1, max_iter=3),
    WSVORC: dict(n_init=1, max_iter=3),
    SMMCPC: dict(n_init=1, max_iter=2, inner_iter=5),
    M2SORC: dict(n_init=1, max_iter=2),
}


@pytest.fixture(scope="module")
def X():
    rng = np.random.RandomState(0)
    return np.vstack([rng.normal(c, 1.0, size=(15, 2)) for c in (-3, 0, 3)])


def test_assign_levels():
    np.testing.assert_array_equal(
        assign_levels(np.array([-1.0, 0.0, 0.5, 2.0]), np.array([0.0, 1.0])), [0, 1, 1, 2]
    )


@pytest.mark.parametrize("cls", list(FAST))
def test_prologue_and_predict_shared(cls, X):
    assert issubclass(cls, FeatureMapClusterer)
    est = cls(3, n_components=10, random_state=0, **FAST[cls]).fit(X)
    Phi = est.feature_map_.transform(X)
    if cls is M2SORC:  # M2SORC works on the raw mapped features
        assert not hasattr(est, "feature_mean_")
    else:
        np.testing.assert_allclose(est.feature_mean_, Phi.mean(0))
        Phi = Phi - est.feature_mean_
    np.testing.assert_allclose(est._features(X), Phi)
    if est.coef_.ndim == 2:  # multiclass: argmax of the scores
        expect = (Phi @ est.coef_.T).argmax(1)
    else:  # ordinal: interval of the projection between the thresholds
        expect = assign_levels(Phi @ est.coef_, est.thresholds_)
        np.testing.assert_allclose(
            est.decision_function(X), (Phi @ est.coef_)[:, None] - est.thresholds_[None]
        )
    np.testing.assert_array_equal(est.predict(X), expect)


@pytest.mark.parametrize("cls", list(FAST))
def test_prologue_errors(cls, X):
    with pytest.raises(
        ValueError, match="n_clusters=50 is larger than the number of samples n=45"
    ):
        cls(50).fit(X)
    name, kw = (
        ("pairs", {"pairs": [[0, 0]]}) if cls is M2SORC else ("must_link", {"must_link": [[0, 0]]})
    )
    with pytest.raises(ValueError, match=name):
        cls(3, n_components=10, **FAST[cls]).fit(X, **kw)
