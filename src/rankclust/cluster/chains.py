"""k-means for chains with pair-order centroids (Ukkonen 2011, Section 2).

A chain is a strict order on a subset of the items (a tie-free row of a ``kind="subset"``
:class:`~rankclust.Rankings`; the rank-matrix convention is defined in :mod:`rankclust.rankings`).
The centroid of a set of chains is the *probabilistic order relation*

.. math:: X(u, v) = C(u, v) / (C(u, v) + C(v, u))            (Eq. 4)

built from the pair counts ``C`` (:meth:`Rankings.pairwise_counts`), and the distance of a chain
``pi`` to a centroid is ``d(pi, X) = sum_{(u, v) in pi} X(v, u)^2`` (Eq. 2), summed over all
ordered pairs of the chain. Everything reduces to per-cluster pair counts: a Lloyd iteration is
one pass of the pair-count kernel and one pass of the assignment kernel below.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numba
import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from rankclust import _loaded_state as loaded
from rankclust._dask import (
    DaskExecutor,
    EagerExecutor,
    as_chunked,
    is_dask_collection,
    map_method,
)
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
from rankclust.rankings import Rankings

__all__ = ["ChainKMeans", "chain_centroid", "chain_cost", "chain_distance"]

INITS = ("random_partition", "random_orders", "hypersphere", "graph", "k-means++")

#: Initialisations that need no global embedding, hence run on Dask.
DASK_INITS = ("random_partition", "random_orders")


# --------------------------------------------------------------------------------------------
# kernels (private: inputs trusted)
# --------------------------------------------------------------------------------------------
def _chain_costs(orders, lengths, cost, out):  # pragma: no cover - compiled below
    """``out[i, k] = sum over pairs (a < b) of chain i of cost[orders[i, a], orders[i, b], k]``.

    ``orders`` (n, w) int32 (-1 padded), ``lengths`` (n,) int64, ``cost`` (m, m, K) float64,
    ``out`` (n, K) float64 (overwritten).
    """
    n = orders.shape[0]
    K = cost.shape[2]
    for i in range(n):
        for k in range(K):
            out[i, k] = 0.0
        L = lengths[i]
        for a in range(L - 1):
            u = orders[i, a]
            for b in range(a + 1, L):
                v = orders[i, b]
                for k in range(K):
                    out[i, k] += cost[u, v, k]


def _assign_chains(orders, lengths, cost, labels, out_labels, out_dist):  # pragma: no cover
    """Nearest centroid of every chain; one pass, O(sum_i l_i^2 K).

    Ties keep the current label ``labels[i]`` when it is among the minima (``-1`` = none),
    otherwise take the lowest index; this makes Lloyd's iteration terminate.
    """
    n = orders.shape[0]
    K = cost.shape[2]
    d = np.empty(K)
    for i in range(n):
        for k in range(K):
            d[k] = 0.0
        L = lengths[i]
        for a in range(L - 1):
            u = orders[i, a]
            for b in range(a + 1, L):
                v = orders[i, b]
                for k in range(K):
                    d[k] += cost[u, v, k]
        best = 0
        for k in range(1, K):
            if d[k] < d[best]:
                best = k
        cur = labels[i]
        if cur >= 0 and d[cur] <= d[best]:
            best = cur
        out_labels[i] = best
        out_dist[i] = d[best]


_nb_chain_costs = numba.njit(_chain_costs, cache=True, nogil=True)
_nb_assign_chains = numba.njit(_assign_chains, cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# the mathematics of Section 2 on count matrices
# --------------------------------------------------------------------------------------------
def _centroids_from_counts(C: np.ndarray, alpha: float = 0.0) -> np.ndarray:
    """Eq. 4 on (..., m, m) counts; unseen pairs (0/0) get 0.5, the diagonal 0.5."""
    Ct = np.swapaxes(C, -1, -2)
    num = C + alpha
    den = C + Ct + 2.0 * alpha
    with np.errstate(invalid="ignore", divide="ignore"):
        X = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.5)
    idx = np.arange(C.shape[-1])
    X[..., idx, idx] = 0.5
    return X


def _cost_tensor(X: np.ndarray) -> np.ndarray:
    """(K, m, m) centroids -> (m, m, K) ``cost[u, v, k] = X_k(v, u)^2`` (C order, for kernels)."""
    return np.ascontiguousarray((X * X).transpose(2, 1, 0))


def _counts_cost(C: np.ndarray, X: np.ndarray) -> float:
    """Eq. 3: ``sum_{u, v} C(u, v) X(v, u)^2`` summed over the leading (cluster) axis."""
    return float(np.sum(C * np.swapaxes(X, -1, -2) ** 2))


def chain_cost(C: np.ndarray) -> float | np.ndarray:
    """Closed-form cost of the optimal centroid: ``sum_{u<v} C(u,v) C(v,u) / (C(u,v) + C(v,u))``.

    This is Eq. 3 evaluated at Eq. 4 and equals the sum of :func:`chain_distance` of the chains
    to their own centroid. It depends on the data only through ``C``, so it is invariant under
    the swap randomisation (:class:`~rankclust.cluster.SwapSampler`); with ``K = 1`` it is the
    baseline error used to normalise the reconstruction error.

    Parameters
    ----------
    C : ndarray, shape (m, m) or (K, m, m)
        Pair counts (:meth:`Rankings.pairwise_counts`).

    Returns
    -------
    float, or ndarray of shape (K,) for stacked counts.

    Notes
    -----
    Complexity: O(K m^2) time and memory.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2], [1, 0, 2], [0, 2]], n_items=3)
    >>> float(chain_cost(R.pairwise_counts()))
    0.5
    """
    C = np.asarray(C, dtype=np.float64)
    Ct = np.swapaxes(C, -1, -2)
    den = C + Ct
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(den > 0, C * Ct / np.where(den > 0, den, 1.0), 0.0)
    out = terms.sum(axis=(-1, -2)) / 2.0  # each unordered pair counted twice
    return float(out) if np.ndim(out) == 0 else out


def chain_centroid(R: Any, sample_weight: Any = None, *, alpha: float = 0.0) -> np.ndarray:
    """Optimal centroid of a set of chains (Ukkonen 2011, Eq. 4).

    Parameters
    ----------
    R : Rankings or array-like of shape (n, m)
        Chains (``kind="subset"``, no ties); arrays are 1-based ranks with 0 for absent items.
    sample_weight : array-like of shape (n,), optional
        Multiplies the rankings' own weights.
    alpha : float, default=0.0
        Additive smoothing: ``X(u, v) = (C(u,v) + alpha) / (C(u,v) + C(v,u) + 2 alpha)``.
        ``alpha = 0`` is the paper's centroid.

    Returns
    -------
    X : ndarray of float64, shape (m, m)
        ``X[u, v]`` = fraction of the chains ordering u and v that put u first;
        ``X + X.T == 1``. Pairs never seen together (and the diagonal) get 0.5.

    Notes
    -----
    Complexity: O(n m + sum_i l_i^2) time, O(m^2) memory.

    References
    ----------
    A. Ukkonen, "Clustering algorithms for chains", JMLR 12 (2011), Eq. 4.

    Examples
    --------
    The worked example of Section 2 (items 1, 2, 3 renamed 0, 1, 2):

    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2], [1, 0, 2], [0, 2]], n_items=3)
    >>> chain_centroid(R)
    array([[0.5, 0.5, 1. ],
           [0.5, 0.5, 1. ],
           [0. , 0. , 0.5]])
    """
    R = check_chains(R)
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha}")
    return _centroids_from_counts(R.pairwise_counts(sample_weight), alpha)


def chain_distance(R: Any, X: Any) -> np.ndarray:
    """Distance of every chain to one or several centroids (Ukkonen 2011, Eq. 2).

    ``d(pi, X) = sum over ordered pairs (u before v in pi) of X(v, u)^2``. For a 0/1 centroid of
    a total order this is the number of discordant pairs (Kendall distance restricted to the
    chain's items). Not normalised by chain length, as in the paper.

    Parameters
    ----------
    R : Rankings or array-like of shape (n, m)
        Chains (``kind="subset"``, no ties).
    X : array-like of shape (m, m) or (K, m, m)
        Centroid(s) with entries in [0, 1] (the probability constraint is not checked).

    Returns
    -------
    d : ndarray of float64, shape (n,) for one centroid or (n, K).

    Notes
    -----
    Complexity: O(n m + sum_i l_i^2 K) time, O(n K + K m^2) memory.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2], [1, 0, 2], [0, 2]], n_items=3)
    >>> chain_distance(R, chain_centroid(R))
    array([0.25, 0.25, 0.  ])
    """
    R = check_chains(R)
    X = np.asarray(X, dtype=np.float64)
    single = X.ndim == 2
    X3 = X[None] if single else X
    m = R.n_items
    if X3.ndim != 3 or X3.shape[1:] != (m, m):
        raise ValueError(f"X must have shape ({m}, {m}) or (K, {m}, {m}), got {X.shape}")
    orders, lengths = chain_orders(R)
    out = np.empty((R.n_rankings, X3.shape[0]))
    _nb_chain_costs(orders, lengths, _cost_tensor(X3), out)
    return out[:, 0] if single else out


def _central_orders(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Rank matrix (K, m) of the total order of each centroid's items by expected wins.

    Items are sorted by ``sum_v X(u, v)`` over the items seen in the cluster (a Borda count on
    the centroid); items never seen in a cluster are absent (-1).
    """
    K, m, _ = X.shape
    seen = (C + np.swapaxes(C, 1, 2)).sum(axis=2) > 0
    ranks = np.full((K, m), -1, dtype=np.int64)
    for k in range(K):
        items = np.flatnonzero(seen[k])
        if items.size == 0:
            continue
        score = X[k][np.ix_(items, items)].sum(axis=1)
        order = items[np.argsort(-score, kind="stable")]
        ranks[k, order] = np.arange(order.size)
    return ranks


