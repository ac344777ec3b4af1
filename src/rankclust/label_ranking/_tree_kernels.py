"""Numba kernels of :mod:`rankclust.label_ranking.tree` (private: inputs are trusted).

The whole tree is grown by one call (:func:`_grow`), presorted as in scikit-learn's old
presort splitter: the rows are sorted by every feature once, at the root, and each split
partitions these sorted columns stably in place, so every node owns one column range in which
its rows are sorted by each feature and its children inherit the order without sorting again.
The split search sweeps a node's thresholds feature by feature (features in a random order
drawn afresh at every node, which decides exact ties of the criterion; see :func:`_grow`),
moving one row at a time from the right child to the left one and updating additive
statistics of the left side (the right side is the node total minus the left) instead of
refitting. A side without a discordant pair is pure: its spread is infinite (``np.inf``) and
its impurity 0; an impure side's spread is at most the table's cap.

*Incomplete rankings* (float statistics, :func:`_split_incomplete`):

* ``votes[l]`` -- sums of the normalised generalised Borda votes (Cheng et al. 2009, Prop. 2,
  divided by ``n_T + 1``): ``(l_i - r + 1)/(l_i + 1)`` for the label at rank ``r`` of a ranking
  of ``l_i`` labels, ``1/2`` for a missing label. Dividing by ``n_T + 1`` makes the votes
  independent of the side's label set, and for complete rankings their order is the Borda
  order;
* ``pairs[a, b]`` -- ``sum_i [a above b in sigma_i] / P_i`` with ``P_i = l_i (l_i - 1)/2``
  (the observed pairs of row i);
* ``count[l]`` -- rows in which label ``l`` occurs (the side's label set ``L_T``), and the
  number of rows with at least one pair.

From them a side's Mallows fit costs O(m^2): the centre is the order of ``votes`` over
``L_T`` (ties to the lower label index), ``Dbar = n_T (n_T - 1)/2 * sum_{a above b} pairs[b, a]
/ #rows with pairs`` and ``theta = g_{n_T}^{-1}(Dbar)`` read from a table of the expected
distance (:func:`rankclust.models.mallows.expected_distance`) on a fine grid -- a compiled
copy of the one dispersion solver (:func:`rankclust.models.mallows.theta_mle`), tested
against it. For incomplete rankings ``Dbar`` is the observed-pairs estimate of the mean
distance (decisions.md C3) instead of the distance of the Prop. 1 completions, which would
need a refit per threshold.

*Complete rankings* (nodes whose rows all rank all labels; exact integer statistics, see the
section comment above :func:`_pair_bits`): the same fit -- Borda centre, mean Kendall distance
to it, theta read from the table -- which is exactly the paper's node fit (theta MLE up to
the table's interpolation). Per threshold it costs O(m) (the label orders of the sides are
re-sorted by insertion, each exchange updating the distance in O(1)), and the table is read
in O(1) through a bucket index of ``log(mean)``, after a cheaper upper bound of both thetas
has shown that the threshold can beat the best split so far.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from rankclust._compiled import kendall_pair
from rankclust._kernel_random import shuffle
from rankclust.label_ranking._iblr_kernels import EMWork, _nb_em_one


class ScannedRows(NamedTuple):
    """The training rows as the grower reads them (built by ``tree._scan_rows``).

    ``sidx`` (d, N) and ``sval`` (d, N): row f = all rows sorted by feature f (stable) and
    their values, partitioned in place as the tree grows; ``rk`` (N, m) positions (-1
    absent); ``bits``/``n_above``/``pair_index`` the pair statistics of complete rows (the
    integer path); ``ro``/``lens`` the rankings as orderings (the float path).
    """

    sidx: np.ndarray
    sval: np.ndarray
    rk: np.ndarray
    bits: np.ndarray
    n_above: np.ndarray
    pair_index: np.ndarray
    ro: np.ndarray
    lens: np.ndarray


class ThetaTable(NamedTuple):
    """The theta table ``(table, grid)`` and its bucket index ``(index, yrange, theta_up)``
    (``tree.theta_table``, ``tree.theta_index``)."""

    table: np.ndarray
    grid: np.ndarray
    index: np.ndarray
    yrange: np.ndarray
    theta_up: np.ndarray


class GrowParams(NamedTuple):
    """Stopping and search parameters of :func:`_grow`."""

    min_leaf: int  # minimum rows per child
    criterion: int  # 0 = the paper's eq. (6), 1 = impurity
    min_size: float  # a node smaller than this (rows or label occurrences) stays a leaf
    by_examples: bool  # min_size counts rows (else label occurrences)
    max_depth: int  # -1 = none
    min_gain: float  # -np.inf = never stop on gain
    shuffle: bool  # visit the features in a fresh random order at each node


class TreeArrays(NamedTuple):
    """Per-node outputs of :func:`_grow` (arrays of at least 2N - 1 entries)."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    start: np.ndarray
    size: np.ndarray
    n_labels: np.ndarray
    complete: np.ndarray
    theta: np.ndarray
    labs: np.ndarray  # (., m)
    center: np.ndarray  # (., m)


class NodeRows(NamedTuple):
    """Where each node's rows are (:func:`_node_models_em`)."""

    rows_by_node: np.ndarray
    first_rank: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray


