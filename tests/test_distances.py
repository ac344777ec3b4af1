"""Tests for rankclust.distances: brute force over S_m, references, invariants, errors."""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankclust import Rankings
from rankclust.distances import (
    DISTANCES,
    _nb_kendall_all_pairs,
    _nb_kendall_all_pairs_complete,
    cayley_distance,
    cayley_distances,
    footrule_distance,
    footrule_distances,
    hamming_distance,
    hamming_distances,
    kendall_counts,
    kendall_distance,
    kendall_distances,
    max_distance,
    paired_distances,
    pairwise_distances,
    spearman_distance,
    spearman_distances,
    ulam_distance,
    ulam_distances,
)
from tests.conftest import random_rankings

METRICS = ["kendall", "spearman", "footrule", "cayley", "hamming", "ulam"]
SCALAR = {
    "kendall": kendall_distance,
    "spearman": spearman_distance,
    "footrule": footrule_distance,
    "cayley": cayley_distance,
    "hamming": hamming_distance,
    "ulam": ulam_distance,
}


# --------------------------------------------------------------------------------------------
# references (pure python / pure numpy)
# --------------------------------------------------------------------------------------------
def all_perms(m: int) -> np.ndarray:
    """All permutations of m items as position vectors, shape (m!, m)."""
    return np.array(list(itertools.permutations(range(m))), dtype=np.int64).reshape(-1, m)


def effective(a, kind):
    a = np.asarray(a, dtype=np.int64)
    if kind == "top":
        return np.where(a >= 0, a, a.max(initial=-1) + 1)
    return a


def ref_kendall_loop(a, b, kind_a="subset", kind_b="subset"):
    """Naive loop over pairs: (discordant, comparable) under the documented convention."""
    a, b = effective(a, kind_a), effective(b, kind_b)
    disc = comp = 0
    for u, v in itertools.combinations(range(len(a)), 2):
        if min(a[u], a[v], b[u], b[v]) < 0 or a[u] == a[v] or b[u] == b[v]:
            continue
        comp += 1
        disc += (a[u] < a[v]) != (b[u] < b[v])
    return disc, comp


def ref_kendall_numpy(A, B):
    """All-pairs (discordant, comparable) via sign matrices; A, B effective positions."""

    def signs(X):
        s = np.sign(X[:, :, None] - X[:, None, :])
        known = X >= 0
        return s * (known[:, :, None] & known[:, None, :])

    sa = signs(A).reshape(len(A), -1).astype(np.int64)
    sb = signs(B).reshape(len(B), -1).astype(np.int64)
    agree = (sa == 1).astype(np.int64) @ (sb == 1).T + (sa == -1).astype(np.int64) @ (sb == -1).T
    against = (sa == 1).astype(np.int64) @ (sb == -1).T + (sa == -1).astype(np.int64) @ (sb == 1).T
    # every unordered pair appears twice in the m x m sign matrices
    return against // 2, (agree + against) // 2


def effective_matrix(R: Rankings) -> np.ndarray:
    return np.array([effective(r, R.kind) for r in R.ranks]).reshape(R.shape)


def bubble_sort_distance(a, b):
    """Adjacent transpositions needed to turn ranking a into ranking b (bubble sort)."""
    order_a = list(np.argsort(a))
    seq = [int(b[j]) for j in order_a]  # b-positions listed in a's order
    swaps = 0
    for i in range(len(seq)):
        for j in range(len(seq) - 1 - i):
            if seq[j] > seq[j + 1]:
                seq[j], seq[j + 1] = seq[j + 1], seq[j]
                swaps += 1
    return swaps


def bfs_transpositions(m: int) -> dict[tuple, int]:
    """Fewest transpositions from the identity to each permutation of S_m, by BFS."""
    start = tuple(range(m))
    dist = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for u, v in itertools.combinations(range(m), 2):
            q = list(p)
            q[u], q[v] = q[v], q[u]
            q = tuple(q)
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    return dist


