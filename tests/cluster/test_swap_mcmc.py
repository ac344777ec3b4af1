"""Tests for rankclust.cluster.swap_mcmc (Ukkonen 2011, Section 4)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from rankclust import Rankings
from rankclust.cluster import (
    ChainKMeans,
    KOMeans,
    SwapSampler,
    chain_set_distance,
    make_planted_chains,
    mixing_curve,
    randomization_test,
    swap_samples,
)
from rankclust.cluster._swap_kernels import _nb_swap_steps, _swap_steps
from rankclust.cluster.swap_mcmc import default_n_steps

# ---------------------------------------------------------------------------- literal reference


def valid_swaps(D: list[list[int]]) -> list[tuple[int, int, int, int]]:
    """All valid swaps (i, j, p, q) of Definition 7, 0-based positions, by enumeration."""
    out = []
    for i, j in itertools.permutations(range(len(D)), 2):
        for p in range(len(D[i]) - 1):
            for q in range(len(D[j]) - 1):
                if D[i][p] == D[j][q + 1] and D[i][p + 1] == D[j][q]:
                    if D[i][p] < D[i][p + 1]:  # count each unordered swap once
                        out.append((i, j, p, q))
    return out


def apply_swap(D: list[list[int]], swap: tuple[int, int, int, int]) -> list[list[int]]:
    i, j, p, q = swap
    D = [list(c) for c in D]
    D[i][p], D[i][p + 1] = D[i][p + 1], D[i][p]
    D[j][q], D[j][q + 1] = D[j][q + 1], D[j][q]
    return D


def swap_pairs_reference(D, n_samples, thin, seed):
    """Algorithm 2 literally (|N| recounted by enumeration every step); yields every
    ``thin``-th state of one long run."""
    rnd = random.Random(seed)
    D = [list(c) for c in D]
    for _ in range(n_samples):
        for _ in range(thin):
            nb = valid_swaps(D)
            if not nb:
                break
            new = apply_swap(D, rnd.choice(nb))
            n_after = len(valid_swaps(new))
            if rnd.random() < len(nb) / n_after:
                D = new
        yield D


def component(D) -> set:
    """All labeled data sets reachable from D by swaps (breadth-first)."""
    start = tuple(tuple(c) for c in D)
    seen = {start}
    frontier = [start]
    while frontier:
        nxt = []
        for state in frontier:
            for s in valid_swaps([list(c) for c in state]):
                new = tuple(tuple(c) for c in apply_swap([list(c) for c in state], s))
                if new not in seen:
                    seen.add(new)
                    nxt.append(new)
        frontier = nxt
    return seen


def orderings(R: Rankings) -> list[list[int]]:
    return R.to_orderings()


def check_bookkeeping(s: SwapSampler) -> None:
    """Incremental |N|, lists S(x,y) and Fenwick weights agree with a recount."""
    D = orderings(s.rankings())
    assert s.n_neighbours == len(valid_swaps(D))
    m = s.n_items
    expect = Counter()
    for c in D:
        for a, b in itertools.pairwise(c):
            expect[a * m + b] += 1
    for q in range(m * m):
        assert s._size[q] == expect.get(q, 0)
        members = s._members[s._off[q] : s._off[q] + s._size[q]]
        for g in members:
            assert s._seq[g] * m + s._seq[g + 1] == q
            assert s._members[s._where[g]] == g
    wt = s._size.reshape(m, m) * s._size.reshape(m, m).T
    assert s._state[0] == np.triu(wt, 1).sum()
    # Fenwick prefix sums equal the cumulative weights
    cum = np.cumsum(s._wt)
    for i in range(1, m * m + 1):
        acc, j = 0, i
        while j > 0:
            acc += s._tree[j]
            j -= j & (-j)
        assert acc == cum[i - 1]


# ---------------------------------------------------------------------------- paper examples


def test_paper_swap_examples():
    # Section 4.3: pi1 = (1,2,3,4,5), pi2 = (3,2,6,4,1); swap (pi1, pi2, 2, 1)
    D = [[0, 1, 2, 3, 4], [2, 1, 5, 3, 0]]
    assert valid_swaps(D) == [(0, 1, 1, 0)]
    assert apply_swap(D, (0, 1, 1, 0)) == [[0, 2, 1, 3, 4], [1, 2, 5, 3, 0]]
    # D_i = {pi1, pi2 = (7,8,4,3,6), pi3 = (3,2,6,4,1)}: |N| = 2
    D = [[0, 1, 2, 3, 4], [6, 7, 3, 2, 5], [2, 1, 5, 3, 0]]
    assert len(valid_swaps(D)) == 2
    s = SwapSampler(Rankings.from_orderings(D), random_state=0)
    assert s.n_neighbours == 2
    D2 = apply_swap(D, (0, 1, 2, 2))  # (pi1, pi2, 3, 3) in 1-based positions
    assert D2 == [[0, 1, 3, 2, 4], [6, 7, 2, 3, 5], [2, 1, 5, 3, 0]]
    # the reverse swap (pi1', pi2', 3, 3) and the new (pi2', pi3, 4, 3); not (pi1', pi3, 2, 1)
    as_sets = {frozenset({(i, p), (j, q)}) for i, j, p, q in valid_swaps(D2)}
    assert as_sets == {frozenset({(0, 2), (1, 2)}), frozenset({(1, 3), (2, 2)})}
    assert SwapSampler(Rankings.from_orderings(D2)).n_neighbours == 2


def test_eq15_example():
    D = Rankings.from_orderings([[0, 1, 2], [3, 4, 5], [1, 0, 2], [5, 4, 3]])
    Di = Rankings.from_orderings([[1, 0, 2], [5, 4, 3], [0, 1, 2], [3, 4, 5]])
    assert chain_set_distance(D, Di) == 2.0
    assert chain_set_distance(D, D) == 0.0
    with pytest.raises(ValueError, match="same item set"):
        chain_set_distance(D, Rankings.from_orderings([[0, 1], [3, 4], [1, 0], [5, 4]], n_items=6))


# ---------------------------------------------------------------------------- invariants


chain_data = st.integers(min_value=3, max_value=7).flatmap(
    lambda m: st.lists(
        st.permutations(list(range(m))).flatmap(
            lambda p: st.integers(min_value=0, max_value=len(p)).map(lambda k: list(p[:k]))
        ),
        min_size=2,
        max_size=12,
    ).map(lambda orders: (m, orders))
)


@settings(max_examples=50, deadline=None)
@given(data=chain_data, n_steps=st.integers(0, 300), seed=st.integers(0, 2**31 - 1))
def test_every_swap_preserves_counts_lengths_and_item_sets(data, n_steps, seed):
    m, orders = data
    R = Rankings.from_orderings(orders, n_items=m)
    s = SwapSampler(R, random_state=seed)
    check_bookkeeping(s)
    for _ in range(2):
        s.run(n_steps // 2 + 1)
        D = s.rankings()
        np.testing.assert_array_equal(D.pairwise_counts(), R.pairwise_counts())
        np.testing.assert_array_equal(D.lengths, R.lengths)
        np.testing.assert_array_equal(D.present, R.present)  # item set of every chain
        check_bookkeeping(s)
    assert 0 <= s.n_accepted_ <= s.n_steps_


def test_compiled_kernel_matches_python_version():
    R, _ = make_planted_chains(40, n_items=6, length=(2, 6), n_clusters=2, random_state=1)
    a = SwapSampler(R, random_state=3)
    b = a.copy()
    b._rng = a._rng.copy()
    acc_nb = _nb_swap_steps(*a._kernel_args(), a._rng, 500, a._top)
    acc_py = _swap_steps(*b._kernel_args(), b._rng, 500, b._top)
    assert acc_nb == acc_py
    np.testing.assert_array_equal(a._seq, b._seq)
    np.testing.assert_array_equal(a._rng, b._rng)


def test_sampler_is_uniform_on_the_component():
    # a small data set whose swap component is enumerable
    D = [[0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1], [1, 2]]
    comp = component(D)
    assert len(comp) > 5
    s = SwapSampler(Rankings.from_orderings(D, n_items=3), random_state=11)
    counts = Counter()
    for _ in range(6000):
        s.run(7)
        counts[tuple(tuple(c) for c in orderings(s.rankings()))] += 1
    assert set(counts) <= comp
    obs = np.array([counts.get(state, 0) for state in sorted(comp)])
    assert chisquare(obs).pvalue > 1e-3


def test_literal_algorithm2_reference_agrees_in_distribution():
    D = [[0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1], [1, 2]]
    comp = sorted(component(D))
    ref = Counter(
        tuple(tuple(c) for c in state) for state in swap_pairs_reference(D, 3000, 7, seed=0)
    )
    obs = np.array([ref.get(state, 0) for state in comp])
    assert chisquare(obs).pvalue > 1e-3  # the literal algorithm is uniform as well
    assert set(ref) <= set(comp)


def test_no_valid_swap_means_no_move():
    R = Rankings.from_orderings([[0, 1, 2], [0, 1], [3, 4]], n_items=5)
    s = SwapSampler(R, random_state=0)
    assert s.n_neighbours == 0
    assert s.run(100).rankings() == R
    assert s.n_accepted_ == 0


def test_reproducible_and_copy_independent():
    R, _ = make_planted_chains(100, n_items=8, length=4, random_state=2)
    a = SwapSampler(R, random_state=5).run(1000).rankings()
    b = SwapSampler(R, random_state=5).run(1000).rankings()
    assert a == b
    s = SwapSampler(R, random_state=5).run(10)
    c = s.copy(random_state=1)
    before = s.rankings()
    c.run(500)
    assert s.rankings() == before


def test_weighted_input_is_expanded():
    R = Rankings.from_orderings([[0, 1, 2], [2, 1, 0]], weights=[3, 2])
    s = SwapSampler(R, random_state=0)
    assert s.n_rankings == 5
    np.testing.assert_array_equal(s.run(50).rankings().pairwise_counts(), R.pairwise_counts())


# ---------------------------------------------------------------------------- samples and test


def test_default_steps_is_100_per_adjacent_pair():
    R = Rankings.from_orderings([[0, 1, 2], [3, 4], [5]], n_items=6)
    assert default_n_steps(R) == 100 * (2 + 1 + 0)


def test_swap_samples_methods():
    R, _ = make_planted_chains(60, n_items=6, length=4, random_state=3)
    for method in ("besag_clifford", "serial"):
        samples = swap_samples(R, n_samples=5, n_steps=200, method=method, random_state=0)
        assert len(samples) == 5
        for D in samples:
            np.testing.assert_array_equal(D.pairwise_counts(), R.pairwise_counts())
            np.testing.assert_array_equal(D.present, R.present)
        again = swap_samples(R, n_samples=5, n_steps=200, method=method, random_state=0)
        assert all(x == y for x, y in zip(samples, again, strict=True))
    with pytest.raises(ValueError, match="method"):
        swap_samples(R, method="nope")


class _Probe:
    """Fake clusterer: objective 0 on the original data, 1 on anything else."""

    def __init__(self, original=None):
        self.original = original

    def get_params(self, deep=True):
        return {"original": self.original}

    def set_params(self, **params):
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def fit(self, R):
        self.objective_ = 0.0 if np.array_equal(R.ranks, self.original.ranks) else 1.0
        return self


def test_pvalue_all_null_larger_is_001():
    R, _ = make_planted_chains(50, n_items=8, length=5, random_state=4)
    res = randomization_test(_Probe(R), R, n_samples=99, n_steps=500, random_state=0)
    assert res.pvalue == pytest.approx(0.01)
    assert res.null_distribution.shape == (99,)
    assert res.statistic == 0.0 and 0 < res.acceptance_rate <= 1
    res = randomization_test(
        _Probe(R), R, n_samples=9, n_steps=500, greater_is_better=True, random_state=0
    )
    assert res.pvalue == 1.0


def test_no_moves_gives_pvalue_one():
    R = Rankings.from_orderings([[0, 1, 2], [0, 1], [3, 4], [2, 4]], n_items=5)
    res = randomization_test(
        ChainKMeans(2, n_init=1, random_state=0),
        R,
        n_samples=9,
        n_steps=100,
        random_state=0,
        return_samples=True,
    )
    assert res.pvalue == 1.0
    assert all(D == R for D in res.samples)


def test_randomization_test_statistic_protocol():
    R, _ = make_planted_chains(120, n_items=8, length=5, n_clusters=2, random_state=5)
    est = ChainKMeans(2, n_init=1, random_state=0)
    res = randomization_test(
        est, R, n_samples=4, n_steps=2000, random_state=1, return_samples=True
    )
    by_name = randomization_test(est, R, samples=res.samples, statistic="inertia_")
    by_call = randomization_test(est, R, samples=res.samples, statistic=lambda e, D: e.objective_)
    np.testing.assert_allclose(by_name.null_distribution, res.null_distribution)
    np.testing.assert_allclose(by_call.null_distribution, res.null_distribution)
    par = randomization_test(est, R, samples=res.samples, n_jobs=2)
    np.testing.assert_allclose(par.null_distribution, res.null_distribution)
    ko = randomization_test(KOMeans(2, n_init=1, random_state=0), R, samples=res.samples)
    assert ko.null_distribution.shape == (4,)
    with pytest.raises(ValueError, match="objective_"):
        randomization_test(_NoObjective(R), R, samples=res.samples)
    with pytest.raises(ValueError, match="no fitted attribute"):
        randomization_test(est, R, samples=res.samples, statistic="nope_")


class _NoObjective(_Probe):
    def fit(self, R):
        return self


def test_planted_clusters_are_significant():
    R, _ = make_planted_chains(300, n_items=8, length=5, n_clusters=2, random_state=6)
    res = randomization_test(
        ChainKMeans(2, n_init=2, random_state=0), R, n_samples=19, random_state=0
    )
    assert res.pvalue == pytest.approx(0.05)  # the smallest possible with 19 samples
    assert res.statistic < res.null_distribution.min()


def test_mixing_curve():
    R, _ = make_planted_chains(200, n_items=8, length=5, n_clusters=2, random_state=7)
    curve = mixing_curve(R, n_steps=40_000, every=1000, random_state=0)
    assert curve.steps.shape == curve.distance.shape == (40,)
    assert curve.distance[0] > 0 and curve.distance[-1] > curve.distance[0]
    assert curve.burn_in is not None and curve.burn_in <= 40_000
    assert 0 < curve.acceptance_rate <= 1
    with pytest.raises(ValueError, match="every"):
        mixing_curve(R, n_steps=10, every=100)


def test_works_with_a_mixture_model():
    # the protocol of randomization_test: MallowsMixture exposes objective_ = -log-likelihood
    from rankclust.cluster import MallowsMixture

    R, _ = make_planted_chains(120, n_items=6, length=4, n_clusters=2, random_state=8)
    res = randomization_test(
        MallowsMixture(n_components=2, random_state=0),
        R,
        n_samples=4,
        n_steps=2000,
        random_state=0,
    )
    assert res.null_distribution.shape == (4,) and np.isfinite(res.statistic)
    assert res.pvalue in {0.2, 0.4, 0.6, 0.8, 1.0}


def _top_pair_counts(D):
    """``C[u, v]`` = ballots ranking u above v, listed or implied (listed above unlisted)."""
    r = np.where(D.ranks >= 0, D.ranks, D.n_items)  # unlisted: below every listed item
    listed = D.ranks >= 0
    above = (r[:, :, None] < r[:, None, :]) & listed[:, :, None]
    return (D.weights[:, None, None] * above).sum(axis=0)


def _ballots():
    rng = np.random.default_rng(3)
    rows = []
    for _ in range(60):
        order = rng.permutation(5)
        rows.append(order[: rng.integers(1, 5)].tolist())  # 1 to 4 candidates listed
    return Rankings.from_orderings(rows, n_items=5, kind="top")


def test_top_ballots_are_tested_as_ballots():
    # the swaps keep every ballot's listed set, hence the implied pairs: the null data sets
    # keep the top-t pair counts, and the estimator is fitted to kind="top" data
    from rankclust.cluster import MallowsMixture

    R = _ballots()
    seen = []

    class _Spy(_Probe):
        def fit(self, D):
            seen.append(D)
            self.objective_ = 0.0
            return self

    res = randomization_test(
        _Spy(R), R, n_samples=5, n_steps=3000, random_state=0, return_samples=True
    )
    assert all(D.kind == "top" for D in seen) and len(seen) == 6
    assert res.acceptance_rate > 0
    want = _top_pair_counts(R)
    moved = False
    for D in res.samples:
        assert D.kind == "top"
        np.testing.assert_array_equal(_top_pair_counts(D), want)
        # the multiset of listed sets (with counts) is unchanged; one-candidate ballots stay
        sets = Counter()
        for row, w in zip(D.to_orderings(), D.weights, strict=True):
            sets[frozenset(row)] += w
        assert sets == Counter(frozenset(r) for r in R.to_orderings())
        moved |= sorted(map(tuple, D.expand().to_orderings())) != sorted(
            map(tuple, R.to_orderings())
        )
    assert moved
    res = randomization_test(
        MallowsMixture(2, n_init=2, random_state=0), R, n_samples=3, n_steps=500, random_state=0
    )
    assert np.isfinite(res.statistic) and res.null_distribution.shape == (3,)


def test_chain_clusterers_still_refuse_top_ballots():
    with pytest.raises(ValueError, match="kind='top'"):
        randomization_test(ChainKMeans(2, n_init=1), _ballots(), n_samples=2, n_steps=10)
