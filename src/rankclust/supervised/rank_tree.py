"""RankTree: a label-ranking tree restricted to K central rankings (Grbovic et al. 2013, sec. 4).

Two ways to get a tree whose leaves carry at most K distinct rankings:

* ``mode="prune"`` (RT_prun): grow the label ranking tree of Cheng et al. (2009) -- splits
  chosen by the Mallows criterion (eq. 16), leaves carrying their own central rankings -- then
  collapse, bottom-up, the split whose removal costs the least training loss (eq. 17) until
  the leaves carry at most K distinct rankings;
* ``mode="iterate"`` (RT_iter, Algorithm 1): start from K random rankings; repeat {grow the
  KTree whose leaves may only carry one of the K rankings (eq. 18); recompute each ranking as
  the central ranking of the instances its leaves hold} until the training loss stops
  decreasing by more than ``tol``. This is a Lloyd-type (encoder/decoder) iteration.
"""

from __future__ import annotations

import heapq
import math
import warnings
from numbers import Integral, Real
from typing import Any, ClassVar

import numba
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from rankclust import _loaded_state as loaded
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
)
from rankclust._restarts import restart_agreement, warn_if_disagree
from rankclust._runs import FitRun, best_index
from rankclust.consensus import generalized_borda_votes
from rankclust.rankings import Rankings
from rankclust.supervised._base import (
    SupervisedClusteringMixin,
    central_ranking,
    distances_to_centers,
    remap_tree_values,
    training_loss,
    used_clusters,
)
from rankclust.supervised._ktree import KTree

__all__ = ["RankTree"]


def _random_distinct_permutations(K: int, m: int, rng: np.random.RandomState) -> np.ndarray:
    """``min(K, m!)`` distinct uniformly random position vectors of m items."""
    K = min(K, math.factorial(m)) if m <= 12 else K
    seen: set[bytes] = set()
    out = []
    while len(out) < K:
        p = rng.permutation(m).astype(np.int64)
        key = p.tobytes()
        if key not in seen:
            seen.add(key)
            out.append(p)
    return np.array(out, dtype=np.int64)


def _reseed(
    centers: np.ndarray,
    empty: np.ndarray,
    Y: Rankings,
    assign: np.ndarray,
    informative: np.ndarray,
) -> None:
    """Re-seed the centres ``empty`` (in place) at the rankings worst explained by theirs.

    Rows are taken by decreasing normalised Kendall distance to their centre; a row whose
    (completed) ranking is already a centre is skipped. A centre stays when no row is left.
    """
    far = distances_to_centers(Y, centers.copy())[np.arange(Y.n_rankings), assign]
    far[~informative] = -1.0
    taken = {c.tobytes() for c in centers}
    rows = iter(np.argsort(-far, kind="stable"))
    for k in empty:
        for i in rows:
            if far[i] <= 0.0:
                return
            seed = central_ranking(Y[i : i + 1], fallback=centers[k])
            if seed.tobytes() not in taken:
                taken.add(seed.tobytes())
                centers[k] = seed
                break


def _node_losses_kernel(ranks, leaf, parent, node_rank, out):  # pragma: no cover
    """``out[t] += d(pi_n, rho_t)`` for every row n and every node t on its leaf-to-root path.

    ``d`` is the Kendall distance on the pairs observed in row n, divided by their number.
    """
    n, m = ranks.shape
    for i in range(n):
        comp = 0
        for u in range(m):
            if ranks[i, u] >= 0:
                comp += 1
        comp = comp * (comp - 1) // 2
        if comp == 0:
            continue
        t = leaf[i]
        while t >= 0:
            disc = 0
            for u in range(m):
                ru = ranks[i, u]
                if ru < 0:
                    continue
                cu = node_rank[t, u]
                for v in range(u + 1, m):
                    rv = ranks[i, v]
                    if rv >= 0 and (ru - rv) * (cu - node_rank[t, v]) < 0:
                        disc += 1
            out[t] += disc / comp
            t = parent[t]


_nb_node_losses = numba.njit(_node_losses_kernel, cache=True, nogil=True)


