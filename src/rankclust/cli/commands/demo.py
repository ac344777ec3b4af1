"""``rankclust demo``: the whole tool on data shipped with the package (and its figures)."""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_OK
from rankclust.cli._methods import make_estimator, method_registry, resolve_method
from rankclust.cli._outputs import Outputs, cluster_figures
from rankclust.cli.commands._evaluation import ranking_score
from rankclust.cli.commands.select_k import select_k_table

__all__ = ["cmd_demo"]

_DEMO_LABEL_SET = "glass"
# Label rankers the demo runs (the others are slower on this set and shown by name only).
_DEMO_LABEL_RANKERS = ("iblr", "lrt", "cc", "consensus")
_DEMO_CLUSTERER = "mixture"
_DEMO_SUPERVISED = "rt-iter"


def _demo_ballots(random_state: int) -> tuple[Any, str, np.ndarray]:
    """Synthetic ballots with candidate names: the rankings, a description and the
    generating components."""
    from rankclust import datasets
    from rankclust.rankings import Rankings

    R, truth = datasets.make_mallows_mixture(
        600, n_items=6, n_clusters=3, thetas=[1.2, 0.9, 0.7], lengths=(2, 6), kind="top",
        random_state=random_state,
    )  # fmt: skip
    names = ["Ada", "Ben", "Cleo", "Dev", "Eli", "Fay"]
    R = Rankings(R.ranks, kind=R.kind, items=names)
    return (
        R,
        "600 synthetic top-t ballots over 6 candidates from a 3-component Mallows mixture",
        truth,
    )


def cmd_demo(args: argparse.Namespace, console: Console) -> int:
    """Ranking models, clustering with model selection, label ranking and supervised
    clustering, each on shipped or synthetic data; figures to ``--plots``."""
    start = time.perf_counter()
    args.plots = args.plots or "demo_output"
    out = Outputs(args, console)
    rs = args.random_state if args.random_state is not None else 0
    X, Y = _demo_models(console, out)
    _demo_clustering(console, out, rs)
    train, test = _demo_label_ranking(console, X, Y, rs)
    _demo_supervised(console, out, X, Y, train, test, rs)
    console.print(f"figures written to {out.plots_dir}/ ({len(out.written)} files); "
                  f"demo took {time.perf_counter() - start:.1f} s")  # fmt: skip
    return EXIT_OK


def _demo_models(console: Console, out: Outputs) -> tuple[np.ndarray, Any]:
    """Section 1: one ranking model on shipped rankings; returns the label-ranking set
    ``(X, Y)`` (labels named ``label 1``, ...) that sections 3 and 4 use."""
    from rankclust.cli.report import model_summary
    from rankclust.datasets import load_label_ranking as load_lr
    from rankclust.models import Mallows, PlackettLuce
    from rankclust.rankings import Rankings

    X, Y = load_lr(_DEMO_LABEL_SET)
    labels = [f"label {j + 1}" for j in range(Y.n_items)]
    Y = Rankings(Y.ranks, kind=Y.kind, items=labels)
    console.print(f"== 1. Ranking models on the shipped label-ranking set {_DEMO_LABEL_SET!r}: "
                  f"{Y.n_rankings} rankings of {Y.n_items} labels ==")  # fmt: skip
    fitted = []
    for cls in (Mallows, PlackettLuce):
        name = cls.__name__
        with console.task(f"fitting {name}"):
            model = cls().fit(Y)
        console.print(model_summary(model, labels))
        fitted.append((name, model))
    console.print()
    from rankclust.plotting import plot_central_rankings, plot_pairwise_matrix

    centers = np.array([getattr(m, "center_", getattr(m, "ranking_", None)) for _, m in fitted])
    out.figure("1_models_central_rankings.png", lambda: plot_central_rankings(
        centers, items=labels, row_labels=[n for n, _ in fitted],
        title=f"Central rankings of {_DEMO_LABEL_SET!r}", order="given"))  # fmt: skip
    out.figure("1_pairwise_preferences.png", lambda: plot_pairwise_matrix(
        Y.pairwise_counts(), labels, title=f"Pairwise preferences in {_DEMO_LABEL_SET!r}"))  # fmt: skip
    return X, Y


