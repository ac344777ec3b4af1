"""Label ranking trees (LRT, Cheng, Hühn and Hüllermeier 2009, Sec. 5).

A binary tree on numeric features whose nodes carry a Mallows model of their training
rankings. Splits maximise the size-weighted mean spread of the children (eq. 6); a leaf
predicts its centre, completed from its ancestors by Proposition 1 when some labels never
occur in the leaf. The data conventions (1-based ranks in and out, 0/NaN = missing label) are
in :mod:`rankclust.label_ranking`.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state

from rankclust import _loaded_state as loaded
from rankclust._compiled import tree_apply
from rankclust._param_validation import Interval, StrOptions, ValidatedParamsMixin
from rankclust.consensus import generalized_borda_votes
from rankclust.label_ranking._base import (
    LabelRankerMixin,
    positions_to_ranks,
    validate_fit_data,
    validate_predict_data,
)
from rankclust.label_ranking._iblr_kernels import _nb_local_mallows_em
from rankclust.label_ranking._tree_kernels import (
    GrowParams,
    NodeRows,
    ScannedRows,
    ThetaTable,
    TreeArrays,
    _nb_grow,
    _nb_node_models_em,
    _nb_node_risk,
    _nb_pair_bits,
    _nb_prune,
    _nb_theta_from_mean,
)
from rankclust.metrics import kendall_tau_rows
from rankclust.models.mallows import expected_distance, most_probable_extension
from rankclust.rankings import Rankings

__all__ = ["CCP_ALPHA_GRID", "LabelRankingTree"]

# grid of the expected-distance table the split search inverts (step theta_max / 4000)
_GRID_SIZE = 4001
# buckets of log(mean distance) indexing the table (about one grid step per bucket)
_N_BUCKETS = 4096
# largest pair-bit matrix (n x m(m-1)/2 bytes) of the integer split scan
_MAX_PAIR_BITS = 2**28
# iteration cap of the approximate EM of the node models
_EM_MAX_ITER = 100

#: Cost-complexity parameters tried by ``ccp_alpha="auto"`` (besides 0, no pruning): the
#: decrease of the training loss (a share of the rows, see ``LabelRankingTree``) a subtree
#: must buy per extra leaf, 5 values per decade from 1e-6 to 0.1.
CCP_ALPHA_GRID = tuple(float(a) for a in np.geomspace(1e-6, 0.1, 26))


@functools.lru_cache(maxsize=16)
def theta_table(m: int, theta_max: float) -> tuple[np.ndarray, np.ndarray]:
    """``table[n, g] = expected_distance(grid[g], n)`` for n = 0..m on ``[0, theta_max]``.

    Cached per ``(m, theta_max)`` (read-only arrays).
    """
    grid = np.linspace(0.0, theta_max, _GRID_SIZE)
    table = np.zeros((m + 1, grid.size))
    for n in range(2, m + 1):
        table[n] = expected_distance(grid, n)
    grid.setflags(write=False)
    table.setflags(write=False)
    return table, grid


@functools.lru_cache(maxsize=16)
def theta_index(m: int, theta_max: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bucket index of :func:`theta_table` for the O(1) inversion of the split search.

    Row n (n >= 2) splits ``log(mean)`` over ``[log table[n, -1], log table[n, 0]]`` into
    ``_N_BUCKETS`` equal buckets (the table is nearly linear in ``log(mean)`` for large theta
    and in ``mean`` for small theta, so each bucket spans about one grid step).

    Returns read-only arrays
    ``index`` (m + 1, _N_BUCKETS) int64 -- the bracket ``lo`` (``table[n, lo] > mean >=
    table[n, lo + 1]``) of the largest mean of each bucket, where the search starts;
    ``yrange`` (m + 1, 2) -- ``(log table[n, 0], buckets per unit of log)``;
    ``theta_up`` (m + 1, _N_BUCKETS) -- an upper bound of theta over the bucket and the next
    one (slack for rounding), so the split search can skip thresholds that cannot win.
    """
    table, grid = theta_table(m, theta_max)
    index = np.zeros((m + 1, _N_BUCKETS), dtype=np.int64)
    yrange = np.zeros((m + 1, 2))
    theta_up = np.full((m + 1, _N_BUCKETS), float(grid[-1]))
    for n in range(2, m + 1):
        row = table[n]
        top, bottom = np.log(row[0]), np.log(row[-1])
        scale = _N_BUCKETS / (top - bottom)
        edges = np.exp(top - np.arange(_N_BUCKETS + 2) / scale)
        # number of grid points with row > edge, minus one: the bracket of the edge
        lo = np.clip(np.searchsorted(-row, -edges, side="left") - 1, 0, grid.size - 2)
        index[n] = lo[:-2]
        yrange[n] = top, scale
        # theta is non-increasing in the mean: its value (the interpolation of
        # _theta_from_mean, plus slack for rounding) at the lower edge of the next bucket
        low, e = lo[2:], edges[2:]
        frac = (row[low] - e) / (row[low] - row[low + 1])
        theta = np.where(e >= row[0], 0.0, grid[low] + frac * (grid[low + 1] - grid[low]))
        theta_up[n] = np.where(e <= row[-1], grid[-1], np.minimum(theta + 1e-9, grid[-1]))
    for arr in (index, yrange, theta_up):
        arr.setflags(write=False)
    return index, yrange, theta_up


