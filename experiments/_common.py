"""What every experiment script needs: where things are, one thread, tables and JSON.

The scripts live one folder below ``experiments/`` (one folder per paper, plus ``studies/``)
and import this module after putting ``experiments/`` on ``sys.path``::

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _common import ...

Each folder keeps the tables and figures people read in ``results/`` and the stored runs the
tables are rendered from in ``results/raw/`` (with a README.md saying which command made which
file).
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the repository root (``experiments/`` is one level below it)
REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Paths:
    """The folders of one experiment script: its own, ``results/`` and ``results/raw/``."""

    here: Path
    results: Path
    raw: Path


def paths(script: str | Path) -> Paths:
    """Folders of the script at ``script`` (pass ``__file__``)."""
    here = Path(script).resolve().parent
    return Paths(here=here, results=here / "results", raw=here / "results" / "raw")


def data_home() -> Path:
    """The data collection: ``$RANKCLUST_DATA``, else ``../shared/data`` beside the repository.

    The licensed sets are read from there and never copied into the repository.
    """
    env = os.environ.get("RANKCLUST_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


def limit_threads(n: int = 1) -> Any:
    """Limit BLAS and OpenMP thread pools to ``n`` threads for the rest of the process.

    The fits are small and the machine is shared, so one thread is both fairer and not slower.
    threadpoolctl limits the pools of libraries already loaded, so the libraries that bring
    their own pools (numpy's and scipy's BLAS, scikit-learn's OpenMP) are imported first.
    Returns threadpoolctl's limiter (``.restore_original_limits()`` undoes the limit).
    """
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401
    import sklearn.cluster  # noqa: F401
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=n)


def platform_line(*, cores: bool = True) -> str:
    """``"x86_64, 2 cores, Python 3.11.9"`` (without the core count if ``cores=False``)."""
    parts = [platform.machine()]
    if cores:
        parts.append(f"{os.cpu_count()} cores")
    return ", ".join([*parts, f"Python {platform.python_version()}"])


def write_json(
    path: Path, obj: Any, *, indent: int = 1, newline: bool = False, default: Any = None
) -> None:
    """Write ``obj`` as JSON to ``path`` (folders created); ``newline`` appends a final newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=indent, default=default) + ("\n" if newline else ""))


def write_report(
    path: Path, lines: Iterable[str], *, final_newline: bool = True, echo: bool = True
) -> str:
    """Write report ``lines`` joined by newlines to ``path`` (folders created), with a final
    newline unless ``final_newline=False``; print them too unless ``echo=False``. Returns the
    joined text (without the final newline)."""
    text = "\n".join(lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + ("\n" if final_newline else ""))
    if echo:
        print(text)
    return text


def md_row(cells: Iterable[object]) -> str:
    """One markdown table row: ``| a | b |``."""
    return "| " + " | ".join(str(c) for c in cells) + " |"


def md_table(header: Sequence[object], rows: Iterable[Iterable[object]] = ()) -> list[str]:
    """Lines of a markdown table: the header, the ``|---|`` rule, then one line per row."""
    return [md_row(header), "|---" * len(header) + "|", *(md_row(r) for r in rows)]
