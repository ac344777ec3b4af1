"""Shared machinery of the supervised clusterers (Grbovic et al. 2013): private, trusted input.

* :class:`SupervisedClusteringMixin` -- the public boundary of every estimator in
  :mod:`rankclust.supervised`: ``predict(X)`` (cluster), ``predict_ranking(X)`` (1-based ranks),
  ``score(X, Y)`` (mean Kendall tau), the optional feature standardisation, and the checks of
  ``fit``'s input.
* :func:`central_ranking` -- the central ranking of a group of (possibly incomplete) rankings
  under the Mallows model (modified Borda with the most-probable-extension iteration, the
  paper's "Mallows") or the Plackett-Luce model.
* :func:`distances_to_centers` -- the normalised Kendall distance of every ranking to every
  central ranking, the matrix all the tree learners and the training loss are built from.
* :func:`used_clusters`, :func:`remap_tree_values` and
  ``SupervisedClusteringMixin._warn_fewer_clusters`` -- no estimator of the package returns an
  empty cluster: clusters that no training instance reaches under the feature rule are
  removed, the others renumbered ``0..n_clusters_-1``, with an
  :class:`~rankclust.exceptions.EmptyClusterWarning`.

Names and unseen labels follow the label rankers (:mod:`rankclust._unseen_labels`): ``items_`` keeps the label
names of ``Y`` (also on ``central_rankings_``); a label no training ranking contains is listed
in ``unseen_items_`` with a warning, placed last in every central ranking (so in
``predict_ranking``), and left unranked by ``predict_rankings``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust._param_validation import check_n_clusters
from rankclust._unseen_labels import demote_unseen, find_unseen_labels, ranks_to_rankings
from rankclust.consensus import generalized_borda
from rankclust.distances import pairwise_distances
from rankclust.exceptions import EmptyClusterWarning
from rankclust.models.mallows import estimate_center
from rankclust.models.plackett_luce import fit_scores
from rankclust.rankings import Rankings, check_rankings

__all__ = [
    "CENTRAL_RANKING_METHODS",
    "SupervisedClusteringMixin",
    "central_ranking",
    "distances_to_centers",
    "positions_from_scores",
    "remap_tree_values",
    "training_loss",
    "used_clusters",
]

#: Central-ranking rules: ``"mallows"`` (modified Borda plus the most-probable-extension
#: iteration of Cheng et al. 2009, what Grbovic et al. call "Mallows") and ``"pl"``
#: (Plackett-Luce maximum a posteriori scores, sorted).
CENTRAL_RANKING_METHODS = ("mallows", "pl")

# Strength of the Gamma prior of the Plackett-Luce centre: a few hundredths of a pseudo-win
# per label keep the estimate finite when a label never wins or never loses in a cluster (the
# MLE does not exist there, decisions.md G5) and change nothing measurable otherwise.
_PL_ALPHA = 1e-2


def positions_from_scores(scores: np.ndarray) -> np.ndarray:
    """Position vectors of the orders by decreasing score, lower label index first on ties.

    ``scores`` (m,) or (K, m); returns int64 of the same shape.
    """
    order = np.argsort(-np.asarray(scores, dtype=np.float64), axis=-1, kind="stable")
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.arange(order.shape[-1]), axis=-1)
    return pos.astype(np.int64)


def _informative(R: Rankings, sample_weight: np.ndarray | None) -> np.ndarray:
    w = R.weights if sample_weight is None else R.weights * sample_weight
    return (R.lengths >= 2) & (w > 0)


def central_ranking(
    R: Rankings,
    sample_weight: np.ndarray | None = None,
    *,
    method: str = "mallows",
    fallback: np.ndarray | None = None,
) -> np.ndarray:
    """Central ranking (a complete position vector) of trusted, tie-free subset rankings.

    Parameters
    ----------
    R : Rankings, shape (n, m)
        Rankings without ties (``kind="subset"``; incomplete rows allowed).
    sample_weight : ndarray of shape (n,), optional
        Non-negative row weights.
    method : {"mallows", "pl"}
        ``"mallows"``: the modified Borda count of the rankings, then the approximate EM of
        Cheng et al. (2009) -- complete each ranking by its most probable extension, Borda of
        the completions -- until the centre repeats (Grbovic et al. 2013, sec. 3.1;
        :func:`rankclust.models.mallows.estimate_center` with ``method="borda"``).
        ``"pl"``: ``argsort(-v)`` of the Plackett-Luce scores of the rankings
        (:func:`rankclust.models.plackett_luce.fit_scores`, with a tiny Gamma prior so that a
        label that never wins or never loses does not make the estimate diverge).
    fallback : ndarray of int64, shape (m,), optional
        Returned when no row with at least two labels has positive weight (default: the
        identity ranking).

    Returns
    -------
    ndarray of int64, shape (m,)

    Notes
    -----
    Complexity: "mallows" O(T (n m^2)) for T extension iterations (T is a handful), "pl"
    O(T u m) for T MM updates over u distinct rankings.
    """
    m = R.n_items
    ok = _informative(R, sample_weight)
    if not ok.any():
        return np.arange(m, dtype=np.int64) if fallback is None else fallback.copy()
    sub = R[ok]
    sw = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)[ok]
    if method == "pl":
        z, _, _ = fit_scores(sub, sw, alpha=_PL_ALPHA, max_iter=300, tol=1e-7)
        return positions_from_scores(z)
    if bool(np.all(sub.lengths == m)):
        # complete data: the approximate EM is a single Borda count
        return generalized_borda(sub, sw)
    return estimate_center(sub, sw, method="borda", max_iter=100)


def distances_to_centers(R: Rankings, centers: np.ndarray, normalize: bool = True) -> np.ndarray:
    """Kendall distance of every ranking to every centre, shape (n, K), as float64.

    Incomplete rankings are compared on their observed pairs. ``normalize=True`` divides by
    the ranking's own number of comparable pairs ``l (l - 1) / 2`` (decisions.md G1; the scale of
    loss_LR); ``normalize=False`` keeps the raw counts of discordant pairs (the literal
    ``d_tau`` of eqs. 17-18, under which a ranking with few labels weighs less). A row with
    fewer than two labels gets 0 (it carries no preference and pulls no split). O(n K m^2)
    time (two BLAS products for m < 24), O(n m^2 + n K) memory.
    """
    C = Rankings._from_trusted(np.ascontiguousarray(centers, dtype=np.int64))
    D = pairwise_distances(R, C, metric="kendall", normalize=normalize)
    return D.astype(np.float64, copy=False)


def training_loss(D: np.ndarray, assign: np.ndarray, informative: np.ndarray) -> float:
    """Mean of ``D[n, assign[n]]`` over the informative rows (the training loss_LR)."""
    if not informative.any():
        return 0.0
    vals = D[np.arange(D.shape[0]), assign]
    return float(vals[informative].mean())


def used_clusters(labels: np.ndarray, n_clusters: int) -> tuple[np.ndarray, np.ndarray]:
    """The clusters ``labels`` uses and the renumbering that drops the others.

    Returns ``keep`` (sorted indices of the non-empty clusters) and ``remap`` of shape
    ``(n_clusters,)``: ``remap[keep[j]] = j``, ``-1`` for an empty cluster.
    """
    counts = np.bincount(np.asarray(labels, dtype=np.int64), minlength=n_clusters)
    keep = np.flatnonzero(counts > 0)
    remap = np.full(n_clusters, -1, dtype=np.int64)
    remap[keep] = np.arange(keep.size)
    return keep, remap


def remap_tree_values(tree: Any, remap: np.ndarray) -> None:
    """Renumber the rankings a KTree's nodes carry (in place) after empty clusters are dropped.

    Every leaf carries a kept ranking (a leaf holds training instances). An internal node
    whose own ranking was dropped -- it only says what the node would carry as a leaf --
    takes the ranking of its leftmost leaf. Nodes are numbered depth-first, so children come
    after their parent and one reverse sweep sees them first.
    """
    value = remap[tree.value]
    for node in range(len(value) - 1, -1, -1):
        if value[node] < 0:
            value[node] = value[tree.left[node]]
    tree.value = value


class SupervisedClusteringMixin:
    """Public boundary shared by the supervised clusterers of :mod:`rankclust.supervised`.

    Subclasses implement ``_predict_cluster(Xt)`` on (possibly standardised) features and set,
    in ``fit``, ``central_rankings_`` (a :class:`~rankclust.Rankings` of complete rankings),
    ``n_items_``, ``n_features_in_`` and ``scaler_`` (a fitted ``StandardScaler`` or None).
    """

    # ---------------------------------------------------------------- fit-side helpers
    def _begin_fit(self, X: Any, Y: Any) -> tuple[np.ndarray, Rankings, int, Any]:
        """The prologue of every ``fit``: the parameters and ``(X, Y)`` checked (see
        :meth:`_check_fit_data`), ``K = n_clusters`` checked against the rows, and the
        random state; returns ``(X, Y, K, rng)``."""
        self._validate_params()
        X, Y = self._check_fit_data(X, Y)
        K = check_n_clusters(self.n_clusters, X.shape[0])
        return X, Y, K, check_random_state(self.random_state)

    def _check_fit_data(self, X: Any, Y: Any, *, min_samples: int = 1) -> tuple:
        X = check_array(X, dtype=np.float64, ensure_min_samples=min_samples)
        Y = check_rankings(Y, kind="subset", allow_ties=False, kinds=("subset",), name="Y")
        if Y.n_rankings != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but Y has {Y.n_rankings} rankings")
        if Y.n_items < 2:
            raise ValueError(f"Y must rank at least two labels, got {Y.n_items}")
        if not (Y.lengths >= 2).any():
            raise ValueError("Y: no ranking orders two labels; there is nothing to learn")
        self.n_features_in_ = X.shape[1]
        self.n_items_ = Y.n_items
        self.items_ = Y.items
        self.unseen_items_ = find_unseen_labels(Y, type(self).__name__)
        return X, Y

    def _fit_scaler(self, X: np.ndarray, standardize: bool) -> np.ndarray:
        self.scaler_ = StandardScaler().fit(X) if standardize else None
        return X if self.scaler_ is None else self.scaler_.transform(X)

    def _warn_fewer_clusters(self, n_requested: int, why: str) -> None:
        """:class:`EmptyClusterWarning` when ``n_clusters_`` is below ``n_requested``."""
        if self.n_clusters_ < n_requested:
            warnings.warn(
                f"{type(self).__name__}: {n_requested - self.n_clusters_} of n_clusters="
                f"{n_requested} clusters would have been empty ({why}); returning "
                f"n_clusters_={self.n_clusters_} clusters, numbered 0..{self.n_clusters_ - 1}",
                EmptyClusterWarning,
                stacklevel=3,
            )

    def _set_centers(self, centers: np.ndarray) -> None:
        # unseen labels go last: no training distance changes (no training row holds them)
        pos = demote_unseen(np.asarray(centers, dtype=np.int64) + 1, self.unseen_items_) - 1
        self.central_rankings_ = Rankings._from_trusted(pos, items=self.items_)
        self.n_clusters_ = int(centers.shape[0])

    # ---------------------------------------------------------------- public boundary
    def _transform_X(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "central_rankings_")
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} was fitted with "
                f"{self.n_features_in_}"
            )
        return X if self.scaler_ is None else self.scaler_.transform(X)

    def predict(self, X: Any) -> np.ndarray:
        """Cluster of each instance, from its features alone.

        Parameters
        ----------
        X : array-like of shape (n, d)

        Returns
        -------
        ndarray of int64, shape (n,)
            Indices into :attr:`central_rankings_`.
        """
        return self._predict_cluster(self._transform_X(X)).astype(np.int64)

    def predict_ranking(self, X: Any) -> np.ndarray:
        """Predicted ranking of each instance: its cluster's central ranking.

        Parameters
        ----------
        X : array-like of shape (n, d)

        Returns
        -------
        ndarray of int64, shape (n, n_items_)
            1-based ranks (``ranks[i, j]`` = rank of label ``j``, 1 = best), the label-ranking
            CSV convention; ``Rankings.from_ranks`` reads it back.
        """
        labels = self.predict(X)  # checks the fit first (NotFittedError)
        return self.central_rankings_.ranks[labels].astype(np.int64) + 1

    def predict_rankings(self, X: Any) -> Rankings:
        """Predicted ranking of each instance as a :class:`~rankclust.Rankings` named by ``items_``.

        Parameters
        ----------
        X : array-like of shape (n, d)

        Returns
        -------
        Rankings, shape (n, n_items_)
            ``kind="subset"``; the rankings of :meth:`predict_ranking` with every label of
            ``unseen_items_`` left unranked (absent).
        """
        return ranks_to_rankings(self.predict_ranking(X), self.unseen_items_, self.items_)

    def score(self, X: Any, Y: Any) -> float:
        """Mean Kendall tau between ``Y`` and the predicted rankings (``1 - 2 loss_LR``)."""
        from rankclust.metrics import kendall_tau

        pred = self.predict_ranking(X)
        Y = check_rankings(Y, kind="subset", name="Y", items=self.items_)  # aligned by name
        return kendall_tau(Y, pred)

    # ---------------------------------------------------------------- loading
    def _validate_loaded_common(self) -> tuple[int, int, int]:
        """Shared checks of a loaded model (see :func:`rankclust.persistence.load`).

        Returns ``(n_features, n_items, n_clusters)`` for the estimator's own checks.
        """
        d = loaded.int_attr(self, "n_features_in_", low=1)
        m = loaded.int_attr(self, "n_items_", low=1)
        k = loaded.int_attr(self, "n_clusters_", low=1)
        loaded.estimator_attr(self, "scaler_", StandardScaler, n_features=d, optional=True)
        items = loaded.items_attr(self, n_items=m)
        loaded.unseen_attr(self, n_items=m)
        centers = loaded.rankings_attr(
            self, "central_rankings_", n_items=m, n_rankings=k, complete=True
        )
        if centers.items != items:
            raise ValueError("central_rankings_: its item names differ from items_")
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0, high=k - 1)
        return d, m, k
