"""Private vectorised pieces of the ranking mixtures (inputs are trusted, see ``mixture.py``).

The mathematics lives in :mod:`rankclust._mallows_math` (stage-wise moments of the
Kendall statistic, the dispersion solver) and :mod:`rankclust.rankings` (pairwise counts); this module only arranges it for
``K`` components at once, so that one EM iteration costs a handful of small BLAS calls
instead of ``K`` calls of the public one-component functions (whose argument checks dominate
on compressed data such as the 205 distinct APA ballots).

* :func:`order_statistics`, :func:`order_logliks` and :func:`order_counts` -- the statistic
  (or directly the Mallows log-likelihood) of every row against ``K`` centres and the
  responsibility-weighted count matrices of all components, compiled from the orderings of
  the rows (:func:`row_orders`): O(u K t) statistics for lists of length t over at most 64
  items (O(u K t^2) beyond), O(u K t^2) counts, no (u, m^2) matrix
  (Irish Meath, 25,101 distinct top lists of 14: about 10x the products below).
* :func:`pair_indicators` -- the per-row pairwise count matrices ``A[i, u*m + v] = [u above v
  in row i]`` (``kind="top"``: a present item is above every absent one), so that the
  statistic of every row against ``K`` centres is one product ``A @ D`` and the
  responsibility-weighted count matrices of all components are one product ``A.T @ W``
  (rows with ties, which have no ordering).
* :func:`responsibilities` -- the E-step's log-sum-exp and softmax in one compiled pass.

The row-wise passes (statistics, log-likelihoods, softmax) share their rows out over the
threads of :mod:`rankclust._row_threads`; the count matrices, a sum over rows, stay on one
thread, so no sum is reordered and the results are the same bits on any number of threads.
* :func:`length_tables` and :func:`solve_thetas` -- ``log psi``, mean and variance of the
  statistic for every length and component, and the weighted dispersion equations of all
  components (a safeguarded Newton iteration); both live in
  :mod:`rankclust._mallows_math`, the one home of the stage-wise mathematics, and are
  re-exported here.

The Plackett-Luce mixture needs no kernel of its own: its E-step and MM M-step call the
K-component functions of :mod:`rankclust.models.plackett_luce` (:func:`stage_pass`,
:func:`mm_sums`, :func:`mm_worths`).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

# the dispersion mathematics has one home; re-exported here for the mixture's E/M-steps
from rankclust._mallows_math import length_tables, solve_thetas
from rankclust._row_threads import run_blocks, split_rows

__all__ = [
    "MASK_ITEMS",
    "discordance_matrix",
    "length_tables",
    "order_counts",
    "order_logliks",
    "order_statistics",
    "pair_indicators",
    "responsibilities",
    "row_orders",
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


# --------------------------------------------------------------------------------------------
# compiled statistics from the orderings (no pair matrix)
# --------------------------------------------------------------------------------------------
def row_orders(ranks: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """Items of every row by position (present items first, then the absent ones by index),
    or None when a row has ties (the ranks of its items are not 0..t-1 for length t).

    The input of :func:`order_statistics` and :func:`order_counts`.

    Complexity: O(n m log m) time, O(n m) memory.
    """
    m = ranks.shape[1]
    orders = np.argsort(np.where(ranks >= 0, ranks, m), axis=1, kind="stable")
    listed = np.arange(m)[None, :] < np.asarray(lengths)[:, None]
    strict = np.take_along_axis(ranks, orders, axis=1) == np.arange(m)[None, :]
    if not np.all(strict | ~listed):
        return None
    return orders.astype(np.int64)


#: Centres over at most this many items keep the items seen so far in one 64-bit mask.
MASK_ITEMS = 64


@intrinsic
def _popcount(typingctx, x):  # pragma: no cover - typed and lowered by numba
    """The number of set bits of a uint64 (LLVM's ``ctpop``: one instruction where the
    processor has one; an exact integer on every processor)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@numba.njit(cache=True, nogil=True, inline="always")
