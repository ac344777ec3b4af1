"""Untied data keep their speed: Plackett-Luce and Mallows on untied rankings, old code vs new.

Imports rankclust twice in one process -- from ``--old-src`` (a checkout of the commit before
ties were supported, e.g. ``git worktree add /tmp/old <commit>``) and from this tree -- and
times ``fit`` and ``logpdf`` interleaved, on 20,000 top-4 lists of 8 items (Plackett-Luce) and
20,000 complete rankings of 8 items (Mallows). Prints the medians, the ratios new/old and
whether the results are identical.

Usage: ``python benchmarks/bench_ties_untied_path.py --old-src /tmp/old/src [--repeats 41]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

NEW_SRC = Path(__file__).resolve().parents[1] / "src"


def load(path: str):
    for k in [k for k in sys.modules if k.startswith("rankclust")]:
        del sys.modules[k]
    sys.path.insert(0, str(path))
    import rankclust
    import rankclust.models as models

    sys.path.pop(0)
    return rankclust, models


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old-src", required=True)
    ap.add_argument("--repeats", type=int, default=41)
    args = ap.parse_args()
    mods = {"old": load(args.old_src), "new": load(NEW_SRC)}
    rk, M = mods["new"]
    pl_data = M.PlackettLuce.from_params(scores=np.linspace(1, -1, 8)).sample(
        20000, random_state=0, lengths=4
    )
    mal_data = M.Mallows.from_params(center=np.arange(8), theta=0.5).sample(20000, random_state=0)
    tasks = ("PlackettLuce.fit", "PlackettLuce.logpdf", "Mallows.fit", "Mallows.logpdf")
    times = {k: {t: [] for t in tasks} for k in mods}
    out = {}
    for _ in range(args.repeats):
        for k, (rk, M) in mods.items():
            R = rk.Rankings(pl_data.ranks, kind="top")
            T = rk.Rankings(mal_data.ranks)
            t0 = time.perf_counter()
            pl = M.PlackettLuce().fit(R)
            t1 = time.perf_counter()
            a = pl.logpdf(R)
            t2 = time.perf_counter()
            ml = M.Mallows().fit(T)
            t3 = time.perf_counter()
            b = ml.logpdf(T)
            t4 = time.perf_counter()
            for task, dt in zip(tasks, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
                times[k][task].append(dt)
            out[k] = (pl.scores_, a, ml.center_, np.array(ml.theta_), b)
    same = all(np.array_equal(x, y) for x, y in zip(out["old"], out["new"], strict=True))
    print(f"identical results: {same}")
    print("| task | old (ms) | new (ms) | new/old |")
    print("|---|---|---|---|")
    for task in tasks:
        o = np.median(times["old"][task][1:]) * 1e3  # first repeat: compilation, caches
        n = np.median(times["new"][task][1:]) * 1e3
        print(f"| {task} | {o:.2f} | {n:.2f} | {n / o:.3f} |")


if __name__ == "__main__":
    main()
