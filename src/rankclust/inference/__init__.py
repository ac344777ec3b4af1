"""Inference for ranking models: goodness of fit and model comparison.

See :mod:`rankclust.inference.goodness_of_fit`.
"""

from rankclust.inference.goodness_of_fit import (
    FitTables,
    GoodnessOfFitResult,
    ModelComparison,
    compare_models,
    goodness_of_fit,
)

__all__ = [
    "FitTables",
    "GoodnessOfFitResult",
    "ModelComparison",
    "compare_models",
    "goodness_of_fit",
]
