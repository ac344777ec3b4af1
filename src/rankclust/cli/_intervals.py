"""``--ci B``: bootstrap intervals of a fitted mixture, gathered as plain JSON data.

The numbers come from :func:`rankclust.inference.bootstrap` (percentile intervals, the
probability of each reported centre, membership stability) and, for a one-component mixture
(a single model), from the information matrix (Wald intervals: Plackett-Luce log-worths,
the Mallows dispersion). :mod:`rankclust.cli.report.intervals` lays them out as text.
"""

from __future__ import annotations

import argparse
from types import SimpleNamespace
from typing import Any

import numpy as np

from rankclust.cli._errors import CLIError

__all__ = [
    "STABLE",
    "check_interval_options",
    "compute_intervals",
    "compute_pair_intervals",
    "report_intervals",
]

#: A ballot is called stable when it keeps its cluster in at least this share of replicates.
STABLE = 0.9


def check_interval_options(args: argparse.Namespace, cls: type) -> None:
    """Refuse ``--ci`` for a method without a bootstrap, ``--ci-level`` and ``--n-jobs``
    without the replicates they are for, and ``--n-jobs 0``."""
    from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture

    n_boot = getattr(args, "ci", None)
    n_jobs = getattr(args, "n_jobs", None)
    if n_jobs == 0:
        raise CLIError("--n-jobs: 0 processes; give N >= 1, or -1 for all cores")
    if n_boot is None:
        if getattr(args, "ci_level", None) is not None:
            raise CLIError("--ci-level: no intervals to compute; add --ci B (e.g. --ci 200)")
        if n_jobs is not None and getattr(args, "lrt", None) is None:
            raise CLIError("--n-jobs: only the bootstrap replicates of --ci run in parallel; "
                           "add --ci B")  # fmt: skip
        return
    from rankclust.pairwise import BradleyTerry, BradleyTerryMixture

    if not issubclass(
        cls, MallowsMixture | PlackettLuceMixture | BradleyTerry | BradleyTerryMixture
    ):
        raise CLIError(
            f"--ci: bootstrap intervals need a mixture (--method mixture or pl-mixture), "
            f"not {cls.__name__}"
        )


def _interval(estimate: Any, low: Any, high: Any) -> dict[str, float]:
    return {"estimate": float(estimate), "low": float(low), "high": float(high)}


def _stability(boot: Any, labels: np.ndarray, weights: np.ndarray, k: int) -> dict[str, Any]:
    """Weighted summary of the per-ballot membership stability."""
    s = np.asarray(boot.membership_stability, dtype=np.float64)
    w = weights / weights.sum()
    per_cluster = []
    for c in range(k):
        mask = labels == c
        total = float(w[mask].sum())
        per_cluster.append(float(w[mask] @ s[mask] / total) if total > 0 else None)
    return {
        "mean": float(w @ s),
        "min": float(s.min()),
        "share_stable": float(w[s >= STABLE].sum()),
        "stable_threshold": STABLE,
        "per_cluster_mean": per_cluster,
    }


def _wald(est: Any, R: Any, level: float) -> dict[str, Any] | None:
    """Wald intervals of a one-component mixture (a single model), or None when the
    information cannot be computed for these data (the reason in ``note``)."""
    from rankclust.cluster.mixture import MallowsMixture
    from rankclust.inference import (
        mallows_theta_standard_error,
        plackett_luce_vcov,
        wald_intervals,
    )

    try:
        if isinstance(est, MallowsMixture):
            theta = float(est.thetas_[0])
            se = float(mallows_theta_standard_error(R, est.center_positions_[0], theta, R.weights))
            low, high = wald_intervals([theta], [se], level)[0]
            return {"theta": {**_interval(theta, low, high), "standard_error": se}}
        scores = np.asarray(est.scores_[0], dtype=np.float64)
        vcov = plackett_luce_vcov(R, scores, R.weights, alpha=float(getattr(est, "alpha", 0.0)))
        se = np.sqrt(np.clip(np.diag(vcov), 0.0, None))
        bounds = wald_intervals(scores, se, level)
        return {
            "scores": [
                {**_interval(scores[j], *bounds[j]), "standard_error": float(se[j])}
                for j in range(len(scores))
            ]
        }
    except ValueError as exc:
        return {"note": f"no Wald intervals: {exc}"}


