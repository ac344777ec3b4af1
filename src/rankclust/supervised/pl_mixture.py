"""MM-PL: the prototype Plackett-Luce mixture of Grbovic et al. (2013, sec. 5, Algorithm 2).

Cluster ``k`` is a union of the Voronoi cells of ``P`` prototypes in feature space and a
Plackett-Luce score vector ``v_k = exp(z_k)`` in label space. With a shared kernel width
``sigma``,

* ``w_np = softmax_p(-||x_n - m_p||^2 / 2 sigma^2)`` (eq. 20), ``g_nk = sum_{p in k} w_np``
  (eq. 21);
* ``e_nk = PL(pi_n | v_k)`` on the observed labels (eq. 23, PL is internally consistent);
* the model ``P(pi_n | x_n) = sum_k g_nk e_nk`` (eq. 22) is fitted by maximising the
  log-likelihood (eq. 25) with EM: responsibilities ``h_nk = g_nk e_nk / sum_v g_nv e_nv``
  (eq. 29) and stochastic gradient steps (M-step v.1) on the prototypes and the scores.

**The corrected update rule.** Eq. (30) as printed has two errors (decisions.md G9,
verified by finite differences in the tests): the prototype factor ``(1 - h_nk)`` must be
``(g_nk - h_nk)`` with the printed minus sign, and the score step must be *ascent*::

    m_p += gamma (w_np / g_nk) (h_nk - g_nk) (x_n - m_p) / sigma^2          (k = cluster of p)
    z_k(pi_n(c)) += gamma h_nk (1 - v_k(pi_n(c)) sum_{i <= c} 1 / S_{k,i}),
        S_{k,i} = sum_{j >= i} v_k(pi_n(j)),  c = 1..L_n.

With the responsibilities recomputed just before each instance's step (``e_step="online"``,
the default) this is exact stochastic gradient ascent on the observed-data log-likelihood.
``sigma`` and the learning rate ``gamma`` are annealed, ``sigma(t) = sigma_0 T / (T + t)``,
``gamma(t) = gamma_0 T / (T + t)`` with ``T = 8 N`` and ``t`` the global step count; as
``sigma -> 0`` an instance belongs to the cluster of its nearest prototype, which is how new
instances are assigned.

**Units of the prototype learning rate.** In the prototype step ``gamma (w/g)(h - g)(x_n -
m_p)/sigma^2`` the factor ``(x_n - m_p)/sigma^2`` has units 1/length, so ``gamma`` must carry
units length^2 for the step to be a length: the paper's ``gamma_0 = 0.03`` belongs to its
(unstated) feature scale and its ``sigma_0``. By default (``prototype_step="relative"``) the
prototypes use ``gamma sigma_0^2``, so the step is the fraction ``gamma (sigma_0/sigma)^2
(w/g)(h - g)`` of the way to ``x_n`` -- ``gamma_0`` at the start, whatever the units and the
dimension of the features -- and the fit is invariant to rescaling X. The scores are
dimensionless and keep ``gamma``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar, NamedTuple

import numba
import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from rankclust import _loaded_state as loaded
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
)
from rankclust._runs import FitRun
from rankclust.models.plackett_luce import choice_stages, fit_scores, loglik_rows
from rankclust.supervised._base import (
    _PL_ALPHA,
    SupervisedClusteringMixin,
    distances_to_centers,
    positions_from_scores,
    training_loss,
    used_clusters,
)

__all__ = ["PrototypePLMixture"]


# --------------------------------------------------------------------------------------------
# the stochastic sweep (numba kernel; trusted input)
# --------------------------------------------------------------------------------------------
class SGDData(NamedTuple):
    """The training data of :func:`_sgd_epoch`: ``X`` (n, d) standardised features,
    ``orders`` (n, m) observed labels best first (``lengths`` of them)."""

    X: np.ndarray
    orders: np.ndarray
    lengths: np.ndarray


class SGDModel(NamedTuple):
    """The parameters :func:`_sgd_epoch` updates in place: ``protos`` (M, d), their
    ``cluster`` (M,), the PL log-scores ``Z`` (K, m)."""

    protos: np.ndarray
    cluster: np.ndarray
    Z: np.ndarray


class SGDSettings(NamedTuple):
    """Step sizes and rules of :func:`_sgd_epoch`."""

    gamma0: float  # learning rate gamma_t = gamma0 gamma_T / (gamma_T + t)
    gamma_T: float
    sigma0: float  # width sigma_t = sigma0 sigma_T / (sigma_T + t)
    sigma_T: float
    clip: float  # bound on a prototype step's coefficient
    proto_gain: float
    use_given_h: bool  # take h from ``H_given`` (batch E-step) instead of recomputing it
    update_scores: bool  # M-step v.1: update Z in the sweep
    printed_rule: bool  # eq. (30) as printed instead of the gradient


def _memberships(X, i, protos, cluster, s2, a, gsum, g, logg):  # pragma: no cover - compiled below
    """Feature side of instance ``i`` (eqs. 20-21): ``a`` (M,) the prototypes' unnormalised
    weights, ``gsum`` (K,) their sums per cluster, ``g`` the memberships, ``logg`` their logs."""
    M, d = protos.shape
    K = g.shape[0]
    amax = -np.inf
    for p in range(M):
        dist = 0.0
        for j in range(d):
            diff = X[i, j] - protos[p, j]
            dist += diff * diff
        a[p] = -dist / (2.0 * s2)
        if a[p] > amax:
            amax = a[p]
    gsum[:] = 0.0
    tot = 0.0
    for p in range(M):
        e = np.exp(a[p] - amax)
        a[p] = e
        gsum[cluster[p]] += e
        tot += e
    for k in range(K):
        g[k] = gsum[k] / tot
        logg[k] = np.log(gsum[k]) - np.log(tot) if gsum[k] > 0 else -np.inf


def _pl_logliks(Z, orders, i, L, V, S, loge):  # pragma: no cover - compiled below
    """Label side of instance ``i`` (eq. 23): ``loge[k]`` the PL log-likelihood of its ``L``
    observed labels under cluster k; ``V``, ``S`` (K, m) the scaled scores and their suffix
    sums (kept for the score step)."""
    for k in range(Z.shape[0]):
        loge[k] = 0.0
        if L < 2:
            continue
        zmax = -np.inf
        for c in range(L):
            zc = Z[k, orders[i, c]]
            if zc > zmax:
                zmax = zc
        acc = 0.0
        for c in range(L - 1, -1, -1):
            v = np.exp(Z[k, orders[i, c]] - zmax)
            V[k, c] = v
            acc += v
            S[k, c] = acc
        for c in range(L - 1):
            loge[k] += np.log(V[k, c]) - np.log(S[k, c])


def _posterior(logg, loge, h):  # pragma: no cover - compiled below
    """E-step (eq. 29): ``h = softmax(logg + loge)``."""
    K = h.shape[0]
    bmax = -np.inf
    for k in range(K):
        h[k] = logg[k] + loge[k]
        if h[k] > bmax:
            bmax = h[k]
    hs = 0.0
    for k in range(K):
        h[k] = np.exp(h[k] - bmax)
        hs += h[k]
    for k in range(K):
        h[k] /= hs


def _step_prototypes(X, i, model, a, gsum, g, h, gamma, s2, settings):  # pragma: no cover
    """M-step v.1, corrected eq. (30): move every prototype towards (or away from) ``x_i``."""
    protos, cluster, _ = model
    d = protos.shape[1]
    proto_gain, clip, printed_rule = settings.proto_gain, settings.clip, settings.printed_rule
    for p in range(protos.shape[0]):
        k = cluster[p]
        if gsum[k] <= 0.0:
            continue
        r = a[p] / gsum[k]  # w_np / g_nk
        if printed_rule:  # eq. (30) as printed: factor -(1 - h), not a gradient
            coef = -proto_gain * gamma * r * (1.0 - h[k]) / s2
        else:
            coef = proto_gain * gamma * r * (h[k] - g[k]) / s2
        if coef > clip:
            coef = clip
        elif coef < -clip:
            coef = -clip
        if coef != 0.0:
            for j in range(d):
                protos[p, j] += coef * (X[i, j] - protos[p, j])


def _step_scores(Z, orders, i, L, V, S, h, gamma):  # pragma: no cover - compiled below
    """Scores: gradient ascent, from the snapshot ``V``, ``S`` taken before this step."""
    for k in range(Z.shape[0]):
        inv = 0.0
        for c in range(L):
            inv += 1.0 / S[k, c]
            Z[k, orders[i, c]] += gamma * h[k] * (1.0 - V[k, c] * inv)


_nb_memberships = numba.njit(_memberships, cache=True, nogil=True, inline="always")
_nb_pl_logliks = numba.njit(_pl_logliks, cache=True, nogil=True, inline="always")
_nb_posterior = numba.njit(_posterior, cache=True, nogil=True, inline="always")
_nb_step_prototypes = numba.njit(_step_prototypes, cache=True, nogil=True, inline="always")
_nb_step_scores = numba.njit(_step_scores, cache=True, nogil=True, inline="always")


def _sgd_epoch(
    data, perm, model, t0, settings, H_given, H_out
):  # pragma: no cover - compiled below
    """One pass of stochastic EM over the instances in the order ``perm``.

    Updates ``model.protos`` (M, d) and ``model.Z`` (K, m) in place and writes the
    responsibilities used for each instance into ``H_out`` (n, K). ``data``
    (:class:`SGDData`); ``settings`` (:class:`SGDSettings`). ``t0`` is the global step count
    at the start; returns the count at the end. ``use_given_h``: take h from ``H_given``
    (batch E-step) instead of recomputing it.
    """
    X, orders, lengths = data
    protos, cluster, Z = model
    n = X.shape[0]
    M = protos.shape[0]
    K, m = Z.shape
    a = np.empty(M)
    gsum = np.empty(K)
    logg = np.empty(K)
    g = np.empty(K)
    loge = np.empty(K)
    h = np.empty(K)
    V = np.empty((K, m))
    S = np.empty((K, m))
    t = t0
    for idx in range(n):
        i = perm[idx]
        gamma = settings.gamma0 * settings.gamma_T / (settings.gamma_T + t)
        sigma = settings.sigma0 * settings.sigma_T / (settings.sigma_T + t)
        s2 = sigma * sigma
        _nb_memberships(X, i, protos, cluster, s2, a, gsum, g, logg)
        L = lengths[i]
        _nb_pl_logliks(Z, orders, i, L, V, S, loge)
        if settings.use_given_h:
            for k in range(K):
                h[k] = H_given[i, k]
        else:
            _nb_posterior(logg, loge, h)
        for k in range(K):
            H_out[i, k] = h[k]
        if L < 2:
            t += 1  # no preference: h = g, the gradient is zero
            continue
        _nb_step_prototypes(X, i, model, a, gsum, g, h, gamma, s2, settings)
        if settings.update_scores:
            _nb_step_scores(Z, orders, i, L, V, S, h, gamma)
        t += 1
    return t


_nb_sgd_epoch = numba.njit(_sgd_epoch, cache=True, nogil=True)


def _instance_gradient(
    x: np.ndarray,
    order: np.ndarray,
    protos: np.ndarray,
    cluster: np.ndarray,
    Z: np.ndarray,
    sigma: float,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Gradient of ``log sum_k g_k e_k`` for one instance (pure numpy reference).

    ``order``: the observed labels best first. Returns ``(d/d protos, d/d Z, log-likelihood)``
    by the corrected eq. (30) (divided by the learning rate).
    """
    K, m = Z.shape
    a = -((x[None, :] - protos) ** 2).sum(axis=1) / (2 * sigma**2)
    logw = a - logsumexp(a)
    logg = np.array([logsumexp(logw[cluster == k]) for k in range(K)])
    v = np.exp(Z[:, order])  # (K, L)
    S = np.cumsum(v[:, ::-1], axis=1)[:, ::-1]
    loge = (np.log(v[:, :-1]) - np.log(S[:, :-1])).sum(axis=1)
    b = logg + loge
    ll = logsumexp(b)
    h = np.exp(b - ll)
    g = np.exp(logg)
    r = np.exp(logw - logg[cluster])
    gp = (r * (h[cluster] - g[cluster]))[:, None] * (x[None, :] - protos) / sigma**2
    gz = np.zeros((K, m))
    gz[:, order] = h[:, None] * (1.0 - v * np.cumsum(1.0 / S, axis=1))
    return gp, gz, float(ll)


