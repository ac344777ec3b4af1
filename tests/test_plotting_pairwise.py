"""Figures of pairwise comparisons: worths of Bradley-Terry fits, win proportions per cluster."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from rankclust.inference import wald_intervals
from rankclust.pairwise import BradleyTerry, BradleyTerryMixture, Comparisons
from rankclust.plotting import plot_bic, plot_comparison_matrices, plot_worth_intervals

ITEMS = ["apple", "banana", "cherry", "date"]


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def two_groups():
    """Assessors 0-5 rank the items in their order, 6-9 in reverse; every pair once each."""
    w, lo, a = [], [], []
    for who in range(10):
        order = [0, 1, 2, 3] if who < 6 else [3, 2, 1, 0]
        for x in range(4):
            for y in range(x + 1, 4):
                w.append(order[x])
                lo.append(order[y])
                a.append(who)
    C = Comparisons.from_arrays(w, lo, assessor=a, items=ITEMS)
    mix = BradleyTerryMixture(n_components=2, random_state=0).fit(C)
    return C, mix


def test_comparison_matrices_one_panel_per_cluster_in_consensus_order(two_groups):
    C, mix = two_groups
    fig = plot_comparison_matrices(C, mix)
    panels = [ax for ax in fig.axes if ax.get_images()]
    assert len(panels) == 2
    sizes = np.bincount(mix.labels_)
    for k, ax in enumerate(panels):
        assert ax.get_title() == f"cluster {k} (n={sizes[k]})"
        order = np.argsort(mix.rankings_[k])
        assert [t.get_text() for t in ax.get_yticklabels()] == [ITEMS[j] for j in order]
        # each cluster follows its consensus unanimously: 1 above the diagonal, 0 below
        shown = np.ma.filled(ax.get_images()[0].get_array(), np.nan)
        assert np.allclose(shown[np.triu_indices(4, 1)], 1.0)
        assert np.allclose(shown[np.tril_indices(4, -1)], 0.0)
        assert ax.get_xlabel() in ("", "less preferred item (column)")
    assert any(ax.get_ylabel() == "P(row above column)" for ax in fig.axes)  # the colour bar


def test_comparison_matrices_labels_model_none_and_one_model(two_groups):
    C, _ = two_groups
    labels = np.r_[np.zeros(6, int), -np.ones(4, int)]  # only group 0; the rest left out
    fig = plot_comparison_matrices(C, labels=labels)
    (ax,) = [a for a in fig.axes if a.get_images()]
    assert [t.get_text() for t in ax.get_yticklabels()] == ITEMS  # by share of wins
    bt = BradleyTerry(alpha=0.1).fit(C)
    fig = plot_comparison_matrices(C, bt)
    (ax,) = [a for a in fig.axes if a.get_images()]
    assert ax.get_title() == "all comparisons (n=10)"
    shown = np.ma.filled(ax.get_images()[0].get_array(), np.nan)
    # ordered apple > banana > cherry > date: 6 of the 10 assessors agree with every pair
    assert [t.get_text() for t in ax.get_yticklabels()] == ITEMS
    assert np.allclose(shown[np.triu_indices(4, 1)], 0.6)
    assert np.allclose(shown[np.tril_indices(4, -1)], 0.4)


def test_comparison_matrices_empty_cluster_keeps_its_panel(two_groups):
    C, mix = two_groups
    fig = plot_comparison_matrices(C, mix, labels=np.zeros(10, int))
    titles = [ax.get_title() for ax in fig.axes]
    assert "cluster 1 (n=0, empty)" in titles
    assert len([a for a in fig.axes if a.get_images()]) == 1


def test_comparison_matrices_refuse_bad_input(two_groups):
    C, mix = two_groups
    with pytest.raises(TypeError, match="Comparisons"):
        plot_comparison_matrices(np.ones((4, 4)))
    with pytest.raises(TypeError, match="BradleyTerry"):
        plot_comparison_matrices(C, object())
    other = Comparisons.from_arrays([0, 1], [1, 2], assessor=[0, 1])
    with pytest.raises(ValueError, match="not fitted to 3 items"):
        plot_comparison_matrices(other, mix)
    with pytest.raises(ValueError, match=r"labels must lie in \[-1, 1\)"):
        plot_comparison_matrices(C, BradleyTerry(alpha=0.1).fit(C), labels=[0, 1, 2] * 3 + [0])


def test_worth_intervals_of_bradley_terry_fits(two_groups):
    C, mix = two_groups
    ax = plot_worth_intervals(mix, parameter="scores")  # no intervals: points only
    assert len(ax.containers) == 2
    assert ax.containers[0].has_xerr is False
    assert ax.get_title() == "Bradley-Terry log-worths"
    assert ax.get_xlabel() == "log-worth (score)"
    assert sorted(t.get_text() for t in ax.get_yticklabels()) == sorted(ITEMS)
    bt = BradleyTerry(alpha=0.1).fit(C)
    se = bt.standard_errors(C)
    bounds = wald_intervals(bt.scores_, se)
    ax = plot_worth_intervals(bt, bounds, parameter="scores")
    assert ax.containers[0].has_xerr and ax.get_xlabel() == "log-worth (score) with interval"
    assert ax.get_title() == "Bradley-Terry log-worths with intervals"
    segments = ax.containers[0].lines[2][0].get_segments()
    spans = sorted((float(s[0][0]), float(s[1][0])) for s in segments)
    np.testing.assert_allclose(spans, sorted(map(tuple, bounds)))


def test_bic_figure_of_a_pairs_selection(two_groups):
    C, _ = two_groups
    rows = []
    for k in (1, 2, 3):
        est = BradleyTerryMixture(n_components=k, random_state=0).fit(C)
        rows.append({"k": k, "log_likelihood": est.log_likelihood_, "bic": est.bic_})
    ax = plot_bic(rows, title="pairs")
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == "BIC"]
    np.testing.assert_allclose(line.get_ydata(), [r["bic"] for r in rows])
    best = min(rows, key=lambda r: r["bic"])["k"]
    (star,) = [ln for ln in ax.get_lines() if ln.get_label() == "_best_bic"]
    assert star.get_xdata()[0] == best == 2
