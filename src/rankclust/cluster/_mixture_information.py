"""Standard errors of the ranking mixtures: observed information of the mixture likelihood.

For a fitted :class:`~rankclust.cluster.mixture.MallowsMixture` or
:class:`~rankclust.cluster.mixture.PlackettLuceMixture` the observed-data log-likelihood
``l(phi) = sum_i w_i log sum_k pi_k f_k(x_i)`` is differentiated in the free parameters

``phi = (a_1, ..., a_{K-1}, eta_1, ..., eta_K)``

* mixing weights by K - 1 free logits, ``pi = softmax(a_1, ..., a_{K-1}, 0)``;
* Mallows: ``eta_k = theta_k``, **given the fitted centres** (discrete; their uncertainty is
  not included, as for :func:`~rankclust.models.mallows_theta_standard_error`);
* Plackett-Luce: ``eta_k = u_k`` with log-worths ``z_k = B u_k`` and ``B`` an orthonormal
  basis of the sum-zero vectors: the sum-zero identifiability constraint of
  :func:`~rankclust.models.plackett_luce_vcov`, per component.

With ``h_ik = log pi_k + log f_k(x_i)`` and the responsibilities ``tau_ik``, the score of a
ballot is ``sum_k tau_ik grad h_ik`` (Fisher's identity), and its exact Hessian is

``sum_k tau_ik hess h_ik + sum_k tau_ik grad h_ik grad h_ik' - s_i s_i'``  (``s_i`` its score),

so the observed information is Louis's (1982) formula, *complete-data information minus the
conditional variance of the complete-data score*, evaluated exactly (analytic, no numerical
differentiation):

``I(phi) = sum_i w_i [ sum_k tau_ik (-hess h_ik) - (sum_k tau_ik g_ik g_ik' - s_i s_i') ]``.

Per component the pieces are those of the single models: ``d/dtheta log f = mu_t(theta) - d``
and ``-d2/dtheta2 log f = Var_t(theta)`` (the Kendall statistic ``d`` of a length-``t`` row,
top-t or complete, or the observed-pairs likelihood of ``kind="subset"``, the likelihood the
mixture maximises), the Plackett-Luce gradient and information of
:func:`~rankclust.models.plackett_luce_information`; the logits add
``-hess log pi_k = diag(pi) - pi pi'``. The covariance of the reported parameters
(``weights_``, ``thetas_`` or the sum-zero ``scores_``) follows by the delta method:
``J I^-1 J'`` with ``d pi_k / d a_l = pi_k (delta_kl - pi_l)`` and ``d z_k / d u_k = B``.

The same functions take a fitted :class:`~rankclust.pairwise.BradleyTerryMixture` and its
:class:`~rankclust.pairwise.Comparisons`: the units are the assessors, ``eta_k`` the
uncentred log-worths (identified by the gamma prior) and, with ties, ``log nu_k``, and the
information is that of the log-posterior the mixture maximises (Louis's formula plus the
prior's curvature); see ``BradleyTerryMixture._information_pieces``. The assembly shared by
both lives in :mod:`rankclust._mixture_louis`.

References
----------
Louis, T. A. (1982). Finding the observed information matrix when using the EM algorithm.
JRSS B 44, 226-233.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from rankclust._mixture_louis import inverse_information, louis_information, reported_jacobian
from rankclust._param_validation import check_sample_weight, refuse_sample_weight
from rankclust.cluster._gate import refuse_covariates
from rankclust.cluster._mixture_kernels import length_tables
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture
from rankclust.models import plackett_luce_information
from rankclust.models.mallows import MALLOWS_DISTANCES
from rankclust.models.plackett_luce import ChoiceStages
from rankclust.pairwise import BradleyTerryMixture

__all__ = [
    "MixtureStandardErrors",
    "mixture_information",
    "mixture_standard_errors",
    "mixture_vcov",
]


def _sum_zero_basis(m: int) -> np.ndarray:
    """An orthonormal basis of the sum-zero vectors of length m, shape (m, m - 1)."""
    q, _ = np.linalg.qr(np.eye(m)[:, :-1] - 1.0 / m)
    return q


def _check_estimator(estimator: Any) -> None:
    if not isinstance(estimator, MallowsMixture | PlackettLuceMixture):
        raise TypeError(
            "estimator must be a fitted MallowsMixture, PlackettLuceMixture or "
            f"BradleyTerryMixture, got {type(estimator).__name__}"
        )
    if isinstance(estimator, PlackettLuceMixture) and float(estimator.alpha) != 0:
        raise ValueError(
            "standard errors need a maximum-likelihood fit (alpha=0); with a prior use the "
            "bootstrap (rankclust.inference.bootstrap)"
        )


def _data(estimator: Any, R: Any, sample_weight: Any) -> Any:
    """The distinct rankings of positive weight, compiled as the mixture's E-step sees them."""
    R = estimator._check_input(R, reset=False)
    sw = check_sample_weight(sample_weight, R.n_rankings)
    if sw is not None:
        R = R.with_weights(R.weights * sw)
    keep = np.flatnonzero(R.weights > 0)
    if keep.size == 0:
        raise ValueError("the weights of the rankings sum to zero")
    Ru, _ = R[keep].unique()
    return estimator._prepare(Ru)