def _node_losses(
    leaf: np.ndarray, parent: np.ndarray, node_rank: np.ndarray, Y: Rankings
) -> np.ndarray:
    """``loss[t] = sum_{n in T_t} d(pi_n, rho_t)`` (normalised Kendall) for every node.

    Every training row is charged to each node on its root-to-leaf path: O(n depth m^2).
    """
    out = np.zeros(len(parent))
    _nb_node_losses(
        np.ascontiguousarray(Y.ranks),
        np.ascontiguousarray(leaf, dtype=np.int64),
        np.ascontiguousarray(parent, dtype=np.int64),
        np.ascontiguousarray(node_rank, dtype=np.int64),
        out,
    )
    return out


def _reachable_leaves(feat: np.ndarray, left: np.ndarray, right: np.ndarray) -> list[int]:
    out, stack = [], [0]
    while stack:
        t = stack.pop()
        if feat[t] < 0:
            out.append(t)
        else:
            stack.append(int(right[t]))
            stack.append(int(left[t]))
    return out


def _prune_to_k(
    feat: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    parent: np.ndarray,
    node_rank: np.ndarray,
    loss: np.ndarray,
    K: int,
    max_leaves: int | None = None,
) -> np.ndarray:
    """Collapse splits bottom-up, cheapest first (eq. 17), until <= K distinct leaf rankings.

    Candidates are the internal nodes whose two children are leaves; the one with the smallest
    ``loss[a] - loss[a-] - loss[a+]`` is collapsed (lowest node id on ties), until the leaves
    carry at most K distinct rankings or there are at most K leaves, and (when
    ``max_leaves`` is given) at most ``max_leaves`` leaves remain. Returns the new
    ``feature`` array (-1 at the new leaves). O(L log L) heap operations for L leaves.
    """
    feat = feat.copy()
    is_leaf = feat < 0
    leaves = _reachable_leaves(feat, left, right)
    counts: dict[bytes, int] = {}
    for t in leaves:
        key = node_rank[t].tobytes()
        counts[key] = counts.get(key, 0) + 1
    n_leaves = len(leaves)

    def gain(a: int) -> float:
        return float(loss[a] - loss[left[a]] - loss[right[a]])

    heap = [
        (gain(a), a)
        for a in range(len(feat))
        if feat[a] >= 0 and is_leaf[left[a]] and is_leaf[right[a]]
    ]
    heapq.heapify(heap)

    def too_big() -> bool:
        if max_leaves is not None and n_leaves > max_leaves:
            return True
        return len(counts) > K and n_leaves > K

    while heap and too_big():
        _, a = heapq.heappop(heap)
        for c in (left[a], right[a]):
            key = node_rank[c].tobytes()
            counts[key] -= 1
            if counts[key] == 0:
                del counts[key]
        key = node_rank[a].tobytes()
        counts[key] = counts.get(key, 0) + 1
        feat[a] = -1
        is_leaf[a] = True
        n_leaves -= 1
        p = parent[a]
        if p >= 0 and is_leaf[left[p]] and is_leaf[right[p]]:
            heapq.heappush(heap, (gain(p), int(p)))
    return feat