def naive_complete(metric, a, b):
    a, b = np.asarray(a), np.asarray(b)
    if metric == "spearman":
        return int(((a - b) ** 2).sum())
    if metric == "footrule":
        return int(np.abs(a - b).sum())
    if metric == "hamming":
        return int((a != b).sum())
    raise AssertionError(metric)


def as_rankings(P: np.ndarray, kind: str = "subset") -> Rankings:
    return Rankings(P, kind=kind)


# --------------------------------------------------------------------------------------------
# brute force over all permutations
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_kendall_equals_bubble_sort_distance_over_all_permutations(m):
    P = all_perms(m)
    D = pairwise_distances(as_rankings(P))
    for i, j in itertools.product(range(len(P)), repeat=2):
        expected = bubble_sort_distance(P[i], P[j])
        assert D[i, j] == expected
        if i < 6 and j < 6:  # the scalar path on a sample (the matrix covers all pairs)
            assert kendall_distance(P[i], P[j]) == expected


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_cayley_equals_fewest_transpositions_by_bfs(m):
    P = all_perms(m)
    D = pairwise_distances(as_rankings(P), metric="cayley")
    # BFS (swap the positions of two items) from every source for m <= 4, from the identity
    # (row 0) for m = 5; no invariance is assumed.
    sources = range(len(P)) if m <= 4 else [0]
    for i in sources:
        start = tuple(P[i])
        dist = {start: 0}
        queue = deque([start])
        while queue:
            p = queue.popleft()
            for u, v in itertools.combinations(range(m), 2):
                q = list(p)
                q[u], q[v] = q[v], q[u]
                q = tuple(q)
                if q not in dist:
                    dist[q] = dist[p] + 1
                    queue.append(q)
        for j in range(len(P)):
            assert D[i, j] == dist[tuple(P[j])]
    table = bfs_transpositions(m)
    for j in range(len(P)):
        assert cayley_distance(np.arange(m), P[j]) == table[tuple(P[j])]


def brute_force_lis(seq) -> int:
    """Longest increasing subsequence by trying every subset, largest first."""
    for size in range(len(seq), 0, -1):
        for idx in itertools.combinations(range(len(seq)), size):
            if all(seq[x] < seq[y] for x, y in itertools.pairwise(idx)):
                return size
    return 0


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 6])
def test_ulam_equals_m_minus_brute_force_lis_over_all_permutations(m):
    P = all_perms(m)
    D = pairwise_distances(as_rankings(P), metric="ulam")
    rng = np.random.default_rng(m)
    pairs = (
        itertools.product(range(len(P)), repeat=2) if m <= 4 else rng.integers(0, len(P), (300, 2))
    )
    for i, j in pairs:
        # items listed best first under P[j], read at their positions under P[i]
        seq = P[i][np.argsort(P[j])]
        assert D[i, j] == m - brute_force_lis(seq.tolist())
        assert ulam_distance(P[i], P[j]) == D[i, j]


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_ulam_equals_fewest_moves_by_bfs(m):
    """A move takes one item out of a ranking and puts it back at another place."""
    P = all_perms(m)
    D = pairwise_distances(as_rankings(P), metric="ulam")
    start = tuple(range(m))  # an ordering (item at each place); identity = P[0]
    dist = {start: 0}
    queue = deque([start])
    while queue:
        order = queue.popleft()
        for p, q in itertools.permutations(range(m), 2):
            rest = list(order)
            item = rest.pop(p)
            rest.insert(q, item)
            nxt = tuple(rest)
            if nxt not in dist:
                dist[nxt] = dist[order] + 1
                queue.append(nxt)
    for j in range(len(P)):
        order = tuple(np.argsort(P[j]).tolist())
        assert D[0, j] == dist[order]


