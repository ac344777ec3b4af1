"""The README's example must run as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_starts_with_the_two_commands():
    lines = [ln for ln in README.read_text().splitlines() if ln.startswith("make ")]
    assert lines[0].startswith("make demo") and lines[1].startswith("make test")


def test_readme_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert out.count("\n") >= 3  # the example prints its fits