def _pl_row_gradients(stages: ChoiceStages, z: np.ndarray) -> np.ndarray:
    """Gradient of each distinct ranking's Plackett-Luce log-likelihood in the log-worths,
    shape (u, m): ``[a chosen] - v_a sum_{active s <= t(a)} 1 / S_s`` (``S_s`` the worth
    still available at stage s; 0 for items outside the choice sets)."""
    order, in_set, active = stages.order, stages.in_set, stages.active
    v = np.exp(z - z.max())
    vpos = np.where(in_set, v[order], 0.0)
    avail = np.cumsum(vpos[:, ::-1], axis=1)[:, ::-1]
    with np.errstate(divide="ignore"):
        inv = np.where(active, 1.0 / avail, 0.0)
    e1 = np.cumsum(inv, axis=1) * in_set
    by_position = active - vpos * e1
    out = np.zeros(order.shape)
    np.put_along_axis(out, order, by_position, axis=1)
    return out


@dataclass
class _Pieces:
    """The free parametrisation at the fit: per-ballot scores and the information."""

    information: np.ndarray  # (p, p) in phi
    jacobian: np.ndarray  # (q, p): d(reported parameters) / d phi
    free: np.ndarray  # (K,) bool: component dispersion free (Mallows: theta below the cap)


def _component_blocks(estimator: Any, data: Any, tau: np.ndarray) -> tuple[list, list, list]:
    """Per component: per-ballot gradients (u, d_k) of log f_k in eta_k, the complete-data
    information sum_i w_i tau_ik (-hess log f_k) (d_k, d_k), and d(reported)/d eta_k."""
    params = estimator._fitted_params()
    w = data.w
    grads, infos, jacs = [], [], []
    if isinstance(estimator, MallowsMixture) and estimator.distance != "kendall":
        return _distance_blocks(estimator, data, tau, params)
    if isinstance(estimator, MallowsMixture):
        thetas = np.asarray(params["thetas"], dtype=np.float64)
        m = data.ranks.shape[1]
        mean, var = length_tables(thetas, m, data.kind, ("mean", "var"))  # (m + 1, K)
        d = estimator._statistics(data, params["centers"])  # (u, K)
        for k, theta in enumerate(thetas):
            if not theta < float(estimator.theta_max):  # MLE infinite: no standard error
                grads.append(np.zeros((len(w), 0)))
                infos.append(np.zeros((0, 0)))
                jacs.append(np.zeros((1, 0)))
                continue
            grads.append((mean[data.lengths, k] - d[:, k])[:, None])
            infos.append(np.array([[np.sum(w * tau[:, k] * var[data.lengths, k])]]))
            jacs.append(np.ones((1, 1)))
        return grads, infos, jacs
    scores = np.asarray(params["scores"], dtype=np.float64)
    B = _sum_zero_basis(scores.shape[1])
    for k, z in enumerate(scores):
        grads.append(_pl_row_gradients(data.stages, z) @ B)
        info = plackett_luce_information(data.stages, z, sample_weight=tau[:, k])
        infos.append(B.T @ info @ B)
        jacs.append(B)
    return grads, infos, jacs


