"""``rankclust reproduce PAPER``: re-run a paper's experiment script (quick by default).

The script of a paper is ``*PAPER*.py`` in the experiments folder of a source checkout, or
in one of its subfolders (one folder per paper).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_INTERNAL, EXIT_OK, CLIError

__all__ = ["PAPERS", "QUICK_ARGS", "cmd_reproduce", "find_scripts"]

#: How each paper's script is run quickly (``--full`` drops these; ``-- ARGS`` appends).
QUICK_ARGS: dict[str, tuple[str, ...]] = {
    "cheng2009": ("--quick",),
    "grbovic2013": ("tables", "--quick"),
    "ukkonen2011": ("--quick",),
    "busse2007": ("--quick",),
    "xiao2016": ("--quick",),
}

PAPERS: dict[str, str] = {
    "cheng2009": "Cheng, Hühn & Hüllermeier 2009: label ranking trees and instance-based learning",
    "grbovic2013": "Grbovic et al. 2013: supervised clustering of label ranking data",
    "ukkonen2011": "Ukkonen 2011: clustering algorithms for chains",
    "busse2007": "Busse, Orbanz & Buhmann 2007: cluster analysis of heterogeneous rank data",
    "xiao2016": "Xiao, Liu & Hao 2016: maximum-margin semi-supervised ordinal clustering",
}


def _experiments_dir(explicit: str | None) -> Path | None:
    if explicit:  # the user's folder or an error: never another folder's scripts
        path = Path(explicit)
        if not path.is_dir():
            what = "is not a directory" if path.exists() else "no such directory"
            raise CLIError(f"--experiments-dir {explicit}: {what}")
        return path
    candidates = [Path.cwd() / "experiments"]
    import rankclust

    candidates.append(Path(rankclust.__file__).resolve().parents[2] / "experiments")
    return next((c for c in candidates if c.is_dir()), None)


def find_scripts(experiments: Path, paper: str) -> list[Path]:
    """The scripts ``*PAPER*.py`` in ``experiments`` and in its subfolders (one level down;
    hidden folders such as ``.ipynb_checkpoints`` are left out), sorted by path."""
    pattern = f"*{paper}*.py"
    found = [*experiments.glob(pattern), *experiments.glob(f"*/{pattern}")]
    return sorted(
        p for p in found
        if p.is_file() and not p.relative_to(experiments).parts[0].startswith(".")
    )  # fmt: skip


def _results(script: Path, experiments: Path) -> list[Path]:
    """The files the script wrote: ``STEM*`` in the ``results/`` beside it, or in the
    experiments folder's ``results/`` (or its subfolder named like the script's folder)."""
    shared = experiments / "results"
    folders = dict.fromkeys((script.parent / "results", shared, shared / script.parent.name))
    return [p for d in folders if d.is_dir() for p in sorted(d.glob(f"{script.stem}*"))]


def cmd_reproduce(args: argparse.Namespace, console: Console) -> int:
    """Run the paper's experiment scripts; print where their results are."""
    paper = args.paper.lower()
    if paper not in PAPERS:
        raise CLIError(f"unknown paper {args.paper!r}; choose from {', '.join(PAPERS)}")
    exp = _experiments_dir(args.experiments_dir)
    if exp is None:
        raise CLIError(
            "no experiments/ folder found (run from a source checkout of rankclust, or pass "
            "--experiments-dir)"
        )
    scripts = find_scripts(exp, paper)
    if not scripts:
        raise CLIError(f"no experiments/*{paper}*.py script in {exp} or its subfolders")
    cmd_extra = list(args.script_args or [])
    status = EXIT_OK
    for script in scripts:
        quick = [] if args.full else list(QUICK_ARGS.get(paper, ("--quick",)))
        cmd = [sys.executable, str(script), *quick, *cmd_extra]
        console.info(f"running {' '.join(cmd[1:])} ({PAPERS[paper]})")
        proc = subprocess.run(cmd, cwd=exp.parent, check=False)
        if proc.returncode != 0:
            console.print(f"{script.name} exited with code {proc.returncode}")
            status = EXIT_INTERNAL
            continue
        results = _results(script, exp)
        where = ", ".join(str(p) for p in results) if results else str(script.parent / "results")
        console.print(f"{script.name}: results are written to {where}")
    return status
