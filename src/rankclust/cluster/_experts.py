"""Mixtures of experts for rankings: EM of a ranking mixture with a covariate gate (private).

``MallowsMixture().fit(R, X=X)`` and ``PlackettLuceMixture().fit(R, X=X)`` hand over to
:func:`fit_experts`. The model is

``P(r_i | x_i) = sum_k pi_k(x_i) P_k(r_i)``,  ``pi_k(x) = softmax_k(gamma_k . [1, x])``,

with the components ``P_k`` of the plain mixture and the multinomial-logit gate of
:mod:`rankclust.cluster._gate`. EM:

* **E-step** per row: ``q_ik ∝ pi_k(x_i) P_k(r_i)``; the component log-likelihoods are
  computed once per *distinct* ranking by the mixture's own hook (``_loglik_and_cache``),
  the gate per row (two rows with the same ranking but different covariates have different
  responsibilities).
* **M-step of the components**: the mixture's own ``_m_step`` on the distinct rankings, with
  per distinct ranking ``u`` the summed ``w_i q_ik`` of its rows (passed as responsibility
  ``sum_{i in u} w_i q_ik / W_u`` beside its weight ``W_u``), so Mallows centres and
  dispersions and Plackett-Luce worths are updated exactly as in the plain mixture.
* **M-step of the gate**: :func:`~rankclust.cluster._gate.fit_gate`, a weighted
  multinomial logistic regression with the responsibilities as soft labels and a ridge
  penalty ``gate_penalty / 2 |slopes|^2`` on the standardised covariates.

Each step raises the penalised expected complete-data log-likelihood, so the penalised
observed-data log-likelihood never decreases (tested). Starts: the plain mixture is fitted
first with its own restarts and agreement check (``n_init``, ``max_init``, ``n_agree``), and
EM with the gate starts from it (gate at the plain weights), and from
``_N_PERTURBED`` perturbed gates (covariates present only); the most likely run is kept and
the agreement of the runs recorded (``gate_n_agreeing_``). EM is accelerated by SQUAREM
(``accelerate``), with the plain mixture's likelihood guard.

Standard errors of the gate coefficients: the exact observed information of the observed-data
log-likelihood in all free parameters (gate coefficients, Mallows dispersions given the
centres or Plackett-Luce sum-zero log-worths), by Louis's formula with the per-component
pieces of :mod:`rankclust.cluster._mixture_information`, plus the ridge penalty's curvature;
inverted, and the gate block mapped to the original scale of ``X``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse
from scipy.special import logsumexp
from sklearn.base import clone
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from rankclust import _loaded_state as loaded
from rankclust._dask import EagerExecutor, is_dask_collection
from rankclust._param_validation import check_n_clusters, check_sample_weight
from rankclust._restarts import warn_near_tie
from rankclust.cluster._gate import (
    GATE_ATTRIBUTES,
    check_covariates,
    design,
    fit_gate,
    gate_log_probs,
    standardise,
)
from rankclust.cluster._mixture_contract import MixtureRun
from rankclust.cluster._mixture_information import _component_blocks
from rankclust.cluster.mixture import (
    _AGREE_MISMATCH,
    _AGREE_RTOL,
    _Blocks,
    _BlockState,
    _partition_mismatch,
    _squarem_point,
    _squarem_step,
)

__all__ = ["drop_gate", "experts_joint", "fit_experts", "validate_loaded_gate"]

#: Perturbed gate starts beside the start from the plain mixture (with covariates only).
_N_PERTURBED = 2
#: Standard deviation of the perturbation of the standardised gate coefficients.
_PERTURB_SD = 0.5


@dataclass
class _ExpertsData:
    """The training data of a fit with covariates (rows of positive weight)."""

    data: Any  # the mixture's compiled distinct rankings (``_prepare``)
    blocks: _Blocks
    inverse: np.ndarray  # (n,) row -> distinct ranking
    w: np.ndarray  # (n,) row weights
    Z: np.ndarray  # (n, d + 1) standardised design
    P: Any  # (u, n) sparse: P[u, i] = w_i if row i has ranking u
    total: float


@dataclass
class _ExpertsRun:
    params: dict
    gamma: np.ndarray  # (K, d + 1) standardised, row 0 zero
    q: np.ndarray  # (n, K) responsibilities at the end
    log_likelihood: float
    objective: float  # penalised log-likelihood (maximised)
    n_iter: int
    converged: bool
    history: list = field(default_factory=list)


def drop_gate(est: Any) -> None:
    """Remove the attributes of an earlier fit with covariates (a refit without them)."""
    for name in (*GATE_ATTRIBUTES, "n_features_in_", "gate_n_init_", "gate_n_agreeing_",
                 "gate_log_likelihoods_", "plain_log_likelihood_"):  # fmt: skip
        if name in est.__dict__:
            delattr(est, name)


def _compile(est: Any, R: Any, X: Any, sample_weight: Any) -> tuple:
    """(_ExpertsData, R, X, keep) of the training data; validation at the boundary."""
    R = est._check_input(R, reset=True)
    n, m = R.shape
    if m < 2:
        raise ValueError(f"R has {m} item(s); a ranking mixture needs at least 2")
    est._check_size(m)
    X = check_covariates(X, n)
    w = R.weights.astype(np.float64)
    if sample_weight is not None:
        w = w * check_sample_weight(sample_weight, n)
    keep = np.flatnonzero(w > 0)
    if keep.size == 0:
        raise ValueError("the weights of the rankings sum to zero")
    Rk = R[keep].with_weights(w[keep])
    Ru, inverse = Rk.unique()
    check_n_clusters(
        est.n_components, Ru.n_rankings, what="distinct rankings of positive weight",
        name="n_components",
    )  # fmt: skip
    data = est._prepare(Ru)
    wk = w[keep]
    total = float(wk.sum())
    blocks = _Blocks(
        ex=EagerExecutor(), parts=[data], offsets=np.array([0, Ru.n_rankings]), total=total,
        n_items=m, kind=R.kind, ties=bool(Ru.has_ties.any()),
    )  # fmt: skip
    mean, scale = standardise(X[keep], wk)
    P = sparse.csr_matrix((wk, (inverse, np.arange(keep.size))), shape=(Ru.n_rankings, keep.size))
    ed = _ExpertsData(data=data, blocks=blocks, inverse=inverse, w=wk,
                      Z=design(X[keep], mean, scale), P=P, total=total)  # fmt: skip
    return ed, R, X, keep, mean, scale


def _e_step(est: Any, ed: _ExpertsData, params: dict, gamma: np.ndarray) -> tuple:
    """(q (n, K), log-likelihood, the component hook's cache)."""
    loglik_u, cache = est._loglik_and_cache(ed.data, params)
    joint = loglik_u[ed.inverse] + gate_log_probs(ed.Z, gamma)
    row_ll = logsumexp(joint, axis=1)
    q = np.exp(joint - row_ll[:, None])
    return q, float(ed.w @ row_ll), cache


def _gate_penalty(est: Any, gamma: np.ndarray) -> float:
    return 0.5 * float(est.gate_penalty) * float(np.sum(gamma[1:, 1:] ** 2))


def _em(
    est: Any,
    ed: _ExpertsData,
    params: dict,
    gamma: np.ndarray,
    max_iter: int,
    tol: float,
    accelerate: bool | None = None,
) -> _ExpertsRun:
    """EM from ``(params, gamma)`` until one plain EM iteration gains at most ``tol`` per
    ranking (penalised) and no discrete parameter moved, or ``max_iter`` iterations.

    With ``accelerate`` (None: the estimator's ``accelerate``), SQUAREM as in the plain
    mixture (:func:`~rankclust.cluster.mixture._squarem_step`): after two plain EM steps
    that moved no discrete parameter, the gate coefficients and the components' continuous
    parameters are extrapolated, and the extrapolated point is kept only if its penalised
    log-likelihood is at least that of the plain step; so the trace never decreases.
    """
    if accelerate is None:
        accelerate = bool(getattr(est, "accelerate", False))
    history: list[float] = []
    old = -np.inf
    changed = True
    converged = False
    n_iter = 0
    penalty = float(est.gate_penalty)
    n_g = gamma[1:].size
    cycle: list[np.ndarray] = []
    fallback: tuple | None = None

    def evaluate(params: dict, gamma: np.ndarray) -> tuple:
        q, ll, cache = _e_step(est, ed, params, gamma)
        return q, ll, cache, ll + est._penalty(params) - _gate_penalty(est, gamma)

    def unpack(vec: np.ndarray, params: dict) -> tuple[dict, np.ndarray]:
        g = np.vstack([np.zeros((1, gamma.shape[1])), vec[:n_g].reshape(gamma[1:].shape)])
        return est._with_continuous(params, vec[n_g:]), g

    for it in range(1, max_iter + 1):
        n_iter = it
        q, ll, cache, obj = evaluate(params, gamma)
        if fallback is not None:  # an extrapolated point: kept only if at least as likely
            if not obj >= fallback[-1]:
                params, gamma, q, ll, cache, obj = fallback
            fallback = None
            history.append(obj)
        else:
            history.append(obj)
            if not changed and obj - old <= tol * ed.total:
                converged = True
                break
        old = obj
        if accelerate and not changed:
            cycle.append(np.concatenate([gamma[1:].ravel(), est._continuous_vector(params)]))
            if len(cycle) == 3:
                step = _squarem_step(*cycle)
                cycle = []
                if step is not None:
                    fallback = (params, gamma, q, ll, cache, obj)
                    params, gamma = unpack(_squarem_point(step), params)
                    continue  # the next E-step evaluates the extrapolated point
        resp_u = np.asarray(ed.P @ q) / ed.data.w[:, None]
        state = _BlockState(resp=resp_u, row_ll=np.zeros(len(resp_u)), cache=cache)
        params, changed = est._m_step(ed.blocks, [state], params, False)
        gamma = fit_gate(ed.Z, ed.w[:, None] * q, gamma, penalty)
        if changed:
            cycle = []  # a discrete move: restart the cycle
    else:
        q, ll, _, obj = evaluate(params, gamma)
        if fallback is not None and not obj >= fallback[-1]:
            params, gamma, q, ll, _, obj = fallback
        history.append(obj)
    return _ExpertsRun(params=params, gamma=gamma, q=q, log_likelihood=ll, objective=obj,
                       n_iter=n_iter, converged=converged, history=history)  # fmt: skip


def _mismatch(ed: _ExpertsData, a: _ExpertsRun, b: _ExpertsRun) -> float:
    k_comp = a.q.shape[1]
    la, lb = np.argmax(a.q, axis=1), np.argmax(b.q, axis=1)
    table = np.bincount(la * k_comp + lb, weights=ed.w, minlength=k_comp * k_comp)
    return _partition_mismatch(table.reshape(k_comp, k_comp))


def fit_experts(est: Any, R: Any, X: Any, sample_weight: Any = None, warm: Any = None) -> Any:
    """Fit ``est`` (a MallowsMixture or PlackettLuceMixture) with a covariate gate.

    See the module notes. ``warm`` (a fitted mixture with one component fewer) is passed to
    the plain mixture's fit (the warm starts of :func:`~rankclust.cluster.select_k`).

    Complexity: the plain mixture's fit, then per EM iteration of each gate start the
    component E/M-steps on the u distinct rankings plus O(n K^2 d^2) per Newton step of the
    gate; the standard errors O(n K p^2) with p free parameters.
    """
    est._validate_params()
    if est.backend == "dask" or is_dask_collection(R):
        raise ValueError("fit(R, X=...): a mixture with covariates is fitted in memory only "
                         '(backend="numpy" and an in-memory R)')  # fmt: skip
    ed, R, X, keep, mean, scale = _compile(est, R, X, sample_weight)
    k_comp = est.n_components
    d = X.shape[1]
    # the plain mixture first, with its own restarts and their agreement check
    plain = clone(est)
    plain._fit(R[keep].with_weights(ed.w), None, warm=warm)
    params0 = plain._fitted_params()
    gamma0 = np.zeros((k_comp, d + 1))
    with np.errstate(divide="ignore"):
        lw = np.log(np.maximum(plain.weights_, 1e-300))
    gamma0[:, 0] = lw - lw[0]
    rng = check_random_state(est.random_state)
    starts = [gamma0]
    if d > 0 and k_comp > 1:
        for _ in range(_N_PERTURBED):
            g = gamma0 + rng.normal(scale=_PERTURB_SD, size=gamma0.shape)
            g[0] = 0.0
            starts.append(g)
    with threadpool_limits(1, user_api="blas"):
        runs = [_em(est, ed, params0, g, est.max_iter, est.tol) for g in starts]
    best = max(runs, key=lambda run: run.objective)
    scale_ll = max(abs(best.objective), 1e-300)
    n_agree, gap = 0, np.inf
    for run in runs:
        rel = (best.objective - run.objective) / scale_ll
        same = run is best or _mismatch(ed, best, run) <= _AGREE_MISMATCH
        if same and rel <= _AGREE_RTOL:
            n_agree += 1
        elif not same:
            gap = min(gap, max(rel, 0.0))
    warn_near_tie(type(est).__name__, gap, stacklevel=3)
    from sklearn.exceptions import ConvergenceWarning

    if len(runs) > 1 and n_agree < 2:
        # the seed-dependence of the gate is said, as the plain mixture says its own
        warnings.warn(
            f"{type(est).__name__}: the best fit with covariates was reached by {n_agree} of "
            f"{len(runs)} gate starts; another random_state may give a different gate "
            "(see gate_n_agreeing_ and gate_log_likelihoods_)",
            ConvergenceWarning,
            stacklevel=3,
        )
    if not best.converged:
        warnings.warn(
            f"{type(est).__name__}: EM with covariates did not converge in "
            f"max_iter={est.max_iter} iterations; increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    _set_fitted(est, ed, best, plain, R, X, keep, mean, scale)
    est.gate_n_init_ = len(runs)
    est.gate_n_agreeing_ = n_agree
    est.gate_log_likelihoods_ = np.sort([run.log_likelihood for run in runs])[::-1]
    return est


def _set_fitted(est: Any, ed: _ExpertsData, best: _ExpertsRun, plain: Any, R: Any, X: Any,
                keep: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> None:  # fmt: skip
    """The fitted attributes: the plain mixture's (components by decreasing mean gate
    weight) and the gate's."""
    drop_gate(est)
    pi = np.exp(gate_log_probs(ed.Z, best.gamma))
    weights = (ed.w @ pi) / ed.total
    run = MixtureRun(params=best.params, weights=weights, objective=-best.log_likelihood,
                     n_iter=best.n_iter, converged=best.converged)  # fmt: skip
    m = ed.blocks.n_items
    est.n_items_ = m
    est.kind_ = R.kind
    est.items_ = R.items
    order = est._set_common(run)
    gamma = best.gamma[order]
    gamma = gamma - gamma[0]
    q = best.q[:, order]
    d = X.shape[1]
    # on the original scale of X: intercept - sum_j b_j mean_j / s_j, slopes b_j / s_j
    T = np.eye(d + 1)
    T[0, 1:] = -mean / scale
    T[1:, 1:] = np.diag(1.0 / scale)
    est.gate_coef_ = gamma @ T.T
    est.gate_mean_ = mean
    est.gate_scale_ = scale
    est.n_features_in_ = d
    k_comp = len(order)
    est.objective_ = -best.log_likelihood
    est.n_parameters_ = est._n_parameters(m) + (k_comp - 1) * d
    est.n_rankings_ = ed.total
    est.bic_ = -2.0 * best.log_likelihood + est.n_parameters_ * np.log(ed.total)
    est.aic_ = -2.0 * best.log_likelihood + 2.0 * est.n_parameters_
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.where(q > 0, q * np.log(q), 0.0).sum(axis=1)
    est.entropy_ = float(ed.w @ ent)
    est.icl_ = est.bic_ + 2.0 * est.entropy_
    est.n_reseeded_ = plain.n_reseeded_
    est.n_init_ = plain.n_init_
    est.n_init_agreeing_ = plain.n_init_agreeing_
    est.restart_gap_ = plain.restart_gap_
    est.restart_log_likelihoods_ = plain.restart_log_likelihoods_
    est.plain_log_likelihood_ = plain.log_likelihood_
    est.log_likelihood_history_ = np.asarray(best.history)
    labels = np.argmax(q, axis=1)
    if keep.size == R.n_rankings:
        est.labels_ = labels
    else:  # rows of zero weight are labelled by the fitted model all the same
        est.labels_ = est.predict(R.with_weights(None), X=X)
    vcov = _gate_vcov(est, ed, q, gamma, T)
    est.gate_vcov_ = vcov
    se = np.sqrt(np.clip(np.diag(vcov), 0.0, None)).reshape(k_comp - 1, d + 1)
    est.gate_coef_se_ = np.vstack([np.zeros((1, d + 1)), se])


def _louis_information(
    est: Any, ed: _ExpertsData, q: np.ndarray, gamma: np.ndarray
) -> tuple[np.ndarray, int]:
    """(observed information in (gate coefficients on the standardised scale, component
    parameters), number of gate coefficients); the penalty's curvature included.

    Louis (1982): complete-data information minus the conditional variance of the
    complete-data score, per row, with the components' pieces of
    :func:`rankclust.cluster._mixture_information._component_blocks` (Mallows dispersions
    given the centres; Plackett-Luce sum-zero log-worths). Components as fitted (``est``'s
    order); ``gamma`` in that order, row 0 zero.
    """
    Z, w = ed.Z, ed.w
    n, p1 = Z.shape
    k_comp = q.shape[1]
    pi = np.exp(gate_log_probs(Z, gamma))
    tau_u = np.asarray(ed.P @ q) / ed.data.w[:, None]
    grads, infos, _ = _component_blocks(est, ed.data, tau_u)
    n_g = (k_comp - 1) * p1
    dims = [g.shape[1] for g in grads]
    p = n_g + sum(dims)
    G = np.zeros((n, k_comp, p))
    # d/d gamma_l of log pi_k(x_i) = (delta_kl - pi_il) z_i, l = 1..K-1
    E = np.eye(k_comp)[None, :, 1:] - pi[:, None, 1:]  # (n, K, K-1)
    G[:, :, :n_g] = (E[..., None] * Z[:, None, None, :]).reshape(n, k_comp, n_g)
    info = np.zeros((p, p))
    # complete-data information of the gate: sum_i w_i sum_k pi_ik g_ik g_ik'
    Gg = (G[:, :, :n_g] * np.sqrt(w[:, None] * pi)[..., None]).reshape(-1, n_g)
    info[:n_g, :n_g] = Gg.T @ Gg
    start = n_g
    for k in range(k_comp):
        sl = slice(start, start + dims[k])
        G[:, k, sl] = grads[k][ed.inverse]
        info[sl, sl] = infos[k]
        start += dims[k]
    # the ridge penalty on the standardised slopes
    slope = np.zeros((k_comp - 1, p1), dtype=bool)
    slope[:, 1:] = True
    info[np.flatnonzero(slope.ravel()), np.flatnonzero(slope.ravel())] += float(est.gate_penalty)
    # minus the conditional variance of the complete-data score
    M = (G * np.sqrt(w[:, None] * q)[..., None]).reshape(-1, p)
    s = np.einsum("ik,ikp->ip", q, G) * np.sqrt(w)[:, None]
    info -= M.T @ M - s.T @ s
    return 0.5 * (info + info.T), n_g


def _gate_vcov(est: Any, ed: _ExpertsData, q: np.ndarray, gamma: np.ndarray,
               T: np.ndarray) -> np.ndarray:  # fmt: skip
    """Covariance of the free gate coefficients on the original scale of X, shape
    ((K - 1)(d + 1),) * 2 (rows of ``gate_coef_[1:]`` raveled); nan (with a warning) when
    the information is singular or cannot be computed (ties under Plackett-Luce)."""
    k_comp = q.shape[1]
    n_g = (k_comp - 1) * T.shape[0]
    if n_g == 0:
        return np.zeros((0, 0))
    name = type(est).__name__
    try:
        info, _ = _louis_information(est, ed, q, gamma)
    except (AttributeError, TypeError, ValueError):
        warnings.warn(f"{name}: no standard errors for the gate on this data (rankings with "
                      "ties under Plackett-Luce); use the bootstrap", UserWarning,
                      stacklevel=4)  # fmt: skip
        return np.full((n_g, n_g), np.nan)
    evals = np.linalg.eigvalsh(info)
    if not evals.min() > 1e-10 * max(evals.max(), 1e-300):
        warnings.warn(f"{name}: the observed information is singular (an empty component or "
                      "a covariate that does not vary); gate standard errors are nan",
                      UserWarning, stacklevel=4)  # fmt: skip
        return np.full((n_g, n_g), np.nan)
    V = np.linalg.inv(info)[:n_g, :n_g]
    Tk = np.kron(np.eye(k_comp - 1), T)
    V = Tk @ V @ Tk.T
    return 0.5 * (V + V.T)


def experts_joint(est: Any, R: Any, X: Any) -> np.ndarray:
    """``log pi_k(x_i) + log P_k(r_i)``, shape (n, K), of a mixture fitted with covariates."""
    R = est._check_input(R, reset=False)
    if getattr(est, "gate_coef_", None) is None:
        raise ValueError(f"X: this {type(est).__name__} was fitted without covariates")
    if X is None:
        raise ValueError(f"X: this {type(est).__name__} was fitted with covariates; pass X "
                         "(one row per ranking)")  # fmt: skip
    coef = est.gate_coef_
    X = check_covariates(X, R.n_rankings, coef.shape[1] - 1)
    Ru, inverse = R.with_weights(None).unique()
    loglik = est._component_loglik(est._prepare(Ru), est._fitted_params())[inverse]
    Z = np.hstack([np.ones((X.shape[0], 1)), X])
    return loglik + gate_log_probs(Z, coef)


def validate_loaded_gate(est: Any, k: int) -> None:
    """The gate of a loaded mixture fitted with covariates (nothing when it has none)."""
    if getattr(est, "gate_coef_", None) is None:
        return
    coef = loaded.array_attr(est, "gate_coef_", shape=(k, None))
    d = coef.shape[1] - 1
    if np.any(coef[0] != 0):
        raise ValueError("gate_coef_: the first (reference) row must be zero")
    loaded.array_attr(est, "gate_mean_", shape=(d,))
    loaded.array_attr(est, "gate_scale_", shape=(d,), low=np.finfo(float).tiny)
    loaded.array_attr(est, "gate_coef_se_", shape=(k, d + 1), finite=False)
    loaded.array_attr(est, "gate_vcov_", shape=((k - 1) * (d + 1), (k - 1) * (d + 1)),
                      finite=False)  # fmt: skip
    if loaded.int_attr(est, "n_features_in_") != d:
        raise ValueError(f"n_features_in_: expected {d} (the columns of gate_coef_ minus one)")
