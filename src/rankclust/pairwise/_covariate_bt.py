"""Bradley-Terry (and Davidson ties) with log-worths linear in item features, on sparse pairs.

The log-worth of item ``j`` with features ``x_j`` is ``z_j = x_j . coef + intercept (+ u_j)``
with optional ridge item effects ``u_j``: the pairwise special case of
:class:`~rankclust.models.ItemCovariatePlackettLuce` (a comparison is a two-item ranking), on
the sparse :class:`~rankclust.pairwise.Comparisons` type, with Davidson's (1970) ties. The
likelihood, its gradient and its information in ``x = (z, log nu)`` are those of
:class:`~rankclust.pairwise.BradleyTerry` (per aggregated pair, applied as ``np.bincount``
sums, never an ``m x m`` matrix); the parameters ``theta = (a, u, log nu)`` map to ``x``
linearly, ``z = B a + u`` with ``B`` the whitened centred features of the identified
directions (the conventions of :mod:`rankclust.models.plackett_luce_covariates`: directions
the compared items' features do not identify get the minimum-norm coefficient 0), so the
gradient is ``J' g_x`` and the information ``J' H_x J``.

Newton's method on the penalised log-likelihood (concave), with a backtracking line search:
without item effects each step solves the dense ``(r + 1)``-square system ``J' H_x J + P``,
built from ``r + 1`` sparse products (``O(r pairs + m r^2)`` time, ``O(pairs + m r)`` memory);
with item effects each step is solved by conjugate gradients on the same products (never
forming an ``m x m`` matrix). The inverse information at the optimum gives the covariance of
the coefficients.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust._param_validation import Interval, StrOptions
from rankclust.models import wald_intervals
from rankclust.models.plackett_luce_covariates import (
    align_features,
    check_item_features,
    feature_names,
    identified_directions,
)
from rankclust.pairwise._bradley_terry import BradleyTerry, _Pairs
from rankclust.pairwise._comparisons import Comparisons

__all__ = ["ItemCovariateBradleyTerry"]


class _Design:
    """The linear map ``theta = (a, u, lam) -> x = (B a + u, lam)`` and the penalty (private).

    ``B`` (m, r) holds the whitened identified directions; ``u`` is present only with item
    effects, ``lam`` only with a tie model.
    """

    def __init__(
        self, B: np.ndarray, effects: bool, ties: bool, pen_a: np.ndarray, pen_u: float
    ) -> None:
        self.B, self.effects, self.ties = B, effects, ties
        self.m, self.r = B.shape
        self.dim = self.r + (self.m if effects else 0) + (1 if ties else 0)
        self.penalty = np.concatenate(
            [pen_a, np.full(self.m if effects else 0, pen_u), np.zeros(1 if ties else 0)]
        )

    def to_x(self, theta: np.ndarray) -> np.ndarray:
        m, r = self.m, self.r
        z = self.B @ theta[:r]
        if self.effects:
            z = z + theta[r : r + m]
        return np.concatenate([z, theta[-1:]]) if self.ties else z

    def to_theta(self, gx: np.ndarray) -> np.ndarray:
        """``J' gx`` for a vector in the space of ``x``."""
        gz = gx[: self.m]
        parts = [self.B.T @ gz]
        if self.effects:
            parts.append(gz)
        if self.ties:
            parts.append(gx[self.m :])
        return np.concatenate(parts)


def _objective(P: _Pairs, D: _Design, theta: np.ndarray) -> float:
    """Penalised log-likelihood at ``theta``. Trusts its input."""
    return P.loglik(D.to_x(theta)) - 0.5 * float(theta @ (D.penalty * theta))


def _gradient(P: _Pairs, D: _Design, theta: np.ndarray) -> tuple[np.ndarray, tuple]:
    """Gradient of :func:`_objective` and the per-pair information entries at ``theta``."""
    gx, H = P.grad_and_info(D.to_x(theta))
    return D.to_theta(gx) - D.penalty * theta, H


def _info_matvec(P: _Pairs, D: _Design, H: tuple, v: np.ndarray) -> np.ndarray:
    """``(J' H_x J + P) v``: the negative Hessian of :func:`_objective` applied to ``v``."""
    return D.to_theta(P.info_matvec(H, D.to_x(v))) + D.penalty * v


def _info_dense(P: _Pairs, D: _Design, H: tuple) -> np.ndarray:
    """The negative Hessian as a dense (dim, dim) array, by ``dim`` products (small dims)."""
    eye = np.eye(D.dim)
    A = np.column_stack([_info_matvec(P, D, H, eye[:, k]) for k in range(D.dim)])
    return 0.5 * (A + A.T)


