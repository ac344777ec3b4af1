"""A mixture of Bradley-Terry models over assessors: clusters of people by their comparisons."""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust._limits import check_alloc
from rankclust._mixture_louis import louis_information, reported_jacobian
from rankclust._param_validation import Interval, ValidatedParamsMixin
from rankclust.pairwise._bradley_terry import BradleyTerry, _Pairs, _prior, row_gradients
from rankclust.pairwise._comparisons import Comparisons

__all__ = ["BradleyTerryMixture"]

#: Largest working array of ``standard_errors`` (bytes): the per-assessor scores in phi.
MAX_INFORMATION_BYTES = 2**30


class BradleyTerryMixture(ValidatedParamsMixin, BaseEstimator):
    """Mixture of Bradley-Terry models: each assessor's comparisons come from one component.

    EM over assessors: the E-step gives each assessor's responsibilities from the summed
    log-probabilities of their comparisons under each component; the M-step fits each
    component's scores by :class:`BradleyTerry` (MAP with the gamma prior ``alpha``, which
    keeps a component's estimate finite when its assessors never let an item lose), the
    responsibilities of the row's assessor as ``sample_weight``. Intransitive assessors need no
    special care: Bradley-Terry gives every comparison a positive probability.

    Parameters
    ----------
    n_components : int, default=2
    alpha : float, default=0.1
        Gamma prior strength of every component (see :class:`BradleyTerry`); must be > 0.
    n_init : int, default=5
        EM runs from random assessor assignments; the best log-likelihood is kept.
    max_iter : int, default=200
    tol : float, default=1e-8
        Convergence when the log-likelihood changes by less than ``tol`` relative.
    random_state : int, RandomState or None

    Attributes
    ----------
    scores_ : ndarray of shape (n_components, n_items)
        Mean-zero log-worths of each component.
    tie_strengths_ : ndarray of shape (n_components,)
        Davidson tie strength of each component (0 when the data have no ties).
    weights_ : ndarray of shape (n_components,)
        Mixing proportions.
    responsibilities_ : ndarray of shape (n_assessors, n_components)
    labels_ : ndarray of int64, shape (n_assessors,)
        Most probable component of each assessor (-1 for an assessor without comparisons).
    rankings_ : ndarray of int64, shape (n_components, n_items)
        Position of each item when a component's items are sorted by decreasing score.
    log_likelihood_ : float
        Log-likelihood of the data (the prior not included).
    bic_ : float
        ``-2 log_likelihood_ + p log(n_assessors)``, ``p = K (n_items - 1) + K - 1`` (plus
        ``K`` tie strengths when the data have ties).
    n_iter_ : int
    converged_ : bool

    Notes
    -----
    Complexity per EM iteration: K Bradley-Terry fits on the comparisons (O(n log n + T p)
    each, see :class:`BradleyTerry`) and O(n K) for the E-step.

    Examples
    --------
    Assessors 0-9 rank 0 > 1 > 2, assessors 10-19 the reverse:

    >>> import numpy as np
    >>> from rankclust.pairwise import BradleyTerryMixture, Comparisons
    >>> winner = [0, 1, 0] * 10 + [2, 1, 2] * 10
    >>> loser = [1, 2, 2] * 10 + [1, 0, 0] * 10
    >>> C = Comparisons.from_arrays(winner, loser, assessor=np.repeat(np.arange(20), 3))
    >>> mix = BradleyTerryMixture(n_components=2, random_state=0).fit(C)
    >>> sorted(np.bincount(mix.labels_).tolist())
    [10, 10]
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_components: int = 2,
        *,
        alpha: float = 0.1,
        n_init: int = 5,
        max_iter: int = 200,
        tol: float = 1e-8,
        random_state: Any = None,
    ) -> None:
        self.n_components = n_components
        self.alpha = alpha
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _row_logp(self, C: Comparisons, fits: list[BradleyTerry]) -> np.ndarray:
        return np.column_stack([C.count * f.logpdf(C) for f in fits])

    def _assessor_loglik(self, C: Comparisons, fits: list[BradleyTerry], n_a: int) -> np.ndarray:
        rows = self._row_logp(C, fits)
        return np.column_stack(
            [np.bincount(C.assessor, rows[:, k], minlength=n_a) for k in range(rows.shape[1])]
        )

    def _em(self, C: Comparisons, resp: np.ndarray) -> tuple:
        K, n_a = self.n_components, C.n_assessors
        ll_old = -np.inf
        for it in range(1, self.max_iter + 1):
            fits = [
                BradleyTerry(alpha=self.alpha).fit(C, sample_weight=resp[C.assessor, k])
                for k in range(K)
            ]
            weights = np.maximum(resp.sum(axis=0), 1e-300) / n_a
            L = self._assessor_loglik(C, fits, n_a) + np.log(weights)
            norm = logsumexp(L, axis=1, keepdims=True)
            resp = np.exp(L - norm)
            ll = float(norm.sum())
            if abs(ll - ll_old) <= self.tol * abs(ll):
                return fits, weights, resp, ll, it, True
            ll_old = ll
        return fits, weights, resp, ll, self.max_iter, False

    def fit(self, C: Comparisons, y: None = None) -> BradleyTerryMixture:
        """Fit the mixture by EM from ``n_init`` random assignments of the assessors.

        Parameters
        ----------
        C : Comparisons
            With assessors.
        y : None
            Ignored.

        Returns
        -------
        self : BradleyTerryMixture
        """
        self._validate_params()
        if not isinstance(C, Comparisons):
            raise TypeError(f"expected a Comparisons, got {type(C).__name__}")
        if not C.has_assessors:
            raise ValueError("BradleyTerryMixture clusters assessors: C has no assessor column")
        K, n_a = self.n_components, C.n_assessors
        if K > n_a:
            raise ValueError(f"n_components={K} exceeds the {n_a} assessors")
        rng = check_random_state(self.random_state)
        starts = []
        for _ in range(self.n_init):
            resp = np.eye(K)[rng.randint(0, K, size=n_a)]
            starts.append(0.9 * resp + 0.1 / K)  # soft start: no component starts empty
        return self._fit(C, starts)

    def _fit(self, C: Comparisons, starts: list[np.ndarray]) -> BradleyTerryMixture:
        """EM from each start (responsibilities, shape (n_assessors, K)); keep the best.

        Prior validation of ``C`` is assumed (also the entry of the bootstrap's warm refits,
        started at a fitted mixture's responsibilities).
        """
        K, n_a = self.n_components, C.n_assessors
        best = None
        for resp in starts:
            run = self._em(C, resp)
            if best is None or run[3] > best[3]:
                best = run
        fits, weights, resp, ll, n_iter, converged = best
        if not converged:
            warnings.warn(
                f"BradleyTerryMixture did not converge in max_iter={self.max_iter}",
                ConvergenceWarning,
                stacklevel=2,
            )
        seen = np.bincount(C.assessor, minlength=n_a) > 0
        self.scores_ = np.vstack([f.scores_ for f in fits])
        self.tie_strengths_ = np.array([f.tie_strength_ for f in fits])
        self.weights_ = weights
        self.responsibilities_ = resp
        self.labels_ = np.where(seen, resp.argmax(axis=1), -1)
        order = np.argsort(-self.scores_, axis=1, kind="stable")
        self.rankings_ = np.argsort(order, axis=1)
        self.log_likelihood_ = ll
        m = C.n_items
        p = K * (m - 1) + K - 1 + (K if C.tie.any() else 0)
        self.bic_ = -2.0 * ll + p * np.log(int(seen.sum()))
        self.n_items_ = m
        self.items_ = C.items
        self.n_iter_ = n_iter
        self.converged_ = converged
        return self

    # ---------------------------------------------------------------- prediction
    def _components(self) -> list[BradleyTerry]:
        """One fitted :class:`BradleyTerry` per component, from the stored state."""
        out = []
        for z, nu in zip(self.scores_, self.tie_strengths_, strict=True):
            bt = BradleyTerry()
            bt.scores_, bt.tie_strength_, bt.n_items_ = z, float(nu), self.n_items_
            out.append(bt)
        return out

    def predict_proba(self, C: Comparisons) -> np.ndarray:
        """Posterior probability of each component for each assessor of ``C``.

        Parameters
        ----------
        C : Comparisons
            With assessors, over the model's items.

        Returns
        -------
        ndarray of shape (C.n_assessors, n_components)
            An assessor without comparisons gets the mixing proportions ``weights_``.
        """
        check_is_fitted(self)
        if not isinstance(C, Comparisons):
            raise TypeError(f"expected a Comparisons, got {type(C).__name__}")
        if not C.has_assessors:
            raise ValueError("C has no assessor column")
        if C.n_items != self.n_items_:
            raise ValueError(f"C has {C.n_items} items, the model {self.n_items_}")
        with np.errstate(divide="ignore"):
            L = self._assessor_loglik(C, self._components(), C.n_assessors) + np.log(self.weights_)
        return np.exp(L - logsumexp(L, axis=1, keepdims=True))

    def predict(self, C: Comparisons) -> np.ndarray:
        """Most probable component of each assessor of ``C``, shape (C.n_assessors,)."""
        return self.predict_proba(C).argmax(axis=1)

    # ---------------------------------------------------------------- uncertainty
    def standard_errors(self, C: Comparisons) -> Any:
        """Standard errors of the weights, log-worths (and tie strengths) of each component.

        The observed information of the mixture's log-posterior by Louis's (1982) method;
        see :func:`rankclust.inference.mixture_standard_errors`, which this calls.

        Parameters
        ----------
        C : Comparisons
            The comparisons of the fit.

        Returns
        -------
        MixtureStandardErrors
            ``weights_se`` (K,), ``scores_se`` (K, m) and, with ties, ``tie_strengths_se``.

        Notes
        -----
        Complexity: O(n K + a K p^2 + p^3) time, O(a K p + p^2) memory for n comparison rows
        and a assessors, ``p = K (m + 1)`` parameters; refused beyond
        ``MAX_INFORMATION_BYTES``. With K = 1 it equals :meth:`BradleyTerry.standard_errors`
        of the same prior.

        Examples
        --------
        >>> import numpy as np
        >>> from rankclust.pairwise import BradleyTerryMixture, Comparisons
        >>> winner = [0, 1, 0, 1] * 10 + [2, 1, 2, 0] * 10
        >>> loser = [1, 2, 2, 0] * 10 + [1, 0, 0, 2] * 10
        >>> C = Comparisons.from_arrays(winner, loser, assessor=np.repeat(np.arange(20), 4))
        >>> mix = BradleyTerryMixture(n_components=2, random_state=0).fit(C)
        >>> se = mix.standard_errors(C)
        >>> se.scores_se.shape, se.weights_se.round(3).tolist()
        ((2, 3), [0.154, 0.154])
        """
        from rankclust.inference import mixture_standard_errors

        return mixture_standard_errors(self, C)

    def _information_pieces(self, C: Comparisons) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Observed information of the log-posterior in ``phi``, the Jacobian of the reported
        parameters and the free components (all), for
        :func:`rankclust.inference.mixture_information`.

        ``phi = (a_1..a_{K-1}, x_1..x_K)``: the weights' logits, then per component the
        *uncentred* log-worths ``z_k`` (the gamma prior identifies them: at the MAP
        ``sum_j exp(z_kj) = m``, so ``z_k = scores_[k] + log(m / sum exp(scores_[k]))``) and,
        with ties, ``log nu_k``. The information is Louis's formula over the assessors plus
        the prior's curvature ``alpha exp(z_kj)`` on the diagonal; the reported parameters
        are ``(weights_, scores_[0] [, tie_strengths_[0]], ..., scores_[K-1] [, ...])`` with
        the sum-zero scores and ``nu_k = exp(log nu_k)``.
        """
        check_is_fitted(self)
        if not isinstance(C, Comparisons):
            raise TypeError(f"expected a Comparisons, got {type(C).__name__}")
        if not C.has_assessors:
            raise ValueError("C has no assessor column")
        m, K, n_a = self.n_items_, self.n_components, C.n_assessors
        if C.n_items != m:
            raise ValueError(f"C has {C.n_items} items, the model {m}")
        ties = bool(self.tie_strengths_.max() > 0)
        if bool(C.tie.any()) != ties:
            raise ValueError("C is not the data of the fit: ties in one and not the other")
        if len(self.responsibilities_) != n_a:
            raise ValueError(f"C has {n_a} assessors, the fit {len(self.responsibilities_)}")
        dim = m + (1 if ties else 0)
        check_alloc(8.0 * n_a * K * (K * dim + K) * 2, MAX_INFORMATION_BYTES,
                    "the mixture's information")  # fmt: skip
        pi = np.asarray(self.weights_, dtype=np.float64)
        with np.errstate(divide="ignore"):
            L = self._assessor_loglik(C, self._components(), n_a) + np.log(pi)
        tau = np.exp(L - logsumexp(L, axis=1, keepdims=True))
        centre = np.zeros((dim, dim))
        centre[:m, :m] = np.eye(m) - 1.0 / m
        grads, infos, jacs = [], [], []
        for k in range(K):
            s = self.scores_[k]
            x = s + np.log(m / np.exp(s).sum())
            if ties:
                x = np.append(x, np.log(self.tie_strengths_[k]))
            gw, gl, gt = row_gradients(C, x, m, ties)
            g = np.bincount(C.assessor * dim + C.winner, gw, minlength=n_a * dim)
            g += np.bincount(C.assessor * dim + C.loser, gl, minlength=n_a * dim)
            g = g.reshape(n_a, dim)
            if ties:
                g[:, m] = np.bincount(C.assessor, gt, minlength=n_a)
            grads.append(g)
            P = _Pairs(C, tau[C.assessor, k], ties)
            _, H = P.grad_and_info(x)
            _, _, dp = _prior(x, m, float(self.alpha), "gamma")
            infos.append(P.info_dense(H) + np.diag(dp))
            jac = centre.copy()
            if ties:
                jac[m, m] = self.tie_strengths_[k]  # d nu / d log nu
            jacs.append(jac)
        info = louis_information(np.ones(n_a), tau, pi, grads, infos)
        return info, reported_jacobian(pi, jacs), np.ones(K, dtype=bool)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        m = loaded.int_attr(self, "n_items_", low=2)
        k = self.n_components
        loaded.items_attr(self, n_items=m)
        loaded.array_attr(self, "scores_", shape=(k, m))
        loaded.array_attr(self, "tie_strengths_", shape=(k,), low=0.0)
        w = loaded.array_attr(self, "weights_", shape=(k,), low=0.0, high=1.0)
        if w.max() <= 0.0:
            raise ValueError("weights_: all zero")
        resp = loaded.array_attr(self, "responsibilities_", ndim=2, low=0.0, high=1.0)
        if resp.shape[1] != k:
            raise ValueError(f"responsibilities_: expected {k} columns, got {resp.shape[1]}")
        loaded.array_attr(self, "labels_", kind="i", shape=(resp.shape[0],), low=-1, high=k - 1)
        loaded.check_permutations(
            loaded.array_attr(self, "rankings_", kind="i", shape=(k, m)), "rankings_"
        )
        loaded.float_attr(self, "log_likelihood_", high=0.0)
        loaded.float_attr(self, "bic_")
        loaded.int_attr(self, "n_iter_")
        loaded.choice_attr(self, "converged_", (True, False))