def compute_intervals(
    est: Any,
    R: Any,
    *,
    n_boot: int,
    level: float | None = None,
    random_state: int | None = None,
    n_jobs: int | None = None,
) -> tuple[dict[str, Any], Any]:
    """Bootstrap intervals of a fitted mixture as JSON data, and the BootstrapResult.

    Parameters
    ----------
    est : fitted MallowsMixture or PlackettLuceMixture
    R : Rankings
        The data ``est`` was fitted on.
    n_boot : int
        Non-parametric replicates.
    level : float, optional
        Coverage (default 0.95).
    random_state : int, optional
        Seeds the replicates (the result does not depend on ``n_jobs``).
    n_jobs : int, optional
        Parallel replicates (joblib).

    Returns
    -------
    data : dict
        ``method``, ``n_boot``, ``level``, ``seconds``, ``n_not_converged``, ``components``
        (per cluster: ``proportion``, ``theta`` or ``worths`` and ``scores`` as
        ``{estimate, low, high}``, ``center_probability``, ``position_probabilities``
        (items x positions)), ``membership_stability`` and, for K = 1, ``wald``.
    boot : BootstrapResult
    """
    from rankclust.cluster.mixture import MallowsMixture
    from rankclust.inference import bootstrap

    level = 0.95 if level is None else float(level)
    try:
        boot = bootstrap(est, R, n_boot, random_state=random_state, n_jobs=n_jobs)
    except ValueError as exc:
        raise CLIError(f"--ci: the bootstrap failed: {exc}") from None
    k = len(est.weights_)
    names = [str(x) for x in R.items] if R.items is not None else None
    bounds = boot.intervals(level)
    center_p = np.atleast_1d(boot.center_probability)
    positions = boot.position_probabilities.reshape(k, R.n_items, R.n_items)
    components = []
    for c in range(k):
        entry: dict[str, Any] = {
            "cluster": c,
            "proportion": _interval(
                boot.estimates["weights"][c], *(b[c] for b in bounds["weights"])
            ),
        }
        if isinstance(est, MallowsMixture):
            entry["theta"] = _interval(
                boot.estimates["thetas"][c], *(b[c] for b in bounds["thetas"])
            )
        else:
            for name in ("worths", "scores"):
                low, high = bounds[name]
                entry[name] = [
                    _interval(boot.estimates[name][c, j], low[c, j], high[c, j])
                    for j in range(R.n_items)
                ]
        entry["center_probability"] = float(center_p[c])
        entry["position_probabilities"] = positions[c].tolist()
        components.append(entry)
    labels = np.asarray(est.labels_)
    data: dict[str, Any] = {
        "method": f"{boot.method} bootstrap",
        "n_boot": int(boot.n_boot),
        "level": level,
        "random_state": random_state,
        "seconds": float(boot.seconds),
        "n_not_converged": int(boot.n_not_converged),
        "items": names,
        "components": components,
        "membership_stability": _stability(boot, labels, R.weights, k),
    }
    if k == 1:
        data["wald"] = _wald(est, R, level)
    return data, boot


