"""The Plackett-Luce model: likelihood, MM / MAP fits and exact sampling.

Under Plackett-Luce (PL) with positive worths ``v = exp(z)``, a ranking is built stage by stage:
at every stage the next item is drawn from the items not yet placed with probability
proportional to its worth. The log-worths ``z`` ("scores") are defined up to an additive
constant; rankclust reports them centred (mean zero), the convention of choix.

Three kinds of observation are supported (see :mod:`rankclust.rankings` for the rank-matrix
convention). The functions of this module take rankings without ties; the estimator
:class:`PlackettLuce` also fits rankings with ties through the Davidson-Luce extension of
:mod:`rankclust.models._davidson_luce` (untied data keep the code below unchanged):

* a complete ranking of the ``m`` items: ``m - 1`` stages;
* ``kind="top"``, a top-k list: ``min(k, m - 1)`` stages, each over *all* items not yet placed,
  absent ones included (they rank below the k listed items). This is the probability that a
  complete PL ranking starts with the listed items;
* ``kind="subset"``, a ranking of a subset of ``l`` items: ``l - 1`` stages over the present
  items only. This is the marginal probability that the present items come in that order
  (PL is internally consistent: the marginal on a subset is PL on that subset).

Each row is compiled once into a :class:`ChoiceStages` (identical rows merged). One compiled
pass over the stages, :func:`stage_pass`, gives the log-likelihood of every row and the
exposures of Hunter's MM update under K score vectors at once; :func:`mm_wins`,
:func:`mm_denominators` and :func:`mm_worths` turn them into the update. These are the one
implementation of the PL likelihood and MM step: :func:`loglik_rows`, :func:`fit_scores`
(hence :class:`PlackettLuce`) and the Plackett-Luce mixture of :mod:`rankclust.cluster.mixture`
(K components, responsibilities as per-row weights) all call them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numba
import numpy as np
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust._param_validation import (
    Interval,
    ValidatedParamsMixin,
    check_sample_weight,
    check_weight_total,
    validate_arguments,
)
from rankclust._row_threads import component_groups, run_blocks, split_rows
from rankclust.models import _davidson_luce as dl
from rankclust.rankings import Rankings, check_rankings

__all__ = [
    "MAX_TIE_ORDER",
    "ChoiceStages",
    "PlackettLuce",
    "TieStages",
    "choice_stages",
    "davidson_luce_information",
    "davidson_luce_loglik",
    "fit_davidson_luce",
    "fit_scores",
    "loglik_rows",
    "mm_denominators",
    "mm_sums",
    "mm_wins",
    "mm_worths",
    "stage_pass",
    "tie_stages",
]

# The Davidson-Luce (ties) functions live in their own module; published here, beside the
# Plackett-Luce ones, for the estimators (and mixtures) that build on them.
#: Largest tie order (bucket size) the Davidson-Luce fit accepts (see
#: :mod:`rankclust.models._davidson_luce`).
MAX_TIE_ORDER = dl.MAX_TIE_ORDER
TieStages = dl.TieStages
tie_stages = dl.tie_stages
davidson_luce_loglik = dl.davidson_luce_loglik
davidson_luce_information = dl.davidson_luce_information
fit_davidson_luce = dl.fit_davidson_luce
check_tie_order = dl.check_tie_order  # for the mixtures (not in __all__)


# --------------------------------------------------------------------------------------------
# compiled data
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChoiceStages:
    """Rankings compiled into Plackett-Luce choice stages (built by :func:`choice_stages`).

    Row ``r`` of the compact arrays is one *distinct* input ranking. Its items are listed in
    ``order[r]``: the present items best first, then the absent items. Stage ``s`` of row ``r``
    (active when ``active[r, s]``) chose ``order[r, s]`` from the items ``order[r, t]``,
    ``t >= s``, with ``in_set[r, t]``.

    Attributes
    ----------
    order : ndarray of intp, shape (u, m)
        Items by position; ``u`` is the number of distinct rankings.
    in_set : ndarray of bool, shape (u, m)
        Position ``t`` takes part in the choice sets (present items; also absent items for
        ``kind="top"``).
    active : ndarray of bool, shape (u, m)
        Stage ``s`` is a real choice (a prefix of each row).
    inverse : ndarray of intp, shape (n,)
        Distinct row of each input row.
    weights : ndarray of float64, shape (n,)
        The input rows' own weights (``Rankings.weights``).
    distinct : Rankings
        The distinct rankings with unit weights (used for the comparison graph).
    """

    order: np.ndarray
    in_set: np.ndarray
    active: np.ndarray
    inverse: np.ndarray
    weights: np.ndarray
    distinct: Rankings

    @property
    def n_items(self) -> int:
        return self.order.shape[1]

    @property
    def n_rankings(self) -> int:
        return self.inverse.shape[0]

    def row_weights(self, sample_weight: Any = None) -> np.ndarray:
        """Total weight of each distinct row: ``sum`` of ``weights * sample_weight`` over copies.

        Parameters
        ----------
        sample_weight : array-like of float, shape (n,), optional
            Extra non-negative weight per input row (e.g. responsibilities). Trusted.

        Returns
        -------
        ndarray of float64, shape (u,)
        """
        w = self.weights if sample_weight is None else self.weights * sample_weight
        return np.bincount(self.inverse, weights=w, minlength=self.order.shape[0])


def choice_stages(R: Rankings, *, compress: bool = True) -> ChoiceStages:
    """Compile rankings into Plackett-Luce choice stages.

    Parameters
    ----------
    R : Rankings, shape (n, m)
        Rankings without ties, of either kind.
    compress : bool, default=True
        Merge identical rows first (``R.unique()``); ballots repeat a lot, so the fit then
        costs O(u m) per iteration for ``u`` distinct rankings instead of O(n m).

    Returns
    -------
    ChoiceStages

    Raises
    ------
    ValueError
        If a ranking has ties (naming the first such row).

    Notes
    -----
    Complexity: O(n m log m + n m log n) time (sorting rows; the second term only when
    compressing), O(n m) memory.
    """
    R = check_rankings(R, allow_ties=False)
    if compress:
        distinct, inverse = R.unique()
    else:
        distinct, inverse = R, np.arange(R.n_rankings)
    ranks = distinct.ranks
    u, m = ranks.shape
    present = ranks >= 0
    lengths = present.sum(axis=1)
    # Absent items sort after the present ones (stable: by item index among themselves).
    order = np.argsort(np.where(present, ranks, m), axis=1, kind="stable")
    pos = np.arange(m)
    if distinct.kind == "top":
        in_set = np.ones((u, m), dtype=bool)
        n_stages = np.minimum(lengths, m - 1)
    else:
        in_set = pos[None, :] < lengths[:, None]
        n_stages = np.maximum(lengths - 1, 0)
    active = pos[None, :] < n_stages[:, None]
    return ChoiceStages(
        order=order,
        in_set=in_set,
        active=active,
        inverse=np.asarray(inverse, dtype=np.intp).reshape(-1),
        weights=R.weights,
        distinct=distinct.with_weights(np.ones(u)),
    )


def _as_stages(R: Any) -> ChoiceStages:
    if isinstance(R, ChoiceStages):
        return R
    if not isinstance(R, Rankings):
        raise TypeError(f"expected a Rankings or ChoiceStages, got {type(R).__name__}")
    return choice_stages(R)


# --------------------------------------------------------------------------------------------
# likelihood
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _stage_row_log(order, in_set, active, scores, i, k, with_expo, loglik, exposure, scratch):
    """Row ``i``, component ``k`` of :func:`_stage_pass` in log space (any finite scores).

    The stage totals ``S_is`` are accumulated from the end with a running maximum, so no
    worth overflows or underflows; ``scratch`` (2, m) holds the running maxima and sums.
    """
    m = order.shape[1]
    s_max = scratch[0]
    s_acc = scratch[1]
    mx = -np.inf
    acc = 0.0
    for t in range(m - 1, -1, -1):
        if in_set[i, t]:
            z = scores[k, order[i, t]]
            if z > mx:
                acc = acc * np.exp(mx - z) + 1.0
                mx = z
            elif z > -np.inf:
                acc += np.exp(z - mx)
        s_max[t] = mx
        s_acc[t] = acc
    ll = 0.0
    expo = 0.0
    for t in range(m):
        if active[i, t]:
            log_s = s_max[t] + np.log(s_acc[t])
            ll += scores[k, order[i, t]] - log_s
            if with_expo:
                expo += np.exp(-log_s)
        if with_expo:
            exposure[i, k, t] = expo if in_set[i, t] else 0.0
    loglik[i, k] = ll


# stage totals (and their running product) in this range are computed in worth space with
# no loss of precision (a product of two stays a normal float); a row with a total outside
# it (extreme or infinite scores) is redone in log space
_WORTH_SPACE_MIN = 1e-150
_WORTH_SPACE_MAX = 1e150


def _stage_pass(order, in_set, active, scores, with_expo, loglik, exposure):  # pragma: no cover
    """Plackett-Luce log-likelihood and MM exposures of every row under K score vectors.

    The one implementation of the PL stage computations (plain Python, compiled below as
    :data:`_nb_stage_pass`; the pure-Python reference lives in the tests). ``order``,
    ``in_set``, ``active`` (u, m) are the arrays of a :class:`ChoiceStages`; ``scores``
    (K, m) are log-worths. For row ``i`` and component ``k``, ``S_is`` is the worth still in
    the choice set at stage ``s`` (items ``order[i, t]``, ``t >= s``, with ``in_set``).
    Writes

    * ``loglik[i, k] = sum over active stages s of (z[order[i, s]] - log S_is)``;
    * when ``with_expo``: ``exposure[i, k, t] = sum_{active s <= t} 1 / S_is`` at
      positions ``t`` in the choice sets (0 elsewhere), the coefficient of item
      ``order[i, t]`` in Hunter's MM denominator (in the units of ``exp(scores)``).

    The totals are summed in worth space (``exp(scores)``, one exponential per item, not
    per stage) and the logarithm is taken of their running product (one per row unless the
    product leaves ``[1e-150, 1e150]``): several times faster than log space, and exact to
    rounding while every total is in ``[1e-150, 1e150]`` (the mixtures' mean-one worths are
    at most m). A row with a total outside that range, or a non-finite one, is redone in
    log space (:func:`_stage_row_log`, the pass of earlier versions), so any scores work
    (``-inf`` is a worth of 0).

    One pass, O(u K m) time.
    """
    u, m = order.shape
    n_comp = scores.shape[0]
    worths = np.exp(scores)
    s_tot = np.empty(m)
    scratch = np.empty((2, m))
    for i in range(u):
        for k in range(n_comp):
            acc = 0.0
            for t in range(m - 1, -1, -1):
                if in_set[i, t]:
                    acc += worths[k, order[i, t]]
                s_tot[t] = acc
            ll = 0.0
            prod = 1.0
            expo = 0.0
            safe = True
            for t in range(m):
                if active[i, t]:
                    s = s_tot[t]
                    if not (_WORTH_SPACE_MIN <= s <= _WORTH_SPACE_MAX):
                        safe = False
                        break
                    ll += scores[k, order[i, t]]
                    prod *= s
                    if not (_WORTH_SPACE_MIN <= prod <= _WORTH_SPACE_MAX):
                        ll -= np.log(prod)
                        prod = 1.0
                    if with_expo:
                        expo += 1.0 / s
                if with_expo:
                    exposure[i, k, t] = expo if in_set[i, t] else 0.0
            if safe:
                loglik[i, k] = ll - np.log(prod)
            else:
                _stage_row_log(
                    order, in_set, active, scores, i, k, with_expo, loglik, exposure, scratch
                )


def _stage_pass_log(
    order, in_set, active, scores, with_expo, loglik, exposure
):  # pragma: no cover
    """:func:`_stage_pass` wholly in log space (the kernel of earlier versions: every stage
    total by a running log-sum-exp); the reference of the worth-space pass in the tests and
    benchmarks."""
    u, m = order.shape
    n_comp = scores.shape[0]
    scratch = np.empty((2, m))
    for k in range(n_comp):
        for i in range(u):
            _stage_row_log(
                order, in_set, active, scores, i, k, with_expo, loglik, exposure, scratch
            )


_nb_stage_pass = numba.njit(_stage_pass, cache=True, nogil=True)
_nb_stage_pass_log = numba.njit(_stage_pass_log, cache=True, nogil=True)


def stage_pass(
    stages: ChoiceStages, scores: np.ndarray, *, exposure: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """Log-likelihood and MM exposures of every distinct row under K score vectors.

    The compiled kernel behind :func:`loglik_rows`, :func:`fit_scores` and the
    Plackett-Luce mixtures (:class:`rankclust.cluster.PlackettLuceMixture` computes its
    E-step and its MM M-step for all K components with it). Trusts its input.

    Parameters
    ----------
    stages : ChoiceStages, u distinct rows over m items
    scores : ndarray of float64, shape (K, m)
        Log-worths per component (any finite values; ``-inf`` is a worth of 0).
    exposure : bool, default=True
        Also compute the exposures (skip them for a likelihood only).

    Returns
    -------
    loglik : ndarray of float64, shape (u, K)
        Log-probability of each distinct row under each component (row weights not applied).
    exposure : ndarray of float64, shape (u, K, m), or None
        ``exposure[i, k, t] = sum_{active stages s <= t} 1 / S_is`` for positions ``t`` in the
        choice sets (0 elsewhere), where ``S_is`` is the total worth ``exp(scores[k])`` still
        available at stage ``s``; see :func:`mm_denominators`.

    Notes
    -----
    Complexity: O(u K m) time, O(u K m) memory with exposures (O(u K) without).
    """
    order = np.ascontiguousarray(stages.order, dtype=np.int64)
    u, m = order.shape
    z = np.ascontiguousarray(scores, dtype=np.float64)
    loglik = np.empty((u, z.shape[0]))
    expo = np.empty((u, z.shape[0], m) if exposure else (0, 0, 0))
    in_set = np.ascontiguousarray(stages.in_set)
    active = np.ascontiguousarray(stages.active)

    def block(lo: int, hi: int) -> None:  # rows are independent: any split, the same bits
        out = expo[lo:hi] if exposure else expo
        _nb_stage_pass(order[lo:hi], in_set[lo:hi], active[lo:hi], z, exposure, loglik[lo:hi], out)

    run_blocks(block, split_rows(u))
    return loglik, (expo if exposure else None)


def _loglik_compact(stages: ChoiceStages, scores: np.ndarray) -> np.ndarray:
    """Log-likelihood of each distinct row, shape (u,) or (K, u) for scores (m,) or (K, m).

    Trusts its input; :func:`stage_pass` without exposures.
    """
    z = np.atleast_2d(scores)
    loglik, _ = stage_pass(stages, z, exposure=False)
    return loglik[:, 0] if scores.ndim == 1 else loglik.T


def loglik_rows(R: Rankings | ChoiceStages, scores: Any) -> np.ndarray:
    """Plackett-Luce log-likelihood of every ranking.

    Parameters
    ----------
    R : Rankings or ChoiceStages, n rankings over m items
        Complete, top-k (``kind="top"``) or subset (``kind="subset"``) rankings, no ties.
    scores : array-like of float, shape (m,) or (K, m)
        Log-worths (any additive shift), or one row of log-worths per component.

    Returns
    -------
    ndarray of float64, shape (n,) or (n, K)
        Log-probability of each ranking (per component). The rankings' own weights are not
        applied.

    Notes
    -----
    Complexity: O(K u m) time and memory for ``u`` distinct rankings, plus O(n K) to expand.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[2, 0, 1], [2, 0]], n_items=3, kind="top")
    >>> np.exp(loglik_rows(R, np.log([3.0, 1.0, 5.0]))).round(4)
    array([0.4167, 0.4167])
    """
    stages = _as_stages(R)
    z = np.asarray(scores, dtype=np.float64)
    if z.ndim not in (1, 2) or z.shape[-1] != stages.n_items:
        raise ValueError(f"scores must have shape ({stages.n_items},) or (K, {stages.n_items})")
    if not np.isfinite(z).all():
        raise ValueError("scores must be finite")
    compact = _loglik_compact(stages, z)
    return compact[stages.inverse] if z.ndim == 1 else compact[:, stages.inverse].T


# --------------------------------------------------------------------------------------------
# fitting
# --------------------------------------------------------------------------------------------
def _mm_sums(order, in_set, active, row_w, exposure, wins, denoms, k_lo, k_hi):  # pragma: no cover
    """Add Hunter's MM sums of every row to rows ``k_lo:k_hi`` of ``wins`` and ``denoms``
    (K, m), in place (components ``k_lo:k_hi``, so that threads can share the components out).

    ``wins[k, c] += row_w[i, k]`` for the item ``c`` chosen at each active stage of row i;
    ``denoms[k, c] += row_w[i, k] * exposure[i, k, t]`` for the item ``c = order[i, t]`` at
    each position ``t`` (skipped when ``exposure`` is empty). Rows in order, then positions:
    the order of the sums of ``np.bincount`` over the flattened rows, so the sums are the
    same to the last bit. One pass, O(u K m) time.
    """
    u, m = order.shape
    with_denoms = exposure.shape[0] > 0
    for i in range(u):
        for k in range(k_lo, k_hi):
            w = row_w[i, k]
            for t in range(m):
                c = order[i, t]
                if active[i, t]:
                    wins[k, c] += w
                if with_denoms:
                    denoms[k, c] += w * exposure[i, k, t]


_nb_mm_sums = numba.njit(_mm_sums, cache=True, nogil=True)


def mm_sums(
    stages: ChoiceStages, row_w: np.ndarray, exposure: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Hunter's MM sums ``(wins, denoms)``, each (K, m): :func:`mm_wins` and
    :func:`mm_denominators` in one compiled pass (``denoms`` is zero when ``exposure`` is
    None). A sum over rows, so chunks of rows can be summed.

    Complexity: O(u K m) time.
    """
    order = np.ascontiguousarray(stages.order, dtype=np.int64)
    row_w = np.ascontiguousarray(row_w, dtype=np.float64)
    k_comp = row_w.shape[1]
    wins = np.zeros((k_comp, stages.n_items))
    denoms = np.zeros((k_comp, stages.n_items))
    expo = np.zeros((0, 0, 0)) if exposure is None else np.ascontiguousarray(exposure)
    in_set = np.ascontiguousarray(stages.in_set)
    active = np.ascontiguousarray(stages.active)

    def group(k_lo: int, k_hi: int) -> None:  # components, never rows: the same sums
        _nb_mm_sums(order, in_set, active, row_w, expo, wins, denoms, k_lo, k_hi)

    run_blocks(group, component_groups(k_comp, order.shape[0]))
    return wins, denoms


