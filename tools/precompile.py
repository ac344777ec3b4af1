"""Compile (and cache) the numba kernels that ``rankclust demo`` uses, in two processes.

numba compiles a kernel at its first call and caches it on disk (``cache=True``); the first
``rankclust demo`` on a fresh install spends most of its time compiling, one kernel after
another on one core. ``make demo`` runs this script once after installing: the same calls as
the demo, split into two jobs of similar compile time (the label-ranking and supervised trees;
everything else) run in parallel, so the demo itself then only loads the cache. Run:
``python tools/precompile.py`` (prints the wall time of each job).
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np


def _glass():
    from sklearn.model_selection import train_test_split

    from rankclust.cli.commands import demo
    from rankclust.datasets import load_label_ranking
    from rankclust.rankings import Rankings

    X, Y = load_label_ranking(demo._DEMO_LABEL_SET)
    Y = Rankings(Y.ranks, kind=Y.kind, items=[f"label {j + 1}" for j in range(Y.n_items)])
    train, test = train_test_split(np.arange(len(X)), test_size=0.3, random_state=0)
    return X, Y, train, test


def _label_rankers(names) -> None:
    from rankclust.cli._methods import make_estimator, method_registry
    from rankclust.cli.commands._evaluation import ranking_score

    X, Y, train, test = _glass()
    rankers = method_registry("labelrank")
    for name in names:
        method = rankers[name]
        est = make_estimator(method.load(), random_state=0, fixed=method.params)
        ranking_score(est.fit(X[train], Y[train]), X[test], Y[test])


def _trees() -> None:
    """The label-ranking tree and the demo's supervised clustering (tree kernels)."""
    from rankclust.cli._methods import make_estimator, resolve_method
    from rankclust.cli.commands import demo
    from rankclust.cli.commands._evaluation import ranking_score

    _label_rankers([n for n in demo._DEMO_LABEL_RANKERS if n == "lrt"])
    X, Y, train, test = _glass()
    method, cls = resolve_method("supervise", demo._DEMO_SUPERVISED)
    est = make_estimator(cls, n_clusters=3, random_state=0, fixed=method.params)
    est.fit(X[train], Y[train])
    ranking_score(est, X[test], Y[test], predict="predict_ranking")
    est.fit(X, Y)


def _rest() -> None:
    """Ranking models, the mixture's model selection and the other label rankers."""
    import importlib

    from rankclust.cli._methods import make_estimator, resolve_method
    from rankclust.cli.commands import demo
    from rankclust.models import Mallows, PlackettLuce

    _, Y, _, _ = _glass()
    for cls in (Mallows, PlackettLuce):
        cls().fit(Y)
    Y.pairwise_counts()
    R, _, _ = demo._demo_ballots(0)
    _, cls = resolve_method("cluster", demo._DEMO_CLUSTERER)
    select_k = importlib.import_module(cls.__module__).select_k
    best = select_k(
        make_estimator(cls, n_clusters=1, random_state=0, n_init=2), R, ks=[1, 2, 3],
        criterion="bic",
    )  # fmt: skip
    del best
    _label_rankers([n for n in demo._DEMO_LABEL_RANKERS if n != "lrt"])


def _timed(job: str) -> tuple[str, float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    {"trees": _trees, "rest": _rest}[job]()
    return job, time.perf_counter() - t0, time.process_time() - c0


def main() -> int:
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        for job, wall, cpu in pool.map(_timed, ["trees", "rest"]):
            print(f"precompile: {job} {wall:.1f} s ({cpu:.1f} s CPU)", file=sys.stderr)
    print(f"precompile: {time.perf_counter() - t0:.1f} s in all", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
