"""Chunked map/reduce machinery of the Dask back-end (DESIGN.md section 6).

Most of rankclust reduces data to per-cluster pairwise count matrices, ``K x m x m`` numbers
that are *summable across chunks of rankings*. An estimator that supports ``backend="dask"``
writes its iteration once, against an **executor** with three operations,

* ``map(fn, blocks, ...)`` -- run ``fn`` on every block and keep the results where they are
  (per-row state such as responsibilities or labels never leaves its block),
* ``sum(fn, blocks, ...)`` -- run ``fn`` on every block and add up the (small) results
  (count matrices, totals) by a pairwise tree,
* ``gather(objs)`` -- bring a few small results to the caller,

and the in-memory back-end is the same code run by :class:`EagerExecutor` on one block, while
:class:`DaskExecutor` runs it as Dask tasks on many (on a ``dask.distributed`` cluster when a
``Client`` is active, on Dask's default scheduler otherwise). The per-row arithmetic is the
same kernel call in both, so the results agree row by row; only sums over rows are added in a
different order (differences of a few ulps).

* :class:`ChunkedRankings` -- rankings split into row chunks held by Dask (from a
  ``dask.array`` of 1-based ranks, a ``dask.bag`` of orderings, delayed :class:`Rankings`, or
  an in-memory :class:`Rankings`).
* :func:`distinct_blocks` -- the distinct rankings of a :class:`ChunkedRankings` with summed
  weights, in the lexicographic order of :meth:`Rankings.unique`, split into blocks by a
  sample sort (so a fit on Dask sees the same rows, in the same order, as in memory).
* :func:`weighted_choice`, :func:`smallest_rows`, :func:`take_rows` -- the few global row
  operations an EM or k-means initialisation needs, reproducing ``RandomState.choice`` and a
  stable ``argsort`` exactly on one block.
* :func:`map_chunks_pairwise_counts` -- ``sum_chunks R_c.pairwise_counts(resp_fn(R_c))``.

Dask is an optional dependency (``pip install rankclust[dask]``); this module imports it only
when a Dask code path runs.
"""

from __future__ import annotations

import itertools
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankclust._param_validation import check_sample_weight, check_weight_shape
from rankclust.rankings import Rankings, check_rankings, rank_dtype

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "ChunkedRankings",
    "DaskExecutor",
    "EagerExecutor",
    "as_chunked",
    "distinct_blocks",
    "import_dask",
    "is_dask_collection",
    "map_chunks_pairwise_counts",
    "map_method",
    "reduce_sum",
    "smallest_rows",
    "take_rows",
    "weighted_choice",
]

#: Rows per chunk when in-memory rankings are run with ``backend="dask"``.
DEFAULT_CHUNK_SIZE = 100_000

_INSTALL_HINT = (
    "the Dask back-end needs dask and distributed: pip install rankclust[dask] "
    "(or pip install 'dask[distributed]')"
)


def import_dask() -> Any:
    """Import and return :mod:`dask` (with ``dask.array``), or raise a helpful ImportError."""
    try:
        import dask
        import dask.array
        import dask.delayed
    except ImportError as exc:  # pragma: no cover - dask is installed in the test environment
        raise ImportError(_INSTALL_HINT) from exc
    return dask


def is_dask_collection(x: Any) -> bool:
    """True for a Dask collection (array, bag, delayed) or a :class:`ChunkedRankings`.

    Never imports dask: an object can only be a Dask collection if dask is already imported.
    """
    if isinstance(x, ChunkedRankings):
        return True
    if "dask" not in sys.modules:
        return False
    import dask

    return bool(dask.is_dask_collection(x))


