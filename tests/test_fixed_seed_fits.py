"""Fixed-seed fits recorded before the run records and the shared prologues were consolidated.

Every estimator whose restart bookkeeping, fit prologue or long fit was reorganised must give
the same fit for the same ``random_state``: labels (as a digest), objectives and curves (as
two sums, compared to 1e-9 relative) recorded from the code before the change, kept in
``test_fixed_seed_fits.json``.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from pathlib import Path

import numpy as np
import pytest


def digest(a):
    a = np.asarray(a)
    if a.dtype.kind in "iub":
        return hashlib.sha256(np.ascontiguousarray(a.astype(np.int64)).tobytes()).hexdigest()[:16]
    raise TypeError(a.dtype)


def fsum(a):
    """Two floats that change with any value of a float array."""
    a = np.asarray(a, dtype=np.float64).ravel()
    return [float(a.sum()), float((a * np.arange(1, a.size + 1)).sum())]


def _chains():
    from rankclust.cluster import make_planted_chains

    R, _ = make_planted_chains(
        80, n_items=8, length=(2, 6), n_clusters=3, n_buckets=3, random_state=1
    )
    return R


def _supervised(p_missing=0.2, seed=0):

    rng = np.random.default_rng(seed)
    orders = np.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]])
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    y = np.repeat(np.arange(3), 30)
    X = centres[y] + rng.normal(0, 1.0, (y.size, 2))
    pos = np.argsort(orders[y], axis=1)
    # noise: swap two adjacent positions in a third of the rows
    for i in np.flatnonzero(rng.random(y.size) < 0.3):
        a = rng.integers(0, 4)
        u, v = np.flatnonzero(pos[i] == a)[0], np.flatnonzero(pos[i] == a + 1)[0]
        pos[i, u], pos[i, v] = a + 1, a
    drop = rng.random(pos.shape) < p_missing
    ranks = np.where(drop, 0, pos + 1)
    return X, ranks


def _ordinal(seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), 15)
    X = rng.normal(0, 1, (45, 2))
    X[:, 0] += 2.5 * y
    ml = np.array([[0, 1], [15, 16], [30, 31]])
    cl = np.array([[0, 15], [15, 30], [2, 44]])
    pairs = np.array([[30, 0], [31, 16], [20, 3]])
    return X, ml, cl, pairs


def _chain_record(est):
    """What a chain clusterer's fit is compared on (ChainKMeans adds its centroids)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(_chains())
    out = {
        "labels": digest(est.labels_),
        "objective": [est.objective_],
        "n_iter": est.n_iter_,
        "n_init": est.n_init_,
        "agree": est.n_init_agreeing_,
    }
    if hasattr(est, "centroids_"):
        out["centroids"] = fsum(est.centroids_)
    return out


def case_chainkmeans(init, n_init):
    from rankclust.cluster import ChainKMeans

    return _chain_record(ChainKMeans(3, init=init, n_init=n_init, max_init=30, random_state=3))


def case_komeans(n_init, init):
    from rankclust.cluster import KOMeans

    return _chain_record(KOMeans(3, n_init=n_init, init=init, max_init=30, random_state=3))


def _sup_record(est, X):
    out = {
        "labels": digest(est.labels_),
        "centers": digest(est.central_rankings_.ranks),
        "predict": digest(est.predict_ranking(X)),
    }
    for name in ("train_loss_", "sigma_", "sigma0_"):
        if hasattr(est, name):
            out[name] = [float(getattr(est, name))]
    for name in ("loss_curve_", "nll_curve_", "scores_", "prototypes_", "validation_loss_curve_"):
        if getattr(est, name, None) is not None:
            out[name] = fsum(getattr(est, name))
    for name in ("n_iter_", "best_epoch_", "n_init_agreeing_"):
        if hasattr(est, name):
            out[name] = int(getattr(est, name))
    return out


def case_supervised(name, **kw):
    import rankclust.supervised as sup

    X, Y = _supervised()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = getattr(sup, name)(random_state=4, **kw).fit(X, Y)
    return _sup_record(est, X)


def case_ordinal(name, **kw):
    import rankclust.ordinal as od

    X, ml, cl, pairs = _ordinal()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = getattr(od, name)(3, random_state=5, **kw)
        if name == "M2SORC":
            est.fit(X, pairs=pairs)
        else:
            est.fit(X, must_link=ml, cannot_link=cl)
    return {"labels": digest(est.labels_), "predict": digest(est.predict(X + 0.1))}


