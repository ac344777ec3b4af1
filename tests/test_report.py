"""Tests for rankclust.cli.report: summary tables and the JSON result writer."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from rankclust import Rankings
from rankclust.cli.report import (
    cluster_sizes,
    cluster_summary,
    format_table,
    model_summary,
    ranking_text,
    result_dict,
    selection_summary,
    to_jsonable,
    write_json,
)


# ---------------------------------------------------------------------------- ranking_text
def test_ranking_text_order_ties_absent():
    assert ranking_text([2, 0, 1]) == "1 > 2 > 0"
    assert ranking_text([1, 0, 1, -1], ["a", "b", "c", "d"]) == "b > a = c"
    assert ranking_text([-1, -1]) == ""


def test_ranking_text_truncates():
    assert ranking_text(list(range(20)), max_items=3) == "0 > 1 > 2 > ... (17 more)"
    assert ranking_text(list(range(20)), max_items=None).count(">") == 19


# ---------------------------------------------------------------------------- format_table
def test_format_table_alignment():
    text = format_table(["name", "n", "x"], [["ab", 3, 1.5], ["c", 12, 0.25]])
    lines = text.splitlines()
    assert lines[0].split() == ["name", "n", "x"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    # numbers right-aligned in their column, text left-aligned
    assert lines[2].startswith("ab  ") and lines[3].startswith("c   ")
    assert lines[2].index("3") == lines[3].index("12") + 1
    with pytest.raises(ValueError, match="align"):
        format_table(["a"], [[1]], align="lr")


def test_format_table_formats_values():
    text = format_table(["v"], [[True], [None], [np.float64(1e-7)], [np.int64(5)], [2.0]])
    assert text.splitlines()[2:] == ["yes", "-", "1e-07", "5", "2"]


# ---------------------------------------------------------------------------- cluster_summary
def _fitted_clusterer(**extra):
    base = dict(
        labels_=np.array([0, 0, 1, 1, 1]),
        centers_=Rankings([[0, 1, 2], [2, 1, 0]]),
        objective_=3.0,
        inertia_=3.0,
        n_iter_=4,
    )
    base.update(extra)
    return SimpleNamespace(**base)


def test_cluster_summary_table():
    R = Rankings.from_orderings([[0, 1, 2]] * 2 + [[2, 1, 0]] * 3, items=["x", "y", "z"])
    text = cluster_summary(_fitted_clusterer(thetas_=np.array([0.5, 1.25])), R, title="T")
    lines = text.splitlines()
    assert lines[0] == "T: 2 clusters, 5 rows"
    assert lines[1].split() == ["cluster", "size", "theta", "central", "ranking"]
    assert lines[3].split() == ["0", "2", "0.5", "x", ">", "y", ">", "z"]
    assert lines[4].split() == ["1", "3", "1.25", "z", ">", "y", ">", "x"]
    # inertia_ equal to objective_ is not repeated
    assert lines[-1] == "objective 3, iterations 4"


def test_cluster_summary_weighted_counts_and_proportions():
    R = Rankings.from_orderings([[0, 1, 2]] * 2 + [[2, 1, 0]] * 3, weights=[10, 20, 1, 2, 3])
    text = cluster_summary(_fitted_clusterer(weights_=np.array([0.4, 0.6])), R)
    header = text.splitlines()[1].split()
    assert header[:4] == ["cluster", "size", "count", "proportion"]
    assert text.splitlines()[3].split()[:4] == ["0", "2", "30", "0.4"]
    assert text.splitlines()[4].split()[:4] == ["1", "3", "6", "0.6"]


def test_cluster_summary_without_centers_uses_labels():
    fitted = SimpleNamespace(labels_=np.array([0, 2, 2]), bic_=1.5)
    text = cluster_summary(fitted, title="L")
    assert text.splitlines()[0] == "L: 3 clusters, 3 rows"
    assert "central ranking" not in text
    assert text.splitlines()[-1] == "BIC 1.5"


def test_cluster_sizes():
    (counts,) = cluster_sizes([0, 2, 2, -1], 3)
    np.testing.assert_array_equal(counts, [1, 0, 2])
    counts, weights = cluster_sizes([0, 2, 2], 3, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(weights, [1.0, 0.0, 5.0])


# ---------------------------------------------------------------------------- model_summary
def test_model_summary_mallows_and_plackett_luce():
    from rankclust.models.mallows import Mallows
    from rankclust.models.plackett_luce import PlackettLuce

    R = Mallows.from_params(center=[1, 0, 2], theta=1.0).sample(300, random_state=0)
    names = ["a", "b", "c"]
    text = model_summary(Mallows().fit(R), names)
    assert text.splitlines()[0] == "Mallows"
    assert "central ranking: b > a > c" in text
    assert "dispersion theta:" in text
    text = model_summary(PlackettLuce().fit(R), names, title="PL")
    lines = text.splitlines()
    assert lines[0] == "PL" and "central ranking: b > a > c" in text
    # scores table sorted best first, with worths
    rows = [ln.split() for ln in lines if ln.strip().split()[:1] in (["a"], ["b"], ["c"])]
    assert [r[0] for r in rows] == ["b", "a", "c"]
    assert len(rows[0]) == 3


# ---------------------------------------------------------------------------- selection
def test_selection_summary_stars_criteria_not_objectives():
    rows = [{"k": 1, "bic": 10.0, "icl": 12.0}, {"k": 2, "bic": 8.0, "icl": 13.0}]
    text = selection_summary(rows)
    assert text.splitlines()[-1] == "best K by bic: 2, best K by icl: 1"
    assert text.count("*") == 2
    text = selection_summary([{"k": 1, "objective": 5.0}, {"k": 2, "objective": 3.0}])
    assert "*" not in text and "best K" not in text
    assert selection_summary([]).endswith("(no rows)")


# ---------------------------------------------------------------------------- JSON
class _Est(BaseEstimator):
    def __init__(self, n_clusters=2, metric="kendall"):
        self.n_clusters = n_clusters
        self.metric = metric


def test_result_dict_contents():
    est = _Est()
    est.labels_ = np.array([0, 1, 1])
    est.centers_ = Rankings([[0, 1, -1], [1, 0, 2]])
    est.thetas_ = np.array([0.5, np.inf])
    est.bic_ = np.float64(12.5)
    est._private = "hidden"
    R = Rankings.from_orderings([[0, 1], [1, 0, 2], [1, 0]], items=["a", "b", "c"],
                                weights=[2, 1, 1])  # fmt: skip
    out = result_dict(est, R=R, extra={"command": "cluster"})
    assert next(iter(out)) == "command"  # context first
    assert out["estimator"].endswith("_Est")
    assert out["params"] == {"metric": "kendall", "n_clusters": 2}
    assert out["data"] == {"n_rankings": 3, "n_items": 3, "kind": "subset", "weighted": True,
                           "total_weight": 4.0}  # fmt: skip
    assert out["items"] == ["a", "b", "c"]
    c0, c1 = out["clusters"]
    assert c0["center_order"] == ["a", "b"] and c0["center_text"] == "a > b"
    assert c1["center_order"] == ["b", "a", "c"]
    assert (c0["size"], c0["count"], c1["size"], c1["count"]) == (1, 2.0, 2, 2.0)
    assert c0["theta"] == 0.5 and c1["theta"] is None  # inf is not JSON
    assert out["labels"] == [0, 1, 1]
    assert out["criteria"] == {"BIC": 12.5}
    assert "_private" not in out["fitted"] and "labels_" in out["fitted"]
    json.dumps(out, allow_nan=False)  # strict JSON


def test_to_jsonable_types():
    R = Rankings([[0, 1]], weights=[3.0], items=["p", "q"])
    value = {
        "a": np.arange(3),
        "b": np.float32(1.5),
        "c": (np.bool_(True), None, float("nan")),
        "d": R,
        "e": {1: {2}},
        "f": _Est(3),
        "g": object,
    }
    out = to_jsonable(value)
    assert out["a"] == [0, 1, 2] and out["b"] == 1.5
    assert out["c"] == [True, None, None]
    assert out["d"] == {"ranks": [[0, 1]], "kind": "subset", "weights": [3.0],
                        "items": ["p", "q"]}  # fmt: skip
    assert out["e"] == {"1": [2]}
    assert out["f"] == {"estimator": "_Est", "params": {"metric": "kendall", "n_clusters": 3}}
    assert isinstance(out["g"], str)


def test_write_json_is_strict_and_compact(tmp_path):
    path = tmp_path / "r.json"
    write_json({"m": np.eye(2), "x": np.nan, "rows": [{"k": 1}], "empty": {}}, path)
    text = path.read_text()
    assert json.loads(text) == {"m": [[1.0, 0.0], [0.0, 1.0]], "x": None, "rows": [{"k": 1}],
                                "empty": {}}  # fmt: skip
    assert "[1.0, 0.0]" in text  # matrix rows stay on one line
    assert "NaN" not in text


def test_cluster_summary_mixture_map_size_soft_count_and_empty_flag():
    from rankclust.cli.report import restart_line

    R = Rankings.from_orderings([[0, 1, 2]] * 2 + [[2, 1, 0]] * 3, weights=[10, 20, 1, 2, 3])
    mix = _fitted_clusterer(
        labels_=np.array([0, 0, 1, 1, 1]),
        centers_=Rankings([[0, 1, 2], [2, 1, 0], [1, 0, 2]]),
        weights_=np.array([0.5, 0.3, 0.2]),
        n_rankings_=36.0,
    )
    lines = cluster_summary(mix, R).splitlines()
    assert lines[1].split()[:6] == ["cluster", "rows", "MAP", "size", "soft", "count"]
    assert lines[3].split()[:5] == ["0", "2", "30", "18", "0.5"]
    assert lines[5].split()[:5] == ["2", "0", "0", "7.2", "0.2"]
    assert lines[6].startswith("MAP size: rankings whose most probable component it is")
    assert lines[7].startswith("cluster 2: MAP size 0 - no ranking is assigned to it")
    assert restart_line(mix) is None
    mix.n_init_, mix.n_init_agreeing_, mix.n_agree = 40, 1, 3
    mix.restart_log_likelihoods_, mix.restart_gap_ = np.array([-5.0, -6.0, -7.0]), 2e-5
    text = restart_line(mix)
    assert text.startswith("restarts: 40 starts; the best fit was reached by 1 of the 3")
    assert "0.002% lower" in text and "may change with the random seed" in text
    assert text == cluster_summary(mix, R).splitlines()[-1]