def feature_order_seed(random_state: Any) -> np.uint64:
    """Seed of the compiled stream of per-node feature orders (:func:`_tree_kernels._grow`).

    An int seeds through :class:`numpy.random.SeedSequence` (15 us, where building a
    ``RandomState`` costs 250 us: a fifth of a fit on iris); ``None`` or a ``RandomState``
    draws the seed from it via :func:`sklearn.utils.check_random_state`.
    """
    if isinstance(random_state, numbers.Integral):
        return np.random.SeedSequence(int(random_state)).generate_state(1, np.uint64)[0]
    rng = check_random_state(random_state)
    return np.uint64(rng.randint(np.iinfo(np.int64).max, dtype=np.int64))


def _cv_seeds(random_state: Any, k: int) -> np.ndarray:
    """``k`` uint64 seeds for the internal cross-validation (folds, then one per fold tree).

    Drawn first from ``check_random_state(random_state)``, so an int seed and a fresh
    ``RandomState`` with that seed choose the same folds (``fit`` draws these before the main
    tree's :func:`feature_order_seed`).
    """
    rng = check_random_state(random_state)
    return rng.randint(np.iinfo(np.int64).max, size=k, dtype=np.int64).astype(np.uint64)


def _scan_rows(R: Rankings) -> tuple[np.ndarray, ...]:
    """The training rankings in the layouts the split scans read.

    Returns ``rk`` (n, m) positions (-1 absent) as int16 (one cache line per row for small
    m); ``bits`` (n, P) uint8 and ``n_above`` (n,), the pair bits of
    :func:`~rankclust.label_ranking._tree_kernels._pair_bits` for the integer scan of
    complete nodes (zero rows when ``n P`` bytes would exceed ``_MAX_PAIR_BITS``: every node
    then takes the float path); ``pair_index`` (m * m,) the pair numbering; ``ro`` (n, m) the
    orderings of the float path (present labels best first, then the absent ones; empty when
    no node needs it) and ``lens`` (n,) the ranking lengths.
    """
    n, m = R.ranks.shape
    rk = R.ranks.astype(np.int16 if m < 2**15 else np.int32)
    lens = R.lengths.astype(rk.dtype)
    n_pairs = m * (m - 1) // 2
    pair_index = np.zeros((m, m), dtype=np.int64)
    pair_index[np.triu_indices(m, 1)] = np.arange(n_pairs)
    pair_index = (pair_index + pair_index.T).ravel()
    n_bits = n if n * n_pairs <= _MAX_PAIR_BITS else 0
    bits = np.zeros((n_bits, n_pairs), dtype=np.uint8)
    n_above = np.zeros(n_bits, dtype=np.int64)
    _nb_pair_bits(rk[:n_bits], bits, n_above)
    if n_bits and np.all(lens == m):
        ro = np.empty((0, m), dtype=rk.dtype)
    else:
        ro = np.argsort(np.where(rk >= 0, rk, m), axis=1, kind="stable").astype(rk.dtype)
    return rk, bits, n_above, pair_index, ro, lens


