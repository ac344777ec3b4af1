"""Evaluation measures: label-ranking accuracy, cluster quality, ordinal-label errors.

* Ranking accuracy: :func:`kendall_tau` (and per row :func:`kendall_tau_rows`),
  :func:`label_ranking_loss` (Grbovic et al. 2013, eq. 6); for predictions with ties
  (partial label ranking), Emond & Mason's :func:`tau_x` (per row :func:`tau_x_rows`).
* Supervised-clustering quality (Grbovic et al. 2013, eqs. 2-5): :func:`delta_rank` (label
  space), :func:`d_feat` and :func:`d_knh` (feature space).
* Ordinal labels (Xiao et al. 2016, eqs. 9-11): :func:`mze`, :func:`mae`, :func:`amae`.
* Cluster agreement, re-exported unchanged from scikit-learn:
  :func:`adjusted_rand_score`, :func:`normalized_mutual_info_score` (Xiao et al.'s eq. 12 is
  its ``average_method="geometric"``; scikit-learn's default is the arithmetic mean).

Rankings are given as a :class:`~rankclust.Rankings` or anything
:func:`~rankclust.check_rankings` accepts (1-based ranks, 0 or NaN for a missing label). All
Kendall arithmetic comes from :mod:`rankclust.distances`: a pair of labels counts when it is
strictly ordered in both rankings (pairs with a missing label or a tie are left out; see that
module's docstring).

Incomplete true rankings
------------------------
As decided for Grbovic et al. (decisions.md G1) and as in Cheng et al. (2009,
section 6.1), a row whose true ranking is incomplete is scored on its observed pairs only:
``tau = (C - D) / (C + D)`` and ``loss = D / (C + D)`` with ``C + D`` the number of comparable
pairs. A row with **no comparable pair** (fewer than two observed labels, or all of them tied)
carries no information and is **left out of the mean**; if every row is left out the result is
NaN with an :class:`~sklearn.exceptions.UndefinedMetricWarning`. Predicted rankings must be
complete.

Weights: a weighted :class:`~rankclust.Rankings` counts each row with its weight (weighted data
score as the expanded data), multiplied by ``sample_weight`` where a function takes it.

References
----------
.. [1] Grbovic, M., Djuric, N., Guo, S. & Vucetic, S. (2013). Supervised clustering of label
       ranking data using label preference information. *Machine Learning* 93, 191-225.
.. [2] Cheng, W., Huehn, J. & Huellermeier, E. (2009). Decision tree and instance-based
       learning for label ranking. *ICML*, 161-168.
.. [3] Kremer, H., Kranen, P., Jansen, T., Seidl, T., Bifet, A., Holmes, G. & Pfahringer, B.
       (2011). An effective evaluation measure for clustering on evolving data streams.
       *KDD*, 868-876.
.. [5] Emond, E. J. & Mason, D. W. (2002). A new rank correlation coefficient with
       application to the consensus ranking problem. *J. Multi-Criteria Decision Analysis*
       11, 17-28.
.. [4] Xiao, Y., Liu, B. & Hao, Z. (2016). A maximum margin approach for semisupervised
       ordinal regression clustering. *IEEE Trans. Neural Netw. Learn. Syst.* 27(5),
       1003-1019.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_array

from rankclust._param_validation import (
    Interval,
    StrOptions,
    check_sample_weight,
    validate_arguments,
)
from rankclust.distances import kendall_counts
from rankclust.rankings import Rankings, check_rankings

__all__ = [
    "adjusted_rand_score",
    "amae",
    "d_feat",
    "d_knh",
    "delta_rank",
    "kendall_tau",
    "kendall_tau_rows",
    "label_ranking_loss",
    "mae",
    "mze",
    "normalized_mutual_info_score",
    "tau_x",
    "tau_x_rows",
]


# --------------------------------------------------------------------------------------------
# boundary helpers
# --------------------------------------------------------------------------------------------
def _check_true_pred(Y_true: Any, Y_pred: Any) -> tuple[Rankings, Rankings]:
    """True rankings (any kind, partial, ties) and complete predictions of the same shape."""
    R = check_rankings(Y_true, name="Y_true")
    P = check_rankings(Y_pred, name="Y_pred", n_items=R.n_items)
    if P.n_rankings != R.n_rankings:
        raise ValueError(
            f"Y_pred has {P.n_rankings} rankings, Y_true has {R.n_rankings}; they must match"
        )
    bad = (P.lengths < P.n_items) | P.has_ties
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"Y_pred: row {i} is not a complete ranking without ties "
            f"({int(P.lengths[i])} of {P.n_items} labels ranked); predictions must rank "
            "every label"
        )
    return R, P


def _check_labels(labels: Any, n: int, name: str = "labels") -> np.ndarray:
    lab = np.asarray(labels)
    if lab.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {lab.shape}")
    if n and lab.dtype.kind not in "iu":
        if lab.dtype.kind == "f" and np.isfinite(lab).all() and (lab == np.round(lab)).all():
            lab = lab.astype(np.int64)
        else:
            raise ValueError(f"{name} must be integers, got dtype {lab.dtype}")
    return lab.astype(np.int64)


def _weighted_mean(values: np.ndarray, weights: np.ndarray, what: str) -> float:
    """Mean of ``values`` over the rows where they are defined (not NaN), weighted."""
    ok = ~np.isnan(values) & (weights > 0)
    if not ok.any():
        warnings.warn(
            f"{what} is undefined: no row has a comparable pair of labels (and positive "
            "weight); returning NaN",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    return float(np.average(values[ok], weights=weights[ok]))


# --------------------------------------------------------------------------------------------
# label-ranking accuracy
# --------------------------------------------------------------------------------------------
def kendall_tau_rows(Y_true: Any, Y_pred: Any) -> np.ndarray:
    """Kendall's tau of each predicted ranking against its true ranking.

    Parameters
    ----------
    Y_true : Rankings or array-like of 1-based ranks, shape (n, m)
        True rankings; may be incomplete (0/NaN or absent items) or have ties.
    Y_pred : Rankings or array-like of 1-based ranks, shape (n, m)
        Complete predicted rankings without ties.

    Returns
    -------
    ndarray of float64, shape (n,)
        ``(C - D) / (C + D)`` over the pairs observed and strictly ordered in ``Y_true``
        (C concordant, D discordant); NaN for a row with no such pair.

    Notes
    -----
    For complete rankings ``tau = 1 - 4 D / (m (m - 1))`` (Cheng et al. 2009, section 6.1).

    Complexity: O(n m^2) time (O(n m log m) for complete rankings with m >= 24),
    O(n m) memory.

    Examples
    --------
    >>> kendall_tau_rows([[1, 2, 3], [1, 2, 0], [0, 1, 0]], [[1, 2, 3], [2, 1, 3], [3, 2, 1]])
    array([ 1., -1., nan])
    """
    R, P = _check_true_pred(Y_true, Y_pred)
    disc, comp = kendall_counts(R, P)
    tau = np.full(R.n_rankings, np.nan)
    ok = comp > 0
    tau[ok] = (comp[ok] - 2 * disc[ok]) / comp[ok]
    return tau


def kendall_tau(Y_true: Any, Y_pred: Any, sample_weight: Any = None) -> float:
    """Mean Kendall's tau between true and predicted label rankings.

    Parameters
    ----------
    Y_true : Rankings or array-like of 1-based ranks, shape (n, m)
        True rankings; may be incomplete or have ties (see :func:`kendall_tau_rows`).
    Y_pred : Rankings or array-like of 1-based ranks, shape (n, m)
        Complete predicted rankings without ties (e.g. a label ranker's ``predict``).
    sample_weight : array-like of shape (n,), optional
        Row weights, multiplied by ``Y_true``'s own weights.

    Returns
    -------
    float
        Weighted mean over the rows with at least one comparable pair, in ``[-1, 1]``; NaN
        (with an ``UndefinedMetricWarning``) when there is no such row.

    See Also
    --------
    label_ranking_loss : ``(1 - tau) / 2`` row by row.

    Notes
    -----
    Complexity: O(n m^2) time, O(n m) memory.

    References
    ----------
    Cheng, Huehn & Huellermeier (2009), section 6.1; Grbovic et al. (2013), eq. (7).

    Examples
    --------
    >>> round(kendall_tau([[1, 2, 3, 4], [1, 2, 3, 4]], [[1, 2, 3, 4], [1, 2, 4, 3]]), 4)
    0.8333
    """
    R, _ = _check_true_pred(Y_true, Y_pred)
    tau = kendall_tau_rows(R, Y_pred)
    w = check_sample_weight(sample_weight, R.n_rankings) * R.weights
    return _weighted_mean(tau, w, "kendall_tau")


def label_ranking_loss(Y_true: Any, Y_pred: Any, sample_weight: Any = None) -> float:
    """Label-ranking loss: the mean normalised Kendall distance (Grbovic et al., eq. 6).

    ``loss_LR = mean_n 2 d_tau(pi_n, pihat_n) / (L (L - 1))`` for complete rankings; an
    incomplete true ranking is normalised by its own comparable pairs, ``D / (C + D)``, and a
    row without comparable pairs is left out (decisions.md G1).

    Not to be confused with :func:`sklearn.metrics.label_ranking_loss`, a multilabel measure.

    Parameters
    ----------
    Y_true : Rankings or array-like of 1-based ranks, shape (n, m)
    Y_pred : Rankings or array-like of 1-based ranks, shape (n, m)
        Complete predicted rankings without ties.
    sample_weight : array-like of shape (n,), optional
        Row weights, multiplied by ``Y_true``'s own weights.

    Returns
    -------
    float
        In ``[0, 1]``; equals ``(1 - kendall_tau(Y_true, Y_pred)) / 2`` (eq. 7). NaN with an
        ``UndefinedMetricWarning`` when no row has a comparable pair.

    Notes
    -----
    Complexity: O(n m^2) time, O(n m) memory.

    Examples
    --------
    >>> label_ranking_loss([[1, 2, 3, 4]], [[4, 3, 2, 1]])
    1.0
    """
    R, P = _check_true_pred(Y_true, Y_pred)
    disc, comp = kendall_counts(R, P)
    loss = np.full(R.n_rankings, np.nan)
    ok = comp > 0
    loss[ok] = disc[ok] / comp[ok]
    w = check_sample_weight(sample_weight, R.n_rankings) * R.weights
    return _weighted_mean(loss, w, "label_ranking_loss")


def _tau_x_check(Y_true: Any, Y_pred: Any) -> tuple[Rankings, Rankings]:
    R = check_rankings(Y_true, name="Y_true")
    P = check_rankings(Y_pred, name="Y_pred", n_items=R.n_items)
    if P.n_rankings != R.n_rankings:
        raise ValueError(
            f"Y_pred has {P.n_rankings} rankings, Y_true has {R.n_rankings}; they must match"
        )
    if "top" in (R.kind, P.kind):
        raise ValueError(
            'tau_x compares rankings of kind="subset" (missing labels unknown); got a '
            'kind="top" Rankings'
        )
    return R, P


def tau_x_rows(Y_true: Any, Y_pred: Any) -> np.ndarray:
    """Emond & Mason's tau_x of each predicted ranking (ties allowed) against its true one.

    With ``a[u, v] = 1`` when ``u`` is above **or tied with** ``v`` in the true ranking and
    ``-1`` when it is below (``b`` the same for the prediction),
    ``tau_x = sum_{u != v} a[u, v] b[u, v] / (k (k - 1))`` over the ``k`` labels ranked in
    both. Unlike Kendall's tau it rewards a predicted tie where the truth has a tie, and it is
    the measure of partial label ranking (Alfaro et al. 2021).

    Parameters
    ----------
    Y_true : Rankings or array-like of 1-based ranks, shape (n, m)
        True rankings, ties allowed; missing labels (0/NaN) are left out.
    Y_pred : Rankings or array-like of 1-based ranks, shape (n, m)
        Predicted rankings, ties allowed.

    Returns
    -------
    ndarray of float64, shape (n,)
        In ``[-1, 1]``; 1 for equal bucket orders; NaN for a row with fewer than two labels
        ranked in both.

    Notes
    -----
    For rankings without ties it equals Kendall's tau.

    Complexity: O(n m^2) time, O(m^2) memory per block of rows.

    Examples
    --------
    >>> tau_x_rows([[1, 2, 2], [2, 2, 1], [2, 1, 2]], [[2, 1, 2], [2, 2, 1], [1, 2, 2]])
    array([-0.33333333,  1.        , -0.33333333])
    """
    R, P = _tau_x_check(Y_true, Y_pred)
    n, m = R.shape
    out = np.full(n, np.nan)
    if m < 2:
        return out
    ra = np.asarray(R.ranks, dtype=np.int64)  # storage may be narrow; compare in int64
    pa = np.asarray(P.ranks, dtype=np.int64)
    step = max(1, 2_000_000 // (m * m))
    for s in range(0, n, step):
        r, p = ra[s : s + step], pa[s : s + step]
        both = (r >= 0) & (p >= 0)
        a = np.where(r[:, :, None] <= r[:, None, :], 1, -1)
        b = np.where(p[:, :, None] <= p[:, None, :], 1, -1)
        use = both[:, :, None] & both[:, None, :]
        idx = np.arange(m)
        use[:, idx, idx] = False
        k = both.sum(axis=1).astype(np.float64)
        total = np.where(use, a * b, 0).sum(axis=(1, 2)).astype(np.float64)
        ok = k >= 2
        blk = out[s : s + step]
        blk[ok] = total[ok] / (k[ok] * (k[ok] - 1))
    return out


def tau_x(Y_true: Any, Y_pred: Any, sample_weight: Any = None) -> float:
    """Mean tau_x (Emond & Mason 2002) between true and predicted rankings with ties.

    Parameters
    ----------
    Y_true : Rankings or array-like of 1-based ranks, shape (n, m)
    Y_pred : Rankings or array-like of 1-based ranks, shape (n, m)
        Predictions, ties allowed (e.g. a partial label ranker's ``predict``).
    sample_weight : array-like of shape (n,), optional
        Row weights, multiplied by ``Y_true``'s own weights.

    Returns
    -------
    float
        Weighted mean of :func:`tau_x_rows` over the rows where it is defined; NaN (with an
        ``UndefinedMetricWarning``) when there is none.

    References
    ----------
    Emond & Mason (2002); Alfaro, Aledo & Gámez (2021), the measure of partial label ranking
    (scikit-lr's ``tau_x_score``).

    Examples
    --------
    >>> round(tau_x([[1, 2, 2], [2, 2, 1], [2, 1, 2]], [[2, 1, 2], [2, 2, 1], [1, 2, 2]]), 4)
    0.1111
    """
    R, _ = _tau_x_check(Y_true, Y_pred)
    values = tau_x_rows(R, Y_pred)
    w = check_sample_weight(sample_weight, R.n_rankings) * R.weights
    return _weighted_mean(values, w, "tau_x")


# --------------------------------------------------------------------------------------------
# supervised clustering of label rankings (Grbovic et al. 2013, section 2)
# --------------------------------------------------------------------------------------------
_DELTA_SCALES = ("none", "pairs", "tau")


@validate_arguments({"normalize": [StrOptions(_DELTA_SCALES)]})
def delta_rank(Y: Any, labels: Any, centers: Any, normalize: str = "pairs") -> float:
    """External cluster measure Delta_rank (Grbovic et al. 2013, eq. 2).

    ``Delta_rank = (1/K) sum_k mean_{n in S_k} d_tau(pi_n, rho_k)``: the unweighted average
    over clusters of the mean Kendall distance between a cluster's rankings and its central
    ranking. Lower is purer.

    Parameters
    ----------
    Y : Rankings or array-like of 1-based ranks, shape (n, m)
        The rankings of the clustered instances (may be incomplete or tied).
    labels : array-like of int, shape (n,)
        Cluster of each instance, in ``0..K-1``.
    centers : Rankings or array-like of int, shape (K, m)
        Central ranking of each cluster: a :class:`~rankclust.Rankings` or **0-based
        position vectors** (as returned by :mod:`rankclust.consensus`), one per row.
    normalize : {"none", "pairs", "tau"}, default="pairs"
        Scale of each ``d_tau``: ``"none"`` the raw count of discordant pairs (the literal
        eq. 2); ``"pairs"`` divided by the row's comparable pairs (``L (L - 1) / 2`` for a
        complete ranking); ``"tau"`` twice that, the ``1 - tau`` scale.

    Returns
    -------
    float
        NaN with an ``UndefinedMetricWarning`` when no row has a comparable pair.

    Notes
    -----
    Conventions (decisions.md G1-G2): an incomplete ranking is compared on its
    observed pairs; rows without a comparable pair are left out, and the average runs over
    the clusters that keep at least one row (empty clusters are skipped). Rows count with the
    weights of ``Y`` inside a cluster; clusters count equally.

    Complexity: O(n m^2) time, O(n m) memory.

    Examples
    --------
    >>> Y = [[1, 2, 3], [2, 1, 3], [3, 2, 1]]  # 1-based ranks
    >>> delta_rank(Y, [0, 0, 1], [[0, 1, 2], [2, 1, 0]])  # ((0 + 1/3) / 2 + 0) / 2
    0.08333333333333333
    """
    R = check_rankings(Y, name="Y")
    n = R.n_rankings
    lab = _check_labels(labels, n)
    C = centers if isinstance(centers, Rankings) else Rankings(centers)
    if C.n_items != R.n_items:
        raise ValueError(f"centers have {C.n_items} items, Y has {R.n_items}")
    K = C.n_rankings
    if n and (lab.min() < 0 or lab.max() >= K):
        raise ValueError(f"labels must lie in 0..{K - 1} (one per row of centers)")
    disc, comp = kendall_counts(R, C[lab]) if n else (np.zeros(0), np.zeros(0))
    ok = (comp > 0) & (R.weights > 0)
    d = disc.astype(np.float64)
    if normalize != "none":
        d[ok] = disc[ok] / comp[ok] * (2.0 if normalize == "tau" else 1.0)
    means = []
    for k in np.unique(lab[ok]):
        sel = ok & (lab == k)
        means.append(np.average(d[sel], weights=R.weights[sel]))
    if not means:
        warnings.warn(
            "delta_rank is undefined: no row has a comparable pair of labels; returning NaN",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return float("nan")
    return float(np.mean(means))


def _check_X_labels(X: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    X = check_array(X, dtype=np.float64, ensure_min_samples=1)
    return X, _check_labels(labels, X.shape[0])


def d_feat(X: Any, labels: Any) -> float:
    """Internal cluster measure d_feat: within-cluster sum of squares per cluster (eq. 3).

    ``d_feat = (1/K) sum_k sum_{n in S_k} ||x_n - mu_k||^2`` with ``mu_k`` the mean of the
    points of cluster ``k``, whatever the algorithm's own abstraction (Grbovic et al. 2013).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features (the same scaling as used for clustering).
    labels : array-like of int, shape (n,)
        Cluster of each instance.

    Returns
    -------
    float
        ``K`` is the number of non-empty clusters (the distinct labels). The inner term is a
        sum, not a mean, so the value grows with n.

    Notes
    -----
    Complexity: O(n d) time, O(n d) memory.

    Examples
    --------
    >>> d_feat([[0.0], [2.0], [10.0], [10.0]], [0, 0, 1, 1])
    1.0
    """
    X, lab = _check_X_labels(X, labels)
    _, inverse, counts = np.unique(lab, return_inverse=True, return_counts=True)
    K = len(counts)
    sums = np.zeros((K, X.shape[1]))
    np.add.at(sums, inverse, X)
    means = sums / counts[:, None]
    wcss = ((X - means[inverse]) ** 2).sum()
    return float(wcss / K)


@validate_arguments({"k": [Interval(numbers.Integral, 1, None)]})
def d_knh(X: Any, labels: Any, k: int = 3) -> float:
    """Internal cluster measure d_knh: average k-neighbourhood distance (eqs. 4-5).

    ``d_knh(n, S) = (1/k) sum_{i in knh(n, S)} ||x_n - x_i||^2`` over the ``k`` nearest
    *other* members of ``x_n``'s own cluster ``S`` (Kremer et al. 2011), averaged over each
    cluster's members and then over clusters (Grbovic et al. 2013, eq. 5 with the ``S_m``
    typo read as ``S_k``).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Features.
    labels : array-like of int, shape (n,)
        Cluster of each instance.
    k : int, default=3
        Neighbours per point (the paper's value).

    Returns
    -------
    float
        NaN with an ``UndefinedMetricWarning`` when every cluster is a singleton.

    Notes
    -----
    Conventions (decisions.md G3): squared Euclidean distances, as printed; a cluster with
    ``|S| - 1 < k`` other members uses all of them; singleton clusters have no neighbours and
    are left out of the average over clusters.

    Complexity: O(sum_k n_k log n_k d) with scikit-learn's tree search (up to
    O(sum_k n_k^2 d) in high dimension) time, O(n (d + k)) memory.

    Examples
    --------
    >>> d_knh([[0.0], [1.0], [3.0], [10.0]], [0, 0, 0, 1], k=1)
    2.0
    """
    X, lab = _check_X_labels(X, labels)
    cluster_means = []
    for c in np.unique(lab):
        Xc = X[lab == c]
        if len(Xc) < 2:
            continue
        kk = min(int(k), len(Xc) - 1)
        # kneighbors() without a query excludes each point itself (also among duplicates)
        dist, _ = NearestNeighbors(n_neighbors=kk).fit(Xc).kneighbors()
        cluster_means.append((dist**2).mean(axis=1).mean())
    if not cluster_means:
        warnings.warn(
            "d_knh is undefined: every cluster is a singleton; returning NaN",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return float("nan")
    return float(np.mean(cluster_means))


# --------------------------------------------------------------------------------------------
# ordinal labels (Xiao et al. 2016, eqs. 9-11)
# --------------------------------------------------------------------------------------------
def _check_ordinal(y_true: Any, y_pred: Any, sample_weight: Any, numeric: bool):
    yt = np.asarray(y_true)
    yp = np.asarray(y_pred)
    if yt.ndim != 1 or yp.ndim != 1:
        raise ValueError(f"y_true and y_pred must be 1-d, got shapes {yt.shape} and {yp.shape}")
    if yt.shape != yp.shape:
        raise ValueError(f"y_true has {yt.shape[0]} labels, y_pred has {yp.shape[0]}")
    if yt.shape[0] == 0:
        raise ValueError("y_true is empty")
    if numeric:
        for name, y in (("y_true", yt), ("y_pred", yp)):
            if y.dtype == bool or y.dtype.kind not in "iuf":
                raise ValueError(f"{name} must hold numeric ordinal labels, got dtype {y.dtype}")
            if y.dtype.kind == "f" and not np.isfinite(y).all():
                raise ValueError(f"{name} contains NaN or infinity")
    w = check_sample_weight(sample_weight, yt.shape[0], allow_zero_total=False)
    return yt, yp, w


def mze(y_true: Any, y_pred: Any, sample_weight: Any = None) -> float:
    """Mean zero-one error: the fraction of wrong labels (Xiao et al. 2016, eq. 9).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        True and predicted (e.g. mapped cluster) labels.
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    float
        In ``[0, 1]``; lower is better. Equals ``1 - accuracy``.

    Notes
    -----
    Complexity: O(n) time and memory.

    Examples
    --------
    >>> mze([0, 1, 2, 2], [0, 2, 2, 1])
    0.5
    """
    yt, yp, w = _check_ordinal(y_true, y_pred, sample_weight, numeric=False)
    return float(np.average(yt != yp, weights=w))


def mae(y_true: Any, y_pred: Any, sample_weight: Any = None) -> float:
    """Mean absolute error between ordinal labels (Xiao et al. 2016, eq. 10).

    Labels are treated as consecutive integers (ranks), so ``|yhat - y|`` counts the number of
    ordinal categories between prediction and truth.

    Parameters
    ----------
    y_true, y_pred : array-like of numbers, shape (n,)
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    float

    Notes
    -----
    Complexity: O(n) time and memory.

    Examples
    --------
    >>> mae([0, 1, 2, 2], [0, 2, 2, 0])
    0.75
    """
    yt, yp, w = _check_ordinal(y_true, y_pred, sample_weight, numeric=True)
    return float(np.average(np.abs(yp.astype(np.float64) - yt), weights=w))


def amae(y_true: Any, y_pred: Any, sample_weight: Any = None) -> float:
    """Average MAE over the true classes (Xiao et al. 2016, eq. 11).

    ``AMAE = (1/k) sum_i MAE_i`` where ``MAE_i`` is the mean absolute error over the samples
    whose true label is ``i``; robust to class imbalance, and equal to :func:`mae` on balanced
    data.

    Parameters
    ----------
    y_true, y_pred : array-like of numbers, shape (n,)
    sample_weight : array-like of shape (n,), optional
        Weights inside each class (classes count equally).

    Returns
    -------
    float
        ``k`` is the number of classes present in ``y_true`` (with positive weight).

    Notes
    -----
    Complexity: O(n log n) time, O(n) memory.

    Examples
    --------
    >>> amae([0, 0, 0, 1], [0, 0, 0, 0])  # MAE is 0.25
    0.5
    """
    yt, yp, w = _check_ordinal(y_true, y_pred, sample_weight, numeric=True)
    err = np.abs(yp.astype(np.float64) - yt)
    classes, inverse = np.unique(yt, return_inverse=True)
    wsum = np.bincount(inverse, weights=w, minlength=len(classes))
    esum = np.bincount(inverse, weights=w * err, minlength=len(classes))
    present = wsum > 0
    return float(np.mean(esum[present] / wsum[present]))
