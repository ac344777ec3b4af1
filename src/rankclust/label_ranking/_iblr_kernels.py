"""Numba kernels of :mod:`rankclust.label_ranking.iblr` (private: inputs are trusted).

One call fits the local Mallows models of many queries at once: Cheng et al.'s (2009)
approximate EM (Alg. 1) with the weighted Borda count as the median step, on the neighbour
rankings of each query. :func:`_em_one` is the single-query form of
:func:`rankclust.models.mallows.estimate_center` with ``method="borda"`` (the reference the
tests compare it with) and reuses the shared kernels for Proposition 1
(:func:`rankclust._compiled.closest_extension`) and Kendall's distance
(:func:`rankclust._compiled.kendall_pair`). :func:`_predict_centers` runs it for every
query straight from the (Q, k) neighbour index matrix (weights and the initial Borda scores
included), and :func:`_loo_tau` scores every candidate k of the leave-one-out choice from
prefixes of one sorted neighbour list.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from rankclust._compiled import closest_extension, kendall_pair


class EMWork(NamedTuple):
    """Scratch of :func:`_em_one` for k rankings of m labels."""

    ext: np.ndarray  # (k, m) int64
    new: np.ndarray  # (m,) int64
    scores: np.ndarray  # (m,) float64
    hist: np.ndarray  # (max_iter, m) int64
    hobj: np.ndarray  # (max_iter,) float64


class CenterFits(NamedTuple):
    """Per-query outputs of :func:`_predict_centers` (see :func:`_em_one`)."""

    centers: np.ndarray  # (Q, m) int64
    mean_dist: np.ndarray  # (Q,)
    n_iter: np.ndarray  # (Q,) int64
    converged: np.ndarray  # (Q,) bool


class PLRows(NamedTuple):
    """The training rankings as the Plackett-Luce kernels read them: ``orders`` (n, m)
    (labels best first, ``-1`` after the ``lengths[r]`` present ones), ``row_w`` (n,)."""

    orders: np.ndarray
    lengths: np.ndarray
    row_w: np.ndarray


class PLQuery(NamedTuple):
    """One query's neighbourhood in :func:`_pl_objective`: rows ``idx[:k]`` with weights
    ``c[:k]`` (neighbour weight times row weight) and the prior ``alpha``."""

    idx: np.ndarray
    c: np.ndarray
    k: int
    alpha: float


class PLFit(NamedTuple):
    """Settings of the local Plackett-Luce MAP fits (:func:`_pl_map_one`)."""

    alpha: float
    max_iter: int
    tol: float
    order_only: bool


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
            disc, _ = kendall_pair(ranks[i], center)
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


def _all_complete(ranks):  # pragma: no cover - compiled below
    """Whether every row of ``ranks`` ranks every item (no ``-1``)."""
    for i in range(ranks.shape[0]):
        for j in range(ranks.shape[1]):
            if ranks[i, j] < 0:
                return False
    return True


_nb_all_complete = numba.njit(_all_complete, cache=True, nogil=True)


def _same_row(a, b):  # pragma: no cover - compiled below
    """Whether the vectors ``a`` and ``b`` are equal."""
    for j in range(a.shape[0]):
        if a[j] != b[j]:
            return False
    return True


_nb_same_row = numba.njit(_same_row, cache=True, nogil=True)


def _first_visit(hist, n, row):  # pragma: no cover - compiled below
    """The first ``h < n`` with ``hist[h] == row``, or -1."""
    for h in range(n):
        if _nb_same_row(hist[h], row):
            return h
    return -1


_nb_first_visit = numba.njit(_first_visit, cache=True, nogil=True)


def _em_one(ranks, w, init_scores, max_iter, need_dist, work, center):  # pragma: no cover
    """Approximate-EM Mallows centre of one query's neighbour rankings (Cheng et al., Alg. 1).

    A compiled copy of :func:`rankclust.models.mallows._approximate_em` with
    ``method="borda"`` (the one home of Cheng et al.'s EM; numba cannot call it): keep in
    sync -- the same start, completion, median step, cycle rule and tie tolerances.
    ``tests/models/test_mallows_math.py`` pins it to ``estimate_center(method="borda")`` on
    random weighted, incomplete neighbourhoods.

    IN: ``ranks`` (k, m) int64 positions, -1 absent, no ties; ``w`` (k,) float64 with a
    positive sum; ``init_scores`` (m,) weighted generalised Borda scores (Prop. 2; read only
    when some ranking is incomplete); ``max_iter``; ``need_dist``: compute the mean
    distance (else it is returned as NaN: a prediction does not need it). WORK: ``work``
    (:class:`EMWork`): ``ext`` (k, m), ``new`` (m,), ``scores`` (m,), ``hist``
    (max_iter, m), ``hobj`` (max_iter,).
    OUT: ``center`` (m,) position vector. Returns ``(mean_dist, n_iter, converged)``: the
    weighted mean Kendall distance of the Prop. 1 completions to the centre, the EM
    iterations (0 when every ranking is complete) and False after ``max_iter`` or on a
    cycle of centres (the cycle's centre with the smallest objective is kept, the first
    visited on ties).
    """
    ext, new, scores, hist, hobj = work
    k, m = ranks.shape
    wsum = 0.0
    for i in range(k):
        wsum += w[i]
    if _nb_all_complete(ranks):
        _nb_borda_of_complete(ranks, w, scores)
        _nb_positions_from_scores(scores, 1e-12 * m * wsum, center)
        if not need_dist:
            return np.nan, 0, True
        return _nb_weighted_distance(ranks, w, center) / wsum, 0, True
    _nb_positions_from_scores(init_scores, 1e-12 * (m + 1) * wsum, center)
    conv = False
    it = 0
    while it < max_iter:
        closest_extension(ranks, center, ext)
        hist[it] = center
        hobj[it] = _nb_weighted_distance(ext, w, center)
        it += 1
        _nb_borda_of_complete(ext, w, scores)
        _nb_positions_from_scores(scores, 1e-12 * m * wsum, new)
        if _nb_same_row(new, center):
            conv = True
            break
        start = _nb_first_visit(hist, it, new)
        if start >= 0:
            # a cycle of centres: keep its centre with the smallest objective (the first
            # visited on ties)
            best = start
            for h in range(start + 1, it):
                if hobj[h] < hobj[best]:
                    best = h
            center[:] = hist[best]
            break
        center[:] = new
    if not need_dist:
        return np.nan, it, conv
    closest_extension(ranks, center, ext)
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
    work = EMWork(
        np.empty((k, m), dtype=np.int64),
        np.empty(m, dtype=np.int64),
        np.empty(m),
        np.empty((max_iter, m), dtype=np.int64),
        np.empty(max_iter),
    )
    for q in range(n_q):
        mean_dist[q], n_iter[q], converged[q] = _nb_em_one(
            nbr_ranks[q], weights[q], init_scores[q], max_iter, True, work, centers[q]
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
    train_ranks, votes, completeness, ind, dist, uniform, max_iter, need_dist, out
):  # pragma: no cover - compiled below
    """Local Mallows centre of every query from its (Q, k) neighbour index matrix.

    IN: as :func:`_gather_neighbours`, with ``ind``/``dist`` (Q, k) sorted per row.
    OUT: ``out`` (:class:`CenterFits`): ``centers`` (Q, m), ``mean_dist``, ``n_iter``,
    ``converged`` (Q,) as in :func:`_em_one` (``mean_dist`` NaN unless ``need_dist``). One pass, no (Q, k, m) buffer: O(Q k m) time for complete neighbour
    rankings, O(Q iter k m^2) otherwise; O(k m + max_iter m) work memory.
    """
    centers, mean_dist, n_iter, converged = out
    n_q, k = ind.shape
    m = train_ranks.shape[1]
    nbr = np.empty((k, m), dtype=np.int64)
    w = np.empty(k)
    init = np.empty(m)
    scores = np.empty(m)
    work = EMWork(
        np.empty((k, m), dtype=np.int64),
        np.empty(m, dtype=np.int64),
        scores,
        np.empty((max_iter, m), dtype=np.int64),
        np.empty(max_iter),
    )
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
            nbr, w, init, max_iter, need_dist, work, centers[q]
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
    # a plain bool (a literal False would compile a second copy of _em_one)
    need_dist = n_e < 0
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
                    need_dist,
                    EMWork(ext[:k], new, scores, hist, hobj),
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


def _squared_row(train_t, query, row):  # pragma: no cover - compiled below
    """``row[i]`` = squared Euclidean distance of ``query`` (d,) to training row i.

    ``train_t`` (d, n) is the transposed training matrix, so the sum runs feature by feature
    over contiguous memory (vectorised over i) in the same order as
    :func:`_exact_distances`: the values are bit-identical to the trees' distances.
    """
    d, n = train_t.shape
    for i in range(n):
        row[i] = 0.0
    for j in range(d):
        qj = query[j]
        col = train_t[j]
        for i in range(n):
            diff = qj - col[i]
            row[i] += diff * diff


_nb_squared_row = numba.njit(_squared_row, cache=True, nogil=True)


def _squared_distances(train_t, queries, out):  # pragma: no cover - compiled below
    """``out[q, i]`` = squared Euclidean distance of query q to training row i
    (:func:`_squared_row` per query)."""
    for q in range(queries.shape[0]):
        _nb_squared_row(train_t, queries[q], out[q])


_nb_squared_distances = numba.njit(_squared_distances, cache=True, nogil=True)


def _nearest(train_t, queries, exclude, dist, ind):  # pragma: no cover - compiled below
    """Exact k nearest training rows of every query, sorted by (distance, training index).

    IN: ``train_t`` (d, n) transposed training matrix; ``queries`` (Q, d); ``exclude`` (Q,)
    a training index each query skips (its own row in a leave-one-out; -1: none).
    OUT: ``dist``/``ind`` (Q, k), 1 <= k <= n (n - 1 with an exclusion).
    The squared distances are :func:`_squared_row`'s (bit-identical to the trees'). One scan in index order keeps the k smallest
    so far in a sorted list: a row enters when it is closer than the k-th (an equal
    distance has a larger index, so it stays out, and it is inserted after equal keys), so
    of several rows tied at the k-th distance the lowest-numbered enter. O(Q (n d + n +
    s k)) time for s insertions (about k log(n / k) in a random order), O(n) memory
    besides the outputs: no (Q, n) matrix, no sort or partition of the n distances.
    """
    n_q, k = ind.shape
    n = train_t.shape[1]
    row = np.empty(n)
    for q in range(n_q):
        _nb_squared_row(train_t, queries[q], row)
        skip = exclude[q]
        key = dist[q]
        idx = ind[q]
        size = 0
        for i in range(n):
            v = row[i]
            if i == skip or (size == k and not v < key[k - 1]):
                continue
            g = size if size < k else k - 1
            while g > 0 and key[g - 1] > v:
                key[g] = key[g - 1]
                idx[g] = idx[g - 1]
                g -= 1
            key[g] = v
            idx[g] = i
            if size < k:
                size += 1
        for h in range(k):
            key[h] = np.sqrt(key[h])
        # distinct squared distances can share a square root: order such runs by index
        for h in range(1, k):
            g = h
            while g > 0 and key[g - 1] == key[g] and idx[g - 1] > idx[g]:
                idx[g - 1], idx[g] = idx[g], idx[g - 1]
                g -= 1


_nb_nearest = numba.njit(_nearest, cache=True, nogil=True)


def _tau_counts(truth, positions, disc, comp):  # pragma: no cover - compiled below
    """Discordant and comparable pairs of each held-out ranking against its predictions.

    IN: ``truth`` (E, m) 0-based positions (-1 = missing label); ``positions`` (E, G, m)
    the predicted position vectors per candidate k. OUT: ``disc``/``comp`` (E, G): the
    counts of :func:`rankclust.distances.kendall_counts`, from which the caller forms
    Kendall's tau as :func:`rankclust.metrics.kendall_tau_rows` does.
    """
    n_e, n_g, _ = positions.shape
    for e in range(n_e):
        for g in range(n_g):
            disc[e, g], comp[e, g] = kendall_pair(truth[e], positions[e, g])


_nb_tau_counts = numba.njit(_tau_counts, cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# local Plackett-Luce MAP fits (IBLRPlackettLuce)
# --------------------------------------------------------------------------------------------
#: Scores of a local Plackett-Luce fit closer than this tie (lower label index first): the
#: Newton iterates reach the optimum to about 1e-12, so labels with equal statistics in the
#: neighbourhood (equal scores in exact arithmetic) are ranked by index, not by rounding.
PL_TIE_TOL = 1e-9


def _pl_objective(rows, query, theta, v):  # pragma: no cover
    """Log posterior (up to a constant) of log-worths ``theta``; fills ``v = exp(theta)``.

    ``sum_i c_i sum_{j < l_i - 1} (theta[o_ij] - log S_ij) + alpha sum_c (theta_c - v_c)``
    with ``S_ij`` the total worth of the labels at positions ``j..l_i - 1`` of neighbour
    ranking ``i`` (its ordering ``o_i``): the Plackett-Luce log-likelihood of the observed
    labels and independent Gamma(1 + alpha, alpha) priors on the worths (the posterior
    density of the worths, written in ``theta``, as :func:`rankclust.models.plackett_luce.
    fit_scores` maximises it). ``rows`` (:class:`PLRows`), ``query`` (:class:`PLQuery`).
    """
    orders, lengths = rows.orders, rows.lengths
    idx, c, k, alpha = query
    m = theta.shape[0]
    f = 0.0
    for a in range(m):
        v[a] = np.exp(theta[a])
        f += alpha * (theta[a] - v[a])
    for i in range(k):
        ci = c[i]
        if ci == 0.0:
            continue
        r = idx[i]
        ln = lengths[r]
        if ln < 2:
            continue
        s = v[orders[r, ln - 1]]
        for j in range(ln - 2, -1, -1):
            a = orders[r, j]
            s += v[a]
            f += ci * (theta[a] - np.log(s))
    return f


_nb_pl_objective = numba.njit(_pl_objective, cache=True, nogil=True)


def _pl_grad_hess(
    rows, query, wins, v, suffix, grad, hess, with_hess
):  # pragma: no cover - compiled below
    """Gradient and negated Hessian of :func:`_pl_objective` at ``v = exp(theta)``.

    Stage ``j`` of ranking ``i`` chooses among its labels at positions ``>= j`` with
    probabilities ``p_j(a) = v_a / S_j``; with ``A_t = sum_{j <= min(t, l - 2)} 1/S_j`` and
    ``B_t`` the same sum of ``1/S_j^2``, the label at position ``t`` gets
    ``grad -= c v_a A_t`` and ``hess[a, a] += c (v_a A_t - v_a^2 B_t)``, a pair at positions
    ``u < t`` gets ``hess[a, b] -= c v_a v_b B_u``. The prior adds ``alpha (1 - v)`` and
    ``alpha diag(v)`` (so ``hess`` is positive definite). Only the lower triangle of
    ``hess`` is written, and only when ``with_hess``. O(sum_i l_i^2) time (O(sum_i l_i)
    for the gradient alone).
    """
    orders, lengths = rows.orders, rows.lengths
    idx, c, k, alpha = query
    m = v.shape[0]
    for a in range(m):
        grad[a] = wins[a] + alpha - alpha * v[a]
        if with_hess:
            for b in range(a):
                hess[a, b] = 0.0
            hess[a, a] = alpha * v[a]
    for i in range(k):
        ci = c[i]
        if ci == 0.0:
            continue
        r = idx[i]
        ln = lengths[r]
        if ln < 2:
            continue
        s = 0.0
        for j in range(ln - 1, -1, -1):
            s += v[orders[r, j]]
            suffix[j] = s
        acc_a = 0.0
        acc_b = 0.0
        for t in range(ln):
            if t <= ln - 2:
                inv = 1.0 / suffix[t]
                acc_a += inv
                acc_b += inv * inv
            a = orders[r, t]
            va = v[a]
            grad[a] -= ci * va * acc_a
            if not with_hess:
                continue
            hess[a, a] += ci * (va * acc_a - va * va * acc_b)
            # pairs (u, t), u < t: B_u (the running sums at u are kept in suffix[ln + u]);
            # only the lower triangle is filled (all that the Cholesky solve reads)
            cva = ci * va
            for u in range(t):
                b = orders[r, u]
                h = cva * v[b] * suffix[ln + u]
                if a > b:
                    hess[a, b] -= h
                else:
                    hess[b, a] -= h
            suffix[ln + t] = acc_b


_nb_pl_grad_hess = numba.njit(_pl_grad_hess, cache=True, nogil=True)


def _cholesky_factor(a):  # pragma: no cover - compiled below
    """Cholesky factor of a symmetric positive definite ``a``, in place (lower triangle).

    Reads only the lower triangle of ``a``. Returns False if a pivot is not positive.
    """
    m = a.shape[0]
    for j in range(m):
        d = a[j, j]
        for p in range(j):
            d -= a[j, p] * a[j, p]
        if not d > 0.0:
            return False
        d = np.sqrt(d)
        a[j, j] = d
        for i in range(j + 1, m):
            s = a[i, j]
            for p in range(j):
                s -= a[i, p] * a[j, p]
            a[i, j] = s / d
    return True


_nb_cholesky_factor = numba.njit(_cholesky_factor, cache=True, nogil=True)


def _cholesky_solve(L, b, out):  # pragma: no cover - compiled below
    """Solve ``L L^T x = b`` for the lower-triangular factor ``L`` of :func:`_cholesky_factor`."""
    m = L.shape[0]
    for i in range(m):
        s = b[i]
        for p in range(i):
            s -= L[i, p] * out[p]
        out[i] = s / L[i, i]
    for i in range(m - 1, -1, -1):
        s = out[i]
        for p in range(i + 1, m):
            s -= L[p, i] * out[p]
        out[i] = s / L[i, i]


_nb_cholesky_solve = numba.njit(_cholesky_solve, cache=True, nogil=True)


def _pl_statistics(rows, idx, w, k, alpha, wins, denom, c):  # pragma: no cover - compiled below
    """Sufficient statistics of one query's neighbourhood for :func:`_pl_map_one`.

    OUT: ``c`` (k,) the neighbour weights times the row weights; ``wins`` (m,) the weighted
    number of stages each label wins; ``denom`` (m,) ``alpha`` plus the MM denominator at
    equal worths (``sum c_i sum_{j <= t} 1 / (l_i - j)`` over the stages ``j`` a label at
    position ``t`` takes part in).
    """
    orders, lengths, row_w = rows
    for a in range(wins.shape[0]):
        wins[a] = 0.0
        denom[a] = alpha
    for i in range(k):
        r = idx[i]
        ci = w[i] * row_w[r]
        c[i] = ci
        ln = lengths[r]
        if ci == 0.0 or ln < 2:
            continue
        acc = 0.0
        for t in range(ln):
            if t <= ln - 2:
                wins[orders[r, t]] += ci
                acc += 1.0 / (ln - t)
            denom[orders[r, t]] += ci * acc


_nb_pl_statistics = numba.njit(_pl_statistics, cache=True, nogil=True)


def _step_sizes(grad, step):  # pragma: no cover - compiled below
    """``(slope, big, move)`` of a Newton step: the squared Newton decrement
    ``grad . step``, the largest ``|step_a|`` and the largest move of a centred log-worth
    ``|step_a - mean(step)|``."""
    m = step.shape[0]
    slope = 0.0
    big = 0.0
    mean = 0.0
    for a in range(m):
        slope += grad[a] * step[a]
        big = max(big, abs(step[a]))
        mean += step[a]
    mean /= m
    move = 0.0
    for a in range(m):
        move = max(move, abs(step[a] - mean))
    return slope, big, move


# inlined into the Newton loop (numba IR inlining): called once per step, a plain call cost
# a few per cent of a prediction (benchmarks/RESULTS_kernel_splits.md)
_nb_step_sizes = numba.njit(_step_sizes, cache=True, nogil=True, inline="always")


def _smallest_gap(theta):  # pragma: no cover - compiled below
    """The smallest ``|theta_a - theta_b|`` over pairs ``a != b`` (inf for one label)."""
    gap = np.inf
    for a in range(theta.shape[0]):
        for b in range(a):
            gap = min(gap, abs(theta[a] - theta[b]))
    return gap


_nb_smallest_gap = numba.njit(_smallest_gap, cache=True, nogil=True, inline="always")


def _pl_line_search(rows, query, theta, step, trial, v, f, slope, big):  # pragma: no cover
    """Armijo backtracking along a Newton ``step`` from ``theta`` (objective ``f``).

    Starts at ``t = 1`` (or where no log-worth moves by more than 20) and halves ``t`` until
    the objective at ``trial = theta + t step`` gains ``1e-4 t slope`` or ``t <= 1e-12``.
    Returns ``(t, f_new)``, the objective at the last ``trial`` (-inf if none was tried);
    ``v`` holds ``exp(trial)`` of the last call.
    """
    m = theta.shape[0]
    t = 1.0 if big <= 20.0 else 20.0 / big
    f_new = -np.inf
    while t > 1e-12:
        for a in range(m):
            trial[a] = theta[a] + t * step[a]
        f_new = _nb_pl_objective(rows, query, trial, v)
        if f_new >= f + 1e-4 * t * slope:
            break
        t *= 0.5
    return t, f_new


_nb_pl_line_search = numba.njit(_pl_line_search, cache=True, nogil=True, inline="always")


def _pl_map_one(rows, idx, w, k, fit, warm, theta, work, hess):  # pragma: no cover
    """MAP log-worths of one query's neighbour rankings by damped Newton's method.

    IN: ``rows`` (:class:`PLRows`): ``orders`` (n, m) orderings of the training rankings
    (labels best first, ``-1`` after the ``lengths[r]`` present ones), ``row_w`` (n,) their
    weights; ``fit`` (:class:`PLFit`): ``alpha``, ``max_iter``, ``tol``, ``order_only``;
    ``idx`` (>= k,)
    the neighbours and ``w`` (>= k,) their weights (only the first ``k`` are read);
    ``warm``: start from ``theta`` as given instead of one MM step from equal worths.
    ``order_only``: only the order of the log-worths is needed (a prediction), so a fit
    also stops, converged, when a full step moves no centred log-worth by more than a
    quarter of the smallest gap between two log-worths after it (the Newton step estimates
    the remaining distance to the optimum, so no pair can swap any more).
    OUT: ``theta`` (m,) the (uncentred) MAP log-worths. Scratch: ``work`` (8 m + k,),
    ``hess`` (m, m). Returns ``(n_iter, converged)``.

    After a full step whose largest component is at most a quarter of the previous one, the
    next step reuses the Cholesky factor of the previous Hessian (a chord step: the gradient
    costs O(k m), the Hessian O(k m^2)); a step that shrinks less, or a line search, makes
    the next step a Newton step again.

    The objective (:func:`_pl_objective`) is strictly concave for ``alpha > 0``: each step
    solves the Newton system (Cholesky), then halves the step until Armijo's condition
    holds (no step moves a log-worth by more than 20); near the optimum (squared Newton
    decrement <= 1/4 and no log-worth moving by more than 1/2) the full step is taken
    without evaluating the objective. Converged when a Newton step moves no centred
    log-worth by more than ``tol`` (that step is taken); quadratic convergence makes that a
    few steps.
    The optimum is the fixed point of Hunter's MM update with the Gamma prior
    (:func:`rankclust.models.plackett_luce.fit_scores`).
    """
    alpha, max_iter, tol, order_only = fit
    m = theta.shape[0]
    wins = work[0:m]
    grad = work[m : 2 * m]
    step = work[2 * m : 3 * m]
    v = work[3 * m : 4 * m]
    trial = work[4 * m : 5 * m]
    denom = work[5 * m : 6 * m]
    c = work[6 * m : 6 * m + k]
    suffix = work[6 * m + k : 6 * m + k + 2 * m]
    _nb_pl_statistics(rows, idx, w, k, alpha, wins, denom, c)
    if not warm:
        # one MM step from equal worths (v = 1): v_a = (alpha + W_a) / (alpha + D_a(1))
        for a in range(m):
            theta[a] = np.log((alpha + wins[a]) / denom[a])
    for a in range(m):
        v[a] = np.exp(theta[a])
    query = PLQuery(idx, c, k, alpha)
    f = np.nan  # the objective at theta, evaluated only when a line search needs it
    n_iter = 0
    converged = False
    reuse = False  # whether the next step may reuse the factor in hess
    last = np.inf  # the largest component of the previous step
    while n_iter < max_iter:
        n_iter += 1
        # Newton's Hessian when the previous step was a line search or did not shrink by
        # a factor 4; else the previous factor again (a chord step: O(k m), not O(k m^2))
        refresh = not reuse
        _nb_pl_grad_hess(rows, query, wins, v, suffix, grad, hess, refresh)
        if refresh and not _nb_cholesky_factor(hess):
            break
        _nb_cholesky_solve(hess, grad, step)
        slope, big, move = _nb_step_sizes(grad, step)
        if move <= tol or (slope <= 0.25 and big <= 0.5):
            # close to the optimum (a small Newton decrement and step): the full step is an
            # ascent step of a concave function, no line search (saves its logarithms)
            for a in range(m):
                theta[a] += step[a]
                v[a] = np.exp(theta[a])
            f = np.nan
            if move <= tol:
                converged = True
                break
            if order_only and 4.0 * move < _nb_smallest_gap(theta):
                converged = True
                break
            reuse = big <= 0.25 * last  # keep the factor while the steps shrink fast
            last = big
            continue
        reuse = False
        last = np.inf
        if not f == f:
            f = _nb_pl_objective(rows, query, theta, v)
        t, f_new = _nb_pl_line_search(rows, query, theta, step, trial, v, f, slope, big)
        if not f_new >= f + 1e-4 * t * slope:
            # no ascent left in the Newton direction (rounding, or a failure)
            break
        for a in range(m):
            theta[a] = trial[a]  # v = exp(trial) from the last objective call
        f = f_new
        if t * move <= tol:
            converged = True
            break
    return n_iter, converged


_nb_pl_map_one = numba.njit(_pl_map_one, cache=True, nogil=True)


def _pl_weights(dist, k, uniform, w):  # pragma: no cover - compiled below
    """Dudani (or uniform) weights of the first ``k`` neighbours; all ones if they sum to 0.

    Dudani's ``(d_k - d_i) / (d_k - d_1)`` with ``d_1``, ``d_k`` the smallest and largest of
    ``dist[:k]`` (any order), as :func:`rankclust.label_ranking._base.dudani_weights`.
    """
    near = dist[0]
    far = dist[0]
    for i in range(k):
        near = min(near, dist[i])
        far = max(far, dist[i])
    span = far - near
    total = 0.0
    for i in range(k):
        if uniform or not span > 0.0:
            w[i] = 1.0
        else:
            w[i] = (far - dist[i]) / span
        total += w[i]
    if not total > 0.0:
        for i in range(k):
            w[i] = 1.0


_nb_pl_weights = numba.njit(_pl_weights, cache=True, nogil=True)


def _predict_pl(
    rows, ind, dist, uniform, fit, scores, positions, n_iter, converged
):  # pragma: no cover - compiled below
    """Local Plackett-Luce MAP fit of every query from its (Q, k) neighbour matrix.

    IN: as :func:`_pl_map_one`, with ``ind``/``dist`` (Q, k) (any order within a row);
    with ``order_only`` the scores are only accurate enough to order the labels.
    OUT: ``scores`` (Q, m) centred MAP log-worths, ``positions`` (Q, m) the labels ordered
    by decreasing score (ties within :data:`PL_TIE_TOL` to the lower index), ``n_iter``,
    ``converged`` (Q,). O(Q T k m^2 + Q T m^3) time for T Newton steps.
    """
    n_q, k = ind.shape
    m = rows.orders.shape[1]
    work = np.empty(6 * m + k + 2 * m)
    hess = np.empty((m, m))
    w = np.empty(k)
    theta = np.empty(m)
    for q in range(n_q):
        _nb_pl_weights(dist[q], k, uniform, w)
        n_iter[q], converged[q] = _nb_pl_map_one(rows, ind[q], w, k, fit, False, theta, work, hess)
        mean = 0.0
        for a in range(m):
            mean += theta[a]
        mean /= m
        for a in range(m):
            scores[q, a] = theta[a] - mean
        _nb_positions_from_scores(scores[q], PL_TIE_TOL, positions[q])


_nb_predict_pl = numba.njit(_predict_pl, cache=True, nogil=True)


def _loo_pl(rows, ind, dist, ks, uniform, fit, positions, n_bad):  # pragma: no cover
    """Local Plackett-Luce prediction of held-out rows for every candidate k, in one pass.

    IN: as :func:`_predict_pl`, with ``ind``/``dist`` (E, K) sorted per row (the query
    itself excluded) and ``ks`` (G,) increasing candidate sizes <= K. The fit for each k
    starts from the optimum of the previous one (neighbourhoods of growing k are nested).
    ``fit.order_only`` is True (positions only). OUT: ``positions`` (E, G, m); ``n_bad``
    (G,) fits that did not converge.
    """
    n_e, kk = ind.shape
    m = rows.orders.shape[1]
    work = np.empty(6 * m + kk + 2 * m)
    hess = np.empty((m, m))
    w = np.empty(kk)
    theta = np.empty(m)
    scores = np.empty(m)
    for g in range(ks.shape[0]):
        n_bad[g] = 0
    for e in range(n_e):
        for g in range(ks.shape[0]):
            k = ks[g]
            _nb_pl_weights(dist[e], k, uniform, w)
            _, conv = _nb_pl_map_one(rows, ind[e], w, k, fit, g > 0, theta, work, hess)
            if not conv:
                n_bad[g] += 1
            mean = 0.0
            for a in range(m):
                mean += theta[a]
            mean /= m
            for a in range(m):
                scores[a] = theta[a] - mean
            _nb_positions_from_scores(scores, PL_TIE_TOL, positions[e, g])


_nb_loo_pl = numba.njit(_loo_pl, cache=True, nogil=True)
