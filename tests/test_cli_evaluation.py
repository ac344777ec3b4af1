"""The held-out predictions in the ``--json`` of ``rankclust labelrank`` and ``supervise``.

Each predicted row is checked against a model refitted here on the same split (the split is
rebuilt with scikit-learn from the same seed), so a prediction written for the wrong row, fold
or label order fails.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.model_selection import KFold, train_test_split

from rankclust import cli
from rankclust.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

LABELS = ["setosa_rank", "versicolor_rank", "virginica_rank"]


@pytest.fixture
def iris_file(tmp_path):
    """60 rows of the shipped iris label-ranking set, labels named with --items."""
    from rankclust.datasets import load_label_ranking
    from rankclust.io import write_label_ranking_csv

    X, Y = load_label_ranking("iris")
    idx = np.r_[0:20, 50:70, 100:120]
    path = tmp_path / "iris_small.csv"
    write_label_ranking_csv(path, X[idx], Y[idx])
    items = tmp_path / "labels.txt"
    items.write_text("\n".join(LABELS) + "\n")
    return path, items


def _run_json(capsys, tmp_path, *argv):
    js = tmp_path / "out.json"
    code = main([str(a) for a in (*argv, "--json", js, "-q", "--random-state", 0)])
    _, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(js.read_text())


def _data(path, items):
    from rankclust.io import read_item_names, read_label_rankings

    return read_label_rankings(path, items=read_item_names(items))


def _fitted(family, name, X, Y, **kw):
    method = cli.method_registry(family)[name]
    est = cli.make_estimator(method.load(), random_state=0, fixed=method.params, **kw)
    return est.fit(X, Y)


def _names(est, X):
    return [[LABELS[j] for j in o] for o in est.predict_rankings(X).to_orderings()]


def test_labelrank_json_holds_the_held_out_predictions_of_the_hold_out(
    capsys, tmp_path, iris_file
):
    path, items = iris_file
    result = _run_json(capsys, tmp_path, "labelrank", path, "--items", items,
                       "--method", "consensus")  # fmt: skip
    pred = result["predictions"]
    assert pred["sample"] == "held-out" and pred["evaluation"] == "hold-out"
    assert pred["test_size"] == 0.3 and "held-out" in pred["note"]
    X, Y = _data(path, items)
    train, test = train_test_split(np.arange(len(X)), test_size=0.3, random_state=0)
    train, test = np.sort(train), np.sort(test)
    rows = pred["rows"]
    assert [r["row"] for r in rows] == (test + 1).tolist()  # 1-based data rows, file order
    assert [r["line"] for r in rows] == (test + 2).tolist()  # the n,p,k header is line 1
    assert all("fold" not in r and "cluster" not in r for r in rows)
    est = _fitted("labelrank", "consensus", X[train], Y[train])
    assert [r["ranking"] for r in rows] == _names(est, X[test])
    assert pred["items"] == LABELS
    # the mean of the held-out score is the printed one (same rows, same model)
    assert result["kendall_tau"] == [pytest.approx(est.score(X[test], Y[test]))]


def test_labelrank_json_cross_validated_predictions_cover_every_row_once(
    capsys, tmp_path, iris_file
):
    path, items = iris_file
    result = _run_json(capsys, tmp_path, "labelrank", path, "--items", items,
                       "--method", "lrt", "--cv", 3)  # fmt: skip
    pred = result["predictions"]
    assert pred["evaluation"] == "cross-validation" and pred["n_folds"] == 3
    X, Y = _data(path, items)
    rows = pred["rows"]
    assert [r["row"] for r in rows] == list(range(1, len(X) + 1))
    folds = KFold(3, shuffle=True, random_state=0).split(np.zeros(len(X)))
    for fold, (train, test) in enumerate(folds, start=1):
        est = _fitted("labelrank", "lrt", X[train], Y[train])
        assert [rows[i]["fold"] for i in test] == [fold] * len(test)
        assert [rows[i]["ranking"] for i in test] == _names(est, X[test])


def test_supervise_json_holds_held_out_clusters_and_rankings(capsys, tmp_path, iris_file):
    path, items = iris_file
    result = _run_json(capsys, tmp_path, "supervise", path, "--items", items, "-k", 2,
                       "--method", "km-mallows", "--cv", 3)  # fmt: skip
    pred = result["predictions"]
    assert pred["sample"] == "held-out" and "fold's model" in pred["note"]
    X, Y = _data(path, items)
    rows = pred["rows"]
    assert len(rows) == len(X)
    folds = KFold(3, shuffle=True, random_state=0).split(np.zeros(len(X)))
    for train, test in folds:
        est = _fitted("supervise", "km-mallows", X[train], Y[train], n_clusters=2)
        assert [rows[i]["cluster"] for i in test] == est.predict(X[test]).tolist()
        assert [rows[i]["ranking"] for i in test] == _names(est, X[test])
    # the in-sample labels of the model fitted on all rows stay where they were
    assert len(result["labels"]) == len(X) and result["items"] == LABELS


def test_no_predictions_are_computed_without_json(capsys, iris_file, monkeypatch):
    import rankclust.cli.commands.predict as predict

    def refuse(*args, **kw):
        raise AssertionError("predictions computed for a run without --json")

    monkeypatch.setattr(predict, "predictions", refuse)
    path, _ = iris_file
    assert main(["labelrank", str(path), "--method", "consensus", "-q"]) == 0
