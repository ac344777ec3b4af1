"""Distances between rankings in the rank-matrix (position-vector) convention.

Rankings are rows of a rank matrix (see :mod:`rankclust.rankings`): ``a[j]`` is the 0-based
position of item ``j``, ``-1`` marks an absent item and equal positions are ties. A single
ranking given as an array to the *scalar* functions (``kendall_distance(a, b)`` ...) and the
``center`` of the *one-to-many* functions (``kendall_distances(R, center)`` ...) are such
0-based **position vectors**. A collection ``R`` is a :class:`~rankclust.Rankings`, or anything
:func:`~rankclust.check_rankings` accepts (a 2-d array of **1-based** ranks with 0 or NaN for a
missing item, the label-ranking CSV format).

Which pairs count for Kendall
-----------------------------
Kendall's distance counts the *discordant* pairs: items ``u, v`` that one ranking places
``u`` above ``v`` and the other ``v`` above ``u``. On partial rankings and rankings with ties
only the **comparable** pairs enter: a pair is comparable when it is *strictly ordered in both
rankings*. Hence

* a pair with an item missing from either ranking (``kind="subset"``: absent = unknown) does
  not count;
* a pair tied in either ranking does not count (a tie is neither agreement nor disagreement;
  this is the convention of Kendall's tau-a on the strictly ordered pairs, not tau-b);
* for a ``kind="top"`` ranking, every absent item is below every present one, so a pair
  (present, absent) *is* ordered, while two absent items are tied at the bottom and do not
  count. The one-to-many, paired and all-pairs functions read the kind of each
  :class:`~rankclust.Rankings`; a position-vector ``center`` is read as ``kind="subset"``.

The normalised Kendall distance divides by the number of comparable pairs, so it is the
fraction of comparable pairs that disagree, in ``[0, 1]``; it is **0 when there is no
comparable pair** (e.g. fewer than two common items). For complete rankings the number of
comparable pairs is ``m (m - 1) / 2``, the maximum of the distance.

Spearman's rho (``sum_j (a_j - b_j)^2``; the square root, the Euclidean form, with
``squared=False``), Spearman's footrule (``sum_j |a_j - b_j|``), Cayley's distance (``m`` minus
the number of cycles of ``a o b^{-1}``, the fewest transpositions turning one into the other)
Hamming's distance (number of items at different positions) and Ulam's distance (``m`` minus
the length of the longest increasing subsequence of one ranking read in the order of the other:
the fewest moves of one item to another place) are defined here for complete rankings without
ties only; partial or tied input gives a ``ValueError`` naming the first
offending row. A ``kind="top"`` ranking missing exactly one item is complete (the absent item
is last). Normalised variants divide by the maximum over pairs of permutations of ``m`` items
(:func:`max_distance`): Kendall ``m(m-1)/2``, Spearman ``(m^3-m)/3``, footrule
``floor(m^2/2)``, Cayley ``m-1``, Hamming ``m``, Ulam ``m-1`` (0 for ``m <= 1``, where every
distance is 0).

Return types: raw distances are integers (``int`` from the scalar functions, ``int64`` arrays
otherwise), normalised ones floats (``float64`` arrays); ``spearman_distance(...,
squared=False)`` is a float.

The registry :data:`DISTANCES` maps each metric name to its one-to-many function
``f(R, center, normalize=False) -> (n,)``; its keys are the one list of metric names, against
which :func:`max_distance`, :func:`paired_distances` and :func:`pairwise_distances` check
``metric=``.

References
----------
.. [1] Diaconis, P. (1988). *Group Representations in Probability and Statistics*, ch. 6.
       IMS Lecture Notes 11.
.. [2] Critchlow, D. E. (1985). *Metric Methods for Analyzing Partially Ranked Data*.
       Lecture Notes in Statistics 34, Springer.
.. [3] Grbovic, M., Djuric, N., Guo, S. & Vucetic, S. (2013). Supervised clustering of label
       ranking data using label preference information. *Machine Learning* 93, 191-225,
       eq. (1).
.. [4] Ulam, S. M. (1972). Some ideas and prospects in biomathematics. *Annual Review of
       Biophysics and Bioengineering* 1, 277-292.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from scipy.spatial.distance import cdist

from rankclust._compiled import cayley_pair, kendall_pair, ulam_pair
from rankclust._param_validation import StrOptions, validate_arguments, validate_params
from rankclust.rankings import KINDS, Rankings, check_rankings

__all__ = [
    "DISTANCES",
    "cayley_distance",
    "cayley_distances",
    "footrule_distance",
    "footrule_distances",
    "hamming_distance",
    "hamming_distances",
    "kendall_counts",
    "kendall_distance",
    "kendall_distances",
    "max_distance",
    "paired_distances",
    "pairwise_distances",
    "spearman_distance",
    "spearman_distances",
    "ulam_distance",
    "ulam_distances",
]

# All-pairs Kendall: below this many items two BLAS products of m^2-long indicator rows are
# fastest; from it on, the O(m log m) inversion count (complete rows) or the O(m^2) pair loop.
# Paired/one-to-many: the inversion count from here on. Measured crossovers, 2-core machine.
_FENWICK_MIN_ITEMS = 24

# argument constraints of the public functions (checked by ``validate_arguments``; the metric
# names, keys of the registry DISTANCES, are constrained below it)
_ONE_TO_MANY_ARGS = {"normalize": ["boolean"]}
_VECTOR_ARGS = {"normalize": ["boolean"], "kind": [StrOptions(KINDS)]}


# --------------------------------------------------------------------------------------------
# kernels (private: inputs are trusted; arrays are effective positions, -1 = unknown)
# --------------------------------------------------------------------------------------------


def _kendall_pair_complete(order_a, b, tree):  # pragma: no cover - compiled below
    """Discordant pairs of two permutations as the inversions of ``b[order_a]``, O(m log m).

    ``order_a`` lists the items best first under ``a``; ``b`` is a permutation of 0..m-1;
    ``tree`` is a Fenwick-tree buffer of length m + 1 (overwritten).
    """
    m = b.shape[0]
    for j in range(m + 1):
        tree[j] = 0
    inv = 0
    for p in range(m):
        x = b[order_a[p]] + 1
        # number of earlier values <= x - 1 (i.e. below x)
        s = 0
        j = x
        while j > 0:
            s += tree[j]
            j -= j & (-j)
        inv += p - s
        j = x
        while j <= m:
            tree[j] += 1
            j += j & (-j)
    return inv


_nb_kendall_pair_complete = numba.njit(_kendall_pair_complete, cache=True, nogil=True)


def _kendall_all_pairs(A, B, disc, comp, row_offset, symmetric):  # pragma: no cover
    """Fill ``disc[i, k], comp[i, k]`` for rows ``A[i]`` against ``B[k]``.

    ``A`` is a block of rows starting at global row ``row_offset``. With ``symmetric`` (B is
    the whole of the same data) only ``k > row_offset + i`` is filled.
    """
    n = A.shape[0]
    n2 = B.shape[0]
    for i in range(n):
        start = row_offset + i + 1 if symmetric else 0
        for k in range(start, n2):
            d, c = kendall_pair(A[i], B[k])
            disc[i, k] = d
            comp[i, k] = c


def _kendall_all_pairs_complete(order_A, B, disc, row_offset, symmetric):  # pragma: no cover
    """As :func:`_kendall_all_pairs` for permutations; ``order_A[i] = argsort(A[i])``."""
    n = order_A.shape[0]
    n2, m = B.shape
    tree = np.zeros(m + 1, dtype=np.int64)
    for i in range(n):
        start = row_offset + i + 1 if symmetric else 0
        for k in range(start, n2):
            disc[i, k] = _nb_kendall_pair_complete(order_A[i], B[k], tree)


def _kendall_paired(A, B, disc, comp):  # pragma: no cover - compiled below
    """Row ``i`` of ``A`` against row ``i`` of ``B`` (or the single row of ``B``)."""
    n = A.shape[0]
    one = B.shape[0] == 1
    for i in range(n):
        d, c = kendall_pair(A[i], B[0 if one else i])
        disc[i] = d
        comp[i] = c


def _kendall_paired_complete(order_A, B, disc):  # pragma: no cover - compiled below
    n = order_A.shape[0]
    m = B.shape[1]
    one = B.shape[0] == 1
    tree = np.zeros(m + 1, dtype=np.int64)
    for i in range(n):
        disc[i] = _nb_kendall_pair_complete(order_A[i], B[0 if one else i], tree)


def _cayley_all_pairs(A, order_B, out, row_offset, symmetric):  # pragma: no cover
    n, m = A.shape
    n2 = order_B.shape[0]
    seen = np.zeros(m, dtype=np.bool_)
    for i in range(n):
        start = row_offset + i + 1 if symmetric else 0
        for k in range(start, n2):
            out[i, k] = cayley_pair(A[i], order_B[k], seen)


def _cayley_paired(A, order_B, out):  # pragma: no cover - compiled below
    n, m = A.shape
    one = order_B.shape[0] == 1
    seen = np.zeros(m, dtype=np.bool_)
    for i in range(n):
        out[i] = cayley_pair(A[i], order_B[0 if one else i], seen)


def _ulam_all_pairs(A, order_B, out, row_offset, symmetric):  # pragma: no cover
    n, m = A.shape
    n2 = order_B.shape[0]
    tails = np.zeros(m, dtype=np.int64)
    for i in range(n):
        start = row_offset + i + 1 if symmetric else 0
        for k in range(start, n2):
            out[i, k] = ulam_pair(A[i], order_B[k], tails)


def _ulam_paired(A, order_B, out):  # pragma: no cover - compiled below
    n, m = A.shape
    one = order_B.shape[0] == 1
    tails = np.zeros(m, dtype=np.int64)
    for i in range(n):
        out[i] = ulam_pair(A[i], order_B[0 if one else i], tails)


_nb_kendall_all_pairs = numba.njit(_kendall_all_pairs, cache=True, nogil=True)
_nb_kendall_all_pairs_complete = numba.njit(_kendall_all_pairs_complete, cache=True, nogil=True)
_nb_kendall_paired = numba.njit(_kendall_paired, cache=True, nogil=True)
_nb_kendall_paired_complete = numba.njit(_kendall_paired_complete, cache=True, nogil=True)
_nb_cayley_all_pairs = numba.njit(_cayley_all_pairs, cache=True, nogil=True)
_nb_cayley_paired = numba.njit(_cayley_paired, cache=True, nogil=True)
_nb_ulam_all_pairs = numba.njit(_ulam_all_pairs, cache=True, nogil=True)
_nb_ulam_paired = numba.njit(_ulam_paired, cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# helpers: effective positions, completeness, normalisation
# --------------------------------------------------------------------------------------------
def _effective_positions(R: Rankings) -> np.ndarray:
    """Rank matrix in which ``-1`` means *unknown*: a top list's absent items become a bottom
    bucket (position ``n_buckets``). O(n m)."""
    ranks = R.ranks
    if R.kind == "top":
        return np.where(ranks >= 0, ranks, R.n_buckets[:, None])
    # a writable copy: numba compiles read-only arrays as a separate type
    return np.array(ranks, dtype=np.int64, order="C")


def _complete_rows(E: np.ndarray) -> np.ndarray:
    """Per row: a permutation of 0..m-1 (dense positions, so max == m-1 and nothing absent)."""
    m = E.shape[1]
    if m == 0:
        return np.ones(E.shape[0], dtype=bool)
    return (E.min(axis=1) >= 0) & (E.max(axis=1) == m - 1)


def _require_complete(E: np.ndarray, name: str, metric: str) -> None:
    ok = _complete_rows(E)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        row = E[i]
        n_known = int((row >= 0).sum())
        n_pos = len(np.unique(row[row >= 0]))
        raise ValueError(
            f"{name}: row {i} is not a complete ranking without ties ({n_known} of "
            f"{E.shape[1]} items ranked in {n_pos} positions); the {metric} distance is "
            "defined for complete rankings only"
        )


def max_distance(metric: str, n_items: int) -> int:
    """Maximum of a distance over pairs of permutations of ``n_items`` items.

    Parameters
    ----------
    metric : {"kendall", "spearman", "footrule", "cayley", "hamming", "ulam"}
    n_items : int
        Number of items ``m >= 0``.

    Returns
    -------
    int
        Kendall ``m(m-1)/2``, Spearman (squared) ``(m^3-m)/3``, footrule ``floor(m^2/2)``,
        Cayley ``m-1``, Hamming ``m``, Ulam ``m-1``; 0 when ``m <= 1``.

    Examples
    --------
    >>> max_distance("footrule", 5)
    12
    """
    validate_params({"metric": metric}, _METRIC_ARGS, "max_distance")  # (registry defined below)
    m = int(n_items)
    if m < 0:
        raise ValueError(f"n_items must be >= 0, got {n_items}")
    if m <= 1:
        return 0
    return {
        "kendall": m * (m - 1) // 2,
        "spearman": (m**3 - m) // 3,
        "footrule": m * m // 2,
        "cayley": m - 1,
        "hamming": m,
        "ulam": m - 1,
    }[metric]


def _normalise(raw: np.ndarray, denom: Any) -> np.ndarray:
    """``raw / denom`` as float64, 0 where ``denom == 0``."""
    raw = np.asarray(raw, dtype=np.float64)
    denom = np.broadcast_to(np.asarray(denom, dtype=np.float64), raw.shape)
    out = np.zeros(raw.shape)
    np.divide(raw, denom, out=out, where=denom > 0)
    return out


def _as_positions(x: Any, name: str, n_items: int | None = None) -> np.ndarray:
    """Validate a single position vector: 1-d, integer-valued, entries >= -1."""
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d position vector, got shape {arr.shape}")
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integer positions, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all() or (arr != np.round(arr)).any():
            raise ValueError(f"{name} must hold integer positions (-1 for absent), got {arr}")
    arr = arr.astype(np.int64)
    if (arr < -1).any():
        j = int(np.flatnonzero(arr < -1)[0])
        raise ValueError(f"{name}: position {arr[j]} of item {j} is below -1 (-1 marks absent)")
    if n_items is not None and arr.shape[0] != n_items:
        raise ValueError(f"{name} has {arr.shape[0]} items, expected {n_items}")
    return arr


def _as_center(center: Any, n_items: int, *, complete: bool, metric: str) -> np.ndarray:
    """A centre as dense effective positions (read as ``kind="subset"``), shape (1, m)."""
    c = _as_positions(center, "center", n_items)
    # dense re-numbering; a writable int64 copy, the type of _effective_positions
    dense = np.array(Rankings(c[None, :]).ranks, dtype=np.int64)
    if complete:
        _require_complete(dense, "center", metric)
    return dense


def _check_pair_of_vectors(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    a = _as_positions(a, "a")
    b = _as_positions(b, "b", a.shape[0])
    return a, b


def _vector_effective(x: np.ndarray, kind: str) -> np.ndarray:
    dense = Rankings(x[None, :], kind=kind)
    return _effective_positions(dense)


# --------------------------------------------------------------------------------------------
# Kendall
# --------------------------------------------------------------------------------------------
def _kendall_counts_paired(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Discordant and comparable counts of ``A[i]`` vs ``B[i]`` (or ``B[0]``), effective
    positions. Uses the O(m log m) kernel when every row is a permutation."""
    n, m = A.shape
    disc = np.zeros(n, dtype=np.int64)
    if m >= _FENWICK_MIN_ITEMS and _complete_rows(A).all() and _complete_rows(B).all():
        order_A = np.ascontiguousarray(np.argsort(A, axis=1))
        _nb_kendall_paired_complete(order_A, np.ascontiguousarray(B), disc)
        return disc, np.full(n, m * (m - 1) // 2, dtype=np.int64)
    comp = np.zeros(n, dtype=np.int64)
    _nb_kendall_paired(np.ascontiguousarray(A), np.ascontiguousarray(B), disc, comp)
    return disc, comp


@validate_arguments(_VECTOR_ARGS)
def kendall_distance(a: Any, b: Any, normalize: bool = False, *, kind: str = "subset") -> Any:
    """Kendall's distance between two position vectors: the number of discordant pairs.

    Parameters
    ----------
    a, b : array-like of int, shape (m,)
        0-based positions, ``-1`` for an absent item, equal positions for ties.
    normalize : bool, default=False
        Divide by the number of comparable pairs (0.0 when there is none).
    kind : {"subset", "top"}, default="subset"
        How both vectors read an absent item: unknown, or below every present item.

    Returns
    -------
    int or float
        The count of discordant pairs among the pairs strictly ordered in both rankings
        (see the module docstring), or its normalised value in ``[0, 1]``.

    Notes
    -----
    Complexity: O(m^2) time (O(m log m) for two permutations with m >= 24), O(m) memory.

    Examples
    --------
    >>> kendall_distance([0, 1, 2, 3], [3, 2, 1, 0])
    6
    >>> kendall_distance([0, 1, 2, -1], [1, 0, 2, 3], normalize=True)  # 1 of 3 pairs
    0.3333333333333333
    """
    normalize = bool(normalize)
    a, b = _check_pair_of_vectors(a, b)
    A = _vector_effective(a, kind)
    B = _vector_effective(b, kind)
    disc, comp = _kendall_counts_paired(A, B)
    if normalize:
        return float(_normalise(disc, comp)[0])
    return int(disc[0])


def kendall_counts(R: Any, R2: Any) -> tuple[np.ndarray, np.ndarray]:
    """Discordant and comparable pair counts of ``R[i]`` against ``R2[i]`` (row by row).

    Parameters
    ----------
    R, R2 : Rankings or array-like of 1-based ranks, shape (n, m)
        Read by :func:`~rankclust.check_rankings`; each with its own ``kind``. ``R2`` may
        also have a single row, compared with every row of ``R``.

    Returns
    -------
    discordant, comparable : ndarray of int64, shape (n,)
        Kendall's distance and the number of pairs strictly ordered in both rankings.
        ``(comparable - 2 * discordant) / comparable`` is Kendall's tau of the row.

    Notes
    -----
    Complexity: O(n m^2) time (O(n m log m) when all rows are complete and m >= 24),
    O(n m) memory.

    Examples
    --------
    >>> d, c = kendall_counts([[1, 2, 3], [1, 2, 0]], [[3, 2, 1], [2, 1, 3]])
    >>> d.tolist(), c.tolist()
    ([3, 1], [3, 1])
    """
    R = check_rankings(R, name="R")
    R2 = check_rankings(R2, name="R2", n_items=R.n_items)
    if R2.n_rankings not in (1, R.n_rankings):
        raise ValueError(f"R2 has {R2.n_rankings} rows; expected 1 or {R.n_rankings} (as R)")
    return _kendall_counts_paired(_effective_positions(R), _effective_positions(R2))


@validate_arguments(_ONE_TO_MANY_ARGS)
def kendall_distances(R: Any, center: Any, normalize: bool = False) -> np.ndarray:
    """Kendall's distance of every ranking of ``R`` to one position vector.

    Parameters
    ----------
    R : Rankings or array-like of 1-based ranks, shape (n, m)
        Partial rankings and ties allowed; ``R.kind`` is respected.
    center : array-like of int, shape (m,)
        0-based positions (``-1`` = unknown, ties allowed), e.g. a consensus ranking.
    normalize : bool, default=False
        Divide each count by the row's number of comparable pairs (0.0 when there is none).

    Returns
    -------
    ndarray, shape (n,)
        int64 counts, or float64 in ``[0, 1]`` when normalised.

    Notes
    -----
    Complexity: O(n m^2) time (O(n m log m) when everything is complete and m >= 24),
    O(n m) memory.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 0]], n_items=3)
    >>> kendall_distances(R, [0, 1, 2])
    array([0, 3, 1])
    """
    normalize = bool(normalize)
    R = check_rankings(R, name="R")
    c = _as_center(center, R.n_items, complete=False, metric="kendall")
    disc, comp = _kendall_counts_paired(_effective_positions(R), c)
    return _normalise(disc, comp) if normalize else disc


# --------------------------------------------------------------------------------------------
# Spearman, footrule, Hamming, Cayley (complete rankings)
# --------------------------------------------------------------------------------------------
def _complete_pair(
    a: Any, b: Any, metric: str, kind: str = "subset"
) -> tuple[np.ndarray, np.ndarray]:
    a, b = _check_pair_of_vectors(a, b)
    A = _vector_effective(a, kind)
    B = _vector_effective(b, kind)
    _require_complete(A, "a", metric)
    _require_complete(B, "b", metric)
    return A, B


def _one_to_many_complete(R: Any, center: Any, metric: str) -> tuple[np.ndarray, np.ndarray]:
    R = check_rankings(R, name="R")
    A = _effective_positions(R)
    _require_complete(A, "R", metric)
    c = _as_center(center, R.n_items, complete=True, metric=metric)
    return A, c


def _paired_raw(metric: str, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Raw distances of ``A[i]`` to ``B[i]`` (or ``B[0]``) for the complete-only metrics."""
    if metric == "spearman":
        return ((A - B) ** 2).sum(axis=1)
    if metric == "footrule":
        return np.abs(A - B).sum(axis=1)
    if metric == "hamming":
        return (A != B).sum(axis=1).astype(np.int64)
    # cayley, ulam
    out = np.zeros(A.shape[0], dtype=np.int64)
    order_B = np.ascontiguousarray(np.argsort(B, axis=1))
    kernel = _nb_cayley_paired if metric == "cayley" else _nb_ulam_paired
    kernel(np.ascontiguousarray(A), order_B, out)
    return out


def _finish(raw: np.ndarray, metric: str, m: int, normalize: bool) -> np.ndarray:
    return _normalise(raw, max_distance(metric, m)) if normalize else raw.astype(np.int64)


@validate_arguments(_VECTOR_ARGS)
def spearman_distance(
    a: Any, b: Any, normalize: bool = False, *, squared: bool = True, kind: str = "subset"
) -> Any:
    """Spearman's rho distance ``sum_j (a_j - b_j)^2`` between two complete rankings.

    Parameters
    ----------
    a, b : array-like of int, shape (m,)
        Permutations of ``0..m-1`` (positions; a ``kind="top"`` vector may miss one item).
    normalize : bool, default=False
        Divide by the maximum ``(m^3 - m) / 3`` (attained by reversal).
    squared : bool, default=True
        If False, return the square root (the Euclidean distance of the position vectors,
        a metric; the squared form violates the triangle inequality). With ``normalize`` the
        square root of the normalised value.
    kind : {"subset", "top"}, default="subset"

    Returns
    -------
    int or float

    Raises
    ------
    ValueError
        If either ranking is partial or has ties.

    Notes
    -----
    Complexity: O(m) time and memory.

    Examples
    --------
    >>> spearman_distance([0, 1, 2], [2, 1, 0])
    8
    >>> spearman_distance([0, 1, 2], [2, 1, 0], normalize=True)
    1.0
    """
    normalize = bool(normalize)
    A, B = _complete_pair(a, b, "spearman", kind)
    val = _finish(_paired_raw("spearman", A, B), "spearman", A.shape[1], normalize)[0]
    if not squared:
        return float(np.sqrt(val))
    return float(val) if normalize else int(val)


@validate_arguments(_VECTOR_ARGS)
def footrule_distance(a: Any, b: Any, normalize: bool = False, *, kind: str = "subset") -> Any:
    """Spearman's footrule ``sum_j |a_j - b_j|`` between two complete rankings.

    Parameters
    ----------
    a, b : array-like of int, shape (m,)
        Permutations of ``0..m-1``.
    normalize : bool, default=False
        Divide by the maximum ``floor(m^2 / 2)`` (attained by reversal).
    kind : {"subset", "top"}, default="subset"

    Returns
    -------
    int or float

    Notes
    -----
    Complexity: O(m) time and memory.

    Examples
    --------
    >>> footrule_distance([0, 1, 2, 3], [3, 2, 1, 0])
    8
    """
    normalize = bool(normalize)
    A, B = _complete_pair(a, b, "footrule", kind)
    val = _finish(_paired_raw("footrule", A, B), "footrule", A.shape[1], normalize)[0]
    return float(val) if normalize else int(val)


@validate_arguments(_VECTOR_ARGS)
def cayley_distance(a: Any, b: Any, normalize: bool = False, *, kind: str = "subset") -> Any:
    """Cayley's distance: the fewest transpositions turning ranking ``a`` into ``b``.

    Equal to ``m`` minus the number of cycles of the permutation ``a o b^{-1}``.

    Parameters
    ----------
    a, b : array-like of int, shape (m,)
        Permutations of ``0..m-1``.
    normalize : bool, default=False
        Divide by the maximum ``m - 1`` (attained by an m-cycle, e.g. a cyclic shift).
    kind : {"subset", "top"}, default="subset"

    Returns
    -------
    int or float

    Notes
    -----
    Complexity: O(m log m) time (the inverse of ``b``), O(m) memory.

    Examples
    --------
    >>> cayley_distance([0, 1, 2, 3], [1, 0, 3, 2])
    2
    """
    normalize = bool(normalize)
    A, B = _complete_pair(a, b, "cayley", kind)
    val = _finish(_paired_raw("cayley", A, B), "cayley", A.shape[1], normalize)[0]
    return float(val) if normalize else int(val)


@validate_arguments(_VECTOR_ARGS)
def hamming_distance(a: Any, b: Any, normalize: bool = False, *, kind: str = "subset") -> Any:
    """Hamming's distance: the number of items at different positions in two rankings.

    Parameters
    ----------
    a, b : array-like of int, shape (m,)
        Permutations of ``0..m-1``.
    normalize : bool, default=False
        Divide by the maximum ``m`` (attained by any derangement; 0 when ``m <= 1``).
    kind : {"subset", "top"}, default="subset"

    Returns
    -------
    int or float

    Notes
    -----
    Complexity: O(m) time and memory.

    Examples
    --------
    >>> hamming_distance([0, 1, 2, 3], [0, 1, 3, 2])
    2
    """
    normalize = bool(normalize)
    A, B = _complete_pair(a, b, "hamming", kind)
    val = _finish(_paired_raw("hamming", A, B), "hamming", A.shape[1], normalize)[0]
    return float(val) if normalize else int(val)


@validate_arguments(_VECTOR_ARGS)
def ulam_distance(a: Any, b: Any, normalize: bool = False, *, kind: str = "subset") -> Any:
    """Ulam's distance: the fewest moves (take one item out, put it elsewhere) from ``a`` to ``b``.

    Equal to ``m`` minus the length of the longest increasing subsequence of ``a`` read in the
    order of ``b`` (the largest set of items whose relative order both rankings share).

    Parameters
    ----------
    a, b : array-like of int, shape (m,)
        Permutations of ``0..m-1``.
    normalize : bool, default=False
        Divide by the maximum ``m - 1`` (attained by reversal; 0 when ``m <= 1``).
    kind : {"subset", "top"}, default="subset"

    Returns
    -------
    int or float

    Notes
    -----
    Complexity: O(m log m) time (patience sorting), O(m) memory.

    Examples
    --------
    >>> ulam_distance([0, 1, 2, 3], [1, 2, 3, 0])   # move item 0 from first to last
    1
    >>> ulam_distance([0, 1, 2, 3], [3, 2, 1, 0])
    3
    """
    normalize = bool(normalize)
    A, B = _complete_pair(a, b, "ulam", kind)
    val = _finish(_paired_raw("ulam", A, B), "ulam", A.shape[1], normalize)[0]
    return float(val) if normalize else int(val)


def _one_to_many(metric: str, R: Any, center: Any, normalize: Any) -> np.ndarray:
    normalize = bool(normalize)
    A, c = _one_to_many_complete(R, center, metric)
    return _finish(_paired_raw(metric, A, c), metric, A.shape[1], normalize)


@validate_arguments(_ONE_TO_MANY_ARGS)
def spearman_distances(
    R: Any, center: Any, normalize: bool = False, *, squared: bool = True
) -> np.ndarray:
    """Spearman's rho distance ``sum_j (r_j - c_j)^2`` of every ranking of ``R`` to a centre.

    Parameters
    ----------
    R : Rankings or array-like of 1-based ranks, shape (n, m)
        Complete rankings without ties (a ``kind="top"`` row may miss one item).
    center : array-like of int, shape (m,)
        A permutation of ``0..m-1`` (0-based positions).
    normalize : bool, default=False
        Divide by the maximum ``(m^3 - m) / 3``.
    squared : bool, default=True
        If False, return the square root (see :func:`spearman_distance`).

    Returns
    -------
    ndarray, shape (n,)
        int64; float64 when normalised or not squared.

    Raises
    ------
    ValueError
        Naming the first row of ``R`` (or the centre) that is partial or has ties.

    Notes
    -----
    Complexity: O(n m) time and memory.

    Examples
    --------
    >>> spearman_distances([[1, 2, 3], [3, 2, 1]], [0, 1, 2])
    array([0, 8])
    """
    out = _one_to_many("spearman", R, center, normalize)
    return out if squared else np.sqrt(out)


@validate_arguments(_ONE_TO_MANY_ARGS)
def footrule_distances(R: Any, center: Any, normalize: bool = False) -> np.ndarray:
    """Spearman's footrule ``sum_j |r_j - c_j|`` of every ranking of ``R`` to a centre.

    Parameters
    ----------
    R : Rankings or array-like of 1-based ranks, shape (n, m)
        Complete rankings without ties (a ``kind="top"`` row may miss one item).
    center : array-like of int, shape (m,)
        A permutation of ``0..m-1`` (0-based positions).
    normalize : bool, default=False
        Divide by the maximum ``floor(m^2 / 2)``.

    Returns
    -------
    ndarray, shape (n,)
        int64, or float64 in ``[0, 1]`` when normalised.

    Raises
    ------
    ValueError
        Naming the first row of ``R`` (or the centre) that is partial or has ties.

    Notes
    -----
    Complexity: O(n m) time and memory.

    Examples
    --------
    >>> footrule_distances([[1, 2, 3], [3, 2, 1]], [0, 1, 2])
    array([0, 4])
    """
    return _one_to_many("footrule", R, center, normalize)


@validate_arguments(_ONE_TO_MANY_ARGS)
def cayley_distances(R: Any, center: Any, normalize: bool = False) -> np.ndarray:
    """Cayley's distance (fewest transpositions) of every ranking of ``R`` to a centre.

    Parameters
    ----------
    R : Rankings or array-like of 1-based ranks, shape (n, m)
        Complete rankings without ties (a ``kind="top"`` row may miss one item).
    center : array-like of int, shape (m,)
        A permutation of ``0..m-1`` (0-based positions).
    normalize : bool, default=False
        Divide by the maximum ``m - 1``.

    Returns
    -------
    ndarray, shape (n,)
        int64, or float64 in ``[0, 1]`` when normalised.

    Raises
    ------
    ValueError
        Naming the first row of ``R`` (or the centre) that is partial or has ties.

    Notes
    -----
    Complexity: O(n m) time (cycle counting in a numba kernel), O(n m) memory.

    Examples
    --------
    >>> cayley_distances([[1, 2, 3], [3, 2, 1], [2, 3, 1]], [0, 1, 2])
    array([0, 1, 2])
    """
    return _one_to_many("cayley", R, center, normalize)


@validate_arguments(_ONE_TO_MANY_ARGS)
def hamming_distances(R: Any, center: Any, normalize: bool = False) -> np.ndarray:
    """Hamming's distance (items at different positions) of every ranking of ``R`` to a centre.

    Parameters
    ----------
    R : Rankings or array-like of 1-based ranks, shape (n, m)
        Complete rankings without ties (a ``kind="top"`` row may miss one item).
    center : array-like of int, shape (m,)
        A permutation of ``0..m-1`` (0-based positions).
    normalize : bool, default=False
        Divide by the maximum ``m`` (0 when ``m <= 1``).

    Returns
    -------
    ndarray, shape (n,)
        int64, or float64 in ``[0, 1]`` when normalised.

    Raises
    ------
    ValueError
        Naming the first row of ``R`` (or the centre) that is partial or has ties.

    Notes
    -----
    Complexity: O(n m) time and memory.

    Examples
    --------
    >>> hamming_distances([[1, 2, 3], [3, 2, 1]], [0, 1, 2])
    array([0, 2])
    """
    return _one_to_many("hamming", R, center, normalize)


@validate_arguments(_ONE_TO_MANY_ARGS)
def ulam_distances(R: Any, center: Any, normalize: bool = False) -> np.ndarray:
    """Ulam's distance (fewest item moves) of every ranking of ``R`` to a centre.

    Parameters
    ----------
    R : Rankings or array-like of 1-based ranks, shape (n, m)
        Complete rankings without ties (a ``kind="top"`` row may miss one item).
    center : array-like of int, shape (m,)
        A permutation of ``0..m-1`` (0-based positions).
    normalize : bool, default=False
        Divide by the maximum ``m - 1`` (0 when ``m <= 1``).

    Returns
    -------
    ndarray, shape (n,)
        int64, or float64 in ``[0, 1]`` when normalised.

    Raises
    ------
    ValueError
        Naming the first row of ``R`` (or the centre) that is partial or has ties.

    Notes
    -----
    ``m`` minus the longest increasing subsequence of each row read in the centre's order, by
    patience sorting in a numba kernel.

    Complexity: O(n m log m) time, O(n m) memory.

    Examples
    --------
    >>> ulam_distances([[1, 2, 3], [3, 2, 1], [2, 3, 1]], [0, 1, 2])
    array([0, 2, 1])
    """
    return _one_to_many("ulam", R, center, normalize)


#: Metric name -> one-to-many function ``f(R, center, normalize=False) -> (n,)``.
DISTANCES: dict[str, Callable[..., np.ndarray]] = {
    "kendall": kendall_distances,
    "spearman": spearman_distances,
    "footrule": footrule_distances,
    "cayley": cayley_distances,
    "hamming": hamming_distances,
    "ulam": ulam_distances,
}
_METRIC_ARGS = {"metric": [StrOptions(DISTANCES)]}
_TABLE_ARGS = {**_METRIC_ARGS, "normalize": ["boolean"]}


# --------------------------------------------------------------------------------------------
# paired and all-pairs
# --------------------------------------------------------------------------------------------
@validate_arguments(_TABLE_ARGS)
def paired_distances(
    R: Any, R2: Any, metric: str = "kendall", normalize: bool = False
) -> np.ndarray:
    """Distance of ``R[i]`` to ``R2[i]`` for every row ``i``.

    Parameters
    ----------
    R, R2 : Rankings or array-like of 1-based ranks, shape (n, m)
        Each read with its own ``kind``. ``R2`` may have a single row.
    metric : str, default="kendall"
        A key of :data:`DISTANCES`.
    normalize : bool, default=False
        Kendall: divide by the comparable pairs of each row; others: by
        :func:`max_distance`.

    Returns
    -------
    ndarray, shape (n,)
        int64, or float64 when normalised.

    Notes
    -----
    Complexity: Kendall O(n m^2) time (O(n m log m) on complete data with m >= 24);
    the others O(n m) (Cayley and Ulam O(n m log m)); O(n m) memory.

    Examples
    --------
    >>> paired_distances([[1, 2, 3], [1, 2, 3]], [[1, 2, 3], [3, 2, 1]], metric="footrule")
    array([0, 4])
    """
    normalize = bool(normalize)
    R = check_rankings(R, name="R")
    R2 = check_rankings(R2, name="R2", n_items=R.n_items)
    if R2.n_rankings not in (1, R.n_rankings):
        raise ValueError(f"R2 has {R2.n_rankings} rows; expected 1 or {R.n_rankings} (as R)")
    A = _effective_positions(R)
    B = _effective_positions(R2)
    if metric == "kendall":
        disc, comp = _kendall_counts_paired(A, B)
        return _normalise(disc, comp) if normalize else disc
    _require_complete(A, "R", metric)
    _require_complete(B, "R2", metric)
    return _finish(_paired_raw(metric, A, B), metric, R.n_items, normalize)


def _row_blocks(n: int, n_jobs: int) -> list[tuple[int, int]]:
    if n == 0:
        return []
    n_blocks = min(n, 1 if n_jobs == 1 else 8 * n_jobs)
    edges = np.linspace(0, n, n_blocks + 1).astype(int)
    return [(int(lo), int(hi)) for lo, hi in itertools.pairwise(edges.tolist()) if hi > lo]


def _run_blocks(fn: Callable[[int, int], None], n: int, n_jobs: int | None) -> None:
    """Call ``fn(lo, hi)`` on row blocks, on joblib threads (the kernels release the GIL)."""
    jobs = effective_n_jobs(n_jobs)
    blocks = _row_blocks(n, jobs)
    if jobs == 1 or len(blocks) <= 1:
        for lo, hi in blocks:
            fn(lo, hi)
    else:
        Parallel(n_jobs=jobs, backend="threading")(delayed(fn)(lo, hi) for lo, hi in blocks)


def _above_indicators(E: np.ndarray) -> np.ndarray:
    """Rows of ``U[u, v] = [u strictly above v]`` (both known), flattened, float32 (n, m*m)."""
    known = E >= 0
    U = (E[:, :, None] < E[:, None, :]) & known[:, :, None] & known[:, None, :]
    return U.reshape(E.shape[0], E.shape[1] ** 2).astype(np.float32)


def _kendall_counts_all_pairs(
    A: np.ndarray, B: np.ndarray, symmetric: bool, n_jobs: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """All-pairs discordant and comparable counts of effective positions (B is A when
    ``symmetric``). Three algorithms for one quantity, chosen by measured speed:

    * m < 24: two matrix products of the "u above v" indicator rows (BLAS),
      ``disc = U_A . U_B^T-transposed`` and ``conc = U_A . U_B``; float32 sums of 0/1 are exact
      (at most m^2 / 2 < 2^24);
    * m >= 24, all rows complete: inversion counts with a Fenwick tree, O(m log m) per pair;
    * otherwise: the O(m^2) pair loop.
    """
    n, m = A.shape
    n2 = B.shape[0]
    disc = np.zeros((n, n2), dtype=np.int64)
    if m < _FENWICK_MIN_ITEMS:
        comp = np.zeros((n, n2), dtype=np.int64)
        UB = _above_indicators(B)
        UBt = np.ascontiguousarray(UB.reshape(n2, m, m).transpose(0, 2, 1).reshape(n2, m * m))
        step = max(1, (1 << 22) // max(m * m, n2, 1))  # ~16 MB of float32 per product block
        for lo in range(0, n, step):
            UA = _above_indicators(A[lo : lo + step])
            d = UA @ UBt.T
            disc[lo : lo + step] = np.rint(d)
            comp[lo : lo + step] = np.rint(UA @ UB.T + d)
        return disc, comp
    if _complete_rows(A).all() and _complete_rows(B).all():
        order_A = np.ascontiguousarray(np.argsort(A, axis=1))

        def block(lo: int, hi: int) -> None:
            _nb_kendall_all_pairs_complete(order_A[lo:hi], B, disc[lo:hi], lo, symmetric)

        _run_blocks(block, n, n_jobs)
        comp = np.full((n, n2), m * (m - 1) // 2, dtype=np.int64)
        if symmetric:
            disc = disc + disc.T
        return disc, comp
    comp = np.zeros((n, n2), dtype=np.int64)

    def block(lo: int, hi: int) -> None:
        _nb_kendall_all_pairs(A[lo:hi], B, disc[lo:hi], comp[lo:hi], lo, symmetric)

    _run_blocks(block, n, n_jobs)
    if symmetric:
        disc = disc + disc.T
        comp = comp + comp.T
        comp[np.diag_indices(n)] = _kendall_counts_paired(A, A)[1]  # a row against itself
    return disc, comp


@validate_arguments(_TABLE_ARGS)
def pairwise_distances(
    R: Any,
    R2: Any = None,
    metric: str = "kendall",
    normalize: bool = False,
    n_jobs: int | None = None,
) -> np.ndarray:
    """Distances between every ranking of ``R`` and every ranking of ``R2``.

    Parameters
    ----------
    R : Rankings or array-like of 1-based ranks, shape (n, m)
    R2 : Rankings or array-like of 1-based ranks, shape (n2, m), optional
        Default: ``R`` itself (then only one triangle is computed and mirrored).
    metric : str, default="kendall"
        A key of :data:`DISTANCES`. Only ``"kendall"`` accepts partial rankings and ties.
    normalize : bool, default=False
        Kendall: divide each count by the pair's comparable pairs (0 when none); others:
        by :func:`max_distance`.
    n_jobs : int, optional
        Threads for the numba kernels (Kendall with m >= 24, Cayley, Ulam); joblib convention,
        None = 1, -1 = all cores.

    Returns
    -------
    ndarray, shape (n, n2)
        int64, or float64 when normalised.

    Notes
    -----
    Kendall, for m < 24 items, is two BLAS matrix products of the rows' "u above v"
    indicator vectors (length m^2); for m >= 24 a numba kernel over pairs of rows counts in
    O(m^2) per pair, or in O(m log m) (inversions counted with a Fenwick tree) when every
    row of both sets is a permutation. Cayley counts cycles in O(m) per pair and Ulam finds a
    longest increasing subsequence in O(m log m) per pair (numba);
    Spearman, footrule and Hamming use :func:`scipy.spatial.distance.cdist`. ``n_jobs``
    threads the numba kernels; the BLAS products use the BLAS library's own threads.

    Complexity: O(n n2 m^2) time for Kendall on partial data, O(n n2 m log m) on complete
    data with m >= 24 and for Ulam, O(n n2 m) for the others; O(n n2 + (n + n2) m^2) memory
    for Kendall with m < 24, O(n n2 + (n + n2) m) otherwise.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 0]], n_items=3)
    >>> pairwise_distances(R)
    array([[0, 3, 1],
           [3, 0, 0],
           [1, 0, 0]])
    """
    normalize = bool(normalize)
    R = check_rankings(R, name="R")
    symmetric = R2 is None
    R2 = R if symmetric else check_rankings(R2, name="R2", n_items=R.n_items)
    A = _effective_positions(R)
    B = A if symmetric else _effective_positions(R2)
    n, m = A.shape
    n2 = B.shape[0]

    if metric == "kendall":
        disc, comp = _kendall_counts_all_pairs(A, B, symmetric, n_jobs)
        return _normalise(disc, comp) if normalize else disc

    _require_complete(A, "R", metric)
    if not symmetric:
        _require_complete(B, "R2", metric)
    if metric in ("cayley", "ulam"):  # both symmetric in their two arguments
        raw = np.zeros((n, n2), dtype=np.int64)
        Ac = np.ascontiguousarray(A)
        order_B = np.ascontiguousarray(np.argsort(B, axis=1))
        kernel = _nb_cayley_all_pairs if metric == "cayley" else _nb_ulam_all_pairs

        def block(lo: int, hi: int) -> None:
            kernel(Ac[lo:hi], order_B, raw[lo:hi], lo, symmetric)

        _run_blocks(block, n, n_jobs)
        if symmetric:
            raw = raw + raw.T
    elif m == 0:
        raw = np.zeros((n, n2), dtype=np.int64)
    else:
        Af = A.astype(np.float64)
        Bf = B.astype(np.float64)
        if metric == "spearman":
            raw = cdist(Af, Bf, "sqeuclidean")
        elif metric == "footrule":
            raw = cdist(Af, Bf, "cityblock")
        else:  # hamming: cdist gives the fraction of differing entries
            raw = cdist(Af, Bf, "hamming") * m
        raw = np.rint(raw).astype(np.int64)
    return _finish(raw, metric, m, normalize)
