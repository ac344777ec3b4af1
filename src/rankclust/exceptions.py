"""Warnings rankclust emits besides scikit-learn's (:class:`~sklearn.exceptions.ConvergenceWarning`).

* :class:`EmptyClusterWarning` -- a fitted clusterer returns fewer clusters than asked for
  because some would have been empty; its ``n_clusters_`` is the number actually found and the
  clusters are numbered ``0..n_clusters_-1`` everywhere (``labels_``, centres, ``predict``).

Disagreeing restarts (different partitions at nearly equal objective) are reported with
scikit-learn's ``ConvergenceWarning`` and the fitted attribute ``n_init_agreeing_``.
"""

from __future__ import annotations

__all__ = ["EmptyClusterWarning"]


class EmptyClusterWarning(RuntimeWarning):
    """A clusterer found fewer non-empty clusters than ``n_clusters`` and returned only those.

    A ``RuntimeWarning`` (as the ``empty_cluster="drop"`` warning of
    :class:`~rankclust.cluster.ChainKMeans` always was), so existing filters still apply.
    """