def _row_statistic(orders, i, t, top, centers, k, pos):  # pragma: no cover - compiled
    """The statistic of row ``i`` (a list of length ``t``) against centre ``k``.

    Item ``pi_j`` at centre position ``c_j``: the earlier-listed items that the centre also
    places above it are concordant; the rest of the centre's ``c_j`` items above it (top
    list: listed later or absent) or of the ``j`` earlier-listed ones (subset: only listed
    items count) are discordant. For at most :data:`MASK_ITEMS` items the centre positions
    seen so far are bits of one mask and that count is one popcount (O(t) per row, 2.3x
    faster on Irish Meath than the pairwise loop kept for larger ``m``, same integers).
    """
    s = 0
    if centers.shape[1] <= MASK_ITEMS:
        one = np.uint64(1)
        seen = np.uint64(0)
        for j in range(t):
            cj = centers[k, orders[i, j]]
            bit = one << np.uint64(cj)
            above = np.int64(_popcount(seen & (bit - one)))
            seen |= bit
            s += (cj if top else j) - above
        return s
    for j in range(t):
        pos[j] = centers[k, orders[i, j]]
    for j in range(t):
        cj = pos[j]
        above = 0  # earlier-listed items the centre also places above item j
        for jj in range(j):
            above += pos[jj] < cj
        s += (cj if top else j) - above
    return s


@numba.njit(cache=True, nogil=True)
def _order_statistics(orders, lengths, top, centers, out):  # pragma: no cover
    u, m = orders.shape
    pos = np.empty(m, dtype=np.int64)
    for i in range(u):
        for k in range(centers.shape[0]):
            out[i, k] = _row_statistic(orders, i, lengths[i], top, centers, k, pos)


@numba.njit(cache=True, nogil=True)
def _order_logliks(orders, lengths, top, centers, neg_thetas, log_z, out):  # pragma: no cover
    u, m = orders.shape
    pos = np.empty(m, dtype=np.int64)
    for i in range(u):
        t = lengths[i]
        for k in range(centers.shape[0]):
            s = _row_statistic(orders, i, t, top, centers, k, pos)
            out[i, k] = neg_thetas[k] * s - log_z[t, k]


def _int64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def order_statistics(orders: np.ndarray, lengths: np.ndarray, top: bool, centers: np.ndarray):
    """``A @ discordance_matrix(centers)`` of :func:`pair_indicators` ``A``, from the orderings.

    Row i, component k: the pairs (u above v in row i) that centre k places the other way.
    For a top list item ``pi_j`` is above every item not listed before it, and centre k
    places ``c_k(pi_j)`` items above it (``c_k`` its positions), of which those listed
    before ``pi_j`` are concordant; for a subset ranking only listed items count. O(u K t)
    for lists of length t over at most 64 items (O(u K t^2) beyond) instead of the
    O(u K m^2) product, and no (u, m^2) matrix. Rows
    are shared out over :mod:`rankclust._row_threads` (exact: integers per row).

    Returns ndarray of float64, shape (u, K) (integers, exact).
    """
    out = np.empty((orders.shape[0], centers.shape[0]))
    lengths, centers = _int64(lengths), _int64(centers)

    def block(lo: int, hi: int) -> None:
        _order_statistics(orders[lo:hi], lengths[lo:hi], top, centers, out[lo:hi])

    run_blocks(block, split_rows(orders.shape[0]))
    return out


def order_logliks(
    orders: np.ndarray,
    lengths: np.ndarray,
    top: bool,
    centers: np.ndarray,
    thetas: np.ndarray,
    log_z: np.ndarray,
) -> np.ndarray:
    """``-thetas * order_statistics(...) - log_z[lengths]`` in one compiled pass, shape (u, K):
    the Mallows log-likelihood of every row under every component (``log_z`` (m + 1, K),
    the log-normaliser per list length, :func:`length_tables`). The same floating-point
    operations as the numpy expression, so the same bits, without its (u, K) temporaries.

    Complexity: O(u K t) time (O(u K t^2) over more than 64 items), O(u K) memory.
    """
    out = np.empty((orders.shape[0], centers.shape[0]))
    lengths, centers = _int64(lengths), _int64(centers)
    neg_thetas = -np.ascontiguousarray(thetas, dtype=np.float64)
    log_z = np.ascontiguousarray(log_z, dtype=np.float64)

    def block(lo: int, hi: int) -> None:
        _order_logliks(orders[lo:hi], lengths[lo:hi], top, centers, neg_thetas, log_z, out[lo:hi])

    run_blocks(block, split_rows(orders.shape[0]))
    return out


