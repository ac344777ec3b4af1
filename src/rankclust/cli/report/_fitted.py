"""Reading a fitted model by the conventional attribute names (DESIGN.md section 3): its
centres, mixing proportions, dispersions, fit criteria and cluster sizes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rankclust.rankings import Rankings

__all__ = ["CRITERIA", "cluster_sizes"]

#: Fitted attributes reported as fit criteria, in display order, with their labels.
CRITERIA: tuple[tuple[str, str], ...] = (
    ("log_likelihood_", "log-likelihood"),
    ("loglik_", "log-likelihood"),
    ("bic_", "BIC"),
    ("aic_", "AIC"),
    ("icl_", "ICL"),
    ("objective_", "objective"),
    ("inertia_", "inertia"),
    ("n_iter_", "iterations"),
    ("converged_", "converged"),
)
_CENTER_ATTRS = ("centers_", "central_rankings_")
_DISPERSION_ATTRS = (("thetas_", "theta"), ("dispersions_", "dispersion"), ("lambdas_", "lambda"))
_MIXING_ATTRS = ("weights_", "mixing_weights_", "proportions_")


def _item_names(model: Any, items: Sequence[str] | None, m: int) -> list[str]:
    if items is None:
        centers = _centers(model)
        if isinstance(centers, Rankings) and centers.items is not None:
            items = centers.items
    if items is None or len(items) != m:
        return [str(j) for j in range(m)]
    return [str(x) for x in items]


def _centers(model: Any) -> Any:
    for name in _CENTER_ATTRS:
        value = getattr(model, name, None)
        if value is not None:
            return value
    return None


def _center_positions(model: Any) -> np.ndarray | None:
    """(K, m) position array of a clusterer's central rankings, or None."""
    centers = _centers(model)
    if centers is None:
        return None
    if isinstance(centers, Rankings):
        return np.asarray(centers.ranks)
    arr = np.asarray(centers)
    if arr.ndim == 1:
        arr = arr[None, :]
    return arr.astype(np.int64) if arr.ndim == 2 and arr.dtype.kind in "iuf" else None


def _criteria(model: Any) -> list[tuple[str, Any]]:
    out, seen = [], set()
    for attr, label in CRITERIA:
        value = getattr(model, attr, None)
        if value is None or label in seen:
            continue
        if isinstance(value, np.ndarray) and value.ndim > 0:
            continue  # per-run arrays belong in the JSON, not the summary
        if label == "inertia" and any(
            lab == "objective" and np.isclose(float(v), float(value)) for lab, v in out
        ):
            continue  # scikit-learn's alias of the objective
        if label == "objective" and any(
            lab == "log-likelihood" and np.isclose(-float(v), float(value)) for lab, v in out
        ):
            continue  # a mixture's objective is its negative log-likelihood
        seen.add(label)
        out.append((label, value))
    return out


def cluster_sizes(labels: Any, n_clusters: int, weights: Any = None) -> tuple[np.ndarray, ...]:
    """Row counts per cluster and, with ``weights``, summed weights per cluster."""
    lab = np.asarray(labels).astype(np.int64)
    ok = lab >= 0
    counts = np.bincount(lab[ok], minlength=n_clusters)
    if weights is None:
        return (counts,)
    w = np.asarray(weights, dtype=np.float64)[ok]
    return counts, np.bincount(lab[ok], weights=w, minlength=n_clusters)


def _mixing(model: Any, n_clusters: int) -> np.ndarray | None:
    for attr in _MIXING_ATTRS:
        mix = getattr(model, attr, None)
        if mix is not None and np.ndim(mix) == 1 and len(mix) == n_clusters:
            return np.asarray(mix, dtype=float)
    return None


def _soft_counts(model: Any, mix: np.ndarray | None) -> np.ndarray | None:
    """``n x mixing weight`` (the sum of the responsibilities) of a mixture, else None."""
    n = getattr(model, "n_rankings_", None)
    if mix is None or n is None:
        return None
    return float(n) * mix
