"""Tests of rankclust.cluster.mixture_generators (Busse et al. 2007, Sec. 6.1)."""

from __future__ import annotations

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.cluster.mixture_generators import (
    centers_at_distances,
    length_law,
    make_heterogeneous_rankings,
)
from rankclust.distances import pairwise_distances


def condensed(C: np.ndarray) -> list[int]:
    D = pairwise_distances(Rankings(C))
    return D[np.triu_indices(len(C), 1)].astype(int).tolist()


FOUR = condensed(np.argsort(np.random.default_rng(5).random((4, 5)), axis=1))


@pytest.mark.parametrize("d", [[2, 9, 9], [8, 6, 6], [1], FOUR])
def test_centers_have_the_requested_distances(d):
    C = centers_at_distances(d, 5, random_state=0)
    assert condensed(C) == d
    np.testing.assert_array_equal(C[0], np.arange(5))


def test_large_m_uses_random_swaps():
    C = centers_at_distances([40], 12, first=np.arange(12)[::-1], random_state=1)
    assert condensed(C) == [40]
    with pytest.raises(ValueError, match="two centres"):
        centers_at_distances([40, 45, 50], 12)


def test_impossible_configurations_raise():
    with pytest.raises(ValueError, match="no 3 rankings"):
        centers_at_distances([1, 1, 3], 4, random_state=0)  # violates parity/triangle
    with pytest.raises(ValueError, match="K\\(K-1\\)/2"):
        centers_at_distances([1, 2], 5)
    with pytest.raises(ValueError, match="lie in"):
        centers_at_distances([11], 5)


def test_length_law():
    np.testing.assert_allclose(length_law([1, 2, 3, 5], 5), [0, 0.25, 0.25, 0.25, 0, 0.25])
    p = np.array([0, 1, 1, 0, 0, 2.0])
    np.testing.assert_allclose(length_law(p, 5), p / 4)
    with pytest.raises(ValueError):
        length_law([0, 2], 5)


def test_generator_sizes_lengths_and_component_laws():
    C = centers_at_distances([8, 6, 6], 5, random_state=0)
    R, y = make_heterogeneous_rankings(
        30_000,
        C,
        [0.5, 1.0, 2.0],
        weights=[0.5, 0.3, 0.2],
        lengths=[1, 2, 3, 5],
        random_state=0,
    )
    assert R.kind == "top" and R.shape == (30_000, 5)
    np.testing.assert_array_equal(np.bincount(y), [15_000, 9_000, 6_000])
    share = np.bincount(R.lengths, minlength=6) / 30_000
    np.testing.assert_allclose(share, [0, 0.25, 0.25, 0.25, 0, 0.25], atol=0.01)
    # the first item of each list follows the top-1 marginal of its component
    from rankclust.models.mallows import mallows_loglik

    top1 = Rankings.from_orderings([[j] for j in range(5)], n_items=5, kind="top")
    for k, th in enumerate([0.5, 1.0, 2.0]):
        p = np.exp(mallows_loglik(top1, C[k], th))
        first = np.argmin(np.where(R.ranks[y == k] < 0, 99, R.ranks[y == k]), axis=1)
        emp = np.bincount(first, minlength=5) / (y == k).sum()
        np.testing.assert_allclose(emp, p, atol=0.02)


def test_generator_is_reproducible_and_categorical_option():
    C = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])
    a = make_heterogeneous_rankings(50, C, 1.0, lengths=[1, 4], random_state=3)
    b = make_heterogeneous_rankings(50, C, 1.0, lengths=[1, 4], random_state=3)
    assert a[0] == b[0]
    _, y = make_heterogeneous_rankings(1000, C, 1.0, fixed_sizes=False, random_state=0)
    assert 400 < np.bincount(y)[0] < 600


def test_table2_setting_statistic_follows_its_exact_law_per_length():
    # Busse et al. Table 2 setting: m = 20, lengths uniform on 1..19 (19 = complete); the
    # top-t statistic s^t of each list must have the exact mean mu_t and variance v_t
    from rankclust.cluster._mixture_kernels import length_tables
    from rankclust.distances import kendall_distances

    center = np.random.RandomState(0).permutation(20)
    R, _ = make_heterogeneous_rankings(
        19_000, center[None], 1.0, lengths=list(range(1, 20)), random_state=1
    )
    s = kendall_distances(R, center).astype(float)
    mu, var = length_tables(np.array([1.0]), 20, "top", ("mean", "var"))
    for t in range(1, 20):
        rows = R.lengths == t
        n_t = rows.sum()
        assert 850 < n_t < 1150
        assert abs(s[rows].mean() - mu[t, 0]) < 4 * np.sqrt(var[t, 0] / n_t)
        assert s[rows].var() == pytest.approx(var[t, 0], rel=0.2)
