"""Label ranking: predict a ranking of labels from features.

Estimators (Cheng, Hühn & Hüllermeier 2009 and baselines), all following the conventions of
:mod:`rankclust.label_ranking._base`: ``fit(X, Y)`` with ``Y`` a :class:`~rankclust.Rankings`
or 1-based ranks (0/NaN = missing label), ``predict(X)`` -> complete 1-based ranks,
``score(X, Y)`` = mean Kendall tau.

* :class:`IBLRMallows` (alias :data:`IBLR`) -- instance-based, local Mallows model;
* :class:`IBLRPlackettLuce` -- instance-based, local Plackett-Luce model;
* :class:`LabelRankingTree` -- label ranking tree (LRT);
* :class:`KNeighborsPartialLabelRanker`, :class:`DecisionTreePartialLabelRanker` -- partial
  label ranking: learn from and predict rankings with ties (:mod:`.partial`; predictions are
  1-based ranks with ties, ``score`` = mean tau_x);
* :class:`ConstraintClassification` (CC), :class:`PairwiseLabelRanker` (RPC),
  :class:`ConsensusLabelRanker` (one ranking for everyone) -- baselines.
"""

from rankclust.label_ranking.baselines import (
    CC_ALPHA_GRID,
    ConsensusLabelRanker,
    ConstraintClassification,
    PairwiseLabelRanker,
)
from rankclust.label_ranking.iblr import IBLR, K_GRID, IBLRMallows, IBLRPlackettLuce
from rankclust.label_ranking.partial import (
    DecisionTreePartialLabelRanker,
    KNeighborsPartialLabelRanker,
)
from rankclust.label_ranking.tree import LabelRankingTree

__all__ = [
    "CC_ALPHA_GRID",
    "IBLR",
    "K_GRID",
    "ConsensusLabelRanker",
    "ConstraintClassification",
    "DecisionTreePartialLabelRanker",
    "IBLRMallows",
    "IBLRPlackettLuce",
    "KNeighborsPartialLabelRanker",
    "LabelRankingTree",
    "PairwiseLabelRanker",
]
