"""Numba kernels of :mod:`rankclust.models.mallows` (private: inputs are trusted).

Each kernel is written as a plain Python function (debuggable, and the reference the tests
compare against) and compiled below as ``_nb_<name>``. Items are identified by their column
index; ``center[j]`` is the 0-based position of item ``j`` in the central ranking (a
permutation of ``0..m-1``). Large dispersions (``theta`` up to the solver cap and beyond) never
underflow: sums of probabilities are kept relative to their largest term (see the subset DPs).
"""

from __future__ import annotations

import math

import numba
import numpy as np


def _popcount(x):  # pragma: no cover - compiled below
    """Number of set bits of a non-negative int64 (SWAR bit count)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


def _log1mexp(x):  # pragma: no cover - compiled below
    """``log(1 - exp(-x))`` for ``x > 0``, accurate at both ends (Mächler 2012)."""
    if x <= 0.6931471805599453:
        return math.log(-math.expm1(-x))
    return math.log1p(-math.exp(-x))


_nb_log1mexp = numba.njit(_log1mexp, cache=True, nogil=True)


def _log_qint(k, theta):  # pragma: no cover - compiled below
    """``log [k]_q = log sum_{v<k} exp(-theta v)`` for integer ``k >= 1``, ``theta >= 0``.

    Scalar compiled copy of ``rankclust._mallows_math.stage_log_qint`` (the one home
    of the stage tables): keep in sync; ``tests/models/test_mallows_math.py`` pins it.
    """
    if theta == 0.0:
        return math.log(k)
    return _nb_log1mexp(k * theta) - _nb_log1mexp(theta)


_nb_popcount = numba.njit(_popcount, cache=True, nogil=True)
_nb_log_qint = numba.njit(_log_qint, cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# exact sampling (stage-wise / repeated insertion)
# --------------------------------------------------------------------------------------------
def _trunc_geom(u, k, theta, em_k):  # pragma: no cover - compiled below
    """Inverse cdf of ``P(V = v) ∝ exp(-theta v)`` on ``{0, ..., k-1}`` at ``u`` in [0, 1).

    ``P(V <= v) = (1 - q^(v+1)) / (1 - q^k)`` with ``q = exp(-theta)``, so
    ``V = floor(log(1 - u (1 - q^k)) / log q)``; ``em_k = expm1(-k theta)`` is precomputed.
    """
    if theta == 0.0:
        v = math.floor(u * k)
    else:
        v = math.floor(math.log1p(u * em_k) / -theta)
    if v < 0:
        return 0
    if v > k - 1:
        return k - 1
    return v


_nb_trunc_geom = numba.njit(_trunc_geom, cache=True, nogil=True)


def _sample_rankings(order, theta, uniforms, lengths, out):  # pragma: no cover - compiled below
    """Draw top-``lengths[i]`` lists from Mallows(center, theta) into ``out`` (n, m).

    ``order`` (m,) lists the items best first under the centre; ``uniforms`` (n, m-1) are
    independent U[0, 1) draws; ``out`` is filled with positions, ``-1`` for items below the
    cut. Position ``j`` receives the ``V_j``-th best remaining item (0-based) in centre order,
    ``V_j`` a truncated geometric on ``{0..m-j-1}``: the Fligner-Verducci stage-wise
    construction, i.e. repeated insertion read from the top (Busse et al. 2007;
    decisions.md B1). Only ``min(t, m-1)`` draws are used for a top-t list. O(m t) per row.
    """
    n, m = out.shape
    rem = np.empty(m, dtype=np.int64)
    em = np.empty(m + 1)
    for k in range(m + 1):
        em[k] = math.expm1(-k * theta)
    for i in range(n):
        t = lengths[i]
        for j in range(m):
            rem[j] = order[j]
            out[i, j] = -1
        size = m
        stop = t if t < m - 1 else m - 1
        for j in range(stop):
            v = _nb_trunc_geom(uniforms[i, j], size, theta, em[size])
            item = rem[v]
            for s in range(v, size - 1):
                rem[s] = rem[s + 1]
            size -= 1
            out[i, item] = j
        if t >= m and m > 0:
            out[i, rem[0]] = m - 1


_nb_sample_rankings = numba.njit(_sample_rankings, cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# exact subset (sub-ranking) marginal: two dynamic programmes
# --------------------------------------------------------------------------------------------
# Both are sums over paths of q^(inversions), q = exp(-theta). To stay in linear space without
# under- or overflow they carry, per state s, the fewest inversions g(s) of a path reaching s
# (an integer) and the reduced sum F(s) = sum_paths q^(cost - g(s)) >= 1, so the true sum is
# q^g(s) F(s). A transition then multiplies by q^(excess) with an integer excess >= 0, read
# from a table; no exp or log runs per transition.
def _qpow_table(theta, n):  # pragma: no cover - compiled below
    """``q^e`` for ``e = 0..n``, ``q = exp(-theta)`` (tiny values underflow harmlessly)."""
    out = np.empty(n + 1)
    for e in range(n + 1):
        out[e] = math.exp(-theta * e)
    return out


def _qpow(table, e, theta):  # pragma: no cover - compiled below
    """``q^e`` from the table, or computed when ``e`` is beyond it."""
    if e < table.shape[0]:
        return table[e]
    return math.exp(-theta * e)


_nb_qpow_table = numba.njit(_qpow_table, cache=True, nogil=True)
_nb_qpow = numba.njit(_qpow, cache=True, nogil=True)
_QPOW_TABLE = 4096


def _bitmask_tables(chain, free, center):  # pragma: no cover - compiled below
    """The inversion counts of :func:`_subset_logmass_bitmask` that do not depend on the
    state: ``low_chain[p]`` the free items below chain item p in the centre (a bitmask of
    the first ones, the free items being sorted by centre position), ``pl_free[p, b]`` the
    chain items ``>= p`` below free item b, ``pl_chain[p]`` the later chain items below
    chain item p."""
    k = chain.shape[0]
    r = free.shape[0]
    low_chain = np.empty(k, dtype=np.int64)
    for p in range(k):
        c = center[chain[p]]
        cnt = 0
        for b in range(r):
            if center[free[b]] < c:
                cnt += 1
        low_chain[p] = (1 << cnt) - 1
    pl_free = np.zeros((k + 1, r), dtype=np.int64)
    for b in range(r):
        c = center[free[b]]
        for p in range(k - 1, -1, -1):
            pl_free[p, b] = pl_free[p + 1, b] + (1 if center[chain[p]] < c else 0)
    pl_chain = np.zeros(k, dtype=np.int64)
    for p in range(k):
        c = center[chain[p]]
        for q in range(p + 1, k):
            if center[chain[q]] < c:
                pl_chain[p] += 1
    return low_chain, pl_free, pl_chain


_nb_bitmask_tables = numba.njit(_bitmask_tables, cache=True, nogil=True)


def _subset_logmass_bitmask(chain, free, center, theta):  # pragma: no cover - compiled below
    """``log sum_{pi in E(chain)} exp(-theta d_K(pi, center))`` by a DP over free-item sets.

    ``chain`` (k,) the present items best first; ``free`` (r,) the absent items sorted by
    centre position. The permutation is built position by position; placing item ``x`` while
    the set ``Rem`` is unplaced costs ``#{y in Rem: c(y) < c(x)}`` inversions (the Lehmer code
    w.r.t. the centre), and the chain forces the present items in order. States: (set S of
    placed free items, number p of placed chain items), 2^r (k+1) of them, each pulling from
    at most r+1 predecessors. O(2^r k r) time, O(2^r k) memory.
    """
    k = chain.shape[0]
    r = free.shape[0]
    m = k + r
    full = (1 << r) - 1
    low_chain, pl_free, pl_chain = _nb_bitmask_tables(chain, free, center)
    qpow = _nb_qpow_table(theta, min(m * (m - 1) // 2, _QPOW_TABLE))
    val = np.zeros((full + 1, k + 1))
    low = np.zeros((full + 1, k + 1), dtype=np.int64)
    cost = np.empty(r + 1, dtype=np.int64)
    val[0, 0] = 1.0
    for S in range(full + 1):
        rem = full ^ S
        for p in range(k + 1):
            if S == 0 and p == 0:
                continue
            best = -1
            # predecessor (S - {b}, p): free item b was placed last
            for b in range(r):
                bit = 1 << b
                if S & bit:
                    cost[b] = low[S ^ bit, p] + _nb_popcount(rem & (bit - 1)) + pl_free[p, b]
                    if best < 0 or cost[b] < best:
                        best = cost[b]
            # predecessor (S, p - 1): chain item p-1 was placed last
            if p > 0:
                cost[r] = low[S, p - 1] + _nb_popcount(rem & low_chain[p - 1]) + pl_chain[p - 1]
                if best < 0 or cost[r] < best:
                    best = cost[r]
            acc = 0.0
            for b in range(r):
                bit = 1 << b
                if S & bit:
                    acc += _nb_qpow(qpow, cost[b] - best, theta) * val[S ^ bit, p]
            if p > 0:
                acc += _nb_qpow(qpow, cost[r] - best, theta) * val[S, p - 1]
            low[S, p] = best
            val[S, p] = acc
    return math.log(val[full, k]) - theta * low[full, k]


_nb_subset_logmass_bitmask = numba.njit(_subset_logmass_bitmask, cache=True, nogil=True)


def _gap_costs(chain, free, center):  # pragma: no cover - compiled below
    """``cost[b, g]``: inversions between free item b and the chain if b goes into gap g
    (0 = above the first chain item, k = below the last)."""
    k = chain.shape[0]
    r = free.shape[0]
    cost = np.empty((r, k + 1), dtype=np.int64)
    for b in range(r):
        c = center[free[b]]
        acc = 0
        for p in range(k):
            if center[chain[p]] < c:
                acc += 1
        cost[b, 0] = acc
        for p in range(k):
            if center[chain[p]] > c:
                acc += 1
            else:
                acc -= 1
            cost[b, p + 1] = acc
    return cost


def _composition_state(bars, b, binom, counts, above, pre, suf):  # pragma: no cover
    """The composition of layer ``b + 1`` whose bars are ``bars[1..k]`` (OUT): the gap
    sizes ``counts``, ``above[g] = sum_{h >= g} counts[h]``, and the colex rank pieces
    ``pre[g] = sum_{j <= g} C(bars_j, j)``, ``suf[g] = sum_{j >= g} C(bars_j - 1, j)``."""
    k = counts.shape[0] - 1
    prev = -1
    for j in range(1, k + 1):
        counts[j - 1] = bars[j] - prev - 1
        prev = bars[j]
    counts[k] = b + k - prev  # slots 0 .. b+k hold b+1 stars and k bars
    above[k + 1] = 0
    for g in range(k, -1, -1):
        above[g] = above[g + 1] + counts[g]
    pre[0] = 0
    for j in range(1, k + 1):
        pre[j] = pre[j - 1] + binom[bars[j], j]
    suf[k + 1] = 0
    for j in range(k, 0, -1):
        suf[j] = suf[j + 1] + (binom[bars[j] - 1, j] if bars[j] >= 1 else 0)


def _next_colex(bars, k):  # pragma: no cover - compiled below
    """The next k-combination ``bars[1..k]`` in colex order (in place)."""
    j = 1
    while j < k and bars[j] + 1 == bars[j + 1]:
        j += 1
    bars[j] += 1
    for i in range(1, j):
        bars[i] = i - 1


def _log_reduced_sum(val, low, n, qpow, theta):  # pragma: no cover - compiled below
    """``(log sum_{s < n} val[s] q^(low[s] - best), best)`` with ``best = min low[:n]``
    (``q = exp(-theta)``): the sum with the smallest power factored out."""
    best = low[0]
    for s in range(n):
        if low[s] < best:
            best = low[s]
    acc = 0.0
    for s in range(n):
        acc += _nb_qpow(qpow, low[s] - best, theta) * val[s]
    return math.log(acc), best


_nb_gap_costs = numba.njit(_gap_costs, cache=True, nogil=True)
_nb_log_reduced_sum = numba.njit(_log_reduced_sum, cache=True, nogil=True)
_nb_composition_state = numba.njit(_composition_state, cache=True, nogil=True, inline="always")
_nb_next_colex = numba.njit(_next_colex, cache=True, nogil=True, inline="always")


def _subset_logmass_compositions(
    chain, free, center, theta, binom
):  # pragma: no cover - compiled below
    """The same marginal by a DP over how many free items fall in each gap of the chain.

    An extension is fixed by the gap ``g(f)`` in ``0..k`` of every free item and the order of
    the free items inside each gap. Its inversions split into: pairs inside the chain (not
    counted here; the caller adds them), free-vs-chain pairs ``cost_f(g(f))``, free pairs in
    different gaps (an inversion when the item with the larger centre position sits in an
    earlier gap) and free pairs in one gap (summed over the orders inside a gap of size n:
    the q-factorial ``[n]_q!``). Free items are added in centre order, so the state is the
    composition ``(n_0, ..., n_k)`` of the items added so far; compositions are ranked in
    colex order of their stars-and-bars representation (bars ``b_1 < ... < b_k``, rank
    ``sum_j C(b_j, j)``), ``binom[a, j] = C(a, j)``. Each layer is rescaled by its largest
    reduced sum (the scale is carried in log space). ``C(r+k+1, k+1)`` states in all, each
    pulling from at most k+1 predecessors: O(C(r+k+1, k+1) k) time, O(C(r+k, k)) memory --
    polynomial in m for a fixed number k of present items.
    """
    k = chain.shape[0]
    r = free.shape[0]
    m = k + r
    cost = _nb_gap_costs(chain, free, center)
    qint = np.empty(r + 1)  # [n]_q = sum_{s<n} q^s
    for n in range(1, r + 1):
        qint[n] = math.exp(_nb_log_qint(n, theta))
    qpow = _nb_qpow_table(theta, min(m * (m - 1) // 2, _QPOW_TABLE))
    size = binom[r + k, k]
    cur = np.zeros(size)
    nxt = np.zeros(size)
    low_cur = np.zeros(size, dtype=np.int64)
    low_nxt = np.zeros(size, dtype=np.int64)
    cur[0] = 1.0
    log_scale = 0.0
    bars = np.empty(k + 2, dtype=np.int64)
    counts = np.empty(k + 1, dtype=np.int64)
    above = np.empty(k + 2, dtype=np.int64)  # above[g] = sum_{h >= g} counts[h]
    pre = np.empty(k + 1, dtype=np.int64)  # pre[g] = sum_{j <= g} C(bars_j, j)
    suf = np.empty(k + 2, dtype=np.int64)  # suf[g] = sum_{j >= g} C(bars_j - 1, j)
    exc = np.empty(k + 1, dtype=np.int64)
    for b in range(r):  # layer b+1: free items 0..b placed, item b last
        n_nxt = binom[b + 1 + k, k]
        for j in range(1, k + 1):
            bars[j] = j - 1  # first composition in colex order
        top = 0.0
        for s in range(n_nxt):
            _nb_composition_state(bars, b, binom, counts, above, pre, suf)
            best = -1
            for g in range(k + 1):
                if counts[g] > 0:
                    idx = pre[g] + suf[g + 1]  # the composition before item b joined gap g
                    exc[g] = low_cur[idx] + cost[b, g] + above[g + 1]
                    if best < 0 or exc[g] < best:
                        best = exc[g]
            acc = 0.0
            for g in range(k + 1):
                if counts[g] > 0:
                    idx = pre[g] + suf[g + 1]
                    acc += _nb_qpow(qpow, exc[g] - best, theta) * qint[counts[g]] * cur[idx]
            nxt[s] = acc
            low_nxt[s] = best
            if acc > top:
                top = acc
            if s + 1 < n_nxt:
                _nb_next_colex(bars, k)
        log_scale += math.log(top)
        for s in range(n_nxt):
            cur[s] = nxt[s] / top
            low_cur[s] = low_nxt[s]
    log_acc, best = _nb_log_reduced_sum(cur, low_cur, binom[r + k, k], qpow, theta)
    return log_acc + log_scale - theta * best


_nb_subset_logmass_compositions = numba.njit(_subset_logmass_compositions, cache=True, nogil=True)
