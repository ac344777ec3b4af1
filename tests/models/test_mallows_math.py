"""One home for the Mallows mathematics and the centre methods; compiled copies pinned to it.

* the stage tables and the dispersion solver of ``rankclust._mallows_math`` against
  independent references (brentq on the defining equation, direct sums);
* every compiled copy against the one reference, on random inputs with tight tolerances:
  ``_mallows_kernels._log_qint`` (stage table), the label-ranking tree's table inversion
  (solver), IB-LR's ``_em_one`` (Cheng et al.'s approximate EM);
* the one registry of centre methods (``consensus.CENTER_METHODS``) with its one ``auto``
  rule, and the distance registry (``distances.DISTANCES``) as the one list of metric names.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.optimize import brentq

from rankclust import Rankings
from rankclust import _mallows_math as MM
from rankclust import consensus as CS
from rankclust.cluster import MIXTURE_CENTER_METHODS, MallowsMixture
from rankclust.cluster import _mixture_kernels as MK
from rankclust.cluster.baselines import CompletionMallowsMixture
from rankclust.consensus import (
    CENTER_METHODS,
    CONSENSUS_METHODS,
    KEMENY_AUTO_EXACT_MAX_ITEMS,
    center_from_counts,
    generalized_borda_votes,
    kemeny_exact,
    kemeny_local_search,
    resolve_center_method,
)
from rankclust.distances import (
    DISTANCES,
    kendall_distances,
    max_distance,
    paired_distances,
    pairwise_distances,
)
from rankclust.label_ranking._iblr_kernels import EMWork, _nb_em_one
from rankclust.label_ranking._tree_kernels import _nb_theta_from_mean
from rankclust.label_ranking.tree import theta_table
from rankclust.models._mallows_kernels import _nb_log_qint
from rankclust.models.mallows import (
    CENTER_METHODS as MALLOWS_CENTER_METHODS,
)
from rankclust.models.mallows import (
    THETA_MAX,
    _extend,
    estimate_center,
    expected_distance,
    log_normalizer,
    theta_mle,
)
from tests.conftest import random_rankings


# --------------------------------------------------------------------------------------------
# stage tables
# --------------------------------------------------------------------------------------------
def test_stage_tables_match_direct_sums(rng):
    """``log [k]_q``, ``E V`` and ``Var V`` against the truncated geometric pmf summed."""
    for theta in np.concatenate([[0.0, 1e-5, 5e-3], rng.uniform(0.01, 8.0, 20)]):
        m = 12
        tabs = {name: fn(np.array([theta]), m)[0] for name, fn in MM.STAGE_TABLES.items()}
        for k in range(1, m + 1):
            v = np.arange(k, dtype=np.float64)
            p = np.exp(-theta * v)
            z = p.sum()
            mean = (v * p).sum() / z
            var = ((v - mean) ** 2 * p).sum() / z
            assert tabs["log"][k - 1] == pytest.approx(np.log(z), rel=1e-12, abs=1e-15)
            assert tabs["mean"][k - 1] == pytest.approx(mean, rel=1e-10, abs=1e-13)
            assert tabs["var"][k - 1] == pytest.approx(var, rel=1e-8, abs=1e-12)


def test_compiled_log_qint_is_the_stage_table(rng):
    """Keep-in-sync pin: ``_mallows_kernels._log_qint`` equals ``stage_log_qint``."""
    thetas = np.concatenate(
        [[0.0, 1e-12, 1e-6, 0.6931471805599453, 40.0, 700.0], rng.random(50) * 5]
    )
    m = 30
    table = MM.stage_log_qint(thetas, m)
    for i, th in enumerate(thetas):
        for k in range(1, m + 1):
            got = _nb_log_qint(k, float(th))
            assert got == pytest.approx(table[i, k - 1], rel=1e-14, abs=1e-300)


def test_compiled_stage_moments_are_the_stage_tables(rng):
    """Keep-in-sync pin: the solver's ``_stage_mean`` and ``_stage_variance`` equal
    ``stage_means`` and ``stage_variances`` on both sides of the series switch, at 0, at
    overflow and at infinity. The variance's direct form cancels just above the switch
    (``k theta`` near 1e-2: two terms of about 1e4 for a difference of about 1), so both
    versions are good to about 1e-12 there, not to the last bit."""
    thetas = np.concatenate(
        [[0.0, 1e-12, 1e-6, 9.9e-3, 1e-2, 0.3, 40.0, 700.0, 1500.0, np.inf], rng.random(50) * 5]
    )
    m = 30
    means, variances = MM.stage_means(thetas, m), MM.stage_variances(thetas, m)
    for i, th in enumerate(thetas):
        for k in range(1, m + 1):
            assert MM._stage_mean(float(th), float(k)) == pytest.approx(
                means[i, k - 1], rel=1e-13, abs=1e-300
            )
            assert MM._stage_variance(float(th), float(k)) == pytest.approx(
                variances[i, k - 1], rel=1e-10, abs=1e-300
            )


@pytest.mark.parametrize("kind", ["top", "subset"])
def test_length_tables_are_the_public_sums(kind):
    th = np.array([0.0, 1e-4, 0.3, 2.0, 60.0])
    m = 9
    log_z, mu, _ = MM.length_tables(th, m, kind)
    for ell in range(m + 1):
        if kind == "top":
            ref = log_normalizer(th, m, ell), expected_distance(th, m, ell)
        else:
            ref = log_normalizer(th, ell), expected_distance(th, ell)
        np.testing.assert_allclose(log_z[ell], ref[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(mu[ell], ref[1], rtol=1e-12, atol=1e-15)
    assert MK.length_tables is MM.length_tables and MK.solve_thetas is MM.solve_thetas


# --------------------------------------------------------------------------------------------
# the one dispersion solver
# --------------------------------------------------------------------------------------------
def _brentq_root(counts, stat, m, kind, theta_max):
    def g(th):
        return float(counts @ MM.length_tables(np.array([th]), m, kind, ("mean",))[0][:, 0]) - stat

    return brentq(g, 0.0, theta_max, xtol=1e-15, rtol=1e-15)


@pytest.mark.parametrize("kind", ["top", "subset"])
def test_solve_thetas_matches_brentq_on_random_equations(rng, kind):
    """Random lengths, weights, warm starts and means from the uniform value down to 1e-9 of
    it (theta up to about 45, where a residual test relative to the weight alone stopped
    early: 31.9 instead of 46.5 on one component of a German-goals fit)."""
    worst = 0.0
    for _ in range(150):
        m = int(rng.integers(2, 25))
        counts = np.zeros((3, m + 1))
        for k in range(3):
            ell = rng.integers(2, m + 1, size=int(rng.integers(1, 5)))
            np.add.at(counts[k], ell, rng.random(ell.size) * rng.choice([1.0, 1e3]))
        (mu0,) = MM.length_tables(np.zeros(1), m, kind, ("mean",))
        frac = np.array(
            [rng.random(), 10.0 ** rng.uniform(-18, -2), 1 - 10.0 ** rng.uniform(-9, -1)]
        )
        stats = counts @ mu0[:, 0] * frac
        theta0 = rng.choice([0.0, 1.0, 5.0, 49.0], size=3) * rng.random(3)
        got = MM.solve_thetas(counts, stats, m, kind, theta0, THETA_MAX)
        for k in range(3):
            ref = _brentq_root(counts[k], stats[k], m, kind, THETA_MAX)
            worst = max(worst, abs(got[k] - ref) / max(1.0, ref))
    assert worst < 1e-12


def test_theta_mle_is_the_one_component_solver(rng):
    for _ in range(100):
        m = int(rng.integers(2, 20))
        lengths = rng.integers(0, m + 1, size=5)
        lw = rng.random(5)
        if lengths[lw > 0].max() < 2:
            continue
        counts = np.bincount(lengths, weights=lw, minlength=m + 1)
        counts = counts / counts.sum()
        mean = float(counts @ MM.length_tables(np.zeros(1), m, "top", ("mean",))[0][:, 0])
        mean *= rng.random()
        got = theta_mle(mean, m, lengths=lengths, length_weights=lw)
        stats = np.array([mean])
        start = MM.tail_start(counts[None], stats, m, "top")
        ref = MM.solve_thetas(counts[None], stats, m, "top", start, THETA_MAX)[0]
        assert got == ref
        assert got == pytest.approx(_brentq_root(counts, mean, m, "top", THETA_MAX), rel=1e-12)


def test_theta_mle_unbounded_cap():
    m = 6
    for target in (0.4, 3.0, 25.0, 60.0, 200.0):
        mean = expected_distance(target, m)
        assert theta_mle(mean, m, theta_max=np.inf) == pytest.approx(target, rel=1e-10)
    assert theta_mle(0.0, m, theta_max=np.inf) == np.inf
    assert theta_mle(100.0, m, theta_max=np.inf) == 0.0
    assert theta_mle(1.0, 1, theta_max=np.inf) == np.inf  # no pair: no information


def test_tree_table_inversion_is_the_solver_up_to_the_grid(rng):
    """Keep-in-sync pin: the tree's compiled table inversion against ``theta_mle``. At the grid
    nodes both give the node's theta (to 1e-10); between them the linear interpolation is off
    by at most ``h^2 n / 16`` (measured on n = 2..40; asserted with a factor 2 of slack)."""
    m = 16
    table, grid = theta_table(m, THETA_MAX)
    h = grid[1] - grid[0]
    for n in range(2, m + 1):
        for g in rng.integers(0, grid.size, 15):
            mean = float(table[n, g])
            assert theta_mle(mean, n) == pytest.approx(grid[g], abs=1e-10)
            assert _nb_theta_from_mean(table, grid, n, mean) == pytest.approx(grid[g], abs=1e-10)
        top = n * (n - 1) / 4
        means = np.concatenate(
            [rng.random(40) * top * 1.1, np.exp(rng.uniform(np.log(table[n, -1]) - 2, 0, 20))]
        )
        for mean in means:
            ref = theta_mle(float(mean), n, theta_max=THETA_MAX)
            got = _nb_theta_from_mean(table, grid, n, float(mean))
            assert got == pytest.approx(ref, abs=h * h * n / 8)


# --------------------------------------------------------------------------------------------
# Cheng et al.'s approximate EM: the compiled copy against the reference
# --------------------------------------------------------------------------------------------
def test_compiled_cheng_em_is_estimate_center_borda(rng):
    """Keep-in-sync pin: IB-LR's ``_em_one`` equals ``estimate_center(method="borda")`` (centre,
    iterations, convergence flag and mean distance of the completions) on random weighted,
    incomplete neighbourhoods, including iteration caps that stop the EM early."""
    for trial in range(300):
        m = int(rng.integers(2, 9))
        k = int(rng.integers(1, 12))
        R = random_rankings(rng, k, m, p_missing=float(rng.choice([0.0, 0.3, 0.7])))
        w = rng.random(k) * rng.choice([1.0, 1e-3, 1e4])
        w[rng.integers(k)] = 0.0 if k > 1 else w[0]
        if not w.sum() > 0:
            continue
        max_iter = int(rng.choice([1, 2, 100]))
        ranks = np.ascontiguousarray(R.ranks)
        init = w @ generalized_borda_votes(R)
        center = np.empty(m, dtype=np.int64)
        mean, n_iter, conv = _nb_em_one(
            ranks, w, init, max_iter, True,
            EMWork(np.empty((k, m), dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(m),
                   np.empty((max_iter, m), dtype=np.int64), np.empty(max_iter)),
            center,
        )  # fmt: skip
        ref, ref_iter, ref_conv = estimate_center(
            R, w, method="borda", max_iter=max_iter, return_n_iter=True
        )
        np.testing.assert_array_equal(center, ref, err_msg=f"trial {trial}")
        assert (n_iter, conv) == (ref_iter, ref_conv)
        completed = _extend(R, ref) if (R.ranks < 0).any() else R
        ref_mean = float(w @ kendall_distances(completed, ref)) / w.sum()
        assert mean == pytest.approx(ref_mean, rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------------------------
# one registry of centre methods, one auto rule
# --------------------------------------------------------------------------------------------
def test_every_estimator_reads_the_one_registry():
    assert set(MALLOWS_CENTER_METHODS) <= set(CENTER_METHODS)
    assert set(MIXTURE_CENTER_METHODS) <= set(CENTER_METHODS)
    completion = CompletionMallowsMixture._parameter_constraints["center_method"][0]
    assert completion.options <= set(CENTER_METHODS)
    assert {"borda", "copeland"} <= set(CONSENSUS_METHODS) & set(CENTER_METHODS)


def test_auto_rule():
    limit = KEMENY_AUTO_EXACT_MAX_ITEMS
    assert limit == 10
    for name in ("auto", "kemeny"):
        assert resolve_center_method(name, limit) == "exact"
        assert resolve_center_method(name, limit + 1) == "local"
    for name in ("exact", "local", "adjacent", "borda", "copeland"):
        assert resolve_center_method(name, 3) == name


@pytest.mark.parametrize("m", [4, 9, 10, 11, 13])
def test_center_from_counts_is_each_rule(rng, m):
    R = random_rankings(rng, 30, m, p_missing=0.2)
    C = R.pairwise_counts(rng.random(30))
    prev = rng.permutation(m)
    exact = kemeny_exact(C)
    local_prev = kemeny_local_search(C, init=prev)
    expect = {
        "exact": exact,
        "local": local_prev,
        "adjacent": kemeny_local_search(C, init=prev, moves="adjacent", max_iter=1),
        "borda": CS.borda(C),
        "copeland": CS.copeland(C),
        "auto": exact if m <= 10 else local_prev,
        "kemeny": exact if m <= 10 else local_prev,
    }
    assert set(expect) == set(CENTER_METHODS)
    for name, ref in expect.items():
        np.testing.assert_array_equal(center_from_counts(C, name, init=prev), ref, err_msg=name)
    np.testing.assert_array_equal(center_from_counts(C, "local"), kemeny_local_search(C))
    with pytest.raises(ValueError, match="center_from_counts: parameter 'method' must be a str"):
        center_from_counts(C, "median")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("m", [9, 10])
def test_mixture_auto_is_exact_up_to_ten_items(rng, m):
    """The mixtures' ``auto`` follows the one rule: exact centre steps at m = 9 and 10."""
    R = random_rankings(rng, 120, m, kind="top", p_missing=0.5, min_length=2)
    mix = MallowsMixture(2, random_state=0)
    C = R.pairwise_counts()
    np.testing.assert_array_equal(mix._center_step(C, rng.permutation(m)), kemeny_exact(C))
    a = MallowsMixture(2, n_init=2, random_state=0).fit(R)
    b = MallowsMixture(2, center_method="exact", n_init=2, random_state=0).fit(R)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.log_likelihood_ == b.log_likelihood_
    c = CompletionMallowsMixture(2, n_init=1, max_iter=5, random_state=0).fit(R)
    d = CompletionMallowsMixture(2, center_method="exact", n_init=1, max_iter=5, random_state=0)
    d.fit(R)
    np.testing.assert_array_equal(c.center_positions_, d.center_positions_)


