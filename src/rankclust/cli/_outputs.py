"""What a command writes besides its summary: figures (``--plots``), JSON, the saved model."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from rankclust.cli._console import Console
from rankclust.cli._errors import CLIError

__all__ = ["Outputs", "cluster_figures", "interval_figures", "pairs_figures"]

# Larger pairwise figures are unreadable: they are left out with a note.
_MAX_PAIRWISE_ITEMS = 40
_MAX_PAIRWISE_PANELS = 10
# Larger worth figures (one row per item) are unreadable too.
_MAX_WORTH_ITEMS = 60


class Outputs:
    """Figures, JSON and the saved model of one command run."""

    def __init__(self, args: argparse.Namespace, console: Console):
        self.args = args
        self.console = console
        self.plots_dir = Path(args.plots) if getattr(args, "plots", None) else None
        self.written: list[Path] = []

    def want_plots(self) -> bool:
        return self.plots_dir is not None

    def want_json(self) -> bool:
        return bool(getattr(self.args, "json", None))

    def figure(self, name: str, draw: Callable[[], Any]) -> None:
        """Draw with ``draw()`` (returns an Axes or Figure) and save ``name`` in the plot dir."""
        if self.plots_dir is None:
            return
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        self.plots_dir.mkdir(parents=True, exist_ok=True)
        drawn = draw()
        fig = drawn if hasattr(drawn, "savefig") else drawn.figure
        path = self.plots_dir / name
        fig.savefig(path, dpi=120)
        plt.close(fig)
        self.written.append(path)

    def json(self, result: dict) -> None:
        path = getattr(self.args, "json", None)
        if path:
            from rankclust.cli.report import write_json

            write_json(result, path)
            self.written.append(Path(path))

    def save(self, model: Any) -> None:
        path = getattr(self.args, "save", None)
        if path:
            from rankclust.persistence import save

            try:
                save(model, path)
            except TypeError as exc:  # the model holds something that cannot be stored safely
                raise CLIError(f"cannot save the model: {exc}") from None
            self.written.append(Path(path))

    def report(self) -> None:
        if self.written:
            self.console.info("wrote " + ", ".join(str(p) for p in self.written))


def cluster_figures(out: Outputs, est: Any, R: Any, prefix: str = "") -> None:
    """The central rankings and the pairwise matrix of each cluster of a fitted clusterer."""
    if not out.want_plots():
        return
    from rankclust.cli.report import cluster_sizes
    from rankclust.plotting import plot_central_rankings, plot_pairwise_matrices

    centers = getattr(est, "centers_", None)
    if centers is None:
        centers = getattr(est, "central_rankings_", None)
    labels = np.asarray(getattr(est, "labels_", []))
    items = R.items
    matched = len(labels) == R.n_rankings and len(labels) > 0 and bool((labels >= 0).all())
    if centers is not None:
        pos = centers.ranks if hasattr(centers, "ranks") else np.asarray(centers)
        sizes = None
        if matched:  # ballots counted with their weights
            sizes = cluster_sizes(labels, len(pos), R.weights if R.is_weighted else None)[-1]
        out.figure(
            f"{prefix}central_rankings.png",
            lambda: plot_central_rankings(centers, items=items, cluster_sizes=sizes),
        )
    if matched:
        k = max(int(labels.max()) + 1, len(pos) if centers is not None else 0)  # empty: kept
        if R.n_items > _MAX_PAIRWISE_ITEMS or k > _MAX_PAIRWISE_PANELS:
            out.console.info(
                f"(no pairwise figure for {R.n_items} items and {k} clusters: too large to read)"
            )
            return
        C = R.pairwise_counts(labels=labels, n_groups=k)
        counts = cluster_sizes(labels, k, R.weights if R.is_weighted else None)[-1]
        out.figure(
            f"{prefix}pairwise_by_cluster.png",
            lambda: plot_pairwise_matrices(C, items, centers=centers, cluster_sizes=counts),
        )


def interval_figures(out: Outputs, est: Any, R: Any, boot: Any, level: float | None) -> None:
    """With ``--ci``: worths with intervals (Plackett-Luce), the position probabilities of the
    central rankings, and observed against expected (goodness of fit)."""
    if not out.want_plots() or boot is None:
        return
    from rankclust.inference import goodness_of_fit
    from rankclust.plotting import (
        plot_goodness_of_fit,
        plot_position_probabilities,
        plot_worth_intervals,
    )

    level = 0.95 if level is None else level
    items = R.items
    if hasattr(est, "worths_"):
        out.figure(
            "worth_intervals.png",
            lambda: plot_worth_intervals(est, boot, items=items, level=level),
        )
    out.figure(
        "position_probabilities.png",
        lambda: plot_position_probabilities(boot, items=items),
    )
    seed = getattr(out.args, "random_state", None)
    out.figure(
        "goodness_of_fit.png",
        lambda: plot_goodness_of_fit(goodness_of_fit(est, R, random_state=seed)),
    )


def pairs_figures(
    out: Outputs, est: Any, C: Any, intervals: Any = None, level: float | None = None
) -> None:
    """A Bradley-Terry fit on comparisons: each cluster's log-worths (with ``intervals``:
    bootstrap, standard errors or bounds, when given) and its pairwise win proportions."""
    if not out.want_plots():
        return
    from rankclust.plotting import plot_comparison_matrices, plot_worth_intervals

    level = 0.95 if level is None else level
    k = len(est.weights_) if hasattr(est, "weights_") else 1
    if C.n_items > _MAX_WORTH_ITEMS:
        out.console.info(f"(no worths figure for {C.n_items} items: too large to read)")
    else:
        out.figure(
            "worths.png",
            lambda: plot_worth_intervals(est, intervals, items=C.items, parameter="scores",
                                         level=level),
        )  # fmt: skip
    if C.n_items > _MAX_PAIRWISE_ITEMS or k > _MAX_PAIRWISE_PANELS:
        out.console.info(
            f"(no pairwise figure for {C.n_items} items and {k} clusters: too large to read)"
        )
        return
    out.figure("pairwise_by_cluster.png", lambda: plot_comparison_matrices(C, est))
