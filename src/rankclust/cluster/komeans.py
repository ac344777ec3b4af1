"""k-o'means for orders (Kamishima & Akaho) -- a re-implementation, the baseline of Ukkonen 2011.

k-o'means is k-means for orders: a cluster is represented by a *central order* of all the items
seen in it, and a chain is assigned to the central order with the smallest dissimilarity
``1 - rho`` (Spearman's rho on the items the two orders share). Two ways to estimate the central
order are implemented:

* ``"tmse"`` (k-o'means-TMSE, Thurstone minimum square error; Kamishima & Akaho 2006/2009): sort
  the items by ``mu_u = mean_v Phi^{-1}(Pr[u before v])`` over the other items of the cluster,
  the least-squares solution of Thurstone's case V model;
* ``"ebc"`` (k-o'means-EBC, expected Borda count): sort the items by their mean expected rank
  in a uniformly random completion of each chain, ``E[r_u | O_i] = r(O_i, u) (L+1)/(L_i+1)`` for
  items of the chain and ``(L+1)/2`` otherwise (L = number of items in the cluster).

**This is a re-implementation from the published descriptions**, not the authors' program (which
Ukkonen 2011 used as TMSE/EBC). Choices the descriptions leave open are documented on
:class:`KOMeans`; do not expect it to reproduce the numbers of those papers exactly.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numba
import numpy as np
import scipy.sparse as sp
from scipy.special import ndtri
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils import check_random_state

from rankclust import _loaded_state as loaded
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
    check_n_clusters,
    check_sample_weight,
)
from rankclust._restarts import (
    chain_max_init,
    report_chain_restarts,
    restart_rounds,
    tied_rows,
)
from rankclust._runs import FitRun
from rankclust.cluster._base import (
    CentersTransformMixin,
    RankingsInputMixin,
    chain_orders,
    check_chains,
    fix_empty_clusters,
    trusted_rankings,
    warn_dropped_clusters,
)
from rankclust.cluster._seeding import KMEANSPP, RowSpace, greedy_kmeanspp
from rankclust.rankings import Rankings

__all__ = ["KOMeans", "central_order_ebc", "central_order_tmse"]

#: Initialisations of :class:`KOMeans`.
INITS = ("random_partition", KMEANSPP)


# --------------------------------------------------------------------------------------------
# kernel
# --------------------------------------------------------------------------------------------
def _order_dissimilarities(orders, lengths, center_pos, kendall, out):  # pragma: no cover
    """``out[i, k]`` = dissimilarity of chain i to central order k on their common items.

    ``center_pos`` (K, m) int64: 0-based position of each item in central order k, -1 absent.
    Spearman: ``1 - rho`` with ``rho = 1 - 6 sum d^2 / (L^3 - L)`` (0 for L < 2 common items,
    i.e. d = 1). Kendall (``kendall=True``): discordant pairs / all pairs (0.5 for L < 2).
    """
    n = orders.shape[0]
    K = center_pos.shape[0]
    buf = np.empty(orders.shape[1], dtype=np.int64)
    for i in range(n):
        Li = lengths[i]
        for k in range(K):
            L = 0
            for a in range(Li):
                p = center_pos[k, orders[i, a]]
                if p >= 0:
                    buf[L] = p
                    L += 1
            if L < 2:
                out[i, k] = 0.5 if kendall else 1.0
                continue
            if kendall:
                disc = 0
                for s in range(L - 1):
                    for t in range(s + 1, L):
                        if buf[s] > buf[t]:
                            disc += 1
                out[i, k] = disc / (L * (L - 1) / 2.0)
            else:
                ss = 0.0
                for t in range(L):
                    r2 = 0
                    for s in range(L):
                        if buf[s] < buf[t]:
                            r2 += 1
                    diff = t - r2
                    ss += diff * diff
                out[i, k] = 6.0 * ss / (L * L * L - L)  # = 1 - rho


_nb_order_dissimilarities = numba.njit(_order_dissimilarities, cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# central orders
# --------------------------------------------------------------------------------------------
def _positions_from_scores(scores: np.ndarray, seen: np.ndarray, descending: bool) -> np.ndarray:
    """(K, m) scores -> (K, m) positions of the seen items sorted by score (-1 unseen)."""
    K, m = scores.shape
    pos = np.full((K, m), -1, dtype=np.int64)
    for k in range(K):
        items = np.flatnonzero(seen[k])
        key = -scores[k, items] if descending else scores[k, items]
        order = items[np.argsort(key, kind="stable")]
        pos[k, order] = np.arange(order.size)
    return pos


def central_order_tmse(C: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Thurstone (case V) least-squares central orders from pair counts (k-o'means-TMSE).

    ``mu_u = mean over the other seen items v of Phi^{-1}(P(u before v))`` with
    ``P = (C(u,v) + 1/2) / (C(u,v) + C(v,u) + 1)`` (the 1/2 keeps the normal quantile finite;
    pairs never seen together get P = 1/2, i.e. 0). Items are sorted by decreasing ``mu``.

    Parameters
    ----------
    C : ndarray of shape (K, m, m)
        Per-cluster pair counts.
    seen : ndarray of bool, shape (K, m)
        Items present in at least one chain of the cluster.

    Returns
    -------
    positions : ndarray of int64, shape (K, m)
        0-based positions in each central order; -1 for unseen items.

    Notes
    -----
    Complexity: O(K m^2) time and memory.
    """
    P = (C + 0.5) / (C + np.swapaxes(C, 1, 2) + 1.0)
    Z = ndtri(P)
    idx = np.arange(C.shape[1])
    Z[:, idx, idx] = 0.0
    mask = seen[:, None, :].astype(np.float64)
    n_other = np.maximum(seen.sum(axis=1, keepdims=True) - 1, 1)
    mu = (Z * mask).sum(axis=2) / n_other
    return _positions_from_scores(mu, seen, descending=True)


