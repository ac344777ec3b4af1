"""Tests for rankclust.ordinal._features."""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import rbf_kernel

from rankclust.ordinal._features import FeatureMap, resolve_gamma


def test_full_nystroem_is_the_empirical_kernel_map(rng):
    X = rng.normal(size=(30, 3))
    fm = FeatureMap("rbf", 0.3, 100, np.random.RandomState(0))
    Phi = fm.fit_transform(X)
    np.testing.assert_allclose(Phi @ Phi.T, rbf_kernel(X, gamma=0.3), atol=1e-6)
    Z = rng.normal(size=(5, 3))
    np.testing.assert_allclose(fm.transform(Z) @ Phi.T, rbf_kernel(Z, X, gamma=0.3), atol=1e-6)


def test_linear_and_scale():
    X = np.arange(6.0).reshape(3, 2)
    fm = FeatureMap("linear", "scale", 10, np.random.RandomState(0))
    np.testing.assert_array_equal(fm.fit_transform(X), X)
    assert resolve_gamma("scale", X) == 1 / (2 * X.var())
    assert resolve_gamma(0.5, X) == 0.5


def test_scale_gamma_map_is_invariant_to_power_of_two_rescaling(rng):
    X = rng.normal(size=(25, 3))
    a = FeatureMap("rbf", "scale", 10, np.random.RandomState(0))
    b = FeatureMap("rbf", "scale", 10, np.random.RandomState(0))
    Pa = a.fit_transform(X)
    Pb = b.fit_transform(X * 2.0**900)
    np.testing.assert_array_equal(Pa, Pb)  # exact: dividing by a power of two is exact
    c = FeatureMap("rbf", "scale", 10, np.random.RandomState(0))
    np.testing.assert_allclose(Pa, c.fit_transform(X * 1e300), atol=1e-12)
    np.testing.assert_allclose(a.transform(X[:4]), c.transform(X[:4] * 1e300), atol=1e-12)
    assert a.scale_ == 2.0 ** np.floor(np.log2(np.abs(X).max()))


def test_overflowing_features_are_refused_clearly():
    import pytest

    X = np.array([[1e300, 0.0], [0.0, 1e300], [1.0, 1.0]])
    for kernel, gamma in (("linear", "scale"), ("rbf", 0.5)):
        fm = FeatureMap(kernel, gamma, 10, np.random.RandomState(0))
        with pytest.raises(ValueError, match="overflow"):
            fm.fit_transform(X)
    assert np.all(
        np.isfinite(FeatureMap("rbf", "scale", 10, np.random.RandomState(0)).fit_transform(X))
    )
