"""Synthetic rankings from mixtures of Mallows or Plackett-Luce models, with known clusters.

Both generators draw a component per ranking, sample it exactly from the component's model
(:meth:`rankclust.models.mallows.Mallows.sample`,
:meth:`rankclust.models.plackett_luce.PlackettLuce.sample`) and then optionally make the
rankings partial:

* ``kind="top"`` -- keep the top ``l`` items (a top-l list; the rest rank below);
* ``kind="subset"`` -- keep ``l`` items chosen uniformly at random, in their sampled order (a
  chain; the rest are unknown), the incomplete-data model of Ukkonen (2011) and of the label
  ranking experiments of Cheng et al. (2009).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from rankclust._param_validation import validate_params
from rankclust.models.mallows import Mallows
from rankclust.models.plackett_luce import PlackettLuce
from rankclust.rankings import KINDS, Rankings

__all__ = ["make_bradley_terry_comparisons", "make_mallows_mixture", "make_plackett_luce_mixture"]


def _check_rng(random_state: Any, owner: str) -> np.random.RandomState:
    """``check_random_state`` after a clean check (numpy's own error for a bad seed is cryptic)."""
    validate_params({"random_state": random_state}, {"random_state": ["random_state"]}, owner)
    return check_random_state(random_state)


def _check_count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")
    return int(value)


def _check_mixing(weights: Any, k: int) -> np.ndarray:
    if weights is None:
        return np.full(k, 1.0 / k)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (k,):
        raise ValueError(f"weights must have shape ({k},), got {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValueError("weights must be finite, non-negative and not all zero")
    return w / w.sum()


def _draw_lengths(lengths: Any, n: int, m: int, rng: np.random.RandomState) -> np.ndarray | None:
    """Per-row lengths in 1..m, or None for complete rankings."""
    if lengths is None:
        return None
    if isinstance(lengths, tuple):
        if len(lengths) != 2:
            raise ValueError(f"lengths as a tuple must be (low, high), got {lengths!r}")
        lo = _check_count(lengths[0], "lengths[0]", 1)
        hi = _check_count(lengths[1], "lengths[1]", lo)
        if hi > m:
            raise ValueError(f"lengths must lie in 1..{m}, got {lengths!r}")
        return rng.randint(lo, hi + 1, size=n).astype(np.int64)
    arr = np.asarray(lengths)
    if arr.dtype.kind not in "iu":
        raise ValueError("lengths must be an int, a (low, high) tuple or an int array")
    arr = np.broadcast_to(arr, (n,)).astype(np.int64) if arr.ndim == 0 else arr.astype(np.int64)
    if arr.shape != (n,):
        raise ValueError(f"lengths must be an int or have shape ({n},), got {arr.shape}")
    if n and (arr.min() < 1 or arr.max() > m):
        raise ValueError(f"lengths must lie in 1..{m}")
    return arr


def _keep_random_subset(ranks: np.ndarray, lengths: np.ndarray, rng) -> np.ndarray:
    """Keep ``lengths[i]`` uniformly chosen items of row i (in their order); others -> -1."""
    keys = rng.random_sample(ranks.shape)
    order_of_key = np.argsort(np.argsort(keys, axis=1), axis=1)
    return np.where(order_of_key < lengths[:, None], ranks, -1)


def _mixture(
    models: list,
    n_samples: int,
    n_items: int,
    mix: np.ndarray,
    lengths: Any,
    kind: str,
    rng: np.random.RandomState,
    *,
    return_labels: bool,
    extra: Any = None,
) -> Any:
    """Labels, then each component's rows from ``models[k].sample``; the generator's output.

    Returns ``R``, ``(R, labels)``, ``(R, extra)`` or ``(R, labels, extra)`` (``extra``: the
    components' parameters when asked for, else None).
    """
    k_comp = len(mix)
    labels = rng.choice(k_comp, size=n_samples, p=mix).astype(np.int64)
    lens = _draw_lengths(lengths, n_samples, n_items, rng)
    ranks = np.empty((n_samples, n_items), dtype=np.int64)
    for k in range(k_comp):
        rows = np.flatnonzero(labels == k)
        if rows.size == 0:
            continue
        top = lens[rows] if (lens is not None and kind == "top") else None
        ranks[rows] = models[k].sample(rows.size, random_state=rng, lengths=top).ranks
    if lens is not None and kind == "subset":
        ranks = _keep_random_subset(ranks, lens, rng)
    out: tuple[Any, ...] = (Rankings(ranks, kind=kind),)
    if return_labels:
        out += (labels,)
    if extra is not None:
        out += (extra,)
    return out[0] if len(out) == 1 else out


def _check_common(n_samples: Any, n_items: Any, kind: str) -> tuple[int, int]:
    n = _check_count(n_samples, "n_samples", 0)
    m = _check_count(n_items, "n_items", 1)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    return n, m


def make_mallows_mixture(
    n_samples: int = 500,
    n_items: int = 10,
    n_clusters: int = 3,
    *,
    centers: Any = None,
    thetas: Any = 1.0,
    weights: Any = None,
    lengths: Any = None,
    kind: str = "subset",
    random_state: Any = None,
    return_labels: bool = True,
    return_centers: bool = False,
) -> Any:
    """Rankings from a mixture of Kendall-Mallows models, with the true clusters.

    Parameters
    ----------
    n_samples : int, default=500
        Number of rankings n.
    n_items : int, default=10
        Number of items m.
    n_clusters : int, default=3
        Number of components K (must equal ``len(centers)`` when centers are given).
    centers : array-like of int, shape (K, m), optional
        Position vectors of the central rankings (``centers[k, j]`` = position of item j).
        Default: K uniformly random permutations.
    thetas : float or array-like of float, shape (K,), default=1.0
        Dispersions (>= 0; 0 is uniform, larger is more concentrated).
    weights : array-like of float, shape (K,), optional
        Mixing proportions (normalised). Default: equal.
    lengths : int, (int, int) or array-like of int, shape (n,), optional
        Number of items kept per ranking: a constant, an inclusive range drawn uniformly per
        ranking, or one per ranking. Default: complete rankings.
    kind : {"subset", "top"}, default="subset"
        How rankings are cut to ``lengths`` (see the module docstring); also the kind of the
        result.
    random_state : int, RandomState instance or None, default=None
    return_labels : bool, default=True
        Return the component of each ranking.
    return_centers : bool, default=False
        Also return the centres, shape (K, m).

    Returns
    -------
    R : Rankings, shape (n, m)
    labels : ndarray of int64, shape (n,)
        Only with ``return_labels=True``.
    centers : ndarray of int64, shape (K, m)
        Only with ``return_centers=True``.

    Notes
    -----
    Complexity: O(n m^2) time (the exact stage-wise sampler), O(n m) memory.

    References
    ----------
    C. L. Mallows, "Non-null ranking models. I", Biometrika 44, 1957. L. M. Busse, P. Orbanz
    and J. M. Buhmann, "Cluster analysis of heterogeneous rank data", ICML 2007.

    Examples
    --------
    >>> R, labels = make_mallows_mixture(6, 4, 2, thetas=[1.0, 2.0], lengths=2, kind="top",
    ...                                  random_state=0)
    >>> R.shape, R.kind, R.lengths.tolist()
    ((6, 4), 'top', [2, 2, 2, 2, 2, 2])
    """
    n, m = _check_common(n_samples, n_items, kind)
    rng = _check_rng(random_state, "make_mallows_mixture")
    if centers is None:
        k_comp = _check_count(n_clusters, "n_clusters", 1)
        cents = np.argsort(rng.random_sample((k_comp, m)), axis=1).astype(np.int64)
    else:
        cents = np.asarray(centers)
        if cents.ndim != 2 or cents.shape[1] != m or cents.dtype.kind not in "iu":
            raise ValueError(f"centers must be an int array of shape (K, {m}), got {cents.shape}")
        k_comp = cents.shape[0]
        if n_clusters is not None and n_clusters != k_comp:
            raise ValueError(f"n_clusters={n_clusters} but {k_comp} centers were given")
        bad = (np.sort(cents, axis=1) != np.arange(m)).any(axis=1)
        if bad.any():
            raise ValueError(f"centers[{int(np.flatnonzero(bad)[0])}] is not a permutation")
        cents = cents.astype(np.int64)
    th = np.broadcast_to(np.asarray(thetas, dtype=np.float64), (k_comp,))
    if not np.isfinite(th).all() or (th < 0).any():
        raise ValueError("thetas must be finite and >= 0")
    mix = _check_mixing(weights, k_comp)
    models = [Mallows.from_params(center=cents[k], theta=float(th[k])) for k in range(k_comp)]
    return _mixture(
        models, n, m, mix, lengths, kind, rng,
        return_labels=return_labels, extra=cents if return_centers else None,
    )  # fmt: skip


def make_plackett_luce_mixture(
    n_samples: int = 500,
    n_items: int = 10,
    n_clusters: int = 3,
    *,
    scores: Any = None,
    scale: float = 1.0,
    weights: Any = None,
    lengths: Any = None,
    kind: str = "subset",
    random_state: Any = None,
    return_labels: bool = True,
    return_scores: bool = False,
) -> Any:
    """Rankings from a mixture of Plackett-Luce models, with the true clusters.

    Parameters
    ----------
    n_samples : int, default=500
        Number of rankings n.
    n_items : int, default=10
        Number of items m.
    n_clusters : int, default=3
        Number of components K (must equal ``len(scores)`` when scores are given).
    scores : array-like of float, shape (K, m), optional
        Log-worths per component. Default: independent ``Normal(0, scale^2)`` draws.
    scale : float, default=1.0
        Spread of the default scores (larger: more concentrated components).
    weights : array-like of float, shape (K,), optional
        Mixing proportions (normalised). Default: equal.
    lengths : int, (int, int) or array-like of int, shape (n,), optional
        Items kept per ranking (as in :func:`make_mallows_mixture`). Default: complete.
    kind : {"subset", "top"}, default="subset"
    random_state : int, RandomState instance or None, default=None
    return_labels : bool, default=True
    return_scores : bool, default=False
        Also return the scores, shape (K, m), each row shifted to mean zero.

    Returns
    -------
    R : Rankings, shape (n, m)
    labels : ndarray of int64, shape (n,)
        Only with ``return_labels=True``.
    scores : ndarray of float64, shape (K, m)
        Only with ``return_scores=True``.

    Notes
    -----
    Complexity: O(n m log m) time, O(n m) memory.

    References
    ----------
    R. L. Plackett, "The analysis of permutations", Applied Statistics 24, 1975. I. C. Gormley
    and T. B. Murphy, "Exploring voting blocs within the Irish electorate: a mixture modeling
    approach", JASA 103, 2008.

    Examples
    --------
    >>> R, labels = make_plackett_luce_mixture(5, 4, 2, random_state=0)
    >>> R.shape, R.is_complete, labels.shape
    ((5, 4), True, (5,))
    """
    n, m = _check_common(n_samples, n_items, kind)
    rng = _check_rng(random_state, "make_plackett_luce_mixture")
    if scores is None:
        k_comp = _check_count(n_clusters, "n_clusters", 1)
        if not (isinstance(scale, numbers.Real) and np.isfinite(scale) and scale >= 0):
            raise ValueError(f"scale must be a finite number >= 0, got {scale!r}")
        sc = rng.normal(0.0, float(scale), size=(k_comp, m))
    else:
        sc = np.asarray(scores, dtype=np.float64)
        if sc.ndim != 2 or sc.shape[1] != m:
            raise ValueError(f"scores must have shape (K, {m}), got {sc.shape}")
        k_comp = sc.shape[0]
        if n_clusters is not None and n_clusters != k_comp:
            raise ValueError(f"n_clusters={n_clusters} but {k_comp} score vectors were given")
    mix = _check_mixing(weights, k_comp)
    models = [PlackettLuce.from_params(scores=sc[k]) for k in range(k_comp)]
    scores_out = np.vstack([mdl.scores_ for mdl in models]) if return_scores else None
    return _mixture(
        models, n, m, mix, lengths, kind, rng, return_labels=return_labels, extra=scores_out
    )


def make_bradley_terry_comparisons(
    n_items: int = 6170,
    n_comparisons: int = 106_877,
    *,
    sigma: float = 1.0,
    random_state: Any = None,
) -> tuple[Any, np.ndarray]:
    """Pairwise comparisons from a Bradley-Terry model with log-normal worths.

    The default size is that of the GIFGIF "happiness" data of choix's example notebook
    (6,170 images, 106,877 comparisons). Each comparison picks two distinct items uniformly at
    random; the first wins with probability ``v_a / (v_a + v_b)``.

    Parameters
    ----------
    n_items : int, default=6170
    n_comparisons : int, default=106877
    sigma : float, default=1.0
        Standard deviation of the log-worths (``log v ~ N(0, sigma^2)``).
    random_state : int, RandomState or None

    Returns
    -------
    C : rankclust.pairwise.Comparisons
        ``n_comparisons`` rows, no assessors, no ties.
    scores : ndarray of float64, shape (n_items,)
        The true log-worths, centred.

    Examples
    --------
    >>> C, z = make_bradley_terry_comparisons(50, 200, random_state=0)
    >>> C.n_comparisons, z.shape
    (200, (50,))
    """
    from rankclust.pairwise import Comparisons

    m = _check_count(n_items, "n_items", 2)
    n = _check_count(n_comparisons, "n_comparisons", 0)
    if not np.isfinite(sigma) or sigma < 0:
        raise ValueError(f"sigma must be a non-negative number, got {sigma!r}")
    rng = _check_rng(random_state, "make_bradley_terry_comparisons")
    z = rng.normal(0.0, sigma, size=m)
    z -= z.mean()
    a = rng.randint(0, m, size=n)
    b = (a + rng.randint(1, m, size=n)) % m  # a different item, uniformly
    a_wins = rng.random_sample(n) < 1.0 / (1.0 + np.exp(z[b] - z[a]))
    winner = np.where(a_wins, a, b)
    loser = np.where(a_wins, b, a)
    C = Comparisons(winner, loser, n_items=m, limits={"max_rows": max(n, 1), "max_items": m})
    return C, z