def mm_wins(stages: ChoiceStages, row_w: np.ndarray) -> np.ndarray:
    """Weighted number of stages each item wins, per component, shape (K, m).

    ``wins[k, c] = sum_i row_w[i, k] [c is chosen at an active stage of row i]``: the
    numerator of Hunter's MM update. ``row_w`` (u, K) are weights of the distinct rows (for a
    mixture ``w_i q_ik``). A sum over rows, so chunks of rows can be summed.

    Complexity: O(u K m) time.
    """
    return mm_sums(stages, row_w, None)[0]


def mm_denominators(stages: ChoiceStages, row_w: np.ndarray, exposure: np.ndarray) -> np.ndarray:
    """Hunter's MM denominators per component, shape (K, m).

    ``denoms[k, c] = sum_i row_w[i, k] sum_{stages s of row i whose choice set holds c}
    1 / S_is``, from the exposures of :func:`stage_pass` at the current worths. A sum over
    rows, so chunks of rows can be summed.

    Complexity: O(u K m) time.
    """
    return mm_sums(stages, row_w, exposure)[1]


def mm_worths(wins: np.ndarray, denoms: np.ndarray, alpha: float) -> np.ndarray:
    """The MM / MAP update ``v = (wins + alpha) / (denoms + alpha)``, scaled to mean 1.

    Works on (m,) or (K, m) arrays (one update per row). See :func:`fit_scores` for the
    update and the role of ``alpha``.
    """
    v = (wins + alpha) / (denoms + alpha)
    return v / v.mean(axis=-1, keepdims=True)


