"""Tests of the synthetic data of Grbovic et al. (rankclust.supervised.generators)."""

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.supervised import (
    SYNTHETIC_CENTRAL_ORDERS,
    add_swap_noise,
    delete_labels,
    make_checker,
    make_circle,
)


def test_circle_class_shares():
    X, Y, y = make_circle(20000, noise=False, random_state=0)
    shares = np.bincount(y) / y.size
    np.testing.assert_allclose(shares, [0.196, 0.440, 0.364], atol=0.01)
    assert np.abs(X).max() <= 3
    np.testing.assert_array_equal(Y.ranks, np.argsort(SYNTHETIC_CENTRAL_ORDERS[y], axis=1))


@pytest.mark.parametrize(
    ("layout", "counts"), [("corner", [450, 450, 6300]), ("quadrant", [1800, 1800, 3600])]
)
def test_checker_counts(layout, counts):
    X, Y, y = make_checker(layout=layout, random_state=0)
    assert X.shape == (7200, 2) and Y.shape == (7200, 6)
    assert np.bincount(y).tolist() == counts
    # class 0 is the upper-right field, class 1 the lower-right one
    assert X[y == 0].mean(axis=0) == pytest.approx(
        [3.5, 3.5], abs=0.05 if layout == "corner" else 1.1
    )
    assert X[y == 1, 1].mean() < X[y == 0, 1].mean()


def test_swap_noise_distribution():
    n = 20000
    base = np.tile(np.arange(6), (n, 1))
    noisy = add_swap_noise(base, random_state=0)
    assert sorted(noisy[0].tolist()) == list(range(6))
    unchanged = (noisy == base).all(axis=1).mean()
    # P(0 swaps) = .3, plus the rare swap sequences that undo themselves
    assert 0.29 < unchanged < 0.33
    # one swap of neighbours at distance 1 moves exactly two labels by one place
    moved = (noisy != base).sum(axis=1)
    assert 0.30 < (moved == 2).mean() < 0.45


def test_swap_noise_is_reproducible():
    base = np.tile(np.arange(6), (50, 1))
    np.testing.assert_array_equal(add_swap_noise(base, 3), add_swap_noise(base, 3))


def test_delete_labels():
    Y = Rankings(np.tile(np.arange(8), (2000, 1)))
    Z = delete_labels(Y, 0.3, random_state=0)
    assert (Z.ranks < 0).mean() == pytest.approx(0.3, abs=0.01)
    # relative order kept: positions increase with the label index on every row
    for row in Z.ranks[:50]:
        present = row[row >= 0]
        assert (np.diff(present) > 0).all()
    assert delete_labels(Y, 0.0) == Y
    with pytest.raises(ValueError, match="p_missing"):
        delete_labels(Y, 1.0)


def test_generator_validation():
    with pytest.raises(ValueError):
        make_circle(0)
    with pytest.raises(ValueError):
        make_checker(layout="diagonal")
    with pytest.raises(ValueError):
        make_checker(std=0)


def _swap_noise_reference(orders, rng):
    """Row-by-row reference of the swap process (plain python), for the distribution test."""
    out = np.array(orders, copy=True)
    L = out.shape[1]
    probs = np.array([0.5, 0.3, 0.15, 0.05])
    for i in range(len(out)):
        for p_swap in (0.7, 0.5, 0.3):
            a = rng.integers(L)
            feasible = [k for k in range(1, 5) if a - k >= 0 or a + k < L]
            p = probs[[k - 1 for k in feasible]]
            k = feasible[rng.choice(len(feasible), p=p / p.sum())]
            sides = [q for q in (a - k, a + k) if 0 <= q < L]
            b = sides[rng.integers(2)] if len(sides) == 2 else sides[0]
            if rng.random() < p_swap:
                out[i, a], out[i, b] = out[i, b], out[i, a]
            else:
                break
    return out


def test_swap_noise_matches_reference_in_distribution():
    from collections import Counter

    base = np.tile(np.arange(6), (6000, 1))
    fast = Counter(map(tuple, add_swap_noise(base, random_state=1)))
    ref = Counter(map(tuple, _swap_noise_reference(base, np.random.default_rng(1))))
    # the frequencies of the common outcomes agree within sampling error
    for key, cnt in ref.most_common(8):
        assert abs(fast[key] - cnt) < 4 * np.sqrt(cnt) + 5
