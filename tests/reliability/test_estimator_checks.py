"""Conformance of every rankclust estimator to the scikit-learn estimator contract.

Two layers:

1. ``check_estimator`` runs scikit-learn's own checks on every discovered estimator (see
   ``_estimators.discover``; new estimators are picked up automatically). The checks that
   cannot apply are listed, with the reason, in :data:`EXCLUDED` (per family) and are
   expected failures, strictly: a listed check that starts to pass fails the suite, so the
   table stays true. ``docs/reliability.md`` prints the resulting table.
2. For the estimators whose input is a :class:`~rankclust.Rankings` (most of scikit-learn's
   checks feed float features, see :data:`EXCLUDED`), the same properties are tested here
   directly on ranking data: fit returns self, parameters untouched, clone, get/set_params,
   pickling, not-fitted errors, predictions unchanged by order and subsetting, the estimator
   left unchanged by predict.

Reproducibility (``random_state``) is in ``test_reproducibility.py``.
"""

from __future__ import annotations

import copy
import inspect
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import check_estimator

from rankclust import Rankings
from tests.reliability._estimators import (
    discover,
    equal,
    family,
    fit_args,
    fitted_state,
    has_output,
    make,
    output_of,
)

ESTIMATORS = discover()

_RANKS_INPUT = (
    "fits on a float feature matrix; the input of this estimator is rankings (a Rankings or "
    "1-based integer ranks), so fit refuses it ('rank ... is not an integer')"
)
_Y_INPUT = (
    "scikit-learn's generated y is a 1-d class vector; Y here is a ranking of at least 2 "
    "labels per sample (a 2-d rank matrix or Rankings), so fit refuses it"
)
_COVERED = "; the property is tested on ranking data in {}"

