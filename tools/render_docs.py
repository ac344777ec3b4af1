"""Run the commands shown in ``docs/*.md`` and write their output into the pages.

A command's output in the user guide is never typed by hand. Each shown block is preceded by
an HTML comment that names the command and where it runs::

    <!-- doc-output cwd="repo" cmd="rankclust supervise src/rankclust/datasets/data/glass.csv.gz -k 3 --random-state 0" -->
    ```
    $ rankclust supervise ...
    (what the command prints)
    ```

``cwd`` is ``"repo"`` (the source checkout; shipped data lives in
``src/rankclust/datasets/data``) or ``"data:NAME"``, the folder ``NAME`` of the data
collection kept next to the repository (``../shared/data``, or ``$RANKCLUST_DOCS_DATA``);
blocks on such data are skipped when it is absent. The block shows standard output; for a
command that fails (exit code 2) it shows the error line(s) of standard error instead, so
refusals can be documented too. Progress and timing lines (standard error) are never shown.

Usage (from the repository root)::

    python tools/render_docs.py           # rewrite every block that changed
    python tools/render_docs.py --check   # list differing blocks, exit 1 if any

``tests/test_docs_output.py`` runs the same check, so a changed default changes the docs in
the same commit.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

_BLOCK = re.compile(
    r"^(?P<indent>[ \t]*)<!-- doc-output (?P<attrs>.*?) -->\n"
    r"(?P<block>(?P=indent)```\n(?P<body>.*?)^(?P=indent)```)[ \t]*$",
    re.M | re.S,
)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


@dataclass(frozen=True)
class Block:
    """One generated block of a page."""

    page: Path
    cmd: str
    cwd: str
    indent: str
    body: str  # the block's text now (between the fences, indentation removed)
    span: tuple[int, int]  # the fenced block's character range in the page (fences included)

    @property
    def name(self) -> str:
        return f"{self.page.name}: {self.cmd}"


def data_root() -> Path:
    """The data collection next to the repository (``$RANKCLUST_DOCS_DATA`` overrides)."""
    env = os.environ.get("RANKCLUST_DOCS_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


def find_blocks(page: Path) -> list[Block]:
    """The generated blocks of one page, in page order."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for m in _BLOCK.finditer(text):
        attrs = dict(_ATTR.findall(m.group("attrs")))
        if "cmd" not in attrs:
            raise ValueError(f"{page}: a doc-output comment without cmd=: {m.group(0)[:80]}")
        indent = m.group("indent")
        body = "".join(ln.removeprefix(indent) for ln in m.group("body").splitlines(True))
        blocks.append(Block(page, attrs["cmd"], attrs.get("cwd", "repo"), indent, body,
                            m.span("block")))  # fmt: skip
    return blocks


def workdir(block: Block) -> Path | None:
    """Where the block's command runs; None when its data is not here."""
    if block.cwd == "repo":
        return REPO
    if block.cwd.startswith("data:"):
        path = data_root() / block.cwd.removeprefix("data:")
        return path if path.is_dir() else None
    raise ValueError(f"{block.page}: unknown cwd {block.cwd!r} (use 'repo' or 'data:NAME')")


def run(cmd: str, cwd: Path) -> str:
    """What ``cmd`` prints, run in-process in ``cwd``: stdout, or the error lines on failure."""
    from rankclust.cli import main

    argv = shlex.split(cmd)
    if argv[0] != "rankclust":
        raise ValueError(f"only rankclust commands are rendered, got {cmd!r}")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv[1:])
    text = out.getvalue()
    if code != 0:
        text += "".join(ln for ln in err.getvalue().splitlines(True) if ": error: " in ln)
    return text


def render(block: Block) -> str | None:
    """The block's new text (``$ cmd`` then the output), or None when its data is absent."""
    cwd = workdir(block)
    if cwd is None:
        return None
    return f"$ {block.cmd}\n{run(block.cmd, cwd)}"


def _indented(text: str, indent: str) -> str:
    return "".join(indent + ln if ln.strip() else ln for ln in text.splitlines(True))


def rewrite(page: Path, *, check: bool = False) -> list[str]:
    """Render every block of ``page``; names of the blocks that differed (rewritten unless
    ``check``)."""
    text = page.read_text(encoding="utf-8")
    changed, skipped = [], []
    for block in reversed(find_blocks(page)):  # from the end: earlier spans stay valid
        new = render(block)
        if new is None:
            skipped.append(block.name)
            continue
        if new != block.body:
            changed.append(block.name)
            fenced = f"{block.indent}```\n{_indented(new, block.indent)}{block.indent}```"
            text = text[: block.span[0]] + fenced + text[block.span[1] :]
    for name in skipped:
        print(f"skipped (data not here): {name}", file=sys.stderr)
    if changed and not check:
        page.write_text(text, encoding="utf-8")
    return changed[::-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report differing blocks")
    parser.add_argument("pages", nargs="*", type=Path, help="pages (default docs/*.md)")
    args = parser.parse_args(argv)
    changed = []
    for page in args.pages or sorted(DOCS.glob("*.md")):
        changed += rewrite(page, check=args.check)
    for name in changed:
        print(("differs: " if args.check else "rewrote: ") + name)
    return 1 if changed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
