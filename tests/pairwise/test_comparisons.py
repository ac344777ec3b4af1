"""The sparse pairwise data type: validation, breaking rankings into pairs, closures."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.pairwise import Comparisons


def test_from_arrays_stores_rows_and_counts():
    C = Comparisons.from_arrays(
        [0, 2, 1], [1, 0, 2], assessor=[0, 0, 1], count=[2, 1, 3], tie=[0, 1, 0], items="abc"
    )
    assert (C.n_comparisons, C.n_items, C.n_assessors) == (3, 3, 2)
    assert C.items == ("a", "b", "c")
    assert C.win_counts().tolist() == [2.0, 3.0, 0.0]  # the tie row is no win
    i, j, wi, wj, tt = C.aggregate()
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == [(0, 1), (0, 2), (1, 2)]
    assert wi.tolist() == [2.0, 0.0, 3.0] and wj.tolist() == [0.0, 0.0, 0.0]
    assert tt.tolist() == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="read-only"):
        C.winner[0] = 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"winner": [0, 3], "loser": [1, 0], "n_items": 3}, r"row 1: winner 3 is not an item"),
        ({"winner": [0, 1], "loser": [1, 1]}, r"row 1: item 1 is compared with itself"),
        ({"winner": [0, 1], "loser": [1]}, r"loser has 1 entries, expected 2"),
        ({"winner": [0, 1], "loser": [1, 0], "count": [1, 0]}, r"row 1: count 0.0 is not"),
        ({"winner": [0, 1], "loser": [1, 0], "count": [1, np.nan]}, r"row 1: count nan"),
        ({"winner": [0.5], "loser": [1]}, r"winner\[0\] = 0.5 is not an integer"),
        ({"winner": [0, 1], "loser": [1, 0], "assessor": [0, -1]}, r"row 1: assessor -1"),
        ({"winner": [0, 1], "loser": [1, 0], "tie": [0, 2]}, r"tie must hold booleans"),
        ({"winner": [0, 1], "loser": [1, 0], "items": ["a", "a"]}, r"name 'a' appears twice"),
    ],
)
def test_bad_input_gives_one_line_errors(kwargs, message):
    with pytest.raises(ValueError, match=message) as info:
        Comparisons(**kwargs)
    assert "\n" not in str(info.value)


def test_hostile_sizes_are_refused_before_allocating(monkeypatch):
    with pytest.raises(ValueError, match=r"10000000000 items exceed max_items=100000"):
        Comparisons([0], [1], n_items=10**10)
    with pytest.raises(ValueError, match=r"3 comparisons exceed max_rows=2"):
        Comparisons([0, 1, 0], [1, 0, 1], limits={"max_rows": 2})
    R = Rankings.from_orderings([list(range(40))] * 3)
    monkeypatch.setenv("RANKCLUST_MAX_ROWS", "100")
    with pytest.raises(ValueError, match=r"up to 2340 comparisons \(max_rows=100\)"):
        Comparisons.from_rankings(R)


def test_from_rankings_modes_count_pairs():
    R = Rankings.from_orderings([[2, 0, 3, 1], [1, 3]], n_items=4, weights=[2.0, 1.0])
    all_ = Comparisons.from_rankings(R, "all")
    assert all_.n_comparisons == 6 + 1
    assert all_.count.tolist() == [2.0] * 6 + [1.0]
    pairs0 = {
        (int(w), int(lo))
        for w, lo, a in zip(all_.winner, all_.loser, all_.assessor, strict=True)
        if a == 0
    }
    assert pairs0 == {(2, 0), (2, 3), (2, 1), (0, 3), (0, 1), (3, 1)}
    adj = Comparisons.from_rankings(R, "adjacent")
    assert adj.n_comparisons == 3 + 1
    top = Comparisons.from_rankings(R, "top_vs_rest")
    assert {(int(w), int(lo)) for w, lo in zip(top.winner[:3], top.loser[:3], strict=True)} == {
        (2, 0),
        (2, 3),
        (2, 1),
    }
    with pytest.raises(ValueError, match="mode must be one of"):
        Comparisons.from_rankings(R, "some")


def test_top_lists_compare_listed_with_unlisted_items():
    R = Rankings.from_orderings([[1]], n_items=3, kind="top")
    C = Comparisons.from_rankings(R)
    assert sorted(zip(C.winner.tolist(), C.loser.tolist(), strict=True)) == [(1, 0), (1, 2)]


def test_ties_in_rankings_become_tie_rows():
    R = Rankings([[0, 0, 1]])  # items 0 and 1 tied on top
    C = Comparisons.from_rankings(R)
    assert C.tie.tolist() == [True, False, False]


@pytest.mark.parametrize("mode", ["all", "adjacent"])
def test_round_trip_rankings_pairs_closure(mode):
    rng = np.random.default_rng(3)
    orders = [list(rng.permutation(7)[: rng.integers(2, 8)]) for _ in range(30)]
    R = Rankings.from_orderings(orders, n_items=7)
    cl = Comparisons.from_rankings(R, mode).closure()
    assert cl.n_intransitive == 0 and cl.is_weak_order.all()
    np.testing.assert_array_equal(cl.rankings.ranks, R.ranks)
    # the closure holds exactly the l(l-1)/2 ordered pairs of each ranking
    assert cl.closure_pairs.shape[0] == sum(len(o) * (len(o) - 1) // 2 for o in orders)


def test_round_trip_with_ties():
    R = Rankings([[0, 0, 1, -1], [2, 1, 0, 1]])
    cl = Comparisons.from_rankings(R).closure()
    np.testing.assert_array_equal(cl.rankings.ranks, R.ranks)
    assert cl.n_intransitive == 0


def test_top_vs_rest_closure_is_a_partial_order_not_a_weak_order():
    R = Rankings.from_orderings([[0, 1, 2]])
    cl = Comparisons.from_rankings(R, "top_vs_rest").closure()
    assert cl.rankings.ranks.tolist() == [[0, 1, 1]]  # 1 and 2 are unordered
    assert cl.is_weak_order.tolist() == [True]
    cl = Comparisons.from_arrays([0, 2], [1, 3]).closure()  # a > b and c > d
    assert cl.is_weak_order.tolist() == [False]  # the levels order a over d, the data do not


def test_intransitive_assessor_is_reported_with_its_cycle_and_kept():
    # assessor 0: 0 > 1 > 2 > 0 and 2 > 3; assessor 1 transitive
    C = Comparisons.from_arrays(
        [0, 1, 2, 2, 0], [1, 2, 0, 3, 3], assessor=[0, 0, 0, 0, 1], items="abcd"
    )
    cl = C.closure()
    assert list(cl.intransitive) == [0]
    cycle = cl.intransitive[0]
    assert cycle[0] == cycle[-1] and sorted(cycle[:-1]) == [0, 1, 2]
    for a, b in itertools.pairwise(cycle):  # every step of the cycle is a stated preference
        assert any((C.winner == a) & (C.loser == b) & (C.assessor == 0))
    assert sorted(map(tuple, cl.cycle_pairs[0].tolist())) == [(0, 1), (1, 2), (2, 0)]
    # the cycle is one tied bucket above item 3, not dropped
    assert cl.rankings.ranks[0].tolist() == [0, 0, 0, 1]
    assert cl.rankings.ranks[1].tolist() == [0, -1, -1, 1]


def test_closure_refuses_a_huge_assessor():
    C = Comparisons.from_arrays(np.arange(99), np.arange(1, 100), assessor=np.zeros(99, int))
    with pytest.raises(ValueError, match="closure of assessor 0"):
        C.closure(limits={"max_cells": 1000})


@pytest.mark.parametrize("kind", ["subset", "top"])
def test_pairwise_counts_equal_those_of_the_rankings_broken_into_pairs(kind):
    rng = np.random.default_rng(0)
    orderings = [list(rng.permutation(5)[: rng.integers(2, 6)]) for _ in range(30)]
    R = Rankings.from_orderings(orderings, n_items=5, kind=kind)
    R = R.with_weights(rng.integers(1, 4, size=30).astype(float))
    C = Comparisons.from_rankings(R)
    np.testing.assert_allclose(C.pairwise_counts(), R.pairwise_counts())
    labels = rng.integers(0, 3, size=30)
    np.testing.assert_allclose(
        C.pairwise_counts(labels=labels, n_groups=4), R.pairwise_counts(labels=labels, n_groups=4)
    )


def test_pairwise_counts_ties_labels_and_errors():
    C = Comparisons.from_arrays(
        [0, 1, 0, 2], [1, 2, 2, 0], assessor=[0, 0, 1, 2], count=[2, 1, 1, 3],
        tie=[False, True, False, False],
    )  # fmt: skip
    W = C.pairwise_counts()
    assert W[0, 1] == 2 and W[1, 2] == W[2, 1] == 0.5 and W[0, 2] == 1 and W[2, 0] == 3
    assert C.pairwise_counts(tie_credit=0.0)[1, 2] == 0
    by = C.pairwise_counts(labels=[1, -1, 0])  # assessor 1 left out
    assert by.shape == (2, 3, 3)
    assert by[1, 0, 1] == 2 and by[0, 2, 0] == 3 and by[:, 0, 2].sum() == 0
    with pytest.raises(ValueError, match="labels must lie in"):
        C.pairwise_counts(labels=[0, 5, 0], n_groups=2)
    with pytest.raises(ValueError, match="has 2 entries, expected 3"):
        C.pairwise_counts(labels=[0, 1])
    with pytest.raises(ValueError, match="none"):
        Comparisons.from_arrays([0], [1]).pairwise_counts(labels=[0])
