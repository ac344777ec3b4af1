"""Pairwise comparisons as first-class data: sparse storage and Bradley-Terry fits.

* :class:`Comparisons` -- rows of (winner, loser, optional assessor, count and tie), O(comparisons)
  memory; :meth:`Comparisons.from_rankings` breaks rankings into pairs and
  :meth:`Comparisons.closure` closes each assessor's pairs into a partial order
  (:class:`PairwiseClosure`, intransitive assessors reported with their cycles).
* :class:`BradleyTerry` -- Bradley-Terry (and Davidson ties) fitted by Newton's method with a
  sparse Hessian and conjugate gradients: O(comparisons) memory per iteration.
* :class:`ItemCovariateBradleyTerry` -- the same with log-worths linear in item features
  (worths of items never compared from their features).
* :class:`BradleyTerryMixture` -- clusters of assessors, each a Bradley-Terry model (EM).

Readers: :func:`rankclust.io.read_pairs_csv` and :func:`rankclust.io.read_bayesmallows_pairs`.
"""

from rankclust.pairwise._bradley_terry import BradleyTerry
from rankclust.pairwise._comparisons import Comparisons
from rankclust.pairwise._conversions import PairwiseClosure
from rankclust.pairwise._covariate_bt import ItemCovariateBradleyTerry
from rankclust.pairwise._mixture import BradleyTerryMixture

__all__ = [
    "BradleyTerry",
    "BradleyTerryMixture",
    "Comparisons",
    "ItemCovariateBradleyTerry",
    "PairwiseClosure",
]