def _mm_step(
    stages: ChoiceStages,
    row_w: np.ndarray,
    wins: np.ndarray,
    worths: np.ndarray,
    alpha: float,
) -> np.ndarray:
    """One MM update of the worths, rescaled to mean 1. Trusts its input.

    ``v_c <- (alpha + W_c) / (alpha + D_c)`` with ``D_c = sum_i w_i sum_{stages s of row i
    whose choice set holds c} 1 / S_is`` (:func:`stage_pass`, :func:`mm_denominators`).
    """
    with np.errstate(divide="ignore"):
        z = np.log(worths)
    _, exposure = stage_pass(stages, z[None, :])
    denoms = mm_denominators(stages, row_w[:, None], exposure)[0]
    return mm_worths(wins, denoms, alpha)


def _comparison_problem(stages: ChoiceStages, row_w: np.ndarray) -> str | None:
    """Why the MLE does not exist (Hunter 2004, Assumption 1), or None if it does.

    The MLE exists iff the directed graph "u beats v in some ranking of positive weight" is
    strongly connected.
    """
    m = stages.n_items
    beats = stages.distinct.pairwise_counts(weights=row_w) > 0
    n_comp, _ = connected_components(beats, directed=True, connection="strong")
    if n_comp <= 1:
        return None
    never_win = np.flatnonzero(~beats.any(axis=1))
    never_lose = np.flatnonzero(~beats.any(axis=0))
    unseen = np.intersect1d(never_win, never_lose)
    parts = []
    if unseen.size:
        parts.append(f"items {unseen.tolist()} are never compared")
    never_win = np.setdiff1d(never_win, unseen)
    never_lose = np.setdiff1d(never_lose, unseen)
    if never_lose.size:
        parts.append(f"items {never_lose.tolist()} never lose")
    if never_win.size:
        parts.append(f"items {never_win.tolist()} never win")
    if not parts:
        parts.append(f"the {m} items split into {n_comp} groups that never beat each other")
    return "; ".join(parts)


