"""Figures fit for a paper: result objects accepted, panels ordered by the central ranking,
grid shape by m and K, no best marker on request, standardised PCA, one empty-cluster rule."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from sklearn.decomposition import PCA

from rankclust import Rankings
from rankclust.cluster import ChainKMeans, MallowsMixture, SelectKResult, select_k
from rankclust.cluster.swap_mcmc import RandomizationTestResult
from rankclust.datasets import make_mallows_mixture
from rankclust.plotting import (
    _grid_shape,
    plot_bic,
    plot_central_rankings,
    plot_feature_clusters,
    plot_pairwise_matrices,
    plot_pairwise_matrix,
    plot_randomization_test,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _ticks(labels):
    return [t.get_text() for t in labels]


def _panels(fig):
    return [a for a in fig.axes if a.get_images()]


def _titles_inside(fig, tmp_path):
    """Every title's box lies inside the figure once drawn (nothing clipped)."""
    fig.savefig(tmp_path / "f.png", dpi=50)
    renderer = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    for ax in fig.axes:
        if ax.get_title():
            box = ax.title.get_window_extent(renderer)
            assert box.x0 >= -1 and box.y0 >= -1, ax.get_title()
            assert box.x1 <= W + 1 and box.y1 <= H + 1, ax.get_title()


# ------------------------------------------------------------------ pairwise panels
def test_panels_follow_each_cluster_central_ranking():
    names = ["a", "b", "c", "d"]
    R = Rankings.from_orderings([[2, 0, 3, 1], [1, 3, 0, 2]], items=names)
    C = R.pairwise_counts(labels=[0, 1], n_groups=2)
    centers = Rankings([[1, 3, 0, 2], [2, 0, 3, 1]], items=names)  # positions
    fig = plot_pairwise_matrices(C, names, centers=centers, cluster_sizes=[1, 1])
    p0, p1 = _panels(fig)
    assert _ticks(p0.get_yticklabels()) == ["c", "a", "d", "b"]
    assert _ticks(p0.get_xticklabels()) == ["c", "a", "d", "b"]
    assert _ticks(p1.get_yticklabels()) == ["b", "d", "a", "c"]
    # ordered by its own consensus, a cluster of one ranking is red above the diagonal
    P = p0.get_images()[0].get_array()
    assert np.all(P[np.triu_indices(4, 1)] == 1.0)
    assert [a.get_title() for a in (p0, p1)] == ["cluster 0 (n=1)", "cluster 1 (n=1)"]


def test_panels_accept_a_fitted_clusterer_and_order_by_wins_without_centers():
    R, _ = make_mallows_mixture(
        200, 5, 2, centers=[[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]], thetas=2.0, random_state=0
    )
    model = MallowsMixture(n_components=2, random_state=0).fit(R)
    C = R.pairwise_counts(labels=model.labels_, n_groups=2)
    fig = plot_pairwise_matrices(C, centers=model)
    for k, ax in enumerate(_panels(fig)):
        expected = np.argsort(model.centers_.ranks[k]).astype(str).tolist()
        assert _ticks(ax.get_yticklabels()) == expected
    # without centres: by the share of comparisons won, which here is the same order
    fig2 = plot_pairwise_matrices(C)
    assert [_ticks(a.get_yticklabels()) for a in _panels(fig2)] == [
        _ticks(a.get_yticklabels()) for a in _panels(fig)
    ]


def test_single_matrix_orders():
    R = Rankings.from_orderings([[2, 1, 0], [2, 0, 1]], items=["x", "y", "z"])
    ax = plot_pairwise_matrix(R.pairwise_counts(), R.items, order="wins")
    assert _ticks(ax.get_yticklabels())[0] == "z"
    ax = plot_pairwise_matrix(R.pairwise_counts(), R.items, order=[1, 2, 0])
    assert _ticks(ax.get_xticklabels()) == ["y", "z", "x"]
    with pytest.raises(ValueError, match="permutation"):
        plot_pairwise_matrix(R.pairwise_counts(), order=[0, 0, 1])


