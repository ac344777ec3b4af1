"""Data sets: shipped (``load_*``), read from the data home (``fetch_*``), synthetic (``make_*``).

* :func:`load_label_ranking` -- the 21 label-ranking benchmark sets of Cheng, Hühn and
  Hüllermeier (MIT licence), shipped gzip-compressed inside the package.
* ``fetch_*`` -- real data that rankclust does not ship (licences that forbid or restrict
  redistribution, or size), read from the data home :func:`get_data_home`
  (``RANKCLUST_DATA``, default ``~/rankclust_data``). A missing file raises
  ``FileNotFoundError`` saying how to obtain it.
* :func:`make_mallows_mixture`, :func:`make_plackett_luce_mixture` -- synthetic mixtures with
  known clusters.
"""

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
from rankclust.datasets.generators import make_mallows_mixture, make_plackett_luce_mixture

__all__ = [
    "LABEL_RANKING_DATASETS",
    "PARTIAL_LABEL_RANKING_DATASETS",
    "PLMIX_DATASETS",
    "RANKCLUSTER_DATASETS",
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
    "make_mallows_mixture",
    "make_plackett_luce_mixture",
]
