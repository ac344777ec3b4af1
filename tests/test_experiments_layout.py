"""The experiments folder: one folder per paper, stored runs described, reports re-rendered.

Each render runs in a copy of ``experiments/`` and must give the committed report byte for
byte: the tables are made from the stored runs, never typed or edited by hand.
"""

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXP = ROOT / "experiments"
PAPERS = ("ukkonen2011", "cheng2009", "busse2007", "grbovic2013", "xiao2016", "alfaro2021")
_SPEC = re.compile(r"\bspec\b|\bspec's|specs/|reading aid", re.IGNORECASE)
_CITED = re.compile(r"decisions\.md[ ,]+([GCUBX]\d+)(?:-([GCUBX]\d+))?")


@pytest.mark.parametrize("paper", PAPERS)
def test_one_script_per_paper_in_its_folder(paper):
    scripts = sorted(p.relative_to(EXP) for p in EXP.glob(f"**/*{paper}*.py"))
    assert len(scripts) == 1 and scripts[0].parts[0] == paper, scripts
    assert (EXP / paper / "results").is_dir()


def test_every_results_file_is_in_a_paper_or_studies_folder():
    assert not [p for p in (EXP / "results").rglob("*") if p.is_file()]
    for path in EXP.rglob("*"):
        if path.is_file() and "results" in path.relative_to(EXP).parts:
            assert path.relative_to(EXP).parts[0] in (*PAPERS, "studies"), path


def test_every_stored_run_is_described_in_its_readme():
    raws = sorted(EXP.glob("*/results/raw"))
    assert len(raws) == len(PAPERS) + 1
    for raw in raws:
        readme = (raw / "README.md").read_text(encoding="utf-8")
        for path in raw.iterdir():
            if path.name != "README.md":
                # the Grbovic parts are listed by their suffix (".zmmpl03.json")
                short = path.name.removeprefix("supervised_clustering_grbovic2013")
                assert path.name in readme or f"`{short}`" in readme, path


def _texts():
    for path in sorted(EXP.rglob("*.py")) + sorted(EXP.rglob("*.md")):
        yield path, path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if path.name != Path(__file__).name and path.name != "test_api_reference.py":
            comments = "\n".join(line.partition("#")[2] for line in path.read_text().split("\n"))
            yield path, comments


def test_no_reference_to_a_specification_outside_the_repository():
    found = [f"{p.relative_to(ROOT)}" for p, text in _texts() if _SPEC.search(text)]
    assert not found, found


def test_cited_decisions_exist():
    text = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    labels = set(re.findall(r"^### ([GCUBX]\d+)\. ", text, re.MULTILINE))
    cited = {
        label
        for _, body in _texts()
        for first, last in _CITED.findall(body)
        for label in filter(None, (first, last and first[0] + last.lstrip("GCUBX")))
    }
    assert len(cited) >= 10 and cited <= labels, cited - labels


# ------------------------------------------------------------------------- _common
_spec = importlib.util.spec_from_file_location("experiments_common", EXP / "_common.py")
common = importlib.util.module_from_spec(_spec)
sys.modules["experiments_common"] = common  # dataclasses look their module up
_spec.loader.exec_module(common)


def test_common_markdown_table():
    assert common.md_table(("a", "b"), [(1, "x"), (2.5, "")]) == [
        "| a | b |",
        "|---|---|",
        "| 1 | x |",
        "| 2.5 |  |",
    ]


def test_common_paths_and_data_home(monkeypatch, tmp_path):
    p = common.paths(EXP / "xiao2016" / "ordinal_clustering_xiao2016.py")
    assert p.results == EXP / "xiao2016" / "results" and p.raw == p.results / "raw"
    monkeypatch.setenv("RANKCLUST_DATA", str(tmp_path))
    assert common.data_home() == tmp_path
    monkeypatch.delenv("RANKCLUST_DATA")
    assert common.data_home() == ROOT.parent / "shared" / "data"


def test_common_write_json_round_trip(tmp_path):
    path = tmp_path / "a" / "b.json"
    common.write_json(path, {"x": [1, 2.5]}, newline=True)
    assert json.loads(path.read_text()) == {"x": [1, 2.5]}
    assert path.read_text().endswith("]\n}\n")


