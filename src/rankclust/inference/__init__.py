"""Inference for fitted ranking models: standard errors, Wald intervals, quasi-variances,
goodness of fit and model comparison."""

from rankclust.inference.goodness_of_fit import (
    FitTables,
    GoodnessOfFitResult,
    ModelComparison,
    compare_models,
    goodness_of_fit,
)
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
    "FitTables",
    "GoodnessOfFitResult",
    "ModelComparison",
    "change_reference",
    "compare_models",
    "goodness_of_fit",
    "mallows_theta_information",
    "mallows_theta_standard_error",
    "plackett_luce_information",
    "plackett_luce_vcov",
    "quasi_variances",
    "wald_intervals",
]
