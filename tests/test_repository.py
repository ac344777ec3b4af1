"""The repository itself: no merge-conflict markers left in any tracked text file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# a marker line as git writes it: seven '<', '=' or '>' at the start of a line
MARKER = re.compile(r"^(<{7} |={7}$|>{7} )", re.M)


def _tracked_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_no_merge_conflict_markers():
    found = []
    for path in _tracked_files():
        if path.suffix in (".png", ".gz", ".zip", ".pkl", ".npz") or not path.is_file():
            continue
        text = path.read_bytes()
        if b"\0" in text:
            continue
        for m in MARKER.finditer(text.decode("utf-8", errors="replace")):
            line = text[: m.start()].count(b"\n") + 1
            found.append(f"{path.relative_to(ROOT)}:{line}")
    assert not found, f"merge-conflict markers: {found}"