def _theta_from_mean(table, grid, n_t, mean):  # pragma: no cover - compiled below
    """Invert the expected distance ``g_{n_t}`` (row ``n_t`` of ``table`` on ``grid``).

    A compiled copy of the package's dispersion solver
    (:func:`rankclust.models.mallows.theta_mle`, i.e.
    ``rankclust._mallows_math.solve_thetas``), read off a grid table of its stage
    means for speed: keep in sync (same 0 / cap conventions);
    ``tests/models/test_mallows_math.py`` pins it to ``theta_mle`` on random means.

    ``table[n, g]`` = E d_K under Mallows(theta = grid[g]) on n items, decreasing in g.
    Returns 0 at or above the uniform mean, ``grid[-1]`` (the cap) at or below the cap's mean,
    and the linear interpolation in between; ``grid[-1]`` for fewer than 2 labels.
    """
    n_grid = grid.shape[0]
    if n_t < 2:
        return grid[n_grid - 1]
    row = table[n_t]
    if mean >= row[0]:
        return 0.0
    if mean <= row[n_grid - 1]:
        return grid[n_grid - 1]
    lo = 0
    hi = n_grid - 1  # row[lo] > mean >= row[hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if row[mid] > mean:
            lo = mid
        else:
            hi = mid
    frac = (row[lo] - mean) / (row[lo] - row[hi])
    return grid[lo] + frac * (grid[hi] - grid[lo])


_nb_theta_from_mean = numba.njit(_theta_from_mean, cache=True, nogil=True)


def _side_theta(
    votes,
    pairs,
    count,
    sign,
    base_votes,
    base_pairs,
    base_count,
    n_rows_pairs,
    th,
    order_buf,
):  # pragma: no cover - compiled below
    """Spread of one side from its statistics (see the module docstring).

    The side's statistics are ``base + sign * (votes, pairs, count)``: the left side is
    ``0 + 1 * left`` and the right side ``total - left``, so no copy is made. ``order_buf``
    (m,) int64 scratch, ``th`` the :class:`ThetaTable`. Returns the capped theta (the cap for a side with fewer than two
    labels or no observed pair), read from the table by :func:`_theta_lookup`; ``np.inf``
    for a pure side (no discordant observed pair: the paper's infinite spread), which
    :func:`_split_score` scores as impurity 0 and callers storing a spread cap.
    """
    m = votes.shape[0]
    n_t = 0
    for j in range(m):
        if base_count[j] + sign * count[j] > 0.5:
            order_buf[n_t] = j
            n_t += 1
    if n_t < 2 or n_rows_pairs < 0.5:
        return np.inf  # nothing to disagree on: pure
    # insertion sort of the present labels by votes descending, index ascending on ties
    for a in range(1, n_t):
        x = order_buf[a]
        vx = base_votes[x] + sign * votes[x] - 1e-9
        b = a - 1
        while b >= 0 and base_votes[order_buf[b]] + sign * votes[order_buf[b]] < vx:
            order_buf[b + 1] = order_buf[b]
            b -= 1
        order_buf[b + 1] = x
    disc = 0.0
    for a in range(n_t):
        u = order_buf[a]
        for b in range(a + 1, n_t):
            v = order_buf[b]
            disc += base_pairs[v, u] + sign * pairs[v, u]
    # discordant weights are multiples of 2 / (m (m - 1)) >= 1e-9: below is rounding of
    # ``total - left``, i.e. a pure side
    if disc < 1e-9:
        return np.inf
    mean = disc / n_rows_pairs * (n_t * (n_t - 1) / 2.0)
    return _nb_theta_lookup(th.table, th.grid, th.index, th.yrange, n_t, mean)


_nb_side_theta = numba.njit(_side_theta, cache=True, nogil=True)


def _theta_lookup(table, grid, index, yrange, n_t, mean):  # pragma: no cover - compiled below
    """:func:`_theta_from_mean` in O(1): the same bracket, found from a bucket index.

    ``index[n, b]`` is the bracket of the largest mean of bucket b of ``log(mean)``, with
    ``b = floor((yrange[n, 0] - log(mean)) * yrange[n, 1])`` (see
    :func:`rankclust.label_ranking.tree.theta_table`); a short walk from there reaches the
    bracket ``row[lo] > mean >= row[lo + 1]`` (about one grid step per bucket), so the result
    equals the binary search's exactly.
    """
    n_grid = grid.shape[0]
    if n_t < 2:
        return grid[n_grid - 1]
    row = table[n_t]
    if mean >= row[0]:
        return 0.0
    if mean <= row[n_grid - 1]:
        return grid[n_grid - 1]
    n_bucket = index.shape[1]
    b = int((yrange[n_t, 0] - np.log(mean)) * yrange[n_t, 1])
    if b < 0:
        b = 0
    elif b >= n_bucket:
        b = n_bucket - 1
    lo = index[n_t, b]
    while lo > 0 and row[lo] <= mean:
        lo -= 1
    while row[lo + 1] > mean:
        lo += 1
    frac = (row[lo] - mean) / (row[lo] - row[lo + 1])
    return grid[lo] + frac * (grid[lo + 1] - grid[lo])


_nb_theta_lookup = numba.njit(_theta_lookup, cache=True, nogil=True)


def _theta_upper(table, yrange, theta_up, n_t, mean):  # pragma: no cover - compiled below
    """An upper bound of :func:`_theta_lookup` from the bucket of ``log(mean)`` alone (exact at
    the ends of the table). ``theta_up[n, b]`` bounds theta over bucket b and the next one
    (see :func:`rankclust.label_ranking.tree.theta_index`); ``np.inf`` for a zero mean (a
    pure side). O(1), no search."""
    row = table[n_t]
    n_grid = row.shape[0]
    if mean <= 0.0:
        return np.inf
    if mean >= row[0]:
        return 0.0
    if mean <= row[n_grid - 1]:
        return theta_up[n_t, theta_up.shape[1] - 1]
    b = int((yrange[n_t, 0] - np.log(mean)) * yrange[n_t, 1])
    if b < 0:
        b = 0
    elif b >= theta_up.shape[1]:
        b = theta_up.shape[1] - 1
    return theta_up[n_t, b]


_nb_theta_upper = numba.njit(_theta_upper, cache=True, nogil=True)