def _distance_blocks(estimator: Any, data: Any, tau: np.ndarray, params: dict) -> tuple:
    """:func:`_component_blocks` of a Mallows mixture with a distance other than Kendall.

    Component k's log-likelihood of a row is ``log sum_{pi in E(row)} e^{-theta d(pi)} -
    log psi(theta)`` (one term for a complete row), so its derivative in theta is
    ``E_theta d - E[d | row]`` and minus its second derivative ``Var_theta d - Var[d | row]``
    (the conditional moments over the row's completions; 0 variance for a complete row).
    """
    family = MALLOWS_DISTANCES[estimator.distance]
    thetas = np.asarray(params["thetas"], dtype=np.float64)
    m = data.comp_ranks.shape[1]
    dists, log_post = estimator._distance_loglik(data, params)[1]
    w = data.w
    grads, infos, jacs = [], [], []
    for k, theta in enumerate(thetas):
        if not theta < float(estimator.theta_max):  # MLE infinite: no standard error
            grads.append(np.zeros((len(w), 0)))
            infos.append(np.zeros((0, 0)))
            jacs.append(np.zeros((1, 0)))
            continue
        d = dists[:, k]
        if data.owner is None:
            cond_mean, cond_var = d, np.zeros_like(d)
        else:
            p = np.exp(log_post[:, k])
            cond_mean = np.add.reduceat(p * d, data.starts)
            cond_var = np.add.reduceat(p * (d - cond_mean[data.owner]) ** 2, data.starts)
        mean = float(family.expected_distance(theta, m))
        var = float(family.distance_variance(theta, m))
        grads.append((mean - cond_mean)[:, None])
        infos.append(np.array([[np.sum(w * tau[:, k] * (var - cond_var))]]))
        jacs.append(np.ones((1, 1)))
    return grads, infos, jacs


def _pieces(estimator: Any, R: Any, sample_weight: Any) -> _Pieces:
    if isinstance(estimator, BradleyTerryMixture):
        refuse_sample_weight(sample_weight, "a BradleyTerryMixture")
        info, J, free = estimator._information_pieces(R)
        return _Pieces(information=info, jacobian=J, free=free)
    _check_estimator(estimator)
    refuse_covariates(estimator, "mixture standard errors")
    data = _data(estimator, R, sample_weight)
    params = estimator._fitted_params()
    pi = np.asarray(estimator.weights_, dtype=np.float64)
    with np.errstate(divide="ignore"):
        joint = estimator._component_loglik(data, params) + np.log(pi)[None, :]
    joint -= joint.max(axis=1, keepdims=True)
    tau = np.exp(joint)
    tau /= tau.sum(axis=1, keepdims=True)
    w = data.w
    grads, infos, jacs = _component_blocks(estimator, data, tau)
    info = louis_information(w, tau, pi, grads, infos)
    # Jacobian of the reported parameters: weights (K), then each component's dispersion
    # (Mallows theta_k) or sum-zero log-worths (Plackett-Luce z_k, m each)
    J = reported_jacobian(pi, jacs)
    dims = [g.shape[1] for g in grads]
    return _Pieces(information=info, jacobian=J, free=np.array([d > 0 for d in dims]))


def mixture_information(estimator: Any, R: Any, sample_weight: Any = None) -> np.ndarray:
    """Observed information of a fitted ranking mixture in its free parameters.

    Parameters
    ----------
    estimator : fitted MallowsMixture, PlackettLuceMixture or BradleyTerryMixture
        Plackett-Luce with ``alpha=0`` (maximum likelihood); Bradley-Terry with its prior
        (the information of the log-posterior).
    R : Rankings, array-like or Comparisons
        The rankings the mixture was fitted to (same items and kind), or the comparisons of
        a Bradley-Terry mixture.
    sample_weight : array-like of float, shape (n,), optional
        The weights of the fit, multiplied into ``R.weights``.

    Returns
    -------
    ndarray of float64, shape (p, p)
        Minus the Hessian of the observed-data log-likelihood, exact (Louis 1982, see the
        module notes), in ``phi = (a_1..a_{K-1}, eta_1..eta_K)``: the logits of
        ``weights_`` against the last component, then per component its dispersion
        ``theta_k`` (Mallows, given the centres; omitted when ``theta_k`` is at
        ``theta_max``) or the ``m - 1`` coordinates of its sum-zero log-worths in an
        orthonormal basis (Plackett-Luce), or its m uncentred log-worths and, with ties,
        ``log nu_k`` (Bradley-Terry). ``p = K - 1 + K``, ``K - 1 + K (m - 1)`` or
        ``K - 1 + K (m [+ 1])``.

    Notes
    -----
    Complexity: O(u m^2 K) for u distinct rankings (the component statistics), plus
    O(u K p^2) for the variance of the complete-data score.

    Examples
    --------
    >>> from rankclust.datasets import make_mallows_mixture
    >>> from rankclust.cluster.mixture import MallowsMixture
    >>> R, _ = make_mallows_mixture(300, 5, 2, centers=[[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]],
    ...                             thetas=1.0, kind="top", lengths=(2, 5), random_state=0)
    >>> mix = MallowsMixture(n_init=3, random_state=0).fit(R)
    >>> mixture_information(mix, R).shape
    (3, 3)
    """
    return _pieces(estimator, R, sample_weight).information


