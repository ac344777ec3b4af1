"""The one data type of rankclust: :class:`Rankings`.

The rank-matrix convention
--------------------------
A collection of ``n`` rankings over ``m`` items is stored as an integer **rank matrix**
``ranks`` of shape ``(n, m)``:

* ``ranks[i, j]`` is the 0-based position of item ``j`` in ranking ``i`` (0 = best);
* ``-1`` means item ``j`` is absent from ranking ``i``;
* equal positions mean a tie (a bucket order). Positions are stored *dense*: the present items
  of a row occupy the positions ``0, 1, ..., b - 1`` where ``b`` is the number of buckets.

The matrix is stored in the smallest signed integer type that holds ``m`` (:func:`rank_dtype`:
int8 for ``m <= 127``, int16 up to 32,767, int32, int64): positions ``-1 .. m - 1``, the 1-based
ranks ``0 .. m`` of :meth:`Rankings.to_ranks` and the difference of two positions all fit, so
10**7 rankings of 50 items take 0.5 GB instead of 4 GB. Anything else (a sum, a product, a
position plus an offset, a sentinel beyond ``m``) must be computed in a wider type: numpy keeps
``int8 + python int`` in int8 and wraps silently. Numba kernels read the compact matrix directly
(numba widens every scalar operation on small integers to int64).

``kind`` says what an absent item means:

* ``"subset"`` -- a chain: absent items are *unknown* (missing labels in label ranking, chains in
  clustering, SUSHI set B, click orders);
* ``"top"`` -- a top-t list: every absent item ranks *below* every present item (ballots, the
  APA data, the heterogeneous rank data of Busse et al.).

Optional ``weights`` (one non-negative number per ranking, e.g. counts of identical ballots)
and ``items`` (names) travel with the data. Validation happens once, at construction; every
error names the offending row. Nothing downstream re-validates a :class:`Rankings`.

Most of the mathematics in rankclust reduces to the **pairwise count matrix**
``C[u, v] = sum_i w_i [u ranked above v in ranking i]``, computed by
:meth:`Rankings.pairwise_counts`, optionally per cluster with hard labels or soft
responsibilities.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral
from typing import Any, Literal

import numba
import numpy as np

from rankclust._dataframes import is_dataframe
from rankclust._limits import check_alloc
from rankclust._param_validation import (
    Interval,
    StrOptions,
    check_sample_weight,
    check_weight_total,
    validate_arguments,
    validate_params,
)

__all__ = [
    "KINDS",
    "MAX_PAIRWISE_BYTES",
    "MAX_RANK_MATRIX_BYTES",
    "Rankings",
    "check_rankings",
    "rank_dtype",
]

KINDS = ("subset", "top")
_N_ITEMS = [None, Interval(Integral, 0, None)]  # the n_items argument of the constructors
Kind = Literal["subset", "top"]

#: Rows converted at a time when a rank matrix is validated and re-numbered: bounds the int64
#: working copy to ``_BLOCK_ROWS x m`` whatever the size of the input.
_BLOCK_ROWS = 1 << 16

# a forced storage dtype (tests and benchmarks compare int64 against compact storage)
_FORCED_DTYPE: np.dtype | None = None


def rank_dtype(n_items: int) -> np.dtype:
    """The integer type of a rank matrix over ``n_items`` items: the smallest that holds it.

    int8 for ``n_items <= 127``, int16 up to 32,767, int32 up to 2**31 - 1, else int64. The
    bound keeps the 1-based ranks ``0 .. m`` (:meth:`Rankings.to_ranks`) and the difference of
    two positions within the type.

    Examples
    --------
    >>> rank_dtype(50), rank_dtype(127), rank_dtype(128)
    (dtype('int8'), dtype('int8'), dtype('int16'))
    """
    if _FORCED_DTYPE is not None:
        return _FORCED_DTYPE
    for t in (np.int8, np.int16, np.int32):
        if n_items <= np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.int64)


class _force_rank_dtype:
    """Context manager: store every Rankings built inside in ``dtype`` (private; for tests that
    compare compact storage against int64 and for benchmarks that time both)."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = None if dtype is None else np.dtype(dtype)

    def __enter__(self) -> None:
        global _FORCED_DTYPE
        self._saved = _FORCED_DTYPE
        _FORCED_DTYPE = self.dtype

    def __exit__(self, *exc: Any) -> None:
        global _FORCED_DTYPE
        _FORCED_DTYPE = self._saved


# --------------------------------------------------------------------------------------------
# kernels (private: inputs are trusted)
# --------------------------------------------------------------------------------------------
def _present_items(row, present):  # pragma: no cover - compiled below
    """Write the present items of ``row`` (position >= 0), in item order, to ``present``;
    return how many there are."""
    c = 0
    for j in range(row.shape[0]):
        if row[j] >= 0:
            present[c] = j
            c += 1
    return c


_nb_present_items = numba.njit(_present_items, cache=True, nogil=True)


def _pair_counts_soft(ranks, weights, out):  # pragma: no cover - compiled below
    """Accumulate ``out[k, u, v] += weights[i, k]`` for every row i with u above v.

    Only pairs of *present* items are counted. ``ranks`` (n, m) any integer type, ``weights`` (n, K)
    float64, ``out`` (K, m, m) float64, zero-initialised by the caller.
    """
    n, m = ranks.shape
    n_groups = weights.shape[1]
    present = np.empty(m, dtype=np.int64)
    for i in range(n):
        c = _nb_present_items(ranks[i], present)
        for a in range(c):
            u = present[a]
            ru = ranks[i, u]
            for b in range(c):
                v = present[b]
                if ru < ranks[i, v]:
                    for k in range(n_groups):
                        out[k, u, v] += weights[i, k]


