"""Figures of uncertainty: worths with intervals, position probabilities of the centres."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from rankclust.cluster.mixture import PlackettLuceMixture
from rankclust.inference import bootstrap, plackett_luce_vcov, wald_intervals
from rankclust.models import PlackettLuce
from rankclust.plotting import plot_position_probabilities, plot_worth_intervals


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def pl_data():
    return PlackettLuce.from_params(scores=[1.0, 0.5, 0.0, -1.5]).sample(300, random_state=0)


@pytest.fixture(scope="module")
def mixture_boot(pl_data):
    mix = PlackettLuceMixture(n_components=2, random_state=0).fit(pl_data)
    return mix, bootstrap(mix, pl_data, 10, random_state=0)


def test_worth_intervals_wald_single_model(pl_data):
    pl = PlackettLuce().fit(pl_data)
    se = np.sqrt(np.diag(plackett_luce_vcov(pl_data, pl.scores_)))
    bounds = wald_intervals(pl.scores_, se)
    ax = plot_worth_intervals(pl, bounds, items=list("abcd"), parameter="scores")
    assert len(ax.containers) == 1
    # best item on top: the largest score is the last y tick label
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == "a" and labels[0] == "d"
    # the bars span the given bounds
    segments = ax.containers[0].lines[2][0].get_segments()
    spans = sorted((float(s[0][0]), float(s[1][0])) for s in segments)
    np.testing.assert_allclose(spans, sorted(map(tuple, bounds)))


def test_worth_intervals_from_a_bootstrap_of_a_mixture(mixture_boot):
    mix, boot = mixture_boot
    ax = plot_worth_intervals(mix, boot, items=list("abcd"))
    assert len(ax.containers) == 2
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["cluster 0", "cluster 1"]


def test_worth_intervals_refuse_bad_input(pl_data, mixture_boot):
    pl = PlackettLuce().fit(pl_data)
    with pytest.raises(ValueError, match="shape"):
        plot_worth_intervals(pl, np.zeros((3, 2)))
    with pytest.raises(ValueError, match="low <= high"):
        plot_worth_intervals(pl, np.tile([1.0, 0.0], (4, 1)))
    with pytest.raises(ValueError, match="parameter"):
        plot_worth_intervals(pl, np.zeros((4, 2)), parameter="theta")
    with pytest.raises(TypeError, match="PlackettLuce"):
        plot_worth_intervals(object(), np.zeros((4, 2)))


def test_position_probabilities_from_a_bootstrap(mixture_boot):
    _, boot = mixture_boot
    fig = plot_position_probabilities(boot, items=list("abcd"))
    panels = [ax for ax in fig.axes if ax.get_images()]
    assert len(panels) == 2 and len(fig.axes) == 3  # two heat maps and one colour bar
    for k, ax in enumerate(panels):
        shown = ax.get_images()[0].get_array()
        # rows follow the reported centre: the item at position p is row p
        order = np.argsort(boot.centers[k])
        np.testing.assert_allclose(shown, boot.position_probabilities[k][order])
        assert [t.get_text() for t in ax.get_yticklabels()] == [list("abcd")[j] for j in order]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3", "4"]


def test_position_probabilities_array_and_annotations():
    P = np.array([[0.0, 1.0, 0.0], [0.8, 0.0, 0.2], [0.2, 0.0, 0.8]])
    fig = plot_position_probabilities(P, items=["a", "b", "c"])
    ax = fig.axes[0]
    # no centre given: rows by expected position (b, a, c)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "a", "c"]
    assert len(ax.texts) == 5  # the non-zero cells


def test_position_probabilities_refuse_bad_input():
    with pytest.raises(ValueError, match="sum to 1"):
        plot_position_probabilities(np.full((3, 3), 0.5))
    with pytest.raises(ValueError, match="shape"):
        plot_position_probabilities(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        plot_position_probabilities(np.array([[2.0, -1.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="centers"):
        plot_position_probabilities(np.eye(3), centers=[[0, 1]])