def _split_score(criterion, cap, n_left, th_l, n_right, th_r):  # pragma: no cover
    """Criterion of a split, maximised, times the node size: eq. (6) ``n+ theta+ + n- theta-``
    with theta capped at ``cap`` (criterion 0) or ``-(n+ u+ + n- u-)`` with the impurity
    ``u = 1/(1 + theta)`` (criterion 1). A pure side has ``theta = np.inf`` (the paper's
    infinite spread): it counts as ``cap`` for criterion 0 and as ``u = 0`` for criterion 1;
    an impure side never reaches ``u = 0`` (its theta is at most ``cap``), so the impurity
    is continuous and zero exactly for pure sides. Non-decreasing in both thetas."""
    if criterion == 0:
        return n_left * min(th_l, cap) + n_right * min(th_r, cap)
    u_l = 1.0 / (1.0 + th_l)  # 0 for np.inf
    u_r = 1.0 / (1.0 + th_r)
    return -(n_left * u_l + n_right * u_r)


_nb_split_score = numba.njit(_split_score, cache=True, nogil=True)


def _move_row(rk, i, sign, votes, pairs, count):  # pragma: no cover - compiled below
    """Add (``sign=+1``) or remove (``-1``) row ``i`` of the compact rank matrix ``rk``.

    Updates the side's normalised votes, ``pairs[u, v] += sign / P_i`` for every observed
    ``u`` above ``v``, and the label counts; returns ``sign`` if the row has a pair, else 0.
    Reading the row's m small ints is cheaper than any per-row table (one cache line).
    """
    m = rk.shape[1]
    length = 0
    for j in range(m):
        if rk[i, j] >= 0:
            length += 1
    denom = length + 1.0
    for j in range(m):
        r = rk[i, j]
        if r >= 0:
            votes[j] += sign * (length - r) / denom
            count[j] += sign
        else:
            votes[j] += sign * 0.5
    if length < 2:
        return 0.0
    w = sign * 2.0 / (length * (length - 1))
    for u in range(m):
        ru = rk[i, u]
        if ru < 0:
            continue
        for v in range(m):
            if rk[i, v] > ru:
                pairs[u, v] += w
    return sign


_nb_move_row = numba.njit(_move_row, cache=True, nogil=True)


def _move_row_order(ro, lens, i, sign, votes, pairs, count):  # pragma: no cover
    """:func:`_move_row` from the row's ordering (faster: no branches in the pair loop).

    ``ro[i]`` lists the row's present labels best first, then its absent labels; ``lens[i]``
    is the number of present labels.
    """
    m = ro.shape[1]
    length = lens[i]
    denom = length + 1.0
    for r in range(length):
        lab = ro[i, r]
        votes[lab] += sign * (length - r) / denom
        count[lab] += sign
    for r in range(length, m):
        votes[ro[i, r]] += sign * 0.5
    if length < 2:
        return 0.0
    w = sign * 2.0 / (length * (length - 1))
    for a in range(length - 1):
        u = ro[i, a]
        for b in range(a + 1, length):
            pairs[u, ro[i, b]] += w
    return sign


_nb_move_row_order = numba.njit(_move_row_order, cache=True, nogil=True)


def _split_incomplete(
    rows, th, start, end, min_leaf, criterion, feat_order
):  # pragma: no cover - compiled below
    """Best ``(feature, threshold, score, parent)`` of a node with incomplete rankings
    (eq. 6).

    IN: ``rows`` (:class:`ScannedRows`): ``sidx`` (d, N) and ``sval`` (d, N): in columns
    ``start:end`` of row f, the node's rows sorted by feature f (stable) and their values of
    feature f (see :func:`_grow`); ``ro`` (N, m) and ``lens`` (N,) the rankings as orderings
    (:func:`_move_row_order`); ``min_leaf`` minimum rows per child; ``criterion`` 0 = the
    paper's eq. (6), 1 = impurity; ``th`` the :class:`ThetaTable`. Returns feature -1 when no split is valid; the threshold is
    the midpoint of two consecutive distinct values (``x <= threshold`` goes left); the score
    is maximised: ``(|T+| theta+ + |T-| theta-)/|T|`` (criterion 0) or
    ``-(|T+| u+ + |T-| u-)/|T|`` with the impurity ``u = 1/(1 + theta)``, 0 for a pure side
    (criterion 1). Exact ties keep the first candidate found: features in the order
    ``feat_order`` (a permutation of ``0..d-1``), thresholds ascending. The sides'
    statistics are the float ones of the module docstring (``left`` accumulated, ``right =
    total - left``). ``parent`` is the score of not splitting (the node as one side, the
    same estimate of its spread), for the stopping rule of :func:`_grow`.

    O(d n m^2) time for n rows, O(m^2) extra memory.
    """
    sidx, sval, ro, lens = rows.sidx, rows.sval, rows.ro, rows.lens
    grid = th.grid
    d = sidx.shape[0]
    m = ro.shape[1]
    n_node = end - start
    tot_votes = np.zeros(m)
    tot_pairs = np.zeros((m, m))
    tot_count = np.zeros(m)
    tot_rp = 0.0
    for t in range(start, end):
        tot_rp += _nb_move_row_order(ro, lens, sidx[0, t], 1.0, tot_votes, tot_pairs, tot_count)
    l_votes = np.zeros(m)
    l_pairs = np.zeros((m, m))
    l_count = np.zeros(m)
    zero_votes = np.zeros(m)
    zero_pairs = np.zeros((m, m))
    order_buf = np.empty(m, dtype=np.int64)
    cap = grid[grid.shape[0] - 1]
    th_p = _nb_side_theta(
        tot_votes, tot_pairs, tot_count, 1.0, zero_votes, zero_pairs, zero_votes, tot_rp, th,
        order_buf,
    )  # fmt: skip
    parent = _nb_split_score(criterion, cap, n_node, th_p, np.int64(0), np.inf) / n_node
    best_f = -1
    best_t = 0.0
    best = -np.inf
    for fi in range(d):
        f = feat_order[fi]
        if sval[f, start] == sval[f, end - 1]:
            continue
        l_votes[:] = 0.0
        l_pairs[:, :] = 0.0
        l_count[:] = 0.0
        l_rp = 0.0
        for p in range(start, end - 1):
            i = sidx[f, p]
            l_rp += _nb_move_row_order(ro, lens, i, 1.0, l_votes, l_pairs, l_count)
            v_here = sval[f, p]
            v_next = sval[f, p + 1]
            if v_here == v_next:
                continue
            n_left = p + 1 - start
            n_right = n_node - n_left
            if n_left < min_leaf or n_right < min_leaf:
                continue
            th_l = _nb_side_theta(
                l_votes, l_pairs, l_count, 1.0, zero_votes, zero_pairs, zero_votes, l_rp, th,
                order_buf,
            )  # fmt: skip
            th_r = _nb_side_theta(
                l_votes, l_pairs, l_count, -1.0, tot_votes, tot_pairs, tot_count,
                tot_rp - l_rp, th, order_buf,
            )  # fmt: skip
            score = _nb_split_score(criterion, cap, n_left, th_l, n_right, th_r) / n_node
            if score > best:
                best = score
                best_f = f
                best_t = _nb_midpoint(v_here, v_next)
    return best_f, best_t, best, parent


