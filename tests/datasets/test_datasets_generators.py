"""Tests of rankclust.datasets.generators: Mallows and Plackett-Luce mixtures."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.datasets import make_mallows_mixture, make_plackett_luce_mixture


def _kendall(a: np.ndarray, b: np.ndarray) -> int:
    """Discordant pairs of two complete position vectors (brute force)."""
    m = len(a)
    return sum((a[u] - a[v]) * (b[u] - b[v]) < 0 for u in range(m) for v in range(u + 1, m))


def test_mallows_shapes_and_returns():
    R, labels, centers = make_mallows_mixture(
        200, 6, 3, thetas=[0.5, 1.0, 2.0], random_state=0, return_centers=True
    )
    assert isinstance(R, Rankings) and R.shape == (200, 6) and R.is_complete
    assert R.kind == "subset"
    assert labels.shape == (200,) and set(labels.tolist()) == {0, 1, 2}
    assert not (np.diff(labels) >= 0).all()  # rows come in random cluster order
    assert centers.shape == (3, 6)
    assert (np.sort(centers, axis=1) == np.arange(6)).all()
    only = make_mallows_mixture(5, 4, 2, random_state=0, return_labels=False)
    assert isinstance(only, Rankings)


def test_mallows_reproducible():
    a = make_mallows_mixture(50, 5, 2, lengths=(2, 4), kind="top", random_state=7)
    b = make_mallows_mixture(50, 5, 2, lengths=(2, 4), kind="top", random_state=7)
    c = make_mallows_mixture(50, 5, 2, lengths=(2, 4), kind="top", random_state=8)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    assert a[0] != c[0]


def test_mallows_concentrated_clusters_are_their_centers():
    centers = np.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]])
    R, labels = make_mallows_mixture(100, 5, 2, centers=centers, thetas=60.0, random_state=1)
    np.testing.assert_array_equal(R.ranks, centers[labels])
    top, lab = make_mallows_mixture(
        100, 5, 2, centers=centers, thetas=60.0, lengths=2, kind="top", random_state=1
    )
    assert top.kind == "top" and (top.lengths == 2).all()
    np.testing.assert_array_equal(top.ranks, np.where(centers[lab] < 2, centers[lab], -1))
    sub, lab = make_mallows_mixture(
        100, 5, 2, centers=centers, thetas=60.0, lengths=3, kind="subset", random_state=1
    )
    assert sub.kind == "subset" and (sub.lengths == 3).all()
    # a chain keeps the centre's order of the items it shows
    for row, c in zip(sub.ranks, centers[lab], strict=True):
        shown = np.flatnonzero(row >= 0)
        assert (np.argsort(row[shown]) == np.argsort(c[shown])).all()


def test_mallows_distribution_matches_brute_force():
    """With K=1, m=3: frequencies of the 6 permutations follow exp(-theta d) / Z."""
    theta, m, n = 0.8, 3, 30000
    center = np.array([0, 1, 2])
    R, _ = make_mallows_mixture(n, m, 1, centers=center[None], thetas=theta, random_state=3)
    perms = [np.array(p) for p in itertools.permutations(range(m))]
    probs = np.array([np.exp(-theta * _kendall(p, center)) for p in perms])
    probs /= probs.sum()
    for p, prob in zip(perms, probs, strict=True):
        freq = np.mean((R.ranks == p).all(axis=1))
        assert abs(freq - prob) < 4 * np.sqrt(prob * (1 - prob) / n)


def test_subset_deletion_is_uniform_over_items():
    n, m, l = 20000, 5, 2
    R, _ = make_mallows_mixture(n, m, 1, thetas=3.0, lengths=l, random_state=4)
    freq = R.present.mean(axis=0)
    assert np.abs(freq - l / m).max() < 4 * np.sqrt(0.4 * 0.6 / n)


def test_mixing_weights():
    _, labels = make_mallows_mixture(30, 4, 3, weights=[0, 1, 0], random_state=0)
    assert (labels == 1).all()
    n = 20000
    _, labels = make_plackett_luce_mixture(n, 3, 2, weights=[3, 1], random_state=0)
    assert abs(labels.mean() - 0.25) < 4 * np.sqrt(0.25 * 0.75 / n)


def test_lengths_forms():
    R, _ = make_mallows_mixture(60, 6, 2, lengths=(2, 4), kind="top", random_state=0)
    assert set(R.lengths.tolist()) <= {2, 3, 4} and len(set(R.lengths.tolist())) == 3
    lens = np.arange(60) % 6 + 1
    R, _ = make_mallows_mixture(60, 6, 2, lengths=lens, kind="subset", random_state=0)
    np.testing.assert_array_equal(R.lengths, lens)
    # top-t lists are prefixes: present positions are exactly 0..t-1
    R, _ = make_plackett_luce_mixture(40, 6, 2, lengths=lens[:40], kind="top", random_state=0)
    assert ((R.ranks >= 0).sum(axis=1) == lens[:40]).all() and R.ranks.max(axis=1).tolist() == (
        lens[:40] - 1
    ).tolist()


def test_plackett_luce_shapes_and_concentration():
    scores = np.array([[0.0, -30.0, -60.0, -90.0], [-90.0, -60.0, -30.0, 0.0]])
    R, labels, sc = make_plackett_luce_mixture(
        50, 4, 2, scores=scores, random_state=0, return_scores=True
    )
    expected = np.where(labels[:, None] == 0, [0, 1, 2, 3], [3, 2, 1, 0])
    np.testing.assert_array_equal(R.ranks, expected)
    np.testing.assert_allclose(sc.mean(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(sc - sc.mean(axis=1, keepdims=True), sc)
    R2, _ = make_plackett_luce_mixture(10, 5, 3, scale=0.0, random_state=0)
    assert R2.shape == (10, 5) and R2.is_complete


def test_plackett_luce_first_choice_probabilities():
    """K=1: the first choice is item j with probability worth_j / sum of worths."""
    scores = np.log(np.array([4.0, 2.0, 1.0, 1.0]))
    n = 20000
    R, _ = make_plackett_luce_mixture(n, 4, 1, scores=scores[None], random_state=5)
    first = np.bincount(np.argmin(R.ranks, axis=1), minlength=4) / n
    p = np.array([0.5, 0.25, 0.125, 0.125])
    assert np.all(np.abs(first - p) < 4 * np.sqrt(p * (1 - p) / n))


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"n_samples": -1}, "n_samples must be an int >= 0"),
        ({"n_items": 0}, "n_items must be an int >= 1"),
        ({"n_clusters": 0}, "n_clusters must be an int >= 1"),
        ({"kind": "full"}, "kind must be one of"),
        ({"thetas": -1.0}, "thetas must be finite and >= 0"),
        ({"weights": [1, 1]}, "weights must have shape"),
        ({"weights": [0, 0, 0]}, "not all zero"),
        ({"lengths": 0}, "lengths must lie in 1..4"),
        ({"lengths": (3, 5)}, "lengths must lie in 1..4"),
        ({"lengths": 1.5}, "lengths must be an int"),
        ({"centers": [[0, 1, 2, 2]], "n_clusters": 1}, "centers[0] is not a permutation"),
        ({"centers": [[0, 1, 2, 3]]}, "n_clusters=3 but 1 centers"),
        ({"centers": [[0, 1, 2]], "n_clusters": 1}, "shape (K, 4)"),
    ],
)
def test_mallows_errors(kwargs, fragment):
    args = {"n_samples": 10, "n_items": 4, "n_clusters": 3, **kwargs}
    with pytest.raises(ValueError) as err:
        make_mallows_mixture(**args, random_state=0)
    assert fragment in str(err.value)


def test_plackett_luce_errors():
    with pytest.raises(ValueError, match="scores must have shape"):
        make_plackett_luce_mixture(10, 4, 1, scores=[[0.0, 1.0]])
    with pytest.raises(ValueError, match="n_clusters=2 but 1 score vectors"):
        make_plackett_luce_mixture(10, 4, 2, scores=[[0.0, 1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="scale must be"):
        make_plackett_luce_mixture(10, 4, 2, scale=-1.0)


def test_zero_samples():
    R, labels = make_mallows_mixture(0, 4, 2, lengths=2, random_state=0)
    assert R.shape == (0, 4) and labels.shape == (0,)
