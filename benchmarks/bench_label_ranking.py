"""Label ranking: rankclust against scikit-lr 0.3 on the 16 benchmark sets, same folds and data.

For every data set one ``KFold(10, shuffle=True, random_state=0)`` split is written, with the
data, to a temporary ``.npz``; the peer part runs in the scikit-lr environment (Python >= 3.13,
``--peers-python``) in a subprocess on exactly those folds, rankclust in this process. Per
fold: fit + predict wall time and the mean Kendall tau on the test part; the table sums the
times and averages tau over the folds.

Pairs compared (same algorithm and settings on both sides; both use the features as given,
which the data files ship normalised, so the kNN rows must predict identically: rankclust's
IBLR runs with ``scaling="none"``, no longer its default, and its trees with ``ccp_alpha=0``,
no pruning, as scikit-lr's; issue #17 made standardised features and a pruned tree the
defaults):

* ``kNN`` -- ``IBLRMallows(n_neighbors=5, weights="uniform")`` vs
  ``KNeighborsLabelRanker()`` (k = 5, uniform weights, Mallows/Borda centre);
* ``kNN-dudani`` -- Dudani weights with the k that rankclust's leave-one-out chose in that
  fold: ``IBLRMallows(n_neighbors=k)`` vs ``KNeighborsLabelRanker(n_neighbors=k,
  weights="dudani")``;
* ``IBLR-auto`` -- ``IBLRMallows(scaling="none")`` including its leave-one-out choice
  of k, against the same peer row (which gets that k for free);
* ``tree`` -- ``LabelRankingTree(ccp_alpha=0, random_state=0)`` (impurity criterion, fully
  grown except where no split lowers the impurity, a random feature order per node deciding
  exact ties) vs ``DecisionTreeLabelRanker(random_state=0)`` (scikit-lr's default: the
  same), and ``tree-paper`` -- ``LabelRankingTree(min_node_size_factor=2,
  min_impurity_decrease=None, ccp_alpha=0, random_state=0)`` (the paper's tree: no split
  below 2 x labels examples) against the same peer row.

Run: ``.venv/bin/python benchmarks/bench_label_ranking.py --peers-python
.venv-peers/bin/python`` (writes ``benchmarks/RESULTS_label_ranking.md``; ``--no-write`` only
prints). ``--methods kNN IBLR-auto`` and ``--datasets fried`` run subsets (only printed
unless ``--out`` is given: a partial run never replaces the committed results).
"""

from __future__ import annotations

import os

# one BLAS thread on both sides (the peer subprocess inherits it): a shared 2-core machine
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
from _common import HERE, SEMI_SYNTHETIC_SETS, machine_line, markdown_table
from sklearn.model_selection import KFold

from rankclust.datasets import load_label_ranking
from rankclust.label_ranking import IBLRMallows, LabelRankingTree
from rankclust.metrics import kendall_tau

SETS = SEMI_SYNTHETIC_SETS
#: the time columns of the per-set table and of the totals
_TIME_COLUMNS = [
    "wall rankclust (s)", "wall scikit-lr (s)", "wall speed-up",
    "CPU rankclust (s)", "CPU scikit-lr (s)", "CPU speed-up",
]  # fmt: skip

PEER_SCRIPT = textwrap.dedent(
    """
    import json, sys, time, warnings
    import numpy as np
    from sklr.neighbors import KNeighborsLabelRanker
    from sklr.tree import DecisionTreeLabelRanker
    from sklr.metrics import kendall_tau_score
    warnings.simplefilter("ignore")
    data = np.load(sys.argv[1])
    X, Y, fold_of = data["X"], data["Y"], data["fold"]
    ks = data["k"]
    wanted = sys.argv[2].split(",")
    out = {name: [] for name in wanted}
    for f in range(int(fold_of.max()) + 1):
        tr, te = fold_of != f, fold_of == f
        makers = {
            "kNN": lambda: KNeighborsLabelRanker(),
            "kNN-dudani": lambda: KNeighborsLabelRanker(n_neighbors=int(ks[f]), weights="dudani"),
            "tree": lambda: DecisionTreeLabelRanker(random_state=0),
        }
        for name in wanted:
            make = makers[name]
            t0, c0 = time.perf_counter(), time.process_time()
            est = make().fit(X[tr], Y[tr])
            pred = est.predict(X[te])
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            out[name].append(
                {"tau": float(kendall_tau_score(Y[te], pred)), "time": dt, "cpu": dc}
            )
    print(json.dumps(out))
    """
)


METHODS = ("kNN", "kNN-dudani", "IBLR-auto", "tree", "tree-paper")
# the peer row each of our rows is compared with
PEER_OF = {
    "kNN": "kNN",
    "kNN-dudani": "kNN-dudani",
    "IBLR-auto": "kNN-dudani",
    "tree": "tree",
    "tree-paper": "tree",
}


def _timed(make, X, Y, tr, te):
    t0, c0 = time.perf_counter(), time.process_time()
    est = make().fit(X[tr], Y[tr])
    pred = est.predict(X[te])
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    return est, {"tau": kendall_tau(Y[te], pred), "time": dt, "cpu": dc}


