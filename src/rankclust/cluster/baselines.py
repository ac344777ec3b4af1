"""Baselines for heterogeneous rank data (Busse, Orbanz & Buhmann 2007, Sec. 4).

* :class:`RestrictedLengthMixture` -- "delete partial rankings": fit a mixture on the
  rankings of at least ``min_length`` items only (``min_length=None``: complete rankings,
  the common practice of Murphy & Martin 2003), then label every ranking with it.
* :class:`CompletionMallowsMixture` -- Beckett's (1993) completion approach used for
  clustering: the missing positions of each top-t list are latent; every iteration completes
  each list under each component (the maximum-likelihood completion, or a draw from the
  component's conditional distribution), and the components are fitted to the completed,
  complete rankings.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
    check_n_clusters,
)
from rankclust._runs import best_run
from rankclust.cluster._mixture_contract import MixtureContract, MixtureRun
from rankclust.cluster._seeding import kmeanspp_rankings, random_completion
from rankclust.cluster.mixture import MallowsMixture
from rankclust.consensus import resolve_center_method
from rankclust.distances import kendall_distances
from rankclust.models.mallows import (
    THETA_MAX,
    estimate_center,
    estimate_theta,
    log_normalizer,
    sample_mallows,
)
from rankclust.rankings import Rankings, check_rankings

__all__ = ["CompletionMallowsMixture", "RestrictedLengthMixture", "complete_rankings"]


# --------------------------------------------------------------------------------------------
# delete partial rankings
# --------------------------------------------------------------------------------------------
class RestrictedLengthMixture(ValidatedParamsMixin, BaseEstimator):
    """Fit a mixture on the long rankings only ("delete partial rankings", Sec. 4.1).

    Parameters
    ----------
    estimator : estimator, default=None
        The mixture to fit (cloned); default ``MallowsMixture()``.
    min_length : int or None, default=None
        Keep rankings with at least this many items. None keeps the complete ones
        (length ``m`` or ``m - 1``, which is the same top list).

    Attributes
    ----------
    estimator_ : estimator
        The mixture fitted on the kept rankings.
    kept_ : ndarray of bool, shape (n,)
        Which rankings were used.
    labels_ : ndarray of int64, shape (n,)
        ``estimator_.predict(R)`` for every ranking (partial ones included).
    centers_, weights_, thetas_ (if the mixture has them), log_likelihood_, bic_
        Copied from ``estimator_`` (the log-likelihood and BIC are those of the kept data).
    items_ : tuple of str or None
        Item names of the training rankings (None when unnamed); named input to the
        prediction methods is matched to them by name (see
        :func:`rankclust.rankings.check_rankings`).

    Notes
    -----
    Complexity: that of the mixture on the kept rankings, plus one prediction pass.

    References
    ----------
    Busse, Orbanz and Buhmann (2007), Sec. 4; Murphy and Martin (2003).

    Examples
    --------
    >>> from rankclust.datasets import make_mallows_mixture
    >>> from rankclust.cluster.baselines import RestrictedLengthMixture
    >>> from rankclust.cluster.mixture import MallowsMixture
    >>> R, y = make_mallows_mixture(300, 5, 2, lengths=(1, 5), kind="top", random_state=0)
    >>> est = RestrictedLengthMixture(MallowsMixture(2, n_init=2, random_state=0)).fit(R)
    >>> int(est.kept_.sum()) == int((R.lengths >= 4).sum()), est.labels_.shape
    (True, (300,))
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "estimator": [None, object],
        "min_length": [None, Interval(numbers.Integral, 1, None)],
    }

    def __init__(self, estimator: Any = None, *, min_length: int | None = None) -> None:
        self.estimator = estimator
        self.min_length = min_length

    def fit(self, R: Any, y: Any = None) -> RestrictedLengthMixture:
        """Fit the mixture on the rankings of at least ``min_length`` items."""
        self._validate_params()
        R = check_rankings(R, kind="top", allow_ties=False, name="R")
        m = R.n_items
        min_len = m - 1 if self.min_length is None else min(int(self.min_length), m)
        kept = R.lengths >= min_len
        if not kept.any():
            raise ValueError(f"no ranking has at least {min_len} items")
        est = MallowsMixture() if self.estimator is None else self.estimator
        self.estimator_ = clone(est).fit(R[np.flatnonzero(kept)])
        self.kept_ = kept
        self.labels_ = self.estimator_.predict(R)
        self.items_ = R.items
        for name in ("centers_", "weights_", "thetas_", "scores_", "log_likelihood_", "bic_"):
            if hasattr(self.estimator_, name):
                setattr(self, name, getattr(self.estimator_, name))
        return self

    def predict(self, R: Any) -> np.ndarray:
        """Most probable component of every ranking."""
        check_is_fitted(self, ["estimator_"])
        return self.estimator_.predict(R)

    def predict_proba(self, R: Any) -> np.ndarray:
        """Posterior component probabilities of every ranking."""
        check_is_fitted(self, ["estimator_"])
        return self.estimator_.predict_proba(R)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        expected = type(MallowsMixture() if self.estimator is None else self.estimator)
        inner = loaded.estimator_attr(self, "estimator_", expected)
        loaded.items_attr(self, n_items=loaded.int_attr(inner, "n_items_", low=1))
        loaded.array_attr(self, "kept_", kind="b", ndim=1)
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0)


