"""Tests for rankclust.ordinal.evaluation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.metrics import normalized_mutual_info_score

from rankclust.ordinal.evaluation import map_clusters, ordinal_clustering_scores


def test_hungarian_mapping_maximises_agreement_brute_force(rng):
    for _ in range(20):
        y = rng.integers(0, 4, 50)
        lab = rng.integers(0, 4, 50)
        mapped = map_clusters(y, lab, "hungarian", n_levels=4)
        best = max(np.sum(np.asarray(p)[lab] == y) for p in itertools.permutations(range(4)))
        assert np.sum(mapped == y) == best
        # it is a relabelling: one level per cluster
        for c in np.unique(lab):
            assert np.unique(mapped[lab == c]).size == 1


def test_order_and_reverse_mappings():
    y = np.array([0, 1, 2, 2])
    lab = np.array([2, 1, 0, 0])
    np.testing.assert_array_equal(map_clusters(y, lab, "order"), lab)
    np.testing.assert_array_equal(map_clusters(y, lab, "order_or_reverse"), y)


def test_scores_known_values():
    y = [0, 0, 1, 2]
    s = ordinal_clustering_scores(y, [0, 0, 1, 1], mapping="order")
    assert s["mze"] == 0.25 and s["mae"] == 0.25
    assert s["amae"] == pytest.approx((0 + 0 + 1) / 3)
    assert s["nmi"] == pytest.approx(
        normalized_mutual_info_score(y, [0, 0, 1, 1], average_method="geometric")
    )
    # Hungarian matching makes the scores invariant to a relabelling of the clusters
    a = ordinal_clustering_scores(y, [1, 1, 0, 2])
    b = ordinal_clustering_scores(y, [2, 2, 1, 0])
    assert a == b and a["mze"] == 0.0


def test_bad_mapping():
    with pytest.raises(ValueError, match="mapping"):
        map_clusters([0, 1], [0, 1], "nope")
    with pytest.raises(ValueError, match="equal length"):
        map_clusters([0, 1], [0, 1, 1])
