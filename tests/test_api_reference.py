"""The API reference (docs/api/) documents every public name, and builds without a warning.

A public module is a module of the package whose dotted path has no component starting with an
underscore; its public names are its ``__all__``. The command line (``rankclust.cli*``) is
documented by ``docs/cli.md`` instead. A package re-exports the names of its submodules, so a
name counts as documented when the same object is documented under any public module.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rankclust

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api"
#: Modules the API reference leaves to other pages (the command line has its own).
NOT_IN_REFERENCE = ("rankclust.cli", "rankclust.__main__")

_DIRECTIVE = re.compile(r"^::: *(\S+)\n((?:(?: {4}.*)?\n)*)", re.MULTILINE)


def public_modules() -> list[str]:
    names = ["rankclust"]
    for info in pkgutil.walk_packages(rankclust.__path__, "rankclust."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or info.name.startswith(NOT_IN_REFERENCE):
            continue
        names.append(info.name)
    return sorted(names)


def directives() -> dict[str, list[tuple[str, list[str]]]]:
    """Per page: the ``::: module`` directives and the names each one renders."""
    out = {}
    for page in sorted(API.glob("*.md")):
        found = []
        for m in _DIRECTIVE.finditer(page.read_text(encoding="utf-8")):
            module = m.group(1)
            options = yaml.safe_load(re.sub(r"^ {4}", "", m.group(2), flags=re.MULTILINE)) or {}
            members = (options.get("options") or {}).get("members")
            if members is None:  # the default: the module's __all__
                members = list(importlib.import_module(module).__all__)
            found.append((module, list(members)))
        out[page.name] = found
    return out


def documented() -> dict[tuple[str, str], str]:
    """``(module, name) -> page`` for every name a directive renders."""
    return {
        (module, name): page
        for page, found in directives().items()
        for module, members in found
        for name in members
    }


def test_every_public_name_is_on_an_api_page():
    docs = documented()
    by_object: dict[int, list[tuple[str, str]]] = {}
    for module, name in docs:
        obj = getattr(importlib.import_module(module), name)
        by_object.setdefault(id(obj), []).append((module, name))
    missing = []
    for module in public_modules():
        mod = importlib.import_module(module)
        for name in getattr(mod, "__all__", ()):
            if (module, name) in docs:
                continue
            twins = by_object.get(id(getattr(mod, name)), [])
            if not any(n == name for _, n in twins):
                missing.append(f"{module}.{name}")
    assert not missing, f"public names on no page of docs/api/: {missing}"


def test_directives_name_existing_public_objects():
    for page, found in directives().items():
        assert found or page == "index.md", f"docs/api/{page} renders nothing"
        for module, members in found:
            assert module in public_modules(), f"docs/api/{page}: {module} is not public"
            mod = importlib.import_module(module)
            for name in members:
                assert name in mod.__all__, f"docs/api/{page}: {module}.{name} not in __all__"


def _nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [p for v in node.values() for p in _nav_pages(v)]
    return [p for v in node for p in _nav_pages(v)]


def test_every_api_page_is_in_the_navigation():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    nav = set(_nav_pages(config["nav"]))
    pages = {f"api/{p.name}" for p in API.glob("*.md")}
    assert pages - nav == set()


def test_public_modules_found():
    modules = public_modules()
    for expected in ("rankclust.cluster", "rankclust.dask", "rankclust.models.mallows"):
        assert expected in modules
    assert not any(m.startswith("rankclust.cli") for m in modules)


@pytest.mark.slow
def test_strict_build_renders_every_name(tmp_path):
    """``mkdocs build --strict`` succeeds (no warning) and each documented name has an anchor."""
    pytest.importorskip("mkdocstrings_handlers.python")
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent)) or shutil.which(
        "mkdocs"
    )
    if mkdocs is None:
        pytest.skip("mkdocs is not installed")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    site = tmp_path / "site"
    proc = subprocess.run(
        [mkdocs, "build", "--strict", "-d", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr
    html: dict[str, str] = {}
    missing = []
    for (module, name), page in documented().items():
        if page not in html:
            html[page] = (site / "api" / page.removesuffix(".md") / "index.html").read_text(
                encoding="utf-8"
            )
        if f'id="{module}.{name}"' not in html[page]:
            missing.append(f"{page}: {module}.{name}")
    assert not missing, f"names without an anchor in the built reference: {missing}"


def test_dask_module_is_the_public_face_of_the_backend():
    import rankclust._dask as impl
    import rankclust.dask as public

    for name in public.__all__:
        assert getattr(public, name) is getattr(impl, name)  # the old private path still works
    pytest.importorskip("dask")
    R = rankclust.Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [1, 0, 2]], n_items=3)
    CR = public.as_chunked(R, chunk_size=2)
    assert isinstance(CR, public.ChunkedRankings) and public.is_dask_collection(CR)
    assert CR.chunk_sizes == [2, 1]


def test_every_generator_is_in_datasets_and_still_at_its_old_path():
    import rankclust.datasets as datasets

    homes = ("cluster", "cluster.generators", "cluster.mixture_generators", "supervised")
    homes += ("supervised.generators", "datasets.generators")
    for home in homes:
        mod = importlib.import_module(f"rankclust.{home}")
        for name in mod.__all__:
            if name.startswith("make_"):
                assert getattr(datasets, name) is getattr(mod, name), f"{home}.{name}"
    for name in ("add_swap_noise", "delete_labels", "centers_at_distances"):
        assert name in datasets.__all__


# --------------------------------------------------------------------- decisions.md references
_CITED = re.compile(r"decisions\.md[ ,]+([GCUBXS]\d+)(?:-([GCUBXS]\d+))?")
_LINKED = re.compile(r"\(decisions\.md#([a-z0-9-]+)\)")
_SPEC = re.compile(r"\bspec\b|\bspec's|specs/|reading aid", re.IGNORECASE)


def _cited_texts() -> dict[str, str]:
    files = sorted((ROOT / "src" / "rankclust").rglob("*.py")) + sorted(
        (ROOT / "docs").glob("*.md")
    )
    return {str(f.relative_to(ROOT)): f.read_text(encoding="utf-8") for f in files}


def _decision_anchors() -> set[str]:
    text = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    labels = set(re.findall(r"^### ([GCUBXS]\d+)\. .* \{#([a-z]\d+)\}$", text, re.MULTILINE))
    assert all(label.lower() == anchor for label, anchor in labels)
    return {label for label, _ in labels}


def _slug(heading: str) -> str:
    """The anchor mkdocs' toc extension gives a heading."""
    return re.sub(r"[\s-]+", "-", re.sub(r"[^\w\s-]", "", heading).strip().lower())


def test_every_cited_decision_exists():
    labels = _decision_anchors()
    text = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    anchors = {label.lower() for label in labels}
    anchors |= {_slug(h) for h in re.findall(r"^## (.*)$", text, re.MULTILINE)}
    cited, missing = 0, []
    for path, body in _cited_texts().items():
        for first, last in _CITED.findall(body):
            for label in filter(None, (first, last and first[0] + last.lstrip("GCUBXS"))):
                cited += 1
                if label not in labels:
                    missing.append(f"{path}: {label}")
        for anchor in _LINKED.findall(body):
            cited += 1
            if anchor not in anchors:
                missing.append(f"{path}: #{anchor}")
    assert cited >= 40 and not missing, missing


def test_no_reference_to_a_specification_outside_the_repository():
    found = [
        f"{path}:{body[: m.start()].count(chr(10)) + 1}"
        for path, body in _cited_texts().items()
        for m in _SPEC.finditer(body)
    ]
    assert not found, found
