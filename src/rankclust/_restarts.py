"""Agreement of the best restarts of a clusterer (private; DESIGN.md section 9).

An estimator with ``n_init`` restarts keeps the start of the best objective. When another
start reaches the same objective (within a small relative tolerance) with a *different*
partition, the answer depends on the seed; when no other start reaches the best objective, the
optimum is unconfirmed and another seed will likely keep another one. :func:`restart_agreement`
counts the starts that agree with the best one and :func:`warn_if_disagree` says so in a
``ConvergenceWarning``.

``n_init="auto"`` (the default of the mixtures and of the chain clusterers) makes starts in
rounds of :data:`AUTO_BATCH` until ``n_agree`` of them reached the best fit or a budget of
starts is used; :func:`restart_rounds` is that loop for clusterers whose starts run to
convergence, :func:`warn_auto_restarts` and :func:`warn_near_tie` are its warnings (the
mixtures, whose short runs are continued and polished, have their own loop and share the
warnings).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
from sklearn.exceptions import ConvergenceWarning

__all__ = [
    "AUTO_BATCH",
    "CHAIN_MAX_INIT",
    "CHAIN_MAX_INIT_CHEAP",
    "NEAR_TIE_RTOL",
    "RESTART_RTOL",
    "chain_max_init",
    "report_chain_restarts",
    "restart_agreement",
    "restart_rounds",
    "restart_summary",
    "same_partition",
    "tied_rows",
    "warn_auto_restarts",
    "warn_if_disagree",
    "warn_near_tie",
]

#: Relative tolerance on the objective under which two starts reached "the same" optimum.
RESTART_RTOL = 1e-6

#: Fresh starts per round of ``n_init="auto"``.
AUTO_BATCH = 10

#: A different partition within this relative objective gap of the kept fit is a near tie
#: (``restart_gap_``; a ``ConvergenceWarning`` says that the data do not decide).
NEAR_TIE_RTOL = 1e-4

# n_init="auto" keeps the labels of this many best starts (or 2 n_agree + AUTO_BATCH if more):
# enough to count n_agree agreeing ones, without holding every start of a large budget
_KEEP = 20

#: ``max_init=None`` of the chain clusterers (ChainKMeans, KOMeans): a budget of
#: CHAIN_MAX_INIT_CHEAP starts when a Lloyd iteration is cheap (see :func:`chain_max_init`;
#: APA 1998 read as chains: 292 distinct chains, about 1 ms per start), else CHAIN_MAX_INIT.
CHAIN_MAX_INIT_CHEAP = 1000
CHAIN_MAX_INIT = 30
CHAIN_CHEAP_WORK = 5e4

_Run = TypeVar("_Run")


def chain_max_init(
    max_init: int | None, n_rows: int, n_pairs: float, n_items: int, n_clusters: int
) -> int:
    """The budget of starts of ``n_init="auto"`` for a chain clusterer.

    ``max_init`` when given; for None :data:`CHAIN_MAX_INIT_CHEAP` when one Lloyd iteration
    is cheap, ``(n_rows + n_pairs) K + K m^2 <= CHAIN_CHEAP_WORK`` (``n_pairs`` = pairs
    ordered by the chains, ``sum_i l_i (l_i - 1) / 2``), else :data:`CHAIN_MAX_INIT`.
    """
    if max_init is not None:
        return int(max_init)
    work = (n_rows + n_pairs) * n_clusters + n_clusters * n_items**2
    return CHAIN_MAX_INIT_CHEAP if work <= CHAIN_CHEAP_WORK else CHAIN_MAX_INIT


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


def restart_summary(
    objectives: Sequence[float],
    labels_of: Callable[[int], np.ndarray],
    best: int,
    *,
    rtol: float = RESTART_RTOL,
    rows: np.ndarray | None = None,
) -> tuple[int, int, float]:
    """:func:`restart_agreement` of a minimised objective, and the gap to another partition.

    Parameters are those of :func:`restart_agreement`; ``objectives`` are minimised.

    Returns
    -------
    n_agreeing, n_near : int
        As :func:`restart_agreement`.
    gap : float
        Relative objective gap ``(f_i - f_best) / max(1, |f_best|)`` to the best start whose
        partition differs from the best one (``inf`` when every start has the best partition;
        at most ``rtol`` when a near start has another partition).
    """
    obj = np.asarray(objectives, dtype=np.float64)
    n_agreeing, n_near = restart_agreement(obj, labels_of, best, rtol=rtol, rows=rows)
    scale = max(1.0, abs(obj[best]))
    ref = np.asarray(labels_of(best))
    ref = ref if rows is None else ref[rows]
    for i in np.argsort(obj, kind="stable"):
        if i == best:
            continue
        labels = np.asarray(labels_of(int(i)))
        if not same_partition(labels if rows is None else labels[rows], ref):
            return n_agreeing, n_near, float(max(obj[i] - obj[best], 0.0) / scale)
    return n_agreeing, n_near, float(np.inf)


def tied_rows(D: np.ndarray, rtol: float = 1e-12) -> np.ndarray:
    """Rows of a (n, K) distance matrix whose smallest distance is reached by two or more
    columns (within ``rtol`` relative): their cluster is arbitrary for these centres."""
    D = np.asarray(D, dtype=np.float64)
    if D.shape[1] < 2:
        return np.zeros(D.shape[0], dtype=bool)
    low = D.min(axis=1, keepdims=True)
    return (D <= low + rtol * np.maximum(1.0, np.abs(low))).sum(axis=1) > 1


def restart_rounds(
    start: Callable[[], _Run],
    objective: Callable[[_Run], float],
    labels_of: Callable[[_Run], np.ndarray],
    *,
    n_init: int | str,
    budget: int,
    n_agree: int,
    rows_of: Callable[[_Run], np.ndarray | None] | None = None,
    rtol: float = RESTART_RTOL,
) -> tuple[_Run, dict[str, Any]]:
    """The starts of a clusterer that minimises ``objective``: the kept run and a record.

    An integer ``n_init`` makes that many starts. ``"auto"`` makes rounds of
    :data:`AUTO_BATCH` starts until ``n_agree`` starts agree with the best one (same
    objective within ``rtol`` relative, same partition up to relabelling on the rows
    ``rows_of(best)``; see :func:`restart_agreement`) or ``budget`` starts were made. The kept
    run is the first of the lowest objective, so the first round of ``"auto"`` is the fit
    of ``n_init=AUTO_BATCH``.

    Parameters
    ----------
    start : callable
        ``start()`` -> one run from a fresh start (draws from the caller's random stream).
    objective, labels_of : callable
        The objective (lower is better) and the labels of a run.
    n_init : int or "auto"
    budget : int
        Starts at most with ``"auto"`` (at least one round).
    n_agree : int
        Agreeing starts (the best included) after which ``"auto"`` stops.
    rows_of : callable, optional
        ``rows_of(best)`` -> boolean mask of the rows whose labels are compared (rows whose
        cluster is arbitrary for the best run's centres are left out), or None for all.
    rtol : float

    Returns
    -------
    best : run
    record : dict
        ``n_starts``, ``n_agreeing``, ``n_near`` (starts within ``rtol`` of the best),
        ``gap`` (see :func:`restart_summary`), ``auto`` (bool) and ``rows`` (the compared
        rows). With ``"auto"`` only the best ``max(20, 2 n_agree + 10)`` starts are kept for
        the comparison, so ``n_near`` and ``gap`` are taken over those.
    """
    auto = n_init == "auto"
    batch = AUTO_BATCH if auto else int(n_init)
    budget = max(int(budget), batch) if auto else batch
    keep = max(_KEEP, 2 * n_agree + AUTO_BATCH)
    kept: list[tuple[float, int, _Run]] = []
    n_starts = 0
    while True:
        for _ in range(min(batch, budget - n_starts)):
            run = start()
            kept.append((float(objective(run)), n_starts, run))
            n_starts += 1
        kept.sort(key=lambda item: item[:2])  # the first of equal objectives first
        if auto:
            del kept[keep:]
        best = kept[0][2]
        rows = None if rows_of is None else rows_of(best)
        n_agreeing, n_near, gap = restart_summary(
            [item[0] for item in kept], lambda i: labels_of(kept[i][2]), 0, rtol=rtol, rows=rows
        )
        if not auto or n_agreeing >= n_agree or n_starts >= budget:
            break
    record = {
        "n_starts": n_starts,
        "n_agreeing": n_agreeing,
        "n_near": n_near,
        "gap": gap,
        "auto": auto,
        "rows": rows,
    }
    return best, record


def warn_auto_restarts(
    name: str,
    n_agreeing: int,
    n_continued: int,
    n_starts: int,
    n_agree: int,
    *,
    stacklevel: int = 3,
) -> None:
    """``ConvergenceWarning`` of ``n_init="auto"`` when fewer than ``n_agree`` of the
    ``n_continued`` runs compared reached the best fit within the budget of starts."""
    if n_agreeing < min(n_agree, n_continued):
        warnings.warn(
            f"{name}: the best fit was reached by {n_agreeing} of the "
            f"{n_continued} starts run to convergence ({n_starts} "
            f"starts in all, n_agree={n_agree}); another random_state may give a "
            "different fit: raise max_init (see n_init_agreeing_ and restart_gap_)",
            ConvergenceWarning,
            stacklevel=stacklevel,
        )


def warn_near_tie(
    name: str,
    gap: float,
    objective: str = "log-likelihood",
    direction: str = "lower",
    *,
    stacklevel: int = 3,
) -> None:
    """``ConvergenceWarning`` when a different partition is within :data:`NEAR_TIE_RTOL`
    (relative) of the kept fit's objective (``restart_gap_``)."""
    if gap <= NEAR_TIE_RTOL:
        warnings.warn(
            f"{name}: a different partition fits nearly as well ({objective} "
            f"{gap:.1e} {direction}, relative); the clusters are not well determined "
            "by the data (see restart_gap_)",
            ConvergenceWarning,
            stacklevel=stacklevel,
        )


def warn_if_disagree(
    name: str, n_agreeing: int, n_near: int, n_init: int, *, stacklevel: int = 3
) -> None:
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
            stacklevel=stacklevel,
        )
    elif n_near > n_agreeing:
        warnings.warn(
            f"{name}: {n_near - n_agreeing} of {n_init} starts reached the best objective "
            f"(relative difference <= {RESTART_RTOL:g}) with a different partition, so the "
            "clustering depends on the seed (n_init_agreeing_); compare fits with other "
            "seeds (random_state, CLI --random-state) or use more starts (n_init, CLI "
            "--n-init)",
            ConvergenceWarning,
            stacklevel=stacklevel,
        )


def report_chain_restarts(
    est: Any, name: str, search: dict[str, Any], n_init: int | str, objective: str
) -> None:
    """Set ``n_init_``, ``n_init_agreeing_`` and ``restart_gap_`` of a chain clusterer from
    the record of :func:`restart_rounds` and give its warnings (``objective``: the word
    for the minimised criterion in the near-tie warning, e.g. ``"error"``).

    Called from the estimator's ``fit``: the warnings point at the caller of ``fit``.
    """
    est.n_init_ = search["n_starts"]
    est.n_init_agreeing_ = search["n_agreeing"]
    est.restart_gap_ = search["gap"]
    if search["auto"]:
        n_starts = search["n_starts"]
        warn_auto_restarts(
            name, search["n_agreeing"], n_starts, n_starts, est.n_agree, stacklevel=4
        )
        warn_near_tie(name, search["gap"], objective, "higher", stacklevel=4)
    else:
        warn_if_disagree(name, search["n_agreeing"], search["n_near"], n_init, stacklevel=4)
