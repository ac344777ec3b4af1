"""The stage-wise mathematics of the Kendall-Mallows model, written once (package toolkit).

Every estimator that needs a Mallows normaliser, the moments of the Kendall statistic or a
dispersion estimate reads them from here: :mod:`rankclust.models.mallows` (the public
:func:`~rankclust.models.mallows.log_normalizer`, ``expected_distance``,
``distance_variance`` and ``theta_mle``), the mixtures (:mod:`rankclust.cluster.mixture`,
through :mod:`rankclust.cluster._mixture_kernels`) and the label-ranking tree (its table of
expected distances). Inputs are trusted; the public functions validate.

Stage-wise form (Fligner & Verducci 1986): the Kendall distance of a Mallows draw to its
centre is a sum of independent truncated geometric variables ``V`` on ``{0..k-1}``,
``k = 1..m``, with ``P(V = v) ∝ exp(-theta v)``. Hence, per stage ``k``:

* :func:`stage_log_qint` -- ``log [k]_q = log (1 - q^k)/(1 - q)``, ``q = e^-theta`` (the
  normaliser is their sum);
* :func:`stage_means` -- ``E V = 1/expm1(theta) - k/expm1(k theta)``;
* :func:`stage_variances` -- ``Var V = 1/(4 sinh^2(theta/2)) - k^2/(4 sinh^2(k theta/2))``.

:func:`length_tables` sums them over the stages a ranking of length ``l`` uses (top-l lists:
the ``l`` largest ``k``; a subset ranking of ``l`` items: ``k = 1..l``), and
:func:`solve_thetas` is **the** dispersion solver: the roots of ``sum_l N_l mu_l(theta) =
S`` for any number of components at once (``theta_mle`` is its one-component case).

Compiled copies (numba cannot call these numpy functions) -- keep in sync, each is pinned to
this module by ``tests/models/test_mallows_math.py``:

* ``_stage_mean`` and ``_stage_variance`` below (scalar :func:`stage_means` and
  :func:`stage_variances`, used by the compiled Newton iteration of :func:`solve_thetas`);

* ``rankclust.models._mallows_kernels._log_qint`` (scalar :func:`stage_log_qint`, used by
  the exact subset likelihood);
* ``rankclust.label_ranking._tree_kernels._theta_from_mean`` / ``_theta_lookup`` (the
  solver read off a table of :func:`length_tables` means on a grid, by interpolation).
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = [
    "STAGE_TABLES",
    "length_tables",
    "log1mexp",
    "solve_thetas",
    "stage_log_qint",
    "stage_means",
    "stage_variances",
    "tail_start",
]

# series switch for 1/expm1(x) - k/expm1(k x) (see stage_means)
_SERIES_BELOW = 1e-2
_LN2 = math.log(2.0)


def log1mexp(x: np.ndarray) -> np.ndarray:
    """``log(1 - exp(-x))`` for ``x > 0``, accurate at both ends (Mächler 2012)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x <= _LN2, np.log(-np.expm1(-x)), np.log1p(-np.exp(-x)))


def stage_log_qint(theta: np.ndarray, m: int) -> np.ndarray:
    """``log [k]_q`` for ``k = 1..m`` (columns), one row per theta; theta >= 0 (inf allowed)."""
    th = theta[:, None]
    ks = np.arange(1, m + 1, dtype=np.float64)[None, :]
    with np.errstate(invalid="ignore"):
        val = log1mexp(ks * th) - log1mexp(th)
    return np.where(th == 0.0, np.log(ks), val)


def stage_means(theta: np.ndarray, m: int) -> np.ndarray:
    """``E V`` for ``V`` truncated geometric on ``{0..k-1}``, ``k = 1..m`` (columns).

    ``1/expm1(theta) - k/expm1(k theta)``; for ``k theta < 1e-2`` the Bernoulli series
    ``(k-1)/2 - (k^2-1) theta/12 + (k^4-1) theta^3/720`` avoids the cancellation (its error is
    below ``k (k theta)^5 / 30240``).
    """
    th = theta[:, None]
    ks = np.arange(1, m + 1, dtype=np.float64)[None, :]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        direct = 1.0 / np.expm1(th) - ks / np.expm1(ks * th)
        series = (ks - 1) / 2 - (ks**2 - 1) * th / 12 + (ks**4 - 1) * th**3 / 720
    return np.where(ks * th < _SERIES_BELOW, series, direct)


