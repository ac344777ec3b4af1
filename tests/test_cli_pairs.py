"""``rankclust cluster/select-k --format pairs``: Bradley-Terry fits on pairwise comparisons."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rankclust.pairwise import BradleyTerry
from rankclust.persistence import load
from tests._cli import one_line_error, run

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

BEACH = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "bayesmallows_misc"
BEACH = BEACH / "beach_preferences.csv"


def _two_groups(path: Path, *, bayesmallows: bool = False) -> Path:
    """Assessors A1-A6 prefer apple > banana > cherry > date, B1-B4 the reverse; A1 also
    says date > apple (one cycle), with count 2 on one row."""
    order = ["apple", "banana", "cherry", "date"]
    rows = []
    for who, items in [(f"A{i}", order) for i in range(1, 7)] + [
        (f"B{i}", order[::-1]) for i in range(1, 5)
    ]:
        rows += [(who, items[a], items[b]) for a in range(4) for b in range(a + 1, 4)]
    rows.append(("A1", "date", "apple"))
    if bayesmallows:  # bottom_item, top_item
        text = "assessor,bottom_item,top_item\n" + "".join(f"{a},{lo},{w}\n" for a, w, lo in rows)
    else:
        text = "assessor,winner,loser,count\n" + "".join(
            f"{a},{w},{lo},{2 if k == 0 else 1}\n" for k, (a, w, lo) in enumerate(rows)
        )
    path.write_text(text)
    return path


@pytest.fixture
def pairs_file(tmp_path):
    return _two_groups(tmp_path / "pairs.csv")


@pytest.mark.parametrize("bayesmallows", [False, True])
def test_cluster_pairs_finds_the_two_groups(capsys, tmp_path, bayesmallows):
    f = _two_groups(tmp_path / "p.csv", bayesmallows=bayesmallows)
    js = tmp_path / "out.json"
    code, out, err = run(capsys, "cluster", f, "--format", "pairs", "-k", 2,
                         "--random-state", 0, "--json", js)  # fmt: skip
    assert code == 0, err
    assert "BradleyTerryMixture (bt-mixture), K=2" in out
    assert "apple > banana > cherry > date" in out and "date > cherry > banana > apple" in out
    assert "intransitive assessors (a preference cycle; kept in the fit): 1 of 10: A1" in out
    res = json.loads(js.read_text())
    assert res["method"] == "bt-mixture" and res["k"] == 2 and res["n_assessors"] == 10
    labels = res["labels"]
    groups = {tuple(sorted(a for a in labels if labels[a] == k)) for k in (0, 1)}
    assert groups == {tuple(f"A{i}" for i in range(1, 7)), tuple(f"B{i}" for i in range(1, 5))}
    sizes = sorted((c["size"], c["intransitive"]) for c in res["clusters"])
    assert sizes == [(4, 0), (6, 1)]
    assert res["intransitive"]["A1"][0] == res["intransitive"]["A1"][-1]  # a cycle


def test_k1_prints_worths_equal_to_the_library_fit(capsys, pairs_file, tmp_path):
    js = tmp_path / "k1.json"
    code, out, err = run(capsys, "cluster", pairs_file, "--format", "pairs", "-k", 1,
                         "--json", js, "--save", tmp_path / "bt.zip")  # fmt: skip
    assert code == 0, err
    assert "BradleyTerry (bt-mixture), K=1" in out and "se" in out.splitlines()[1]
    from rankclust.io import read_pairs_csv

    C = read_pairs_csv(pairs_file)
    bt = BradleyTerry(alpha=0.1).fit(C)
    res = json.loads(js.read_text())
    got = [res["worths"][C.item_name(j)] for j in range(C.n_items)]
    np.testing.assert_allclose(got, bt.worths_, rtol=1e-12)
    se = bt.standard_errors(C)[: C.n_items]
    np.testing.assert_allclose([res["standard_errors"][s] for s in C.items], se, rtol=1e-12)
    back = load(tmp_path / "bt.zip")
    np.testing.assert_array_equal(back.scores_, bt.scores_)
    # six assessors put apple first (counting A1's doubled row), four put it last
    assert res["clusters"][0]["ranking"][0] == "apple"


def test_saved_mixture_predicts_the_same_labels(capsys, pairs_file, tmp_path):
    js, model = tmp_path / "m.json", tmp_path / "m.zip"
    code, _, err = run(capsys, "cluster", pairs_file, "--format", "pairs", "-k", 2,
                       "--random-state", 1, "--json", js, "--save", model)  # fmt: skip
    assert code == 0, err
    from rankclust.io import read_pairs_csv

    C = read_pairs_csv(pairs_file)
    labels = json.loads(js.read_text())["labels"]
    assert load(model).predict(C).tolist() == [labels[a] for a in C.assessors]


def test_select_k_pairs_by_bic(capsys, pairs_file, tmp_path):
    js = tmp_path / "s.json"
    code, out, err = run(capsys, "select-k", pairs_file, "--format", "pairs", "--ks", "1..3",
                         "--random-state", 0, "--json", js)  # fmt: skip
    assert code == 0, err
    res = json.loads(js.read_text())
    assert [r["k"] for r in res["selection"]] == [1, 2, 3]
    bics = {r["k"]: r["bic"] for r in res["selection"]}
    assert res["best_k"] == min(bics, key=bics.get) == 2
    assert "best K=2 by BIC" in out


def _figure(path: Path):
    """The PNG's pixel array (the figure was written and is an image)."""
    import matplotlib.image as mpimg

    assert path.is_file(), path
    img = mpimg.imread(path)
    assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100
    return img


