"""Item names end to end: alignment by name at prediction, names of predicted rankings, unseen
labels, and names in saved models (the rule lives in :func:`rankclust.rankings.check_rankings`).
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.persistence import RANKCLUST_CLASSES, load, save
from rankclust.rankings import check_rankings
from tests.conftest import random_rankings

ITEMS = ("apple", "kiwi", "fig", "lime", "pear")


def _registered(prefixes: tuple[str, ...]) -> dict[str, type]:
    """Registered estimator classes of the given packages, by class name."""
    out = {}
    for path in RANKCLUST_CLASSES:
        module, name = path.split(":")
        if module.startswith(prefixes) and not module.rsplit(".", 1)[1].startswith("_"):
            out[name] = getattr(importlib.import_module(module), name)
    return out


# ------------------------------------------------------------------ the rule itself
def test_check_rankings_aligns_by_name():
    R = Rankings([[0, 1, 2], [2, 0, 1]], items=["a", "b", "c"])
    shuffled = Rankings(R.ranks[:, [2, 0, 1]], items=["c", "a", "b"])
    got = check_rankings(shuffled, items=("a", "b", "c"))
    assert got == R and got.items == ("a", "b", "c")
    assert check_rankings(R, items=("a", "b", "c")) is R  # same order: untouched


def test_check_rankings_refuses_unknown_and_missing_names_in_one_line():
    R = Rankings([[0, 1, 2]], items=["a", "b", "zz"])
    with pytest.raises(ValueError, match=r"unknown item\(s\) 'zz'; missing item\(s\) 'c'") as e:
        check_rankings(R, items=("a", "b", "c"))
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match=r"missing item\(s\) 'c'"):
        check_rankings(Rankings([[0, 1]], items=["b", "a"]), items=("a", "b", "c"))


def test_unnamed_data_is_taken_by_position():
    ranks = [[1, 2, 3], [3, 1, 2]]
    got = check_rankings(ranks, items=("a", "b", "c"), n_items=3)
    assert got.items is None
    np.testing.assert_array_equal(got.ranks, np.array(ranks) - 1)
    with pytest.raises(ValueError, match="has 2 items, expected 3"):
        check_rankings([[1, 2]], items=("a", "b", "c"), n_items=3)


def test_dataframe_keeps_its_column_names():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame([[1, 2, 0], [2, 1, 3]], columns=["a", "b", "c"])
    R = check_rankings(df)
    assert R.items == ("a", "b", "c")
    back = check_rankings(df[["c", "a", "b"]], items=("a", "b", "c"))
    assert back == R


class _Frame:
    """The two attributes of a pandas DataFrame that check_rankings reads (pandas is optional)."""

    def __init__(self, values, columns):
        self.values, self.columns = np.asarray(values), list(columns)

    def to_numpy(self):
        return self.values

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)


def test_frame_like_label_data_keeps_its_column_names():
    from rankclust.supervised import OneRank

    X, Y = _label_data()
    frame = _Frame(Y.to_ranks(), ITEMS)
    est = OneRank().fit(X, frame)
    assert est.items_ == ITEMS and est.central_rankings_.items == ITEMS
    from rankclust.label_ranking import ConsensusLabelRanker

    assert ConsensusLabelRanker().fit(X, frame).predict_rankings(X[:2]).items == ITEMS


# ------------------------------------------------------------------ clusterers and models
def _ranking_cases() -> dict[str, object]:
    from rankclust.cluster import (
        ChainKMeans,
        KOMeans,
        MallowsMixture,
        PlackettLuceMixture,
        RestrictedLengthMixture,
    )
    from rankclust.models.mallows import Mallows
    from rankclust.models.plackett_luce import PlackettLuce
    from rankclust.models.plackett_luce_covariates import ItemCovariatePlackettLuce

    return {
        "ChainKMeans": lambda: ChainKMeans(3, n_init=2, random_state=0),
        "KOMeans": lambda: KOMeans(3, n_init=2, random_state=0),
        "MallowsMixture": lambda: MallowsMixture(3, random_state=0),
        "PlackettLuceMixture": lambda: PlackettLuceMixture(3, random_state=0),
        "RestrictedLengthMixture": lambda: RestrictedLengthMixture(),
        "Mallows": lambda: Mallows(),
        "PlackettLuce": lambda: PlackettLuce(),
        "ItemCovariatePlackettLuce": lambda: ItemCovariatePlackettLuce(),
    }


_PREDICTORS = ("predict", "predict_proba", "logpdf", "score_samples", "transform")


#: models of rankings given covariates of the rankers (``fit(R, X)``, ``logpdf(R, X)``), each
#: with its own alignment test below
_COVARIATE_CASES = ("PlackettLuceTree",)


def test_every_ranking_predictor_is_covered():
    """Every registered clusterer or model with predict/logpdf is in the alignment test."""
    found = {
        name
        for name, cls in _registered(("rankclust.cluster", "rankclust.models")).items()
        if hasattr(cls, "predict") or hasattr(cls, "logpdf")
    }
    assert found == set(_ranking_cases()) | set(_COVARIATE_CASES)


def test_plackett_luce_tree_aligns_items_by_name(tmp_path):
    from rankclust.models import PlackettLuce, PlackettLuceTree

    rng = np.random.default_rng(0)
    X = np.c_[np.arange(200) % 2, rng.normal(size=200)]
    a, b = (PlackettLuce.from_params(scores=z).sample(200, random_state=s)
            for z, s in (([1.0, 0.5, 0.0, -0.5, -1.0], 1), ([-1.0, -0.5, 0.0, 0.5, 1.0], 2)))  # fmt: skip
    R0 = Rankings(np.where(X[:, :1] == 1, a.ranks, b.ranks))
    R = Rankings(R0.ranks, items=ITEMS)
    tree = PlackettLuceTree(min_samples_leaf=20).fit(R, X)
    assert tree.items_ == ITEMS and tree.n_leaves_ >= 2
    perm = [3, 0, 4, 2, 1]
    shuffled = Rankings(R.ranks[:, perm], items=[ITEMS[p] for p in perm])
    want = tree.logpdf(R, X)
    np.testing.assert_allclose(tree.logpdf(shuffled, X), want)
    np.testing.assert_allclose(tree.logpdf(R0, X), want)  # unnamed: by position
    renamed = Rankings(R.ranks, items=("apple", "kiwi", "fig", "lime", "plum"))
    with pytest.raises(ValueError, match=r"unknown item\(s\) 'plum'; missing item\(s\) 'pear'"):
        tree.logpdf(renamed, X)
    assert all(model.items_ == ITEMS for model in tree.node_models_)
    save(tree, tmp_path / "m.zip")
    back = load(tmp_path / "m.zip")
    assert back.items_ == ITEMS
    np.testing.assert_allclose(back.logpdf(shuffled, X), want)


def _outputs(est, R):
    return {m: np.asarray(getattr(est, m)(R)) for m in _PREDICTORS if hasattr(est, m)}


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", sorted(_ranking_cases()))
def test_reordered_columns_give_the_same_predictions(name, tmp_path):
    rng = np.random.default_rng(0)
    R0 = random_rankings(rng, 40, len(ITEMS), p_missing=0.2, min_length=2)
    R = Rankings(R0.ranks, items=ITEMS)
    est = _ranking_cases()[name]().fit(R)
    assert est.items_ == ITEMS
    perm = [3, 0, 4, 2, 1]
    shuffled = Rankings(R.ranks[:, perm], items=[ITEMS[p] for p in perm])
    want = _outputs(est, R)
    assert want  # every case predicts something
    for method, value in _outputs(est, shuffled).items():
        np.testing.assert_allclose(value, want[method], err_msg=method)
    # unnamed data: by position
    for method, value in _outputs(est, R0).items():
        np.testing.assert_allclose(value, want[method], err_msg=method)
    # an unknown name is refused whatever the method
    renamed = Rankings(R.ranks, items=("apple", "kiwi", "fig", "lime", "plum"))
    first = next(m for m in _PREDICTORS if hasattr(est, m))
    with pytest.raises(ValueError, match=r"unknown item\(s\) 'plum'; missing item\(s\) 'pear'"):
        getattr(est, first)(renamed)
    # the names survive a save/load and still align
    save(est, tmp_path / "m.zip")
    back = load(tmp_path / "m.zip")
    assert back.items_ == ITEMS
    for method, value in _outputs(back, shuffled).items():
        np.testing.assert_allclose(value, want[method], err_msg=method)


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", ["ChainKMeans", "KOMeans", "MallowsMixture"])
def test_centers_carry_the_names(name):
    R = Rankings(random_rankings(np.random.default_rng(1), 30, 5).ranks, items=ITEMS)
    assert _ranking_cases()[name]().fit(R).centers_.items == ITEMS


# ------------------------------------------------------------------ label rankers, supervised
def _label_cases() -> dict[str, type]:
    return _registered(("rankclust.label_ranking", "rankclust.supervised"))


def _small(cls):
    params = cls().get_params(deep=False)
    small = {"n_clusters": 2, "n_init": 1, "max_iter": 20, "random_state": 0}
    return cls(**{k: v for k, v in small.items() if k in params})


def test_the_label_cases_are_all_the_estimators():
    import rankclust.label_ranking as lr
    import rankclust.supervised as sup

    public = {n for mod in (lr, sup) for n in mod.__all__ if isinstance(getattr(mod, n), type)}
    public.discard("IBLR")  # an alias of IBLRMallows
    assert set(_label_cases()) == public
    assert len(public) == 14


#: label rankers that predict rankings with ties (every label ranked, buckets allowed)
PARTIAL = {"DecisionTreePartialLabelRanker", "KNeighborsPartialLabelRanker"}


def _label_data(unseen: int | None = None):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    R = random_rankings(rng, 60, len(ITEMS), p_missing=0.2, min_length=2)
    ranks = R.ranks.copy()
    if unseen is not None:
        ranks[:, unseen] = -1
        # keep two labels in every row
        short = (ranks >= 0).sum(axis=1) < 2
        ranks[short] = np.where(np.arange(5) == unseen, -1, np.arange(5) - (np.arange(5) > unseen))
    return X, Rankings(ranks, items=ITEMS)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", sorted(_label_cases()))
def test_label_names_are_kept(name, tmp_path):
    X, Y = _label_data()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        est = _small(_label_cases()[name]).fit(X, Y)
    assert not [w for w in seen if "no training ranking" in str(w.message)]
    assert est.items_ == ITEMS
    assert est.unseen_items_.tolist() == []
    if hasattr(est, "central_rankings_"):
        assert est.central_rankings_.items == ITEMS
    pred = est.predict_rankings(X[:7])
    assert isinstance(pred, Rankings) and pred.items == ITEMS
    assert (pred.lengths == len(ITEMS)).all() if name in PARTIAL else pred.is_complete
    ranks = est.predict_ranking(X[:7]) if hasattr(est, "predict_ranking") else est.predict(X[:7])
    np.testing.assert_array_equal(pred.ranks, ranks - 1)
    # score matches the true rankings to the labels by name
    perm = [2, 4, 0, 1, 3]
    Y_shuffled = Rankings(Y.ranks[:, perm], items=[ITEMS[p] for p in perm])
    assert est.score(X, Y_shuffled) == pytest.approx(est.score(X, Y))
    save(est, tmp_path / "m.zip")
    back = load(tmp_path / "m.zip")
    assert back.items_ == ITEMS
    assert back.predict_rankings(X[:7]) == pred


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.filterwarnings("error:X does not have valid feature names:UserWarning")
@pytest.mark.parametrize("name", sorted(_label_cases()))
def test_dataframes_in_keep_both_kinds_of_names(name):
    # features and labels as DataFrames: the label names are kept, and neither fit nor
    # predict checks the feature names against a bare array (LabelRankingTree's size search
    # once did, and warned on every fit)
    pd = pytest.importorskip("pandas")
    X, Y = _label_data()
    X_df = pd.DataFrame(X, columns=["age", "income", "region"])
    Y_df = Y.to_dataframe()
    est = _small(_label_cases()[name]).fit(X_df, Y_df)
    assert est.items_ == ITEMS
    assert est.predict_rankings(X_df[:4]).items == ITEMS


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", sorted(_label_cases()))
def test_unseen_label_is_flagged_and_not_ranked_as_known(name, tmp_path):
    X, Y = _label_data(unseen=1)  # "kiwi" is in no training ranking
    with pytest.warns(UserWarning, match="kiwi appear in no training ranking"):
        est = _small(_label_cases()[name]).fit(X, Y)
    assert est.unseen_items_.tolist() == [1]
    ranks = est.predict_ranking(X) if hasattr(est, "predict_ranking") else est.predict(X)
    if name in PARTIAL:  # the unseen label alone in the last bucket
        assert (ranks[:, 1] == ranks.max(axis=1)).all()
        assert (ranks[:, 1] > np.delete(ranks, 1, axis=1).max(axis=1)).all()
    else:
        assert (ranks[:, 1] == len(ITEMS)).all()  # placed last, every row
        assert (np.sort(ranks, axis=1) == np.arange(1, 6)).all()  # still complete rankings
    pred = est.predict_rankings(X)
    assert (pred.ranks[:, 1] == -1).all() and (pred.lengths == 4).all()
    kept = [0, 2, 3, 4]
    np.testing.assert_array_equal(pred.ranks[:, kept], ranks[:, kept] - 1)
    if hasattr(est, "central_rankings_"):
        assert (est.central_rankings_.ranks[:, 1] == len(ITEMS) - 1).all()
    save(est, tmp_path / "m.zip")
    back = load(tmp_path / "m.zip")
    assert back.unseen_items_.tolist() == [1]
    assert back.predict_rankings(X) == pred


def test_loaded_state_refuses_bad_names(tmp_path):
    from rankclust.supervised import OneRank

    X, Y = _label_data()
    est = OneRank().fit(X, Y)
    est.items_ = ("a", "a", "b", "c", "d")
    save(est, tmp_path / "m.zip")
    with pytest.raises(ValueError, match="items_: an item name appears more than once"):
        load(tmp_path / "m.zip")
    est = OneRank().fit(X, Y)
    est.unseen_items_ = np.array([7])
    save(est, tmp_path / "m.zip")
    with pytest.raises(ValueError, match="unseen_items_"):
        load(tmp_path / "m.zip")


def test_models_saved_without_names_still_load(tmp_path):
    """A model file written before items_/unseen_items_ existed loads unnamed."""
    import json
    import zipfile

    from rankclust.cluster import MallowsMixture
    from rankclust.supervised import OneRank

    X, Y = _label_data()
    R = Rankings(random_rankings(np.random.default_rng(0), 30, 5).ranks, items=ITEMS)
    for est in (OneRank().fit(X, Y), MallowsMixture(2, random_state=0).fit(R)):
        path = tmp_path / "m.zip"
        save(est, path)
        with zipfile.ZipFile(path) as zf:
            meta = json.loads(zf.read("model.json"))
            npz = zf.read("arrays.npz")
        state = meta["model"]["state"]
        for key in ("items_", "unseen_items_", "central_rankings_", "centers_"):
            if key in ("central_rankings_", "centers_") and key in state:
                state[key]["__rankings__"]["items"] = None
            else:
                state.pop(key, None)
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("model.json", json.dumps(meta))
            zf.writestr("arrays.npz", npz)
        back = load(path)
        assert back.items_ is None
        first = "predict_rankings" if hasattr(back, "predict_rankings") else "predict"
        arg = X[:3] if first == "predict_rankings" else Rankings(R.ranks[:3])
        getattr(back, first)(arg)
