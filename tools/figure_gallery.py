"""Render every figure of :mod:`rankclust.plotting` on real data into ``docs/figures/``.

The gallery page ``docs/figures.md`` shows the PNGs this script writes, each with the data it
was rendered on:

* APA election 1998 (PrefLib 00028-00000001, 5 candidates, kind "top"): Mallows mixture model
  selection (K = 1..6), central rankings and pairwise panels at the chosen K; ChainKMeans on
  the same ballots read as chains (an objective that cannot choose K: no "best" marker) and
  its randomisation test;
* Irish election 2002, Meath (PrefLib 00001-00000003, 14 candidates) with K = 4 and Dublin
  North (00001-00000001, 12 candidates) with K = 8: central rankings and pairwise panels;
* the label-ranking set "vehicle" (shipped with rankclust, MIT licence): RankTree clusters
  on the first two principal components of the standardised features;
* 20 items: a Mallows mixture sampled with ``make_mallows_mixture`` (synthetic: no public
  ranking data set here has 20 items), to show the pairwise grid at m = 20;
* uncertainty (``--only uncertainty`` renders just these): the worths of the APA 1980
  Plackett-Luce mixture with K = 3 (all 15,449 ballots) with 95 % bootstrap intervals, and
  the position probabilities of the central rankings of the Mallows mixture with K = 2 on the
  shipped "glass" label rankings (200 non-parametric replicates each);
* pairwise comparisons (``--only pairs``): BayesMallows' ``beach_preferences`` (60 assessors,
  15 beaches): BIC of the Bradley-Terry mixture for K = 1..4, then at the chosen K each
  cluster's win proportions and log-worths with 95 % Wald intervals (the mixture's observed
  information, :func:`rankclust.inference.mixture_standard_errors`).

Data (PrefLib) are read from ``$RANKCLUST_DATA`` or ``../shared/data`` beside the repository.
Usage: ``python tools/figure_gallery.py [--out docs/figures] [--only uncertainty|pairs]``; about
one minute.
"""

from __future__ import annotations

import argparse
import io
import os
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from PIL import Image
from threadpoolctl import threadpool_limits

from rankclust.cluster import (
    ChainKMeans,
    MallowsMixture,
    PlackettLuceMixture,
    randomization_test,
    select_k,
)
from rankclust.datasets import load_label_ranking, make_mallows_mixture
from rankclust.inference import bootstrap, mixture_standard_errors
from rankclust.io import read_bayesmallows_pairs, read_preflib, read_rankings
from rankclust.pairwise import BradleyTerryMixture
from rankclust.plotting import (
    plot_bic,
    plot_central_rankings,
    plot_comparison_matrices,
    plot_feature_clusters,
    plot_pairwise_matrices,
    plot_position_probabilities,
    plot_randomization_test,
    plot_worth_intervals,
)
from rankclust.supervised import RankTree

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("RANKCLUST_DATA", HERE.parents[1] / "shared" / "data"))
APA_1998 = "apa_elections_1998_2009/00028-00000001.soi"
MEATH = "irish_election_2002/00001-00000003.soi"
DUBLIN_NORTH = "irish_election_2002/00001-00000001.soi"
APA_1980 = "apa_1980/d_apa_orderings.csv"
BEACH = "bayesmallows_misc/beach_preferences.csv"
DPI = 110


def save(drawn, out: Path, name: str, written: list) -> None:
    fig = drawn if hasattr(drawn, "savefig") else drawn.figure
    path = out / name
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=DPI)
    plt.close(fig)
    # a 256-colour palette keeps the heat maps as they look at a third of the bytes
    buffer.seek(0)
    Image.open(buffer).convert("RGB").quantize(256).save(path, optimize=True)
    written.append((name, path.stat().st_size))


def sizes(model, k: int, R) -> np.ndarray:
    """Ballots per cluster (weighted by ballot counts)."""
    return np.bincount(model.labels_, weights=R.weights, minlength=k)


def cluster_figures(R, model, k: int, stem: str, label: str, out: Path, written: list) -> None:
    n = sizes(model, k, R)
    save(
        plot_central_rankings(model, cluster_sizes=n, title=f"Central rankings: {label}"),
        out,
        f"{stem}_central_rankings.png",
        written,
    )
    C = R.pairwise_counts(labels=model.labels_, n_groups=k)
    save(
        plot_pairwise_matrices(C, R.items, centers=model, cluster_sizes=n),
        out,
        f"{stem}_pairwise.png",
        written,
    )


def uncertainty_figures(out: Path, written: list) -> None:
    """Worths with bootstrap intervals (APA 1980) and position probabilities (glass)."""
    apa = read_rankings(DATA / APA_1980, format="orderings", kind="top")
    pl = PlackettLuceMixture(n_components=3, random_state=0).fit(apa)
    boot = bootstrap(pl, apa, 200, random_state=0)
    save(plot_worth_intervals(pl, boot, items=apa.items,
                              title="APA 1980, Plackett-Luce mixture K=3: worths, 95% "
                                    "bootstrap intervals (200 replicates)"),
         out, "apa1980_worth_intervals.png", written)  # fmt: skip
    _, Y = load_label_ranking("glass")
    mix = MallowsMixture(n_components=2, random_state=0).fit(Y)
    boot = bootstrap(mix, Y, 200, random_state=0)
    labels = [f"label {j + 1}" for j in range(Y.n_items)]  # as the command line names them
    save(plot_position_probabilities(boot, labels, title="glass, Mallows mixture K=2: position of "
                                     "each label in the central ranking (200 replicates)"),
         out, "glass_position_probabilities.png", written)  # fmt: skip


