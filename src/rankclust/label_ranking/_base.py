"""Shared input checking and the mixin of every label ranker (private).

Conventions of :mod:`rankclust.label_ranking` (stated once here):

* ``X`` is a finite real array of shape ``(n_samples, n_features)``;
* ``Y`` is a :class:`~rankclust.Rankings` of ``kind="subset"`` or an array of **1-based ranks**
  with ``0``/``NaN`` for a missing label (the format of the label-ranking CSV files): ``Y[i, j]``
  is the rank of label ``j`` for instance ``i``, 1 = best. Rankings may be incomplete (any
  subset of the labels, the missing ones *unknown*) but must not have ties;
* ``predict(X)`` returns **complete 1-based ranks** (int64, shape ``(n_samples, n_labels)``,
  every row a permutation of ``1..n_labels``), the same format, so that
  ``score(X, Y) = kendall_tau(Y, predict(X))`` (:func:`rankclust.metrics.kendall_tau`) and the
  output matches scikit-lr's label rankers;
* **names**: when ``Y`` names its labels (a :class:`~rankclust.Rankings` with ``items``, or a
  pandas DataFrame's columns), ``fit`` keeps them in ``items_`` (None otherwise) and
  ``predict_rankings(X)`` returns a :class:`~rankclust.Rankings` over those names;
* **unseen labels**: a label that no training ranking contains carries no information. ``fit``
  warns and lists it in ``unseen_items_`` (sorted label indices); ``predict`` places unseen
  labels last (in label order, after every label seen in training, whose relative order is
  the model's), and ``predict_rankings`` leaves them unranked (absent). The functions of this
  rule live in :mod:`rankclust._unseen_labels`, shared with :mod:`rankclust.supervised`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from rankclust import _loaded_state as loaded
from rankclust._dataframes import is_dataframe
from rankclust._unseen_labels import demote_unseen, find_unseen_labels, ranks_to_rankings
from rankclust.metrics import kendall_tau
from rankclust.rankings import Rankings, check_rankings

__all__ = [
    "LabelRankerMixin",
    "positions_to_ranks",
    "validate_fit_data",
    "validate_predict_data",
]


class LabelRankerMixin:
    """Mixin of the label rankers: tags and ``score`` = mean Kendall tau.

    Put it first among the bases (before :class:`sklearn.base.BaseEstimator`).
    """

    _estimator_type = "label_ranker"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()  # type: ignore[misc]
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        return tags

    def _ranks_out(self, positions: np.ndarray) -> np.ndarray:
        """What ``predict`` returns for complete 0-based positions: 1-based, unseen last."""
        return demote_unseen(positions_to_ranks(positions), self.unseen_items_)  # type: ignore[attr-defined]

    def predict_rankings(self, X: Any) -> Rankings:
        """Predicted rankings of the labels, named by ``items_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Rankings, shape (n_samples, n_labels)
            ``kind="subset"``, ``items=items_``; the rankings of :meth:`predict` with every
            label of ``unseen_items_`` left unranked (absent).
        """
        return ranks_to_rankings(self.predict(X), self.unseen_items_, self.items_)  # type: ignore[attr-defined]

    def _validate_loaded_names(self, m: int) -> None:
        """Checks of ``items_`` and ``unseen_items_`` in a loaded model."""
        loaded.items_attr(self, n_items=m)
        loaded.unseen_attr(self, n_items=m)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean Kendall tau between ``predict(X)`` and the true rankings ``Y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : Rankings or array-like of 1-based ranks, shape (n_samples, n_labels)
            True rankings ``Y`` (named ``y`` as in scikit-learn's ``score``); incomplete rows
            are scored on their observed pairs.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float
            In ``[-1, 1]`` (see :func:`rankclust.metrics.kendall_tau`).
        """
        Y_pred = self.predict(X)  # type: ignore[attr-defined]
        # named labels are matched to items_ by name, like every prediction input
        y = check_rankings(y, kind="subset", name="Y", items=self.items_)  # type: ignore[attr-defined]
        return kendall_tau(y, Y_pred, sample_weight=sample_weight)


