"""Explicit feature maps so that kernel maximum-margin problems stay primal QPs.

``kernel="linear"`` uses the features as given. ``kernel="rbf"`` uses the Nyström map of
:class:`sklearn.kernel_approximation.Nystroem` with ``min(n_components, n)`` landmarks; with
``n_components >= n`` every sample is a landmark and the map is the exact empirical kernel map
(``Phi @ Phi.T`` reproduces the kernel matrix up to the pseudo-inverse cut-off).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.kernel_approximation import Nystroem

KERNELS = ("linear", "rbf")


def resolve_gamma(gamma: float | str, X: NDArray) -> float:
    """``"scale"`` -> ``1 / (d * X.var())`` (scikit-learn's SVC rule); a number is returned."""
    if isinstance(gamma, str):
        var = float(X.var())
        return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    return float(gamma)


class FeatureMap:
    """Fitted explicit feature map (private helper; input is assumed validated).

    Parameters
    ----------
    kernel : {"linear", "rbf"}
    gamma : float or "scale"
        RBF width in ``exp(-gamma * ||x - y||^2)``.
    n_components : int
        Nyström landmarks (capped at the number of samples).
    random_state : RandomState
        Chooses the landmarks.
    """

    def __init__(self, kernel: str, gamma: float | str, n_components: int, random_state) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state

    def fit_transform(self, X: NDArray) -> NDArray:
        if self.kernel == "linear":
            self.nystroem_ = None
            return np.asarray(X, dtype=float)
        self.gamma_ = resolve_gamma(self.gamma, X)
        seed = self.random_state.randint(np.iinfo(np.int32).max)
        self.nystroem_ = Nystroem(
            kernel="rbf",
            gamma=self.gamma_,
            n_components=min(self.n_components, X.shape[0]),
            random_state=seed,
        )
        return self.nystroem_.fit_transform(X)

    def transform(self, X: NDArray) -> NDArray:
        if self.nystroem_ is None:
            return np.asarray(X, dtype=float)
        return self.nystroem_.transform(X)
