"""Data sets: shipped (``load_*``), read from the data home (``fetch_*``), synthetic (``make_*``).

* :func:`load_label_ranking` -- the 21 label-ranking benchmark sets of Cheng, Hühn and
  Hüllermeier (MIT licence), shipped gzip-compressed inside the package.
* ``fetch_*`` -- real data that rankclust does not ship (licences that forbid or restrict
  redistribution, or size), read from the data home :func:`get_data_home`
  (``RANKCLUST_DATA``, default ``~/rankclust_data``). A missing file raises
  ``FileNotFoundError`` saying how to obtain it.
* ``make_*`` -- every synthetic generator of the package, with known clusters: Mallows and
  Plackett-Luce mixtures (:func:`make_mallows_mixture`, :func:`make_plackett_luce_mixture`),
  heterogeneous top-t rankings with centres at set distances
  (:func:`make_heterogeneous_rankings`, :func:`centers_at_distances`), planted chains
  (:func:`make_planted_chains`), and the label-ranking sets of the supervised-clustering
  experiments (:func:`make_circle`, :func:`make_checker`, with :func:`add_swap_noise` and
  :func:`delete_labels`). The generators are defined beside the methods they were written for
  (``rankclust.cluster``, ``rankclust.supervised``), which still export them; this package is
  the one place to find them all.
"""

from rankclust.cluster.generators import make_planted_chains
from rankclust.cluster.mixture_generators import centers_at_distances, make_heterogeneous_rankings
from rankclust.datasets._base import LABEL_RANKING_DATASETS, get_data_home, load_label_ranking
from rankclust.datasets._fetchers import (
    PARTIAL_LABEL_RANKING_DATASETS,
    PLMIX_DATASETS,
    RANKCLUSTER_DATASETS,
    fetch_apa,
    fetch_apa_elections,
    fetch_german,
    fetch_irish_election,
    fetch_label_ranking_partial,
    fetch_msnbc,
    fetch_plmix,
    fetch_preflib,
    fetch_rankcluster,
    fetch_sushi,
)
from rankclust.datasets.generators import (
    make_bradley_terry_comparisons,
    make_mallows_mixture,
    make_plackett_luce_mixture,
)
from rankclust.supervised.generators import (
    add_swap_noise,
    delete_labels,
    make_checker,
    make_circle,
)

__all__ = [
    "LABEL_RANKING_DATASETS",
    "PARTIAL_LABEL_RANKING_DATASETS",
    "PLMIX_DATASETS",
    "RANKCLUSTER_DATASETS",
    "add_swap_noise",
    "centers_at_distances",
    "delete_labels",
    "fetch_apa",
    "fetch_apa_elections",
    "fetch_german",
    "fetch_irish_election",
    "fetch_label_ranking_partial",
    "fetch_msnbc",
    "fetch_plmix",
    "fetch_preflib",
    "fetch_rankcluster",
    "fetch_sushi",
    "get_data_home",
    "load_label_ranking",
    "make_bradley_terry_comparisons",
    "make_checker",
    "make_circle",
    "make_heterogeneous_rankings",
    "make_mallows_mixture",
    "make_plackett_luce_mixture",
    "make_planted_chains",
]
