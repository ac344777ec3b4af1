"""Standard error of the Kendall-Mallows dispersion theta, for a fixed (estimated) centre.

For a fixed centre the Mallows log-likelihood in theta of complete rankings and of top-t lists
(Busse et al. 2007) is an exponential family in the Kendall statistic:
``l(theta) = -theta sum_i w_i d_i - sum_i w_i log psi_{t_i}(theta)``. Its second derivative
is minus the variance of the statistic under the model, so observed and expected information
coincide:

    ``I(theta) = sum_i w_i Var_theta(d | t_i) = sum_l N_l v_l(theta)``,

with ``v_l`` the sum of the stage variances of the stages a length-``l`` row uses
(:func:`rankclust._mallows_math.length_tables`) and ``N_l`` the weighted number of
rows of length ``l``. The standard error ``1 / sqrt(I)`` is **conditional on the centre**:
the centre is a discrete estimate and its uncertainty is not included (use the bootstrap for
that).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankclust._mallows_math import length_tables
from rankclust._param_validation import check_sample_weight
from rankclust.models.mallows import THETA_MAX, _check_center, _is_complete
from rankclust.rankings import Rankings, check_rankings

__all__ = ["mallows_theta_information", "mallows_theta_standard_error"]


def _length_counts(R: Rankings, sample_weight: Any) -> tuple[np.ndarray, str]:
    sw = check_sample_weight(sample_weight, R.n_rankings)
    w = R.weights if sw is None else R.weights * sw
    m = R.n_items
    if _is_complete(R):
        lengths = np.full(R.n_rankings, m)
    elif R.kind == "top":
        lengths = R.lengths
    else:
        raise ValueError(
            "theta standard errors need complete rankings or top-t lists: for incomplete "
            'kind="subset" rankings Mallows fits theta by an approximate EM that maximises '
            "no likelihood (use the bootstrap)"
        )
    counts = np.bincount(np.asarray(lengths, dtype=np.int64), weights=w, minlength=m + 1)
    return counts, "top"


def mallows_theta_information(R: Any, theta: float, sample_weight: Any = None) -> float:
    """Fisher information of theta in a Kendall-Mallows sample, for a fixed centre.

    Parameters
    ----------
    R : Rankings or array-like
        Complete rankings, or top-t lists (``kind="top"``), without ties.
    theta : float
        Dispersion at which to evaluate it (``Mallows.theta_``), finite and ``>= 0``.
    sample_weight : array-like of float, shape (n,), optional
        Weight per ranking, multiplied by ``R.weights``.

    Returns
    -------
    float
        ``sum_i w_i Var_theta(d_K | length t_i)``: the negative second derivative of the
        log-likelihood in theta (observed = expected information; it does not depend on the
        centre).

    Raises
    ------
    ValueError
        For incomplete ``kind="subset"`` rankings (see the module notes), ties, or a bad theta.

    Notes
    -----
    Complexity: O(n + m) time after validation.

    Examples
    --------
    One complete ranking of 3 items at theta = 0 (uniform): the variance of the number of
    inversions of a uniform permutation, ``m (m - 1) (2m + 5) / 72 = 11/12``.

    >>> from rankclust import Rankings
    >>> round(mallows_theta_information(Rankings.from_orderings([[0, 1, 2]]), 0.0), 6)
    0.916667
    """
    R = check_rankings(R, allow_ties=False, name="R")
    th = float(theta)
    if not (np.isfinite(th) and th >= 0):
        raise ValueError(f"theta must be finite and >= 0, got {theta!r}")
    counts, kind = _length_counts(R, sample_weight)
    (var,) = length_tables(np.array([th]), R.n_items, kind, ("var",))
    return float(counts @ var[:, 0])


def mallows_theta_standard_error(
    R: Any, center: Any, theta: float, sample_weight: Any = None
) -> float:
    """Standard error of the maximum-likelihood theta, conditional on the centre.

    Parameters
    ----------
    R : Rankings or array-like
        The complete rankings or top-t lists theta was fitted to.
    center : array-like of int, shape (m,)
        The centre of the fit (position vector). The standard error treats it as known.
    theta : float
        The fitted dispersion.
    sample_weight : array-like of float, shape (n,), optional
        The weights of the fit.

    Returns
    -------
    float
        ``1 / sqrt(I(theta))``; ``nan`` when theta is at the cap ``THETA_MAX`` (every ranking
        at the centre: the MLE is infinite) or the information is 0.

    Examples
    --------
    >>> from rankclust.models import Mallows
    >>> R = Mallows.from_params(center=[0, 1, 2, 3], theta=1.0).sample(2000, random_state=0)
    >>> model = Mallows().fit(R)
    >>> se = mallows_theta_standard_error(R, model.center_, model.theta_)
    >>> bool(0.01 < se < 0.05)
    True
    """
    R = check_rankings(R, allow_ties=False, name="R")
    _check_center(center, R.n_items)
    info = mallows_theta_information(R, theta, sample_weight)
    if float(theta) >= THETA_MAX or not info > 0:
        return float("nan")
    return float(1.0 / np.sqrt(info))
