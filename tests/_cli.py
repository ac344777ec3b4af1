"""Helpers shared by the command-line tests."""

from __future__ import annotations

from rankclust.cli import main


def run(capsys, *argv):
    """Run the CLI in process; return (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err, *fragments):
    """Assert a usage error (exit 2) of one line that contains every fragment; return it."""
    assert code == 2, err
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]