# --------------------------------------------------------------------------------------------
# per-block pieces of Lloyd's iteration (in memory one block, on Dask one per chunk)
# --------------------------------------------------------------------------------------------
def _chain_block(R: Rankings) -> tuple[Rankings, np.ndarray, np.ndarray]:
    """A checked chunk of chains and its compact orderings."""
    R = check_chains(R)
    return (R, *chain_orders(R))


def _block_counts(block: tuple, labels: np.ndarray, sw: Any, n_groups: int) -> np.ndarray:
    return block[0].pairwise_counts(sw, labels=labels, n_groups=n_groups)


def _block_assign(block: tuple, labels: np.ndarray, cost: np.ndarray) -> tuple:
    """(new labels, distance to the chosen centroid) of one block's chains."""
    _, orders, lengths = block
    n = len(lengths)
    new = np.empty(n, dtype=np.int64)
    dist = np.empty(n)
    _nb_assign_chains(orders, lengths, cost, labels, new, dist)
    return new, dist


def _block_tied(block: tuple, cost: np.ndarray) -> np.ndarray:
    """Chains of one block at equal distance from two or more centroids (``cost``)."""
    _, orders, lengths = block
    out = np.empty((len(lengths), cost.shape[2]))
    _nb_chain_costs(orders, lengths, cost, out)
    return tied_rows(out)


