"""beach_preferences: rankclust's Bradley-Terry consensus beside the one BayesMallows reports.

BayesMallows (Sorensen et al., the R package of Vitelli et al. 2018) analyses the beach data
(60 assessors, 1,442 stated preferences among 15 beaches; Vitelli et al. 2018, JMLR, Section
6.2) with one Bayesian Mallows model (footrule distance, no clustering, no error model) in its
vignette ``vignettes/BayesMallows.Rmd`` (github.com/ocbe-uio/BayesMallows, commit
b1f045fd38e229bfa3c0e1bcdec20b97e0f4c123, the commit the data in ``../shared/data`` come
from), section "Pairwise preferences", fitted by
``compute_mallows(setup_rank_data(preferences = beach_preferences), nmc = 22000,
burnin = 2000)``. The numbers quoted below (:data:`BAYESMALLOWS_CP`, :data:`BAYESMALLOWS_MAP`,
:data:`BAYESMALLOWS_HPDI`) are copied from the printed output of that vignette: the
cumulative-probability (CP) consensus with its ``cumprob``, the maximum a posteriori (MAP)
consensus and the 95 % highest posterior density intervals of each beach's latent rank. The
paper's own table (Section 6.2) was not available here, so the vignette is the reference.

This script fits, on the same data:

* one Bradley-Terry model (``BradleyTerry(alpha=0.1)``, the command line's K = 1), its
  consensus (beaches by decreasing log-worth) and a 95 % interval of each beach's rank in that
  consensus from 500 replicates of the bootstrap over assessors
  (:func:`rankclust.inference.bootstrap`), to set beside BayesMallows' posterior intervals;
* the Kemeny ranking of the pooled pairwise counts (:func:`rankclust.consensus.kemeny`), a
  model-free reference;
* Bradley-Terry mixtures over the assessors for K = 1..5 (``n_init=10``), K chosen by BIC, and
  the consensus of each cluster against BayesMallows' single consensus (BayesMallows' vignette
  reports no clustered analysis of these data).

Agreement is Kendall's tau between consensus rankings (1: the same order).

Data: ``bayesmallows_misc/beach_preferences.csv`` in ``$RANKCLUST_DATA`` or ``../shared/data``.
Usage: ``python experiments/studies/beach_bayesmallows.py`` (about 30 s); writes
``experiments/studies/results/beach_bayesmallows.md``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import data_home, limit_threads, md_table, paths, platform_line, write_report

from rankclust.consensus import kemeny
from rankclust.inference import bootstrap
from rankclust.io import read_bayesmallows_pairs
from rankclust.pairwise import BradleyTerry, BradleyTerryMixture

DATA = data_home() / "bayesmallows_misc" / "beach_preferences.csv"
OUT = paths(__file__).results / "beach_bayesmallows.md"
SOURCE = (
    'BayesMallows vignette `vignettes/BayesMallows.Rmd`, section "Pairwise preferences" '
    "(github.com/ocbe-uio/BayesMallows, commit b1f045fd38e229bfa3c0e1bcdec20b97e0f4c123)"
)

#: CP consensus of BayesMallows (rank 1 first): (beach, cumprob), from the vignette's output.
BAYESMALLOWS_CP = (
    (9, 0.89815), (6, 1.00000), (3, 0.72665), (11, 0.95160), (15, 0.95400),
    (10, 0.97645), (1, 1.00000), (7, 0.62585), (5, 0.85950), (13, 1.00000),
    (4, 0.46870), (8, 0.84435), (12, 0.61905), (14, 0.99665), (2, 1.00000),
)  # fmt: skip
#: MAP consensus of BayesMallows (rank 1 first), from the vignette's output.
BAYESMALLOWS_MAP = (9, 6, 3, 11, 15, 10, 1, 7, 5, 13, 4, 8, 14, 12, 2)
#: 95 % HPDI of each beach's latent rank (beach: (low, high)), from the vignette's output.
BAYESMALLOWS_HPDI = {
    1: (7, 7), 2: (15, 15), 3: (3, 4), 4: (11, 13), 5: (8, 10), 6: (1, 2), 7: (8, 9),
    8: (11, 13), 9: (1, 2), 10: (5, 6), 11: (3, 4), 12: (12, 14), 13: (9, 10), 14: (11, 14),
    15: (4, 5),
}  # fmt: skip
N_BOOT = 500
KS = range(1, 6)


def ranks_of(order: list[int], beaches: list[int]) -> np.ndarray:
    """1-based rank of each beach (in ``beaches`` order) in an order of beaches, best first."""
    pos = {b: r + 1 for r, b in enumerate(order)}
    return np.array([pos[b] for b in beaches])


def tau(a: np.ndarray, b: np.ndarray) -> float:
    return float(kendalltau(a, b).statistic)


def main() -> None:
    limit_threads(1)
    warnings.simplefilter("ignore")  # restart agreement notes of the mixtures
    start = time.perf_counter()
    C = read_bayesmallows_pairs(DATA)
    beaches = [int(x) for x in C.items]  # item j is beach beaches[j]
    bm_cp = ranks_of([b for b, _ in BAYESMALLOWS_CP], beaches)
    bm_map = ranks_of(list(BAYESMALLOWS_MAP), beaches)

    bt = BradleyTerry(alpha=0.1).fit(C)
    se = bt.standard_errors(C)[: C.n_items]
    bt_rank = np.argsort(np.argsort(-bt.scores_)) + 1
    boot = bootstrap(bt, C, N_BOOT, random_state=0)
    reps = boot.center_replicates[:, 0, :] + 1  # (B, m) 1-based ranks
    lo, hi = np.quantile(reps, [0.025, 0.975], axis=0, method="inverted_cdf")
    ratio = boot.replicates["scores"].std(axis=0) / se
    W = C.pairwise_counts()
    kem_rank = kemeny(W) + 1

    mixtures = {k: BradleyTerryMixture(k, n_init=10, random_state=0).fit(C) for k in KS}
    best = min(KS, key=lambda k: mixtures[k].bic_)
    mix = mixtures[best]
    seconds = time.perf_counter() - start

    lines = [
        "# beach_preferences: Bradley-Terry (rankclust) beside BayesMallows",
        "",
        "Made by `python experiments/studies/beach_bayesmallows.py` (see its docstring).",
        f"Data: {C.n_comparisons} preferences of {C.n_assessors} assessors among "
        f"{C.n_items} beaches; {len(C.closure().intransitive)} assessors intransitive.",
        f"BayesMallows numbers: quoted from the {SOURCE}; one Mallows model (footrule), "
        "22,000 MCMC iterations, 2,000 burn-in. The JMLR paper's own table (Vitelli et al. "
        "2018, Section 6.2) was not available here.",
        "",
        "## One consensus for all assessors",
        "",
        "Rank of each beach (1 = most preferred). BayesMallows: CP consensus (with `cumprob`, "
        "the posterior probability of a rank at most this one), MAP consensus and the 95 % "
        f"HPDI of the latent rank. rankclust: `BradleyTerry(alpha=0.1)` (log-worth and its "
        f"standard error), a 95 % interval of the beach's rank from {N_BOOT} bootstrap "
        "replicates over assessors, and the Kemeny ranking of the pooled pairwise counts.",
        "",
    ]
    cp_prob = dict(BAYESMALLOWS_CP)
    rows = []
    order = np.argsort(bm_cp)
    for j in order:
        b = beaches[j]
        h = BAYESMALLOWS_HPDI[b]
        inside = h[0] <= bt_rank[j] <= h[1]
        rows.append((
            b, int(bm_cp[j]), f"{cp_prob[b]:.3f}", int(bm_map[j]),
            f"[{h[0]}, {h[1]}]" if h[0] != h[1] else f"[{h[0]}]",
            f"{bt.scores_[j]:.3f} ({se[j]:.3f})", int(bt_rank[j]) if inside else f"**{bt_rank[j]}**",
            f"[{int(lo[j])}, {int(hi[j])}]", int(kem_rank[j]),
        ))  # fmt: skip
    lines += md_table(
        ("beach", "BM CP rank", "BM cumprob", "BM MAP rank", "BM 95% HPDI", "BT log-worth (se)",
         "BT rank", "BT rank 95% (bootstrap)", "Kemeny rank"),
        rows,
    )  # fmt: skip
    n_in = int(sum(BAYESMALLOWS_HPDI[b][0] <= r <= BAYESMALLOWS_HPDI[b][1]
                   for b, r in zip(beaches, bt_rank, strict=True)))  # fmt: skip
    overlap = int(sum(max(lo[j], BAYESMALLOWS_HPDI[b][0]) <= min(hi[j], BAYESMALLOWS_HPDI[b][1])
                      for j, b in enumerate(beaches)))  # fmt: skip
    lines += [
        "",
        "Bold: a Bradley-Terry rank outside BayesMallows' HPDI.",
        "",
    ]
    lines += md_table(
        ("rankings compared", "Kendall's tau"),
        [
            ("BayesMallows CP vs BayesMallows MAP", f"{tau(bm_cp, bm_map):.3f}"),
            ("Bradley-Terry vs BayesMallows CP", f"{tau(bt_rank, bm_cp):.3f}"),
            ("Bradley-Terry vs BayesMallows MAP", f"{tau(bt_rank, bm_map):.3f}"),
            ("Kemeny (pooled pairs) vs BayesMallows CP", f"{tau(kem_rank, bm_cp):.3f}"),
            ("Bradley-Terry vs Kemeny (pooled pairs)", f"{tau(bt_rank, kem_rank):.3f}"),
        ],
    )
    # the pairs of beaches the two consensus rankings order differently
    swapped, within_se, shares = [], [], []
    for a in range(C.n_items):
        for b in range(C.n_items):
            if bm_cp[a] < bm_cp[b] and bt_rank[a] > bt_rank[b]:
                agree = float(np.mean(reps[:, a] < reps[:, b]))
                within_se.append(abs(bt.scores_[a] - bt.scores_[b]) < min(se[a], se[b]))
                shares.append(agree)
                swapped.append((f"{beaches[a]} above {beaches[b]}",
                                f"{bt.scores_[a] - bt.scores_[b]:.3f}", f"{agree:.2f}"))  # fmt: skip
    lines += [
        "",
        f"The Bradley-Terry rank lies in BayesMallows' 95 % HPDI for {n_in} of {C.n_items} "
        f"beaches, and its bootstrap rank interval overlaps the HPDI for {overlap} of "
        f"{C.n_items}. The bootstrap over assessors is wider than the standard errors "
        "(which take the comparisons as independent): its standard deviation of each "
        f"log-worth is {ratio.min():.2f} to {ratio.max():.2f} times the standard error "
        f"(median {np.median(ratio):.2f}), the assessors differing more than one model "
        "allows. The pairs of beaches that BayesMallows' CP consensus and the "
        "Bradley-Terry consensus order differently, with the Bradley-Terry log-worth "
        "difference (negative: Bradley-Terry reverses BayesMallows' order) and the share of "
        "bootstrap replicates whose Bradley-Terry consensus has BayesMallows' order:",
        "",
    ]
    lines += md_table(("BayesMallows CP order", "BT log-worth difference",
                       "bootstrap share with BM's order"), swapped)  # fmt: skip
    lines += [
        "",
        f"{sum(within_se)} of the {len(swapped)} disagreements are swaps of two beaches whose "
        "log-worths differ by less than the standard error of either, and the bootstrap "
        f"puts the pair in BayesMallows' order in {min(shares):.0%} to {max(shares):.0%} of "
        "its replicates. The two models weigh the pairs differently (BayesMallows: a "
        "footrule Mallows model on each assessor's augmented full ranking; Bradley-Terry: "
        "independent comparisons), so near-ties may fall either way.",
        "",
        "## Clusters of assessors",
        "",
        f"`BradleyTerryMixture(K, n_init=10, random_state=0)`, K = {KS.start}..{KS.stop - 1}:",
        "",
    ]
    lines += md_table(
        ("K", "log-likelihood", "BIC", "assessors per cluster"),
        [(k, f"{m.log_likelihood_:.1f}", ("**%.1f**" if k == best else "%.1f") % m.bic_,
          ", ".join(str(int(x)) for x in np.bincount(m.labels_, minlength=k)))
         for k, m in mixtures.items()],
    )  # fmt: skip
    lines += [
        "",
        f"BIC chooses K = {best}. Each cluster's consensus (beaches by decreasing log-worth) "
        "against BayesMallows' single CP consensus:",
        "",
    ]
    sizes = np.bincount(mix.labels_, minlength=best)
    rows = []
    for k in range(best):
        rank = mix.rankings_[k] + 1
        order_k = [beaches[j] for j in np.argsort(rank)]
        rows.append((k, int(sizes[k]), f"{mix.weights_[k]:.3f}",
                     ", ".join(map(str, order_k)), f"{tau(rank, bm_cp):.3f}"))  # fmt: skip
    lines += md_table(
        ("cluster", "assessors", "weight", "consensus (best first)", "tau vs BM CP"), rows
    )
    closest = int(np.argmax([tau(mix.rankings_[k] + 1, bm_cp) for k in range(best)]))
    lines += [
        "",
        f"For reference, BayesMallows' CP consensus: {', '.join(str(b) for b, _ in BAYESMALLOWS_CP)}. "
        "The vignette reports no clustered analysis of these data, so the clusters have no "
        "published counterpart to compare with; the consensus closest to BayesMallows' is "
        f"that of cluster {closest} ({int(sizes[closest])} assessors"
        + (", the largest" if closest == int(np.argmax(sizes)) else "")
        + ").",
        "",
        platform_line() + f"; {seconds:.0f} s.",
    ]
    write_report(OUT, lines)


if __name__ == "__main__":
    main()
