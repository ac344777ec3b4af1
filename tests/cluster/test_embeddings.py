"""Tests for rankclust.cluster.embeddings (Ukkonen 2011, Section 3)."""

from __future__ import annotations

import itertools
from math import comb, factorial

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from rankclust import Rankings
from rankclust.cluster import (
    graph_embedding,
    hypersphere_embedding,
    make_planted_chains,
    planted_partition_pq,
)


def random_chains(rng, n, m, lmin=1):
    return Rankings.from_orderings(
        [rng.permutation(m)[: int(rng.integers(lmin, m + 1))].tolist() for _ in range(n)],
        n_items=m,
    )


def f_unnormalised(order, m):
    """Eq. 11 before normalisation: pi(u) - (|pi| + 1) / 2 for u in pi, 0 otherwise."""
    f = np.zeros(m)
    for p, u in enumerate(order, start=1):
        f[u] = p - (len(order) + 1) / 2
    return f


# ---------------------------------------------------------------------------- hypersphere


def test_hypersphere_paper_example():
    # Section 3.2: tau = (5,1,6,3,7,2,8,4) over M = {1..8}
    R = Rankings.from_orderings([[4, 0, 5, 2, 6, 1, 7, 3]], n_items=8)
    F = hypersphere_embedding(R)
    f = np.array([-2.5, 1.5, -0.5, 3.5, -3.5, -1.5, 0.5, 2.5])
    assert np.linalg.norm(f) == pytest.approx(np.sqrt(42))
    np.testing.assert_allclose(F[0], f / np.sqrt(42))
    np.testing.assert_allclose(F[0].round(2), [-0.39, 0.23, -0.08, 0.54, -0.54, -0.23, 0.08, 0.39])


def test_hypersphere_chain_example_and_properties(rng):
    # worked by hand: m = 6, pi = (3, 1, 5) -> (0, 0, -1/sqrt2, 0, 1/sqrt2, 0)
    R = Rankings.from_orderings([[2, 0, 4]], n_items=6)
    np.testing.assert_allclose(
        hypersphere_embedding(R)[0], [0, 0, -np.sqrt(0.5), 0, np.sqrt(0.5), 0]
    )
    R = random_chains(rng, 50, 9)
    F = hypersphere_embedding(R)
    Frev = hypersphere_embedding(
        Rankings.from_orderings([o[::-1] for o in R.to_orderings()], n_items=9)
    )
    np.testing.assert_allclose(Frev, -F)  # antipodal reversal (Eqs. 8-9)
    norms = np.linalg.norm(F, axis=1)
    np.testing.assert_allclose(norms, np.where(R.lengths >= 2, 1.0, 0.0))
    for i, order in enumerate(R.to_orderings()):
        f = f_unnormalised(order, 9)
        nf = np.linalg.norm(f)
        np.testing.assert_allclose(F[i], f / nf if nf > 0 else f)
    np.testing.assert_allclose(hypersphere_embedding(R, sparse=True).toarray(), F)


def test_hypersphere_short_chains_are_zero():
    R = Rankings.from_orderings([[3], [], [0, 1]], n_items=4)
    F = hypersphere_embedding(R)
    np.testing.assert_array_equal(F[:2], 0.0)
    assert np.all(np.isfinite(F))


@pytest.mark.parametrize(
    ("m", "order"), [(6, [2, 0, 4]), (7, [1, 6, 3, 0]), (5, [3]), (5, [4, 0])]
)
def test_theorem5_by_brute_force(m, order):
    """Sum of f_tau over the linear extensions of pi is (m+1)!/(|pi|+1)! f_pi."""
    ell = len(order)
    total = np.zeros(m)
    n_ext = 0
    pos_in_chain = {u: p for p, u in enumerate(order)}
    for tau in itertools.permutations(range(m)):
        kept = [u for u in tau if u in pos_in_chain]
        if kept != list(order):
            continue
        n_ext += 1
        total += f_unnormalised(list(tau), m)
    assert n_ext == factorial(m) // factorial(ell)
    np.testing.assert_allclose(
        total, factorial(m + 1) / factorial(ell + 1) * f_unnormalised(order, m), atol=1e-9
    )


# ---------------------------------------------------------------------------- graph


