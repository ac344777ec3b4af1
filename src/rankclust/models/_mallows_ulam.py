"""The Ulam-Mallows model: exact normaliser by RSK counting, exact sampler and centre MLE.

The model is ``P(pi) = exp(-theta d_U(pi, center)) / psi(theta)`` with Ulam's distance
``d_U = m - LIS`` (:func:`rankclust.distances.ulam_distances`): ``m`` minus the length of the
longest increasing subsequence of ``pi`` read in the centre's order, the fewest moves of one
item to another place. Rankings are position vectors (``center[j]`` = 0-based position of
item ``j``).

Distance counts by the Robinson-Schensted correspondence: permutations of ``m`` are in
bijection with pairs ``(P, Q)`` of standard Young tableaux of one shape ``lambda`` (a
partition of ``m``), and the longest increasing subsequence is the first part ``lambda_1``
(Schensted 1961). So the number of permutations at distance ``d`` is

    ``N_m(d) = sum over partitions lambda of m with lambda_1 = m - d of (f^lambda)^2``,

``f^lambda = m! / prod(hook lengths)`` (hook length formula). The partitions are enumerated in
a numba kernel and each ``log (f^lambda)^2`` is summed into its ``d`` in log space, once per
``m`` (cached). There are ``p(m)`` partitions (204 226 for ``m = 50``, 4.1 million for
``m = 70``), so the exact normaliser stops at :data:`EXACT_MAX_ITEMS`; larger ``m`` raises a
``ValueError`` (no approximation is offered here).

Exact sampler: draw the distance from its law, a shape ``lambda`` with first part ``m - d``
with probability proportional to ``(f^lambda)^2``, two independent uniform standard Young
tableaux of that shape by the hook walk of Greene, Nijenhuis & Wilf (1979), and map the pair
to a permutation by inverse RSK: every permutation at distance ``d`` is equally likely.

References
----------
Schensted, C. (1961). Longest increasing and decreasing subsequences. *Canadian Journal of
Mathematics* 13, 179-191.

Greene, C., Nijenhuis, A. and Wilf, H. S. (1979). A probabilistic proof of a formula for the
number of Young tableaux of a given shape. *Advances in Mathematics* 31, 104-109.

Irurozki, E., Calvo, B. and Lozano, J. A. (2016). PerMallows: an R package for Mallows and
generalized Mallows models. *Journal of Statistical Software* 71(12) (Ulam-Mallows).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numba
import numpy as np

from rankclust._compiled import ulam_pair
from rankclust._kernel_random import xoshiro_state, xoshiro_uniform
from rankclust.consensus import generalized_borda
from rankclust.models._mallows_counts import (
    EXACT_CENTER_MAX_ITEMS,
    EXACT_CENTER_MAX_WORK,
    check_m,
    check_theta,
    distance_pmf,
    log_moments,
    search_center,
)
from rankclust.rankings import Rankings

__all__ = [
    "EXACT_CENTER_MAX_ITEMS",
    "EXACT_CENTER_MAX_WORK",
    "EXACT_MAX_ITEMS",
    "distance_variance",
    "estimate_center",
    "expected_distance",
    "log_distance_counts",
    "log_normalizer",
    "sample",
]

#: Largest ``m`` of the exact normaliser (p(70) = 4 087 968 partitions, about a second).
EXACT_MAX_ITEMS = 70


# --------------------------------------------------------------------------------------------
# partitions and hook lengths (compiled)
# --------------------------------------------------------------------------------------------
def _log_hook_product(lam, nrows, conj, log_int):  # pragma: no cover - compiled below
    """``sum log(hook length)`` over the cells of the shape ``lam[:nrows]`` (``conj`` is a
    buffer of length >= lam[0]). O(m)."""
    for j in range(lam[0]):
        conj[j] = 0
    for i in range(nrows):
        for j in range(lam[i]):
            conj[j] += 1
    out = 0.0
    for i in range(nrows):
        li = lam[i]
        for j in range(li):
            out += log_int[li - j + conj[j] - i - 1]
    return out


_nb_log_hook_product = numba.njit(_log_hook_product, cache=True, nogil=True)


def _shapes_with_first_part(
    m, first, log_int, log_fact_m, shapes, log_w, store
):  # pragma: no cover
    """Enumerate the partitions of ``m`` whose first part is ``first``; return their number.

    Each shape's ``log (f^lambda)^2`` is computed from the hook lengths (``log_int[h] = log h``).
    With ``store`` the shapes go to ``shapes`` (row lengths, zero padded) and the values to
    ``log_w``; otherwise ``log_w[0]`` receives their log-sum-exp (``-inf`` when none).
    The tail (a partition of ``m - first`` with parts ``<= first``) is walked in reverse
    lexicographic order. O(p m) time for p shapes.
    """
    r = m - first
    lam = np.zeros(m + 1, dtype=np.int64)
    conj = np.zeros(first + 1, dtype=np.int64)
    lam[0] = first
    a = lam[1:]  # the tail, a view
    k = -1
    if r > 0:
        q = r // first
        rem = r - q * first
        for i in range(q):
            a[i] = first
        k = q - 1
        if rem > 0:
            k += 1
            a[k] = rem
    count = 0
    mx = -np.inf
    s = 0.0
    while True:
        nrows = k + 2
        lw = 2.0 * (log_fact_m - _nb_log_hook_product(lam, nrows, conj, log_int))
        if store:
            for i in range(nrows):
                shapes[count, i] = lam[i]
            log_w[count] = lw
        elif lw > mx:
            s = s * np.exp(mx - lw) + 1.0
            mx = lw
        else:
            s += np.exp(lw - mx)
        count += 1
        # next tail in reverse lexicographic order
        rem = 0
        while k >= 0 and a[k] == 1:
            rem += 1
            a[k] = 0
            k -= 1
        if k < 0:
            break
        a[k] -= 1
        rem += 1
        x = a[k]
        while rem > x:
            k += 1
            a[k] = x
            rem -= x
        k += 1
        a[k] = rem
    if not store:
        log_w[0] = mx + np.log(s) if count > 0 else -np.inf
    return count


_nb_shapes_with_first_part = numba.njit(_shapes_with_first_part, cache=True, nogil=True)


def _log_tables(m: int) -> tuple[np.ndarray, float]:
    log_int = np.log(np.maximum(np.arange(2 * m + 1, dtype=np.float64), 1.0))
    log_int[0] = -np.inf
    return log_int, math.lgamma(m + 1)


@functools.lru_cache(maxsize=32)
def _tables(m: int) -> tuple[np.ndarray, np.ndarray]:
    """``log N_m(d)`` for ``d = 0..m-1`` and the number of shapes with first part ``m - d``."""
    if m > EXACT_MAX_ITEMS:
        raise ValueError(
            f"the exact Ulam normaliser enumerates the partitions of m; m = {m} > "
            f"{EXACT_MAX_ITEMS} is not supported"
        )
    log_int, log_fact = _log_tables(m)
    n = max(m, 1)
    log_counts = np.full(n, -np.inf)
    n_shapes = np.zeros(n, dtype=np.int64)
    buf = np.zeros(1)
    dummy = np.zeros((1, 1), dtype=np.int64)
    if m == 0:
        log_counts[0] = 0.0
        n_shapes[0] = 1
    for first in range(1, m + 1):
        n_shapes[m - first] = _nb_shapes_with_first_part(
            m, first, log_int, log_fact, dummy, buf, False
        )
        log_counts[m - first] = buf[0]
    # the counts are integers: below 2^50 round them, so that e.g. N(0) = 1 gives exactly 0
    # (log psi then keeps its relative precision at large theta)
    small = log_counts < 50 * math.log(2)
    log_counts[small] = np.log(np.rint(np.exp(log_counts[small])))
    log_counts.setflags(write=False)
    n_shapes.setflags(write=False)
    return log_counts, n_shapes


def _shapes(m: int, first: int) -> tuple[np.ndarray, np.ndarray]:
    """All shapes of ``m`` with first part ``first`` (rows, zero padded) and their
    ``log (f^lambda)^2``."""
    count = int(_tables(m)[1][m - first])
    log_int, log_fact = _log_tables(m)
    shapes = np.zeros((count, m), dtype=np.int64)
    log_w = np.zeros(count)
    _nb_shapes_with_first_part(m, first, log_int, log_fact, shapes, log_w, True)
    return shapes, log_w


def log_distance_counts(m: int) -> np.ndarray:
    """``log N_m(d)``: log number of permutations of ``m`` items at Ulam distance ``d = 0..m-1``.

    Parameters
    ----------
    m : int
        Number of items, ``0 <= m <= EXACT_MAX_ITEMS``.

    Returns
    -------
    ndarray of float64, shape (max(m, 1),)
        Read-only, cached per ``m``. ``exp`` of it sums to ``m!``.

    Notes
    -----
    Complexity: O(p(m) m) time for the p(m) partitions of m, O(m) memory; cached.

    Examples
    --------
    >>> np.rint(np.exp(log_distance_counts(4))).astype(int).tolist()  # LIS 4, 3, 2, 1
    [1, 9, 13, 1]
    """
    return _tables(check_m(m))[0]


# --------------------------------------------------------------------------------------------
# normaliser and moments
# --------------------------------------------------------------------------------------------
def log_normalizer(theta: Any, m: int) -> Any:
    """``log psi(theta) = log sum_d N_m(d) e^{-theta d}`` (exact counts, log space).

    Parameters
    ----------
    theta : float or array-like of float
        Dispersion(s), ``>= 0`` (``inf`` gives 0, the point mass).
    m : int
        Number of items, at most :data:`EXACT_MAX_ITEMS`.

    Returns
    -------
    float or ndarray (the shape of ``theta``)

    Raises
    ------
    ValueError
        If ``m > EXACT_MAX_ITEMS``.

    Notes
    -----
    The first call for a given ``m`` enumerates its partitions (see the module docstring);
    later calls are a log-sum-exp over ``m`` terms.

    Complexity: O(p(m) m) time once per m, then O(u m) for u values of theta.

    Examples
    --------
    >>> round(log_normalizer(0.0, 5), 10) == round(math.log(120), 10)
    True
    """
    return log_moments(check_theta(theta), log_distance_counts(m))[0]


def expected_distance(theta: Any, m: int) -> Any:
    """Expected Ulam distance to the centre, ``-d/dtheta log psi``; strictly decreasing.

    Parameters
    ----------
    theta : float or array-like of float
        Dispersion(s), ``>= 0``.
    m : int
        Number of items, at most :data:`EXACT_MAX_ITEMS`.

    Returns
    -------
    float or ndarray

    Notes
    -----
    Complexity: as :func:`log_normalizer`.

    Examples
    --------
    >>> expected_distance(0.0, 3)  # LIS 3: 1 permutation, 2: 4, 1: 1
    1.0
    """
    return log_moments(check_theta(theta), log_distance_counts(m))[1]


def distance_variance(theta: Any, m: int) -> Any:
    """Variance of the Ulam distance to the centre, ``d^2/dtheta^2 log psi``.

    Parameters
    ----------
    theta : float or array-like of float
        Dispersion(s), ``>= 0``.
    m : int
        Number of items, at most :data:`EXACT_MAX_ITEMS`.

    Returns
    -------
    float or ndarray

    Notes
    -----
    Complexity: as :func:`log_normalizer`.

    Examples
    --------
    >>> round(distance_variance(0.0, 3), 12)
    0.333333333333
    """
    return log_moments(check_theta(theta), log_distance_counts(m))[2]


# --------------------------------------------------------------------------------------------
# exact sampler: shape, two uniform tableaux (hook walk), inverse RSK
# --------------------------------------------------------------------------------------------
def _hook_walk(shape, rng, cur, conj, T):  # pragma: no cover - compiled below
    """A uniform standard Young tableau of ``shape`` (Greene, Nijenhuis & Wilf 1979) into
    ``T`` (entries 0..m-1). ``cur`` and ``conj`` are work buffers of length >= m."""
    m = shape.shape[0]
    n = 0
    for i in range(m):
        cur[i] = shape[i]
        conj[i] = 0
        n += shape[i]
    for i in range(m):
        for j in range(cur[i]):
            conj[j] += 1
    for num in range(n, 0, -1):
        r = int(xoshiro_uniform(rng) * num)
        i = 0
        while r >= cur[i]:
            r -= cur[i]
            i += 1
        j = r
        while True:
            arm = cur[i] - j - 1
            leg = conj[j] - i - 1
            if arm + leg == 0:
                break
            t = int(xoshiro_uniform(rng) * (arm + leg)) + 1
            if t <= arm:
                j += t
            else:
                i += t - arm
        T[i, j] = num - 1
        cur[i] -= 1
        conj[j] -= 1


def _inverse_rsk(shape, P, Q, rowlen, qi, qj, out):  # pragma: no cover - compiled below
    """The permutation (a word of 0..m-1, into ``out``) whose RSK pair is ``(P, Q)``.

    The largest entry of ``Q`` marks the cell last created; the entry of ``P`` there is
    reverse-bumped up the rows (it replaces the largest smaller entry of each row above),
    and what leaves the first row is the last letter. ``P`` is overwritten."""
    m = shape.shape[0]
    for i in range(m):
        rowlen[i] = shape[i]
        for j in range(shape[i]):
            qi[Q[i, j]] = i
            qj[Q[i, j]] = j
    for k in range(m - 1, -1, -1):
        i = qi[k]
        x = P[i, qj[k]]
        rowlen[i] -= 1
        for r in range(i - 1, -1, -1):
            lo = 0
            hi = rowlen[r]
            while lo < hi:  # first entry > x
                mid = (lo + hi) // 2
                if P[r, mid] < x:
                    lo = mid + 1
                else:
                    hi = mid
            y = P[r, lo - 1]
            P[r, lo - 1] = x
            x = y
        out[k] = x


_nb_hook_walk = numba.njit(_hook_walk, cache=True, nogil=True)
_nb_inverse_rsk = numba.njit(_inverse_rsk, cache=True, nogil=True)


def _words_of_shapes(shapes, rng, out):  # pragma: no cover - compiled below
    """For each shape row, a uniform permutation with that RSK shape (into ``out``)."""
    k, m = shapes.shape
    cur = np.zeros(m, dtype=np.int64)
    conj = np.zeros(m, dtype=np.int64)
    P = np.zeros((m, m), dtype=np.int64)
    Q = np.zeros((m, m), dtype=np.int64)
    rowlen = np.zeros(m, dtype=np.int64)
    qi = np.zeros(m, dtype=np.int64)
    qj = np.zeros(m, dtype=np.int64)
    for s in range(k):
        _nb_hook_walk(shapes[s], rng, cur, conj, P)
        _nb_hook_walk(shapes[s], rng, cur, conj, Q)
        _nb_inverse_rsk(shapes[s], P, Q, rowlen, qi, qj, out[s])


_nb_words_of_shapes = numba.njit(_words_of_shapes, cache=True, nogil=True)


def sample(center: np.ndarray, theta: float, size: int, rng: np.random.RandomState) -> np.ndarray:
    """Exact draws from the Ulam-Mallows model (RSK; see the module docstring).

    Parameters
    ----------
    center : ndarray of int, shape (m,)
        A permutation of ``0..m-1`` (positions); ``m <= EXACT_MAX_ITEMS``.
    theta : float
        Dispersion, ``>= 0``.
    size : int
        Number of draws.
    rng : numpy.random.RandomState
        Draws the distances and shapes, and seeds the kernel's xoshiro256** stream.

    Returns
    -------
    ndarray of int64, shape (size, m)
        Position vectors.

    Notes
    -----
    The shapes with a drawn first part are enumerated once per distinct first part.

    Complexity: O(size m^{3/2} log m) expected time for the tableaux and inverse RSK (a hook
    walk takes O(m^{1/2}) expected steps per cell on typical shapes), plus O(p(m) m) for the
    shape enumeration; O(size m + p(m) m) memory.
    """
    center = np.asarray(center, dtype=np.int64)
    m = center.shape[0]
    th = float(check_theta(theta))
    size = int(size)
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    if m == 0:
        return np.zeros((size, 0), dtype=np.int64)
    p = distance_pmf(th, log_distance_counts(m))
    dist = rng.choice(m, size=size, p=p / p.sum())
    chosen = np.zeros((size, m), dtype=np.int64)
    for d in np.unique(dist):
        rows = np.flatnonzero(dist == d)
        shapes, log_w = _shapes(m, m - int(d))
        q = np.exp(log_w - log_w.max())
        chosen[rows] = shapes[rng.choice(shapes.shape[0], size=rows.size, p=q / q.sum())]
    state = xoshiro_state(int(rng.randint(0, np.iinfo(np.int64).max, dtype=np.int64)))
    words = np.zeros((size, m), dtype=np.int64)
    _nb_words_of_shapes(chosen, state, words)
    # the word lists the positions of the items taken in the centre's order
    return np.take_along_axis(words, np.broadcast_to(center, (size, m)), axis=1)


# --------------------------------------------------------------------------------------------
# centre
# --------------------------------------------------------------------------------------------
def _total_cost(A, w, order, best, tails):  # pragma: no cover - compiled below
    """``sum_i w_i d_U(A[i], center)`` for the centre listing ``order`` best first; stops
    (returning a value >= best) once the partial sum reaches ``best``."""
    cost = 0.0
    for i in range(A.shape[0]):
        cost += w[i] * ulam_pair(A[i], order, tails)
        if cost >= best:
            return cost
    return cost


_nb_total_cost = numba.njit(_total_cost, cache=True, nogil=True)


def _exact_center(orders, A, w, best, out):  # pragma: no cover - compiled below
    """Over the candidate orderings ``orders``, one costing less than ``best`` (a bound, e.g.
    the cost of ``out`` on entry) replaces ``out``; returns the best cost."""
    tails = np.zeros(A.shape[1], dtype=np.int64)
    for k in range(orders.shape[0]):
        cost = _nb_total_cost(A, w, orders[k], best, tails)
        if cost < best:
            best = cost
            out[:] = orders[k]
    return best


def _best_insertion(A, w, order, current, out):  # pragma: no cover - compiled below
    """The best centre one insertion move away from ``order`` (take the item at place p,
    put it at place q != p), if it costs less than ``current``: written to ``out``, cost
    returned (``current`` and ``out = order`` when no move improves)."""
    m = order.shape[0]
    tails = np.zeros(m, dtype=np.int64)
    cand = np.empty(m, dtype=np.int64)
    best = current
    out[:] = order
    for p in range(m):
        for q in range(m):
            # q = p gives ``order`` back; q = p - 1 (an adjacent swap) is also (p - 1, p)
            if q == p or q == p - 1:
                continue
            item = order[p]
            t = 0
            for s in range(m):
                if s == p:
                    continue
                if t == q:
                    cand[t] = item
                    t += 1
                cand[t] = order[s]
                t += 1
            if t == q:
                cand[t] = item
            cost = _nb_total_cost(A, w, cand, best, tails)
            if cost < best:
                best = cost
                out[:] = cand
    return best


_nb_exact_center = numba.njit(_exact_center, cache=True, nogil=True)
_nb_best_insertion = numba.njit(_best_insertion, cache=True, nogil=True)


def _local_search(A: np.ndarray, w: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, float]:
    """Steepest descent over insertion moves of the centre; returns (centre, cost)."""
    order = np.argsort(center).astype(np.int64)
    tails = np.zeros(A.shape[1], dtype=np.int64)
    cost = _nb_total_cost(A, w, order, np.inf, tails)
    nxt = np.empty_like(order)
    tol = 1e-12 * max(float(w.sum()), 1.0)
    while True:
        new = _nb_best_insertion(A, w, order, cost - tol, nxt)
        if new >= cost - tol:
            break
        order, nxt, cost = nxt.copy(), order, new
    return np.argsort(order).astype(np.int64), cost


def estimate_center(
    ranks: np.ndarray,
    weights: np.ndarray,
    *,
    exact: bool | None = None,
    init: np.ndarray | None = None,
) -> np.ndarray:
    """Weighted MLE of the Ulam-Mallows centre: minimise ``sum_i w_i d_U(r_i, c)``.

    The minimiser does not depend on ``theta > 0``.

    * **Exact** when ``exact=True``, or by default when ``m <= EXACT_CENTER_MAX_ITEMS`` (8)
      and ``m! * (distinct rows) <= EXACT_CENTER_MAX_WORK``: every one of the ``m!`` centres
      is tried, a candidate being abandoned once its partial cost (rows heaviest first)
      reaches the best so far, which starts at the local search's result.
    * Otherwise only the **local search, returning a local optimum**: steepest descent over
      insertion moves (take one item out of the centre, put it back elsewhere; all
      ``(m-1)^2`` moves tried per step) from several starts -- the Borda ranking and the three
      heaviest distinct rows -- keeping the best.

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
    Complexity: exact O(m! u m log m) time, O(m! m) memory (u distinct rows); local search
    O(T m^2 u m log m) time per start for T moves, O(u m) memory.
    """
    return search_center(
        ranks,
        weights,
        family="Ulam",
        exact=exact,
        init=init,
        starts=lambda A, w: [generalized_borda(Rankings(A), w), *A[: min(3, A.shape[0])]],
        local_search=_local_search,
        exact_search=_nb_exact_center,
    )
