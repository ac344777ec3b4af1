"""The bootstrap LRT's verdict for K = 2..5 on the APA ballots (issue #20).

For APA 1980 (``apa_1980/d_apa_orderings.csv``, 15,449 ballots) and APA 1998 (PrefLib
``apa_elections_1998_2009/00028-00000001.soi``), all of them top-t ballots of 5 candidates,
:func:`rankclust.cluster.mixture.select_k` fits K = 1..5 (each K also started from the K - 1
fit, as ``rankclust select-k`` does) and :func:`rankclust.inference.bootstrap_lrt` tests each K
against K - 1 on those fits, with ``--n-boot`` replicates. The same numbers come from the
command line::

    rankclust select-k FILE --kind top --ks 1..5 --lrt 99 --random-state 0 --n-jobs 2

Usage: ``python experiments/studies/bootstrap_lrt_apa.py [--n-boot 99] [--models mallows,pl]``;
writes ``experiments/studies/results/bootstrap_lrt_apa.md``.

``--compare`` adds a table that runs, in the same process and interleaved, the refit rule
before the nested starts (``_old_refit_alternative`` below: the K refit started from the
data's K fit, the grown starts and ``n_fresh`` fresh starts only) and the current one on the
APA 1980 Mallows mixture, one process (``n_jobs=1``), ``--repeats`` times: replicates below
their K - 1 fit and the median wall time of each.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import data_home, limit_threads, md_table, paths, platform_line, write_report

from rankclust.cluster import MallowsMixture, PlackettLuceMixture
from rankclust.cluster.mixture import select_k
from rankclust.inference import bootstrap_lrt, lrt
from rankclust.inference.bootstrap import _refit
from rankclust.io import read_preflib, read_rankings

OUT = paths(__file__).results / "bootstrap_lrt_apa.md"
MODELS = {"mallows": MallowsMixture, "pl": PlackettLuceMixture}


def load(name: str):
    home = data_home()
    if name == "APA 1980":
        return read_rankings(home / "apa_1980/d_apa_orderings.csv", format="orderings", kind="top")
    return read_preflib(home / "apa_elections_1998_2009/00028-00000001.soi")


def _old_refit_alternative(alt, data, seed, n_fresh, fit_null):
    """The K refit of a replicate before the nested starts (for ``--compare``)."""
    return _refit(alt, data, seed, True, n_fresh, warm=fit_null)


def compare(n_boot: int, repeats: int) -> list[str]:
    """Old and new refit rule on APA 1980, MallowsMixture, K = 2..5, interleaved."""
    R = load("APA 1980")
    sel = select_k(MallowsMixture(random_state=0), R, ks=range(1, 6))
    new_rule = lrt._refit_alternative
    rules = {"before (no nested starts)": _old_refit_alternative, "nested starts": new_rule}
    rows = []
    for k in range(2, 6):
        times = {name: [] for name in rules}
        result = {}
        for _ in range(repeats):
            for name, rule in rules.items():
                lrt._refit_alternative = rule
                t0 = time.perf_counter()
                result[name] = bootstrap_lrt(
                    MallowsMixture(random_state=0), R, k, n_boot=n_boot, random_state=0,
                    n_jobs=1, fitted=(sel.estimators[k - 1], sel.estimators[k]),
                )  # fmt: skip
                times[name].append(time.perf_counter() - t0)
        lrt._refit_alternative = new_rule
        for name in rules:
            res = result[name]
            rows.append([f"{k} vs {k - 1}", name, res.n_negative,
                         f"{np.median(res.null_statistics):.2f}",
                         f"{np.quantile(res.null_statistics, 0.95):.2f}",
                         f"{np.median(times[name]):.1f}"])  # fmt: skip
        ratio = np.median(times["nested starts"]) / np.median(times["before (no nested starts)"])
        rows.append([f"{k} vs {k - 1}", "time ratio new / old", "", "", "", f"{ratio:.2f}"])
        print(rows[-3:], flush=True)
    return [
        "## The refit rule before and after the nested starts (APA 1980, MallowsMixture)",
        "",
        f"`--compare --compare-boot {n_boot} --repeats {repeats}`: both rules in one process, interleaved, n_jobs=1, "
        f"{n_boot} replicates, same seeds; 'negative' as above, then the median and 95 % "
        "quantile of the null statistics (after setting negative ones to 0) and the median "
        "wall time per test (seconds; the fits on the data are shared, so this is the replicates).",
        "",
        *md_table(["test", "rule", "negative", "median LR_b", "95 % LR_b", "seconds"], rows),
        "",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-boot", type=int, default=99)
    ap.add_argument("--models", default="mallows,pl")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--compare", action="store_true", help="old against new refit rule")
    ap.add_argument("--compare-boot", type=int, default=39, help="replicates in --compare")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    limit_threads(1)
    warnings.simplefilter("ignore")
    rows = []
    start = time.perf_counter()
    for data in ("APA 1980", "APA 1998"):
        R = load(data)
        for key in args.models.split(","):
            cls = MODELS[key]
            sel = select_k(cls(random_state=0), R, ks=range(1, 6))
            for k in range(2, 6):
                t0 = time.perf_counter()
                res = bootstrap_lrt(
                    cls(random_state=0), R, k, n_boot=args.n_boot, random_state=0,
                    n_jobs=args.n_jobs, fitted=(sel.estimators[k - 1], sel.estimators[k]),
                )  # fmt: skip
                rows.append([data, cls.__name__, f"{k} vs {k - 1}", f"{res.statistic:.1f}",
                             f"{res.p_value:.3f}", "reject" if res.reject() else "keep K-1",
                             res.n_negative, f"{time.perf_counter() - t0:.0f}"])  # fmt: skip
                print(rows[-1], flush=True)
            rows.append([data, cls.__name__, "BIC chooses", sel.best_k, "", "", "", ""])
    wall = time.perf_counter() - start
    lines = [
        "# Bootstrap LRT of K against K - 1 on the APA ballots",
        "",
        f"Generated by `experiments/studies/bootstrap_lrt_apa.py --n-boot {args.n_boot} "
        f"--models {args.models} --n-jobs {args.n_jobs}`, {platform_line()}; wall time "
        f"{wall:.0f} s. Fits of `select_k` (random_state=0), {args.n_boot} replicates per test; "
        "'negative': replicates whose K refit ended below their K - 1 refit by more than "
        "EM's stopping tolerance (LR_b < -2 tol N; every negative LR_b is set to 0).",
        "",
        *md_table(
            ["data", "mixture", "test", "LR", "p", "verdict at 5 %", "negative", "seconds"],
            rows,
        ),
        "",
        f"With {args.n_boot} replicates the smallest possible p-value is "
        f"{1 / (args.n_boot + 1):.3f}.",
        "Every test rejects K - 1 up to K = 5, in line with BIC (which also chooses the "
        "largest K tried): with 15-19 thousand ballots even small departures from a "
        "(K - 1)-mixture are detected, so the test answers 'is there more structure?', not "
        "'how many blocs matter?'.",
        "",
        "Before the nested starts (each replicate's K refit now also runs EM from its own "
        "K - 1 fit with one component split in two, see `bootstrap_lrt`), the same run "
        "counted, for the Mallows mixture, 69, 15, 10, 12 negative replicates of 99 (APA "
        "1980, K = 2..5) and 51, 45, 49, 35 (APA 1998), and up to 3 for the Plackett-Luce "
        "mixture: EM over discrete centres from a split component often stopped at a local "
        "optimum below the nested one, which biased the null statistics down (a liberal "
        "test).",
        "",
    ]
    if args.compare:
        lines += compare(args.compare_boot, args.repeats)
    write_report(OUT, lines, final_newline=False)


if __name__ == "__main__":
    main()
