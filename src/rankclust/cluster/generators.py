"""Synthetic chains with a planted clustering (Ukkonen 2011, Sections 3.1.2 and 5.2)."""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from rankclust.cluster._base import trusted_rankings
from rankclust.rankings import Rankings

__all__ = ["make_planted_chains"]


def make_planted_chains(
    n_samples: int = 1000,
    n_items: int = 20,
    length: int | tuple[int, int] = 5,
    n_clusters: int = 2,
    *,
    n_buckets: int = 10,
    balanced: bool = False,
    return_centers: bool = False,
    random_state: Any = None,
    chunk_size: int = 100_000,
) -> tuple[Rankings, np.ndarray] | tuple[Rankings, np.ndarray, Rankings]:
    """Chains drawn from a mixture of bucket orders (the generator of Ukkonen 2011, §5.2).

    Each of the ``n_clusters`` components is a bucket order: a uniformly random permutation of
    the items cut into ``n_buckets`` consecutive buckets of (near) equal size. A chain picks a
    component, a uniform linear extension of it (an independent shuffle inside each bucket),
    and a uniformly random subset of ``length`` items, and is the extension restricted to that
    subset.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of chains n.
    n_items : int, default=20
        Number of items m.
    length : int or (int, int), default=5
        Chain length l, or an inclusive range ``(l_min, l_max)`` drawn uniformly per chain.
    n_clusters : int, default=2
        Number of planted components k*.
    n_buckets : int, default=10
        Buckets per component, capped at ``n_items`` (``n_buckets >= n_items`` gives total
        orders).
    balanced : bool, default=False
        If True, components get (near) equal numbers of chains in random order; otherwise each
        chain picks its component uniformly (multinomial sizes, as in the paper).
    return_centers : bool, default=False
        Also return the components as bucket orders.
    random_state : int, RandomState instance or None, default=None
    chunk_size : int, default=100000
        Chains generated per vectorised block (bounds temporary memory to O(chunk_size m)).

    Returns
    -------
    R : Rankings of kind "subset", shape (n_samples, n_items)
    labels : ndarray of int64, shape (n_samples,)
        Planted component of each chain.
    centers : Rankings, shape (n_clusters, n_items)
        Only with ``return_centers``: row j ranks every item at its bucket index (ties within
        a bucket).

    Notes
    -----
    Choices the paper leaves open (decisions.md U1): equal bucket sizes, random item-to-bucket
    assignment, uniform component choice, sampling without replacement.

    Complexity: O(n m log m) time, O(n m) memory for the output.

    References
    ----------
    A. Ukkonen, "Clustering algorithms for chains", JMLR 12 (2011), Sections 3.1.2, 5.2.

    Examples
    --------
    >>> R, y = make_planted_chains(5, n_items=10, length=4, n_clusters=2, random_state=0)
    >>> R.lengths
    array([4, 4, 4, 4, 4])
    >>> y.shape
    (5,)
    """
    for name, val, lo in (
        ("n_samples", n_samples, 0),
        ("n_items", n_items, 1),
        ("n_clusters", n_clusters, 1),
        ("n_buckets", n_buckets, 1),
        ("chunk_size", chunk_size, 1),
    ):
        if isinstance(val, bool) or not isinstance(val, Integral) or val < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {val!r}")
    n, m, K = int(n_samples), int(n_items), int(n_clusters)
    n_buckets = min(int(n_buckets), m)  # more buckets than items = a total order
    if isinstance(length, Integral) and not isinstance(length, bool):
        lo_len = hi_len = int(length)
    else:
        try:
            lo_len, hi_len = (int(x) for x in length)
        except (TypeError, ValueError):
            raise ValueError(
                f"length must be an int or a pair (l_min, l_max), got {length!r}"
            ) from None
    if not 1 <= lo_len <= hi_len <= m:
        raise ValueError(f"need 1 <= length <= n_items={m}, got {length!r}")
    rng = check_random_state(random_state)

    # bucket[k, u] = bucket index of item u in component k
    cut = np.arange(m) * n_buckets // m
    bucket = np.empty((K, m), dtype=np.int64)
    for k in range(K):
        bucket[k, rng.permutation(m)] = cut

    if balanced:
        labels = rng.permutation(np.arange(n) % K).astype(np.int64)
    else:
        labels = rng.randint(K, size=n).astype(np.int64)
    lengths = (
        np.full(n, lo_len, dtype=np.int64)
        if lo_len == hi_len
        else rng.randint(lo_len, hi_len + 1, size=n).astype(np.int64)
    )

    ranks = np.full((n, m), -1, dtype=np.int64)
    width = hi_len
    for start in range(0, n, chunk_size):
        stop = min(n, start + chunk_size)
        c = stop - start
        # a uniformly random ordered sample of `width` items per chain; keep the first l_i
        items = np.argsort(rng.random_sample((c, m)), axis=1)[:, :width]
        keys = np.take_along_axis(bucket[labels[start:stop]], items, axis=1).astype(np.float64)
        keys += rng.random_sample((c, width))  # uniform order inside a bucket
        keys[np.arange(width)[None, :] >= lengths[start:stop, None]] = np.inf
        order = np.argsort(keys, axis=1)
        sorted_items = np.take_along_axis(items, order, axis=1)
        rows = np.repeat(np.arange(start, stop), width).reshape(c, width)
        pos = np.broadcast_to(np.arange(width), (c, width))
        keep = pos < lengths[start:stop, None]
        ranks[rows[keep], sorted_items[keep]] = pos[keep]
    R = trusted_rankings(ranks)
    if return_centers:
        return R, labels, Rankings(bucket)
    return R, labels
