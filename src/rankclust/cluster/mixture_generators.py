"""Synthetic heterogeneous rank data of Busse, Orbanz & Buhmann (2007), Sec. 6.1.

* :func:`centers_at_distances` -- central rankings whose pairwise Kendall distances are
  given (Table 1 uses three centres of 5 items at distances ``[2, 9, 9]`` or ``[8, 6, 6]``);
* :func:`make_heterogeneous_rankings` -- top-t lists of mixed lengths from a Mallows mixture,
  with fixed cluster sizes ``round(n c_k)`` (decisions.md B3) and a length law independent of the
  cluster; the component draws are exact (:func:`rankclust.models.mallows.sample_mallows`).
"""

from __future__ import annotations

import itertools
import numbers
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from rankclust.distances import kendall_distances
from rankclust.models.mallows import sample_mallows
from rankclust.rankings import Rankings

__all__ = ["centers_at_distances", "length_law", "make_heterogeneous_rankings"]

#: Exhaustive search over S(m) for the centres is used up to this many items.
_EXHAUSTIVE_MAX_ITEMS = 8


def centers_at_distances(
    distances: Any,
    n_items: int,
    *,
    first: Any = None,
    random_state: Any = None,
) -> np.ndarray:
    """K central rankings with prescribed pairwise Kendall distances.

    Parameters
    ----------
    distances : array-like of int, shape (K (K - 1) / 2,)
        Condensed distances in :func:`scipy.spatial.distance.pdist` order:
        ``d(1, 2), d(1, 3), ..., d(1, K), d(2, 3), ...``.
    n_items : int
        Number of items m.
    first : array-like of int, shape (m,), optional
        Position vector of the first centre (default: the identity).
    random_state : int, RandomState instance or None, default=None
        Randomises the search: exhaustive backtracking over S(m) in random order for
        m <= 8; for larger m (two centres only) the second centre is reached from the first
        by random adjacent swaps that each add one discordant pair.

    Returns
    -------
    centers : ndarray of int64, shape (K, m)
        Position vectors.

    Raises
    ------
    ValueError
        If no such configuration exists (m <= 8), or K > 2 with m > 8.

    Notes
    -----
    Complexity: O(m! K m^2) time for m <= 8 (with backtracking), O(m d) beyond.

    Examples
    --------
    >>> from rankclust.cluster.mixture_generators import centers_at_distances
    >>> from rankclust.distances import pairwise_distances
    >>> C = centers_at_distances([2, 9, 9], 5, random_state=0)
    >>> from rankclust import Rankings
    >>> pairwise_distances(Rankings(C))[[0, 0, 1], [1, 2, 2]]
    array([2, 9, 9])
    """
    d = np.asarray(distances)
    if d.ndim != 1 or d.dtype.kind not in "iu":
        raise ValueError("distances must be a 1-d array of integers (condensed form)")
    if isinstance(n_items, bool) or not isinstance(n_items, numbers.Integral) or n_items < 2:
        raise ValueError(f"n_items must be an int >= 2, got {n_items!r}")
    m = int(n_items)
    k_comp = round((1 + np.sqrt(1 + 8 * len(d))) / 2)
    if k_comp * (k_comp - 1) // 2 != len(d):
        raise ValueError(f"{len(d)} distances is not K(K-1)/2 for any K")
    if d.min(initial=0) < 0 or d.max(initial=0) > m * (m - 1) // 2:
        raise ValueError(f"distances must lie in [0, {m * (m - 1) // 2}]")
    D = np.zeros((k_comp, k_comp), dtype=np.int64)
    D[np.triu_indices(k_comp, 1)] = d
    D = D + D.T
    rng = check_random_state(random_state)
    c0 = np.arange(m) if first is None else np.asarray(first, dtype=np.int64)
    if c0.shape != (m,) or not np.array_equal(np.sort(c0), np.arange(m)):
        raise ValueError("first must be a position vector (a permutation of 0..m-1)")

    if m <= _EXHAUSTIVE_MAX_ITEMS:
        perms = np.array(list(itertools.permutations(range(m))), dtype=np.int64)
        pool = Rankings._from_trusted(perms)
        to_first = kendall_distances(pool, c0)
        chosen = [c0]

        def extend(level: int) -> bool:
            ok = to_first == D[0, level]
            for j in range(1, level):
                ok &= kendall_distances(pool, chosen[j]) == D[j, level]
            candidates = np.flatnonzero(ok)
            for idx in rng.permutation(candidates):
                chosen.append(perms[idx])
                if level + 1 == k_comp or extend(level + 1):
                    return True
                chosen.pop()
            return False

        if k_comp == 1 or extend(1):
            return np.asarray(chosen, dtype=np.int64)
        raise ValueError(f"no {k_comp} rankings of {m} items have pairwise distances {d.tolist()}")

    if k_comp > 2:
        raise ValueError(
            f"for more than {_EXHAUSTIVE_MAX_ITEMS} items only two centres are supported "
            "(exhaustive search is limited to m <= 8)"
        )
    if k_comp == 1:
        return c0[None].copy()
    return np.stack([c0, _random_at_distance(c0, int(d[0]), rng)])