def pairs_figures(out: Path, written: list) -> None:
    """beach_preferences: BIC against K, then the chosen mixture's win proportions and
    log-worths with Wald intervals."""
    C = read_bayesmallows_pairs(DATA / BEACH)
    rows, models = [], {}
    for k in range(1, 5):
        models[k] = BradleyTerryMixture(n_components=k, random_state=0).fit(C)
        rows.append({"k": k, "bic": models[k].bic_})
    best = min(rows, key=lambda r: r["bic"])["k"]
    save(plot_bic(rows, title="beach_preferences: Bradley-Terry mixture"), out,
         "beach_model_selection.png", written)  # fmt: skip
    mix = models[best]
    save(plot_comparison_matrices(C, mix), out, "beach_pairwise.png", written)
    se = mixture_standard_errors(mix, C)
    save(plot_worth_intervals(mix, se, parameter="scores",
                              title=f"beach_preferences, Bradley-Terry mixture K={best}: "
                                    "log-worths, 95% Wald intervals"),
         out, "beach_worths.png", written)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE.parent / "docs" / "figures"))
    parser.add_argument("--only", choices=["uncertainty", "pairs"], default=None,
                        help="render only these figures")  # fmt: skip
    args = parser.parse_args()
    threadpool_limits(limits=1)  # one BLAS/OpenMP thread: the fits are small
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written: list = []
    start = time.perf_counter()
    warnings.simplefilter("ignore")  # restart-agreement notes: not what this script shows
    if args.only is None:
        other_figures(out, written)
    if args.only in (None, "uncertainty"):
        uncertainty_figures(out, written)
    if args.only in (None, "pairs"):
        pairs_figures(out, written)
    for name, size in written:
        print(f"{name}: {size / 1024:.0f} KB")
    print(f"{len(written)} figures in {time.perf_counter() - start:.0f} s")


def other_figures(out: Path, written: list) -> None:
    """Model selection, clusters, pairwise panels, feature space, m = 20."""

    # APA 1998: model selection, then the chosen mixture --------------------------------------
    apa = read_preflib(DATA / APA_1998)
    res = select_k(MallowsMixture(random_state=0), apa, ks=range(1, 7))
    save(plot_bic(res, title="APA 1998: Mallows mixture"), out, "apa1998_model_selection.png",
         written)  # fmt: skip
    cluster_figures(apa, res.best_estimator, res.best_k, "apa1998", f"APA 1998, K={res.best_k}",
                    out, written)  # fmt: skip

    # APA 1998 as chains: an objective that cannot choose K, and the randomisation test ------
    chains = apa.with_kind("subset")
    rows = []
    for k in range(1, 7):
        km = ChainKMeans(n_clusters=k, n_init=20, random_state=0).fit(chains)
        rows.append({"k": k, "objective": km.objective_})
    save(
        plot_bic(rows, criteria=["objective"], mark_best=False,
                 title="APA 1998 as chains: ChainKMeans (look for the elbow)"),
        out, "apa1998_chains_elbow.png", written,
    )  # fmt: skip
    test = randomization_test(
        ChainKMeans(n_clusters=3, n_init=5, random_state=0), chains.unique()[0][:400],
        n_samples=19, random_state=0,
    )  # fmt: skip
    save(plot_randomization_test(test, statistic="ChainKMeans error (K=3)",
                                 title="APA 1998 chains (400 distinct)"),
         out, "apa1998_randomization_test.png", written)  # fmt: skip

    # Irish 2002: Meath K=4 (14 candidates), Dublin North K=8 (12 candidates) ----------------
    for path, stem, label, k in (
        (MEATH, "meath", "Meath 2002", 4),
        (DUBLIN_NORTH, "dublin_north", "Dublin North 2002", 8),
    ):
        R = read_preflib(DATA / path)
        model = MallowsMixture(n_components=k, random_state=0).fit(R)
        cluster_figures(R, model, k, stem, f"{label}, K={k}", out, written)

    # feature space: RankTree clusters of the "vehicle" label-ranking set ---------------------
    X, Y = load_label_ranking("vehicle")
    tree = RankTree(n_clusters=4, random_state=0).fit(X, Y)
    save(plot_feature_clusters(X, tree, n_clusters=4, title="vehicle: RankTree, K=4"),
         out, "vehicle_feature_clusters.png", written)  # fmt: skip

    # 20 items (synthetic) --------------------------------------------------------------------
    names = [f"item {chr(ord('A') + j)}" for j in range(20)]
    S, _ = make_mallows_mixture(
        3000, 20, 3, thetas=0.4, kind="top", lengths=(5, 20), random_state=0
    )
    S = S.__class__(S.ranks, kind=S.kind, items=names)
    model = MallowsMixture(n_components=3, random_state=0).fit(S)
    cluster_figures(S, model, 3, "synthetic20", "synthetic, 20 items, K=3", out, written)


if __name__ == "__main__":
    main()
