"""The contract of the ranking mixtures (private): what every one implements and sets.

A mixture fit makes runs from several starts, each recorded as a :class:`MixtureRun` (a
:class:`~rankclust._runs.FitRun` whose objective is the negative log-likelihood, with the
component weights beside the component parameters), keeps the most likely one, numbers its
components by decreasing weight and sets the fitted attributes common to every mixture
(:meth:`MixtureContract._set_common`); the model-specific attributes are set by the one hook
every mixture implements, :meth:`MixtureContract._set_fitted`.

The mixtures of :mod:`rankclust.cluster.mixture` fit through the EM driver
``_RankingMixture`` (which declares the hooks of its E- and M-steps as abstract methods too);
:class:`~rankclust.cluster.baselines.CompletionMallowsMixture` runs its own loop (EM over
completed rankings, see its docstring) and shares the record, the numbering of the
components and the fitted attributes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from rankclust._runs import FitRun

__all__ = ["MixtureContract", "MixtureRun", "component_order"]


@dataclass(kw_only=True)
class MixtureRun(FitRun):
    """One run of a mixture fit: ``objective`` is ``-log_likelihood``; ``weights`` (K,) are
    the component weights, ``params`` the component parameters (model-specific names)."""

    weights: np.ndarray

    @property
    def log_likelihood(self) -> float:
        """The (unpenalised) log-likelihood reached, ``-objective``."""
        return -self.objective


def component_order(weights: np.ndarray) -> np.ndarray:
    """The numbering of fitted components: by decreasing weight, ties by index (so the output
    does not depend on the labelling of a run)."""
    return np.lexsort((np.arange(len(weights)), -np.asarray(weights)))


class MixtureContract(ABC):
    """What every ranking mixture implements (:meth:`_set_fitted`) and sets (private)."""

    @abstractmethod
    def _set_fitted(self, params: dict, order: np.ndarray) -> None:
        """Set the model-specific fitted attributes from a run's ``params``, components in
        ``order`` (e.g. ``centers_``, ``thetas_``; ``scores_``)."""

    def _set_common(self, best: MixtureRun) -> np.ndarray:
        """``weights_``, the model's attributes (:meth:`_set_fitted`), ``log_likelihood_``,
        ``n_iter_`` and ``converged_`` of the kept run; returns the component order."""
        order = component_order(best.weights)
        self.weights_ = best.weights[order]
        self._set_fitted(best.params, order)
        self.log_likelihood_ = best.log_likelihood
        self.n_iter_ = best.n_iter
        self.converged_ = best.converged
        return order
