"""Every command output shown in docs/ is what the command prints now.

The command blocks are marked ``<!-- doc-output cwd=... cmd=... -->`` and written by
``tools/render_docs.py``; after a change of a default, run that script and commit the
pages with the change. Values shown in comments of the Python examples (``x  # array(...)``)
are checked by running the examples.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("render_docs", REPO / "tools" / "render_docs.py")
render_docs = importlib.util.module_from_spec(_spec)
sys.modules["render_docs"] = render_docs  # dataclasses look their module up
_spec.loader.exec_module(render_docs)

BLOCKS = [
    b for page in sorted((REPO / "docs").glob("*.md")) for b in render_docs.find_blocks(page)
]


def test_the_cli_page_has_generated_blocks_on_shipped_data():
    cli_blocks = [b for b in BLOCKS if b.page.name == "cli.md"]
    assert len(cli_blocks) >= 6
    assert sum(b.cwd == "repo" for b in cli_blocks) >= 4  # these run everywhere


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_doc_block_is_what_the_command_prints(block):
    new = render_docs.render(block)
    if new is None:
        pytest.skip(f"data {block.cwd} not next to the repository")
    assert block.body == new, (
        f"{block.name}: the page shows another output; run python tools/render_docs.py"
    )


def test_every_shown_rankclust_output_is_generated():
    """A ``$ rankclust ...`` line in a fenced block of docs/ belongs to a generated block."""
    generated = {(b.page.name, b.cmd) for b in BLOCKS}
    for page in (REPO / "docs").glob("*.md"):
        for m in re.finditer(r"^\s*\$ (rankclust .*)$", page.read_text(), re.M):
            assert (page.name, m.group(1).strip()) in generated, f"{page.name}: {m.group(1)}"


def test_rewrite_replaces_a_stale_block_and_keeps_the_rest(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "Intro.\n\n"
        "* item\n\n"
        '  <!-- doc-output cwd="repo" cmd="rankclust cluster x -k 3 --random-state -1" -->\n'
        "  ```\n  $ rankclust cluster x -k 3 --random-state -1\n  old output\n  ```\n\nEnd.\n"
    )
    assert render_docs.rewrite(page, check=True) == [f"{page.name}: rankclust cluster x -k 3 "
                                                     "--random-state -1"]  # fmt: skip
    assert "old output" in page.read_text()  # --check writes nothing
    render_docs.rewrite(page)
    text = page.read_text()
    assert text.startswith("Intro.\n\n* item\n\n") and text.endswith("  ```\n\nEnd.\n")
    assert "  rankclust cluster: error: --random-state must be a non-negative integer" in text
    assert render_docs.rewrite(page, check=True) == []  # now up to date


def test_install_extras_named_in_the_docs_exist():
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"])  # fmt: skip
    pages = [*(REPO / "docs").glob("*.md"), REPO / "README.md"]
    named = {m for p in pages for m in re.findall(r"\.\[([a-z_-]+)\]", p.read_text())}
    assert named and named <= extras, named - extras


# ---------------------------------------------------------------------------- Python examples
_SHOWN_START = re.compile(r"#\s*(array\(|\[|True\b|False\b)")


def _balanced_prefix(text: str) -> str | None:
    """The shortest prefix of ``text`` with balanced brackets (``array([1, 2]): note`` ->
    ``array([1, 2])``); None while unbalanced."""
    for word in ("True", "False"):
        if re.match(rf"{word}\b", text):
            return word
    depth, opened = 0, False
    for i, ch in enumerate(text):
        if ch in "([{":
            depth, opened = depth + 1, True
        elif ch in ")]}":
            depth -= 1
            if opened and depth == 0:
                return text[: i + 1]
    return None


def shown_values(code: str):
    """Yield (statement source, the value its trailing comment shows) for each expression
    statement of ``code`` followed by ``# array(...)``, ``# [...]``, ``# True``/``# False``
    (a shown array may continue on comment lines)."""
    lines = code.splitlines()
    for node in ast.parse(code).body:
        source = ast.get_source_segment(code, node)
        m = _SHOWN_START.search(lines[node.end_lineno - 1])
        if not isinstance(node, ast.Expr) or m is None:
            yield source, None
            continue
        text = lines[node.end_lineno - 1][m.start(1) :]
        k = node.end_lineno
        while _balanced_prefix(text) is None and k < len(lines):
            text += " " + lines[k].strip().lstrip("#")
            k += 1
        yield source, _balanced_prefix(text) or text


@pytest.mark.parametrize("page", ["getting_started.md", "label_ranking.md", "models.md"])
def test_values_shown_in_python_examples_are_what_the_code_gives(page, tmp_path, monkeypatch):
    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)  # examples save files
    code = "\n".join(re.findall(r"```python\n(.*?)```", (REPO / "docs" / page).read_text(), re.S))
    namespace: dict = {}
    checked = 0
    for source, shown in shown_values(code):
        if shown is None:
            exec(compile(source, page, "exec"), namespace)
            continue
        got = eval(compile(source, page, "eval"), namespace)
        want = eval(shown, {"array": np.array})
        assert np.array_equal(np.asarray(got, dtype=object), np.asarray(want, dtype=object)), (
            f"{page}: {source} gives {got!r}, the page shows {shown}"
        )
        checked += 1
    assert checked >= 1
