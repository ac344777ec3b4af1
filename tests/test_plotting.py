"""Tests for rankclust.plotting: each figure is rendered to a PNG and its content checked."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from rankclust import Rankings
from rankclust.plotting import (
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


def _render(fig, path):
    """Save to PNG, check it is a real image, return its pixels (H, W, 4) in [0, 1]."""
    fig.savefig(path, dpi=60)
    assert path.stat().st_size > 1000
    img = plt.imread(path)
    assert img.ndim == 3 and img.shape[0] > 50 and img.shape[1] > 50
    return img


def _tick_texts(labels):
    return [t.get_text() for t in labels]


# ---------------------------------------------------------------------------- central rankings
def test_central_rankings_heatmap_values_and_labels(tmp_path):
    centers = Rankings([[0, 1, 2, -1], [3, 2, 1, 0]], items=["apple", "pear", "fig", "kiwi"])
    ax = plot_central_rankings(centers, cluster_sizes=[10, 4], order="given")
    img = _render(ax.figure, tmp_path / "centers.png")
    (image,) = ax.get_images()
    data = image.get_array()
    # 1-based positions; the absent item is masked (drawn blank)
    np.testing.assert_array_equal(data[0, :3], [1, 2, 3])
    assert np.ma.is_masked(data[0, 3])
    np.testing.assert_array_equal(data[1], [4, 3, 2, 1])
    assert _tick_texts(ax.get_xticklabels()) == ["apple", "pear", "fig", "kiwi"]
    assert _tick_texts(ax.get_yticklabels()) == ["cluster 0 (n=10)", "cluster 1 (n=4)"]
    assert "Central rankings" in ax.get_title()
    # one annotation per present cell
    assert sorted(t.get_text() for t in ax.texts) == sorted(["1", "2", "3", "4", "3", "2", "1"])
    # the heat map is coloured: many distinct pixel colours, not a blank canvas
    assert len(np.unique(img.reshape(-1, img.shape[2]), axis=0)) > 20


def test_central_rankings_mean_order_and_array_input():
    ax = plot_central_rankings(np.array([[2, 0, 1], [2, 1, 0]]), items=["a", "b", "c"])
    # mean positions: a=2, b=0.5, c=0.5 -> b, c, a
    assert _tick_texts(ax.get_xticklabels()) == ["b", "c", "a"]
    np.testing.assert_array_equal(ax.get_images()[0].get_array(), [[1, 2, 3], [2, 1, 3]])


def test_central_rankings_single_vector_and_existing_axes():
    _fig, ax = plt.subplots()
    out = plot_central_rankings([1, 0, 2], ax=ax, title=None)
    assert out is ax
    assert out.get_images()[0].get_array().shape == (1, 3)
    assert _tick_texts(ax.get_yticklabels()) == ["cluster 0"]


def test_central_rankings_row_labels():
    ax = plot_central_rankings(
        [[0, 1], [1, 0]], row_labels=["Mallows", "Plackett-Luce"], cluster_sizes=[3, 4]
    )
    assert _tick_texts(ax.get_yticklabels()) == ["Mallows (n=3)", "Plackett-Luce (n=4)"]
    with pytest.raises(ValueError, match="row_labels"):
        plot_central_rankings([[0, 1]], row_labels=["a", "b"])


def test_central_rankings_rejects_wrong_item_count():
    with pytest.raises(ValueError, match="2 names for 3 items"):
        plot_central_rankings([[0, 1, 2]], items=["a", "b"])


# ---------------------------------------------------------------------------- pairwise
def test_pairwise_matrix_fractions(tmp_path):
    R = Rankings.from_orderings([[0, 1, 2], [0, 2, 1], [1, 0, 2]], items=["x", "y", "z"])
    C = R.pairwise_counts()
    ax = plot_pairwise_matrix(C, items=R.items)
    _render(ax.figure, tmp_path / "pairwise.png")
    P = ax.get_images()[0].get_array()
    assert np.ma.is_masked(P[0, 0]) and np.ma.is_masked(P[2, 2])
    assert P[0, 1] == pytest.approx(2 / 3)
    assert P[1, 0] == pytest.approx(1 / 3)
    assert P[0, 2] == pytest.approx(1.0)
    np.testing.assert_allclose(P + P.T, np.where(np.eye(3, dtype=bool), np.nan, 1.0))
    assert _tick_texts(ax.get_yticklabels()) == ["x", "y", "z"]
    assert "preferred" in ax.get_ylabel()
    assert len(ax.figure.axes) == 2  # the matrix and its colour bar


def test_pairwise_matrix_never_compared_pair_is_blank():
    C = np.array([[0, 3, 0], [1, 0, 0], [0, 0, 0]], dtype=float)
    P = plot_pairwise_matrix(C).get_images()[0].get_array()
    assert np.ma.is_masked(P[0, 2]) and np.ma.is_masked(P[2, 1])
    assert P[0, 1] == pytest.approx(0.75)


def test_pairwise_matrix_rejects_bad_input():
    with pytest.raises(ValueError, match="square"):
        plot_pairwise_matrix(np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        plot_pairwise_matrix(-np.ones((2, 2)))


def test_pairwise_matrices_one_panel_per_cluster(tmp_path):
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0], [0, 1, 2], [2, 0, 1]])
    C = R.pairwise_counts(labels=[0, 1, 0, 1])
    fig = plot_pairwise_matrices(C, items=["a", "b", "c"], order="given")
    _render(fig, tmp_path / "pairwise_k.png")
    panels = [a for a in fig.axes if a.get_images()]
    assert len(panels) == 2
    assert [a.get_title() for a in panels] == ["cluster 0", "cluster 1"]
    assert panels[0].get_images()[0].get_array()[0, 2] == 1.0
    assert panels[1].get_images()[0].get_array()[0, 2] == 0.0


# ---------------------------------------------------------------------------- BIC
def test_plot_bic_lines_and_minimum(tmp_path):
    table = [
        {"K": 3, "bic": 25.0, "icl": 27.0, "model": object()},
        {"K": 1, "bic": 30.0, "icl": 30.0, "model": object()},
        {"K": 2, "bic": 20.0, "icl": 26.0, "model": object()},
    ]
    ax = plot_bic(table, style="single")
    _render(ax.figure, tmp_path / "bic.png")
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    assert {"BIC", "ICL"} <= set(lines)
    np.testing.assert_array_equal(lines["BIC"].get_xdata(), [1, 2, 3])  # sorted by K
    np.testing.assert_array_equal(lines["BIC"].get_ydata(), [30.0, 20.0, 25.0])
    assert lines["_best_bic"].get_xdata()[0] == 2
    assert lines["_best_icl"].get_xdata()[0] == 2
    assert "K" in ax.get_xlabel()
    assert _tick_texts(ax.get_legend().get_texts()) == ["BIC", "ICL"]


def test_plot_bic_column_mapping_and_errors():
    ax = plot_bic({"n_components": [1, 2], "aic": [5.0, 4.0]})  # one criterion: one Axes
    assert [ln.get_label() for ln in ax.get_lines()] == ["AIC", "_best_aic"]
    ax = plot_bic([{"k": 1, "objective": 9.0}, {"k": 2, "objective": 4.0}], criteria=["objective"])
    assert ax.get_lines()[0].get_label() == "OBJECTIVE"
    with pytest.raises(ValueError, match="no numeric column"):
        plot_bic({"k": [1], "bic": [1.0]}, criteria=["icl"])
    with pytest.raises(ValueError, match="column for K"):
        plot_bic({"bic": [1.0]})
    with pytest.raises(ValueError, match="criterion"):
        plot_bic({"k": [1]})
    with pytest.raises(TypeError):
        plot_bic(42)


# ---------------------------------------------------------------------------- feature space
def test_feature_clusters_pca_scatter(tmp_path):
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 0.1, (20, 4)), rng.normal(3, 0.1, (10, 4))]
    labels = np.r_[np.zeros(20, int), np.ones(10, int)]
    ax = plot_feature_clusters(X, labels)
    _render(ax.figure, tmp_path / "features.png")
    assert len(ax.collections) == 2
    sizes = [len(c.get_offsets()) for c in ax.collections]
    assert sizes == [20, 10]
    assert _tick_texts(ax.get_legend().get_texts()) == ["cluster 0 (n=20)", "cluster 1 (n=10)"]
    assert ax.get_xlabel().startswith("PC1") and ax.get_ylabel().startswith("PC2")
    assert "standardised" in ax.get_xlabel()
    # the clusters are separated along PC1
    x0 = ax.collections[0].get_offsets()[:, 0]
    x1 = ax.collections[1].get_offsets()[:, 0]
    assert x0.max() < x1.min() or x1.max() < x0.min()


def test_feature_clusters_one_feature_and_unassigned():
    ax = plot_feature_clusters(np.arange(6.0)[:, None], [0, 0, 1, 1, -1, -1])
    assert ax.get_xlabel() == "feature 0 (standardised)"
    assert "unassigned (n=2)" in _tick_texts(ax.get_legend().get_texts())


def test_feature_clusters_names():
    ax = plot_feature_clusters(np.eye(4), [1, 1, 0, 0], names=["red", "blue"])
    assert _tick_texts(ax.get_legend().get_texts()) == ["red (n=2)", "blue (n=2)"]


def test_feature_clusters_bad_input():
    with pytest.raises(ValueError, match="labels"):
        plot_feature_clusters(np.zeros((3, 2)), [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        plot_feature_clusters(np.array([[np.nan, 1.0], [0.0, 1.0]]), [0, 1])


# ---------------------------------------------------------------------------- randomisation
def test_randomization_test_histogram(tmp_path):
    null = np.random.default_rng(1).normal(100, 5, 99)
    ax = plot_randomization_test(null, observed=80.0, p_value=0.01, bins=10)
    _render(ax.figure, tmp_path / "null.png")
    assert len(ax.patches) == 10
    assert sum(p.get_height() for p in ax.patches) == 99
    (vline,) = ax.get_lines()
    assert vline.get_xdata()[0] == 80.0
    assert ax.get_title() == "Randomisation test (p = 0.01)"
    assert "p = 0.01" in _tick_texts(ax.get_legend().get_texts())[1]


def test_randomization_test_rejects_empty():
    with pytest.raises(ValueError, match="empty"):
        plot_randomization_test([], observed=1.0)
