"""Hostile input for the public functions of the foundation: distances, consensus, metrics,
the Mallows and Plackett-Luce module functions and the data generators.

Every call ends in a clean ``ValueError``/``TypeError`` (see ``_harness.outcome``) or in a
result that satisfies the function's invariants (distances non-negative, symmetric and
bounded; a consensus is a permutation; a metric is finite and in its range or NaN where
documented for empty input).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rankclust import Rankings
from rankclust import consensus as C
from rankclust import distances as D
from rankclust import metrics as MT
from rankclust.models import mallows as MM
from rankclust.models import plackett_luce as PL
from tests.reliability._harness import outcome

FUZZ = settings(
    max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)


@st.composite
def rankings(draw, max_n: int = 6, max_m: int = 6, ties: bool = True):
    """Valid Rankings of any kind, with absent items and (optionally) ties; m may be 0..max_m."""
    m = draw(st.integers(0, max_m))
    n = draw(st.integers(0, max_n))
    hi = max(m - 1, 0)
    ranks = draw(hnp.arrays(np.int64, (n, m), elements=st.integers(-1, hi)))
    if not ties and m:
        perms = np.argsort(np.random.default_rng(n * 7 + m).random((n, m)), axis=1)
        ranks = np.where(ranks < 0, -1, perms)
    return Rankings(ranks, kind=draw(st.sampled_from(["subset", "top"])))


_hostile_vector = st.one_of(
    hnp.arrays(np.float64, st.integers(0, 7), elements=st.floats(-2, 8) | st.just(np.nan)),
    hnp.arrays(np.int64, st.integers(0, 7), elements=st.integers(-3, 8)),
    st.lists(st.sampled_from([0, 1, 2, "a", None, 1.5]), max_size=5),
    hnp.arrays(
        np.int64, st.tuples(st.integers(1, 2), st.integers(1, 3)), elements=st.integers(0, 3)
    ),
    st.none(),
)


# ----------------------------------------------------------------------------- distances
@FUZZ
@given(rankings(), st.sampled_from(sorted(D.DISTANCES)), st.booleans())
def test_pairwise_distances(R, metric, normalize):
    status, M = outcome(
        "distances.pairwise_distances", D.pairwise_distances, R, metric=metric, normalize=normalize
    )
    if status == "ok":
        assert M.shape == (R.n_rankings, R.n_rankings)
        assert (M >= 0).all() and np.array_equal(M, M.T)
        assert (np.diag(M) == 0).all() or metric == "kendall"  # kendall: ties on the diagonal
        if normalize:
            assert (M <= 1 + 1e-12).all()
        else:
            assert (M <= D.max_distance(metric, R.n_items) + 1e-9).all() or metric == "kendall"


@pytest.mark.parametrize("metric", sorted(D.DISTANCES))
@settings(FUZZ, max_examples=60)
@given(R=rankings(), center=_hostile_vector, normalize=st.booleans())
def test_one_to_many_distances(metric, R, center, normalize):
    status, d = outcome(
        f"distances.{metric}_distances", D.DISTANCES[metric], R, center, normalize=normalize
    )
    if status == "ok":
        assert d.shape == (R.n_rankings,) and (d >= 0).all()
        if normalize:
            assert (d <= 1 + 1e-12).all()


@FUZZ
@given(_hostile_vector, _hostile_vector, st.sampled_from(["subset", "top", "bad"]))
def test_scalar_distances(a, b, kind):
    for name in (
        "kendall_distance",
        "spearman_distance",
        "footrule_distance",
        "cayley_distance",
        "hamming_distance",
        "ulam_distance",
    ):
        status, d = outcome(f"distances.{name}", getattr(D, name), a, b, kind=kind)
        if status == "ok":
            assert d >= 0
            s2, d2 = outcome(f"distances.{name}", getattr(D, name), b, a, kind=kind)
            assert s2 == "ok" and d2 == d  # symmetric


@FUZZ
@given(rankings(), rankings())
def test_kendall_counts_and_paired(R, R2):
    status, out = outcome("distances.kendall_counts", D.kendall_counts, R, R2)
    if status == "ok":
        disc, comp = out
        assert (disc >= 0).all() and (disc <= comp).all()
    outcome("distances.paired_distances", D.paired_distances, R, R2)


# ----------------------------------------------------------------------------- consensus
_counts = st.one_of(
    hnp.arrays(np.float64, st.integers(0, 7).map(lambda m: (m, m)), elements=st.floats(0, 1e6)),
    hnp.arrays(
        np.float64,
        st.integers(1, 5).map(lambda m: (m, m)),
        elements=st.floats(allow_nan=True, allow_infinity=True),
    ),
    hnp.arrays(
        np.int64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4), elements=st.integers(-2, 9)
    ),
    st.lists(st.lists(st.sampled_from([0, 1, "x", None]), max_size=3), max_size=3),
)


@FUZZ
@given(_counts)
def test_consensus_rules(Cm):
    ok = []
    for name in ("borda", "copeland", "kemeny", "kemeny_local_search", "kemeny_exact"):
        status, center = outcome(f"consensus.{name}", getattr(C, name), Cm)
        if status == "ok":
            m = len(Cm)
            np.testing.assert_array_equal(np.sort(center), np.arange(m))  # a permutation
            ok.append(name)
    if "kemeny_exact" in ok:  # exact is never worse than local search
        exact, local = C.kemeny_exact(Cm), C.kemeny_local_search(Cm)
        assert C.kemeny_cost(Cm, exact) <= C.kemeny_cost(Cm, local) + 1e-6


@FUZZ
@given(
    rankings(),
    st.one_of(
        st.none(),
        hnp.arrays(np.float64, st.integers(0, 7), elements=st.floats(-1, 1e6) | st.just(np.nan)),
    ),
)
def test_generalized_borda(R, sw):
    status, center = outcome(
        "consensus.generalized_borda", C.generalized_borda, R, sample_weight=sw
    )
    if status == "ok":
        np.testing.assert_array_equal(np.sort(center), np.arange(R.n_items))


# ------------------------------------------------------------------------------- metrics
@FUZZ
@given(
    rankings(),
    rankings(),
    st.one_of(
        st.none(),
        hnp.arrays(np.float64, st.integers(0, 7), elements=st.floats(-1, 10) | st.just(np.nan)),
    ),
)
def test_ranking_metrics(Y, P, sw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, lo, hi in (("kendall_tau", -1, 1), ("label_ranking_loss", 0, 1)):
            status, v = outcome(f"metrics.{name}", getattr(MT, name), Y, P, sample_weight=sw)
            if status == "ok":
                assert np.isnan(v) or lo - 1e-12 <= v <= hi + 1e-12


@FUZZ
@given(
    hnp.arrays(
        np.float64,
        st.tuples(st.integers(0, 8), st.integers(0, 3)),
        elements=st.floats(-1e3, 1e3) | st.sampled_from([np.nan, np.inf]),
    ),
    hnp.arrays(np.int64, st.integers(0, 9), elements=st.integers(-1, 3)),
    st.integers(-1, 12),
)
def test_feature_metrics(X, labels, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, v = outcome("metrics.d_feat", MT.d_feat, X, labels)
        if status == "ok":
            assert np.isnan(v) or v >= 0
        status, v = outcome("metrics.d_knh", MT.d_knh, X, labels, k=k)
        if status == "ok":
            assert np.isnan(v) or 0 <= v <= 1


@FUZZ
@given(
    st.lists(st.sampled_from([0, 1, 2, 3, -1, 1.5, np.nan, "a"]), max_size=6),
    st.lists(st.sampled_from([0, 1, 2, 3, -1, 1.5, np.nan]), max_size=6),
)
def test_ordinal_metrics(y, p):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("mze", "mae", "amae"):
            status, v = outcome(f"metrics.{name}", getattr(MT, name), y, p)
            if status == "ok":
                assert np.isnan(v) or v >= 0


# ---------------------------------------------------------------------- model functions
_theta = st.one_of(
    st.floats(0, 1e6),
    st.sampled_from([np.nan, -1.0, np.inf, 1e308, "x", None]),
    st.lists(st.floats(0, 10), max_size=3),
)
_m = st.one_of(st.integers(-2, 40), st.sampled_from([2.5, True, "3", None, 10**4]))


@FUZZ
@given(_theta, _m, st.one_of(st.none(), st.integers(-1, 45)))
def test_mallows_functions(theta, m, t):
    for name in ("log_normalizer", "expected_distance", "distance_variance"):
        status, v = outcome(f"mallows.{name}", getattr(MM, name), theta, m, t)
        if status == "ok":
            assert not np.isnan(v).any()
            assert (np.asarray(v) >= -1e-9).all()


@FUZZ
@given(st.one_of(st.floats(-1, 1e3), st.just(np.nan)), st.integers(-1, 30))
def test_theta_mle(mean, m):
    status, th = outcome("mallows.theta_mle", MM.theta_mle, mean, m)
    if status == "ok":
        assert 0 <= th <= MM.THETA_MAX


@FUZZ
@given(rankings(ties=False), _hostile_vector, _theta)
def test_mallows_loglik(R, center, theta):
    status, ll = outcome("mallows.mallows_loglik", MM.mallows_loglik, R, center, theta)
    if status == "ok":
        assert ll.shape == (R.n_rankings,) and not np.isnan(ll).any() and (ll <= 1e-9).all()
    status, out = outcome("mallows.most_probable_extension", MM.most_probable_extension, R, center)
    if status == "ok":
        assert out.shape == R.shape


@FUZZ
@given(
    rankings(),
    st.one_of(
        _hostile_vector, hnp.arrays(np.float64, st.integers(0, 7), elements=st.floats(-800, 800))
    ),
)
def test_plackett_luce_functions(R, scores):
    status, ll = outcome("plackett_luce.loglik_rows", PL.loglik_rows, R, scores)
    if status == "ok":  # (n,) for one score vector, (n, K) for K rows of scores
        assert ll.shape[0] == R.n_rankings and ll.ndim == np.ndim(scores)
        assert not np.isnan(ll).any() and (ll <= 1e-9).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, out = outcome("plackett_luce.fit_scores", PL.fit_scores, R)
    if status == "ok":
        assert np.isfinite(out[0]).all()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_samples": -1},
        {"n_samples": 0},
        {"n_items": 0},
        {"n_items": 1},
        {"n_clusters": 0},
        {"n_clusters": 100, "n_samples": 5},
        {"thetas": -1.0},
        {"thetas": np.nan},
        {"weights": [0.5, 0.6, -0.1]},
        {"kind": "bogus"},
        {"lengths": 99},
        {"random_state": -5},
    ],
)
def test_generators_hostile(kwargs):
    from rankclust.datasets import make_mallows_mixture, make_plackett_luce_mixture

    for fn in (make_mallows_mixture, make_plackett_luce_mixture):
        kw = dict(kwargs)
        if fn is make_plackett_luce_mixture and "thetas" in kw:
            continue
        outcome(f"datasets.{fn.__name__}", fn, **{"n_samples": 10, "n_items": 4, **kw})
