"""Spearman-Mallows: exact distance distribution (m <= 20), approximation beyond, sampler, centre.

``d_S(pi, c) = sum_j (pi_j - c_j)^2`` (Spearman's rho distance, squared form), right-invariant,
so ``Z_m(theta) = sum_delta N_m(delta) e^{-theta delta}`` with ``N_m(delta)`` the number of
permutations of ``m`` at distance ``delta`` from the identity.

Exact counts (m <= :data:`EXACT_MAX_ITEMS` = 20). Since
``sum_p (sigma(p) - p)^2 = 2 sum_p p^2 - 2 sum_p p sigma(p)``, it suffices to count the
permutations by ``S = sum_p p sigma(p)``. A dynamic programme over the set ``W`` of values
given to the last ``|W|`` positions, layer by layer (``|W| = 1, 2, ..., m``), carries for every
``W`` the count of each partial sum: ``A_W[S] = sum_{v in W} A_{W - v}[S - i v]`` with
``i = m - |W|`` the position that receives ``v``. The counts are int64, exact up to m = 20
(``20! < 2^63``). For m = 20 the two largest layers hold about 1.2e8 counts (1 GB), so the
table of ``N_m`` for m = 1..20 is computed once by ``tools/spearman_counts.py`` and shipped as
``models/data/spearman_counts.txt`` (exact integers; read lazily, cached; the tests check it
against brute force for m <= 9 and that every row sums to m!). The same programme, kept in
memory, is the exact sampler for m <= :data:`EXACT_SAMPLER_MAX_ITEMS` (15; a 37 MB table
built in 0.3 s, cached): draw ``S`` from its
pmf, then give position ``i = 0, 1, ...`` the value ``v`` with probability
``A_{W - v}[S_rest - i v] / A_W[S_rest]``, which is uniform over the permutations with that
``S``.

Beyond 20 items (approximation, stated). ``Z_m(theta) = E_q[e^{-theta d_S(sigma)} / q(sigma)]``
is estimated by sequential importance sampling with :data:`IS_DRAWS` (5000) draws and a fixed
seed (common random numbers, so the estimate is a deterministic function of theta): position
``p = 0, ..., m-1`` takes a free value ``v`` with probability ``∝ exp(-theta (v - p)^2)``
(the pseudo-likelihood proposal of Vitelli et al. 2018); the moments are the self-normalised
weighted moments of ``d_S``; ``theta = 0`` is exact (``log m!``, ``(m^3-m)/6``,
``m^2 (m-1)(m+1)^2/36``). Measured against the exact values for m = 15..20 at 25 values of theta
log-spaced in [1e-3, 3] (tests/models/test_mallows_distances.py): ``|error of log Z| <= 0.21``
and a relative error of ``E d_S`` of at most 8% (worst near theta = 0.05; the error does not
shrink much with more draws, the weights being heavy-tailed). It is a rough approximation:
prefer m <= 20 where the fit must be exact. One evaluation costs O(IS_DRAWS m^2), about 0.2 s
at m = 50. (MSmix instead fits a parametric curve to the log-counts beyond 20 items,
Crispino et al. 2023.) Sampling beyond 15 items is a Metropolis chain of random
transpositions started at the centre (:data:`MCMC_BURN_IN` sweeps of burn-in,
:data:`MCMC_THIN` sweeps between kept draws; a sweep is m proposals); it is approximate.

Centre (exact, complete data): ``sum_i w_i d_S(r_i, c) = const - 2 sum_j c_j M_j`` with
``M_j = sum_i w_i r_ij``, maximised by ordering the items by their weighted mean position
(rearrangement inequality; ties by item index).

Private module (trusted input); public through :class:`rankclust.models.Mallows`.

References
----------
Crispino, M., Mollica, C., Astuti, V. and Tardella, L. (2023). Efficient and accurate inference
for mixtures of Mallows models with Spearman distance. Statistics and Computing 33, 98.
Vitelli, V., Sørensen, Ø., Crispino, M., Frigessi, A. and Arjas, E. (2018). Probabilistic
preference learning with the Mallows rank model. JMLR 18(158).
"""

from __future__ import annotations

import functools
from importlib import resources

import numba
import numpy as np
from scipy.special import logsumexp

from rankclust.models import _mallows_counts as counts

#: Largest number of items with exact (shipped) Spearman distance counts.
EXACT_MAX_ITEMS = 20
#: Largest number of items sampled exactly (the subset programme is kept in memory).
EXACT_SAMPLER_MAX_ITEMS = 15
#: Importance-sampling draws of the approximation beyond EXACT_MAX_ITEMS, and its seed.
IS_DRAWS = 5000
IS_SEED = 20231015
#: Metropolis sampler beyond EXACT_SAMPLER_MAX_ITEMS: sweeps (m proposals each).
MCMC_BURN_IN = 200
MCMC_THIN = 10


