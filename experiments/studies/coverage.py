"""Coverage of 95% Wald intervals: Plackett-Luce scores, the Mallows dispersion, mixtures.

For each setting, data sets are simulated from a known model, the model is fitted, and the
95% Wald interval (estimate -/+ 1.96 standard errors from the observed information) is checked
for the true value. Plackett-Luce: every item's sum-zero score (``PlackettLuce.confint``) and
the contrast best minus worst item. Mallows: theta (``Mallows.theta_confint``, conditional on
the estimated centre). The issue asks for 200 data sets per setting; the default is 1000 (it
runs in about 20 s), whose Monte Carlo standard error at 0.95 is 0.007 (0.015 for 200).

The last Mallows setting is deliberately small and flat (the centre is often estimated wrong),
to show what "conditional on the centre" leaves out.

Mixtures (``--mixture-datasets``, default 200): a 3-component Mallows mixture on top-t lists
(each weight and each theta, given the fitted centres, after matching the components to the
truth; the share of data sets whose centres are recovered) and a 2-component Plackett-Luce
mixture on top-k lists (each weight, each sum-zero score), with the standard errors of
:func:`rankclust.inference.mixture_standard_errors`.

Usage: ``python experiments/studies/coverage.py [--datasets 1000] [--mixture-datasets 200]``
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

from rankclust.cluster import MallowsMixture, PlackettLuceMixture
from rankclust.cluster.mixture_generators import centers_at_distances, make_heterogeneous_rankings
from rankclust.datasets import make_plackett_luce_mixture
from rankclust.inference import match_components, mixture_standard_errors
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


#: The 3-component Mallows mixture: 6 items, centres at pairwise Kendall distance 8 (of 15),
#: unequal weights and dispersions, top-t lists with t uniform on 2..6, n ballots.
MIX_WEIGHTS = np.array([0.5, 0.3, 0.2])
MIX_THETAS = np.array([0.8, 1.0, 0.6])
MIX_LENGTHS = [2, 3, 4, 5, 6]
#: The 2-component Plackett-Luce mixture: 5 items, top-k lists with k uniform on 1..5.
PL_MIX_WEIGHTS = np.array([0.6, 0.4])
PL_MIX_SCORES = np.array([np.linspace(1.0, -1.0, 5), np.linspace(-1.0, 1.0, 5)[[1, 0, 2, 4, 3]]])


def _as_truth(fit, **attrs):
    """A copy of the fitted mixture ``fit`` holding the true parameters (for matching)."""
    import copy

    truth = copy.deepcopy(fit)
    for name, value in attrs.items():
        setattr(truth, name, value)
    return truth


def _covered(est: np.ndarray, se: np.ndarray, true: np.ndarray) -> np.ndarray:
    return np.abs(est - true) <= 1.959963984540054 * se


def mallows_mixture_coverage(n: int, n_sets: int, n_init: int) -> dict:
    """Coverage of the weights and dispersions of a 3-component Mallows mixture."""
    centers = centers_at_distances([8, 8, 8], 6, random_state=0)
    hits_w, hits_t, centre_right, all_right, failed, est_w, est_t = [], [], [], [], 0, [], []
    right_t = []  # theta hits where that component's centre is the true one (else nan)
    for s in range(n_sets):
        R, _ = make_heterogeneous_rankings(
            n, centers, MIX_THETAS, weights=MIX_WEIGHTS, lengths=MIX_LENGTHS,
            fixed_sizes=False, random_state=3000 + s,
        )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = MallowsMixture(n_components=3, n_init=n_init, random_state=s).fit(R)
        truth = _as_truth(fit, weights_=MIX_WEIGHTS, thetas_=MIX_THETAS, center_positions_=centers)
        perm = match_components(truth, fit, R=R)
        right = (fit.center_positions_[perm] == centers).all(axis=1)
        centre_right.append(right)
        all_right.append(right.all())
        try:
            se = mixture_standard_errors(fit, R)
        except ValueError:
            failed += 1
            continue
        w, wse = se.weights[perm], se.weights_se[perm]
        t, tse = se.thetas[perm], se.thetas_se[perm]
        hits_w.append(_covered(w, wse, MIX_WEIGHTS))
        hits_t.append(_covered(t, tse, MIX_THETAS))
        right_t.append(np.where(right, hits_t[-1], np.nan))
        est_w.append(w)
        est_t.append(t)
    return {
        "used": len(hits_w),
        "failed": failed,
        "weights": np.mean(hits_w, axis=0),
        "thetas": np.mean(hits_t, axis=0),
        "thetas_right": np.nanmean(right_t, axis=0),
        "mean_weights": np.mean(est_w, axis=0),
        "mean_thetas": np.mean(est_t, axis=0),
        "centre_right": np.mean(centre_right, axis=0),
        "all_right": float(np.mean(all_right)),
    }


def pl_mixture_coverage(n: int, n_sets: int, n_init: int) -> dict:
    """Coverage of the weights and sum-zero scores of a 2-component Plackett-Luce mixture."""
    hits_w, hits_z, failed = [], [], 0
    for s in range(n_sets):
        R, _ = make_plackett_luce_mixture(
            n, 5, 2, weights=PL_MIX_WEIGHTS, scores=PL_MIX_SCORES, kind="top", lengths=(1, 5),
            random_state=4000 + s,
        )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = PlackettLuceMixture(n_components=2, n_init=n_init, random_state=s).fit(R)
        true_scores = PL_MIX_SCORES - PL_MIX_SCORES.mean(axis=1, keepdims=True)
        truth = _as_truth(
            fit, weights_=PL_MIX_WEIGHTS, scores_=true_scores, worths_=np.exp(true_scores)
        )
        perm = match_components(truth, fit, R=R)
        try:
            se = mixture_standard_errors(fit, R)
        except ValueError:
            failed += 1
            continue
        hits_w.append(_covered(se.weights[perm], se.weights_se[perm], PL_MIX_WEIGHTS))
        hits_z.append(_covered(se.scores[perm], se.scores_se[perm], true_scores))
    hz = np.mean(hits_z, axis=0)
    return {
        "used": len(hits_w),
        "failed": failed,
        "weights": np.mean(hits_w, axis=0),
        "scores_mean": hz.mean(axis=1),
        "scores_min": hz.min(axis=1),
        "scores_max": hz.max(axis=1),
    }


def mixture_reading(mix: dict, plm: dict, n_sets: int) -> list[str]:
    """The reading of the mixture tables (bullets, from the measured values)."""
    lo = min(mix["weights"].min(), mix["thetas"].min())
    hi = max(mix["weights"].max(), mix["thetas"].max())
    worst = int(np.argmin(mix["thetas"]))
    return [
        f"* Mallows mixture: over {n_sets} data sets (Monte Carlo standard error "
        f"{np.sqrt(0.95 * 0.05 / n_sets):.3f}) the weights and thetas cover "
        f"{lo:.3f}-{hi:.3f}, in the target. The lowest is the theta of component {worst} "
        f"(weight {MIX_WEIGHTS[worst]}, the flattest, theta {MIX_THETAS[worst]}): "
        f"{mix['thetas'][worst]:.3f} over all data sets but {mix['thetas_right'][worst]:.3f} "
        f"over those where its centre was recovered ({mix['centre_right'][worst]:.3f} of "
        "them). Where the centre is a neighbouring ranking the standard error, which is "
        "given the centre, cannot know it (as for the single Mallows model below); the "
        "bootstrap carries the centre's uncertainty. The weights' coverage does not suffer.",
        f"* Plackett-Luce mixture: weights {plm['weights'].min():.3f}-"
        f"{plm['weights'].max():.3f}, scores {plm['scores_min'].min():.3f}-"
        f"{plm['scores_max'].max():.3f} per item (means {plm['scores_mean'].min():.3f}-"
        f"{plm['scores_mean'].max():.3f}), in the target; the weights sit about one Monte "
        "Carlo standard error below 0.95 (slightly anti-conservative for 600 partial "
        "ballots, as Wald intervals of mixing weights tend to be).",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", type=int, default=1000)
    ap.add_argument("--mixture-datasets", type=int, default=200)
    ap.add_argument("--mixture-n", type=int, default=600, help="ballots per mixture data set")
    ap.add_argument("--n-init", type=int, default=10, help="starts of each mixture fit")
    args = ap.parse_args()
    limit_threads(1)
    t0 = time.perf_counter()
    mix = mallows_mixture_coverage(args.mixture_n, args.mixture_datasets, args.n_init)
    print(mix, flush=True)
    t_mix = time.perf_counter() - t0
    plm = pl_mixture_coverage(args.mixture_n, args.mixture_datasets, args.n_init)
    print(plm, flush=True)
    t_plm = time.perf_counter() - t0 - t_mix
    mix_rows = [
        (
            f"component {k} (weight {MIX_WEIGHTS[k]}, theta {MIX_THETAS[k]})",
            f"{mix['weights'][k]:.3f}",
            f"{mix['thetas'][k]:.3f}",
            f"{mix['thetas_right'][k]:.3f}",
            f"{mix['mean_weights'][k]:.3f}",
            f"{mix['mean_thetas'][k]:.3f}",
            f"{mix['centre_right'][k]:.3f}",
        )
        for k in range(3)
    ]
    plm_rows = [
        (
            f"component {k} (weight {PL_MIX_WEIGHTS[k]})",
            f"{plm['weights'][k]:.3f}",
            f"{plm['scores_mean'][k]:.3f}",
            f"{plm['scores_min'][k]:.3f} - {plm['scores_max'][k]:.3f}",
        )
        for k in range(2)
    ]
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
        "Generated by `python experiments/studies/coverage.py --datasets "
        f"{args.datasets} --mixture-datasets {args.mixture_datasets} --mixture-n "
        f"{args.mixture_n} --n-init {args.n_init}` "
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
        "## Mallows mixture, 3 components, top-t lists (weights and thetas)",
        "",
        f"{args.mixture_datasets} data sets of {args.mixture_n} top-t lists of 6 items (t "
        f"uniform on {MIX_LENGTHS[0]}..{MIX_LENGTHS[-1]}), components drawn with weights "
        f"{MIX_WEIGHTS.tolist()}, dispersions {MIX_THETAS.tolist()}, centres at pairwise "
        f"Kendall distance 8 (of 15). Each fit: `MallowsMixture(n_components=3, "
        f"n_init={args.n_init})`; components matched to the truth by "
        "`rankclust.inference.match_components` (posterior co-membership); 95 % Wald "
        "intervals from `rankclust.inference.mixture_standard_errors` (exact observed "
        "information of the mixture likelihood, thetas given the fitted centres). "
        f"Data sets without standard errors (singular information): {mix['failed']}; "
        f"all three centres recovered exactly: {mix['all_right']:.3f} of the data sets "
        f"({t_mix:.0f} s).",
        "",
        *md_table(
            (
                "component",
                "weight coverage",
                "theta coverage",
                "theta coverage, centre right",
                "mean weight",
                "mean theta",
                "centre right",
            ),
            mix_rows,
        ),
        "",
        "## Plackett-Luce mixture, 2 components, top-k lists (weights and scores)",
        "",
        f"{args.mixture_datasets} data sets of {args.mixture_n} top-k lists of 5 items (k "
        f"uniform on 1..5), weights {PL_MIX_WEIGHTS.tolist()}, sum-zero scores "
        f"{np.round(PL_MIX_SCORES, 2).tolist()}; `PlackettLuceMixture(n_components=2, "
        f"n_init={args.n_init})`, matched and with intervals as above. Data sets without "
        f"standard errors: {plm['failed']} ({t_plm:.0f} s).",
        "",
        *md_table(
            ("component", "weight coverage", "score coverage (mean)", "range over items"),
            plm_rows,
        ),
        "",
        "## Reading",
        "",
        *mixture_reading(mix, plm, args.mixture_datasets),
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