def test_mixture_local_keeps_the_cheaper_of_two_starts(rng):
    m = 12
    R = random_rankings(rng, 60, m)
    C = R.pairwise_counts()
    mix = MallowsMixture(2, center_method="local")
    for _ in range(10):
        prev = rng.permutation(m)
        got = mix._center_step(C, prev)
        a = kemeny_local_search(C, init=prev)
        b = kemeny_local_search(C)
        best = b if CS.kemeny_cost(C, b) < CS.kemeny_cost(C, a) else a
        np.testing.assert_array_equal(got, best)


# --------------------------------------------------------------------------------------------
# the distance registry is the one list of metric names
# --------------------------------------------------------------------------------------------
def test_metric_names_are_the_registry_keys():
    R = Rankings([[0, 1, 2], [2, 0, 1]])
    for metric in DISTANCES:
        max_distance(metric, 3)
        paired_distances(R, R, metric=metric)
        pairwise_distances(R, metric=metric)
    msg = re.escape("must be a str among {" + ", ".join(map(repr, sorted(DISTANCES))) + "}")
    for call in (
        lambda: max_distance("euclid", 3),
        lambda: paired_distances(R, R, metric="euclid"),
        lambda: pairwise_distances(R, metric="euclid"),
    ):
        with pytest.raises(ValueError, match=msg):
            call()
