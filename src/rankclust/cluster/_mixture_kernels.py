"""Private vectorised pieces of the ranking mixtures (inputs are trusted, see ``mixture.py``).

The mathematics lives in :mod:`rankclust.models.mallows` (stage-wise moments of the Kendall
statistic) and :mod:`rankclust.rankings` (pairwise counts); this module only arranges it for
``K`` components at once, so that one EM iteration costs a handful of small BLAS calls
instead of ``K`` calls of the public one-component functions (whose argument checks dominate
on compressed data such as the 205 distinct APA ballots).

* :func:`pair_indicators` -- the per-row pairwise count matrices ``A[i, u*m + v] = [u above v
  in row i]`` (``kind="top"``: a present item is above every absent one), so that the
  statistic of every row against ``K`` centres is one product ``A @ D`` and the
  responsibility-weighted count matrices of all components are one product ``A.T @ W``.
* :func:`length_tables` -- ``log psi``, mean and variance of the statistic for every length
  and component, from the stage-wise tables of :mod:`rankclust.models.mallows`.
* :func:`solve_thetas` -- the weighted dispersion equations of all components by a
  safeguarded Newton iteration.
"""

from __future__ import annotations

import numba
import numpy as np

from rankclust.models.mallows import _stage_log_qint, _stage_means, _stage_variances

__all__ = [
    "discordance_matrix",
    "length_tables",
    "pair_indicators",
    "pl_mm_sums",
    "pl_mm_update",
    "pl_mm_worths",
    "pl_pass",
    "solve_thetas",
]


def pair_indicators(ranks: np.ndarray, kind: str) -> np.ndarray:
    """Per-row pairwise indicators, shape (n, m*m): ``[u above v in row i]`` at ``u*m + v``.

    Row ``i`` reshaped to (m, m) is ``R[i].pairwise_counts()`` without weights. For
    ``kind="top"`` an absent item sits below every present one (absent pairs count nothing);
    for ``kind="subset"`` only pairs of present items count. Ties count nothing.

    Complexity: O(n m^2) time and memory.
    """
    n, m = ranks.shape
    present = ranks >= 0
    if kind == "top":
        pos = np.where(present, ranks, m)
        above = present[:, :, None] & (pos[:, :, None] < pos[:, None, :])
    else:
        above = present[:, :, None] & present[:, None, :] & (ranks[:, :, None] < ranks[:, None, :])
    return above.reshape(n, m * m).astype(np.float64)


def discordance_matrix(centers: np.ndarray) -> np.ndarray:
    """``D[u*m + v, k] = [centre k places u below v]``, shape (m*m, K).

    With :func:`pair_indicators` ``A``, ``A @ D`` is the number of discordant pairs of every
    row with every centre (Kendall's distance, the top-t statistic ``s^t`` of Busse et al.,
    or the observed-pairs distance for subset data), and ``sum(C_k * D[:, k])`` is the Kemeny
    cost of centre k for the count matrix ``C_k``.

    Complexity: O(K m^2) time and memory.
    """
    k, m = centers.shape
    below = centers[:, :, None] > centers[:, None, :]
    return below.reshape(k, m * m).T.astype(np.float64)


_TABLES = {"log": _stage_log_qint, "mean": _stage_means, "var": _stage_variances}


def length_tables(
    thetas: np.ndarray, m: int, kind: str, which: tuple[str, ...] = ("log", "mean", "var")
) -> tuple[np.ndarray, ...]:
    """Log-normaliser, mean and variance of the statistic per length and component.

    Returns one array of shape (m + 1, K) per name in ``which`` (``"log"``, ``"mean"``,
    ``"var"``), indexed by the row length ``l``:

    * ``kind="top"``: Busse et al.'s top-l quantities, sums over the stages
      ``k = m-l+1..m`` (``log psi^l``, ``mu_l``, ``v_l``);
    * ``kind="subset"``: the complete Mallows model on the ``l`` observed items, sums over
      ``k = 1..l`` (the observed-pairs likelihood).

    Complexity: O(K m) time and memory.
    """
    th = np.asarray(thetas, dtype=np.float64)
    out = []
    for name in which:
        fn = _TABLES[name]
        table = fn(th, m) if m else np.zeros((len(th), 0))  # (K, m), column k-1 for k = 1..m
        if kind == "top":
            cs = np.cumsum(table[:, ::-1], axis=1)
        else:
            cs = np.cumsum(table, axis=1)
        full = np.zeros((len(th), m + 1))
        full[:, 1:] = cs
        out.append(full.T)
    return tuple(out)


