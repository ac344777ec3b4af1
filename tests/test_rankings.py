"""Tests for the Rankings type: construction, validation, conversions, pairwise counts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankclust import Rankings, check_rankings
from rankclust.rankings import _pair_counts_hard, _pair_counts_soft
from tests.conftest import random_rankings


# ------------------------------------------------------------------ reference implementation
def naive_pairwise_counts(ranks: np.ndarray, kind: str, weights: np.ndarray) -> np.ndarray:
    n, m = ranks.shape
    C = np.zeros((m, m))
    for i in range(n):
        for u in range(m):
            for v in range(m):
                ru, rv = ranks[i, u], ranks[i, v]
                if ru < 0:
                    continue
                if (rv >= 0 and ru < rv) or (kind == "top" and rv < 0):
                    C[u, v] += weights[i]
    return C


# ------------------------------------------------------------------ construction
def test_from_orderings_basic_and_ties():
    R = Rankings.from_orderings([[2, 0, 1], [1, (0, 2)], [3]], n_items=4)
    np.testing.assert_array_equal(R.ranks, [[1, 2, 0, -1], [1, 0, 1, -1], [-1, -1, -1, 0]])
    assert R.kind == "subset"
    np.testing.assert_array_equal(R.lengths, [3, 3, 1])
    np.testing.assert_array_equal(R.has_ties, [False, True, False])
    assert not R.is_complete
    assert R.n_rankings == 3 and R.n_items == 4 and len(R) == 3


def test_from_orderings_array_path_matches_list_path(rng):
    perms = np.argsort(rng.random((50, 6)), axis=1)[:, :4]
    a = Rankings.from_orderings(perms, n_items=6, kind="top")
    b = Rankings.from_orderings(perms.tolist(), n_items=6, kind="top")
    assert a == b
    assert Rankings.from_orderings(perms.astype(float)) == Rankings.from_orderings(perms.tolist())
    with pytest.raises(ValueError, match="row 1: item 2 appears more than once"):
        Rankings.from_orderings(np.array([[0, 1], [2, 2]]))
    with pytest.raises(ValueError, match="row 0: item -1 is negative"):
        Rankings.from_orderings(np.array([[0, -1]]))
    with pytest.raises(ValueError, match="row 0: item 3 is out of range"):
        Rankings.from_orderings(np.array([[0, 3]]), n_items=3)
    with pytest.raises(ValueError, match=r"row 0: item 0\.5 is not an integer"):
        Rankings.from_orderings(np.array([[0.5, 1.0]]))


def test_n_items_inferred_from_items_or_max():
    assert Rankings.from_orderings([[0, 3]]).n_items == 4
    R = Rankings.from_orderings([[0]], items=["a", "b", "c"])
    assert R.n_items == 3 and R.items == ("a", "b", "c") and R.item_name(2) == "c"


def test_positions_are_made_dense():
    R = Rankings([[0, 5, 5, -1], [3, 1, 7, 7]])
    np.testing.assert_array_equal(R.ranks, [[0, 1, 1, -1], [1, 0, 2, 2]])
    # already-dense rows pass through the fast path unchanged, mixed with rows that need work
    mixed = Rankings([[2, 0, 1, -1], [0, 0, 1, 2], [-1, 1, 0, -1], [1, -1, 3, -1], [0, 1, 2, 3]])
    np.testing.assert_array_equal(
        mixed.ranks, [[2, 0, 1, -1], [0, 0, 1, 2], [-1, 1, 0, -1], [0, -1, 1, -1], [0, 1, 2, 3]]
    )


def test_from_ranks_and_back():
    Y = np.array([[2, 1, 3], [1, 0, 2], [1, 1, 2]])
    R = Rankings.from_ranks(Y)
    np.testing.assert_array_equal(R.ranks, [[1, 0, 2], [0, -1, 1], [0, 0, 1]])
    np.testing.assert_array_equal(R.to_ranks(), Y)
    Rn = Rankings.from_ranks(np.array([[2.0, np.nan, 1.0]]))
    np.testing.assert_array_equal(Rn.ranks, [[1, -1, 0]])


def test_from_pairs():
    R = Rankings.from_pairs([(2, 0), (0, 1)], n_items=3, weights=[2, 1])
    np.testing.assert_array_equal(R.ranks, [[1, -1, 0], [0, 1, -1]])
    C = R.pairwise_counts()
    assert C[2, 0] == 2 and C[0, 1] == 1 and C.sum() == 3
    with pytest.raises(ValueError, match="row 0: pair"):
        Rankings.from_pairs([(1, 1)], n_items=2)
    with pytest.raises(ValueError, match="shape"):
        Rankings.from_pairs([(1, 1, 1)], n_items=2)


def test_to_orderings_round_trip():
    orderings = [[2, 0, 1], [1, 3], []]
    R = Rankings.from_orderings(orderings, n_items=4)
    assert R.to_orderings() == orderings
    T = Rankings.from_orderings([[1, (0, 2)]])
    assert T.to_orderings(buckets=True) == [[(1,), (0, 2)]]
    with pytest.raises(ValueError, match="row 0: has ties"):
        T.to_orderings()


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize(
    ("orderings", "n_items", "message"),
    [
        ([[0, 1], [1, 1]], 3, "row 1: item 1 appears more than once"),
        ([[0, 5]], 3, "row 0: item 5 is out of range"),
        ([[0, -2]], 3, "row 0: item -2 is negative"),
        ([[0, 1.5]], 3, "row 0: item 1.5 is not an integer"),
        ([[0, "a"]], 3, "row 0: item 'a' is not an integer"),
        ([[0, True]], 3, "row 0: item True is not an integer"),
        ([[0], 3], 4, "row 1: an ordering must be a sequence"),
        ([[0, ()]], 3, "row 0: empty bucket"),
    ],
)
def test_from_orderings_errors_name_the_row(orderings, n_items, message):
    with pytest.raises(ValueError, match=message):
        Rankings.from_orderings(orderings, n_items=n_items)


@pytest.mark.parametrize(
    ("ranks", "message"),
    [
        ([[1, 2], [1, 2, 3]], "ragged input: row 1 has 3 entries, expected 2"),
        ([[1, 2], [1, -1]], "row 1: negative rank -1"),
        ([[1, 2.5]], "row 0: rank 2.5 of item 1 is not an integer"),
        ([[1, 2], [np.inf, 1]], "row 1: infinite rank"),
        ([1, 2, 3], "2-d array"),
    ],
)
def test_from_ranks_errors(ranks, message):
    with pytest.raises(ValueError, match=message):
        Rankings.from_ranks(ranks)


def test_constructor_errors():
    with pytest.raises(ValueError, match="row 0: NaN"):
        Rankings([[0.0, np.nan]])
    with pytest.raises(ValueError, match="below -1"):
        Rankings([[0, -3]])
    with pytest.raises(ValueError, match="Rankings: parameter 'kind' must be a str among"):
        Rankings([[0, 1]], kind="partial")
    with pytest.raises(TypeError, match="numeric"):
        Rankings([["a", "b"]])
    with pytest.raises(
        ValueError, match=r"weights must be finite and non-negative; row 1 has -2\.0"
    ):
        Rankings([[0, 1], [1, 0]], weights=[1, -2])
    with pytest.raises(ValueError, match="weights must be finite and non-negative; row 0 has nan"):
        Rankings([[0, 1]], weights=[np.nan])
    with pytest.raises(ValueError, match=r"weights must have shape \(2,\)"):
        Rankings([[0, 1], [1, 0]], weights=[1])
    with pytest.raises(ValueError, match="items has 1 names for 2 items"):
        Rankings([[0, 1]], items=["a"])
    with pytest.raises(ValueError, match="'a' appears more than once"):
        Rankings([[0, 1]], items=["a", "a"])


def test_ranks_are_read_only():
    R = Rankings([[0, 1]])
    with pytest.raises(ValueError):
        R.ranks[0, 0] = 1


def test_check_rankings():
    R = Rankings.from_orderings([[0, (1, 2)], [2]], n_items=3)
    assert check_rankings(R) is R
    with pytest.raises(ValueError, match="row 0 has tied items"):
        check_rankings(R, allow_ties=False)
    with pytest.raises(ValueError, match="row 1 ranks 1 items; this method needs at least 2"):
        check_rankings(R, min_length=2)
    with pytest.raises(ValueError, match="kind='subset' is not supported"):
        check_rankings(R, kinds=("top",))
    with pytest.raises(ValueError, match="has 3 items, expected 4"):
        check_rankings(R, n_items=4)
    A = check_rankings([[1, 2, 0]], kind="top")
    assert A.kind == "top" and A.ranks.tolist() == [[0, 1, -1]]


# ------------------------------------------------------------------ weights and rows
def test_weights_default_and_subsetting():
    R = Rankings([[0, 1], [1, 0], [0, 1]], weights=[1, 2, 3], items=["x", "y"])
    assert R.is_weighted
    S = R[[0, 2]]
    np.testing.assert_array_equal(S.weights, [1, 3])
    assert S.items == ("x", "y")
    assert R[1].ranks.tolist() == [[1, 0]]
    U = Rankings([[0, 1]])
    assert not U.is_weighted and U.weights.tolist() == [1.0]


def test_unique_and_expand():
    R = Rankings([[0, 1], [1, 0], [0, 1]], weights=[1, 2, 3])
    D, inv = R.unique()
    np.testing.assert_array_equal(D.ranks[inv], R.ranks)
    assert D.weights.sum() == 6 and len(D) == 2
    E = R.expand()
    assert len(E) == 6 and not E.is_weighted
    np.testing.assert_allclose(E.pairwise_counts(), R.pairwise_counts())
    with pytest.raises(ValueError, match="integer weights"):
        R.with_weights([0.5, 1, 1]).expand()


@pytest.mark.parametrize("m", [3, 20])  # integer-key path and the np.unique(axis=0) fallback
def test_unique_matches_row_unique(rng, m):
    R = random_rankings(rng, 300, m, p_missing=0.5)
    R = Rankings.concatenate([R, R[:50]])
    D, inv = R.unique()
    expected = np.unique(R.ranks, axis=0)
    np.testing.assert_array_equal(D.ranks, expected)
    np.testing.assert_array_equal(D.ranks[inv], R.ranks)
    np.testing.assert_allclose(D.weights, np.bincount(inv, minlength=len(D)))


def test_concatenate():
    a = Rankings([[0, 1]])
    b = Rankings([[1, 0]], weights=[2])
    c = Rankings.concatenate([a, b])
    assert c.ranks.tolist() == [[0, 1], [1, 0]] and c.weights.tolist() == [1, 2]
    with pytest.raises(ValueError, match="share"):
        Rankings.concatenate([a, Rankings([[0, 1, 2]])])


def test_equality_and_repr():
    a = Rankings([[0, 1]], kind="top")
    assert a == Rankings([[0, 1]], kind="top")
    assert a != Rankings([[0, 1]])
    assert "kind='top'" in repr(a)


# ------------------------------------------------------------------ pairwise counts
@pytest.mark.parametrize("kind", ["subset", "top"])
def test_pairwise_counts_match_naive(rng, kind):
    R = random_rankings(rng, 60, 6, kind=kind, p_missing=0.4)
    w = rng.random(60) * 3
    Rw = R.with_weights(w)
    np.testing.assert_allclose(Rw.pairwise_counts(), naive_pairwise_counts(R.ranks, kind, w))


def test_pairwise_counts_with_ties_count_no_tied_pair():
    R = Rankings.from_orderings([[0, (1, 2), 3]])
    C = R.pairwise_counts()
    assert C[1, 2] == 0 and C[2, 1] == 0 and C[0, 1] == 1 and C[1, 3] == 1


@pytest.mark.parametrize("kind", ["subset", "top"])
def test_pairwise_counts_soft_and_hard_groups(rng, kind):
    R = random_rankings(rng, 40, 5, kind=kind, p_missing=0.3).with_weights(rng.random(40))
    resp = rng.dirichlet(np.ones(3), size=40)
    soft = R.pairwise_counts(resp)
    assert soft.shape == (3, 5, 5)
    for k in range(3):
        expected = naive_pairwise_counts(R.ranks, kind, R.weights * resp[:, k])
        np.testing.assert_allclose(soft[k], expected)
    np.testing.assert_allclose(soft.sum(axis=0), R.pairwise_counts())
    labels = rng.integers(0, 3, size=40)
    hard = R.pairwise_counts(labels=labels, n_groups=4)
    assert hard.shape == (4, 5, 5) and not hard[3].any()
    for k in range(3):
        sel = labels == k
        np.testing.assert_allclose(
            hard[k], naive_pairwise_counts(R.ranks[sel], kind, R.weights[sel])
        )


def test_pairwise_counts_kernels_match_python_reference(rng):
    R = random_rankings(rng, 30, 7, p_missing=0.3)
    w = rng.random((30, 2))
    out_nb = np.zeros((2, 7, 7))
    out_py = np.zeros((2, 7, 7))
    from rankclust.rankings import _nb_pair_counts_hard, _nb_pair_counts_soft

    _nb_pair_counts_soft(R.ranks, w, out_nb)
    _pair_counts_soft(R.ranks, w, out_py)
    np.testing.assert_allclose(out_nb, out_py)
    lab = rng.integers(0, 2, size=30)
    out_nb[:] = 0
    out_py[:] = 0
    _nb_pair_counts_hard(R.ranks, w[:, 0].copy(), lab, out_nb)
    _pair_counts_hard(R.ranks, w[:, 0].copy(), lab, out_py)
    np.testing.assert_allclose(out_nb, out_py)


def test_pairwise_counts_complete_rankings_sum_to_pairs():
    perms = list(itertools.permutations(range(4)))
    R = Rankings.from_orderings(perms)
    C = R.pairwise_counts()
    # every ordered pair is won in exactly half of all permutations
    np.testing.assert_allclose(C + np.eye(4) * 12, np.full((4, 4), 12.0))


def test_pairwise_counts_bad_labels():
    R = Rankings([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="labels must have shape"):
        R.pairwise_counts(labels=[0])
    with pytest.raises(ValueError, match="< n_groups"):
        R.pairwise_counts(labels=[0, 2], n_groups=2)


def test_empty_data():
    R = Rankings(np.zeros((0, 3), dtype=int))
    assert R.n_rankings == 0
    assert R.pairwise_counts().shape == (3, 3)


# ------------------------------------------------------------------ properties
orderings_strategy = st.integers(2, 7).flatmap(
    lambda m: st.tuples(
        st.just(m),
        st.lists(
            st.permutations(list(range(m))).flatmap(
                lambda p: st.integers(0, len(p)).map(lambda k, p=p: list(p[:k]))
            ),
            min_size=1,
            max_size=12,
        ),
    )
)


@settings(max_examples=60, deadline=None)
@given(orderings_strategy, st.sampled_from(["subset", "top"]))
def test_property_round_trips_and_counts(data, kind):
    m, orderings = data
    R = Rankings.from_orderings(orderings, n_items=m, kind=kind)
    assert R.to_orderings() == orderings
    assert Rankings.from_ranks(R.to_ranks(), kind=kind) == R
    np.testing.assert_array_equal(R.lengths, [len(o) for o in orderings])
    C = R.pairwise_counts()
    np.testing.assert_allclose(C, naive_pairwise_counts(R.ranks, kind, R.weights))
    # each ranking orders every pair at most once
    assert (C + C.T <= len(orderings) + 1e-12).all()
    if kind == "subset":
        total_pairs = sum(len(o) * (len(o) - 1) / 2 for o in orderings)
        assert np.isclose(C.sum(), total_pairs)
