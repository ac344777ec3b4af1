"""The Hamming-Mallows model: normaliser, moments, exact sampler and centre MLE.

The model is ``P(pi) = exp(-theta d_H(pi, center)) / psi(theta)`` with Hamming's distance
``d_H`` (the number of items whose positions differ; :func:`rankclust.distances.hamming_distances`).
Rankings are position vectors (``center[j]`` = 0-based position of item ``j``). Inputs of the
private helpers are trusted; ``theta`` and ``m`` are checked (one-line ``ValueError``).

Distance counts: the permutations at distance ``d`` move exactly ``d`` items, chosen in
``C(m, d)`` ways, and derange them, so ``N_m(d) = C(m, d) D_d`` with the derangement numbers
``D_0 = 1, D_1 = 0, D_d = (d - 1)(D_{d-1} + D_{d-2})``. They are exact Python integers
(cached per ``m``); the normaliser and the moments are evaluated in log space from them
(:mod:`rankclust.models._mallows_counts`), stable for every ``m`` the package handles (tested
to ``m = 200``). Equivalently ``psi(theta) = m! e^{-m theta} sum_{k=0}^{m} (e^theta - 1)^k / k!``
(Irurozki, Calvo & Lozano 2019), which the tests check.

References
----------
Fligner, M. A. and Verducci, J. S. (1986). Distance based ranking models. *JRSS B* 48, 359-369.

Irurozki, E., Calvo, B. and Lozano, J. A. (2019). Mallows and generalized Mallows model for
matchings. *Bernoulli* 25(2), 1160-1188.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from rankclust.models._mallows_counts import check_m, check_theta, distance_pmf, log_moments

__all__ = [
    "distance_counts",
    "distance_variance",
    "estimate_center",
    "expected_distance",
    "log_distance_counts",
    "log_normalizer",
    "sample",
]


@functools.lru_cache(maxsize=64)
def _counts(m: int) -> tuple[int, ...]:
    der = [1, 0]
    for d in range(2, m + 1):
        der.append((d - 1) * (der[-1] + der[-2]))
    return tuple(math.comb(m, d) * der[d] for d in range(m + 1))


@functools.lru_cache(maxsize=64)
def _log_counts(m: int) -> np.ndarray:
    out = np.array([math.log(c) if c > 0 else -np.inf for c in _counts(m)], dtype=np.float64)
    out.setflags(write=False)
    return out


def distance_counts(m: int) -> list[int]:
    """Number of permutations of ``m`` items at each Hamming distance ``0..m`` from a centre.

    Parameters
    ----------
    m : int
        Number of items, ``>= 0``.

    Returns
    -------
    list of int
        ``C(m, d) D_d`` for ``d = 0..m`` (exact integers, summing to ``m!``).

    Notes
    -----
    Complexity: O(m) big-integer operations, cached per ``m``.

    Examples
    --------
    >>> distance_counts(4)
    [1, 0, 6, 8, 9]
    """
    return list(_counts(check_m(m)))


def log_distance_counts(m: int) -> np.ndarray:
    """``log N_m(d)`` for ``d = 0..m`` (``-inf`` at ``d = 1``), read-only, cached per ``m``.

    Parameters
    ----------
    m : int
        Number of items, ``>= 0``.

    Returns
    -------
    ndarray of float64, shape (m + 1,)

    Notes
    -----
    Complexity: O(m) big-integer operations (cached), O(m) memory.

    Examples
    --------
    >>> np.exp(log_distance_counts(3)).round(6).tolist()
    [1.0, 0.0, 3.0, 2.0]
    """
    return _log_counts(check_m(m))


def log_normalizer(theta: Any, m: int) -> Any:
    """``log psi(theta) = log sum_d C(m, d) D_d e^{-theta d}``.

    Parameters
    ----------
    theta : float or array-like of float
        Dispersion(s), ``>= 0`` (``inf`` gives 0, the point mass).
    m : int
        Number of items.

    Returns
    -------
    float or ndarray (the shape of ``theta``)

    Notes
    -----
    A log-sum-exp over the ``m + 1`` distances; ``log psi(0) = log m!``.

    Complexity: O(u m) time and memory for u values of theta (plus O(m) cached counts).

    Examples
    --------
    >>> round(log_normalizer(0.0, 5), 10) == round(math.log(120), 10)
    True
    """
    return log_moments(check_theta(theta), _log_counts(check_m(m)))[0]


def expected_distance(theta: Any, m: int) -> Any:
    """Expected Hamming distance to the centre, ``-d/dtheta log psi``; strictly decreasing.

    Parameters
    ----------
    theta : float or array-like of float
        Dispersion(s), ``>= 0``.
    m : int
        Number of items.

    Returns
    -------
    float or ndarray

    Notes
    -----
    ``m - 1`` at ``theta = 0`` (a uniform permutation has one fixed point on average).

    Complexity: O(u m) time and memory for u values of theta.

    Examples
    --------
    >>> round(expected_distance(0.0, 6), 12)
    5.0
    """
    return log_moments(check_theta(theta), _log_counts(check_m(m)))[1]


def distance_variance(theta: Any, m: int) -> Any:
    """Variance of the Hamming distance to the centre, ``d^2/dtheta^2 log psi``.

    Parameters
    ----------
    theta : float or array-like of float
        Dispersion(s), ``>= 0``.
    m : int
        Number of items.

    Returns
    -------
    float or ndarray

    Notes
    -----
    ``1`` at ``theta = 0`` for ``m >= 2`` (the number of fixed points of a uniform permutation
    has variance 1).

    Complexity: O(u m) time and memory for u values of theta.

    Examples
    --------
    >>> round(distance_variance(0.0, 6), 12)
    1.0
    """
    return log_moments(check_theta(theta), _log_counts(check_m(m)))[2]


def _uniform_derangements(d: int, k: int, rng: np.random.RandomState) -> np.ndarray:
    """``k`` uniform derangements of ``0..d-1`` (``d >= 2``), shape (k, d), by rejection.

    A uniform permutation is a derangement with probability ``D_d / d! >= 1/3`` (``d = 3`` is
    the worst case; it tends to ``1/e``), so each is accepted after at most 3 tries on
    average: expected O(k d log d) time.
    """
    out = np.empty((k, d), dtype=np.int64)
    todo = np.arange(k)
    while todo.size:
        perms = np.argsort(rng.random_sample((todo.size, d)), axis=1)
        ok = ~(perms == np.arange(d)).any(axis=1)
        out[todo[ok]] = perms[ok]
        todo = todo[~ok]
    return out


def sample(center: np.ndarray, theta: float, size: int, rng: np.random.RandomState) -> np.ndarray:
    """Exact draws from the Hamming-Mallows model.

    Draw the distance ``d`` from ``P(d) = N_m(d) e^{-theta d} / psi``, the ``d`` displaced items
    uniformly, and a uniform derangement of them (by rejection): every permutation at distance
    ``d`` has the same chance, so the draw has the model's law exactly.

    Parameters
    ----------
    center : ndarray of int, shape (m,)
        A permutation of ``0..m-1`` (positions).
    theta : float
        Dispersion, ``>= 0``.
    size : int
        Number of draws.
    rng : numpy.random.RandomState

    Returns
    -------
    ndarray of int64, shape (size, m)
        Position vectors.

    Notes
    -----
    Complexity: O(size m log m) expected time (sorting uniforms; the rejection step accepts
    with probability >= 1/3), O(size m) memory.
    """
    center = np.asarray(center, dtype=np.int64)
    m = center.shape[0]
    th = float(check_theta(theta))
    size = int(size)
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    if m == 0:
        return np.zeros((size, 0), dtype=np.int64)
    p = distance_pmf(th, _log_counts(m))
    dist = rng.choice(m + 1, size=size, p=p / p.sum())
    moved = np.argsort(rng.random_sample((size, m)), axis=1)  # first d columns are displaced
    sigma = np.tile(np.arange(m, dtype=np.int64), (size, 1))
    for d in np.unique(dist):
        if d < 2:  # d = 1 has probability 0
            continue
        rows = np.flatnonzero(dist == d)
        items = moved[rows, :d]  # (k, d)
        der = _uniform_derangements(int(d), rows.size, rng)
        sigma[rows[:, None], items] = np.take_along_axis(items, der, axis=1)
    return center[sigma]


def estimate_center(ranks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Exact weighted MLE of the Hamming-Mallows centre (for any ``theta > 0``).

    Minimising ``sum_i w_i d_H(r_i, c)`` is maximising the weighted number of items each row
    places where the centre does, ``sum_j A[j, c_j]`` with ``A[j, p] = sum_i w_i [r_i(j) = p]``:
    a linear assignment of items to positions, solved exactly by
    :func:`scipy.optimize.linear_sum_assignment`.

    Parameters
    ----------
    ranks : ndarray of int, shape (n, m)
        Complete rankings (each row a permutation of ``0..m-1``); trusted.
    weights : ndarray of float, shape (n,)
        Non-negative row weights.

    Returns
    -------
    ndarray of int64, shape (m,)
        A centre (position vector) minimising the weighted distance; exact.

    Notes
    -----
    Complexity: O(n m + m^3) time, O(n m + m^2) memory.
    """
    ranks = np.asarray(ranks, dtype=np.int64)
    w = np.asarray(weights, dtype=np.float64)
    n, m = ranks.shape
    idx = (np.arange(m, dtype=np.int64) * m + ranks).ravel()
    A = np.bincount(idx, weights=np.broadcast_to(w[:, None], (n, m)).ravel(), minlength=m * m)
    items, positions = linear_sum_assignment(A.reshape(m, m), maximize=True)
    center = np.empty(m, dtype=np.int64)
    center[items] = positions
    return center
