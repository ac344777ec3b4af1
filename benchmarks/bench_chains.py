"""Benchmarks for rankclust.cluster (Ukkonen 2011): speed against peers and against the paper.

1. ``ChainKMeans`` against scikit-learn ``KMeans`` on the hypersphere embedding of the same
   chains (both Lloyd, random init, one thread): time, iterations, time per iteration, ARI.
2. Swap sampler throughput on SUSHI and DUBLIN (10^7 swaps) against the paper's
   10^7 swaps in 297 s (SUSHI) and 73 s (DUBLIN).
3. ``ChainKMeans`` on 1,000,000 chains over 100 items (lengths 5-10): time per Lloyd iteration
   and peak memory.

Writes ``benchmarks/RESULTS_chains.md``. Usage: ``python benchmarks/bench_chains.py [--quick]``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import data_home, machine_line, markdown_table

from rankclust import Rankings
from rankclust.cluster import (
    ChainKMeans,
    SwapSampler,
    hypersphere_embedding,
    make_planted_chains,
)
from rankclust.cluster._base import chain_orders
from rankclust.cluster.chains import (
    _centroids_from_counts,
    _cost_tensor,
    _nb_assign_chains,
)

OUT = Path(__file__).resolve().parent / "RESULTS_chains.md"


def bench_vs_sklearn(n: int, repeat: int) -> str:
    rows = []
    for m, ell, k in ((100, 6, 6), (20, 5, 6), (100, 10, 10)):
        R, y = make_planted_chains(n, n_items=m, length=ell, n_clusters=k, random_state=0)
        t_emb = time.perf_counter()
        E = hypersphere_embedding(R)
        t_emb = time.perf_counter() - t_emb
        ChainKMeans(k, n_init=1, max_iter=2, random_state=0).fit(R[:50])  # compile kernels
        res = {}
        for name in ("rankclust", "sklearn"):
            best, n_iter, ari = np.inf, 0, 0.0
            for r in range(repeat):
                t = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    if name == "rankclust":
                        est = ChainKMeans(k, n_init=1, random_state=r).fit(R)
                    else:
                        est = KMeans(
                            k, init="random", n_init=1, algorithm="lloyd", random_state=r
                        ).fit(E)
                dt = time.process_time() - t
                if dt < best:
                    best, n_iter = dt, est.n_iter_
                    ari = adjusted_rand_score(y, est.labels_)
            res[name] = (best, n_iter, ari)
        (tc, ic, ac), (ts, is_, as_) = res["rankclust"], res["sklearn"]
        rows.append(
            [
                f"n={n}, m={m}, l={ell}, K={k}",
                f"{tc:.3f} s / {ic} it = {1e3 * tc / ic:.1f} ms",
                f"{ac:.3f}",
                f"{ts:.3f} s / {is_} it = {1e3 * ts / is_:.1f} ms (+{t_emb:.3f} s embedding)",
                f"{as_:.3f}",
                f"{tc / ts:.2f}",
                f"{(tc / ic) / (ts / is_):.2f}",
            ]
        )
        print(rows[-1], flush=True)
    return markdown_table(
        [
            "data (planted)",
            "ChainKMeans (random partition)",
            "ARI",
            "sklearn KMeans on HS (Forgy)",
            "ARI",
            "time ratio",
            "per-iteration ratio",
        ],
        rows,
    )


def load_sushi() -> Rankings | None:
    path = data_home() / "sushi3" / "sushi3b.5000.10.order"
    if not path.exists():
        return None
    try:
        from rankclust.io.sushi import read_sushi_order

        return read_sushi_order(path).with_kind("subset")
    except ImportError:
        lines = [ln for ln in path.read_text().split("\n")[1:] if ln.strip()]
        return Rankings.from_orderings(
            [[int(x) for x in ln.split()[2:]] for ln in lines], n_items=100
        )


def load_dublin() -> Rankings | None:
    path = data_home() / "irish_election_2002" / "00001-00000001.soi"
    if not path.exists():
        return None
    try:
        from rankclust.io.preflib import read_preflib

        R = read_preflib(path).with_kind("subset").expand()
    except ImportError:
        orders = []
        for line in path.read_text().splitlines():
            if line.startswith("#") or ":" not in line:
                continue
            c, rest = line.split(":", 1)
            orders += [[int(x) - 1 for x in rest.split(",")]] * int(c)
        R = Rankings.from_orderings(orders, n_items=12)
    keep = np.flatnonzero((R.lengths >= 4) & (R.lengths <= 6))
    pick = np.sort(np.random.RandomState(2011).choice(keep, size=5000, replace=False))
    return R[pick]


def bench_sampler(n_swaps: int) -> str:
    rows = []
    paper = {"SUSHI": 297.0, "DUBLIN": 73.0}
    for name, loader in (("SUSHI", load_sushi), ("DUBLIN", load_dublin)):
        R = loader()
        if R is None:
            rows.append([name, "data missing", "", "", "", "", ""])
            continue
        s = SwapSampler(R, random_state=0).run(1000)  # compile and warm up
        t, c = time.perf_counter(), time.process_time()
        s.run(n_swaps)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        rate_paper = 1e7 / paper[name]
        rows.append(
            [
                f"{name} (n={R.n_rankings}, m={R.n_items})",
                f"{n_swaps:.0e}",
                f"{wall:.2f} / {cpu:.2f}",
                f"{n_swaps / wall:,.0f} / {n_swaps / cpu:,.0f}",
                f"{rate_paper:,.0f}",
                f"{n_swaps / wall / rate_paper:.0f}x / {n_swaps / cpu / rate_paper:.0f}x",
                f"{s.n_accepted_ / s.n_steps_:.4f}",
            ]
        )
        print(rows[-1], flush=True)
    return markdown_table(
        [
            "data",
            "swaps",
            "wall / CPU s",
            "swaps/s wall / CPU",
            "paper swaps/s",
            "speed-up wall / CPU (target >= 20x)",
            "acceptance",
        ],
        rows,
    )


class _Clock:
    """Wall and CPU seconds of a block."""

    def __enter__(self) -> _Clock:
        self.t, self.c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.t
        self.cpu = time.process_time() - self.c

    def __str__(self) -> str:
        return f"{self.wall:.2f} s wall / {self.cpu:.2f} s CPU"


def bench_million(n: int, K: int, n_iter: int) -> str:
    ChainKMeans(K, n_init=1, max_iter=2).fit(make_planted_chains(100, random_state=0)[0])
    with _Clock() as gen:
        R, y = make_planted_chains(n, n_items=100, length=(5, 10), n_clusters=K, random_state=0)
    rss_data = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # the two steps of one iteration, timed separately (best CPU time of 3)
    labels = np.random.RandomState(0).randint(K, size=n).astype(np.int64)
    with _Clock() as t_orders:
        orders, lengths = chain_orders(R)
    counts, assign = [], []
    for _ in range(3):
        with _Clock() as tc:
            X = _centroids_from_counts(R.pairwise_counts(labels=labels, n_groups=K))
        new, dist = np.empty(n, dtype=np.int64), np.empty(n)
        with _Clock() as ta:
            _nb_assign_chains(orders, lengths, _cost_tensor(X), labels, new, dist)
        counts.append(tc)
        assign.append(ta)
    tc = min(counts, key=lambda c: c.cpu)
    ta = min(assign, key=lambda c: c.cpu)
    # the whole estimator, a fixed number of iterations
    tracemalloc.start()
    with _Clock() as fit, warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = ChainKMeans(K, n_init=1, max_iter=n_iter, tol=0.0, random_state=0).fit(R)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    it = km.n_iter_
    rows = [
        ["generate the chains (make_planted_chains)", str(gen)],
        ["compact orders (once per fit)", str(t_orders)],
        ["pair counts + centroids (one iteration)", str(tc)],
        ["assignment kernel (one iteration)", str(ta)],
        [f"ChainKMeans.fit, {it} iterations from a random partition", str(fit)],
        [
            "**time per Lloyd iteration** (fit / iterations)",
            f"**{fit.wall / it:.2f} s wall / {fit.cpu / it:.2f} s CPU**",
        ],
        ["peak numpy allocations during fit (tracemalloc)", f"{peak / 2**20:.0f} MiB"],
        ["rank matrix of the data (n x m int64)", f"{R.ranks.nbytes / 2**20:.0f} MiB"],
        ["process max RSS after generating the data", f"{rss_data:.0f} MiB"],
        ["process max RSS after the fit", f"{rss:.0f} MiB"],
        ["ARI to the planted clusters", f"{adjusted_rand_score(y, km.labels_):.3f}"],
    ]
    print(rows, flush=True)
    return (
        f"n = {n:,} chains, m = 100 items, lengths uniform in 5..10, K = {K}, "
        f"`max_iter={n_iter}, tol=0`.\n\n" + markdown_table(["step", "measured"], rows)
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    args = p.parse_args()
    n_cmp, repeat, swaps, n_big = (
        (2000, 1, 10**5, 50_000) if args.quick else (20000, 3, 10**7, 10**6)
    )
    with threadpool_limits(1):
        body = [
            f"Measured {time.strftime('%Y-%m-%d %H:%M')} on {machine_line()}; the machine is "
            "shared with other jobs, so wall times are pessimistic (CPU times are given where "
            "they matter). Command: `python benchmarks/bench_chains.py"
            + (" --quick" if args.quick else "")
            + "`.",
            "### ChainKMeans vs scikit-learn KMeans on the hypersphere embedding (1 thread)",
            bench_vs_sklearn(n_cmp, repeat),
            "CPU times (process_time; both single-threaded). Time ratio = rankclust / "
            "scikit-learn, best of "
            f"{repeat} runs with different seeds; scikit-learn's time excludes the embedding.",
            "### Swap sampler throughput (Algorithm 2, incremental bookkeeping)",
            bench_sampler(swaps),
            "Paper: 10^7 swaps in 297 s (SUSHI) and 73 s (DUBLIN), hardware not stated.",
            "### ChainKMeans on 1,000,000 chains (target < 5 s per Lloyd iteration)",
            bench_million(n_big, 10, 5),
        ]
    text = "# rankclust.cluster chains benchmarks\n\n" + "\n\n".join(body) + "\n"
    OUT.write_text(text)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