def _random_at_distance(center: np.ndarray, dist: int, rng: np.random.RandomState) -> np.ndarray:
    """A random position vector at Kendall distance ``dist`` from ``center``.

    Random adjacent swaps that each add one discordant pair with the centre.
    """
    m = center.shape[0]
    order = np.argsort(center).copy()  # items best first, concordant with the centre
    rank_in_center = center.copy()
    done = 0
    while done < dist:
        p = rng.randint(m - 1)
        a, b = order[p], order[p + 1]
        if rank_in_center[a] < rank_in_center[b]:  # swapping adds a discordant pair
            order[p], order[p + 1] = b, a
            done += 1
    pos = np.empty(m, dtype=np.int64)
    pos[order] = np.arange(m)
    return pos


def length_law(lengths: Any, n_items: int) -> np.ndarray:
    """Probabilities of the list lengths ``0..m``, shape (m + 1,).

    Parameters
    ----------
    lengths : sequence of int or array-like of float, shape (m + 1,)
        A sequence of allowed lengths (uniform over them, e.g. ``[1, 2, 3, 5]`` for Busse et
        al.'s Fig. 1: 25% complete and 25% each of lengths 1, 2, 3), or a probability vector
        over ``0..m``.
    n_items : int

    Returns
    -------
    ndarray of float64, shape (m + 1,)
    """
    m = int(n_items)
    arr = np.asarray(lengths)
    if arr.dtype.kind == "f" and arr.shape == (m + 1,):
        if np.any(arr < 0) or not arr.sum() > 0:
            raise ValueError("length probabilities must be non-negative and not all zero")
        return arr / arr.sum()
    if arr.dtype.kind not in "iu" or arr.ndim != 1 or arr.size == 0:
        raise ValueError("lengths must be a sequence of ints or m + 1 probabilities")
    if arr.min() < 1 or arr.max() > m:
        raise ValueError(f"lengths must lie in 1..{m}")
    p = np.zeros(m + 1)
    p[np.unique(arr)] = 1.0
    return p / p.sum()


def make_heterogeneous_rankings(
    n_samples: int,
    centers: Any,
    thetas: Any,
    *,
    weights: Any = None,
    lengths: Any = None,
    fixed_sizes: bool = True,
    random_state: Any = None,
) -> tuple[Rankings, np.ndarray]:
    """Top-t lists of mixed lengths from a Kendall-Mallows mixture (Busse et al. Sec. 6.1).

    Parameters
    ----------
    n_samples : int
        Number of rankings n.
    centers : array-like of int, shape (K, m)
        Position vectors of the central rankings (e.g. from :func:`centers_at_distances`).
    thetas : float or array-like of float, shape (K,)
        Dispersions (the paper's lambda).
    weights : array-like of float, shape (K,), optional
        Mixing proportions (default equal).
    lengths : sequence of int or probabilities over 0..m, optional
        Length law, see :func:`length_law`; independent of the cluster (non-informative
        censoring). Default: complete rankings.
    fixed_sizes : bool, default=True
        Cluster sizes ``round(n c_k)`` (adjusted to sum to n), as "all clusters have equal
        size" suggests (decisions.md B3); False draws the labels from Categorical(c).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    R : Rankings, shape (n, m), kind "top"
    labels : ndarray of int64, shape (n,)
        The component of each ranking.

    Notes
    -----
    Complexity: O(n m t) time for lists of length t (exact stage-wise sampler), O(n m)
    memory.

    References
    ----------
    Busse, Orbanz and Buhmann (2007), ICML, Sec. 6.1.

    Examples
    --------
    >>> from rankclust.cluster.mixture_generators import make_heterogeneous_rankings
    >>> R, y = make_heterogeneous_rankings(8, [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]], 1.0,
    ...                                    lengths=[1, 2, 3, 5], random_state=0)
    >>> R.shape, R.kind, set(R.lengths.tolist()) <= {1, 2, 3, 5}, y.tolist()
    ((8, 5), 'top', True, [0, 0, 0, 0, 1, 1, 1, 1])
    """
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) or n_samples < 0:
        raise ValueError(f"n_samples must be a non-negative int, got {n_samples!r}")
    cents = np.asarray(centers)
    if cents.ndim != 2 or cents.dtype.kind not in "iu":
        raise ValueError("centers must be an int array of shape (K, m)")
    k_comp, m = cents.shape
    th = np.broadcast_to(np.asarray(thetas, dtype=np.float64), (k_comp,))
    c = np.full(k_comp, 1.0 / k_comp) if weights is None else np.asarray(weights, float)
    if c.shape != (k_comp,) or np.any(c < 0) or not c.sum() > 0:
        raise ValueError(f"weights must be {k_comp} non-negative numbers, not all zero")
    c = c / c.sum()
    rng = check_random_state(random_state)
    n = int(n_samples)
    if fixed_sizes:
        sizes = np.floor(n * c).astype(np.int64)
        rest = n - sizes.sum()
        if rest:  # largest remainders first
            frac = n * c - sizes
            sizes[np.argsort(-frac, kind="stable")[:rest]] += 1
        labels = np.repeat(np.arange(k_comp), sizes)
    else:
        labels = np.sort(rng.choice(k_comp, size=n, p=c))
    p_len = None if lengths is None else length_law(lengths, m)
    t = np.full(n, m) if p_len is None else rng.choice(m + 1, size=n, p=p_len)
    ranks = np.empty((n, m), dtype=np.int64)
    for k in range(k_comp):
        rows = np.flatnonzero(labels == k)
        if rows.size:
            ranks[rows] = sample_mallows(cents[k], float(th[k]), rows.size, rng, t[rows]).ranks
    return Rankings._from_trusted(ranks, kind="top"), labels.astype(np.int64)
