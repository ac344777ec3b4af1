"""Saving and loading Bradley-Terry models: same predictions back, tampered files refused."""

from __future__ import annotations

import numpy as np
import pytest

from rankclust.pairwise import BradleyTerry, BradleyTerryMixture, Comparisons
from rankclust.persistence import load, save
from tests.reliability._hostile_models import array_key, read_model, write_model

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _data(ties: bool = False) -> Comparisons:
    # assessors 0-9 rank a > b > c, 10-19 the reverse; one tie per assessor when asked
    winner = [0, 1, 0] * 10 + [2, 1, 2] * 10
    loser = [1, 2, 2] * 10 + [1, 0, 0] * 10
    tie = ([False, False, True] * 20) if ties else None
    return Comparisons.from_arrays(
        winner, loser, assessor=np.repeat(np.arange(20), 3), tie=tie, items=["a", "b", "c"]
    )


@pytest.mark.parametrize("ties", [False, True])
def test_bradley_terry_round_trip(tmp_path, ties):
    C = _data(ties)
    bt = BradleyTerry(alpha=0.5).fit(C)
    save(bt, tmp_path / "bt.zip")
    back = load(tmp_path / "bt.zip")
    assert type(back) is BradleyTerry and back.get_params() == bt.get_params()
    assert back.items_ == ("a", "b", "c")
    pairs = [[0, 1], [1, 2], [2, 0]]
    np.testing.assert_array_equal(back.predict_proba(pairs), bt.predict_proba(pairs))
    np.testing.assert_array_equal(back.logpdf(C), bt.logpdf(C))
    np.testing.assert_array_equal(back.standard_errors(C), bt.standard_errors(C))


@pytest.mark.parametrize("ties", [False, True])
def test_mixture_round_trip(tmp_path, ties):
    C = _data(ties)
    mix = BradleyTerryMixture(2, random_state=0, n_init=2).fit(C)
    save(mix, tmp_path / "mix.zip")
    back = load(tmp_path / "mix.zip")
    assert type(back) is BradleyTerryMixture and back.get_params() == mix.get_params()
    np.testing.assert_array_equal(back.predict_proba(C), mix.predict_proba(C))
    np.testing.assert_array_equal(back.labels_, mix.labels_)
    # the stored state predicts what the fit found (the E-step of the final components)
    assert (back.predict(C) == mix.labels_).all()
    np.testing.assert_allclose(back.predict_proba(C), mix.responsibilities_, atol=1e-6)


def test_mixture_predict_refuses_other_items():
    mix = BradleyTerryMixture(2, random_state=0, n_init=1).fit(_data())
    C = Comparisons.from_arrays([0, 3], [1, 2], assessor=[0, 1])
    with pytest.raises(ValueError, match="4 items, the model 3"):
        mix.predict(C)


def _tamper(src, dst, path, change):
    meta, arrays = read_model(src)
    key = array_key(meta, *path)
    arrays[key] = change(arrays[key])
    write_model(dst, meta, arrays)


_NAN = lambda a: np.where(np.arange(a.size).reshape(a.shape) == 0, np.nan, a)  # noqa: E731
_SHORT = lambda a: a[..., :-1]  # noqa: E731


@pytest.mark.parametrize(
    "model,attr,change,fragment",
    [
        ("bt", "scores_", _NAN, "scores_: contains NaN"),
        ("bt", "scores_", _SHORT, "scores_: expected shape (3)"),
        ("bt", "_x", _SHORT, "_x: expected shape"),
        ("bt", "worths_", lambda a: -a, "worths_: value"),
        ("mix", "scores_", _NAN, "scores_: contains NaN"),
        ("mix", "scores_", _SHORT, "scores_: expected shape (2, 3)"),
        ("mix", "tie_strengths_", lambda a: a - 1.0, "tie_strengths_: value"),
        ("mix", "weights_", _SHORT, "weights_: expected shape (2)"),
        ("mix", "rankings_", lambda a: np.zeros_like(a), "rankings_: every row"),
        ("mix", "labels_", lambda a: a + 5, "labels_: value"),
    ],
)
def test_tampered_file_is_refused_in_one_line(tmp_path, model, attr, change, fragment):
    C = _data()
    est = (
        BradleyTerry(alpha=0.5).fit(C)
        if model == "bt"
        else BradleyTerryMixture(2, random_state=0, n_init=1).fit(C)
    )
    save(est, tmp_path / "ok.zip")
    _tamper(tmp_path / "ok.zip", tmp_path / "bad.zip", (attr,), change)
    with pytest.raises(ValueError) as info:
        load(tmp_path / "bad.zip")
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(tmp_path / "bad.zip")), message
    assert fragment in message, message


def test_unfitted_models_round_trip(tmp_path):
    for est in (BradleyTerry(alpha=2.0, prior="gaussian"), BradleyTerryMixture(3, alpha=0.5)):
        save(est, tmp_path / "u.zip")
        assert load(tmp_path / "u.zip").get_params() == est.get_params()


_MUTATIONS = {
    "nan": lambda a: np.full_like(a, np.nan) if a.dtype.kind == "f" else a,
    "inf": lambda a: np.full_like(a, np.inf) if a.dtype.kind == "f" else a,
    "huge": lambda a: np.full_like(a, 10**9),
    "negative": lambda a: -np.ones_like(a),
    "empty": lambda a: np.atleast_1d(a)[:0],
    "extra row": lambda a: np.concatenate([np.atleast_1d(a), np.atleast_1d(a)[:1]]),
    "flat": lambda a: a.ravel(),
    "2-d": lambda a: a.reshape(1, -1),
    "float": lambda a: a.astype(np.float64) + 0.5,
    "int": lambda a: a.astype(np.int64),
    "bool": lambda a: a.astype(bool),
}


@pytest.mark.parametrize("model", ["bt", "mix"])
def test_every_array_mutation_is_refused_or_predicts(tmp_path, model):
    """Each stored array, mutated every way above: ``load`` refuses it with a one-line
    ValueError naming the file, or the loaded model predicts without any other exception."""
    C = _data(ties=True)
    est = (
        BradleyTerry(alpha=0.5).fit(C)
        if model == "bt"
        else BradleyTerryMixture(2, random_state=0, n_init=1).fit(C)
    )
    save(est, tmp_path / "ok.zip")
    meta, arrays = read_model(tmp_path / "ok.zip")
    refused = 0
    for key in arrays:
        for name, change in _MUTATIONS.items():
            bad = dict(arrays, **{key: change(arrays[key])})
            write_model(tmp_path / "bad.zip", meta, bad)
            try:
                back = load(tmp_path / "bad.zip")
            except ValueError as exc:
                message = str(exc)
                assert "\n" not in message and message.startswith(str(tmp_path)), message
                refused += 1
                continue
            # accepted: then it must predict (or refuse the input) cleanly
            try:
                if model == "bt":
                    out = back.predict_proba([[0, 1], [1, 2]])
                    back.logpdf(C)
                else:
                    out = back.predict_proba(C)
            except ValueError:
                continue
            assert np.isfinite(out).all(), (key, name)
    assert refused >= len(arrays) * 5  # most mutations are refused