@pytest.mark.parametrize(
    ("m", "K", "rows", "cols"),
    [(5, 1, 1, 1), (5, 3, 1, 3), (5, 8, 2, 4), (14, 4, 2, 2), (14, 8, 3, 3), (20, 8, 3, 3)],
)
def test_grid_shape_scales_with_m_and_k(m, K, rows, cols):
    assert _grid_shape(K, m, 10, None)[:2] == (rows, cols)
    C = np.ones((K, m, m))
    fig = plot_pairwise_matrices(C, [f"candidate {j}" for j in range(m)])
    assert len(_panels(fig)) == K  # unused grid cells removed
    side = _grid_shape(K, m, len(f"candidate {m - 1}"), None)[2]
    width, height = fig.get_size_inches()
    assert width == pytest.approx(cols * side + 1.2)
    assert height == pytest.approx(rows * side + 0.3)
    # room per item: at least 0.18 inch a cell, whatever m
    assert side >= 0.18 * m


def test_panel_side_grows_with_m():
    sides = [_grid_shape(1, m, 10, None)[2] for m in (5, 14, 20)]
    assert sides[0] < sides[1] < sides[2]
    assert _grid_shape(8, 20, 10, ncols=2)[:2] == (4, 2)
    with pytest.raises(ValueError, match="ncols"):
        _grid_shape(3, 5, 1, 0)


def test_titles_are_not_clipped(tmp_path):
    m = 14
    names = [f"A Very Long Candidate Name {j}" for j in range(m)]
    fig = plot_pairwise_matrices(np.ones((8, m, m)), names, cluster_sizes=[100] * 8)
    _titles_inside(fig, tmp_path)
    ax = plot_bic(
        {"k": [1, 2, 3], "objective": [3.0, 2.0, 1.5]},
        criteria=["objective"],
        title="A rather long title of a model-selection figure for a paper that wraps",
    )
    _titles_inside(ax.figure, tmp_path)
    assert "\n" in ax.get_title()


# ------------------------------------------------------------------ empty clusters
def test_empty_cluster_is_a_labelled_panel_everywhere():
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0]], items=["a", "b", "c"])
    labels = np.array([0, 2])  # cluster 1 is empty
    C = R.pairwise_counts(labels=labels, n_groups=3)
    fig = plot_pairwise_matrices(C, R.items, cluster_sizes=[1, 0, 1])
    titles = [a.get_title() for a in fig.axes if a.get_title()]
    assert titles == ["cluster 0 (n=1)", "cluster 1 (n=0, empty)", "cluster 2 (n=1)"]
    empty_ax = next(a for a in fig.axes if "empty" in a.get_title())
    assert not empty_ax.get_images() and "empty cluster" in empty_ax.texts[0].get_text()
    # without sizes, a cluster with no comparisons is the same labelled panel
    fig = plot_pairwise_matrices(C, R.items)
    assert "cluster 1 (n=0, empty)" in [a.get_title() for a in fig.axes]

    ax = plot_central_rankings([[0, 1, 2], [1, 0, 2], [2, 1, 0]], cluster_sizes=[1, 0, 1])
    assert _ticks(ax.get_yticklabels())[1] == "cluster 1 (n=0, empty)"
    shown = ax.get_images()[0].get_array()
    assert shown.mask[1].all() and not shown.mask[0].any()
    assert "empty cluster" in [t.get_text() for t in ax.texts]

    ax = plot_feature_clusters(np.eye(2), labels, n_clusters=3)
    legend = _ticks(ax.get_legend().get_texts())
    assert legend == ["cluster 0 (n=1)", "cluster 1 (n=0, empty)", "cluster 2 (n=1)"]
    assert [len(c.get_offsets()) for c in ax.collections] == [1, 0, 1]
    # by default an empty cluster between two used labels is still listed
    legend = _ticks(plot_feature_clusters(np.eye(2), labels).get_legend().get_texts())
    assert "cluster 1 (n=0, empty)" in legend
    with pytest.raises(ValueError, match="n_clusters"):
        plot_feature_clusters(np.eye(2), labels, n_clusters=2)


