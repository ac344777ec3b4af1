"""Baselines of Xiao, Liu & Hao (2016), re-implemented: MPCKMeans, CPMMC, WSVORC, CPCMMC and
SMMCPC (all five baselines of the paper).

None of these has a maintained Python implementation, so each is a re-implementation from its
paper (or, for WSVORC and SMMCPC, from the description available to us), with the departures
listed in its docstring. All take ``fit(X, must_link=, cannot_link=)`` (pairs of row indices, see
:mod:`rankclust.ordinal.constraints`; the unsupervised CPMMC and WSVORC ignore them) and set
``labels_``; their clusters are unordered (WSVORC's are ordered, and since no side information
fixes the direction they are numbered in a canonical one, see its ``labels_``), so they are
scored after Hungarian matching (:func:`rankclust.ordinal.evaluation.map_clusters`).
"""

from __future__ import annotations

import numbers
import warnings
from typing import ClassVar

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import kmeans_plusplus
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from rankclust import _loaded_state as loaded
from rankclust._param_validation import Interval, ValidatedParamsMixin
from rankclust._runs import FitRun, best_run
from rankclust.ordinal._base import (
    FEATURE_MAP_CONSTRAINTS,
    FeatureMapClusterer,
    MulticlassPredictMixin,
    ThresholdPredictMixin,
    check_fit_input,
)
from rankclust.ordinal.m2sorc import _assign, _mirror_is_canonical, note_empty_clusters

__all__ = ["CPCMMC", "CPMMC", "SMMCPC", "WSVORC", "MPCKMeans"]


# ----------------------------------------------------------------------------------------------
# MPCKMeans (Bilenko, Basu & Mooney 2004)
# ----------------------------------------------------------------------------------------------


def _icm_constrained(order, base, indptr, nbr, is_ml, cons, dist, maxd, labels):
    """One ICM sweep over the constrained points (in ``order``), updating ``labels`` in place.

    Cost of point i in cluster h: base[i, h] plus, for each constraint c = (i, j):
    must-link violated (h != l_j): (dist[c, h] + dist[c, l_j]) / 2;
    cannot-link violated (h == l_j): maxd[h] - dist[c, h].
    Returns the number of changed labels. Prior validation of all arrays is assumed.
    """
    k = base.shape[1]
    changed = 0
    for i in order:
        best_h = -1
        best_cost = np.inf
        for h in range(k):
            cost = base[i, h]
            for p in range(indptr[i], indptr[i + 1]):
                lj = labels[nbr[p]]
                c = cons[p]
                if is_ml[p]:
                    if h != lj:
                        cost += 0.5 * (dist[c, h] + dist[c, lj])
                elif h == lj:
                    cost += maxd[h] - dist[c, h]
            if cost < best_cost:
                best_cost = cost
                best_h = h
        if best_h != labels[i]:
            labels[i] = best_h
            changed += 1
    return changed


_nb_icm_constrained = numba.njit(_icm_constrained, cache=True)


def _adjacency(n, ml, cl):
    """CSR adjacency of the constraint graph: neighbour, is-must-link, constraint id."""
    pairs = np.vstack([ml, cl])
    is_ml = np.concatenate([np.ones(len(ml), bool), np.zeros(len(cl), bool)])
    cid = np.arange(len(pairs))
    src = np.concatenate([pairs[:, 0], pairs[:, 1]])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0]])
    typ = np.concatenate([is_ml, is_ml])
    cc = np.concatenate([cid, cid])
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(indptr, src + 1, 1)
    return np.cumsum(indptr), dst[order], typ[order], cc[order], pairs, is_ml


