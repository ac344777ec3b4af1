"""Observed information of a finite mixture by Louis's (1982) formula (private toolkit).

Shared by the ranking mixtures (:mod:`rankclust.cluster._mixture_information`) and the
Bradley-Terry mixture over assessors (:mod:`rankclust.pairwise._mixture`). A mixture with
mixing weights ``pi = softmax(a_1, ..., a_{K-1}, 0)`` and component parameters
``eta_1, ..., eta_K`` has, per unit ``i`` (a ballot, an assessor) of weight ``w_i``, the
complete-data scores ``g_ik = grad (log pi_k + log f_k(x_i))`` in
``phi = (a_1..a_{K-1}, eta_1..eta_K)`` and the responsibilities ``tau_ik``. Its observed
information is exact (analytic, no numerical differentiation):

``I = sum_i w_i [ sum_k tau_ik (-hess h_ik) - (sum_k tau_ik g_ik g_ik' - s_i s_i') ]``,

``s_i = sum_k tau_ik g_ik``: the complete-data information minus the conditional variance of
the complete-data score. The callers give per component the unit gradients of ``log f_k`` in
``eta_k`` and the complete-data information ``sum_i w_i tau_ik (-hess log f_k(x_i))`` (plus any
prior curvature), and the Jacobian of the reported parameters in ``eta_k``.

References
----------
Louis, T. A. (1982). Finding the observed information matrix when using the EM algorithm.
JRSS B 44, 226-233.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["inverse_information", "louis_information", "reported_jacobian"]


def louis_information(
    w: np.ndarray,
    tau: np.ndarray,
    pi: np.ndarray,
    grads: Sequence[np.ndarray],
    infos: Sequence[np.ndarray],
) -> np.ndarray:
    """The observed information in ``phi`` (see the module notes).

    Parameters
    ----------
    w : ndarray of shape (u,)
        Unit weights.
    tau : ndarray of shape (u, K)
        Responsibilities at the fit.
    pi : ndarray of shape (K,)
        Mixing weights.
    grads : K arrays of shape (u, d_k)
        Gradient of each unit's ``log f_k`` in ``eta_k``.
    infos : K arrays of shape (d_k, d_k)
        Complete-data information of component k (``tau``-weighted), prior curvature included.

    Returns
    -------
    ndarray of shape (p, p), ``p = K - 1 + sum d_k``, symmetric.

    Notes
    -----
    Complexity: O(u K p^2) time, O(u K p + p^2) memory.
    """
    k_comp = len(pi)
    dims = [g.shape[1] for g in grads]
    n_a = k_comp - 1
    p = n_a + sum(dims)
    starts = n_a + np.concatenate([[0], np.cumsum(dims)]).astype(int)
    u = len(w)
    G = np.zeros((u, k_comp, p))
    eye = np.eye(k_comp)
    G[:, :, :n_a] = (eye - pi[None, :])[None, :, :n_a]
    info = np.zeros((p, p))
    info[:n_a, :n_a] = w.sum() * (np.diag(pi) - np.outer(pi, pi))[:n_a, :n_a]
    for k in range(k_comp):
        sl = slice(starts[k], starts[k + 1])
        G[:, k, sl] = grads[k]
        info[sl, sl] = infos[k]
    wt = w[:, None] * tau
    s = np.einsum("ik,ikp->ip", tau, G)
    info -= np.einsum("ik,ikp,ikq->pq", wt, G, G) - np.einsum("i,ip,iq->pq", w, s, s)
    return 0.5 * (info + info.T)


def reported_jacobian(pi: np.ndarray, jacs: Sequence[np.ndarray]) -> np.ndarray:
    """d(reported parameters) / d phi: the K weights, then each component's reported block.

    ``jacs[k]`` has shape (q_k, d_k): d(reported_k) / d eta_k. Returns shape
    ``(K + sum q_k, K - 1 + sum d_k)``; ``d pi_k / d a_l = pi_k (delta_kl - pi_l)``.
    """
    k_comp = len(pi)
    n_a = k_comp - 1
    rows = [j.shape[0] for j in jacs]
    cols = [j.shape[1] for j in jacs]
    J = np.zeros((k_comp + sum(rows), n_a + sum(cols)))
    J[:k_comp, :n_a] = (pi[:, None] * (np.eye(k_comp) - pi[None, :]))[:, :n_a]
    r0, c0 = k_comp, n_a
    for k in range(k_comp):
        J[r0 : r0 + rows[k], c0 : c0 + cols[k]] = jacs[k]
        r0 += rows[k]
        c0 += cols[k]
    return J


def inverse_information(info: np.ndarray) -> np.ndarray:
    """The inverse of a positive definite information; a one-line ValueError when singular."""
    if info.size == 0:
        return info.copy()
    evals = np.linalg.eigvalsh(info)
    if not evals.min() > 1e-10 * max(evals.max(), 1e-300):
        raise ValueError(
            "the observed information of the mixture is singular (an empty component, two "
            "identical components, or a parameter on its boundary); use the bootstrap"
        )
    return np.linalg.inv(info)