_inverse = inverse_information


def mixture_vcov(estimator: Any, R: Any, sample_weight: Any = None) -> np.ndarray:
    """Asymptotic covariance of a fitted mixture's reported parameters.

    Parameters
    ----------
    estimator : fitted MallowsMixture, PlackettLuceMixture or BradleyTerryMixture
    R : Rankings, array-like or Comparisons
        The data of the fit.
    sample_weight : array-like of float, shape (n,), optional
        The weights of the fit (not for a Bradley-Terry mixture).

    Returns
    -------
    ndarray of float64, shape (q, q)
        Covariance of ``(weights_[0..K-1], thetas_[0..K-1])`` (Mallows, ``q = 2K``; the
        thetas given the centres) or of ``(weights_, scores_[0], ..., scores_[K-1])``
        (Plackett-Luce, ``q = K + K m``, each component's scores sum-zero as
        ``scores_``; Bradley-Terry: ``(weights_, scores_[0] [, tie_strengths_[0]], ...)``):
        ``J I^-1 J'`` (delta method from :func:`mixture_information`). The
        weights sum to one, so their block is singular; a theta at ``theta_max`` has row
        and column 0 here (its standard error is reported as nan by
        :func:`mixture_standard_errors`).

    Raises
    ------
    ValueError
        If the information is singular (e.g. an empty component).
    """
    pieces = _pieces(estimator, R, sample_weight)
    V = pieces.jacobian @ _inverse(pieces.information) @ pieces.jacobian.T
    return 0.5 * (V + V.T)


@dataclass
class MixtureStandardErrors:
    """Result of :func:`mixture_standard_errors`.

    Attributes
    ----------
    weights, weights_se : ndarray of float64, shape (K,)
        The mixing weights and their standard errors (delta method from the logits).
    thetas, thetas_se : ndarray of float64, shape (K,), or None
        Mallows dispersions and their standard errors given the fitted centres (nan for a
        theta at ``theta_max``); None for Plackett-Luce.
    scores, scores_se : ndarray of float64, shape (K, m), or None
        Plackett-Luce or Bradley-Terry sum-zero log-worths and their standard errors; None
        for Mallows.
    tie_strengths, tie_strengths_se : ndarray of float64, shape (K,), or None
        Davidson tie strengths of a Bradley-Terry mixture fitted to data with ties, and
        their standard errors (delta method from ``log nu``); None otherwise.
    vcov : ndarray of float64
        Covariance of all reported parameters (see :func:`mixture_vcov`).
    information : ndarray of float64
        The observed information in the free parameters (see :func:`mixture_information`).
    """

    weights: np.ndarray
    weights_se: np.ndarray
    vcov: np.ndarray
    information: np.ndarray
    thetas: np.ndarray | None = None
    thetas_se: np.ndarray | None = None
    scores: np.ndarray | None = None
    scores_se: np.ndarray | None = None
    tie_strengths: np.ndarray | None = None
    tie_strengths_se: np.ndarray | None = None

    def _named(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        out = {"weights": (self.weights, self.weights_se)}
        if self.thetas is not None:
            out["thetas"] = (self.thetas, self.thetas_se)
        if self.scores is not None:
            out["scores"] = (self.scores, self.scores_se)
        if self.tie_strengths is not None:
            out["tie_strengths"] = (self.tie_strengths, self.tie_strengths_se)
        return out

    def intervals(self, level: float = 0.95) -> dict[str, np.ndarray]:
        """Wald intervals ``estimate -/+ z se`` per parameter, the bounds in the last axis.

        Weights' intervals are not clipped to [0, 1] (a weight near 0 or 1 is better served
        by the bootstrap).
        """
        level = float(level)
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level!r}")
        half = stats.norm.ppf(0.5 + level / 2)
        return {
            name: np.stack([est - half * se, est + half * se], axis=-1)
            for name, (est, se) in self._named().items()
        }

    def to_markdown(self, level: float = 0.95) -> str:
        """A table: each parameter entry, its estimate, standard error and Wald interval."""
        lines = [f"| parameter | estimate | SE | {level:.0%} interval |", "|---|---|---|---|"]
        ints = self.intervals(level)
        for name, (est, se) in self._named().items():
            for idx in np.ndindex(est.shape):
                lo, hi = ints[name][idx]
                label = f"{name}[{', '.join(map(str, idx))}]"
                lines.append(
                    f"| {label} | {est[idx]:.4g} | {se[idx]:.3g} | [{lo:.4g}, {hi:.4g}] |"
                )
        return "\n".join(lines)