class MPCKMeans(ValidatedParamsMixin, ClusterMixin, BaseEstimator):
    """Metric pairwise-constrained k-means (re-implementation of Bilenko, Basu & Mooney 2004).

    k-means with a diagonal Mahalanobis metric ``A_h`` learned per cluster and penalties for
    violated must-link and cannot-link pairs, optimised by alternating an ICM assignment step
    with centroid and metric updates.

    Parameters
    ----------
    n_clusters : int, default=5
    w_must, w_cannot : float, default=1.0
        Weights of a violated must-link / cannot-link pair.
    max_iter : int, default=100
    n_init : int, default=1
        Starts (k-means++ seeds); the lowest objective is kept.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    empty_clusters_ : ndarray of int64
        Clusters in ``0..n_clusters-1`` that ``labels_`` leaves empty (reported with an
        :class:`~rankclust.exceptions.EmptyClusterWarning`, not renumbered: ``predict``
        may still return them).
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
    metrics_ : ndarray of shape (n_clusters, n_features)
        Diagonals of the per-cluster metrics.
    objective_ : float
    n_iter_ : int

    Notes
    -----
    Re-implementation; departures from the original: centres start from k-means++ seeds (the
    comparison paper says "initialised randomly"; the original seeds from the must-link
    neighbourhoods); the cannot-link penalty uses the metric diameter of the bounding box
    ``sum_d a_hd range_d^2`` in place of the farthest pair of points (an upper bound, O(n d)
    instead of O(n^2 d)); diagonal metrics only. Points without constraints are assigned in
    one vectorised step (their cost does not depend on other labels); constrained points by
    a sequential ICM sweep in random order (numba).

    Complexity: O(T (n k d + c k d)) time, O(n k + c k) memory, c = number of pairs.

    References
    ----------
    M. Bilenko, S. Basu and R. J. Mooney, "Integrating constraints and metric learning in
    semi-supervised clustering", ICML 2004.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.r_[np.zeros((10, 2)), np.ones((10, 2)) * 5]
    >>> MPCKMeans(2, random_state=0).fit(X, must_link=[[0, 1]]).labels_.shape
    (20,)
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(numbers.Integral, 1, None)],
        "w_must": [Interval(numbers.Real, 0, None)],
        "w_cannot": [Interval(numbers.Real, 0, None)],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "n_init": [Interval(numbers.Integral, 1, None)],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_clusters: int = 5,
        *,
        w_must: float = 1.0,
        w_cannot: float = 1.0,
        max_iter: int = 100,
        n_init: int = 1,
        random_state=None,
    ) -> None:
        self.n_clusters = n_clusters
        self.w_must = w_must
        self.w_cannot = w_cannot
        self.max_iter = max_iter
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, X: ArrayLike, y=None, *, must_link=None, cannot_link=None) -> MPCKMeans:
        """Cluster ``X`` with must-link / cannot-link pairs (arrays of shape (n_pairs, 2))."""
        self._validate_params()
        X, (ml, cl) = check_fit_input(self, X, must_link=must_link, cannot_link=cannot_link)
        rng = check_random_state(self.random_state)
        best = best_run([self._fit_once(X, ml, cl, rng) for _ in range(self.n_init)])
        if not best.converged:
            warnings.warn("MPCKMeans did not converge", ConvergenceWarning, stacklevel=2)
        self.labels_ = best.labels
        self.cluster_centers_, self.metrics_ = best.params["centers"], best.params["metrics"]
        self.objective_, self.n_iter_ = best.objective, best.n_iter
        note_empty_clusters(self, self.n_clusters)
        return self

    def _fit_once(self, X, ml, cl, rng):
        n, d = X.shape
        k = self.n_clusters
        indptr, nbr, is_ml_adj, cons_adj, pairs, is_ml = _adjacency(n, ml, cl)
        constrained = np.flatnonzero(np.diff(indptr) > 0)
        free = np.diff(indptr) == 0
        weight = np.where(is_ml, self.w_must, self.w_cannot)
        diff2 = (X[pairs[:, 0]] - X[pairs[:, 1]]) ** 2 if len(pairs) else np.zeros((0, d))
        range2 = (X.max(axis=0) - X.min(axis=0)) ** 2
        centers, _ = kmeans_plusplus(X, k, random_state=rng.randint(2**31 - 1))
        A = np.ones((k, d))
        labels = np.full(n, -1, dtype=np.int64)
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):
            base = ((X[:, None, :] - centers[None]) ** 2 * A[None]).sum(-1) - np.log(A).sum(1)
            new = labels.copy()
            new[free] = base[free].argmin(1)
            if n_iter == 1:
                new[constrained] = base[constrained].argmin(1)
            dist = diff2 @ A.T * weight[:, None]  # weighted pair distance under each A_h
            maxd = range2 @ A.T * self.w_cannot
            _nb_icm_constrained(
                rng.permutation(constrained),
                base,
                indptr,
                nbr,
                is_ml_adj,
                cons_adj,
                dist,
                maxd,
                new,
            )
            if np.array_equal(new, labels):
                break
            labels = new
            centers, A = self._m_step(X, labels, centers, A, pairs, is_ml, weight, diff2, range2)
        objective = self._objective(X, labels, centers, A, pairs, is_ml, weight, diff2, range2)
        return FitRun(
            objective=objective,
            n_iter=n_iter,
            # (as before: a run that stopped at max_iter counts as not converged)
            converged=n_iter < self.max_iter,
            params={"centers": centers, "metrics": A},
            labels=labels,
        )

    def _m_step(self, X, labels, centers, A, pairs, is_ml, weight, diff2, range2):
        k, d = centers.shape
        counts = np.bincount(labels, minlength=k)
        sums = np.zeros((k, d))
        np.add.at(sums, labels, X)
        centers = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], centers)
        scatter = np.zeros((k, d))
        np.add.at(scatter, labels, (X - centers[labels]) ** 2)
        if len(pairs):
            li, lj = labels[pairs[:, 0]], labels[pairs[:, 1]]
            ml_v = is_ml & (li != lj)
            cl_v = ~is_ml & (li == lj)
            half = 0.5 * weight[ml_v, None] * diff2[ml_v]
            np.add.at(scatter, li[ml_v], half)
            np.add.at(scatter, lj[ml_v], half)
            np.add.at(scatter, li[cl_v], weight[cl_v, None] * (range2[None] - diff2[cl_v]))
        # a_hd = |X_h| / scatter_hd (the log-det term's stationarity condition)
        A = np.where(counts[:, None] > 0, counts[:, None] / np.maximum(scatter, 1e-12), A)
        return centers, np.clip(A, 1e-6, 1e6)

    @staticmethod
    def _objective(X, labels, centers, A, pairs, is_ml, weight, diff2, range2):
        obj = float(((X - centers[labels]) ** 2 * A[labels]).sum() - np.log(A[labels]).sum())
        if len(pairs):
            li, lj = labels[pairs[:, 0]], labels[pairs[:, 1]]
            for mask, val in (
                (is_ml & (li != lj), 0.5 * ((diff2 * A[li]).sum(1) + (diff2 * A[lj]).sum(1))),
                (~is_ml & (li == lj), (range2[None] * A[li]).sum(1) - (diff2 * A[li]).sum(1)),
            ):
                obj += float((weight * val)[mask].sum())
        return obj

    def predict(self, X: ArrayLike) -> NDArray:
        """Nearest centre under each cluster's metric (constraints do not apply to new data)."""
        check_is_fitted(self, "cluster_centers_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        A = self.metrics_
        cost = ((X[:, None, :] - self.cluster_centers_[None]) ** 2 * A[None]).sum(-1)
        return (cost - np.log(A).sum(1)).argmin(1)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d = loaded.int_attr(self, "n_features_in_", low=1)
        k = self.n_clusters
        loaded.array_attr(self, "cluster_centers_", shape=(k, d))
        # the cost takes log(metrics_): a zero weight would be -inf
        loaded.array_attr(self, "metrics_", shape=(k, d), low=np.finfo(float).tiny)
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0, high=k - 1)