def compute_pair_intervals(
    est: Any,
    C: Any,
    *,
    n_boot: int,
    level: float | None = None,
    random_state: int | None = None,
    n_jobs: int | None = None,
) -> tuple[dict[str, Any], Any]:
    """Bootstrap intervals of a Bradley-Terry fit on comparisons, over assessors.

    The data of :func:`compute_intervals` (the same keys, plus ``unit``: what was resampled,
    ``"assessors"`` or ``"comparisons"``; ``membership_stability`` is per assessor, each
    counting once, and ``wald`` holds the standard errors of one model's log-worths for
    K = 1), from :func:`rankclust.inference.bootstrap` on ``C``.
    """
    from rankclust.inference import bootstrap, wald_intervals

    level = 0.95 if level is None else float(level)
    try:
        boot = bootstrap(est, C, n_boot, random_state=random_state, n_jobs=n_jobs)
    except ValueError as exc:
        raise CLIError(f"--ci: the bootstrap failed: {exc}") from None
    mixture = hasattr(est, "weights_")
    k, m = (len(est.weights_) if mixture else 1), C.n_items
    bounds = {name: tuple(np.reshape(b, (k, -1)) for b in pair)
              for name, pair in boot.intervals(level).items()}  # fmt: skip
    estimates = {name: np.reshape(v, (k, -1)) for name, v in boot.estimates.items()}
    center_p = np.atleast_1d(boot.center_probability)
    positions = boot.position_probabilities.reshape(k, m, m)
    components = []
    for c in range(k):
        entry: dict[str, Any] = {"cluster": c}
        if mixture:
            low, high = bounds["weights"]
            entry["proportion"] = _interval(estimates["weights"][c, 0], low[c, 0], high[c, 0])
        else:
            entry["proportion"] = _interval(1.0, 1.0, 1.0)
        for name in ("worths", "scores"):
            low, high = bounds[name]
            entry[name] = [_interval(estimates[name][c, j], low[c, j], high[c, j])
                           for j in range(m)]  # fmt: skip
        entry["center_probability"] = float(center_p[c])
        entry["position_probabilities"] = positions[c].tolist()
        components.append(entry)
    n_a = C.n_assessors if C.has_assessors else 0
    labels = np.asarray(est.labels_) if mixture else np.zeros(n_a, dtype=np.int64)
    data: dict[str, Any] = {
        "method": f"{boot.method} bootstrap",
        "unit": "assessors" if C.has_assessors else "comparisons",
        "n_boot": int(boot.n_boot),
        "level": level,
        "random_state": random_state,
        "seconds": float(boot.seconds),
        "n_not_converged": int(boot.n_not_converged),
        "items": [C.item_name(j) for j in range(m)],
        "components": components,
    }
    if mixture:
        seen = labels >= 0  # assessors without comparisons have no cluster
        stab = SimpleNamespace(membership_stability=boot.membership_stability[seen])
        data["membership_stability"] = _stability(stab, labels[seen], np.ones(seen.sum()), k)
    else:
        try:
            se = est.standard_errors(C)[:m]
        except ValueError as exc:
            data["wald"] = {"note": f"no Wald intervals: {exc}"}
        else:
            scores = est.scores_
            b = wald_intervals(scores, se, level)
            data["wald"] = {"scores": [{**_interval(scores[j], *b[j]), "standard_error":
                                        float(se[j])} for j in range(m)]}  # fmt: skip
    return data, boot


def report_intervals(
    args: argparse.Namespace, est: Any, R: Any, console: Any, *, pairs: bool = False
) -> tuple[Any, Any]:
    """Compute, print and return ``(data, boot)`` of ``--ci`` (``(None, None)`` without it);
    ``pairs``: ``R`` is the Comparisons of a Bradley-Terry fit."""
    n_boot = getattr(args, "ci", None)
    if n_boot is None:
        return None, None
    from rankclust.cli.report.intervals import interval_summary

    compute = compute_pair_intervals if pairs else compute_intervals
    with console.task(f"bootstrap: {n_boot} replicates"):
        data, boot = compute(
            est, R, n_boot=n_boot, level=args.ci_level, random_state=args.random_state,
            n_jobs=args.n_jobs,
        )  # fmt: skip
    console.print()
    console.print(interval_summary(data))
    return data, boot