def solve_thetas(
    counts: np.ndarray,
    stats: np.ndarray,
    m: int,
    kind: str,
    theta0: np.ndarray,
    theta_max: float,
    *,
    xtol: float = 1e-12,
    max_iter: int = 100,
) -> np.ndarray:
    """Roots of ``g_k(theta) = sum_l counts[k, l] mu_l(theta) - stats[k]`` for all k.

    ``mu_l`` is strictly decreasing (its derivative is ``-v_l < 0``), so each root is unique:
    0 when ``stats[k]`` reaches the uniform value ``sum_l counts[k, l] mu_l(0)``,
    ``theta_max`` when ``g_k(theta_max) >= 0`` (e.g. all weight at the centre, where the MLE
    is infinite). Newton steps from ``theta0`` are kept inside a shrinking bracket
    ``[lo, hi]`` (bisection when a step leaves it), which converges for any start.

    Parameters
    ----------
    counts : ndarray, shape (K, m + 1)
        Weighted number of rows of each length per component.
    stats : ndarray, shape (K,)
        Weighted sum of the statistic per component.

    Complexity: O(K m) per iteration; a few iterations from a warm start.
    """
    k_comp = counts.shape[0]
    theta = np.clip(np.asarray(theta0, dtype=np.float64), 0.0, theta_max).copy()
    scale = np.maximum(counts.sum(axis=1), 1e-300)
    (mu_ends,) = length_tables(np.array([0.0, theta_max]), m, kind, ("mean",))
    upper = counts @ mu_ends[:, 0]
    low_end = counts @ mu_ends[:, 1]
    out = np.empty(k_comp)
    at_max = (stats <= low_end) | (upper <= 0)
    at_zero = ~at_max & (stats >= upper)
    out[at_max] = theta_max
    out[at_zero] = 0.0
    todo = np.flatnonzero(~at_max & ~at_zero)
    if todo.size == 0:
        return out
    c = counts[todo]
    s = stats[todo]
    th = theta[todo]
    th = np.where((th <= 0) | (th >= theta_max), 1.0, th)
    lo = np.zeros(todo.size)
    hi = np.full(todo.size, theta_max)
    active = np.ones(todo.size, dtype=bool)
    for _ in range(max_iter):
        mu, var = length_tables(th, m, kind, ("mean", "var"))
        g = np.einsum("kl,lk->k", c, mu) - s
        dg = -np.einsum("kl,lk->k", c, var)
        lo = np.where(g > 0, th, lo)
        hi = np.where(g < 0, th, hi)
        small_g = np.abs(g) <= 1e-14 * scale[todo]
        with np.errstate(divide="ignore", invalid="ignore"):
            new = th - np.where(dg < 0, g / dg, np.inf)
        # a Newton step that leaves the bracket is replaced by bisection
        bad = ~np.isfinite(new) | (new < lo) | (new > hi)
        new = np.where(bad, 0.5 * (lo + hi), new)
        new = np.where(small_g, th, new)
        done = small_g | (np.abs(new - th) <= xtol * np.maximum(1.0, th))
        th = np.where(active, new, th)
        active &= ~done
        if not active.any():
            break
    out[todo] = th
    return out