# --------------------------------------------------------------------------------------------
# Beckett's completion
# --------------------------------------------------------------------------------------------
def complete_rankings(
    R: Any,
    center: Any,
    theta: float | None = None,
    random_state: Any = None,
) -> Rankings:
    """Complete top-t lists under a Mallows component.

    Parameters
    ----------
    R : Rankings, kind "top"
        Top-t lists (complete rows are returned unchanged).
    center : ndarray of int64, shape (m,)
        Position vector of the component's centre.
    theta : float or None, default=None
        None: the maximum-likelihood completion -- the unlisted items in the centre's order
        (it adds no discordant pair, so it is the most probable completion for every
        theta > 0). A float: an exact draw from the component's distribution given the list:
        under Kendall-Mallows the unlisted items form a Mallows(centre restricted to them,
        theta) ranking, independent of the listed prefix (stage-wise independence).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    Rankings
        Complete rankings (kind "subset"), same weights.

    Notes
    -----
    Complexity: O(n m log m) (plus O(n m^2) sampling).

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[3, 1]], n_items=4, kind="top")
    >>> complete_rankings(R, [0, 1, 2, 3]).to_orderings()
    [[3, 1, 0, 2]]
    """
    R = check_rankings(R, kind="top", allow_ties=False, kinds=("top",), name="R")
    ranks = R.ranks
    m = ranks.shape[1]
    center = np.asarray(center)
    if center.shape != (m,) or not np.array_equal(np.sort(center), np.arange(m)):
        raise ValueError(f"center must be a position vector of {m} items")
    center = center.astype(np.int64)
    lengths = R.lengths
    absent = ranks < 0
    # rank of each absent item among the absent items of its row, in centre order
    key = np.where(absent, center[None, :], -1)
    order = np.argsort(key, axis=1, kind="stable")  # present items first (key -1)
    rank_in_absent = np.empty_like(order)
    np.put_along_axis(rank_in_absent, order, np.arange(m)[None, :] - lengths[:, None], axis=1)
    if theta is not None:
        rng = check_random_state(random_state)
        for r in np.unique(m - lengths):
            rows = np.flatnonzero(m - lengths == r)
            if r < 2:
                continue
            perm = sample_mallows(np.arange(r), float(theta), rows.size, rng).ranks  # (s, r)
            sub = rank_in_absent[rows]
            ab = absent[rows]
            idx = np.where(ab, sub, 0)
            rank_in_absent[rows] = np.where(ab, np.take_along_axis(perm, idx, axis=1), sub)
    out = np.where(absent, lengths[:, None] + rank_in_absent, ranks)
    weights = R.weights if R.is_weighted else None
    return Rankings._from_trusted(out, kind="subset", weights=weights, items=R.items)