def _pair_counts_hard(ranks, weights, labels, out):  # pragma: no cover - compiled below
    """Accumulate ``out[labels[i], u, v] += weights[i]`` for every row i with u above v."""
    n, m = ranks.shape
    present = np.empty(m, dtype=np.int64)
    for i in range(n):
        g = labels[i]
        w = weights[i]
        c = _nb_present_items(ranks[i], present)
        for a in range(c):
            u = present[a]
            ru = ranks[i, u]
            for b in range(c):
                v = present[b]
                if ru < ranks[i, v]:
                    out[g, u, v] += w


_nb_pair_counts_soft = numba.njit(_pair_counts_soft, cache=True, nogil=True)
_nb_pair_counts_hard = numba.njit(_pair_counts_hard, cache=True, nogil=True)


def _rows_already_dense(ranks, out):  # pragma: no cover - compiled below
    """``out[i]`` = row i holds exactly the positions 0..l-1 once each (no ties, no gaps)."""
    n, m = ranks.shape
    seen = np.zeros(m, dtype=np.int64)
    for i in range(n):
        length = 0
        for j in range(m):
            if ranks[i, j] >= 0:
                length += 1
        ok = True
        for j in range(m):
            p = ranks[i, j]
            if p >= 0:
                if p >= length or seen[p] == i + 1:
                    ok = False
                    break
                seen[p] = i + 1
        out[i] = ok


_nb_rows_already_dense = numba.njit(_rows_already_dense, cache=True, nogil=True)


def _dense_positions(ranks: np.ndarray) -> np.ndarray:
    """Re-number the present entries of each row to dense bucket positions 0..b-1.

    Absent entries (negative) stay -1. Rows that already hold the positions 0..l-1 (the common
    case: permutations and top-t lists) are checked in one O(n m) pass and kept as they are;
    only the others are sorted. O(n m log m) time in the worst case, O(n m) memory. Returns
    int64 (or ``ranks`` itself, of its own type, when every row is already dense and
    ``ranks`` is a contiguous integer array).
    """
    n, m = ranks.shape
    ranks = np.ascontiguousarray(ranks)
    if n == 0 or m == 0:
        return ranks
    dense_rows = np.empty(n, dtype=np.bool_)
    _nb_rows_already_dense(ranks, dense_rows)
    if dense_rows.all():
        return ranks
    out = ranks.astype(np.int64)
    todo = ~dense_rows
    out[todo] = _sort_dense_positions(out[todo])
    return out


def _compact_rank_matrix(arr: np.ndarray, convert: Any, m: int | None = None) -> np.ndarray:
    """Validate, re-number and store a rank matrix in :func:`rank_dtype` block by block.

    ``convert(block, first_row)`` turns a block of input rows into int64 positions (``-1``
    absent) and raises the row-naming errors; it sees at most ``_BLOCK_ROWS`` rows, so the
    int64 working copy stays small whatever the size of ``arr``. O(n m log m) time in the
    worst case; memory: the compact result plus one block.
    """
    n = arr.shape[0]
    m = arr.shape[1] if m is None else m
    dtype = rank_dtype(m)
    check_alloc(float(dtype.itemsize) * n * m, MAX_RANK_MATRIX_BYTES, "the rank matrix")
    out = np.empty((n, m), dtype=dtype)
    for a in range(0, n, _BLOCK_ROWS):
        b = min(n, a + _BLOCK_ROWS)
        out[a:b] = _dense_positions(convert(arr[a:b], a))
    return out


def _sort_dense_positions(ranks: np.ndarray) -> np.ndarray:
    """Dense bucket positions by sorting each row. O(n m log m) time, O(n m) memory."""
    n, m = ranks.shape
    present = ranks >= 0
    big = np.iinfo(np.int64).max
    vals = np.where(present, ranks, big)
    order = np.argsort(vals, axis=1, kind="stable")
    sorted_vals = np.take_along_axis(vals, order, axis=1)
    new_bucket = np.zeros((n, m), dtype=np.int64)
    new_bucket[:, 1:] = sorted_vals[:, 1:] != sorted_vals[:, :-1]
    dense_sorted = np.cumsum(new_bucket, axis=1)
    dense = np.empty_like(dense_sorted)
    np.put_along_axis(dense, order, dense_sorted, axis=1)
    return np.where(present, dense, -1)


def _row_error(i: int, problem: str) -> ValueError:
    return ValueError(f"row {i}: {problem}")


