"""Memory of the rank matrix: compact storage against int64 (issue 21, "compact storage").

Chains over 50 items (lengths 5-10) from the planted bucket-order generator of Ukkonen (2011)
are written once to a ``.npy`` file of 1-based ranks (int8, the format of
:meth:`Rankings.from_ranks`). Then, for each source tree given with ``--tree`` (for example the
commit before compact storage and this one), a fresh interpreter with that tree first on its
path

1. loads the file and builds ``Rankings.from_ranks(...)``      -> peak resident after build;
2. fits ``ChainKMeans(n_clusters=5, init="random_partition", n_init=1, max_iter=ITERS,
   tol=0)`` on it                                               -> peak resident after fit.

Peak resident memory is ``ru_maxrss`` of the child process (its high-water mark; Linux carries
the parent's over a fork, so the parent does nothing but start children). The file is read with
``np.load`` (into memory, ``n * m`` bytes), as a user would.

``--speed`` times, in ONE process and interleaved, the kernels that read the rank matrix on
the same data stored int64 (forced with the private ``rankclust.rankings._force_rank_dtype``,
i.e. the storage before this change) and compact: the pair-count pass with hard labels (the
centroid step of ChainKMeans and of every hard clusterer), the compact orderings of
``chain_orders``, one whole Lloyd iteration of ChainKMeans, and ``Rankings.unique``. Medians of
``--repeats`` runs after one warm-up (so no compilation is timed) and the ratio
compact / int64.

Usage::

    python benchmarks/bench_memory.py --n 10000000 --tree OLD_SRC --tree NEW_SRC
    python benchmarks/bench_memory.py --speed --n 1000000 --repeats 7
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

N_ITEMS = 50
LENGTHS = (5, 10)
K = 5


def _maxrss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux


def generate(path: Path, n: int, seed: int = 0) -> None:
    """Write n planted chains as 1-based int8 ranks (0 = absent), in blocks of 1e6 rows."""
    from rankclust.cluster import make_planted_chains

    R, _ = make_planted_chains(n, n_items=N_ITEMS, length=LENGTHS, n_clusters=K, random_state=seed)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.int8, shape=(n, N_ITEMS))
    step = 1_000_000
    for a in range(0, n, step):
        out[a : a + step] = np.asarray(R.ranks[a : a + step], dtype=np.int64) + 1
    out.flush()


def child(path: Path, iters: int) -> dict:
    """Build and fit in this (fresh) process; peak RSS after each step."""
    import warnings

    from rankclust import Rankings
    from rankclust.cluster import ChainKMeans

    out = {"rss_start_gib": _maxrss_gib()}
    t = time.perf_counter()
    R = Rankings.from_ranks(np.load(path))
    out["build_s"] = time.perf_counter() - t
    out["dtype"] = str(R.ranks.dtype)
    out["matrix_gib"] = R.ranks.nbytes / 2**30
    out["rss_build_gib"] = _maxrss_gib()
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = ChainKMeans(
            n_clusters=K, init="random_partition", n_init=1, max_iter=iters, tol=0.0,
            random_state=0,
        ).fit(R)  # fmt: skip
    out["fit_s"] = time.perf_counter() - t
    out["n_iter"] = int(est.n_iter_)
    out["objective"] = float(est.objective_)
    out["rss_fit_gib"] = _maxrss_gib()
    return out


def _median_time(fn, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def speed(n: int, repeats: int, with_unique: bool = True) -> dict:
    """Kernels on int64 against compact storage, interleaved in this process."""
    from rankclust import Rankings
    from rankclust.cluster import ChainKMeans, make_planted_chains
    from rankclust.cluster._base import chain_orders
    from rankclust.cluster.chains import _nb_assign_chains
    from rankclust.rankings import _force_rank_dtype

    R0, _ = make_planted_chains(n, n_items=N_ITEMS, length=LENGTHS, n_clusters=K, random_state=0)
    raw = np.asarray(R0.ranks, dtype=np.int64)
    with _force_rank_dtype(np.int64):
        R64 = Rankings(raw)
    R8 = Rankings(raw)
    assert R64.ranks.dtype == np.int64 and R8.ranks.dtype == np.int8
    labels = np.random.default_rng(0).integers(0, K, n)

    def lloyd(R):
        return lambda: ChainKMeans(
            n_clusters=K, init="random_partition", n_init=1, max_iter=1, tol=0.0, random_state=0
        ).fit(R)

    cost = np.random.default_rng(1).random((N_ITEMS, N_ITEMS, K))
    prev = np.full(n, -1, dtype=np.int64)

    def assign(R):
        orders, lengths = chain_orders(R)
        if R.ranks.dtype == np.int64:
            orders = orders.astype(np.int32)  # the type chain_orders had before
        new, dist = np.empty(n, dtype=np.int64), np.empty(n)
        return lambda: _nb_assign_chains(orders, lengths, cost, prev, new, dist)

    cases = {
        "pairwise_counts(labels=...)": lambda R: (
            lambda: R.pairwise_counts(labels=labels, n_groups=K)
        ),
        "chain_orders": lambda R: lambda: chain_orders(R),
        "ChainKMeans fit, 1 Lloyd iteration": lloyd,
        "assignment kernel (orders int32 before, compact now)": assign,
    }
    if with_unique:
        cases["Rankings.unique"] = lambda R: lambda: R.unique()
    out = {}
    for name, make in cases.items():
        f64, f8 = make(R64), make(R8)
        f64(), f8()  # warm-up: compile both specialisations
        t64, t8 = [], []
        for _ in range(repeats):  # interleaved
            t64 += _median_time(f64, 1)
            t8 += _median_time(f8, 1)
        m64, m8 = statistics.median(t64), statistics.median(t8)
        out[name] = {"int64_s": m64, "compact_s": m8, "ratio": m8 / m64}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--tree", action="append", default=[], help="a src/ directory to measure")
    ap.add_argument("--data", type=Path, default=None, help="cache of the generated .npy")
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--no-unique", action="store_true", help="skip the slow Rankings.unique")
    ap.add_argument("--child", type=Path, default=None)
    ap.add_argument("--generate", action="store_true", help="only write the data file")
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.iters)))
        return
    if args.speed:
        print(json.dumps(speed(args.n, args.repeats, not args.no_unique), indent=1))
        return
    path = args.data or Path(f"/tmp/rankclust_chains_{args.n}.npy")
    if not path.exists():  # in a child: this process stays small (children inherit its peak)
        code = "import sys; from pathlib import Path; import bench_memory as b; "
        code += f"b.generate(Path({str(path)!r}), {args.n})"
        subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent)
    results = {}
    for tree in args.tree:
        env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
        cmd = [sys.executable, __file__, "--child", str(path), "--iters", str(args.iters)]
        res = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
        results[tree] = json.loads(res.stdout.strip().splitlines()[-1])
        print(tree, results[tree], file=sys.stderr)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
