"""Label ranking defaults on real survey data: SUSHI set A with the respondents' demographics.

Issue #17 (item 5): every label ranker's *default* must beat the one-ranking (consensus)
baseline on real data. Data: Kamishima's SUSHI set A (5,000 complete orders of 10 sushis) with
the 10 user features of ``sushi3.udata`` (gender, age class, seconds spent on the form,
prefecture / region / east-west codes until 15 and now, moved) as ``X``, read by
:func:`rankclust.datasets.fetch_sushi`. The data may not be redistributed, so the script reads
them from the data home (``--data-home``, default ``$RANKCLUST_DATA`` or ``../shared/data``
beside the repository) and writes **aggregates only** (means and standard deviations over folds) to
``experiments/studies/results/label_ranking_sushi_demographics.md``.

Protocol: ``KFold(10, shuffle=True, random_state=0)``; every method is fitted with its
constructor defaults (``random_state`` set per fold where the estimator has one) on the
training part and scored by mean Kendall tau on the test part. ``--extra`` adds reference
settings (the tree with ``max_depth=4``, the fully grown tree, IBLR on raw or standardised
features) that are not defaults.

Usage::

    nice python experiments/studies/label_ranking_sushi_demographics.py            # all defaults
    nice python experiments/studies/label_ranking_sushi_demographics.py --extra    # + references
    nice python experiments/studies/label_ranking_sushi_demographics.py --methods LRT IBLR --tag before

``--tag`` names the run in the report (e.g. ``before`` / ``after`` a change); runs are kept
in a JSON file of aggregates (``--json``) and the markdown shows every tagged run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import KFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import data_home, limit_threads, md_row, md_table, paths, write_json

from rankclust.datasets import fetch_sushi
from rankclust.label_ranking import (
    ConsensusLabelRanker,
    ConstraintClassification,
    IBLRMallows,
    IBLRPlackettLuce,
    LabelRankingTree,
    PairwiseLabelRanker,
)

PATHS = paths(__file__)

# name -> (factory(seed), description); the defaults first, then reference settings
DEFAULTS = {
    "Consensus": (lambda rs: ConsensusLabelRanker(), "ConsensusLabelRanker() (the baseline)"),
    "LRT": (lambda rs: LabelRankingTree(random_state=rs), "LabelRankingTree()"),
    "IBLR": (lambda rs: IBLRMallows(random_state=rs), "IBLRMallows()"),
    "IBLR-PL": (lambda rs: IBLRPlackettLuce(random_state=rs), "IBLRPlackettLuce()"),
    "CC": (lambda rs: ConstraintClassification(random_state=rs), "ConstraintClassification()"),
    "RPC": (lambda rs: PairwiseLabelRanker(), "PairwiseLabelRanker()"),
}
EXTRA = {
    "LRT depth 4": (
        lambda rs: LabelRankingTree(max_depth=4, random_state=rs),
        "LabelRankingTree(max_depth=4)",
    ),
    "LRT full": (
        lambda rs: LabelRankingTree(ccp_alpha=0.0, random_state=rs),
        "LabelRankingTree(ccp_alpha=0.0) (fully grown)",
    ),
    "IBLR raw": (
        lambda rs: IBLRMallows(scaling="none", random_state=rs),
        'IBLRMallows(scaling="none")',
    ),
    "IBLR zscore": (
        lambda rs: IBLRMallows(scaling="zscore", random_state=rs),
        'IBLRMallows(scaling="zscore")',
    ),
}


def _supported(name: str) -> bool:
    """Whether the installed rankclust accepts the method's settings (for 'before' runs)."""
    try:
        (DEFAULTS | EXTRA)[name][0](0)._validate_params()
    except (TypeError, ValueError):
        return False
    return True


def run(X, R, methods, n_folds=10, verbose=True) -> dict:
    """Per method: per-fold tau, time (s) and model size; and paired differences."""
    folds = list(KFold(n_folds, shuffle=True, random_state=0).split(X))
    res: dict = {m: {"tau": [], "time": [], "size": [], "warnings": 0} for m in methods}
    for f, (train, test) in enumerate(folds):
        rs = 1000 + f
        for m in methods:
            est = (DEFAULTS | EXTRA)[m][0](rs)
            t0 = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                est.fit(X[train], R[train])
                tau = est.score(X[test], R[test])
            res[m]["time"].append(time.perf_counter() - t0)
            res[m]["tau"].append(float(tau))
            res[m]["warnings"] += len(caught)
            if hasattr(est, "n_leaves_"):
                res[m]["size"].append(int(est.n_leaves_))
            elif hasattr(est, "n_neighbors_"):
                res[m]["size"].append(int(est.n_neighbors_))
            if verbose:
                print(f"fold {f} {m}: tau {tau:.4f} ({res[m]['time'][-1]:.1f} s)", flush=True)
    return res