def test_cluster_pairs_writes_figures(capsys, pairs_file, tmp_path):
    figs = tmp_path / "figs"
    code, _, err = run(capsys, "cluster", pairs_file, "--format", "pairs", "-k", 2,
                       "--random-state", 0, "--plots", figs)  # fmt: skip
    assert code == 0, err
    assert sorted(p.name for p in figs.iterdir()) == ["pairwise_by_cluster.png", "worths.png"]
    for p in figs.iterdir():
        _figure(p)
    assert "pairwise_by_cluster.png" in err  # reported as written
    one = tmp_path / "one"
    code, _, err = run(capsys, "cluster", pairs_file, "--format", "pairs", "-k", 1,
                       "--plots", one)  # fmt: skip
    assert code == 0, err
    assert sorted(p.name for p in one.iterdir()) == ["pairwise_by_cluster.png", "worths.png"]


def test_select_k_pairs_writes_the_bic_figure(capsys, pairs_file, tmp_path):
    figs = tmp_path / "figs"
    code, _, err = run(capsys, "select-k", pairs_file, "--format", "pairs", "--ks", "1..3",
                       "--random-state", 0, "--plots", figs)  # fmt: skip
    assert code == 0, err
    names = sorted(p.name for p in figs.iterdir())
    assert names == ["model_selection.png", "pairwise_by_cluster.png", "worths.png"]
    _figure(figs / "model_selection.png")


def test_cluster_pairs_ci_bootstraps_the_assessors(capsys, pairs_file, tmp_path):
    js, figs = tmp_path / "ci.json", tmp_path / "figs"
    argv = ["cluster", pairs_file, "--format", "pairs", "-k", 2, "--random-state", 0,
            "--ci", 8, "--ci-level", 0.9]  # fmt: skip
    code, out, err = run(capsys, *argv, "--json", js, "--plots", figs)
    assert code == 0, err
    assert "Intervals: 8 nonparametric bootstrap replicates (assessors resampled), 90%" in out
    assert "of the assessors keep their cluster" in out
    res = json.loads(js.read_text())
    ci = res["intervals"]
    assert ci["unit"] == "assessors" and ci["n_boot"] == 8 and ci["level"] == 0.9
    assert len(ci["components"]) == 2
    for c, cluster in zip(ci["components"], res["clusters"], strict=True):
        p = c["proportion"]
        assert p["low"] <= p["estimate"] <= p["high"] and p["estimate"] == cluster["weight"]
        assert [e["estimate"] for e in c["scores"]] == [
            pytest.approx(cluster["scores"][x]) for x in res["items"]
        ]
    # two clear groups: every assessor keeps its cluster
    assert ci["membership_stability"]["share_stable"] == 1.0
    # the Louis standard errors of the mixture, in the JSON without --ci too
    se = res["standard_errors"]
    assert len(se["weights"]) == 2 and se["weights"][0] == pytest.approx(se["weights"][1])
    assert set(se["scores"][0]) == {"apple", "banana", "cherry", "date"}
    assert (figs / "worths.png").is_file()
    code, out2, _ = run(capsys, *argv)  # the same seed prints the same intervals
    assert code == 0 and out2 == out