def _block_tied_weight(block: tuple, sw: np.ndarray | None, tied: np.ndarray) -> float:
    """Total weight of the tied chains of two or more items of one block."""
    R, _, lengths = block
    w = R.weights if sw is None else R.weights * sw
    return float(w[tied & (lengths >= 2)].sum())


def _block_n_pairs(block: tuple) -> float:
    """Pairs ordered by the chains of one block, ``sum_i l_i (l_i - 1) / 2``."""
    lengths = block[2].astype(np.float64)
    return float((lengths * (lengths - 1) / 2).sum())


def _first(pair: tuple) -> Any:
    return pair[0]


def _second(pair: tuple) -> Any:
    return pair[1]


def _n_changed(old: np.ndarray, new: np.ndarray) -> int:
    return int(np.count_nonzero(old != new))


def _bincount(labels: np.ndarray, n_groups: int) -> np.ndarray:
    return np.bincount(labels, minlength=n_groups)


def _slice(x: np.ndarray, a: int, b: int) -> np.ndarray:
    return x[a:b]


def _fix_empty_blocks(
    ex: Any, labels: list, dist: list, sizes: np.ndarray, K: int, policy: str
) -> tuple[list, list, int]:
    """:func:`fix_empty_clusters` on labels and distances split in blocks (``dist`` None: inf).

    Only the per-cluster counts travel in the common case; when a cluster is empty (rare)
    the labels and distances are gathered, fixed by the one implementation, and split again.
    """
    if ex.sum(_bincount, labels, n_groups=K).min() > 0:
        return labels, dist, K
    all_labels = np.concatenate(ex.gather(labels))
    # no distances yet (before the first assignment): every row is equally far
    all_dist = (
        np.full(len(all_labels), np.inf) if dist is None else np.concatenate(ex.gather(dist))
    )
    fixed, K = fix_empty_clusters(all_labels, K, all_dist, policy)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    if len(labels) == 1:
        return [fixed], [all_dist], K
    starts, stops = bounds[:-1].tolist(), bounds[1:].tolist()
    labels = ex.map(_slice, [fixed] * len(starts), starts, stops)
    dist = ex.map(_slice, [all_dist] * len(starts), starts, stops)
    return labels, dist, K