# --------------------------------------------------------------------------------------------
# the subset programme (also run by tools/spearman_counts.py)
# --------------------------------------------------------------------------------------------
def _sum_ranges(masks, m, lo, width):  # pragma: no cover - compiled below
    """``lo[W]``, ``width[W]``: smallest partial sum and number of possible partial sums of
    ``sum p v`` giving the values of ``W`` to the last ``|W|`` positions (rearrangement)."""
    vals = np.empty(m, dtype=np.int64)
    for a in range(masks.shape[0]):
        w = masks[a]
        t = 0
        for v in range(m):
            if (w >> v) & 1:
                vals[t] = v
                t += 1
        first = m - t
        small = 0
        large = 0
        for k in range(t):
            large += (first + k) * vals[k]
            small += (first + k) * vals[t - 1 - k]
        lo[w] = small
        width[w] = large - small + 1


_nb_sum_ranges = numba.njit(_sum_ranges, cache=True)


def _layer_step(m, masks, lo, width, off_prev, data_prev, off_new, data_new):  # pragma: no cover
    """``A_W[S] = sum_{v in W} A_{W-v}[S - i v]`` for every ``W`` of one layer (``i = m-|W|``).

    ``A_W`` occupies ``data_new[off_new[W] : off_new[W] + width[W]]`` indexed by
    ``S - lo[W]``; the previous layer likewise in ``data_prev`` (both may be one array).
    """
    for a in range(masks.shape[0]):
        w = masks[a]
        t = 0
        for v in range(m):
            t += (w >> v) & 1
        i = m - t
        base = off_new[w]
        for v in range(m):
            if not (w >> v) & 1:
                continue
            u = w ^ (1 << v)
            shift = lo[u] + i * v - lo[w]
            start = off_prev[u]
            for s in range(width[u]):
                data_new[base + shift + s] += data_prev[start + s]


_nb_layer_step = numba.njit(_layer_step, cache=True)


def _draw_permutations(m, targets, u, lo, width, off, data, out):  # pragma: no cover
    """Uniform permutations with ``sum_p p sigma(p) = targets[n]`` into ``out[n]`` (values by
    position), walking the full subset table ``data`` forwards; ``u`` holds uniforms (n, m)."""
    full = (1 << m) - 1
    for n in range(targets.shape[0]):
        w = full
        rest = targets[n]
        for i in range(m):
            total = 0
            for v in range(m):
                if (w >> v) & 1:
                    x = w ^ (1 << v)
                    j = rest - i * v - lo[x]
                    if 0 <= j < width[x]:
                        total += data[off[x] + j]
            thresh = u[n, i] * total
            acc = 0.0
            chosen = -1
            for v in range(m):
                if (w >> v) & 1:
                    x = w ^ (1 << v)
                    j = rest - i * v - lo[x]
                    if 0 <= j < width[x] and data[off[x] + j] > 0:
                        chosen = v
                        acc += data[off[x] + j]
                        if acc > thresh:
                            break
            out[n, i] = chosen
            rest -= i * chosen
            w ^= 1 << chosen


_nb_draw_permutations = numba.njit(_draw_permutations, cache=True)


def _popcount_masks(m: int) -> list[np.ndarray]:
    """The subsets of ``0..m-1`` as bit masks, grouped by size."""
    masks = np.arange(1 << m, dtype=np.int64)
    pc = np.zeros(1 << m, dtype=np.int64)
    for v in range(m):
        pc += (masks >> v) & 1
    return [masks[pc == t] for t in range(m + 1)]


def subset_counts(m: int, *, keep_all: bool = False) -> tuple:
    """Count the permutations of ``m`` by ``S = sum_p p sigma(p)`` (the subset programme).

    Returns ``(lo_full, counts)`` (``counts[s]`` permutations with ``S = lo_full + s``), and
    with ``keep_all`` also the whole table ``(lo, width, off, data)`` for the sampler.

    Complexity: O(2^m m W) time for partial-sum ranges of width W <= m^3/6; memory the two
    largest adjacent layers (``keep_all``: every layer), about 1 GB at m = 20.
    """
    layers = _popcount_masks(m)
    lo = np.zeros(1 << m, dtype=np.int64)
    width = np.zeros(1 << m, dtype=np.int64)
    _nb_sum_ranges(np.arange(1 << m, dtype=np.int64), m, lo, width)
    off = np.zeros((1 << m) + 1, dtype=np.int64)
    starts = []
    pos = 0
    for t in range(m + 1):
        ms = layers[t]
        if not keep_all:
            pos = 0
        starts.append(pos)
        off[ms] = pos + np.concatenate(([0], np.cumsum(width[ms])[:-1]))
        pos += int(width[ms].sum())
    if keep_all:
        data = np.zeros(pos, dtype=np.int64)
        data[off[0]] = 1
        for t in range(1, m + 1):
            _nb_layer_step(m, layers[t], lo, width, off, data, off, data)
        full = (1 << m) - 1
        counts_full = data[off[full] : off[full] + width[full]].copy()
        return lo[full], counts_full, (lo, width, off, data)
    prev = np.ones(1, dtype=np.int64)
    for t in range(1, m + 1):
        new = np.zeros(int(width[layers[t]].sum()), dtype=np.int64)
        _nb_layer_step(m, layers[t], lo, width, off, prev, off, new)
        prev = new
    full = (1 << m) - 1
    return lo[full], prev


