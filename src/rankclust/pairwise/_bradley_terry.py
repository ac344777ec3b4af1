"""Bradley-Terry (and Davidson ties) fitted on sparse comparisons.

The fit works on the sufficient statistics of :meth:`Comparisons.aggregate`: one row per
compared pair ``(i, j)`` with weighted wins of each side and ties. Log-worths ``z``:

* Bradley-Terry: ``P(i beats j) = e^{z_i} / (e^{z_i} + e^{z_j})``;
* Davidson (1970) ties, with ``nu = e^{lam}``: ``P(i beats j), P(j beats i), P(tie)`` are
  proportional to ``e^{z_i}, e^{z_j}, nu e^{(z_i + z_j) / 2}``.

Each pair's log-likelihood is ``counts . s - N logsumexp(s)`` for affine scores ``s`` of
``(z, lam)``, so the log-likelihood is concave and its negative Hessian (the Fisher
information, observed = expected) is a weighted graph Laplacian in ``z`` bordered by one row
for ``lam``: sparse, ``O(pairs)``. Newton's method solves each step by conjugate gradients
with a Jacobi preconditioner, the Hessian applied as two ``np.bincount`` sums (never formed):
a handful of Newton steps, each a few dozen O(pairs) products.

Priors (``alpha > 0``), on each log-worth ``z``:

* ``"gamma"``: ``alpha (z - e^z)``, the Gamma(1 + alpha, alpha) prior on the worth of
  :class:`~rankclust.models.plackett_luce.PlackettLuce` (= choix ``mm_pairwise(alpha)`` =
  choix ``ilsr_pairwise(alpha / n_items)``);
* ``"gaussian"``: ``-alpha z^2`` (= choix ``opt_pairwise(alpha)``).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import LinearOperator, cg
from scipy.special import expit, log_expit, logsumexp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust._limits import check_alloc
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
    check_sample_weight,
)
from rankclust.pairwise._comparisons import Comparisons

__all__ = ["BradleyTerry"]

#: Largest dense information matrix ``standard_errors`` inverts (bytes); beyond it pass items=.
MAX_DENSE_VCOV_BYTES = 2**30


class _Pairs:
    """Aggregated pairs and the Bradley-Terry / Davidson objective on them."""

    def __init__(self, C: Comparisons, sample_weight: Any, ties: bool) -> None:
        if sample_weight is not None:
            sw = check_sample_weight(sample_weight, C.n_comparisons)
            C = C.subset(sw > 0).with_count(sw[sw > 0])
        self.m = C.n_items
        self.i, self.j, self.wi, self.wj, self.tt = C.aggregate()
        self.ties = ties
        self.n = self.wi + self.wj + self.tt
        self.dim = self.m + (1 if ties else 0)

    # scores of the two (three) outcomes of every pair
    def _probs(self, x: np.ndarray) -> tuple[np.ndarray, ...]:
        z = x[: self.m]
        zi, zj = z[self.i], z[self.j]
        if not self.ties:
            d = zi - zj
            return log_expit(d), log_expit(-d), None
        st = x[self.m] + 0.5 * (zi + zj)
        lse = logsumexp(np.stack([zi, zj, st]), axis=0)
        return zi - lse, zj - lse, st - lse

    def loglik(self, x: np.ndarray) -> float:
        li, lj, lt = self._probs(x)
        out = self.wi @ li + self.wj @ lj
        if lt is not None:
            out += self.tt @ lt
        return float(out)

    def grad_and_info(self, x: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """Gradient of the log-likelihood and the per-pair information entries."""
        li, lj, lt = self._probs(x)
        pi, pj = np.exp(li), np.exp(lj)
        m, i, j = self.m, self.i, self.j
        g = np.zeros(self.dim)
        if lt is None:
            gi = self.wi - self.n * pi
            g[:m] = np.bincount(i, gi, minlength=m) - np.bincount(j, gi, minlength=m)
            h = self.n * pi * pj
            return g, (h, h, -h, None, None, None)
        pt = np.exp(lt)
        a, b = pi + 0.5 * pt, pj + 0.5 * pt
        gi = self.wi + 0.5 * self.tt - self.n * a
        gj = self.wj + 0.5 * self.tt - self.n * b
        g[:m] = np.bincount(i, gi, minlength=m) + np.bincount(j, gj, minlength=m)
        g[m] = float(np.sum(self.tt - self.n * pt))
        nn = self.n
        return g, (
            nn * (pi + 0.25 * pt - a * a),
            nn * (pj + 0.25 * pt - b * b),
            nn * (0.25 * pt - a * b),
            nn * pt * (0.5 - a),
            nn * pt * (0.5 - b),
            nn * pt * (1.0 - pt),
        )

    def info_matvec(self, H: tuple[np.ndarray, ...], v: np.ndarray) -> np.ndarray:
        m, i, j = self.m, self.i, self.j
        hii, hjj, hij, hil, hjl, hll = H
        vi, vj = v[i], v[j]
        out = np.zeros(self.dim)
        out[:m] = np.bincount(i, hii * vi + hij * vj, minlength=m) + np.bincount(
            j, hij * vi + hjj * vj, minlength=m
        )
        if hil is not None:
            vl = v[m]
            out[:m] += np.bincount(i, hil * vl, minlength=m) + np.bincount(
                j, hjl * vl, minlength=m
            )
            out[m] = hil @ vi + hjl @ vj + hll.sum() * vl
        return out

    def info_diag(self, H: tuple[np.ndarray, ...]) -> np.ndarray:
        m = self.m
        d = np.zeros(self.dim)
        d[:m] = np.bincount(self.i, H[0], minlength=m) + np.bincount(self.j, H[1], minlength=m)
        if H[5] is not None:
            d[m] = H[5].sum()
        return d

    def info_dense(self, H: tuple[np.ndarray, ...]) -> np.ndarray:
        m, i, j = self.m, self.i, self.j
        hii, hjj, hij, hil, hjl, hll = H
        rows = [i, j, i, j]
        cols = [i, j, j, i]
        vals = [hii, hjj, hij, hij]
        if hil is not None:
            mm = np.full(i.size, m)
            rows += [i, mm, j, mm]
            cols += [mm, i, mm, j]
            vals += [hil, hil, hjl, hjl]
        A = coo_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(self.dim, self.dim),
        ).toarray()
        if hll is not None:
            A[m, m] = hll.sum()
        return A


def row_gradients(
    C: Comparisons, x: np.ndarray, m: int, ties: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Gradient of each row's ``count * log P(outcome)`` in ``x = (z[, log nu])``.

    Returns the entries at the winner's and the loser's log-worth (and at ``log nu`` with a
    tie model), each shape (n,): ``[won] + tie/2 - a`` and ``tie/2 - b`` (``a = p_w + p_t/2``,
    ``b = p_l + p_t/2``), ``[tie] - p_t``, times ``count``; without ties ``1 - p_w`` and
    ``-(1 - p_w)``. Private helper of the mixture's information (trusts its input).
    """
    zw, zl = x[C.winner], x[C.loser]
    c = C.count
    if not ties:
        q = c * expit(zl - zw)  # count * (1 - P(winner beats loser))
        return q, -q, None
    st = x[m] + 0.5 * (zw + zl)
    lse = logsumexp(np.stack([zw, zl, st]), axis=0)
    pw, pl, pt = np.exp(zw - lse), np.exp(zl - lse), np.exp(st - lse)
    t = C.tie.astype(np.float64)
    return (
        c * ((1.0 - t) + 0.5 * t - (pw + 0.5 * pt)),
        c * (0.5 * t - (pl + 0.5 * pt)),
        c * (t - pt),
    )