#: Checks that do not apply, per family, with the reason (and where the property is tested).
EXCLUDED: dict[str, dict[str, str]] = {
    "rankings": {
        "check_fit_score_takes_y": _RANKS_INPUT + _COVERED.format("test_ranking_fit_contract"),
        "check_estimators_overwrite_params": _RANKS_INPUT
        + _COVERED.format("test_ranking_fit_contract"),
        "check_dont_overwrite_parameters": _RANKS_INPUT
        + _COVERED.format("test_ranking_fit_contract"),
        "check_estimators_fit_returns_self": _RANKS_INPUT
        + _COVERED.format("test_ranking_fit_contract"),
        "check_readonly_memmap_input": _RANKS_INPUT
        + "; Rankings.ranks is itself read-only, so every fit in this suite runs on read-only "
        "input",
        "check_n_features_in_after_fitting": _RANKS_INPUT
        + "; rankings estimators record n_items_ (checked in test_ranking_fit_contract)",
        "check_n_features_in": _RANKS_INPUT + "; see n_items_ in test_ranking_fit_contract",
        "check_positive_only_tag_during_fit": _RANKS_INPUT,
        "check_estimators_dtypes": _RANKS_INPUT
        + "; integer and float rank dtypes are fuzzed in test_fuzz_rankings",
        "check_sample_weights_not_an_array": _RANKS_INPUT
        + " (and the ties it makes); sample_weight as a list is tested in "
        "test_fuzz_estimators",
        "check_sample_weights_list": _RANKS_INPUT,
        "check_sample_weights_pandas_series": _RANKS_INPUT
        + " (and the ties it makes)"
        + _COVERED.format("test_sample_weight_as_pandas_series"),
        "check_all_zero_sample_weights_error": _RANKS_INPUT
        + _COVERED.format("test_fuzz_estimators::test_sample_weight_hostile"),
        "check_sample_weights_shape": _RANKS_INPUT,
        "check_sample_weights_not_overwritten": _RANKS_INPUT,
        "check_sample_weight_equivalence_on_dense_data": _RANKS_INPUT
        + "; weighted == repeated data is tested in test_numerical_robustness",
        "check_complex_data": "the message is rankclust's 'ranks must be numeric, got dtype "
        "complex128' (a clean TypeError), not scikit-learn's wording",
        "check_dtype_object": "object arrays are refused by Rankings ('ranks must be "
        "numeric'), by design: ranks are integers",
        "check_estimators_empty_data_messages": "rankclust's message names the rankings ('R "
        "has no items' / 'no rankings'), not scikit-learn's feature wording; empty data are "
        "fuzzed in test_fuzz_estimators",
        "check_pipeline_consistency": _RANKS_INPUT,
        "check_estimators_nan_inf": "NaN is the documented missing-rank marker of the 1-based "
        "rank format (and the check's floats are not ranks); inf is refused by Rankings",
        "check_estimators_pickle": _RANKS_INPUT + _COVERED.format("test_pickle_round_trip"),
        "check_f_contiguous_array_estimator": _RANKS_INPUT
        + "; Rankings stores a C-contiguous copy",
        "check_methods_sample_order_invariance": _RANKS_INPUT
        + _COVERED.format("test_ranking_predictions_order_and_subset_invariant"),
        "check_methods_subset_invariance": _RANKS_INPUT
        + _COVERED.format("test_ranking_predictions_order_and_subset_invariant"),
        "check_fit2d_1sample": "the 1-sample message is rankclust's, about ranks; a single "
        "ranking is fuzzed in test_fuzz_estimators",
        "check_fit2d_1feature": "one feature = one item: the message is rankclust's, about "
        "ranks; m = 1 is fuzzed in test_fuzz_estimators",
        "check_dict_unchanged": _RANKS_INPUT + _COVERED.format("test_predict_leaves_state"),
        "check_fit_idempotent": _RANKS_INPUT
        + _COVERED.format("test_reproducibility::test_refit_is_idempotent"),
        "check_fit_check_is_fitted": _RANKS_INPUT + _COVERED.format("test_not_fitted_error"),
        "check_fit2d_predict1d": _RANKS_INPUT,
    },
    "supervised": {},  # filled below: every check that fits with a generated y
    "label_ranking": {},
    "features": {},
}
_Y_CHECKS = (
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_pipeline_consistency",
    "check_estimators_nan_inf",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_predict1d",
)
EXCLUDED["supervised"] = {
    c: _Y_INPUT + "; the property is tested with (X, Y) data in this module and "
    "test_reproducibility"
    for c in _Y_CHECKS
}
#: fit(R, X): scikit-learn's generated X is read as rankings first and refused as for the
#: rankings family; the properties are tested on rankings with covariates in this module
EXCLUDED["covariates"] = dict(EXCLUDED["rankings"])
_K1 = (
    "scikit-learn sets n_clusters=1; ordinal clustering needs at least 2 ordered clusters, "
    "refused by the parameter constraint (a clean ValueError)"
)
_K1_CHECKS = (
    "check_dont_overwrite_parameters",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
    "check_fit2d_predict1d",
)

_RANKS_TRANSFORM = (
    _RANKS_INPUT
    + "; the same property (fit_transform == fit().transform, deterministic for a seed, "
    "n_samples rows, a ValueError for a wrong number of items) is tested on rankings, rank "
    "arrays with 0 or NaN, nested lists and read-only arrays in {}::"
    "test_transformer_contract_on_ranking_inputs"
)
_RANKS_CLUSTERING = (
    _RANKS_INPUT
    + "; the same properties (labels_ int of shape (n,), fit_predict == labels_, labels "
    "0..K-1 with noise rows added, ARI > 0.9 on planted clusters) are tested on chains in "
    "{}::test_clusterer_contract_on_rankings"
)


