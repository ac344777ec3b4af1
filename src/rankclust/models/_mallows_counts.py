"""Mallows models from an exact distance distribution (shared by Spearman and footrule).

For a right-invariant distance ``d`` the Mallows model ``P(pi) ∝ exp(-theta d(pi, c))`` has a
normaliser that does not depend on the centre,

.. math:: Z_m(\\theta) = \\sum_{\\delta} N_m(\\delta)\\, e^{-\\theta \\delta},

where ``N_m(delta)`` counts the permutations of ``m`` items at distance ``delta`` from the
identity. The distance to the centre of a draw is distributed as
``P(delta) = N_m(delta) e^{-theta delta} / Z_m(theta)``, so the normaliser, the moments of the
distance and the first stage of an exact sampler all follow from the vector of log-counts.
Everything here is evaluated in log space (logsumexp), stable for every finite
``theta >= 0``. Private: inputs are trusted.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp


def log_weights(log_counts: np.ndarray, support: np.ndarray, theta: float) -> np.ndarray:
    """``log N(delta) - theta delta`` over the support (unnormalised log pmf of the distance)."""
    return log_counts - float(theta) * support


def log_normalizer(log_counts: np.ndarray, support: np.ndarray, theta: float) -> float:
    """``log Z(theta) = logsumexp(log N - theta delta)``. O(len(support))."""
    return float(logsumexp(log_weights(log_counts, support, theta)))


def distance_pmf(log_counts: np.ndarray, support: np.ndarray, theta: float) -> np.ndarray:
    """``P(delta)`` under the model, over the support (sums to 1)."""
    lw = log_weights(log_counts, support, theta)
    return np.exp(lw - logsumexp(lw))


def moments(log_counts: np.ndarray, support: np.ndarray, theta: float) -> tuple[float, float]:
    """Mean and variance of the distance to the centre (centred second moment, no cancellation)."""
    p = distance_pmf(log_counts, support, theta)
    mean = float(p @ support)
    var = float(p @ (support - mean) ** 2)
    return mean, max(var, 0.0)


def sample_distances(
    log_counts: np.ndarray,
    support: np.ndarray,
    theta: float,
    size: int,
    rng: np.random.RandomState,
) -> np.ndarray:
    """``size`` independent draws of the distance (indices into ``support``)."""
    p = distance_pmf(log_counts, support, theta)
    return rng.choice(len(support), size=size, p=p)
