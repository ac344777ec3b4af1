"""The multinomial-logit gate of a mixture of experts for rankings (private).

A mixture fitted with respondent covariates ``X`` (``fit(R, X=...)``) has mixing weights
that depend on the respondent: ``pi_k(x) = softmax_k(gamma_k . [1, x])`` with
``gamma_0 = 0`` (the first component is the reference). This module holds the gate's
mathematics (design matrix, log-probabilities, the weighted multinomial-logistic M-step with
soft labels and a ridge penalty) and :class:`GateMixin`, the methods the mixtures gain from
it; the EM driver that fits gate and components together is
:mod:`rankclust.cluster._experts`.

Conventions, stated once: ``Z`` is the design ``[1, (x - mean) / scale]`` of shape
``(n, d + 1)`` on *standardised* covariates (the ridge penalty acts on standardised slopes,
so it does not depend on the units of a covariate; the intercepts are not penalised, so a
gate without covariates is the plain mixture's weights exactly); ``gamma`` has shape
``(K, d + 1)`` with row 0 zero. Fitted coefficients are reported on the original scale of
``X`` (``gate_coef_``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats
from sklearn.utils.validation import check_array, check_is_fitted

__all__ = [
    "GateCoefficients",
    "GateMixin",
    "check_covariates",
    "fit_gate",
    "gate_coefficients",
    "gate_log_probs",
    "gate_objective",
    "refuse_covariates",
    "standardise",
]

#: The attributes a fit with covariates sets beyond those of the plain mixture.
GATE_ATTRIBUTES = ("gate_coef_", "gate_mean_", "gate_scale_", "gate_coef_se_", "gate_vcov_")


def check_covariates(X: Any, n: int | None = None, d: int | None = None) -> np.ndarray:
    """``X`` as a float64 array of shape (n, d): finite, 2-d (zero columns allowed).

    ``n`` and ``d``, when given, are the rows and columns it must have. One-line
    ``ValueError`` otherwise.
    """
    X = check_array(X, dtype=np.float64, ensure_min_features=0, input_name="X")
    if n is not None and X.shape[0] != n:
        raise ValueError(f"X has {X.shape[0]} rows but R has {n} rankings (one row each)")
    if d is not None and X.shape[1] != d:
        raise ValueError(f"X has {X.shape[1]} columns; the mixture was fitted with {d}")
    return X


def standardise(X: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted mean and standard deviation of every column (a constant column gets scale 1:
    it is all zero once centred and the gate ignores it)."""
    total = w.sum()
    mean = (w @ X) / total if X.shape[1] else np.zeros(0)
    var = (w @ (X - mean) ** 2) / total if X.shape[1] else np.zeros(0)
    scale = np.sqrt(var)
    return mean, np.where(scale > 1e-12 * np.maximum(1.0, np.abs(mean)), scale, 1.0)


