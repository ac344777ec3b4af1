"""Issue #17: empty clusters returned by every clusterer on the K x seed x data-set grid.

K = 2..5 x seeds 0..2 x glass/vehicle/iris/housing (the shipped label-ranking sets), default
parameters; the supervised clusterers fit (X, Y), the ranking clusterers the rankings Y.
Prints, per method, the runs whose labels_ leave a cluster in 0..n_clusters_-1 empty and the
runs that return fewer than K clusters (and whether a warning said so). For the mixtures an
"empty" component is one that wins no ranking under the MAP rule (its weight is positive).

    python experiments/studies/empty_clusters_grid.py [METHOD ...]

Before (commit 0caef00) -> after, runs with an empty cluster of 48: rt-iter 14 -> 0,
komeans-rt 14 -> 0 (14 return fewer clusters, each warned), every other supervised
clusterer, chains and komeans 0 -> 0; MAP-empty mixture components 3 -> 3 (iris, K=4).
"""

import sys
import time
import warnings

import numpy as np

from rankclust.cluster import ChainKMeans, KOMeans, MallowsMixture, PlackettLuceMixture
from rankclust.datasets import load_label_ranking
from rankclust.supervised import (
    FeatureKMeansRanking,
    NaiveKMeans,
    PrototypePLMixture,
    RankClusteringTree,
    RankTree,
)

SETS = ["glass", "vehicle", "iris", "housing"]
KS = [2, 3, 4, 5]
SEEDS = [0, 1, 2]
SUP = {
    "rt-iter": lambda k, s: RankTree(k, random_state=s),
    "rt-prune": lambda k, s: RankTree(k, mode="prune", random_state=s),
    "naive-rt": lambda k, s: RankClusteringTree(k, clusterer="naive", random_state=s),
    "komeans-rt": lambda k, s: RankClusteringTree(k, clusterer="komeans", random_state=s),
    "ebms-rt": lambda k, s: RankClusteringTree(k, clusterer="mallows_mixture", random_state=s),
    "km-mallows": lambda k, s: FeatureKMeansRanking(k, random_state=s),
    "naive-km": lambda k, s: NaiveKMeans(k, random_state=s),
    "mm-pl": lambda k, s: PrototypePLMixture(k, random_state=s),
}
UNSUP = {
    "chains": lambda k, s: ChainKMeans(k, random_state=s),
    "komeans": lambda k, s: KOMeans(k, random_state=s),
    "mallows-mixture": lambda k, s: MallowsMixture(k, random_state=s),
    "pl-mixture": lambda k, s: PlackettLuceMixture(k, random_state=s),
}
which = sys.argv[1:] or list(SUP) + list(UNSUP)
data = {name: load_label_ranking(name) for name in SETS}
out = {}
for meth in which:
    n_empty_runs = n_empty = n_warned = 0
    detail = []
    fewer = []
    t0 = time.perf_counter()
    for name in SETS:
        X, Y = data[name]
        for k in KS:
            for s in SEEDS:
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    if meth in SUP:
                        est = SUP[meth](k, s).fit(X, Y)
                    else:
                        est = UNSUP[meth](k, s).fit(Y)
                labels = np.asarray(est.labels_)
                kk = getattr(est, "n_clusters_", None) or getattr(est, "n_components", k)
                used = np.unique(labels)
                e = int(kk - used.size)
                empty_warn = any("empty" in str(x.message).lower() for x in w)
                if kk < k:
                    fewer.append((name, k, s, int(kk), empty_warn))
                if e > 0:
                    n_empty_runs += 1
                    n_empty += e
                    n_warned += empty_warn
                    detail.append((name, k, s, int(kk), e, empty_warn))
                if used.size and (used.max() >= kk):
                    detail.append(("LABEL OUT OF RANGE", name, k, s))
    dt = time.perf_counter() - t0
    out[meth] = dict(
        runs_with_empty=n_empty_runs,
        empty_clusters=n_empty,
        warned=n_warned,
        time=round(dt, 1),
        detail=detail,
    )
    print(
        f"{meth:16s} runs with empty {n_empty_runs:2d}/48  empty clusters {n_empty:3d}  warned {n_warned:2d}  fewer-than-K runs {len(fewer):2d} (warned {sum(f[-1] for f in fewer)})  ({dt:.1f}s)  {detail[:6]} {fewer[:4]}",
        flush=True,
    )
