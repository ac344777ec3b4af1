"""Explicit feature maps so that kernel maximum-margin problems stay primal QPs.

``kernel="linear"`` uses the features as given. ``kernel="rbf"`` uses the Nyström map of
:class:`sklearn.kernel_approximation.Nystroem` with ``min(n_components, n)`` landmarks; with
``n_components >= n`` every sample is a landmark and the map is the exact empirical kernel map
(``Phi @ Phi.T`` reproduces the kernel matrix up to the pseudo-inverse cut-off).

Numerical range. With ``gamma="scale"`` the RBF kernel is invariant to a common rescaling of
the features, so the map first divides ``X`` by a power of two close to ``max |X|`` (exact in
floating point: the result is bit-for-bit the same as without it whenever no overflow occurs)
and features as large as 1e300 work. Where the model is not scale invariant (a numeric
``gamma``, the linear kernel) features whose squared norms overflow float64 are refused with a
``ValueError``; so is a map that would come out non-finite.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.kernel_approximation import Nystroem

from rankclust import _loaded_state as loaded

KERNELS = ("linear", "rbf")


def resolve_gamma(gamma: float | str, X: NDArray) -> float:
    """``"scale"`` -> ``1 / (d * X.var())`` (scikit-learn's SVC rule); a number is returned."""
    if isinstance(gamma, str):
        var = float(X.var())
        return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    return float(gamma)


def _power_of_two_scale(X: NDArray) -> float:
    """2**e with 2**e <= max|X| < 2**(e+1) (1.0 for an all-zero X); dividing by it is exact."""
    top = float(np.max(np.abs(X))) if X.size else 0.0
    if top == 0.0 or not np.isfinite(top):
        return 1.0
    return float(2.0 ** np.floor(np.log2(top)))


def _check_finite_map(Phi: NDArray, what: str) -> NDArray:
    if not np.all(np.isfinite(Phi)):
        raise ValueError(
            f"the {what} feature map of X is not finite (the features are too large for float64 "
            "arithmetic); rescale X, e.g. with sklearn.preprocessing.StandardScaler"
        )
    return Phi


def _check_squared_norms(X: NDArray, what: str) -> None:
    with np.errstate(over="ignore"):
        sq = np.einsum("ij,ij->i", X, X)
    if not np.all(np.isfinite(sq)):
        raise ValueError(
            f"squared norms of the rows of X overflow float64 ({what}); rescale X, e.g. with "
            "sklearn.preprocessing.StandardScaler, or use kernel='rbf' with gamma='scale', which "
            "is scale invariant"
        )


class FeatureMap:
    """Fitted explicit feature map (private helper; input is assumed validated and finite).

    Parameters
    ----------
    kernel : {"linear", "rbf"}
    gamma : float or "scale"
        RBF width in ``exp(-gamma * ||x - y||^2)``.
    n_components : int
        Nyström landmarks (capped at the number of samples).
    random_state : RandomState
        Chooses the landmarks.

    Attributes
    ----------
    scale_ : float
        Power of two the features are divided by before the RBF map (``gamma="scale"`` only;
        1.0 otherwise).
    gamma_ : float
        RBF width used on the rescaled features ``X / scale_``.
    """

    def __init__(self, kernel: str, gamma: float | str, n_components: int, random_state) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state

    def fit_transform(self, X: NDArray) -> NDArray:
        if self.kernel == "linear":
            self.nystroem_ = None
            self.scale_ = 1.0
            _check_squared_norms(X, "linear kernel")
            return np.asarray(X, dtype=float)
        # gamma="scale" is invariant to X -> X / s; dividing by a power of two is exact
        self.scale_ = _power_of_two_scale(X) if isinstance(self.gamma, str) else 1.0
        Xs = X / self.scale_
        if not isinstance(self.gamma, str):
            _check_squared_norms(Xs, f"rbf kernel with gamma={self.gamma}")
        self.gamma_ = resolve_gamma(self.gamma, Xs)
        seed = self.random_state.randint(np.iinfo(np.int32).max)
        self.nystroem_ = Nystroem(
            kernel="rbf",
            gamma=self.gamma_,
            n_components=min(self.n_components, X.shape[0]),
            random_state=seed,
        )
        return _check_finite_map(self.nystroem_.fit_transform(Xs), "rbf")

    def transform(self, X: NDArray) -> NDArray:
        if self.nystroem_ is None:
            return np.asarray(X, dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):
            Phi = self.nystroem_.transform(X / self.scale_)
        return _check_finite_map(Phi, "rbf")

    # ---------------------------------------------------------------- loading
    def _validate_loaded_state(self) -> None:
        """Check the state of a map read by :func:`rankclust.persistence.load`.

        The number of input features is the owner's: it calls :meth:`_loaded_output_dim`.
        """
        kernel = loaded.choice_attr(self, "kernel", KERNELS)
        if "scale_" not in vars(self):
            return  # not fitted
        loaded.float_attr(self, "scale_", low=np.finfo(float).tiny)
        if kernel == "linear":
            loaded.choice_attr(self, "nystroem_", (None,))
        else:
            loaded.float_attr(self, "gamma_", low=0.0)
            loaded.estimator_attr(self, "nystroem_", Nystroem)

    def _loaded_output_dim(self, n_features: int, name: str) -> int:
        """Width of :meth:`transform` for ``n_features`` inputs, checking the fitted map."""
        if self.nystroem_ is None:
            return n_features
        if self.nystroem_.n_features_in_ != n_features:
            raise ValueError(f"{name}: fitted on {self.nystroem_.n_features_in_} features")
        return self.nystroem_.components_.shape[0]