# --------------------------------------------------------------------------------------------
# summing small results
# --------------------------------------------------------------------------------------------
def _add(a: Any, b: Any) -> Any:
    """Element-wise sum of two results of the same structure (arrays, numbers, tuples, dicts)."""
    if isinstance(a, tuple | list):
        return type(a)(_add(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return {k: _add(a[k], b[k]) for k in a}
    return a + b


def reduce_sum(parts: Sequence[Any], add: Callable[[Any, Any], Any] = _add) -> Any:
    """Sum ``parts`` by a balanced pairwise tree (one part is returned unchanged).

    Works on concrete values and on ``dask.delayed`` objects alike (pass ``add`` wrapped in
    ``dask.delayed`` for the latter). A tree keeps the rounding error at O(log P) and lets
    Dask reduce in parallel.

    Complexity: O(P) additions of the parts' size, depth O(log P).
    """
    parts = list(parts)
    if not parts:
        raise ValueError("nothing to sum")
    while len(parts) > 1:
        nxt = [add(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        if len(parts) % 2:
            nxt.append(parts[-1])
        parts = nxt
    return parts[0]


# --------------------------------------------------------------------------------------------
# executors
# --------------------------------------------------------------------------------------------
class EagerExecutor:
    """Runs block functions immediately in this process (the in-memory back-end).

    With one block, ``sum`` returns the block's own result, so the arithmetic is exactly that
    of a plain in-memory implementation.
    """

    is_dask = False

    def map(self, fn: Callable, *blocks: Sequence[Any], **kwargs: Any) -> list:
        return [fn(*args, **kwargs) for args in zip(*blocks, strict=True)]

    def sum(self, fn: Callable, *blocks: Sequence[Any], **kwargs: Any) -> Any:
        return reduce_sum(self.map(fn, *blocks, **kwargs))

    def gather(self, objs: Sequence[Any]) -> list:
        return list(objs)

    def wait(self, objs: Sequence[Any]) -> None:
        """Nothing to wait for: eager results exist."""


class DaskExecutor:
    """Runs block functions as Dask tasks; ``map`` results stay in the cluster (persisted).

    Uses the active scheduler: a ``dask.distributed.Client`` when one exists (e.g. on a
    ``LocalCluster``), Dask's default threaded scheduler otherwise. Task keys are a random
    prefix and a counter (not one ``uuid4`` per task, which is slow on some machines).
    """

    is_dask = True

    def __init__(self) -> None:
        self._dask = import_dask()
        self._prefix = uuid.uuid4().hex[:12]
        self._count = itertools.count()

    def _tasks(self, fn: Callable, blocks: Sequence[Sequence[Any]], kwargs: dict) -> list:
        delayed = self._dask.delayed
        name = getattr(fn, "__name__", "block").lstrip("_")
        return [
            delayed(fn, pure=False)(
                *args, **kwargs, dask_key_name=f"{name}-{self._prefix}-{next(self._count)}"
            )
            for args in zip(*blocks, strict=True)
        ]

    def map(self, fn: Callable, *blocks: Sequence[Any], **kwargs: Any) -> list:
        return list(self._dask.persist(*self._tasks(fn, blocks, kwargs)))

    def sum(self, fn: Callable, *blocks: Sequence[Any], **kwargs: Any) -> Any:
        tasks = self._tasks(fn, blocks, kwargs)
        delayed = self._dask.delayed

        def add(a: Any, b: Any) -> Any:
            return delayed(_add, pure=False)(
                a, b, dask_key_name=f"add-{self._prefix}-{next(self._count)}"
            )

        (total,) = self._dask.compute(reduce_sum(tasks, add=add))
        return total

    def gather(self, objs: Sequence[Any]) -> list:
        return list(self._dask.compute(*objs))

    def wait(self, objs: Sequence[Any]) -> None:
        """Block until persisted results exist (so that set-up is not timed as iterations)."""
        try:
            from distributed import futures_of, wait
        except ImportError:  # pragma: no cover - persist was synchronous then
            return
        futures = futures_of(list(objs))
        wait(futures)
        for f in futures:
            if f.status == "error":
                f.result()  # raises the task's exception here, at the call that caused it


# --------------------------------------------------------------------------------------------
# global row operations on blocks
# --------------------------------------------------------------------------------------------
def _block_total(p: np.ndarray) -> float:
    return p.sum()


def _block_cum_last(p: np.ndarray, total: float) -> float:
    return np.cumsum(p / total)[-1] if len(p) else 0.0


def _block_search(p: np.ndarray, start: float, total: float, last: float, u: np.ndarray):
    """Local ``searchsorted`` of the uniforms in this block's slice of the global cdf."""
    if not len(p):
        return np.zeros(len(u), dtype=np.int64)
    cdf = (start + np.cumsum(p / total)) / last
    return np.searchsorted(cdf, u, side="right")


def weighted_choice(
    ex: Any,
    p_blocks: Sequence[Any],
    offsets: np.ndarray,
    rng: np.random.RandomState,
    size: int | None = None,
) -> tuple[Any, float]:
    """Draw global row indices with probability proportional to ``p`` (split in blocks).

    On one block this is exactly ``rng.choice(len(p), size, p=p / p.sum())`` (the same cdf,
    the same uniforms, the same ``searchsorted``), so in-memory and Dask fits draw the same
    rows; on several blocks the cdf is assembled from per-block cumulative sums.

    Parameters
    ----------
    ex : EagerExecutor or DaskExecutor
    p_blocks : sequence of (delayed) ndarray of float64, shape (u_b,)
        Non-negative weights per block.
    offsets : ndarray of int, shape (n_blocks + 1,)
        Global index of the first row of each block.
    rng : RandomState
    size : int or None

    Returns
    -------
    index : int or ndarray of int, or None
        None (and no random number drawn) when the weights do not sum to a positive number.
    total : float
        ``sum(p)``.

    Notes
    -----
    Complexity: three passes over the blocks' ``p`` (O(u) time), O(n_blocks) communication.
    """
    totals = ex.gather(ex.map(_block_total, p_blocks))
    total = reduce_sum(totals)
    if not total > 0:
        return None, float(total)
    lasts = ex.gather(ex.map(_block_cum_last, p_blocks, total=total))
    starts = [0.0]
    for v in lasts[:-1]:
        starts.append(starts[-1] + v)
    last = starts[-1] + lasts[-1]
    u = rng.random_sample(size)
    u_arr = np.atleast_1d(u)
    local = ex.gather(ex.map(_block_search, p_blocks, starts, total=total, last=last, u=u_arr))
    sizes = np.diff(offsets)
    out = np.empty(len(u_arr), dtype=np.int64)
    for j in range(len(u_arr)):
        for b, loc in enumerate(local):
            if loc[j] < sizes[b]:
                out[j] = offsets[b] + loc[j]
                break
        else:  # u beyond the last cdf value (cannot happen: the cdf ends at exactly 1)
            out[j] = offsets[-1] - 1
    return (int(out[0]) if size is None else out), float(total)


def _block_smallest(values: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(values, kind="stable")[:count]
    return values[order], order


def smallest_rows(ex: Any, value_blocks: Sequence[Any], offsets: np.ndarray, count: int):
    """Global indices of the ``count`` smallest values: ``np.argsort(v, kind="stable")[:count]``.

    Complexity: O(u log u) time per block, O(count n_blocks) communication.
    """
    parts = ex.gather(ex.map(_block_smallest, value_blocks, count=count))
    vals = np.concatenate([v for v, _ in parts])
    idx = np.concatenate([o + offsets[b] for b, (_, o) in enumerate(parts)])
    return idx[np.lexsort((idx, vals))][:count]


def _block_rows(data: Any, local: np.ndarray) -> np.ndarray:
    return data.ranks[local]


def take_rows(ex: Any, blocks: Sequence[Any], offsets: np.ndarray, index: Any) -> np.ndarray:
    """Rank-matrix rows at global indices ``index`` (blocks have a ``ranks`` attribute)."""
    index = np.atleast_1d(np.asarray(index, dtype=np.int64))
    which = np.searchsorted(offsets, index, side="right") - 1
    out = [None] * len(index)
    for b in np.unique(which):
        sel = np.flatnonzero(which == b)
        (rows,) = ex.gather([ex.map(_block_rows, [blocks[b]], local=index[sel] - offsets[b])[0]])
        for j, s in enumerate(sel):
            out[s] = rows[j]
    return np.asarray(out)


# --------------------------------------------------------------------------------------------
# chunked rankings
# --------------------------------------------------------------------------------------------
def _from_rank_block(
    block: np.ndarray, weights: Any, kind: str, items: Any, start: int, size: int | None = None
):
    if size is not None and np.shape(block)[:1] != (size,):
        raise _size_error(start, np.shape(block)[0] if np.ndim(block) else 0, size)
    try:
        return Rankings.from_ranks(block, kind=kind, weights=weights, items=items)
    except ValueError as exc:
        raise ValueError(f"in the chunk of rows starting at row {start}: {exc}") from None


def _size_error(where: Any, got: int, declared: int) -> ValueError:
    return ValueError(
        f"the chunk {where} holds {got} rows but its declared size is {declared}: the Dask "
        "collection's chunk sizes do not match its data"
    )


def _checked_chunk(R: Any, k: int, size: int, n_items: int) -> Rankings:
    """Chunk ``k`` as computed, verified against its declared size and number of items."""
    if not isinstance(R, Rankings):
        raise TypeError(f"chunk {k} computes to {type(R).__name__}, not Rankings")
    if R.n_rankings != size:
        raise _size_error(k, R.n_rankings, size)
    if R.n_items != n_items:
        raise ValueError(f"chunk {k} has {R.n_items} items, the collection declares {n_items}")
    return R


def _checked_rows(fn: Callable, R: Rankings, size: int, tail: tuple, **kwargs: Any):
    """``fn(R, **kwargs)``, verified to give one result per row (shape (size,) + tail)."""
    out = np.asarray(fn(R, **kwargs))
    if out.shape != (size, *tail):
        raise ValueError(
            f"a chunk of {size} rows gave a result of shape {out.shape}, expected "
            f"{(size, *tail)}: the Dask collection's chunk sizes do not match its data"
        )
    return out


def _from_order_part(part: Any, n_items: int, kind: str, items: Any) -> Rankings:
    return Rankings.from_orderings(list(part), n_items=n_items, kind=kind, items=items)


def _max_item(part: Any) -> int:
    return max((max(o) for o in part if len(o)), default=-1)


def _with_sample_weight(R: Rankings, sw: Any) -> Rankings:
    # (rows are numbered within the chunk in error messages)
    return R.with_weights(R.weights * check_sample_weight(sw, R.n_rankings))


@dataclass
class ChunkedRankings:
    """Rankings split into row chunks held by Dask: a lazy, distributed :class:`Rankings`.

    Each chunk is a (delayed) :class:`~rankclust.Rankings` over the same ``n_items`` items and
    ``kind``, with its own weights; the rank-matrix convention is that of
    :mod:`rankclust.rankings`. Build one with :meth:`from_dask_array`, :meth:`from_bag`,
    :meth:`from_rankings` or :meth:`from_delayed`; estimators with ``backend="dask"`` accept
    it (and the raw Dask collections) directly.

    Parameters
    ----------
    chunks : list of dask.delayed.Delayed
        Each computes to a :class:`Rankings`.
    n_items : int
    kind : {"subset", "top"}
    sizes : list of int, optional
        Rows per chunk, when known (computed on first use otherwise).
    items : tuple of str, optional

    Notes
    -----
    Complexity: O(1) to build; chunks are validated when first computed (errors name the
    first row of the failing chunk and the row inside it).

    Examples
    --------
    >>> import dask.array as da
    >>> X = da.from_array([[1, 2, 3], [3, 1, 0], [2, 0, 1]], chunks=2)
    >>> CR = ChunkedRankings.from_dask_array(X, kind="subset")
    >>> CR.n_rankings, CR.n_items, CR.n_chunks
    (3, 3, 2)
    >>> CR.to_rankings().to_orderings()
    [[0, 1, 2], [1, 0], [2, 0]]
    """

    chunks: list
    n_items: int
    kind: str
    sizes: list | None = None
    items: tuple | None = None

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_dask_array(
        cls,
        X: Any,
        *,
        kind: str = "subset",
        weights: Any = None,
        items: Sequence[str] | None = None,
    ) -> ChunkedRankings:
        """From a ``dask.array`` of 1-based ranks, shape (n, m), 0 or NaN for a missing item.

        The format of :meth:`Rankings.from_ranks`, chunked by rows (column chunks are
        merged). ``weights`` is an optional array of shape (n,) (numpy or Dask). Each chunk
        is stored in the compact rank type (:func:`~rankclust.rankings.rank_dtype`: one byte
        per cell up to 127 items), so an int8 array of ranks costs the same in the workers.
        """
        dask = import_dask()
        da = dask.array
        X = da.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-d (rankings x items), got {X.ndim} dimensions")
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        row_chunks = X.chunks[0]
        w_blocks = [None] * len(row_chunks)
        if weights is not None:
            w = da.asarray(weights).astype(np.float64)
            check_weight_shape(w.shape, X.shape[0], name="weights")
            w_blocks = list(w.rechunk((row_chunks,)).to_delayed().ravel())
        starts = np.concatenate([[0], np.cumsum(row_chunks)[:-1]])
        items = None if items is None else tuple(items)
        # Each block is checked against its declared number of rows: a collection built
        # with wrong chunk sizes must fail, not report the wrong count.
        chunks = [
            dask.delayed(_from_rank_block)(blk, wb, kind, items, int(s), int(c))
            for blk, wb, s, c in zip(
                X.to_delayed().ravel(), w_blocks, starts, row_chunks, strict=True
            )
        ]
        return cls(chunks, int(X.shape[1]), kind, [int(c) for c in row_chunks], items)

    @classmethod
    def from_bag(
        cls,
        bag: Any,
        *,
        n_items: int | None = None,
        kind: str = "subset",
        items: Sequence[str] | None = None,
    ) -> ChunkedRankings:
        """From a ``dask.bag`` of orderings (sequences of 0-based item indices, best first).

        ``n_items`` defaults to the largest item index plus one (one pass over the bag).
        """
        dask = import_dask()
        parts = bag.to_delayed()
        if n_items is None:
            n_items = int(max(dask.compute(*[dask.delayed(_max_item)(p) for p in parts]))) + 1
        items = None if items is None else tuple(items)
        chunks = [dask.delayed(_from_order_part)(p, n_items, kind, items) for p in parts]
        return cls(chunks, int(n_items), kind, None, items)

    @classmethod
    def from_rankings(
        cls, R: Rankings, *, chunk_size: int = DEFAULT_CHUNK_SIZE
    ) -> ChunkedRankings:
        """Split in-memory rankings into chunks of ``chunk_size`` rows."""
        dask = import_dask()
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
        bounds = [*range(0, R.n_rankings, chunk_size), R.n_rankings]
        if len(bounds) == 1:
            bounds = [0, 0]
        chunks = [dask.delayed(R[a:b]) for a, b in itertools.pairwise(bounds)]
        sizes = [b - a for a, b in itertools.pairwise(bounds)]
        return cls(chunks, R.n_items, R.kind, sizes, R.items)

    @classmethod
    def from_delayed(
        cls,
        parts: Sequence[Any],
        *,
        n_items: int,
        kind: str,
        sizes: Sequence[int] | None = None,
        items: Sequence[str] | None = None,
    ) -> ChunkedRankings:
        """From ``dask.delayed`` objects that compute to :class:`Rankings` (e.g. generators).

        Declared ``sizes`` are trusted for :attr:`n_rankings` but verified whenever a chunk
        is computed: a chunk whose row count (or number of items) differs raises a
        ``ValueError`` instead of giving wrongly shaped results.
        """
        dask = import_dask()
        parts = list(parts)
        if sizes is not None:
            sizes = [int(s) for s in sizes]
            if len(sizes) != len(parts):
                raise ValueError(f"{len(sizes)} sizes given for {len(parts)} chunks")
            if any(s < 0 for s in sizes):
                raise ValueError(f"chunk sizes must be non-negative, got {sizes}")
            parts = [
                dask.delayed(_checked_chunk)(p, k, s, int(n_items))
                for k, (p, s) in enumerate(zip(parts, sizes, strict=True))
            ]
        return cls(
            parts,
            int(n_items),
            kind,
            sizes,
            None if items is None else tuple(items),
        )

    # ------------------------------------------------------------------ properties
    @property
    def n_chunks(self) -> int:
        return len(self.chunks)

    @property
    def chunk_sizes(self) -> list:
        """Rows per chunk (computes the chunks' lengths once if unknown)."""
        if self.sizes is None:
            dask = import_dask()
            self.sizes = [int(s) for s in dask.compute(*[c.n_rankings for c in self.chunks])]
        return self.sizes

    @property
    def n_rankings(self) -> int:
        return int(sum(self.chunk_sizes))

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_rankings, self.n_items)

    def __len__(self) -> int:
        return self.n_rankings

    # ------------------------------------------------------------------ operations
    def map(self, fn: Callable, *args: Any, **kwargs: Any) -> ChunkedRankings:
        """``fn(chunk, *args, **kwargs)`` per chunk, returning Rankings of the same rows."""
        dask = import_dask()
        chunks = [dask.delayed(fn)(c, *args, **kwargs) for c in self.chunks]
        return ChunkedRankings(chunks, self.n_items, self.kind, self.sizes, self.items)

    def persist(self) -> ChunkedRankings:
        """Compute the chunks and keep them in the cluster's memory."""
        dask = import_dask()
        return ChunkedRankings(
            list(dask.persist(*self.chunks)), self.n_items, self.kind, self.sizes, self.items
        )

    def to_rankings(self) -> Rankings:
        """Compute every chunk and concatenate them in memory."""
        dask = import_dask()
        parts = [p for p in dask.compute(*self.chunks) if p.n_rankings]
        if not parts:
            return Rankings(
                np.empty((0, self.n_items), dtype=rank_dtype(self.n_items)), kind=self.kind
            )
        return Rankings.concatenate(parts)

    def map_rows(self, fn: Callable, tail: tuple = (), dtype: Any = np.float64, **kwargs: Any):
        """A ``dask.array`` of ``fn(chunk, **kwargs)``, one block of shape (n_c,) + tail each."""
        dask = import_dask()
        da = dask.array
        blocks = [
            da.from_delayed(
                dask.delayed(_checked_rows)(fn, c, s, tuple(tail), **kwargs),
                shape=(s, *tail),
                dtype=dtype,
            )
            for c, s in zip(self.chunks, self.chunk_sizes, strict=True)
        ]
        return da.concatenate(blocks, axis=0)


def _call_method(R: Rankings, est: Any, method: str) -> np.ndarray:
    return getattr(est, method)(R)


def map_method(est: Any, X: Any, method: str, tail: tuple = (), dtype: Any = np.float64) -> Any:
    """``getattr(est, method)(chunk)`` for every chunk of a Dask input, as a ``dask.array``.

    How a fitted estimator predicts, transforms or scores a Dask collection: row-wise
    methods need no communication between chunks. ``X`` is read with the estimator's fitted
    ``kind_`` (``"subset"`` when it has none).
    """
    CR = as_chunked(X, kind=getattr(est, "kind_", "subset"))
    return CR.map_rows(_call_method, tail=tail, dtype=dtype, est=est, method=method)


def as_chunked(
    X: Any,
    *,
    kind: str = "subset",
    sample_weight: Any = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> ChunkedRankings:
    """Any supported input as :class:`ChunkedRankings` (the boundary of the Dask back-end).

    ``X`` may be a :class:`ChunkedRankings`, a ``dask.array`` of 1-based ranks (``kind``
    applies), a ``dask.bag`` of orderings, or in-memory input (a :class:`Rankings` or 1-based
    ranks, split into ``chunk_size`` rows). ``sample_weight`` (numpy or Dask, shape (n,))
    multiplies the rankings' weights.
    """
    dask = import_dask()
    if isinstance(X, ChunkedRankings):
        CR = X
    elif dask.is_dask_collection(X):
        import dask.bag as db

        CR = (
            ChunkedRankings.from_bag(X, kind=kind)
            if isinstance(X, db.Bag)
            else ChunkedRankings.from_dask_array(X, kind=kind)
        )
    else:
        CR = ChunkedRankings.from_rankings(check_rankings(X, kind=kind), chunk_size=chunk_size)
    if sample_weight is None:
        return CR
    sizes = CR.chunk_sizes
    sw = dask.array.asarray(sample_weight).astype(np.float64)
    check_weight_shape(sw.shape, sum(sizes))
    sw_blocks = list(sw.rechunk((tuple(sizes),)).to_delayed().ravel())
    chunks = [
        dask.delayed(_with_sample_weight)(c, b) for c, b in zip(CR.chunks, sw_blocks, strict=True)
    ]
    return ChunkedRankings(chunks, CR.n_items, CR.kind, sizes, CR.items)


# --------------------------------------------------------------------------------------------
# distinct rankings by a sample sort
# --------------------------------------------------------------------------------------------
def _struct(ranks: np.ndarray) -> np.ndarray:
    """Rows viewed as records of signed integer fields (the compact rank type: no widened
    copy of a chunk): numpy compares records lexicographically."""
    m = ranks.shape[1]
    t = rank_dtype(m)
    dt = np.dtype([(f"f{j}", t) for j in range(m)])
    return np.ascontiguousarray(ranks, dtype=t).view(dt).reshape(-1)


def _local_unique(R: Rankings) -> Rankings:
    keep = R.weights > 0
    if not keep.all():
        R = R[np.flatnonzero(keep)]
    return R.unique()[0] if R.n_rankings else R.with_weights(np.zeros(0))


def _sample_rows(Ru: Rankings, count: int) -> np.ndarray:
    if not Ru.n_rankings:
        return Ru.ranks
    idx = np.unique(np.linspace(0, Ru.n_rankings - 1, count).round().astype(np.int64))
    return Ru.ranks[idx]


def _cut(Ru: Rankings, splitters: np.ndarray) -> list:
    if not len(splitters):
        return [Ru]
    cuts = np.searchsorted(_struct(Ru.ranks), _struct(splitters), side="left")
    bounds = [0, *cuts.tolist(), Ru.n_rankings]
    return [Ru[a:b] for a, b in itertools.pairwise(bounds)]


def _merge(pieces: list, j: int) -> Rankings:
    parts = [p[j] for p in pieces if p[j].n_rankings]
    if not parts:
        return pieces[0][j]
    return Rankings.concatenate(parts).unique()[0] if len(parts) > 1 else parts[0]


def _n_rows(R: Rankings) -> int:
    return R.n_rankings


def _weight(R: Rankings) -> float:
    return float(R.weights.sum())


def distinct_blocks(
    CR: ChunkedRankings, n_blocks: int | None = None, samples_per_chunk: int = 64
) -> tuple[list, np.ndarray, float]:
    """The distinct rankings of positive weight, weights summed, in blocks (a sample sort).

    The blocks, concatenated, are exactly ``R.unique()[0]`` of the rows of positive weight
    (same rows, same lexicographic order, weights summed in another order): each chunk is
    deduplicated locally, cut at ``n_blocks - 1`` splitter rows taken from evenly spaced
    samples of the chunks, and every block merges its pieces of all chunks. Identical rows
    always meet in one block, and block ``j`` holds the rows between splitters ``j - 1`` and
    ``j``.

    Parameters
    ----------
    CR : ChunkedRankings
    n_blocks : int, optional
        Default: the number of chunks.
    samples_per_chunk : int, default=64

    Returns
    -------
    blocks : list of persisted dask.delayed.Delayed
        Non-empty weighted :class:`Rankings`, in order.
    offsets : ndarray of int64, shape (len(blocks) + 1,)
        Global index of each block's first row (the last entry is the number of distinct rows).
    total_weight : float

    Notes
    -----
    Complexity: O(n m log n) time in total (local sorts), one all-to-all exchange of the
    distinct rows, O(n m / P) memory per block for P balanced blocks.
    """
    dask = import_dask()
    delayed = dask.delayed
    n_blocks = CR.n_chunks if n_blocks is None else int(n_blocks)
    local = list(dask.persist(*[delayed(_local_unique)(c) for c in CR.chunks]))
    samples = [
        s
        for s in dask.compute(*[delayed(_sample_rows)(u, samples_per_chunk) for u in local])
        if len(s)
    ]
    if samples:
        pool = np.unique(np.concatenate(samples), axis=0)
        pick = np.unique(np.linspace(0, len(pool), n_blocks + 1)[1:-1].astype(np.int64))
        splitters = pool[pick[(pick > 0) & (pick < len(pool))]]
    else:
        splitters = np.empty((0, CR.n_items), dtype=np.int64)
    pieces = [delayed(_cut)(u, splitters) for u in local]
    merged = [delayed(_merge)(pieces, j) for j in range(len(splitters) + 1)]
    merged = list(dask.persist(*merged))
    sizes = dask.compute(*[delayed(_n_rows)(b) for b in merged])
    weights = dask.compute(*[delayed(_weight)(b) for b in merged])
    keep = [j for j, s in enumerate(sizes) if s > 0]
    blocks = [merged[j] for j in keep]
    offsets = np.concatenate([[0], np.cumsum([sizes[j] for j in keep])]).astype(np.int64)
    return blocks, offsets, float(reduce_sum([weights[j] for j in keep]) if keep else 0.0)


# --------------------------------------------------------------------------------------------
# the sufficient statistic
# --------------------------------------------------------------------------------------------
def _chunk_pairwise_counts(R: Rankings, resp_fn: Callable | None) -> np.ndarray:
    if resp_fn is None:
        return R.pairwise_counts()
    return R.pairwise_counts(weights=resp_fn(R))


def map_chunks_pairwise_counts(CR: ChunkedRankings, resp_fn: Callable | None = None) -> np.ndarray:
    """``sum over chunks of R_c.pairwise_counts(weights=resp_fn(R_c))``, computed by Dask.

    Parameters
    ----------
    CR : ChunkedRankings
    resp_fn : callable, optional
        ``resp_fn(R_c) -> (n_c,) or (n_c, K)`` row weights or responsibilities of a chunk;
        None counts every ranking with its own weight.

    Returns
    -------
    C : ndarray of float64, shape (m, m) or (K, m, m)
        Equal (up to the order of the additions) to ``R.pairwise_counts(...)`` on the
        concatenated rankings.

    Notes
    -----
    Complexity: O(sum_i l_i^2 K) time spread over the chunks, O(K m^2) memory per chunk.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2], [1, 0], [2, 0, 1]], n_items=3)
    >>> C = map_chunks_pairwise_counts(ChunkedRankings.from_rankings(R, chunk_size=2))
    >>> bool((C == R.pairwise_counts()).all())
    True
    """
    return DaskExecutor().sum(_chunk_pairwise_counts, CR.chunks, resp_fn=resp_fn)
