"""Small shared pieces of :mod:`rankclust.cluster`: the chain boundary and compact chain storage.

A *chain* (Ukkonen 2011) is a strict order on a subset of the items: a row of a
:class:`~rankclust.Rankings` of ``kind="subset"`` without ties. The clusterers of this package
keep the rank matrix for pair counts (:meth:`Rankings.pairwise_counts`) and a compact copy of the
orderings, ``orders[i, p]`` = item at 0-based position ``p`` of chain ``i`` (``-1`` padding),
for the per-chain kernels.
"""

from __future__ import annotations

import warnings
from typing import Any

import numba
import numpy as np

from rankclust._param_validation import validate_arguments
from rankclust.exceptions import EmptyClusterWarning
from rankclust.rankings import Rankings, check_rankings, rank_dtype

__all__ = [
    "RankingsInputMixin",
    "chain_orders",
    "check_chains",
    "fix_empty_clusters",
    "objective_of",
]


class RankingsInputMixin:
    """Estimator tags of the clusterers whose ``X`` is rankings (a Rankings or 1-based ranks).

    scikit-learn has no tag for "X is a rank matrix"; these are the input tags that are true of
    it, so that meta-estimators and :func:`sklearn.utils.estimator_checks.check_estimator` see
    them: ``allow_nan`` (NaN, like 0, marks an absent item in the 1-based rank format of
    :meth:`Rankings.from_ranks`) and ``positive_only`` (ranks are >= 1, 0 absent; a negative
    entry is refused with a ``ValueError``). Put it first among the bases.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.input_tags.allow_nan = True
        tags.input_tags.positive_only = True
        return tags


class CentersTransformMixin:
    """What the centre-based clusterers of chains and orders (ChainKMeans, KOMeans) share:
    :meth:`fit_predict` with sample weights and one output feature per fitted cluster
    (``get_feature_names_out`` of :meth:`transform`). Put it before scikit-learn's mixins."""

    @property
    def _n_features_out(self) -> int:
        """Number of columns of :meth:`transform` (for ``get_feature_names_out``)."""
        return self.n_clusters_  # type: ignore[attr-defined]

    def fit_predict(self, R: Any, y: Any = None, sample_weight: Any = None) -> np.ndarray:
        """Fit and return :attr:`labels_`."""
        return self.fit(R, sample_weight=sample_weight).labels_  # type: ignore[attr-defined]


def check_chains(
    R: Any,
    *,
    name: str = "R",
    n_items: int | None = None,
    items: tuple[str, ...] | None = None,
) -> Rankings:
    """Check that ``R`` holds chains: ``kind="subset"`` and no ties.

    Array input is read as 1-based ranks with 0/NaN for absent items
    (:meth:`Rankings.from_ranks`), as everywhere in rankclust. ``items`` (the names seen in
    ``fit``) aligns named columns by name (:func:`rankclust.rankings.check_rankings`).

    Raises
    ------
    ValueError
        For ``kind="top"`` (a top-t list says absent items are *below* the listed ones, which a
        chain does not; use ``R.with_kind("subset")`` to read ballots as chains, as the paper
        does for DUBLIN), or for a row with tied items (naming the row).
    """
    if isinstance(R, Rankings) and R.kind == "top":
        raise ValueError(
            f"{name}: kind='top' rankings are not chains; call R.with_kind('subset') to cluster "
            "the listed items as chains (absent items then carry no information)"
        )
    R = check_rankings(
        R,
        kind="subset",
        allow_ties=False,
        kinds=("subset",),
        n_items=n_items,
        name=name,
        items=items,
    )
    if R.n_items < 2:
        raise ValueError(f"{name} has {R.n_items} item(s); chains need at least 2 to be ordered")
    return R


def _orders_from_ranks(ranks, out):  # pragma: no cover - compiled below
    """Scatter items to their positions: ``out[i, ranks[i, j]] = j`` (ties absent, trusted)."""
    n, m = ranks.shape
    for i in range(n):
        for j in range(m):
            p = ranks[i, j]
            if p >= 0:
                out[i, p] = j


_nb_orders_from_ranks = numba.njit(_orders_from_ranks, cache=True, nogil=True)


def chain_orders(R: Rankings) -> tuple[np.ndarray, np.ndarray]:
    """Compact orderings of tie-free rankings.

    Parameters
    ----------
    R : Rankings
        Tie-free rankings (trusted; see :func:`check_chains`).

    Returns
    -------
    orders : ndarray of ``R.ranks.dtype`` (int8 up to 127 items), shape (n, max_length)
        ``orders[i, p]`` is the item at position ``p`` of ranking ``i``; ``-1`` beyond its end.
        Items and ``-1`` fit the compact rank type (:func:`~rankclust.rankings.rank_dtype`);
        the kernels only index with them.
    lengths : ndarray of int64, shape (n,)

    Notes
    -----
    Complexity: O(n m) time, O(n l_max) memory.
    """
    lengths = R.lengths.astype(np.int64)
    width = int(lengths.max()) if len(lengths) else 0
    orders = np.full((R.n_rankings, max(width, 1)), -1, dtype=rank_dtype(R.n_items))
    _nb_orders_from_ranks(R.ranks, orders)
    return orders, lengths


