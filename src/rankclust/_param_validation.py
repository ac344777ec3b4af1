"""A small hyper-parameter checker in the spirit of scikit-learn's ``_parameter_constraints``.

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

import numbers
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

__all__ = ["Interval", "StrOptions", "ValidatedParamsMixin", "validate_params"]


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
    """Raise ``ValueError`` (or ``TypeError``) for the first parameter that fits no constraint."""
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        if any(_satisfies(value, c) for c in allowed):
            continue
        options = " or ".join(_describe(c) for c in allowed)
        raise ValueError(f"{owner}: parameter {name!r} must be {options}; got {value!r}")


class ValidatedParamsMixin:
    """Adds ``_validate_params`` to a scikit-learn estimator with ``_parameter_constraints``."""

    _parameter_constraints: ClassVar[dict] = {}

    def _validate_params(self) -> None:
        validate_params(
            self.get_params(deep=False), self._parameter_constraints, type(self).__name__
        )