def stage_variances(theta: np.ndarray, m: int) -> np.ndarray:
    """``Var V`` for ``V`` truncated geometric on ``{0..k-1}``, ``k = 1..m`` (columns).

    ``1/(4 sinh^2(theta/2)) - k^2/(4 sinh^2(k theta/2))``; for ``k theta < 1e-2`` the series
    ``(k^2-1)/12 - (k^4-1) theta^2/240 + (k^6-1) theta^4/6048`` avoids the cancellation.
    """
    th = theta[:, None]
    ks = np.arange(1, m + 1, dtype=np.float64)[None, :]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        direct = 0.25 / np.sinh(th / 2) ** 2 - ks**2 * 0.25 / np.sinh(ks * th / 2) ** 2
        series = (ks**2 - 1) / 12 - (ks**4 - 1) * th**2 / 240 + (ks**6 - 1) * th**4 / 6048
    out = np.where(ks * th < _SERIES_BELOW, series, direct)
    return np.where(np.isinf(th), 0.0, np.maximum(out, 0.0))


#: Stage tables by name: ``f(thetas (u,), m) -> (u, m)``, column ``k - 1`` for ``k = 1..m``.
STAGE_TABLES = {"log": stage_log_qint, "mean": stage_means, "var": stage_variances}


def length_tables(
    thetas: np.ndarray, m: int, kind: str, which: tuple[str, ...] = ("log", "mean", "var")
) -> tuple[np.ndarray, ...]:
    """Log-normaliser, mean and variance of the statistic per length and dispersion.

    Returns one array of shape (m + 1, K) per name in ``which`` (``"log"``, ``"mean"``,
    ``"var"``; keys of :data:`STAGE_TABLES`), indexed by the row length ``l``:

    * ``kind="top"``: Busse et al.'s top-l quantities, sums over the stages
      ``k = m-l+1..m`` (``log psi^l``, ``mu_l``, ``v_l``); ``l = m`` is the complete model;
    * ``kind="subset"``: the complete Mallows model on the ``l`` observed items, sums over
      ``k = 1..l`` (the observed-pairs likelihood).

    Complexity: O(K m) time and memory.
    """
    th = np.asarray(thetas, dtype=np.float64)
    out = []
    for name in which:
        fn = STAGE_TABLES[name]
        table = fn(th, m) if m else np.zeros((len(th), 0))  # (K, m), column k-1 for k = 1..m
        if kind == "top":
            cs = np.cumsum(table[:, ::-1], axis=1)
        else:
            cs = np.cumsum(table, axis=1)
        full = np.zeros((len(th), m + 1))
        full[:, 1:] = cs
        out.append(full.T)
    return tuple(out)


def tail_start(counts: np.ndarray, stats: np.ndarray, m: int, kind: str) -> np.ndarray:
    """A start for :func:`solve_thetas` without a warm one: ``max(1, log(A / stats))``.

    For large theta every stage with ``k >= 2`` has ``E V ~ e^-theta``, so
    ``sum_l counts[l] mu_l(theta) ~ A e^-theta`` with ``A`` the weighted number of such
    stages; its root is a start from which Newton needs a few steps instead of about one per
    unit of theta. Shape (K,).
    """
    ell = np.arange(m + 1)
    stages = np.minimum(ell, m - 1) if kind == "top" else np.maximum(ell - 1, 0)
    a = counts @ stages.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        guess = np.log(a / stats)
    return np.where(np.isfinite(guess), np.maximum(guess, 1.0), 1.0)


def solve_thetas(
    counts: np.ndarray,
    stats: np.ndarray,
    m: int,
    kind: str,
    theta0: np.ndarray,
    theta_max: float,
    *,
    xtol: float = 1e-12,
    max_iter: int = 100,
    scale: np.ndarray | None = None,
) -> np.ndarray:
    """Roots of ``g_k(theta) = sum_l counts[k, l] mu_l(theta) - stats[k]`` for all k.

    The one dispersion solver of the package (the score equation of the Mallows likelihood
    in theta for fixed centres). ``mu_l`` is strictly decreasing (its derivative is
    ``-v_l < 0``), so each root is unique: 0 when ``stats[k]`` reaches the uniform value
    ``sum_l counts[k, l] mu_l(0)``, ``theta_max`` when ``g_k(theta_max) >= 0`` (e.g. all
    weight at the centre, where the MLE is infinite). Newton steps from ``theta0`` are kept
    inside a shrinking bracket ``[lo, hi]`` (bisection when a step leaves it), which
    converges for any start; a component stops when its step is at most
    ``xtol * max(1, theta)`` (the step is taken, so the error is far below ``xtol``) or its
    residual is at rounding level.

    Parameters
    ----------
    counts : ndarray, shape (K, m + 1)
        Weighted number of rows of each length per component.
    stats : ndarray, shape (K,)
        Weighted sum of the statistic per component.
    m : int
    kind : {"top", "subset"}
        Which stages a length uses (see :func:`length_tables`).
    theta0 : ndarray, shape (K,)
        Starts (a warm start from the previous EM iteration takes a few steps).
    theta_max : float
        Finite cap.
    xtol : float, default=1e-12
    max_iter : int, default=100
        Iterations besides the about ``theta_max`` that a root deep in the exponential tail
        may need from a start near 0.
    scale : ndarray, shape (K,), optional
        Total weight per component for the rounding-level test of the residual (default
        ``counts.sum(axis=1)``). Pass it when ``counts`` has negative entries (rankings with
        ties: a negative count per bucket, see :mod:`rankclust.models._mallows_ties`), whose
        sum is no weight.

    Complexity: O(K m) per iteration; a few iterations from a warm start.
    """
    theta = np.clip(np.asarray(theta0, dtype=np.float64), 0.0, theta_max)
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    stats = np.ascontiguousarray(stats, dtype=np.float64)
    scale = np.maximum(counts.sum(axis=1) if scale is None else scale, 1e-300)
    # from below, in the exponential tail (theta >> 1, mu ~ c e^-theta), a Newton step moves
    # theta by about 1: allow that many extra steps so a large cap is always reached
    n_iter = max_iter + int(np.ceil(min(theta_max, 1e6)))
    out = np.empty(counts.shape[0])
    _solve_thetas(
        counts, stats, m, kind == "top", theta, float(theta_max), xtol, n_iter,
        np.ascontiguousarray(scale, dtype=np.float64), out,
    )  # fmt: skip
    return out


