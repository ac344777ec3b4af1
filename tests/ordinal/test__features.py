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