_nb_split_incomplete = numba.njit(_split_incomplete, cache=True, nogil=True)


def _add_raw_pairs(ranks, i, raw):  # pragma: no cover - compiled below
    """``raw[u, v] += 1`` for every pair row ``i`` orders ``u`` before ``v``; returns the
    number of labels it ranks."""
    m = ranks.shape[1]
    length = 0
    for u in range(m):
        ru = ranks[i, u]
        if ru < 0:
            continue
        length += 1
        for v in range(m):
            rv = ranks[i, v]
            if rv >= 0 and ru < rv:
                raw[u, v] += 1.0
    return length


def _is_pure(raw):  # pragma: no cover - compiled below
    """No pair of labels ordered both ways (Sec. 5.1)."""
    m = raw.shape[0]
    for u in range(m):
        for v in range(u + 1, m):
            if raw[u, v] > 0 and raw[v, u] > 0:
                return False
    return True


_nb_add_raw_pairs = numba.njit(_add_raw_pairs, cache=True, nogil=True)
_nb_is_pure = numba.njit(_is_pure, cache=True, nogil=True)


def _node_fit(ranks, rows, th, labs_out, center_out):  # pragma: no cover - compiled below
    """Summary and (for complete rankings) Mallows fit of one node, in one pass.

    IN: ``ranks`` (N, m) positions, ``rows`` the node's rows, ``th`` the
    :class:`ThetaTable` (:func:`_theta_lookup`).
    OUT: ``labs_out[:n_t]`` the labels occurring in the node (``L_T``, ascending);
    ``center_out[:n_t]`` the Borda centre over them as positions (only when ``complete``).
    Returns ``(n_t, complete, pure, theta, occurrences)``: ``complete`` -- every row ranks
    every label of ``L_T``; ``pure`` -- no pair of labels is ordered both ways (Sec. 5.1);
    ``theta`` -- the capped spread (complete nodes only, else NaN); ``occurrences`` --
    ``sum_i |Y(sigma_i)|``. O(n m^2) time.
    """
    m = ranks.shape[1]
    votes = np.zeros(m)
    pairs = np.zeros((m, m))
    count = np.zeros(m)
    raw = np.zeros((m, m))
    zero_votes = np.zeros(m)
    zero_pairs = np.zeros((m, m))
    n_rows_pairs = 0.0
    occurrences = 0
    min_len = m + 1
    for t in range(rows.shape[0]):
        i = rows[t]
        n_rows_pairs += _nb_move_row(ranks, i, 1.0, votes, pairs, count)
        length = _nb_add_raw_pairs(ranks, i, raw)
        occurrences += length
        if length < min_len:
            min_len = length
    n_t = 0
    for j in range(m):
        if count[j] > 0.5:
            labs_out[n_t] = j
            n_t += 1
    pure = _nb_is_pure(raw)
    complete = min_len == n_t
    theta = np.nan
    if complete:
        order_buf = np.empty(m, dtype=np.int64)
        theta = _nb_side_theta(
            votes,
            pairs,
            count,
            1.0,
            zero_votes,
            zero_pairs,
            zero_votes,
            n_rows_pairs,
            th,
            order_buf,
        )
        theta = min(theta, th.grid[th.grid.shape[0] - 1])  # a pure node stores the cap
        if n_t >= 2:
            # order_buf[:n_t] lists the labels best first; positions within L_T
            for p in range(n_t):
                lab = order_buf[p]
                for q in range(n_t):
                    if labs_out[q] == lab:
                        center_out[q] = p
        elif n_t == 1:
            center_out[0] = 0
    return n_t, complete, pure, theta, occurrences


_nb_node_fit = numba.njit(_node_fit, cache=True, nogil=True)


def _midpoint(v_here, v_next):  # pragma: no cover - compiled below
    """Threshold between two consecutive distinct values: their midpoint, or ``v_here`` when
    the midpoint rounds up to ``v_next`` (so that ``v_here <= t < v_next``)."""
    thr = 0.5 * (v_here + v_next)
    if thr >= v_next:
        thr = v_here
    return thr


_nb_midpoint = numba.njit(_midpoint, cache=True, nogil=True)


# ------------------------------------------------------------------ complete rankings
# A node whose rows all rank all m labels is scanned with exact integer statistics. The
# P = m (m - 1)/2 label pairs x < y are numbered k = 0..P-1 (``pair_index[x * m + y]``, the
# same for (y, x)), and row i is stored as its positions ``rk[i]`` and its pair bits
# ``bits[i, k]`` = 1 when x is above y. A side's statistics are ``s[l]`` = sum of the
# positions of label l (ascending order of s = the Borda order) and ``c[k]`` = number of its
# rows ranking x above y (y above x: n - c[k]). For a label order given by ``flip[k]`` = 1
# when it puts y before x, the number of discordant (row, pair) incidences is
#     D = sum_k (flip ? c : n - c) = (P - F) n - sum(c) + 2 sum(flip * c),   F = sum(flip),
# and the mean Kendall distance to the order is D / n. ``sum(c)`` and ``sum(flip * c)`` are
# kept up to date row by row and swap by swap, so a threshold costs O(m) plus the swaps.


