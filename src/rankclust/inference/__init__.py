"""Uncertainty and model checking for the ranking models and mixtures.

* :func:`bootstrap` -- non-parametric and parametric bootstrap of a fitted model or mixture:
  percentile intervals, the uncertainty of the central rankings, the stability of each
  ballot's cluster (:mod:`rankclust.inference.bootstrap`);
* :func:`bootstrap_lrt` -- the parametric-bootstrap likelihood-ratio test of K against K - 1
  mixture components (McLachlan 1987; :mod:`rankclust.inference.lrt`).
"""

from rankclust.inference.bootstrap import (
    BootstrapResult,
    bootstrap,
    match_components,
    sample_like,
)
from rankclust.inference.lrt import LRTResult, bootstrap_lrt

__all__ = [
    "BootstrapResult",
    "LRTResult",
    "bootstrap",
    "bootstrap_lrt",
    "match_components",
    "sample_like",
]
