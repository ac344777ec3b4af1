"""Where the time of ``rankclust select-k`` on Irish Meath goes, for one source tree.

The CLI's work, K = 1..5, split into what a user waits for: the imports of a fresh process,
reading the 25,101 distinct ballots, and the fits, which are profiled (cProfile, one thread:
``RANKCLUST_NUM_THREADS=1``) and grouped by the kernel or step that spent the time. Run it
once per tree with that tree's ``src`` on ``PYTHONPATH`` to compare revisions (e.g. ``git
archive <rev> src | tar -x -C /tmp/before``); the same load hits both runs only when they
run back to back, so compare shares rather than totals on a busy machine.

Usage::

    RANKCLUST_DATA=../shared/data PYTHONPATH=src python benchmarks/profile_meath_select_k.py
"""

from __future__ import annotations

import os

os.environ["RANKCLUST_NUM_THREADS"] = "1"

import cProfile
import pstats
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("RANKCLUST_DATA", HERE.parents[1] / "shared" / "data"))
MEATH = DATA / "irish_election_2002" / "00001-00000003.soi"

#: (row of the table, function names whose own time it sums, or cumulative time of one name)
GROUPS = [
    ("Mallows log-likelihoods (E-step kernel)", ("_order_logliks",)),
    ("softmax (E-step kernel)", ("_responsibilities",)),
    ("pair counts (M-step kernel)", ("_order_counts",)),
]
CUMULATIVE = [
    ("dispersion Newton (`solve_thetas`)", "solve_thetas"),
    ("centre steps (`_center_step`)", "_center_step"),
    ("k-means++ seeding, its statistics included (`_seeds`)", "_seeds"),
]


def import_seconds() -> float:
    """Wall seconds to import what ``rankclust select-k`` imports, in a fresh process."""
    code = (
        "import time; t = time.perf_counter(); import rankclust.cli, rankclust.cluster; "
        "print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    from rankclust.cluster.mixture import MallowsMixture, select_k
    from rankclust.io import read_rankings

    imports = min(import_seconds() for _ in range(3))
    t = time.perf_counter()
    R = read_rankings(MEATH)
    read = time.perf_counter() - t
    MallowsMixture(n_components=2, n_init=1, random_state=0).fit(R)  # compiles / loads cache
    warnings.simplefilter("ignore")
    t = time.perf_counter()
    select_k(MallowsMixture(random_state=0), R, range(1, 6))
    fits = time.perf_counter() - t
    prof = cProfile.Profile()
    prof.runcall(select_k, MallowsMixture(random_state=0), R, range(1, 6))
    stats = pstats.Stats(prof).stats  # (file, line, name) -> (cc, nc, tottime, cumtime, callers)
    total = sum(v[2] for v in stats.values())

    def own(names):
        return sum(v[2] for key, v in stats.items() if key[2] in names)

    def cumulative(name):
        return max((v[3] for key, v in stats.items() if key[2] == name), default=0.0)

    n_estep = sum(v[1] for key, v in stats.items() if key[2] == "_responsibilities")
    print(f"source: {Path(sys.modules['rankclust'].__file__).parents[1]}")
    print(f"load average {os.getloadavg()[0]:.1f}; one thread\n")
    print("| step | seconds |\n|---|---|")
    print(f"| imports (fresh process, best of 3) | {imports:.2f} |")
    print(f"| reading the 25,101 distinct ballots | {read:.2f} |")
    print(f"| fits, K = 1..5 (no profiler) | {fits:.2f} |\n")
    print(f"Profiled fits: {total:.2f} s in all, {n_estep} E-steps\n")
    print("| where | seconds | share |\n|---|---|---|")
    rows = [(label, own(names)) for label, names in GROUPS]
    rows += [(label, cumulative(name)) for label, name in CUMULATIVE]
    for label, sec in rows:
        print(f"| {label} | {sec:.2f} | {sec / total:.0%} |")
    rest = total - sum(sec for _, sec in rows)
    print(f"| the rest (driver, numpy glue) | {rest:.2f} | {rest / total:.0%} |")


if __name__ == "__main__":
    main()
