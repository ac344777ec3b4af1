"""Rank clustering followed by a feature rule: naive_RT, ebms_RT and Ko'm_RT (Grbovic et al. 2013).

Stage 1 clusters the *rankings* alone into K central rankings; stage 2 grows a decision tree on
the features whose leaves may only carry one of those K rankings (the "KTree", minimising
eq. 18 on the original rankings), so that a new instance is assigned from its features. The
three variants of the paper differ in stage 1 only:

* ``clusterer="naive"`` (naive_RT, sec. 3.2.2): complete every incomplete ranking by its most
  probable extension under the modified Borda ranking of its 20 nearest neighbours in feature
  space, then take the K most frequent complete rankings;
* ``clusterer="mallows_mixture"`` (ebms_RT): the paper used Meila's EBMS software, which is not
  available; rankclust substitutes its EM for Mallows mixtures
  (:class:`rankclust.cluster.mixture.MallowsMixture`), which clusters incomplete rankings too
  (decisions.md G6: do not expect the paper's ebms_RT numbers);
* ``clusterer="komeans"`` (Ko'm_RT): Kamishima & Akaho's k-o'means with the expected Borda count
  centre (the modified Borda count) and Kendall's distance
  (:class:`rankclust.cluster.KOMeans`).
"""

from __future__ import annotations

from numbers import Integral
from typing import Any, ClassVar

import numba
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.neighbors import NearestNeighbors

from rankclust import _loaded_state as loaded
from rankclust._compiled import closest_extension
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
)
from rankclust.consensus import generalized_borda_votes
from rankclust.models.mallows import most_probable_extension
from rankclust.rankings import Rankings
from rankclust.supervised._base import (
    SupervisedClusteringMixin,
    central_ranking,
    distances_to_centers,
    positions_from_scores,
    remap_tree_values,
    used_clusters,
)
from rankclust.supervised._ktree import KTree

__all__ = ["RankClusteringTree", "naive_rank_clusters"]


def _extend_rows(ranks, centers, out):  # pragma: no cover - compiled below
    """Complete row i of ``ranks`` by its most probable extension under ``centers[i]``."""
    for i in range(ranks.shape[0]):
        closest_extension(ranks[i : i + 1], centers[i], out[i : i + 1])


_nb_extend_rows = numba.njit(_extend_rows, cache=True, nogil=True)


def _complete_by_neighbours(X: np.ndarray, Y: Rankings, n_neighbors: int) -> np.ndarray:
    """Complete rankings: row n's missing labels by the modified Borda of its neighbours.

    Returns a complete rank matrix (n, m). Complete rows are unchanged.
    """
    ranks = np.ascontiguousarray(Y.ranks)
    incomplete = np.flatnonzero(Y.lengths < Y.n_items)
    if incomplete.size == 0:
        return ranks.copy()
    n = X.shape[0]
    k = min(n_neighbors, n - 1)
    votes = generalized_borda_votes(Y)
    if k >= 1:
        # kneighbors() without a query excludes each point itself
        nbrs = NearestNeighbors(n_neighbors=k).fit(X).kneighbors(return_distance=False)
        local = votes[nbrs[incomplete]].sum(axis=1)
    else:
        local = np.broadcast_to(votes.sum(axis=0), (incomplete.size, Y.n_items))
    centers = np.ascontiguousarray(positions_from_scores(local))
    out = ranks.copy()
    sub = np.empty((incomplete.size, Y.n_items), dtype=np.int64)
    _nb_extend_rows(np.ascontiguousarray(ranks[incomplete]), centers, sub)
    out[incomplete] = sub
    return out


def naive_rank_clusters(
    X: np.ndarray, Y: Rankings, n_clusters: int, n_neighbors: int = 20
) -> tuple[np.ndarray, np.ndarray]:
    """Stage 1 of naive_RT: the K most frequent (completed) rankings.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Features (already scaled) for the neighbourhoods of incomplete rankings.
    Y : Rankings of shape (n, m)
        Tie-free subset rankings.
    n_clusters : int
    n_neighbors : int, default=20
        ``K_mal`` of the paper.

    Returns
    -------
    centers : ndarray of int64, shape (K_eff, m)
        Position vectors, most frequent first (equal counts: earlier first occurrence).
        ``K_eff = min(K, number of distinct completed rankings)``.
    labels : ndarray of int64, shape (n,)
        Nearest centre of each completed ranking (Kendall; lowest index on ties).

    Notes
    -----
    Complexity: O(n log n d) for the neighbours (tree search) plus O(n m^2) for the
    completions and O(n K m^2) for the assignment; O(n (m + n_neighbors)) memory.
    """
    full = _complete_by_neighbours(X, Y, n_neighbors)
    uniq, first, counts = np.unique(full, axis=0, return_index=True, return_counts=True)
    order = np.lexsort((first, -counts))[:n_clusters]
    centers = uniq[order]
    D = distances_to_centers(Rankings._from_trusted(full), centers)
    return centers.astype(np.int64), np.argmin(D, axis=1).astype(np.int64)


