"""Supervised clustering of label-ranking data (Grbovic, Djuric, Guo & Vucetic 2013).

Instances carry features ``x`` and a (possibly incomplete) ranking of L labels. A supervised
clusterer finds K clusters that are compact both in feature space and in label space: each
cluster has a region of feature space and one central ranking; a new instance is assigned by
its features alone and predicted its cluster's central ranking.

All ten methods of the paper (abbreviations of its Tables 3-8 in brackets):

* :class:`OneRank` ("1 Rank") -- one central ranking for everybody;
* :class:`FeatureKMeansRanking` ("Km_Mal", "Km_PL") -- k-means on features, then a Mallows
  or Plackett-Luce central ranking per cluster;
* :class:`NaiveKMeans` ("naive_Km") -- k-means on features and label positions together;
* :class:`RankClusteringTree` ("naive_RT", "ebms_RT", "Ko'm_RT") -- cluster the rankings
  (``clusterer="naive" | "mallows_mixture" | "komeans"``), then a tree restricted to the K
  rankings;
* :class:`RankTree` ("RT_prun", "RT_iter") -- a label ranking tree pruned to K rankings
  (``mode="prune"``) or grown and re-centred iteratively (``mode="iterate"``);
* :class:`PrototypePLMixture` ("MM-PL") -- prototypes in feature space with one
  Plackett-Luce model per cluster, fitted by stochastic EM.

Synthetic data of the paper: :func:`make_checker`, :func:`make_circle`; missing labels at
random: :func:`delete_labels`.
"""

from rankclust.supervised.baselines import FeatureKMeansRanking, NaiveKMeans, OneRank
from rankclust.supervised.generators import (
    SYNTHETIC_CENTRAL_ORDERS,
    add_swap_noise,
    delete_labels,
    make_checker,
    make_circle,
)
from rankclust.supervised.pl_mixture import PrototypePLMixture
from rankclust.supervised.rank_clustering import RankClusteringTree
from rankclust.supervised.rank_tree import RankTree

__all__ = [
    "SYNTHETIC_CENTRAL_ORDERS",
    "FeatureKMeansRanking",
    "NaiveKMeans",
    "OneRank",
    "PrototypePLMixture",
    "RankClusteringTree",
    "RankTree",
    "add_swap_noise",
    "delete_labels",
    "make_checker",
    "make_circle",
]
