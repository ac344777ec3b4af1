"""The data home and the label-ranking data shipped inside the package."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.utils import Bunch

from rankclust.io.label_ranking_csv import read_label_ranking_csv
from rankclust.rankings import Rankings

__all__ = ["LABEL_RANKING_DATASETS", "get_data_home", "load_label_ranking"]

#: Names of the 21 label-ranking data sets shipped with rankclust (Cheng, Hühn & Hüllermeier
#: 2009; MIT licence, see ``datasets/data/README.md``).
LABEL_RANKING_DATASETS = (
    "authorship",
    "bodyfat",
    "calhousing",
    "cold",
    "cpu",
    "diau",
    "dtt",
    "elevators",
    "fried",
    "glass",
    "heat",
    "housing",
    "iris",
    "pendigits",
    "segment",
    "spo",
    "stock",
    "vehicle",
    "vowel",
    "wine",
    "wisconsin",
)

_ENV = "RANKCLUST_DATA"


def get_data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The folder where ``fetch_*`` loaders look for data that rankclust does not ship.

    The data home has the layout of the project's ``shared/data`` folder: one sub-folder per
    data set (``sushi3/sushi3a.5000.10.order``, ``apa_1980/d_apa_orderings.csv``, ...).

    Parameters
    ----------
    data_home : str or os.PathLike, optional
        Use this folder. Default: the ``RANKCLUST_DATA`` environment variable when it is set
        and not empty, else ``~/rankclust_data``.

    Returns
    -------
    Path
        The folder, with ``~`` expanded. It is not created (the loaders only read).

    Examples
    --------
    >>> get_data_home("/tmp/my_data").as_posix()
    '/tmp/my_data'
    """
    if data_home is None:
        data_home = os.environ.get(_ENV) or os.path.join("~", "rankclust_data")
    return Path(data_home).expanduser()


def _check_name(name: Any, names: tuple[str, ...], what: str) -> str:
    if not isinstance(name, str) or name.lower() not in names:
        raise ValueError(f"unknown {what} {name!r}; choose one of {', '.join(names)}")
    return name.lower()


def load_label_ranking(
    name: str, *, return_X_y: bool = True
) -> tuple[np.ndarray, Rankings] | Bunch:
    """Load one of the 21 label-ranking benchmark sets shipped with rankclust.

    Parameters
    ----------
    name : str
        One of :data:`LABEL_RANKING_DATASETS` (case-insensitive), e.g. ``"iris"``,
        ``"cpu"`` (the set called "cpu-small" in the papers).
    return_X_y : bool, default=True
        Return ``(X, Y)``; if False, a :class:`sklearn.utils.Bunch` with ``data`` (X),
        ``target`` (Y), ``name`` and ``DESCR``.

    Returns
    -------
    X : ndarray of float64, shape (n_samples, n_features)
        Features, scaled as in the original KEBI files.
    Y : Rankings, shape (n_samples, n_labels), kind "subset"
        Complete rankings of the labels (no ties, nothing missing in these sets).

    Notes
    -----
    The files are gzip-compressed copies of scikit-lr's CSV files (MIT licence); sizes are in
    ``datasets/data/README.md``. Complexity: O(n (p + k)) time and memory.

    References
    ----------
    W. Cheng, J. Hühn and E. Hüllermeier, "Decision tree and instance-based learning for
    label ranking", ICML 2009, pp. 161-168.

    Examples
    --------
    >>> X, Y = load_label_ranking("iris")
    >>> X.shape, Y.shape
    ((150, 4), (150, 3))
    """
    name = _check_name(name, LABEL_RANKING_DATASETS, "label ranking data set")
    ref = resources.files("rankclust.datasets").joinpath("data", f"{name}.csv.gz")
    with ref.open("rb") as f:
        X, Y = read_label_ranking_csv(f)
    if return_X_y:
        return X, Y
    descr = (
        f"Label ranking data set {name!r}: {X.shape[0]} samples, {X.shape[1]} features, "
        f"{Y.n_items} labels (Cheng, Hühn & Hüllermeier 2009; MIT licence, from scikit-lr)."
    )
    return Bunch(data=X, target=Y, name=name, DESCR=descr)
