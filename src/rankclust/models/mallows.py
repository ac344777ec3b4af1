"""The Kendall-Mallows model for complete, subset (sub-ranking) and top-t ranking data.

Parametrisation
---------------
For complete rankings of ``m`` items, written as position vectors (``pi[j]`` = 0-based
position of item ``j``, see :mod:`rankclust.rankings`),

.. math:: P(\\pi \\mid c, \\theta) = \\exp(-\\theta\\, d_K(\\pi, c)) / \\psi_m(\\theta),
          \\qquad \\psi_m(\\theta) = \\prod_{k=1}^{m} \\frac{1 - e^{-k\\theta}}{1 - e^{-\\theta}},

with the **centre** ``c`` (a position vector, the unique mode), the **dispersion**
``theta >= 0`` (0 = uniform, large = peaked) and Kendall's distance ``d_K`` (number of
discordant pairs). This is eq. (2) of Cheng et al. (2009), whose ``theta`` and ``phi(theta)``
are ours, and eq. (1) of Busse et al. (2007) with ``d = d_tau``, whose dispersion ``lambda``
is our ``theta`` (their ``sigma`` is our ``c``, their ``Z`` our ``psi``).

Stage-wise form (Fligner & Verducci 1986). Listing the ranking best first, let ``V_j`` be the
number of items still unplaced after position ``j`` that the centre puts above the item at
position ``j``. Then ``d_K = sum_j V_j`` and, under the model, the ``V_j`` are independent
truncated geometric variables on ``{0, ..., m - j}`` (1-based ``j``) with
``P(V_j = v) ∝ exp(-theta v)``. Every formula below follows from this:

* normaliser: ``log psi = sum_k log [k]_q`` with ``[k]_q = (1 - q^k)/(1 - q)``, ``q = e^-theta``
  (:func:`log_normalizer`);
* expected distance: ``E d_K = sum_{k=1}^{m} (1/(e^theta - 1) - k/(e^{k theta} - 1))``
  (:func:`expected_distance`), strictly decreasing from ``m(m-1)/4`` to 0, so the MLE of
  ``theta`` is the unique root of ``E_theta d_K = mean distance`` (:func:`theta_mle`);
* **top-t lists** (``kind="top"``, Busse et al. 2007, eqs. 9-10): the probability of the set
  of all completions of a top-t list is ``exp(-theta s^t) / psi^t(theta)`` with
  ``s^t = V_1 + ... + V_t`` (the discordant pairs among the present items and between a
  present and an absent item, which is :func:`rankclust.distances.kendall_distances` of a
  ``kind="top"`` ranking) and ``log psi^t = sum_{k=m-t+1}^{m} log [k]_q``; the top-t MLE of
  ``theta`` solves ``sum_t N_t mu_t(theta) = sum_i w_i s^{t_i}_i`` with
  ``mu_t = E(V_1 + ... + V_t)`` (Busse et al., eq. 14, with weights);
* exact sampling: draw ``V_1, V_2, ...`` and pick the ``V_j``-th best remaining item of the
  centre (repeated insertion read from the top; a top-t list needs only t draws).

**Subset data** (``kind="subset"``, Cheng et al. 2009, Sec. 4.2): a ranking of k of the m
items, the others unknown. Its probability is the sum of the model over all consistent
extensions (eq. 5). :func:`mallows_loglik` computes that sum **exactly** by one of two dynamic
programmes (see its Notes); fitting uses the paper's approximate ("hard") EM, which
alternates Proposition 1's most probable extension (:func:`most_probable_extension`) with a
complete-data fit.

**Ties** (bucket orders, every kind): a tied bucket means the order inside it is unknown, so
the likelihood of a tied ranking is the total probability of the complete rankings
consistent with it. For complete and top-t rankings this has a closed form, and the centre
(Kemeny of the strict pairwise counts) and theta (a modified score equation) are the exact
MLE; see :mod:`rankclust.models._mallows_ties`. A tied subset ranking's likelihood sums the
exact subset marginal over the orders of its buckets; its fit is the approximate EM with
ties ordered by the centre (the most probable completion). Untied data take the code paths
above unchanged.

Functions used by the mixture models
------------------------------------
:func:`mallows_loglik` (per-row log-likelihood, every kind), :func:`estimate_center` and
:func:`estimate_theta` (weighted M-step, every kind), :func:`theta_mle`,
:func:`log_normalizer`, :func:`expected_distance`, :func:`distance_variance`,
:func:`sample_mallows`.

References
----------
.. [1] Mallows, C. L. (1957). Non-null ranking models. I. Biometrika 44, 114-130.
.. [2] Fligner, M. A. and Verducci, J. S. (1986). Distance based ranking models. JRSS B 48,
       359-369.
.. [3] Busse, L. M., Orbanz, P. and Buhmann, J. M. (2007). Cluster analysis of heterogeneous
       rank data. ICML.
.. [4] Cheng, W., Hühn, J. and Hüllermeier, E. (2009). Decision tree and instance-based
       learning for label ranking. ICML.
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings
from typing import Any

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust import consensus
from rankclust._compiled import closest_extension
from rankclust._mallows_math import length_tables, solve_thetas, tail_start
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
    check_sample_weight,
    check_weight_total,
    validate_arguments,
)
from rankclust.consensus import generalized_borda
from rankclust.distances import kendall_distances
from rankclust.models import _mallows_partial as partial
from rankclust.models import _mallows_ties as ties
from rankclust.models._mallows_distances import MALLOWS_DISTANCES
from rankclust.models._mallows_distances import theta_mle as _family_theta_mle
from rankclust.models._mallows_kernels import (
    _nb_sample_rankings,
    _nb_subset_logmass_bitmask,
    _nb_subset_logmass_compositions,
)
from rankclust.rankings import KINDS, Rankings, check_rankings

__all__ = [
    "CENTER_METHODS",
    "MALLOWS_DISTANCES",
    "SUBSET_DP_MAX_WORK",
    "THETA_MAX",
    "Mallows",
    "distance_variance",
    "estimate_center",
    "estimate_theta",
    "expected_distance",
    "log_normalizer",
    "mallows_loglik",
    "most_probable_extension",
    "sample_mallows",
    "theta_mle",
]

# for the mixtures' tied likelihood (not in __all__; home: rankclust.models._mallows_ties)
bucket_size_counts = ties.bucket_size_counts
# for the mixtures' partial rows under other distances (not in __all__; home:
# rankclust.models._mallows_partial)
COMPLETION_CAP = partial.COMPLETION_CAP
EM_TOTAL_CAP = partial.EM_TOTAL_CAP
completions = partial.completions
n_completions = partial.n_completions
first_row_over_cap = partial.first_row_over_cap

#: Default cap of the dispersion MLE, returned when every ranking sits at the centre (the
#: unbounded MLE). At theta = 50 the mass off the centre is about (m - 1) e^-50 < 1e-16 for
#: m up to 5e5 items, so the pmf equals the point mass to double precision, while logpdf of
#: other rankings stays finite (-50 per discordant pair), which keeps mixture E-steps
#: well defined. Busse et al.'s suggested lambda_max is the same 50.
THETA_MAX = 50.0

#: Centre estimators accepted by :class:`Mallows` and :func:`estimate_center`: keys of the
#: package's one registry :data:`rankclust.consensus.CENTER_METHODS`.
CENTER_METHODS = ("auto", "borda", "kemeny", "exact", "local")

#: Largest number of elementary steps the exact subset likelihood may spend on one row; a
#: row needing more raises ``ValueError`` (about a second of compute at this size).
SUBSET_DP_MAX_WORK = 2**26


# --------------------------------------------------------------------------------------------
# normaliser and moments (vectorised over theta; the stage tables live in _mallows_math)
# --------------------------------------------------------------------------------------------
def _check_m(m: Any) -> int:
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 0:
        raise ValueError(f"m must be a non-negative integer, got {m!r}")
    return int(m)


def _check_theta_array(theta: Any, *, allow_inf: bool = True) -> np.ndarray:
    th = np.asarray(theta, dtype=np.float64)
    bad = np.isnan(th) | (th < 0) | (~np.isfinite(th) if not allow_inf else False)
    if np.any(bad):
        raise ValueError(f"theta must be non-negative{'' if allow_inf else ' and finite'}")
    return th


def _stagewise_sum(name: str, theta: Any, m: Any, t: Any) -> Any:
    """``sum_{k=m-t+1}^{m} f(k, theta)`` for the stage table ``name``, broadcast."""
    m = _check_m(m)
    th = _check_theta_array(theta)
    if t is None:
        tt = np.asarray(m)
    else:
        tt = np.asarray(t)
        if tt.dtype.kind not in "iu" and not (tt.dtype.kind == "f" and np.all(tt == np.round(tt))):
            raise ValueError("t must hold integers")
        tt = tt.astype(np.int64)
        if np.any((tt < 0) | (tt > m)):
            raise ValueError(f"t must lie in [0, m={m}]")
    th_b, t_b = np.broadcast_arrays(th, tt)
    uniq, inv = np.unique(th_b.ravel(), return_inverse=True)
    (table,) = length_tables(uniq, m, "top", (name,))  # (m + 1, u), row t
    out = table[t_b.ravel(), inv.ravel()].reshape(th_b.shape)
    return float(out) if out.ndim == 0 else out


def log_normalizer(theta: Any, m: int, t: Any = None) -> Any:
    """Log normalising constant of the Mallows model (or of its top-t marginal).

    .. math:: \\log \\psi^t_m(\\theta) = \\sum_{k=m-t+1}^{m}
              \\log \\frac{1 - e^{-k\\theta}}{1 - e^{-\\theta}}

    With ``t = m`` (default) this is ``log psi_m``, the normaliser over all ``m!`` rankings
    (Cheng et al. 2009, Sec. 4.1); with ``t < m`` it is ``log Z^t`` of Busse et al. (2007,
    eq. 10), the normaliser of the top-t marginal (``psi^{m-1} = psi^m``,
    ``psi^t(0) = m!/(m-t)!``).

    Parameters
    ----------
    theta : float or array-like of float
        Dispersion(s), ``>= 0`` (``inf`` gives 0, the point mass).
    m : int
        Number of items.
    t : int or array-like of int, optional
        Lengths of top-t lists, in ``[0, m]``; broadcast against ``theta``. Default ``m``.

    Returns
    -------
    float or ndarray
        ``log psi``, shape of ``broadcast(theta, t)``.

    Notes
    -----
    Each factor is ``log1mexp(k theta) - log1mexp(theta)`` with
    ``log1mexp(x) = log(1 - e^-x)`` evaluated as ``log(-expm1(-x))`` below ``log 2`` and
    ``log1p(-exp(-x))`` above (Mächler 2012), accurate for tiny and huge theta (for large theta
    ``log psi ~ (m-1) e^-theta`` keeps its relative precision); ``theta = 0`` gives ``log k``
    exactly, so ``log psi_m(0) = log m!``.

    Complexity: O(u m + s) time, O(u m + s) memory for u distinct thetas and output size s.

    Examples
    --------
    >>> import math
    >>> from rankclust.models.mallows import log_normalizer
    >>> bool(abs(log_normalizer(0.0, 4) - math.log(24)) < 1e-12)
    True
    >>> round(log_normalizer(1.0, 2), 6) == round(math.log(1 + math.exp(-1)), 6)
    True
    """
    return _stagewise_sum("log", theta, m, t)


def expected_distance(theta: Any, m: int, t: Any = None) -> Any:
    """Expected Kendall distance to the centre (or expected top-t statistic).

    .. math:: \\mu_t(\\theta) = \\sum_{k=m-t+1}^{m}
              \\Big(\\frac{1}{e^{\\theta} - 1} - \\frac{k}{e^{k\\theta} - 1}\\Big)
              = -\\frac{d}{d\\theta} \\log \\psi^t_m(\\theta)

    ``t = m`` (default) gives ``E d_K`` (Cheng et al. 2009, Sec. 4.1); ``t < m`` gives the
    expected top-t statistic ``E s^t`` of Busse et al. (2007, Sec. 4, eq. 14). Strictly
    decreasing in theta, from ``sum_{j<=t} (m-j)/2`` at 0 (``m(m-1)/4`` for ``t = m``) to 0.

    Parameters
    ----------
    theta : float or array-like of float
        Dispersion(s), ``>= 0`` (``inf`` gives 0).
    m : int
        Number of items.
    t : int or array-like of int, optional
        Lengths of top-t lists in ``[0, m]``, broadcast against ``theta``. Default ``m``.

    Returns
    -------
    float or ndarray

    Notes
    -----
    Stable at both ends: a series is used where ``k theta < 1e-2`` (no cancellation near 0),
    and the terms underflow harmlessly to 0 for large theta.

    Complexity: O(u m + s) time and memory (u distinct thetas, output size s).

    Examples
    --------
    >>> from rankclust.models.mallows import expected_distance
    >>> round(expected_distance(1.0, 10), 6)   # decisions.md C2
    4.633472
    >>> expected_distance(0.0, 10)
    22.5
    """
    return _stagewise_sum("mean", theta, m, t)


def distance_variance(theta: Any, m: int, t: Any = None) -> Any:
    """Variance of the Kendall distance to the centre (or of the top-t statistic).

    .. math:: v_t(\\theta) = \\sum_{k=m-t+1}^{m}
              \\Big(\\frac{1}{4\\sinh^2(\\theta/2)} - \\frac{k^2}{4\\sinh^2(k\\theta/2)}\\Big)
              = -\\frac{d}{d\\theta} \\mu_t(\\theta)
              = \\frac{d^2}{d\\theta^2} \\log \\psi^t_m(\\theta)

    The stage variables ``V_j`` are independent, so the variances add. This is the Fisher
    information of theta per ranking (hence ``1/sqrt(sum_i v_{t_i})`` is the asymptotic
    standard error of the MLE for a known centre) and the derivative a Newton step for the
    dispersion equation of Busse et al. (2007, eq. 14) needs. ``v_m(0) = m(m-1)(2m+5)/72``.

    Parameters
    ----------
    theta : float or array-like of float
        Dispersion(s), ``>= 0`` (``inf`` gives 0).
    m : int
        Number of items.
    t : int or array-like of int, optional
        Lengths of top-t lists in ``[0, m]``, broadcast against ``theta``. Default ``m``.

    Returns
    -------
    float or ndarray

    Notes
    -----
    A series is used where ``k theta < 1e-2``.

    Complexity: O(u m + s) time and memory (u distinct thetas, output size s).

    Examples
    --------
    >>> from rankclust.models.mallows import distance_variance
    >>> distance_variance(0.0, 4)   # 4 * 3 * 13 / 72
    2.1666666666666665
    """
    return _stagewise_sum("var", theta, m, t)


def theta_mle(
    mean_distance: float,
    m: int,
    *,
    lengths: Any = None,
    length_weights: Any = None,
    theta_max: float = THETA_MAX,
    xtol: float = 1e-12,
) -> float:
    """Maximum-likelihood dispersion from a (weighted) mean distance to the centre.

    Solves ``mean_N(theta) = mean_distance`` with
    ``mean_N(theta) = sum_t N_t mu_t(theta) / sum_t N_t`` (:func:`expected_distance`), which
    is the score equation of the Mallows log-likelihood in theta for a fixed centre: for
    complete rankings (default ``lengths = [m]``) ``E_theta d_K = mean d_K`` (Cheng et al.
    2009, Sec. 4.1); for top-t lists with lengths ``t_i`` and weights ``w_i``,
    ``sum_i w_i mu_{t_i}(theta) = sum_i w_i s^{t_i}_i`` (Busse et al. 2007, eq. 14 with
    weights). ``mean_N`` is strictly decreasing, so the root is unique; it is found by the
    package's one dispersion solver, a safeguarded Newton iteration on ``[0, theta_max]``
    (the one-component case of the mixtures' M-step; ``rankclust._mallows_math``).

    Parameters
    ----------
    mean_distance : float
        Weighted mean of the per-row statistic (``d_K`` or ``s^t``), ``>= 0``.
    m : int
        Number of items.
    lengths : array-like of int, optional
        Lengths ``t`` of the rows (or of groups of rows), in ``[0, m]``. Default ``[m]``.
    length_weights : array-like of float, optional
        Weight of each entry of ``lengths`` (default ones).
    theta_max : float, default=THETA_MAX (50.0)
        Cap, returned when the mean is at or below ``mean_N(theta_max)`` (in particular for a
        mean of 0, where the MLE is infinite) and when no pair carries information (``m < 2``
        or all lengths 0). May be ``np.inf``.
    xtol : float, default=1e-12
        Tolerance on theta: the iteration stops after a Newton step of at most
        ``xtol * max(1, theta)`` (quadratic convergence leaves the error far below it).

    Returns
    -------
    theta : float
        0.0 when the mean is at or above the uniform value ``mean_N(0)``.

    Notes
    -----
    Complexity: O(m + len(lengths)) per iteration, a few (at most about 10) iterations.

    Examples
    --------
    >>> from rankclust.models.mallows import expected_distance, theta_mle
    >>> round(theta_mle(expected_distance(0.7, 10), 10), 10)
    0.7
    >>> theta_mle(0.0, 10)
    50.0
    """
    m = _check_m(m)
    mean = float(mean_distance)
    if not np.isfinite(mean) or mean < 0:
        raise ValueError(f"mean_distance must be finite and non-negative, got {mean_distance!r}")
    theta_max = float(theta_max)
    if not theta_max > 0 or np.isnan(theta_max):
        raise ValueError(f"theta_max must be positive, got {theta_max!r}")
    if lengths is None:
        counts = np.zeros(m + 1)
        counts[m] = 1.0
    else:
        t = np.asarray(lengths).reshape(-1)
        if t.size and (t.dtype.kind not in "iu" or t.min() < 0 or t.max() > m):
            raise ValueError(f"lengths must be integers in [0, m={m}]")
        lw = check_sample_weight(length_weights, t.shape[0], name="length_weights")
        counts = np.bincount(t.astype(np.int64), weights=lw, minlength=m + 1)
    total = counts.sum()
    if not total > 0:
        raise ValueError("the weights of the lengths sum to zero")
    counts = counts / total

    if np.isinf(theta_max):
        # a finite bracket: double until the expected statistic falls to the mean
        theta_max = 1.0
        while mean > 0 and float(counts @ _top_means(theta_max, m)) > mean:
            theta_max *= 2.0
        if mean <= 0 or counts @ _top_means(0.0, m) <= 0:
            return np.inf
    stats = np.array([mean])
    start = tail_start(counts[None, :], stats, m, "top")
    theta = solve_thetas(counts[None, :], stats, m, "top", start, theta_max, xtol=xtol)
    return float(theta[0])


def _top_means(theta: float, m: int) -> np.ndarray:
    """``mu_t(theta)`` for ``t = 0..m`` (Busse et al.'s top-t expected statistic)."""
    return length_tables(np.array([theta]), m, "top", ("mean",))[0][:, 0]


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def _check_center(center: Any, m: int | None = None, name: str = "center") -> np.ndarray:
    """A position vector: int64 permutation of ``0..m-1``."""
    arr = np.asarray(center)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d position vector, got shape {arr.shape}")
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integer positions, got dtype {arr.dtype}")
    if m is not None and arr.shape[0] != m:
        raise ValueError(f"{name} has {arr.shape[0]} entries, expected {m}")
    arr = arr.astype(np.int64)
    if not np.array_equal(np.sort(arr), np.arange(arr.shape[0])):
        raise ValueError(f"{name} must be a permutation of 0..{arr.shape[0] - 1} (positions)")
    return arr


def _check_theta(theta: Any) -> float:
    if isinstance(theta, bool) or not isinstance(theta, numbers.Real | np.ndarray):
        raise ValueError(f"theta must be a finite non-negative number, got {theta!r}")
    th = np.asarray(theta, dtype=np.float64)
    if th.ndim != 0 or not np.isfinite(th) or th < 0:
        raise ValueError(f"theta must be a finite non-negative number, got {theta!r}")
    return float(th)


def _total_weights(R: Rankings, sw: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        w = R.weights * sw
    check_weight_total(w, what="rankings")  # (a total of inf would make every average NaN)
    return w


def _is_complete(R: Rankings) -> bool:
    """Every row has all items present (with or without ties)."""
    return bool(np.all(R.lengths == R.n_items))


def _complete_rows(R: Rankings, center: np.ndarray) -> Rankings:
    """Most probable completion of every row: ties in centre order, then Proposition 1."""
    return _extend(ties.break_ties(R, center) if R.has_ties.any() else R, center)


def _uniforms(random_state: Any, shape: tuple[int, int]) -> np.ndarray:
    if isinstance(random_state, np.random.Generator):
        return random_state.random(shape)
    return check_random_state(random_state).random_sample(shape)


# --------------------------------------------------------------------------------------------
# Proposition 1 (Cheng et al. 2009): most probable extension
# --------------------------------------------------------------------------------------------
def _extend(R: Rankings, center: np.ndarray) -> Rankings:
    """Prop. 1 completions of trusted input (no ties, valid centre)."""
    out = np.empty(R.shape, dtype=np.int64)
    closest_extension(np.ascontiguousarray(R.ranks), center, out)
    weights = R.weights if R.is_weighted else None
    return Rankings._from_trusted(out, kind=R.kind, weights=weights, items=R.items)


def most_probable_extension(R: Any, center: Any) -> Rankings:
    """Complete every ranking by its most probable extension under a Mallows centre.

    Among all complete rankings that keep the observed order of the present items (the
    consistent extensions ``E(sigma)``), returns the one closest to ``center`` in Kendall's
    distance, which is the most probable one under Mallows(center, theta) for every
    ``theta > 0`` (Cheng et al. 2009, Proposition 1). Each absent item is inserted into the
    gap of the observed chain that minimises its discordances with the present items
    (the smallest gap on ties); absent items sharing a gap keep the centre's order.

    Parameters
    ----------
    R : Rankings or array-like
        Rankings; the items of a tied bucket are first put in centre order (the most probable
        order of a bucket, see :func:`rankclust.models._mallows_ties.break_ties`). For
        ``kind="top"`` the absent items are completed the same way
        (which, for a top-t list, keeps them below the present ones only if the centre agrees;
        the maximum-entropy top-t likelihood does not need completions).
    center : array-like of int, shape (m,)
        Position vector of the centre.

    Returns
    -------
    Rankings
        Complete rankings (same kind, weights and item names); complete rows are unchanged.

    Notes
    -----
    Complexity: O(n (m k + m log m)) time for k present items per row, O(n m) memory.

    References
    ----------
    Cheng, W., Hühn, J. and Hüllermeier, E. (2009). Decision tree and instance-based learning
    for label ranking. ICML, Proposition 1.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> from rankclust.models.mallows import most_probable_extension
    >>> R = Rankings.from_orderings([[1, 0, 4]], n_items=5)   # y2 > y1 > y5 (paper example)
    >>> most_probable_extension(R, [0, 1, 2, 3, 4]).to_orderings()
    [[1, 0, 2, 3, 4]]
    """
    R = check_rankings(R, name="R")
    c = _check_center(center, R.n_items)
    return _complete_rows(R, c)


# --------------------------------------------------------------------------------------------
# likelihood
# --------------------------------------------------------------------------------------------
def _subset_dp_work(k: int, r: int) -> tuple[int, int]:
    """Elementary steps of the two subset DPs for k present and r absent items."""
    bitmask = (1 << r) * (k + 1) * (r + 1)
    # a composition step costs about twice a bitmask step (measured)
    compositions = 2 * math.comb(r + k + 1, k + 1) * (k + 1)
    return bitmask, compositions


def _subset_log_mass(
    chain: np.ndarray, free: np.ndarray, center: np.ndarray, theta: float, row: int
) -> float:
    """``log sum_{pi in E(chain)} exp(-theta d_K(pi, center))`` by the cheaper exact DP."""
    k, r = len(chain), len(free)
    w_bits, w_comp = _subset_dp_work(k, r)
    if min(w_bits, w_comp) > SUBSET_DP_MAX_WORK:
        raise ValueError(
            f"row {row}: the exact subset likelihood of a ranking of {k} of {k + r} items "
            f"needs about {min(w_bits, w_comp):.2e} steps (limit SUBSET_DP_MAX_WORK = "
            f"{SUBSET_DP_MAX_WORK}); its cost grows like min(2^r, C(m, k)) for r absent items"
        )
    if w_bits <= w_comp:
        return float(_nb_subset_logmass_bitmask(chain, free, center, theta))
    m = k + r
    binom = np.zeros((m + 2, k + 1), dtype=np.int64)
    for a in range(m + 2):
        for j in range(min(a, k) + 1):
            binom[a, j] = min(math.comb(a, j), 2**62)
    cc = center[chain]
    chain_inv = int(np.triu(cc[:, None] > cc[None, :], 1).sum())  # inversions inside the chain
    return (
        float(_nb_subset_logmass_compositions(chain, free, center, theta, binom))
        - theta * chain_inv
    )


def _subset_chains_guard(sizes: list[int], chain_work: int, row: int) -> None:
    n_ext = math.prod(math.factorial(b) for b in sizes)
    if n_ext * chain_work > SUBSET_DP_MAX_WORK:
        raise ValueError(
            f"row {row}: the exact likelihood of a tied subset ranking sums the subset "
            f"likelihood over its {n_ext} bucket orders, about {n_ext * chain_work:.2e} steps "
            f"(limit SUBSET_DP_MAX_WORK = {SUBSET_DP_MAX_WORK})"
        )


def _tied_subset_log_mass(row: np.ndarray, center: np.ndarray, theta: float, row_id: int) -> float:
    """``log sum_{pi consistent with the tied subset row} exp(-theta d_K(pi, center))``.

    The sum over the orders of every bucket (the linear extensions of the present items) of
    the exact subset marginal of each chain. O(prod_B |B|! x one chain's DP).
    """
    m = row.shape[0]
    present = np.flatnonzero(row >= 0)
    absent = np.flatnonzero(row < 0)
    free = absent[np.argsort(center[absent])].astype(np.int64)
    buckets = [present[row[present] == b] for b in range(int(row.max()) + 1)]
    _subset_chains_guard(
        [len(b) for b in buckets], min(_subset_dp_work(len(present), m - len(present))), row_id
    )
    vals = [
        _subset_log_mass(np.concatenate(chain).astype(np.int64), free, center, theta, row_id)
        for chain in itertools.product(*(itertools.permutations(b) for b in buckets))
    ]
    return float(logsumexp(vals))


def _loglik_rows(R: Rankings, center: np.ndarray, theta: float) -> np.ndarray:
    """Per-row log-likelihood of trusted input (valid centre, finite theta).

    Rows with ties: :func:`_tied_loglik_rows`; the others below.
    """
    tied = R.has_ties
    if not tied.any():
        return _untied_loglik_rows(R, center, theta)
    out = np.empty(R.n_rankings)
    if (~tied).any():
        out[~tied] = _untied_loglik_rows(R[np.flatnonzero(~tied)], center, theta)
    out[tied] = _tied_loglik_rows(R[np.flatnonzero(tied)], center, theta)
    return out


def _tied_loglik_rows(R: Rankings, center: np.ndarray, theta: float) -> np.ndarray:
    """Rows with ties: closed form for complete and top rows, bucket orders for subsets."""
    m = R.n_items
    closed = (R.lengths == m) | (R.kind == "top")
    out = np.empty(R.n_rankings)
    if closed.any():
        out[closed] = ties.tied_loglik(R[np.flatnonzero(closed)], center, theta)
    partial = np.flatnonzero(~closed)
    if partial.size:
        ranks = R.ranks[partial].astype(np.int64)
        uniq, first, inverse = np.unique(ranks, axis=0, return_index=True, return_inverse=True)
        log_psi = log_normalizer(theta, m)
        vals = np.array(
            [
                _tied_subset_log_mass(row, center, theta, int(partial[first[u]])) - log_psi
                for u, row in enumerate(uniq)
            ]
        )
        out[partial] = vals[inverse.reshape(-1)]
    return out


def _untied_loglik_rows(R: Rankings, center: np.ndarray, theta: float) -> np.ndarray:
    """Per-row log-likelihood of trusted input (no ties, valid centre, finite theta).

    ``kind="top"``: Busse et al.'s top-t likelihood (complete rows included); ``"subset"``:
    complete rows in closed form, rows with at most one item 0, the others by an exact DP.
    """
    n, m = R.shape
    stat = kendall_distances(R, center).astype(np.float64)
    lengths = R.lengths
    if R.kind == "top":
        return -theta * stat - log_normalizer(theta, m, lengths)
    out = np.zeros(n)
    full = lengths == m
    out[full] = -theta * stat[full] - log_normalizer(theta, m)
    partial = np.flatnonzero((lengths >= 2) & ~full)
    if partial.size:
        sub = R[partial]
        uniq, first, inverse = np.unique(sub.ranks, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        log_psi = log_normalizer(theta, m)
        vals = np.empty(len(uniq))
        for u, row in enumerate(uniq):
            present = np.flatnonzero(row >= 0)
            chain = present[np.argsort(row[present])].astype(np.int64)
            absent = np.flatnonzero(row < 0)
            free = absent[np.argsort(center[absent])].astype(np.int64)
            row_id = int(partial[first[u]])
            vals[u] = _subset_log_mass(chain, free, center, theta, row_id) - log_psi
        out[partial] = vals[inverse]
    return out


def mallows_loglik(R: Any, center: Any, theta: float) -> np.ndarray:
    """Log-likelihood of each ranking under Mallows(center, theta), for every kind.

    * complete rows: ``-theta d_K(pi, c) - log psi_m(theta)``;
    * ``kind="top"``: the probability of the set of all completions of the top-t list,
      ``-theta s^t - log psi^t(theta)`` (Busse et al. 2007, eq. 9); it equals the sum of the
      full model over the ``(m-t)!`` completions, and sums to 1 over the top-t lists of each
      length t;
    * ``kind="subset"``: the exact marginal ``log sum_{pi in E(sigma)} P(pi)`` over all
      consistent extensions (Cheng et al. 2009, eq. 5); a ranking of 0 or 1 items has
      log-likelihood 0;
    * rankings with ties (any kind): the total probability of the rankings consistent with
      them (the order inside a bucket unknown). Complete and top rows in closed form,
      ``-theta D - log psi_m + sum_B log psi_{|B|}`` with ``D`` the discordant pairs between
      different buckets (:mod:`rankclust.models._mallows_ties`); incomplete subset rows as
      the sum of the subset marginal over the orders of their buckets.

    Parameters
    ----------
    R : Rankings or array-like
        Rankings, with or without ties.
    center : array-like of int, shape (m,)
        Position vector of the centre.
    theta : float
        Dispersion, finite and ``>= 0``.

    Returns
    -------
    ndarray of float64, shape (n,)

    Raises
    ------
    ValueError
        On a centre that is not a permutation, a bad theta, or a subset row whose exact
        likelihood exceeds :data:`SUBSET_DP_MAX_WORK` (for a tied subset row: times the
        number of orders of its buckets, ``prod_B |B|!``).

    Notes
    -----
    The subset marginal is computed exactly by whichever of two dynamic programmes is
    cheaper for the row (k present, r = m - k absent items): (a) build the ranking position
    by position, the state being the set of absent items already placed and the number of
    chain items placed (2^r (k+1) states); (b) add the absent items in centre order to the
    k+1 gaps of the chain, the state being the number of absent items per gap
    (C(m+1, k+1) states in all; the orders inside a gap sum to a q-factorial). Both carry the
    fewest inversions of a partial path as an integer and sum the rest relative to it, so no
    exp/log runs per transition and nothing underflows for any finite theta. Identical rows
    are evaluated once. We know of no closed form for a general sub-ranking; the cost is
    exponential in ``min(r, k)`` and :data:`SUBSET_DP_MAX_WORK` guards it: every pattern is
    in reach up to 26 items; with 100 items, rankings of at most 3 or at least 85 items are
    (so SUSHI set B, 10 of 100, is not). Measured: about 1 ms per distinct row for m = 16
    with 60% of the items absent, 20 ms for m = 24 with half absent.

    Complexity: O(n m^2) time and O(n m) memory for complete and top rows; per distinct
    subset row O(min(2^r k r, C(m+1, k+1) k)) time and O(min(2^r k, C(m, k))) memory.

    References
    ----------
    Busse, Orbanz and Buhmann (2007), eqs. 9-10; Cheng, Hühn and Hüllermeier (2009), eq. 5.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust import Rankings
    >>> from rankclust.models.mallows import mallows_loglik
    >>> R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [0]], n_items=3, kind="top")
    >>> np.round(np.exp(mallows_loglik(R, [0, 1, 2], 1.0)), 4)
    array([0.4863, 0.0242, 0.6652])
    """
    R = check_rankings(R, name="R")
    c = _check_center(center, R.n_items)
    return _loglik_rows(R, c, _check_theta(theta))


# --------------------------------------------------------------------------------------------
# estimation
# --------------------------------------------------------------------------------------------
def _consensus(C: np.ndarray, method: str, init: np.ndarray | None) -> np.ndarray:
    """Centre from pairwise counts by the named method (:data:`CENTER_METHODS`)."""
    return consensus.CENTER_METHODS[method](C, init)


def _approximate_em(
    R: Rankings, sw: np.ndarray, method: str, init: np.ndarray | None, max_iter: int
) -> tuple[np.ndarray, int, bool]:
    """Cheng et al.'s approximate EM for subset data (trusted input).

    The one home of this EM; ``rankclust.label_ranking._iblr_kernels._em_one`` is its
    compiled copy for ``method="borda"`` (keep in sync; pinned by
    ``tests/models/test_mallows_math.py``).

    Returns ``(center, n_iter, converged)``; ``converged`` is False after ``max_iter``
    iterations or on a cycle of centres (then the cycle's centre with the smallest objective
    ``sum_i w_i d_K(sigma_i*(c), c)`` is returned, the first visited on ties).
    """
    center = generalized_borda(R, sw) if init is None else init
    w = R.weights * sw
    seen: dict[bytes, int] = {}
    history: list[tuple[np.ndarray, float]] = []
    for it in range(1, max_iter + 1):
        completed = _complete_rows(R, center)
        objective = float(w @ kendall_distances(completed, center))
        seen[center.tobytes()] = len(history)
        history.append((center, objective))
        new = _consensus(completed.pairwise_counts(sw), method, center)
        if np.array_equal(new, center):
            return center, it, True
        if new.tobytes() in seen:
            cycle = history[seen[new.tobytes()] :]
            best = min(range(len(cycle)), key=lambda i: (cycle[i][1], i))
            return cycle[best][0], it, False
        center = new
    return center, max_iter, False


@validate_arguments(
    {"method": [StrOptions(CENTER_METHODS)], "max_iter": [Interval(numbers.Integral, 1, None)]}
)
def estimate_center(
    R: Any,
    sample_weight: Any = None,
    *,
    method: str = "auto",
    init: Any = None,
    max_iter: int = 100,
    return_n_iter: bool = False,
) -> Any:
    """Weighted maximum-likelihood (or approximate) centre of a Mallows model.

    * complete rankings: the weighted Kendall median ``argmin_c sum_i w_i d_K(sigma_i, c)``,
      the Kemeny ranking of the pairwise counts (Cheng et al. 2009, eq. 4); it does not
      depend on theta;
    * ``kind="top"``: ``argmin_c sum_i w_i s^{t_i}(sigma_i, c)``, again a Kemeny problem on
      the top-kind pairwise counts (a present item above every absent one), which is the exact
      MLE of the top-t likelihood (Busse et al. 2007, eq. 12);
    * ``kind="subset"`` with incomplete rows: Cheng et al.'s approximate EM (Sec. 4.2,
      Alg. 1): start from the generalised Borda count (Prop. 2) or ``init``; repeat
      {complete every ranking by its most probable extension (Prop. 1); centre <- consensus of
      the completions} until the centre repeats. Cycles are detected; the best centre of the
      cycle (smallest ``sum_i w_i d_K(sigma_i*, c)``) is returned;
    * ties: a tied pair costs nothing (the pairwise counts are strict), which makes the
      Kemeny ranking the exact MLE for complete and top rankings with ties; in the subset EM
      a tied bucket is completed in centre order (its most probable order).

    Parameters
    ----------
    R : Rankings or array-like
        Rankings, with or without ties.
    sample_weight : array-like of float, shape (n,), optional
        Non-negative row weights (e.g. mixture responsibilities), multiplied into the
        rankings' own weights.
    method : {"auto", "kemeny", "borda", "exact", "local"}, default="auto"
        Consensus of a pairwise count matrix (:mod:`rankclust.consensus`): ``"auto"`` and
        ``"kemeny"`` -- :func:`~rankclust.consensus.kemeny` (exact up to 10 items, local
        search beyond: :func:`~rankclust.consensus.resolve_center_method`); ``"exact"`` -- exact Kemeny (m <= 15); ``"local"`` -- insertion local
        search from Borda (or from the current centre inside the EM); ``"borda"`` -- the Borda
        count, Cheng et al.'s choice (use it to reproduce the paper).
    init : array-like of int, shape (m,), optional
        Starting centre of the subset EM (default: generalised Borda) and start of local
        search; ignored by the other rules.
    max_iter : int, default=100
        Iteration cap of the subset EM.
    return_n_iter : bool, default=False
        Also return the number of EM iterations (0 without EM) and whether it converged.

    Returns
    -------
    center : ndarray of int64, shape (m,)
        Position vector.
    n_iter : int
        Only with ``return_n_iter=True``.
    converged : bool
        Only with ``return_n_iter=True``.

    Notes
    -----
    Complexity: O(n m^2) for the pairwise counts plus the consensus (O(2^m m) exact,
    O(m^2) per local-search sweep, O(m^2) Borda); the subset EM repeats this with an
    O(n m k) completion per iteration.

    References
    ----------
    Cheng, Hühn and Hüllermeier (2009), Sec. 4 and Alg. 1; Busse, Orbanz and Buhmann (2007),
    Sec. 4.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> from rankclust.models.mallows import estimate_center
    >>> R = Rankings.from_orderings([[0, 1, 2, 3], [1, 0, 2, 3], [0, 2, 1]], n_items=4)
    >>> estimate_center(R)
    array([0, 1, 2, 3])
    """
    R = check_rankings(R, name="R")
    sw = check_sample_weight(sample_weight, R.n_rankings)
    _total_weights(R, sw)
    start = None if init is None else _check_center(init, R.n_items, name="init")
    if R.kind == "top" or _is_complete(R):
        center = _consensus(R.pairwise_counts(sw), method, start)
        result: tuple[np.ndarray, int, bool] = (center, 0, True)
    else:
        result = _approximate_em(R, sw, method, start, int(max_iter))
    return result if return_n_iter else result[0]


def estimate_theta(
    R: Any,
    center: Any,
    sample_weight: Any = None,
    *,
    theta_max: float = THETA_MAX,
    xtol: float = 1e-12,
) -> float:
    """Weighted maximum-likelihood dispersion for a given centre.

    * complete rankings: solves ``E_theta d_K = sum_i w_i d_K(sigma_i, c) / sum_i w_i``;
    * ``kind="top"``: solves Busse et al.'s weighted eq. (14),
      ``sum_i w_i mu_{t_i}(theta) = sum_i w_i s^{t_i}(sigma_i, c)``, the exact MLE of the
      top-t likelihood;
    * ``kind="subset"`` with incomplete rows: Cheng et al.'s approximation -- the complete-data
      MLE of the most probable extensions (Prop. 1). This is not the MLE of the subset
      marginal likelihood: a row of 0 or 1 items is completed to the centre itself and
      pushes theta up;
    * ties: for complete and top rankings the exact MLE of the tied likelihood, the root of
      ``sum_i w_i (mu_m - sum_B mu_{|B|}) = sum_i w_i D_i``
      (:func:`rankclust.models._mallows_ties.tied_theta_mle`); incomplete subset rows are
      first completed by their most probable extension (ties in centre order), complete
      rows keep their ties.

    Parameters
    ----------
    R : Rankings or array-like
        Rankings, with or without ties.
    center : array-like of int, shape (m,)
        Position vector.
    sample_weight : array-like of float, shape (n,), optional
        Non-negative row weights, multiplied into the rankings' own weights.
    theta_max : float, default=THETA_MAX
        Cap, see :func:`theta_mle`.
    xtol : float, default=1e-12
        Absolute tolerance on theta.

    Returns
    -------
    theta : float

    Notes
    -----
    Complexity: O(n m^2) time (distances; plus O(n m k) completions for subset data),
    O(n m) memory.

    Examples
    --------
    >>> from rankclust.models.mallows import Mallows, estimate_theta
    >>> R = Mallows.from_params(center=[1, 0, 2, 3], theta=1.2).sample(4000, random_state=1)
    >>> round(estimate_theta(R, [1, 0, 2, 3]), 1)
    1.2
    """
    R = check_rankings(R, name="R")
    c = _check_center(center, R.n_items)
    sw = check_sample_weight(sample_weight, R.n_rankings)
    w = _total_weights(R, sw)
    return _estimate_theta(R, c, w, theta_max, xtol)


def _estimate_theta(
    R: Rankings, center: np.ndarray, w: np.ndarray, theta_max: float, xtol: float
) -> float:
    """:func:`estimate_theta` on trusted input with total row weights ``w``."""
    m = R.n_items
    if R.has_ties.any():
        if R.kind != "top" and not _is_complete(R):
            # incomplete rows by their most probable completion; complete rows keep ties
            short = R.lengths < m
            ranks = R.ranks.astype(np.int64)
            ranks[short] = _complete_rows(R[np.flatnonzero(short)], center).ranks
            R = Rankings._from_trusted(ranks, kind="subset")
        return ties.tied_theta_mle(R, center, w, theta_max, xtol)
    if R.kind == "top":
        stat = kendall_distances(R, center)
        return theta_mle(
            float(w @ stat) / w.sum(),
            m,
            lengths=R.lengths,
            length_weights=w,
            theta_max=theta_max,
            xtol=xtol,
        )
    if not _is_complete(R):
        R = _extend(R, center)
    d = kendall_distances(R, center)
    return theta_mle(float(w @ d) / w.sum(), m, theta_max=theta_max, xtol=xtol)


# --------------------------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------------------------
@validate_arguments({"size": [Interval(numbers.Integral, 0, None)]})
def sample_mallows(
    center: Any,
    theta: float,
    size: int,
    random_state: Any = None,
    lengths: Any = None,
) -> Rankings:
    """Exact draws from Mallows(center, theta), complete or cut to top-t lists.

    Position ``j`` (best first) receives the ``V_j``-th best remaining item of the centre, with
    independent ``V_j`` truncated geometric on ``{0, ..., m-j}`` (1-based j) -- the stage-wise
    form of the model, equivalent to repeated insertion (Busse et al. 2007; decisions.md B1).
    A top-t list needs only ``t`` draws and has exactly the top-t marginal.

    Parameters
    ----------
    center : array-like of int, shape (m,)
        Position vector.
    theta : float
        Dispersion, finite and ``>= 0``.
    size : int
        Number of rankings.
    random_state : None, int, RandomState or Generator, default=None
    lengths : int or array-like of int, shape (size,), optional
        Cut every ranking to its top ``lengths[i]`` items (``kind="top"`` output). Default:
        complete rankings.

    Returns
    -------
    Rankings
        ``kind="top"`` when ``lengths`` is given, else complete rankings of kind ``"subset"``.

    Notes
    -----
    Complexity: O(size m^2) time (O(size m t) for top-t lists), O(size m) memory.

    Examples
    --------
    >>> from rankclust.models.mallows import sample_mallows
    >>> sample_mallows([0, 1, 2], 50.0, 2, random_state=0).ranks
    array([[0, 1, 2],
           [0, 1, 2]], dtype=int8)
    """
    c = _check_center(center)
    th = _check_theta(theta)
    size = int(size)
    m = c.shape[0]
    t = np.full(size, m, dtype=np.int64) if lengths is None else _check_lengths(lengths, size, m)
    order = np.argsort(c).astype(np.int64)
    u = _uniforms(random_state, (size, max(m - 1, 0)))
    out = np.empty((size, m), dtype=np.int64)
    _nb_sample_rankings(order, th, u, t, out)
    # the kernel writes dense positions by construction: skip re-validation
    return Rankings._from_trusted(out, kind="top" if lengths is not None else "subset")


def _check_lengths(lengths: Any, size: int, m: int) -> np.ndarray:
    """The list length of each of ``size`` draws over ``m`` items: an int or a (size,) array
    of integers in ``[0, m]``; int64 of shape (size,)."""
    la = np.asarray(lengths)
    if la.dtype.kind not in "iu":
        raise ValueError("lengths must hold integers")
    t = np.broadcast_to(la, (size,)).astype(np.int64) if la.ndim == 0 else la.astype(np.int64)
    if t.shape != (size,):
        raise ValueError(f"lengths must be an int or have shape ({size},), got {la.shape}")
    if size and (t.min() < 0 or t.max() > m):
        raise ValueError(f"lengths must lie in [0, {m}]")
    return t


def _require_untied(R: Rankings, distance: str) -> None:
    tied = np.flatnonzero(R.has_ties)
    if tied.size:
        raise ValueError(
            f"row {int(tied[0])} has ties: Mallows(distance={distance!r}) supports rankings "
            'without ties only (distance="kendall" handles ties)'
        )


def _sample_family(
    family: Any, center: np.ndarray, theta: float, size: int, random_state: Any, lengths: Any
) -> Rankings:
    """Draws of a registered family, cut to top-t lists when ``lengths`` is given."""
    size = int(size)
    if size < 0:
        raise ValueError(f"size must be a non-negative integer, got {size}")
    if isinstance(random_state, np.random.Generator):
        rng = np.random.RandomState(random_state.integers(2**32, dtype=np.uint64))
    else:
        rng = check_random_state(random_state)
    m = center.shape[0]
    out = np.asarray(family.sample(center, theta, size, rng), dtype=np.int64)
    if lengths is None:
        return Rankings._from_trusted(out, kind="subset")
    t = _check_lengths(lengths, size, m)
    out[out >= t[:, None]] = -1
    return Rankings._from_trusted(out, kind="top")


# --------------------------------------------------------------------------------------------
# the estimator
# --------------------------------------------------------------------------------------------
class Mallows(ValidatedParamsMixin, BaseEstimator):
    """Mallows model (Kendall by default): fit from complete, subset or top-t rankings.

    ``P(pi) = exp(-theta d(pi, center)) / Z(theta)`` with Kendall's distance ``d_K`` (see the
    module docstring for the parametrisation and the mapping to the papers' notation) or, with
    ``distance=``, another right-invariant distance of the registry of Mallows distance
    families (``"spearman"``, ``"footrule"``, ...; ``rankclust.models._mallows_distances``).

    Parameters
    ----------
    center_method : {"auto", "kemeny", "borda", "exact", "local"}, default="auto"
        Consensus used for the Kendall centre (:func:`estimate_center`): ``"auto"``/``"kemeny"``
        exact Kemeny up to 10 items and insertion local search beyond (the package-wide rule,
        :func:`rankclust.consensus.resolve_center_method`), ``"exact"`` exact Kemeny
        (m <= 15), ``"local"`` local search from Borda, ``"borda"`` the Borda count
        (Cheng et al. 2009's choice). Other distances use their family's centre estimator
        (Spearman: order of the weighted mean positions; footrule: a linear assignment; both
        exact) and ignore it.
    max_iter : int, default=100
        Iteration cap of the EM for partial data (Kendall: the approximate EM for subset data).
    tol : float, default=1e-8
        Tolerance of the theta solver (``xtol`` of :func:`theta_mle`).
    distance : str, default="kendall"
        The distance of the model, a key of the registry of Mallows distance families:
        ``"kendall"`` (this class's original model, every kind and ties), ``"spearman"``,
        ``"footrule"`` and any family registered there. For distances other than Kendall,
        rankings must be free of ties; partial rankings (top-t and subset) have an exact
        likelihood by enumerating their completions (at most 40320 per row) and are fitted
        by EM over the completions (a Monte Carlo E-step above that cap), see
        ``rankclust.models._mallows_partial``.
    random_state : None, int or RandomState, default=None
        Seed of the Monte Carlo E-step (distances other than Kendall, partial rows with more
        than 40320 completions); unused otherwise.

    Attributes
    ----------
    center_ : ndarray of int64, shape (n_items_,)
        Position vector of the central ranking.
    theta_ : float
        Dispersion, in ``[0, THETA_MAX]``.
    n_items_ : int
    kind_ : {"complete", "subset", "top"} or None
        Which estimator ran: complete data (closed form), subset data (approximate EM) or top-t
        data (exact maximum likelihood). None for :meth:`from_params`.
    n_iter_ : int
        Approximate-EM iterations (0 for complete and top-t data).
    converged_ : bool
        False when the EM hit ``max_iter`` or cycled (a ``ConvergenceWarning`` is emitted).
    items_ : tuple of str or None
        Item names of the training rankings (None when unnamed); named input to the
        prediction methods is matched to them by name (see
        :func:`rankclust.rankings.check_rankings`).

    See Also
    --------
    mallows_loglik, estimate_center, estimate_theta, theta_mle, sample_mallows

    Notes
    -----
    * Complete data: the centre is the weighted Kemeny ranking (exact MLE with an exact
      method), theta the root of ``E_theta d_K = mean d_K`` (Cheng et al. 2009, Sec. 4.1).
    * Top-t data (``kind="top"``): the exact maximum-likelihood estimator of Busse et al.
      (2007): centre = Kemeny ranking of the top-kind pairwise counts, theta from eq. (14).
    * Subset data: Cheng et al.'s approximate EM (Sec. 4.2): Prop. 1 completions alternate
      with complete-data fits from a generalised Borda start, until the centre repeats.
      It does not maximise the exact subset likelihood that :meth:`logpdf` reports.
    * Ties (any kind): a tied bucket is an order that was not recorded, and the likelihood
      is the total probability of the consistent complete rankings. Complete and top data:
      exact MLE (Kemeny centre of the strict pairwise counts, theta from the tied score
      equation); subset data: the approximate EM with tied buckets completed in centre
      order. :meth:`logpdf` is exact for every kind; :meth:`sample` draws complete
      (untied) rankings. See :mod:`rankclust.models._mallows_ties`.
    * Weighted data (``Rankings.weights`` times ``sample_weight``) give the same fit as the
      expanded data.

    * Other distances: complete data -- the family's exact centre and the root of
      ``E_theta d = mean d``; partial data -- EM over the completions (with the exact
      E-step every iteration increases the likelihood); ``logpdf`` exact.

    Complexity: fit O(n m^2 + consensus) for complete/top data (consensus O(2^m m) exact,
    O(m^2) per local-search sweep), times the number of EM iterations for subset data;
    logpdf see :func:`mallows_loglik`; sample O(size m^2). Memory O(n m + m^2).
    Other distances, complete data: O(n m + centre) (Spearman O(m log m), footrule O(m^3))
    plus the normaliser (footrule O(m^4) once per m; Spearman a table look-up up to 20
    items); partial data: O(N m) per EM iteration for N completions in all.

    References
    ----------
    Mallows (1957); Fligner and Verducci (1986); Busse, Orbanz and Buhmann (2007), ICML;
    Cheng, Hühn and Hüllermeier (2009), ICML.

    Examples
    --------
    >>> from rankclust.models import Mallows
    >>> true = Mallows.from_params(center=[2, 0, 1, 3], theta=0.8)
    >>> R = true.sample(3000, random_state=0)
    >>> model = Mallows().fit(R)
    >>> model.center_
    array([2, 0, 1, 3])
    >>> round(model.theta_, 1)
    0.8
    >>> bool(abs(model.pdf(R[:1])[0] - true.pdf(R[:1])[0]) < 0.01)
    True
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "center_method": [StrOptions(CENTER_METHODS)],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
        "distance": [StrOptions(MALLOWS_DISTANCES)],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        center_method: str = "auto",
        max_iter: int = 100,
        tol: float = 1e-8,
        distance: str = "kendall",
        random_state: Any = None,
    ) -> None:
        self.center_method = center_method
        self.max_iter = max_iter
        self.tol = tol
        self.distance = distance
        self.random_state = random_state

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_params(cls, *, center: Any, theta: float, **params: Any) -> Mallows:
        """A fitted model with the given parameters (validated once).

        Parameters
        ----------
        center : array-like of int, shape (m,)
            Position vector (a permutation of ``0..m-1``).
        theta : float
            Dispersion, finite and ``>= 0``.
        **params
            Hyper-parameters of the estimator (kept for a later ``fit``).

        Examples
        --------
        >>> Mallows.from_params(center=[1, 0, 2], theta=0.5).theta_
        0.5
        """
        model = cls(**params)
        model._validate_params()
        c = _check_center(center)
        model.center_ = c
        model.theta_ = _check_theta(theta)
        model.n_items_ = int(c.shape[0])
        model.items_ = None
        model.kind_ = None
        model.n_iter_ = 0
        model.converged_ = True
        return model

    # ---------------------------------------------------------------- fitting
    def fit(self, R: Any, y: Any = None, sample_weight: Any = None) -> Mallows:
        """Fit the centre and the dispersion.

        Parameters
        ----------
        R : Rankings or array-like
            Rankings, with or without ties; arrays are read as 1-based ranks with 0/NaN for
            missing (``kind="subset"``).
        y : None
            Ignored.
        sample_weight : array-like of float, shape (n,), optional
            Non-negative row weights, multiplied into ``R.weights``.

        Returns
        -------
        self
        """
        self._validate_params()
        R = check_rankings(R, name="R")
        if R.n_rankings == 0:
            raise ValueError("R has no rankings")
        if R.n_items == 0:
            raise ValueError("R has no items")
        sw = check_sample_weight(sample_weight, R.n_rankings)
        w = _total_weights(R, sw)
        if self.distance != "kendall":
            center, theta, n_iter, converged = self._fit_family(R, w)
        else:
            center, n_iter, converged = estimate_center(
                R, sw, method=self.center_method, max_iter=self.max_iter, return_n_iter=True
            )
            theta = _estimate_theta(R, center, w, THETA_MAX, self.tol)
        if not converged:
            warnings.warn(
                f"Mallows: the {'approximate ' if self.distance == 'kendall' else ''}EM did "
                f"not converge in {n_iter} iterations "
                "(max_iter reached or the centres cycled); returning the best centre seen.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.center_ = center
        self.theta_ = theta
        self.n_items_ = R.n_items
        self.items_ = R.items
        self.kind_ = "complete" if _is_complete(R) else R.kind
        self.n_iter_ = n_iter
        self.converged_ = converged
        return self

    def _fit_family(self, R: Rankings, w: np.ndarray) -> tuple[np.ndarray, float, int, bool]:
        """Fit a non-Kendall family: closed form on complete rows, EM on partial ones."""
        family = MALLOWS_DISTANCES[self.distance]
        _require_untied(R, self.distance)
        if _is_complete(R):
            ranks = R.ranks.astype(np.int64)
            center = family.estimate_center(ranks, w)
            d = family.distances(R, center).astype(np.float64)
            mean = float(w @ d) / float(w.sum())
            return center, _family_theta_mle(family, mean, R.n_items, xtol=self.tol), 0, True
        rng = check_random_state(self.random_state)
        return partial.fit_em(R, w, family, max_iter=self.max_iter, tol=self.tol, rng=rng)

    def _loglik(self, R: Rankings) -> np.ndarray:
        if self.distance == "kendall":
            return _loglik_rows(R, self.center_, self.theta_)
        _require_untied(R, self.distance)
        family = MALLOWS_DISTANCES[self.distance]
        return partial.loglik_rows(R, family, self.center_, self.theta_)

    # ---------------------------------------------------------------- distribution
    def _check_data(self, R: Any) -> Rankings:
        check_is_fitted(self, ["center_", "theta_"])
        return check_rankings(R, n_items=self.n_items_, name="R", items=self.items_)

    def logpdf(self, R: Any) -> np.ndarray:
        """Log-probability of each ranking (see :func:`mallows_loglik` for every kind).

        Parameters
        ----------
        R : Rankings or array-like
            Rankings over ``n_items_`` items, with or without ties.

        Returns
        -------
        ndarray of float64, shape (n,)
        """
        R = self._check_data(R)
        return self._loglik(R)

    def pdf(self, R: Any) -> np.ndarray:
        """``exp(logpdf(R))``."""
        return np.exp(self.logpdf(R))

    def score(self, R: Any, y: Any = None) -> float:
        """Mean log-likelihood per ranking, weighted by ``R.weights``."""
        R = self._check_data(R)
        return float(np.average(self._loglik(R), weights=R.weights))

    def sample(self, size: int = 1, random_state: Any = None, lengths: Any = None) -> Rankings:
        """Exact draws (see :func:`sample_mallows`).

        Parameters
        ----------
        size : int, default=1
        random_state : None, int, RandomState or Generator, default=None
        lengths : int or array-like of int, shape (size,), optional
            Cut to top-t lists (``kind="top"``).

        Returns
        -------
        Rankings
        """
        check_is_fitted(self, ["center_", "theta_"])
        if self.distance == "kendall":
            return sample_mallows(self.center_, self.theta_, size, random_state, lengths)
        return _sample_family(
            MALLOWS_DISTANCES[self.distance],
            self.center_,
            self.theta_,
            size,
            random_state,
            lengths,
        )

    # ---------------------------------------------------------------- uncertainty
    def theta_standard_error(self, R: Any, sample_weight: Any = None) -> float:
        """Standard error of ``theta_``, conditional on the estimated centre ``center_``.

        ``1 / sqrt(sum_i w_i Var(d_K | length of row i))`` at ``theta_``, for complete
        rankings and top-t lists; pass the data and weights of the fit. The centre's own
        uncertainty is not included. See
        :func:`rankclust.inference.mallows_theta_standard_error`.

        Returns
        -------
        float
            ``nan`` when ``theta_`` is at the cap (infinite MLE).
        """
        from rankclust.inference import mallows_theta_standard_error

        R = self._check_data(R)
        if self.distance != "kendall":
            return self._family_theta_standard_error(R, sample_weight)
        if R.has_ties.any():
            return self._tied_theta_standard_error(R, sample_weight)
        return mallows_theta_standard_error(R, self.center_, self.theta_, sample_weight)

    def _family_theta_standard_error(self, R: Rankings, sample_weight: Any) -> float:
        """``1 / sqrt(W Var_theta(d))``: the Fisher information of theta, complete data only."""
        if not _is_complete(R) or R.has_ties.any():
            raise ValueError(
                f"theta standard errors for distance={self.distance!r} need complete rankings "
                "without ties (the partial-data information is not available; use the "
                "bootstrap)"
            )
        w = _total_weights(R, check_sample_weight(sample_weight, R.n_rankings))
        family = MALLOWS_DISTANCES[self.distance]
        info = float(w.sum()) * family.distance_variance(self.theta_, self.n_items_)
        if self.theta_ >= THETA_MAX or not info > 0:
            return float("nan")
        return float(1.0 / np.sqrt(info))

    def _tied_theta_standard_error(self, R: Rankings, sample_weight: Any) -> float:
        """``1 / sqrt(sum_i w_i (v_m - sum_B v_{|B|}))`` for complete/top rankings with ties."""
        if R.kind != "top" and not _is_complete(R):
            raise ValueError(
                "theta standard errors need complete rankings or top-t lists: for incomplete "
                'kind="subset" rankings Mallows fits theta by an approximate EM that maximises '
                "no likelihood (use the bootstrap)"
            )
        w = _total_weights(R, check_sample_weight(sample_weight, R.n_rankings))
        info = ties.tied_theta_information(R, self.theta_, w)
        if self.theta_ >= THETA_MAX or not info > 0:
            return float("nan")
        return float(1.0 / np.sqrt(info))

    def theta_confint(
        self, R: Any, sample_weight: Any = None, *, level: float = 0.95
    ) -> np.ndarray:
        """Wald interval of ``theta_`` (conditional on the centre), lower bound clipped at 0.

        Returns
        -------
        ndarray of float64, shape (2,)
        """
        from rankclust.inference import wald_intervals

        se = self.theta_standard_error(R, sample_weight)
        lo, hi = wald_intervals(np.array(self.theta_), np.array(se), level)
        return np.array([max(lo, 0.0), hi])

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        m = loaded.int_attr(self, "n_items_", low=1)
        loaded.items_attr(self, n_items=m)
        center = loaded.array_attr(self, "center_", kind="i", shape=(m,))
        loaded.check_permutations(center[None, :], "center_")
        loaded.float_attr(self, "theta_", low=0.0)
        loaded.choice_attr(self, "kind_", (None, "complete", *KINDS))
