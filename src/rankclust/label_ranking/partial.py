"""Partial label ranking: learn from rankings with ties and predict rankings with ties.

The targets are **bucket orders** (rankings with ties, e.g. ``[1, 2, 2]``: label 0 first,
labels 1 and 2 tied), and so are the predictions. Both estimators aggregate training rankings
into one bucket order by the Bucket Pivot Algorithm on their pair-order matrix
(:mod:`rankclust.bucket_consensus`, BPA-LIA-MP2 by default), as in Alfaro, Aledo & Gámez
(2021) and scikit-lr's ``KNeighborsPartialLabelRanker`` and
``DecisionTreePartialLabelRanker``:

* :class:`KNeighborsPartialLabelRanker` -- the consensus of the ``k`` nearest training
  rankings (uniform or inverse-distance weights);
* :class:`DecisionTreePartialLabelRanker` -- a tree grown with an entropy impurity on the
  pairwise (precede, tie, follow) frequencies; each leaf predicts the consensus of its rankings.

Conventions are those of :mod:`rankclust.label_ranking` (``fit(X, Y)`` with 1-based ranks,
0/NaN missing; ``items_``, ``unseen_items_``) except that ``Y`` may have ties and

* ``predict(X)`` returns **dense 1-based ranks with ties** (int64, ``(n_samples, n_labels)``,
  equal values tie; labels unseen in training share the last bucket);
* ``score(X, Y)`` is the mean :func:`~rankclust.metrics.tau_x` (Emond & Mason 2002), the
  measure of partial label ranking.

A missing label in a training ranking is unknown: its pairs are left out of the pair counts.

References
----------
Alfaro, J. C., Aledo, J. A. and Gámez, J. A. (2021). Learning decision trees for the Partial
Label Ranking problem. International Journal of Intelligent Systems 36(2), 890-918.
"""

from __future__ import annotations

import numbers
from typing import Any

import numba
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state

from rankclust import _loaded_state as loaded
from rankclust._compiled import tree_apply
from rankclust._kernel_random import shuffle
from rankclust._param_validation import Interval, StrOptions, ValidatedParamsMixin
from rankclust._unseen_labels import ranks_to_rankings
from rankclust.bucket_consensus import (
    BUCKET_PIVOTS,
    bucket_pivot,
    pair_order_from_counts,
)
from rankclust.label_ranking._base import validate_fit_data, validate_predict_data
from rankclust.label_ranking.tree import feature_order_seed
from rankclust.metrics import tau_x
from rankclust.rankings import Rankings, check_rankings

__all__ = ["DecisionTreePartialLabelRanker", "KNeighborsPartialLabelRanker"]

_CONSENSUS_CONSTRAINTS: dict = {
    "beta": [Interval(numbers.Real, 0.0, 0.5, closed="both")],
    "pivot": [StrOptions(set(BUCKET_PIVOTS))],
    "random_state": ["random_state"],
}


