"""No silent empty cluster (issue #17, DESIGN.md sections 3 and 9), for every clusterer.

Property, on small random data where empty clusters are likely (unstructured data, K close to
n, few distinct rows): after ``fit``,

* every label in ``0..n_clusters_-1`` is used by ``labels_`` (and none lies outside), and
  ``n_clusters_ < n_clusters`` only with an :class:`~rankclust.exceptions.EmptyClusterWarning`;
* mixtures (no ``n_clusters_``, soft clusters): every component keeps a positive weight
  (an emptied component is re-seeded, with a warning); a component may win no ranking under
  the MAP rule -- the CLI summary shows MAP size and soft count side by side;
* the ordinal package's clusterers (``empty_clusters_``): their clusters are levels or
  hyperplanes that ``predict`` may return, so an empty one is kept, listed in
  ``empty_clusters_`` and warned about (a ``RuntimeWarning``; ``EmptyClusterWarning`` is one).

The classes come from :func:`tests.reliability._estimators.discover`, so a clusterer added
later is covered without editing this file.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.exceptions import EmptyClusterWarning
from tests.reliability._estimators import discover, family, make, ranking_kind

_K_PARAMS = ("n_clusters", "n_components")


def _clusterers() -> list[type]:
    out = []
    for cls in discover().values():
        params = inspect.signature(cls.__init__).parameters
        if family(cls) != "label_ranking" and any(p in params for p in _K_PARAMS):
            out.append(cls)
    return out


CLUSTERERS = _clusterers()


def _rankings(n: int, m: int, seed: int, distinct: int | None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pool = np.array([rng.permutation(m) for _ in range(distinct or n)])
    return pool[rng.integers(0, len(pool), n)] if distinct else pool


def _data(cls: type, k: int, seed: int, degenerate: bool) -> tuple:
    """Unstructured data: 12 rows (degenerate: 2 distinct rows repeated) or 24 rows."""
    n, m = (12, 4) if degenerate else (24, 4)
    ranks = _rankings(n, m, seed, 2 if degenerate else None)
    rng = np.random.default_rng(seed + 100)
    X = rng.normal(size=(2 if degenerate else n, 2))
    X = X[np.arange(n) % 2] if degenerate else X
    fam = family(cls)
    if fam == "rankings":
        return (Rankings(ranks).with_kind(ranking_kind(cls)),)
    if fam == "supervised":
        return X, Rankings(ranks)
    return (X,)


def _k_param(cls: type) -> str | None:
    params = make(cls).get_params(deep=False)
    return next((p for p in _K_PARAMS if p in params), None)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls", CLUSTERERS, ids=lambda c: c.__name__)
def test_no_silent_empty_cluster(cls):
    name = _k_param(cls)
    if name is None:  # a meta-estimator: K is its inner estimator's (fixed by make())
        grid = [(None, s, d) for s in (0, 1) for d in (False, True)]
    else:
        grid = [(k, s, d) for k in (2, 3, 5) for s in (0, 1) for d in (False, True)]
    for k, seed, degenerate in grid:
        args = _data(cls, k or 2, seed, degenerate)
        params = {"random_state": seed} if "random_state" in make(cls).get_params() else {}
        if name is not None:
            params[name] = k
        est = make(cls, **params)
        where = f"{cls.__name__}(k={k}, seed={seed}, degenerate={degenerate})"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                est.fit(*args)
            except ValueError as exc:
                # a documented refusal (e.g. more mixture components than distinct rankings)
                assert str(exc), where
                continue
        labels = np.asarray(est.labels_)
        used = np.unique(labels)
        if hasattr(est, "empty_clusters_"):  # ordinal levels: reported, not renumbered
            k_all = est.get_params()["n_clusters"]
            assert used.min() >= 0 and used.max() < k_all, where
            assert set(est.empty_clusters_.tolist()) == set(range(k_all)) - set(used), where
            if est.empty_clusters_.size:
                assert any(issubclass(w.category, RuntimeWarning) for w in caught), where
        elif not hasattr(est, "n_clusters_"):  # mixtures: soft clusters
            assert np.all(np.asarray(est.weights_) > 0), where
        else:
            kk = est.n_clusters_
            assert used.min() >= 0 and used.max() < kk, where
            assert used.size == kk, f"{where}: empty cluster returned ({used} of {kk})"
            if k is not None and kk < k:
                assert any(w.category is EmptyClusterWarning for w in caught), where
            centers = getattr(est, "central_rankings_", getattr(est, "centers_", None))
            if centers is not None:
                assert len(centers) == kk, where
            if hasattr(est, "predict"):
                pred = np.asarray(est.predict(*args[:1]))
                assert pred.min() >= 0 and pred.max() < kk, where


def test_the_property_covers_every_clusterer_family():
    names = {c.__name__ for c in CLUSTERERS}
    assert {"ChainKMeans", "KOMeans", "MallowsMixture", "RankTree", "M2SORC"} <= names
    assert {"RankClusteringTree", "PrototypePLMixture", "NaiveKMeans"} <= names
