"""The survey waits of issue #21 on an earlier revision and on the working tree, in one process.

The package of git revision ``--rev`` is imported beside the working tree's (as
``rankclust_rev``, see ``bench_kernel_splits.import_revision``). Each workload runs on both
sides, interleaved over ``--repeat`` rounds that alternate which side goes first; the best
wall and CPU (process) seconds of each side are printed with their ratio, the smallest
difference of the log-likelihoods per K (after minus before: negative means a worse fit at
some K) with the largest relative one, and whether the working tree gives the same bits on
one thread and on its default threads. The working tree
runs twice: on one thread (``RANKCLUST_NUM_THREADS=1``: the kernels alone) and with its
default threads (``rankclust._row_threads``).

Usage (from the repository root; needs ``RANKCLUST_DATA`` with sushi3 and the Irish data)::

    python benchmarks/bench_survey_revisions.py --rev 12860b7 [--repeat 2] [--only Meath]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
import warnings
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("RANKCLUST_DATA", str(HERE.parents[1] / "shared" / "data"))

from bench_kernel_splits import import_revision  # noqa: E402 - a sibling script


def workloads(pkg) -> dict:
    """name -> run() returning the log-likelihood per K, for one package (old or new)."""
    home = Path(os.environ["RANKCLUST_DATA"])
    sushi = home / "sushi3" / "sushi3a.5000.10.order"
    meath = home / "irish_election_2002" / "00001-00000003.soi"
    mix = pkg.cluster.mixture
    read = pkg.io.read_rankings
    out = {}
    if sushi.exists():
        R_sushi = read(sushi)
        for cls in (mix.MallowsMixture, mix.PlackettLuceMixture):

            def run(cls=cls):
                res = mix.select_k(cls(n_init=10, random_state=0), R_sushi, range(1, 11))
                return [row["log_likelihood"] for row in res.table]

            out[f"SUSHI A select_k K=1..10, {cls.__name__}(n_init=10)"] = run
    if meath.exists():
        R_meath = read(meath)

        def select():
            res = mix.select_k(mix.MallowsMixture(random_state=0), R_meath, range(1, 6))
            return [row["log_likelihood"] for row in res.table]

        def pl6():
            est = mix.PlackettLuceMixture(n_components=6, random_state=0).fit(R_meath)
            return [est.log_likelihood_]

        out["Meath select_k K=1..5, MallowsMixture() (the CLI's select-k fits)"] = select
        out["Meath PlackettLuceMixture(n_components=6) (the CLI's cluster -k 6 fit)"] = pl6
    return out


def timed(run, threads: str | None):
    if threads is None:
        os.environ.pop("RANKCLUST_NUM_THREADS", None)
    else:
        os.environ["RANKCLUST_NUM_THREADS"] = threads
    wall, cpu = time.perf_counter(), time.process_time()
    ll = run()
    return time.perf_counter() - wall, time.process_time() - cpu, ll


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", required=True, help="the earlier revision (e.g. 12860b7)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=[], help="workloads whose name contains TEXT")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import rankclust
    import rankclust.cluster.mixture
    import rankclust.io

    with tempfile.TemporaryDirectory() as tmp:
        old = import_revision(args.rev, Path(tmp))
        import rankclust_rev.cluster.mixture
        import rankclust_rev.io  # noqa: F401

        sides = {"before": workloads(old), "after": workloads(rankclust)}
        names = [n for n in sides["after"] if not args.only or any(t in n for t in args.only)]
        print(
            f"Measured {datetime.now():%Y-%m-%d %H:%M} on Python {platform.python_version()}, "
            f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; before = "
            f"{args.rev}, best of {args.repeat} interleaved rounds.\n"
        )
        print(
            "| workload | before wall s | before CPU s | after, 1 thread: wall / CPU s | "
            "after, threads: wall / CPU s | CPU ratio (1 thread) | wall ratio (threads) | "
            "log-likelihood per K: after - before (smallest, largest relative) | "
            "same bits on 1 and on all threads |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for name in names:
            runs = {
                "before": (sides["before"][name], None),
                "after1": (sides["after"][name], "1"),
                "afterT": (sides["after"][name], None),
            }
            for run, threads in runs.values():
                timed(run, threads)  # warm-up: compiles what this workload needs
            best = {key: [float("inf"), float("inf"), None] for key in runs}
            for r in range(args.repeat):
                keys = list(runs) if r % 2 == 0 else list(runs)[::-1]
                for key in keys:
                    wall, cpu, ll = timed(*runs[key])
                    best[key][0] = min(best[key][0], wall)
                    best[key][1] = min(best[key][1], cpu)
                    best[key][2] = ll
            b, a1, at = best["before"], best["after1"], best["afterT"]
            gain = [x - y for x, y in zip(at[2], b[2], strict=True)]
            rel = max(abs(g) / abs(y) for g, y in zip(gain, b[2], strict=True))
            print(
                f"| {name} | {b[0]:.1f} | {b[1]:.1f} | {a1[0]:.1f} / {a1[1]:.1f} | "
                f"{at[0]:.1f} / {at[1]:.1f} | {a1[1] / b[1]:.2f} | {at[0] / b[0]:.2f} | "
                f"{min(gain):+.3g} ({rel:.1g}) | {'yes' if a1[2] == at[2] else 'NO'} |",
                flush=True,
            )
        os.environ.pop("RANKCLUST_NUM_THREADS", None)


if __name__ == "__main__":
    main()
