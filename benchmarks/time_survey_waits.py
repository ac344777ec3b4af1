"""Wall and CPU times of the survey workloads of ``bench_mixture.py --surveys`` on the current
code only (no before side): a warm-up run compiles, then the best of two runs is printed as a
markdown row ``| workload | wall s | CPU s |``.

Usage: ``RANKCLUST_DATA=../shared/data python benchmarks/time_survey_waits.py``
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("RANKCLUST_DATA", str(HERE.parents[1] / "shared" / "data"))
sys.path.insert(0, str(HERE))

import bench_mixture  # noqa: E402 - a sibling script, importable once HERE is on the path


def main() -> None:
    for name, run in bench_mixture.survey_workloads():
        run(True)  # warm-up: compiles the kernels this workload needs
        walls, cpus = [], []
        for _ in range(2):
            wall, cpu = time.perf_counter(), time.process_time()
            run(True)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        print(f"| {name} | {min(walls):.1f} | {min(cpus):.1f} |", flush=True)


if __name__ == "__main__":
    main()
