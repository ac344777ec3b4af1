"""Tests for rankclust.consensus: Borda, generalised Borda, Copeland, Kemeny (exact and local)."""

from __future__ import annotations

import doctest
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import rankclust.consensus as consensus
from rankclust import Rankings
from rankclust.consensus import (
    CONSENSUS_METHODS,
    KEMENY_AUTO_EXACT_MAX_ITEMS,
    KEMENY_EXACT_MAX_ITEMS,
    _adjacent_step,
    _insertion_sweep,
    _kemeny_backtrack,
    _kemeny_subset_dp,
    _nb_adjacent_step,
    _nb_insertion_sweep,
    _nb_kemeny_backtrack,
    _nb_kemeny_subset_dp,
    borda,
    borda_scores,
    copeland,
    copeland_scores,
    generalized_borda,
    generalized_borda_scores,
    generalized_borda_votes,
    kemeny,
    kemeny_cost,
    kemeny_exact,
    kemeny_local_search,
)
from tests.conftest import random_rankings


# ------------------------------------------------------------------ pure-python references
def naive_cost(C: np.ndarray, pos: np.ndarray) -> float:
    """Kemeny cost by a double loop over ordered pairs."""
    m = len(pos)
    return float(sum(C[v, u] for u in range(m) for v in range(m) if u != v and pos[u] < pos[v]))


def positions(order) -> np.ndarray:
    pos = np.empty(len(order), dtype=np.int64)
    pos[list(order)] = np.arange(len(order))
    return pos