def design(X: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``[1, (X - mean) / scale]``, shape (n, d + 1)."""
    return np.hstack([np.ones((X.shape[0], 1)), (X - mean) / scale])


def gate_log_probs(Z: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """``log pi_k(x_i)``, shape (n, K): the log-softmax of ``Z @ gamma.T``."""
    eta = Z @ gamma.T
    eta -= eta.max(axis=1, keepdims=True)
    return eta - np.log(np.exp(eta).sum(axis=1, keepdims=True))


def gate_objective(
    flat: np.ndarray, Z: np.ndarray, wq: np.ndarray, penalty: float
) -> tuple[float, np.ndarray]:
    """Minus the penalised expected complete-data log-likelihood of the gate, and its gradient.

    ``f(gamma) = -sum_ik wq_ik log pi_k(x_i) + penalty / 2 * |slopes|^2`` with ``wq_ik =
    w_i q_ik`` (row weight times responsibility; soft labels), over the free coefficients
    ``flat = gamma[1:].ravel()``; gradient ``-(wq - w pi)' Z`` (rows 1..K-1) plus the
    penalty's ``penalty * slopes`` (intercepts unpenalised). Exact; tested against finite
    differences.
    """
    k_comp = wq.shape[1]
    gamma = np.vstack([np.zeros((1, Z.shape[1])), flat.reshape(k_comp - 1, -1)])
    logp = gate_log_probs(Z, gamma)
    slopes = gamma[1:, 1:]
    f = -float(np.sum(wq * logp)) + 0.5 * penalty * float(np.sum(slopes * slopes))
    w = wq.sum(axis=1)
    grad = -((wq - w[:, None] * np.exp(logp)).T @ Z)[1:]
    grad[:, 1:] += penalty * slopes
    return f, grad.ravel()


def gate_hessian(Z: np.ndarray, w: np.ndarray, pi: np.ndarray, penalty: float) -> np.ndarray:
    """Hessian of :func:`gate_objective` in ``gamma[1:].ravel()``, shape ((K-1)(d+1),) * 2:
    ``sum_i w_i kron(diag(pi_i) - pi_i pi_i', z_i z_i')`` over components 1..K-1, plus the
    penalty on the slopes. It does not depend on the soft labels."""
    k_comp = pi.shape[1]
    p1 = Z.shape[1]
    H = np.zeros(((k_comp - 1) * p1, (k_comp - 1) * p1))
    for a in range(1, k_comp):
        for b in range(a, k_comp):
            c = w * pi[:, a] * ((a == b) - pi[:, b])
            block = Z.T @ (c[:, None] * Z)
            H[(a - 1) * p1 : a * p1, (b - 1) * p1 : b * p1] = block
            H[(b - 1) * p1 : b * p1, (a - 1) * p1 : a * p1] = block.T
    slopes = np.zeros((k_comp - 1, p1), dtype=bool)
    slopes[:, 1:] = True
    H[np.flatnonzero(slopes.ravel()), np.flatnonzero(slopes.ravel())] += penalty
    return H


#: Newton steps of one gate M-step, and the stop on the Newton decrement (per unit weight).
_GATE_NEWTON_STEPS = 25
_GATE_NEWTON_TOL = 1e-12


def fit_gate(Z: np.ndarray, wq: np.ndarray, gamma: np.ndarray, penalty: float) -> np.ndarray:
    """The gate's M-step: a weighted multinomial logistic regression with soft labels.

    Minimises :func:`gate_objective` (convex) by Newton's method with the exact Hessian
    (:func:`gate_hessian`) and step halving, warm-started at ``gamma``: every accepted step
    decreases the objective, so EM stays monotone. Without covariates (``Z`` one column) the
    solution is closed-form: ``gamma_k = log(n_k / n_0)``, the plain mixture's weights.
    Private; inputs trusted.

    Complexity: O(n K^2 d^2 + K^3 d^3) per Newton step, a few steps per M-step.
    """
    k_comp = wq.shape[1]
    if k_comp == 1:
        return np.zeros_like(gamma)
    if Z.shape[1] == 1:
        nk = np.maximum(wq.sum(axis=0), 1e-300)
        out = np.zeros_like(gamma)
        out[:, 0] = np.log(nk) - np.log(nk[0])
        return out
    w = wq.sum(axis=1)
    total = float(w.sum())
    x = gamma[1:].ravel().copy()
    f, g = gate_objective(x, Z, wq, penalty)
    for _ in range(_GATE_NEWTON_STEPS):
        gam = np.vstack([np.zeros((1, Z.shape[1])), x.reshape(k_comp - 1, -1)])
        pi = np.exp(gate_log_probs(Z, gam))
        H = gate_hessian(Z, w, pi, penalty)
        try:
            step = np.linalg.solve(H + 1e-12 * total * np.eye(len(x)), g)
        except np.linalg.LinAlgError:
            break
        decrement = float(g @ step)
        if not decrement > _GATE_NEWTON_TOL * total:
            break
        t = 1.0
        while t > 1e-10:
            x_new = x - t * step
            f_new, g_new = gate_objective(x_new, Z, wq, penalty)
            if f_new <= f - 1e-4 * t * decrement:
                break
            t *= 0.5
        else:
            break
        x, f, g = x_new, f_new, g_new
    return np.vstack([np.zeros((1, Z.shape[1])), x.reshape(k_comp - 1, -1)])


def refuse_covariates(est: Any, what: str) -> None:
    """One-line ``ValueError`` when ``est`` was fitted with covariates (a mixture of experts)
    and ``what`` (a tool written for the plain mixtures) would silently ignore its gate."""
    if getattr(est, "gate_coef_", None) is not None:
        raise ValueError(
            f"{what}: this {type(est).__name__} was fitted with covariates (a mixture of "
            "experts), which it does not handle; the gate's standard errors are gate_coef_se_ "
            "(rankclust.cluster.gate_coefficients)"
        )


class GateMixin:
    """What a ranking mixture gains from a covariate gate (mixed into the mixtures)."""

    def _has_gate(self) -> bool:
        return getattr(self, "gate_coef_", None) is not None

    def _gate_probs(self, X: Any) -> np.ndarray:
        check_is_fitted(self, ["weights_"])
        if not self._has_gate():
            raise ValueError(
                f"this {type(self).__name__} was fitted without covariates; fit it with "
                "fit(R, X=...) to predict from covariates"
            )
        coef = self.gate_coef_
        X = check_covariates(X, d=coef.shape[1] - 1)
        Z = np.hstack([np.ones((X.shape[0], 1)), X])
        return np.exp(gate_log_probs(Z, coef))

    def predict_proba_from_covariates(self, X: Any) -> np.ndarray:
        """The gate alone: the segment probabilities of a person from covariates only.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Respondent covariates, the columns of the fit.

        Returns
        -------
        ndarray of float64, shape (n, K)
            ``pi_k(x) = softmax_k(gate_coef_[k] . [1, x])``.

        Notes
        -----
        Complexity: O(n K d) time, O(n K) memory.
        """
        return self._gate_probs(X)

    def predict_ranking_from_covariates(self, X: Any, *, how: str = "consensus") -> np.ndarray:
        """The ranking predicted for a person from covariates only (no ranking seen).

        Parameters
        ----------
        X : array-like of shape (n, d)
        how : {"consensus", "modal"}, default="consensus"
            ``"consensus"``: the Borda consensus of the gate-weighted mixture, items by
            increasing ``sum_k pi_k(x) pos_k(item)`` over the components' modal rankings
            ``centers_`` (ties by item index); ``"modal"``: the modal ranking of the
            segment the gate makes most likely, ``centers_[argmax_k pi_k(x)]``. The
            consensus hedges between segments when the gate is unsure and agrees with
            ``"modal"`` when it is sure (SUSHI A: see "Covariates" in
            ``docs/covariates.md``).

        Returns
        -------
        ndarray of int64, shape (n, n_items_)
            0-based positions of the items (the rank-matrix convention of
            :class:`~rankclust.Rankings`).

        Notes
        -----
        Complexity: O(n K (d + m) + n m log m) time, O(n (K + m)) memory.
        """
        if how not in ("consensus", "modal"):
            raise ValueError(f"how must be 'consensus' or 'modal', got {how!r}")
        pi = self._gate_probs(X)
        positions = np.asarray(self.centers_.ranks, dtype=np.int64)
        if how == "modal":
            return positions[np.argmax(pi, axis=1)]
        score = pi @ positions.astype(np.float64)
        order = np.argsort(score, axis=1, kind="stable")
        return np.argsort(order, axis=1, kind="stable").astype(np.int64)


@dataclass
class GateCoefficients:
    """Result of :func:`gate_coefficients`: the gate of a mixture of experts, with Wald
    statistics.

    Attributes
    ----------
    names : list of str
        ``"intercept"``, then one name per covariate.
    coef, se : ndarray of float64, shape (K, d + 1)
        Coefficients on the original scale of ``X`` and their standard errors; row 0 (the
        reference component, the largest) is zero.
    level : float
        Level of the intervals.
    lower, upper : ndarray of float64, shape (K, d + 1)
        Wald interval ``coef -/+ z se``.
    p_values : ndarray of float64, shape (K, d + 1)
        Two-sided Wald p-values of ``coef = 0`` (nan in row 0).
    """

    names: list
    coef: np.ndarray
    se: np.ndarray
    level: float
    lower: np.ndarray
    upper: np.ndarray
    p_values: np.ndarray

    def to_markdown(self, digits: int = 3) -> str:
        """One row per coefficient of components 1..K-1 (against component 0)."""
        lines = [
            f"| component | covariate | coefficient | SE | {self.level:.0%} interval | p |",
            "|---|---|---|---|---|---|",
        ]
        for k in range(1, self.coef.shape[0]):
            for j, name in enumerate(self.names):
                lines.append(
                    f"| {k} vs 0 | {name} | {self.coef[k, j]:.{digits}f} "
                    f"| {self.se[k, j]:.{digits}f} | [{self.lower[k, j]:.{digits}f}, "
                    f"{self.upper[k, j]:.{digits}f}] | {self.p_values[k, j]:.3g} |"
                )
        return "\n".join(lines)


def gate_coefficients(
    estimator: Any, *, feature_names: Any = None, level: float = 0.95
) -> GateCoefficients:
    """The gate coefficients of a mixture fitted with covariates, with intervals.

    Parameters
    ----------
    estimator : MallowsMixture or PlackettLuceMixture
        Fitted with ``fit(R, X=...)``.
    feature_names : sequence of str, optional
        One name per column of ``X`` (default ``x0, x1, ...``).
    level : float, default=0.95

    Returns
    -------
    GateCoefficients
        ``coef[k, j]`` is the change in the log-odds of component k against component 0
        (the largest) per unit of covariate j, the others fixed.

    Notes
    -----
    The standard errors are those of the fit (``gate_coef_se_``): the exact observed
    information of the mixture likelihood (Louis 1982) in the gate coefficients and the
    component parameters together (Mallows dispersions given the centres), with the ridge
    penalty's curvature (so, with ``gate_penalty > 0``, a penalised-likelihood interval).

    Complexity: O(K d) time and memory.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.datasets import make_mallows_mixture
    >>> from rankclust.cluster import MallowsMixture, gate_coefficients
    >>> R, y = make_mallows_mixture(300, 5, 2, centers=[[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]],
    ...                             thetas=1.5, random_state=0)
    >>> X = np.c_[y + np.random.RandomState(0).normal(size=300)]
    >>> mix = MallowsMixture(2, n_init=2, random_state=0).fit(R, X=X)
    >>> gate_coefficients(mix, feature_names=["score"]).names
    ['intercept', 'score']
    """
    check_is_fitted(estimator, ["weights_"])
    if getattr(estimator, "gate_coef_", None) is None:
        raise ValueError(
            f"this {type(estimator).__name__} was fitted without covariates (fit(R, X=...))"
        )
    level = float(level)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    coef = np.asarray(estimator.gate_coef_, dtype=np.float64)
    d = coef.shape[1] - 1
    if feature_names is None:
        names = [f"x{j}" for j in range(d)]
    else:
        names = [str(s) for s in feature_names]
        if len(names) != d:
            raise ValueError(f"feature_names has {len(names)} names; the gate has {d} covariates")
    se = np.asarray(estimator.gate_coef_se_, dtype=np.float64)
    half = stats.norm.ppf(0.5 + level / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = 2.0 * stats.norm.sf(np.abs(coef / se))
    p[0] = np.nan
    return GateCoefficients(
        names=["intercept", *names], coef=coef, se=se, level=level,
        lower=coef - half * se, upper=coef + half * se, p_values=p,
    )  # fmt: skip