def test_k1_ci_adds_wald_intervals(capsys, pairs_file, tmp_path):
    js = tmp_path / "k1.json"
    code, out, err = run(capsys, "cluster", pairs_file, "--format", "pairs", "-k", 1,
                         "--random-state", 0, "--ci", 6, "--json", js)  # fmt: skip
    assert code == 0, err
    assert "Wald intervals of the log-worths" in out
    res = json.loads(js.read_text())
    wald = res["intervals"]["wald"]["scores"]
    assert [w["standard_error"] for w in wald] == pytest.approx(
        [res["standard_errors"][x] for x in res["items"]]
    )


def test_select_k_pairs_ci(capsys, pairs_file, tmp_path):
    js = tmp_path / "s.json"
    code, out, err = run(capsys, "select-k", pairs_file, "--format", "pairs", "--ks", "1..3",
                         "--random-state", 0, "--ci", 5, "--json", js)  # fmt: skip
    assert code == 0, err
    res = json.loads(js.read_text())
    assert res["best_k"] == 2 and len(res["intervals"]["components"]) == 2
    assert "Intervals: 5 nonparametric bootstrap replicates" in out


def test_pairs_figures_are_left_out_for_many_items(capsys, tmp_path):
    f = tmp_path / "many.csv"
    rows = [f"a{i % 7},i{i % 70},i{(i + 1) % 70}" for i in range(140)]
    f.write_text("assessor,winner,loser\n" + "\n".join(rows) + "\n")
    figs = tmp_path / "figs"
    code, _, err = run(capsys, "cluster", f, "--format", "pairs", "-k", 2, "--random-state", 0,
                       "--plots", figs)  # fmt: skip
    assert code == 0, err
    assert "no worths figure for 70 items" in err and "no pairwise figure for 70 items" in err
    assert not figs.exists() or not any(figs.iterdir())


@pytest.mark.parametrize(
    "argv,fragments",
    [
        (["--method", "mixture"], ["--method mixture", "bt-mixture"]),
        (["--ci-level", "0.9"], ["--ci-level:", "--ci B"]),
        (["--n-jobs", "2"], ["--n-jobs:", "--ci B"]),
        (["--kind", "top"], ["--kind:"]),
        (["-k", "11"], ["-k: K=11", "10"]),
        (["--set", "nope=1"], ["--set nope=...", "BradleyTerryMixture"]),
    ],
)
def test_pairs_refusals_are_one_line(capsys, pairs_file, argv, fragments):
    argv = ["-k", "2", *argv] if "-k" not in argv else argv
    code, _, err = run(capsys, "cluster", pairs_file, "--format", "pairs", *argv)
    one_line_error(code, err, *fragments)


