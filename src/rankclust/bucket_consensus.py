"""Bucket-order consensus: aggregate rankings with ties into one ranking with ties.

A **bucket order** is a ranking with ties: the items are split into ordered buckets, items in
one bucket are tied. It is stored as a position vector ``b`` (int64, shape ``(m,)``):
``b[j]`` is the 0-based index of the bucket of item ``j`` (0 = best), dense (``0..B-1``), the
convention of :mod:`rankclust.rankings` for a complete ranking with ties.

The sufficient statistic is the **pair-order matrix** ``P`` of shape ``(m, m)``
(:func:`pair_order_matrix`): over the rankings that rank both ``u`` and ``v``,

.. math:: P[u, v] = \\Pr(u \\succ v) + \\tfrac12 \\Pr(u \\sim v), \\qquad P[v, u] = 1 - P[u, v],

weighted; a pair that no ranking observes gets ``1/2``. It is built from the precedence and
tie counts of :func:`precedence_counts`, which sum over rows (and so merge across subsets,
as a decision tree needs).

The **optimal bucket order problem** (OBOP, Gionis et al. 2006) asks for the bucket order
``B`` closest to ``P`` in the L1 sense, :func:`bucket_order_cost`:

.. math:: D(B) = \\sum_{u \\ne v} |B[u, v] - P[u, v]|,

with ``B[u, v] = 1`` if ``u`` is in an earlier bucket than ``v``, ``1/2`` if tied, ``0``
otherwise. It is NP-hard; :func:`bucket_pivot` is the Bucket Pivot Algorithm (BPA) of Gionis
et al. (2006) with the improvements of Aledo, Gámez & Rosete (2017) used by Alfaro, Aledo &
Gámez (2021) for partial label ranking ("BPA-LIA-MP2"): the pivot chosen by the least
indecision (DANI index) instead of at random, several pivots (an item joins the pivot bucket
by its mean preference against the whole bucket) and a second stage that re-inserts the items
against the pivot bucket the first stage ended with.

References
----------
Gionis, A., Mannila, H., Puolamäki, K. and Ukkonen, A. (2006). Algorithms for discovering
bucket orders from data. KDD, 561-566.

Aledo, J. A., Gámez, J. A. and Rosete, A. (2017). Utopia in the solution of the Bucket Order
Problem. Decision Support Systems 97, 69-80.

Alfaro, J. C., Aledo, J. A. and Gámez, J. A. (2021). Learning decision trees for the Partial
Label Ranking problem. International Journal of Intelligent Systems 36(2), 890-918.
"""

from __future__ import annotations

import numbers
from typing import Any

import numba
import numpy as np
from sklearn.utils import check_random_state

from rankclust._param_validation import (
    Interval,
    StrOptions,
    check_sample_weight,
    validate_arguments,
)
from rankclust.rankings import check_rankings

__all__ = [
    "BUCKET_PIVOTS",
    "bucket_order_cost",
    "bucket_order_matrix",
    "bucket_pivot",
    "pair_order_from_counts",
    "pair_order_matrix",
    "precedence_counts",
]

#: Pivot rules of :func:`bucket_pivot`: ``"dani"`` (least indecision, deterministic; Aledo et
#: al. 2017) and ``"random"`` (uniform, Gionis et al. 2006).
BUCKET_PIVOTS = ("dani", "random")


