"""Footrule-Mallows: exact distance distribution, normaliser, moments, sampler and centre.

``d_F(pi, c) = sum_j |pi_j - c_j|`` (Spearman's footrule), right-invariant, so
``Z_m(theta) = sum_delta N_m(delta) e^{-theta delta}`` with ``N_m(delta)`` the number of
permutations of ``m`` at footrule ``delta`` from the identity.

Counting (the "open" dynamic programme). Build a permutation ``sigma`` of ``0..m-1`` step by
step; step ``i`` introduces the argument ``i`` and the value ``i``. Each may be matched at once
(to an *open* value or argument from before, or to each other) or be left open; with ``k``
open pairs before the step the transitions are ``k -> k+1`` (both left open, 1 way),
``k -> k`` (2k+1 ways: ``i -> i``, ``i ->`` an open value, an open argument ``-> i``) and
``k -> k-1`` (``k^2`` ways: both matched to open ones). An argument ``j`` with
``sigma(j) > j`` stays open for ``sigma(j) - j`` steps, and the open values account for the
negative displacements likewise, so ``d_F = 2 sum_i k_i`` with ``k_i`` the number of open
pairs after step ``i``. The table of completions ``C[s, k, r]`` (``s`` steps left, ``k`` open,
``r`` = remaining half-distance) gives the counts ``N_m(2r) = C[m, 0, r]`` and an exact sampler:
draw ``r`` from ``P(r) ∝ C[m, 0, r] e^{-2 theta r}``, then walk the table forwards choosing
each transition with probability ``ways x C[s-1, k', r - k'] / C[s, k, r]`` and, inside a
transition, one of its ways uniformly (every way leads to the same state, so this is uniform
over the permutations at that distance).

The table holds **float64 log-counts** (relative error about 1e-15 per entry; the counts are
exact integers to that precision, e.g. ``N_7`` is reproduced exactly after rounding), which
keeps every ``m`` in range (``m!`` overflows float64 beyond 170). Cost: O(m^2 x m^2/4) time and
memory for the table, cached per ``m``; m = 50 takes about 10 ms.

Centre: ``argmin_c sum_i w_i sum_j |r_ij - c_j|`` is a linear assignment of items to positions
with cost ``cost[j, p] = sum_i w_i |r_ij - p|`` (exact; scipy's ``linear_sum_assignment``).

Private module (trusted input); the public entry point is
:class:`rankclust.models.Mallows` with ``distance="footrule"``.

References
----------
Diaconis, P. and Graham, R. L. (1977). Spearman's footrule as a measure of disarray. JRSS B 39,
262-268. Fligner, M. A. and Verducci, J. S. (1986). Distance based ranking models. JRSS B 48,
359-369.
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from scipy.optimize import linear_sum_assignment

from rankclust.models import _mallows_counts as counts


@functools.lru_cache(maxsize=8)
def _completion_table(m: int) -> np.ndarray:
    """``L[s, k, r] = log C[s, k, r]`` (-inf where none); shape (m+1, m//2+2, m*m//4+1).

    O(m^2 x m^2 / 4) time and memory.
    """
    kmax = m // 2 + 1
    rmax = m * m // 4
    table = np.full((m + 1, kmax + 1, rmax + 1), -np.inf)
    table[0, 0, 0] = 0.0
    for s in range(1, m + 1):
        prev = table[s - 1]
        cur = table[s]
        for k in range(0, min(s, kmax - 1) + 1):
            terms = []
            for k2, ways in ((k + 1, 1), (k, 2 * k + 1), (k - 1, k * k)):
                if k2 < 0 or k2 > kmax or ways == 0:
                    continue
                shifted = np.full(rmax + 1, -np.inf)
                shifted[k2:] = prev[k2, : rmax + 1 - k2]
                terms.append(shifted + np.log(ways))
            cur[k] = np.logaddexp.reduce(np.vstack(terms), axis=0)
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=64)
def distance_distribution(m: int) -> tuple[np.ndarray, np.ndarray]:
    """``(support, log_counts)``: footrule values ``0, 2, ..., 2 floor(m^2/4)`` and
    ``log N_m`` at each (``-inf`` never occurs: every even value up to the maximum is hit).

    Complexity: O(m^4 / 4) time on the first call per m (cached), O(m^2) after.
    """
    if m <= 1:
        return np.zeros(1), np.zeros(1)
    log_c = _completion_table(m)[m, 0].copy()
    support = 2.0 * np.arange(log_c.shape[0])
    keep = np.isfinite(log_c)
    return support[keep], log_c[keep]


def log_normalizer(theta: float, m: int) -> float:
    """``log Z_m(theta)`` of footrule-Mallows (exact, log space). O(m^2) after the table."""
    support, log_c = distance_distribution(m)
    return counts.log_moments(theta, log_c, support)[0]


def expected_distance(theta: float, m: int) -> float:
    """``E_theta d_F`` (exact). O(m^2) after the table."""
    support, log_c = distance_distribution(m)
    return counts.log_moments(theta, log_c, support)[1]


def distance_variance(theta: float, m: int) -> float:
    """``Var_theta d_F`` (exact). O(m^2) after the table."""
    support, log_c = distance_distribution(m)
    return counts.log_moments(theta, log_c, support)[2]


def _draw_permutations(table, halves, u, out):  # pragma: no cover - compiled below
    """Uniform permutations (``out[n, j]`` = value of argument j) with footrule ``2 halves[n]``.

    Walks the completion table forwards (module docstring); ``u`` holds 2 uniforms per step:
    one picks the transition ``k -> k'``, the other one of its ways. The open arguments and
    values are kept in unordered arrays (a uniform pick does not depend on their order).
    """
    n_draws, m = out.shape
    kdim = table.shape[1]
    open_args = np.empty(m, dtype=np.int64)
    open_vals = np.empty(m, dtype=np.int64)
    cand = np.empty(3, dtype=np.int64)
    prob = np.empty(3)
    for n in range(n_draws):
        r = halves[n]
        k = 0
        for i in range(m):
            s = m - i
            here = table[s, k, r]
            n_cand = 0
            total = 0.0
            for c in range(3):
                k2 = k + 1 - c
                ways = 1 if c == 0 else (2 * k + 1 if c == 1 else k * k)
                if k2 < 0 or k2 >= kdim or ways == 0 or r - k2 < 0:
                    continue
                lp = np.log(ways) + table[s - 1, k2, r - k2] - here
                if lp > -np.inf:
                    cand[n_cand] = k2
                    prob[n_cand] = np.exp(lp)
                    total += prob[n_cand]
                    n_cand += 1
            thresh = u[n, 2 * i] * total
            acc = 0.0
            k2 = cand[n_cand - 1]
            for c in range(n_cand):
                acc += prob[c]
                if acc > thresh:
                    k2 = cand[c]
                    break
            x = u[n, 2 * i + 1]
            if k2 == k + 1:
                open_args[k] = i
                open_vals[k] = i
            elif k2 == k:
                w = min(int(x * (2 * k + 1)), 2 * k)
                if w == 2 * k:
                    out[n, i] = i
                elif w < k:
                    out[n, i] = open_vals[w]
                    open_vals[w] = i
                else:
                    out[n, open_args[w - k]] = i
                    open_args[w - k] = i
            else:
                w = min(int(x * k * k), k * k - 1)
                a, b = w // k, w % k
                out[n, i] = open_vals[a]
                out[n, open_args[b]] = i
                open_vals[a] = open_vals[k - 1]
                open_args[b] = open_args[k - 1]
            k = k2
            r -= k


_nb_draw_permutations = numba.njit(_draw_permutations, cache=True)


def sample(center: np.ndarray, theta: float, size: int, rng: np.random.RandomState) -> np.ndarray:
    """Exact draws from footrule-Mallows(center, theta): ``(size, m)`` int64 positions.

    The distance by its exact pmf, then a uniform permutation at that distance (module
    docstring), composed with the centre: ``pi = sigma[center]``, so
    ``d_F(pi, center) = d_F(sigma, identity)``. O(size m) time after the table.
    """
    center = np.asarray(center, dtype=np.int64)
    m = center.shape[0]
    out = np.empty((size, m), dtype=np.int64)
    if m <= 1:
        out[:] = center
        return out
    support, log_c = distance_distribution(m)
    idx = counts.sample_distances(theta, log_c, support, size, rng)
    halves = (support[idx] // 2).astype(np.int64)
    sigma = np.empty((size, m), dtype=np.int64)
    _nb_draw_permutations(_completion_table(m), halves, rng.random_sample((size, 2 * m)), sigma)
    return sigma[:, center]


def estimate_center(ranks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted footrule median (exact): a linear assignment of items to positions.

    ``cost[j, p] = sum_i w_i |r_ij - p|`` from the weighted histogram of each item's
    positions. O(n m + m^3) time, O(m^2) memory.
    """
    ranks = np.asarray(ranks, dtype=np.int64)
    n, m = ranks.shape
    hist = np.zeros((m, m))
    np.add.at(hist, (np.broadcast_to(np.arange(m), (n, m)), ranks), weights[:, None])
    grid = np.arange(m)
    cost = hist @ np.abs(grid[:, None] - grid[None, :])
    rows, cols = linear_sum_assignment(cost)
    center = np.empty(m, dtype=np.int64)
    center[rows] = cols
    return center
