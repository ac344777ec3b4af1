"""tau_x (Emond & Mason 2002) against a brute-force double loop."""

from __future__ import annotations

import numpy as np
import pytest

from rankclust.metrics import kendall_tau_rows, tau_x, tau_x_rows


def brute_tau_x(t, p):
    """Literal definition on the labels ranked (> 0) in both rows."""
    keep = [j for j in range(len(t)) if t[j] > 0 and p[j] > 0]
    k = len(keep)
    if k < 2:
        return np.nan
    total = 0
    for u in keep:
        for v in keep:
            if u != v:
                a = 1 if t[u] <= t[v] else -1
                b = 1 if p[u] <= p[v] else -1
                total += a * b
    return total / (k * (k - 1))


def test_brute_force_random_with_ties_and_missing():
    rng = np.random.default_rng(0)
    T = rng.integers(0, 5, size=(60, 5))
    P = rng.integers(1, 4, size=(60, 5))
    want = np.array([brute_tau_x(t, p) for t, p in zip(T, P, strict=True)])
    np.testing.assert_allclose(tau_x_rows(T, P), want, equal_nan=True)


def test_scikit_lr_doctest_value():
    # scikit-lr's tau_x_score example: 0.1111...
    Y_true = [[1, 2, 2], [2, 2, 1], [2, 1, 2]]
    Y_pred = [[2, 1, 2], [2, 2, 1], [1, 2, 2]]
    assert tau_x(Y_true, Y_pred) == pytest.approx(1 / 9)


def test_equals_kendall_without_ties():
    rng = np.random.default_rng(1)
    T = np.argsort(rng.random((20, 6)), axis=1) + 1
    P = np.argsort(rng.random((20, 6)), axis=1) + 1
    np.testing.assert_allclose(tau_x_rows(T, P), kendall_tau_rows(T, P))


def test_identity_and_weights():
    T = [[1, 2, 2], [1, 1, 1]]
    np.testing.assert_array_equal(tau_x_rows(T, T), [1.0, 1.0])
    # a full tie predicted for a strict ranking: each pair scores +1 one way, -1 the other
    assert tau_x([[1, 2, 3]], [[1, 1, 1]]) == 0.0
    assert tau_x([[1, 2], [2, 1]], [[1, 2], [1, 2]], sample_weight=[3, 1]) == pytest.approx(0.5)


def test_shape_mismatch():
    with pytest.raises(ValueError, match="must match"):
        tau_x([[1, 2]], [[1, 2], [2, 1]])
