"""Tests for rankclust.ordinal._data (licensed data: skipped when the data home is absent)."""

from __future__ import annotations

import numpy as np
import pytest

from rankclust.ordinal._data import _bin, fetch_amazon_sentiment, fetch_ordinal_regression


def test_binning():
    t = np.arange(10.0)
    np.testing.assert_array_equal(np.bincount(_bin(t, 5, "equal_frequency")), [2] * 5)
    np.testing.assert_array_equal(_bin(np.array([0.0, 0.5, 1.0]), 2, "equal_length"), [0, 1, 1])
    np.testing.assert_array_equal(
        np.bincount(_bin(np.arange(11.0), 5, "equal_frequency")), [3, 2, 2, 2, 2]
    )


def test_missing_data_home_is_informative(tmp_path):
    with pytest.raises(FileNotFoundError, match="RANKCLUST_DATA"):
        fetch_ordinal_regression("auto", data_home=tmp_path)
    with pytest.raises(FileNotFoundError, match="cannot be shipped"):
        fetch_amazon_sentiment("books", data_home=tmp_path)


def test_bad_names():
    with pytest.raises(ValueError, match="unknown ordinal"):
        fetch_ordinal_regression("nope")
    with pytest.raises(ValueError, match="version"):
        fetch_ordinal_regression("auto", "quantile")
    with pytest.raises(ValueError, match="no equal_frequency"):
        fetch_ordinal_regression("triazines", "equal_frequency", data_home="/nonexistent")
    with pytest.raises(ValueError, match="unknown domain"):
        fetch_amazon_sentiment("music")


@pytest.mark.shared_data
@pytest.mark.parametrize(
    "name, version, shape, counts",
    [
        ("auto", "equal_length", (392, 7), [91, 131, 101, 59, 10]),
        ("boston", "equal_length", (506, 13), [77, 239, 123, 36, 31]),
        ("machinecpu", "equal_frequency", (209, 6), [42, 42, 42, 42, 41]),
        ("computer", "equal_frequency", (8192, 21), [1639, 1639, 1638, 1638, 1638]),
    ],
)
def test_loaders_match_provenance(shared_data, name, version, shape, counts):
    X, y = fetch_ordinal_regression(name, version, data_home=shared_data)
    assert X.shape == shape and X.dtype == np.float64
    np.testing.assert_array_equal(np.bincount(y), counts)


@pytest.mark.shared_data
def test_amazon(shared_data):
    X, y = fetch_amazon_sentiment("kitchen", data_home=shared_data)
    assert X.shape == (1999, 400)
    np.testing.assert_array_equal(np.bincount(y), [1000, 999])
    np.testing.assert_allclose(X.sum(1), 1.0, atol=1e-8)
