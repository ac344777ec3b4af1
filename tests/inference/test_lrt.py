"""Tests of rankclust.inference.lrt: the bootstrap likelihood-ratio test of K vs K - 1."""

from __future__ import annotations

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture
from rankclust.datasets import make_mallows_mixture
from rankclust.inference import bootstrap_lrt
from rankclust.inference.lrt import _clamp
from rankclust.models import Mallows

CENTERS = [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]


@pytest.fixture(scope="module")
def two_blocs() -> Rankings:
    R, _ = make_mallows_mixture(
        200, 5, 2, centers=CENTERS, thetas=1.2, kind="top", lengths=(2, 5), random_state=0
    )
    return R


@pytest.fixture(scope="module")
def one_bloc() -> Rankings:
    return Mallows.from_params(center=CENTERS[0], theta=0.8).sample(
        200, random_state=1, lengths=np.random.default_rng(1).integers(2, 6, 200)
    )


@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
def test_small_p_on_two_clusters(cls, two_blocs) -> None:
    res = bootstrap_lrt(cls(n_init=2), two_blocs, 2, n_boot=19, random_state=0)
    assert res.p_value == pytest.approx(0.05)
    assert res.reject(0.05)
    assert res.statistic > res.null_statistics.max()
    ll0, ll1 = res.log_likelihoods
    assert res.statistic == pytest.approx(2 * (ll1 - ll0)) and ll1 >= ll0
    assert res.null_estimator.n_components == 1 and res.alternative_estimator.n_components == 2
    assert "reject K=1" in res.summary()


def test_p_not_small_on_one_cluster(one_bloc) -> None:
    res = bootstrap_lrt(MallowsMixture(n_init=2), one_bloc, 2, n_boot=19, random_state=0)
    assert res.p_value > 0.2
    assert not res.reject()
    assert (res.null_statistics >= 0).all()
    assert res.null_statistics.shape == (19,)


def test_reproducible_for_one_and_two_jobs(two_blocs) -> None:
    a = bootstrap_lrt(MallowsMixture(n_init=2), two_blocs, 2, n_boot=4, random_state=3, n_jobs=1)
    b = bootstrap_lrt(MallowsMixture(n_init=2), two_blocs, 2, n_boot=4, random_state=3, n_jobs=2)
    np.testing.assert_array_equal(a.null_statistics, b.null_statistics)
    assert a.p_value == b.p_value and a.statistic == b.statistic


def test_subset_data_stay_subset() -> None:
    rows = [[0, 2], [1, 3, 4], [4, 0], [0, 1, 2, 3, 4], [3, 1]] * 20
    R = Rankings.from_orderings(rows, n_items=5, kind="subset")
    res = bootstrap_lrt(PlackettLuceMixture(n_init=2, alpha=0.1), R, 2, n_boot=3, random_state=0)
    assert 0 < res.p_value <= 1


def test_clamp_at_the_nested_solution() -> None:
    np.testing.assert_array_equal(_clamp(np.array([-0.5, 0.0, 2.0])), [0.0, 0.0, 2.0])


def test_bad_input(two_blocs) -> None:
    with pytest.raises(TypeError, match="MallowsMixture"):
        bootstrap_lrt(Mallows(), two_blocs, 2)
    with pytest.raises(ValueError, match="k must be"):
        bootstrap_lrt(MallowsMixture(), two_blocs, 1)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_lrt(MallowsMixture(), two_blocs, 2, n_boot=0)
    with pytest.raises(ValueError, match="integer weights"):
        bootstrap_lrt(MallowsMixture(), two_blocs.with_weights(np.full(200, 0.5)), 2)


def _orderings_file(tmp_path, R: Rankings):
    path = tmp_path / "ballots.csv"
    m = R.n_items
    lines = [",".join(f"Rank_{j + 1}" for j in range(m))]
    for row in R.to_orderings():
        lines.append(",".join(str(i + 1) for i in row) + ",0" * (m - len(row)))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_select_k_lrt(tmp_path, capsys, two_blocs) -> None:
    import json

    from rankclust.cli import main

    path = _orderings_file(tmp_path, two_blocs)
    out_json = tmp_path / "out.json"
    argv = ["select-k", str(path), "--format", "orderings", "--kind", "top", "--ks", "1,2",
            "--n-init", "2", "--lrt", "9", "--random-state", "0", "--json", str(out_json)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "K=2 vs K=1" in out and "reject K=1" in out
    rows = json.loads(out_json.read_text())["lrt"]
    assert rows[0]["k"] == 2 and rows[0]["p_value"] == pytest.approx(0.1)
    assert len(rows[0]["null_statistics"]) == 9
    # --n-jobs does not change the numbers
    assert main([*argv[:-2], "--n-jobs", "2"]) == 0
    assert "p = 0.100" in capsys.readouterr().out


def test_cli_lrt_refused_without_a_mixture(tmp_path, capsys, two_blocs) -> None:
    from rankclust.cli import main

    path = _orderings_file(tmp_path, two_blocs)
    code = main(["select-k", str(path), "--format", "orderings", "--ks", "1,2",
                 "--method", "chains", "--kind", "subset", "--lrt", "9"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "--lrt" in err and "mixture" in err
    code = main(["select-k", str(path), "--format", "orderings", "--ks", "1,2", "--n-jobs", "2"])
    assert code == 2 and "--n-jobs" in capsys.readouterr().err


@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
def test_nested_starts_contain_the_null_fit(cls, one_bloc) -> None:
    from rankclust.inference.lrt import _nested_starts

    null = cls(n_components=2, n_init=2, random_state=0).fit(one_bloc)
    starts = _nested_starts(null, delta=0.0)
    assert len(starts) == 3  # one per null component, and the null fit itself
    for j, (params, weights) in enumerate(starts):
        assert weights.sum() == pytest.approx(1.0) and len(weights) == 3
        alt = cls(n_components=3, random_state=0)
        # with delta = 0 the start is the null fit written with three components: same
        # likelihood of every ballot
        alt._fit(one_bloc, None, starts=([(params, weights)], 0))
        # EM from the nested start ends at or above the null fit
        assert alt.log_likelihood_ >= null.log_likelihood_ - 1e-6 * 200
        for value in params.values():  # component j duplicated as the last one
            np.testing.assert_array_equal(value[-1], value[j])


def test_nested_starts_split_the_dispersion(one_bloc) -> None:
    from rankclust.inference.lrt import _nested_starts

    null = MallowsMixture(n_components=1, n_init=2, random_state=0).fit(one_bloc)
    (params, weights), (exact, exact_weights) = _nested_starts(null, delta=0.1)
    theta = null.thetas_[0]
    np.testing.assert_allclose(params["thetas"], [1.1 * theta, 0.9 * theta])
    np.testing.assert_allclose(weights, [0.5, 0.5])
    np.testing.assert_array_equal(params["centers"], np.repeat(null.center_positions_, 2, 0))
    # the last start is the null fit itself, whatever delta: EM keeps it at LR_b = 0
    np.testing.assert_array_equal(exact["thetas"], [theta, theta])
    np.testing.assert_allclose(exact_weights, [0.5, 0.5])


def test_no_replicate_below_the_nested_fit(one_bloc) -> None:
    # under the null, the K = 2 refits used to end below the K = 1 fit in many replicates
    res = bootstrap_lrt(MallowsMixture(n_init=2), one_bloc, 2, n_boot=9, random_state=0)
    assert res.n_negative == 0