def validate_fit_data(
    estimator: Any, X: Any, Y: Any, *, allow_ties: bool = False
) -> tuple[np.ndarray, Rankings]:
    """Check ``(X, Y)`` for ``fit``; sets ``n_features_in_`` on ``estimator``.

    ``allow_ties=True`` accepts rankings with ties (the partial label rankers).

    Returns
    -------
    X : ndarray of float64, shape (n, d)
    R : Rankings, kind "subset", without ties (unless ``allow_ties``), at least one label

    Raises
    ------
    ValueError
        On non-finite or non-2-d ``X``, a 1-d or tied ``Y``, a ``kind="top"`` Rankings, no
        label column, or a different number of rows in ``X`` and ``Y``.
    """
    if Y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None "
            "(Y: the training rankings)"
        )
    if _is_checked_matrix(estimator, X):
        estimator.n_features_in_ = X.shape[1]
    else:
        X = validate_data(estimator, X, reset=True, dtype=np.float64, ensure_min_samples=1)
    if not isinstance(Y, Rankings) and not is_dataframe(Y):  # DataFrames: check_rankings
        arr = np.asarray(Y)
        if arr.dtype.kind not in "biuf":
            try:
                arr = arr.astype(np.float64)
            except (TypeError, ValueError) as exc:
                raise ValueError(
                    f"Unknown label type: Y must hold numeric 1-based ranks, got dtype {arr.dtype}"
                ) from exc
            Y = arr
        if arr.ndim != 2:
            raise ValueError(
                "Y must be a Rankings or a 2-d array of 1-based ranks (n_samples, n_labels) "
                f"with 0/NaN for missing labels; got an array of shape {arr.shape}"
            )
    R = check_rankings(Y, allow_ties=allow_ties, kinds=("subset",), name="Y")
    if R.n_rankings != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but Y has {R.n_rankings} rankings")
    if R.n_items < 1:
        raise ValueError("Y must have at least one label column")
    estimator.items_ = R.items
    estimator.unseen_items_ = find_unseen_labels(R, type(estimator).__name__)
    return X, R


def validate_predict_data(estimator: Any, X: Any) -> np.ndarray:
    """Check a fitted estimator and ``X`` for ``predict`` (same number of features)."""
    check_is_fitted(estimator, "n_items_")
    n_features = getattr(estimator, "n_features_in_", None)
    if n_features is not None and _is_checked_matrix(estimator, X, n_features):
        return X
    return validate_data(estimator, X, reset=False, dtype=np.float64)


def _is_checked_matrix(estimator: Any, X: Any, n_features: int | None = None) -> bool:
    """Whether scikit-learn's ``validate_data`` would return ``X`` itself, without a warning.

    True for a plain float64 ndarray with at least one row and one column (``n_features``
    of them when given), all finite, and an estimator without ``feature_names_in_`` (no
    names to check, set or delete). ``validate_data`` costs about 70 microseconds even
    then (data-frame detection, tags, parameter dicts): as much as a whole small fit of a
    fast ranker, so the label rankers take this check first and leave every other input
    (lists, other dtypes, data frames, non-finite values, wrong shapes: its errors and
    warnings) to ``validate_data``.
    """
    return (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.shape[0] >= 1
        and X.shape[1] >= 1
        and (n_features is None or X.shape[1] == n_features)
        and not hasattr(estimator, "feature_names_in_")
        and bool(np.isfinite(X).all())
    )


def positions_to_ranks(positions: np.ndarray) -> np.ndarray:
    """0-based position vectors (complete) to 1-based int64 ranks (the output of predict)."""
    return np.asarray(positions, dtype=np.int64) + 1


def dudani_weights(dist: np.ndarray) -> np.ndarray:
    """Dudani (1976) weights ``(d_k - d_i) / (d_k - d_1)`` per row; all ones when ``d_k = d_1``.

    ``dist`` (Q, k) sorted ascending per row. The k-th neighbour weighs 0 (Cheng et al. 2009,
    Sec. 4.3), so the effective neighbourhood has at most k - 1 members.
    """
    near = dist[:, :1]
    far = dist[:, -1:]
    span = far - near
    return np.divide(far - dist, span, out=np.ones_like(dist), where=span > 0)
