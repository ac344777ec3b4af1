"""Semi-supervised ordinal-regression clustering (M2SORC, Xiao, Liu & Hao 2016) and baselines."""

from rankclust.ordinal._data import (
    ORDINAL_DATASETS,
    fetch_amazon_sentiment,
    fetch_ordinal_regression,
)
from rankclust.ordinal.baselines import CPCMMC, CPMMC, SMMCPC, WSVORC, MPCKMeans
from rankclust.ordinal.constraints import (
    check_pairs,
    link_constraints_from_labels,
    ranking_pairs_from_labels,
)
from rankclust.ordinal.evaluation import map_clusters, ordinal_clustering_scores
from rankclust.ordinal.m2sorc import M2SORC

__all__ = [
    "CPCMMC",
    "CPMMC",
    "M2SORC",
    "ORDINAL_DATASETS",
    "SMMCPC",
    "WSVORC",
    "MPCKMeans",
    "check_pairs",
    "fetch_amazon_sentiment",
    "fetch_ordinal_regression",
    "link_constraints_from_labels",
    "map_clusters",
    "ordinal_clustering_scores",
    "ranking_pairs_from_labels",
]