# --------------------------------------------------------------------------------------------
# vectorised evaluation over all instances
# --------------------------------------------------------------------------------------------
def _sq_dists(X: np.ndarray, P: np.ndarray) -> np.ndarray:
    d2 = (X**2).sum(axis=1)[:, None] - 2.0 * X @ P.T + (P**2).sum(axis=1)[None, :]
    return np.maximum(d2, 0.0)


def _log_memberships(
    X: np.ndarray, protos: np.ndarray, cluster: np.ndarray, K: int, sigma, D=None
):
    """``log g_nk`` for all instances, shape (n, K) (eq. 21).

    ``D``: the squared distances ``_sq_dists(X, protos)`` when already computed.
    """
    if D is None:
        D = _sq_dists(X, protos)
    a = -D / (2.0 * sigma**2)
    a -= a.max(axis=1, keepdims=True)
    ea = np.exp(a)
    onehot = np.zeros((len(cluster), K))
    onehot[np.arange(len(cluster)), cluster] = 1.0
    gs = ea @ onehot  # per-cluster sums as one BLAS product (np.add.at is ~10x slower)
    with np.errstate(divide="ignore"):
        return np.log(gs) - np.log(ea.sum(axis=1, keepdims=True))


def _mean_nll(D, LZ, cluster, sigma):  # pragma: no cover - compiled below
    """Mean of ``-log sum_k g_nk e_nk`` from precomputed parts (the per-epoch evaluation).

    ``D`` (n, M): squared distances to the prototypes; ``LZ`` (n, K): ``log e_nk``
    (``loglik_rows``). One pass over the instances with no (n, M) temporaries; equals
    ``-logsumexp(_log_memberships(...) + LZ, axis=1).mean()`` up to rounding.
    """
    n, M = D.shape
    K = LZ.shape[1]
    inv = 1.0 / (2.0 * sigma * sigma)
    gs = np.empty(K)
    b = np.empty(K)
    total = 0.0
    for i in range(n):
        # the nearest prototype has the largest kernel weight: shift by it (exp <= 1)
        dmin = np.inf
        for p in range(M):
            if D[i, p] < dmin:
                dmin = D[i, p]
        gs[:] = 0.0
        tot = 0.0
        for p in range(M):
            e = np.exp(-(D[i, p] - dmin) * inv)
            gs[cluster[p]] += e
            tot += e
        ltot = np.log(tot)
        bmax = -np.inf
        for k in range(K):
            b[k] = np.log(gs[k]) - ltot + LZ[i, k] if gs[k] > 0.0 else -np.inf
            if b[k] > bmax:
                bmax = b[k]
        acc = 0.0
        for k in range(K):
            acc += np.exp(b[k] - bmax)
        total -= bmax + np.log(acc)
    return total / n


