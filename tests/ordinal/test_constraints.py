"""Tests for rankclust.ordinal.constraints."""

from __future__ import annotations

import numpy as np
import pytest

from rankclust.ordinal.constraints import (
    check_pairs,
    link_constraints_from_labels,
    ranking_pairs_from_labels,
)


def test_ranking_pairs_are_oriented_and_between_levels(rng):
    y = rng.integers(0, 5, 300)
    pairs = ranking_pairs_from_labels(y, 200, random_state=0)
    assert pairs.shape == (200, 2) and pairs.dtype == np.int64
    assert np.all(y[pairs[:, 0]] > y[pairs[:, 1]])
    np.testing.assert_array_equal(pairs, ranking_pairs_from_labels(y, 200, random_state=0))


def test_ranking_pairs_cover_all_level_pairs_roughly_uniformly():
    y = np.repeat(np.arange(3), 100)
    pairs = ranking_pairs_from_labels(y, 3000, random_state=1)
    combos = np.bincount(y[pairs[:, 0]] * 3 + y[pairs[:, 1]], minlength=9)
    # only (1,0), (2,0), (2,1) occur, each with probability 1/3 for balanced levels
    assert combos[[0, 1, 2, 4, 5, 8]].sum() == 0
    np.testing.assert_allclose(combos[[3, 6, 7]] / 3000, 1 / 3, atol=0.04)


def test_link_constraints(rng):
    y = rng.integers(0, 4, 200)
    ml, cl = link_constraints_from_labels(y, 30, 40, random_state=3)
    assert ml.shape == (30, 2) and cl.shape == (40, 2)
    assert np.all(y[ml[:, 0]] == y[ml[:, 1]]) and np.all(ml[:, 0] != ml[:, 1])
    assert np.all(y[cl[:, 0]] != y[cl[:, 1]])


def test_generator_errors():
    with pytest.raises(ValueError, match="two distinct"):
        ranking_pairs_from_labels([1, 1, 1], 2)
    with pytest.raises(ValueError, match="1-D"):
        ranking_pairs_from_labels([[0, 1]], 1)
    with pytest.raises(ValueError, match="at least two samples"):
        link_constraints_from_labels([0, 1, 2], 1, 0)
    assert ranking_pairs_from_labels([1, 1], 0).shape == (0, 2)


def test_check_pairs():
    assert check_pairs(None, 3).shape == (0, 2)
    assert check_pairs([], 3).shape == (0, 2)
    np.testing.assert_array_equal(check_pairs(np.array([[0.0, 2.0]]), 3), [[0, 2]])
    with pytest.raises(ValueError, match="outside"):
        check_pairs([[0, 3]], 3)
    with pytest.raises(ValueError, match="outside"):
        check_pairs([[-1, 0]], 3)
    with pytest.raises(ValueError, match="itself"):
        check_pairs([[1, 1]], 3)
    with pytest.raises(ValueError, match="integer"):
        check_pairs([[0.5, 1]], 3)
    with pytest.raises(ValueError, match="integer"):
        check_pairs([["a", "b"]], 3)
    with pytest.raises(ValueError, match="shape"):
        check_pairs([0, 1, 2], 3)
