"""Tests for the ``rankclust`` command (rankclust.cli), run in-process through ``main``."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rankclust import Rankings, cli
from rankclust.cli import CLIError, main
from tests._cli import run

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

ITEMS = ["Alice", "Bob", "Carol", "Dave", "Eve"]


# ---------------------------------------------------------------------------- helpers


def assert_one_line_error(code, err, *fragments):
    assert code == 2
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for f in fragments:
        assert f in lines[0], lines[0]


def _two_group_orderings(n_per=12):
    """Two clear groups of complete orderings over 5 items (0-based)."""
    a = [[0, 1, 2, 3, 4], [1, 0, 2, 3, 4], [0, 2, 1, 3, 4]]
    b = [[4, 3, 2, 1, 0], [3, 4, 2, 1, 0], [4, 3, 1, 2, 0]]
    return [a[i % 3] for i in range(n_per)] + [b[i % 3] for i in range(n_per)]


@pytest.fixture
def orderings_csv(tmp_path):
    """CSV of orderings with 1-based numeric items and a Rank_k header."""
    path = tmp_path / "ballots.csv"
    rows = ["Rank_1,Rank_2,Rank_3,Rank_4,Rank_5"]
    rows += [",".join(str(j + 1) for j in o) for o in _two_group_orderings()]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture
def items_file(tmp_path):
    path = tmp_path / "items.txt"
    path.write_text("\n".join(ITEMS) + "\n")
    return path


@pytest.fixture
def named_csv(tmp_path):
    """CSV whose rows list item names, best first (top-3 lists)."""
    path = tmp_path / "named.csv"
    rows = [",".join(ITEMS[j] for j in o[:3]) for o in _two_group_orderings()]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture
def preflib_file(tmp_path):
    from rankclust.io import write_preflib

    R = Rankings.from_orderings(
        [o[:3] for o in _two_group_orderings(6)], n_items=5, kind="top", items=ITEMS
    )
    R, _ = R.unique()
    path = tmp_path / "ballots.soi"
    write_preflib(R, path)
    return path


@pytest.fixture
def label_ranking_csv(tmp_path):
    from rankclust.datasets import load_label_ranking
    from rankclust.io import write_label_ranking_csv

    X, Y = load_label_ranking("iris")
    idx = np.r_[0:20, 50:70, 100:120]
    path = tmp_path / "iris_small.csv"
    write_label_ranking_csv(path, X[idx], Y[idx])
    return path


# ---------------------------------------------------------------------------- basics
def test_help_and_version(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ("cluster", "select-k", "labelrank", "supervise", "ordinal", "significance",
                    "demo", "reproduce"):  # fmt: skip
        assert command in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("rankclust ")


def test_no_command_is_a_usage_error(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "usage" in err


def test_argparse_usage_error_exit_code(capsys):
    code, _, err = run(capsys, "cluster", "x.csv")  # -k missing
    assert code == 2 and "-k" in err
    code, _, err = run(capsys, "cluster", "x.csv", "-k", "2", "--", "extra")
    assert code == 2 and "unexpected arguments after --" in err


def test_python_dash_m_help():
    proc = subprocess.run(
        [sys.executable, "-m", "rankclust", "--help"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0
    assert "usage: rankclust" in proc.stdout


# ---------------------------------------------------------------------------- cluster
def test_cluster_chains_summary_json_plots_and_save(capsys, tmp_path, orderings_csv, items_file):
    js, plots, model = tmp_path / "out.json", tmp_path / "figs", tmp_path / "model.zip"
    code, out, err = run(
        capsys, "cluster", orderings_csv, "-k", 2, "--method", "chains", "--kind", "subset",
        "--items", items_file, "--random-state", 0, "--json", js, "--plots", plots,
        "--save", model,
    )  # fmt: skip
    assert code == 0, err
    # the summary names the items and finds the two groups
    assert "ChainKMeans" in out
    assert "Alice > Bob > Carol > Dave > Eve" in out
    assert "Eve > Dave > Carol > Bob > Alice" in out
    # JSON: full result, parseable, with centres
    result = json.loads(js.read_text())
    assert result["command"] == "cluster" and result["method"] == "chains"
    assert result["items"] == ITEMS
    orders = sorted(c["center_order"] for c in result["clusters"])
    assert orders == [ITEMS, ITEMS[::-1]]
    assert sorted(c["size"] for c in result["clusters"]) == [12, 12]
    assert len(result["labels"]) == 24
    assert result["fitted"]["centers_"]["ranks"]
    assert "objective" in result["criteria"]
    # figures
    names = sorted(p.name for p in plots.iterdir())
    assert names == ["central_rankings.png", "pairwise_by_cluster.png"]
    # the saved model predicts like the fitted one
    from rankclust.io import read_orderings_csv
    from rankclust.persistence import load

    fitted = load(model)
    R = read_orderings_csv(orderings_csv, kind="subset")
    np.testing.assert_array_equal(fitted.predict(R), result["labels"])


def test_cluster_named_orderings(capsys, named_csv, items_file):
    code, out, err = run(
        capsys, "cluster", named_csv, "-k", 2, "--method", "komeans", "--kind", "subset",
        "--random-state", 0,
    )  # fmt: skip
    assert code == 0, err
    assert "Alice" in out and "Eve" in out


def test_cluster_orderings_header_of_item_names(capsys, tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("red,green,blue\n1,2,3\n1,3,2\n3,2,1\n")
    code, out, err = run(capsys, "cluster", path, "-k", 1, "--method", "chains", "--kind",
                         "subset")  # fmt: skip
    assert code == 0, err
    assert "red > " in out


def test_cluster_preflib_needs_kind_for_chains(capsys, preflib_file):
    code, _, err = run(capsys, "cluster", preflib_file, "-k", 2, "--method", "chains")
    assert_one_line_error(code, err, "--kind subset")
    code, out, err = run(
        capsys, "cluster", preflib_file, "-k", 2, "--method", "chains", "--kind", "subset",
        "--random-state", 0, "-q",
    )  # fmt: skip
    assert code == 0, err
    assert err == ""  # quiet: nothing on stderr
    assert "count" in out  # weighted ballots: summed counts are shown
    assert "Alice" in out


def test_cluster_set_parameter(capsys, orderings_csv):
    code, _, err = run(
        capsys, "cluster", orderings_csv, "-k", 2, "--method", "chains", "--kind", "subset",
        "--set", "init=\"hypersphere\"", "--set", "max_iter=5", "-q",
    )  # fmt: skip
    assert code == 0, err
    code, _, err = run(
        capsys, "cluster", orderings_csv, "-k", 2, "--method", "chains", "--kind", "subset",
        "--set", "nonsense=1",
    )  # fmt: skip
    assert_one_line_error(code, err, "no parameter 'nonsense'")


# ---------------------------------------------------------------------------- bad input
def test_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "cluster", tmp_path / "nope.csv", "-k", 2, "--method", "chains")
    assert_one_line_error(code, err, "nope.csv", "no such file")


def test_malformed_line(capsys, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("1,2,3\n2,1,3\n3,x,1\n")
    code, _, err = run(capsys, "cluster", path, "-k", 2, "--method", "chains", "--kind", "subset")
    assert_one_line_error(code, err, "line 3")


def test_malformed_preflib_line(capsys, tmp_path):
    path = tmp_path / "bad.soi"
    path.write_text(
        "# DATA TYPE: soi\n# NUMBER ALTERNATIVES: 3\n# NUMBER VOTERS: 2\n"
        "# NUMBER UNIQUE ORDERS: 2\n1: 1,2\n1: 1,1\n"
    )
    code, _, err = run(capsys, "cluster", path, "-k", 1, "--method", "chains", "--kind", "subset")
    assert_one_line_error(code, err, "line 6")


def test_unknown_item_name(capsys, tmp_path, items_file):
    path = tmp_path / "names.csv"
    path.write_text("Alice,Bob\nBob,Zed\n")
    code, _, err = run(capsys, "cluster", path, "-k", 1, "--method", "chains", "--items",
                       items_file)  # fmt: skip
    assert_one_line_error(code, err, "line 2", "unknown item 'Zed'")


def test_unknown_item_number(capsys, orderings_csv, tmp_path):
    items = tmp_path / "three.txt"
    items.write_text("a\nb\nc\n")
    code, _, err = run(capsys, "cluster", orderings_csv, "-k", 2, "--method", "chains",
                       "--items", items)  # fmt: skip
    assert_one_line_error(code, err, "line 2", "out of range")


def test_k_larger_than_n(capsys, orderings_csv):
    code, _, err = run(capsys, "cluster", orderings_csv, "-k", 99, "--method", "chains",
                       "--kind", "subset")  # fmt: skip
    assert_one_line_error(code, err, "-k: K=99", "larger than the number of rankings (24)")


def test_unknown_method(capsys, orderings_csv):
    code, _, err = run(capsys, "cluster", orderings_csv, "-k", 2, "--method", "magic")
    assert_one_line_error(code, err, "unknown method 'magic'", "chains")


@pytest.mark.parametrize("family", ["cluster", "labelrank", "supervise", "ordinal"])
def test_every_registered_method_loads_from_its_module(family):
    # every method of the build is there: no "not in this build" fallback is needed
    for name, method in cli.method_registry(family).items():
        cls = method.load()
        assert isinstance(cls, type) and cls.__name__ == method.cls, name
        assert callable(getattr(cls, "fit", None)), name


def test_debug_shows_traceback(orderings_csv, tmp_path):
    with pytest.raises(CLIError):
        main(["cluster", str(tmp_path / "nope.csv"), "-k", "2", "--debug"])


def test_empty_file(capsys, tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("\n")
    code, _, err = run(capsys, "cluster", path, "-k", 1, "--method", "chains")
    assert_one_line_error(code, err, "empty")


# ---------------------------------------------------------------------------- select-k
def test_select_k(capsys, tmp_path, orderings_csv):
    js, plots = tmp_path / "sel.json", tmp_path / "figs"
    code, out, err = run(
        capsys, "select-k", orderings_csv, "--ks", "1..3", "--method", "chains", "--kind",
        "subset", "--random-state", 0, "--json", js, "--plots", plots, "-q",
    )  # fmt: skip
    assert code == 0, err
    assert "Model selection" in out
    result = json.loads(js.read_text())
    assert [row["k"] for row in result["selection"]] == [1, 2, 3]
    objective = [row["objective"] for row in result["selection"]]
    assert objective[0] > objective[1]  # two clusters explain two groups better than one
    assert (plots / "model_selection.png").is_file()


def test_select_k_mixture_by_bic(capsys, tmp_path, preflib_file):
    js, plots = tmp_path / "sel.json", tmp_path / "figs"
    code, out, err = run(
        capsys, "select-k", preflib_file, "--ks", "1,2", "--method", "mixture", "--n-init", 2,
        "--random-state", 0, "--json", js, "--plots", plots, "-q",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(js.read_text())
    assert result["criterion"] == "bic"
    bics = {row["k"]: row["bic"] for row in result["selection"]}
    assert result["best_k"] == min(bics, key=bics.get)
    assert f"best K by bic: {result['best_k']}" in out
    assert {"log_likelihood", "icl", "aic"} <= set(result["selection"][0])
    assert len(result["clusters"]) == result["best_k"]
    assert {p.name for p in plots.iterdir()} >= {"model_selection.png", "central_rankings.png"}


def test_cluster_mixture_reports_dispersions(capsys, tmp_path, preflib_file):
    js = tmp_path / "mix.json"
    code, out, err = run(capsys, "cluster", preflib_file, "-k", 2, "--n-init", 2,
                         "--random-state", 0, "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    header = out.splitlines()[1].split()
    assert {"proportion", "theta", "count"} <= set(header)
    result = json.loads(js.read_text())
    assert all("theta" in c for c in result["clusters"])
    assert "BIC" in result["criteria"] and "log-likelihood" in result["criteria"]


@pytest.mark.parametrize("text,expected", [("1..4", [1, 2, 3, 4]), ("2-3", [2, 3]),
                                           ("5,2,2", [2, 5]), ("1..2,7", [1, 2, 7])])  # fmt: skip
def test_parse_ks(text, expected):
    assert cli._parse_ks(text) == expected


@pytest.mark.parametrize("text", ["", "a", "4..2", "1..x"])
def test_parse_ks_errors(text):
    with pytest.raises(CLIError):
        cli._parse_ks(text)


def test_select_k_beyond_n(capsys, orderings_csv):
    code, _, err = run(capsys, "select-k", orderings_csv, "--ks", "1..30", "--method", "chains",
                       "--kind", "subset")  # fmt: skip
    assert_one_line_error(code, err, "--ks: K=30", "larger than the number of rankings")


# ---------------------------------------------------------------------------- significance
def test_significance(capsys, tmp_path, orderings_csv):
    js, plots = tmp_path / "sig.json", tmp_path / "figs"
    code, out, err = run(
        capsys, "significance", orderings_csv, "-k", 2, "--method", "chains", "--kind",
        "subset", "--n-samples", 4, "--n-steps", 200, "--n-init", 1, "--random-state", 0,
        "--json", js, "--plots", plots, "-q",
    )  # fmt: skip
    assert code == 0, err
    assert "p-value" in out
    result = json.loads(js.read_text())
    assert len(result["null_distribution"]) == 4
    assert 0.2 <= result["p_value"] <= 1.0  # (#{null <= obs} + 1) / 5
    assert (plots / "randomization_test.png").is_file()


def test_significance_tests_ballots_as_ballots(capsys, tmp_path, preflib_file):
    # top-t ballots: the default method is the mixture, fitted to the ballots as ballots
    js = tmp_path / "sig.json"
    code, out, err = run(
        capsys, "significance", preflib_file, "-k", 2, "--n-samples", 3, "--n-steps", 200,
        "--n-init", 1, "--random-state", 0, "--json", js,
    )  # fmt: skip
    assert code == 0, err
    assert "--method mixture" in err and "p-value" in out
    assert json.loads(js.read_text())["method"] == "mixture"


@pytest.mark.parametrize("method", ["chains", "komeans"])
def test_significance_refuses_chain_methods_on_ballots_at_once(capsys, preflib_file, method):
    code, _, err = run(capsys, "significance", preflib_file, "-k", 2, "--method", method)
    assert_one_line_error(code, err, "--method mixture", "--kind subset", "list one candidate")
    assert "with_kind" not in err  # the CLI names its options, not Python methods
    assert "drawing" not in err  # refused before any sampling


def test_significance_refuses_ties_before_sampling(capsys, tmp_path):
    path = tmp_path / "tied.csv"
    path.write_text("".join(["3,1,2\n", "1,1,2\n"] * 4))  # 1-based ranks; row 2 ties
    code, _, err = run(
        capsys, "significance", path, "-k", 2, "--kind", "subset", "--format", "ranks"
    )
    assert_one_line_error(code, err, "tied.csv:2: this ranking ranks items as tied", "ties")


@pytest.mark.parametrize("command", ["cluster", "select-k"])
@pytest.mark.parametrize("method", ["chains", "komeans"])
def test_cluster_and_select_k_refuse_ties_naming_the_file_and_ranking(
    capsys, tmp_path, command, method
):
    path = tmp_path / "tied.csv"
    path.write_text("".join(["3,1,2\n", "1,1,2\n", "2,2,1\n"] * 4))  # rows 2 and 3 tie
    k = ["-k", 2] if command == "cluster" else ["--ks", "1..2"]
    code, _, err = run(
        capsys, command, path, *k, "--method", method, "--kind", "subset", "--format", "ranks"
    )
    assert_one_line_error(
        code,
        err,
        "tied.csv:2: this ranking ranks items as tied (and 7 more rankings)",
        f"--method {method} needs rankings without ties",
        "or use --method mixture or pl-mixture (they accept ties)",
    )


@pytest.mark.parametrize(("command", "k"), [("labelrank", []), ("supervise", ["-k", 2])])
def test_label_ranking_commands_refuse_ties_before_any_split(capsys, tmp_path, command, k):
    path = tmp_path / "tied_labels.csv"
    rows = ["0.1,0.2,1,2,3", "0.3,0.1,1,1,2", "0.5,0.5,3,2,1", "0.2,0.9,2,1,3"] * 2
    path.write_text("8,2,3\n" + "\n".join(rows) + "\n")  # data rows 2 and 6 tie
    code, _, err = run(capsys, command, path, *k)
    # file line 3 (the n,p,k header is line 1)
    assert_one_line_error(
        code,
        err,
        "tied_labels.csv:3: this row ranks items as tied (and 1 more row)",
        "without ties",
    )


# ---------------------------------------------------------------------------- label ranking
# fixed neighbourhoods keep the instance-based rankers fast (no k selection by CV)
_FAST = {"iblr": ["--set", "n_neighbors=5"], "iblr-pl": ["--set", "n_neighbors=5"]}


@pytest.mark.parametrize("name", list(cli.LABEL_RANKING_METHODS))
def test_labelrank(capsys, tmp_path, label_ranking_csv, name):
    js = tmp_path / "lr.json"
    code, out, err = run(capsys, "labelrank", label_ranking_csv, "--method", name,
                         "--random-state", 0, "--json", js, "-q", *_FAST.get(name, []))  # fmt: skip
    assert code == 0, err
    assert "Kendall tau" in out
    result = json.loads(js.read_text())
    assert -1.0 <= result["kendall_tau_mean"] <= 1.0


def test_labelrank_rejects_non_label_ranking_file(capsys, orderings_csv):
    code, _, err = run(capsys, "labelrank", orderings_csv, "--method", "iblr")
    assert_one_line_error(code, err)


@pytest.mark.parametrize("name", list(cli.SUPERVISED_METHODS))
def test_supervise(capsys, tmp_path, label_ranking_csv, name):
    js = tmp_path / "sup.json"
    k = 1 if name == "one-rank" else 3  # one cluster: another -k is refused
    code, _, err = run(capsys, "supervise", label_ranking_csv, "-k", k, "--method", name,
                         "--random-state", 0, "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    result = json.loads(js.read_text())
    assert len(result["clusters"]) == (1 if name == "one-rank" else 3)
    assert -1.0 <= result["kendall_tau_mean"] <= 1.0


def test_supervise_k_larger_than_rows(capsys, label_ranking_csv):
    name = next(iter(cli.SUPERVISED_METHODS))
    code, _, err = run(capsys, "supervise", label_ranking_csv, "-k", 500, "--method", name)
    assert_one_line_error(code, err)


# ---------------------------------------------------------------------------- ordinal
@pytest.fixture
def ordinal_files(tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 20)
    X = np.c_[4.0 * y + rng.normal(size=60), rng.normal(size=60)]
    feats = tmp_path / "feat.csv"
    np.savetxt(feats, X, delimiter=",", header="a,b", comments="")
    pairs = tmp_path / "pairs.csv"
    hi = [rng.choice(np.flatnonzero(y == 2)) for _ in range(6)]
    lo = [rng.choice(np.flatnonzero(y == 0)) for _ in range(6)]
    np.savetxt(pairs, np.c_[hi, lo], delimiter=",", fmt="%d")
    return feats, pairs, y


def test_ordinal(capsys, tmp_path, ordinal_files):
    feats, pairs, _ = ordinal_files
    js = tmp_path / "ord.json"
    code, out, err = run(
        capsys, "ordinal", feats, "--pairs", pairs, "-k", 3, "--random-state", 0,
        "--set", "kernel=\"linear\"", "--set", "balance=10", "--n-init", 2, "--json", js, "-q",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(js.read_text())
    labels = np.array(result["labels"])
    assert labels.shape == (60,)
    assert "ranking pairs respected" in out
    assert sum(result["sizes"]) == 60


def test_ordinal_bad_pairs(capsys, tmp_path, ordinal_files):
    feats, _, _ = ordinal_files
    bad = tmp_path / "bad_pairs.csv"
    bad.write_text("0,1\n5,600\n")
    code, _, err = run(capsys, "ordinal", feats, "--pairs", bad, "-k", 3)
    assert_one_line_error(code, err, "pair 2", "600")
    bad.write_text("0,1,2\n")
    code, _, err = run(capsys, "ordinal", feats, "--pairs", bad, "-k", 3)
    assert_one_line_error(code, err, "2 columns")


def test_ordinal_malformed_features(capsys, tmp_path):
    feats = tmp_path / "f.csv"
    feats.write_text("a,b\n1,2\n3,oops\n")
    code, _, err = run(capsys, "ordinal", feats, "-k", 2)
    assert_one_line_error(code, err, "line 3", "'oops'")


# ---------------------------------------------------------------------------- reproduce
def test_reproduce_unknown_paper(capsys):
    code, _, err = run(capsys, "reproduce", "smith1999")
    assert_one_line_error(code, err, "unknown paper", "ukkonen2011")


def test_reproduce_missing_script(capsys, tmp_path):
    (tmp_path / "experiments").mkdir()
    code, _, err = run(capsys, "reproduce", "busse2007", "--experiments-dir",
                       tmp_path / "experiments")  # fmt: skip
    assert_one_line_error(code, err, "no experiments/*busse2007*.py script in", "subfolders")


def test_reproduce_runs_script_quick(capsys, tmp_path):
    exp = tmp_path / "experiments"
    exp.mkdir()
    script = exp / "fake_xiao2016.py"
    script.write_text(
        "import sys, pathlib\n"
        "out = pathlib.Path(__file__).parent / 'results'\n"
        "out.mkdir(exist_ok=True)\n"
        "(out / 'fake_xiao2016.md').write_text(' '.join(sys.argv[1:]))\n"
    )
    code, out, err = run(capsys, "reproduce", "xiao2016", "--experiments-dir", exp, "-q",
                         "--", "--extra")  # fmt: skip
    assert code == 0, err
    assert (exp / "results" / "fake_xiao2016.md").read_text() == "--quick --extra"
    assert "results are written to" in out and "fake_xiao2016.md" in out


_FAKE_SCRIPT = (
    "import sys, pathlib\n"
    "out = pathlib.Path(__file__).parent / 'results'\n"
    "out.mkdir(exist_ok=True)\n"
    "(out / (pathlib.Path(__file__).stem + '.md')).write_text(' '.join(sys.argv[1:]))\n"
)


@pytest.mark.parametrize("folder", ["", "xiao2016", "ordinal_clustering"])
def test_reproduce_finds_the_script_flat_or_in_a_paper_folder(capsys, tmp_path, folder):
    # experiments/*PAPER*.py, or one folder per paper: experiments/<folder>/*PAPER*.py
    exp = tmp_path / "experiments"
    (exp / folder).mkdir(parents=True)
    script = exp / folder / "ordinal_clustering_xiao2016.py"
    script.write_text(_FAKE_SCRIPT)
    (exp / "chains_ukkonen2011.py").write_text("raise SystemExit(3)\n")  # another paper's
    code, out, err = run(capsys, "reproduce", "xiao2016", "--experiments-dir", exp, "-q",
                         "--", "--extra")  # fmt: skip
    assert code == 0, err
    written = exp / folder / "results" / "ordinal_clustering_xiao2016.md"
    assert written.read_text() == "--quick --extra"
    assert f"results are written to {written}" in out


def test_reproduce_looks_one_folder_deep_and_not_in_hidden_folders(capsys, tmp_path):
    from rankclust.cli.commands.reproduce import find_scripts

    exp = tmp_path / "experiments"
    for sub in ("a/b", ".ipynb_checkpoints"):
        (exp / sub).mkdir(parents=True)
    (exp / "a" / "b" / "mixture_busse2007.py").write_text(_FAKE_SCRIPT)  # two levels down
    (exp / ".ipynb_checkpoints" / "mixture_busse2007-checkpoint.py").write_text(_FAKE_SCRIPT)
    code, _, err = run(capsys, "reproduce", "busse2007", "--experiments-dir", exp)
    assert_one_line_error(code, err, "no experiments/*busse2007*.py script in", str(exp))
    assert find_scripts(exp, "busse2007") == []
    (exp / "a" / "mixture_busse2007.py").write_text(_FAKE_SCRIPT)
    assert find_scripts(exp, "busse2007") == [exp / "a" / "mixture_busse2007.py"]


# ---------------------------------------------------------------------------- demo
def test_demo(capsys, tmp_path):
    plots = tmp_path / "demo"
    code, out, err = run(capsys, "demo", "--plots", plots, "-q", "--random-state", 0)
    assert code == 0, err
    assert "Mallows" in out and "PlackettLuce" in out
    assert "central ranking: label" in out
    assert "dispersion theta" in out
    names = {p.name for p in plots.iterdir()}
    assert {"1_models_central_rankings.png", "1_pairwise_preferences.png"} <= names
    assert "2_model_selection.png" in names
    assert all((plots / n).stat().st_size > 1000 for n in names)


# ---------------------------------------------------------------------------- reading
def test_load_rankings_formats(tmp_path, orderings_csv, preflib_file, label_ranking_csv):
    R = cli.load_rankings(str(orderings_csv))
    assert R.shape == (24, 5) and R.kind == "top" and R.items == ("1", "2", "3", "4", "5")
    P = cli.load_rankings(str(preflib_file))
    assert P.kind == "top" and P.is_weighted and P.items == tuple(ITEMS)
    L = cli.load_rankings(str(label_ranking_csv))
    assert L.shape == (60, 3) and L.kind == "subset" and L.items[0] == "label 1"
    ranks = tmp_path / "ranks.csv"
    ranks.write_text("x,y,z\n1,2,3\n2,1,0\n")
    Q = cli.load_rankings(str(ranks), fmt="ranks")
    assert Q.items == ("x", "y", "z") and Q.ranks.tolist() == [[0, 1, 2], [1, 0, -1]]


def test_load_rankings_gzip_named(tmp_path):
    import gzip

    path = tmp_path / "n.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("Rank_1,Rank_2\nb,a\na,\n")
    R = cli.load_rankings(str(path))
    assert R.items == ("b", "a")
    assert R.ranks.tolist() == [[0, 1], [-1, 0]]


def test_named_orderings_gap_and_duplicate(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("a,,b\n")
    with pytest.raises(ValueError, match="line 1: a filled position follows an empty one"):
        cli.load_rankings(str(path))
    path.write_text("a,b,a\n")
    with pytest.raises(ValueError, match="line 1: item 'a' appears more than once"):
        cli.load_rankings(str(path))


def test_items_file_duplicates(tmp_path, orderings_csv):
    items = tmp_path / "dup.txt"
    items.write_text("a\nb\na\n")
    with pytest.raises(ValueError, match="line 3: item name 'a' appears more than once"):
        cli.load_rankings(str(orderings_csv), items_file=str(items))


def test_method_registry_picks_up_package_registry(monkeypatch):
    import rankclust.cluster as pkg
    from rankclust.cluster import ChainKMeans

    monkeypatch.setattr(pkg, "CLUSTERERS", {"my-chains": ChainKMeans}, raising=False)
    methods = cli.method_registry("cluster")
    assert methods["my-chains"].load() is ChainKMeans
    assert "mixture" in methods  # defaults stay


def test_make_estimator_maps_common_options():
    from rankclust.cluster import ChainKMeans

    est = cli.make_estimator(ChainKMeans, n_clusters=3, random_state=7, n_init=2,
                             extra={"max_iter": 9})  # fmt: skip
    assert est.get_params()["n_clusters"] == 3
    assert est.random_state == 7 and est.n_init == 2 and est.max_iter == 9


def test_outputs_module_is_importable_without_method_modules():
    # building the parser must not import the method packages (fast --help)
    code = (
        "import sys; from rankclust.cli import build_parser; build_parser(); "
        "print(any(m.startswith('rankclust.cluster') for m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).parent)  # fmt: skip
    assert proc.stdout.strip() == "False", proc.stderr


# ---------------------------------------------------------------------------- issue #17
def test_select_k_cli_table_is_the_select_k_table(capsys, tmp_path):
    """One model-selection path: the CLI calls select_k once over all K (warm starts)."""
    from rankclust.cluster.mixture import MallowsMixture, select_k
    from rankclust.datasets import make_mallows_mixture
    from rankclust.io import read_preflib, write_preflib

    R, _ = make_mallows_mixture(200, 5, 3, thetas=0.8, lengths=(1, 5), kind="top", random_state=2)
    R, _ = R.unique()
    path, js = tmp_path / "ballots.soi", tmp_path / "sel.json"
    write_preflib(R, path)
    code, out, err = run(capsys, "select-k", path, "--ks", "1..4", "--n-init", 3,
                         "--random-state", 0, "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    result = json.loads(js.read_text())
    data = read_preflib(path)
    api = select_k(MallowsMixture(n_init=3, random_state=0), data, ks=range(1, 5))
    cols = ("log_likelihood", "bic", "icl", "aic")
    assert [[row[c] for c in cols] for row in result["selection"]] == [
        [row[c] for c in cols] for row in api.table
    ]
    ll = [row["log_likelihood"] for row in result["selection"]]
    assert all(b >= a - 1e-9 * abs(a) for a, b in itertools.pairwise(ll))
    assert result["best_k"] == api.best_k and result["best_k_by"] == api.best_k_by
    assert result["at_edge"] == api.at_edge and result["notes"] == api.notes
    for note in api.notes:
        assert note in out


def test_select_k_cli_says_when_k_is_at_the_edge(capsys, tmp_path, preflib_file):
    js = tmp_path / "sel.json"
    code, out, err = run(capsys, "select-k", preflib_file, "--ks", "1,2", "--n-init", 2,
                         "--random-state", 0, "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    result = json.loads(js.read_text())
    assert result["at_edge"] == "largest" and result["best_k"] == 2
    assert "the largest K tried" in out and "widen the range of K" in out


def test_cluster_summary_shows_map_size_soft_count_and_restarts(capsys, tmp_path, preflib_file):
    js = tmp_path / "mix.json"
    code, out, err = run(capsys, "cluster", preflib_file, "-k", 2, "--random-state", 0,
                         "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert "MAP size" in lines[1] and "soft count" in lines[1]
    assert any(ln.startswith("MAP size: rankings whose most probable") for ln in lines)
    assert any(ln.startswith("restarts: ") and "reached by" in ln for ln in lines)
    fitted = json.loads(js.read_text())["fitted"]
    assert {"n_init_", "n_init_agreeing_", "restart_gap_"} <= set(fitted)
    clusters = json.loads(js.read_text())["clusters"]
    assert sum(c["soft_count"] for c in clusters) == pytest.approx(
        sum(c["count"] for c in clusters)
    )
