"""Small separable supervised-clustering data shared by the tests of rankclust.supervised."""

import numpy as np

from rankclust import Rankings

ORDERS = np.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]])


def blobs(n_per=40, seed=0, p_missing=0.0):
    """Three well separated feature blobs, each with its own (noise-free) ranking."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    y = np.repeat(np.arange(3), n_per)
    X = centres[y] + rng.normal(0, 0.5, (y.size, 2))
    pos = np.argsort(ORDERS[y], axis=1)
    if p_missing:
        drop = rng.random(pos.shape) < p_missing
        pos = np.where(drop, -1, pos)
    return X, Rankings(pos), y


def recovered(est):
    """Set of central orderings (as tuples, best first)."""
    return {tuple(np.argsort(c)) for c in est.central_rankings_.ranks}