class CompletionMallowsMixture(ValidatedParamsMixin, BaseEstimator, MixtureContract):
    """Mallows mixture fitted through completed rankings (Beckett 1993; Busse et al. Sec. 4).

    Each iteration: (1) complete every top-t list under every component -- ``"hard"``: the
    maximum-likelihood completion (unlisted items in the centre's order), ``"sample"``: one
    exact draw from the component given the list (the sampling step Busse et al. used at
    r = 20); (2) E-step with the complete-data Mallows likelihood of the completions,
    ``q_ik ∝ c_k exp(-theta_k d_K(pi~_ik, sigma_k)) / psi_m(theta_k)``; (3) M-step: the
    weighted complete-data Mallows fit of every component to its completions
    (:func:`~rankclust.models.mallows.estimate_center`,
    :func:`~rankclust.models.mallows.estimate_theta`).

    This is a baseline, not an estimator of the top-t model: hard completions put every
    unlisted item in the best possible order, so the dispersions are biased upwards and the
    assignments of short lists depend on the completions; sampled completions make the
    estimates noisy (a stochastic EM, stopped after ``max_iter`` iterations or when the hard
    version stops changing).

    Parameters
    ----------
    n_components : int, default=2
    completion : {"hard", "sample"}, default="hard"
    center_method : {"auto", "exact", "local"}, default="auto"
        Consensus of the completed rankings (:func:`estimate_center`; "local" starts from the
        previous centre; "auto" is exact up to 10 items, local beyond, the package-wide rule
        of :func:`rankclust.consensus.resolve_center_method`).
    n_init : int, default=5
    max_iter : int, default=100
    tol : float, default=1e-6
        Hard completions: stop when the complete-data log-likelihood rises by at most
        ``tol`` per ranking and no centre moved.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    centers_ : Rankings, shape (K, m)
    center_positions_ : ndarray of int64, shape (K, m)
    thetas_, weights_ : ndarray of float64, shape (K,)
        Sorted by decreasing weight.
    labels_ : ndarray of int64, shape (n,)
    log_likelihood_ : float
        Complete-data log-likelihood of the final completions.
    n_iter_ : int
    converged_ : bool

    Notes
    -----
    Complexity: O(K n m^2) time per iteration (completions, distances, pairwise counts) plus
    the centre steps, O(K n m) memory; times ``n_init``.

    References
    ----------
    Beckett, L. A. (1993). Maximum likelihood estimation in Mallows's model using partially
    ranked data. In Probability Models and Statistical Analyses for Ranking Data.
    Busse, Orbanz and Buhmann (2007), ICML, Sec. 4.

    Examples
    --------
    >>> from rankclust.datasets import make_mallows_mixture
    >>> from rankclust.cluster.baselines import CompletionMallowsMixture
    >>> R, y = make_mallows_mixture(300, 5, 2, centers=[[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]],
    ...                             thetas=1.0, lengths=(1, 5), kind="top", random_state=0)
    >>> est = CompletionMallowsMixture(2, random_state=0).fit(R)
    >>> sorted(est.centers_.to_orderings())
    [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "n_components": [Interval(numbers.Integral, 1, None)],
        "completion": [StrOptions({"hard", "sample"})],
        "center_method": [StrOptions({"auto", "exact", "local"})],
        "n_init": [Interval(numbers.Integral, 1, None)],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None)],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_components: int = 2,
        *,
        completion: str = "hard",
        center_method: str = "auto",
        n_init: int = 5,
        max_iter: int = 100,
        tol: float = 1e-6,
        random_state: Any = None,
    ) -> None:
        self.n_components = n_components
        self.completion = completion
        self.center_method = center_method
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _complete_all(self, R, centers, thetas, rng) -> list[Rankings]:
        if self.completion == "hard":
            return [complete_rankings(R, c) for c in centers]
        return [
            complete_rankings(R, c, float(t), rng) for c, t in zip(centers, thetas, strict=True)
        ]

    def _loglik(self, completed, centers, thetas) -> np.ndarray:
        m = centers.shape[1]
        return np.stack(
            [
                -t * kendall_distances(Rc, c) - log_normalizer(t, m)
                for Rc, c, t in zip(completed, centers, thetas, strict=True)
            ],
            axis=1,
        )

    def _run(self, R: Rankings, rng: np.random.RandomState) -> MixtureRun:
        k_comp = self.n_components
        w = R.weights
        total = float(w.sum())
        # the k-means++ seeds of MallowsMixture
        centers = kmeanspp_rankings(R, k_comp, rng)
        thetas = np.ones(k_comp)
        weights = np.full(k_comp, 1.0 / k_comp)
        method = resolve_center_method(self.center_method, R.n_items)
        ll_old = -np.inf
        converged = False
        n_iter = 0
        for n_iter in range(1, self.max_iter + 1):
            completed = self._complete_all(R, centers, thetas, rng)
            joint = self._loglik(completed, centers, thetas) + np.log(np.maximum(weights, 1e-300))
            row = logsumexp(joint, axis=1)
            ll = float(w @ row)
            resp = np.exp(joint - row[:, None])
            if self.completion == "hard" and ll - ll_old <= self.tol * total and n_iter > 1:
                converged = True
                break
            ll_old = ll
            nk = w @ resp
            weights = nk / nk.sum()
            new_centers = centers.copy()
            for k in range(k_comp):
                if nk[k] <= 1e-10 * total:  # empty: re-seed at a random ranking
                    new_centers[k] = random_completion(R.ranks[rng.randint(len(w))], rng)
                    thetas[k] = 1.0
                    continue
                new_centers[k] = estimate_center(
                    completed[k], resp[:, k], method=method, init=centers[k]
                )
                thetas[k] = estimate_theta(completed[k], new_centers[k], resp[:, k])
            centers = new_centers
        return MixtureRun(
            objective=-ll,
            n_iter=n_iter,
            converged=converged or self.completion == "sample",
            weights=weights,
            params={"centers": centers, "thetas": thetas, "resp": resp},
        )

    def fit(self, R: Any, y: Any = None) -> CompletionMallowsMixture:
        """Fit by EM over completed rankings from ``n_init`` starts; keep the most likely."""
        self._validate_params()
        R = check_rankings(R, kind="top", allow_ties=False, kinds=("top",), name="R")
        check_n_clusters(self.n_components, R.n_rankings, what="rankings", name="n_components")
        if R.n_items < 2:
            raise ValueError(f"R has {R.n_items} item(s); a ranking mixture needs at least 2")
        rng = check_random_state(self.random_state)
        best = best_run([self._run(R, rng) for _ in range(self.n_init)])
        if not best.converged:
            warnings.warn(
                "CompletionMallowsMixture did not converge in max_iter iterations",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.items_ = R.items
        order = self._set_common(best)
        self.labels_ = np.argmax(best.params["resp"][:, order], axis=1)
        return self

    def _set_fitted(self, params: dict, order: np.ndarray) -> None:
        self.center_positions_ = params["centers"][order]
        self.centers_ = Rankings._from_trusted(self.center_positions_, items=self.items_)
        self.thetas_ = np.minimum(params["thetas"][order], THETA_MAX)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        k = self.n_components
        centers = loaded.rankings_attr(self, "centers_", n_rankings=k, complete=True)
        pos = loaded.array_attr(self, "center_positions_", kind="i", shape=(k, centers.n_items))
        loaded.check_permutations(pos, "center_positions_")
        loaded.array_attr(self, "thetas_", shape=(k,), low=0.0)
        loaded.array_attr(self, "weights_", shape=(k,), low=0.0)
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0, high=k - 1)
