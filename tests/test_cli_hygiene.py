"""The command line's hygiene: closed pipes, refused options, messages, wide text, JSON data.

Every command x option pair is enumerated from the parser itself, so a new option must be
either honoured by a command (listed in ``ACCEPTS``) or refused by it with one line.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rankclust import Rankings, cli
from rankclust.cli import main
from rankclust.cli.report import to_jsonable
from tests._cli import one_line_error, run

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

SRC = Path(cli.__file__).resolve().parents[2]  # src/ (cli is a package)

# The long options each command honours (the audit table: a change of the parser must
# change this table too, so every command x option pair is a decision).
_COMMON = {"--help", "--quiet", "--debug"}
_FIT = {"--n-init", "--set", "--random-state", "--plots", "--json"}
_RANK_INPUT = {"--format", "--kind", "--items", "--encoding", "--skip-malformed"}
_CI = {"--ci", "--ci-level", "--n-jobs"}
ACCEPTS = {
    "cluster": _COMMON | _FIT | _RANK_INPUT | _CI | {"--save", "--wide", "--k", "--method",
                                                    "--distance", "--features"},
    "select-k": _COMMON | _FIT | _RANK_INPUT | _CI | {"--save", "--wide", "--ks", "--criterion",
                                                     "--method", "--lrt", "--distance",
                                                     "--features"},
    "labelrank": _COMMON | _FIT | {"--items", "--encoding", "--save", "--wide", "--test-size",
                                  "--cv", "--method"},
    "supervise": _COMMON | _FIT | {"--items", "--encoding", "--save", "--wide", "--test-size",
                                  "--cv", "--k", "--method"},
    "ordinal": _COMMON | _FIT | {"--save", "--pairs", "--k", "--method"},
    "significance": _COMMON | _FIT | _RANK_INPUT | {"--k", "--method", "--n-samples",
                                                   "--n-steps", "--statistic",
                                                   "--greater-is-better"},
    "demo": _COMMON | {"--plots", "--wide", "--random-state"},
    "reproduce": _COMMON | {"--full", "--experiments-dir"},
    "predict": _COMMON | {"--format", "--kind", "--items", "--encoding", "--out", "--json"},
}  # fmt: skip


def _commands():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return dict(sub.choices)


# ---------------------------------------------------------------------------- data
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from rankclust.datasets import load_label_ranking
    from rankclust.io import write_label_ranking_csv, write_preflib

    d = tmp_path_factory.mktemp("hygiene")
    a = [[0, 1, 2, 3, 4], [1, 0, 2, 3, 4], [0, 2, 1, 3, 4]]
    b = [[4, 3, 2, 1, 0], [3, 4, 2, 1, 0], [4, 3, 1, 2, 0]]
    orders = [a[i % 3] for i in range(12)] + [b[i % 3] for i in range(12)]
    out = {"orderings": d / "ballots.csv"}
    rows = ["Rank_1,Rank_2,Rank_3,Rank_4,Rank_5"]  # headerless permutations are ambiguous
    rows += [",".join(str(j + 1) for j in o) for o in orders]
    out["orderings"].write_text("\n".join(rows) + "\n")
    R = Rankings.from_orderings([o[:3] for o in orders], n_items=5, kind="top")
    out["preflib"] = d / "ballots.soi"
    write_preflib(R.unique()[0], out["preflib"])
    X, Y = load_label_ranking("iris")
    idx = np.r_[0:15, 50:65, 100:115]
    out["labels"] = d / "iris_small.csv"
    write_label_ranking_csv(out["labels"], X[idx], Y[idx])
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 15)
    out["features"] = d / "feat.csv"
    np.savetxt(out["features"], np.c_[4.0 * y + rng.normal(size=45), rng.normal(size=45)],
               delimiter=",", header="a,b", comments="")  # fmt: skip
    # 14 items: rankings longer than the 12 shown without --wide
    rng = np.random.default_rng(1)
    base = [list(range(14)), list(range(14))[::-1]]
    long = [base[i % 2] if i % 3 else list(rng.permutation(14)) for i in range(20)]
    out["long"] = d / "long.csv"
    out["long"].write_text("\n".join(",".join(f"item{j:02d}" for j in o) for o in long) + "\n")
    return out


# One quick run of each command (what it needs besides its outputs).
RUNS = {
    "cluster": lambda f: ["cluster", f["orderings"], "-k", 2, "--method", "chains", "--kind",
                          "subset", "--n-init", 2],
    "select-k": lambda f: ["select-k", f["preflib"], "--ks", "1,2", "--n-init", 2],
    "labelrank": lambda f: ["labelrank", f["labels"], "--method", "consensus"],
    "supervise": lambda f: ["supervise", f["labels"], "-k", 2, "--method", "rt-iter"],
    "ordinal": lambda f: ["ordinal", f["features"], "-k", 2],
    "significance": lambda f: ["significance", f["orderings"], "-k", 2, "--kind", "subset",
                               "--n-samples", 3, "--n-steps", 50],
}  # fmt: skip


@pytest.fixture(scope="module")
def outputs(files, tmp_path_factory):
    """Each command run once with every output it takes: {command: (code, stdout, dir)}."""
    results = {}
    for command, argv in RUNS.items():
        d = tmp_path_factory.mktemp(command)
        extra = ["--json", d / "out.json", "--plots", d / "figs", "-q", "--random-state", 0]
        if "--save" in ACCEPTS[command]:
            extra += ["--save", d / "model.zip"]
        buf_out, buf_err = io.StringIO(), io.StringIO()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(sys, "stdout", buf_out)
            mp.setattr(sys, "stderr", buf_err)
            code = main([str(a) for a in argv(files) + extra])
        results[command] = (code, buf_out.getvalue(), buf_err.getvalue(), d)
    return results


# ---------------------------------------------------------------------------- the audit
def test_audit_table_matches_the_parser():
    commands = _commands()
    assert set(commands) == set(ACCEPTS)
    for name, p in commands.items():
        assert cli._option_strings(p) == ACCEPTS[name], name


@pytest.mark.parametrize("command", sorted(ACCEPTS))
def test_every_option_of_another_command_is_refused_in_one_line(capsys, command):
    everything = set().union(*ACCEPTS.values())
    args = {"reproduce": ["ukkonen2011"], "demo": [], "cluster": ["FILE", "-k", "2"],
            "supervise": ["FILE", "-k", "2"], "significance": ["FILE", "-k", "2"]}.get(
        command, ["FILE"]
    )  # fmt: skip
    for option in sorted(everything - ACCEPTS[command]):
        code, out, err = run(capsys, command, *args, option, "X")
        line = one_line_error(code, err, f"rankclust {command}: error: {option}: ")
        assert out == "", (command, option)
        assert "no such file" not in line  # refused while parsing, before any reading


@pytest.mark.parametrize("command", sorted(RUNS))
def test_every_requested_output_is_written(outputs, command):
    code, _, err, d = outputs[command]
    assert code == 0, err
    assert json.loads((d / "out.json").read_text())["command"] == command
    assert any((d / "figs").glob("*.png")), command
    if "--save" in ACCEPTS[command]:
        from rankclust.persistence import load

        load(d / "model.zip")


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["select-k", "{orderings}", "--method", "chains", "--kind", "subset", "--save", "m.zip"],
         ["--save: --method chains has no information criterion", "cluster -k K --save"]),
        (["select-k", "{orderings}", "--method", "komeans", "--criterion", "icl"],
         ["--criterion: --method komeans has no information criterion"]),
        (["labelrank", "{labels}", "--cv", 3, "--test-size", 0.2], ["--test-size", "--cv"]),
        (["labelrank", "{labels}", "--n-init", 3], ["--n-init: IBLRMallows has no n_init"]),
        (["cluster", "{orderings}", "-k", 2, "--set", "nope=1"], ["--set nope=...", "no parameter"]),
        (["supervise", "{labels}", "-k", 3, "--method", "one-rank"],
         ["-k 3: --method one-rank fits a single cluster; pass -k 1"]),
        (["significance", "{orderings}", "-k", 2, "--greater-is-better"],
         ["--greater-is-better", "--statistic"]),
        (["significance", "{orderings}", "-k", 2, "--save", "m.zip"],
         ["--save: significance keeps no fitted model"]),
        (["reproduce", "ukkonen2011", "--experiments-dir", "/no/such/dir"],
         ["--experiments-dir /no/such/dir: no such directory"]),
    ],
)  # fmt: skip
def test_options_the_method_cannot_honour_are_refused_before_any_work(
    capsys, files, tmp_path, argv, fragments
):
    argv = [str(a).format(**files) for a in argv]
    plots = ["--plots", tmp_path / "figs"] if argv[0] != "reproduce" else []
    code, out, err = run(capsys, *argv, *plots)
    one_line_error(code, err, *fragments)
    assert out == "" and not (tmp_path / "figs").exists() and not Path("m.zip").exists()


def test_reproduce_never_runs_another_folders_script(capsys, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    code, _, err = run(capsys, "reproduce", "ukkonen2011", "--experiments-dir",
                       tmp_path / "elsewhere")  # fmt: skip
    one_line_error(code, err, "no experiments/*ukkonen2011*.py script in", "elsewhere")
    (tmp_path / "a_file").write_text("")
    code, _, err = run(capsys, "reproduce", "ukkonen2011", "--experiments-dir",
                       tmp_path / "a_file")  # fmt: skip
    one_line_error(code, err, "a_file: is not a directory")


@pytest.mark.parametrize("value", ["-5", "abc", "1.5", str(2**32)])
def test_random_state_must_be_a_seed(capsys, value):
    code, _, err = run(capsys, "labelrank", "FILE", "--random-state", value)
    one_line_error(code, err, "--random-state must be a non-negative integer", repr(value))


def test_random_state_bounds_are_accepted():
    parser = cli.build_parser()
    for value in ("0", str(2**32 - 1)):
        args = parser.parse_args(["labelrank", "F", "--random-state", value])
        assert args.random_state == int(value)


# ---------------------------------------------------------------------------- pipes
def _closed_pipe_run(argv, tmp_path, *, merged=False):
    """Run the command with its standard output (and, ``merged``, its standard error: as
    ``2>&1 | head``) closed before it prints anything; (exit code, standard error)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "rankclust", *map(str, argv)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(SRC)},
    )  # fmt: skip
    proc.stdout.close()  # the reader leaves, as `| head` does after its lines
    err = "" if merged else proc.stderr.read().decode()
    return proc.wait(timeout=300), err


