"""Loaders for the ordinal-regression benchmarks (Chu) and the Amazon sentiment set (Blitzer).

Neither data set may be redistributed, so nothing is shipped: the loaders read the files from a
data home laid out like ``shared/data`` -- ``$RANKCLUST_DATA`` (default ``~/rankclust_data``),
or ``rankclust.datasets.get_data_home()`` when that exists -- and raise an informative
``FileNotFoundError`` when they are missing.

Layout expected under the data home::

    ordinal_regression_chu/chu_equal_length/<set>/5bins/<file>_{train,test}_5.1
    ordinal_regression_chu/equal_frequency_5bins/<name>-5.csv
    ordinal_regression_chu/raw_regression/<name>.csv
    amazon_sentiment_blitzer/mat_400features/<domain>_400.mat
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

__all__ = ["ORDINAL_DATASETS", "fetch_amazon_sentiment", "fetch_ordinal_regression"]

_CHU_URL = "http://www.gatsby.ucl.ac.uk/~chuwei/ordinalregression.html"
_OTL_URL = "https://github.com/yamasakiryoya/OTL (various/datasets/)"
_AMAZON_URL = "https://www.cs.jhu.edu/~mdredze/datasets/sentiment/"

# name -> (Chu equal-length folder, file stem) ; (equal-frequency csv) ; (raw regression csv)
_CHU = {
    "abalone": ("abalone", "abalone"),
    "auto": ("auto", "auto.data"),
    "boston": ("bostonhousing", "housing"),
    "machinecpu": ("machinecpu", "machine"),
    "pyrimidines": ("pyrimidines", "pyrim"),
    "stock": ("stocksdomain", "stock"),
    "triazines": ("triazines", "triazines"),
}
_EQFREQ = {
    "abalone": "abalone-5.csv",
    "bank1": "bank1-5.csv",
    "computer1": "computer1-5.csv",
    "boston": "housing-5.csv",
    "machinecpu": "machine-5.csv",
    "pyrimidines": "pyrim-5.csv",
    "stock": "stock-5.csv",
}
_RAW = {
    "bank1": "bank-domain-1.csv",
    "bank2": "bank-domain-2.csv",
    "computer1": "computer-activity-2.csv",
    "computer2": "computer-activity-1.csv",
    "california": "california-housing.csv",
    "census": "census-1.csv",
}
_ALIASES = {"bank": "bank2", "computer": "computer2", "housing": "boston", "autompg": "auto"}

#: Canonical names accepted by :func:`fetch_ordinal_regression`.
ORDINAL_DATASETS = tuple(sorted(set(_CHU) | set(_EQFREQ) | set(_RAW)))


def _data_home(data_home: str | os.PathLike | None) -> Path:
    if data_home is not None:
        return Path(data_home)
    from rankclust.datasets import get_data_home  # the datasets package owns the data home

    return Path(get_data_home())


def _missing(path: Path, what: str, url: str) -> FileNotFoundError:
    return FileNotFoundError(
        f"{what} not found at {path}. These data cannot be shipped with rankclust. Download them "
        f"from {url}, place them under the data home in the layout described in "
        "rankclust.ordinal._data, and set the RANKCLUST_DATA environment variable to that folder."
    )


def _bin(target: NDArray, n_levels: int, how: str) -> NDArray:
    """Equal-frequency (sorted, np.array_split sizes) or equal-length bins, labels 0..k-1."""
    if how == "equal_frequency":
        order = np.argsort(target, kind="mergesort")
        y = np.empty(target.shape[0], dtype=np.int64)
        for level, chunk in enumerate(np.array_split(order, n_levels)):
            y[chunk] = level
        return y
    lo, hi = target.min(), target.max()
    y = np.floor((target - lo) / (hi - lo) * n_levels).astype(np.int64)
    return np.minimum(y, n_levels - 1)


def fetch_ordinal_regression(
    name: str,
    version: str = "equal_length",
    *,
    data_home: str | os.PathLike | None = None,
) -> tuple[NDArray, NDArray]:
    """Load one of Chu's 5-level ordinal-regression benchmark sets.

    Parameters
    ----------
    name : str
        One of ``ORDINAL_DATASETS``: abalone, auto, bank1, bank2, boston, california, census,
        computer1, computer2, machinecpu, pyrimidines, stock, triazines. Aliases: ``"bank"`` =
        bank2 (Delve bank-32nh, Chu & Keerthi's "Bank"), ``"computer"`` = computer2 (cpu_act,
        21 attributes), ``"housing"`` = boston, ``"autompg"`` = auto. The numbering of bank and
        computer follows Chu's page ("Bank Domains (1)/(2)", "Computer Activity (1)/(2)").
    version : {"equal_length", "equal_frequency"}, default="equal_length"
        ``"equal_length"``: Chu's own files (union of partition 1's train and test files, raw
        attributes) for the small sets; for bank/computer/california/census the raw target is
        cut into 5 equal-length bins here. ``"equal_frequency"``: the Gutierrez et al. DR5
        files (z-scored attributes) where they exist, else 5 equal-frequency bins of the raw
        target (inputs z-scored), following the OTL repository's recipe.
    data_home : path, default=None
        Overrides ``$RANKCLUST_DATA``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int64
        Levels 0..4 (0 = lowest).

    Raises
    ------
    FileNotFoundError
        When the files are not under the data home (the message says how to get them).
    ValueError
        For an unknown name, or a version not available for that set (auto and triazines have
        no equal-frequency version here).

    Notes
    -----
    Complexity: O(n d) time and memory.

    Examples
    --------
    >>> X, y = fetch_ordinal_regression("auto")  # doctest: +SKIP
    >>> X.shape, np.bincount(y)  # doctest: +SKIP
    ((392, 7), array([ 91, 131, 101,  59,  10]))
    """
    key = _ALIASES.get(name.lower(), name.lower())
    if key not in ORDINAL_DATASETS:
        raise ValueError(f"unknown ordinal data set {name!r}; choose from {ORDINAL_DATASETS}")
    if version not in ("equal_length", "equal_frequency"):
        raise ValueError(f"version must be 'equal_length' or 'equal_frequency'; got {version!r}")
    root = _data_home(data_home) / "ordinal_regression_chu"

    if version == "equal_length" and key in _CHU:
        folder, stem = _CHU[key]
        parts = []
        for split in ("train", "test"):
            path = root / "chu_equal_length" / folder / "5bins" / f"{stem}_{split}_5.1"
            if not path.is_file():
                raise _missing(path, f"Chu's {key} partition file", _CHU_URL)
            parts.append(np.loadtxt(path, ndmin=2))
        data = np.vstack(parts)
        return data[:, :-1].astype(np.float64), data[:, -1].astype(np.int64) - 1
    if version == "equal_frequency" and key in _EQFREQ:
        path = root / "equal_frequency_5bins" / _EQFREQ[key]
        if not path.is_file():
            raise _missing(path, f"the equal-frequency {key} file", _OTL_URL)
        data = np.loadtxt(path, delimiter=",", ndmin=2)
        return data[:, :-1].astype(np.float64), data[:, -1].astype(np.int64)
    if key in _RAW:
        path = root / "raw_regression" / _RAW[key]
        if not path.is_file():
            raise _missing(path, f"the raw regression file for {key}", _OTL_URL)
        data = np.loadtxt(path, delimiter=",", ndmin=2)
        X, target = data[:, :-1], data[:, -1]
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
        return X, _bin(target, 5, version)
    raise ValueError(f"{key!r} has no {version} version in this collection")


_AMAZON_DOMAINS = {
    "books": "books",
    "dvd": "dvd",
    "dvds": "dvd",
    "electronics": "elec",
    "elec": "elec",
    "kitchen": "kitchen",
}


def fetch_amazon_sentiment(
    domain: str = "books", *, data_home: str | os.PathLike | None = None
) -> tuple[NDArray, NDArray]:
    """Load one domain of the 400-feature Amazon review set (Blitzer et al. 2007).

    Parameters
    ----------
    domain : {"books", "dvd", "electronics", "kitchen"}, default="books"
    data_home : path, default=None
        Overrides ``$RANKCLUST_DATA``.

    Returns
    -------
    X : ndarray of shape (about 2000, 400), float64
        Within-review term proportions over 400 features (each row sums to 1).
    y : ndarray of shape (about 2000,), int64
        Binary polarity 0/1 (two levels only; the 1-5 star ratings are not in this version).

    Notes
    -----
    Complexity: O(n d) time and memory.

    Examples
    --------
    >>> X, y = fetch_amazon_sentiment("books")  # doctest: +SKIP
    >>> X.shape  # doctest: +SKIP
    (2000, 400)
    """
    key = _AMAZON_DOMAINS.get(domain.lower())
    if key is None:
        raise ValueError(f"unknown domain {domain!r}; choose books, dvd, electronics or kitchen")
    path = (
        _data_home(data_home) / "amazon_sentiment_blitzer" / "mat_400features" / (f"{key}_400.mat")
    )
    if not path.is_file():
        raise _missing(path, f"the Amazon {domain} file", _AMAZON_URL)
    from scipy.io import loadmat

    mat = loadmat(path)
    return np.asarray(mat["fts"], dtype=np.float64), np.asarray(mat["labels"]).ravel().astype(
        np.int64
    )
