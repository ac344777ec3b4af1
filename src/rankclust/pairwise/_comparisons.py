"""The sparse pairwise data type: one row per comparison, never a matrix over all items.

Storage is five arrays of length ``n`` (the number of comparison rows): ``winner`` and
``loser`` (item indices), ``assessor`` (an index, or -1 for all rows when no assessor is
given), ``count`` (a positive weight: how many times this comparison was observed) and
``tie`` (True when the two items were judged equal; ``winner``/``loser`` are then just the
two items). Memory is O(n) whatever the number of items.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from rankclust._limits import InputLimits, resolve_limits

__all__ = ["Comparisons"]

BreakMode = Literal["all", "adjacent", "top_vs_rest"]


def _int_array(values: Any, name: str, n: int | None) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} entries, expected {n}")
    if arr.size and arr.dtype.kind == "f":
        if not np.isfinite(arr).all() or (arr != np.round(arr)).any():
            bad = int(np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))[0])
            raise ValueError(f"{name}[{bad}] = {float(arr[bad])} is not an integer")
    elif arr.size and arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def _names(names: Sequence[Any] | None, size: int, what: str) -> tuple[str, ...] | None:
    if names is None:
        return None
    out = tuple(str(s) for s in names)
    if len(out) != size:
        raise ValueError(f"{what} has {len(out)} names, expected {size}")
    if len(set(out)) != len(out):
        seen: set[str] = set()
        dup = next(s for s in out if s in seen or seen.add(s))  # type: ignore[func-returns-value]
        raise ValueError(f"{what} name {dup!r} appears twice")
    return out


def _check_items(w: np.ndarray, lo: np.ndarray, n_items: Any, items: Any, lim: InputLimits) -> int:
    n = w.shape[0]
    if n_items is None:
        n_items = (
            len(items) if items is not None else (int(max(w.max(), lo.max())) + 1 if n else 0)
        )
    if isinstance(n_items, bool) or int(n_items) != n_items or n_items < 0:
        raise ValueError(f"n_items must be a non-negative integer, got {n_items!r}")
    n_items = int(n_items)
    if n_items > lim.max_items:
        raise ValueError(
            f"{n_items} items exceed max_items={lim.max_items}; "
            + InputLimits.how_to_raise("max_items")
        )
    for name, arr in (("winner", w), ("loser", lo)):
        bad = np.flatnonzero((arr < 0) | (arr >= n_items))
        if bad.size:
            k = int(bad[0])
            raise ValueError(f"row {k}: {name} {arr[k]} is not an item index in [0, {n_items})")
    same = np.flatnonzero(w == lo)
    if same.size:
        k = int(same[0])
        raise ValueError(f"row {k}: item {w[k]} is compared with itself")
    return n_items


def _check_assessor(assessor: Any, assessors: Any, n: int) -> tuple[np.ndarray, int]:
    if assessor is None:
        if assessors is not None and len(assessors):
            raise ValueError("assessors names given without an assessor array")
        return np.full(n, -1, dtype=np.int64), 0
    a = _int_array(assessor, "assessor", n)
    if n and a.min() < 0:
        k = int(np.flatnonzero(a < 0)[0])
        raise ValueError(f"row {k}: assessor {a[k]} is negative")
    n_assessors = len(assessors) if assessors is not None else (int(a.max()) + 1 if n else 0)
    if n and a.max() >= n_assessors:
        k = int(np.flatnonzero(a >= n_assessors)[0])
        raise ValueError(f"row {k}: assessor {a[k]} is not in [0, {n_assessors})")
    return a, n_assessors


def _check_count(count: Any, n: int) -> np.ndarray:
    if count is None:
        return np.ones(n)
    c = np.asarray(count, dtype=np.float64)
    if c.shape != (n,):
        raise ValueError(f"count has shape {c.shape}, expected ({n},)")
    bad = np.flatnonzero(~np.isfinite(c) | (c <= 0))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"row {k}: count {float(c[k])} is not a positive finite number")
    return c


def _check_tie(tie: Any, n: int) -> np.ndarray:
    if tie is None:
        return np.zeros(n, dtype=bool)
    t = np.asarray(tie)
    if t.shape != (n,):
        raise ValueError(f"tie has shape {t.shape}, expected ({n},)")
    if t.dtype != bool:
        if not np.isin(t, (0, 1)).all():
            raise ValueError("tie must hold booleans (or 0/1)")
        t = t.astype(bool)
    return t


class Comparisons:
    """Pairwise comparisons stored sparsely: (winner, loser, optional assessor, count, tie).

    Build with :meth:`from_arrays` or :meth:`from_rankings`; turn an assessor's comparisons
    back into a (partial) ranking with :meth:`closure` / :meth:`to_rankings`.

    Parameters
    ----------
    winner, loser : array-like of int, shape (n,)
        Item indices in ``[0, n_items)``; row ``k`` says ``winner[k]`` beat ``loser[k]`` (or,
        when ``tie[k]``, that the two were judged equal).
    n_items : int, optional
        Number of items (default: one more than the largest index, or ``len(items)``).
    assessor : array-like of int, shape (n,), optional
        Assessor index of each row, in ``[0, n_assessors)``.
    count : array-like of float, shape (n,), optional
        Positive weight of each row (default 1): a row with count 3 is three identical
        comparisons.
    tie : array-like of bool, shape (n,), optional
        Tie flag of each row (default: no ties).
    items : sequence of str, optional
        Item names, ``n_items`` of them.
    assessors : sequence of str, optional
        Assessor names (length ``n_assessors``).
    limits : InputLimits or mapping, optional
        Size limits (``max_rows`` comparison rows, ``max_items`` items); see
        :mod:`rankclust._limits`.

    Attributes
    ----------
    winner, loser, assessor : ndarray of int64, shape (n,)
        ``assessor`` is all -1 when no assessor was given.
    count : ndarray of float64, shape (n,)
    tie : ndarray of bool, shape (n,)
    n_items, n_assessors : int
    items, assessors : tuple of str or None

    Notes
    -----
    Memory is ``33 n`` bytes (plus names). Validation is done once, here: an item index out
    of range, an item compared with itself, a non-positive or non-finite count, arrays of
    different lengths each raise a one-line ``ValueError`` naming the first offending row.

    Examples
    --------
    >>> C = Comparisons.from_arrays([0, 0, 1], [1, 2, 2], items=["a", "b", "c"])
    >>> C.n_comparisons, C.n_items
    (3, 3)
    >>> C.win_counts().tolist()
    [2.0, 1.0, 0.0]
    """

    __slots__ = (
        "assessor",
        "assessors",
        "count",
        "items",
        "loser",
        "n_assessors",
        "n_items",
        "tie",
        "winner",
    )

    def __init__(
        self,
        winner: Any,
        loser: Any,
        *,
        n_items: int | None = None,
        assessor: Any = None,
        count: Any = None,
        tie: Any = None,
        items: Sequence[Any] | None = None,
        assessors: Sequence[Any] | None = None,
        limits: InputLimits | dict | None = None,
    ) -> None:
        lim = resolve_limits(limits)
        w = _int_array(winner, "winner", None)
        n = w.shape[0]
        if n > lim.max_rows:
            raise ValueError(
                f"{n} comparisons exceed max_rows={lim.max_rows}; "
                + InputLimits.how_to_raise("max_rows")
            )
        lo = _int_array(loser, "loser", n)
        n_items = _check_items(w, lo, n_items, items, lim)
        a, n_assessors = _check_assessor(assessor, assessors, n)
        c = _check_count(count, n)
        t = _check_tie(tie, n)
        self.winner = w
        self.loser = lo
        self.assessor = a
        self.count = c
        self.tie = t
        self.n_items = n_items
        self.n_assessors = n_assessors
        self.items = _names(items, n_items, "items")
        self.assessors = _names(assessors, n_assessors, "assessors")
        for arr in (self.winner, self.loser, self.assessor, self.count, self.tie):
            arr.setflags(write=False)

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_arrays(cls, winner: Any, loser: Any, **kwargs: Any) -> Comparisons:
        """Build from arrays (see the class parameters); the same as the constructor."""
        return cls(winner, loser, **kwargs)

    @classmethod
    def from_rankings(cls, R: Any, mode: BreakMode = "all") -> Comparisons:
        """Break rankings into pairwise comparisons, one assessor per ranking.

        Parameters
        ----------
        R : Rankings
            Rankings (ties allowed: tied items give a tie row in ``"all"`` and ``"adjacent"``
            modes). ``kind="top"`` lists also compare every listed item with every unlisted
            one in ``"all"`` mode (unlisted items rank below the listed ones).
        mode : {"all", "adjacent", "top_vs_rest"}, default="all"
            ``"all"``: every ordered pair of the ranking (l(l-1)/2 per ranking of l items);
            ``"adjacent"``: each item against the next bucket (consecutive positions; the
            transitive closure recovers the ranking); ``"top_vs_rest"``: the first bucket
            against every other item (the information of a first choice).

        Returns
        -------
        Comparisons
            ``assessor`` is the ranking's row index, ``count`` its weight.
        """
        from rankclust.pairwise._conversions import break_rankings

        return break_rankings(cls, R, mode)

    # ---------------------------------------------------------------- views
    @property
    def n_comparisons(self) -> int:
        """Number of comparison rows."""
        return int(self.winner.shape[0])

    @property
    def has_assessors(self) -> bool:
        """Whether every row carries an assessor."""
        return self.n_comparisons > 0 and bool(self.assessor[0] >= 0)

    def __len__(self) -> int:
        return self.n_comparisons

    def __repr__(self) -> str:
        return (
            f"Comparisons(n_comparisons={self.n_comparisons}, n_items={self.n_items}, "
            f"n_assessors={self.n_assessors}, ties={int(self.tie.sum())})"
        )

    def item_name(self, j: int) -> str:
        """Name of item ``j`` (its index as text when unnamed)."""
        return self.items[j] if self.items is not None else str(j)

    def win_counts(self) -> np.ndarray:
        """Weighted number of (untied) wins of each item, shape (n_items,)."""
        keep = ~self.tie
        return np.bincount(self.winner[keep], self.count[keep], minlength=self.n_items)

    def subset(self, rows: Any) -> Comparisons:
        """The comparisons of the given rows (boolean mask or indices); same items/assessors."""
        idx = np.arange(self.n_comparisons)[rows]
        return Comparisons(
            self.winner[idx],
            self.loser[idx],
            n_items=self.n_items,
            assessor=None if not self.has_assessors else self.assessor[idx],
            count=self.count[idx],
            tie=self.tie[idx],
            items=self.items,
            assessors=self.assessors if self.has_assessors else None,
            limits={"max_rows": max(1, idx.size), "max_items": max(1, self.n_items)},
        )

    def with_count(self, count: Any) -> Comparisons:
        """The same comparisons with ``count`` multiplied by ``count`` (a weight per row)."""
        w = np.asarray(count, dtype=np.float64)
        return Comparisons(
            self.winner,
            self.loser,
            n_items=self.n_items,
            assessor=None if not self.has_assessors else self.assessor,
            count=self.count * w,
            tie=self.tie,
            items=self.items,
            assessors=self.assessors if self.has_assessors else None,
            limits={"max_rows": max(1, self.n_comparisons), "max_items": max(1, self.n_items)},
        )

    def aggregate(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Sufficient statistics of a Bradley-Terry fit: one row per unordered pair.

        Returns
        -------
        i, j : ndarray of int64, shape (p,)
            The two items of each compared pair, ``i < j``.
        wins_i, wins_j, ties : ndarray of float64, shape (p,)
            Weighted wins of ``i`` over ``j``, of ``j`` over ``i``, and weighted ties.
        """
        lo = np.minimum(self.winner, self.loser)
        hi = np.maximum(self.winner, self.loser)
        key = lo * self.n_items + hi
        uniq, inv = np.unique(key, return_inverse=True)
        p = uniq.shape[0]
        untied = ~self.tie
        first_won = untied & (self.winner == lo)
        wi = np.bincount(inv, self.count * first_won, minlength=p)
        wj = np.bincount(inv, self.count * (untied & ~first_won), minlength=p)
        tt = np.bincount(inv, self.count * self.tie, minlength=p)
        return uniq // self.n_items, uniq % self.n_items, wi, wj, tt

    def pairwise_counts(
        self, *, labels: Any = None, n_groups: int | None = None, tie_credit: float = 0.5
    ) -> np.ndarray:
        """Dense win counts ``W[u, v]``: weighted comparisons in which ``u`` beat ``v``.

        The matrix of :meth:`Rankings.pairwise_counts` for comparisons, for figures and small
        item sets (it is O(m^2), unlike the comparisons themselves); ``W / (W + W.T)`` is
        the share of the comparisons of ``u`` and ``v`` that ``u`` won.

        Parameters
        ----------
        labels : array-like of int, shape (n_assessors,), optional
            A group per assessor (e.g. ``BradleyTerryMixture.labels_``); -1 leaves the
            assessor out. Gives one matrix per group.
        n_groups : int, optional
            Number of groups for ``labels`` (default ``labels.max() + 1``).
        tie_credit : float, default=0.5
            What a tie adds to each side (0.5: half a win each; 0: ties ignored).

        Returns
        -------
        ndarray of float64, shape (n_items, n_items), or (n_groups, n_items, n_items)
            ``count``-weighted.

        Notes
        -----
        Complexity: O(n) time, O(K m^2) memory, refused beyond
        ``rankclust.rankings.MAX_PAIRWISE_BYTES``.

        Examples
        --------
        >>> C = Comparisons.from_arrays([0, 0, 1], [1, 2, 0], tie=[False, False, True])
        >>> C.pairwise_counts().tolist()
        [[0.0, 1.5, 1.0], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]]
        """
        from rankclust._limits import check_alloc
        from rankclust.rankings import MAX_PAIRWISE_BYTES

        if not (np.isfinite(tie_credit) and 0 <= tie_credit <= 1):
            raise ValueError(f"tie_credit must lie in [0, 1], got {tie_credit!r}")
        m, n = self.n_items, self.n_comparisons
        if labels is None:
            group = np.zeros(n, dtype=np.int64)
            k = 1
        else:
            if not self.has_assessors:
                raise ValueError("labels are per assessor, and these comparisons have none")
            lab = _int_array(labels, "labels", self.n_assessors)
            k = int(n_groups) if n_groups is not None else int(max(lab.max(initial=-1), -1)) + 1
            if lab.size and (lab.min() < -1 or lab.max() >= k):
                raise ValueError(f"labels must lie in [-1, {k}) (n_groups={k})")
            group = lab[self.assessor]
        check_alloc(8.0 * max(k, 1) * m * m, MAX_PAIRWISE_BYTES, f"pairwise counts over {m} items")
        keep = group >= 0
        g, w, lo = group[keep], self.winner[keep], self.loser[keep]
        c, t = self.count[keep], self.tie[keep]
        size = k * m * m
        won = np.where(t, tie_credit * c, c)
        out = np.bincount((g * m + w) * m + lo, won, minlength=size)
        out += np.bincount((g * m + lo) * m + w, np.where(t, tie_credit * c, 0.0), minlength=size)
        out = out.reshape(k, m, m)
        return out[0] if labels is None else out

    # ---------------------------------------------------------------- back to rankings
    def closure(self, *, limits: InputLimits | dict | None = None) -> Any:
        """Each assessor's comparisons closed transitively; see :class:`PairwiseClosure`."""
        from rankclust.pairwise._conversions import close_assessors

        return close_assessors(self, limits)

    def to_rankings(self, *, limits: InputLimits | dict | None = None) -> Any:
        """One ranking per assessor (shortcut for ``closure().rankings``)."""
        return self.closure(limits=limits).rankings
