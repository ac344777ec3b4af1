"""Registry of Mallows distance families: one entry per distance, one theta solver for all.

A Mallows model with a right-invariant distance ``d`` is
``P(pi | c, theta) = exp(-theta d(pi, c)) / Z_m(theta)``; ``Z_m`` does not depend on the
centre ``c``. Each family (:class:`MallowsDistance`) supplies five functions with one
signature (positions convention: ``center[j]`` = 0-based position of item ``j``; ``ranks``
an ``(n, m)`` int array of complete rows, trusted):

* ``log_normalizer(theta, m) -> float``: ``log Z_m(theta)``;
* ``expected_distance(theta, m) -> float`` and ``distance_variance(theta, m) -> float``: the
  mean and variance of ``d(pi, c)`` under the model (``-d/dtheta log Z`` and its derivative);
* ``sample(center, theta, size, rng) -> (size, m) int64`` positions;
* ``estimate_center(ranks, weights) -> (m,) int64``: the weighted MLE of the centre (exact or
  a stated search, see each family);

plus the one-to-many distance function of :data:`rankclust.distances.DISTANCES` and the
maximum distance. Every family's dispersion is fitted by the one solver :func:`theta_mle`
(the score equation ``E_theta d = mean d`` is the same for all of them), so a family never
writes its own.

Adding a family is one entry in :data:`MALLOWS_DISTANCES` (a module with the five functions
and a metric name in :data:`rankclust.distances.DISTANCES`); the estimator
:class:`rankclust.models.Mallows` (``distance=``) and the tests read the registry.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from rankclust import distances as _dist
from rankclust.models import _mallows_cayley as cayley
from rankclust.models import _mallows_footrule as footrule
from rankclust.models import _mallows_hamming as hamming
from rankclust.models import _mallows_spearman as spearman
from rankclust.models import _mallows_ulam as ulam
from rankclust.rankings import Rankings

# Kendall's functions live in rankclust.models.mallows, which imports this registry; they are
# reached through function-level imports (the estimator module loads first).


@dataclass(frozen=True)
class MallowsDistance:
    """One Mallows distance family (see the module docstring for the five signatures).

    Attributes
    ----------
    name : str
        The metric name, a key of :data:`rankclust.distances.DISTANCES`.
    log_normalizer, expected_distance, distance_variance : callable ``(theta, m) -> float``
    sample : callable ``(center, theta, size, rng) -> ndarray (size, m)``
    estimate_center : callable ``(ranks, weights) -> ndarray (m,)``
    distances : callable ``(R, center) -> ndarray (n,)``
        The one-to-many distance of :data:`rankclust.distances.DISTANCES`.
    max_distance : callable ``(m) -> int``
    """

    name: str
    log_normalizer: Callable[[float, int], float]
    expected_distance: Callable[[float, int], float]
    distance_variance: Callable[[float, int], float]
    sample: Callable[..., np.ndarray]
    estimate_center: Callable[[np.ndarray, np.ndarray], np.ndarray]
    distances: Callable[..., np.ndarray]
    max_distance: Callable[[int], int]


def _family(name: str, module: object) -> MallowsDistance:
    """The registry entry of a module exposing the five functions of the family contract."""
    return MallowsDistance(
        name=name,
        log_normalizer=module.log_normalizer,
        expected_distance=module.expected_distance,
        distance_variance=module.distance_variance,
        sample=module.sample,
        estimate_center=module.estimate_center,
        distances=_dist.DISTANCES[name],
        max_distance=functools.partial(_dist.max_distance, name),
    )


# ------------------------------------------------------------------ Kendall: today's functions
def _kendall_log_normalizer(theta: float, m: int) -> float:
    from rankclust.models import mallows

    return float(mallows.log_normalizer(theta, m))


def _kendall_expected_distance(theta: float, m: int) -> float:
    from rankclust.models import mallows

    return float(mallows.expected_distance(theta, m))


def _kendall_distance_variance(theta: float, m: int) -> float:
    from rankclust.models import mallows

    return float(mallows.distance_variance(theta, m))


def _kendall_sample(
    center: np.ndarray, theta: float, size: int, rng: np.random.RandomState
) -> np.ndarray:
    from rankclust.models import mallows

    return mallows.sample_mallows(center, theta, size, rng).ranks.astype(np.int64)


def _kendall_estimate_center(ranks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    from rankclust.models import mallows

    R = Rankings._from_trusted(np.asarray(ranks, dtype=np.int64), kind="subset")
    return mallows.estimate_center(R, weights)


_KENDALL = MallowsDistance(
    name="kendall",
    log_normalizer=_kendall_log_normalizer,
    expected_distance=_kendall_expected_distance,
    distance_variance=_kendall_distance_variance,
    sample=_kendall_sample,
    estimate_center=_kendall_estimate_center,
    distances=_dist.DISTANCES["kendall"],
    max_distance=functools.partial(_dist.max_distance, "kendall"),
)

#: The Mallows distance families by metric name. Each further family is one line here:
#: ``"name": _family("name", module)``.
MALLOWS_DISTANCES: dict[str, MallowsDistance] = {
    "kendall": _KENDALL,
    "spearman": _family("spearman", spearman),
    "footrule": _family("footrule", footrule),
    "cayley": _family("cayley", cayley),
    "hamming": _family("hamming", hamming),
    "ulam": _family("ulam", ulam),
}


def theta_mle(
    family: MallowsDistance,
    mean_distance: float,
    m: int,
    *,
    theta_max: float | None = None,
    xtol: float = 1e-12,
) -> float:
    """Maximum-likelihood dispersion of any family from the weighted mean distance.

    The log-likelihood of complete rankings with a fixed centre is
    ``-theta sum_i w_i d_i - W log Z_m(theta)``; its derivative vanishes where
    ``E_theta d = mean d``. ``E_theta d`` is strictly decreasing in theta (its derivative is
    ``-Var_theta d < 0``), from the uniform mean ``E_0 d`` to 0, so the root is unique:
    0 when the mean is at or above ``E_0 d``, ``theta_max`` when it is at or below
    ``E_{theta_max} d`` (in particular a mean of 0, whose MLE is infinite), otherwise found by
    Brent's method on ``[0, theta_max]``.

    Parameters
    ----------
    family : MallowsDistance
    mean_distance : float
        Weighted mean distance to the centre, ``>= 0``.
    m : int
        Number of items.
    theta_max : float, optional
        Cap; default :data:`rankclust.models.mallows.THETA_MAX` (50.0).
    xtol : float, default=1e-12
        Absolute tolerance on theta.

    Returns
    -------
    float

    Notes
    -----
    Complexity: O(I x cost of ``expected_distance``) for I <= ~50 Brent iterations.
    """
    if theta_max is None:
        from rankclust.models.mallows import THETA_MAX as theta_max
    mean = float(mean_distance)
    if not np.isfinite(mean) or mean < 0:
        raise ValueError(f"mean_distance must be finite and non-negative, got {mean_distance!r}")
    if m < 2:
        return float(theta_max)
    if mean >= family.expected_distance(0.0, m):
        return 0.0
    if mean <= family.expected_distance(theta_max, m):
        return float(theta_max)
    return float(
        brentq(lambda t: family.expected_distance(t, m) - mean, 0.0, theta_max, xtol=xtol)
    )
