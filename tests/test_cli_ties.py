"""The CLI clusters PrefLib files with ties through the mixtures (the others refuse them)."""

from __future__ import annotations

import json

import pytest

from tests._cli import run

NAMES = ["Apple", "Banana", "Cherry", "Date"]


def write_preflib(path, data_type, orders):
    """A PrefLib file (header as in the PrefLib format description) of ``count: order`` lines."""
    head = [f"# FILE NAME: {path.name}", "# TITLE: tied ballots", f"# DATA TYPE: {data_type}"]
    head += [f"# NUMBER ALTERNATIVES: {len(NAMES)}"]
    head += [f"# ALTERNATIVE NAME {j}: {n}" for j, n in enumerate(NAMES, start=1)]
    voters = sum(int(o.split(":")[0]) for o in orders)
    head += [f"# NUMBER VOTERS: {voters}", f"# NUMBER UNIQUE ORDERS: {len(orders)}"]
    path.write_text("\n".join([*head, *orders]) + "\n")
    return path


# two groups, Apple > Banana > Cherry > Date and its reverse, most ballots with a tie
TOC = ["12: 1,2,{3,4}", "10: {1,2},3,4", "8: 1,{2,3},4", "3: 1,2,3,4",
       "12: 4,3,{1,2}", "10: {4,3},2,1", "8: 4,{3,2},1", "3: 4,3,2,1"]  # fmt: skip
TOI = ["12: 1,{2,3}", "10: {1,2},3", "8: 1,2", "12: 4,{3,2}", "10: {4,3},2", "8: 4,3"]


@pytest.mark.parametrize(("data_type", "orders"), [("toc", TOC), ("toi", TOI)])
@pytest.mark.parametrize("method", ["mixture", "pl-mixture"])
def test_cluster_a_preflib_file_with_ties(capsys, tmp_path, data_type, orders, method):
    path = write_preflib(tmp_path / f"tied.{data_type}", data_type, orders)
    js = tmp_path / "out.json"
    code, out, err = run(capsys, "cluster", path, "-k", 2, "--method", method,
                         "--random-state", 0, "--json", js)  # fmt: skip
    assert code == 0, err
    assert "ranks items as tied" not in err
    assert "Apple > Banana > Cherry > Date" in out and "Date > Cherry > Banana > Apple" in out
    result = json.loads(js.read_text())
    centres = sorted(c["center_order"] for c in result["clusters"])
    assert centres == [NAMES, NAMES[::-1]]
    half = sum(int(o.split(":")[0]) for o in orders) / 2  # ballots per group
    assert [c["count"] for c in result["clusters"]] == [half, half]


@pytest.mark.parametrize("method", ["mixture", "pl-mixture"])
def test_select_k_on_a_preflib_file_with_ties(capsys, tmp_path, method):
    path = write_preflib(tmp_path / "tied.toc", "toc", TOC)
    js = tmp_path / "sel.json"
    code, out, err = run(capsys, "select-k", path, "--ks", "1,2", "--method", method,
                         "--n-init", 3, "--random-state", 0, "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    result = json.loads(js.read_text())
    assert [row["k"] for row in result["selection"]] == [1, 2]
    assert result["best_k"] == 2
    assert "Apple > Banana > Cherry > Date" in out


@pytest.mark.parametrize("method", ["chains", "komeans"])
def test_methods_without_ties_refuse_them_naming_the_line_and_the_alternatives(
    capsys, tmp_path, method
):
    path = write_preflib(tmp_path / "tied.toc", "toc", TOC)
    code, _, err = run(capsys, "cluster", path, "-k", 2, "--method", method, "--kind", "subset")
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1, err
    # line 11: the first order after the 10 header lines
    assert "tied.toc:11: this ranking ranks items as tied (and 5 more rankings)" in lines[0]
    assert f"--method {method} needs rankings without ties" in lines[0]
    assert "use --method mixture or pl-mixture (they accept ties)" in lines[0]