def _pair_bits(rk, bits, n_above):  # pragma: no cover - compiled below
    """OUT ``bits[i, k]`` (see above) and ``n_above[i] = sum_k bits[i, k]``. O(n m^2)."""
    n, m = rk.shape
    for i in range(n):
        k = 0
        total = 0
        for x in range(m):
            rx = rk[i, x]
            for y in range(x + 1, m):
                hit = rk[i, y] > rx
                bits[i, k] = hit
                total += hit
                k += 1
        n_above[i] = total


_nb_pair_bits = numba.njit(_pair_bits, cache=True, nogil=True)


def _add_complete_rows(rk, bits, rows, start, end, s, c):  # pragma: no cover - compiled below
    """Add rows ``rows[start:end]`` to a side's ``(s, c)`` (see above). O(n m^2)."""
    m = rk.shape[1]
    n_pairs = bits.shape[1]
    for p in range(start, end):
        i = rows[p]
        for x in range(m):
            s[x] += rk[i, x]
        for k in range(n_pairs):
            c[k] += bits[i, k]


_nb_add_complete_rows = numba.njit(_add_complete_rows, cache=True, nogil=True)


def _resort(key, order, flip, pair_index, c, c2):  # pragma: no cover - compiled below
    """Insertion-sort ``order`` by ``key`` ascending, ties to the lower label first.

    Each exchange of adjacent labels toggles ``flip`` of their pair. Returns the changes of
    ``sum(flip)``, ``sum(flip * c)`` and ``sum(flip * c2)``. O(m) when ``order`` is already
    sorted (consecutive thresholds move one row), O(m^2) at worst.
    """
    m = order.shape[0]
    d_flip = 0
    d_c = 0
    d_c2 = 0
    for a in range(1, m):
        x = order[a]
        kx = key[x]
        b = a - 1
        while b >= 0:
            y = order[b]
            ky = key[y]
            if ky > kx or (ky == kx and y > x):
                order[b + 1] = y
                k = pair_index[x * m + y]
                sign = 1 - 2 * flip[k]  # +1: the pair becomes flipped
                flip[k] += sign
                d_flip += sign
                d_c += sign * c[k]
                d_c2 += sign * c2[k]
                b -= 1
            else:
                break
        order[b + 1] = x
    return d_flip, d_c, d_c2


_nb_resort = numba.njit(_resort, cache=True, nogil=True)


def _complete_node_model(
    s, c, n, table, grid, pair_index, order, flip, center_out
):  # pragma: no cover
    """Borda centre, capped theta MLE and purity of a complete node from its ``(s, c)``.

    OUT: ``center_out[l]`` the centre position of label l; ``order`` (m,) and ``flip`` (P,)
    scratch. Returns ``(theta, pure)``; pure = no pair is ordered both ways. O(m^2).
    """
    m = order.shape[0]
    for j in range(m):
        order[j] = j
    flip[:] = 0
    _nb_resort(s, order, flip, pair_index, c, c)
    disc = 0
    pure = True
    for k in range(flip.shape[0]):
        disc += c[k] if flip[k] else n - c[k]
        if 0 < c[k] < n:
            pure = False
    for p in range(m):
        center_out[order[p]] = p
    return _nb_theta_from_mean(table, grid, m, disc / n), pure


_nb_complete_node_model = numba.njit(_complete_node_model, cache=True, nogil=True)


def _reset_sides(work):  # pragma: no cover - compiled below
    """The per-feature start of :func:`_split_complete`'s scratch ``work`` (7, w): zero
    left counts and sums (rows 0, 1) and flips (rows 5, 6), identity label orders (rows 3,
    4); row 2 is overwritten before it is read."""
    for r in (0, 1, 5, 6):
        work[r, :] = 0
    for j in range(work.shape[1]):
        work[3, j] = j
        work[4, j] = j


_nb_reset_sides = numba.njit(_reset_sides, cache=True, nogil=True)


