"""Baselines of Grbovic et al. (2013): one ranking, k-means on features, naive k-means.

* :class:`OneRank` ("1 Rank", sec. 3.2): a single central ranking for everybody;
* :class:`FeatureKMeansRanking` ("Km_Mal" / "Km_PL", sec. 3.2.1): k-means on the features,
  then a Mallows (modified Borda) or Plackett-Luce central ranking per cluster;
* :class:`NaiveKMeans` ("naive_Km", sec. 3.2.3): k-means on the features concatenated with the
  label positions, mapped back to a nearest-centroid rule in feature space.

Every estimator accepts incomplete rankings (``kind="subset"``: missing labels are unknown).
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans

from rankclust import _loaded_state as loaded
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
)
from rankclust._restarts import restart_agreement, warn_if_disagree
from rankclust.supervised._base import (
    SupervisedClusteringMixin,
    central_ranking,
    used_clusters,
)

__all__ = ["FeatureKMeansRanking", "NaiveKMeans", "OneRank"]

_CENTER = {"mallows": "mallows", "plackett_luce": "pl"}


class OneRank(SupervisedClusteringMixin, ValidatedParamsMixin, BaseEstimator):
    """One central ranking for all instances ("1 Rank" of Grbovic et al. 2013).

    The reference every supervised clusterer must beat: K = 1, the central ranking of all
    training rankings, predicted for every instance.

    Parameters
    ----------
    ranking_model : {"mallows", "plackett_luce"}, default="mallows"
        ``"mallows"``: modified Borda count with the most-probable-extension iteration for
        incomplete rankings (Cheng et al. 2009), the paper's choice; ``"plackett_luce"``: the
        order of the Plackett-Luce scores.

    Attributes
    ----------
    central_rankings_ : Rankings of shape (1, n_items_)
    labels_ : ndarray of int64, shape (n,)
        All zero.
    n_clusters_ : int
        1.
    n_items_ : int
    n_features_in_ : int
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    Complexity: O(T n m^2) time ("mallows", T extension iterations, T = 1 on complete data) or
    O(T u m) ("plackett_luce"), O(n m) memory.

    References
    ----------
    Grbovic, M., Djuric, N., Guo, S. and Vucetic, S. (2013). Supervised clustering of label
    ranking data using label preference information. Machine Learning 93, 191-225, sec. 3.2.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.supervised import OneRank
    >>> X = np.zeros((3, 1))
    >>> Y = [[1, 2, 3], [1, 3, 2], [2, 1, 3]]  # 1-based ranks
    >>> OneRank().fit(X, Y).predict_ranking(X[:1])
    array([[1, 2, 3]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "ranking_model": [StrOptions({"mallows", "plackett_luce"})],
    }

    def __init__(self, *, ranking_model: str = "mallows") -> None:
        self.ranking_model = ranking_model

    def fit(self, X: Any, Y: Any) -> OneRank:
        """Fit the central ranking.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Features (only checked).
        Y : Rankings or array-like of 1-based ranks (0/NaN missing), shape (n, m)
            Tie-free label rankings, possibly incomplete.

        Returns
        -------
        self : OneRank
        """
        self._validate_params()
        X, Y = self._check_fit_data(X, Y)
        self.scaler_ = None
        center = central_ranking(Y, method=_CENTER[self.ranking_model])
        self._set_centers(center[None, :])
        self.labels_ = np.zeros(X.shape[0], dtype=np.int64)
        return self

    def _predict_cluster(self, X: np.ndarray) -> np.ndarray:
        return np.zeros(X.shape[0], dtype=np.int64)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if loaded.is_fitted(self):
            self._validate_loaded_common()


class FeatureKMeansRanking(SupervisedClusteringMixin, ValidatedParamsMixin, BaseEstimator):
    """k-means on the features, then one central ranking per cluster ("Km_Mal", "Km_PL").

    Feature clustering followed by central ranking (Grbovic et al. 2013, sec. 3.2.1): the
    rankings play no part in forming the clusters; they only give each cluster its central
    ranking. A new instance goes to its nearest centroid and gets that cluster's ranking.

    Parameters
    ----------
    n_clusters : int, default=10
        K.
    ranking_model : {"mallows", "plackett_luce"}, default="mallows"
        Central ranking per cluster: ``"mallows"`` (Km_Mal; modified Borda with the
        most-probable-extension iteration for incomplete rankings) or ``"plackett_luce"``
        (Km_PL; order of the Plackett-Luce scores fitted on the observed labels).
    standardize : bool, default=True
        z-score the features (fitted on the training data) before k-means; the paper does not
        say (decisions.md G4).
    n_init : int, default=10
        k-means restarts (k-means++ seeding).
    max_iter : int, default=300
        k-means iterations.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    central_rankings_ : Rankings of shape (n_clusters_, n_items_)
    cluster_centers_ : ndarray of shape (n_clusters_, d)
        Centroids, in the standardised feature space when ``standardize``.
    labels_ : ndarray of int64, shape (n,)
        Nearest centroid of each training instance.
    n_clusters_ : int
        ``n_clusters``, or fewer (with an :class:`~rankclust.exceptions.EmptyClusterWarning`)
        when there are fewer distinct feature vectors than clusters: k-means then leaves
        clusters empty and only the used ones are kept.
    n_init_agreeing_ : int
        k-means starts whose inertia is within a relative ``1e-6`` of the best and whose
        partition equals the best one up to relabelling (the best included); a start as good
        as the best with another partition gives a ``ConvergenceWarning``.
    n_items_ : int
    n_features_in_ : int
    scaler_ : StandardScaler or None
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    A cluster whose rankings carry no pair (all of length < 2) gets the central ranking of
    all the data.

    Complexity: O(n_init T n K d) for k-means plus O(n m^2) ("mallows", times the extension
    iterations on incomplete data) or O(T u m) ("plackett_luce") for the centres; O(n (d + m))
    memory.

    References
    ----------
    Grbovic, M., Djuric, N., Guo, S. and Vucetic, S. (2013). Supervised clustering of label
    ranking data using label preference information. Machine Learning 93, 191-225,
    sec. 3.2.1.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.supervised import FeatureKMeansRanking
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> Y = [[1, 2, 3], [1, 2, 3], [3, 2, 1], [3, 2, 1]]
    >>> est = FeatureKMeansRanking(n_clusters=2, random_state=0).fit(X, Y)
    >>> est.predict_ranking([[5.05]])
    array([[3, 2, 1]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "ranking_model": [StrOptions({"mallows", "plackett_luce"})],
        "standardize": ["boolean"],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_clusters: int = 10,
        *,
        ranking_model: str = "mallows",
        standardize: bool = True,
        n_init: int = 10,
        max_iter: int = 300,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.ranking_model = ranking_model
        self.standardize = standardize
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: Any, Y: Any) -> FeatureKMeansRanking:
        """Cluster the features and fit a central ranking per cluster.

        Parameters
        ----------
        X : array-like of shape (n, d)
        Y : Rankings or array-like of 1-based ranks (0/NaN missing), shape (n, m)

        Returns
        -------
        self : FeatureKMeansRanking
        """
        X, Y, K, rng = self._begin_fit(X, Y)
        Xt = self._fit_scaler(X, self.standardize)
        km = _kmeans_restarts(self, Xt, K, rng)
        labels = km.labels_.astype(np.int64)
        keep, _ = used_clusters(labels, K)
        if keep.size < K:
            # k-means leaves a cluster empty only with fewer distinct points than K: keep the
            # used centroids (one Lloyd pass from them returns the same partition)
            km = KMeans(keep.size, init=km.cluster_centers_[keep], n_init=1,
                        max_iter=self.max_iter).fit(Xt)  # fmt: skip
            labels = km.labels_.astype(np.int64)
        method = _CENTER[self.ranking_model]
        overall = central_ranking(Y, method=method)
        centers = np.empty((keep.size, Y.n_items), dtype=np.int64)
        for k in range(keep.size):
            sel = labels == k
            centers[k] = central_ranking(Y[sel], method=method, fallback=overall)
        self.cluster_centers_ = km.cluster_centers_
        self._kmeans = km
        self._set_centers(centers)
        self._warn_fewer_clusters(K, "fewer distinct feature vectors than clusters")
        self.labels_ = labels
        return self

    def _predict_cluster(self, X: np.ndarray) -> np.ndarray:
        return self._kmeans.predict(X)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d, _, k = self._validate_loaded_common()
        kmeans = loaded.estimator_attr(self, "_kmeans", KMeans, n_features=d)
        if kmeans.cluster_centers_.shape[0] != k:
            raise ValueError(f"_kmeans: has {kmeans.cluster_centers_.shape[0]} clusters, not {k}")
        loaded.array_attr(self, "cluster_centers_", shape=(k, d))


class NaiveKMeans(SupervisedClusteringMixin, ValidatedParamsMixin, BaseEstimator):
    """k-means on features and label positions together ("naive_Km" of Grbovic et al. 2013).

    Each instance becomes ``[x, r]`` with ``r[j]`` the 1-based position of label ``j`` in its
    ranking (``L / 2`` for a missing label, as printed in sec. 3.2.3); k-means runs in that
    ``d + L`` dimensional space. A cluster's central ranking sorts the labels by their mean
    position in the centroid (smallest first); a new instance goes to the cluster whose
    centroid is nearest in the *feature* coordinates alone.

    Parameters
    ----------
    n_clusters : int, default=10
    standardize : bool, default=True
        z-score the feature columns (not the rank columns) before clustering.
    rank_weight : float, default=1.0
        Multiplier of the rank columns (1 = the paper's plain concatenation).
    partial_positions : {"observed", "rescaled"}, default="observed"
        Positions of the labels of an incomplete ranking: ``"observed"`` -- 1..l within the
        observed sequence (literal reading); ``"rescaled"`` -- mapped to ``1 + (q - 1)(L -
        1)/(l - 1)`` so that they span 1..L.
    n_init : int, default=10
    max_iter : int, default=300
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    central_rankings_ : Rankings of shape (n_clusters_, n_items_)
    cluster_centers_ : ndarray of shape (n_clusters_, d + n_items_)
        Centroids in the augmented space (feature part standardised when ``standardize``).
    labels_ : ndarray of int64, shape (n,)
        Nearest feature-part centroid of each training instance (the feature rule; the
        k-means labels in the augmented space are ``fit_labels_``).
    fit_labels_ : ndarray of int64, shape (n,)
    n_clusters_ : int
        Clusters returned. A cluster whose feature-part centroid is no training instance's
        nearest would be empty under the feature rule: it is dropped (with an
        :class:`~rankclust.exceptions.EmptyClusterWarning`), the others renumbered, and
        ``fit_labels_`` then is the nearest kept centroid in the augmented space.
    n_init_agreeing_ : int
        As in :class:`FeatureKMeansRanking` (k-means in the augmented space).
    n_items_, n_features_in_, scaler_
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    Ties among labels with equal mean position: the lower label index ranks first.

    Complexity: O(n_init T n K (d + m)) time, O(n (d + m)) memory.

    References
    ----------
    Grbovic, M., Djuric, N., Guo, S. and Vucetic, S. (2013). Supervised clustering of label
    ranking data using label preference information. Machine Learning 93, 191-225,
    sec. 3.2.3.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.supervised import NaiveKMeans
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> Y = [[1, 2, 3], [1, 2, 3], [3, 2, 1], [3, 2, 1]]
    >>> NaiveKMeans(n_clusters=2, random_state=0).fit(X, Y).predict_ranking([[0.0]])
    array([[1, 2, 3]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "standardize": ["boolean"],
        "rank_weight": [Interval(Real, 0, None, closed="left")],
        "partial_positions": [StrOptions({"observed", "rescaled"})],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_clusters: int = 10,
        *,
        standardize: bool = True,
        rank_weight: float = 1.0,
        partial_positions: str = "observed",
        n_init: int = 10,
        max_iter: int = 300,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.standardize = standardize
        self.rank_weight = rank_weight
        self.partial_positions = partial_positions
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: Any, Y: Any) -> NaiveKMeans:
        """Cluster the augmented vectors.

        Parameters
        ----------
        X : array-like of shape (n, d)
        Y : Rankings or array-like of 1-based ranks (0/NaN missing), shape (n, m)

        Returns
        -------
        self : NaiveKMeans
        """
        X, Y, K, rng = self._begin_fit(X, Y)
        Xt = self._fit_scaler(X, self.standardize)
        pos = rank_position_features(Y.ranks, self.partial_positions)
        Z = np.hstack([Xt, self.rank_weight * pos])
        km = _kmeans_restarts(self, Z, K, rng)
        d = Xt.shape[1]
        centroids = km.cluster_centers_
        # a centroid whose feature part is nobody's nearest is an empty cluster under the
        # feature rule: drop it; the k-means labels then use the nearest kept centroid
        keep, _ = used_clusters(_nearest_centroid(Xt, centroids[:, :d]), K)
        centroids = centroids[keep]
        centers_r = centroids[:, d:]
        # smallest mean position first; stable sort = lower label index on ties
        order = np.argsort(centers_r, axis=1, kind="stable")
        central = np.empty_like(order)
        np.put_along_axis(central, order, np.arange(Y.n_items), axis=1)
        self.cluster_centers_ = centroids
        self._feature_centers = np.ascontiguousarray(centroids[:, :d])
        self.fit_labels_ = (
            km.labels_.astype(np.int64) if keep.size == K else _nearest_centroid(Z, centroids)
        )
        self._set_centers(central.astype(np.int64))
        self._warn_fewer_clusters(
            K, "no training instance has their centroid nearest in feature space"
        )
        self.labels_ = self._predict_cluster(Xt)
        return self

    def _predict_cluster(self, X: np.ndarray) -> np.ndarray:
        return _nearest_centroid(X, self._feature_centers)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d, m, k = self._validate_loaded_common()
        loaded.array_attr(self, "_feature_centers", shape=(k, d))
        loaded.array_attr(self, "cluster_centers_", shape=(k, d + m))
        loaded.array_attr(self, "fit_labels_", kind="i", ndim=1, low=0, high=k - 1)


def _nearest_centroid(X: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Nearest row of ``c`` (squared Euclidean distance; lowest index on ties)."""
    d2 = (X**2).sum(axis=1)[:, None] - 2.0 * X @ c.T + (c**2).sum(axis=1)[None, :]
    return np.argmin(d2, axis=1).astype(np.int64)


def _kmeans_restarts(est: Any, Z: np.ndarray, K: int, rng: np.random.RandomState) -> KMeans:
    """k-means++ k-means from ``est.n_init`` starts (one ``KMeans(n_init=1)`` each); the best.

    The starts draw from ``rng`` as one ``KMeans(n_init=est.n_init)`` would. Sets
    ``est.n_init_agreeing_`` and warns when a start as good as the best has another partition.
    """
    fits = [
        KMeans(K, n_init=1, max_iter=est.max_iter, random_state=rng).fit(Z)
        for _ in range(est.n_init)
    ]
    inertia = [km.inertia_ for km in fits]
    i_best = int(np.argmin(inertia))
    est.n_init_agreeing_, n_near = restart_agreement(inertia, lambda i: fits[i].labels_, i_best)
    warn_if_disagree(type(est).__name__, est.n_init_agreeing_, n_near, est.n_init)
    return fits[i_best]


def rank_position_features(ranks: np.ndarray, partial_positions: str = "observed") -> np.ndarray:
    """The rank columns of naive_Km: 1-based positions, ``L / 2`` for a missing label.

    Parameters
    ----------
    ranks : ndarray of int64, shape (n, L)
        Rank matrix (0-based positions, -1 absent, no ties).
    partial_positions : {"observed", "rescaled"}

    Returns
    -------
    ndarray of float64, shape (n, L)
    """
    L = ranks.shape[1]
    present = ranks >= 0
    pos = ranks.astype(np.float64) + 1.0
    if partial_positions == "rescaled":
        lengths = present.sum(axis=1, keepdims=True).astype(np.float64)
        scale = np.where(lengths > 1, (L - 1) / np.maximum(lengths - 1, 1), 0.0)
        pos = 1.0 + (pos - 1.0) * scale
        pos = np.where(lengths > 1, pos, (L + 1) / 2.0)
    return np.where(present, pos, L / 2.0)
