"""Numba kernels of :mod:`rankclust.label_ranking.tree` (private: inputs are trusted).

The split search of the label ranking tree sorts a node's rows by one feature and sweeps the
thresholds, moving one row at a time from the right child to the left one and updating three
additive statistics of each side instead of refitting:

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
distance (:func:`rankclust.models.mallows.expected_distance`) on a fine grid. For complete
rankings this is exactly the paper's node fit (Borda centre, theta MLE); for incomplete ones
``Dbar`` is the observed-pairs estimate of the mean distance (spec A6) instead of the
distance of the Prop. 1 completions, which would need a refit per threshold.
"""

from __future__ import annotations

import numba
import numpy as np


def _theta_from_mean(table, grid, n_t, mean):  # pragma: no cover - compiled below
    """Invert the expected distance ``g_{n_t}`` (row ``n_t`` of ``table`` on ``grid``).

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
    table,
    grid,
    order_buf,
):  # pragma: no cover - compiled below
    """Spread of one side from its statistics (see the module docstring).

    The side's statistics are ``base + sign * (votes, pairs, count)``: the left side is
    ``0 + 1 * left`` and the right side ``total - left``, so no copy is made. ``order_buf``
    (m,) int64 scratch. Returns the capped theta (the cap for a side with fewer than two
    labels or no observed pair).
    """
    m = votes.shape[0]
    n_t = 0
    for j in range(m):
        if base_count[j] + sign * count[j] > 0.5:
            order_buf[n_t] = j
            n_t += 1
    if n_t < 2 or n_rows_pairs < 0.5:
        return grid[grid.shape[0] - 1]
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
    mean = disc / n_rows_pairs * (n_t * (n_t - 1) / 2.0)
    return _nb_theta_from_mean(table, grid, n_t, mean)


_nb_side_theta = numba.njit(_side_theta, cache=True, nogil=True)


def _theta_hunt(table, grid, n_t, mean, hint):  # pragma: no cover - compiled below
    """:func:`_theta_from_mean` starting the search at ``hint[0]`` (updated in place).

    Consecutive thresholds change a side by one row, so its mean distance moves little and
    a short walk from the previous bracket replaces the binary search.
    """
    n_grid = grid.shape[0]
    row = table[n_t]
    if mean >= row[0]:
        return 0.0
    if mean <= row[n_grid - 1]:
        return grid[n_grid - 1]
    lo = hint[0]
    if lo < 0 or lo > n_grid - 2:
        lo = 0
    steps = 0
    while steps < 16 and not (row[lo] > mean >= row[lo + 1]):
        if row[lo] <= mean:
            lo -= 1
        else:
            lo += 1
        steps += 1
    if not (row[lo] > mean >= row[lo + 1]):
        lo = 0
        hi = n_grid - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if row[mid] > mean:
                lo = mid
            else:
                hi = mid
    hint[0] = lo
    frac = (row[lo] - mean) / (row[lo] - row[lo + 1])
    return grid[lo] + frac * (grid[lo + 1] - grid[lo])


_nb_theta_hunt = numba.njit(_theta_hunt, cache=True, nogil=True)


def _side_theta_complete(
    votes, pairs, sign, base_votes, base_pairs, n_rows, order, table, grid, hint
):  # pragma: no cover - compiled below
    """:func:`_side_theta` for a side whose rows all rank every label (complete data).

    The side's statistics are ``base + sign * (votes, pairs)`` as in :func:`_side_theta`.
    ``order`` (m,) holds the side's label order from the previous threshold and is re-sorted
    in place by insertion (nearly sorted: O(m) typically); ties keep the lower label index
    first, as in the general function. ``hint`` is the theta search start (see
    :func:`_theta_hunt`).
    """
    m = votes.shape[0]
    if m < 2 or n_rows < 0.5:
        return grid[grid.shape[0] - 1]
    for a in range(1, m):
        x = order[a]
        vx = base_votes[x] + sign * votes[x]
        b = a - 1
        while b >= 0:
            y = order[b]
            vy = base_votes[y] + sign * votes[y]
            # y moves below x if x has clearly more votes, or equal votes and a lower index
            if vy < vx - 1e-9 or (abs(vy - vx) <= 1e-9 and y > x):
                order[b + 1] = y
                b -= 1
            else:
                break
        order[b + 1] = x
    disc = 0.0
    for a in range(m):
        u = order[a]
        for b in range(a + 1, m):
            v = order[b]
            disc += base_pairs[v, u] + sign * pairs[v, u]
    mean = disc / n_rows * (m * (m - 1) / 2.0)
    return _nb_theta_hunt(table, grid, m, mean, hint)


_nb_side_theta_complete = numba.njit(_side_theta_complete, cache=True, nogil=True)


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


def _best_split(
    sorted_rows,
    sorted_vals,
    ro,
    lens,
    min_leaf,
    criterion,
    table,
    grid,
    out_feature,
    out_threshold,
    out_score,
):  # pragma: no cover - compiled below
    """Best ``(feature, threshold)`` of a node by criterion (6) of Cheng et al. (2009).

    IN: ``sorted_rows`` (n_node, d) int64, column f = the node's rows sorted by feature f
    (stable), and ``sorted_vals`` (n_node, d) their feature values; ``ro`` (N, m) and
    ``lens`` (N,) the rows as orderings (see :func:`_move_row_order`); ``min_leaf`` minimum
    rows per child; ``criterion`` 0 = the
    paper's eq. (6), 1 = impurity; the theta table.
    OUT (length-1 arrays): ``out_feature`` (-1 when no valid split), ``out_threshold``
    (midpoint of two consecutive distinct values; ``x <= threshold`` goes left),
    ``out_score``, maximised: ``(|T+| theta+ + |T-| theta-)/|T|`` (criterion 0) or
    ``-(|T+| u+ + |T-| u-)/|T|`` with the impurity ``u = 1/(1 + theta)``, 0 for a pure side
    (theta at the cap; criterion 1). Ties keep the first candidate (features in column order,
    thresholds ascending).

    O(d n m^2) time for n rows (each moved row and each threshold cost O(m^2)), O(m^2) extra
    memory.
    """
    n_node, d = sorted_rows.shape
    m = ro.shape[1]
    tot_votes = np.zeros(m)
    tot_pairs = np.zeros((m, m))
    tot_count = np.zeros(m)
    tot_rp = 0.0
    for t in range(n_node):
        tot_rp += _nb_move_row_order(
            ro, lens, sorted_rows[t, 0], 1.0, tot_votes, tot_pairs, tot_count
        )
    # complete: every row ranks every label, so both sides always hold all m labels
    complete = True
    for j in range(m):
        if tot_count[j] != n_node:
            complete = False
    l_votes = np.zeros(m)
    l_pairs = np.zeros((m, m))
    l_count = np.zeros(m)
    zero_votes = np.zeros(m)
    zero_pairs = np.zeros((m, m))
    order_buf = np.empty(m, dtype=np.int64)
    l_order = np.arange(m)
    r_order = np.arange(m)
    l_hint = np.zeros(1, dtype=np.int64)
    r_hint = np.zeros(1, dtype=np.int64)
    cap = grid[grid.shape[0] - 1]
    out_feature[0] = -1
    out_threshold[0] = 0.0
    best = -np.inf
    for f in range(d):
        if sorted_vals[0, f] == sorted_vals[n_node - 1, f]:
            continue
        l_votes[:] = 0.0
        l_pairs[:, :] = 0.0
        l_count[:] = 0.0
        l_rp = 0.0
        for p in range(n_node - 1):
            i = sorted_rows[p, f]
            has_pair = _nb_move_row_order(ro, lens, i, 1.0, l_votes, l_pairs, l_count)
            l_rp += has_pair
            v_here = sorted_vals[p, f]
            v_next = sorted_vals[p + 1, f]
            if v_here == v_next:
                continue
            n_left = p + 1
            n_right = n_node - n_left
            if n_left < min_leaf or n_right < min_leaf:
                continue
            if complete:
                th_l = _nb_side_theta_complete(
                    l_votes,
                    l_pairs,
                    1.0,
                    zero_votes,
                    zero_pairs,
                    l_rp,
                    l_order,
                    table,
                    grid,
                    l_hint,
                )
                th_r = _nb_side_theta_complete(
                    l_votes,
                    l_pairs,
                    -1.0,
                    tot_votes,
                    tot_pairs,
                    tot_rp - l_rp,
                    r_order,
                    table,
                    grid,
                    r_hint,
                )
            else:
                th_l = _nb_side_theta(
                    l_votes,
                    l_pairs,
                    l_count,
                    1.0,
                    zero_votes,
                    zero_pairs,
                    zero_votes,
                    l_rp,
                    table,
                    grid,
                    order_buf,
                )
                th_r = _nb_side_theta(
                    l_votes,
                    l_pairs,
                    l_count,
                    -1.0,
                    tot_votes,
                    tot_pairs,
                    tot_count,
                    tot_rp - l_rp,
                    table,
                    grid,
                    order_buf,
                )
            if criterion == 0:
                score = (n_left * th_l + n_right * th_r) / n_node
            else:
                u_l = 0.0 if th_l >= cap else 1.0 / (1.0 + th_l)
                u_r = 0.0 if th_r >= cap else 1.0 / (1.0 + th_r)
                score = -(n_left * u_l + n_right * u_r) / n_node
            if score > best:
                best = score
                out_feature[0] = f
                thr = 0.5 * (v_here + v_next)
                if thr >= v_next:  # midpoint rounded up to the next value
                    thr = v_here
                out_threshold[0] = thr
    out_score[0] = best


_nb_best_split = numba.njit(_best_split, cache=True, nogil=True)


def _partition(
    sorted_rows, sorted_vals, f, threshold, mark, left_rows, left_vals, right_rows, right_vals
):  # pragma: no cover - compiled below
    """Split every column of a node's sorted rows and values into the children, keeping the
    order: rows with ``value of feature f <= threshold`` go left. ``mark`` (N,) bool scratch
    indexed by row id; OUT arrays sized by the caller. O(n d) time."""
    n_node, d = sorted_rows.shape
    for t in range(n_node):
        mark[sorted_rows[t, f]] = sorted_vals[t, f] <= threshold
    for c in range(d):
        a = 0
        b = 0
        for t in range(n_node):
            i = sorted_rows[t, c]
            if mark[i]:
                left_rows[a, c] = i
                left_vals[a, c] = sorted_vals[t, c]
                a += 1
            else:
                right_rows[b, c] = i
                right_vals[b, c] = sorted_vals[t, c]
                b += 1


_nb_partition = numba.njit(_partition, cache=True, nogil=True)


def _sort_columns(X, rows_out, vals_out):  # pragma: no cover - compiled below
    """Row indices sorted by each feature (stable) and the sorted values, shape (N, d)."""
    n, d = X.shape
    for f in range(d):
        order = np.argsort(X[:, f], kind="mergesort")
        for t in range(n):
            rows_out[t, f] = order[t]
            vals_out[t, f] = X[order[t], f]


_nb_sort_columns = numba.njit(_sort_columns, cache=True, nogil=True)


def _node_fit(ranks, rows, table, grid, labs_out, center_out):  # pragma: no cover
    """Summary and (for complete rankings) Mallows fit of one node, in one pass.

    IN: ``ranks`` (N, m) positions, ``rows`` the node's rows, the theta table.
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
        occurrences += length
        if length < min_len:
            min_len = length
    n_t = 0
    for j in range(m):
        if count[j] > 0.5:
            labs_out[n_t] = j
            n_t += 1
    pure = True
    for u in range(m):
        for v in range(u + 1, m):
            if raw[u, v] > 0 and raw[v, u] > 0:
                pure = False
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
            table,
            grid,
            order_buf,
        )
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