@pytest.mark.parametrize("merged", [False, True], ids=["stdout", "stdout+stderr"])
def test_closed_pipe_ends_quietly_and_writes_every_file(files, tmp_path, merged):
    js, model, figs = tmp_path / "out.json", tmp_path / "m.zip", tmp_path / "figs"
    code, err = _closed_pipe_run(
        ["labelrank", files["labels"], "--method", "consensus", "--json", js, "--save", model,
         "--plots", figs, "--random-state", 0], tmp_path, merged=merged,
    )  # fmt: skip
    assert code == 0, err
    assert "Broken pipe" not in err and "BrokenPipeError" not in err, err
    assert "Exception ignored" not in err, err
    assert json.loads(js.read_text())["command"] == "labelrank"
    assert model.is_file() and any(figs.glob("*.png"))


def test_console_stops_printing_on_a_closed_pipe():
    class Closed(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    console = cli._Console(quiet=True, out=Closed())
    console.print("a line")  # no exception
    assert console.out_closed
    console.print("another")  # silently dropped


# ---------------------------------------------------------------------------- messages
def test_tie_error_names_the_file_line_after_blank_lines(capsys, tmp_path):
    path = tmp_path / "tied.csv"
    path.write_text("3,1,2\n\n1,2,3\n\n2,2,1\n3,2,1\n")  # the tie is on line 5
    code, _, err = run(capsys, "cluster", path, "-k", 2, "--format", "ranks", "--kind", "subset",
                       "--method", "chains")  # fmt: skip
    one_line_error(code, err, "tied.csv:5: this ranking ranks items as tied",
                   "--method chains needs rankings without ties")  # fmt: skip


def test_row_lines_fall_back_to_the_data_row_when_lines_cannot_be_told(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("a\nb\nc\nd\n")
    assert cli._data_row_lines(str(path), 3) == [2, 3, 4]  # a header line
    assert cli._data_row_lines(str(path), 4) == [1, 2, 3, 4]
    assert cli._data_row_lines(str(path), 2) is None  # rows merged or skipped by the reader
    assert cli._where(str(path), 1, 2) == f"{path}: data row 2"


# ---------------------------------------------------------------------------- text output
def test_long_rankings_are_cut_with_a_pointer_to_wide_and_whole_with_it(capsys, files):
    argv = ["cluster", files["long"], "-k", 2, "--method", "chains", "--kind", "subset",
            "--random-state", 0, "-q"]  # fmt: skip
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert "... (2 more)" in out and "--wide shows them whole" in out
    code, out, err = run(capsys, *argv, "--wide")
    assert code == 0, err
    assert "more)" not in out and "--wide" not in out
    rankings = [ln for ln in out.splitlines() if ln.count(" > ") == 13]
    assert len(rankings) == 2  # both central rankings, all 14 items


def test_labelrank_says_its_predictions_are_in_sample(outputs):
    _, out, _, _ = outputs["labelrank"]
    assert "in-sample predictions for the first 5 rows (training rows" in out
    assert "row 1 (line 2):" in out  # line 1 is the n,p,k header


# ---------------------------------------------------------------------------- JSON
_REPR = re.compile(r"<[^<>]*\bat 0x[0-9a-fA-F]+>|object at 0x")


def _walk(value, path="$"):
    """Yield (path, problem) for anything that is not plain JSON data."""
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                yield path, f"key {k!r} is not a string"
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, f"{path}[{i}]")
    elif isinstance(value, str):
        if _REPR.search(value):
            yield path, f"a repr string: {value[:60]!r}"
    elif value is not None and not isinstance(value, bool | int | float):
        yield path, f"a {type(value).__name__}"


@pytest.mark.parametrize("command", sorted(RUNS))
def test_json_of_every_command_holds_only_data(outputs, command):
    _, _, _, d = outputs[command]
    problems = list(_walk(json.loads((d / "out.json").read_text())))
    assert not problems, problems[:5]


@pytest.mark.parametrize("method", sorted(cli.SUPERVISED_METHODS))
def test_json_of_every_supervised_method_holds_only_data(capsys, files, tmp_path, method):
    js = tmp_path / "s.json"
    k = 1 if method == "one-rank" else 2
    code, _, err = run(capsys, "supervise", files["labels"], "-k", k, "--method", method,
                       "--json", js, "-q", "--random-state", 0)  # fmt: skip
    assert code == 0, err
    problems = list(_walk(json.loads(js.read_text())))
    assert not problems, problems[:5]


def test_to_jsonable_writes_objects_as_data_not_repr():
    from dataclasses import dataclass

    class Tree:  # a fitted container, as a KTree
        def __init__(self):
            self.feature = np.array([0, -1, -1])
            self.threshold = np.array([0.5, np.nan, np.nan])
            self._cache = object()
            self.me = self  # a cycle ends, it does not recurse

    @dataclass
    class Point:
        x: float
        y: np.ndarray

    out = to_jsonable({"tree": Tree(), "point": Point(1.0, np.arange(2)), "cls": Tree,
                       "slots": slice(1, 2), "fun": np.mean})  # fmt: skip
    assert out["tree"]["feature"] == [0, -1, -1] and out["tree"]["threshold"] == [0.5, None, None]
    assert "_cache" not in out["tree"] and out["tree"]["me"]["type"].endswith("Tree")
    assert out["point"] == {"type": out["point"]["type"], "x": 1.0, "y": [0, 1]}
    assert out["cls"].endswith("Tree") and out["fun"] == "numpy.mean"
    assert out["slots"]["type"] == "builtins.slice"
    assert not list(_walk(json.loads(json.dumps(out))))


def test_tie_error_names_the_preflib_line_after_its_header(capsys, tmp_path):
    path = tmp_path / "x.toc"
    head = ["# FILE NAME: x.toc", "# DATA TYPE: toc", "# NUMBER ALTERNATIVES: 3"]
    head += [f"# ALTERNATIVE NAME {j}: {n}" for j, n in enumerate("ABC", start=1)]
    head += ["# NUMBER VOTERS: 6", "# NUMBER UNIQUE ORDERS: 3"]
    path.write_text("\n".join([*head, "3: 1,2,3", "2: 3,2,1", "1: {1,2},3"]) + "\n")
    code, _, err = run(capsys, "cluster", path, "-k", 2, "--method", "komeans", "--kind", "subset")
    one_line_error(code, err, "x.toc:11: this ranking ranks items as tied", "--method komeans")


def test_similar_warnings_are_shown_once_with_a_count():
    import io
    import warnings

    from rankclust.cli._console import Console, warnings_as_lines

    err = io.StringIO()
    console = Console(False, io.StringIO(), err)
    with warnings_as_lines(console):
        for fold in range(5):
            warnings.warn(
                f"fold {fold}: 3 of {40 + fold} fits did not converge", UserWarning, stacklevel=1
            )
        warnings.warn("another warning", UserWarning, stacklevel=1)
    lines = err.getvalue().strip().splitlines()
    assert lines == [
        "rankclust: warning: fold 0: 3 of 40 fits did not converge (and 4 similar)",
        "rankclust: warning: another warning",
    ]