_nb_mean_nll = numba.njit(_mean_nll, cache=True, nogil=True)


class PrototypePLMixture(SupervisedClusteringMixin, ValidatedParamsMixin, BaseEstimator):
    """Prototype Plackett-Luce mixture for supervised clustering ("MM-PL", Grbovic et al. 2013).

    Each of the K clusters is a union of the Voronoi cells of P prototypes in feature space and
    a Plackett-Luce model over the labels; the model is fitted by stochastic EM with the
    corrected gradient of eq. (30), an annealed kernel width and learning rate (see the module
    docstring). A new instance goes to the cluster of its nearest prototype and gets the mode
    of that cluster's Plackett-Luce model (its labels sorted by decreasing score).

    Parameters
    ----------
    n_clusters : int, default=10
        K.
    n_prototypes_per_cluster : int, default=10
        P (the paper: 30 with K = 3, 10 with K = 10).
    prototype_budget : int or None, default=None
        Total number of prototypes; overrides P as ``max(1, budget // K)`` (the paper's Table
        1 reads P as the total, decisions.md G12).
    gamma0 : float, default=0.03
        Initial learning rate.
    anneal : float, default=8.0
        ``sigma_T = gamma_T = anneal * N`` steps (the paper: 8N).
    sigma0 : float or None, default=None
        Initial kernel width; None = the square root of the total variance of the
        (standardised) training features, ``sigma_0^2 = E||x - mean(x)||^2`` (``sqrt(d)``
        after standardisation). "Training data variance" is ambiguous (decisions.md G10);
        with the per-feature reading (``sigma_0 = 1``) the kernel is nearly hard from the
        first step in high dimension and the prototypes barely move.
    clip : float, default=1.0
        Bound on the per-step prototype coefficient ``gamma (w/g)(h - g)/sigma^2`` (times
        ``sigma_0^2`` with ``prototype_step="relative"``), the fraction of the way to
        ``x_n`` a prototype moves; it grows linearly with the step count late in training
        (decisions.md G11).
    prototype_step : {"relative", "absolute"}, default="relative"
        Units of the prototype learning rate (module docstring). ``"relative"``: the
        prototypes step with ``gamma sigma_0^2``, i.e. move the fraction ``gamma_0
        (sigma_0/sigma)^2 (w/g)(h - g)`` of the way to ``x_n`` (``gamma_0`` at the start);
        the fit is invariant to the units of X. ``"absolute"``: eq. (30) with the same unitless
        ``gamma`` as the scores (the fraction is ``gamma_0 / sigma_0^2`` at the start). Why
        the default is ``"relative"``: with standardised features ``sigma_0^2 = d``, so
        ``"absolute"`` made the prototype steps d times smaller than the per-feature reading
        ``sigma_0 = 1`` and the model under-fitted: after 100 epochs the training loss_LR was
        still falling and the prototypes had moved a median 0.05 (iris, wine), 0.07 (glass)
        standardised units from their start, less than a third of the spacing of the
        prototypes (fold 0 of one 5-fold CV). With ``"relative"`` they move 0.17-0.85 and the
        training loss_LR falls further (iris .053 -> .050, glass .081 -> .051, wine .045 ->
        .028, vehicle .055 -> .028; test loss_LR over the 5 folds: iris .058 -> .047, glass
        .091 -> .080, housing .169 -> .158, vehicle .084 -> .069, sushi .367 -> .349).
    init : {"kmeans", "random"}, default="kmeans"
        Where the K P prototypes start; both draw them from the training points (Algorithm
        2, step 1), the paper does not say how the drawn points are dealt to the clusters.
        ``"random"``: at random, so every cluster starts as P points scattered over the
        whole feature space. ``"kmeans"``: one k-means run with K cells on the (standardised)
        features, then cluster k's P prototypes are random training points of cell k, so
        every cluster starts as one connected region. Why the default is ``"kmeans"``: the
        stochastic prototype steps are ``gamma (w/g)(h - g)/sigma^2`` per instance, so a
        prototype travels O(N gamma / (P sigma^2)) per epoch; on the small data sets (N of
        a few hundred, K P = 100) the prototypes move less than a tenth of a standard
        deviation in 100 epochs, a randomly dealt cluster stays a mixture of distant regions
        and its Plackett-Luce centre a compromise of their rankings (measured, one 5-fold CV:
        wine loss_LR .309 -> .041, iris .222 -> .058 with complete rankings).
    e_step : {"online", "batch"}, default="online"
        ``"online"``: responsibilities recomputed just before every instance's update (exact
        stochastic gradient); ``"batch"``: computed for all instances at the start of every
        epoch, vectorised (the literal Algorithm 2).
    prototype_rule : {"corrected", "printed"}, default="corrected"
        ``"corrected"``: the gradient of the log-likelihood (the module docstring);
        ``"printed"``: eq. (30) as printed, ``m_p -= gamma (w/g)(1 - h)(x - m_p)/sigma^2``,
        which is not a gradient (it repels each prototype from the instances its cluster
        explains poorly); for experiments only.
    m_step : {"v1", "v2"}, default="v1"
        ``"v1"``: stochastic gradient on the scores (the paper's reported version); ``"v2"``:
        one weighted MM update of every cluster's scores per epoch (eqs. 31-33), prototypes
        still stochastic.
    stop_on : {"nll", "loss"}, default="nll"
        Monitored training quantity. ``"nll"``: the mean negative log-likelihood (eq. 25);
        an epoch counts as an improvement when its updates lowered it by more than ``tol``,
        both sides evaluated at the same kernel width (the width at the end of the epoch).
        ``"loss"``: the training loss_LR (nearest-prototype assignment, Algorithm 2's rule),
        an improvement when it beats the best value so far by more than ``tol``.
    tol : float, default=1e-4
        Improvement of the monitored quantity that counts.
    n_iter_no_change : int, default=5
        Stop after this many epochs in a row without an improvement. 1 is the paper's rule
        (stop at the first epoch that does not improve); the epochs are stochastic, so one
        epoch without progress is noise more often than convergence (measured on ``circle``:
        with 1, training stopped after 45 epochs while the training loss_LR was still falling,
        .185, test .267; with 5 it runs 100 epochs, training .161, test .165), and 5 is
        scikit-learn's SGD default.
    min_epochs : int, default=2
    max_epochs : int, default=100
    validation_fraction : float in (0, 1) or None, default=None
        How the number of epochs of the returned model is chosen. None: the epoch with the
        lowest *training* loss_LR of the one run. A float: ``floor(fraction N)`` random
        training rows are held out, the model is trained on the rest with the usual stopping
        rule, and the epoch with the lowest loss_LR on the held-out rows (the latest of
        equal ones; see ``validation_window``) is chosen; then the model is refitted on all N
        rows from the same random state (the same initialisation and stream as the plain
        fit) for exactly that many epochs (``best_epoch_``), without the per-epoch
        likelihood evaluation, and the model after the last epoch is returned. When the
        features carry little ranking information (the yeast sets) the epoch of the lowest
        training loss is not the one that generalises best; the held-out rows cost the search
        run part of its data, but not the returned model. Measured (one 5-fold CV, complete
        rankings, K = 10, fraction 0.2, ``validation_window=3``): diau .416 -> .398, dtt
        .457 -> .450, spo .455 -> .436; the other 21 sets of Grbovic et al.'s Table 6 change
        by -.005 .. +.012 (cold +.012, cpu +.006; average .2268 -> .2265), CPU time about +5 %. Not the default: it does
        not change the 24-set average.
    validation_window : int, default=0
        Half-width ``h`` of the window of epochs used with ``validation_fraction`` (ignored
        without it). The loss_LR of an epoch is noisy (the epochs are stochastic), so the
        number of epochs of one run is only loosely transferable to the refit: the chosen
        epoch ``E`` is the one whose window ``E - h .. E + h`` has the lowest mean held-out
        loss, and the refit runs ``E + h`` epochs and returns the one of the lowest training
        loss_LR among ``E - h .. E + h`` (the training loss is evaluated at those epochs
        only). 0: the epoch of the lowest held-out loss, refitted for exactly that many
        epochs.
    standardize : bool, default=True
        z-score the features (fitted on the training data).
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    central_rankings_ : Rankings of shape (n_clusters_, n_items_)
        ``argsort(-scores_[k])`` (ties: lower label index first).
    scores_ : ndarray of shape (n_clusters_, n_items_)
        Plackett-Luce log-worths of every cluster, each row with mean zero.
    prototypes_ : ndarray of shape (n_prototypes, d)
        In the standardised feature space when ``standardize``.
    prototype_cluster_ : ndarray of int64, shape (n_prototypes,)
    labels_ : ndarray of int64, shape (n,)
        Cluster of the nearest prototype of every training instance.
    responsibilities_ : ndarray of shape (n, n_clusters_)
        ``h_nk`` of the last epoch of the returned model (rows renormalised over the kept
        clusters when a cluster was dropped).
    train_loss_ : float
        Training loss_LR (on all N rows) of the returned model.
    nll_curve_, loss_curve_ : list of float
        Mean negative log-likelihood and training loss_LR after every epoch (of the run on
        the rows not held out when ``validation_fraction`` is set).
    validation_loss_curve_ : list of float or None
        loss_LR on the held-out rows after every epoch; None without ``validation_fraction``.
    n_iter_ : int
        Epochs run (by the stopping rule; of the run on the rows not held out when
        ``validation_fraction`` is set).
    best_epoch_ : int
        Epochs of the returned model: the epoch of the lowest training loss_LR, or with
        ``validation_fraction`` the epoch chosen on the held-out rows, which is also the
        number of epochs of the refit on all rows.
    sigma0_, sigma_ : float
        Initial and final kernel width.
    n_clusters_ : int
        Clusters returned. A cluster none of whose prototypes is nearest to a training
        instance would be empty: it is dropped with its prototypes (an
        :class:`~rankclust.exceptions.EmptyClusterWarning`) and the others renumbered.
    n_items_, n_features_in_, scaler_
    items_ : tuple of str or None
        Label names of ``Y`` (None when unnamed); :meth:`predict_rankings` uses them.
    unseen_items_ : ndarray of int64
        Labels that no training ranking contains (a warning at fit): ``predict`` places them
        last, ``predict_rankings`` leaves them unranked.

    Notes
    -----
    Choices the paper leaves open (decisions.md G13): prototypes start at K P distinct training
    points (with replacement and a small jitter when N < K P), dealt to the clusters by
    k-means cells (``init``); scores start at
    ``log max(N(1, 0.1), 1e-3)``; each cluster's scores are re-centred after every epoch (PL is
    scale-invariant); the model with the lowest training loss_LR over the epochs is returned
    (``validation_fraction=None``).
    The stopping rule compares the likelihood before and after an epoch *at the same width*:
    sigma is an annealing schedule, not a parameter (sec. 5), and the likelihood at the
    current width rises whenever the shrinking width sharpens memberships the prototypes do
    not yet fit. Compared at the current width of each epoch, as first implemented, training
    stopped at the first such rise -- after 2 epochs on sushi, with a test loss_LR (.380)
    worse than a single ranking (.343); compared at equal widths (and ``n_iter_no_change=5``)
    it runs up to 100 epochs (.367; one 5-fold CV).
    Instances with fewer than two labels carry no preference (``h = g``) and give no update.

    The stochastic sweep is a numba kernel (an epoch is inherently sequential); the
    per-epoch evaluation -- memberships, likelihoods, responsibilities for the batch E-step,
    the training loss -- and prediction are vectorised over instances. The parameters at the
    end of an epoch are those the next one starts from, so the squared distances to the
    prototypes (one BLAS product per epoch, also used for the nearest-prototype assignment)
    and the Plackett-Luce terms of an epoch's "after" likelihood are kept for the next
    epoch's "before" likelihood and batch E-step (only the width differs); both
    likelihoods are then one fused numba pass each, without (n, K P) temporaries.

    Complexity: O(N (K P d + K m)) time per epoch (sweep) plus O(N (K P d + K m^2)) for the
    evaluation, plus one k-means run O(T N K d) for the initialisation; O(N (K P + m^2) +
    K P d) memory. With ``validation_fraction`` the refit adds ``best_epoch_`` sweeps on all
    rows without the evaluation, and one more k-means run.

    References
    ----------
    Grbovic, M., Djuric, N., Guo, S. and Vucetic, S. (2013). Supervised clustering of label
    ranking data using label preference information. Machine Learning 93, 191-225, sec. 5,
    Algorithm 2.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.supervised import PrototypePLMixture
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 0.3, (50, 2)), rng.normal(3, 0.3, (50, 2))]
    >>> Y = [[1, 2, 3, 4]] * 50 + [[4, 3, 2, 1]] * 50
    >>> est = PrototypePLMixture(n_clusters=2, n_prototypes_per_cluster=3, random_state=0)
    >>> est.fit(X, Y).predict_ranking([[0.0, 0.0], [3.0, 3.0]])
    array([[1, 2, 3, 4],
           [4, 3, 2, 1]])
    """

    _parameter_constraints: ClassVar[dict] = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_prototypes_per_cluster": [Interval(Integral, 1, None, closed="left")],
        "prototype_budget": [Interval(Integral, 1, None, closed="left"), None],
        "gamma0": [Interval(Real, 0, None, closed="neither")],
        "anneal": [Interval(Real, 0, None, closed="neither")],
        "sigma0": [Interval(Real, 0, None, closed="neither"), None],
        "clip": [Interval(Real, 0, None, closed="neither")],
        "prototype_step": [StrOptions({"relative", "absolute"})],
        "init": [StrOptions({"kmeans", "random"})],
        "e_step": [StrOptions({"online", "batch"})],
        "prototype_rule": [StrOptions({"corrected", "printed"})],
        "m_step": [StrOptions({"v1", "v2"})],
        "stop_on": [StrOptions({"nll", "loss"})],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "min_epochs": [Interval(Integral, 1, None, closed="left")],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "validation_window": [Interval(Integral, 0, None, closed="left")],
        "standardize": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_clusters: int = 10,
        *,
        n_prototypes_per_cluster: int = 10,
        prototype_budget: int | None = None,
        gamma0: float = 0.03,
        anneal: float = 8.0,
        sigma0: float | None = None,
        clip: float = 1.0,
        prototype_step: str = "relative",
        init: str = "kmeans",
        e_step: str = "online",
        prototype_rule: str = "corrected",
        m_step: str = "v1",
        stop_on: str = "nll",
        tol: float = 1e-4,
        n_iter_no_change: int = 5,
        min_epochs: int = 2,
        max_epochs: int = 100,
        validation_fraction: float | None = None,
        validation_window: int = 0,
        standardize: bool = True,
        random_state: Any = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.n_prototypes_per_cluster = n_prototypes_per_cluster
        self.prototype_budget = prototype_budget
        self.gamma0 = gamma0
        self.anneal = anneal
        self.sigma0 = sigma0
        self.clip = clip
        self.prototype_step = prototype_step
        self.init = init
        self.e_step = e_step
        self.prototype_rule = prototype_rule
        self.m_step = m_step
        self.stop_on = stop_on
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.min_epochs = min_epochs
        self.max_epochs = max_epochs
        self.validation_fraction = validation_fraction
        self.validation_window = validation_window
        self.standardize = standardize
        self.random_state = random_state

    def fit(self, X: Any, Y: Any) -> PrototypePLMixture:
        """Fit the prototypes and the cluster scores by stochastic EM.

        Parameters
        ----------
        X : array-like of shape (n, d)
        Y : Rankings or array-like of 1-based ranks (0/NaN missing), shape (n, m)

        Returns
        -------
        self : PrototypePLMixture
        """
        X, Y, K, rng = self._begin_fit(X, Y)
        Xt = np.ascontiguousarray(self._fit_scaler(X, self.standardize))
        n = Xt.shape[0]
        val_curve = None
        if self.validation_fraction is None:
            run = self._run(Xt, Y, K, rng, self.max_epochs)
        else:
            n_val = int(np.floor(self.validation_fraction * n))
            if n_val < 1 or n - n_val < K:
                raise ValueError(
                    f"validation_fraction={self.validation_fraction} leaves {n_val} validation "
                    f"and {n - n_val} training rows for n_clusters={K}; need at least 1 and "
                    f"n_clusters"
                )
            # the refit starts from the same random state as the plain fit, so it is the
            # plain fit on all rows stopped after the chosen number of epochs
            state = rng.get_state()
            search_rng = np.random.RandomState()
            search_rng.set_state(state)
            perm = search_rng.permutation(n)
            val, fit_rows = np.sort(perm[:n_val]), np.sort(perm[n_val:])
            if not (Y.lengths[fit_rows] >= 2).any():
                raise ValueError("validation_fraction: no training ranking orders two labels")
            search = self._run(
                Xt[fit_rows], Y[fit_rows], K, search_rng, self.max_epochs, val=(Xt[val], Y[val])
            )
            val_curve = search.val_curve
            # the epoch whose window of epochs has the lowest mean held-out loss; of equal
            # ones the latest, the most annealed (a small held-out set often reaches its
            # floor, e.g. 0 with separable rankings, epochs before the model does)
            h = self.validation_window
            vc = np.asarray(val_curve)
            # direct window means (at most max_epochs of them): equal windows stay equal
            smooth = np.array([vc[max(0, e - h) : e + h + 1].mean() for e in range(len(vc))])
            E = int(np.flatnonzero(smooth == smooth.min())[-1]) + 1
            rng.set_state(state)
            run = self._run(
                Xt, Y, K, rng, min(E + h, self.max_epochs), evaluate=False, select_from=E - h
            )
            run.n_iter, run.converged = search.n_iter, search.converged
            run.nll_curve, run.loss_curve = search.nll_curve, search.loss_curve
        if not run.converged:
            warnings.warn(
                f"PrototypePLMixture did not converge in max_epochs={self.max_epochs} epochs",
                ConvergenceWarning,
                stacklevel=2,
            )
        protos, cluster, Z, H = (run.params[k] for k in ("protos", "cluster", "Z", "H"))
        # a cluster none of whose prototypes is nearest to a training instance is empty
        # under the assignment rule: drop it with its prototypes, renumber the others
        keep, remap = used_clusters(_nearest(Xt, protos, cluster), K)
        if keep.size < K:
            mine = remap[cluster] >= 0
            protos, cluster, Z = protos[mine], remap[cluster[mine]], Z[keep]
            H = H[:, keep]
            total = H.sum(axis=1, keepdims=True)
            H = np.divide(H, total, out=np.full_like(H, 1.0 / keep.size), where=total > 0)
        self.prototypes_ = protos
        self.prototype_cluster_ = cluster
        self.scores_ = Z
        self.responsibilities_ = H
        self._set_centers(positions_from_scores(Z))
        self._warn_fewer_clusters(K, "none of their prototypes is nearest to a training instance")
        self.train_loss_ = run.objective
        self.sigma0_ = float(run.sigma0)
        self.sigma_ = float(run.sigma)
        self.nll_curve_ = run.nll_curve
        self.loss_curve_ = run.loss_curve
        self.validation_loss_curve_ = val_curve
        self.n_iter_ = run.n_iter
        self.best_epoch_ = int(run.best_epoch)
        self.labels_ = self._predict_cluster(Xt)
        return self

    def _run(
        self, Xt, Y, K, rng, max_epochs, *, evaluate=True, val=None, select_from=None
    ) -> _PLRun:
        """Initialise and run up to ``max_epochs`` epochs of stochastic EM on ``(Xt, Y)``.

        ``evaluate=True``: the per-epoch likelihood and training loss, the stopping rule, and
        the model of the lowest training loss_LR (or, with ``val = (X_val, Y_val)``, of the
        lowest validation loss_LR) is returned. ``evaluate=False``: exactly ``max_epochs``
        epochs without the likelihood evaluation; of the epochs from ``select_from`` on, the
        one of the lowest training loss_LR is returned (the refit).
        """
        n = Xt.shape[0]
        cluster, protos, Z, sigma0 = self._initial_model(Xt, Y.n_items, K, rng)
        T = float(self.anneal) * n
        proto_gain = sigma0**2 if self.prototype_step == "relative" else 1.0
        settings = SGDSettings(
            float(self.gamma0), T, float(sigma0), T, float(self.clip), proto_gain,
            self.e_step == "batch", self.m_step == "v1", self.prototype_rule == "printed",
        )  # fmt: skip
        # compiled data: observed labels best first; PL stages for the vectorised evaluation
        present = Y.ranks >= 0
        lengths = present.sum(axis=1).astype(np.int64)
        orders = np.ascontiguousarray(
            np.argsort(np.where(present, Y.ranks, Y.n_items), axis=1, kind="stable").astype(
                np.int64
            )
        )
        data = SGDData(Xt, orders, lengths)
        stages = choice_stages(Y)
        informative = lengths >= 2
        H = np.zeros((n, K))
        H_given = np.zeros((n, K))
        t = 0
        best = (np.inf, None, None, None, 0)  # loss, protos, Z, H, epoch
        run = _PLRun(objective=np.inf, n_iter=0, converged=not evaluate, sigma0=sigma0)
        stop = _StoppingRule(self)
        # the evaluation at the end of an epoch is at the parameters the next epoch starts
        # from: keep its squared distances and PL log-likelihoods for the next epoch's
        # "before" likelihood (at a new width) and batch E-step
        D = LZ = None
        if evaluate or self.e_step == "batch":
            D, LZ = _sq_dists(Xt, protos), loglik_rows(stages, Z)
        epoch = 0
        for epoch in range(1, max_epochs + 1):
            if self.e_step == "batch":
                sigma_now = sigma0 * T / (T + t)
                H_given = self._responsibilities(
                    Xt, stages, protos, cluster, Z, sigma_now, D=D, LZ=LZ
                )
            perm = rng.permutation(n).astype(np.int64)
            t = _nb_sgd_epoch(data, perm, SGDModel(protos, cluster, Z), t, settings, H_given, H)
            self._m_step(stages, informative, H, Z)
            if not evaluate:
                if self.e_step == "batch" and epoch < max_epochs:
                    D, LZ = _sq_dists(Xt, protos), loglik_rows(stages, Z)
                if epoch >= select_from:
                    loss = training_loss(
                        distances_to_centers(Y, positions_from_scores(Z)),
                        _nearest(Xt, protos, cluster),
                        informative,
                    )
                    if loss < best[0]:
                        best = (loss, protos.copy(), Z.copy(), H.copy(), epoch)
                continue
            sigma_now = sigma0 * T / (T + t)
            D_prev, LZ_prev = D, LZ
            D, LZ = _sq_dists(Xt, protos), loglik_rows(stages, Z)
            nll = float(_nb_mean_nll(D, LZ, cluster, sigma_now))
            centers = positions_from_scores(Z)
            assign = _nearest(Xt, protos, cluster, D=D)
            loss = training_loss(distances_to_centers(Y, centers), assign, informative)
            run.nll_curve.append(nll)
            run.loss_curve.append(loss)
            if val is None:
                if loss < best[0]:
                    best = (loss, protos.copy(), Z.copy(), H.copy(), epoch)
            else:
                run.val_curve.append(_held_out_loss(val, protos, cluster, centers))
            # sigma is an annealing schedule, not a parameter: the likelihood before this
            # epoch's updates is compared at the same (current) width
            before = None
            if self.stop_on == "nll":
                before = float(_nb_mean_nll(D_prev, LZ_prev, cluster, sigma_now))
            if stop.done(epoch, nll, before, loss):
                run.converged = True
                break
        if val is None:
            loss, protos, Z, H, run.best_epoch = best
        # else: the epoch is chosen by the caller from val_curve
        run.objective, run.n_iter, run.sigma = loss, epoch, sigma0 * T / (T + t)
        run.params = {"protos": protos, "cluster": cluster, "Z": Z, "H": H}
        return run

    def _initial_model(self, Xt, m, K, rng) -> tuple:
        """``(cluster, protos, Z, sigma0)`` of a start (draws the prototypes, then Z)."""
        P = (
            max(1, self.prototype_budget // K)
            if self.prototype_budget is not None
            else self.n_prototypes_per_cluster
        )
        cluster = np.repeat(np.arange(K, dtype=np.int64), P)
        protos = _init_prototypes(Xt, K, P, self.init, rng)
        Z = np.log(np.clip(rng.normal(1.0, 0.1, (K, m)), 1e-3, None))
        sigma0 = self.sigma0
        if sigma0 is None:
            # sigma_0^2 = the data variance E||x - mean||^2 (the total variance), so that the
            # kernel starts soft whatever d is (sqrt(d) after standardisation)
            var = float(Xt.var(axis=0).sum())
            sigma0 = float(np.sqrt(var)) if var > 0 else 1.0
        return cluster, protos, Z, sigma0

    def _m_step(self, stages, informative, H, Z) -> None:
        """The scores' step after a sweep (in place): one MM step per cluster (M-step v.2),
        then every cluster's log-scores centred."""
        if self.m_step == "v2":
            for k in range(Z.shape[0]):
                if H[informative, k].sum() > 0:
                    Z[k], _, _ = fit_scores(
                        stages, H[:, k], alpha=_PL_ALPHA, init=Z[k], max_iter=1
                    )
        Z -= Z.mean(axis=1, keepdims=True)

    @staticmethod
    def _joint(Xt, stages, protos, cluster, Z, sigma, D=None, LZ=None) -> np.ndarray:
        """``log g_nk + log e_nk``, shape (n, K); ``D``, ``LZ``: precomputed parts."""
        logg = _log_memberships(Xt, protos, cluster, Z.shape[0], sigma, D=D)
        return logg + (loglik_rows(stages, Z) if LZ is None else LZ)

    def _responsibilities(self, Xt, stages, protos, cluster, Z, sigma, D=None, LZ=None):
        b = self._joint(Xt, stages, protos, cluster, Z, sigma, D=D, LZ=LZ)
        return np.ascontiguousarray(np.exp(b - logsumexp(b, axis=1, keepdims=True)))

    def _predict_cluster(self, X: np.ndarray) -> np.ndarray:
        return _nearest(X, self.prototypes_, self.prototype_cluster_)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Soft cluster memberships ``g_nk`` at the final kernel width, shape (n, K)."""
        Xt = self._transform_X(X)
        logg = _log_memberships(
            Xt, self.prototypes_, self.prototype_cluster_, self.n_clusters_, self.sigma_
        )
        return np.exp(logg)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        d, m, k = self._validate_loaded_common()
        p = loaded.array_attr(self, "prototypes_", ndim=2).shape[0]
        loaded.array_attr(self, "prototypes_", shape=(p, d))
        loaded.array_attr(self, "prototype_cluster_", kind="i", shape=(p,), low=0, high=k - 1)
        loaded.array_attr(self, "scores_", shape=(k, m))
        loaded.float_attr(self, "sigma_", low=0.0)
        loaded.float_attr(self, "sigma0_", low=0.0)
        if self.sigma_ <= 0.0 or p < 1:
            raise ValueError("sigma_: must be positive, with at least one prototype")


@dataclass(kw_only=True)
class _PLRun(FitRun):
    """A run of :meth:`PrototypePLMixture._run`: ``objective`` is the training loss_LR of the
    kept epoch, ``params`` its ``protos``, ``cluster``, ``Z`` and ``H``; the curves hold one
    value per epoch (empty for the refit, which does not evaluate)."""

    sigma0: float
    sigma: float = 0.0
    best_epoch: int | None = None
    nll_curve: list = field(default_factory=list)
    loss_curve: list = field(default_factory=list)
    val_curve: list = field(default_factory=list)


class _StoppingRule:
    """Stop after ``n_iter_no_change`` epochs in a row without an improvement of more than
    ``tol`` (``n_iter_no_change=1`` is the paper's literal rule), not before ``min_epochs``.

    ``stop_on="nll"`` compares the likelihood before and after the epoch's updates at the
    current width (the curve of the likelihood at the current width rises whenever shrinking
    sigma sharpens the memberships, which is no sign of convergence); ``"loss"`` compares the
    hard-assignment loss_LR, comparable across epochs but noisy, against its best so far.
    """

    def __init__(self, est: PrototypePLMixture) -> None:
        self.est = est
        self.best = np.inf
        self.stall = 0

    def done(self, epoch: int, nll: float, nll_before: float | None, loss: float) -> bool:
        """Whether the run stops after ``epoch`` (``nll_before``: for ``stop_on="nll"``)."""
        est = self.est
        if est.stop_on == "nll":
            improved = nll_before - nll > est.tol
        else:
            improved = loss < self.best - est.tol
            self.best = min(self.best, loss)
        self.stall = 0 if improved else self.stall + 1
        return epoch >= est.min_epochs and self.stall >= est.n_iter_no_change


def _held_out_loss(val, protos, cluster, centers) -> float:
    """loss_LR of the held-out rows ``val = (X_val, Y_val)`` under the current model."""
    X_val, Y_val = val
    return training_loss(
        distances_to_centers(Y_val, centers), _nearest(X_val, protos, cluster), Y_val.lengths >= 2
    )


def _init_prototypes(
    Xt: np.ndarray, K: int, P: int, init: str, rng: np.random.RandomState
) -> np.ndarray:
    """``K P`` prototypes drawn from the training points, cluster ``k`` = rows ``k P .. k P + P``.

    ``"random"``: K P random training points, dealt to the clusters at random (Algorithm 2,
    step 1 literally). ``"kmeans"``: k-means (K cells) on the features first, then the P
    prototypes of cluster k are random training points of cell k, so that every cluster
    starts as one connected region (a cell with fewer than P points is sampled with
    replacement). Repeated points get a small jitter.
    """
    n = Xt.shape[0]
    M = K * P
    if init == "random" or K == 1:
        idx = rng.choice(n, M, replace=n < M)
    else:
        from sklearn.cluster import KMeans

        cells = KMeans(K, n_init=1, random_state=rng).fit_predict(Xt)
        parts = []
        for k in range(K):
            members = np.flatnonzero(cells == k)
            if len(members) == 0:
                members = np.arange(n)
            parts.append(rng.choice(members, P, replace=len(members) < P))
        idx = np.concatenate(parts)
    protos = Xt[idx].copy()
    dup = np.zeros(M, dtype=bool)
    _, first = np.unique(idx, return_index=True)
    dup[np.setdiff1d(np.arange(M), first)] = True
    if dup.any():  # repeated points: separate them a little
        protos[dup] += rng.normal(0.0, 1e-3, (int(dup.sum()), Xt.shape[1])) * (
            Xt.std(axis=0) + 1e-12
        )
    return protos


def _nearest(X: np.ndarray, protos: np.ndarray, cluster: np.ndarray, D=None) -> np.ndarray:
    """Cluster of the nearest prototype (lowest prototype index on ties).

    ``D``: the squared distances ``_sq_dists(X, protos)`` when already computed.
    """
    if D is None:
        D = _sq_dists(X, protos)
    return cluster[np.argmin(D, axis=1)].astype(np.int64)
