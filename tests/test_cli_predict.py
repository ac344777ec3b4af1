"""Tests for ``rankclust predict`` (rankclust.cli.commands.predict): saved model -> new rows -> names."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler

from rankclust import Rankings
from rankclust.persistence import load, save
from tests._cli import run

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

SRC = Path(__file__).resolve().parents[1] / "src"
LABELS = ["red", "green", "blue", "amber"]
ITEMS = ["Alice", "Bob", "Carol", "Dave", "Eve"]


def run_new_process(*argv):
    """``python -m rankclust ...`` in a fresh interpreter (this source tree first)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "rankclust", *map(str, argv)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def _label_data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    base = np.where(X[:, :1] > 0, [[1, 2, 3, 4]], [[4, 3, 2, 1]])
    Y = Rankings.from_ranks(base, items=LABELS)
    return X, Y


def _write_features(path, X):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([f"f{j}" for j in range(X.shape[1])])
        w.writerows([[repr(float(v)) for v in row] for row in X])


def _ballots(n_per=15, seed=0):
    rng = np.random.default_rng(seed)
    a = np.array([0, 1, 2, 3, 4])
    rows = []
    for i in range(2 * n_per):
        order = a.copy() if i < n_per else a[::-1].copy()
        j = rng.integers(4)
        order[[j, j + 1]] = order[[j + 1, j]]
        rows.append(order)
    ranks = np.argsort(np.array(rows), axis=1)  # 0-based position of each item
    return Rankings(ranks, kind="top", items=ITEMS)


