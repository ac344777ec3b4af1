"""Tests for the hyper-parameter checker."""

from __future__ import annotations

import numbers

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from rankclust._param_validation import Interval, StrOptions, ValidatedParamsMixin, validate_params


class Toy(ValidatedParamsMixin, BaseEstimator):
    _parameter_constraints = {  # noqa: RUF012
        "k": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, 1, closed="neither")],
        "method": [StrOptions({"a", "b"})],
        "random_state": ["random_state"],
        "flag": ["boolean"],
        "init": [None, "array-like", callable],
    }

    def __init__(self, *, k=2, tol=0.5, method="a", random_state=None, flag=True, init=None):
        self.k = k
        self.tol = tol
        self.method = method
        self.random_state = random_state
        self.flag = flag
        self.init = init


def test_valid_params_pass():
    Toy()._validate_params()
    Toy(k=np.int64(3), random_state=np.random.RandomState(0), init=[1, 2])._validate_params()
    Toy(init=len, flag=np.bool_(False))._validate_params()


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"k": 0}, "k"),
        ({"k": 2.0}, "k"),
        ({"k": True}, "k"),
        ({"tol": 0}, "tol"),
        ({"tol": 1.0}, "tol"),
        ({"tol": float("nan")}, "tol"),
        ({"method": "c"}, "method"),
        ({"random_state": "x"}, "random_state"),
        ({"random_state": True}, "random_state"),
        ({"flag": 1}, "flag"),
        ({"init": "abc"}, "init"),
    ],
)
def test_invalid_params_name_the_parameter(params, name):
    with pytest.raises(ValueError, match=f"Toy: parameter '{name}' must be"):
        Toy(**params)._validate_params()


def test_messages_describe_constraints():
    assert str(Interval(numbers.Integral, 1, None)) == "an int in the range [1, inf]"
    assert str(Interval(float, 0, 1, closed="neither")) == "a number in the range (0, 1)"
    assert "'a'" in str(StrOptions({"a", "b"}))
    with pytest.raises(TypeError, match="unknown constraint"):
        validate_params({"x": 1}, {"x": ["nonsense"]}, "T")
