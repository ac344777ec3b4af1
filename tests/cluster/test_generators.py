"""Tests for rankclust.cluster.generators.make_planted_chains."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import chisquare

from rankclust.cluster import make_planted_chains


def test_shapes_lengths_labels():
    R, y = make_planted_chains(500, n_items=20, length=5, n_clusters=3, random_state=0)
    assert R.shape == (500, 20) and R.kind == "subset"
    np.testing.assert_array_equal(R.lengths, 5)
    assert not R.has_ties.any()
    assert y.dtype == np.int64 and set(np.unique(y)) == {0, 1, 2}
    # positions are dense 0..l-1, as the public constructor would store them
    assert (np.sort(np.where(R.ranks >= 0, R.ranks, 99), axis=1)[:, :5] == np.arange(5)).all()


def test_variable_lengths():
    R, _ = make_planted_chains(2000, n_items=100, length=(5, 10), random_state=1)
    assert R.lengths.min() == 5 and R.lengths.max() == 10
    counts = np.bincount(R.lengths, minlength=11)[5:]
    assert chisquare(counts).pvalue > 1e-3


def test_chains_follow_their_bucket_order():
    R, y, centers = make_planted_chains(
        300, n_items=20, length=6, n_clusters=4, n_buckets=5, return_centers=True, random_state=2
    )
    buckets = centers.ranks  # (k, m) bucket index per item
    assert centers.shape == (4, 20)
    for k in range(4):
        np.testing.assert_array_equal(np.bincount(buckets[k]), [4] * 5)
    for order, k in zip(R.to_orderings(), y, strict=True):
        b = buckets[k, order]
        assert np.all(np.diff(b) >= 0)  # never against the bucket order


def test_total_orders_when_buckets_equal_items():
    R, y, centers = make_planted_chains(
        200, n_items=10, length=4, n_clusters=2, return_centers=True, random_state=3
    )
    assert not centers.has_ties.any()  # 10 buckets of one item each
    for order, k in zip(R.to_orderings(), y, strict=True):
        assert np.all(np.diff(centers.ranks[k, order]) > 0)


def test_subsets_and_within_bucket_orders_are_uniform():
    R, _ = make_planted_chains(
        6000, n_items=6, length=2, n_clusters=1, n_buckets=1, random_state=4
    )
    # one bucket: every ordered pair of distinct items equally likely
    pairs = [tuple(o) for o in R.to_orderings()]
    counts = [pairs.count(p) for p in itertools.permutations(range(6), 2)]
    assert chisquare(counts).pvalue > 1e-3


def test_balanced_and_reproducible():
    R, y = make_planted_chains(
        103, n_items=8, length=3, n_clusters=4, balanced=True, random_state=5
    )
    assert sorted(np.bincount(y)) == [25, 26, 26, 26]
    R2, y2 = make_planted_chains(
        103, n_items=8, length=3, n_clusters=4, balanced=True, random_state=5
    )
    assert R == R2 and np.array_equal(y, y2)
    R3, _ = make_planted_chains(103, n_items=8, length=3, n_clusters=4, random_state=6)
    assert R != R3


def test_chunking_does_not_change_validity():
    R, _y = make_planted_chains(1000, n_items=30, length=(2, 7), random_state=7, chunk_size=77)
    assert R.lengths.min() >= 2 and R.lengths.max() <= 7
    assert np.all(R.ranks < R.lengths[:, None])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_samples": -1},
        {"n_items": 0},
        {"n_clusters": 0},
        {"length": 0},
        {"length": 21},
        {"length": (5, 3)},
        {"length": "x"},
        {"n_buckets": 0},
    ],
)
def test_errors(kwargs):
    args = {"n_samples": 10, "n_items": 20, "length": 4}
    args.update(kwargs)
    with pytest.raises(ValueError):
        make_planted_chains(**args)