class ItemCovariateBradleyTerry(BradleyTerry):
    """Bradley-Terry model with log-worths linear in item features, on sparse comparisons.

    ``log worth_j = item_features[j] . coef_ + intercept_ (+ item_effects_[j])`` with
    ``P(i beats j) = v_i / (v_i + v_j)``, or Davidson's ties (``P(tie) = nu sqrt(v_i v_j) /
    D``) when the data hold ties and ``ties="auto"``, as in :class:`BradleyTerry`. Items never
    compared (or new items) get worths from their features. Counts and ``sample_weight``
    weight each comparison (weighted data give the fit of the expanded data).

    Parameters
    ----------
    coef_penalty : float, default=0.0
        Ridge penalty ``coef_penalty / 2 * |coef|^2`` (0: maximum likelihood).
    item_effect_penalty : float or None, default=None
        None: no item effects. A positive value adds a free log-worth per item, penalised by
        ``item_effect_penalty / 2 * |u|^2``.
    ties : {"auto", "none"}, default="auto"
        As in :class:`BradleyTerry`.
    max_iter : int, default=100
        Maximum Newton steps.
    tol : float, default=1e-10
        Convergence when half the Newton decrement is below ``tol * |objective|`` and the
        step moved no parameter by more than 1e-6.

    Attributes
    ----------
    coef_ : ndarray of float64, shape (n_features,)
    intercept_ : float
        ``-feature_means_ . coef_`` (makes ``scores_`` sum to zero without item effects).
    feature_means_ : ndarray of float64, shape (n_features,)
    item_effects_ : ndarray of float64, shape (n_items,)
        Zeros without item effects; sum zero.
    scores_, worths_ : ndarray of float64, shape (n_items,)
        Log-worths (mean zero) and worths (sum 1) of the items of the fit.
    tie_strength_ : float
        Davidson's ``nu`` (0.0 without a tie model).
    coef_cov_ : ndarray of float64, shape (n_features, n_features)
        Inverse observed information (penalised) in ``coef_``; zero along directions the
        features do not identify, NaN when singular.
    rank_ : int
        Coefficient directions the features of the compared items identify.
    log_likelihood_, n_items_, n_features_in_, n_iter_, converged_, items_
    feature_names_in_ : tuple of str
        Only when ``item_features`` had column names.

    See Also
    --------
    BradleyTerry : one free worth per item.
    rankclust.models.ItemCovariatePlackettLuce : the same model for rankings.

    Notes
    -----
    With the identity design and no penalty this is :class:`BradleyTerry` (``alpha=0``):
    ``fit`` refuses data whose maximum-likelihood estimate does not exist.

    Complexity: O(n log n) to aggregate n comparison rows into p pairs; per Newton step
    O((r + 1) p + m r^2 + r^3) time without item effects, O(K (p + m r)) with them (K
    conjugate-gradient products); memory O(n + m d) throughout. ``standard_errors`` adds r
    conjugate-gradient solves with item effects.

    References
    ----------
    Bradley, R. A. & Terry, M. E. (1952). Biometrika, 39(3/4), 324-345.

    Davidson, R. R. (1970). JASA, 65(329), 317-328.

    Springall, A. (1973). Response surface fitting using a generalization of the
    Bradley-Terry paired comparison model. Applied Statistics, 22(1), 59-68.

    Examples
    --------
    Four items on one feature; item 3 is never compared.

    >>> import numpy as np
    >>> from rankclust.pairwise import Comparisons, ItemCovariateBradleyTerry
    >>> C = Comparisons.from_arrays([2, 1, 2, 0, 1], [0, 0, 1, 2, 2], n_items=4)
    >>> F = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> bt = ItemCovariateBradleyTerry().fit(C, item_features=F)
    >>> bt.coef_.round(3)
    array([0.183])
    >>> bool(bt.scores_[3] > bt.scores_[2])
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        "coef_penalty": [Interval(Real, 0, None, closed="left")],
        "item_effect_penalty": [None, Interval(Real, 0, None, closed="neither")],
        "ties": [StrOptions({"auto", "none"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }
    #: No prior on the worths (the coefficients have their ridge penalty).
    alpha = 0.0
    prior = "gaussian"

    def __init__(
        self,
        *,
        coef_penalty: float = 0.0,
        item_effect_penalty: float | None = None,
        ties: str = "auto",
        max_iter: int = 100,
        tol: float = 1e-10,
    ) -> None:
        self.coef_penalty = coef_penalty
        self.item_effect_penalty = item_effect_penalty
        self.ties = ties
        self.max_iter = max_iter
        self.tol = tol

    # ---------------------------------------------------------------- fitting
    def _setup(
        self, C: Comparisons, sample_weight: Any, item_features: Any, ties: bool
    ) -> tuple[_Pairs, _Design, np.ndarray, np.ndarray, np.ndarray]:
        """The aggregated pairs, the design, and ``(mean, S, Vt)`` of the identified
        directions."""
        P = _Pairs(C, sample_weight, ties)
        F = (
            np.eye(C.n_items)
            if item_features is None
            else check_item_features(align_features(item_features, C.items), C.n_items)
        )
        seen = np.zeros(P.m, dtype=bool)
        seen[P.i[P.n > 0]] = True
        seen[P.j[P.n > 0]] = True
        mean, S, Vt = identified_directions(F, seen)
        if S.size == 0:
            raise ValueError(
                "item_features are constant over the compared items: they identify no "
                "difference between worths"
            )
        effects = self.item_effect_penalty is not None
        D = _Design(
            (F - mean) @ Vt.T / S,
            effects,
            ties,
            float(self.coef_penalty) / S**2,
            float(self.item_effect_penalty or 0.0),
        )
        if not effects and self.coef_penalty == 0 and S.size == seen.sum() - 1:
            # the features identify every compared item's worth: plain Bradley-Terry
            self._check_mle(P)
        return P, D, F, S, Vt

    def fit(
        self,
        C: Comparisons,
        y: None = None,
        sample_weight: Any = None,
        *,
        item_features: Any = None,
    ) -> ItemCovariateBradleyTerry:
        """Fit the coefficients (item effects, tie strength) by penalised maximum likelihood.

        Parameters
        ----------
        C : Comparisons
        y : None
            Ignored.
        sample_weight : array-like of float, shape (n_comparisons,), optional
            Weight per comparison row, multiplied by ``C.count``.
        item_features : array-like of float, shape (n_items, d), optional
            One row of finite features per item; a DataFrame whose index holds item names is
            matched to ``C.items``. Default: the identity (plain Bradley-Terry).

        Returns
        -------
        self : ItemCovariateBradleyTerry
        """
        self._validate_params()
        C, has_ties = self._check_fit_data(C)
        names = None if item_features is None else feature_names(item_features)
        P, D, F, S, Vt = self._setup(C, sample_weight, item_features, has_ties)
        theta0 = np.zeros(D.dim)
        if has_ties:
            tau = P.tt.sum() / P.n.sum()
            theta0[-1] = np.log(2 * tau / max(1 - tau, 1e-12))
        theta, n_iter, converged, H = self._newton(P, D, theta0)
        if not converged:
            warnings.warn(
                f"ItemCovariateBradleyTerry did not converge in max_iter={self.max_iter} "
                "Newton steps; the estimate may not exist (features that separate winners "
                "from losers): use coef_penalty > 0.",
                ConvergenceWarning,
                stacklevel=2,
            )
        r, m = D.r, D.m
        coef = Vt.T @ (theta[:r] / S)
        u = theta[r : r + m] - theta[r : r + m].mean() if D.effects else np.zeros(m)
        self.feature_means_ = F.mean(axis=0)
        self.intercept_ = float(-(self.feature_means_ @ coef))
        self.coef_ = coef
        self.item_effects_ = u
        scores = F @ coef + self.intercept_ + u
        self.scores_ = scores - scores.mean()
        w = np.exp(self.scores_ - self.scores_.max())
        self.worths_ = w / w.sum()
        self.tie_strength_ = float(np.exp(theta[-1])) if has_ties else 0.0
        self.log_likelihood_ = P.loglik(D.to_x(theta))
        self.coef_cov_ = self._coef_cov(P, D, H, S, Vt)
        self.rank_ = r
        self.n_items_ = m
        self.n_features_in_ = F.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        self.items_ = C.items
        self.n_iter_ = n_iter
        self.converged_ = converged
        self._x = np.concatenate([self.scores_, [theta[-1]] if has_ties else []])
        return self

    def _solve(self, P: _Pairs, D: _Design, H: tuple, g: np.ndarray, rtol: float) -> np.ndarray:
        """``(J' H_x J + P)^{-1} g``: dense without item effects, else conjugate gradients."""
        if not D.effects:
            A = _info_dense(P, D, H)
            try:
                return np.linalg.solve(A, g)
            except np.linalg.LinAlgError:
                return np.linalg.lstsq(A, g, rcond=None)[0]
        # Jacobi preconditioner: the exact a-block diagonal, the item-effect diagonal
        dx = P.info_diag(H)
        diag = (
            np.concatenate(
                [
                    np.einsum("jr,j,jr->r", D.B, dx[: D.m], D.B),
                    dx[: D.m],
                    dx[D.m :],
                ]
            )
            + D.penalty
        )
        diag[diag <= 0] = 1.0
        A = LinearOperator(
            (D.dim, D.dim), matvec=lambda v: _info_matvec(P, D, H, v), dtype=np.float64
        )
        Minv = LinearOperator((D.dim, D.dim), matvec=lambda v: v / diag, dtype=np.float64)
        step, _ = cg(A, g, rtol=rtol, atol=0.0, M=Minv, maxiter=20 * D.dim)
        return step

    def _newton(
        self, P: _Pairs, D: _Design, theta: np.ndarray
    ) -> tuple[np.ndarray, int, bool, tuple]:
        f = _objective(P, D, theta)
        gnorm0 = None
        for it in range(1, self.max_iter + 1):
            g, H = _gradient(P, D, theta)
            gnorm = float(np.linalg.norm(g))
            gnorm0 = gnorm0 or max(gnorm, 1e-300)
            rtol = min(0.1, max(1e-12, (gnorm / gnorm0) ** 2))
            step = self._solve(P, D, H, g, rtol)
            gain = float(g @ step)
            t = 1.0
            while True:  # backtracking on the concave objective
                cand = theta + t * step
                f_new = _objective(P, D, cand)
                if f_new >= f + 1e-4 * t * gain or t < 1e-10:
                    break
                t *= 0.5
            theta, f_old, f = cand, f, f_new
            small_gain = 0.5 * gain <= self.tol * max(abs(f), 1.0)
            if (small_gain and t * np.abs(step).max() <= 1e-6) or abs(f - f_old) <= 1e-16 * abs(f):
                return theta, it, True, P.grad_and_info(D.to_x(theta))[1]
        return theta, self.max_iter, False, P.grad_and_info(D.to_x(theta))[1]

    def _coef_cov(
        self, P: _Pairs, D: _Design, H: tuple, S: np.ndarray, Vt: np.ndarray
    ) -> np.ndarray:
        """Covariance of ``coef``: ``A Cov(a) A'`` with ``A = V diag(1/S)`` and ``Cov(a)`` the
        a-block of the inverse negative Hessian (dense, or r conjugate-gradient solves)."""
        d, r = Vt.shape[1], D.r
        if D.effects:
            cols = []
            for k in range(r):
                e = np.zeros(D.dim)
                e[k] = 1.0
                cols.append(self._solve(P, D, H, e, 1e-12)[:r])
            cov_a = np.array(cols).T
        else:
            Hd = _info_dense(P, D, H)
            evals = np.linalg.eigvalsh(Hd)
            if evals.min() <= 1e-12 * max(evals.max(), 1e-300):
                return np.full((d, d), np.nan)
            cov_a = np.linalg.inv(Hd)[:r, :r]
        A = Vt.T / S
        cov = A @ cov_a @ A.T
        return 0.5 * (cov + cov.T)

    # ---------------------------------------------------------------- prediction
    def scores_for(self, item_features: Any) -> np.ndarray:
        """Log-worths of items from their features alone (no item effects), on the scale of
        ``scores_``: ``item_features @ coef_ + intercept_``.

        Parameters
        ----------
        item_features : array-like of float, shape (k, n_features)

        Returns
        -------
        ndarray of float64, shape (k,)

        Notes
        -----
        Complexity: O(k d) time.
        """
        check_is_fitted(self, "coef_")
        F = np.array(item_features, dtype=np.float64)
        if F.ndim != 2 or F.shape[1] != self.n_features_in_:
            raise ValueError(
                f"item_features must have shape (k, {self.n_features_in_}), got {F.shape}"
            )
        return check_item_features(F, F.shape[0]) @ self.coef_ + self.intercept_

    # ---------------------------------------------------------------- uncertainty
    def standard_errors(self, C: Any = None, sample_weight: Any = None, **_: Any) -> np.ndarray:
        """Standard errors of ``coef_``, ``sqrt(diag(coef_cov_))``, shape (n_features,).

        ``C`` and ``sample_weight`` are not needed (the covariance is kept from the fit).
        """
        check_is_fitted(self, "coef_cov_")
        return np.sqrt(np.diag(self.coef_cov_))

    def confint(self, level: float = 0.95) -> np.ndarray:
        """Wald intervals of ``coef_``, shape (n_features, 2) (lower, upper)."""
        return wald_intervals(self.coef_, self.standard_errors(), level)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        super()._validate_loaded_state()
        m = self.n_items_
        d = loaded.int_attr(self, "n_features_in_", low=1)
        loaded.int_attr(self, "rank_", low=1, high=d)
        loaded.array_attr(self, "coef_", shape=(d,))
        loaded.array_attr(self, "feature_means_", shape=(d,))
        loaded.float_attr(self, "intercept_")
        loaded.array_attr(self, "item_effects_", shape=(m,))
        loaded.array_attr(self, "coef_cov_", shape=(d, d), finite=False)
