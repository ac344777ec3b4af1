"""Vector-space embeddings of chains (Ukkonen 2011, Section 3).

Two maps turn chains into vectors that any scikit-learn clusterer accepts:

* :func:`hypersphere_embedding` -- the centred Borda vector of a chain on the unit sphere of
  R^m (Definition 4, Eq. 11): proportional to the mean image of all linear extensions of the
  chain (Theorem 5);
* :func:`graph_embedding` -- the chain's row of the agreement-minus-disagreement adjacency
  matrix ``G_a - G_d`` (Definition 3), an n x n sparse matrix.

:func:`planted_partition_pq` gives the edge probabilities of the agreement graph under the
planted model (Eqs. 6-7, Theorem 2).
"""

from __future__ import annotations

from math import comb, factorial
from typing import Any

import numpy as np
import scipy.sparse as sp

from rankclust.cluster._base import chain_orders, check_chains

__all__ = ["graph_embedding", "hypersphere_embedding", "planted_partition_pq"]


def hypersphere_embedding(R: Any, *, sparse: bool = False) -> np.ndarray | sp.csr_matrix:
    """Map chains to the unit sphere of R^m (Ukkonen 2011, Definition 4).

    ``f_pi(u) = pi(u) - (|pi| + 1) / 2`` for items of the chain (``pi(u)`` its 1-based
    position), 0 for the other items, divided by its Euclidean norm. A chain and its reversal
    map to antipodal points. Chains with fewer than two items map to the zero vector.

    Parameters
    ----------
    R : Rankings or array-like of shape (n, m)
        Chains (``kind="subset"``, no ties).
    sparse : bool, default=False
        Return a CSR matrix with one stored entry per present item.

    Returns
    -------
    F : ndarray of float64 of shape (n, m), or csr_matrix

    Notes
    -----
    By Theorem 5, ``sum over the linear extensions tau of pi of f_tau = (m+1)!/(|pi|+1)! f_pi``,
    so the vector is the normalised mean of the images of all total orders compatible with
    the chain, computed without enumerating them. Squared Euclidean distance between images is
    twice the cosine distance, so Euclidean k-means on ``F`` assigns like cosine k-means.

    Complexity: O(n m) time and memory (O(sum_i l_i) with ``sparse=True``).

    References
    ----------
    A. Ukkonen, "Clustering algorithms for chains", JMLR 12 (2011), Section 3.2, Eqs. 10-11.

    Examples
    --------
    The total order (5, 1, 6, 3, 7, 2, 8, 4) of Section 3.2 (items renamed 0..7):

    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[4, 0, 5, 2, 6, 1, 7, 3]], n_items=8)
    >>> hypersphere_embedding(R).round(2)
    array([[-0.39,  0.23, -0.08,  0.54, -0.54, -0.23,  0.08,  0.39]])
    """
    R = check_chains(R)
    ranks = R.ranks
    lengths = R.lengths.astype(np.float64)
    # ||f_pi||^2 = sum_{p=1..l} (p - (l+1)/2)^2 = l (l^2 - 1) / 12
    norm = np.sqrt(lengths * (lengths**2 - 1.0) / 12.0)
    scale = np.divide(1.0, norm, out=np.zeros_like(norm), where=norm > 0)
    centre = (lengths - 1.0) / 2.0
    if sparse:
        rows, cols = np.nonzero(ranks >= 0)
        vals = (ranks[rows, cols] - centre[rows]) * scale[rows]
        return sp.csr_matrix((vals, (rows, cols)), shape=R.shape)
    present = ranks >= 0
    F = ranks - centre[:, None]
    F *= scale[:, None]
    F[~present] = 0.0
    return F


def _pair_indicator(R: Any) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """Sparse B (n, m*m) with B[i, u*m+v] = 1 iff u precedes v in chain i, and B reversed."""
    orders, lengths = chain_orders(R)
    m = R.n_items
    n, width = orders.shape
    a, b = np.triu_indices(width, k=1)
    valid = b[None, :] < lengths[:, None]  # (n, n_pairs)
    rows = np.broadcast_to(np.arange(n)[:, None], valid.shape)[valid]
    u = orders[:, a][valid].astype(np.int64)
    v = orders[:, b][valid].astype(np.int64)
    data = np.ones(rows.size, dtype=np.int32)
    B = sp.csr_matrix((data, (rows, u * m + v)), shape=(n, m * m))
    Brev = sp.csr_matrix((data, (rows, v * m + u)), shape=(n, m * m))
    return B, Brev


