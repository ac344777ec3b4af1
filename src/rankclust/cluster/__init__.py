"""Clustering of rankings.

* Ukkonen (2011), chains: :class:`ChainKMeans`, the embeddings, :class:`KOMeans` (k-o'means,
  re-implemented), the swap randomisation test (and :func:`objective_of`, the objective it
  reads) and :func:`make_planted_chains`;
* Busse, Orbanz & Buhmann (2007), mixtures: :class:`MallowsMixture`,
  :class:`PlackettLuceMixture`, :func:`select_k`, :func:`select_model` (distance and K
  of a Mallows mixture together), baselines and generators; with respondent covariates
  (``fit(R, X=...)``) they are mixtures of experts, whose gate :func:`gate_coefficients`
  reports; :class:`ItemCovariatePLMixture` has Plackett-Luce components with log-worths
  linear in item features.
"""

from rankclust.cluster._base import objective_of
from rankclust.cluster._covariate_mixture import ItemCovariatePLMixture
from rankclust.cluster._gate import GateCoefficients, gate_coefficients

# the mixtures' standard errors live beside them (they use the mixtures' private likelihood
# pieces) and are published by rankclust.inference
from rankclust.cluster._mixture_information import (
    MixtureStandardErrors as MixtureStandardErrors,
)
from rankclust.cluster._mixture_information import (
    mixture_information as mixture_information,
)
from rankclust.cluster._mixture_information import (
    mixture_standard_errors as mixture_standard_errors,
)
from rankclust.cluster._mixture_information import mixture_vcov as mixture_vcov
from rankclust.cluster.baselines import (
    CompletionMallowsMixture,
    RestrictedLengthMixture,
    complete_rankings,
)
from rankclust.cluster.chains import ChainKMeans, chain_centroid, chain_cost, chain_distance
from rankclust.cluster.embeddings import (
    graph_embedding,
    hypersphere_embedding,
    planted_partition_pq,
)
from rankclust.cluster.generators import make_planted_chains
from rankclust.cluster.komeans import KOMeans
from rankclust.cluster.mixture import (
    MIXTURE_CENTER_METHODS,
    MallowsMixture,
    PlackettLuceMixture,
    SelectKResult,
    SelectModelResult,
    select_k,
    select_model,
)
from rankclust.cluster.mixture_generators import (
    centers_at_distances,
    length_law,
    make_heterogeneous_rankings,
)
from rankclust.cluster.swap_mcmc import (
    MixingCurve,
    RandomizationTestResult,
    SwapSampler,
    chain_set_distance,
    mixing_curve,
    randomization_test,
    swap_samples,
)

__all__ = [
    "MIXTURE_CENTER_METHODS",
    "ChainKMeans",
    "CompletionMallowsMixture",
    "GateCoefficients",
    "ItemCovariatePLMixture",
    "KOMeans",
    "MallowsMixture",
    "MixingCurve",
    "PlackettLuceMixture",
    "RandomizationTestResult",
    "RestrictedLengthMixture",
    "SelectKResult",
    "SelectModelResult",
    "SwapSampler",
    "centers_at_distances",
    "chain_centroid",
    "chain_cost",
    "chain_distance",
    "chain_set_distance",
    "complete_rankings",
    "gate_coefficients",
    "graph_embedding",
    "hypersphere_embedding",
    "length_law",
    "make_heterogeneous_rankings",
    "make_planted_chains",
    "mixing_curve",
    "objective_of",
    "planted_partition_pq",
    "randomization_test",
    "select_k",
    "select_model",
    "swap_samples",
]
