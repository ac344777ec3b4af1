"""Mallows models beyond Kendall: normaliser speed, the Spearman table against BayesMallows /
MSmix, and one-component fits on APA 1980 and SUSHI A for every registered distance.

    PYTHONPATH=src RANKCLUST_DATA=../shared/data python benchmarks/bench_mallows_distances.py

Writes ``benchmarks/RESULTS_mallows_distances.md``. With ``BAYESMALLOWS_SYSDATA`` pointing at
BayesMallows' ``R/sysdata.rda`` (the exact Spearman distance frequencies for n <= 20, OEIS
A175929, that MSmix's ``spear_dist_distr`` and ``partition_fun_spear`` read through
``BayesMallows::get_cardinalities``), the shipped table is compared with it value by value:
every row, written as big-endian doubles, must occur verbatim in the decompressed file.
"""

from __future__ import annotations

import bz2
import math
import os
import time
from pathlib import Path

import numpy as np
from _common import best_of, data_home, machine_line, markdown_table

from rankclust.datasets import fetch_apa, fetch_sushi
from rankclust.models import Mallows
from rankclust.models import _mallows_footrule as footrule
from rankclust.models import _mallows_spearman as spearman
from rankclust.models._mallows_distances import MALLOWS_DISTANCES

OUT = Path(__file__).resolve().parent / "RESULTS_mallows_distances.md"


def cold_and_warm(name: str, m: int, theta: float = 0.1) -> tuple[float, float]:
    family = MALLOWS_DISTANCES[name]
    t0 = time.perf_counter()
    family.log_normalizer(theta, m)
    cold = time.perf_counter() - t0
    # a new theta every repetition (the approximation caches its draws per theta)
    thetas = iter(theta * (1.0 + 0.01 * np.arange(1, 6)))
    warm, _ = best_of(lambda: family.log_normalizer(next(thetas), m), repeat=5)
    return cold, warm


def normaliser_section() -> str:
    spearman._shipped_counts.cache_clear()
    spearman.distance_distribution.cache_clear()
    spearman._bethe.cache_clear()
    footrule._completion_table.cache_clear()
    footrule.distance_distribution.cache_clear()
    rows = []
    for name, m, how in (
        ("spearman", 20, "exact (shipped table)"),
        ("footrule", 50, "exact (DP, float log-counts)"),
        ("footrule", 100, "exact (DP, float log-counts)"),
        ("kendall", 50, "closed form"),
        ("spearman", 25, "Bethe-corrected extrapolation"),
        ("spearman", 50, "Bethe-corrected extrapolation"),
    ):
        cold, warm = cold_and_warm(name, m)
        rows.append([name, m, how, f"{1e3 * cold:.2f}", f"{1e3 * warm:.3f}"])
    table = markdown_table(
        ["distance", "m", "method", "first call (ms)", "warm, best of 5 (ms)"], rows
    )
    return "## Normaliser log Z_m(theta)\n\n" + table + "\n"


def msmix_section() -> str:
    path = os.environ.get("BAYESMALLOWS_SYSDATA")
    lines = ["## Spearman distance frequencies against BayesMallows / MSmix\n"]
    if not path:
        lines.append("Not run (set BAYESMALLOWS_SYSDATA to BayesMallows' R/sysdata.rda).\n")
        return "\n".join(lines)
    blob = bz2.decompress(Path(path).read_bytes())
    found = []
    for m in range(3, spearman.EXACT_MAX_ITEMS + 1):
        row = spearman.exact_half_distance_counts(m)
        as_doubles = np.array([float(int(x)) for x in row], dtype=">f8").tobytes()
        found.append((m, len(row), blob.find(as_doubles) >= 0))
    ok = all(f for _, _, f in found)
    lines.append(
        f"{sum(f for _, _, f in found)} of {len(found)} rows (m = 3..20) of "
        "`src/rankclust/models/data/spearman_counts.txt` occur verbatim (as the doubles R "
        "stores) in BayesMallows' `R/sysdata.rda`, the OEIS A175929 frequencies that MSmix's "
        "`spear_dist_distr` / `partition_fun_spear` use for n <= 20"
        + (": identical tables, hence identical partition functions." if ok else ".")
    )
    lines.append("")
    return "\n".join(lines)


def fits_section() -> str:
    os.environ.setdefault("RANKCLUST_DATA", str(data_home()))
    out = ["## One-component fits on real data\n"]
    for label, R in (("APA 1980 (top-t, n = 15449, m = 5)", fetch_apa()),
                     ("SUSHI A (complete, n = 5000, m = 10)", fetch_sushi("A"))):  # fmt: skip
        rows = []
        n = R.n_rankings
        for name in MALLOWS_DISTANCES:
            secs, model = best_of(lambda name=name, R=R: Mallows(distance=name).fit(R), repeat=3)
            ll = float(R.weights @ model.logpdf(R))
            bic = -2 * ll + math.log(n)  # one continuous parameter; the centre is discrete
            rows.append(
                [name, " ".join(map(str, np.argsort(model.center_))), f"{model.theta_:.4f}",
                 f"{ll:.1f}", f"{bic:.1f}", model.n_iter_, f"{secs:.3f}"]
            )  # fmt: skip
        out.append(f"### {label}\n")
        out.append(
            markdown_table(
                [
                    "distance",
                    "centre (best first)",
                    "theta",
                    "log-lik",
                    "BIC",
                    "EM iter",
                    "fit (s)",
                ],
                rows,
            )
        )
        out.append("")
    return "\n".join(out)


def main() -> None:
    body = [
        "# Mallows distance families\n",
        f"Measured on {machine_line()}.\n",
        normaliser_section(),
        msmix_section(),
        fits_section(),
    ]
    OUT.write_text("\n".join(body))
    print(OUT.read_text())


if __name__ == "__main__":
    main()
