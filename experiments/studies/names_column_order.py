"""Do predictions follow item names? Two measurements over every estimator of the package.

1. Column order: the same 40 rankings over 5 named items, once with the columns in fit order
   and once in another order (names permuted with them). Counts the rows whose cluster label
   (``predict``) or log-probability (``logpdf``) changes, for every registered clusterer or
   ranking model with ``predict`` or ``logpdf``.
2. Unseen label: label-ranking data over 4 labels where label 1 is in no training ranking.
   Counts, for every label ranker and supervised clusterer, the predicted rows that do not
   put it last, and whether ``fit`` warned.

Run: ``python experiments/studies/names_column_order.py`` (a few seconds).
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np

from rankclust import Rankings
from rankclust.persistence import RANKCLUST_CLASSES

_SMALL = {"n_clusters": 3, "n_components": 3, "random_state": 0}


def _classes(prefixes):
    out = {}
    for path in sorted(RANKCLUST_CLASSES):
        module, name = path.split(":")
        if module.startswith(prefixes) and not module.rsplit(".", 1)[1].startswith("_"):
            out[name] = getattr(importlib.import_module(module), name)
    return out


def _make(cls, **extra):
    params = cls().get_params(deep=False)
    return cls(**{k: v for k, v in {**_SMALL, **extra}.items() if k in params})


def column_order() -> None:
    rng = np.random.default_rng(0)
    m, n = 5, 40
    items = [f"c{j}" for j in range(m)]
    ranks = np.array([rng.permutation(m) for _ in range(n)])
    R = Rankings(ranks, items=items)
    perm = rng.permutation(m)
    shuffled = Rankings(ranks[:, perm], items=[items[p] for p in perm])
    print("| estimator | method | rows changed by reordering the columns |")
    print("|---|---|---|")
    for name, cls in _classes(("rankclust.cluster", "rankclust.models")).items():
        if not (hasattr(cls, "predict") or hasattr(cls, "logpdf")):
            continue
        est = _make(cls).fit(R)
        method = "predict" if hasattr(est, "predict") else "logpdf"
        try:
            a, b = getattr(est, method)(R), getattr(est, method)(shuffled)
            changed = int((~np.isclose(a, b)).sum())
            print(f"| {name} | {method} | {changed} of {n} |")
        except ValueError as exc:
            print(f"| {name} | {method} | refused: {exc} |")


def unseen_label() -> None:
    rng = np.random.default_rng(3)
    n, m = 60, 4
    X = rng.normal(size=(n, 3))
    ranks = np.array([rng.permutation(m) for _ in range(n)])
    ranks[:, 1] = -1  # Rankings renumbers the positions densely
    Y = Rankings(ranks, items=["a", "b", "c", "d"])
    print("\n| estimator | fit warns | rows not placing the unseen label last | its mean rank |")
    print("|---|---|---|---|")
    for name, cls in _classes(("rankclust.label_ranking", "rankclust.supervised")).items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = _make(cls, n_clusters=2).fit(X, Y)
        warned = any("no training ranking" in str(w.message) for w in caught)
        pred = est.predict_ranking(X) if hasattr(est, "predict_ranking") else est.predict(X)
        pred = np.asarray(pred)
        bad = int((pred[:, 1] != m).sum())
        print(f"| {name} | {'yes' if warned else 'no'} | {bad} of {n} | {pred[:, 1].mean():.2f} |")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    column_order()
    unseen_label()
