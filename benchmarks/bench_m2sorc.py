"""M2SORC fit time against n, and CCCP iterations per fit (Xiao, Liu & Hao 2016).

Rows 500 .. 8192 of Chu's Bank (bank-32nh) and Computer (cpu_act) sets, equal-frequency
5 levels, standardised features, RBF kernel through a 100-component Nyström map, 10 % n ranking
pairs, one CCCP start (``n_init=1``), C1 = C2 = 1, l = 1. The peer measured in the same process
on the same rows is scikit-learn's ``KMeans(n_clusters=5, n_init=10)`` (the unconstrained floor of
the experiments); the table gives the time ratio. Wall and process CPU times are both reported
(the machine is shared). Usage::

    python benchmarks/bench_m2sorc.py [--sizes 500 1000 ...] [--solver ipm|qdldl|faer]
        [--out benchmarks/RESULTS_ordinal.md]

The data are read from ``$RANKCLUST_DATA`` (never copied into the repository).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.preprocessing import StandardScaler

from rankclust.ordinal import M2SORC, ranking_pairs_from_labels
from rankclust.ordinal._data import fetch_ordinal_regression
from rankclust.ordinal.evaluation import ordinal_clustering_scores

HERE = Path(__file__).resolve().parent
if "RANKCLUST_DATA" not in os.environ and (HERE.parent.parent / "shared" / "data").is_dir():
    os.environ["RANKCLUST_DATA"] = str(HERE.parent.parent / "shared" / "data")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", nargs="*", default=["bank", "computer"])
    ap.add_argument("--sizes", type=int, nargs="*", default=[500, 1000, 2000, 4096, 8192])
    ap.add_argument("--linearization", default="paper")
    ap.add_argument("--n-components", type=int, default=100)
    ap.add_argument("--solver", default="ipm", help="M2SORC's QP solver (ipm, qdldl, faer)")
    ap.add_argument("--out", default=str(HERE / "RESULTS_ordinal.md"))
    args = ap.parse_args(argv)
    rows = []
    for name in args.sets:
        X_all, y_all = fetch_ordinal_regression(name, "equal_frequency")
        perm = np.random.RandomState(0).permutation(len(y_all))
        for n in args.sizes:
            idx = perm[:n]
            X, y = StandardScaler().fit_transform(X_all[idx]), y_all[idx]
            pairs = ranking_pairs_from_labels(y, round(0.1 * n), random_state=0)
            est = M2SORC(
                5,
                kernel="rbf",
                gamma=0.1,
                n_components=args.n_components,
                linearization=args.linearization,
                n_init=1,
                solver=args.solver,
                random_state=0,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0, c0 = time.perf_counter(), time.process_time()
                est.fit(X, pairs=pairs)
                t_m, c_m = time.perf_counter() - t0, time.process_time() - c0
            t0, c0 = time.perf_counter(), time.process_time()
            km = KMeans(5, n_init=10, random_state=0).fit(X)
            t_k, c_k = time.perf_counter() - t0, time.process_time() - c0
            s = ordinal_clustering_scores(y, est.labels_, "order")
            sk = ordinal_clustering_scores(y, km.labels_, "hungarian")
            rows.append(
                (
                    name,
                    n,
                    len(pairs),
                    t_m,
                    c_m,
                    est.n_iter_,
                    c_m / max(est.n_iter_, 1),
                    t_k,
                    c_k,
                    c_m / c_k,
                    s["mae"],
                    sk["mae"],
                )
            )
            print(*[f"{v:.3f}" if isinstance(v, float) else v for v in rows[-1]], flush=True)
    lines = [
        "## M2SORC: fit time against n (benchmarks/bench_m2sorc.py)",
        "",
        f"Command: `{' '.join(['python', *sys.argv])}`  ",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores shared "
        "with other jobs (timings are noisy); "
        f"RBF Nyström {args.n_components} components, gamma = 0.1, 10 % n pairs, n_init = 1, "
        f"linearization = {args.linearization}, QP solver = {args.solver} on the primal QP (6).",
        "",
        "| set | n | pairs | M2SORC fit wall (s) | M2SORC fit CPU (s) | CCCP iterations "
        "| CPU s per QP | KMeans(n_init=10) wall (s) | KMeans CPU (s) | CPU ratio M2SORC/KMeans "
        "| M2SORC MAE (order) | KMeans MAE (Hungarian) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.2f} | {r[4]:.2f} | {r[5]} | {r[6]:.3f} | "
            f"{r[7]:.2f} | {r[8]:.2f} | {r[9]:.2f} | {r[10]:.3f} | {r[11]:.3f} |"
        )
    if len(rows) >= 2:
        for name in args.sets:
            sub = [r for r in rows if r[0] == name]
            if len(sub) >= 2:
                slope = np.polyfit(np.log([r[1] for r in sub]), np.log([r[6] for r in sub]), 1)[0]
                lines.append("")
                lines.append(f"{name}: CPU time per QP grows as n^{slope:.2f} (log-log fit).")
    Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
