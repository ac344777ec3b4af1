"""Reproduce the benchmark tables (III-VI) and the sentiment constraint curves of Xiao, Liu & Hao
(2016), "A maximum margin approach for semisupervised ordinal regression clustering".

Protocol (paper §IV; the choices it leaves open: docs/decisions.md X8-X10):

* Chu's benchmark sets, 5 levels; features standardised; Gaussian kernel through a Nyström map
  (the same map for every kernel method); k = 5.
* Per realisation: round(0.1 n) ranking pairs for M2SORC; round(0.05 n) must-link plus
  round(0.05 n) cannot-link pairs for the pairwise-constrained baselines; a new seed per
  realisation.
* Hyper-parameters are chosen *without labels*: each grid point is fitted on 80 % of the
  method's own side information and scored on the held-out 20 % (fraction of held-out ranking
  pairs put in strictly the right order for M2SORC; fraction of held-out must-/cannot-links
  satisfied for the others); the winner is refitted on all pairs. The paper does not say how it
  selected parameters (decisions.md X10). The grids are the paper's (C, kernel width,
  M2SORC's balance l, SMMCPC's lambda), thinned for time (see ``--help``). ``--select once``
  (default) selects once per set on a separate draw of constraints (seed 999) and uses the
  winner for every realisation; ``--select each`` selects inside every realisation.
* Scores: MZE, MAE, AMAE after Hungarian matching of clusters to levels (the paper's protocol,
  all methods), plus M2SORC's natural order (cluster i = level i, no matching); NMI.
* Methods: M2SORC and all five baselines of the paper (WSVORC, SMMCPC, CPCMMC, CPMMC,
  MPCKMeans; re-implementations, see :mod:`rankclust.ordinal.baselines`) and k-means as an
  unconstrained floor.

Run ``python experiments/xiao2016/ordinal_clustering_xiao2016.py --help``; results are written
as markdown to ``experiments/xiao2016/results/ordinal_clustering_xiao2016.md`` (raw numbers as
JSON in ``results/raw/``). Data are read from ``$RANKCLUST_DATA``, else ``../shared/data`` beside
the repository (never copied into the repository).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import data_home, md_row, md_table, paths, write_json

from rankclust.ordinal import M2SORC, link_constraints_from_labels, ranking_pairs_from_labels
from rankclust.ordinal._data import fetch_amazon_sentiment, fetch_ordinal_regression
from rankclust.ordinal.baselines import CPCMMC, CPMMC, SMMCPC, WSVORC, MPCKMeans
from rankclust.ordinal.evaluation import ordinal_clustering_scores

PATHS = paths(__file__)
if "RANKCLUST_DATA" not in os.environ and data_home().is_dir():
    os.environ["RANKCLUST_DATA"] = str(data_home())

# Paper order of Table II; the binning that matches the paper's balanced/imbalanced remarks.
DATASETS = [
    ("AutoMPG", "auto", "equal_length"),
    ("Abalone", "abalone", "equal_length"),
    ("Bank", "bank", "equal_frequency"),
    ("Boston", "boston", "equal_length"),
    ("California", "california", "equal_frequency"),
    ("Census", "census", "equal_frequency"),
    ("Computer", "computer", "equal_frequency"),
    ("MachineCPU", "machinecpu", "equal_length"),
    ("Stock", "stock", "equal_length"),
    ("Triazines", "triazines", "equal_length"),
]
# The only table cells recoverable from the paper (decisions.md X9): the AutoMPG MAE row.
PAPER_MAE = {
    "AutoMPG": {
        "M2SORC": 0.544,
        "WSVORC": 0.699,
        "SMMCPC": 0.647,
        "CPCMMC": 0.668,
        "CPMMC": 0.706,
        "MPCKMeans": 0.712,
    }
}


def _pair_order_accuracy(labels, pairs):
    return float(np.mean(labels[pairs[:, 0]] > labels[pairs[:, 1]])) if len(pairs) else 0.0


def _link_accuracy(labels, ml, cl):
    ok = np.concatenate(
        [labels[ml[:, 0]] == labels[ml[:, 1]], labels[cl[:, 0]] != labels[cl[:, 1]]]
    )
    return float(ok.mean()) if ok.size else 0.0


def _split(pairs, rng, frac=0.2):
    idx = rng.permutation(len(pairs))
    cut = max(1, round(frac * len(pairs)))
    return pairs[idx[cut:]], pairs[idx[:cut]]


def _constraints(y, n, frac, rng):
    pairs = ranking_pairs_from_labels(y, round(frac * n), random_state=rng)
    ml, cl = link_constraints_from_labels(
        y, round(frac * n / 2), round(frac * n / 2), random_state=rng
    )
    return pairs, ml, cl


PAIRWISE = ("mpckmeans", "cpmmc", "cpcmmc", "smmcpc", "wsvorc")


def _grid(method, cfg):
    """The label-free search grid of each method (a reduced version of the paper's, §IV-B)."""
    cg = list(itertools.product(cfg["C"], cfg["gamma"]))
    if method.startswith("m2sorc"):
        return [dict(C=c, gamma=g, balance=b) for (c, g), b in itertools.product(cg, cfg["l"])]
    if method == "smmcpc":
        return [dict(C=c, gamma=g, lam=lam) for (c, g), lam in itertools.product(cg, cfg["lam"])]
    if method in ("cpmmc", "cpcmmc", "wsvorc"):
        return [dict(C=c, gamma=g) for c, g in cg]
    return [{}]


def _make(method, k, seed, cfg, p, n_init=None):
    """The estimator of ``method`` with hyper-parameters ``p``."""
    nc = cfg["n_components"]
    if method.startswith("m2sorc"):
        return M2SORC(
            k,
            kernel="rbf",
            n_components=nc,
            n_init=n_init or cfg["n_init"],
            C1=p["C"],
            C2=p["C"],
            gamma=p["gamma"],
            balance=p["balance"],
            init="random" if method == "m2sorc_random" else "pairs",
            random_state=seed,
        )
    if method == "mpckmeans":
        return MPCKMeans(k, random_state=seed)
    if method == "cpmmc":
        return CPMMC(k, C=p["C"], gamma=p["gamma"], n_components=nc, random_state=seed)
    if method == "cpcmmc":
        return CPCMMC(k, C=p["C"], C2=p["C"], gamma=p["gamma"], n_components=nc, random_state=seed)
    if method == "wsvorc":
        return WSVORC(k, C=p["C"], gamma=p["gamma"], n_components=nc, random_state=seed)
    if method == "smmcpc":
        return SMMCPC(
            k, C=p["C"], lam=p["lam"], gamma=p["gamma"], n_components=nc, random_state=seed
        )
    raise ValueError(method)


def _fit(method, est, X, pairs, ml, cl):
    if method.startswith("m2sorc"):
        return est.fit(X, pairs=pairs)
    if method in ("cpmmc", "wsvorc"):  # unsupervised
        return est.fit(X)
    return est.fit(X, must_link=ml, cannot_link=cl)


def select_params(method, X, y, k, seed, cfg):
    """Label-free selection: fit every grid point on 80 % of the method's own side information,
    score on the held-out 20 % (held-out ranking pairs put in strictly the right order for
    M2SORC; held-out must-/cannot-links satisfied for the others, also for the unsupervised
    CPMMC and WSVORC, which do not see the training links either). Returns (params, scores)."""
    if method == "kmeans":
        return {}, []
    rng = np.random.RandomState(seed)
    pairs, ml, cl = _constraints(y, X.shape[0], cfg["frac"], rng)
    p_tr, p_te = _split(pairs, rng)
    ml_tr, ml_te = _split(ml, rng)
    cl_tr, cl_te = _split(cl, rng)
    grid = _grid(method, cfg)
    if len(grid) == 1:
        return grid[0], []
    scores = []
    for p in grid:
        est = _fit(method, _make(method, k, seed, cfg, p, n_init=1), X, p_tr, ml_tr, cl_tr)
        if method.startswith("m2sorc"):
            scores.append(_pair_order_accuracy(est.labels_, p_te))
        else:
            scores.append(_link_accuracy(est.labels_, ml_te, cl_te))
    return grid[int(np.argmax(scores))], scores


def run_realisation(method, X, y, k, seed, cfg, params=None):
    """Fit one method on one realisation; returns (labels, params, seconds, cpu seconds, info).

    With ``params=None`` the hyper-parameters are selected on this realisation's own side
    information (``--select each``); otherwise ``params`` (selected once per set) are used.
    """
    t0, c0 = time.perf_counter(), time.process_time()
    if params is None:
        params, _ = select_params(method, X, y, k, seed, cfg)
    rng = np.random.RandomState(seed)
    pairs, ml, cl = _constraints(y, X.shape[0], cfg["frac"], rng)
    info = {}
    if method == "kmeans":
        labels = KMeans(k, n_init=10, random_state=seed).fit(X).labels_
    else:
        est = _fit(method, _make(method, k, seed, cfg, params), X, pairs, ml, cl)
        labels = est.labels_
        if hasattr(est, "n_iter_"):
            info["n_iter"] = int(est.n_iter_)
        if hasattr(est, "n_iter_per_init_"):
            info["n_iter_all"] = est.n_iter_per_init_.tolist()
    return labels, params, time.perf_counter() - t0, time.process_time() - c0, info


def load(name, version, max_n, seed=0):
    X, y = fetch_ordinal_regression(name, version)
    n_full = X.shape[0]
    if max_n and n_full > max_n:
        idx = np.random.RandomState(seed).choice(n_full, max_n, replace=False)
        X, y = X[idx], y[idx]
    return StandardScaler().fit_transform(X), y, n_full


def benchmark(args):
    cfg = dict(
        frac=0.1,
        n_components=args.n_components,
        n_init=args.n_init,
        C=[2.0**p for p in args.C_pow],
        gamma=args.gamma,
        l=args.balance,
        lam=args.lam,
    )
    results = {}
    if args.resume and Path(args.json).exists():
        results = json.loads(Path(args.json).read_text())["results"]
    borrowed = {}  # hyper-parameters selected in earlier runs (--selection-from)
    for path in args.selection_from or []:
        for lab, res in json.loads(Path(path).read_text())["results"].items():
            for m, sel in res.get("selection", {}).items():
                borrowed.setdefault(lab, {}).setdefault(m, {**sel, "from": str(path)})
    for base_label, name, version in DATASETS:
        if args.sets and name not in args.sets:
            continue
        label = base_label + args.label_suffix
        X, y, n_full = load(name, version, args.max_n)
        k = int(y.max() + 1)
        res = results.setdefault(label, {"methods": {}})
        res.update(
            n=int(X.shape[0]),
            n_full=n_full,
            d=int(X.shape[1]),
            counts=np.bincount(y, minlength=k).tolist(),
        )
        res.setdefault("selection", {})
        for m, sel in borrowed.get(base_label, {}).items():
            res["selection"].setdefault(m, sel)
        for method in args.methods:
            runs = res["methods"].get(method, [])
            if len(runs) >= args.realisations:
                continue
            params = None
            if args.select == "once" and method in res["selection"]:
                params = res["selection"][method]["params"]
            elif args.select == "once":
                c0 = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    params, sc = select_params(method, X, y, k, 999, cfg)
                res["selection"][method] = {
                    "params": params,
                    "best_score": max(sc) if sc else None,
                    "cpu_seconds": time.process_time() - c0,
                }
                print(f"{label:11s} {method:10s} selected {params}", flush=True)
            for r in range(len(runs), args.realisations):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    labels, chosen, secs, cpu, info = run_realisation(
                        method, X, y, k, 1000 + r, cfg, params
                    )
                scores = {"hungarian": ordinal_clustering_scores(y, labels, "hungarian")}
                if method.startswith("m2sorc") or method == "wsvorc":
                    scores["order"] = ordinal_clustering_scores(y, labels, "order")
                runs.append(
                    {
                        "scores": scores,
                        "params": chosen,
                        "seconds": secs,
                        "cpu_seconds": cpu,
                        "sizes": np.bincount(labels, minlength=k).tolist(),
                        **info,
                    }
                )
                print(
                    f"{label:11s} {method:10s} r={r:2d} MAE={scores['hungarian']['mae']:.3f}"
                    f" {chosen} {secs:.1f}s ({cpu:.1f}s cpu)",
                    flush=True,
                )
            res["methods"][method] = runs
            write_json(Path(args.json), {"config": vars(args), "results": results})
    return results


def balance_ablation(args):
    """M2SORC at fixed (C, gamma) for balance l inside and far outside the paper's grid.

    Diagnostic for the imbalanced sets (not a tuned method): l in {0, 10} is the paper's range,
    l = 0.1 n and n relax the constraint (its tolerance acts per sample as ~ l / n), 1e9 removes
    it. Returns {set: {l label: summary}}.
    """
    out = {}
    for label, name, version in DATASETS:
        if args.sets and name not in args.sets:
            continue
        X, y, _ = load(name, version, args.max_n)
        n, k = X.shape[0], int(y.max() + 1)
        out[label] = {"counts": np.bincount(y, minlength=k).tolist(), "rows": {}}
        for tag, l in (
            ("0", 0.0),
            ("10", 10.0),
            ("0.1 n", 0.1 * n),
            ("n", float(n)),
            ("off", 1e9),
        ):
            rows = []
            for r in range(args.ablation_realisations):
                rng = np.random.RandomState(1000 + r)
                pairs, _, _ = _constraints(y, n, 0.1, rng)
                est = M2SORC(
                    k,
                    C1=1.0,
                    C2=1.0,
                    gamma=args.ablation_gamma,
                    balance=l,
                    n_components=args.n_components,
                    n_init=args.n_init,
                    random_state=1000 + r,
                )
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    lab = est.fit(X, pairs=pairs).labels_
                sizes = np.bincount(lab, minlength=k)
                rows.append(
                    [
                        ordinal_clustering_scores(y, lab, "hungarian")["mae"],
                        ordinal_clustering_scores(y, lab, "order")["mae"],
                        ordinal_clustering_scores(y, lab, "hungarian")["nmi"],
                        float((sizes == 0).sum()),
                        sizes.max() / n,
                    ]
                )
            out[label]["rows"][tag] = np.mean(rows, axis=0).tolist()
            print(f"ablation {label} l={tag}: {out[label]['rows'][tag]}", flush=True)
    return out


def ablation_markdown(out, args):
    lines = [
        "## Ablation: M2SORC's balance parameter l on the equal-length sets",
        "",
        f"Command: `{' '.join(['python', *sys.argv])}`. M2SORC with C1 = C2 = 1, gamma = "
        f"{args.ablation_gamma}, {args.n_init} starts, {args.ablation_realisations} realisations "
        "(seeds as in the main table), no parameter selection. l = 0 and 10 span the paper's "
        "grid; 0.1 n, n and 'off' (1e9) are outside it.",
        "",
        "| data set (true level counts) | l | MAE (Hungarian) | MAE (order) | NMI | empty "
        "clusters | largest cluster share |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, res in out.items():
        for tag, (mh, mo, nmi, empty, top) in res["rows"].items():
            lines.append(
                f"| {label} {res['counts']} | {tag} | {mh:.3f} | {mo:.3f} | {nmi:.3f} | "
                f"{empty:.1f} | {top:.2f} |"
            )
    return "\n".join(lines) + "\n"


def amazon_curve(args):
    """k = 2 constraint-count curve on the 400-feature Amazon polarity data (linear kernel)."""
    out = {}
    for domain in args.amazon:
        X, y = fetch_amazon_sentiment(domain)
        # the paper: TF-IDF then PCA to 300 dimensions; here PCA of the standardised 400
        # term-proportion features to --amazon-pca dimensions (50 by default, for time)
        X = PCA(args.amazon_pca, random_state=0).fit_transform(StandardScaler().fit_transform(X))
        out[domain] = {}
        for n_c in args.amazon_counts:
            cfg = dict(frac=n_c / X.shape[0], n_components=0, n_init=args.n_init, balance=1.0)
            row = {}
            for method in args.amazon_methods:
                mzes = []
                for r in range(args.realisations):
                    rng = np.random.RandomState(2000 + r)
                    pairs = ranking_pairs_from_labels(y, n_c, random_state=rng)
                    ml, cl = link_constraints_from_labels(
                        y, n_c // 2, n_c - n_c // 2, random_state=rng
                    )
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        if method == "m2sorc":
                            est = M2SORC(
                                2,
                                kernel="linear",
                                C1=1.0,
                                C2=1.0,
                                n_init=cfg["n_init"],
                                random_state=r,
                            ).fit(X, pairs=pairs)
                            s = ordinal_clustering_scores(y, est.labels_, "order")
                        elif method == "mpckmeans":
                            est = MPCKMeans(2, random_state=r).fit(X, must_link=ml, cannot_link=cl)
                            s = ordinal_clustering_scores(y, est.labels_, "hungarian")
                        elif method == "kmeans":
                            lab = KMeans(2, n_init=10, random_state=r).fit(X).labels_
                            s = ordinal_clustering_scores(y, lab, "hungarian")
                    mzes.append(s["mze"])  # the paper's Figs. 4-7 plot MZE
                row[method] = (float(np.mean(mzes)), float(np.std(mzes)))
                print(f"amazon {domain} n_c={n_c} {method} MZE={row[method][0]:.3f}", flush=True)
            out[domain][n_c] = row
    return out


def _fmt(vals):
    return f"{np.mean(vals):.3f} ± {np.std(vals):.3f}"


SHOWN = {
    "m2sorc": "M2SORC",
    "m2sorc_random": "M2SORC (Gaussian start)",
    "wsvorc": "WSVORC",
    "smmcpc": "SMMCPC",
    "cpcmmc": "CPCMMC",
    "cpmmc": "CPMMC",
    "mpckmeans": "MPCKMeans",
    "kmeans": "k-means",
}


def _base_label(label):
    """The paper's set name a result label starts with (labels may carry a suffix)."""
    return max((d[0] for d in DATASETS if label.startswith(d[0])), key=len, default=label)


def _mean(runs, mp, metric):
    return float(np.mean([r["scores"][mp][metric] for r in runs]))


def write_markdown(results, args, amazon=None):
    g = vars(args)
    lines = [
        "# Xiao, Liu & Hao (2016): M2SORC on Chu's benchmark sets — reproduction",
        "",
        f"Command: `{' '.join(['python', *sys.argv])}`",
        "",
        "Protocol: see the script docstring. "
        f"Realisations per set: {args.realisations}; constraints 10 % of n; "
        f"Gaussian kernel via Nyström ({args.n_components} components); "
        f"label-free selection ({g.get('select', 'each')}) over C = C1 = C2 in 2^{args.C_pow}, "
        f"gamma in {args.gamma}, M2SORC balance l in {g.get('balance', [1.0])}, "
        f"SMMCPC lambda in {g.get('lam', '-')}; "
        f"M2SORC starts per fit: {args.n_init}; "
        f"sets larger than {args.max_n} rows are a random subsample of {args.max_n} rows "
        "(fixed per set). Mean ± sd over realisations.",
        "",
        "Columns: the paper's Hungarian matching of clusters to levels for every method; "
        "`M2SORC (order)` = no matching, cluster i = level i (M2SORC's learned order). "
        "**Bold** = lowest (MZE/MAE/AMAE) or highest (NMI) among the Hungarian columns.",
        "",
    ]
    if getattr(args, "notes", None):
        lines += [Path(args.notes).read_text().rstrip(), ""]
    methods = [m for m in SHOWN if any(m in res["methods"] for res in results.values())]
    for metric in ("mze", "mae", "amae", "nmi"):
        cols = [(m, "hungarian") for m in methods]
        if metric != "nmi":
            cols += [(m, "order") for m in methods if m.startswith("m2sorc")]
        lines += [f"## {metric.upper()}", ""]
        head = ["data set (n used / n; realisations)"] + [
            SHOWN[m] + (" (order)" if mp == "order" else "") for m, mp in cols
        ]
        if metric == "mae":
            head.append("paper (AutoMPG only)")
        lines += md_table(head)
        # runs of a set under a label suffix (e.g. full size) are counted separately
        wins = {}
        for label, res in results.items():
            suffix = label[len(_base_label(label)) :]
            tally = wins.setdefault(suffix, dict.fromkeys(methods, 0))
            means = {
                m: _mean(res["methods"][m], "hungarian", metric)
                for m in methods
                if res["methods"].get(m)
            }
            pick = max if metric == "nmi" else min
            best = pick(means.values()) if means else None
            for m, v in means.items():
                if v == best:
                    tally[m] += 1
            reps = sorted({len(res["methods"][m]) for m in means})
            row = [f"{label} ({res['n']}/{res['n_full']}; R={'-'.join(map(str, reps))})"]
            for m, mp in cols:
                runs = res["methods"].get(m)
                if not runs:
                    row.append("–")
                    continue
                cell = _fmt([r["scores"][mp][metric] for r in runs])
                row.append(f"**{cell}**" if mp == "hungarian" and means[m] == best else cell)
            if metric == "mae":
                pm = PAPER_MAE.get(label)
                row.append(
                    ", ".join(f"{k} {v}" for k, v in pm.items()) if pm else "lost in the source"
                )
            lines.append(md_row(row))
        lines.append("")
        for suffix, tally in wins.items():
            which = f" (rows labelled '{suffix.strip()}')" if suffix else ""
            lines.append(
                f"Best {metric.upper()} (Hungarian) on how many sets{which}: "
                + ", ".join(f"{SHOWN[m]} {w}" for m, w in tally.items())
                + "."
            )
            lines.append("")
    lines += [
        "## Selected hyper-parameters (label-free, on the held-out side information)",
        "",
        *md_table(("data set", *(SHOWN[m] for m in methods))),
    ]
    for label, res in results.items():
        row = [label]
        for m in methods:
            sel = res.get("selection", {}).get(m)
            if sel is None and res["methods"].get(m):
                sel = {"params": res["methods"][m][0]["params"]}
            row.append(
                ", ".join(f"{k}={v:g}" for k, v in sel["params"].items()) or "–" if sel else "–"
            )
        lines.append(md_row(row))
    lines += [
        "",
        "## Time, CCCP iterations and cluster sizes (M2SORC)",
        "",
        "| data set | wall s per realisation (refit) | CPU s per realisation | CCCP iterations "
        "(kept start, mean [min-max]) | cluster sizes (realisation 0) | true level counts |",
        "|---|---|---|---|---|---|",
    ]
    for label, res in results.items():
        runs = res["methods"].get("m2sorc")
        if runs:
            it = [r["n_iter"] for r in runs]
            cpu = [r.get("cpu_seconds", np.nan) for r in runs]
            lines.append(
                f"| {label} | {np.mean([r['seconds'] for r in runs]):.1f} | {np.mean(cpu):.1f} | "
                f"{np.mean(it):.2f} [{min(it)}-{max(it)}] | {runs[0]['sizes']} | "
                f"{res['counts']} |"
            )
    lines += [
        "",
        "CPU seconds per realisation, every method (refit only when selection is `once`):",
        "",
        *md_table(("data set", *(SHOWN[m] for m in methods))),
    ]
    for label, res in results.items():
        row = [label]
        for m in methods:
            runs = res["methods"].get(m)
            row.append(
                f"{np.mean([r.get('cpu_seconds', np.nan) for r in runs]):.2f}" if runs else "–"
            )
        lines.append(md_row(row))
    if amazon:
        lines += ["", "## Amazon polarity (k = 2): MZE against the number of constraints", ""]
        for domain, rows in amazon.items():
            ms = list(next(iter(rows.values())))
            lines += [
                f"### {domain}",
                "",
                "| constraints | " + " | ".join(ms) + " |",
                "|" + "---|" * (len(ms) + 1),
            ]
            for n_c, row in rows.items():
                lines.append(
                    f"| {n_c} | "
                    + " | ".join(f"{row[m][0]:.3f} ± {row[m][1]:.3f}" for m in ms)
                    + " |"
                )
            lines.append("")
    Path(args.out).write_text("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 realisations, small grid")
    ap.add_argument("--sets", nargs="*", default=None)
    ap.add_argument(
        "--methods",
        nargs="*",
        default=["m2sorc", "wsvorc", "smmcpc", "cpcmmc", "cpmmc", "mpckmeans", "kmeans"],
    )
    ap.add_argument("--realisations", type=int, default=20)
    ap.add_argument("--max-n", type=int, default=1000)
    ap.add_argument("--n-components", type=int, default=100)
    ap.add_argument("--n-init", type=int, default=3)
    ap.add_argument("--C-pow", type=int, nargs="*", default=[-3, 0, 3])
    ap.add_argument("--gamma", type=float, nargs="*", default=[0.01, 0.1, 1.0])
    ap.add_argument(
        "--balance",
        type=float,
        nargs="*",
        default=[0.0, 0.1, 1.0, 10.0],
        help="M2SORC balance grid l (the paper: [0, 0.001, 0.01, 0.1, 1:1:5, 10])",
    )
    ap.add_argument("--lam", type=float, nargs="*", default=[0.01, 0.1, 1.0, 10.0])
    ap.add_argument(
        "--select",
        choices=["once", "each"],
        default="once",
        help="select hyper-parameters once per set (on separate constraints) or per realisation",
    )
    ap.add_argument("--resume", action="store_true", help="keep finished (set, method) results")
    ap.add_argument(
        "--selection-from",
        nargs="*",
        default=None,
        help="reuse the hyper-parameters selected (once per set) in these result JSON files",
    )
    ap.add_argument(
        "--label-suffix",
        default="",
        help="appended to the set names in the results (e.g. ' (full)' for full-size runs)",
    )
    ap.add_argument("--amazon", nargs="*", default=[])
    ap.add_argument("--amazon-counts", type=int, nargs="*", default=[50, 150, 450, 1000, 2000])
    ap.add_argument("--amazon-pca", type=int, default=50)
    ap.add_argument("--amazon-methods", nargs="*", default=["m2sorc", "mpckmeans", "kmeans"])
    ap.add_argument("--out", default=str(PATHS.results / "ordinal_clustering_xiao2016.md"))
    ap.add_argument("--json", default=str(PATHS.raw / "ordinal_clustering_xiao2016.json"))
    ap.add_argument(
        "--render",
        nargs="*",
        default=None,
        help="only write the markdown from these JSON result files (merged)",
    )
    ap.add_argument("--append", default=None, help="markdown file appended to the output")
    ap.add_argument("--notes", default=None, help="markdown inserted after the protocol")
    ap.add_argument(
        "--balance-ablation",
        default=None,
        help="only run the balance-l ablation on --sets and write its markdown to this file",
    )
    ap.add_argument("--ablation-realisations", type=int, default=5)
    ap.add_argument("--ablation-gamma", type=float, default=0.1)
    args = ap.parse_args(argv)
    if args.render:
        results, config = {}, None
        for path in args.render:
            blob = json.loads(Path(path).read_text())
            config = config or blob["config"]
            for label, res in blob["results"].items():
                if label in results:  # merge the methods of several runs on one set
                    for m, runs in res["methods"].items():
                        results[label]["methods"].setdefault(m, runs)
                    sel = results[label].setdefault("selection", {})
                    for m, v in res.get("selection", {}).items():
                        sel.setdefault(m, v)
                else:
                    results[label] = res
        order = [d[0] for d in DATASETS]

        def rank(label):  # paper order; runs of one set with a label suffix follow its base
            base = _base_label(label)
            return (order.index(base) if base in order else len(order), label != base, label)

        results = {k: results[k] for k in sorted(results, key=rank)}
        shown = argparse.Namespace(**{**config, "out": args.out, "notes": args.notes})
        argv = config.get("argv") or [
            *(["--quick"] if config.get("quick") else []),
            *(["--sets", *config["sets"]] if config.get("sets") else []),
            "--methods",
            *config["methods"],
        ]
        sys.argv = ["experiments/ordinal_clustering_xiao2016.py", *argv]
        write_markdown(results, shown)
        if args.append:
            with open(args.out, "a") as fh:
                fh.write("\n" + Path(args.append).read_text())
        return
    args.argv = sys.argv[1:]
    if args.balance_ablation:
        out = balance_ablation(args)
        Path(args.balance_ablation).write_text(ablation_markdown(out, args))
        return
    if args.quick:
        args.realisations = min(args.realisations, 3)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    results = benchmark(args) if args.sets != [] else {}
    amazon = amazon_curve(args) if args.amazon else None
    write_markdown(results, args, amazon)


if __name__ == "__main__":
    main()
