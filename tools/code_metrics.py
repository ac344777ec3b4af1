"""Size and coupling measures of the source tree, for before/after comparisons of a clean-up.

Counts, over ``src/rankclust``:

* ``sample_weight_checks`` -- ``raise`` statements whose message names ``sample_weight``
  (each is a place that validates sample weights by itself);
* ``long_functions`` -- functions with more than 80 code lines (no blank, comment or
  docstring lines);
* ``complex_functions`` -- functions with McCabe complexity above 15 (``ruff`` C901, counting
  also those marked ``# noqa: C901`` or ignored per file in ``pyproject.toml``);
* ``wide_kernels`` -- module-level functions of numba modules (they import numba) with more
  than 10 parameters (methods such as an estimator's ``__init__`` are not kernels);
* ``private_cross_imports`` -- imports of a private name or module (``_x``) of another
  subpackage (``rankclust.cluster`` importing ``rankclust.models._y`` counts, importing
  ``rankclust.cluster._y`` does not; top-level modules are packages of their own). The
  top-level private modules (``rankclust._param_validation``, ``rankclust._limits``, ...)
  are the package-wide toolkit every subpackage is meant to use, so importing them does not
  count; a private *name* of a top-level module (``rankclust.rankings._x``) does;
* ``toolkit_imports`` -- for information: imports of those top-level private modules;
* ``experiment_result_files`` -- files below the ``results/`` folders of ``experiments/``
  (``experiments/**/results/**``, the stored runs in ``results/raw/`` included);
* ``experiment_report_files`` -- the same without ``results/raw/``: the tables and figures
  people read.

Usage: ``python tools/code_metrics.py [--list]`` from the repository root; ``--list`` also
prints each counted place.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "rankclust"


def _package(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return parts[0]


def _code_lines(source: str, node: ast.AST) -> int:
    """Lines of ``node`` that hold code: no blank, comment-only or docstring lines."""
    doc = set()
    body = getattr(node, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        doc = set(range(body[0].lineno, body[0].end_lineno + 1))
    lines = source.splitlines()[node.lineno - 1 : node.end_lineno]
    comment_only = set()
    text = "\n".join(lines)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if (
                tok.type == tokenize.COMMENT
                and not lines[tok.start[0] - 1][: tok.start[1]].strip()
            ):
                comment_only.add(tok.start[0] + node.lineno - 1)
    except (tokenize.TokenError, IndentationError):
        pass
    return sum(
        1
        for i, line in enumerate(lines, start=node.lineno)
        if line.strip() and i not in doc and i not in comment_only
    )


def _complex_functions() -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--ignore-noqa", "--select",
         "C901", "--output-format", "json", "--config", "lint.mccabe.max-complexity=15",
         str(SRC)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return [
        f"{Path(d['filename']).relative_to(ROOT)}:{d['location']['row']} {d['message']}"
        for d in json.loads(out.stdout or "[]")
    ]


def import_kind(node: ast.ImportFrom, pkg: str) -> tuple[str | None, str]:
    """How an import statement of a module of package ``pkg`` is counted, and what it names.

    ``"private_cross_imports"`` for a private name or module of another package,
    ``"toolkit_imports"`` for a top-level private module (the package-wide toolkit), None
    otherwise (outside rankclust, relative, within ``pkg``, or public).
    """
    if not node.module or node.level != 0:
        return None, ""
    mod = node.module.split(".")
    if mod[0] != "rankclust" or len(mod) < 2 or mod[1] == pkg:
        return None, ""
    private_names = [x.name for x in node.names if x.name.startswith("_")]
    if mod[1].startswith("_") and not private_names:
        return "toolkit_imports", node.module
    if any(part.startswith("_") for part in mod[1:]) or private_names:
        return "private_cross_imports", node.module + (
            f" ({', '.join(private_names)})" if private_names else ""
        )
    return None, ""


def private_cross_imports(src: Path = SRC) -> list[str]:
    """Every import of a private name or module of another package below ``src``."""
    found = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        pkg = path.relative_to(src).with_suffix("").parts[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                kind, what = import_kind(node, pkg)
                if kind == "private_cross_imports":
                    found.append(f"{path.relative_to(src)}:{node.lineno} {what}")
    return found


def measure() -> dict[str, list[str]]:
    """Every counted place, by measure."""
    found: dict[str, list[str]] = {
        "sample_weight_checks": [],
        "long_functions": [],
        "complex_functions": _complex_functions(),
        "wide_kernels": [],
        "private_cross_imports": [],
        "toolkit_imports": [],
    }
    for path in sorted(SRC.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        rel = path.relative_to(ROOT)
        pkg = _package(path)
        numba_module = "numba" in source and ("import numba" in source or "from numba" in source)
        top_level = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and "sample_weight" in ast.unparse(node):
                found["sample_weight_checks"].append(f"{rel}:{node.lineno}")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n_code = _code_lines(source, node)
                if n_code > 80:
                    found["long_functions"].append(f"{rel}:{node.lineno} {node.name} ({n_code})")
                a = node.args
                n_params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                if numba_module and id(node) in top_level and n_params > 10:
                    found["wide_kernels"].append(f"{rel}:{node.lineno} {node.name} ({n_params})")
            elif isinstance(node, ast.ImportFrom):
                kind, what = import_kind(node, pkg)
                if kind is not None:
                    found[kind].append(f"{rel}:{node.lineno} {what}")
    results = sorted(
        p.relative_to(ROOT)
        for p in (ROOT / "experiments").rglob("*")
        if p.is_file() and "results" in p.relative_to(ROOT).parts
    )
    found["experiment_result_files"] = [str(p) for p in results]
    found["experiment_report_files"] = [str(p) for p in results if "raw" not in p.parts]
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true", help="print every counted place")
    args = ap.parse_args()
    found = measure()
    for name, places in found.items():
        print(f"{name}: {len(places)}")
        if args.list:
            for place in places:
                print(f"    {place}")


if __name__ == "__main__":
    main()
