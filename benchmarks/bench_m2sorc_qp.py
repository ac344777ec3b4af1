"""One M2SORC QP subproblem (6) at growing n: Clarabel's KKT solvers against the structured IPM.

The QP is the first CCCP step of ``M2SORC`` on the first n rows (fixed permutation) of Chu's Bank
(bank-32nh) or Computer (cpu_act) set, equal-frequency 5 levels, standardised, RBF Nyström map
with 100 components (gamma = 0.1), 10 % n ranking pairs, C1 = C2 = 1, balance l = 1, paper
linearisation at the "pairs" start. Each solver is timed (wall and process CPU time) on the same
QP; the table gives interior-point iterations, time per iteration, and the optimal values'
agreement. Usage::

    python benchmarks/bench_m2sorc_qp.py [--sets bank] [--sizes 500 ... 8192] [--out FILE]

The data are read from ``$RANKCLUST_DATA`` (never copied into the repository).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.preprocessing import StandardScaler

from rankclust.ordinal import m2sorc as M
from rankclust.ordinal import ranking_pairs_from_labels
from rankclust.ordinal._data import fetch_ordinal_regression
from rankclust.ordinal._features import FeatureMap

HERE = Path(__file__).resolve().parent
if "RANKCLUST_DATA" not in os.environ and (HERE.parent.parent / "shared" / "data").is_dir():
    os.environ["RANKCLUST_DATA"] = str(HERE.parent.parent / "shared" / "data")

CLARABEL = {
    "clarabel-qdldl": dict(method="qdldl"),
    "clarabel-faer": dict(method="faer"),
    "clarabel-faer-2threads": dict(method="faer", max_threads=2),
}


def build(name, n, linearization="paper", balance=1.0, k=5):
    X_all, y_all = fetch_ordinal_regression(name, "equal_frequency")
    idx = np.random.RandomState(0).permutation(len(y_all))[:n]
    X, y = StandardScaler().fit_transform(X_all[idx]), y_all[idx]
    pairs = ranking_pairs_from_labels(y, round(0.1 * n), random_state=0)
    rng = np.random.RandomState(0)
    Phi = FeatureMap("rbf", 0.1, 100, rng).fit_transform(X)
    w, b = M._initial_point(Phi, pairs, k, "pairs", rng)
    a = Phi @ w
    mrows = M._margin_rows(a, b, linearization)
    rrows = M._ranking_rows(pairs, a, b, linearization)
    fixed = M._fixed_rows(Phi.mean(axis=0), k, n, balance)
    return Phi, pairs, k, mrows, rrows, fixed


def _timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def run_ipm(Phi, pairs, k, mrows, rrows, fixed):
    holder = {}

    def call():
        orig = M.solve_slack_qp

        def spy(*a, **kw):
            holder["res"] = orig(*a, **kw)
            return holder["res"]

        M.solve_slack_qp = spy
        try:
            return M._solve_qp(Phi, len(pairs), k, 1.0, 1.0, mrows, rrows, fixed, "ipm")
        finally:
            M.solve_slack_qp = orig

    res, wall, cpu = _timed(call)
    return res.value, holder["res"].n_iter, wall, cpu


def run_clarabel(Phi, pairs, k, mrows, rrows, fixed, method, **settings):
    problem = M._clarabel_problem(Phi, len(pairs), k, 1.0, 1.0, mrows, rrows, fixed)
    (_, value, _, sol), wall, cpu = _timed(
        lambda: M._clarabel(problem, M._clarabel_settings(method, **settings))
    )
    return value, int(sol.iterations), wall, cpu


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", nargs="*", default=["bank"])
    ap.add_argument("--sizes", type=int, nargs="*", default=[500, 1000, 2000, 4096, 8192])
    ap.add_argument("--solvers", nargs="*", default=["ipm", *CLARABEL])
    ap.add_argument("--linearization", default="paper")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    lines = [
        f"Command: `{' '.join(['python', *sys.argv])}`",
        "",
        "| set | n | QP rows | solver | IPM iterations | wall s | CPU s | ms per iteration "
        "| value | rel. diff. to ipm |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in args.sets:
        for n in args.sizes:
            inst = build(name, n, args.linearization)
            n_rows = inst[3].s1.shape[0] + inst[4].s1.shape[0]
            ref = None
            for solver in args.solvers:
                if solver == "ipm":
                    value, it, wall, cpu = run_ipm(*inst)
                    ref = value
                else:
                    value, it, wall, cpu = run_clarabel(*inst, **CLARABEL[solver])
                rel = abs(value - ref) / abs(ref) if ref else float("nan")
                line = (
                    f"| {name} | {n} | {n_rows} | {solver} | {it} | {wall:.3f} | {cpu:.3f} | "
                    f"{1000 * wall / max(it, 1):.1f} | {value:.8g} | {rel:.1e} |"
                )
                print(line, flush=True)
                lines.append(line)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
