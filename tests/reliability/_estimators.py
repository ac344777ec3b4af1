"""Discovery of every rankclust estimator and a small valid data set for each family.

Estimators are found by walking the ``rankclust`` sub-packages for public, concrete
:class:`sklearn.base.BaseEstimator` subclasses, so estimators that land later are picked up
without editing the tests. Each is put in one *family* by what its ``fit`` takes:

* ``"rankings"`` -- ``fit(R)``: models and clusterers of rankings (input is a Rankings);
* ``"covariates"`` -- ``fit(R, X)``: models of rankings given covariates of the people who
  ranked (``X`` required; predictions take ``X``, ``logpdf`` takes ``(R, X)``);
* ``"label_ranking"`` -- ``fit(X, Y)`` predicting a ranking (``rankclust.label_ranking``);
* ``"supervised"`` -- ``fit(X, Y)`` clustering label-ranking data (``rankclust.supervised``);
* ``"features"`` -- ``fit(X)`` with optional side information (``rankclust.ordinal``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

import rankclust
from rankclust import Rankings

#: Cheaper settings used by the conformance runs (same code paths, fewer restarts/iterations).
FAST_PARAMS: dict[str, dict[str, Any]] = {
    "M2SORC": {"n_init": 1, "max_iter": 5, "n_components": 20},
    "CPMMC": {"n_init": 1, "max_iter": 5, "n_components": 20},
    "WSVORC": {"n_components": 20},
    "SMMCPC": {"n_components": 20},
    "CPCMMC": {"n_init": 1, "max_iter": 5, "n_components": 20},
    "LabelRankingTree": {"max_depth": 3},
    "IBLR": {"k_grid": (2, 3, 5)},
    "IBLRMallows": {"k_grid": (2, 3, 5)},
    "IBLRPlackettLuce": {"k_grid": (2, 3, 5)},
    "MallowsMixture": {"n_init": 2, "max_iter": 50},
    "PlackettLuceMixture": {"n_init": 2, "max_iter": 50},
    "CompletionMallowsMixture": {"n_init": 2, "max_iter": 30},
    "ChainKMeans": {"n_init": 2},
    "KOMeans": {"n_init": 2},
    "FeatureKMeansRanking": {"n_init": 2},
    "NaiveKMeans": {"n_init": 2},
    "RankClusteringTree": {"n_init": 2},
    "PrototypePLMixture": {"max_epochs": 5},
}


def _inner_estimators() -> None:
    """Meta-estimators get a seeded, fast inner estimator (their own default is unseeded)."""
    try:
        from rankclust.cluster.mixture import MallowsMixture
    except ImportError:  # not landed
        return
    FAST_PARAMS["RestrictedLengthMixture"] = {
        "estimator": MallowsMixture(n_components=2, n_init=2, max_iter=50, random_state=0)
    }


_inner_estimators()

#: Number of clusters used for the clusterers in the contract tests.
K = 2


@cache
def discover() -> dict[str, type]:
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(rankclust.__path__, "rankclust."):
        if info.name.endswith("__main__") or info.name.split(".")[-1].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if (
                inspect.isclass(obj)
                and issubclass(obj, BaseEstimator)
                and obj.__module__ == module.__name__
                and not name.startswith("_")
                and not inspect.isabstract(obj)
            ):
                found[name] = obj
    return dict(sorted(found.items()))


def family(cls: type) -> str:
    sig = inspect.signature(cls.fit).parameters
    params = list(sig)[1:]
    if params[0] == "R":
        if len(params) > 1 and params[1] == "X" and sig["X"].default is inspect.Parameter.empty:
            return "covariates"
        return "rankings"
    if cls.__module__.startswith("rankclust.label_ranking"):
        return "label_ranking"
    if cls.__module__.startswith("rankclust.supervised"):
        return "supervised"
    return "features"


def make(cls: type, **params: Any) -> BaseEstimator:
    """An instance with the fast settings and ``K`` clusters where the estimator has them."""
    est = cls()
    names = est.get_params(deep=False)
    kw = {k: v for k, v in FAST_PARAMS.get(cls.__name__, {}).items() if k in names}
    for key in ("n_clusters", "n_components"):
        if key in names and key not in kw and isinstance(names[key], int):
            kw[key] = K
    kw.update(params)
    return est.set_params(**kw)


def ranking_data(n: int = 40, m: int = 5, seed: int = 0) -> Rankings:
    """Complete rankings without ties from two well separated groups."""
    rng = np.random.default_rng(seed)
    base = np.array([np.arange(m), np.arange(m)[::-1]])
    ranks = np.empty((n, m), dtype=np.int64)
    for i in range(n):
        r = base[i % 2].copy()
        a = rng.integers(0, m - 1)
        r[[a, a + 1]] = r[[a + 1, a]]  # one adjacent swap of noise
        ranks[i] = r
    return Rankings(ranks)


def xy_data(n: int = 40, m: int = 4, d: int = 3, seed: int = 0) -> tuple[np.ndarray, Rankings]:
    """Features and complete label rankings that depend on the features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(d, m))
    scores = X @ W + 0.1 * rng.normal(size=(n, m))
    orders = np.argsort(-scores, axis=1)
    return X, Rankings.from_orderings(orders, n_items=m)


