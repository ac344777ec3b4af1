"""IBLR with its leave-one-out choice of k against scikit-lr's fixed-k kNN, same folds.

The question (a user's wait): does ``IBLRMallows()`` with its default ``n_neighbors="auto"``
(every fit scores the candidate k on up to 1000 training rows) cost more than scikit-lr's
``KNeighborsLabelRanker()`` (k = 5, nothing chosen)? Per data set, 10-fold CV
(``KFold(10, shuffle=True, random_state=0)``), fit + predict summed over the folds, process
CPU time (the fair measure on a shared machine; wall time is printed too), rankclust with
the features as given (``scaling="none"``, as scikit-lr).

Each side runs in its own worker process that warms up (numba cache load, first calls) and
then times ``--reps`` passes over the folds (median kept): scikit-lr in its environment
(``--peers-python``, Python >= 3.13), rankclust from this tree, and with ``--baseline-src
DIR`` a second rankclust (e.g. ``git archive <commit> src | tar -x -C DIR``) as "before".
The workers are interleaved ``--rounds`` times (peer, before, after, peer, ...) so that the
load of the machine hits all sides alike; the table gives medians over the rounds and the
ratios rankclust / scikit-lr (below 1: rankclust is faster).

Run: ``.venv/bin/python benchmarks/bench_iblr_auto.py --peers-python .venv-peers/bin/python
--baseline-src /tmp/before/src`` (``--datasets`` for a subset; ``--out`` writes the table).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import SEMI_SYNTHETIC_SETS

HERE = Path(__file__).resolve().parent
SETS = SEMI_SYNTHETIC_SETS


def _worker(side: str, files: list[str], reps: int) -> None:
    """Time ``reps`` passes of 10-fold fit + predict per data file; print JSON per set."""
    import warnings

    warnings.simplefilter("ignore")
    if side == "peer":
        from sklr.neighbors import KNeighborsLabelRanker

        def make():
            return KNeighborsLabelRanker()
    else:
        from rankclust.label_ranking import IBLRMallows

        def make():
            return IBLRMallows(scaling="none", random_state=0)

    out = {}
    for path in files:
        data = np.load(path)
        X, Y, fold_of = data["X"], data["Y"], data["fold"]
        n_folds = int(fold_of.max()) + 1
        make().fit(X[fold_of != 0], Y[fold_of != 0]).predict(X[fold_of == 0])  # warm-up
        cpu, wall, ks = [], [], []
        for _ in range(reps):
            c0, t0 = time.process_time(), time.perf_counter()
            ks = []
            for f in range(n_folds):
                tr, te = fold_of != f, fold_of == f
                est = make().fit(X[tr], Y[tr])
                est.predict(X[te])
                ks.append(int(getattr(est, "n_neighbors_", 5)))
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - t0)
        out[Path(path).stem] = {"cpu": float(np.median(cpu)), "wall": float(np.median(wall)),
                                "k": ks}  # fmt: skip
    print(json.dumps(out))


def _run(python: str, side: str, files: list[str], reps: int, src: str | None) -> dict:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    proc = subprocess.run(
        [python, __file__, "--worker", side, "--reps", str(reps), "--files", *files],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peers-python", default=str(HERE.parent / ".venv-peers" / "bin" / "python"))
    ap.add_argument("--baseline-src", default=None)
    # fried (40,768 rows: k grows to about 10^4) takes minutes per pass: only on request
    ap.add_argument("--datasets", nargs="*", default=[s for s in SETS if s != "fried"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--files", nargs="*", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        _worker(args.worker, args.files, args.reps)
        return

    from sklearn.model_selection import KFold

    from rankclust.datasets import load_label_ranking

    src_now = str(HERE.parent / "src")
    sides = [("scikit-lr", args.peers_python, "peer", None)]
    if args.baseline_src:
        sides.append(("before", sys.executable, "ours", args.baseline_src))
    sides.append(("after", sys.executable, "ours", src_now))
    results = {name: [] for name, *_ in sides}
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name in args.datasets:
            X, R = load_label_ranking(name)
            fold_of = np.empty(len(X), dtype=np.int64)
            for f, (_, te) in enumerate(KFold(10, shuffle=True, random_state=0).split(X)):
                fold_of[te] = f
            path = Path(tmp) / f"{name}.npz"
            np.savez(path, X=X, Y=R.to_ranks(), fold=fold_of)
            files.append(str(path))
        for r in range(args.rounds):
            for name, python, side, src in sides:
                results[name].append(_run(python, side, files, args.reps, src))
                print(f"round {r + 1}: {name} done", file=sys.stderr, flush=True)

    def med(name, ds, what):
        return float(np.median([res[ds][what] for res in results[name]]))

    head = ["data set", "k chosen (folds)", "scikit-lr k=5 CPU (s)"]
    if args.baseline_src:
        head += ["before CPU (s)", "before / scikit-lr"]
    head += ["after CPU (s)", "after / scikit-lr", "wall: scikit-lr / before / after (s)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for ds in args.datasets:
        peer = med("scikit-lr", ds, "cpu")
        ks = results["after"][0][ds]["k"]
        row = [ds, f"{min(ks)}-{max(ks)}", f"{peer:.3f}"]
        walls = [med("scikit-lr", ds, "wall")]
        if args.baseline_src:
            b = med("before", ds, "cpu")
            row += [f"{b:.3f}", f"{b / peer:.2f}"]
            walls.append(med("before", ds, "wall"))
        a = med("after", ds, "cpu")
        row += [f"{a:.3f}", f"{a / peer:.2f}"]
        walls.append(med("after", ds, "wall"))
        row.append(" / ".join(f"{w:.3f}" for w in walls))
        lines.append("| " + " | ".join(row) + " |")
    load = os.getloadavg()[0]
    text = "\n".join(
        [
            f"Measured {time.strftime('%Y-%m-%d %H:%M')} (load average {load:.1f} on "
            f"{os.cpu_count()} CPUs); {args.rounds} interleaved rounds x {args.reps} passes, "
            "medians. Command: `" + " ".join([Path(sys.executable).name, *sys.argv]) + "`.",
            "",
            *lines,
            "",
        ]
    )
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
