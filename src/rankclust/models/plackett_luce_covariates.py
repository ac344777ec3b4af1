"""Plackett-Luce with item covariates: log-worths linear in features of the items.

The log-worth of item ``j`` with features ``x_j`` (a row of ``item_features``) is

    ``z_j = x_j . coef + intercept + u_j``,

with an optional item effect ``u_j`` (ridge-penalised; none by default), as in the ``pladmm``
model of R's PlackettLuce (Turner et al. 2020). The likelihood is the Plackett-Luce likelihood
of :mod:`rankclust.models.plackett_luce` (complete rankings, top-k lists, subset rankings; the
same compiled stage pass), so the gradient in the log-worths is "wins minus expected wins"
(Hunter's MM sums) and the gradient in ``coef`` is ``X' (wins - expected wins)``. Because the
items' worths come from their features, an item that nobody ranked still gets a worth, and
rankings of new items can be scored from the new items' features.

Identifiability. The likelihood only depends on differences of log-worths, so a constant
feature (or a set of features that sums to a constant, such as every level of a one-hot
encoded category) carries no information, and neither does a feature that only items nobody
ranked vary in. The fit works in the directions of the coefficient space that the features of
the *informed* items (those in the choice set of some stage of a ranking of positive weight)
identify: the right singular vectors of their column-centred features with non-zero singular
value (their number is ``rank_``). Along the other directions the likelihood is flat, and
``coef_`` is the **minimum-norm** coefficient vector (0 along them, the limit of a vanishing
ridge penalty): with an identity design (one indicator per item) it is
the sum-zero log-worth vector of :class:`~rankclust.models.PlackettLuce`. ``intercept_`` is not a
parameter but the constant that makes ``scores_`` sum to zero over the items of the fit (the
convention of ``PlackettLuce.scores_``), and it is carried to new items by
:meth:`ItemCovariatePlackettLuce.scores_for`.

The fit maximises the penalised log-likelihood

    ``sum_i w_i log P(ranking_i | z) - coef_penalty / 2 |coef|^2 - item_effect_penalty / 2 |u|^2``

(concave): L-BFGS on its analytic gradient, then Newton steps on its analytic Hessian
(the observed information of :mod:`rankclust.models._pl_information` mapped through the design)
until the step is below ``tol``. The inverse negative Hessian at the optimum is the covariance of
the coefficients (with penalties, the Laplace approximation to their posterior under the
matching Gaussian priors).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from scipy import optimize
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust._param_validation import (
    Interval,
    ValidatedParamsMixin,
    check_sample_weight,
    check_weight_total,
    validate_arguments,
)
from rankclust.models._pl_information import _gradient_and_information, wald_intervals
from rankclust.models.plackett_luce import (
    ChoiceStages,
    PlackettLuce,
    _as_stages,
    _comparison_problem,
    _loglik_compact,
    choice_stages,
    loglik_rows,
    mm_sums,
    stage_pass,
)
from rankclust.rankings import Rankings, check_rankings

__all__ = ["CovariateScores", "ItemCovariatePlackettLuce", "fit_covariate_scores"]

# check_item_features, feature_names, align_features, informed_items, identified_directions,
# check_mle_exists and weighted_information are public outside __all__: the item-covariate
# mixture (rankclust.cluster) and Bradley-Terry (rankclust.pairwise) share them

#: Newton steps after L-BFGS (each needs the O(u m^2) information).
_MAX_NEWTON = 50


def check_item_features(F: Any, m: int, name: str = "item_features") -> np.ndarray:
    """``F`` as a float64 (m, d) array, finite; one clear ``ValueError`` otherwise."""
    try:
        X = np.array(F, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a numeric array of shape ({m}, d)") from None
    if X.ndim != 2 or X.shape[0] != m or X.shape[1] == 0:
        raise ValueError(
            f"{name} must have shape ({m}, d) with d >= 1 (one row per item), got {X.shape}"
        )
    bad = ~np.isfinite(X)
    if bad.any():
        j = int(np.argwhere(bad)[0, 0])
        raise ValueError(f"{name}: row {j} (item {j}) has a NaN or infinite feature")
    return X


def feature_names(F: Any) -> tuple[str, ...] | None:
    cols = getattr(F, "columns", None)
    return None if cols is None else tuple(str(c) for c in cols)


def align_features(F: Any, items: tuple[str, ...] | None) -> Any:
    """Rows of a DataFrame-like ``F`` whose index holds item names, in the order of ``items``.

    Features and rankings are matched by name when both have names (the rankings'
    ``items`` and a string index of ``F``), by position otherwise; an unknown or missing name
    is refused with one line.
    """
    index = getattr(F, "index", None)
    if items is None or index is None or not all(isinstance(x, str) for x in index):
        return F
    labels = list(index)
    where = {label: k for k, label in enumerate(labels)}
    unknown = [x for x in labels if x not in set(items)]
    missing = [x for x in items if x not in where]
    if unknown or missing or len(where) != len(labels):
        raise ValueError(
            "item_features: its index must name the items of the rankings once each "
            f"(unknown item(s) {unknown[:5]}; missing item(s) {missing[:5]})"
        )
    return np.asarray(F, dtype=np.float64)[[where[x] for x in items]]


def informed_items(stages: ChoiceStages, row_w: np.ndarray) -> np.ndarray:
    """Items in a choice set of some stage of positive weight, bool (m,): the items whose
    worths the likelihood depends on."""
    has_stage = stages.active.any(axis=1) & (row_w > 0)
    seen = np.zeros(stages.n_items, dtype=bool)
    seen[stages.order[has_stage][stages.in_set[has_stage]]] = True
    return seen


def _strongly_connected(stages: ChoiceStages, row_w: np.ndarray, seen: np.ndarray) -> bool:
    """Whether "a beats b in a ranking of positive weight" is strongly connected on ``seen``
    (Hunter's condition for the Plackett-Luce MLE of those items)."""
    beats = stages.distinct.pairwise_counts(weights=row_w)[np.ix_(seen, seen)] > 0
    return connected_components(beats, directed=True, connection="strong")[0] <= 1


def _objective(
    theta: np.ndarray,
    stages: ChoiceStages,
    row_w: np.ndarray,
    design: np.ndarray,
    penalty: np.ndarray,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Penalised log-likelihood, its gradient in ``theta`` and the log-worths ``z``.

    ``z = design @ theta``; the gradient is ``design' (wins - exp(z) * denoms) - penalty *
    theta`` with Hunter's MM sums (:func:`~rankclust.models.plackett_luce.mm_sums`), which are
    the weighted wins and expected wins of every item. Trusts its input.
    """
    z = design @ theta
    shifted = z - z.max()  # the likelihood is shift-invariant; no worth overflows
    loglik, exposure = stage_pass(stages, shifted[None, :])
    wins, denoms = mm_sums(stages, row_w[:, None], exposure)
    grad_z = wins[0] - np.exp(shifted) * denoms[0]
    value = float(row_w @ loglik[:, 0]) - 0.5 * float(theta @ (penalty * theta))
    return value, design.T @ grad_z - penalty * theta, z


def weighted_information(stages: ChoiceStages, row_w: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Observed information (negative Hessian of the log-likelihood) in the log-worths ``z``
    with the final weights ``row_w`` of the distinct rankings of ``stages`` (for the mixtures'
    effective degrees of freedom). Trusts its input. O(u L^2 + m^2) time."""
    return _gradient_and_information(stages, row_w, z)[1]


def _neg_hessian(
    stages: ChoiceStages, row_w: np.ndarray, design: np.ndarray, penalty: np.ndarray, z: np.ndarray
) -> np.ndarray:
    """Negative Hessian of the penalised log-likelihood in ``theta``: ``D' I(z) D + diag(pen)``."""
    H = design.T @ weighted_information(stages, row_w, z) @ design + np.diag(penalty)
    return 0.5 * (H + H.T)


def identified_directions(
    F: np.ndarray, seen: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(mean, S, Vt)``: the mean features of the informed items ``seen`` and the non-zero
    singular values and right singular vectors of their centred features (the coefficient
    directions the rankings identify, ``len(S)`` of them; the whitened design is
    ``(F - mean) @ Vt.T / S``). Trusts its input."""
    mean = F[seen].mean(axis=0)
    _, S, Vt = np.linalg.svd(F[seen] - mean, full_matrices=False)
    cutoff = max(F.shape) * np.finfo(np.float64).eps * (S[0] if S.size else 0.0)
    r = int(np.sum(S > cutoff)) if S.size and S[0] > 0 else 0
    return mean, S[:r], Vt[:r]


def check_mle_exists(stages: ChoiceStages, row_w: np.ndarray, seen: np.ndarray) -> None:
    """Refuse, with one line, data on which the maximum-likelihood estimate of features that
    identify every ranked item's worth (and no penalty) does not exist: some item of ``seen``
    never wins or never loses and "beats" is not strongly connected (Hunter 2004)."""
    problem = _comparison_problem(stages, row_w)
    if problem is not None and not _strongly_connected(stages, row_w, seen):
        raise ValueError(
            "the maximum-likelihood estimate does not exist (the features identify "
            f"every ranked item's worth and {problem}); use coef_penalty > 0"
        )


@dataclass(frozen=True)
class CovariateScores:
    """A fit of :func:`fit_covariate_scores` (the attributes of
    :class:`ItemCovariatePlackettLuce`, without the trailing underscores).

    Attributes
    ----------
    coef : ndarray of float64, shape (d,)
    item_effects : ndarray of float64, shape (m,)
        Zeros without item effects; sum zero.
    intercept : float
        ``-feature_means . coef``: makes ``scores`` sum to zero.
    feature_means : ndarray of float64, shape (d,)
    scores : ndarray of float64, shape (m,)
        ``features @ coef + intercept + item_effects``, sum zero.
    coef_cov : ndarray of float64, shape (d, d)
        Inverse observed information of the penalised log-likelihood, in ``coef``; NaN if
        singular.
    rank : int
        Number of identified coefficient directions.
    loglik : float
        Weighted log-likelihood at ``scores`` (no penalty).
    n_iter : int
    converged : bool
    """

    coef: np.ndarray
    item_effects: np.ndarray
    intercept: float
    feature_means: np.ndarray
    scores: np.ndarray
    coef_cov: np.ndarray
    rank: int
    loglik: float
    n_iter: int
    converged: bool


@validate_arguments(
    {
        "coef_penalty": [Interval(Real, 0, None)],
        "item_effect_penalty": [None, Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 0, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
    }
)
def fit_covariate_scores(
    R: Rankings | ChoiceStages,
    item_features: Any,
    sample_weight: Any = None,
    *,
    coef_penalty: float = 0.0,
    item_effect_penalty: float | None = None,
    init: CovariateScores | None = None,
    max_iter: int = 500,
    tol: float = 1e-8,
) -> CovariateScores:
    """Penalised maximum-likelihood Plackett-Luce log-worths linear in item features.

    The function behind :class:`ItemCovariatePlackettLuce`, for models built on it (the
    M-step of a mixture: compile the rankings once, pass the responsibilities as
    ``sample_weight`` and the previous fit as ``init``). See the module notes for the model,
    the identifiability conventions and the algorithm.

    Parameters
    ----------
    R : Rankings or ChoiceStages, n rankings over m items
        Complete, top-k or subset rankings without ties (a :class:`ChoiceStages` from
        :func:`~rankclust.models.plackett_luce.choice_stages` is used as is).
    item_features : array-like of float, shape (m, d)
        One row of finite features per item.
    sample_weight : array-like of float, shape (n,), optional
        Weight per ranking, multiplied by the rankings' own weights.
    coef_penalty, item_effect_penalty, max_iter, tol
        As in :class:`ItemCovariatePlackettLuce` (``max_iter=0``: Newton steps only).
    init : CovariateScores, optional
        Start from this fit's ``coef`` and ``item_effects`` (same items and features);
        default zero.

    Returns
    -------
    CovariateScores

    Raises
    ------
    ValueError
        On bad shapes, non-finite features or weights, features constant over the ranked
        items, a bad ``init``, or (features identifying every ranked item's worth, no
        penalty) data for which the maximum-likelihood estimate does not exist.

    Notes
    -----
    Complexity: that of :meth:`ItemCovariatePlackettLuce.fit` without compiling the
    rankings.
    """
    stages = _as_stages(R)
    m = stages.n_items
    if m < 2:
        raise ValueError(f"R must have at least 2 items, got {m}")
    F = check_item_features(item_features, m)
    row_w = stages.row_weights(
        None if sample_weight is None else check_sample_weight(sample_weight, stages.n_rankings)
    )
    check_weight_total(row_w, what="rankings")

    # identified directions: SVD of the features of the items the rankings inform,
    # centred; whitened coordinates a = S g (the design has orthonormal columns on them)
    seen = informed_items(stages, row_w)
    mean, S, Vt = identified_directions(F, seen)
    r = S.size
    if r == 0:
        raise ValueError(
            "item_features are constant over the ranked items: they identify no "
            "difference between worths"
        )
    basis = (F - mean) @ Vt.T / S
    effects = item_effect_penalty is not None
    if effects:
        design = np.hstack([basis, np.eye(m)])
        penalty = np.concatenate([coef_penalty / S**2, np.full(m, float(item_effect_penalty))])
    else:
        design = basis
        penalty = coef_penalty / S**2
        if r == seen.sum() - 1 and coef_penalty == 0:
            check_mle_exists(stages, row_w, seen)
    theta0 = np.zeros(design.shape[1])
    if init is not None:
        if not isinstance(init, CovariateScores) or init.coef.shape != (F.shape[1],):
            raise ValueError(f"init must be a CovariateScores with {F.shape[1]} coefficients")
        theta0[:r] = S * (Vt @ init.coef)
        if effects:
            theta0[r:] = init.item_effects
    theta, n_iter, converged, H = _optimise(
        stages, row_w, design, penalty, theta0, max_iter, float(tol)
    )
    u = theta[r:] if effects else np.zeros(m)
    coef = Vt.T @ (theta[:r] / S)
    # covariance of coef: A Cov(a) A' with A = V diag(1/S), Cov(a) the a-block of H^-1
    evals = np.linalg.eigvalsh(H)
    if evals.min() > 1e-12 * max(evals.max(), 1e-300):
        A = Vt.T / S
        coef_cov = A @ np.linalg.inv(H)[:r, :r] @ A.T
        coef_cov = 0.5 * (coef_cov + coef_cov.T)
    else:
        coef_cov = np.full((F.shape[1], F.shape[1]), np.nan)
    feature_means = F.mean(axis=0)
    intercept = float(-(feature_means @ coef))
    u = u - u.mean()  # (zero at the optimum up to rounding; a shift changes nothing)
    scores = F @ coef + intercept + u
    return CovariateScores(
        coef=coef,
        item_effects=u,
        intercept=intercept,
        feature_means=feature_means,
        scores=scores,
        coef_cov=coef_cov,
        rank=r,
        loglik=float(row_w @ _loglik_compact(stages, scores)),
        n_iter=n_iter,
        converged=converged,
    )


def _optimise(
    stages: ChoiceStages,
    row_w: np.ndarray,
    design: np.ndarray,
    penalty: np.ndarray,
    theta0: np.ndarray,
    max_iter: int,
    tol: float,
) -> tuple[np.ndarray, int, bool, np.ndarray]:
    """L-BFGS, then Newton with step halving; returns theta, iterations, converged, -H."""

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad, _ = _objective(theta, stages, row_w, design, penalty)
        return -value, -grad

    scale = max(float(row_w.sum()), 1.0)
    theta, n_iter = theta0, 0
    if max_iter > 0:
        res = optimize.minimize(
            fun,
            theta0,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": max_iter, "gtol": 1e-6 * scale, "ftol": 1e-15},
        )
        theta, n_iter = res.x, int(res.nit)
    value, grad, z = _objective(theta, stages, row_w, design, penalty)
    converged = False
    H = _neg_hessian(stages, row_w, design, penalty, z)
    for _ in range(_MAX_NEWTON):
        try:
            step = np.linalg.solve(H, grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(H, grad, rcond=None)[0]
        if not np.isfinite(step).all():
            break
        n_iter += 1
        t = 1.0
        for _ in range(30):  # the objective is concave: halve until it does not decrease
            cand = theta + t * step
            new_value, new_grad, new_z = _objective(cand, stages, row_w, design, penalty)
            if new_value >= value - 1e-12 * abs(value):
                break
            t *= 0.5
        else:
            break
        theta, value, grad, z = cand, new_value, new_grad, new_z
        H = _neg_hessian(stages, row_w, design, penalty, z)
        if np.abs(t * step).max() <= tol:
            converged = True
            break
    return theta, n_iter, converged, H


class ItemCovariatePlackettLuce(ValidatedParamsMixin, BaseEstimator):
    """Plackett-Luce model whose log-worths are linear in features of the items.

    ``log worth_j = item_features[j] . coef_ + intercept_ (+ item_effects_[j])``: the
    Plackett-Luce model of :class:`~rankclust.models.PlackettLuce` with the worths tied to
    item covariates (R's PlackettLuce ``pladmm``), so that worths of items nobody ranked (or new
    items) follow from their features. Fits complete rankings, top-k lists (``kind="top"``) and
    subset rankings (``kind="subset"``), weighted; not rankings with ties. See
    :mod:`rankclust.models.plackett_luce_covariates` for the identifiability conventions.

    Parameters
    ----------
    coef_penalty : float, default=0.0
        Ridge penalty ``coef_penalty / 2 * |coef|^2`` on the coefficients (0: maximum
        likelihood). The penalty acts on the features as given: standardise them first when
        their scales differ.
    item_effect_penalty : float or None, default=None
        None: no item effects (the worths are wholly explained by the features). A positive
        value adds a free log-worth ``u_j`` for every item of the fit, penalised by
        ``item_effect_penalty / 2 * |u|^2`` (a Gaussian prior of variance
        ``1 / item_effect_penalty``): the features explain what they can and the item effects
        the rest. Items that are never ranked get ``u_j = 0``, the prior mean.
    max_iter : int, default=500
        Maximum number of L-BFGS iterations (then at most 50 Newton steps).
    tol : float, default=1e-8
        Convergence when the largest Newton step in the (whitened) parameters is at most
        ``tol``.

    Attributes
    ----------
    coef_ : ndarray of float64, shape (n_features,)
        Coefficients of the features (minimum-norm along directions the features do not
        identify).
    intercept_ : float
        Makes ``scores_`` sum to zero over the items of the fit (not a free parameter):
        ``-feature_means_ . coef_``.
    feature_means_ : ndarray of float64, shape (n_features,)
        Mean features of the items of the fit (the reference of :meth:`scores_for`).
    item_effects_ : ndarray of float64, shape (n_items,)
        The item effects ``u`` (zeros without item effects); they sum to zero.
    scores_ : ndarray of float64, shape (n_items,)
        Log-worths of the items of the fit, sum zero (as ``PlackettLuce.scores_``).
    worths_ : ndarray of float64, shape (n_items,)
        ``exp(scores_)`` normalised to sum 1.
    ranking_ : ndarray of int64, shape (n_items,)
        Position of each item when ordered by decreasing score (ties by item index).
    coef_cov_ : ndarray of float64, shape (n_features, n_features)
        Covariance of ``coef_``: the inverse observed information (of the penalised
        log-likelihood) in the identified directions; zero along directions the features do
        not identify. NaN when the information is singular (the estimate does not exist).
    rank_ : int
        Number of coefficient directions the features identify: the rank of the centred
        features of the items the rankings inform (a direction that only items nobody ranked
        vary along is not identified; its coefficient is 0).
    loglik_ : float
        Weighted log-likelihood of the fitted rankings (penalties not included).
    n_items_, n_features_in_ : int
    feature_names_in_ : tuple of str, length n_features
        Only when ``item_features`` had column names (a DataFrame).
    items_ : tuple of str or None
        Item names of the training rankings.
    n_iter_ : int
        L-BFGS iterations plus Newton steps.
    converged_ : bool

    See Also
    --------
    rankclust.models.PlackettLuce : the model without covariates (one free worth per item).

    Notes
    -----
    Intercept: only differences of log-worths are identified, so no intercept is estimated;
    constant feature columns, or groups of columns summing to a constant, are allowed (they
    are handled by the minimum-norm convention above, ``rank_`` says how many directions
    remain). With ``coef_penalty = 0`` and no item effects the maximum-likelihood estimate may
    not exist (features that separate winners from losers); ``fit`` then warns that it did not
    converge. When the features identify every contrast of the ranked items (e.g. the identity
    design) the model is plain Plackett-Luce and ``fit`` refuses data for which that MLE does
    not exist, with the message of :func:`~rankclust.models.plackett_luce.fit_scores`.

    Complexity: one likelihood and gradient O(u m + m p) time for u distinct rankings and
    p = rank_ (+ m with item effects) parameters; ``fit`` T L-BFGS iterations of that, then a
    few Newton steps of O(u m^2 + m p^2 + p^3) time and O(m^2 + p^2) memory (plus blocks of
    rows); ``logpdf`` O(n m log n); ``scores_for`` O(k d).

    References
    ----------
    Turner, H. L., van Etten, J., Firth, D. & Kosmidis, I. (2020). Modelling rankings in R:
    the PlackettLuce package. Computational Statistics, 35, 1027-1057.

    Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. The Annals of
    Statistics, 32(1), 384-406.

    Examples
    --------
    Items described by one feature; the worth of an item nobody ranked (item 3) follows from
    its feature.

    >>> import numpy as np
    >>> from rankclust import Rankings
    >>> from rankclust.models import ItemCovariatePlackettLuce, PlackettLuce
    >>> F = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> truth = PlackettLuce.from_params(scores=F[:3, 0])
    >>> R3 = truth.sample(2000, random_state=0)
    >>> R = Rankings(np.c_[R3.ranks, -np.ones(2000, dtype=int)], kind="subset")
    >>> model = ItemCovariatePlackettLuce().fit(R, item_features=F)
    >>> bool(abs(model.coef_[0] - 1.0) < 3 * model.standard_errors()[0])
    True
    >>> model.ranking_
    array([3, 2, 1, 0])
    >>> model.scores_for([[4.0]]).round(2) == (4.0 * model.coef_ + model.intercept_).round(2)
    array([ True])
    """

    _parameter_constraints: ClassVar[dict] = {
        "coef_penalty": [Interval(Real, 0, None, closed="left")],
        "item_effect_penalty": [None, Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        coef_penalty: float = 0.0,
        item_effect_penalty: float | None = None,
        max_iter: int = 500,
        tol: float = 1e-8,
    ) -> None:
        self.coef_penalty = coef_penalty
        self.item_effect_penalty = item_effect_penalty
        self.max_iter = max_iter
        self.tol = tol

    # ---------------------------------------------------------------- fit
    def fit(
        self,
        R: Any,
        y: None = None,
        sample_weight: Any = None,
        *,
        item_features: Any = None,
    ) -> ItemCovariatePlackettLuce:
        """Fit the coefficients (and item effects) by penalised maximum likelihood.

        Parameters
        ----------
        R : Rankings or array-like of shape (n, m)
            Rankings without ties (array input: 1-based ranks, 0 for missing, read as
            ``kind="subset"``). Items that no ranking shows are allowed (``kind="subset"``):
            their worths come from their features.
        y : None
            Ignored.
        sample_weight : array-like of float, shape (n,), optional
            Weight per ranking, multiplied by ``R.weights``; weighted data give the same fit
            as the data with each ranking repeated.
        item_features : array-like of float, shape (m, d), optional
            One row of features per item (per column of ``R``), finite. A DataFrame whose
            index holds item names is matched to the names of ``R`` (``R.items``) by name.
            Default: the identity (one indicator per item), i.e. plain Plackett-Luce.

        Returns
        -------
        self : ItemCovariatePlackettLuce

        Raises
        ------
        ValueError
            On ties, bad shapes or non-finite features or weights, features that are constant
            over the items, or (identity-like designs without penalty) data for which the
            maximum-likelihood estimate does not exist.
        """
        self._validate_params()
        R = check_rankings(R, allow_ties=False, name="R")
        names = None if item_features is None else feature_names(item_features)
        F = np.eye(R.n_items) if item_features is None else align_features(item_features, R.items)
        fitted = fit_covariate_scores(
            choice_stages(R),
            F,
            sample_weight,
            coef_penalty=self.coef_penalty,
            item_effect_penalty=self.item_effect_penalty,
            max_iter=self.max_iter,
            tol=self.tol,
        )
        if not fitted.converged:
            warnings.warn(
                f"ItemCovariatePlackettLuce did not converge (max_iter={self.max_iter}, "
                f"tol={self.tol}); the estimate may not exist (features that separate winners "
                "from losers): use coef_penalty > 0 or a larger max_iter.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.coef_ = fitted.coef
        self.feature_means_ = fitted.feature_means
        self.intercept_ = fitted.intercept
        self.item_effects_ = fitted.item_effects
        self.coef_cov_ = fitted.coef_cov
        self.rank_ = fitted.rank
        self.n_features_in_ = fitted.coef.shape[0]
        if names is not None:
            self.feature_names_in_ = names
        self._set_scores(fitted.scores)
        self.loglik_ = fitted.loglik
        self.items_ = R.items
        self.n_iter_ = fitted.n_iter
        self.converged_ = fitted.converged
        return self

    def _set_scores(self, scores: np.ndarray) -> None:
        self.scores_ = scores - scores.mean()
        worths = np.exp(self.scores_ - self.scores_.max())
        self.worths_ = worths / worths.sum()
        order = np.argsort(-self.scores_, kind="stable")
        ranking = np.empty(len(scores), dtype=np.int64)
        ranking[order] = np.arange(len(scores))
        self.ranking_ = ranking
        self.n_items_ = len(scores)

    # ---------------------------------------------------------------- prediction
    def scores_for(
        self, item_features: Any, *, return_std: bool = False
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Log-worths of items from their features alone (no item effects).

        On the scale of ``scores_``: ``item_features @ coef_ + intercept_``, so a new item's
        score can be compared with the fitted items' scores (an item of the fit gets its
        ``scores_`` entry minus its item effect).

        Parameters
        ----------
        item_features : array-like of float, shape (k, n_features_in_)
        return_std : bool, default=False
            Also return the standard error of each score: the score is the log-worth of the
            item relative to the mean log-worth of the items of the fit, ``(x -
            feature_means_) . coef_``, so its standard error is ``sqrt(c' coef_cov_ c)`` with
            ``c = x - feature_means_`` (the uncertainty of the coefficients; the unknown item
            effect of a new item is not included).

        Returns
        -------
        scores : ndarray of float64, shape (k,)
        std : ndarray of float64, shape (k,)
            Only with ``return_std=True``.

        Notes
        -----
        Complexity: O(k d) time (O(k d^2) with ``return_std``).
        """
        check_is_fitted(self, "coef_")
        F = np.array(item_features, dtype=np.float64) if item_features is not None else None
        k = F.shape[0] if F is not None and F.ndim == 2 else -1
        if F is None or F.ndim != 2 or F.shape[1] != self.n_features_in_:
            raise ValueError(
                f"item_features must have shape (k, {self.n_features_in_}), got "
                f"{None if F is None else F.shape}"
            )
        check_item_features(F, k)
        scores = F @ self.coef_ + self.intercept_
        if not return_std:
            return scores
        c = F - self.feature_means_
        var = np.einsum("ka,ab,kb->k", c, self.coef_cov_, c)
        return scores, np.sqrt(np.maximum(var, 0.0))

    def _scores_and_data(self, R: Any, item_features: Any) -> tuple[np.ndarray, Rankings]:
        check_is_fitted(self, "coef_")
        if item_features is None:
            R = check_rankings(R, n_items=self.n_items_, items=self.items_, allow_ties=False)
            return self.scores_, R
        R = check_rankings(R, allow_ties=False)
        F = check_item_features(align_features(item_features, R.items), R.n_items)
        return self.scores_for(F), R

    def logpdf(self, R: Any, item_features: Any = None) -> np.ndarray:
        """Log-probability of each ranking (complete, top-k or subset by ``R.kind``).

        Parameters
        ----------
        R : Rankings or array-like of shape (n, k)
            Rankings without ties. Without ``item_features``: over the items of the fit
            (``k = n_items_``). With ``item_features``: over any ``k`` items, new or not.
        item_features : array-like of float, shape (k, n_features_in_), optional
            Features of the items (columns) of ``R``, matched by name as in :meth:`fit`; their log-worths are
            :meth:`scores_for` of them: every column is treated as an item described by its
            features only (no item effect, the prior mean of an unseen item's effect).

        Returns
        -------
        ndarray of float64, shape (n,)
        """
        scores, R = self._scores_and_data(R, item_features)
        return loglik_rows(R, scores)

    def pdf(self, R: Any, item_features: Any = None) -> np.ndarray:
        """Probability of each ranking, ``exp(logpdf(R, item_features))``."""
        return np.exp(self.logpdf(R, item_features))

    def score(self, R: Any, y: None = None, item_features: Any = None) -> float:
        """Average log-likelihood per ranking, weighted by ``R.weights``.

        Parameters
        ----------
        R : Rankings or array-like
        y : None
            Ignored.
        item_features : array-like, optional
            As in :meth:`logpdf`.

        Returns
        -------
        float
        """
        scores, R = self._scores_and_data(R, item_features)
        w = R.weights
        if not w.sum() > 0:
            raise ValueError("R has zero total weight")
        return float(np.dot(w, loglik_rows(R, scores)) / w.sum())

    def sample(self, size: int, random_state: Any = None, lengths: Any = None) -> Rankings:
        """Exact draws over the items of the fit (see :meth:`PlackettLuce.sample`)."""
        check_is_fitted(self, "coef_")
        return PlackettLuce.from_params(scores=self.scores_).sample(
            size, random_state=random_state, lengths=lengths
        )

    # ---------------------------------------------------------------- uncertainty
    def standard_errors(self) -> np.ndarray:
        """Standard errors of ``coef_``, ``sqrt(diag(coef_cov_))``, shape (n_features_in_,)."""
        check_is_fitted(self, "coef_cov_")
        return np.sqrt(np.diag(self.coef_cov_))

    def confint(self, level: float = 0.95) -> np.ndarray:
        """Wald intervals of ``coef_``, shape (n_features_in_, 2) (lower, upper)."""
        return wald_intervals(self.coef_, self.standard_errors(), level)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        m = loaded.int_attr(self, "n_items_", low=2)
        d = loaded.int_attr(self, "n_features_in_", low=1)
        loaded.int_attr(self, "rank_", low=1, high=d)
        loaded.items_attr(self, n_items=m)
        loaded.array_attr(self, "coef_", shape=(d,))
        loaded.array_attr(self, "feature_means_", shape=(d,))
        loaded.float_attr(self, "intercept_")
        loaded.array_attr(self, "coef_cov_", shape=(d, d), finite=False)
        for name in ("item_effects_", "scores_"):
            loaded.array_attr(self, name, shape=(m,))
        loaded.array_attr(self, "worths_", shape=(m,), low=0.0)
        ranking = loaded.array_attr(self, "ranking_", kind="i", shape=(m,))
        loaded.check_permutations(ranking[None, :], "ranking_")