@numba.njit(cache=True, nogil=True)
def _order_counts(orders, lengths, wq, before, listed, by_length):  # pragma: no cover
    u = orders.shape[0]
    k_comp = wq.shape[1]
    for i in range(u):
        t = lengths[i]
        for k in range(k_comp):
            by_length[t, k] += wq[i, k]
        for j in range(t):
            a = orders[i, j]
            for k in range(k_comp):
                listed[a, k] += wq[i, k]
            for jj in range(j + 1, t):
                b = orders[i, jj]
                for k in range(k_comp):
                    before[a, b, k] += wq[i, k]


def order_counts(
    orders: np.ndarray, lengths: np.ndarray, top: bool, wq: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(A.T @ wq).T`` reshaped (K, m, m) for :func:`pair_indicators` ``A``, from the
    orderings: the weighted pairwise counts ``C_k[u, v] = sum_i wq[i, k] [u above v in i]``;
    and the weight of each list length per component, ``N[k, l] = sum_{i: t_i = l} wq[i, k]``
    (K, m + 1), from the same pass (the same sums as ``np.bincount``, in the same order).

    Only the pairs of listed items are visited (t(t-1)/2 for a list of length t): for a top
    list, "u above v" is "u listed" minus "v listed before u", so
    ``C_k[u, v] = L_k[u] - B_k[v, u]`` off the diagonal, with ``L_k[u]`` the weight of the
    lists holding u and ``B_k`` the counts among listed items (the subset counts). O(u K t^2)
    instead of O(u K m^2), and no (u, m^2) matrix.
    """
    m = orders.shape[1]
    k_comp = wq.shape[1]
    lengths = _int64(lengths)
    wq = np.ascontiguousarray(wq, dtype=np.float64)
    # one thread: the components are the innermost loop of the kernel, so sharing them out
    # leaves every thread the whole walk over the pairs (measured slower on Meath, K = 4),
    # and sharing the rows out would reorder the sums
    before = np.zeros((m, m, k_comp))
    listed = np.zeros((m, k_comp))
    by_length = np.zeros((m + 1, k_comp))
    _order_counts(orders, lengths, wq, before, listed, by_length)
    counts = np.ascontiguousarray(before.transpose(2, 0, 1))
    if top:
        counts = listed.T[:, :, None] - counts.transpose(0, 2, 1)
        counts[:, np.arange(m), np.arange(m)] = 0.0
    return counts, np.ascontiguousarray(by_length.T)


@numba.njit(cache=True, nogil=True)
def _responsibilities(loglik, log_weights, resp, row_ll):  # pragma: no cover
    u, k_comp = loglik.shape
    for i in range(u):
        mx = -np.inf
        for k in range(k_comp):
            x = loglik[i, k] + log_weights[k]
            resp[i, k] = x
            if x > mx:
                mx = x
        acc = 0.0
        for k in range(k_comp):
            e = np.exp(resp[i, k] - mx)
            resp[i, k] = e
            acc += e
        row_ll[i] = mx + np.log(acc)
        for k in range(k_comp):
            resp[i, k] /= acc


def responsibilities(loglik: np.ndarray, log_weights: np.ndarray) -> tuple:
    """The E-step in one compiled pass: ``(resp, row_ll)`` of the joint
    ``loglik + log_weights`` (u, K): ``row_ll = logsumexp_k(joint)`` (with the row maximum
    taken out) and ``resp = softmax_k(joint)`` (one exponential per entry). The numpy expression needs five
    temporaries of shape (u, K).

    Complexity: O(u K) time.
    """
    loglik = np.ascontiguousarray(loglik, dtype=np.float64)
    resp = np.empty_like(loglik)
    row_ll = np.empty(loglik.shape[0])
    log_weights = np.ascontiguousarray(log_weights, dtype=np.float64)

    def block(lo: int, hi: int) -> None:
        _responsibilities(loglik[lo:hi], log_weights, resp[lo:hi], row_ll[lo:hi])

    run_blocks(block, split_rows(loglik.shape[0]))
    return resp, row_ll