# --------------------------------------------------------------------------------------------
# the type
# --------------------------------------------------------------------------------------------
class Rankings:
    """A collection of complete or partial rankings over a common set of items.

    Parameters
    ----------
    ranks : array-like of int, shape (n_rankings, n_items)
        0-based positions, ``-1`` for an absent item, equal positions for ties. Positions are
        re-numbered densely per row (``[0, 5, 5, -1]`` becomes ``[0, 1, 1, -1]``).
    kind : {"subset", "top"}, default="subset"
        Meaning of absent items: unknown (``"subset"``) or below every present item (``"top"``).
    weights : array-like of float, shape (n_rankings,), optional
        Non-negative weight per ranking (e.g. counts of identical ballots). Weighted data give
        the same fits as the data with each row repeated ``weights[i]`` times.
    items : sequence of str, optional
        Names of the items, length ``n_items``, distinct.

    Attributes
    ----------
    ranks : ndarray of int8, int16, int32 or int64, shape (n_rankings, n_items)
        The rank matrix, read-only, in the smallest signed integer type that holds ``n_items``
        (:func:`rank_dtype`: int8 up to 127 items). Widen before arithmetic that can leave the
        range ``-m .. m`` (sums, products, offsets).
    kind : str
    weights : ndarray of float64, shape (n_rankings,)
        Ones when the data were given without weights (see :attr:`is_weighted`).
    items : tuple of str or None

    See Also
    --------
    Rankings.from_orderings, Rankings.from_ranks, Rankings.from_pairs

    Notes
    -----
    Construction is O(n m log m) time and O(n m) memory: the compact matrix (n m bytes for
    up to 127 items) plus a working block of 65,536 rows.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[2, 0, 1], [0, 1]], n_items=3, kind="top")
    >>> R.ranks
    array([[ 1,  2,  0],
           [ 0,  1, -1]], dtype=int8)
    >>> R.pairwise_counts()
    array([[0., 2., 1.],
           [0., 0., 1.],
           [1., 1., 0.]])
    """

    __slots__ = ("_items", "_kind", "_ranks", "_weights")

    @validate_arguments({"kind": [StrOptions(KINDS)]})
    def __init__(
        self,
        ranks: Any,
        *,
        kind: Kind = "subset",
        weights: Any = None,
        items: Sequence[str] | None = None,
    ) -> None:
        arr = _as_2d(ranks, allow_nan=False)
        n, m = arr.shape
        self._ranks = _compact_rank_matrix(arr, _positions_block)
        self._ranks.setflags(write=False)
        self._kind = kind
        self._weights = _check_weights(weights, n)
        self._items = _check_items(items, m)

    # ---------------------------------------------------------------- constructors
    @classmethod
    @validate_arguments({"n_items": _N_ITEMS})
    def from_orderings(
        cls,
        orderings: Iterable[Sequence[Any]],
        n_items: int | None = None,
        *,
        kind: Kind = "subset",
        weights: Any = None,
        items: Sequence[str] | None = None,
    ) -> Rankings:
        """Build from orderings: each a sequence of 0-based items, best first.

        An element of an ordering may itself be a list, tuple or set of items: a bucket of
        tied items. Orderings may have different lengths (absent items are the ones not
        listed). A 2-d integer array of equal-length orderings takes a vectorised path.

        Parameters
        ----------
        orderings : iterable of sequences, or DataFrame
            ``orderings[i][p]`` is the item (or bucket of items) at position ``p``: a 0-based
            item index, or an item name when ``items`` is given. A pandas DataFrame is read
            row by row (column ``p`` = position ``p``); missing cells (NaN, None) end a
            shorter ordering and may only trail the present ones.
        n_items : int, optional
            Number of items; default ``len(items)`` if given, else the largest item + 1.
        kind, weights, items
            As in :class:`Rankings`.

        Raises
        ------
        ValueError
            Naming the row, on a duplicate item, a negative or out-of-range item, a
            non-integer item (or, with ``items``, a name not among them).

        Examples
        --------
        >>> Rankings.from_orderings([[1, (0, 2)]]).ranks
        array([[1, 0, 1]], dtype=int8)
        >>> Rankings.from_orderings([["b", "a"]], items=["a", "b", "c"]).ranks.tolist()
        [[1, 0, -1]]
        """
        if is_dataframe(orderings):
            orderings = _dataframe_orderings(orderings)
        if (
            isinstance(orderings, np.ndarray)
            and orderings.ndim == 2
            and orderings.dtype.kind in "iuf"
        ):
            return cls._from_ordering_matrix(
                orderings, n_items, kind=kind, weights=weights, items=items
            )
        if isinstance(orderings, np.ndarray):
            orderings = orderings.tolist()
        names = None if items is None else {str(x): j for j, x in enumerate(items)}
        rows: list[list[tuple[int, int]]] = []
        max_item = -1
        for i, ordering in enumerate(orderings):
            if isinstance(ordering, str | bytes) or not isinstance(ordering, Iterable):
                raise _row_error(i, f"an ordering must be a sequence of items, got {ordering!r}")
            seen: set[int] = set()
            row: list[tuple[int, int]] = []
            for pos, entry in enumerate(ordering):
                bucket = entry if isinstance(entry, list | tuple | set | frozenset) else (entry,)
                if len(bucket) == 0:
                    raise _row_error(i, f"empty bucket at position {pos}")
                for item in bucket:
                    j = _as_item(item, i, names)
                    if j in seen:
                        shown = repr(item) if isinstance(item, str) else j
                        raise _row_error(i, f"item {shown} appears more than once")
                    seen.add(j)
                    row.append((j, pos))
                    max_item = max(max_item, j)
            rows.append(row)
        if n_items is None:
            n_items = len(items) if items is not None else max_item + 1
        n_items = int(n_items)
        dtype = rank_dtype(n_items)
        check_alloc(dtype.itemsize * len(rows) * n_items, MAX_RANK_MATRIX_BYTES, "the rank matrix")
        ranks = np.full((len(rows), n_items), -1, dtype=dtype)
        for i, row in enumerate(rows):
            for j, pos in row:
                if j >= n_items:
                    raise _row_error(i, f"item {j} is out of range [0, {n_items})")
                ranks[i, j] = pos
        return cls(ranks, kind=kind, weights=weights, items=items)

    @classmethod
    def _from_ordering_matrix(
        cls,
        orderings: np.ndarray,
        n_items: int | None,
        *,
        kind: Kind,
        weights: Any,
        items: Sequence[str] | None,
    ) -> Rankings:
        """Vectorised :meth:`from_orderings` for a 2-d array of equal-length orderings."""
        if orderings.dtype.kind == "f":
            bad = orderings != np.round(orderings)
            if bad.any():
                i, j = (int(x) for x in np.argwhere(bad)[0])
                raise _row_error(i, f"item {orderings[i, j].item()!r} is not an integer")
        elif orderings.dtype.kind not in "iu":
            raise TypeError(f"orderings must hold integers, got dtype {orderings.dtype}")
        arr = orderings.astype(np.int64)
        n, length = arr.shape
        if (arr < 0).any():
            i, j = (int(x) for x in np.argwhere(arr < 0)[0])
            raise _row_error(i, f"item {arr[i, j]} is negative")
        if n_items is None:
            n_items = len(items) if items is not None else (int(arr.max()) + 1 if arr.size else 0)
        n_items = int(n_items)
        dtype = rank_dtype(n_items)
        check_alloc(dtype.itemsize * n * n_items, MAX_RANK_MATRIX_BYTES, "the rank matrix")
        if (arr >= n_items).any():
            i, j = (int(x) for x in np.argwhere(arr >= n_items)[0])
            raise _row_error(i, f"item {arr[i, j]} is out of range [0, {n_items})")
        sorted_items = np.sort(arr, axis=1)
        dup = sorted_items[:, 1:] == sorted_items[:, :-1]
        if dup.any():
            i, j = (int(x) for x in np.argwhere(dup)[0])
            raise _row_error(i, f"item {sorted_items[i, j]} appears more than once")
        del sorted_items, dup
        # distinct items in range: length <= n_items, so every position fits the dtype
        ranks = np.full((n, n_items), -1, dtype=dtype)
        ranks[np.arange(n)[:, None], arr] = np.arange(length)
        return cls(ranks, kind=kind, weights=weights, items=items)

    @classmethod
    def from_ranks(
        cls,
        ranks: Any,
        *,
        kind: Kind = "subset",
        weights: Any = None,
        items: Sequence[str] | None = None,
    ) -> Rankings:
        """Build from 1-based ranks with 0 or NaN for a missing item.

        This is the format of the label-ranking CSV files: ``ranks[i, j]`` is the rank of
        label ``j`` (1 = best). Equal ranks are ties. A pandas DataFrame keeps its column
        names as ``items`` (unless ``items`` is given; default integer columns ``0..m-1``
        mean unnamed items); see also :meth:`from_dataframe`.

        Raises
        ------
        ValueError
            On ragged input, a negative, infinite or non-integer rank (naming the row).

        Examples
        --------
        >>> Rankings.from_ranks([[2, 1, 3], [1, 0, 2]]).ranks
        array([[ 1,  0,  2],
               [ 0, -1,  1]], dtype=int8)
        """
        if is_dataframe(ranks):
            from rankclust._dataframes import dataframe_rank_matrix

            ranks, names = dataframe_rank_matrix(ranks)
            items = names if items is None else items
        validate_params({"kind": kind}, {"kind": [StrOptions(KINDS)]}, "Rankings")
        arr = _as_2d(ranks, allow_nan=True)
        compact = _compact_rank_matrix(arr, _one_based_block)
        return cls._from_trusted(
            compact,
            kind=kind,
            weights=_check_weights(weights, compact.shape[0]),
            items=_check_items(items, compact.shape[1]),
        )

    @classmethod
    @validate_arguments({"n_items": _N_ITEMS})
    def from_pairs(
        cls,
        pairs: Any,
        n_items: int | None = None,
        *,
        weights: Any = None,
        items: Sequence[str] | None = None,
    ) -> Rankings:
        """Build from pairwise preferences ``(u, v)`` meaning "u is preferred to v".

        Each pair becomes a ranking of two items of kind ``"subset"``.

        Examples
        --------
        >>> Rankings.from_pairs([(2, 0)], n_items=3).ranks.tolist()
        [[1, -1, 0]]
        """
        arr = np.asarray(pairs)
        if arr.size == 0 and arr.shape[0] == 0:
            arr = arr.reshape(0, 2)
        if arr.ndim != 2 or arr.shape[1] != 2:
            raise ValueError(f"pairs must have shape (n_pairs, 2), got {arr.shape}")
        for i, (u, v) in enumerate(arr.tolist()):
            if u == v:
                raise _row_error(i, f"pair ({u}, {v}) compares an item with itself")
        return cls.from_orderings(
            [list(p) for p in arr.tolist()], n_items, kind="subset", weights=weights, items=items
        )

    @classmethod
    def from_dataframe(
        cls,
        df: Any,
        layout: Literal["wide", "long"] = "wide",
        *,
        kind: Kind | None = None,
        items: Sequence[str] | None = None,
        respondent: str = "respondent",
        item: str = "item",
        rank: str = "rank",
        weight: str | None = "weight",
    ) -> Rankings:
        """Build from a pandas DataFrame of 1-based ranks (the inverse of :meth:`to_dataframe`).

        Parameters
        ----------
        df : pandas.DataFrame
            ``layout="wide"``: one row per ranking, one column per item holding its 1-based
            rank (0, NaN or ``<NA>`` = absent; equal ranks = ties). ``layout="long"``: one
            row per (ranking, item) with columns ``respondent``, ``item`` and ``rank``;
            rankings follow the order in which their respondent first appears, and an item
            with no row in a ranking is absent from it (a row whose item is missing keeps an
            otherwise empty ranking).
        layout : {"wide", "long"}, default="wide"
        kind : {"subset", "top"}, optional
            Default: the one :meth:`to_dataframe` stored in ``df.attrs``, else ``"subset"``.
        items : sequence of str, optional
            Item names, in item order. Wide: default the column names. Long: default the
            categories of a categorical ``item`` column, else the sorted distinct items.
            Integer labels ``0..m-1`` in that order mean unnamed items.
        respondent, item, rank : str
            Column names of the long layout.
        weight : str or None, default="weight"
            Column holding one weight per ranking (constant within a respondent in the long
            layout), used when present; None reads no weights.

        Returns
        -------
        Rankings

        Raises
        ------
        ValueError
            On a missing or non-numeric column, a repeated (respondent, item) pair, or a
            weight that varies within one respondent, naming the offending row.

        Notes
        -----
        pandas is imported only here (the optional extra ``rankclust[pandas]``).
        Complexity: O(n m) time and memory (O(rows log rows) for the long layout).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": [1, 2], "b": [2, None], "c": [3, 1]})
        >>> R = Rankings.from_dataframe(df)
        >>> R.items, R.ranks.tolist()
        (('a', 'b', 'c'), [[0, 1, 2], [1, -1, 0]])
        """
        from rankclust._dataframes import rankings_from_dataframe

        return rankings_from_dataframe(
            cls, df, layout, kind=kind, items=items, respondent=respondent, item=item,
            rank=rank, weight=weight,
        )  # fmt: skip

    def to_dataframe(
        self,
        layout: Literal["wide", "long"] = "wide",
        *,
        index: Any = None,
        respondent: str = "respondent",
        item: str = "item",
        rank: str = "rank",
        weight: str = "weight",
    ) -> Any:
        """The rankings as a pandas DataFrame of 1-based ranks.

        Parameters
        ----------
        layout : {"wide", "long"}, default="wide"
            ``"wide"``: one row per ranking, one column per item (its 1-based rank, ``<NA>``
            when absent; nullable ``Int64`` when some item is absent). ``"long"``: one row
            per (ranking, present item) with columns ``respondent``, ``item`` (categorical,
            categories = all items in order) and ``rank``; an empty ranking keeps one row
            with a missing item and rank.
        index : array-like, shape (n_rankings,), optional
            Row ids: the wide frame's index, or the long frame's ``respondent`` values
            (default ``0..n-1``).
        respondent, item, rank, weight : str
            Column names. The ``weight`` column is written only for weighted rankings.

        Returns
        -------
        pandas.DataFrame
            ``df.attrs["rankclust_kind"]`` holds ``kind``, so
            ``Rankings.from_dataframe(R.to_dataframe(layout), layout) == R``.

        Notes
        -----
        Unnamed items become the integer columns (or categories) ``0..m-1``.
        Complexity: O(n m) time and memory.

        Examples
        --------
        >>> R = Rankings.from_orderings([["b", "a"]], items=["a", "b", "c"])
        >>> R.to_dataframe()
           a  b     c
        0  2  1  <NA>
        """
        from rankclust._dataframes import rankings_to_dataframe

        return rankings_to_dataframe(
            self, layout, index=index, respondent=respondent, item=item, rank=rank,
            weight=weight,
        )  # fmt: skip

    # ---------------------------------------------------------------- basic properties
    @property
    def ranks(self) -> np.ndarray:
        return self._ranks

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def weights(self) -> np.ndarray:
        if self._weights is None:
            return np.ones(self.n_rankings)
        return self._weights

    @property
    def is_weighted(self) -> bool:
        return self._weights is not None

    @property
    def items(self) -> tuple[str, ...] | None:
        return self._items

    @property
    def n_rankings(self) -> int:
        return self._ranks.shape[0]

    @property
    def n_items(self) -> int:
        return self._ranks.shape[1]

    @property
    def shape(self) -> tuple[int, int]:
        return self._ranks.shape

    @property
    def present(self) -> np.ndarray:
        """Boolean mask, shape (n, m): item present in ranking."""
        return self._ranks >= 0

    @property
    def lengths(self) -> np.ndarray:
        """Number of present items per ranking, shape (n,), int64."""
        out = np.empty(self.n_rankings, dtype=np.int64)
        for a in range(0, self.n_rankings, _BLOCK_ROWS):  # no (n, m) boolean temporary
            b = a + _BLOCK_ROWS
            np.sum(self._ranks[a:b] >= 0, axis=1, out=out[a:b])
        return out

    @property
    def rank_dtype(self) -> np.dtype:
        """The integer type of :attr:`ranks` (:func:`rank_dtype` of ``n_items``)."""
        return self._ranks.dtype

    @property
    def n_buckets(self) -> np.ndarray:
        """Number of distinct positions per ranking, shape (n,), int64."""
        return self._ranks.max(axis=1, initial=-1).astype(np.int64) + 1

    @property
    def has_ties(self) -> np.ndarray:
        """Per-row flag: the ranking has at least two items in one position."""
        return self.n_buckets < self.lengths

    @property
    def is_complete(self) -> bool:
        """True when every ranking orders all items without ties."""
        return bool((self.lengths == self.n_items).all() and not self.has_ties.any())

    def item_name(self, j: int) -> str:
        """Name of item ``j`` (its index as a string when no names were given)."""
        return self._items[j] if self._items is not None else str(j)

    def __len__(self) -> int:
        return self.n_rankings

    def __repr__(self) -> str:
        w = ", weighted" if self.is_weighted else ""
        return f"Rankings(n_rankings={self.n_rankings}, n_items={self.n_items}, kind={self.kind!r}{w})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Rankings):
            return NotImplemented
        return (
            self.kind == other.kind
            and self.items == other.items
            and np.array_equal(self.ranks, other.ranks)
            and np.array_equal(self.weights, other.weights)
            and self.is_weighted == other.is_weighted
        )

    __hash__ = None  # mutable-looking container semantics: not hashable

    def __getitem__(self, index: Any) -> Rankings:
        """Rows selected by an int, slice, boolean mask or index array, as a new Rankings."""
        if isinstance(index, int | np.integer):
            index = [int(index)]
        ranks = self._ranks[index]
        weights = None if self._weights is None else self._weights[index]
        return self._replace(ranks=ranks, weights=weights)

    @classmethod
    def _from_trusted(
        cls,
        ranks: np.ndarray,
        *,
        kind: str = "subset",
        weights: np.ndarray | None = None,
        items: tuple[str, ...] | None = None,
    ) -> Rankings:
        """Wrap a rank matrix that is already dense and valid (e.g. a sampler's output).

        No validation and no re-numbering: for library kernels whose output is correct by
        construction. O(1) beyond a possible conversion to :func:`rank_dtype`.
        """
        new = object.__new__(cls)
        ranks = np.asarray(ranks)
        new._ranks = np.ascontiguousarray(ranks, dtype=rank_dtype(ranks.shape[-1]))
        new._ranks.setflags(write=False)
        new._kind = kind
        new._weights = weights
        new._items = items
        return new

    def _replace(self, **changes: Any) -> Rankings:
        """A new Rankings sharing the unchanged fields; inputs are trusted (no validation)."""
        return Rankings._from_trusted(
            changes.get("ranks", self._ranks),
            kind=changes.get("kind", self._kind),
            weights=changes.get("weights", self._weights),
            items=changes.get("items", self._items),
        )

    # ---------------------------------------------------------------- conversions
    def to_ranks(self) -> np.ndarray:
        """1-based ranks with 0 for absent items (the inverse of :meth:`from_ranks`).

        A new array in the type of :attr:`ranks` (the ranks ``0 .. m`` fit it).
        """
        return self._ranks + 1

    def to_orderings(self, *, buckets: bool = False) -> list[list[Any]]:
        """Orderings (best first) of the present items of each ranking.

        Parameters
        ----------
        buckets : bool, default=False
            If True, every position is a tuple of the items it holds (ties allowed). If False,
            positions are single items and a ranking with ties raises ``ValueError``.
        """
        out: list[list[Any]] = []
        ties = self.has_ties
        for i, row in enumerate(self._ranks):
            present = np.flatnonzero(row >= 0)
            order = present[np.argsort(row[present], kind="stable")]
            if buckets:
                pos = row[order]
                groups: dict[int, list[int]] = {}
                for j, p in zip(order.tolist(), pos.tolist(), strict=True):
                    groups.setdefault(p, []).append(j)
                out.append([tuple(groups[p]) for p in sorted(groups)])
            else:
                if ties[i]:
                    raise _row_error(i, "has ties; use to_orderings(buckets=True)")
                out.append(order.tolist())
        return out

    def with_weights(self, weights: Any) -> Rankings:
        """The same rankings with new weights (validated)."""
        return self._replace(weights=_check_weights(weights, self.n_rankings))

    @validate_arguments({"kind": [StrOptions(KINDS)]})
    def with_kind(self, kind: Kind) -> Rankings:
        """The same rankings read with another ``kind``."""
        return self._replace(kind=kind)

    def expand(self) -> Rankings:
        """Unweighted data with row ``i`` repeated ``weights[i]`` times (integer weights only)."""
        w = self.weights
        counts = np.round(w).astype(np.int64)
        if not np.allclose(counts, w):
            raise ValueError("expand() needs integer weights")
        return self._replace(ranks=np.repeat(self._ranks, counts, axis=0), weights=None)

    def unique(self) -> tuple[Rankings, np.ndarray]:
        """Distinct rankings with summed weights, and the index mapping rows to them.

        Returns
        -------
        distinct : Rankings
            Weighted, one row per distinct ranking (sorted lexicographically).
        inverse : ndarray of intp, shape (n_rankings,)
            ``distinct.ranks[inverse] == self.ranks``.
        """
        n, m = self.shape
        if n and m and m * np.log2(m + 1) < 62:
            # one integer key per row (base m+1 digits, lexicographic): a 1-d unique is ~10x
            # faster than np.unique(axis=0) and gives the same order
            digits = (m + 1) ** np.arange(m - 1, -1, -1, dtype=np.int64)
            key = (self._ranks + 1) @ digits
            _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            uniq = self._ranks[first]
        else:
            uniq, inverse = np.unique(self._ranks, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        w = np.bincount(inverse, weights=self.weights, minlength=len(uniq))
        return self._replace(ranks=uniq, weights=w), inverse

    @staticmethod
    def concatenate(parts: Sequence[Rankings]) -> Rankings:
        """Stack rankings over the same items and kind."""
        if not parts:
            raise ValueError("need at least one Rankings to concatenate")
        for p in parts:
            if not isinstance(p, Rankings):
                raise TypeError(f"can only concatenate Rankings, got {type(p).__name__}")
        first = parts[0]
        for p in parts[1:]:
            if p.n_items != first.n_items or p.kind != first.kind or p.items != first.items:
                raise ValueError("all parts must share n_items, kind and items")
        weighted = any(p.is_weighted for p in parts)
        weights = np.concatenate([p.weights for p in parts]) if weighted else None
        return first._replace(ranks=np.vstack([p.ranks for p in parts]), weights=weights)

    # ---------------------------------------------------------------- sufficient statistics
    def pairwise_counts(
        self,
        weights: Any = None,
        *,
        labels: Any = None,
        n_groups: int | None = None,
    ) -> np.ndarray:
        """Weighted pairwise count matrix ``C[u, v] = sum_i w_i [u above v in ranking i]``.

        For ``kind="subset"`` only pairs of present items count. For ``kind="top"`` a present
        item is also above every absent item (absent items are tied at the bottom).

        Parameters
        ----------
        weights : array-like, shape (n,) or (n, K), optional
            Row weights, or per-group responsibilities (one column per group). Multiplied
            by the rankings' own weights. Default: the rankings' weights.
        labels : array-like of int, shape (n,), optional
            Hard group labels in ``0..n_groups-1``; gives one matrix per group.
        n_groups : int, optional
            Number of groups for ``labels`` (default ``labels.max() + 1``).

        Returns
        -------
        C : ndarray of float64, shape (m, m), or (K, m, m) with 2-d weights or labels.

        Notes
        -----
        Complexity: O(sum_i l_i^2 K) time for row lengths l_i (plus an O(n m^2 K) matrix
        product for ``kind="top"``), O(K m^2) memory.
        """
        n, m = self.shape
        base = self.weights
        if labels is not None:
            lab = np.asarray(labels)
            if lab.shape != (n,):
                raise ValueError(f"labels must have shape ({n},), got {lab.shape}")
            if lab.dtype.kind == "f" and not np.all(lab == np.round(lab)):
                raise ValueError("labels must be integers")
            if lab.dtype.kind not in "iuf":
                raise TypeError(f"labels must be integers, got dtype {lab.dtype}")
            lab = lab.astype(np.int64)
            if n and lab.min() < 0:
                raise ValueError("labels must be non-negative")
            k = int(n_groups) if n_groups is not None else (int(lab.max()) + 1 if n else 0)
            if n and lab.max() >= k:
                raise ValueError(f"labels must be < n_groups={k}")
            w = base if weights is None else base * _check_row_weights(weights, n)
            check_alloc(8.0 * k * m * m, MAX_PAIRWISE_BYTES, f"pairwise counts over {m} items")
            out = np.zeros((k, m, m))
            _nb_pair_counts_hard(self._ranks, np.ascontiguousarray(w, dtype=np.float64), lab, out)
            if self._kind == "top":
                pres = self.present.astype(np.float64)
                for g in range(k):
                    sel = lab == g
                    out[g] += (pres[sel] * w[sel, None]).T @ (1.0 - pres[sel])
            return out
        if weights is None:
            w2 = base[:, None]
            squeeze = True
        else:
            wa = _check_row_weights(weights, n, ndim=(1, 2))
            squeeze = wa.ndim == 1
            if wa.ndim == 1:
                wa = wa[:, None]
            w2 = wa * base[:, None]
        w2 = np.ascontiguousarray(w2)
        check_alloc(
            8.0 * w2.shape[1] * m * m, MAX_PAIRWISE_BYTES, f"pairwise counts over {m} items"
        )
        out = np.zeros((w2.shape[1], m, m))
        _nb_pair_counts_soft(self._ranks, w2, out)
        if self._kind == "top":
            pres = self.present.astype(np.float64)
            absent = 1.0 - pres
            for g in range(w2.shape[1]):
                out[g] += (pres * w2[:, g : g + 1]).T @ absent
        return out[0] if squeeze else out


# --------------------------------------------------------------------------------------------
# boundary helpers
# --------------------------------------------------------------------------------------------
def check_rankings(
    R: Any,
    *,
    kind: Kind | None = None,
    allow_ties: bool = True,
    min_length: int = 0,
    n_items: int | None = None,
    kinds: Sequence[str] = KINDS,
    name: str = "R",
    items: Sequence[str] | None = None,
) -> Rankings:
    """Convert input to :class:`Rankings` and check what a method needs.

    A :class:`Rankings` is never re-validated; anything else is read as 1-based ranks with 0 or
    NaN for missing (:meth:`Rankings.from_ranks`) of the given ``kind`` (default "subset"); a
    pandas DataFrame keeps its column names as ``items``.

    **Item names** (the one home of this rule, used by every estimator's ``predict``,
    ``logpdf`` and ``score``): when ``items`` (the names seen in ``fit``) is given and ``R``
    has names too, the columns of ``R`` are matched by name and reordered to ``items``; a name
    that is unknown or missing is refused with one line. When either side has no names the
    columns are taken by position (only their number is checked), as scikit-learn does with
    ``feature_names_in_``.

    Parameters
    ----------
    R : Rankings or array-like
    kind : {"subset", "top"}, optional
        Kind for array input (ignored for a Rankings).
    allow_ties : bool, default=True
        If False, the first ranking with a tie raises ``ValueError`` naming its row.
    min_length : int, default=0
        Every ranking must have at least this many present items.
    n_items : int, optional
        Required number of items (e.g. the one seen in ``fit``).
    kinds : sequence of str
        The kinds the method supports.
    name : str
        Name of the argument, for messages.
    items : sequence of str, optional
        Item names seen in ``fit`` (an estimator's ``items_``): align ``R`` to them by name.
    """
    if is_dataframe(R):  # pandas' own reader: nullable columns, 0..m-1 labels unnamed
        R = Rankings.from_ranks(R, kind=kind or "subset")
    elif not isinstance(R, Rankings):
        names = _column_names(R)
        R = Rankings.from_ranks(
            R.to_numpy() if names is not None else R,
            kind=kind or "subset",
            items=names,
        )
    if R.kind not in kinds:
        raise ValueError(f"{name}: kind={R.kind!r} is not supported here (supported: {kinds})")
    if items is not None:
        R = _align_items(R, items, name=name)
    if n_items is not None and R.n_items != n_items:
        raise ValueError(f"{name} has {R.n_items} items, expected {n_items}")
    if not allow_ties:
        ties = R.has_ties
        if ties.any():
            i = int(np.flatnonzero(ties)[0])
            raise ValueError(f"{name}: row {i} has tied items, which this method does not support")
    if min_length > 0:
        short = R.lengths < min_length
        if short.any():
            i = int(np.flatnonzero(short)[0])
            raise ValueError(
                f"{name}: row {i} ranks {int(R.lengths[i])} items; this method needs at least "
                f"{min_length}"
            )
    return R


def _column_names(data: Any) -> list[str] | None:
    """The column names of a frame-like object other than a pandas DataFrame (``columns``
    and ``to_numpy``, as str), None for anything else."""
    columns = getattr(data, "columns", None)
    if columns is None or not hasattr(data, "to_numpy"):
        return None
    return [str(c) for c in columns]


def _align_items(R: Rankings, items: Sequence[str], *, name: str = "R") -> Rankings:
    """``R`` with its columns in the order of the names ``items`` (see :func:`check_rankings`).

    Returns ``R`` unchanged when it has no names or already has these names in this order.

    Raises
    ------
    ValueError
        When the names of ``R`` are not exactly ``items`` (in some order), naming up to five
        unknown and missing names.
    """
    items = tuple(items)
    if R.items is None or R.items == items:
        return R
    want = set(items)
    unknown = [x for x in R.items if x not in want]
    have = set(R.items)
    missing = [x for x in items if x not in have]
    if unknown or missing:
        parts = []
        if unknown:
            parts.append(f"unknown item(s) {_few(unknown)}")
        if missing:
            parts.append(f"missing item(s) {_few(missing)}")
        raise ValueError(
            f"{name}: item names do not match the {len(items)} items seen in fit: "
            + "; ".join(parts)
        )
    where = {x: j for j, x in enumerate(R.items)}
    cols = np.array([where[x] for x in items], dtype=np.intp)
    # a column permutation keeps every row's positions dense: no re-validation needed
    return R._replace(ranks=R.ranks[:, cols], items=items)


def _few(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(repr(x) for x in names[:limit])
    return shown + (f" (and {len(names) - limit} more)" if len(names) > limit else "")


def _as_2d(data: Any, *, allow_nan: bool) -> np.ndarray:
    if hasattr(data, "tocsr") or hasattr(data, "todense"):
        raise TypeError("sparse matrices are not supported as rankings; pass a dense array")
    if isinstance(data, np.ndarray):
        arr = data
    else:
        rows = list(data) if not hasattr(data, "__array__") else None
        if rows is not None:
            lengths = {len(r) if hasattr(r, "__len__") else -1 for r in rows}
            if len(lengths) > 1:
                first = len(rows[0]) if hasattr(rows[0], "__len__") else None
                for i, r in enumerate(rows):
                    if not hasattr(r, "__len__") or len(r) != first:
                        got = len(r) if hasattr(r, "__len__") else "a scalar"
                        raise ValueError(
                            f"ragged input: row {i} has {got} entries, expected {first}"
                        )
        try:
            arr = np.asarray(data)
        except ValueError as exc:  # numpy's own ragged error
            raise ValueError(f"ragged input: {exc}") from None
    if arr.ndim == 1 and arr.size == 0:
        arr = arr.reshape(0, 0)
    if arr.ndim != 2:
        raise ValueError(
            f"expected a 2-d array of shape (n_rankings, n_items), got ndim={arr.ndim}"
        )
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"ranks must be numeric, got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and not allow_nan and np.isnan(arr).any():
        i = int(np.argwhere(np.isnan(arr))[0, 0])
        raise _row_error(i, "NaN in a rank matrix (use -1 for absent items)")
    return arr


def _positions_block(arr: np.ndarray, first: int) -> np.ndarray:
    """0-based positions (``-1`` absent) of a block of rows as int64; errors name the row."""
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            i = int(np.argwhere(~np.isfinite(arr))[0, 0])
            raise _row_error(first + i, "non-finite position")
        nonint = arr != np.round(arr)
        if nonint.any():
            i, j = (int(x) for x in np.argwhere(nonint)[0])
            raise _row_error(
                first + i, f"position {arr[i, j].item()!r} of item {j} is not an integer"
            )
        if (np.abs(arr) >= 2**62).any():
            raise _row_error(
                first + int(np.argwhere(np.abs(arr) >= 2**62)[0, 0]), "position is too large"
            )
    elif arr.dtype == np.uint64 and (arr >= 2**62).any():
        raise _row_error(first + int(np.argwhere(arr >= 2**62)[0, 0]), "position is too large")
    arr = arr.astype(np.int64)
    bad = arr < -1
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise _row_error(
            first + i, f"position {arr[i, j]} of item {j} is below -1 (-1 marks absent)"
        )
    return arr


def _one_based_block(arr: np.ndarray, first: int) -> np.ndarray:
    """0-based positions of a block of 1-based ranks (0 or NaN absent), as int64."""
    if arr.dtype.kind == "f":
        bad = np.isinf(arr)
        if bad.any():
            raise _row_error(first + int(np.argwhere(bad)[0, 0]), "infinite rank")
        filled = np.where(np.isnan(arr), 0.0, arr)
        nonint = filled != np.round(filled)
        if nonint.any():
            i, j = (int(x) for x in np.argwhere(nonint)[0])
            raise _row_error(first + i, f"rank {arr[i, j].item()!r} of item {j} is not an integer")
        huge = np.abs(filled) >= 2**62
        if huge.any():
            raise _row_error(first + int(np.argwhere(huge)[0, 0]), "rank is too large")
        arr = filled
    elif arr.dtype == np.uint64 and (arr >= 2**62).any():
        raise _row_error(first + int(np.argwhere(arr >= 2**62)[0, 0]), "rank is too large")
    arr = arr.astype(np.int64)  # before the shift: unsigned 0 - 1 would wrap
    neg = arr < 0
    if neg.any():
        i, j = (int(x) for x in np.argwhere(neg)[0])
        raise _row_error(
            first + i, f"negative rank {arr[i, j]} for item {j} (use 0 or NaN for missing)"
        )
    arr -= 1
    return arr


def _dataframe_orderings(df: Any) -> list[list[Any]]:
    from rankclust._dataframes import dataframe_orderings

    return dataframe_orderings(df)


def _as_item(item: Any, row: int, names: dict[str, int] | None = None) -> int:
    """Index of one item of an ordering: an integer, or a name looked up in ``names``."""
    if isinstance(item, str) and names is not None:
        if item not in names:
            raise _row_error(row, f"item {item!r} is not one of the {len(names)} items")
        return names[item]
    if isinstance(item, bool | np.bool_):
        raise _row_error(row, f"item {item!r} is not an integer")
    if isinstance(item, int | np.integer):
        j = int(item)
    elif isinstance(item, float | np.floating) and float(item).is_integer():
        j = int(item)
    elif isinstance(item, str):
        raise _row_error(
            row, f"item {item!r} is not an integer (to give items by name, pass items=[...])"
        )
    else:
        raise _row_error(row, f"item {item!r} is not an integer")
    if j < 0:
        raise _row_error(row, f"item {j} is negative")
    if j >= 2**62:
        raise _row_error(row, f"item {j} is too large")
    return j


def _check_row_weights(weights: Any, n: int, *, ndim: tuple[int, ...] = (1,)) -> np.ndarray:
    """Finite, non-negative per-row weights of shape (n,) (or (n, K) when 2 in ``ndim``)."""
    return check_sample_weight(weights, n, name="weights", ndim=ndim)


#: Largest pairwise-count result (K m^2 float64) that pairwise_counts allocates.
MAX_PAIRWISE_BYTES = 4 * 2**30
#: Largest rank matrix (n m cells of :func:`rank_dtype`) that a constructor allocates.
MAX_RANK_MATRIX_BYTES = 8 * 2**30


def _check_weights(weights: Any, n: int) -> np.ndarray | None:
    if weights is None:
        return None
    w = check_sample_weight(weights, n, name="weights")
    check_weight_total(w)  # every fit sums them
    w.setflags(write=False)
    return w


def _check_items(items: Sequence[str] | None, m: int) -> tuple[str, ...] | None:
    if items is None:
        return None
    names = tuple(str(x) for x in items)
    if len(names) != m:
        raise ValueError(f"items has {len(names)} names for {m} items")
    if len(set(names)) != len(names):
        seen: set[str] = set()
        dup = next(x for x in names if x in seen or seen.add(x))
        raise ValueError(f"item name {dup!r} appears more than once")
    return names