# --------------------------------------------------------------------------------------------
# the statistic
# --------------------------------------------------------------------------------------------
def _precedence_counts(ranks: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(prec, ties)`` of a trusted rank matrix (-1 absent) and row weights."""
    r = ranks.astype(np.int64)  # storage dtype may be narrow; compare in int64
    present = r >= 0
    m = r.shape[1]
    prec = np.zeros((m, m))
    ties = np.zeros((m, m))
    step = max(1, 2_000_000 // max(1, m * m))  # bound the (rows, m, m) temporaries
    for s in range(0, r.shape[0], step):
        rr, pp, ww = r[s : s + step], present[s : s + step], w[s : s + step]
        both = pp[:, :, None] & pp[:, None, :]
        less = (rr[:, :, None] < rr[:, None, :]) & both
        same = (rr[:, :, None] == rr[:, None, :]) & both
        prec += np.einsum("i,iuv->uv", ww, less.astype(np.float64))
        ties += np.einsum("i,iuv->uv", ww, same.astype(np.float64))
    np.fill_diagonal(ties, 0.0)
    return prec, ties


def precedence_counts(R: Any, sample_weight: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Weighted precedence and tie counts of rankings with ties.

    Parameters
    ----------
    R : Rankings or array-like of 1-based ranks, shape (n, m)
        Rankings, possibly with ties and missing items (``kind="subset"``: a pair counts only
        when both items are ranked).
    sample_weight : array-like of shape (n,), optional
        Multiplied by the rankings' own weights.

    Returns
    -------
    prec : ndarray of float64, shape (m, m)
        ``prec[u, v] = sum_i w_i [u strictly above v in ranking i]``.
    ties : ndarray of float64, shape (m, m)
        ``ties[u, v] = sum_i w_i [u and v tied in ranking i]`` (symmetric, zero diagonal).

    Notes
    -----
    Complexity: O(n m^2) time, O(m^2) memory (rows are processed in blocks).

    Examples
    --------
    >>> prec, ties = precedence_counts([[1, 2, 2], [2, 1, 1]])
    >>> prec
    array([[0., 1., 1.],
           [1., 0., 0.],
           [1., 0., 0.]])
    >>> float(ties[1, 2])
    2.0
    """
    R = check_rankings(R)
    if R.kind != "subset":
        raise ValueError(
            'precedence_counts reads kind="subset" rankings (missing items unknown); '
            'convert a kind="top" Rankings with R.with_kind("subset") after completing it'
        )
    w = check_sample_weight(sample_weight, R.n_rankings) * R.weights
    return _precedence_counts(np.asarray(R.ranks), w)


def pair_order_from_counts(prec: Any, ties: Any) -> np.ndarray:
    """Pair-order matrix ``P`` from precedence and tie counts.

    ``P[u, v] = (prec[u, v] + ties[u, v] / 2) / (prec[u, v] + ties[u, v] + prec[v, u])``, and
    ``1/2`` for a pair with no weight (never observed); the diagonal is ``1/2``.

    Parameters
    ----------
    prec, ties : array-like of float, shape (m, m) or (..., m, m)
        As returned by :func:`precedence_counts` (stacks of matrices are accepted).

    Returns
    -------
    ndarray of float64, same shape
        ``P + P.T == 1`` everywhere.
    """
    prec = np.asarray(prec, dtype=np.float64)
    ties = np.asarray(ties, dtype=np.float64)
    if prec.ndim == 3 and prec.shape == ties.shape and prec.shape[1] == prec.shape[2]:
        # stacks (the kNN ranker's queries): one compiled pass, the same arithmetic
        P = np.empty_like(prec)
        _nb_pair_order_rows(np.ascontiguousarray(prec), np.ascontiguousarray(ties), P)
        return P
    tot = prec + ties + np.swapaxes(prec, -1, -2)
    num = prec + 0.5 * ties
    P = np.divide(num, tot, out=np.full_like(num, 0.5), where=tot > 0)
    # exact complement (the two quotients may differ in the last bit)
    upper = np.triu(np.ones(P.shape[-2:], dtype=bool), 1)
    P = np.where(upper, P, 1.0 - np.swapaxes(P, -1, -2))
    idx = np.arange(P.shape[-1])
    P[..., idx, idx] = 0.5
    return P


def _pair_order_rows(prec, ties, P):  # pragma: no cover - compiled below
    """:func:`pair_order_from_counts` of a stack (q, m, m) into ``P`` (OUT), the same floats."""
    q, m = prec.shape[0], prec.shape[1]
    for i in range(q):
        for u in range(m):
            P[i, u, u] = 0.5
            for v in range(u + 1, m):
                tot = prec[i, u, v] + ties[i, u, v] + prec[i, v, u]
                p = (prec[i, u, v] + 0.5 * ties[i, u, v]) / tot if tot > 0 else 0.5
                P[i, u, v] = p
                P[i, v, u] = 1.0 - p


_nb_pair_order_rows = numba.njit(_pair_order_rows, cache=True, nogil=True)


def pair_order_matrix(R: Any, sample_weight: Any = None) -> np.ndarray:
    """Pair-order matrix of rankings with ties (see the module docstring).

    Parameters
    ----------
    R : Rankings or array-like of 1-based ranks, shape (n, m)
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    P : ndarray of float64, shape (m, m)

    Examples
    --------
    >>> pair_order_matrix([[1, 2, 2], [1, 1, 2]])
    array([[0.5 , 0.75, 1.  ],
           [0.25, 0.5 , 0.75],
           [0.  , 0.25, 0.5 ]])
    """
    return pair_order_from_counts(*precedence_counts(R, sample_weight))


def bucket_order_matrix(b: Any) -> np.ndarray:
    """The matrix ``B`` of a bucket order: 1 above, 1/2 tied (and diagonal), 0 below."""
    b = np.asarray(b, dtype=np.int64)
    return np.where(b[:, None] < b[None, :], 1.0, np.where(b[:, None] == b[None, :], 0.5, 0.0))


def bucket_order_cost(P: Any, b: Any) -> float:
    """OBOP objective ``sum_{u != v} |B[u, v] - P[u, v]|`` of the bucket order ``b``.

    Parameters
    ----------
    P : array-like of float, shape (m, m)
        Pair-order matrix.
    b : array-like of int, shape (m,)
        Bucket positions (equal values tie).

    Returns
    -------
    float

    Examples
    --------
    >>> P = pair_order_matrix([[1, 2, 2], [1, 1, 2]])
    >>> bucket_order_cost(P, [0, 1, 2]), bucket_order_cost(P, [2, 1, 0])
    (1.0, 5.0)
    """
    P = _check_pair_order(P)
    b = np.asarray(b, dtype=np.int64)
    if b.shape != (P.shape[0],):
        raise ValueError(f"b must have shape ({P.shape[0]},), got {b.shape}")
    D = np.abs(bucket_order_matrix(b) - P)
    np.fill_diagonal(D, 0.0)
    return float(D.sum())


def _check_pair_order(P: Any, *, stack: bool = False) -> np.ndarray:
    P = np.asarray(P, dtype=np.float64)
    if P.ndim not in ((2, 3) if stack else (2,)) or P.shape[-1] != P.shape[-2]:
        what = "a square matrix or a stack of them" if stack else "a square matrix"
        raise ValueError(f"P must be {what}, got shape {P.shape}")
    if not np.isfinite(P).all() or (P < 0).any() or (P > 1).any():
        raise ValueError("P must hold finite values in [0, 1]")
    return P


# --------------------------------------------------------------------------------------------
# the Bucket Pivot Algorithm
# --------------------------------------------------------------------------------------------
def _dani(P: np.ndarray) -> np.ndarray:
    """DANI indexes (Aledo et al. 2017): mean distance of each row of ``P`` to its utopia."""
    m = P.shape[0]
    U = np.where(P > 0.75, 1.0, np.where(P < 0.25, 0.0, 0.5))
    D = np.abs(P - U)
    np.fill_diagonal(D, 0.0)
    return D.sum(axis=1) / max(m - 1, 1)


#: Rounding slack of the threshold and pivot comparisons of :func:`_bpa`: preferences of a few
#: (weighted) rankings often lie exactly on ``1/2 -+ beta`` or tie exactly in the DANI index,
#: and the float sums must not decide such cases by their last bit (exact arithmetic does not).
_TOL = 1e-10


def _place(P, items, piv, centre, nc, multi_pivot, grow, beta, left, right):  # pragma: no cover
    """Put ``items`` (the pivot skipped) left of, into or right of the pivot bucket.

    An item joins the bucket ``centre[:nc]`` when its mean preference against it is in
    ``[1/2 - beta, 1/2 + beta]`` (up to :data:`_TOL`). With ``grow`` the mean is over the
    bucket as it grows (stage 1), otherwise over the ``nc`` items it had on entry (stage 2).
    Returns ``(nc, nl, nr)``.
    """
    lo_t = 0.5 - beta - _TOL
    hi_t = 0.5 + beta + _TOL
    n_ref = nc
    nl = 0
    nr = 0
    for k in range(items.shape[0]):
        it = items[k]
        if it == piv:
            continue
        if multi_pivot:
            if grow:
                n_ref = nc
            s = 0.0
            for c in range(n_ref):
                s += P[centre[c], it]
            s /= n_ref
        else:
            s = P[piv, it]
        if s < lo_t:
            left[nl] = it
            nl += 1
        elif s <= hi_t:
            centre[nc] = it
            nc += 1
        else:
            right[nr] = it
            nr += 1
    return nc, nl, nr


_nb_place = numba.njit(_place, cache=True, nogil=True)


def _bpa(P, priority, beta, multi_pivot, two_stage, out):  # pragma: no cover - compiled below
    """One BPA run on a trusted pair-order matrix; writes dense bucket positions to ``out``.

    ``priority`` (m,): the pivot of a segment is its item with the smallest priority (ties:
    the first in segment order). Segments are processed depth first, left before right, with an
    explicit stack: one entry is a segment of ``buf`` to split or a finished bucket.
    """
    m = P.shape[0]
    buf = np.arange(m)
    left = np.empty(m, dtype=np.int64)
    centre = np.empty(m, dtype=np.int64)
    right = np.empty(m, dtype=np.int64)
    rest = np.empty(m, dtype=np.int64)
    st_lo = np.empty(2 * m + 2, dtype=np.int64)
    st_hi = np.empty(2 * m + 2, dtype=np.int64)
    st_done = np.empty(2 * m + 2, dtype=np.bool_)
    st_lo[0], st_hi[0], st_done[0] = 0, m, False
    top = 1
    bucket = 0
    while top > 0:
        top -= 1
        lo, hi = st_lo[top], st_hi[top]
        if hi <= lo:
            continue
        if st_done[top]:
            out[buf[lo:hi]] = bucket
            bucket += 1
            continue
        piv = buf[lo]
        for k in range(lo + 1, hi):
            if priority[buf[k]] < priority[piv] - _TOL:
                piv = buf[k]
        centre[0] = piv
        # stage 1: every item of the segment against the (growing) pivot bucket
        nc, nl, nr = _nb_place(P, buf[lo:hi], piv, centre, 1, multi_pivot, True, beta, left, right)
        if two_stage and multi_pivot:
            # stage 2: re-insert the left then the right items against the bucket stage 1
            # ended with (Aledo et al. 2017; scikit-lr's bpa_lia_mp2 does the same)
            rest[:nl] = left[:nl]
            rest[nl : nl + nr] = right[:nr]
            nc, nl, nr = _nb_place(
                P, rest[: nl + nr], piv, centre, nc, True, False, beta, left, right
            )
        buf[lo : lo + nl] = left[:nl]
        buf[lo + nl : lo + nl + nc] = centre[:nc]
        buf[lo + nl + nc : hi] = right[:nr]
        # push right, centre (finished), left: the left segment is popped first
        st_lo[top], st_hi[top], st_done[top] = lo + nl + nc, hi, False
        st_lo[top + 1], st_hi[top + 1], st_done[top + 1] = lo + nl, lo + nl + nc, True
        st_lo[top + 2], st_hi[top + 2], st_done[top + 2] = lo, lo + nl, False
        top += 3


_nb_bpa = numba.njit(_bpa, cache=True, nogil=True)


def _bpa_rows(Ps, priorities, beta, multi_pivot, two_stage, out):  # pragma: no cover
    """:func:`_bpa` on a stack of matrices ``Ps`` (q, m, m) with priorities (q, m)."""
    for i in range(Ps.shape[0]):
        _nb_bpa(Ps[i], priorities[i], beta, multi_pivot, two_stage, out[i])


_nb_bpa_rows = numba.njit(_bpa_rows, cache=True, nogil=True)


def _dani_rows(Ps):  # pragma: no cover - compiled below
    """DANI indexes of a stack of pair-order matrices (q, m, m) -> (q, m)."""
    q, m = Ps.shape[0], Ps.shape[1]
    out = np.empty((q, m))
    for i in range(q):
        for u in range(m):
            d = 0.0
            for v in range(m):
                if v != u:
                    p = Ps[i, u, v]
                    d += abs(p - (1.0 if p > 0.75 else (0.0 if p < 0.25 else 0.5)))
            out[i, u] = d / max(m - 1, 1)
    return out


_nb_dani_rows = numba.njit(_dani_rows, cache=True, nogil=True)


def _bucket_pivot_many(
    Ps: np.ndarray,
    *,
    beta: float = 0.25,
    pivot: str = "dani",
    multi_pivot: bool = True,
    two_stage: bool = True,
    rng: np.random.RandomState | None = None,
) -> np.ndarray:
    """BPA on trusted pair-order matrices (q, m, m) -> bucket positions (q, m), int64."""
    Ps = np.ascontiguousarray(Ps, dtype=np.float64)
    q, m = Ps.shape[0], Ps.shape[-1]
    if pivot == "dani":
        pri = _nb_dani_rows(Ps)
    else:
        rng = check_random_state(rng)
        pri = rng.random_sample((q, m))
    out = np.zeros((q, m), dtype=np.int64)
    _nb_bpa_rows(Ps, np.ascontiguousarray(pri), float(beta), multi_pivot, two_stage, out)
    return out


@validate_arguments(
    {
        "beta": [Interval(numbers.Real, 0.0, 0.5, closed="both")],
        "pivot": [StrOptions(set(BUCKET_PIVOTS))],
        "multi_pivot": ["boolean"],
        "two_stage": ["boolean"],
        "random_state": ["random_state"],
    }
)
def bucket_pivot(
    P: Any,
    *,
    beta: float = 0.25,
    pivot: str = "dani",
    multi_pivot: bool = True,
    two_stage: bool = True,
    random_state: Any = None,
) -> np.ndarray:
    """Bucket order of a pair-order matrix by the Bucket Pivot Algorithm.

    Pick a pivot item, put every other item of the current set before, in or after the
    pivot's bucket by its preference against it, then recurse on the items before and after.
    With ``beta = 0.25`` an item joins the pivot's bucket when its (mean) preference is in
    ``[0.25, 0.75]``.

    Parameters
    ----------
    P : array-like of float, shape (m, m) or (q, m, m)
        Pair-order matrix, values in [0, 1] (:func:`pair_order_matrix`), or a stack of ``q``
        of them (one bucket order each, in one compiled loop).
    beta : float in [0, 0.5], default=0.25
        Tie threshold: an item joins the pivot bucket when the pivot bucket precedes it with
        (mean) preference in ``[0.5 - beta, 0.5 + beta]``; before it below, after it above.
    pivot : {"dani", "random"}, default="dani"
        ``"dani"``: the item with the least indecision (DANI index, Aledo et al. 2017),
        deterministic; ``"random"``: uniform (Gionis et al. 2006), drawn from
        ``random_state``.
    multi_pivot : bool, default=True
        Compare an item with the mean of the whole pivot bucket so far (LIA "MP") instead of
        with the pivot alone.
    two_stage : bool, default=True
        With ``multi_pivot``, re-insert the items put before or after the bucket in the first
        pass against the bucket that pass ended with (LIA "MP2"; the bucket does not grow
        during the second pass, so its order of visits does not matter).
    random_state : int, RandomState or None
        Used only by ``pivot="random"``.

    Returns
    -------
    b : ndarray of int64, shape (m,) or (q, m)
        Dense 0-based bucket positions (equal values are tied).

    See Also
    --------
    bucket_order_cost : the objective this approximates.

    Notes
    -----
    The defaults are the "BPA-LIA-MP2" of Alfaro, Aledo & Gámez (2021) and of scikit-lr's
    ``bpa_lia_mp2``: items are visited in the same order and exact ties of the DANI index go
    to the first item of the current set, as there. Comparisons with the thresholds and
    between DANI indexes allow 1e-10 of rounding, so that a preference exactly on
    ``1/2 -+ beta`` (frequent with a few rankings) is decided as in exact arithmetic.

    Complexity: O(m^2) time per level of recursion, O(m^3) worst case, O(m^2) memory.

    Examples
    --------
    >>> P = pair_order_matrix([[1, 2, 2, 3], [1, 2, 3, 3], [1, 2, 2, 3]])
    >>> bucket_pivot(P)
    array([0, 1, 1, 2])
    """
    P = _check_pair_order(P, stack=True)
    rng = check_random_state(random_state) if pivot == "random" else None
    out = _bucket_pivot_many(
        P.reshape(-1, P.shape[-1], P.shape[-1]),
        beta=beta,
        pivot=pivot,
        multi_pivot=multi_pivot,
        two_stage=two_stage,
        rng=rng,
    )
    return out[0] if P.ndim == 2 else out