def brute_force_kemeny(C: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Minimum cost, the lexicographically first optimal ordering, and all costs.

    ``itertools.permutations`` yields orderings in lexicographic order, so the first minimiser
    is the lexicographically smallest optimal ordering.
    """
    m = C.shape[0]
    C = C.astype(np.float64).copy()
    np.fill_diagonal(C, 0.0)
    orders = np.array(list(itertools.permutations(range(m))), dtype=np.int64).reshape(-1, m)
    pos = np.empty_like(orders)
    np.put_along_axis(pos, orders, np.arange(m)[None, :].repeat(len(orders), 0), axis=1)
    above = pos[:, :, None] < pos[:, None, :]  # [p, u, v]: u above v
    costs = (above * C.T[None]).sum(axis=(1, 2))
    best = int(np.argmin(costs))
    return float(costs[best]), orders[best], costs


def reference_subset_dp(C: np.ndarray) -> dict[int, float]:
    """g(S) by the textbook O(2^m m^2) recursion, with dictionaries."""
    m = C.shape[0]
    g = {0: 0.0}
    for S in range(1, 1 << m):
        members = [v for v in range(m) if S >> v & 1]
        g[S] = min(sum(C[u, v] for u in members if u != v) + g[S ^ (1 << v)] for v in members)
    return g


def reference_insertion_sweep(C: np.ndarray, order: list[int]) -> tuple[list[int], int]:
    """One sweep of insertion moves priced by recomputing the full cost of every candidate."""
    m = len(order)
    order = list(order)
    n_moves = 0
    for x in range(m):
        i = order.index(x)
        base = naive_cost(C, positions(order))
        best, best_j = 0.0, i
        for j in range(m):
            cand = order[:i] + order[i + 1 :]
            cand.insert(j, x)
            d = naive_cost(C, positions(cand)) - base
            if d < best:
                best, best_j = d, j
        if best_j != i:
            order.pop(i)
            order.insert(best_j, x)
            n_moves += 1
    return order, n_moves


def insertion_neighbours(pos: np.ndarray):
    """Every ranking one insertion move away (includes the adjacent swaps)."""
    order = list(np.argsort(pos))
    m = len(order)
    for i in range(m):
        for j in range(m):
            if i != j:
                cand = order[:i] + order[i + 1 :]
                cand.insert(j, order[i])
                yield positions(cand)


def kendall(a: np.ndarray, b: np.ndarray) -> int:
    """Discordant pairs between two position vectors, among items present (>= 0) in both."""
    m = len(a)
    return sum(
        1
        for u in range(m)
        for v in range(u + 1, m)
        if min(a[u], a[v], b[u], b[v]) >= 0 and (a[u] - a[v]) * (b[u] - b[v]) < 0
    )


def random_counts(rng, m, source):
    if source == "int":
        return rng.integers(0, 6, size=(m, m)).astype(np.float64)
    if source == "complete":
        return random_rankings(rng, 9, m).pairwise_counts()
    if source == "subset":
        return random_rankings(rng, 9, m, p_missing=0.4).pairwise_counts()
    return random_rankings(rng, 9, m, kind="top", p_missing=0.5).pairwise_counts()


SOURCES = ["int", "complete", "subset", "top"]


def is_permutation(pos, m):
    return pos.dtype == np.int64 and pos.shape == (m,) and sorted(pos.tolist()) == list(range(m))


# ------------------------------------------------------------------ kemeny_exact
@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("source", SOURCES)
def test_kemeny_exact_attains_brute_force_minimum(m, source):
    rng = np.random.default_rng(100 * m + SOURCES.index(source))
    for _ in range(15):
        C = random_counts(rng, m, source)
        best, first_order, _ = brute_force_kemeny(C)
        center, cost = kemeny_exact(C, return_cost=True)
        assert is_permutation(center, m)
        assert cost == best
        assert kemeny_cost(C, center) == best
        # deterministic tie rule: the lexicographically smallest optimal ordering
        np.testing.assert_array_equal(np.argsort(center), first_order)


def test_kemeny_exact_ties_follow_item_index():
    # no information at all: every ranking is optimal, the identity is lexicographically first
    np.testing.assert_array_equal(kemeny_exact(np.zeros((5, 5))), np.arange(5))
    # a symmetric 3-cycle: the optimal orderings are the rotations; (0, 1, 2) comes first
    C = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(kemeny_exact(C), [0, 1, 2])
    np.testing.assert_array_equal(kemeny_exact(C.T), [0, 2, 1])


def test_kemeny_exact_tables_match_reference_and_python_kernel():
    rng = np.random.default_rng(7)
    for m in (1, 3, 5, 7):
        C = rng.integers(0, 9, size=(m, m)).astype(np.float64)
        np.fill_diagonal(C, 0.0)
        g_nb, a_nb = np.empty(1 << m), np.empty((1 << m, m))
        g_py, a_py = np.empty(1 << m), np.empty((1 << m, m))
        _nb_kemeny_subset_dp(C, g_nb, a_nb)
        _kemeny_subset_dp(C, g_py, a_py)
        np.testing.assert_array_equal(g_nb, g_py)
        np.testing.assert_array_equal(a_nb, a_py)
        ref = reference_subset_dp(C)
        np.testing.assert_array_equal(g_nb, [ref[S] for S in range(1 << m)])
        for S in range(1 << m):  # a[S, v] = sum_{u in S} C[u, v]
            members = [u for u in range(m) if S >> u & 1]
            np.testing.assert_array_equal(a_nb[S], C[members].sum(axis=0))
        o_nb, o_py = np.empty(m, np.int64), np.empty(m, np.int64)
        _nb_kemeny_backtrack(g_nb, a_nb, 0.0, o_nb)
        _kemeny_backtrack(g_py, a_py, 0.0, o_py)
        np.testing.assert_array_equal(o_nb, o_py)


def test_kemeny_exact_float_counts_and_noise():
    # float responsibilities: the optimum is found, and noise-level asymmetries do not
    # override the index tie rule
    rng = np.random.default_rng(3)
    R = random_rankings(rng, 30, 6, p_missing=0.3)
    C = R.pairwise_counts(rng.random(30))
    best, _, _ = brute_force_kemeny(C)
    assert kemeny_exact(C, return_cost=True)[1] == pytest.approx(best, rel=1e-12)
    C2 = np.array([[0.0, 0.1 + 0.2], [0.3, 0.0]])  # 0.30000000000000004 vs 0.3
    np.testing.assert_array_equal(kemeny_exact(C2), [0, 1])
    np.testing.assert_array_equal(kemeny_exact(C2.T), [0, 1])


def test_kemeny_exact_limits_and_edge_sizes():
    np.testing.assert_array_equal(kemeny_exact(np.zeros((0, 0))), np.zeros(0, np.int64))
    assert kemeny_exact(np.zeros((0, 0)), return_cost=True)[1] == 0.0
    np.testing.assert_array_equal(kemeny_exact([[4.0]]), [0])
    m = KEMENY_EXACT_MAX_ITEMS
    assert m == 15
    C = random_rankings(np.random.default_rng(0), 20, m).pairwise_counts()
    center, cost = kemeny_exact(C, return_cost=True)
    assert is_permutation(center, m)
    assert cost == kemeny_cost(C, center) <= kemeny_cost(C, borda(C))
    with pytest.raises(ValueError, match="at most 15 items"):
        kemeny_exact(np.zeros((m + 1, m + 1)))


def test_kemeny_exact_planted_consensus_is_recovered():
    # every ranking is the planted order with one adjacent swap: the planted order is optimal
    rng = np.random.default_rng(11)
    m = 9
    planted = rng.permutation(m)
    orderings = []
    for p in range(m - 1):
        o = planted.copy()
        o[[p, p + 1]] = o[[p + 1, p]]
        orderings.append(o.tolist())
    C = Rankings.from_orderings(orderings, n_items=m).pairwise_counts()
    np.testing.assert_array_equal(kemeny_exact(C), positions(planted))
    np.testing.assert_array_equal(kemeny_local_search(C), positions(planted))


# ------------------------------------------------------------------ local search
@pytest.mark.parametrize("source", SOURCES)
def test_local_search_is_local_optimum_between_borda_and_exact(source):
    rng = np.random.default_rng(50 + SOURCES.index(source))
    n_equal = n_total = 0
    for m in (3, 4, 5, 6):
        for _ in range(12):
            C = random_counts(rng, m, source)
            center, cost = kemeny_local_search(C, return_cost=True)
            assert is_permutation(center, m)
            assert cost == naive_cost(C, center)
            # a local optimum: no insertion move (hence no adjacent swap) lowers the cost
            assert all(naive_cost(C, nb) >= cost for nb in insertion_neighbours(center))
            best, _, _ = brute_force_kemeny(C)
            assert best <= cost <= kemeny_cost(C, borda(C))
            n_equal += cost == best
            n_total += 1
    # measured with these seeds: 48/48 (int), 47/48 (complete), 48/48 (subset), 48/48 (top)
    assert n_equal >= 0.8 * n_total


def test_local_search_larger_m_local_optimum():
    rng = np.random.default_rng(5)
    for m in (10, 25):
        C = random_rankings(rng, 40, m, p_missing=0.2).pairwise_counts(rng.random(40))
        center, cost = kemeny_local_search(C, return_cost=True)
        assert cost == pytest.approx(naive_cost(C, center))
        tol = 1e-9 * C.max()
        assert all(naive_cost(C, nb) >= cost - tol for nb in insertion_neighbours(center))
        assert cost <= kemeny_cost(C, borda(C)) + tol


def test_insertion_sweep_matches_references():
    rng = np.random.default_rng(21)
    for m in (2, 4, 6, 8):
        for _ in range(10):
            C = rng.integers(0, 7, size=(m, m)).astype(np.float64)
            np.fill_diagonal(C, 0.0)
            D = C - C.T
            order0 = rng.permutation(m).astype(np.int64)
            results = []
            for kernel in (_nb_insertion_sweep, _insertion_sweep):
                order = order0.copy()
                pos = positions(order)
                n = kernel(D, order, pos, np.empty(m), 0.0)
                np.testing.assert_array_equal(pos, positions(order))
                results.append((order.tolist(), n))
            assert results[0] == results[1]
            ref_order, ref_n = reference_insertion_sweep(C, order0.tolist())
            assert results[0] == (ref_order, ref_n)


def test_adjacent_step_matches_references():
    rng = np.random.default_rng(22)
    for m in (1, 2, 5, 8):
        for _ in range(10):
            C = rng.integers(0, 7, size=(m, m)).astype(np.float64)
            np.fill_diagonal(C, 0.0)
            D = C - C.T
            order0 = rng.permutation(m).astype(np.int64)
            out = []
            for kernel in (_nb_adjacent_step, _adjacent_step):
                order = order0.copy()
                pos = positions(order)
                made = kernel(D, order, pos, 0.0)
                np.testing.assert_array_equal(pos, positions(order))
                out.append((order.tolist(), made))
            assert out[0] == out[1]
            # reference: the best adjacent swap by full recomputation (first on ties)
            base = naive_cost(C, positions(order0))
            best, best_order = 0.0, order0.tolist()
            for p in range(m - 1):
                cand = order0.tolist()
                cand[p], cand[p + 1] = cand[p + 1], cand[p]
                d = naive_cost(C, positions(cand)) - base
                if d < best:
                    best, best_order = d, cand
            assert out[0] == (best_order, int(best < 0))


def test_local_search_moves_max_iter_and_init():
    rng = np.random.default_rng(8)
    C = random_rankings(rng, 15, 7).pairwise_counts()
    start = positions(rng.permutation(7))
    # one adjacent step = the paper's GEM step of Busse et al.: the best adjacent swap
    one = kemeny_local_search(C, init=start, moves="adjacent", max_iter=1)
    D = C - C.T
    order = np.argsort(start)
    p = int(np.argmin([D[order[q], order[q + 1]] for q in range(6)]))
    if D[order[p], order[p + 1]] < 0:
        order[[p, p + 1]] = order[[p + 1, p]]
    np.testing.assert_array_equal(one, positions(order))
    # max_iter=0 returns the start unchanged; the start array is not modified
    start_copy = start.copy()
    np.testing.assert_array_equal(kemeny_local_search(C, init=start, max_iter=0), start)
    np.testing.assert_array_equal(start, start_copy)
    # adjacent descent to the end is an adjacent-swap local optimum
    adj, cost = kemeny_local_search(C, init=start, moves="adjacent", return_cost=True)
    order = list(np.argsort(adj))
    for q in range(6):
        cand = order.copy()
        cand[q], cand[q + 1] = cand[q + 1], cand[q]
        assert naive_cost(C, positions(cand)) >= cost
    # named inits
    np.testing.assert_array_equal(
        kemeny_local_search(C, init="borda"), kemeny_local_search(C, init=borda(C))
    )
    np.testing.assert_array_equal(
        kemeny_local_search(C, init="copeland"), kemeny_local_search(C, init=copeland(C))
    )
    np.testing.assert_array_equal(kemeny_local_search(C), kemeny_local_search(C, init="borda"))


def test_local_search_edge_sizes():
    np.testing.assert_array_equal(kemeny_local_search(np.zeros((0, 0))), np.zeros(0, np.int64))
    np.testing.assert_array_equal(kemeny_local_search([[0]]), [0])
    np.testing.assert_array_equal(kemeny_local_search([[0, 1], [3, 0]]), [1, 0])


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 14), st.integers(0, 2**32 - 1), st.booleans())
def test_best_local_center_is_the_cheaper_of_the_two_searches(m, seed, integer):
    rng = np.random.default_rng(seed)
    C = rng.random((m, m)) * 20
    if integer:  # ties in the costs and in Borda
        C = np.round(C)
    previous = positions(rng.permutation(m))
    kept = previous.copy()
    a = kemeny_local_search(C, init=previous)
    b = kemeny_local_search(C)
    want = b if kemeny_cost(C, b) < kemeny_cost(C, a) else a
    np.testing.assert_array_equal(consensus.best_local_center(C, previous), want)
    np.testing.assert_array_equal(previous, kept)  # the start is not moved in place


def test_best_local_center_checks_its_arguments():
    C = np.array([[0, 3, 1], [2, 0, 4], [4, 1, 0]])
    with pytest.raises(ValueError, match="negative"):
        consensus.best_local_center(-C, [0, 1, 2])
    with pytest.raises(ValueError, match="permutation"):
        consensus.best_local_center(C, [0, 0, 2])


# ------------------------------------------------------------------ kemeny (dispatch)
def test_kemeny_dispatch_and_registry():
    rng = np.random.default_rng(9)
    m = KEMENY_AUTO_EXACT_MAX_ITEMS
    assert m == 10
    C = rng.integers(0, 5, size=(m, m)).astype(np.float64)
    np.testing.assert_array_equal(kemeny(C), kemeny_exact(C))
    np.testing.assert_array_equal(kemeny(C, method="local"), kemeny_local_search(C))
    C11 = rng.integers(0, 5, size=(m + 1, m + 1)).astype(np.float64)
    start = positions(rng.permutation(m + 1))
    np.testing.assert_array_equal(kemeny(C11, init=start), kemeny_local_search(C11, init=start))
    np.testing.assert_array_equal(kemeny(C11, method="exact"), kemeny_exact(C11))
    c, cost = kemeny(C11, method="exact", return_cost=True)
    assert cost == kemeny_cost(C11, c)
    assert set(CONSENSUS_METHODS) == {"borda", "copeland", "kemeny"}
    for name, rule in CONSENSUS_METHODS.items():
        assert is_permutation(rule(C), m), name
    assert CONSENSUS_METHODS["kemeny"] is kemeny


# ------------------------------------------------------------------ kemeny_cost
def test_kemeny_cost_is_weighted_kendall_distance_complete():
    rng = np.random.default_rng(12)
    for m in (1, 2, 5, 8):
        R = random_rankings(rng, 12, m)
        w = rng.integers(1, 4, size=12).astype(np.float64)
        C = R.pairwise_counts(w)
        for _ in range(4):
            center = positions(rng.permutation(m))
            expected = sum(w[i] * kendall(R.ranks[i], center) for i in range(12))
            assert kemeny_cost(C, center) == expected
            assert kemeny_cost(C, center) == naive_cost(C, center)


def test_kemeny_cost_subset_and_top_data():
    rng = np.random.default_rng(13)
    m = 6
    R = random_rankings(rng, 20, m, p_missing=0.4)
    center = positions(rng.permutation(m))
    # subset rankings: discordant observed pairs
    assert kemeny_cost(R.pairwise_counts(), center) == sum(kendall(r, center) for r in R.ranks)
    # top-t lists: absent items form a bucket at the bottom; ties inside it cost nothing
    T = random_rankings(rng, 20, m, kind="top", p_missing=0.5)
    bottom = np.where(T.ranks >= 0, T.ranks, m)
    expected = sum(
        1
        for r in bottom
        for u in range(m)
        for v in range(m)
        if r[u] < r[v] and center[v] < center[u]
    )
    assert kemeny_cost(T.pairwise_counts(), center) == expected


def test_kemeny_cost_reversal_identity():
    rng = np.random.default_rng(14)
    C = rng.random((7, 7))
    center = positions(rng.permutation(7))
    total = C.sum() - np.trace(C)
    assert kemeny_cost(C, center) + kemeny_cost(C, 6 - center) == pytest.approx(total)


# ------------------------------------------------------------------ Borda
def test_borda_matches_mean_position_complete():
    rng = np.random.default_rng(15)
    for m in (2, 4, 7):
        for _ in range(10):
            R = random_rankings(rng, 6, m)
            w = rng.integers(1, 4, size=6).astype(np.float64)
            C = R.pairwise_counts(w)
            sum_pos = w @ R.ranks  # integers: exact ties
            expected = positions(np.lexsort((np.arange(m), sum_pos)))
            np.testing.assert_array_equal(borda(C), expected)
            # net scores are W (m - 1) - 2 sum_i w_i pos_i: affine in the classic Borda votes
            np.testing.assert_array_equal(borda_scores(C), w.sum() * (m - 1) - 2 * sum_pos)
            # plain wins order the same way for complete rankings
            wins = C.sum(axis=1)
            np.testing.assert_array_equal(positions(np.lexsort((np.arange(m), -wins))), expected)


def test_borda_with_ties_orders_by_mean_midrank():
    rng = np.random.default_rng(16)
    m = 6
    for _ in range(20):
        ranks = rng.integers(0, 3, size=(5, m))  # bucket orders with many ties
        R = Rankings(ranks)
        midrank = np.empty((5, m))
        for i, r in enumerate(R.ranks):
            for j in range(m):
                midrank[i, j] = (r < r[j]).sum() + ((r == r[j]).sum() - 1) / 2
        np.testing.assert_allclose(
            borda_scores(R.pairwise_counts()), 5 * (m - 1) - 2 * midrank.sum(0)
        )
        expected = positions(np.lexsort((np.arange(m), np.round(2 * midrank.sum(0)))))
        np.testing.assert_array_equal(borda(R.pairwise_counts()), expected)


def test_borda_ties_by_index_despite_float_noise():
    C = np.array([[0.0, 0.1 + 0.2], [0.3, 0.0]])
    assert borda_scores(C)[0] != borda_scores(C)[1]  # differ in the last bit ...
    np.testing.assert_array_equal(borda(C), [0, 1])  # ... but count as a tie
    np.testing.assert_array_equal(borda(C.T), [0, 1])
    np.testing.assert_array_equal(borda(np.zeros((4, 4))), np.arange(4))
    np.testing.assert_array_equal(borda(np.zeros((0, 0))), np.zeros(0, np.int64))


def test_diagonal_is_ignored_and_input_untouched():
    rng = np.random.default_rng(17)
    C = rng.integers(0, 5, size=(6, 6)).astype(np.float64)
    C0 = C.copy()
    np.fill_diagonal(C0, 0.0)
    C_diag = C0 + np.diag(rng.integers(1, 9, size=6))
    keep = C_diag.copy()
    for rule in (borda, copeland, kemeny_exact, kemeny_local_search, kemeny):
        np.testing.assert_array_equal(rule(C_diag), rule(C0))
    assert kemeny_cost(C_diag, np.arange(6)) == kemeny_cost(C0, np.arange(6))
    np.testing.assert_array_equal(C_diag, keep)


# ------------------------------------------------------------------ Copeland
def test_copeland_hand_examples():
    # Condorcet winner 2 beats everyone; 0 beats 1; 3 loses to all
    C = np.array([[0, 3, 1, 4], [2, 0, 0, 5], [4, 5, 0, 3], [1, 0, 2, 0]])
    np.testing.assert_array_equal(copeland_scores(C), [1, -1, 3, -3])
    np.testing.assert_array_equal(copeland(C), [1, 2, 0, 3])
    # a cycle: all scores 0, index order
    cyc = np.array([[0, 3, 1], [2, 0, 4], [4, 1, 0]])
    np.testing.assert_array_equal(copeland_scores(cyc), [0, 0, 0])
    np.testing.assert_array_equal(copeland(cyc), [0, 1, 2])
    # a tied contest counts for neither side, also with float noise
    tie = np.array([[0.0, 0.1 + 0.2, 1.0], [0.3, 0.0, 1.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(copeland_scores(tie), [1, 1, -2])


def test_copeland_condorcet_winner_is_kemeny_winner():
    rng = np.random.default_rng(18)
    found = 0
    for _ in range(60):
        C = random_rankings(rng, 7, 5).pairwise_counts()
        s = copeland_scores(C)
        if s.max() == 4:  # a Condorcet winner
            found += 1
            winner = int(np.argmax(s))
            assert copeland(C)[winner] == 0
            assert kemeny_exact(C)[winner] == 0
    assert found > 10


# ------------------------------------------------------------------ generalised Borda
def test_generalized_borda_paper_example():
    # Cheng et al. (2009) Prop. 2, worked example of decisions.md C10: m = 5, y2 > y1 > y5
    R = Rankings.from_orderings([[1, 0, 4]], n_items=5)
    np.testing.assert_allclose(generalized_borda_votes(R), [[3.0, 4.5, 3.0, 3.0, 1.5]])
    np.testing.assert_array_equal(generalized_borda(R), [1, 0, 2, 3, 4])
    # the same from 1-based rank arrays (the label-ranking CSV format)
    np.testing.assert_array_equal(generalized_borda(np.array([[2, 1, 0, 0, 3]])), [1, 0, 2, 3, 4])


def test_generalized_borda_equals_classic_borda_on_complete_rankings():
    rng = np.random.default_rng(19)
    for m in (1, 3, 6):
        R = random_rankings(rng, 10, m)
        w = rng.integers(1, 5, size=10).astype(np.float64)
        np.testing.assert_array_equal(generalized_borda_votes(R), m - R.ranks)
        np.testing.assert_array_equal(generalized_borda(R, w), borda(R.pairwise_counts(w)))
        Rw = R.with_weights(w)
        np.testing.assert_array_equal(generalized_borda(Rw), borda(Rw.pairwise_counts()))
        np.testing.assert_array_equal(generalized_borda_scores(R, w), w @ (m - R.ranks))


def expected_votes_by_enumeration(row: np.ndarray, kind: str) -> np.ndarray:
    """Mean classic Borda votes m - position over all complete rankings consistent with row."""
    m = len(row)
    total = np.zeros(m)
    count = 0
    for order in itertools.permutations(range(m)):
        pos = positions(order)
        ok = True
        for u in range(m):
            for v in range(m):
                ru, rv = row[u], row[v]
                if ru >= 0 and rv >= 0 and ru < rv and pos[u] > pos[v]:
                    ok = False
                if kind == "top" and ru >= 0 and rv < 0 and pos[u] > pos[v]:
                    ok = False
        if ok:
            total += m - pos
            count += 1
    return total / count


@pytest.mark.parametrize("kind", ["subset", "top"])
def test_generalized_borda_votes_are_expected_borda_votes(kind):
    # Prop. 2: the votes are the classic Borda votes averaged over uniformly random consistent
    # completions; with ties (bucket orders) and for top-t lists too
    rng = np.random.default_rng(20)
    m = 5
    rows = [[-1, -1, -1, -1, -1], [2, -1, -1, -1, -1], [1, 0, -1, -1, 2], [0, 0, 1, -1, -1]]
    rows += [[1, 1, 0, 1, 1], [0, 1, 2, 3, 4], [-1, 0, 0, 0, -1]]
    for _ in range(8):
        r = rng.integers(-1, 3, size=m)
        rows.append(r.tolist())
    R = Rankings(np.array(rows), kind=kind)
    votes = generalized_borda_votes(R)
    for i, row in enumerate(R.ranks):
        np.testing.assert_allclose(votes[i], expected_votes_by_enumeration(row, kind), atol=1e-12)
    np.testing.assert_allclose(votes.sum(axis=1), m * (m + 1) / 2)


def test_generalized_borda_weights_equal_expanded_and_sample_weight():
    rng = np.random.default_rng(23)
    R = random_rankings(rng, 25, 7, p_missing=0.5)
    w = rng.integers(0, 4, size=25)
    Rw = R.with_weights(w)
    np.testing.assert_array_equal(generalized_borda(Rw), generalized_borda(Rw.expand()))
    np.testing.assert_array_equal(generalized_borda(Rw), generalized_borda(R, sample_weight=w))
    np.testing.assert_allclose(
        generalized_borda_scores(Rw, sample_weight=w), (w * w) @ generalized_borda_votes(R)
    )


def test_generalized_borda_uninformative_rows():
    R = Rankings.from_orderings([[], [3]], n_items=4)
    np.testing.assert_array_equal(generalized_borda_votes(R), np.full((2, 4), 2.5))
    np.testing.assert_array_equal(generalized_borda(R), np.arange(4))
    # top-t: a single listed item is above the three others, which share (m - t + 1)/2 = 2
    T = Rankings.from_orderings([[3]], n_items=4, kind="top")
    np.testing.assert_array_equal(generalized_borda_votes(T), [[2.0, 2.0, 2.0, 4.0]])
    assert generalized_borda_votes(Rankings(np.zeros((0, 3), np.int64))).shape == (0, 3)


# ------------------------------------------------------------------ hypothesis
count_matrices = st.integers(1, 6).flatmap(
    lambda m: arrays(np.int64, (m, m), elements=st.integers(0, 6))
)


@settings(max_examples=50, deadline=None)
@given(count_matrices)
def test_property_exact_local_borda_copeland(C):
    m = C.shape[0]
    best, _, _ = brute_force_kemeny(C)
    ce = kemeny_exact(C, return_cost=True)[1]
    cl = kemeny_local_search(C, return_cost=True)[1]
    assert ce == best <= cl <= kemeny_cost(C, borda(C))
    for rule in (borda, copeland, kemeny_exact, kemeny_local_search):
        assert is_permutation(rule(C), m)
    assert best <= kemeny_cost(C, copeland(C))


@settings(max_examples=50, deadline=None)
@given(count_matrices, st.randoms(use_true_random=False))
def test_property_relabelling_and_reversal(C, rnd):
    m = C.shape[0]
    perm = np.array(rnd.sample(range(m), m))
    Cp = C[np.ix_(perm, perm)]  # item k of Cp is item perm[k] of C
    center, cost = kemeny_exact(C, return_cost=True)
    assert kemeny_exact(Cp, return_cost=True)[1] == cost
    # reversing every preference reverses an optimal ranking
    assert kemeny_cost(C.T, m - 1 - center) == cost
    assert kemeny_exact(C.T, return_cost=True)[1] == cost
    # Borda scores are equivariant and antisymmetric
    np.testing.assert_array_equal(borda_scores(Cp), borda_scores(C)[perm])
    np.testing.assert_array_equal(borda_scores(C.T), -borda_scores(C))
    assert borda_scores(C).sum() == 0


@settings(max_examples=30, deadline=None)
@given(
    st.integers(2, 6),
    st.integers(1, 8),
    st.floats(0, 0.6),
    st.sampled_from(["subset", "top"]),
    st.integers(0, 2**32 - 1),
)
def test_property_weighted_counts_equal_expanded(m, n, p, kind, seed):
    rng = np.random.default_rng(seed)
    R = random_rankings(rng, n, m, kind=kind, p_missing=p).with_weights(rng.integers(0, 4, size=n))
    C, Ce = R.pairwise_counts(), R.expand().pairwise_counts()
    for rule in (borda, copeland, kemeny_exact, kemeny_local_search):
        np.testing.assert_array_equal(rule(C), rule(Ce))
    np.testing.assert_array_equal(generalized_borda(R), generalized_borda(R.expand()))


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "rule",
    [borda, borda_scores, copeland, copeland_scores, kemeny_exact, kemeny_local_search, kemeny],
)
def test_bad_count_matrices(rule):
    with pytest.raises(ValueError, match="square"):
        rule(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="square"):
        rule(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"C\[0, 1\] is not finite"):
        rule(np.array([[0.0, np.nan], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="not finite"):
        rule(np.array([[0.0, 1.0], [np.inf, 0.0]]))
    with pytest.raises(ValueError, match=r"C\[1, 0\] = -1.0 is negative"):
        rule(np.array([[0.0, 1.0], [-1.0, 0.0]]))
    with pytest.raises(TypeError, match="numeric"):
        rule(np.array([[True, False], [False, True]]))
    with pytest.raises(TypeError, match="numeric"):
        rule([["a", "b"], ["c", "d"]])


def test_bad_centers_and_options():
    C = np.ones((3, 3))
    with pytest.raises(ValueError, match="shape"):
        kemeny_cost(C, [0, 1])
    with pytest.raises(ValueError, match="permutation"):
        kemeny_cost(C, [0, 0, 1])
    with pytest.raises(ValueError, match="permutation"):
        kemeny_cost(C, [1, 2, 3])
    with pytest.raises(ValueError, match="integer"):
        kemeny_cost(C, [0.5, 1, 2])
    with pytest.raises(ValueError, match="init"):
        kemeny_local_search(C, init=[0, 1, 1])
    with pytest.raises(ValueError, match="init must be"):
        kemeny_local_search(C, init="kemeny")
    with pytest.raises(ValueError, match="moves"):
        kemeny_local_search(C, moves="swap")
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="max_iter"):
            kemeny_local_search(C, max_iter=bad)
    with pytest.raises(ValueError, match="method"):
        kemeny(C, method="brute")
    R = Rankings.from_orderings([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="sample_weight must have shape"):
        generalized_borda(R, sample_weight=[1.0])
    with pytest.raises(ValueError, match="non-negative"):
        generalized_borda(R, sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="non-negative"):
        generalized_borda(R, sample_weight=[1.0, np.nan])
    # float positions that are integers are accepted
    assert kemeny_cost(C, [0.0, 1.0, 2.0]) == 3.0
    assert math.isfinite(kemeny_cost(C, np.array([2, 0, 1], dtype=np.int32)))


def test_docstring_examples_run():
    result = doctest.testmod(consensus, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
