"""The record of one run of an iterative fit from one start (private).

Estimators with restarts (``n_init``) make several runs and keep the best one. Every such
estimator records a run as a :class:`FitRun`, so that the restart code reads
``run.objective`` and ``run.labels`` rather than ``run[3]`` or ``run["ll"]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["FitRun", "RestartSearch", "best_index", "best_run"]


@dataclass(kw_only=True)
class FitRun:
    """One run of an iterative fit from one start.

    Attributes
    ----------
    objective : float
        The criterion the run minimised (a likelihood is recorded as its negative).
    n_iter : int
        Iterations made.
    converged : bool
        Whether the run met its stopping rule within ``max_iter``.
    params : dict
        The model's parameters at the end of the run (estimator-specific names).
    labels : ndarray of int, shape (n,), or None
        The partition of the rows at the end of the run, when the estimator keeps one.
    degenerate : bool
        The run ended in a state the estimator ranks below every proper one (an empty
        cluster, a zero weight vector); such runs are kept only when all runs are.
    """

    objective: float
    n_iter: int
    converged: bool
    params: dict = field(default_factory=dict)
    labels: np.ndarray | None = None
    degenerate: bool = False

    def rank_key(self) -> tuple[bool, float]:
        """Sort key of "best first": proper runs before degenerate ones, then lowest objective."""
        return (self.degenerate, self.objective)


def best_index(runs: list[Any]) -> int:
    """Index of the run of lowest :meth:`FitRun.rank_key` (the first one on ties)."""
    return min(range(len(runs)), key=lambda i: runs[i].rank_key())


def best_run(runs: list[Any]) -> Any:
    """The run of lowest :meth:`FitRun.rank_key` (the first one on ties)."""
    return runs[best_index(runs)]


@dataclass(kw_only=True)
class RestartSearch:
    """What a search over restarts did (the ranking mixtures' ``_restarts``).

    Attributes
    ----------
    n_starts : int
        Starts made (fresh and grown).
    n_continued : int
        Short runs continued to convergence (plus runs started at given parameters).
    n_agreeing : int
        Continued runs that reached the kept fit (itself included).
    gap : float
        Relative objective gap to the best continued run with a different partition
        (``inf`` if none).
    log_likelihoods : ndarray of float64
        Log-likelihoods of the continued runs, decreasing.
    auto : bool
        Whether the starts were made in rounds (``n_init="auto"``).
    best_converged : bool
        Whether the kept run converged.
    n_abandoned : int
        Continued runs stopped early because they could not reach the best one.
    """

    n_starts: int
    n_continued: int
    n_agreeing: int
    gap: float
    log_likelihoods: np.ndarray
    auto: bool
    best_converged: bool
    n_abandoned: int = 0
