"""Tests for Plackett-Luce with ties (the Davidson-Luce model): brute force, reduction, fits."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from scipy import optimize, stats

from rankclust import Rankings
from rankclust.models import _davidson_luce as dl
from rankclust.models.plackett_luce import PlackettLuce, choice_stages, fit_scores, loglik_rows
from tests.conftest import random_rankings


# ------------------------------------------------------------------ reference implementations
def weak_orders(m: int) -> np.ndarray:
    """Every weak order (ordered set partition) of m items as dense rank vectors."""
    out = [r for r in itertools.product(range(m), repeat=m) if set(r) == set(range(max(r) + 1))]
    return np.array(out)


def dl_prob(buckets, worths, deltas, items=None, top=False) -> float:
    """Davidson-Luce probability straight from the definition (subsets enumerated).

    ``buckets``: list of tuples; ``deltas[d]`` the strength of order d (``deltas[1] = 1``);
    the choice sets are ``items`` (default all) minus what is placed, or for ``top`` all items.
    """
    left = set(range(len(worths)) if items is None else items)
    p = 1.0
    for bucket in buckets:
        num = deltas.get(len(bucket), 0.0) * np.prod([worths[i] for i in bucket]) ** (
            1 / len(bucket)
        )
        den = 0.0
        for d in range(1, len(left) + 1):
            for S in itertools.combinations(sorted(left), d):
                den += deltas.get(d, 0.0) * np.prod([worths[i] for i in S]) ** (1 / d)
        p *= num / den
        left -= set(bucket)
    return p


def buckets_of(ranks) -> list[tuple[int, ...]]:
    top = max(ranks)
    return [tuple(int(j) for j in np.flatnonzero(np.asarray(ranks) == b)) for b in range(top + 1)]


Z = np.array([0.3, -0.5, 1.2, 0.0, -0.2])
DELTAS = [0.7, 0.4, 0.2, 0.1]


# ------------------------------------------------------------------ likelihood
@pytest.mark.parametrize("m", [2, 3, 4, 5])
@pytest.mark.parametrize("n_orders", [1, 2, 3, 4])
def test_probabilities_of_all_weak_orders_sum_to_one(m, n_orders):
    W = weak_orders(m)
    p = np.exp(
        dl.davidson_luce_loglik(
            dl.tie_stages(Rankings(W), compress=False), Z[:m], DELTAS[: n_orders - 1]
        )
    )
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    # ties beyond the largest order have probability 0
    too_big = np.array([np.bincount(r).max() > n_orders for r in W])
    assert (p[too_big] == 0).all() and (p[~too_big] > 0).all()


def test_likelihood_equals_the_definition():
    m = 5
    W = weak_orders(m)
    deltas = {1: 1.0, **{d + 2: v for d, v in enumerate(DELTAS)}}
    got = np.exp(dl.davidson_luce_loglik(dl.tie_stages(Rankings(W)), Z, DELTAS))
    want = [dl_prob(buckets_of(r), np.exp(Z), deltas) for r in W]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_value_computed_by_hand():
    # worths (1, 2, 4), delta_2 = 1/2: P({0, 1} tied, then 2) =
    # (1/2) sqrt(2) / (1 + 2 + 4 + (1/2)(sqrt 2 + 2 + sqrt 8)) times 1 (one item left)
    R = Rankings([[0, 0, 1]])
    want = 0.5 * np.sqrt(2) / (7 + 0.5 * (np.sqrt(2) + 2 + np.sqrt(8)))
    got = PlackettLuce.from_params(scores=np.log([1.0, 2.0, 4.0]), tie_strengths=[0.5]).pdf(R)
    assert got[0] == pytest.approx(want, rel=1e-14)


def test_top_lists_are_the_marginal_of_complete_weak_orders():
    m = 4
    W = weak_orders(m)
    z, deltas = Z[:m], DELTAS[:2]
    p = np.exp(dl.davidson_luce_loglik(dl.tie_stages(Rankings(W)), z, deltas))
    for n_top in (1, 2):
        prefixes = {}
        for r, pr in zip(W, p, strict=True):
            key = tuple(buckets_of(r)[:n_top])
            if len(key) == n_top and sum(map(len, key)) < m:
                prefixes[key] = prefixes.get(key, 0.0) + pr
        ranks = []
        for key in prefixes:
            row = np.full(m, -1)
            for b, bucket in enumerate(key):
                row[list(bucket)] = b
            ranks.append(row)
        got = np.exp(
            dl.davidson_luce_loglik(dl.tie_stages(Rankings(ranks, kind="top")), z, deltas)
        )
        np.testing.assert_allclose(got, list(prefixes.values()), rtol=1e-12)


def test_subset_rankings_are_the_model_on_the_present_items():
    R = Rankings([[0, -1, 1, 0, 2], [1, 0, -1, -1, 0]])
    deltas = {1: 1.0, 2: DELTAS[0], 3: DELTAS[1]}
    got = np.exp(dl.davidson_luce_loglik(dl.tie_stages(R), Z, DELTAS[:2]))
    want = [
        dl_prob([(0, 3), (2,), (4,)], np.exp(Z), deltas, items=[0, 2, 3, 4]),
        dl_prob([(1, 4), (0,)], np.exp(Z), deltas, items=[0, 1, 4]),
    ]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_without_ties_it_is_plackett_luce(rng):
    for kind in ("subset", "top"):
        R = random_rankings(rng, 60, 6, kind=kind, p_missing=0.3)
        z = rng.normal(size=6)
        np.testing.assert_allclose(
            dl.davidson_luce_loglik(dl.tie_stages(R), z, []), loglik_rows(R, z), atol=1e-12
        )
        # a tie strength > 0 only adds to the normalisers: untied rankings lose probability
        assert (
            dl.davidson_luce_loglik(dl.tie_stages(R), z, [0.5]) <= loglik_rows(R, z) + 1e-12
        ).all()


def test_gradient_matches_finite_differences(rng):
    R = PlackettLuce.from_params(scores=Z, tie_strengths=DELTAS[:2]).sample(40, random_state=1)
    R = Rankings(R.ranks, kind="subset").with_weights(rng.random(40))
    stages = dl.tie_stages(R)
    row_w = stages.row_weights()
    ld = dl._log_delta_vector(DELTAS[:2], 1)
    f, g = dl.davidson_luce_gradient(stages, row_w, Z, ld)
    x = np.concatenate([Z, ld[2:]])
    h = 1e-6
    fd = []
    for j in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp[j] += h
        xm[j] -= h
        lp, lm = ld.copy(), ld.copy()
        lp[2:], lm[2:] = xp[5:], xm[5:]
        fp = dl.davidson_luce_gradient(stages, row_w, xp[:5], lp)[0]
        fm = dl.davidson_luce_gradient(stages, row_w, xm[:5], lm)[0]
        fd.append((fp - fm) / (2 * h))
    np.testing.assert_allclose(g, fd, atol=1e-6)
    assert f == pytest.approx(np.dot(R.weights, dl.davidson_luce_loglik(stages, Z, DELTAS[:2])))


# ------------------------------------------------------------------ sampling
def test_sampler_matches_the_probabilities():
    model = PlackettLuce.from_params(scores=Z[:4], tie_strengths=DELTAS[:2])
    S = model.sample(40_000, random_state=0)
    W = weak_orders(4)
    p = model.pdf(Rankings(W))
    index = {tuple(r): i for i, r in enumerate(W)}
    counts = np.bincount([index[tuple(r)] for r in S.ranks], minlength=len(W))
    keep = p > 0
    assert counts[~keep].sum() == 0
    assert stats.chisquare(counts[keep], p[keep] * counts.sum()).pvalue > 1e-3
    # the same seed gives the same draws; lengths keeps buckets
    assert model.sample(30, random_state=3) == model.sample(30, random_state=3)
    top = model.sample(200, random_state=4, lengths=1)
    assert top.kind == "top" and (top.n_buckets == 1).all()


# ------------------------------------------------------------------ fitting
def simulated(n=3000, seed=0):
    true = PlackettLuce.from_params(scores=Z, tie_strengths=DELTAS[:2])
    return true, true.sample(n, random_state=seed)


def test_mle_recovers_the_parameters():
    true, R = simulated()
    model = PlackettLuce().fit(R)
    assert model.converged_
    se = model.standard_errors(R)
    est = np.concatenate([model.scores_, np.log(model.tie_strengths_)])
    want = np.concatenate([true.scores_, np.log(true.tie_strengths_)])
    assert (np.abs(est - want) < 4 * se).all()


def test_mle_equals_an_independent_scipy_fit():
    true = PlackettLuce.from_params(scores=Z[:4], tie_strengths=DELTAS[:2])
    R = true.sample(600, random_state=2)
    model = PlackettLuce().fit(R)

    rows, counts = np.unique(R.ranks, axis=0, return_counts=True)

    def negll(x):  # direct maximisation of the same likelihood (probabilities by definition)
        deltas = {1: 1.0, 2: np.exp(x[3]), 3: np.exp(x[4])}
        w = np.exp(np.r_[x[:3], 0.0])
        return -float(np.dot(counts, [np.log(dl_prob(buckets_of(r), w, deltas)) for r in rows]))

    res = optimize.minimize(negll, np.zeros(5), method="BFGS", options={"gtol": 1e-8})
    z = np.r_[res.x[:3], 0.0]
    np.testing.assert_allclose(model.scores_, z - z.mean(), atol=1e-5)
    np.testing.assert_allclose(model.tie_strengths_, np.exp(res.x[3:]), atol=1e-5)


def test_weights_equal_repeats(rng):
    _, R = simulated(300, seed=5)
    counts = rng.integers(1, 4, size=300)
    a = PlackettLuce().fit(R.with_weights(counts.astype(float)))
    b = PlackettLuce().fit(Rankings(np.repeat(R.ranks, counts, axis=0)))
    c = PlackettLuce().fit(R, sample_weight=counts)
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-9)
    np.testing.assert_allclose(a.tie_strengths_, b.tie_strengths_, atol=1e-9)
    np.testing.assert_allclose(c.scores_, b.scores_, atol=1e-9)


def test_untied_data_keep_the_plackett_luce_fit(rng):
    R = random_rankings(rng, 200, 5, kind="top", p_missing=0.3)
    model = PlackettLuce().fit(R)
    z, _, _ = fit_scores(choice_stages(R))
    np.testing.assert_array_equal(model.scores_, z)  # the same code path
    assert model.tie_strengths_.shape == (0,)
    # the Davidson-Luce fit with D = 1 is the same maximum
    stages = dl.tie_stages(R)
    zd, deltas, _, conv = dl.fit_davidson_luce(stages, stages.row_weights())
    assert conv and deltas.shape == (0,)
    np.testing.assert_allclose(zd, z, atol=1e-8)


def test_unobserved_tie_order_has_strength_zero():
    R = Rankings([[0, 0, 0, 1], [1, 0, 2, 3], [0, 1, 1, 1], [2, 1, 0, 3], [3, 2, 1, 0]])
    model = PlackettLuce(alpha=0.5).fit(R)
    assert model.tie_strengths_.shape == (2,) and model.tie_strengths_[0] == 0.0
    assert model.tie_strengths_[1] > 0
    V = model.vcov(R)
    assert np.isnan(V[4]).all() and np.isfinite(V[5, 5])


def test_top_and_alpha_fits():
    true = PlackettLuce.from_params(scores=Z, tie_strengths=DELTAS[:1])
    R = true.sample(2000, random_state=7, lengths=2)
    model = PlackettLuce().fit(R)
    assert model.converged_
    assert (np.abs(model.scores_ - true.scores_) < 4 * model.standard_errors(R)[:5]).all()
    shrunk = PlackettLuce(alpha=5.0).fit(R)
    assert np.ptp(shrunk.scores_) < np.ptp(model.scores_)


# ------------------------------------------------------------------ standard errors
def test_information_is_the_second_difference_of_the_likelihood():
    _, R = simulated(400, seed=3)
    model = PlackettLuce().fit(R)
    stages = dl.tie_stages(R)
    x0 = np.concatenate([model.scores_, np.log(model.tie_strengths_)])

    def f(x):
        return np.dot(R.weights, dl.davidson_luce_loglik(stages, x[:5], np.exp(x[5:])))

    h = 1e-4
    p = x0.size
    H = np.empty((p, p))
    for i in range(p):
        for j in range(p):
            e_i, e_j = np.eye(p)[i] * h, np.eye(p)[j] * h
            H[i, j] = (
                f(x0 + e_i + e_j) - f(x0 + e_i - e_j) - f(x0 - e_i + e_j) + f(x0 - e_i - e_j)
            ) / (4 * h * h)
    P = np.eye(p)
    P[:5, :5] -= 1 / 5
    want = P @ np.linalg.pinv(-H, hermitian=True, rcond=1e-8) @ P
    np.testing.assert_allclose(model.vcov(R), want, rtol=1e-4, atol=1e-8)
    ref = model.vcov(R, reference=0)
    assert ref[0, 0] == pytest.approx(0.0, abs=1e-12)
    lo, hi = model.confint(R).T
    assert lo.shape == (7,) and (lo < hi).all()


# ------------------------------------------------------------------ limits and state
def test_tie_order_bound_and_bad_parameters():
    m = dl.MAX_TIE_ORDER + 2
    R = Rankings([np.r_[np.zeros(m - 1, dtype=int), 1], np.arange(m)])
    with pytest.raises(ValueError, match=f"at most {dl.MAX_TIE_ORDER} items"):
        PlackettLuce().fit(R)
    with pytest.raises(ValueError, match="tie_strengths"):
        PlackettLuce.from_params(scores=[0.0, 1.0], tie_strengths=[-1.0])
    with pytest.raises(ValueError, match="at most"):
        PlackettLuce.from_params(scores=[0.0, 1.0], tie_strengths=np.ones(dl.MAX_TIE_ORDER))


def test_pickle_round_trip_and_model_without_the_attribute():
    true, R = simulated(50)
    model = pickle.loads(pickle.dumps(true))
    np.testing.assert_array_equal(model.logpdf(R), true.logpdf(R))
    old = PlackettLuce.from_params(scores=Z)
    del old.tie_strengths_  # a model saved before ties existed
    assert np.isfinite(old.logpdf(Rankings([[0, 1, 2, 3, 4]]))).all()
    assert old.sample(2, random_state=0).shape == (2, 5)


# ------------------------------------------------------------------ warm starts and the box
def _tied_sample():
    ranks = np.array([[0, 0, 1, 2], [0, 1, 1, 2], [1, 0, 2, 2], [0, 1, 2, 3], [2, 0, 1, 1]] * 3)
    return dl.tie_stages(Rankings(ranks, kind="subset"))


@pytest.mark.parametrize("polish", [True, False])
def test_a_warm_start_reaches_the_same_fit(polish):
    stages = _tied_sample()
    w = stages.row_weights()
    z, d, _, _ = dl.fit_davidson_luce(stages, w)
    start = (np.array([1.0, -2.0, 0.5, 0.5]), np.full(d.size, 3.0))
    z2, d2, _, _ = dl.fit_davidson_luce(stages, w, start=start, polish=polish)
    np.testing.assert_allclose(z2, z, atol=1e-6)
    np.testing.assert_allclose(d2, d, rtol=1e-6)


def test_the_box_gives_a_maximum_where_the_mle_does_not_exist():
    # item 0 is always strictly first: its unbounded MLE worth is infinite
    R = Rankings(np.array([[0, 1, 1], [0, 1, 2], [0, 2, 1]] * 3), kind="subset")
    stages = dl.tie_stages(R)
    w = stages.row_weights()
    free, _, _, _ = dl.fit_davidson_luce(stages, w)
    assert free[0] - free[1:].max() > 10.0  # heading off to infinity
    start = (np.zeros(3), np.ones(1))
    z, d, _, _ = dl.fit_davidson_luce(stages, w, start=start, bound=5.0)
    assert z[0] - z[1:].max() <= 10.0 and z[0] == z.max()

    def total(z_, d_):
        return float(R.weights @ dl.davidson_luce_loglik(stages, z_, d_))

    assert total(z, d) > total(*start)