# --------------------------------------------------------------------------------------------
# the solver, compiled (one Newton iteration in numpy was about 100 us of array overhead for
# a few components: 18 % of a SUSHI A Mallows select_k); its stage moments are compiled
# copies of stage_means / stage_variances, pinned to them by tests/models/test_mallows_math.py
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _stage_mean(theta, k):  # pragma: no cover - compiled
    """:func:`stage_means` at one ``theta`` and stage ``k`` (a float)."""
    if k * theta < _SERIES_BELOW:
        return (k - 1) / 2 - (k**2 - 1) * theta / 12 + (k**4 - 1) * theta**3 / 720
    return 1.0 / math.expm1(theta) - k / math.expm1(k * theta)


@numba.njit(cache=True, nogil=True)
def _stage_variance(theta, k):  # pragma: no cover - compiled
    """:func:`stage_variances` at one ``theta`` and stage ``k`` (a float)."""
    if math.isinf(theta):
        return 0.0
    if k * theta < _SERIES_BELOW:
        out = (k**2 - 1) / 12 - (k**4 - 1) * theta**2 / 240 + (k**6 - 1) * theta**4 / 6048
    else:
        out = 0.25 / math.sinh(theta / 2) ** 2 - k**2 * 0.25 / math.sinh(k * theta / 2) ** 2
    return max(out, 0.0)


@numba.njit(cache=True, nogil=True)
def _weighted_moments(counts, k, theta, m, top, with_variance):  # pragma: no cover
    """``(sum_l counts[k, l] mu_l(theta), sum_l counts[k, l] v_l(theta))``, the lengths'
    stages summed as :func:`length_tables` does (top: stages m, m-1, ...; subset: 1, 2, ...)."""
    mu = 0.0
    var = 0.0
    g = 0.0
    dg = 0.0
    for ell in range(1, m + 1):
        stage = float(m - ell + 1 if top else ell)
        mu += _stage_mean(theta, stage)
        if with_variance:
            var += _stage_variance(theta, stage)
        g += counts[k, ell] * mu
        dg += counts[k, ell] * var
    return g, dg


@numba.njit(cache=True, nogil=True)
def _solve_thetas(
    counts, stats, m, top, theta0, theta_max, xtol, n_iter, scale, out
):  # pragma: no cover - compiled
    """:func:`solve_thetas` for every component, written into ``out``."""
    for k in range(counts.shape[0]):
        upper, _ = _weighted_moments(counts, k, 0.0, m, top, False)
        low_end, _ = _weighted_moments(counts, k, theta_max, m, top, False)
        s = stats[k]
        if s <= low_end or upper <= 0:
            out[k] = theta_max
            continue
        if s >= upper:
            out[k] = 0.0
            continue
        th = theta0[k]
        if th <= 0 or th >= theta_max:
            th = 1.0
        lo = 0.0
        hi = theta_max
        for _ in range(n_iter):
            g, dg = _weighted_moments(counts, k, th, m, top, True)
            g -= s
            dg = -dg
            if g > 0:
                lo = th
            if g < 0:
                hi = th
            # g at rounding level; relative to the statistic when the mean is below 1 (large
            # theta), where a test relative to the weight alone stopped early (1e-8 off)
            small_g = abs(g) <= 1e-14 * min(scale[k], s)
            new = th - g / dg if dg < 0 else np.inf
            # a Newton step that leaves the bracket is replaced by bisection
            if not np.isfinite(new) or new < lo or new > hi:
                new = 0.5 * (lo + hi)
            if small_g:
                new = th
            done = small_g or abs(new - th) <= xtol * max(1.0, th)
            th = new
            if done:
                break
        out[k] = th
