"""Reproduce Table 2 of Cheng, Hühn & Hüllermeier (ICML 2009): label ranking by CC, IBLR, LRT.

Protocol (paper Sec. 6; docs/decisions.md C9): for each of the 16 semi-synthetic data
sets, ``reps`` x 10-fold cross-validation (``KFold(10, shuffle=True, random_state=rep)``, the
same folds for every method and missing rate); the training rankings of each fold lose every
label independently with probability p in {0, 0.3, 0.6} (seeded per data set, repetition,
fold and p; test rankings stay complete); Kendall tau is averaged over the test rows of a
fold, then over the folds. Methods: CC (perceptron, alpha = 500; averaged, the library
default, and the last weight vector as an extra column; the paper's update cap alpha = 500
pinned, where the library default chooses the cap), IBLR (Mallows, k by
leave-one-out, the library defaults: features standardised on the training part), LRT
(impurity criterion, the paper's stopping rule ``min_node_size_factor=2``, no
impurity-decrease rule and no pruning, ``ccp_alpha=0``, exact ties of the split criterion decided by a per-node random feature order seeded per
fold), plus LRT-theta (the literal eq. 6 with theta capped at 10, same stopping rule), IBLR-PL (Plackett-Luce, with the k IBLR chose) and RPC
(logistic regression) as extra columns. The 5 yeast sets (cold, diau, dtt, heat, spo) are run
the same way (``--yeast``).

Usage::

    nice python experiments/cheng2009/label_ranking_cheng2009.py --quick          # 1 x 10-fold CV
    nice python experiments/cheng2009/label_ranking_cheng2009.py                  # 5 x 10-fold CV
    nice python experiments/cheng2009/label_ranking_cheng2009.py --quick --yeast

Per-fold results are appended to a JSON-lines cache (``--cache``) so an interrupted run
resumes; ``--report`` only rebuilds the markdown from the cache.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
import zlib
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import KFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import limit_threads, paths
from _compare import friedman_nemenyi

from rankclust.datasets import load_label_ranking
from rankclust.label_ranking import (
    ConstraintClassification,
    IBLRMallows,
    IBLRPlackettLuce,
    LabelRankingTree,
    PairwiseLabelRanker,
)
from rankclust.rankings import Rankings

PATHS = paths(__file__)
SEMI = [
    "authorship", "bodyfat", "calhousing", "cpu", "elevators", "fried", "glass", "housing",
    "iris", "pendigits", "segment", "stock", "vehicle", "vowel", "wine", "wisconsin",
]  # fmt: skip
YEAST = ["cold", "diau", "dtt", "heat", "spo"]
# LabelRankingTree settings of the paper's LRT (Sec. 5: no split below 2 |Y| examples, no
# pruning; the library default prunes by internal cross-validation)
PAPER_TREE = {"min_node_size_factor": 2, "min_impurity_decrease": None, "ccp_alpha": 0.0}
# the paper's CC: alpha = 500 (the library default chooses the cap, see ConstraintClassification)
PAPER_CC_ALPHA = 500
RATES = (0.0, 0.3, 0.6)
METHODS = ("CC-avg", "IBLR", "LRT", "CC", "LRT-theta", "IBLR-PL", "RPC")
# column headers of the report
LABELS = {
    "CC-avg": "CC (averaged)",
    "IBLR": "IBLR",
    "LRT": "LRT",
    "CC": "CC (last vector)",
    "LRT-theta": "LRT-theta",
    "IBLR-PL": "IBLR-PL",
    "RPC": "RPC",
}

# Table 2 of the paper: (CC, IBLR, LRT, LRT relative tree size) per missing rate
PAPER = {
    "authorship": [
        (0.920, 0.936, 0.882, 1.1),
        (0.891, 0.932, 0.871, 0.9),
        (0.835, 0.920, 0.828, 0.7),
    ],
    "bodyfat": [
        (0.281, 0.248, 0.117, 1.6),
        (0.260, 0.223, 0.097, 1.7),
        (0.224, 0.180, 0.070, 1.0),
    ],
    "calhousing": [
        (0.250, 0.351, 0.324, 0.7),
        (0.249, 0.327, 0.307, 0.5),
        (0.247, 0.289, 0.273, 0.3),
    ],
    "cpu": [(0.475, 0.506, 0.447, 2.3), (0.474, 0.498, 0.405, 2.3), (0.470, 0.480, 0.367, 1.5)],
    "elevators": [
        (0.768, 0.733, 0.760, 0.2),
        (0.767, 0.719, 0.756, 0.2),
        (0.765, 0.690, 0.742, 0.3),
    ],
    "fried": [(0.999, 0.935, 0.890, 5.5), (0.998, 0.928, 0.863, 5.3), (0.997, 0.895, 0.809, 3.0)],
    "glass": [(0.846, 0.865, 0.883, 2.5), (0.835, 0.824, 0.850, 2.0), (0.789, 0.771, 0.799, 2.0)],
    "housing": [
        (0.660, 0.745, 0.797, 2.3),
        (0.655, 0.697, 0.734, 2.4),
        (0.638, 0.630, 0.634, 1.5),
    ],
    "iris": [(0.836, 0.966, 0.947, 1.5), (0.807, 0.945, 0.909, 1.2), (0.743, 0.882, 0.794, 1.5)],
    "pendigits": [
        (0.903, 0.944, 0.935, 6.2),
        (0.902, 0.924, 0.914, 3.2),
        (0.900, 0.899, 0.871, 2.2),
    ],
    "segment": [
        (0.914, 0.959, 0.949, 3.8),
        (0.911, 0.934, 0.933, 3.8),
        (0.902, 0.902, 0.903, 2.3),
    ],
    "stock": [(0.737, 0.927, 0.895, 1.5), (0.735, 0.904, 0.877, 1.6), (0.724, 0.858, 0.827, 1.1)],
    "vehicle": [
        (0.855, 0.862, 0.827, 0.8),
        (0.839, 0.842, 0.819, 0.9),
        (0.810, 0.791, 0.764, 0.5),
    ],
    "vowel": [(0.623, 0.900, 0.794, 4.6), (0.615, 0.824, 0.718, 3.6), (0.598, 0.722, 0.615, 3.2)],
    "wine": [(0.933, 0.949, 0.882, 0.8), (0.911, 0.941, 0.862, 1.1), (0.853, 0.789, 0.752, 0.8)],
    "wisconsin": [
        (0.629, 0.506, 0.343, 1.6),
        (0.617, 0.484, 0.284, 1.5),
        (0.566, 0.438, 0.251, 1.6),
    ],
}


def delete_labels(R: Rankings, p: float, seed: list[int]) -> Rankings:
    """Delete every label of every ranking independently with probability p (decisions.md C9)."""
    if p == 0:
        return R
    rng = np.random.default_rng(seed)
    ranks = np.where(rng.random(R.shape) < p, -1, R.ranks)
    return Rankings(ranks)


def run_fold(name, X, R, rep, fold, train, test, p, methods):
    seed = [zlib.crc32(name.encode()), rep, fold, round(100 * p)]
    Rtr = delete_labels(R[train], p, seed)
    Yte = R[test]
    rs = int(np.random.SeedSequence(seed).generate_state(1)[0])
    out = {}
    iblr = None
    for method in methods:
        t0 = time.perf_counter()
        extra = {}
        if method == "CC":
            est = ConstraintClassification(alpha=PAPER_CC_ALPHA, averaged=False, random_state=rs)
        elif method == "CC-avg":
            est = ConstraintClassification(alpha=PAPER_CC_ALPHA, averaged=True, random_state=rs)
        elif method == "IBLR":
            est = iblr = IBLRMallows(random_state=rs)
        elif method == "LRT":
            # the paper's tree: its stopping rule, no impurity-decrease rule (the library
            # default grows the tree fully and stops where no split improves the criterion)
            est = LabelRankingTree(**PAPER_TREE, random_state=rs)
        elif method == "LRT-theta":
            est = LabelRankingTree(criterion="theta", **PAPER_TREE, random_state=rs)
        elif method == "IBLR-PL":
            if iblr is None:  # the k of IBLR's leave-one-out (same seed as the IBLR run)
                iblr = IBLRMallows(random_state=rs).fit(X[train], Rtr)
            est = IBLRPlackettLuce(n_neighbors=iblr.n_neighbors_)
        else:
            est = PairwiseLabelRanker()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X[train], Rtr)
            tau = est.score(X[test], Yte)
        if method == "IBLR":
            extra["k"] = int(est.n_neighbors_)
        if method in ("LRT", "LRT-theta"):
            extra["leaves"] = int(est.n_leaves_)
        out[method] = {"tau": float(tau), "time": time.perf_counter() - t0, **extra}
    return out


def run(datasets, reps, methods, cache: Path, rates=RATES, verbose=True):
    done = set()
    if cache.exists():
        for line in cache.read_text().splitlines():
            r = json.loads(line)
            done.add((r["dataset"], r["rep"], r["fold"], r["p"]))
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache.open("a") as fh:
        for name in datasets:
            X, R = load_label_ranking(name)
            t_set = time.perf_counter()
            for rep in range(reps):
                folds = KFold(10, shuffle=True, random_state=rep).split(X)
                for fold, (train, test) in enumerate(folds):
                    for p in rates:
                        if (name, rep, fold, p) in done:
                            continue
                        res = run_fold(name, X, R, rep, fold, train, test, p, methods)
                        rec = {"dataset": name, "rep": rep, "fold": fold, "p": p, **res}
                        fh.write(json.dumps(rec) + "\n")
                        fh.flush()
            if verbose:
                print(f"{name}: {time.perf_counter() - t_set:.1f} s", flush=True)


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------
def load_cache(*caches: Path):
    """Per-fold records of all caches, merged by (data set, rep, fold, p)."""
    merged: dict = {}
    for cache in caches:
        if not cache.exists():
            continue
        for line in cache.read_text().splitlines():
            r = json.loads(line)
            key = (r["dataset"], r["rep"], r["fold"], r["p"])
            merged.setdefault(key, {}).update(r)
    return list(merged.values())


def aggregate(rows, reps=None):
    """(dataset, p, method) -> dict(mean, std, n_folds, time, k, leaves)."""
    acc: dict = {}
    for r in rows:
        if reps is not None and r["rep"] >= reps:
            continue
        for method in METHODS:
            if method not in r:
                continue
            acc.setdefault((r["dataset"], r["p"], method), []).append(r[method])
    out = {}
    for key, vals in acc.items():
        taus = np.array([v["tau"] for v in vals])
        out[key] = {
            "mean": float(taus.mean()),
            "std": float(taus.std(ddof=1)) if taus.size > 1 else 0.0,
            "n": int(taus.size),
            "time": float(np.sum([v["time"] for v in vals])),
            "k": float(np.mean([v["k"] for v in vals])) if "k" in vals[0] else None,
            "leaves": float(np.mean([v["leaves"] for v in vals])) if "leaves" in vals[0] else None,
        }
    return out


def _fmt(x, nd=3):
    return "–" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{nd}f}"


def report(rows, datasets, title, reps, paper=True) -> str:
    agg = aggregate(rows, reps)
    lines = [f"## {title}", ""]
    lines.append(
        f"Every cell is a mean over {10 * reps} folds ({reps} x 10-fold CV); '–' = not run "
        "(or not all folds run)."
    )
    lines.append("")
    for p in RATES:
        lines.append(f"### {int(p * 100)} % of the training labels missing")
        lines.append("")
        head = (
            "| data set | " + " | ".join(LABELS[m] for m in METHODS) + " | IBLR k | LRT leaves |"
        )
        sep = "|---|---|---|---|---|---|---|---|---|---|"
        if paper:
            head += " paper CC | paper IBLR | paper LRT |"
            sep += "---|---|---|"
        lines += [head, sep]
        cols = {m: [] for m in METHODS}
        pcols = {m: [] for m in ("CC", "IBLR", "LRT")}
        for name in datasets:
            # a cell is shown only when every fold of every repetition is in
            cell = {
                m: c if (c := agg.get((name, p, m))) and c["n"] == 10 * reps else None
                for m in METHODS
            }
            vals = [_fmt(cell[m]["mean"]) if cell[m] else "–" for m in METHODS]
            for m in METHODS:
                cols[m].append(cell[m]["mean"] if cell[m] else np.nan)
            k = cell["IBLR"]["k"] if cell["IBLR"] else None
            leaves = cell["LRT"]["leaves"] if cell["LRT"] else None
            line = f"| {name} | " + " | ".join(vals) + f" | {_fmt(k, 1)} | {_fmt(leaves, 1)} |"
            if paper:
                pp = PAPER[name][RATES.index(p)]
                for i, m in enumerate(("CC", "IBLR", "LRT")):
                    pcols[m].append(pp[i])
                line += " " + " | ".join(f"{v:.3f}" for v in pp[:3]) + " |"
            lines.append(line)
        avg = (
            "| **average** | "
            + " | ".join(
                _fmt(float(np.mean(cols[m]))) if np.isfinite(cols[m]).all() else "–"
                for m in METHODS
            )
            + " | | |"
        )
        if paper:
            avg += " " + " | ".join(f"{np.mean(pcols[m]):.3f}" for m in pcols) + " |"
        lines += [avg, ""]
        cc = "CC-avg" if np.isfinite(cols["CC-avg"]).all() else "CC"
        main = np.column_stack([cols[cc], cols["IBLR"], cols["LRT"]])
        if not np.isnan(main).any() and len(datasets) > 2:
            fr = friedman_nemenyi(main)
            r = fr["ranks"]
            lines.append(
                f"Average ranks {LABELS[cc]} / IBLR / LRT: {r[0]:.3f} / {r[1]:.3f} / {r[2]:.3f}; "
                f"Friedman chi2_F = {fr['chi2']:.3f}, Iman-Davenport F_F = {fr['F']:.3f} "
                f"(p = {fr['p']:.4f}); Nemenyi CD(10 %) = {fr['cd']:.4f}."
            )
            sig = []
            names = ("CC", "IBLR", "LRT")
            for a in range(3):
                for b in range(a + 1, 3):
                    diff = abs(r[a] - r[b])
                    if fr["p"] < 0.10 and diff > fr["cd"]:
                        better = names[a] if r[a] < r[b] else names[b]
                        worse = names[b] if better == names[a] else names[a]
                        sig.append(f"{better} > {worse} (rank difference {diff:.3f})")
            lines.append(
                "Significant at 10 % (Friedman rejects and rank difference > CD): "
                + ("; ".join(sig) if sig else "none")
                + "."
            )
            if paper:
                pr = friedman_nemenyi(np.column_stack([pcols[m] for m in pcols]))
                lines.append(
                    f"Paper: ranks {pr['ranks'][0]:.3f} / {pr['ranks'][1]:.3f} / "
                    f"{pr['ranks'][2]:.3f}, chi2_F = {pr['chi2']:.3f}, F_F = {pr['F']:.3f}."
                )
            lines.append("")
    t = {m: sum(agg[k]["time"] for k in agg if k[2] == m and k[0] in datasets) for m in METHODS}
    lines.append(
        "Total fit + predict time (s), all folds and rates: "
        + ", ".join(f"{m} {t[m]:.0f}" for m in METHODS)
        + "."
    )
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 x 10-fold CV instead of 5 x 10")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--yeast", action="store_true", help="run the 5 yeast sets")
    ap.add_argument("--methods", nargs="*", default=list(METHODS))
    ap.add_argument("--cache", type=Path, default=PATHS.raw / "label_ranking_cheng2009.jsonl")
    ap.add_argument("--out", type=Path, default=PATHS.results / "label_ranking_cheng2009.md")
    ap.add_argument("--report", action="store_true", help="only rebuild the markdown")
    ap.add_argument(
        "--extra-cache",
        type=Path,
        nargs="*",
        default=[],
        help="more caches (e.g. of another method subset) merged into the report",
    )
    args = ap.parse_args()
    limit_threads(1)  # one BLAS thread: the machine is shared and the fits are small
    reps = args.reps or (1 if args.quick else 5)
    datasets = args.datasets or (YEAST if args.yeast else SEMI)
    if not args.report:
        run(datasets, reps, args.methods, args.cache)
    rows = load_cache(args.cache, *args.extra_cache)
    done_sets = {r["dataset"] for r in rows}
    text = [
        "# Cheng, Hühn & Hüllermeier (2009), Table 2: reproduction",
        "",
        f"Generated by `experiments/cheng2009/label_ranking_cheng2009.py` ({reps} x 10-fold CV).",
        "",
    ]
    semi = [d for d in SEMI if d in done_sets]
    if semi:
        text.append(report(rows, semi, "16 semi-synthetic data sets", reps, paper=True))
    yeast = [d for d in YEAST if d in done_sets]
    if yeast:
        text.append(report(rows, yeast, "Yeast data sets", reps, paper=False))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
