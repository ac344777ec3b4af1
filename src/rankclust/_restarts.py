"""Agreement of the best restarts of a clusterer (private; DESIGN.md section 9).

An estimator with ``n_init`` restarts keeps the start of the best objective. When another
start reaches the same objective (within a small relative tolerance) with a *different*
partition, the answer depends on the seed; when no other start reaches the best objective, the
optimum is unconfirmed and another seed will likely keep another one. :func:`restart_agreement`
counts the starts that agree with the best one and :func:`warn_if_disagree` says so in a
``ConvergenceWarning``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.exceptions import ConvergenceWarning

__all__ = ["RESTART_RTOL", "restart_agreement", "same_partition", "warn_if_disagree"]

#: Relative tolerance on the objective under which two starts reached "the same" optimum
#: (the spread of log-likelihoods issue #17 asks to be below).
RESTART_RTOL = 1e-6


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """True when the label arrays ``a`` and ``b`` describe the same partition (any numbering)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.size == 0:
        return True
    pairs = np.unique(np.stack([a, b]), axis=1)
    return len(np.unique(pairs[0])) == len(np.unique(pairs[1])) == pairs.shape[1]


def restart_agreement(
    objectives: Sequence[float],
    labels_of: Callable[[int], np.ndarray],
    best: int,
    *,
    rtol: float = RESTART_RTOL,
    rows: np.ndarray | None = None,
) -> tuple[int, int]:
    """``(n_agreeing, n_near)`` of the starts of a fit (the best one included).

    Parameters
    ----------
    objectives : sequence of float
        Objective of every start (lower or higher is better: only distances to the best count).
    labels_of : callable
        ``labels_of(i)`` -> the partition (labels) of start ``i``; called for near starts only.
    best : int
        Index of the kept start.
    rtol : float
        A start is *near* when ``|objective - best| <= rtol * max(1, |best|)``.
    rows : ndarray of bool, optional
        Compare the partitions on these rows only: rows whose cluster is arbitrary (a chain
        of fewer than two items is equally far from every centre) are left out.

    Returns
    -------
    n_agreeing : int
        Near starts whose partition equals the best one up to relabelling.
    n_near : int
        Near starts.
    """
    obj = np.asarray(objectives, dtype=np.float64)
    ref = obj[best]
    near = np.flatnonzero(np.abs(obj - ref) <= rtol * max(1.0, abs(ref)))

    def part(i: int) -> np.ndarray:
        labels = np.asarray(labels_of(i))
        return labels if rows is None else labels[rows]

    ref_labels = part(best)
    agreeing = sum(1 for i in near if i == best or same_partition(part(i), ref_labels))
    return int(agreeing), int(near.size)


def warn_if_disagree(name: str, n_agreeing: int, n_near: int, n_init: int) -> None:
    """``ConvergenceWarning`` when the best fit is not confirmed by the starts.

    Two cases: a start as good as the best found another partition, or (with two or more
    starts) no other start reached the best objective at all, so another seed is likely to
    keep another optimum.
    """
    if n_near == n_agreeing and n_agreeing < 2 <= n_init:
        warnings.warn(
            f"{name}: the best objective was reached by 1 of {n_init} starts only, so another "
            "seed may give another partition (n_init_agreeing_); compare fits with other seeds "
            "(random_state, CLI --random-state) or use more starts (n_init, CLI --n-init)",
            ConvergenceWarning,
            stacklevel=3,
        )
    elif n_near > n_agreeing:
        warnings.warn(
            f"{name}: {n_near - n_agreeing} of {n_init} starts reached the best objective "
            f"(relative difference <= {RESTART_RTOL:g}) with a different partition, so the "
            "clustering depends on the seed (n_init_agreeing_); compare fits with other "
            "seeds (random_state, CLI --random-state) or use more starts (n_init, CLI "
            "--n-init)",
            ConvergenceWarning,
            stacklevel=3,
        )
