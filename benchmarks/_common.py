"""Small helpers shared by the ``bench_*.py`` scripts: timing, tables, RESULTS.md sections."""

from __future__ import annotations

import os
import platform
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "RESULTS.md"

#: The 16 semi-synthetic label-ranking sets of Cheng, Hühn and Hüllermeier (2009) (UCI
#: classification and regression sets turned into label rankings), as scikit-lr ships them.
SEMI_SYNTHETIC_SETS = [
    "authorship", "bodyfat", "calhousing", "cpu", "elevators", "fried", "glass", "housing",
    "iris", "pendigits", "segment", "stock", "vehicle", "vowel", "wine", "wisconsin",
]  # fmt: skip


def data_home() -> Path:
    """The data home: ``$RANKCLUST_DATA``, else ``../shared/data`` beside the repo, else
    ``~/rankclust_data``."""
    env = os.environ.get("RANKCLUST_DATA")
    if env:
        return Path(env).expanduser()
    shared = REPO.parent / "shared" / "data"
    return shared if shared.is_dir() else Path("~/rankclust_data").expanduser()


def best_of(fn: Callable[[], Any], repeat: int = 5) -> tuple[float, Any]:
    """Run ``fn()`` ``repeat`` times; return the fastest wall time (s) and the last result."""
    best = float("inf")
    result = None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured markdown table (cells formatted with ``str``)."""
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def machine_line() -> str:
    """One line describing where the numbers were measured."""
    import numpy as np

    cpus = os.cpu_count()
    try:
        load = f", load average {os.getloadavg()[0]:.1f}"
    except OSError:
        load = ""
    return (
        f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
        f"{cpus} CPUs{load}"
    )


def update_results_section(heading: str, body: str, path: Path = RESULTS) -> None:
    """Replace the ``## heading`` section of RESULTS.md with ``body`` (append if absent).

    Other sections are left as they are; the file is created when missing.
    """
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    section = f"## {heading}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(heading)}[ \t]*\n.*?(?=^## |\Z)", re.M | re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + section
    path.write_text(text)