def run_ours(X, Y, fold_of, methods):
    res = {name: [] for name in methods}
    ks = []
    for f in range(int(fold_of.max()) + 1):
        tr, te = fold_of != f, fold_of == f
        if "IBLR-auto" in methods or "kNN-dudani" in methods:
            # rankclust's default IBLR: k chosen by leave-one-out (no peer counterpart); the
            # kNN-dudani rows of both libraries use the k it chose
            auto, r = _timed(lambda: IBLRMallows(scaling="none", random_state=0), X, Y, tr, te)
            if "IBLR-auto" in methods:
                res["IBLR-auto"].append(r)
            ks.append(int(auto.n_neighbors_))
        else:
            ks.append(5)
        makers = {
            "kNN": lambda: IBLRMallows(n_neighbors=5, weights="uniform", scaling="none"),
            "kNN-dudani": lambda k=ks[-1]: IBLRMallows(
                n_neighbors=k, weights="dudani", scaling="none"
            ),
            "tree": lambda: LabelRankingTree(ccp_alpha=0.0, random_state=0),
            "tree-paper": lambda: LabelRankingTree(
                min_node_size_factor=2, min_impurity_decrease=None, ccp_alpha=0.0, random_state=0
            ),
        }
        for name in methods:
            if name in makers:
                res[name].append(_timed(makers[name], X, Y, tr, te)[1])
    return res, np.array(ks)


def run_peer(peers_python, X, Y, fold_of, ks, methods):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.npz"
        np.savez(path, X=X, Y=Y, fold=fold_of, k=ks)
        script = Path(tmp) / "peer.py"
        script.write_text(PEER_SCRIPT)
        proc = subprocess.run(
            [peers_python, str(script), str(path), ",".join(methods)],
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(proc.stdout)


def summarise(res):
    return (
        float(np.mean([r["tau"] for r in res])),
        float(np.sum([r["time"] for r in res])),
        float(np.sum([r["cpu"] for r in res])),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peers-python", default=str(HERE.parent / ".venv-peers" / "bin" / "python"))
    ap.add_argument("--datasets", nargs="*", default=SETS)
    ap.add_argument(
        "--methods",
        nargs="*",
        choices=METHODS,
        default=list(METHODS),
        help="rows to run (default: all); a subset is only printed unless --out is given",
    )
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    methods = [m for m in METHODS if m in args.methods]
    full = methods == list(METHODS) and args.datasets == SETS
    if args.out is None:
        # only a full run replaces the committed results
        args.out = HERE / "RESULTS_label_ranking.md"
        args.no_write = args.no_write or not full
    peer_methods = sorted({PEER_OF[m] for m in methods}, key=list(PEER_OF).index)

    # warm up the compiled kernels so that no data set pays the numba cache load
    Xw, Yw = load_label_ranking("iris")
    IBLRMallows(n_neighbors=5, scaling="none").fit(Xw, Yw).predict(Xw)
    if "tree" in methods or "tree-paper" in methods:
        LabelRankingTree(ccp_alpha=0.0).fit(Xw, Yw).predict(Xw)

    rows = []
    totals = {}
    raw = {}
    for name in args.datasets:
        X, R = load_label_ranking(name)
        Y = R.to_ranks()
        fold_of = np.empty(len(X), dtype=np.int64)
        for f, (_, te) in enumerate(KFold(10, shuffle=True, random_state=0).split(X)):
            fold_of[te] = f
        ours, ks = run_ours(X, Y, fold_of, methods)
        peer = run_peer(args.peers_python, X, Y, fold_of, ks, peer_methods)
        raw[name] = {"ours": ours, "peer": peer, "k": ks.tolist()}
        for pair in methods:
            peer_key = PEER_OF[pair]
            t_o, s_o, c_o = summarise(ours[pair])
            t_p, s_p, c_p = summarise(peer[peer_key])
            tot = totals.setdefault(pair, [0.0, 0.0, 0.0, 0.0])
            tot[0] += s_o
            tot[1] += s_p
            tot[2] += c_o
            tot[3] += c_p
            rows.append(
                [
                    name,
                    pair,
                    f"{t_o:.4f}",
                    f"{t_p:.4f}",
                    f"{t_o - t_p:+.4f}",
                    f"{s_o:.2f}",
                    f"{s_p:.2f}",
                    f"{s_p / s_o:.1f}x",
                    f"{c_o:.2f}",
                    f"{c_p:.2f}",
                    f"{c_p / max(c_o, 1e-9):.1f}x",
                ]
            )
        # progress: this data set's rows as they will appear in the table
        for row in rows[-len(methods) :]:
            print("| " + " | ".join(row) + " |", flush=True)
    table = markdown_table(
        ["data set", "method", "tau rankclust", "tau scikit-lr", "diff", *_TIME_COLUMNS],
        rows,
    )
    tot_rows = [
        [
            pair,
            f"{t[0]:.1f}",
            f"{t[1]:.1f}",
            f"{t[1] / t[0]:.1f}x",
            f"{t[2]:.1f}",
            f"{t[3]:.1f}",
            f"{t[3] / t[2]:.1f}x",
        ]
        for pair, t in totals.items()
    ]
    text = "\n".join(
        [
            "## Label ranking (rankclust vs scikit-lr 0.3)",
            "",
            f"Measured {time.strftime('%Y-%m-%d')} on {machine_line()} (shared machine).",
            "Command: `" + " ".join([Path(sys.executable).name, *sys.argv]) + "`.",
            "10-fold CV (`KFold(10, shuffle=True, random_state=0)`), identical folds and data for "
            "both libraries; time = fit + predict summed over the 10 folds (wall clock and "
            "process CPU time; the machine is shared, so the wall clock is inflated by other "
            "jobs and CPU time is the fairer measure); tau = mean over folds. Speed-up = "
            "scikit-lr time / rankclust time. One BLAS thread on both sides.",
            "",
            table,
            "",
            "Totals over the data sets:",
            "",
            markdown_table(
                ["method", *_TIME_COLUMNS],
                tot_rows,
            ),
            "",
        ]
    )
    print(text)
    if not args.no_write:
        args.out.write_text(text)
        (args.out.with_suffix(".json")).write_text(json.dumps(raw))


if __name__ == "__main__":
    main()
