"""Plackett-Luce standard errors: observed information, vcov, Wald intervals, quasi-variances.

The fitted function is the weighted Plackett-Luce log-likelihood of
:mod:`rankclust.models.plackett_luce` (complete rankings, top-k lists and subset rankings, each
by its own stages), plus, when ``alpha > 0``, the log of the Gamma(1 + alpha, alpha) prior on
each worth that :func:`~rankclust.models.plackett_luce.fit_scores` maximises. In log-worths
``z`` every stage contributes ``z_chosen - log sum_{c in set} exp(z_c)``, whose negative
Hessian is ``diag(p) - p p'`` with ``p`` the choice probabilities over the set. The sets of a
row are nested, so summing over its stages gives, with ``v = exp(z)``, ``S_s`` the worth still
available at stage ``s`` and ``t(a)`` the position of item ``a`` in the row,

    ``I[a, b] = [a == b] v_a E1(t(a)) - v_a v_b E2(min(t(a), t(b)))``,

``E1(t) = sum_{active s <= t} 1 / S_s`` and ``E2(t) = sum_{active s <= t} 1 / S_s^2`` (both
over items in the choice sets only): O(m^2) per distinct ranking instead of O(m^3).

Identifiability. The likelihood depends on ``z`` only up to an additive constant, so its
information is singular (``I 1 = 0``). rankclust reports scores with **sum zero** (the
convention of ``PlackettLuce.scores_``); the covariance matrix of the sum-zero scores is the
Moore-Penrose inverse of ``I`` (the null space of ``I`` is exactly the constant vector when the
MLE exists). :func:`change_reference` turns it into the covariance of ``z_j - z_r`` (a
reference item with score 0). Any contrast ``c'z`` (``sum c = 0``) has the same variance in
every parametrisation.

With a prior (``alpha > 0``) the maximised function is the log-posterior, which is not
shift-invariant: its maximiser is the MAP at the scale where the worths have mean 1, and the
inverse of its negative Hessian ``I + alpha diag(v)`` is the covariance of the Laplace
approximation to the posterior of the (uncentred) log-worths. The sum-zero covariance is then
``P Sigma P`` with ``P = I - 11'/m`` (the covariance of the centred log-worths).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import optimize, stats

from rankclust._param_validation import check_sample_weight
from rankclust.models.plackett_luce import ChoiceStages, _as_stages
from rankclust.rankings import Rankings

__all__ = [
    "change_reference",
    "plackett_luce_information",
    "plackett_luce_vcov",
    "quasi_variances",
    "wald_intervals",
]

#: Largest number of float64 entries of one (rows, m, m) block of the information sum.
_BLOCK_ENTRIES = 4_000_000


def _check_scores(scores: Any, m: int) -> np.ndarray:
    z = np.asarray(scores, dtype=np.float64)
    if z.shape != (m,):
        raise ValueError(f"scores must have shape ({m},), got {z.shape}")
    if not np.isfinite(z).all():
        raise ValueError("scores must be finite")
    return z


def _row_weights(stages: ChoiceStages, sample_weight: Any) -> np.ndarray:
    if sample_weight is None:
        return stages.row_weights()
    return stages.row_weights(check_sample_weight(sample_weight, stages.n_rankings))


def _gradient_and_information(
    stages: ChoiceStages, row_w: np.ndarray, z: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and observed information (negative Hessian) of the weighted log-likelihood.

    Vectorised over the distinct rankings, in blocks of rows: O(u L^2 + m^2) time and
    O(m^2 + block) memory, with ``L`` the last position of a choice set (the longest subset
    ranking; ``m`` for complete and top-k rankings, whose sets hold every item). Trusts its
    input.
    """
    order, in_set, active = stages.order, stages.in_set, stages.active
    m = order.shape[1]
    v = np.exp(z - z.max())  # choice probabilities are scale-free
    keep = row_w > 0
    order, in_set, active, w = order[keep], in_set[keep], active[keep], row_w[keep]
    # positions past the last one of any choice set hold nothing (subset rankings)
    used = np.flatnonzero(in_set.any(axis=0))
    L = int(used[-1]) + 1 if used.size else 0
    order, in_set, active = order[:, :L], in_set[:, :L], active[:, :L]
    vpos = np.where(in_set, v[order], 0.0)
    # worth still available at each stage: sum over positions t >= s in the sets
    avail = np.cumsum(vpos[:, ::-1], axis=1)[:, ::-1]
    with np.errstate(divide="ignore"):
        inv = np.where(active, 1.0 / avail, 0.0)
    e1 = np.cumsum(inv, axis=1) * in_set
    e2 = np.cumsum(inv**2, axis=1) * in_set
    wins = np.bincount(
        order[active], weights=np.broadcast_to(w[:, None], active.shape)[active], minlength=m
    )
    expo = np.bincount(order.ravel(), weights=(w[:, None] * e1).ravel(), minlength=m)
    grad = wins - v * expo
    # M[a, b] = sum_i w_i E2_i(min(t_i(a), t_i(b))) over the items a, b of row i's sets (E2
    # is 0 off the sets, and the sets are nested), accumulated by the rows' positions
    first = np.minimum.outer(np.arange(L), np.arange(L))  # the earlier of two positions
    mmat = np.zeros(m * m)
    block = max(1, _BLOCK_ENTRIES // max(L * L, 1))
    for start in range(0, order.shape[0], block):
        sl = slice(start, start + block)
        both = in_set[sl][:, :, None] & in_set[sl][:, None, :]
        emin = e2[sl][:, first] * both * w[sl, None, None]
        pairs = order[sl][:, :, None] * m + order[sl][:, None, :]
        mmat += np.bincount(pairs[both], weights=emin[both], minlength=m * m)
    mmat = mmat.reshape(m, m)
    info = np.diag(v * expo) - np.outer(v, v) * mmat
    return grad, 0.5 * (info + info.T)


def plackett_luce_information(
    R: Rankings | ChoiceStages,
    scores: Any,
    sample_weight: Any = None,
    *,
    alpha: float = 0.0,
) -> np.ndarray:
    """Observed information of the Plackett-Luce fit in the log-worths.

    The negative Hessian of the function that :func:`~rankclust.models.plackett_luce.fit_scores`
    maximises: the weighted log-likelihood for ``alpha=0``; for ``alpha > 0`` the
    log-posterior under independent Gamma(1 + alpha, alpha) priors on the worths, evaluated at
    the MAP scale (worths of mean 1), where it adds ``alpha * diag(worths)``.

    Parameters
    ----------
    R : Rankings or ChoiceStages, n rankings over m items
        Complete, top-k (``kind="top"``) or subset rankings without ties.
    scores : array-like of float, shape (m,)
        Log-worths (any shift), usually ``PlackettLuce.scores_``.
    sample_weight : array-like of float, shape (n,), optional
        Weight per ranking, multiplied by ``R.weights``.
    alpha : float, default=0.0
        The prior strength the scores were fitted with.

    Returns
    -------
    ndarray of float64, shape (m, m)
        Symmetric; for ``alpha=0`` positive semi-definite with ``I @ ones = 0``.

    Notes
    -----
    Complexity: O(u m^2) time for u distinct rankings, O(m^2) memory plus blocks of rows.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1], [1, 0]])
    >>> plackett_luce_information(R, [0.0, 0.0])
    array([[ 0.5, -0.5],
           [-0.5,  0.5]])
    """
    stages = _as_stages(R)
    z = _check_scores(scores, stages.n_items)
    alpha = float(alpha)
    if not (alpha >= 0 and np.isfinite(alpha)):
        raise ValueError(f"alpha must be finite and >= 0, got {alpha!r}")
    _, info = _gradient_and_information(stages, _row_weights(stages, sample_weight), z)
    if alpha > 0:
        v = np.exp(z - z.max())
        info = info + alpha * np.diag(v / v.mean())
    return info


def _log_objective(stages: ChoiceStages, row_w: np.ndarray, z: np.ndarray, alpha: float) -> float:
    """The maximised function at log-worths ``z`` (uncentred; used by the tests' checks)."""
    from rankclust.models.plackett_luce import _loglik_compact

    ll = float(row_w @ _loglik_compact(stages, z))
    return ll + alpha * float(np.sum(z - np.exp(z)))


def _sum_zero_basis(m: int) -> np.ndarray:
    """An orthonormal basis of the vectors with sum zero, shape (m, m - 1) (Helmert)."""
    q, _ = np.linalg.qr(np.eye(m)[:, :-1] - 1.0 / m)
    return q


def _reference_index(reference: Any, m: int) -> int:
    r = int(reference)
    if r != reference or not 0 <= r < m:
        raise ValueError(f"reference must be an item index in [0, {m}), got {reference!r}")
    return r


def change_reference(vcov: Any, reference: int | None = None) -> np.ndarray:
    """Covariance of the log-worths under another identifiability constraint.

    Parameters
    ----------
    vcov : array-like of float, shape (m, m)
        Covariance of log-worths under any constraint (e.g. sum zero, as returned by
        :func:`plackett_luce_vcov`).
    reference : int or None, default=None
        ``None``: the sum-zero parametrisation (``P V P``, ``P = I - 11'/m``). An item index
        ``r``: the parametrisation ``z_j - z_r`` (item ``r`` fixed at 0; its row and column are
        0).

    Returns
    -------
    ndarray of float64, shape (m, m)

    Notes
    -----
    Only contrasts are identified, and ``c' V c`` for ``sum c = 0`` is the same in every
    parametrisation, so this is a linear map ``A V A'``.

    Examples
    --------
    >>> import numpy as np
    >>> V = np.array([[2.0, -1.0], [-1.0, 2.0]]) / 3
    >>> change_reference(V, 0)
    array([[0., 0.],
           [0., 2.]])
    """
    V = np.asarray(vcov, dtype=np.float64)
    if V.ndim != 2 or V.shape[0] != V.shape[1]:
        raise ValueError(f"vcov must be a square matrix, got shape {V.shape}")
    m = V.shape[0]
    if reference is None:
        A = np.eye(m) - 1.0 / m
    else:
        A = np.eye(m)
        A[:, _reference_index(reference, m)] -= 1.0
    out = A @ V @ A.T
    return 0.5 * (out + out.T)


def plackett_luce_vcov(
    R: Rankings | ChoiceStages,
    scores: Any,
    sample_weight: Any = None,
    *,
    alpha: float = 0.0,
    reference: int | None = None,
    check_stationary: bool = True,
) -> np.ndarray:
    """Asymptotic covariance of fitted Plackett-Luce log-worths (inverse observed information).

    Parameters
    ----------
    R : Rankings or ChoiceStages
        The rankings the scores were fitted to.
    scores : array-like of float, shape (m,)
        The fitted log-worths (``PlackettLuce.scores_``).
    sample_weight : array-like of float, shape (n,), optional
        The weights of the fit.
    alpha : float, default=0.0
        The prior strength of the fit (``alpha > 0``: the Laplace approximation to the
        posterior covariance, see the module notes).
    reference : int or None, default=None
        ``None``: covariance of the sum-zero scores (the ``scores_`` convention); an item
        index: covariance of ``z_j - z_reference`` (see :func:`change_reference`).
    check_stationary : bool, default=True
        Raise ``ValueError`` when ``scores`` is not a maximiser for these data (gradient
        larger than ``1e-4`` relative to the total weight): the inverse Hessian is a
        covariance only at the estimate.

    Returns
    -------
    ndarray of float64, shape (m, m)

    Raises
    ------
    ValueError
        If the information is singular beyond the shift (the MLE does not exist, e.g. an item
        never loses), or the scores are not stationary.

    Notes
    -----
    Complexity: O(u m^2 + m^3) time, O(m^2) memory.
    """
    stages = _as_stages(R)
    m = stages.n_items
    z = _check_scores(scores, m)
    row_w = _row_weights(stages, sample_weight)
    alpha = float(alpha)
    if not (alpha >= 0 and np.isfinite(alpha)):
        raise ValueError(f"alpha must be finite and >= 0, got {alpha!r}")
    grad, info = _gradient_and_information(stages, row_w, z)
    if alpha > 0:
        v = np.exp(z - z.max())
        v = v / v.mean()  # the MAP sits at mean worth 1 (see fit_scores)
        grad = grad + alpha * (1.0 - v)
        info = info + alpha * np.diag(v)
    if check_stationary:
        total = max(float(row_w.sum()), 1e-300)
        if np.abs(grad).max() > 1e-4 * max(total, 1.0):
            raise ValueError(
                "scores are not the maximiser for these rankings and weights (largest score "
                f"gradient {np.abs(grad).max():.3g}); pass the data and alpha of the fit"
            )
    if m == 1:
        return np.zeros((1, 1))
    if alpha > 0:
        evals = np.linalg.eigvalsh(info)
        if evals.min() <= 1e-12 * evals.max():
            raise ValueError("the information matrix is singular")
        V = change_reference(np.linalg.inv(info), None)
    else:
        # inverse on the sum-zero subspace, in an orthonormal basis B of it: B (B'IB)^-1 B'
        B = _sum_zero_basis(m)
        reduced = B.T @ info @ B
        evals = np.linalg.eigvalsh(reduced)
        if evals.min() <= 1e-10 * evals.max():
            raise ValueError(
                "the information is singular beyond the common shift: the maximum-likelihood "
                "estimate does not exist for these data (use alpha > 0)"
            )
        V = change_reference(B @ np.linalg.inv(reduced) @ B.T, None)
    return V if reference is None else change_reference(V, reference)


def wald_intervals(estimate: Any, standard_error: Any, level: float = 0.95) -> np.ndarray:
    """Wald intervals ``estimate -/+ z_{(1+level)/2} standard_error``.

    Parameters
    ----------
    estimate, standard_error : array-like of float, same shape
    level : float, default=0.95
        Coverage, in (0, 1).

    Returns
    -------
    ndarray of float64, shape (*estimate.shape, 2)
        Lower and upper bounds in the last axis.

    Examples
    --------
    >>> wald_intervals([1.0], [0.5]).round(3)
    array([[0.02, 1.98]])
    """
    level = float(level)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    est = np.asarray(estimate, dtype=np.float64)
    se = np.asarray(standard_error, dtype=np.float64)
    if est.shape != se.shape:
        raise ValueError(f"estimate and standard_error shapes differ: {est.shape} vs {se.shape}")
    half = stats.norm.ppf(0.5 + level / 2) * se
    return np.stack([est - half, est + half], axis=-1)


def quasi_variances(vcov: Any) -> tuple[np.ndarray, np.ndarray]:
    """Quasi-variances of Firth & de Menezes (2004) for a covariance of log-worths.

    Quasi-variances ``q`` let the variance of every simple contrast be read off as
    ``Var(z_j - z_k) ~ q_j + q_k``. They minimise the sum over pairs ``j < k`` of
    ``log((q_j + q_k) / Var(z_j - z_k))^2`` (the relative-error penalty of Firth & de Menezes,
    the default of R's ``qvcalc``), solved by Gauss-Newton in ``log q``.

    Parameters
    ----------
    vcov : array-like of float, shape (m, m), m >= 3
        Covariance of the log-worths under any identifiability constraint.

    Returns
    -------
    quasi_variances : ndarray of float64, shape (m,)
        Their square roots are the quasi-standard errors.
    relative_errors : ndarray of float64, shape (2,)
        The smallest and largest relative error ``sqrt(c'Qc / c'Vc) - 1`` over **all**
        contrasts ``c`` (``Q = diag(q)``), from a generalised eigenvalue problem (Firth &
        de Menezes 2004, Sec. 2.3).

    Raises
    ------
    ValueError
        If ``m < 3`` (two items have one contrast: quasi-variances are not defined) or a
        contrast has variance ``<= 0``.

    References
    ----------
    Firth, D. & de Menezes, R. X. (2004). Quasi-variances. Biometrika, 91(1), 65-80.

    Examples
    --------
    A covariance whose contrasts are exactly additive is reproduced exactly:

    >>> import numpy as np
    >>> a = np.array([0.1, 0.2, 0.3, 0.4])
    >>> V = np.diag(a) + 0.05
    >>> q, err = quasi_variances(V)
    >>> q.round(6), bool(np.abs(err).max() < 1e-6)
    (array([0.1, 0.2, 0.3, 0.4]), True)
    """
    V = np.asarray(vcov, dtype=np.float64)
    if V.ndim != 2 or V.shape[0] != V.shape[1]:
        raise ValueError(f"vcov must be a square matrix, got shape {V.shape}")
    m = V.shape[0]
    if m < 3:
        raise ValueError(f"quasi-variances need at least 3 items, got {m}")
    j, k = np.triu_indices(m, 1)
    d = np.diag(V)
    target = d[j] + d[k] - 2 * V[j, k]
    if not (target > 0).all():
        raise ValueError("every simple contrast must have a positive variance")
    log_target = np.log(target)

    def residuals(logq: np.ndarray) -> np.ndarray:
        q = np.exp(logq)
        return np.log(q[j] + q[k]) - log_target

    def jacobian(logq: np.ndarray) -> np.ndarray:
        q = np.exp(logq)
        s = q[j] + q[k]
        jac = np.zeros((len(j), m))
        rows = np.arange(len(j))
        jac[rows, j] = q[j] / s
        jac[rows, k] = q[k] / s
        return jac

    # start: the exact solution of q_j + q_k = target for the mean of each item's contrasts
    Vr = np.zeros((m, m))
    Vr[j, k] = target
    Vr = Vr + Vr.T
    start = np.maximum(
        Vr.sum(axis=1) / (m - 2) - Vr.sum() / (2 * (m - 1) * (m - 2)), 1e-3 * target.min()
    )
    sol = optimize.least_squares(
        residuals, np.log(start), jac=jacobian, method="lm", xtol=1e-15, ftol=1e-15, gtol=1e-15
    )
    q = np.exp(sol.x)
    # extremes of c'Qc / c'Vc over contrasts: reference-item basis e_j - e_0
    B = np.zeros((m, m - 1))
    B[0, :] = -1.0
    B[np.arange(1, m), np.arange(m - 1)] = 1.0
    from scipy.linalg import eigh

    ratios = eigh(B.T @ np.diag(q) @ B, B.T @ V @ B, eigvals_only=True)
    rel = np.sqrt(np.clip(ratios[[0, -1]], 0, None)) - 1.0
    return q, rel
