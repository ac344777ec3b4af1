"""Plackett-Luce trees: scores, instability tests, p-values, splits, leaves, prediction."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone

from rankclust import Rankings
from rankclust.models import PlackettLuce, PlackettLuceTree
from rankclust.models.pl_tree import instability_test, row_scores, sup_lm_pvalue
from rankclust.models.plackett_luce import loglik_rows


def _pl(scores, n, seed, lengths=None):
    return PlackettLuce.from_params(scores=scores).sample(n, random_state=seed, lengths=lengths)


def _stack(*parts):
    kind = parts[0].kind
    return Rankings(np.vstack([p.ranks for p in parts]), kind=kind)


# ------------------------------------------------------------------------- row scores
@pytest.mark.parametrize("kind", ["complete", "top", "subset"])
def test_row_scores_are_the_gradient_of_each_rankings_loglik(kind):
    rng = np.random.default_rng(0)
    R = _pl([0.5, 0.0, -0.3, 0.2, -0.4], 40, 1, lengths=None if kind == "complete" else 3)
    if kind == "subset":
        R = Rankings(R.ranks, kind="subset")
    z = rng.normal(size=5)
    psi = row_scores(R, z)
    eps = 1e-6
    for j in range(5):
        e = np.zeros(5)
        e[j] = eps
        fd = (loglik_rows(R, z + e) - loglik_rows(R, z - e)) / (2 * eps)
        np.testing.assert_allclose(psi[:, j], fd, atol=1e-6)
    np.testing.assert_allclose(psi.sum(axis=1), 0.0, atol=1e-12)


def test_row_scores_sum_to_zero_at_the_mle():
    R = _pl([1.0, 0.0, -1.0, 0.5], 300, 2)
    pl = PlackettLuce().fit(R)
    np.testing.assert_allclose(row_scores(R, pl.scores_).sum(axis=0), 0.0, atol=1e-7)


# ------------------------------------------------------------------------- p-values
@pytest.mark.parametrize(("c", "p"), [(7.12, 0.10), (8.68, 0.05), (12.16, 0.01)])
def test_sup_lm_pvalue_at_andrews_critical_values(c, p):
    # Andrews (1993), Table 1: one parameter, trimming 0.15
    assert sup_lm_pvalue(c, 1, trim=0.15) == pytest.approx(p, abs=0.003)


@pytest.mark.parametrize("k", [1, 4])
def test_sup_lm_pvalue_against_a_simulated_brownian_bridge(k):
    # the sup over t in [0.1, 0.9] of ||B(t)||^2 / (t (1 - t)) for a k-dimensional Brownian
    # bridge on a grid of 1000 steps, 4000 draws, seed 0
    rng = np.random.default_rng(0)
    steps, draws, trim = 1000, 4000, 0.1
    t = np.arange(1, steps + 1) / steps
    inner = (t >= trim) & (t <= 1 - trim)
    sups = np.empty(draws)
    for b in range(0, draws, 500):
        W = np.cumsum(rng.standard_normal((500, steps, k)), axis=1) / np.sqrt(steps)
        B = W - t[None, :, None] * W[:, -1:, :]
        q = (B[:, inner] ** 2).sum(axis=2) / (t[inner] * (1 - t[inner]))
        sups[b : b + 500] = q.max(axis=1)
    for level in (0.10, 0.05, 0.01):
        c = np.quantile(sups, 1 - level)
        assert sup_lm_pvalue(c, k, trim) == pytest.approx(level, rel=0.3)


def test_sup_lm_pvalue_bounds():
    assert sup_lm_pvalue(0.0, 3) == 1.0
    assert sup_lm_pvalue(40.0, 3) >= stats.chi2.sf(40.0, 3)
    with pytest.raises(ValueError, match="trim"):
        sup_lm_pvalue(1.0, 1, trim=0.5)


# ------------------------------------------------------------------------- tests
def test_instability_supLM_by_brute_force():
    rng = np.random.default_rng(3)
    n = 60
    psi = rng.normal(size=(n, 2))
    psi -= psi.mean(axis=0)
    x = rng.integers(0, 15, size=n).astype(float)
    stat, df, logp = instability_test(psi, x, trim=0.2)
    J = psi.T @ psi / n
    best = 0.0
    for v in np.unique(x)[:-1]:
        left = x <= v
        tt = left.mean()
        if 0.2 <= tt <= 0.8:
            s = psi[left].sum(axis=0)
            best = max(best, s @ np.linalg.solve(J, s) / (n * tt * (1 - tt)))
    assert df == 2
    assert stat == pytest.approx(best)
    assert np.exp(logp) == pytest.approx(sup_lm_pvalue(best, 2, 0.2))


def test_instability_weighted_equals_expanded():
    rng = np.random.default_rng(4)
    psi = rng.normal(size=(30, 3))
    w = rng.integers(1, 4, size=30).astype(float)
    psi -= w @ psi / w.sum()
    x = rng.integers(0, 5, size=30)
    rep = np.repeat(np.arange(30), w.astype(int))
    for cat in (False, True):
        a = instability_test(psi, x, w, categorical=cat)
        b = instability_test(psi[rep], x[rep], categorical=cat)
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_instability_of_a_constant_covariate_is_void():
    psi = np.random.default_rng(5).normal(size=(20, 2))
    assert instability_test(psi, np.ones(20)) == (0.0, 0, 0.0)
    assert instability_test(psi, np.ones(20), categorical=True) == (0.0, 0, 0.0)


# ------------------------------------------------------------------------- a tiny tree by hand
def test_tiny_tree_by_hand():
    # two items; x = 0: 24 of 30 rankings put item 0 first; x = 1: 6 of 30
    first = np.r_[np.ones(24), np.zeros(6), np.ones(6), np.zeros(24)].astype(bool)
    R = Rankings(np.where(first[:, None], [0, 1], [1, 0]))
    x = np.r_[np.zeros(30), np.ones(30)]
    for cat in (None, [0]):
        tree = PlackettLuceTree(min_samples_leaf=5, categorical_features=cat).fit(R, x[:, None])
        # root: worths 1/2 each; scores +-1/2, J = 1/4, summed scores +-9 per group
        np.testing.assert_allclose(tree.node_scores_[0], 0.0, atol=1e-9)
        assert tree.node_statistics_[0, 0] == pytest.approx(21.6)
        p = stats.chi2.sf(21.6, 1) if cat else sup_lm_pvalue(21.6, 1, 0.1)
        assert tree.node_p_values_[0, 0] == pytest.approx(p)
        assert tree.n_leaves_ == 2 and tree.split_feature_[0] == 0
        if cat is None:
            assert tree.threshold_[0] == 0.5
        else:
            assert list(tree.split_categories_[0]) == [0.0]
        left, right = tree.children_left_[0], tree.children_right_[0]
        np.testing.assert_allclose(tree.node_models_[left].worths_, [0.8, 0.2])
        np.testing.assert_allclose(tree.node_models_[right].worths_, [0.2, 0.8])
        assert tree.node_weight_[left] == 30


# ------------------------------------------------------------------------- size and power
def test_no_split_without_a_covariate_effect():
    # 100 data sets with the same worths for everyone: the root splits in about alpha of them
    splits = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        R = _pl([0.6, 0.2, 0.0, -0.8], 150, seed)
        X = np.c_[rng.uniform(size=150), rng.integers(0, 3, size=150)]
        tree = PlackettLuceTree(max_depth=1, categorical_features=[1]).fit(R, X)
        splits += tree.n_leaves_ > 1
    assert splits <= 9  # 5 expected at alpha = 0.05 (the Bonferroni tests are conservative)


def test_numeric_split_recovered():
    rng = np.random.default_rng(7)
    n = 600
    x = rng.uniform(size=n)
    noise = rng.normal(size=n)
    high = x > 0.6
    R = Rankings(
        np.where(high[:, None], _pl([-1, 0, 1, 0.5], n, 8).ranks, _pl([1, 0, -1, 0], n, 9).ranks)
    )
    tree = PlackettLuceTree(max_depth=1).fit(R, np.c_[noise, x])
    assert tree.split_feature_[0] == 1
    assert 0.55 < tree.threshold_[0] < 0.65
    assert tree.node_p_values_[0, 1] < 1e-6 and tree.node_p_values_[0, 0] > 1e-3


def test_categorical_split_recovered_from_a_dataframe():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(11)
    n = 800
    group = rng.choice(np.array(["a", "b", "c", "d", "e"]), size=n)
    odd = np.isin(group, ["b", "d"])
    R = Rankings(
        np.where(odd[:, None], _pl([-1, 0, 1], n, 12).ranks, _pl([1, 0, -1], n, 13).ranks)
    )
    X = pd.DataFrame({"age": rng.uniform(20, 70, size=n), "group": group})
    tree = PlackettLuceTree(max_depth=1).fit(R, X)
    assert list(tree.feature_names_in_) == ["age", "group"]
    assert tree.categorical_.tolist() == [False, True]
    assert tree.split_feature_[0] == 1
    assert set(tree.split_categories_[0]) in ({"b", "d"}, {"a", "c", "e"})
    leaf = tree.apply(X)
    assert len(np.unique(leaf[odd])) == 1 and len(np.unique(leaf[~odd])) == 1
    assert "group in {" in tree.export_text()
    # an unseen category goes to the heavier child ("a", "c", "e": 3/5 of the rows)
    heavy = tree.apply(X[~odd].iloc[:1])[0]
    new = pd.DataFrame({"age": [30.0], "group": ["z"]})
    assert tree.apply(new)[0] == heavy


# ------------------------------------------------------------------------- leaves and weights
def _two_group_data(seed=21, n=300, lengths=None, kind=None):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, size=n).astype(float)
    subset = kind == "subset"  # `lengths` random items of each complete ranking
    a = _pl([1.0, 0.0, -1.0, 0.3, -0.2], n, seed + 1, None if subset else lengths)
    b = _pl([-1.0, 0.5, 1.0, 0.0, 0.0], n, seed + 2, None if subset else lengths)
    ranks = np.where((x >= 2)[:, None], a.ranks, b.ranks)
    if subset:
        shown = np.argsort(rng.random(ranks.shape), axis=1) < lengths
        kept = np.where(shown, ranks, 99)
        ranks = np.where(shown, np.argsort(np.argsort(kept, axis=1), axis=1), -1)
    R = Rankings(ranks, kind=kind or a.kind)
    return R, np.c_[x, rng.normal(size=n)]


@pytest.mark.parametrize(("lengths", "kind"), [(None, None), (3, "top"), (3, "subset")])
def test_leaf_scores_equal_a_plackett_luce_fit_on_the_leaf_rows(lengths, kind):
    R, X = _two_group_data(lengths=lengths, kind=kind)
    assert R.kind == (kind or "subset")
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=R.n_rankings)
    tree = PlackettLuceTree().fit(R, X, sample_weight=w)
    assert tree.n_leaves_ >= 2
    leaf = tree.apply(X)
    for t in tree.leaves_:
        rows = leaf == t
        pl = PlackettLuce().fit(R[rows], sample_weight=w[rows])
        np.testing.assert_allclose(tree.node_scores_[t], pl.scores_, atol=1e-7)
        assert tree.node_weight_[t] == pytest.approx(w[rows].sum())
        se = pl.standard_errors(R[rows], w[rows])
        np.testing.assert_allclose(tree.node_standard_errors_[t], se, rtol=1e-5)


def test_weighted_equals_expanded():
    R, X = _two_group_data(seed=31, n=200)
    w = np.random.default_rng(1).integers(1, 4, size=200)
    rep = np.repeat(np.arange(200), w)
    a = PlackettLuceTree(min_samples_leaf=20).fit(R, X, sample_weight=w)
    b = PlackettLuceTree(min_samples_leaf=20).fit(R[rep], X[rep])
    np.testing.assert_array_equal(a.children_left_, b.children_left_)
    np.testing.assert_array_equal(a.split_feature_, b.split_feature_)
    np.testing.assert_array_equal(a.threshold_, b.threshold_)
    np.testing.assert_allclose(a.node_scores_, b.node_scores_, atol=1e-7)
    np.testing.assert_allclose(a.node_p_values_, b.node_p_values_, rtol=1e-6)
    # the rankings' own weights count the same way
    c = PlackettLuceTree(min_samples_leaf=20).fit(R.with_weights(w), X)
    np.testing.assert_allclose(a.node_scores_, c.node_scores_, atol=1e-10)


def test_predict_apply_logpdf_consistent():
    R, X = _two_group_data(seed=41)
    tree = PlackettLuceTree().fit(R, X)
    leaf = tree.apply(X)
    assert set(leaf) <= set(tree.leaves_)
    pred = tree.predict(X)
    np.testing.assert_array_equal(pred, [tree.node_models_[t].ranking_ for t in leaf])
    worths = tree.predict_worths(X)
    np.testing.assert_allclose(worths.sum(axis=1), 1.0)
    np.testing.assert_array_equal(np.argsort(-worths, axis=1, kind="stable")[:, 0],
                                  np.argmin(pred, axis=1))  # fmt: skip
    lp = tree.logpdf(R, X)
    for t in tree.leaves_:
        rows = leaf == t
        np.testing.assert_allclose(lp[rows], tree.node_models_[t].logpdf(R[rows]))
    assert tree.score(R, X) == pytest.approx(lp.mean())
    # the training log-likelihood of the leaves is their node_loglik_
    assert lp.sum() == pytest.approx(tree.node_loglik_[tree.leaves_].sum())
    # a tree never fits worse than its root on the training data
    assert lp.sum() >= tree.node_loglik_[0] - 1e-9


def test_max_depth_and_min_samples_leaf_stop():
    R, X = _two_group_data(seed=51)
    assert PlackettLuceTree(max_depth=0).fit(R, X).n_leaves_ == 1
    assert np.isnan(PlackettLuceTree(max_depth=0).fit(R, X).node_p_values_).all()
    tree = PlackettLuceTree(min_samples_leaf=100).fit(R, X)
    assert tree.node_weight_[tree.leaves_].min() >= 100
    assert PlackettLuceTree(min_samples_leaf=200).fit(R, X).n_leaves_ == 1


def test_export_text_and_rules():
    R, X = _two_group_data(seed=61)
    tree = PlackettLuceTree().fit(R, X)
    text = tree.export_text()
    assert text.startswith(f"Plackett-Luce tree: {tree.n_leaves_} leaves")
    assert "x0 <= " in text and text.count("worths:") == tree.n_leaves_
    for t in tree.leaves_:
        assert tree.node_rules(int(t))
    assert tree.node_rules(0) == []


def test_combined_rules_of_a_middle_leaf():
    rng = np.random.default_rng(91)
    n = 900
    x = rng.uniform(size=n)
    parts = [_pl(z, n, s).ranks for z, s in (([1, 0, -1], 1), ([-1, 1, 0], 2), ([0, -1, 1], 3))]
    ranks = np.where(
        (x < 1 / 3)[:, None], parts[0], np.where((x < 2 / 3)[:, None], parts[1], parts[2])
    )
    tree = PlackettLuceTree().fit(Rankings(ranks), x[:, None])
    assert tree.n_leaves_ == 3
    middle = tree.apply(np.array([[0.5]]))[0]
    (rule,) = tree.node_rules(int(middle), combine=True)
    lo, name, hi = rule.replace("<=", "<").split(" < ")
    assert name == "x0" and 0.3 < float(lo) < 0.37 and 0.63 < float(hi) < 0.7
    assert len(tree.node_rules(int(middle))) == 2


def test_plot_one_panel_per_leaf():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from rankclust.plotting import plot_plackett_luce_tree

    R, X = _two_group_data(seed=71)
    tree = PlackettLuceTree().fit(R, X)
    fig = plot_plackett_luce_tree(tree, max_items=3)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == tree.n_leaves_
    assert all(len(ax.get_yticks()) == 3 for ax in visible)
    assert "x0" in visible[0].get_title()
    with pytest.raises(TypeError, match="PlackettLuceTree"):
        plot_plackett_luce_tree(PlackettLuce())


# ------------------------------------------------------------------------- API contract
def test_bad_input():
    R, X = _two_group_data(seed=81, n=50)
    with pytest.raises(ValueError, match="rows"):
        PlackettLuceTree().fit(R, X[:10])
    bad = X.copy()
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PlackettLuceTree().fit(R, bad)
    with pytest.raises(ValueError, match="tie"):
        PlackettLuceTree().fit(Rankings([[0, 0, 1]]), np.zeros((1, 1)))
    with pytest.raises(ValueError, match="alpha"):
        PlackettLuceTree(alpha=1.5).fit(R, X)
    with pytest.raises(ValueError, match="categorical_features"):
        PlackettLuceTree(categorical_features=[5]).fit(R, X)
    never_loses = Rankings.from_orderings([[0, 1, 2], [0, 2, 1]] * 5)
    with pytest.raises(ValueError, match="prior > 0"):
        PlackettLuceTree().fit(never_loses, np.zeros((10, 1)))
    assert PlackettLuceTree(prior=0.1).fit(never_loses, np.zeros((10, 1))).n_leaves_ == 1
    tree = PlackettLuceTree().fit(R, X)
    with pytest.raises(ValueError, match="columns"):
        tree.apply(X[:, :1])


def test_clone_and_params():
    tree = PlackettLuceTree(alpha=0.01, max_depth=3, categorical_features=[0])
    c = clone(tree)
    assert c.get_params() == tree.get_params()


def test_save_load_round_trip_and_a_tampered_tree_is_refused(tmp_path):
    pd = pytest.importorskip("pandas")
    from rankclust.persistence import load, save

    rng = np.random.default_rng(101)
    n = 400
    group = rng.choice(np.array(["a", "b", "c"]), size=n)
    R = Rankings(
        np.where((group == "b")[:, None], _pl([-1, 0, 1], n, 1).ranks, _pl([1, 0, -1], n, 2).ranks)
    )
    X = pd.DataFrame({"age": rng.uniform(20, 70, size=n), "group": group})
    tree = PlackettLuceTree().fit(R, X)
    assert tree.n_leaves_ >= 2
    save(tree, tmp_path / "tree.zip")
    back = load(tmp_path / "tree.zip")
    np.testing.assert_array_equal(back.apply(X), tree.apply(X))
    np.testing.assert_array_equal(back.logpdf(R, X), tree.logpdf(R, X))
    assert back.export_text() == tree.export_text()
    back.children_left_[0] = 0  # a loop back to the root
    with pytest.raises(ValueError, match="child"):
        back._validate_loaded_state()
