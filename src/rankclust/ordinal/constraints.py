"""Side information for semi-supervised clustering: ranking pairs and must-/cannot-link pairs.

A *ranking pair* ``(i, j)`` says "sample ``i`` belongs to a higher ordinal cluster than sample
``j``" (Xiao, Liu & Hao 2016, written x_i ≻ x_j). A *must-link* pair says two samples share a
cluster, a *cannot-link* pair that they do not. All pairs are integer arrays of shape
``(n_pairs, 2)`` indexing the rows of the data being clustered.

The generators reproduce the experimental protocol of the paper (§IV-C): draw two samples
uniformly, reject draws from the same class (ranking, cannot-link) or from different classes
(must-link), and orient a ranking pair so that the higher true level comes first.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state

__all__ = ["check_pairs", "link_constraints_from_labels", "ranking_pairs_from_labels"]


def check_pairs(pairs: ArrayLike | None, n_samples: int, *, name: str = "pairs") -> NDArray:
    """Validate an index-pair array and return it as ``int64`` of shape ``(n_pairs, 2)``.

    Parameters
    ----------
    pairs : array-like of shape (n_pairs, 2) or None
        Row indices into the data. ``None`` or an empty array gives shape ``(0, 2)``.
    n_samples : int
        Number of rows of the data; every index must lie in ``0 .. n_samples - 1``.
    name : str, default="pairs"
        Name used in error messages.

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2), dtype int64

    Raises
    ------
    ValueError
        On a wrong shape, non-integer or non-finite entries, an index out of range, or a pair
        of a sample with itself (the first offending pair is named).
    """
    if pairs is None:
        return np.empty((0, 2), dtype=np.int64)
    arr = np.asarray(pairs)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n_pairs, 2); got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{name} must hold integer row indices")
    elif arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integer row indices; got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    bad = np.flatnonzero(np.any((arr < 0) | (arr >= n_samples), axis=1))
    if bad.size:
        raise ValueError(
            f"{name}[{bad[0]}] = {arr[bad[0]].tolist()} has an index outside "
            f"0..{n_samples - 1} (n_samples = {n_samples})"
        )
    same = np.flatnonzero(arr[:, 0] == arr[:, 1])
    if same.size:
        raise ValueError(f"{name}[{same[0]}] pairs sample {arr[same[0], 0]} with itself")
    return arr


def _draw_pairs(y: NDArray, n_pairs: int, want_same: bool, rng: np.random.RandomState) -> NDArray:
    """Rejection-sample ``n_pairs`` distinct-index pairs with equal (or unequal) labels."""
    n = y.shape[0]
    out = np.empty((0, 2), dtype=np.int64)
    # Draw in batches; the acceptance rate is the same-class (or different-class) probability.
    for _ in range(1000):
        need = n_pairs - out.shape[0]
        if need <= 0:
            break
        batch = rng.randint(0, n, size=(max(2 * need, 16), 2))
        ok = batch[:, 0] != batch[:, 1]
        same = y[batch[:, 0]] == y[batch[:, 1]]
        ok &= same if want_same else ~same
        out = np.vstack([out, batch[ok][:need]])
    if out.shape[0] < n_pairs:  # pragma: no cover - only with a near-degenerate labelling
        raise ValueError("could not draw enough pairs; check the label distribution")
    return out


def ranking_pairs_from_labels(
    y: ArrayLike, n_pairs: int, *, random_state: int | np.random.RandomState | None = None
) -> NDArray:
    """Sample ranking pairs ``(i, j)`` with ``y[i] > y[j]`` (paper §IV-C).

    Two samples are drawn uniformly with replacement across draws; a draw from the same level is
    rejected, and the pair is oriented so that the sample with the higher level comes first.
    Duplicate pairs may occur, as in the paper's protocol.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Ordinal levels (any ordered numeric codes).
    n_pairs : int
        Number of pairs to draw (the paper uses ``round(0.1 * n_samples)``).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    pairs : ndarray of shape (n_pairs, 2), dtype int64
        ``pairs[t] = (i, j)`` means sample ``i`` ranks above sample ``j``.

    Notes
    -----
    Complexity: O(n_pairs) expected time (rejection rate = probability that two draws share a
    level), O(n_pairs) memory.

    References
    ----------
    Y. Xiao, B. Liu and Z. Hao, "A maximum margin approach for semisupervised ordinal regression
    clustering", IEEE TNNLS 27(5):1003-1019, 2016, §IV-C.

    Examples
    --------
    >>> pairs = ranking_pairs_from_labels([0, 0, 1, 2], 3, random_state=0)
    >>> y = [0, 0, 1, 2]
    >>> all(y[i] > y[j] for i, j in pairs)
    True
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D; got shape {y.shape}")
    if n_pairs < 0:
        raise ValueError(f"n_pairs must be >= 0; got {n_pairs}")
    if n_pairs > 0 and np.unique(y).size < 2:
        raise ValueError("ranking pairs need at least two distinct levels in y")
    rng = check_random_state(random_state)
    pairs = _draw_pairs(y, n_pairs, want_same=False, rng=rng)
    flip = y[pairs[:, 0]] < y[pairs[:, 1]]
    pairs[flip] = pairs[flip][:, ::-1]
    return pairs


def link_constraints_from_labels(
    y: ArrayLike,
    n_must_link: int,
    n_cannot_link: int,
    *,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[NDArray, NDArray]:
    """Sample must-link (same level) and cannot-link (different levels) pairs.

    The paper gives its pairwise-constrained baselines 5 % n of each, 10 % n in total.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        True cluster labels.
    n_must_link, n_cannot_link : int
        Numbers of pairs of each type.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    must_link : ndarray of shape (n_must_link, 2), dtype int64
    cannot_link : ndarray of shape (n_cannot_link, 2), dtype int64

    Notes
    -----
    Complexity: O(n_must_link + n_cannot_link) expected time and memory.

    Examples
    --------
    >>> ml, cl = link_constraints_from_labels([0, 0, 1, 1], 2, 2, random_state=0)
    >>> ml.shape, cl.shape
    ((2, 2), (2, 2))
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D; got shape {y.shape}")
    if n_must_link < 0 or n_cannot_link < 0:
        raise ValueError("the numbers of pairs must be >= 0")
    _, counts = np.unique(y, return_counts=True)
    if n_must_link > 0 and counts.max() < 2:
        raise ValueError("must-link pairs need a level with at least two samples")
    if n_cannot_link > 0 and counts.size < 2:
        raise ValueError("cannot-link pairs need at least two distinct levels in y")
    rng = check_random_state(random_state)
    ml = _draw_pairs(y, n_must_link, want_same=True, rng=rng)
    cl = _draw_pairs(y, n_cannot_link, want_same=False, rng=rng)
    return ml, cl