def _split_complete(
    rows, th, start, end, s_tot, c_tot, min_leaf, criterion, work, feat_order
):  # pragma: no cover - compiled below
    """:func:`_split_incomplete` for a node whose rows are all complete (same criterion,
    candidates and tie rule), from the integer statistics above.

    ``s_tot``/``c_tot`` are the node's totals, ``work`` (7, max(m, P)) int64 scratch. A
    moved row costs O(m^2) integer additions; a threshold re-sorts the two sides' label
    orders (O(m) when unchanged, each exchange O(1)), bounds both thetas from a bucket
    (:func:`_theta_upper`) and searches the table only when the bound could beat the best
    split so far.
    """
    sidx, sval, rk, bits = rows.sidx, rows.sval, rows.rk, rows.bits
    n_above, pair_index = rows.n_above, rows.pair_index
    table, grid, index, yrange, theta_up = th
    d = sidx.shape[0]
    m = rk.shape[1]
    n_pairs = bits.shape[1]
    n_node = end - start
    sum_c_tot = c_tot.sum()  # integers: exact
    c_l = work[0, :n_pairs]
    s_l = work[1, :m]
    key_r = work[2, :m]
    ord_l = work[3, :m]
    ord_r = work[4, :m]
    flip_l = work[5, :n_pairs]
    flip_r = work[6, :n_pairs]
    cap = grid[grid.shape[0] - 1]
    best_f = -1
    best_t = 0.0
    best = -np.inf
    for fi in range(d):
        f = feat_order[fi]
        if sval[f, start] == sval[f, end - 1]:
            continue
        _nb_reset_sides(work)
        n_flip_l = 0
        n_flip_r = 0
        sum_c_l = 0
        dot_l = 0  # sum(flip_l * c_l)
        dot_rl = 0  # sum(flip_r * c_l)
        dot_rt = 0  # sum(flip_r * c_tot)
        for p in range(start, end - 1):
            i = sidx[f, p]
            for x in range(m):
                s_l[x] += rk[i, x]
            for k in range(n_pairs):
                hit = bits[i, k]
                c_l[k] += hit
                dot_l += flip_l[k] * hit
                dot_rl += flip_r[k] * hit
            sum_c_l += n_above[i]
            v_here = sval[f, p]
            v_next = sval[f, p + 1]
            if v_here == v_next:
                continue
            n_left = p + 1 - start
            n_right = n_node - n_left
            if n_left < min_leaf or n_right < min_leaf:
                continue
            d_flip, d_c, _ = _nb_resort(s_l, ord_l, flip_l, pair_index, c_l, c_l)
            n_flip_l += d_flip
            dot_l += d_c
            for j in range(m):
                key_r[j] = s_tot[j] - s_l[j]
            d_flip, d_c, d_c2 = _nb_resort(key_r, ord_r, flip_r, pair_index, c_l, c_tot)
            n_flip_r += d_flip
            dot_rl += d_c
            dot_rt += d_c2
            disc_l = (n_pairs - n_flip_l) * n_left - sum_c_l + 2 * dot_l
            disc_r = (n_pairs - n_flip_r) * n_right - (sum_c_tot - sum_c_l) + 2 * (dot_rt - dot_rl)
            mean_l = disc_l / n_left
            mean_r = disc_r / n_right
            # bound first: most thresholds cannot beat the best and skip the table search
            up_l = _nb_theta_upper(table, yrange, theta_up, m, mean_l)
            up_r = _nb_theta_upper(table, yrange, theta_up, m, mean_r)
            if _nb_split_score(criterion, cap, n_left, up_l, n_right, up_r) / n_node <= best:
                continue
            # a pure side (no discordant pair) has the paper's infinite spread
            th_l = np.inf
            if disc_l > 0:
                th_l = _nb_theta_lookup(table, grid, index, yrange, m, mean_l)
            th_r = np.inf
            if disc_r > 0:
                th_r = _nb_theta_lookup(table, grid, index, yrange, m, mean_r)
            score = _nb_split_score(criterion, cap, n_left, th_l, n_right, th_r) / n_node
            if score > best:
                best = score
                best_f = f
                best_t = _nb_midpoint(v_here, v_next)
    return best_f, best_t, best


_nb_split_complete = numba.njit(_split_complete, cache=True, nogil=True)


def _partition(sidx, sval, start, end, f, threshold, mark, buf_rows, buf_vals):  # pragma: no cover
    """Stable in-place partition of columns ``start:end`` of every row of ``sidx``/``sval``:
    rows with ``value of feature f <= threshold`` first. Returns their number.

    ``mark`` (N,) bool, ``buf_rows``/``buf_vals`` (N,) scratch. O(n d) time.
    """
    d = sidx.shape[0]
    n_left = 0
    for p in range(start, end):
        go = sval[f, p] <= threshold
        mark[sidx[f, p]] = go
        n_left += go
    for c in range(d):
        a = start
        b = 0
        for p in range(start, end):
            i = sidx[c, p]
            v = sval[c, p]
            if mark[i]:
                sidx[c, a] = i
                sval[c, a] = v
                a += 1
            else:
                buf_rows[b] = i
                buf_vals[b] = v
                b += 1
        for q in range(b):
            sidx[c, a + q] = buf_rows[q]
            sval[c, a + q] = buf_vals[q]
    return n_left


_nb_partition = numba.njit(_partition, cache=True, nogil=True)


_nb_shuffle = shuffle  # the Fisher-Yates of rankclust._kernel_random (SplitMix64)


def _all_complete(rows, start, end):  # pragma: no cover - compiled below
    """Whether every row of the node ranks all m labels and the pair bits exist (the
    integer path)."""
    sidx, lens = rows.sidx, rows.lens
    m = rows.rk.shape[1]
    if rows.bits.shape[0] != sidx.shape[1]:
        return False
    for p in range(start, end):
        if lens[sidx[0, p]] < m:
            return False
    return True


def _node_model(rows, th, start, end, all_complete, labs, center, scratch):  # pragma: no cover
    """The node's labels ``labs[:n_t]`` and model (``center[:n_t]``, theta) by the integer
    path when ``all_complete`` (filling the totals ``scratch[0:2]``), else by
    :func:`_node_fit`. Returns ``(n_t, complete, pure, theta, occurrences)``; theta is the
    cap below two labels and NaN where the caller runs the approximate EM (incomplete)."""
    rk, sidx = rows.rk, rows.sidx
    m = rk.shape[1]
    n_rows = end - start
    if all_complete:
        s_tot, c_tot, _, order, flip = scratch
        s_tot[:] = 0
        c_tot[:] = 0
        _nb_add_complete_rows(rk, rows.bits, sidx[0], start, end, s_tot, c_tot)
        theta, pure = _nb_complete_node_model(
            s_tot, c_tot, n_rows, th.table, th.grid, rows.pair_index, order, flip, center
        )
        n_t = m
        for j in range(m):
            labs[j] = j
        complete = True
        occurrences = n_rows * m
    else:
        n_t, complete, pure, theta, occurrences = _nb_node_fit(
            rk, sidx[0, start:end], th, labs, center
        )
        if n_t == 1:
            center[0] = 0
    if n_t < 2:
        theta = th.grid[th.grid.shape[0] - 1]
    elif not complete:
        theta = np.nan
    return n_t, complete, pure, theta, occurrences


