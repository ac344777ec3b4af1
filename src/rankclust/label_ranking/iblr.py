"""Instance-based label ranking: local Mallows (IBLR) and local Plackett-Luce (IB-PL).

A query ``x`` is ranked by fitting a probability model on rankings to the (weighted) rankings
of its ``k`` nearest training neighbours and predicting the model's mode (Cheng, Hühn and
Hüllermeier 2009, Sec. 4; Cheng, Dembczyński and Hüllermeier 2010). The data conventions
(1-based ranks in and out, 0/NaN = missing label) are in :mod:`rankclust.label_ranking`.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import BallTree, KDTree, NearestNeighbors
from sklearn.utils import check_random_state

from rankclust import _loaded_state as loaded
from rankclust._param_validation import Interval, StrOptions, ValidatedParamsMixin
from rankclust.consensus import generalized_borda_votes
from rankclust.label_ranking._base import (
    LabelRankerMixin,
    validate_fit_data,
    validate_predict_data,
)
from rankclust.label_ranking._iblr_kernels import (
    CenterFits,
    PLFit,
    PLRows,
    _nb_exact_distances,
    _nb_loo_centers,
    _nb_loo_pl,
    _nb_nearest,
    _nb_predict_centers,
    _nb_predict_pl,
    _nb_squared_distances,
    _nb_tau_counts,
)
from rankclust.models.mallows import theta_mle
from rankclust.rankings import Rankings

__all__ = ["IBLR", "K_GRID", "IBLRMallows", "IBLRPlackettLuce"]

#: Neighbourhood sizes tried by ``n_neighbors="auto"`` (restricted to ``[1, n_train - 1]``).
K_GRID = (2, 3, 5, 7, 10, 15, 20, 30, 50)

# candidates of an extension of the k grid evaluated with one neighbour search
_LOOKAHEAD = 3
# training sets up to this size search the leave-one-out neighbours in a full distance matrix
_FULL_MATRIX_N = 2048
# up to this many features a KD-tree (and exact distance matrices) beat BLAS brute force
_MAX_TREE_DIM = 8
# ... and up to 15 features on training sets larger than this, for k <= 16
_LARGE_N = 20000
# with algorithm="auto", searches for at most this many neighbours among at most
# _FULL_MATRIX_N rows scan the training rows in one compiled pass (no index to build)
_SCAN_K = 64


class _BaseIBLR(LabelRankerMixin, ValidatedParamsMixin, BaseEstimator):
    """Scaling, neighbour search and the choice of k; subclasses fit the local models."""

    # whether the local fit needs each query's neighbours sorted by distance (or only the set)
    _needs_sorted_neighbours = True

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "n_neighbors": [Interval(numbers.Integral, 1, None), StrOptions({"auto"})],
        "weights": [StrOptions({"dudani", "uniform"})],
        "scaling": [StrOptions({"minmax", "zscore", "none"})],
        "k_grid": ["array-like"],
        "cv_max_eval": [Interval(numbers.Integral, 1, None)],
        "extend_grid": ["boolean"],
        "algorithm": [StrOptions({"auto", "ball_tree", "kd_tree", "brute"})],
        "random_state": ["random_state"],
        "max_iter": [Interval(numbers.Integral, 1, None)],
    }

    def __init__(
        self,
        n_neighbors: int | str = "auto",
        *,
        weights: str = "dudani",
        scaling: str = "zscore",
        k_grid: tuple = K_GRID,
        cv_max_eval: int = 1000,
        extend_grid: bool = True,
        algorithm: str = "auto",
        random_state: Any = None,
        max_iter: int = 100,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.scaling = scaling
        self.k_grid = k_grid
        self.cv_max_eval = cv_max_eval
        self.extend_grid = extend_grid
        self.algorithm = algorithm
        self.random_state = random_state
        self.max_iter = max_iter

    # ---------------------------------------------------------------- fit
    def fit(self, X: Any, Y: Any) -> _BaseIBLR:
        """Store the training data and choose ``k`` (``n_neighbors="auto"``).

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
        n = X.shape[0]
        self._fit_scaling(X)
        Z = self._scale(X)
        self.rankings_ = R
        self.n_items_ = R.n_items
        self._prepare(R)
        self._fit_index(Z)
        if self.n_neighbors == "auto":
            grid = sorted({int(k) for k in self.k_grid if 1 <= int(k) <= n - 1}) or [1]
            if n == 1:
                self.n_neighbors_, self.cv_scores_ = 1, {1: np.nan}
            else:
                self.n_neighbors_, self.cv_scores_, n_bad, n_fits = self._select_k(Z, R, grid)
                self._warn_not_converged(n_bad, n_fits, "in the leave-one-out choice of k")
        else:
            self.n_neighbors_ = min(int(self.n_neighbors), n)
            self.cv_scores_ = None
        return self

    def _fit_scaling(self, X: np.ndarray) -> None:
        """Per-feature shift and scale from the training data (constant features map to 0)."""
        if self.scaling == "minmax":
            shift = X.min(axis=0)
            span = X.max(axis=0) - shift
        elif self.scaling == "zscore":
            shift = X.mean(axis=0)
            span = X.std(axis=0)
        else:
            shift = np.zeros(X.shape[1])
            span = np.ones(X.shape[1])
        self.feature_shift_ = shift
        self.feature_scale_ = 1.0 / np.where(span > 0, span, 1.0)

    def _scale(self, X: np.ndarray) -> np.ndarray:
        """Normalised features: ``(X - feature_shift_) * feature_scale_``."""
        return (X - self.feature_shift_) * self.feature_scale_

    def _fit_index(self, Z: np.ndarray) -> None:
        """Exact Euclidean neighbour index on the normalised training features.

        scikit-learn's KD-tree (``"kd_tree"``; ``"auto"`` with at most 8 features, or at most
        15 on more than 20,000 rows), ball tree, or brute force (scikit-learn's chunked
        ``ArgKmin`` through :class:`~sklearn.neighbors.NearestNeighbors`; ``"auto"``
        otherwise, and for more than 16 neighbours beyond 8 features): the crossovers
        measured on the benchmark sets. The trees are called directly: the
        ``NearestNeighbors`` wrapper would re-validate every query. Queries for more than
        ``max(64, n/32)`` neighbours always use a full distance matrix (a tree or heap search
        for a large share of the data degenerates into a slow sort). With ``"auto"``,
        training sets of at most 2048 rows are scanned exactly for at most 64 neighbours
        (:func:`~rankclust.label_ranking._iblr_kernels._nearest`: cheaper than building an
        index on such sets). The indexes are built at their first use.
        """
        algorithm = self.algorithm
        n, d = Z.shape
        if algorithm == "auto":
            # measured crossovers on the benchmark sets (process time, k = 5): the tree wins
            # up to 8 features, and up to 15 on large sets (fried: 37k rows, 9 features)
            tree = d <= _MAX_TREE_DIM or (d <= 15 and n > _LARGE_N)
            algorithm = "kd_tree" if tree else "brute"
        self.algorithm_ = algorithm
        self._Z = np.ascontiguousarray(Z)
        self._Zt = np.ascontiguousarray(self._Z.T)
        self._sqnorm = np.einsum("ij,ij->i", self._Z, self._Z)
        self._index = self._brute = None

    def _tree_index(self) -> KDTree | BallTree | None:
        """The KD-tree or ball tree of ``algorithm_`` (built at the first call), else None."""
        if self._index is None and self.algorithm_ in ("kd_tree", "ball_tree"):
            make = KDTree if self.algorithm_ == "kd_tree" else BallTree
            self._index = make(self._Z)
        return self._index

    def _brute_index(self) -> NearestNeighbors:
        """scikit-learn's brute-force search on the training rows (built at the first call)."""
        if self._brute is None:
            self._brute = NearestNeighbors(algorithm="brute").fit(self._Z)
        return self._brute

    def _scans(self, k: int) -> bool:
        """Whether a search for k neighbours scans the training rows in one compiled pass.

        With ``algorithm="auto"``: for at most 64 neighbours where scikit-learn would search
        by brute force or the training set is small, and for at most 256 on small sets (the
        scan beat ``ArgKmin``, the KD-tree and the full distance matrix there).
        """
        if self.algorithm != "auto":
            return False
        small_n = self._Z.shape[0] <= _FULL_MATRIX_N
        if k <= _SCAN_K:
            return small_n or self.algorithm_ == "brute"
        return small_n and k <= 4 * _SCAN_K

    def _rebuild_after_load(self) -> None:
        """Rebuild what is derived from the training data (after :meth:`_validate_loaded_state`).

        The search tree is not stored by :func:`rankclust.persistence.save`; the stored derived
        arrays are recomputed rather than trusted.
        """
        if "_Z" not in vars(self):
            return  # not fitted
        self._prepare(self.rankings_)
        self._fit_index(self._Z)

    def _kneighbors(
        self, Zq: np.ndarray, k: int, prefixes: list[int] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Distances and indices of the k nearest training rows, sorted by (distance, index).

        Distances are exact (summed feature by feature, as in the trees) whatever the search,
        so exact ties stay ties and are ordered by training index. Which of several points
        tied at the k-th distance enters the neighbourhood is up to the search (as in
        scikit-learn and scikit-lr); resolving it would cost a (k+1)-th neighbour per query.

        With ``prefixes`` (a local fit or the leave-one-out, which only need sets), a search
        in a full distance matrix (large k; every leave-one-out search on at most
        ``_FULL_MATRIX_N`` training rows) skips the sort: each row is only partitioned so
        that its first ``c`` entries are the ``c`` nearest for every ``c`` in ``prefixes``
        and k (sorting 10^4 neighbours of 10^3 queries costs seconds).
        """
        if Zq.shape[0] == 0:
            return np.empty((0, k)), np.empty((0, k), dtype=np.intp)
        n = self._Z.shape[0]
        Zq = np.ascontiguousarray(Zq)
        if self._scans(k):
            dist = np.empty((Zq.shape[0], k))
            ind = np.empty((Zq.shape[0], k), dtype=np.intp)
            _nb_nearest(self._Zt, Zq, np.full(Zq.shape[0], -1, dtype=np.intp), dist, ind)
            return dist, ind
        # a tree only pays off for small k: a query for a large share of the data is a sort
        small = k <= max(64, n // 32)
        # the leave-one-out on a small training set: one exact distance matrix beats a tree
        # search for 51 neighbours of every row (then sorted: cheaper than many partitions)
        full = not small or (
            prefixes is not None and n <= _FULL_MATRIX_N and Zq.shape[1] <= _MAX_TREE_DIM
        )
        # beyond 8 features a tree search for more than 16 neighbours loses to brute force
        tree = self.algorithm_ != "brute" and (
            Zq.shape[1] <= _MAX_TREE_DIM or k <= 16 or self.algorithm != "auto"
        )
        if small and not full and tree:
            dist, ind = self._tree_index().query(Zq, k=k)
            if not (dist[:, 1:] == dist[:, :-1]).any():
                return dist, ind  # sorted by distance, no ties to order by index
        elif not full:
            ind = self._brute_index().kneighbors(Zq, n_neighbors=k, return_distance=False)
            dist = np.empty(ind.shape)
            _nb_exact_distances(self._Z, Zq, ind, dist)
        else:
            dist = np.empty((Zq.shape[0], k))
            ind = np.empty((Zq.shape[0], k), dtype=np.intp)
            kth = [k - 1]
            if not small and prefixes is not None:
                kth = sorted({c - 1 for c in prefixes if 1 <= c < k} | {k - 1})
            step = max(1, 2**22 // max(1, n))
            d2 = np.empty((min(step, Zq.shape[0]), n))
            exact = Zq.shape[1] <= _MAX_TREE_DIM
            for s in range(0, Zq.shape[0], step):
                q = Zq[s : s + step]
                block = d2[: q.shape[0]]
                if exact:
                    _nb_squared_distances(self._Zt, q, block)
                else:
                    # many features: BLAS (|x|^2 - 2 x.y + |y|^2) selects, exact distances
                    # of the selected rows are recomputed below
                    np.matmul(q, self._Zt, out=block)
                    block *= -2.0
                    block += self._sqnorm
                    block += np.einsum("ij,ij->i", q, q)[:, None]
                part = np.argpartition(block, kth, axis=1)[:, :k]
                ind[s : s + step] = part
                if exact:
                    dist[s : s + step] = np.sqrt(np.take_along_axis(block, part, axis=1))
            if not exact:
                _nb_exact_distances(self._Z, Zq, ind, dist)
            if prefixes is not None and not small:
                return dist, ind
        # stable order by (distance, training index): deterministic ties (decisions.md C4)
        order = np.lexsort((ind, dist), axis=1)
        return np.take_along_axis(dist, order, axis=1), np.take_along_axis(ind, order, axis=1)

    def _select_k(
        self, Z: np.ndarray, R: Rankings, grid: list[int]
    ) -> tuple[int, dict[int, float], int, int]:
        """Leave-one-out choice of k on at most ``cv_max_eval`` training rows.

        Criterion: mean Kendall tau on the observed pairs of the held-out ranking (rows with
        no pair are skipped); ties go to the smaller k. One neighbour search for the largest
        candidate serves every candidate (the k nearest are a prefix of the sorted list);
        an extension of the grid looks a few steps ahead in one search.

        Returns the chosen k, the scores, and the numbers of local fits that did not
        converge and of local fits made (for one summarised warning).
        """
        n = Z.shape[0]
        evaluate = np.arange(n)
        if n > self.cv_max_eval:
            # seeded only here: a RandomState costs more than a small fold's search
            rng = check_random_state(self.random_state)
            evaluate = np.sort(rng.choice(n, size=self.cv_max_eval, replace=False))
        useful = R.lengths[evaluate] >= 2
        evaluate = evaluate[useful]
        if evaluate.size == 0:
            return grid[0], dict.fromkeys(grid, np.nan), 0, 0
        truth = R.ranks[evaluate]
        scores: dict[int, float] = {}
        n_bad = n_fits = 0
        batch = list(grid)
        extending = False
        while True:
            k_max = max(batch)
            if self._scans(k_max):
                # the k_max nearest other rows, exactly and sorted, in one compiled scan
                dist = np.empty((evaluate.size, k_max))
                ind = np.empty((evaluate.size, k_max), dtype=np.intp)
                _nb_nearest(self._Zt, Z[evaluate], evaluate.astype(np.intp), dist, ind)
            else:
                dist, ind = self._kneighbors(
                    Z[evaluate], min(k_max + 1, n), prefixes=[c + 1 for c in batch]
                )
                # drop the query itself (usually, but with duplicates not always, first)
                is_self = ind == evaluate[:, None]
                order = np.argsort(is_self, axis=1, kind="stable")[:, :k_max]
                dist = np.ascontiguousarray(np.take_along_axis(dist, order, axis=1))
                ind = np.ascontiguousarray(np.take_along_axis(ind, order, axis=1))
            tau, bad = self._loo_scores(dist, ind, truth, batch)
            n_bad += bad
            n_fits += tau.size
            # one row per candidate: the same pairwise sums as np.nanmean of each column
            means = np.nanmean(np.ascontiguousarray(tau.T), axis=1)
            for g, k in enumerate(batch):
                scores[k] = float(means[g])
                if not extending:
                    continue
                # the extension stops at the first candidate that is not the best
                best = max(scores, key=lambda c: (scores[c], -c))
                if best != k or k >= n - 1:
                    return best, scores, n_bad, n_fits
            best = max(scores, key=lambda c: (scores[c], -c))
            last = batch[-1]
            if not self.extend_grid or best != last or last >= n - 1:
                return best, scores, n_bad, n_fits
            # the best k is the largest tried: the grid may be too small, extend it by
            # factors of 1.5 (the next steps share one neighbour search)
            extending = True
            batch = []
            while len(batch) < _LOOKAHEAD and last < n - 1:
                last = min(int(np.ceil(1.5 * last)), n - 1)
                batch.append(last)

    def _loo_scores(
        self, dist: np.ndarray, ind: np.ndarray, truth: np.ndarray, ks: list[int]
    ) -> tuple[np.ndarray, int]:
        """Kendall tau (E, len(ks)) of each held-out row predicted with each k (prefixes).

        ``truth`` (E, m): the held-out rows' 0-based positions (``Rankings.ranks``). Also
        returns the number of local fits that did not converge.
        """
        positions = np.empty((ind.shape[0], len(ks), self.n_items_), dtype=np.int64)
        n_bad = np.zeros(len(ks), dtype=np.int64)
        self._loo_fits(dist, ind, np.asarray(ks, dtype=np.int64), positions, n_bad)
        return _tau_per_k(truth, positions), int(n_bad.sum())

    def _loo_fits(
        self, dist: np.ndarray, ind: np.ndarray, ks: np.ndarray, positions: np.ndarray,
        n_bad: np.ndarray,
    ) -> None:  # fmt: skip
        """Fill the (E, G, m) predicted positions of the held-out rows for every k in ``ks``
        and the (G,) counts of local fits that did not converge (the compiled kernel)."""
        raise NotImplementedError

    # the subject and the advice of the ConvergenceWarning (subclass text)
    _fit_subject = "the local fit"

    def _not_converged_advice(self) -> str:
        return ""

    def _warn_not_converged(self, n_bad: int, n_fits: int, where: str = "") -> None:
        """One ConvergenceWarning for ``n_bad`` of ``n_fits`` local fits."""
        if n_bad:
            where = f" {where}" if where else ""
            warnings.warn(
                f"{type(self).__name__}: {self._fit_subject} did not converge for {n_bad} of "
                f"{n_fits} local fits{where}{self._not_converged_advice()}",
                ConvergenceWarning,
                stacklevel=4,
            )

    # ---------------------------------------------------------------- predict
    def _neighbours(self, X: Any, sort: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Neighbours of the queries (``sort=False``: only the set matters, see _kneighbors)."""
        Xc = validate_predict_data(self, X)
        k = self.n_neighbors_
        return self._kneighbors(self._scale(Xc), k, prefixes=None if sort else [k])

    def _predict_from_neighbours(self, dist: np.ndarray, ind: np.ndarray) -> np.ndarray:
        """Position vectors (q, m) of the local models; one warning if some did not converge."""
        raise NotImplementedError

    def predict(self, X: Any) -> np.ndarray:
        """Predict complete label rankings.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ranks : ndarray of int64, shape (n_samples, n_labels)
            1-based ranks (every row a permutation of ``1..n_labels``; 1 = best).
        """
        dist, ind = self._neighbours(X, sort=self._needs_sorted_neighbours)
        return self._ranks_out(self._predict_from_neighbours(dist, ind))

    def _prepare(self, R: Rankings) -> None:
        """Per-training-set precomputation (hook)."""

    # ---------------------------------------------------------------- loading
    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`.

        Only the training data is checked: everything derived from it (the search indexes,
        the kernels' rank and vote arrays) is recomputed by :meth:`_rebuild_after_load`.
        """
        if not loaded.is_fitted(self):
            return
        d = loaded.int_attr(self, "n_features_in_", low=1)
        m = loaded.int_attr(self, "n_items_", low=1)
        self._validate_loaded_names(m)
        Z = loaded.array_attr(self, "_Z", shape=(None, d))
        n = Z.shape[0]
        if Z.dtype != np.float64 or n < 1:
            raise ValueError("_Z: expected a float64 array with at least one row")
        loaded.rankings_attr(self, "rankings_", n_items=m, n_rankings=n, ties=False)
        loaded.array_attr(self, "feature_shift_", shape=(d,))
        loaded.array_attr(self, "feature_scale_", shape=(d,))
        loaded.int_attr(self, "n_neighbors_", low=1, high=n)
        loaded.choice_attr(self, "algorithm_", ("kd_tree", "ball_tree", "brute"))


class IBLRMallows(_BaseIBLR):
    """Instance-based label ranking with a local Mallows model (IBLR, Cheng et al. 2009).

    For a query, the rankings of its ``k`` nearest neighbours (Euclidean distance on
    standardised features by default: see ``scaling``) are taken as a weighted sample from a
    Mallows model; the prediction
    is the model's centre, estimated by the paper's approximate EM (Alg. 1): start from the
    weighted generalised Borda count (Prop. 2), complete every incomplete neighbour ranking by
    its most probable extension (Prop. 1), take the weighted Borda count of the completions,
    repeat until the centre repeats. The spread ``theta`` is the reliability score
    (:meth:`predict_theta`). Also known as IB-Mallows / IB-M; not the unrelated
    "instance-based logistic regression".

    Parameters
    ----------
    n_neighbors : int or "auto", default="auto"
        ``k``. ``"auto"`` chooses it from ``k_grid`` by leave-one-out on the training set
        (mean Kendall tau on observed pairs, ties to the smaller k), as the paper's "cross
        validation on the training set".
    weights : {"dudani", "uniform"}, default="dudani"
        Distance weights: Dudani's ``(d_k - d_i)/(d_k - d_1)`` (all ones when
        ``d_k = d_1``; the k-th neighbour weighs 0, so at most k - 1 neighbours count), or
        uniform. Each weight is multiplied by the incompleteness weight ``|Y(sigma_i)|/m``
        (used in every Borda step, decisions.md C5); if a query's weights sum to zero the
        incompleteness weights alone are used, then uniform weights.
    scaling : {"none", "minmax", "zscore"}, default="zscore"
        Feature normalisation fitted on the training data (constant features map to 0):
        ``"zscore"`` subtracts each feature's mean and divides by its standard deviation, so
        that no feature dominates the Euclidean distance by its units (survey codes such as
        seconds spent on a form next to a 0/1 gender make the raw distance a distance in
        seconds: on SUSHI with the respondents' demographics IBLR gains 0.013 Kendall tau
        from it, ``experiments/studies/results/label_ranking_sushi_demographics.md``). The
        paper measures "Euclidean distance (after normalizing the attributes)"; on its data files
        (the KEBI sets of :func:`rankclust.datasets.load_label_ranking`, which ship
        normalised) standardising again moves the 16-set averages of Table 2 by +0.001,
        +0.001 and -0.005 (0, 30 and 60 % missing labels; iris, whose features ship scaled
        to [-1, 1], loses 0.02-0.08:
        ``experiments/cheng2009/results/label_ranking_cheng2009.md``). ``"none"`` uses the
        features as given (like scikit-learn's neighbour estimators and scikit-lr), for
        features already on one scale; ``"minmax"`` maps each to [0, 1] (sensitive to
        outliers: min-max on z-scores with outliers cost 0.02-0.035 Kendall tau on bodyfat
        and cpu in ``benchmarks/bench_label_ranking.py``).
    k_grid : tuple of int, default=K_GRID
        Candidates for ``n_neighbors="auto"``, restricted to ``[1, n_train - 1]``.
    cv_max_eval : int, default=1000
        Leave-one-out evaluates at most this many (seeded random) training rows.
    extend_grid : bool, default=True
        When the best k is the largest candidate, also try ``ceil(1.5 k)`` (capped at
        ``n_train - 1``), and so on while the largest stays best: with many missing labels
        the best neighbourhood grows beyond any fixed grid.
    algorithm : {"auto", "ball_tree", "kd_tree", "brute"}, default="auto"
        Exact Euclidean neighbour search: scikit-learn's :class:`~sklearn.neighbors.KDTree`
        or :class:`~sklearn.neighbors.BallTree`, or brute force; ``"auto"`` uses the KD-tree
        up to 15 features and brute force beyond, and scans the training rows in one
        compiled pass where that is cheaper than building an index (at most 64 neighbours on
        at most 2048 rows or instead of brute force). Every search is exact: they differ
        at most in which of several rows tied at the k-th distance enters (the scan takes
        the lowest-numbered).
    random_state : None, int or RandomState, default=None
        Seeds the subsample of ``cv_max_eval``.
    max_iter : int, default=100
        Cap on the approximate-EM iterations per query.

    Attributes
    ----------
    n_items_ : int
        Number of labels.
    n_features_in_ : int
    n_neighbors_ : int
        The ``k`` used.
    cv_scores_ : dict or None
        Leave-one-out mean tau per candidate k (``n_neighbors="auto"`` only).
    rankings_ : Rankings
        Training rankings.
    feature_shift_, feature_scale_ : ndarray of shape (n_features_in_,)
        The normalisation ``(x - feature_shift_) * feature_scale_``.
    algorithm_ : str
        Neighbour search used (``"kd_tree"``, ``"ball_tree"`` or ``"brute"``).
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    See Also
    --------
    IBLRPlackettLuce, rankclust.models.mallows.estimate_center

    Notes
    -----
    The local fit per query equals
    ``estimate_center(Y[neighbours], w, method="borda")`` and
    ``estimate_theta(..., theta_max=inf)``; all queries are fitted in one compiled pass over
    the (q, k) neighbour index matrix. Ties in Borda totals go to the lower label index,
    ties in distance to the lower training index. The leave-one-out choice of k searches
    the neighbours once, for the largest candidate, and scores every candidate from
    prefixes of the same lists in one compiled pass. ``theta`` of a pure neighbourhood is
    ``inf``; completing incomplete rankings towards the centre biases ``theta`` upwards (the
    paper's estimator, kept for fidelity).

    Complexity: fit O(n d) plus, for ``"auto"``, one neighbour search for E =
    min(n, cv_max_eval) rows and O(E sum(grid) m) for the local fits (times ``iter m`` with
    incomplete rankings); predict O(q (log n + k m)) time with a tree index (O(q n d) by
    brute force), times ``iter m`` with incomplete rankings; O(n (d + m)) memory.

    References
    ----------
    Cheng, W., Hühn, J. and Hüllermeier, E. (2009). Decision tree and instance-based learning
    for label ranking. ICML, Sec. 4 and Alg. 1. Dudani, S. A. (1976). The distance-weighted
    k-nearest-neighbor rule. IEEE Trans. SMC 6(4).

    Examples
    --------
    >>> from rankclust.datasets import load_label_ranking
    >>> from rankclust.label_ranking import IBLRMallows
    >>> X, Y = load_label_ranking("iris")
    >>> model = IBLRMallows(n_neighbors=10).fit(X[::2], Y[::2])
    >>> model.predict(X[1:4])
    array([[1, 2, 3],
           [1, 2, 3],
           [1, 2, 3]])
    >>> round(model.score(X[1::2], Y[1::2]), 2)
    0.96
    """

    _needs_sorted_neighbours = False
    _fit_subject = "the approximate EM"

    def _prepare(self, R: Rankings) -> None:
        lengths = R.lengths
        # the generalised Borda votes only start the EM of incomplete neighbourhoods: with
        # complete training rankings the kernels never read them (an empty placeholder)
        self._votes = (
            generalized_borda_votes(R) if (lengths < R.n_items).any() else np.zeros((0, R.n_items))
        )
        self._ranks = np.ascontiguousarray(R.ranks)
        self._completeness = lengths / R.n_items

    def _fit_centers(
        self, dist: np.ndarray, ind: np.ndarray, need_dist: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Local centres, mean completion distances and convergence flags of the queries."""
        q, m = ind.shape[0], self.n_items_
        centers = np.empty((q, m), dtype=np.int64)
        mean_dist = np.empty(q)
        n_iter = np.empty(q, dtype=np.int64)
        converged = np.empty(q, dtype=np.bool_)
        if q:
            _nb_predict_centers(
                self._ranks,
                self._votes,
                self._completeness,
                np.ascontiguousarray(ind, dtype=np.intp),
                np.ascontiguousarray(dist, dtype=np.float64),
                self.weights == "uniform",
                self.max_iter,
                need_dist,
                CenterFits(centers, mean_dist, n_iter, converged),
            )
        return centers, mean_dist, converged

    def _not_converged_advice(self) -> str:
        return (
            f" (max_iter={self.max_iter} reached or the centres cycled); the best centre seen "
            "is used. Increase max_iter if the centres did not cycle."
        )

    def _predict_from_neighbours(self, dist: np.ndarray, ind: np.ndarray) -> np.ndarray:
        centers, _, converged = self._fit_centers(dist, ind)
        self._warn_not_converged(int((~converged).sum()), converged.size)
        return centers

    def _loo_fits(
        self, dist: np.ndarray, ind: np.ndarray, ks: np.ndarray, positions: np.ndarray,
        n_bad: np.ndarray,
    ) -> None:  # fmt: skip
        _nb_loo_centers(
            self._ranks, self._votes, self._completeness, ind, dist, ks,
            self.weights == "uniform", self.max_iter, positions, n_bad,
        )  # fmt: skip

    def predict_theta(self, X: Any) -> np.ndarray:
        """Local Mallows spread ``theta`` per query: the reliability of its prediction.

        Returns
        -------
        theta : ndarray of float64, shape (n_samples,)
            Maximum-likelihood spread of the local model (``inf`` for a pure neighbourhood,
            0 at or beyond the uniform distribution's mean distance).
        """
        dist, ind = self._neighbours(X, sort=False)
        _, mean, converged = self._fit_centers(dist, ind, need_dist=True)
        self._warn_not_converged(int((~converged).sum()), converged.size)
        uniq, inv = np.unique(np.round(mean, 12), return_inverse=True)
        thetas = np.array([theta_mle(v, self.n_items_, theta_max=np.inf) for v in uniq])
        return thetas[inv.reshape(-1)] if uniq.size else np.empty(0)


#: The paper's name for :class:`IBLRMallows`.
IBLR = IBLRMallows


class IBLRPlackettLuce(_BaseIBLR):
    """Instance-based label ranking with a local Plackett-Luce model (IB-PL).

    As :class:`IBLRMallows`, but the neighbour rankings (incomplete ones included through their
    own likelihood, no completion needed) are fitted by a weighted Plackett-Luce model (the
    MAP estimate of :func:`rankclust.models.plackett_luce.fit_scores` with a Gamma prior)
    and the prediction orders the labels by their fitted scores, ties (within 1e-9) to the
    lower index (Cheng, Dembczyński and Hüllermeier 2010).

    Parameters
    ----------
    n_neighbors, weights, scaling, k_grid, cv_max_eval, extend_grid, algorithm, random_state
        As in :class:`IBLRMallows` (without the incompleteness weight, which the
        Plackett-Luce likelihood does not need). ``cv_max_eval`` defaults to 300 because each
        local fit is iterative.
    alpha : float, default=0.1
        Strength of the Gamma(1 + alpha, alpha) prior of the MAP fit; ``alpha > 0`` keeps the
        estimate finite when a label always wins or always loses among the neighbours (the
        usual case for small k). Must be positive.
    max_iter : int, default=100
        Cap on Newton steps per local fit (a few are needed: see Notes). Local fits that
        reach it are reported in one :class:`~sklearn.exceptions.ConvergenceWarning` per
        ``fit`` or ``predict`` call, which names this parameter.
    tol : float, default=1e-4
        Convergence when a Newton step moves no centred log-worth by more than ``tol``
        (quadratic convergence: the scores are then accurate to about ``tol**2``).

    Attributes
    ----------
    n_items_, n_features_in_, n_neighbors_, cv_scores_, rankings_, feature_shift_,
    feature_scale_, algorithm_
        As in :class:`IBLRMallows`.
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    See Also
    --------
    IBLRMallows, rankclust.models.plackett_luce.fit_scores

    Notes
    -----
    The local log posterior ``sum_stages w (theta_winner - log sum_available exp(theta)) +
    alpha sum_labels (theta - exp(theta))`` is strictly concave in the log-worths
    ``theta`` for ``alpha > 0``, so each local fit runs damped Newton steps (Cholesky
    solve, Armijo backtracking) from one MM step away from equal worths: 3-9 steps reach
    ``tol`` (glass, housing, vowel, wisconsin; k = 3 to 50), where Hunter's MM update (the
    same optimum) crawls when a label always wins among few neighbours (about 100 updates
    to ``tol = 1e-4`` with ``alpha = 0.1``, thousands with ``alpha = 0.01``; the previous
    per-query MM stopped at ``max_iter = 100`` and warned once per batch of queries:
    ``benchmarks/RESULTS_iblr_pl.md``). All queries are fitted in one compiled
    pass; the leave-one-out choice of k fits the nested neighbourhoods of one held-out row
    in increasing k, each starting from the previous optimum.

    Complexity: predict O(q (log n + T k m^2 + T m^3)) time for T Newton steps per query.

    References
    ----------
    Cheng, W., Dembczyński, K. and Hüllermeier, E. (2010). Label ranking methods based on the
    Plackett-Luce model. ICML. Hunter, D. R. (2004). MM algorithms for generalized
    Bradley-Terry models. Ann. Statist. 32(1). Caron, F. and Doucet, A. (2012). Efficient
    Bayesian inference for generalized Bradley-Terry models. JCGS 21(1).

    Examples
    --------
    >>> from rankclust.datasets import load_label_ranking
    >>> from rankclust.label_ranking import IBLRPlackettLuce
    >>> X, Y = load_label_ranking("iris")
    >>> model = IBLRPlackettLuce(n_neighbors=10).fit(X[::2], Y[::2])
    >>> round(model.score(X[1::2], Y[1::2]), 2)
    0.96
    """

    _parameter_constraints: dict = {  # noqa: RUF012
        **_BaseIBLR._parameter_constraints,
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    _needs_sorted_neighbours = False
    _fit_subject = "the local Plackett-Luce fit"

    def __init__(
        self,
        n_neighbors: int | str = "auto",
        *,
        weights: str = "dudani",
        scaling: str = "zscore",
        k_grid: tuple = K_GRID,
        cv_max_eval: int = 300,
        extend_grid: bool = True,
        algorithm: str = "auto",
        random_state: Any = None,
        alpha: float = 0.1,
        max_iter: int = 100,
        tol: float = 1e-4,
    ) -> None:
        super().__init__(
            n_neighbors,
            weights=weights,
            scaling=scaling,
            k_grid=k_grid,
            cv_max_eval=cv_max_eval,
            extend_grid=extend_grid,
            algorithm=algorithm,
            random_state=random_state,
            max_iter=max_iter,
        )
        self.alpha = alpha
        self.tol = tol

    def _prepare(self, R: Rankings) -> None:
        lengths = R.lengths
        # orderings: present labels best first, then -1
        key = np.where(R.ranks >= 0, R.ranks, R.n_items)
        orders = np.argsort(key, axis=1, kind="stable")
        orders[np.arange(R.n_items)[None, :] >= lengths[:, None]] = -1
        self._orders = np.ascontiguousarray(orders, dtype=np.int64)
        self._lengths = np.ascontiguousarray(lengths, dtype=np.int64)
        self._row_weights = np.ascontiguousarray(R.weights, dtype=np.float64)

    def _fit_scores(
        self, dist: np.ndarray, ind: np.ndarray, order_only: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Centred MAP log-worths, position vectors and convergence flags of the queries.

        ``order_only``: the fits stop once the order of the scores is settled (see
        :func:`~rankclust.label_ranking._iblr_kernels._pl_map_one`), for ``predict``.
        """
        q, m = ind.shape[0], self.n_items_
        scores = np.empty((q, m))
        positions = np.empty((q, m), dtype=np.int64)
        n_iter = np.empty(q, dtype=np.int64)
        converged = np.empty(q, dtype=np.bool_)
        if q:
            _nb_predict_pl(
                PLRows(self._orders, self._lengths, self._row_weights),
                np.ascontiguousarray(ind, dtype=np.intp),
                np.ascontiguousarray(dist, dtype=np.float64),
                self.weights == "uniform",
                PLFit(float(self.alpha), int(self.max_iter), float(self.tol), order_only),
                scores, positions, n_iter, converged,
            )  # fmt: skip
        return scores, positions, converged

    def _not_converged_advice(self) -> str:
        return (
            f" within max_iter={self.max_iter} Newton steps (tol={self.tol}); the last scores "
            "are used. Increase max_iter (or tol) to fit them fully."
        )

    def _predict_from_neighbours(self, dist: np.ndarray, ind: np.ndarray) -> np.ndarray:
        _, positions, converged = self._fit_scores(dist, ind, order_only=True)
        self._warn_not_converged(int((~converged).sum()), converged.size)
        return positions

    def _loo_fits(
        self, dist: np.ndarray, ind: np.ndarray, ks: np.ndarray, positions: np.ndarray,
        n_bad: np.ndarray,
    ) -> None:  # fmt: skip
        _nb_loo_pl(
            PLRows(self._orders, self._lengths, self._row_weights), ind, dist, ks,
            self.weights == "uniform",
            PLFit(float(self.alpha), int(self.max_iter), float(self.tol), True), positions, n_bad,
        )  # fmt: skip

    def predict_scores(self, X: Any) -> np.ndarray:
        """Centred log-worths of the local Plackett-Luce model of every query.

        Returns
        -------
        scores : ndarray of float64, shape (n_samples, n_labels)
            MAP log-worths (mean zero per row); ``predict`` orders the labels by them.
        """
        dist, ind = self._neighbours(X, sort=False)
        scores, _, converged = self._fit_scores(dist, ind)
        self._warn_not_converged(int((~converged).sum()), converged.size)
        return scores


def _tau_per_k(truth: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Kendall tau of every held-out row's prediction for every candidate k, shape (E, G),
    from the (E, m) true 0-based positions (``Rankings.ranks``, -1 = missing) and the
    (E, G, m) label positions of the leave-one-out kernels: the values of
    :func:`rankclust.metrics.kendall_tau_rows` (NaN for a row without a pair), in one
    compiled pass instead of one validated call per candidate (and no ``Rankings`` of the
    held-out rows)."""
    n_e, n_g, _ = positions.shape
    disc = np.empty((n_e, n_g), dtype=np.int64)
    comp = np.empty((n_e, n_g), dtype=np.int64)
    _nb_tau_counts(np.ascontiguousarray(truth, dtype=np.int64), positions, disc, comp)
    tau = np.full((n_e, n_g), np.nan)
    ok = comp > 0
    tau[ok] = (comp[ok] - 2 * disc[ok]) / comp[ok]
    return tau
