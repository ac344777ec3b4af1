"""Plackett-Luce trees: model-based recursive partitioning of rankings on respondent covariates.

A :class:`PlackettLuceTree` is the tree of R's ``PlackettLuce::pltree`` (Turner, van Etten,
Firth & Kosmidis 2020), grown by model-based recursive partitioning (MOB, Zeileis, Hothorn &
Hornik 2008). Starting from all rankings:

1. fit one Plackett-Luce model to the node's rankings (:func:`~rankclust.models.plackett_luce.
   fit_scores`, the MM fit of :class:`~rankclust.models.PlackettLuce`);
2. test the stability of its log-worths along every covariate with a score-based
   M-fluctuation test. The score of ranking ``i`` is the gradient of its log-likelihood in the
   log-worths, "wins minus expected wins" (:func:`row_scores`); it sums to zero over the
   node's rows at the fit, and under parameter stability its cumulative sums, ordered by any
   covariate, behave like a tied-down Brownian bridge. A numeric covariate gets the supLM
   statistic (the largest Lagrange-multiplier statistic over the ordered splits with a
   fraction ``trim`` cut at each end), a categorical one the chi-square statistic of the
   scores summed per category (:func:`instability_test`);
3. if the smallest Bonferroni-adjusted p-value is below ``alpha``, split the node in two on
   that covariate, at the split point that maximises the summed log-likelihood of the two
   children (numeric: a threshold; categorical: a set of categories), and repeat in each child.

Every leaf carries a Plackett-Luce model of its rankings; a respondent's predicted ranking is
the order of the worths of the leaf its covariates lead to.
"""

from __future__ import annotations

import itertools
import math
import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
import scipy.linalg
from scipy import stats
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust._dataframes import is_dataframe
from rankclust._param_validation import (
    Interval,
    ValidatedParamsMixin,
    check_sample_weight,
    check_weight_total,
)
from rankclust.models._pl_information import _gradient_and_information, plackett_luce_vcov
from rankclust.models.plackett_luce import (
    ChoiceStages,
    PlackettLuce,
    _comparison_problem,
    _loglik_compact,
    choice_stages,
    fit_scores,
    loglik_rows,
    stage_pass,
)
from rankclust.rankings import Rankings, check_rankings

__all__ = ["PlackettLuceTree", "instability_test", "row_scores", "sup_lm_pvalue"]

# Newton iterations of the child fits in the split search (their log-likelihoods rank splits)
_SEARCH_MAX_ITER = 30
_SEARCH_TOL = 1e-7


# --------------------------------------------------------------------------------------------
# scores and tests
# --------------------------------------------------------------------------------------------
def row_scores(R: Rankings | ChoiceStages, scores: Any) -> np.ndarray:
    """Gradient of each ranking's Plackett-Luce log-likelihood in the log-worths.

    For item ``j`` of ranking ``i``: the number of stages ``j`` wins (0 or 1) minus its
    expected number, ``sum over the stages s whose choice set holds j of v_j / S_is``
    (``v = exp(scores)``, ``S_is`` the worth still available): the per-ranking terms of the
    MM sums, read off the exposures of :func:`~rankclust.models.plackett_luce.stage_pass`.
    Each row sums to zero (the likelihood is shift-invariant); the weighted column sums are
    zero at the maximum-likelihood fit.

    Parameters
    ----------
    R : Rankings or ChoiceStages, n rankings over m items
        Complete, top-k or subset rankings without ties.
    scores : array-like of float, shape (m,)
        Finite log-worths.

    Returns
    -------
    ndarray of float64, shape (n, m)
        The rankings' weights are not applied.

    Notes
    -----
    Complexity: O(u m) time and O(n m) memory for u distinct rankings.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust import Rankings
    >>> row_scores(Rankings.from_orderings([[0, 1]]), np.zeros(2))
    array([[ 0.5, -0.5]])
    """
    stages = R if isinstance(R, ChoiceStages) else choice_stages(check_rankings(R))
    z = np.asarray(scores, dtype=np.float64)
    if z.shape != (stages.n_items,) or not np.isfinite(z).all():
        raise ValueError(f"scores must be {stages.n_items} finite log-worths")
    return _distinct_row_scores(stages, z)[stages.inverse]


def _distinct_row_scores(stages: ChoiceStages, z: np.ndarray) -> np.ndarray:
    """:func:`row_scores` of the distinct rows, shape (u, m). Trusts its input."""
    z = z - z.max()
    _, expo = stage_pass(stages, z[None, :])
    order = stages.order
    by_position = stages.active.astype(np.float64) - np.exp(z)[order] * expo[:, 0, :]
    out = np.empty_like(by_position)
    np.put_along_axis(out, order, by_position, axis=1)
    return out


def _log_sup_lm_tail(stat: float, k: int, trim: float) -> float:
    """log of :func:`sup_lm_pvalue` before clipping (see there)."""
    lam = ((1.0 - trim) / trim) ** 2
    bracket = (stat - k) * math.log(lam) + 2.0
    log_chi2_tail = float(stats.chi2.logsf(stat, k))
    if bracket <= 0:
        return log_chi2_tail
    return max(float(stats.chi2.logpdf(stat, k)) + math.log(bracket), log_chi2_tail)