def half_distance_counts(m: int) -> np.ndarray:
    """``N_m(2h)`` for ``h = 0, ..., (m^3 - m)/6`` by the subset programme (exact int64)."""
    if m <= 1:
        return np.ones(1, dtype=np.int64)
    c = subset_counts(m)[1]
    # h = sum p^2 - S: S runs up from its minimum to sum p^2 (the identity), h down to 0
    return c[::-1].copy()


# --------------------------------------------------------------------------------------------
# the shipped table and the distance distribution
# --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _shipped_counts() -> dict[int, np.ndarray]:
    """The exact table ``{m: N_m(2h), h = 0..}`` for m = 1..20 (Python ints, as shipped)."""
    text = resources.files("rankclust.models").joinpath("data/spearman_counts.txt").read_text()
    table: dict[int, np.ndarray] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, _, body = line.partition(":")
        table[int(head)] = np.array([int(x) for x in body.split()], dtype=object)
    return table


def exact_half_distance_counts(m: int) -> np.ndarray:
    """Exact ``N_m(2h)`` (object array of Python ints) for ``1 <= m <= 20``, from the table."""
    return _shipped_counts()[m]


@functools.lru_cache(maxsize=64)
def distance_distribution(m: int) -> tuple[np.ndarray, np.ndarray]:
    """``(support, log_counts)`` of the Spearman distance for ``m <= EXACT_MAX_ITEMS``."""
    if m <= 1:
        return np.zeros(1), np.zeros(1)
    c = exact_half_distance_counts(m)
    keep = np.array([x > 0 for x in c])
    support = 2.0 * np.flatnonzero(keep)
    log_c = np.array([float(np.log(float(x))) for x in c[keep]])
    return support, log_c


# --------------------------------------------------------------------------------------------
# the approximation beyond EXACT_MAX_ITEMS
# --------------------------------------------------------------------------------------------
def _importance_draws(theta, u, log_w, dist):  # pragma: no cover - compiled below
    """Sequential proposals: position p takes a free value v w.p. ∝ exp(-theta (v-p)^2).

    Fills the log importance weight ``-theta d_S - log q`` and ``d_S`` of each draw.
    """
    n, m = u.shape
    free = np.empty(m, dtype=np.bool_)
    prob = np.empty(m)
    for a in range(n):
        free[:] = True
        lq = 0.0
        d = 0.0
        for p in range(m):
            best = np.inf
            for v in range(m):
                if free[v]:
                    best = min(best, (v - p) * (v - p))
            total = 0.0
            for v in range(m):
                prob[v] = np.exp(-theta * ((v - p) * (v - p) - best)) if free[v] else 0.0
                total += prob[v]
            thresh = u[a, p] * total
            acc = 0.0
            chosen = -1
            for v in range(m):
                if free[v]:
                    chosen = v
                    acc += prob[v]
                    if acc > thresh:
                        break
            lq += np.log(prob[chosen] / total)
            free[chosen] = False
            d += (chosen - p) * (chosen - p)
        log_w[a] = -theta * d - lq
        dist[a] = d


_nb_importance_draws = numba.njit(_importance_draws, cache=True)