@validate_arguments(
    {
        "alpha": [Interval(Real, 0, None)],
        "max_iter": [Interval(Integral, 0, None)],
        "tol": [Interval(Real, 0, None)],
    }
)
def fit_scores(
    R: Rankings | ChoiceStages,
    sample_weight: Any = None,
    *,
    alpha: float = 0.0,
    init: Any = None,
    max_iter: int = 1000,
    tol: float = 1e-10,
) -> tuple[np.ndarray, int, bool]:
    """Maximum-likelihood (``alpha=0``) or MAP Plackett-Luce scores by MM.

    Parameters
    ----------
    R : Rankings or ChoiceStages, n rankings over m items
        Complete, top-k or subset rankings without ties. Pass a :class:`ChoiceStages`
        (from :func:`choice_stages`) to reuse the compiled data across calls, as an EM does.
    sample_weight : array-like of float, shape (n,), optional
        Non-negative weight per ranking (e.g. responsibilities), multiplied by the rankings'
        own weights.
    alpha : float, default=0.0
        Strength of the Gamma(1 + alpha, alpha) prior on each worth; 0 gives the MLE.
    init : array-like of float, shape (m,), optional
        Initial log-worths (any shift); default all zero.
    max_iter : int, default=1000
        Maximum number of MM updates.
    tol : float, default=1e-10
        Stop when no centred score moves by more than ``tol`` in one update.

    Returns
    -------
    scores : ndarray of float64, shape (m,)
        Log-worths with mean zero.
    n_iter : int
        Number of MM updates made.
    converged : bool
        Whether the ``tol`` criterion was met within ``max_iter`` updates.

    Raises
    ------
    ValueError
        On bad weights or ``init``, and, when ``alpha == 0``, if the MLE does not exist
        (some items never lose or never win against the rest; the message names them).

    Notes
    -----
    The update is the MM algorithm of Hunter (2004, eq. 30) for the generalised
    Bradley-Terry model, in the weighted form of Grbovic et al. (2013, eqs. 31-33). With
    ``alpha > 0`` it is the MM algorithm for the MAP estimate of Caron & Doucet (2012, §3.3)
    under independent Gamma(a = 1 + alpha, b = alpha) priors on the worths,

        ``v_c <- (a - 1 + W_c) / (b + D_c(v))``,

    where ``W_c`` is the weighted number of stages item ``c`` wins and ``D_c`` its weighted
    sum of inverse stage totals. After each update the worths are rescaled to mean 1, the
    scale that maximises the posterior along that ray, so each update is still an ascent step
    (for ``alpha = 0`` the likelihood is scale-free). This is the update ``choix.mm_rankings``
    performs for its ``alpha``, so both reach the same estimate for every ``alpha``. The prior
    acts as ``alpha`` pseudo-wins and ``alpha`` units of exposure per item: the MAP is finite
    and unique for any data, even when an item never loses, never wins or never appears.

    Complexity: O(T u m) time and O(u m) memory for T updates over u distinct rankings
    (plus O(u m^2) for the existence check when ``alpha == 0``).

    References
    ----------
    Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. The Annals of
    Statistics, 32(1), 384-406.

    Caron, F. & Doucet, A. (2012). Efficient Bayesian inference for generalized Bradley-Terry
    models. Journal of Computational and Graphical Statistics, 21(1), 174-196.

    Grbovic, M., Djuric, N., Guo, S. & Vucetic, S. (2013). Supervised clustering of label
    ranking data using label preference information. Machine Learning, 93(2-3), 191-225.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2], [1, 0, 2], [0, 2, 1], [2, 1, 0]])
    >>> scores, n_iter, converged = fit_scores(R)
    >>> scores.round(3), converged
    (array([ 0.321,  0.055, -0.376]), True)
    """
    stages = _as_stages(R)
    m = stages.n_items
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, stages.n_rankings)
    if m == 0:
        raise ValueError("Plackett-Luce needs at least one item")
    if init is None:
        z = np.zeros(m)
    else:
        z = np.asarray(init, dtype=np.float64)
        if z.shape != (m,) or not np.isfinite(z).all():
            raise ValueError(f"init must be {m} finite log-worths, got shape {z.shape}")
        z = z - z.mean()
    with np.errstate(over="ignore"):
        row_w = stages.row_weights(sample_weight)
    check_weight_total(row_w, what="rankings")  # (a total of inf would make the MM updates NaN)
    if m == 1:
        return np.zeros(1), 0, True
    alpha = float(alpha)
    if alpha == 0.0:
        problem = _comparison_problem(stages, row_w)
        if problem is not None:
            raise ValueError(
                "the Plackett-Luce maximum-likelihood estimate does not exist (scores would "
                f"diverge): {problem}. Use alpha > 0 for a finite MAP estimate."
            )
    wins = mm_wins(stages, row_w[:, None])[0]
    worths = np.exp(z - z.max())
    worths /= worths.mean()
    converged = False
    n_iter = 0
    while n_iter < max_iter:
        worths = _mm_step(stages, row_w, wins, worths, alpha)
        n_iter += 1
        z_new = np.log(worths)
        z_new -= z_new.mean()
        delta = np.abs(z_new - z).max()
        z = z_new
        if delta <= tol:
            converged = True
            break
    return z, n_iter, converged


