"""Mallows models from the distribution of the distance to the centre (shared by the
Spearman, footrule, Hamming and Ulam modules).

For a right-invariant distance ``d`` the Mallows model ``P(pi) ∝ exp(-theta d(pi, c))`` has a
normaliser that does not depend on the centre,

.. math:: Z_m(\\theta) = \\sum_{\\delta} N_m(\\delta)\\, e^{-\\theta \\delta},

where ``N_m(delta)`` counts the permutations of ``m`` items at distance ``delta`` from the
identity. The distance to the centre of a draw is distributed as
``P(delta) = N_m(delta) e^{-theta delta} / Z_m(theta)``, so the normaliser, the moments of the
distance and the first stage of an exact sampler all follow from the vector of log-counts.
Everything here is evaluated in log space, stable for every finite ``theta >= 0``.

Two forms of the table: over an explicit ``support`` of distances (:func:`log_normalizer`,
:func:`distance_pmf`, :func:`moments`, :func:`sample_distances`; Spearman and footrule), and
dense over ``d = 0..D`` with ``-inf`` for empty distances (:func:`log_moments`,
:func:`dense_distance_pmf`; Hamming and Ulam, stable for counts far beyond double range,
``m!`` with ``m = 200``). Inputs are trusted; the model modules check theta and m with
:func:`check_theta` and :func:`check_m`.
"""

from __future__ import annotations

import functools
import itertools
import numbers
from typing import Any

import numpy as np
from scipy.special import logsumexp

__all__ = [
    "all_orders",
    "check_m",
    "check_theta",
    "dense_distance_pmf",
    "distance_pmf",
    "log_moments",
    "log_normalizer",
    "log_weights",
    "moments",
    "sample_distances",
    "weighted_unique_rows",
]


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


# ---- the dense table over d = 0..D (Hamming, Ulam)
def check_m(m: Any) -> int:
    """``m`` as a non-negative int, or a one-line ``ValueError``."""
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 0:
        raise ValueError(f"m must be a non-negative integer, got {m!r}")
    return int(m)


def check_theta(theta: Any) -> np.ndarray:
    """``theta`` as a float64 array, each ``>= 0`` (``inf`` allowed: the point mass)."""
    th = np.asarray(theta, dtype=np.float64)
    if np.any(np.isnan(th) | (th < 0)):
        raise ValueError(f"theta must be non-negative, got {theta!r}")
    return th


def _log_weights(theta: np.ndarray, log_counts: np.ndarray) -> np.ndarray:
    """``log N(d) - theta d``, shape ``theta.shape + (D + 1,)``; ``theta = inf`` keeps d = 0."""
    d = np.arange(log_counts.shape[0], dtype=np.float64)
    th = theta[..., None]
    with np.errstate(invalid="ignore"):
        a = log_counts - th * d
    # inf * 0 is nan: at theta = inf only d = 0 survives
    return np.where(np.isinf(th), np.where(d == 0, log_counts, -np.inf), a)


def _logsumexp(a: np.ndarray) -> np.ndarray:
    """``log sum exp`` over the last axis as ``a_max + log1p(sum of the other terms)``: keeps
    the relative precision of ``log psi`` when it is tiny (large theta, ``psi ~ 1``)."""
    k = np.argmax(a, axis=-1)[..., None]
    top = np.take_along_axis(a, k, axis=-1)
    rest = np.exp(a - top)
    np.put_along_axis(rest, k, 0.0, axis=-1)
    return top[..., 0] + np.log1p(rest.sum(axis=-1))


def log_moments(theta: Any, log_counts: np.ndarray) -> tuple[Any, Any, Any]:
    """``log psi``, mean and variance of the distance at each theta.

    Parameters
    ----------
    theta : float or ndarray of float
        Dispersions ``>= 0`` (checked by the caller).
    log_counts : ndarray of float64, shape (D + 1,)
        ``log N(d)`` for ``d = 0..D``, ``-inf`` for empty distances; ``N(0) = 1``.

    Returns
    -------
    log_psi, mean, var : float or ndarray (the shape of ``theta``)

    Notes
    -----
    Complexity: O(u D) time and memory for u values of theta.
    """
    th = np.asarray(theta, dtype=np.float64)
    a = _log_weights(th, log_counts)
    log_psi = _logsumexp(a)
    p = np.exp(a - log_psi[..., None])
    d = np.arange(log_counts.shape[0], dtype=np.float64)
    mean = p @ d
    # the centred second moment (the raw one cancels when the variance is tiny)
    var = np.maximum(np.einsum("...d,...d->...", p, (d - mean[..., None]) ** 2), 0.0)
    if th.ndim == 0:
        return float(log_psi), float(mean), float(var)
    return log_psi, mean, var


def dense_distance_pmf(theta: float, log_counts: np.ndarray) -> np.ndarray:
    """``P(d)`` for ``d = 0..D`` at one theta (sums to 1). O(D)."""
    a = _log_weights(np.asarray(float(theta)), log_counts)
    return np.exp(a - _logsumexp(a))


def weighted_unique_rows(ranks: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``ranks`` and their summed weights (rows of zero weight dropped).

    Complexity: O(n m log n) time, O(n m) memory.
    """
    ranks = np.asarray(ranks, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    keep = weights > 0
    uniq, inv = np.unique(ranks[keep], axis=0, return_inverse=True)
    w = np.bincount(inv.ravel(), weights=weights[keep], minlength=uniq.shape[0])
    return np.ascontiguousarray(uniq), w


@functools.lru_cache(maxsize=4)
def all_orders(m: int) -> np.ndarray:
    """Every ordering of ``0..m-1`` (lexicographic), shape (m!, m), read-only; cached.

    Complexity: O(m! m) time and memory.
    """
    out = np.array(list(itertools.permutations(range(m))), dtype=np.int64).reshape(-1, m)
    out.setflags(write=False)
    return out
