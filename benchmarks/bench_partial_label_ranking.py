"""Partial label ranking: rankclust against scikit-lr 0.3 on the 15 benchmark sets, same folds.

The 15 sets of Alfaro, Aledo & Gámez (2021) (``partial_label_ranking_alfaro`` in the data
collection: bucket orders, ties allowed). For every data set one ``KFold(10, shuffle=True,
random_state=0)`` split is written, with the data, to a temporary ``.npz``; the peer part runs
in the scikit-lr environment (Python >= 3.13, ``--peers-python``) in a subprocess on exactly
those folds, rankclust in this process. Per fold: fit + predict wall and CPU time and the mean
tau_x (Emond & Mason 2002) on the test part; the table sums the times and averages tau_x over
the folds. ``agree`` is the fraction of test rows whose predicted bucket orders are identical.

Pairs compared (same algorithm and settings on both sides, the features as given, which the
files ship standardised):

* ``kNN`` -- ``KNeighborsPartialLabelRanker()`` on both sides: k = 5, uniform weights,
  Euclidean distance (scikit-lr: ``metric="minkowski", p=2``), consensus BPA-LIA-MP2 with
  beta = 0.25 (the pivot of least DANI indecision, the first label on exact ties);
* ``tree`` -- ``DecisionTreePartialLabelRanker(random_state=0)`` on both sides (scikit-lr's
  defaults, rankclust's the same: entropy criterion, fully grown, ``min_samples_split=2``, no
  pruning; leaves by BPA-LIA-MP2, beta = 0.25). Both visit the features in a fresh random
  order at every node and keep the first of exactly tied splits, but the two random streams
  differ, so tied splits (common in small nodes) go to different features; scikit-lr, as
  scikit-learn's trees, also reads the features as float32. The trees therefore differ in
  their tie-breaking, not in the criterion.

Run: ``.venv/bin/python benchmarks/bench_partial_label_ranking.py --peers-python
.venv-peers/bin/python`` (writes ``benchmarks/RESULTS_partial_label_ranking.md`` and ``.json``;
``--no-write`` only prints). ``--methods kNN``, ``--datasets iris`` and
``--tree-random-state 1`` (both trees; how much the tie-breaking moves tau_x) run variants
(only printed unless ``--out`` is given: they never replace the committed results).
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
from _common import HERE, data_home, machine_line, markdown_table
from sklearn.model_selection import KFold

from rankclust.io import read_label_ranking_csv
from rankclust.label_ranking import DecisionTreePartialLabelRanker, KNeighborsPartialLabelRanker
from rankclust.metrics import tau_x

SETS = [
    "authorship", "blocks", "breast", "ecoli", "glass", "iris", "letter", "libras",
    "pendigits", "satimage", "segment", "vehicle", "vowel", "wine", "yeast",
]  # fmt: skip

PEER_SCRIPT = textwrap.dedent(
    """
    import json, sys, time, warnings
    import numpy as np
    from sklr.neighbors import KNeighborsPartialLabelRanker
    from sklr.tree import DecisionTreePartialLabelRanker
    from sklr.metrics import tau_x_score
    warnings.simplefilter("ignore")
    data = np.load(sys.argv[1])
    X, Y, fold_of = data["X"], data["Y"], data["fold"]
    wanted = sys.argv[2].split(",")
    seed = int(sys.argv[3])
    makers = {
        "kNN": lambda: KNeighborsPartialLabelRanker(),
        "tree": lambda: DecisionTreePartialLabelRanker(random_state=seed),
    }
    out = {name: [] for name in wanted}
    for f in range(int(fold_of.max()) + 1):
        tr, te = fold_of != f, fold_of == f
        for name in wanted:
            t0, c0 = time.perf_counter(), time.process_time()
            est = makers[name]().fit(X[tr], Y[tr])
            pred = est.predict(X[te])
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            out[name].append(
                {"tau": float(tau_x_score(Y[te], pred)), "time": dt, "cpu": dc,
                 "pred": np.asarray(pred).tolist()}
            )
    print(json.dumps(out))
    """
)

METHODS = ("kNN", "tree")


def load(name: str):
    return read_label_ranking_csv(data_home() / "partial_label_ranking_alfaro" / f"{name}.csv")


def run_ours(X, R, fold_of, methods, seed):
    makers = {
        "kNN": lambda: KNeighborsPartialLabelRanker(),
        "tree": lambda: DecisionTreePartialLabelRanker(random_state=seed),
    }
    res = {name: [] for name in methods}
    for f in range(int(fold_of.max()) + 1):
        tr, te = fold_of != f, fold_of == f
        for name in methods:
            t0, c0 = time.perf_counter(), time.process_time()
            est = makers[name]().fit(X[tr], R[tr])
            pred = est.predict(X[te])
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            res[name].append(
                {"tau": tau_x(R[te], pred), "time": dt, "cpu": dc, "pred": pred.tolist()}
            )
    return res


def run_peer(peers_python, X, Y, fold_of, methods, seed):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.npz"
        np.savez(path, X=X, Y=Y, fold=fold_of)
        script = Path(tmp) / "peer.py"
        script.write_text(PEER_SCRIPT)
        proc = subprocess.run(
            [peers_python, str(script), str(path), ",".join(methods), str(seed)],
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


def agreement(ours, peer):
    """Fraction of test rows (all folds) with identical predicted bucket orders."""
    a = np.concatenate([np.asarray(r["pred"]) for r in ours])
    b = np.concatenate([np.asarray(r["pred"]) for r in peer])
    return float(np.mean((a == b).all(axis=1)))


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
    ap.add_argument(
        "--tree-random-state",
        type=int,
        default=0,
        help="random_state of both trees (the feature orders that break tied splits); a value "
        "other than 0 is only printed unless --out is given",
    )
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    methods = [m for m in METHODS if m in args.methods]
    full = methods == list(METHODS) and args.datasets == SETS and args.tree_random_state == 0
    if args.out is None:
        # only a full run replaces the committed results
        args.out = HERE / "RESULTS_partial_label_ranking.md"
        args.no_write = args.no_write or not full

    # warm up the compiled kernels so that no data set pays the numba cache load
    Xw, Rw = load("iris")
    for make in (KNeighborsPartialLabelRanker, DecisionTreePartialLabelRanker):
        make().fit(Xw, Rw).predict(Xw)

    rows = []
    totals = {}
    taus = {m: ([], []) for m in methods}
    raw = {}
    for name in args.datasets:
        X, R = load(name)
        Y = R.to_ranks()
        fold_of = np.empty(len(X), dtype=np.int64)
        for f, (_, te) in enumerate(KFold(10, shuffle=True, random_state=0).split(X)):
            fold_of[te] = f
        ours = run_ours(X, R, fold_of, methods, args.tree_random_state)
        peer = run_peer(args.peers_python, X, Y, fold_of, methods, args.tree_random_state)
        for pair in methods:
            t_o, s_o, c_o = summarise(ours[pair])
            t_p, s_p, c_p = summarise(peer[pair])
            agree = agreement(ours[pair], peer[pair])
            taus[pair][0].append(t_o)
            taus[pair][1].append(t_p)
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
                    f"{agree:.3f}",
                    f"{s_o:.2f}",
                    f"{s_p:.2f}",
                    f"{s_p / s_o:.1f}x",
                    f"{c_o:.2f}",
                    f"{c_p:.2f}",
                    f"{c_p / max(c_o, 1e-9):.1f}x",
                ]
            )
        raw[name] = {
            side: {m: [{k: v for k, v in r.items() if k != "pred"} for r in res[m]] for m in res}
            for side, res in (("ours", ours), ("peer", peer))
        }
        # progress: this data set's rows as they will appear in the table
        for row in rows[-len(methods) :]:
            print("| " + " | ".join(row) + " |", flush=True)
    table = markdown_table(
        [
            "data set",
            "method",
            "tau_x rankclust",
            "tau_x scikit-lr",
            "diff",
            "agree",
            "wall rankclust (s)",
            "wall scikit-lr (s)",
            "wall speed-up",
            "CPU rankclust (s)",
            "CPU scikit-lr (s)",
            "CPU speed-up",
        ],
        rows,
    )
    tot_rows = [
        [
            pair,
            f"{np.mean(taus[pair][0]):.4f}",
            f"{np.mean(taus[pair][1]):.4f}",
            f"{np.mean(taus[pair][0]) - np.mean(taus[pair][1]):+.4f}",
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
            "## Partial label ranking (rankclust vs scikit-lr 0.3)",
            "",
            f"Measured {time.strftime('%Y-%m-%d')} on {machine_line()} (shared machine).",
            "Command: `" + " ".join([Path(sys.executable).name, *sys.argv]) + "`.",
            "10-fold CV (`KFold(10, shuffle=True, random_state=0)`), identical folds and data for "
            "both libraries; time = fit + predict summed over the 10 folds (wall clock and "
            "process CPU time; the machine is shared, so the wall clock is inflated by other "
            "jobs and CPU time is the fairer measure); tau_x = mean over folds; agree = "
            "fraction of test rows with identical predicted bucket orders. Speed-up = "
            "scikit-lr time / rankclust time. One BLAS thread on both sides. Settings: see the "
            "docstring of `benchmarks/bench_partial_label_ranking.py`.",
            "",
            table,
            "",
            "Averages of tau_x over the data sets and total times:",
            "",
            markdown_table(
                [
                    "method",
                    "mean tau_x rankclust",
                    "mean tau_x scikit-lr",
                    "diff",
                    "wall rankclust (s)",
                    "wall scikit-lr (s)",
                    "wall speed-up",
                    "CPU rankclust (s)",
                    "CPU scikit-lr (s)",
                    "CPU speed-up",
                ],
                tot_rows,
            ),
            "",
            "Notes. kNN: the same neighbours and the same consensus, so agree = 1 is expected; "
            "most of its time is scikit-learn's neighbour search, the same code on both sides. "
            "Trees: the same criterion, thresholds and stopping rules, but the random feature "
            "orders that break exactly tied splits come from different random streams, so tied "
            "splits go to different features and the trees differ (agree < 1); the tau_x "
            "differences per set are of the size of the change between two `random_state` "
            "values of either library (`--tree-random-state`).",
            "",
        ]
    )
    print(text)
    if not args.no_write:
        args.out.write_text(text)
        (args.out.with_suffix(".json")).write_text(json.dumps(raw))


if __name__ == "__main__":
    main()