def _ranking_transformer_clusterer(test_module: str) -> dict[str, str]:
    """The clusterer and transformer checks of a clusterer-transformer of rankings."""
    return {
        "check_clustering": _RANKS_CLUSTERING.format(test_module),
        "check_transformer_general": _RANKS_TRANSFORM.format(test_module),
        "check_transformer_data_not_an_array": _RANKS_TRANSFORM.format(test_module),
        "check_transformer_n_iter": _RANKS_INPUT + "; n_iter_ >= 1 is asserted in "
        f"{test_module}::test_transformer_contract_on_ranking_inputs",
    }


#: Further checks that do not apply, per estimator (on top of its family's), with the reason.
EXCLUDED_BY_ESTIMATOR: dict[str, dict[str, str]] = {
    "ChainKMeans": _ranking_transformer_clusterer("tests/cluster/test_chains.py"),
    "KOMeans": _ranking_transformer_clusterer("tests/cluster/test_komeans.py"),
}

#: Checks of :data:`EXCLUDED` that pass for an estimator that fits tied rankings (the
#: sample-weight checks' float data read as ranks are mostly ties).
_TIES_PASS = (
    "check_sample_weights_not_an_array",
    "check_sample_weights_not_overwritten",
    "check_sample_weights_pandas_series",
    "check_sample_weights_shape",
)
ACCEPTS_TIES = ("Mallows", "PlackettLuce", "MallowsMixture", "PlackettLuceMixture")


def _min_clusters(cls: type) -> int | None:
    for c in getattr(cls, "_parameter_constraints", {}).get("n_clusters", []):
        left = getattr(c, "left", None)
        if left is not None:
            return int(left)
    return None


def expected_failed_checks(est) -> dict[str, str]:
    cls = type(est)
    fam = family(cls)
    out = dict(EXCLUDED[fam])
    out.update(EXCLUDED_BY_ESTIMATOR.get(cls.__name__, {}))
    if cls.__name__ in ACCEPTS_TIES:
        for check in _TIES_PASS:
            out.pop(check, None)
    if fam == "features" and (_min_clusters(cls) or 1) >= 2:
        out.update(dict.fromkeys(_K1_CHECKS, _K1))
    return out


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_sklearn_compatible_estimator(name):
    """scikit-learn's checks: every check passes except the documented exclusions, and each
    exclusion really fails (a strict xfail: a stale exclusion fails this test).

    ``check_estimator(on_fail=None)`` runs all checks of one estimator in one test (running
    each as its own pytest item costs ~0.3 s of traceback formatting per expected failure).
    """
    est = make(ESTIMATORS[name])
    expected = expected_failed_checks(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, on_fail=None, on_skip=None, expected_failed_checks=expected)
    assert results, "no check ran"
    failed = [
        f"{r['check_name']}: {r['exception']!s:.300}" for r in results if r["status"] == "failed"
    ]
    assert not failed, "scikit-learn checks failed:\n" + "\n".join(failed)
    stale = sorted(
        {
            r["check_name"]
            for r in results
            if r["status"] == "passed" and r["check_name"] in expected
        }
    )
    assert not stale, f"listed as excluded but passing (update EXCLUDED): {stale}"


