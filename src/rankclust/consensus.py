"""Consensus (central) rankings from pairwise count matrices: Borda, Copeland, Kemeny.

Every rule here except :func:`generalized_borda` reads one sufficient statistic, the
**pairwise count matrix** ``C`` of shape ``(m, m)``: ``C[u, v]`` is the (weighted) number of
rankings that place item ``u`` above item ``v``, as returned by
:meth:`rankclust.Rankings.pairwise_counts` (per cluster, weighted by responsibilities, or summed
over chunks -- all the same to this module). The diagonal of ``C`` is ignored.

Every rule returns a **position vector** ``center`` (int64, shape ``(m,)``): ``center[j]`` is
the 0-based position of item ``j`` (0 = best), a permutation of ``0..m-1`` -- the convention of
:mod:`rankclust.rankings` for a complete ranking without ties.

Tie-breaking is deterministic: among items with equal scores the **lower item index ranks
first**, and :func:`kemeny_exact` returns the optimal ranking whose ordering (best item first)
is lexicographically smallest. Because ``C`` is often a float sum whose last bits depend on the
summation order (responsibility-weighted counts, counts merged across chunks), values that agree
up to a relative ``1e-12`` of the scale of ``C`` are treated as equal in every comparison
(scores, pairwise contests, cost improvements). Integer-valued ``C`` is handled exactly.

The Kemeny objective of a position vector ``pi`` is

.. math:: F(\\pi) = \\sum_{u \\ne v} C[v, u] \\, [\\pi(u) < \\pi(v)],

the total weight of the preferences that ``pi`` reverses (:func:`kemeny_cost`). For complete
rankings it is :math:`\\sum_i w_i d_K(\\sigma_i, \\pi)`, the weighted sum of Kendall distances;
for subset rankings it counts the discordant *observed* pairs; for top-t lists (``kind="top"``)
a present item is also above every absent one, which gives the top-t distance of Busse et al.

Two registries name the rules: :data:`CONSENSUS_METHODS` (``f(C)``: Borda, Copeland, Kemeny)
and :data:`CENTER_METHODS`, the centre steps of every estimator's ``center_method``
(``f(C, init)``, with the previous centre as ``init``), dispatched by
:func:`center_from_counts`. ``"auto"`` means one thing everywhere
(:func:`resolve_center_method`): exact Kemeny up to :data:`KEMENY_AUTO_EXACT_MAX_ITEMS` (10)
items, local search beyond.

References
----------
Cheng, W., Hühn, J. and Hüllermeier, E. (2009). Decision tree and instance-based learning for
label ranking. ICML. (Borda count, Prop. 2 generalised Borda.)

Busse, L. M., Orbanz, P. and Buhmann, J. M. (2007). Cluster analysis of heterogeneous rank data.
ICML. (Central ranking by local search over adjacent transpositions.)

Coppersmith, D., Fleischer, L. and Rudra, A. (2006). Ordering by weighted number of wins gives a
good ranking for weighted tournaments. SODA.

Kemeny, J. G. (1959). Mathematics without numbers. Daedalus 88, 577-591.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral
from typing import Any

import numba
import numpy as np

from rankclust._param_validation import (
    Interval,
    StrOptions,
    check_sample_weight,
    validate_arguments,
)
from rankclust.rankings import check_rankings

__all__ = [
    "CENTER_METHODS",
    "CONSENSUS_METHODS",
    "KEMENY_AUTO_EXACT_MAX_ITEMS",
    "KEMENY_EXACT_MAX_ITEMS",
    "best_local_center",
    "borda",
    "borda_scores",
    "center_from_counts",
    "copeland",
    "copeland_scores",
    "generalized_borda",
    "generalized_borda_scores",
    "generalized_borda_votes",
    "kemeny",
    "kemeny_cost",
    "kemeny_exact",
    "kemeny_local_search",
    "resolve_center_method",
]

#: Largest number of items :func:`kemeny_exact` accepts (its tables hold ``2**m * (m + 1)``
#: floats: 4 MB at m = 15, doubling with every further item).
KEMENY_EXACT_MAX_ITEMS = 15
#: ``method="auto"`` solves exactly up to this many items, by local search beyond: the one
#: rule of :func:`kemeny`, :func:`center_from_counts` and every estimator's
#: ``center_method="auto"`` (see :func:`resolve_center_method`).
KEMENY_AUTO_EXACT_MAX_ITEMS = 10

# Relative tolerance under which two float values count as equal (see the module docstring).
_RTOL = 1e-12


# --------------------------------------------------------------------------------------------
# kernels (private: inputs are trusted -- C float64 C-contiguous with a zero diagonal,
# order/pos int64 inverse permutations of each other)
# --------------------------------------------------------------------------------------------
def _kemeny_subset_dp(C, g, a):  # pragma: no cover - compiled below
    """Fill the subset tables of the exact Kemeny dynamic programme.

    For every subset ``S`` of items (bit mask), ``a[S, v] = sum_{u in S} C[u, v]`` is the cost
    of placing ``v`` above the other items of ``S``, and ``g[S]`` the least cost of ordering
    ``S`` counting only the pairs inside ``S``::

        g[{}] = 0,   g[S] = min_{v in S} ( a[S, v] + g[S - {v}] ).

    ``a[S]`` is built from ``a[S - {lowest item}]`` in O(m), so the whole table costs O(2^m m).
    ``g`` (2^m,) and ``a`` (2^m, m) float64 are filled in place.
    """
    m = C.shape[0]
    g[0] = 0.0
    for v in range(m):
        a[0, v] = 0.0
    for S in range(1, 1 << m):
        low = 0
        while not (S >> low) & 1:
            low += 1
        P = S ^ (1 << low)
        best = np.inf
        for v in range(m):
            a[S, v] = a[P, v] + C[low, v]
        for v in range(m):
            if (S >> v) & 1:
                val = a[S, v] + g[S ^ (1 << v)]
                if val < best:
                    best = val
        g[S] = best


def _kemeny_backtrack(g, a, tol, order):  # pragma: no cover - compiled below
    """Read an optimal ordering off the tables of :func:`_kemeny_subset_dp`, best item first.

    At each position the smallest item index whose choice keeps the optimum (within ``tol``)
    is placed, which gives the lexicographically smallest optimal ordering. ``order`` (m,)
    int64 is filled in place.
    """
    m = order.shape[0]
    S = (1 << m) - 1
    for p in range(m):
        target = g[S] + tol
        for v in range(m):
            if (S >> v) & 1 and a[S, v] + g[S ^ (1 << v)] <= target:
                order[p] = v
                S ^= 1 << v
                break


def _insertion_sweep(D, order, pos, delta, tol):  # pragma: no cover - compiled below
    """One sweep of insertion moves; returns the number of moves made.

    ``D = C - C.T``. Items are visited in index order; each is moved to the position that
    lowers the Kemeny cost most, if that lowers it by more than ``tol``. Moving item ``x`` from
    position ``i`` down to ``j > i`` changes the cost by ``sum_{i < k <= j} D[x, order[k]]``,
    and up to ``j < i`` by ``-sum_{j <= k < i} D[x, order[k]]``: cumulative sums give every
    target in O(m). Near-ties (within ``tol``) go to the smallest target position.
    ``order``, ``pos`` (m,) int64 are updated in place; ``delta`` (m,) float64 is scratch.
    """
    m = order.shape[0]
    n_moves = 0
    for x in range(m):
        i = pos[x]
        delta[i] = 0.0
        cum = 0.0
        for k in range(i + 1, m):
            cum += D[x, order[k]]
            delta[k] = cum
        cum = 0.0
        for k in range(i - 1, -1, -1):
            cum -= D[x, order[k]]
            delta[k] = cum
        best = np.inf
        j = i
        for k in range(m):
            if delta[k] < best - tol:
                best = delta[k]
                j = k
        if best >= -tol or j == i:
            continue
        if j > i:
            for k in range(i, j):
                order[k] = order[k + 1]
                pos[order[k]] = k
        else:
            for k in range(i, j, -1):
                order[k] = order[k - 1]
                pos[order[k]] = k
        order[j] = x
        pos[x] = j
        n_moves += 1
    return n_moves


def _adjacent_step(D, order, pos, tol):  # pragma: no cover - compiled below
    """Apply the single best adjacent transposition; returns 1 if one was made, else 0.

    Swapping ``a = order[p]`` and ``b = order[p + 1]`` changes the cost by ``D[a, b]``
    (Busse et al. 2007, Sec. 3.4). The most negative change is applied if it is below
    ``-tol``; near-ties go to the smallest ``p``.
    """
    m = order.shape[0]
    best = np.inf
    p_best = -1
    for p in range(m - 1):
        d = D[order[p], order[p + 1]]
        if d < best - tol:
            best = d
            p_best = p
    if p_best < 0 or best >= -tol:
        return 0
    a = order[p_best]
    b = order[p_best + 1]
    order[p_best] = b
    order[p_best + 1] = a
    pos[b] = p_best
    pos[a] = p_best + 1
    return 1


_nb_kemeny_subset_dp = numba.njit(_kemeny_subset_dp, cache=True, nogil=True)
_nb_kemeny_backtrack = numba.njit(_kemeny_backtrack, cache=True, nogil=True)
_nb_insertion_sweep = numba.njit(_insertion_sweep, cache=True, nogil=True)
_nb_adjacent_step = numba.njit(_adjacent_step, cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# boundary helpers
# --------------------------------------------------------------------------------------------
def _check_counts(C: Any, name: str = "C") -> np.ndarray:
    """Validated float64 C-contiguous copy of a pairwise count matrix, diagonal set to zero."""
    arr = np.asarray(C)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a numeric array, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(
            f"{name} must be a square (m, m) pairwise count matrix, got shape {arr.shape}"
        )
    out = np.array(arr, dtype=np.float64, order="C")  # a copy: callers' matrices stay untouched
    if not np.isfinite(out).all():
        u, v = (int(x) for x in np.argwhere(~np.isfinite(out))[0])
        raise ValueError(f"{name}[{u}, {v}] is not finite ({out[u, v]})")
    if (out < 0).any():
        u, v = (int(x) for x in np.argwhere(out < 0)[0])
        raise ValueError(f"{name}[{u}, {v}] = {out[u, v]} is negative; counts must be >= 0")
    np.fill_diagonal(out, 0.0)
    return out


def _check_center(center: Any, m: int, name: str = "center") -> np.ndarray:
    """Validated int64 position vector: a permutation of ``0..m-1``."""
    arr = np.asarray(center)
    if arr.ndim != 1 or arr.shape[0] != m:
        raise ValueError(
            f"{name} must be a position vector of shape ({m},), got shape {arr.shape}"
        )
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integer positions, got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and not np.array_equal(arr, np.round(arr)):
        raise ValueError(f"{name} must hold integer positions")
    out = arr.astype(np.int64)
    if not np.array_equal(np.sort(out), np.arange(m)):
        raise ValueError(
            f"{name} must be a permutation of 0..{m - 1} (position of each item, no ties), "
            f"got {out.tolist()}"
        )
    return out


def _scale(C: np.ndarray) -> float:
    return float(C.max()) if C.size else 0.0


def _positions_from_scores(scores: np.ndarray, tol: float) -> np.ndarray:
    """Position vector ranking higher scores first; scores within ``tol`` tie, lower index first."""
    m = scores.shape[0]
    key = np.round(scores / tol) if tol > 0 else scores
    order = np.lexsort((np.arange(m), -key))
    return _order_to_positions(order)


def _order_to_positions(order: np.ndarray) -> np.ndarray:
    pos = np.empty(order.shape[0], dtype=np.int64)
    pos[order] = np.arange(order.shape[0], dtype=np.int64)
    return pos


# --------------------------------------------------------------------------------------------
# Borda and Copeland
# --------------------------------------------------------------------------------------------
def borda_scores(C: Any) -> np.ndarray:
    """Net Borda scores from a pairwise count matrix: wins minus losses.

    ``score[u] = sum_v C[u, v] - sum_v C[v, u]``.

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts, ``C[u, v]`` = weight of rankings with ``u`` above ``v``.

    Returns
    -------
    scores : ndarray of float64, shape (m,)
        Higher is better. They sum to zero.

    See Also
    --------
    borda : The ranking by these scores.

    Notes
    -----
    Complexity: O(m^2) time, O(m^2) memory.
    """
    C = _check_counts(C)
    return C.sum(axis=1) - C.sum(axis=0)


def borda(C: Any) -> np.ndarray:
    """Borda count from a pairwise count matrix.

    Items are ordered by their net score ``sum_v C[u, v] - sum_v C[v, u]`` (weighted pairwise
    wins minus losses), highest first; equal scores rank the lower item index first.

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts, e.g. ``R.pairwise_counts()``; non-negative and finite. The diagonal
        is ignored.

    Returns
    -------
    center : ndarray of int64, shape (m,)
        Position vector: ``center[j]`` is the 0-based position of item ``j``.

    See Also
    --------
    borda_scores, generalized_borda, copeland, kemeny

    Notes
    -----
    **Equivalence with the classic Borda count.** For one complete ranking ``sigma`` of ``m``
    items without ties, item ``u`` wins against the ``m - 1 - sigma(u)`` items below it and
    loses against the ``sigma(u)`` items above it, so its net score is
    ``m - 1 - 2 sigma(u)``. Summed over rankings with weights ``w_i`` (total ``W``),

    ``score(u) = W (m - 1) - 2 sum_i w_i sigma_i(u)``,

    a decreasing affine function of the (weighted) mean position, and of the classic Borda
    votes ``sum_i w_i (m - sigma_i(u))`` (Cheng et al. 2009, Sec. 4.1): all three order the
    items identically, ties included. With the plain wins ``sum_v C[u, v]`` the same holds
    for complete rankings (the losses are then ``W (m - 1)`` minus the wins), but the net score
    is also right for bucket orders and partial data: for a ranking with ties, wins minus
    losses is ``m - 1 - 2 (midrank - 1)``, so Borda orders by mean mid-rank (fractional
    ranking); for subset rankings an item is not rewarded merely for being observed more
    often. Ordering by weighted wins is the "ordering by weighted number of wins" of
    Coppersmith, Fleischer and Rudra (2006), a 5-approximation of the Kemeny optimum when
    ``C[u, v] + C[v, u]`` is the same for every pair.

    Complexity: O(m^2) time, O(m^2) memory.

    References
    ----------
    Cheng, W., Hühn, J. and Hüllermeier, E. (2009). Decision tree and instance-based learning
    for label ranking. ICML.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> from rankclust.consensus import borda
    >>> R = Rankings.from_orderings([[0, 1, 2], [1, 0, 2], [0, 2, 1]])
    >>> borda(R.pairwise_counts())
    array([0, 1, 2])
    """
    C = _check_counts(C)
    m = C.shape[0]
    return _positions_from_scores(C.sum(axis=1) - C.sum(axis=0), _RTOL * m * _scale(C))


def copeland_scores(C: Any) -> np.ndarray:
    """Copeland scores: pairwise majority wins minus losses.

    ``score[u] = #{v : C[u, v] > C[v, u]} - #{v : C[u, v] < C[v, u]}``; a tied contest
    (equal counts, up to a relative ``1e-12`` of ``max C``) counts for neither.

    Parameters
    ----------
    C : array-like of float, shape (m, m)

    Returns
    -------
    scores : ndarray of int64, shape (m,)
        Integers in ``[-(m - 1), m - 1]``.

    Notes
    -----
    Complexity: O(m^2) time, O(m^2) memory.
    """
    C = _check_counts(C)
    tol = _RTOL * _scale(C)
    D = C - C.T
    return (D > tol).sum(axis=1).astype(np.int64) - (D < -tol).sum(axis=1).astype(np.int64)


def copeland(C: Any) -> np.ndarray:
    """Copeland ranking: order items by pairwise majority wins minus losses.

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts, non-negative and finite; the diagonal is ignored.

    Returns
    -------
    center : ndarray of int64, shape (m,)
        Position vector. Equal Copeland scores rank the lower item index first.

    See Also
    --------
    copeland_scores, borda, kemeny

    Notes
    -----
    When a Condorcet winner exists (an item beating every other in pairwise majority) it is
    placed first; the Kemeny ranking shares that property. Copeland scores are coarse
    (integers), so ties are frequent; they are broken by item index, not by margins.

    Complexity: O(m^2) time, O(m^2) memory.

    References
    ----------
    Copeland, A. H. (1951). A "reasonable" social welfare function. Seminar on Applications of
    Mathematics to the Social Sciences, University of Michigan.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.consensus import copeland
    >>> C = np.array([[0, 3, 1], [2, 0, 4], [4, 1, 0]])   # a Condorcet cycle 0 > 1 > 2 > 0
    >>> copeland(C)
    array([0, 1, 2])
    """
    return _positions_from_scores(copeland_scores(C).astype(np.float64), 0.0)


# --------------------------------------------------------------------------------------------
# generalised Borda (Cheng et al. 2009, Prop. 2)
# --------------------------------------------------------------------------------------------
def generalized_borda_votes(R: Any) -> np.ndarray:
    """Per-ranking generalised Borda votes (Cheng et al. 2009, Prop. 2).

    In a ranking of ``l`` of the ``m`` items (``kind="subset"``), the item at rank
    ``r in 1..l`` receives ``(l - r + 1)(m + 1)/(l + 1)`` votes and every absent item
    ``(m + 1)/2``. These are the expected classic Borda votes ``m - position`` (1-based
    position) under a uniformly random complete ranking consistent with the observed one: the
    ``r``-th of ``l`` observed items lands on average at position ``r (m + 1)/(l + 1)``.

    Parameters
    ----------
    R : Rankings or array-like
        Rankings (array input is read as 1-based ranks with 0/NaN missing, see
        :func:`rankclust.check_rankings`).

    Returns
    -------
    votes : ndarray of float64, shape (n_rankings, m)
        Unweighted votes; each row sums to ``m (m + 1)/2``.

    Notes
    -----
    Extensions beyond the paper, both still the expected Borda votes under a uniformly random
    consistent completion:

    * **Ties.** Items in one bucket get the votes of their mid-rank ``r`` (number of items
      above plus ``(bucket size + 1)/2``): the votes are linear in ``r``, so this is their
      average over the positions the bucket occupies.
    * **kind="top".** Absent items are a bucket tied below every present item, so a top-t
      ranking is a complete bucket order and gets the classic votes ``m - r + 1`` with
      mid-ranks; every absent item receives ``(m - t + 1)/2``.

    A ranking with fewer than two distinct positions (and, for ``"subset"``, fewer than two
    items) gives every item ``(m + 1)/2`` votes: it carries no information. For complete
    rankings without ties the votes are the classic Borda votes ``m - position``.

    Complexity: O(n m) time, O(n m) memory.

    References
    ----------
    Cheng, W., Hühn, J. and Hüllermeier, E. (2009). Decision tree and instance-based learning
    for label ranking. ICML, Proposition 2.

    Examples
    --------
    The worked example of the paper (m = 5, ranking y2 > y1 > y5):

    >>> from rankclust import Rankings
    >>> from rankclust.consensus import generalized_borda_votes
    >>> R = Rankings.from_orderings([[1, 0, 4]], n_items=5)
    >>> generalized_borda_votes(R)
    array([[3. , 4.5, 3. , 3. , 1.5]])
    """
    R = check_rankings(R)
    ranks = R.ranks
    n, m = ranks.shape
    if n == 0 or m == 0:
        return np.zeros((n, m))
    present = ranks >= 0
    if R.kind == "top":
        # absent items form one bucket below the present ones: a complete bucket order
        bucket = np.where(present, ranks, R.n_buckets[:, None])
        length = np.full(n, m, dtype=np.int64)
    else:
        bucket = np.where(present, ranks, m)  # bucket m collects the absent items
        length = present.sum(axis=1)
    flat = bucket + (m + 1) * np.arange(n)[:, None]
    sizes = np.bincount(flat.ravel(), minlength=n * (m + 1)).reshape(n, m + 1)
    above = np.cumsum(sizes, axis=1) - sizes  # items in strictly better buckets
    rows = np.arange(n)[:, None]
    mid_rank = above[rows, bucket] + (sizes[rows, bucket] + 1) / 2.0
    lc = length[:, None].astype(np.float64)
    votes = (lc - mid_rank + 1.0) * (m + 1) / (lc + 1.0)
    if R.kind == "subset":
        votes = np.where(present, votes, (m + 1) / 2.0)
    return votes


def _combined_weights(R: Any, sample_weight: Any) -> tuple[Any, np.ndarray]:
    R = check_rankings(R)
    w = R.weights
    if sample_weight is not None:
        w = w * check_sample_weight(sample_weight, R.n_rankings)
    return R, w


def generalized_borda_scores(R: Any, sample_weight: Any = None) -> np.ndarray:
    """Weighted sums of the generalised Borda votes, one per item.

    ``score[j] = sum_i w_i votes[i, j]`` with ``w_i`` the rankings' own weights times
    ``sample_weight``; see :func:`generalized_borda_votes`. The scores are additive over
    rankings, so prefix sums over sorted rows give the scores of every split of a sample.

    Returns
    -------
    scores : ndarray of float64, shape (m,)

    Notes
    -----
    Complexity: O(n m) time, O(n m) memory.
    """
    R, w = _combined_weights(R, sample_weight)
    return w @ generalized_borda_votes(R)


def generalized_borda(R: Any, sample_weight: Any = None) -> np.ndarray:
    """Generalised Borda count for incomplete rankings (Cheng et al. 2009, Prop. 2).

    Each ranking of ``l`` out of ``m`` items gives the item at rank ``r`` the votes
    ``(l - r + 1)(m + 1)/(l + 1)`` and each absent item ``(m + 1)/2``; items are ordered by
    their weighted vote totals, highest first (equal totals: lower item index first).

    Parameters
    ----------
    R : Rankings or array-like
        Rankings, ``kind="subset"`` (absent = unknown, the paper's setting) or ``"top"``
        (absent = tied below every present item); ties allowed (see
        :func:`generalized_borda_votes`).
    sample_weight : array-like of float, shape (n_rankings,), optional
        Non-negative weights, multiplied into the rankings' own weights (Cheng et al. use
        ``w_i`` times the incompleteness weight ``l_i/m``; pass that product here).

    Returns
    -------
    center : ndarray of int64, shape (m,)
        Position vector.

    See Also
    --------
    generalized_borda_votes, generalized_borda_scores, borda

    Notes
    -----
    Under a uniformly random completion of each ranking (the Mallows model at ``theta = 0``)
    the votes are the expected classic Borda votes, so this ranking minimises the expected sum
    of squared position differences (Spearman's distance) to the completions (Prop. 2). For
    complete rankings without ties it is the classic Borda count, i.e. ``borda(C)`` with
    ``C = R.pairwise_counts()``. Totals equal up to a relative ``1e-12`` count as ties, so a
    tie that holds in exact arithmetic is broken by index even when the float sums differ in
    their last bits.

    Complexity: O(n m + m log m) time, O(n m) memory.

    References
    ----------
    Cheng, W., Hühn, J. and Hüllermeier, E. (2009). Decision tree and instance-based learning
    for label ranking. ICML, Proposition 2.

    Examples
    --------
    The paper's example, m = 5 and the ranking y2 > y1 > y5: votes y2 = 4.5, y1 = y3 = y4 = 3,
    y5 = 1.5, so the consensus is y2 > y1 > y3 > y4 > y5:

    >>> from rankclust import Rankings
    >>> from rankclust.consensus import generalized_borda
    >>> generalized_borda(Rankings.from_orderings([[1, 0, 4]], n_items=5))
    array([1, 0, 2, 3, 4])
    """
    R, w = _combined_weights(R, sample_weight)
    m = R.n_items
    scores = w @ generalized_borda_votes(R)
    return _positions_from_scores(scores, _RTOL * (m + 1) * float(np.abs(w).sum()))


# --------------------------------------------------------------------------------------------
# Kemeny
# --------------------------------------------------------------------------------------------
def kemeny_cost(C: Any, center: Any) -> float:
    """Kemeny objective: total weight of the preferences a ranking reverses.

    ``cost = sum over ordered pairs (u, v) with center[u] < center[v] of C[v, u]``.

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts.
    center : array-like of int, shape (m,)
        Position vector, a permutation of ``0..m-1``.

    Returns
    -------
    cost : float
        For ``C = R.pairwise_counts()`` with complete rankings, ``sum_i w_i d_K(R_i, center)``
        (weighted Kendall distances); for subset rankings the sum of the discordant observed
        pairs; for top-t lists also the present-above-absent pairs that ``center`` reverses.

    Notes
    -----
    Complexity: O(m^2) time, O(m^2) memory.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> from rankclust.consensus import kemeny_cost
    >>> R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0]])
    >>> kemeny_cost(R.pairwise_counts(), [0, 1, 2])   # Kendall distances 0 + 3
    3.0
    """
    C = _check_counts(C)
    pos = _check_center(center, C.shape[0])
    return float(C.T[pos[:, None] < pos[None, :]].sum())


def kemeny_exact(C: Any, *, return_cost: bool = False) -> np.ndarray | tuple[np.ndarray, float]:
    """Exact Kemeny consensus by dynamic programming over subsets of items.

    Finds a position vector minimising :func:`kemeny_cost`. Among several optimal rankings it
    returns the one whose ordering (best item first) is lexicographically smallest.

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts, non-negative and finite; the diagonal is ignored.
        ``m <= KEMENY_EXACT_MAX_ITEMS`` (15).
    return_cost : bool, default=False
        Also return the optimal cost.

    Returns
    -------
    center : ndarray of int64, shape (m,)
        Position vector of a Kemeny ranking.
    cost : float
        Only with ``return_cost=True``: its :func:`kemeny_cost`.

    Raises
    ------
    ValueError
        If ``m > 15``: the tables need ``2**m (m + 1)`` floats (use
        :func:`kemeny_local_search`).

    See Also
    --------
    kemeny, kemeny_local_search

    Notes
    -----
    With ``S`` a set of items and ``g(S)`` the least cost of ordering ``S`` counting only the
    pairs inside ``S``, ``g({}) = 0`` and
    ``g(S) = min_{v in S} [ sum_{u in S} C[u, v] + g(S - {v}) ]`` (``v`` goes to the top of
    ``S``, reversing every preference ``u > v`` with ``u`` in ``S``); ``g`` of all items is the
    Kemeny optimum and the minimisers, read from the top, give the ranking (Cheng et al. 2009,
    decisions.md C1; the Held-Karp scheme for linear ordering). The column sums
    ``sum_{u in S} C[u, .]`` are updated from ``S`` minus its lowest item, so each subset costs
    O(m). The problem is NP-hard in general (Bartholdi et al. 1989), so the 2^m factor is
    inherent to exact search.

    Complexity: O(2^m m) time, O(2^m m) memory.

    References
    ----------
    Kemeny, J. G. (1959). Mathematics without numbers. Daedalus 88, 577-591.

    Bartholdi, J., Tovey, C. A. and Trick, M. A. (1989). Voting schemes for which it can be
    difficult to tell who won the election. Social Choice and Welfare 6, 157-165.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.consensus import kemeny_exact
    >>> C = np.array([[0, 3, 1], [2, 0, 4], [4, 1, 0]])
    >>> kemeny_exact(C, return_cost=True)
    (array([2, 0, 1]), 5.0)
    """
    C = _check_counts(C)
    m = C.shape[0]
    if m > KEMENY_EXACT_MAX_ITEMS:
        raise ValueError(
            f"kemeny_exact supports at most {KEMENY_EXACT_MAX_ITEMS} items (its tables grow as "
            f"2**m * (m + 1) floats), got m={m}; use kemeny_local_search or "
            f"kemeny(method='local')"
        )
    g = np.empty(1 << m)
    a = np.empty((1 << m, m))
    _nb_kemeny_subset_dp(C, g, a)
    order = np.empty(m, dtype=np.int64)
    _nb_kemeny_backtrack(g, a, _RTOL * max(m, 1) ** 2 * _scale(C), order)
    center = _order_to_positions(order)
    if return_cost:
        return center, float(g[-1]) if m else 0.0
    return center


@validate_arguments(
    {
        "moves": [StrOptions({"insertion", "adjacent"})],
        "max_iter": [None, Interval(Integral, 0, None)],
    }
)
def kemeny_local_search(
    C: Any,
    init: Any = None,
    *,
    moves: str = "insertion",
    max_iter: int | None = None,
    return_cost: bool = False,
) -> np.ndarray | tuple[np.ndarray, float]:
    """Approximate Kemeny consensus by local search from an initial ranking.

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts, non-negative and finite; the diagonal is ignored.
    init : None, {"borda", "copeland"} or array-like of int, shape (m,), default=None
        Starting ranking: a position vector, or the name of a rule; None means Borda.
    moves : {"insertion", "adjacent"}, default="insertion"
        ``"insertion"``: sweeps over the items in index order; each item moves to the position
        (anywhere in the ranking) that lowers the cost most. One iteration is one sweep, and
        the search stops after a sweep without a move. ``"adjacent"``: steepest descent over
        adjacent transpositions; one iteration applies the single best swap (Busse et al.
        2007, Sec. 3.4). Adjacent swaps are insertion moves by one position, so an insertion
        optimum is also an adjacent-swap optimum.
    max_iter : int or None, default=None
        Cap on the iterations (sweeps or swaps). None runs to a local optimum, which always
        terminates because every move lowers the cost. With a cap the result may not be a
        local optimum; ``moves="adjacent", max_iter=1`` is the paper-faithful single
        generalised-EM step of Busse et al.
    return_cost : bool, default=False
        Also return the cost of the result.

    Returns
    -------
    center : ndarray of int64, shape (m,)
        Position vector; its cost is never above the cost of ``init``.
    cost : float
        Only with ``return_cost=True``: its :func:`kemeny_cost`.

    See Also
    --------
    kemeny, kemeny_exact

    Notes
    -----
    Moving item ``x`` from position ``i`` to ``j`` changes the cost by the sum of
    ``C[x, y] - C[y, x]`` over the items ``y`` it jumps over downwards (minus that sum
    upwards), so cumulative sums price all ``m - 1`` targets of one item in O(m). A move is
    made only if it lowers the cost by more than a relative ``1e-12`` of ``m max C``. The
    result is a local optimum: no single insertion move (hence no adjacent swap) improves it.
    A local optimum need not be a Kemeny ranking; see :func:`kemeny_exact`.

    Complexity: O(m^2) time per sweep (insertion) or O(m) per swap (adjacent), O(m^2) memory.

    References
    ----------
    Busse, L. M., Orbanz, P. and Buhmann, J. M. (2007). Cluster analysis of heterogeneous rank
    data. ICML, Sec. 3.4.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.consensus import kemeny_local_search
    >>> C = np.array([[0, 3, 1], [2, 0, 4], [4, 1, 0]])
    >>> kemeny_local_search(C, init=[0, 1, 2], return_cost=True)
    (array([2, 0, 1]), 5.0)
    """
    C = _check_counts(C)
    pos = _local_search(C, _initial_center(C, init), moves, max_iter)
    if return_cost:
        return pos, _cost(C, pos)
    return pos


def _cost(C: np.ndarray, pos: np.ndarray) -> float:
    """:func:`kemeny_cost` of checked arguments."""
    return float(C.T[pos[:, None] < pos[None, :]].sum())


def _local_search(
    C: np.ndarray, pos: np.ndarray, moves: str = "insertion", max_iter: int | None = None
) -> np.ndarray:
    """:func:`kemeny_local_search` of checked arguments: ``C`` float64 with a zero diagonal,
    ``pos`` an int64 position vector, which the search moves in place and returns."""
    m = C.shape[0]
    order = np.empty(m, dtype=np.int64)
    order[pos] = np.arange(m, dtype=np.int64)
    D = np.ascontiguousarray(C - C.T)
    tol = _RTOL * m * _scale(C)
    limit = np.inf if max_iter is None else int(max_iter)
    n_iter = 0
    if moves == "insertion":
        delta = np.empty(m)
        while n_iter < limit:
            n_iter += 1
            if _nb_insertion_sweep(D, order, pos, delta, tol) == 0:
                break
    else:
        while n_iter < limit:
            n_iter += 1
            if _nb_adjacent_step(D, order, pos, tol) == 0:
                break
    return pos


def best_local_center(C: Any, previous: Any) -> np.ndarray:
    """The cheaper of two Kemeny local optima: insertion moves from ``previous`` and from Borda.

    The ``"local"`` centre step of the ranking mixtures: ``C`` and ``previous`` are checked
    once, then both searches and both costs share them (the argument checks of two
    :func:`kemeny_local_search` and two :func:`kemeny_cost` calls cost more than the searches
    themselves on 14 items).

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts, non-negative and finite; the diagonal is ignored.
    previous : array-like of int, shape (m,)
        Position vector to start the first search from (not modified).

    Returns
    -------
    center : ndarray of int64, shape (m,)
        ``kemeny_local_search(C, init=previous)`` unless ``kemeny_local_search(C)`` (from
        Borda) has a strictly lower :func:`kemeny_cost`.

    Notes
    -----
    Complexity: O(m^2) per sweep, O(m^2) memory.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.consensus import best_local_center
    >>> C = np.array([[0, 3, 1], [2, 0, 4], [4, 1, 0]])
    >>> best_local_center(C, [0, 1, 2])
    array([2, 0, 1])
    """
    C = _check_counts(C)
    m = C.shape[0]
    a = _local_search(C, _check_center(previous, m, name="previous").copy())
    b = _local_search(
        C, _positions_from_scores(C.sum(axis=1) - C.sum(axis=0), _RTOL * m * _scale(C))
    )
    return b if _cost(C, b) < _cost(C, a) else a


def _initial_center(C: np.ndarray, init: Any) -> np.ndarray:
    """Starting position vector for local search (C already validated)."""
    m = C.shape[0]
    if init is None:
        init = "borda"
    if isinstance(init, str):
        rules = ("borda", "copeland")
        if init not in rules:
            raise ValueError(
                f"init must be None, a position vector or one of {list(rules)}, got {init!r}"
            )
        return CONSENSUS_METHODS[init](C)
    return _check_center(init, m, name="init").copy()


@validate_arguments({"method": [StrOptions({"auto", "exact", "local"})]})
def kemeny(
    C: Any,
    method: str = "auto",
    init: Any = None,
    *,
    max_iter: int | None = None,
    return_cost: bool = False,
) -> np.ndarray | tuple[np.ndarray, float]:
    """Kemeny consensus: the ranking that reverses the least total preference weight.

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts, non-negative and finite; the diagonal is ignored.
    method : {"auto", "exact", "local"}, default="auto"
        ``"exact"``: :func:`kemeny_exact` (m <= 15). ``"local"``: :func:`kemeny_local_search`
        with insertion moves. ``"auto"``: exact for ``m <= KEMENY_AUTO_EXACT_MAX_ITEMS`` (10),
        local search beyond.
    init : None, {"borda", "copeland"} or array-like of int, shape (m,), default=None
        Start of the local search (default Borda); ignored by the exact method.
    max_iter : int or None, default=None
        Sweep cap of the local search; ignored by the exact method.
    return_cost : bool, default=False
        Also return the cost of the result.

    Returns
    -------
    center : ndarray of int64, shape (m,)
        Position vector.
    cost : float
        Only with ``return_cost=True``.

    See Also
    --------
    kemeny_exact, kemeny_local_search, kemeny_cost, borda

    Notes
    -----
    Why 10 for ``"auto"`` (the package-wide rule, :func:`resolve_center_method`, also of the
    mixtures' centre steps): the exact tables cost ``2**m (m + 1)`` floats and ``2**m m``
    operations -- about 10^4 at m = 10, the same order as a few local-search sweeps, so an
    optimum is free there; every further item doubles the cost, while estimators call the
    centre step once per cluster, per iteration and per tree node. Past 10 items exact search
    is still available (``method="exact"``, up to 15); local search from Borda is typically
    optimal or within a few pairs of it on data drawn from a unimodal model.

    Complexity: O(2^m m) time and memory (exact); O(m^2) per sweep and O(m^2) memory (local).

    Examples
    --------
    >>> from rankclust import Rankings
    >>> from rankclust.consensus import kemeny
    >>> R = Rankings.from_orderings([[0, 1, 2, 3], [1, 0, 2, 3], [0, 1, 3, 2]])
    >>> kemeny(R.pairwise_counts())
    array([0, 1, 2, 3])
    """
    C = _check_counts(C)
    if resolve_center_method(method, C.shape[0]) == "exact":
        return kemeny_exact(C, return_cost=return_cost)
    return kemeny_local_search(C, init=init, max_iter=max_iter, return_cost=return_cost)


#: Consensus rules by name, each ``f(C) -> position vector`` (for estimators and the CLI).
CONSENSUS_METHODS: dict[str, Callable[..., Any]] = {
    "borda": borda,
    "copeland": copeland,
    "kemeny": kemeny,
}


# --------------------------------------------------------------------------------------------
# centre steps by name: the one dispatch of every estimator's ``center_method``
# --------------------------------------------------------------------------------------------
def resolve_center_method(method: str, n_items: int) -> str:
    """The method ``"auto"`` (or its alias ``"kemeny"``) stands for at ``n_items`` items.

    ``"exact"`` up to :data:`KEMENY_AUTO_EXACT_MAX_ITEMS` (10) items, ``"local"`` beyond;
    any other name is returned unchanged. This is the one ``auto`` rule of the package:
    :func:`kemeny`, :func:`center_from_counts`, :class:`~rankclust.models.mallows.Mallows`,
    :func:`~rankclust.models.mallows.estimate_center`,
    :class:`~rankclust.cluster.MallowsMixture` and
    :class:`~rankclust.cluster.baselines.CompletionMallowsMixture` all read it.

    Examples
    --------
    >>> from rankclust.consensus import resolve_center_method
    >>> resolve_center_method("auto", 10), resolve_center_method("auto", 11)
    ('exact', 'local')
    """
    if method in ("auto", "kemeny"):
        return "exact" if n_items <= KEMENY_AUTO_EXACT_MAX_ITEMS else "local"
    return method


def _center_auto(C: np.ndarray, init: np.ndarray | None) -> np.ndarray:
    return CENTER_METHODS[resolve_center_method("auto", C.shape[0])](C, init)


def _center_exact(C: np.ndarray, init: np.ndarray | None) -> np.ndarray:
    return kemeny_exact(C)


def _center_local(C: np.ndarray, init: np.ndarray | None) -> np.ndarray:
    return kemeny_local_search(C, init=init)


def _center_adjacent(C: np.ndarray, init: np.ndarray | None) -> np.ndarray:
    return kemeny_local_search(C, init=init, moves="adjacent", max_iter=1)


def _center_borda(C: np.ndarray, init: np.ndarray | None) -> np.ndarray:
    return CONSENSUS_METHODS["borda"](C)


def _center_copeland(C: np.ndarray, init: np.ndarray | None) -> np.ndarray:
    return CONSENSUS_METHODS["copeland"](C)


#: Centre steps by name, each ``f(C, init) -> position vector`` with ``init`` the previous
#: centre (or None): the one registry behind every ``center_method`` of the package (each
#: estimator accepts a subset of these names). ``"auto"``/``"kemeny"``: exact Kemeny up to
#: :data:`KEMENY_AUTO_EXACT_MAX_ITEMS` items, ``"local"`` beyond; ``"exact"``:
#: :func:`kemeny_exact`; ``"local"``: :func:`kemeny_local_search` (insertion moves) from
#: ``init``, or from Borda when it is None; ``"adjacent"``: one best adjacent transposition
#: of ``init`` (Busse et al.'s generalised-EM step); ``"borda"``, ``"copeland"``: the rules
#: of :data:`CONSENSUS_METHODS` (``init`` ignored).
CENTER_METHODS: dict[str, Callable[[np.ndarray, np.ndarray | None], np.ndarray]] = {
    "auto": _center_auto,
    "kemeny": _center_auto,
    "exact": _center_exact,
    "local": _center_local,
    "adjacent": _center_adjacent,
    "borda": _center_borda,
    "copeland": _center_copeland,
}


@validate_arguments({"method": [StrOptions(CENTER_METHODS)]})
def center_from_counts(C: Any, method: str = "auto", init: Any = None) -> np.ndarray:
    """Centre of a pairwise count matrix by a method of :data:`CENTER_METHODS`.

    Parameters
    ----------
    C : array-like of float, shape (m, m)
        Pairwise counts, non-negative and finite; the diagonal is ignored.
    method : str, default="auto"
        A key of :data:`CENTER_METHODS`.
    init : array-like of int, shape (m,), optional
        Start of the local searches (``"local"``, ``"adjacent"``, ``"auto"`` beyond
        :data:`KEMENY_AUTO_EXACT_MAX_ITEMS` items), e.g. the previous centre of an EM;
        ignored by the other methods. Default: Borda.

    Returns
    -------
    center : ndarray of int64, shape (m,)
        Position vector.

    Notes
    -----
    Complexity: that of the method (O(2^m m) exact, O(m^2) per local-search sweep, O(m^2)
    Borda and Copeland).

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.consensus import center_from_counts
    >>> C = np.array([[0, 3, 1], [2, 0, 4], [4, 1, 0]])
    >>> center_from_counts(C, "local", init=[0, 1, 2])
    array([2, 0, 1])
    """
    C = _check_counts(C)
    start = None if init is None else _check_center(init, C.shape[0], name="init")
    return CENTER_METHODS[method](C, start)