class RankTree(SupervisedClusteringMixin, ValidatedParamsMixin, BaseEstimator):
    """A decision tree on the features whose leaves carry at most K central rankings.

    Grbovic et al.'s RankTree (sec. 4): RT_prun (``mode="prune"``) and RT_iter
    (``mode="iterate"``); see the module docstring. A cluster is the union of the leaves that
    carry the same ranking.

    Parameters
    ----------
    n_clusters : int, default=10
        K.
    mode : {"iterate", "prune"}, default="iterate"
    min_node : int, default=5
        ``"iterate"``: a node with at most this many instances is a leaf (Algorithm 1, step
        3.4). ``"prune"``: the label ranking tree stops below this size.
    growth : {"full", "literal"}, default="full"
        ``"iterate"``: how the KTree grows, see :class:`RankClusteringTree`.
    max_iter : int, default=50
        ``"iterate"``: maximum number of grow / recompute rounds.
    tol : float, default=1e-4
        ``"iterate"``: stop when the training loss_LR decreases by at most ``tol``.
    n_init : int, default=1
        ``"iterate"``: random restarts; the model with the lowest training loss is kept
        (the paper: one start).
    max_leaves : int or None, default=None
        ``"prune"``: also prune until at most this many leaves remain (a compact tree of
        ``max_leaves`` rules; ``max_leaves=n_clusters`` is the reading of the paper's stopping
        rule "the number of leafs is K" as a bound). None: prune only until the leaves carry
        at most K distinct rankings (the paper's experiments), however many leaves that
        leaves. Ignored by ``"iterate"``.
    validation_fraction : float in (0, 1) or None, default=0.2
        ``"iterate"``: Algorithm 1, step 5 ("prune RankTree using D_e", optional in the
        paper). This fraction of the training rows, drawn once per fit, is held out: every
        round grows the tree on the other rows and prunes it bottom-up on the held-out ones
        (reduced-error pruning: a split stays only when it strictly lowers the held-out loss
        of eq. 17); the centres and the training loss then use all rows. None: grow on all
        rows, no pruning (the paper's experiments).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    central_rankings_ : Rankings of shape (n_clusters_, n_items_)
    labels_ : ndarray of int64, shape (n,)
        Cluster of each training instance under the tree.
    tree_ : KTree
        ``"iterate"``: arrays ``feature``, ``threshold``, ``left``, ``right``, ``value``
        (cluster index of each node) and ``n_node_samples``.
    train_loss_ : float
        Training loss_LR of the returned model.
    loss_curve_ : list of float
        ``"iterate"``: training loss after every round (of the best start).
    n_iter_ : int
    n_clusters_ : int
        Number of clusters returned: the rankings the tree's leaves carry. Below
        ``n_clusters`` (with an :class:`~rankclust.exceptions.EmptyClusterWarning`) when a
        ranking is carried by no leaf even after re-seeding, or when ``m! < n_clusters``;
        ``"prune"``: the distinct rankings left after pruning (never an empty cluster).
    n_init_agreeing_ : int
        ``"iterate"``: starts whose training loss is within a relative ``1e-6`` of the best
        and whose partition of the training rows equals the best one up to relabelling (the
        best included; 1 with ``n_init=1``; 1 for ``"prune"``). A start as good as the best
        with a different partition gives a ``ConvergenceWarning``.
    n_items_, n_features_in_, scaler_
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    Why step 5 is on by default: with ``growth="full"`` the tree grows down to ``min_node``
    and keeps every subtree that lowers the *training* loss at all; with incomplete rankings
    (a few labels, one or two observed pairs per row) nearly any split does, by chance, and
    the tree overfits (measured, one 5-fold CV over the 24 data sets of the paper: average
    test loss_LR .237 / .256 / .304 at 0 / 30 / 60 % missing labels without pruning, .228 /
    .236 / .264 with ``validation_fraction=0.2``; the paper's literal growth rule without
    pruning gives .241 / .253 / .289 but cannot split the rings of ``circle``). The paper
    removes a split when eq. (17) on the pruning data is negative; we also remove it at
    gain 0 (Quinlan's reduced-error pruning), because a subtree that no informative held-out
    row reaches is no evidence for the split (.274 instead of .264 at 60 % when ties stay).

    RT_iter details the paper leaves open (decisions.md G7): the K starting rankings are distinct
    uniformly random permutations; a ranking that no leaf carries after a round is re-seeded
    at the training ranking worst explained by its centre (largest normalised Kendall
    distance; at most ``2 K`` re-seeds per start, and a round that re-seeds does not count as
    converged), so that the next tree can use it; rankings may coincide after a
    recomputation; the best model seen (by training loss) is returned, and a ranking that
    none of its leaves carries is then dropped (the remaining clusters are renumbered, with
    an :class:`~rankclust.exceptions.EmptyClusterWarning`). The tree minimises eq. (18) with the raw Kendall distance on the
    observed pairs (a ranking with few labels weighs less); the training loss_LR normalises
    each ranking by its comparable pairs; centres are recomputed with the modified Borda count
    and the most-probable-extension iteration (the paper's "Mallows"). RT_prun: the label
    ranking tree of :class:`rankclust.label_ranking.LabelRankingTree` stopped below
    ``min_node`` examples, then pruned by eq. (17) with normalised distances.

    Complexity ``"iterate"``: per round O(n K m^2) for the distances plus O(d n K) per tree
    level (O(d n K log n) balanced) plus O(n m^2) for the centres, plus O(n depth) for the
    held-out pruning; O(n (d + K + m^2)) memory.

    References
    ----------
    Grbovic, M., Djuric, N., Guo, S. and Vucetic, S. (2013). Supervised clustering of label
    ranking data using label preference information. Machine Learning 93, 191-225, sec. 4,
    Algorithm 1.

    Cheng, W., Hühn, J. and Hüllermeier, E. (2009). Decision tree and instance-based learning
    for label ranking. ICML.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.supervised import RankTree
    >>> X = np.r_[np.zeros((10, 1)), np.ones((10, 1))]
    >>> Y = [[1, 2, 3]] * 10 + [[3, 2, 1]] * 10
    >>> est = RankTree(n_clusters=2, random_state=0).fit(X, Y)
    >>> est.predict_ranking([[0.0], [1.0]])
    array([[1, 2, 3],
           [3, 2, 1]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "mode": [StrOptions({"iterate", "prune"})],
        "min_node": [Interval(Integral, 1, None, closed="left")],
        "growth": [StrOptions({"full", "literal"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_leaves": [Interval(Integral, 1, None, closed="left"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_clusters: int = 10,
        *,
        mode: str = "iterate",
        min_node: int = 5,
        growth: str = "full",
        max_iter: int = 50,
        tol: float = 1e-4,
        n_init: int = 1,
        max_leaves: int | None = None,
        validation_fraction: float | None = 0.2,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.mode = mode
        self.min_node = min_node
        self.growth = growth
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.max_leaves = max_leaves
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def fit(self, X: Any, Y: Any) -> RankTree:
        """Grow (and prune, or iterate) the tree.

        Parameters
        ----------
        X : array-like of shape (n, d)
        Y : Rankings or array-like of 1-based ranks (0/NaN missing), shape (n, m)

        Returns
        -------
        self : RankTree
        """
        X, Y, K, rng = self._begin_fit(X, Y)
        self.scaler_ = None  # trees are invariant to monotone feature scaling
        if self.mode == "prune":
            return self._fit_prune(X, Y, K, rng)
        grow = None
        if self.validation_fraction is not None:
            # Algorithm 1, step 5: one fixed held-out part of the training rows prunes the tree
            n_val = round(self.validation_fraction * X.shape[0])
            if 0 < n_val < X.shape[0]:
                grow = np.ones(X.shape[0], dtype=bool)
                grow[rng.permutation(X.shape[0])[:n_val]] = False
        runs = [self._iterate_once(X, Y, K, rng, grow) for _ in range(self.n_init)]
        i_best = best_index(runs)  # the first of equal losses
        best = runs[i_best]
        tree, centers = best.params["tree"], best.params["centers"]
        if not best.converged:
            warnings.warn(
                f"RankTree(mode='iterate') did not converge in max_iter={self.max_iter} rounds",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.n_init_agreeing_, n_near = restart_agreement(
            [run.objective for run in runs], lambda i: runs[i].params["tree"].predict(X), i_best
        )
        warn_if_disagree("RankTree", self.n_init_agreeing_, n_near, self.n_init)
        # a ranking no leaf carries is an empty cluster: drop it, renumber the others
        keep, remap = used_clusters(tree.predict(X), centers.shape[0])
        if keep.size < centers.shape[0]:
            remap_tree_values(tree, remap)
            centers = centers[keep]
        self.tree_ = tree
        self._set_centers(centers)
        self._warn_fewer_clusters(K, "no leaf of the tree carries their ranking")
        self.train_loss_ = best.objective
        self.loss_curve_ = best.params["curve"]
        self.n_iter_ = best.n_iter
        self.labels_ = tree.predict(X)
        return self

    def _iterate_once(
        self,
        X: np.ndarray,
        Y: Rankings,
        K: int,
        rng: np.random.RandomState,
        grow: np.ndarray | None = None,
    ) -> FitRun:
        """One start of Algorithm 1: the model of the lowest training loss of the rounds.

        The run's ``objective`` is that loss; its ``params`` are the ``tree``, the
        ``centers`` (K, m) and the ``curve`` of the loss of every round.

        ``grow`` (n,) bool: grow the tree on these rows and prune it on the others (step 5);
        None grows on all rows without pruning. The centres and the loss use all rows.
        """
        informative = Y.lengths >= 2
        V = generalized_borda_votes(Y) if self.growth == "full" else None
        centers = _random_distinct_permutations(K, Y.n_items, rng)
        best = (np.inf, None, None)
        n_reseeds = 0
        curve: list[float] = []
        prev = np.inf
        converged = False
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):  # noqa: B007 - reported
            D = distances_to_centers(Y, centers, normalize=False)  # eq. (18): raw d_tau
            if grow is None:
                tree = KTree(self.min_node, self.growth).fit(X, D, V)
            else:
                Vg = None if V is None else V[grow]
                tree = KTree(self.min_node, self.growth).fit(X[grow], D[grow], Vg)
                # reduced-error pruning: a split must lower the held-out loss to stay
                tree.prune(X[~grow], D[~grow], keep_ties=False)
            assign = tree.predict(X)
            new = centers.copy()
            present = np.unique(assign)
            for k in present:
                sel = assign == k
                new[k] = central_ranking(Y[sel], fallback=centers[k])
            # a ranking no leaf carries is re-seeded (at most 2 K times per start) at the
            # ranking worst explained by its centre, so that the next tree may use it
            empty = np.setdiff1d(np.arange(len(new)), present)
            reseeded = empty.size > 0 and n_reseeds < 2 * len(new)
            if reseeded:
                n_reseeds += empty.size
                _reseed(new, empty, Y, assign, informative)
            loss = training_loss(distances_to_centers(Y, new), assign, informative)
            curve.append(loss)
            if loss < best[0]:
                best = (loss, tree, new)
            if not reseeded and prev - loss <= self.tol:
                converged = True
                break
            prev = loss
            centers = new
        loss, tree, centers = best
        return FitRun(
            objective=loss,
            n_iter=n_iter,
            converged=converged,
            params={"tree": tree, "centers": centers, "curve": curve},
        )

    def _fit_prune(
        self, X: np.ndarray, Y: Rankings, K: int, rng: np.random.RandomState
    ) -> RankTree:
        """RT_prun: grow Cheng et al.'s tree, prune until at most K distinct leaf rankings."""
        from rankclust.label_ranking import LabelRankingTree

        # "stop when ... the node contains less than 5 instances": the LRT stops below
        # min_node_size_factor * m examples
        lrt = LabelRankingTree(
            min_node_size_mode="examples",
            min_node_size_factor=self.min_node / Y.n_items,
            # the paper's tree splits even when the weighted impurity does not fall
            min_impurity_decrease=None,
            # grown fully: RT_prun prunes it itself (LabelRankingTree's default prunes by
            # internal cross-validation since issue #17)
            ccp_alpha=0.0,
            # exact ties between splits are broken by a per-node random feature order
            random_state=rng,
        ).fit(X, Y)
        feat = np.asarray(lrt.feature_, dtype=np.int64).copy()
        left = np.asarray(lrt.children_left_, dtype=np.int64)
        right = np.asarray(lrt.children_right_, dtype=np.int64)
        parent = np.asarray(lrt.parent_, dtype=np.int64)
        node_rank = np.asarray(lrt.leaf_ranking_, dtype=np.int64)
        loss = _node_losses(lrt.apply(X), parent, node_rank, Y)
        feat = _prune_to_k(feat, left, right, parent, node_rank, loss, K, self.max_leaves)
        # clusters: the distinct rankings of the remaining leaves, in depth-first leaf order
        leaves = _reachable_leaves(feat, left, right)
        keys: dict[bytes, int] = {}
        value = np.full(len(feat), -1, dtype=np.int64)
        for t in leaves:
            value[t] = keys.setdefault(node_rank[t].tobytes(), len(keys))
        centers = np.array([np.frombuffer(k, dtype=np.int64) for k in keys], dtype=np.int64)
        tree = KTree(self.min_node)
        tree._store(feat, np.asarray(lrt.threshold_, dtype=np.float64), left, right, value,
                    loss, np.asarray(lrt.n_node_samples_, dtype=np.int64))  # fmt: skip
        self.label_ranking_tree_ = lrt
        self.tree_ = tree
        self._set_centers(centers)
        self.labels_ = tree.predict(X)
        informative = Y.lengths >= 2
        self.train_loss_ = training_loss(distances_to_centers(Y, centers), self.labels_,
                                         informative)  # fmt: skip
        self.loss_curve_ = [self.train_loss_]
        self.n_iter_ = 1
        self.n_init_agreeing_ = 1
        return self

    def _predict_cluster(self, X: np.ndarray) -> np.ndarray:
        return self.tree_.predict(X)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d, _, k = self._validate_loaded_common()
        loaded.estimator_attr(self, "tree_", KTree)
        self.tree_._validate_for(d, k, "tree_")
