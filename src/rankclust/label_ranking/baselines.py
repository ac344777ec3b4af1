"""Baseline label rankers: constraint classification, pairwise comparison, one ranking.

* :class:`ConstraintClassification` (CC, Har-Peled, Roth and Zimak 2003) -- one linear utility
  per label, learned by an online perceptron on the Kesler expansion of every observed
  preference, as configured by Cheng et al. (2009): noise-tolerant perceptron with Khardon and
  Wachman's alpha bound (alpha = 500).
* :class:`PairwiseLabelRanker` (RPC, Hüllermeier, Fürnkranz, Cheng and Brinker 2008) -- one
  probabilistic binary classifier per pair of labels, weighted voting.
* :class:`ConsensusLabelRanker` -- the "1-rank" baseline: the consensus (Mallows centre) of
  all training rankings, predicted for every instance.

The data conventions (1-based ranks in and out, 0/NaN = missing label) are in
:mod:`rankclust.label_ranking`.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, NamedTuple

import numba
import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import ConvergenceWarning, UndefinedMetricWarning
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MinMaxScaler
from sklearn.utils import check_random_state

from rankclust import _loaded_state as loaded
from rankclust._param_validation import Interval, StrOptions, ValidatedParamsMixin
from rankclust.label_ranking._base import (
    LabelRankerMixin,
    positions_to_ranks,
    validate_fit_data,
    validate_predict_data,
)
from rankclust.metrics import kendall_tau
from rankclust.models.mallows import CENTER_METHODS, estimate_center

__all__ = [
    "CC_ALPHA_GRID",
    "ConsensusLabelRanker",
    "ConstraintClassification",
    "PairwiseLabelRanker",
]

#: Update caps tried by ``ConstraintClassification(alpha="auto")``: from strongly
#: noise-tolerant to Cheng et al.'s 500 (which never binds within 100 epochs).
CC_ALPHA_GRID = (3, 10, 30, 500)


def _order_by_scores(scores: np.ndarray) -> np.ndarray:
    """Position vectors (per row) ranking higher scores first, ties to the lower label index."""
    n, m = scores.shape
    order = np.lexsort((np.broadcast_to(np.arange(m), (n, m)), -scores), axis=1)
    pos = np.empty((n, m), dtype=np.int64)
    np.put_along_axis(pos, order, np.broadcast_to(np.arange(m), (n, m)), axis=1)
    return pos


# --------------------------------------------------------------------------------------------
# CC kernel
# --------------------------------------------------------------------------------------------
def _cc_epoch(Z, ranks, perm, alpha, W, W_sum, counts):  # pragma: no cover - compiled below
    """One perceptron epoch over the Kesler constraints ``<w_a - w_b, z> > 0`` for a above b.

    IN: ``Z`` (n, p) inputs with the bias column; ``ranks`` (n, m) positions (-1 absent);
    ``perm`` (n,) visiting order; ``alpha`` update cap per (example, a, b) constraint.
    IN/OUT: ``W`` (m, p) weights; ``W_sum`` (m, p) running sum of ``W`` after every visited
    example (for the averaged perceptron); ``counts`` (n, m, m) int32 updates per constraint.
    Returns the number of mistakes (updates) made. O(sum_i l_i^2 p) time.
    """
    n, m = ranks.shape
    p = Z.shape[1]
    mistakes = 0
    for t in range(n):
        i = perm[t]
        z = Z[i]
        for a in range(m):
            ra = ranks[i, a]
            if ra < 0:
                continue
            for b in range(m):
                rb = ranks[i, b]
                if rb < 0 or ra >= rb or counts[i, a, b] >= alpha:
                    continue
                s = 0.0
                for f in range(p):
                    s += (W[a, f] - W[b, f]) * z[f]
                if s <= 0.0:
                    for f in range(p):
                        W[a, f] += z[f]
                        W[b, f] -= z[f]
                    counts[i, a, b] += 1
                    mistakes += 1
        for a in range(m):
            for f in range(p):
                W_sum[a, f] += W[a, f]
    return mistakes


_nb_cc_epoch = numba.njit(_cc_epoch, cache=True, nogil=True)


class _CapRun(NamedTuple):
    """The perceptron of one candidate cap of ``alpha="auto"``: its training Kendall tau,
    weights and epochs."""

    tau: float
    coef: np.ndarray
    epochs: int


class ConstraintClassification(LabelRankerMixin, ValidatedParamsMixin, BaseEstimator):
    """Constraint classification (CC) with a noise-tolerant online perceptron.

    One linear utility ``f_l(x) = <w_l, (x, 1)>`` per label on min-max normalised features;
    labels are predicted in decreasing utility (ties to the lower label index). Every observed
    preference ``a > b`` of a training ranking is the binary constraint
    ``<w_a - w_b, (x, 1)> > 0`` (Kesler's construction); the perceptron visits the examples in
    a random order each epoch and updates on every violated constraint, each constraint at
    most ``alpha`` times (Khardon and Wachman's alpha bound, the "alpha-trick" with
    ``alpha = 500`` of Cheng et al. 2009), until an epoch makes no mistake or ``max_epochs``.

    Parameters
    ----------
    alpha : int or "auto", default="auto"
        Update cap per (example, preference) constraint. ``"auto"`` runs the perceptron with
        every cap of :data:`CC_ALPHA_GRID` (3, 10, 30, 500) and keeps the one whose model has
        the highest Kendall tau on the training rankings (ties to the larger cap). A cap of
        500 (Cheng et al.'s setting) never binds within 100 epochs, so every violated
        constraint keeps pulling the weights: on noisy survey data (SUSHI with the
        respondents' demographics) the averaged perceptron then loses to the one-ranking
        baseline (Kendall tau 0.26 against 0.31), while a cap that binds gives 0.32
        (``experiments/studies/results/label_ranking_sushi_demographics.md``). The candidates are
        linear models of the same capacity, so the training tau (the objective the
        perceptron does not optimise directly) chooses between them without a held-out
        set. Pass ``alpha=500`` for the paper's configuration.
    max_epochs : int, default=100
    averaged : bool, default=True
        Predict with the average of the weight vectors over all example visits (the averaged
        perceptron) instead of the last vector. The paper names a "noise-tolerant perceptron"
        (Khardon and Wachman 2007) without saying which hypothesis is kept; the last vector
        of a perceptron keeps oscillating on non-separable data (measured: Kendall tau 0.07
        instead of 0.21 on calhousing), the averaged one is the noise-tolerant choice of
        Khardon and Wachman's study. ``averaged=False`` is kept for comparison.
    random_state : None, int or RandomState, default=None
        Seeds the visiting order.

    Attributes
    ----------
    coef_ : ndarray of float64, shape (n_items_, n_features_in_ + 1)
        Utility weights per label; the last column is the bias.
    n_items_, n_features_in_ : int
    n_iter_ : int
        Epochs run (by the kept run).
    alpha_ : int
        The update cap used (``alpha``, or the one chosen by ``"auto"``).
    train_scores_ : dict or None
        Training Kendall tau per candidate cap (``alpha="auto"`` only).
    scaler_ : MinMaxScaler
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    A :class:`~sklearn.exceptions.ConvergenceWarning` is not raised when ``max_epochs`` is
    reached: on non-separable data the perceptron never stops making mistakes, which the
    alpha bound is meant to tolerate.

    Complexity: O(E sum_i l_i^2 d) time for E epochs and l_i labels per ranking (times
    the 4 candidates for ``alpha="auto"``, where the small caps stop early),
    O(n m^2 + m d) memory.

    References
    ----------
    Har-Peled, S., Roth, D. and Zimak, D. (2003). Constraint classification for multiclass
    classification and ranking. NIPS. Khardon, R. and Wachman, G. (2007). Noise tolerant
    variants of the perceptron algorithm. JMLR 8. Cheng, Hühn and Hüllermeier (2009), Sec. 6.

    Examples
    --------
    >>> from rankclust.datasets import load_label_ranking
    >>> from rankclust.label_ranking import ConstraintClassification
    >>> X, Y = load_label_ranking("fried")
    >>> cc = ConstraintClassification(random_state=0).fit(X[:2000], Y[:2000])
    >>> round(cc.score(X[2000:3000], Y[2000:3000]), 1)
    1.0
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "alpha": [Interval(numbers.Integral, 1, None), StrOptions({"auto"})],
        "max_epochs": [Interval(numbers.Integral, 1, None)],
        "averaged": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        alpha: int | str = "auto",
        max_epochs: int = 100,
        averaged: bool = True,
        random_state: Any = None,
    ) -> None:
        self.alpha = alpha
        self.max_epochs = max_epochs
        self.averaged = averaged
        self.random_state = random_state

    def fit(self, X: Any, Y: Any) -> ConstraintClassification:
        """Learn the label utilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        Y : Rankings or array-like of 1-based ranks, shape (n_samples, n_labels)

        Returns
        -------
        self
        """
        self._validate_params()
        X, R = validate_fit_data(self, X, Y)
        rng = check_random_state(self.random_state)
        self.scaler_ = MinMaxScaler().fit(X)
        Z = self._design(X)
        ranks = np.ascontiguousarray(R.ranks)
        if self.alpha == "auto":
            # every candidate visits the examples in the same orders
            seed = rng.randint(np.iinfo(np.int32).max)
            runs = {}
            for alpha in CC_ALPHA_GRID:
                coef, epochs = self._perceptron(Z, ranks, alpha, np.random.RandomState(seed))
                with warnings.catch_warnings():  # no comparable pair: NaN, every cap ties
                    warnings.simplefilter("ignore", UndefinedMetricWarning)
                    tau = kendall_tau(R, positions_to_ranks(_order_by_scores(Z @ coef.T)))
                runs[alpha] = _CapRun(tau, coef, epochs)
            # the highest training tau, of equal ones the largest cap (NaN: no comparable pair)
            self.alpha_ = max(runs, key=lambda a: (np.nan_to_num(runs[a].tau, nan=-np.inf), a))
            self.train_scores_ = {a: float(run.tau) for a, run in runs.items()}
            self.coef_, self.n_iter_ = runs[self.alpha_].coef, runs[self.alpha_].epochs
        else:
            self.alpha_ = int(self.alpha)
            self.train_scores_ = None
            self.coef_, self.n_iter_ = self._perceptron(Z, ranks, self.alpha_, rng)
        self.n_items_ = R.n_items
        return self

    def _perceptron(
        self, Z: np.ndarray, ranks: np.ndarray, alpha: int, rng: np.random.RandomState
    ) -> tuple[np.ndarray, int]:
        """One perceptron run: the (averaged or last) weights and the epochs run."""
        n, m = ranks.shape
        W = np.zeros((m, Z.shape[1]))
        W_sum = np.zeros_like(W)
        counts = np.zeros((n, m, m), dtype=np.int32)
        epochs = 0
        for epochs in range(1, self.max_epochs + 1):  # noqa: B007 - used after the loop
            perm = rng.permutation(n).astype(np.int64)
            if _nb_cc_epoch(Z, ranks, perm, int(alpha), W, W_sum, counts) == 0:
                break
        return (W_sum / (epochs * n) if self.averaged else W), epochs

    def _design(self, X: np.ndarray) -> np.ndarray:
        Z = self.scaler_.transform(X)
        return np.ascontiguousarray(np.hstack([Z, np.ones((Z.shape[0], 1))]))

    def decision_function(self, X: Any) -> np.ndarray:
        """Label utilities, shape (n_samples, n_labels)."""
        X = validate_predict_data(self, X)
        return self._design(X) @ self.coef_.T

    def predict(self, X: Any) -> np.ndarray:
        """Complete 1-based label ranks by decreasing utility (ties: lower index first)."""
        return self._ranks_out(_order_by_scores(self.decision_function(X)))

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d = loaded.int_attr(self, "n_features_in_", low=1)
        m = loaded.int_attr(self, "n_items_", low=1)
        self._validate_loaded_names(m)
        loaded.estimator_attr(self, "scaler_", MinMaxScaler, n_features=d)
        loaded.array_attr(self, "coef_", shape=(m, d + 1))


class PairwiseLabelRanker(LabelRankerMixin, ValidatedParamsMixin, BaseEstimator):
    """Ranking by pairwise comparison (RPC).

    For every pair of labels ``a < b`` a clone of ``estimator`` learns ``P(a above b | x)`` from
    the training instances whose rankings contain both labels (incomplete rankings are used
    through their observed pairs). A query's labels are ranked by their summed probabilities
    of winning, ``S(a) = sum_b P(a above b | x)`` (weighted voting; ties to the lower index).

    Parameters
    ----------
    estimator : classifier, default=None
        Binary classifier with ``predict_proba`` (or ``predict``, giving 0/1 votes). Default:
        ``LogisticRegression(C=1.0, solver="liblinear")``. Features are min-max normalised
        first.

    Attributes
    ----------
    estimators_ : dict
        ``(a, b) -> fitted classifier``, or ``(a, b) -> float`` (a constant probability) when
        the pair was observed in one order only or never (then 0.5).
    n_items_, n_features_in_ : int
    scaler_ : MinMaxScaler
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    Complexity: m (m - 1) / 2 binary fits on at most n rows each; predict O(q m^2) plus the
    classifiers' cost.

    References
    ----------
    Hüllermeier, E., Fürnkranz, J., Cheng, W. and Brinker, K. (2008). Label ranking by learning
    pairwise preferences. Artificial Intelligence 172.

    Examples
    --------
    >>> from rankclust.datasets import load_label_ranking
    >>> from rankclust.label_ranking import PairwiseLabelRanker
    >>> X, Y = load_label_ranking("iris")
    >>> rpc = PairwiseLabelRanker().fit(X[::2], Y[::2])
    >>> round(rpc.score(X[1::2], Y[1::2]), 2)
    0.77
    """

    _parameter_constraints: dict = {"estimator": [None, object]}  # noqa: RUF012

    def __init__(self, estimator: Any = None) -> None:
        self.estimator = estimator

    def fit(self, X: Any, Y: Any) -> PairwiseLabelRanker:
        """Fit one binary classifier per pair of labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        Y : Rankings or array-like of 1-based ranks, shape (n_samples, n_labels)

        Returns
        -------
        self
        """
        self._validate_params()
        X, R = validate_fit_data(self, X, Y)
        base = (
            LogisticRegression(C=1.0, solver="liblinear")
            if self.estimator is None
            else self.estimator
        )
        self.scaler_ = MinMaxScaler().fit(X)
        Z = self._scaled(X)
        ranks = R.ranks
        m = R.n_items
        self.estimators_ = {}
        for a in range(m):
            for b in range(a + 1, m):
                both = (ranks[:, a] >= 0) & (ranks[:, b] >= 0)
                y = (ranks[both, a] < ranks[both, b]).astype(np.int64)
                if y.size == 0:
                    self.estimators_[a, b] = 0.5
                elif y.min() == y.max():
                    self.estimators_[a, b] = float(y[0])
                else:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", ConvergenceWarning)
                        self.estimators_[a, b] = clone(base).fit(Z[both], y)
        self.n_items_ = m
        return self

    def _scaled(self, X: np.ndarray) -> np.ndarray:
        """Min-max scaled features; a column of (nearly) constant training values becomes 0.

        MinMaxScaler leaves such a column unscaled (range below 10 eps), so a feature
        multiplied by 1e-300 reaches liblinear as subnormal numbers, on which its solver never
        converges (a hang, not an error). The column carries no information: zero it.
        """
        Z = self.scaler_.transform(X)
        Z[:, self.scaler_.data_range_ < 10 * np.finfo(np.float64).eps] = 0.0
        return Z

    def predict_pairwise(self, X: Any) -> np.ndarray:
        """``P[i, a, b]`` = probability that label ``a`` is above ``b`` for row ``i``."""
        X = validate_predict_data(self, X)
        Z = self._scaled(X)
        m = self.n_items_
        P = np.zeros((Z.shape[0], m, m))
        for (a, b), clf in self.estimators_.items():
            if isinstance(clf, float):
                p = np.full(Z.shape[0], clf)
            elif hasattr(clf, "predict_proba"):
                proba = clf.predict_proba(Z)
                p = proba[:, list(clf.classes_).index(1)]
            else:
                p = (clf.predict(Z) == 1).astype(np.float64)
            P[:, a, b] = p
            P[:, b, a] = 1.0 - p
        return P

    def predict(self, X: Any) -> np.ndarray:
        """Complete 1-based label ranks by weighted voting (ties: lower index first)."""
        return self._ranks_out(_order_by_scores(self.predict_pairwise(X).sum(axis=2)))

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d = loaded.int_attr(self, "n_features_in_", low=1)
        m = loaded.int_attr(self, "n_items_", low=1)
        self._validate_loaded_names(m)
        loaded.estimator_attr(self, "scaler_", MinMaxScaler, n_features=d)
        base = LogisticRegression if self.estimator is None else type(self.estimator)
        pairs = self.estimators_
        if not isinstance(pairs, dict) or set(pairs) != {
            (a, b) for a in range(m) for b in range(a + 1, m)
        }:
            raise ValueError(f"estimators_: expected one entry per pair of the {m} labels")
        for key, clf in pairs.items():
            if isinstance(clf, float):
                if not 0.0 <= clf <= 1.0:
                    raise ValueError(f"estimators_[{key}]: {clf} is not a probability")
                continue
            loaded.estimator_attr(loaded.Box(clf), "value", base, n_features=d)
            if hasattr(clf, "predict_proba") and 1 not in list(clf.classes_):
                raise ValueError(f"estimators_[{key}]: class 1 is missing")


class ConsensusLabelRanker(LabelRankerMixin, ValidatedParamsMixin, BaseEstimator):
    """The "1-rank" baseline: predict the consensus of all training rankings for everyone.

    The consensus is the centre of a Mallows model fitted to the training rankings
    (:func:`rankclust.models.mallows.estimate_center`; incomplete rankings through Cheng et
    al.'s approximate EM). It ignores the features, so it measures how much a label ranker
    gains from them.

    Parameters
    ----------
    center_method : {"auto", "kemeny", "borda", "exact", "local"}, default="auto"
        Consensus rule (see :func:`~rankclust.models.mallows.estimate_center`).

    Attributes
    ----------
    center_ : ndarray of int64, shape (n_items_,)
        Position vector of the consensus.
    n_items_, n_features_in_ : int
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    Complexity: fit O(n m^2 + consensus), predict O(q m).

    Examples
    --------
    >>> from rankclust.label_ranking import ConsensusLabelRanker
    >>> Y = [[1, 2, 3], [1, 3, 2], [2, 1, 3]]
    >>> ConsensusLabelRanker().fit([[0.0], [1.0], [2.0]], Y).predict([[5.0]])
    array([[1, 2, 3]])
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "center_method": [StrOptions(set(CENTER_METHODS))]
    }

    def __init__(self, *, center_method: str = "auto") -> None:
        self.center_method = center_method

    def fit(self, X: Any, Y: Any) -> ConsensusLabelRanker:
        """Fit the consensus ranking (``X`` is only checked).

        Returns
        -------
        self
        """
        self._validate_params()
        _, R = validate_fit_data(self, X, Y)
        if R.weights.sum() > 0 and (R.lengths >= 1).any():
            self.center_ = estimate_center(R, method=self.center_method)
        else:
            self.center_ = np.arange(R.n_items, dtype=np.int64)
        self.n_items_ = R.n_items
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The consensus as 1-based ranks for every row."""
        X = validate_predict_data(self, X)
        return self._ranks_out(np.tile(self.center_, (X.shape[0], 1)))

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        loaded.int_attr(self, "n_features_in_", low=1)
        m = loaded.int_attr(self, "n_items_", low=1)
        self._validate_loaded_names(m)
        center = loaded.array_attr(self, "center_", kind="i", shape=(m,))
        loaded.check_permutations(center[None, :], "center_")
