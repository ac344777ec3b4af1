"""Wall-clock timings of the consensus rules (best of 5 after a warm-up call).

Run: ``.venv/bin/python benchmarks/consensus_timing.py``. Data: ``n`` uniformly random complete
rankings (the hardest case for local search) and "near-consensus" rankings (3m random adjacent
swaps of the identity), summarised by ``Rankings.pairwise_counts``.
"""

from __future__ import annotations

import time

import numpy as np

from rankclust import Rankings
from rankclust.consensus import borda, kemeny_cost, kemeny_exact, kemeny_local_search


def best_time(f, *args, reps=5, **kwargs):
    f(*args, **kwargs)  # warm-up: numba compile or cache load
    best = np.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        f(*args, **kwargs)
        best = min(best, time.perf_counter() - t0)
    return best


def uniform(rng, n, m):
    return Rankings(np.argsort(rng.random((n, m)), axis=1))


def near_consensus(rng, n, m):
    ranks = np.empty((n, m), dtype=np.int64)
    for i in range(n):
        order = np.arange(m)
        for p in rng.integers(m - 1, size=3 * m):
            order[[p, p + 1]] = order[[p + 1, p]]
        ranks[i, order] = np.arange(m)
    return Rankings(ranks)


def main():
    rng = np.random.default_rng(0)
    print("| rule | m | data | time (ms) | cost (Borda -> result) |")
    print("|---|---|---|---|---|")
    for m in (10, 12, 15):
        C = uniform(rng, 200, m).pairwise_counts()
        for name, f in (
            ("kemeny_exact", kemeny_exact),
            ("kemeny_local_search", kemeny_local_search),
        ):
            cost = kemeny_cost(C, f(C))
            print(
                f"| {name} | {m} | uniform n=200 | {best_time(f, C) * 1e3:.3f} | "
                f"{kemeny_cost(C, borda(C)):.0f} -> {cost:.0f} |"
            )
    for m in (100, 300):
        for label, R in (
            ("uniform n=500", uniform(rng, 500, m)),
            ("near-consensus n=500", near_consensus(rng, 500, m)),
        ):
            C = R.pairwise_counts()
            for moves in ("insertion", "adjacent"):
                cost = kemeny_local_search(C, moves=moves, return_cost=True)[1]
                t = best_time(kemeny_local_search, C, moves=moves)
                print(
                    f"| local ({moves}) | {m} | {label} | {t * 1e3:.3f} | "
                    f"{kemeny_cost(C, borda(C)):.0f} -> {cost:.0f} |"
                )


if __name__ == "__main__":
    main()