@validate_arguments({"statistic": [str, callable, None]})
def objective_of(estimator: Any, R: Any = None, statistic: Any = None) -> float:
    """The scalar clustering objective of a fitted estimator (lower = tighter clusters).

    The protocol by which :func:`~rankclust.cluster.randomization_test` and the command line's
    ``select-k`` read a clusterer's objective, so that a user's own comparison reads the same
    number.

    Parameters
    ----------
    estimator : estimator
        A fitted clusterer.
    R : Rankings or array-like, optional
        The data it was fitted on; only passed on to a callable ``statistic``.
    statistic : str or callable, optional
        A callable ``statistic(estimator, R) -> float``, or the name of a fitted attribute;
        by default the attribute ``objective_`` if the estimator has one, else ``inertia_``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If the estimator has not the attribute named, or neither ``objective_`` nor
        ``inertia_`` when ``statistic`` is None.

    Examples
    --------
    >>> from rankclust.cluster import ChainKMeans, make_planted_chains, objective_of
    >>> R, _ = make_planted_chains(n_samples=60, n_items=8, n_clusters=2, random_state=0)
    >>> km = ChainKMeans(n_clusters=2, random_state=0).fit(R)
    >>> objective_of(km) == km.objective_
    True
    """
    if callable(statistic):
        return float(statistic(estimator, R))
    if isinstance(statistic, str):
        if not hasattr(estimator, statistic):
            raise ValueError(f"{type(estimator).__name__} has no fitted attribute {statistic!r}")
        return float(getattr(estimator, statistic))
    for attr in ("objective_", "inertia_"):
        if hasattr(estimator, attr):
            return float(getattr(estimator, attr))
    raise ValueError(
        f"{type(estimator).__name__} exposes neither objective_ nor inertia_; pass statistic="
        "an attribute name or a callable (estimator, R) -> float"
    )


def trusted_rankings(ranks: np.ndarray, *, kind: str = "subset") -> Rankings:
    """A :class:`Rankings` from a rank matrix already in canonical form (dense, validated).

    Skips the O(n m log m) re-densification of the public constructor, which dominates for
    millions of generated chains. The caller guarantees: int64, entries in ``-1..l_i-1``,
    dense positions.
    """
    return Rankings._from_trusted(ranks, kind=kind)


def fix_empty_clusters(
    labels: np.ndarray, n_clusters: int, dist: np.ndarray, policy: str
) -> tuple[np.ndarray, int]:
    """Apply an empty-cluster policy after an assignment step.

    Parameters
    ----------
    labels : ndarray of int64, shape (n,)
        Labels in ``0..n_clusters-1``.
    n_clusters : int
    dist : ndarray of shape (n,)
        Each row's distance to its centre (modified in place for reseeded rows).
    policy : {"reseed", "drop"}
        ``"reseed"``: each empty cluster takes the row farthest from its centre among
        clusters with at least two rows; ``"drop"``: empty clusters are removed and the labels
        renumbered.

    Returns
    -------
    labels : ndarray of int64, shape (n,)
        A new array when anything changed.
    n_clusters : int
        The number of clusters afterwards.
    """
    counts = np.bincount(labels, minlength=n_clusters)
    empty = np.flatnonzero(counts == 0)
    if empty.size == 0:
        return labels, n_clusters
    if policy == "drop":
        keep = np.flatnonzero(counts > 0)
        remap = np.full(n_clusters, -1, dtype=np.int64)
        remap[keep] = np.arange(keep.size)
        return remap[labels], int(keep.size)
    labels = labels.copy()
    order = np.argsort(-dist, kind="stable")  # farthest first
    pos = 0
    for j in empty:
        while pos < len(order) and counts[labels[order[pos]]] <= 1:
            pos += 1
        if pos == len(order):  # fewer rows than clusters: nothing left to move
            break
        i = order[pos]
        counts[labels[i]] -= 1
        labels[i] = j
        counts[j] = 1
        dist[i] = 0.0
        pos += 1
    return labels, n_clusters


def warn_dropped_clusters(name: str, n_clusters: int, n_clusters_: int) -> None:
    """:class:`~rankclust.exceptions.EmptyClusterWarning` of ``empty_cluster="drop"`` when
    the fit kept ``n_clusters_`` of ``n_clusters`` clusters (called from ``fit``: the
    warning points at the caller of ``fit``)."""
    if n_clusters_ < n_clusters:
        warnings.warn(
            f"{name}: {n_clusters - n_clusters_} of {n_clusters} clusters became empty and "
            f"were dropped (empty_cluster='drop'); n_clusters_={n_clusters_} is the "
            "effective number",
            EmptyClusterWarning,
            stacklevel=3,
        )