class RankClusteringTree(SupervisedClusteringMixin, ValidatedParamsMixin, BaseEstimator):
    """Cluster the rankings, then learn a tree that assigns instances to the clusters.

    Grbovic et al.'s "rank clustering -> feature rule" family: naive_RT, ebms_RT and Ko'm_RT
    (sec. 3.2.2). Stage 1 finds K central rankings from the rankings alone; stage 2 grows a
    KTree: at every node the axis-parallel split minimising
    ``min_k sum_{T-} d(pi_n, rho_k) + min_k sum_{T+} d(pi_n, rho_k)`` (eq. 18) on the
    *original* rankings, stopping when both sides carry the same ranking or ``|T| <=
    min_node``. A new instance gets the ranking of its leaf.

    Parameters
    ----------
    n_clusters : int, default=10
        K.
    clusterer : {"naive", "mallows_mixture", "komeans"}, default="komeans"
        Stage 1: the K most frequent rankings (naive_RT), an EM Mallows mixture standing in
        for EBMS (ebms_RT), or k-o'means (Ko'm_RT); see the module docstring.
    n_neighbors : int, default=20
        Neighbourhood of the naive completion of incomplete rankings (``K_mal``).
    min_node : int, default=5
        A node with at most this many instances becomes a leaf.
    growth : {"full", "literal"}, default="full"
        ``"literal"``: a node becomes a leaf as soon as the best split of eq. (18) carries the
        same ranking on both sides (Algorithm 1, step 3.4, verbatim). ``"full"``: when no
        split lowers eq. (18) at once, split where the squared error of the expected label
        positions drops most, grow to ``min_node``, then collapse every subtree that does not
        lower the training loss. The literal rule leaves the tree a stump whenever no single
        cut lowers the loss (the nested regions of ``circle``); see the docs.
    standardize : bool, default=True
        z-score the features for the naive neighbourhoods (the tree is scale-free).
    n_init : int, default=10
        Restarts of the stage-1 clusterer (k-o'means, mixture).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    central_rankings_ : Rankings of shape (n_clusters_, n_items_)
        The stage-1 central rankings (complete) that a leaf of the tree carries. A stage-1
        ranking no leaf carries (an empty cluster in feature space; e.g. two k-o'means
        centres that coincide once completed) is dropped with an
        :class:`~rankclust.exceptions.EmptyClusterWarning` and the others renumbered.
    fit_labels_ : ndarray of int64, shape (n,)
        Stage-1 cluster of each training ranking, in the numbering of
        :attr:`central_rankings_`; a ranking whose stage-1 cluster was dropped gets the
        nearest kept central ranking (raw Kendall distance, lowest index on ties).
    labels_ : ndarray of int64, shape (n,)
        Cluster of each training instance under the tree (the feature rule).
    tree_ : KTree
        Arrays ``feature``, ``threshold``, ``left``, ``right``, ``value`` (cluster of each
        node) and ``n_node_samples``.
    clusterer_ : estimator or None
        The fitted stage-1 clusterer (None for "naive"), in its own numbering.
    n_clusters_ : int
        Number of clusters returned (the stage-1 rankings the tree uses); below
        ``n_clusters`` only with an ``EmptyClusterWarning``.
    n_init_agreeing_ : int
        The stage-1 clusterer's ``n_init_agreeing_`` (1 for "naive" or when it has none).
    n_items_, n_features_in_, scaler_
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    Incomplete rankings: the tree minimises eq. (18) with the raw Kendall distance on the
    observed pairs (a ranking with few labels has few pairs and weighs less); a stage-1 centre that misses labels (k-o'means centres only hold the labels
    seen in their cluster) is completed by its most probable extension under the central
    ranking of all the data.

    Complexity: stage 1 -- naive O(n log n d + n K m^2), k-o'means O(n_init T (n m + n K m^2)),
    mixture see :class:`~rankclust.cluster.mixture.MallowsMixture`; stage 2 O(n K m^2) for the
    distances plus O(d n K) per tree level (O(d n K log n) balanced). Memory O(n (d + K + m^2)).

    References
    ----------
    Grbovic, M., Djuric, N., Guo, S. and Vucetic, S. (2013). Supervised clustering of label
    ranking data using label preference information. Machine Learning 93, 191-225,
    sec. 3.2.2.

    Kamishima, T. and Akaho, S. (2009). Efficient clustering for orders. In Mining Complex
    Data, Springer, 261-279.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.supervised import RankClusteringTree
    >>> X = np.r_[np.zeros((10, 1)), np.ones((10, 1))]
    >>> Y = [[1, 2, 3]] * 10 + [[3, 2, 1]] * 10
    >>> est = RankClusteringTree(n_clusters=2, clusterer="naive").fit(X, Y)
    >>> est.predict_ranking([[0.0], [1.0]])
    array([[1, 2, 3],
           [3, 2, 1]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "clusterer": [StrOptions({"naive", "mallows_mixture", "komeans"})],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "min_node": [Interval(Integral, 1, None, closed="left")],
        "growth": [StrOptions({"full", "literal"})],
        "standardize": ["boolean"],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_clusters: int = 10,
        *,
        clusterer: str = "komeans",
        n_neighbors: int = 20,
        min_node: int = 5,
        growth: str = "full",
        standardize: bool = True,
        n_init: int = 10,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.clusterer = clusterer
        self.n_neighbors = n_neighbors
        self.min_node = min_node
        self.growth = growth
        self.standardize = standardize
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, X: Any, Y: Any) -> RankClusteringTree:
        """Cluster the rankings (stage 1) and grow the tree (stage 2).

        Parameters
        ----------
        X : array-like of shape (n, d)
        Y : Rankings or array-like of 1-based ranks (0/NaN missing), shape (n, m)

        Returns
        -------
        self : RankClusteringTree
        """
        X, Y, K, rng = self._begin_fit(X, Y)
        Xt = self._fit_scaler(X, self.standardize)
        self.clusterer_ = None
        if self.clusterer == "naive":
            centers, fit_labels = naive_rank_clusters(Xt, Y, K, self.n_neighbors)
        else:
            centers, fit_labels = self._cluster_rankings(Y, K, rng)
        D = distances_to_centers(Y, centers, normalize=False)  # eq. (18): raw d_tau
        V = generalized_borda_votes(Y) if self.growth == "full" else None
        tree = KTree(self.min_node, self.growth).fit(Xt, D, V)
        # a stage-1 ranking no leaf carries (e.g. a duplicate of another centre) is an empty
        # cluster in feature space: drop it, renumber the others
        keep, remap = used_clusters(tree.predict(Xt), centers.shape[0])
        if keep.size < centers.shape[0]:
            remap_tree_values(tree, remap)
            centers = centers[keep]
            fit_labels = remap[fit_labels]
            lost = fit_labels < 0
            if lost.any():  # their stage-1 cluster was dropped: the nearest kept centre
                fit_labels[lost] = np.argmin(D[lost][:, keep], axis=1)
        self.tree_ = tree
        self._set_centers(centers)
        self._warn_fewer_clusters(
            K, "fewer distinct stage-1 rankings, or no leaf of the tree carries their ranking"
        )
        self.n_init_agreeing_ = getattr(self.clusterer_, "n_init_agreeing_", 1)
        self.fit_labels_ = fit_labels.astype(np.int64)
        self.labels_ = self.tree_.predict(Xt)
        return self

    def _cluster_rankings(
        self, Y: Rankings, K: int, rng: np.random.RandomState
    ) -> tuple[np.ndarray, np.ndarray]:
        if self.clusterer == "komeans":
            from rankclust.cluster import KOMeans

            model = KOMeans(
                K,
                centroid="ebc",
                metric="kendall",
                init="random_partition",
                n_init=self.n_init,
                random_state=rng,
            ).fit(Y)
            centers = np.asarray(model.centers_.ranks)
            labels = np.asarray(model.labels_, dtype=np.int64)
        else:
            from rankclust.cluster.mixture import MallowsMixture

            # a mixture cannot have more components than distinct rankings (iris: 3! = 6)
            k_mix = min(K, Y.unique()[0].n_rankings)
            model = MallowsMixture(n_components=k_mix, n_init=self.n_init, random_state=rng)
            model.fit(Y)
            centers = np.asarray(model.centers_.ranks)
            labels = np.asarray(model.labels_, dtype=np.int64)
        self.clusterer_ = model
        return _complete_centers(Y, centers), labels

    def _predict_cluster(self, X: np.ndarray) -> np.ndarray:
        return self.tree_.predict(X)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d, _, k = self._validate_loaded_common()
        loaded.estimator_attr(self, "tree_", KTree)
        self.tree_._validate_for(d, k, "tree_")
        loaded.array_attr(self, "fit_labels_", kind="i", ndim=1, low=0, high=k - 1)


def _complete_centers(Y: Rankings, centers: np.ndarray) -> np.ndarray:
    """Complete partial centres by their most probable extension under the overall centre."""
    partial = (centers < 0).any(axis=1)
    if not partial.any():
        return centers.astype(np.int64)
    overall = central_ranking(Y)
    out = centers.astype(np.int64).copy()
    out[partial] = most_probable_extension(Rankings(centers[partial]), overall).ranks
    return out