def graph_embedding(
    R: Any,
    *,
    max_rankings: int = 20000,
    chunk_size: int = 2000,
    diagonal: int = 0,
) -> sp.csr_matrix:
    """Rows of the agreement-minus-disagreement graph ``G_a - G_d`` (Ukkonen 2011, Def. 3).

    Chains i and j *agree* if some pair is ordered the same way in both and *disagree* if some
    pair is ordered oppositely. ``G_a`` links chains that agree and do not disagree (they
    share at least two items, ordered identically); ``G_d`` links chains that disagree and do
    not agree (shared items in exactly reversed order). Row i of the result is chain i's
    representation in R^n, with entries in {-1, 0, +1}.

    Parameters
    ----------
    R : Rankings or array-like of shape (n, m)
        Chains (``kind="subset"``, no ties).
    max_rankings : int, default=20000
        Size guard: the matrix is n x n, possibly dense (many items shared); raise a
        ``ValueError`` above this many chains.
    chunk_size : int, default=2000
        Rows computed per sparse product (bounds temporary memory to O(chunk_size * n)).
    diagonal : {0, 1}, default=0
        Value on the diagonal (a chain with two or more items trivially agrees with itself; the
        paper's graph is simple, hence 0).

    Returns
    -------
    G : csr_matrix of int8, shape (n, n)

    Notes
    -----
    With ``B`` the sparse n x m^2 indicator of ordered pairs, ``B B^T`` counts concordant and
    ``B B_rev^T`` discordant shared pairs.

    Complexity: O(n^2 l^2) time in the worst case, O(n^2) memory for the result (less when
    chains rarely share two items).

    References
    ----------
    A. Ukkonen, "Clustering algorithms for chains", JMLR 12 (2011), Section 3.1.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2], [1, 2, 3], [2, 1, 4], [0, 2, 1], [5, 6]])
    >>> graph_embedding(R).toarray()
    array([[ 0,  1, -1,  0,  0],
           [ 1,  0, -1, -1,  0],
           [-1, -1,  0,  1,  0],
           [ 0, -1,  1,  0,  0],
           [ 0,  0,  0,  0,  0]], dtype=int8)
    """
    R = check_chains(R)
    n = R.n_rankings
    if n > max_rankings:
        raise ValueError(
            f"graph_embedding builds an n x n matrix; n={n} exceeds max_rankings={max_rankings}"
            " (raise it if memory allows, or use hypersphere_embedding, which is O(n m))"
        )
    if diagonal not in (0, 1):
        raise ValueError(f"diagonal must be 0 or 1, got {diagonal!r}")
    B, Brev = _pair_indicator(R)
    Bt = B.T.tocsr()
    Brevt = Brev.T.tocsr()
    blocks = []
    for start in range(0, n, chunk_size):
        rows = B[start : start + chunk_size]
        conc = (rows @ Bt).tocsr()
        disc = (rows @ Brevt).tocsr()
        # +1 where concordant only, -1 where discordant only, 0 where both (they cancel)
        sign = (conc > 0).astype(np.int8) - (disc > 0).astype(np.int8)
        blocks.append(sp.csr_matrix(sign, dtype=np.int8))
    G = sp.vstack(blocks, format="csr") if blocks else sp.csr_matrix((n, n), dtype=np.int8)
    # every chain with >= 2 items is concordant with itself: replace the diagonal
    diag = np.where(R.lengths >= 2, diagonal, 0) - G.diagonal()
    G = (G + sp.diags_array(diag.astype(np.int8), format="csr", dtype=np.int8)).tocsr()
    G.eliminate_zeros()
    return G.astype(np.int8)


def planted_partition_pq(n_items: int, length: int) -> tuple[float, float, float]:
    """Edge probabilities of the agreement graph under the planted model (Eqs. 6-7).

    Chains are uniformly random ``length``-subsets of a total order; two chains from the same
    component are linked in ``G_a`` with probability ``p``, from different (independent
    uniformly random) components with probability ``q``.

    Parameters
    ----------
    n_items : int
        m.
    length : int
        Chain length l (``2 <= l <= m``).

    Returns
    -------
    p, q, delta : float
        ``delta = p - q``. Theorem 2: for ``l < m/2``, ``delta < p <= 2 l^2 / m`` (the proof's
        constant; the paper's worked example uses ``l^2/m``).

    Notes
    -----
    Complexity: O(l) time.

    Examples
    --------
    >>> p, q, d = planted_partition_pq(200, 5)
    >>> round(p, 5), round(q, 5), round(d, 5)
    (0.00487, 0.00241, 0.00246)
    """
    m, ell = int(n_items), int(length)
    if not 2 <= ell <= m:
        raise ValueError(f"need 2 <= length <= n_items, got length={ell}, n_items={m}")
    total = comb(m, ell)
    p = q = 0.0
    for i in range(2, ell + 1):
        ways = comb(ell, i) * comb(m - ell, ell - i) / total
        p += ways
        q += ways / factorial(i)
    return p, q, p - q
