"""Row blocks on threads: every block runs once, errors surface, and the mixtures' kernels
and fits give the same bits on any number of threads (``rankclust._row_threads``)."""

from __future__ import annotations

import numpy as np
import pytest

from rankclust import _row_threads as RT
from rankclust.cluster import _mixture_kernels as MK
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture
from rankclust.datasets import make_mallows_mixture
from rankclust.models import plackett_luce as PLM
from tests.conftest import random_rankings


@pytest.mark.parametrize("n_rows", [0, 1, 5, 4096, 10_001])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_split_rows_covers_every_row_once(n_rows, threads):
    blocks = RT.split_rows(n_rows, threads)
    covered = np.concatenate([np.arange(lo, hi) for lo, hi in blocks])
    np.testing.assert_array_equal(covered, np.arange(n_rows))
    assert 1 <= len(blocks) <= threads
    # too few rows to share: one block
    assert len(blocks) == max(1, min(threads, n_rows // RT.MIN_ROWS_PER_THREAD))


def test_n_threads_honours_the_environment(monkeypatch):
    monkeypatch.setenv("RANKCLUST_NUM_THREADS", "1")
    assert RT.n_threads() == 1
    monkeypatch.delenv("RANKCLUST_NUM_THREADS")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert RT.n_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "not a number")
    assert 1 <= RT.n_threads() <= RT.MAX_THREADS


def test_run_blocks_runs_each_block_once_and_raises_the_first_error():
    seen = []
    RT.run_blocks(lambda lo, hi: seen.append((lo, hi)), [(0, 2), (2, 5), (5, 9)])
    assert sorted(seen) == [(0, 2), (2, 5), (5, 9)]

    def fail(lo, hi):
        if lo == 2:
            raise RuntimeError("block 2")

    with pytest.raises(RuntimeError, match="block 2"):
        RT.run_blocks(fail, [(0, 2), (2, 5), (5, 9)])


def _kernel_outputs(R, centers, thetas, log_z, wq, log_w):
    top = R.kind == "top"
    orders = MK.row_orders(R.ranks, R.lengths)
    stats = MK.order_statistics(orders, R.lengths, top, centers)
    ll = MK.order_logliks(orders, R.lengths, top, centers, thetas, log_z)
    counts, by_length = MK.order_counts(orders, R.lengths, top, wq)
    resp, row_ll = MK.responsibilities(ll, log_w)
    return stats, ll, counts, by_length, resp, row_ll


@pytest.mark.parametrize("kind", ["top", "subset"])
def test_kernels_give_the_same_bits_on_three_threads(rng, kind, monkeypatch):
    R = random_rankings(rng, 500, 9, kind=kind, p_missing=0.4, min_length=1)
    k = 5
    centers = np.argsort(rng.random((k, 9)), axis=1).argsort(axis=1)
    thetas = rng.random(k) * 2
    (log_z,) = MK.length_tables(thetas, 9, kind, ("log",))
    wq = rng.random((R.n_rankings, k)) * rng.integers(1, 9, size=(R.n_rankings, 1))
    log_w = np.log(rng.dirichlet(np.ones(k)))
    monkeypatch.setattr(RT, "n_threads", lambda: 1)
    single = _kernel_outputs(R, centers, thetas, log_z, wq, log_w)
    monkeypatch.setattr(RT, "MIN_ROWS_PER_THREAD", 1)
    monkeypatch.setattr(RT, "n_threads", lambda: 3)
    threaded = _kernel_outputs(R, centers, thetas, log_z, wq, log_w)
    for a, b in zip(single, threaded, strict=True):
        assert a.tobytes() == b.tobytes()
    # the fused log-likelihood is the numpy expression it replaces, bit for bit
    stats, ll = single[0], single[1]
    assert ll.tobytes() == (-thetas[None, :] * stats - log_z[R.lengths]).tobytes()


def _fit(R):
    return MallowsMixture(n_components=3, n_init=4, random_state=0).fit(R)


def test_mixture_fit_does_not_depend_on_the_number_of_threads(monkeypatch):
    R, _ = make_mallows_mixture(3000, 8, 3, thetas=0.8, kind="top", lengths=(2, 8), random_state=3)
    monkeypatch.setattr(RT, "n_threads", lambda: 1)
    a = _fit(R)
    monkeypatch.setattr(RT, "MIN_ROWS_PER_THREAD", 1)
    monkeypatch.setattr(RT, "n_threads", lambda: 3)
    b = _fit(R)
    assert a.log_likelihood_ == b.log_likelihood_
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.center_positions_, b.center_positions_)
    assert a.thetas_.tobytes() == b.thetas_.tobytes()
    assert a.weights_.tobytes() == b.weights_.tobytes()
    assert a.n_iter_ == b.n_iter_


@pytest.mark.parametrize("kind", ["top", "subset"])
def test_plackett_luce_kernels_give_the_same_bits_on_three_threads(rng, kind, monkeypatch):
    R = random_rankings(rng, 500, 9, kind=kind, p_missing=0.4, min_length=1)
    stages = PLM.choice_stages(R)
    u = stages.order.shape[0]
    scores = rng.normal(size=(4, 9))
    row_w = rng.random((u, 4))

    def outputs():
        ll, expo = PLM.stage_pass(stages, scores)
        return (ll, expo, *PLM.mm_sums(stages, row_w, expo))

    monkeypatch.setattr(RT, "n_threads", lambda: 1)
    single = outputs()
    monkeypatch.setattr(RT, "MIN_ROWS_PER_THREAD", 1)
    monkeypatch.setattr(RT, "n_threads", lambda: 3)
    for a, b in zip(single, outputs(), strict=True):
        assert a.tobytes() == b.tobytes()


def test_plackett_luce_mixture_does_not_depend_on_the_number_of_threads(monkeypatch):
    R, _ = make_mallows_mixture(2000, 7, 2, thetas=1.0, kind="top", lengths=(2, 7), random_state=4)

    def fit():
        return PlackettLuceMixture(n_components=2, n_init=3, random_state=0).fit(R)

    monkeypatch.setattr(RT, "n_threads", lambda: 1)
    a = fit()
    monkeypatch.setattr(RT, "MIN_ROWS_PER_THREAD", 1)
    monkeypatch.setattr(RT, "n_threads", lambda: 3)
    b = fit()
    assert a.log_likelihood_ == b.log_likelihood_
    assert a.scores_.tobytes() == b.scores_.tobytes()
    np.testing.assert_array_equal(a.labels_, b.labels_)