# --------------------------------------------------------------------------------------------
# the estimator
# --------------------------------------------------------------------------------------------
class PlackettLuce(ValidatedParamsMixin, BaseEstimator):
    """Plackett-Luce model fitted by Hunter's MM algorithm, with an optional Gamma prior.

    ``P(ranking) = prod_s v(item chosen at stage s) / sum_{items c still available} v(c)``
    for worths ``v = exp(scores_)``. Fits complete rankings, top-k lists (``kind="top"``:
    unlisted items rank below the listed ones) and subset rankings (``kind="subset"``: the
    PL marginal on the present items); see :mod:`rankclust.models.plackett_luce`.

    **Ties.** Rankings with ties (several items in one position) are fitted by the
    Davidson-Luce model (Turner et al. 2020): at every stage a set ``S`` of ``d`` items is
    chosen, tied, with probability proportional to ``delta_d (prod_{i in S} v_i)^(1/d)``,
    ``delta_1 = 1``, for tie orders ``d`` up to the largest observed ``D`` (at most
    :data:`~rankclust.models._davidson_luce.MAX_TIE_ORDER`). ``fit`` then also sets
    ``tie_strengths_ = (delta_2, ..., delta_D)``; on data without ties it runs the
    Plackett-Luce MM fit unchanged and ``tie_strengths_`` is empty (``D = 1``: a tied ranking
    then has probability 0). See :mod:`rankclust.models._davidson_luce` for the stages of
    each kind and the fit (L-BFGS and Newton on the concave log-likelihood).

    Parameters
    ----------
    alpha : float, default=0.0
        Strength of an independent Gamma(1 + alpha, alpha) prior on each worth (mode 1).
        ``alpha=0`` gives the exact maximum-likelihood estimate, and ``fit`` raises
        ``ValueError`` when that does not exist (an item never loses, never wins, or the items
        split into groups that never beat each other). Any ``alpha > 0`` gives a finite,
        unique MAP estimate; it equals choix's ``alpha``.
    max_iter : int, default=1000
        Maximum number of MM updates.
    tol : float, default=1e-10
        Convergence when no centred score moves by more than ``tol`` in an update.

    Attributes
    ----------
    scores_ : ndarray of float64, shape (n_items,)
        Log-worths, mean zero (choix's ``params`` convention).
    worths_ : ndarray of float64, shape (n_items,)
        ``exp(scores_)`` normalised to sum 1.
    tie_strengths_ : ndarray of float64, shape (D - 1,)
        Davidson-Luce tie strengths ``delta_2..delta_D`` (empty when fitted on untied data).
        An order up to ``D`` that the data never show has strength 0 (its MLE).
    ranking_ : ndarray of int64, shape (n_items,)
        Position vector of the modal ranking: ``ranking_[j]`` is the 0-based position of item
        ``j`` when items are ordered by decreasing score (ties broken by item index).
    n_items_ : int
    n_iter_ : int
        Number of MM updates made by ``fit``.
    converged_ : bool
        Whether ``fit`` met ``tol``; a ``ConvergenceWarning`` is emitted otherwise.
    items_ : tuple of str or None
        Item names of the training rankings (None when unnamed); named input to the
        prediction methods is matched to them by name (see
        :func:`rankclust.rankings.check_rankings`).

    See Also
    --------
    fit_scores, loglik_rows : the functions this estimator calls (reusable by mixtures).

    Notes
    -----
    The MLE / MAP and its MM update are described in :func:`fit_scores`. ``fit`` merges
    identical rankings first, so ballots with many repeats fit fast. The sampler uses the
    Gumbel-max representation of PL (Yellott 1977): sorting ``scores_ + Gumbel noise`` in
    decreasing order gives an exact PL draw.

    Complexity: ``fit`` O(n m log n + T u m) time and O(n m) memory for n rankings, u of them
    distinct, T MM updates; ``logpdf`` O(n m log n); ``sample`` O(size m log m). With ties
    (largest tie order D): one likelihood and gradient O(a m D^3 + u m) for ``a`` distinct
    choice sets over all stages, ``fit`` T of them (L-BFGS) plus one central-difference
    Hessian, 2 (m + D) gradients, for the Newton polish; ``sample`` O(size m^2 D^2).

    References
    ----------
    Turner, H. L., van Etten, J., Firth, D. & Kosmidis, I. (2020). Modelling rankings in R:
    the PlackettLuce package. Computational Statistics, 35, 1027-1057.

    Plackett, R. L. (1975). The analysis of permutations. Applied Statistics, 24(2), 193-202.

    Luce, R. D. (1959). Individual choice behavior. Wiley.

    Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. The Annals of
    Statistics, 32(1), 384-406.

    Caron, F. & Doucet, A. (2012). Efficient Bayesian inference for generalized Bradley-Terry
    models. Journal of Computational and Graphical Statistics, 21(1), 174-196.

    Yellott, J. I. (1977). The relationship between Luce's choice axiom, Thurstone's theory of
    comparative judgment, and the double exponential distribution. Journal of Mathematical
    Psychology, 15(2), 109-144.

    Examples
    --------
    The worked example of Grbovic et al. (2013, eq. 12): worths (3, 1, 5) give the ranking
    c > a > b probability 5/9 * 3/4 = 0.417.

    >>> import numpy as np
    >>> from rankclust import Rankings
    >>> from rankclust.models.plackett_luce import PlackettLuce
    >>> true = PlackettLuce.from_params(scores=np.log([3.0, 1.0, 5.0]))
    >>> true.pdf(Rankings.from_orderings([[2, 0, 1]])).round(3)
    array([0.417])
    >>> R = true.sample(5000, random_state=0)
    >>> model = PlackettLuce().fit(R)
    >>> model.ranking_
    array([1, 2, 0])
    >>> bool(np.abs(model.worths_ - [1/3, 1/9, 5/9]).max() < 0.02)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, *, alpha: float = 0.0, max_iter: int = 1000, tol: float = 1e-10) -> None:
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol

    # ---------------------------------------------------------------- construction
    def fit(self, R: Any, y: None = None, sample_weight: Any = None) -> PlackettLuce:
        """Fit the scores by MM (maximum likelihood, or MAP when ``alpha > 0``).

        Parameters
        ----------
        R : Rankings or array-like of shape (n, m)
            Rankings, with or without ties (array input: 1-based ranks, 0 for missing, read
            as ``kind="subset"``). Ties select the Davidson-Luce fit.
        y : None
            Ignored.
        sample_weight : array-like of float, shape (n,), optional
            Weight per ranking, multiplied by ``R.weights``. Weighted data give the same fit
            as the data with each ranking repeated.

        Returns
        -------
        self : PlackettLuce

        Raises
        ------
        ValueError
            On bad weights, a tie of more than ``MAX_TIE_ORDER`` items, or when
            ``alpha == 0`` and the maximum-likelihood estimate does not exist.
        """
        self._validate_params()
        R = check_rankings(R)
        if R.n_items == 0:
            raise ValueError("R has no items")
        if R.has_ties.any():
            return self._fit_ties(R, sample_weight)
        scores, n_iter, converged = fit_scores(
            choice_stages(R),
            sample_weight,
            alpha=self.alpha,
            max_iter=self.max_iter,
            tol=self.tol,
        )
        if not converged:
            warnings.warn(
                f"PlackettLuce did not converge in max_iter={self.max_iter} MM updates "
                f"(tol={self.tol}); increase max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self._set_scores(scores)
        self.items_ = R.items
        self.n_iter_ = n_iter
        self.converged_ = converged
        return self

    def _fit_ties(self, R: Rankings, sample_weight: Any) -> PlackettLuce:
        """The Davidson-Luce fit (``R`` has at least one tie)."""
        stages = dl.tie_stages(R)
        dl.check_tie_order(stages.max_tie)
        row_w = stages.row_weights(
            None if sample_weight is None else check_sample_weight(sample_weight, R.n_rankings)
        )
        check_weight_total(row_w, what="rankings")
        scores, deltas, n_iter, converged = dl.fit_davidson_luce(
            stages, row_w, alpha=float(self.alpha), max_iter=self.max_iter, tol=self.tol
        )
        if not converged:
            warnings.warn(
                f"PlackettLuce (Davidson-Luce, with ties) did not converge in "
                f"max_iter={self.max_iter} iterations (tol={self.tol}); the estimate may not "
                "exist (an item that never loses or never wins), try alpha > 0.",
                ConvergenceWarning,
                stacklevel=3,
            )
        self._set_scores(scores)
        self.tie_strengths_ = deltas
        self.items_ = R.items
        self.n_iter_ = n_iter
        self.converged_ = converged
        return self

    @classmethod
    def from_params(cls, *, scores: Any, tie_strengths: Any = None, **params: Any) -> PlackettLuce:
        """A fitted model with the given log-worths (shifted to mean zero).

        Parameters
        ----------
        scores : array-like of float, shape (m,)
            Finite log-worths, ``m >= 1``.
        tie_strengths : array-like of float, shape (D - 1,), optional
            Davidson-Luce tie strengths ``delta_2..delta_D`` (finite, non-negative, at most
            ``MAX_TIE_ORDER - 1`` of them). Default: none (Plackett-Luce, no ties).
        **params
            Constructor parameters (used only if the model is re-fitted).

        Returns
        -------
        PlackettLuce
            With ``scores_``, ``worths_``, ``ranking_`` and ``n_items_`` set.
        """
        z = np.asarray(scores, dtype=np.float64)
        if z.ndim != 1 or z.size == 0:
            raise ValueError(f"scores must be a non-empty 1-d array, got shape {z.shape}")
        if not np.isfinite(z).all():
            raise ValueError("scores must be finite")
        model = cls(**params)
        model._set_scores(z - z.mean())
        if tie_strengths is not None:
            delta = np.asarray(tie_strengths, dtype=np.float64)
            if delta.ndim != 1 or not (np.isfinite(delta).all() and (delta >= 0).all()):
                raise ValueError("tie_strengths must be a 1-d array of finite values >= 0")
            dl.check_tie_order(delta.size + 1)
            model.tie_strengths_ = delta
        return model

    def _set_scores(self, scores: np.ndarray) -> None:
        self.scores_ = scores
        worths = np.exp(scores - scores.max())
        self.worths_ = worths / worths.sum()
        order = np.argsort(-scores, kind="stable")
        ranking = np.empty(len(scores), dtype=np.int64)
        ranking[order] = np.arange(len(scores))
        self.ranking_ = ranking
        self.n_items_ = len(scores)
        self.items_ = None  # fit sets the names of its data
        self.tie_strengths_ = np.empty(0)

    def _has_tie_model(self) -> bool:
        # models saved before ties existed have no tie_strengths_
        return getattr(self, "tie_strengths_", np.empty(0)).size > 0

    # ---------------------------------------------------------------- distribution
    def _check_data(self, R: Any) -> Rankings:
        check_is_fitted(self, "scores_")
        return check_rankings(R, n_items=self.n_items_, items=self.items_)

    def _loglik(self, R: Rankings) -> np.ndarray:
        if R.has_ties.any() or self._has_tie_model():
            return dl.davidson_luce_loglik(dl.tie_stages(R), self.scores_, self.tie_strengths_)
        return loglik_rows(choice_stages(R), self.scores_)

    def logpdf(self, R: Any) -> np.ndarray:
        """Log-probability of each ranking (complete, top-k or subset by ``R.kind``).

        Parameters
        ----------
        R : Rankings or array-like of shape (n, n_items_)
            With or without ties (Davidson-Luce probabilities; a tie of an order the model
            lacks has log-probability ``-inf``).

        Returns
        -------
        ndarray of float64, shape (n,)
        """
        return self._loglik(self._check_data(R))

    def pdf(self, R: Any) -> np.ndarray:
        """Probability of each ranking, ``exp(logpdf(R))``."""
        return np.exp(self.logpdf(R))

    def score(self, R: Any, y: None = None) -> float:
        """Average log-likelihood per ranking, weighted by ``R.weights``.

        Parameters
        ----------
        R : Rankings or array-like of shape (n, n_items_)
        y : None
            Ignored.

        Returns
        -------
        float
        """
        R = self._check_data(R)
        w = R.weights
        if not w.sum() > 0:
            raise ValueError("R has zero total weight")
        return float(np.dot(w, self._loglik(R)) / w.sum())

    @validate_arguments({"size": [Interval(Integral, 0, None)]})
    def sample(
        self,
        size: int,
        random_state: Any = None,
        lengths: Any = None,
    ) -> Rankings:
        """Exact draws from the model (Gumbel-max trick).

        Parameters
        ----------
        size : int
            Number of rankings.
        random_state : None, int or numpy.random.RandomState, default=None
        lengths : int or array-like of int, shape (size,), optional
            Keep only the top ``lengths`` items of each draw (each in ``1..n_items_``) and
            return ``kind="top"`` lists. Default: complete rankings. For a model with ties,
            ``lengths`` counts buckets (positions), not items.

        Returns
        -------
        Rankings, shape (size, n_items_)
            Complete rankings, or top-k lists of kind ``"top"``.
        """
        check_is_fitted(self, "scores_")
        m = self.n_items_
        rng = (
            random_state
            if isinstance(random_state, np.random.Generator)
            else check_random_state(random_state)
        )
        if self._has_tie_model():
            ranks = dl.sample_davidson_luce(self.scores_, self.tie_strengths_, size, rng)
        else:
            keys = self.scores_ + rng.gumbel(size=(int(size), m))
            order = np.argsort(-keys, axis=1)
            ranks = np.empty_like(order)
            np.put_along_axis(ranks, order, np.broadcast_to(np.arange(m), order.shape), axis=1)
        if lengths is None:
            return Rankings(ranks)
        k = np.broadcast_to(np.asarray(lengths), (int(size),))
        if k.dtype.kind not in "iu" or (k.size and (k.min() < 1 or k.max() > m)):
            raise ValueError(f"lengths must be integers in [1, {m}]")
        return Rankings(np.where(ranks < k[:, None], ranks, -1), kind="top")

    # ---------------------------------------------------------------- uncertainty
    def vcov(
        self, R: Any, sample_weight: Any = None, *, reference: int | None = None
    ) -> np.ndarray:
        """Covariance of ``scores_``: the inverse observed information of the fit.

        Pass the rankings and weights of the fit (the scores must maximise their likelihood,
        or posterior when ``alpha > 0``); see :func:`rankclust.inference.plackett_luce_vcov`.

        For a model with ties (non-empty ``tie_strengths_``) the matrix covers
        ``(scores_, log tie_strengths_)``, shape ``(n_items_ + D - 1,) * 2``, from the
        central-difference Hessian of the Davidson-Luce log-likelihood
        (:func:`rankclust.models._davidson_luce.davidson_luce_information`); a tie order of
        strength 0 has NaN entries, and ``reference`` moves the scores block only.

        Parameters
        ----------
        R : Rankings or array-like of shape (n, n_items_)
        sample_weight : array-like of float, shape (n,), optional
        reference : int or None, default=None
            ``None``: the sum-zero scores (``scores_``); an item index ``r``: the scores
            ``scores_ - scores_[r]``.

        Returns
        -------
        ndarray of float64, shape (n_items_, n_items_)
        """
        from rankclust.inference import plackett_luce_vcov

        if self._has_tie_model():
            return self._vcov_ties(self._check_data(R), sample_weight, reference)
        return plackett_luce_vcov(
            choice_stages(self._check_data(R)),
            self.scores_,
            sample_weight,
            alpha=self.alpha,
            reference=reference,
        )

    def _vcov_ties(self, R: Rankings, sample_weight: Any, reference: int | None) -> np.ndarray:
        stages = dl.tie_stages(R)
        row_w = stages.row_weights(
            None if sample_weight is None else check_sample_weight(sample_weight, R.n_rankings)
        )
        V = dl.davidson_luce_information(
            stages, row_w, self.scores_, self.tie_strengths_, alpha=float(self.alpha)
        )
        if reference is not None:
            m = self.n_items_
            r = int(reference)
            if r != reference or not 0 <= r < m:
                raise ValueError(f"reference must be an item index in [0, {m}), got {reference!r}")
            A = np.eye(V.shape[0])
            A[:m, r] -= 1.0  # z_j - z_r
            Vf = np.where(np.isnan(V), 0.0, V)
            out = A @ Vf @ A.T
            out[np.isnan(V)] = np.nan
            return out
        return V

    def standard_errors(
        self, R: Any, sample_weight: Any = None, *, reference: int | None = None
    ) -> np.ndarray:
        """Standard errors of the scores, ``sqrt(diag(vcov(R, ...)))``, shape (n_items_,)."""
        return np.sqrt(np.diag(self.vcov(R, sample_weight, reference=reference)))

    def confint(
        self,
        R: Any,
        sample_weight: Any = None,
        *,
        level: float = 0.95,
        reference: int | None = None,
    ) -> np.ndarray:
        """Wald intervals of the scores, shape (n_items_, 2) (lower, upper).

        For a model with ties, also of the log tie strengths (shape ``(n_items_ + D - 1, 2)``).

        In the parametrisation of ``reference`` (default: sum-zero ``scores_``; the
        reference item's interval is then ``[0, 0]``).
        """
        from rankclust.inference import wald_intervals

        z = self.scores_ if reference is None else self.scores_ - self.scores_[reference]
        if self._has_tie_model():
            z = np.concatenate([z, np.log(self.tie_strengths_)])
        se = self.standard_errors(R, sample_weight, reference=reference)
        return wald_intervals(z, se, level)

    def quasi_standard_errors(self, R: Any, sample_weight: Any = None) -> np.ndarray:
        """Quasi-standard errors (Firth & de Menezes 2004), shape (n_items_,).

        ``Var(scores_[j] - scores_[k]) ~ qse[j]**2 + qse[k]**2`` for every pair; see
        :func:`rankclust.inference.quasi_variances` (which also gives their worst relative
        error). Needs at least 3 items.
        """
        from rankclust.inference import quasi_variances

        q, _ = quasi_variances(self.vcov(R, sample_weight)[: self.n_items_, : self.n_items_])
        return np.sqrt(q)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        m = loaded.int_attr(self, "n_items_", low=1)
        loaded.items_attr(self, n_items=m)
        loaded.array_attr(self, "scores_", shape=(m,))
        loaded.array_attr(self, "worths_", shape=(m,), low=0.0)
        delta = loaded.array_attr(self, "tie_strengths_", ndim=1, low=0.0, optional=True)
        if delta is not None and delta.size + 1 > dl.MAX_TIE_ORDER:
            raise ValueError(f"tie_strengths_ has more than {dl.MAX_TIE_ORDER - 1} values")
        ranking = loaded.array_attr(self, "ranking_", kind="i", shape=(m,))
        loaded.check_permutations(ranking[None, :], "ranking_")