@functools.lru_cache(maxsize=256)
def _importance_sample(theta: float, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Log importance weights and distances of :data:`IS_DRAWS` sequential proposals."""
    u = np.random.RandomState(IS_SEED).random_sample((IS_DRAWS, m))
    log_w = np.empty(IS_DRAWS)
    dist = np.empty(IS_DRAWS)
    _nb_importance_draws(float(theta), u, log_w, dist)
    return log_w, dist


def _approx(theta: float, m: int) -> tuple[float, float, float]:
    lw, dist = _importance_sample(float(theta), m)
    log_z = float(logsumexp(lw) - np.log(lw.shape[0]))
    p = np.exp(lw - logsumexp(lw))
    mean = float(p @ dist)
    var = float(p @ (dist - mean) ** 2)
    return log_z, mean, var


def _uniform_moments(m: int) -> tuple[float, float]:
    """Exact mean and variance of ``d_S`` under the uniform model."""
    return (m**3 - m) / 6.0, m * m * (m - 1) * (m + 1) ** 2 / 36.0


# --------------------------------------------------------------------------------------------
# the family contract
# --------------------------------------------------------------------------------------------
def log_normalizer(theta: float, m: int) -> float:
    """``log Z_m(theta)``: exact for m <= 20, importance sampling beyond (module docstring)."""
    if m <= EXACT_MAX_ITEMS:
        support, log_c = distance_distribution(m)
        return counts.log_normalizer(log_c, support, theta)
    if theta == 0:
        return float(np.sum(np.log(np.arange(1, m + 1))))
    return _approx(theta, m)[0]


def expected_distance(theta: float, m: int) -> float:
    """``E_theta d_S``: exact for m <= 20, importance sampling beyond."""
    if m <= EXACT_MAX_ITEMS:
        support, log_c = distance_distribution(m)
        return counts.moments(log_c, support, theta)[0]
    if theta == 0:
        return _uniform_moments(m)[0]
    return _approx(theta, m)[1]


def distance_variance(theta: float, m: int) -> float:
    """``Var_theta d_S``: exact for m <= 20, importance sampling beyond."""
    if m <= EXACT_MAX_ITEMS:
        support, log_c = distance_distribution(m)
        return counts.moments(log_c, support, theta)[1]
    if theta == 0:
        return _uniform_moments(m)[1]
    return _approx(theta, m)[2]


@functools.lru_cache(maxsize=2)
def _sampler_table(m: int) -> tuple:
    return subset_counts(m, keep_all=True)


def _metropolis(m, theta, n_out, burn, thin, ia, ib, u, out):  # pragma: no cover
    """Random-transposition Metropolis chain for ``exp(-theta sum_p (s_p - p)^2)`` from the
    identity; ``ia, ib, u`` are the proposals' positions and uniforms."""
    sigma = np.arange(m)
    step = 0
    for n in range(-burn, n_out * thin):
        a = ia[step]
        b = ib[step]
        x = sigma[a]
        y = sigma[b]
        delta = (y - a) ** 2 + (x - b) ** 2 - (x - a) ** 2 - (y - b) ** 2
        if delta <= 0 or u[step] < np.exp(-theta * delta):
            sigma[a] = y
            sigma[b] = x
        step += 1
        if n >= 0 and (n + 1) % thin == 0:
            out[(n + 1) // thin - 1] = sigma


_nb_metropolis = numba.njit(_metropolis, cache=True)


def sample(center: np.ndarray, theta: float, size: int, rng: np.random.RandomState) -> np.ndarray:
    """Draws from Spearman-Mallows(center, theta): ``(size, m)`` int64 positions.

    Exact for m <= :data:`EXACT_SAMPLER_MAX_ITEMS` (the distance by its pmf, then a uniform
    permutation at that distance through the subset table); a Metropolis chain of random
    transpositions beyond (approximate; burn-in and thinning in the module docstring).
    ``pi = sigma[center]``, so ``d_S(pi, center) = d_S(sigma, identity)``.
    O(size m^2) time exact (after an O(2^m m W) table), O(size m * MCMC_THIN) by MCMC.
    """
    center = np.asarray(center, dtype=np.int64)
    m = center.shape[0]
    if m <= 1 or size == 0:
        return np.broadcast_to(center, (size, m)).astype(np.int64)
    if m <= EXACT_SAMPLER_MAX_ITEMS:
        lo_full, c, (lo, width, off, data) = _sampler_table(m)
        # S = lo_full + s; d_S = 2 (sum p^2 - S)
        sq = sum(p * p for p in range(m))
        d = 2.0 * (sq - (lo_full + np.arange(c.shape[0])))
        keep = c > 0
        idx = counts.sample_distances(np.log(c[keep].astype(float)), d[keep], theta, size, rng)
        targets = (lo_full + np.flatnonzero(keep))[idx].astype(np.int64)
        sigma = np.empty((size, m), dtype=np.int64)
        _nb_draw_permutations(
            m, targets, rng.random_sample((size, m)), lo, width, off, data, sigma
        )
    else:
        steps = (MCMC_BURN_IN + size * MCMC_THIN) * m
        ia = rng.randint(m, size=steps)
        ib = rng.randint(m, size=steps)
        uu = rng.random_sample(steps)
        sigma = np.empty((size, m), dtype=np.int64)
        _nb_metropolis(m, float(theta), size, MCMC_BURN_IN * m, MCMC_THIN * m, ia, ib, uu, sigma)
    return sigma[:, center]


def estimate_center(ranks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted Spearman median (exact): items ordered by their weighted mean position.

    O(n m + m log m) time, O(m) memory.
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    score = weights @ ranks
    order = np.argsort(score, kind="stable")
    center = np.empty(ranks.shape[1], dtype=np.int64)
    center[order] = np.arange(ranks.shape[1])
    return center