class _PartialLabelRankerMixin:
    """Tags, ``score`` = mean tau_x, named predictions, the consensus step."""

    _estimator_type = "label_ranker"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    def _consensus(self, prec: np.ndarray, ties: np.ndarray, rng: Any) -> np.ndarray:
        """Dense 1-based ranks (q, m) of stacked counts (q, m, m); unseen labels last, tied."""
        m = prec.shape[-1]
        seen = np.setdiff1d(np.arange(m), self.unseen_items_)  # type: ignore[attr-defined]
        P = pair_order_from_counts(prec, ties)
        if seen.size < m:
            P = P[:, seen[:, None], seen[None, :]]
        out = np.empty(prec.shape[:-1], dtype=np.int64)
        b = bucket_pivot(P, beta=self.beta, pivot=self.pivot, random_state=rng)  # type: ignore[attr-defined]
        out[:, seen] = b + 1
        if seen.size < m:
            out[:, self.unseen_items_] = (b.max(axis=1, initial=-1) + 2)[:, None]  # type: ignore[attr-defined]
        return out

    def _validate_loaded_names(self, m: int) -> None:
        """Checks of ``items_`` and ``unseen_items_`` in a loaded model."""
        loaded.items_attr(self, n_items=m)
        loaded.unseen_attr(self, n_items=m)

    def predict_rankings(self, X: Any) -> Rankings:
        """Predicted bucket orders, named by ``items_``; unseen labels unranked (absent).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Rankings, shape (n_samples, n_labels), ``kind="subset"``, ties allowed.
        """
        return ranks_to_rankings(self.predict(X), self.unseen_items_, self.items_)  # type: ignore[attr-defined]

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean tau_x between ``predict(X)`` and the true rankings ``Y`` (ties allowed).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Rankings or array-like of 1-based ranks, shape (n_samples, n_labels)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float
            In ``[-1, 1]`` (see :func:`rankclust.metrics.tau_x`).
        """
        Y_pred = self.predict(X)  # type: ignore[attr-defined]
        y = check_rankings(y, kind="subset", name="Y", items=self.items_)  # type: ignore[attr-defined]
        return tau_x(y, Y_pred, sample_weight=sample_weight)


# --------------------------------------------------------------------------------------------
# k nearest neighbours
# --------------------------------------------------------------------------------------------
class KNeighborsPartialLabelRanker(_PartialLabelRankerMixin, ValidatedParamsMixin, BaseEstimator):
    """Partial label ranking by the bucket-order consensus of the k nearest neighbours.

    For a query, the pair-order matrix of its ``k`` nearest training rankings (weighted) is
    aggregated into a bucket order by the Bucket Pivot Algorithm
    (:func:`rankclust.bucket_consensus.bucket_pivot`).

    Parameters
    ----------
    n_neighbors : int, default=5
    weights : {"uniform", "distance"}, default="uniform"
        ``"distance"``: neighbour weight ``1 / d``; a query at distance 0 from some training
        rows uses those rows only (scikit-learn's rule). Multiplied by the rankings' weights.
    metric : str, default="euclidean"
        Any metric of :class:`sklearn.neighbors.NearestNeighbors`. Features are used as given
        (scale them first, e.g. in a :class:`~sklearn.pipeline.Pipeline`).
    beta : float in [0, 0.5], default=0.25
        Tie threshold of the Bucket Pivot Algorithm.
    pivot : {"dani", "random"}, default="dani"
        Pivot rule of the Bucket Pivot Algorithm (``"dani"`` is deterministic).
    random_state : int, RandomState or None
        Used by ``pivot="random"`` (the same draws at every ``predict``).

    Attributes
    ----------
    n_items_, n_features_in_ : int
    items_ : tuple of str or None
    unseen_items_ : ndarray of int64
        Labels in no training ranking; predicted tied in the last bucket.
    nn_ : sklearn.neighbors.NearestNeighbors
    rankings_ : Rankings
        The training rankings (with their weights).

    See Also
    --------
    DecisionTreePartialLabelRanker, rankclust.label_ranking.IBLRMallows

    Notes
    -----
    Complexity: fit as :class:`~sklearn.neighbors.NearestNeighbors`; predict O(q (search +
    k m^2 + m^3)) time, O(q m^2) memory per block of queries.

    References
    ----------
    Alfaro, Aledo & Gámez (2021), Sec. 4 (instance-based partial label ranking).

    Examples
    --------
    >>> from rankclust.label_ranking import KNeighborsPartialLabelRanker
    >>> X = [[0.0], [0.1], [0.2], [1.0], [1.1]]
    >>> Y = [[1, 2, 2], [1, 2, 2], [1, 2, 3], [3, 1, 1], [2, 1, 1]]
    >>> KNeighborsPartialLabelRanker(n_neighbors=2).fit(X, Y).predict([[0.05], [1.05]])
    array([[1, 2, 2],
           [2, 1, 1]])
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "n_neighbors": [Interval(numbers.Integral, 1, None)],
        "weights": [StrOptions({"uniform", "distance"})],
        "metric": [str],
        **_CONSENSUS_CONSTRAINTS,
    }

    def __init__(
        self,
        n_neighbors: int = 5,
        *,
        weights: str = "uniform",
        metric: str = "euclidean",
        beta: float = 0.25,
        pivot: str = "dani",
        random_state: Any = None,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.metric = metric
        self.beta = beta
        self.pivot = pivot
        self.random_state = random_state

    def fit(self, X: Any, Y: Any) -> KNeighborsPartialLabelRanker:
        """Store the training data and build the neighbour index.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        Y : Rankings or array-like of 1-based ranks, shape (n_samples, n_labels)
            Training rankings; ties and missing labels (0/NaN) allowed.

        Returns
        -------
        self
        """
        self._validate_params()
        X, R = validate_fit_data(self, X, Y, allow_ties=True)
        if self.n_neighbors > X.shape[0]:
            raise ValueError(
                f"n_neighbors={self.n_neighbors} is larger than the number of training "
                f"samples, n_samples={X.shape[0]}"
            )
        self.nn_ = NearestNeighbors(n_neighbors=self.n_neighbors, metric=self.metric).fit(X)
        self.rankings_ = R
        self.n_items_ = R.n_items
        return self

    def _neighbour_weights(self, dist: np.ndarray, ind: np.ndarray) -> np.ndarray:
        w = np.ones_like(dist)
        if self.weights == "distance":
            zero = dist == 0
            with np.errstate(divide="ignore"):
                w = 1.0 / dist
            hit = zero.any(axis=1)
            w[hit] = zero[hit].astype(np.float64)
        return w * self.rankings_.weights[ind]

    def predict(self, X: Any) -> np.ndarray:
        """Bucket orders as dense 1-based ranks with ties, shape (n_samples, n_labels)."""
        X = validate_predict_data(self, X)
        rng = check_random_state(self.random_state) if self.pivot == "random" else None
        m = self.n_items_
        ranks = np.asarray(self.rankings_.ranks, dtype=np.int64)  # storage may be narrow
        out = np.empty((X.shape[0], m), dtype=np.int64)
        step = max(1, 2_000_000 // (m * m))  # bounds the (q, m, m) counts
        for s in range(0, X.shape[0], step):
            dist, ind = self.nn_.kneighbors(X[s : s + step])
            w = self._neighbour_weights(dist, ind)
            prec = np.zeros((ind.shape[0], m, m))
            ties = np.zeros((ind.shape[0], m, m))
            _nb_neighbour_counts(ranks, ind, w, prec, ties)
            out[s : s + step] = self._consensus(prec, ties, rng)
        return out

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d = loaded.int_attr(self, "n_features_in_", low=1)
        m = loaded.int_attr(self, "n_items_", low=1)
        self._validate_loaded_names(m)
        nn = loaded.estimator_attr(self, "nn_", NearestNeighbors, n_features=d)
        n = getattr(nn, "n_samples_fit_", 0)
        loaded.rankings_attr(self, "rankings_", n_items=m, n_rankings=n)
        if not 1 <= self.n_neighbors <= n:
            raise ValueError(f"nn_: {n} training rows for n_neighbors={self.n_neighbors}")


def _neighbour_counts(ranks, ind, w, prec, ties):  # pragma: no cover - compiled below
    """Weighted precedence and tie counts of each query's neighbours (IN/OUT ``prec, ties``).

    ``ranks`` (n, m) 0-based (-1 absent), ``ind`` (q, k) neighbour rows, ``w`` (q, k) weights;
    ``prec`` and ``ties`` (q, m, m) zeroed. One pass over the upper-triangle label pairs of
    the neighbours, without branches on the order (adding ``0.0`` leaves a sum unchanged);
    the lower triangle is filled per query from a local buffer (contiguous writes).
    """
    q, k = ind.shape
    m = ranks.shape[1]
    below = np.empty((m, m))
    for i in range(q):
        below[:, :] = 0.0
        for j in range(k):
            r = ranks[ind[i, j]]
            wij = w[i, j]
            for u in range(m):
                ru = r[u]
                if ru < 0:
                    continue
                for v in range(u + 1, m):
                    rv = r[v]
                    if rv < 0:
                        continue
                    prec[i, u, v] += wij * (ru < rv)
                    below[u, v] += wij * (rv < ru)
                    ties[i, u, v] += wij * (ru == rv)
        for u in range(m):
            for v in range(u + 1, m):
                prec[i, v, u] = below[u, v]
                ties[i, v, u] = ties[i, u, v]


_nb_neighbour_counts = numba.njit(_neighbour_counts, cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# decision tree
# --------------------------------------------------------------------------------------------
def _pair_states(ranks: np.ndarray) -> np.ndarray:
    """Per row and label pair ``u < v``: 0 ``u`` first, 1 tied, 2 ``v`` first, 3 unobserved."""
    r = ranks.astype(np.int64)
    u, v = np.triu_indices(r.shape[1], 1)
    a, b = r[:, u], r[:, v]
    s = np.where(a < b, 0, np.where(a == b, 1, 2)).astype(np.int8)
    s[(a < 0) | (b < 0)] = 3
    return s


def _entropy(counts):  # pragma: no cover - compiled below
    """Mean over pairs of the entropy (bits) of the (first, tied, second) weights (p, 4)."""
    n_pairs = counts.shape[0]
    h = 0.0
    for p in range(n_pairs):
        t = counts[p, 0] + counts[p, 1] + counts[p, 2]
        if t <= 0.0:
            continue
        for s in range(3):
            c = counts[p, s]
            if c > 0.0:
                h -= c / t * np.log2(c / t)
    return h / max(n_pairs, 1)


_nb_entropy = numba.njit(_entropy, cache=True, nogil=True)


def _best_split(X, S, w, min_leaf, feat_order):  # pragma: no cover - compiled below
    """Best threshold split of a node: (feature, threshold, weighted child impurity).

    ``X`` (n, d), ``S`` (n, pairs) states, ``w`` (n,) weights, all of the node's rows. A
    threshold lies midway between consecutive distinct values; ``feature = -1`` when no
    feature has two distinct values. Exact ties of the criterion (up to 1e-12) go to the
    first feature visited in ``feat_order`` (a permutation of ``0..d-1``) and its lowest
    threshold.
    """
    n, d = X.shape
    n_pairs = S.shape[1]
    total = np.zeros((n_pairs, 4))
    for i in range(n):
        for p in range(n_pairs):
            total[p, S[i, p]] += w[i]
    wsum = w.sum()
    best_f = -1
    best_t = 0.0
    best_imp = np.inf
    left = np.zeros((n_pairs, 4))
    right = np.zeros((n_pairs, 4))
    for fi in range(d):
        f = feat_order[fi]
        order = np.argsort(X[:, f], kind="mergesort")
        left[:, :] = 0.0
        wl = 0.0
        for k in range(n - 1):
            i = order[k]
            for p in range(n_pairs):
                left[p, S[i, p]] += w[i]
            wl += w[i]
            x0 = X[i, f]
            x1 = X[order[k + 1], f]
            if x1 <= x0 or k + 1 < min_leaf or n - k - 1 < min_leaf:
                continue
            # the right child only at candidate thresholds (few when features repeat values)
            for p in range(n_pairs):
                for s in range(3):
                    right[p, s] = total[p, s] - left[p, s]
            wr = wsum - wl
            imp = 0.0
            if wsum > 0.0:
                imp = (wl * _nb_entropy(left) + wr * _nb_entropy(right)) / wsum
            if imp < best_imp - 1e-12:
                best_imp = imp
                best_f = f
                best_t = x0 + (x1 - x0) / 2.0
                if best_t >= x1:  # midpoint rounded up to x1: keep x0 on the left
                    best_t = x0
    return best_f, best_t, best_imp


_nb_best_split = numba.njit(_best_split, cache=True, nogil=True)


class DecisionTreePartialLabelRanker(
    _PartialLabelRankerMixin, ValidatedParamsMixin, BaseEstimator
):
    """Partial label ranking tree: binary splits on an entropy impurity, bucket-order leaves.

    A node's impurity is the mean, over label pairs, of the entropy of the (weighted)
    frequencies with which the first label precedes, ties with or follows the second
    (the ``"entropy"`` criterion of Alfaro, Aledo & Gámez 2021); a split minimises the
    weighted mean impurity of the two children. Nodes are split until ``max_depth``, fewer
    than ``min_samples_split`` rows, rankings that agree on every pair (zero impurity) or
    constant features. Each leaf predicts the bucket-order consensus of its rankings
    (:func:`rankclust.bucket_consensus.bucket_pivot` on their pair-order matrix).

    Parameters
    ----------
    max_depth : int or None, default=None
    min_samples_split : int >= 2, default=2
    min_samples_leaf : int >= 1, default=1
    beta : float in [0, 0.5], default=0.25
        Tie threshold of the Bucket Pivot Algorithm.
    pivot : {"dani", "random"}, default="dani"
    random_state : int, RandomState or None
        The order in which each node visits the features, drawn afresh at every node (as
        :class:`~rankclust.label_ranking.LabelRankingTree`); it only decides between splits of
        exactly equal criterion, common in small nodes and on features with few distinct
        values: the first one found wins (scikit-learn's and scikit-lr's convention). A fixed
        order would always send these ties to the lowest feature index, which costs accuracy.
        ``None`` draws the seed from numpy's global random state, as scikit-learn does; pass
        an int for a reproducible tree. Also used by ``pivot="random"`` (leaf consensus).

    Attributes
    ----------
    tree_feature_, tree_threshold_, tree_left_, tree_right_ : ndarray
        The tree in arrays (node 0 the root; ``feature = -1`` at a leaf; a row goes left when
        ``x[feature] <= threshold``).
    tree_value_ : ndarray of int64, shape (n_nodes, n_items_)
        Predicted dense 1-based ranks of each leaf (zeros at internal nodes).
    n_leaves_, depth_ : int
    n_items_, n_features_in_ : int
    items_ : tuple of str or None
    unseen_items_ : ndarray of int64

    See Also
    --------
    KNeighborsPartialLabelRanker, rankclust.label_ranking.LabelRankingTree

    Notes
    -----
    Only the entropy criterion is implemented; Alfaro et al.'s "disagreements" and
    "distance" criteria need a bucket-order consensus at every candidate split.

    Complexity: O(d n log n + d n m^2) time per tree level (plus O(m^2) per candidate
    threshold), O(n m^2) memory for the pair states.

    References
    ----------
    Alfaro, Aledo & Gámez (2021).

    Examples
    --------
    >>> from rankclust.label_ranking import DecisionTreePartialLabelRanker
    >>> X = [[0.0], [0.1], [0.2], [1.0], [1.1]]
    >>> Y = [[1, 2, 2], [1, 2, 2], [1, 2, 2], [2, 1, 1], [2, 1, 1]]
    >>> DecisionTreePartialLabelRanker().fit(X, Y).predict([[0.05], [1.05]])
    array([[1, 2, 2],
           [2, 1, 1]])
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "max_depth": [Interval(numbers.Integral, 1, None), None],
        "min_samples_split": [Interval(numbers.Integral, 2, None)],
        "min_samples_leaf": [Interval(numbers.Integral, 1, None)],
        **_CONSENSUS_CONSTRAINTS,
    }

    def __init__(
        self,
        *,
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        beta: float = 0.25,
        pivot: str = "dani",
        random_state: Any = None,
    ) -> None:
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.beta = beta
        self.pivot = pivot
        self.random_state = random_state

    def fit(self, X: Any, Y: Any) -> DecisionTreePartialLabelRanker:
        """Grow the tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        Y : Rankings or array-like of 1-based ranks, shape (n_samples, n_labels)
            Training rankings; ties and missing labels (0/NaN) allowed.

        Returns
        -------
        self
        """
        self._validate_params()
        X, R = validate_fit_data(self, X, Y, allow_ties=True)
        # the per-node feature orders first, then (pivot="random") the leaf consensus draws
        # (one RandomState for both, so that an int seed and RandomState(seed) fit alike)
        rng = check_random_state(self.random_state)
        rng_state = np.array([feature_order_seed(rng)], dtype=np.uint64)
        feat_order = np.arange(X.shape[1])
        if self.pivot != "random":
            rng = None
        ranks = np.asarray(R.ranks, dtype=np.int64)
        S = _pair_states(ranks)
        w = R.weights.astype(np.float64)
        feature: list[int] = []
        threshold: list[float] = []
        left: list[int] = []
        right: list[int] = []
        leaves: list[tuple[int, np.ndarray]] = []
        max_depth = np.inf if self.max_depth is None else self.max_depth
        depth_reached = 0
        stack = [(np.arange(X.shape[0]), 0, -1, False)]  # rows, depth, parent, is_right
        while stack:
            rows, depth, parent, is_right = stack.pop()
            node = len(feature)
            feature.append(-1)
            threshold.append(0.0)
            left.append(-1)
            right.append(-1)
            if parent >= 0:
                (right if is_right else left)[parent] = node
            depth_reached = max(depth_reached, depth)
            f = -1
            if depth < max_depth and rows.size >= self.min_samples_split:
                S_node = np.ascontiguousarray(S[rows])
                if not _nb_pure(S_node):
                    shuffle(feat_order, rng_state)
                    f, t, _ = _nb_best_split(
                        np.ascontiguousarray(X[rows]),
                        S_node,
                        w[rows],
                        self.min_samples_leaf,
                        feat_order,
                    )
            if f < 0:
                leaves.append((node, rows))
                continue
            feature[node], threshold[node] = int(f), float(t)
            go_left = X[rows, f] <= t
            # push right first: the left child gets the next node index
            stack.append((rows[~go_left], depth + 1, node, True))
            stack.append((rows[go_left], depth + 1, node, False))
        self.tree_feature_ = np.array(feature, dtype=np.int64)
        self.tree_threshold_ = np.array(threshold, dtype=np.float64)
        self.tree_left_ = np.array(left, dtype=np.int64)
        self.tree_right_ = np.array(right, dtype=np.int64)
        self.n_items_ = R.n_items
        m = R.n_items
        leaf_of_row = np.empty(X.shape[0], dtype=np.int64)
        for k, (_, rows) in enumerate(leaves):
            leaf_of_row[rows] = k
        prec, ties = _leaf_counts(S, w, leaf_of_row, len(leaves), m)
        value = np.zeros((len(feature), m), dtype=np.int64)
        value[[node for node, _ in leaves]] = self._consensus(prec, ties, rng)
        self.tree_value_ = value
        self.n_leaves_ = len(leaves)
        self.depth_ = depth_reached
        return self

    def apply(self, X: Any) -> np.ndarray:
        """Index of the leaf each row of ``X`` ends in, shape (n_samples,)."""
        X = validate_predict_data(self, X)
        out = np.empty(X.shape[0], dtype=np.int64)
        tree_apply(
            np.ascontiguousarray(X),
            self.tree_feature_,
            self.tree_threshold_,
            self.tree_left_,
            self.tree_right_,
            out,
        )
        return out

    def predict(self, X: Any) -> np.ndarray:
        """Bucket orders as dense 1-based ranks with ties, shape (n_samples, n_labels)."""
        leaves = self.apply(X)  # checks fitted and X
        return self.tree_value_[leaves]

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d = loaded.int_attr(self, "n_features_in_", low=1)
        m = loaded.int_attr(self, "n_items_", low=1)
        self._validate_loaded_names(m)
        loaded.check_tree(
            self.tree_feature_,
            self.tree_threshold_,
            self.tree_left_,
            self.tree_right_,
            n_features=d,
            name="tree_",
        )
        n = len(self.tree_feature_)
        value = loaded.array_attr(self, "tree_value_", kind="i", shape=(n, m), low=0, high=m)
        leaf = self.tree_feature_ < 0
        if (value[leaf] < 1).any():
            raise ValueError("tree_value_: a leaf has a rank below 1")
        loaded.int_attr(self, "n_leaves_", low=1, high=n)
        loaded.int_attr(self, "depth_", low=0, high=n)


def _pure(S):  # pragma: no cover - compiled below
    """True when the rows of ``S`` agree on every pair they observe (zero entropy)."""
    for p in range(S.shape[1]):
        first = 3
        for i in range(S.shape[0]):
            st = S[i, p]
            if st == 3:
                continue
            if first == 3:
                first = st
            elif st != first:
                return False
    return True


_nb_pure = numba.njit(_pure, cache=True, nogil=True)


def _leaf_counts(
    S: np.ndarray, w: np.ndarray, leaf_of_row: np.ndarray, n_leaves: int, m: int
) -> tuple[np.ndarray, np.ndarray]:
    """Precedence and tie counts (n_leaves, m, m) of each leaf's rows, from the pair states."""
    n_pairs = S.shape[1]
    counts = np.zeros((n_leaves, n_pairs, 4))
    rows = np.repeat(leaf_of_row, n_pairs)
    pairs = np.tile(np.arange(n_pairs), S.shape[0])
    np.add.at(counts, (rows, pairs, S.ravel()), np.repeat(w, n_pairs))
    u, v = np.triu_indices(m, 1)
    prec = np.zeros((n_leaves, m, m))
    ties = np.zeros((n_leaves, m, m))
    prec[:, u, v] = counts[:, :, 0]
    prec[:, v, u] = counts[:, :, 2]
    ties[:, u, v] = ties[:, v, u] = counts[:, :, 1]
    return prec, ties