def _node_split(
    rows, th, start, end, params, all_complete, theta, scratch, feat_order
):  # pragma: no cover
    """The best split of a node ``(feature, threshold, gain)`` (feature -1: none); gain is
    the split's criterion minus the node's own (``theta``: the node's spread)."""
    min_leaf, criterion = params.min_leaf, params.criterion
    if all_complete:
        s_tot, c_tot, work, _, _ = scratch
        f, t, best = _nb_split_complete(
            rows, th, start, end, s_tot, c_tot, min_leaf, criterion, work, feat_order
        )
        # theta of the node, as its sides' are read (impure: at most the cap)
        cap = th.grid[th.grid.shape[0] - 1]
        n_rows = end - start
        parent_score = _nb_split_score(criterion, cap, n_rows, theta, np.int64(0), np.inf) / n_rows
    else:
        f, t, best, parent_score = _nb_split_incomplete(
            rows, th, start, end, min_leaf, criterion, feat_order
        )
    return f, t, best - parent_score


def _open_node(out, node, start, end, par, dep, is_left):  # pragma: no cover - compiled below
    """Record ``node`` (rows ``start:end`` of the final ``sidx``) as a leaf below ``par``
    (-1 for the root), its ``is_left`` child."""
    if par >= 0:
        if is_left:
            out.left[par] = node
        else:
            out.right[par] = node
    out.feature[node] = -1
    out.threshold[node] = -2.0  # undefined at leaves (scikit-learn's TREE_UNDEFINED)
    out.left[node] = -1
    out.right[node] = -1
    out.parent[node] = par
    out.depth[node] = dep
    out.start[node] = start
    out.size[node] = end - start


_nb_open_node = numba.njit(_open_node, cache=True, nogil=True)
_nb_all_complete = numba.njit(_all_complete, cache=True, nogil=True)
_nb_node_model = numba.njit(_node_model, cache=True, nogil=True)
_nb_node_split = numba.njit(_node_split, cache=True, nogil=True)


def _grow(rows, th, params, rng_state, out):  # pragma: no cover - compiled below
    """Grow a label ranking tree depth first, left child first; returns the node count.

    IN: ``rows`` (:class:`ScannedRows`): ``sidx`` (d, N) int64 and ``sval`` (d, N): row f =
    all rows sorted by feature f
    (stable) and their values; both are partitioned in place so that a node always owns
    columns ``start:end`` of every row (its rows sorted by each feature, as scikit-learn's
    presorted splitter: children inherit the order, nothing is re-sorted). ``rk`` (N, m)
    positions (-1 absent), ``ro``/``lens`` the orderings for :func:`_split_incomplete` (only
    read for incomplete nodes); ``params`` (:class:`GrowParams`): the stopping parameters
    (``max_depth`` -1 = none;
    ``min_gain``: a node stays a leaf when its best split improves the criterion, weighted by
    the node's share of the rows as scikit-learn's ``min_impurity_decrease``, by less than
    ``min_gain`` (up to 1e-12 of rounding); ``-np.inf`` = never) and the feature order: with ``shuffle`` each node visits the features in
    a fresh random order (Fisher-Yates from the SplitMix64 stream ``rng_state``, (1,)
    uint64, advanced in place), else in column order; among splits of exactly equal
    criterion the first visited wins (scikit-learn's convention), so the order only
    decides exact ties.
    ``th`` the :class:`ThetaTable`.
    OUT, per node, ``out`` (:class:`TreeArrays`; below with their former ``_out`` names):
    the tree arrays, ``start_out``/``size_out`` (the node's columns in the final ``sidx``),
    ``n_labels`` (``|L_T|``), ``labs_out[t, :n_labels]`` (``L_T``), ``complete_out`` (every
    row ranks all of ``L_T``), ``theta_out`` and ``center_out[t, :n_labels]`` (the node
    model; NaN theta where the caller must run the approximate EM: incomplete nodes with at
    least two labels).

    A node whose rows all rank all m labels uses the integer path
    (:func:`_complete_node_model`, :func:`_split_complete`), the others the float path
    (:func:`_node_fit`, :func:`_split_incomplete`).
    """
    sidx, sval = rows.sidx, rows.sval
    _, _, min_size, by_examples, max_depth, min_gain, shuffle = params
    n_all = sidx.shape[1]
    m = rows.rk.shape[1]
    n_pairs = rows.bits.shape[1]
    # s_tot, c_tot, work, order, flip: the integer path's node totals and scratch
    scratch = (
        np.zeros(m, dtype=np.int64),
        np.zeros(n_pairs, dtype=np.int64),
        np.zeros((7, max(m, n_pairs)), dtype=np.int64),
        np.empty(m, dtype=np.int64),
        np.zeros(n_pairs, dtype=np.int64),
    )
    mark = np.zeros(n_all, dtype=np.bool_)
    buf_rows = np.empty(n_all, dtype=sidx.dtype)
    buf_vals = np.empty(n_all, dtype=sval.dtype)
    # the stack of nodes to grow: (start, end, parent, depth), is_left
    stack = np.empty((n_all + 1, 4), dtype=np.int64)
    stack_left = np.empty(n_all + 1, dtype=np.bool_)
    feat_order = np.arange(sidx.shape[0])
    stack[0] = (0, n_all, -1, 0)
    stack_left[0] = True
    top = 1
    node = 0
    while top > 0:
        top -= 1
        start, end, par, dep = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        _nb_open_node(out, node, start, end, par, dep, stack_left[top])
        n_rows = end - start
        all_complete = _nb_all_complete(rows, start, end)
        n_t, complete, pure, theta, occurrences = _nb_node_model(
            rows, th, start, end, all_complete, out.labs[node], out.center[node], scratch
        )
        out.n_labels[node] = n_t
        out.complete[node] = complete
        out.theta[node] = theta
        this = node
        node += 1
        amount = n_rows if by_examples else occurrences
        if pure or amount < min_size or n_rows < 2:
            continue
        if max_depth >= 0 and dep >= max_depth:
            continue
        if shuffle:
            _nb_shuffle(feat_order, rng_state)
        f, t, gain = _nb_node_split(
            rows, th, start, end, params, all_complete, theta, scratch, feat_order
        )
        if f < 0 or n_rows / n_all * gain + 1e-12 < min_gain:
            continue
        out.feature[this] = f
        out.threshold[this] = t
        n_left = _nb_partition(sidx, sval, start, end, f, t, mark, buf_rows, buf_vals)
        # depth first, left child first: push the right child, then the left one
        stack[top] = (start + n_left, end, this, dep + 1)
        stack_left[top] = False
        stack[top + 1] = (start, start + n_left, this, dep + 1)
        stack_left[top + 1] = True
        top += 2
    return node