def mixture_standard_errors(
    estimator: Any, R: Any, sample_weight: Any = None
) -> MixtureStandardErrors:
    """Standard errors and Wald intervals of a fitted ranking mixture's parameters.

    Parameters
    ----------
    estimator : fitted MallowsMixture, PlackettLuceMixture or BradleyTerryMixture
        Plackett-Luce with ``alpha=0``; Bradley-Terry with its prior (MAP).
    R : Rankings, array-like or Comparisons
        The rankings of the fit: complete, top-t or subset, weighted; or the comparisons of
        a Bradley-Terry mixture (with assessors).
    sample_weight : array-like of float, shape (n,), optional
        The weights of the fit.

    Returns
    -------
    MixtureStandardErrors

    Notes
    -----
    The observed information of the mixture likelihood (exact, Louis 1982; see
    :func:`mixture_information`) inverted and mapped to the reported parameters. Mallows
    dispersions are conditional on the fitted centres (a centre that the data do not pin
    down is left to the bootstrap, :func:`rankclust.inference.bootstrap`). Components are
    labelled as in the fit (by decreasing weight); the intervals are asymptotic and assume
    well-separated components (near-empty or overlapping components make the information
    near singular: the bootstrap is the safer tool there).

    Examples
    --------
    >>> from rankclust.datasets import make_mallows_mixture
    >>> from rankclust.cluster.mixture import MallowsMixture
    >>> R, _ = make_mallows_mixture(300, 5, 2, centers=[[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]],
    ...                             thetas=1.0, kind="top", lengths=(2, 5), random_state=0)
    >>> mix = MallowsMixture(n_init=3, random_state=0).fit(R)
    >>> se = mixture_standard_errors(mix, R)
    >>> se.weights_se.shape, se.thetas_se.shape
    ((2,), (2,))
    """
    pieces = _pieces(estimator, R, sample_weight)
    V = pieces.jacobian @ _inverse(pieces.information) @ pieces.jacobian.T
    V = 0.5 * (V + V.T)
    se = np.sqrt(np.clip(np.diag(V), 0.0, None))
    k_comp = len(estimator.weights_)
    weights = np.asarray(estimator.weights_, dtype=np.float64).copy()
    out = MixtureStandardErrors(
        weights=weights, weights_se=se[:k_comp], vcov=V, information=pieces.information
    )
    if isinstance(estimator, MallowsMixture):
        out.thetas = np.asarray(estimator.thetas_, dtype=np.float64).copy()
        out.thetas_se = np.where(pieces.free, se[k_comp:], np.nan)
    elif isinstance(estimator, BradleyTerryMixture) and estimator.tie_strengths_.max() > 0:
        block = se[k_comp:].reshape(k_comp, -1)  # per component: m scores, then nu
        out.scores = np.asarray(estimator.scores_, dtype=np.float64).copy()
        out.scores_se = block[:, :-1]
        out.tie_strengths = np.asarray(estimator.tie_strengths_, dtype=np.float64).copy()
        out.tie_strengths_se = block[:, -1]
    else:
        out.scores = np.asarray(estimator.scores_, dtype=np.float64).copy()
        out.scores_se = se[k_comp:].reshape(k_comp, -1)
    return out
