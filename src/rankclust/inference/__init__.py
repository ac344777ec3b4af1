"""Uncertainty and model checking for the ranking models and mixtures.

* standard errors -- observed information and covariance of Plackett-Luce log-worths, Wald
  intervals, quasi-variances, the Fisher information of the Mallows dispersion, and the
  observed information of the mixtures (:func:`mixture_standard_errors`: weights, dispersions
  and log-worths per component);
* :func:`bootstrap` -- non-parametric and parametric bootstrap of a fitted model or mixture:
  percentile intervals, the uncertainty of the central rankings, the stability of each
  ballot's cluster (:mod:`rankclust.inference.bootstrap`);
* :func:`bootstrap_lrt` -- the parametric-bootstrap likelihood-ratio test of K against K - 1
  mixture components (McLachlan 1987; :mod:`rankclust.inference.lrt`);
* :func:`goodness_of_fit`, :func:`compare_models` -- observed against expected tables, G2 and
  bootstrap p-values, model comparison (:mod:`rankclust.inference.goodness_of_fit`).
"""

from rankclust.cluster import (  # their home: beside the mixtures (see rankclust.cluster)
    MixtureStandardErrors,
    mixture_information,
    mixture_standard_errors,
    mixture_vcov,
)
from rankclust.inference.bootstrap import (
    BootstrapResult,
    bootstrap,
    match_components,
    sample_like,
)
from rankclust.inference.goodness_of_fit import (
    FitTables,
    GoodnessOfFitResult,
    ModelComparison,
    compare_models,
    goodness_of_fit,
)
from rankclust.inference.lrt import LRTResult, bootstrap_lrt
from rankclust.models import (  # their home: beside the models (see rankclust.models)
    change_reference,
    mallows_theta_information,
    mallows_theta_standard_error,
    plackett_luce_information,
    plackett_luce_vcov,
    quasi_variances,
    wald_intervals,
)

__all__ = [
    "BootstrapResult",
    "FitTables",
    "GoodnessOfFitResult",
    "LRTResult",
    "MixtureStandardErrors",
    "ModelComparison",
    "bootstrap",
    "bootstrap_lrt",
    "change_reference",
    "compare_models",
    "goodness_of_fit",
    "mallows_theta_information",
    "mallows_theta_standard_error",
    "match_components",
    "mixture_information",
    "mixture_standard_errors",
    "mixture_vcov",
    "plackett_luce_information",
    "plackett_luce_vcov",
    "quasi_variances",
    "sample_like",
    "wald_intervals",
]
