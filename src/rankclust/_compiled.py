"""Compiled kernels that several subpackages share (package toolkit; inputs are trusted).

One home for each numba primitive that more than one subpackage calls, so that no subpackage
reaches into another's private kernels. As everywhere in the package, each kernel is written
as a plain Python function (``_name``, debuggable and the reference the tests compare
against) and compiled below it (``name``):

* :func:`kendall_pair` -- discordant and comparable pair counts of two position vectors
  (:mod:`rankclust.distances`, the label-ranking IBLR and tree kernels);
* :func:`closest_extension` -- Cheng et al. (2009), Proposition 1: the completion of each
  partial ranking closest to a centre in Kendall's distance
  (:func:`rankclust.models.mallows.most_probable_extension`, IBLR's approximate EM, the
  supervised rank-clustering tree);
* :func:`cayley_pair` and :func:`ulam_pair` -- Cayley's and Ulam's distance of two
  permutations (:mod:`rankclust.distances`, the Cayley and Ulam Mallows models);
* :func:`tree_apply` -- the root-to-leaf walk of a binary tree stored as arrays
  (:class:`rankclust.label_ranking.LabelRankingTree` and the supervised K-tree).

Moving a kernel here changes numba's cache key, not its results.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["cayley_pair", "closest_extension", "kendall_pair", "tree_apply", "ulam_pair"]


def _kendall_pair(a, b):  # pragma: no cover - compiled below
    """Discordant and comparable pair counts of two position vectors, O(m^2).

    A pair counts when both items are known (>= 0) and strictly ordered in both vectors.
    """
    m = a.shape[0]
    disc = 0
    comp = 0
    for u in range(m):
        au = a[u]
        bu = b[u]
        if au < 0 or bu < 0:
            continue
        for v in range(u + 1, m):
            av = a[v]
            bv = b[v]
            if av < 0 or bv < 0 or av == au or bv == bu:
                continue
            comp += 1
            if (au < av) != (bu < bv):
                disc += 1
    return disc, comp


kendall_pair = numba.njit(_kendall_pair, cache=True, nogil=True)


def _best_gap(center, present, k, cj):  # pragma: no cover - compiled below
    """The gap (0..k) of the ``k`` present items ``present[:k]`` (in the row's order) where
    an absent item of centre position ``cj`` costs least (Proposition 1), the first on ties."""
    cost = 0
    for p in range(k):
        if center[present[p]] < cj:
            cost += 1
    best = cost
    best_g = 0
    for p in range(k):
        if center[present[p]] > cj:
            cost += 1
        else:
            cost -= 1
        if cost < best:
            best = cost
            best_g = p + 1
    return best_g


_nb_best_gap = numba.njit(_best_gap, cache=True, nogil=True)


def _closest_extension(ranks, center, out):  # pragma: no cover - compiled below
    """Complete every row of ``ranks`` by its extension closest to ``center`` in Kendall.

    ``ranks`` (n, m) int64 without ties, -1 for absent; ``out`` (n, m) receives complete
    position vectors. Each absent item ``i`` goes into the gap ``j`` (0 = above the first
    present item, k = below the last) minimising
    ``cost_i(j) = #{present x in the first j: c(x) > c(i)} + #{present x after j: c(x) < c(i)}``
    with the smallest ``j`` on ties; items sharing a gap keep the centre's order.
    O(m k + m log m) per row for k present items.
    """
    n, m = ranks.shape
    present = np.empty(m, dtype=np.int64)
    gap = np.empty(m, dtype=np.int64)
    key = np.empty(m, dtype=np.int64)
    for i in range(n):
        k = 0
        for j in range(m):
            if ranks[i, j] >= 0:
                k += 1
        # present items in the row's order (positions are dense 0..k-1 without ties)
        for j in range(m):
            r = ranks[i, j]
            if r >= 0:
                present[r] = j
        for j in range(m):
            gap[j] = -1 if ranks[i, j] >= 0 else _nb_best_gap(center, present, k, center[j])
        # sort key: (gap, absent items before the present item closing that gap, centre)
        # present item p closes gap p (it follows the absent items inserted in gap p).
        for j in range(m):
            r = ranks[i, j]
            if r >= 0:
                key[j] = r * (2 * m + 1) + 2 * m
            else:
                key[j] = gap[j] * (2 * m + 1) + center[j]
        order = np.argsort(key)
        for p in range(m):
            out[i, order[p]] = p


closest_extension = numba.njit(_closest_extension, cache=True, nogil=True)


def _tree_apply(X, feature, threshold, left, right, out):  # pragma: no cover - compiled below
    """Leaf of every row of ``X`` (OUT ``out`` (q,)): walk from the root. O(q depth)."""
    for q in range(X.shape[0]):
        t = 0
        while feature[t] >= 0:
            if X[q, feature[t]] <= threshold[t]:
                t = left[t]
            else:
                t = right[t]
        out[q] = t


tree_apply = numba.njit(_tree_apply, cache=True, nogil=True)


def _cayley_pair(a, order_b, seen):  # pragma: no cover - compiled below
    """Cayley distance ``m - #cycles`` of ``j -> order_b[a[j]]`` (a conjugate of a o b^-1)."""
    m = a.shape[0]
    for j in range(m):
        seen[j] = False
    cycles = 0
    for j in range(m):
        if seen[j]:
            continue
        cycles += 1
        x = j
        while not seen[x]:
            seen[x] = True
            x = order_b[a[x]]
    return m - cycles


cayley_pair = numba.njit(_cayley_pair, cache=True, nogil=True)


def _ulam_pair(a, order_b, tails):  # pragma: no cover - compiled below
    """Ulam distance ``m - LIS`` of the sequence ``a[order_b[0]], ..., a[order_b[m-1]]``: the
    positions under ``a`` of the items listed best first under ``b``. Patience sorting with
    binary search, O(m log m); ``tails`` is a buffer of length m (overwritten)."""
    m = a.shape[0]
    n_tails = 0
    for k in range(m):
        x = a[order_b[k]]
        lo = 0
        hi = n_tails
        while lo < hi:  # first tail >= x
            mid = (lo + hi) // 2
            if tails[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        tails[lo] = x
        if lo == n_tails:
            n_tails += 1
    return m - n_tails


ulam_pair = numba.njit(_ulam_pair, cache=True, nogil=True)