def _demo_clustering(console: Console, out: Outputs, rs: int) -> None:
    """Section 2: cluster synthetic ballots with model selection."""
    from rankclust.cli.report import cluster_summary, selection_summary
    from rankclust.plotting import plot_bic

    R, source, truth = _demo_ballots(rs)
    console.print(f"== 2. Clustering ballots: {source} ==")
    method, cls = resolve_method("cluster", _DEMO_CLUSTERER)

    def make(k: int) -> Any:
        return make_estimator(cls, n_clusters=k, random_state=rs, n_init=2)

    rows, models, _ = select_k_table(cls, R, [1, 2, 3, 4, 5], console=console, make=make)
    console.print(selection_summary(
        rows, title=f"{cls.__name__} ({method.name}): model selection", choose_by=("bic",),
    ))  # fmt: skip
    best_k = min(rows, key=lambda r: (r["bic"], r["k"]))["k"]
    best = models[best_k]
    console.summary(cluster_summary(
        best, R, title=f"{cls.__name__} with K={best_k}", max_items=console.max_items,
    ), R.n_items)  # fmt: skip
    from sklearn.metrics import adjusted_rand_score

    ari = adjusted_rand_score(truth, best.labels_)
    console.print(f"adjusted Rand index against the generating components: {ari:.3f}")
    out.figure("2_model_selection.png", lambda: plot_bic(rows, criteria=None, mark_best=True))
    cluster_figures(out, best, R, prefix="2_")
    console.print()


def _demo_label_ranking(
    console: Console, X: np.ndarray, Y: Any, rs: int
) -> tuple[np.ndarray, np.ndarray]:
    """Section 3: label rankers scored on a 30% hold-out; returns the (train, test) rows."""
    from rankclust.cli.report import format_table

    console.print(f"== 3. Label ranking on {_DEMO_LABEL_SET!r}: {X.shape[0]} rows, "
                  f"{X.shape[1]} features, {Y.n_items} labels ==")  # fmt: skip
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(np.arange(len(X)), test_size=0.3, random_state=rs)
    rankers = method_registry("labelrank")
    rows = []
    for name in _DEMO_LABEL_RANKERS:
        method = rankers[name]
        cls = method.load()
        with console.task(f"fitting {cls.__name__}"):
            est = make_estimator(cls, random_state=rs, fixed=method.params)
            est.fit(X[train], Y[train])
        rows.append([name, cls.__name__, round(ranking_score(est, X[test], Y[test]), 3)])
    console.print("Kendall tau on a 30% hold-out (1 = every predicted ranking correct):")
    console.print(format_table(["method", "estimator", "Kendall tau"], rows))
    others = [n for n in rankers if n not in _DEMO_LABEL_RANKERS]
    if others:
        console.print(f"(also: rankclust labelrank FILE --method {'|'.join(others)})")
    console.print()
    return train, test


def _demo_supervised(
    console: Console,
    out: Outputs,
    X: np.ndarray,
    Y: Any,
    train: np.ndarray,
    test: np.ndarray,
    rs: int,
) -> None:
    """Section 4: supervised clustering, scored on the hold-out of section 3."""
    from rankclust.cli.report import cluster_summary

    console.print(f"== 4. Supervised clustering of {_DEMO_LABEL_SET!r} ==")
    method, cls = resolve_method("supervise", _DEMO_SUPERVISED)
    with console.task(f"fitting {cls.__name__} with K=3"):
        est = make_estimator(cls, n_clusters=3, random_state=rs, fixed=method.params)
        est.fit(X[train], Y[train])
    tau = ranking_score(est, X[test], Y[test], predict="predict_ranking")
    est.fit(X, Y)
    console.summary(cluster_summary(
        est, Y, title=f"{cls.__name__} ({method.name}), K=3", max_items=console.max_items,
    ), Y.n_items)  # fmt: skip
    console.print(f"Kendall tau of the cluster rankings on the 30% hold-out: {tau:.3f}")
    from rankclust.plotting import plot_feature_clusters

    out.figure("4_feature_clusters.png", lambda: plot_feature_clusters(
        X, est.labels_, title=f"{cls.__name__} clusters of {_DEMO_LABEL_SET!r}"))  # fmt: skip
    cluster_figures(out, est, Y, prefix="4_")
    console.print()