_nb_grow = numba.njit(_grow, cache=True, nogil=True)


def _node_models_em(
    ranks, votes, node_rows, nodes, max_iter, table, grid, centers, thetas
):  # pragma: no cover - compiled below
    """Approximate-EM Mallows models of many nodes whose rows together rank all m labels.

    IN: ``ranks`` (N, m) int64 positions; ``votes`` (N, m) the rows' generalised Borda votes
    (:func:`rankclust.consensus.generalized_borda_votes` over all m labels); ``node_rows``
    (:class:`NodeRows`): the node of ``nodes[q]`` owns rows ``rows_by_node[starts[t]:starts[t] + sizes[t]]``, taken in the
    order of ``first_rank`` (the rows' ranks in the stable sort by feature 0, the order in
    which the node was made). OUT per node q: ``centers[q]`` and ``thetas[q]``, the capped
    spread of the completions. Each node runs IBLR's one-query kernel
    (:func:`rankclust.label_ranking._iblr_kernels._em_one`, equal-weight rows) with the
    summed votes as its start. O(iter n_t m^2) time per node.
    """
    rows_by_node, first_rank, starts, sizes = node_rows
    m = ranks.shape[1]
    n_max = 1
    for q in range(nodes.shape[0]):
        n_max = max(n_max, sizes[nodes[q]])
    sub = np.empty((n_max, m), dtype=np.int64)
    ext = np.empty((n_max, m), dtype=np.int64)
    w = np.ones(n_max)
    init = np.empty(m)
    new = np.empty(m, dtype=np.int64)
    scores = np.empty(m)
    hist = np.empty((max_iter, m), dtype=np.int64)
    hobj = np.empty(max_iter)
    for q in range(nodes.shape[0]):
        t = nodes[q]
        k = sizes[t]
        seg = rows_by_node[starts[t] : starts[t] + k]
        order = np.argsort(first_rank[seg])
        init[:] = 0.0
        for a in range(k):
            i = seg[order[a]]
            sub[a] = ranks[i]
            for j in range(m):
                init[j] += votes[i, j]
        mean, _, _ = _nb_em_one(
            sub[:k], w[:k], init, max_iter, True, EMWork(ext[:k], new, scores, hist, hobj),
            centers[q],
        )  # fmt: skip
        thetas[q] = _nb_theta_from_mean(table, grid, m, mean)


_nb_node_models_em = numba.njit(_node_models_em, cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# cost-complexity pruning
# --------------------------------------------------------------------------------------------
def _node_risk(ranks, row_w, leaf, parent, node_ranking, risk):  # pragma: no cover
    """Training loss of every node's prediction: ``risk[t] += row_w[i] d(row i, t)``.

    IN: ``ranks`` (n, m) positions (-1 absent) of the training rows, ``row_w`` (n,) their
    weights, ``leaf`` (n,) their leaves, ``parent`` (nodes,), ``node_ranking`` (nodes, m)
    the complete position vector predicted at each node. OUT: ``risk`` (nodes,), zeroed
    here; ``d`` is the number of discordant observed pairs. Each row is charged to its leaf
    and every ancestor: O(n depth m^2) time.
    """
    for t in range(risk.shape[0]):
        risk[t] = 0.0
    for i in range(ranks.shape[0]):
        wi = row_w[i]
        if wi == 0.0:
            continue
        t = leaf[i]
        while t >= 0:
            disc, _ = kendall_pair(ranks[i], node_ranking[t])
            risk[t] += wi * disc
            t = parent[t]


_nb_node_risk = numba.njit(_node_risk, cache=True, nogil=True)


def _prune(left, right, parent, risk, alpha, rep):  # pragma: no cover - compiled below
    """Optimal subtree for cost-complexity ``alpha``: ``rep[t]`` = the leaf serving node t.

    IN: the tree (children before parents in reverse id order: ids grow from the root),
    ``risk`` (nodes,) the training loss of each node as a leaf. The subtree of t is
    collapsed into a leaf when ``risk[t] + alpha <= cost(left) + cost(right)`` (the best
    subtree's loss plus ``alpha`` per leaf; ties prune), bottom-up (Breiman et al. 1984,
    Ch. 10). OUT: ``rep`` (nodes,), the collapsed ancestor (or the node itself) whose
    prediction a row reaching t gets; ``rep[t] == t`` for the nodes kept. Returns the number
    of leaves. O(nodes) time.
    """
    count = left.shape[0]
    cost = np.empty(count)
    leaves = np.empty(count, dtype=np.int64)
    collapse = np.zeros(count, dtype=np.bool_)
    for t in range(count - 1, -1, -1):
        if left[t] < 0:
            cost[t] = risk[t] + alpha
            leaves[t] = 1
        else:
            sub = cost[left[t]] + cost[right[t]]
            if risk[t] + alpha <= sub:
                cost[t] = risk[t] + alpha
                leaves[t] = 1
                collapse[t] = True
            else:
                cost[t] = sub
                leaves[t] = leaves[left[t]] + leaves[right[t]]
    for t in range(count):
        p = parent[t]
        if p >= 0 and (collapse[p] or rep[p] != p):
            rep[t] = rep[p]
        else:
            rep[t] = t
    return leaves[0] if count else 0


_nb_prune = numba.njit(_prune, cache=True, nogil=True)
