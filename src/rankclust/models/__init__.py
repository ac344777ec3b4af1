"""Probability models over rankings, each with ``fit`` / ``logpdf`` / ``sample``.

The standard-error functions of the models live beside them (they need the models' private
likelihood pieces) and are published by :mod:`rankclust.inference`.
"""

from rankclust.models._mallows_information import (
    mallows_theta_information as mallows_theta_information,
)
from rankclust.models._mallows_information import (
    mallows_theta_standard_error as mallows_theta_standard_error,
)
from rankclust.models._pl_information import (
    change_reference as change_reference,
)
from rankclust.models._pl_information import (
    plackett_luce_information as plackett_luce_information,
)
from rankclust.models._pl_information import (
    plackett_luce_vcov as plackett_luce_vcov,
)
from rankclust.models._pl_information import (
    quasi_variances as quasi_variances,
)
from rankclust.models._pl_information import (
    wald_intervals as wald_intervals,
)
from rankclust.models.mallows import Mallows
from rankclust.models.pl_tree import PlackettLuceTree
from rankclust.models.plackett_luce import PlackettLuce
from rankclust.models.plackett_luce_covariates import ItemCovariatePlackettLuce

__all__ = ["ItemCovariatePlackettLuce", "Mallows", "PlackettLuce", "PlackettLuceTree"]