def test_bad_pairs_files_name_file_and_line(capsys, tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("\nwho,first,second\nx,a,b\n")
    code, _, err = run(capsys, "cluster", f, "--format", "pairs", "-k", 1)
    one_line_error(code, err, f"{f}, line 2", "winner,loser", "found who, first, second")
    f.write_text("winner,loser\na,b\nb,b\n")
    code, _, err = run(capsys, "cluster", f, "--format", "pairs", "-k", 1)
    one_line_error(code, err, f"{f}, line 3", "compared with itself")
    code, _, err = run(capsys, "cluster", tmp_path / "none.csv", "--format", "pairs", "-k", 1)
    one_line_error(code, err, "none.csv: no such file")


def test_no_assessors_cluster_refused_but_k1_fits(capsys, tmp_path):
    f = tmp_path / "games.csv"
    f.write_text("winner,loser\na,b\nb,c\nc,a\na,c\n")
    code, _, err = run(capsys, "cluster", f, "--format", "pairs", "-k", 2)
    one_line_error(code, err, "no assessor column", "-k 1")
    code, out, err = run(capsys, "cluster", f, "--format", "pairs", "-k", 1)
    assert code == 0, err
    assert out.splitlines()[3].split()[1] == "a"  # a won twice, lost once


def test_other_methods_and_commands_refuse_pairs(capsys, pairs_file, tmp_path):
    code, _, err = run(capsys, "cluster", pairs_file, "-k", 2, "--method", "bt-mixture")
    one_line_error(code, err, "--method bt-mixture", "--format pairs")
    code, _, err = run(capsys, "significance", pairs_file, "--format", "pairs", "-k", 2)
    one_line_error(code, err, "--format pairs", "rankclust cluster")
    code, _, err = run(capsys, "select-k", pairs_file, "--format", "pairs", "--criterion", "icl")
    one_line_error(code, err, "--criterion icl", "BIC")


@pytest.mark.skipif(not BEACH.exists(), reason="BayesMallows data not present")
def test_beach_preferences(capsys, tmp_path):
    js = tmp_path / "beach.json"
    code, out, err = run(capsys, "cluster", BEACH, "--format", "pairs", "-k", 3,
                         "--random-state", 0, "--json", js)  # fmt: skip
    assert code == 0, err
    assert "60 assessors" in err and "K=3" in out
    res = json.loads(js.read_text())
    assert res["n_assessors"] == 60 and res["n_items"] == 15 and res["n_comparisons"] == 1442
    assert sum(c["size"] for c in res["clusters"]) == 60
    assert res["intransitive"] == {}  # beach_preferences are transitive
    for c in res["clusters"]:
        assert sorted(c["ranking"], key=int) == [str(i) for i in range(1, 16)]
    # the BayesMallows layout: top_item wins; the CLI's K=3 fit is the library's
    from rankclust.io import read_bayesmallows_pairs
    from rankclust.pairwise import BradleyTerryMixture

    mix = BradleyTerryMixture(3, random_state=0).fit(read_bayesmallows_pairs(BEACH))
    assert res["log_likelihood"] == pytest.approx(mix.log_likelihood_, rel=1e-12)


def test_predict_assigns_assessors_of_a_pairs_file(capsys, pairs_file, tmp_path):
    model, js = tmp_path / "m.zip", tmp_path / "fit.json"
    code, _, err = run(capsys, "cluster", pairs_file, "--format", "pairs", "-k", 2,
                       "--random-state", 0, "--json", js, "--save", model)  # fmt: skip
    assert code == 0, err
    labels = json.loads(js.read_text())["labels"]
    code, out, err = run(capsys, "predict", model, pairs_file, "--out", tmp_path / "p.csv")
    assert code == 0, err
    rows = (tmp_path / "p.csv").read_text().splitlines()
    assert rows[0] == "assessor,cluster,p_cluster_0,p_cluster_1"
    assert {r.split(",")[0]: int(r.split(",")[1]) for r in rows[1:]} == labels
    # a new file with other assessors, items in another order and fewer items
    new = tmp_path / "new.csv"
    new.write_text("assessor,winner,loser\nZ,date,cherry\nZ,cherry,banana\nY,banana,cherry\n")
    code, out, err = run(capsys, "predict", model, new)
    assert code == 0, err
    got = dict(r.split(",")[:2] for r in out.splitlines()[1:])
    a_cluster = labels["A2"]
    assert got == {"Y": str(a_cluster), "Z": str(1 - a_cluster)}
    new.write_text("assessor,winner,loser\nZ,kiwi,apple\n")
    code, _, err = run(capsys, "predict", model, new)
    one_line_error(code, err, "'kiwi' is not one of the model's items")
    code, _, err = run(capsys, "predict", model, new, "--format", "orderings")
    one_line_error(code, err, "only --format pairs")
