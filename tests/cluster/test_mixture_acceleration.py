"""SQUAREM acceleration of the mixtures' EM (``accelerate=True``): the extrapolation, the
likelihood safeguard, monotone traces and fits never below plain EM."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from rankclust.cluster import mixture as MX
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture
from rankclust.datasets import make_mallows_mixture, make_plackett_luce_mixture
from tests.conftest import random_rankings

CENTERS_6 = np.array([[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [2, 5, 0, 4, 1, 3]])


def fitted(est_cls, R, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est_cls(**kw).fit(R)


def data_sets():
    """(name, R) of a few data sets of both kinds, clustered and not."""
    rng = np.random.default_rng(3)
    R1, _ = make_mallows_mixture(
        500, 6, 3, centers=CENTERS_6, thetas=0.8, lengths=(1, 6), kind="top", random_state=1
    )
    R2, _ = make_plackett_luce_mixture(600, 6, 3, random_state=2)
    return [
        ("mallows-top", R1),
        ("pl-complete", R2),
        ("random-top", random_rankings(rng, 150, 6, kind="top", p_missing=0.3, min_length=2)),
        (
            "random-subset",
            random_rankings(rng, 150, 6, kind="subset", p_missing=0.3, min_length=2),
        ),
    ]


def test_squarem_step_solves_a_linear_map_in_one_step():
    # EM map x -> c x + b (c in (0, 1)) has fixed point b / (1 - c); scheme S3 finds it
    # exactly from any x0 (r and v are parallel, alpha = -1 / (1 - c))
    c, b = 0.9, np.array([1.0, -2.0, 0.5])
    x0 = np.array([3.0, 1.0, -4.0])
    x1 = c * x0 + b
    x2 = c * x1 + b
    step = MX._squarem_step(x0, x1, x2)
    assert step[3] == pytest.approx(-10.0)
    np.testing.assert_allclose(MX._squarem_point(step), b / (1 - c), rtol=1e-12)
    # a fast map (alpha above -1.5) and a stalled one are left to plain EM
    assert MX._squarem_step(x0, 0.2 * x0 + b, 0.2 * (0.2 * x0 + b) + b) is None
    assert MX._squarem_step(x0, x0, x0) is None
    # the step length is capped
    slow = MX._squarem_step(x0, 0.999 * x0 + b, 0.999 * (0.999 * x0 + b) + b)
    assert slow[3] == -MX._SQUAREM_MAX_STEP


@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_accelerated_log_likelihood_trace_never_decreases(cls, seed):
    for _, R in data_sets():
        for k in (2, 3):
            mix = fitted(cls, R, n_components=k, n_init=1, tol=0.0, max_iter=60, random_state=seed)
            h = mix.log_likelihood_history_
            # a run stopped by max_iter records the E-step after its last M-step too
            assert len(h) == mix.n_iter_ + (not mix.converged_)
            if mix.n_reseeded_ == 0:
                assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:]))


@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
def test_acceleration_never_ends_below_plain_em(cls):
    # structured data and random subset rankings; on random top lists (no structure, many
    # optima of the discrete centres) a changed path can end in another optimum, higher or
    # lower (docs/mixtures.md, "Speed")
    n_fewer = 0
    for name, R in data_sets():
        if name == "random-top":
            continue
        for seed in (0, 1, 2):
            kw = dict(n_components=3, n_init=3, random_state=seed)
            plain = fitted(cls, R, accelerate=False, **kw)
            fast = fitted(cls, R, accelerate=True, **kw)
            assert fast.log_likelihood_ >= plain.log_likelihood_ - 1e-9 * abs(
                plain.log_likelihood_
            )
            n_fewer += fast.n_iter_ < plain.n_iter_
    assert n_fewer >= 6  # of 9 fits: the point of it (iterations, not time, are compared)


@pytest.mark.parametrize("cls", [MallowsMixture, PlackettLuceMixture])
def test_rejected_extrapolations_leave_plain_em(cls, monkeypatch):
    # every extrapolated point is made terrible (one component takes almost all the
    # weight): the safeguard rejects each one, so the iterates are exactly plain EM's
    _, R = data_sets()[0]
    kw = dict(n_components=3, n_init=1, tol=1e-8, random_state=0)
    plain = fitted(cls, R, accelerate=False, **kw)

    def terrible(step):
        x = step[0].copy()
        x[:3] = [0.0, -60.0, -60.0]
        return x

    monkeypatch.setattr(MX, "_squarem_point", terrible)
    fast = fitted(cls, R, accelerate=True, **kw)
    assert fast.log_likelihood_ == pytest.approx(plain.log_likelihood_, rel=1e-12)
    np.testing.assert_allclose(fast.weights_, plain.weights_, rtol=1e-10)
    h = fast.log_likelihood_history_
    assert fast.converged_ and fast.n_iter_ > plain.n_iter_ and len(h) == fast.n_iter_
    assert np.all(np.diff(h) >= -1e-9 * np.abs(h[1:]))


def test_accelerate_is_validated():
    _, R = data_sets()[0]
    with pytest.raises(ValueError, match="accelerate"):
        MallowsMixture(accelerate="yes").fit(R)


# --------------------------------------------------------------------------------------------
# early abandonment of continued runs
# --------------------------------------------------------------------------------------------
def test_cannot_reach_rule():
    # gains 2 then 1: rho = 1/2, predicted remaining gain 1, times the safety factor 10
    assert MX._cannot_reach(-100.0, [2.0, 1.0], floor=-89.0)
    assert not MX._cannot_reach(-100.0, [2.0, 1.0], floor=-91.0)
    # gains that do not shrink, or too few of them, never abandon
    assert not MX._cannot_reach(-100.0, [1.0, 1.0], floor=0.0)
    assert not MX._cannot_reach(-100.0, [1.0], floor=0.0)
    assert not MX._cannot_reach(-100.0, [], floor=0.0)


def test_abandoned_runs_stay_below_the_kept_one(monkeypatch):
    # off by default (it can end lower, see _RankingMixture._abandon); switched on, the
    # runs it stops are marked, counted, and below the kept run
    assert not MallowsMixture._abandon and not PlackettLuceMixture._abandon
    n_abandoned = 0
    for _, R in data_sets():
        for seed in (0, 1):
            for abandon in (False, True):
                monkeypatch.setattr(PlackettLuceMixture, "_abandon", abandon)
                est = PlackettLuceMixture(3, n_init=10, random_state=seed)
                blocks, _, _ = est._memory_blocks(R, None)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    best, search = est._restarts(blocks, np.random.RandomState(seed), None)
                assert search.n_abandoned <= search.n_continued
                assert abandon or search.n_abandoned == 0
                n_abandoned += search.n_abandoned
                assert best.log_likelihood >= search.log_likelihoods.max() - 1e-9
    assert n_abandoned > 0  # the rule was exercised