# ----------------------------------------------------------------------------------------------
# Multiclass maximum-margin clustering: CPMMC (Zhao, Wang & Zhang) and CPCMMC (Hu et al. 2008)
# ----------------------------------------------------------------------------------------------


def _constrained_labels(S, ml, cl):
    """Labels from scores S (n, k): argmax, then joint labels on must-/cannot-link pairs.

    Must-link (i, j): both take argmax_p S_ip + S_jp. Cannot-link: the best (p, q), p != q, of
    S_ip + S_jq. This is the linearisation point of the pair terms of Hu et al. (2008).
    """
    labels = S.argmax(1)
    k = S.shape[1]
    for i, j in ml:
        p = int(np.argmax(S[i] + S[j]))
        labels[i] = labels[j] = p
    off = ~np.eye(k, dtype=bool)
    for i, j in cl:
        tot = np.where(off, S[i][:, None] + S[j][None, :], -np.inf)
        p, q = np.unravel_index(int(np.argmax(tot)), tot.shape)
        labels[i], labels[j] = p, q
    return labels


def _cs_objective(W, Phi, labels, C):
    S = Phi @ W.T
    own = S[np.arange(len(labels)), labels]
    S_other = S.copy()
    S_other[np.arange(len(labels)), labels] = -np.inf
    xi = np.maximum(0.0, 1.0 - own + S_other.max(1))
    return 0.5 * float((W**2).sum()) + C * float(xi.sum())