def ref_graph(R: Rankings, diagonal: int = 0) -> np.ndarray:
    orders = R.to_orderings()
    n = len(orders)
    G = np.zeros((n, n), dtype=int)
    for i, j in itertools.product(range(n), repeat=2):
        pi = {(a, b) for a, b in itertools.combinations(orders[i], 2)}
        pj = {(a, b) for a, b in itertools.combinations(orders[j], 2)}
        agree = bool(pi & pj)
        disagree = bool(pi & {(b, a) for a, b in pj})
        G[i, j] = int(agree and not disagree) - int(disagree and not agree)
    for i in range(n):
        G[i, i] = diagonal if len(orders[i]) >= 2 else 0
    return G


def test_graph_embedding_spec_example():
    R = Rankings.from_orderings([[0, 1, 2], [1, 2, 3], [2, 1, 4], [0, 2, 1], [5, 6]])
    expect = [
        [0, 1, -1, 0, 0],
        [1, 0, -1, -1, 0],
        [-1, -1, 0, 1, 0],
        [0, -1, 1, 0, 0],
        [0, 0, 0, 0, 0],
    ]
    G = graph_embedding(R)
    assert G.dtype == np.int8
    np.testing.assert_array_equal(G.toarray(), expect)


def test_graph_embedding_paper_trio_is_zero():
    # (1..5), (6..10), (4,8,2,5,3): pi1 and pi3 both agree and disagree
    R = Rankings.from_orderings([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [3, 7, 1, 4, 2]], n_items=10)
    np.testing.assert_array_equal(graph_embedding(R).toarray(), np.zeros((3, 3)))


def test_graph_embedding_matches_brute_force(rng):
    R = random_chains(rng, 40, 7)
    np.testing.assert_array_equal(graph_embedding(R, chunk_size=7).toarray(), ref_graph(R))
    np.testing.assert_array_equal(graph_embedding(R, diagonal=1).toarray(), ref_graph(R, 1))
    G = graph_embedding(R).toarray()
    np.testing.assert_array_equal(G, G.T)


def test_graph_embedding_size_guard():
    R, _ = make_planted_chains(50, n_items=8, length=3, random_state=0)
    with pytest.raises(ValueError, match="max_rankings"):
        graph_embedding(R, max_rankings=49)
    with pytest.raises(ValueError, match="diagonal"):
        graph_embedding(R, diagonal=2)


def test_embeddings_work_with_sklearn_kmeans():
    R, y = make_planted_chains(300, n_items=10, length=6, n_clusters=2, random_state=2)
    for E in (hypersphere_embedding(R), graph_embedding(R).astype(float)):
        labels = KMeans(2, n_init=5, random_state=0).fit_predict(E)
        assert adjusted_rand_score(y, labels) > 0.8


# ---------------------------------------------------------------------------- Theorem 2


def test_planted_partition_pq_values():
    p, q, d = planted_partition_pq(200, 5)
    assert (round(p, 5), round(q, 5), round(d, 5)) == (0.00487, 0.00241, 0.00246)
    p, q, _ = planted_partition_pq(20, 4)
    assert (round(p, 5), round(q, 5)) == (0.16202, 0.07651)
    assert planted_partition_pq(100, 4)[2] == pytest.approx(0.00357, abs=5e-6)
    assert planted_partition_pq(100, 6)[2] == pytest.approx(0.02111, abs=5e-6)
    for m in (20, 50, 100, 200):
        for ell in range(2, m // 2):
            p, q, d = planted_partition_pq(m, ell)
            assert 0 < d <= p <= 2 * ell**2 / m  # Theorem 2, the proof's constant
            assert d < p or ell > 20  # q underflows only for very long chains
    with pytest.raises(ValueError):
        planted_partition_pq(5, 1)


def test_planted_partition_pq_by_enumeration():
    # p: two uniform l-subsets of one order agree iff they share >= 2 items;
    # q: against an independent uniform permutation, the shared items keep their order w.p. 1/i!
    m, ell = 6, 3
    subsets = list(itertools.combinations(range(m), ell))
    p = q = 0.0
    perms = list(itertools.permutations(range(m)))
    for s1 in subsets:
        for s2 in subsets:
            common = sorted(set(s1) & set(s2))
            if len(common) < 2:
                continue
            p += 1
            same = 0
            for perm in perms:
                pos = np.argsort(perm)
                same += all(pos[a] < pos[b] for a, b in itertools.pairwise(common))
            q += same / len(perms)
    total = comb(m, ell) ** 2
    pp, qq, _ = planted_partition_pq(m, ell)
    assert pp == pytest.approx(p / total)
    assert qq == pytest.approx(q / total)