def _write_ranks(path, R, order):
    """A CSV of 1-based ranks with the item columns in ``order`` and a header of names."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([R.items[j] for j in order])
        w.writerows((R.ranks[:, order] + 1).tolist())


def _read_csv(text):
    return list(csv.DictReader(text.splitlines()))


# ------------------------------------------------------------------ the round trip
@pytest.mark.parametrize("frames", [False, True], ids=["rankings", "dataframes"])
@pytest.mark.parametrize("kind", ["label_ranker", "supervised", "mixture"])
def test_round_trip_in_a_new_process(tmp_path, kind, frames):
    """Named data (Rankings with items, or pandas DataFrames with named columns) -> fit ->
    save -> ``rankclust predict`` in a new process -> same names and the same predictions as
    in this process."""
    pd = pytest.importorskip("pandas") if frames else None
    model_path = tmp_path / "model.zip"
    out_csv, out_json = tmp_path / "p.csv", tmp_path / "p.json"
    if kind == "mixture":
        from rankclust.cluster import MallowsMixture

        R = _ballots()
        est = MallowsMixture(2, random_state=0).fit(R.to_dataframe() if frames else R)
        new = tmp_path / "new.csv"
        _write_ranks(new, R, [3, 0, 4, 2, 1])  # columns in another order
        want_cluster = est.predict(R)
        want_proba = est.predict_proba(R)
    else:
        from rankclust.label_ranking import LabelRankingTree
        from rankclust.supervised import PrototypePLMixture

        X, Y = _label_data()
        X_fit, Y_fit = X, Y
        if frames:
            X_fit = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
            Y_fit = Y.to_dataframe()
        est = (
            LabelRankingTree().fit(X_fit, Y_fit)
            if kind == "label_ranker"
            else PrototypePLMixture(n_clusters=2, random_state=0).fit(X_fit, Y_fit)
        )
        new = tmp_path / "new.csv"
        _write_features(new, X[:12])
        want_rankings = est.predict_rankings(X[:12])
        assert want_rankings.items == tuple(LABELS)
    save(est, model_path)
    # a header of names over rank rows is detected as rank vectors (no --format needed)
    proc = run_new_process("predict", model_path, new, "--out", out_csv, "--json", out_json)
    assert proc.returncode == 0, proc.stderr
    rows = _read_csv(out_csv.read_text())
    result = json.loads(out_json.read_text())
    if kind == "mixture":
        assert result["items"] == ITEMS
        got = np.array([int(r["cluster"]) for r in rows])
        np.testing.assert_array_equal(got, want_cluster)
        proba = np.array([p["probabilities"] for p in result["predictions"]])
        np.testing.assert_allclose(proba, want_proba, rtol=1e-12, atol=1e-300)
        assert [p["cluster"] for p in result["predictions"]] == want_cluster.tolist()
    else:
        assert result["items"] == LABELS
        want = [[LABELS[j] for j in o] for o in want_rankings.to_orderings()]
        assert [p["ranking"] for p in result["predictions"]] == want
        assert [[r[f"rank_{p + 1}"] for p in range(4)] for r in rows] == want
        if kind == "supervised":
            np.testing.assert_array_equal([int(r["cluster"]) for r in rows], est.predict(X[:12]))
            proba = np.array([p["probabilities"] for p in result["predictions"]])
            np.testing.assert_allclose(proba, est.predict_proba(X[:12]), rtol=1e-12)


# ------------------------------------------------------------------ CLI fits keep the names
@pytest.fixture
def lr_csv(tmp_path):
    X, Y = _label_data(60, seed=1)
    path = tmp_path / "lr.csv"
    lines = [f"{len(X)},{X.shape[1]},{Y.n_items}"]
    lines += [",".join([repr(float(v)) for v in X[i]] + [str(r) for r in Y.to_ranks()[i]])
              for i in range(len(X))]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    labels = tmp_path / "labels.txt"
    labels.write_text("\n".join(LABELS) + "\n")
    feats = tmp_path / "feats.csv"
    _write_features(feats, X[:6])
    return path, labels, feats, X


@pytest.mark.parametrize("command", [["labelrank", "--method", "lrt"], ["supervise", "-k", "2"]])
def test_save_keeps_items_names(capsys, tmp_path, lr_csv, command):
    path, labels, feats, X = lr_csv
    model = tmp_path / "m.zip"
    code, _, err = run(capsys, *command, path, "--items", labels, "--save", model,
                       "--random-state", "0")  # fmt: skip
    assert code == 0, err
    est = load(model)
    assert est.items_ == tuple(LABELS)
    code, out, err = run(capsys, "predict", model, feats)
    assert code == 0, err
    rows = _read_csv(out)
    assert len(rows) == 6
    want = [[LABELS[j] for j in o] for o in est.predict_rankings(X[:6]).to_orderings()]
    assert [[r[f"rank_{p + 1}"] for p in range(4)] for r in rows] == want
    # the label-ranking CSV itself can be the input: its features are used
    code, out2, err = run(capsys, "predict", model, path, "--format", "label-ranking")
    assert code == 0, err
    assert _read_csv(out2)[:6] == rows


def test_cluster_model_aligns_by_name_and_takes_unnamed_files_by_position(capsys, tmp_path):
    from rankclust.cluster import ChainKMeans

    R = _ballots().with_kind("subset")
    est = ChainKMeans(2, random_state=0).fit(R)
    model = tmp_path / "m.zip"
    save(est, model)
    shuffled = tmp_path / "shuffled.csv"
    _write_ranks(shuffled, R, [4, 2, 0, 1, 3])
    code, out, err = run(capsys, "predict", model, shuffled, "--format", "ranks")
    assert code == 0, err
    got = [int(r["cluster"]) for r in _read_csv(out)]
    assert got == est.predict(R).tolist()
    # a file without names: by position
    plain = tmp_path / "plain.csv"
    plain.write_text("\n".join(",".join(map(str, row)) for row in (R.ranks + 1).tolist()) + "\n")
    code, out, err = run(capsys, "predict", model, plain, "--format", "ranks")
    assert code == 0, err
    assert [int(r["cluster"]) for r in _read_csv(out)] == got


# ------------------------------------------------------------------ refusals (one line each)
def _one_line(code, err, *fragments):
    assert code == 2
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    for f in fragments:
        assert f in lines[0], lines[0]


def test_unknown_item_names_are_refused(capsys, tmp_path):
    from rankclust.cluster import MallowsMixture

    R = _ballots()
    model = tmp_path / "m.zip"
    save(MallowsMixture(2, random_state=0).fit(R), model)
    bad = tmp_path / "bad.csv"
    renamed = Rankings(R.ranks, kind="top", items=["Alice", "Bob", "Carol", "Dave", "Zoe"])
    _write_ranks(bad, renamed, [0, 1, 2, 3, 4])
    code, _, err = run(capsys, "predict", model, bad, "--format", "ranks")
    _one_line(code, err, "unknown item(s) 'Zoe'", "missing item(s) 'Eve'")


def test_wrong_inputs_and_models_are_refused(capsys, tmp_path, lr_csv):
    _path, _labels, feats, X = lr_csv
    from rankclust.label_ranking import LabelRankingTree

    model = tmp_path / "m.zip"
    save(LabelRankingTree().fit(*_label_data()), model)
    code, _, err = run(capsys, "predict", model, feats, "--format", "orderings")
    _one_line(code, err, "--format orderings is for rankings")
    code, _, err = run(capsys, "predict", model, feats, "--kind", "top")
    _one_line(code, err, "--items and --kind apply to rankings")
    other = tmp_path / "scaler.zip"
    save(StandardScaler().fit(X), other)
    code, _, err = run(capsys, "predict", other, feats)
    _one_line(code, err, "holds a StandardScaler, not a rankclust estimator")
    unfitted = tmp_path / "unfitted.zip"
    save(LabelRankingTree(), unfitted)
    code, _, err = run(capsys, "predict", unfitted, feats)
    _one_line(code, err, "is not fitted")
    wide = tmp_path / "wide.csv"
    _write_features(wide, np.ones((3, 5)))
    code, _, err = run(capsys, "predict", model, wide)
    _one_line(code, err, "5 features")


def test_unseen_label_is_left_out_of_the_predicted_ranking(capsys, tmp_path):
    from rankclust.supervised import OneRank

    X, Y = _label_data()
    ranks = Y.ranks.copy()
    ranks[:, 1] = -1  # "green" is never observed
    est = OneRank().fit(X, Rankings(ranks, items=LABELS))
    model, feats, js = tmp_path / "m.zip", tmp_path / "f.csv", tmp_path / "p.json"
    save(est, model)
    _write_features(feats, X[:3])
    code, _out, err = run(capsys, "predict", model, feats, "--json", js)
    assert code == 0, err
    result = json.loads(js.read_text())
    assert result["unseen_items"] == ["green"]
    for p in result["predictions"]:
        assert "green" not in p["ranking"] and len(p["ranking"]) == 3


def test_ranking_model_without_clusters_gives_logpdf(capsys, tmp_path):
    from rankclust.models.mallows import Mallows

    R = _ballots()
    est = Mallows().fit(R)
    model, new = tmp_path / "m.zip", tmp_path / "new.csv"
    save(est, model)
    _write_ranks(new, R, [1, 3, 0, 4, 2])
    code, out, err = run(capsys, "predict", model, new, "--format", "ranks")
    assert code == 0, err
    got = np.array([float(r["logpdf"]) for r in _read_csv(out)])
    np.testing.assert_allclose(got, est.logpdf(R), rtol=1e-9)


def test_ordinal_model_predicts_clusters(capsys, tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 20)
    X = np.c_[4.0 * y + rng.normal(size=60), rng.normal(size=60)]
    feats, pairs, model = tmp_path / "f.csv", tmp_path / "pairs.csv", tmp_path / "m.zip"
    np.savetxt(feats, X, delimiter=",", header="a,b", comments="")
    np.savetxt(pairs, [[45, 5], [50, 10], [55, 15]], delimiter=",", fmt="%d")
    code, _, err = run(capsys, "ordinal", feats, "--pairs", pairs, "-k", 3, "--random-state",
                       0, "--set", 'kernel="linear"', "--save", model, "-q")  # fmt: skip
    assert code == 0, err
    code, out, err = run(capsys, "predict", model, feats)
    assert code == 0, err
    rows = _read_csv(out)
    assert list(rows[0]) == ["row", "cluster"]
    np.testing.assert_array_equal([int(r["cluster"]) for r in rows], load(model).predict(X))


def test_predict_reads_through_the_one_reader_with_its_encoding_option(tmp_path, capsys):
    from rankclust.cluster import MallowsMixture

    R = _ballots()
    R = Rankings(R.ranks, kind="top", items=["Zoë", "Zoé", "Ana", "Bo", "Cy"])
    est = MallowsMixture(2, random_state=0).fit(R)
    save(est, tmp_path / "m.zip")
    new = tmp_path / "latin.csv"
    order = [4, 2, 0, 1, 3]
    lines = [",".join(R.items[j] for j in order)]
    lines += [",".join(str(v) for v in row) for row in (R.ranks[:, order] + 1).tolist()]
    new.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    code, _, err = run(capsys, "predict", tmp_path / "m.zip", new)
    assert code == 2 and "--encoding" in err and "latin.csv" in err
    code, out, err = run(capsys, "predict", tmp_path / "m.zip", new, "--encoding", "latin-1")
    assert code == 0, err
    got = [int(r["cluster"]) for r in _read_csv(out)]
    assert got == est.predict(R).tolist()  # Zoë and Zoé kept apart, columns matched by name