# ------------------------------------------------------------------ model selection
TABLE = {
    "k": [1, 2, 3, 4],
    "bic": [70000.0, 69500.0, 69400.0, 69450.0],
    "aic": [69990.0, 69450.0, 69300.0, 69280.0],
    "icl": [70000.0, 90000.0, 110000.0, 130000.0],
}


def test_bic_panels_one_scale_per_criterion():
    fig = plot_bic(TABLE)
    axes = fig.axes
    assert [a.get_title() for a in axes] == [
        "BIC (best K=3)",
        "ICL (best K=1)",
        "AIC (best K=4)",
    ]
    for ax, name in zip(axes, ["bic", "icl", "aic"], strict=True):
        low, high = ax.get_ylim()
        values = np.asarray(TABLE[name])
        assert low <= values.min() and high >= values.max()
        assert high - low < 2 * (values.max() - values.min())  # its own scale, not ICL's
        (star,) = [ln for ln in ax.get_lines() if ln.get_label() == "_best_" + name]
        assert star.get_xdata()[0] == TABLE["k"][int(np.argmin(values))]
        assert ax.yaxis.get_major_formatter().get_useOffset() is False


def test_bic_difference_and_no_marker():
    ax = plot_bic(TABLE, style="difference")
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    np.testing.assert_allclose(lines["BIC"].get_ydata(), [600.0, 100.0, 0.0, 50.0])
    assert min(lines["AIC"].get_ydata()) == 0.0
    ax = plot_bic(
        {"k": [1, 2, 3], "objective": [9.0, 5.0, 4.0]}, criteria=["objective"], mark_best=False
    )
    assert [ln.get_label() for ln in ax.get_lines()] == ["OBJECTIVE"]
    assert not any(ln.get_marker() == "*" for ln in ax.get_lines())
    fig = plot_bic(TABLE, mark_best=False)
    assert not any(ln.get_marker() == "*" for a in fig.axes for ln in a.get_lines())
    assert all("best" not in a.get_title() for a in fig.axes)
    with pytest.raises(ValueError, match="style"):
        plot_bic(TABLE, style="stacked")
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match="panels"):
        plot_bic(TABLE, ax=ax, style="panels")
    assert plot_bic(TABLE, ax=ax) is ax  # several criteria on a given Axes: differences


def test_bic_accepts_select_k_result():
    R, _ = make_mallows_mixture(
        150, 4, 2, centers=[[0, 1, 2, 3], [3, 2, 1, 0]], thetas=2.0, random_state=0
    )
    res = select_k(MallowsMixture(n_init=2, random_state=0), R, ks=[1, 2, 3])
    assert isinstance(res, SelectKResult)
    fig = plot_bic(res)
    bic_ax = fig.axes[0]
    assert bic_ax.get_title() == f"BIC (best K={res.best_k}), used"
    (line,) = [ln for ln in bic_ax.get_lines() if ln.get_label() == "BIC"]
    np.testing.assert_allclose(line.get_ydata(), [row["bic"] for row in res.table])


def test_randomization_test_accepts_result():
    res = RandomizationTestResult(
        pvalue=0.05,
        statistic=3.0,
        null_distribution=np.array([5.0, 6.0, 7.0]),
        n_steps=10,
        method="besag_clifford",
        acceptance_rate=0.5,
    )
    ax = plot_randomization_test(res)
    assert ax.get_lines()[0].get_xdata()[0] == 3.0
    assert "p = 0.05" in ax.get_title()
    with pytest.raises(TypeError, match="observed"):
        plot_randomization_test([1.0, 2.0])


