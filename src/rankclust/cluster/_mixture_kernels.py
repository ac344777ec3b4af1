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

The Plackett-Luce mixture needs no kernel of its own: its E-step and MM M-step call the
K-component functions of :mod:`rankclust.models.plackett_luce` (:func:`stage_pass`,
:func:`mm_wins`, :func:`mm_denominators`, :func:`mm_worths`).
"""

from __future__ import annotations

import numpy as np

from rankclust.models.mallows import _stage_log_qint, _stage_means, _stage_variances

__all__ = [
    "discordance_matrix",
    "length_tables",
    "pair_indicators",
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
