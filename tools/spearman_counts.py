"""Write src/rankclust/models/data/spearman_counts.txt: the exact Spearman distance counts.

Line ``m: N_m(0) N_m(2) N_m(4) ... N_m((m^3-m)/3)`` holds the number of permutations of
``m`` items at each (even) Spearman distance ``sum_p (sigma(p) - p)^2`` from the identity,
for m = 1..20, computed by the subset programme of
:mod:`rankclust.models._mallows_spearman` (int64, exact up to m = 20). Every row is checked to
sum to m!. Run once (about a minute and 1 GB of memory for m = 20):

    PYTHONPATH=src python tools/spearman_counts.py
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

from rankclust.models._mallows_spearman import EXACT_MAX_ITEMS, half_distance_counts

OUT = Path(__file__).resolve().parents[1] / "src/rankclust/models/data/spearman_counts.txt"


def main() -> None:
    lines = [
        "# Spearman distance counts: 'm: N_m(0) N_m(2) ... N_m((m^3-m)/3)' (index h = d/2);",
        "# written by tools/spearman_counts.py (exact integers; each row sums to m!).",
    ]
    for m in range(1, EXACT_MAX_ITEMS + 1):
        t0 = time.perf_counter()
        c = half_distance_counts(m)
        assert sum(int(x) for x in c) == math.factorial(m), m
        lines.append(f"{m}: " + " ".join(str(int(x)) for x in c))
        print(f"m = {m}: {len(c)} values, {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
