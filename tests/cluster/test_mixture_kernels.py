"""The compiled kernels of the mixtures' EM against their plain definitions: the Mallows
statistics and pair counts from the orderings, the E-step's responsibilities, the
Plackett-Luce stage pass in worth space and the MM sums."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import logsumexp

from rankclust import Rankings
from rankclust.cluster import _mixture_kernels as MK
from rankclust.cluster import mixture as MX
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture
from rankclust.models import plackett_luce as PLM
from tests.conftest import random_rankings


def some_rankings(rng, kind, m=7):
    """Distinct rankings of every length (1 to m) of one kind."""
    return random_rankings(rng, 300, m, kind=kind, p_missing=0.4, min_length=1).unique()[0]


@pytest.mark.parametrize("kind", ["top", "subset"])
def test_order_statistics_and_counts_equal_the_pair_matrix_products(rng, kind):
    R = some_rankings(rng, kind)
    u, m = R.shape
    assert set(np.unique(R.lengths)) == set(range(1, m + 1))
    orders = MK.row_orders(R.ranks, R.lengths)
    A = MK.pair_indicators(R.ranks, kind)
    centers = np.argsort(rng.random((4, m)), axis=1).argsort(axis=1)
    top = kind == "top"
    # the statistic is an integer count: equal exactly
    np.testing.assert_array_equal(
        MK.order_statistics(orders, R.lengths, top, centers), A @ MK.discordance_matrix(centers)
    )
    wq = rng.random((u, 4)) * rng.integers(1, 50, size=(u, 1))
    want = (A.T @ wq).T.reshape(4, m, m)
    got, by_length = MK.order_counts(orders, R.lengths, top, wq)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    assert np.all(got[:, np.arange(m), np.arange(m)] == 0.0)
    # the weight per list length: the same sums, in the same order, as np.bincount
    for k in range(4):
        want_k = np.bincount(R.lengths, weights=wq[:, k], minlength=m + 1)
        np.testing.assert_array_equal(by_length[k], want_k)


@pytest.mark.parametrize("m", [MK.MASK_ITEMS, MK.MASK_ITEMS + 1])
@pytest.mark.parametrize("kind", ["top", "subset"])
def test_order_statistics_at_the_edge_of_the_item_mask(rng, kind, m):
    # 64 items: the last centre position is bit 63 of the mask; 65: the pairwise loop
    R = random_rankings(rng, 120, m, kind=kind, p_missing=0.5, min_length=1).unique()[0]
    orders = MK.row_orders(R.ranks, R.lengths)
    centers = np.argsort(rng.random((3, m)), axis=1).argsort(axis=1)
    centers[0] = np.arange(m)[::-1]  # every item's centre position used, 63 included
    A = MK.pair_indicators(R.ranks, kind)
    want = A @ MK.discordance_matrix(centers)
    top = kind == "top"
    np.testing.assert_array_equal(MK.order_statistics(orders, R.lengths, top, centers), want)
    thetas = np.array([0.1, 0.7, 2.0])
    log_z = rng.normal(size=(m + 1, 3))
    np.testing.assert_array_equal(
        MK.order_logliks(orders, R.lengths, top, centers, thetas, log_z),
        -thetas * want - log_z[R.lengths],
    )


def test_row_orders_lists_items_by_position_and_refuses_ties():
    R = Rankings.from_orderings([[2, 0], [1, 2, 0], [3]], n_items=4, kind="top")
    orders = MK.row_orders(R.ranks, R.lengths)
    np.testing.assert_array_equal(orders, [[2, 0, 1, 3], [1, 2, 0, 3], [3, 0, 1, 2]])
    tied = np.array([[0, 0, 1, -1], [0, 1, 2, 3]])
    assert MK.row_orders(tied, np.array([3, 4])) is None


def test_responsibilities_equal_the_logsumexp_definition(rng):
    loglik = rng.normal(size=(200, 4)) * 40.0
    loglik[:5, 1] = -np.inf  # a component that cannot produce a ranking
    log_weights = np.log(rng.dirichlet(np.ones(4)))
    joint = loglik + log_weights
    resp, row_ll = MK.responsibilities(loglik, log_weights)
    np.testing.assert_allclose(row_ll, logsumexp(joint, axis=1), rtol=1e-14)
    np.testing.assert_allclose(resp, np.exp(joint - row_ll[:, None]), rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(resp.sum(axis=1), 1.0, rtol=1e-14)
    assert np.all(resp[:5, 1] == 0.0)


@pytest.mark.parametrize("kind", ["top", "subset"])
@pytest.mark.parametrize("spread", [0.5, 3.0, 400.0])
def test_pl_worth_space_pass_equals_the_log_space_pass(rng, kind, spread):
    # spread 400: worths beyond 1e150 and below 1e-150, so rows go through the fallback
    R = some_rankings(rng, kind, m=8)
    stages = PLM.choice_stages(R, compress=False)
    u, m = stages.order.shape
    scores = rng.normal(size=(3, m)) * spread
    scores[2, 0] = -np.inf  # a worth of 0
    args = (
        np.ascontiguousarray(stages.order, dtype=np.int64),
        np.ascontiguousarray(stages.in_set),
        np.ascontiguousarray(stages.active),
        scores,
        True,
    )
    ll_log, ex_log = np.empty((u, 3)), np.empty((u, 3, m))
    PLM._nb_stage_pass_log(*args, ll_log, ex_log)
    ll, ex = PLM.stage_pass(stages, scores)
    finite = np.isfinite(ll_log)
    np.testing.assert_array_equal(finite, np.isfinite(ll))
    np.testing.assert_allclose(ll[finite], ll_log[finite], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(ex, ex_log, rtol=1e-12, atol=0)


def test_pl_mm_sums_equal_the_bincounts(rng):
    R = some_rankings(rng, "top", m=8)
    stages = PLM.choice_stages(R, compress=False)
    _, expo = PLM.stage_pass(stages, rng.normal(size=(3, 8)))
    row_w = rng.random((R.n_rankings, 3))
    wins, denoms = PLM.mm_sums(stages, row_w, expo)
    m = stages.n_items
    chosen, rows = stages.order[stages.active], np.nonzero(stages.active)[0]
    flat = stages.order.ravel()
    for k in range(3):
        # the same sums in the same order: equal to the last bit
        want_w = np.bincount(chosen, weights=row_w[rows, k], minlength=m)
        want_d = np.bincount(
            flat, weights=(row_w[:, k, None] * expo[:, k, :]).ravel(), minlength=m
        )
        np.testing.assert_array_equal(wins[k], want_w)
        np.testing.assert_array_equal(denoms[k], want_d)
    np.testing.assert_array_equal(PLM.mm_wins(stages, row_w), wins)
    np.testing.assert_array_equal(PLM.mm_denominators(stages, row_w, expo), denoms)


@pytest.mark.parametrize("kind", ["top", "subset"])
def test_mallows_mixture_same_fit_from_orderings_pairs_and_kendall(monkeypatch, rng, kind):
    R = random_rankings(rng, 120, 6, kind=kind, p_missing=0.4, min_length=1)

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return MallowsMixture(3, n_init=3, random_state=0).fit(R)

    fast = fit()
    monkeypatch.setattr(MX, "row_orders", lambda ranks, lengths: None)
    pairs = fit()
    monkeypatch.setattr(MX, "_PAIR_MATRIX_MAX", 0)
    plain = fit()
    for other in (pairs, plain):
        assert fast.log_likelihood_ == pytest.approx(other.log_likelihood_, rel=1e-12)
        np.testing.assert_array_equal(fast.centers_.ranks, other.centers_.ranks)
        np.testing.assert_allclose(fast.thetas_, other.thetas_, rtol=1e-9)
        np.testing.assert_array_equal(fast.labels_, other.labels_)


def test_pl_mixture_same_fit_with_the_log_space_pass(monkeypatch, rng):
    R = random_rankings(rng, 150, 6, kind="top", p_missing=0.3, min_length=1)

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return PlackettLuceMixture(2, n_init=2, random_state=0).fit(R)

    fast = fit()
    monkeypatch.setattr(PLM, "_nb_stage_pass", PLM._nb_stage_pass_log)
    slow = fit()
    assert fast.log_likelihood_ == pytest.approx(slow.log_likelihood_, rel=1e-10)
    np.testing.assert_allclose(fast.scores_, slow.scores_, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(fast.labels_, slow.labels_)
