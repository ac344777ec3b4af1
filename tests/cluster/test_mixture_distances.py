"""MallowsMixture(distance=...) for every registered Mallows distance, and select_model."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.base import clone
from sklearn.metrics import adjusted_rand_score
from sklearn.utils import check_random_state

from rankclust import Rankings, persistence
from rankclust.cluster import mixture as MX
from rankclust.cluster.mixture import MallowsMixture, select_k, select_model
from rankclust.models._mallows_distances import MALLOWS_DISTANCES, theta_mle

ALL = list(MALLOWS_DISTANCES)
OTHERS = [d for d in ALL if d != "kendall"]


def all_rankings(m: int) -> Rankings:
    """Every complete ranking of m items (positions), kind "top"."""
    orders = np.array(list(itertools.permutations(range(m))))
    return Rankings(np.argsort(orders, axis=1), kind="top")


def component_logpmf(distance: str, center, theta: float, R: Rankings) -> np.ndarray:
    """log P(pi) of one component by enumeration of S(m): exp(-theta d) over its sum."""
    family = MALLOWS_DISTANCES[distance]
    full = all_rankings(R.n_items)
    log_z = logsumexp(-theta * family.distances(full, center).astype(float))
    return -theta * family.distances(R, center).astype(float) - log_z


def two_components(distance: str, n: int = 400, m: int = 6, seed: int = 0):
    """Rankings sampled from two far-apart components (identity and its reverse), labels."""
    family = MALLOWS_DISTANCES[distance]
    rng = check_random_state(seed)
    centers = np.array([np.arange(m), np.arange(m)[::-1]])
    # a dispersion with a similar mean distance for every family: E d = 1/6 of uniform
    e0 = family.expected_distance(0.0, m)
    th = theta_mle(family, e0 / 6, m)
    y = (np.arange(n) % 2).astype(np.int64)
    ranks = np.empty((n, m), dtype=np.int64)
    for k in (0, 1):
        rows = np.flatnonzero(y == k)
        ranks[rows] = family.sample(centers[k], th, rows.size, rng)
    return Rankings(ranks, kind="top"), y


def fit(distance: str, R, k: int = 2, **kw) -> MallowsMixture:
    kw.setdefault("n_init", 3)
    kw.setdefault("random_state", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MallowsMixture(n_components=k, distance=distance, **kw).fit(R)


# --------------------------------------------------------------------------------------------
# the likelihood
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("distance", ALL)
def test_loglik_is_brute_force_sum_over_components(distance):
    R, _ = two_components(distance, n=120, m=5)
    mix = fit(distance, R)
    expect = logsumexp(
        np.stack(
            [
                np.log(c) + component_logpmf(distance, s, t, R)
                for c, s, t in zip(mix.weights_, mix.center_positions_, mix.thetas_, strict=True)
            ],
            axis=1,
        ),
        axis=1,
    )
    np.testing.assert_allclose(mix.score_samples(R), expect, rtol=1e-9, atol=1e-9)
    assert mix.log_likelihood_ == pytest.approx(expect @ R.weights, rel=1e-9)
    # a distribution over S(m): the probabilities of all m! rankings sum to one
    full = all_rankings(5)
    assert np.exp(logsumexp(mix.score_samples(full))) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("distance", OTHERS)
def test_one_component_is_the_single_model(distance):
    R, _ = two_components(distance, n=150, m=5, seed=3)
    mix = fit(distance, R, k=1)
    family = MALLOWS_DISTANCES[distance]
    w = R.weights
    # the single model's MLE: the family's centre, theta from the mean distance to it
    center = np.asarray(family.estimate_center(np.asarray(R.ranks, dtype=np.int64), w))
    d = family.distances(R, center).astype(float)
    theta = theta_mle(family, float(w @ d / w.sum()), 5)
    single = float((w * component_logpmf(distance, center, theta, R)).sum())
    assert mix.log_likelihood_ >= single - 1e-8 * abs(single)
    # the exact search for small m gives the single model's centre and theta themselves
    brute = min(
        (float(w @ family.distances(R, c)), tuple(c)) for c in all_rankings(5).ranks.tolist()
    )
    assert float(w @ family.distances(R, mix.center_positions_[0])) == pytest.approx(brute[0])
    if np.array_equal(mix.center_positions_[0], center):
        assert mix.thetas_[0] == pytest.approx(theta, rel=1e-6)
        assert mix.log_likelihood_ == pytest.approx(single, rel=1e-9)


@pytest.mark.parametrize("distance", OTHERS)
def test_one_component_matches_mallows_estimator(distance):
    from rankclust.models import Mallows

    if "distance" not in Mallows().get_params():
        pytest.skip("Mallows(distance=...) is not on this branch")
    R, _ = two_components(distance, n=150, m=5, seed=4)
    mix = fit(distance, R, k=1)
    model = Mallows(distance=distance).fit(R)
    np.testing.assert_array_equal(mix.center_positions_[0], model.center_)
    assert mix.thetas_[0] == pytest.approx(model.theta_, rel=1e-6)
    assert mix.log_likelihood_ == pytest.approx(model.logpdf(R).sum(), rel=1e-9)


# --------------------------------------------------------------------------------------------
# EM
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("distance", OTHERS)
def test_recovers_two_separated_components(distance):
    R, y = two_components(distance, n=400, m=6)
    mix = fit(distance, R)
    assert adjusted_rand_score(y, mix.labels_) >= 0.9
    found = {tuple(c) for c in mix.center_positions_.tolist()}
    assert found == {tuple(range(6)), tuple(range(5, -1, -1))}


@pytest.mark.parametrize("distance", OTHERS)
def test_em_trace_never_decreases(distance):
    R, _ = two_components(distance, n=300, m=6, seed=5)
    for accelerate in (False, True):
        mix = fit(distance, R, k=3, accelerate=accelerate, n_init=2)
        h = mix.log_likelihood_history_
        assert h.size >= 2
        assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:])), np.diff(h).min()


@pytest.mark.parametrize("distance", OTHERS)
def test_weighted_equals_expanded(distance):
    R, _ = two_components(distance, n=60, m=5, seed=6)
    counts = np.arange(R.n_rankings) % 3 + 1
    weighted = R.with_weights(counts.astype(float))
    expanded = Rankings(np.repeat(np.asarray(R.ranks), counts, axis=0), kind="top")
    a = fit(distance, weighted)
    b = fit(distance, expanded)
    assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-9)
    np.testing.assert_array_equal(a.center_positions_, b.center_positions_)
    np.testing.assert_allclose(a.thetas_, b.thetas_, rtol=1e-7)
    np.testing.assert_allclose(a.weights_, b.weights_, rtol=1e-7)
    assert a.bic_ == pytest.approx(b.bic_, rel=1e-9)


def test_kendall_default_unchanged():
    R, _ = two_components("kendall", n=200, m=5)
    a = MallowsMixture(n_init=2, random_state=0).fit(R)
    b = MallowsMixture(distance="kendall", n_init=2, random_state=0).fit(R)
    assert a.get_params()["distance"] == "kendall"
    assert a.log_likelihood_ == b.log_likelihood_
    np.testing.assert_array_equal(a.labels_, b.labels_)


@pytest.mark.parametrize("distance", OTHERS)
def test_bic_counts_as_kendall(distance):
    R, _ = two_components(distance, n=100, m=5)
    mix = fit(distance, R, center_dof=1.0)
    assert mix.n_parameters_ == (2 - 1) + 2 * (1 + 1.0)
    assert mix.bic_ == pytest.approx(
        -2 * mix.log_likelihood_ + mix.n_parameters_ * np.log(R.weights.sum())
    )


# --------------------------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("distance", OTHERS)
def test_rows_beyond_the_cap_and_ties_are_refused_in_one_line(distance):
    # 10!/2! completions of a subset pair, 9! of a top-1 list: above the cap (8!)
    top = Rankings.from_orderings([list(range(10)), [3]], n_items=10, kind="top")
    with pytest.raises(ValueError, match=r"^R: row 1 ranks 1 of 10 items, 362880 compl[^\n]*$"):
        MallowsMixture(distance=distance, n_components=1).fit(top)
    sub = Rankings.from_orderings([list(range(10)), [3, 1]], n_items=10, kind="subset")
    with pytest.raises(ValueError, match=r"^R: row 1 ranks 2 of 10 items, 1814400 compl"):
        MallowsMixture(distance=distance, n_components=1).fit(sub)
    tied = Rankings([[0, 1, 2, 3], [0, 0, 1, 2]], kind="top")
    with pytest.raises(ValueError, match=r"^R: row 1 has tied items;"):
        MallowsMixture(distance=distance, n_components=1).fit(tied)


def consistent(full: np.ndarray, row: np.ndarray, kind: str) -> np.ndarray:
    """Which complete rankings (positions) are completions of a partial row."""
    present = np.flatnonzero(row >= 0)
    if kind == "top":
        return np.all(full[:, present] == row[present], axis=1)
    chain = present[np.argsort(row[present])]
    return np.all(np.diff(full[:, chain], axis=1) > 0, axis=1)


def partial_data(distance: str, kind: str, n: int = 150, m: int = 5, seed: int = 8):
    """Rankings of two components, each row cut to a random length (top) or item set."""
    R, y = two_components(distance, n=n, m=m, seed=seed)
    rng = np.random.default_rng(seed)
    ranks = np.array(R.ranks, dtype=np.int64)
    for i in range(n):
        t = int(rng.integers(1, m + 1))
        if kind == "top":
            ranks[i, ranks[i] >= t] = -1
        else:
            keep = np.sort(rng.choice(m, size=max(t, 2), replace=False))
            drop = np.setdiff1d(np.arange(m), keep)
            dense = np.argsort(np.argsort(ranks[i, keep]))
            ranks[i, keep], ranks[i, drop] = dense, -1
    return Rankings(ranks, kind=kind), y


@pytest.mark.parametrize("kind", ["top", "subset"])
@pytest.mark.parametrize("distance", OTHERS)
def test_partial_rows_likelihood_is_the_sum_over_completions(distance, kind):
    R, _ = partial_data(distance, kind)
    mix = fit(distance, R)
    full = all_rankings(5)
    pos = np.asarray(full.ranks, dtype=np.int64)
    comp = np.stack(
        [
            np.log(c) + component_logpmf(distance, s, t, full)
            for c, s, t in zip(mix.weights_, mix.center_positions_, mix.thetas_, strict=True)
        ],
        axis=1,
    )
    log_pmf = logsumexp(comp, axis=1)
    rows = np.asarray(R.ranks, dtype=np.int64)
    expect = np.array([logsumexp(log_pmf[consistent(pos, r, kind)]) for r in rows])
    np.testing.assert_allclose(mix.score_samples(R), expect, rtol=1e-9, atol=1e-9)
    if kind == "top":  # the top-2 lists of 5 items carry all the mass
        lists = Rankings.from_orderings(
            [list(p) for p in itertools.permutations(range(5), 2)], n_items=5, kind="top"
        )
        assert np.exp(logsumexp(mix.score_samples(lists))) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("kind", ["top", "subset"])
@pytest.mark.parametrize("distance", ["spearman", "cayley", "ulam"])
def test_partial_rows_em_and_weights(distance, kind):
    R, _ = partial_data(distance, kind, n=90)
    mix = fit(distance, R, k=2, accelerate=False, n_init=2)
    h = mix.log_likelihood_history_
    assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:])), np.diff(h).min()
    counts = np.arange(R.n_rankings) % 3 + 1
    a = fit(distance, R.with_weights(counts.astype(float)))
    b = fit(distance, Rankings(np.repeat(np.asarray(R.ranks), counts, axis=0), kind=kind))
    assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-9)
    np.testing.assert_array_equal(a.center_positions_, b.center_positions_)


@pytest.mark.parametrize("distance", ["spearman", "footrule", "hamming"])
def test_partial_one_component_reaches_the_single_model(distance):
    from rankclust.models import Mallows

    R, _ = partial_data(distance, "top", n=120, seed=9)
    model = Mallows(distance=distance).fit(R)
    single = float(model.logpdf(R).sum())
    # EM over discrete centres has local optima: enough starts reach the single model's fit
    mix = fit(distance, R, k=1, n_init=10)
    assert mix.log_likelihood_ >= single - 1e-6 * abs(single)
    assert mix.log_likelihood_ == pytest.approx(single, rel=1e-5)
    # and the single model's fit is a fixed point of the mixture's EM
    est = MallowsMixture(n_components=1, distance=distance, random_state=0)
    start = {"centers": np.array([model.center_]), "thetas": np.array([model.theta_])}
    est._fit(R, None, starts=([(start, np.ones(1))], 0))
    np.testing.assert_array_equal(est.center_positions_[0], model.center_)
    assert est.thetas_[0] == pytest.approx(model.theta_, rel=1e-5)


def test_unknown_distance_and_dask_are_refused():
    R, _ = two_components("spearman", n=20, m=4)
    with pytest.raises(ValueError, match="distance"):
        MallowsMixture(distance="euclid").fit(R)
    with pytest.raises(ValueError, match="in memory only"):
        MallowsMixture(distance="spearman", backend="dask").fit(R)


# --------------------------------------------------------------------------------------------
# persistence and model selection
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("distance", OTHERS)
def test_persistence_round_trip(distance, tmp_path):
    R, _ = two_components(distance, n=100, m=5)
    mix = fit(distance, R)
    path = tmp_path / "mix.rcm"
    persistence.save(mix, path)
    back = persistence.load(path)
    assert back.distance == distance
    np.testing.assert_array_equal(back.predict(R), mix.predict(R))
    np.testing.assert_allclose(back.score_samples(R), mix.score_samples(R), rtol=1e-12)


def test_loaded_unknown_distance_is_refused(tmp_path):
    R, _ = two_components("spearman", n=60, m=4)
    mix = fit("spearman", R)
    mix.distance = "euclid"
    path = tmp_path / "mix.rcm"
    persistence.save(mix, path)
    with pytest.raises(ValueError, match="distance"):
        persistence.load(path)


def test_select_model_one_table_over_distances_and_k():
    R, _ = two_components("spearman", n=200, m=5)
    ks = [1, 2, 3]
    names = ["kendall", "spearman", "footrule"]
    res = select_model(MallowsMixture(n_init=2, random_state=0), R, ks=ks, distances=names)
    assert [(r["distance"], r["k"]) for r in res.table] == list(itertools.product(names, ks))
    best = min(res.table, key=lambda r: r["bic"])
    assert (res.best_distance, res.best_k) == (best["distance"], best["k"])
    assert res.best_estimator.distance == res.best_distance
    assert res.best_estimator.n_components == res.best_k
    # each distance's rows are its own select_k
    alone = select_k(MallowsMixture(n_init=2, random_state=0, distance="footrule"), R, ks=ks)
    rows = [r for r in res.table if r["distance"] == "footrule"]
    assert [r["bic"] for r in rows] == [r["bic"] for r in alone.table]
    text = res.to_markdown()
    assert text.count("\n| ") == len(names) and " *" in text


def test_select_model_checks_its_arguments():
    R, _ = two_components("spearman", n=30, m=4)
    with pytest.raises(ValueError, match="unknown distance 'x'"):
        select_model(MallowsMixture(), R, ks=[1], distances=["x"])
    with pytest.raises(TypeError, match="MallowsMixture"):
        select_model(MX.PlackettLuceMixture(), R, ks=[1])
    with pytest.raises(ValueError, match="repeated"):
        select_model(MallowsMixture(), R, ks=[1], distances=["spearman", "spearman"])


def test_clone_keeps_distance():
    est = MallowsMixture(distance="footrule")
    assert clone(est).distance == "footrule"


# --------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------
def _soc(tmp_path, distance="spearman", n=120, m=5):
    from rankclust.io import write_preflib

    R, _ = two_components(distance, n=n, m=m)
    path = tmp_path / "votes.soc"
    write_preflib(R.unique()[0], path)
    return path


def test_cli_cluster_distance_is_the_python_fit(capsys, tmp_path):
    import json

    from rankclust.io import read_preflib
    from tests._cli import run

    path, js = _soc(tmp_path), tmp_path / "out.json"
    code, out, err = run(capsys, "cluster", path, "-k", 2, "--distance", "spearman",
                         "--n-init", 2, "--random-state", 0, "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    assert "distance=spearman" in out
    got = json.loads(js.read_text())
    assert got["distance"] == got["params"]["distance"] == "spearman"
    api = MallowsMixture(n_components=2, distance="spearman", n_init=2, random_state=0)
    api.fit(read_preflib(path))
    assert got["fitted"]["log_likelihood_"] == pytest.approx(api.log_likelihood_, rel=1e-12)


def test_cli_select_k_several_distances_one_table(capsys, tmp_path):
    import json

    from tests._cli import run

    path, js = _soc(tmp_path), tmp_path / "sel.json"
    code, out, err = run(capsys, "select-k", path, "--ks", "1..2", "--distance",
                         "kendall,spearman", "--n-init", 2, "--random-state", 0,
                         "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    assert "BIC per distance and K" in out and "best by BIC: distance=" in out
    got = json.loads(js.read_text())
    assert [(r["distance"], r["k"]) for r in got["selection"]] == [
        ("kendall", 1), ("kendall", 2), ("spearman", 1), ("spearman", 2),
    ]  # fmt: skip
    best = min(got["selection"], key=lambda r: r["bic"])
    assert (got["best_distance"], got["best_k"]) == (best["distance"], best["k"])


def test_cli_distance_refusals_are_one_line(capsys, tmp_path):
    from tests._cli import one_line_error, run

    path = _soc(tmp_path)
    code, _, err = run(capsys, "cluster", path, "-k", 2, "--method", "chains",
                       "--kind", "subset", "--distance", "spearman")  # fmt: skip
    one_line_error(code, err, "--distance", "only --method mixture")
    code, _, err = run(capsys, "select-k", path, "--method", "pl-mixture",
                       "--distance", "spearman")  # fmt: skip
    one_line_error(code, err, "--distance", "only --method mixture")
    code, _, err = run(capsys, "cluster", path, "-k", 2, "--distance", "euclid")
    one_line_error(code, err, "unknown distance 'euclid'", "spearman")
    code, _, err = run(capsys, "labelrank", path, "--distance", "spearman")
    one_line_error(code, err, "--distance")
    ballots = tmp_path / "top.soi"
    from rankclust.io import write_preflib

    write_preflib(Rankings.from_orderings([list(range(10)), [2]], n_items=10, kind="top"), ballots)
    code, _, err = run(capsys, "cluster", ballots, "-k", 1, "--distance", "footrule")
    one_line_error(code, err, "lists 1 of 10 items", "362880 completions", "--distance footrule")


# --------------------------------------------------------------------------------------------
# inference: draws from the fitted family; what is Kendall-only refuses other distances
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("distance", ["spearman", "ulam"])
def test_parametric_draws_follow_the_fitted_mixture(distance):
    from rankclust.inference import sample_like

    R, _ = two_components(distance, n=200, m=4)
    mix = fit(distance, R)
    design = R.with_weights(None)
    draws = Rankings(
        np.concatenate(
            [np.asarray(sample_like(mix, design, random_state=s).ranks) for s in range(30)]
        ),
        kind="top",
    )
    full = all_rankings(4)
    pmf = np.exp(mix.score_samples(full))
    index = {tuple(r): i for i, r in enumerate(np.asarray(full.ranks).tolist())}
    counts = np.bincount(
        [index[tuple(r)] for r in np.asarray(draws.ranks).tolist()], minlength=len(pmf)
    )
    # total variation of 6,000 draws from the mixture's exact pmf over the 24 rankings
    assert 0.5 * np.abs(counts / counts.sum() - pmf).sum() < 0.04


def test_lrt_runs_on_another_distance():
    from rankclust.inference import bootstrap_lrt

    R, _ = two_components("footrule", n=120, m=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bootstrap_lrt(
            MallowsMixture(distance="footrule", n_init=2), R, k=2, n_boot=4, random_state=0
        )
    assert res.statistic > 0 and res.null_statistics.shape == (4,)


def test_goodness_of_fit_refuses_other_distances():
    from rankclust.inference import goodness_of_fit

    R, _ = two_components("spearman", n=80, m=4)
    mix = fit("spearman", R)
    with pytest.raises(ValueError, match="distance='kendall', not 'spearman'"):
        goodness_of_fit(mix, R)


@pytest.mark.parametrize(("distance", "kind"), [("spearman", None), ("ulam", "top"),
                                                ("footrule", "subset")])  # fmt: skip
def test_information_is_minus_the_numerical_hessian(distance, kind):
    """Louis' information of (weight logits, thetas) equals minus the central-difference
    Hessian of the observed log-likelihood, centres fixed; partial rows included."""
    from rankclust.inference import mixture_information, mixture_standard_errors

    if kind is None:
        R, _ = two_components(distance, n=200, m=5, seed=12)
    else:
        R, _ = partial_data(distance, kind, n=200, seed=12)
    mix = fit(distance, R)
    pi, th = mix.weights_.copy(), mix.thetas_.copy()

    def loglik(phi):
        est = clone(mix)
        est.__dict__.update({k: v for k, v in vars(mix).items() if k.endswith("_")})
        a = np.append(phi[:1], 0.0)
        est.weights_ = np.exp(a) / np.exp(a).sum()
        est.thetas_ = phi[1:]
        return float(R.weights @ est.score_samples(R))

    phi = np.concatenate([[np.log(pi[0] / pi[1])], th])
    h = 1e-4
    H = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            e_i, e_j = np.eye(3)[i] * h, np.eye(3)[j] * h
            H[i, j] = (
                loglik(phi + e_i + e_j) - loglik(phi + e_i - e_j)
                - loglik(phi - e_i + e_j) + loglik(phi - e_i - e_j)
            ) / (4 * h * h)  # fmt: skip
    np.testing.assert_allclose(mixture_information(mix, R), -H, rtol=2e-4, atol=1e-3)
    se = mixture_standard_errors(mix, R)
    assert np.all(np.isfinite(se.thetas_se)) and np.all(se.thetas_se > 0)


def test_cli_lrt_with_one_distance_and_refusals(capsys, tmp_path):
    import json

    from tests._cli import one_line_error, run

    path, js = _soc(tmp_path, "footrule", n=80, m=4), tmp_path / "lrt.json"
    code, _, err = run(capsys, "select-k", path, "--ks", "1..2", "--distance", "footrule",
                       "--lrt", 3, "--n-init", 2, "--random-state", 0, "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    got = json.loads(js.read_text())
    assert got["params"]["distance"] == "footrule" and len(got["lrt"]) == 1
    code, _, err = run(capsys, "select-k", path, "--distance", "footrule,spearman", "--lrt", 3)
    one_line_error(code, err, "--lrt", "one --distance")
    code, _, err = run(capsys, "select-k", path, "--distance", "footrule,spearman", "--ci", 5)
    one_line_error(code, err, "--ci", "one --distance")
    js = tmp_path / "ci.json"
    code, _, err = run(capsys, "cluster", path, "-k", 2, "--distance", "spearman", "--ci", 5,
                       "--n-init", 2, "--random-state", 0, "--json", js, "-q")  # fmt: skip
    assert code == 0, err
    assert "intervals" in json.loads(js.read_text())


def test_too_many_completions_in_all_are_refused():
    # 60 distinct top-2 lists of 10 items: 8! = 40,320 completions each, 2.4 million in all
    pairs = [list(p) for p in itertools.permutations(range(10), 2)][:60]
    R = Rankings.from_orderings(pairs, n_items=10, kind="top")
    with pytest.raises(ValueError, match=r"^R: the 60 distinct rankings have 2419200 compl"):
        MallowsMixture(distance="spearman", n_components=1).fit(R)


@pytest.mark.parametrize("distance", ["spearman", "cayley"])
def test_mixture_of_experts_with_another_distance(distance):
    """The gate (fit(R, X=...)) runs on the distance's components: the objective never
    decreases and the covariate that tells the components apart gets a clear slope."""
    R, y = two_components(distance, n=300, m=5, seed=11)
    rng = np.random.default_rng(0)
    X = (y + 0.5 * rng.standard_normal(len(y)))[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mix = MallowsMixture(n_components=2, distance=distance, n_init=2, random_state=0)
        mix.fit(R, X=X)
    assert adjusted_rand_score(y, mix.labels_) >= 0.9
    assert abs(mix.gate_coef_[1, 1]) > 3 * mix.gate_coef_se_[1, 1]
    assert mix.log_likelihood_ >= mix.plain_log_likelihood_ - 1e-9 * abs(mix.log_likelihood_)