def features_data(n: int = 40, d: int = 2, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(size=(n // 2, d)), rng.normal(size=(n - n // 2, d)) + 4.0])


@cache
def ranking_kind(cls: type) -> str:
    """The kind of Rankings the estimator fits: "subset" unless it refuses it by kind."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            R = ranking_data(n=8)
            make(cls).fit(R, *((covariates_for(len(R)),) if family(cls) == "covariates" else ()))
    except ValueError as exc:
        if "kind=" in str(exc):
            return "top"
    return "subset"


def covariates_for(n: int, seed: int = 0) -> np.ndarray:
    """Covariates of ``n`` people: the group of :func:`ranking_data` (row parity) and noise."""
    return np.c_[np.arange(n) % 2, np.random.default_rng(seed).normal(size=n)]


def fit_args(cls: type, seed: int = 0) -> tuple:
    fam = family(cls)
    if fam == "rankings":
        return (ranking_data(seed=seed).with_kind(ranking_kind(cls)),)
    if fam == "covariates":
        R = ranking_data(seed=seed).with_kind(ranking_kind(cls))
        return (R, covariates_for(len(R), seed))
    if fam in ("label_ranking", "supervised"):
        return xy_data(seed=seed)
    return (features_data(seed=seed),)


PREDICT_METHODS = ("predict_proba", "predict", "logpdf", "transform")


def has_output(est: BaseEstimator) -> bool:
    return any(hasattr(est, m) for m in PREDICT_METHODS)


def output_of(est: BaseEstimator, args: tuple) -> Any:
    """What a fitted estimator says about data (its fitted labels if it cannot predict)."""
    data = args[0]
    if family(type(est)) == "covariates":
        return est.logpdf(args[0], args[1])
    for meth in PREDICT_METHODS:
        if hasattr(est, meth):
            return getattr(est, meth)(data)
    return est.labels_


def fitted_state(est: BaseEstimator) -> dict[str, Any]:
    """The learned attributes (trailing underscore), for equality checks."""
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_")}


def equal(a: Any, b: Any) -> bool:
    """Deep equality of fitted attributes: arrays (NaN-aware), Rankings, containers, estimators."""
    if isinstance(a, BaseEstimator) and isinstance(b, BaseEstimator):
        return type(a) is type(b) and equal(fitted_state(a), fitted_state(b))
    if isinstance(a, np.random.RandomState) and isinstance(b, np.random.RandomState):
        return equal(list(a.get_state()), list(b.get_state()))
    if isinstance(a, np.random.Generator) and isinstance(b, np.random.Generator):
        return a.bit_generator.state == b.bit_generator.state
    if isinstance(a, Rankings) or isinstance(b, Rankings):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray | np.generic | float | int) and not isinstance(a, bool):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
        except TypeError:
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    if type(a) is type(b) and hasattr(a, "__dict__") and not inspect.isroutine(a):
        return equal(vars(a), vars(b))
    if type(a) is type(b) and hasattr(type(a), "__slots__"):
        return all(equal(getattr(a, s, None), getattr(b, s, None)) for s in type(a).__slots__)
    return a == b
