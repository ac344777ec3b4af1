"""Uncertainty for fitted ranking models: standard errors, Wald intervals, quasi-variances."""

from rankclust.inference._mallows_information import (
    mallows_theta_information,
    mallows_theta_standard_error,
)
from rankclust.inference._pl_information import (
    change_reference,
    plackett_luce_information,
    plackett_luce_vcov,
    quasi_variances,
    wald_intervals,
)

__all__ = [
    "change_reference",
    "mallows_theta_information",
    "mallows_theta_standard_error",
    "plackett_luce_information",
    "plackett_luce_vcov",
    "quasi_variances",
    "wald_intervals",
]