def sup_lm_pvalue(stat: float, k: int, trim: float = 0.1) -> float:
    """Asymptotic p-value of the supLM statistic (a sup of a squared tied-down Bessel process).

    Under parameter stability the supLM statistic over the splits at fractions ``t`` in
    ``[trim, 1 - trim]`` converges to ``sup_t ||B(t)||^2 / (t (1 - t))`` for a ``k``-dimensional
    Brownian bridge ``B``. Its upper tail is

        ``P(sup > c) ~ f_k(c) ((c - k) log(lambda) + 2)``,  ``lambda = ((1 - trim) / trim)^2``,

    with ``f_k`` the chi-square density with ``k`` degrees of freedom (DeLong 1981; Estrella
    2003, whose closed form this is): the ``2 f_k(c)`` term is the chance of starting above
    ``c`` and the other the expected number of up-crossings. It is never below the chi-square
    tail at one point (``chi2.sf(c, k)``), which is returned when larger, and is clipped to
    ``[0, 1]``. The tests check it against Andrews' (1993) critical values and a simulation of
    the Brownian-bridge supremum with a fixed seed.

    Parameters
    ----------
    stat : float
        The supLM statistic (>= 0).
    k : int
        Degrees of freedom (the number of parameters tested).
    trim : float, default=0.1
        Fraction cut at each end, in (0, 0.5).

    Returns
    -------
    float

    Notes
    -----
    Accurate in the upper tail (p below about 0.2, where tests are decided); conservative for
    statistics maximised over few split points.

    Complexity: O(1).

    References
    ----------
    DeLong, D. M. (1981). Crossing probabilities for a square root boundary by a Bessel
    process. Communications in Statistics - Theory and Methods, 10(21), 2197-2213.

    Andrews, D. W. K. (1993). Tests for parameter instability and structural change with
    unknown change point. Econometrica, 61(4), 821-856.

    Estrella, A. (2003). Critical values and p values of Bessel process distributions:
    computation and application to structural break tests. Econometric Theory, 19(6),
    1128-1143.

    Examples
    --------
    >>> round(sup_lm_pvalue(8.68, 1, trim=0.15), 3)  # Andrews (1993): 5% critical value
    0.051
    """
    if not 0 < trim < 0.5:
        raise ValueError(f"trim must be in (0, 0.5), got {trim!r}")
    if int(k) != k or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if not stat >= 0:
        raise ValueError(f"stat must be >= 0, got {stat!r}")
    return float(min(1.0, math.exp(_log_sup_lm_tail(float(stat), int(k), float(trim)))))