# ------------------------------------------------------------------ contract, every estimator
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_clone_and_params(name):
    cls = ESTIMATORS[name]
    est = make(cls)
    params = est.get_params(deep=False)
    twin = clone(est)
    assert twin is not est and type(twin) is cls
    assert equal(twin.get_params(deep=False), params)
    assert est.set_params(**params) is est
    assert not fitted_state(twin)
    with pytest.raises(ValueError):
        est.set_params(definitely_not_a_parameter=1)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_ranking_fit_contract(name):
    """fit returns self, leaves the hyper-parameters alone and records learned attributes."""
    cls = ESTIMATORS[name]
    est = make(cls)
    before = copy.deepcopy(est.get_params(deep=False))
    args = fit_args(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert est.fit(*args) is est
    assert equal(est.get_params(deep=False), before), "fit changed a hyper-parameter"
    state = fitted_state(est)
    assert state, "no learned attribute (name ending in '_') after fit"
    if family(cls) in ("rankings", "covariates"):
        R = args[0]
        n_items = getattr(est, "n_items_", None)
        if n_items is not None:
            assert n_items == R.n_items
        # clusterers: labels in range, one per ranking
        labels = getattr(est, "labels_", None)
        if labels is not None:
            assert labels.shape == (R.n_rankings,)
            assert labels.min() >= 0


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_pickle_round_trip(name):
    cls = ESTIMATORS[name]
    args = fit_args(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make(cls).fit(*args)
        back = pickle.loads(pickle.dumps(est))
        assert equal(fitted_state(back), fitted_state(est))
        assert equal(output_of(back, args), output_of(est, args))


#: Estimators whose predict-like methods raise AttributeError before fit (routed defect).
NOT_FITTED_DEFECTS = {
    "FeatureKMeansRanking",
    "NaiveKMeans",
    "OneRank",
    "PrototypePLMixture",
    "RankClusteringTree",
    "RankTree",
}


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_not_fitted_error(name):
    cls = ESTIMATORS[name]
    args = fit_args(cls)
    est = make(cls)
    covariates = family(cls) == "covariates"  # predictions take X, logpdf (R, X)
    for meth in ("predict", "predict_proba", "logpdf", "transform", "predict_ranking"):
        if hasattr(est, meth):
            margs = (args if meth == "logpdf" else args[1:]) if covariates else args[:1]
            with pytest.raises(NotFittedError):
                getattr(est, meth)(*margs)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_predict_leaves_state(name):
    """Prediction does not change the fitted estimator (scikit-learn's check_dict_unchanged)."""
    cls = ESTIMATORS[name]
    args = fit_args(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make(cls).fit(*args)
        before = copy.deepcopy(fitted_state(est))
        output_of(est, args)
    assert equal(fitted_state(est), before)


def _rows(data, idx):
    return data[idx] if isinstance(data, Rankings) else np.asarray(data)[idx]


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_ranking_predictions_order_and_subset_invariant(name):
    """Predictions of a row do not depend on the other rows given with it."""
    cls = ESTIMATORS[name]
    if not has_output(cls()):
        pytest.skip(f"{name} has no predict method (fit-only, like AgglomerativeClustering)")
    args = fit_args(cls)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make(cls).fit(*args)
        data = args[0]
        n = len(data) if isinstance(data, Rankings) else np.asarray(data).shape[0]
        # rows of every input that predictions read (the covariates' X with its rankings)
        inputs = args if family(cls) == "covariates" else (data,)
        full = np.asarray(output_of(est, inputs))
        perm = np.random.default_rng(0).permutation(n)
        permuted = np.asarray(output_of(est, tuple(_rows(a, perm) for a in inputs)))
        np.testing.assert_allclose(permuted, full[perm], rtol=1e-9, atol=1e-12)
        first = np.arange(n // 2)
        half = np.asarray(output_of(est, tuple(_rows(a, first) for a in inputs)))
        np.testing.assert_allclose(half, full[: n // 2], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_sample_weight_as_pandas_series(name):
    """A pandas Series of weights gives the fit of the same weights as an array (on ranking
    data; scikit-learn's own check feeds tied float features)."""
    pd = pytest.importorskip("pandas")
    cls = ESTIMATORS[name]
    if "sample_weight" not in inspect.signature(cls.fit).parameters:
        pytest.skip(f"{name}.fit takes no sample_weight")
    args = fit_args(cls)
    n = args[0].shape[0]
    w = np.random.default_rng(0).integers(1, 4, size=n).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed = {"random_state": 0} if "random_state" in cls().get_params() else {}
        a = make(cls, **seed).fit(*args, sample_weight=w)
        b = make(cls, **seed).fit(*args, sample_weight=pd.Series(w, index=np.arange(n) + 7))
    assert equal(fitted_state(a), fitted_state(b))