def _prior(x: np.ndarray, m: int, alpha: float, kind: str) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-prior, its gradient and the diagonal of its negative Hessian (in ``x``)."""
    z = x[:m]
    g = np.zeros_like(x)
    d = np.zeros_like(x)
    if alpha == 0:
        return 0.0, g, d
    if kind == "gamma":
        w = np.exp(z)
        g[:m] = alpha * (1.0 - w)
        d[:m] = alpha * w
        return float(alpha * np.sum(z - w)), g, d
    g[:m] = -2.0 * alpha * z
    d[:m] = 2.0 * alpha
    return float(-alpha * z @ z), g, d


class BradleyTerry(ValidatedParamsMixin, BaseEstimator):
    """Bradley-Terry model for pairwise comparisons, with Davidson ties, on sparse data.

    ``P(i beats j) = v_i / (v_i + v_j)`` for worths ``v = exp(scores_)``. When the data hold
    ties (and ``ties="auto"``), Davidson's (1970) model: ``P(i beats j) = v_i / D``,
    ``P(tie) = nu sqrt(v_i v_j) / D`` with ``D = v_i + v_j + nu sqrt(v_i v_j)``, the tie
    parameter ``nu = tie_strength_`` fitted jointly. Counts (and ``sample_weight``) weight
    each comparison: weighted data give the same fit as the expanded data.

    Parameters
    ----------
    alpha : float, default=0.0
        Prior strength. ``0``: maximum likelihood (``fit`` raises ``ValueError`` when it does
        not exist: the win graph is not strongly connected). ``> 0``: a unique MAP estimate.
    prior : {"gamma", "gaussian"}, default="gamma"
        ``"gamma"``: Gamma(1 + alpha, alpha) on each worth, log-prior ``alpha (z - e^z)`` --
        the convention of :class:`~rankclust.models.plackett_luce.PlackettLuce` and of choix
        ``mm_pairwise(alpha=alpha)``, equal to choix ``ilsr_pairwise(alpha=alpha / n_items)``.
        ``"gaussian"``: log-prior ``-alpha z^2``, choix ``opt_pairwise(alpha=alpha)``.
    ties : {"auto", "none"}, default="auto"
        ``"auto"``: Davidson's model when some comparison is a tie, Bradley-Terry otherwise.
        ``"none"``: refuse data with ties.
    solver : {"newton", "mm"}, default="newton"
        ``"newton"``: Newton's method, each step solved by preconditioned conjugate
        gradients on the sparse information. ``"mm"``: Hunter's (2004) MM update (no ties,
        gamma prior only), kept as a reference; it converges linearly and needs many more
        passes.
    max_iter : int, default=100
        Maximum Newton steps (MM: updates, times 100).
    tol : float, default=1e-10
        Convergence when the predicted gain of a Newton step (half the Newton decrement) is
        below ``tol * |log-posterior|`` and the step moved no score by more than 1e-6 (MM:
        the relative change of the log-posterior).

    Attributes
    ----------
    scores_ : ndarray of float64, shape (n_items,)
        Log-worths, mean zero.
    worths_ : ndarray of float64, shape (n_items,)
        ``exp(scores_)`` normalised to sum 1.
    tie_strength_ : float
        Davidson's ``nu`` (0.0 without a tie model).
    log_likelihood_ : float
        Weighted log-likelihood of the training comparisons (no prior).
    n_items_ : int
    n_iter_ : int
    converged_ : bool
    items_ : tuple of str or None

    Notes
    -----
    Complexity: with ``p`` distinct compared pairs and ``n`` comparison rows, ``fit`` takes
    O(n log n) to aggregate, then O(T (p + m) K) for T Newton steps of K conjugate-gradient
    products; memory O(n + m). ``standard_errors`` inverts the (m + 1)-square information
    densely (O(m^3), refused beyond ``MAX_DENSE_VCOV_BYTES``) or, for the ``items`` asked,
    solves one sparse system each.

    References
    ----------
    Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block designs: I.
    Biometrika, 39(3/4), 324-345.

    Davidson, R. R. (1970). On extending the Bradley-Terry model to accommodate ties in
    paired comparison experiments. JASA, 65(329), 317-328.

    Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. The Annals of
    Statistics, 32(1), 384-406.

    Examples
    --------
    Item 1 beat item 2 and split its games with item 0; item 0 split with both:

    >>> from rankclust.pairwise import BradleyTerry, Comparisons
    >>> C = Comparisons.from_arrays([0, 0, 1, 1, 2], [1, 2, 2, 0, 0])
    >>> bt = BradleyTerry().fit(C)
    >>> bt.scores_.round(3)
    array([ 0.   ,  0.528, -0.528])
    >>> bt.predict_proba([[1, 2]])[:, 0].round(3)
    array([0.742])
    """

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "prior": [StrOptions({"gamma", "gaussian"})],
        "ties": [StrOptions({"auto", "none"})],
        "solver": [StrOptions({"newton", "mm"})],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        alpha: float = 0.0,
        prior: str = "gamma",
        ties: str = "auto",
        solver: str = "newton",
        max_iter: int = 100,
        tol: float = 1e-10,
    ) -> None:
        self.alpha = alpha
        self.prior = prior
        self.ties = ties
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol

    # ---------------------------------------------------------------- fitting
    def _check_fit_data(self, C: Any) -> tuple[Comparisons, bool]:
        """``(C, has_ties)`` for ``fit``: comparisons of at least 2 items, ties only where
        ``ties`` allows them (one line naming the first tied row)."""
        C = self._check(C)
        if C.n_items < 2:
            raise ValueError(f"need at least 2 items, got {C.n_items}")
        has_ties = bool(C.tie.any())
        if has_ties and self.ties == "none":
            k = int(np.flatnonzero(C.tie)[0])
            raise ValueError(f"row {k} is a tie and ties='none'")
        return C, has_ties

    def _check(self, C: Any) -> Comparisons:
        if not isinstance(C, Comparisons):
            raise TypeError(f"expected a Comparisons, got {type(C).__name__}")
        return C

    def fit(self, C: Comparisons, y: None = None, sample_weight: Any = None) -> BradleyTerry:
        """Fit the scores (and the tie strength) by maximum likelihood or MAP.

        Parameters
        ----------
        C : Comparisons
        y : None
            Ignored.
        sample_weight : array-like of float, shape (n_comparisons,), optional
            Weight per comparison row, multiplied by ``C.count``.

        Returns
        -------
        self : BradleyTerry
        """
        self._validate_params()
        C, has_ties = self._check_fit_data(C)
        P = _Pairs(C, sample_weight, has_ties)
        if self.alpha == 0:
            self._check_mle(P)
        if self.solver == "mm":
            if has_ties or self.prior != "gamma":
                raise ValueError("solver='mm' fits untied data with the gamma prior only")
            x, n_iter, converged = self._fit_mm(P)
        else:
            x, n_iter, converged = self._fit_newton(P)
        if not converged:
            warnings.warn(
                f"BradleyTerry did not converge in max_iter={self.max_iter} iterations "
                f"(tol={self.tol}); increase max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        z = x[: P.m]
        self.scores_ = z - z.mean()
        w = np.exp(self.scores_ - self.scores_.max())
        self.worths_ = w / w.sum()
        self.tie_strength_ = float(np.exp(x[P.m])) if has_ties else 0.0
        self.log_likelihood_ = P.loglik(x)
        self.n_items_ = P.m
        self.items_ = C.items
        self.n_iter_ = n_iter
        self.converged_ = converged
        self._x = x
        return self

    @staticmethod
    def _check_mle(P: _Pairs) -> None:
        won = P.wi + 0.5 * P.tt > 0  # i beat (or tied) j at least once: edge j -> i ...
        lost = P.wj + 0.5 * P.tt > 0
        rows = np.concatenate([P.j[won], P.i[lost]])
        cols = np.concatenate([P.i[won], P.j[lost]])
        G = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(P.m, P.m)).tocsr()
        k, _ = connected_components(G, directed=True, connection="strong")
        if k > 1:
            raise ValueError(
                f"the maximum-likelihood estimate does not exist: the items fall into {k} "
                "groups that do not all beat each other (an item never wins, never loses or "
                "is never compared); use alpha > 0"
            )

    def _objective(self, P: _Pairs, x: np.ndarray) -> float:
        return P.loglik(x) + _prior(x, P.m, float(self.alpha), self.prior)[0]

    def _fit_newton(self, P: _Pairs) -> tuple[np.ndarray, int, bool]:
        m, alpha = P.m, float(self.alpha)
        x = np.zeros(P.dim)
        if P.ties:
            tau = P.tt.sum() / P.n.sum()
            x[m] = np.log(2 * tau / max(1 - tau, 1e-12))
        f = self._objective(P, x)
        gnorm0 = None
        shift = np.zeros(P.dim)
        shift[:m] = 1.0 / np.sqrt(m)  # the null direction of the likelihood when alpha == 0
        for it in range(1, self.max_iter + 1):
            g, H = P.grad_and_info(x)
            _, gp, dp = _prior(x, m, alpha, self.prior)
            g = g + gp
            gnorm = float(np.linalg.norm(g))
            gnorm0 = gnorm0 or max(gnorm, 1e-300)
            diag = P.info_diag(H) + dp + (shift**2 if alpha == 0 else 0.0)
            diag[diag <= 0] = 1.0

            def mv(v: np.ndarray, H: tuple = H, dp: np.ndarray = dp) -> np.ndarray:
                out = P.info_matvec(H, v) + dp * v
                if alpha == 0:
                    out += shift * (shift @ v)
                return out

            A = LinearOperator((P.dim, P.dim), matvec=mv, dtype=np.float64)
            Minv = LinearOperator((P.dim, P.dim), matvec=lambda v, d=diag: v / d)
            rtol = min(0.1, max(1e-12, (gnorm / gnorm0) ** 2))  # superlinear inexact Newton
            step, _ = cg(A, g, rtol=rtol, atol=0.0, M=Minv, maxiter=10 * P.dim)
            if alpha == 0:
                step -= shift * (shift @ step)
            gain = float(g @ step)
            t = 1.0
            while True:  # backtracking line search on the concave log-posterior
                x_new = x + t * step
                f_new = self._objective(P, x_new)
                if f_new >= f + 1e-4 * t * gain or t < 1e-10:
                    break
                t *= 0.5
            x, f_old, f = x_new, f, f_new
            # the gain alone cannot see scores of rarely compared items (a flat posterior):
            # also require the last step to move no score by more than 1e-6 (the next,
            # quadratically convergent step would move them by about 1e-12)
            small_gain = 0.5 * gain <= self.tol * max(abs(f), 1.0)
            if (small_gain and t * np.abs(step).max() <= 1e-6) or abs(f - f_old) <= 1e-16 * abs(f):
                return x, it, True
        return x, self.max_iter, False

    def _fit_mm(self, P: _Pairs) -> tuple[np.ndarray, int, bool]:
        m, alpha = P.m, float(self.alpha)
        wins = np.bincount(P.i, P.wi, minlength=m) + np.bincount(P.j, P.wj, minlength=m)
        v = np.ones(m)
        x = np.zeros(m)
        f = self._objective(P, x)
        for it in range(1, 100 * self.max_iter + 1):
            r = P.n / (v[P.i] + v[P.j])
            den = np.bincount(P.i, r, minlength=m) + np.bincount(P.j, r, minlength=m)
            v = (wins + alpha) / (den + alpha)
            v /= v.mean()
            x = np.log(v)
            f_old, f = f, self._objective(P, x)
            if abs(f - f_old) <= self.tol * max(abs(f), 1.0):
                return x, it, True
        return x, 100 * self.max_iter, False

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        m = loaded.int_attr(self, "n_items_", low=2)
        loaded.items_attr(self, n_items=m)
        loaded.array_attr(self, "scores_", shape=(m,))
        loaded.array_attr(self, "worths_", shape=(m,), low=0.0, high=1.0)
        nu = loaded.float_attr(self, "tie_strength_", low=0.0)
        loaded.float_attr(self, "log_likelihood_", high=0.0)
        loaded.int_attr(self, "n_iter_")
        loaded.choice_attr(self, "converged_", (True, False))
        # the unnormalised solution, read by standard_errors: one more entry (log nu) with ties
        x = loaded.array_attr(self, "_x", shape=(m + (1 if nu > 0 else 0),))
        if nu > 0 and not np.isclose(x[m], np.log(nu), rtol=0.0, atol=1e-9):
            raise ValueError("_x: its last entry is not log(tie_strength_)")

    # ---------------------------------------------------------------- prediction
    def _pairs(self, pairs: Any) -> np.ndarray:
        arr = np.asarray(pairs)
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise ValueError(f"pairs must have shape (n, 2), got {arr.shape}")
        arr = arr.astype(np.int64)
        bad = np.flatnonzero(((arr < 0) | (arr >= self.n_items_)).any(axis=1))
        if bad.size:
            raise ValueError(f"pair {int(bad[0])} holds an item outside [0, {self.n_items_})")
        return arr

    def predict_proba(self, pairs: Any) -> np.ndarray:
        """Outcome probabilities of comparisons of ``pairs[k] = (a, b)``.

        Returns
        -------
        ndarray of float64, shape (n, 3)
            Columns: ``P(a beats b)``, ``P(b beats a)``, ``P(tie)`` (0 without a tie model).
        """
        check_is_fitted(self)
        ab = self._pairs(pairs)
        za, zb = self.scores_[ab[:, 0]], self.scores_[ab[:, 1]]
        if self.tie_strength_ == 0.0:
            p = expit(za - zb)
            return np.column_stack([p, 1 - p, np.zeros_like(p)])
        s = np.stack([za, zb, np.log(self.tie_strength_) + 0.5 * (za + zb)], axis=1)
        return np.exp(s - logsumexp(s, axis=1, keepdims=True))

    def logpdf(self, C: Comparisons) -> np.ndarray:
        """Log-probability of each comparison row (one comparison; ``count`` not applied)."""
        check_is_fitted(self)
        C = self._check(C)
        if C.n_items != self.n_items_:
            raise ValueError(f"C has {C.n_items} items, the model {self.n_items_}")
        p = self.predict_proba(np.column_stack([C.winner, C.loser]))
        out = np.where(C.tie, p[:, 2], p[:, 0])
        with np.errstate(divide="ignore"):
            return np.log(out)

    def score(self, C: Comparisons, y: None = None) -> float:
        """Mean log-probability per comparison (weighted by ``count``)."""
        lp = self.logpdf(C)
        return float(C.count @ lp / C.count.sum())

    # ---------------------------------------------------------------- uncertainty
    def standard_errors(
        self, C: Comparisons, sample_weight: Any = None, *, items: Any = None
    ) -> np.ndarray:
        """Standard errors of ``scores_`` (and of ``log tie_strength_``) from the information.

        The inverse of the negative Hessian of the log-posterior at the fit (the Fisher
        information plus the prior's curvature), for the mean-zero scores; with ``alpha = 0``
        the Moore-Penrose inverse (the likelihood ignores a common shift), as
        :func:`rankclust.inference.plackett_luce_vcov`. Pass the data of the fit.

        Parameters
        ----------
        C : Comparisons
        sample_weight : array-like, optional
        items : array-like of int, optional
            Items whose standard errors to compute (index ``n_items_`` is ``log nu`` when the
            model has ties). ``None``: all, by a dense inverse, refused when the
            (m + 1)-square matrix exceeds ``MAX_DENSE_VCOV_BYTES``; a list: one sparse
            conjugate-gradient solve per item, O(comparisons) memory.

        Returns
        -------
        ndarray of float64
            Shape ``(n_items_ [+ 1],)`` for ``items=None``, else ``(len(items),)``.
        """
        check_is_fitted(self)
        C = self._check(C)
        P = _Pairs(C, sample_weight, self.tie_strength_ > 0)
        m, alpha, x = P.m, float(self.alpha), self._x
        _, H = P.grad_and_info(x)
        _, _, dp = _prior(x, m, alpha, self.prior)
        u = np.zeros(P.dim)
        u[:m] = 1.0 / np.sqrt(m)

        def contrast(k: int) -> np.ndarray:
            c = np.zeros(P.dim)
            c[k] = 1.0
            if k < m:
                c[:m] -= 1.0 / m  # the centred score z_k - mean(z)
            return c

        if items is None:
            check_alloc(8.0 * P.dim * P.dim * 2, MAX_DENSE_VCOV_BYTES, "the dense information")
            A = P.info_dense(H) + np.diag(dp)
            if alpha == 0:
                A += np.outer(u, u)
            V = np.linalg.inv(A)
            Pm = np.eye(P.dim)
            Pm[:m, :m] -= 1.0 / m
            var = np.einsum("ij,jk,ik->i", Pm, V, Pm)
            return np.sqrt(np.maximum(var, 0.0))
        ks = np.atleast_1d(np.asarray(items, dtype=np.int64))
        if ((ks < 0) | (ks >= P.dim)).any():
            raise ValueError(f"items must be indices in [0, {P.dim})")
        diag = P.info_diag(H) + dp + (u**2 if alpha == 0 else 0.0)
        diag[diag <= 0] = 1.0

        def mv(v: np.ndarray) -> np.ndarray:
            out = P.info_matvec(H, v) + dp * v
            if alpha == 0:
                out += u * (u @ v)
            return out

        A = LinearOperator((P.dim, P.dim), matvec=mv, dtype=np.float64)
        Minv = LinearOperator((P.dim, P.dim), matvec=lambda v: v / diag)
        out = np.empty(ks.size)
        for n, k in enumerate(ks):
            c = contrast(int(k))
            y, _ = cg(A, c, rtol=1e-10, atol=0.0, M=Minv, maxiter=20 * P.dim)
            out[n] = np.sqrt(max(float(c @ y), 0.0))
        return out