class CPMMC(MulticlassPredictMixin, FeatureMapClusterer):
    """Multiclass maximum-margin clustering (re-implementation of CPMMC / CPM3C, Zhao et al.).

    k weight vectors w_1..w_k (no bias) and labels y_i = argmax_p <w_p, phi(x_i)>, with the
    Crammer-Singer margin ``<w_{y_i} - w_r, phi(x_i)> >= 1 - xi_i`` for r != y_i and the class
    balance constraint ``sum_i <w_p - w_q, phi(x_i)> = 0`` (balance l = 0), optimised by CCCP:
    fix the labels at the current argmax, solve the convex problem, repeat.

    Parameters
    ----------
    n_clusters : int, default=5
    C : float, default=1.0
        Weight of the sum of margin slacks.
    kernel : {"linear", "rbf"}, default="rbf"
    gamma : float or "scale", default="scale"
    n_components : int, default=100
        Nyström landmarks.
    n_init : int, default=3
    max_iter : int, default=30
        CCCP iterations.
    tol : float, default=0.01
        Stop when the relative objective decrease falls below ``tol`` or labels stop changing.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    empty_clusters_ : ndarray of int64
        Clusters in ``0..n_clusters-1`` that ``labels_`` leaves empty (reported with an
        :class:`~rankclust.exceptions.EmptyClusterWarning`, not renumbered: ``predict``
        may still return them).
    coef_ : ndarray of shape (n_clusters, n_features_out)
    objective_ : float
    n_iter_ : int

    Notes
    -----
    Re-implementation; departures from Zhao, Wang & Zhang: (i) the convex step is solved exactly
    by liblinear's Crammer-Singer solver instead of the cutting-plane method (same optimum,
    different route); (ii) the features are centred, as formulations without a bias assume;
    the balance constraint then holds with l = 0 (one of the values of the paper's grid)
    identically, and a one-cluster solution cannot have positive average margin
    (``sum_i <w_p - w_q, phi_i> = 0``), which is what keeps the clusters apart.

    Complexity: O(n_init T n k D) time per liblinear pass, O(n D) memory, D = feature dimension.

    References
    ----------
    B. Zhao, F. Wang and C. Zhang, "Efficient multiclass maximum margin clustering", ICML 2008;
    "Linear time maximum margin clustering", IEEE TNN 21(2), 2010.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(20, 2), rng.randn(20, 2) + 6]
    >>> CPMMC(2, kernel="linear", random_state=0).fit(X).labels_.shape
    (40,)
    """

    _parameter_constraints: ClassVar[dict] = {
        **FEATURE_MAP_CONSTRAINTS,
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "tol": [Interval(numbers.Real, 0, None)],
    }

    def __init__(
        self,
        n_clusters: int = 5,
        *,
        C: float = 1.0,
        kernel: str = "rbf",
        gamma: float | str = "scale",
        n_components: int = 100,
        n_init: int = 3,
        max_iter: int = 30,
        tol: float = 0.01,
        random_state=None,
    ) -> None:
        self.n_clusters = n_clusters
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    _uses_pairs = False

    def fit(self, X: ArrayLike, y=None, *, must_link=None, cannot_link=None) -> CPMMC:
        """Cluster ``X``. CPMMC ignores pairs; :class:`CPCMMC` uses them."""
        Phi, (ml, cl), rng = self._fit_prologue(X, must_link=must_link, cannot_link=cannot_link)
        if not self._uses_pairs:
            ml = cl = np.empty((0, 2), dtype=np.int64)
        best = best_run([self._fit_once(Phi, ml, cl, rng) for _ in range(self.n_init)])
        if not best.converged:
            warnings.warn("CCCP did not converge", ConvergenceWarning, stacklevel=2)
        self.coef_, self.labels_ = best.params["W"], best.labels
        self.objective_, self.n_iter_ = best.objective, best.n_iter
        note_empty_clusters(self, self.n_clusters)
        return self

    def _fit_once(self, Phi, ml, cl, rng):
        n, D = Phi.shape
        k = self.n_clusters
        W = rng.standard_normal((k, D))
        labels = _constrained_labels(Phi @ W.T, ml, cl)
        prev = np.inf
        converged = False
        n_iter = 0
        # Pair terms weigh on their samples (CPCMMC): weight 1 + (C2 / C) * (pairs touching i).
        touch = np.bincount(np.concatenate([ml.ravel(), cl.ravel()]), minlength=n)
        sample_weight = 1.0 + (getattr(self, "C2", 0.0) / self.C) * touch
        for n_iter in range(1, self.max_iter + 1):  # noqa: B007
            present = np.unique(labels)
            if present.size < 2:  # collapsed: CCCP cannot continue from one class
                break
            svc = LinearSVC(
                multi_class="crammer_singer",
                fit_intercept=False,
                C=self.C,
                max_iter=2000,
                random_state=rng.randint(2**31 - 1),
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                svc.fit(Phi, labels, sample_weight=sample_weight)
            W = np.zeros((k, D))
            W[svc.classes_] = (
                svc.coef_ if present.size > 2 else np.vstack([-svc.coef_[0] / 2, svc.coef_[0] / 2])
            )
            new = _constrained_labels(Phi @ W.T, ml, cl)
            obj = _cs_objective(W, Phi, new, self.C)
            if np.array_equal(new, labels) or (prev - obj) <= self.tol * abs(prev):
                labels, converged = new, True
                break
            labels, prev = new, obj
        return FitRun(
            objective=_cs_objective(W, Phi, labels, self.C),
            n_iter=n_iter,
            converged=converged,
            params={"W": W},
            labels=labels,
        )


class CPCMMC(CPMMC):
    """Maximum-margin clustering with pairwise constraints (approximate re-implementation of
    Hu, Wang, Yu & Hua, ICDM 2008, "CPCMMC").

    :class:`CPMMC` plus must-link and cannot-link pairs: at every CCCP step the labels of
    constrained samples are set jointly at the linearisation point of the pair terms (must-link:
    the common label maximising the summed scores; cannot-link: the best pair of different
    labels), and the convex step is then solved on those labels.

    Parameters
    ----------
    n_clusters, C, kernel, gamma, n_components, n_init, max_iter, tol, random_state
        As for :class:`CPMMC`.
    C2 : float, default=1.0
        Weight of the pair terms. Approximation: the pair hinge losses of Hu et al. are
        represented by the sample hinges of the jointly labelled samples, each sample's hinge
        weighted by ``1 + (C2 / C) * (number of pairs it is in)``, rather than by separate pair
        slack variables.

    Notes
    -----
    Approximate re-implementation (see above); the original solves a cutting-plane QP with
    separate pair slacks.

    Complexity: as :class:`CPMMC` plus O(c k^2) per CCCP step for c pairs.

    References
    ----------
    Y. Hu, J. Wang, N. Yu and X.-S. Hua, "Maximum margin clustering with pairwise constraints",
    ICDM 2008.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(20, 2), rng.randn(20, 2) + 6]
    >>> est = CPCMMC(2, kernel="linear", random_state=0).fit(X, cannot_link=[[0, 25]])
    >>> bool(est.labels_[0] != est.labels_[25])
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **CPMMC._parameter_constraints,
        "C2": [Interval(numbers.Real, 0, None)],
    }

    def __init__(
        self,
        n_clusters: int = 5,
        *,
        C: float = 1.0,
        C2: float = 1.0,
        kernel: str = "rbf",
        gamma: float | str = "scale",
        n_components: int = 100,
        n_init: int = 3,
        max_iter: int = 30,
        tol: float = 0.01,
        random_state=None,
    ) -> None:
        super().__init__(
            n_clusters,
            C=C,
            kernel=kernel,
            gamma=gamma,
            n_components=n_components,
            n_init=n_init,
            max_iter=max_iter,
            tol=tol,
            random_state=random_state,
        )
        self.C2 = C2

    _uses_pairs = True


# ----------------------------------------------------------------------------------------------
# WSVORC (Liu, Wu & Yang 2006): approximate re-implementation
# ----------------------------------------------------------------------------------------------

# Robust weights of the weighted LS-SVM (Suykens, De Brabanter, Lukas & Vandewalle 2002).
_WLS_C1, _WLS_C2, _WLS_FLOOR = 2.5, 3.0, 1e-4


def _robust_weights(e: NDArray) -> NDArray:
    """v_i from standardised residuals e_i / s, s = 1.483 MAD(e) (Suykens et al. 2002)."""
    s = 1.483 * float(np.median(np.abs(e - np.median(e))))
    if s <= 0:
        return np.ones_like(e)
    r = np.abs(e) / s
    return np.where(
        r <= _WLS_C1,
        1.0,
        np.where(r <= _WLS_C2, (_WLS_C2 - r) / (_WLS_C2 - _WLS_C1), _WLS_FLOOR),
    )


def _weighted_ridge(Phi: NDArray, t: NDArray, v: NDArray, C: float) -> tuple[NDArray, float]:
    """argmin_{w, c} 1/2 ||w||^2 + C/2 sum_i v_i (phi_i w - c - t_i)^2 (c unpenalised)."""
    sv = v.sum()
    m_phi = v @ Phi / sv
    m_t = float(v @ t / sv)
    P = Phi - m_phi
    A = np.eye(Phi.shape[1]) + C * (P.T * v) @ P
    w = np.linalg.solve(A, C * (P.T @ (v * (t - m_t))))
    return w, float(m_phi @ w - m_t)


class WSVORC(ThresholdPredictMixin, FeatureMapClusterer):
    """Weighted ordinal support vector clustering (approximate re-implementation of WSVORC,
    Liu, Wu & Yang 2006).

    Unsupervised ordinal clustering with k parallel hyperplanes ``<w, phi(x)> = c + 2 j``
    (j = 0..k-1, one per cluster, a fixed gap of 2 as in fixed-margin SVOR): every sample is
    pulled towards the hyperplane of its cluster by a weighted least-squares (LS-SVM-like) loss,
    and clusters are re-assigned to the nearest hyperplane, alternately:

        min_{w, c, y}  1/2 ||w||^2 + C/2 sum_i v_i (<w, phi(x_i)> - c - 2 y_i)^2.

    There is no cluster-balance term and no side information, as the comparison paper stresses.

    Parameters
    ----------
    n_clusters : int, default=5
        Number of ordinal clusters k (>= 2).
    C : float, default=1.0
        Weight of the least-squares loss (the paper's grid: 2^[-5:5]).
    weighted : bool, default=True
        Use the robust weights v_i of the weighted LS-SVM (Suykens et al. 2002) computed from
        the residuals of an unweighted fit at every step; ``False`` gives v_i = 1.
    kernel : {"linear", "rbf"}, default="rbf"
    gamma : float or "scale", default="scale"
    n_components : int, default=100
        Nyström landmarks for ``kernel="rbf"``.
    n_init : int, default=3
        Random starts; the lowest objective among the starts without an empty cluster is kept.
    max_iter : int, default=30
        Alternations (fit, re-assign) per start.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Clusters 0..k-1 ordered by the projection. The data do not fix the direction, so the
        numbering is the canonical one of the two: the lexicographically smaller label vector
        (the first sample outside the middle level is in the lower half), whatever sign the
        solver found.
    coef_ : ndarray of shape (n_features_out,)
        w on the centred feature map.
    intercept_ : float
        c: hyperplane j sits at projection ``c + 2 j``.
    thresholds_ : ndarray of shape (n_clusters - 1,)
        Decision boundaries ``c + 2 j + 1`` between neighbouring hyperplanes (increasing).
    sample_weight_ : ndarray of shape (n_samples,)
        Robust weights v of the kept run.
    objective_ : float
    n_iter_ : int
    empty_clusters_ : ndarray of int64
        Clusters in ``0..n_clusters-1`` that ``labels_`` leaves empty (non-empty only when
        ``degenerate_``; not renumbered: ``predict`` may still return them).
    degenerate_ : bool
        True when every start ended with an empty cluster (a warning is emitted).

    Notes
    -----
    **Approximate re-implementation.** The original (a three-page conference paper, not
    available to us) is known here only through Xiao et al.'s one-sentence description: "the
    unlabeled sample is required to cluster around the nearest hyperplane and a least-squares
    SVM-like formulation is presented", no balance term, no ranking information. Assumed here:
    (i) one hyperplane per cluster with a fixed gap of 2 between neighbours (without a fixed
    gap, ``w = 0`` with coinciding hyperplanes has zero loss); (ii) "weighted" means the
    robust-weighting scheme of the weighted LS-SVM; (iii) alternating optimisation from a random
    projection cut at its k-quantiles; (iv) the guard against empty clusters when
    choosing among starts (the global optimum of the objective is the one-cluster solution
    ``w = 0``, which is the weakness Xiao et al. describe). Each step is a ridge regression of
    the targets 2 y on the features, solved in closed form.

    Complexity: O(n_init T (n D^2 + D^3)) time, O(n D + D^2) memory, D = feature dimension.

    References
    ----------
    G. Liu, Y. Wu and L. Yang, "Weighted ordinal support vector clustering", Proc. 1st Int.
    Multi-Symp. Comput. Comput. Sci. (IMSCCS), 2006, pp. 743-745.
    J. A. K. Suykens, J. De Brabanter, L. Lukas and J. Vandewalle, "Weighted least squares
    support vector machines: robustness and sparse approximation", Neurocomputing 48, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.r_[np.zeros((10, 1)), np.ones((10, 1)) * 5, np.ones((10, 1)) * 10]
    >>> est = WSVORC(3, kernel="linear", C=10.0, random_state=0).fit(X)
    >>> np.unique(est.labels_[:10]).size, np.unique(est.labels_).size
    (1, 3)
    """

    _parameter_constraints: ClassVar[dict] = {
        **FEATURE_MAP_CONSTRAINTS,
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "weighted": ["boolean"],
    }

    def __init__(
        self,
        n_clusters: int = 5,
        *,
        C: float = 1.0,
        weighted: bool = True,
        kernel: str = "rbf",
        gamma: float | str = "scale",
        n_components: int = 100,
        n_init: int = 3,
        max_iter: int = 30,
        random_state=None,
    ) -> None:
        self.n_clusters = n_clusters
        self.C = C
        self.weighted = weighted
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: ArrayLike, y=None, *, must_link=None, cannot_link=None) -> WSVORC:
        """Cluster ``X`` (unsupervised: ``must_link`` / ``cannot_link`` are validated, unused)."""
        Phi, _, rng = self._fit_prologue(X, must_link=must_link, cannot_link=cannot_link)
        best = best_run([self._fit_once(Phi, rng) for _ in range(self.n_init)])
        if best.degenerate:
            warnings.warn(
                "every WSVORC start ended with an empty cluster (WSVORC has no balance term)",
                RuntimeWarning,
                stacklevel=2,
            )
        if not best.converged:
            warnings.warn("WSVORC did not converge", ConvergenceWarning, stacklevel=2)
        k = self.n_clusters
        w, c, labels = best.params["w"], best.params["c"], best.labels
        if _mirror_is_canonical(labels, k):
            # nothing fixes the direction: mirror w so that hyperplane j becomes k - 1 - j
            w, c, labels = -w, -c - 2.0 * (k - 1), k - 1 - labels
        self.coef_, self.intercept_ = w, c
        self.thresholds_ = c + 2.0 * np.arange(k - 1) + 1.0
        self.labels_ = labels
        self.sample_weight_ = best.params["v"]
        self.objective_, self.n_iter_ = best.objective, best.n_iter
        self.degenerate_ = bool(best.degenerate)
        note_empty_clusters(self, k, warned=self.degenerate_)
        return self

    def _fit_once(self, Phi, rng):
        n, D = Phi.shape
        k = self.n_clusters
        # a random projection cut at its k-quantiles: every cluster starts non-empty
        a = Phi @ rng.standard_normal(D)
        labels = np.searchsorted(np.quantile(a, np.arange(1, k) / k), a, side="right")
        v = np.ones(n)
        converged = False
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):  # noqa: B007
            t = 2.0 * labels
            w, c = _weighted_ridge(Phi, t, np.ones(n), self.C)
            if self.weighted:
                v = _robust_weights(Phi @ w - c - t)
                w, c = _weighted_ridge(Phi, t, v, self.C)
            new = _assign(Phi @ w, c + 2.0 * np.arange(k - 1) + 1.0)
            if np.array_equal(new, labels):
                converged = True
                break
            labels = new
        e = Phi @ w - c - 2.0 * labels
        objective = 0.5 * float(w @ w) + 0.5 * self.C * float(v @ e**2)
        degenerate = bool(np.bincount(labels, minlength=k).min() == 0)
        return FitRun(
            objective=objective,
            n_iter=n_iter,
            converged=converged,
            params={"w": w, "c": c, "v": v},
            labels=labels,
            degenerate=degenerate,
        )

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        p = self._validate_loaded_features()
        k = self.n_clusters
        loaded.array_attr(self, "coef_", shape=(p,))
        loaded.float_attr(self, "intercept_")
        loaded.array_attr(self, "thresholds_", shape=(k - 1,))
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0, high=k - 1)


# ----------------------------------------------------------------------------------------------
# SMMCPC (Zeng & Cheung 2012): approximate re-implementation
# ----------------------------------------------------------------------------------------------


def _best_off_diagonal(Si: NDArray, Sj: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """max_{p != q} S_ip + S_jq for every pair: value, p, q (shape (n_pairs,))."""
    k = Si.shape[1]
    if Si.shape[0] == 0:
        e = np.zeros(0, dtype=np.int64)
        return np.zeros(0), e, e
    T = Si[:, :, None] + Sj[:, None, :]
    T[:, np.arange(k), np.arange(k)] = -np.inf
    flat = T.reshape(len(T), -1).argmax(1)
    p, q = np.divmod(flat, k)
    return T.reshape(len(T), -1)[np.arange(len(T)), flat], p, q


def _smmcpc_linearisation(S, ml, cl):
    """Labels fixed at the current iterate: sample argmax, must-link common label, cannot-link
    best pair of different labels (the concave parts of the losses, linearised by CCCP)."""
    y = S.argmax(1)
    p_ml = (S[ml[:, 0]] + S[ml[:, 1]]).argmax(1)
    _, p_cl, q_cl = _best_off_diagonal(S[cl[:, 0]], S[cl[:, 1]])
    return y, p_ml, p_cl, q_cl


def _smmcpc_losses(S, ml, cl, lin):
    """Convex surrogate losses at fixed linearisation ``lin`` and the coefficient matrix M of
    their subgradient (gradient w.r.t. W = M.T @ Phi, before the per-term weights)."""
    n, k = S.shape
    y, p_ml, p_cl, q_cl = lin
    idx = np.arange(n)
    other = S.copy()
    other[idx, y] = -np.inf
    r = other.argmax(1)
    xi = 1.0 - S[idx, y] + other[idx, r]
    M_s = np.zeros((n, k))
    act = xi > 0
    np.add.at(M_s, (idx[act], r[act]), 1.0)
    np.add.at(M_s, (idx[act], y[act]), -1.0)
    M_p = np.zeros((n, k))
    i, j = ml[:, 0], ml[:, 1]
    off, p, q = _best_off_diagonal(S[i], S[j])
    eta_ml = 1.0 - S[i, p_ml] - S[j, p_ml] + off
    a = eta_ml > 0
    for rows, cols, sign in ((i, p_ml, -1), (j, p_ml, -1), (i, p, 1), (j, q, 1)):
        np.add.at(M_p, (rows[a], cols[a]), float(sign))
    i, j = cl[:, 0], cl[:, 1]
    same = S[i] + S[j]
    ps = same.argmax(1)
    eta_cl = 1.0 - S[i, p_cl] - S[j, q_cl] + same[np.arange(len(i)), ps]
    a = eta_cl > 0
    for rows, cols, sign in ((i, p_cl, -1), (j, q_cl, -1), (i, ps, 1), (j, ps, 1)):
        np.add.at(M_p, (rows[a], cols[a]), float(sign))
    losses = (np.maximum(xi, 0).sum(), np.maximum(eta_ml, 0).sum() + np.maximum(eta_cl, 0).sum())
    return losses, M_s, M_p


def _smmcpc_true_objective(W, S, ml, cl, lam, C, n_pairs):
    """The non-convex objective with every label maximised at W (no linearisation)."""
    (ls, lp), _, _ = _smmcpc_losses(S, ml, cl, _smmcpc_linearisation(S, ml, cl))
    return 0.5 * lam * float((W**2).sum()) + ls / S.shape[0] + C * lp / max(n_pairs, 1)


class SMMCPC(MulticlassPredictMixin, FeatureMapClusterer):
    """Semi-supervised maximum-margin clustering with pairwise constraints (approximate
    re-implementation of SMMCPC, Zeng & Cheung 2012).

    k weight vectors (no bias, centred features, so the class-balance constraint
    ``sum_i <w_p - w_q, phi_i> = 0`` holds identically as in :class:`CPMMC`) and labels
    ``argmax_p <w_p, phi(x)>``, with margin losses on the samples and on the must-link and
    cannot-link pairs:

        min_W  lam/2 ||W||^2 + 1/n sum_i xi_i + C/|P| sum_(i,j) eta_ij,
        xi_i   = [1 - (max_p s_ip - max_{r != p*} s_ir)]_+                     (samples)
        eta_ij = [1 - (max_p (s_ip + s_jp) - max_{p != q} (s_ip + s_jq))]_+   (must-link)
        eta_ij = [1 - (max_{p != q} (s_ip + s_jq) - max_p (s_ip + s_jp))]_+   (cannot-link)

    with s_ip = <w_p, phi(x_i)>. The constrained concave-convex procedure fixes the maximising
    labels of the subtracted maxima at the current iterate; each convex problem is solved by
    projected subgradient descent (step ``delta0 / (lam t)``, projection onto the ball that
    contains the optimum).

    Parameters
    ----------
    n_clusters : int, default=5
        Number of clusters (>= 2).
    C : float, default=1.0
        Weight of the pair losses (the paper's grid: 2^[-5:5]).
    lam : float, default=1.0
        Regularisation weight lambda (the paper's grid: 10^[-2:1]).
    delta0 : float, default=1.0
        Initial step-size factor of the subgradient projection (the paper: 1).
    kernel : {"linear", "rbf"}, default="rbf"
    gamma : float or "scale", default="scale"
    n_components : int, default=100
        Nyström landmarks for ``kernel="rbf"``.
    n_init : int, default=3
        Random starts W ~ N(0, I); the lowest non-convex objective is kept.
    max_iter : int, default=30
        CCCP iterations per start.
    inner_iter : int, default=100
        Subgradient steps per convex problem.
    tol : float, default=0.01
        CCCP stops when the linearisation is unchanged or the relative objective decrease is
        below ``tol``.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    empty_clusters_ : ndarray of int64
        Clusters in ``0..n_clusters-1`` that ``labels_`` leaves empty (reported with an
        :class:`~rankclust.exceptions.EmptyClusterWarning`, not renumbered: ``predict``
        may still return them).
    coef_ : ndarray of shape (n_clusters, n_features_out)
    objective_ : float
        Non-convex objective of the kept run.
    n_iter_ : int
        CCCP iterations of the kept run.

    Notes
    -----
    **Approximate re-implementation.** Only the abstract of Zeng & Cheung (2012) and the
    comparison paper's settings (C, delta0 = 1, lambda) were available to us. Assumed here: the
    pair losses above (margin between the best joint labelling that satisfies a pair and the
    best that violates it, our reading of "a set of loss functions for discouraging the
    violation of given pairwise constraints"), the weighting of the three terms (lambda on the
    regulariser, C on the mean pair loss), the Pegasos-style step ``delta0 / (lam t)`` and
    full-batch subgradients, the l = 0 balance through centred features (as in
    :class:`CPMMC`), and the best iterate of each inner run being kept (subgradient methods are
    not monotone). Differences from :class:`CPCMMC`: separate pair slacks with their own margin
    (there the pairs only fix the labels of their samples), and a first-order solver.

    Complexity: O(n_init T T_in (n k D + c k^2)) time, O(n (k + D)) memory, c = pairs,
    T_in = ``inner_iter``.

    References
    ----------
    H. Zeng and Y.-M. Cheung, "Semi-supervised maximum margin clustering with pairwise
    constraints", IEEE Trans. Knowl. Data Eng. 24(5):926-939, 2012.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(20, 2), rng.randn(20, 2) + 6]
    >>> est = SMMCPC(2, kernel="linear", random_state=0).fit(X, cannot_link=[[0, 25]])
    >>> bool(est.labels_[0] != est.labels_[25])
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **FEATURE_MAP_CONSTRAINTS,
        "C": [Interval(numbers.Real, 0, None)],
        "lam": [Interval(numbers.Real, 0, None, closed="neither")],
        "delta0": [Interval(numbers.Real, 0, None, closed="neither")],
        "inner_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None)],
    }

    def __init__(
        self,
        n_clusters: int = 5,
        *,
        C: float = 1.0,
        lam: float = 1.0,
        delta0: float = 1.0,
        kernel: str = "rbf",
        gamma: float | str = "scale",
        n_components: int = 100,
        n_init: int = 3,
        max_iter: int = 30,
        inner_iter: int = 100,
        tol: float = 0.01,
        random_state=None,
    ) -> None:
        self.n_clusters = n_clusters
        self.C = C
        self.lam = lam
        self.delta0 = delta0
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.n_init = n_init
        self.max_iter = max_iter
        self.inner_iter = inner_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X: ArrayLike, y=None, *, must_link=None, cannot_link=None) -> SMMCPC:
        """Cluster ``X`` with must-link / cannot-link pairs (arrays of shape (n_pairs, 2))."""
        Phi, (ml, cl), rng = self._fit_prologue(X, must_link=must_link, cannot_link=cannot_link)
        best = best_run([self._fit_once(Phi, ml, cl, rng) for _ in range(self.n_init)])
        if not best.converged:
            warnings.warn("CCCP did not converge", ConvergenceWarning, stacklevel=2)
        W = best.params["W"]
        self.coef_, self.objective_, self.n_iter_ = W, best.objective, best.n_iter
        self.labels_ = (Phi @ W.T).argmax(1)
        note_empty_clusters(self, self.n_clusters)
        return self

    def _convex_step(self, Phi, ml, cl, lin, W):
        """Projected subgradient on the convex surrogate; returns its best iterate."""
        n = Phi.shape[0]
        n_pairs = len(ml) + len(cl)
        wp = self.C / max(n_pairs, 1)
        radius = np.sqrt(2.0 * (1.0 + self.C) / self.lam)  # ||W*||: F(W*) <= F(0) = 1 + C
        best, best_val = W, np.inf
        for t in range(1, self.inner_iter + 1):
            (ls, lp), M_s, M_p = _smmcpc_losses(Phi @ W.T, ml, cl, lin)
            val = 0.5 * self.lam * float((W**2).sum()) + ls / n + wp * lp
            if val < best_val:
                best, best_val = W, val
            G = self.lam * W + (M_s / n + wp * M_p).T @ Phi
            W = W - (self.delta0 / (self.lam * t)) * G
            norm = np.linalg.norm(W)
            if norm > radius:
                W = W * (radius / norm)
        return best

    def _fit_once(self, Phi, ml, cl, rng):
        D = Phi.shape[1]
        k = self.n_clusters
        n_pairs = len(ml) + len(cl)
        W = rng.standard_normal((k, D)) / np.sqrt(D)
        S = Phi @ W.T
        lin = _smmcpc_linearisation(S, ml, cl)
        prev = _smmcpc_true_objective(W, S, ml, cl, self.lam, self.C, n_pairs)
        converged = False
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):  # noqa: B007
            W = self._convex_step(Phi, ml, cl, lin, W)
            S = Phi @ W.T
            obj = _smmcpc_true_objective(W, S, ml, cl, self.lam, self.C, n_pairs)
            new = _smmcpc_linearisation(S, ml, cl)
            same = all(np.array_equal(u, v) for u, v in zip(new, lin, strict=True))
            if same or (prev - obj) <= self.tol * abs(prev):
                prev, converged = obj, True
                break
            lin, prev = new, obj
        return FitRun(objective=prev, n_iter=n_iter, converged=converged, params={"W": W})
