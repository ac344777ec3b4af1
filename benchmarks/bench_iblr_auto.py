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

``--accuracy`` asks instead whether a cheaper choice of k changes what users get: the
test-fold Kendall tau of the same folds for the default and for the cheaper settings of
``ACCURACY_SETTINGS`` (smaller ``cv_max_eval``, a coarser grid), each with the seeds of
``--seeds`` for the subsample, the per-fold paired differences against the default of the
same seed, and the CPU time of each setting's 10 folds (seed 0, one pass after a warm-up)
next to scikit-lr's (one worker, 3 passes, median).
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

#: ``--accuracy``: (label, IBLRMallows parameters besides scaling="none" and random_state)
ACCURACY_SETTINGS = [
    ("default (cv_max_eval=1000)", {}),
    ("cv_max_eval=300", {"cv_max_eval": 300}),
    ("cv_max_eval=200", {"cv_max_eval": 200}),
    ("cv_max_eval=100", {"cv_max_eval": 100}),
    ("cv_max_eval=50", {"cv_max_eval": 50}),
    ("grid (3,5,10,20,50), cv_max_eval=100", {"k_grid": (3, 5, 10, 20, 50), "cv_max_eval": 100}),
]


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


def _accuracy(files: list[str], seeds: list[int]) -> dict:
    """Per set, setting and seed: the 10 test-fold taus and (seed 0) the CPU time."""
    import warnings

    from rankclust.label_ranking import IBLRMallows
    from rankclust.metrics import kendall_tau

    warnings.simplefilter("ignore")
    out = {}
    for path in files:
        data = np.load(path)
        X, Y, fold_of = data["X"], data["Y"], data["fold"]
        n_folds = int(fold_of.max()) + 1
        res = out[Path(path).stem] = {}
        for label, params in ACCURACY_SETTINGS:
            IBLRMallows(scaling="none", random_state=0, **params).fit(  # warm-up
                X[fold_of != 0], Y[fold_of != 0]
            ).predict(X[fold_of == 0])
            for seed in seeds:
                taus, ks = [], []
                c0 = time.process_time()
                preds = []
                for f in range(n_folds):
                    tr, te = fold_of != f, fold_of == f
                    est = IBLRMallows(scaling="none", random_state=seed, **params).fit(
                        X[tr], Y[tr]
                    )
                    preds.append(est.predict(X[te]))
                    ks.append(int(est.n_neighbors_))
                cpu = time.process_time() - c0
                for f in range(n_folds):
                    taus.append(float(kendall_tau(Y[fold_of == f], preds[f])))
                res[f"{label}|{seed}"] = {"tau": taus, "k": ks, "cpu": cpu}
        print(f"accuracy: {Path(path).stem} done", file=sys.stderr, flush=True)
    return out


def _accuracy_tables(acc: dict, peer: dict, seeds: list[int]) -> str:
    """Markdown: mean test tau per setting and seed, paired differences, CPU against scikit-lr.

    Rule ("same?"): a setting keeps the accuracy on a set when, for every seed, the mean over
    the folds of the paired difference (setting - default, same seed) is within
    max(1 standard error of those 10 differences, 0.002) of zero; "not worse" when it is
    never below minus that bound.
    """
    default = ACCURACY_SETTINGS[0][0]
    lines = [
        "| data set | setting | test tau, seed " + ", ".join(map(str, seeds))
        + " | paired diff. mean (SE), seed " + ", ".join(map(str, seeds))
        + " | same? | k chosen (seed 0) | CPU 10 folds (s) | / scikit-lr |",
        "|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    keeps = {label: [] for label, _ in ACCURACY_SETTINGS[1:]}
    for ds, res in acc.items():
        p = peer[ds]["cpu"]
        for label, _ in ACCURACY_SETTINGS:
            means, diffs, same, not_worse = [], [], True, True
            for seed in seeds:
                tau = np.array(res[f"{label}|{seed}"]["tau"])
                base = np.array(res[f"{default}|{seed}"]["tau"])
                d = tau - base
                mean, se = d.mean(), d.std(ddof=1) / np.sqrt(d.size)
                means.append(f"{tau.mean():.4f}")
                diffs.append(f"{mean:+.4f} ({se:.4f})")
                same &= abs(mean) <= max(se, 0.002)
                not_worse &= mean >= -max(se, 0.002)
            ks = res[f"{label}|{seeds[0]}"]["k"]
            cpu = res[f"{label}|{seeds[0]}"]["cpu"]
            verdict = "-" if label == default else ("yes" if same else "**no**")
            if label != default and not same:
                verdict += " (not worse)" if not_worse else " (worse)"
            if label != default:
                keeps[label].append((ds, same, not_worse, cpu / p))
            row = [ds, label, " / ".join(means), " / ".join(diffs), verdict,
                   f"{min(ks)}-{max(ks)}", f"{cpu:.3f}", f"{cpu / p:.2f}"]  # fmt: skip
            lines.append("| " + " | ".join(row) + " |")
    lines += ["", "| setting | same accuracy | not worse | at most 1x scikit-lr CPU |",
              "|---|---|---|---|"]  # fmt: skip
    for label, rows in keeps.items():
        cells = [_count(rows, lambda s, w, r: s), _count(rows, lambda s, w, r: w),
                 _count(rows, lambda s, w, r: r <= 1)]  # fmt: skip
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _count(rows: list, ok) -> str:
    """``"a/b (not: sets)"``: how many (set, same, not_worse, cpu_ratio) rows satisfy ``ok``."""
    bad = ", ".join(ds for ds, *flags in rows if not ok(*flags)) or "-"
    return f"{sum(ok(*flags) for _, *flags in rows)}/{len(rows)} (not: {bad})"


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
    ap.add_argument("--accuracy", action="store_true", help="test tau of cheaper settings")
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2])
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
        if args.accuracy:
            peer = _run(args.peers_python, "peer", files, 3, None)
            acc = _accuracy(files, args.seeds)
            text = "\n".join([
                f"Measured {time.strftime('%Y-%m-%d %H:%M')} (load average "
                f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs). Command: `"
                + " ".join([Path(sys.executable).name, *sys.argv]) + "`.",
                "", _accuracy_tables(acc, peer, args.seeds), "",
            ])  # fmt: skip
            print(text)
            if args.out:
                args.out.write_text(text)
                args.out.with_suffix(".json").write_text(json.dumps({"peer": peer, "ours": acc}))
            return
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