def _decorrelate(psi: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Scores times ``J^{-1/2}`` (``J`` their weighted outer-product mean), shape (n, r).

    ``r`` is the rank of ``J`` (items no ranking of the node shows add null directions).
    """
    n = w.sum()
    J = (psi * w[:, None]).T @ psi / n
    lam, vec = np.linalg.eigh(0.5 * (J + J.T))
    keep = lam > 1e-10 * max(lam.max(), 1e-300)
    return psi @ (vec[:, keep] / np.sqrt(lam[keep]))


def instability_test(
    psi: Any,
    x: Any,
    sample_weight: Any = None,
    *,
    categorical: bool = False,
    trim: float = 0.1,
) -> tuple[float, int, float]:
    """Score-based M-fluctuation test of parameter stability along one covariate.

    Parameters
    ----------
    psi : array-like of float, shape (n, p)
        Per-observation scores at the fitted parameters (e.g. :func:`row_scores` without the
        last item, whose score is minus the sum of the others); their weighted sum should be 0.
    x : array-like, shape (n,)
        The covariate: numbers (ordered) or category codes.
    sample_weight : array-like of float, shape (n,), optional
        Frequency weights (a weighted test equals the test on the expanded data).
    categorical : bool, default=False
        Chi-square test of the scores summed per category instead of the supLM test.
    trim : float, default=0.1
        supLM only: the splits considered leave at least this fraction of the weight on each
        side.

    Returns
    -------
    statistic : float
    df : int
        Degrees of freedom: ``r`` (the rank of the scores' covariance) for supLM,
        ``(C - 1) r`` for ``C`` categories present. 0 when the covariate is constant (or no
        split respects ``trim``); the test is then void.
    log_pvalue : float
        Natural logarithm of the p-value (0 for a void test), kept in logs so that very
        small p-values still order the covariates.

    Notes
    -----
    With ``J = sum_i w_i psi_i psi_i' / n`` (``n = sum w``) and decorrelated cumulative sums
    ``W(t) = J^{-1/2} sum_{i <= t} w_i psi_i``, ordered by ``x``: supLM is the largest
    ``||W(t)||^2 / (n t (1 - t))`` over the split points between distinct values of ``x``
    with ``t`` (the share of the weight at or below) in ``[trim, 1 - trim]``, with p-value
    :func:`sup_lm_pvalue`; the categorical statistic is ``sum_c ||W_c||^2 / n_c`` over the
    categories, chi-square with ``(C - 1) r`` degrees of freedom (Zeileis, Hothorn & Hornik
    2008, section 3).

    Complexity: O(n p^2 + n log n) time, O(n p) memory.

    References
    ----------
    Zeileis, A., Hothorn, T. & Hornik, K. (2008). Model-based recursive partitioning. Journal
    of Computational and Graphical Statistics, 17(2), 492-514.
    """
    psi = np.asarray(psi, dtype=np.float64)
    if psi.ndim != 2 or not np.isfinite(psi).all():
        raise ValueError("psi must be a finite 2-d array")
    n_rows = psi.shape[0]
    x = np.asarray(x)
    if x.shape != (n_rows,):
        raise ValueError(f"x must have shape ({n_rows},), got {x.shape}")
    w = check_sample_weight(sample_weight, n_rows)
    keep = w > 0
    psi, x, w = psi[keep], x[keep], w[keep]
    if psi.shape[0] < 2:
        return 0.0, 0, 0.0
    return _instability(psi, x, w, categorical, trim)


def _instability(
    psi: np.ndarray, x: np.ndarray, w: np.ndarray, categorical: bool, trim: float
) -> tuple[float, int, float]:
    """:func:`instability_test` on positive weights. Trusts its input."""
    n = w.sum()
    u = _decorrelate(psi, w)
    r = u.shape[1]
    if r == 0:
        return 0.0, 0, 0.0
    if categorical:
        cats, code = np.unique(x, return_inverse=True)
        if cats.size < 2:
            return 0.0, 0, 0.0
        n_c = np.bincount(code, weights=w, minlength=cats.size)
        s_c = np.zeros((cats.size, r))
        np.add.at(s_c, code, u * w[:, None])
        stat = float(np.sum(np.sum(s_c**2, axis=1) / n_c))
        df = (cats.size - 1) * r
        return stat, df, float(stats.chi2.logsf(stat, df))
    order = np.argsort(x, kind="stable")
    xs = x[order]
    cum = np.cumsum(u[order] * w[order, None], axis=0)
    t = np.cumsum(w[order]) / n
    split = np.flatnonzero(xs[:-1] != xs[1:])
    split = split[(t[split] >= trim) & (t[split] <= 1.0 - trim)]
    if split.size == 0:
        return 0.0, 0, 0.0
    ts = t[split]
    lm = np.sum(cum[split] ** 2, axis=1) / (n * ts * (1.0 - ts))
    stat = float(lm.max())
    return stat, r, _log_sup_lm_tail(stat, r, trim)


# --------------------------------------------------------------------------------------------
# fits used by the split search
# --------------------------------------------------------------------------------------------
def _newton_fit(
    stages: ChoiceStages, row_w: np.ndarray, z0: np.ndarray, prior: float
) -> tuple[np.ndarray, float]:
    """Log-likelihood at the (MAP) fit of the rows with weight ``row_w`` (u,), by Newton.

    Maximises ``l(z) + prior * sum(z - exp(z))`` (the function :func:`fit_scores` maximises)
    from ``z0`` with step halving; returns the scores and the log-likelihood ``l`` there. When
    the MLE does not exist the iterations stop at ``_SEARCH_MAX_ITER``, near the supremum.
    Trusts its input.
    """
    m = z0.size
    keep = row_w > 0
    sub = _sub(stages, keep)
    w = row_w[keep]

    def objective(z: np.ndarray) -> tuple[float, float]:
        ll = float(w @ _loglik_compact(sub, z))
        return ll + prior * float(np.sum(z - np.exp(z))), ll

    z = z0 - z0.mean()
    obj, ll = objective(z)
    for _ in range(_SEARCH_MAX_ITER):
        g, info = _gradient_and_information(sub, w, z)
        v = np.exp(z)
        g = g + prior * (1.0 - v)
        H = info + prior * np.diag(v)
        if prior == 0:
            H = H + np.ones((m, m)) / m
        try:  # positive definite when the estimate exists (sum-zero direction fixed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)  # near-singular
                step = scipy.linalg.solve(H, g, assume_a="pos")
        except (np.linalg.LinAlgError, ValueError):
            step = np.linalg.lstsq(H, g, rcond=None)[0]
        size = 1.0
        while True:
            z_new = z + size * step
            new_obj, new_ll = objective(z_new)
            if new_obj >= obj - 1e-12 * abs(obj) or size < 1e-4:
                break
            size *= 0.5
        if new_obj < obj - 1e-12 * abs(obj):
            break
        moved = np.abs(z_new - z).max()
        z, obj, ll = z_new, new_obj, new_ll
        if moved < _SEARCH_TOL:
            break
    return z, ll


def _sub(stages: ChoiceStages, keep: np.ndarray) -> ChoiceStages:
    """The distinct rows ``keep`` of ``stages`` (only the arrays the kernels read)."""
    return ChoiceStages(
        order=stages.order[keep],
        in_set=stages.in_set[keep],
        active=stages.active[keep],
        inverse=np.arange(int(keep.sum())),
        weights=np.ones(int(keep.sum())),
        distinct=stages.distinct[np.flatnonzero(keep)],
    )


# --------------------------------------------------------------------------------------------
# covariates
# --------------------------------------------------------------------------------------------
def _categorical_mask(X: Any, chosen: Any, d: int, names: list[str] | None) -> np.ndarray:
    mask = np.zeros(d, dtype=bool)
    if chosen is None:
        return mask
    chosen = np.asarray(chosen)
    if chosen.dtype == bool:
        if chosen.shape != (d,):
            raise ValueError(f"categorical_features as a mask must have {d} entries")
        return chosen.copy()
    for f in chosen.reshape(-1):
        if isinstance(f, str | np.str_):
            if names is None or str(f) not in names:
                raise ValueError(f"categorical_features names an unknown column {str(f)!r}")
            mask[names.index(str(f))] = True
        elif isinstance(f, numbers.Integral) and 0 <= int(f) < d:
            mask[int(f)] = True
        else:
            raise ValueError(f"categorical_features has an invalid entry {f!r} (d = {d})")
    return mask


def _frame_columns(X: Any) -> tuple[list[np.ndarray], list[str], np.ndarray]:
    """Columns of a DataFrame, their names and which are non-numeric."""
    import pandas as pd

    cols, auto = [], []
    for name in X.columns:
        s = X[name]
        numeric = pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(
            s.dtype
        )
        if s.isna().any():
            raise ValueError(f"X column {name!r} has missing values")
        cols.append(s.to_numpy(dtype=np.float64) if numeric else s.to_numpy(dtype=object))
        auto.append(not numeric)
    return cols, [str(c) for c in X.columns], np.array(auto, dtype=bool)


def _show(value: Any) -> str:
    """A category as people read it (``3``, not ``3.0`` or ``np.int64(3)``)."""
    if isinstance(value, float | np.floating):
        return f"{float(value):g}"
    return str(value.item() if isinstance(value, np.generic) else value)


# --------------------------------------------------------------------------------------------
# the estimator
# --------------------------------------------------------------------------------------------
class PlackettLuceTree(ValidatedParamsMixin, BaseEstimator):
    """Plackett-Luce tree: rankings partitioned by respondent covariates (MOB, as ``pltree``).

    Grows a binary tree on the covariates ``X`` of the people who ranked: each node carries a
    Plackett-Luce model of its rankings, and a node is split when its log-worths are unstable
    along some covariate (score-based M-fluctuation tests, Bonferroni-adjusted over the
    covariates, at level ``alpha``), at the split of that covariate that maximises the summed
    log-likelihood of the two children. See :mod:`rankclust.models.pl_tree` for the algorithm.

    Parameters
    ----------
    alpha : float, default=0.05
        Significance level of the parameter-instability tests: a node is split only when the
        smallest Bonferroni-adjusted p-value (``p * number of covariates tested``, at most 1)
        is below ``alpha``.
    max_depth : int or None, default=None
        Largest depth (the root has depth 0); None for no limit.
    min_samples_leaf : float or None, default=None
        Smallest total weight (number of rankings when unweighted) of a child; a node lighter
        than twice this is not split. None: ``10 * (m - 1)``, ten per free parameter
        (``pltree``'s ``minsize`` default).
    trim : float, default=0.1
        The supLM tests consider splits that leave at least this share of a node's weight on
        each side.
    prior : float, default=0.0
        ``PlackettLuce(alpha=prior)`` in every node: the strength of the Gamma(1 + prior,
        prior) prior on each worth. 0 gives maximum-likelihood fits, which need every item of
        a node to win and lose somewhere (the root is refused otherwise, and a split whose
        child lacks an MLE is passed over); a small value (e.g. 0.1) makes every node's fit
        finite, like ``pltree``'s pseudo-rankings.
    categorical_features : array-like of bool, int or str, optional
        Which columns of ``X`` are categorical: a mask, column indices, or (DataFrame) column
        names. Non-numeric DataFrame columns (object, category, bool, string) are always
        categorical. Other columns are numeric and split at thresholds.
    max_exhaustive_categories : int, default=6
        A categorical split over at most this many categories present in the node tries every
        binary partition; with more it tries the ``C - 1`` cuts of the categories ordered by
        the first principal component of their mean decorrelated scores.
    max_split_candidates : int, default=64
        Largest number of thresholds of a numeric covariate evaluated in the split search
        (evenly spaced over its distinct values in the node; all when fewer).
    max_iter : int, default=1000
        MM updates of each node's final fit.
    tol : float, default=1e-10
        Convergence tolerance of each node's final fit (as :class:`PlackettLuce`).

    Attributes
    ----------
    n_items_ : int
    items_ : tuple of str or None
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame.
    feature_names_ : list of str
        Names used in the text export (the DataFrame's, else ``x0, x1, ...``).
    categorical_ : ndarray of bool, shape (n_features_in_,)
    categories_ : dict of int to ndarray
        Sorted categories of each categorical covariate seen in ``fit`` (codes are indices).
    node_count_ : int
    children_left_, children_right_ : ndarray of intp, shape (node_count_,)
        Child node ids, -1 at a leaf. Nodes are numbered in depth-first (preorder) order.
    split_feature_ : ndarray of intp, shape (node_count_,)
        Covariate of each split, -1 at a leaf.
    threshold_ : ndarray of float64, shape (node_count_,)
        Numeric splits: rows with ``x <= threshold`` go left. NaN otherwise.
    split_categories_ : list of ndarray or None
        Categorical splits: the categories (values, as in ``categories_``) sent left; the
        categories not seen in a node's training rows go to its heavier child.
    node_depth_ : ndarray of intp, shape (node_count_,)
    node_weight_ : ndarray of float64, shape (node_count_,)
        Total weight of the training rankings in each node.
    node_n_samples_ : ndarray of intp, shape (node_count_,)
    node_scores_ : ndarray of float64, shape (node_count_, n_items_)
        Log-worths (mean zero) of each node's Plackett-Luce fit.
    node_standard_errors_ : ndarray of float64, shape (node_count_, n_items_)
        Their standard errors (:func:`~rankclust.inference.plackett_luce_vcov`, sum-zero).
    node_models_ : list of PlackettLuce
        Each node's model (``PlackettLuce.from_params``).
    node_statistics_ : ndarray of float64, shape (node_count_, n_features_in_)
        Test statistic of each covariate at each node (NaN when not tested: a node that was
        too small or at ``max_depth``, or a covariate constant in it).
    node_p_values_ : ndarray of float64, shape (node_count_, n_features_in_)
        Their Bonferroni-adjusted p-values (NaN when not tested).
    node_loglik_ : ndarray of float64, shape (node_count_,)
        Weighted log-likelihood of each node's rankings under its own model.
    leaves_ : ndarray of intp
        The leaf ids.
    n_leaves_ : int

    See Also
    --------
    rankclust.models.PlackettLuce : the model of every node.
    rankclust.label_ranking.LabelRankingTree : a tree on the same kind of data with a
        Mallows impurity and pruning instead of tests.

    Notes
    -----
    Rankings without ties only (complete, top-k or subset: what the Plackett-Luce MM fit
    supports). Differences from ``pltree``: the Bonferroni adjustment is ``min(1, p d)`` over
    the ``d`` covariates that vary in the node; numeric split points are searched among at
    most ``max_split_candidates`` thresholds; the supLM p-value is the closed-form tail of
    :func:`sup_lm_pvalue` instead of Hansen's (1997) table approximation. Weights are
    frequency weights throughout (tests, fits and ``min_samples_leaf``), so weighted data
    grow the same tree as the expanded data.

    Complexity: one node costs O(u m + T u m) for its fit (``u`` distinct rankings, ``T`` MM
    updates, warm-started), O(n m^2 + d n log n) for the tests, and for the split search
    O(c u m^2) per Newton step over ``c`` candidate splits (at most
    ``max_split_candidates``, or ``2^(C-1)`` / ``C`` for ``C`` categories); the tree costs this
    summed over its nodes, about O(depth) times a root. Memory O(n (m + d)).

    References
    ----------
    Zeileis, A., Hothorn, T. & Hornik, K. (2008). Model-based recursive partitioning. Journal
    of Computational and Graphical Statistics, 17(2), 492-514.

    Turner, H. L., van Etten, J., Firth, D. & Kosmidis, I. (2020). Modelling rankings in R:
    the PlackettLuce package. Computational Statistics, 35, 1027-1057.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust import Rankings
    >>> from rankclust.models import PlackettLuce
    >>> young = PlackettLuce.from_params(scores=[1.0, 0.0, -1.0]).sample(300, random_state=0)
    >>> old = PlackettLuce.from_params(scores=[-1.0, 0.0, 1.0]).sample(300, random_state=1)
    >>> R = Rankings(np.vstack([young.ranks, old.ranks]))
    >>> age = np.r_[np.full(300, 25.0), np.full(300, 60.0)]
    >>> tree = PlackettLuceTree().fit(R, age[:, None])
    >>> tree.n_leaves_, float(tree.threshold_[0])
    (2, 42.5)
    >>> tree.predict(np.array([[20.0], [70.0]]))
    array([[0, 1, 2],
           [2, 1, 0]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "max_depth": [Interval(numbers.Integral, 0, None), None],
        "min_samples_leaf": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "trim": [Interval(numbers.Real, 0, 0.5, closed="neither")],
        "prior": [Interval(numbers.Real, 0, None)],
        "categorical_features": ["array-like", None],
        "max_exhaustive_categories": [Interval(numbers.Integral, 2, 16)],
        "max_split_candidates": [Interval(numbers.Integral, 1, None)],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None)],
    }

    def __init__(
        self,
        *,
        alpha: float = 0.05,
        max_depth: int | None = None,
        min_samples_leaf: float | None = None,
        trim: float = 0.1,
        prior: float = 0.0,
        categorical_features: Any = None,
        max_exhaustive_categories: int = 6,
        max_split_candidates: int = 64,
        max_iter: int = 1000,
        tol: float = 1e-10,
    ) -> None:
        self.alpha = alpha
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.trim = trim
        self.prior = prior
        self.categorical_features = categorical_features
        self.max_exhaustive_categories = max_exhaustive_categories
        self.max_split_candidates = max_split_candidates
        self.max_iter = max_iter
        self.tol = tol

    # ---------------------------------------------------------------- covariates
    def _encode_fit(self, X: Any, n: int) -> np.ndarray:
        if is_dataframe(X):
            cols, names, auto = _frame_columns(X)
            self.feature_names_in_ = np.array(names, dtype=object)
            self.feature_names_ = names
        else:
            arr = np.asarray(X)
            if arr.ndim != 2:
                raise ValueError(f"X must be 2-d (n, d), got shape {arr.shape}")
            try:
                arr = arr.astype(np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    "X must be numeric (use a DataFrame for text categories)"
                ) from None
            cols = list(arr.T)
            names = None
            auto = np.zeros(arr.shape[1], dtype=bool)
            self.feature_names_ = [f"x{j}" for j in range(arr.shape[1])]
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        d = len(cols)
        if d == 0:
            raise ValueError("X has no columns")
        if len(cols[0]) != n:
            raise ValueError(f"X has {len(cols[0])} rows but R has {n} rankings")
        cat = auto | _categorical_mask(X, self.categorical_features, d, names)
        self.categorical_ = cat
        self.n_features_in_ = d
        self.categories_ = {}
        out = np.empty((n, d))
        for j, col in enumerate(cols):
            if cat[j]:
                values, codes = np.unique(col, return_inverse=True)
                self.categories_[j] = values
                out[:, j] = codes
            else:
                if not np.isfinite(col).all():
                    raise ValueError(f"X column {self.feature_names_[j]} has NaN or inf")
                out[:, j] = col
        return out

    def _encode(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "node_scores_")
        if is_dataframe(X):
            if not hasattr(self, "feature_names_in_"):
                cols, _, _ = _frame_columns(X)
            else:
                missing = [c for c in self.feature_names_in_ if c not in map(str, X.columns)]
                if missing:
                    raise ValueError(f"X lacks the columns {missing} seen in fit")
                by_name = {str(c): c for c in X.columns}
                cols, _, _ = _frame_columns(X[[by_name[c] for c in self.feature_names_in_]])
        else:
            arr = np.asarray(X)
            if arr.ndim != 2:
                raise ValueError(f"X must be 2-d (n, d), got shape {arr.shape}")
            cols = list(arr.T)
        if len(cols) != self.n_features_in_:
            raise ValueError(f"X has {len(cols)} columns, expected {self.n_features_in_}")
        n = len(cols[0])
        out = np.empty((n, self.n_features_in_))
        for j, col in enumerate(cols):
            if self.categorical_[j]:
                cats = self.categories_[j]
                col = np.asarray(col, dtype=cats.dtype)
                idx = np.clip(np.searchsorted(cats, col), 0, cats.size - 1)
                out[:, j] = np.where(cats[idx] == col, idx, -1)  # -1: unseen category
            else:
                col = np.asarray(col, dtype=np.float64)
                if not np.isfinite(col).all():
                    raise ValueError(f"X column {self.feature_names_[j]} has NaN or inf")
                out[:, j] = col
        return out

    # ---------------------------------------------------------------- fit
    def fit(self, R: Any, X: Any, sample_weight: Any = None) -> PlackettLuceTree:
        """Grow the tree.

        Parameters
        ----------
        R : Rankings or array-like of shape (n, m)
            Rankings without ties (array input: 1-based ranks, 0 for missing, read as
            ``kind="subset"``).
        X : array-like of shape (n, d) or pandas DataFrame
            Covariates of the respondents: a numeric array (categorical columns named by
            ``categorical_features``; their values are category labels) or a DataFrame
            (non-numeric columns are categorical). No missing values.
        sample_weight : array-like of float, shape (n,), optional
            Frequency weight per ranking, multiplied by ``R.weights``.

        Returns
        -------
        self : PlackettLuceTree

        Raises
        ------
        ValueError
            On bad input, and when ``prior == 0`` and the root's maximum-likelihood estimate
            does not exist.
        """
        self._validate_params()
        R = check_rankings(R, allow_ties=False)
        n, m = R.shape
        if m < 2:
            raise ValueError("a Plackett-Luce tree needs at least 2 items")
        Xc = self._encode_fit(X, n)
        sw = check_sample_weight(sample_weight, n)
        w = R.weights * sw
        check_weight_total(w, what="rankings")
        min_leaf = 10.0 * (m - 1) if self.min_samples_leaf is None else self.min_samples_leaf
        self.n_items_ = m
        self.items_ = R.items
        self._min_leaf = float(min_leaf)
        nodes: list[dict] = []
        if float(self.prior) == 0.0:
            root = choice_stages(R)
            problem = _comparison_problem(root, root.row_weights(sw))
            if problem is not None:
                raise ValueError(
                    "the Plackett-Luce maximum-likelihood estimate of the root does not exist: "
                    f"{problem}. Use prior > 0 for finite fits."
                )
        self._grow(R, Xc, sw, w, np.flatnonzero(w > 0), 0, None, nodes)
        self._store(nodes)
        return self

    def _node_fit(
        self, R: Rankings, sw: np.ndarray, rows: np.ndarray, init: np.ndarray | None
    ) -> tuple[ChoiceStages, np.ndarray, bool]:
        stages = choice_stages(R[rows])
        scores, _, converged = fit_scores(
            stages,
            sw[rows],
            alpha=float(self.prior),
            init=init,
            max_iter=self.max_iter,
            tol=self.tol,
        )
        return stages, scores, converged

    def _grow(
        self,
        R: Rankings,
        Xc: np.ndarray,
        sw: np.ndarray,
        w: np.ndarray,
        rows: np.ndarray,
        depth: int,
        init: np.ndarray | None,
        nodes: list[dict],
    ) -> int:
        stages, z, converged = self._node_fit(R, sw, rows, init)
        if not converged:
            warnings.warn(
                f"the Plackett-Luce fit of a tree node did not converge in "
                f"max_iter={self.max_iter} MM updates",
                ConvergenceWarning,
                stacklevel=3,
            )
        row_w = stages.row_weights(sw[rows])
        node = {
            "rows": rows,
            "depth": depth,
            "scores": z,
            "weight": float(w[rows].sum()),
            "loglik": float(row_w @ _loglik_compact(stages, z)),
            "se": np.sqrt(
                np.clip(
                    np.diag(plackett_luce_vcov(stages, z, sw[rows], alpha=float(self.prior))),
                    0.0,
                    None,
                )
            ),
            "stat": np.full(Xc.shape[1], np.nan),
            "p": np.full(Xc.shape[1], np.nan),
            "split": None,
        }
        node_id = len(nodes)
        nodes.append(node)
        if (self.max_depth is not None and depth >= self.max_depth) or node["weight"] < (
            2 * self._min_leaf
        ):
            return node_id
        psi = _distinct_row_scores(stages, z)[stages.inverse][:, :-1]
        wr = w[rows]
        psi = psi - (wr @ psi / wr.sum())  # exact zero sum (a prior > 0 leaves an offset)
        Xn = Xc[rows]
        log_p = np.full(Xc.shape[1], np.inf)
        tested = []
        for j in range(Xc.shape[1]):
            stat, df, lp = _instability(psi, Xn[:, j], wr, bool(self.categorical_[j]), self.trim)
            if df > 0:
                node["stat"][j] = stat
                log_p[j] = lp
                tested.append(j)
        if not tested:
            return node_id
        log_bonf = np.log(len(tested))
        for j in tested:
            node["p"][j] = min(1.0, math.exp(log_p[j] + log_bonf))
        best = int(np.argmin(log_p))  # the most unstable covariate
        if not log_p[best] + log_bonf < math.log(self.alpha):
            return node_id
        left_mask = self._best_split(stages, z, psi, Xn[:, best], wr, sw[rows], best)
        if left_mask is None:
            return node_id
        rule, go_left = left_mask
        node["split"] = (best, rule)
        node["seen"] = np.unique(Xn[:, best])
        node["left"] = self._grow(R, Xc, sw, w, rows[go_left], depth + 1, z, nodes)
        node["right"] = self._grow(R, Xc, sw, w, rows[~go_left], depth + 1, z, nodes)
        return node_id

    def _candidates(
        self, psi: np.ndarray, x: np.ndarray, w: np.ndarray, categorical: bool
    ) -> list[tuple[Any, np.ndarray]]:
        """Candidate splits ``(rule, go_left)`` of one covariate respecting min_samples_leaf."""
        out = []
        lo = self._min_leaf
        total = w.sum()
        if categorical:
            cats, code = np.unique(x, return_inverse=True)
            n_c = np.bincount(code, weights=w, minlength=cats.size)
            if cats.size <= self.max_exhaustive_categories:
                subsets = [
                    (0, *rest)
                    for size in range(cats.size - 1)
                    for rest in itertools.combinations(range(1, cats.size), size)
                ]
            else:
                u = _decorrelate(psi, w)
                means = np.zeros((cats.size, u.shape[1]))
                np.add.at(means, code, u * w[:, None])
                means /= n_c[:, None]
                centred = (means - n_c @ means / total) * np.sqrt(n_c)[:, None]
                pc = np.linalg.svd(centred, full_matrices=False)[2][0] if u.shape[1] else None
                key = means @ pc if pc is not None else np.arange(cats.size)
                ordered = np.argsort(key, kind="stable")
                subsets = [tuple(ordered[: c + 1]) for c in range(cats.size - 1)]
            for sub in subsets:
                in_left = np.zeros(cats.size, dtype=bool)
                in_left[list(sub)] = True
                wl = n_c[in_left].sum()
                if wl >= lo and total - wl >= lo:
                    out.append((cats[in_left], in_left[code]))
            return out
        vals, code = np.unique(x, return_inverse=True)
        if vals.size < 2:
            return out
        cw = np.cumsum(np.bincount(code, weights=w, minlength=vals.size))[:-1]
        ok = np.flatnonzero((cw >= lo) & (total - cw >= lo))
        if ok.size > self.max_split_candidates:
            ok = ok[np.unique(np.round(np.linspace(0, ok.size - 1, self.max_split_candidates)))
                    .astype(np.intp)]  # fmt: skip
        for i in ok:
            thr = 0.5 * (vals[i] + vals[i + 1])
            if not vals[i] < thr:  # midpoint rounds onto the lower value
                thr = vals[i]
            out.append((float(thr), code <= i))
        return out

    def _best_split(
        self,
        stages: ChoiceStages,
        z: np.ndarray,
        psi: np.ndarray,
        x: np.ndarray,
        w: np.ndarray,
        sw_rows: np.ndarray,
        feature: int,
    ) -> tuple[Any, np.ndarray] | None:
        """The split of ``feature`` with the largest summed log-likelihood of its children."""
        cands = self._candidates(psi, x, w, bool(self.categorical_[feature]))
        prior = float(self.prior)
        ranked = []
        for rule, go_left in cands:
            ll = 0.0
            for side in (go_left, ~go_left):
                row_w = stages.row_weights(np.where(side, sw_rows, 0.0))
                ll += _newton_fit(stages, row_w, z, prior)[1]
            ranked.append((ll, rule, go_left))
        ranked.sort(key=lambda c: -c[0])
        for _, rule, go_left in ranked:
            if prior == 0 and any(
                _comparison_problem(stages, stages.row_weights(np.where(side, sw_rows, 0.0)))
                for side in (go_left, ~go_left)
            ):
                continue  # a child without a maximum-likelihood estimate
            return rule, go_left
        return None

    def _store(self, nodes: list[dict]) -> None:
        k = len(nodes)
        left = np.full(k, -1, dtype=np.intp)
        right = np.full(k, -1, dtype=np.intp)
        feat = np.full(k, -1, dtype=np.intp)
        thr = np.full(k, np.nan)
        cats: list[np.ndarray | None] = [None] * k
        for t, node in enumerate(nodes):
            if node["split"] is not None:
                left[t], right[t] = node["left"], node["right"]
                feat[t], rule = node["split"]
                if self.categorical_[feat[t]]:
                    cats[t] = self.categories_[feat[t]][np.asarray(rule, dtype=np.intp)]
                else:
                    thr[t] = rule
        self.node_count_ = k
        self.children_left_, self.children_right_ = left, right
        self.split_feature_, self.threshold_, self.split_categories_ = feat, thr, cats
        self.node_depth_ = np.array([nd["depth"] for nd in nodes], dtype=np.intp)
        self.node_weight_ = np.array([nd["weight"] for nd in nodes])
        self.node_n_samples_ = np.array([nd["rows"].size for nd in nodes], dtype=np.intp)
        self.node_scores_ = np.array([nd["scores"] for nd in nodes])
        self.node_standard_errors_ = np.array([nd["se"] for nd in nodes])
        self.node_statistics_ = np.array([nd["stat"] for nd in nodes])
        self.node_p_values_ = np.array([nd["p"] for nd in nodes])
        self.node_loglik_ = np.array([nd["loglik"] for nd in nodes])
        self.node_models_ = [PlackettLuce.from_params(scores=nd["scores"]) for nd in nodes]
        for model in self.node_models_:
            model.items_ = self.items_
        self.leaves_ = np.flatnonzero(left < 0)
        self.n_leaves_ = int(self.leaves_.size)
        # codes of the categories seen in each categorical split's training rows
        self._seen_codes = [
            nd.get("seen") if c is not None else None for nd, c in zip(nodes, cats, strict=True)
        ]

    # ---------------------------------------------------------------- prediction
    def apply(self, X: Any) -> np.ndarray:
        """Leaf id of each row of ``X``.

        Parameters
        ----------
        X : array-like of shape (q, d) or pandas DataFrame
            As in ``fit``; a category not seen at a split goes to its heavier child.

        Returns
        -------
        ndarray of intp, shape (q,)

        Notes
        -----
        Complexity: O(q node_count_) time, O(q) memory.
        """
        return self._apply_codes(self._encode(X))

    def _apply_codes(self, Xc: np.ndarray) -> np.ndarray:
        leaf = np.zeros(Xc.shape[0], dtype=np.intp)
        for t in range(self.node_count_):  # preorder: parents before children
            if self.children_left_[t] < 0:
                continue
            at = np.flatnonzero(leaf == t)
            if at.size == 0:
                continue
            x = Xc[at, self.split_feature_[t]]
            cats = self.split_categories_[t]
            if cats is None:
                go_left = x <= self.threshold_[t]
            else:
                j = self.split_feature_[t]
                left_codes = np.searchsorted(self.categories_[j], cats)
                go_left = np.isin(x, left_codes)
                unseen = ~np.isin(x, self._seen_codes[t])
                heavier_left = (
                    self.node_weight_[self.children_left_[t]]
                    >= self.node_weight_[self.children_right_[t]]
                )
                go_left = np.where(unseen, heavier_left, go_left)
            leaf[at] = np.where(go_left, self.children_left_[t], self.children_right_[t])
        return leaf

    def predict_worths(self, X: Any) -> np.ndarray:
        """Worths (summing to 1) of the leaf of each row of ``X``, shape (q, n_items_)."""
        leaf = self.apply(X)
        z = self.node_scores_[leaf]
        v = np.exp(z - z.max(axis=1, keepdims=True))
        return v / v.sum(axis=1, keepdims=True)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted ranking of each row: its leaf's items by decreasing worth.

        Returns
        -------
        ndarray of int64, shape (q, n_items_)
            0-based positions (the rank-matrix convention of :class:`~rankclust.Rankings`;
            ``Rankings(tree.predict(X))`` is a Rankings), ties broken by item index.
        """
        leaf = self.apply(X)
        return np.array([m.ranking_ for m in self.node_models_])[leaf]

    def logpdf(self, R: Any, X: Any) -> np.ndarray:
        """Log-probability of each ranking under the model of its row's leaf, shape (n,).

        Notes
        -----
        Complexity: O(n m log n) time, O(n m) memory.
        """
        check_is_fitted(self, "node_scores_")
        R = check_rankings(R, n_items=self.n_items_, items=self.items_, allow_ties=False)
        leaf = self.apply(X)
        if leaf.size != R.n_rankings:
            raise ValueError(f"X has {leaf.size} rows but R has {R.n_rankings} rankings")
        out = np.empty(R.n_rankings)
        for t in np.unique(leaf):
            rows = np.flatnonzero(leaf == t)
            out[rows] = loglik_rows(R[rows], self.node_scores_[t])
        return out

    def score(self, R: Any, X: Any, sample_weight: Any = None) -> float:
        """Average log-likelihood per ranking (weighted by ``R.weights * sample_weight``)."""
        R = check_rankings(R, n_items=self.n_items_, items=self.items_, allow_ties=False)
        w = R.weights * check_sample_weight(sample_weight, R.n_rankings)
        if not w.sum() > 0:
            raise ValueError("R has zero total weight")
        return float(w @ self.logpdf(R, X) / w.sum())

    def _validate_loaded_state(self) -> None:
        """Check the state of a tree read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self) or not hasattr(self, "node_scores_"):
            return
        m = loaded.int_attr(self, "n_items_", low=2)
        d = loaded.int_attr(self, "n_features_in_", low=1)
        k = loaded.int_attr(self, "node_count_", low=1)
        loaded.items_attr(self, n_items=m)
        cat = loaded.array_attr(self, "categorical_", kind="b", shape=(d,))
        left = loaded.array_attr(self, "children_left_", kind="i", shape=(k,))
        right = loaded.array_attr(self, "children_right_", kind="i", shape=(k,))
        feat = loaded.array_attr(self, "split_feature_", kind="i", shape=(k,))
        thr = loaded.array_attr(self, "threshold_", shape=(k,), finite=False)
        split = left >= 0
        if not np.array_equal(split, feat >= 0) or not np.array_equal(split, right >= 0):
            raise ValueError("children_left_: leaves and splits disagree between the arrays")
        categorical_split = split & cat[np.clip(feat, 0, d - 1)]
        loaded.check_tree(feat, np.where(categorical_split, 0.0, thr), left, right,
                          n_features=d, name="PlackettLuceTree", split=split)  # fmt: skip
        for name in ("node_scores_", "node_standard_errors_"):
            loaded.array_attr(self, name, shape=(k, m), finite=name == "node_scores_")
        loaded.array_attr(self, "node_weight_", shape=(k,), low=0.0)
        loaded.array_attr(self, "node_depth_", kind="i", shape=(k,), low=0)
        loaded.array_attr(self, "leaves_", kind="i", ndim=1, low=0, high=k - 1)
        if not isinstance(self.categories_, dict) or set(self.categories_) != set(
            np.flatnonzero(cat).tolist()
        ):
            raise ValueError("categories_: one entry per categorical covariate expected")
        if not isinstance(self.feature_names_, list) or len(self.feature_names_) != d:
            raise ValueError(f"feature_names_: expected {d} names")
        cats = self.split_categories_
        seen = self._seen_codes
        if not (isinstance(cats, list) and isinstance(seen, list) and len(cats) == len(seen) == k):
            raise ValueError(f"split_categories_: expected a list of {k} entries")
        for t in range(k):
            if categorical_split[t] != (cats[t] is not None) or (cats[t] is None) != (
                seen[t] is None
            ):
                raise ValueError(f"split_categories_: node {t} does not match its split")
            if cats[t] is not None:
                n_cat = len(self.categories_[int(feat[t])])
                loaded.check_array(seen[t], "_seen_codes", kind="f", ndim=1, low=0,
                                   high=n_cat - 1)  # fmt: skip
                if not np.isin(cats[t], self.categories_[int(feat[t])]).all():
                    raise ValueError(f"split_categories_: node {t} names an unknown category")
        models = self.node_models_
        if not (isinstance(models, list) and len(models) == k):
            raise ValueError(f"node_models_: expected {k} models")
        for model in models:
            if not isinstance(model, PlackettLuce) or getattr(model, "n_items_", None) != m:
                raise ValueError(f"node_models_: expected fitted PlackettLuce models of {m} items")

    # ---------------------------------------------------------------- output
    def _rule(self, t: int, left: bool) -> str:
        j = self.split_feature_[t]
        name = self.feature_names_[j]
        cats = self.split_categories_[t]
        if cats is None:
            return f"{name} {'<=' if left else '>'} {self.threshold_[t]:g}"
        seen = self.categories_[j][np.asarray(self._seen_codes[t], dtype=np.intp)]
        side = cats if left else np.setdiff1d(seen, cats)  # the categories of the node's rows
        return f"{name} in {{{', '.join(_show(c) for c in side)}}}"

    def node_rules(self, node: int, *, combine: bool = False) -> list[str]:
        """The split conditions on the path from the root to ``node``.

        Parameters
        ----------
        node : int
        combine : bool, default=False
            One condition per covariate: the bounds of a numeric one as an interval
            (``"0.5 < age <= 2.5"``), the last (narrowest) set of a categorical one.

        Returns
        -------
        list of str
            Root first (empty for the root).
        """
        check_is_fitted(self, "node_scores_")
        parent = {}
        for t in range(self.node_count_):
            if self.children_left_[t] >= 0:
                parent[self.children_left_[t]] = (t, True)
                parent[self.children_right_[t]] = (t, False)
        path = []
        while node in parent:
            path.append(parent[node])
            node = parent[node][0]
        path = path[::-1]
        if not combine:
            return [self._rule(t, left) for t, left in path]
        last: dict[int, list] = {}
        for t, left in path:
            j = int(self.split_feature_[t])
            lo, hi, rule = last.get(j, [-np.inf, np.inf, None])
            if self.split_categories_[t] is None:
                lo, hi = (
                    (lo, min(hi, self.threshold_[t]))
                    if left
                    else (max(lo, self.threshold_[t]), hi)
                )
            else:
                rule = self._rule(t, left)
            last[j] = [lo, hi, rule]
        out = []
        for j, (lo, hi, rule) in last.items():
            if rule is None:
                name = self.feature_names_[j]
                rule = (
                    f"{name} <= {hi:g}" if lo == -np.inf
                    else f"{name} > {lo:g}" if hi == np.inf
                    else f"{lo:g} < {name} <= {hi:g}"
                )  # fmt: skip
            out.append(rule)
        return out

    def export_text(self, *, max_items: int = 10, decimals: int = 3) -> str:
        """The tree as text: splits with their test p-values, each leaf's size and worths.

        Parameters
        ----------
        max_items : int, default=10
            Items listed per leaf (best first).
        decimals : int, default=3
            Decimals of the worths.

        Returns
        -------
        str
        """
        check_is_fitted(self, "node_scores_")
        names = (
            list(self.items_)
            if self.items_ is not None
            else [str(j) for j in range(self.n_items_)]
        )
        lines = [
            f"Plackett-Luce tree: {self.n_leaves_} leaves, {self.node_count_} nodes "
            f"(alpha={self.alpha}, Bonferroni-adjusted tests)"
        ]

        def tests(t: int) -> str:
            p = self.node_p_values_[t]
            done = np.flatnonzero(~np.isnan(p))
            if done.size == 0:
                return "not tested"
            j = done[np.argsort(p[done], kind="stable")]
            return "p: " + ", ".join(f"{self.feature_names_[i]} {p[i]:.2g}" for i in j[:3])

        def walk(t: int, indent: str, label: str) -> None:
            head = f"{indent}{label}node {t}: weight {self.node_weight_[t]:g}"
            if self.children_left_[t] >= 0:
                lines.append(f"{head}; {tests(t)}")
                for child, left in (
                    (self.children_left_[t], True),
                    (self.children_right_[t], False),
                ):
                    walk(child, indent + "|   ", f"{self._rule(t, left)} -> ")
            else:
                v = self.node_models_[t].worths_
                top = np.argsort(-v, kind="stable")[:max_items]
                worths = ", ".join(f"{names[i]} {v[i]:.{decimals}f}" for i in top)
                lines.append(f"{head} (leaf; {tests(t)})")
                lines.append(f"{indent}    worths: {worths}")

        walk(0, "", "")
        return "\n".join(lines)
