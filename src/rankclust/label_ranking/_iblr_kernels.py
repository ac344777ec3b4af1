"""Numba kernels of :mod:`rankclust.label_ranking.iblr` (private: inputs are trusted).

One call fits the local Mallows models of many queries at once: Cheng et al.'s (2009)
approximate EM (Alg. 1) with the weighted Borda count as the median step, on the neighbour
rankings of each query. :func:`_em_one` is the single-query form of
:func:`rankclust.models.mallows.estimate_center` with ``method="borda"`` (the reference the
tests compare it with) and reuses the shared kernels for Proposition 1
(:func:`rankclust.models._mallows_kernels._closest_extension`) and Kendall's distance
(:func:`rankclust.distances._kendall_pair`). :func:`_predict_centers` runs it for every
query straight from the (Q, k) neighbour index matrix (weights and the initial Borda scores
included), and :func:`_loo_tau` scores every candidate k of the leave-one-out choice from
prefixes of one sorted neighbour list.
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
    if m > 32:
        order = np.argsort(key, kind="mergesort")  # stable: equal keys keep the index order
        for p in range(m):
            out[order[p]] = p
        return
    # few labels: count the labels ahead of each one (the same stable order, no sort call)
    for j in range(m):
        kj = key[j]
        p = 0
        for i in range(m):
            if key[i] < kj or (key[i] == kj and i < j):
                p += 1
        out[j] = p


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


def _em_one(
    ranks, w, init_scores, max_iter, need_dist, ext, new, scores, hist, hobj, center
):  # pragma: no cover - compiled below
    """Approximate-EM Mallows centre of one query's neighbour rankings (Cheng et al., Alg. 1).

    IN: ``ranks`` (k, m) int64 positions, -1 absent, no ties; ``w`` (k,) float64 with a
    positive sum; ``init_scores`` (m,) weighted generalised Borda scores (Prop. 2; read only
    when some ranking is incomplete); ``max_iter``; ``need_dist``: compute the mean
    distance (else it is returned as NaN: a prediction does not need it). WORK: ``ext``
    (k, m), ``new`` (m,), ``scores`` (m,), ``hist`` (max_iter, m), ``hobj`` (max_iter,).
    OUT: ``center`` (m,) position vector. Returns ``(mean_dist, n_iter, converged)``: the
    weighted mean Kendall distance of the Prop. 1 completions to the centre, the EM
    iterations (0 when every ranking is complete) and False after ``max_iter`` or on a
    cycle of centres (the cycle's centre with the smallest objective is kept, the first
    visited on ties).
    """
    k, m = ranks.shape
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
        if not need_dist:
            return np.nan, 0, True
        return _nb_weighted_distance(ranks, w, center) / wsum, 0, True
    _nb_positions_from_scores(init_scores, 1e-12 * (m + 1) * wsum, center)
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
    if not need_dist:
        return np.nan, it, conv
    _nb_closest_extension(ranks, center, ext)
    return _nb_weighted_distance(ext, w, center) / wsum, it, conv


_nb_em_one = numba.njit(_em_one, cache=True, nogil=True)


def _local_mallows_em(
    nbr_ranks, weights, init_scores, max_iter, centers, mean_dist, n_iter, converged
):  # pragma: no cover - compiled below
    """:func:`_em_one` for each query of a gathered batch.

    IN: ``nbr_ranks`` (Q, k, m) int64, ``weights`` (Q, k), ``init_scores`` (Q, m),
    ``max_iter``. OUT: ``centers`` (Q, m), ``mean_dist``, ``n_iter``, ``converged`` (Q,).
    Per query: O(iter k m^2) time.
    """
    n_q, k, m = nbr_ranks.shape
    ext = np.empty((k, m), dtype=np.int64)
    new = np.empty(m, dtype=np.int64)
    scores = np.empty(m)
    hist = np.empty((max_iter, m), dtype=np.int64)
    hobj = np.empty(max_iter)
    for q in range(n_q):
        mean_dist[q], n_iter[q], converged[q] = _nb_em_one(
            nbr_ranks[q],
            weights[q],
            init_scores[q],
            max_iter,
            True,
            ext,
            new,
            scores,
            hist,
            hobj,
            centers[q],
        )


_nb_local_mallows_em = numba.njit(_local_mallows_em, cache=True, nogil=True)


def _gather_neighbours(
    train_ranks, votes, completeness, ind, dist, k, uniform, nbr, w, init
):  # pragma: no cover - compiled below
    """Rankings, weights and initial Borda scores of the first ``k`` neighbours of one query.

    IN: ``train_ranks`` (n, m), ``votes`` (n, m) generalised Borda votes, ``completeness``
    (n,) = ``|Y(sigma_i)|/m``; ``ind``/``dist`` (>= k,) the query's neighbours, the first k
    its k nearest: sorted by (distance, index), or in any order (large k); the Dudani
    weights use the smallest and largest of the k distances. ``uniform``: uniform instead
    of Dudani distance weights.
    OUT: ``nbr[:k]`` (k, m) ranks; ``w[:k]`` the weights (distance weight times
    completeness; if they sum to zero the completeness alone, then all ones); ``init`` (m,)
    the weighted generalised Borda scores (left untouched when all k rankings are complete:
    :func:`_em_one` does not read them then). Same arithmetic as
    :func:`rankclust.label_ranking._base.dudani_weights` (the numpy reference in the tests).
    """
    m = train_ranks.shape[1]
    near = dist[0]
    far = dist[0]
    for i in range(1, k):
        near = min(near, dist[i])
        far = max(far, dist[i])
    span = far - near
    total = 0.0
    for i in range(k):
        r = ind[i]
        for j in range(m):
            nbr[i, j] = train_ranks[r, j]
        wd = 1.0
        if not uniform and span > 0:
            wd = (far - dist[i]) / span
        w[i] = wd * completeness[r]
        total += w[i]
    if not total > 0:
        total = 0.0
        for i in range(k):
            w[i] = completeness[ind[i]]
            total += w[i]
        if not total > 0:
            for i in range(k):
                w[i] = 1.0
    # the initial scores are only read when some ranking is incomplete
    complete = True
    for i in range(k):
        if completeness[ind[i]] < 1.0:
            complete = False
            break
    if complete:
        return
    for j in range(m):
        init[j] = 0.0
    for i in range(k):
        wi = w[i]
        r = ind[i]
        for j in range(m):
            init[j] += wi * votes[r, j]


_nb_gather_neighbours = numba.njit(_gather_neighbours, cache=True, nogil=True)


def _complete_center(train_ranks, ind, dist, k, uniform, scores, center):
    """Weighted Borda centre of k neighbours whose rankings are all complete (no copies).

    The complete-data branch of :func:`_gather_neighbours` + :func:`_em_one` with the same
    arithmetic in the same order (a complete ranking's completeness weight is exactly 1 and
    the nearest neighbour's Dudani weight is 1, so no fallback applies), reading the
    training ranks in place. ``ind``/``dist`` (>= k,) as in :func:`_gather_neighbours`.
    """
    m = train_ranks.shape[1]
    near = dist[0]
    far = dist[0]
    for i in range(1, k):
        near = min(near, dist[i])
        far = max(far, dist[i])
    span = far - near
    for j in range(m):
        scores[j] = 0.0
    wsum = 0.0
    for i in range(k):
        wi = 1.0
        if not uniform and span > 0:
            wi = (far - dist[i]) / span
        wsum += wi
        if wi == 0.0:
            continue
        r = ind[i]
        for j in range(m):
            scores[j] += wi * (m - 1 - 2 * train_ranks[r, j])
    _nb_positions_from_scores(scores, 1e-12 * m * wsum, center)


_nb_complete_center = numba.njit(_complete_center, cache=True, nogil=True)


def _predict_centers(
    train_ranks,
    votes,
    completeness,
    ind,
    dist,
    uniform,
    max_iter,
    need_dist,
    centers,
    mean_dist,
    n_iter,
    converged,
):  # pragma: no cover - compiled below
    """Local Mallows centre of every query from its (Q, k) neighbour index matrix.

    IN: as :func:`_gather_neighbours`, with ``ind``/``dist`` (Q, k) sorted per row.
    OUT: ``centers`` (Q, m), ``mean_dist``, ``n_iter``, ``converged`` (Q,) as in
    :func:`_em_one` (``mean_dist`` NaN unless ``need_dist``). One pass, no (Q, k, m) buffer: O(Q k m) time for complete neighbour
    rankings, O(Q iter k m^2) otherwise; O(k m + max_iter m) work memory.
    """
    n_q, k = ind.shape
    m = train_ranks.shape[1]
    nbr = np.empty((k, m), dtype=np.int64)
    w = np.empty(k)
    init = np.empty(m)
    ext = np.empty((k, m), dtype=np.int64)
    new = np.empty(m, dtype=np.int64)
    scores = np.empty(m)
    hist = np.empty((max_iter, m), dtype=np.int64)
    hobj = np.empty(max_iter)
    for q in range(n_q):
        if not need_dist:
            complete = True
            for i in range(k):
                if completeness[ind[q, i]] < 1.0:
                    complete = False
                    break
            if complete:
                _nb_complete_center(train_ranks, ind[q], dist[q], k, uniform, scores, centers[q])
                mean_dist[q] = np.nan
                n_iter[q] = 0
                converged[q] = True
                continue
        _nb_gather_neighbours(
            train_ranks, votes, completeness, ind[q], dist[q], k, uniform, nbr, w, init
        )
        mean_dist[q], n_iter[q], converged[q] = _nb_em_one(
            nbr, w, init, max_iter, need_dist, ext, new, scores, hist, hobj, centers[q]
        )


_nb_predict_centers = numba.njit(_predict_centers, cache=True, nogil=True)


def _loo_centers(
    train_ranks, votes, completeness, ind, dist, ks, uniform, max_iter, centers, n_bad
):  # pragma: no cover - compiled below
    """Local Mallows centre of held-out rows for every candidate k, in one pass.

    IN: as :func:`_predict_centers`, with ``ind``/``dist`` (E, K) the neighbours of E
    held-out training rows (themselves excluded) and ``ks`` (G,) candidate sizes <= K such
    that ``ind[e, :k]`` are the k nearest for every k in ``ks``. The prediction with k
    neighbours uses the prefix ``ind[e, :k]``, so one neighbour search serves every k.
    OUT: ``centers`` (E, G, m) position vectors (scored by the caller with
    :func:`rankclust.metrics.kendall_tau_rows`); ``n_bad`` (G,) counts of local fits that
    did not converge. O(E sum(ks) m) time for complete rankings.
    """
    n_e, kk = ind.shape
    m = train_ranks.shape[1]
    nbr = np.empty((kk, m), dtype=np.int64)
    w = np.empty(kk)
    init = np.empty(m)
    ext = np.empty((kk, m), dtype=np.int64)
    new = np.empty(m, dtype=np.int64)
    scores = np.empty(m)
    hist = np.empty((max_iter, m), dtype=np.int64)
    hobj = np.empty(max_iter)
    for g in range(ks.shape[0]):
        n_bad[g] = 0
    for e in range(n_e):
        # neighbours before the first incomplete ranking take the complete-data fast path
        n_complete = kk
        for i in range(kk):
            if completeness[ind[e, i]] < 1.0:
                n_complete = i
                break
        for g in range(ks.shape[0]):
            k = ks[g]
            if k <= n_complete:
                _nb_complete_center(
                    train_ranks, ind[e], dist[e], k, uniform, scores, centers[e, g]
                )
                conv = True
            else:
                _nb_gather_neighbours(
                    train_ranks, votes, completeness, ind[e], dist[e], k, uniform, nbr, w, init
                )
                _, _, conv = _nb_em_one(
                    nbr[:k],
                    w[:k],
                    init,
                    max_iter,
                    False,
                    ext[:k],
                    new,
                    scores,
                    hist,
                    hobj,
                    centers[e, g],
                )
            if not conv:
                n_bad[g] += 1


_nb_loo_centers = numba.njit(_loo_centers, cache=True, nogil=True)


def _exact_distances(train, queries, ind, out):  # pragma: no cover - compiled below
    """``out[q, h]`` = Euclidean distance of query q to training row ``ind[q, h]``.

    Summed feature by feature in order, as scikit-learn's trees do, so every search method
    reports bit-identical distances (and exact ties stay ties).
    """
    n_q, k = ind.shape
    d = train.shape[1]
    for q in range(n_q):
        for h in range(k):
            r = ind[q, h]
            s = 0.0
            for j in range(d):
                diff = queries[q, j] - train[r, j]
                s += diff * diff
            out[q, h] = np.sqrt(s)


_nb_exact_distances = numba.njit(_exact_distances, cache=True, nogil=True)


def _squared_distances(train_t, queries, out):  # pragma: no cover - compiled below
    """``out[q, i]`` = squared Euclidean distance of query q to training row i.

    ``train_t`` (d, n) is the transposed training matrix, so the sum runs feature by feature
    over contiguous memory (vectorised over i) in the same order as
    :func:`_exact_distances`: the values are bit-identical to the trees' distances.
    """
    n_q = queries.shape[0]
    d, n = train_t.shape
    for q in range(n_q):
        row = out[q]
        for i in range(n):
            row[i] = 0.0
        for j in range(d):
            qj = queries[q, j]
            col = train_t[j]
            for i in range(n):
                diff = qj - col[i]
                row[i] += diff * diff


_nb_squared_distances = numba.njit(_squared_distances, cache=True, nogil=True)