def summarise(res: dict, n_train: int) -> dict:
    base = np.array(res["Consensus"]["tau"]) if "Consensus" in res else None
    out = {}
    for m, r in res.items():
        tau = np.array(r["tau"])
        row = {
            "tau_mean": float(tau.mean()),
            "tau_sd": float(tau.std(ddof=1)),
            "time_s": float(np.sum(r["time"])),
            "warnings": int(r["warnings"]),
            "size": float(np.mean(r["size"])) if r["size"] else None,
            "n_train": n_train,
        }
        if base is not None:
            d = tau - base
            row |= {
                "diff_mean": float(d.mean()),
                "diff_sd": float(d.std(ddof=1)),
                "folds_won": int((d > 0).sum()),
            }
        out[m] = row
    return out


def _fmt_size(m: str, size) -> str:
    if size is None:
        return ""
    return f"{size:.0f} leaves" if m.startswith("LRT") else f"k = {size:.1f}"


def report(runs: dict) -> str:
    lines = [
        "# Label ranking defaults on SUSHI set A with the respondents' demographics",
        "",
        "Generated by `experiments/studies/label_ranking_sushi_demographics.py` (issue #17, item 5).",
        "Data: SUSHI set A, 5,000 complete orders of 10 sushis; features: the 10 columns of",
        "`sushi3.udata` after the user ID, as coded in the file (gender, age class, seconds to",
        "fill in the form, prefecture / region / east-west codes, moved). The data are licensed",
        "and not in the repository: only aggregates are reported. 10-fold CV",
        "(`KFold(10, shuffle=True, random_state=0)`, 4,500 training rows per fold); tau = mean",
        "Kendall tau on the test part, mean ± sd over the 10 folds; 'vs consensus' = mean ± sd",
        "over the folds of the paired difference to `ConsensusLabelRanker()` on the same fold,",
        "and the number of folds where the method is better. Time: fit + score summed over the",
        "folds (wall clock, shared 2-core machine). Size: mean leaves of a tree, mean k of IBLR.",
        "",
    ]
    if len(runs) > 1:
        tags = list(runs)
        lines += [
            "## Summary: each default against the consensus baseline",
            "",
            "Kendall tau (mean ± sd over the 10 folds) and, in brackets, the mean paired "
            "difference to the consensus baseline with the number of folds where the default is "
            "better.",
            "",
            *md_table(("method", *tags)),
        ]
        for m in DEFAULTS:
            cells = []
            for tag in tags:
                row = runs[tag]["rows"].get(m)
                if row is None:
                    cells.append("–")
                elif m == "Consensus":
                    cells.append(f"{row['tau_mean']:.3f} ± {row['tau_sd']:.3f}")
                else:
                    cells.append(
                        f"{row['tau_mean']:.3f} ± {row['tau_sd']:.3f} "
                        f"({row['diff_mean']:+.3f}, {row['folds_won']}/10)"
                    )
            lines.append(md_row((m, *cells)))
        lines.append("")
    for tag, run in runs.items():
        lines += [f"## {tag}", "", run.get("note", ""), ""]
        lines += md_table(
            ["method", "setting", "tau (mean ± sd)", "vs consensus", "folds better", "size",
             "warnings", "time (s)"]
        )  # fmt: skip
        for m, row in run["rows"].items():
            vs = (
                f"{row['diff_mean']:+.3f} ± {row['diff_sd']:.3f}"
                if "diff_mean" in row and m != "Consensus"
                else ""
            )
            won = f"{row['folds_won']}/10" if "folds_won" in row and m != "Consensus" else ""
            desc = (DEFAULTS | EXTRA)[m][1] if m in DEFAULTS | EXTRA else m
            lines.append(
                f"| {m} | `{desc}` | {row['tau_mean']:.3f} ± {row['tau_sd']:.3f} | {vs} | "
                f"{won} | {_fmt_size(m, row['size'])} | {row['warnings']} | "
                f"{row['time_s']:.1f} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--data-home",
        default=str(data_home()),
    )
    ap.add_argument("--methods", nargs="*", default=None)
    ap.add_argument("--extra", action="store_true", help="also run the reference settings")
    ap.add_argument("--tag", default="after", help="name of this run in the report")
    ap.add_argument("--note", default="", help="one line printed under the run's heading")
    ap.add_argument(
        "--json", type=Path, default=PATHS.raw / "label_ranking_sushi_demographics.json"
    )
    ap.add_argument(
        "--out", type=Path, default=PATHS.results / "label_ranking_sushi_demographics.md"
    )
    ap.add_argument("--report", action="store_true", help="only rebuild the markdown")
    args = ap.parse_args()
    limit_threads(1)  # one BLAS thread: the machine is shared and the fits are small
    runs = json.loads(args.json.read_text()) if args.json.exists() else {}
    if not args.report:
        methods = args.methods or list(DEFAULTS) + (list(EXTRA) if args.extra else [])
        if "Consensus" not in methods:
            methods = ["Consensus", *methods]
        methods = [m for m in methods if _supported(m)]
        X, R = fetch_sushi("A", return_features=True, data_home=args.data_home)
        X = X.astype(np.float64)
        t0 = time.perf_counter()
        res = run(X, R, methods)
        rows = summarise(res, n_train=int(X.shape[0] * 0.9))
        old = runs.get(args.tag, {}).get("rows", {})
        runs[args.tag] = {
            "note": args.note,
            "rows": old | rows,
            "wall_s": time.perf_counter() - t0,
        }
        write_json(args.json, runs, newline=True)
    text = report(runs)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
