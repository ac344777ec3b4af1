"""Scoring a clustering against ordinal levels: cluster-to-level mapping, MZE, MAE, AMAE, NMI.

The paper (Xiao et al. 2016, §IV-B) maps clusters to levels with the Hungarian algorithm
(maximum agreement) for every method and then computes MZE/MAE/AMAE (eqs. 9-11); NMI (eq. 12)
needs no mapping. An ordinal clustering whose order was learned (M2SORC's ``labels_`` increase
with the projection) needs no matching at all: cluster i *is* level i. Both mappings are
offered so that the two readings can be reported side by side. The metrics themselves are
:func:`rankclust.metrics.mze`, :func:`~rankclust.metrics.mae`, :func:`~rankclust.metrics.amae`
and :func:`~rankclust.metrics.normalized_mutual_info_score` (geometric normalisation, eq. 12).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import linear_sum_assignment

from rankclust.metrics import amae, mae, mze, normalized_mutual_info_score

__all__ = ["MAPPINGS", "map_clusters", "ordinal_clustering_scores"]

MAPPINGS = ("hungarian", "order", "order_or_reverse")


def map_clusters(
    y_true: ArrayLike, labels: ArrayLike, mapping: str = "hungarian", n_levels: int | None = None
) -> NDArray:
    """Relabel clusters as ordinal levels.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True levels, integers 0..n_levels-1.
    labels : array-like of shape (n_samples,)
        Cluster labels, integers 0..n_clusters-1.
    mapping : {"hungarian", "order", "order_or_reverse"}, default="hungarian"
        ``"hungarian"``: the one-to-one map maximising agreement (the paper's protocol);
        ``"order"``: cluster i is level i (for clusterings that learn the order);
        ``"order_or_reverse"``: the identity or the reversal, whichever has the lower MAE (for
        ordered clusterings whose direction is not identified, e.g. without ranking pairs).
    n_levels : int, optional
        Number of levels; default ``max(y_true.max(), labels.max()) + 1``.

    Returns
    -------
    y_pred : ndarray of shape (n_samples,), int64

    Notes
    -----
    Complexity: O(n + k^3) time, O(n + k^2) memory.

    Examples
    --------
    >>> map_clusters([0, 0, 1, 2], [2, 2, 0, 1]).tolist()
    [0, 0, 1, 2]
    """
    y = np.asarray(y_true, dtype=np.int64)
    lab = np.asarray(labels, dtype=np.int64)
    if y.shape != lab.shape or y.ndim != 1:
        raise ValueError(
            f"y_true and labels must be 1-D of equal length; got {y.shape}, {lab.shape}"
        )
    if mapping not in MAPPINGS:
        raise ValueError(f"mapping must be one of {MAPPINGS}; got {mapping!r}")
    if y.min() < 0 or lab.min() < 0:
        raise ValueError("levels and cluster labels must be non-negative integers")
    k = int(max(y.max(), lab.max()) + 1) if n_levels is None else int(n_levels)
    if mapping == "order":
        return lab.copy()
    if mapping == "order_or_reverse":
        rev = k - 1 - lab
        return lab.copy() if np.abs(lab - y).mean() <= np.abs(rev - y).mean() else rev
    table = np.zeros((k, k), dtype=np.int64)
    np.add.at(table, (lab, y), 1)
    rows, cols = linear_sum_assignment(-table)
    lookup = np.empty(k, dtype=np.int64)
    lookup[rows] = cols
    return lookup[lab]


def ordinal_clustering_scores(
    y_true: ArrayLike, labels: ArrayLike, mapping: str = "hungarian"
) -> dict[str, float]:
    """MZE, MAE and AMAE after :func:`map_clusters`, and NMI (mapping-free).

    Parameters
    ----------
    y_true, labels : array-like of shape (n_samples,)
    mapping : {"hungarian", "order", "order_or_reverse"}, default="hungarian"

    Returns
    -------
    scores : dict
        Keys ``"mze"``, ``"mae"``, ``"amae"``, ``"nmi"``.

    Notes
    -----
    Complexity: O(n + k^3) time, O(n + k^2) memory.

    Examples
    --------
    >>> s = ordinal_clustering_scores([0, 0, 1, 2], [0, 0, 1, 1], mapping="order")
    >>> s["mze"], s["mae"]
    (0.25, 0.25)
    """
    y = np.asarray(y_true, dtype=np.int64)
    pred = map_clusters(y, labels, mapping)
    return {
        "mze": mze(y, pred),
        "mae": mae(y, pred),
        "amae": amae(y, pred),
        "nmi": float(normalized_mutual_info_score(y, labels, average_method="geometric")),
    }
