"""Labels that no training ranking contains: the rule every label ranker follows (toolkit).

Such a label carries no information, so the model cannot place it. ``fit`` finds it and
warns (:func:`find_unseen_labels`, stored as ``unseen_items_``); ``predict`` places the unseen
labels last, in label order, after every label seen in training (:func:`demote_unseen`); and
``predict_rankings`` leaves them unranked (:func:`ranks_to_rankings`). One home for
:mod:`rankclust.label_ranking` and the supervised clusterers of :mod:`rankclust.supervised`.
"""

from __future__ import annotations

import warnings

import numpy as np

from rankclust.rankings import Rankings

__all__ = ["demote_unseen", "find_unseen_labels", "ranks_to_rankings"]


def find_unseen_labels(R: Rankings, owner: str) -> np.ndarray:
    """Indices (sorted, int64) of the labels no ranking of ``R`` contains, with a warning.

    Such a label carries no information: the model cannot place it, so predictions put it
    last (:func:`demote_unseen`) and named predictions leave it unranked.
    """
    unseen = np.flatnonzero(~(R.ranks >= 0).any(axis=0)).astype(np.int64)
    if unseen.size:
        names = [R.item_name(int(j)) for j in unseen[:5]]
        more = f" (and {unseen.size - 5} more)" if unseen.size > 5 else ""
        warnings.warn(
            f"{owner}: label(s) {', '.join(names)}{more} appear in no training ranking "
            "(unseen_items_); predictions place them last and predict_rankings leaves them "
            "unranked",
            UserWarning,
            stacklevel=4,
        )
    return unseen


def demote_unseen(ranks: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """Complete 1-based ranks with the ``unseen`` labels moved to the last places.

    The other labels keep their relative order; the unseen ones follow in label order.
    O(n L log L) time when ``unseen`` is not empty, a no-op otherwise.
    """
    if unseen.size == 0:
        return ranks
    n, m = ranks.shape
    key = ranks.astype(np.int64, copy=True)
    key[:, unseen] = m + 1 + np.arange(unseen.size)
    order = np.argsort(key, axis=1, kind="stable")
    out = np.empty_like(key)
    np.put_along_axis(out, order, np.arange(1, m + 1, dtype=np.int64)[None, :].repeat(n, 0), 1)
    return out


def ranks_to_rankings(
    ranks: np.ndarray, unseen: np.ndarray, items: tuple[str, ...] | None
) -> Rankings:
    """Rankings of predicted 1-based ranks (unseen labels last), the unseen labels absent."""
    pos = np.asarray(ranks, dtype=np.int64) - 1
    pos[:, unseen] = -1  # they hold the last places, so the rest stays dense
    return Rankings._from_trusted(pos, kind="subset", items=items)
