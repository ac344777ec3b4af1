"""Coverage of 95% Wald intervals: Plackett-Luce scores and the Mallows dispersion theta.

For each setting, data sets are simulated from a known model, the model is fitted, and the
95% Wald interval (estimate -/+ 1.96 standard errors from the observed information) is checked
for the true value. Plackett-Luce: every item's sum-zero score (``PlackettLuce.confint``) and
the contrast best minus worst item. Mallows: theta (``Mallows.theta_confint``, conditional on
the estimated centre). The issue asks for 200 data sets per setting; the default is 1000 (it
runs in about 20 s), whose Monte Carlo standard error at 0.95 is 0.007 (0.015 for 200).

The last Mallows setting is deliberately small and flat (the centre is often estimated wrong),
to show what "conditional on the centre" leaves out.

Usage: ``python experiments/studies/coverage.py [--datasets 1000]`` (about 20 s)
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import limit_threads, md_table, paths, platform_line, write_report

from rankclust.models.mallows import Mallows
from rankclust.models.plackett_luce import PlackettLuce

OUT = paths(__file__).results / "coverage.md"

#: (label, true scores, rankings per data set, top-k lengths or None for complete)
PL_SETTINGS = (
    ("complete, m=5, n=100", np.linspace(1.0, -1.0, 5), 100, None),
    ("top-k (k uniform in 1..8), m=8, n=300", np.linspace(1.2, -1.2, 8), 300, (1, 8)),
    ("complete, m=10, n=30", np.linspace(1.5, -1.5, 10), 30, None),
)
#: (label, true centre, theta, rankings per data set, top-t lengths or None)
MALLOWS_SETTINGS = (
    ("complete, m=6, theta=0.7, n=100", np.arange(6), 0.7, 100, None),
    ("top-t (t uniform in 2..8), m=8, theta=0.5, n=200", np.arange(8), 0.5, 200, (2, 8)),
    ("complete, m=8, theta=1.5, n=30", np.arange(8), 1.5, 30, None),
    ("complete, m=8, theta=0.1, n=20 (centre often wrong)", np.arange(8), 0.1, 20, None),
)


def pl_coverage(scores: np.ndarray, n: int, lengths: tuple | None, n_sets: int) -> dict:
    true = PlackettLuce.from_params(scores=scores)
    z = true.scores_
    rng = np.random.default_rng(0)
    hits, contrast_hits, failed = [], [], 0
    for s in range(n_sets):
        ell = None if lengths is None else rng.integers(lengths[0], lengths[1] + 1, n)
        R = true.sample(n, random_state=1000 + s, lengths=ell)
        try:
            model = PlackettLuce().fit(R)
        except ValueError:  # the MLE does not exist for this sample
            failed += 1
            continue
        ci = model.confint(R)
        hits.append((ci[:, 0] <= z) & (z <= ci[:, 1]))
        V = model.vcov(R)
        m = len(z)
        diff = model.scores_[0] - model.scores_[m - 1]
        se = np.sqrt(V[0, 0] + V[m - 1, m - 1] - 2 * V[0, m - 1])
        contrast_hits.append(abs(diff - (z[0] - z[m - 1])) <= 1.959963984540054 * se)
    hits = np.array(hits)
    per_item = hits.mean(axis=0)
    return {
        "used": len(hits),
        "failed": failed,
        "mean": float(per_item.mean()),
        "min": float(per_item.min()),
        "max": float(per_item.max()),
        "contrast": float(np.mean(contrast_hits)),
    }


def mallows_coverage(
    center: np.ndarray, theta: float, n: int, lengths: tuple | None, n_sets: int
) -> dict:
    true = Mallows.from_params(center=center, theta=theta)
    rng = np.random.default_rng(0)
    hits, centre_right, estimates, nan = [], [], [], 0
    for s in range(n_sets):
        ell = None if lengths is None else rng.integers(lengths[0], lengths[1] + 1, n)
        R = true.sample(n, random_state=2000 + s, lengths=ell)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = Mallows().fit(R)
        lo, hi = model.theta_confint(R)
        if np.isnan(lo):
            nan += 1
        hits.append(lo <= theta <= hi)
        centre_right.append(np.array_equal(model.center_, center))
        estimates.append(model.theta_)
    return {
        "used": len(hits),
        "nan": nan,
        "coverage": float(np.mean(hits)),
        "centre": float(np.mean(centre_right)),
        "mean_theta": float(np.mean(estimates)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=int, default=1000)
    args = ap.parse_args()
    limit_threads(1)
    t0 = time.perf_counter()
    pl_rows = []
    for label, scores, n, lengths in PL_SETTINGS:
        r = pl_coverage(scores, n, lengths, args.datasets)
        pl_rows.append(
            (
                label,
                f"{r['used']} ({r['failed']} without MLE)",
                f"{r['mean']:.3f}",
                f"{r['min']:.3f} - {r['max']:.3f}",
                f"{r['contrast']:.3f}",
            )
        )
        print(pl_rows[-1], flush=True)
    mallows_rows = []
    for label, center, theta, n, lengths in MALLOWS_SETTINGS:
        r = mallows_coverage(center, theta, n, lengths, args.datasets)
        mallows_rows.append(
            (
                label,
                r["used"],
                f"{r['coverage']:.3f}",
                f"{r['mean_theta']:.3f}",
                f"{r['centre']:.3f}",
                r["nan"],
            )
        )
        print(mallows_rows[-1], flush=True)
    elapsed = time.perf_counter() - t0
    lines = [
        "# Coverage of 95% Wald intervals",
        "",
        f"Generated by `python experiments/studies/coverage.py --datasets {args.datasets}` "
        f"({platform_line(cores=False)}; {elapsed:.0f} s; last run: {time.strftime('%Y-%m-%d')}).",
        "",
        f"{args.datasets} simulated data sets per setting; the Monte Carlo standard error of a "
        "coverage near 0.95 is "
        f"{np.sqrt(0.95 * 0.05 / args.datasets):.3f}. Target: 0.93-0.97.",
        "",
        "## Plackett-Luce (maximum likelihood, sum-zero scores)",
        "",
        "Coverage of each item's score interval (mean over items, and the range over items), "
        "and of the interval for the contrast best minus worst item. Data sets whose MLE does "
        "not exist (an item never wins or never loses) are left out and counted.",
        "",
        *md_table(
            ("setting", "data sets used", "mean coverage", "range over items", "contrast"),
            pl_rows,
        ),
        "",
        "## Mallows theta (conditional on the estimated centre)",
        "",
        "Coverage of the interval for theta; 'centre right' is the share of data sets whose "
        "estimated centre is the true one.",
        "",
        *md_table(
            (
                "setting",
                "data sets",
                "coverage",
                "mean estimate",
                "centre right",
                "no SE (theta at cap)",
            ),
            mallows_rows,
        ),
        "",
        "## Reading",
        "",
        "* Where the model is identified and the sample is moderate, the Wald intervals cover "
        "at their nominal rate (the 0.93-0.97 target), for complete rankings and for partial "
        "ones (top-k lists for Plackett-Luce, top-t lists for Mallows), and for a small sample "
        "with many items (Plackett-Luce m=10, n=30).",
        "* The last Mallows setting misses on purpose. With theta=0.1 and 20 rankings of 8 items "
        "the estimated centre is almost never the true one. The standard error treats the "
        "centre as known. But the estimated centre is the Kemeny ranking of the sample, which "
        "minimises the total distance, so the distances are smaller than to the true centre and "
        "theta comes out too large (mean estimate above the true 0.1), with an interval that ignores the choice of the centre. "
        "Use the bootstrap when the centre is uncertain.",
    ]
    write_report(OUT, lines)


if __name__ == "__main__":
    main()
