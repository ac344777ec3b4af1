"""Tests for the validation toolkit: hyper-parameters, arguments, sample weights, K."""

from __future__ import annotations

import ast
import numbers
import pathlib

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from rankclust._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    ValidatedParamsMixin,
    check_n_clusters,
    check_sample_weight,
    check_weight_shape,
    check_weight_total,
    validate_arguments,
    validate_params,
)


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


# --------------------------------------------------------------------------------------------
# the validation toolkit: sample weights, K, public functions' arguments
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "weights",
    [[1, 2, 0], (1.0, 2.0, 0.0), np.array([1, 2, 0]), np.array([1.0, 2.0, 0.0], dtype=np.float32)],
)
def test_check_sample_weight_accepts_sequences_and_arrays(weights):
    w = check_sample_weight(weights, 3)
    assert w.dtype == np.float64 and w.tolist() == [1.0, 2.0, 0.0]


def test_check_sample_weight_accepts_a_pandas_series_and_copies():
    pd = pytest.importorskip("pandas")
    s = pd.Series([0.5, 1.5], index=["b", "a"])
    w = check_sample_weight(s, 2)
    assert isinstance(w, np.ndarray) and w.tolist() == [0.5, 1.5]
    a = np.array([1.0, 2.0])
    check_sample_weight(a, 2)[0] = 9.0
    assert a[0] == 1.0  # a new array: callers may scale it in place


def test_check_sample_weight_none_is_ones():
    assert check_sample_weight(None, 3).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ([1.0, np.nan, 1.0], r"sample_weight must be finite and non-negative; row 1 has nan"),
        ([1.0, 1.0, np.inf], r"sample_weight must be finite and non-negative; row 2 has inf"),
        ([-0.5, 1.0, 1.0], r"sample_weight must be finite and non-negative; row 0 has -0\.5"),
        ([1.0, 1.0], r"sample_weight must have shape \(3,\), got \(2,\)"),
        ([[1.0, 1.0, 1.0]], r"sample_weight must have shape \(3,\), got \(1, 3\)"),
        (["a", "b", "c"], "sample_weight must be numeric, got list"),
        ([[1.0], [1.0, 2.0], [3.0]], "sample_weight must be numeric, got list"),
    ],
)
def test_check_sample_weight_refusals(weights, message):
    with pytest.raises(InvalidParameterError, match=message) as info:
        check_sample_weight(weights, 3)
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_check_sample_weight_zero_total_and_name():
    assert check_sample_weight([0, 0], 2).tolist() == [0.0, 0.0]  # allowed by default
    with pytest.raises(ValueError, match=r"^w sums to zero$"):
        check_sample_weight([0, 0], 2, name="w", allow_zero_total=False)
    assert check_sample_weight([0, 1], 2, allow_zero_total=False).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match=r"^weights must be finite"):
        check_sample_weight([-1, 1], 2, name="weights")


def test_check_sample_weight_two_dimensional():
    w = check_sample_weight([[1, 0], [0, 2], [1, 1]], 3, ndim=(1, 2))
    assert w.shape == (3, 2)
    with pytest.raises(ValueError, match=r"must have shape \(3,\) or \(3, K\), got \(2, 2\)"):
        check_sample_weight([[1, 0], [0, 2]], 3, ndim=(1, 2))
    with pytest.raises(ValueError, match="row 2 has -1"):
        check_sample_weight([[1, 0], [0, 2], [1, -1]], 3, ndim=(1, 2))


def test_check_weight_shape_and_total():
    check_weight_shape((4,), 4)
    with pytest.raises(ValueError, match=r"^weights must have shape \(4,\), got \(3,\)$"):
        check_weight_shape((3,), 4, name="weights")
    check_weight_total(np.array([0.0, 0.0]))  # zero allowed unless the rows are named
    with pytest.raises(ValueError, match=r"^the weights of the rankings sum to zero$"):
        check_weight_total(np.array([0.0, 0.0]), what="rankings")
    with pytest.raises(ValueError, match="divide them by their maximum"):
        check_weight_total(np.array([1e308, 1e308]))


def test_check_n_clusters():
    assert check_n_clusters(np.int64(3), 3) == 3
    with pytest.raises(
        ValueError, match=r"^n_clusters=4 is larger than the number of samples n=3$"
    ):
        check_n_clusters(4, 3)
    with pytest.raises(
        ValueError, match=r"^n_components=2 is larger than the number of chains n=1$"
    ):
        check_n_clusters(2, 1, what="chains", name="n_components")
    for bad in (0, -1, 2.0, True, "2"):
        with pytest.raises(InvalidParameterError, match="n_clusters must be a positive int"):
            check_n_clusters(bad, 5)


def test_validate_arguments_checks_positional_and_keyword_arguments():
    @validate_arguments({"k": [Interval(numbers.Integral, 1, None)], "how": [StrOptions({"a"})]})
    def f(x, k=1, *, how="a"):
        """Doc."""
        return x * k

    assert f(2, 3) == 6 and f(2, k=np.int64(2), how="a") == 4 and f.__doc__ == "Doc."
    with pytest.raises(InvalidParameterError, match=r"^f: parameter 'k' must be an int in"):
        f(2, 0)
    with pytest.raises(ValueError, match=r"^f: parameter 'how' must be a str among"):
        f(2, how="b")
    with pytest.raises(TypeError):  # a wrong call stays Python's TypeError
        f(2, 3, 4)
    with pytest.raises(TypeError, match="has no parameter"):
        validate_arguments({"nope": [None]})(f)


def test_no_module_checks_sample_weight_by_itself():
    """Every ``raise`` about ``sample_weight`` is in the toolkit: checks cannot creep back."""
    src = pathlib.Path(__file__).resolve().parents[1] / "src" / "rankclust"
    found = []
    for path in sorted(src.rglob("*.py")):
        if path.name == "_param_validation.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and "sample_weight" in ast.unparse(node):
                found.append(f"{path.relative_to(src)}:{node.lineno}")
    assert found == [], "use rankclust._param_validation.check_sample_weight: " + ", ".join(found)