def case_label_ranking(name, **kw):
    import rankclust.label_ranking as lr

    X, Y = _supervised(p_missing=0.1, seed=2)
    kw = dict(kw)
    est = getattr(lr, name)(**kw).fit(X, Y)
    return {"predict": digest(est.predict(X + 0.05))}


def case_generator(name, **kw):
    import rankclust.datasets as ds

    out = getattr(ds, name)(random_state=6, **kw)
    R = out[0] if isinstance(out, tuple) else out
    rest = [digest(o) for o in out[1:]] if isinstance(out, tuple) else []
    return {"ranks": digest(R.ranks), "rest": rest}


CASES = {
    "chain_random_partition_3": (case_chainkmeans, ("random_partition", 3)),
    "chain_random_orders_3": (case_chainkmeans, ("random_orders", 3)),
    "chain_kmeanspp_auto": (case_chainkmeans, ("k-means++", "auto")),
    "chain_hypersphere_2": (case_chainkmeans, ("hypersphere", 2)),
    "chain_random_partition_auto": (case_chainkmeans, ("random_partition", "auto")),
    "komeans_3_random": (case_komeans, (3, "random_partition")),
    "komeans_auto_pp": (case_komeans, ("auto", "k-means++")),
    "ranktree_iterate_3": (
        case_supervised,
        ("RankTree",),
        {"n_clusters": 3, "n_init": 3, "min_node": 3},
    ),
    "ranktree_iterate_noval": (
        case_supervised,
        ("RankTree",),
        {"n_clusters": 3, "n_init": 2, "validation_fraction": None},
    ),
    "ranktree_prune": (case_supervised, ("RankTree",), {"n_clusters": 3, "mode": "prune"}),
    "plmix": (
        case_supervised,
        ("PrototypePLMixture",),
        {"n_clusters": 3, "n_prototypes_per_cluster": 2, "max_epochs": 12},
    ),
    "plmix_loss_batch": (
        case_supervised,
        ("PrototypePLMixture",),
        {
            "n_clusters": 3,
            "n_prototypes_per_cluster": 2,
            "max_epochs": 8,
            "stop_on": "loss",
            "e_step": "batch",
            "m_step": "v2",
        },
    ),
    "plmix_val": (
        case_supervised,
        ("PrototypePLMixture",),
        {
            "n_clusters": 3,
            "n_prototypes_per_cluster": 2,
            "max_epochs": 10,
            "validation_fraction": 0.3,
            "validation_window": 1,
        },
    ),
    "featurekmeans": (case_supervised, ("FeatureKMeansRanking",), {"n_clusters": 3}),
    "naivekmeans": (case_supervised, ("NaiveKMeans",), {"n_clusters": 3}),
    "rankclusteringtree": (case_supervised, ("RankClusteringTree",), {"n_clusters": 3}),
    "mpckmeans": (case_ordinal, ("MPCKMeans",)),
    "cpmmc": (case_ordinal, ("CPMMC",)),
    "cpcmmc": (case_ordinal, ("CPCMMC",)),
    "wsvorc": (case_ordinal, ("WSVORC",)),
    "smmcpc": (case_ordinal, ("SMMCPC",)),
    "m2sorc": (case_ordinal, ("M2SORC",), {"n_init": 2}),
    "lr_cc": (case_label_ranking, ("ConstraintClassification",), {"random_state": 0}),
    "lr_pairwise": (case_label_ranking, ("PairwiseLabelRanker",)),
    "lr_consensus": (case_label_ranking, ("ConsensusLabelRanker",)),
    "lr_tree": (case_label_ranking, ("LabelRankingTree",), {"random_state": 0}),
    "gen_mallows": (
        case_generator,
        ("make_mallows_mixture",),
        {"n_samples": 50, "n_items": 6, "n_clusters": 2, "lengths": 4},
    ),
    "gen_pl": (
        case_generator,
        ("make_plackett_luce_mixture",),
        {"n_samples": 50, "n_items": 6, "n_clusters": 2, "lengths": 4},
    ),
}


def _run(name):
    spec = CASES[name]
    fn, args = spec[0], spec[1]
    kw = spec[2] if len(spec) > 2 else {}
    return fn(*args, **kw)


#: The recorded fits (labels as digests, floats as sums), one entry per case.
EXPECTED = json.loads(Path(__file__).with_suffix(".json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_fit_is_the_recorded_one(name):
    got = _run(name)
    want = EXPECTED[name]
    assert set(got) == set(want)
    for key, value in want.items():
        if isinstance(value, list) and value and isinstance(value[0], float):
            assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
        else:
            assert got[key] == value, key