class LabelRankingTree(LabelRankerMixin, ValidatedParamsMixin, BaseEstimator):
    """Label ranking tree (LRT) with Mallows node models (Cheng et al. 2009, Sec. 5).

    Recursive binary splits ``x[f] <= t`` (thresholds at midpoints of consecutive distinct
    values; every feature, every threshold). Each child's rankings get a Mallows model fitted
    on the labels that occur in it; a split is scored by the children's spreads ``theta``,
    weighted by their sizes (the paper's criterion (6), see ``criterion``). Growth stops when
    a node is pure (every pair of labels is ordered the same way by every ranking of the
    node that has both), when it is too small (``min_node_size_factor``), at ``max_depth``,
    when its best split does not improve the criterion (``min_impurity_decrease``), or when
    no valid split exists. By default the grown tree is then pruned back to the size that
    predicts best in an internal ``cv``-fold cross-validation on the training data
    (cost-complexity pruning, ``ccp_alpha="auto"``), as IBLR chooses its k: a tree grown to
    one leaf per row is not a default (on SUSHI with the respondents' demographics the
    fully grown tree has 4,356 leaves for 4,500 rows and Kendall tau 0.16 against the
    consensus baseline's 0.31; the pruned one about 10 leaves and 0.33).
    ``min_node_size_factor=2, min_impurity_decrease=None, ccp_alpha=0`` is the paper's tree
    (no pruning).

    Parameters
    ----------
    criterion : {"impurity", "theta"}, default="impurity"
        ``"theta"`` -- eq. (6) literally: maximise ``(|T+| theta+ + |T-| theta-)/|T|`` with
        theta capped at ``theta_max``; a pure child (theta = infinity in the paper) counts as
        ``theta_max``, which rewards peeling single examples off large nodes (decisions.md C7).
        ``"impurity"`` -- minimise ``(|T+| u+ + |T-| u-)/|T|`` with the bounded impurity
        ``u = 1/(1 + theta)`` (0 for a pure child), the same ordering of each child by its
        spread but without the unbounded reward (scikit-lr's choice). The default deviates
        from the literal reading because the paper leaves infinite spreads unresolved and the
        capped form over-fragments (measured in ``experiments/cheng2009/results``).
    min_node_size_mode : {"examples", "label_occurrences"}, default="examples"
        Reading of the paper's "we stop if the number of labels in a node becomes too small
        ... 2|Y| as a lower bound" (decisions.md C6): stop when the node has fewer than
        ``min_node_size_factor * n_labels`` examples (``"examples"``) or label occurrences
        ``sum_i |Y(sigma_i)|`` (``"label_occurrences"``, nearly no pre-pruning on complete
        data).
    min_node_size_factor : float, default=0.0
        0 (default): no size rule, the tree is grown until its leaves are pure or cannot be
        split (and then pruned, see ``ccp_alpha``). 2 is the paper's rule (no split below
        ``2 |Y|`` examples). The paper's rule regularises noisy sets with few labels but
        stops far too early when there are many labels (vowel, 11 labels: Kendall tau 0.76
        against 0.84 fully grown; benchmarks/RESULTS_label_ranking.md); pruning after growth
        adapts to both.
    min_samples_leaf : int, default=1
        Minimum rows per child (1 = the paper).
    max_depth : int or None, default=None
    min_impurity_decrease : float or None, default=0.0
        A node is split only if its best split improves the criterion by at least this much,
        weighted by the node's share of the training rows: ``n_T / n (c(split) - c(T))``
        with ``c`` the maximised score of ``criterion`` (for ``"impurity"``, the decrease
        of the size-weighted impurity, exactly scikit-learn's ``min_impurity_decrease``) and
        ``c(T)`` the node as one side. The default 0 refuses splits that make the children
        worse than their parent, which the non-concave Mallows impurity allows (scikit-lr's
        rule). ``None``: no such rule (the paper).
    theta_max : float, default=10.0
        Cap on the spread, in the split criterion and in the stored node spreads
        (``g_n(10) ≈ 4.5e-5 (n - 1)``). The impurity ``1/(1 + theta)`` is 0 only for a pure
        side (the paper's infinite spread); an impure side at the cap scores
        ``1/(1 + theta_max)``.
    ccp_alpha : float or "auto", default="auto"
        Cost-complexity pruning (Breiman et al. 1984, Ch. 3 and 10; scikit-learn's
        ``ccp_alpha``): after growth, every subtree whose training loss is not lower than
        its root's, as a leaf, by at least ``ccp_alpha`` per extra leaf is collapsed into a
        leaf, bottom-up. The loss of a node is the share of discordant observed label pairs
        between its training rankings and the ranking it predicts, each ranking weighted
        by one over its number of observed pairs and all divided by the (weighted) number of
        training rankings, so the loss of the leaves is ``(1 - tau) / 2`` for the training
        Kendall tau and ``ccp_alpha`` is a decrease of that share. ``0``: no pruning (the
        fully grown tree). ``"auto"``: the value of :data:`CCP_ALPHA_GRID` (26 values from
        1e-6 to 0.1) or 0 with the highest mean Kendall tau on held-out rows in a ``cv``-fold
        cross-validation on the training data (each fold grows its own tree and prunes it
        at every candidate; ties to the larger value), then the tree grown on all rows is
        pruned at it. Training sets of fewer than ``2 cv`` rows are not pruned.
    cv : int, default=5
        Folds of the internal cross-validation of ``ccp_alpha="auto"``.
    random_state : int, RandomState instance or None, default=None
        The order in which each node visits the features, drawn afresh at every node (a
        Fisher-Yates shuffle from one seed: an int through :class:`numpy.random.SeedSequence`,
        otherwise drawn with :func:`sklearn.utils.check_random_state`). It only decides between splits of exactly
        equal criterion, which are common in small nodes and on features with few distinct
        values: the first one found wins (scikit-learn's ``DecisionTree*`` convention, also
        scikit-lr's). A fixed order would always send these ties to the same features, which
        costs accuracy (fried: Kendall tau -0.006 on all 10 folds against a random order).
        ``None`` (default) draws the seed from numpy's global random state, as scikit-learn
        does; pass an int for a reproducible tree. It also seeds the folds of the internal
        cross-validation (``ccp_alpha="auto"``) and the feature orders of their trees.

    Attributes
    ----------
    n_items_ : int
        Number of labels.
    n_features_in_ : int
    node_count_, n_leaves_, max_depth_ : int
        Size of the fitted tree (``n_leaves_`` is the paper's tree size).
    children_left_, children_right_ : ndarray of intp, shape (node_count_,)
        Child ids, -1 at leaves.
    feature_ : ndarray of intp, shape (node_count_,)
        Split feature, -1 at leaves.
    threshold_ : ndarray of float64, shape (node_count_,)
        Split threshold (``x[feature] <= threshold`` goes left), -2 at leaves (scikit-learn's
        ``TREE_UNDEFINED``).
    parent_ : ndarray of intp, shape (node_count_,)
        -1 at the root.
    n_node_samples_ : ndarray of intp, shape (node_count_,)
    node_labels_ : list of ndarray
        Labels occurring in each node's training rankings (``L_T``).
    node_center_ : list of ndarray
        Centre of each node's Mallows model: a position vector over ``node_labels_[t]``.
    node_theta_ : ndarray of float64, shape (node_count_,)
        Spread of each node's model (capped at ``theta_max``).
    leaf_ranking_ : ndarray of int64, shape (node_count_, n_items_)
        Complete position vector predicted at each node (leaf centres completed by Prop. 1
        from the first ancestor with strictly more labels; labels never seen in training are
        appended at the bottom in index order).
    ccp_alpha_ : float
        The pruning parameter used (``ccp_alpha``, or the one chosen by ``"auto"``).
    cv_scores_ : dict or None
        Mean held-out Kendall tau of the internal cross-validation per candidate
        ``ccp_alpha`` (``"auto"`` only; NaN when the training set was too small).
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    * Node models: complete rankings -- Borda centre and the theta MLE (paper Sec. 4.1);
      incomplete rankings -- the approximate EM of Sec. 4.2 on the node's label set (equal to
      :func:`rankclust.models.mallows.estimate_center` with ``method="borda"``) and the
      spread of the completions (as :func:`~rankclust.models.mallows.estimate_theta`),
      computed after growth (the split search does not need them): in one compiled call
      for the nodes that see every label, node by node for the others.
    * Split search (:mod:`rankclust.label_ranking._tree_kernels`): the whole tree is grown
      in one compiled call. The rows are sorted by every feature once, at the root; a split
      partitions these sorted columns stably in place, so children inherit the order. Each
      node scans every feature once with incremental Borda votes and pairwise counts,
      O(n m^2) per feature and node instead of a refit per threshold. With complete rankings
      the counts are exact integers and the criterion is exactly the paper's (theta read
      from a table of the expected distance on a grid of step ``theta_max/4000``, linear
      interpolation, found in O(1) through a bucket index); a threshold costs O(m) plus
      O(m^2) for the rows moved. Candidates whose criterion ties exactly keep the first
      found (features in the node's random order, see ``random_state``; thresholds
      ascending). With incomplete rankings the children's centres are their generalised
      Borda counts and their spreads use the mean distance estimated from the observed
      pairs (each ranking's share of discordant observed pairs times ``n_T (n_T - 1)/2``)
      rather than running the approximate EM per threshold.
    * :meth:`reliability` gives the paper's ``theta_leaf * |T_leaf| / n_train``.

    * Pruning: the loss of every node is accumulated by walking each training row from its
      leaf to the root (O(n depth m^2)); the optimal subtree for a given ``ccp_alpha`` is
      one bottom-up pass over the nodes, so the internal cross-validation costs ``cv``
      extra growths and O(cv (nodes + held-out rows m^2)) per candidate.

    Complexity: fit O(d n log n + depth d n m^2) time (depth = mean depth of a training
    row), times ``cv + 1`` for ``ccp_alpha="auto"``; O(n (d + m^2) + nodes m) memory (the
    pair bits take n m (m - 1)/2 bytes); predict O(q depth) time.

    References
    ----------
    Cheng, W., Hühn, J. and Hüllermeier, E. (2009). Decision tree and instance-based learning
    for label ranking. ICML, Sec. 5.

    Examples
    --------
    >>> from rankclust.datasets import load_label_ranking
    >>> from rankclust.label_ranking import LabelRankingTree
    >>> X, Y = load_label_ranking("iris")
    >>> tree = LabelRankingTree(random_state=0).fit(X[::2], Y[::2])
    >>> tree.predict(X[:2])
    array([[1, 2, 3],
           [1, 2, 3]])
    >>> round(tree.score(X[1::2], Y[1::2]), 2)
    0.94
    >>> tree.n_leaves_ < LabelRankingTree(ccp_alpha=0.0, random_state=0).fit(X[::2], Y[::2]).n_leaves_
    True
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "criterion": [StrOptions({"theta", "impurity"})],
        "min_node_size_mode": [StrOptions({"examples", "label_occurrences"})],
        "min_node_size_factor": [Interval(numbers.Real, 0, None)],
        "min_samples_leaf": [Interval(numbers.Integral, 1, None)],
        "max_depth": [Interval(numbers.Integral, 0, None), None],
        "min_impurity_decrease": [Interval(numbers.Real, 0, None), None],
        "theta_max": [Interval(numbers.Real, 0, None, closed="neither")],
        "ccp_alpha": [Interval(numbers.Real, 0, None), StrOptions({"auto"})],
        "cv": [Interval(numbers.Integral, 2, None)],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        criterion: str = "impurity",
        min_node_size_mode: str = "examples",
        min_node_size_factor: float = 0.0,
        min_samples_leaf: int = 1,
        max_depth: int | None = None,
        min_impurity_decrease: float | None = 0.0,
        theta_max: float = 10.0,
        ccp_alpha: float | str = "auto",
        cv: int = 5,
        random_state: Any = None,
    ) -> None:
        self.criterion = criterion
        self.min_node_size_mode = min_node_size_mode
        self.min_node_size_factor = min_node_size_factor
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.min_impurity_decrease = min_impurity_decrease
        self.theta_max = theta_max
        self.ccp_alpha = ccp_alpha
        self.cv = cv
        self.random_state = random_state

    # ---------------------------------------------------------------- fit
    def fit(self, X: Any, Y: Any) -> LabelRankingTree:
        """Grow the tree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        Y : Rankings or array-like of 1-based ranks, shape (n_samples, n_labels)
            Training rankings, possibly incomplete (0/NaN = missing label), without ties.

        Returns
        -------
        self
        """
        self._validate_params()
        X, R = validate_fit_data(self, X, Y)
        # the folds are drawn before the main tree's feature order (see _cv_seeds)
        cv_seeds = _cv_seeds(self.random_state, self.cv + 1) if self.ccp_alpha == "auto" else None
        self._grow(X, R)
        self.n_items_ = R.n_items
        if cv_seeds is not None:
            self.ccp_alpha_, self.cv_scores_ = self._choose_ccp_alpha(X, R, cv_seeds)
        else:
            self.ccp_alpha_, self.cv_scores_ = float(self.ccp_alpha), None
        if self.ccp_alpha_ > 0:
            rep = np.empty(self.node_count_, dtype=np.intp)
            _nb_prune(
                self.children_left_, self.children_right_, self.parent_,
                self._node_risk(X, R), self.ccp_alpha_, rep,
            )  # fmt: skip
            self._keep_pruned(rep)
        return self

    def _grow(self, X: np.ndarray, R: Rankings) -> None:
        """Grow the tree on validated data (sets the tree attributes, without pruning)."""
        n, m = R.ranks.shape
        table, grid = theta_table(m, float(self.theta_max))
        index, yrange, theta_up = theta_index(m, float(self.theta_max))
        rk, bits, n_above, pair_index, ro, lens = _scan_rows(R)
        sidx = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)
        sval = np.ascontiguousarray(np.take_along_axis(X, sidx.T, axis=0).T)
        max_nodes = 2 * n - 1  # every split has two non-empty children
        feature, left, right, parent, depth, start, size, n_labels = np.empty(
            (8, max_nodes), dtype=np.intp
        )
        threshold, theta = np.empty((2, max_nodes))
        complete = np.empty(max_nodes, dtype=np.bool_)
        labs, center = np.empty((2, max_nodes, m), dtype=np.int64)
        # the state of the compiled SplitMix64 stream of per-node feature orders
        rng_state = np.array([feature_order_seed(self.random_state)], dtype=np.uint64)
        params = GrowParams(
            self.min_samples_leaf,
            0 if self.criterion == "theta" else 1,
            float(self.min_node_size_factor * m),
            self.min_node_size_mode == "examples",
            -1 if self.max_depth is None else int(self.max_depth),
            -np.inf if self.min_impurity_decrease is None else float(self.min_impurity_decrease),
            True,
        )
        count = _nb_grow(
            ScannedRows(sidx, sval, rk, bits, n_above, pair_index, ro, lens),
            ThetaTable(table, grid, index, yrange, theta_up),
            params,
            rng_state,
            TreeArrays(feature, threshold, left, right, parent, depth, start, size, n_labels,
                       complete, theta, labs, center),
        )  # fmt: skip
        labs, center, n_labels = labs[:count].copy(), center[:count].copy(), n_labels[:count]
        node_labels = [labs[t, : n_labels[t]] for t in range(count)]
        node_center = [center[t, : n_labels[t]] for t in range(count)]  # views of center
        # incomplete nodes: the approximate EM, in one call for those that see every label
        em = np.flatnonzero(~complete[:count] & (n_labels >= 2))
        if em.size:
            # the rows' order when a node was made: sorted by feature 0, stable
            first_rank = np.empty(n, dtype=np.int64)
            first_rank[np.argsort(X[:, 0], kind="stable")] = np.arange(n)
            full = em[n_labels[em] == m]
            if full.size:
                centers, thetas = np.empty((full.size, m), dtype=np.int64), np.empty(full.size)
                _nb_node_models_em(
                    R.ranks, generalized_borda_votes(R), NodeRows(sidx[0], first_rank, start, size),
                    full, _EM_MAX_ITER, table, grid, centers, thetas,
                )  # fmt: skip
                center[full], theta[full] = centers, thetas  # node_center_ holds views
            for t in em[n_labels[em] < m]:
                rows = sidx[0, start[t] : start[t] + size[t]]
                rows = rows[np.argsort(first_rank[rows])]
                node_center[t][:], theta[t] = self._node_model_em(
                    R, rows, node_labels[t], table, grid
                )
        self.feature_ = feature[:count].copy()
        self.threshold_ = threshold[:count].copy()
        self.children_left_ = left[:count].copy()
        self.children_right_ = right[:count].copy()
        self.parent_ = parent[:count].copy()
        self.n_node_samples_ = size[:count].copy()
        self.node_labels_ = node_labels
        self.node_center_ = node_center
        self.node_theta_ = theta[:count].copy()
        self.node_count_ = int(count)
        self.n_leaves_ = int(np.sum(self.feature_ < 0))
        self.max_depth_ = int(depth[:count].max())
        self.n_train_ = n
        leaf_ranking = center.copy()  # centres over all m labels are already complete
        for t in np.flatnonzero(n_labels < m):
            leaf_ranking[t] = self._complete(t, m)
        self.leaf_ranking_ = leaf_ranking

    # ---------------------------------------------------------------- pruning
    def _node_risk(self, X: np.ndarray, R: Rankings) -> np.ndarray:
        """Training loss of each node used as a leaf, as a share of the training rows.

        ``risk[t] = sum_{i in t} w_i d_i(t) / P_i / sum_i w_i``: ``d_i(t)`` the discordant
        observed pairs between row i and the ranking node t predicts, ``P_i`` the observed
        pairs of row i, ``w_i`` the ranking weights (rows with fewer than two labels count
        0), so the risk of the leaves sums to ``(1 - tau) / 2`` for the training tau.
        """
        lens = R.lengths.astype(np.float64)
        pairs = lens * (lens - 1) / 2
        w = np.asarray(R.weights, dtype=np.float64) * (pairs > 0)
        total = w.sum()
        row_w = np.divide(w, pairs * total, out=np.zeros_like(w), where=w > 0)
        risk = np.empty(self.node_count_)
        _nb_node_risk(
            np.ascontiguousarray(R.ranks), row_w, self._leaves(X), self.parent_,
            self.leaf_ranking_, risk,
        )  # fmt: skip
        return risk

    def _choose_ccp_alpha(
        self, X: np.ndarray, R: Rankings, seeds: np.ndarray
    ) -> tuple[float, dict[float, float]]:
        """Cost-complexity ``alpha`` by ``cv``-fold cross-validation (``seeds``: :func:`_cv_seeds`).

        Each fold grows an unpruned tree (same settings) on the other folds, prunes it at
        every candidate of :data:`CCP_ALPHA_GRID` (and 0 = no pruning) by its own training
        risk, and predicts the held-out rows; the candidate with the highest mean Kendall
        tau over all held-out rows wins, ties to the larger alpha (the smaller tree). This is
        Breiman et al.'s (1984) cross-validated cost-complexity pruning with a fixed grid of
        alpha (the risk is a share of the rows, so one grid fits every training size).
        """
        n = X.shape[0]
        grid = (0.0, *CCP_ALPHA_GRID)
        if n < 2 * self.cv:
            return 0.0, dict.fromkeys(grid, np.nan)
        folds = KFold(self.cv, shuffle=True, random_state=int(seeds[0] % 2**31)).split(X)
        tau_sum = np.zeros(len(grid))
        n_scored = 0
        base = clone(self).set_params(ccp_alpha=0.0)
        for f, (train, test) in enumerate(folds):
            tree = clone(base).set_params(random_state=int(seeds[f + 1] % 2**31))
            tree.fit(X[train], R[train])
            risk = tree._node_risk(X[train], R[train])
            leaf = tree.apply(X[test])
            truth = R[test]
            scored = truth.lengths >= 2
            n_scored += int(scored.sum())
            rep = np.empty(tree.node_count_, dtype=np.intp)
            for g, alpha in enumerate(grid):
                if alpha > 0:
                    _nb_prune(tree.children_left_, tree.children_right_, tree.parent_, risk,
                              alpha, rep)  # fmt: skip
                    node = rep[leaf]
                else:
                    node = leaf
                pred = positions_to_ranks(tree.leaf_ranking_[node])
                tau = kendall_tau_rows(truth, pred)
                tau_sum[g] += float(np.sum(tau[scored]))
        if n_scored == 0:
            return 0.0, dict.fromkeys(grid, np.nan)
        scores = {alpha: float(t / n_scored) for alpha, t in zip(grid, tau_sum, strict=True)}
        best = max(scores, key=lambda a: (scores[a], a))
        return best, scores

    def _keep_pruned(self, rep: np.ndarray) -> None:
        """Drop the nodes below collapsed ones (``rep`` of :func:`_nb_prune`), renumbered."""
        count = self.node_count_
        keep = np.flatnonzero(rep == np.arange(count))
        new_id = np.full(count, -1, dtype=np.intp)
        new_id[keep] = np.arange(keep.size)
        left, right = self.children_left_[keep], self.children_right_[keep]
        leaf = (left < 0) | (new_id[np.maximum(left, 0)] < 0)
        self.children_left_ = np.where(leaf, -1, new_id[np.maximum(left, 0)]).astype(np.intp)
        self.children_right_ = np.where(leaf, -1, new_id[np.maximum(right, 0)]).astype(np.intp)
        self.feature_ = np.where(leaf, -1, self.feature_[keep]).astype(np.intp)
        self.threshold_ = np.where(leaf, -2.0, self.threshold_[keep])
        parent = self.parent_[keep]
        self.parent_ = np.where(parent < 0, -1, new_id[np.maximum(parent, 0)]).astype(np.intp)
        self.n_node_samples_ = self.n_node_samples_[keep]
        self.node_labels_ = [self.node_labels_[t] for t in keep]
        self.node_center_ = [self.node_center_[t] for t in keep]
        self.node_theta_ = self.node_theta_[keep]
        self.leaf_ranking_ = self.leaf_ranking_[keep]
        self.node_count_ = int(keep.size)
        self.n_leaves_ = int(np.sum(self.feature_ < 0))
        depth = np.zeros(keep.size, dtype=np.intp)
        for t in range(1, keep.size):  # parents come before their children
            depth[t] = depth[self.parent_[t]] + 1
        self.max_depth_ = int(depth.max())

    def _node_model_em(
        self,
        R: Rankings,
        rows: np.ndarray,
        labs: np.ndarray,
        table: np.ndarray,
        grid: np.ndarray,
    ) -> tuple[np.ndarray, float]:
        """Centre and capped spread of a node with incomplete rankings on its labels ``labs``.

        The approximate EM of Sec. 4.2 (generalised Borda start, Prop. 1 completions, Borda
        median) and the mean distance of the completions, computed by IBLR's compiled batch
        kernel with a single "query" whose neighbours are the node's rows: the same result as
        :func:`rankclust.models.mallows.estimate_center` with ``method="borda"`` (tested).
        """
        sub = np.ascontiguousarray(R.ranks[rows][:, labs])  # still dense: labs = L_T
        votes = generalized_borda_votes(Rankings._from_trusted(sub))
        w = np.ones((1, rows.size))
        center = np.empty((1, labs.size), dtype=np.int64)
        mean = np.empty(1)
        n_iter = np.empty(1, dtype=np.int64)
        converged = np.empty(1, dtype=np.bool_)
        _nb_local_mallows_em(
            sub[None], w, votes.sum(axis=0)[None], _EM_MAX_ITER, center, mean, n_iter, converged
        )
        return center[0], float(_nb_theta_from_mean(table, grid, labs.size, float(mean[0])))

    def _complete(self, node: int, m: int) -> np.ndarray:
        """Complete position vector of a node: Prop. 1 from the ancestors (decisions.md C8)."""
        labs = self.node_labels_[node]
        if labs.size == m:
            return self.node_center_[node]
        pos = np.full(m, -1, dtype=np.int64)
        pos[labs] = self.node_center_[node]
        anc = self.parent_[node]
        while labs.size < m and anc >= 0:
            anc_labs = self.node_labels_[anc]
            if anc_labs.size > labs.size:
                sub = Rankings._from_trusted(pos[anc_labs][None, :])
                ext = most_probable_extension(sub, self.node_center_[anc]).ranks[0]
                pos = np.full(m, -1, dtype=np.int64)
                pos[anc_labs] = ext
                labs = anc_labs
            anc = self.parent_[anc]
        unseen = np.flatnonzero(pos < 0)
        pos[unseen] = labs.size + np.arange(unseen.size)
        return pos

    # ---------------------------------------------------------------- predict
    def apply(self, X: Any) -> np.ndarray:
        """Leaf id of every row of ``X`` (int array, shape (n_samples,))."""
        return self._leaves(validate_predict_data(self, X))

    def _leaves(self, X: np.ndarray) -> np.ndarray:
        """:meth:`apply` on features already validated (the fit's own rows: a DataFrame's
        names were checked when it was converted, so they are not checked again)."""
        X = np.ascontiguousarray(X, dtype=np.float64)  # one compiled layout
        node = np.empty(X.shape[0], dtype=np.intp)
        tree_apply(
            X, self.feature_, self.threshold_, self.children_left_, self.children_right_, node
        )
        return node

    def predict(self, X: Any) -> np.ndarray:
        """Predict complete label rankings.

        Returns
        -------
        ranks : ndarray of int64, shape (n_samples, n_labels)
            1-based ranks (every row a permutation of ``1..n_labels``; 1 = best).
        """
        leaf = self.apply(X)
        return self._ranks_out(self.leaf_ranking_[leaf])

    def reliability(self, X: Any) -> np.ndarray:
        """The paper's reliability score ``theta_leaf * |T_leaf| / n_train`` per row."""
        leaf = self.apply(X)
        return self.node_theta_[leaf] * self.n_node_samples_[leaf] / self.n_train_

    # ---------------------------------------------------------------- loading
    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d = loaded.int_attr(self, "n_features_in_", low=1)
        m = loaded.int_attr(self, "n_items_", low=1)
        self._validate_loaded_names(m)
        n = loaded.int_attr(self, "node_count_", low=1)
        for name in ("feature_", "children_left_", "children_right_", "n_node_samples_"):
            loaded.array_attr(self, name, kind="i", shape=(n,))
        loaded.check_tree(
            self.feature_,
            self.threshold_,
            self.children_left_,
            self.children_right_,
            n_features=d,
            name="tree",
        )
        parent = loaded.array_attr(self, "parent_", kind="i", shape=(n,))
        if parent[0] != -1 or not ((parent[1:] >= 0) & (parent[1:] < np.arange(1, n))).all():
            raise ValueError("parent_: every node's parent must come before it (root: -1)")
        loaded.array_attr(self, "node_theta_", shape=(n,), low=0.0)
        loaded.check_permutations(
            loaded.array_attr(self, "leaf_ranking_", kind="i", shape=(n, m)), "leaf_ranking_"
        )
        labels, centers = self.node_labels_, self.node_center_
        if not (isinstance(labels, list) and isinstance(centers, list)):
            raise ValueError("node_labels_, node_center_: expected lists")
        if len(labels) != n or len(centers) != n:
            raise ValueError(f"node_labels_, node_center_: expected {n} entries")
        for t, (labs, center) in enumerate(zip(labels, centers, strict=True)):
            loaded.check_array(labs, f"node_labels_[{t}]", kind="i", ndim=1, low=0, high=m - 1)
            if np.unique(labs).size != labs.size:
                raise ValueError(f"node_labels_[{t}]: repeated labels")
            loaded.check_array(center, f"node_center_[{t}]", kind="i", shape=(labs.size,))
            loaded.check_permutations(center[None, :], f"node_center_[{t}]")
        loaded.int_attr(self, "n_train_", low=1)
