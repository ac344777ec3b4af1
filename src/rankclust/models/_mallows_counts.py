"""Mallows models from a table of distance counts (shared by the Spearman, footrule, Hamming
and Ulam modules).

When the number ``N_m(d)`` of permutations at each distance ``d`` from a centre is known
(``d = 0..D``, or the values of a ``support`` array when the distance takes few of them, as
Spearman's, which is always even), the Mallows model ``P(pi) = exp(-theta d(pi, center)) / psi(theta)`` has

* ``psi(theta) = sum_d N_m(d) e^{-theta d}``,
* the distance ``d(pi, center)`` distributed as ``P(d) = N_m(d) e^{-theta d} / psi(theta)``,
  hence its mean and variance (``-d/dtheta log psi`` and ``d^2/dtheta^2 log psi``).

Everything here works from ``log N_m(d)`` (``-inf`` where no permutation lies at ``d``) and
evaluates in log space, so it is stable for counts far beyond double range (``m!`` with
``m = 200``). Inputs are trusted; the model modules check theta and m with :func:`check_theta`
and :func:`check_m`.
"""

from __future__ import annotations

import functools
import itertools
import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "EXACT_CENTER_MAX_ITEMS",
    "EXACT_CENTER_MAX_WORK",
    "all_orders",
    "check_m",
    "check_theta",
    "distance_pmf",
    "log_moments",
    "sample_distances",
    "search_center",
    "weighted_unique_rows",
]

#: Largest number of items for which the exhaustive centre search (:func:`search_center`,
#: the Cayley and Ulam families) enumerates every centre by default.
EXACT_CENTER_MAX_ITEMS = 8
#: Largest ``m! * (distinct rows)`` the automatic exhaustive search takes on (about a
#: second on unclustered data, where the bound prunes little).
EXACT_CENTER_MAX_WORK = 10**7


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


def _support(log_counts: np.ndarray, support: np.ndarray | None) -> np.ndarray:
    if support is None:
        return np.arange(log_counts.shape[0], dtype=np.float64)
    return np.asarray(support, dtype=np.float64)


def _log_weights(
    theta: np.ndarray, log_counts: np.ndarray, support: np.ndarray | None = None
) -> np.ndarray:
    """``log N(d) - theta d``, shape ``theta.shape + (len(d),)``; ``theta = inf`` keeps d = 0."""
    d = _support(log_counts, support)
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


def log_moments(
    theta: Any, log_counts: np.ndarray, support: np.ndarray | None = None
) -> tuple[Any, Any, Any]:
    """``log psi``, mean and variance of the distance at each theta.

    Parameters
    ----------
    theta : float or ndarray of float
        Dispersions ``>= 0`` (checked by the caller).
    log_counts : ndarray of float64, shape (D + 1,) or (len(support),)
        ``log N(d)`` for ``d = 0..D`` (or for the values of ``support``), ``-inf`` for empty
        distances; ``N(0) = 1``.
    support : ndarray of float, optional
        The distances ``log_counts`` refers to (default ``0..D``).

    Returns
    -------
    log_psi, mean, var : float or ndarray (the shape of ``theta``)

    Notes
    -----
    Complexity: O(u D) time and memory for u values of theta.
    """
    th = np.asarray(theta, dtype=np.float64)
    a = _log_weights(th, log_counts, support)
    log_psi = _logsumexp(a)
    p = np.exp(a - log_psi[..., None])
    d = _support(log_counts, support)
    mean = p @ d
    # the centred second moment (the raw one cancels when the variance is tiny)
    var = np.maximum(np.einsum("...d,...d->...", p, (d - mean[..., None]) ** 2), 0.0)
    if th.ndim == 0:
        return float(log_psi), float(mean), float(var)
    return log_psi, mean, var


def distance_pmf(
    theta: float, log_counts: np.ndarray, support: np.ndarray | None = None
) -> np.ndarray:
    """``P(d)`` for ``d = 0..D`` (or over ``support``) at one theta (sums to 1). O(D)."""
    a = _log_weights(np.asarray(float(theta)), log_counts, support)
    return np.exp(a - _logsumexp(a))


def sample_distances(
    theta: float,
    log_counts: np.ndarray,
    support: np.ndarray | None,
    size: int,
    rng: np.random.RandomState,
) -> np.ndarray:
    """``size`` independent draws of the distance, as indices into ``log_counts``. O(D + size)."""
    p = distance_pmf(theta, log_counts, support)
    return rng.choice(len(p), size=size, p=p)


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


def search_center(
    ranks: np.ndarray,
    weights: np.ndarray,
    *,
    family: str,
    exact: bool | None,
    init: np.ndarray | None,
    starts: Callable[[np.ndarray, np.ndarray], list],
    local_search: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, float]],
    exact_search: Callable[..., Any],
) -> np.ndarray:
    """The weighted centre of a distance family with no closed-form centre (Cayley, Ulam).

    The distinct rows, heaviest first, are searched locally from ``starts(A, w)`` (or from
    ``init`` alone), keeping the cheapest local optimum; with ``exact`` (None: when ``m <=``
    :data:`EXACT_CENTER_MAX_ITEMS` and ``m! u <=`` :data:`EXACT_CENTER_MAX_WORK`) every
    ordering is then tried by ``exact_search(orders, A, w, bound, best)``, bounded by the
    local optimum's cost, which writes the best ordering into ``best``. Inputs are trusted
    (complete rankings, non-negative weights).

    ``local_search(A, w, centre) -> (centre, cost)``; ``family`` names the distance in the
    error raised when ``exact=True`` is asked of more than 10 items.

    Complexity: as the family's searches (see its ``estimate_center``).
    """
    A, w = weighted_unique_rows(ranks, weights)
    m = A.shape[1]
    if m <= 1 or A.shape[0] == 0:
        return np.arange(m, dtype=np.int64)
    if exact is None:
        exact = (
            m <= EXACT_CENTER_MAX_ITEMS and math.factorial(m) * A.shape[0] <= EXACT_CENTER_MAX_WORK
        )
    if exact and m > 10:
        raise ValueError(f"the exact {family} centre enumerates m! centres; m = {m} > 10")
    by_weight = np.argsort(-w, kind="stable")
    A, w = np.ascontiguousarray(A[by_weight]), w[by_weight]
    candidates = [init] if init is not None else starts(A, w)
    results = [local_search(A, w, np.asarray(c, dtype=np.int64)) for c in candidates]
    center, cost = min(results, key=lambda r: r[1])
    if exact:
        best = np.argsort(center).astype(np.int64)
        exact_search(all_orders(m), A, w, cost + 1e-12 * max(cost, 1.0), best)
        center = np.argsort(best).astype(np.int64)
    return center