@dataclass(kw_only=True)
class _ChainFitData:
    """The chains of one fit: blocks (one in memory, one per chunk on Dask) and their sizes.

    ``sw_blocks`` are the sample weights on top of ``R.weights`` per block; ``R_mem`` and
    ``w`` (the weights times the sample weights) exist in memory only (the embedding
    initialisations need them).
    """

    ex: Any
    blocks: list
    sizes: np.ndarray
    sw_blocks: list
    m: int
    items: Any
    R_mem: Rankings | None = None
    w: np.ndarray | None = None


# --------------------------------------------------------------------------------------------
# the estimator
# --------------------------------------------------------------------------------------------
class ChainKMeans(
    RankingsInputMixin,
    CentersTransformMixin,
    ValidatedParamsMixin,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
    BaseEstimator,
):
    """Lloyd's k-means for chains with pair-order centroids (Ukkonen 2011).

    A scikit-learn clusterer and transformer, like :class:`sklearn.cluster.KMeans`:
    :meth:`transform` maps chains to their distances to the K centroids (``fit_transform``
    and ``get_feature_names_out`` come from scikit-learn's mixins), so it fits in a
    :class:`~sklearn.pipeline.Pipeline`. The input ``R`` is rankings, not a feature matrix.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters K.
    init : {"random_partition", "random_orders", "hypersphere", "graph", "k-means++"} or \
array-like of shape (n,), default="random_partition"
        Initial clustering:

        * ``"random_partition"`` -- uniform random labels (the paper's RND);
        * ``"random_orders"`` -- K uniform random total orders; each chain joins the closest
          (Kendall distance on its items), Section 2.1;
        * ``"hypersphere"`` -- scikit-learn k-means (Forgy seeds, one run) on
          :func:`~rankclust.cluster.hypersphere_embedding` (the paper's HS init);
        * ``"graph"`` -- the same on :func:`~rankclust.cluster.graph_embedding` (GR init; needs
          O(n^2) memory, guarded by ``embedding_max_rankings``);
        * ``"k-means++"`` -- k-means++ seeding (Arthur & Vassilvitskii 2007) on the hypersphere
          embedding; each chain joins its nearest seed;
        * an array of initial labels in ``0..n_clusters-1`` (then ``n_init`` is 1).
    n_init : int or "auto", default="auto"
        Runs with different initialisations; the run with the lowest :attr:`objective_` is
        kept (the first of equal errors). ``"auto"``: rounds of 10 runs until ``n_agree``
        runs reached the best fit (error within 1e-6 relative, same partition up to
        relabelling on the chains that are nearer to one centroid than to the others), or
        ``max_init`` runs were made; the first round is the fit of ``n_init=10``. An
        integer: that many runs. With an array ``init``, one run. See "Do the restarts
        agree?" in ``docs/chains.md``.
    max_init : int or None, default=None
        Budget of runs with ``n_init="auto"``; None: 1000 when a Lloyd iteration is cheap
        (``(n + sum_i l_i (l_i - 1) / 2) K + K m^2 <= 5e4``, about 1 ms per run), else 30.
    n_agree : int, default=5
        Agreeing runs after which ``n_init="auto"`` stops; fewer at the end of the budget
        give a ``ConvergenceWarning``. More than the mixtures' 3, since runs are cheap: on
        APA 1998 read as chains (K = 3) a partition 4e-5 worse is reached twice as often as
        the best one, and 3 agreeing runs of it stopped 5 of 20 seeds there (5: none).
    max_iter : int, default=100
        Maximum Lloyd iterations per run.
    tol : float, default=1e-9
        Stop when the error decreases by at most ``tol * max(1, error)``, or when no chain
        changes cluster (the paper's rule ``e = e0`` is ``tol = 0``).
    alpha : float, default=0.0
        Additive smoothing of the centroids (see :func:`chain_centroid`).
    empty_cluster : {"reseed", "drop"}, default="reseed"
        What to do when a cluster loses all its chains: ``"reseed"`` moves the chain farthest
        from its centroid into it; ``"drop"`` removes the cluster (the paper's implementation;
        :attr:`n_clusters_` then reports the effective K, and an
        :class:`~rankclust.exceptions.EmptyClusterWarning`, a ``RuntimeWarning``, says so).
    embedding_max_rankings : int, default=20000
        Size guard of ``init="graph"`` (the graph embedding is n x n).
    verbose : int, default=0
        Print the error after every iteration.
    backend : {"numpy", "dask"}, default="numpy"
        ``"numpy"`` runs in memory; ``"dask"`` runs the assignment step per chunk of chains
        and sums the per-cluster pair counts ``C_k`` across chunks on Dask (the active
        ``dask.distributed`` client, else Dask's default scheduler); needs
        ``pip install rankclust[dask]``. A Dask input (``dask.array`` of 1-based ranks,
        ``dask.bag`` of orderings, :class:`~rankclust.dask.ChunkedRankings`) always runs
        on Dask. On Dask ``init`` must be ``"random_partition"``, ``"random_orders"`` or an
        array of labels (the embeddings of the other initialisations are global). Both
        back-ends give the same clustering for the same ``random_state``; see
        ``docs/scaling.md``.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    labels_ : ndarray of int64, shape (n,)
        Cluster of each chain, in ``0..n_clusters_-1`` (a ``dask.array``, persisted in the
        cluster, when fitted on Dask).
    centroids_ : ndarray of float64, shape (n_clusters_, m, m)
        Probabilistic order relations (Eq. 4).
    pair_counts_ : ndarray of float64, shape (n_clusters_, m, m)
        Per-cluster pair counts ``C_k``.
    centers_ : Rankings
        One total order per cluster (of the items seen in it), by expected wins
        ``sum_v X_k(u, v)``; for a Kemeny centre use
        ``rankclust.consensus.kemeny(pair_counts_[k])``.
    objective_ : float
        Reconstruction error (Eq. 1) ``sum_i w_i d(pi_i, X_{labels_i})``.
    inertia_ : float
        Alias of :attr:`objective_` (scikit-learn's name).
    n_iter_ : int
        Lloyd iterations of the kept run.
    n_clusters_ : int
        Number of non-empty clusters (< ``n_clusters`` only with ``empty_cluster="drop"``,
        with an :class:`~rankclust.exceptions.EmptyClusterWarning`); every label in
        ``0..n_clusters_-1`` is used by :attr:`labels_`.
    n_init_ : int
        Runs made.
    n_init_agreeing_ : int
        Runs whose error is within a relative ``1e-6`` of the best and whose partition
        equals the best one up to relabelling (the best included; chains at equal distance
        from two or more centroids of the kept fit, among them every chain of fewer than two
        items, have an arbitrary cluster and are not compared). With an integer ``n_init``,
        a ``ConvergenceWarning`` says when a run as good as the best found another partition
        or when no other run reached the best error; with ``"auto"``, when fewer than
        ``n_agree`` runs agree at the end of the budget.
    restart_gap_ : float
        Relative error gap ``(e - e_best) / max(1, e_best)`` between the kept fit and the
        best run with a different partition (``inf`` if there is none; with ``"auto"``
        among the 20 best runs); with ``"auto"``, at most 1e-4 gives a
        ``ConvergenceWarning`` (the data hardly prefer one partition).
    n_tied_ : float
        Total weight of the chains of two or more items at equal distance from two or more
        centroids of the kept fit (the number of such chains for unweighted data): their
        label is the one they had when the run converged, and another run that reaches the
        same centroids may put them elsewhere.
    n_items_ : int
    items_ : tuple of str or None
        Item names of the training rankings (None when unnamed); named input to the
        prediction methods is matched to them by name (see
        :func:`rankclust.rankings.check_rankings`).

    See Also
    --------
    chain_centroid, chain_distance, hypersphere_embedding, graph_embedding, KOMeans

    Notes
    -----
    Each iteration computes the per-cluster pair counts with one pass over the data
    (:meth:`Rankings.pairwise_counts` with ``labels``), the K centroids (Eq. 4), and assigns
    every chain to its nearest centroid in one compiled pass.

    Complexity: O(n m + sum_i l_i^2 K + K m^2) time per iteration (O(n l^2 K) for chains of
    length l), O(n l_max + K m^2) memory besides the data, times the runs: ``n_init``, or
    with ``"auto"`` 10 to ``max_init`` (the labels of at most the 20 best runs are kept).

    The error never increases: assignment minimises each chain's distance for fixed
    centroids and Eq. 4 minimises each cluster's cost for fixed assignments.

    References
    ----------
    A. Ukkonen, "Clustering algorithms for chains", JMLR 12 (2011) 1389-1423, Section 2.

    Examples
    --------
    >>> from rankclust.cluster import ChainKMeans, make_planted_chains
    >>> R, y = make_planted_chains(300, n_items=10, length=6, n_clusters=2, random_state=0)
    >>> km = ChainKMeans(n_clusters=2, init="hypersphere", random_state=0).fit(R)
    >>> from sklearn.metrics import adjusted_rand_score
    >>> adjusted_rand_score(y, km.labels_) > 0.9
    True
    >>> km.transform(R).shape  # distance of each chain to each centroid
    (300, 2)
    >>> km.get_feature_names_out().tolist()
    ['chainkmeans0', 'chainkmeans1']
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(int, 1, None)],
        "init": [StrOptions(INITS), "array-like"],
        "n_init": [Interval(int, 1, None), StrOptions({"auto"})],
        "max_init": [Interval(int, 1, None), None],
        "n_agree": [Interval(int, 1, None)],
        "max_iter": [Interval(int, 1, None)],
        "tol": [Interval(float, 0, None), Interval(int, 0, None)],
        "alpha": [Interval(float, 0, None), Interval(int, 0, None)],
        "empty_cluster": [StrOptions({"reseed", "drop"})],
        "embedding_max_rankings": [Interval(int, 1, None)],
        "verbose": [Interval(int, 0, None), "boolean"],
        "backend": [StrOptions({"numpy", "dask"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_clusters: int = 8,
        *,
        init: Any = "random_partition",
        n_init: int | str = "auto",
        max_init: int | None = None,
        n_agree: int = 5,
        max_iter: int = 100,
        tol: float = 1e-9,
        alpha: float = 0.0,
        empty_cluster: str = "reseed",
        embedding_max_rankings: int = 20000,
        verbose: int = 0,
        backend: str = "numpy",
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_init = max_init
        self.n_agree = n_agree
        self.max_iter = max_iter
        self.tol = tol
        self.alpha = alpha
        self.empty_cluster = empty_cluster
        self.embedding_max_rankings = embedding_max_rankings
        self.verbose = verbose
        self.backend = backend
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    def fit(self, R: Any, y: Any = None, sample_weight: Any = None) -> ChainKMeans:
        """Cluster the chains.

        Parameters
        ----------
        R : Rankings or array-like of shape (n, m)
            Chains (``kind="subset"``, no ties); arrays are 1-based ranks, 0 = absent.
        y : ignored
        sample_weight : array-like of shape (n,), optional
            Multiplies the rankings' own weights; weighted data give the fit of the data with
            rows repeated.

        Returns
        -------
        self : ChainKMeans
        """
        self._validate_params()
        K = self.n_clusters
        data = self._fit_data(R, sample_weight)
        ex, blocks = data.ex, data.blocks
        n = int(data.sizes.sum())
        check_n_clusters(K, n, what="chains")
        user_labels = self._user_labels(n, data.sizes)
        rng = check_random_state(self.random_state)

        def start() -> FitRun:
            labels0 = (
                user_labels
                if user_labels is not None
                else self._initial_labels(ex, blocks, data.sizes, data.m, data.R_mem, data.w, rng)
            )
            return self._lloyd(ex, blocks, data.sizes, data.sw_blocks, labels0)

        def untied(run: FitRun) -> np.ndarray:
            # a chain equally far from two centroids (every chain of fewer than two items)
            # has an arbitrary cluster: it does not count as a disagreement
            cost = _cost_tensor(run.params["centroids"])
            return ~np.concatenate(ex.gather(ex.map(_block_tied, blocks, cost=cost)))

        n_init = 1 if user_labels is not None else self.n_init
        best, search = restart_rounds(
            start,
            lambda run: run.objective,
            lambda run: np.concatenate(ex.gather(run.params["block_labels"])),
            n_init=n_init,
            budget=chain_max_init(self.max_init, n, ex.sum(_block_n_pairs, blocks), data.m, K),
            n_agree=self.n_agree,
            rows_of=untied,
        )
        X = best.params["centroids"]
        tied = ex.map(_block_tied, blocks, cost=_cost_tensor(X))
        self.n_tied_ = float(ex.sum(_block_tied_weight, blocks, data.sw_blocks, tied))
        report_chain_restarts(self, "ChainKMeans", search, n_init, "error")
        if not best.converged:
            warnings.warn(
                f"ChainKMeans did not converge in max_iter={self.max_iter} iterations; "
                "increase max_iter",
                ConvergenceWarning,
                stacklevel=2,
            )
        self._set_fitted(best, data)
        warn_dropped_clusters("ChainKMeans", K, self.n_clusters_)
        return self

    def _fit_data(self, R: Any, sample_weight: Any) -> _ChainFitData:
        """The checked chains of a fit, in memory (one block) or on Dask (one per chunk)."""
        if self.backend == "dask" or is_dask_collection(R):
            if isinstance(self.init, str) and self.init not in DASK_INITS:
                raise ValueError(
                    f"init={self.init!r} needs the whole data in memory; on Dask use one of "
                    f"{DASK_INITS} or an array of initial labels"
                )
            CR = as_chunked(R, kind="subset", sample_weight=sample_weight).map(check_chains)
            ex = DaskExecutor()
            blocks = ex.map(_chain_block, CR.chunks)
            ex.wait(blocks)  # read and check every chunk once, before any iteration
            return _ChainFitData(
                ex=ex,
                blocks=blocks,
                sizes=np.asarray(CR.chunk_sizes, dtype=np.int64),
                sw_blocks=[None] * len(blocks),  # sample weights are in the chunks' weights
                m=CR.n_items,
                items=CR.items,
            )
        R_mem = check_chains(R)
        # pairwise_counts multiplies by R.weights itself: pass only the extra weights
        n = R_mem.n_rankings
        sw = None if sample_weight is None else check_sample_weight(sample_weight, n)
        w = R_mem.weights if sw is None else R_mem.weights * sw
        if n and not w.sum() > 0:
            raise ValueError("the weights of the chains sum to zero")
        return _ChainFitData(
            ex=EagerExecutor(),
            blocks=[(R_mem, *chain_orders(R_mem))],
            sizes=np.array([n]),
            sw_blocks=[sw],
            m=R_mem.n_items,
            items=R_mem.items,
            R_mem=R_mem,
            w=w,
        )

    def _user_labels(self, n: int, sizes: np.ndarray) -> list | None:
        """An array ``init`` checked and split in blocks of ``sizes``; None for a named init."""
        if isinstance(self.init, str):
            return None
        K = self.n_clusters
        labels = np.asarray(self.init)
        if labels.shape != (n,) or labels.dtype.kind not in "iu":
            raise ValueError(f"init labels must be integers of shape ({n},)")
        if labels.min() < 0 or labels.max() >= K:
            raise ValueError(f"init labels must be in 0..{K - 1}")
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        return [labels[a:b].astype(np.int64) for a, b in itertools.pairwise(bounds)]

    def _set_fitted(self, best: FitRun, data: _ChainFitData) -> None:
        """The fitted attributes of the kept run."""
        labels, C, X = (best.params[k] for k in ("block_labels", "pair_counts", "centroids"))
        if data.ex.is_dask:
            import dask.array as da

            self.labels_ = da.concatenate(
                [
                    da.from_delayed(b, shape=(int(s),), dtype=np.int64)
                    for b, s in zip(labels, data.sizes, strict=True)
                ]
            ).persist()
        else:
            self.labels_ = labels[0]
        self.pair_counts_ = C
        self.centroids_ = X
        self.objective_ = best.objective
        self.inertia_ = best.objective
        self.n_iter_ = best.n_iter
        self.n_clusters_ = X.shape[0]
        self.n_items_ = data.m
        self.items_ = data.items
        self.centers_ = trusted_rankings(_central_orders(X, C))._replace(items=self.items_)

    def _initial_labels(
        self,
        ex: Any,
        blocks: list,
        sizes: np.ndarray,
        m: int,
        R: Rankings | None,
        w: np.ndarray | None,
        rng: Any,
    ) -> list:
        """Initial labels, one array per block (``R``, ``w``: the in-memory data, or None)."""
        K = self.n_clusters
        init = self.init
        if init == "random_partition":
            # one draw per block consumes the generator exactly as one draw of n labels
            return [rng.randint(K, size=int(s)).astype(np.int64) for s in sizes]
        if init == "random_orders":
            perms = np.argsort(rng.random_sample((K, m)), axis=1)
            pos = np.argsort(perms, axis=1)  # pos[k, u] = position of u in order k
            # cost[u, v, k] = 1 when order k puts v before u (a discordant pair)
            cost = np.ascontiguousarray(
                (pos[:, None, :] < pos[:, :, None]).astype(np.float64).transpose(1, 2, 0)
            )
            none = [np.full(int(s), -1, dtype=np.int64) for s in sizes]
            return ex.map(_first, ex.map(_block_assign, blocks, none, cost=cost))
        from sklearn.cluster import KMeans, kmeans_plusplus

        from rankclust.cluster.embeddings import graph_embedding, hypersphere_embedding

        seed = rng.randint(np.iinfo(np.int32).max)
        if init == "graph":
            E = graph_embedding(R, max_rankings=self.embedding_max_rankings).astype(np.float64)
        else:
            E = hypersphere_embedding(R)
        if init == "k-means++":
            centers, _ = kmeans_plusplus(E, K, sample_weight=w, random_state=seed)
            d2 = (E * E).sum(axis=1)[:, None] - 2.0 * E @ centers.T + (centers**2).sum(axis=1)
            return [np.argmin(d2, axis=1).astype(np.int64)]
        km = KMeans(K, init="random", n_init=1, random_state=seed).fit(E, sample_weight=w)
        return [km.labels_.astype(np.int64)]

    def _lloyd(self, ex: Any, blocks: list, sizes: np.ndarray, sw: list, labels: list) -> FitRun:
        """One run of Algorithm 1 from the given labels (trusted input), per block.

        ``sw`` are the sample weights on top of ``R.weights`` per block (None = none);
        ``labels`` one array per block. The assignment step maps over the blocks and the
        centroid step sums their per-cluster pair counts. The run's ``params`` are
        ``block_labels`` (one array per block: on Dask the labels stay in the cluster),
        ``pair_counts`` (K, m, m) and ``centroids`` (K, m, m).
        """
        K = self.n_clusters
        alpha = float(self.alpha)
        labels, _, K = _fix_empty_blocks(ex, labels, None, sizes, K, self.empty_cluster)
        C = ex.sum(_block_counts, blocks, labels, sw, n_groups=K)
        X = _centroids_from_counts(C, alpha)
        err = _counts_cost(C, X)
        converged = False
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):
            out = ex.map(_block_assign, blocks, labels, cost=_cost_tensor(X))
            new, dist = ex.map(_first, out), ex.map(_second, out)
            new, dist, K = _fix_empty_blocks(ex, new, dist, sizes, K, self.empty_cluster)
            if K == X.shape[0] and ex.sum(_n_changed, labels, new) == 0:
                converged = True
                break
            labels = new
            C = ex.sum(_block_counts, blocks, labels, sw, n_groups=K)
            X = _centroids_from_counts(C, alpha)
            err_new = _counts_cost(C, X)
            if self.verbose:
                print(f"ChainKMeans iteration {n_iter}: error {err_new:.6g}, K={K}")
            done = err - err_new <= self.tol * max(1.0, abs(err))
            err = err_new
            if done:
                converged = True
                break
        return FitRun(
            objective=err,
            n_iter=n_iter,
            converged=converged,
            params={"block_labels": labels, "pair_counts": C, "centroids": X},
        )

    def _check_fitted_input(self, R: Any) -> Rankings:
        if not hasattr(self, "centroids_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("ChainKMeans is not fitted yet; call fit first")
        if R is None:
            return None
        return check_chains(R, n_items=self.n_items_, items=self.items_)

    def transform(self, R: Any) -> np.ndarray:
        """Distance (Eq. 2) of every chain to every centroid, shape (n, n_clusters_).

        A Dask input gives a ``dask.array`` computed per chunk (so does :meth:`predict`).
        """
        if is_dask_collection(R):
            self._check_fitted_input(None)
            return map_method(self, R, "transform", (self.n_clusters_,), np.float64)
        R = self._check_fitted_input(R)
        return chain_distance(R, self.centroids_)

    def predict(self, R: Any) -> np.ndarray:
        """Nearest centroid of each chain (lowest index on ties), shape (n,)."""
        if is_dask_collection(R):
            self._check_fitted_input(None)
            return map_method(self, R, "predict", (), np.int64)
        return np.argmin(self.transform(R), axis=1).astype(np.int64)

    def score(self, R: Any, y: Any = None, sample_weight: Any = None) -> float:
        """Opposite of the reconstruction error of ``R`` under the fitted centroids."""
        R = self._check_fitted_input(R)
        w = (
            R.weights
            if sample_weight is None
            else R.weights * check_sample_weight(sample_weight, len(R))
        )
        return -float(np.sum(w * self.transform(R).min(axis=1)))

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        m = loaded.int_attr(self, "n_items_", low=1)
        loaded.items_attr(self, n_items=m)
        k = loaded.int_attr(self, "n_clusters_", low=1)
        loaded.array_attr(self, "centroids_", shape=(k, m, m))
        loaded.array_attr(self, "pair_counts_", shape=(k, m, m))
        loaded.rankings_attr(self, "centers_", n_items=m, n_rankings=k)
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0, high=k - 1)
