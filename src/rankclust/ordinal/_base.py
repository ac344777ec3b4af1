"""What the ordinal clusterers share (private): the fit prologue, the feature space, predict.

The clusterers that work in the feature space of a :class:`~rankclust.ordinal._features.
FeatureMap` (M2SORC, CPMMC, CPCMMC, WSVORC, SMMCPC) derive from :class:`FeatureMapClusterer`:
one prologue validates the parameters, ``X``, ``n_clusters <= n`` and the pair arrays, draws
the feature map from the one ``rng`` of the fit and maps ``X`` (centred, except for M2SORC);
prediction maps new data through the same fitted map (:meth:`FeatureMapClusterer._features`).
:class:`MulticlassPredictMixin` (``argmax_p <w_p, phi(x)>``) and
:class:`ThresholdPredictMixin` (the interval of ``<w, phi(x)>`` between ordered thresholds)
are the two ways they predict.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from rankclust import _loaded_state as loaded
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
    check_n_clusters,
)
from rankclust.ordinal._features import KERNELS, FeatureMap
from rankclust.ordinal.constraints import check_pairs

__all__ = [
    "FEATURE_MAP_CONSTRAINTS",
    "FeatureMapClusterer",
    "MulticlassPredictMixin",
    "ThresholdPredictMixin",
    "assign_levels",
    "check_fit_input",
]


#: Constraints of the parameters every :class:`FeatureMapClusterer` has (subclasses add
#: their own, e.g. ``{**FEATURE_MAP_CONSTRAINTS, "C": [...]}``).
FEATURE_MAP_CONSTRAINTS: dict[str, list] = {
    "n_clusters": [Interval(numbers.Integral, 2, None)],
    "kernel": [StrOptions(KERNELS)],
    "gamma": [Interval(numbers.Real, 0, None, closed="neither"), StrOptions({"scale"})],
    "n_components": [Interval(numbers.Integral, 1, None)],
    "n_init": [Interval(numbers.Integral, 1, None)],
    "max_iter": [Interval(numbers.Integral, 1, None)],
    "random_state": ["random_state"],
}


def assign_levels(a: NDArray, b: NDArray) -> NDArray:
    """Cluster index in 0..k-1: the number of thresholds at or below the projection."""
    return np.searchsorted(b, a, side="right")


def check_fit_input(est: Any, X: ArrayLike, **pairs: Any) -> tuple[NDArray, list[NDArray]]:
    """``X`` validated (float64, at least 2 rows, ``n_clusters <= n``) and each pair array
    (keyword = its name in error messages) checked against ``n``."""
    X = validate_data(est, X, dtype=np.float64, ensure_min_samples=2)
    n = X.shape[0]
    check_n_clusters(est.n_clusters, n)
    return X, [check_pairs(value, n, name=name) for name, value in pairs.items()]


class FeatureMapClusterer(ValidatedParamsMixin, ClusterMixin, BaseEstimator, ABC):
    """Base of the ordinal clusterers fitted in a random feature space (private).

    Subclasses have the parameters ``n_clusters``, ``kernel``, ``gamma``, ``n_components``
    and ``random_state``, and set ``coef_`` in ``fit``.
    """

    @abstractmethod
    def fit(self, X: ArrayLike, y: Any = None, **pairs: Any) -> FeatureMapClusterer:
        """Cluster ``X`` (starting with :meth:`_fit_prologue`); returns ``self``."""

    #: Whether the mapped features are centred on their training mean (``feature_mean_``).
    _center_features: ClassVar[bool] = True

    def _fit_prologue(
        self, X: ArrayLike, **pairs: Any
    ) -> tuple[NDArray, list[NDArray], np.random.RandomState]:
        """(mapped training features, checked pair arrays, the fit's ``rng``).

        Sets ``n_features_in_``, ``feature_map_`` (drawn from ``rng`` first, so every start
        that follows sees the same random stream as before the prologue was shared) and,
        when features are centred, ``feature_mean_``.
        """
        self._validate_params()
        X, checked = check_fit_input(self, X, **pairs)
        rng = check_random_state(self.random_state)
        self.feature_map_ = FeatureMap(self.kernel, self.gamma, self.n_components, rng)
        Phi = self.feature_map_.fit_transform(X)
        if self._center_features:
            self.feature_mean_ = Phi.mean(0)
            Phi = Phi - self.feature_mean_
        return Phi, checked, rng

    def _features(self, X: ArrayLike) -> NDArray:
        """New data through the fitted feature map (centred as the training features)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Phi = self.feature_map_.transform(X)
        return Phi - self.feature_mean_ if self._center_features else Phi

    def _validate_loaded_features(self) -> int:
        """``n_features_in_``, ``feature_map_`` (and ``feature_mean_``) of a loaded model;
        returns the map's width."""
        d = loaded.int_attr(self, "n_features_in_", low=1)
        fmap = loaded.estimator_attr(self, "feature_map_", FeatureMap)
        p = fmap._loaded_output_dim(d, "feature_map_")
        if self._center_features:
            loaded.array_attr(self, "feature_mean_", shape=(p,))
        return p


class MulticlassPredictMixin:
    """``predict``: ``argmax_p <w_p, phi(x)>`` (``coef_`` of shape (k, p); CPMMC, SMMCPC)."""

    def predict(self, X: ArrayLike) -> NDArray:
        """argmax_p <w_p, phi(x)>."""
        return (self._features(X) @ self.coef_.T).argmax(1)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        p = self._validate_loaded_features()
        k = self.n_clusters
        loaded.array_attr(self, "coef_", shape=(k, p))
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0, high=k - 1)


class ThresholdPredictMixin:
    """``predict``: the interval of ``<w, phi(x)>`` between the ordered ``thresholds_``
    (``coef_`` of shape (p,); M2SORC, WSVORC)."""

    def _project(self, X: ArrayLike) -> NDArray:
        return self._features(X) @ self.coef_

    def decision_function(self, X: ArrayLike) -> NDArray:
        """``<w, phi(x)> - t_j`` for the k-1 thresholds; the cluster is the count of entries
        >= 0.

        Returns
        -------
        scores : ndarray of shape (n_samples, n_clusters - 1)
        """
        return self._project(X)[:, None] - self.thresholds_[None, :]

    def predict(self, X: ArrayLike) -> NDArray:
        """Ordinal cluster 0..k-1 of each sample (the interval of its projection)."""
        return assign_levels(self._project(X), self.thresholds_)
