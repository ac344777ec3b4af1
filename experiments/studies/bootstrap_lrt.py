"""Size and power of the bootstrap likelihood-ratio test of K against K - 1 (issue #20).

For K = 2 and 3, data sets of top-t ballots are simulated from a Kendall-Mallows mixture with
K - 1 components (the null: the rejection rate at 5 % is the *size*, target 0.05) and with K
components (the alternative: the rejection rate is the *power*), and
:func:`rankclust.inference.bootstrap_lrt` tests K - 1 against K on each (MallowsMixture,
``n_init`` starts on the data, ``--n-boot`` replicates). A data set is rejected when
``p <= 0.05``; with B replicates the p-value ``(1 + #{LR_b >= LR}) / (B + 1)`` is valid
(``P(p <= a) <= a`` under the null for any B), so a small B keeps the size and loses a
little power.

Design: m = 5 items, ``--n`` ballots per data set, lengths uniform on {2, 3, 4, 5}, centres at
prescribed Kendall distances (:func:`rankclust.cluster.mixture_generators.centers_at_distances`:
K = 2 alternative: two centres at distance 6; K = 3 alternative and K = 3 null's parents: three
centres at pairwise distances 6, 6, 6, of which the null keeps the first two), all dispersions
``--theta``, equal weights.

The issue asks 200 data sets per setting with 99 replicates; that takes hours on 2 cores, so
the committed results file may come from a reduced run (it says which). Full study::

    python experiments/studies/bootstrap_lrt.py --n-datasets 200 --n-boot 99 --n-jobs 2

Writes ``experiments/studies/results/bootstrap_lrt.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import limit_threads, md_table, paths, platform_line, write_report

from rankclust.cluster import MallowsMixture
from rankclust.cluster.mixture_generators import centers_at_distances, make_heterogeneous_rankings
from rankclust.inference import bootstrap_lrt

OUT = paths(__file__).results / "bootstrap_lrt.md"
LENGTHS = [2, 3, 4, 5]


def settings(theta: float) -> list[tuple[str, int, int, np.ndarray]]:
    """(label, K tested, components of the truth, centres of the truth)."""
    two = centers_at_distances([6], 5, random_state=0)
    three = centers_at_distances([6, 6, 6], 5, random_state=0)
    return [
        ("K=2 vs 1, truth 1 component (size)", 2, 1, two[:1]),
        ("K=2 vs 1, truth 2 components (power)", 2, 2, two),
        ("K=3 vs 2, truth 2 components (size)", 3, 2, three[:2]),
        ("K=3 vs 2, truth 3 components (power)", 3, 3, three),
    ]


def one(k: int, centers: np.ndarray, seed: np.random.SeedSequence, args) -> tuple[float, float]:
    """(p-value, seconds) of one simulated data set."""
    limit_threads(1)
    rng = np.random.default_rng(seed)
    R, _ = make_heterogeneous_rankings(
        args.n, centers, args.theta, lengths=LENGTHS, fixed_sizes=False,
        random_state=int(rng.integers(2**31 - 1)),
    )  # fmt: skip
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bootstrap_lrt(
            MallowsMixture(n_init=args.n_init), R, k, n_boot=args.n_boot,
            n_fresh=args.n_fresh, random_state=int(rng.integers(2**31 - 1)),
        )  # fmt: skip
    return res.p_value, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-datasets", type=int, default=200)
    ap.add_argument("--n-boot", type=int, default=99)
    ap.add_argument("--n", type=int, default=300, help="ballots per data set")
    ap.add_argument("--theta", type=float, default=0.7)
    ap.add_argument("--n-init", type=int, default=10, help="starts of the fits on the data")
    ap.add_argument("--n-fresh", type=int, default=10, help="fresh starts of each refit")
    ap.add_argument("--n-jobs", type=int, default=2, help="data sets in parallel")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    cases = settings(args.theta)
    seeds = np.random.SeedSequence(args.seed).spawn(len(cases))
    jobs = [
        (c, k, truth, centers, s)
        for c, (_, k, truth, centers) in enumerate(cases)
        for s in seeds[c].spawn(args.n_datasets)
    ]
    start = time.perf_counter()
    out = Parallel(n_jobs=args.n_jobs)(
        delayed(one)(k, centers, s, args) for _, k, _, centers, s in jobs
    )
    wall = time.perf_counter() - start
    rows = []
    for c, (label, _k, _truth, _centers) in enumerate(cases):
        p = np.array([out[i][0] for i, job in enumerate(jobs) if job[0] == c])
        sec = np.array([out[i][1] for i, job in enumerate(jobs) if job[0] == c])
        rate = float(np.mean(p <= 0.05))
        se = float(np.sqrt(rate * (1 - rate) / len(p)))
        rows.append([label, len(p), f"{rate:.3f} ± {se:.3f}", f"{np.median(p):.3f}",
                     f"{np.median(sec):.1f}"])  # fmt: skip
    lines = [
        "# Bootstrap likelihood-ratio test: size and power",
        "",
        "Generated by `experiments/studies/bootstrap_lrt.py` "
        f"(`--n-datasets {args.n_datasets} --n-boot {args.n_boot} --n {args.n} "
        f"--theta {args.theta} --n-init {args.n_init} --n-fresh {args.n_fresh} "
        f"--n-jobs {args.n_jobs} "
        f"--seed {args.seed}`), {platform_line()}; wall time {wall:.0f} s.",
        "",
        f"MallowsMixture on top-t ballots of 5 items (lengths uniform on {LENGTHS}), "
        f"{args.n} ballots per data set, dispersions {args.theta}, equal weights; centres at "
        "Kendall distance 6 from each other. Rejection at 5 % (p <= 0.05) with its binomial "
        "standard error.",
        "",
        *md_table(
            ["setting", "data sets", "rejection rate", "median p", "median s per test"], rows
        ),
        "",
    ]
    if args.n_datasets < 200 or args.n_boot < 99:
        lines += [
            f"This is a reduced run ({args.n_datasets} data sets, {args.n_boot} replicates; the "
            "issue asks 200 and 99) to stay within a short run on a shared 2-core machine. "
            "Full study: `python experiments/studies/bootstrap_lrt.py --n-datasets 200 "
            "--n-boot 99 --n-jobs 2`.",
            "",
        ]
    write_report(OUT, lines, final_newline=False)


if __name__ == "__main__":
    main()