def central_order_ebc(
    scaled_ranks: sp.csr_matrix, presence: sp.csr_matrix, Z: sp.csr_matrix
) -> np.ndarray:
    """Expected-Borda-count central orders (k-o'means-EBC).

    ``E[r_u] = (1/W_k) sum_{i in k} w_i E[r_u | O_i]`` with ``E[r_u | O_i] = r(O_i, u)
    (L_k + 1)/(L_i + 1)`` for ``u in O_i`` (1-based rank, L_i the chain length) and
    ``(L_k + 1)/2`` otherwise, ``L_k`` the number of items seen in cluster k (the expected rank
    in a uniform random completion, by order statistics). Items sorted by increasing ``E[r_u]``.

    Parameters
    ----------
    scaled_ranks : csr_matrix of shape (n, m)
        ``r(O_i, u) / (L_i + 1)`` at present items.
    presence : csr_matrix of shape (n, m)
        1 at present items.
    Z : csr_matrix of shape (n, K)
        Weighted one-hot cluster membership.

    Returns
    -------
    positions : ndarray of int64, shape (K, m)

    Notes
    -----
    Complexity: O(sum_i l_i + K m log m) time.
    """
    S1 = np.asarray((Z.T @ scaled_ranks).todense())
    cnt = np.asarray((Z.T @ presence).todense())
    W = np.asarray(Z.sum(axis=0)).reshape(-1, 1)
    seen = cnt > 0
    Lk = seen.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        E = (Lk + 1) * (S1 + (W - cnt) / 2.0) / W
    return _positions_from_scores(np.nan_to_num(E), seen, descending=False)


# --------------------------------------------------------------------------------------------
# initialisation
# --------------------------------------------------------------------------------------------
def _kmeanspp_orders(
    data: _OrderData,
    n_clusters: int,
    kendall: bool,
    rng: np.random.RandomState,
    n_local_trials: int | None = None,
) -> np.ndarray:
    """Greedy k-means++ seeding with the k-o'means dissimilarity (trusted input).

    The first seed is an order drawn with probability proportional to its weight ``w_i``; each
    further seed is the best (lowest total ``sum_i w_i min_s d(O_i, O_s)``) of
    ``n_local_trials`` orders drawn with probability proportional to ``w_i D_i``, ``D_i`` the
    dissimilarity of order i to its closest seed so far (scikit-learn's greedy k-means++; the
    loop is :func:`rankclust.cluster._seeding.greedy_kmeanspp` over a ``RowSpace``).
    An order serves as a central order as it is: its rank row is the position vector the
    dissimilarity kernel takes (items it lacks are absent). When every ``D_i`` is 0 (fewer
    distinct orders than clusters) the draw falls back to the weights.

    Parameters
    ----------
    data : _OrderData
    n_clusters : int
    kendall : bool
        Normalised Kendall distance instead of ``1 - rho``.
    rng : RandomState
    n_local_trials : int, optional
        Candidates per seed; default ``2 + int(log(n_clusters))``.

    Returns
    -------
    seeds : ndarray of int64, shape (n_clusters,)
        Row indices of the seed orders.

    Notes
    -----
    Complexity: O(K t sum_i l_i^2) time with t local trials, O(n t) memory.
    """
    space = RowSpace(data.w, lambda rows: data.dissimilarities(data.R.ranks[rows], kendall))
    seeds = greedy_kmeanspp(space, n_clusters, rng, n_local_trials)
    return np.asarray(seeds, dtype=np.int64)