def _pl_pass(order, in_set, active, worths, loglik, exposure):  # pragma: no cover - compiled
    """Plackett-Luce log-likelihood and MM exposures of every row under K worth vectors.

    ``order``, ``in_set``, ``active`` (u, m) are the compiled choice stages of
    :func:`rankclust.models.plackett_luce.choice_stages`; ``worths`` (K, m) are positive
    (scaled to mean 1 per component by the caller). Writes ``loglik[i, k] = sum over active
    stages s of log(worth of the chosen item / S_is)`` with ``S_is`` the worth still in the
    choice set, and ``exposure[i, k, t] = sum_{active s <= t} 1 / S_is`` for positions ``t``
    in the choice sets (0 elsewhere): the coefficient of item ``order[i, t]`` in Hunter's MM
    denominator. One pass, O(u K m).
    """
    u, m = order.shape
    n_comp = worths.shape[0]
    s_rev = np.empty(m)
    for k in range(n_comp):
        for i in range(u):
            acc = 0.0
            for t in range(m - 1, -1, -1):
                if in_set[i, t]:
                    acc += worths[k, order[i, t]]
                s_rev[t] = acc
            ll = 0.0
            expo = 0.0
            for t in range(m):
                if active[i, t]:
                    ll += np.log(worths[k, order[i, t]]) - np.log(s_rev[t])
                    expo += 1.0 / s_rev[t]
                exposure[i, k, t] = expo if in_set[i, t] else 0.0
            loglik[i, k] = ll


_nb_pl_pass = numba.njit(_pl_pass, cache=True, nogil=True)


def pl_pass(stages, worths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(loglik (u, K), exposure (u, K, m))`` of :func:`_pl_pass` for compiled stages."""
    u, m = stages.order.shape
    worths = np.ascontiguousarray(worths, dtype=np.float64)
    loglik = np.empty((u, worths.shape[0]))
    exposure = np.empty((u, worths.shape[0], m))
    _nb_pl_pass(
        np.ascontiguousarray(stages.order, dtype=np.int64),
        np.ascontiguousarray(stages.in_set),
        np.ascontiguousarray(stages.active),
        worths,
        loglik,
        exposure,
    )
    return loglik, exposure


def pl_mm_sums(stages, row_w: np.ndarray, exposure: np.ndarray) -> tuple[np.ndarray, ...]:
    """Hunter's MM sufficient statistics of every component: ``(wins, denoms)``, each (K, m).

    ``wins[k, c] = sum_i row_w[i, k] [c chosen at an active stage of row i]`` and
    ``denoms[k, c] = sum_i row_w[i, k] exposure[i, k, t_ic]`` for the exposures of
    :func:`pl_pass`. Both are sums over rows, so chunks of rows can be summed (the Dask
    back-end); :func:`pl_mm_update` turns them into the update.

    Complexity: O(u K m) time and memory.
    """
    _u, m = stages.order.shape
    n_comp = row_w.shape[1]
    chosen = stages.order[stages.active]
    rows = np.nonzero(stages.active)[0]
    wins = np.empty((n_comp, m))
    denoms = np.empty((n_comp, m))
    flat_order = stages.order.ravel()
    for k in range(n_comp):
        wins[k] = np.bincount(chosen, weights=row_w[rows, k], minlength=m)
        denoms[k] = np.bincount(
            flat_order, weights=(row_w[:, k, None] * exposure[:, k, :]).ravel(), minlength=m
        )
    return wins, denoms


def pl_mm_worths(wins: np.ndarray, denoms: np.ndarray, alpha: float) -> np.ndarray:
    """``v = (wins + alpha) / (denoms + alpha)`` per component, scaled to mean 1, (K, m)."""
    v = (wins + alpha) / (denoms + alpha)
    return v / v.mean(axis=1, keepdims=True)


def pl_mm_update(stages, row_w: np.ndarray, exposure: np.ndarray, alpha: float) -> np.ndarray:
    """One MM update of the worths of every component (Hunter 2004, eq. 30), mean 1.

    ``row_w`` (u, K) are the weights ``w_i q_ik`` of the distinct rows and ``exposure`` the
    output of :func:`pl_pass` at the current worths (scaled to mean 1). The update is
    ``v_c <- (alpha + W_c) / (alpha + D_c)``, the step of
    :func:`rankclust.models.plackett_luce.fit_scores` for all K components at once
    (:func:`pl_mm_sums` then :func:`pl_mm_worths`).

    Complexity: O(u K m) time and memory.
    """
    wins, denoms = pl_mm_sums(stages, row_w, exposure)
    return pl_mm_worths(wins, denoms, alpha)
