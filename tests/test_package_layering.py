"""No package of rankclust imports a private name or module of another one.

A piece that several subpackages share lives in the package-wide toolkit (a top-level private
module such as ``rankclust._compiled`` or ``rankclust._limits``) or is public; the count is the
``private_cross_imports`` measure of ``tools/code_metrics.py``, run here so that it stays 0.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def metrics():
    path = ROOT / "tools" / "code_metrics.py"
    if not path.is_file():
        pytest.skip("tools/code_metrics.py is not in this checkout")
    spec = importlib.util.spec_from_file_location("code_metrics", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["code_metrics"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("code_metrics", None)


def _kind(metrics, source: str, pkg: str) -> str | None:
    node = ast.parse(source).body[0]
    return metrics.import_kind(node, pkg)[0]


@pytest.mark.parametrize(
    ("source", "pkg", "expected"),
    [
        # a private module or name of another subpackage
        ("from rankclust.models._mallows_kernels import f", "cluster", "private_cross_imports"),
        ("from rankclust.cluster._base import objective_of", "cli", "private_cross_imports"),
        ("from rankclust.models import _mallows_kernels", "cluster", "private_cross_imports"),
        # a private name of a top-level public module is private too
        ("from rankclust.rankings import Rankings, _x", "cluster", "private_cross_imports"),
        # the toolkit, one's own package, public names, relative and foreign imports
        ("from rankclust._limits import check_alloc", "cluster", "toolkit_imports"),
        ("from rankclust.cluster._base import chain_orders", "cluster", None),
        ("from rankclust.cluster import objective_of", "cli", None),
        ("from . import _x", "cluster", None),
        ("from numpy._core import _x", "cluster", None),
    ],
)
def test_the_check_tells_private_from_toolkit_imports(metrics, source, pkg, expected):
    assert _kind(metrics, source, pkg) == expected


def test_the_check_finds_a_planted_import(metrics, tmp_path):
    pkg = tmp_path / "supervised"
    pkg.mkdir()
    (pkg / "mod.py").write_text(
        "def f():\n    from rankclust.label_ranking._base import validate_fit_data\n"
    )
    (tmp_path / "_toolkit.py").write_text("from rankclust.rankings import Rankings\n")
    found = metrics.private_cross_imports(tmp_path)
    assert found == ["supervised/mod.py:2 rankclust.label_ranking._base"]


def test_no_private_imports_across_packages(metrics):
    found = metrics.private_cross_imports()
    assert not found, (
        "a package imports another's private name or module; make it public or move it to "
        f"the toolkit (a top-level rankclust._x module): {found}"
    )
