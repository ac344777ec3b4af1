"""Numba kernels of :mod:`rankclust.label_ranking.iblr` (private: inputs are trusted).

One call fits the local Mallows models of many queries at once: Cheng et al.'s (2009)
approximate EM (Alg. 1) with the weighted Borda count as the median step, on the neighbour
rankings of each query. It is the batched form of
:func:`rankclust.models.mallows.estimate_center` with ``method="borda"`` (the reference the
tests compare it with) and reuses the shared kernels for Proposition 1
(:func:`rankclust.models._mallows_kernels._closest_extension`) and Kendall's distance
(:func:`rankclust.distances._kendall_pair`).
"""

from __future__ import annotations

import numba
import numpy as np

from rankclust.distances import _nb_kendall_pair
from rankclust.models._mallows_kernels import _nb_closest_extension


def _positions_from_scores(scores, tol, out):  # pragma: no cover - compiled below
    """Position vector ranking higher scores first; scores within ``tol`` tie, lower index first.

    The same rule as :func:`rankclust.consensus._positions_from_scores`.
    """
    m = scores.shape[0]
    key = np.empty(m)
    for j in range(m):
        key[j] = -np.round(scores[j] / tol) if tol > 0 else -scores[j]
    order = np.argsort(key, kind="mergesort")  # stable: equal keys keep the index order
    for p in range(m):
        out[order[p]] = p


_nb_positions_from_scores = numba.njit(_positions_from_scores, cache=True, nogil=True)


def _weighted_distance(ranks, w, center):  # pragma: no cover - compiled below
    """``sum_i w_i d_K(ranks_i, center)`` for complete rows."""
    total = 0.0
    for i in range(ranks.shape[0]):
        if w[i] != 0.0:
            disc, _ = _nb_kendall_pair(ranks[i], center)
            total += w[i] * disc
    return total


_nb_weighted_distance = numba.njit(_weighted_distance, cache=True, nogil=True)


def _borda_of_complete(ranks, w, scores):  # pragma: no cover - compiled below
    """Net Borda scores ``sum_i w_i (m - 1 - 2 pos_i(l))`` of complete rows (wins - losses)."""
    k, m = ranks.shape
    for j in range(m):
        scores[j] = 0.0
    for i in range(k):
        wi = w[i]
        if wi == 0.0:
            continue
        for j in range(m):
            scores[j] += wi * (m - 1 - 2 * ranks[i, j])


_nb_borda_of_complete = numba.njit(_borda_of_complete, cache=True, nogil=True)


def _local_mallows_em(
    nbr_ranks, weights, init_scores, max_iter, centers, mean_dist, n_iter, converged
):  # pragma: no cover - compiled below
    """Approximate-EM Mallows centre (Borda median) of each query's neighbour rankings.

    IN: ``nbr_ranks`` (Q, k, m) int64 positions, -1 absent, no ties; ``weights`` (Q, k)
    float64 with a positive sum per query; ``init_scores`` (Q, m) weighted generalised Borda
    scores (Prop. 2) of each query; ``max_iter``.
    OUT: ``centers`` (Q, m) position vectors; ``mean_dist`` (Q,) weighted mean Kendall
    distance of the Prop. 1 completions to the centre (the statistic of the theta MLE);
    ``n_iter`` (Q,) EM iterations (0 when every neighbour ranking is complete); ``converged``
    (Q,) False after ``max_iter`` or on a cycle of centres (the cycle's centre with the
    smallest objective is kept, the first visited on ties).

    Per query: O(iter k m^2) time.
    """
    n_q, k, m = nbr_ranks.shape
    ext = np.empty((k, m), dtype=np.int64)
    center = np.empty(m, dtype=np.int64)
    new = np.empty(m, dtype=np.int64)
    scores = np.empty(m)
    hist = np.empty((max_iter, m), dtype=np.int64)
    hobj = np.empty(max_iter)
    for q in range(n_q):
        ranks = nbr_ranks[q]
        w = weights[q]
        wsum = 0.0
        for i in range(k):
            wsum += w[i]
        complete = True
        for i in range(k):
            for j in range(m):
                if ranks[i, j] < 0:
                    complete = False
        if complete:
            _nb_borda_of_complete(ranks, w, scores)
            _nb_positions_from_scores(scores, 1e-12 * m * wsum, center)
            centers[q] = center
            mean_dist[q] = _nb_weighted_distance(ranks, w, center) / wsum
            n_iter[q] = 0
            converged[q] = True
            continue
        _nb_positions_from_scores(init_scores[q], 1e-12 * (m + 1) * wsum, center)
        conv = False
        it = 0
        while it < max_iter:
            _nb_closest_extension(ranks, center, ext)
            hist[it] = center
            hobj[it] = _nb_weighted_distance(ext, w, center)
            it += 1
            _nb_borda_of_complete(ext, w, scores)
            _nb_positions_from_scores(scores, 1e-12 * m * wsum, new)
            same = True
            for j in range(m):
                if new[j] != center[j]:
                    same = False
                    break
            if same:
                conv = True
                break
            start = -1
            for h in range(it):
                eq = True
                for j in range(m):
                    if hist[h, j] != new[j]:
                        eq = False
                        break
                if eq:
                    start = h
                    break
            if start >= 0:
                best = start
                for h in range(start + 1, it):
                    if hobj[h] < hobj[best]:
                        best = h
                for j in range(m):
                    center[j] = hist[best, j]
                break
            for j in range(m):
                center[j] = new[j]
        _nb_closest_extension(ranks, center, ext)
        centers[q] = center
        mean_dist[q] = _nb_weighted_distance(ext, w, center) / wsum
        n_iter[q] = it
        converged[q] = conv


_nb_local_mallows_em = numba.njit(_local_mallows_em, cache=True, nogil=True)
