"""Bootstrap of the Bradley-Terry models on pairwise comparisons, over assessors.

The unit of resampling is the **assessor**: a replicate draws as many assessors as there are
(with replacement, among those with comparisons) and each drawn assessor brings all of their
comparisons, so the dependence between one person's judgements is kept and a mixture's
clusters stay clusters of people. Without an assessor column the comparison rows are the
units. The rest is the machinery of :mod:`rankclust.inference.bootstrap`: seeds
(:func:`spawn_seeds`, one child per replicate), parallel replicates (:func:`run_replicates`),
label matching (:func:`match_components` on the posterior co-membership of the original
assessors), warm refits converging to ``tol * WARM_TOL_FACTOR``, and the
:class:`BootstrapResult` (percentile intervals of ``weights``, ``scores`` and ``worths``,
the consensus rankings' position probabilities, each assessor's membership stability).
Private module: :func:`rankclust.inference.bootstrap` is the entry point.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
from sklearn.base import clone

from rankclust.inference.bootstrap import (
    MATCH_METHODS,
    WARM_TOL_FACTOR,
    BootstrapResult,
    _centers,
    _check_n_boot,
    _fit_seed,
    _params,
    match_components,
    run_replicates,
    spawn_seeds,
)
from rankclust.pairwise import BradleyTerry, BradleyTerryMixture, Comparisons

__all__ = ["bootstrap_pairs"]


class _Units:
    """The rows of each assessor (or each row its own unit), for drawing replicates."""

    def __init__(self, C: Comparisons) -> None:
        self.by_assessor = C.has_assessors
        if self.by_assessor:
            self.order = np.argsort(C.assessor, kind="stable")
            self.sizes = np.bincount(C.assessor, minlength=C.n_assessors)
            self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
            self.units = np.flatnonzero(self.sizes > 0)  # assessors with comparisons
        else:
            self.units = np.arange(C.n_comparisons)

    def multiplicity(self, rng: np.random.Generator, n_units: int) -> np.ndarray:
        """How often each unit (assessor or row) is drawn, shape (n_units,)."""
        drawn = rng.choice(self.units, size=self.units.size, replace=True)
        return np.bincount(drawn, minlength=n_units).astype(np.float64)

    def duplicated(self, C: Comparisons, mult: np.ndarray) -> Comparisons:
        """The comparisons of the drawn assessors, each copy a new assessor."""
        draws = np.repeat(np.arange(mult.size), mult.astype(np.int64))
        rows = np.concatenate(
            [self.order[self.starts[a] : self.starts[a] + self.sizes[a]] for a in draws]
        )
        who = np.repeat(np.arange(draws.size), self.sizes[draws])
        return Comparisons(
            C.winner[rows], C.loser[rows], n_items=C.n_items, assessor=who, count=C.count[rows],
            tie=C.tie[rows], items=C.items,
            limits={"max_rows": max(1, rows.size), "max_items": max(1, C.n_items)},
        )  # fmt: skip


def _replicate(
    seed: np.random.SeedSequence,
    est: Any,
    C: Comparisons,
    warm_start: bool,
    match: str,
    ref_proba: np.ndarray | None,
) -> dict:
    """One replicate: resample assessors (or rows), refit, match; aligned parameters."""
    rng = np.random.default_rng(seed)
    fit_seed = _fit_seed(rng)
    units = _Units(C)
    n_units = C.n_assessors if units.by_assessor else C.n_comparisons
    mult = units.multiplicity(rng, n_units)
    new = clone(est)
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if isinstance(est, BradleyTerry):
            sw = mult[C.assessor] if units.by_assessor else mult
            new.fit(C, sample_weight=sw)
            out["log_likelihood"] = float(new.log_likelihood_)
        else:
            data = units.duplicated(C, mult)
            new.set_params(random_state=fit_seed)
            if warm_start:
                new.set_params(tol=est.tol * WARM_TOL_FACTOR)
                new._fit(data, [est.predict_proba(data)])
            else:
                new.fit(data)
            out["log_likelihood"] = float(new.log_likelihood_)
    out["converged"] = bool(new.converged_)
    params, centers = _params(new), _centers(new)
    if isinstance(est, BradleyTerryMixture):
        proba = new.predict_proba(C)
        if match == "posterior":
            perm = match_components(est, new, ref_proba=ref_proba, rep_proba=proba)
        else:
            perm = match_components(est, new, method="parameters")
        params = {name: value[perm] for name, value in params.items()}
        centers = centers[perm]
        inv = np.empty_like(perm)
        inv[perm] = np.arange(len(perm))
        out["labels"] = inv[np.argmax(proba, axis=1)]
        out["perm"] = perm
    out["params"] = params
    out["centers"] = centers
    return out


def bootstrap_pairs(
    estimator: Any,
    C: Any,
    n_boot: int = 200,
    *,
    method: str = "nonparametric",
    warm_start: bool = True,
    match: str = "posterior",
    random_state: Any = None,
    n_jobs: int | None = None,
) -> BootstrapResult:
    """:func:`rankclust.inference.bootstrap` of a BradleyTerry or BradleyTerryMixture.

    Parameters and result as there; ``C`` is the :class:`Comparisons` of the fit.
    ``method="parametric"`` is refused (no design-keeping simulation of comparisons yet).
    ``BootstrapResult.membership_stability`` is per assessor (mixtures), ``estimates`` has
    ``weights`` (mixtures), ``scores`` and ``worths`` (``softmax(scores)``), and ``centers``
    the consensus rankings (positions by decreasing score).

    Notes
    -----
    Complexity: ``n_boot`` refits on data of the original size: O(n log n + T p) for one
    Bradley-Terry model (a weighted fit), one EM run from the fitted responsibilities for a
    mixture (warm start), see :class:`~rankclust.pairwise.BradleyTerryMixture`.
    """
    if not isinstance(estimator, BradleyTerry | BradleyTerryMixture):
        raise TypeError(
            "comparisons are bootstrapped with a BradleyTerry or BradleyTerryMixture, got "
            f"{type(estimator).__name__}"
        )
    if not isinstance(C, Comparisons):
        raise TypeError(
            f"a Bradley-Terry model is bootstrapped on Comparisons, got {type(C).__name__}"
        )
    if method != "nonparametric":
        raise ValueError(
            f"method={method!r}: comparisons are bootstrapped non-parametrically (over assessors)"
        )
    if match not in MATCH_METHODS:
        raise ValueError(f"match must be one of {MATCH_METHODS}, got {match!r}")
    _check_n_boot(n_boot)
    if not hasattr(estimator, "n_items_"):
        estimator = clone(estimator).fit(C)
    if estimator.n_items_ != C.n_items:
        raise ValueError(f"C has {C.n_items} items, the model {estimator.n_items_}")
    mixture = isinstance(estimator, BradleyTerryMixture)
    if mixture and len(estimator.responsibilities_) != C.n_assessors:
        raise ValueError("C is not the data of the fit: another number of assessors")
    seeds = spawn_seeds(random_state, n_boot)
    ref_proba = estimator.predict_proba(C) if mixture else None
    start = time.perf_counter()
    reps = run_replicates(_replicate, seeds, n_jobs, estimator, C, warm_start, match, ref_proba)
    seconds = time.perf_counter() - start
    estimates = _params(estimator)
    result = BootstrapResult(
        method="nonparametric",
        n_boot=int(n_boot),
        warm_start=bool(warm_start),
        estimates=estimates,
        replicates={name: np.stack([r["params"][name] for r in reps]) for name in estimates},
        centers=_centers(estimator),
        center_replicates=np.stack([r["centers"] for r in reps]),
        log_likelihoods=np.array([r["log_likelihood"] for r in reps]),
        n_not_converged=sum(not r["converged"] for r in reps),
        seconds=seconds,
        is_mixture=mixture,
    )
    if mixture:
        fitted = np.argmax(ref_proba, axis=1)
        labels = np.stack([r["labels"] for r in reps])
        result.matchings = np.stack([r["perm"] for r in reps])
        result.membership_stability = (labels == fitted[None, :]).mean(axis=0)
    return result
