"""Goodness of fit and model comparison of Mallows, Plackett-Luce and their mixtures on ballots.

On the APA 1980 ballots (15,449 top-t lists over 5 candidates, PLMIX's ``d_apa``) and the
APA 1998 ballots (PrefLib 00028-00000001.soi, 18,723 top-t lists over 5 candidates) the
script fits Mallows, Plackett-Luce, Mallows mixtures and Plackett-Luce mixtures with K = 2
and 3 (defaults, ``random_state=0``) and reports, per model, the log-likelihood, the number
of free parameters, BIC, AIC and the overall G2 statistics of the first-choice, pairwise and
position tables with their parametric-bootstrap p-values (every replicate simulated from the
fitted model with the data's ballot lengths and refitted; see
:mod:`rankclust.inference.goodness_of_fit`). It writes
``experiments/studies/results/goodness_of_fit.md`` and the figure
``docs/figures/goodness_of_fit_apa1980.png`` (observed against expected proportions of the
model with the smallest BIC on APA 1980, per component).

Usage: ``python experiments/studies/goodness_of_fit.py [--n-bootstrap 49] [--no-refit]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import REPO, data_home, limit_threads, paths, platform_line

from rankclust.cluster import MallowsMixture, PlackettLuceMixture
from rankclust.inference import compare_models
from rankclust.io import read_preflib, read_rankings
from rankclust.models import Mallows, PlackettLuce

DATA = data_home()
OUT = paths(__file__).results / "goodness_of_fit.md"
FIGURE = REPO / "docs" / "figures" / "goodness_of_fit_apa1980.png"


def load(name: str):
    if name == "APA 1980":
        return read_rankings(DATA / "apa_1980" / "d_apa_orderings.csv", format="orderings")
    return read_preflib(DATA / "apa_elections_1998_2009" / "00028-00000001.soi")


def models() -> dict:
    out = {"Mallows": Mallows(), "Plackett-Luce": PlackettLuce()}
    for k in (2, 3):
        out[f"Mallows mixture K={k}"] = MallowsMixture(n_components=k, random_state=0)
    for k in (2, 3):
        out[f"PL mixture K={k}"] = PlackettLuceMixture(n_components=k, random_state=0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-bootstrap", type=int, default=49)
    parser.add_argument("--no-refit", action="store_true")
    args = parser.parse_args()
    limit_threads(1)
    refit = not args.no_refit
    lines = [
        "# Goodness of fit of ranking models on the APA ballots",
        "",
        "Made by `python experiments/studies/goodness_of_fit.py "
        f"--n-bootstrap {args.n_bootstrap}{'' if refit else ' --no-refit'}` "
        f"({platform_line()}).",
        "",
        "Every model is fitted with its defaults (`random_state=0` for the mixtures). G2 is the "
        "likelihood-ratio statistic of a table (first choices, pairwise preferences decided by "
        "the ballots, positions within the listed part of each ballot); p is its parametric-"
        f"bootstrap p-value from {args.n_bootstrap} data sets simulated from the fitted model "
        "with the ballots' lengths"
        + (", each refitted" if refit else ", not refitted (conservative)")
        + " (smallest possible value "
        f"{1 / (args.n_bootstrap + 1):.3g}). The log-likelihood is that of the top-t lists "
        "(lengths conditioned on); p counts the centres of Mallows models as discrete (not "
        "counted), as `MallowsMixture` does by default.",
    ]
    best_fit = None
    for name in ("APA 1980", "APA 1998"):
        R = load(name)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = compare_models(
                R, models(), n_bootstrap=args.n_bootstrap, refit=refit, random_state=0
            )
        seconds = time.perf_counter() - start
        lines += [
            "",
            f"## {name}",
            "",
            f"{R.n_rankings} distinct ballots, {R.weights.sum():.0f} in all, lengths "
            f"{sorted(set(R.lengths.tolist()))}; {seconds:.0f} s for the fits and bootstrap.",
            "",
            table.to_markdown(),
        ]
        best = int(table.bic.argmin())
        lines += ["", f"Per-component tables of the smallest-BIC model ({table.names[best]}):"]
        lines += ["", table.fits[best].to_markdown()]
        print(f"{name}: {seconds:.0f} s", flush=True)
        if name == "APA 1980":
            best_fit = table.fits[best]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")
    import matplotlib

    matplotlib.use("Agg")
    from rankclust.plotting import plot_goodness_of_fit

    fig = plot_goodness_of_fit(
        best_fit,
        title=f"APA 1980, {best_fit.model}: observed vs expected (n={best_fit.n_rankings:.0f})",
    )
    fig.savefig(FIGURE, dpi=110)
    print(f"wrote {FIGURE} ({FIGURE.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
