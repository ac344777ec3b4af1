"""Run every ``benchmarks/bench_*.py`` script in turn (``make bench``).

Each script runs rankclust and its peer in the same process on the same data, prints its table
and updates its own section of ``benchmarks/RESULTS.md``. Scripts that time scikit-lr (which needs
Python >= 3.13) take ``--peers-python`` and run the peer there on the same folds.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peers-python", default=None, help="Python with scikit-lr installed")
    parser.add_argument("--only", nargs="*", default=None, help="substrings of script names")
    args = parser.parse_args()
    failures = []
    for script in sorted(HERE.glob("bench_*.py")):
        if args.only and not any(s in script.name for s in args.only):
            continue
        cmd = [sys.executable, str(script)]
        source = script.read_text()
        if args.peers_python and "--peers-python" in source:
            cmd += ["--peers-python", args.peers_python]
        print(f"== {script.name}", flush=True)
        if subprocess.run(cmd, check=False).returncode != 0:
            failures.append(script.name)
    if failures:
        print("failed:", ", ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
