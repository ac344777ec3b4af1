"""Plackett-Luce trees on SUSHI set A with the respondents' demographics.

Issue #25 (deliverable 3). Data: Kamishima's SUSHI set A (5,000 complete orders of 10 sushis)
with the respondents' demographics from ``sushi3.udata`` (read by
:func:`rankclust.datasets.fetch_sushi`): gender, age class (an ordered number 0-5), the region
and the east/west half of Japan where the respondent lived longest until 15 and where they live
now, and whether they moved. The prefectures (48 codes, refined by the regions) and the time
taken to fill in the form are left out. The data may not be redistributed: the script reads
them from the data home (``--data-home``, default ``$RANKCLUST_DATA`` or ``../shared/data``
beside the repository) and stores **aggregates only** (the fitted tree's splits, sizes,
p-values and leaf worths; means and standard deviations over folds).

1. The tree on all 5,000 respondents with ``PlackettLuceTree()`` defaults (alpha = 0.05,
   leaves of at least 90 respondents): its splits, leaf sizes and worths, and a figure of the
   leaves' log-worths with 95% Wald intervals (``docs/figures/pl_tree_sushi_a.png``).
2. 10-fold cross-validation by respondent (``KFold(10, shuffle=True, random_state=0)``): the
   held-out log-likelihood per respondent of the tree against one Plackett-Luce model for
   everyone, and the Kendall tau between each held-out respondent's ranking and the ranking
   predicted from their covariates alone (the leaf's worth order; the one model's order for
   the baseline). ``PlackettLuceTree(alpha=0.01)`` and ``max_depth=2`` are reference settings.

Usage::

    nice python experiments/studies/pl_tree_sushi.py            # fit, cross-validate, report
    python experiments/studies/pl_tree_sushi.py --report        # only re-render the markdown
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import KFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import REPO, data_home, limit_threads, md_table, paths, platform_line, write_json

PATHS = paths(__file__)
JSON = PATHS.raw / "pl_tree_sushi.json"
REPORT = PATHS.results / "pl_tree_sushi.md"
FIGURE = REPO / "docs" / "figures" / "pl_tree_sushi_a.png"

# labels of the codes, from the data set's README-en.txt
GENDER = {0: "male", 1: "female"}
REGIONS = {
    0: "Hokkaido", 1: "Tohoku", 2: "Hokuriku", 3: "Kanto+Shizuoka", 4: "Nagano+Yamanashi",
    5: "Chukyo", 6: "Kinki", 7: "Chugoku", 8: "Shikoku", 9: "Kyushu", 10: "Okinawa",
    11: "abroad",
}  # fmt: skip
HALF = {0: "east", 1: "west"}
MOVED = {0: "no", 1: "yes"}
AGE_CLASSES = "0: 15-19, 1: 20-29, 2: 30-39, 3: 40-49, 4: 50-59, 5: 60+"

SETTINGS = {
    "tree": ("PlackettLuceTree()", {}),
    "tree alpha=0.01": ("PlackettLuceTree(alpha=0.01)", {"alpha": 0.01}),
    "tree depth 2": ("PlackettLuceTree(max_depth=2)", {"max_depth": 2}),
}


def covariates(X: np.ndarray):
    """The demographics as a DataFrame (labelled categories; age class as a number)."""
    import pandas as pd

    def lab(col, names):
        return pd.Series([names[int(v)] for v in X[:, col]], dtype="category")

    return pd.DataFrame(
        {
            "gender": lab(0, GENDER),
            "age": X[:, 1].astype(np.float64),
            "region_until_15": lab(4, REGIONS),
            "east_west_until_15": lab(5, HALF),
            "region_now": lab(7, REGIONS),
            "east_west_now": lab(8, HALF),
            "moved": lab(9, MOVED),
        }
    )


def describe_tree(tree) -> dict:
    """The fitted tree as plain numbers and strings (aggregates only)."""
    items = list(tree.items_)
    nodes = []
    for t in range(tree.node_count_):
        p = tree.node_p_values_[t]
        node = {
            "id": t,
            "depth": int(tree.node_depth_[t]),
            "n": float(tree.node_weight_[t]),
            "rules": tree.node_rules(t, combine=True),
            "p_values": {
                tree.feature_names_[j]: float(p[j]) for j in range(p.size) if not np.isnan(p[j])
            },
            "leaf": bool(tree.children_left_[t] < 0),
        }
        if node["leaf"]:
            node["worths"] = dict(zip(items, tree.node_models_[t].worths_.round(4).tolist(),
                                      strict=True))  # fmt: skip
        nodes.append(node)
    return {"text": tree.export_text(), "nodes": nodes}


def cross_validate(X, R, n_folds: int = 10) -> dict:
    from rankclust import Rankings
    from rankclust.metrics import kendall_tau_rows
    from rankclust.models import PlackettLuce, PlackettLuceTree

    folds = list(KFold(n_folds, shuffle=True, random_state=0).split(np.arange(R.n_rankings)))
    res = {name: {"loglik": [], "tau": [], "leaves": [], "time": []} for name in SETTINGS}
    res["one PL"] = {"loglik": [], "tau": [], "leaves": [], "time": []}
    for f, (train, test) in enumerate(folds):
        Xtr, Xte = X.iloc[train], X.iloc[test]
        t0 = time.perf_counter()
        pl = PlackettLuce().fit(R[train])
        res["one PL"]["time"].append(time.perf_counter() - t0)
        res["one PL"]["loglik"].append(float(pl.logpdf(R[test]).mean()))
        pred = np.broadcast_to(pl.ranking_, (test.size, R.n_items))
        tau = kendall_tau_rows(R[test], Rankings(np.array(pred)))
        res["one PL"]["tau"].append(float(tau.mean()))
        res["one PL"]["leaves"].append(1)
        for name, (_, params) in SETTINGS.items():
            t0 = time.perf_counter()
            tree = PlackettLuceTree(**params).fit(R[train], Xtr)
            res[name]["time"].append(time.perf_counter() - t0)
            res[name]["loglik"].append(float(tree.logpdf(R[test], Xte).mean()))
            tau = kendall_tau_rows(R[test], Rankings(tree.predict(Xte)))
            res[name]["tau"].append(float(tau.mean()))
            res[name]["leaves"].append(int(tree.n_leaves_))
        print(f"fold {f}: " + ", ".join(f"{k} {v['loglik'][-1]:.4f}" for k, v in res.items()),
              flush=True)  # fmt: skip
    return res


def summarise(res: dict) -> dict:
    base_ll = np.array(res["one PL"]["loglik"])
    base_tau = np.array(res["one PL"]["tau"])
    out = {}
    for name, r in res.items():
        ll, tau = np.array(r["loglik"]), np.array(r["tau"])
        out[name] = {
            "loglik_mean": float(ll.mean()),
            "loglik_sd": float(ll.std(ddof=1)),
            "tau_mean": float(tau.mean()),
            "tau_sd": float(tau.std(ddof=1)),
            "dll_mean": float((ll - base_ll).mean()),
            "dll_sd": float((ll - base_ll).std(ddof=1)),
            "dll_won": int(((ll - base_ll) > 0).sum()),
            "dtau_mean": float((tau - base_tau).mean()),
            "dtau_won": int(((tau - base_tau) > 0).sum()),
            "leaves_mean": float(np.mean(r["leaves"])),
            "leaves_min": int(np.min(r["leaves"])),
            "leaves_max": int(np.max(r["leaves"])),
            "time_s": float(np.sum(r["time"])),
        }
    return out


def report(run: dict) -> list[str]:
    full = run["full"]
    leaves = [nd for nd in full["nodes"] if nd["leaf"]]
    items = list(leaves[0]["worths"])
    lines = [
        "# Plackett-Luce trees on SUSHI set A with the respondents' demographics",
        "",
        "Generated by `experiments/studies/pl_tree_sushi.py` (issue #25, deliverable 3).",
        "Data: SUSHI set A, 5,000 complete orders of 10 sushis; covariates from `sushi3.udata`:",
        f"gender, age class (a number; {AGE_CLASSES}), region and east/west half where the",
        "respondent lived longest until 15 and where they live now, moved (yes/no). The data are",
        "licensed and not in the repository: only aggregates are reported.",
        f"Platform: {run['platform']}; wall time of the run {run['wall_s']:.0f} s.",
        "",
        "## The tree on all respondents",
        "",
        f"`PlackettLuceTree()` (alpha = 0.05, Bonferroni over the 7 covariates, leaves of at "
        f"least 90 respondents): {len(leaves)} leaves, {len(full['nodes'])} nodes, "
        f"fitted in {run['full_time_s']:.1f} s. "
        "Figure: `docs/figures/pl_tree_sushi_a.png` (each leaf's log-worths with 95% Wald "
        "intervals).",
        "",
        "```text",
        *full["text"].split("\n"),
        "```",
        "",
        "Leaf worths (sum 1 per leaf; the path of splits, the number of respondents):",
        "",
        *md_table(["leaf", "path", "n", *items]),
    ]
    for nd in leaves:
        lines.append(
            f"| {nd['id']} | {'; '.join(nd['rules'])} | {nd['n']:.0f} | "
            + " | ".join(f"{nd['worths'][i]:.3f}" for i in items)
            + " |"
        )
    root = full["nodes"][0]["p_values"]
    lines += [
        "",
        "Root tests (Bonferroni-adjusted p-values): "
        + ", ".join(f"{k} {v:.2g}" for k, v in sorted(root.items(), key=lambda kv: kv[1]))
        + ".",
        "",
        "## 10-fold cross-validation by respondent",
        "",
        "`KFold(10, shuffle=True, random_state=0)`, 4,500 training respondents per fold. "
        "Held-out log-likelihood: mean log-probability of a held-out respondent's ranking "
        "(under their leaf's model for a tree); tau: mean Kendall tau between a held-out "
        "ranking and the ranking predicted from the covariates alone. Mean ± sd over the "
        "folds; 'vs one PL' is the mean paired difference to one Plackett-Luce model fitted "
        "to everyone, with the number of folds where the tree is better.",
        "",
        *md_table(
            [
                "model",
                "setting",
                "held-out log-lik",
                "vs one PL",
                "tau",
                "vs one PL",
                "leaves (min-max)",
                "time (s)",
            ]
        ),
    ]
    cv = run["cv"]
    for name in ("one PL", *SETTINGS):
        row = cv[name]
        desc = "PlackettLuce()" if name == "one PL" else SETTINGS[name][0]
        vs_ll = "" if name == "one PL" else f"{row['dll_mean']:+.4f} ({row['dll_won']}/10)"
        vs_tau = "" if name == "one PL" else f"{row['dtau_mean']:+.4f} ({row['dtau_won']}/10)"
        lines.append(
            f"| {name} | `{desc}` | {row['loglik_mean']:.4f} ± {row['loglik_sd']:.4f} | "
            f"{vs_ll} | {row['tau_mean']:.4f} ± {row['tau_sd']:.4f} | {vs_tau} | "
            f"{row['leaves_mean']:.1f} ({row['leaves_min']}-{row['leaves_max']}) | "
            f"{row['time_s']:.1f} |"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-home", default=str(data_home()))
    ap.add_argument("--report", action="store_true", help="only rebuild the markdown")
    args = ap.parse_args()
    if not args.report:
        limit_threads(1)
        import matplotlib

        matplotlib.use("Agg")
        from rankclust.datasets import fetch_sushi
        from rankclust.models import PlackettLuceTree
        from rankclust.plotting import plot_plackett_luce_tree

        t_run = time.perf_counter()
        Xraw, R = fetch_sushi("A", return_features=True, data_home=args.data_home)
        X = covariates(Xraw)
        t0 = time.perf_counter()
        tree = PlackettLuceTree().fit(R, X)
        full_time = time.perf_counter() - t0
        fig = plot_plackett_luce_tree(tree)
        FIGURE.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(FIGURE, dpi=72)
        print(tree.export_text(), flush=True)
        cv = summarise(cross_validate(X, R))
        run = {
            "full": describe_tree(tree),
            "full_time_s": full_time,
            "cv": cv,
            "platform": platform_line(),
            "wall_s": time.perf_counter() - t_run,
        }
        write_json(JSON, run, newline=True)
    run = json.loads(JSON.read_text())
    REPORT.write_text("\n".join(report(run)) + "\n")
    print(REPORT.read_text())


if __name__ == "__main__":
    main()
