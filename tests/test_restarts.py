"""Restart agreement (rankclust._restarts) and its use by the clusterers with n_init."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from rankclust import Rankings
from rankclust._restarts import (
    AUTO_BATCH,
    CHAIN_MAX_INIT,
    CHAIN_MAX_INIT_CHEAP,
    chain_max_init,
    restart_agreement,
    restart_rounds,
    restart_summary,
    same_partition,
    tied_rows,
    warn_auto_restarts,
    warn_if_disagree,
    warn_near_tie,
)
from rankclust.cluster import ChainKMeans, KOMeans, make_planted_chains

APA_1998 = "apa_elections_1998_2009/00028-00000001.soi"


def test_same_partition_ignores_the_numbering():
    assert same_partition([0, 0, 1, 2], [2, 2, 0, 1])
    assert not same_partition([0, 0, 1, 1], [0, 1, 1, 1])
    assert not same_partition([0, 0, 1], [0, 0, 0])
    assert not same_partition([0, 1], [0, 1, 1])
    assert same_partition([], [])


def test_restart_agreement_counts_near_starts_with_the_best_partition():
    labels = [[0, 0, 1], [1, 1, 0], [0, 1, 1], [0, 0, 1]]
    obj = [10.0, 10.0 + 1e-9, 10.0, 12.0]  # start 3: same partition, worse objective
    assert restart_agreement(obj, lambda i: labels[i], 0) == (2, 3)
    assert restart_agreement(obj, lambda i: labels[i], 0, rtol=0.0) == (1, 2)
    with pytest.warns(ConvergenceWarning, match="1 of 4 starts"):
        warn_if_disagree("X", 2, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_disagree("X", 3, 3, 4)


def test_a_best_objective_found_once_is_warned_as_unconfirmed():
    with pytest.warns(ConvergenceWarning, match="reached by 1 of 10 starts only"):
        warn_if_disagree("X", 1, 1, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_disagree("X", 1, 1, 1)  # one start: nothing to confirm it with
        warn_if_disagree("X", 2, 2, 10)


def test_chains_of_real_ballots_warn_when_the_seed_decides(shared_data):
    """APA 1998 read as chains: the default 10 starts rarely find the best error twice."""
    from rankclust.io import read_preflib

    R = read_preflib(shared_data / APA_1998, kind="subset")
    with pytest.warns(ConvergenceWarning, match="reached by 1 of 10 starts only"):
        est = ChainKMeans(3, n_init=10, random_state=1).fit(R)
    assert est.n_init_agreeing_ == 1


def _three_symmetric_groups(copies=5):
    # cyclic shifts of (0 1 2): every two are at Kendall distance 2, so with K = 2 every way
    # of pairing two groups has the same objective
    rows = [[0, 1, 2], [1, 2, 0], [2, 0, 1]] * copies
    return Rankings.from_orderings(rows, n_items=3)


@pytest.mark.parametrize("Est", [ChainKMeans, KOMeans])
def test_equally_good_different_partitions_are_warned(Est):
    R = _three_symmetric_groups()
    with pytest.warns(ConvergenceWarning, match="different partition"):
        est = Est(2, n_init=10, random_state=0).fit(R)
    assert 1 <= est.n_init_agreeing_ < 10


@pytest.mark.parametrize("Est", [ChainKMeans, KOMeans])
def test_separated_clusters_agree(Est):
    R, _ = make_planted_chains(200, n_items=8, length=8, n_clusters=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = Est(2, n_init=5, random_state=0).fit(R)
    assert est.n_init_agreeing_ >= 2


# ------------------------------------------------------------------ n_init="auto" and its pieces
def test_restart_summary_gap_is_the_nearest_different_partition():
    labels = [[0, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 0]]
    obj = [10.0, 10.0, 10.5, 12.0]  # start 3: start 2's partition relabelled
    assert restart_summary(obj, lambda i: labels[i], 0) == (2, 2, 0.05)
    same = [[0, 0, 1]] * 3
    assert restart_summary([1.0, 2.0, 3.0], lambda i: same[i], 0) == (1, 1, np.inf)
    # compared rows only: start 1 differs from start 0 on row 2 alone
    rows = np.array([True, True, False])
    two = [[0, 0, 1], [0, 0, 0]]
    assert restart_summary([5.0, 5.0], lambda i: two[i], 0, rows=rows) == (2, 2, np.inf)
    assert restart_summary([5.0, 5.0], lambda i: two[i], 0)[2] == 0.0


def test_tied_rows_marks_equal_smallest_distances():
    D = np.array([[0.0, 1.0, 2.0], [1.0, 1.0, 3.0], [2.0, 0.5, 0.5], [0.3, 0.3 + 1e-15, 1.0]])
    np.testing.assert_array_equal(tied_rows(D), [False, True, True, True])
    assert not tied_rows(np.zeros((4, 1))).any()  # one centre: nothing is tied


def test_chain_max_init_is_large_only_where_an_iteration_is_cheap():
    assert chain_max_init(7, 10**9, 0, 5, 3) == 7
    assert chain_max_init(None, 292, 1922, 5, 3) == CHAIN_MAX_INIT_CHEAP  # APA 1998
    assert chain_max_init(None, 10**6, 10**7, 100, 10) == CHAIN_MAX_INIT


def _scripted(objectives, partitions):
    """start() returning scripted runs (objective, labels) in order, and the count of calls."""
    calls = iter(range(len(objectives)))

    def start():
        i = next(calls)
        return objectives[i], np.asarray(partitions[i])

    return start


def test_restart_rounds_stops_when_n_agree_starts_agree():
    good, other = [0, 0, 1, 1], [0, 1, 0, 1]
    obj = [5.0] * 9 + [1.0] + [1.0, 1.0] + [3.0] * 8 + [9.0] * 20
    parts = [other] * 9 + [good] + [[1, 1, 0, 0], good] + [other] * 28
    best, rec = restart_rounds(
        _scripted(obj, parts), lambda r: r[0], lambda r: r[1], n_init="auto", budget=100,
        n_agree=3,
    )  # fmt: skip
    assert rec["n_starts"] == 2 * AUTO_BATCH  # one agreeing start in round 1, three after 2
    assert (rec["n_agreeing"], rec["n_near"], rec["auto"]) == (3, 3, True)
    assert best[0] == 1.0 and rec["gap"] == pytest.approx(2.0)
    # the budget ends the search; an integer n_init is one round of that many starts
    _, rec = restart_rounds(
        _scripted(obj, parts), lambda r: r[0], lambda r: r[1], n_init="auto", budget=15,
        n_agree=3,
    )  # fmt: skip
    assert (rec["n_starts"], rec["n_agreeing"]) == (15, 3)
    _, rec = restart_rounds(
        _scripted(obj, parts), lambda r: r[0], lambda r: r[1], n_init=4, budget=1, n_agree=3
    )
    assert (rec["n_starts"], rec["n_agreeing"], rec["gap"]) == (4, 4, np.inf)


def test_auto_warnings_say_what_to_raise():
    with pytest.warns(ConvergenceWarning, match="reached by 2 of the 40 starts.*raise max_init"):
        warn_auto_restarts("X", 2, 40, 40, 5)
    with pytest.warns(ConvergenceWarning, match=r"error 3\.0e-05 higher"):
        warn_near_tie("X", 3e-5, "error", "higher")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_auto_restarts("X", 5, 40, 40, 5)
        warn_auto_restarts("X", 1, 1, 1, 5)  # one start: nothing to confirm it with
        warn_near_tie("X", 2e-4)
        warn_near_tie("X", np.inf)


def _tied_chains():
    """Two planted orders and six chains (0, 2) on which both agree: the chains are at
    distance 0 from both centres, so their cluster is arbitrary."""
    rows = [[0, 1, 2, 3]] * 20 + [[1, 0, 3, 2]] * 20 + [[0, 2]] * 6
    return Rankings.from_orderings(rows, n_items=4, kind="subset")


@pytest.mark.parametrize("Est", [ChainKMeans, KOMeans])
def test_chains_tied_between_centres_are_not_a_disagreement(Est):
    """Every start finds the two planted centres; the tied chains keep their random start
    labels, so whole partitions differ, but the starts agree (the old rule warned here)."""
    R = _tied_chains()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = Est(2, n_init=10, random_state=2).fit(R)
    assert len(set(est.labels_[40:].tolist())) == 2  # the tied chains were split
    assert (est.n_init_agreeing_, est.n_init_, est.n_tied_) == (10, 10, 6.0)
    assert est.restart_gap_ == np.inf and est.objective_ == 0.0


# fits of n_init=7 before n_init="auto" existed (objective_, n_iter_, sum_i i * labels_i)
_BEFORE_AUTO = {
    (ChainKMeans, "random_partition"): (101.98233354921504, 8, 11499),
    (ChainKMeans, "random_orders"): (101.05776080812593, 7, 11734),
    (KOMeans, "random_partition"): (32.4, 3, 10755),
    (KOMeans, "k-means++"): (32.599999999999994, 4, 10137),
}


@pytest.mark.parametrize(("Est", "init"), list(_BEFORE_AUTO))
def test_integer_n_init_gives_the_fit_it_gave_before(Est, init):
    rng = np.random.default_rng(3)
    rows = [rng.permutation(6)[: rng.integers(2, 6)].tolist() for _ in range(150)]
    R = Rankings.from_orderings(rows, n_items=6, kind="subset")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = Est(3, init=init, n_init=7, random_state=2).fit(R)
    assert (est.objective_, est.n_iter_, int(est.labels_ @ np.arange(150))) == _BEFORE_AUTO[
        (Est, init)
    ]
    assert est.n_init_ == 7


@pytest.mark.parametrize("Est", [ChainKMeans, KOMeans])
def test_auto_is_the_default_and_its_first_round_is_n_init_10(Est):
    R, _ = make_planted_chains(200, n_items=8, length=5, n_clusters=3, random_state=1)
    auto = Est(3, random_state=4).fit(R)
    ten = Est(3, n_init=10, random_state=4).fit(R)
    assert Est().n_init == "auto"
    assert auto.n_init_ == 10  # well separated: 5 of the first 10 starts agree
    assert auto.n_init_agreeing_ >= auto.n_agree
    np.testing.assert_array_equal(auto.labels_, ten.labels_)
    assert auto.objective_ == ten.objective_


@pytest.mark.parametrize("Est", [ChainKMeans, KOMeans])
def test_auto_reaches_the_same_partition_for_every_seed(Est):
    R, _ = make_planted_chains(300, n_items=10, length=(3, 6), n_clusters=3, random_state=0)
    fits = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        for seed in range(4):
            fits.append(Est(3, random_state=seed).fit(R))
    for est in fits:
        assert est.n_init_agreeing_ >= est.n_agree and est.n_init_ == AUTO_BATCH
        assert est.n_tied_ == 55.0  # chains consistent with two planted bucket orders
        assert {"n_init_", "n_init_agreeing_", "restart_gap_", "n_tied_"} <= set(vars(est))
        assert est.objective_ == pytest.approx(fits[0].objective_, rel=1e-12)
        D = est.transform(R)
        rows = ~tied_rows(D)
        assert same_partition(est.labels_[rows], fits[0].labels_[rows])


@pytest.mark.parametrize("Est", [ChainKMeans, KOMeans])
def test_auto_warns_when_equally_good_partitions_compete(Est):
    R = _three_symmetric_groups()
    with pytest.warns(ConvergenceWarning, match="different partition fits nearly as well"):
        est = Est(2, random_state=0).fit(R)
    assert est.restart_gap_ == 0.0


@pytest.mark.parametrize("Est", [ChainKMeans, KOMeans])
def test_auto_warns_when_the_budget_ends_before_agreement(Est):
    rng = np.random.default_rng(0)
    rows = [rng.permutation(7)[: rng.integers(2, 7)].tolist() for _ in range(300)]
    R = Rankings.from_orderings(rows, n_items=7, kind="subset")  # no cluster structure
    with pytest.warns(ConvergenceWarning, match="raise max_init"):
        est = Est(4, max_init=20, random_state=0).fit(R)
    assert est.n_init_ == 20 and est.n_init_agreeing_ < est.n_agree


@pytest.mark.parametrize("Est", [ChainKMeans, KOMeans])
@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"n_init": "many"}, "n_init"),
        ({"n_init": 0}, "n_init"),
        ({"n_init": 2.5}, "n_init"),
        ({"max_init": 0}, "max_init"),
        ({"max_init": "auto"}, "max_init"),
        ({"n_agree": 0}, "n_agree"),
        ({"n_agree": None}, "n_agree"),
    ],
)
def test_restart_parameters_are_validated(Est, params, name):
    R, _ = make_planted_chains(30, n_items=5, length=3, n_clusters=2, random_state=0)
    with pytest.raises(ValueError, match=f"parameter '{name}' must be"):
        Est(2, **params).fit(R)


def test_array_init_makes_one_run_with_auto():
    R, y = make_planted_chains(60, n_items=6, length=4, n_clusters=2, random_state=0)
    est = ChainKMeans(2, init=np.asarray(y, dtype=np.int64), random_state=0).fit(R)
    assert (est.n_init_, est.n_init_agreeing_) == (1, 1)


def test_apa_chains_reach_one_partition_with_the_default(shared_data):
    """APA 1998 read as chains, K = 3: seeds 1..3 keep the same error and partition."""
    from rankclust.io import read_preflib

    R = read_preflib(shared_data / APA_1998, kind="subset")
    fits = []
    for seed in (1, 2, 3):
        with pytest.warns(ConvergenceWarning, match="nearly as well"):  # a 4e-5 worse one
            fits.append(ChainKMeans(3, random_state=seed).fit(R))
    for est in fits:
        assert est.objective_ == pytest.approx(18077.994662, abs=1e-5)
        assert est.n_init_agreeing_ >= 5 and est.restart_gap_ == pytest.approx(3.88e-5, rel=1e-2)
        rows = ~tied_rows(est.transform(R))
        assert same_partition(est.labels_[rows], fits[0].labels_[rows])


def test_komeans_on_apa_chains_finds_the_exhaustive_optimum_and_says_it_is_rare(shared_data):
    """The k-o'means objective of APA 1998 read as chains (K = 3) is lowest, 7920.3, at one
    triple of central orders (exhaustive search over all 120^3 triples of orders of the 5
    candidates); random-partition restarts reach it about 2 times in 1000, so the default
    budget finds it but rarely confirms it 5 times, and says so."""
    from rankclust.io import read_preflib

    R = read_preflib(shared_data / APA_1998, kind="subset")
    with pytest.warns(ConvergenceWarning, match="of the 1000 starts"):
        est = KOMeans(3, random_state=0).fit(R)
    assert est.objective_ == pytest.approx(7920.3, abs=1e-6)
    assert est.n_init_ == 1000 and 1 <= est.n_init_agreeing_ < 5
    assert est.n_tied_ == 1984.0  # ballots of 2-5 candidates equally far from two centres


def test_the_cli_restart_line_of_a_chain_clusterer():
    from rankclust.cli.report import restart_line

    R = _three_symmetric_groups()
    with pytest.warns(ConvergenceWarning):
        est = ChainKMeans(2, max_init=20, random_state=0).fit(R)
    text = restart_line(est)
    assert text.startswith(f"restarts: {est.n_init_} starts; the best fit was reached by")
    assert f"of the {est.n_init_} run to convergence" in text
    assert "0% higher in objective" in text and "log-likelihood" not in text
