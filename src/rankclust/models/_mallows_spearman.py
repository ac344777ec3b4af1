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

Beyond 20 items (approximation, stated). ``Z_m(theta)`` is the permanent of
``K = [exp(-theta (p - v)^2)]``. Two facts make it extrapolable from the exact sizes:

* for theta >= :data:`EXTRAPOLATE_FROM` (0.2) the correlation length ``~ 1/sqrt(theta)`` is
  far below 20 items and ``log Z_m`` is linear in m to machine precision, so
  ``log Z_m = log Z_20 + (m - 20)(log Z_20 - log Z_19)``;
* for smaller theta the Bethe free energy of ``K`` at its Sinkhorn (doubly stochastic)
  scaling, ``B_m(theta)``, carries the non-linear part (at theta = 0 it misses ``log m!`` by
  ``g_m ~ log sqrt(2 pi m / e)``, known exactly), and the remaining error
  ``delta_m = log Z_m - B_m`` is extrapolated from m = 18, 19, 20: linearly, plus the share
  ``rho`` of the theta = 0 curvature ``g_m`` that its second difference shows;

with a linear blend on [:data:`BETHE_UNTIL`, :data:`EXTRAPOLATE_FROM`]. The result is
deterministic and smooth in theta; ``E d_S`` is its exact derivative (complex step) and
``Var d_S`` a difference of that. Checked out of sample by running the same method from the
exact sizes 12..14 and comparing with the exact values for m = 15..20 at 30 values of theta
in [1e-4, 3] (tests/models/test_mallows_distances.py): ``|error of log Z| <= 0.016``, relative
errors of ``E d_S`` <= 0.4% and of ``Var d_S`` <= 1.5%; from base 20 the error grows with
``m - 20``. One evaluation at m = 50 costs about 7 ms (Sinkhorn on m x m, cached per theta).
(MSmix instead fits a parametric curve to the log-frequencies beyond 20 items, Crispino et
al. 2023.) Sampling beyond 15 items is a Metropolis chain of random
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
Vontobel, P. O. (2013). The Bethe permanent of a nonnegative matrix. IEEE Transactions on
Information Theory 59, 1866-1901.
"""

from __future__ import annotations

import functools
import math
from importlib import resources

import numba
import numpy as np

from rankclust.models import _mallows_counts as counts

#: Largest number of items with exact (shipped) Spearman distance counts.
EXACT_MAX_ITEMS = 20
#: Largest number of items sampled exactly (the subset programme is kept in memory).
EXACT_SAMPLER_MAX_ITEMS = 15
#: The approximation beyond EXACT_MAX_ITEMS: Bethe-corrected extrapolation up to
#: BETHE_UNTIL, plain extrapolation of log Z from EXTRAPOLATE_FROM, linear blend between.
BETHE_UNTIL = 0.1
EXTRAPOLATE_FROM = 0.2
SINKHORN_MAX_SWEEPS = 20000
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
def _log_z_exact(theta: complex, m: int) -> complex:
    """Exact ``log Z_m`` for ``m <= EXACT_MAX_ITEMS`` at a real or complex theta."""
    support, log_c = distance_distribution(m)
    a = log_c - theta * support
    top = a.real.max()
    return top + np.log(np.sum(np.exp(a - top)))


@functools.lru_cache(maxsize=4096)
def _bethe(theta: complex, m: int) -> complex:
    """Bethe free energy of ``K = exp(-theta (p - v)^2)`` at its Sinkhorn scaling ``P``.

    ``-sum log r - sum log c + sum (1 - P) log(1 - P)`` for ``P = diag(r) K diag(c)`` doubly
    stochastic (Vontobel's Bethe permanent functional evaluated at ``P``); analytic in
    theta, so a complex step differentiates it. O(I m^2) for I Sinkhorn sweeps.
    """
    p = np.arange(m, dtype=np.float64)
    kern = np.exp(-theta * (p[:, None] - p[None, :]) ** 2)
    c = np.ones(m, dtype=kern.dtype)
    r = c
    for _ in range(SINKHORN_MAX_SWEEPS):
        r = 1.0 / (kern @ c)
        c_new = 1.0 / (kern.T @ r)
        done = np.max(np.abs(c_new.real - c.real) / np.abs(c.real)) < 1e-15
        c = c_new
        if done:
            break
    r = 1.0 / (kern @ c)
    q = 1.0 - r[:, None] * kern * c[None, :]
    safe = np.where(np.abs(q) > 1e-300, q, 1.0)
    return -np.sum(np.log(r)) - np.sum(np.log(c)) + np.sum(q * np.log(safe))


def _bethe_error(theta: complex, m: int) -> complex:
    """``log Z_m - Bethe_m`` for an exactly known size m."""
    return _log_z_exact(theta, m) - _bethe(theta, m)


def _extrapolated(theta: complex, m: int, base: int) -> complex:
    """The approximation of ``log Z_m(theta)`` from the exact sizes ``base-2 .. base``."""
    plain = _log_z_exact(theta, base)
    plain = plain + (m - base) * (plain - _log_z_exact(theta, base - 1))
    if theta.real >= EXTRAPOLATE_FROM:
        return plain
    d = [_bethe_error(theta, base - k) for k in range(3)]
    g = [_bethe_error(0.0, base - k) for k in range(3)]  # = log n! - Bethe_n(0)
    rho = (d[0] - 2 * d[1] + d[2]) / (g[0] - 2 * g[1] + g[2])
    rho = 0.0 if rho.real < 0 else (1.0 if rho.real > 1 else rho)
    g_m = math.lgamma(m + 1) - _bethe(0.0, m).real
    bethe = (
        _bethe(theta, m)
        + d[0]
        + (m - base) * (d[0] - d[1])
        + rho * (g_m - g[0] - (m - base) * (g[0] - g[1]))
    )
    w = (theta - BETHE_UNTIL) / (EXTRAPOLATE_FROM - BETHE_UNTIL)
    if theta.real <= BETHE_UNTIL:
        return bethe
    return w * plain + (1.0 - w) * bethe


def _approx(theta: float, m: int, base: int = EXACT_MAX_ITEMS) -> tuple[float, float, float]:
    """``(log Z_m, E d_S, Var d_S)`` beyond the exact range (module docstring).

    ``E = -d log Z / d theta`` by a complex step (exact to rounding), ``Var = -dE/dtheta``
    by a central difference of E. ``base`` is the last exact size (lowered by the tests to
    check the method against exact values).
    """
    theta = float(theta)
    log_z = float(_extrapolated(complex(theta), m, base).real)

    def mean(t: float) -> float:
        return float(-_extrapolated(complex(t, 1e-30), m, base).imag / 1e-30)

    h = 1e-4 * max(theta, 1e-3)
    lo = max(theta - h, 0.0)
    var = -(mean(theta + h) - mean(lo)) / (theta + h - lo)
    return log_z, mean(theta), max(var, 0.0)


def _uniform_moments(m: int) -> tuple[float, float]:
    """Exact mean and variance of ``d_S`` under the uniform model."""
    return (m**3 - m) / 6.0, m * m * (m - 1) * (m + 1) ** 2 / 36.0


# --------------------------------------------------------------------------------------------
# the family contract
# --------------------------------------------------------------------------------------------
def log_normalizer(theta: float, m: int) -> float:
    """``log Z_m(theta)``: exact for m <= 20, the extrapolation beyond (module docstring)."""
    if m <= EXACT_MAX_ITEMS:
        support, log_c = distance_distribution(m)
        return counts.log_moments(theta, log_c, support)[0]
    if theta == 0:
        return float(np.sum(np.log(np.arange(1, m + 1))))
    return _approx(theta, m)[0]


def expected_distance(theta: float, m: int) -> float:
    """``E_theta d_S``: exact for m <= 20, the extrapolation beyond."""
    if m <= EXACT_MAX_ITEMS:
        support, log_c = distance_distribution(m)
        return counts.log_moments(theta, log_c, support)[1]
    if theta == 0:
        return _uniform_moments(m)[0]
    return _approx(theta, m)[1]


def distance_variance(theta: float, m: int) -> float:
    """``Var_theta d_S``: exact for m <= 20, the extrapolation beyond."""
    if m <= EXACT_MAX_ITEMS:
        support, log_c = distance_distribution(m)
        return counts.log_moments(theta, log_c, support)[2]
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
        idx = counts.sample_distances(theta, np.log(c[keep].astype(float)), d[keep], size, rng)
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
