"""``--ci B``: bootstrap intervals in the CLI summary and JSON (cluster, select-k)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests._cli import one_line_error, run

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def ballots(tmp_path_factory):
    """Top-3 ballots over 5 items from two well separated Mallows components."""
    rng = np.random.default_rng(0)
    rows = []
    for center in ([0, 1, 2, 3, 4], [4, 3, 2, 1, 0]):
        for _ in range(60):
            order = list(center)
            for _ in range(2):  # a few adjacent swaps: noisy copies of the centre
                i = int(rng.integers(4))
                order[i], order[i + 1] = order[i + 1], order[i]
            rows.append(",".join(str(j + 1) for j in order[:3]))
    path = tmp_path_factory.mktemp("ci") / "ballots.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def _check_interval(entry):
    assert entry["low"] <= entry["estimate"] + 1e-9 <= entry["high"] + 2e-9, entry


@pytest.mark.parametrize("method", ["mixture", "pl-mixture"])
def test_cluster_ci_json_has_intervals_that_contain_the_estimates(
    capsys, tmp_path, ballots, method
):
    js = tmp_path / "r.json"
    code, out, err = run(capsys, "cluster", ballots, "-k", 2, "--method", method, "--ci", 20,
                         "--random-state", 1, "--json", js)  # fmt: skip
    assert code == 0, err
    assert "Intervals: 20 nonparametric bootstrap replicates, 95% percentile" in out
    assert "membership stability" in out and "P(centre)" in out
    ci = json.loads(js.read_text())["intervals"]
    assert ci["n_boot"] == 20 and ci["level"] == 0.95 and len(ci["components"]) == 2
    fitted = json.loads(js.read_text())["fitted"]
    for k, comp in enumerate(ci["components"]):
        _check_interval(comp["proportion"])
        assert comp["proportion"]["estimate"] == pytest.approx(fitted["weights_"][k])
        assert 0 <= comp["center_probability"] <= 1
        P = np.array(comp["position_probabilities"])
        assert P.shape == (5, 5) and np.allclose(P.sum(axis=1), 1.0)
        if method == "mixture":
            _check_interval(comp["theta"])
            assert comp["theta"]["estimate"] == pytest.approx(fitted["thetas_"][k])
        else:
            assert len(comp["worths"]) == 5
            for entry in comp["worths"] + comp["scores"]:
                _check_interval(entry)
    stab = ci["membership_stability"]
    assert 0 <= stab["min"] <= stab["mean"] + 1e-12 <= 1 + 1e-12 and 0 <= stab["share_stable"] <= 1
    assert "wald" not in ci  # K > 1: no information-matrix intervals


def test_cluster_ci_same_seed_same_output(capsys, tmp_path, ballots):
    outs = []
    for name in ("a.json", "b.json", "c.json"):
        seed = 4 if name == "c.json" else 3
        code, out, err = run(capsys, "cluster", ballots, "-k", 2, "--ci", 10,
                             "--random-state", seed, "--json", tmp_path / name)  # fmt: skip
        assert code == 0, err
        data = json.loads((tmp_path / name).read_text())["intervals"]
        data.pop("seconds")
        outs.append((out, data))
    assert outs[0] == outs[1]  # the whole summary and the JSON intervals
    assert outs[0][1]["components"] != outs[2][1]["components"]  # another seed: other draws


def test_cluster_ci_level_narrows_the_intervals(capsys, tmp_path, ballots):
    widths = []
    for level in ("0.95", "0.5"):
        js = tmp_path / f"{level}.json"
        code, _, err = run(capsys, "cluster", ballots, "-k", 2, "--ci", 20, "--ci-level", level,
                           "--random-state", 0, "--json", js)  # fmt: skip
        assert code == 0, err
        ci = json.loads(js.read_text())["intervals"]
        assert ci["level"] == float(level)
        widths.append([c["theta"]["high"] - c["theta"]["low"] for c in ci["components"]])
    assert all(w50 <= w95 for w95, w50 in zip(*widths, strict=True))


@pytest.mark.parametrize("method", ["mixture", "pl-mixture"])
def test_cluster_ci_one_component_adds_wald_intervals(capsys, tmp_path, ballots, method):
    js = tmp_path / "r.json"
    code, out, err = run(capsys, "cluster", ballots, "-k", 1, "--method", method, "--ci", 10,
                         "--random-state", 0, "--json", js)  # fmt: skip
    assert code == 0, err
    wald = json.loads(js.read_text())["intervals"]["wald"]
    assert "Wald" in out
    entries = [wald["theta"]] if method == "mixture" else wald["scores"]
    for entry in entries:
        _check_interval(entry)
        half = (entry["high"] - entry["low"]) / 2
        assert half == pytest.approx(1.959964 * entry["standard_error"], rel=1e-5)


def test_select_k_ci_bootstraps_the_chosen_model(capsys, tmp_path, ballots):
    js = tmp_path / "r.json"
    code, out, err = run(capsys, "select-k", ballots, "--ks", "1,2", "--ci", 10,
                         "--random-state", 0, "--json", js)  # fmt: skip
    assert code == 0, err
    result = json.loads(js.read_text())
    assert len(result["intervals"]["components"]) == result["best_k"]
    assert "Intervals: 10" in out


def test_ci_figures(capsys, tmp_path, ballots):
    plots = tmp_path / "figs"
    code, _, err = run(capsys, "cluster", ballots, "-k", 2, "--method", "pl-mixture",
                       "--ci", 10, "--random-state", 0, "--plots", plots)  # fmt: skip
    assert code == 0, err
    names = {p.name for p in plots.iterdir()}
    assert {"worth_intervals.png", "position_probabilities.png", "goodness_of_fit.png"} <= names


@pytest.mark.parametrize(
    ("value", "why"), [("0", "positive integer"), ("-3", "positive integer"), ("x", "integer")]
)
def test_ci_refuses_non_positive(capsys, ballots, value, why):
    code, _, err = run(capsys, "cluster", ballots, "-k", 2, "--ci", value)
    one_line_error(code, err, "--ci", why)


@pytest.mark.parametrize("value", ["0", "1", "1.5", "x"])
def test_ci_level_refused_outside_0_1(capsys, ballots, value):
    code, _, err = run(capsys, "cluster", ballots, "-k", 2, "--ci", 5, "--ci-level", value)
    one_line_error(code, err, "--ci-level", "between 0 and 1")


def test_ci_level_without_ci_refused(capsys, ballots):
    code, _, err = run(capsys, "cluster", ballots, "-k", 2, "--ci-level", "0.9")
    one_line_error(code, err, "--ci-level", "--ci B")


def test_ci_refused_for_a_method_without_bootstrap(capsys, ballots):
    code, _, err = run(capsys, "cluster", ballots, "-k", 2, "--method", "chains",
                       "--kind", "subset", "--ci", 5)  # fmt: skip
    one_line_error(code, err, "--ci", "mixture")


def test_n_jobs_without_replicates_or_zero_refused(capsys, ballots):
    code, _, err = run(capsys, "cluster", ballots, "-k", 2, "--n-jobs", 2)
    one_line_error(code, err, "--n-jobs", "--ci B")
    code, _, err = run(capsys, "cluster", ballots, "-k", 2, "--ci", 5, "--n-jobs", 0)
    one_line_error(code, err, "--n-jobs", "-1 for all cores")


def test_ci_result_does_not_depend_on_n_jobs(capsys, tmp_path, ballots):
    results = []
    for n_jobs in (1, 2):
        js = tmp_path / f"{n_jobs}.json"
        code, _, err = run(capsys, "cluster", ballots, "-k", 2, "--ci", 6, "--random-state", 0,
                           "--n-jobs", n_jobs, "--json", js)  # fmt: skip
        assert code == 0, err
        data = json.loads(js.read_text())["intervals"]
        data.pop("seconds")
        results.append(data)
    assert results[0] == results[1]
