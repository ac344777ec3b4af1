"""Tests of the shared machinery of rankclust.supervised (_base)."""

import itertools

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.consensus import borda
from rankclust.models.plackett_luce import PlackettLuce
from rankclust.supervised._base import (
    central_ranking,
    distances_to_centers,
    positions_from_scores,
    training_loss,
)
from tests.conftest import random_rankings


def _brute_kendall(a, c):
    present = np.flatnonzero(a >= 0)
    disc = comp = 0
    for u, v in itertools.combinations(present, 2):
        comp += 1
        disc += (a[u] - a[v]) * (c[u] - c[v]) < 0
    return disc, comp


def test_distances_to_centers_brute_force(rng):
    R = random_rankings(rng, 40, 5, p_missing=0.4)
    C = np.array([rng.permutation(5) for _ in range(3)])
    D = distances_to_centers(R, C)
    Draw = distances_to_centers(R, C, normalize=False)
    for i in range(40):
        for k in range(3):
            disc, comp = _brute_kendall(R.ranks[i], C[k])
            assert Draw[i, k] == disc
            assert D[i, k] == pytest.approx(disc / comp if comp else 0.0)


def test_central_ranking_complete_is_borda(rng):
    R = random_rankings(rng, 30, 6)
    np.testing.assert_array_equal(central_ranking(R), borda(R.pairwise_counts()))


def test_central_ranking_partial_is_consistent_with_majority(rng):
    center = np.array([2, 0, 1, 3, 4])
    perms = np.tile(center, (50, 1))
    drop = rng.random(perms.shape) < 0.4
    R = Rankings(np.where(drop, -1, perms))
    np.testing.assert_array_equal(central_ranking(R), center)


def test_central_ranking_pl_recovers_mode():
    true = PlackettLuce.from_params(scores=np.log([5.0, 1.0, 3.0, 0.5]))
    R = true.sample(3000, random_state=0)
    np.testing.assert_array_equal(central_ranking(R, method="pl"), [0, 2, 1, 3])


def test_central_ranking_pl_survives_label_never_observed():
    R = Rankings([[0, 1, -1], [0, 1, -1], [1, 0, -1]])
    c = central_ranking(R, method="pl")
    assert sorted(c.tolist()) == [0, 1, 2] and c[0] < c[1]


def test_central_ranking_fallback_when_uninformative():
    R = Rankings([[0, -1, -1], [-1, 0, -1]])
    fb = np.array([2, 1, 0])
    np.testing.assert_array_equal(central_ranking(R, fallback=fb), fb)
    np.testing.assert_array_equal(central_ranking(R), [0, 1, 2])


def test_positions_from_scores_ties_lower_index_first():
    np.testing.assert_array_equal(positions_from_scores(np.array([1.0, 3.0, 1.0])), [1, 0, 2])


def test_training_loss_skips_uninformative_rows():
    D = np.array([[0.5, 0.1], [0.0, 0.0], [0.2, 0.4]])
    assert training_loss(D, np.array([0, 1, 1]), np.array([True, False, True])) == 0.45
