"""Kendall-Mallows likelihood of rankings with ties: a tied bucket is an unknown order.

Modelling choice: the Mallows model is a distribution over complete rankings; a ranking with
ties (a bucket order) is read as a *coarsened* observation -- the order inside each bucket was
not recorded -- so its probability is the total probability of the complete rankings
consistent with it (its linear extensions). For Kendall's distance this has a closed form.
A linear extension ``pi`` of a bucket order ``sigma`` orders the pairs in different buckets
as ``sigma`` does and the pairs inside a bucket freely, and the inversions of ``pi`` with
respect to the centre split into those two kinds, so

    ``sum_{pi in L(sigma)} q^{d_K(pi, c)} = q^{D(sigma, c)} prod_B [|B|]_q!``,

``q = e^-theta``, ``D`` the discordant pairs in different buckets (ties count 0, which is
:func:`rankclust.distances.kendall_distances` of a tied ranking) and
``[b]_q! = prod_{k<=b} [k]_q = psi_b(theta)`` the Mallows normaliser of ``b`` items (the sum
of ``q^inversions`` over the ``b!`` orders of a bucket). Hence, per row,

    ``log P(sigma) = -theta D - log psi_m(theta) + sum_B log psi_{|B|}(theta)``.

A top-t list (``kind="top"``) is the same with the absent items as one more bucket at the
bottom, which for untied lists is Busse et al.'s top-t likelihood (``psi_m / psi_{m-t} =
psi^t``). For a fixed centre the log-likelihood is concave in theta, and its score equation is

    ``sum_i w_i (mu_m(theta) - sum_{B in sigma_i} mu_{|B|}(theta)) = sum_i w_i D_i``,

with ``mu_b`` the expected Kendall distance of ``b`` items; it is solved by the package's one
dispersion solver (:func:`rankclust._mallows_math.solve_thetas`, ``kind="subset"`` tables
with a negative count per bucket). Its observed information is
``sum_i w_i (v_m - sum_B v_{|B|})`` (``v_b`` the variance of the distance of ``b`` items),
non-negative because a bucket order's stages are a subset of the complete order's. The centre
enters only through ``D``, so the maximum-likelihood centre is the Kemeny ranking of the
*strict* pairwise counts (a tied pair costs nothing), which is what
:meth:`rankclust.Rankings.pairwise_counts` gives for tied rankings.
"""

from __future__ import annotations

import numpy as np

from rankclust._mallows_math import length_tables, solve_thetas, tail_start
from rankclust.distances import kendall_distances
from rankclust.rankings import Rankings

__all__ = [
    "break_ties",
    "bucket_size_counts",
    "tied_loglik",
    "tied_theta_information",
    "tied_theta_mle",
]


def bucket_size_counts(R: Rankings) -> np.ndarray:
    """Number of buckets of each size per row, shape (n, m + 1) (column = size).

    The buckets are the tied groups of present items, plus, for ``kind="top"``, the absent
    items as one bucket at the bottom (their order is unknown). Complexity O(n m).
    """
    ranks = R.ranks.astype(np.int64)  # the storage dtype may be narrower
    n, m = ranks.shape
    rows = np.repeat(np.arange(n), m)
    flat = ranks.ravel()
    keep = flat >= 0
    sizes = np.zeros((n, m + 1), dtype=np.int64)  # sizes[i, b] = items in bucket b of row i
    np.add.at(sizes, (rows[keep], flat[keep]), 1)
    out = np.zeros((n, m + 1))
    for i_col in range(m + 1):  # histogram of the bucket sizes per row
        s = sizes[:, i_col]
        nz = s > 0
        np.add.at(out, (np.flatnonzero(nz), s[nz]), 1.0)
    if R.kind == "top":
        absent = m - (ranks >= 0).sum(axis=1)
        nz = absent > 0
        np.add.at(out, (np.flatnonzero(nz), absent[nz]), 1.0)
    return out


def tied_loglik(R: Rankings, center: np.ndarray, theta: float) -> np.ndarray:
    """Log-probability of complete or top-t rankings with ties (closed form, module notes).

    Every row must be complete (all items present) or ``R.kind == "top"``. Trusts its
    input. Complexity O(n m^2) (the distances).
    """
    m = R.n_items
    (log_psi,) = length_tables(np.array([float(theta)]), m, "subset", ("log",))
    log_psi = log_psi[:, 0]  # log psi_b for b = 0..m
    stat = kendall_distances(R, center).astype(np.float64)
    return -theta * stat - log_psi[m] + bucket_size_counts(R) @ log_psi


def _theta_counts(R: Rankings, w: np.ndarray) -> np.ndarray:
    """Coefficients ``a`` (m + 1,) of ``sum_b a_b mu_b`` in the score equation."""
    m = R.n_items
    counts = -(w @ bucket_size_counts(R))
    counts[m] += w.sum()
    counts[:2] = 0.0  # mu_0 = mu_1 = 0
    return counts


def tied_theta_mle(
    R: Rankings, center: np.ndarray, w: np.ndarray, theta_max: float, xtol: float
) -> float:
    """Maximum-likelihood theta of complete or top-t rankings with ties, for a fixed centre.

    Solves the score equation of the module notes with
    :func:`rankclust._mallows_math.solve_thetas`; ``theta_max`` when no pair of different
    buckets exists or every such pair agrees with the centre. Trusts its input.
    """
    m = R.n_items
    counts = _theta_counts(R, w)[None, :]
    stats = np.array([float(w @ kendall_distances(R, center))])
    start = tail_start(counts, stats, m, "subset")
    return float(
        solve_thetas(
            counts, stats, m, "subset", start, theta_max, xtol=xtol, scale=np.array([w.sum()])
        )[0]
    )


def tied_theta_information(R: Rankings, theta: float, w: np.ndarray) -> float:
    """Observed (= expected) information of theta for complete/top rankings with ties."""
    (var,) = length_tables(np.array([float(theta)]), R.n_items, "subset", ("var",))
    return float(_theta_counts(R, w) @ var[:, 0])


def break_ties(R: Rankings, center: np.ndarray) -> Rankings:
    """Order the items of every bucket as the centre does (absent items stay absent).

    The most probable linear extension of a bucket order under a Mallows centre: sorting a
    bucket into centre order never adds an inversion, whatever lies between its items (an
    exchange argument), so with Proposition 1 of Cheng et al. (2009) it gives the most
    probable completion of a tied subset ranking. Complexity O(n m log m).
    """
    ranks = R.ranks.astype(np.int64)
    n, m = ranks.shape
    present = ranks >= 0
    key = np.where(present, ranks * m + np.asarray(center, dtype=np.int64)[None, :], m * m + 1)
    order = np.argsort(key, axis=1, kind="stable")
    out = np.empty_like(ranks)
    np.put_along_axis(out, order, np.broadcast_to(np.arange(m), (n, m)), axis=1)
    out = np.where(present, out, -1)
    weights = R.weights if R.is_weighted else None
    return Rankings._from_trusted(out, kind=R.kind, weights=weights, items=R.items)
