"""The validation toolkit: hyper-parameters, public functions' arguments, sample weights, K.

Every argument check of the package that is not about the rankings themselves lives here, so
that each rule and each message is written once:

* :func:`validate_params` / :class:`ValidatedParamsMixin` -- estimators' hyper-parameters;
* :func:`validate_arguments` -- the same constraints as a decorator on public *functions*;
* :func:`check_sample_weight` -- per-row weights (lists, arrays, pandas Series), and
  :func:`check_weight_shape` for lazy arrays;
* :func:`check_weight_total` -- the total of combined weights (no overflow; not zero);
* :func:`check_n_clusters` -- the number of clusters against the number of samples.

Errors are :class:`InvalidParameterError`, a ``ValueError`` that is also a ``TypeError`` (as
scikit-learn's), so callers catching either keep working.

Estimators declare ``_parameter_constraints = {"name": [constraint, ...]}`` and call
``self._validate_params()`` first thing in ``fit``. A value is valid when it satisfies at least
one constraint. Constraints are:

* a type (``int``, ``float``, ``str``, a class): ``isinstance`` check (``bool`` is not an ``int``);
* :class:`Interval` -- a numeric range (integers must also fit in int64);
* :class:`StrOptions` -- a set of allowed strings;
* ``None`` -- the value ``None``;
* ``"random_state"`` -- ``None``, an int in ``[0, 2**32)`` or a ``numpy.random.RandomState``
  (what :func:`sklearn.utils.check_random_state` accepts);
* ``"boolean"`` -- ``bool`` or ``numpy.bool_``;
* ``"array-like"`` -- list, tuple or ndarray;
* ``callable`` -- any callable.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np

__all__ = [
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "ValidatedParamsMixin",
    "check_n_clusters",
    "check_sample_weight",
    "check_weight_shape",
    "check_weight_total",
    "refuse_sample_weight",
    "validate_arguments",
    "validate_params",
]

F = TypeVar("F", bound=Callable[..., Any])


class InvalidParameterError(ValueError, TypeError):
    """A parameter or argument of the wrong type or value (a ``ValueError`` and a ``TypeError``)."""


@dataclass(frozen=True)
class Interval:
    """Numbers of ``type`` in the range from ``left`` to ``right`` (None = unbounded)."""

    type: type
    left: float | None
    right: float | None
    closed: str = "both"  # "both", "left", "right", "neither"

    def is_satisfied_by(self, value: Any) -> bool:
        if isinstance(value, bool | np.bool_):
            return False
        if self.type is numbers.Integral or self.type is int:
            if not isinstance(value, numbers.Integral):
                return False
            if not -(2**63) <= value < 2**63:
                return False  # integer parameters reach numpy/numba as int64
        elif not isinstance(value, numbers.Real):
            return False
        if isinstance(value, float) and np.isnan(value):
            return False
        lo_ok = self.left is None or (
            value >= self.left if self.closed in ("both", "left") else value > self.left
        )
        hi_ok = self.right is None or (
            value <= self.right if self.closed in ("both", "right") else value < self.right
        )
        return bool(lo_ok and hi_ok)

    def __str__(self) -> str:
        lb = "[" if self.closed in ("both", "left") else "("
        rb = "]" if self.closed in ("both", "right") else ")"
        lo = "-inf" if self.left is None else self.left
        hi = "inf" if self.right is None else self.right
        kind = "an int" if self.type in (int, numbers.Integral) else "a number"
        return f"{kind} in the range {lb}{lo}, {hi}{rb}"


@dataclass(frozen=True)
class StrOptions:
    """One of a fixed set of strings."""

    options: frozenset

    def __init__(self, options: Any) -> None:
        object.__setattr__(self, "options", frozenset(options))

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.options

    def __str__(self) -> str:
        return "a str among " + "{" + ", ".join(sorted(map(repr, self.options))) + "}"


def _satisfies(value: Any, constraint: Any) -> bool:
    if constraint is None:
        return value is None
    if isinstance(constraint, Interval | StrOptions):
        return constraint.is_satisfied_by(value)
    if constraint == "random_state":
        if value is None or isinstance(value, np.random.RandomState):
            return True  # (not a Generator: sklearn.utils.check_random_state refuses it)
        # an int seed must be one numpy's RandomState accepts (as scikit-learn's checker)
        return (
            isinstance(value, numbers.Integral)
            and not isinstance(value, bool | np.bool_)
            and 0 <= value < 2**32
        )
    if constraint == "boolean":
        return isinstance(value, bool | np.bool_)
    if constraint == "array-like":
        return isinstance(value, list | tuple | np.ndarray)
    if constraint is callable:
        return callable(value)
    if isinstance(constraint, type):
        if constraint in (int, numbers.Integral) and isinstance(value, bool):
            return False
        return isinstance(value, constraint)
    raise TypeError(f"unknown constraint {constraint!r}")


def _describe(constraint: Any) -> str:
    if constraint is None:
        return "None"
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__}"
    if constraint is callable:
        return "a callable"
    return str(constraint)


def validate_params(params: dict, constraints: dict, owner: str) -> None:
    """Raise :class:`InvalidParameterError` for the first parameter that fits no constraint."""
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        if any(_satisfies(value, c) for c in allowed):
            continue
        options = " or ".join(_describe(c) for c in allowed)
        raise InvalidParameterError(
            f"{owner}: parameter {name!r} must be {options}; got {value!r}"
        )


def validate_arguments(constraints: dict) -> Callable[[F], F]:
    """Decorator: check a public function's arguments against ``constraints`` on every call.

    The constraints are those of :func:`validate_params` (``{"name": [constraint, ...]}``);
    arguments not named in ``constraints`` are not checked. Messages name the function (the
    class for a decorated ``__init__``). Under ``@classmethod``, put this decorator below it.

    Examples
    --------
    >>> @validate_arguments({"k": [Interval(numbers.Integral, 1, None)]})
    ... def top(x, k=1):
    ...     return sorted(x)[:k]
    >>> top([3, 1, 2], k=2)
    [1, 2]
    >>> top([3, 1, 2], k=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rankclust._param_validation.InvalidParameterError: top: parameter 'k' must be an int ...
    """

    def decorate(func: F) -> F:
        signature = inspect.signature(func)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{func.__qualname__} has no parameter(s) {sorted(unknown)}")
        # messages name "f", "Class.method" or, for a constructor, "Class"
        owner = func.__qualname__.rsplit("<locals>.", 1)[-1].removesuffix(".__init__")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)  # (a TypeError for a wrong call, as Python)
            validate_params(bound.arguments, constraints, owner)
            return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def check_sample_weight(
    sample_weight: Any,
    n: int,
    *,
    name: str = "sample_weight",
    allow_zero_total: bool = True,
    ndim: tuple[int, ...] = (1,),
) -> np.ndarray:
    """Per-row weights as a new float64 array: finite, non-negative, one per row.

    Parameters
    ----------
    sample_weight : array-like of shape (n,) or None
        A list, tuple, ndarray or pandas Series. ``None`` gives ``np.ones(n)``.
    n : int
        The number of rows.
    name : str, default="sample_weight"
        The argument's name in error messages.
    allow_zero_total : bool, default=True
        When False, weights that sum to zero are refused.
    ndim : tuple of int, default=(1,)
        Accepted numbers of dimensions: ``(1, 2)`` also accepts shape ``(n, K)`` (one weight
        per row and group).

    Returns
    -------
    ndarray of float64, shape (n,) (or (n, K))

    Raises
    ------
    InvalidParameterError
        With one message format: ``"{name} must have shape (n,), got ..."``, ``"{name} must be
        numeric ..."``, ``"{name} must be finite and non-negative; row i has v"`` or ``"{name}
        sums to zero"``.
    """
    if sample_weight is None:
        return np.ones(n)
    try:
        w = np.array(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be numeric, got {type(sample_weight).__name__}"
        ) from None
    check_weight_shape(w.shape, n, name=name, ndim=ndim)
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.argwhere(bad)[0, 0])
        value = w[i] if w.ndim == 1 else w[i][bad[i]][0]
        raise InvalidParameterError(f"{name} must be finite and non-negative; row {i} has {value}")
    if not allow_zero_total and not w.sum() > 0:
        raise InvalidParameterError(f"{name} sums to zero")
    return w


def refuse_sample_weight(sample_weight: Any, owner: str) -> None:
    """A one-line ``InvalidParameterError`` when ``sample_weight`` is given to ``owner``, which
    is fitted without row weights (its weights live in its data, e.g. comparison counts)."""
    if sample_weight is not None:
        raise InvalidParameterError(f"{owner} is fitted without sample_weight")


def check_weight_shape(
    shape: tuple[int, ...], n: int, *, name: str = "sample_weight", ndim: tuple[int, ...] = (1,)
) -> None:
    """The shape part of :func:`check_sample_weight`, for weights whose values are not at hand
    yet (a lazy Dask array: its values are checked chunk by chunk)."""
    if len(shape) not in ndim or shape[0] != n:
        shapes = " or ".join(f"({n},)" if d == 1 else f"({n}, K)" for d in ndim)
        raise InvalidParameterError(f"{name} must have shape {shapes}, got {tuple(shape)}")


def check_weight_total(w: np.ndarray, *, what: str | None = None) -> None:
    """Refuse combined weights whose total overflows float64 (every fit sums them), and, when
    ``what`` names the rows (``"rankings"``), weights that sum to zero."""
    with np.errstate(over="ignore"):
        total = w.sum()
    if not np.isfinite(total):
        raise ValueError(
            f"the weights sum to more than the largest float64 (largest weight {w.max():.3g}); "
            "only their ratios matter: divide them by their maximum"
        )
    if what is not None and not total > 0:
        raise ValueError(f"the weights of the {what} sum to zero")


def check_n_clusters(k: Any, n: int, *, what: str = "samples", name: str = "n_clusters") -> int:
    """``k`` as an int, refused unless ``1 <= k <= n`` (``what`` names the ``n`` rows)."""
    if not Interval(numbers.Integral, 1, None).is_satisfied_by(k):
        raise InvalidParameterError(f"{name} must be a positive int, got {k!r}")
    if k > n:
        raise ValueError(f"{name}={k} is larger than the number of {what} n={n}")
    return int(k)


class ValidatedParamsMixin:
    """Adds ``_validate_params`` to a scikit-learn estimator with ``_parameter_constraints``."""

    _parameter_constraints: ClassVar[dict] = {}

    def _validate_params(self) -> None:
        validate_params(
            self.get_params(deep=False), self._parameter_constraints, type(self).__name__
        )