def test_common_write_report(tmp_path, capsys):
    path = tmp_path / "a" / "r.md"
    assert common.write_report(path, ["# T", "", "x"]) == "# T\n\nx"
    assert path.read_bytes() == b"# T\n\nx\n"
    assert capsys.readouterr().out == "# T\n\nx\n"
    common.write_report(path, ["y", ""], final_newline=False, echo=False)
    assert path.read_bytes() == b"y\n"
    assert capsys.readouterr().out == ""


def test_common_limit_threads():
    from threadpoolctl import threadpool_info

    limiter = common.limit_threads(1)
    try:
        assert all(pool["num_threads"] == 1 for pool in threadpool_info())
    finally:
        limiter.restore_original_limits()


# ------------------------------------------------------------------------- renders
def _raw(paper: str, *names: str) -> list[str]:
    return [f"experiments/{paper}/results/raw/{n}" for n in names]


_CHENG_CACHES = _raw(
    "cheng2009",
    *(
        f"label_ranking_cheng2009_{s}.jsonl"
        for s in (
            "quick",
            "quick_ccavg",
            "yeast_quick",
            "quick_iblr",
            "quick_lrt",
            "quick_lrt_rs",
            "yeast_quick_lrt_rs",
            "quick_iblr_zscore",
            "yeast_quick_iblr_zscore",
        )
    ),
)
_XIAO = "xiao2016"
RENDERS = {
    # report: (command, the report is only the rendered prefix of the committed file)
    "ukkonen2011/results/chains_ukkonen2011.md": (
        ["ukkonen2011/chains_ukkonen2011.py", "render"],
        False,
    ),
    "busse2007/results/mixture_busse2007.md": (
        ["busse2007/mixture_busse2007.py", "--render"],
        False,
    ),
    "grbovic2013/results/supervised_clustering_grbovic2013.md": (
        ["grbovic2013/supervised_clustering_grbovic2013.py", "render"],
        False,
    ),
    "alfaro2021/results/partial_label_ranking_alfaro2021.md": (
        ["alfaro2021/partial_label_ranking_alfaro2021.py", "--report"],
        False,
    ),
    "studies/results/label_ranking_sushi_demographics.md": (
        ["studies/label_ranking_sushi_demographics.py", "--report"],
        False,
    ),
    "studies/results/item_covariates_sushi.md": (
        ["studies/item_covariates_sushi.py", "--report"],
        False,
    ),
    "studies/results/pl_tree_sushi.md": (["studies/pl_tree_sushi.py", "--report"], False),
    "studies/results/mixture_experts_sushi.md": (
        ["studies/mixture_experts_sushi.py", "--report"],
        False,
    ),
    # the hand-written analysis follows the rendered tables
    "cheng2009/results/label_ranking_cheng2009.md": (
        [
            "cheng2009/label_ranking_cheng2009.py",
            "--quick",
            "--report",
            "--cache",
            _CHENG_CACHES[0],
            "--extra-cache",
            *_CHENG_CACHES[1:],
        ],
        True,
    ),
    "xiao2016/results/ordinal_clustering_xiao2016.md": (
        [
            "xiao2016/ordinal_clustering_xiao2016.py",
            "--render",
            *_raw(
                _XIAO,
                *(
                    f"ordinal_clustering_xiao2016{s}.json"
                    for s in ("", "_part2", "_full", "_full_e", "_full_b", "_full_c")
                ),
            ),
            "--notes",
            *_raw(_XIAO, "ordinal_clustering_xiao2016_notes.md"),
            "--append",
            f"experiments/{_XIAO}/results/ordinal_clustering_xiao2016_balance.md",
        ],
        False,
    ),
}


@pytest.mark.parametrize("report", sorted(RENDERS))
def test_render_reproduces_the_committed_report(report, tmp_path):
    pytest.importorskip("matplotlib")
    (cmd, prefix) = RENDERS[report]
    shutil.copytree(EXP, tmp_path / "experiments")
    committed = (EXP / report).read_bytes()
    (tmp_path / "experiments" / report).unlink()
    script = tmp_path / "experiments" / cmd[0]
    subprocess.run(
        [sys.executable, str(script), *cmd[1:]],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    rendered = (tmp_path / "experiments" / report).read_bytes()
    if prefix:
        assert len(rendered) > 1000 and committed.startswith(rendered)
    else:
        assert rendered == committed
