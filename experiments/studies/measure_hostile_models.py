"""Before/after table of the hostile model files of issue #16 (docs/reliability.md).

Builds every reproducer (``tests/reliability/_hostile_models.py``) in a scratch directory and
loads each -- and predicts, where the damage came at prediction -- in a fresh interpreter
under ``RLIMIT_AS`` (2 GiB; 6 GiB for the memory bombs), once per rankclust source tree given.
Reports the outcome, side effects, peak resident memory of that interpreter (``ru_maxrss``
from ``os.wait4``, taken from a small launcher so the measuring process's own memory does not
leak into it) and the wall time (interpreter start included, about 0.3-1.5 s).

Run from the repository root::

    git worktree add /tmp/base 5dd8667
    .venv/bin/python experiments/studies/measure_hostile_models.py /tmp/base/src src

The code-execution reproducers only ``touch`` a file and truncate a victim file inside the
scratch directory.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from tests.reliability._hostile_models import build_cases, run_case


def _outcome(report: dict) -> str:
    if report["signal"]:
        return f"killed by {report['signal']}"
    effects = []
    if report["marker_created"]:
        effects.append("command ran")
    if report["victim_changed"]:
        effects.append("file truncated")
    if report.get("main_imported"):
        effects.append("CLI ran")
    if report["outcome"] == "ok":
        predicted = report.get("predicted")
        what = "loaded" if predicted is None else f"predicted clusters {predicted}"
        return ", ".join([what, *effects])
    message = report.get("message") or ""
    if report["outcome"] == "ValueError":
        message = message.split(": ", 1)[1] if ": " in message else message
    return ", ".join([f"{report['outcome']}: {message[:90]}", *effects])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", nargs="+", type=Path, help="rankclust source trees (…/src)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for src in args.src:
            cases = build_cases(Path(tmp) / src.resolve().parent.name)
            for case in cases:
                report = run_case(case, src=src)
                rows.append((case.name, str(src), _outcome(report), report))
        print("| reproducer | tree | outcome | peak RSS (MB) | time (s) |")
        print("|---|---|---|---|---|")
        for name, src, outcome, report in sorted(rows, key=lambda r: r[0]):
            print(
                f"| {name} | {src} | {outcome} | {report['maxrss_mb']:.0f} | "
                f"{report['seconds']:.2f} |"
            )


if __name__ == "__main__":
    main()