def _nearest_seed_labels(
    data: _OrderData, seeds: np.ndarray, kendall: bool, rng: np.random.RandomState
) -> np.ndarray:
    """Each order joins its most similar seed; exact ties are broken uniformly at random.

    Random ties matter: an order sharing fewer than two items with every seed is equally far
    from all of them, and sending all such orders to seed 0 would start from one huge cluster.
    """
    D = data.dissimilarities(data.R.ranks[seeds], kendall)
    tied = D <= D.min(axis=1, keepdims=True)
    return np.argmax(np.where(tied, rng.random_sample(D.shape), -1.0), axis=1).astype(np.int64)


# --------------------------------------------------------------------------------------------
# estimator
# --------------------------------------------------------------------------------------------
class KOMeans(
    RankingsInputMixin,
    CentersTransformMixin,
    ValidatedParamsMixin,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
    BaseEstimator,
):
    """k-o'means clustering of orders (Kamishima & Akaho), **re-implemented**.

    A scikit-learn clusterer and transformer: :meth:`transform` maps orders to their
    dissimilarities to the central orders (``fit_transform`` and ``get_feature_names_out`` come
    from scikit-learn's mixins). The input ``R`` is rankings, not a feature matrix.

    Parameters
    ----------
    n_clusters : int, default=8
    centroid : {"tmse", "ebc"}, default="tmse"
        Central-order estimator: Thurstone least squares (k-o'means-TMSE) or expected Borda
        count (k-o'means-EBC); see the module docstring.
    metric : {"spearman", "kendall"}, default="spearman"
        Dissimilarity on common items: ``1 - rho`` (Spearman, as in the original; 0..2, and 1
        when fewer than two items are shared) or the normalised Kendall distance (0..1, 0.5
        when fewer than two items are shared).
    init : {"k-means++", "random_partition"}, default="k-means++"
        Initialisation of each restart:

        * ``"random_partition"`` -- uniform random labels (Kamishima & Akaho's algorithm);
        * ``"k-means++"`` -- k-means++ seeding (Arthur & Vassilvitskii 2007) with the
          dissimilarity ``d`` of ``metric``: the first seed is an order drawn in proportion
          to its weight, each further seed the best of ``2 + int(log K)`` orders drawn with
          probability proportional to ``w_i D_i`` (``D_i`` = dissimilarity of order i to its
          closest seed); each order then joins its closest seed (ties at random). For
          Spearman, ``1 - rho`` is proportional to the squared Euclidean distance of the rank
          vectors on the common items, so this is the D^2 weighting of k-means++.
    n_init : int or "auto", default="auto"
        Restarts; the partition with the smallest total dissimilarity is kept (the first of
        equal ones). ``"auto"``: rounds of 10 restarts until ``n_agree`` restarts reached the
        best fit (objective within 1e-6 relative, same partition up to relabelling on the
        orders that are nearer to one central order than to the others), or ``max_init``
        restarts were made; the first round is the fit of ``n_init=10``. An integer: that
        many restarts. See "Do the restarts agree?" in ``docs/chains.md``.
    max_init : int or None, default=None
        Budget of restarts with ``n_init="auto"``; None: 1000 when an iteration is cheap
        (``(n + sum_i l_i (l_i - 1) / 2) K + K m^2 <= 5e4``, about 1 ms per restart),
        else 30.
    n_agree : int, default=5
        Agreeing restarts after which ``n_init="auto"`` stops; fewer at the end of the
        budget give a ``ConvergenceWarning`` (as for :class:`ChainKMeans`).
    max_iter : int, default=100
    empty_cluster : {"reseed", "drop"}, default="reseed"
        ``"reseed"`` moves the chain with the largest dissimilarity to its centre into an empty
        cluster; ``"drop"`` removes the cluster (:attr:`n_clusters_` reports the effective K,
        and an :class:`~rankclust.exceptions.EmptyClusterWarning` says so).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n,)
    centers_ : Rankings of shape (n_clusters_, m)
        The central orders (items never seen in a cluster are absent).
    objective_ : float
        Total dissimilarity ``sum_i w_i d(O_i, O_{labels_i})`` (Kamishima & Akaho's Eq. 15.8).
    inertia_ : float
        Alias of :attr:`objective_`.
    n_iter_ : int
    n_clusters_ : int
        Number of non-empty clusters (< ``n_clusters`` only with ``empty_cluster="drop"``,
        with an :class:`~rankclust.exceptions.EmptyClusterWarning`).
    n_init_ : int
        Restarts made.
    n_init_agreeing_ : int
        Restarts whose objective is within a relative ``1e-6`` of the best and whose
        partition equals the best one up to relabelling (the best included; orders at equal
        dissimilarity from two or more central orders of the kept fit, among them every
        order of fewer than two items, have an arbitrary cluster and are not compared). With
        an integer ``n_init``, a ``ConvergenceWarning`` says when a restart as good as the
        best found another partition or when no other restart reached the best objective;
        with ``"auto"``, when fewer than ``n_agree`` restarts agree at the end of the budget.
    restart_gap_ : float
        Relative objective gap ``(f - f_best) / max(1, f_best)`` between the kept fit and
        the best restart with a different partition (``inf`` if there is none; with
        ``"auto"`` among the 20 best restarts); with ``"auto"``, at most 1e-4 gives a
        ``ConvergenceWarning``.
    n_tied_ : float
        Total weight of the orders of two or more items at equal dissimilarity from two or
        more central orders of the kept fit (the number of such orders for unweighted data).
        The assignment keeps an order in its cluster on ties, so their labels come from the
        start: restarts that reach the same central orders differ on these orders only.
    n_items_ : int
    items_ : tuple of str or None
        Item names of the training rankings (None when unnamed); named input to the
        prediction methods is matched to them by name (see
        :func:`rankclust.rankings.check_rankings`).

    See Also
    --------
    ChainKMeans : Ukkonen's pairwise k-means for chains.

    Notes
    -----
    The algorithm (Kamishima & Akaho 2009, Fig. 15.1): random partition; repeat {central order
    per cluster; assign each order to the most similar central order} until no order moves or
    ``max_iter`` (``init="k-means++"`` replaces the random partition by a seeding). Choices not
    fixed by the descriptions: the 1/2 smoothing of the pair probabilities in TMSE,
    dissimilarity 1 (rho = 0) with fewer than two common items, ties in the assignment keep the
    current cluster, then the lowest index.

    k-means++ against the random partition, one restart each (``n_init=1``), 12 seeds of an
    8-component Mallows mixture of complete rankings (``make_mallows_mixture(480, 12, 8,
    thetas=1.0)``): ARI >= 0.9 in 10 / 5 runs (Spearman, TMSE), in about half the Lloyd
    iterations. On partial orders of Mallows mixtures with fewer components the two are close.
    On the APA 1998 ballots read as chains (K=3, ``n_init="auto"``, seeds 0..9) k-means++
    reached the lowest objective in every seed, the random partition in 9 of 10 (2 distinct
    partitions; ``experiments/studies/mixture_seed_stability.py``), so k-means++ is the default;
    pass ``init="random_partition"`` for the published algorithm.

    Complexity: O(n m + sum_i l_i^2 K + K m^2) time per iteration, O(n K + K m^2) memory;
    the k-means++ seeding adds O(K log K sum_i l_i^2) time per restart. Restarts: ``n_init``,
    or with ``"auto"`` 10 to ``max_init`` (the labels of at most the 20 best are kept).

    Restarts on APA 1998 read as chains (K = 3): the lowest objective, found by exhaustive
    search over all triples of central orders, is reached by about 2 in 1000 random-partition
    restarts (5-6 in 1000 with k-means++), so the default budget rarely confirms it
    ``n_agree`` times and warns; see "Do the restarts agree?" in ``docs/chains.md``.

    References
    ----------
    T. Kamishima and J. Fujiki, "Clustering orders", Discovery Science 2003.
    T. Kamishima and S. Akaho, "Efficient clustering for orders", ICDM workshops 2006; and in
    *Mining Complex Data*, Studies in Computational Intelligence 165, Springer 2009, 261-279.
    D. Arthur and S. Vassilvitskii, "k-means++: the advantages of careful seeding", SODA 2007.

    Examples
    --------
    >>> from rankclust.cluster import KOMeans, make_planted_chains
    >>> R, y = make_planted_chains(300, n_items=10, length=6, n_clusters=2, random_state=0)
    >>> km = KOMeans(n_clusters=2, random_state=0).fit(R)
    >>> from sklearn.metrics import adjusted_rand_score
    >>> adjusted_rand_score(y, km.labels_) > 0.9
    True
    >>> km = KOMeans(n_clusters=2, init="k-means++", n_init=1, random_state=0)
    >>> D = km.fit_transform(R)  # dissimilarity of each order to each central order
    >>> D.shape, adjusted_rand_score(y, km.labels_) > 0.9
    ((300, 2), True)
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(int, 1, None)],
        "centroid": [StrOptions({"tmse", "ebc"})],
        "metric": [StrOptions({"spearman", "kendall"})],
        "init": [StrOptions(set(INITS))],
        "n_init": [Interval(int, 1, None), StrOptions({"auto"})],
        "max_init": [Interval(int, 1, None), None],
        "n_agree": [Interval(int, 1, None)],
        "max_iter": [Interval(int, 1, None)],
        "empty_cluster": [StrOptions({"reseed", "drop"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_clusters: int = 8,
        *,
        centroid: str = "tmse",
        metric: str = "spearman",
        init: str = "k-means++",
        n_init: int | str = "auto",
        max_init: int | None = None,
        n_agree: int = 5,
        max_iter: int = 100,
        empty_cluster: str = "reseed",
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.centroid = centroid
        self.metric = metric
        self.init = init
        self.n_init = n_init
        self.max_init = max_init
        self.n_agree = n_agree
        self.max_iter = max_iter
        self.empty_cluster = empty_cluster
        self.random_state = random_state

    def fit(self, R: Any, y: Any = None, sample_weight: Any = None) -> KOMeans:
        """Cluster the orders.

        Parameters
        ----------
        R : Rankings or array-like of shape (n, m)
            Tie-free orders (``kind="subset"``); arrays are 1-based ranks, 0 = absent.
        y : ignored
        sample_weight : array-like of shape (n,), optional
            Multiplies the rankings' own weights.

        Returns
        -------
        self : KOMeans
        """
        self._validate_params()
        R = check_chains(R)
        n, K = R.n_rankings, self.n_clusters
        check_n_clusters(K, n, what="orders")
        sw = None
        if sample_weight is not None:
            sw = check_sample_weight(sample_weight, n)
            if n and not (R.weights * sw).sum() > 0:
                raise ValueError("the weights of the orders sum to zero")
        rng = check_random_state(self.random_state)
        data = _OrderData(R, sw)
        kendall = self.metric == "kendall"
        lengths = R.lengths.astype(np.float64)

        def start() -> FitRun:
            if self.init == KMEANSPP:
                seeds = _kmeanspp_orders(data, K, kendall, rng)
                labels0 = _nearest_seed_labels(data, seeds, kendall, rng)
            else:
                labels0 = rng.randint(K, size=n).astype(np.int64)
            return self._single_run(data, labels0)

        def untied(run: FitRun) -> np.ndarray:
            # an order equally far from two central orders (every order sharing fewer than
            # two items with them) has an arbitrary cluster: not a disagreement
            return ~tied_rows(data.dissimilarities(run.params["centers"], kendall))

        best, search = restart_rounds(
            start,
            lambda run: run.objective,
            lambda run: run.labels,
            n_init=self.n_init,
            budget=chain_max_init(
                self.max_init, n, float((lengths * (lengths - 1) / 2).sum()), R.n_items, K
            ),
            n_agree=self.n_agree,
            rows_of=untied,
        )
        self.n_tied_ = float(data.w[~search["rows"] & (R.lengths >= 2)].sum())
        report_chain_restarts(self, "KOMeans", search, self.n_init, "objective")
        if not best.converged:
            warnings.warn(
                f"KOMeans did not converge in max_iter={self.max_iter} iterations",
                ConvergenceWarning,
                stacklevel=2,
            )
        pos = best.params["centers"]
        self.labels_ = best.labels
        self.objective_ = best.objective
        self.inertia_ = best.objective
        self.n_iter_ = best.n_iter
        self.n_clusters_ = pos.shape[0]
        self.n_items_ = R.n_items
        self.items_ = R.items
        self.centers_ = trusted_rankings(pos)._replace(items=R.items)
        warn_dropped_clusters("KOMeans", K, self.n_clusters_)
        return self

    def _centers(self, data: _OrderData, labels: np.ndarray, K: int) -> np.ndarray:
        if self.centroid == "tmse":
            C = data.R.pairwise_counts(data.sw, labels=labels, n_groups=K)
            seen = np.asarray((data.onehot(labels, K, weighted=False).T @ data.presence).todense())
            return central_order_tmse(C, seen > 0)
        return central_order_ebc(data.scaled, data.presence, data.onehot(labels, K))

    def _single_run(self, data: _OrderData, labels: np.ndarray) -> FitRun:
        K = self.n_clusters
        n = len(labels)
        dist = np.full(n, np.inf)
        labels, K = fix_empty_clusters(labels, K, dist, self.empty_cluster)
        converged = False
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):  # noqa: B007 - n_iter is reported
            D = data.dissimilarities(self._centers(data, labels, K), self.metric == "kendall")
            new = np.argmin(D, axis=1).astype(np.int64)
            keep = D[np.arange(n), labels] <= D[np.arange(n), new]
            new[keep] = labels[keep]
            dist = D[np.arange(n), new]
            new, K = fix_empty_clusters(new, K, dist, self.empty_cluster)
            if np.array_equal(new, labels):
                converged = True
                break
            labels = new
        pos = self._centers(data, labels, K)
        D = data.dissimilarities(pos, self.metric == "kendall")
        err = float(np.sum(data.w * D[np.arange(n), labels]))
        return FitRun(
            objective=err,
            n_iter=n_iter,
            converged=converged,
            params={"centers": pos},
            labels=labels,
        )

    def _check_input(self, R: Any) -> Rankings:
        if not hasattr(self, "centers_"):
            raise NotFittedError("KOMeans is not fitted yet; call fit first")
        return check_chains(R, n_items=self.n_items_, items=self.items_)

    def transform(self, R: Any) -> np.ndarray:
        """Dissimilarity of every order to every central order, shape (n, n_clusters_)."""
        R = self._check_input(R)
        return _OrderData(R).dissimilarities(self.centers_.ranks, self.metric == "kendall")

    def predict(self, R: Any) -> np.ndarray:
        """Most similar central order (lowest index on ties), shape (n,)."""
        return np.argmin(self.transform(R), axis=1).astype(np.int64)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        m = loaded.int_attr(self, "n_items_", low=1)
        loaded.items_attr(self, n_items=m)
        k = loaded.int_attr(self, "n_clusters_", low=1)
        # an item that no order of a cluster holds is absent from its central order
        loaded.rankings_attr(self, "centers_", n_items=m, n_rankings=k, ties=False)
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0, high=k - 1)


class _OrderData:
    """The per-fit views of the data the k-o'means steps need (trusted input).

    ``sw`` are sample weights on top of ``R.weights`` (None = none); ``w`` is their product.
    """

    def __init__(self, R: Rankings, sw: np.ndarray | None = None) -> None:
        self.R = R
        self.sw = sw
        self.w = R.weights if sw is None else R.weights * sw
        self.orders, self.lengths = chain_orders(R)
        rows, cols = np.nonzero(R.ranks >= 0)
        shape = R.shape
        self.presence = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=shape)
        scaled = (R.ranks[rows, cols] + 1.0) / (self.lengths[rows] + 1.0)
        self.scaled = sp.csr_matrix((scaled, (rows, cols)), shape=shape)

    def onehot(self, labels: np.ndarray, K: int, *, weighted: bool = True) -> sp.csr_matrix:
        n = len(labels)
        vals = self.w if weighted else np.ones(n)
        return sp.csr_matrix((vals, (np.arange(n), labels)), shape=(n, K))

    def dissimilarities(self, center_pos: np.ndarray, kendall: bool) -> np.ndarray:
        out = np.empty((len(self.lengths), center_pos.shape[0]))
        # (K, m) centres as int64 whatever their source: one compiled specialisation
        _nb_order_dissimilarities(
            self.orders,
            self.lengths,
            np.ascontiguousarray(center_pos, dtype=np.int64),
            kendall,
            out,
        )
        return out