def test_central_rankings_accept_a_fitted_clusterer():
    R = Rankings.from_orderings([[0, 1, 2], [0, 1, 2], [2, 1, 0]], items=["a", "b", "c"])
    km = ChainKMeans(n_clusters=2, random_state=0).fit(R)
    ax = plot_central_rankings(km, order="given")
    sizes = np.bincount(km.labels_, minlength=2)
    assert _ticks(ax.get_yticklabels()) == [f"cluster {k} (n={sizes[k]})" for k in range(2)]
    np.testing.assert_array_equal(ax.get_images()[0].get_array(), km.centers_.ranks + 1)


# ------------------------------------------------------------------ feature space
def test_pca_runs_on_standardised_features():
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(0, 1000.0, 60), rng.normal(0, 1.0, (60, 3))]  # one huge unit
    X[:, 1] += 2.0 * (np.arange(60) >= 30)
    labels = (np.arange(60) >= 30).astype(int)
    ax = plot_feature_clusters(X, labels)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    ref = PCA(n_components=2).fit(Z)
    expected = ref.transform(Z)
    got = np.vstack([c.get_offsets() for c in ax.collections])
    want = np.vstack([expected[labels == 0], expected[labels == 1]])
    for j in range(2):  # up to the sign of each component
        sign = np.sign(got[:, j] @ want[:, j])
        np.testing.assert_allclose(got[:, j], sign * want[:, j], atol=1e-8)
    assert ax.get_xlabel() == (
        f"PC1 of standardised features ({100 * ref.explained_variance_ratio_[0]:.0f}% of variance)"
    )
    # unscaled, PC1 is the large-unit column alone (~100 % of the variance)
    raw = plot_feature_clusters(X, labels, standardize=False)
    assert raw.get_xlabel().startswith("PC1 (100% of variance)")


def test_feature_clusters_accept_a_fitted_estimator():
    X = np.r_[np.zeros((4, 2)), np.ones((4, 2))] + np.arange(8)[:, None] * 0.01

    class Fitted:
        labels_ = np.array([0] * 4 + [1] * 4)

    ax = plot_feature_clusters(X, Fitted())
    assert [len(c.get_offsets()) for c in ax.collections] == [4, 4]
    # a constant feature is left at 0, not divided by zero
    ax = plot_feature_clusters(np.c_[X, np.ones(8)], Fitted.labels_)
    assert np.all(np.isfinite(np.vstack([c.get_offsets() for c in ax.collections])))


# ------------------------------------------------------------------ the CLI's figures
def test_cli_elbow_plot_has_no_best_marker(tmp_path, monkeypatch, capsys):
    """`select-k --method chains` says it cannot choose K: its figure stars no K."""
    import rankclust.plotting as plotting
    from rankclust.cli import main

    calls = []
    original = plotting.plot_bic

    def spy(*args, **kwargs):
        drawn = original(*args, **kwargs)
        calls.append((kwargs, drawn))
        return drawn

    monkeypatch.setattr(plotting, "plot_bic", spy)
    path = tmp_path / "ballots.csv"
    rows = [[0, 1, 2, 3], [1, 0, 2, 3], [3, 2, 1, 0], [2, 3, 1, 0]] * 5
    path.write_text("\n".join(",".join(str(j + 1) for j in r) for r in rows) + "\n")
    code = main(
        ["select-k", str(path), "--format", "orderings", "--ks", "1..3", "--method", "chains",
         "--kind", "subset", "--random-state", "0", "--plots", str(tmp_path / "figs"), "-q"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    ((kwargs, drawn),) = calls
    assert kwargs["criteria"] == ["objective"] and kwargs["mark_best"] is False
    assert not any(ln.get_marker() == "*" for ln in drawn.get_lines())
    assert (tmp_path / "figs" / "model_selection.png").is_file()
