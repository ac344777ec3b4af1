"""The Cayley-Mallows model: closed-form normaliser, moments, exact sampler and centre MLE.

The model is ``P(pi) = exp(-theta d_C(pi, center)) / psi(theta)`` with Cayley's distance
``d_C = m - (number of cycles of pi o center^{-1})``, the fewest transpositions turning one
ranking into the other (:func:`rankclust.distances.cayley_distances`). Rankings are position
vectors (``center[j]`` = 0-based position of item ``j``).

Stage-wise form (Fligner & Verducci 1986; Irurozki, Calvo & Lozano 2016): build a permutation
by placing items ``k = 0..m-1`` one at a time (the Chinese-restaurant construction) -- item
``k`` either opens a new cycle, or is inserted after one of the ``k`` items already placed
in their cycles. Each permutation arises from exactly one sequence of choices, and its
distance is the number of insertions. Under the model the choices are independent: item
``k`` is inserted with probability ``k q / (1 + k q)``, ``q = e^{-theta}``, and then after a
uniformly chosen earlier item. Hence

* ``log psi = sum_{j=1}^{m-1} log(1 + j e^{-theta})`` (closed form; ``log m!`` at 0),
* the distance is a sum of independent Bernoulli variables ``X_j`` with
  ``P(X_j = 1) = j e^{-theta} / (1 + j e^{-theta})``, giving its mean and variance,
* the construction is an exact sampler,
* the number of permutations at distance ``d`` is the coefficient of ``x^d`` in
  ``prod_{j=1}^{m-1} (1 + j x)`` (unsigned Stirling numbers of the first kind ``c(m, m-d)``).

References
----------
Fligner, M. A. and Verducci, J. S. (1986). Distance based ranking models. *JRSS B* 48, 359-369.

Irurozki, E., Calvo, B. and Lozano, J. A. (2016). PerMallows: an R package for Mallows and
generalized Mallows models. *Journal of Statistical Software* 71(12).

Irurozki, E., Calvo, B. and Lozano, J. A. (2019). Sampling and learning Mallows and
generalized Mallows models under the Cayley distance. *Methodology and Computing in Applied
Probability* 20, 1-35.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from rankclust._compiled import cayley_pair
from rankclust.consensus import generalized_borda
from rankclust.models import _mallows_hamming
from rankclust.models._mallows_counts import (
    EXACT_CENTER_MAX_ITEMS,
    EXACT_CENTER_MAX_WORK,
    check_m,
    check_theta,
    search_center,
)
from rankclust.rankings import Rankings

__all__ = [
    "EXACT_CENTER_MAX_ITEMS",
    "EXACT_CENTER_MAX_WORK",
    "distance_counts",
    "distance_variance",
    "estimate_center",
    "expected_distance",
    "log_distance_counts",
    "log_normalizer",
    "sample",
]


def _insert_probs(theta: np.ndarray, m: int) -> np.ndarray:
    """``P(X_j = 1) = j q / (1 + j q)`` for ``j = 1..m-1``, shape ``theta.shape + (m-1,)``."""
    j = np.arange(1, max(m, 1), dtype=np.float64)
    jq = j * np.exp(-theta[..., None])  # 0 at theta = inf
    return jq / (1.0 + jq)


def _out(x: np.ndarray) -> Any:
    return float(x) if x.ndim == 0 else x


def log_normalizer(theta: Any, m: int) -> Any:
    """``log psi(theta) = sum_{j=1}^{m-1} log(1 + j e^{-theta})`` (closed form).

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
    ``log1p`` keeps the relative precision for large theta (``log psi ~ m(m-1)/2 e^-theta``).

    Complexity: O(u m) time and memory for u values of theta.

    Examples
    --------
    >>> round(log_normalizer(0.0, 5), 10) == round(math.log(120), 10)
    True
    """
    m = check_m(m)
    th = check_theta(theta)
    j = np.arange(1, max(m, 1), dtype=np.float64)
    return _out(np.log1p(j * np.exp(-th[..., None])).sum(axis=-1))


def expected_distance(theta: Any, m: int) -> Any:
    """Expected Cayley distance to the centre, ``sum_j j e^{-theta} / (1 + j e^{-theta})``.

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
    ``m - H_m`` at ``theta = 0`` (a uniform permutation has ``H_m`` cycles on average);
    strictly decreasing to 0.

    Complexity: O(u m) time and memory for u values of theta.

    Examples
    --------
    >>> round(expected_distance(0.0, 3), 12)  # 3 - (1 + 1/2 + 1/3)
    1.166666666667
    """
    return _out(_insert_probs(check_theta(theta), check_m(m)).sum(axis=-1))


def distance_variance(theta: Any, m: int) -> Any:
    """Variance of the Cayley distance, ``sum_j p_j (1 - p_j)`` (independent Bernoullis).

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
    Complexity: O(u m) time and memory for u values of theta.

    Examples
    --------
    >>> distance_variance(0.0, 2)
    0.25
    """
    p = _insert_probs(check_theta(theta), check_m(m))
    return _out((p * (1.0 - p)).sum(axis=-1))


def distance_counts(m: int) -> list[int]:
    """Number of permutations of ``m`` items at each Cayley distance ``0..m-1`` from a centre.

    Parameters
    ----------
    m : int
        Number of items, ``>= 1``.

    Returns
    -------
    list of int
        The coefficients of ``prod_{j=1}^{m-1} (1 + j x)`` (summing to ``m!``).

    Notes
    -----
    Complexity: O(m^2) big-integer operations.

    Examples
    --------
    >>> distance_counts(4)
    [1, 6, 11, 6]
    """
    m = check_m(m)
    poly = [1]
    for j in range(1, m):
        poly = [a + j * b for a, b in zip([*poly, 0], [0, *poly], strict=True)]
    return poly


def log_distance_counts(m: int) -> np.ndarray:
    """``log N_m(d)`` for ``d = 0..m-1`` (``m >= 1``): the log of :func:`distance_counts`.

    Parameters
    ----------
    m : int
        Number of items, ``>= 1``.

    Returns
    -------
    ndarray of float64, shape (m,)

    Notes
    -----
    Complexity: O(m^2) big-integer operations, O(m) memory.

    Examples
    --------
    >>> np.exp(log_distance_counts(3)).round(6).tolist()
    [1.0, 3.0, 2.0]
    """
    return np.array([math.log(c) for c in distance_counts(m)], dtype=np.float64)


def sample(center: np.ndarray, theta: float, size: int, rng: np.random.RandomState) -> np.ndarray:
    """Exact draws from the Cayley-Mallows model by the stage-wise construction.

    Items ``k = 0..m-1`` are placed in turn: with probability ``1 / (1 + k e^{-theta})``
    item ``k`` starts a new cycle, otherwise it is inserted after a uniformly chosen item
    among ``0..k-1`` (in that item's cycle). The permutation ``sigma`` so built has
    ``P(sigma) = e^{-theta d_C(sigma, id)} / psi`` (see the module docstring), and the draw is
    ``center[sigma]`` (so that ``sigma`` is the map ``pi o center^{-1}`` on items).

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
    Vectorised over the draws: m steps of O(size) numpy work.

    Complexity: O(size m) time and memory.
    """
    center = np.asarray(center, dtype=np.int64)
    m = center.shape[0]
    th = float(check_theta(theta))
    size = int(size)
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    nxt = np.empty((size, m), dtype=np.int64)  # sigma: item -> next item in its cycle
    rows = np.arange(size)
    q = math.exp(-th)
    for k in range(m):
        nxt[:, k] = k
        if k == 0:
            continue
        insert = rng.random_sample(size) < k * q / (1.0 + k * q)
        after = rng.randint(0, k, size=size)
        r, a = rows[insert], after[insert]
        nxt[r, k] = nxt[r, a]
        nxt[r, a] = k
    return center[nxt]


# --------------------------------------------------------------------------------------------
# centre
# --------------------------------------------------------------------------------------------
def _exact_center(orders, A, w, best, out):  # pragma: no cover - compiled below
    """Over every candidate ordering ``orders[k]`` (items best first), the weighted Cayley
    cost of the rows ``A`` (positions); an ordering costing less than ``best`` (a bound, e.g.
    the cost of ``out`` on entry) replaces ``out``. Returns the best cost. Rows should come
    heaviest first: a candidate is dropped once its partial cost reaches the best so far."""
    n, m = A.shape
    seen = np.zeros(m, dtype=np.bool_)
    for k in range(orders.shape[0]):
        cost = 0.0
        for i in range(n):
            cost += w[i] * cayley_pair(A[i], orders[k], seen)
            if cost >= best:
                break
        if cost < best:
            best = cost
            out[:] = orders[k]
    return best


def _same_cycle_weights(A, order_c, w, S):  # pragma: no cover - compiled below
    """``S[u, v] = sum_i w_i [u, v in one cycle of j -> order_c[A[i, j]]]`` (S zeroed here)."""
    n, m = A.shape
    label = np.empty(m, dtype=np.int64)
    S[:, :] = 0.0
    for i in range(n):
        for j in range(m):
            label[j] = -1
        c = 0
        for j in range(m):
            if label[j] >= 0:
                continue
            x = j
            while label[x] < 0:
                label[x] = c
                x = order_c[A[i, x]]
            c += 1
        for u in range(m):
            for v in range(u + 1, m):
                if label[u] == label[v]:
                    S[u, v] += w[i]


_nb_exact_center = numba.njit(_exact_center, cache=True, nogil=True)
_nb_same_cycle_weights = numba.njit(_same_cycle_weights, cache=True, nogil=True)


def _cost(A: np.ndarray, w: np.ndarray, center: np.ndarray) -> float:
    seen = np.zeros(A.shape[1], dtype=np.bool_)
    order = np.argsort(center)
    return float(sum(wi * cayley_pair(a, order, seen) for a, wi in zip(A, w, strict=True)))


def _local_search(A: np.ndarray, w: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, float]:
    """Steepest descent over transpositions of the centre (swap the positions of two items).

    Swapping ``u`` and ``v`` composes every row's map ``pi_i o center^{-1}`` with the
    transposition ``(u v)``: it splits a cycle (distance - 1) when ``u, v`` share one and
    merges two (distance + 1) otherwise, so the cost changes by ``W - 2 S[u, v]``.
    """
    center = center.copy()
    m = A.shape[1]
    W = float(w.sum())
    S = np.zeros((m, m))
    tol = 1e-12 * max(W, 1.0)
    while m >= 2:
        _nb_same_cycle_weights(A, np.argsort(center), w, S)
        u, v = np.unravel_index(int(np.argmax(S)), S.shape)
        if W - 2.0 * S[u, v] >= -tol:
            break
        center[[u, v]] = center[[v, u]]
    return center, _cost(A, w, center)


def estimate_center(
    ranks: np.ndarray,
    weights: np.ndarray,
    *,
    exact: bool | None = None,
    init: np.ndarray | None = None,
) -> np.ndarray:
    """Weighted MLE of the Cayley-Mallows centre: minimise ``sum_i w_i d_C(r_i, c)``.

    The minimiser does not depend on ``theta > 0``.

    * **Exact** when ``exact=True``, or by default when ``m <= EXACT_CENTER_MAX_ITEMS`` (8)
      and ``m! * (distinct rows) <= EXACT_CENTER_MAX_WORK``: every one of the ``m!`` centres
      is tried, a candidate being abandoned once its partial cost (rows heaviest first)
      reaches the best so far, which starts at the local search's result.
    * Otherwise only the **local search, returning a local optimum**: steepest descent over
      transpositions of the centre (each move's cost change for all ``m(m-1)/2`` swaps at once
      from the rows' cycle structure, O(n m^2)), from several starts -- the exact Hamming
      centre (:func:`rankclust.models._mallows_hamming.estimate_center`), the Borda ranking and
      the three heaviest distinct rows -- keeping the best.

    Parameters
    ----------
    ranks : ndarray of int, shape (n, m)
        Complete rankings (each row a permutation of ``0..m-1``); trusted.
    weights : ndarray of float, shape (n,)
        Non-negative row weights.
    exact : bool, optional
        Force (True) or forbid (False) the exhaustive search; None decides as above.
    init : ndarray of int, shape (m,), optional
        A centre to start the local search from, instead of the default starts (a warm
        start, e.g. the previous centre in an EM loop). The exhaustive search starts its
        bound from the local search's result, so its answer does not depend on ``init``.

    Returns
    -------
    ndarray of int64, shape (m,)
        A centre (position vector).

    Notes
    -----
    Complexity: exact O(m! u m) time, O(m! m) memory (u distinct rows); local search
    O(T u m^2) time per start for T moves, O(u m + m^2) memory.
    """
    return search_center(
        ranks,
        weights,
        family="Cayley",
        exact=exact,
        init=init,
        starts=lambda A, w: [
            _mallows_hamming.estimate_center(A, w),
            generalized_borda(Rankings(A), w),
            *A[: min(3, A.shape[0])],
        ],
        local_search=_local_search,
        exact_search=_nb_exact_center,
    )
