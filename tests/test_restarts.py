"""Restart agreement (rankclust._restarts) and its use by the clusterers with n_init."""

from __future__ import annotations

import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning

from rankclust import Rankings
from rankclust._restarts import restart_agreement, same_partition, warn_if_disagree
from rankclust.cluster import ChainKMeans, KOMeans, make_planted_chains


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

    R = read_preflib(shared_data / "apa_elections_1998_2009/00028-00000001.soi", kind="subset")
    with pytest.warns(ConvergenceWarning, match="reached by 1 of 10 starts only"):
        est = ChainKMeans(3, random_state=1).fit(R)
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