@pytest.mark.parametrize("metric", ["spearman", "footrule", "hamming"])
@pytest.mark.parametrize("m", [1, 3, 5])
def test_elementwise_metrics_match_formulas_over_all_permutations(metric, m):
    P = all_perms(m)
    D = pairwise_distances(as_rankings(P), metric=metric)
    expected = np.array([[naive_complete(metric, a, b) for b in P] for a in P])
    np.testing.assert_array_equal(D, expected)
    assert D.dtype == np.int64
    for i, j in [(0, len(P) - 1), (len(P) // 2, 1 % len(P))]:
        assert SCALAR[metric](P[i], P[j]) == expected[i, j]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("m", [0, 1, 2, 3, 4, 5])
def test_max_distance_is_the_maximum_over_permutations(metric, m):
    P = all_perms(m) if m else np.zeros((1, 0), dtype=np.int64)
    D = pairwise_distances(as_rankings(P), metric=metric)
    assert D.max() == max_distance(metric, m)
    Dn = pairwise_distances(as_rankings(P), metric=metric, normalize=True)
    assert Dn.dtype == np.float64
    assert Dn.min() >= 0.0 and Dn.max() <= 1.0
    if m >= 2:
        assert Dn.max() == 1.0


@pytest.mark.parametrize("m", [2, 3, 6, 7, 30])
def test_maximum_attained_by_reversal_or_cycle(m):
    a = np.arange(m)
    rev = a[::-1].copy()
    shift = np.roll(a, 1)
    for metric in ["kendall", "spearman", "footrule", "ulam"]:
        assert SCALAR[metric](a, rev) == max_distance(metric, m)
        assert SCALAR[metric](a, rev, normalize=True) == 1.0
    for metric in ["cayley", "hamming"]:
        assert SCALAR[metric](a, shift) == max_distance(metric, m)
        assert SCALAR[metric](a, shift, normalize=True) == 1.0
    assert max_distance("spearman", m) == sum((2 * j - (m - 1)) ** 2 for j in range(m))


def test_max_distance_values_and_errors():
    assert [max_distance("kendall", m) for m in range(5)] == [0, 0, 1, 3, 6]
    assert max_distance("spearman", 4) == 20
    assert max_distance("footrule", 5) == 12
    assert max_distance("cayley", 5) == 4
    assert max_distance("hamming", 5) == 5
    assert max_distance("ulam", 5) == 4
    with pytest.raises(ValueError, match="parameter 'metric' must be a str among"):
        max_distance("euclid", 3)
    with pytest.raises(ValueError, match="n_items"):
        max_distance("kendall", -1)


# --------------------------------------------------------------------------------------------
# metric axioms and invariance
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", METRICS)
def test_metric_axioms_over_all_triples_m4(metric):
    P = all_perms(4)
    D = pairwise_distances(as_rankings(P), metric=metric).astype(np.float64)
    if metric == "spearman":
        # the squared form is not a metric; its square root (Euclidean) is
        assert (D[:, :, None] > D[:, None, :] + D[None, :, :] + 1e-9).any()
        D = np.sqrt(D)
    np.testing.assert_array_equal(D, D.T)  # symmetry
    assert (np.diag(D) == 0).all()  # identity
    off = ~np.eye(len(P), dtype=bool)
    assert (D[off] > 0).all()  # identity of indiscernibles
    # triangle inequality D[i,k] <= D[i,j] + D[j,k] over all 24^3 triples
    assert (D[:, None, :] <= D[:, :, None] + D[None, :, :] + 1e-9).all()


@pytest.mark.parametrize("metric", METRICS)
def test_right_invariance_relabelling_items(metric):
    """d(a o s, b o s) = d(a, b): renaming items (permuting the columns) changes nothing."""
    P = all_perms(4)
    D = pairwise_distances(as_rankings(P), metric=metric)
    for s in all_perms(4):
        np.testing.assert_array_equal(pairwise_distances(as_rankings(P[:, s]), metric=metric), D)


@pytest.mark.parametrize("metric", ["cayley", "hamming"])
def test_left_invariance_of_cayley_and_hamming(metric):
    """Cayley and Hamming are bi-invariant: renaming positions (s o a) changes nothing."""
    P = all_perms(4)
    D = pairwise_distances(as_rankings(P), metric=metric)
    for s in all_perms(4):
        np.testing.assert_array_equal(pairwise_distances(as_rankings(s[P]), metric=metric), D)


@pytest.mark.parametrize("kind", ["subset", "top"])
def test_right_invariance_of_partial_kendall(rng, kind):
    R = random_rankings(rng, 30, 6, kind=kind, p_missing=0.4)
    D = pairwise_distances(R)
    for _ in range(5):
        s = rng.permutation(6)
        np.testing.assert_array_equal(pairwise_distances(Rankings(R.ranks[:, s], kind=kind)), D)


# --------------------------------------------------------------------------------------------
# partial and tied Kendall: hand-computed values
# --------------------------------------------------------------------------------------------
def test_partial_kendall_hand_computed():
    # items 0, 1, 2 in both: (0,1) discordant, (0,2) and (1,2) concordant; item 3 unknown in a
    assert kendall_distance([0, 1, 2, -1], [1, 0, 2, 3]) == 1
    assert kendall_distance([0, 1, 2, -1], [1, 0, 2, 3], normalize=True) == pytest.approx(1 / 3)
    # only the pair (1, 3) is in both: b puts 3 above 1, a puts 1 above 3
    assert kendall_distance([-1, 0, -1, 1], [0, 2, 3, 1]) == 1
    # no common pair: 0 raw and 0 normalised
    assert kendall_distance([0, -1, -1], [-1, 0, 1]) == 0
    assert kendall_distance([0, -1, -1], [-1, 0, 1], normalize=True) == 0.0


def test_tied_pairs_are_not_comparable():
    # (0,1) tied in a -> not counted; (0,2), (1,2) both concordant with b = identity
    d, c = kendall_counts(Rankings([[0, 0, 1]]), Rankings([[0, 1, 2]]))
    assert (d.tolist(), c.tolist()) == ([0], [2])
    assert kendall_distance([0, 0, 1], [2, 1, 0]) == 2
    assert kendall_distance([0, 0, 1], [2, 1, 0], normalize=True) == 1.0
    # a pair tied in both rankings does not count either
    assert kendall_distance([0, 0, 1], [1, 1, 0], normalize=True) == 1.0
    assert ref_kendall_loop([0, 0, 1], [1, 1, 0]) == (2, 2)
    # all tied: nothing comparable
    assert kendall_distance([0, 0, 0], [0, 1, 2], normalize=True) == 0.0


def test_top_kind_orders_present_above_absent():
    a = [0, 1, -1, -1]
    b = [3, 2, 1, 0]
    # subset: only (0,1) is known and it is discordant
    assert kendall_distance(a, b) == 1
    # top: 0, 1 are above 2, 3; (2,3) is tied at the bottom: 5 comparable, all discordant
    assert kendall_distance(a, b, kind="top") == 5
    assert kendall_distance(a, b, kind="top", normalize=True) == 1.0
    Rt = Rankings([a], kind="top")
    assert kendall_distances(Rt, b).tolist() == [5]
    assert pairwise_distances(Rt, Rankings([b])).tolist() == [[5]]
    assert kendall_distances(Rt.with_kind("subset"), b).tolist() == [1]
    d, c = kendall_counts(Rt, Rankings([b]))
    assert (d.tolist(), c.tolist()) == ([5], [5])
    # two top lists: a = 0 > 1 > {2,3}, a2 = 2 > {0,1,3}: (0,2) and (1,2) are discordant;
    # every other pair is tied at the bottom of one of them
    a2 = Rankings([[-1, -1, 0, -1]], kind="top")
    assert pairwise_distances(Rt, a2).tolist() == [[2]]
    d, c = kendall_counts(Rt, a2)
    assert (d.tolist(), c.tolist()) == ([2], [2])
    assert ref_kendall_loop(a, [-1, -1, 0, -1], "top", "top") == (2, 2)


def test_kendall_one_to_many_partial_examples():
    R = Rankings.from_orderings([[0, 1, 2, 3], [3, 2, 1, 0], [1, 0], [2], [(0, 1), 3]], 4)
    center = [0, 1, 2, 3]
    assert kendall_distances(R, center).tolist() == [0, 6, 1, 0, 0]
    np.testing.assert_allclose(kendall_distances(R, center, normalize=True), [0, 1, 1, 0, 0])
    # a partial centre is read as kind="subset" (its absent items are unknown)
    assert kendall_distances(R, [0, 1, -1, -1]).tolist() == [0, 1, 1, 0, 0]


# --------------------------------------------------------------------------------------------
# kernels against the references on random data (partial rows, ties, both kinds)
# --------------------------------------------------------------------------------------------
def random_tied(rng, n, m, kind, p_missing=0.3):
    """Random rankings with ties (positions drawn from a few buckets) and missing items."""
    ranks = rng.integers(0, max(1, m // 2), size=(n, m))
    ranks = np.where(rng.random((n, m)) < p_missing, -1, ranks)
    ranks[0] = -1  # an all-absent row
    if n > 1:
        ranks[1] = 0  # an all-tied row
    return Rankings(ranks, kind=kind)


@pytest.mark.parametrize("kind", ["subset", "top"])
@pytest.mark.parametrize("m", [1, 2, 5, 9, 30])
def test_kendall_all_pairs_kernel_matches_numpy_reference(rng, kind, m):
    for R in (
        random_rankings(rng, 25, m, kind=kind, p_missing=0.3),
        random_tied(rng, 25, m, kind),
    ):
        E = effective_matrix(R)
        disc_ref, comp_ref = ref_kendall_numpy(E, E)
        np.testing.assert_array_equal(pairwise_distances(R), disc_ref)
        for i, k in [(0, 1), (1, 2), (3, 24), (7, 7), (20, 4)]:
            assert (disc_ref[i, k], comp_ref[i, k]) == ref_kendall_loop(E[i], E[k])
        Dn = pairwise_distances(R, normalize=True)
        expected = np.divide(disc_ref, comp_ref, out=np.zeros(disc_ref.shape), where=comp_ref > 0)
        np.testing.assert_allclose(Dn, expected)
        # against a second set, and with threads
        R2 = random_tied(rng, 7, m, "top" if kind == "subset" else "subset")
        disc2, comp2 = ref_kendall_numpy(E, effective_matrix(R2))
        np.testing.assert_array_equal(pairwise_distances(R, R2), disc2)
        np.testing.assert_allclose(
            pairwise_distances(R, R2, normalize=True),
            np.divide(disc2, comp2, out=np.zeros(disc2.shape), where=comp2 > 0),
        )
        np.testing.assert_array_equal(pairwise_distances(R, R2, n_jobs=2), disc2)
        np.testing.assert_array_equal(pairwise_distances(R, n_jobs=2), disc_ref)
        # paired and one-to-many agree with the all-pairs matrix
        np.testing.assert_array_equal(paired_distances(R, R[::-1]), np.diag(disc_ref[:, ::-1]))
        d, c = kendall_counts(R, R[::-1])
        np.testing.assert_array_equal(d, np.diag(disc_ref[:, ::-1]))
        np.testing.assert_array_equal(c, np.diag(comp_ref[:, ::-1]))
        center = R2.ranks[2]
        one = kendall_distances(R, center)
        loop = [ref_kendall_loop(r, center, kind, "subset")[0] for r in R.ranks]
        np.testing.assert_array_equal(one, loop)


@pytest.mark.parametrize("kind", ["subset", "top"])
@pytest.mark.parametrize("m", [1, 3, 8])
def test_numba_kernels_match_references_at_small_m(rng, kind, m):
    """The public path uses BLAS products for m < 24; check the numba kernels there too."""
    R = random_tied(rng, 15, m, kind)
    E = effective_matrix(R)
    disc = np.zeros((15, 15), dtype=np.int64)
    comp = np.zeros((15, 15), dtype=np.int64)
    _nb_kendall_all_pairs(E, E, disc, comp, 0, False)
    disc_ref, comp_ref = ref_kendall_numpy(E, E)
    np.testing.assert_array_equal(disc, disc_ref)
    np.testing.assert_array_equal(comp, comp_ref)
    for i, k in [(0, 1), (2, 3), (5, 14), (9, 9)]:
        assert (disc[i, k], comp[i, k]) == ref_kendall_loop(E[i], E[k])
    P = random_rankings(rng, 10, m).ranks
    order = np.ascontiguousarray(np.argsort(P, axis=1))
    d2 = np.zeros((10, 10), dtype=np.int64)
    _nb_kendall_all_pairs_complete(order, P, d2, 0, False)
    np.testing.assert_array_equal(d2, ref_kendall_numpy(P, P)[0])


@pytest.mark.parametrize("m", [24, 40, 101])
def test_complete_fast_path_matches_reference(rng, m):
    """m >= 24 on complete data takes the O(m log m) inversion-count kernel."""
    R = random_rankings(rng, 12, m)
    R2 = random_rankings(rng, 5, m)
    disc, _ = ref_kendall_numpy(R.ranks, R2.ranks)
    np.testing.assert_array_equal(pairwise_distances(R, R2), disc)
    disc_self, _ = ref_kendall_numpy(R.ranks, R.ranks)
    np.testing.assert_array_equal(pairwise_distances(R, n_jobs=2), disc_self)
    np.testing.assert_allclose(
        pairwise_distances(R, R2, normalize=True), disc / max_distance("kendall", m)
    )
    center = R2.ranks[0]
    np.testing.assert_array_equal(kendall_distances(R, center), disc[:, 0])
    np.testing.assert_array_equal(paired_distances(R, R2[[0]]), disc[:, 0])
    # a top list missing one item is complete and takes the fast path too
    t = R.ranks.copy()
    t[t == m - 1] = -1
    Rt = Rankings(t, kind="top")
    np.testing.assert_array_equal(pairwise_distances(Rt, R2), disc)


@pytest.mark.parametrize("metric", ["spearman", "footrule", "cayley", "hamming", "ulam"])
def test_complete_metrics_one_to_many_paired_all_pairs_agree(rng, metric):
    R = random_rankings(rng, 20, 7)
    R2 = random_rankings(rng, 6, 7)
    D = pairwise_distances(R, R2, metric=metric)
    for k in range(len(R2)):
        np.testing.assert_array_equal(DISTANCES[metric](R, R2.ranks[k]), D[:, k])
        assert SCALAR[metric](R.ranks[3], R2.ranks[k]) == D[3, k]
    np.testing.assert_array_equal(paired_distances(R[:6], R2, metric=metric), np.diag(D[:6, :]))
    np.testing.assert_array_equal(
        pairwise_distances(R2, metric=metric, n_jobs=2), pairwise_distances(R2, R2, metric=metric)
    )
    Dn = pairwise_distances(R, R2, metric=metric, normalize=True)
    np.testing.assert_allclose(Dn, D / max_distance(metric, 7))


def test_cayley_kernel_matches_python_cycle_count(rng):
    R = random_rankings(rng, 30, 12)
    D = pairwise_distances(R, metric="cayley", n_jobs=2)
    for i, k in [(0, 1), (5, 9), (29, 3), (7, 7)]:
        a, b = R.ranks[i], R.ranks[k]
        sigma = a[np.argsort(b)]  # a o b^-1 on positions
        seen, cycles = set(), 0
        for s in range(12):
            if s not in seen:
                cycles += 1
                x = s
                while x not in seen:
                    seen.add(x)
                    x = sigma[x]
        assert D[i, k] == 12 - cycles


def test_input_forms_one_based_arrays_and_rankings_agree():
    ranks1 = np.array([[1, 2, 3], [3, 1, 2], [2, 0, 1]])  # 1-based, 0 = missing
    R = Rankings.from_ranks(ranks1)
    np.testing.assert_array_equal(pairwise_distances(ranks1), pairwise_distances(R))
    np.testing.assert_array_equal(pairwise_distances(ranks1.astype(float)), pairwise_distances(R))
    np.testing.assert_array_equal(kendall_distances(ranks1, [0, 1, 2]), [0, 2, 1])


def test_spearman_sqrt_form():
    a, b = [0, 1, 2, 3], [3, 2, 1, 0]
    assert spearman_distance(a, b) == 20
    assert spearman_distance(a, b, squared=False) == pytest.approx(np.sqrt(20))
    assert spearman_distance(a, b, normalize=True, squared=False) == 1.0
    np.testing.assert_allclose(
        spearman_distances([[1, 2, 3, 4], [4, 3, 2, 1]], a, squared=False), [0, np.sqrt(20)]
    )


def test_top_list_missing_one_item_is_complete():
    Rt = Rankings([[1, 0, -1], [-1, 0, 1]], kind="top")
    np.testing.assert_array_equal(footrule_distances(Rt, [0, 1, 2]), [2, 4])
    assert spearman_distance([1, 0, -1], [0, 1, 2], kind="top") == 2


def test_empty_and_tiny_inputs():
    E = Rankings(np.zeros((0, 4), dtype=int))
    assert pairwise_distances(E).shape == (0, 0)
    assert pairwise_distances(E, Rankings([[0, 1, 2, 3]])).shape == (0, 1)
    assert kendall_distances(E, [0, 1, 2, 3]).shape == (0,)
    assert footrule_distances(E, [0, 1, 2, 3]).shape == (0,)
    one = Rankings([[0], [0]])
    for metric in METRICS:
        assert pairwise_distances(one, metric=metric).tolist() == [[0, 0], [0, 0]]
        assert pairwise_distances(one, metric=metric, normalize=True).tolist() == [[0.0] * 2] * 2
    assert kendall_distance([], []) == 0


def test_return_types():
    assert type(kendall_distance([0, 1], [1, 0])) is int
    assert type(kendall_distance([0, 1], [1, 0], normalize=True)) is float
    for metric in METRICS:
        assert type(SCALAR[metric]([0, 1, 2], [2, 0, 1])) is int
        assert type(SCALAR[metric]([0, 1, 2], [2, 0, 1], normalize=True)) is float
        assert DISTANCES[metric](Rankings([[0, 1, 2]]), [2, 0, 1]).dtype == np.int64


def test_registry():
    assert set(DISTANCES) == set(METRICS)
    assert DISTANCES["kendall"] is kendall_distances
    assert DISTANCES["cayley"] is cayley_distances
    assert DISTANCES["hamming"] is hamming_distances
    assert DISTANCES["ulam"] is ulam_distances


# --------------------------------------------------------------------------------------------
# property tests
# --------------------------------------------------------------------------------------------
perm_pairs = st.integers(min_value=0, max_value=40).flatmap(
    lambda m: st.tuples(st.permutations(list(range(m))), st.permutations(list(range(m))))
)


@settings(max_examples=50, deadline=None)
@given(perm_pairs)
def test_property_complete_kendall_and_tau_relation(pair):
    a, b = (np.array(x, dtype=np.int64) for x in pair)
    d = kendall_distance(a, b)
    m = len(a)
    assert d == bubble_sort_distance(a, b) == kendall_distance(b, a)
    # d(a, b) = d(id, b o a^-1): invariance under relabelling by a's order
    order = np.argsort(a)
    assert d == kendall_distance(np.arange(m), b[order])
    assert d + kendall_distance(a, m - 1 - b) == max_distance("kendall", m)
    assert footrule_distance(a, b) >= d >= footrule_distance(a, b) / 2  # Diaconis-Graham
    assert cayley_distance(a, b) <= d
    assert hamming_distance(a, b) >= cayley_distance(a, b) + (hamming_distance(a, b) > 0)


@settings(max_examples=50, deadline=None)
@given(
    st.integers(min_value=2, max_value=9).flatmap(
        lambda m: st.tuples(
            st.permutations(list(range(m))),
            st.permutations(list(range(m))),
            st.lists(st.booleans(), min_size=m, max_size=m),
            st.lists(st.booleans(), min_size=m, max_size=m),
        )
    )
)
def test_property_partial_kendall_is_kendall_on_common_items(data):
    a, b, keep_a, keep_b = (np.array(x) for x in data)
    pa = np.where(keep_a, a, -1)
    pb = np.where(keep_b, b, -1)
    common = keep_a & keep_b
    ra = np.argsort(np.argsort(a[common]))
    rb = np.argsort(np.argsort(b[common]))
    k = int(common.sum())
    assert kendall_distance(pa, pb) == kendall_distance(ra, rb)
    expected = kendall_distance(ra, rb) / (k * (k - 1) / 2) if k >= 2 else 0.0
    assert kendall_distance(pa, pb, normalize=True) == pytest.approx(expected)
    assert kendall_distance(pa, pb) == ref_kendall_loop(pa, pb)[0]
    assert kendall_distance(pa, pb, kind="top") == ref_kendall_loop(pa, pb, "top", "top")[0]


# --------------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("metric", ["spearman", "footrule", "cayley", "hamming", "ulam"])
def test_complete_only_metrics_reject_partial_and_tied_rows(metric):
    R = Rankings([[0, 1, 2], [0, 1, -1], [0, 0, 1]])
    with pytest.raises(ValueError, match=rf"R: row 1 is not a complete ranking.*{metric}"):
        pairwise_distances(R, metric=metric)
    with pytest.raises(ValueError, match="R: row 1 is not a complete"):
        DISTANCES[metric](R, [0, 1, 2])
    with pytest.raises(ValueError, match="R2: row 1 is not a complete"):
        pairwise_distances(R[[0]], R, metric=metric)
    with pytest.raises(ValueError, match="R: row 0 is not a complete"):
        pairwise_distances(R[[2]], metric=metric)
    with pytest.raises(ValueError, match="R2: row 0 is not a complete"):
        paired_distances(R[[0]], R[[2]], metric=metric)
    with pytest.raises(ValueError, match="center: row 0 is not a complete"):
        DISTANCES[metric](R[[0]], [0, 0, 1])
    with pytest.raises(ValueError, match="b: row 0 is not a complete"):
        SCALAR[metric]([0, 1, 2], [0, 1, -1])
    with pytest.raises(ValueError, match="a: row 0 is not a complete"):
        SCALAR[metric]([0, 2, 2], [0, 1, 2])


def test_clear_errors_on_bad_input():
    R = Rankings([[0, 1, 2]])
    with pytest.raises(ValueError, match="parameter 'metric' must be a str among"):
        pairwise_distances(R, metric="euclidean")
    with pytest.raises(ValueError, match="parameter 'metric' must be a str among"):
        paired_distances(R, R, metric="tau")
    with pytest.raises(ValueError, match="R2 has 4 items, expected 3"):
        pairwise_distances(R, Rankings([[0, 1, 2, 3]]))
    with pytest.raises(ValueError, match="R2 has 2 rows; expected 1 or 3"):
        paired_distances(Rankings([[0, 1, 2]] * 3), Rankings([[0, 1, 2]] * 2))
    with pytest.raises(ValueError, match="R2 has 2 rows"):
        kendall_counts(Rankings([[0, 1, 2]] * 3), Rankings([[0, 1, 2]] * 2))
    with pytest.raises(ValueError, match="center has 2 items, expected 3"):
        kendall_distances(R, [0, 1])
    with pytest.raises(ValueError, match="center: position -3 of item 1 is below -1"):
        kendall_distances(R, [0, -3, 1])
    with pytest.raises(ValueError, match="b has 2 items, expected 3"):
        kendall_distance([0, 1, 2], [0, 1])
    with pytest.raises(ValueError, match="a must be a 1-d position vector"):
        kendall_distance([[0, 1]], [[0, 1]])
    with pytest.raises(ValueError, match="integer positions"):
        kendall_distance([0, 0.5], [0, 1])
    with pytest.raises(TypeError, match="integer positions"):
        kendall_distance(["a", "b"], [0, 1])
    with pytest.raises(
        TypeError, match="kendall_distances: parameter 'normalize' must be boolean"
    ):
        kendall_distances(R, [0, 1, 2], normalize="yes")
    with pytest.raises(ValueError, match="kendall_distance: parameter 'kind' must be a str among"):
        kendall_distance([0, 1], [1, 0], kind="bottom")
    with pytest.raises(ValueError, match="row 0: negative rank"):
        pairwise_distances([[1, -2, 3]])
