"""Mallows mixtures under every registered distance: model choice and speed on real data.

1. ``--part apa``: APA 1980, the 5,738 complete ballots (5 candidates): ``select_model`` over
   every registered distance and
   K = 1..6 (``n_init`` starts per fit, warm starts from K - 1): BIC per distance and K in one
   table, the chosen model, seconds per fit.
2. ``--part apa-all``: the same on all 15,449 APA ballots (top-1, top-2, top-3 and complete):
   a partial ballot's likelihood under every distance is the exact sum over its completions.
3. ``--part sushi``: SUSHI A, 5,000 complete rankings of 10 sushis (read from the data home,
   ``RANKCLUST_DATA``; never copied into the repository): the same.
4. ``--part speed``: a Spearman-Mallows mixture with K = 5 and 10 starts on SUSHI A (target:
   at most 5 s), after one small fit that compiles the kernels; best and median of
   ``--reps`` runs, next to the same fit with Kendall.

Each part replaces its own section of ``benchmarks/RESULTS_mixture_distances.md``.
Usage: ``nice .venv/bin/python benchmarks/bench_mixture_distances.py
--part apa|apa-all|sushi|speed [--n-init N] [--ks 1..6] [--distances a,b] [--reps R]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import data_home, machine_line, markdown_table, update_results_section

os.environ.setdefault("RANKCLUST_DATA", str(data_home()))

from rankclust.cluster.mixture import MallowsMixture, select_model
from rankclust.datasets import fetch_apa, fetch_sushi
from rankclust.models.mallows import MALLOWS_DISTANCES

OUT = Path(__file__).resolve().parent / "RESULTS_mixture_distances.md"


def _data(name: str):
    if name == "apa":
        return fetch_apa(complete_only=True), "APA 1980, complete ballots (5 candidates)"
    if name == "apa-all":
        return fetch_apa(), (
            "APA 1980, all ballots (5 candidates; top-1, top-2, top-3 and complete; a partial "
            "ballot's likelihood is the exact sum over its completions)"
        )
    return fetch_sushi("A"), "SUSHI A (5,000 complete rankings of 10 sushis)"


def _selection(part: str, ks: list[int], distances: list[str], n_init: int, seed: int) -> str:
    R, title = _data(part)
    n, m = R.shape
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        MallowsMixture(n_components=2, n_init=1, random_state=0).fit(R.unique()[0][:50])
        res = select_model(
            MallowsMixture(n_init=n_init, random_state=seed), R, ks=ks, distances=distances
        )
    wall = time.perf_counter() - t0
    cells = {(r["distance"], r["k"]): r for r in res.table}
    bic_rows = [
        [d]
        + [
            f"{cells[d, k]['bic']:.1f}"
            + (" *" if (d, k) == (res.best_distance, res.best_k) else "")
            for k in ks
        ]
        for d in distances
    ]
    time_rows = [[d] + [f"{cells[d, k]['seconds']:.2f}" for k in ks] for d in distances]
    best = res.best_estimator
    centers = best.centers_.to_orderings()
    lines = [
        f"{title}: n = {n} rankings (total weight {R.weights.sum():g}), m = {m} items; "
        f"`select_model(MallowsMixture(n_init={n_init}, random_state={seed}), R, "
        f"ks={ks}, distances={distances})`. {datetime.now():%Y-%m-%d %H:%M}, {machine_line()}.",
        "",
        "BIC per distance and K (lower is better; * the chosen model):",
        "",
        markdown_table(["distance", *(f"K={k}" for k in ks)], bic_rows),
        "",
        "Seconds per fit (each K also starts from the K - 1 fit):",
        "",
        markdown_table(["distance", *(f"K={k}" for k in ks)], time_rows),
        "",
        f"Chosen by BIC: **distance = {res.best_distance}, K = {res.best_k}** "
        f"(log-likelihood {best.log_likelihood_:.1f}). Its components (weight, theta, centre "
        "best first, items 0-based):",
        "",
    ]
    for w, th, c in zip(best.weights_, best.thetas_, centers, strict=True):
        lines.append(f"* {w:.3f}, theta {th:.3f}: {c}")
    by_d = ", ".join(
        f"{d}: K={r.best_k} (BIC {min(x['bic'] for x in r.table):.1f})"
        for d, r in res.by_distance.items()
    )
    lines += ["", f"Best K per distance: {by_d}.", f"Wall time of the whole run: {wall:.1f} s."]
    lines += [f"{note}" for note in res.notes]
    return "\n".join(lines)


def _speed(reps: int) -> str:
    R, title = _data("sushi")
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for distance in ("spearman", "kendall"):
            MallowsMixture(n_components=2, distance=distance, n_init=1, random_state=0).fit(R[:50])
            times, lls = [], []
            for rep in range(reps):
                t0 = time.perf_counter()
                mix = MallowsMixture(
                    n_components=5, distance=distance, n_init=10, random_state=rep
                ).fit(R)
                times.append(time.perf_counter() - t0)
                lls.append(mix.log_likelihood_)
            rows.append(
                [
                    distance,
                    f"{min(times):.2f}",
                    f"{statistics.median(times):.2f}",
                    f"{max(times):.2f}",
                    f"{max(lls):.1f}",
                    f"{min(lls):.1f}",
                ]
            )
    return "\n".join(
        [
            f"{title}: `MallowsMixture(n_components=5, distance=..., n_init=10, "
            f"random_state=r).fit(R)` for r = 0..{reps - 1}, after one small fit that compiles "
            f"the kernels. Target for Spearman: at most 5 s. {datetime.now():%Y-%m-%d %H:%M}, "
            f"{machine_line()}.",
            "",
            markdown_table(
                ["distance", "best s", "median s", "worst s", "best log-lik", "worst log-lik"],
                rows,
            ),
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["apa", "apa-all", "sushi", "speed"], required=True)
    ap.add_argument("--ks", default="1..6")
    ap.add_argument("--n-init", type=int, default=10)
    ap.add_argument("--distances", default=None, help="comma-separated (default: all)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    lo, _, hi = args.ks.partition("..")
    ks = list(range(int(lo), int(hi or lo) + 1))
    distances = args.distances.split(",") if args.distances else list(MALLOWS_DISTANCES)
    if args.part == "speed":
        heading, body = "Spearman-Mallows mixture, K = 5, 10 starts, SUSHI A", _speed(args.reps)
    else:
        name = {
            "apa": "APA 1980 (complete ballots)",
            "apa-all": "APA 1980 (all ballots)",
            "sushi": "SUSHI A",
        }[args.part]
        heading = f"Model choice over distances and K: {name}"
        body = _selection(args.part, ks, distances, args.n_init, args.seed)
    cmd = "nice -n 10 .venv/bin/python benchmarks/bench_mixture_distances.py " + " ".join(
        sys.argv[1:]
    )
    body = f"Command: `{cmd}`\n\n{body}"
    if not OUT.exists():
        OUT.write_text(
            "# Mallows mixtures under every distance\n\n"
            "Written by `benchmarks/bench_mixture_distances.py` (one section per part).\n"
        )
    update_results_section(heading, body, OUT)
    print(f"## {heading}\n\n{body}")


if __name__ == "__main__":
    main()
