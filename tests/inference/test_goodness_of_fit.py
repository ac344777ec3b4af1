"""Goodness of fit: expected tables against brute force, statistics, bootstrap, comparison."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from rankclust import Rankings
from rankclust.cluster import MallowsMixture, PlackettLuceMixture
from rankclust.inference import compare_models, goodness_of_fit
from rankclust.inference.goodness_of_fit import (
    _Component,
    _component_probabilities,
    _g2,
    _observed,
    _rim_marginals,
    _simulate,
    _x2,
)
from rankclust.models import Mallows, PlackettLuce
from rankclust.plotting import plot_goodness_of_fit


def _perms(m):
    return np.array(list(itertools.permutations(range(m))), dtype=np.int64)  # position vectors


def _brute_tables(pdf, m, lengths, weights):
    """Expected tables by a plain loop over every complete ranking and every data row."""
    perms = _perms(m)
    p = pdf(perms)
    first = np.zeros(m)
    positions = np.zeros((m, m))
    pairs = np.zeros((m, m))
    for t, w in zip(lengths, weights, strict=True):
        for pos, prob in zip(perms, p, strict=True):
            first[np.argmin(pos)] += w * prob
            for j in range(m):
                if pos[j] < t:
                    positions[j, pos[j]] += w * prob
            for a in range(m):
                for b in range(m):
                    if a != b and pos[a] < pos[b] and pos[a] < t:
                        pairs[a, b] += w * prob
    return first, positions, pairs


def _models(m):
    rng = np.random.default_rng(3)
    center = rng.permutation(m)
    return [
        Mallows.from_params(center=center, theta=0.7),
        PlackettLuce.from_params(scores=rng.normal(size=m)),
    ]


@pytest.mark.parametrize("m", [3, 5])
@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("top", [False, True])
def test_expected_tables_equal_brute_force(m, which, top):
    model = _models(m)[which]
    sample = model.sample(60, random_state=1)
    if top:
        lengths = np.arange(60) % m + 1
        ranks = np.where(sample.ranks < lengths[:, None], sample.ranks, -1)
        R = Rankings(ranks, kind="top")
    else:
        R = sample
    res = goodness_of_fit(model, R)
    Ru = R.unique()[0]
    lengths = Ru.lengths if top else np.full(Ru.n_rankings, m)
    first, positions, pairs = _brute_tables(
        lambda P: model.pdf(Rankings(P)), m, lengths, Ru.weights
    )
    np.testing.assert_allclose(res.overall.expected["first"], first, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res.overall.expected["positions"], positions, atol=1e-9)
    np.testing.assert_allclose(res.overall.expected["pairs"], pairs, atol=1e-9)


@pytest.mark.parametrize("theta", [0.0, 0.4, 2.5])
def test_repeated_insertion_marginals_equal_enumeration(theta):
    m = 5
    perms = _perms(m)
    p = Mallows.from_params(center=np.arange(m), theta=theta).pdf(Rankings(perms))
    pos, pairs = _rim_marginals(theta, m)
    for j in range(m):
        for r in range(m):
            assert pos[j, r] == pytest.approx(p[perms[:, j] == r].sum(), abs=1e-12)
        for k in range(m):
            if j != k:
                assert pairs[j, k] == pytest.approx(p[perms[:, j] < perms[:, k]].sum(), abs=1e-12)


def test_monte_carlo_beyond_enumeration_agrees_with_exact_marginals():
    m = 9
    rng = np.random.RandomState(0)
    comp = _Component("mallows", center=np.random.default_rng(1).permutation(m), theta=0.5)
    probs, how = _component_probabilities(comp, m, "top", 40000, rng)
    assert "Monte Carlo, 40000 draws" in how["pairs"]
    exact, exact_how = _component_probabilities(comp, m, "complete", 10, rng)
    assert "Monte Carlo" not in str(exact_how)
    # a pair is always decided by a top-(m-1) list: that table of the draws is the exact
    # pair table (repeated insertion)
    np.testing.assert_allclose(probs.pairs_top[m - 1], exact.pairs, atol=0.015)
    # P(a first and above b), summed over b, is (m - 1) P(a first)
    np.testing.assert_allclose(probs.pairs_top[1].sum(axis=1), (m - 1) * exact.first, atol=0.03)
    pl = _Component("pl", scores=np.random.default_rng(2).normal(size=m))
    probs, how = _component_probabilities(pl, m, "complete", 40000, rng)
    assert how["positions"] == "Monte Carlo, 40000 draws from the model"
    v = np.exp(pl.scores) / np.exp(pl.scores).sum()
    np.testing.assert_allclose(probs.first, v)
    np.testing.assert_allclose(probs.positions[:, 1:].sum(axis=0), 1.0)


def test_subset_pairs_brute_force_pl_and_restricted_mallows():
    m = 5
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(40):
        items = rng.choice(m, size=rng.integers(2, m + 1), replace=False)
        rows.append(list(items))
    R = Rankings.from_orderings(rows, n_items=m, kind="subset")
    # PL: the marginal of the present items, by summing the complete model
    pl = PlackettLuce.from_params(scores=rng.normal(size=m))
    perms = _perms(m)
    p = pl.pdf(Rankings(perms))
    expected = np.zeros((m, m))
    for row in R.ranks:
        present = np.flatnonzero(row >= 0)
        for a in present:
            for b in present:
                if a != b:
                    expected[a, b] += p[perms[:, a] < perms[:, b]].sum()
    res = goodness_of_fit(pl, R)
    assert res.tables == ("pairs",)
    assert res.overall.expected["first"] is None
    np.testing.assert_allclose(res.overall.expected["pairs"], expected, atol=1e-10)
    # mixture of one Mallows (observed-pairs model): Mallows on the present items
    mix = MallowsMixture(n_components=1, random_state=0).fit(R)
    center, theta = mix.centers_.ranks[0], mix.thetas_[0]
    expected = np.zeros((m, m))
    for row in R.ranks:
        present = np.flatnonzero(row >= 0)
        sub = np.argsort(np.argsort(center[present]))
        q = Mallows.from_params(center=sub, theta=theta).pdf(Rankings(_perms(len(present))))
        sp = _perms(len(present))
        for i, a in enumerate(present):
            for k, b in enumerate(present):
                if i != k:
                    expected[a, b] += q[sp[:, i] < sp[:, k]].sum()
    res = goodness_of_fit(mix, R)
    np.testing.assert_allclose(res.overall.expected["pairs"], expected, atol=1e-10)
    # observed: pairs among present items only
    obs = res.overall.observed["pairs"]
    assert obs.sum() == sum(len(r) * (len(r) - 1) / 2 for r in rows)


def test_tables_sum_to_soft_counts_for_a_mixture():
    data = Mallows.from_params(center=[0, 1, 2, 3], theta=1.0).sample(150, random_state=0)
    data = Rankings.concatenate(
        [data, Mallows.from_params(center=[3, 2, 1, 0], theta=1.0).sample(100, random_state=1)]
    )
    mix = MallowsMixture(n_components=2, random_state=0).fit(data)
    res = goodness_of_fit(mix, data)
    assert len(res.clusters) == 2
    assert sum(c.size for c in res.clusters) == pytest.approx(250)
    for g in [res.overall, *res.clusters]:
        for key in ("observed", "expected"):
            tab = getattr(g, key)
            assert tab["first"].sum() == pytest.approx(g.size)
            np.testing.assert_allclose(tab["positions"].sum(axis=0), g.size)
            pairs = tab["pairs"]
            off = ~np.eye(4, dtype=bool)
            np.testing.assert_allclose((pairs + pairs.T)[off], g.size)
    po, pe = res.overall.pair_proportions()
    np.testing.assert_allclose(np.nansum(po + po.T), 4 * 3)
    np.testing.assert_allclose((pe + pe.T)[~np.eye(4, dtype=bool)], 1.0)


def test_g2_zero_when_observed_equals_expected():
    o = np.array([3.0, 0.0, 5.5])
    assert _g2(o, o) == 0.0
    assert _x2(o, o) == 0.0
    assert _g2(np.array([1.0, 3.0]), np.array([2.0, 2.0])) == pytest.approx(
        2 * (np.log(0.5) + 3 * np.log(1.5))
    )
    assert _g2(np.array([1.0]), np.array([0.0])) == np.inf
    # data weighted exactly as the model: every table fits exactly
    model = PlackettLuce.from_params(scores=[0.8, 0.1, -0.3, -0.6])
    perms = _perms(4)
    R = Rankings(perms, weights=1000 * model.pdf(Rankings(perms)))
    res = goodness_of_fit(model, R)
    for t in res.tables:
        assert res.overall.g2[t] == pytest.approx(0.0, abs=1e-8)
        assert res.overall.x2[t] == pytest.approx(0.0, abs=1e-8)


def test_simulate_keeps_lengths_and_item_sets():
    model = PlackettLuce.from_params(scores=[0.5, 0.0, -0.5, 0.2])
    full = model.sample(50, random_state=0)
    lengths = np.arange(50) % 4 + 1
    top = Rankings(np.where(full.ranks < lengths[:, None], full.ranks, -1), kind="top")
    sim = _simulate(model, top, "top", np.random.RandomState(0))
    assert np.sort(np.repeat(sim.lengths, sim.weights.astype(int))).tolist() == sorted(lengths)
    sub = Rankings.from_orderings([[0, 2], [3, 1, 0], [1, 2]] * 5, n_items=4, kind="subset")
    sim = _simulate(model, sub, "subset", np.random.RandomState(0))
    masks = np.repeat(sim.ranks >= 0, sim.weights.astype(int), axis=0)
    assert sorted(map(tuple, masks)) == sorted(map(tuple, sub.ranks >= 0))


def test_bootstrap_p_value_not_small_under_the_true_model():
    true = PlackettLuce.from_params(scores=[1.0, 0.3, -0.2, -1.1])
    R = true.sample(300, random_state=5)
    res = goodness_of_fit(PlackettLuce().fit(R), R, n_bootstrap=19, random_state=0)
    assert res.null_g2.shape == (19, 4)
    assert res.p_values["total"] > 0.1
    assert all(0 < p <= 1 for p in res.p_values.values())
    cheap = goodness_of_fit(PlackettLuce().fit(R), R, n_bootstrap=19, refit=False, random_state=0)
    assert cheap.p_values["total"] > 0.1
    assert "refitted" in res.to_markdown()


def test_bootstrap_p_values_spread_under_the_null():
    # roughly uniform: over several data sets from the fitted family they are not all small
    true = Mallows.from_params(center=[1, 0, 2], theta=0.8)
    ps = []
    for seed in range(6):
        R = true.sample(120, random_state=seed)
        ps.append(
            goodness_of_fit(Mallows().fit(R), R, n_bootstrap=19, random_state=seed).p_values[
                "total"
            ]
        )
    assert max(ps) > 0.3
    assert np.mean(np.array(ps) < 0.1) <= 0.5


def test_misfit_of_pl_on_bimodal_data_is_detected():
    a = Mallows.from_params(center=[0, 1, 2, 3, 4], theta=2.0).sample(200, random_state=0)
    b = Mallows.from_params(center=[4, 3, 2, 1, 0], theta=2.0).sample(200, random_state=1)
    R = Rankings.concatenate([a, b])
    res = goodness_of_fit(PlackettLuce().fit(R), R, n_bootstrap=19, random_state=0)
    assert res.p_values["positions"] == pytest.approx(1 / 20)
    assert res.p_values["total"] == pytest.approx(1 / 20)
    mix = PlackettLuceMixture(n_components=2, random_state=0).fit(R)
    assert goodness_of_fit(mix, R).total_g2 < res.total_g2 / 5


def test_compare_models_criteria_and_markdown():
    R = Mallows.from_params(center=[2, 0, 1, 3], theta=1.0).sample(200, random_state=0)
    mix = MallowsMixture(n_components=2, random_state=0).fit(R)
    table = compare_models(R, [Mallows(), PlackettLuce(), mix])
    assert table.names == ["Mallows", "PlackettLuce", "MallowsMixture(K=2)"]
    np.testing.assert_allclose(table.n_parameters, [1, 3, mix.n_parameters_])
    assert table.log_likelihood[2] == pytest.approx(mix.log_likelihood_)
    assert table.log_likelihood[0] == pytest.approx(Mallows().fit(R).logpdf(R).sum())
    np.testing.assert_allclose(
        table.bic, -2 * table.log_likelihood + table.n_parameters * np.log(200)
    )
    np.testing.assert_allclose(table.aic, -2 * table.log_likelihood + 2 * table.n_parameters)
    assert table.models[2] is mix
    md = table.to_markdown()
    assert "| model | log-lik | p | BIC | AIC |" in md
    assert md.count("\n|") >= 4


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_result_markdown_names_items_and_groups():
    R = Rankings.from_orderings(
        [["a", "b", "c"], ["b", "a", "c"], ["a", "c", "b"]] * 10,
        items=["a", "b", "c"],
        kind="subset",
    )
    res = goodness_of_fit(MallowsMixture(n_components=2, random_state=0).fit(R), R)
    md = res.to_markdown()
    assert "| a |" in md and "| a > b |" in md
    assert "cluster 1" in md


def test_bad_input():
    R = PlackettLuce.from_params(scores=[0.0, 1.0, 2.0]).sample(30, random_state=0)
    with pytest.raises(TypeError, match="model must be"):
        goodness_of_fit(object(), R)
    with pytest.raises(ValueError, match="n_bootstrap"):
        goodness_of_fit(PlackettLuce().fit(R), R, n_bootstrap=-1)
    with pytest.raises(ValueError, match="integer weights"):
        goodness_of_fit(PlackettLuce().fit(R), R.with_weights(np.full(30, 0.5)), n_bootstrap=2)
    with pytest.raises(ValueError, match="empty"):
        compare_models(R, [])


def test_observed_top_pairs_count_listed_over_absent():
    R = Rankings.from_orderings([[2], [0, 1]], n_items=3, kind="top")
    obs = _observed(R.ranks, "top", R.weights[:, None])
    expected = np.zeros((3, 3))
    expected[2, 0] = expected[2, 1] = 1  # [2]: 2 above both
    expected[0, 1] = expected[0, 2] = expected[1, 2] = 1  # [0, 1]: both above 2, 0 above 1
    np.testing.assert_array_equal(obs["pairs"][0], expected)
    np.testing.assert_array_equal(obs["positions"][0][:, 1], [0, 1, 0])


def test_plot_goodness_of_fit_one_panel_per_group():
    R = Mallows.from_params(center=[0, 1, 2, 3], theta=1.0).sample(100, random_state=0)
    res = goodness_of_fit(PlackettLuceMixture(n_components=2, random_state=0).fit(R), R)
    fig = plot_goodness_of_fit(res)
    assert len(fig.axes) == 3
    assert "n=100" in fig.axes[0].get_title()
    assert fig.axes[1].get_title().startswith("cluster 0 (n=")
    assert len(fig.axes[0].collections) == 2  # pairs and first choices
    plt.close(fig)
